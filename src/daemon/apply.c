// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * apply.c - the configuration's way into the running daemon: resolve
 * (next-hop contexts, sources, pending), publish (RCU tables), apply the
 * kernel side (fail-open blackholes, steering rules, policy routes) and
 * reload.  Control thread only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <signal.h>

#include <linux/netfilter.h>
#include <urcu/urcu-qsbr.h>

#include "srv6d/hmac_conf.h"
#include "srv6d/ctlsock.h"
#include "srv6d/errbuf.h"
#include "srv6d/icmp_tx.h"
#include "srv6d/preflight.h"
#include "srv6d/fallback.h"
#include "srv6d/worker.h"

#include "daemon/daemon.h"

/* The chain srv6d's steering lives in. */
const char *daemon_steer_chain(const struct daemon *d)
{
	return d->conf.steer_chain;
}

bool mode_encaps(enum srv6_encap_mode m)
{
	return m != SRV6_MODE_INLINE;
}

void addr_str(int family, const void *a, uint8_t plen, bool host, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(family, a, s, sizeof(s));
	if ((family == AF_INET6 && plen == 128 && host) || (family == AF_INET && plen == 32 && host))
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "%s/%u", s, plen);
}

/* Words the parse ignored (ip's route-level metric, proto, pref): the first
 * one with its line, and how many lines had one.  @f: NULL logs. */
void conf_warnings(const struct srv6_conf *c, FILE *f)
{
	char more[64] = "";

	if (!c->nwarnings)
		return;
	if (c->nwarnings > 1)
		snprintf(more, sizeof(more), " (and %u more lines)", c->nwarnings - 1);
	if (f)
		fprintf(f, "%s%s\n", c->warning, more);
	else
		srv6_log(LOG_WARNING, "%s%s", c->warning, more);
}

/*
 * Results the NFQUEUE verdict of an IPv6 hook cannot carry (an IPv4 packet,
 * an Ethernet frame) need the injection egress.  When srv6d could not create
 * its device, such packets are dropped and counted ("unsupported"): say so
 * once per line, at start and reload, and once for each entry an FPM batch,
 * the kernel mirror or srv6ctl adds.
 */
static void warn_line(const struct daemon *d, unsigned int origin, unsigned int line,
		      const char *entry, const char *what)
{
	char where[PATH_MAX + 16];
	bool conf_line = origin == SRV6_ORIGIN_CONF && line;

	/* a conf line is named by its place; the others by origin and entry */
	srv6_log(LOG_WARNING, "%s: %s%s%s needs the injection egress, which is not available: "
		 "such packets are dropped and counted as \"unsupported\"",
		 srv6_origin_where(d->conf_path, origin, line, where, sizeof(where)),
		 conf_line ? "" : entry, conf_line ? "" : " ", what);
}

static int conf_key_cmp(const void *a, const void *b)
{
	const struct conf_key *x = a, *y = b;

	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	if (x->plen != y->plen)
		return x->plen < y->plen ? -1 : 1;
	return memcmp(x->addr, y->addr, 16);
}

struct conf_key *conf_index(const struct srv6_conf *c, bool policy, size_t *n)
{
	size_t m = policy ? c->nroutes : c->nsids;
	struct conf_key *v = m ? calloc(m, sizeof(*v)) : NULL;

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < m; i++) {
		if (policy) {
			const struct srv6_conf_route *r = &c->routes[i];

			v[i].family = (uint8_t)r->family;
			v[i].plen = r->plen;
			memcpy(v[i].addr, &r->prefix, r->family == AF_INET6 ? 16 : 4);
		} else {
			v[i].family = AF_INET6;
			v[i].plen = c->sids[i].plen;
			memcpy(v[i].addr, &c->sids[i].prefix, 16);
		}
		v[i].idx = i;
	}
	qsort(v, m, sizeof(*v), conf_key_cmp);
	*n = m;
	return v;
}

long conf_index_find(const struct conf_key *v, size_t n, int family, const void *addr,
		     uint8_t plen)
{
	struct conf_key k = { .family = (uint8_t)family, .plen = plen };
	const struct conf_key *f;

	memcpy(k.addr, addr, family == AF_INET6 ? 16 : 4);
	f = v ? bsearch(&k, v, n, sizeof(*v), conf_key_cmp) : NULL;
	return f ? (long)f->idx : -1;
}

/*
 * Say it for each line of @c that needs the missing device; with @old
 * (the running conf, for an FPM batch or srv6ctl) only for the entries it
 * did not have, so a batch from zebra does not repeat what was said.  On
 * no memory for that index everything is said again.
 */
