// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_cache_lpm.c - route cache correctness: LPM against a brute-force
 * reference on random tables (SIDs: IPv6; policies: IPv4 and IPv6; every
 * prefix length; overlapping and duplicate prefixes), incremental
 * set/replace/delete, the whole-snapshot swap, noref = false references
 * across a swap, and counter ids stable across publish.  Every case runs in
 * the three lookup modes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <endian.h>

#include <cmocka.h>

#include "srv6d/cache.h"

/* ---- helpers ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic per seed, so failures reproduce */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static void mask128(unsigned int plen, uint64_t *mhi, uint64_t *mlo)
{
	*mhi = plen == 0 ? 0 : plen >= 64 ? ~0ULL : ~0ULL << (64 - plen);
	*mlo = plen <= 64 ? 0 : plen >= 128 ? ~0ULL : ~0ULL << (128 - plen);
}

static struct in6_addr a6(uint64_t hi, uint64_t lo)
{
	struct in6_addr a;
	uint64_t h = htobe64(hi), l = htobe64(lo);

	memcpy(a.s6_addr, &h, 8);
	memcpy(a.s6_addr + 8, &l, 8);
	return a;
}

static void k6(const struct in6_addr *a, uint64_t *hi, uint64_t *lo)
{
	uint64_t h, l;

	memcpy(&h, a->s6_addr, 8);
	memcpy(&l, a->s6_addr + 8, 8);
	*hi = be64toh(h);
	*lo = be64toh(l);
}

/* Reference table: masked (hi, lo, plen) and a tag stored in the cfg. */
struct ref {
	uint64_t hi, lo;
	unsigned int plen;
	uint32_t tag;
	bool live;
};

struct reftab {
	struct ref *r;
	size_t n, cap;
};

static struct ref *ref_find(struct reftab *t, uint64_t hi, uint64_t lo, unsigned int plen)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->r[i].live && t->r[i].plen == plen && t->r[i].hi == hi && t->r[i].lo == lo)
			return &t->r[i];
	return NULL;
}

static void ref_add(struct reftab *t, uint64_t hi, uint64_t lo, unsigned int plen, uint32_t tag)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->r = realloc(t->r, t->cap * sizeof(*t->r));
		assert_non_null(t->r);
	}
	t->r[t->n++] = (struct ref){ hi, lo, plen, tag, true };
}

static size_t ref_live(const struct reftab *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->r[i].live;
	return n;
}

/* Brute-force longest prefix match. */
static const struct ref *ref_lpm(const struct reftab *t, uint64_t hi, uint64_t lo)
{
	const struct ref *best = NULL;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct ref *r = &t->r[i];
		uint64_t mh, ml;

		if (!r->live)
			continue;
		mask128(r->plen, &mh, &ml);
		if ((hi & mh) == r->hi && (lo & ml) == r->lo && (!best || r->plen > best->plen))
			best = r;
	}
	return best;
}

/*
 * A random prefix built from a small pool of base addresses, so prefixes
 * nest and overlap, and queries hit many lengths.
 */
static uint64_t pool[8][2];

static void pool_init(uint64_t seed, unsigned int maxlen)
{
	int i;

	rng_state = seed;
	for (i = 0; i < 8; i++) {
		pool[i][0] = rnd();
		pool[i][1] = maxlen == 32 ? 0 : rnd();
		if (maxlen == 32)
			pool[i][0] &= 0xffffffff00000000ULL;
	}
}

static void random_prefix(unsigned int maxlen, uint64_t *hi, uint64_t *lo, unsigned int *plen)
{
	const uint64_t *b = pool[rnd() % 8];
	uint64_t mh, ml;

	*plen = (unsigned int)(rnd() % (maxlen + 1));
	*hi = b[0];
	*lo = b[1];
	/* flip one bit sometimes so siblings exist too */
	if (*plen && rnd() % 3 == 0) {
		unsigned int bit = (unsigned int)(rnd() % *plen);

		if (bit < 64)
			*hi ^= 1ULL << (63 - bit);
		else
			*lo ^= 1ULL << (127 - bit);
	}
	mask128(*plen, &mh, &ml);
	*hi &= mh;
	*lo &= ml;
}

