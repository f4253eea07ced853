// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_hmac.c - the SRH HMAC TLV (src/core/hmac.c) against packets the
 * kernel signed (tests/unit/vectors/gen_hmac.sh made them: `ip sr hmac set`,
 * `encap seg6 mode M segs ... hmac KEYID`, captured on the wire).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "srv6d/headend.h"
#include "srv6d/hmac.h"
#include "srv6d/seg6.h"
#include "srv6d/srh.h"

/* Key 7: sha256 "hmac-secret-7"; key 8: sha1 "sha1-secret-8". */
static const char *const v_encap =   /* encap, segs ff::1,aa::1, hmac 7 */
	"6002838f00882b4020010db800010000000000000000000120010db800ff00000000000000000001"
	"290904010108000020010db800aa0000000000000000000120010db800ff00000000000000000001"
	"0526000000000007765745c824c08a3b945fba0edc15f1be172c8825c8def8879487f153b322b49a"
	"6002838f0010114020010db800010000000000000000000120010db8009900000000000000000001"
	"ac3f000900105c2f6162636465666768";
static const char *const v_inline =  /* inline, segs ff::1,aa::1, hmac 8 (sha1) */
	"6005f15900702b4020010db800010000000000000000000120010db800ff00000000000000000001"
	"110b04020208000020010db800980000000000000000000120010db800aa00000000000000000001"
	"20010db800ff0000000000000000000105260000000000086660b05ac2e3f5ebe2c9b9e5b7cae997"
	"ae0fbcec000000000000000000000000d05f000900105c2e6162636465666768";
static const char *const v_red3 =    /* encap.red, segs ff::1,aa::1,aa::2, hmac 7 */
	"600d08eb00882b4020010db800010000000000000000000120010db800ff00000000000000000001"
	"290904020108000020010db800aa0000000000000000000220010db800aa00000000000000000001"
	"0526000000000007471e298fbb468cc4820fa30046e0c483de22029cf3f116d267478bdaf1341fc7"
	"600d08eb0010114020010db800010000000000000000000120010db8009700000000000000000001"
	"dc07000900105c2d6162636465666768";
static const char *const v_red1 =    /* encap.red, segs ff::1, hmac 7: full SRH */
	"6002b63300782b4020010db800010000000000000000000120010db800ff00000000000000000001"
	"290704000008000020010db800ff000000000000000000010526000000000007415d738789798e7f"
	"a00e0e11eb8c898d2e2546285c14764456c983c24aaf81bd6002b6330010114020010db800010000"
	"000000000000000120010db800960000000000000000000184a5000900105c2c6162636465666768";

static struct srv6_hmac_set keys;

