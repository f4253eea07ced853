// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_srh.c - SRH location, validation and building (src/core/srh.c).
 * Run from the repository root (tests/check.sh does); the scapy vectors are
 * read from tests/unit/vectors/srh.txt or from $SRV6_VECTORS/srh.txt.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "vectors.h"

#include "srv6d/srh.h"

/* ---------------------------------------------------------------- helpers */

/* A packet under construction: IPv6 header, then appended headers. */
struct pb {
	uint8_t b[8192];
	size_t len;
	size_t nh_off;   /* Next Header byte of the last header appended */
};

static void pb_init(struct pb *p)
{
	memset(p, 0, sizeof(*p));
	p->b[0] = 0x60;
	p->b[7] = 64;
	inet_pton(AF_INET6, "2001:db8::1", p->b + 8);
	inet_pton(AF_INET6, "fc00:1::100", p->b + 24);
	p->len = 40;
	p->nh_off = 6;
}

/* Append @n bytes of header @proto (its first byte becomes its Next Header). */
static uint8_t *pb_add(struct pb *p, uint8_t proto, size_t n)
{
	uint8_t *h = p->b + p->len;

	p->b[p->nh_off] = proto;
	memset(h, 0, n);
	p->nh_off = p->len;
	p->len += n;
	return h;
}

/* Hop-by-hop or destination options of 8 bytes (PadN inside). */
static void pb_opts(struct pb *p, uint8_t proto)
{
	uint8_t *h = pb_add(p, proto, 8);

	h[2] = 1;     /* PadN */
	h[3] = 4;
}

/* An SRH with @nseg segments fc00:i::, SL, LE and @tlv of @tlvlen bytes;
 * hdrlen from the real size (must be a multiple of 8). */
static uint8_t *pb_srh(struct pb *p, unsigned int nseg, uint8_t sl, uint8_t le,
		       const uint8_t *tlv, size_t tlvlen)
{
	size_t n = 8 + 16 * (size_t)nseg + tlvlen;
	uint8_t *h;
	unsigned int i;

	assert_int_equal(n % 8, 0);
	h = pb_add(p, 43, n);
	h[1] = (uint8_t)(n / 8 - 1);
	h[2] = 4;
	h[3] = sl;
	h[4] = le;
	for (i = 0; i < nseg; i++) {
		h[8 + 16 * i] = 0xfc;
		h[8 + 16 * i + 3] = (uint8_t)(i + 1);
	}
	if (tlvlen)
		memcpy(h + 8 + 16 * nseg, tlv, tlvlen);
	return h;
}

/* Upper layer: @proto with @n payload bytes; fixes the Payload Length. */
static void pb_upper(struct pb *p, uint8_t proto, size_t n)
{
	uint8_t *h = pb_add(p, proto, n);
	size_t i;

	for (i = 0; i < n; i++)
		h[i] = (uint8_t)(0xa0 + i);
	p->b[4] = (uint8_t)((p->len - 40) >> 8);
	p->b[5] = (uint8_t)(p->len - 40);
}

static void pb_fix_plen(struct pb *p)
{
	p->b[4] = (uint8_t)((p->len - 40) >> 8);
	p->b[5] = (uint8_t)(p->len - 40);
}

/* A bare SRH (no IPv6 header) for srv6_srh_validate(). */
static size_t mk_srh(uint8_t *h, unsigned int nseg, uint8_t hdrlen, uint8_t sl,
		     uint8_t le, const uint8_t *tlv, size_t tlvlen)
{
	size_t n = ((size_t)hdrlen + 1) * 8;

	memset(h, 0, n);
	h[0] = 41;
	h[1] = hdrlen;
	h[2] = 4;
	h[3] = sl;
	h[4] = le;
	(void)nseg;
	if (tlvlen)
		memcpy(h + 8 + 16 * ((size_t)le + 1), tlv, tlvlen);
	return n;
}

static int validate(const uint8_t *h, size_t len, size_t *field)
{
	*field = 9999;
	return srv6_srh_validate(h, len, field);
}

/* ----------------------------------------------------- validation order */

