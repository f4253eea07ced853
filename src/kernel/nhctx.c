// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nhctx.c - next-hop contexts as policy routing, through libnl-route-3.
 * See include/srv6d/nhctx.h for the model.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/cache.h>
#include <netlink/attr.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>
#include <netlink/route/nexthop.h>
#include <netlink/route/link.h>
#include <netlink/route/link/vrf.h>

#include <libmnl/libmnl.h>
#include <time.h>

#include "srv6d/errbuf.h"
#include "nhctx_int.h"
#include "srv6d/rtdump.h"


/* Keep the kernel's own errno: libnl folds many into "Unspecific failure". */
static int on_nlmsgerr(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct srv6_nhctx *n = arg;

	n->kerr = -e->error;
	return NL_STOP;
}

/* ---- adjacency routes ---- */

static bool in6_is_ll(const struct in6_addr *a)
{
	return a->s6_addr[0] == 0xfe && (a->s6_addr[1] & 0xc0) == 0x80;
}

static struct rtnl_route *adj_route_build(const struct srv6_nhctx *n, const struct ctx *c)
{
	int family = c->kind == CTX_ADJ6 ? AF_INET6 : AF_INET;
	size_t alen = family == AF_INET6 ? 16 : 4;
	static const uint8_t zero[16];
	struct rtnl_route *rt = NULL;
	struct rtnl_nexthop *nh = NULL;
	struct nl_addr *dst = NULL, *gw = NULL;

	rt = rtnl_route_alloc();
	nh = rtnl_route_nh_alloc();
	dst = nl_addr_build(family, zero, alen);
	gw = family == AF_INET6 ? nl_addr_build(family, &c->nh6, 16)
				: nl_addr_build(family, &c->nh4, 4);
	if (!rt || !nh || !dst || !gw)
		goto out_free;
	nl_addr_set_prefixlen(dst, 0);
	rtnl_route_set_family(rt, family);
	rtnl_route_set_table(rt, c->table);
	rtnl_route_set_type(rt, RTN_UNICAST);
	rtnl_route_set_protocol(rt, SRV6_NHCTX_ROUTE_PROTO);
	rtnl_route_set_scope(rt, RT_SCOPE_UNIVERSE);
	if (rtnl_route_set_dst(rt, dst) < 0)
		goto out_free;
	rtnl_route_nh_set_gateway(nh, gw);
	if (c->oif) {
		rtnl_route_nh_set_ifindex(nh, c->oif);
		if (family == AF_INET6 && in6_is_ll(&c->nh6))
			rtnl_route_nh_set_flags(nh, RTNH_F_ONLINK);
	}
	rtnl_route_add_nexthop(rt, nh); /* rt owns nh now */
	nl_addr_put(dst);
	nl_addr_put(gw);
	return rt;

out_free:
	if (nh)
		rtnl_route_nh_free(nh);
	if (rt)
		rtnl_route_put(rt);
	nl_addr_put(dst);
	nl_addr_put(gw);
	return NULL;
}

static int adj_route_ensure(struct srv6_nhctx *n, const struct ctx *c)
{
	struct rtnl_route *rt = adj_route_build(n, c);
	int e;

	if (!rt)
		return -ENOMEM;
	n->kerr = 0;
	e = rtnl_route_add(n->sk, rt, NLM_F_CREATE | NLM_F_REPLACE);
	rtnl_route_put(rt);
	return e < 0 ? req_errno(n, e) : 0;
}

/* ---- contexts ---- */

static void ctx_describe(const struct ctx *c, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN], ifn[IF_NAMESIZE];

	switch (c->kind) {
	case CTX_ADJ6:
		inet_ntop(AF_INET6, &c->nh6, a, sizeof(a));
		goto adj;
	case CTX_ADJ4:
		inet_ntop(AF_INET, &c->nh4, a, sizeof(a));
adj:
		if (c->oif && if_indextoname((unsigned int)c->oif, ifn))
			snprintf(buf, len, "%s %s oif %s",
				 c->kind == CTX_ADJ6 ? "nh6" : "nh4", a, ifn);
		else
			snprintf(buf, len, "%s %s", c->kind == CTX_ADJ6 ? "nh6" : "nh4", a);
		break;
	case CTX_TBL6:
	case CTX_TBL46:
		snprintf(buf, len, "table %u", c->table);
		break;
	}
}

