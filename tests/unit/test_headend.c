// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_headend.c - headend transforms (src/core/headend.c).  The byte-exact
 * kernel comparisons of every mode are the kind=headend vectors replayed by
 * test_seg6; here: names, policy checks, input/mode mismatches, headroom,
 * size limits, the seg6_flowlabel = 1 hash, and the shared primitives.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "srv6d/headend.h"
#include "srv6d/seg6.h"

#define BUFSZ (SRV6_PKT_HEADROOM + 70000)

static uint8_t buf[BUFSZ];

static void addr(struct in6_addr *a, const char *s)
{
	assert_int_equal(inet_pton(AF_INET6, s, a), 1);
}

static struct srv6_policy policy(enum srv6_encap_mode m, unsigned int n)
{
	struct srv6_policy p;
	unsigned int i;
	char s[64];

	memset(&p, 0, sizeof(p));
	p.mode = m;
	p.nsegs = n;
	for (i = 0; i < n; i++) {
		snprintf(s, sizeof(s), "fc00:b::%x", i + 1);
		addr(&p.segs[i], s);
	}
	addr(&p.encap_src, "fc00::1");
	return p;
}

/* IPv6/UDP packet with the given tc, flow label, hop limit, ports. */
static size_t v6pkt(uint8_t *p, uint8_t tc, uint32_t fl, uint8_t hlim,
		    uint16_t sport, uint16_t dport, size_t paylen)
{
	struct in6_addr a;

	memset(p, 0, 48 + paylen);
	p[0] = (uint8_t)(0x60 | tc >> 4);
	p[1] = (uint8_t)((tc & 0xf) << 4 | fl >> 16);
	p[2] = (uint8_t)(fl >> 8);
	p[3] = (uint8_t)fl;
	p[4] = (uint8_t)((8 + paylen) >> 8);
	p[5] = (uint8_t)(8 + paylen);
	p[6] = 17;
	p[7] = hlim;
	addr(&a, "2001:db8::1");
	memcpy(p + 8, &a, 16);
	addr(&a, "2001:db8::2");
	memcpy(p + 24, &a, 16);
	p[40] = (uint8_t)(sport >> 8);
	p[41] = (uint8_t)sport;
	p[42] = (uint8_t)(dport >> 8);
	p[43] = (uint8_t)dport;
	return 48 + paylen;
}

static size_t v4pkt(uint8_t *p, uint16_t sport)
{
	memset(p, 0, 28);
	p[0] = 0x45;
	p[1] = 0xb8;   /* TOS: not inherited by the outer header */
	p[3] = 28;
	p[8] = 9;
	p[9] = 17;
	p[12] = 192; p[13] = 0; p[14] = 2; p[15] = 1;
	p[16] = 198; p[17] = 51; p[18] = 100; p[19] = 2;
	p[20] = (uint8_t)(sport >> 8);
	p[21] = (uint8_t)sport;
	p[23] = 53;
	return 28;
}

static void test_mode_names(void **state)
{
	static const char *const names[] = {
		"inline", "encap", "l2encap", "encap.red", "l2encap.red",
	};
	int i;

	for (i = 0; i < 5; i++) {
		assert_int_equal(srv6_mode_from_name(names[i]), i);
		assert_string_equal(srv6_mode_name(i), names[i]);
	}
	assert_int_equal(SRV6_MODE_ENCAP, 1);     /* SEG6_IPTUN_MODE_ENCAP */
	assert_int_equal(SRV6_MODE_L2ENCAP_RED, 4);
	assert_int_equal(srv6_mode_from_name("Encap"), -1);
	assert_int_equal(srv6_mode_from_name("encap.Red"), -1);
	assert_int_equal(srv6_mode_from_name(""), -1);
	assert_int_equal(srv6_mode_from_name(NULL), -1);
	assert_string_equal(srv6_mode_name(SRV6_MODE_MAX), "unknown");
}

