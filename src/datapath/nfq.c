// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfq.c - one NFQUEUE queue: bind/configure, recvmmsg, batched verdicts.
 * See include/srv6d/nfq.h for the decisions (flags, truncation, ENOBUFS).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#include "srv6d/nfq.h"

/* Room for one received datagram: the payload (copy range) plus the netlink
 * header and every attribute nfnetlink_queue puts in front of it. */
#define RX_SLOT_DATA (SRV6_NFQ_COPY_RANGE + 1 + 4096)
/* nlmsghdr + nfgenmsg + verdict hdr + mark + payload attr header, aligned. */
#define VHDR_MAX 64

#define RCVBUF_MIN (1u << 20)
#define RCVBUF_MAX (256u << 20)

struct srv6_nfq {
	struct mnl_socket *nl;
	int fd;
	uint16_t queue;
	unsigned int batch;
	size_t headroom;

	/* receive side */
	uint8_t *rx;                    /* SRV6_NFQ_BATCH slots */
	size_t slot_size;               /* headroom + RX_SLOT_DATA */
	struct mmsghdr mm[SRV6_NFQ_BATCH];
	struct iovec rxiov[SRV6_NFQ_BATCH];
	int nrx;                        /* datagrams of the last recv */
	int cur;                        /* datagram being walked */
	size_t cur_off;                 /* offset of the next message in it */

	/* verdict batch */
	unsigned int nv;                /* verdicts pending */
	size_t vbytes;                  /* bytes pending */
	size_t batch_bytes;             /* flush before vbytes exceeds this */
	size_t rcvbuf_want, rcvbuf_got; /* receive buffer asked for / granted */
	unsigned int niov;
	struct iovec txiov[SRV6_NFQ_BATCH * 3];
	uint8_t vhdr[SRV6_NFQ_BATCH][VHDR_MAX] __attribute__((aligned(8)));

	struct srv6_nfq_stats st;
};

static const uint8_t zero_pad[4];

#define ST_ADD(q, f, n) \
	__atomic_store_n(&(q)->st.f, __atomic_load_n(&(q)->st.f, __ATOMIC_RELAXED) + (n), \
			 __ATOMIC_RELAXED)
#define ST_INC(q, f) ST_ADD(q, f, 1)

/* Send one configuration message for @q and wait for its ACK.  Packets that
 * arrive meanwhile (rules already in place) get @early_verdict. */
#define CFG_ACK_TIMEOUT_MS 5000

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int nfq_cfg_send(struct srv6_nfq *q, struct nlmsghdr *nlh, uint32_t early_verdict)
{
	static uint32_t seq_gen;
	uint32_t seq = __atomic_add_fetch(&seq_gen, 1, __ATOMIC_RELAXED) + (uint32_t)time(NULL);
	uint32_t portid = mnl_socket_get_portid(q->nl);
	int64_t deadline = mono_ms() + CFG_ACK_TIMEOUT_MS;
	uint8_t *buf;
	int ret;

	/* Packets may already be queued (rules in place, copy range set by a
	 * previous message): the buffer takes the largest packet message, so
	 * none is cut and every one gets its early verdict. */
	buf = aligned_alloc(8, RX_SLOT_DATA);
	if (!buf)
		return -ENOMEM;
	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	if (mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out_free;
	}

	for (;;) {
		ssize_t n;
		const struct nlmsghdr *m;
		int len;

		/* Traffic keeps recv from timing out: bound the wait. */
		if (mono_ms() > deadline) {
			ret = -ETIMEDOUT;
			goto out_free;
		}
		n = recv(q->fd, buf, RX_SLOT_DATA, 0);
		if (n < 0) {
			/* ENOBUFS: the kernel dropped messages, perhaps our
			 * ACK (a second BIND would answer EBUSY, so it is not
			 * resent): the deadline turns that into ETIMEDOUT. */
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			ret = errno == EAGAIN ? -ETIMEDOUT : -errno;
			goto out_free;
		}
		len = (int)n;
		for (m = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(m, len);
		     m = mnl_nlmsg_next(m, &len)) {
			if (m->nlmsg_type == NLMSG_ERROR && m->nlmsg_seq == seq &&
			    m->nlmsg_pid == portid) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(m);

				ret = e->error;
				goto out_free;
			}
			if (m->nlmsg_type == ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET)) {
				struct nlattr *attr[NFQA_MAX + 1] = { 0 };

				if (nfq_nlmsg_parse(m, attr) >= 0 && attr[NFQA_PACKET_HDR]) {
					const struct nfqnl_msg_packet_hdr *ph =
						mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
					char vb[VHDR_MAX] __attribute__((aligned(8)));
					struct nlmsghdr *v = nfq_nlmsg_put(vb, NFQNL_MSG_VERDICT, q->queue);

					nfq_nlmsg_verdict_put(v, ntohl(ph->packet_id), (int)early_verdict);
					if (mnl_socket_sendto(q->nl, v, v->nlmsg_len) < 0)
						ST_INC(q, send_errors);
					else
						ST_INC(q, verdicts);
				} else {
					ST_INC(q, lost_ids);
				}
			}
		}
	}
