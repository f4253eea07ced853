// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * watch.c - the control thread's periodic work: worker liveness and the
 * watchdog, the steering check and the kernel side's retry, the policies'
 * routes, pending entries completed, outer sources refreshed.
 */
#include <errno.h>
#include <stdlib.h>

#include "srv6d/hmac_conf.h"
#include "srv6d/ctlsock.h"
#include "srv6d/errbuf.h"
#include "srv6d/linkwatch.h"
#include "srv6d/pqueue.h"
#include "srv6d/preflight.h"
#include "srv6d/fallback.h"
#include "srv6d/worker.h"

#include "daemon/daemon.h"

/* A kernel side that failed to apply, applied again (steer_apply() is a
 * sync).  daemon_watch(), once the backoff has passed. */
static void sync_retry(struct daemon *d)
{
	char err[512];

	if (steer_apply(d, &d->conf, err, sizeof(err)) < 0)
		sync_failed(d, "retry", err);
	else
		sync_ok(d);
}

/* Whether srv6d's steering is still what it installed (a firewall reload or
 * `nft flush ruleset` removes it; a rule inserted in front bypasses it):
 * if not, say what changed, count it and install again; an install that
 * fails makes the whole kernel side a retry of daemon_watch() (sync_failed()).
 * @when: "timer", "reload".  Control thread. */
void steer_watch(struct daemon *d, const char *when)
{
	struct srv6_steer_cfg sc;
	char what[512], err[512], head[32];
	int r;

	if (!d->steered || d->conf.steer != SRV6_STEER_AUTO || d->sync_dirty)
		return;
	if (steer_cfg_make(d, &d->conf, &sc) < 0) {
		srv6_steer_cfg_release(&sc);
		return;
	}
	r = srv6_steer_check(&sc, what, sizeof(what));
	if (r < 0) {
		srv6_log(LOG_WARNING, "steering check (%s): %s", when, what);
	} else if (r > 0) {
		d->steer_repairs++;
		srv6_log(LOG_WARNING, "steering (%s check): %s: installing it again", when, what);
		srv6_ctlsock_event(d->ctl, "steering", "reinstalled (%s check): %s", when, what);
		if (srv6_steer_install(&sc, what, sizeof(what)) < 0) {
			srv6_seterr(err, sizeof(err), "steering: %s", what);
			snprintf(head, sizeof(head), "%s check", when);
			sync_failed(d, head, err);
		}
	}
	srv6_steer_cfg_release(&sc);
}

static bool refresh_one(const struct srv6_saddr_env *env, bool encaps, const struct in6_addr *segs,
			const char *dev, struct in6_addr *src)
{
	struct in6_addr n;
	int oif = 0;

	if (!encaps)
		return false;
	if (dev[0] && !(oif = (int)if_nametoindex(dev)))
		return false;
	if (srv6_saddr_from_env(env, &segs[0], oif, &n) < 0 || !memcmp(&n, src, sizeof(n)))
		return false;
	*src = n;
	return true;
}

void refresh_sources(struct daemon *d)
{
	struct srv6_conf *c = &d->conf;
	struct srv6_saddr_env env;
	unsigned int changed = 0;
	char err[SRV6_CONF_ERRLEN + 128];

	if (c->has_encap_src)
		return;
	if (srv6_saddr_env_read(&env) < 0) {   /* tunsrc unreadable this round: wait */
		srv6_saddr_env_free(&env);
		return;
	}
	for (size_t i = 0; i < c->nsids; i++) {
		struct srv6_sid_cfg *cfg = &c->sids[i].cfg;

		if (!cfg->pending)   /* pending ones: complete_pending() */
			changed += refresh_one(&env, srv6_action_encaps(cfg->action) && cfg->nsegs,
					       cfg->segs, cfg->dev_name, &cfg->encap_src);
	}
	for (size_t i = 0; i < c->nroutes; i++) {
		struct srv6_policy *pol = &c->routes[i].pol;

		if (!pol->pending)
			changed += refresh_one(&env, mode_encaps(pol->mode) && pol->nsegs,
					       pol->segs, pol->dev_name, &pol->encap_src);
	}
	srv6_saddr_env_free(&env);
	if (!changed)
		return;
	/* a failed publish is retried by retry_publish() (the new sources are
	 * in d->conf already) */
	d->publish_dirty = conf_publish(d, c, err, sizeof(err)) < 0;
	if (d->publish_dirty)
		srv6_log(LOG_ERR, "outer source changed, republishing failed: %s", err);
	else
		srv6_log(LOG_NOTICE, "outer source address changed for %u SIDs/policies (tunsrc "
			 "or interface addresses): republished", changed);
}

