// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_nest.c - the headend levels a packet shows (src/core/nest.c): the
 * bound on srv6d's results that routing hands back to its policies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "srv6d/nest.h"

#define MAXD 8   /* SRV6_CHAIN_MAX */

struct pb {
	uint8_t b[4096];
	size_t len;
	size_t nh;                 /* the Next Header byte to set next */
};

static void put6(struct pb *p)
{
	if (p->len)
		p->b[p->nh] = 41;
	memset(p->b + p->len, 0, 40);
	p->b[p->len] = 0x60;
	p->nh = p->len + 6;
	p->len += 40;
}

/* an SRH of @nsegs segments (Routing Type 4) */
static void put_srh(struct pb *p, unsigned int nsegs)
{
	uint8_t *h = p->b + p->len;

	p->b[p->nh] = 43;
	memset(h, 0, 8 + 16 * nsegs);
	h[1] = (uint8_t)(2 * nsegs);
	h[2] = 4;
	p->nh = p->len;
	p->len += 8 + 16 * nsegs;
}

static void put_l4(struct pb *p, uint8_t proto, size_t n)
{
	p->b[p->nh] = proto;
	memset(p->b + p->len, 0xab, n);
	p->len += n;
}

static void test_plain(void **st)
{
	struct pb p = { 0 };

	(void)st;
	put6(&p);
	put_l4(&p, 58, 16);
	assert_int_equal(srv6_nest_depth(p.b, p.len, MAXD), 1);
	/* one SRH (a packet from elsewhere, or a first insertion): no level */
	p = (struct pb){ 0 };
	put6(&p);
	put_srh(&p, 2);
	put_l4(&p, 58, 16);
	assert_int_equal(srv6_nest_depth(p.b, p.len, MAXD), 1);
}

/* H.Insert adds an SRH, no IP header: each one in front of another SRH is a
 * level (before: every insertion loop looked 1 deep, and never ended) */
static void test_insertions(void **st)
{
	(void)st;
	for (unsigned int k = 1; k <= 12; k++) {
		struct pb p = { 0 };

		put6(&p);
		for (unsigned int i = 0; i < k; i++)
			put_srh(&p, 2);
		put_l4(&p, 58, 16);
		assert_int_equal(srv6_nest_depth(p.b, p.len, MAXD), k <= MAXD + 1 ? k : MAXD + 1);
	}
}

static void test_encapsulations(void **st)
{
	(void)st;
	for (unsigned int k = 0; k <= 10; k++) {
		struct pb p = { 0 }, r = { 0 };

		/* k encapsulations with an SRH each, and k reduced ones (no SRH) */
		for (unsigned int i = 0; i < k; i++) {
			put6(&p);
			put_srh(&p, 1);
			put6(&r);
		}
		put6(&p);
		put6(&r);
		put_l4(&p, 6, 20);
		put_l4(&r, 6, 20);
		assert_int_equal(srv6_nest_depth(p.b, p.len, MAXD), k + 1 <= MAXD + 1 ? k + 1 : MAXD + 1);
		assert_int_equal(srv6_nest_depth(r.b, r.len, MAXD), k + 1 <= MAXD + 1 ? k + 1 : MAXD + 1);
	}
}

static void test_mixed(void **st)
{
	struct pb p = { 0 };

	(void)st;
	/* inline on an encapsulation: outer H, 2 SRHs, inner H with its SRH,
	 * an IPv4 packet inside that */
	put6(&p);
	put_srh(&p, 1);
	put_srh(&p, 1);
	put6(&p);
	put_srh(&p, 3);
	p.b[p.nh] = 4;
	memset(p.b + p.len, 0, 20);
	p.b[p.len] = 0x45;
	p.len += 20;
	assert_int_equal(srv6_nest_depth(p.b, p.len, MAXD), 4);
}

static void test_bounds(void **st)
{
	struct pb p = { 0 };

	(void)st;
	put6(&p);
	put_srh(&p, 2);
	put_srh(&p, 2);
	/* the second SRH's length says more than the packet has: it still
	 * shows (its header is there), the walk ends */
	p.b[p.nh + 1] = 200;
	assert_int_equal(srv6_nest_depth(p.b, p.len, MAXD), 2);
	/* cut inside the first SRH's fixed part, inside the inner header */
	assert_int_equal(srv6_nest_depth(p.b, 44, MAXD), 1);
	p = (struct pb){ 0 };
	put6(&p);
	put6(&p);
	assert_int_equal(srv6_nest_depth(p.b, 79, MAXD), 1);
	assert_int_equal(srv6_nest_depth(p.b, 80, MAXD), 2);
	/* not IPv6, too short: 1 */
	p.b[0] = 0x45;
	assert_int_equal(srv6_nest_depth(p.b, 80, MAXD), 1);
	assert_int_equal(srv6_nest_depth(p.b, 39, MAXD), 1);
	/* a non-SRH routing header ends the walk */
	p = (struct pb){ 0 };
	put6(&p);
	put_srh(&p, 1);
	put_srh(&p, 1);
	p.b[p.nh + 2] = 0;
	put6(&p);
	assert_int_equal(srv6_nest_depth(p.b, p.len, MAXD), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_insertions),
		cmocka_unit_test(test_encapsulations),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
