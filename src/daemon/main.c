// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - srv6d: load the configuration, resolve next-hop contexts, publish
 * the tables, bind the queues, start one worker per queue, steer traffic to
 * them; SIGHUP reloads, SIGUSR1 dumps counters, SIGTERM/SIGINT stop.
 *
 *   srv6d [-c FILE] [-f] [-n [-v]] [-p FILE] [-s STATSFILE] [-V] [-h]
 *
 * Exit codes: 0 clean stop (or a valid --check), 1 configuration invalid,
 * 2 usage, 3 start-up failed (queues, steering, contexts, pid file...).
 * Without -f, srv6d forks only once it is up, and the command exits with
 * the daemon's start-up status (service.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/netfilter.h>
#include <urcu/urcu-qsbr.h>

#include "srv6d/cache.h"
#include "srv6d/conf.h"
#include "srv6d/hmac_conf.h"
#include "srv6d/ctlsock.h"
#include "srv6d/egress.h"
#include "srv6d/errbuf.h"
#include "srv6d/icmp_tx.h"
#include "srv6d/inject.h"
#include "srv6d/instance.h"
#include "srv6d/kfeat.h"
#include "srv6d/linkwatch.h"
#include "srv6d/log.h"
#include "srv6d/nfq.h"
#include "srv6d/nhctx.h"
#include "srv6d/pending.h"
#include "srv6d/pqueue.h"
#include "srv6d/preflight.h"
#include "srv6d/saddr.h"
#include "srv6d/service.h"
#include "srv6d/statsfile.h"
#include "srv6d/fallback.h"
#include "srv6d/steer.h"
#include "srv6d/worker.h"

#ifndef SRV6D_VERSION
#define SRV6D_VERSION "0.1"    /* the Makefile passes git describe or its VERSION */
#endif

/* Exit codes (srv6d(8)). */
enum {
	EXIT_CONF = 1,         /* configuration invalid (or --check found an error) */
	EXIT_USAGE = 2,
	EXIT_START = 3,        /* start-up failed */
};

#define SRV6D_PIDFILE_DEFAULT "/run/srv6d/srv6d.pid"

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

static int64_t mono_s(void);
struct daemon;
static void notify_status(const struct daemon *d, const char *head);

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
};

/* A counter slot's value at `stats reset`, valid while the slot holds the
 * same prefix (slots are per prefix, reused after a removal). */
struct ctr_base {
	bool set;
	uint8_t family, plen;
	uint8_t addr[16];
	struct srv6_counters c;
};

/* @n uint64_t fields of @v minus those of @base (0 when below). */
static void sub_u64s(void *v, const void *base, size_t size)
{
	uint64_t *a = v;
	const uint64_t *b = base;

	for (size_t i = 0; i < size / sizeof(uint64_t); i++)
		a[i] = a[i] >= b[i] ? a[i] - b[i] : 0;
}
_Static_assert(sizeof(struct srv6_counters) % sizeof(uint64_t) == 0, "all uint64_t");
_Static_assert(sizeof(struct srv6_worker_stats) % sizeof(uint64_t) == 0, "all uint64_t");
_Static_assert(sizeof(struct srv6_nfq_stats) % sizeof(uint64_t) == 0, "all uint64_t");

/* The counters of slot @id (prefix @addr/@plen of @family) since the last reset. */
static void ctr_read(const struct daemon *d, bool policy, uint32_t id, int family,
		     const void *addr, uint8_t plen, struct srv6_counters *ct)
{
	const struct ctr_base *b = policy ? d->base_pol : d->base_sid;
	size_t nb = policy ? d->nbase_pol : d->nbase_sid;

	srv6_cache_counters(d->cache, policy, id, ct);
	if (id < nb && b[id].set && b[id].family == family && b[id].plen == plen &&
	    !memcmp(b[id].addr, addr, family == AF_INET6 ? 16 : 4))
		sub_u64s(ct, &b[id].c, sizeof(*ct));
}

static void worker_read(const struct daemon *d, unsigned int i, struct srv6_worker_stats *s,
			struct srv6_nfq_stats *q)
{
	srv6_worker_stats_read(&d->workers[i], s);
	srv6_nfq_stats_read(d->workers[i].nfq, q);
	if (d->base_w)
		sub_u64s(s, &d->base_w[i], sizeof(*s));
	if (d->base_q)
		sub_u64s(q, &d->base_q[i], sizeof(*q));
}

/* Worker @i's injection socket counters since the last `stats reset`
 * (zero without one).  Control thread. */
static void inj_read(const struct daemon *d, unsigned int i, struct srv6_inj_stats *is)
{
	memset(is, 0, sizeof(*is));
	if (!d->workers[i].inj)
		return;
	srv6_inj_stats_read(d->workers[i].inj, is);
	if (d->base_i)
		sub_u64s(is, &d->base_i[i], sizeof(*is));
}

/* The chain srv6d's steering lives in. */
static const char *steer_chain(const struct daemon *d)
{
	return d->conf.steer_chain;
}

/* One row per option: getopt_long's table and the usage text come from it. */
static const struct opt_row {
	int opt;
	const char *name, *arg, *help;
} opt_rows[] = {
	{ 'c', "config",     "FILE", "configuration file (default " SRV6_CONF_DEFAULT_PATH ")" },
	{ 'f', "foreground", NULL,   "stay in the foreground (what systemd runs), log to stderr" },
	{ 'n', "check",      NULL,   "check the configuration and this host, then exit (0 ok, 1 not)" },
	{ 'v', "verbose",    NULL,   "with --check: print the canonical configuration and the "
				     "rules steer none needs" },
	{ 'p', "pid-file",   "FILE", "pid file (default " SRV6D_PIDFILE_DEFAULT " when forking, "
				     "none in the foreground)" },
	{ 's', "stats",      "FILE", "write counters to FILE on SIGUSR1 and at exit" },
	{ 'S', "socket",     "PATH", "control socket for srv6ctl (default: the conf's "
				     "control-socket, else " SRV6_CTL_SOCK_DEFAULT ")" },
	{ 'V', "version",    NULL,   "print the version and exit" },
	{ 'h', "help",       NULL,   "print this help and exit" },
};
#define NOPTS (sizeof(opt_rows) / sizeof(opt_rows[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: srv6d [-c FILE] [-f] [-n [-v]] [-p FILE] [-s FILE] [-S PATH] [-V] [-h]\n");
	for (size_t i = 0; i < NOPTS; i++) {
		char left[40];

		snprintf(left, sizeof(left), "-%c, --%s%s%s", opt_rows[i].opt, opt_rows[i].name,
			 opt_rows[i].arg ? " " : "", opt_rows[i].arg ? opt_rows[i].arg : "");
		fprintf(f, "  %-24s %s\n", left, opt_rows[i].help);
	}
	fprintf(f, "exit codes: 0 ok, 1 configuration invalid, 2 usage, 3 start-up failed\n");
}

/* getopt_long's option array and short string, from opt_rows. */
static void build_opts(struct option *lo, char *so)
{
	size_t k = 0;

	for (size_t i = 0; i < NOPTS; i++) {
		lo[i] = (struct option){ opt_rows[i].name,
					 opt_rows[i].arg ? required_argument : no_argument,
					 NULL, opt_rows[i].opt };
		so[k++] = (char)opt_rows[i].opt;
		if (opt_rows[i].arg)
			so[k++] = ':';
	}
	lo[NOPTS] = (struct option){ 0 };
	so[k] = '\0';
}

/* @path made absolute (malloc'ed), so a reload after daemon()'s chdir("/")
 * reads the same file.  NULL on ENOMEM. */
static char *abs_path(const char *path)
{
	char cwd[4096], *out;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	if (asprintf(&out, "%s/%s", cwd, path) < 0)
		return NULL;
	return out;
}


static bool action_encaps(enum srv6_action a)
{
	return a == SRV6_ACT_END_B6_ENCAP || a == SRV6_ACT_END_B6_ENCAP_RED;
}

static bool mode_encaps(enum srv6_encap_mode m)
{
	return m != SRV6_MODE_INLINE;
}

static void addr_str(int family, const void *a, uint8_t plen, bool host, char *buf, size_t len)
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
static void conf_warnings(const struct srv6_conf *c, FILE *f)
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
 * once per line, at start and reload.
 */
static void warn_line(const char *path, unsigned int line, const char *what)
{
	srv6_log(LOG_WARNING, "%s:%u: %s needs the injection egress, which is not available: "
		 "such packets are dropped and counted as \"unsupported\"", path, line, what);
}

static void warn_unsupported(const struct daemon *d, const struct srv6_conf *c)
{
	if (d->injdev.ifindex)
		return;
	for (size_t i = 0; i < c->nsids; i++) {
		enum srv6_action a = c->sids[i].cfg.action;

		if (a == SRV6_ACT_END_DX4)
			warn_line(d->conf_path, c->sids[i].line, "End.DX4 (IPv4 results)");
		else if (a == SRV6_ACT_END_DT4)
			warn_line(d->conf_path, c->sids[i].line, "End.DT4 (IPv4 results)");
		else if (a == SRV6_ACT_END_DT46)
			warn_line(d->conf_path, c->sids[i].line, "End.DT46 with an IPv4 inner packet");
		else if (a == SRV6_ACT_END_DX2)
			warn_line(d->conf_path, c->sids[i].line, "End.DX2 (Ethernet frames)");
	}
	for (size_t i = 0; i < c->nroutes; i++)
		if (c->routes[i].family == AF_INET)
			warn_line(d->conf_path, c->routes[i].line, "an IPv4 policy");
}

/* The outer source of an encapsulating SID or policy: encap-source when the
 * conf sets it, else the kernel's source address selection toward the first
 * segment.  0 with @why "", or -errno with what is missing in @why (the
 * entry waits for it). */