/* A publish of the running conf that failed (refresh_sources(),
 * complete_pending()) is tried again, whatever set the conf has (with
 * encap-source no source is ever refreshed, and a SID completed in d->conf
 * must not stay pending in the tables).  Logged when it succeeds (the
 * failure was logged where it happened).  Control thread, every source
 * tick. */
void retry_publish(struct daemon *d)
{
	char err[SRV6_CONF_ERRLEN + 128];

	if (!d->publish_dirty)
		return;
	if (conf_publish(d, &d->conf, err, sizeof(err)) < 0)
		return;
	d->publish_dirty = false;
	srv6_log(LOG_NOTICE, "republished the running configuration after a failed publish");
}

/* "STATUS=" for the service manager: one line on what runs (and what
 * waits: a degraded start). */
void daemon_notify_status(const struct daemon *d, const char *head)
{
	char pend[64] = "", sync[320] = "";

	if (d->pend.count)
		snprintf(pend, sizeof(pend), ", %zu pending", d->pend.count);
	if (d->sync_dirty)
		snprintf(sync, sizeof(sync), ", rules and routes out of sync (retrying): %s",
			 d->sync_err);
	srv6_notify("%sSTATUS=running: %zu SIDs, %zu routes, queues %u-%u, steering %s%s%s",
		    head, d->conf.nsids, d->conf.nroutes, d->conf.queue_first, d->conf.queue_last,
		    d->conf.steer == SRV6_STEER_AUTO ? "auto" : "none", pend, sync);
}

/* ---- degraded start: completing what waits (linkwatch.h, pending.h) ---- */

/* The outer sources still missing, tried again.  0 or -ENOMEM. */
static int retry_sources(struct daemon *d)
{
	struct srv6_conf *c = &d->conf;
	struct srv6_pending *p = &d->pend;
	struct srv6_saddr_env env;
	char why[SRV6_NHCTX_WHY];
	int r = 0;

	if (srv6_saddr_env_read(&env) == -ENOMEM) {
		srv6_saddr_env_free(&env);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nsids && r != -ENOMEM; i++) {
		struct srv6_sid_cfg *cfg = &c->sids[i].cfg;

		if (!p->src[i])
			continue;
		r = fill_encap_src(c, &env, srv6_action_encaps(cfg->action) && cfg->nsegs, cfg->segs,
				   cfg->dev_name, &cfg->encap_src, why, sizeof(why));
		if (r != -ENOMEM)
			r = srv6_pending_set_src(p, i, why);
	}
	for (size_t i = 0; i < c->nroutes && r != -ENOMEM; i++) {
		struct srv6_policy *pol = &c->routes[i].pol;

		if (!p->src[c->nsids + i])
			continue;
		r = fill_encap_src(c, &env, mode_encaps(pol->mode) && pol->nsegs, pol->segs,
				   pol->dev_name, &pol->encap_src, why, sizeof(why));
		if (r != -ENOMEM)
			r = srv6_pending_set_src(p, c->nsids + i, why);
	}
	srv6_saddr_env_free(&env);
	return r == -ENOMEM ? r : 0;
}

/* One `hmac MODE dev IF` line whose interface changed (srv6_hmac_conf_relink). */
static void hmac_relinked(const char *name, int was, int now)
{
	if (!now)
		srv6_log(LOG_NOTICE, "hmac dev %s: interface gone (its mode applies again when "
			 "it comes back)", name);
	else
		srv6_log(LOG_NOTICE, "hmac dev %s: interface %s (ifindex %d)", name,
			 was ? "created again" : "found", now);
}

/* ---- the policies' routes, watched (linkwatch.h, fallback.h) ---- */

struct pr_report {
	struct daemon *d;
	bool *taken;       /* per route: a foreign route in its place now */
	bool failed;       /* an add failed: looked at again after the backoff */
	unsigned int restored;
};

