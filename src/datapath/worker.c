// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * worker.c - one packet worker thread per NFQUEUE queue.  See worker.h for
 * the verdict on every path.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <netinet/icmp6.h>
#include <pthread.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "srv6d/cache.h"
#include "srv6d/gso.h"
#include "srv6d/headend.h"
#include "srv6d/icmp_tx.h"
#include "srv6d/log.h"
#include "srv6d/nest.h"
#include "srv6d/nfq.h"
#include "srv6d/seg6.h"
#include "srv6d/worker.h"

/* Bound on the shutdown drain when packets keep coming (steer none). */
#define DRAIN_MAX_BATCHES 4096

#define W_INC(w, f) \
	__atomic_store_n(&(w)->st.f, __atomic_load_n(&(w)->st.f, __ATOMIC_RELAXED) + 1, \
			 __ATOMIC_RELAXED)

#define W_ADD(w, f, v) \
	__atomic_store_n(&(w)->st.f, __atomic_load_n(&(w)->st.f, __ATOMIC_RELAXED) + (v), \
			 __ATOMIC_RELAXED)

/* Software GSO: segments wait here for the inject flush. */
#define SEGBUF_SIZE (256u << 10)
#define SEG_MAX     256
/* The kernel caps an NFQUEUE copy at NFQNL_MAX_COPY_RANGE, 0xffff less an
 * attribute header (NFQA_PAYLOAD's length is 16 bits): a longer packet
 * comes with NFQA_CAP_LEN, cut. */
#define NFQ_COPY_MAX (0xffffu - 4)

/* Per-SID counters: the worker is the only writer of its slot; relaxed
 * stores keep concurrent readers (counter dumps) well-defined. */
