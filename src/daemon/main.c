// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - srv6d: load the configuration, resolve next-hop contexts, publish
 * the tables, bind the queues, start one worker per queue, steer traffic to
 * them; SIGHUP reloads, SIGUSR1 dumps counters, SIGTERM/SIGINT stop.
 *
 *   srv6d [-c FILE] [-f] [-n] [-s STATSFILE] [-V]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <urcu/urcu-qsbr.h>

#include "srv6d/cache.h"
#include "srv6d/conf.h"
#include "srv6d/icmp_tx.h"
#include "srv6d/instance.h"
#include "srv6d/log.h"
#include "srv6d/nfq.h"
#include "srv6d/nhctx.h"
#include "srv6d/statsfile.h"
#include "srv6d/steer.h"
#include "srv6d/worker.h"

#define SRV6D_VERSION "0.1"

struct daemon {
	const char *conf_path;
	const char *stats_path;
	struct srv6_conf conf;          /* the running configuration */
	struct srv6_cache *cache;
	struct srv6_nhctx *nh;
	unsigned int nworkers;
	struct srv6_worker *workers;
	bool steered;                   /* our rules are installed */
	uint64_t steer_repairs;         /* steering found changed and reinstalled */
	int64_t next_steer_check;       /* CLOCK_MONOTONIC seconds */
	int flowlabel_mode;
};

/* The chain srv6d's steering lives in. */
static const char *steer_chain(const struct daemon *d)
{
	return d->conf.steer_chain;
}

static const struct {
	const char *opt, *arg, *help;
} usage_table[] = {
	{ "-c", "FILE", "configuration file (default " SRV6_CONF_DEFAULT_PATH ")" },
	{ "-f", NULL, "stay in the foreground, log to stderr" },
	{ "-n", NULL, "check the configuration file and exit (0 valid, 1 not)" },
	{ "-s", "FILE", "write counters to FILE on SIGUSR1 and at exit" },
	{ "-V", NULL, "print the version and exit" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: srv6d [-c FILE] [-f] [-n] [-s FILE] [-V]\n");
	for (size_t i = 0; i < sizeof(usage_table) / sizeof(usage_table[0]); i++)
		fprintf(f, "  %s %-5s %s\n", usage_table[i].opt,
			usage_table[i].arg ? usage_table[i].arg : "", usage_table[i].help);
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

static int read_int_file(const char *path, int *out)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	*out = atoi(buf);
	return 0;
}

/* The kernel's source address selection toward @dst (what seg6_iptunnel
 * does when no source is configured): connect a UDP socket, read its name. */
static int select_source(const struct in6_addr *dst, struct in6_addr *src)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	socklen_t sl = sizeof(sa);
	int fd, r = 0;

	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sa.sin6_addr = *dst;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0)
		r = -errno;
	else
		*src = sa.sin6_addr;
	close(fd);
	return r;
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

/*
 * Results the NFQUEUE verdict of an IPv6 hook cannot carry (an IPv4 packet,
 * an Ethernet frame) need the injection egress, which this version lacks:
 * such packets are dropped and counted ("unsupported").  Say so once per
 * line at load, reload and -n, so the operator is not surprised by it.
 */
static void warn_line(const char *path, unsigned int line, const char *what, bool to_stderr)
{
	static const char tail[] = "needs the injection egress (not in this version): "
				   "such packets are dropped and counted as \"unsupported\"";

	if (to_stderr)
		fprintf(stderr, "%s:%u: warning: %s %s\n", path, line, what, tail);
	else
		srv6_log(LOG_WARNING, "%s:%u: %s %s", path, line, what, tail);
}

static void warn_unsupported(const char *path, const struct srv6_conf *c, bool to_stderr)
{
	for (size_t i = 0; i < c->nsids; i++) {
		enum srv6_action a = c->sids[i].cfg.action;

		if (a == SRV6_ACT_END_DX4)
			warn_line(path, c->sids[i].line, "End.DX4 delivers IPv4, which", to_stderr);
		else if (a == SRV6_ACT_END_DT4)
			warn_line(path, c->sids[i].line, "End.DT4 delivers IPv4, which", to_stderr);
		else if (a == SRV6_ACT_END_DT46)
			warn_line(path, c->sids[i].line,
				  "End.DT46 with an IPv4 inner packet (IPv6 ones work)", to_stderr);
		else if (a == SRV6_ACT_END_DX2)
			warn_line(path, c->sids[i].line, "End.DX2 delivers Ethernet frames, which",
				  to_stderr);
	}
	for (size_t i = 0; i < c->nroutes; i++)
		if (c->routes[i].family == AF_INET)
			warn_line(path, c->routes[i].line, "an IPv4 policy", to_stderr);
}

