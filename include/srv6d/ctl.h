/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctl.h - the control protocol of srv6d and srv6ctl (docs/CONTROL.md): the
 * command table both sides share and the request parser.  Pure (no I/O, no
 * globals).  The JSON string encoder is in sbuf.h; the kernel's NFQUEUE
 * counters are in nfqstat.h.
 *
 * A request is one line of at most SRV6_CTL_REQ_MAX bytes (the '\n'
 * included): printable ASCII words separated by blanks,
 *     [-j|--json] [-s|--stats] OBJECT [COMMAND] [ARG...]
 * The reply is "ok\n" followed by the body, or one line "error MESSAGE\n";
 * the server then closes the connection (monitor: events until the client
 * closes).
 */
#ifndef SRV6D_CTL_H
#define SRV6D_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf_defs.h"  /* SRV6_CTL_SOCK_DEFAULT */

#define SRV6_CTL_REQ_MAX      4096   /* bytes of a request line, '\n' included */
#define SRV6_CTL_MAX_WORDS    64
#define SRV6_CTL_ERRLEN       320

enum srv6_ctl_op {
	SRV6_CTL_SID_SHOW,
	SRV6_CTL_SID_ADD,
	SRV6_CTL_SID_DEL,
	SRV6_CTL_ROUTE_SHOW,
	SRV6_CTL_ROUTE_ADD,
	SRV6_CTL_ROUTE_DEL,
	SRV6_CTL_QUEUE_SHOW,
	SRV6_CTL_QUEUE_RELEASE,
	SRV6_CTL_STEER_SHOW,
	SRV6_CTL_STATUS,
	SRV6_CTL_STATS_SHOW,
	SRV6_CTL_STATS_RESET,
	SRV6_CTL_RELOAD,
	SRV6_CTL_MONITOR,
	SRV6_CTL_IMPORT,             /* srv6ctl only: never sent */
	SRV6_CTL_OP_MAX,
};

/* What a row accepts. */
#define SRV6_CTL_F_JSON   0x1u   /* -j */
#define SRV6_CTL_F_STATS  0x2u   /* -s */
#define SRV6_CTL_F_LOCAL  0x4u   /* run by srv6ctl itself; the daemon refuses it */

/**
 * struct srv6_ctl_cmd - one row of the command table.  @command NULL: the
 * object alone is the command (status, reload...).  An OBJECT whose next
 * word is missing or an option ("-...") means OBJECT show.
 */
struct srv6_ctl_cmd {
	enum srv6_ctl_op op;
	const char *object, *command;
	const char *args;            /* usage of the arguments, "" for none */
	const char *help;
	unsigned int min_args, max_args;
	unsigned int flags;
};

/** srv6_ctl_cmds - the table, @n rows (in usage order).  Pure. */
const struct srv6_ctl_cmd *srv6_ctl_cmds(size_t *n);

/** struct srv6_ctl_req - a parsed request; argv points into the parsed line. */
struct srv6_ctl_req {
	const struct srv6_ctl_cmd *cmd;
	bool json, stats;
	int argc;                    /* the ARGs after OBJECT [COMMAND] */
	char *argv[SRV6_CTL_MAX_WORDS];
};

/**
 * srv6_ctl_parse - parse the request in @buf (@len bytes, modified in place;
 * at most one trailing '\n', no NUL, tabs and printable ASCII only) into
 * @req.  Returns 0, or -EINVAL / -E2BIG with one line in @err naming the bad
 * word.  Local rows (import) are refused unless @local.  Pure, reentrant.
 */
int srv6_ctl_parse(char *buf, size_t len, bool local, struct srv6_ctl_req *req,
		   char *err, size_t errlen);

/** srv6_ctl_usage - the usage text, generated from the table, into @out. */
void srv6_ctl_usage(FILE *out, const char *prog);


#endif
