// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_gso.c - libFuzzer target for src/core/gso.c: srv6_l4_parse() on the
 * input (after two bytes of segment size), then on a parsed TCP packet
 * srv6_csum_complete() and srv6_tcp_segment().  Checks, any failure aborts:
 *   - a parsed L4 header lies inside the packet;
 *   - a completed partial checksum is no longer the pseudo-header sum
 *     unless the data sums to zero (not checked: rare), and stays in place;
 *   - segmentation writes exactly srv6_tcp_segment_room() bytes, every
 *     segment parses to the same L4 offset, carries at most mss payload
 *     bytes, and the payloads put together are the original's.
 */
#include <stdlib.h>
#include <string.h>

#include "srv6d/gso.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static uint8_t out[1 << 18], copy[1 << 17];
static size_t seglen[512];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srv6_l4info li, sli;
	size_t mss, hl, room, off = 0, done = 0;
	unsigned int want;
	int n;

	if (size < 2 || size - 2 > sizeof(copy))
		return 0;
	mss = (size_t)(data[0] << 8 | data[1]);
	data += 2;
	size -= 2;
	if (srv6_l4_parse(data, size, &li) < 0)
		return 0;
	hl = (size_t)li.l4_off + li.l4_hlen;
	CHECK(li.nip >= 1 && li.nip <= SRV6_L4_MAX_IP && hl <= size);
	(void)srv6_l4_partial_ok(data, size, &li);
	memcpy(copy, data, size);
	CHECK(srv6_csum_complete(copy, size, li.l4_off, srv6_l4_csum_off(&li)) == 0);
	CHECK(!memcmp(copy, data, li.l4_off));
	if (li.l4_proto != IPPROTO_TCP)
		return 0;
	room = srv6_tcp_segment_room(size, &li, mss, &want);
	n = srv6_tcp_segment(data, size, &li, mss, out, sizeof(out), seglen, 512);
	if (!mss) {
		CHECK(n < 0);
		return 0;
	}
	if (room > sizeof(out) || want > 512) {
		CHECK(n < 0);
		return 0;
	}
	CHECK(n == (int)want);
	for (int i = 0; i < n; i++) {
		CHECK(seglen[i] >= hl && seglen[i] - hl <= mss);
		CHECK(srv6_l4_parse(out + off, seglen[i], &sli) == 0);
		CHECK(sli.l4_off == li.l4_off && sli.nip == li.nip);
		CHECK(!memcmp(out + off + hl, data + hl + done, seglen[i] - hl));
		done += seglen[i] - hl;
		off += seglen[i];
	}
	CHECK(done == size - hl && off == room);
	return 0;
}
