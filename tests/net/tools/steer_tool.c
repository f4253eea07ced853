// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * steer_tool - drive src/kernel/steer.c from a namespace test.
 *
 *   steer_tool install|format4|format6 [-q FIRST[-LAST]] [-b] [-c] [-s P/L]... [-6 P/L]... [-4 P/L]...
 *              [-g MARK/MASK [-G]]
 *   steer_tool remove [-g MARK/MASK]
 *
 * -b fail-open (--queue-bypass), -c --queue-cpu-fanout, -s SID prefix,
 * -6 / -4 policy prefixes, -g the context gate's match (IPv6; -G IPv4 too).  format* prints srv6_steer_format()'s text.
 * Exit 0 on success, 1 with the error line on stderr otherwise.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv6d/steer.h"

#define MAXP 64

static int parse_pfx(int family, char *s, void *addr, uint8_t *plen)
{
	char *slash = strchr(s, '/');
	unsigned long l = family == AF_INET6 ? 128 : 32;

	if (slash) {
		*slash = '\0';
		l = strtoul(slash + 1, NULL, 10);
	}
	*plen = (uint8_t)l;
	return inet_pton(family, s, addr) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static struct in6_addr sids[MAXP], p6[MAXP];
	static struct in_addr p4[MAXP];
	static uint8_t sidl[MAXP], p6l[MAXP], p4l[MAXP];
	struct srv6_steer_cfg c = { .sid_prefixes = sids, .sid_plens = sidl, .pol6 = p6,
				    .pol6_plens = p6l, .pol4 = p4, .pol4_plens = p4l };
	const char *cmd;
	char err[256] = "";
	int opt, e;

	if (argc < 2) {
		fprintf(stderr, "usage: steer_tool install|remove|format4|format6 ...\n");
		return 2;
	}
	cmd = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "q:bcs:6:4:i:g:G")) != -1) {
		switch (opt) {
		case 'q': {
			char *dash = strchr(optarg, '-');

			c.queue_first = (unsigned int)strtoul(optarg, NULL, 10);
			c.queue_last = dash ? (unsigned int)strtoul(dash + 1, NULL, 10) : c.queue_first;
			break;
		}
		case 'b': c.fail_open = true; break;
		case 'i': c.inject_dev = optarg; break;   /* srv6d's device */
		case 'c': c.cpu_fanout = true; break;
		case 'g': {
			char *slash = strchr(optarg, '/');

			c.gate_mark = (uint32_t)strtoul(optarg, NULL, 0);
			c.gate_mask = slash ? (uint32_t)strtoul(slash + 1, NULL, 0) : 0xffffffffu;
			c.gate6 = true;
			break;
		}
		case 'G': c.gate4 = true; break;
		case 's':
			if (c.nsids == MAXP || parse_pfx(AF_INET6, optarg, &sids[c.nsids], &sidl[c.nsids]))
				return 2;
			c.nsids++;
			break;
		case '6':
			if (c.npol6 == MAXP || parse_pfx(AF_INET6, optarg, &p6[c.npol6], &p6l[c.npol6]))
				return 2;
			c.npol6++;
			break;
		case '4':
			if (c.npol4 == MAXP || parse_pfx(AF_INET, optarg, &p4[c.npol4], &p4l[c.npol4]))
				return 2;
			c.npol4++;
			break;
		default:
			return 2;
		}
	}
	if (!strcmp(cmd, "install")) {
		e = srv6_steer_install(&c, err, sizeof(err));
	} else if (!strcmp(cmd, "remove")) {
		e = srv6_steer_remove(NULL, c.gate_mark, c.gate_mask, err, sizeof(err));
	} else if (!strcmp(cmd, "format4") || !strcmp(cmd, "format6")) {
		char buf[8192];

		e = srv6_steer_format(&c, cmd[6] == '6' ? AF_INET6 : AF_INET, buf, sizeof(buf));
		if (e >= (int)sizeof(buf))
			e = -1;
		if (e >= 0) {
			fputs(buf, stdout);
			e = 0;
		} else {
			snprintf(err, sizeof(err), "format failed");
		}
	} else {
		return 2;
	}
	if (e < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	return 0;
}
