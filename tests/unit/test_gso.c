// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_gso.c - L4 layout, partial checksums and TCP segmentation for GSO
 * super-packets (src/core/gso.c).  Checksums are checked against a separate
 * reference written here (RFC 1071 over the pseudo-header and the segment).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "srv6d/gso.h"

/* ---------------------------------------------------------------- builder */

struct pb {
	uint8_t b[70000];
	size_t len;
	size_t nh_off;             /* Next Header / Protocol byte to set next */
	size_t ip_off[4];
	int ip_ver[4];
	int nip;
};

static void put6(struct pb *p, const char *src, const char *dst)
{
	uint8_t *h = p->b + p->len;

	if (p->nip)
		p->b[p->nh_off] = 41;
	memset(h, 0, 40);
	h[0] = 0x60;
	h[7] = 64;
	inet_pton(AF_INET6, src, h + 8);
	inet_pton(AF_INET6, dst, h + 24);
	p->ip_off[p->nip] = p->len;
	p->ip_ver[p->nip++] = 6;
	p->nh_off = p->len + 6;
	p->len += 40;
}

static void put4(struct pb *p, const char *src, const char *dst)
{
	uint8_t *h = p->b + p->len;

	if (p->nip)
		p->b[p->nh_off] = 4;
	memset(h, 0, 20);
	h[0] = 0x45;
	h[4] = 0x12;
	h[5] = 0x34;
	h[6] = 0x40;   /* DF */
	h[8] = 64;
	inet_pton(AF_INET, src, h + 12);
	inet_pton(AF_INET, dst, h + 16);
	p->ip_off[p->nip] = p->len;
	p->ip_ver[p->nip++] = 4;
	p->nh_off = p->len + 9;
	p->len += 20;
}

/* SRH with @n segments (segs[0] = the final destination), SL @sl. */
static void put_srh(struct pb *p, const char *const *segs, int n, int sl)
{
	uint8_t *h = p->b + p->len;

	p->b[p->nh_off] = 43;
	memset(h, 0, 8 + 16 * (size_t)n);
	h[1] = (uint8_t)(2 * n);
	h[2] = 4;
	h[3] = (uint8_t)sl;
	h[4] = (uint8_t)(n - 1);
	for (int i = 0; i < n; i++)
		inet_pton(AF_INET6, segs[i], h + 8 + 16 * i);
	p->nh_off = p->len;
	p->len += 8 + 16 * (size_t)n;
}

static void put_tcp(struct pb *p, size_t optlen, uint8_t flags, size_t paylen)
{
	uint8_t *h = p->b + p->len;

	p->b[p->nh_off] = 6;
	memset(h, 0, 20 + optlen);
	h[0] = 0x30; h[1] = 0x39;       /* 12345 */
	h[2] = 0x00; h[3] = 0x50;
	h[4] = 0xfe; h[5] = 0xff; h[6] = 0xff; h[7] = 0x00;   /* wraps */
	h[12] = (uint8_t)(((20 + optlen) / 4) << 4);
	h[13] = flags;
	h[14] = 0xff;
	for (size_t i = 0; i < optlen; i++)
		h[20 + i] = 1;               /* NOP */
	p->len += 20 + optlen;
	for (size_t i = 0; i < paylen; i++)
		p->b[p->len + i] = (uint8_t)(i * 7 + (i >> 8));
	p->len += paylen;
}

static void fix_lengths(struct pb *p)
{
	for (int k = 0; k < p->nip; k++) {
		uint8_t *h = p->b + p->ip_off[k];

		if (p->ip_ver[k] == 6) {
			h[4] = (uint8_t)((p->len - p->ip_off[k] - 40) >> 8);
			h[5] = (uint8_t)(p->len - p->ip_off[k] - 40);
		} else {
			h[2] = (uint8_t)((p->len - p->ip_off[k]) >> 8);
			h[3] = (uint8_t)(p->len - p->ip_off[k]);
		}
	}
}

/* ---------------------------------------------------------------- reference */

static uint32_t ref_add(uint32_t s, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s += (i & 1) ? b[i] : (uint32_t)b[i] << 8;
	return s;
}

static uint16_t ref_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Whether the L4 checksum of the packet at @b/@len (L4 at @l4, IP header
 * of version @v at @ip, pseudo destination @dst) verifies. */
