// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * srh.c - locate, validate and build the IPv6 Segment Routing Header
 * (RFC 8754).  Pure code over byte buffers: every read is bounded by the
 * length the caller passed, nothing is allocated, nothing is global.
 */
#include <errno.h>
#include <string.h>

#include "srv6d/srh.h"

/* IPv6 extension headers the chain walk knows (RFC 8200 §4). */
#define NH_HOPOPTS   0
#define NH_ROUTING   43
#define NH_FRAGMENT  44
#define NH_DSTOPTS   60

/* At most this many extension headers before the upper layer. */
#define SRV6_MAX_EXTHDRS 8

/* Offsets of SRH fields, for Parameter Problem pointers. */
#define SRH_OFF_HDRLEN   1
#define SRH_OFF_TYPE     2
#define SRH_OFF_SL       3

static size_t srh_bytes(const uint8_t *srh)
{
	return ((size_t)srh[1] + 1) * 8;
}

int srv6_srh_validate(const uint8_t *srh, size_t len, size_t *err_field)
{
	size_t dummy, hlen, off;
	unsigned int le, sl, max_le;

	if (!err_field)
		err_field = &dummy;
	*err_field = 0;

	if (len < SRV6_SRH_FIXED) {
		*err_field = len >= 2 ? SRH_OFF_HDRLEN : 0;
		return SRV6_SRH_ERR_TRUNC;
	}
	if (srh[2] != SRV6_ROUTING_TYPE) {
		*err_field = SRH_OFF_TYPE;
		return SRV6_SRH_ERR_TYPE;
	}
	hlen = srh_bytes(srh);
	if (hlen > len) {
		*err_field = SRH_OFF_HDRLEN;
		return SRV6_SRH_ERR_TRUNC;
	}
	/* An SRH carries at least one segment (hdrlen >= 2). */
	if (srh[1] < 2) {
		*err_field = SRH_OFF_HDRLEN;
		return SRV6_SRH_ERR_LEN;
	}

	/*
	 * RFC 8754 §4.3.1.1 S09-S14: both checks point at Segments Left.
	 * LE <= max_LE is the same condition as "the segment list fits in
	 * hdrlen": 8 + 16 * (LE + 1) <= (hdrlen + 1) * 8.
	 */
	sl = srh[3];
	le = srh[4];
	max_le = srh[1] / 2u - 1;
	if (le > max_le) {
		*err_field = SRH_OFF_SL;
		return SRV6_SRH_ERR_LE;
	}
	if (sl > le + 1) {
		*err_field = SRH_OFF_SL;
		return SRV6_SRH_ERR_SL;
	}

	/* TLVs fill the rest of the SRH exactly. */
	off = SRV6_SRH_FIXED + ((size_t)le + 1) * 16;
	while (off < hlen) {
		if (srh[off] == SRV6_TLV_PAD1) {   /* RFC 8754 §2.1.1.1 */
			off++;
			continue;
		}
		if (hlen - off < 2) {
			*err_field = off;
			return SRV6_SRH_ERR_TLV;
		}
		/* PadN, HMAC (5) and unknown TLVs: skipped by length. */
		if ((size_t)srh[off + 1] + 2 > hlen - off) {
			*err_field = off + 1;
			return SRV6_SRH_ERR_TLV;
		}
		off += (size_t)srh[off + 1] + 2;
	}
	return SRV6_SRH_OK;
}

/* Fill @info for an error at @ptr and return @err. */
static int parse_fail(struct srv6_ip6_info *info, int err, size_t ptr)
{
	info->err_ptr = ptr;
	return err;
}

