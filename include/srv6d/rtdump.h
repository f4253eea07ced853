/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtdump.h - route dumps and deletes over plain rtnetlink (libmnl).
 *
 * libnl-route-3's route cache refuses a whole dump when one route carries an
 * encapsulation it does not parse (a kernel seg6local route: the cache fill
 * fails with NLE_... and srv6d saw "Input/output error"), so the routes srv6d
 * looks for among the host's are read here from the raw messages: only the
 * header fields and the few attributes a caller filters on are decoded, and a
 * route is deleted by sending its own dumped message back as RTM_DELROUTE
 * (what `ip route flush` does), so every attribute that tells it apart from
 * a similar route is matched.
 *
 * The tree's one route dump: the daemon's sweeps and checks and srv6ctl's
 * import read through it, and its one dump loop (srv6_nl_dump) serves the
 * other dumps too (nhctx's rules, the kernel mirror's routes and nexthop
 * objects; libnl caches aside).  Control thread only (srv6_rt_request:
 * any thread); each call opens and closes its own netlink socket.
 */
#ifndef SRV6D_RTDUMP_H
#define SRV6D_RTDUMP_H

#include <stddef.h>
#include <stdint.h>

/* One dumped route: what callers filter on. */
struct srv6_rt {
	uint8_t family;
	uint8_t dst_len;
	uint8_t protocol;
	uint8_t type;          /* RTN_* */
	uint32_t table;        /* RTA_TABLE, else rtm_table */
	uint32_t priority;     /* RTA_PRIORITY, 0 when absent */
	uint32_t oif;          /* RTA_OIF, 0 when absent (multipath, blackhole) */
	uint8_t dst[16];       /* RTA_DST (4 or 16 bytes used), zero when absent */
};

/* Called for every route of the dump: 1 to pick it (srv6_rt_sweep deletes
 * it), 0 to leave it. */
typedef int (*srv6_rt_fn)(const struct srv6_rt *rt, void *arg);

/**
 * srv6_rt_dump - call @fn for every route of @family (AF_INET6 or AF_INET),
 * in every table; @fn's result is ignored.  Returns 0 or -errno (the dump
 * could not be read).  Caller: nhctx.c (verify).
 */
int srv6_rt_dump(int family, srv6_rt_fn fn, void *arg);

struct nlmsghdr;

/* Called for every RTM_NEWROUTE of a dump, with the kernel's own message
 * (valid for the call only). */
typedef void (*srv6_rt_msg_fn)(const struct nlmsghdr *nlh, void *arg);

/**
 * srv6_rt_dump_msgs - the same dump as srv6_rt_dump(), handing @fn each
 * route's raw message, for a caller that decodes more than struct srv6_rt
 * holds.  Returns 0 or -errno; -EINTR when the kernel marked the dump
 * interrupted (a route changed while it ran: the caller reads it again,
 * after discarding what @fn saw).  Caller: srv6ctl (import --from-kernel,
 * src/ctl/rtshow.c, which decodes each message with include/srv6d/rtmsg.h).
 */
int srv6_rt_dump_msgs(int family, srv6_rt_msg_fn fn, void *arg);

/**
 * srv6_rt_sweep - delete every route of @family that @pick picks, after the
 * dump (no request is sent while it runs).  A route already gone (ENOENT,
 * ESRCH) is no error.  Returns the number deleted or the first -errno (the
 * other picked routes are still tried).  Callers: nhctx.c (stale
 * contexts), fallback.c (stale blackholes, stale policy routes).
 */
int srv6_rt_sweep(int family, srv6_rt_fn pick, void *arg);

/**
 * srv6_rt_request - send the rtnetlink request @nlh (NLM_F_REQUEST |
 * NLM_F_ACK; its seq is matched) on a socket of its own and wait for the
 * kernel's acknowledgement, at most @timeout_s seconds per receive (0: no
 * limit).  Returns 0 or the kernel's -errno (-ETIMEDOUT: no answer).
 * Caller: kfeat.c (the feature probe).
 */
int srv6_rt_request(struct nlmsghdr *nlh, int timeout_s);

/* Called for every message of a dump (libmnl's mnl_cb_t). */
typedef int (*srv6_nl_cb)(const struct nlmsghdr *nlh, void *arg);

/**
 * srv6_nl_dump - on a netlink socket of its own, send a dump request of
 * @type (NLM_F_REQUEST | NLM_F_DUMP) with the family header @hdr of @hdrlen
 * bytes (struct rtmsg, nhmsg, fib_rule_hdr ...), and run @cb on every reply
 * until the dump is done, receiving into @buf (@buflen, 8-byte aligned; at
 * least 32 KiB for dumps of many routes).  Returns 0, -errno, or -EINTR
 * when the kernel marked the dump interrupted (the table changed while it
 * ran: the caller decides whether to read it again).  A negative @cb
 * result ends it with -errno (or -EIO).  Control thread.
 */
int srv6_nl_dump(uint16_t type, const void *hdr, size_t hdrlen, void *buf, size_t buflen,
		 srv6_nl_cb cb, void *arg);

#endif
