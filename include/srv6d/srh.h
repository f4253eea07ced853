/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srh.h - IPv6 Segment Routing Header (RFC 8754): locate, validate, build.
 *
 * Pure code: no I/O, no globals, safe from any thread.  Every function takes
 * bytes and lengths and never reads outside them (fuzzed).
 */
#ifndef SRV6D_SRH_H
#define SRV6D_SRH_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRV6_IPV6_HLEN     40
#define SRV6_SRH_FIXED     8      /* SRH without segments */
#define SRV6_ROUTING_TYPE  4
#define SRV6_MAX_SEGS      16     /* segments in a configured list */

/* SRH TLV types (RFC 8754 §2.1) */
#define SRV6_TLV_PAD1      0
#define SRV6_TLV_PADN      4
#define SRV6_TLV_HMAC      5

/* Wire layout of the SRH; segments[] follow (network order, reversed). */
struct srv6_srh {
	uint8_t nexthdr;
	uint8_t hdrlen;      /* 8-octet units, not counting the first 8 */
	uint8_t type;        /* 4 */
	uint8_t segments_left;
	uint8_t last_entry;  /* "first_segment" in the kernel */
	uint8_t flags;
	uint16_t tag;
	struct in6_addr segments[];
};

/* Why an SRH (or the IPv6 chain in front of it) is rejected. */
enum srv6_srh_err {
	SRV6_SRH_OK = 0,
	SRV6_SRH_ERR_TRUNC,        /* packet shorter than a header claims */
	SRV6_SRH_ERR_TYPE,         /* routing type != 4 */
	SRV6_SRH_ERR_LEN,          /* hdrlen odd/too small for last_entry */
	SRV6_SRH_ERR_LE,           /* Last Entry > max_LE */
	SRV6_SRH_ERR_SL,           /* Segments Left > Last Entry + 1 */
	SRV6_SRH_ERR_TLV,          /* TLV overruns the SRH */
	SRV6_SRH_ERR_CHAIN,        /* extension header chain malformed/too long */
	SRV6_SRH_ERR_MAX,
};

/**
 * struct srv6_ip6_info - where things are in an IPv6 packet.
 * Offsets are from the start of the IPv6 header.
 */
struct srv6_ip6_info {
	bool has_srh;
	size_t srh_off;        /* offset of the SRH (valid if has_srh) */
	size_t srh_len;        /* (hdrlen + 1) * 8 */
	size_t nh_byte_off;    /* offset of the Next Header byte that names the SRH */
	size_t upper_off;      /* offset of the first header after the SRH (or
				  after the last extension header when !has_srh) */
	uint8_t upper_proto;   /* protocol number at upper_off */
	size_t err_ptr;        /* on error: offset of the offending field, for
				  ICMPv6 Parameter Problem pointers */
};

/**
 * srv6_ip6_parse - walk the IPv6 header chain (hop-by-hop, destination
 * options, routing, fragment) of @pkt, find the SRH and validate it with
 * srv6_srh_validate().  @len is the bytes available at @pkt.
 * Returns SRV6_SRH_OK (0) and fills @info, or an enum srv6_srh_err with
 * info->err_ptr pointing at the offending field.  A packet with no SRH is OK
 * with has_srh = false.  Pure.
 */
int srv6_ip6_parse(const uint8_t *pkt, size_t len, struct srv6_ip6_info *info);

/**
 * srv6_srh_validate - validate one SRH of @len available bytes, in the order
 * of the kernel's seg6_validate_srh(): type, hdrlen vs last_entry, max_LE,
 * Segments Left <= Last Entry + 1, TLV walk.  On error *@err_field is the
 * offset within the SRH of the offending field (3 = Segments Left, 4 = Last
 * Entry, 1 = Hdr Ext Len, 2 = type, TLV offset).  Pure.
 */
int srv6_srh_validate(const uint8_t *srh, size_t len, size_t *err_field);

/**
 * srv6_srh_build - write an SRH carrying @nsegs segments, given in travel order
 * (segs[0] is visited first), into @out (@cap bytes).
 * @reduced: omit the first segment (RFC 8986 .Red); @inline_slot: reserve
 * segments[0] for the original destination (H.Insert / kernel inline mode;
 * left as :: for the caller to fill).  The SRH is padded to 8 octets with a
 * PadN TLV when needed.  Segments Left and Last Entry are set for a packet
 * whose DA is segs[0].
 * Returns the SRH length in bytes (> 0) or -EINVAL / -ENOSPC.  Pure.
 */
int srv6_srh_build(uint8_t *out, size_t cap, const struct in6_addr *segs,
		   unsigned int nsegs, bool reduced, bool inline_slot,
		   uint8_t nexthdr);

#endif
