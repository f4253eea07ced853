// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_icmp6.c - ICMPv6 answers (src/core/icmp6.c).  Run from the repository
 * root; scapy vectors come from tests/unit/vectors/icmp6.txt or
 * $SRV6_VECTORS/icmp6.txt.
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

#include "srv6d/icmp6.h"

#define ORIG_SRC "2001:db8::1"
#define ORIG_DST "fc00:1::100"

/* An IPv6 packet: header, @ext bytes of SRH (1 segment, SL @sl) if @srh,
 * then @proto with @n bytes of payload (first bytes from @upper). */
static size_t mk_pkt(uint8_t *b, bool srh, uint8_t sl, uint8_t proto,
		     const uint8_t *upper, size_t uplen, size_t n)
{
	size_t off = 40, i;

	memset(b, 0, 40);
	b[0] = 0x60;
	b[7] = 64;
	inet_pton(AF_INET6, ORIG_SRC, b + 8);
	inet_pton(AF_INET6, ORIG_DST, b + 24);
	if (srh) {
		b[6] = 43;
		memset(b + off, 0, 24);
		b[off] = proto;
		b[off + 1] = 2;
		b[off + 2] = 4;
		b[off + 3] = sl;
		b[off + 8] = 0xfc;
		b[off + 23] = 1;
		off += 24;
	} else {
		b[6] = proto;
	}
	for (i = 0; i < n; i++)
		b[off + i] = i < uplen ? upper[i] : (uint8_t)i;
	off += n;
	b[4] = (uint8_t)((off - 40) >> 8);
	b[5] = (uint8_t)(off - 40);
	return off;
}

static int build(uint8_t type, uint8_t code, uint32_t ptr, const uint8_t *orig,
		 size_t len, uint8_t *out, size_t cap, struct in6_addr *src,
		 struct in6_addr *dst)
{
	struct srv6_icmp icmp = { .type = type, .code = code, .pointer = ptr };

	return srv6_icmp6_build(&icmp, orig, len, out, cap, src, dst);
}

/* ------------------------------------------------------------ errors */

static void test_param_problem(void **state)
{
	uint8_t orig[256], out[1280];
	struct in6_addr src, dst;
	size_t len;
	int n;

	(void)state;
	len = mk_pkt(orig, true, 9, 17, NULL, 0, 16);   /* SL 9 > LE + 1 */
	n = build(4, 0, 43, orig, len, out, sizeof(out), &src, &dst);
	assert_int_equal(n, 8 + (int)len);
	assert_int_equal(out[0], 4);
	assert_int_equal(out[1], 0);
	assert_int_equal(out[2] | out[3], 0);             /* checksum left 0 */
	assert_int_equal(out[4] << 24 | out[5] << 16 | out[6] << 8 | out[7], 43);
	assert_memory_equal(out + 8, orig, len);
	assert_memory_equal(&src, orig + 24, 16);         /* from the SID */
	assert_memory_equal(&dst, orig + 8, 16);          /* to the sender */

	/* the 32-bit pointer is big-endian */
	n = build(4, 1, 0x01020304, orig, len, out, sizeof(out), NULL, NULL);
	assert_int_equal(n, 8 + (int)len);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[4], 1);
	assert_int_equal(out[5], 2);
	assert_int_equal(out[6], 3);
	assert_int_equal(out[7], 4);
}