/* Install (or repair) everything of @c.  Route before rule so that a rule
 * never points to an empty adjacency table. */
static int ctx_install(struct srv6_nhctx *n, const struct ctx *c, char *err, size_t errlen)
{
	char what[96];
	int e;

	if (ctx_has_table(c)) {
		e = adj_route_ensure(n, c);
		if (e < 0) {
			ctx_describe(c, what, sizeof(what));
			srv6_seterr(err, errlen, "%s: cannot install adjacency route in table %u: %s",
			       what, c->table, strerror(-e));
			return e;
		}
	}
	if (ctx_has_v6_rule(c)) {
		e = nhctx_family_on(n, AF_INET6, err, errlen);
		if (e == -EEXIST)
			return e;
		if (!e)
			e = nhctx_rule_ensure(n, AF_INET6, n->prio, ctx_mark(n, c), n->mark_mask,
					FR_ACT_TO_TBL, c->table);
		if (e < 0)
			goto out_rule;
	}
	if (ctx_has_v4_rule(c)) {
		e = nhctx_family_on(n, AF_INET, err, errlen);
		if (e == -EEXIST)
			return e;
		if (!e)
			e = nhctx_rule_ensure(n, AF_INET, n->prio, ctx_mark(n, c), n->mark_mask,
					FR_ACT_TO_TBL, c->table);
		if (e < 0)
			goto out_rule;
	}
	return 0;

out_rule:
	ctx_describe(c, what, sizeof(what));
	srv6_seterr(err, errlen, "%s: cannot install fwmark rule 0x%x: %s", what,
	       ctx_mark(n, c), strerror(-e));
	return e;
}

/* Remove rules first (so no packet is steered to a table being emptied),
 * then the adjacency route.  Returns the first error, tries everything. */
static int ctx_uninstall(struct srv6_nhctx *n, const struct ctx *c)
{
	int ret = 0, e;

	if (ctx_has_v6_rule(c)) {
		e = nhctx_rule_remove(n, AF_INET6, n->prio, ctx_mark(n, c), n->mark_mask,
				FR_ACT_TO_TBL, c->table);
		if (e < 0 && !ret)
			ret = e;
	}
	if (ctx_has_v4_rule(c)) {
		e = nhctx_rule_remove(n, AF_INET, n->prio, ctx_mark(n, c), n->mark_mask,
				FR_ACT_TO_TBL, c->table);
		if (e < 0 && !ret)
			ret = e;
	}
	if (ctx_has_table(c)) {
		struct rtnl_route *rt = adj_route_build(n, c);

		if (!rt)
			return ret ? ret : -ENOMEM;
		n->kerr = 0;
		e = rtnl_route_delete(n->sk, rt, 0);
		rtnl_route_put(rt);
		if (e < 0 && -e != NLE_OBJ_NOTFOUND && !ret)
			ret = req_errno(n, e);
	}
	return ret;
}

static bool ctx_same_key(const struct ctx *a, const struct ctx *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case CTX_ADJ6:
		return a->oif == b->oif && !memcmp(&a->nh6, &b->nh6, sizeof(a->nh6));
	case CTX_ADJ4:
		return a->oif == b->oif && a->nh4.s_addr == b->nh4.s_addr;
	case CTX_TBL6:
	case CTX_TBL46:
		return a->table == b->table;
	}
	return false;
}

static struct ctx *ctx_find(struct srv6_nhctx *n, const struct ctx *key)
{
	for (size_t i = 0; i < n->nctx; i++)
		if (ctx_same_key(&n->ctx[i], key))
			return &n->ctx[i];
	return NULL;
}

/* Smallest index not in use: a bitmap walk, at most 1024 words (10,000
 * contexts took minutes with a scan of the contexts per index). */
static uint32_t ctx_free_idx(const struct srv6_nhctx *n)
{
	for (uint32_t w = 0; w < sizeof(n->used) / sizeof(n->used[0]); w++) {
		uint64_t free_bits = ~n->used[w];

		if (w == 0)
			free_bits &= ~1ull;   /* index 0 is no context */
		if (free_bits)
			return w * 64 + (uint32_t)__builtin_ctzll(free_bits);
	}
	return 0;
}