out_free:
	free(buf);
	return ret;
}

static void set_err(char *err, size_t errlen, uint16_t queue, const char *what, int e)
{
	if (errlen)
		snprintf(err, errlen, "queue %u: %s: %s", queue, what, strerror(e));
}

int srv6_nfq_open(struct srv6_nfq **qp, const struct srv6_nfq_opts *o,
		  char *err, size_t errlen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	struct srv6_nfq *q;
	struct nlmsghdr *nlh;
	struct timeval tv;
	uint64_t rcvbuf;
	int one = 1, sndbuf = 8 << 20, rb, ret;
	uint32_t flags;

	q = calloc(1, sizeof(*q));
	if (!q) {
		set_err(err, errlen, o->queue, "alloc", ENOMEM);
		return -ENOMEM;
	}
	q->queue = o->queue;
	q->batch = o->batch && o->batch <= SRV6_NFQ_BATCH ? o->batch : SRV6_NFQ_BATCH;
	q->headroom = (o->headroom + 7) & ~(size_t)7;
	q->slot_size = (q->headroom + RX_SLOT_DATA + 63) & ~(size_t)63;  /* aligned slots */
	q->rx = malloc(q->slot_size * SRV6_NFQ_BATCH);
	if (!q->rx) {
		set_err(err, errlen, o->queue, "alloc", ENOMEM);
		ret = -ENOMEM;
		goto out_free;
	}
	for (unsigned int i = 0; i < SRV6_NFQ_BATCH; i++) {
		q->rxiov[i].iov_base = q->rx + i * q->slot_size + q->headroom;
		q->rxiov[i].iov_len = RX_SLOT_DATA;
		q->mm[i].msg_hdr.msg_iov = &q->rxiov[i];
		q->mm[i].msg_hdr.msg_iovlen = 1;
	}

	q->nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	if (!q->nl) {
		ret = -errno;
		set_err(err, errlen, o->queue, "netlink socket", errno);
		goto out_free_rx;
	}
	if (mnl_socket_bind(q->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		set_err(err, errlen, o->queue, "netlink bind", errno);
		goto out_close;
	}
	q->fd = mnl_socket_get_fd(q->nl);

	/* Receive buffer sized to the queue: every queued packet may sit in it. */
	rcvbuf = (uint64_t)(o->maxlen ? o->maxlen : 1024) * SRV6_NFQ_RCVBUF_PER_PKT;
	if (rcvbuf < RCVBUF_MIN)
		rcvbuf = RCVBUF_MIN;
	if (rcvbuf > RCVBUF_MAX)
		rcvbuf = RCVBUF_MAX;
	rb = (int)rcvbuf;
	if (setsockopt(q->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb)) < 0)
		(void)setsockopt(q->fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	q->rcvbuf_want = rcvbuf;
	{
		int got = 0;
		socklen_t gl = sizeof(got);

		/* The kernel reports twice the value it was given. */
		if (getsockopt(q->fd, SOL_SOCKET, SO_RCVBUF, &got, &gl) == 0 && got > 0)
			q->rcvbuf_got = (size_t)got / 2;
	}
	/* A batch of verdicts with payloads is one skb on the kernel side. */
	if (setsockopt(q->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) < 0)
		(void)setsockopt(q->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	/* Without CAP_NET_ADMIN in the initial namespace the FORCE variants
	 * fail and the kernel caps at wmem_max: a batch larger than the send
	 * buffer would fail with EMSGSIZE every time, so size batches to what
	 * we really got (the kernel reports twice the usable value). */
	q->batch_bytes = SRV6_NFQ_BATCH_BYTES;
	{
		int got = 0;
		socklen_t gl = sizeof(got);

		if (getsockopt(q->fd, SOL_SOCKET, SO_SNDBUF, &got, &gl) == 0 && got > 0) {
			size_t usable = (size_t)got / 2;
			size_t single = 65536 + 4096; /* one verdict, full payload */

			if (usable < q->batch_bytes + 4096)
				q->batch_bytes = usable > single + 4096 ? usable - 4096 : single;
		}
	}
	tv.tv_sec = (o->rcvtimeo_ms ? o->rcvtimeo_ms : 200) / 1000;
	tv.tv_usec = (long)((o->rcvtimeo_ms ? o->rcvtimeo_ms : 200) % 1000) * 1000;
	if (setsockopt(q->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		ret = -errno;
		set_err(err, errlen, o->queue, "SO_RCVTIMEO", errno);
		goto out_close;
	}
	/* Extended ACKs make configuration errors readable in strace; harmless. */
	(void)setsockopt(q->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	/* An error about a verdict must not echo its (up to 64 KiB) payload
	 * back into the receive buffer. */
	(void)setsockopt(q->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	/* Bind, then everything else in one message (one flags/mask pair). */
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, q->queue);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET6, NFQNL_CFG_CMD_BIND);
	ret = nfq_cfg_send(q, nlh, o->fail_open ? NF_ACCEPT : NF_DROP);
	if (ret < 0) {
		/* The kernel answers EPERM when another socket owns the queue. */
		set_err(err, errlen, o->queue,
			ret == -EPERM ? "bind (another process owns this queue?)" : "bind", -ret);
		goto out_close;
	}

	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, q->queue);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, SRV6_NFQ_COPY_RANGE);
	nfq_nlmsg_cfg_put_qmaxlen(nlh, o->maxlen ? o->maxlen : 1024);
	flags = o->fail_open ? NFQA_CFG_F_FAIL_OPEN : 0;
	if (o->gso)
		flags |= NFQA_CFG_F_GSO;
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(flags));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK,
			 htonl(NFQA_CFG_F_FAIL_OPEN | NFQA_CFG_F_GSO | NFQA_CFG_F_CONNTRACK |
			       NFQA_CFG_F_UID_GID | NFQA_CFG_F_SECCTX));
	ret = nfq_cfg_send(q, nlh, o->fail_open ? NF_ACCEPT : NF_DROP);
	if (ret < 0) {
		set_err(err, errlen, o->queue, "configure", -ret);
		goto out_unbind;
	}
	*qp = q;
	return 0;