static void test_other_errors(void **state)
{
	uint8_t orig[256], out[1280];
	size_t len;
	int n;

	(void)state;
	len = mk_pkt(orig, true, 1, 41, NULL, 0, 40);
	/* Time Exceeded / Destination Unreachable: bytes 4..7 unused = 0 */
	n = build(3, 0, 0xffffffff, orig, len, out, sizeof(out), NULL, NULL);
	assert_int_equal(n, 8 + (int)len);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[4] | out[5] | out[6] | out[7], 0);
	n = build(1, 5, 7, orig, len, out, sizeof(out), NULL, NULL);
	assert_int_equal(n, 8 + (int)len);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 5);
	assert_int_equal(out[4] | out[5] | out[6] | out[7], 0);
	/* Packet Too Big carries the MTU */
	n = build(2, 0, 1400, orig, len, out, sizeof(out), NULL, NULL);
	assert_int_equal(n, 8 + (int)len);
	assert_int_equal(out[6] << 8 | out[7], 1400);
	/* types the engine never asks for */
	assert_int_equal(build(0, 0, 0, orig, len, out, sizeof(out), NULL, NULL),
			 -EINVAL);
	assert_int_equal(build(5, 0, 0, orig, len, out, sizeof(out), NULL, NULL),
			 -EINVAL);
	assert_int_equal(build(128, 0, 0, orig, len, out, sizeof(out), NULL,
			       NULL), -EINVAL);
}

/* Quote as much as fits 1280 bytes with the IPv6 and ICMPv6 headers. */
static void test_quote_lengths(void **state)
{
	static const size_t sizes[] = { 40, 64, 100, 1231, 1232, 1233, 1280,
					 1500, 9000, 65535 };
	uint8_t *orig = malloc(65575), out[2048];
	size_t i, len, want;
	int n;

	(void)state;
	assert_non_null(orig);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		len = mk_pkt(orig, true, 9, 17, NULL, 0,
			     sizes[i] < 64 ? 0 : sizes[i] - 64);
		if (sizes[i] < 64) {   /* header only, no SRH */
			len = 40;
			orig[6] = 59;
			orig[4] = orig[5] = 0;
		}
		want = len < 1232 ? len : 1232;
		n = build(4, 0, 43, orig, len, out, sizeof(out), NULL, NULL);
		assert_int_equal(n, 8 + (int)want);
		assert_true(40 + n <= SRV6_ICMP6_MAX);
		assert_memory_equal(out + 8, orig, want);
		/* a smaller output buffer bounds the quote */
		n = build(4, 0, 43, orig, len, out, 60, NULL, NULL);
		assert_int_equal(n, len < 52 ? 8 + (int)len : 60);
	}
	len = mk_pkt(orig, false, 0, 17, NULL, 0, 8);
	assert_int_equal(build(4, 0, 0, orig, len, out, 8, NULL, NULL), 8);
	assert_int_equal(build(4, 0, 0, orig, len, out, 7, NULL, NULL), -ENOSPC);

	/* bytes past the Payload Length (link trailer) are not quoted */
	len = mk_pkt(orig, false, 0, 17, NULL, 0, 8);
	memset(orig + len, 0xdd, 6);
	n = build(4, 0, 0, orig, len + 6, out, sizeof(out), NULL, NULL);
	assert_int_equal(n, 8 + (int)len);
	free(orig);
}

/* RFC 4443 §2.4(e): never answer an error with an error. */
static void test_no_error_for_error(void **state)
{
	uint8_t orig[256], out[1280], ic[8] = { 0 };
	size_t len;
	uint8_t t;

	(void)state;
	for (t = 0; t < 128; t++) {
		ic[0] = t;
		len = mk_pkt(orig, false, 0, 58, ic, 8, 8);
		assert_int_equal(build(4, 0, 6, orig, len, out, sizeof(out),
				       NULL, NULL), -EINVAL);
		/* behind an SRH, even an invalid one */
		len = mk_pkt(orig, true, 200, 58, ic, 8, 8);
		assert_int_equal(build(4, 0, 43, orig, len, out, sizeof(out),
				       NULL, NULL), -EINVAL);
	}
	/* Redirect */
	ic[0] = 137;
	len = mk_pkt(orig, false, 0, 58, ic, 8, 8);
	assert_int_equal(build(3, 0, 0, orig, len, out, sizeof(out), NULL, NULL),
			 -EINVAL);
	/* informational messages may get errors */
	ic[0] = 128;
	len = mk_pkt(orig, true, 0, 58, ic, 8, 8);
	assert_int_equal(build(4, 4, 40, orig, len, out, sizeof(out), NULL,
			       NULL), 8 + (int)len);
	ic[0] = 135;   /* NS */
	len = mk_pkt(orig, false, 0, 58, ic, 8, 8);
	assert_int_equal(build(3, 0, 0, orig, len, out, sizeof(out), NULL, NULL),
			 8 + (int)len);
	/* ICMPv6 with no type byte: ineligible, as in the kernel */
	len = mk_pkt(orig, false, 0, 58, NULL, 0, 0);
	assert_int_equal(build(3, 0, 0, orig, len, out, sizeof(out), NULL, NULL),
			 -EINVAL);
}

