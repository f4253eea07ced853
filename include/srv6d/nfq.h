/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nfq.h - one NFQUEUE queue: a netlink socket bound to it, batched receive
 * (recvmmsg) and batched verdicts (many NFQNL_MSG_VERDICT messages in one
 * sendmsg, rewritten payloads pointed to by iovecs, never copied).
 *
 * libnetfilter_queue's libmnl API (nfq_nlmsg_*) and libmnl; not the
 * deprecated nfq_* handle API.
 *
 * Queue configuration (one NFQNL_MSG_CONFIG with the bind command, copy mode
 * NFQNL_COPY_PACKET 0xffff, queue maxlen and ONE NFQA_CFG_FLAGS/NFQA_CFG_MASK
 * pair carrying every flag):
 *  - NFQA_CFG_F_FAIL_OPEN as configured.
 *  - NFQA_CFG_F_GSO OFF, deliberately.  The kernel's nfqnl_mangle() sets
 *    ip_summed = CHECKSUM_NONE on every packet whose payload a verdict
 *    replaces.  With F_GSO on, a CHECKSUM_PARTIAL packet (NFQA_SKB_CSUMNOTREADY:
 *    anything coming from a veth/virtio peer or GRO) would then leave with its
 *    L4 checksum never completed, and a rewritten GSO super-packet would reach
 *    segmentation with CHECKSUM_NONE.  Every behavior srv6d runs rewrites the
 *    packet, so with F_GSO off the kernel segments GSO packets and finishes
 *    their checksums (skb_checksum_help) before queueing them, and every
 *    payload we echo back is final.  The flags are still parsed: a packet
 *    that claims NFQA_SKB_GSO or NFQA_SKB_CSUMNOTREADY (another kernel) is
 *    counted (see struct srv6_nfq_stats) and handled by the worker.
 *  - NFQA_CFG_F_CONNTRACK, _UID_GID, _SECCTX off (nothing uses them; they cost
 *    per packet).
 *  - The receive buffer is set (SO_RCVBUFFORCE, else SO_RCVBUF) to
 *    maxlen * SRV6_NFQ_RCVBUF_PER_PKT bounded to [1 MiB, 256 MiB];
 *    NETLINK_NO_ENOBUFS stays off: ENOBUFS means the kernel dropped packets
 *    it could not deliver (nothing to verdict); it is counted and survived.
 *  - SO_RCVTIMEO so a blocked receive returns and the loop notices shutdown.
 *
 * Truncated packets (NFQA_CAP_LEN larger than the payload; only possible for
 * packets over 65531 bytes) are reported with truncated = true: the caller
 * must not echo their payload (the kernel would cut the packet).  srv6d
 * drops them with a counter (they cannot be processed, and accepting them
 * unchanged would deliver an SRv6 packet addressed to a SID as if no SID
 * existed).
 *
 * Threading: a struct srv6_nfq belongs to one thread at a time (the worker
 * that serves the queue; main opens and closes it).  No locks.
 */
#ifndef SRV6D_NFQ_H
#define SRV6D_NFQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRV6_NFQ_BATCH           64       /* packets per receive, verdicts per sendmsg */
#define SRV6_NFQ_COPY_RANGE      0xffff
#define SRV6_NFQ_RCVBUF_PER_PKT  2048u    /* receive buffer bytes per queued packet */
#define SRV6_NFQ_BATCH_BYTES     (1u << 20) /* flush a batch before it exceeds this */

struct srv6_nfq;

struct srv6_nfq_opts {
	uint16_t queue;
	uint32_t maxlen;          /* queue length in packets */
	bool fail_open;           /* NFQA_CFG_F_FAIL_OPEN */
	bool gso;                 /* NFQA_CFG_F_GSO: GSO packets queued whole,
				     partial checksums left partial (the
				     worker must handle both: conf gso) */
	unsigned int batch;       /* verdicts per sendmsg, 1..SRV6_NFQ_BATCH; 0 = max */
	unsigned int rcvtimeo_ms; /* receive timeout; 0 = 200 ms */
	size_t headroom;          /* bytes reserved in front of each received
				     message, usable by the engine to grow the
				     first packet of a datagram in place */
};

/* Per-queue counters: written by the owner thread only (relaxed atomic
 * stores), readable from any thread with srv6_nfq_stats_read(). */
struct srv6_nfq_stats {
	uint64_t packets;         /* packet messages received */
	uint64_t recv_calls;      /* recvmmsg calls that returned data */
	uint64_t enobufs;         /* ENOBUFS: the kernel dropped packets */
	uint64_t bad_msgs;        /* unparseable packet messages (verdict DROP if id known) */
	uint64_t lost_ids;        /* packet messages without a usable packet id */
	uint64_t truncated;       /* datagrams cut by our buffer or NFQA_CAP_LEN */
	uint64_t gso;             /* packets flagged NFQA_SKB_GSO */
	uint64_t csum_not_ready;  /* packets flagged NFQA_SKB_CSUMNOTREADY */
	uint64_t verdicts;        /* verdicts sent */
	uint64_t sendmsgs;        /* sendmsg calls that carried them */
	uint64_t send_errors;     /* failed sendmsg attempts */
	uint64_t verdict_errors;  /* NLMSG_ERROR replies to our verdicts */
	uint64_t fallback_drops;  /* verdicts that could not be sent, replaced
				     by NF_DROP without payload */
	uint64_t verdict_enoent;  /* of verdict_errors: ENOENT, the kernel had no
				     such packet (it dropped it itself: device
				     down, hook unregistered; pqueue.h) */
};