out_unbind:
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, q->queue);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET6, NFQNL_CFG_CMD_UNBIND);
	(void)mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len);
out_close:
	mnl_socket_close(q->nl);
out_free_rx:
	free(q->rx);
out_free:
	free(q);
	return ret;
}

void srv6_nfq_close(struct srv6_nfq *q)
{
	char buf[256] __attribute__((aligned(8)));
	struct nlmsghdr *nlh;

	if (!q)
		return;
	(void)srv6_nfq_flush(q);
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, q->queue);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET6, NFQNL_CFG_CMD_UNBIND);
	(void)mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len);
	mnl_socket_close(q->nl);
	free(q->rx);
	free(q);
}

/* ENOBUFS reports in a row before srv6_nfq_recv gives up for this call. */
#define ENOBUFS_RETRIES 8

int srv6_nfq_recv(struct srv6_nfq *q, bool wait)
{
	int n, tries = 0;

	if (q->nv)
		(void)srv6_nfq_flush(q);
	q->nrx = 0;
	q->cur = 0;
	q->cur_off = 0;
again:
	for (unsigned int i = 0; i < q->batch; i++)
		q->mm[i].msg_hdr.msg_flags = 0;
	n = recvmmsg(q->fd, q->mm, q->batch, wait ? MSG_WAITFORONE : MSG_DONTWAIT, NULL);
	if (n < 0) {
		switch (errno) {
		case EAGAIN:
		case EINTR:
			return 0;
		case ENOBUFS:
			/* The kernel could not deliver some packets: they are
			 * gone (dropped, or accepted if fail-open), nothing to
			 * verdict.  The error is reported before the queued
			 * messages (sock_error() comes first in the receive),
			 * and reading it clears it: receive again at once, or
			 * a shutdown drain would stop here and the unbind
			 * drop everything still queued behind it. */
			ST_INC(q, enobufs);
			if (++tries < ENOBUFS_RETRIES)
				goto again;
			return 0;
		default:
			return -errno;
		}
	}
	q->nrx = n;
	ST_INC(q, recv_calls);
	return n;
}