static void warn_unsupported(const struct daemon *d, const struct srv6_conf *c,
			     const struct srv6_conf *old)
{
	struct conf_key *os = NULL, *orr = NULL;
	char entry[INET6_ADDRSTRLEN + 48], a[INET6_ADDRSTRLEN];
	size_t nos = 0, norr = 0;

	if (d->injdev.ifindex)
		return;
	if (old) {
		os = conf_index(old, false, &nos);
		orr = conf_index(old, true, &norr);
		if ((!os && old->nsids) || (!orr && old->nroutes))
			nos = norr = 0;        /* no memory: everything said again */
	}
	for (size_t i = 0; i < c->nsids; i++) {
		const struct srv6_conf_sid *s = &c->sids[i];
		enum srv6_action act = s->cfg.action;
		const char *what = act == SRV6_ACT_END_DX4 ? "End.DX4 (IPv4 results)" :
				   act == SRV6_ACT_END_DT4 ? "End.DT4 (IPv4 results)" :
				   act == SRV6_ACT_END_DT46 ? "End.DT46 with an IPv4 inner packet" :
				   act == SRV6_ACT_END_DX2 ? "End.DX2 (Ethernet frames)" : NULL;
		long o = conf_index_find(os, nos, AF_INET6, &s->prefix, s->plen);

		if (!what || (o >= 0 && old->sids[o].cfg.action == act))
			continue;
		inet_ntop(AF_INET6, &s->prefix, a, sizeof(a));
		snprintf(entry, sizeof(entry), "sid %s/%u", a, s->plen);
		warn_line(d, s->origin, s->line, entry, what);
	}
	for (size_t i = 0; i < c->nroutes; i++) {
		const struct srv6_conf_route *r = &c->routes[i];

		if (r->family != AF_INET || conf_index_find(orr, norr, AF_INET, &r->prefix, r->plen) >= 0)
			continue;
		inet_ntop(AF_INET, &r->prefix.v4, a, sizeof(a));
		snprintf(entry, sizeof(entry), "route %s/%u", a, r->plen);
		warn_line(d, r->origin, r->line, entry, "an IPv4 policy");
	}
	free(os);
	free(orr);
}

/* The outer source of an encapsulating SID or policy: encap-source when the
 * conf sets it, else the kernel's source address selection toward the first
 * segment.  0 with @why "", or -errno with what is missing in @why (the
 * entry waits for it). */
int fill_encap_src(const struct srv6_conf *c, const struct srv6_saddr_env *env,
		   bool encaps, const struct in6_addr *segs, const char *dev,
		   struct in6_addr *src, char *why, size_t whylen)
{
	char a[INET6_ADDRSTRLEN];
	int r, oif = 0;

	why[0] = '\0';
	if (c->has_encap_src) {
		*src = c->encap_src;
		return 0;
	}
	if (!encaps)
		return 0;
	if (dev[0]) {
		oif = (int)if_nametoindex(dev);
		if (!oif) {
			snprintf(why, whylen, "dev \"%s\": unknown interface", dev);
			return -ENODEV;
		}
	}
	/* tunsrc, else the kernel's selection on dev (or the route's device) */
	r = srv6_saddr_from_env(env, &segs[0], oif, src);
	if (r < 0) {
		inet_ntop(AF_INET6, &segs[0], a, sizeof(a));
		snprintf(why, whylen, "no source address toward %s: %s (set encap-source)", a,
			 strerror(-r));
	}
	return r;
}

/* The SID cfgs of @c as an array of pointers (nhctx's interface); NULL with
 * "out of memory" in @err on failure (an empty conf gets a 1-element array). */
struct srv6_sid_cfg **sid_cfgs(struct srv6_conf *c, char *err, size_t errlen)
{
	struct srv6_sid_cfg **cfgs = calloc(c->nsids + 1, sizeof(*cfgs));

	if (!cfgs) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < c->nsids; i++)
		cfgs[i] = &c->sids[i].cfg;
	return cfgs;
}

/*
 * Fill the datapath fields of @c (encap source, flow label mode); resolve
 * next-hop contexts through @nh.  Degraded: a SID or policy whose
 * interface, next-hop route, VRF or outer source is missing is recorded in
 * @pend (srv6_pending_update() then marks it) instead of failing.  0 or
 * -errno with one line in @err (conf errors such as a link-local next hop
 * without oif, out of memory, a rule the kernel refuses).
 */
/* Whether @p/@plen holds @a. */
static bool pfx6_holds(const struct in6_addr *p, uint8_t plen, const struct in6_addr *a)
{
	for (unsigned int i = 0; i < plen; i++)
		if ((p->s6_addr[i / 8] ^ a->s6_addr[i / 8]) & (0x80 >> (i % 8)))
			return false;
	return true;
}

/* SID prefixes are srv6d's own addresses (issue 8, item 2): one that holds
 * an address of this router would hand its control plane (ping, BGP, ND to
 * it) to srv6d.  0, or -EINVAL with "FILE:LINE: ..." in @err. */