static void test_policy_check(void **state)
{
	struct srv6_policy p = policy(SRV6_MODE_ENCAP, 2);
	const char *why = "x";

	assert_int_equal(srv6_policy_check(&p, &why), 0);
	assert_null(why);
	p.nsegs = 0;
	assert_int_equal(srv6_policy_check(&p, &why), -EINVAL);
	assert_string_equal(why, "empty segment list");
	p.nsegs = SRV6_MAX_SEGS + 1;
	assert_int_equal(srv6_policy_check(&p, &why), -EINVAL);
	assert_string_equal(why, "too many segments");
	p.nsegs = SRV6_MAX_SEGS;
	assert_int_equal(srv6_policy_check(&p, NULL), 0);
	p.mode = SRV6_MODE_MAX;
	assert_int_equal(srv6_policy_check(&p, &why), -EINVAL);
	assert_string_equal(why, "unknown encap mode");
	p.mode = SRV6_MODE_ENCAP;
	/* net.ipv6.seg6_flowlabel takes any int (issue 9.3): none is refused */
	p.flowlabel_mode = 2;
	assert_int_equal(srv6_policy_check(&p, &why), 0);
	p.flowlabel_mode = -7;
	assert_int_equal(srv6_policy_check(&p, &why), 0);
	assert_int_equal(srv6_policy_check(NULL, &why), -EINVAL);
}

/* Mode and input family must fit (the kernel's seg6_do_srh()). */
static void test_mode_input_mismatch(void **state)
{
	static const struct {
		enum srv6_encap_mode m;
		uint8_t proto;
		bool ok;
	} cases[] = {
		{ SRV6_MODE_INLINE, 41, true },
		{ SRV6_MODE_INLINE, 4, false },
		{ SRV6_MODE_INLINE, 143, false },
		{ SRV6_MODE_ENCAP, 41, true },
		{ SRV6_MODE_ENCAP, 4, true },
		{ SRV6_MODE_ENCAP, 143, false },
		{ SRV6_MODE_ENCAP_RED, 4, true },
		{ SRV6_MODE_L2ENCAP, 143, true },
		{ SRV6_MODE_L2ENCAP, 41, false },
		{ SRV6_MODE_L2ENCAP_RED, 4, false },
		{ SRV6_MODE_ENCAP, 17, false },
	};
	struct srv6_result res;
	struct srv6_pkt pkt;
	size_t i, len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srv6_policy p = policy(cases[i].m, 2);
		uint8_t *d = buf + SRV6_PKT_HEADROOM;

		len = cases[i].proto == 4 ? v4pkt(d, 1) :
		      v6pkt(d, 0, 0, 64, 1, 2, 16);
		assert_int_equal(srv6_pkt_init(&pkt, buf, BUFSZ,
					       SRV6_PKT_HEADROOM, len), 0);
		assert_int_equal(srv6_headend_apply(&p, cases[i].proto, &pkt,
						    &res), 0);
		if (cases[i].ok) {
			assert_int_equal(res.verdict, SRV6_V_FORWARD6);
			assert_true(pkt.data < d);
		} else {
			assert_int_equal(res.verdict, SRV6_V_DROP);
			assert_int_equal(res.reason, SRV6_DROP_BAD_INNER);
			assert_ptr_equal(pkt.data, d);
			assert_int_equal(pkt.len, len);
		}
	}
}

