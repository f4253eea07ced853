// SPDX-License-Identifier: GPL-2.0-or-later
/* fallback.c - blackhole routes behind fail-open: include/srv6d/fallback.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <linux/rtnetlink.h>

#include <netlink/netlink.h>
#include <netlink/route/route.h>

#include <netlink/route/nexthop.h>

#include "srv6d/errbuf.h"
#include "srv6d/fallback.h"
#include "srv6d/instance.h"
#include "srv6d/log.h"
#include "srv6d/nhctx.h"
#include "srv6d/rtdump.h"
#include "srv6d/steer.h"

/* The rule-pref of a srv6d from before the default became
 * SRV6_NHCTX_RULE_PRIO: its blackholes are at SRV6_FALLBACK_METRIC + this. */
#define OLD_DEFAULT_PREF 1000u

struct fb_ctx {
	struct nl_sock *sk;
	const struct srv6_conf *c;
	enum {
		OLD_UNTESTED,       /* in this dump */
		OLD_FREE,           /* no srv6d of OLD_DEFAULT_PREF runs */
		OLD_HELD,           /* one runs */
		OLD_UNKNOWN,        /* its lock cannot be read (held_err) */
	} old;
	int held_err;               /* -errno of the last OLD_UNKNOWN */
	unsigned int old_kept;      /* blackholes at its metric left, OLD_FREE */
	unsigned int old_unknown;   /* blackholes at its metric left, OLD_UNKNOWN */
	int err;
};

/* What srv6_fallback_sync() last said of the blackholes at the old metric,
 * so that a retry, a reload or a srv6ctl change that finds the same says
 * nothing again.  The control thread's (fallback.h: only it syncs). */
static struct {
	unsigned int old_kept;
	unsigned int old_unknown;
	int held_err;
} fb_said;

/* Whether @c wants the blackhole @family @addr/@plen. */
static bool wanted(const struct srv6_conf *c, int family, const void *addr, unsigned int plen)
{
	if (!c->fail_open)
		return false;
	for (size_t i = 0; family == AF_INET6 && i < c->nsids; i++)
		if (c->sids[i].plen == plen && !memcmp(&c->sids[i].prefix, addr, 16))
			return true;
	for (size_t i = 0; i < c->nroutes; i++) {
		const struct srv6_conf_route *r = &c->routes[i];

		if (r->family == family && r->plen == plen &&
		    !memcmp(&r->prefix, addr, family == AF_INET6 ? 16 : 4))
			return true;
	}
	return false;
}

/* Whether a default instance takes over @rt, a blackhole at the metric of
 * a srv6d from before the default rule-pref moved from 1000 to 40000.  The
 * metric is also that of a current instance configured with rule-pref 1000,
 * whose blackholes are its fail-open state whether it runs or died (its
 * stale chain still bypasses its SIDs to them): only one for a prefix @x->c
 * protects itself (its own blackhole, added before the sweep, replaces it),
 * and only while no srv6d of rule-pref 1000 runs (its lock, tested during
 * the dump: such a srv6d locks before it adds any; a lock that cannot be
 * read counts as one running).  Any other is left. */
static bool take_over_old(struct fb_ctx *x, const struct srv6_rt *rt)
{
	if (x->old == OLD_UNTESTED) {
		int h = srv6_instance_pref_held(OLD_DEFAULT_PREF);

		x->old = h == 0 ? OLD_FREE : h > 0 ? OLD_HELD : OLD_UNKNOWN;
		if (h < 0)
			x->held_err = h;
	}
	if (x->old == OLD_UNKNOWN)   /* left as if one ran, and said (said_old) */
		x->old_unknown++;
	if (x->old != OLD_FREE)
		return false;
	if (wanted(x->c, rt->family, rt->dst, rt->dst_len))
		return true;
	x->old_kept++;
	return false;
}

/* A route srv6d's fallback left that @x->c no longer wants (plain
 * rtnetlink, rtdump.h: libnl's route cache fails a whole dump holding a
 * route it cannot parse, a kernel seg6local route, and the stale blackholes
 * stayed). */