static inline void cnt_add(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

static void cnt_error(struct srv6_counters *cnt, enum srv6_drop reason)
{
	if (!cnt)
		return;
	cnt_add(&cnt->errors, 1);
	if ((unsigned int)reason < SRV6_DROP_MAX)
		cnt_add(&cnt->drops[reason], 1);
}

static int verdict_drop(struct srv6_worker *w, uint32_t id)
{
	W_INC(w, dropped);
	return srv6_nfq_verdict(w->nfq, id, NF_DROP, false, 0, NULL, 0);
}

static int do_icmp(struct srv6_worker *w, struct srv6_nfq_packet *p, const uint8_t *data,
		   size_t len, const struct srv6_result *res, struct srv6_counters *cnt,
		   uint64_t bytes)
{
	int r = -ENOTSOCK;

	if (w->icmp)
		r = srv6_icmp_tx_send_if(w->icmp, &res->icmp, data, len, (int)p->indev);
	if (r == 0)
		W_INC(w, icmp_sent);
	else if (r == -EAGAIN)
		W_INC(w, icmp_limited);
	else if (r == -EACCES)
		W_INC(w, icmp_ignored);
	else
		W_INC(w, icmp_failed);
	/* An Echo Reply at SL = 0 is the SID processing the upper layer
	 * successfully (RFC 8986 4.1.1) when it is sent; a suppressed one is
	 * counted as such; every other ICMP is an error. */
	if (res->icmp.type == ICMP6_ECHO_REPLY && r == 0) {
		if (cnt) {
			cnt_add(&cnt->packets, 1);
			cnt_add(&cnt->bytes, bytes);
		}
	} else if (res->icmp.type == ICMP6_ECHO_REPLY) {
		cnt_error(cnt, r == -EAGAIN ? SRV6_DROP_ICMP_LIMITED :
			  r == -EACCES ? SRV6_DROP_ECHO_IGNORED : SRV6_DROP_NONE);
	} else {
		cnt_error(cnt, res->reason);
	}
	return verdict_drop(w, p->id);
}

/* Whether a chain step would run on an IPv6 packet to @da: a local SID.
 * A policy never runs as a chain step inside srv6d: policies are kernel
 * routes, so a result whose destination one of them covers re-enters the
 * routing decision and reaches srv6d's device (and its POSTROUTING queue)
 * only when that policy wins longest-prefix match, as with the kernel's
 * seg6 routes. */
static bool step_matches(struct srv6_worker *w, const struct in6_addr *da)
{
	return srv6_sid_lookup(w->cache, da, true) != NULL;
}

/* One step of a chain: the SID matching the IPv6 packet at @pkt, run on it.
 * Returns false (nothing done) when none matches. */
static bool run_step(struct srv6_worker *w, struct srv6_pkt *pkt, struct srv6_result *res,
		     struct srv6_counters **cnt, int indev)
{
	const struct srv6_sid_entry *e;
	struct in6_addr da;

	memcpy(&da, pkt->data + 24, sizeof(da));
	e = srv6_sid_lookup(w->cache, &da, true);
	if (!e)
		return false;
	*cnt = srv6_counters_slot(w->cache, w->idx, false, e->id);
	srv6_sid_process_in(&e->cfg, indev, pkt, res);
	return true;
}

/* IPv4 TTL + 1, the header checksum updated as ip_decrease_ttl() updates
 * it, the other way (RFC 1624). */
static void ttl_inc(uint8_t *ip)
{
	uint32_t c = (uint32_t)(ip[10] << 8 | ip[11]);

	ip[8]++;
	c += 0xfeff;                 /* - 0x0100 in one's complement */
	c = (c & 0xffff) + (c >> 16);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
}

/* One hop limit (IPv6) or TTL (IPv4, checksum kept right) back on the
 * packet at @ip; 255 stays. */
static void hop_inc(uint8_t *ip, size_t len)
{
	if (len >= 40 && (ip[0] >> 4) == 6 && ip[7] < 255)
		ip[7]++;
	else if (len >= 20 && (ip[0] >> 4) == 4 && ip[8] < 255)
		ttl_inc(ip);
}

static void cnt_ok(struct srv6_counters *cnt, uint64_t bytes)
{
	if (cnt) {
		cnt_add(&cnt->packets, 1);
		cnt_add(&cnt->bytes, bytes);
	}
}

/* The mark a result leaves with: with a next-hop context, the packet's bits
 * outside srv6d's mask (other mark users' bits) kept and srv6d's bits set to
 * the context's mark; without one, the packet's mark unchanged (the kernel's
 * seg6local does not touch it). */
static uint32_t result_mark(const struct srv6_worker *w, const struct srv6_nfq_packet *p,
			    const struct srv6_result *res)
{
	uint32_t mask = w->mark_mask ? w->mark_mask : 0xffffffffu;

	if (!res->nh.mark)
		return p->mark;
	return (p->mark & ~mask) | (res->nh.mark & mask);
}

/* Hand @pkt (a result of @family, or an Ethernet frame when @family is 0)
 * to the injection egress and end the original with NF_DROP. */
static int inject(struct srv6_worker *w, struct srv6_nfq_packet *p, int family,
		  const struct srv6_pkt *pkt, const struct srv6_result *res,
		  struct srv6_counters *cnt, uint64_t bytes)
{
	int r;

	/* The packet's other mark bits travel on, as through a verdict. */
	if (family)
		r = srv6_inj_add(w->inj, family, result_mark(w, p, res), pkt->data, pkt->len);
	else
		r = srv6_inj_add_l2(w->inj, res->nh.oif, pkt->data, pkt->len);
	if (r < 0) {
		if (r == -EMSGSIZE) {
			W_INC(w, too_big);
			cnt_error(cnt, SRV6_DROP_NO_ROOM);
		} else {
			W_INC(w, xfamily);
			cnt_error(cnt, SRV6_DROP_UNSUPPORTED);
		}
		return verdict_drop(w, p->id);
	}
	cnt_ok(cnt, bytes);
	W_INC(w, injected);
	return srv6_nfq_verdict(w->nfq, p->id, NF_DROP, false, 0, NULL, 0);
}

/* The smallest MTU of this namespace's links that are up and can carry
 * @family (AF_INET6 or AF_INET), loopback left out: IPv6 needs 1280 bytes
 * (RFC 8200 5), IPv4 68 (RFC 791), and the kernel turns the family off on a
 * smaller link, which then is the output of nothing of that family (an up
 * CAN or AX.25 interface, an IPv4-only link of 576 bytes...).  Re-read at
 * most once a second; IPv6's 1280 / IPv4's 576 when no such link could be
 * read, never 0.  A segment that fits it fits every link the kernel can
 * send it out of. */
static unsigned int links_min_mtu(struct srv6_worker *w, int family)
{
	struct if_nameindex *ifs, *i;
	unsigned int min6 = 0, min4 = 0;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	if (w->mtu_at == (int64_t)ts.tv_sec)
		return family == AF_INET ? w->mtu4 : w->mtu6;
	if (w->ifd < 0)
		w->ifd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ifs = w->ifd >= 0 ? if_nameindex() : NULL;
	for (i = ifs; i && i->if_index; i++) {
		struct ifreq ifr;
		unsigned int mtu;

		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", i->if_name);
		if (ioctl(w->ifd, SIOCGIFFLAGS, &ifr) < 0 || !(ifr.ifr_flags & IFF_UP) ||
		    (ifr.ifr_flags & IFF_LOOPBACK))
			continue;
		if (ioctl(w->ifd, SIOCGIFMTU, &ifr) < 0 || ifr.ifr_mtu <= 0)
			continue;
		mtu = (unsigned int)ifr.ifr_mtu;
		if (mtu >= 1280 && (!min6 || mtu < min6))
			min6 = mtu;
		if (mtu >= 68 && (!min4 || mtu < min4))
			min4 = mtu;
	}
	if (ifs)
		if_freenameindex(ifs);
	w->mtu6 = min6 ? min6 : 1280;
	w->mtu4 = min4 ? min4 : 576;
	w->mtu_at = (int64_t)ts.tv_sec;
	return family == AF_INET ? w->mtu4 : w->mtu6;
}

/* What the input link allowed the sender's segments of the GSO packet @p,
 * which NFQUEUE does not say: the smallest MTU of the links that can carry
 * its family less the packet's own headers through the TCP options (0 when
 * they do not fit it).  Never larger than the input link allowed them.  A
 * smaller MSS of the sender (a lower path MTU further on) is not known here:
 * docs/DATAPATH.md.  -EPROTO when @p is no TCP super-packet srv6d can
 * segment (UDP GSO...). */
static long gso_in_room(struct srv6_worker *w, const struct srv6_nfq_packet *p)
{
	struct srv6_l4info li;
	unsigned int mtu;
	size_t hl;

	if (srv6_l4_parse(p->data, p->len, &li) < 0 || li.l4_proto != IPPROTO_TCP)
		return -EPROTO;
	mtu = links_min_mtu(w, li.ip_ver[0] == 6 ? AF_INET6 : AF_INET);
	hl = (size_t)li.l4_off + li.l4_hlen;
	return mtu > hl ? (long)(mtu - hl) : 0;
}

/* A GSO super-packet whose result cannot be carried whole: longer than an
 * IPv6 Payload Length or the injection device's MTU (65,535 bytes) allow.
 * The kernel would segment it with the sender's size; srv6d does not split
 * it (docs/DATAPATH.md, "GSO"). */
static void log_gso_big(struct srv6_worker *w, size_t len)
{
	srv6_log_rl(&w->gso_big_rl, LOG_WARNING,
		    "queue %u: a %zu-byte GSO super-packet has no room for the headers its SID or "
		    "policy adds (65535 bytes at most): dropped (no-room); gso off, or a "
		    "gro_max_size / gso_max_size leaving room for them, avoids it",
		    srv6_nfq_queue(w->nfq), len);
}

static int gso_drop(struct srv6_worker *w, struct srv6_nfq_packet *p, struct srv6_counters *cnt)
{
	if (p->skbinfo & NFQA_SKB_GSO)
		W_INC(w, gso_dropped);
	else
		W_INC(w, csum_dropped);
	cnt_error(cnt, SRV6_DROP_UNSUPPORTED);
	return verdict_drop(w, p->id);
}

/* A result (@family AF_INET6/AF_INET) of a GSO packet or of one whose L4
 * checksum is partial (conf gso; @in_room from gso_in_room for GSO).  Plain
 * TCP/IP (End, End.X, End.T, PSP, the decapsulations): injected whole with
 * a virtio-net header, the kernel finishes the checksum and segments.
 * Inside a tunnel (the encapsulations): segmented here, full checksums.
 * Not GSO: the partial checksum completed here.  Anything else: dropped and
 * counted, never sent with a wrong checksum. */
static int inject_partial(struct srv6_worker *w, struct srv6_nfq_packet *p, int family,
			  struct srv6_pkt *pkt, const struct srv6_result *res,
			  struct srv6_counters *cnt, uint64_t bytes, size_t in_room)
{
	bool gso = p->skbinfo & NFQA_SKB_GSO;
	uint32_t mark = result_mark(w, p, res);
	size_t seglen[SEG_MAX], hl, room, mss;
	struct srv6_l4info li;
	unsigned int nsegs, mtu;
	int n, r;

	if (srv6_l4_parse(pkt->data, pkt->len, &li) < 0 ||
	    (gso && li.l4_proto != IPPROTO_TCP))
		return gso_drop(w, p, cnt);
	if (!gso) {
		/* The partial checksum is the innermost TCP/UDP's: its field
		 * holds that pseudo-header's sum, or it is elsewhere. */
		if (!srv6_l4_partial_ok(pkt->data, pkt->len, &li) ||
		    srv6_csum_complete(pkt->data, pkt->len, li.l4_off, srv6_l4_csum_off(&li)) < 0)
			return gso_drop(w, p, cnt);
		W_INC(w, csum_completed);
		return inject(w, p, family, pkt, res, cnt, bytes);
	}
	hl = (size_t)li.l4_off + li.l4_hlen;
	/* A result with more headers than the input (an encapsulation, an
	 * inserted SRH) gets smaller segments, so that they still fit the
	 * smallest link MTU of its family; as small as the MTU makes them
	 * (the kernel's own GSO keeps the sender's size, which that link's
	 * path MTU made as small), down to the smallest the kernel's TCP
	 * sends. */
	mtu = links_min_mtu(w, family);
	mss = srv6_gso_mss(in_room, mtu, hl);
	if (!mss) {
		srv6_log_rl(&w->gso_mtu_rl, LOG_WARNING,
			    "queue %u: a TCP super-packet with %zu bytes of headers leaves no "
			    "segment of %u bytes or more within the smallest link MTU (IPv6 %u, "
			    "IPv4 %u): dropped (gso-dropped)",
			    srv6_nfq_queue(w->nfq), hl, SRV6_GSO_MSS_MIN, links_min_mtu(w, AF_INET6),
			    links_min_mtu(w, AF_INET));
		return gso_drop(w, p, cnt);
	}
	if (li.nip == 1) {
		uint8_t *th = pkt->data + li.l4_off;
		uint16_t ps = srv6_l4_pseudo(pkt->data, &li, pkt->len - li.l4_off);
		struct srv6_inj_gso g = {
			.csum_start = li.l4_off,
			.csum_offset = 16,
			.hdr_len = (uint16_t)hl,
			.gso_size = pkt->len - hl > mss ? (uint16_t)mss : 0,
			.ecn = th[13] & 0x80,
		};

		/* CHECKSUM_PARTIAL: the pseudo-header over the whole TCP
		 * length, with the final destination (RFC 8200 8.1), which
		 * none of these behaviors changes. */
		th[16] = (uint8_t)(ps >> 8);
		th[17] = (uint8_t)ps;
		r = srv6_inj_add_gso(w->inj, family, mark, pkt->data, pkt->len, &g);
		if (r < 0) {
			if (r == -EMSGSIZE)
				log_gso_big(w, pkt->len);
			W_INC(w, too_big);
			cnt_error(cnt, SRV6_DROP_NO_ROOM);
			return verdict_drop(w, p->id);
		}
		cnt_ok(cnt, bytes);
		W_INC(w, injected);
		W_INC(w, gso_injected);
		return srv6_nfq_verdict(w->nfq, p->id, NF_DROP, false, 0, NULL, 0);
	}
	room = srv6_tcp_segment_room(pkt->len, &li, mss, &nsegs);
	if (!w->segbuf)   /* logged at the start */
		return gso_drop(w, p, cnt);
	if (room > SEGBUF_SIZE || nsegs > SEG_MAX) {
		srv6_log_rl(&w->gso_segs_rl, LOG_WARNING,
			    "queue %u: a %zu-byte TCP super-packet in a tunnel needs %u segments of "
			    "%zu bytes (%zu bytes), more than srv6d segments (%u, %u KiB): dropped "
			    "(gso-dropped)", srv6_nfq_queue(w->nfq), pkt->len, nsegs, mss, room,
			    SEG_MAX, SEGBUF_SIZE >> 10);
		return gso_drop(w, p, cnt);
	}
	if (w->segused + room > SEGBUF_SIZE) {
		(void)srv6_inj_flush(w->inj);
		w->segused = 0;
	}
	n = srv6_tcp_segment(pkt->data, pkt->len, &li, mss, w->segbuf + w->segused,
			     SEGBUF_SIZE - w->segused, seglen, SEG_MAX);
	if (n <= 0)
		return gso_drop(w, p, cnt);
	for (int i = 0, off = 0; i < n; off += (int)seglen[i], i++) {
		r = srv6_inj_add(w->inj, family, mark, w->segbuf + w->segused + off, seglen[i]);
		if (r < 0) {
			W_INC(w, too_big);
			cnt_error(cnt, SRV6_DROP_NO_ROOM);
			w->segused += room;
			return verdict_drop(w, p->id);
		}
	}
	w->segused += room;
	cnt_ok(cnt, bytes);
	W_INC(w, injected);
	W_INC(w, gso_segmented);
	W_ADD(w, gso_segments, (uint64_t)n);
	return srv6_nfq_verdict(w->nfq, p->id, NF_DROP, false, 0, NULL, 0);
}

/* The kernel logs its lwtunnel recursion limit ("recursion limit reached on
 * datapath", rate limited); srv6d names the policy. */
static void log_loop(struct srv6_worker *w, const struct srv6_policy_entry *pe)
{
	char pfx[INET6_ADDRSTRLEN];

	if (!inet_ntop(pe->family, &pe->prefix, pfx, sizeof(pfx)))
		return;
	srv6_log_rl(&w->loop_rl, LOG_WARNING,
		    "queue %u: policy %s/%u: a result came back to it more than %u levels deep "
		    "(a segment without a route of its own?): dropped (loop)",
		    srv6_nfq_queue(w->nfq), pfx, pe->plen, SRV6_CHAIN_MAX);
}

/* RFC 8754 §2.1.2.1: a failed HMAC check SHOULD be logged (rate limited). */
static void log_hmac(struct srv6_worker *w, const struct srv6_pkt *pkt, uint32_t indev)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];

	if (pkt->len < 40 || !inet_ntop(AF_INET6, pkt->data + 8, src, sizeof(src)) ||
	    !inet_ntop(AF_INET6, pkt->data + 24, dst, sizeof(dst)))
		return;
	srv6_log_rl(&w->hmac_rl, LOG_WARNING,
		    "queue %u: SRH HMAC check failed: %s -> %s (ifindex %u), dropped",
		    srv6_nfq_queue(w->nfq), src, dst, indev);
}

