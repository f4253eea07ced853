/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon.h - the running daemon's state (struct daemon) and the functions the
 * srv6d program's files call across: src/daemon/{main,apply,watch,counters}.c
 * and the control socket's handlers in src/daemon/ctl_*.c.  Not a library
 * interface: only the srv6d program includes it.  Everything here runs on
 * the control thread (main's loop), which owns struct daemon; workers and
 * policy-queue threads never see it.
 */
#ifndef SRV6D_DAEMON_H
#define SRV6D_DAEMON_H

#include "srv6d/cache.h"
#include "srv6d/ctl.h"
#include "srv6d/egress.h"
#include "srv6d/fpm.h"
#include "srv6d/kmirror.h"
#include "srv6d/napi.h"
#include "srv6d/kfeat.h"
#include "srv6d/log.h"
#include "srv6d/nfqstat.h"
#include "srv6d/pending.h"
#include "srv6d/saddr.h"
#include "srv6d/service.h"
#include "srv6d/steer.h"

#ifndef SRV6D_VERSION
#define SRV6D_VERSION "0.1"    /* the Makefile passes git describe or its VERSION */
#endif

/* The control thread's periodic watch (workers, pending entries, policy
 * routes) and steering check. */
#define WATCH_INTERVAL_S 1
#define STEER_CHECK_S    5      /* ip6tables-save every 5 s: cheap enough */

/* A look at the policies' routes that keeps failing is retried after 1, 2,
 * 4 ... at most this many seconds (each look dumps the route tables). */
#define POLROUTE_BACKOFF_MAX 60

/* A kernel side (steer_apply()) that failed to apply is retried after 1,
 * 2, 4 ... at most this many seconds: the steering check's own pace. */
#define SYNC_BACKOFF_MAX STEER_CHECK_S

/* Restores logged one by one per look; the rest in one line. */
#define POLROUTE_LOG_MAX 8

/*
 * The kernel chooses the outer source per packet (tunsrc, else the addresses
 * of the route's device).  srv6d follows it within SOURCE_REFRESH_S: a
 * changed tunsrc or address republishes the tables.  Control thread.
 */
#define SOURCE_REFRESH_S 2

/* Watchdog check interval floor: two worker receive timeouts (200 ms). */
#define WD_MIN_USEC 400000u

struct daemon {
	const char *conf_path;
	const char *stats_path;
	struct srv6_conf conf;          /* the running configuration */
	struct srv6_cache *cache;
	struct srv6_nhctx *nh;
	unsigned int nworkers;
	struct srv6_worker *workers;
	unsigned int npqs;              /* verdict-policy queues (pqueue.h) */
	struct srv6_pq *pqs;
	bool steered;                   /* our rules are installed */
	uint64_t steer_repairs;         /* steering found changed and reinstalled */
	uint64_t route_restores;        /* policy routes found gone and added again */
	bool polroute_dirty;            /* the last look at the policies' routes
					 * failed: looked again after a backoff */
	int64_t polroute_next;          /* CLOCK_MONOTONIC s: no retry before */
	int polroute_backoff;           /* s: 1, 2, 4 ... POLROUTE_BACKOFF_MAX */
	bool polroute_synced;           /* policy_routes() ran for d->conf (the
					 * capture is in place): the watch may add */
	int polroute_dev;               /* srv6d's device at that look (srv6_injdev_state) */
	bool *polroute_taken;           /* per d->conf route: a foreign route in its
					 * place, said once (NULL: none yet) */
	int64_t next_steer_check;       /* CLOCK_MONOTONIC seconds */
	/* The kernel side of d->conf (steer_apply(): fail-open blackholes,
	 * steering rules, policy routes) failed to apply: d->conf is published
	 * and runs, the kernel does not hold it yet; watch() retries it. */
	bool sync_dirty;
	time_t sync_since;              /* wall clock: the first failure of this spell */
	uint64_t sync_failures;         /* failed applies, retries included */
	int64_t sync_next;              /* CLOCK_MONOTONIC s: no retry before */
	int sync_backoff;               /* s: 1, 2, 4 ... SYNC_BACKOFF_MAX */
	char sync_err[256];             /* the last failure, one line */
	int flowlabel_mode;
	struct srv6_kfeat kfeat;        /* the kernel's own SRv6 features, at start */
	struct srv6_injdev injdev;      /* injection egress device (ifindex 0: none) */
	bool inject6;                   /* IPv6 results injected, not verdicts */
	char egress_why[256];           /* why IPv6 results take that path */
	bool publish_dirty;             /* d->conf differs from the published tables (a
					 * publish failed): retried every source tick */
	struct srv6_pending pend;       /* what the running conf still waits for */
	struct srv6_linkwatch *lw;      /* rtnetlink events that may complete it */
	int verify_again;               /* SRV6_LW_VERIFY* for the next tick */
	/* control socket (docs/CONTROL.md) */
	const char *ctl_path;           /* -S, else the conf's control-socket */
	struct srv6_ctlsock *ctl;       /* NULL: none */
	time_t started, loaded;         /* wall clock: start, last configuration load */
	bool wd_stuck;                  /* the last watchdog check withheld the ping */
	/* `stats reset`: what the counters were then, subtracted when read */
	struct ctr_base *base_sid, *base_pol;
	size_t nbase_sid, nbase_pol;
	struct srv6_worker_stats *base_w;
	struct srv6_nfq_stats *base_q;
	struct srv6_inj_stats *base_i;  /* per worker, its injection socket's */
	uint64_t base_repairs, base_restores, base_sync_failures;
	/* zebra's FPM (conf `fpm listen`; NULL: off) */
	struct srv6_fpm *fpm;
	struct srv6_kmirror *kmirror;   /* conf `sids-from kernel` (NULL: off) */
	struct srv6_napi_state napi;    /* conf `ingress-napi`: what to put back */
	bool fpm_dirty;                 /* a learned store changed and the merge did not
					 * apply: retried every watch tick */
	uint64_t fpm_applies, fpm_apply_failures, fpm_shadowed, fpm_rejected;
	double fpm_apply_ms;            /* the last merge's apply, milliseconds */
	size_t fpm_peak;                /* most learned entries since the last trim */
	int fpm_backoff;                /* s before a dirty merge is tried again: 1 .. 60 */
	unsigned int fpm_budget;        /* applies left to this fpm_apply()'s bisect */
	int64_t fpm_next;               /* CLOCK_MONOTONIC s: no retry before */
};

/* A counter slot's value at `stats reset`, valid while the slot holds the
 * same prefix (slots are per prefix, reused after a removal). */
struct ctr_base {
	bool set;
	uint8_t family, plen;
	uint8_t addr[16];
	struct srv6_counters c;
};

/* Copies of the published entries, taken under the cache's read lock. */
struct ent_list {
	struct srv6_sid_entry *sid;
	struct srv6_policy_entry *pol;
	size_t n, cap;
	bool oom;
};

/* src/daemon/counters.c */
void ctr_read(const struct daemon *d, bool policy, uint32_t id, int family,
	      const void *addr, uint8_t plen, struct srv6_counters *ct);
void worker_read(const struct daemon *d, unsigned int i, struct srv6_worker_stats *s,
		 struct srv6_nfq_stats *q);
void inj_read(const struct daemon *d, unsigned int i, struct srv6_inj_stats *is);
int fill_stats(FILE *f, void *arg);
void dump_counters(struct daemon *d, bool to_log);

/* src/daemon/apply.c */
const char *daemon_steer_chain(const struct daemon *d);
bool mode_encaps(enum srv6_encap_mode m);
void addr_str(int family, const void *a, uint8_t plen, bool host, char *buf, size_t len);
void conf_warnings(const struct srv6_conf *c, FILE *f);
int fill_encap_src(const struct srv6_conf *c, const struct srv6_saddr_env *env,
		   bool encaps, const struct in6_addr *segs, const char *dev,
		   struct in6_addr *src, char *why, size_t whylen);
struct srv6_sid_cfg **sid_cfgs(struct srv6_conf *c, char *err, size_t errlen);
/* A conf's SIDs (or routes) sorted by prefix, so that looking up every
 * entry of another table costs one bsearch each, not a scan. */
struct conf_key {
	uint8_t family, plen;
	uint8_t addr[16];
	size_t idx;                    /* into c->sids or c->routes */
};
/* conf_index - the SIDs of @c, or its routes (@policy), as a sorted index
 * of *@n keys (free() it).  NULL when there are none, or on no memory (the
 * caller tells them apart by the conf's count).  Pure. */
struct conf_key *conf_index(const struct srv6_conf *c, bool policy, size_t *n);
/* conf_index_find - the index into the conf's array of the entry of
 * (@family, @addr, @plen) in @v (conf_index()), or -1.  Pure. */
long conf_index_find(const struct conf_key *v, size_t n, int family, const void *addr,
		     uint8_t plen);
int conf_resolve(struct daemon *d, struct srv6_conf *c, struct srv6_pending *pend,
		 char *err, size_t errlen);
int conf_publish(struct daemon *d, const struct srv6_conf *c, char *err, size_t errlen);
int steer_cfg_make(const struct daemon *d, const struct srv6_conf *c,
		   struct srv6_steer_cfg *sc);
int steer_apply(struct daemon *d, const struct srv6_conf *c, char *err, size_t errlen);
int conf_copy(const struct srv6_conf *src, struct srv6_conf *dst, size_t extra_sids,
	      size_t extra_routes);

/* src/daemon/fpm_merge.c */
size_t learned_count(const struct daemon *d);
struct srv6_fpm_entry *learned_entry(const struct daemon *d, size_t i, unsigned int *store);
int fpm_merge(struct daemon *d, struct srv6_conf *nc);
void fpm_pick(struct daemon *d, const bool *live);
bool fpm_is_live(const struct daemon *d, const struct srv6_fpm_entry *e);
void fpm_apply(struct daemon *d);
void utc_str(time_t t, char *buf, size_t len);
void sync_failed(struct daemon *d, const char *when, const char *err);
void sync_ok(struct daemon *d);
void daemon_read_sysctls(struct daemon *d);
int conf_apply(struct daemon *d, struct srv6_conf *nc, const char *what, char *err,
	       size_t errlen, bool *live);
int daemon_reload(struct daemon *d, char *err, size_t errlen);
int egress_setup(struct daemon *d, char *err, size_t errlen);

/* src/daemon/watch.c */
void steer_watch(struct daemon *d, const char *when);
void refresh_sources(struct daemon *d);
void retry_publish(struct daemon *d);
void daemon_notify_status(const struct daemon *d, const char *head);
void polroute_watch(struct daemon *d);
void complete_pending(struct daemon *d, int want, bool tick);
int64_t mono_s(void);
int daemon_watch(struct daemon *d);
void daemon_stop_all(struct daemon *d);
uint64_t mono_usec(void);
bool workers_alive(struct daemon *d, struct srv6_liveness *live, unsigned int *stuck);
void watchdog_tick(struct daemon *d, struct srv6_liveness *live,
		   struct srv6_ratelimit *rl);

/* src/daemon/ctl_show.c */
void collect_sid(const struct srv6_sid_entry *e, void *arg);
void collect_pol(const struct srv6_policy_entry *e, void *arg);
int ctl_show(struct daemon *d, const struct srv6_ctl_req *q, bool policy, FILE *o,
	     char *err, size_t errlen);
int ctl_change(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
	       size_t errlen);

/* src/daemon/ctl_queue.c */
bool kq_find(const char *proc, unsigned int queue, struct srv6_nfq_kstats *k);
int ctl_queue(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
	      size_t errlen);
int ctl_release(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
		size_t errlen);

/* src/daemon/ctl_steer.c */
int ctl_steer(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
	      size_t errlen);

/* src/daemon/ctl_status.c */
int ctl_status(struct daemon *d, const struct srv6_ctl_req *q, FILE *o);

/* src/daemon/ctl_stats.c */
int ctl_stats(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
	      size_t errlen);
int ctl_reset(struct daemon *d, FILE *o, char *err, size_t errlen);

/* src/daemon/ctl_run.c: the srv6_ctl_handler main's loop gives the control socket */
int ctl_run(void *arg, const struct srv6_ctl_req *q, FILE *o, char *err, size_t errlen);

/* src/daemon/ctl_run.c */
int ctl_run(void *arg, const struct srv6_ctl_req *q, FILE *o, char *err, size_t errlen);

#endif /* SRV6D_DAEMON_H */