static void random_query(unsigned int maxlen, uint64_t *hi, uint64_t *lo)
{
	if (rnd() % 4 == 0) {
		*hi = rnd();
		*lo = rnd();
	} else {
		const uint64_t *b = pool[rnd() % 8];
		unsigned int bit = (unsigned int)(rnd() % (maxlen + 1));

		*hi = b[0];
		*lo = b[1];
		if (bit < 64)
			*hi ^= 1ULL << (63 - bit);
		else if (bit < 128)
			*lo ^= 1ULL << (127 - bit);
	}
	if (maxlen == 32) {
		*hi &= 0xffffffff00000000ULL;
		*lo = 0;
	}
}

static struct srv6_sid_cfg sid_cfg(uint32_t tag)
{
	struct srv6_sid_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.action = SRV6_ACT_END;
	cfg.table = tag;
	cfg.vrftable = ~tag;
	return cfg;
}

static struct srv6_policy pol_cfg(uint32_t tag)
{
	struct srv6_policy p;

	memset(&p, 0, sizeof(p));
	p.mode = SRV6_MODE_ENCAP;
	p.nsegs = 1;
	p.mark = tag;
	p.flowlabel_mode = (int)(tag & 0x7fffffff);
	return p;
}

static const enum srv6_lookup_mode modes[] = {
	SRV6_LOOKUP_RCU, SRV6_LOOKUP_REFCOUNT, SRV6_LOOKUP_RWLOCK,
};

/* Check every query of @nq against the reference; SIDs. */
static void check_sids(struct srv6_cache *c, const struct reftab *ref, int nq)
{
	int i;

	for (i = 0; i < nq; i++) {
		uint64_t hi, lo, ehi, elo;
		const struct ref *want;
		const struct srv6_sid_entry *e;
		struct in6_addr q;
		bool noref = i % 2;

		random_query(128, &hi, &lo);
		q = a6(hi, lo);
		want = ref_lpm(ref, hi, lo);
		e = srv6_sid_lookup(c, &q, noref);
		if (!want) {
			assert_null(e);
			continue;
		}
		assert_non_null(e);
		k6(&e->prefix, &ehi, &elo);
		assert_int_equal(e->plen, want->plen);
		assert_true(ehi == want->hi && elo == want->lo);
		assert_int_equal(e->cfg.table, want->tag);
		assert_int_equal(e->cfg.vrftable, ~want->tag);
		if (!noref)
			srv6_entry_put(c, e);
		if (i % 64 == 0)
			srv6_reader_quiescent();
	}
}

static void check_policies(struct srv6_cache *c, int family, const struct reftab *ref, int nq)
{
	unsigned int maxlen = family == AF_INET ? 32 : 128;
	int i;

	for (i = 0; i < nq; i++) {
		uint64_t hi, lo, ehi, elo;
		const struct ref *want;
		const struct srv6_policy_entry *e;
		struct in6_addr q6;
		struct in_addr q4;
		bool noref = i % 2;

		random_query(maxlen, &hi, &lo);
		q6 = a6(hi, lo);
		q4.s_addr = htobe32((uint32_t)(hi >> 32));
		want = ref_lpm(ref, hi, lo);
		e = srv6_policy_lookup(c, family, family == AF_INET ? (void *)&q4 : (void *)&q6, noref);
		if (!want) {
			assert_null(e);
			continue;
		}
		assert_non_null(e);
		assert_int_equal(e->family, family);
		if (family == AF_INET) {
			ehi = (uint64_t)be32toh(e->prefix.v4.s_addr) << 32;
			elo = 0;
		} else {
			k6(&e->prefix.v6, &ehi, &elo);
		}
		assert_int_equal(e->plen, want->plen);
		assert_true(ehi == want->hi && elo == want->lo);
		assert_int_equal(e->pol.mark, want->tag);
		if (!noref)
			srv6_entry_put(c, e);
	}
	srv6_reader_quiescent();
}

