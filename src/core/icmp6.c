// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * icmp6.c - build the ICMPv6 messages the packet engine answers with
 * (RFC 4443): errors quoting the invoking packet, and Echo Reply.
 * Pure code over byte buffers.
 */
#include <errno.h>
#include <string.h>

#include "srv6d/icmp6.h"
#include "srv6d/srh.h"

#define ICMP6_HLEN        8
#define NH_HOPOPTS        0
#define NH_ROUTING        43
#define NH_FRAGMENT       44
#define NH_ICMPV6         58
#define NH_DSTOPTS        60
#define MAX_EXTHDRS       8

/* Where the upper layer of @pkt starts, whatever its SRH says. */
struct upper {
	bool found;        /* walked the whole chain within the packet */
	size_t off;
	uint8_t proto;
	uint16_t frag_off; /* fragment offset + M bit of a Fragment header */
	bool fragment;     /* a Fragment header was seen */
};

/*
 * Walk the extension header chain of @pkt tolerantly, as the kernel's
 * ipv6_skip_exthdr() does: no SRH validation (an error must be answerable
 * even when the SRH is what is wrong), bounded by @len and MAX_EXTHDRS.
 */
static void find_upper(const uint8_t *pkt, size_t len, struct upper *u)
{
	size_t off = SRV6_IPV6_HLEN;
	uint8_t nh = pkt[6];
	unsigned int n;

	memset(u, 0, sizeof(*u));
	for (n = 0; n <= MAX_EXTHDRS; n++) {
		if (nh != NH_HOPOPTS && nh != NH_ROUTING &&
		    nh != NH_FRAGMENT && nh != NH_DSTOPTS) {
			u->found = true;
			u->off = off;
			u->proto = nh;
			return;
		}
		if (len - off < 8)
			return;
		if (nh == NH_FRAGMENT) {
			u->fragment = true;
			u->frag_off = (uint16_t)(pkt[off + 2] << 8 | pkt[off + 3]);
			nh = pkt[off];
			off += 8;
			if (u->frag_off & 0xfff8) {
				/* not the first fragment: no upper header */
				u->off = off;
				u->proto = nh;
				return;
			}
			continue;
		}
		if (((size_t)pkt[off + 1] + 1) * 8 > len - off)
			return;
		nh = pkt[off];
		off += ((size_t)pkt[off + 1] + 1) * 8;
	}
}

static bool addr_is_multicast(const uint8_t *a)
{
	return a[0] == 0xff;
}