static void test_wrong_type(void **state)
{
	uint8_t h[64];
	size_t f, n = mk_srh(h, 2, 4, 1, 1, NULL, 0);

	(void)state;
	h[2] = 2;
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_TYPE);
	assert_int_equal(f, 2);
	h[2] = 0;
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_TYPE);
	/* type is checked before everything else (kernel order) */
	h[2] = 3;
	h[3] = 200;
	h[4] = 200;
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_TYPE);
}

static void test_hdrlen_too_small(void **state)
{
	uint8_t h[64];
	size_t f, n;

	(void)state;
	/* hdrlen 0 and 1: no room for a single segment */
	n = mk_srh(h, 0, 0, 0, 0, NULL, 0);
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_LEN);
	assert_int_equal(f, 1);
	n = mk_srh(h, 0, 1, 0, 0, NULL, 0);
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_LEN);
	assert_int_equal(f, 1);
	/* hdrlen 4 holds 2 segments: LE = 2 claims 3 */
	n = mk_srh(h, 2, 4, 0, 2, NULL, 0);
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_LE);
	assert_int_equal(f, 3);
	/* hdrlen 2 holds one: LE = 1 claims 2 */
	n = mk_srh(h, 1, 2, 0, 1, NULL, 0);
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_LE);
	assert_int_equal(f, 3);
}

static void test_le_max(void **state)
{
	uint8_t h[2048];
	size_t f, n;
	unsigned int hl;

	(void)state;
	for (hl = 2; hl <= 254; hl++) {
		unsigned int max_le = hl / 2 - 1;
		uint8_t tlv[8] = { 0 };   /* Pad1 run fills an odd hdrlen */

		if (max_le > 255)
			break;
		n = mk_srh(h, max_le + 1, (uint8_t)hl, 0, (uint8_t)max_le,
			   tlv, (hl & 1) ? 8 : 0);
		assert_int_equal(validate(h, n, &f), SRV6_SRH_OK);
		if (max_le + 1 <= 255) {
			h[4] = (uint8_t)(max_le + 1);
			assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_LE);
			assert_int_equal(f, 3);
		}
	}
	/* LE = 255 needs hdrlen 512: impossible, always > max_LE */
	n = mk_srh(h, 0, 255, 0, 126, NULL, 0);  /* max_LE(255) = 126 */
	assert_int_equal(validate(h, n, &f), SRV6_SRH_OK);
	h[4] = 127;
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_LE);
	h[4] = 255;
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_LE);
}

static void test_sl_boundaries(void **state)
{
	uint8_t h[128];
	size_t f, n;
	unsigned int sl;

	(void)state;
	n = mk_srh(h, 3, 6, 0, 2, NULL, 0);
	for (sl = 0; sl <= 255; sl++) {
		h[3] = (uint8_t)sl;
		if (sl <= 3) {   /* SL = LE + 1 is valid (reduced SRH) */
			assert_int_equal(validate(h, n, &f), SRV6_SRH_OK);
		} else {
			assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_SL);
			assert_int_equal(f, 3);
		}
	}
	/* LE error wins over SL error (kernel order) */
	h[3] = 200;
	h[4] = 3;
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_LE);
	/* err_field may be NULL */
	assert_int_equal(srv6_srh_validate(h, n, NULL), SRV6_SRH_ERR_LE);
}

static void test_truncated_srh(void **state)
{
	uint8_t h[128];
	size_t f, n, l;

	(void)state;
	n = mk_srh(h, 3, 6, 1, 2, NULL, 0);
	assert_int_equal(validate(h, n, &f), SRV6_SRH_OK);
	for (l = 0; l < n; l++) {
		assert_int_equal(validate(h, l, &f), SRV6_SRH_ERR_TRUNC);
		assert_int_equal(f, l >= 2 ? 1u : 0u);
	}
	/* bytes after the SRH are not looked at */
	assert_int_equal(validate(h, n + 8, &f), SRV6_SRH_OK);
}

/* ---------------------------------------------------------------- TLVs */

static void test_tlv_padn_to_end(void **state)
{
	uint8_t h[128], tlv[8] = { 4, 6 };
	size_t f, n = mk_srh(h, 1, 3, 0, 0, tlv, 8);

	(void)state;
	assert_int_equal(validate(h, n, &f), SRV6_SRH_OK);
	h[24 + 1] = 7;           /* one byte past the end */
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_TLV);
	assert_int_equal(f, 25);
	h[24 + 1] = 5;           /* one byte short: the last byte is Pad1 */
	assert_int_equal(validate(h, n, &f), SRV6_SRH_OK);
	h[24 + 7] = 4;           /* ...unless it is PadN without its length */
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_TLV);
	assert_int_equal(f, 31);
}

