// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fpm_merge.c - the learned entries (zebra's FPM, src/control/fpm.c; the
 * kernel mirror, src/control/kmirror.c) into the running configuration:
 * the conf's own lines first, then every FPM entry whose prefix no conf line
 * has, then every kernel entry whose prefix neither has (the earlier source
 * wins, said once per entry), applied whole by conf_apply() (one RCU swap
 * per batch).  A reload merges the same way, so learned entries survive it.
 * Control thread.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv6d/hmac.h"
#include "srv6d/hmac_conf.h"
#include "srv6d/kmirror.h"

#include "daemon/daemon.h"

static bool same_sid(const struct srv6_conf_sid *a, const struct srv6_conf_sid *b)
{
	return a->plen == b->plen && !memcmp(&a->prefix, &b->prefix, 16);
}

static bool same_route(const struct srv6_conf_route *a, const struct srv6_conf_route *b)
{
	return a->family == b->family && a->plen == b->plen &&
	       !memcmp(&a->prefix, &b->prefix, a->family == AF_INET6 ? 16 : 4);
}

/* "SID fc00::1/128 (conf line 12)" for a log line. */
static void ent_name(const struct srv6_fpm_entry *e, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (e->is_sid)
		inet_ntop(AF_INET6, &e->sid.prefix, a, sizeof(a));
	else
		inet_ntop(e->route.family, &e->route.prefix, a, sizeof(a));
	snprintf(buf, len, "%s %s/%u", e->is_sid ? "SID" : "route", a,
		 e->is_sid ? e->sid.plen : e->route.plen);
}

/* The learned stores, the one that wins a prefix first. */
static unsigned int stores(const struct daemon *d, struct srv6_fpm *s[2])
{
	unsigned int n = 0;

	if (d->fpm)
		s[n++] = d->fpm;
	if (d->kmirror)
		s[n++] = srv6_kmirror_store(d->kmirror);
	return n;
}

/* learned_count - the entries of every learned store.  Control thread. */
size_t learned_count(const struct daemon *d)
{
	struct srv6_fpm *s[2];
	size_t n = 0;

	for (unsigned int k = stores(d, s); k--;)
		n += srv6_fpm_count(s[k]);
	return n;
}

/* learned_entry - entry @i (< learned_count()) across the stores, in their
 * order; *@store (may be NULL): which store.  Control thread. */
struct srv6_fpm_entry *learned_entry(const struct daemon *d, size_t i, unsigned int *store)
{
	struct srv6_fpm *s[2];
	unsigned int ns = stores(d, s);

	for (unsigned int k = 0; k < ns; k++) {
		if (i < srv6_fpm_count(s[k])) {
			if (store)
				*store = k;
			return srv6_fpm_entry(s[k], i);
		}
		i -= srv6_fpm_count(s[k]);
	}
	return NULL;
}

static uint8_t ent_origin(const struct srv6_fpm_entry *e)
{
	return e->is_sid ? e->sid.origin : e->route.origin;
}

/* Keep only the entries of @nc's arrays that are the conf's own. */
static void strip_fpm(struct srv6_conf *nc)
{
	size_t k = 0;

	for (size_t i = 0; i < nc->nsids; i++)
		if (nc->sids[i].origin == SRV6_ORIGIN_CONF)
			nc->sids[k++] = nc->sids[i];
	nc->nsids = k;
	k = 0;
	for (size_t i = 0; i < nc->nroutes; i++)
		if (nc->routes[i].origin == SRV6_ORIGIN_CONF)
			nc->routes[k++] = nc->routes[i];
	nc->nroutes = k;
}