static int sids_vs_own_addresses(const struct daemon *d, const struct srv6_conf *c, char *err,
				 size_t errlen)
{
	struct ifaddrs *ifa, *i;
	char a[INET6_ADDRSTRLEN], p[INET6_ADDRSTRLEN];
	int r = 0;

	if (!c->nsids || getifaddrs(&ifa) < 0)
		return 0;   /* nothing to check, or cannot tell: the datapath decides */
	for (i = ifa; i && !r; i = i->ifa_next) {
		const struct in6_addr *own;

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET6)
			continue;
		own = &((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_addr;
		if (IN6_IS_ADDR_LINKLOCAL(own) || IN6_IS_ADDR_LOOPBACK(own))
			continue;   /* SID prefixes cannot hold these (conf check) */
		for (size_t k = 0; k < c->nsids; k++) {
			if (!pfx6_holds(&c->sids[k].prefix, c->sids[k].plen, own))
				continue;
			inet_ntop(AF_INET6, own, a, sizeof(a));
			inet_ntop(AF_INET6, &c->sids[k].prefix, p, sizeof(p));
			snprintf(err, errlen, "%s:%u: SID prefix %s/%u holds %s, an address of "
				 "this router (%s): its own traffic would go to srv6d",
				 d->conf_path, c->sids[k].line, p, c->sids[k].plen, a, i->ifa_name);
			r = -EINVAL;
			break;
		}
	}
	freeifaddrs(ifa);
	return r;
}

int conf_resolve(struct daemon *d, struct srv6_conf *c, struct srv6_pending *pend,
		 char *err, size_t errlen)
{
	if (sids_vs_own_addresses(d, c, err, errlen) < 0)
		return -EINVAL;
	struct srv6_sid_cfg **cfgs;
	struct srv6_saddr_env env;
	char why[SRV6_NHCTX_WHY];
	int r;

	/* hmac hook: secrets are read here (start, reload, srv6ctl changes),
	 * never at parse; before the addresses, which a failure would leak */
	r = srv6_hmac_conf_load(c->hmac, err, errlen);
	if (r < 0) {
		char msg[SRV6_CONF_ERRLEN + 128];

		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "%s: %s", d->conf_path, msg);
		return r;
	}
	for (unsigned int i = 0; c->hmac && i < c->hmac->nifs; i++)
		if (!c->hmac->ifs[i].ifindex)
			srv6_log(LOG_WARNING, "hmac %s dev %s: no such interface (inactive until a reload finds it)",
				 srv6_hmac_mode_name(c->hmac->ifs[i].mode), c->hmac->ifs[i].name);
	srv6_hmac_conf_bind(c);

	r = srv6_saddr_env_read(&env);
	if (r == -ENOMEM) {
		srv6_saddr_env_free(&env);
		snprintf(err, errlen, "reading the addresses: %s", strerror(-r));
		return r;
	}
	if (r < 0)
		srv6_log(LOG_WARNING, "reading ip sr tunsrc: %s (taken as unset)", strerror(-r));

	for (size_t i = 0; i < c->nsids; i++) {
		struct srv6_sid_cfg *cfg = &c->sids[i].cfg;

		cfg->flowlabel_mode = d->flowlabel_mode;
		r = fill_encap_src(c, &env, srv6_action_encaps(cfg->action) && cfg->nsegs, cfg->segs,
				   cfg->dev_name, &cfg->encap_src, why, sizeof(why));
		if (r == -ENOMEM || srv6_pending_set_src(pend, i, why) < 0)
			goto out_env;
	}
	for (size_t i = 0; i < c->nroutes; i++) {
		struct srv6_policy *pol = &c->routes[i].pol;

		pol->flowlabel_mode = d->flowlabel_mode;
		pol->mark = 0;
		r = fill_encap_src(c, &env, mode_encaps(pol->mode) && pol->nsegs, pol->segs,
				   pol->dev_name, &pol->encap_src, why, sizeof(why));
		if (r == -ENOMEM || srv6_pending_set_src(pend, c->nsids + i, why) < 0)
			goto out_env;
	}
	srv6_saddr_env_free(&env);
	cfgs = sid_cfgs(c, err, errlen);
	if (!cfgs)
		return -ENOMEM;
	r = srv6_nhctx_sync(d->nh, cfgs, c->nsids, pend->nh, err, errlen);
	free(cfgs);
	if (r == 0)
		(void)srv6_pending_update(pend, c);
	return r;

out_env:
	srv6_saddr_env_free(&env);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/* Build a snapshot of @c and publish it.  0 or -errno with @err. */
/* SRV6D_TEST_PUBLISH_FAIL=PATH, a test hook (docs/ARCHITECTURE.md): while
 * PATH exists, every publish fails as srv6_cache_publish() out of memory
 * would (tests/net/test_degraded.sh: the retry of a failed publish). */
static bool publish_forced_fail(void)
{
	const char *p = getenv("SRV6D_TEST_PUBLISH_FAIL");

	return p && *p && access(p, F_OK) == 0;
}

int conf_publish(struct daemon *d, const struct srv6_conf *c, char *err, size_t errlen)
{
	struct srv6_tables *t = srv6_tables_new();
	int r;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nsids; i++) {
		r = srv6_tables_add_sid(t, &c->sids[i].prefix, c->sids[i].plen, &c->sids[i].cfg);
		if (r < 0) {
			snprintf(err, errlen, "%s:%u: sid: %s", d->conf_path, c->sids[i].line, strerror(-r));
			goto out_free;
		}
	}
	for (size_t i = 0; i < c->nroutes; i++) {
		const struct srv6_conf_route *rt = &c->routes[i];

		r = srv6_tables_add_policy(t, rt->family, &rt->prefix, rt->plen, &rt->pol);
		if (r < 0) {
			snprintf(err, errlen, "%s:%u: route: %s", d->conf_path, rt->line, strerror(-r));
			goto out_free;
		}
	}
	r = publish_forced_fail() ? -ENOMEM : srv6_cache_publish(d->cache, t);
	if (r < 0) {
		/* @t untouched by a failed publish: still ours */
		snprintf(err, errlen, "publish: %s", strerror(-r));
		goto out_free;
	}
	return 0;

out_free:
	srv6_tables_free(t);
	return r;
}

/* The steering of @c as srv6_steer_cfg (srv6_steer_cfg_release() frees it):
 * the conf's prefixes, the queues actually bound, this instance's chain and
 * the injection device when there is one. */
int steer_cfg_make(const struct daemon *d, const struct srv6_conf *c,
		   struct srv6_steer_cfg *sc)
{
	int r = srv6_steer_cfg_from_conf(c, sc);

	if (r < 0)
		return r;
	sc->chain = daemon_steer_chain(d);
	sc->queue_first = d->conf.queue_first;
	sc->queue_last = d->conf.queue_last;
	sc->fail_open = d->conf.fail_open;
	sc->inject_dev = d->injdev.ifindex ? d->injdev.name : NULL;
	return 0;
}