static void test_tlv_pad1_runs(void **state)
{
	uint8_t h[128], tlv[8];
	size_t f, n, k;

	(void)state;
	/* k Pad1 then PadN filling the rest, k = 0..8 */
	for (k = 0; k <= 8; k++) {
		memset(tlv, 0, sizeof(tlv));
		if (k <= 6) {
			tlv[k] = 4;
			tlv[k + 1] = (uint8_t)(8 - k - 2);
		}
		n = mk_srh(h, 1, 3, 0, 0, tlv, 8);
		if (k == 7) {
			/* 7 Pad1 + a lone PadN type byte: no length */
			h[24 + 7] = 4;
			assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_TLV);
			continue;
		}
		assert_int_equal(validate(h, n, &f), SRV6_SRH_OK);
	}
	/* PadN then Pad1 run */
	memset(tlv, 0, sizeof(tlv));
	tlv[0] = 4;
	tlv[1] = 1;
	n = mk_srh(h, 1, 3, 0, 0, tlv, 8);
	assert_int_equal(validate(h, n, &f), SRV6_SRH_OK);
}

static void test_tlv_hmac(void **state)
{
	uint8_t h[256], tlv[40] = { 5, 38, 0, 0, 0, 0, 0, 7 };
	size_t f, n;

	(void)state;
	memset(tlv + 8, 0x5a, 32);
	n = mk_srh(h, 2, 9, 1, 1, tlv, 40);
	h[5] = 0x08;             /* H flag */
	assert_int_equal(validate(h, n, &f), SRV6_SRH_OK);
	h[8 + 32 + 1] = 39;      /* HMAC one byte too long */
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_TLV);
	assert_int_equal(f, 41);
}

static void test_tlv_zero_length(void **state)
{
	uint8_t h[128], tlv[8] = { 4, 0, 7, 0, 1, 2, 0, 0 };
	size_t f, n;

	(void)state;
	/* PadN len 0, unknown type 7 len 0, unknown type 1 len 2 */
	n = mk_srh(h, 1, 3, 0, 0, tlv, 8);
	assert_int_equal(validate(h, n, &f), SRV6_SRH_OK);
	/* unknown TLV overrunning by one */
	h[24 + 5] = 3;
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_TLV);
	assert_int_equal(f, 29);
}

static void test_tlv_overrun_big(void **state)
{
	uint8_t h[128], tlv[16] = { 4, 255 };
	size_t f, n = mk_srh(h, 1, 4, 0, 0, tlv, 16);

	(void)state;
	assert_int_equal(validate(h, n, &f), SRV6_SRH_ERR_TLV);
	assert_int_equal(f, 25);
	/* and inside a packet: the pointer is relative to the IPv6 header */
	{
		struct pb p;
		struct srv6_ip6_info info;

		pb_init(&p);
		pb_srh(&p, 1, 0, 0, tlv, 16);
		pb_upper(&p, 59, 0);
		assert_int_equal(srv6_ip6_parse(p.b, p.len, &info),
				 SRV6_SRH_ERR_TLV);
		assert_int_equal(info.err_ptr, 40 + 25);
	}
}

/* ------------------------------------------------------------- the chain */

static void test_parse_plain(void **state)
{
	struct pb p;
	struct srv6_ip6_info info;

	(void)state;
	pb_init(&p);
	pb_srh(&p, 3, 2, 2, NULL, 0);
	pb_upper(&p, 41, 48);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_OK);
	assert_true(info.has_srh);
	assert_int_equal(info.srh_off, 40);
	assert_int_equal(info.srh_len, 56);
	assert_int_equal(info.nh_byte_off, 6);
	assert_int_equal(info.upper_off, 96);
	assert_int_equal(info.upper_proto, 41);
}

