/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pending.h - the SIDs and policies of the running configuration that a
 * degraded start or reload could not complete yet: an interface that does
 * not exist (yet) or is down, a next hop or first segment without a route,
 * a VRF device missing.  srv6d starts anyway; such an entry is in the tables
 * with cfg->pending / pol->pending set (the datapath drops its packets as
 * "pending"), is logged once per state change, listed in the stats, and
 * completed when the missing piece appears (linkwatch.h).
 *
 * Two parts per entry, kept apart because they are resolved apart: the
 * next-hop context of a SID (nhctx.h) and the outer source of an
 * encapsulating SID or policy (saddr.h).  Either missing makes it pending.
 *
 * Threading: the control thread only; the flags reach the workers through
 * the next publish.
 */
#ifndef SRV6D_PENDING_H
#define SRV6D_PENDING_H

#include <stdbool.h>
#include <stdio.h>

#include "conf.h"
#include "nhctx.h"

struct srv6_pending {
	const char *path;                  /* the conf file, for messages */
	size_t nsids, nroutes;
	struct srv6_nhctx_miss *nh;        /* per SID: its next-hop context */
	char **src;                        /* per SID, then per route: what its
					      outer source waits for (malloc'ed;
					      NULL when resolved) */
	bool *logged;                      /* per SID, then per route: pending
					      as last logged */
	size_t count;                      /* SIDs and routes pending now */
};

/**
 * srv6_pending_init - nothing pending for @c's SIDs and routes.  0 or
 * -ENOMEM (then @p needs no free).  @path is kept, not copied.
 */
int srv6_pending_init(struct srv6_pending *p, const char *path, const struct srv6_conf *c);

/** srv6_pending_free - release @p (zeroed; a second free is harmless). */
void srv6_pending_free(struct srv6_pending *p);

/**
 * srv6_pending_set_src - entry @i (SIDs first, then routes) waits for its
 * outer source because of @why, or not when @why is "".  0 or -ENOMEM (the
 * entry is then marked waiting without a text).
 */
int srv6_pending_set_src(struct srv6_pending *p, size_t i, const char *why);

/**
 * srv6_pending_update - set cfg->pending / pol->pending of @c from @p's
 * parts and recount.  Returns how many flags changed (the caller publishes
 * when > 0).  @c must be the configuration @p was made for.
 */
unsigned int srv6_pending_update(struct srv6_pending *p, struct srv6_conf *c);

/**
 * srv6_pending_log - log each entry whose state changed since the last call
 * (a warning with the reason when it became pending, a notice when it
 * completed; the first call logs every pending entry).  No per-packet
 * logging exists: packets are counted as the "pending" drop reason.
 */
void srv6_pending_log(struct srv6_pending *p, const struct srv6_conf *c);

/**
 * srv6_pending_carry - take over into @np (made for @nc, its pending parts
 * set) what @old (made for @oc) logged, so that srv6_pending_log() on @np
 * says only what changed: an entry @old logged as pending that waits for the
 * same thing (same name, origin and reason) is not said again, one that no
 * longer waits gets its "complete" notice, one that waits for something else
 * its new reason.  A batch from zebra does not repeat the warnings of what
 * it left alone.  Returns how many pending entries were carried; what no
 * memory was left for is said again (a repeat, never a loss).  Control
 * thread, before @old is freed.
 */
size_t srv6_pending_carry(struct srv6_pending *np, const struct srv6_conf *nc,
			  const struct srv6_pending *old, const struct srv6_conf *oc);

/**
 * srv6_pending_print - "pending total=N sids=S routes=R", then one line per
 * pending entry: "pending sid PREFIX ACTION FILE:LINE: REASON" or
 * "pending route PREFIX MODE FILE:LINE: REASON", to @f, or to the log
 * (info) when @f is NULL.
 */
void srv6_pending_print(const struct srv6_pending *p, const struct srv6_conf *c, FILE *f);

#endif