/* One missing policy route (srv6_polroute_restore): restored (logged and
 * counted), taken (said by polroute_watch()) or failed (said once until a
 * look succeeds). */
static void polroute_report(const struct srv6_conf_route *r, int res, void *arg)
{
	struct pr_report *x = arg;
	struct daemon *d = x->d;
	char a[INET6_ADDRSTRLEN + 8];

	addr_str(r->family, &r->prefix, r->plen, false, a, sizeof(a));
	if (res == 0) {
		d->route_restores++;
		if (x->restored++ < POLROUTE_LOG_MAX)
			srv6_log(LOG_NOTICE, "policy route %s metric %u was removed from the kernel: "
				 "restored", a, srv6_route_metric(r));
		srv6_ctlsock_event(d->ctl, "route", "%s metric %u: kernel route removed, restored", a,
				   srv6_route_metric(r));
	} else if (res == -EEXIST) {
		x->taken[r - d->conf.routes] = true;
	} else {
		if (!d->polroute_dirty && !x->failed)
			srv6_log(LOG_ERR, "policy route %s metric %u is gone from the kernel and cannot "
				 "be added again: %s (tried again, at most every %d s)", a,
				 srv6_route_metric(r), strerror(-res), POLROUTE_BACKOFF_MAX);
		x->failed = true;
	}
}

/* What srv6d's device became, said when it changes.  Whether routes can be
 * added through it. */
static bool polroute_dev(struct daemon *d)
{
	int st = srv6_injdev_state(&d->injdev);

	if (st == -ENODEV && d->polroute_dev != st)
		srv6_log(LOG_ERR, "%s was deleted (not by srv6d): the routes of the %zu policies "
			 "went with it and cannot come back, nothing is injected; restart srv6d",
			 d->injdev.name, d->conf.nroutes);
	else if (st == 0 && d->polroute_dev != st)
		srv6_log(LOG_WARNING, "%s is down: the routes of the %zu policies went with it; they "
			 "are restored when it is up", d->injdev.name, d->conf.nroutes);
	else if (st == 1 && d->polroute_dev == 0)
		srv6_log(LOG_NOTICE, "%s is up again", d->injdev.name);
	if (st == -ENODEV || st == 0 || st == 1)
		d->polroute_dev = st;
	return st != -ENODEV && st != 0;   /* unknown: try */
}

/* After a look at the policies' routes: @failed, the next one waits 1, 2,
 * 4 ... POLROUTE_BACKOFF_MAX s (each look dumps the route tables); else
 * the backoff starts again. */
static void polroute_retry_later(struct daemon *d, bool failed)
{
	d->polroute_dirty = failed;
	if (!failed) {
		d->polroute_backoff = 0;
		return;
	}
	d->polroute_backoff = d->polroute_backoff ? d->polroute_backoff * 2 : 1;
	if (d->polroute_backoff > POLROUTE_BACKOFF_MAX)
		d->polroute_backoff = POLROUTE_BACKOFF_MAX;
	d->polroute_next = mono_s() + d->polroute_backoff;
}

/*
 * The policies' kernel routes, after an event that may have taken one away
 * (SRV6_LW_POLROUTE: linkwatch.h) and every tick while the last look
 * failed: what is missing is added again, logged and counted; a route that
 * is not srv6d's in a policy's place (`ip route replace`) is named once and
 * never touched (srv6_polroute_restore removes nothing).  srv6d's own
 * removals (a reload's stale routes) bring one look that finds everything
 * in place and says nothing.  Control thread.
 */