/* Drop the learned entries of @nc that sign with an HMAC key. */
static size_t strip_fpm_hmac(struct srv6_conf *nc)
{
	size_t k = 0, gone = 0;

	for (size_t i = 0; i < nc->nsids; i++) {
		if (nc->sids[i].origin != SRV6_ORIGIN_CONF && nc->sids[i].cfg.hmac_keyid)
			gone++;
		else
			nc->sids[k++] = nc->sids[i];
	}
	nc->nsids = k;
	k = 0;
	for (size_t i = 0; i < nc->nroutes; i++) {
		if (nc->routes[i].origin != SRV6_ORIGIN_CONF && nc->routes[i].pol.hmac_keyid)
			gone++;
		else
			nc->routes[k++] = nc->routes[i];
	}
	nc->nroutes = k;
	return gone;
}

/*
 * fpm_merge - @nc's learned entries replaced by the stores' picked ones (see
 * fpm_pick()): @nc's own lines stay, each picked entry is added unless a
 * line of @nc or an earlier store has its prefix.  0 or -ENOMEM (@nc
 * unchanged but for its learned entries).  Control thread.
 */
int fpm_merge(struct daemon *d, struct srv6_conf *nc)
{
	size_t n = learned_count(d), nsid = 0, nrt = 0, base_s, base_r;
	char name[96], err[SRV6_CONF_ERRLEN];
	struct srv6_fpm *st[2];
	unsigned int line;
	void *p;

	strip_fpm(nc);
	if (!n)
		return 0;
	(void)stores(d, st);
	for (size_t i = 0; i < n; i++) {
		if (learned_entry(d, i, NULL)->is_sid)
			nsid++;
		else
			nrt++;
	}
	p = realloc(nc->sids, (nc->nsids + nsid + 1) * sizeof(*nc->sids));
	if (!p)
		return -ENOMEM;
	nc->sids = p;
	p = realloc(nc->routes, (nc->nroutes + nrt + 1) * sizeof(*nc->routes));
	if (!p)
		return -ENOMEM;
	nc->routes = p;
	base_s = nc->nsids;
	base_r = nc->nroutes;
	for (size_t i = 0; i < n; i++) {
		unsigned int k;
		struct srv6_fpm_entry *e = learned_entry(d, i, &k);
		const char *why = NULL;
		unsigned int cline = 0;

		if (!e->pick)
			continue;
		if (e->is_sid) {
			for (size_t j = 0; j < base_s && !why; j++)
				if (same_sid(&nc->sids[j], &e->sid)) {
					why = "a conf line has it";
					cline = nc->sids[j].line;
				}
			if (!why && srv6_conf_check_sid_tables(nc, &e->sid.cfg, err, sizeof(err)))
				why = err;
			if (!why && e->sid.cfg.hmac_keyid &&
			    !srv6_hmac_key_find(nc->hmac, e->sid.cfg.hmac_keyid))
				why = "it signs with an HMAC key srv6d.conf has no `hmac key` line for";
		} else {
			for (size_t j = 0; j < base_r && !why; j++)
				if (same_route(&nc->routes[j], &e->route)) {
					why = "a conf line has it";
					cline = nc->routes[j].line;
				}
			if (!why && e->route.pol.hmac_keyid &&
			    !srv6_hmac_key_find(nc->hmac, e->route.pol.hmac_keyid))
				why = "it signs with an HMAC key srv6d.conf has no `hmac key` line for";
		}
		/* the kernel's: zebra's FPM entry with this prefix wins */
		if (!why && k) {
			const struct srv6_fpm_entry *o = e->is_sid ?
				srv6_fpm_find(st[0], AF_INET6, &e->sid.prefix, e->sid.plen) :
				srv6_fpm_find(st[0], e->route.family, &e->route.prefix, e->route.plen);

			if (o && o->is_sid == e->is_sid && !o->rejected)
				why = "zebra's FPM has it";
		}
		if (why) {
			if (!e->shadow_logged) {
				ent_name(e, name, sizeof(name));
				if (cline)
					srv6_log(LOG_WARNING, "%s: %s: %s:%u has it; the conf's line wins",
						 srv6_origin_name(ent_origin(e)), name, d->conf_path, cline);
				else
					srv6_log(LOG_WARNING, "%s: %s not taken: %s",
						 srv6_origin_name(ent_origin(e)), name, why);
				d->fpm_shadowed++;
				e->shadow_logged = true;
			}
			continue;
		}
		e->shadow_logged = false;
		if (e->is_sid)
			nc->sids[nc->nsids++] = e->sid;
		else
			nc->routes[nc->nroutes++] = e->route;
	}
	/* the remaining cross-line checks (the signed SRH's size): a learned
	 * entry that fails them fails all the signing ones (rare: a
	 * 16-segment signed SRH) */
	if (srv6_hmac_conf_finish(nc, &line, err, sizeof(err)) < 0 && !line) {
		size_t gone = strip_fpm_hmac(nc);

		srv6_log(LOG_WARNING, "%zu learned entries that sign with HMAC not taken: %s", gone,
			 err);
	}
	return 0;
}