/*
 * The attributes of packet message @nlh into @attr (NFQA_MAX + 1 slots,
 * zeroed by the caller), without libnetfilter_queue's per-attribute callback
 * and validation calls (about 100 ns a packet, measured: docs/
 * PERFORMANCE.md).  The walk is libmnl's (mnl_attr_for_each up to the
 * message's aligned end, stopping at the first attribute that does not fit);
 * types above NFQA_MAX are skipped; the u32 attributes srv6d reads
 * (NFQA_MARK, NFQA_IFINDEX_INDEV, NFQA_CAP_LEN, NFQA_SKB_INFO) must have
 * exactly 4 bytes, as nfq_nlmsg_parse() requires (the caller checks the
 * size of NFQA_PACKET_HDR).  Returns 0, or -EINVAL at a wrong size (the
 * attributes before it are set, as with nfq_nlmsg_parse()).  Checked
 * against nfq_nlmsg_parse() by tests/fuzz/fuzz_nfq.c.
 */
static int nfq_attrs(const struct nlmsghdr *nlh, const struct nlattr **attr)
{
	const uint8_t *p = (const uint8_t *)nlh + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nfgenmsg));
	const uint8_t *end = (const uint8_t *)nlh + MNL_ALIGN(nlh->nlmsg_len);

	while (end - p >= (ptrdiff_t)sizeof(struct nlattr)) {
		const struct nlattr *a = (const struct nlattr *)p;
		uint16_t type = a->nla_type & NLA_TYPE_MASK;
		size_t plen;

		if (a->nla_len < sizeof(*a) || a->nla_len > end - p)
			break;
		plen = a->nla_len - MNL_ATTR_HDRLEN;
		if (type <= NFQA_MAX) {
			switch (type) {
			case NFQA_MARK:
			case NFQA_IFINDEX_INDEV:
			case NFQA_CAP_LEN:
			case NFQA_SKB_INFO:
				if (plen != sizeof(uint32_t))
					return -EINVAL;
				break;
			default:
				break;
			}
			attr[type] = a;
		}
		p += MNL_ALIGN(a->nla_len);
	}
	return 0;
}

/* Parse one packet message into @p.  Returns 1 on success, 0 when the
 * message was handled here (bad message: verdict DROP if the id is known). */