/* The policies as kernel routes through srv6d's device (fallback.h). */
static int policy_routes(struct daemon *d, const struct srv6_conf *c, char *err, size_t errlen)
{
	int r = srv6_polroute_sync(c, d->injdev.ifindex, err, errlen);

	d->polroute_synced = true;

	/* a sync that failed half way: the tick puts back what it can
	 * (polroute_watch()) */
	d->polroute_dirty = r < 0 && d->injdev.ifindex;
	if (r == -ENODEV)
		snprintf(err, errlen, "headend policies need srv6d's device (route lines are "
			 "kernel routes through it), which could not be created");
	return r;
}

/* With `steer none`: srv6d's own chain goes when it installed one, or when
 * a crashed `steer auto` run left it (its marker says so). */
static int steer_none(struct daemon *d, const struct srv6_conf *c, char *err, size_t errlen)
{
	bool stale = !d->steered && srv6_steer_stale(daemon_steer_chain(d));
	uint32_t gm, gk;
	int r;

	srv6_steer_gate_of(c, &gm, &gk);
	if (d->steered || stale) {
		r = srv6_steer_remove(daemon_steer_chain(d), gm, gk, err, errlen);
		if (r < 0)
			return r;
		if (stale)
			srv6_log(LOG_NOTICE, "steer none: removed the stale chain %s of an "
				 "earlier steer auto run", daemon_steer_chain(d));
		d->steered = false;
	}
	/* the operator's rules queue what the routes send to the device:
	 * rules written for srv6d before policies were routes (-d PREFIX at
	 * raw PREROUTING) no longer catch it (said at start and reload, not
	 * at each retry of a failed apply) */
	if (c->nroutes && !d->sync_dirty)
		srv6_log(LOG_NOTICE, "steer none: the %zu policies are routes through %s; "
			 "your rules must queue them at mangle POSTROUTING (-o %s -j "
			 "NFQUEUE, srv6ctl steer show --template), or srv6d0 drops their "
			 "traffic", c->nroutes, d->injdev.name[0] ? d->injdev.name : "srv6d0",
			 d->injdev.name[0] ? d->injdev.name : "srv6d0");
	return 0;
}

/*
 * The kernel side of @c: the fail-open blackholes, srv6d's steering rules
 * (steer auto: installed; steer none: srv6d's stale chain removed), then the
 * policies' routes.  The routes follow the capture at mangle POSTROUTING
 * that receives what they send to srv6d's device: they are synced after
 * the rules were installed, and after a failed install too when the kernel
 * holds the rules @c wants all the same (a `route add` or `route del`
 * changes none of them), so a rule failure does not leave a removed
 * policy's route sending its traffic to srv6d, nor a new one without its
 * route.  With `steer none` the capture is the operator's: the routes are
 * synced whatever the removal of srv6d's chain gave.  Every step is a sync
 * (running it again converges): 0, or the first failure as -errno with
 * @err naming the step.  Control thread.
 */
int steer_apply(struct daemon *d, const struct srv6_conf *c, char *err, size_t errlen)
{
	struct srv6_steer_cfg sc;
	char rerr[512], what[256];
	int r, rr;

	/* until policy_routes() runs for @c, the watch adds no route of @c */
	d->polroute_synced = false;
	/* fail-open: the blackholes behind the bypass go in first, so that no
	 * steered prefix is ever bypassed without one (fallback.h). */
	r = srv6_fallback_sync(c, err, errlen);
	if (r < 0)
		return r;
	if (c->steer != SRV6_STEER_AUTO) {
		r = steer_none(d, c, rerr, sizeof(rerr));
		if (r < 0)
			srv6_seterr(err, errlen, "steering: %s", rerr);
		rr = policy_routes(d, c, r < 0 ? rerr : err, r < 0 ? sizeof(rerr) : errlen);
		return r < 0 ? r : rr;
	}
	r = steer_cfg_make(d, c, &sc);
	if (r < 0) {
		snprintf(err, errlen, "steering: out of memory");
		goto out_free;
	}
	/* Mark the rules ours before installing: if the install fails half
	 * way (the IPv6 table committed, the IPv4 one not), daemon_stop_all() must
	 * still remove what is there, or SID traffic would go on being sent
	 * to a queue nobody reads.  Removal accepts a missing chain. */
	d->steered = true;
	r = srv6_steer_install(&sc, rerr, sizeof(rerr));
	if (r < 0)
		srv6_seterr(err, errlen, "steering: %s", rerr);
	/* the capture is in place: the routes that send the policies'
	 * traffic to it can follow */
	if (r == 0 || srv6_steer_check(&sc, what, sizeof(what)) == 0) {
		rr = policy_routes(d, c, r < 0 ? rerr : err, r < 0 ? sizeof(rerr) : errlen);
		if (r == 0)
			r = rr;
	}
out_free:
	srv6_steer_cfg_release(&sc);
	return r;
}

