// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - srv6d: parse the command line, load the configuration, start
 * (queues, contexts, tables, workers, steering, control socket), run the
 * control thread's loop (signals, control socket, watch ticks), stop.
 *
 *   srv6d [-c FILE] [-f] [-n [-v]] [-p FILE] [-s STATSFILE] [-V] [-h]
 *
 * Exit codes: 0 clean stop (or a valid --check), 1 configuration invalid,
 * 2 usage, 3 start-up failed (queues, steering, contexts, pid file...).
 * Without -f, srv6d forks only once it is up, and the command exits with
 * the daemon's start-up status (service.h).  SIGHUP reloads, SIGUSR1 dumps
 * counters, SIGTERM/SIGINT stop.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/signalfd.h>

#include "srv6d/hmac_conf.h"
#include "srv6d/ctlsock.h"
#include "srv6d/instance.h"
#include "srv6d/linkwatch.h"
#include "srv6d/pqueue.h"
#include "srv6d/preflight.h"
#include "srv6d/worker.h"

#include "daemon/daemon.h"

/* Exit codes (srv6d(8)). */
enum {
	EXIT_CONF = 1,         /* configuration invalid (or --check found an error) */
	EXIT_USAGE = 2,
	EXIT_START = 3,        /* start-up failed */
};

#define SRV6D_PIDFILE_DEFAULT "/run/srv6d/srv6d.pid"

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

static void check_forwarding(void)
{
	int v;

	if (srv6_read_int_file("/proc/sys/net/ipv6/conf/all/forwarding", &v) == 0 && v == 0)
		srv6_log(LOG_WARNING, "net.ipv6.conf.all.forwarding is 0: packets srv6d "
			 "forwards will be dropped by the kernel (srv6d does not change it)");
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
		/* srv6d cannot tell which devices its packets arrive on: the
		 * overload note names the setting, not a device */
		if (!d->conf.nnapi || !d->conf.worker_fifo)
			printf("# overload: %s%s%s: a flood beyond the workers' rate lets the receive "
			       "softirq starve them (goodput 0.03-0.77x at 5x the loss-free rate, "
			       "docs/PERFORMANCE.md \"Overload\"); the line ingress-napi threaded dev "
			       "IF... (which implies worker-sched fifo 10) holds it\n",
			       d->conf.nnapi ? "" : "no ingress-napi",
			       !d->conf.nnapi && !d->conf.worker_fifo ? ", " : "",
			       d->conf.worker_fifo ? "" : "worker-sched other");
	}
	return errors ? EXIT_CONF : 0;
}

static void warn_mark_rule(const char *rule, void *arg)
{
	const struct srv6_conf *c = arg;

	srv6_log(LOG_WARNING, "mark rule \"%s\" can change srv6d's mark bits 0x%08x "
		 "(mark-mask): with steer none, End.X/End.T/End.DT*/End.DX* results it meets "
		 "lose their next-hop context unless srv6d's context gate (the *mangle lines "
		 "of `srv6d --check -v`) is the first rule of mangle PREROUTING, or the rule "
		 "masks srv6d's bits out (e.g. CONNMARK --restore-mark --mask 0x%08x)", rule,
		 c->mark_mask, ~c->mark_mask);
}

/* Other mark users srv6d can see: mangle rules that rewrite its mark bits
 * between its verdict and the routing decision (issue 8, item 4).  With
 * `steer auto` srv6d's context gate, first in mangle PREROUTING, takes its
 * results past them (include/srv6d/steer.h, issue 25): nothing to say. */
