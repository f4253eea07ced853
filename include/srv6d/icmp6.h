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
 */
int srv6_icmp6_build(const struct srv6_icmp *icmp, const uint8_t *orig,
		     size_t len, uint8_t *out, size_t cap,
		     struct in6_addr *src, struct in6_addr *dst);

#endif