static int sweep_one(const struct srv6_rt *rt, void *arg)
{
	struct fb_ctx *x = arg;

	if (rt->protocol != SRV6_FALLBACK_PROTO || rt->table != RT_TABLE_MAIN)
		return 0;
	if (x->c->rule_pref == SRV6_NHCTX_RULE_PRIO && rt->type == RTN_BLACKHOLE &&
	    rt->priority == SRV6_FALLBACK_METRIC + OLD_DEFAULT_PREF)
		return take_over_old(x, rt);
	if (rt->priority != SRV6_FALLBACK_METRIC + x->c->rule_pref)
		return 0;
	return !(rt->type == RTN_BLACKHOLE && wanted(x->c, rt->family, rt->dst, rt->dst_len));
}

static int add_one(struct nl_sock *sk, uint32_t metric, int family, const void *addr,
		   unsigned int plen)
{
	struct rtnl_route *rt = rtnl_route_alloc();
	struct nl_addr *dst = nl_addr_build(family, addr, family == AF_INET6 ? 16 : 4);
	int e = -ENOMEM;

	if (!rt || !dst)
		goto out;
	nl_addr_set_prefixlen(dst, (int)plen);
	rtnl_route_set_family(rt, (uint8_t)family);
	rtnl_route_set_table(rt, RT_TABLE_MAIN);
	rtnl_route_set_type(rt, RTN_BLACKHOLE);
	rtnl_route_set_protocol(rt, SRV6_FALLBACK_PROTO);
	rtnl_route_set_scope(rt, RT_SCOPE_UNIVERSE);
	rtnl_route_set_priority(rt, metric);
	if (rtnl_route_set_dst(rt, dst) < 0)
		goto out;
	e = rtnl_route_add(sk, rt, NLM_F_CREATE | NLM_F_REPLACE);
	e = e < 0 ? -EIO : 0;
out:
	nl_addr_put(dst);
	rtnl_route_put(rt);
	return e;
}

/* SRV6_STEER_STATE_DIR/instances.NETNS, the lock file of instance.h, into
 * @buf (its directory alone when the namespace cannot be named). */
static void lock_name(char *buf, size_t len)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st) == 0)
		snprintf(buf, len, "%s/instances.%lu", SRV6_STEER_STATE_DIR,
			 (unsigned long)st.st_ino);
	else
		snprintf(buf, len, "%s", SRV6_STEER_STATE_DIR);
}

/* Say what a complete sweep @x left at the old metric, when it differs
 * from what was said last (fb_said). */
static void said_old(const struct fb_ctx *x)
{
	uint32_t om = SRV6_FALLBACK_METRIC + OLD_DEFAULT_PREF;
	char path[128];

	if (x->old_kept && x->old_kept != fb_said.old_kept)
		srv6_log(LOG_NOTICE, "fail-open: %u blackholes at metric %u left, of prefixes "
			 "this srv6d does not protect: a stopped rule-pref %u srv6d's fail-open "
			 "state, or stale ones of a srv6d from before rule-pref %u (ip -6 / "
			 "ip -4 route flush proto %u metric %u removes them)", x->old_kept, om,
			 OLD_DEFAULT_PREF, SRV6_NHCTX_RULE_PRIO, SRV6_FALLBACK_PROTO, om);
	if (x->old_unknown && (x->old_unknown != fb_said.old_unknown ||
			       x->held_err != fb_said.held_err)) {
		lock_name(path, sizeof(path));
		srv6_log(LOG_WARNING, "fail-open: %u blackholes at metric %u left: whether a "
			 "rule-pref %u srv6d runs is unknown (its lock file %s: %s)",
			 x->old_unknown, om, OLD_DEFAULT_PREF, path, strerror(-x->held_err));
	}
	fb_said.old_kept = x->old_kept;
	fb_said.old_unknown = x->old_unknown;
	fb_said.held_err = x->held_err;
}

