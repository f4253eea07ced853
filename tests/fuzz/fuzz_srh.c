// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_srh.c - libFuzzer target over the SRH/ICMPv6 part of the packet
 * engine: srv6_ip6_parse(), srv6_srh_validate(), srv6_icmp6_build() on the
 * input as an IPv6 packet, and srv6_srh_build() driven by its first bytes.
 * Besides memory safety (ASan+UBSan) it checks the contracts:
 *   - a parsed SRH lies inside the packet and validates on its own;
 *   - err_ptr never points past the packet;
 *   - ICMPv6 errors fit 1280 bytes with the IPv6 header, and quote the
 *     packet's first bytes; nothing is written past the output capacity;
 *   - every SRH srv6_srh_build() writes validates and parses;
 *   - the HMAC TLV walk stays inside a valid SRH and finds a TLV of type 5;
 *     the kernel's lookup finds only a 40-byte TLV ending the SRH with the H
 *     flag; ignore always passes, a missing TLV fails only under require;
 *     an SRH signed in place verifies; an appended TLV validates.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "srv6d/hmac.h"
#include "srv6d/icmp6.h"
#include "srv6d/srh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void fuzz_parse(const uint8_t *data, size_t size)
{
	struct srv6_ip6_info info;
	size_t field;
	int rc;

	rc = srv6_ip6_parse(data, size, &info);
	CHECK(rc >= SRV6_SRH_OK && rc < SRV6_SRH_ERR_MAX);
	if (rc != SRV6_SRH_OK) {
		CHECK(info.err_ptr <= size);
		return;
	}
	CHECK(size >= SRV6_IPV6_HLEN);
	CHECK(info.upper_off <= size);
	if (info.has_srh) {
		CHECK(info.srh_off >= SRV6_IPV6_HLEN);
		CHECK(info.srh_off + info.srh_len <= size);
		CHECK(info.srh_len == ((size_t)data[info.srh_off + 1] + 1) * 8);
		CHECK(data[info.nh_byte_off] == 43);
		CHECK(srv6_srh_validate(data + info.srh_off, info.srh_len,
					&field) == SRV6_SRH_OK);
		CHECK(info.upper_off >= info.srh_off + info.srh_len);
	}
}

static void fuzz_validate(const uint8_t *data, size_t size)
{
	size_t field = 0;
	int rc = srv6_srh_validate(data, size, &field);

	CHECK(rc >= SRV6_SRH_OK && rc < SRV6_SRH_ERR_MAX);
	if (rc != SRV6_SRH_OK)
		CHECK(field <= size);
	else
		CHECK(((size_t)data[1] + 1) * 8 <= size);
}

static void fuzz_icmp(const uint8_t *data, size_t size)
{
	static const uint8_t types[] = { 1, 2, 3, 4, 129 };
	static uint8_t out[2048 + 16];
	struct in6_addr src, dst;
	size_t i, cap;
	int n;

	for (i = 0; i < sizeof(types); i++) {
		struct srv6_icmp icmp = {
			.type = types[i],
			.code = size > 1 ? data[1] & 7 : 0,
			.pointer = size > 3 ? data[3] : 0,
		};

		/* a capacity from the input, and a guard after it */
		cap = size > 2 ? (size_t)data[2] * 8 : 2048;
		memset(out + cap, 0xa5, 16);
		n = srv6_icmp6_build(&icmp, data, size, out, cap, &src, &dst);
		CHECK(n == -EINVAL || n == -ENOSPC || (n >= 8 && (size_t)n <= cap));
		for (size_t g = 0; g < 16; g++)
			CHECK(out[cap + g] == 0xa5);
		if (n < 0)
			continue;
		CHECK(memcmp(&src, data + 24, 16) == 0);
		CHECK(memcmp(&dst, data + 8, 16) == 0);
		CHECK(out[0] == types[i] && out[2] == 0 && out[3] == 0);
		if (types[i] != 129) {
			CHECK(SRV6_IPV6_HLEN + (size_t)n <= SRV6_ICMP6_MAX);
			CHECK(memcmp(out + 8, data, (size_t)n - 8) == 0);
		}
		(void)srv6_icmp6_csum(&src, &dst, out, (size_t)n);
	}
}