static void test_no_error_for_fragment_checks(void **state)
{
	uint8_t orig[256], out[1280];
	size_t len;

	(void)state;
	/* non-first fragment of ICMPv6: its type is not visible: answerable */
	len = mk_pkt(orig, false, 0, 44, NULL, 0, 16);
	orig[40] = 58;
	orig[42] = 0x01;   /* offset 32 */
	orig[43] = 0x00;
	orig[48] = 1;      /* would look like an error */
	assert_int_equal(build(3, 1, 0, orig, len, out, sizeof(out), NULL, NULL),
			 8 + (int)len);
	/* first fragment carrying an ICMPv6 error: not answerable */
	orig[42] = 0;
	orig[43] = 1;      /* M */
	assert_int_equal(build(3, 1, 0, orig, len, out, sizeof(out), NULL, NULL),
			 -EINVAL);
}

static void test_refused_addresses(void **state)
{
	uint8_t orig[256], out[1280], req[8] = { 128, 0, 0, 0, 0, 1, 0, 1 };
	size_t len;

	(void)state;
	len = mk_pkt(orig, true, 9, 17, NULL, 0, 8);
	/* multicast source */
	inet_pton(AF_INET6, "ff02::1", orig + 8);
	assert_int_equal(build(4, 0, 43, orig, len, out, sizeof(out), NULL,
			       NULL), -EINVAL);
	/* unspecified source */
	memset(orig + 8, 0, 16);
	assert_int_equal(build(4, 0, 43, orig, len, out, sizeof(out), NULL,
			       NULL), -EINVAL);
	/* multicast destination: no error ... */
	inet_pton(AF_INET6, ORIG_SRC, orig + 8);
	inet_pton(AF_INET6, "ff0e::42", orig + 24);
	assert_int_equal(build(4, 0, 43, orig, len, out, sizeof(out), NULL,
			       NULL), -EINVAL);
	assert_int_equal(build(3, 0, 0, orig, len, out, sizeof(out), NULL, NULL),
			 -EINVAL);
	/* ... except Packet Too Big and Parameter Problem code 2 */
	assert_int_equal(build(2, 0, 1280, orig, len, out, sizeof(out), NULL,
			       NULL), 8 + (int)len);
	assert_int_equal(build(4, 2, 40, orig, len, out, sizeof(out), NULL,
			       NULL), 8 + (int)len);
	/* no echo reply to a multicast destination or from a bad source */
	len = mk_pkt(orig, false, 0, 58, req, 8, 8);
	inet_pton(AF_INET6, "ff02::1", orig + 24);
	assert_int_equal(build(129, 0, 0, orig, len, out, sizeof(out), NULL,
			       NULL), -EINVAL);
	inet_pton(AF_INET6, ORIG_DST, orig + 24);
	memset(orig + 8, 0, 16);
	assert_int_equal(build(129, 0, 0, orig, len, out, sizeof(out), NULL,
			       NULL), -EINVAL);
}