static int setup(void **state)
{
	srv6_reader_register();
	return 0;
}

static int teardown(void **state)
{
	srv6_reader_unregister();
	return 0;
}

/* ---- random tables built as a snapshot ---- */

static void test_sid_random_tables(void **state)
{
	size_t m;
	int round;

	for (m = 0; m < 3; m++) {
		for (round = 0; round < 4; round++) {
			struct srv6_cache *c = srv6_cache_new(2, modes[m]);
			struct srv6_tables *t = srv6_tables_new();
			struct reftab ref = { 0 };
			int i, n = round < 2 ? 200 : 1500, dups = 0;

			assert_non_null(c);
			assert_non_null(t);
			pool_init(0x1234 + round * 77 + m, 128);
			for (i = 0; i < n; i++) {
				uint64_t hi, lo;
				unsigned int plen;
				struct srv6_sid_cfg cfg = sid_cfg((uint32_t)i);
				struct in6_addr p;
				int ret;

				random_prefix(128, &hi, &lo, &plen);
				/* add host bits: they must be ignored */
				p = a6(hi | (plen < 64 ? rnd() >> plen >> 1 : 0), lo);
				ret = srv6_tables_add_sid(t, &p, (uint8_t)plen, &cfg);
				if (ref_find(&ref, hi, lo, plen)) {
					assert_int_equal(ret, -EEXIST);
					dups++;
				} else {
					assert_int_equal(ret, 0);
					ref_add(&ref, hi, lo, plen, (uint32_t)i);
				}
			}
			assert_true(dups > 0);
			assert_int_equal(srv6_cache_publish(c, t), 0);
			check_sids(c, &ref, 3000);
			free(ref.r);
			srv6_cache_destroy(c);
		}
	}
}

static void policy_random(int family)
{
	unsigned int maxlen = family == AF_INET ? 32 : 128;
	size_t m;
	int round;

	for (m = 0; m < 3; m++) {
		for (round = 0; round < 4; round++) {
			struct srv6_cache *c = srv6_cache_new(1, modes[m]);
			struct srv6_tables *t = srv6_tables_new();
			struct reftab ref = { 0 };
			int i, n = round < 2 ? 150 : 1200;

			assert_non_null(c);
			assert_non_null(t);
			pool_init(0x777 + round * 13 + m + (uint64_t)family, maxlen);
			for (i = 0; i < n; i++) {
				uint64_t hi, lo;
				unsigned int plen;
				struct srv6_policy pol = pol_cfg((uint32_t)i);
				struct in6_addr p6 = { 0 };
				struct in_addr p4;
				int ret;

				random_prefix(maxlen, &hi, &lo, &plen);
				p6 = a6(hi, lo);
				p4.s_addr = htobe32((uint32_t)(hi >> 32));
				ret = srv6_tables_add_policy(t, family,
							     family == AF_INET ? (void *)&p4 : (void *)&p6,
							     (uint8_t)plen, &pol);
				if (ref_find(&ref, hi, lo, plen)) {
					assert_int_equal(ret, -EEXIST);
				} else {
					assert_int_equal(ret, 0);
					ref_add(&ref, hi, lo, plen, (uint32_t)i);
				}
			}
			assert_int_equal(srv6_cache_publish(c, t), 0);
			check_policies(c, family, &ref, 3000);
			/* the other family's table is empty */
			{
				struct in6_addr q6 = a6(pool[0][0], pool[0][1]);
				struct in_addr q4 = { .s_addr = htobe32((uint32_t)(pool[0][0] >> 32)) };

				assert_null(srv6_policy_lookup(c, family == AF_INET ? AF_INET6 : AF_INET,
							       family == AF_INET ? (void *)&q6 : (void *)&q4,
							       true));
			}
			free(ref.r);
			srv6_cache_destroy(c);
		}
	}
}

static void test_policy4_random_tables(void **state)
{
	policy_random(AF_INET);
}

static void test_policy6_random_tables(void **state)
{
	policy_random(AF_INET6);
}