static bool addr_is_unspecified(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

static bool type_is_error(uint8_t type)
{
	return type < 128;
}

/* RFC 4443 §2.4(e.1, e.2): is the invoking packet an ICMPv6 error/redirect? */
static bool is_ineligible(const uint8_t *pkt, size_t len)
{
	struct upper u;
	uint8_t type;

	find_upper(pkt, len, &u);
	if (u.proto != NH_ICMPV6 || (!u.found && !u.fragment))
		return false;
	if (u.fragment && (u.frag_off & 0xfff8))
		return false;   /* non-first fragment: header not visible */
	if (u.off >= len)
		return true;    /* ICMPv6 whose type we cannot read */
	type = pkt[u.off];
	return type_is_error(type) || type == 137;
}

static int build_echo_reply(const uint8_t *orig, size_t len, uint8_t *out,
			    size_t cap)
{
	struct upper u;
	size_t n;

	find_upper(orig, len, &u);
	if (!u.found || u.proto != NH_ICMPV6 || u.fragment ||
	    len - u.off < ICMP6_HLEN || orig[u.off] != 128 ||
	    orig[u.off + 1] != 0)
		return -EINVAL;
	n = len - u.off;
	if (n > cap)
		return -ENOSPC;
	memcpy(out, orig + u.off, n);   /* identifier, sequence, data */
	out[0] = 129;
	out[1] = 0;
	out[2] = out[3] = 0;
	return (int)n;
}

static int build_error(const struct srv6_icmp *icmp, const uint8_t *orig,
		       size_t len, uint8_t *out, size_t cap)
{
	size_t quote;

	if (cap < ICMP6_HLEN)
		return -ENOSPC;
	if (is_ineligible(orig, len))
		return -EINVAL;
	/* RFC 4443 §2.4(e.3): no error to a multicast destination, except
	 * Packet Too Big and Parameter Problem code 2. */
	if (addr_is_multicast(orig + 24) && icmp->type != 2 &&
	    !(icmp->type == 4 && icmp->code == 2))
		return -EINVAL;

	quote = len;
	if (quote > SRV6_ICMP6_MAX - SRV6_IPV6_HLEN - ICMP6_HLEN)
		quote = SRV6_ICMP6_MAX - SRV6_IPV6_HLEN - ICMP6_HLEN;
	if (quote > cap - ICMP6_HLEN)
		quote = cap - ICMP6_HLEN;

	out[0] = icmp->type;
	out[1] = icmp->code;
	out[2] = out[3] = 0;
	/* Pointer (4), MTU (2), or unused (1, 3) */
	if (icmp->type == 4 || icmp->type == 2) {
		out[4] = (uint8_t)(icmp->pointer >> 24);
		out[5] = (uint8_t)(icmp->pointer >> 16);
		out[6] = (uint8_t)(icmp->pointer >> 8);
		out[7] = (uint8_t)icmp->pointer;
	} else {
		memset(out + 4, 0, 4);
	}
	memcpy(out + ICMP6_HLEN, orig, quote);
	return (int)(ICMP6_HLEN + quote);
}

int srv6_icmp6_build(const struct srv6_icmp *icmp, const uint8_t *orig,
		     size_t len, uint8_t *out, size_t cap,
		     struct in6_addr *src, struct in6_addr *dst)
{
	size_t plen;
	int ret;

	if (!icmp || !orig || !out || len < SRV6_IPV6_HLEN ||
	    (orig[0] >> 4) != 6)
		return -EINVAL;
	/* RFC 4443 §2.4(e.6): the source must identify one node. */
	if (addr_is_multicast(orig + 8) || addr_is_unspecified(orig + 8))
		return -EINVAL;
	/* Bytes past the Payload Length are trailer, not packet. */
	plen = (size_t)orig[4] << 8 | orig[5];
	if (plen && plen + SRV6_IPV6_HLEN < len)
		len = plen + SRV6_IPV6_HLEN;

	switch (icmp->type) {
	case 1:   /* Destination Unreachable */
	case 2:   /* Packet Too Big */
	case 3:   /* Time Exceeded */
	case 4:   /* Parameter Problem */
		ret = build_error(icmp, orig, len, out, cap);
		break;
	case 129: /* Echo Reply */
		if (addr_is_multicast(orig + 24))
			return -EINVAL;   /* no unicast source to answer from */
		ret = build_echo_reply(orig, len, out, cap);
		break;
	default:
		return -EINVAL;
	}
	if (ret < 0)
		return ret;
	if (src)
		memcpy(src, orig + 24, 16);
	if (dst)
		memcpy(dst, orig + 8, 16);
	return ret;
}

uint16_t srv6_icmp6_csum(const struct in6_addr *src,
			 const struct in6_addr *dst, const uint8_t *msg,
			 size_t len)
{
	const uint8_t *s = (const uint8_t *)src, *d = (const uint8_t *)dst;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < 16; i += 2) {
		sum += (uint32_t)(s[i] << 8 | s[i + 1]);
		sum += (uint32_t)(d[i] << 8 | d[i + 1]);
	}
	sum += (uint32_t)(len >> 16) + (uint32_t)(len & 0xffff);
	sum += NH_ICMPV6;
	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(msg[i] << 8 | msg[i + 1]);
	if (len & 1)
		sum += (uint32_t)msg[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}
