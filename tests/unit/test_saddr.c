// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_saddr.c - srv6_saddr_pick(): the kernel's source address selection
 * over a /proc/net/if_inet6 text.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "srv6d/saddr.h"

/* addr ifindex plen scope flags name, as the kernel prints them */
static const char TABLE[] =
	"20010db8000100000000000000000002 02 40 00 80     eth0\n"
	"fe800000000000000000000000000002 02 40 20 80     eth0\n"
	"20010db8000200000000000000000001 03 40 00 80     eth1\n"
	"20010db800aa00000000000000000009 03 40 00 20     eth1\n"   /* deprecated */
	"20010db800aa00000000000000000007 03 40 00 c0     eth1\n"   /* tentative */
	"00000000000000000000000000000001 01 80 10 80       lo\n";

static void pick(const char *tab, const char *daddr, int oif, const char *want)
{
	struct in6_addr d, got, w;
	char s[INET6_ADDRSTRLEN];

	assert_int_equal(inet_pton(AF_INET6, daddr, &d), 1);
	assert_int_equal(srv6_saddr_pick(tab, &d, oif, &got), 0);
	assert_int_equal(inet_pton(AF_INET6, want, &w), 1);
	inet_ntop(AF_INET6, &got, s, sizeof(s));
	if (memcmp(&got, &w, 16))
		fail_msg("toward %s oif %d: got %s, want %s", daddr, oif, s, want);
}

static void test_outgoing_interface(void **state)
{
	(void)state;
	/* a global destination: both global addresses qualify; the outgoing
	 * interface decides (rule 5) before the longest prefix (rule 8) */
	pick(TABLE, "2001:db8:aa::1", 2, "2001:db8:1::2");
	pick(TABLE, "2001:db8:aa::1", 3, "2001:db8:2::1");
}

static void test_deprecated_and_tentative(void **state)
{
	(void)state;
	/* aa::9 matches 48 bits but is deprecated; aa::7 is tentative */
	pick(TABLE, "2001:db8:aa::1", 0, "2001:db8:1::2");
}

static void test_scope_and_destination(void **state)
{
	(void)state;
	/* a link-local destination takes the link-local source */
	pick(TABLE, "fe80::1", 2, "fe80::2");
	/* the destination itself wins (rule 1) */
	pick(TABLE, "2001:db8:2::1", 2, "2001:db8:2::1");
	/* no interface: the longest prefix decides */
	pick(TABLE, "2001:db8:2::99", 0, "2001:db8:2::1");
}

static void test_none(void **state)
{
	struct in6_addr d, out;

	(void)state;
	inet_pton(AF_INET6, "2001:db8::1", &d);
	assert_int_equal(srv6_saddr_pick("", &d, 0, &out), -EADDRNOTAVAIL);
	assert_int_equal(srv6_saddr_pick("garbage line\n"
					 "00000000000000000000000000000001 01 80 10 80 lo\n", &d, 0, &out),
			 -EADDRNOTAVAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outgoing_interface),
		cmocka_unit_test(test_deprecated_and_tentative),
		cmocka_unit_test(test_scope_and_destination),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
