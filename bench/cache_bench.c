// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cache_bench - the route cache ablation: lookups per second of the RCU
 * noref mode against a per-lookup atomic refcount (dst_hold/dst_release)
 * and a per-lookup rwlock, for 1..N threads, table sizes 10 / 10k / 100k,
 * a random-destination case, a hot-entry case (every thread hits the same
 * SID: the shared-route case of the kernel patch) and a mixed case with a
 * writer replacing entries.  Modes are interleaved within each repetition
 * and the median of the repetitions is printed, with the ratios rcu/refcount
 * and rcu/rwlock of the same run.  Then load time and RSS for 100,000 SIDs
 * and 1,000,000 policy prefixes.
 *
 *   cache_bench [-d seconds per measurement] [-r repetitions] [-t max threads]
 *               [-w writer sets per second] [-L (skip the load test)]
 *               [-l (load test only)]
 *
 * The load test runs first (fresh heap, so its RSS deltas mean something).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <endian.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include "srv6d/cache.h"

#define NDA (1u << 16)      /* destination addresses cycled through */
#define BATCH 64            /* lookups between quiescent states */
#define MAXREP 51
#define MAXTHR 64

static double opt_secs = 0.25;
static int opt_reps = 3;
static unsigned int opt_threads;
static unsigned int opt_wrate = 1000;


static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t xrnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static struct in6_addr a6(uint64_t hi, uint64_t lo)
{
	struct in6_addr a;
	uint64_t h = htobe64(hi), l = htobe64(lo);

	memcpy(a.s6_addr, &h, 8);
	memcpy(a.s6_addr + 8, &l, 8);
	return a;
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* The i-th SID of a table: /128s spread over 256 /48 locators. */
static struct in6_addr sid_addr(uint64_t i)
{
	return a6(0xfc00000000000000ULL | (i % 256) << 16, 0x0001000000000000ULL + i);
}

static struct srv6_sid_cfg mk_cfg(uint32_t tag)
{
	struct srv6_sid_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.action = SRV6_ACT_END_X;
	cfg.table = tag;
	cfg.nsegs = 1;
	return cfg;
}

/* size-1 /128 SIDs and one /48 NEXT-C-SID block. */
static struct srv6_cache *make_cache(enum srv6_lookup_mode mode, unsigned int nthr,
				     uint32_t size)
{
	struct srv6_cache *c = srv6_cache_new(nthr + 1, mode);
	struct srv6_tables *t = srv6_tables_new();
	struct srv6_sid_cfg cfg = mk_cfg(0);
	struct in6_addr blk = a6(0xfc000000ffff0000ULL, 0);
	uint32_t i;

	if (!c || !t) {
		fprintf(stderr, "cache_bench: out of memory\n");
		exit(1);
	}
	cfg.flavors = 1u << SRV6_FLV_NEXT_CSID;
	if (srv6_tables_add_sid(t, &blk, 48, &cfg))
		exit(1);
	for (i = 1; i < size; i++) {
		struct in6_addr a = sid_addr(i);

		cfg = mk_cfg(i);
		if (srv6_tables_add_sid(t, &a, 128, &cfg)) {
			fprintf(stderr, "cache_bench: add_sid failed\n");
			exit(1);
		}
	}
	if (srv6_cache_publish(c, t))
		exit(1);
	return c;
}

enum bcase { C_RANDOM, C_HOT, C_MIXED, C_MAX };
static const char *const case_name[] = { "random", "hot", "mixed" };

struct run {
	struct srv6_cache *c;
	enum srv6_lookup_mode mode;
	const struct in6_addr *da;
	uint32_t size;
	int stop;                 /* __atomic */
	pthread_barrier_t go;
	unsigned long wsets;
};

struct worker {
	pthread_t th;
	struct run *r;
	unsigned int idx;
	unsigned long ops;
	uint64_t sink;
};

static void pin(unsigned int cpu)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&set);
	CPU_SET(cpu % (n > 0 ? (unsigned int)n : 1), &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->r;
	bool noref = r->mode != SRV6_LOOKUP_REFCOUNT;
	uint32_t i = w->idx * (NDA / 7);
	unsigned long ops = 0;
	uint64_t sink = 0;
	int k;

	pin(w->idx);
	srv6_reader_register();
	pthread_barrier_wait(&r->go);
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		for (k = 0; k < BATCH; k++) {
			const struct srv6_sid_entry *e =
				srv6_sid_lookup(r->c, &r->da[i++ & (NDA - 1)], noref);

			/* use the entry, as a packet would */
			sink += e->cfg.table + e->cfg.action;
			if (!noref)
				srv6_entry_put(r->c, e);
		}
		ops += BATCH;
		srv6_reader_quiescent();
	}
	srv6_reader_unregister();
	w->ops = ops;
	w->sink = sink;
	return NULL;
}

