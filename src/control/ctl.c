// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctl.c - the control protocol's pure half (include/srv6d/ctl.h): the
 * command table (srv6d dispatches on it, srv6ctl checks its arguments and
 * prints its usage from it), the request parser, JSON string escaping and
 * the parser of /proc/net/netfilter/nfnetlink_queue.
 *
 * A new command is one row here, one handler in srv6d (main.c, ctl_run())
 * and one entry in man/srv6ctl.8 (tests/net/test_manpages.sh checks it).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "srv6d/ctl.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define J  SRV6_CTL_F_JSON
#define S  SRV6_CTL_F_STATS
#define L  SRV6_CTL_F_LOCAL

static const struct srv6_ctl_cmd cmds[] = {
	{ SRV6_CTL_SID_SHOW, "sid", "show", "[SID]",
	  "local SIDs (-s: packets, bytes, errors, drops by reason)", 0, 1, J | S },
	{ SRV6_CTL_SID_ADD, "sid", "add", "SID action NAME [ATTR...]",
	  "add or replace a SID (srv6d.conf words; lasts until the next reload)",
	  3, SRV6_CTL_MAX_WORDS, 0 },
	{ SRV6_CTL_SID_DEL, "sid", "del", "SID", "remove a SID (until the next reload)", 1, 1, 0 },
	{ SRV6_CTL_ROUTE_SHOW, "route", "show", "[PREFIX]", "headend policies (-s: counters)",
	  0, 1, J | S },
	{ SRV6_CTL_ROUTE_ADD, "route", "add", "PREFIX encap seg6 mode MODE segs LIST",
	  "add or replace a policy (until the next reload)", 5, SRV6_CTL_MAX_WORDS, 0 },
	{ SRV6_CTL_ROUTE_DEL, "route", "del", "PREFIX", "remove a policy (until the next reload)",
	  1, 1, 0 },
	{ SRV6_CTL_QUEUE_SHOW, "queue", "show", "[N]",
	  "per queue: packets, verdicts, the kernel's counters (N: a policy queue's held packets)",
	  0, 1, J },
	{ SRV6_CTL_QUEUE_RELEASE, "queue", "release", "N [COUNT|all]",
	  "accept the COUNT (default 1) oldest packets policy queue N holds", 1, 2, J },
	{ SRV6_CTL_STEER_SHOW, "steer", "show", "[--template]",
	  "the steering rules installed now (--template: what steer none needs)", 0, 1, J },
	{ SRV6_CTL_STATUS, "status", NULL, "",
	  "version, uptime, configuration, egress paths, kernel features", 0, 0, J },
	{ SRV6_CTL_STATS_SHOW, "stats", "show", "[--format text|json|prometheus]",
	  "every counter (prometheus: the text exposition format)", 0, 2, J },
	{ SRV6_CTL_STATS_RESET, "stats", "reset", "", "set every counter shown to zero", 0, 0, 0 },
	{ SRV6_CTL_RELOAD, "reload", NULL, "",
	  "reread the configuration file (FILE:LINE: message on error)", 0, 0, 0 },
	{ SRV6_CTL_MONITOR, "monitor", NULL, "", "one line per event until interrupted", 0, 0, J },
	{ SRV6_CTL_IMPORT, "import", NULL, "[--from-kernel]",
	  "ip route show output (stdin, or the kernel's routes) as srv6d.conf lines",
	  0, 1, L },
};
_Static_assert(ARRAY_SIZE(cmds) == SRV6_CTL_OP_MAX, "one row per op");

const struct srv6_ctl_cmd *srv6_ctl_cmds(size_t *n)
{
	*n = ARRAY_SIZE(cmds);
	return cmds;
}

void srv6_ctl_usage(FILE *out, const char *prog)
{
	fprintf(out, "usage: %s [-j] [-s] [-S SOCKET] OBJECT COMMAND [ARG...]\n"
		"  -j, --json       JSON output\n"
		"  -s, --stats      counters\n"
		"  -S, --socket P   srv6d's control socket (default " SRV6_CTL_SOCK_DEFAULT ")\n"
		"  -h, --help       this text\n", prog);
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
		char left[96];

		snprintf(left, sizeof(left), "%s%s%s%s%s", cmds[i].object,
			 cmds[i].command ? " " : "", cmds[i].command ? cmds[i].command : "",
			 cmds[i].args[0] ? " " : "", cmds[i].args);
		fprintf(out, "  %-48s %s\n", left, cmds[i].help);
	}
}

/* @w for a message: printable already (the parser checked), cut. */
static const char *cut(const char *w, char *buf, size_t len)
{
	snprintf(buf, len, "%.40s%s", w, strlen(w) > 40 ? "..." : "");
	return buf;
}