static void idx_set(struct srv6_nhctx *n, uint32_t idx, bool on)
{
	if (on)
		n->used[idx / 64] |= 1ull << (idx % 64);
	else
		n->used[idx / 64] &= ~(1ull << (idx % 64));
}

static struct ctx *ctx_add(struct srv6_nhctx *n, const struct ctx *key)
{
	struct ctx *c;
	uint32_t idx = ctx_free_idx(n);

	if (!idx || idx > n->max_idx) {
		errno = ENOSPC;
		return NULL;
	}
	if (n->nctx == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 16;
		struct ctx *p = realloc(n->ctx, cap * sizeof(*p));

		if (!p)
			return NULL;
		n->ctx = p;
		n->cap = cap;
	}
	c = &n->ctx[n->nctx++];
	*c = *key;
	c->idx = idx;
	idx_set(n, idx, true);
	if (ctx_has_table(c))
		c->table = n->table_base + idx;
	return c;
}

static void ctx_drop(struct srv6_nhctx *n, size_t i)
{
	idx_set(n, n->ctx[i].idx, false);
	n->ctx[i] = n->ctx[--n->nctx];
}

/* ---- crash recovery / close ---- */

struct sweep {
	struct srv6_nhctx *n;
	int err;
};

/*
 * A rule is this instance's (left by a crash) when it matches a mark of its
 * range, whatever its preference: the mark bits are srv6d's (mark-mask), and
 * a second instance with an overlapping mark-base cannot run (instance
 * locks).  Not by preference: a crashed srv6d with another rule-pref (the
 * default was 1000 before the contexts moved behind main) left its gate at 0
 * jumping to its old contexts, which would route our marks.
 */
static void sweep_rule(struct nl_object *obj, void *arg)
{
	struct sweep *s = arg;
	struct rtnl_rule *r = (struct rtnl_rule *)obj;
	uint32_t mark = rtnl_rule_get_mark(r), mask = rtnl_rule_get_mask(r);
	int e;

	/* a rule without fwmark reads mark 0, mask 0: never ours */
	if ((mark & s->n->id_mask) != s->n->mark_base ||
	    (mask & s->n->id_mask) != s->n->id_mask)
		return;
	s->n->kerr = 0;
	e = rtnl_rule_delete(s->n->sk, r, 0);
	if (e < 0 && -e != NLE_OBJ_NOTFOUND && !s->err)
		s->err = req_errno(s->n, e);
}

/* A route of srv6d's adjacency tables: one srv6d installed (proto static).
 * Plain rtnetlink (rtdump.h): libnl's route cache fails a whole dump that
 * holds a route it cannot parse (a kernel seg6local route). */
static int sweep_route(const struct srv6_rt *rt, void *arg)
{
	const struct srv6_nhctx *n = arg;

	return rt->table >= n->table_base && rt->table <= n->table_base + SRV6_NHCTX_MAX &&
	       rt->protocol == SRV6_NHCTX_ROUTE_PROTO;
}

/* Remove every rule and route that srv6d's parameters claim, in both
 * families: rules first, then routes. */
static int sweep_all(struct srv6_nhctx *n)
{
	static const int families[] = { AF_INET6, AF_INET };
	struct sweep s = { .n = n, .err = 0 };
	struct nl_cache *cache;
	int e;

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		e = rtnl_rule_alloc_cache(n->sk, families[i], &cache);
		if (e < 0)
			return -nlerr_to_errno(e);
		nl_cache_foreach(cache, sweep_rule, &s);
		nl_cache_free(cache);
	}
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		e = srv6_rt_sweep(families[i], sweep_route, n);
		if (e < 0 && !s.err)
			s.err = e;
	}
	return s.err;
}


/* ---- public ---- */