/* Every length 0..128 (and 0..32) present at once, nested on one address. */
static void test_all_lengths_nested(void **state)
{
	struct srv6_cache *c = srv6_cache_new(1, SRV6_LOOKUP_RCU);
	struct srv6_tables *t = srv6_tables_new();
	struct reftab r6 = { 0 }, r4 = { 0 };
	unsigned int plen;

	assert_non_null(c);
	pool_init(99, 128);
	for (plen = 0; plen <= 128; plen++) {
		uint64_t mh, ml;
		struct srv6_sid_cfg cfg = sid_cfg(plen);
		struct in6_addr p = a6(pool[0][0], pool[0][1]);

		mask128(plen, &mh, &ml);
		assert_int_equal(srv6_tables_add_sid(t, &p, (uint8_t)plen, &cfg), 0);
		ref_add(&r6, pool[0][0] & mh, pool[0][1] & ml, plen, plen);
	}
	for (plen = 0; plen <= 32; plen++) {
		uint64_t mh, ml, hi = pool[1][0] & 0xffffffff00000000ULL;
		struct srv6_policy pol = pol_cfg(plen);
		struct in_addr p = { .s_addr = htobe32((uint32_t)(hi >> 32)) };

		mask128(plen, &mh, &ml);
		assert_int_equal(srv6_tables_add_policy(t, AF_INET, &p, (uint8_t)plen, &pol), 0);
		ref_add(&r4, hi & mh, 0, plen, plen);
	}
	assert_int_equal(srv6_cache_publish(c, t), 0);
	/* queries differing from the base at each bit position */
	for (plen = 0; plen <= 128; plen++) {
		uint64_t hi = pool[0][0], lo = pool[0][1];
		const struct srv6_sid_entry *e;
		struct in6_addr q;

		if (plen < 64)
			hi ^= 1ULL << (63 - plen);
		else if (plen < 128)
			lo ^= 1ULL << (127 - plen);
		q = a6(hi, lo);
		e = srv6_sid_lookup(c, &q, true);
		assert_non_null(e);
		/* differs at bit plen: the longest match is /plen */
		assert_int_equal(e->plen, plen);
		assert_int_equal(ref_lpm(&r6, hi, lo)->plen, plen);
	}
	pool[0][0] = pool[1][0] & 0xffffffff00000000ULL;
	pool[0][1] = 0;
	for (plen = 0; plen <= 32; plen++) {
		uint64_t hi = pool[0][0];
		const struct srv6_policy_entry *e;
		struct in_addr q;

		if (plen < 32)
			hi ^= 1ULL << (63 - plen);
		q.s_addr = htobe32((uint32_t)(hi >> 32));
		e = srv6_policy_lookup(c, AF_INET, &q, true);
		assert_non_null(e);
		assert_int_equal(e->plen, plen);
	}
	free(r6.r);
	free(r4.r);
	srv6_cache_destroy(c);
}

/* ---- incremental changes ---- */

static void test_sid_set_del_incremental(void **state)
{
	size_t m;

	for (m = 0; m < 3; m++) {
		struct srv6_cache *c = srv6_cache_new(2, modes[m]);
		struct reftab ref = { 0 };
		uint32_t tag = 0;
		int i;

		assert_non_null(c);
		pool_init(4242 + m, 128);
		for (i = 0; i < 2000; i++) {
			uint64_t hi, lo;
			unsigned int plen;
			struct in6_addr p;
			struct ref *r;
			int op = (int)(rnd() % 10);

			random_prefix(128, &hi, &lo, &plen);
			p = a6(hi, lo);
			r = ref_find(&ref, hi, lo, plen);
			if (op < 3) {
				int ret = srv6_cache_sid_del(c, &p, (uint8_t)plen);

				assert_int_equal(ret, r ? 0 : -ENOENT);
				if (r)
					r->live = false;
			} else {
				struct srv6_sid_cfg cfg = sid_cfg(++tag);

				assert_int_equal(srv6_cache_sid_set(c, &p, (uint8_t)plen, &cfg), 0);
				if (r)
					r->tag = tag; /* replace */
				else
					ref_add(&ref, hi, lo, plen, tag);
			}
			if (i % 250 == 0)
				check_sids(c, &ref, 200);
		}
		check_sids(c, &ref, 2000);
		free(ref.r);
		srv6_cache_destroy(c);
	}
}

