// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nest.c - the headend levels a packet shows.  See include/srv6d/nest.h.
 * Pure code over a byte buffer.
 */
#include <stdbool.h>

#include "srv6d/nest.h"

#define NH_IPIP    4
#define NH_IPV6    41
#define NH_ROUTING 43
#define SRH_TYPE   4
#define IPV6_HLEN  40

unsigned int srv6_nest_depth(const uint8_t *ip, size_t len, unsigned int max)
{
	unsigned int depth = 1;
	size_t off = IPV6_HLEN;
	bool srh = false;      /* the current IPv6 header has an SRH already */
	uint8_t nh;

	if (len < IPV6_HLEN || (ip[0] >> 4) != 6)
		return 1;
	nh = ip[6];
	while (depth <= max) {
		if (nh == NH_ROUTING && len - off >= 8 && ip[off + 2] == SRH_TYPE) {
			if (srh)
				depth++;
			srh = true;
			nh = ip[off];
			off += 8 + (size_t)ip[off + 1] * 8;
			if (off > len)
				break;
		} else if (nh == NH_IPV6 && len - off >= IPV6_HLEN && (ip[off] >> 4) == 6) {
			depth++;
			srh = false;
			nh = ip[off + 6];
			off += IPV6_HLEN;
		} else {
			if (nh == NH_IPIP)
				depth++;
			break;
		}
	}
	return depth;
}
