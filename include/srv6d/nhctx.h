/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nhctx.h - next-hop contexts: the policy routing srv6d owns so that a packet
 * returned by an NF_ACCEPT verdict with a mark is routed the way its SID's
 * behavior asks.
 *
 * The verdict is given at raw PREROUTING; nf_reinject() continues the hook
 * chain and ip6_route_input() looks the rewritten packet up with
 * flowi6_mark = skb->mark, so fwmark rules select the table (the IPv4 input
 * path uses skb->mark the same way).
 *
 * Every context is one mark, MARK_BASE | idx (idx 1..0xffff; with a mark-mask,
 * idx is spread over srv6_nhctx_idx_field() and every rule matches only the
 * mask's bits), and:
 *   End.X nh6 [oif], End.DX6 nh6 != ::   an adjacency table TABLE_BASE + idx
 *        holding "default via nh6 [dev oif] [onlink if nh6 is link-local]",
 *        and "ip -6 rule pref PRIO fwmark M lookup TABLE_BASE + idx".
 *        Contexts with the same (nh6, oif) are shared.
 *   End.DX4 nh4 != 0.0.0.0               the same in IPv4 (0.0.0.0/0 via nh4).
 *   End.T / End.DT6 table N (or vrftable N)   "fwmark M lookup N" (IPv6);
 *   End.DT4 / End.DT46                   the same rule in IPv6 and IPv4.
 *   End, End.B6*, End.DX6 nh6 ::, End.DX4 nh4 0.0.0.0   mark 0 (main table).
 * Plus, in each family that has a context rule (none at all while no context
 * needs one): at PRIO + 1, "fwmark MARK_BASE/MARK_MASK unreachable" (a
 * context whose table has no route answers Destination Unreachable instead
 * of falling through to the main table, as the kernel's End.T and End.DT*
 * answer a miss); the gate "pref PRIO not fwmark MARK_BASE/MARK_MASK goto
 * PRIO + 1", added before the context rules (same preference, kept in
 * insertion order), so a lookup without srv6d's mark never walks the
 * contexts; and the isolation gate "pref 0 fwmark MARK_BASE/MARK_MASK goto
 * PRIO" placed before the host's "lookup local" rule (the local rule is moved
 * behind it): srv6d's results never reach the local table, which is the
 * kernel's table isolation (docs/NETFILTER-ROUTING.md).  A lookup without
 * srv6d's mark crosses three srv6d rules, however many contexts there are.
 *
 * Everything matching PRIO / PRIO + 1 (and the gate at 0) with a mark in MARK_BASE/MARK_MASK, and
 * every route in tables TABLE_BASE .. TABLE_BASE + 0xffff, belongs to srv6d:
 * srv6_nhctx_open() removes it (crash recovery) and srv6_nhctx_close()
 * removes it.  Two srv6d instances in one netns need distinct bases/PRIO.
 *
 * Degraded start: a SID whose interface, VRF device or next-hop route does
 * not exist (yet), or whose link is down, gets no context and waits
 * (srv6_nhctx_sync with @miss); srv6_nhctx_verify() finds adjacency routes
 * the kernel removed since, srv6_nhctx_complete() installs what waits once
 * it can (src/daemon/pending.c, linkwatch.c).
 *
 * Threading: a struct srv6_nhctx is used by one control thread (start-up,
 * reload, completion of pending SIDs, shutdown); it is not called from the
 * packet path and takes no locks.  Workers only read cfg->mark from published SID configurations.
 */
#ifndef SRV6D_NHCTX_H
#define SRV6D_NHCTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf_defs.h"  /* the mark layout: bases, masks, index field */
#include "seg6.h"

/**
 * srv6_nhctx_idx_mark - the mark bits of context index @idx: @idx's bits
 * deposited into @field (srv6_nhctx_idx_field), lowest first.  Any thread.
 */
static inline uint32_t srv6_nhctx_idx_mark(uint32_t idx, uint32_t field)
{
	uint32_t m = 0;

	for (; field && idx; idx >>= 1) {
		uint32_t bit = field & -field;

		if (idx & 1)
			m |= bit;
		field &= field - 1;
	}
	return m;
}

struct srv6_nhctx;

/**
 * srv6_nhctx_open - connect to rtnetlink and remove every rule and route a
 * previous srv6d with the same parameters left behind (crash recovery).
 * Installs nothing: the gates and the catch-all of a family come with its first
 * context (srv6_nhctx_sync) and go with its last (gc, abort).
 * @mark_base: 0 for SRV6_NHCTX_MARK_BASE; must have its low 16 bits clear.
 * @mark_mask: 0 for SRV6_NHCTX_MARK_ALL; the mark bits srv6d owns: @mark_base
 *             inside it, room for an index below it (srv6_nhctx_idx_field);
 *             rules match fwmark M/@mark_mask, other bits are left alone.
 * @table_base: 0 for SRV6_NHCTX_TABLE_BASE; base + 0xffff must fit 32 bits
 *              and the range must not contain 0 or 252..255.
 * @rule_prio: 0 for SRV6_NHCTX_RULE_PRIO; srv6_nhctx_pref_ok().
 * Returns NULL with a one-line message in @err on failure (errno set).
 * Control thread only.
 */
struct srv6_nhctx *srv6_nhctx_open(uint32_t mark_base, uint32_t mark_mask, uint32_t table_base,
				   uint32_t rule_prio, char *err, size_t errlen);

