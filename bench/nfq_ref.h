/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nfq_ref.h - the NFQUEUE round trip of bench's reference consumers
 * (nfq_floor, nfq_end, nfq_behav), written once: the queue's settings, the
 * receive (recvmmsg of up to NFQR_BATCH datagrams into static slots), the
 * walk over the packets of a receive, and verdicts batched NFQR_BATCH per
 * sendmsg, each optionally carrying a payload through iovecs (a pushed
 * header in its own iovec, the received bytes never copied), and End.
 *
 * It shares no code with srv6d on purpose (the references measure the
 * NFQUEUE round trip, not srv6d's implementation of it): header-only,
 * static inline, included by bench/ only.  The settings are srv6d's: copy
 * packet 0xffff, F_GSO, F_FAIL_OPEN and F_CONNTRACK off, 2048 bytes of
 * receive buffer per queued packet.  One thread per struct nfqr.
 */
#ifndef SRV6D_BENCH_NFQ_REF_H
#define SRV6D_BENCH_NFQ_REF_H

#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#define NFQR_BATCH 64
#define NFQR_SLOT  (0xffff + 4096)

struct nfqr {
	struct mnl_socket *nl;
	int fd;
	unsigned int queue;
	unsigned int per_send;           /* verdicts per sendmsg (NFQR_BATCH, or 1) */
	/* receive: datagram i of the last receive is rx[i], mm[i].msg_len bytes */
	struct mmsghdr mm[NFQR_BATCH];
	struct iovec rxiov[NFQR_BATCH];
	int nrx;                         /* datagrams of the last receive */
	int cur;                         /* nfqr_next(): datagram ... */
	const struct nlmsghdr *m;        /* ... message ... */
	int mlen;                        /* ... and what is left of it */
	/* verdicts not sent yet: nv messages in vb[0..nv), niov iovecs */
	unsigned int nv, niov;
	struct iovec txiov[NFQR_BATCH * 4];
	unsigned long long packets, verdicts, sendmsgs, enobufs;
};

/* One packet of a receive. */
struct nfqr_pkt {
	uint32_t id;
	uint8_t *data;                   /* NULL: no payload attribute */
	uint32_t len;
};

static uint8_t nfqr_rx[NFQR_BATCH][NFQR_SLOT] __attribute__((aligned(8)));
static uint8_t nfqr_vb[NFQR_BATCH][64] __attribute__((aligned(8)));
static const uint8_t nfqr_pad[4];
static volatile sig_atomic_t nfqr_stop;

static void nfqr_on_signal(int sig)
{
	(void)sig;
	nfqr_stop = 1;
}

/* Pin the caller to @cpu (-1: leave it), stop on SIGINT/SIGTERM. */
static inline void nfqr_setup(int cpu)
{
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			perror("sched_setaffinity");
	}
	signal(SIGINT, nfqr_on_signal);
	signal(SIGTERM, nfqr_on_signal);
}

static inline int nfqr_cfg_ack(struct mnl_socket *nl, struct nlmsghdr *nlh)
{
	char buf[8192] __attribute__((aligned(8)));
	uint32_t seq = (uint32_t)time(NULL);
	int n;

	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	n = (int)mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	return mnl_cb_run(buf, (size_t)n, seq, mnl_socket_get_portid(nl), NULL, NULL) < 0 ? -errno : 0;
}

/* Bind @queue with srv6d's settings and up to @maxlen packets.  0, or -1
 * with the reason on stderr. */
static inline int nfqr_open(struct nfqr *r, unsigned int queue, unsigned int maxlen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	struct timeval tv = { .tv_usec = 200000 };
	struct nlmsghdr *nlh;
	int rb;

	memset(r, 0, sizeof(*r));
	r->queue = queue;
	r->per_send = NFQR_BATCH;
	r->nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!r->nl || mnl_socket_bind(r->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("netlink");
		return -1;
	}
	r->fd = mnl_socket_get_fd(r->nl);
	/* as srv6d: 2048 bytes per queued packet (doubled by the kernel) */
	rb = (int)(maxlen < 512 ? 1 << 20 : maxlen > 131072 ? 256 << 20 : maxlen * 2048);
	if (setsockopt(r->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb)) < 0)
		(void)setsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	setsockopt(r->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, queue);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET6, NFQNL_CFG_CMD_BIND);
	if (nfqr_cfg_ack(r->nl, nlh) < 0) {
		perror("bind");
		return -1;
	}
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, queue);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, 0xffff);
	nfq_nlmsg_cfg_put_qmaxlen(nlh, maxlen);
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(0));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(NFQA_CFG_F_FAIL_OPEN | NFQA_CFG_F_GSO |
						    NFQA_CFG_F_CONNTRACK));
	if (nfqr_cfg_ack(r->nl, nlh) < 0) {
		perror("config");
		return -1;
	}
	for (int i = 0; i < NFQR_BATCH; i++) {
		r->rxiov[i].iov_base = nfqr_rx[i];
		r->rxiov[i].iov_len = NFQR_SLOT;
		r->mm[i].msg_hdr.msg_iov = &r->rxiov[i];
		r->mm[i].msg_hdr.msg_iovlen = 1;
	}
	return 0;
}

/* Unbind and close. */
static inline void nfqr_close(struct nfqr *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, r->queue);

	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET6, NFQNL_CFG_CMD_UNBIND);
	mnl_socket_sendto(r->nl, nlh, nlh->nlmsg_len);
	mnl_socket_close(r->nl);
}

/* Until a signal, or @seconds (0: none) have passed. */
static inline bool nfqr_running(time_t endt)
{
	return !nfqr_stop && (!endt || time(NULL) < endt);
}