struct srv6_nhctx *srv6_nhctx_open(uint32_t mark_base, uint32_t mark_mask, uint32_t table_base,
				   uint32_t rule_prio, char *err, size_t errlen)
{
	struct srv6_nhctx *n;
	uint32_t field;
	int e;

	if (!mark_base)
		mark_base = SRV6_NHCTX_MARK_BASE;
	if (!mark_mask)
		mark_mask = SRV6_NHCTX_MARK_ALL;
	if (mark_base & 0xffffu) {
		srv6_seterr(err, errlen, "mark base 0x%x: low 16 bits must be 0", mark_base);
		errno = EINVAL;
		return NULL;
	}
	field = srv6_nhctx_idx_field(mark_base, mark_mask);
	if ((mark_base & ~mark_mask) || !field) {
		srv6_seterr(err, errlen, "mark base 0x%x does not fit mark mask 0x%x "
			    "(base inside the mask, index bits below it)", mark_base, mark_mask);
		errno = EINVAL;
		return NULL;
	}
	if (!table_base)
		table_base = SRV6_NHCTX_TABLE_BASE;
	if (!rule_prio)
		rule_prio = SRV6_NHCTX_RULE_PRIO;
	if (table_base > UINT32_MAX - SRV6_NHCTX_MAX ||
	    (table_base <= 255 && table_base + SRV6_NHCTX_MAX >= 252)) {
		srv6_seterr(err, errlen, "table base %u: range overlaps reserved tables", table_base);
		errno = EINVAL;
		return NULL;
	}
	if (!srv6_nhctx_pref_ok(rule_prio)) {
		srv6_seterr(err, errlen, "rule priority %u: must be 1..32764 or 32768..%u",
			    rule_prio, SRV6_NHCTX_RULE_PRIO_MAX);
		errno = EINVAL;
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (!n) {
		srv6_seterr(err, errlen, "out of memory");
		return NULL;
	}
	n->mark_base = mark_base;
	n->mark_mask = mark_mask;
	n->idx_field = field;
	n->id_mask = mark_mask & ~field;
	n->max_idx = (uint32_t)((1ull << __builtin_popcount(field)) - 1);
	if (n->max_idx > SRV6_NHCTX_MAX)
		n->max_idx = SRV6_NHCTX_MAX;
	n->table_base = table_base;
	n->prio = rule_prio;
	n->sk = nl_socket_alloc();
	if (!n->sk) {
		e = -ENOMEM;
		srv6_seterr(err, errlen, "out of memory");
		goto out_free;
	}
	e = nl_connect(n->sk, NETLINK_ROUTE);
	if (e < 0) {
		srv6_seterr(err, errlen, "rtnetlink: %s", nl_geterror(e));
		e = -nlerr_to_errno(e);
		goto out_sock;
	}
	nl_socket_modify_err_cb(n->sk, NL_CB_CUSTOM, on_nlmsgerr, n);
	e = sweep_all(n);
	if (e < 0) {
		srv6_seterr(err, errlen, "removing stale next-hop contexts: %s", strerror(-e));
		goto out_sock;
	}
	/* No rule yet: the gate and the blackhole come with the first context
	 * of their family (nhctx_family_on). */
	return n;

out_sock:
	nl_socket_free(n->sk);
out_free:
	free(n);
	errno = -e;
	return NULL;
}

/* The context a SID needs: 1 and @key filled, 0 when it needs none (mark
 * 0), or -EINVAL with @err set. */
static int cfg_to_key(const struct srv6_sid_cfg *cfg, struct ctx *key, char *err, size_t errlen)
{
	char a[INET6_ADDRSTRLEN];
	bool has_vrf = cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_VRFTABLE);

	memset(key, 0, sizeof(*key));
	key->oif = cfg->oif;
	switch (cfg->action) {
	case SRV6_ACT_END_X:
	case SRV6_ACT_END_DX6:
		if (IN6_IS_ADDR_UNSPECIFIED(&cfg->nh6)) {
			if (cfg->action == SRV6_ACT_END_DX6)
				return 0; /* inner DA in the main table */
			srv6_seterr(err, errlen, "nh6 ::: End.X needs a next hop");
			return -EINVAL;
		}
		if (IN6_IS_ADDR_MULTICAST(&cfg->nh6)) {
			inet_ntop(AF_INET6, &cfg->nh6, a, sizeof(a));
			srv6_seterr(err, errlen, "nh6 %s: multicast next hop", a);
			return -EINVAL;
		}
		if (in6_is_ll(&cfg->nh6) && !cfg->oif) {
			inet_ntop(AF_INET6, &cfg->nh6, a, sizeof(a));
			srv6_seterr(err, errlen, "nh6 %s: link-local next hop needs oif", a);
			return -EINVAL;
		}
		key->kind = CTX_ADJ6;
		key->nh6 = cfg->nh6;
		return 1;
	case SRV6_ACT_END_DX4:
		if (cfg->nh4.s_addr == INADDR_ANY)
			return 0;
		key->kind = CTX_ADJ4;
		key->nh4 = cfg->nh4;
		return 1;
	case SRV6_ACT_END_T:
	case SRV6_ACT_END_DT6:
	case SRV6_ACT_END_DT4:
	case SRV6_ACT_END_DT46:
		key->oif = 0;
		key->kind = (cfg->action == SRV6_ACT_END_T || cfg->action == SRV6_ACT_END_DT6)
			? CTX_TBL6 : CTX_TBL46;
		key->table = has_vrf ? cfg->vrftable : cfg->table;
		if (!key->table) {
			srv6_seterr(err, errlen, "%s 0: invalid table", has_vrf ? "vrftable" : "table");
			return -EINVAL;
		}
		return 1;
	default:
		return 0;
	}
}

