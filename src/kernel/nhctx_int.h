/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nhctx_int.h - private to src/kernel/nhctx*.c: the context table and the
 * policy-rule primitives that nhctx.c (contexts, sync, sweep) and
 * nhctx_rules.c (gates, catch-all, isolation) share.  Not a public header:
 * everything above src/kernel uses include/srv6d/nhctx.h.
 *
 * All functions: control thread only, with the nhctx's socket; never from a
 * worker or under RCU.
 */
#ifndef SRV6D_NHCTX_INT_H
#define SRV6D_NHCTX_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <netlink/errno.h>
#include <netlink/socket.h>

#include "srv6d/nhctx.h"

/* The protocol of the adjacency routes: the sweep removes only these. */
#define SRV6_NHCTX_ROUTE_PROTO RTPROT_STATIC

_Static_assert((SRV6_NHCTX_MARK_BASE & ~SRV6_NHCTX_MARK_MASK) == 0,
	       "mark base must not overlap the index bits");
_Static_assert(SRV6_NHCTX_MAX == (uint32_t)~SRV6_NHCTX_MARK_MASK,
	       "context count must match the index bits");
_Static_assert(SRV6_NHCTX_TABLE_BASE <= UINT32_MAX - SRV6_NHCTX_MAX,
	       "table range must fit 32 bits");

enum ctx_kind {
	CTX_ADJ6,   /* adjacency table, ::/0 via nh6 [dev oif] */
	CTX_ADJ4,   /* adjacency table, 0.0.0.0/0 via nh4 [dev oif] */
	CTX_TBL6,   /* IPv6 rule to a user table */
	CTX_TBL46,  /* IPv6 and IPv4 rules to a user table */
};

struct ctx {
	enum ctx_kind kind;
	struct in6_addr nh6;
	struct in_addr nh4;
	int oif;
	uint32_t table;    /* table the rule looks up */
	uint32_t idx;      /* 1..SRV6_NHCTX_MAX */
	bool wanted;       /* wanted by the last sync (reverted on failure) */
	bool committed;    /* wanted by the running config (as of the last gc) */
};

struct srv6_nhctx {
	struct nl_sock *sk;
	uint32_t mark_base, table_base, prio;
	uint32_t mark_mask;  /* the bits srv6d owns (mark-mask) */
	uint32_t id_mask;    /* mark_mask without the index field: "srv6d's mark" */
	uint32_t idx_field;  /* where the index goes (srv6_nhctx_idx_field) */
	uint32_t max_idx;    /* largest index the field holds */
	struct ctx *ctx;
	size_t nctx, cap;
	int kerr;          /* errno of the last kernel NLMSG_ERROR, 0 if none */
	bool committed_once;
	bool fam_on[2];    /* [0] IPv6, [1] IPv4: gate and blackhole installed */
	bool fam_ok[2];    /* ... and checked during this sync */
	uint64_t used[(SRV6_NHCTX_MAX + 1) / 64];  /* context indices in use */
};


/* libnl reports NLE_* codes; the daemon speaks errno. */
static inline int nlerr_to_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_SUCCESS: return 0;
	case NLE_INTR: return EINTR;
	case NLE_AGAIN: return EAGAIN;
	case NLE_NOMEM: return ENOMEM;
	case NLE_EXIST: return EEXIST;
	case NLE_INVAL: return EINVAL;
	case NLE_RANGE: return ERANGE;
	case NLE_MSGSIZE: return EMSGSIZE;
	case NLE_OPNOTSUPP: return EOPNOTSUPP;
	case NLE_AF_NOSUPPORT: return EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND: return ENOENT;
	case NLE_NOADDR: return EADDRNOTAVAIL;
	case NLE_BUSY: return EBUSY;
	case NLE_NOACCESS: return EACCES;
	case NLE_PERM: return EPERM;
	case NLE_NODEV: return ENODEV;
	default: return EIO;
	}
}


/* -errno for the libnl result @nlerr of the last request. */
static inline int req_errno(struct srv6_nhctx *n, int nlerr)
{
	int e = n->kerr ? n->kerr : nlerr_to_errno(nlerr);

	n->kerr = 0;
	return -e;
}

static inline bool ctx_has_v6_rule(const struct ctx *c)
{
	return c->kind != CTX_ADJ4;
}

static inline bool ctx_has_v4_rule(const struct ctx *c)
{
	return c->kind == CTX_ADJ4 || c->kind == CTX_TBL46;
}

static inline bool ctx_has_table(const struct ctx *c)
{
	return c->kind == CTX_ADJ6 || c->kind == CTX_ADJ4;
}

static inline uint32_t ctx_mark(const struct srv6_nhctx *n, const struct ctx *c)
{
	return n->mark_base | srv6_nhctx_idx_mark(c->idx, n->idx_field);
}

/* Ensure (add if absent) the rule @family/@prio matching @mark/@mask with
 * @action (FR_ACT_*) to @table (or goto @table for FR_ACT_GOTO).  0/-errno. */
int nhctx_rule_ensure(struct srv6_nhctx *n, int family, uint32_t prio, uint32_t mark,
		      uint32_t mask, uint8_t action, uint32_t table);
/* Remove that rule; an absent rule is not an error.  0/-errno. */
int nhctx_rule_remove(struct srv6_nhctx *n, int family, uint32_t prio, uint32_t mark,
		      uint32_t mask, uint8_t action, uint32_t table);
/* Install @family's catch-all, gate and isolation gate (idempotent within a
 * sync); -EEXIST with @err naming the foreign rule in srv6d's preferences. */
int nhctx_family_on(struct srv6_nhctx *n, int family, char *err, size_t errlen);
/* Remove the gates and catch-all of each family no context needs any more.
 * Returns the first error, after trying all. */
int nhctx_family_prune(struct srv6_nhctx *n);

#endif