/* One receive: the number of datagrams, or -1 (timeout, signal; ENOBUFS
 * counted).  nfqr_next() walks their packets. */
static inline int nfqr_recv(struct nfqr *r)
{
	int n = recvmmsg(r->fd, r->mm, NFQR_BATCH, MSG_WAITFORONE, NULL);

	if (n < 0) {
		if (errno == ENOBUFS)
			r->enobufs++;
		n = 0;
	}
	r->nrx = n;
	r->cur = 0;
	r->m = n ? (const struct nlmsghdr *)nfqr_rx[0] : NULL;
	r->mlen = n ? (int)r->mm[0].msg_len : 0;
	return n ? n : -1;
}

/* The next packet of the last receive into *@p (counted): true, or false
 * when there is none left.  Messages that are not packets are skipped. */
static inline bool nfqr_next(struct nfqr *r, struct nfqr_pkt *p)
{
	while (r->cur < r->nrx) {
		for (; mnl_nlmsg_ok(r->m, r->mlen); r->m = mnl_nlmsg_next(r->m, &r->mlen)) {
			struct nlattr *attr[NFQA_MAX + 1] = { 0 };
			const struct nfqnl_msg_packet_hdr *ph;
			const struct nlmsghdr *m = r->m;

			if (m->nlmsg_type != ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET))
				continue;
			if (nfq_nlmsg_parse(m, attr) < 0 || !attr[NFQA_PACKET_HDR])
				continue;
			ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
			p->id = ntohl(ph->packet_id);
			p->data = attr[NFQA_PAYLOAD] ? mnl_attr_get_payload(attr[NFQA_PAYLOAD]) : NULL;
			p->len = attr[NFQA_PAYLOAD] ? mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]) : 0;
			r->m = mnl_nlmsg_next(r->m, &r->mlen);
			r->packets++;
			return true;
		}
		if (++r->cur < r->nrx) {
			r->m = (const struct nlmsghdr *)nfqr_rx[r->cur];
			r->mlen = (int)r->mm[r->cur].msg_len;
		}
	}
	return false;
}

/* The verdicts not sent yet, in one sendmsg. */
static inline void nfqr_flush(struct nfqr *r)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct msghdr mh = { .msg_name = &sa, .msg_namelen = sizeof(sa),
			     .msg_iov = r->txiov, .msg_iovlen = r->niov };

	if (!r->nv)
		return;
	if (sendmsg(r->fd, &mh, 0) >= 0) {
		r->sendmsgs++;
		r->verdicts += r->nv;
	}
	r->nv = r->niov = 0;
}

/* Start verdict @verdict for packet @id in the next slot; the caller may
 * add a mark, then ends it with nfqr_commit() or nfqr_commit_payload().
 * The slot's index (for a per-slot pushed header) is r->nv. */
static inline struct nlmsghdr *nfqr_verdict(struct nfqr *r, uint32_t id, int verdict)
{
	struct nlmsghdr *v = nfq_nlmsg_put((char *)nfqr_vb[r->nv], NFQNL_MSG_VERDICT, r->queue);

	nfq_nlmsg_verdict_put(v, (int)id, verdict);
	return v;
}

static inline void nfqr_commit(struct nfqr *r, struct nlmsghdr *v)
{
	r->txiov[r->niov].iov_base = v;
	r->txiov[r->niov++].iov_len = v->nlmsg_len;
	if (++r->nv == r->per_send)
		nfqr_flush(r);
}

/* End @v with the payload @push (@pushlen bytes, may be 0) followed by
 * @data (@len bytes): iovecs pointing at them, which must stay valid until
 * the verdict is sent (the caller's nfqr_flush() after each receive's
 * packets, before the next nfqr_recv() reuses the slots). */
static inline void nfqr_commit_payload(struct nfqr *r, struct nlmsghdr *v, const uint8_t *push,
				       uint32_t pushlen, const uint8_t *data, uint32_t len)
{
	uint32_t tot = pushlen + len;
	struct nlattr *a = mnl_nlmsg_get_payload_tail(v);

	a->nla_type = NFQA_PAYLOAD;
	a->nla_len = (uint16_t)(MNL_ATTR_HDRLEN + tot);
	v->nlmsg_len += MNL_ATTR_HDRLEN;
	r->txiov[r->niov].iov_base = v;
	r->txiov[r->niov++].iov_len = v->nlmsg_len;
	if (pushlen) {
		r->txiov[r->niov].iov_base = (void *)push;
		r->txiov[r->niov++].iov_len = pushlen;
	}
	r->txiov[r->niov].iov_base = (void *)data;
	r->txiov[r->niov++].iov_len = len;
	if (MNL_ALIGN(tot) != tot) {
		r->txiov[r->niov].iov_base = (void *)nfqr_pad;
		r->txiov[r->niov++].iov_len = MNL_ALIGN(tot) - tot;
	}
	v->nlmsg_len += MNL_ALIGN(tot);
	if (++r->nv == r->per_send)
		nfqr_flush(r);
}

/* End (RFC 8986 4.1, what nfq_end and nfq_behav -a x|b6 run) on the IPv6 packet @p (@len bytes), in place: 0, or -1 (drop). */
static inline int nfqr_end(uint8_t *p, uint32_t len)
{
	uint8_t *srh = p + 40;
	unsigned int sl;

	if (len < 48 || (p[0] >> 4) != 6 || p[6] != 43)
		return -1;
	if (srh[2] != 4 || len < 40 + 8 + 8 * (uint32_t)srh[1])
		return -1;
	sl = srh[3];
	if (sl == 0 || (sl > srh[1] / 2))
		return -1;
	sl--;
	srh[3] = (uint8_t)sl;
	memcpy(p + 24, srh + 8 + 16 * sl, 16);
	return 0;
}

#endif