/* "2026-01-02T03:04:05Z" of @t. */
void utc_str(time_t t, char *buf, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * The kernel side of the running conf failed to apply (@when: "reload",
 * "route add"..., "retry", "timer check"; @err: which step and why): counted,
 * its first failure and the last reason kept for `srv6ctl status`, retried
 * by daemon_watch() after 1, 2, 4 ... SYNC_BACKOFF_MAX s until it holds.  Logged
 * and announced when it starts or its reason changes.  Control thread.
 */
void sync_failed(struct daemon *d, const char *when, const char *err)
{
	bool news = !d->sync_dirty || strcmp(d->sync_err, err);

	d->sync_failures++;
	if (!d->sync_dirty) {
		d->sync_since = time(NULL);
		d->sync_backoff = 0;
	}
	d->sync_backoff = d->sync_backoff ? d->sync_backoff * 2 : 1;
	if (d->sync_backoff > SYNC_BACKOFF_MAX)
		d->sync_backoff = SYNC_BACKOFF_MAX;
	d->sync_next = mono_s() + d->sync_backoff;
	snprintf(d->sync_err, sizeof(d->sync_err), "%s", err);
	if (news) {
		srv6_log(LOG_ERR, "%s: %s: the kernel does not hold the running configuration's "
			 "rules and routes; tried again (at most every %d s) until it does", when,
			 err, SYNC_BACKOFF_MAX);
		srv6_ctlsock_event(d->ctl, "steering", "failed (%s): %s", when, err);
	}
	if (!d->sync_dirty) {
		d->sync_dirty = true;
		daemon_notify_status(d, "");
	}
}

/* The kernel side of the running conf holds again after sync_failed():
 * logged, announced, and said in STATUS=.  Control thread. */
void sync_ok(struct daemon *d)
{
	long long secs = (long long)(time(NULL) - d->sync_since);

	d->sync_dirty = false;
	d->sync_backoff = 0;
	d->sync_err[0] = '\0';
	srv6_log(LOG_NOTICE, "steering rules and policy routes in place again (out of sync "
		 "for %lld s)", secs);
	srv6_ctlsock_event(d->ctl, "steering", "in sync again after %lld s", secs);
	daemon_notify_status(d, "");
}

/* ---- reload ---- */

/* The sysctls srv6d applies as the kernel would: net.ipv6.seg6_flowlabel
 * (any int: > 0 hash, 0 copy, < 0 zero).  At start and on every reload. */
void daemon_read_sysctls(struct daemon *d)
{
	if (srv6_read_int_file("/proc/sys/net/ipv6/seg6_flowlabel", &d->flowlabel_mode) < 0)
		d->flowlabel_mode = 0;
}

/* Whether the policy queue lines @a and @b mean the same (their line
 * numbers aside: a reload that only moves lines changes nothing). */
static bool pq_same(const struct srv6_conf_pqueue *a, const struct srv6_conf_pqueue *b)
{
	return a->queue == b->queue && a->policy == b->policy && a->has_mark == b->has_mark &&
	       (!a->has_mark || a->mark == b->mark) && a->requeue == b->requeue &&
	       a->delay_ms == b->delay_ms;
}

/* Whether @a and @b have the same policy queues, in whatever line order. */
static bool pqueues_same(const struct srv6_conf *a, const struct srv6_conf *b)
{
	if (a->npqueues != b->npqueues)
		return false;
	for (unsigned int i = 0; i < a->npqueues; i++) {
		unsigned int k;

		for (k = 0; k < b->npqueues && !pq_same(&a->pqueues[i], &b->pqueues[k]); k++)
			;
		if (k == b->npqueues)
			return false;
	}
	return true;
}

static void name_add(char *buf, size_t len, const char *name)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
}

/* The settings that only apply at start (the queues and workers, the
 * egress path, the instance's resources): one line naming those @nc changes
 * against the running @run; conf_apply() then keeps the running values. */
static void start_only_changes(const struct srv6_conf *run,
			       const struct srv6_conf *nc, const char *what)
{
	char names[512] = "";

	if (nc->queue_first != run->queue_first || nc->queue_last != run->queue_last)
		name_add(names, sizeof(names), "queue");
	if (nc->queue_maxlen != run->queue_maxlen)
		name_add(names, sizeof(names), "queue-maxlen");
	if (nc->fail_open != run->fail_open)
		name_add(names, sizeof(names), "fail-open");
	if (nc->ncpus != run->ncpus ||
	    memcmp(nc->cpus, run->cpus, sizeof(nc->cpus[0]) * (size_t)nc->ncpus))
		name_add(names, sizeof(names), "cpu-affinity");
	if (nc->worker_fifo != run->worker_fifo || nc->worker_prio != run->worker_prio)
		name_add(names, sizeof(names), "worker-sched");
	if (nc->egress != run->egress)
		name_add(names, sizeof(names), "egress");
	if (nc->gso != run->gso)
		name_add(names, sizeof(names), "gso");
	if (strcmp(nc->steer_chain, run->steer_chain))
		name_add(names, sizeof(names), "steer-chain");
	if (nc->mark_base != run->mark_base)
		name_add(names, sizeof(names), "mark-base");
	if (nc->mark_mask != run->mark_mask)
		name_add(names, sizeof(names), "mark-mask");
	if (nc->table_base != run->table_base)
		name_add(names, sizeof(names), "table-base");
	if (nc->rule_pref != run->rule_pref)
		name_add(names, sizeof(names), "rule-pref");
	if (strcmp(nc->ctl_path, run->ctl_path))
		name_add(names, sizeof(names), "control-socket");
	if (nc->fpm.on != run->fpm.on ||
	    (nc->fpm.on && (nc->fpm.family != run->fpm.family ||
	     memcmp(nc->fpm.addr, run->fpm.addr, 16) || nc->fpm.port != run->fpm.port ||
	     nc->fpm.grace != run->fpm.grace || nc->fpm.remote != run->fpm.remote)))
		name_add(names, sizeof(names), "fpm");
	if (nc->kmirror.sids != run->kmirror.sids || nc->kmirror.routes != run->kmirror.routes ||
	    (nc->kmirror.on &&
	     (nc->kmirror.table != run->kmirror.table || nc->kmirror.proto != run->kmirror.proto)))
		name_add(names, sizeof(names), "sids-from/routes-from");
	if (nc->nnapi != run->nnapi || memcmp(nc->napi_devs, run->napi_devs, sizeof(nc->napi_devs)))
		name_add(names, sizeof(names), "ingress-napi");
	if (!pqueues_same(nc, run))
		name_add(names, sizeof(names), "\"queue N policy\"");
	if (names[0])
		srv6_log(LOG_WARNING, "%s: changes of %s take effect at the next start (running "
			 "as started)", what, names);
}

