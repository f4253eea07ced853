/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf.h - srv6d.conf: the daemon's configuration file.
 *
 * Line oriented; '#' starts a comment anywhere on a line; words are
 * separated by blanks (space, tab, CR, VT, FF: CRLF files parse).  Keywords match
 * exactly (no abbreviations).  SID and policy lines take iproute2's words so
 * `ip -6 route` lines paste:
 *
 *   queue N | queue N-M          NFQUEUE numbers, one worker each (0..65535,
 *                                at most SRV6_CONF_MAX_QUEUES); default 0
 *   queue-maxlen N               1..1048576, default 4096
 *   fail-open yes|no             default no
 *   queue-cpu-fanout yes|no      several queues: pick the queue by the CPU
 *                                that received the packet instead of the
 *                                address hash (default no)
 *   steer auto|none              default auto
 *   encap-source ADDR            IPv6 global unicast address (not ::, ::1,
 *                                multicast or link-local); default: ip sr
 *                                tunsrc, else the kernel's source address
 *                                selection (include/srv6d/saddr.h)
 *   egress auto|verdict|inject   how results re-enter the kernel (default
 *                                auto): docs/ARCHITECTURE.md
 *   gso on|off                   queue GSO super-packets whole (F_GSO) and
 *                                inject them with a virtio-net header
 *                                (default off; needs egress inject):
 *                                docs/DATAPATH.md "GSO"
 *   cpu-affinity LIST|none       LIST = N[,N|N-M...]: one CPU per worker in
 *                                queue order; exactly as many as queues
 *   log-level LEVEL              emerg alert crit err warning notice info
 *                                debug (syslog's names); default info
 *   control-socket PATH|none     srv6ctl's socket (docs/CONTROL.md), an
 *                                absolute path < 108 bytes; default
 *                                /run/srv6d/srv6d.sock.  Per instance: a
 *                                second srv6d needs its own (a live socket
 *                                is never taken over)
 *
 * What srv6d owns in the network namespace, per instance (a second srv6d in
 * the same namespace needs other values for all four; srv6d refuses to
 * start while another one holds an overlapping range):
 *   steer-chain NAME             the raw-table chain of `steer auto`; 1..28 of
 *                                [A-Za-z0-9_-], not starting with '-';
 *                                default SRV6D
 *   mark-base 0xHHHH0000         next-hop context marks base|1..base|0xffff:
 *                                hex, low 16 bits zero, not 0; default
 *                                0x6d000000
 *   table-base N                 adjacency tables N+1..N+65535; 255 ..
 *                                4294901760 (never 0 or 252..255); default
 *                                4200000000
 *   rule-pref N                  ip rule preferences N (contexts) and N+1
 *                                (blackhole); 1..32764 or 32768..65534;
 *                                default 40000 (behind main and default)
 * A SID's `table`/`vrftable` may not be 253..255 (default, main, local) nor
 * fall in srv6d's own table range.
 *   sid PREFIX [encap seg6local] action NAME [ATTR...]
 *   route PREFIX encap seg6 mode MODE segs A[,B...]
 *
 *   queue N policy POLICY        a verdict-policy queue (docs/REINJECTION.md):
 *                                no SRv6 behavior runs there; every packet
 *                                gets POLICY's verdict.  POLICY is one of
 *                                accept | accept mark M | drop |
 *                                repeat | repeat mark M | requeue Q | hold |
 *                                delay DURATION (N ms or N s, 1 ms..3600 s).
 *                                M is 0x hex or decimal, not 0; Q another
 *                                queue, no cycle of requeue queues (each
 *                                would loop its packets forever).  N and
 *                                Q are outside the SRv6 queues, each N
 *                                once, at most SRV6_CONF_MAX_PQUEUES
 *                                lines.  Changes take
 *                                effect at the next start.
 *
 * Each global keyword may appear once (a `queue N policy` line is not the
 * global `queue`).  After a sid/route PREFIX the words
 * may come in any order, each at most once (iproute2's duparg rule); the
 * leading "encap seg6local" of a pasted seg6local route is optional on sid
 * lines, "encap seg6" is required on route lines.  SID attributes: nh6 A, nh4 A,
 * oif IFNAME, table N, vrftable N, srh segs A[,B...], flavors F[,F...]
 * (psp, usp, usd, next-csid), lblen N / nflen N (only with next-csid;
 * default 32/16).  `dev IFNAME` on sid and route lines has the kernel's
 * meaning for the outer source of an encapsulation (include/srv6d/saddr.h);
 * `count` is accepted and ignored (counters are always on), as are ip's
 * route-level `metric N`, `proto P` and `pref P` (with a warning:
 * srv6_conf.warning); a route-level `table N` is refused.  `table` and
 * `vrftable` take a number (decimal or 0x hex) or a name of rt_tables
 * (srv6_rt_table_lookup()); flavors are case-insensitive.  A PREFIX is ADDR (a host prefix) or ADDR/LEN with no
 * host bits set; a sid PREFIX is IPv6, a route PREFIX IPv6 or IPv4.
 * A sid or route PREFIX inside multicast space (ff00::/8, 224.0.0.0/4) is
 * refused, as are the SIDs ::/128 and ::1/128 and segments (route segs,
 * srh segs) that are ::, ::1 or multicast: "segment "ff02::2" is multicast".
 * Two sid lines (or two route lines) for the same prefix and length are an
 * error, however the address is spelled.  Numbers are decimal (no sign,
 * leading zero or hex).  SRH HMAC: `hmac key ...`, `hmac MODE [dev IF]`
 * lines, `hmac KEYID` on route lines and after `srh segs LIST` on End.B6*
 * lines (include/srv6d/hmac_conf.h).
 *
 * Errors: the first bad line stops the parse with exactly one line of text,
 * "FILE:LINE: message naming the bad token", e.g.
 *   srv6d.conf:12: unknown action "End.DX5"
 *   srv6d.conf:3: End.X requires nh6
 * Nothing here exits, logs or touches global state: a daemon reloading a bad
 * file keeps its running configuration.  Every function is reentrant and may
 * be called from any thread on objects it owns.
 */
#ifndef SRV6D_CONF_H
#define SRV6D_CONF_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf_defs.h"
#include "headend.h"
#include "seg6.h"

struct srv6_hmac_set;

#ifndef SYSCONFDIR
#define SYSCONFDIR                  "/etc"     /* the Makefile passes its SYSCONFDIR */
#endif
#define SRV6_CONF_DEFAULT_PATH      SYSCONFDIR "/srv6d/srv6d.conf"
#define SRV6_CONF_MAX_QUEUES        64
#define SRV6_CONF_QUEUE_MAXLEN_DEF  4096
#define SRV6_CONF_QUEUE_MAXLEN_MAX  1048576
#define SRV6_CONF_MAX_FILE          (16u << 20)  /* bytes; larger: -EFBIG */
#define SRV6_CONF_ERRLEN            256          /* enough for any message */
/* the worker priority `ingress-napi` implies when no worker-sched line is
 * given: the overload setting is the two together (docs/PERFORMANCE.md) */
#define SRV6_CONF_NAPI_FIFO_PRIO    10
/* srv6_sid_format/srv6_route_format never need more than this (incl. NUL). */
#define SRV6_CONF_LINE_MAX          (384 + SRV6_MAX_SEGS * (INET6_ADDRSTRLEN + 1))

/* Where an entry came from (`srv6ctl sid show` / `route show` say it). */
enum srv6_origin {
	SRV6_ORIGIN_CONF = 0,          /* a conf line (or srv6ctl sid/route add) */
	SRV6_ORIGIN_FPM,               /* zebra's FPM stream (fpm.h) */
	SRV6_ORIGIN_KERNEL,            /* the kernel's seg6local routes (kmirror.h) */
};

/** srv6_origin_name - "conf", "fpm", "kernel".  Pure. */
const char *srv6_origin_name(enum srv6_origin o);

/**
 * srv6_origin_where - where an entry came from, for a log line: "PATH:LINE"
 * for a conf line ("line LINE" when @path is NULL), "srv6ctl" for an entry of
 * origin conf without a line (a srv6ctl sid/route add), else its origin's name ("fpm", "kernel").  @origin
 * is an enum srv6_origin as the entries store it.  Writes at most @len bytes
 * (truncated, NUL-terminated) and returns @buf.  Pure.
 */
char *srv6_origin_where(const char *path, unsigned int origin, unsigned int line, char *buf,
			size_t len);

/** struct srv6_conf_sid - one "sid" line. */
struct srv6_conf_sid {
	struct in6_addr prefix;        /* host bits zero */
	uint8_t plen;
	uint8_t origin;                /* enum srv6_origin */
	struct srv6_sid_cfg cfg;       /* datapath-filled fields zero */
	unsigned int line;             /* 1-based line number in the file */
};

/** struct srv6_conf_route - one "route" line (a headend policy). */
struct srv6_conf_route {
	int family;                    /* AF_INET6 or AF_INET */
	union {
		struct in6_addr v6;
		struct in_addr v4;
	} prefix;                      /* host bits zero */
	uint8_t plen;
	uint8_t origin;                /* enum srv6_origin */
	bool has_metric;               /* `metric N` given on the line */
	uint32_t metric;               /* its N (see srv6_route_metric()) */
	struct srv6_policy pol;        /* datapath-filled fields zero */
	unsigned int line;
};

/**
 * srv6_route_metric - the metric of @r's kernel route: its `metric N`, else
 * what `ip route add` gives a route without one (IPv6 1024, IPv4 0).  Pure.
 */
static inline uint32_t srv6_route_metric(const struct srv6_conf_route *r)
{
	return r->has_metric ? r->metric : r->family == AF_INET6 ? 1024 : 0;
}

/**
 * srv6_pqueue_parse_words - the words after "queue N" ("policy" ...) into
 * *@pq (queue set from @queue).  0 or -EINVAL with one message in @err.  Pure.
 */
int srv6_pqueue_parse_words(unsigned int queue, int argc, char **argv,
			    struct srv6_conf_pqueue *pq, char *err, size_t errlen);

/* How results go back to the kernel (include/srv6d/inject.h). */
enum srv6_egress_mode {
	SRV6_EGRESS_AUTO,              /* probe: verdicts where the kernel takes
					  them, injection everywhere else */
	SRV6_EGRESS_VERDICT,           /* IPv6 results in verdicts, no probe;
					  IPv4 results and frames injected */
	SRV6_EGRESS_INJECT,            /* every result injected */
};

enum srv6_steer_mode {
	SRV6_STEER_AUTO,               /* srv6d installs its netfilter rules */
	SRV6_STEER_NONE,               /* the operator does */
};

/*
 * `fpm listen ADDR [PORT] [grace SECONDS] [remote]`: srv6d takes zebra's
 * FPM stream (dplane_fpm_nl) on a TCP listener (docs/CONTROL.md).  ADDR
 * must be a loopback address unless `remote` is given.
 */
#define SRV6_FPM_PORT_DEF  2620
#define SRV6_FPM_GRACE_DEF 30         /* s an FPM entry outlives its session */
#define SRV6_FPM_GRACE_MAX 3600

struct srv6_conf_fpm {
	bool on;
	bool remote;
	int family;                    /* AF_INET6 or AF_INET */
	uint8_t addr[16];
	uint16_t port;
	unsigned int grace;            /* s */
	unsigned int line;
};

/*
 * `sids-from kernel [table N] [proto P]`: srv6d mirrors the kernel's
 * seg6local routes of table N (default main) and protocol P (default any)
 * into its SIDs (kmirror.h); `routes-from kernel` (same table and proto)
 * its seg6 encap routes into its policies.
 */
struct srv6_conf_kmirror {
	bool on;                       /* sids || routes */
	bool sids, routes;
	uint32_t table;
	int proto;                     /* -1: any */
	unsigned int line;
};

/**
 * struct srv6_conf - a whole parsed file.  Queues are
 * queue_first..queue_last inclusive (srv6_conf_nqueues() of them).  When
 * ncpus > 0, worker i (queue queue_first + i) runs on cpus[i], and
 * ncpus == srv6_conf_nqueues().  sids/routes are in file order (then the learned
 * entries, fpm_merge.c), with no two entries of the same family/prefix/plen.
 */
struct srv6_conf {
	unsigned int queue_first, queue_last, queue_maxlen;
	bool fail_open;
	bool cpu_fanout;               /* queue-cpu-fanout: --queue-cpu-fanout */
	enum srv6_steer_mode steer;
	enum srv6_egress_mode egress;
	bool gso;                      /* gso on: NFQA_CFG_F_GSO (needs egress inject) */
	bool has_encap_src;
	struct in6_addr encap_src;
	char steer_chain[SRV6_STEER_CHAIN_MAX + 1];  /* default SRV6_STEER_CHAIN */
	uint32_t mark_base;            /* default SRV6_NHCTX_MARK_BASE */
	uint32_t mark_mask;            /* default SRV6_NHCTX_MARK_ALL */
	uint32_t table_base;           /* default SRV6_NHCTX_TABLE_BASE */
	uint32_t rule_pref;            /* default SRV6_NHCTX_RULE_PRIO */
	int ncpus;                     /* 0: no affinity */
	int cpus[SRV6_CONF_MAX_QUEUES];
	bool worker_fifo;              /* worker-sched fifo PRIO; default other,
	                                  fifo SRV6_CONF_NAPI_FIFO_PRIO with
	                                  ingress-napi and no worker-sched line */
	int worker_prio;               /* 1..99 when worker_fifo, else 0 */
	bool worker_sched_implied;     /* worker_fifo set by ingress-napi */
	int log_level;                 /* LOG_* of <syslog.h>; default LOG_INFO */
	char ctl_path[108];            /* control socket; "" = none */
	struct srv6_conf_fpm fpm;      /* `fpm listen ...`; start-only */
	struct srv6_conf_kmirror kmirror;  /* `sids-from kernel ...`; start-only */
	char napi_devs[8][16];         /* `ingress-napi threaded dev IF...`; start-only */
	unsigned int nnapi;
	struct srv6_conf_sid *sids;
	size_t nsids;
	struct srv6_conf_route *routes;
	size_t nroutes;
	struct srv6_conf_pqueue pqueues[SRV6_CONF_MAX_PQUEUES];  /* file order */
	unsigned int npqueues;
	struct srv6_hmac_set *hmac;    /* `hmac` lines (hmac_conf.h); NULL: none */
	unsigned int nwarnings;        /* lines with an ignored word */
	char warning[SRV6_CONF_ERRLEN];  /* the first: "FILE:LINE: message" */
};

/** srv6_conf_nqueues - number of queues (= workers) @c binds.  Pure. */
static inline unsigned int srv6_conf_nqueues(const struct srv6_conf *c)
{
	return c->queue_last - c->queue_first + 1;
}

/**
 * srv6_conf_init - set @c to the defaults (queue 0, queue-maxlen 4096,
 * fail-open no, steer auto, egress auto, no encap-source, no affinity,
 * log-level info, no SIDs or routes, chain SRV6D and the SRV6_NHCTX_* bases).
 * Allocates nothing; overwrites @c without freeing it.
 */
void srv6_conf_init(struct srv6_conf *c);

/**
 * srv6_conf_parse_file - read and parse the file @path into @c.
 *
 * @c is (re)initialised by the call itself: previous contents are
 * overwritten, not freed.  On success returns 0 and the caller owns @c
 * (release with srv6_conf_free()).  On failure returns -errno (-EINVAL for
 * a syntax/semantic error, -ENOMEM, -EFBIG, or open/read errors), @c holds
 * the defaults and nothing to free, and @err (if @errlen > 0) receives one
 * NUL-terminated line without newline: "FILE:LINE: message" for a bad line,
 * "FILE: strerror" when the file cannot be read.  FILE is @path as given
 * (control characters escaped).  The message is truncated to @errlen - 1 bytes if needed;
 * SRV6_CONF_ERRLEN is always enough.
 */
int srv6_conf_parse_file(struct srv6_conf *c, const char *path, char *err, size_t errlen);

/**
 * srv6_conf_parse_string - as srv6_conf_parse_file() for the NUL-terminated
 * @text; @name is the FILE used in messages.
 */
int srv6_conf_parse_string(struct srv6_conf *c, const char *name, const char *text,
			   char *err, size_t errlen);

/** srv6_conf_free - release what @c owns and reset it to the defaults.  Idempotent. */
void srv6_conf_free(struct srv6_conf *c);

/**
 * srv6_sid_parse_words - parse the words that follow "sid" on a conf line
 * (PREFIX [encap seg6local] action NAME [ATTR...]), as srv6ctl receives them.
 * @argv is not modified.  Fills *@prefix (host bits zero), *@plen and *@cfg
 * (zeroed first; only the configured fields are set) and validates the SID
 * completely (descriptor masks, ranges, srv6_sid_cfg_check()).
 * Returns 0 or -EINVAL with one message (no "FILE:LINE: " prefix) in @err.
 * On success @err holds "" or one warning (a route-level word ignored).
 */
int srv6_sid_parse_words(int argc, char **argv, struct in6_addr *prefix, uint8_t *plen,
			 struct srv6_sid_cfg *cfg, char *err, size_t errlen);

/**
 * srv6_route_parse_words - parse the words that follow "route" on a conf line
 * (PREFIX encap seg6 mode MODE segs LIST) into *@r (zeroed first; r->line is
 * left 0).  Returns 0 or -EINVAL with one message in @err; on success @err
 * holds "" or one warning, as srv6_sid_parse_words().
 */
int srv6_route_parse_words(int argc, char **argv, struct srv6_conf_route *r,
			   char *err, size_t errlen);

/**
 * srv6_sid_format - print a SID as its canonical conf line ("sid ..."),
 * without newline.  Attributes come in a fixed order; next-csid always
 * prints lblen and nflen.  Parsing the words after "sid" with
 * srv6_sid_parse_words() gives back a cfg srv6_sid_cfg_equal() to @cfg.
 * Returns the length (as snprintf), -ENOSPC if @len is too small (@buf is
 * then truncated and NUL-terminated), -EINVAL if @cfg's action is unknown.
 */
int srv6_sid_format(char *buf, size_t len, const struct in6_addr *prefix, uint8_t plen,
		    const struct srv6_sid_cfg *cfg);

/** srv6_route_format - as srv6_sid_format() for a "route" line. */
int srv6_route_format(char *buf, size_t len, const struct srv6_conf_route *r);

/**
 * srv6_sid_cfg_equal - true if @a and @b configure the same SID: same
 * action, same attribute set, and equal values for each attribute present
 * (the kernel's seg6_action_params cmp).  Datapath-filled fields (oif
 * ifindex, encap_src, flowlabel_mode, mark) are not compared.  A reload uses
 * it to tell changed SIDs from unchanged ones.  Pure.
 */
bool srv6_sid_cfg_equal(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b);

/**
 * srv6_conf_check_sid_tables - the cross-line check of a SID added outside
 * the file (srv6ctl sid add): its table/vrftable is not reserved (253..255)
 * nor in @c's own table range.  0 or -EINVAL with one message.  Pure.
 */
int srv6_conf_check_sid_tables(const struct srv6_conf *c, const struct srv6_sid_cfg *cfg,
			       char *err, size_t errlen);

/**
 * srv6_import_line - one line of `ip -6|-4 route show` output as a canonical
 * srv6d.conf line in @out (without newline): a seg6local route as "sid ...",
 * a seg6 encap route as "route ...".  Returns 1 with the line, 0 for a line
 * that is no SRv6 route (nothing written), -EINVAL with the reason in @warn
 * (a route srv6d cannot take: "End.X requires nh6"...), -ENOSPC when @out is
 * too small.  On 1, @warn holds "" or what was dropped (a route-level table,
 * via...).  @family (AF_INET for `ip -4` output) only decides what "default"
 * means on a seg6 route (else ::/0).  Pure.
 */
int srv6_import_line(const char *line, int family, char *out, size_t outlen, char *warn,
		     size_t warnlen);

/**
 * srv6_rt_tables_find - the id of table @name in the text of an rt_tables
 * file (lines "ID NAME", ID decimal or 0x hex, '#' comments).  0 or
 * -ENOENT.  Pure.
 */
int srv6_rt_tables_find(const char *text, const char *name, uint32_t *id);

/**
 * srv6_rt_table_lookup - table @name as ip(8) resolves it: default, main,
 * local, then rt_tables and rt_tables.d/ *.conf of /etc/iproute2,
 * /usr/share/iproute2 and /usr/lib/iproute2.  0 or -ENOENT.  Reads files.
 */
int srv6_rt_table_lookup(const char *name, uint32_t *id);

/** srv6_policy_equal - same for policies (mode and segment list).  Pure. */
bool srv6_policy_equal(const struct srv6_policy *a, const struct srv6_policy *b);

#endif