/* The outer source of an encapsulating SID or policy: encap-source when the
 * conf sets it, else the kernel's source address selection toward the first
 * segment.  0 or -errno with "FILE:LINE: ..." in @err. */
static int fill_encap_src(const struct daemon *d, const struct srv6_conf *c, bool encaps,
			  const struct in6_addr *segs, struct in6_addr *src, unsigned int line,
			  char *err, size_t errlen)
{
	char a[INET6_ADDRSTRLEN];
	int r;

	if (c->has_encap_src) {
		*src = c->encap_src;
		return 0;
	}
	if (!encaps)
		return 0;
	r = select_source(&segs[0], src);
	if (r < 0) {
		inet_ntop(AF_INET6, &segs[0], a, sizeof(a));
		snprintf(err, errlen, "%s:%u: no source address toward %s: %s (set encap-source)",
			 d->conf_path, line, a, strerror(-r));
	}
	return r;
}

/* Fill the datapath fields of @c (encap source, flow label mode); resolve
 * next-hop contexts through @nh.  0 or -errno with one line in @err. */
static int conf_resolve(struct daemon *d, struct srv6_conf *c, char *err, size_t errlen)
{
	struct srv6_sid_cfg **cfgs = NULL;
	int r;

	for (size_t i = 0; i < c->nsids; i++) {
		struct srv6_sid_cfg *cfg = &c->sids[i].cfg;

		cfg->flowlabel_mode = d->flowlabel_mode;
		r = fill_encap_src(d, c, action_encaps(cfg->action) && cfg->nsegs, cfg->segs,
				   &cfg->encap_src, c->sids[i].line, err, errlen);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < c->nroutes; i++) {
		struct srv6_policy *pol = &c->routes[i].pol;

		pol->flowlabel_mode = d->flowlabel_mode;
		pol->mark = 0;
		r = fill_encap_src(d, c, mode_encaps(pol->mode) && pol->nsegs, pol->segs,
				   &pol->encap_src, c->routes[i].line, err, errlen);
		if (r < 0)
			return r;
	}
	if (c->nsids) {
		cfgs = calloc(c->nsids, sizeof(*cfgs));
		if (!cfgs) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		for (size_t i = 0; i < c->nsids; i++)
			cfgs[i] = &c->sids[i].cfg;
	}
	r = srv6_nhctx_sync(d->nh, cfgs, c->nsids, err, errlen);
	free(cfgs);
	return r;
}

/* Build a snapshot of @c and publish it.  0 or -errno with @err. */
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
	r = srv6_cache_publish(d->cache, t);
	if (r < 0) {
		snprintf(err, errlen, "publish: %s", strerror(-r));
		return r;
	}
	return 0;

out_free:
	srv6_tables_free(t);
	return r;
}

/* The steering of @c as srv6_steer_cfg (arrays malloc'ed: steer_cfg_free). */
static int steer_cfg_make(const struct daemon *d, const struct srv6_conf *c,
			  struct srv6_steer_cfg *sc)
{
	struct in6_addr *s6, *p6;
	struct in_addr *p4;
	uint8_t *sl, *pl6, *pl4;

	*sc = (struct srv6_steer_cfg){
		.chain = steer_chain(d),
		.queue_first = d->conf.queue_first,   /* the bound queues */
		.queue_last = d->conf.queue_last,
		.fail_open = d->conf.fail_open,
	};
	sc->sid_prefixes = s6 = calloc(c->nsids + 1, sizeof(*s6));
	sc->sid_plens = sl = calloc(c->nsids + 1, 1);
	sc->pol6 = p6 = calloc(c->nroutes + 1, sizeof(*p6));
	sc->pol6_plens = pl6 = calloc(c->nroutes + 1, 1);
	sc->pol4 = p4 = calloc(c->nroutes + 1, sizeof(*p4));
	sc->pol4_plens = pl4 = calloc(c->nroutes + 1, 1);
	if (!s6 || !sl || !p6 || !pl6 || !p4 || !pl4)
		return -ENOMEM;
	for (size_t i = 0; i < c->nsids; i++) {
		s6[i] = c->sids[i].prefix;
		sl[i] = c->sids[i].plen;
	}
	sc->nsids = c->nsids;
	for (size_t i = 0; i < c->nroutes; i++) {
		if (c->routes[i].family == AF_INET6) {
			p6[sc->npol6] = c->routes[i].prefix.v6;
			pl6[sc->npol6++] = c->routes[i].plen;
		} else {
			p4[sc->npol4] = c->routes[i].prefix.v4;
			pl4[sc->npol4++] = c->routes[i].plen;
		}
	}
	return 0;
}

