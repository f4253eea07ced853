// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_pqueue.c - the pure part of the verdict-policy queues: the one-line
 * packet summary (srv6_pq_summary) on IPv6 with and without an SRH (behind
 * a Hop-by-Hop header too), IPv4, and inputs too short to parse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "srv6d/pqueue.h"

/* IPv6 header: @nh, hop limit 64, 2001:db8:1::1 > @dst, payload @plen. */
static size_t ip6(uint8_t *b, uint8_t nh, const char *dst, uint16_t plen)
{
	memset(b, 0, 40);
	b[0] = 0x60;
	b[4] = (uint8_t)(plen >> 8);
	b[5] = (uint8_t)plen;
	b[6] = nh;
	b[7] = 64;
	inet_pton(AF_INET6, "2001:db8:1::1", b + 8);
	inet_pton(AF_INET6, dst, b + 24);
	return 40;
}

/* SRH (type 4) with @n segments, Segments Left @sl, next header UDP. */
static size_t srh(uint8_t *b, unsigned int n, uint8_t sl)
{
	memset(b, 0, 8 + 16 * n);
	b[0] = 17;
	b[1] = (uint8_t)(2 * n);
	b[2] = 4;
	b[3] = sl;
	b[4] = (uint8_t)(n - 1);
	return 8 + 16 * n;
}

static void test_summary_srh(void **state)
{
	uint8_t b[256];
	char s[SRV6_PQ_SUMMARY];
	size_t l = ip6(b, 43, "2001:db8:5::1", 40 + 8);

	l += srh(b + l, 2, 1);
	memset(b + l, 0, 8);
	l += 8;
	srv6_pq_summary(s, sizeof(s), AF_INET6, b, (uint32_t)l);
	assert_string_equal(s, "2001:db8:1::1 > 2001:db8:5::1 hlim 64 srh sl 1/2 nh udp len 88");
}

static void test_summary_hbh_srh(void **state)
{
	uint8_t b[256];
	char s[SRV6_PQ_SUMMARY];
	size_t l = ip6(b, 0, "2001:db8:5::2", 8 + 56);

	memset(b + l, 0, 8);
	b[l] = 43;            /* hop-by-hop, 8 bytes, then the SRH */
	l += 8;
	l += srh(b + l, 3, 0);
	srv6_pq_summary(s, sizeof(s), AF_INET6, b, (uint32_t)l);
	assert_string_equal(s, "2001:db8:1::1 > 2001:db8:5::2 hlim 64 srh sl 0/3 nh udp len 104");
}

static void test_summary_plain_v4_short(void **state)
{
	uint8_t b[64] = { 0 };
	char s[SRV6_PQ_SUMMARY];

	ip6(b, 58, "2001:db8:2::2", 0);
	srv6_pq_summary(s, sizeof(s), AF_INET6, b, 40);
	assert_string_equal(s, "2001:db8:1::1 > 2001:db8:2::2 hlim 64 nh icmp6 len 40");

	memset(b, 0, sizeof(b));
	b[0] = 0x45;
	b[8] = 63;
	b[9] = 17;
	inet_pton(AF_INET, "198.51.100.1", b + 12);
	inet_pton(AF_INET, "192.0.2.2", b + 16);
	srv6_pq_summary(s, sizeof(s), AF_INET, b, 28);
	assert_string_equal(s, "198.51.100.1 > 192.0.2.2 ttl 63 proto udp len 28");

	/* too short to be what it claims; an SRH cut short is not read */
	srv6_pq_summary(s, sizeof(s), AF_INET6, b, 39);
	assert_string_equal(s, "39 bytes, not IPv4/IPv6");
	ip6(b, 43, "2001:db8:5::1", 4);
	srv6_pq_summary(s, sizeof(s), AF_INET6, b, 44);
	assert_string_equal(s, "2001:db8:1::1 > 2001:db8:5::1 hlim 64 rh type 0 nh 0 len 44");
	/* a small buffer is cut, never overrun */
	srv6_pq_summary(s, 8, AF_INET6, b, 44);
	assert_string_equal(s, "2001:db");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_srh),
		cmocka_unit_test(test_summary_hbh_srh),
		cmocka_unit_test(test_summary_plain_v4_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