static void test_parse_behind_hbh_dst(void **state)
{
	struct pb p;
	struct srv6_ip6_info info;

	(void)state;
	pb_init(&p);
	pb_opts(&p, 0);
	pb_opts(&p, 60);
	pb_srh(&p, 2, 1, 1, NULL, 0);
	pb_opts(&p, 60);         /* destination options after the SRH */
	pb_upper(&p, 58, 8);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_OK);
	assert_true(info.has_srh);
	assert_int_equal(info.srh_off, 56);
	assert_int_equal(info.srh_len, 40);
	assert_int_equal(info.nh_byte_off, 48);
	assert_int_equal(p.b[info.nh_byte_off], 43);
	assert_int_equal(info.upper_off, 104);
	assert_int_equal(info.upper_proto, 58);

	/* same with a bad SL: the pointer lands on Segments Left */
	p.b[56 + 3] = 4;
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_ERR_SL);
	assert_int_equal(info.err_ptr, 59);
}

static void test_parse_no_srh(void **state)
{
	struct pb p;
	struct srv6_ip6_info info;
	uint8_t *rh;

	(void)state;
	pb_init(&p);
	pb_upper(&p, 17, 12);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_OK);
	assert_false(info.has_srh);
	assert_int_equal(info.upper_off, 40);
	assert_int_equal(info.upper_proto, 17);

	/* a type-2 routing header is not an SRH, and is walked over */
	pb_init(&p);
	rh = pb_add(&p, 43, 24);
	rh[1] = 2;
	rh[2] = 2;
	rh[3] = 1;
	pb_upper(&p, 6, 20);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_OK);
	assert_false(info.has_srh);
	assert_int_equal(info.upper_off, 64);
	assert_int_equal(info.upper_proto, 6);

	/* a type-0 routing header before the SRH is skipped */
	pb_init(&p);
	rh = pb_add(&p, 43, 24);
	rh[1] = 2;
	pb_srh(&p, 1, 0, 0, NULL, 0);
	pb_upper(&p, 41, 40);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_OK);
	assert_true(info.has_srh);
	assert_int_equal(info.srh_off, 64);
	assert_int_equal(info.nh_byte_off, 40);
	assert_int_equal(info.upper_off, 88);

	/* No Next Header right after the IPv6 header */
	pb_init(&p);
	pb_upper(&p, 59, 0);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_OK);
	assert_int_equal(info.upper_off, 40);
	assert_int_equal(info.upper_proto, 59);
}

static void test_parse_second_srh_skipped(void **state)
{
	struct pb p;
	struct srv6_ip6_info info;

	(void)state;
	pb_init(&p);
	pb_srh(&p, 1, 1, 0, NULL, 0);
	pb_srh(&p, 2, 9, 9, NULL, 0);   /* invalid, but not the first */
	pb_upper(&p, 17, 8);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_OK);
	assert_int_equal(info.srh_off, 40);
	assert_int_equal(info.upper_off, 40 + 24 + 40);
	assert_int_equal(info.upper_proto, 17);
}

static void test_parse_chain_limits(void **state)
{
	struct pb p;
	struct srv6_ip6_info info;
	int i;

	(void)state;
	/* 8 extension headers: fine; 9: too long */
	pb_init(&p);
	for (i = 0; i < 7; i++)
		pb_opts(&p, 60);
	pb_srh(&p, 1, 0, 0, NULL, 0);
	pb_upper(&p, 17, 8);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_OK);
	assert_int_equal(info.srh_off, 40 + 7 * 8);

	pb_init(&p);
	for (i = 0; i < 8; i++)
		pb_opts(&p, 60);
	pb_srh(&p, 1, 0, 0, NULL, 0);
	pb_upper(&p, 17, 8);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_ERR_CHAIN);
	assert_int_equal(info.err_ptr, 40 + 7 * 8);   /* names the 9th */

	/* hop-by-hop after destination options */
	pb_init(&p);
	pb_opts(&p, 60);
	pb_opts(&p, 0);
	pb_upper(&p, 17, 8);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_ERR_CHAIN);
	assert_int_equal(info.err_ptr, 40);

	/* not IPv6 */
	pb_init(&p);
	pb_upper(&p, 17, 8);
	p.b[0] = 0x45;
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_ERR_CHAIN);
	assert_int_equal(info.err_ptr, 0);
}