/* Many /128s at one length: the directory grows and shrinks. */
static void test_sid_dir_resize(void **state)
{
	struct srv6_cache *c = srv6_cache_new(1, SRV6_LOOKUP_RCU);
	struct reftab ref = { 0 };
	int i, n = 5000;
	size_t j;

	assert_non_null(c);
	pool_init(5, 128);
	for (i = 0; i < n; i++) {
		uint64_t hi = 0xfc00000100000000ULL, lo = (uint64_t)i * 0x10001 + 1;
		struct in6_addr p = a6(hi, lo);
		struct srv6_sid_cfg cfg = sid_cfg((uint32_t)i);

		assert_int_equal(srv6_cache_sid_set(c, &p, 128, &cfg), 0);
		ref_add(&ref, hi, lo, 128, (uint32_t)i);
	}
	/* a /48 locator block under them */
	{
		struct in6_addr p = a6(0xfc00000100000000ULL, 0);
		struct srv6_sid_cfg cfg = sid_cfg(999999);

		assert_int_equal(srv6_cache_sid_set(c, &p, 48, &cfg), 0);
		ref_add(&ref, 0xfc00000100000000ULL, 0, 48, 999999);
	}
	for (j = 0; j < ref.n; j++) {
		struct in6_addr q = a6(ref.r[j].hi, ref.r[j].lo);
		const struct srv6_sid_entry *e = srv6_sid_lookup(c, &q, true);

		assert_non_null(e);
		assert_int_equal(e->cfg.table, ref.r[j].tag);
	}
	for (i = 0; i < n - 10; i++) {
		struct in6_addr p = a6(ref.r[i].hi, ref.r[i].lo);

		assert_int_equal(srv6_cache_sid_del(c, &p, 128), 0);
		ref.r[i].live = false;
	}
	for (j = 0; j < ref.n; j++) {
		struct in6_addr q = a6(ref.r[j].hi, ref.r[j].lo);
		const struct srv6_sid_entry *e = srv6_sid_lookup(c, &q, true);

		assert_non_null(e);
		if (ref.r[j].plen == 48)
			continue; /* the /48 query address is not a /128 of the set */
		/* deleted /128s fall back to the /48 */
		assert_int_equal(e->cfg.table, ref.r[j].live ? ref.r[j].tag : 999999);
	}
	assert_int_equal(ref_live(&ref), 11);
	free(ref.r);
	srv6_cache_destroy(c);
}

static void test_policy_set_del(void **state)
{
	struct srv6_cache *c = srv6_cache_new(1, SRV6_LOOKUP_REFCOUNT);
	struct reftab r4 = { 0 }, r6 = { 0 };
	int i;

	assert_non_null(c);
	pool_init(31337, 32);
	for (i = 0; i < 1500; i++) {
		int family = i % 2 ? AF_INET : AF_INET6;
		unsigned int maxlen = family == AF_INET ? 32 : 128;
		struct reftab *ref = family == AF_INET ? &r4 : &r6;
		uint64_t hi, lo;
		unsigned int plen;
		struct in6_addr p6;
		struct in_addr p4;
		const void *p;
		struct ref *r;

		if (family == AF_INET6 && i == 1)
			pool_init(31338, 128);
		random_prefix(maxlen, &hi, &lo, &plen);
		p6 = a6(hi, lo);
		p4.s_addr = htobe32((uint32_t)(hi >> 32));
		p = family == AF_INET ? (void *)&p4 : (void *)&p6;
		r = ref_find(ref, hi, lo, plen);
		if (rnd() % 3 == 0) {
			assert_int_equal(srv6_cache_policy_del(c, family, p, (uint8_t)plen),
					 r ? 0 : -ENOENT);
			if (r)
				r->live = false;
		} else {
			struct srv6_policy pol = pol_cfg((uint32_t)i);

			assert_int_equal(srv6_cache_policy_set(c, family, p, (uint8_t)plen, &pol), 0);
			if (r)
				r->tag = (uint32_t)i;
			else
				ref_add(ref, hi, lo, plen, (uint32_t)i);
		}
	}
	/* queries are drawn from the current pool (IPv6) */
	check_policies(c, AF_INET6, &r6, 2000);
	free(r4.r);
	free(r6.r);
	srv6_cache_destroy(c);
}

