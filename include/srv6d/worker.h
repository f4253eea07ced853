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
 *   result of another family than the hook's, or an Ethernet frame (the
 *   egress issue: cross-family and L2 egress)   NF_DROP, "xfamily", and the
 *                             SID's errors + drops[unsupported]
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
#include "nfq.h"

struct srv6_icmp_tx;

struct srv6_worker_stats {
	uint64_t packets;        /* packets handled (one verdict each) */
	uint64_t accepted;       /* NF_ACCEPT with a rewritten payload */
	uint64_t dropped;        /* NF_DROP, any reason */
	uint64_t miss;           /* no SID/policy: NF_ACCEPT unchanged */
	uint64_t malformed;      /* not an IPv6/IPv4 packet we can parse */
	uint64_t truncated;
	uint64_t gso;            /* GSO packet (F_GSO is off: never expected) */
	uint64_t xfamily;        /* result family differs from the hook's / L2 */
	uint64_t too_big;        /* rewritten packet does not fit a verdict */
	uint64_t icmp_sent;
	uint64_t icmp_limited;   /* suppressed by the rate limit */
	uint64_t icmp_failed;    /* not answerable / no socket / send error */
	uint64_t icmp_ignored;   /* Echo Reply not sent: echo_ignore_all */
	uint64_t batches;        /* receive batches processed */
};

struct srv6_worker {
	/* set by the caller before srv6_worker_start() */
	unsigned int idx;        /* counter slot index, < cache nworkers */
	unsigned int nworkers;   /* for the ICMP rate share */
	int cpu;                 /* CPU to pin to, -1 none */
	struct srv6_cache *cache;
	struct srv6_nfq *nfq;    /* opened (bound) by the caller; the worker
				    drains it on stop, the caller closes it */
	/* private */
	pthread_t thread;
	bool running;
	int stop;                /* atomic flag */
	int failed;              /* atomic: -errno when the worker stopped on
				    its own (see srv6_worker_failed) */
	struct srv6_icmp_tx *icmp;
	struct srv6_worker_stats st;
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