static void test_parse_lengths(void **state)
{
	struct pb p;
	struct srv6_ip6_info info;

	(void)state;
	pb_init(&p);
	pb_srh(&p, 2, 1, 1, NULL, 0);
	pb_upper(&p, 17, 8);

	/* trailer past the Payload Length is ignored */
	assert_int_equal(srv6_ip6_parse(p.b, p.len + 13, &info), SRV6_SRH_OK);
	assert_int_equal(info.upper_off, 80);

	/* Payload Length past the buffer */
	p.b[5]++;
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_ERR_TRUNC);
	assert_int_equal(info.err_ptr, 4);
	p.b[5]--;

	/* Payload Length 0 without hop-by-hop: nothing after the header */
	p.b[4] = p.b[5] = 0;
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_ERR_TRUNC);
	assert_int_equal(info.err_ptr, 40);

	/* Payload Length 0 with hop-by-hop (jumbo / BIG TCP): buffer length */
	pb_init(&p);
	pb_opts(&p, 0);
	pb_srh(&p, 2, 1, 1, NULL, 0);
	pb_upper(&p, 17, 8);
	p.b[4] = p.b[5] = 0;
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_OK);
	assert_int_equal(info.srh_off, 48);
}

/* Every truncation of a valid packet is rejected or stops cleanly. */
static void test_parse_truncated_every_length(void **state)
{
	static const uint8_t tlv[8] = { 0, 4, 4, 0, 0, 0, 0, 0 };
	struct pb p;
	struct srv6_ip6_info info, full;
	size_t l;
	uint8_t *copy;

	(void)state;
	pb_init(&p);
	pb_opts(&p, 0);
	pb_opts(&p, 60);
	pb_srh(&p, 3, 2, 2, tlv, 8);
	pb_opts(&p, 60);
	pb_upper(&p, 6, 20);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &full), SRV6_SRH_OK);
	assert_int_equal(full.upper_off, p.len - 20);

	for (l = 0; l < p.len; l++) {
		/* exact-size heap copy: ASan catches any read past l */
		copy = malloc(l ? l : 1);
		assert_non_null(copy);
		memcpy(copy, p.b, l);
		/* Payload Length as received: always truncated */
		assert_int_equal(srv6_ip6_parse(copy, l, &info),
				 SRV6_SRH_ERR_TRUNC);
		/* Payload Length fixed to l: truncated inside a header unless
		 * the cut is at or after the upper layer */
		if (l >= 40) {
			copy[4] = (uint8_t)((l - 40) >> 8);
			copy[5] = (uint8_t)(l - 40);
			if (l >= full.upper_off) {
				assert_int_equal(srv6_ip6_parse(copy, l, &info),
						 SRV6_SRH_OK);
				assert_int_equal(info.upper_off, full.upper_off);
			} else {
				assert_int_equal(srv6_ip6_parse(copy, l, &info),
						 SRV6_SRH_ERR_TRUNC);
				assert_true(info.err_ptr <= l);
			}
		}
		free(copy);
	}
}

static void test_parse_fragment(void **state)
{
	struct pb p;
	struct srv6_ip6_info info;
	uint8_t *fh;

	(void)state;
	/* atomic fragment: walked through */
	pb_init(&p);
	pb_srh(&p, 1, 0, 0, NULL, 0);
	pb_add(&p, 44, 8);
	pb_upper(&p, 58, 8);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_OK);
	assert_int_equal(info.upper_off, 72);
	assert_int_equal(info.upper_proto, 58);

	/* first fragment (M set): stops at the fragment header */
	pb_init(&p);
	pb_srh(&p, 1, 0, 0, NULL, 0);
	fh = pb_add(&p, 44, 8);
	fh[3] = 1;
	pb_upper(&p, 58, 8);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_OK);
	assert_int_equal(info.upper_off, 64);
	assert_int_equal(info.upper_proto, 44);

	/* fragment header cut short */
	pb_init(&p);
	pb_add(&p, 44, 4);
	pb_fix_plen(&p);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_ERR_TRUNC);
	assert_int_equal(info.err_ptr, 40);
}

/* ------------------------------------------------------------- builders */

static void fill_segs(struct in6_addr *s, unsigned int n)
{
	unsigned int i;

	memset(s, 0, sizeof(*s) * n);
	for (i = 0; i < n; i++) {
		s[i].s6_addr[0] = 0xfc;
		s[i].s6_addr[1] = 0x00;
		s[i].s6_addr[15] = (uint8_t)(i + 1);
	}
}