int srv6_ip6_parse(const uint8_t *pkt, size_t len, struct srv6_ip6_info *info)
{
	size_t limit, off, nh_off, hlen, field;
	unsigned int plen, nexthdrs = 0;
	uint8_t nh;
	int err;

	memset(info, 0, sizeof(*info));
	if (len < SRV6_IPV6_HLEN)
		return parse_fail(info, SRV6_SRH_ERR_TRUNC, 0);
	if ((pkt[0] >> 4) != 6)
		return parse_fail(info, SRV6_SRH_ERR_CHAIN, 0);

	/*
	 * Bytes past the Payload Length are link trailer the caller may trim.
	 * Payload Length 0 with a hop-by-hop header is a jumbogram (RFC 2675)
	 * or BIG TCP: the buffer length is then authoritative.
	 */
	plen = (unsigned int)pkt[4] << 8 | pkt[5];
	if (plen == 0 && pkt[6] == NH_HOPOPTS) {
		limit = len;
	} else {
		if ((size_t)plen + SRV6_IPV6_HLEN > len)
			return parse_fail(info, SRV6_SRH_ERR_TRUNC, 4);
		limit = (size_t)plen + SRV6_IPV6_HLEN;
	}

	nh = pkt[6];
	nh_off = 6;
	off = SRV6_IPV6_HLEN;
	for (;;) {
		if (nh != NH_HOPOPTS && nh != NH_DSTOPTS && nh != NH_ROUTING &&
		    nh != NH_FRAGMENT)
			break;          /* upper layer (or AH, ESP, No Next) */
		if (nh == NH_HOPOPTS && off != SRV6_IPV6_HLEN)
			return parse_fail(info, SRV6_SRH_ERR_CHAIN, nh_off);
		if (++nexthdrs > SRV6_MAX_EXTHDRS)
			return parse_fail(info, SRV6_SRH_ERR_CHAIN, nh_off);

		if (nh == NH_FRAGMENT) {
			if (limit - off < 8)
				return parse_fail(info, SRV6_SRH_ERR_TRUNC, off);
			/*
			 * Only an atomic fragment (offset 0, M clear, RFC 6946)
			 * shows its whole upper layer; otherwise the walk
			 * stops here and upper_proto is 44.
			 */
			if ((pkt[off + 2] << 8 | pkt[off + 3]) != 0)
				break;
			nh_off = off;
			nh = pkt[off];
			off += 8;
			continue;
		}

		/* Routing needs its first 4 octets, options their first 2. */
		if (limit - off < (nh == NH_ROUTING ? 4u : 2u))
			return parse_fail(info, SRV6_SRH_ERR_TRUNC, off);
		hlen = srh_bytes(pkt + off);
		if (nh == NH_ROUTING && !info->has_srh &&
		    pkt[off + 2] == SRV6_ROUTING_TYPE) {
			err = srv6_srh_validate(pkt + off, limit - off, &field);
			if (err)
				return parse_fail(info, err, off + field);
			info->has_srh = true;
			info->srh_off = off;
			info->srh_len = hlen;
			info->nh_byte_off = nh_off;
		} else if (hlen > limit - off) {
			return parse_fail(info, SRV6_SRH_ERR_TRUNC, off + 1);
		}
		nh_off = off;
		nh = pkt[off];
		off += hlen;
	}
	info->upper_off = off;
	info->upper_proto = nh;
	return SRV6_SRH_OK;
}

int srv6_srh_pad(uint8_t *p, size_t n)
{
	if (n >= 8)
		return -EINVAL;
	if (n == 0)
		return 0;
	memset(p, 0, n);
	if (n == 1) {
		p[0] = SRV6_TLV_PAD1;
		return 0;
	}
	p[0] = SRV6_TLV_PADN;
	p[1] = (uint8_t)(n - 2);
	return 0;
}

int srv6_srh_build(uint8_t *out, size_t cap, const struct in6_addr *segs,
		   unsigned int nsegs, bool reduced, bool inline_slot,
		   uint8_t nexthdr)
{
	unsigned int full, entries, i;
	size_t seglen, total;

	if (!out || !segs || nsegs == 0 || nsegs > SRV6_MAX_SEGS)
		return -EINVAL;

	/* The full list in travel order, plus the inline slot at the end. */
	full = nsegs + (inline_slot ? 1 : 0);
	entries = full - (reduced ? 1 : 0);
	if (entries == 0)
		return 0;       /* .Red with one SID: no SRH at all */

	seglen = SRV6_SRH_FIXED + (size_t)entries * 16;
	total = (seglen + 7) & ~(size_t)7;  /* always == seglen today */
	if (cap < total)
		return -ENOSPC;

	memset(out, 0, total);
	out[0] = nexthdr;
	out[1] = (uint8_t)(total / 8 - 1);
	out[2] = SRV6_ROUTING_TYPE;
	out[3] = (uint8_t)(full - 1);      /* DA = segs[0] */
	out[4] = (uint8_t)(entries - 1);
	/* flags and tag stay 0, as iproute2 builds them without hmac */

	/*
	 * Stored reversed: segments[full - 1] = segs[0] (the kernel reads the
	 * first segment at segments[first_segment]).  A reduced SRH drops
	 * segments[full - 1]; the inline slot is segments[0].
	 */
	for (i = reduced ? 1 : 0; i < nsegs; i++)
		memcpy(out + SRV6_SRH_FIXED + (size_t)(full - 1 - i) * 16,
		       &segs[i], 16);
	if (total > seglen)
		srv6_srh_pad(out + seglen, total - seglen);
	return (int)total;
}