/* ---- swap, references, counters ---- */

static void test_publish_swap_and_refs(void **state)
{
	size_t m;

	for (m = 0; m < 3; m++) {
		struct srv6_cache *c = srv6_cache_new(1, modes[m]);
		struct srv6_tables *t1 = srv6_tables_new(), *t2 = srv6_tables_new();
		const struct srv6_sid_entry *held, *e;
		struct in6_addr a = a6(0xfc00000000010000ULL, 1);
		struct in6_addr b = a6(0xfc00000000020000ULL, 1);
		struct srv6_sid_cfg c1 = sid_cfg(1), c2 = sid_cfg(2);

		assert_non_null(c);
		assert_int_equal(srv6_tables_add_sid(t1, &a, 128, &c1), 0);
		assert_int_equal(srv6_tables_add_sid(t2, &b, 128, &c2), 0);
		assert_int_equal(srv6_cache_publish(c, t1), 0);
		held = srv6_sid_lookup(c, &a, false);
		assert_non_null(held);
		assert_null(srv6_sid_lookup(c, &b, true));

		/* whole swap: a gone, b present; held stays valid */
		assert_int_equal(srv6_cache_publish(c, t2), 0);
		srv6_reader_quiescent();
		assert_null(srv6_sid_lookup(c, &a, true));
		e = srv6_sid_lookup(c, &b, true);
		assert_non_null(e);
		assert_int_equal(e->cfg.table, 2);
		assert_int_equal(held->cfg.table, 1);
		assert_int_equal(held->plen, 128);

		/* replace b incrementally while holding its old entry */
		e = srv6_sid_lookup(c, &b, false);
		c2.table = 3;
		assert_int_equal(srv6_cache_sid_set(c, &b, 128, &c2), 0);
		assert_int_equal(e->cfg.table, 2);
		assert_int_equal(srv6_sid_lookup(c, &b, true)->cfg.table, 3);
		/* delete b while holding the replaced entry and the new one */
		{
			const struct srv6_sid_entry *e3 = srv6_sid_lookup(c, &b, false);

			assert_int_equal(srv6_cache_sid_del(c, &b, 128), 0);
			assert_int_equal(srv6_cache_sid_del(c, &b, 128), -ENOENT);
			assert_null(srv6_sid_lookup(c, &b, true));
			assert_int_equal(e3->cfg.table, 3);
			srv6_entry_put(c, e3);
		}
		srv6_entry_put(c, e);
		srv6_entry_put(c, held);
		srv6_cache_destroy(c);
	}
}

struct count_arg {
	int n;
	uint32_t sum;
};

static void count_sid(const struct srv6_sid_entry *e, void *arg)
{
	struct count_arg *a = arg;

	a->n++;
	a->sum += e->cfg.table;
}

static void count_pol(const struct srv6_policy_entry *e, void *arg)
{
	struct count_arg *a = arg;

	a->n++;
	a->sum += e->pol.mark;
}

static void bump(struct srv6_cache *c, unsigned int w, bool pol, uint32_t id, uint64_t v)
{
	struct srv6_counters *s = srv6_counters_slot(c, w, pol, id);

	assert_non_null(s);
	srv6_counter_add(&s->packets, v);
	srv6_counter_add(&s->bytes, 100 * v);
	srv6_counter_add(&s->drops[SRV6_DROP_SL_ZERO], 1);
}

