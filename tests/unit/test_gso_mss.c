// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_gso_mss.c - the segment size of a GSO super-packet's result
 * (srv6_gso_mss, src/core/gso.c): never larger than the output MTU allows,
 * never unreduced when that MTU is unknown or too small, down to the
 * kernel's TCP_MIN_SND_MSS.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "srv6d/gso.h"

static void test_as_input(void **st)
{
	(void)st;
	/* End out of the same 1500-byte links: the input's size */
	assert_int_equal(srv6_gso_mss(1500 - 96, 1500, 96), 1404);
	/* a decapsulation (fewer headers): still the input's, not more */
	assert_int_equal(srv6_gso_mss(1500 - 136, 1500, 72), 1364);
}

static void test_reduced(void **st)
{
	(void)st;
	/* End.B6.Encaps adds 64 bytes: 64 less a segment */
	assert_int_equal(srv6_gso_mss(1500 - 96, 1500, 160), 1340);
	/* an IPv4 result out of a 576-byte link: 576 - 20 - 32 */
	assert_int_equal(srv6_gso_mss(1500 - 116, 576, 52), 524);
	/* below RFC 9293's 536 but not below the kernel's TCP minimum */
	assert_int_equal(srv6_gso_mss(1400, 100, 52), 48);
}

/* Before: an output MTU at or below the result's headers, or 0 (not
 * known), left the input's size: segments larger than the link. */
static void test_refused(void **st)
{
	(void)st;
	assert_int_equal(srv6_gso_mss(1404, 0, 96), 0);
	assert_int_equal(srv6_gso_mss(1404, 96, 96), 0);
	assert_int_equal(srv6_gso_mss(1404, 90, 120), 0);
	assert_int_equal(srv6_gso_mss(1404, 99, 52), 0);          /* 47 < 48 */
	assert_int_equal(srv6_gso_mss(SRV6_GSO_MSS_MIN - 1, 1500, 52), 0);
	assert_int_equal(srv6_gso_mss(0, 1500, 52), 0);
	assert_int_equal(SRV6_GSO_MSS_MIN, 48);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_as_input),
		cmocka_unit_test(test_reduced),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