/*
 * Make @nc (parsed, owned by the call) the running configuration: resolve
 * its contexts and sources, publish it (the RCU swap), steer it.  0 when
 * all of it holds.  -errno with @err saying why, and *@live false, when a
 * step before the publish failed: the running configuration stays, @nc is
 * freed.  -errno with *@live true when only the kernel side (steer_apply():
 * fail-open blackholes, steering rules, policy routes) failed: @nc is the
 * running configuration then (its tables are live; undoing them would need
 * the kernel that just failed), d->sync_dirty is set and daemon_watch() applies
 * the kernel side again until it holds.  @what ("reload", "sid add"...)
 * heads the log lines.  Control thread.
 */
int conf_apply(struct daemon *d, struct srv6_conf *nc, const char *what, char *err,
	       size_t errlen, bool *live)
{
	struct srv6_pending np;
	char serr[512];
	int r, sr;

	daemon_read_sysctls(d);
	srv6_icmp_tx_sysctls_changed();
	start_only_changes(&d->conf, nc, what);
	size_t nctx = srv6_nhctx_count(d->nh);

	*live = false;
	if (srv6_pending_init(&np, d->conf_path, nc) < 0) {
		srv6_seterr(err, errlen, "out of memory");
		srv6_log(LOG_ERR, "%s: out of memory (keeping the running configuration)", what);
		srv6_conf_free(nc);
		return -ENOMEM;
	}
	/* A policy route that would collide with the operator's (same
	 * prefix and metric) refuses the change before anything moves. */
	r = d->injdev.ifindex ? srv6_polroute_check(nc, d->injdev.ifindex, err, errlen) : 0;
	if (!r && nc->nroutes && !d->injdev.ifindex) {   /* as at start (egress_setup()) */
		snprintf(err, errlen, "headend policies need srv6d's device (route lines are "
			 "kernel routes through it), which could not be created at start");
		r = -ENODEV;
	}
	if (r < 0) {
		srv6_log(LOG_ERR, "%s: %s (keeping the running configuration)", what, err);
		goto out_free;
	}
	r = conf_resolve(d, nc, &np, err, errlen);
	if (r < 0) {
		srv6_log(LOG_ERR, "%s: %s (keeping the running configuration)", what, err);
		srv6_ctlsock_event(d->ctl, "contexts", "%s: failed: %s", what, err);
		/* Whether the sync failed (it undid itself) or succeeded and
		 * something after it failed: go back to the running contexts. */
		(void)srv6_nhctx_abort(d->nh);
		goto out_free;
	}
	r = conf_publish(d, nc, err, errlen);
	if (r < 0) {
		srv6_log(LOG_ERR, "%s: %s (keeping the running configuration)", what, err);
		(void)srv6_nhctx_abort(d->nh);  /* the sync succeeded, nc is not live */
		goto out_free;
	}
	d->publish_dirty = false;   /* the whole running conf is published now */
	/* What the new conf waits for replaces what the old one did.  A
	 * reload says every pending entry again; an FPM batch, a kernel
	 * mirror change or srv6ctl only what is new or changed. */
	if (strcmp(what, "reload"))
		(void)srv6_pending_carry(&np, nc, &d->pend, &d->conf);
	/* said once the conf runs (an FPM bisection's failed tries say
	 * nothing), against the conf it replaces */
	warn_unsupported(d, nc, strcmp(what, "reload") ? &d->conf : NULL);
	srv6_pending_free(&d->pend);
	d->pend = np;
	srv6_pending_log(&d->pend, nc);
	/* The new tables are live: the running conf is now nc (queue settings
	 * and the instance's resources stay those it started with). */
	memcpy(nc->steer_chain, d->conf.steer_chain, sizeof(nc->steer_chain));
	memcpy(nc->ctl_path, d->conf.ctl_path, sizeof(nc->ctl_path));
	nc->mark_base = d->conf.mark_base;
	nc->mark_mask = d->conf.mark_mask;
	nc->table_base = d->conf.table_base;
	nc->rule_pref = d->conf.rule_pref;
	nc->queue_first = d->conf.queue_first;
	nc->queue_last = d->conf.queue_last;
	nc->queue_maxlen = d->conf.queue_maxlen;
	nc->fail_open = d->conf.fail_open;
	nc->ncpus = d->conf.ncpus;
	memcpy(nc->cpus, d->conf.cpus, sizeof(nc->cpus));
	nc->worker_fifo = d->conf.worker_fifo;
	nc->worker_prio = d->conf.worker_prio;
	nc->worker_sched_implied = d->conf.worker_sched_implied;
	nc->egress = d->conf.egress;
	memcpy(nc->pqueues, d->conf.pqueues, sizeof(nc->pqueues));
	nc->npqueues = d->conf.npqueues;
	nc->fpm = d->conf.fpm;
	nc->kmirror = d->conf.kmirror;
	memcpy(nc->napi_devs, d->conf.napi_devs, sizeof(nc->napi_devs));
	nc->nnapi = d->conf.nnapi;
	srv6_conf_free(&d->conf);
	d->conf = *nc;
	srv6_conf_init(nc);
	free(d->polroute_taken);   /* per route of the old conf */
	d->polroute_taken = NULL;
	srv6_log_set_level(d->conf.log_level);
	*live = true;
	sr = steer_apply(d, &d->conf, serr, sizeof(serr));
	if (sr < 0) {
		sync_failed(d, what, serr);
		snprintf(err, errlen, "%s (the change is in srv6d's tables; the kernel side is "
			 "retried until it holds: srv6ctl status)", serr);
	} else if (d->sync_dirty) {   /* an earlier failure: this apply holds */
		sync_ok(d);
	}
	/* No worker holds an old SID once a grace period has passed: only
	 * then may the contexts (marks) of removed SIDs go. */
	urcu_qsbr_synchronize_rcu();
	r = srv6_nhctx_gc(d->nh);
	if (r < 0)
		srv6_log(LOG_WARNING, "%s: removing unused next-hop contexts: %s", what, strerror(-r));
	if (srv6_nhctx_count(d->nh) != nctx)
		srv6_ctlsock_event(d->ctl, "contexts", "%s: %zu next-hop contexts installed (were %zu)",
				   what, srv6_nhctx_count(d->nh), nctx);
	return sr;

out_free:
	srv6_pending_free(&np);
	srv6_conf_free(nc);
	return r;
}