static int fill_encap_src(const struct srv6_conf *c, const struct srv6_saddr_env *env,
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
static struct srv6_sid_cfg **sid_cfgs(struct srv6_conf *c, char *err, size_t errlen)
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

static int conf_resolve(struct daemon *d, struct srv6_conf *c, struct srv6_pending *pend,
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
		r = fill_encap_src(c, &env, action_encaps(cfg->action) && cfg->nsegs, cfg->segs,
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

static int conf_publish(struct daemon *d, const struct srv6_conf *c, char *err, size_t errlen)
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
static int steer_cfg_make(const struct daemon *d, const struct srv6_conf *c,
			  struct srv6_steer_cfg *sc)
{
	int r = srv6_steer_cfg_from_conf(c, sc);

	if (r < 0)
		return r;
	sc->chain = steer_chain(d);
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
	bool stale = !d->steered && srv6_steer_stale(steer_chain(d));
	int r;

	if (d->steered || stale) {
		r = srv6_steer_remove(steer_chain(d), err, errlen);
		if (r < 0)
			return r;
		if (stale)
			srv6_log(LOG_NOTICE, "steer none: removed the stale chain %s of an "
				 "earlier steer auto run", steer_chain(d));
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
static int steer_apply(struct daemon *d, const struct srv6_conf *c, char *err, size_t errlen)
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
	 * way (the IPv6 table committed, the IPv4 one not), stop_all() must
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
static void utc_str(time_t t, char *buf, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * The kernel side of the running conf failed to apply (@when: "reload",
 * "route add"..., "retry", "timer check"; @err: which step and why): counted,
 * its first failure and the last reason kept for `srv6ctl status`, retried
 * by watch() after 1, 2, 4 ... SYNC_BACKOFF_MAX s until it holds.  Logged
 * and announced when it starts or its reason changes.  Control thread.
 */
static void sync_failed(struct daemon *d, const char *when, const char *err)
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
		notify_status(d, "");
	}
}

/* The kernel side of the running conf holds again after sync_failed():
 * logged, announced, and said in STATUS=.  Control thread. */
static void sync_ok(struct daemon *d)
{
	long long secs = (long long)(time(NULL) - d->sync_since);

	d->sync_dirty = false;
	d->sync_backoff = 0;
	d->sync_err[0] = '\0';
	srv6_log(LOG_NOTICE, "steering rules and policy routes in place again (out of sync "
		 "for %lld s)", secs);
	srv6_ctlsock_event(d->ctl, "steering", "in sync again after %lld s", secs);
	notify_status(d, "");
}

/* A kernel side that failed to apply, applied again (steer_apply() is a
 * sync).  watch(), once the backoff has passed. */
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
 * fails makes the whole kernel side a retry of watch() (sync_failed()).
 * @when: "timer", "reload".  Control thread. */
static void steer_watch(struct daemon *d, const char *when)
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

/* ---- counters ---- */

struct dump_ctx {
	struct daemon *d;
	FILE *f;           /* NULL: log */
};

static void dump_line(struct dump_ctx *x, const char *head, const struct srv6_counters *ct)
{
	char line[2048];
	int n;

	n = snprintf(line, sizeof(line), "%s %llu %llu %llu", head,
		     (unsigned long long)ct->packets, (unsigned long long)ct->bytes,
		     (unsigned long long)ct->errors);
	for (int r = 1; r < SRV6_DROP_MAX && n > 0 && (size_t)n < sizeof(line); r++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %s=%llu",
			      srv6_drop_name((enum srv6_drop)r), (unsigned long long)ct->drops[r]);
	if (x->f)
		fprintf(x->f, "%s\n", line);
	else
		srv6_log(LOG_INFO, "%s", line);
}

static void dump_sid(const struct srv6_sid_entry *e, void *arg)
{
	struct dump_ctx *x = arg;
	struct srv6_counters ct;
	char a[INET6_ADDRSTRLEN + 8], head[256];

	ctr_read(x->d, false, e->id, AF_INET6, &e->prefix, e->plen, &ct);
	addr_str(AF_INET6, &e->prefix, e->plen, true, a, sizeof(a));
	snprintf(head, sizeof(head), "%s %s", a, srv6_action_name(e->cfg.action));
	dump_line(x, head, &ct);
}

static void dump_policy(const struct srv6_policy_entry *e, void *arg)
{
	struct dump_ctx *x = arg;
	struct srv6_counters ct;
	char a[INET6_ADDRSTRLEN + 8], head[256];

	ctr_read(x->d, true, e->id, e->family, &e->prefix, e->plen, &ct);
	addr_str(e->family, &e->prefix, e->plen, false, a, sizeof(a));
	snprintf(head, sizeof(head), "route %s %s", a, srv6_mode_name(e->pol.mode));
	dump_line(x, head, &ct);
}

/* The injection device's counters: frames the kernel end received and what
 * the veth pair and the host's backlogs dropped (a veth transmit reports
 * success even when its peer drops). */
static void dump_egress(struct dump_ctx *x)
{
	struct srv6_injdev_drops dr;
	char line[512];

	if (!x->d->injdev.ifindex || srv6_injdev_drops(&x->d->injdev, &dr) < 0)
		return;
	snprintf(line, sizeof(line),
		 "egress %s ipv6=%s rx-packets=%llu rx-dropped=%llu tx-dropped=%llu softnet-dropped=%llu",
		 x->d->injdev.name, x->d->inject6 ? "inject" : "verdict",
		 (unsigned long long)dr.rx_packets, (unsigned long long)dr.rx_dropped,
		 (unsigned long long)dr.tx_dropped, (unsigned long long)dr.softnet_dropped);
	if (x->f)
		fprintf(x->f, "%s\n", line);
	else
		srv6_log(LOG_INFO, "%s", line);
}

static void dump_workers(struct dump_ctx *x)
{
	for (unsigned int i = 0; x->d->workers && i < x->d->nworkers; i++) {
		struct srv6_worker *w = &x->d->workers[i];
		struct srv6_worker_stats s;
		struct srv6_nfq_stats q;
		char line[1024];

		if (!w->nfq)
			continue;
		struct srv6_inj_stats is = { 0 };
		int n;

		worker_read(x->d, i, &s, &q);
		inj_read(x->d, i, &is);
		n = snprintf(line, sizeof(line),
			 "queue %u packets=%llu accepted=%llu dropped=%llu miss=%llu malformed=%llu "
			 "truncated=%llu xfamily=%llu icmp-sent=%llu icmp-limited=%llu icmp-failed=%llu "
			 "icmp-ignored=%llu "
			 "enobufs=%llu verdict-errors=%llu send-errors=%llu sendmsgs=%llu batches=%llu "
			 "gso=%llu csum-not-ready=%llu lost-ids=%llu fallback-drops=%llu",
			 srv6_nfq_queue(w->nfq), (unsigned long long)s.packets,
			 (unsigned long long)s.accepted, (unsigned long long)s.dropped,
			 (unsigned long long)s.miss, (unsigned long long)s.malformed,
			 (unsigned long long)(s.truncated), (unsigned long long)s.xfamily,
			 (unsigned long long)s.icmp_sent, (unsigned long long)s.icmp_limited,
			 (unsigned long long)s.icmp_failed, (unsigned long long)s.icmp_ignored,
			 (unsigned long long)q.enobufs,
			 (unsigned long long)q.verdict_errors, (unsigned long long)q.send_errors,
			 (unsigned long long)q.sendmsgs, (unsigned long long)s.batches,
			 (unsigned long long)q.gso, (unsigned long long)q.csum_not_ready,
			 (unsigned long long)q.lost_ids, (unsigned long long)q.fallback_drops);
		if (n > 0 && (size_t)n < sizeof(line))
			snprintf(line + n, sizeof(line) - (size_t)n,
				 " injected=%llu inject-errors=%llu l2-sent=%llu chained=%llu",
				 (unsigned long long)s.injected, (unsigned long long)is.errors,
				 (unsigned long long)is.l2_sent, (unsigned long long)s.chained);
		n = (int)strlen(line);
		if (w->gso && (size_t)n < sizeof(line))
			snprintf(line + n, sizeof(line) - (size_t)n,
				 " gso-injected=%llu gso-sent=%llu gso-segmented=%llu gso-segments=%llu "
				 "gso-dropped=%llu csum-completed=%llu csum-dropped=%llu",
				 (unsigned long long)s.gso_injected, (unsigned long long)is.gso_sent,
				 (unsigned long long)s.gso_segmented,
				 (unsigned long long)s.gso_segments, (unsigned long long)s.gso_dropped,
				 (unsigned long long)s.csum_completed, (unsigned long long)s.csum_dropped);
		if (x->f)
			fprintf(x->f, "%s\n", line);
		else
			srv6_log(LOG_INFO, "%s", line);
	}
}

/* One line per verdict-policy queue (pqueue.h). */
static void dump_pqueues(struct dump_ctx *x)
{
	for (unsigned int i = 0; x->d->pqs && i < x->d->npqs; i++) {
		struct srv6_pq *pq = &x->d->pqs[i];
		struct srv6_pq_stats s;
		char line[512];
		size_t nheld;

		srv6_pq_stats_read(pq, &s, &nheld);
		snprintf(line, sizeof(line),
			 "pqueue %u packets=%llu accepted=%llu dropped=%llu repeated=%llu "
			 "requeued=%llu guarded=%llu held=%llu released=%llu late=%llu enobufs=%llu "
			 "held-now=%zu evicted=%llu reconciled=%llu kernel-dropped=%llu",
			 pq->cfg.queue, (unsigned long long)s.packets,
			 (unsigned long long)s.accepted, (unsigned long long)s.dropped,
			 (unsigned long long)s.repeated, (unsigned long long)s.requeued,
			 (unsigned long long)s.guarded, (unsigned long long)s.held,
			 (unsigned long long)s.released, (unsigned long long)s.late,
			 (unsigned long long)s.enobufs, nheld, (unsigned long long)s.evicted,
			 (unsigned long long)s.reconciled, (unsigned long long)s.kernel_dropped);
		if (x->f)
			fprintf(x->f, "%s\n", line);
		else
			srv6_log(LOG_INFO, "%s", line);
	}
}

static int fill_stats(FILE *f, void *arg)
{
	struct dump_ctx x = { .d = arg, .f = f };

	srv6_cache_foreach_sid(x.d->cache, dump_sid, &x);
	srv6_cache_foreach_policy(x.d->cache, dump_policy, &x);
	dump_workers(&x);
	dump_pqueues(&x);
	dump_egress(&x);
	fprintf(f, "steering repairs=%llu\n",
		(unsigned long long)(x.d->steer_repairs - x.d->base_repairs));
	fprintf(f, "policy-routes restored=%llu\n",
		(unsigned long long)(x.d->route_restores - x.d->base_restores));
	fprintf(f, "sync failed-applies=%llu out-of-sync=%d\n",
		(unsigned long long)(x.d->sync_failures - x.d->base_sync_failures),
		x.d->sync_dirty);
	srv6_pending_print(&x.d->pend, &x.d->conf, f);
	return 0;
}

/* Counters to the log, and to the stats file when one was given (a fresh
 * mkstemp file in its directory renamed over it: readers never see half a
 * file, and a planted symlink is never followed). */
static void dump_counters(struct daemon *d, bool to_log)
{
	struct dump_ctx x = { .d = d };
	char err[512];

	if (to_log) {
		srv6_cache_foreach_sid(d->cache, dump_sid, &x);
		srv6_cache_foreach_policy(d->cache, dump_policy, &x);
		dump_workers(&x);
		dump_pqueues(&x);
		dump_egress(&x);
		srv6_log(LOG_INFO, "steering repairs=%llu",
			 (unsigned long long)(d->steer_repairs - d->base_repairs));
		srv6_log(LOG_INFO, "policy-routes restored=%llu",
			 (unsigned long long)(d->route_restores - d->base_restores));
		srv6_log(LOG_INFO, "sync failed-applies=%llu out-of-sync=%d",
			 (unsigned long long)(d->sync_failures - d->base_sync_failures),
			 d->sync_dirty);
		srv6_pending_print(&d->pend, &d->conf, NULL);
	}
	if (d->stats_path && srv6_file_replace(d->stats_path, fill_stats, d, err, sizeof(err)) < 0)
		srv6_log(LOG_ERR, "%s", err);
}

/* ---- reload ---- */

/* The sysctls srv6d applies as the kernel would: net.ipv6.seg6_flowlabel
 * (any int: > 0 hash, 0 copy, < 0 zero).  At start and on every reload. */
static void read_sysctls(struct daemon *d)
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
 * the kernel that just failed), d->sync_dirty is set and watch() applies
 * the kernel side again until it holds.  @what ("reload", "sid add"...)
 * heads the log lines.  Control thread.
 */
static int conf_apply(struct daemon *d, struct srv6_conf *nc, const char *what, char *err,
		      size_t errlen, bool *live)
{
	struct srv6_pending np;
	char serr[512];
	int r, sr;

	warn_unsupported(d, nc);
	read_sysctls(d);
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
	/* What the new conf waits for replaces what the old one did. */
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
	nc->egress = d->conf.egress;
	memcpy(nc->pqueues, d->conf.pqueues, sizeof(nc->pqueues));
	nc->npqueues = d->conf.npqueues;
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

/* SIGHUP and `srv6ctl reload`: 0, or -errno with "FILE:LINE: message" (or
 * another one-line reason) in @err; the running configuration stays then,
 * unless only its kernel side failed (conf_apply(): the file runs, the
 * kernel side is retried). */
static int reload(struct daemon *d, char *err, size_t errlen)
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
	r = conf_apply(d, &nc, "reload", err, errlen, &live);
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
static int egress_setup(struct daemon *d, char *err, size_t errlen)
{
	const struct srv6_conf *c = &d->conf;
	char derr[256];
	int r;

	char name[IF_NAMESIZE];

	srv6_injdev_name(steer_chain(d), name, sizeof(name));
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
		warn_unsupported(d, c);
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

/*
 * The kernel chooses the outer source per packet (tunsrc, else the addresses
 * of the route's device).  srv6d follows it within SOURCE_REFRESH_S: a
 * changed tunsrc or address republishes the tables.  Control thread.
 */
#define SOURCE_REFRESH_S 2

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

static void refresh_sources(struct daemon *d)
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
			changed += refresh_one(&env, action_encaps(cfg->action) && cfg->nsegs,
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
static void retry_publish(struct daemon *d)
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
static void notify_status(const struct daemon *d, const char *head)
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
		r = fill_encap_src(c, &env, action_encaps(cfg->action) && cfg->nsegs, cfg->segs,
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
static void polroute_watch(struct daemon *d)
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
static void complete_pending(struct daemon *d, int want, bool tick)
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
	notify_status(d, "");
}

static void check_forwarding(void)
{
	int v;

	if (srv6_read_int_file("/proc/sys/net/ipv6/conf/all/forwarding", &v) == 0 && v == 0)
		srv6_log(LOG_WARNING, "net.ipv6.conf.all.forwarding is 0: packets srv6d "
			 "forwards will be dropped by the kernel (srv6d does not change it)");
}

/* ---- the periodic watch (control thread) ---- */

static int64_t mono_s(void)
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
static int watch(struct daemon *d)
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

static void stop_all(struct daemon *d)
{
	char err[512];

	/* No new packets first, then let every worker verdict what is in
	 * flight, then unbind. */
	if (d->steered && srv6_steer_remove(steer_chain(d), err, sizeof(err)) < 0)
		srv6_log(LOG_ERR, "removing steering rules: %s", err);
	d->steered = false;
	for (unsigned int i = 0; i < d->nworkers; i++)
		srv6_worker_stop(&d->workers[i]);
	/* Policy queues: their steering is the operator's; each accepts
	 * what it holds (pqueue.h) before the unbind. */
	for (unsigned int i = 0; i < d->npqs; i++)
		srv6_pq_stop(&d->pqs[i]);
}

/* --check: the file parsed; now the host.  Exit code. */
static int check_conf(const struct daemon *d, bool verbose)
{
	int errors;

	errors = srv6_preflight(d->conf_path, &d->conf, stderr);
	{       /* hmac hook: the secret files are part of the check */
		char herr[SRV6_CONF_ERRLEN + 128];

		if (srv6_hmac_conf_load(d->conf.hmac, herr, sizeof(herr)) < 0) {
			fprintf(stderr, "%s: %s\n", d->conf_path, herr);
			errors++;
		}
	}
	if (verbose && srv6_conf_print(&d->conf, stdout) < 0) {
		fprintf(stderr, "srv6d: printing the configuration: out of memory\n");
		errors++;
	}
	if (verbose) {  /* as status says it; srv6d needs none of them */
		struct srv6_kfeat k;

		srv6_kfeat_probe(&k);
		printf("# kernel ");
		srv6_kfeat_print(&k, stdout);
		printf("\n");
	}
	return errors ? EXIT_CONF : 0;
}

/* Watchdog check interval floor: two worker receive timeouts (200 ms). */
#define WD_MIN_USEC 400000u

static uint64_t mono_usec(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

/* Whether every worker's heartbeat moved since the last call (the first
 * call only records them); *@stuck names the first that did not. */
static bool workers_alive(struct daemon *d, struct srv6_liveness *live, unsigned int *stuck)
{
	uint64_t beats[SRV6_CONF_MAX_QUEUES];

	for (unsigned int i = 0; i < d->nworkers && i < SRV6_CONF_MAX_QUEUES; i++)
		beats[i] = srv6_worker_heartbeat(&d->workers[i]);
	return srv6_liveness_check(live, beats, stuck);
}

/* Watchdog: ping only while every worker's heartbeat moves. */
static void watchdog_tick(struct daemon *d, struct srv6_liveness *live,
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

/* ---- control socket: srv6ctl's commands (docs/CONTROL.md) ---- */

/* Copies of the published entries, taken under the cache's read lock. */
struct ent_list {
	struct srv6_sid_entry *sid;
	struct srv6_policy_entry *pol;
	size_t n, cap;
	bool oom;
};

static void *grow(void *v, size_t *cap, size_t n, size_t size, bool *oom)
{
	void *nv;

	if (n < *cap)
		return v;
	nv = realloc(v, (*cap ? *cap * 2 : 64) * size);
	if (!nv) {
		*oom = true;
		return v;
	}
	*cap = *cap ? *cap * 2 : 64;
	return nv;
}

static void collect_sid(const struct srv6_sid_entry *e, void *arg)
{
	struct ent_list *l = arg;

	l->sid = grow(l->sid, &l->cap, l->n, sizeof(*e), &l->oom);
	if (l->n < l->cap)
		l->sid[l->n++] = *e;
}

static void collect_pol(const struct srv6_policy_entry *e, void *arg)
{
	struct ent_list *l = arg;

	l->pol = grow(l->pol, &l->cap, l->n, sizeof(*e), &l->oom);
	if (l->n < l->cap)
		l->pol[l->n++] = *e;
}

/* show and stats list entries in address order, as ip route does */
static int cmp_sid_ent(const void *a, const void *b)
{
	const struct srv6_sid_entry *x = a, *y = b;
	int c = memcmp(&x->prefix, &y->prefix, sizeof(x->prefix));

	return c ? c : (int)x->plen - (int)y->plen;
}

static int cmp_pol_ent(const void *a, const void *b)
{
	const struct srv6_policy_entry *x = a, *y = b;
	int c;

	if (x->family != y->family)
		return x->family == AF_INET ? -1 : 1;
	c = memcmp(&x->prefix, &y->prefix, x->family == AF_INET6 ? 16 : 4);
	return c ? c : (int)x->plen - (int)y->plen;
}

static void ent_list_sort(struct ent_list *l)
{
	if (l->sid && l->n > 1)
		qsort(l->sid, l->n, sizeof(*l->sid), cmp_sid_ent);
	if (l->pol && l->n > 1)
		qsort(l->pol, l->n, sizeof(*l->pol), cmp_pol_ent);
}

/* "ADDR" or "ADDR/LEN" of @family (AF_UNSPEC: either) for show/del filters. */
static int parse_pfx(const char *s, int *family, void *addr, uint8_t *plen, char *err,
		     size_t errlen)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash;
	int fam = strchr(s, ':') ? AF_INET6 : AF_INET;
	unsigned long len = fam == AF_INET6 ? 128 : 32, max = len;
	char *end;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (!slash[1] || *end || errno || len > max)
			goto bad;
	}
	if ((*family != AF_UNSPEC && *family != fam) || inet_pton(fam, buf, addr) != 1)
		goto bad;
	*family = fam;
	*plen = (uint8_t)len;
	return 0;
bad:
	snprintf(err, errlen, "bad prefix \"%.60s\"", s);
	return -EINVAL;
}

static void json_counters(FILE *o, const struct srv6_counters *ct)
{
	fprintf(o, "{\"packets\":%llu,\"bytes\":%llu,\"errors\":%llu,\"drops\":{",
		(unsigned long long)ct->packets, (unsigned long long)ct->bytes,
		(unsigned long long)ct->errors);
	for (int r = 1; r < SRV6_DROP_MAX; r++)
		fprintf(o, "%s\"%s\":%llu", r > 1 ? "," : "", srv6_drop_name((enum srv6_drop)r),
			(unsigned long long)ct->drops[r]);
	fprintf(o, "}}");
}

static void text_counters(FILE *o, const struct srv6_counters *ct)
{
	fprintf(o, "    packets %llu bytes %llu errors %llu\n    drops",
		(unsigned long long)ct->packets, (unsigned long long)ct->bytes,
		(unsigned long long)ct->errors);
	for (int r = 1; r < SRV6_DROP_MAX; r++)
		fprintf(o, " %s %llu", srv6_drop_name((enum srv6_drop)r),
			(unsigned long long)ct->drops[r]);
	fprintf(o, "\n");
}

/* sid show [SID] / route show [PREFIX] */
static int ctl_show(struct daemon *d, const struct srv6_ctl_req *q, bool policy, FILE *o,
		    char *err, size_t errlen)
{
	struct ent_list l = { 0 };
	uint8_t want[16] = { 0 }, plen = 0;
	int fam = policy ? AF_UNSPEC : AF_INET6;
	size_t shown = 0;

	if (q->argc && parse_pfx(q->argv[0], &fam, want, &plen, err, errlen))
		return -EINVAL;
	if (policy)
		srv6_cache_foreach_policy(d->cache, collect_pol, &l);
	else
		srv6_cache_foreach_sid(d->cache, collect_sid, &l);
	if (l.oom) {
		free(l.sid);
		free(l.pol);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ent_list_sort(&l);
	if (q->json)
		fprintf(o, "[");
	for (size_t i = 0; i < l.n; i++) {
		char line[SRV6_CONF_LINE_MAX], a[INET6_ADDRSTRLEN];
		int family = policy ? l.pol[i].family : AF_INET6;
		const void *addr = policy ? (const void *)&l.pol[i].prefix : &l.sid[i].prefix;
		uint8_t pl = policy ? l.pol[i].plen : l.sid[i].plen;
		uint32_t id = policy ? l.pol[i].id : l.sid[i].id;
		struct srv6_counters ct;

		if (q->argc && (fam != family || pl != plen ||
				memcmp(addr, want, family == AF_INET6 ? 16 : 4)))
			continue;
		if (policy) {
			struct srv6_conf_route r = { .family = family, .plen = pl, .pol = l.pol[i].pol };

			memcpy(&r.prefix, addr, family == AF_INET6 ? 16 : 4);
			srv6_route_format(line, sizeof(line), &r);
		} else {
			srv6_sid_format(line, sizeof(line), &l.sid[i].prefix, pl, &l.sid[i].cfg);
		}
		inet_ntop(family, addr, a, sizeof(a));
		ctr_read(d, policy, id, family, addr, pl, &ct);
		if (q->json) {
			fprintf(o, "%s{\"%s\":\"%s/%u\",\"family\":\"%s\",\"prefix\":\"%s\",\"plen\":%u,",
				shown ? "," : "", policy ? "route" : "sid", a, pl,
				family == AF_INET6 ? "inet6" : "inet", a, pl);
			if (policy)
				fprintf(o, "\"mode\":\"%s\",\"segs\":[", srv6_mode_name(l.pol[i].pol.mode));
			else
				fprintf(o, "\"action\":\"%s\",\"segs\":[", srv6_action_name(l.sid[i].cfg.action));
			for (unsigned int k = 0; k < (policy ? l.pol[i].pol.nsegs : l.sid[i].cfg.nsegs); k++) {
				char sg[INET6_ADDRSTRLEN];

				inet_ntop(AF_INET6, policy ? &l.pol[i].pol.segs[k] : &l.sid[i].cfg.segs[k],
					  sg, sizeof(sg));
				fprintf(o, "%s\"%s\"", k ? "," : "", sg);
			}
			fprintf(o, "],\"conf\":");
			srv6_json_str(o, line);
			if (q->stats) {
				fprintf(o, ",\"stats\":");
				json_counters(o, &ct);
			}
			fprintf(o, "}");
		} else {
			/* the conf line without its first word, as `ip route` prints */
			fprintf(o, "%s\n", strchr(line, ' ') + 1);
			if (q->stats)
				text_counters(o, &ct);
		}
		shown++;
	}
	if (q->json)
		fprintf(o, "]\n");
	free(l.sid);
	free(l.pol);
	if (q->argc && !shown) {
		snprintf(err, errlen, "%s %s: not configured", policy ? "route" : "sid", q->argv[0]);
		return -ENOENT;
	}
	return 0;
}

/* A copy of the running conf (arrays duplicated; the HMAC lines too, their
 * secrets to be reread by conf_apply() as on a reload).  0 or -ENOMEM. */
static int conf_dup(const struct srv6_conf *src, struct srv6_conf *dst, size_t extra_sids,
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

/* sid add / sid del / route add / route del: a new conf, applied whole
 * (one RCU swap); it lasts until the next reload. */
static int ctl_change(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
		      size_t errlen)
{
	bool add = q->cmd->op == SRV6_CTL_SID_ADD || q->cmd->op == SRV6_CTL_ROUTE_ADD;
	bool route = q->cmd->op == SRV6_CTL_ROUTE_ADD || q->cmd->op == SRV6_CTL_ROUTE_DEL;
	char warn[SRV6_CONF_ERRLEN] = "", what[32];
	struct srv6_conf nc;
	struct srv6_conf_sid sd = { 0 };
	struct srv6_conf_route rt = { 0 };
	int family = route ? AF_UNSPEC : AF_INET6;
	uint8_t addr[16] = { 0 }, plen = 0;
	size_t i, n;
	bool live;
	int r;

	snprintf(what, sizeof(what), "%s %s", q->cmd->object, q->cmd->command);
	if (add && !route) {
		if (srv6_sid_parse_words(q->argc, (char **)q->argv, &sd.prefix, &sd.plen, &sd.cfg, err, errlen))
			return -EINVAL;
		snprintf(warn, sizeof(warn), "%s", err);
		if (srv6_conf_check_sid_tables(&d->conf, &sd.cfg, err, errlen))
			return -EINVAL;
		family = AF_INET6;
		memcpy(addr, &sd.prefix, 16);
		plen = sd.plen;
	} else if (add) {
		if (srv6_route_parse_words(q->argc, (char **)q->argv, &rt, err, errlen))
			return -EINVAL;
		snprintf(warn, sizeof(warn), "%s", err);
		family = rt.family;
		memcpy(addr, &rt.prefix, family == AF_INET6 ? 16 : 4);
		plen = rt.plen;
	} else if (parse_pfx(q->argv[0], &family, addr, &plen, err, errlen)) {
		return -EINVAL;
	}
	if (conf_dup(&d->conf, &nc, 1, 1) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* the entry with this prefix, if any */
	n = route ? nc.nroutes : nc.nsids;
	for (i = 0; i < n; i++) {
		if (route ? nc.routes[i].family == family && nc.routes[i].plen == plen &&
			    !memcmp(&nc.routes[i].prefix, addr, family == AF_INET6 ? 16 : 4)
			  : nc.sids[i].plen == plen && !memcmp(&nc.sids[i].prefix, addr, 16))
			break;
	}
	if (!add && i == n) {
		srv6_conf_free(&nc);
		snprintf(err, errlen, "%s %s: not configured", q->cmd->object, q->argv[0]);
		return -ENOENT;
	}
	if (route) {
		if (!add)
			memmove(&nc.routes[i], &nc.routes[i + 1], (--nc.nroutes - i) * sizeof(rt));
		else
			nc.routes[i == n ? nc.nroutes++ : i] = rt;
	} else {
		if (!add)
			memmove(&nc.sids[i], &nc.sids[i + 1], (--nc.nsids - i) * sizeof(sd));
		else
			nc.sids[i == n ? nc.nsids++ : i] = sd;
	}
	/* a `hmac KEYID` names a key of the running conf (file: conf_finish) */
	if (add) {
		unsigned int line;

		r = srv6_hmac_conf_finish(&nc, &line, err, errlen);
		if (r < 0) {
			srv6_conf_free(&nc);
			return r;
		}
	}
	r = conf_apply(d, &nc, what, err, errlen, &live);
	if (r < 0) {
		char why[SRV6_CTL_ERRLEN];

		srv6_ctlsock_event(d->ctl, q->cmd->object, "%s %s failed: %s", q->cmd->command,
				   q->argv[0], err);
		if (live) {   /* in the running conf: the answer says it failed, and what */
			srv6_log(LOG_NOTICE, "%s %s (srv6ctl; until the next reload): its kernel side "
				 "failed", what, q->argv[0]);
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "%s %s: %s", what, q->argv[0], why);
		}
		return r;
	}
	srv6_log(LOG_NOTICE, "%s %s (srv6ctl; until the next reload)", what, q->argv[0]);
	srv6_ctlsock_event(d->ctl, q->cmd->object, "%s %s", add ? (i == n ? "added" : "replaced") :
			   "deleted", q->argv[0]);
	if (warn[0])
		fprintf(o, "warning: %s\n", warn);
	fprintf(o, "%s %s %s; lasts until the next reload of %s\n", q->cmd->object, q->argv[0],
		add ? (i == n ? "added" : "replaced") : "deleted", d->conf_path);
	if (add && d->conf.steer != SRV6_STEER_AUTO)
		fprintf(o, "steer none: its packets reach srv6d once your rules send them "
			"(srv6ctl steer show --template)\n");
	return 0;
}

/* The kernel's counters of @queue; false when it has none for it. */
static bool kq_find(const char *proc, unsigned int queue, struct srv6_nfq_kstats *k)
{
	return proc && srv6_nfq_proc_find(proc, queue, k) == 0;
}

/* QUEUE: a queue number srv6d serves (SRv6 or policy); *@pq the policy
 * queue or NULL.  0 or -ENOENT/-EINVAL with @err. */
static int queue_arg(struct daemon *d, const char *w, unsigned int *qn, struct srv6_pq **pq,
		     char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(w, &end, 10);
	if (!*w || *end || errno || v > 65535 || w[0] == '-' || w[0] == '+') {
		snprintf(err, errlen, "bad queue \"%.40s\" (0..65535)", w);
		return -EINVAL;
	}
	*qn = (unsigned int)v;
	*pq = NULL;
	for (unsigned int i = 0; i < d->npqs; i++)
		if (d->pqs[i].cfg.queue == v)
			*pq = &d->pqs[i];
	if (!*pq && (v < d->conf.queue_first || v > d->conf.queue_last)) {
		snprintf(err, errlen, "queue %lu is not one of srv6d's queues", v);
		return -ENOENT;
	}
	return 0;
}

/* Worker @i's GSO counters (gso on) for queue show: a "    gso NAME N ..."
 * line, or with @json an object of the same names ('-' as '_'). */
static void print_gso(FILE *o, const struct daemon *d, unsigned int i,
		      const struct srv6_worker_stats *s, const struct srv6_nfq_stats *n, bool json)
{
	struct srv6_inj_stats is;

	inj_read(d, i, &is);
	const struct {
		const char *name;
		uint64_t v;
	} f[] = {
		{ "queued", n->gso },
		{ "injected", s->gso_injected },
		{ "sent", is.gso_sent },
		{ "segmented", s->gso_segmented },
		{ "segments", s->gso_segments },
		{ "dropped", s->gso_dropped },
		{ "csum-completed", s->csum_completed },
		{ "csum-dropped", s->csum_dropped },
	};

	fputs(json ? "{" : "    gso", o);
	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		if (!json) {
			fprintf(o, " %s %llu", f[k].name, (unsigned long long)f[k].v);
			continue;
		}
		fprintf(o, "%s\"", k ? "," : "");
		for (const char *c = f[k].name; *c; c++)
			fputc(*c == '-' ? '_' : *c, o);
		fprintf(o, "\":%llu", (unsigned long long)f[k].v);
	}
	fputs(json ? "}" : "\n", o);
}

/* queue show [N]: the SRv6 queues' counters, the policy queues' counters
 * (with N: their held packets and the last packets seen too). */
static int ctl_queue(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
		     size_t errlen)
{
	char proc[16384];
	bool have = srv6_nfq_proc_read(proc, sizeof(proc)) == 0;
	unsigned int only = 0, nshown = 0;
	struct srv6_pq *opq = NULL;

	if (q->argc) {
		int r = queue_arg(d, q->argv[0], &only, &opq, err, errlen);

		if (r < 0)
			return r;
	}
	if (q->json)
		fprintf(o, "[");
	for (unsigned int i = 0; i < d->nworkers; i++) {
		struct srv6_worker_stats s;
		struct srv6_nfq_stats n;
		struct srv6_nfq_kstats k = { 0 };
		unsigned int qn = srv6_nfq_queue(d->workers[i].nfq);
		bool kk = kq_find(have ? proc : NULL, qn, &k);

		if (q->argc && (opq || qn != only))
			continue;
		worker_read(d, i, &s, &n);
		if (q->json) {
			fprintf(o, "%s{\"queue\":%u,\"packets\":%llu,\"verdicts\":%llu,\"batches\":%llu,"
				"\"accepted\":%llu,\"dropped\":%llu,\"miss\":%llu,\"injected\":%llu,"
				"\"enobufs\":%llu,\"fail_open\":%s,\"kernel\":", nshown++ ? "," : "", qn,
				(unsigned long long)s.packets, (unsigned long long)n.verdicts,
				(unsigned long long)s.batches, (unsigned long long)s.accepted,
				(unsigned long long)s.dropped, (unsigned long long)s.miss,
				(unsigned long long)s.injected, (unsigned long long)n.enobufs,
				d->conf.fail_open ? "true" : "false");
			if (kk)
				fprintf(o, "{\"waiting\":%llu,\"queue_dropped\":%llu,\"user_dropped\":%llu,"
					"\"id_sequence\":%llu,\"portid\":%u}",
					(unsigned long long)k.waiting, (unsigned long long)k.queue_dropped,
					(unsigned long long)k.user_dropped,
					(unsigned long long)k.id_sequence, k.portid);
			else
				fprintf(o, "null");
			fprintf(o, ",\"gso\":");
			if (d->workers[i].gso)
				print_gso(o, d, i, &s, &n, true);
			else
				fprintf(o, "null");
			fprintf(o, "}");
		} else {
			fprintf(o, "queue %u fail-open %s\n    packets %llu verdicts %llu batches %llu "
				"accepted %llu dropped %llu miss %llu injected %llu enobufs %llu\n", qn,
				d->conf.fail_open ? "yes" : "no", (unsigned long long)s.packets,
				(unsigned long long)n.verdicts, (unsigned long long)s.batches,
				(unsigned long long)s.accepted, (unsigned long long)s.dropped,
				(unsigned long long)s.miss, (unsigned long long)s.injected,
				(unsigned long long)n.enobufs);
			if (kk)
				fprintf(o, "    kernel waiting %llu queue-dropped %llu user-dropped %llu "
					"id-sequence %llu\n", (unsigned long long)k.waiting,
					(unsigned long long)k.queue_dropped,
					(unsigned long long)k.user_dropped,
					(unsigned long long)k.id_sequence);
			else
				fprintf(o, "    kernel: no counters (/proc/net/netfilter/nfnetlink_queue)\n");
			if (d->workers[i].gso)
				print_gso(o, d, i, &s, &n, false);
		}
	}
	for (unsigned int i = 0; i < d->npqs; i++) {
		struct srv6_nfq_kstats k = { 0 };
		struct srv6_pq *pq = &d->pqs[i];
		bool kk = kq_find(have ? proc : NULL, pq->cfg.queue, &k);

		if (q->argc && pq != opq)
			continue;
		if (q->json && nshown++)
			fprintf(o, ",");
		srv6_pq_show(pq, o, q->json, q->argc > 0, kk ? &k : NULL);
	}
	if (q->json)
		fprintf(o, "]\n");
	return 0;
}

/* queue release N [COUNT|all]: the COUNT (default 1) oldest held packets
 * of policy queue N get NF_ACCEPT.  Answers once the verdicts are sent, or
 * after SRV6_PQ_RELEASE_WAIT_MS with "releasing K (in progress)" while the
 * queue's thread goes on: the control loop never waits longer. */
static int ctl_release(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
		       size_t errlen)
{
	uint64_t count = 1, pending = 0;
	struct srv6_pq *pq;
	unsigned int qn;
	long n;
	int r;

	r = queue_arg(d, q->argv[0], &qn, &pq, err, errlen);
	if (r < 0)
		return r;
	if (!pq) {
		snprintf(err, errlen, "queue %u is an SRv6 queue, not a policy queue", qn);
		return -EINVAL;
	}
	if (q->argc > 1) {
		char *end;

		errno = 0;
		if (!strcmp(q->argv[1], "all")) {
			count = UINT64_MAX;
		} else {
			count = strtoull(q->argv[1], &end, 10);
			if (!q->argv[1][0] || *end || errno || q->argv[1][0] == '-' || !count) {
				snprintf(err, errlen, "bad count \"%.40s\" (N >= 1 or all)", q->argv[1]);
				return -EINVAL;
			}
		}
	}
	n = srv6_pq_release(pq, count, &pending);
	if (n == -EINPROGRESS) {
		/* the queue's thread goes on sending them: the control loop does
		 * not wait (queue show N: held_now, released) */
		if (q->json)
			fprintf(o, "{\"queue\":%u,\"released\":null,\"releasing\":%llu}\n", qn,
				(unsigned long long)pending);
		else
			fprintf(o, "queue %u: releasing %llu (in progress: queue show %u)\n", qn,
				(unsigned long long)pending, qn);
		return 0;
	}
	if (n < 0) {
		snprintf(err, errlen, "queue %u: %s", qn, strerror((int)-n));
		return (int)n;
	}
	if (q->json)
		fprintf(o, "{\"queue\":%u,\"released\":%ld}\n", qn, n);
	else
		fprintf(o, "queue %u: released %ld\n", qn, n);
	return 0;
}

/* steer show [--template] */
static int ctl_steer(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
		     size_t errlen)
{
	bool tmpl = q->argc == 1;
	struct srv6_steer_cfg sc;
	char what[512] = "";
	int r, state = -1;

	if (q->argc && strcmp(q->argv[0], "--template")) {
		snprintf(err, errlen, "unknown option \"%.40s\" (--template)", q->argv[0]);
		return -EINVAL;
	}
	if (steer_cfg_make(d, &d->conf, &sc) < 0) {
		srv6_steer_cfg_release(&sc);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!tmpl && d->steered)
		state = srv6_steer_check(&sc, what, sizeof(what));
	if (q->json) {
		fprintf(o, "{\"mode\":\"%s\",\"chain\":", d->conf.steer == SRV6_STEER_AUTO ? "auto" : "none");
		srv6_json_str(o, steer_chain(d));
		fprintf(o, ",\"installed\":%s,\"state\":\"%s\",\"detail\":",
			d->steered && !tmpl ? "true" : "false",
			state == 0 ? "intact" : state > 0 ? "changed" : "unknown");
		srv6_json_str(o, what);
		fprintf(o, ",\"repairs\":%llu,\"rules\":{",
			(unsigned long long)(d->steer_repairs - d->base_repairs));
	} else if (!tmpl) {
		fprintf(o, "steer %s chain %s: %s%s\n", d->conf.steer == SRV6_STEER_AUTO ? "auto" : "none",
			steer_chain(d), !d->steered ? "not installed" : state == 0 ? "installed, intact" :
			state > 0 ? "installed, changed: " : "installed, check failed: ",
			d->steered && state != 0 ? what : "");
	}
	r = 0;
	for (int fam = 0; fam < 2 && r == 0; fam++) {
		int family = fam ? AF_INET : AF_INET6;
		int n;
		char *buf;

		if (family == AF_INET && !sc.npol4)
			continue;
		if (!tmpl && !d->steered && !q->json)
			break;
		n = srv6_steer_format(&sc, family, NULL, 0);
		if (n < 0 || !(buf = malloc((size_t)n + 1))) {
			r = n < 0 ? n : -ENOMEM;
			break;
		}
		srv6_steer_format(&sc, family, buf, (size_t)n + 1);
		if (q->json) {
			fprintf(o, "%s\"%s\":", fam ? "," : "", family == AF_INET6 ? "ip6tables" : "iptables");
			srv6_json_str(o, (d->steered || tmpl) ? buf : "");
		} else {
			fprintf(o, "# %s --noflush\n%s", family == AF_INET6 ? "ip6tables-restore" :
				"iptables-restore", buf);
		}
		free(buf);
	}
	if (tmpl && d->npqs) {
		/* The policy queues' steering is the operator's: one rule per
		 * queue at the hook under test, here in ip6tables-restore form. */
		char *buf = NULL;
		size_t blen = 0;
		FILE *t = open_memstream(&buf, &blen);

		if (t) {
			fprintf(t, "*mangle\n");
			for (unsigned int i = 0; i < d->npqs; i++) {
				char pol[64];

				srv6_pqueue_format(pol, sizeof(pol), &d->pqs[i].cfg);
				fprintf(t, "# queue %u policy %s: pick the chain (hook) and the match, e.g.\n"
					"# -A INPUT -d SID/128 -j NFQUEUE --queue-num %u\n"
					"# -A FORWARD -d NEXT-SEGMENT/128 -j NFQUEUE --queue-num %u\n",
					d->pqs[i].cfg.queue, pol, d->pqs[i].cfg.queue,
					d->pqs[i].cfg.queue);
			}
			fprintf(t, "COMMIT\n");
			fclose(t);
		}
		if (q->json) {
			fprintf(o, ",\"policy_queues\":");
			srv6_json_str(o, buf ? buf : "");
		} else if (buf) {
			fprintf(o, "# policy queues (steering is yours; net.netfilter.nf_hooks_lwtunnel=1 "
				"for the hooks inside seg6local)\n# ip6tables-restore --noflush\n%s", buf);
		}
		free(buf);
	}
	if (q->json)
		fprintf(o, "}}\n");
	srv6_steer_cfg_release(&sc);
	if (r < 0)
		snprintf(err, errlen, "formatting the rules: %s", strerror(-r));
	return r;
}

static bool path_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

/* The running start-only settings (a reload keeps them): "cpu-affinity"
 * as "0,2" or "none", "worker-sched" as "other" or "fifo N", "egress". */
static void start_only_strs(const struct srv6_conf *c, char *cpus, size_t clen, char *sched,
			    size_t slen, const char **egress)
{
	static const char *const eg[] = {
		[SRV6_EGRESS_AUTO] = "auto",
		[SRV6_EGRESS_VERDICT] = "verdict",
		[SRV6_EGRESS_INJECT] = "inject",
	};
	size_t n = 0;

	snprintf(cpus, clen, "none");
	for (int i = 0; i < c->ncpus && n < clen; i++)
		n += (size_t)snprintf(cpus + n, clen - n, "%s%d", i ? "," : "", c->cpus[i]);
	if (c->worker_fifo)
		snprintf(sched, slen, "fifo %d", c->worker_prio);
	else
		snprintf(sched, slen, "other");
	*egress = (size_t)c->egress < sizeof(eg) / sizeof(eg[0]) ? eg[c->egress] : "?";
}

static int ctl_status(struct daemon *d, const struct srv6_ctl_req *q, FILE *o)
{
	char cpus[SRV6_CONF_MAX_QUEUES * 12 + 8], sched[32];
	const char *egress;
	static const struct { const char *name, *path; } feats[] = {
		{ "nfnetlink_queue", "/proc/net/netfilter/nfnetlink_queue" },
		{ "ip6tables_raw", "/proc/net/ip6_tables_names" },
	};
	time_t now = time(NULL);
	char loaded[64], since[64];

	utc_str(d->loaded, loaded, sizeof(loaded));
	utc_str(d->sync_since, since, sizeof(since));
	start_only_strs(&d->conf, cpus, sizeof(cpus), sched, sizeof(sched), &egress);
	if (q->json) {
		fprintf(o, "{\"version\":\"%s\",\"pid\":%ld,\"uptime\":%lld,\"config\":", SRV6D_VERSION,
			(long)getpid(), (long long)(now - d->started));
		srv6_json_str(o, d->conf_path);
		fprintf(o, ",\"loaded\":\"%s\",\"sids\":%zu,\"routes\":%zu,\"pending\":%zu,"
			"\"contexts\":%zu,\"queues\":[%u,%u],"
			"\"steer\":\"%s\",\"steering_installed\":%s,\"egress\":{\"ipv6\":\"%s\",\"ipv6_why\":",
			loaded, d->conf.nsids, d->conf.nroutes, d->pend.count, srv6_nhctx_count(d->nh),
			d->conf.queue_first, d->conf.queue_last,
			d->conf.steer == SRV6_STEER_AUTO ? "auto" : "none", d->steered ? "true" : "false",
			d->inject6 ? "inject" : "verdict");
		srv6_json_str(o, d->egress_why);
		fprintf(o, ",\"ipv4\":\"%s\",\"l2\":\"%s\",\"device\":", d->injdev.ifindex ? "inject" : "unsupported",
			d->injdev.ifindex ? "oif" : "unsupported");
		srv6_json_str(o, d->injdev.ifindex ? d->injdev.name : "");
		fprintf(o, "},\"sync\":{\"in_sync\":%s,\"failed_applies\":%llu,\"since\":",
			d->sync_dirty ? "false" : "true", (unsigned long long)d->sync_failures);
		if (d->sync_dirty) {
			srv6_json_str(o, since);
			fprintf(o, ",\"error\":");
			srv6_json_str(o, d->sync_err);
		} else {
			fprintf(o, "null,\"error\":null");
		}
		fprintf(o, "},\"kernel\":{\"seg6\":%s,\"seg6local\":%s,\"seg6_hmac\":%s",
			srv6_kfeat_json(d->kfeat.seg6), srv6_kfeat_json(d->kfeat.seg6local),
			srv6_kfeat_json(d->kfeat.seg6_hmac));
		for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++)
			fprintf(o, ",\"%s\":%s", feats[i].name,
				path_exists(feats[i].path) ? "true" : "false");
		fprintf(o, ",\"seg6_flowlabel\":%d},\"control_dropped\":%llu,"
			"\"start_only\":{\"cpu_affinity\":\"%s\",\"worker_sched\":\"%s\","
			"\"egress\":\"%s\",\"queue_maxlen\":%u}}\n", d->flowlabel_mode,
			(unsigned long long)srv6_ctlsock_dropped(d->ctl), cpus, sched, egress,
			d->conf.queue_maxlen);
		return 0;
	}
	fprintf(o, "srv6d %s pid %ld uptime %llds\n", SRV6D_VERSION, (long)getpid(),
		(long long)(now - d->started));
	fprintf(o, "config %s loaded %s: %zu SIDs, %zu routes, %zu next-hop contexts\n",
		d->conf_path, loaded, d->conf.nsids, d->conf.nroutes, srv6_nhctx_count(d->nh));
	if (d->pend.count)
		fprintf(o, "pending %zu (waiting for an interface, link, route or source: "
			"stats show)\n", d->pend.count);
	fprintf(o, "queues %u-%u fail-open %s, steer %s (%s)\n", d->conf.queue_first,
		d->conf.queue_last, d->conf.fail_open ? "yes" : "no",
		d->conf.steer == SRV6_STEER_AUTO ? "auto" : "none",
		d->steered ? "installed" : "not installed");
	if (d->sync_dirty)
		fprintf(o, "rules and routes OUT OF SYNC since %s (%llu failed applies, retried until "
			"they hold): %s\n", since, (unsigned long long)d->sync_failures, d->sync_err);
	else
		fprintf(o, "rules and routes in sync (%llu failed applies)\n",
			(unsigned long long)d->sync_failures);
	fprintf(o, "as started: queue-maxlen %u, cpu-affinity %s, worker-sched %s, egress %s\n",
		d->conf.queue_maxlen, cpus, sched, egress);
	fprintf(o, "egress ipv6 %s%s (%s)\n", d->inject6 ? "injected through " : "verdicts",
		d->inject6 ? d->injdev.name : "", d->egress_why);
	if (d->injdev.ifindex)
		fprintf(o, "egress ipv4 injected through %s; l2 frames sent on their oif\n",
			d->injdev.name);
	else
		fprintf(o, "egress ipv4 and l2: no injection device (dropped, counted as unsupported)\n");
	fprintf(o, "kernel ");
	srv6_kfeat_print(&d->kfeat, o);
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++)
		fprintf(o, " %s %s", feats[i].name, path_exists(feats[i].path) ? "yes" : "no");
	fprintf(o, " seg6_flowlabel %d\n", d->flowlabel_mode);
	if (srv6_ctlsock_dropped(d->ctl))
		fprintf(o, "control socket: %llu stalled clients closed\n",
			(unsigned long long)srv6_ctlsock_dropped(d->ctl));
	return 0;
}

/* Prometheus text exposition format (docs/CONTROL.md lists the names). */
static void prom_head(FILE *o, const char *name, const char *type, const char *help)
{
	fprintf(o, "# HELP srv6d_%s %s\n# TYPE srv6d_%s %s\n", name, help, name, type);
}

struct prom_row {
	const char *labels;          /* name="value",... */
	struct srv6_counters ct;
};

static void prom_counters(FILE *o, const char *what, struct prom_row *rows, size_t n)
{
	char name[64];
	static const char *const f[] = { "packets", "bytes", "errors" };

	for (int k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "%s_%s_total", what, f[k]);
		prom_head(o, name, "counter", k == 0 ? "Packets processed successfully." :
			  k == 1 ? "Bytes of the packets processed successfully." :
			  "Packets not processed successfully.");
		for (size_t i = 0; i < n; i++)
			fprintf(o, "srv6d_%s{%s} %llu\n", name, rows[i].labels, (unsigned long long)
				(k == 0 ? rows[i].ct.packets : k == 1 ? rows[i].ct.bytes : rows[i].ct.errors));
	}
	snprintf(name, sizeof(name), "%s_drops_total", what);
	prom_head(o, name, "counter", "Packets dropped, by reason.");
	for (size_t i = 0; i < n; i++)
		for (int r = 1; r < SRV6_DROP_MAX; r++)
			fprintf(o, "srv6d_%s{%s,reason=\"%s\"} %llu\n", name, rows[i].labels,
				srv6_drop_name((enum srv6_drop)r), (unsigned long long)rows[i].ct.drops[r]);
}

static int ctl_prometheus(struct daemon *d, FILE *o)
{
	struct ent_list ls = { 0 }, lp = { 0 };
	struct prom_row *rows;
	char (*lab)[160];
	size_t n;
	char proc[16384];
	bool have = srv6_nfq_proc_read(proc, sizeof(proc)) == 0;

	srv6_cache_foreach_sid(d->cache, collect_sid, &ls);
	srv6_cache_foreach_policy(d->cache, collect_pol, &lp);
	n = ls.n > lp.n ? ls.n : lp.n;
	rows = calloc(n + 1, sizeof(*rows));
	lab = calloc(n + 1, sizeof(*lab));
	if (ls.oom || lp.oom || !rows || !lab) {
		free(ls.sid);
		free(lp.pol);
		free(rows);
		free(lab);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ls.n; i++) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &ls.sid[i].prefix, a, sizeof(a));
		snprintf(lab[i], sizeof(lab[i]), "sid=\"%s/%u\",action=\"%s\"", a, ls.sid[i].plen,
			 srv6_action_name(ls.sid[i].cfg.action));
		rows[i].labels = lab[i];
		ctr_read(d, false, ls.sid[i].id, AF_INET6, &ls.sid[i].prefix, ls.sid[i].plen, &rows[i].ct);
	}
	prom_counters(o, "sid", rows, ls.n);
	for (size_t i = 0; i < lp.n; i++) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(lp.pol[i].family, &lp.pol[i].prefix, a, sizeof(a));
		snprintf(lab[i], sizeof(lab[i]), "route=\"%s/%u\",mode=\"%s\"", a, lp.pol[i].plen,
			 srv6_mode_name(lp.pol[i].pol.mode));
		rows[i].labels = lab[i];
		ctr_read(d, true, lp.pol[i].id, lp.pol[i].family, &lp.pol[i].prefix, lp.pol[i].plen,
			 &rows[i].ct);
	}
	prom_counters(o, "route", rows, lp.n);
	free(ls.sid);
	free(lp.pol);
	free(rows);
	free(lab);
	{
		static const struct { const char *name, *help; size_t off; bool nfq; } qf[] = {
			{ "queue_packets_total", "Packets received from the queue.",
			  offsetof(struct srv6_worker_stats, packets), false },
			{ "queue_verdicts_total", "Verdicts sent.", offsetof(struct srv6_nfq_stats, verdicts), true },
			{ "queue_batches_total", "Receive batches processed.",
			  offsetof(struct srv6_worker_stats, batches), false },
			{ "queue_accepted_total", "Packets accepted rewritten.",
			  offsetof(struct srv6_worker_stats, accepted), false },
			{ "queue_dropped_total", "Packets dropped by srv6d.",
			  offsetof(struct srv6_worker_stats, dropped), false },
			{ "queue_miss_total", "Packets matching no SID or policy (accepted unchanged).",
			  offsetof(struct srv6_worker_stats, miss), false },
			{ "queue_injected_total", "Results handed to the injection egress.",
			  offsetof(struct srv6_worker_stats, injected), false },
			{ "queue_enobufs_total", "Receive overruns (the kernel dropped packets).",
			  offsetof(struct srv6_nfq_stats, enobufs), true },
			{ "queue_gso_injected_total", "GSO super-packets injected whole (gso on).",
			  offsetof(struct srv6_worker_stats, gso_injected), false },
			{ "queue_gso_segmented_total", "GSO super-packets segmented by srv6d (gso on).",
			  offsetof(struct srv6_worker_stats, gso_segmented), false },
			{ "queue_gso_dropped_total", "GSO packets dropped: not TCP or no segment size (gso on).",
			  offsetof(struct srv6_worker_stats, gso_dropped), false },
			{ "queue_csum_completed_total", "Partial checksums completed by srv6d (gso on).",
			  offsetof(struct srv6_worker_stats, csum_completed), false },
			{ "queue_csum_dropped_total", "Partial checksums not found: dropped (gso on).",
			  offsetof(struct srv6_worker_stats, csum_dropped), false },
		};

		for (size_t f = 0; f < sizeof(qf) / sizeof(qf[0]); f++) {
			prom_head(o, qf[f].name, "counter", qf[f].help);
			for (unsigned int i = 0; i < d->nworkers; i++) {
				struct srv6_worker_stats s;
				struct srv6_nfq_stats q;

				worker_read(d, i, &s, &q);
				fprintf(o, "srv6d_%s{queue=\"%u\"} %llu\n", qf[f].name,
					srv6_nfq_queue(d->workers[i].nfq), (unsigned long long)
					*(const uint64_t *)((const char *)(qf[f].nfq ? (void *)&q : (void *)&s) + qf[f].off));
			}
		}
	}
	{
		static const char *const kn[] = { "queue_kernel_waiting", "queue_kernel_dropped_total",
						  "queue_kernel_user_dropped_total" };
		static const char *const kh[] = { "Packets waiting for a verdict in the kernel.",
						  "Packets the kernel dropped: queue full.",
						  "Packets the kernel dropped: socket buffer full." };

		for (int f = 0; f < 3; f++) {
			prom_head(o, kn[f], f ? "counter" : "gauge", kh[f]);
			for (unsigned int i = 0; i < d->nworkers; i++) {
				struct srv6_nfq_kstats k;
				unsigned int qn = srv6_nfq_queue(d->workers[i].nfq);

				if (kq_find(have ? proc : NULL, qn, &k))
					fprintf(o, "srv6d_%s{queue=\"%u\"} %llu\n", kn[f], qn, (unsigned long long)
						(f == 0 ? k.waiting : f == 1 ? k.queue_dropped : k.user_dropped));
			}
		}
	}
	prom_head(o, "steering_repairs_total", "counter", "Times the steering was found changed and reinstalled.");
	fprintf(o, "srv6d_steering_repairs_total %llu\n",
		(unsigned long long)(d->steer_repairs - d->base_repairs));
	prom_head(o, "policy_routes_restored_total", "counter",
		  "Policy routes found gone from the kernel and added again.");
	fprintf(o, "srv6d_policy_routes_restored_total %llu\n",
		(unsigned long long)(d->route_restores - d->base_restores));
	prom_head(o, "sync_failed_applies_total", "counter",
		  "Applies of the steering rules and policy routes that failed (retries included).");
	fprintf(o, "srv6d_sync_failed_applies_total %llu\n",
		(unsigned long long)(d->sync_failures - d->base_sync_failures));
	prom_head(o, "sync_out_of_sync", "gauge",
		  "1 while the kernel does not hold the running steering rules and policy routes.");
	fprintf(o, "srv6d_sync_out_of_sync %d\n", d->sync_dirty);
	prom_head(o, "start_time_seconds", "gauge", "Start time, Unix seconds.");
	fprintf(o, "srv6d_start_time_seconds %lld\n", (long long)d->started);
	prom_head(o, "config_load_time_seconds", "gauge", "Last configuration load, Unix seconds.");
	fprintf(o, "srv6d_config_load_time_seconds %lld\n", (long long)d->loaded);
	prom_head(o, "sids", "gauge", "Local SIDs configured.");
	fprintf(o, "srv6d_sids %zu\n", d->conf.nsids);
	prom_head(o, "routes", "gauge", "Headend policies configured.");
	fprintf(o, "srv6d_routes %zu\n", d->conf.nroutes);
	return 0;
}

/* stats show [--format text|json|prometheus] */
static int ctl_stats(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
		     size_t errlen)
{
	const char *fmt = q->json ? "json" : "text";

	if (q->argc == 1 || (q->argc == 2 && strcmp(q->argv[0], "--format"))) {
		snprintf(err, errlen, "stats show: expected --format text|json|prometheus");
		return -EINVAL;
	}
	if (q->argc == 2)
		fmt = q->argv[1];
	if (!strcmp(fmt, "prometheus")) {
		if (ctl_prometheus(d, o) < 0) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		return 0;
	}
	if (!strcmp(fmt, "text"))
		return fill_stats(o, d);
	if (strcmp(fmt, "json")) {
		snprintf(err, errlen, "unknown format \"%.40s\" (text, json or prometheus)", fmt);
		return -EINVAL;
	}
	{
		struct srv6_ctl_req sq = { .cmd = q->cmd, .json = true, .stats = true };

		fprintf(o, "{\"sids\":");
		if (ctl_show(d, &sq, false, o, err, errlen) < 0)
			return -ENOMEM;
		fprintf(o, ",\"routes\":");
		if (ctl_show(d, &sq, true, o, err, errlen) < 0)
			return -ENOMEM;
		fprintf(o, ",\"queues\":");
		(void)ctl_queue(d, &sq, o, err, errlen);
		fprintf(o, ",\"steering\":{\"repairs\":%llu},\"policy_routes\":{\"restored\":%llu},"
			"\"sync\":{\"failed_applies\":%llu,\"out_of_sync\":%s}}\n",
			(unsigned long long)(d->steer_repairs - d->base_repairs),
			(unsigned long long)(d->route_restores - d->base_restores),
			(unsigned long long)(d->sync_failures - d->base_sync_failures),
			d->sync_dirty ? "true" : "false");
	}
	return 0;
}

/* stats reset: remember every counter now (kernel counters are not ours) */
static int ctl_reset(struct daemon *d, FILE *o, char *err, size_t errlen)
{
	struct ent_list ls = { 0 }, lp = { 0 };
	uint32_t maxs = 0, maxp = 0;
	struct ctr_base *bs, *bp;
	struct srv6_worker_stats *bw;
	struct srv6_nfq_stats *bq;
	struct srv6_inj_stats *bi;

	srv6_cache_foreach_sid(d->cache, collect_sid, &ls);
	srv6_cache_foreach_policy(d->cache, collect_pol, &lp);
	for (size_t i = 0; i < ls.n; i++)
		maxs = ls.sid[i].id + 1 > maxs ? ls.sid[i].id + 1 : maxs;
	for (size_t i = 0; i < lp.n; i++)
		maxp = lp.pol[i].id + 1 > maxp ? lp.pol[i].id + 1 : maxp;
	bs = calloc(maxs + 1, sizeof(*bs));
	bp = calloc(maxp + 1, sizeof(*bp));
	bw = calloc(d->nworkers + 1, sizeof(*bw));
	bq = calloc(d->nworkers + 1, sizeof(*bq));
	bi = calloc(d->nworkers + 1, sizeof(*bi));
	if (ls.oom || lp.oom || !bs || !bp || !bw || !bq || !bi) {
		free(bs);
		free(bp);
		free(bw);
		free(bq);
		free(bi);
		free(ls.sid);
		free(lp.pol);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < ls.n; i++) {
		struct ctr_base *b = &bs[ls.sid[i].id];

		*b = (struct ctr_base){ .set = true, .family = AF_INET6, .plen = ls.sid[i].plen };
		memcpy(b->addr, &ls.sid[i].prefix, 16);
		srv6_cache_counters(d->cache, false, ls.sid[i].id, &b->c);
	}
	for (size_t i = 0; i < lp.n; i++) {
		struct ctr_base *b = &bp[lp.pol[i].id];

		*b = (struct ctr_base){ .set = true, .family = (uint8_t)lp.pol[i].family,
					.plen = lp.pol[i].plen };
		memcpy(b->addr, &lp.pol[i].prefix, lp.pol[i].family == AF_INET6 ? 16 : 4);
		srv6_cache_counters(d->cache, true, lp.pol[i].id, &b->c);
	}
	for (unsigned int i = 0; i < d->nworkers; i++) {
		srv6_worker_stats_read(&d->workers[i], &bw[i]);
		srv6_nfq_stats_read(d->workers[i].nfq, &bq[i]);
		if (d->workers[i].inj)
			srv6_inj_stats_read(d->workers[i].inj, &bi[i]);
	}
	free(d->base_sid);
	free(d->base_pol);
	free(d->base_w);
	free(d->base_q);
	free(d->base_i);
	d->base_sid = bs;
	d->nbase_sid = maxs;
	d->base_pol = bp;
	d->nbase_pol = maxp;
	d->base_w = bw;
	d->base_q = bq;
	d->base_i = bi;
	d->base_repairs = d->steer_repairs;
	d->base_restores = d->route_restores;
	d->base_sync_failures = d->sync_failures;
	for (unsigned int i = 0; i < d->npqs; i++)
		if (d->pqs[i].running)
			srv6_pq_reset(&d->pqs[i]);
	free(ls.sid);
	free(lp.pol);
	srv6_log(LOG_NOTICE, "counters reset (srv6ctl)");
	srv6_ctlsock_event(d->ctl, "stats", "reset");
	fprintf(o, "counters reset (the kernel's queue counters are not srv6d's to reset)\n");
	return 0;
}

/* srv6_ctl_handler: one request.  Control thread. */
static int ctl_run(void *arg, const struct srv6_ctl_req *q, FILE *o, char *err, size_t errlen)
{
	struct daemon *d = arg;
	int r;

	switch (q->cmd->op) {
	case SRV6_CTL_SID_SHOW:
		return ctl_show(d, q, false, o, err, errlen);
	case SRV6_CTL_ROUTE_SHOW:
		return ctl_show(d, q, true, o, err, errlen);
	case SRV6_CTL_SID_ADD:
	case SRV6_CTL_SID_DEL:
	case SRV6_CTL_ROUTE_ADD:
	case SRV6_CTL_ROUTE_DEL:
		return ctl_change(d, q, o, err, errlen);
	case SRV6_CTL_QUEUE_SHOW:
		return ctl_queue(d, q, o, err, errlen);
	case SRV6_CTL_QUEUE_RELEASE:
		return ctl_release(d, q, o, err, errlen);
	case SRV6_CTL_STEER_SHOW:
		return ctl_steer(d, q, o, err, errlen);
	case SRV6_CTL_STATUS:
		return ctl_status(d, q, o);
	case SRV6_CTL_STATS_SHOW:
		return ctl_stats(d, q, o, err, errlen);
	case SRV6_CTL_STATS_RESET:
		return ctl_reset(d, o, err, errlen);
	case SRV6_CTL_RELOAD:
		srv6_notify_reloading();
		r = reload(d, err, errlen);
		notify_status(d, "READY=1\n");
		if (r < 0)
			return r;
		fprintf(o, "reloaded %s: %zu SIDs, %zu routes", d->conf_path, d->conf.nsids,
			d->conf.nroutes);
		if (d->pend.count)
			fprintf(o, ", %zu pending (srv6d completes them when the kernel has "
				"what they wait for: stats show)", d->pend.count);
		fputc('\n', o);
		return 0;
	case SRV6_CTL_MONITOR:
		return SRV6_CTL_MONITOR_KEEP;
	case SRV6_CTL_IMPORT:
	case SRV6_CTL_OP_MAX:
		break;
	}
	snprintf(err, errlen, "not a daemon command");
	return -EINVAL;
}

static void warn_mark_rule(const char *rule, void *arg)
{
	const struct srv6_conf *c = arg;

	srv6_log(LOG_WARNING, "mark rule \"%s\" can change srv6d's mark bits 0x%08x "
		 "(mark-mask): End.X/End.T/End.DT*/End.DX* results it meets lose their "
		 "next-hop context; mask srv6d's bits out (e.g. CONNMARK --restore-mark "
		 "--mask 0x%08x)", rule, c->mark_mask, ~c->mark_mask);
}

/* Other mark users srv6d can see: mangle rules that rewrite its mark bits
 * between its verdict and the routing decision (issue 8, item 4). */
static void warn_mark_users(const struct srv6_conf *c)
{
	char err[256];

	for (int f = 0; f < 2; f++) {
		int family = f ? AF_INET : AF_INET6;

		if (srv6_steer_mark_users(family, c->mark_mask, warn_mark_rule, (void *)c, err,
					  sizeof(err)) < 0)
			srv6_log(LOG_DEBUG, "mark users (%s): %s", f ? "IPv4" : "IPv6", err);
	}
}

int main(int argc, char **argv)
{
	struct daemon d = { .conf_path = SRV6_CONF_DEFAULT_PATH, .polroute_dev = 1 };
	char err[SRV6_CONF_ERRLEN + 256];
	bool foreground = false, check_only = false, verbose = false;
	char *conf_abs = NULL, *stats_abs = NULL;
	const char *pid_path = NULL;
	struct option lopts[NOPTS + 1];
	char sopts[2 * NOPTS + 1];
	struct srv6_liveness live = { 0 };
	struct srv6_ratelimit wd_rl = { 0 };
	uint64_t wd_usec, wd_next, src_next, watch_next;
	int pid_fd = -1, ready_fd = -1, sig_fd = -1;
	sigset_t set;
	int opt, r, rc = EXIT_START, lock_fd = -1;
	unsigned int ticks = 0;

	build_opts(lopts, sopts);
	while ((opt = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			d.conf_path = optarg;
			break;
		case 'f':
			foreground = true;
			break;
		case 'n':
			check_only = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'p':
			pid_path = optarg;
			break;
		case 's':
			d.stats_path = optarg;
			break;
		case 'S':
			d.ctl_path = optarg;
			break;
		case 'V':
			printf("srv6d %s\n", SRV6D_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "srv6d: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}

	r = srv6_conf_parse_file(&d.conf, d.conf_path, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "%s\n", err);
		return EXIT_CONF;
	}
	if (check_only) {
		conf_warnings(&d.conf, stderr);
		rc = check_conf(&d, verbose);
		srv6_conf_free(&d.conf);
		return rc;
	}

	conf_abs = abs_path(d.conf_path);
	stats_abs = d.stats_path ? abs_path(d.stats_path) : NULL;
	if (!conf_abs || (d.stats_path && !stats_abs)) {
		fprintf(stderr, "srv6d: out of memory\n");
		goto out_conf;
	}
	d.conf_path = conf_abs;
	d.stats_path = stats_abs;
	if (!foreground) {
		r = srv6_daemonize(&ready_fd);
		if (r < 0) {
			fprintf(stderr, "srv6d: fork: %s\n", strerror(-r));
			goto out_conf;
		}
		if (!pid_path)
			pid_path = SRV6D_PIDFILE_DEFAULT;
	}
	srv6_log_init(foreground, "srv6d");
	srv6_log_set_level(d.conf.log_level);
	r = srv6_notify_init();
	if (r < 0)
		srv6_log(LOG_WARNING, "NOTIFY_SOCKET: %s: not notifying the service manager",
			 strerror(-r));
	if (pid_path) {
		pid_fd = srv6_pidfile_open(pid_path, err, sizeof(err));
		if (pid_fd < 0) {
			srv6_log(LOG_ERR, "pid file %s", err);
			goto out_conf;
		}
	}
	conf_warnings(&d.conf, NULL);
	check_forwarding();
	read_sysctls(&d);
	srv6_kfeat_probe(&d.kfeat);

	/* Signals are handled by this thread only (sigwaitinfo): workers
	 * inherit the blocked mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SRV6_LINKWATCH_SIG);   /* rtnetlink events (linkwatch.h) */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	d.nworkers = srv6_conf_nqueues(&d.conf);
	d.cache = srv6_cache_new(d.nworkers, SRV6_LOOKUP_RCU);
	if (!d.cache) {
		srv6_log(LOG_ERR, "cache: %s", strerror(errno));
		goto out_conf;
	}
	/* Before anything is touched: a second srv6d with this one's chain,
	 * marks, tables or rule preferences would remove them as a crashed
	 * predecessor's.  Refuse to start instead. */
	{
		struct srv6_instance inst = {
			.chain = d.conf.steer_chain, .mark_base = d.conf.mark_base,
			.mark_mask = d.conf.mark_mask,
			.table_base = d.conf.table_base, .rule_pref = d.conf.rule_pref,
		};

		lock_fd = srv6_instance_lock(&inst, err, sizeof(err));
		if (lock_fd == -EBUSY) {
			srv6_log(LOG_ERR, "%s: give each srv6d its own steer-chain, mark-base, "
				 "table-base and rule-pref", err);
			goto out_cache;
		}
		if (lock_fd < 0)
			srv6_log(LOG_WARNING, "instance lock: %s (a second srv6d with the same "
				 "resources would not be detected)", err);
	}
	/* Bind every queue first: a second srv6d on the same queues fails
	 * here (the kernel refuses the bind) before it touches the first
	 * one's rules and routes, and no rule sends packets to a queue
	 * nobody listens to. */
	d.workers = calloc(d.nworkers, sizeof(*d.workers));
	if (!d.workers) {
		srv6_log(LOG_ERR, "out of memory");
		goto out_cache;
	}
	for (unsigned int i = 0; i < d.nworkers; i++) {
		struct srv6_nfq_opts o = {
			.queue = (uint16_t)(d.conf.queue_first + i),
			.maxlen = d.conf.queue_maxlen,
			.fail_open = d.conf.fail_open,
			.gso = d.conf.gso,
			.headroom = SRV6_PKT_HEADROOM,
		};

		size_t want, got;

		r = srv6_nfq_open(&d.workers[i].nfq, &o, err, sizeof(err));
		if (r < 0) {
			srv6_log(LOG_ERR, "%s", err);
			goto out_queues;
		}
		srv6_nfq_rcvbuf(d.workers[i].nfq, &want, &got);
		if (got && got < want)
			srv6_log(LOG_WARNING, "queue %u: receive buffer %zu bytes, %zu wanted for "
				 "queue-maxlen %u (SO_RCVBUFFORCE refused?): bursts will be lost "
				 "as ENOBUFS; raise net.core.rmem_max", o.queue, got, want,
				 o.maxlen);
	}
	d.pqs = d.conf.npqueues ? calloc(d.conf.npqueues, sizeof(*d.pqs)) : NULL;
	if (d.conf.npqueues && !d.pqs) {
		srv6_log(LOG_ERR, "out of memory");
		goto out_queues;
	}
	for (unsigned int i = 0; i < d.conf.npqueues; i++) {
		struct srv6_nfq_opts o = {
			.queue = d.conf.pqueues[i].queue,
			.maxlen = d.conf.queue_maxlen,
			.fail_open = d.conf.fail_open,
			.rcvtimeo_ms = SRV6_PQ_TICK_MS,
		};

		d.pqs[i].cfg = d.conf.pqueues[i];
		d.pqs[i].held_max = d.conf.queue_maxlen;   /* pqueue.h: the bound */
		r = srv6_nfq_open(&d.pqs[i].nfq, &o, err, sizeof(err));
		if (r < 0) {
			srv6_log(LOG_ERR, "policy %s", err);
			goto out_queues;
		}
		d.npqs++;
	}
	if (egress_setup(&d, err, sizeof(err)) < 0) {
		srv6_log(LOG_ERR, "%s", err);
		goto out_queues;
	}
	d.nh = srv6_nhctx_open(d.conf.mark_base, d.conf.mark_mask, d.conf.table_base, d.conf.rule_pref, err,
			       sizeof(err));
	if (!d.nh) {
		srv6_log(LOG_ERR, "next-hop contexts: %s", err);
		goto out_queues;
	}
	warn_mark_users(&d.conf);
	/* Degraded start: what waits for an interface, a route or a source
	 * is published pending (dropped, counted) and completed later. */
	if (srv6_pending_init(&d.pend, d.conf_path, &d.conf) < 0) {
		srv6_log(LOG_ERR, "out of memory");
		goto out_queues;
	}
	if (conf_resolve(&d, &d.conf, &d.pend, err, sizeof(err)) < 0 ||
	    conf_publish(&d, &d.conf, err, sizeof(err)) < 0) {
		srv6_log(LOG_ERR, "%s", err);
		goto out_queues;
	}
	srv6_pending_log(&d.pend, &d.conf);
	d.lw = srv6_linkwatch_open(d.conf.table_base, d.conf.table_base + SRV6_NHCTX_MAX,
				   d.injdev.ifindex, err, sizeof(err));
	if (!d.lw)
		srv6_log(LOG_WARNING, "%s: pending entries are retried every %d s only", err,
			 WATCH_INTERVAL_S);
	for (unsigned int i = 0; i < d.nworkers; i++) {
		struct srv6_worker *w = &d.workers[i];

		w->idx = i;
		w->nworkers = d.nworkers;
		w->cpu = d.conf.ncpus > 0 ? d.conf.cpus[i] : -1;
		w->fifo_prio = d.conf.worker_fifo ? d.conf.worker_prio : 0;
		w->cache = d.cache;
		w->mark_mask = d.conf.mark_mask;
		w->pol_ifindex = (uint32_t)d.injdev.ifindex;
		r = srv6_worker_start(w);
		if (r < 0) {
			srv6_log(LOG_ERR, "queue %u: worker thread: %s", srv6_nfq_queue(w->nfq),
				 strerror(-r));
			goto out_workers;
		}
	}
	for (unsigned int i = 0; i < d.npqs; i++) {
		r = srv6_pq_start(&d.pqs[i]);
		if (r < 0) {
			srv6_log(LOG_ERR, "policy queue %u: thread: %s", d.pqs[i].cfg.queue,
				 strerror(-r));
			goto out_workers;
		}
	}
	if (steer_apply(&d, &d.conf, err, sizeof(err)) < 0) {
		srv6_log(LOG_ERR, "steering: %s", err);
		goto out_workers;
	}
	/* The control socket: -S, else the conf's (none: no socket).  A
	 * failure costs srv6ctl, not the datapath: say so and run on. */
	if (!d.ctl_path)
		d.ctl_path = d.conf.ctl_path;
	d.started = d.loaded = time(NULL);
	if (d.ctl_path[0] && strcmp(d.ctl_path, "none")) {
		err[0] = '\0';
		d.ctl = srv6_ctlsock_open(d.ctl_path, err, sizeof(err));
		if (!d.ctl)
			srv6_log(LOG_WARNING, "%s: running without a control socket", err);
		else if (err[0])
			srv6_log(LOG_WARNING, "%s", err);
	}
	srv6_log(LOG_NOTICE, "started: %s, %zu SIDs, %zu routes, %zu pending, queues %u-%u%s, "
		 "%u policy queue%s", d.conf_path, d.conf.nsids, d.conf.nroutes, d.pend.count,
		 d.conf.queue_first, d.conf.queue_last,
		 d.conf.steer == SRV6_STEER_AUTO ? ", steering installed" : "", d.npqs,
		 d.npqs == 1 ? "" : "s");
	/* Up: queues bound, contexts and rules installed, workers running. */
	srv6_notify("MAINPID=%ld", (long)getpid());
	notify_status(&d, "READY=1\n");
	srv6_daemon_ready(&ready_fd);
	srv6_log_detach();

	/* With WatchdogSec=, check the workers every half interval (at least
	 * two receive timeouts, so an idle worker's heartbeat has moved). */
	wd_usec = srv6_watchdog_usec();
	if (wd_usec && srv6_liveness_init(&live, d.nworkers) < 0)
		wd_usec = 0;
	if (wd_usec) {
		unsigned int stuck;

		(void)workers_alive(&d, &live, &stuck);   /* the baseline: even the first ping needs progress */
	}
	wd_usec = wd_usec / 2 > WD_MIN_USEC ? wd_usec / 2 : wd_usec ? WD_MIN_USEC : 0;
	wd_next = mono_usec() + wd_usec;
	src_next = mono_usec() + SOURCE_REFRESH_S * 1000000ull;
	watch_next = mono_usec() + WATCH_INTERVAL_S * 1000000ull;
	/* Signals arrive on a signalfd, polled with the control socket. */
	sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sig_fd < 0) {
		srv6_log(LOG_ERR, "signalfd: %s", strerror(errno));
		goto out_workers;
	}
	for (;;) {
		struct pollfd pfd[1 + SRV6_CTLSOCK_NFDS];
		uint64_t now = mono_usec(), next = src_next < watch_next ? src_next : watch_next, left;
		int sig = -1, npfd = 1, pr;

		/* one tick for the watchdog, the watch (workers, steering) and
		 * the outer-source refresh, whatever signals or requests arrive */
		if (wd_usec && wd_next < next)
			next = wd_next;
		left = next > now ? next - now : 0;
		pfd[0] = (struct pollfd){ .fd = sig_fd, .events = POLLIN };
		if (d.ctl)
			npfd += srv6_ctlsock_pollfds(d.ctl, pfd + 1);
		pr = left ? poll(pfd, (nfds_t)npfd, (int)((left + 999) / 1000)) : 0;
		if (pr > 0 && (pfd[0].revents & POLLIN)) {
			struct signalfd_siginfo ssi;

			if (read(sig_fd, &ssi, sizeof(ssi)) == (ssize_t)sizeof(ssi))
				sig = (int)ssi.ssi_signo;
		}
		/* also on a timeout: it drops clients idle too long */
		if (d.ctl)
			srv6_ctlsock_process(d.ctl, pfd + 1, npfd - 1, ctl_run, &d);
		now = mono_usec();
		if (wd_usec && now >= wd_next) {
			watchdog_tick(&d, &live, &wd_rl);
			wd_next = mono_usec() + wd_usec;
		}
		if (now >= watch_next) {
			watch_next = mono_usec() + WATCH_INTERVAL_S * 1000000ull;
			if (watch(&d) < 0)
				break;
			/* the fallback of a missed event: retry what waits
			 * (and without events at all, look for lost routes
			 * at the steering check's pace) */
			complete_pending(&d, srv6_linkwatch_drain(d.lw, &d.conf) | SRV6_LW_RETRY |
					 (!d.lw && ++ticks % STEER_CHECK_S == 0 ?
					  SRV6_LW_VERIFY | SRV6_LW_POLROUTE : 0), true);
		}
		if (now >= src_next) {
			retry_publish(&d);
			refresh_sources(&d);
			src_next = mono_usec() + SOURCE_REFRESH_S * 1000000ull;
		}
		if (sig < 0) {
			continue;
		}
		if (sig == SRV6_LINKWATCH_SIG) {
			complete_pending(&d, srv6_linkwatch_drain(d.lw, &d.conf), false);
		} else if (sig == SIGHUP) {
			srv6_notify_reloading();
			(void)reload(&d, err, sizeof(err));
			notify_status(&d, "READY=1\n");
		} else if (sig == SIGUSR1) {
			dump_counters(&d, true);
		} else {
			srv6_notify("STOPPING=1");
			srv6_log(LOG_NOTICE, "%s: stopping", strsignal(sig));
			rc = 0;
			break;
		}
	}

out_workers:
	stop_all(&d);
	dump_counters(&d, false);
out_queues:
	/* unbind: the queue instance goes away and the kernel drops what is
	 * still queued (fail-open no longer applies once it is gone); packets
	 * that still match a rule pass only with --queue-bypass. */
	for (unsigned int i = 0; d.workers && i < d.nworkers; i++) {
		srv6_inj_close(d.workers[i].inj);    /* its batch points into the queue's slots */
		srv6_nfq_close(d.workers[i].nfq);
	}
	free(d.workers);
	for (unsigned int i = 0; i < d.npqs; i++)
		srv6_nfq_close(d.pqs[i].nfq);
	free(d.pqs);
	srv6_injdev_close(&d.injdev);
	srv6_linkwatch_close(d.lw);
	srv6_nhctx_close(d.nh);
	srv6_pending_free(&d.pend);
out_cache:
	srv6_cache_destroy(d.cache);
	if (lock_fd >= 0)
		close(lock_fd);
out_conf:
	if (rc != 0)
		srv6_notify("STATUS=start-up failed (see the log)\nERRNO=%d", EIO);
	srv6_notify_close();
	srv6_liveness_free(&live);
	srv6_ctlsock_close(d.ctl);
	if (sig_fd >= 0)
		close(sig_fd);
	free(d.base_sid);
	free(d.base_pol);
	free(d.base_w);
	free(d.base_q);
	free(d.base_i);
	free(d.polroute_taken);
	srv6_pidfile_close(pid_path, pid_fd);
	srv6_conf_free(&d.conf);
	free(conf_abs);
	free(stats_abs);
	return rc;
}