/* Whether a VRF device whose table is @table exists.  The kernel's
 * vrftable looks the inner packet up through that device (l3mdev); srv6d's
 * rule to table @table gives the same lookup only when the VRF exists. */
static bool vrf_table_exists(struct srv6_nhctx *n, uint32_t table)
{
	struct nl_cache *cache = NULL;
	struct nl_object *o;
	bool found = false;

	if (rtnl_link_alloc_cache(n->sk, AF_UNSPEC, &cache) < 0)
		return false;
	for (o = nl_cache_get_first(cache); o && !found; o = nl_cache_get_next(o)) {
		struct rtnl_link *l = (struct rtnl_link *)o;
		uint32_t t;

		if (rtnl_link_is_vrf(l) && rtnl_link_vrf_get_tableid(l, &t) == 0 && t == table)
			found = true;
	}
	nl_cache_free(cache);
	return found;
}

/* Whether -@e means "something this SID needs does not exist yet" (an
 * interface, a VRF, a route toward the next hop, a link that is up): the
 * SID waits (pending) instead of failing the start or the reload. */
static bool dep_missing(int e)
{
	switch (-e) {
	case ENODEV:
	case ENETDOWN:
	case ENETUNREACH:
	case EHOSTUNREACH:
	case EADDRNOTAVAIL:
	case ENOLINK:
	case ENXIO:
		return true;
	default:
		return false;
	}
}

/*
 * Resolve one SID: its interface, its VRF, its context (found or appended,
 * *@fresh then), the context installed unless this sync already did (@force:
 * installed again whatever this sync did).  0 with cfg->mark set and the
 * context in *@out (NULL: the SID needs none), or -errno with @err.  A fresh
 * context whose install failed is left appended (the caller drops or
 * reverts it).
 */
static int resolve_cfg(struct srv6_nhctx *n, struct srv6_sid_cfg *cfg, bool force,
		       struct ctx **out, bool *fresh, char *err, size_t errlen)
{
	struct ctx key, *c;
	int k, e;

	*fresh = false;
	*out = NULL;
	if ((cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_OIF)) || cfg->oif_name[0]) {
		unsigned int ifi = if_nametoindex(cfg->oif_name);

		if (!ifi) {
			srv6_seterr(err, errlen, "unknown interface \"%s\"", cfg->oif_name);
			return -ENODEV;
		}
		cfg->oif = (int)ifi;
	}
	if ((cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_VRFTABLE)) &&
	    !vrf_table_exists(n, cfg->vrftable)) {
		srv6_seterr(err, errlen, "vrftable %u: no VRF device uses table %u "
			    "(vrftable needs one; \"table %u\" works without)",
			    cfg->vrftable, cfg->vrftable, cfg->vrftable);
		return -ENODEV;
	}
	k = cfg_to_key(cfg, &key, err, errlen);
	if (k < 0)
		return k;
	if (k == 0) {
		cfg->mark = 0;
		return 0;
	}
	c = ctx_find(n, &key);
	if (!c) {
		c = ctx_add(n, &key);
		if (!c) {
			e = -errno;
			if (e == -ENOSPC)
				srv6_seterr(err, errlen, "too many next-hop contexts: "
					    "mark-mask 0x%x leaves room for %u", n->mark_mask,
					    n->max_idx);
			else
				srv6_seterr(err, errlen, "out of memory");
			return e;
		}
		*fresh = true;
	}
	/* Install new contexts; re-ensure existing ones once per sync
	 * (repairs routes flushed when their interface went down). */
	if (!c->wanted || force) {
		e = ctx_install(n, c, err, errlen);
		if (e < 0)
			return e;
		c->wanted = true;
	}
	cfg->mark = ctx_mark(n, c);
	*out = c;
	return 0;
}