static void warn_mark_users(const struct srv6_conf *c)
{
	char err[256];

	if (c->steer == SRV6_STEER_AUTO)
		return;
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
	daemon_read_sysctls(&d);
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
	/* the ingress devices' receive work in NAPI threads, as asked */
	if (d.conf.nnapi) {
		if (srv6_napi_apply(&d.napi, (const char (*)[IF_NAMESIZE])d.conf.napi_devs, d.conf.nnapi,
				    d.conf.worker_fifo ? d.conf.worker_prio : 0,
				    err, sizeof(err)) < 0) {
			srv6_log(LOG_ERR, "%s", err);
			goto out_queues;
		}
		srv6_log(LOG_NOTICE, "ingress-napi: threaded NAPI, RPS off on %u devices (put back "
			 "at stop)", d.napi.n);
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
	/* zebra's FPM: a listener srv6d cannot open stops the start (the
	 * operator asked for it; zebra would retry a port nobody serves) */
	if (d.conf.fpm.on) {
		d.fpm = srv6_fpm_new(d.conf.fpm.grace);
		if (!d.fpm) {
			srv6_log(LOG_ERR, "fpm: out of memory");
			goto out_workers;
		}
		if (srv6_fpm_listen(d.fpm, &d.conf.fpm, err, sizeof(err)) < 0) {
			srv6_log(LOG_ERR, "%s:%u: %s", d.conf_path, d.conf.fpm.line, err);
			goto out_workers;
		}
	}
	/* the kernel's seg6local routes: dumped now, followed after */
	if (d.conf.kmirror.on) {
		d.kmirror = srv6_kmirror_open(&d.conf.kmirror, err, sizeof(err));
		if (!d.kmirror) {
			srv6_log(LOG_ERR, "%s:%u: %s", d.conf_path, d.conf.kmirror.line, err);
			goto out_workers;
		}
		if (srv6_fpm_count(srv6_kmirror_store(d.kmirror)))
			fpm_apply(&d);
	}
	srv6_log(LOG_NOTICE, "started: %s, %zu SIDs, %zu routes, %zu pending, queues %u-%u%s, "
		 "%u policy queue%s", d.conf_path, d.conf.nsids, d.conf.nroutes, d.pend.count,
		 d.conf.queue_first, d.conf.queue_last,
		 d.conf.steer == SRV6_STEER_AUTO ? ", steering installed" : "", d.npqs,
		 d.npqs == 1 ? "" : "s");
	/* Up: queues bound, contexts and rules installed, workers running. */
	srv6_notify("MAINPID=%ld", (long)getpid());
	daemon_notify_status(&d, "READY=1\n");
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
		struct pollfd pfd[1 + SRV6_CTLSOCK_NFDS + SRV6_FPM_NFDS + 1];
		uint64_t now = mono_usec(), next = src_next < watch_next ? src_next : watch_next, left;
		int sig = -1, npfd = 1, nctl = 0, nfpm = 0, pr;

		/* one tick for the watchdog, the daemon_watch (workers, steering) and
		 * the outer-source refresh, whatever signals or requests arrive */
		if (wd_usec && wd_next < next)
			next = wd_next;
		left = next > now ? next - now : 0;
		pfd[0] = (struct pollfd){ .fd = sig_fd, .events = POLLIN };
		if (d.ctl)
			npfd += nctl = srv6_ctlsock_pollfds(d.ctl, pfd + 1);
		if (d.fpm)
			npfd += nfpm = srv6_fpm_pollfds(d.fpm, pfd + 1 + nctl);
		if (d.kmirror)
			pfd[npfd++] = (struct pollfd){ .fd = srv6_kmirror_fd(d.kmirror), .events = POLLIN };
		pr = left ? poll(pfd, (nfds_t)npfd, (int)((left + 999) / 1000)) : 0;
		if (pr > 0 && (pfd[0].revents & POLLIN)) {
			struct signalfd_siginfo ssi;

			if (read(sig_fd, &ssi, sizeof(ssi)) == (ssize_t)sizeof(ssi))
				sig = (int)ssi.ssi_signo;
		}
		/* also on a timeout: it drops clients idle too long */
		if (d.ctl)
			srv6_ctlsock_process(d.ctl, pfd + 1, nctl, ctl_run, &d);
		/* one batch: what the session (and the kernel's events) brought
		 * in this turn, applied at once */
		if (pr > 0) {
			int changed = 0;

			if (d.fpm)
				changed |= srv6_fpm_process(d.fpm, pfd + 1 + nctl, nfpm,
							    (int64_t)(mono_usec() / 1000000));
			if (d.kmirror && (pfd[npfd - 1].revents & POLLIN))
				changed |= srv6_kmirror_process(d.kmirror);
			if (changed)
				fpm_apply(&d);
		}
		now = mono_usec();
		if (wd_usec && now >= wd_next) {
			watchdog_tick(&d, &live, &wd_rl);
			wd_next = mono_usec() + wd_usec;
		}
		if (now >= watch_next) {
			watch_next = mono_usec() + WATCH_INTERVAL_S * 1000000ull;
			if (daemon_watch(&d) < 0)
				break;
			/* `|`: both stores tick every time, whatever the first says */
			if ((d.fpm && srv6_fpm_tick(d.fpm, (int64_t)(now / 1000000))) |
			    (d.kmirror && srv6_kmirror_tick(d.kmirror)) ||
			    (d.fpm_dirty && (int64_t)(now / 1000000) >= d.fpm_next))
				fpm_apply(&d);
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
			(void)daemon_reload(&d, err, sizeof(err));
			daemon_notify_status(&d, "READY=1\n");
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
	daemon_stop_all(&d);
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
	srv6_napi_restore(&d.napi);
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
	srv6_fpm_free(d.fpm);
	srv6_kmirror_close(d.kmirror);
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