static void test_counters_stable_across_publish(void **state)
{
	struct srv6_cache *c = srv6_cache_new(3, SRV6_LOOKUP_RCU);
	struct srv6_tables *t1 = srv6_tables_new(), *t2 = srv6_tables_new();
	struct in6_addr a = a6(0xfc00000000010000ULL, 1), b = a6(0xfc00000000020000ULL, 1);
	struct in6_addr d = a6(0xfc00000000030000ULL, 1);
	struct in_addr p4 = { .s_addr = htobe32(0x0a000000) };
	struct srv6_sid_cfg c1 = sid_cfg(1), c2 = sid_cfg(2), c3 = sid_cfg(3);
	struct srv6_policy pol = pol_cfg(7);
	struct srv6_counters sum;
	struct count_arg ca = { 0 };
	uint32_t ida, idb, idd, idp;

	assert_non_null(c);
	assert_int_equal(srv6_tables_add_sid(t1, &a, 128, &c1), 0);
	assert_int_equal(srv6_tables_add_sid(t1, &b, 128, &c2), 0);
	assert_int_equal(srv6_tables_add_policy(t1, AF_INET, &p4, 8, &pol), 0);
	assert_int_equal(srv6_cache_publish(c, t1), 0);
	ida = srv6_sid_lookup(c, &a, true)->id;
	idb = srv6_sid_lookup(c, &b, true)->id;
	idp = srv6_policy_lookup(c, AF_INET, &p4, true)->id;
	assert_int_not_equal(ida, idb);
	bump(c, 0, false, ida, 5);
	bump(c, 2, false, ida, 1);
	bump(c, 1, false, idb, 2);
	bump(c, 0, true, idp, 9);
	assert_null(srv6_counters_slot(c, 3, false, ida)); /* worker out of range */

	/* reload: a kept (new cfg), b dropped, d new; policy kept */
	c1.table = 11;
	assert_int_equal(srv6_tables_add_sid(t2, &a, 128, &c1), 0);
	assert_int_equal(srv6_tables_add_sid(t2, &d, 128, &c3), 0);
	assert_int_equal(srv6_tables_add_policy(t2, AF_INET, &p4, 8, &pol), 0);
	assert_int_equal(srv6_cache_publish(c, t2), 0);
	assert_int_equal(srv6_sid_lookup(c, &a, true)->id, ida);
	assert_int_equal(srv6_sid_lookup(c, &a, true)->cfg.table, 11);
	assert_int_equal(srv6_policy_lookup(c, AF_INET, &p4, true)->id, idp);
	idd = srv6_sid_lookup(c, &d, true)->id;
	assert_int_not_equal(idd, ida);
	srv6_cache_counters(c, false, ida, &sum);
	assert_int_equal(sum.packets, 6);
	assert_int_equal(sum.bytes, 600);
	assert_int_equal(sum.drops[SRV6_DROP_SL_ZERO], 2);
	srv6_cache_counters(c, true, idp, &sum);
	assert_int_equal(sum.packets, 9);
	/* d may have reused b's id (b is gone), but starts from zero */
	srv6_cache_counters(c, false, idd, &sum);
	assert_int_equal(sum.packets, 0);
	assert_int_equal(sum.drops[SRV6_DROP_SL_ZERO], 0);

	/* incremental replace keeps the id; delete + re-add gets zeroed counters */
	c1.table = 12;
	assert_int_equal(srv6_cache_sid_set(c, &a, 128, &c1), 0);
	assert_int_equal(srv6_sid_lookup(c, &a, true)->id, ida);
	srv6_cache_counters(c, false, ida, &sum);
	assert_int_equal(sum.packets, 6);
	assert_int_equal(srv6_cache_sid_del(c, &a, 128), 0);
	assert_int_equal(srv6_cache_sid_set(c, &b, 128, &c2), 0);
	idb = srv6_sid_lookup(c, &b, true)->id;
	srv6_cache_counters(c, false, idb, &sum);
	assert_int_equal(sum.packets, 0);

	/* an id held by a reference is not reused while the entry lives */
	{
		const struct srv6_sid_entry *h = srv6_sid_lookup(c, &b, false);
		uint32_t held = h->id;

		assert_int_equal(srv6_cache_sid_del(c, &b, 128), 0);
		assert_int_equal(srv6_cache_sid_set(c, &a, 128, &c1), 0);
		assert_int_not_equal(srv6_sid_lookup(c, &a, true)->id, held);
		srv6_entry_put(c, h);
	}

	srv6_cache_foreach_sid(c, count_sid, &ca);
	assert_int_equal(ca.n, 2); /* a and d */
	assert_int_equal(ca.sum, 12 + 3);
	ca.n = 0;
	ca.sum = 0;
	srv6_cache_foreach_policy(c, count_pol, &ca);
	assert_int_equal(ca.n, 1);
	assert_int_equal(ca.sum, 7);
	srv6_cache_destroy(c);
}

