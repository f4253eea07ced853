// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gso.c - L4 layout, partial checksums and TCP segmentation for GSO
 * super-packets.  See include/srv6d/gso.h.  Pure code over byte buffers.
 */
#include <errno.h>
#include <string.h>

#include "srv6d/gso.h"

#define NH_HOPOPTS  0
#define NH_IPIP     4
#define NH_TCP      6
#define NH_UDP      17
#define NH_IPV6     41
#define NH_ROUTING  43
#define NH_FRAGMENT 44
#define NH_DSTOPTS  60
#define SRH_TYPE    4
#define MAX_EXT     8

/* Ones' complement sum of @n bytes at @b added to @sum (big-endian words;
 * an odd last byte is the high half of a word). */
static uint64_t sum_bytes(uint64_t sum, const uint8_t *b, size_t n)
{
	size_t i = 0;

	for (; i + 1 < n; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (i < n)
		sum += (uint32_t)b[i] << 8;
	return sum;
}

static uint16_t fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint16_t rd16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static void wr16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* One IPv6 header at @off and its extension headers: *@nh and *@next get
 * the upper-layer protocol and its offset; the pseudo destination is set. */
static int walk6(const uint8_t *p, size_t len, size_t off, struct srv6_l4info *li,
		 uint8_t *nh, size_t *next)
{
	uint8_t h;

	if (len - off < 40)
		return -EINVAL;
	memcpy(li->pseudo_dst, p + off + 24, 16);
	h = p[off + 6];
	off += 40;
	for (int i = 0; i < MAX_EXT; i++) {
		size_t hl;

		if (h != NH_HOPOPTS && h != NH_ROUTING && h != NH_DSTOPTS) {
			if (h == NH_FRAGMENT)
				return -EPROTO;
			*nh = h;
			*next = off;
			return 0;
		}
		if (len - off < 8)
			return -EINVAL;
		hl = ((size_t)p[off + 1] + 1) * 8;
		if (len - off < hl)
			return -EINVAL;
		if (h == NH_ROUTING) {
			if (p[off + 2] == SRH_TYPE) {
				/* RFC 8200 8.1: the final destination,
				 * Segment List[0] (RFC 8754). */
				if (hl >= 24)
					memcpy(li->pseudo_dst, p + off + 8, 16);
			} else if (p[off + 3] != 0) {
				return -EPROTO;
			}
		}
		h = p[off];
		off += hl;
	}
	return -EPROTO;
}

int srv6_l4_parse(const uint8_t *p, size_t len, struct srv6_l4info *li)
{
	size_t off = 0;
	uint8_t nh;

	memset(li, 0, sizeof(*li));
	for (;;) {
		size_t next;
		int r;

		if (li->nip == SRV6_L4_MAX_IP || len - off < 1)
			return len - off < 1 ? -EINVAL : -EPROTO;
		li->ip_off[li->nip] = (uint16_t)off;
		if (p[off] >> 4 == 6) {
			li->ip_ver[li->nip++] = 6;
			r = walk6(p, len, off, li, &nh, &next);
			if (r < 0)
				return r;
		} else if (p[off] >> 4 == 4) {
			size_t ihl = (size_t)(p[off] & 0xf) * 4;

			li->ip_ver[li->nip++] = 4;
			if (len - off < 20 || ihl < 20 || len - off < ihl)
				return -EINVAL;
			/* MF or a fragment offset: not one whole packet */
			if (rd16(p + off + 6) & 0x3fff)
				return -EPROTO;
			memcpy(li->pseudo_dst, p + off + 16, 4);
			nh = p[off + 9];
			next = off + ihl;
		} else {
			return -EPROTO;
		}
		if (next > 0xffff)
			return -EINVAL;
		off = next;
		if (nh == NH_IPV6 || nh == NH_IPIP)
			continue;
		break;
	}
	li->l4_proto = nh;
	li->l4_off = (uint16_t)off;
	if (nh == NH_TCP) {
		size_t doff;

		if (len - off < 20)
			return -EINVAL;
		doff = (size_t)(p[off + 12] >> 4) * 4;
		if (doff < 20 || len - off < doff)
			return -EINVAL;
		li->l4_hlen = (uint16_t)doff;
		return 0;
	}
	if (nh == NH_UDP) {
		if (len - off < 8)
			return -EINVAL;
		li->l4_hlen = 8;
		return 0;
	}
	return -EPROTO;
}

uint16_t srv6_l4_pseudo(const uint8_t *p, const struct srv6_l4info *li, size_t l4len)
{
	const uint8_t *ip = p + li->ip_off[li->nip - 1];
	uint64_t s = 0;

	if (li->ip_ver[li->nip - 1] == 6) {
		s = sum_bytes(s, ip + 8, 16);
		s = sum_bytes(s, li->pseudo_dst, 16);
		s += (uint32_t)(l4len >> 16) + (uint32_t)(l4len & 0xffff);
	} else {
		s = sum_bytes(s, ip + 12, 4);
		s = sum_bytes(s, li->pseudo_dst, 4);
		s += (uint32_t)l4len;
	}
	s += li->l4_proto;
	return fold(s);
}

bool srv6_l4_partial_ok(const uint8_t *p, size_t len, const struct srv6_l4info *li)
{
	uint16_t want = srv6_l4_pseudo(p, li, len - li->l4_off);
	uint16_t have = rd16(p + li->l4_off + srv6_l4_csum_off(li));

	if (want == 0xffff)
		want = 0;
	if (have == 0xffff)
		have = 0;
	return want == have;
}

int srv6_csum_complete(uint8_t *p, size_t len, size_t start, size_t off)
{
	uint16_t c;

	if (start > len || off > len - start || len - start - off < 2)
		return -EINVAL;
	c = (uint16_t)~fold(sum_bytes(0, p + start, len - start));
	wr16(p + start + off, c ? c : 0xffff);
	return 0;
}

size_t srv6_tcp_segment_room(size_t len, const struct srv6_l4info *li, size_t mss,
			     unsigned int *nsegs)
{
	size_t hl = (size_t)li->l4_off + li->l4_hlen;
	size_t pay = len > hl ? len - hl : 0;
	size_t n = mss ? (pay + mss - 1) / mss : 0;

	if (n == 0)
		n = 1;
	if (nsegs)
		*nsegs = n > 0xffffffffu ? 0xffffffffu : (unsigned int)n;
	return n * hl + pay;
}

int srv6_tcp_segment(const uint8_t *p, size_t len, const struct srv6_l4info *li, size_t mss,
		     uint8_t *out, size_t outcap, size_t *seglen, unsigned int maxsegs)
{
	size_t hl = (size_t)li->l4_off + li->l4_hlen, pay, done = 0, used = 0;
	unsigned int n, i;
	uint32_t seq;
	uint8_t flags;

	if (!mss || li->l4_proto != NH_TCP || li->nip == 0 || hl > len)
		return -EINVAL;
	if (srv6_tcp_segment_room(len, li, mss, &n) > outcap || n > maxsegs)
		return -ENOSPC;
	pay = len - hl;
	seq = (uint32_t)p[li->l4_off + 4] << 24 | (uint32_t)p[li->l4_off + 5] << 16 |
	      (uint32_t)p[li->l4_off + 6] << 8 | p[li->l4_off + 7];
	flags = p[li->l4_off + 13];
	for (i = 0; i < n; i++) {
		size_t chunk = pay - done < mss ? pay - done : mss;
		size_t sl = hl + chunk;
		uint8_t *s = out + used, *th = s + li->l4_off;
		uint32_t sq = seq + (uint32_t)done;
		uint8_t f = flags;

		memcpy(s, p, hl);
		memcpy(s + hl, p + hl + done, chunk);
		for (unsigned int k = 0; k < li->nip; k++) {
			uint8_t *ip = s + li->ip_off[k];

			if (li->ip_ver[k] == 6) {
				wr16(ip + 4, (uint16_t)(sl - li->ip_off[k] - 40));
			} else {
				size_t ihl = (size_t)(ip[0] & 0xf) * 4;

				wr16(ip + 2, (uint16_t)(sl - li->ip_off[k]));
				wr16(ip + 4, (uint16_t)(rd16(ip + 4) + i));
				wr16(ip + 10, 0);
				wr16(ip + 10, (uint16_t)~fold(sum_bytes(0, ip, ihl)));
			}
		}
		th[4] = (uint8_t)(sq >> 24);
		th[5] = (uint8_t)(sq >> 16);
		th[6] = (uint8_t)(sq >> 8);
		th[7] = (uint8_t)sq;
		if (i + 1 < n)
			f &= (uint8_t)~0x09;   /* FIN, PSH: last segment only */
		if (i > 0)
			f &= (uint8_t)~0x80;   /* CWR: first segment only */
		th[13] = f;
		wr16(th + 16, srv6_l4_pseudo(s, li, sl - li->l4_off));
		wr16(th + 16, (uint16_t)~fold(sum_bytes(0, th, sl - li->l4_off)));
		seglen[i] = sl;
		used += sl;
		done += chunk;
	}
	return (int)n;
}

size_t srv6_gso_mss(size_t in_room, unsigned int out_mtu, size_t out_hl)
{
	size_t mss = in_room;

	if (out_mtu <= out_hl)
		return 0;
	if (out_mtu - out_hl < mss)
		mss = out_mtu - out_hl;
	return mss < SRV6_GSO_MSS_MIN ? 0 : mss;
}