/* The segment the SRH makes active: segments[SL]; for a reduced SRH with
 * SL = LE + 1 it is the one left out (in the DA). */
static void check_built(const uint8_t *h, int len, const struct in6_addr *s,
			unsigned int n, int reduced, int slot, uint8_t nh)
{
	unsigned int full = n + (slot ? 1 : 0), i;
	size_t f;

	assert_true(len > 0);
	assert_int_equal(len % 8, 0);
	assert_int_equal(h[0], nh);
	assert_int_equal((h[1] + 1) * 8, len);
	assert_int_equal(h[2], 4);
	assert_int_equal(h[3], full - 1);
	assert_int_equal(h[4], full - 1 - (reduced ? 1 : 0));
	assert_int_equal(h[5], 0);
	assert_int_equal(h[6] | h[7], 0);
	for (i = reduced ? 1 : 0; i < n; i++)
		assert_memory_equal(h + 8 + 16 * (full - 1 - i), &s[i], 16);
	if (slot) {
		static const uint8_t zero[16];

		assert_memory_equal(h + 8, zero, 16);
	}
	assert_int_equal(srv6_srh_validate(h, (size_t)len, &f), SRV6_SRH_OK);
}

static void test_build_variants(void **state)
{
	struct in6_addr s[SRV6_MAX_SEGS];
	uint8_t h[512];
	unsigned int n;
	int red, slot, len;

	(void)state;
	fill_segs(s, SRV6_MAX_SEGS);
	for (n = 1; n <= SRV6_MAX_SEGS; n++) {
		for (red = 0; red <= 1; red++) {
			for (slot = 0; slot <= 1; slot++) {
				memset(h, 0xee, sizeof(h));
				len = srv6_srh_build(h, sizeof(h), s, n, red,
						     slot, 41);
				if (red && !slot && n == 1) {
					assert_int_equal(len, 0);
					continue;
				}
				assert_int_equal(len, 8 + 16 * (int)(n + slot - red));
				check_built(h, len, s, n, red, slot, 41);
				assert_int_equal(h[len], 0xee);   /* no overwrite */
			}
		}
	}
}

static void test_build_exact(void **state)
{
	struct in6_addr s[2];
	uint8_t h[64];
	static const uint8_t one[24] = {
		4, 2, 4, 0, 0, 0, 0, 0,
		0xfc, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	};
	static const uint8_t two_red[24] = {
		143, 2, 4, 1, 0, 0, 0, 0,
		0xfc, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
	};

	(void)state;
	fill_segs(s, 2);
	assert_int_equal(srv6_srh_build(h, sizeof(h), s, 1, false, false, 4), 24);
	assert_memory_equal(h, one, 24);
	assert_int_equal(srv6_srh_build(h, sizeof(h), s, 2, true, false, 143), 24);
	assert_memory_equal(h, two_red, 24);
}

static void test_build_errors(void **state)
{
	struct in6_addr s[SRV6_MAX_SEGS + 1];
	uint8_t h[512];

	(void)state;
	fill_segs(s, SRV6_MAX_SEGS + 1);
	assert_int_equal(srv6_srh_build(h, sizeof(h), s, 0, false, false, 41),
			 -EINVAL);
	assert_int_equal(srv6_srh_build(h, sizeof(h), s, SRV6_MAX_SEGS + 1,
					false, false, 41), -EINVAL);
	assert_int_equal(srv6_srh_build(h, sizeof(h), NULL, 1, false, false, 41),
			 -EINVAL);
	assert_int_equal(srv6_srh_build(NULL, sizeof(h), s, 1, false, false, 41),
			 -EINVAL);
	/* exactly enough, one short */
	assert_int_equal(srv6_srh_build(h, 8 + 16 * 3, s, 3, false, false, 41),
			 8 + 16 * 3);
	assert_int_equal(srv6_srh_build(h, 8 + 16 * 3 - 1, s, 3, false, false, 41),
			 -ENOSPC);
	assert_int_equal(srv6_srh_build(h, 8 + 16 * 17 - 1, s, 16, false, true,
					41), -ENOSPC);
	assert_int_equal(srv6_srh_build(h, 8 + 16 * 17, s, 16, false, true, 41),
			 8 + 16 * 17);
	assert_int_equal(srv6_srh_build(h, 0, s, 1, false, false, 41), -ENOSPC);
}

