// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_cache_stress.c - reader threads look up continuously while a writer
 * adds, replaces and deletes SIDs and policies and swaps whole configs.
 *
 * Every entry the writer creates is self-describing: its cfg repeats its
 * prefix and length and carries a generation and a checksum of all three,
 * so a reader that sees a torn, half-built or freed (0x6b-poisoned) entry
 * notices.  Readers also hold noref = false references across quiescent
 * and offline states while the writer deletes and replaces those entries,
 * and check them again before putting them.  Counters are bumped by the
 * readers and summed by the writer concurrently.
 *
 * Meant to be run under SAN=thread and SAN=address,undefined.  Duration:
 * SRV6_STRESS_SECONDS (default 3, split across the three lookup modes).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <endian.h>

#include <cmocka.h>

#include "srv6d/cache.h"

#define NREADERS 3
#define NHELD 8

/* The prefix universe: 8 /48 locators, 4 /64 each, 4 /128 in each /64. */
#define NLOC 8
#define NSUB 4
#define NPFX (NLOC + NLOC * NSUB + NLOC * NSUB * NSUB)
/* IPv4 policies: 10.0.0.0/8, 10.L.0.0/16, 10.L.S.0/24 */
#define NPOL (1 + NLOC + NLOC * NSUB)

struct pfx {
	struct in6_addr a;
	uint8_t plen;
};

static struct pfx sids[NPFX];
static struct { struct in_addr a; uint8_t plen; } pols[NPOL];

static struct in6_addr mk6(unsigned int loc, unsigned int sub, unsigned int host)
{
	struct in6_addr a;

	memset(&a, 0, sizeof(a));
	a.s6_addr[0] = 0xfc;
	a.s6_addr[5] = (uint8_t)loc;
	a.s6_addr[7] = (uint8_t)sub;
	a.s6_addr[15] = (uint8_t)host;
	return a;
}

static void universe_init(void)
{
	unsigned int l, s, h, n = 0, p = 0;

	for (l = 0; l < NLOC; l++) {
		sids[n++] = (struct pfx){ mk6(l, 0, 0), 48 };
		pols[p].a.s_addr = htonl(0x0a000000 | l << 16);
		pols[p++].plen = 16;
		for (s = 0; s < NSUB; s++) {
			sids[n++] = (struct pfx){ mk6(l, s, 0), 64 };
			pols[p].a.s_addr = htonl(0x0a000000 | l << 16 | s << 8);
			pols[p++].plen = 24;
			for (h = 0; h < NSUB; h++)
				sids[n++] = (struct pfx){ mk6(l, s, h + 1), 128 };
		}
	}
	pols[p].a.s_addr = htonl(0x0a000000);
	pols[p++].plen = 8;
}

static uint32_t csum(const void *prefix, size_t len, unsigned int plen, uint32_t gen)
{
	const uint8_t *b = prefix;
	uint64_t x = 0xcbf29ce484222325ULL ^ plen ^ (uint64_t)gen << 8;
	size_t i;

	for (i = 0; i < len; i++)
		x = (x ^ b[i]) * 0x100000001b3ULL;
	return (uint32_t)(x ^ x >> 32);
}

static struct srv6_sid_cfg sid_cfg(const struct pfx *p, uint32_t gen)
{
	struct srv6_sid_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.action = SRV6_ACT_END;
	cfg.nsegs = 1 + gen % 4;
	cfg.segs[0] = p->a;
	cfg.segs[cfg.nsegs - 1] = p->a;
	cfg.lblen = p->plen;
	cfg.table = gen;
	cfg.vrftable = csum(&p->a, 16, p->plen, gen);
	cfg.mark = ~gen;
	return cfg;
}

static struct srv6_policy pol_cfg(unsigned int i, uint32_t gen)
{
	struct srv6_policy pol;

	memset(&pol, 0, sizeof(pol));
	pol.mode = SRV6_MODE_ENCAP;
	pol.nsegs = 1;
	pol.segs[0] = mk6(i, 0, 0);
	pol.mark = gen;
	pol.flowlabel_mode = (int)(csum(&pols[i].a, 4, pols[i].plen, gen) & 0x7fffffff);
	return pol;
}

/* ---- shared state ---- */

static struct srv6_cache *cache;
static int stop;                 /* __atomic */
static unsigned long errors;     /* __atomic */
static char first_error[256];    /* written by the first failing thread */

static void bad(const char *what, unsigned int plen, uint32_t gen)
{
	if (__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED) == 0)
		snprintf(first_error, sizeof(first_error), "%s (plen %u gen %u)", what, plen, gen);
}