/* The context resolve_cfg() just appended and failed to install: whatever
 * of it reached the kernel, and the context, go. */
static void drop_fresh(struct srv6_nhctx *n)
{
	(void)ctx_uninstall(n, &n->ctx[n->nctx - 1]);
	ctx_drop(n, n->nctx - 1);
}

/* @m says what the SID waits for (@e and @why), or nothing (@e 0). */
static void miss_note(struct srv6_nhctx_miss *m, int e, const char *why)
{
	m->err = e;
	if (m->why && e && !strcmp(m->why, why))
		return;
	free(m->why);
	m->why = e ? strdup(why) : NULL;
}

/* A SID that waits: its outcome in @m, no context (mark 0). */
static void miss_set(struct srv6_nhctx_miss *m, struct srv6_sid_cfg *cfg, int e, const char *why)
{
	miss_note(m, e, why);
	cfg->mark = 0;
}

int srv6_nhctx_sync(struct srv6_nhctx *n, struct srv6_sid_cfg **cfgs, size_t ncfgs,
		    struct srv6_nhctx_miss *miss, char *err, size_t errlen)
{
	size_t old = n->nctx, i;
	int e = 0;

	for (i = 0; i < old; i++)
		n->ctx[i].wanted = false;
	n->fam_ok[0] = n->fam_ok[1] = false;

	for (i = 0; i < ncfgs; i++) {
		char why[SRV6_NHCTX_WHY];
		struct ctx *c;
		bool fresh;

		if (miss)
			miss_note(&miss[i], 0, NULL);
		e = resolve_cfg(n, cfgs[i], false, &c, &fresh, why, sizeof(why));
		if (e == 0)
			continue;
		if (!miss || !dep_missing(e)) {
			srv6_seterr(err, errlen, "%s", why);
			goto out_revert;
		}
		/* Degraded: this SID waits for what it misses; a context
		 * appended for it goes again. */
		if (fresh)
			drop_fresh(n);
		miss_set(&miss[i], cfgs[i], e, why);
	}
	if (!n->committed_once) {
		/* The start-up config: running as soon as it is published,
		 * whether or not the caller calls gc afterwards. */
		for (i = 0; i < n->nctx; i++)
			n->ctx[i].committed = n->ctx[i].wanted;
		n->committed_once = true;
	}
	return 0;

out_revert:
	/* Contexts are only appended during a sync: those past @old are new
	 * and nothing published uses them, so they go now.  The others want
	 * what the running (committed) config wants, so that a gc after this
	 * failure keeps exactly that. */
	while (n->nctx > old) {
		ctx_uninstall(n, &n->ctx[n->nctx - 1]);
		ctx_drop(n, n->nctx - 1);
	}
	for (i = 0; i < old; i++)
		n->ctx[i].wanted = n->ctx[i].committed;
	(void)nhctx_family_prune(n);
	return e;
}

int srv6_nhctx_complete(struct srv6_nhctx *n, struct srv6_sid_cfg **cfgs, size_t ncfgs,
			struct srv6_nhctx_miss *miss)
{
	int done = 0;

	/* every family is checked again (a repair after a rule flush) */
	n->fam_ok[0] = n->fam_ok[1] = false;
	for (size_t i = 0; i < ncfgs; i++) {
		char why[SRV6_NHCTX_WHY];
		struct ctx *c;
		bool fresh;
		int e;

		if (!miss[i].err)
			continue;
		/* a context found again is installed again: its route went */
		e = resolve_cfg(n, cfgs[i], true, &c, &fresh, why, sizeof(why));
		if (e < 0) {
			if (fresh)
				drop_fresh(n);
			miss_set(&miss[i], cfgs[i], e, why);
			continue;
		}
		if (c)   /* running as soon as the caller publishes */
			c->wanted = c->committed = true;
		miss_note(&miss[i], 0, NULL);
		done++;
	}
	return done;
}

/* Adjacency tables that hold a route, as a bitmap of context indices. */
struct table_seen {
	const struct srv6_nhctx *n;
	uint64_t *bits;
};

