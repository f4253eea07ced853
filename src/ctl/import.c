// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * import.c - `srv6ctl import [--from-kernel]`: ip route show output (stdin,
 * or the kernel's routing tables) as srv6d.conf lines on stdout, through
 * srv6_import_line() (the conf grammar).  Warnings and routes srv6d cannot
 * take go to stderr as "import: LINE: message".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "srv6d/conf.h"
#include "srv6ctl.h"

#define RTDUMP_TRIES 5   /* reads of an interrupted route dump */

/* Every line of @in; *@bad counts the routes that could not be taken. */
static void import_stream(FILE *in, const char *name, int family, unsigned int *bad)
{
	char *line = NULL, out[SRV6_CONF_LINE_MAX], warn[SRV6_CONF_ERRLEN];
	size_t cap = 0;
	unsigned int no = 0;

	while (getline(&line, &cap, in) > 0) {
		int r;

		no++;
		r = srv6_import_line(line, family, out, sizeof(out), warn, sizeof(warn));
		if (r > 0)
			printf("%s\n", out);
		if (r < 0) {
			(*bad)++;
			fprintf(stderr, "import: %s:%u: %s: not imported\n", name, no,
				warn[0] ? warn : strerror(-r));
		} else if (warn[0]) {
			fprintf(stderr, "import: %s:%u: %s\n", name, no, warn);
		}
	}
	free(line);
}

int srv6ctl_import(int argc, char **argv)
{
	unsigned int bad = 0;

	if (argc == 1 && !strcmp(argv[0], "--from-kernel")) {
		static const int fams[] = { AF_INET6, AF_INET };

		/* the dump is read whole first: the conversion then works on
		 * the same text as the stdin path */
		for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
			char *text = NULL;
			size_t len = 0;
			FILE *m;
			int r = -EINTR;

			/* a dump the kernel marks interrupted (a route changed
			 * while it ran) is read again, whole, a few times: an
			 * import never converts a torn table */
			for (int t = 0; t < RTDUMP_TRIES && r == -EINTR; t++) {
				free(text);
				text = NULL;
				len = 0;
				m = open_memstream(&text, &len);
				if (!m) {
					fprintf(stderr, "srv6ctl: import: out of memory\n");
					return 1;
				}
				r = srv6ctl_rtdump(fams[i], m);
				fclose(m);
			}
			if (r < 0) {
				fprintf(stderr, "srv6ctl: import: dumping the %s routes: %s\n",
					fams[i] == AF_INET6 ? "IPv6" : "IPv4", strerror(-r));
				free(text);
				return 1;
			}
			m = fmemopen(text, len, "r");
			if (m) {
				import_stream(m, fams[i] == AF_INET6 ? "kernel-ipv6" : "kernel-ipv4",
					      fams[i], &bad);
				fclose(m);
			}
			free(text);
		}
	} else if (argc == 0) {
		import_stream(stdin, "stdin", AF_UNSPEC, &bad);
	} else {
		fprintf(stderr, "srv6ctl: import: unknown option \"%s\" (--from-kernel)\n", argv[0]);
		return 2;
	}
	fflush(stdout);
	return bad ? 1 : 0;
}