static void fuzz_build(const uint8_t *data, size_t size)
{
	struct in6_addr segs[SRV6_MAX_SEGS + 1];
	static uint8_t out[8 + 16 * (SRV6_MAX_SEGS + 1) + 16];
	struct srv6_ip6_info info;
	static uint8_t pkt[40 + sizeof(out)];
	unsigned int nsegs;
	size_t cap, need;
	bool red, slot;
	int n;

	if (size < 3)
		return;
	nsegs = data[0] % (SRV6_MAX_SEGS + 2);
	red = data[1] & 1;
	slot = data[1] & 2;
	cap = ((size_t)data[2] + (data[1] & 4 ? 256 : 0)) % (sizeof(out) - 16 + 1);
	memset(segs, 0, sizeof(segs));
	memcpy(segs, data + 3, size - 3 < sizeof(segs) ? size - 3 : sizeof(segs));
	memset(out + cap, 0xa5, 16);
	n = srv6_srh_build(out, cap, segs, nsegs, red, slot, 59);
	for (size_t g = 0; g < 16; g++)
		CHECK(out[cap + g] == 0xa5);
	if (nsegs == 0 || nsegs > SRV6_MAX_SEGS) {
		CHECK(n == -EINVAL);
		return;
	}
	need = 8 + 16 * (size_t)(nsegs + slot - red);
	if (red && !slot && nsegs == 1) {
		CHECK(n == 0);
		return;
	}
	if (cap < need) {
		CHECK(n == -ENOSPC);
		return;
	}
	CHECK(n == (int)need);
	CHECK(srv6_srh_validate(out, (size_t)n, NULL) == SRV6_SRH_OK);
	/* the first segment is active: segments[SL], or the DA when reduced */
	if (!red)
		CHECK(memcmp(out + 8 + 16 * out[3], &segs[0], 16) == 0);
	memset(pkt, 0, 40);
	pkt[0] = 0x60;
	pkt[4] = (uint8_t)(n >> 8);
	pkt[5] = (uint8_t)n;
	pkt[6] = 43;
	memcpy(pkt + 40, out, (size_t)n);
	CHECK(srv6_ip6_parse(pkt, 40 + (size_t)n, &info) == SRV6_SRH_OK);
	CHECK(info.has_srh && info.srh_len == (size_t)n && info.upper_proto == 59);
}

static void fuzz_hmac(const uint8_t *data, size_t size)
{
	static struct srv6_hmac_set set = {
		.nkeys = 2,
		.keys = {
			{ .id = 7, .algo = SRV6_HMAC_ALGO_SHA256, .slen = 4, .secret = "key7" },
			{ .id = 0x01000000, .algo = SRV6_HMAC_ALGO_SHA1, .slen = 1, .secret = "k" },
		},
	};
	static uint8_t copy[65536];
	struct srv6_ip6_info info;
	size_t off, koff, first, toff;
	const uint8_t *srh;
	int r, sr;

	if (srv6_ip6_parse(data, size, &info) != SRV6_SRH_OK || !info.has_srh)
		return;
	srh = data + info.srh_off;
	first = SRV6_SRH_FIXED + ((size_t)srh[4] + 1) * 16;
	off = srv6_hmac_tlv_find(srh);
	if (off) {
		CHECK(off >= first && off + 2 <= info.srh_len);
		CHECK(srh[off] == SRV6_TLV_HMAC);
		CHECK(off + 2 + srh[off + 1] <= info.srh_len);
	}
	koff = srv6_hmac_tlv_find_kernel(srh);
	if (koff) {
		CHECK(koff + SRV6_HMAC_TLV_LEN == info.srh_len && koff >= first);
		CHECK(srh[koff] == SRV6_TLV_HMAC && srh[koff + 1] == 38);
		CHECK(srh[5] & SRV6_SRH_FLAG_HMAC);
	}
	for (int mode = -1; mode <= 1; mode++) {
		r = srv6_hmac_check(&set, mode, srh, data + 8, &toff);
		CHECK(r >= SRV6_HMAC_PASS && r <= SRV6_HMAC_FAIL_DIGEST);
		if (mode < 0)
			CHECK(r == SRV6_HMAC_PASS);
		else if (!off)
			CHECK(r == (mode > 0 ? SRV6_HMAC_FAIL_MISSING : SRV6_HMAC_PASS));
		else
			CHECK(toff == off);
	}
	/* sign in place (a copy) with the key the TLV names: then it verifies */
	if (koff && koff == off && size <= sizeof(copy)) {
		const struct srv6_hmac_key *k;
		uint32_t id = (uint32_t)srh[koff + 4] << 24 | (uint32_t)srh[koff + 5] << 16 |
			      (uint32_t)srh[koff + 6] << 8 | srh[koff + 7];

		k = srv6_hmac_key_find(&set, id);
		memcpy(copy, data, size);
		sr = srv6_hmac_sign(k, copy + info.srh_off, copy + 8);
		if (!k)
			CHECK(sr == -EINVAL);
		else if (srh[4] + 1 > SRV6_HMAC_MAX_ENTRIES)
			CHECK(sr == -EMSGSIZE);
		else
			CHECK(sr == 0 && srv6_hmac_check(&set, 1, copy + info.srh_off, copy + 8,
							  NULL) == SRV6_HMAC_PASS);
	}
	/* append a TLV to the SRH without its TLVs: it validates, the kernel finds it */
	if (first <= 8 + 16 * 16 && size <= sizeof(copy) - SRV6_HMAC_TLV_LEN) {
		uint8_t *c = copy;

		memcpy(c, srh, first);
		c[1] = (uint8_t)(first / 8 - 1);
		r = srv6_hmac_tlv_append(c, first, first + SRV6_HMAC_TLV_LEN, 7);
		CHECK(r == (int)(first + SRV6_HMAC_TLV_LEN));
		CHECK(srv6_srh_validate(c, (size_t)r, NULL) == SRV6_SRH_OK);
		CHECK(srv6_hmac_tlv_find_kernel(c) == first && srv6_hmac_tlv_find(c) == first);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_parse(data, size);
	if (size > SRV6_IPV6_HLEN)
		fuzz_validate(data + SRV6_IPV6_HLEN, size - SRV6_IPV6_HLEN);
	fuzz_validate(data, size);
	fuzz_icmp(data, size);
	fuzz_build(data, size);
	fuzz_hmac(data, size);
	return 0;
}