static void steer_cfg_free(struct srv6_steer_cfg *sc)
{
	free((void *)sc->sid_prefixes);
	free((void *)sc->sid_plens);
	free((void *)sc->pol6);
	free((void *)sc->pol6_plens);
	free((void *)sc->pol4);
	free((void *)sc->pol4_plens);
}

/* Install srv6d's steering rules for @c (steer auto) or remove them; with
 * `steer none`, also the stale chain a crashed `steer auto` run left. */
static int steer_apply(struct daemon *d, const struct srv6_conf *c, char *err, size_t errlen)
{
	struct srv6_steer_cfg sc;
	int r;

	if (c->steer != SRV6_STEER_AUTO) {
		bool stale = !d->steered && srv6_steer_stale(steer_chain(d));

		if (!d->steered && !stale)
			return 0;
		r = srv6_steer_remove(steer_chain(d), err, errlen);
		if (r == 0 && stale)
			srv6_log(LOG_NOTICE, "steer none: removed the stale chain %s of an earlier "
				 "steer auto run", steer_chain(d));
		if (r == 0)
			d->steered = false;
		return r;
	}
	r = steer_cfg_make(d, c, &sc);
	if (r < 0) {
		snprintf(err, errlen, "out of memory");
		goto out_free;
	}
	/* Mark the rules ours before installing: if the install fails half
	 * way (the IPv6 table committed, the IPv4 one not), stop_all() must
	 * still remove what is there, or SID traffic would go on being sent
	 * to a queue nobody reads.  Removal accepts a missing chain. */
	d->steered = true;
	r = srv6_steer_install(&sc, err, errlen);
out_free:
	steer_cfg_free(&sc);
	return r;
}

/* Whether srv6d's steering is still what it installed (a firewall reload or
 * `nft flush ruleset` removes it; a rule inserted in front bypasses it):
 * if not, say what changed, count it and install again.  @when: "timer",
 * "reload".  Control thread. */
static void steer_watch(struct daemon *d, const char *when)
{
	struct srv6_steer_cfg sc;
	char what[512], err[512];
	int r;

	if (!d->steered || d->conf.steer != SRV6_STEER_AUTO)
		return;
	if (steer_cfg_make(d, &d->conf, &sc) < 0) {
		steer_cfg_free(&sc);
		return;
	}
	r = srv6_steer_check(&sc, what, sizeof(what));
	if (r < 0) {
		srv6_log(LOG_WARNING, "steering check (%s): %s", when, what);
	} else if (r > 0) {
		d->steer_repairs++;
		srv6_log(LOG_WARNING, "steering (%s check): %s: installing it again", when, what);
		if (srv6_steer_install(&sc, err, sizeof(err)) < 0)
			srv6_log(LOG_ERR, "steering: %s", err);
	}
	steer_cfg_free(&sc);
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

	srv6_cache_counters(x->d->cache, false, e->id, &ct);
	addr_str(AF_INET6, &e->prefix, e->plen, true, a, sizeof(a));
	snprintf(head, sizeof(head), "%s %s", a, srv6_action_name(e->cfg.action));
	dump_line(x, head, &ct);
}

static void dump_policy(const struct srv6_policy_entry *e, void *arg)
{
	struct dump_ctx *x = arg;
	struct srv6_counters ct;
	char a[INET6_ADDRSTRLEN + 8], head[256];

	srv6_cache_counters(x->d->cache, true, e->id, &ct);
	addr_str(e->family, &e->prefix, e->plen, false, a, sizeof(a));
	snprintf(head, sizeof(head), "route %s %s", a, srv6_mode_name(e->pol.mode));
	dump_line(x, head, &ct);
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
		srv6_worker_stats_read(w, &s);
		srv6_nfq_stats_read(w->nfq, &q);
		snprintf(line, sizeof(line),
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
	fprintf(f, "steering repairs=%llu\n", (unsigned long long)x.d->steer_repairs);
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
		srv6_log(LOG_INFO, "steering repairs=%llu", (unsigned long long)d->steer_repairs);
	}
	if (d->stats_path && srv6_file_replace(d->stats_path, fill_stats, d, err, sizeof(err)) < 0)
		srv6_log(LOG_ERR, "%s", err);
}

