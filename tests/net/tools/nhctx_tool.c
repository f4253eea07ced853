// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nhctx_tool - drive src/kernel/nhctx.c from a namespace test.
 *
 *   nhctx_tool [MARK_BASE TABLE_BASE PRIO]      (0 = default)
 *
 * Reads commands from stdin, one a line, answers each on stdout:
 *   sync            followed by SID lines and a line "end"; a SID line is
 *                   ACTION [nh6 A] [nh4 A] [oif IF] [table N] [vrftable N]
 *                   -> "mark 0x..." per SID, then "ok" or "err MESSAGE"
 *   gc              -> "ok N" (contexts removed) or "err ..."
 *   abort           srv6_nhctx_abort(): "ok N" or "err ..."
 *   count           -> "count N"
 *   close           srv6_nhctx_close(), "ok", exit 0
 *   crash           exit without cleaning up (what a crashed srv6d leaves)
 * The answer "ready" follows a successful open; "err ..." and exit 1 a failed one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv6d/nhctx.h"

#define MAXSIDS 64

static const struct { const char *name; enum srv6_action act; } actions[] = {
	{ "End", SRV6_ACT_END }, { "End.X", SRV6_ACT_END_X }, { "End.T", SRV6_ACT_END_T },
	{ "End.DX6", SRV6_ACT_END_DX6 }, { "End.DX4", SRV6_ACT_END_DX4 },
	{ "End.DT6", SRV6_ACT_END_DT6 }, { "End.DT4", SRV6_ACT_END_DT4 },
	{ "End.DT46", SRV6_ACT_END_DT46 }, { "End.B6", SRV6_ACT_END_B6 },
	{ "End.B6.Encaps", SRV6_ACT_END_B6_ENCAP },
};

static int parse_sid(char *line, struct srv6_sid_cfg *c)
{
	char *save, *w = strtok_r(line, " \t\n", &save), *v;
	size_t i;

	memset(c, 0, sizeof(*c));
	if (!w)
		return -1;
	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (!strcmp(w, actions[i].name))
			c->action = actions[i].act;
	if (!c->action)
		return -1;
	while ((w = strtok_r(NULL, " \t\n", &save))) {
		v = strtok_r(NULL, " \t\n", &save);
		if (!v)
			return -1;
		if (!strcmp(w, "nh6")) {
			if (inet_pton(AF_INET6, v, &c->nh6) != 1)
				return -1;
			c->attrs |= SRV6_F_ATTR(SRV6_ATTR_NH6);
		} else if (!strcmp(w, "nh4")) {
			if (inet_pton(AF_INET, v, &c->nh4) != 1)
				return -1;
			c->attrs |= SRV6_F_ATTR(SRV6_ATTR_NH4);
		} else if (!strcmp(w, "oif")) {
			snprintf(c->oif_name, sizeof(c->oif_name), "%s", v);
			c->attrs |= SRV6_F_ATTR(SRV6_ATTR_OIF);
		} else if (!strcmp(w, "table")) {
			c->table = (uint32_t)strtoul(v, NULL, 0);
			c->attrs |= SRV6_F_ATTR(SRV6_ATTR_TABLE);
		} else if (!strcmp(w, "vrftable")) {
			c->vrftable = (uint32_t)strtoul(v, NULL, 0);
			c->attrs |= SRV6_F_ATTR(SRV6_ATTR_VRFTABLE);
		} else {
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct srv6_sid_cfg cfgs[MAXSIDS];
	struct srv6_sid_cfg *ptrs[MAXSIDS];
	uint32_t mb = 0, mm = 0, tb = 0, prio = 0;
	struct srv6_nhctx *n;
	char line[512], err[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4) {
		mb = (uint32_t)strtoul(argv[1], NULL, 0);
		tb = (uint32_t)strtoul(argv[2], NULL, 0);
		prio = (uint32_t)strtoul(argv[3], NULL, 0);
	}
	if (argc >= 5)   /* optional mark mask */
		mm = (uint32_t)strtoul(argv[4], NULL, 0);
	n = srv6_nhctx_open(mb, mm, tb, prio, err, sizeof(err));
	if (!n) {
		printf("err %s\n", err);
		return 1;
	}
	printf("ready\n");
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "sync")) {
			size_t k = 0;
			int bad = 0, e;

			while (fgets(line, sizeof(line), stdin)) {
				line[strcspn(line, "\n")] = '\0';
				if (!strcmp(line, "end"))
					break;
				if (k == MAXSIDS || parse_sid(line, &cfgs[k]) < 0)
					bad = 1;
				else
					ptrs[k] = &cfgs[k], k++;
			}
			if (bad) {
				printf("err bad SID line\n");
				continue;
			}
			e = srv6_nhctx_sync(n, ptrs, k, NULL, err, sizeof(err));
			if (e < 0) {
				printf("err %s\n", err);
				continue;
			}
			for (size_t i = 0; i < k; i++)
				printf("mark 0x%x\n", cfgs[i].mark);
			printf("ok\n");
		} else if (!strcmp(line, "gc")) {
			int r = srv6_nhctx_gc(n);

			if (r < 0)
				printf("err %s\n", strerror(-r));
			else
				printf("ok %d\n", r);
		} else if (!strcmp(line, "abort")) {
			int r = srv6_nhctx_abort(n);

			if (r < 0)
				printf("err %s\n", strerror(-r));
			else
				printf("ok %d\n", r);
		} else if (!strcmp(line, "count")) {
			printf("count %zu\n", srv6_nhctx_count(n));
		} else if (!strcmp(line, "close")) {
			srv6_nhctx_close(n);
			printf("ok\n");
			return 0;
		} else if (!strcmp(line, "crash")) {
			_exit(0);
		} else if (line[0]) {
			printf("err unknown command\n");
		}
	}
	srv6_nhctx_close(n);
	return 0;
}
