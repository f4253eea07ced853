/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * worker.h - a packet worker: one thread per NFQUEUE queue.
 *
 * Loop: go offline (QSBR), receive a batch (recvmmsg, blocking at most the
 * receive timeout), come online; for each packet: IPv6 destination ->
 * srv6_sid_lookup(noref) -> srv6_sid_process(), else srv6_policy_lookup()
 * -> srv6_headend_apply(); IPv4 (steered IPv4 policies) -> the AF_INET policy
 * table; account the result in the worker's own counter slot; add the
 * verdict to the batch.  After the batch is flushed: srv6_reader_quiescent().
 * Noref entries are never used after that point, and no packet waits for a
 * later batch.
 *
 * Exactly one verdict per packet id, on every path:
 *   processed, forwarded      NF_ACCEPT, rewritten payload, mark of the
 *                             next-hop context (when not 0)
 *   engine drop               NF_DROP (SID/policy errors + drop reason)
 *   ICMP                      ICMPv6 sent from the worker, then NF_DROP
 *                             (an Echo Reply sent counts as success; one
 *                             rate limited or under echo_ignore_all as an
 *                             error, drops[icmp-limited / echo-ignored])
 *   no SID/policy (reload race, or a rule steering more than srv6d serves)
 *                             NF_ACCEPT unchanged, "miss"
 *   not parseable             NF_DROP, "malformed"
 *   truncated (NFQA_CAP_LEN)  NF_DROP, "truncated"
 *   result injected (IPv4 results, Ethernet frames, and IPv6 results when
 *   w->inject6: include/srv6d/inject.h)   the result is written into srv6d's
 *                             device (or an End.DX2 oif), the original ends
 *                             with NF_DROP counted as "injected", not dropped
 *   result that needs the injection egress when there is none
 *                             NF_DROP, "xfamily", and the SID's errors +
 *                             drops[unsupported]
 *   w->gso (conf gso on): a GSO or partial-checksum packet's result is
 *                             injected whole with a virtio-net header
 *                             (plain TCP), segmented here (tunnel), its
 *                             checksum completed here (not GSO); else
 *                             NF_DROP, "gso_dropped" / "csum_dropped" and
 *                             the SID's drops[unsupported]
 *                             (docs/DATAPATH.md "GSO")
 *
 * Local SID chains: when a behavior (or a headend policy) forwards an IPv6
 * packet whose new destination is a local SID, or one of srv6d's policy
 * prefixes, srv6d runs that SID (policy) at once, as the kernel's seg6local
 * does when the next segment's route is itself a seg6local route, without a
 * hop limit decrement in between.  At most SRV6_CHAIN_MAX steps (the kernel's
 * lwtunnel recursion limit, XMIT_RECURSION_LIMIT); one more is dropped with
 * the drop reason "loop".  Every SID of the chain counts the packet.  A
 * policy's result that routing brings back to srv6d's device showing more
 * than SRV6_CHAIN_MAX levels (srv6_nest_depth: encapsulations, stacked
 * SRHs) is dropped without ICMP as the policy's "loop" (the kernel drops
 * at its lwtunnel recursion limit, silently).
 *   shutdown                  the batch in hand is finished, then the socket
 *                             is drained without blocking, then unbound.
 *
 * Threading: srv6_worker_start/stop from the control thread; the worker's
 * counters are written by the worker only (relaxed atomic stores) and read
 * by anyone with srv6_worker_stats_read().
 */
#ifndef SRV6D_WORKER_H
#define SRV6D_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cache.h"
#include "inject.h"
#include "log.h"
#include "nfq.h"

#define SRV6_CHAIN_MAX 8   /* behaviors one packet may run in a row */

struct srv6_icmp_tx;

struct srv6_worker_stats {
	uint64_t packets;        /* packets handled (one verdict each) */
	uint64_t accepted;       /* NF_ACCEPT with a rewritten payload */
	uint64_t dropped;        /* NF_DROP, any reason */
	uint64_t miss;           /* no SID/policy: NF_ACCEPT unchanged */
	uint64_t malformed;      /* not an IPv6/IPv4 packet we can parse */
	uint64_t truncated;
	uint64_t gso;            /* GSO packet with gso off (F_GSO off: never
				    expected), dropped */
	uint64_t xfamily;        /* result family differs from the hook's / L2 */
	uint64_t too_big;        /* rewritten packet does not fit a verdict */
	uint64_t icmp_sent;
	uint64_t icmp_limited;   /* suppressed by the rate limit */
	uint64_t icmp_failed;    /* not answerable / no socket / send error */
	uint64_t icmp_ignored;   /* Echo Reply not sent: echo_ignore_all */
	uint64_t batches;        /* receive batches processed */
	uint64_t injected;       /* results handed to the injection egress
				    (the original got NF_DROP: consumed) */
	uint64_t chained;        /* extra behaviors run for local SID chains */
	/* conf gso (docs/DATAPATH.md "GSO") */
	uint64_t gso_injected;   /* TCP super-packets injected whole (virtio-net
				    header: the kernel segments them) */
	uint64_t gso_segmented;  /* TCP super-packets segmented by srv6d (the
				    result is a tunnel) */
	uint64_t gso_segments;   /* segments those gave */
	uint64_t gso_dropped;    /* GSO packets dropped: not TCP (UDP GSO...),
				    unparseable, or no usable segment size */
	uint64_t csum_completed; /* partial L4 checksums completed by srv6d */
	uint64_t csum_dropped;   /* partial checksum not found where it must
				    be (innermost TCP/UDP): dropped */
};