static const struct srv6_ctl_cmd *find(const char *object, const char *command)
{
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(cmds[i].object, object))
			continue;
		if (!cmds[i].command ? !command : command && !strcmp(cmds[i].command, command))
			return &cmds[i];
	}
	return NULL;
}

static bool object_known(const char *object)
{
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i].object, object))
			return true;
	return false;
}

int srv6_ctl_parse(char *buf, size_t len, bool local, struct srv6_ctl_req *req,
		   char *err, size_t errlen)
{
	char *words[SRV6_CTL_MAX_WORDS + 1], qb[64];
	const struct srv6_ctl_cmd *c;
	int n = 0, i = 0;
	size_t k;

	memset(req, 0, sizeof(*req));
	if (len > SRV6_CTL_REQ_MAX || (len == SRV6_CTL_REQ_MAX && buf[len - 1] != '\n')) {
		snprintf(err, errlen, "request too long (at most %d bytes)", SRV6_CTL_REQ_MAX);
		return -E2BIG;
	}
	if (len && buf[len - 1] == '\n')
		len--;
	for (k = 0; k < len; k++) {
		unsigned char ch = (unsigned char)buf[k];

		if (ch != '\t' && (ch < 0x20 || ch >= 0x7f)) {
			snprintf(err, errlen, "bad byte 0x%02x at offset %zu of the request", ch, k);
			return -EINVAL;
		}
	}
	buf[len] = '\0';
	for (char *p = buf; *p;) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			break;
		if (n == SRV6_CTL_MAX_WORDS) {
			snprintf(err, errlen, "too many words (at most %d)", SRV6_CTL_MAX_WORDS);
			return -E2BIG;
		}
		words[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	for (; i < n && words[i][0] == '-'; i++) {
		if (!strcmp(words[i], "-j") || !strcmp(words[i], "--json")) {
			req->json = true;
		} else if (!strcmp(words[i], "-s") || !strcmp(words[i], "--stats")) {
			req->stats = true;
		} else {
			snprintf(err, errlen, "unknown option \"%s\"", cut(words[i], qb, sizeof(qb)));
			return -EINVAL;
		}
	}
	if (i == n) {
		snprintf(err, errlen, "missing object");
		return -EINVAL;
	}
	if (!object_known(words[i])) {
		snprintf(err, errlen, "unknown object \"%s\"", cut(words[i], qb, sizeof(qb)));
		return -EINVAL;
	}
	/* OBJECT alone, OBJECT COMMAND, or OBJECT -opt meaning OBJECT show */
	c = find(words[i], NULL);
	if (!c && i + 1 < n && words[i + 1][0] != '-') {
		c = find(words[i], words[i + 1]);
		if (!c) {
			snprintf(err, errlen, "unknown command \"%s\" for %s",
				 cut(words[i + 1], qb, sizeof(qb)), words[i]);
			return -EINVAL;
		}
		i += 2;
	} else if (!c) {
		c = find(words[i], "show");
		if (!c) {
			snprintf(err, errlen, "missing command after %s", words[i]);
			return -EINVAL;
		}
		i++;
	} else {
		i++;
	}
	if ((c->flags & SRV6_CTL_F_LOCAL) && !local) {
		snprintf(err, errlen, "%s runs in srv6ctl, not in srv6d", c->object);
		return -EINVAL;
	}
	if (req->json && !(c->flags & SRV6_CTL_F_JSON)) {
		snprintf(err, errlen, "%s%s%s has no JSON output", c->object,
			 c->command ? " " : "", c->command ? c->command : "");
		return -EINVAL;
	}
	if (req->stats && !(c->flags & SRV6_CTL_F_STATS)) {
		snprintf(err, errlen, "%s%s%s takes no -s", c->object,
			 c->command ? " " : "", c->command ? c->command : "");
		return -EINVAL;
	}
	if ((unsigned int)(n - i) < c->min_args || (unsigned int)(n - i) > c->max_args) {
		snprintf(err, errlen, "%s%s%s: %s arguments (usage: %s%s%s%s%s)", c->object,
			 c->command ? " " : "", c->command ? c->command : "",
			 (unsigned int)(n - i) < c->min_args ? "missing" : "too many",
			 c->object, c->command ? " " : "", c->command ? c->command : "",
			 c->args[0] ? " " : "", c->args);
		return -EINVAL;
	}
	req->cmd = c;
	req->argc = n - i;
	for (int a = 0; a < req->argc; a++)
		req->argv[a] = words[i + a];
	return 0;
}