/* ---- reload ---- */

/* The sysctls srv6d applies as the kernel would: net.ipv6.seg6_flowlabel
 * (any int: > 0 hash, 0 copy, < 0 zero).  At start and on every reload. */
static void read_sysctls(struct daemon *d)
{
	if (read_int_file("/proc/sys/net/ipv6/seg6_flowlabel", &d->flowlabel_mode) < 0)
		d->flowlabel_mode = 0;
}

static void reload(struct daemon *d)
{
	char err[SRV6_CONF_ERRLEN + 128];
	struct srv6_conf nc;
	int r;

	steer_watch(d, "reload");
	r = srv6_conf_parse_file(&nc, d->conf_path, err, sizeof(err));
	if (r < 0) {
		srv6_log(LOG_ERR, "reload: %s (keeping the running configuration)", err);
		return;
	}
	warn_unsupported(d->conf_path, &nc, false);
	read_sysctls(d);
	srv6_icmp_tx_sysctls_changed();
	if (nc.queue_first != d->conf.queue_first || nc.queue_last != d->conf.queue_last ||
	    nc.queue_maxlen != d->conf.queue_maxlen || nc.fail_open != d->conf.fail_open ||
	    nc.ncpus != d->conf.ncpus ||
	    memcmp(nc.cpus, d->conf.cpus, sizeof(nc.cpus[0]) * (size_t)nc.ncpus))
		srv6_log(LOG_WARNING, "reload: queue, queue-maxlen, fail-open and cpu-affinity changes take effect at the next start");
	if (strcmp(nc.steer_chain, d->conf.steer_chain) || nc.mark_base != d->conf.mark_base ||
	    nc.table_base != d->conf.table_base || nc.rule_pref != d->conf.rule_pref)
		srv6_log(LOG_WARNING, "reload: steer-chain, mark-base, table-base and rule-pref "
			 "changes take effect at the next start");
	r = conf_resolve(d, &nc, err, sizeof(err));
	if (r < 0) {
		srv6_log(LOG_ERR, "reload: %s (keeping the running configuration)", err);
		/* Whether the sync failed (it undid itself) or succeeded and
		 * something after it failed: go back to the running contexts. */
		(void)srv6_nhctx_abort(d->nh);
		srv6_conf_free(&nc);
		return;
	}
	r = conf_publish(d, &nc, err, sizeof(err));
	if (r < 0) {
		srv6_log(LOG_ERR, "reload: %s (keeping the running configuration)", err);
		(void)srv6_nhctx_abort(d->nh);  /* the sync succeeded, nc is not live */
		srv6_conf_free(&nc);
		return;
	}
	/* The new tables are live: the running conf is now nc (queue settings
	 * and the instance's resources stay those it started with). */
	memcpy(nc.steer_chain, d->conf.steer_chain, sizeof(nc.steer_chain));
	nc.mark_base = d->conf.mark_base;
	nc.table_base = d->conf.table_base;
	nc.rule_pref = d->conf.rule_pref;
	nc.queue_first = d->conf.queue_first;
	nc.queue_last = d->conf.queue_last;
	nc.queue_maxlen = d->conf.queue_maxlen;
	nc.fail_open = d->conf.fail_open;
	srv6_conf_free(&d->conf);
	d->conf = nc;
	r = steer_apply(d, &d->conf, err, sizeof(err));
	if (r < 0)
		srv6_log(LOG_ERR, "reload: steering: %s", err);
	/* No worker holds an old SID once a grace period has passed: only
	 * then may the contexts (marks) of removed SIDs go. */
	urcu_qsbr_synchronize_rcu();
	r = srv6_nhctx_gc(d->nh);
	if (r < 0)
		srv6_log(LOG_WARNING, "reload: removing unused next-hop contexts: %s", strerror(-r));
	srv6_log(LOG_NOTICE, "reloaded %s: %zu SIDs, %zu routes", d->conf_path,
		 d->conf.nsids, d->conf.nroutes);
}

static void check_forwarding(void)
{
	int v;

	if (read_int_file("/proc/sys/net/ipv6/conf/all/forwarding", &v) == 0 && v == 0)
		srv6_log(LOG_WARNING, "net.ipv6.conf.all.forwarding is 0: packets srv6d "
			 "forwards will be dropped by the kernel (srv6d does not change it)");
}

/* ---- the periodic watch (control thread) ---- */

