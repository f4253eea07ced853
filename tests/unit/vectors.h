/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vectors.h - shared by the unit tests that replay the scapy-generated
 * vectors in tests/unit/vectors/ (test_srh, test_icmp6, test_seg6).
 * Include after <cmocka.h>.  SRV6_VECTORS names the directory holding the
 * vector files; by default tests run from the repository root.
 */
#ifndef SRV6D_TEST_VECTORS_H
#define SRV6D_TEST_VECTORS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int vec_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode the hex string @s into @out; every character must be hex, and the
 * result must fit @cap: anything else fails the running test. */
static inline size_t vec_unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = strlen(s), i;

	assert_int_equal(n % 2, 0);
	assert_true(n / 2 <= cap);
	for (i = 0; i < n / 2; i++) {
		int hi = vec_hexval(s[2 * i]), lo = vec_hexval(s[2 * i + 1]);

		assert_true(hi >= 0 && lo >= 0);
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return n / 2;
}

/* Open vector file @name (e.g. "seg6.txt") or fail the running test. */
static inline FILE *vec_open(const char *name)
{
	const char *dir = getenv("SRV6_VECTORS");
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "tests/unit/vectors", name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: cannot open (run from the repository root, set SRV6_VECTORS to "
			 "the vectors directory, or regenerate with tests/unit/vectors/gen_*.py)",
			 path);
	return f;
}

#endif
