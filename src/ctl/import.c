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
		static const struct { const char *cmd; int family; } src[] = {
			{ "ip -6 route show table all", AF_INET6 },
			{ "ip -4 route show table all", AF_INET },
		};

		for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
			FILE *p = popen(src[i].cmd, "r");
			int st;

			if (!p) {
				fprintf(stderr, "srv6ctl: import: %s: %s\n", src[i].cmd, strerror(errno));
				return 1;
			}
			import_stream(p, src[i].family == AF_INET6 ? "ip-6" : "ip-4", src[i].family, &bad);
			st = pclose(p);
			if (st != 0) {
				fprintf(stderr, "srv6ctl: import: \"%s\" failed (status %d)\n", src[i].cmd, st);
				return 1;
			}
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
