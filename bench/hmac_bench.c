// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hmac_bench - per-packet cost of the SRH HMAC check (src/core/hmac.c):
 * srv6_hmac_check() on an SRH with 2 and with 14 segments (the kernel's
 * maximum) for HMAC-SHA-256 and HMAC-SHA-1, keyed per packet (HMAC())
 * and from the prepared state the daemon uses (srv6_hmac_key_prepare()),
 * and the whole End behavior (srv6_sid_process_in) on a signed packet with
 * `hmac verify` against `hmac ignore` (the engine without the check).  One thread; the
 * median of the repetitions, in nanoseconds per packet.
 *
 *   hmac_bench [-n packets per repetition] [-r repetitions]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv6d/hmac.h"
#include "srv6d/seg6.h"

#define MAXREP 51

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* An IPv6 packet to SID ::ff:1 with an SRH of @nsegs segments (SL 1) signed
 * with @key, and 64 bytes of payload; returns its length. */
static size_t make_packet(uint8_t *p, unsigned int nsegs, const struct srv6_hmac_key *key)
{
	size_t srhlen = 8 + 16 * (size_t)nsegs + SRV6_HMAC_TLV_LEN, len = 40 + srhlen + 64;
	uint8_t *srh = p + 40;

	memset(p, 0, len);
	p[0] = 0x60;
	p[4] = (uint8_t)((len - 40) >> 8);
	p[5] = (uint8_t)(len - 40);
	p[6] = 43;
	p[7] = 64;
	p[8] = 0x20, p[9] = 0x01, p[23] = 1;                 /* source */
	srh[0] = 59;
	srh[1] = (uint8_t)(srhlen / 8 - 1);
	srh[2] = 4;
	srh[3] = 1;
	srh[4] = (uint8_t)(nsegs - 1);
	srh[5] = SRV6_SRH_FLAG_HMAC;
	for (unsigned int i = 0; i < nsegs; i++) {
		srh[8 + 16 * i] = 0x20;
		srh[8 + 16 * i + 1] = 0x01;
		srh[8 + 16 * i + 15] = (uint8_t)(i + 1);
	}
	memcpy(p + 24, srh + 8 + 16, 16);                  /* DA = Segment List[1] */
	srh[8 + 16 * nsegs] = SRV6_TLV_HMAC;
	srh[8 + 16 * nsegs + 1] = 38;
	srh[8 + 16 * nsegs + 7] = (uint8_t)key->id;
	if (srv6_hmac_sign(key, srh, p + 8)) {
		fprintf(stderr, "hmac_bench: signing failed\n");
		exit(1);
	}
	return len;
}

/* Median ns of srv6_hmac_check() on a packet signed with @key; 0 or 1 (a
 * check failed). */
static int bench_check(const struct srv6_hmac_set *set, const struct srv6_hmac_key *key,
		       unsigned int segs, int prep, long n, int reps)
{
	static uint8_t pkt[1024];
	double v[MAXREP];

	make_packet(pkt, segs, key);
	for (int r = 0; r < reps; r++) {
		uint64_t t0 = now_ns();
		long fails = 0;

		for (long i = 0; i < n; i++)
			fails += srv6_hmac_check(set, SRV6_HMAC_VERIFY, pkt + 40, pkt + 8,
						 NULL) != SRV6_HMAC_PASS;
		v[r] = (double)(now_ns() - t0) / (double)n;
		if (fails) {
			fprintf(stderr, "hmac_bench: %ld checks failed\n", fails);
			return 1;
		}
	}
	qsort(v, (size_t)reps, sizeof(v[0]), cmp_dbl);
	printf("check %-6s %2u segments, %-10s %15.0f\n", srv6_hmac_algo_name(key->algo), segs,
	       prep ? "prepared" : "per-packet", v[reps / 2]);
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t buf[SRV6_PKT_HEADROOM + 1024], pkt[1024];
	struct srv6_hmac_set set = { .nkeys = 2 };
	double v[MAXREP];
	long n = 200000;
	int reps = 5, c;

	while ((c = getopt(argc, argv, "n:r:")) != -1) {
		if (c == 'n')
			n = atol(optarg);
		else if (c == 'r')
			reps = atoi(optarg);
		else
			return 2;
	}
	if (n <= 0 || reps <= 0 || reps > MAXREP)
		return 2;
	set.keys[0] = (struct srv6_hmac_key){ .id = 7, .algo = SRV6_HMAC_ALGO_SHA256, .slen = 32 };
	set.keys[1] = (struct srv6_hmac_key){ .id = 8, .algo = SRV6_HMAC_ALGO_SHA1, .slen = 32 };
	memset(set.keys[0].secret, 'a', 32);
	memset(set.keys[1].secret, 'b', 32);

	printf("%-42s %12s\n", "case (median of reps)", "ns/packet");
	for (int prep = 0; prep < 2; prep++) {
		for (int k = 0; k < 2; k++) {
			if (prep && srv6_hmac_key_prepare(&set.keys[k])) {
				fprintf(stderr, "hmac_bench: prepare failed\n");
				return 1;
			}
			for (unsigned int segs = 2; segs <= SRV6_HMAC_MAX_ENTRIES; segs += 12)
				if (bench_check(&set, &set.keys[k], segs, prep, n, reps))
					return 1;
		}
	}
	/* End on the signed packet: verify vs ignore */
	for (int mode = SRV6_HMAC_IGNORE; mode <= SRV6_HMAC_VERIFY; mode++) {
		struct srv6_sid_cfg cfg = { .action = SRV6_ACT_END, .hmac = &set };
		size_t len = make_packet(pkt, 2, &set.keys[0]);
		struct srv6_result res;
		struct srv6_pkt p;

		set.mode = mode;
		for (int r = 0; r < reps; r++) {
			uint64_t t0 = now_ns();

			for (long i = 0; i < n; i++) {
				srv6_pkt_init(&p, buf, sizeof(buf), SRV6_PKT_HEADROOM, len);
				memcpy(p.data, pkt, len);
				srv6_sid_process_in(&cfg, 0, &p, &res);
				if (res.verdict != SRV6_V_FORWARD6) {
					fprintf(stderr, "hmac_bench: End did not forward\n");
					return 1;
				}
			}
			v[r] = (double)(now_ns() - t0) / (double)n;
		}
		qsort(v, (size_t)reps, sizeof(v[0]), cmp_dbl);
		printf("End, 2 segments, sha256, hmac %-6s %12.0f\n", srv6_hmac_mode_name(mode),
		       v[reps / 2]);
	}
	srv6_hmac_key_release(&set.keys[0]);
	srv6_hmac_key_release(&set.keys[1]);
	return 0;
}
