/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linkwatch.h - the rtnetlink events that may complete what srv6d could not
 * install yet (degraded start, docs/NETFILTER-ROUTING.md): links appearing,
 * going up or down, addresses and routes added, routes of srv6d's adjacency
 * tables removed.
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
};

struct srv6_linkwatch;

/**
 * srv6_linkwatch_open - subscribe to link, address and route events of this
 * network namespace; routes of tables @table_lo..@table_hi (srv6d's own)
 * count as removals only.  NULL with one line in @err (errno set).
 * Control thread; SRV6_LINKWATCH_SIG blocked in every thread.
 */
struct srv6_linkwatch *srv6_linkwatch_open(uint32_t table_lo, uint32_t table_hi, char *err,
					   size_t errlen);

/**
 * srv6_linkwatch_classify - what one rtnetlink message asks for: a mask of
 * SRV6_LW_*, 0 when it is not relevant.  Pure (exposed for the unit test).
 */
int srv6_linkwatch_classify(const void *nlh, size_t len, uint32_t table_lo, uint32_t table_hi);

/**
 * srv6_linkwatch_drain - read every event queued, without blocking.
 * Returns the OR of their SRV6_LW_* (RETRY | VERIFY after an overrun).
 * NULL is accepted (0).  Control thread.
 */
int srv6_linkwatch_drain(struct srv6_linkwatch *lw);

/** srv6_linkwatch_close - close and free; NULL is accepted.  Control thread. */
void srv6_linkwatch_close(struct srv6_linkwatch *lw);

#endif