int srv6_worker_handle(struct srv6_worker *w, struct srv6_nfq_packet *p)
{
	struct srv6_counters *cnt = NULL;
	struct srv6_result res;
	struct srv6_pkt pkt;
	uint64_t bytes = p->orig_len;   /* what the current step received */
	int hook_family;
	/* a policy packet: the FIB routed it to srv6d's device, the queue
	 * took it at mangle POSTROUTING */
	bool post = w->pol_ifindex && p->outdev == w->pol_ifindex;
	/* conf gso: this packet's checksum is partial (and it may be GSO) */
	bool partial = w->gso && (p->skbinfo & (NFQA_SKB_GSO | NFQA_SKB_CSUMNOTREADY));
	long in_room = 0;

	W_INC(w, packets);
	if (p->truncated) {
		/* Never passed on cut (nor unchanged: a SID's packet would
		 * reach the stack as if no SID existed).  Only a packet over
		 * NFQ_COPY_MAX: a BIG TCP super-packet with gso on (with gso
		 * off the kernel segments it before queueing). */
		W_INC(w, truncated);
		srv6_log_rl(&w->trunc_rl, LOG_WARNING,
			    "queue %u: a %u-byte packet, longer than NFQUEUE copies (%u bytes; BIG TCP: "
			    "a gso_max_size or gro_max_size above 65536 toward srv6d?): dropped (truncated)",
			    srv6_nfq_queue(w->nfq), p->orig_len, NFQ_COPY_MAX);
		return verdict_drop(w, p->id);
	}
	if ((p->skbinfo & NFQA_SKB_GSO) && w->gso) {
		/* Its segment size limit, before the behavior rewrites it. */
		in_room = gso_in_room(w, p);
		if (in_room < 0)
			return gso_drop(w, p, NULL);
	} else if (p->skbinfo & NFQA_SKB_GSO) {
		/* Not expected (F_GSO off); a rewritten super-packet would be
		 * handed back with CHECKSUM_NONE, so never echo one. */
		W_INC(w, gso);
		return verdict_drop(w, p->id);
	}
	memset(&res, 0, sizeof(res));
	if (srv6_pkt_init(&pkt, p->room, p->room_len, (size_t)(p->data - p->room), p->len)) {
		W_INC(w, malformed);
		return verdict_drop(w, p->id);
	}

	if (post && (p->hw_proto == ETH_P_IPV6 || p->hw_proto == ETH_P_IP)) {
		const struct srv6_policy_entry *pe;
		bool v6 = p->hw_proto == ETH_P_IPV6;
		uint8_t da[16];

		hook_family = v6 ? AF_INET6 : AF_INET;
		if (p->len < (v6 ? 40u : 20u) || (p->data[0] >> 4) != (v6 ? 6 : 4)) {
			W_INC(w, malformed);
			return verdict_drop(w, p->id);
		}
		/* srv6d's own result routed to a policy again (its first
		 * segment covered by one, no more specific underlay route):
		 * the kernel nests its seg6 encapsulations and insertions
		 * without a decrement in between and drops the packet at its
		 * lwtunnel recursion limit (no ICMP; 6.12: 9 passes, the 10th
		 * refused); here each pass gets its hop back (below), so only
		 * the headers the passes added can end it: at most
		 * SRV6_CHAIN_MAX levels (an encapsulation adds an IP header,
		 * an insertion an SRH in front of the last one: srv6_nest_depth),
		 * else it would loop until it outgrew the buffer.  Dropped
		 * without ICMP, as the kernel's, as "loop". */
		if (v6 && p->indev == w->pol_ifindex &&
		    srv6_nest_depth(p->data, p->len, SRV6_CHAIN_MAX) > SRV6_CHAIN_MAX) {
			pe = srv6_policy_lookup(w->cache, hook_family, p->data + 24, true);
			cnt = pe ? srv6_counters_slot(w->cache, w->idx, true, pe->id) : NULL;
			if (!cnt) {
				W_INC(w, miss);
				return verdict_drop(w, p->id);
			}
			cnt_error(cnt, SRV6_DROP_LOOP);
			log_loop(w, pe);
			return verdict_drop(w, p->id);
		}
		memcpy(da, p->data + (v6 ? 24 : 16), v6 ? 16 : 4);
		pe = srv6_policy_lookup(w->cache, hook_family, da, true);
		if (!pe) {
			/* a route through the device srv6d no longer has a
			 * policy for (a reload in between): the device would
			 * drop it anyway */
			W_INC(w, miss);
			return verdict_drop(w, p->id);
		}
		/* The kernel encapsulates a forwarded packet before
		 * ip6_forward()/ip_forward() decrements it: the inner packet
		 * keeps its hop limit / TTL.  Here the forward has run:
		 * give it back (forwarded packets have an input device).  A
		 * result coming back from srv6d0 was forwarded once more on
		 * its way here, where the kernel's nested seg6 pass is not:
		 * it gets that hop back too, so a nesting (and a loop) never
		 * ends by hop limit; the depth bound above ends it. */
		if (p->indev)
			hop_inc(pkt.data, pkt.len);
		cnt = srv6_counters_slot(w->cache, w->idx, true, pe->id);
		srv6_headend_apply(&pe->pol, v6 ? IPPROTO_IPV6 : IPPROTO_IPIP, &pkt, &res);
	} else if (p->hw_proto == ETH_P_IPV6) {
		hook_family = AF_INET6;
		if (p->len < 40 || (p->data[0] >> 4) != 6) {
			W_INC(w, malformed);
			return verdict_drop(w, p->id);
		}
		if (!run_step(w, &pkt, &res, &cnt, (int)p->indev)) {
			W_INC(w, miss);
			return srv6_nfq_verdict(w->nfq, p->id, NF_ACCEPT, false, 0, NULL, 0);
		}
	} else {
		/* Not something srv6d's rules steer: leave it alone. */
		W_INC(w, miss);
		return srv6_nfq_verdict(w->nfq, p->id, NF_ACCEPT, false, 0, NULL, 0);
	}

	/* Local SID chain: the result goes to another SID (or policy) of
	 * this node: run it now, as the kernel would, with no decrement.  Only
	 * a result routed by the main table (mark 0) can reach one: End.X goes
	 * to its adjacency, End.T / End.DT* look up table N only, End.DX6 goes
	 * to nh6 (the kernel's seg6local never meets a main-table seg6 route
	 * there either). */
	for (unsigned int step = 1; res.verdict == SRV6_V_FORWARD6 && res.nh.mark == 0 &&
	     pkt.len >= 40; step++) {
		struct srv6_counters *next = NULL;
		struct srv6_result nres;
		uint64_t nbytes = pkt.len;

		memset(&nres, 0, sizeof(nres));
		if (step >= SRV6_CHAIN_MAX) {
			struct in6_addr da;

			memcpy(&da, pkt.data + 24, sizeof(da));
			if (!step_matches(w, &da))
				break;
			cnt_error(cnt, SRV6_DROP_LOOP);
			return verdict_drop(w, p->id);
		}
		if (!run_step(w, &pkt, &nres, &next, (int)p->indev))
			break;
		/* The step before handed the packet on successfully. */
		cnt_ok(cnt, bytes);
		W_INC(w, chained);
		cnt = next;
		bytes = nbytes;
		res = nres;
	}

	if (res.reason == SRV6_DROP_HMAC)
		log_hmac(w, &pkt, p->indev);

	switch (res.verdict) {
	case SRV6_V_FORWARD6:
	case SRV6_V_FORWARD4:
		/* (a GSO result may be longer: segmented or injected whole) */
		if (!partial && pkt.len > 0xffffu - 4) {
			W_INC(w, too_big);
			cnt_error(cnt, SRV6_DROP_NO_ROOM);
			return verdict_drop(w, p->id);
		}
		if (post && !p->indev) {
			/* Locally originated: the kernel's seg6_output()
			 * sends the result without a decrement; the injected
			 * one is forwarded once (docs/NETFILTER-ROUTING.md:
			 * at 255 it leaves with 254). */
			hop_inc(pkt.data, pkt.len);
		}
		if (partial)
			return inject_partial(w, p, res.verdict == SRV6_V_FORWARD6 ? AF_INET6 : AF_INET,
					      &pkt, &res, cnt, bytes, (size_t)in_room);
		/* A policy packet's route is chosen (srv6d's device): a
		 * verdict cannot reroute it, the result is injected. */
		if (res.verdict == SRV6_V_FORWARD6 && hook_family == AF_INET6 && !w->inject6 &&
		    !post) {
			cnt_ok(cnt, bytes);
			W_INC(w, accepted);
			uint32_t mark = result_mark(w, p, &res);

			return srv6_nfq_verdict(w->nfq, p->id, NF_ACCEPT, mark != p->mark,
						mark, pkt.data, (uint32_t)pkt.len);
		}
		if (!w->inj) {
			/* An IPv4 result (or an IPv6 one of an IPv4 hook)
			 * cannot ride this hook's verdict, and there is no
			 * injection egress. */
			W_INC(w, xfamily);
			cnt_error(cnt, SRV6_DROP_UNSUPPORTED);
			return verdict_drop(w, p->id);
		}
		return inject(w, p, res.verdict == SRV6_V_FORWARD6 ? AF_INET6 : AF_INET, &pkt,
			      &res, cnt, bytes);
	case SRV6_V_ICMP:
		return do_icmp(w, p, pkt.data, pkt.len, &res, cnt, bytes);
	case SRV6_V_L2:
		if (partial)   /* an inner checksum srv6d does not look for */
			return gso_drop(w, p, cnt);
		if (!w->inj) {
			W_INC(w, xfamily);
			cnt_error(cnt, SRV6_DROP_UNSUPPORTED);
			return verdict_drop(w, p->id);
		}
		return inject(w, p, 0, &pkt, &res, cnt, bytes);
	case SRV6_V_DROP:
	default:
		if (res.reason == SRV6_DROP_NO_ROOM && (p->skbinfo & NFQA_SKB_GSO))
			log_gso_big(w, pkt.len);
		cnt_error(cnt, res.reason);
		return verdict_drop(w, p->id);
	}
}