static void test_bad_orig(void **state)
{
	uint8_t orig[256], out[1280];
	size_t len, l;
	struct srv6_icmp icmp = { .type = 4 };

	(void)state;
	len = mk_pkt(orig, true, 9, 17, NULL, 0, 8);
	for (l = 0; l < 40; l++)
		assert_int_equal(build(4, 0, 0, orig, l, out, sizeof(out), NULL,
				       NULL), -EINVAL);
	orig[0] = 0x45;
	assert_int_equal(build(4, 0, 0, orig, len, out, sizeof(out), NULL, NULL),
			 -EINVAL);
	orig[0] = 0x60;
	assert_int_equal(srv6_icmp6_build(NULL, orig, len, out, sizeof(out),
					  NULL, NULL), -EINVAL);
	assert_int_equal(srv6_icmp6_build(&icmp, NULL, len, out, sizeof(out),
					  NULL, NULL), -EINVAL);
	assert_int_equal(srv6_icmp6_build(&icmp, orig, len, NULL, sizeof(out),
					  NULL, NULL), -EINVAL);
}

/* ------------------------------------------------------------- echo */

static void test_echo_reply(void **state)
{
	uint8_t orig[512], out[512];
	uint8_t req[40] = { 128, 0, 0x12, 0x34, 0xab, 0xcd, 0x00, 0x07 };
	struct in6_addr src, dst;
	size_t len;
	int n, i;

	(void)state;
	for (i = 8; i < 40; i++)
		req[i] = (uint8_t)(i * 3);
	/* to a SID with SL = 0: the upper layer is behind the SRH */
	len = mk_pkt(orig, true, 0, 58, req, sizeof(req), sizeof(req));
	n = build(129, 0, 0, orig, len, out, sizeof(out), &src, &dst);
	assert_int_equal(n, (int)sizeof(req));
	assert_int_equal(out[0], 129);
	assert_int_equal(out[1], 0);
	assert_int_equal(out[2] | out[3], 0);
	assert_memory_equal(out + 4, req + 4, sizeof(req) - 4);
	assert_memory_equal(&src, orig + 24, 16);
	assert_memory_equal(&dst, orig + 8, 16);

	/* trailer is not echoed */
	memset(orig + len, 0xdd, 5);
	assert_int_equal(build(129, 0, 0, orig, len + 5, out, sizeof(out), NULL,
			       NULL), (int)sizeof(req));
	/* output too small for the whole reply */
	assert_int_equal(build(129, 0, 0, orig, len, out, sizeof(req) - 1, NULL,
			       NULL), -ENOSPC);
	/* just the 8-byte header */
	len = mk_pkt(orig, false, 0, 58, req, 8, 8);
	assert_int_equal(build(129, 0, 0, orig, len, out, sizeof(out), NULL,
			       NULL), 8);
	/* a truncated request header is not an echo request */
	len = mk_pkt(orig, false, 0, 58, req, 7, 7);
	assert_int_equal(build(129, 0, 0, orig, len, out, sizeof(out), NULL,
			       NULL), -EINVAL);
}

static void test_echo_reply_refused(void **state)
{
	uint8_t orig[512], out[512], req[16] = { 128, 0 };
	size_t len;

	(void)state;
	/* not ICMPv6 */
	len = mk_pkt(orig, true, 0, 17, req, 16, 16);
	assert_int_equal(build(129, 0, 0, orig, len, out, sizeof(out), NULL,
			       NULL), -EINVAL);
	/* ICMPv6 but not an Echo Request */
	req[0] = 129;
	len = mk_pkt(orig, true, 0, 58, req, 16, 16);
	assert_int_equal(build(129, 0, 0, orig, len, out, sizeof(out), NULL,
			       NULL), -EINVAL);
	/* Echo Request with a nonzero code */
	req[0] = 128;
	req[1] = 1;
	len = mk_pkt(orig, true, 0, 58, req, 16, 16);
	assert_int_equal(build(129, 0, 0, orig, len, out, sizeof(out), NULL,
			       NULL), -EINVAL);
	/* fragmented request: data incomplete */
	req[1] = 0;
	len = mk_pkt(orig, false, 0, 44, NULL, 0, 8 + 16);
	orig[40] = 58;
	orig[42] = 0;
	orig[43] = 1;      /* first fragment, more follow */
	memcpy(orig + 48, req, 16);
	assert_int_equal(build(129, 0, 0, orig, len, out, sizeof(out), NULL,
			       NULL), -EINVAL);
}

