/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf_defs.h - the defaults and limits srv6d.conf is checked against, whose
 * owners sit in rooms above the conf grammar: the control socket's default
 * path (control), the steering chain's name (kernel/steer), and the mark,
 * table and rule-preference layout of the next-hop contexts (kernel/nhctx),
 * and the built value of a "queue N policy" line the datapath's verdict-policy
 * queues receive (datapath/pqueue).
 * They live here so that src/conf/ includes nothing above it; ctl.h,
 * steer.h and nhctx.h include this file, so their users see no change.
 * Constants, value types and pure inline functions only.
 */
#ifndef SRV6D_CONF_DEFS_H
#define SRV6D_CONF_DEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* control socket (src/control/) */
#define SRV6_CTL_SOCK_DEFAULT "/run/srv6d/srv6d.sock"

/* steering chain (src/kernel/steer.c) */
#define SRV6_STEER_CHAIN     "SRV6D"       /* default chain name */
#define SRV6_STEER_CHAIN_MAX 28            /* xtables: 28 characters + NUL */

/* next-hop contexts (src/kernel/nhctx.c) */
#define SRV6_NHCTX_MARK_BASE  0x6d000000u  /* 'm' << 24 */
#define SRV6_NHCTX_MARK_MASK  0xffff0000u  /* the low 16 bits index a context */
#define SRV6_NHCTX_TABLE_BASE 4200000000u  /* adjacency tables base + 1..0xffff */
#define SRV6_NHCTX_RULE_PRIO  40000u       /* context rules; PRIO + 1 catch-all:
					      after main (32766) and default (32767) */
#define SRV6_NHCTX_RULE_PRIO_MAX 65534u    /* PRIO + 1 and the fail-open metric
					      (0xffff0000 + PRIO) fit */
#define SRV6_NHCTX_MAX        0xffffu      /* contexts per instance */
#define SRV6_NHCTX_MARK_ALL   0xffffffffu  /* mark-mask default: all 32 bits */

/**
 * srv6_nhctx_pref_ok - whether @pref can be rule-pref: the contexts at @pref
 * and the catch-all at @pref + 1 must not share a preference with the host's
 * main (32766) or default (32767) rule (a rule added at an existing
 * preference goes behind it, and marked lookups would reach main), and @pref
 * must leave the pref-0 isolation gate a later target: 1..32764 or
 * 32768..SRV6_NHCTX_RULE_PRIO_MAX.  Any thread.
 */
static inline bool srv6_nhctx_pref_ok(uint64_t pref)
{
	return (pref >= 1 && pref <= 32764) ||
	       (pref >= 32768 && pref <= SRV6_NHCTX_RULE_PRIO_MAX);
}

/**
 * srv6_nhctx_idx_field - the mark bits that carry the context index: the bits
 * of @mask below the lowest set bit of @base, at most the lowest 16 of them.
 * The other bits of @mask (with @base) say "a mark of this srv6d"; the bits
 * outside @mask are never touched.  Default (mask 0xffffffff, base with its
 * low 16 bits clear): 0x0000ffff.  0 when @mask leaves no room.  Any thread.
 */
static inline uint32_t srv6_nhctx_idx_field(uint32_t base, uint32_t mask)
{
	uint32_t below = base ? mask & ((base & -base) - 1) : 0, f = 0;

	for (int n = 0; below && n < 16; n++) {
		f |= below & -below;
		below &= below - 1;
	}
	return f;
}

/* verdict-policy queues (src/datapath/pqueue.c) */
/* A verdict-policy queue's policy. */
enum srv6_pq_policy {
	SRV6_PQ_ACCEPT,                /* NF_ACCEPT (with mark when has_mark) */
	SRV6_PQ_DROP,                  /* NF_DROP */
	SRV6_PQ_REPEAT,                /* NF_REPEAT (setting mark when has_mark; packets
					  carrying all its bits: NF_ACCEPT) */
	SRV6_PQ_REQUEUE,               /* NF_QUEUE to queue requeue */
	SRV6_PQ_HOLD,                  /* no verdict until released: NF_ACCEPT then */
	SRV6_PQ_DELAY,                 /* NF_ACCEPT delay_ms after arrival */
};

#define SRV6_CONF_MAX_PQUEUES 64
#define SRV6_CONF_PQ_DELAY_MAX_MS 3600000u

/** struct srv6_conf_pqueue - one "queue N policy ..." line. */
struct srv6_conf_pqueue {
	uint16_t queue;
	enum srv6_pq_policy policy;
	bool has_mark;                 /* accept mark M, repeat mark M */
	uint32_t mark;
	uint16_t requeue;              /* requeue Q */
	uint32_t delay_ms;             /* delay DURATION */
	unsigned int line;
};

/**
 * srv6_pqueue_format - "accept mark 0x20", "delay 50ms"... (the words after
 * "policy") into @buf.  Returns the length as snprintf.  Pure.  Beside its value
 * type because the datapath's queue show prints it with the conf's own name
 * table (src/conf/queue.c), without the grammar.
 */
int srv6_pqueue_format(char *buf, size_t len, const struct srv6_conf_pqueue *pq);

#endif