/* Process everything the last receive returned, flush, quiescent state. */
static void run_batch(struct srv6_worker *w, struct srv6_ratelimit *rl)
{
	struct srv6_nfq_packet p;
	int r = 0;

	while (srv6_nfq_next(w->nfq, &p))
		if (srv6_worker_handle(w, &p) < 0)
			r = -1;
	/* Injected results point into the receive slots: out before the
	 * next receive reuses them (their loss is counted by the injector). */
	if (w->inj)
		(void)srv6_inj_flush(w->inj);
	w->segused = 0;
	if (srv6_nfq_flush(w->nfq) < 0)
		r = -1;
	/* Every noref entry of this batch dies here: verdicts are sent. */
	srv6_reader_quiescent();
	W_INC(w, batches);
	if (r < 0)
		srv6_log_rl(rl, LOG_ERR, "queue %u: sending verdicts failed (counted)",
			    srv6_nfq_queue(w->nfq));
}

static void *worker_main(void *arg)
{
	struct srv6_worker *w = arg;
	struct srv6_ratelimit verdict_rl = { 0 }, recv_rl = { 0 };
	char err[256];

	if (w->cpu >= 0) {
		cpu_set_t set;
		int r;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		r = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (r)
			srv6_log(LOG_WARNING, "queue %u: cannot pin worker to CPU %d: %s",
				 srv6_nfq_queue(w->nfq), w->cpu, strerror(r));
	}
	if (w->fifo_prio > 0) {
		/* Under overload the receive softirq runs inside this
		 * thread's own syscalls; with threaded NAPI on the ingress
		 * device a real-time worker runs first and the NAPI thread
		 * fills the queue only when the worker waits (docs/
		 * PERFORMANCE.md, "Overload").  Needs CAP_SYS_NICE or
		 * RLIMIT_RTPRIO >= the priority: without, the worker runs on
		 * under the inherited policy. */
		struct sched_param sp = { .sched_priority = w->fifo_prio };
		int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

		if (r)
			srv6_log(LOG_WARNING, "queue %u: cannot run the worker SCHED_FIFO %d: %s "
				 "(needs CAP_SYS_NICE or LimitRTPRIO): it runs under the default policy",
				 srv6_nfq_queue(w->nfq), w->fifo_prio, strerror(r));
	}
	w->ifd = -1;
	w->mtu6 = 0;
	w->mtu4 = 0;
	w->mtu_at = -1;
	w->segused = 0;
	w->segbuf = w->gso ? malloc(SEGBUF_SIZE) : NULL;
	if (w->gso && !w->segbuf)
		srv6_log(LOG_WARNING, "queue %u: no memory for GSO segments: GSO packets inside "
			 "tunnels are dropped (gso-dropped)", srv6_nfq_queue(w->nfq));
	w->icmp = srv6_icmp_tx_open(err, sizeof(err));
	if (!w->icmp)
		srv6_log(LOG_WARNING, "queue %u: no ICMPv6 sender (%s): ICMP answers are counted as failed",
			 srv6_nfq_queue(w->nfq), err);
	else
		srv6_icmp_tx_set_share(w->icmp, w->nworkers ? w->nworkers : 1);

	srv6_reader_register();
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		int n;

		srv6_reader_offline();
		n = srv6_nfq_recv(w->nfq, true);
		srv6_reader_online();
		__atomic_store_n(&w->heartbeat, w->heartbeat + 1, __ATOMIC_RELAXED);
		srv6_log_rl_flush(&verdict_rl);
		srv6_log_rl_flush(&recv_rl);
		srv6_log_rl_flush(&w->hmac_rl);
		srv6_log_rl_flush(&w->loop_rl);
		srv6_log_rl_flush(&w->gso_mtu_rl);
		srv6_log_rl_flush(&w->gso_segs_rl);
		srv6_log_rl_flush(&w->gso_big_rl);
		srv6_log_rl_flush(&w->trunc_rl);
		if (n < 0) {
			srv6_log_rl(&recv_rl, LOG_ERR, "queue %u: receive: %s", srv6_nfq_queue(w->nfq),
				    strerror(-n));
			if (n == -EBADF || n == -ENOTSOCK) {
				/* Nothing more can be read or verdicted
				 * here: tell the control thread. */
				__atomic_store_n(&w->failed, n, __ATOMIC_RELEASE);
				break;
			}
			/* A persistent error must not spin a core. */
			usleep(1000);
			continue;
		}
		if (n > 0)
			run_batch(w, &verdict_rl);
	}
	/* Shutdown: verdict whatever is still readable (the steering rules are
	 * already gone, so this ends), without blocking. */
	for (int i = 0; i < DRAIN_MAX_BATCHES; i++) {
		int n = srv6_nfq_recv(w->nfq, false);

		if (n <= 0)
			break;
		run_batch(w, &verdict_rl);
	}
	srv6_reader_unregister();
	srv6_icmp_tx_close(w->icmp);
	w->icmp = NULL;
	free(w->segbuf);
	w->segbuf = NULL;
	if (w->ifd >= 0)
		close(w->ifd);
	w->ifd = -1;
	return NULL;
}

int srv6_worker_start(struct srv6_worker *w)
{
	int r;

	w->stop = 0;
	w->heartbeat = 0;
	w->failed = 0;
	memset(&w->st, 0, sizeof(w->st));
	r = pthread_create(&w->thread, NULL, worker_main, w);
	if (r)
		return -r;
	w->running = true;
	return 0;
}

void srv6_worker_stop(struct srv6_worker *w)
{
	if (!w->running)
		return;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	pthread_join(w->thread, NULL);
	w->running = false;
}

int srv6_worker_failed(const struct srv6_worker *w)
{
	return __atomic_load_n(&w->failed, __ATOMIC_ACQUIRE);
}

void srv6_worker_stats_read(const struct srv6_worker *w, struct srv6_worker_stats *out)
{
	const uint64_t *src = (const uint64_t *)&w->st;
	uint64_t *dst = (uint64_t *)out;

	_Static_assert(sizeof(*out) % sizeof(uint64_t) == 0, "stats are u64 only");
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}