/* ---------------------------------------------------------- checksum */

static void test_csum_properties(void **state)
{
	uint8_t msg[64];
	struct in6_addr a, b;
	uint16_t c;
	size_t len;

	(void)state;
	inet_pton(AF_INET6, ORIG_SRC, &a);
	inet_pton(AF_INET6, ORIG_DST, &b);
	for (len = 4; len <= sizeof(msg); len++) {   /* odd lengths too */
		memset(msg, 0, sizeof(msg));
		for (size_t i = 0; i < len; i++)
			msg[i] = (uint8_t)(i * 7 + 1);
		msg[2] = msg[3] = 0;
		c = srv6_icmp6_csum(&a, &b, msg, len);
		msg[2] = (uint8_t)(c >> 8);
		msg[3] = (uint8_t)c;
		assert_int_equal(srv6_icmp6_csum(&a, &b, msg, len), 0);
		/* the pseudo-header counts: swapping addresses keeps the
		 * sum, changing one does not */
		assert_int_equal(srv6_icmp6_csum(&b, &a, msg, len), 0);
		b.s6_addr[15] ^= 1;
		assert_int_not_equal(srv6_icmp6_csum(&a, &b, msg, len), 0);
		b.s6_addr[15] ^= 1;
	}
}

/* ------------------------------------------------------- scapy vectors */

static void check_vector(char **tok)
{
	static uint8_t orig[4096], want[4096], got[4096];
	struct in6_addr src, dst;
	size_t olen, wlen;
	uint16_t c;
	int n;

	olen = vec_unhex(tok[5], orig, sizeof(orig));
	wlen = vec_unhex(tok[6], want, sizeof(want));
	n = build((uint8_t)atoi(tok[2]), (uint8_t)atoi(tok[3]),
		  (uint32_t)strtoul(tok[4], NULL, 10), orig, olen, got,
		  sizeof(got), &src, &dst);
	if (n != (int)wlen)
		fail_msg("icmp %s: length %d, scapy %zu", tok[1], n, wlen);
	assert_memory_equal(&src, orig + 24, 16);
	assert_memory_equal(&dst, orig + 8, 16);
	assert_int_equal(got[2] | got[3], 0);
	c = srv6_icmp6_csum(&src, &dst, got, (size_t)n);
	got[2] = (uint8_t)(c >> 8);
	got[3] = (uint8_t)c;
	if (memcmp(got, want, wlen) != 0)
		fail_msg("icmp %s: bytes differ from scapy", tok[1]);
	assert_int_equal(srv6_icmp6_csum(&src, &dst, want, wlen), 0);
}

static void test_scapy_vectors(void **state)
{
	static char line[16384];
	int count = 0;
	FILE *f;

	(void)state;
	f = vec_open("icmp6.txt");
	while (fgets(line, sizeof(line), f)) {
		char *tok[8], *save = NULL, *t;
		int n = 0;

		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		for (t = strtok_r(line, " ", &save); t && n < 8;
		     t = strtok_r(NULL, " ", &save))
			tok[n++] = t;
		assert_int_equal(n, 7);
		assert_string_equal(tok[0], "icmp");
		check_vector(tok);
		count++;
	}
	fclose(f);
	print_message("scapy vectors: %d icmp\n", count);
	assert_true(count >= 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_param_problem),
		cmocka_unit_test(test_other_errors),
		cmocka_unit_test(test_quote_lengths),
		cmocka_unit_test(test_no_error_for_error),
		cmocka_unit_test(test_no_error_for_fragment_checks),
		cmocka_unit_test(test_refused_addresses),
		cmocka_unit_test(test_bad_orig),
		cmocka_unit_test(test_echo_reply),
		cmocka_unit_test(test_echo_reply_refused),
		cmocka_unit_test(test_csum_properties),
		cmocka_unit_test(test_scapy_vectors),
	};

	return cmocka_run_group_tests_name("icmp6", tests, NULL, NULL);
}
