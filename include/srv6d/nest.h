/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nest.h - how many headend levels a packet shows: the bound on a result
 * that routing hands back to srv6d's policies (a policy whose segment is
 * covered by a policy, the same one included).  Pure.
 */
#ifndef SRV6D_NEST_H
#define SRV6D_NEST_H

#include <stddef.h>
#include <stdint.h>

/**
 * srv6_nest_depth - the headend levels the IPv6 packet @ip (@len bytes)
 * shows: 1 for a plain packet, one more per IP header nested in it (IPv6
 * or IPv4 in IPv6: an encapsulation, H.Encaps and its .Red), and one more
 * per SRH stacked on another SRH of the same IPv6 header (an insertion
 * into a packet that had one: H.Insert, like seg6_do_srh_inline(), puts
 * the new SRH first, right after the IPv6 header).  The walk follows only
 * SRHs (Routing Type 4) and IPv6/IPv4 in IPv6; anything else ends it.  A
 * plain packet's first insertion (one SRH) shows no level: a loop of
 * insertions shows one level less than the passes it made.  Counting stops
 * above @max (the result is then @max + 1).  Any caller; reads only the
 * @len bytes at @ip.
 */
unsigned int srv6_nest_depth(const uint8_t *ip, size_t len, unsigned int max);

#endif