static void test_build_then_parse(void **state)
{
	struct in6_addr s[4];
	struct pb p;
	struct srv6_ip6_info info;
	int len;

	(void)state;
	fill_segs(s, 4);
	pb_init(&p);
	p.b[6] = 43;
	len = srv6_srh_build(p.b + 40, sizeof(p.b) - 40, s, 4, false, false, 41);
	assert_int_equal(len, 72);
	p.len = 40 + (size_t)len;
	p.nh_off = 40;
	pb_upper(&p, 41, 40);
	assert_int_equal(srv6_ip6_parse(p.b, p.len, &info), SRV6_SRH_OK);
	assert_true(info.has_srh);
	assert_int_equal(info.srh_len, 72);
	assert_int_equal(info.upper_proto, 41);
	/* the active segment, segments[SL], is the first of the list */
	assert_memory_equal(p.b + 40 + 8 + 16 * p.b[43], &s[0], 16);
}

static void test_pad(void **state)
{
	uint8_t b[16], h[64];
	size_t n, f;

	(void)state;
	for (n = 0; n < 8; n++) {
		memset(b, 0xee, sizeof(b));
		assert_int_equal(srv6_srh_pad(b, n), 0);
		if (n == 1)
			assert_int_equal(b[0], SRV6_TLV_PAD1);
		if (n >= 2) {
			assert_int_equal(b[0], SRV6_TLV_PADN);
			assert_int_equal(b[1], n - 2);
		}
		assert_int_equal(b[n], 0xee);   /* exactly n bytes written */
		if (n == 0)
			continue;
		/* an 8-byte TLV area padded as n + (8 - n) validates */
		mk_srh(h, 1, 3, 0, 0, NULL, 0);
		memset(h + 24, 0xee, 8);
		assert_int_equal(srv6_srh_pad(h + 24, n), 0);
		assert_int_equal(srv6_srh_pad(h + 24 + n, 8 - n), 0);
		assert_int_equal(srv6_srh_validate(h, 32, &f), SRV6_SRH_OK);
	}
	assert_int_equal(srv6_srh_pad(b, 8), -EINVAL);
}

/* ------------------------------------------------------- scapy vectors */

static int err_from_name(const char *s)
{
	static const char *const names[] = {
		[SRV6_SRH_ERR_TRUNC] = "TRUNC", [SRV6_SRH_ERR_TYPE] = "TYPE",
		[SRV6_SRH_ERR_LEN] = "LEN", [SRV6_SRH_ERR_LE] = "LE",
		[SRV6_SRH_ERR_SL] = "SL", [SRV6_SRH_ERR_TLV] = "TLV",
		[SRV6_SRH_ERR_CHAIN] = "CHAIN",
	};
	int i;

	for (i = 1; i < SRV6_SRH_ERR_MAX; i++)
		if (names[i] && strcmp(names[i], s) == 0)
			return i;
	fail_msg("unknown error name %s", s);
	return -1;
}

