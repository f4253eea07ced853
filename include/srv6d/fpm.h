/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fpm.h - zebra's FPM stream (FRR's dplane_fpm_nl: `fpm address A port P`)
 * as a source of SIDs and headend policies (docs/CONTROL.md "zebra's FPM").
 *
 * srv6d listens; zebra connects and sends its RIB as frames (version 1,
 * type 1 netlink, a big-endian 16-bit length that includes the 4-byte
 * header) of rtnetlink messages.  Each route goes through the one decoder
 * (rtmsg.h) and the conf grammar, into a store keyed by (family, prefix,
 * table): seg6local routes become SIDs, seg6 encap routes headend
 * policies.  Routes without an SRv6 encapsulation, SRv6 routes in a table
 * other than main (a VRF's: srv6d's SIDs and policies are global) and
 * routes the grammar refuses are counted, each kind named in the log once
 * per session, never stored; MPLS routes are "other".  Nexthop objects
 * (RTM_NEWNEXTHOP) are kept by id; a route naming one takes its encap,
 * gateway and device, and follows the object when it changes or arrives
 * late.  One session at a time: a connection while one is up is refused
 * (TCP keepalives end a dead one).
 *
 * When the session drops, the entries stay for the grace time; what zebra
 * sends again on its next session is kept, what it does not is removed when
 * the time is up.  The daemon merges the store into its conf (conf lines
 * win) whenever srv6_fpm_process() or srv6_fpm_tick() report a change.
 *
 * Control thread only; no locks.  srv6_fpm_feed() is the pure part (no
 * I/O): the unit test and the fuzzer drive it.
 */
#ifndef SRV6D_FPM_H
#define SRV6D_FPM_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srv6d/conf.h"

#define SRV6_FPM_HDR        4
#define SRV6_FPM_FRAME_MAX  65535        /* the header's 16-bit length */
#define SRV6_FPM_MAX_ENTRIES 262144      /* SRv6 entries (refused past it) */
#define SRV6_FPM_MAX_NEXTHOPS 262144
#define SRV6_FPM_NFDS       2            /* listener + session */
#define SRV6_FPM_MSG_MAX    4096         /* a route or nexthop message kept */
#define SRV6_FPM_MSG_BYTES  (64u << 20)  /* all the messages kept */
#define SRV6_FPM_MAX_PARKED 65536        /* routes waiting for their nexthop object */

struct srv6_fpm_stats {
	uint64_t sessions;        /* accepted */
	uint64_t frames;
	uint64_t adds, dels;      /* RTM_NEWROUTE / RTM_DELROUTE */
	uint64_t nexthops;        /* RTM_NEWNEXTHOP / RTM_DELNEXTHOP */
	uint64_t not_srv6;        /* routes without seg6 / seg6local: not srv6d's */
	uint64_t refused;         /* SRv6 routes srv6d cannot take (logged) */
	uint64_t refused_table;   /* SRv6 routes in a table other than main */
	uint64_t other;           /* other message types, ignored */
	uint64_t bad;             /* malformed frames or messages: session closed */
	uint64_t expired;         /* entries removed after the grace time */
	uint64_t refused_conns;   /* connections refused: a session was up */
};

/* One stored entry: the conf's own structures, as the grammar parsed them. */
struct srv6_fpm_entry {
	bool is_sid;
	bool stale;               /* not sent again since the session dropped */
	bool shadow_logged;       /* "a conf line has this prefix": said once */
	bool rejected;            /* the daemon could not apply it (logged);
	                           * skipped until zebra sends it changed */
	bool pick;                /* the daemon's merge takes it (fpm_merge.c) */
	struct srv6_conf_sid sid;        /* is_sid */
	struct srv6_conf_route route;    /* !is_sid */
};

struct srv6_fpm;
struct nlmsghdr;

/**
 * srv6_fpm_new - an empty store that keeps entries @grace_s seconds after
 * a session drops, without a listener (srv6_fpm_listen() adds it).
 * NULL on ENOMEM.
 */
struct srv6_fpm *srv6_fpm_new(unsigned int grace_s);

#define SRV6_FPM_TAKE_SIDS   1u          /* seg6local routes */
#define SRV6_FPM_TAKE_ROUTES 2u          /* seg6 encap routes (policies) */

/**
 * srv6_fpm_configure - the store holds entries of @origin, takes the SRv6
 * routes of table @table only (others are refused and counted), and of
 * them the kinds in @takes (SRV6_FPM_TAKE_*; the others count as not
 * SRv6).  A policy of origin SRV6_ORIGIN_KERNEL gets the metric one below
 * the kernel route's (srv6d's route goes before it, the kernel's stays as
 * the fallback); one at metric 0 (IPv6: 1, as srv6d's would be 0, which
 * the kernel makes 1024) is refused.  The defaults: SRV6_ORIGIN_FPM,
 * RT_TABLE_MAIN, both kinds.  Call before feeding.
 */