static int setup(void **state)
{
	memset(&keys, 0, sizeof(keys));
	keys.nkeys = 2;
	keys.keys[0].id = 7;
	keys.keys[0].algo = SRV6_HMAC_ALGO_SHA256;
	keys.keys[0].slen = 13;
	memcpy(keys.keys[0].secret, "hmac-secret-7", 13);
	keys.keys[1].id = 8;
	keys.keys[1].algo = SRV6_HMAC_ALGO_SHA1;
	keys.keys[1].slen = 13;
	memcpy(keys.keys[1].secret, "sha1-secret-8", 13);
	return 0;
}

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = strlen(h) / 2;

	for (size_t i = 0; i < n; i++) {
		unsigned int v;

		assert_int_equal(sscanf(h + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
	return n;
}

static void seg(struct in6_addr *a, const char *s)
{
	assert_int_equal(inet_pton(AF_INET6, s, a), 1);
}

/* Every kernel vector verifies, and flipping any byte the HMAC covers
 * (source, Last Entry, flags, key id, each segment, the field) fails it. */
static void check_vector(const char *hex)
{
	uint8_t p[512], *srh;
	struct srv6_ip6_info info;
	size_t len = unhex(hex, p), off, off_k, i;
	uint8_t kid;

	assert_int_equal(srv6_ip6_parse(p, len, &info), 0);
	assert_true(info.has_srh);
	srh = p + info.srh_off;
	off = srv6_hmac_tlv_find(srh);
	off_k = srv6_hmac_tlv_find_kernel(srh);
	assert_int_not_equal(off, 0);
	assert_int_equal(off, off_k);
	assert_int_equal(off + 40, info.srh_len);
	assert_int_equal(srh[5], SRV6_SRH_FLAG_HMAC);
	for (int mode = SRV6_HMAC_VERIFY; mode <= SRV6_HMAC_REQUIRE; mode++)
		assert_int_equal(srv6_hmac_check(&keys, mode, srh, p + 8, NULL), SRV6_HMAC_PASS);

	for (i = 8; i < 24; i++) {           /* source address */
		p[i] ^= 1;
		assert_int_equal(srv6_hmac_check(&keys, 0, srh, p + 8, NULL),
				 SRV6_HMAC_FAIL_DIGEST);
		p[i] ^= 1;
	}
	for (i = 8; i < info.srh_len; i++) {  /* segments, TLV */
		if (i >= off + 4 && i < off + 8)
			continue;                   /* key id: below */
		if (i >= off && i < off + 4)
			continue;                   /* type, length, reserved */
		srh[i] ^= 0x80;
		assert_int_equal(srv6_hmac_check(&keys, 0, srh, p + 8, NULL),
				 SRV6_HMAC_FAIL_DIGEST);
		srh[i] ^= 0x80;
	}
	srh[5] ^= 0x40;                       /* flags */
	assert_int_equal(srv6_hmac_check(&keys, 0, srh, p + 8, NULL), SRV6_HMAC_FAIL_DIGEST);
	srh[5] ^= 0x40;
	kid = srh[off + 7];
	srh[off + 7] = 9;                     /* unknown key id */
	assert_int_equal(srv6_hmac_check(&keys, 0, srh, p + 8, NULL), SRV6_HMAC_FAIL_KEY);
	assert_int_equal(srv6_hmac_check(&keys, SRV6_HMAC_IGNORE, srh, p + 8, NULL),
			 SRV6_HMAC_PASS);
	assert_int_equal(srv6_hmac_check(NULL, 0, srh, p + 8, NULL), SRV6_HMAC_FAIL_KEY);
	/* the other configured key: the digest differs */
	srh[off + 7] = kid == 7 ? 8 : 7;
	assert_int_equal(srv6_hmac_check(&keys, 0, srh, p + 8, NULL), SRV6_HMAC_FAIL_DIGEST);
	srh[off + 7] = kid;
	assert_int_equal(srv6_hmac_check(&keys, 0, srh, p + 8, NULL), SRV6_HMAC_PASS);
}

/* Both paths: keyed per packet, and the prepared libcrypto state the
 * daemon uses (srv6_hmac_key_prepare()). */
static void test_kernel_vectors(void **state)
{
	for (int prepared = 0; prepared < 2; prepared++) {
		if (prepared) {
			assert_int_equal(srv6_hmac_key_prepare(&keys.keys[0]), 0);
			assert_int_equal(srv6_hmac_key_prepare(&keys.keys[1]), 0);
			assert_non_null(keys.keys[0].mac);
		}
		check_vector(v_encap);
		check_vector(v_inline);
		check_vector(v_red3);
		check_vector(v_red1);
	}
	/* preparing again replaces the state; bad keys are refused */
	assert_int_equal(srv6_hmac_key_prepare(&keys.keys[0]), 0);
	keys.keys[1].algo = 9;
	assert_int_equal(srv6_hmac_key_prepare(&keys.keys[1]), -EINVAL);
	keys.keys[1].algo = SRV6_HMAC_ALGO_SHA1;
	srv6_hmac_key_release(&keys.keys[0]);
	srv6_hmac_key_release(&keys.keys[1]);
	srv6_hmac_key_release(&keys.keys[1]);
	assert_null(keys.keys[0].mac);
}

/* Workers share a prepared key: each check copies its state, never writes
 * it.  Two threads verify (and one tampered copy fails) concurrently. */
struct conc {
	const uint8_t *pkt, *bad;
	long pass, fail;
};

static void *conc_run(void *arg)
{
	struct conc *c = arg;

	for (int i = 0; i < 20000; i++) {
		c->pass += srv6_hmac_check(&keys, 1, c->pkt + 40, c->pkt + 8, NULL) == SRV6_HMAC_PASS;
		c->fail += srv6_hmac_check(&keys, 1, c->bad + 40, c->bad + 8, NULL) ==
			   SRV6_HMAC_FAIL_DIGEST;
	}
	return NULL;
}

static void test_concurrent_prepared(void **state)
{
	uint8_t p[512], bad[512];
	struct conc c[2];
	pthread_t t[2];
	size_t len = unhex(v_encap, p);

	memcpy(bad, p, len);
	bad[60] ^= 4;
	assert_int_equal(srv6_hmac_key_prepare(&keys.keys[0]), 0);
	for (int i = 0; i < 2; i++) {
		c[i] = (struct conc){ .pkt = p, .bad = bad };
		assert_int_equal(pthread_create(&t[i], NULL, conc_run, &c[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(c[i].pass, 20000);
		assert_int_equal(c[i].fail, 20000);
	}
	srv6_hmac_key_release(&keys.keys[0]);
}

/* srv6d's signing reproduces the kernel's packets byte for byte. */
static void test_sign_encap_like_kernel(void **state)
{
	static uint8_t buf[SRV6_PKT_HEADROOM + 512];
	uint8_t want[512];
	struct in6_addr segs[3], src;
	struct srv6_pkt pkt;
	size_t wlen;
	const struct {
		const char *hex;
		unsigned int nsegs;
		bool reduced;
		int key;
	} v[] = {
		{ v_encap, 2, false, 0 },
		{ v_red3, 3, true, 0 },
		{ v_red1, 1, true, 0 },
	};

	seg(&segs[0], "2001:db8:ff::1");
	seg(&segs[1], "2001:db8:aa::1");
	seg(&segs[2], "2001:db8:aa::2");
	seg(&src, "2001:db8:1::1");
	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		size_t outer;

		wlen = unhex(v[k].hex, want);
		outer = wlen - 56;          /* inner: 40 + 8 UDP + 8 payload */
		assert_int_equal(srv6_pkt_init(&pkt, buf, sizeof(buf), SRV6_PKT_HEADROOM, 56), 0);
		memcpy(pkt.data, want + outer, 56);
		assert_int_equal(srv6_encap_push_hmac(&pkt, segs, v[k].nsegs, v[k].reduced, 41,
						      &src, 0, &keys.keys[v[k].key]), 0);
		assert_int_equal(pkt.len, wlen);
		/* the flow label is the kernel's random hash: copy it */
		pkt.data[1] = (uint8_t)((pkt.data[1] & 0xf0) | (want[1] & 0x0f));
		pkt.data[2] = want[2];
		pkt.data[3] = want[3];
		assert_memory_equal(pkt.data, want, wlen);
	}
}

static void test_sign_inline_like_kernel(void **state)
{
	static uint8_t buf[SRV6_PKT_HEADROOM + 512];
	uint8_t want[512], in[56];
	struct in6_addr segs[2];
	struct srv6_pkt pkt;
	size_t wlen = unhex(v_inline, want);

	seg(&segs[0], "2001:db8:ff::1");
	seg(&segs[1], "2001:db8:aa::1");
	/* the packet as sent: the SRH removed, DA restored from segments[0] */
	memcpy(in, want, 40);
	memcpy(in + 40, want + 40 + 96, 16);
	memcpy(in + 24, want + 48, 16);
	in[6] = want[40];
	in[4] = 0;
	in[5] = 16;
	assert_int_equal(srv6_pkt_init(&pkt, buf, sizeof(buf), SRV6_PKT_HEADROOM, 56), 0);
	memcpy(pkt.data, in, 56);
	assert_int_equal(srv6_srh_insert_hmac(&pkt, segs, 2, &keys.keys[1]), 0);
	assert_int_equal(pkt.len, wlen);
	assert_memory_equal(pkt.data, want, wlen);
}

/* More than 14 entries cannot be signed (the kernel's limit): -EMSGSIZE and
 * the packet as it came, Payload Length included (even a wrong one). */
static void test_sign_too_many(void **state)
{
	static uint8_t buf[SRV6_PKT_HEADROOM + 512];
	struct in6_addr segs[SRV6_MAX_SEGS], src;
	uint8_t in[56];
	struct srv6_pkt pkt;

	memset(segs, 0, sizeof(segs));
	for (int i = 0; i < SRV6_MAX_SEGS; i++) {
		segs[i].s6_addr[0] = 0xfc;
		segs[i].s6_addr[15] = (uint8_t)(i + 1);
	}
	seg(&src, "2001:db8:1::1");
	memset(in, 0, sizeof(in));
	in[0] = 0x60;
	in[4] = 0x12;                 /* inconsistent on purpose */
	in[5] = 0x34;
	in[6] = 17;
	in[7] = 64;
	in[23] = 1;
	in[39] = 2;
	for (int k = 0; k < 2; k++) {
		assert_int_equal(srv6_pkt_init(&pkt, buf, sizeof(buf), SRV6_PKT_HEADROOM, 56), 0);
		memcpy(pkt.data, in, 56);
		if (k)
			assert_int_equal(srv6_srh_insert_hmac(&pkt, segs, 14, &keys.keys[0]), -EMSGSIZE);
		else
			assert_int_equal(srv6_encap_push_hmac(&pkt, segs, 15, false, 41, &src, 0,
							      &keys.keys[0]), -EMSGSIZE);
		assert_int_equal(pkt.len, 56);
		assert_ptr_equal(pkt.data, buf + SRV6_PKT_HEADROOM);
		assert_memory_equal(pkt.data, in, 56);
	}
	/* 13 + the slot, and 14, are fine */
	assert_int_equal(srv6_srh_insert_hmac(&pkt, segs, 13, &keys.keys[0]), 0);
	assert_int_equal(srv6_pkt_init(&pkt, buf, sizeof(buf), SRV6_PKT_HEADROOM, 56), 0);
	memcpy(pkt.data, in, 56);
	assert_int_equal(srv6_encap_push_hmac(&pkt, segs, 14, false, 41, &src, 0, &keys.keys[0]), 0);
	assert_int_equal(srv6_hmac_check(&keys, 1, pkt.data + 40, pkt.data + 8, NULL),
			 SRV6_HMAC_PASS);
}

/* RFC 8754 shapes the kernel calls "absent": srv6d finds and verifies them. */
static void test_rfc_shapes(void **state)
{
	uint8_t p[512], q[512], *srh;
	struct srv6_ip6_info info;
	size_t len = unhex(v_encap, p), off;

	assert_int_equal(srv6_ip6_parse(p, len, &info), 0);
	srh = p + info.srh_off;

	/* 1. no H flag: the digest was computed with flags 0 */
	srh[5] = 0;
	assert_int_equal(srv6_hmac_sign(&keys.keys[0], srh, p + 8), -EINVAL);
	off = srv6_hmac_tlv_find(srh);
	assert_int_equal(off, info.srh_len - 40);
	assert_int_equal(srv6_hmac_tlv_find_kernel(srh), 0);
	assert_int_equal(srv6_hmac_compute(&keys.keys[0], srh, p + 8, srh + off + 8), 0);
	assert_int_equal(srv6_hmac_check(&keys, 1, srh, p + 8, NULL), SRV6_HMAC_PASS);
	srh[off + 20] ^= 1;
	assert_int_equal(srv6_hmac_check(&keys, 1, srh, p + 8, NULL), SRV6_HMAC_FAIL_DIGEST);
	srh[off + 20] ^= 1;

	/* 2. H flag, TLV followed by 8 bytes of PadN */
	len = unhex(v_encap, p);
	memcpy(q, p, 40 + info.srh_len);
	memset(q + 40 + info.srh_len, 0, 8);
	q[40 + info.srh_len] = SRV6_TLV_PADN;
	q[40 + info.srh_len + 1] = 6;
	memcpy(q + 48 + info.srh_len, p + 40 + info.srh_len, len - 40 - info.srh_len);
	q[40 + 1] += 1;
	q[5] += 8;
	assert_int_equal(srv6_ip6_parse(q, len + 8, &info), 0);
	srh = q + info.srh_off;
	assert_int_equal(srv6_hmac_tlv_find_kernel(srh), 0);   /* PadN is last */
	assert_int_equal(srv6_hmac_tlv_find(srh), info.srh_len - 48);
	/* hdrlen is not in the HMAC text: the kernel's digest still holds */
	assert_int_equal(srv6_hmac_check(&keys, 1, srh, q + 8, NULL), SRV6_HMAC_PASS);

	/* 3. no TLV at all */
	len = unhex(v_encap, p);
	srh = p + 40;
	srh[8 + 32] = SRV6_TLV_PADN;
	assert_int_equal(srv6_hmac_tlv_find(srh), 0);
	assert_int_equal(srv6_hmac_check(&keys, SRV6_HMAC_REQUIRE, srh, p + 8, NULL),
			 SRV6_HMAC_FAIL_MISSING);
	assert_int_equal(srv6_hmac_check(&keys, SRV6_HMAC_VERIFY, srh, p + 8, NULL),
			 SRV6_HMAC_PASS);
	assert_int_equal(srv6_hmac_check(&keys, SRV6_HMAC_IGNORE, srh, p + 8, NULL),
			 SRV6_HMAC_PASS);

	/* 4. an HMAC TLV of another length fails (only the 32-byte field) */
	len = unhex(v_encap, p);
	srh = p + 40;
	srh[8 + 32 + 1] = 30;                  /* 32 bytes, then PadN 6 */
	srh[8 + 32 + 32] = SRV6_TLV_PADN;
	srh[8 + 32 + 33] = 6;
	assert_int_equal(srv6_srh_validate(srh, 80, NULL), 0);
	assert_int_equal(srv6_hmac_check(&keys, 0, srh, p + 8, NULL), SRV6_HMAC_FAIL_LEN);
}

/* The kernel's limits: 14 segment entries, 64-byte secrets, known algos. */
static void test_limits(void **state)
{
	uint8_t srh[8 + 16 * 16 + 40], out[32];
	struct srv6_hmac_key k = keys.keys[0];
	uint8_t src[16] = { 0x20, 0x01 };

	memset(srh, 0, sizeof(srh));
	srh[1] = (uint8_t)((8 + 14 * 16) / 8 - 1);
	srh[2] = 4;
	srh[4] = 13;
	assert_int_equal(srv6_hmac_compute(&k, srh, src, out), 0);
	srh[4] = 14;
	assert_int_equal(srv6_hmac_compute(&k, srh, src, out), -EMSGSIZE);
	srh[4] = 13;
	k.slen = 64;
	memset(k.secret, 'x', 64);
	assert_int_equal(srv6_hmac_compute(&k, srh, src, out), 0);
	k.slen = 0;
	assert_int_equal(srv6_hmac_compute(&k, srh, src, out), -EINVAL);
	k.slen = 4;
	k.algo = 3;
	assert_int_equal(srv6_hmac_compute(&k, srh, src, out), -EINVAL);
	/* sha1: 20 bytes of digest, 12 zero */
	k.algo = SRV6_HMAC_ALGO_SHA1;
	memset(out, 0xff, sizeof(out));
	assert_int_equal(srv6_hmac_compute(&k, srh, src, out), 0);
	for (int i = 20; i < 32; i++)
		assert_int_equal(out[i], 0);
	/* append: no room, not an SRH length */
	assert_int_equal(srv6_hmac_tlv_append(srh, 8 + 14 * 16, 8 + 14 * 16 + 39, 7), -ENOSPC);
	assert_int_equal(srv6_hmac_tlv_append(srh, 8 + 14 * 16 - 8, sizeof(srh), 7), -EINVAL);
	assert_int_equal(srv6_hmac_tlv_append(srh, 8 + 14 * 16, sizeof(srh), 7), 8 + 15 * 16 + 24);
	assert_int_equal(srh[5], SRV6_SRH_FLAG_HMAC);
	assert_int_equal(srv6_srh_validate(srh, sizeof(srh), NULL), 0);
}

static void test_names_modes(void **state)
{
	struct srv6_hmac_set s = keys;

	assert_int_equal(srv6_hmac_algo_from_name("sha256"), SRV6_HMAC_ALGO_SHA256);
	assert_int_equal(srv6_hmac_algo_from_name("sha1"), SRV6_HMAC_ALGO_SHA1);
	assert_int_equal(srv6_hmac_algo_from_name("SHA1"), -1);
	assert_string_equal(srv6_hmac_algo_name(2), "sha256");
	assert_null(srv6_hmac_key_find(&s, 0));
	assert_null(srv6_hmac_key_find(&s, 9));
	assert_ptr_equal(srv6_hmac_key_find(&s, 8), &s.keys[1]);
	assert_int_equal(srv6_hmac_mode_for(NULL, 3), SRV6_HMAC_VERIFY);
	s.mode = SRV6_HMAC_IGNORE;
	s.nifs = 1;
	s.ifs[0].ifindex = 3;
	s.ifs[0].mode = SRV6_HMAC_REQUIRE;
	assert_int_equal(srv6_hmac_mode_for(&s, 3), SRV6_HMAC_REQUIRE);
	assert_int_equal(srv6_hmac_mode_for(&s, 4), SRV6_HMAC_IGNORE);
	assert_int_equal(srv6_hmac_mode_for(&s, 0), SRV6_HMAC_IGNORE);
	assert_string_equal(srv6_hmac_mode_name(1), "require");
	assert_string_equal(srv6_hmac_mode_name(0), "verify");
	assert_string_equal(srv6_hmac_mode_name(-1), "ignore");
}

/* The engine: End verifies before it advances; failures are SRV6_DROP_HMAC
 * with a Parameter Problem at the TLV, or a plain drop when it is missing. */
static void run_end(const char *hex, struct srv6_sid_cfg *cfg, int indev, int flip,
		    struct srv6_result *res, uint8_t *da_out)
{
	static uint8_t buf[SRV6_PKT_HEADROOM + 512];
	struct srv6_pkt pkt;
	uint8_t p[512];
	size_t len = unhex(hex, p);

	if (flip)
		p[flip] ^= 1;
	assert_int_equal(srv6_pkt_init(&pkt, buf, sizeof(buf), SRV6_PKT_HEADROOM, len), 0);
	memcpy(pkt.data, p, len);
	assert_int_equal(srv6_sid_process_in(cfg, indev, &pkt, res), 0);
	memcpy(da_out, pkt.data + 24, 16);
}

static void test_engine_end(void **state)
{
	struct srv6_sid_cfg cfg = { .action = SRV6_ACT_END };
	struct srv6_hmac_set set = keys;
	struct srv6_result res;
	struct in6_addr aa1;
	uint8_t da[16];

	seg(&aa1, "2001:db8:aa::1");
	cfg.hmac = &set;
	set.nifs = 2;
	set.ifs[0].ifindex = 5;
	set.ifs[0].mode = SRV6_HMAC_REQUIRE;
	set.ifs[1].ifindex = 6;
	set.ifs[1].mode = SRV6_HMAC_IGNORE;
	for (int indev = 0; indev <= 6; indev++) {
		run_end(v_encap, &cfg, indev, 0, &res, da);
		assert_int_equal(res.verdict, SRV6_V_FORWARD6);
		assert_memory_equal(da, &aa1, 16);
	}
	/* a segment byte changed: Parameter Problem at the TLV (40 + 40) */
	run_end(v_encap, &cfg, 0, 40 + 8 + 5, &res, da);
	assert_int_equal(res.verdict, SRV6_V_ICMP);
	assert_int_equal(res.reason, SRV6_DROP_HMAC);
	assert_int_equal(res.icmp.type, 4);
	assert_int_equal(res.icmp.code, 0);
	assert_int_equal(res.icmp.pointer, 80);
	/* ... passes where the interface ignores HMAC */
	run_end(v_encap, &cfg, 6, 40 + 8 + 5, &res, da);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	/* the source changed */
	run_end(v_encap, &cfg, 5, 9, &res, da);
	assert_int_equal(res.reason, SRV6_DROP_HMAC);
	/* no keys at all (verify): a signed packet fails, as in the kernel */
	cfg.hmac = NULL;
	run_end(v_encap, &cfg, 0, 0, &res, da);
	assert_int_equal(res.reason, SRV6_DROP_HMAC);
	cfg.hmac = &set;

	/* TLV turned into PadN: absent.  require drops, verify passes */
	{
		char hex[1024];
		size_t n = strlen(v_encap);

		memcpy(hex, v_encap, n + 1);
		hex[2 * (40 + 40)] = '0';        /* type 05 -> 04 (PadN) */
		hex[2 * (40 + 40) + 1] = '4';
		run_end(hex, &cfg, 5, 0, &res, da);
		assert_int_equal(res.verdict, SRV6_V_DROP);
		assert_int_equal(res.reason, SRV6_DROP_HMAC);
		run_end(hex, &cfg, 0, 0, &res, da);
		assert_int_equal(res.verdict, SRV6_V_FORWARD6);
		run_end(hex, &cfg, 6, 0, &res, da);
		assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	}
	assert_string_equal(srv6_drop_name(SRV6_DROP_HMAC), "hmac");
}

/* End.B6.Encaps and End.B6 sign what they push. */
static void test_engine_b6_sign(void **state)
{
	static uint8_t buf[SRV6_PKT_HEADROOM + 512];
	struct srv6_sid_cfg cfg = { .action = SRV6_ACT_END_B6_ENCAP };
	struct srv6_ip6_info info;
	struct srv6_result res;
	struct srv6_pkt pkt;
	uint8_t p[512];
	size_t len = unhex(v_encap, p);

	cfg.attrs = SRV6_F_ATTR(SRV6_ATTR_SRH);
	cfg.nsegs = 2;
	seg(&cfg.segs[0], "2001:db8:bb::1");
	seg(&cfg.segs[1], "2001:db8:bb::2");
	seg(&cfg.encap_src, "2001:db8:5::5");
	cfg.hmac = &keys;
	cfg.hmac_keyid = 8;
	cfg.hmac_key = &keys.keys[1];
	for (int act = 0; act < 2; act++) {
		cfg.action = act ? SRV6_ACT_END_B6 : SRV6_ACT_END_B6_ENCAP;
		assert_int_equal(srv6_pkt_init(&pkt, buf, sizeof(buf), SRV6_PKT_HEADROOM, len), 0);
		memcpy(pkt.data, p, len);
		assert_int_equal(srv6_sid_process(&cfg, &pkt, &res), 0);
		assert_int_equal(res.verdict, SRV6_V_FORWARD6);
		assert_int_equal(srv6_ip6_parse(pkt.data, pkt.len, &info), 0);
		assert_int_equal(srv6_hmac_tlv_find_kernel(pkt.data + info.srh_off),
				 info.srh_len - 40);
		assert_int_equal(srv6_hmac_check(&keys, SRV6_HMAC_REQUIRE, pkt.data + info.srh_off,
						 pkt.data + 8, NULL), SRV6_HMAC_PASS);
		assert_memory_equal(pkt.data + 8, act ? p + 8 : (uint8_t *)&cfg.encap_src, 16);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_kernel_vectors, setup),
		cmocka_unit_test_setup(test_sign_encap_like_kernel, setup),
		cmocka_unit_test_setup(test_sign_inline_like_kernel, setup),
		cmocka_unit_test_setup(test_concurrent_prepared, setup),
		cmocka_unit_test_setup(test_sign_too_many, setup),
		cmocka_unit_test_setup(test_rfc_shapes, setup),
		cmocka_unit_test_setup(test_limits, setup),
		cmocka_unit_test_setup(test_names_modes, setup),
		cmocka_unit_test_setup(test_engine_end, setup),
		cmocka_unit_test_setup(test_engine_b6_sign, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
