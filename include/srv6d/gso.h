/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gso.h - what srv6d needs to forward GSO super-packets and packets whose
 * L4 checksum is still partial (CHECKSUM_PARTIAL), queued whole with
 * NFQA_CFG_F_GSO (conf `gso on`, docs/DATAPATH.md "GSO").
 *
 * NFQUEUE says only that a packet is GSO (NFQA_SKB_GSO) or that its
 * checksum is not ready (NFQA_SKB_CSUMNOTREADY); not the GSO type, size,
 * csum_start or csum_offset.  These functions find them in the packet:
 *
 *   srv6_l4_parse()     the chain of IP headers (IPv6 with its extension
 *                       headers, IPv6/IPv4 in IPv6/IPv4) down to the L4
 *                       header of the innermost packet, and the address
 *                       that L4's pseudo-header uses (for IPv6 behind an
 *                       SRH: Segment List[0], the final destination,
 *                       RFC 8200 8.1);
 *   srv6_l4_pseudo()    that pseudo-header's folded sum: what a
 *                       CHECKSUM_PARTIAL packet carries in its checksum field;
 *   srv6_csum_complete() finish a partial checksum (skb_checksum_help);
 *   srv6_tcp_segment()  cut a TCP super-packet into segments, each with its
 *                       IP lengths, IPv4 ids and header checksums, TCP
 *                       sequence number, flags and a full TCP checksum;
 *   srv6_gso_mss()      the segment size of a result: what the input link
 *                       allowed the sender, what the output MTU allows.
 *
 * Pure: no I/O, no allocation, every read bounded by the length given.
 */
#ifndef SRV6D_GSO_H
#define SRV6D_GSO_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRV6_L4_MAX_IP 4   /* IP headers in one chain (outer + tunnels) */
/* The smallest TCP payload a segment srv6d makes carries: the kernel's
 * TCP_MIN_SND_MSS (include/net/tcp.h; net.ipv4.tcp_min_snd_mss's default),
 * the smallest segment size its TCP uses or accepts from a peer. */
#define SRV6_GSO_MSS_MIN 48

struct srv6_l4info {
	unsigned int nip;                 /* IP headers, outermost first */
	uint16_t ip_off[SRV6_L4_MAX_IP];  /* offset of each */
	uint8_t ip_ver[SRV6_L4_MAX_IP];   /* 4 or 6 */
	uint8_t l4_proto;                 /* IPPROTO_TCP, IPPROTO_UDP or other */
	uint16_t l4_off;                  /* offset of the L4 header */
	uint16_t l4_hlen;                 /* TCP header with options / 8 for UDP / 0 */
	uint8_t pseudo_dst[16];           /* pseudo-header destination (IPv4: 4 bytes) */
};

/**
 * srv6_l4_parse - walk @p/@len (an IPv6 or IPv4 packet) down to the L4 header
 * of its innermost packet.  Returns 0 with @li filled; -EPROTO when the chain
 * has a fragment header, an IPv4 fragment or options the walk refuses
 * (routing header other than an SRH with segments left, ESP, no next
 * header), more than SRV6_L4_MAX_IP IP headers, or an L4 protocol other than
 * TCP or UDP; -EINVAL when a header is cut short.  Pure.
 */
int srv6_l4_parse(const uint8_t *p, size_t len, struct srv6_l4info *li);

/**
 * srv6_l4_pseudo - the folded (not complemented) sum of the pseudo-header of
 * the L4 header @li found in @p, for an L4 length of @l4len bytes: the
 * value a CHECKSUM_PARTIAL packet keeps in its checksum field (host order).
 * Pure.
 */
uint16_t srv6_l4_pseudo(const uint8_t *p, const struct srv6_l4info *li, size_t l4len);

/** srv6_l4_csum_off - offset of the checksum field in the L4 header (TCP 16, UDP 6).  Pure. */
static inline unsigned int srv6_l4_csum_off(const struct srv6_l4info *li)
{
	return li->l4_proto == IPPROTO_TCP ? 16 : 6;
}

/**
 * srv6_l4_partial_ok - whether the checksum field of @li in @p/@len holds
 * the pseudo-header sum of the whole L4 length (0 and 0xffff being the same
 * ones' complement value): the packet's partial checksum is there.  Pure.
 */
bool srv6_l4_partial_ok(const uint8_t *p, size_t len, const struct srv6_l4info *li);

/**
 * srv6_csum_complete - complete the partial checksum whose sum starts at
 * @start and whose field is at @start + @off, over @p[start, len): as the
 * kernel's skb_checksum_help() (a result of 0 is written 0xffff).  Returns
 * 0 or -EINVAL when the field lies outside.  Pure.
 */
int srv6_csum_complete(uint8_t *p, size_t len, size_t start, size_t off);

/**
 * srv6_tcp_segment - cut the TCP super-packet @p/@len (layout @li from
 * srv6_l4_parse, l4_proto TCP) into segments of at most @mss payload bytes,
 * written back to back into @out (@outcap bytes); @seglen[i] gets the length
 * of segment i (at most @maxsegs).  Each segment carries a copy of every
 * header; IPv6 payload lengths and IPv4 total lengths, ids (+i, as the
 * kernel's GSO) and header checksums are set for it; TCP: sequence number
 * advanced, FIN and PSH kept on the last segment only, CWR on the first
 * only, checksum computed in full (pseudo-header of the innermost IP header,
 * final destination).  The checksum field of @p is not read.  A packet whose
 * payload fits one segment gives one segment.  Returns the number of
 * segments, -EINVAL (@mss 0, bad layout), or -ENOSPC (@out or @maxsegs too
 * small: srv6_tcp_segment_room() says what is needed).  Pure.
 */
int srv6_tcp_segment(const uint8_t *p, size_t len, const struct srv6_l4info *li, size_t mss,
		     uint8_t *out, size_t outcap, size_t *seglen, unsigned int maxsegs);

/** srv6_tcp_segment_room - bytes srv6_tcp_segment() writes for @p's layout and @mss.  Pure. */
size_t srv6_tcp_segment_room(size_t len, const struct srv6_l4info *li, size_t mss,
			     unsigned int *nsegs);

/**
 * srv6_gso_mss - the TCP payload per segment of a super-packet's result:
 * @in_room (what the input side allows: its link MTU less the input's
 * headers through the TCP options), or less when the output MTU @out_mtu
 * less the result's headers @out_hl is smaller (an encapsulation, an
 * inserted SRH).  0 (no segment can be made that fits) when @out_mtu does
 * not exceed @out_hl (0: not known) or the size would be under
 * SRV6_GSO_MSS_MIN.  Pure.
 */
size_t srv6_gso_mss(size_t in_room, unsigned int out_mtu, size_t out_hl);

#endif