static int ref_l4_ok(const uint8_t *b, size_t len, size_t ip, int v, size_t l4,
		     const uint8_t *dst)
{
	uint32_t s = 0;
	size_t l4len = len - l4;
	uint8_t w[4] = { (uint8_t)(l4len >> 24), (uint8_t)(l4len >> 16), (uint8_t)(l4len >> 8),
			 (uint8_t)l4len };

	if (v == 6) {
		s = ref_add(s, b + ip + 8, 16);
		s = ref_add(s, dst, 16);
		s = ref_add(s, w, 4);
	} else {
		s = ref_add(s, b + ip + 12, 4);
		s = ref_add(s, dst, 4);
		s = ref_add(s, w + 2, 2);
	}
	s += 6;
	s = ref_add(s, b + l4, l4len);
	return ref_fold(s) == 0xffff;
}

/* ---------------------------------------------------------------- tests */

static const char *const SEGS2[] = { "2001:db8:2::2", "2001:db8:ff::1" };

static void test_parse_end(void **state)
{
	struct pb *p = calloc(1, sizeof(*p));
	struct srv6_l4info li;
	uint8_t fin[16];

	(void)state;
	put6(p, "2001:db8:1::1", "2001:db8:ff::1");
	put_srh(p, SEGS2, 2, 1);
	put_tcp(p, 12, 0x10, 100);
	fix_lengths(p);
	assert_int_equal(srv6_l4_parse(p->b, p->len, &li), 0);
	assert_int_equal(li.nip, 1);
	assert_int_equal(li.l4_proto, IPPROTO_TCP);
	assert_int_equal(li.l4_off, 40 + 40);
	assert_int_equal(li.l4_hlen, 32);
	/* RFC 8200 8.1: the final destination, not the SID in the DA */
	inet_pton(AF_INET6, "2001:db8:2::2", fin);
	assert_memory_equal(li.pseudo_dst, fin, 16);
	/* every cut: an error, never a read past the end */
	for (size_t n = 0; n < 40 + 40 + 32; n++)
		assert_true(srv6_l4_parse(p->b, n, &li) < 0);
	free(p);
}

static void test_parse_tunnels(void **state)
{
	struct pb *p = calloc(1, sizeof(*p));
	struct srv6_l4info li;
	uint8_t d4[4];

	(void)state;
	put6(p, "2001:db8:2::1", "2001:db8:ff::9");
	put_srh(p, SEGS2, 2, 0);
	put6(p, "2001:db8:1::1", "2001:db8:2::2");
	put4(p, "10.0.0.1", "10.0.0.2");
	put_tcp(p, 0, 0x18, 10);
	fix_lengths(p);
	assert_int_equal(srv6_l4_parse(p->b, p->len, &li), 0);
	assert_int_equal(li.nip, 3);
	assert_int_equal(li.ip_ver[0], 6);
	assert_int_equal(li.ip_ver[2], 4);
	assert_int_equal(li.l4_off, 40 + 40 + 40 + 20);
	inet_pton(AF_INET, "10.0.0.2", d4);
	assert_memory_equal(li.pseudo_dst, d4, 4);
	free(p);
}

static void test_parse_refused(void **state)
{
	struct pb *p = calloc(1, sizeof(*p));
	struct srv6_l4info li;

	(void)state;
	/* fragment header */
	put6(p, "2001:db8:1::1", "2001:db8:2::2");
	p->b[p->nh_off] = 44;
	memset(p->b + p->len, 0, 8);
	p->b[p->len] = 6;
	p->len += 8;
	assert_int_equal(srv6_l4_parse(p->b, p->len, &li), -EPROTO);
	/* ICMPv6 */
	memset(p, 0, sizeof(*p));
	put6(p, "2001:db8:1::1", "2001:db8:2::2");
	p->b[p->nh_off] = 58;
	p->len += 8;
	assert_int_equal(srv6_l4_parse(p->b, p->len, &li), -EPROTO);
	/* IPv4 fragment */
	memset(p, 0, sizeof(*p));
	put4(p, "10.0.0.1", "10.0.0.2");
	put_tcp(p, 0, 0, 0);
	p->b[6] = 0x20;   /* MF */
	assert_int_equal(srv6_l4_parse(p->b, p->len, &li), -EPROTO);
	/* UDP is parsed (8-byte header) */
	memset(p, 0, sizeof(*p));
	put6(p, "2001:db8:1::1", "2001:db8:2::2");
	p->b[p->nh_off] = 17;
	p->len += 8;
	assert_int_equal(srv6_l4_parse(p->b, p->len, &li), 0);
	assert_int_equal(li.l4_proto, IPPROTO_UDP);
	assert_int_equal(li.l4_hlen, 8);
	free(p);
}