static void test_bad_arguments(void **state)
{
	struct srv6_cache *c = srv6_cache_new(1, SRV6_LOOKUP_RCU);
	struct srv6_tables *t = srv6_tables_new();
	struct in6_addr a = a6(0x20010db800000000ULL, 1), a2 = a6(0x20010db800000000ULL, 2);
	struct in_addr p4 = { .s_addr = htobe32(0x0a000001) };
	struct srv6_sid_cfg cfg = sid_cfg(1);
	struct srv6_policy pol = pol_cfg(1);
	struct count_arg ca = { 0 };

	assert_non_null(c);
	assert_null(srv6_cache_new(0, SRV6_LOOKUP_RCU));
	assert_null(srv6_cache_new(1, (enum srv6_lookup_mode)42));
	assert_int_equal(srv6_tables_add_sid(t, &a, 129, &cfg), -EINVAL);
	assert_int_equal(srv6_tables_add_policy(t, AF_INET, &p4, 33, &pol), -EINVAL);
	assert_int_equal(srv6_tables_add_policy(t, AF_INET6, &a, 129, &pol), -EINVAL);
	assert_int_equal(srv6_tables_add_policy(t, AF_UNIX, &a, 8, &pol), -EAFNOSUPPORT);
	assert_int_equal(srv6_tables_add_sid(t, &a, 64, &cfg), 0);
	/* same /64 with other host bits: a duplicate */
	assert_int_equal(srv6_tables_add_sid(t, &a2, 64, &cfg), -EEXIST);
	assert_int_equal(srv6_tables_add_policy(t, AF_INET, &p4, 8, &pol), 0);
	assert_int_equal(srv6_tables_add_policy(t, AF_INET, &p4, 8, &pol), -EEXIST);
	assert_int_equal(srv6_cache_publish(c, t), 0);
	assert_int_equal(srv6_sid_lookup(c, &a2, true)->plen, 64);
	assert_int_equal(srv6_cache_sid_set(c, &a, 200, &cfg), -EINVAL);
	assert_int_equal(srv6_cache_sid_del(c, &a, 128), -ENOENT);
	assert_int_equal(srv6_cache_sid_del(c, &a, 129), -EINVAL);
	assert_int_equal(srv6_cache_policy_del(c, AF_INET6, &a, 64), -ENOENT);
	assert_int_equal(srv6_cache_policy_set(c, 12345, &a, 64, &pol), -EAFNOSUPPORT);
	assert_null(srv6_policy_lookup(c, 12345, &a, true));
	/* a failed change leaves the snapshot as it was */
	srv6_cache_foreach_sid(c, count_sid, &ca);
	assert_int_equal(ca.n, 1);
	assert_int_equal(srv6_cache_sid_del(c, &a2, 64), 0); /* host bits ignored */
	assert_null(srv6_sid_lookup(c, &a, true));
	srv6_cache_destroy(c);
	srv6_cache_destroy(NULL);
	srv6_tables_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sid_random_tables),
		cmocka_unit_test(test_policy4_random_tables),
		cmocka_unit_test(test_policy6_random_tables),
		cmocka_unit_test(test_all_lengths_nested),
		cmocka_unit_test(test_sid_set_del_incremental),
		cmocka_unit_test(test_sid_dir_resize),
		cmocka_unit_test(test_policy_set_del),
		cmocka_unit_test(test_publish_swap_and_refs),
		cmocka_unit_test(test_counters_stable_across_publish),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests_name("cache_lpm", tests, setup, teardown);
}