/* Replaces random existing /128s at opt_wrate per second. */
static void *writer_main(void *arg)
{
	struct run *r = arg;
	uint64_t rng = 42;
	double t0, next;
	uint32_t gen = 1;

	pthread_barrier_wait(&r->go);
	t0 = next = now();
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		uint32_t i = r->size > 1 ? 1 + (uint32_t)(xrnd(&rng) % (r->size - 1)) : 0;
		struct in6_addr a = sid_addr(i);
		struct srv6_sid_cfg cfg = mk_cfg(++gen);
		double d;

		if (i && srv6_cache_sid_set(r->c, &a, 128, &cfg) == 0)
			r->wsets++;
		next += 1.0 / opt_wrate;
		d = next - now();
		if (d > 0)
			usleep((useconds_t)(d * 1e6));
		else if (d < -0.1)
			next = now(); /* fell behind: do not burst */
	}
	(void)t0;
	return NULL;
}

/* One measurement: lookups per second over all threads. */
static double measure(struct srv6_cache *c, enum srv6_lookup_mode mode, enum bcase bc,
		      uint32_t size, unsigned int nthr, const struct in6_addr *da, double *wrate)
{
	struct run r = { .c = c, .mode = mode, .da = da, .size = size };
	struct worker w[MAXTHR];
	pthread_t wt;
	unsigned long ops = 0;
	unsigned int i;
	double t0, t1;

	pthread_barrier_init(&r.go, NULL, nthr + 1 + (bc == C_MIXED));
	for (i = 0; i < nthr; i++) {
		w[i] = (struct worker){ .r = &r, .idx = i };
		pthread_create(&w[i].th, NULL, worker_main, &w[i]);
	}
	if (bc == C_MIXED)
		pthread_create(&wt, NULL, writer_main, &r);
	pthread_barrier_wait(&r.go);
	t0 = now();
	usleep((useconds_t)(opt_secs * 1e6));
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	t1 = now();
	for (i = 0; i < nthr; i++) {
		pthread_join(w[i].th, NULL);
		ops += w[i].ops;
	}
	if (bc == C_MIXED) {
		pthread_join(wt, NULL);
		if (wrate)
			*wrate = r.wsets / (t1 - t0);
	}
	pthread_barrier_destroy(&r.go);
	return ops / (t1 - t0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void ablation(void)
{
	static const uint32_t sizes[] = { 10, 10000, 100000 };
	static struct in6_addr da_rand[3][NDA], da_hot[NDA];
	struct srv6_cache *caches[3][3];
	unsigned int thr[8], nthr = 0, t, s, m;
	uint64_t rng = 7;
	int bc, rep;
	uint32_t i;

	for (t = 1; t <= opt_threads && nthr < 8; t *= 2)
		thr[nthr++] = t;
	if (thr[nthr - 1] != opt_threads && nthr < 8)
		thr[nthr++] = opt_threads;
	for (s = 0; s < 3; s++)
		for (i = 0; i < NDA; i++)
			da_rand[s][i] = sid_addr(1 + xrnd(&rng) % (sizes[s] - 1));
	for (i = 0; i < NDA; i++)
		da_hot[i] = sid_addr(1);
	/* one cache per size and mode, reused by every case (the mixed case
	 * only replaces entries, the set of prefixes stays the same) */
	for (s = 0; s < 3; s++)
		for (m = 0; m < 3; m++)
			caches[s][m] = make_cache((enum srv6_lookup_mode)m, opt_threads, sizes[s]);

	printf("Lookups per second, millions (median of %d x %.2f s; modes interleaved)\n",
	       opt_reps, opt_secs);
	printf("%-7s %7s %3s %9s %9s %9s %12s %10s %s\n", "case", "size", "thr",
	       "rcu", "refcount", "rwlock", "rcu/refcnt", "rcu/rwlock",
	       "writer sets/s");
	for (bc = 0; bc < C_MAX; bc++) {
		for (s = 0; s < 3; s++) {
			if (bc == C_MIXED && sizes[s] != 10000 && sizes[s] != 100000)
				continue;
			for (t = 0; t < nthr; t++) {
				double v[3][MAXREP], med[3], wr[MAXREP], wmed = 0;

				for (rep = 0; rep < opt_reps; rep++)
					for (m = 0; m < 3; m++)
						v[m][rep] = measure(caches[s][m],
								    (enum srv6_lookup_mode)m,
								    (enum bcase)bc, sizes[s], thr[t],
								    bc == C_HOT ? da_hot : da_rand[s],
								    m == 0 ? &wr[rep] : NULL);
				for (m = 0; m < 3; m++)
					med[m] = median(v[m], opt_reps);
				if (bc == C_MIXED)
					wmed = median(wr, opt_reps);
				printf("%-7s %7u %3u %9.2f %9.2f %9.2f %12.2f %10.2f",
				       case_name[bc], sizes[s], thr[t], med[0] / 1e6,
				       med[1] / 1e6, med[2] / 1e6, med[0] / med[1],
				       med[0] / med[2]);
				if (bc == C_MIXED)
					printf(" %.0f", wmed);
				printf("\n");
				fflush(stdout);
			}
		}
	}
	for (s = 0; s < 3; s++)
		for (m = 0; m < 3; m++)
			srv6_cache_destroy(caches[s][m]);
}

/* ---- load test ---- */

static void load_test(void)
{
	struct srv6_cache *c = srv6_cache_new(2, SRV6_LOOKUP_RCU);
	struct srv6_tables *t;
	struct srv6_sid_cfg cfg = mk_cfg(0);
	struct srv6_policy pol;
	uint64_t rng = 99;
	long rss0, rss1, rss2;
	double t0, t1, t2;
	uint32_t i, n4 = 800000, n6 = 200000, dup = 0;
	unsigned long hits = 0;

	if (!c)
		exit(1);
	srv6_reader_register();
	printf("Load (RCU mode, 2 worker counter slots)\n");
	rss0 = rss_kib();
	t0 = now();
	t = srv6_tables_new();
	for (i = 0; i < 100000; i++) {
		struct in6_addr a = sid_addr(i);

		cfg.table = i;
		if (srv6_tables_add_sid(t, &a, 128, &cfg))
			exit(1);
	}
	t1 = now();
	if (srv6_cache_publish(c, t))
		exit(1);
	t2 = now();
	rss1 = rss_kib();
	printf("  100,000 SIDs:          build %.3f s, publish %.3f s, RSS +%.1f MiB\n",
	       t1 - t0, t2 - t1, (rss1 - rss0) / 1024.0);

	/* incremental changes on the 100k table */
	t0 = now();
	for (i = 0; i < 2000; i++) {
		struct in6_addr a = sid_addr(xrnd(&rng) % 100000);

		cfg.table = i;
		if (srv6_cache_sid_set(c, &a, 128, &cfg))
			exit(1);
	}
	t1 = now();
	printf("  sid_set (replace) on 100,000 SIDs: %.1f us each (incl. grace period)\n",
	       (t1 - t0) / 2000 * 1e6);

	/* 1M policies: 800k IPv4 (mostly /24), 200k IPv6 (mostly /48) */
	memset(&pol, 0, sizeof(pol));
	pol.mode = SRV6_MODE_ENCAP;
	pol.nsegs = 2;
	t = srv6_tables_new();
	rss1 = rss_kib();
	t0 = now();
	for (i = 0; i < n4 + dup;) {
		uint64_t x = xrnd(&rng);
		unsigned int r = x % 100;
		uint8_t plen = r < 60 ? 24 : r < 85 ? (uint8_t)(16 + x / 100 % 8) : (uint8_t)(25 + x / 100 % 8);
		struct in_addr a = { .s_addr = htonl((uint32_t)(x >> 32)) };
		int ret;

		pol.mark = i;
		ret = srv6_tables_add_policy(t, AF_INET, &a, plen, &pol);
		if (ret == -EEXIST) {
			dup++;
			continue;
		}
		if (ret)
			exit(1);
		i++;
		if (i == n4)
			break;
	}
	for (i = 0; i < n6;) {
		uint64_t x = xrnd(&rng);
		unsigned int r = x % 100;
		uint8_t plen = r < 60 ? 48 : (uint8_t)(32 + x / 100 % 33);
		struct in6_addr a = a6(0x2000000000000000ULL | x >> 4, 0);
		int ret;

		pol.mark = i;
		ret = srv6_tables_add_policy(t, AF_INET6, &a, plen, &pol);
		if (ret == -EEXIST)
			continue;
		if (ret)
			exit(1);
		i++;
	}
	t1 = now();
	if (srv6_cache_publish(c, t))
		exit(1);
	t2 = now();
	rss2 = rss_kib();
	printf("  1,000,000 policies:    build %.3f s, publish %.3f s, RSS +%.1f MiB "
	       "(%.0f B per prefix; entry struct %zu B)\n",
	       t1 - t0, t2 - t1, (rss2 - rss1) / 1024.0,
	       (rss2 - rss1) * 1024.0 / (n4 + n6), sizeof(struct srv6_policy_entry));

	/* lookup rate on the 1M table, one thread, random IPv4 destinations */
	t0 = now();
	for (i = 0; i < 2000000; i++) {
		struct in_addr a = { .s_addr = (uint32_t)xrnd(&rng) };

		hits += srv6_policy_lookup(c, AF_INET, &a, true) != NULL;
		if (i % BATCH == 0)
			srv6_reader_quiescent();
	}
	t1 = now();
	printf("  IPv4 policy LPM on 800,000 prefixes, random DA: %.2f M lookups/s (%.0f%% hit)\n",
	       2e6 / (t1 - t0) / 1e6, hits / 2e4);
	srv6_reader_unregister();
	t0 = now();
	srv6_cache_destroy(c);
	printf("  destroy: %.3f s\n\n", now() - t0);
}

int main(int argc, char **argv)
{
	bool load = true, abl = true;
	int opt;

	opt_threads = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	if (opt_threads < 2)
		opt_threads = 2;
	while ((opt = getopt(argc, argv, "d:r:t:w:Llh")) != -1) {
		switch (opt) {
		case 'd':
			opt_secs = atof(optarg);
			break;
		case 'r':
			opt_reps = atoi(optarg);
			break;
		case 't':
			opt_threads = (unsigned int)atoi(optarg);
			break;
		case 'w':
			opt_wrate = (unsigned int)atoi(optarg);
			break;
		case 'L':
			load = false;
			break;
		case 'l':
			abl = false;
			break;
		default:
			fprintf(stderr, "usage: %s [-d seconds] [-r reps] [-t max threads] "
				"[-w writer sets/s] [-L] [-l]\n", argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (opt_secs <= 0 || opt_reps < 1 || opt_reps > MAXREP || opt_threads < 1 ||
	    opt_threads > MAXTHR || opt_wrate < 1) {
		fprintf(stderr, "cache_bench: bad option value\n");
		return 2;
	}
	/* load first: its RSS figures need a heap that has not been used yet */
	if (load)
		load_test();
	if (abl)
		ablation();
	return 0;
}