void polroute_watch(struct daemon *d)
{
	struct pr_report x = { .d = d };
	char err[256], a[INET6_ADDRSTRLEN + 8];
	int r;

	if (!d->conf.nroutes || !d->injdev.ifindex || !d->polroute_synced) {
		d->polroute_dirty = false;
		return;
	}
	if (!polroute_dev(d)) {
		d->polroute_dirty = d->polroute_dev == 0;   /* down: up again is looked for */
		return;
	}
	x.taken = calloc(d->conf.nroutes, sizeof(*x.taken));
	if (!x.taken) {
		d->polroute_dirty = true;
		return;
	}
	r = srv6_polroute_restore(&d->conf, d->injdev.ifindex, polroute_report, &x, err,
				  sizeof(err));
	if (r < 0 && !d->polroute_dirty)
		srv6_log(LOG_ERR, "%s (tried again, at most every %d s)", err, POLROUTE_BACKOFF_MAX);
	if (r < 0) {   /* nothing known of the places */
		polroute_retry_later(d, true);
		free(x.taken);
		return;
	}
	if (x.restored > POLROUTE_LOG_MAX)
		srv6_log(LOG_NOTICE, "%u more policy routes were removed from the kernel: restored",
			 x.restored - POLROUTE_LOG_MAX);
	polroute_retry_later(d, x.failed);
	for (size_t i = 0; i < d->conf.nroutes; i++) {
		const struct srv6_conf_route *rt = &d->conf.routes[i];

		if (!x.taken[i] || (d->polroute_taken && d->polroute_taken[i]))
			continue;
		addr_str(rt->family, &rt->prefix, rt->plen, false, a, sizeof(a));
		srv6_log(LOG_ERR, "policy route %s metric %u: a route that is not srv6d's took its "
			 "place in the main table (same prefix and metric, %s:%u): left alone; the "
			 "policy carries nothing until that route goes, then srv6d's is restored (or "
			 "give the policy another \"metric\")", a, srv6_route_metric(rt), d->conf_path,
			 rt->line);
		srv6_ctlsock_event(d->ctl, "route", "%s metric %u: a foreign route took its place",
				   a, srv6_route_metric(rt));
	}
	free(d->polroute_taken);
	d->polroute_taken = x.taken;
}

/*
 * @want (SRV6_LW_*): after rtnetlink events, or every tick (@tick) while
 * something is pending.  VERIFY finds contexts whose route the kernel
 * removed (their SIDs become pending); RETRY resolves the pending ones
 * again.  A changed state is published, logged once and announced in
 * STATUS=.  Control thread, never inside a reload.
 */
void complete_pending(struct daemon *d, int want, bool tick)
{
	struct srv6_sid_cfg **cfgs;
	char err[SRV6_CONF_ERRLEN + 128];
	int r;

	/* `hmac MODE dev IF` follows its interface by name (every tick too: a
	 * missed event must not leave a re-created interface unchecked) */
	if (tick || (want & SRV6_LW_LINK))
		(void)srv6_hmac_conf_relink(d->conf.hmac, hmac_relinked);
	/* a policy's route removed or taken; a failed look again */
	if ((want & SRV6_LW_POLROUTE) ||
	    (tick && d->polroute_dirty && mono_s() >= d->polroute_next))
		polroute_watch(d);

	/* A link's RTM_NEWLINK is sent before the kernel flushes its routes
	 * (__dev_notify_flags(), then the NETDEV_DOWN notifiers), and IPv4
	 * says nothing about the flush: a check right after the event may
	 * come too early, so the next tick checks again. */
	if (tick) {
		want |= d->verify_again;
		d->verify_again = 0;
	} else {
		d->verify_again |= want & SRV6_LW_VERIFY;
	}
	if (!(want & SRV6_LW_VERIFY) && !d->pend.count)
		return;
	cfgs = sid_cfgs(&d->conf, err, sizeof(err));
	if (!cfgs)
		return;
	if (want & SRV6_LW_VERIFY) {
		r = srv6_nhctx_verify(d->nh, want & SRV6_LW_VERIFY6, want & SRV6_LW_VERIFY4, cfgs,
				      d->conf.nsids, d->pend.nh);
		if (r < 0)
			srv6_log(LOG_WARNING, "checking the next-hop contexts: %s", strerror(-r));
	}
	if (d->pend.count || (want & SRV6_LW_VERIFY)) {
		(void)retry_sources(d);
		(void)srv6_nhctx_complete(d->nh, cfgs, d->conf.nsids, d->pend.nh);
	}
	free(cfgs);
	if (!srv6_pending_update(&d->pend, &d->conf))
		return;
	/* a failed publish is retried by retry_publish() */
	d->publish_dirty = conf_publish(d, &d->conf, err, sizeof(err)) < 0;
	if (d->publish_dirty)
		srv6_log(LOG_ERR, "publishing completed entries: %s", err);
	srv6_pending_log(&d->pend, &d->conf);
	daemon_notify_status(d, "");
}

/* ---- the periodic daemon_watch (control thread) ---- */