/* A copy of the running conf (arrays duplicated; the HMAC lines too, their
 * secrets to be reread by conf_apply() as on a reload).  0 or -ENOMEM. */
int conf_copy(const struct srv6_conf *src, struct srv6_conf *dst, size_t extra_sids,
		    size_t extra_routes)
{
	*dst = *src;
	dst->sids = malloc((src->nsids + extra_sids + 1) * sizeof(*dst->sids));
	dst->routes = malloc((src->nroutes + extra_routes + 1) * sizeof(*dst->routes));
	if (!dst->sids || !dst->routes || srv6_hmac_set_dup(src->hmac, &dst->hmac) < 0) {
		free(dst->sids);
		free(dst->routes);
		srv6_conf_init(dst);
		return -ENOMEM;
	}
	if (src->nsids)
		memcpy(dst->sids, src->sids, src->nsids * sizeof(*dst->sids));
	if (src->nroutes)
		memcpy(dst->routes, src->routes, src->nroutes * sizeof(*dst->routes));
	return 0;
}

/*
 * The reloaded file @nc with zebra's FPM entries merged in, applied.  When
 * that fails before anything is live, the file again with only the FPM
 * entries the running conf holds: a route zebra sent since the last apply
 * must not fail the operator's reload (fpm_apply() sorts it out at the next
 * tick).  As conf_apply(); @nc is consumed.
 */