int srv6_fallback_sync(const struct srv6_conf *c, char *err, size_t errlen)
{
	static const int families[] = { AF_INET6, AF_INET };
	struct fb_ctx x = { .c = c };
	uint32_t metric = SRV6_FALLBACK_METRIC + c->rule_pref;
	int e;

	x.sk = nl_socket_alloc();
	if (!x.sk) {
		srv6_seterr(err, errlen, "fail-open fallback routes: out of memory");
		return -ENOMEM;
	}
	e = nl_connect(x.sk, NETLINK_ROUTE);
	if (e < 0) {
		srv6_seterr(err, errlen, "fail-open fallback routes: rtnetlink: %s", nl_geterror(e));
		e = -EIO;
		goto out_sock;
	}
	for (size_t i = 0; c->fail_open && i < c->nsids + c->nroutes; i++) {
		const struct srv6_conf_route *r = i < c->nsids ? NULL : &c->routes[i - c->nsids];

		e = r ? add_one(x.sk, metric, r->family, &r->prefix, r->plen)
		      : add_one(x.sk, metric, AF_INET6, &c->sids[i].prefix, c->sids[i].plen);
		if (e < 0) {
			char w[16];

			srv6_seterr(err, errlen, "fail-open fallback routes: cannot add a blackhole "
				    "route (%s)", r ? srv6_origin_where(NULL, r->origin, r->line, w, sizeof(w))
						    : srv6_origin_where(NULL, c->sids[i].origin, c->sids[i].line, w,
							       sizeof(w)));
			goto out_sock;
		}
	}
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		x.old = OLD_UNTESTED;   /* tested again in each dump */
		e = srv6_rt_sweep(families[i], sweep_one, &x);
		if (e < 0 && !x.err)
			x.err = e;
	}
	if (!x.err)   /* complete counts only */
		said_old(&x);
	e = x.err;
	if (e < 0)
		srv6_seterr(err, errlen, "fail-open fallback routes: cannot remove a stale one: %s",
			    strerror(-e));
out_sock:
	nl_socket_free(x.sk);
	return e;
}

/* ---- the policies' own routes ---- */

struct pr_ctx {
	struct nl_sock *sk;
	const struct srv6_conf *c;
	int ifindex;
	uint8_t *state;             /* per route line: PR_* bits */
	uint32_t *shadow;           /* per route line: the best foreign metric */
	size_t *order;              /* route lines sorted by prefix (pr_index) */
	int err;
};

enum {
	PR_OURS = 1,                /* srv6d's route is there already */
	PR_TAKEN = 2,               /* a foreign route holds the prefix and metric */
	PR_SHADOWED = 4,            /* a foreign route of the prefix, better metric */
};

/* Order of prefixes: family, length, address. */
static int key_cmp(int fa, unsigned int pa, const void *a, int fb, unsigned int pb, const void *b)
{
	if (fa != fb)
		return fa < fb ? -1 : 1;
	if (pa != pb)
		return pa < pb ? -1 : 1;
	return memcmp(a, b, fa == AF_INET6 ? 16 : 4);
}

static int order_cmp(const void *a, const void *b, void *arg)
{
	const struct srv6_conf_route *r = arg;
	const struct srv6_conf_route *x = &r[*(const size_t *)a], *y = &r[*(const size_t *)b];

	return key_cmp(x->family, x->plen, &x->prefix, y->family, y->plen, &y->prefix);
}

/* @x->order: the route lines sorted by prefix, so that each route of a
 * dump (a full BGP table: a million) costs a binary search, not a pass
 * over every policy.  0 or -ENOMEM. */