/* A partial checksum (pseudo-header sum in the field) completed gives the
 * full checksum, for TCP behind an SRH and for IPv4. */
static void test_partial_complete(void **state)
{
	for (int v = 4; v <= 6; v += 2) {
		struct pb *p = calloc(1, sizeof(*p));
		struct srv6_l4info li;
		uint16_t ps;
		uint8_t *f;

		(void)state;
		if (v == 6) {
			put6(p, "2001:db8:1::1", "2001:db8:ff::1");
			put_srh(p, SEGS2, 2, 1);
		} else {
			put4(p, "10.0.0.1", "10.0.0.2");
		}
		put_tcp(p, 12, 0x18, 1001);
		fix_lengths(p);
		assert_int_equal(srv6_l4_parse(p->b, p->len, &li), 0);
		ps = srv6_l4_pseudo(p->b, &li, p->len - li.l4_off);
		f = p->b + li.l4_off + 16;
		f[0] = (uint8_t)(ps >> 8);
		f[1] = (uint8_t)ps;
		assert_true(srv6_l4_partial_ok(p->b, p->len, &li));
		assert_false(ref_l4_ok(p->b, p->len, li.ip_off[0], v, li.l4_off, li.pseudo_dst));
		assert_int_equal(srv6_csum_complete(p->b, p->len, li.l4_off, 16), 0);
		assert_true(ref_l4_ok(p->b, p->len, li.ip_off[0], v, li.l4_off, li.pseudo_dst));
		/* a completed checksum is no longer "partial" */
		assert_false(srv6_l4_partial_ok(p->b, p->len, &li));
		assert_int_equal(srv6_csum_complete(p->b, p->len, p->len - 1, 0), -EINVAL);
		free(p);
	}
}

/* Segment @p with @mss and check every segment against the original. */
static void check_segments(struct pb *p, size_t mss, uint8_t flags)
{
	static uint8_t out[200000];
	size_t seglen[256], hl, off = 0, done = 0;
	struct srv6_l4info li, sli;
	unsigned int want;
	size_t room;
	int n;

	assert_int_equal(srv6_l4_parse(p->b, p->len, &li), 0);
	hl = (size_t)li.l4_off + li.l4_hlen;
	room = srv6_tcp_segment_room(p->len, &li, mss, &want);
	n = srv6_tcp_segment(p->b, p->len, &li, mss, out, sizeof(out), seglen, 256);
	assert_int_equal(n, (int)want);
	for (int i = 0; i < n; i++) {
		const uint8_t *s = out + off, *th;
		uint32_t seq;

		assert_true(seglen[i] > hl || (n == 1 && seglen[i] == hl));
		assert_true(seglen[i] - hl <= mss);
		assert_int_equal(srv6_l4_parse(s, seglen[i], &sli), 0);
		assert_int_equal(sli.l4_off, li.l4_off);
		for (unsigned int k = 0; k < li.nip; k++) {
			const uint8_t *ip = s + li.ip_off[k];

			if (li.ip_ver[k] == 6) {
				assert_int_equal(ip[4] << 8 | ip[5], seglen[i] - li.ip_off[k] - 40);
			} else {
				assert_int_equal(ip[2] << 8 | ip[3], seglen[i] - li.ip_off[k]);
				assert_int_equal(ip[4] << 8 | ip[5], 0x1234 + i);
				assert_int_equal(ref_fold(ref_add(0, ip, 20)), 0xffff);
			}
		}
		th = s + li.l4_off;
		seq = (uint32_t)th[4] << 24 | (uint32_t)th[5] << 16 | (uint32_t)th[6] << 8 | th[7];
		assert_int_equal(seq, (uint32_t)(0xfeffff00u + done));
		assert_int_equal(th[13] & 0x09, i == n - 1 ? (flags & 0x09) : 0);
		assert_int_equal(th[13] & 0x80, i == 0 ? (flags & 0x80) : 0);
		assert_true(ref_l4_ok(s, seglen[i], li.ip_off[li.nip - 1], li.ip_ver[li.nip - 1],
				      li.l4_off, li.pseudo_dst));
		assert_memory_equal(s + hl, p->b + hl + done, seglen[i] - hl);
		done += seglen[i] - hl;
		off += seglen[i];
	}
	assert_int_equal(done, p->len - hl);
	assert_int_equal(off, room);
	/* too small an output: refused, nothing assumed */
	assert_int_equal(srv6_tcp_segment(p->b, p->len, &li, mss, out, room - 1, seglen, 256),
			 -ENOSPC);
	if (want > 1)
		assert_int_equal(srv6_tcp_segment(p->b, p->len, &li, mss, out, sizeof(out),
						  seglen, want - 1), -ENOSPC);
	assert_int_equal(srv6_tcp_segment(p->b, p->len, &li, 0, out, sizeof(out), seglen, 256),
			 -EINVAL);
}