static int reload_apply(struct daemon *d, struct srv6_conf *nc, char *err, size_t errlen,
			bool *live)
{
	struct srv6_conf again;
	bool *held = NULL, *was;
	size_t n = learned_count(d);
	int r;

	*live = false;
	if (!n)
		return conf_apply(d, nc, "reload", err, errlen, live);
	if (conf_copy(nc, &again, 0, 0) < 0) {
		srv6_conf_free(nc);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* a reload tries the rejected entries again (what refused them may
	 * be fixed); the ones still refused are isolated again at the tick */
	was = calloc(n, sizeof(*was));
	for (size_t i = 0; i < n; i++) {
		struct srv6_fpm_entry *e = learned_entry(d, i, NULL);

		if (was)
			was[i] = e->rejected;
		e->rejected = false;
	}
	fpm_pick(d, NULL);
	r = fpm_merge(d, nc);
	if (!r)
		r = conf_apply(d, nc, "reload", err, errlen, live);
	else {
		srv6_conf_free(nc);
		snprintf(err, errlen, "out of memory");
	}
	if (!r || *live) {
		free(was);
		srv6_conf_free(&again);
		return r;
	}
	/* then the learned entries that were running, then none: the file
	 * itself decides whether the reload fails */
	held = calloc(n, sizeof(*held));
	if (!held) {
		free(was);
		srv6_conf_free(&again);
		return r;
	}
	for (size_t i = 0; i < n; i++)
		held[i] = fpm_is_live(d, learned_entry(d, i, NULL));
	for (int pass = 0; pass < 2; pass++) {
		struct srv6_conf c;

		if (pass)
			memset(held, 0, n * sizeof(*held));
		if (conf_copy(&again, &c, 0, 0) < 0)
			break;
		fpm_pick(d, held);
		if (fpm_merge(d, &c) < 0) {
			srv6_conf_free(&c);
			break;
		}
		r = conf_apply(d, &c, "reload", err, errlen, live);
		if (!r || *live) {
			srv6_log(LOG_WARNING, "reload: applied with %s; the others are tried again",
				 pass ? "none of the learned entries" :
				 "the learned entries that were running");
			d->fpm_dirty = true;
			d->fpm_next = 0;
			break;
		}
	}
	free(held);
	/* the reload failed whole: the entries rejected before stay so */
	for (size_t i = 0; was && r < 0 && !*live && i < n; i++)
		learned_entry(d, i, NULL)->rejected = was[i];
	free(was);
	fpm_pick(d, NULL);
	srv6_conf_free(&again);
	return r;
}

/* SIGHUP and `srv6ctl reload`: 0, or -errno with "FILE:LINE: message" (or
 * another one-line reason) in @err; the running configuration stays then,
 * unless only its kernel side failed (conf_apply(): the file runs, the
 * kernel side is retried). */
int daemon_reload(struct daemon *d, char *err, size_t errlen)
{
	struct srv6_conf nc;
	bool live;
	int r;

	steer_watch(d, "reload");
	r = srv6_conf_parse_file(&nc, d->conf_path, err, errlen);
	if (r < 0) {
		srv6_log(LOG_ERR, "reload: %s (keeping the running configuration)", err);
		srv6_ctlsock_event(d->ctl, "reload", "failed: %s", err);
		return r;
	}
	conf_warnings(&nc, NULL);
	r = reload_apply(d, &nc, err, errlen, &live);
	if (live)
		d->loaded = time(NULL);
	if (r < 0) {
		srv6_ctlsock_event(d->ctl, "reload", "failed: %s", err);
		return r;
	}
	srv6_log(LOG_NOTICE, "reloaded %s: %zu SIDs, %zu routes, %zu pending", d->conf_path,
		 d->conf.nsids, d->conf.nroutes, d->pend.count);
	if (d->pend.count)
		srv6_ctlsock_event(d->ctl, "reload", "ok: %zu SIDs, %zu routes, %zu pending",
				   d->conf.nsids, d->conf.nroutes, d->pend.count);
	else
		srv6_ctlsock_event(d->ctl, "reload", "ok: %zu SIDs, %zu routes",
				   d->conf.nsids, d->conf.nroutes);
	return 0;
}

/*
 * The injection egress: srv6d's device, one injector per worker, and the
 * choice of path for IPv6 results (conf "egress", the probe for "auto").
 * Returns 0, or -errno with @err when the start must stop (egress inject
 * without a device).
 */
int egress_setup(struct daemon *d, char *err, size_t errlen)
{
	const struct srv6_conf *c = &d->conf;
	char derr[256];
	int r;

	char name[IF_NAMESIZE];

	srv6_injdev_name(daemon_steer_chain(d), name, sizeof(name));
	r = srv6_injdev_open(&d->injdev, name, derr, sizeof(derr));
	if (r < 0) {
		if (c->egress == SRV6_EGRESS_INJECT) {
			snprintf(err, errlen, "egress inject: %s", derr);
			return r;
		}
		if (c->nroutes) {
			/* policies are routes through the device, whatever
			 * the egress mode */
			snprintf(err, errlen, "headend policies: %s", derr);
			return r;
		}
		srv6_log(LOG_WARNING, "no injection egress (%s): IPv6 results go in verdicts, "
			 "IPv4 results and Ethernet frames are dropped and counted", derr);
		snprintf(d->egress_why, sizeof(d->egress_why), "no injection device: %.200s", derr);
		d->inject6 = false;
		warn_unsupported(d, c, NULL);
		return 0;
	}
	for (unsigned int i = 0; i < d->nworkers; i++) {
		d->workers[i].inj = srv6_inj_open(&d->injdev, derr, sizeof(derr));
		if (!d->workers[i].inj) {
			snprintf(err, errlen, "queue %u: injector: %s", srv6_nfq_queue(d->workers[i].nfq),
				 derr);
			return -EIO;
		}
	}
	if (c->egress != SRV6_EGRESS_AUTO)
		srv6_egress_probe_cleanup(&d->injdev);   /* a crashed probe's rules */
	switch (c->egress) {
	case SRV6_EGRESS_VERDICT:
		d->inject6 = false;
		snprintf(d->egress_why, sizeof(d->egress_why), "egress verdict (configured)");
		break;
	case SRV6_EGRESS_INJECT:
		d->inject6 = true;
		snprintf(d->egress_why, sizeof(d->egress_why), "egress inject (configured)");
		break;
	case SRV6_EGRESS_AUTO:
	default:
		r = srv6_egress_probe(d->workers[0].nfq, &d->injdev, d->workers[0].inj,
				      c->fail_open ? NF_ACCEPT : NF_DROP, d->egress_why,
				      sizeof(d->egress_why));
		/* Inconclusive (the unchanged control packet never came back):
		 * something drops what arrives on srv6d's device, which is
		 * what injection relies on; verdicts may still work. */
		if (r < 0)
			srv6_log(LOG_ERR, "egress: %s: IPv6 results go in verdicts; check what drops "
				 "packets arriving on %s (IPv4 results and End.DX2 use it)",
				 d->egress_why, d->injdev.name);
		d->inject6 = r == 0;
		break;
	}
	for (unsigned int i = 0; i < d->nworkers; i++) {
		d->workers[i].inject6 = d->inject6;
		/* conf refuses gso without egress inject, which succeeded here */
		d->workers[i].gso = c->gso && d->inject6;
		if (d->workers[i].gso && srv6_inj_set_vnet(d->workers[i].inj) < 0) {
			snprintf(err, errlen, "gso on: PACKET_VNET_HDR refused on the injection socket");
			return -EIO;
		}
	}
	/* IPv4 rp_filter is max(all, dev): srv6d set its device to 0, but a
	 * strict "all" still drops every injected IPv4 result (its source is
	 * routed through another interface). */
	if (srv6_read_int_file("/proc/sys/net/ipv4/conf/all/rp_filter", &r) == 0 && r == 1)
		srv6_log(LOG_WARNING, "net.ipv4.conf.all.rp_filter is 1 (strict): the kernel drops "
			 "the IPv4 results srv6d injects through %s (End.DX4, End.DT4, End.DT46); "
			 "use 2 (loose) or 0", d->injdev.name);
	srv6_log(LOG_NOTICE, "egress: IPv6 results: %s%s (%s); IPv4 results: injected through %s; "
		 "End.DX2 frames: sent on their oif", d->inject6 ? "injected through " : "verdicts",
		 d->inject6 ? d->injdev.name : "", d->egress_why, d->injdev.name);
	return 0;
}