static int vec_build(char **tok, int n)
{
	struct in6_addr segs[SRV6_MAX_SEGS];
	uint8_t want[1024], got[1024];
	unsigned int nsegs = 0;
	size_t wlen;
	char *s, *save = NULL;
	bool red, slot;
	int len;

	assert_int_equal(n, 6);
	red = strstr(tok[2], "red") != NULL;
	slot = strncmp(tok[2], "inline", 6) == 0;
	for (s = strtok_r(tok[4], ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		assert_true(nsegs < SRV6_MAX_SEGS);
		assert_int_equal(inet_pton(AF_INET6, s, &segs[nsegs]), 1);
		nsegs++;
	}
	wlen = vec_unhex(tok[5], want, sizeof(want));
	len = srv6_srh_build(got, sizeof(got), segs, nsegs, red, slot,
			     (uint8_t)atoi(tok[3]));
	if (len != (int)wlen || memcmp(got, want, wlen) != 0)
		fail_msg("build %s: srv6_srh_build differs from scapy", tok[1]);
	return 1;
}

static int vec_parse(char **tok, int n)
{
	struct srv6_ip6_info info;
	uint8_t pkt[4096];
	size_t len;
	int rc;

	assert_int_equal(n, 11);
	len = vec_unhex(tok[2], pkt, sizeof(pkt));
	rc = srv6_ip6_parse(pkt, len, &info);
	if (rc != SRV6_SRH_OK)
		fail_msg("parse %s: error %d at %zu", tok[1], rc, info.err_ptr);
	assert_int_equal(info.has_srh, atoi(tok[3]));
	if (info.has_srh) {
		assert_int_equal(info.srh_off, atoi(tok[4]));
		assert_int_equal(info.srh_len, atoi(tok[5]));
		assert_int_equal(info.nh_byte_off, atoi(tok[6]));
		assert_int_equal(pkt[info.srh_off + 3], atoi(tok[9]));
		assert_int_equal(pkt[info.srh_off + 4], atoi(tok[10]));
		assert_int_equal(srv6_srh_validate(pkt + info.srh_off,
						   info.srh_len, NULL),
				 SRV6_SRH_OK);
	}
	if (info.upper_off != (size_t)atoi(tok[7]) ||
	    info.upper_proto != atoi(tok[8]))
		fail_msg("parse %s: upper %zu/%u, scapy %s/%s", tok[1],
			 info.upper_off, info.upper_proto, tok[7], tok[8]);
	return 1;
}

static int vec_bad(char **tok, int n)
{
	struct srv6_ip6_info info;
	uint8_t pkt[4096];
	size_t len;
	int rc;

	assert_int_equal(n, 5);
	len = vec_unhex(tok[2], pkt, sizeof(pkt));
	rc = srv6_ip6_parse(pkt, len, &info);
	if (rc != err_from_name(tok[3]) || info.err_ptr != (size_t)atoi(tok[4]))
		fail_msg("bad %s: got error %d at %zu, want %s at %s", tok[1],
			 rc, info.err_ptr, tok[3], tok[4]);
	return 1;
}

static void test_scapy_vectors(void **state)
{
	static char line[65536];
	int nbuild = 0, nparse = 0, nbad = 0;
	FILE *f = vec_open("srh.txt");

	(void)state;
	while (fgets(line, sizeof(line), f)) {
		char *tok[16], *save = NULL, *t;
		int n = 0;

		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		for (t = strtok_r(line, " ", &save); t && n < 16;
		     t = strtok_r(NULL, " ", &save))
			tok[n++] = t;
		assert_true(n >= 2);
		if (strcmp(tok[0], "build") == 0)
			nbuild += vec_build(tok, n);
		else if (strcmp(tok[0], "parse") == 0)
			nparse += vec_parse(tok, n);
		else if (strcmp(tok[0], "bad") == 0)
			nbad += vec_bad(tok, n);
		else
			fail_msg("srh.txt: unknown line kind \"%s\"", tok[0]);
	}
	fclose(f);
	print_message("scapy vectors: %d build, %d parse, %d bad\n",
		      nbuild, nparse, nbad);
	assert_true(nbuild >= 10);
	assert_true(nparse >= 10);
	assert_true(nbad >= 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrong_type),
		cmocka_unit_test(test_hdrlen_too_small),
		cmocka_unit_test(test_le_max),
		cmocka_unit_test(test_sl_boundaries),
		cmocka_unit_test(test_truncated_srh),
		cmocka_unit_test(test_tlv_padn_to_end),
		cmocka_unit_test(test_tlv_pad1_runs),
		cmocka_unit_test(test_tlv_hmac),
		cmocka_unit_test(test_tlv_zero_length),
		cmocka_unit_test(test_tlv_overrun_big),
		cmocka_unit_test(test_parse_plain),
		cmocka_unit_test(test_parse_behind_hbh_dst),
		cmocka_unit_test(test_parse_no_srh),
		cmocka_unit_test(test_parse_second_srh_skipped),
		cmocka_unit_test(test_parse_chain_limits),
		cmocka_unit_test(test_parse_lengths),
		cmocka_unit_test(test_parse_truncated_every_length),
		cmocka_unit_test(test_parse_fragment),
		cmocka_unit_test(test_build_variants),
		cmocka_unit_test(test_build_exact),
		cmocka_unit_test(test_build_errors),
		cmocka_unit_test(test_build_then_parse),
		cmocka_unit_test(test_pad),
		cmocka_unit_test(test_scapy_vectors),
	};

	return cmocka_run_group_tests_name("srh", tests, NULL, NULL);
}