static void test_segment_tunnel6(void **state)
{
	static const size_t pays[] = { 0, 1, 1388, 1389, 2776, 10000, 65000 - 172 };
	(void)state;
	for (size_t t = 0; t < sizeof(pays) / sizeof(pays[0]); t++) {
		struct pb *p = calloc(1, sizeof(*p));

		/* End.B6.Encaps: outer IPv6 + SRH, inner IPv6 + SRH (SL 0) + TCP */
		put6(p, "2001:db8:2::1", "2001:db8:ff::9");
		put_srh(p, (const char *const[]){ "2001:db8:ff::9" }, 1, 0);
		put6(p, "2001:db8:1::1", "2001:db8:2::2");
		put_srh(p, SEGS2, 2, 0);
		put_tcp(p, 12, 0x80 | 0x08 | 0x01 | 0x10, pays[t]);
		fix_lengths(p);
		check_segments(p, 1388, 0x89);
		free(p);
	}
}

static void test_segment_ipv4(void **state)
{
	struct pb *p = calloc(1, sizeof(*p));

	(void)state;
	/* H.Encaps of IPv4: outer IPv6 + SRH, inner IPv4 + TCP */
	put6(p, "2001:db8:2::1", "2001:db8:ff::9");
	put_srh(p, (const char *const[]){ "2001:db8:ff::9" }, 1, 0);
	put4(p, "10.0.0.1", "10.0.0.2");
	put_tcp(p, 0, 0x18, 30001);
	fix_lengths(p);
	check_segments(p, 1000, 0x18);
	free(p);
	/* plain IPv4 */
	p = calloc(1, sizeof(*p));
	put4(p, "10.0.0.1", "10.0.0.2");
	put_tcp(p, 8, 0x11, 4000);
	fix_lengths(p);
	check_segments(p, 1460, 0x11);
	free(p);
}

/* Random bytes and cuts: parse and segment stay inside their buffers (run
 * under ASan by `make SAN=address unit`). */
static void test_random(void **state)
{
	static uint8_t buf[2048], out[1 << 17];
	size_t seglen[256];
	unsigned int seed = 14;

	(void)state;
	for (int it = 0; it < 20000; it++) {
		struct srv6_l4info li;
		size_t len = (size_t)rand_r(&seed) % sizeof(buf);

		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)rand_r(&seed);
		if (len && (it & 1))
			buf[0] = (uint8_t)((it & 2) ? 0x60 : 0x45);
		if (srv6_l4_parse(buf, len, &li) < 0)
			continue;
		assert_true((size_t)li.l4_off + li.l4_hlen <= len);
		(void)srv6_l4_partial_ok(buf, len, &li);
		if (li.l4_proto == IPPROTO_TCP)
			(void)srv6_tcp_segment(buf, len, &li, 1 + (size_t)rand_r(&seed) % 1500, out,
					       sizeof(out), seglen, 256);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_end),
		cmocka_unit_test(test_parse_tunnels),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_partial_complete),
		cmocka_unit_test(test_segment_tunnel6),
		cmocka_unit_test(test_segment_ipv4),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