static int nfq_parse_packet(struct srv6_nfq *q, struct nlmsghdr *nlh, bool first,
			    bool dgram_trunc, uint8_t *slot_end, struct srv6_nfq_packet *p)
{
	const struct nlattr *attr[NFQA_MAX + 1] = { 0 };
	const struct nfqnl_msg_packet_hdr *ph;
	bool ok;

	ok = nfq_attrs(nlh, attr) == 0;
	if (!attr[NFQA_PACKET_HDR] ||
	    mnl_attr_get_payload_len(attr[NFQA_PACKET_HDR]) < sizeof(*ph)) {
		ST_INC(q, lost_ids);
		return 0;
	}
	ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
	memset(p, 0, sizeof(*p));
	p->id = ntohl(ph->packet_id);
	p->hw_proto = ntohs(ph->hw_protocol);
	p->hook = ph->hook;
	if (!ok || !attr[NFQA_PAYLOAD] || dgram_trunc) {
		/* Cannot be processed: the one verdict it gets is DROP. */
		ST_INC(q, bad_msgs);
		if (dgram_trunc)
			ST_INC(q, truncated);
		(void)srv6_nfq_verdict(q, p->id, NF_DROP, false, 0, NULL, 0);
		return 0;
	}
	p->data = mnl_attr_get_payload(attr[NFQA_PAYLOAD]);
	p->len = mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]);
	p->orig_len = p->len;
	if (attr[NFQA_CAP_LEN]) {
		uint32_t cap = ntohl(mnl_attr_get_u32(attr[NFQA_CAP_LEN]));

		if (cap > p->len) {
			p->orig_len = cap;
			p->truncated = true;
			ST_INC(q, truncated);
		}
	}
	if (attr[NFQA_MARK])
		p->mark = ntohl(mnl_attr_get_u32(attr[NFQA_MARK]));
	if (attr[NFQA_IFINDEX_INDEV])
		p->indev = ntohl(mnl_attr_get_u32(attr[NFQA_IFINDEX_INDEV]));
	/* Sent only when not 0 (kernel 6.3+); libnetfilter_queue 1.0.5 does
	 * not validate it, so a wrong size is ignored here, not refused. */
	if (attr[NFQA_PRIORITY] && mnl_attr_get_payload_len(attr[NFQA_PRIORITY]) == sizeof(uint32_t))
		p->priority = ntohl(mnl_attr_get_u32(attr[NFQA_PRIORITY]));
	if (attr[NFQA_IFINDEX_OUTDEV])
		p->outdev = ntohl(mnl_attr_get_u32(attr[NFQA_IFINDEX_OUTDEV]));
	if (attr[NFQA_SKB_INFO]) {
		p->skbinfo = ntohl(mnl_attr_get_u32(attr[NFQA_SKB_INFO]));
		if (p->skbinfo & NFQA_SKB_GSO)
			ST_INC(q, gso);
		if (p->skbinfo & NFQA_SKB_CSUMNOTREADY)
			ST_INC(q, csum_not_ready);
	}
	/* Writable room: the first message of a datagram may grow into the
	 * slot's headroom and its own (already parsed) netlink header; any
	 * other message only into its own header. */
	if (first) {
		p->room = (uint8_t *)nlh - q->headroom;
		p->room_len = (size_t)(slot_end - p->room);
	} else {
		p->room = (uint8_t *)nlh;
		p->room_len = (size_t)(p->data + p->len - p->room);
	}
	ST_INC(q, packets);
	return 1;
}

int srv6_nfq_packet_id(const void *msg, size_t len, uint32_t *id)
{
	const struct nlmsghdr *nlh = msg;
	size_t off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nfgenmsg));

	if (len < NLMSG_HDRLEN ||
	    nlh->nlmsg_type != ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET))
		return -EINVAL;
	if (nlh->nlmsg_len < len)
		len = nlh->nlmsg_len;
	while (off + sizeof(struct nlattr) <= len) {
		const struct nlattr *a = (const struct nlattr *)((const uint8_t *)msg + off);

		if (a->nla_len < sizeof(*a))
			return -EINVAL;
		if ((a->nla_type & NLA_TYPE_MASK) == NFQA_PACKET_HDR) {
			const struct nfqnl_msg_packet_hdr *ph = (const void *)(a + 1);

			if (a->nla_len < sizeof(*a) + sizeof(*ph) ||
			    off + sizeof(*a) + sizeof(*ph) > len)
				return -ENOENT;
			*id = ntohl(ph->packet_id);
			return 0;
		}
		off += NLA_ALIGN(a->nla_len);
	}
	return -ENOENT;
}