static bool covers(const struct in6_addr *p, unsigned int plen, const struct in6_addr *a)
{
	unsigned int i;

	for (i = 0; i < 16; i++) {
		unsigned int bits = plen >= 8 * (i + 1) ? 8 : plen > 8 * i ? plen - 8 * i : 0;
		uint8_t m = bits ? (uint8_t)(0xff << (8 - bits)) : 0;

		if ((p->s6_addr[i] ^ a->s6_addr[i]) & m)
			return false;
		if (!bits && p->s6_addr[i])
			return false; /* host bits must be zero */
	}
	return true;
}

/* Every field of a SID entry agrees with every other. */
static void check_sid(const struct srv6_sid_entry *e, const struct in6_addr *daddr)
{
	const struct srv6_sid_cfg *c = &e->cfg;
	uint32_t gen = c->table;

	if (e->plen != 48 && e->plen != 64 && e->plen != 128)
		{ bad("sid: bad plen", e->plen, gen); return; }
	if (daddr && !covers(&e->prefix, e->plen, daddr))
		{ bad("sid: prefix does not cover the address", e->plen, gen); return; }
	if (c->action != SRV6_ACT_END || c->nsegs < 1 || c->nsegs > 4 || c->lblen != e->plen)
		{ bad("sid: cfg header", e->plen, gen); return; }
	if (memcmp(&c->segs[0], &e->prefix, 16) || memcmp(&c->segs[c->nsegs - 1], &e->prefix, 16))
		{ bad("sid: segs do not repeat the prefix", e->plen, gen); return; }
	if (c->vrftable != csum(&e->prefix, 16, e->plen, gen) || c->mark != ~gen)
		{ bad("sid: checksum", e->plen, gen); return; }
}

static void check_pol(const struct srv6_policy_entry *e, const struct in_addr *daddr)
{
	uint32_t gen = e->pol.mark;
	uint32_t m = e->plen ? ~0u << (32 - e->plen) : 0;

	if (e->family != AF_INET || (e->plen != 8 && e->plen != 16 && e->plen != 24))
		{ bad("pol: family/plen", e->plen, gen); return; }
	if (daddr && ((ntohl(daddr->s_addr) ^ ntohl(e->prefix.v4.s_addr)) & m))
		{ bad("pol: prefix does not cover the address", e->plen, gen); return; }
	if (e->pol.mode != SRV6_MODE_ENCAP || e->pol.nsegs != 1 ||
	    e->pol.flowlabel_mode != (int)(csum(&e->prefix.v4, 4, e->plen, gen) & 0x7fffffff))
		{ bad("pol: checksum", e->plen, gen); return; }
}

struct reader {
	pthread_t th;
	unsigned int idx;
	uint64_t rng;
	unsigned long lookups, hits, held_checked;
};

static uint64_t xrnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	const struct srv6_sid_entry *held[NHELD] = { 0 };
	unsigned int nheld = 0, i;

	srv6_reader_register();
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (i = 0; i < 64; i++) {
			uint64_t x = xrnd(&r->rng);
			struct in6_addr da = mk6((x & 15) % (NLOC + 1), (x >> 4 & 7) % (NSUB + 1),
						 (x >> 8 & 7) % (NSUB + 2));
			const struct srv6_sid_entry *e;
			bool noref = (x >> 16 & 63) != 0;

			/* a little host noise below /128 */
			if (da.s6_addr[15] == 0)
				da.s6_addr[14] = (uint8_t)(x >> 24);
			e = srv6_sid_lookup(cache, &da, noref);
			r->lookups++;
			if (e) {
				struct srv6_counters *ctr;

				r->hits++;
				check_sid(e, &da);
				ctr = srv6_counters_slot(cache, r->idx, false, e->id);
				if (!ctr)
					bad("no counter slot", e->plen, e->id);
				else
					srv6_counter_add(&ctr->packets, 1);
				if (!noref) {
					/* keep it across quiescent states */
					if (nheld == NHELD) {
						check_sid(held[0], NULL);
						srv6_entry_put(cache, held[0]);
						memmove(held, held + 1, (NHELD - 1) * sizeof(held[0]));
						nheld--;
						r->held_checked++;
					}
					held[nheld++] = e;
				}
			}
			if ((x >> 40 & 3) == 0) {
				struct in_addr a4;
				const struct srv6_policy_entry *p;

				a4.s_addr = htonl(0x0a000000 | (uint32_t)((x >> 44) % (NLOC + 2)) << 16 |
						  (uint32_t)((x >> 50) % (NSUB + 2)) << 8 | (uint32_t)(x >> 56));
				p = srv6_policy_lookup(cache, AF_INET, &a4, (x >> 42 & 1) != 0);
				if (p) {
					check_pol(p, &a4);
					if (!(x >> 42 & 1))
						srv6_entry_put(cache, p);
				}
			}
		}
		/* held references must still be intact after the quiescent state */
		srv6_reader_quiescent();
		for (i = 0; i < nheld; i++)
			check_sid(held[i], NULL);
		if (xrnd(&r->rng) % 64 == 0) {
			srv6_reader_offline();
			usleep(20);
			srv6_reader_online();
		}
	}
	for (i = 0; i < nheld; i++) {
		check_sid(held[i], NULL);
		srv6_entry_put(cache, held[i]);
	}
	srv6_reader_unregister();
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double stress_seconds(void)
{
	const char *s = getenv("SRV6_STRESS_SECONDS");
	double v = s ? atof(s) : 3.0;

	return v > 0 ? v : 3.0;
}

