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
 *
 * Details (the contract the engine relies on):
 * - version != 6 is SRV6_SRH_ERR_CHAIN (err_ptr 0); len < 40 or
 *   40 + Payload Length > len is SRV6_SRH_ERR_TRUNC (err_ptr 0 / 4).  Bytes
 *   past 40 + Payload Length are trailer: ignored (the caller may trim them).
 *   Payload Length 0 with a hop-by-hop header (jumbogram, BIG TCP) uses @len.
 * - The SRH is the first routing header of type 4; a routing header of
 *   another type (and any later routing header) is skipped by its length.
 * - Hop-by-hop anywhere but first, or more than 8 extension headers, is
 *   SRV6_SRH_ERR_CHAIN with err_ptr at the Next Header byte naming it.
 * - upper_off/upper_proto: the walk continues past the SRH through further
 *   extension headers (e.g. destination options after the SRH), so
 *   upper_proto is the upper layer (41, 4, 58, 143, 6, 17, ...) as the
 *   kernel's ipv6_find_hdr() finds it for decapsulation.  It stops at a
 *   Fragment header that is not an atomic fragment (upper_proto 44: the upper
 *   layer needs reassembly), and at AH/ESP/No Next Header.
 * - An SRH error sets err_ptr = srh_off + the field srv6_srh_validate()
 *   named, i.e. the ICMPv6 Parameter Problem pointer.
 */
int srv6_ip6_parse(const uint8_t *pkt, size_t len, struct srv6_ip6_info *info);

/**
 * srv6_srh_validate - validate one SRH of @len available bytes, in the order
 * of the kernel's seg6_validate_srh(): type, hdrlen vs last_entry, max_LE,
 * Segments Left <= Last Entry + 1, TLV walk.  Returns SRV6_SRH_OK or an enum
 * srv6_srh_err; on error *@err_field (may be NULL) is the offset within the
 * SRH of the offending field:
 *   SRV6_SRH_ERR_TRUNC  1 (Hdr Ext Len claims more than @len; 0 if @len < 2)
 *   SRV6_SRH_ERR_TYPE   2
 *   SRV6_SRH_ERR_LEN    1 (hdrlen < 2: no room for a single segment)
 *   SRV6_SRH_ERR_LE     3 \ RFC 8754 §4.3.1.1 S09-S14: both point at
 *   SRV6_SRH_ERR_SL     3 / Segments Left (Parameter Problem code 0)
 *   SRV6_SRH_ERR_TLV    the TLV's type byte (no room for type+length) or
 *                       its length byte (value overruns the SRH)
 * Segments Left == Last Entry + 1 is valid (a reduced SRH, RFC 8986 §5.2),
 * as with the kernel's seg6_validate_srh(..., reduced = true) used on input.
 * Pad1 is one octet (RFC 8754 §2.1.1.1; the kernel treats it as type+len,
 * a deliberate difference); PadN, HMAC (5) and unknown TLVs are skipped by
 * their length; TLVs must end exactly at the end of the SRH.  Only
 * (hdrlen + 1) * 8 bytes are read; bytes after the SRH are ignored.  Pure.
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
 * Bytes equal iproute2's parse_srh() + the kernel's seg6_do_srh_encap/_red/
 * _inline (without HMAC): full list of F = nsegs (+1 with the slot) entries,
 * SL = LE = F - 1, segments[F - 1 - i] = segs[i]; reduced: segments[F - 1]
 * dropped, LE = F - 2, SL = F - 1 (= LE + 1).  flags = tag = 0.
 * Returns the SRH length in bytes (> 0), 0 when @reduced leaves no segment
 * to carry (one SID, no slot: the kernel then omits the SRH, as RFC 8986
 * §5.2 allows), -EINVAL (@nsegs 0 or > SRV6_MAX_SEGS) or -ENOSPC.  Pure.
 */
int srv6_srh_build(uint8_t *out, size_t cap, const struct in6_addr *segs,
		   unsigned int nsegs, bool reduced, bool inline_slot,
		   uint8_t nexthdr);

/**
 * srv6_srh_pad - write @n (0..7) octets of SRH padding at @p: nothing, Pad1,
 * or PadN with zero data (RFC 8754 §2.1.1).  Returns 0 or -EINVAL (n >= 8).
 * Pure.
 */
int srv6_srh_pad(uint8_t *p, size_t n);

#endif