static int seen_route(const struct srv6_rt *rt, void *arg)
{
	struct table_seen *t = arg;
	uint32_t tb = rt->table;

	if (tb > t->n->table_base && tb <= t->n->table_base + SRV6_NHCTX_MAX) {
		uint32_t idx = tb - t->n->table_base;

		t->bits[idx / 64] |= 1ull << (idx % 64);
	}
	return 0;
}

/* Whether @c has an adjacency route of a family @v6 / @v4 asks for. */
static bool verify_wants(const struct ctx *c, bool v6, bool v4)
{
	return (c->kind == CTX_ADJ6 && v6) || (c->kind == CTX_ADJ4 && v4);
}

int srv6_nhctx_verify(struct srv6_nhctx *n, bool v6, bool v4, struct srv6_sid_cfg **cfgs,
		      size_t ncfgs, struct srv6_nhctx_miss *miss)
{
	struct table_seen t = { .n = n };
	bool fam[2] = { false, false };   /* [0] IPv6, [1] IPv4: some context to check */
	int lost = 0, e;
	size_t k;

	for (k = 0; k < n->nctx; k++)
		if (verify_wants(&n->ctx[k], v6, v4))
			fam[n->ctx[k].kind == CTX_ADJ4] = true;
	if (!fam[0] && !fam[1])
		return 0;   /* no adjacency route to lose: no dump */
	t.bits = calloc(sizeof(n->used) / sizeof(n->used[0]), sizeof(uint64_t));
	if (!t.bits)
		return -ENOMEM;
	for (int i = 0; i < 2; i++) {
		if (!fam[i])
			continue;
		e = srv6_rt_dump(i ? AF_INET : AF_INET6, seen_route, &t);
		if (e < 0) {
			free(t.bits);
			return e;
		}
	}
	for (k = 0; k < n->nctx; k++) {
		const struct ctx *c = &n->ctx[k];
		char why[SRV6_NHCTX_WHY], what[96];

		if (!verify_wants(c, v6, v4) || (t.bits[c->idx / 64] >> (c->idx % 64) & 1))
			continue;
		/* Gone (its interface went down or away): back at once if
		 * the kernel takes it again (a flap already over), else its
		 * SIDs wait. */
		e = adj_route_ensure(n, c);
		if (e == 0)
			continue;
		ctx_describe(c, what, sizeof(what));
		snprintf(why, sizeof(why), "%s: adjacency route in table %u gone: %s", what,
			 c->table, strerror(-e));
		for (size_t i = 0; i < ncfgs; i++) {
			if (miss[i].err || cfgs[i]->mark != ctx_mark(n, c))
				continue;
			miss_note(&miss[i], e, why);
			lost++;
		}
	}
	free(t.bits);
	return lost;
}

/* Keep the contexts @keep says (gc: wanted by the new config, which become
 * committed; abort: committed by the running one, which become wanted again),
 * uninstall the rest, then prune the families nobody needs.  Returns how
 * many went, or the first error after trying all. */
static int ctx_settle(struct srv6_nhctx *n, bool commit)
{
	int removed = 0, ret = 0, e;
	size_t i = 0;

	while (i < n->nctx) {
		struct ctx *c = &n->ctx[i];

		if (commit ? c->wanted : c->committed) {
			if (commit)
				c->committed = true;
			else
				c->wanted = true;
			i++;
			continue;
		}
		e = ctx_uninstall(n, c);
		if (e < 0 && !ret)
			ret = e;
		ctx_drop(n, i);
		removed++;
	}
	e = nhctx_family_prune(n);
	if (e < 0 && !ret)
		ret = e;
	return ret < 0 ? ret : removed;
}

int srv6_nhctx_gc(struct srv6_nhctx *n)
{
	n->committed_once = true;
	return ctx_settle(n, true);
}

int srv6_nhctx_abort(struct srv6_nhctx *n)
{
	return ctx_settle(n, false);
}

size_t srv6_nhctx_count(const struct srv6_nhctx *n)
{
	return n->nctx;
}

void srv6_nhctx_close(struct srv6_nhctx *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nctx; i++)
		ctx_uninstall(n, &n->ctx[i]);
	/* Then everything else in our range, including the blackholes. */
	sweep_all(n);
	nl_socket_free(n->sk);
	free(n->ctx);
	free(n);
}