static int pr_index(struct pr_ctx *x)
{
	size_t n = x->c->nroutes;

	x->order = malloc((n + 1) * sizeof(*x->order));
	if (!x->order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		x->order[i] = i;
	qsort_r(x->order, n, sizeof(*x->order), order_cmp, x->c->routes);
	return 0;
}

/* The first position in @x->order of a route line with @rt's prefix, or
 * nroutes: those that follow with the same prefix differ by metric.
 * @x->order is there whenever there are route lines (pr_read). */
static size_t pr_first(const struct pr_ctx *x, const struct srv6_rt *rt)
{
	size_t lo = 0, hi = x->c->nroutes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct srv6_conf_route *r = &x->c->routes[x->order[mid]];

		if (key_cmp(r->family, r->plen, &r->prefix, rt->family, rt->dst_len, rt->dst) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool same_prefix(const struct srv6_conf_route *r, const struct srv6_rt *rt)
{
	return r->family == rt->family && r->plen == rt->dst_len &&
	       !memcmp(&r->prefix, rt->dst, r->family == AF_INET6 ? 16 : 4);
}

static bool rt_ours(const struct pr_ctx *x, const struct srv6_rt *rt)
{
	return rt->protocol == SRV6_FALLBACK_PROTO && rt->type == RTN_UNICAST &&
	       (int)rt->oif == x->ifindex;
}

/* A policy route srv6d left through its device that @x->c no longer
 * wants (prefix and metric). */
static int sweep_policy(const struct srv6_rt *rt, void *arg)
{
	const struct pr_ctx *x = arg;

	if (rt->table != RT_TABLE_MAIN || !rt_ours(x, rt))
		return 0;
	for (size_t p = pr_first(x, rt); p < x->c->nroutes; p++) {
		const struct srv6_conf_route *r = &x->c->routes[x->order[p]];

		if (!same_prefix(r, rt))
			break;
		if (srv6_route_metric(r) == rt->priority)
			return 0;
	}
	return 1;
}

/* What the main table holds for each policy's prefix (@x->state). */
static int survey(const struct srv6_rt *rt, void *arg)
{
	struct pr_ctx *x = arg;

	if (rt->table != RT_TABLE_MAIN)
		return 0;
	for (size_t p = pr_first(x, rt); p < x->c->nroutes; p++) {
		size_t i = x->order[p];
		const struct srv6_conf_route *r = &x->c->routes[i];
		uint32_t m = srv6_route_metric(r);

		if (!same_prefix(r, rt))
			break;
		if (rt_ours(x, rt)) {
			if (rt->priority == m)
				x->state[i] |= PR_OURS;
		} else if (rt->priority == m) {
			x->state[i] |= PR_TAKEN;
		} else if (rt->priority < m && rt->type != RTN_BLACKHOLE) {
			if (!(x->state[i] & PR_SHADOWED) || rt->priority < x->shadow[i])
				x->shadow[i] = rt->priority;
			x->state[i] |= PR_SHADOWED;
		}
	}
	return 0;
}

static int add_policy(struct nl_sock *sk, int ifindex, const struct srv6_conf_route *r)
{
	struct rtnl_route *rt = rtnl_route_alloc();
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	struct nl_addr *dst = nl_addr_build(r->family, &r->prefix, r->family == AF_INET6 ? 16 : 4);
	int e = -ENOMEM;

	if (!rt || !dst || !nh)
		goto out;
	nl_addr_set_prefixlen(dst, (int)r->plen);
	rtnl_route_set_family(rt, (uint8_t)r->family);
	rtnl_route_set_table(rt, RT_TABLE_MAIN);
	rtnl_route_set_type(rt, RTN_UNICAST);
	rtnl_route_set_protocol(rt, SRV6_FALLBACK_PROTO);
	rtnl_route_set_scope(rt, RT_SCOPE_LINK);
	rtnl_route_set_priority(rt, srv6_route_metric(r));
	if (rtnl_route_set_dst(rt, dst) < 0)
		goto out;
	rtnl_route_nh_set_ifindex(nh, ifindex);
	rtnl_route_add_nexthop(rt, nh);
	nh = NULL;   /* the route's now */
	/* Exclusive: the survey found no route of this prefix and metric;
	 * one appearing meanwhile is not taken over (nor joined, as IPv4
	 * would add a second route of the same prefix and metric). */
	e = rtnl_route_add(sk, rt, NLM_F_CREATE | NLM_F_EXCL);
	e = e < 0 ? (-e == NLE_EXIST ? -EEXIST : -EIO) : 0;
out:
	if (nh)
		rtnl_route_nh_free(nh);
	nl_addr_put(dst);
	rtnl_route_put(rt);
	return e;
}

/* @x->sk: a connected rtnetlink socket (pr_free() does not free it: the
 * caller's nl_socket_free()).  0, or -errno with @err set. */
static int pr_socket(struct pr_ctx *x, char *err, size_t errlen)
{
	int e;

	x->sk = nl_socket_alloc();
	if (!x->sk) {
		srv6_seterr(err, errlen, "policy routes: out of memory");
		return -ENOMEM;
	}
	e = nl_connect(x->sk, NETLINK_ROUTE);
	if (e < 0) {
		srv6_seterr(err, errlen, "policy routes: rtnetlink: %s", nl_geterror(e));
		return -EIO;
	}
	return 0;
}

static void pr_free(struct pr_ctx *x)
{
	free(x->order);
	free(x->shadow);
	free(x->state);
}

/* Read what the main table holds for @x->c's policy prefixes into @x
 * (x->state, x->shadow: pr_free() them).  0, or -errno with @err set when
 * the table cannot be read. */
static int pr_read(struct pr_ctx *x, char *err, size_t errlen)
{
	static const int families[] = { AF_INET6, AF_INET };
	const struct srv6_conf *c = x->c;
	int e;

	x->state = calloc(c->nroutes + 1, sizeof(*x->state));
	x->shadow = calloc(c->nroutes + 1, sizeof(*x->shadow));
	if (!x->state || !x->shadow || pr_index(x) < 0) {
		srv6_seterr(err, errlen, "policy routes: out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		e = srv6_rt_dump(families[i], survey, x);
		if (e < 0) {
			srv6_seterr(err, errlen, "policy routes: cannot read the main table: %s",
				    strerror(-e));
			return e;
		}
	}
	return 0;
}

/* pr_read(), and refuse a conflict: -EEXIST with @err naming the line when
 * a foreign route holds a policy's prefix and metric. */
static int pr_survey(struct pr_ctx *x, char *err, size_t errlen)
{
	const struct srv6_conf *c = x->c;
	char pb[INET6_ADDRSTRLEN], w[16];
	int e;

	e = pr_read(x, err, errlen);
	if (e < 0)
		return e;
	for (size_t i = 0; i < c->nroutes; i++) {
		const struct srv6_conf_route *r = &c->routes[i];

		if (!(x->state[i] & PR_TAKEN))
			continue;
		inet_ntop(r->family, &r->prefix, pb, sizeof(pb));
		srv6_seterr(err, errlen, "%s: route %s/%u: the main table already has "
			    "a route for %s/%u at metric %u (not srv6d's): give the policy "
			    "another \"metric\"", srv6_origin_where(NULL, r->origin, r->line, w, sizeof(w)),
			    pb, r->plen, pb, r->plen, srv6_route_metric(r));
		return -EEXIST;
	}
	return 0;
}

int srv6_polroute_check(const struct srv6_conf *c, int ifindex, char *err, size_t errlen)
{
	struct pr_ctx x = { .c = c, .ifindex = ifindex };
	int e;

	if (!c->nroutes)
		return 0;
	e = pr_survey(&x, err, errlen);
	pr_free(&x);
	return e;
}

/* A shadowed policy as srv6_polroute_sync() warned of it: its prefix, its
 * metric and the better one of the route that wins. */
struct pr_shadow {
	int family;
	unsigned int plen;
	unsigned char addr[16];
	uint32_t metric;
	uint32_t shadow;
};

/* The shadowed policies srv6_polroute_sync() last warned of, sorted
 * (shadow_cmp): one still shadowed at the same metrics is not said again by
 * a retry, a reload or a srv6ctl change.  The control thread's (fallback.h:
 * only it syncs). */
static struct {
	struct pr_shadow *v;
	size_t n;
} pr_said;

static int shadow_cmp(const void *a, const void *b)
{
	const struct pr_shadow *x = a, *y = b;
	int k = key_cmp(x->family, x->plen, x->addr, y->family, y->plen, y->addr);

	if (k)
		return k;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	if (x->shadow != y->shadow)
		return x->shadow < y->shadow ? -1 : 1;
	return 0;
}

/* Warn of each policy @x->state says a better route of its prefix
 * shadows, unless it was said last time (pr_said, replaced by this set).
 * Short of memory, every one is said and pr_said is kept. */
static void say_shadowed(const struct pr_ctx *x)
{
	const struct srv6_conf *c = x->c;
	struct pr_shadow *v = NULL;
	char pb[INET6_ADDRSTRLEN], w[16];
	size_t want = 0, n = 0;

	for (size_t i = 0; i < c->nroutes; i++)
		want += !!(x->state[i] & PR_SHADOWED);
	if (want)
		v = calloc(want, sizeof(*v));
	for (size_t i = 0; i < c->nroutes; i++) {
		const struct srv6_conf_route *r = &c->routes[i];
		struct pr_shadow k = { .family = r->family, .plen = r->plen,
				       .metric = srv6_route_metric(r), .shadow = x->shadow[i] };

		if (!(x->state[i] & PR_SHADOWED))
			continue;
		memcpy(k.addr, &r->prefix, r->family == AF_INET6 ? 16 : 4);
		if (v)
			v[n++] = k;
		if (pr_said.n && bsearch(&k, pr_said.v, pr_said.n, sizeof(k), shadow_cmp))
			continue;
		inet_ntop(r->family, &r->prefix, pb, sizeof(pb));
		srv6_log(LOG_WARNING, "%s: route %s/%u: a route of the same prefix at "
			 "the better metric %u wins over the policy's (%u): it carries "
			 "nothing while that route exists",
			 srv6_origin_where(NULL, r->origin, r->line, w, sizeof(w)), pb, r->plen,
			 x->shadow[i], k.metric);
	}
	if (want && !v)
		return;
	if (n)
		qsort(v, n, sizeof(*v), shadow_cmp);
	free(pr_said.v);
	pr_said.v = v;
	pr_said.n = n;
}

int srv6_polroute_sync(const struct srv6_conf *c, int ifindex, char *err, size_t errlen)
{
	static const int families[] = { AF_INET6, AF_INET };
	struct pr_ctx x = { .c = c, .ifindex = ifindex };
	char pb[INET6_ADDRSTRLEN], w[16];
	int e = 0;

	if (ifindex <= 0)
		return c->nroutes ? -ENODEV : 0;
	e = pr_socket(&x, err, errlen);
	if (e < 0)
		goto out_free;
	/* A conflict refuses the whole set before anything changes. */
	e = c->nroutes ? pr_survey(&x, err, errlen) : 0;
	if (e < 0)
		goto out_free;
	say_shadowed(&x);
	/* Then every policy's route, and the stale ones go, whatever failed
	 * in between (the first failure is the one reported). */
	for (size_t i = 0; i < c->nroutes; i++) {
		const struct srv6_conf_route *r = &c->routes[i];
		int a;

		if (x.state[i] & PR_OURS)
			continue;
		a = add_policy(x.sk, ifindex, r);
		if (a < 0 && !x.err) {
			inet_ntop(r->family, &r->prefix, pb, sizeof(pb));
			srv6_seterr(err, errlen, "%s: route %s/%u: cannot add its route "
				    "(metric %u): %s", srv6_origin_where(NULL, r->origin, r->line, w, sizeof(w)),
				    pb, r->plen, srv6_route_metric(r), strerror(-a));
			x.err = a;
		}
	}
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		e = srv6_rt_sweep(families[i], sweep_policy, &x);
		if (e < 0 && !x.err) {
			srv6_seterr(err, errlen, "policy routes: cannot remove a stale one: %s",
				    strerror(-e));
			x.err = e;
		}
	}
	e = x.err;
out_free:
	if (x.sk)
		nl_socket_free(x.sk);
	pr_free(&x);
	return e;
}

int srv6_polroute_restore(const struct srv6_conf *c, int ifindex, srv6_polroute_fn fn, void *arg,
			  char *err, size_t errlen)
{
	struct pr_ctx x = { .c = c, .ifindex = ifindex };
	int e, n = 0;

	if (!c->nroutes)
		return 0;
	if (ifindex <= 0) {
		srv6_seterr(err, errlen, "policy routes: srv6d's device is gone");
		return -ENODEV;
	}
	e = pr_read(&x, err, errlen);
	if (e < 0)
		goto out_free;
	for (size_t i = 0; i < c->nroutes; i++) {
		const struct srv6_conf_route *r = &c->routes[i];
		int a;

		if (x.state[i] & PR_OURS)
			continue;
		if (x.state[i] & PR_TAKEN) {   /* never taken over, never removed */
			fn(r, -EEXIST, arg);
			continue;
		}
		/* a socket only when something is missing: a look that finds
		 * everything in place reads the table and nothing else */
		if (!x.sk) {
			e = pr_socket(&x, err, errlen);
			if (e < 0)
				goto out_free;
		}
		a = add_policy(x.sk, ifindex, r);   /* exclusive: one appearing meanwhile is a conflict */
		fn(r, a, arg);
		if (a == 0)
			n++;
	}
	e = n;
out_free:
	if (x.sk)
		nl_socket_free(x.sk);
	pr_free(&x);
	return e;
}