struct wstats {
	unsigned long set, del, publish, pset, pdel, foreach_n;
};

static void count_entry(const struct srv6_sid_entry *e, void *arg)
{
	check_sid(e, NULL);
	(*(unsigned long *)arg)++;
}

static void writer_loop(double seconds, uint64_t seed, struct wstats *ws)
{
	double end = now() + seconds;
	uint64_t rng = seed;
	uint32_t gen = 1;

	while (now() < end) {
		uint64_t x = xrnd(&rng);
		unsigned int op = x % 100, i = (unsigned int)(x >> 8);
		int ret;

		if (op < 45) {
			struct pfx *p = &sids[i % NPFX];
			struct srv6_sid_cfg cfg = sid_cfg(p, ++gen);

			ret = srv6_cache_sid_set(cache, &p->a, p->plen, &cfg);
			if (ret)
				bad("sid_set failed", p->plen, gen);
			ws->set++;
		} else if (op < 75) {
			struct pfx *p = &sids[i % NPFX];

			ret = srv6_cache_sid_del(cache, &p->a, p->plen);
			if (ret && ret != -ENOENT)
				bad("sid_del failed", p->plen, gen);
			ws->del++;
		} else if (op < 85) {
			unsigned int k = i % NPOL;
			struct srv6_policy pol = pol_cfg(k, ++gen);

			if (srv6_cache_policy_set(cache, AF_INET, &pols[k].a, pols[k].plen, &pol))
				bad("policy_set failed", pols[k].plen, gen);
			ws->pset++;
		} else if (op < 90) {
			unsigned int k = i % NPOL;

			ret = srv6_cache_policy_del(cache, AF_INET, &pols[k].a, pols[k].plen);
			if (ret && ret != -ENOENT)
				bad("policy_del failed", pols[k].plen, gen);
			ws->pdel++;
		} else if (op < 97) {
			/* whole-config swap: a random subset, all new generations */
			struct srv6_tables *t = srv6_tables_new();
			unsigned int k;

			if (!t) {
				bad("tables_new", 0, gen);
				break;
			}
			for (k = 0; k < NPFX; k++) {
				struct srv6_sid_cfg cfg = sid_cfg(&sids[k], ++gen);

				if (xrnd(&rng) % 3 && srv6_tables_add_sid(t, &sids[k].a, sids[k].plen, &cfg))
					bad("tables_add_sid", sids[k].plen, gen);
			}
			for (k = 0; k < NPOL; k++) {
				struct srv6_policy pol = pol_cfg(k, ++gen);

				if (xrnd(&rng) % 2 &&
				    srv6_tables_add_policy(t, AF_INET, &pols[k].a, pols[k].plen, &pol))
					bad("tables_add_policy", pols[k].plen, gen);
			}
			if (srv6_cache_publish(cache, t)) {
				bad("publish", 0, gen);
				srv6_tables_free(t);
			}
			ws->publish++;
		} else {
			struct srv6_counters sum;
			unsigned long n = 0;

			srv6_cache_counters(cache, false, i % 64, &sum);
			srv6_cache_counters(cache, true, i % 16, &sum);
			srv6_cache_foreach_sid(cache, count_entry, &n);
			ws->foreach_n++;
		}
	}
}

