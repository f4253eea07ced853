/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linkwatch.h - the rtnetlink events that may complete what srv6d could not
 * install yet (degraded start, docs/NETFILTER-ROUTING.md): links appearing,
 * going up or down, addresses and routes added, routes of srv6d's adjacency
 * tables removed; and what may have taken a policy's kernel route away
 * (fallback.h: srv6_polroute_restore): srv6d's route through its device
 * removed, a foreign route of a policy's prefix and metric added (`ip route
 * replace` takes the policy's place with no RTM_DELROUTE) or removed, srv6d's
 * device changed.
 *
 * The socket raises a signal (SIGIO, O_ASYNC) on the process when an event
 * is readable, so the control thread, which waits for its signals in
 * sigtimedwait(), wakes up at once: the signal must be blocked in every
 * thread before srv6_linkwatch_open().  Events are coalesced: the control
 * thread reads them all (srv6_linkwatch_drain) and acts once.  The periodic
 * tick retries what is still pending, in case a wake-up was missed; a
 * receive overrun (ENOBUFS: events were lost) asks for everything.
 *
 * Threading: one control thread owns a struct srv6_linkwatch.
 */
#ifndef SRV6D_LINKWATCH_H
#define SRV6D_LINKWATCH_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"

#define SRV6_LINKWATCH_SIG SIGIO

/* What the events read ask of the control thread. */
enum {
	SRV6_LW_RETRY = 1,     /* something appeared: retry what is pending */
	SRV6_LW_VERIFY6 = 2,   /* an IPv6 route of srv6d's tables went (IPv6
				  announces the routes a link down removes) */
	SRV6_LW_VERIFY4 = 4,   /* a link changed: IPv4 removes the routes of a
				  link that goes down without a word */
	SRV6_LW_VERIFY = SRV6_LW_VERIFY6 | SRV6_LW_VERIFY4,
	SRV6_LW_LINK = 8,      /* a link was created, deleted or renamed: names
				  resolved to ifindexes (hmac MODE dev IF)
				  are resolved again */
	SRV6_LW_POLROUTE = 16, /* a policy's kernel route may be gone: look
				  (srv6_polroute_restore) */
};

/* What srv6_linkwatch_classify() tells srv6d's own from the rest by. */
struct srv6_lw_scope {
	uint32_t table_lo, table_hi;     /* srv6d's next-hop tables */
	int dev_ifindex;                 /* srv6d's device (0: none) */
	const struct srv6_conf *conf;    /* the running policies (NULL: none) */
};

struct srv6_linkwatch;

/**
 * srv6_linkwatch_open - subscribe to link, address and route events of this
 * network namespace; routes of tables @table_lo..@table_hi (srv6d's own)
 * count as removals only; @dev_ifindex is srv6d's device (0: none), whose
 * routes in the main table are the policies'.  NULL with one line in @err
 * (errno set).  Control thread; SRV6_LINKWATCH_SIG blocked in every thread.
 */
struct srv6_linkwatch *srv6_linkwatch_open(uint32_t table_lo, uint32_t table_hi, int dev_ifindex,
					   char *err, size_t errlen);

/**
 * srv6_linkwatch_classify - what one rtnetlink message asks for: a mask of
 * SRV6_LW_*, 0 when it is not relevant.  SRV6_LW_POLROUTE: a main-table
 * route of protocol SRV6_FALLBACK_PROTO through @s->dev_ifindex removed; a
 * route of a policy's prefix and metric (@s->conf) that is not that one added
 * or removed; srv6d's device changed or deleted.  Pure (exposed for the unit
 * test).
 */
int srv6_linkwatch_classify(const void *nlh, size_t len, const struct srv6_lw_scope *s);

/**
 * srv6_linkwatch_drain - read every event queued, without blocking; @c is
 * the running configuration (its policies, for SRV6_LW_POLROUTE; NULL:
 * none).  Returns the OR of their SRV6_LW_* (every bit after an overrun).
 * NULL @lw is accepted (0).  Control thread.
 */
int srv6_linkwatch_drain(struct srv6_linkwatch *lw, const struct srv6_conf *c);

/** srv6_linkwatch_close - close and free; NULL is accepted.  Control thread. */
void srv6_linkwatch_close(struct srv6_linkwatch *lw);

#endif