void srv6_fpm_configure(struct srv6_fpm *f, enum srv6_origin origin, uint32_t table,
			unsigned int takes);

/**
 * srv6_fpm_feed_msg - one rtnetlink message (a route or a nexthop object;
 * other types are counted as "other"), whose nlmsg_len bytes the caller
 * has checked are there, 4-byte aligned.  1 changed, 0 not, -EPROTO for a
 * malformed message.  The kernel mirror (kmirror.h) feeds its messages so.
 */
int srv6_fpm_feed_msg(struct srv6_fpm *f, const struct nlmsghdr *nlh);

/**
 * srv6_fpm_forget - the route of @nlh (a message the caller filtered out:
 * another protocol) no longer gives an entry: its record goes (in the
 * kernel store, only when the metric matches).  1 when an entry went.
 */
int srv6_fpm_forget(struct srv6_fpm *f, const struct nlmsghdr *nlh);

/** srv6_fpm_find - the entry with this prefix (in the table taken), or NULL. */
const struct srv6_fpm_entry *srv6_fpm_find(const struct srv6_fpm *f, int family, const void *dst,
					    uint8_t plen);

/**
 * srv6_fpm_resync_begin / _end / _abort - around a full dump: begin marks
 * every entry stale, the dump's messages refresh theirs, end removes the
 * rest (1 when entries went), abort (a failed dump) keeps them all.
 */
void srv6_fpm_resync_begin(struct srv6_fpm *f);
int srv6_fpm_resync_end(struct srv6_fpm *f);
void srv6_fpm_resync_abort(struct srv6_fpm *f);

/**
 * srv6_fpm_listen - listen on @c's address and port (non-blocking, one
 * session at a time: a connection while one is up is refused; keepalives
 * end a dead one).  0 or -errno with one line in @err.
 */
int srv6_fpm_listen(struct srv6_fpm *f, const struct srv6_conf_fpm *c, char *err, size_t errlen);

/** srv6_fpm_free - close the sockets and free the store.  NULL is fine. */
void srv6_fpm_free(struct srv6_fpm *f);

/**
 * srv6_fpm_feed - take the complete frames at the start of @buf (@len
 * bytes, 4-byte aligned): *@used is set to the bytes consumed (a partial
 * frame at the end is left).  Returns 1 when the store changed, 0 when not,
 * -EPROTO for a malformed frame or message (counted; the stream cannot be
 * resynchronised: the caller closes the session).  No I/O but the log
 * lines naming refused routes and if_indextoname() for device names.
 */
int srv6_fpm_feed(struct srv6_fpm *f, const void *buf, size_t len, size_t *used);

/**
 * srv6_fpm_session_lost - the session ended: every entry turns stale with
 * the grace time starting at @now (CLOCK_MONOTONIC s).
 */
void srv6_fpm_session_lost(struct srv6_fpm *f, int64_t now);

/**
 * srv6_fpm_pollfds - the descriptors to poll into @pfd (room for
 * SRV6_FPM_NFDS); returns how many.
 */
int srv6_fpm_pollfds(const struct srv6_fpm *f, struct pollfd *pfd);

/**
 * srv6_fpm_process - accept and read what @pfd (from srv6_fpm_pollfds())
 * reports, at most 4 MiB per call (poll reports the rest).  Returns 1 when
 * the store changed, else 0.
 */
int srv6_fpm_process(struct srv6_fpm *f, const struct pollfd *pfd, int n, int64_t now);

/**
 * srv6_fpm_tick - remove the stale entries whose grace time ended by @now
 * (CLOCK_MONOTONIC s).  1 when entries went, else 0.
 */
int srv6_fpm_tick(struct srv6_fpm *f, int64_t now);

/** srv6_fpm_count - the stored entries. */
size_t srv6_fpm_count(const struct srv6_fpm *f);

/** srv6_fpm_parked - routes kept for a nexthop object not sent yet: decoded
 * when it comes. */
size_t srv6_fpm_parked(const struct srv6_fpm *f);

/** srv6_fpm_entry - entry @i (< srv6_fpm_count()), in key order; the daemon's
 * merge writes its shadow_logged, rejected and pick. */
struct srv6_fpm_entry *srv6_fpm_entry(struct srv6_fpm *f, size_t i);

/** srv6_fpm_stats - the counters. */
const struct srv6_fpm_stats *srv6_fpm_stats(const struct srv6_fpm *f);

/**
 * srv6_fpm_state - one line on the session for `srv6ctl status` at @now
 * (CLOCK_MONOTONIC s): "listening 127.0.0.1:2620, session from
 * 127.0.0.1:41234 since ...", or the grace time left.
 */
void srv6_fpm_state(const struct srv6_fpm *f, int64_t now, char *buf, size_t len);

#endif /* SRV6D_FPM_H */