#define WATCH_INTERVAL_S 1
#define STEER_CHECK_S    5      /* ip6tables-save every 5 s: cheap enough */

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
}

int main(int argc, char **argv)
{
	struct daemon d = { .conf_path = SRV6_CONF_DEFAULT_PATH };
	char err[SRV6_CONF_ERRLEN + 256];
	bool foreground = false, check_only = false;
	char *conf_abs = NULL, *stats_abs = NULL;
	sigset_t set;
	int64_t next_watch;
	int opt, r, rc = 1, lock_fd = -1;

	while ((opt = getopt(argc, argv, "c:fns:Vh")) != -1) {
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
		case 's':
			d.stats_path = optarg;
			break;
		case 'V':
			printf("srv6d %s\n", SRV6D_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	r = srv6_conf_parse_file(&d.conf, d.conf_path, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (check_only) {
		warn_unsupported(d.conf_path, &d.conf, true);
		srv6_conf_free(&d.conf);
		return 0;
	}

	conf_abs = abs_path(d.conf_path);
	stats_abs = d.stats_path ? abs_path(d.stats_path) : NULL;
	if (!conf_abs || (d.stats_path && !stats_abs)) {
		fprintf(stderr, "srv6d: out of memory\n");
		goto out_conf;
	}
	d.conf_path = conf_abs;
	d.stats_path = stats_abs;
	if (!foreground && daemon(0, 0) < 0) {
		fprintf(stderr, "srv6d: daemon: %s\n", strerror(errno));
		goto out_conf;
	}
	srv6_log_init(foreground, "srv6d");
	check_forwarding();
	warn_unsupported(d.conf_path, &d.conf, false);
	read_sysctls(&d);

	/* Signals are handled by this thread only (sigwaitinfo): workers
	 * inherit the blocked mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
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
	d.nh = srv6_nhctx_open(d.conf.mark_base, d.conf.table_base, d.conf.rule_pref, err,
			       sizeof(err));
	if (!d.nh) {
		srv6_log(LOG_ERR, "next-hop contexts: %s", err);
		goto out_queues;
	}
	if (conf_resolve(&d, &d.conf, err, sizeof(err)) < 0 ||
	    conf_publish(&d, &d.conf, err, sizeof(err)) < 0) {
		srv6_log(LOG_ERR, "%s", err);
		goto out_queues;
	}
	for (unsigned int i = 0; i < d.nworkers; i++) {
		struct srv6_worker *w = &d.workers[i];

		w->idx = i;
		w->nworkers = d.nworkers;
		w->cpu = d.conf.ncpus > 0 ? d.conf.cpus[i] : -1;
		w->cache = d.cache;
		r = srv6_worker_start(w);
		if (r < 0) {
			srv6_log(LOG_ERR, "queue %u: worker thread: %s", srv6_nfq_queue(w->nfq),
				 strerror(-r));
			goto out_workers;
		}
	}
	if (steer_apply(&d, &d.conf, err, sizeof(err)) < 0) {
		srv6_log(LOG_ERR, "steering: %s", err);
		goto out_workers;
	}
	srv6_log(LOG_NOTICE, "started: %s, %zu SIDs, %zu routes, queues %u-%u%s",
		 d.conf_path, d.conf.nsids, d.conf.nroutes, d.conf.queue_first,
		 d.conf.queue_last, d.conf.steer == SRV6_STEER_AUTO ? ", steering installed" : "");

	next_watch = mono_s() + WATCH_INTERVAL_S;
	for (;;) {
		struct timespec tick = { WATCH_INTERVAL_S, 0 };
		siginfo_t si;
		int sig = sigtimedwait(&set, &si, &tick);

		/* The watch runs every interval, whatever signals arrive. */
		if (mono_s() >= next_watch) {
			next_watch = mono_s() + WATCH_INTERVAL_S;
			if (watch(&d) < 0)
				break;
		}
		if (sig < 0)
			continue;
		if (sig == SIGHUP) {
			reload(&d);
		} else if (sig == SIGUSR1) {
			dump_counters(&d, true);
		} else {
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
	for (unsigned int i = 0; d.workers && i < d.nworkers; i++)
		srv6_nfq_close(d.workers[i].nfq);
	free(d.workers);
	srv6_nhctx_close(d.nh);
out_cache:
	srv6_cache_destroy(d.cache);
	if (lock_fd >= 0)
		close(lock_fd);
out_conf:
	srv6_conf_free(&d.conf);
	free(conf_abs);
	free(stats_abs);
	return rc;
}