/* The cut tail message @nlh (@len bytes received) of a truncated datagram. */
static void nfq_cut_message(struct srv6_nfq *q, const struct nlmsghdr *nlh, size_t len)
{
	uint32_t id;

	ST_INC(q, truncated);
	if (len < NLMSG_HDRLEN ||
	    nlh->nlmsg_type != ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET))
		return;  /* not a packet (an error reply cut short): no id to lose */
	/* as nfq_parse_packet(): no id is a lost id; an id is a bad message
	 * that gets its DROP */
	if (srv6_nfq_packet_id(nlh, len, &id) < 0) {
		ST_INC(q, lost_ids);
		return;
	}
	ST_INC(q, bad_msgs);
	(void)srv6_nfq_verdict(q, id, NF_DROP, false, 0, NULL, 0);
}

int srv6_nfq_next(struct srv6_nfq *q, struct srv6_nfq_packet *p)
{
	while (q->cur < q->nrx) {
		struct mmsghdr *mm = &q->mm[q->cur];
		uint8_t *base = q->rxiov[q->cur].iov_base;
		int len = (int)mm->msg_len - (int)q->cur_off;
		struct nlmsghdr *nlh = (struct nlmsghdr *)(base + q->cur_off);
		bool first = q->cur_off == 0;
		bool trunc = mm->msg_hdr.msg_flags & MSG_TRUNC;

		/* mnl_nlmsg_ok() compares nlmsg_len as an int: a length of 2^31
		 * or more passes it and would move cur_off out of the slot. */
		if (len <= 0 || !mnl_nlmsg_ok(nlh, len) || nlh->nlmsg_len > (uint32_t)len) {
			/* A message cut by our buffer (MSG_TRUNC, not expected
			 * with a slot of copy range + 4 KiB) still names its
			 * packet: give it its DROP, or count the loss. */
			if (trunc && len > 0)
				nfq_cut_message(q, nlh, (size_t)len);
			q->cur++;
			q->cur_off = 0;
			continue;
		}
		q->cur_off += NLMSG_ALIGN(nlh->nlmsg_len);
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

			if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error) {
				ST_INC(q, verdict_errors);
				if (e->error == -ENOENT)
					ST_INC(q, verdict_enoent);
			}
			continue;
		}
		if (nlh->nlmsg_type != ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET))
			continue;
		if (nfq_parse_packet(q, nlh, first, trunc, base + RX_SLOT_DATA, p))
			return 1;
	}
	return 0;
}