int64_t mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* A worker whose thread ended on its own leaves its queue bound and unread:
 * an outage as soon as the queue fills.  Say which and stop the daemon
 * (non-zero exit: the service manager restarts it with fresh sockets).
 * 0, or -1 when srv6d must exit. */
static int watch_workers(struct daemon *d)
{
	int dead = 0;

	for (unsigned int i = 0; i < d->nworkers; i++) {
		int e = srv6_worker_failed(&d->workers[i]);

		if (e < 0) {
			srv6_log(LOG_ERR, "queue %u: worker stopped: %s", srv6_nfq_queue(d->workers[i].nfq),
				 strerror(-e));
			srv6_ctlsock_event(d->ctl, "worker", "queue %u: stopped: %s",
					   srv6_nfq_queue(d->workers[i].nfq), strerror(-e));
			dead++;
		}
	}
	for (unsigned int i = 0; i < d->npqs; i++) {
		int e = srv6_pq_failed(&d->pqs[i]);

		if (e < 0) {
			srv6_log(LOG_ERR, "policy queue %u: stopped: %s", d->pqs[i].cfg.queue,
				 strerror(-e));
			dead++;
		}
	}
	if (!dead)
		return 0;
	srv6_log(LOG_ERR, "%d of %u workers stopped: exiting so srv6d is restarted", dead,
		 d->nworkers);
	return -1;
}

/* Everything the control thread checks every WATCH_INTERVAL_S.  0, or -1
 * when srv6d must exit (non-zero). */
int daemon_watch(struct daemon *d)
{
	if (watch_workers(d) < 0)
		return -1;
	/* a failed apply first: it installs the rules anyway */
	if (d->sync_dirty && mono_s() >= d->sync_next)
		sync_retry(d);
	if (mono_s() >= d->next_steer_check) {
		d->next_steer_check = mono_s() + STEER_CHECK_S;
		steer_watch(d, "timer");
	}
	return 0;
}

void daemon_stop_all(struct daemon *d)
{
	char err[512];
	uint32_t gm, gk;

	/* No new packets first, then let every worker verdict what is in
	 * flight, then unbind. */
	srv6_steer_gate_of(&d->conf, &gm, &gk);
	if (d->steered && srv6_steer_remove(daemon_steer_chain(d), gm, gk, err, sizeof(err)) < 0)
		srv6_log(LOG_ERR, "removing steering rules: %s", err);
	d->steered = false;
	for (unsigned int i = 0; i < d->nworkers; i++)
		srv6_worker_stop(&d->workers[i]);
	/* Policy queues: their steering is the operator's; each accepts
	 * what it holds (pqueue.h) before the unbind. */
	for (unsigned int i = 0; i < d->npqs; i++)
		srv6_pq_stop(&d->pqs[i]);
}

uint64_t mono_usec(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

/* Whether every worker's heartbeat moved since the last call (the first
 * call only records them); *@stuck names the first that did not. */
bool workers_alive(struct daemon *d, struct srv6_liveness *live, unsigned int *stuck)
{
	uint64_t beats[SRV6_CONF_MAX_QUEUES];

	for (unsigned int i = 0; i < d->nworkers && i < SRV6_CONF_MAX_QUEUES; i++)
		beats[i] = srv6_worker_heartbeat(&d->workers[i]);
	return srv6_liveness_check(live, beats, stuck);
}

/* Watchdog: ping only while every worker's heartbeat moves. */
void watchdog_tick(struct daemon *d, struct srv6_liveness *live,
		   struct srv6_ratelimit *rl)
{
	unsigned int stuck = 0;

	if (workers_alive(d, live, &stuck)) {
		srv6_notify("WATCHDOG=1");
		if (d->wd_stuck)
			srv6_ctlsock_event(d->ctl, "worker", "progress again: watchdog pings resume");
		d->wd_stuck = false;
	} else {
		srv6_log_rl(rl, LOG_ERR, "queue %u: worker made no progress: withholding the "
			    "watchdog ping", srv6_nfq_queue(d->workers[stuck].nfq));
		if (!d->wd_stuck)   /* events on the transitions only */
			srv6_ctlsock_event(d->ctl, "worker", "queue %u: no progress: withholding the "
					   "watchdog ping", srv6_nfq_queue(d->workers[stuck].nfq));
		d->wd_stuck = true;
	}
}
