/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icmp_tx.h - send the ICMPv6 messages the engine asks for (SRV6_V_ICMP).
 *
 * One struct srv6_icmp_tx per worker thread: a raw ICMPv6 socket (the kernel
 * computes the checksum), IPV6_FREEBIND so the source may be a SID that is no
 * local address (IPV6_TRANSPARENT as fallback), all receive types filtered
 * out, and the rate limiter state.  No state is shared between workers.
 *
 * Rate limiting follows the kernel's icmpv6_xrlim_allow(), with its sysctls
 * read at open in the daemon's netns, and again at the first send after
 * srv6_icmp_tx_sysctls_changed() (srv6d calls it on every reload):
 *   - types outside net.ipv6.icmp.ratemask (default 0-1,3-127: Packet Too Big
 *     and all informational messages, so Echo Reply) are never limited;
 *   - a global token bucket of net.ipv4.icmp_msgs_per_sec with burst
 *     net.ipv4.icmp_msgs_burst (each sent message costs 0..2 credits, as
 *     icmp_global_consume());
 *   - a per-destination bucket: net.ipv6.icmp.ratelimit ms per message,
 *     shifted right by (128 - plen) >> 5 where plen is the length of the
 *     route to the destination, burst 6 messages (XRLIM_BURST_FACTOR).  The
 *     buckets are a bounded table (256 sets x 4 ways, LRU) indexed by a
 *     SipHash of the destination under a random key per sender, so sources
 *     cannot be chosen to evict a victim's bucket.  The route is asked for on
 *     a non-blocking rtnetlink socket when an entry is made (and every 30 s):
 *     the kernel answers within the request, the answer is read without
 *     waiting, and until one is there the full timeout applies.  Nothing in
 *     the send path ever waits.
 *   - net.ipv6.icmp.echo_ignore_all: no Echo Reply at all (-EACCES).
 * Echo Replies carry the whole data of the request (up to 65487 bytes, RFC
 * 4443 4.2); the kernel fragments them to the path MTU as its own replies.
 * Each worker applies these limits on its own share (per-worker state only):
 * srv6_icmp_tx_set_share(t, nworkers) divides the global rate and burst.
 */
#ifndef SRV6D_ICMP_TX_H
#define SRV6D_ICMP_TX_H

#include <stddef.h>
#include <stdint.h>

#include "seg6.h"

struct srv6_icmp_tx;

/**
 * srv6_icmp_tx_open - one sender for the calling worker.  Returns NULL with
 * one line in @err (errno set) when the raw socket cannot be made (needs
 * CAP_NET_RAW) or no non-local source option is available.
 */
struct srv6_icmp_tx *srv6_icmp_tx_open(char *err, size_t errlen);

/**
 * srv6_icmp_tx_set_share - divide the global rate (icmp_msgs_per_sec and
 * icmp_msgs_burst) by @nworkers, minimum 1 each.  Owner thread only.
 */
void srv6_icmp_tx_set_share(struct srv6_icmp_tx *t, unsigned int nworkers);

/**
 * srv6_icmp_tx_send - build the answer to the invoking IPv6 packet @orig
 * (@len bytes, as received) with srv6_icmp6_build() and send it from @orig's
 * destination to @orig's source.  Returns 0 when sent, -EAGAIN when the rate
 * limit suppressed it, -EACCES for an Echo Reply under echo_ignore_all,
 * -EINVAL when the packet must not be answered (RFC 4443
 * §2.4(e)) or a link-local source needs an interface (use _send_if), or
 * another -errno from sendmsg.  Owner thread only; does not block
 * (MSG_DONTWAIT: a full socket buffer gives -EAGAIN as well).
 */
int srv6_icmp_tx_send(struct srv6_icmp_tx *t, const struct srv6_icmp *icmp,
		      const uint8_t *orig, size_t len);

/**
 * srv6_icmp_tx_send_if - as srv6_icmp_tx_send(), with @ifindex (the packet's
 * input interface, NFQA_IFINDEX_INDEV) used as scope of a link-local
 * destination; 0 = none.
 */
int srv6_icmp_tx_send_if(struct srv6_icmp_tx *t, const struct srv6_icmp *icmp,
			 const uint8_t *orig, size_t len, int ifindex);

/**
 * srv6_icmp_tx_sysctls_changed - make every sender re-read its sysctls at its
 * next send (one shared counter, written only here).  Any thread.
 */
void srv6_icmp_tx_sysctls_changed(void);

/** srv6_icmp_tx_close - close and free; NULL accepted.  Owner thread only. */
void srv6_icmp_tx_close(struct srv6_icmp_tx *t);

#endif