/* Send @niov iovecs holding @nv verdicts.  0 or -errno. */
static int nfq_send(struct srv6_nfq *q, struct iovec *iov, unsigned int niov)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct msghdr mh = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = iov, .msg_iovlen = niov,
	};

	for (;;) {
		if (sendmsg(q->fd, &mh, 0) >= 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/*
 * A verdict that cannot be sent even on its own (typically ENOMEM for a large
 * payload) must not leave its packet queued forever (NFQUEUE has no timeout):
 * send the smallest possible verdict instead, NF_DROP without payload, a few
 * times with a short pause.  The id is read from the NFQA_VERDICT_HDR, the
 * first attribute of every verdict this file builds.
 */
static void nfq_verdict_fallback(struct srv6_nfq *q, const struct nlmsghdr *orig)
{
	const struct nlattr *a = (const struct nlattr *)((const char *)mnl_nlmsg_get_payload(orig) +
							 MNL_ALIGN(sizeof(struct nfgenmsg)));
	const struct nfqnl_msg_verdict_hdr *vh;
	char vb[VHDR_MAX] __attribute__((aligned(8)));
	struct nlmsghdr *v;
	struct iovec iov;

	if (mnl_attr_get_type(a) != NFQA_VERDICT_HDR) {
		ST_INC(q, lost_ids);
		return;
	}
	vh = mnl_attr_get_payload(a);
	v = nfq_nlmsg_put(vb, NFQNL_MSG_VERDICT, q->queue);
	nfq_nlmsg_verdict_put(v, ntohl(vh->id), NF_DROP);
	iov.iov_base = v;
	iov.iov_len = v->nlmsg_len;
	for (int tries = 0; tries < 3; tries++) {
		if (nfq_send(q, &iov, 1) == 0) {
			ST_INC(q, sendmsgs);
			ST_INC(q, verdicts);
			ST_INC(q, fallback_drops);
			return;
		}
		usleep(1000);
	}
	ST_INC(q, lost_ids);
}

int srv6_nfq_flush(struct srv6_nfq *q)
{
	int ret = 0;

	if (!q->nv)
		return 0;
	if (nfq_send(q, q->txiov, q->niov) == 0) {
		ST_INC(q, sendmsgs);
		ST_ADD(q, verdicts, q->nv);
	} else {
		/* The whole batch failed (ENOMEM, EMSGSIZE...): retry each
		 * verdict on its own so no packet stays queued forever. */
		unsigned int i = 0;

		ST_INC(q, send_errors);
		while (i < q->niov) {
			struct nlmsghdr *nlh = q->txiov[i].iov_base;
			unsigned int k = 1;
			size_t want = nlh->nlmsg_len, have = q->txiov[i].iov_len;

			while (have < want && i + k < q->niov)
				have += q->txiov[i + k++].iov_len;
			if (nfq_send(q, &q->txiov[i], k) == 0) {
				ST_INC(q, sendmsgs);
				ST_INC(q, verdicts);
			} else {
				ST_INC(q, send_errors);
				ret = -errno;
				nfq_verdict_fallback(q, nlh);
			}
			i += k;
		}
	}
	q->nv = 0;
	q->niov = 0;
	q->vbytes = 0;
	return ret;
}

int srv6_nfq_verdict(struct srv6_nfq *q, uint32_t id, uint32_t verdict,
		     bool set_mark, uint32_t mark, const void *data, uint32_t len)
{
	struct nlmsghdr *nlh;
	size_t total;
	int ret = 0;

	if (data && len > 0xffffu - MNL_ATTR_HDRLEN)
		return -EMSGSIZE;
	total = VHDR_MAX + (data ? MNL_ALIGN(len) : 0);
	if (q->nv && q->vbytes + total > q->batch_bytes)
		ret = srv6_nfq_flush(q);

	nlh = nfq_nlmsg_put((char *)q->vhdr[q->nv], NFQNL_MSG_VERDICT, q->queue);
	nfq_nlmsg_verdict_put(nlh, (int)id, (int)verdict);
	if (set_mark)
		nfq_nlmsg_verdict_put_mark(nlh, mark);
	if (data) {
		/* Only the attribute header goes in the message buffer; the
		 * packet bytes are their own iovec, plus one for the padding. */
		struct nlattr *a = mnl_nlmsg_get_payload_tail(nlh);
		uint32_t pad = MNL_ALIGN(len) - len;

		a->nla_type = NFQA_PAYLOAD;
		a->nla_len = (uint16_t)(MNL_ATTR_HDRLEN + len);
		nlh->nlmsg_len += MNL_ATTR_HDRLEN;
		q->txiov[q->niov].iov_base = nlh;
		q->txiov[q->niov++].iov_len = nlh->nlmsg_len;
		q->txiov[q->niov].iov_base = (void *)data;
		q->txiov[q->niov++].iov_len = len;
		if (pad) {
			q->txiov[q->niov].iov_base = (void *)zero_pad;
			q->txiov[q->niov++].iov_len = pad;
		}
		nlh->nlmsg_len += len + pad;
	} else {
		q->txiov[q->niov].iov_base = nlh;
		q->txiov[q->niov++].iov_len = nlh->nlmsg_len;
	}
	q->vbytes += nlh->nlmsg_len;
	q->nv++;
	if (q->nv >= q->batch) {
		int r = srv6_nfq_flush(q);

		if (!ret)
			ret = r;
	}
	return ret;
}

unsigned int srv6_nfq_pending(const struct srv6_nfq *q)
{
	return q->nv;
}

void srv6_nfq_rcvbuf(const struct srv6_nfq *q, size_t *want, size_t *got)
{
	*want = q->rcvbuf_want;
	*got = q->rcvbuf_got;
}

uint16_t srv6_nfq_queue(const struct srv6_nfq *q)
{
	return q->queue;
}

void srv6_nfq_stats_read(const struct srv6_nfq *q, struct srv6_nfq_stats *out)
{
	const uint64_t *src = (const uint64_t *)&q->st;
	uint64_t *dst = (uint64_t *)out;

	_Static_assert(sizeof(*out) % sizeof(uint64_t) == 0, "stats are u64 only");
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}