struct srv6_worker {
	/* set by the caller before srv6_worker_start() */
	unsigned int idx;        /* counter slot index, < cache nworkers */
	unsigned int nworkers;   /* for the ICMP rate share */
	int cpu;                 /* CPU to pin to, -1 none */
	int fifo_prio;           /* SCHED_FIFO priority 1..99; 0: the
				    inherited policy (conf worker-sched) */
	struct srv6_cache *cache;
	struct srv6_nfq *nfq;    /* opened (bound) by the caller; the worker
				    drains it on stop, the caller closes it */
	struct srv6_inj *inj;    /* injector opened by the caller (NULL: no
				    injection egress); used by the worker only,
				    the caller closes it after the stop */
	uint32_t mark_mask;      /* mark bits srv6d owns (mark-mask); 0 means
				    all: a result's mark is (old & ~mask) | ctx */
	uint32_t pol_ifindex;    /* srv6d's device (0: none): packets queued
				    with it as output device are the policies'
				    (their kernel routes point there), taken at
				    mangle POSTROUTING, their results always
				    injected */
	bool inject6;            /* IPv6 results of IPv6 hooks are injected too
				    (egress inject, or a kernel that refuses
				    header rewrites in verdicts) */
	bool gso;                /* the queue has NFQA_CFG_F_GSO (conf gso on,
				    only with inject6 and an injector in
				    vnet mode): GSO and partial-checksum
				    packets are handled, not dropped */
	/* private */
	pthread_t thread;
	bool running;
	int stop;                /* atomic flag */
	uint64_t heartbeat;      /* atomic: loop iterations (the watchdog's liveness) */
	int failed;              /* atomic: -errno when the worker stopped on
				    its own (see srv6_worker_failed) */
	struct srv6_icmp_tx *icmp;
	struct srv6_worker_stats st;
	struct srv6_ratelimit hmac_rl;   /* "SRH HMAC check failed" lines */
	struct srv6_ratelimit loop_rl;   /* a policy's result back too deep */
	/* conf gso refusals, one line each (docs/DATAPATH.md "GSO") */
	struct srv6_ratelimit gso_mtu_rl;   /* no segment size fits the MTU */
	struct srv6_ratelimit gso_segs_rl;  /* too many software segments */
	struct srv6_ratelimit gso_big_rl;   /* result over 65535 bytes */
	struct srv6_ratelimit trunc_rl;     /* over NFQUEUE's copy limit */
	uint8_t *segbuf;         /* software GSO segments until the inject flush */
	size_t segused;
	int ifd;                 /* ioctl socket for link MTUs (-1 none yet) */
	unsigned int mtu6, mtu4; /* smallest MTU of the up links that can carry
				    IPv6 / IPv4 (never 0 once read) */
	int64_t mtu_at;          /* when read (CLOCK_MONOTONIC_COARSE s; -1 never) */
};

/**
 * srv6_worker_start - start the thread of @w (fields above filled).
 * Returns 0 or -errno.  Control thread.
 */
int srv6_worker_start(struct srv6_worker *w);

/**
 * srv6_worker_stop - ask the worker to stop, and wait for it: it finishes
 * the batch in hand, verdicts everything still readable on its socket
 * (non-blocking drain) and unregisters as a reader.  The queue stays bound:
 * the caller closes w->nfq afterwards.  Control thread.
 */
void srv6_worker_stop(struct srv6_worker *w);

/**
 * srv6_worker_heartbeat - @w's loop iteration count: it moves at least once
 * per receive timeout while the worker runs, and stops when the thread is
 * stuck or gone.  Any thread.
 */
static inline uint64_t srv6_worker_heartbeat(const struct srv6_worker *w)
{
	return __atomic_load_n(&w->heartbeat, __ATOMIC_RELAXED);
}

/**
 * srv6_worker_failed - 0 while @w runs (or was stopped by srv6_worker_stop),
 * -errno when its thread ended on its own because its queue socket became
 * unusable (EBADF, ENOTSOCK): the queue is then bound but unread, and the
 * caller must not go on as if it were served (srv6d logs and exits non-zero).
 * Any thread.
 */
int srv6_worker_failed(const struct srv6_worker *w);

/** srv6_worker_stats_read - copy @w's counters (any thread). */
void srv6_worker_stats_read(const struct srv6_worker *w, struct srv6_worker_stats *out);

/**
 * srv6_worker_handle - process one received packet and add its verdict to
 * the queue's batch.  Exposed for tests and benchmarks; the caller must be a
 * registered, online reader of @w->cache.  Returns 0 or the -errno of a
 * failed verdict flush.
 */
int srv6_worker_handle(struct srv6_worker *w, struct srv6_nfq_packet *p);

#endif