/* Whole applies one fpm_apply() may spend isolating bad entries (each is a
 * conf_apply(): tens to hundreds of ms with 10k entries); the rest waits for
 * the backoff. */
#define FPM_APPLY_BUDGET 32

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* fpm_is_live - is @e what the running conf has (an entry of its origin,
 * the same SID or route)?  Control thread. */
bool fpm_is_live(const struct daemon *d, const struct srv6_fpm_entry *e)
{
	const struct srv6_conf *c = &d->conf;

	if (e->is_sid) {
		for (size_t i = 0; i < c->nsids; i++)
			if (c->sids[i].origin == e->sid.origin && same_sid(&c->sids[i], &e->sid))
				return srv6_sid_cfg_equal(&c->sids[i].cfg, &e->sid.cfg);
		return false;
	}
	for (size_t i = 0; i < c->nroutes; i++) {
		if (c->routes[i].origin == e->route.origin && same_route(&c->routes[i], &e->route)) {
			char x[SRV6_CONF_LINE_MAX], y[SRV6_CONF_LINE_MAX];

			srv6_route_format(x, sizeof(x), &c->routes[i]);
			srv6_route_format(y, sizeof(y), &e->route);
			return !strcmp(x, y);
		}
	}
	return false;
}

/*
 * fpm_pick - which entries the next fpm_merge() takes: all but the
 * rejected ones (@live NULL), else those @live marks (and not rejected).
 */
void fpm_pick(struct daemon *d, const bool *live)
{
	size_t n = learned_count(d);

	for (size_t i = 0; i < n; i++) {
		struct srv6_fpm_entry *e = learned_entry(d, i, NULL);

		e->pick = !e->rejected && (!live || live[i]);
	}
}

/* The running conf with the picked entries merged, applied: 0, or -errno
 * (*@live as conf_apply()). */