static void run_mode(enum srv6_lookup_mode mode, double seconds)
{
	struct reader r[NREADERS];
	struct wstats ws = { 0 };
	unsigned long lookups = 0, hits = 0, held = 0;
	int i;

	cache = srv6_cache_new(NREADERS, mode);
	assert_non_null(cache);
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	for (i = 0; i < NREADERS; i++) {
		r[i] = (struct reader){ .idx = (unsigned int)i, .rng = 0x9e3779b97f4a7c15ULL * (i + 1) };
		assert_int_equal(pthread_create(&r[i].th, NULL, reader_main, &r[i]), 0);
	}
	writer_loop(seconds, 0xdeadbeef + mode, &ws);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < NREADERS; i++) {
		pthread_join(r[i].th, NULL);
		lookups += r[i].lookups;
		hits += r[i].hits;
		held += r[i].held_checked;
	}
	srv6_cache_destroy(cache);
	cache = NULL;
	printf("  mode %d: %.2fs, %lu lookups (%lu hits, %lu held refs checked), writer: "
	       "%lu set %lu del %lu publish %lu pol-set %lu pol-del %lu read\n",
	       (int)mode, seconds, lookups, hits, held, ws.set, ws.del, ws.publish,
	       ws.pset, ws.pdel, ws.foreach_n);
	if (errors)
		fail_msg("%lu inconsistent entries, first: %s", errors, first_error);
	assert_true(lookups > 0 && hits > 0 && ws.set > 0 && ws.publish > 0);
}

static void test_stress_rcu(void **state)
{
	run_mode(SRV6_LOOKUP_RCU, stress_seconds() / 2);
}

static void test_stress_refcount(void **state)
{
	run_mode(SRV6_LOOKUP_REFCOUNT, stress_seconds() / 4);
}

static void test_stress_rwlock(void **state)
{
	run_mode(SRV6_LOOKUP_RWLOCK, stress_seconds() / 4);
}

/*
 * A reader holds noref = false references while the writer deletes the
 * entries and the reader passes quiescent states: with ASan, a premature
 * free is a use after free; without, the poison breaks check_sid.
 */
struct held_arg {
	const struct srv6_sid_entry *e[NPFX];
	int phase; /* __atomic: 0 look up, 1 writer deleted, 2 done */
};

static void *held_reader(void *arg)
{
	struct held_arg *h = arg;
	int i;

	srv6_reader_register();
	for (i = 0; i < NPFX; i++) {
		h->e[i] = srv6_sid_lookup(cache, &sids[i].a, false);
		if (!h->e[i])
			bad("held: missing", sids[i].plen, 0);
	}
	__atomic_store_n(&h->phase, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&h->phase, __ATOMIC_ACQUIRE) != 2)
		srv6_reader_quiescent(); /* lets the writer's grace periods end */
	for (i = 0; i < NPFX; i++) {
		if (h->e[i]) {
			check_sid(h->e[i], &sids[i].a);
			srv6_entry_put(cache, h->e[i]);
		}
	}
	srv6_reader_unregister();
	return NULL;
}

static void test_refs_outlive_delete_and_swap(void **state)
{
	struct held_arg h = { .phase = 0 };
	pthread_t th;
	int i, m;

	for (m = 0; m < 3; m++) {
		struct srv6_tables *t;

		cache = srv6_cache_new(1, (enum srv6_lookup_mode)m);
		assert_non_null(cache);
		t = srv6_tables_new();
		for (i = 0; i < NPFX; i++) {
			struct srv6_sid_cfg cfg = sid_cfg(&sids[i], 7);

			assert_int_equal(srv6_tables_add_sid(t, &sids[i].a, sids[i].plen, &cfg), 0);
		}
		assert_int_equal(srv6_cache_publish(cache, t), 0);
		h.phase = 0;
		assert_int_equal(pthread_create(&th, NULL, held_reader, &h), 0);
		while (__atomic_load_n(&h.phase, __ATOMIC_ACQUIRE) != 1)
			usleep(100);
		/* half deleted one by one, then the rest swapped away */
		for (i = 0; i < NPFX / 2; i++)
			assert_int_equal(srv6_cache_sid_del(cache, &sids[i].a, sids[i].plen), 0);
		assert_int_equal(srv6_cache_publish(cache, srv6_tables_new()), 0);
		__atomic_store_n(&h.phase, 2, __ATOMIC_RELEASE);
		pthread_join(th, NULL);
		srv6_cache_destroy(cache);
		cache = NULL;
		if (errors)
			fail_msg("%lu errors, first: %s", errors, first_error);
	}
}

static int setup(void **state)
{
	universe_init();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refs_outlive_delete_and_swap),
		cmocka_unit_test(test_stress_rcu),
		cmocka_unit_test(test_stress_refcount),
		cmocka_unit_test(test_stress_rwlock),
	};

	return cmocka_run_group_tests_name("cache_stress", tests, setup, NULL);
}