/** One received packet, valid until the next srv6_nfq_recv() on the queue. */
struct srv6_nfq_packet {
	uint32_t id;              /* packet id: exactly one verdict per id */
	uint16_t hw_proto;        /* ETH_P_IPV6 / ETH_P_IP, host order */
	uint8_t hook;
	uint32_t mark;
	uint32_t priority;        /* skb->priority (NFQA_PRIORITY), 0 if absent */
	uint32_t skbinfo;         /* NFQA_SKB_* flags */
	uint32_t indev;           /* input ifindex, 0 if unknown */
	uint32_t outdev;          /* output ifindex, 0 if unknown */
	uint8_t *data;            /* payload, writable in place */
	uint32_t len;             /* payload bytes */
	uint32_t orig_len;        /* packet length (NFQA_CAP_LEN or len) */
	bool truncated;           /* payload is not the whole packet */
	uint8_t *room;            /* writable bytes start here (<= data) */
	size_t room_len;          /* writable bytes from room (>= data - room + len) */
};

/**
 * srv6_nfq_open - open a netlink socket, bind queue @o->queue and configure
 * it.  Returns 0 and *@qp, or -errno with one line in @err (e.g. "queue 0:
 * bind: Device or resource busy" when another process owns the queue).
 * Any thread; the result belongs to the caller.
 */
int srv6_nfq_open(struct srv6_nfq **qp, const struct srv6_nfq_opts *o,
		  char *err, size_t errlen);

/**
 * srv6_nfq_close - flush pending verdicts, unbind the queue (the kernel
 * drops whatever is still queued to it, so call only after draining), close
 * the socket and free.  NULL accepted.  Owner thread.
 */
void srv6_nfq_close(struct srv6_nfq *q);

/**
 * srv6_nfq_recv - receive up to the batch size datagrams with one recvmmsg.
 * With @wait the call blocks for the first one (at most the receive timeout),
 * otherwise it does not block.  Pending verdicts must have been flushed
 * (they point into the buffers this call overwrites): it flushes them itself
 * if needed.  Returns the number of datagrams (> 0), 0 on timeout/nothing
 * pending, or -errno.  An ENOBUFS (the kernel dropped packets it could not
 * deliver) is counted and the receive retried at once (up to 8 times in a
 * row, then 0): the error is reported before the messages still queued, so a
 * non-blocking drain loop "until 0" goes on past it.  Owner thread.
 */
int srv6_nfq_recv(struct srv6_nfq *q, bool wait);

/**
 * srv6_nfq_next - the next packet of what the last srv6_nfq_recv() got.
 * Returns 1 and fills *@p, or 0 when all are consumed.  Non-packet messages
 * (verdict errors) are counted and skipped; an unparseable packet message is
 * given a DROP verdict here and counted (bad_msgs), and so is a packet
 * message cut by a truncated datagram (MSG_TRUNC) whose packet id was
 * received (else it is counted in lost_ids).  For every packet
 * returned the caller must call srv6_nfq_verdict() exactly once.
 */
int srv6_nfq_next(struct srv6_nfq *q, struct srv6_nfq_packet *p);

/**
 * srv6_nfq_verdict - add a verdict (NF_ACCEPT/NF_DROP) for packet @id to the
 * batch, with the mark @mark when @set_mark, and the new payload @data/@len
 * when @data is not NULL (not copied: it must stay valid until the batch is
 * flushed, which happens at the latest in the next srv6_nfq_recv()).
 * Flushes the batch itself when it is full.  Returns 0 or -errno of a failed
 * flush (the verdicts are retried one by one before giving up: counted).
 */
int srv6_nfq_verdict(struct srv6_nfq *q, uint32_t id, uint32_t verdict,
		     bool set_mark, uint32_t mark, const void *data, uint32_t len);

/**
 * srv6_nfq_flush - send every pending verdict in one sendmsg.  Returns 0 or
 * -errno (see srv6_nfq_verdict).  Owner thread.
 */
int srv6_nfq_flush(struct srv6_nfq *q);

/** srv6_nfq_pending - verdicts in the batch not yet sent. */
unsigned int srv6_nfq_pending(const struct srv6_nfq *q);

/**
 * srv6_nfq_rcvbuf - the receive buffer size srv6_nfq_open() asked for (sized
 * to queue-maxlen) and the size the kernel granted (smaller when
 * SO_RCVBUFFORCE was refused and net.core.rmem_max capped it).  Any thread.
 */
void srv6_nfq_rcvbuf(const struct srv6_nfq *q, size_t *want, size_t *got);

/** srv6_nfq_queue - the queue number. */
uint16_t srv6_nfq_queue(const struct srv6_nfq *q);

/**
 * srv6_nfq_packet_id - the packet id of the NFQNL_MSG_PACKET message @msg of
 * which only @len bytes were received (possibly cut anywhere).  Returns 0 and
 * *@id when the whole NFQA_PACKET_HDR attribute is within them, -ENOENT when
 * it is not, -EINVAL for another message type or broken attributes.  Pure.
 */
int srv6_nfq_packet_id(const void *msg, size_t len, uint32_t *id);

/** srv6_nfq_stats_read - copy the counters (any thread, relaxed loads). */
void srv6_nfq_stats_read(const struct srv6_nfq *q, struct srv6_nfq_stats *out);

#endif