static int try_apply(struct daemon *d, char *err, size_t errlen, bool *live)
{
	struct srv6_conf nc;
	int r;

	*live = false;
	if (conf_copy(&d->conf, &nc, 0, 0) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = fpm_merge(d, &nc);
	if (r < 0) {
		srv6_conf_free(&nc);
		snprintf(err, errlen, "out of memory");
		return r;
	}
	return conf_apply(d, &nc, "fpm", err, errlen, live);
}

/* Apply the entries @idx[0..@k) on top of @live; the ones that fail alone
 * are rejected (logged).  Halves on failure: a bad entry among k costs
 * about 2 log2(k) applies. */
static void bisect(struct daemon *d, bool *live, const size_t *idx, size_t k);

/* The two halves of @idx[0..@k), which failed together. */
static void halves(struct daemon *d, bool *live, const size_t *idx, size_t k)
{
	if (k < 2) {
		bisect(d, live, idx, k);
		return;
	}
	bisect(d, live, idx, k / 2);
	bisect(d, live, idx + k / 2, k - k / 2);
}

static void bisect(struct daemon *d, bool *live, const size_t *idx, size_t k)
{
	char err[SRV6_CONF_ERRLEN], name[96];
	bool lv;
	int r;

	if (!k)
		return;
	if (!d->fpm_budget) {
		d->fpm_dirty = true;   /* the rest after the backoff: the loop must run */
		return;
	}
	d->fpm_budget--;
	for (size_t i = 0; i < k; i++)
		live[idx[i]] = true;
	fpm_pick(d, live);
	r = try_apply(d, err, sizeof(err), &lv);
	if (!r || lv)
		return;           /* all of them hold (or are live: the kernel side is retried) */
	for (size_t i = 0; i < k; i++)
		live[idx[i]] = false;
	if (r == -ENOMEM || r == -EAGAIN || r == -EINTR || r == -EBUSY || r == -ENOBUFS) {
		d->fpm_dirty = true;   /* not the entries' fault: all tried again later */
		return;
	}
	if (k == 1) {
		struct srv6_fpm_entry *e = learned_entry(d, idx[0], NULL);

		e->rejected = true;
		d->fpm_rejected++;
		ent_name(e, name, sizeof(name));
		srv6_log(LOG_WARNING, "%s: %s not applied: %s (until it comes changed)",
			 srv6_origin_name(ent_origin(e)), name, err);
		return;
	}
	halves(d, live, idx, k);
}

/*
 * fpm_apply - the store changed: the running conf with the store merged in,
 * applied (conf_apply(), one RCU swap).  When that fails, the entries the
 * running conf does not hold yet are tried by halves, and the ones that fail
 * alone are rejected, so that one bad route from zebra costs only itself.
 * When even the running entries fail (the kernel refusing for a while),
 * d->fpm_dirty makes the watch tick try again.  Control thread.
 */
void fpm_apply(struct daemon *d)
{
	size_t n = learned_count(d), k = 0;
	char err[SRV6_CONF_ERRLEN];
	double t0 = mono_ms();
	bool *live, lv;
	size_t *idx;
	int r;

	d->fpm_dirty = true;
	d->fpm_budget = FPM_APPLY_BUDGET;
	fpm_pick(d, NULL);
	r = try_apply(d, err, sizeof(err), &lv);
	if (!r || lv) {
		d->fpm_applies++;
		d->fpm_dirty = false;
		d->fpm_backoff = 0;
		goto out;
	}
	d->fpm_apply_failures++;
	live = calloc(n + 1, sizeof(*live));
	idx = calloc(n + 1, sizeof(*idx));
	if (!live || !idx)
		goto out_free;
	for (size_t i = 0; i < n; i++) {
		struct srv6_fpm_entry *e = learned_entry(d, i, NULL);

		live[i] = fpm_is_live(d, e);
		if (!live[i] && !e->rejected)
			idx[k++] = i;
	}
	/* the running entries alone first: they held before */
	fpm_pick(d, live);
	r = try_apply(d, err, sizeof(err), &lv);
	if (!r || lv) {
		d->fpm_dirty = false;
		halves(d, live, idx, k);   /* all of them just failed together */
		d->fpm_applies++;
	}
	/* still dirty (the running entries fail too, or a transient error):
	 * not an entry's fault, tried again after 1, 2, 4 ... 60 s */
	if (d->fpm_dirty)
		d->fpm_backoff = d->fpm_backoff ? (d->fpm_backoff >= 30 ? 60 : d->fpm_backoff * 2) : 1;
	else
		d->fpm_backoff = 0;
	d->fpm_next = (int64_t)(mono_ms() / 1000) + d->fpm_backoff;
out_free:
	free(live);
	free(idx);
out:
	/* most entries gone (a session's routes withdrawn or expired): give
	 * the heap they held back to the system, not only to malloc */
	if (n + 1024 < d->fpm_peak) {
		malloc_trim(0);
		d->fpm_peak = n;
	}
	if (n > d->fpm_peak)
		d->fpm_peak = n;
	fpm_pick(d, NULL);
	d->fpm_apply_ms = mono_ms() - t0;
	srv6_log(LOG_INFO, "learned: %zu entries stored, %zu SIDs and %zu routes running (%.1f ms)",
		 n, d->conf.nsids, d->conf.nroutes, d->fpm_apply_ms);
}