/* The outcome of one SID in a degraded sync, a completion or a verify
 * (allocated only while it waits: 10,000 SIDs cost 16 bytes each). */
#define SRV6_NHCTX_WHY 200            /* longest reason kept */
struct srv6_nhctx_miss {
	int err;                      /* 0: resolved; -errno: the SID waits */
	char *why;                    /* malloc'ed, what it waits for, e.g.
					 `unknown interface "eth9"` (NULL: resolved,
					 or no memory for the text); the owner of the
					 array frees it */
};

/**
 * srv6_nhctx_sync - make the kernel hold a context for every SID in @cfgs and
 * write cfg->oif (ifindex of cfg->oif_name, when SRV6_ATTR_OIF is set or the
 * name is not empty; otherwise cfg->oif is left as it is) and cfg->mark into
 * each cfg.  Idempotent and incremental: contexts already present are kept
 * (and repaired if their rule or route vanished, e.g. after the interface
 * went down), missing ones are added before it returns, so the caller may
 * publish @cfgs as soon as this returns 0.  Contexts no longer used are NOT
 * removed here: see srv6_nhctx_gc().
 * @miss: NULL (strict: any SID that cannot be resolved fails the sync), or
 * @ncfgs outcomes (degraded: a SID whose interface, VRF device or next-hop
 * route does not exist yet, or whose interface is down, gets -errno and the
 * reason in miss[i], cfg->mark 0 and no context, and the sync goes on;
 * other errors still fail it).  The caller marks such SIDs pending and
 * retries them with srv6_nhctx_complete().
 * On failure nothing already published is disturbed: contexts added by this
 * call are removed again, the others go back to what the running config
 * uses, and the caller must not publish @cfgs (some cfg->mark may already
 * have been written).
 * Returns 0 or -errno with one line in @err naming the bad token, e.g.
 * `unknown interface "eth9"`, `nh6 fe80::1: link-local next hop needs oif`,
 * `nh6 2001:db8::9: cannot install adjacency route in table N: No route to host`.
 * Control thread only; @cfgs are not yet visible to workers.
 */
int srv6_nhctx_sync(struct srv6_nhctx *n, struct srv6_sid_cfg **cfgs, size_t ncfgs,
		    struct srv6_nhctx_miss *miss, char *err, size_t errlen);

/**
 * srv6_nhctx_complete - try again every SID of the running config whose
 * miss[i].err is set (@cfgs and @miss as the last degraded sync, or verify,
 * left them): on success its context is installed (again) and part of the
 * running config, cfg->mark is set and miss[i] cleared; otherwise miss[i]
 * holds the current reason.  Returns how many were completed (the caller
 * then publishes them).  Not between a sync and its gc/abort (a reload).
 * Control thread only.
 */
int srv6_nhctx_complete(struct srv6_nhctx *n, struct srv6_sid_cfg **cfgs, size_t ncfgs,
			struct srv6_nhctx_miss *miss);

/**
 * srv6_nhctx_verify - find the adjacency routes (IPv6 ones when @v6, IPv4
 * ones when @v4) the kernel removed (their interface went down or away:
 * IPv6 announces the deletion, IPv4 does not), install each again at once,
 * and when the kernel refuses, set miss[i] of every SID of @cfgs that uses
 * it (the caller marks them pending; the context stays,
 * srv6_nhctx_complete() reinstalls it).  Returns the number of SIDs that
 * became pending, or -errno.  Costs one route dump of each family asked for
 * that has an adjacency context (none without one).  Control thread only;
 * as srv6_nhctx_complete().
 */
int srv6_nhctx_verify(struct srv6_nhctx *n, bool v6, bool v4, struct srv6_sid_cfg **cfgs,
		      size_t ncfgs, struct srv6_nhctx_miss *miss);

/**
 * srv6_nhctx_gc - commit the last successful sync as the running config and
 * remove the contexts (rules, then routes) it does not use.
 * Order on reload: sync (new SIDs) -> publish -> RCU grace period -> gc, so
 * no in-flight packet carries a mark whose rule is gone.  The first
 * successful sync is committed by itself (start-up needs no gc).  gc right
 * after a failed sync is safe (it keeps what the running config uses); gc
 * right after a successful sync whose config was NOT published is not (it
 * would commit that config): re-sync the running config first.
 * Returns the number of contexts removed or -errno (the first error; the
 * others are still tried).  Control thread only.
 */
int srv6_nhctx_gc(struct srv6_nhctx *n);

/**
 * srv6_nhctx_abort - the last successful sync will not be published (its
 * reload failed later): go back to the running config's contexts, removing
 * those only that sync added.  Safe at any time after a sync, published
 * contexts are never touched.  Returns the number removed or -errno.
 * Control thread only.
 */
int srv6_nhctx_abort(struct srv6_nhctx *n);

/**
 * srv6_nhctx_count - contexts currently installed (for status output/tests).
 */
size_t srv6_nhctx_count(const struct srv6_nhctx *n);

/**
 * srv6_nhctx_close - remove everything srv6d installed (all rules with its
 * priorities and mark range, all routes in its table range) and free @n.
 * NULL is accepted.  Call after the workers stopped.  Control thread only.
 */
void srv6_nhctx_close(struct srv6_nhctx *n);

#endif
