/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pqueue.h - a verdict-policy queue ("queue N policy ..." in srv6d.conf,
 * docs/REINJECTION.md): one thread per queue that runs no SRv6 behavior and
 * gives every packet its policy's verdict, recording what it saw.
 *
 * Exactly one verdict per packet id, on every path:
 *   accept [mark M]   NF_ACCEPT (mark set when configured)
 *   drop              NF_DROP
 *   repeat [mark M]   NF_REPEAT with the packet's mark | M; a packet already
 *                     carrying every bit of M gets NF_ACCEPT (the guard).
 *                     Without M the packet loops until the steering rule
 *                     stops matching it.
 *   requeue Q         NF_QUEUE to Q (no bypass: the kernel drops it when
 *                     nobody listens on Q)
 *   hold              no verdict until srv6_pq_release(): NF_ACCEPT then
 *   delay D           NF_ACCEPT once D has passed (checked every
 *                     SRV6_PQ_TICK_MS; srv6_pq_release() releases early)
 *   stop (SIGTERM)    what is readable gets its policy's verdict, except
 *                     hold and delay: NF_ACCEPT at once; every held or
 *                     delayed packet gets NF_ACCEPT; then the caller unbinds
 *                     (the kernel drops what arrived after the drain)
 *   not parseable     NF_DROP (nfq.c)
 * Held and delayed packets wait in the kernel's queue and count against
 * queue-maxlen (the kernel's queue_total); past it the kernel drops (or,
 * with fail-open, accepts) new packets.  A verdict for a packet the kernel
 * flushed meanwhile comes back as a netlink error: counted (late; ENOENT
 * also as kernel_dropped), never fatal.
 *
 * The kernel drops queued packets itself without telling the listener:
 * every packet whose input or output device goes down (nfqnl_dev_drop at
 * NETDEV_DOWN) and every packet of every queue of the namespace when a
 * netfilter hook is unregistered (nfqnl_nf_hook_drop: an nft base chain or
 * table deleted, conntrack's hooks going with their last user).  Their
 * records would stay held forever, so the held list heals and is bounded:
 *   reconcile  every SRV6_PQ_RECONCILE_MS while something is held, the
 *              queue's thread reads the kernel's queue_total
 *              (/proc/net/netfilter/nfnetlink_queue).  Fewer packets there
 *              than records held means the kernel dropped some: when it
 *              holds none, every record older than one tick is stale; else
 *              the records whose input or output device is down or gone
 *              now are (asked per ifindex, SIOCGIFFLAGS: devices without a
 *              link-layer address, tun, WireGuard, PPP, count too).  Those
 *              get their NF_ACCEPT at once (reconciled): the kernel refuses
 *              it (ENOENT, kernel_dropped), or, had the guess been wrong,
 *              takes it: never a packet without verdict.
 *   bound      at most held_max records (queue-maxlen: the kernel queues
 *              no more, so a packet arriving while held_max are held
 *              proves one of them stale): first the records whose device
 *              is down or gone, else the oldest, are released with
 *              NF_ACCEPT (evicted).
 *   the gap    a device that went down and up again between two reconciles
 *              leaves no trace: srv6d cannot tell which records are stale
 *              (held_now above the kernel's waiting), and at a full list
 *              the oldest held packet, live or not, is released early.
 *              Closing it would take a probe per suspected record (NF_QUEUE
 *              to this very queue: a live packet comes back with a new id,
 *              a stale one is refused with ENOENT), not done.
 *
 * Threading: start/stop/release/show/reset from the control thread; the
 * queue's socket belongs to the queue's thread, which alone changes the
 * held list; the held list, the records and the counters are under
 * pq->lock, which is never held while verdicts are sent (a `queue show`
 * during a long release does not wait for it) nor while srv6_pq_show()
 * formats (it copies at most SRV6_PQ_SHOW_HELD records under the lock).
 */
#ifndef SRV6D_PQUEUE_H
#define SRV6D_PQUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "conf_defs.h"
#include "nfqstat.h"
#include "nfq.h"

#define SRV6_PQ_TICK_MS    20      /* receive timeout: delay and release resolution */
#define SRV6_PQ_RECENT     16      /* records of the last packets kept */
#define SRV6_PQ_SUMMARY    160
#define SRV6_PQ_RELEASE_WAIT_MS 200  /* srv6_pq_release() waits at most this long */
#define SRV6_PQ_RELEASE_CHUNK   256  /* verdicts sent per round without pq->lock */
#define SRV6_PQ_RECONCILE_MS    1000 /* held list against the kernel's queue_total */
#define SRV6_PQ_SHOW_HELD       256  /* held records srv6_pq_show() lists at most */

/** One packet as the queue saw it. */
struct srv6_pq_rec {
	uint32_t id;
	uint8_t hook;                   /* NF_INET_* */
	uint8_t family;                 /* AF_INET6 / AF_INET / 0 */
	uint32_t indev, outdev;         /* ifindex, 0 none */
	uint32_t mark;
	uint32_t priority;  /* skb->priority (NFQA_PRIORITY) */
	uint32_t len;
	uint64_t t_ms;                  /* CLOCK_MONOTONIC at arrival */
	char summary[SRV6_PQ_SUMMARY];  /* "2001:db8::1 > fc00::1 srh sl 1/2 nh udp" */
};

struct srv6_pq_stats {
	uint64_t packets;               /* received (each gets one verdict) */
	uint64_t accepted, dropped, repeated, requeued;
	uint64_t guarded;               /* repeat: mark already set, accepted */
	uint64_t held;                  /* entered the held list (hold, delay) */
	uint64_t released;              /* left it with NF_ACCEPT (all causes) */
	uint64_t evicted;               /* of released: the list was full (held_max) */
	uint64_t reconciled;            /* of released: the kernel had dropped them */
	uint64_t late;                  /* verdicts the kernel refused (flushed) */
	uint64_t kernel_dropped;        /* of late: ENOENT, the kernel had dropped the
					   packet itself (device down, hook gone) */
	uint64_t enobufs;               /* the kernel could not deliver packets */
};

struct srv6_pq {
	struct srv6_conf_pqueue cfg;    /* set before srv6_pq_start() */
	struct srv6_nfq *nfq;           /* opened by the caller, closed by it after stop */
	uint32_t held_max;              /* set before srv6_pq_start(): the queue's
					   queue-maxlen; 0: no bound */
	/* private */
	pthread_t thread;
	bool running;
	int stop;                       /* atomic */
	int failed;                     /* atomic: -errno when the thread ended on its own */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct srv6_pq_rec *held;       /* FIFO, oldest first */
	size_t nheld, cap;
	uint64_t rel_seq, rel_done;     /* release requests made / served */
	uint64_t rel_count, rel_last;   /* requested, not yet taken (UINT64_MAX all); released */
	uint64_t late_base, enobufs_base, kdrop_base; /* the nfq counters at the last reset */
	uint64_t reconcile_ms;          /* queue thread: next reconcile (CLOCK_MONOTONIC) */
	struct srv6_pq_rec recent[SRV6_PQ_RECENT];
	uint64_t nrecent;
	struct srv6_pq_stats st;
};

/** srv6_pq_start - start @pq's thread (cfg and nfq set).  0 or -errno.  Control thread. */
int srv6_pq_start(struct srv6_pq *pq);

/**
 * srv6_pq_stop - stop the thread: drain, then NF_ACCEPT for everything held
 * or delayed (see above).  The caller closes pq->nfq afterwards.  Control thread.
 */
void srv6_pq_stop(struct srv6_pq *pq);

/**
 * srv6_pq_release - ask @pq's thread to release the @count oldest held or
 * delayed packets (UINT64_MAX: all) with NF_ACCEPT, and wait at most
 * SRV6_PQ_RELEASE_WAIT_MS for it to have sent the verdicts: the control
 * loop is never held longer.  A request made while an earlier one is still
 * being served adds to it.  Returns how many were released; -EINPROGRESS
 * when the thread has not finished yet (it goes on: @pending, if not NULL,
 * gets how many the request covers now, at most what is held), or -ESRCH
 * (thread not running).  Control thread.
 */
long srv6_pq_release(struct srv6_pq *pq, uint64_t count, uint64_t *pending);

/**
 * srv6_pq_reset - set @pq's counters to zero (`srv6ctl stats reset`); what
 * is held stays held, the records stay.  Control thread.
 */
void srv6_pq_reset(struct srv6_pq *pq);

/**
 * srv6_pq_stats_read - a consistent copy of @pq's counters into @st, and
 * how many packets it holds now into @nheld (also once stopped: the final
 * counters).  Control thread.
 */
void srv6_pq_stats_read(struct srv6_pq *pq, struct srv6_pq_stats *st, size_t *nheld);

/**
 * srv6_pq_show - @pq's policy, counters, the kernel's counters @k (NULL:
 * none), held packets (the SRV6_PQ_SHOW_HELD oldest, and how many more)
 * and recent records (@held) as text or one JSON object.  Takes pq->lock
 * only to copy them: formatting (and a slow @o) never holds up the queue's
 * thread.  Control thread.
 */
void srv6_pq_show(struct srv6_pq *pq, FILE *o, bool json, bool held,
		  const struct srv6_nfq_kstats *k);

/** srv6_pq_failed - 0 while it runs, -errno when its socket became unusable. */
int srv6_pq_failed(const struct srv6_pq *pq);

/**
 * srv6_pq_summary - one line for the packet @data/@len of family @family:
 * addresses, next header, Segments Left/segments of an SRH.  Pure.
 */
void srv6_pq_summary(char *buf, size_t len, int family, const uint8_t *data, uint32_t dlen);

#endif