static void test_malformed_inner(void **state)
{
	struct srv6_policy p = policy(SRV6_MODE_ENCAP, 1);
	struct srv6_result res;
	struct srv6_pkt pkt;
	uint8_t *d = buf + SRV6_PKT_HEADROOM;

	v6pkt(d, 0, 0, 64, 1, 2, 0);
	assert_int_equal(srv6_pkt_init(&pkt, buf, BUFSZ, SRV6_PKT_HEADROOM,
				       39), 0);
	assert_int_equal(srv6_headend_apply(&p, 41, &pkt, &res), 0);
	assert_int_equal(res.reason, SRV6_DROP_MALFORMED);
	d[0] = 0x45;
	pkt.len = 48;
	assert_int_equal(srv6_headend_apply(&p, 41, &pkt, &res), 0);
	assert_int_equal(res.reason, SRV6_DROP_MALFORMED);
	pkt.len = 19;
	assert_int_equal(srv6_headend_apply(&p, 4, &pkt, &res), 0);
	assert_int_equal(res.reason, SRV6_DROP_MALFORMED);
	p.mode = SRV6_MODE_L2ENCAP;
	pkt.len = 13;
	assert_int_equal(srv6_headend_apply(&p, 143, &pkt, &res), 0);
	assert_int_equal(res.reason, SRV6_DROP_MALFORMED);
	pkt.len = 14;
	assert_int_equal(srv6_headend_apply(&p, 143, &pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	/* a runt frame inherits nothing: tc 0, hop limit 64 */
	assert_int_equal(pkt.data[0], 0x60);
	assert_int_equal(pkt.data[7], 64);
}

/* A pending policy (no outer source yet) drops as "pending", packet untouched. */
static void test_pending(void **state)
{
	struct srv6_policy p = policy(SRV6_MODE_ENCAP, 1);
	struct srv6_result res;
	struct srv6_pkt pkt;
	uint8_t *d = buf + SRV6_PKT_HEADROOM;

	v6pkt(d, 0, 0, 64, 1, 2, 0);
	assert_int_equal(srv6_pkt_init(&pkt, buf, BUFSZ, SRV6_PKT_HEADROOM, 48), 0);
	p.pending = true;
	assert_int_equal(srv6_headend_apply(&p, 41, &pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_DROP);
	assert_int_equal(res.reason, SRV6_DROP_PENDING);
	assert_ptr_equal(pkt.data, d);
	assert_int_equal(pkt.len, 48);
	p.pending = false;
	assert_int_equal(srv6_headend_apply(&p, 41, &pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
}

/* Exactly the needed headroom works, one byte less is NO_ROOM. */
static void test_headroom(void **state)
{
	static const struct {
		enum srv6_encap_mode m;
		unsigned int n;
		size_t need;
	} cases[] = {
		{ SRV6_MODE_ENCAP, 1, 40 + 24 },
		{ SRV6_MODE_ENCAP, 16, 40 + 8 + 256 },
		{ SRV6_MODE_ENCAP_RED, 1, 40 },
		{ SRV6_MODE_ENCAP_RED, 3, 40 + 8 + 32 },
		{ SRV6_MODE_INLINE, 1, 8 + 32 },
		{ SRV6_MODE_INLINE, 16, 8 + 17 * 16 },
	};
	struct srv6_result res;
	struct srv6_pkt pkt;
	size_t i, len, hr;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srv6_policy p = policy(cases[i].m, cases[i].n);

		for (hr = cases[i].need - 1; hr <= cases[i].need; hr++) {
			len = v6pkt(buf + hr, 0, 0, 64, 1, 2, 10);
			assert_int_equal(srv6_pkt_init(&pkt, buf, BUFSZ, hr,
						       len), 0);
			assert_int_equal(srv6_headend_apply(&p, 41, &pkt,
							    &res), 0);
			if (hr < cases[i].need) {
				assert_int_equal(res.verdict, SRV6_V_DROP);
				assert_int_equal(res.reason,
						 SRV6_DROP_NO_ROOM);
				assert_int_equal(pkt.len, len);
				assert_ptr_equal(pkt.data, buf + hr);
			} else {
				assert_int_equal(res.verdict,
						 SRV6_V_FORWARD6);
				assert_ptr_equal(pkt.data, buf);
				assert_int_equal(pkt.len, len + hr);
				assert_int_equal((pkt.data[4] << 8 |
						  pkt.data[5]) + 40, pkt.len);
			}
		}
	}
}

/* The outer Payload Length is 16 bits: a result above 65535 + 40 drops. */
static void test_too_big(void **state)
{
	struct srv6_policy p = policy(SRV6_MODE_ENCAP, 1);
	struct srv6_result res;
	struct srv6_pkt pkt;
	uint8_t *d = buf + SRV6_PKT_HEADROOM;
	size_t len = 65535 - 24 + 1;   /* + 40 + 24 > 65535 + 40 */

	v6pkt(d, 0, 0, 64, 1, 2, 0);
	assert_int_equal(srv6_pkt_init(&pkt, buf, BUFSZ, SRV6_PKT_HEADROOM,
				       len), 0);
	assert_int_equal(srv6_headend_apply(&p, 41, &pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_DROP);
	assert_int_equal(res.reason, SRV6_DROP_NO_ROOM);
	pkt.len = len - 1;
	assert_int_equal(srv6_headend_apply(&p, 41, &pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	assert_int_equal(pkt.data[4] << 8 | pkt.data[5], 65535);
}

/* seg6_flowlabel = 1: a deterministic hash of the inner 5-tuple.  The
 * expected labels are pinned, computed outside this code (Python):
 *   h = FNV-1a-32(src | dst | next header | sport dport), label =
 *   rol32(h, 16) & 0xfffff
 * for v6pkt() (2001:db8::1 -> 2001:db8::2, UDP) and v4pkt() (192.0.2.1 ->
 * 198.51.100.2, UDP, dport 53). */
#define FL_V6_1000_53 0x30940u
#define FL_V6_1001_53 0x80626u
#define FL_V4_1000 0xc7bddu
#define FL_V4_1001 0x79ef7u
static void test_flowlabel_hash(void **state)
{
	uint8_t a[128], b[128];
	uint32_t ha, hb;
	struct srv6_policy p = policy(SRV6_MODE_ENCAP, 1);
	struct srv6_result res;
	struct srv6_pkt pkt;
	size_t len;

	/* same 5-tuple, different payload/tc/hlim: same label */
	v6pkt(a, 0x10, 0x11111, 64, 1000, 53, 20);
	v6pkt(b, 0x20, 0x22222, 3, 1000, 53, 20);
	b[60] = 0x77;
	ha = srv6_flowlabel_hash(a, 68, 41);
	hb = srv6_flowlabel_hash(b, 68, 41);
	assert_int_equal(ha, FL_V6_1000_53);
	assert_int_equal(hb, FL_V6_1000_53);
	/* another port: another label */
	v6pkt(b, 0x10, 0x11111, 64, 1001, 53, 20);
	assert_int_equal(srv6_flowlabel_hash(b, 68, 41), FL_V6_1001_53);
	v4pkt(a, 1000);
	v4pkt(b, 1001);
	assert_int_equal(srv6_flowlabel_hash(a, 28, 4), FL_V4_1000);
	assert_int_equal(srv6_flowlabel_hash(b, 28, 4), FL_V4_1001);
	/* truncated input still hashes, without reading past it */
	(void)srv6_flowlabel_hash(a, 3, 4);
	(void)srv6_flowlabel_hash(a, 3, 143);

	/* in the header: tc and hop limit still inherited */
	p.flowlabel_mode = 1;
	len = v6pkt(buf + SRV6_PKT_HEADROOM, 0xa4, 0x12345, 42, 1000, 53, 20);
	assert_int_equal(srv6_pkt_init(&pkt, buf, BUFSZ, SRV6_PKT_HEADROOM,
				       len), 0);
	assert_int_equal(srv6_headend_apply(&p, 41, &pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	assert_int_equal((uint32_t)((pkt.data[1] & 0xf) << 16 |
				    pkt.data[2] << 8 | pkt.data[3]), FL_V6_1000_53);
	assert_int_equal((pkt.data[0] & 0xf) << 4 | pkt.data[1] >> 4, 0xa4);
	assert_int_equal(pkt.data[7], 42);
	/* IPv4 inner: mode 1 hashes, mode 0 gives 0 (not IPv6) */
	len = v4pkt(buf + SRV6_PKT_HEADROOM, 1000);
	assert_int_equal(srv6_pkt_init(&pkt, buf, BUFSZ, SRV6_PKT_HEADROOM,
				       len), 0);
	assert_int_equal(srv6_headend_apply(&p, 4, &pkt, &res), 0);
	assert_int_equal((uint32_t)((pkt.data[1] & 0xf) << 16 |
				    pkt.data[2] << 8 | pkt.data[3]), FL_V4_1000);
	assert_int_equal(pkt.data[0], 0x60);
	assert_int_equal(pkt.data[1] & 0xf0, 0);
	assert_int_equal(pkt.data[7], 64);
	/* mode 0 (copy the inner label): an IPv4 inner packet has none, so 0;
	 * the TOS is not inherited either */
	p.flowlabel_mode = 0;
	len = v4pkt(buf + SRV6_PKT_HEADROOM, 1000);
	assert_int_equal(srv6_pkt_init(&pkt, buf, BUFSZ, SRV6_PKT_HEADROOM,
				       len), 0);
	assert_int_equal(srv6_headend_apply(&p, 4, &pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	assert_int_equal(pkt.data[0], 0x60);
	assert_int_equal(pkt.data[1], 0);
	assert_int_equal(pkt.data[2], 0);
	assert_int_equal(pkt.data[3], 0);

	/* seg6_flowlabel other than -1/0/1, as the kernel: > 0 hashes, < 0
	 * gives 0 (issue 9.3: these used to drop every policy packet) */
	for (int mode = -3; mode <= 5; mode++) {
		if (mode >= -1 && mode <= 1)
			continue;
		p.flowlabel_mode = mode;
		len = v6pkt(buf + SRV6_PKT_HEADROOM, 0xa4, 0x12345, 42, 1000, 53, 20);
		assert_int_equal(srv6_pkt_init(&pkt, buf, BUFSZ, SRV6_PKT_HEADROOM,
					       len), 0);
		ha = srv6_flowlabel_hash(pkt.data, pkt.len, 41);
		assert_int_equal(srv6_headend_apply(&p, 41, &pkt, &res), 0);
		assert_int_equal(res.verdict, SRV6_V_FORWARD6);
		assert_int_equal((uint32_t)((pkt.data[1] & 0xf) << 16 |
					    pkt.data[2] << 8 | pkt.data[3]),
				 mode > 0 ? ha : 0);
	}
}

/* The primitives End.B6* use leave the packet alone on failure. */
static void test_primitives(void **state)
{
	struct srv6_policy p = policy(SRV6_MODE_ENCAP, 2);
	struct srv6_pkt pkt;
	uint8_t copy[64];
	size_t len;

	len = v6pkt(buf + 10, 0, 0, 64, 1, 2, 8);
	memcpy(copy, buf + 10, len);
	assert_int_equal(srv6_pkt_init(&pkt, buf, BUFSZ, 10, len), 0);
	assert_int_equal(srv6_encap_push(&pkt, p.segs, 2, false, 41,
					 &p.encap_src, 0), -ENOSPC);
	assert_int_equal(srv6_srh_insert(&pkt, p.segs, 2), -ENOSPC);
	assert_int_equal(srv6_encap_push(&pkt, p.segs, 0, false, 41,
					 &p.encap_src, 0), -EINVAL);
	assert_int_equal(srv6_srh_insert(&pkt, p.segs, 0), -EINVAL);
	assert_int_equal(srv6_srh_insert(&pkt, p.segs, SRV6_MAX_SEGS + 1),
			 -EINVAL);
	assert_ptr_equal(pkt.data, buf + 10);
	assert_int_equal(pkt.len, len);
	assert_memory_equal(pkt.data, copy, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode_names),
		cmocka_unit_test(test_policy_check),
		cmocka_unit_test(test_mode_input_mismatch),
		cmocka_unit_test(test_malformed_inner),
		cmocka_unit_test(test_pending),
		cmocka_unit_test(test_headroom),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_flowlabel_hash),
		cmocka_unit_test(test_primitives),
	};

	return cmocka_run_group_tests_name("headend", tests, NULL, NULL);
}
