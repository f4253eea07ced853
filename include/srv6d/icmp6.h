/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icmp6.h - build the ICMPv6 messages the engine asks for (RFC 4443):
 * Parameter Problem, Time Exceeded, Destination Unreachable, Echo Reply.
 * Pure code; the datapath sends the result on a raw socket.
 */
#ifndef SRV6D_ICMP6_H
#define SRV6D_ICMP6_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "seg6.h"

/* RFC 4443 §2.4(c): an error message must fit the minimum MTU. */
#define SRV6_ICMP6_MAX 1280

/**
 * srv6_icmp6_build - build the ICMPv6 message answering the invoking IPv6
 * packet @orig (@len bytes) as @icmp asks.  Errors quote as much of @orig as
 * fits 1280 bytes with the IPv6 header; Echo Reply copies the request's
 * identifier, sequence and data.  Writes the ICMPv6 header and body (checksum
 * left 0: the raw socket computes it) to @out, and the addresses to use in
 * @src (the address the packet was sent to) and @dst (its source).
 * Returns the message length or -EINVAL (not answerable: e.g. @orig is itself
 * an ICMPv6 error, or its source is multicast/unspecified, RFC 4443 §2.4(e)).
 *
 * Details: @icmp->type is 1 (Destination Unreachable), 2 (Packet Too Big,
 * @icmp->pointer is the MTU), 3 (Time Exceeded), 4 (Parameter Problem,
 * @icmp->pointer is the pointer) or 129 (Echo Reply); anything else is
 * -EINVAL.  Bytes past 40 + Payload Length are trailer and never quoted or
 * echoed.  Errors quote min(packet, 1280 - 48, @cap - 8) bytes; they are
 * refused (-EINVAL) for an ICMPv6 error or Redirect (found behind any
 * extension headers, SRH valid or not, as the kernel's is_ineligible()), and
 * for a multicast destination except Packet Too Big and Parameter Problem
 * code 2 (RFC 4443 §2.4(e.3)).  Echo Reply needs an unfragmented Echo Request
 * (type 128 code 0) to a unicast destination as the upper layer, behind any
 * extension headers.  -ENOSPC when @cap cannot hold the ICMPv6 header (errors)
 * or the whole reply (echo).  @src/@dst may be NULL.  Pure.
 */
int srv6_icmp6_build(const struct srv6_icmp *icmp, const uint8_t *orig,
		     size_t len, uint8_t *out, size_t cap,
		     struct in6_addr *src, struct in6_addr *dst);

/**
 * srv6_icmp6_csum - the ICMPv6 checksum (RFC 4443 §2.3) of the @len-byte
 * message @msg sent from @src to @dst, pseudo-header included, in host order
 * (store it as out[2] = v >> 8, out[3] = v & 0xff).  Compute it over a
 * message whose checksum field is 0; over a message carrying a correct
 * checksum it returns 0.  For tests and for senders without a raw ICMPv6
 * socket.  Pure.
 */
uint16_t srv6_icmp6_csum(const struct in6_addr *src,
			 const struct in6_addr *dst, const uint8_t *msg,
			 size_t len);

#endif
