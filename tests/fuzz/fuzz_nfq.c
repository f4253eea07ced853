// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_nfq.c - libFuzzer target for the datapath's NFQUEUE message parsing
 * (src/datapath/nfq.c: srv6_nfq_next, nfq_parse_packet, the verdict batch,
 * its per-verdict retry and the DROP fallback), without a socket.
 *
 * Includes nfq.c (as wireguard-tools' fuzzers include config.c) and
 * replaces its sendmsg() with fake_sendmsg(), which checks every verdict
 * message it is given and fails on command.  A queue is set up as
 * srv6_nfq_open() would, minus the socket; the input is what recvmmsg()
 * would have returned.
 *
 * Input: byte 0 number of datagrams (1..4, low 2 bits) and MSG_TRUNC on the
 * last one (bit 2); byte 1 send failures: bit 0 the batch sendmsg fails,
 * bit 1 the per-verdict retry fails too (the fallback DROP runs), bit 2 the
 * fallback fails as well (lost ids); byte 2 what the fake worker answers
 * (bit 0: ACCEPT with the payload, else DROP; bit 1: set a mark); the rest
 * is split evenly into the datagrams.
 *
 * Checks, any failure aborts:
 *  - a packet returned lies inside the bytes its datagram received (up to
 *    the 4-byte alignment of its end), and its writable room [room, room + room_len) inside its slot, covering it;
 *  - the fake worker may write all of that room (headroom use);
 *  - every verdict message handed to sendmsg is well formed (lengths add
 *    up, the first attribute is NFQA_VERDICT_HDR);
 *  - without send failures, every packet message with a readable packet
 *    header gets exactly one verdict: verdicts sent == packets returned +
 *    unparseable messages dropped (bad_msgs);
 *  - with failures, each verdict ends sent, fallback-dropped or lost
 *    (counted): sent + lost == attempted.
 */
#include <sys/socket.h>
#include <sys/types.h>

struct msghdr;
static ssize_t fake_sendmsg(int fd, const struct msghdr *mh, int flags);
static int fake_usleep(unsigned int us);
#define sendmsg fake_sendmsg
#define usleep fake_usleep

#include "../../src/datapath/nfq.c"

#undef sendmsg
#undef usleep

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct {
	unsigned int fail;          /* input byte 1 */
	unsigned long sent;         /* verdict messages accepted */
	unsigned long calls;
} fk;

static int fake_usleep(unsigned int us)
{
	(void)us;  /* the fallback's pause: nothing to wait for here */
	return 0;
}

/* Walk the iovecs as one byte stream: every message a well-formed verdict. */
static ssize_t fake_sendmsg(int fd, const struct msghdr *mh, int flags)
{
	static uint8_t flat[SRV6_NFQ_BATCH * (VHDR_MAX + 0x10000 + 8)];
	size_t n = 0, off = 0;
	unsigned long msgs = 0;
	bool single;

	(void)fd;
	(void)flags;
	fk.calls++;
	for (size_t i = 0; i < mh->msg_iovlen; i++) {
		if (n + mh->msg_iov[i].iov_len > sizeof(flat))
			abort();
		memcpy(flat + n, mh->msg_iov[i].iov_base, mh->msg_iov[i].iov_len);
		n += mh->msg_iov[i].iov_len;
	}
	while (off < n) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)(flat + off);
		const struct nlattr *a;

		if (n - off < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN ||
		    nlh->nlmsg_len > n - off)
			abort();
		if (nlh->nlmsg_type != ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_VERDICT))
			abort();
		a = (const struct nlattr *)((const uint8_t *)mnl_nlmsg_get_payload(nlh) +
					    MNL_ALIGN(sizeof(struct nfgenmsg)));
		if (mnl_attr_get_type(a) != NFQA_VERDICT_HDR)
			abort();
		off += NLMSG_ALIGN(nlh->nlmsg_len);
		msgs++;
	}
	/* a batch (several messages) or a single retry/fallback message */
	single = msgs == 1;
	if ((fk.fail & 1) && !single)
		goto fail;
	if ((fk.fail & 2) && single) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)flat;
		bool fallback = nlh->nlmsg_len <= VHDR_MAX;  /* no payload */

		if (!fallback || (fk.fail & 4))
			goto fail;
	}
	fk.sent += msgs;
	return (ssize_t)n;
fail:
	errno = ENOMEM;
	return -1;
}

static struct srv6_nfq *fake_queue(void)
{
	static struct srv6_nfq *q;

	if (!q) {
		q = calloc(1, sizeof(*q));
		if (!q)
			abort();
		q->queue = 7;
		q->batch = SRV6_NFQ_BATCH;
		q->headroom = 256;
		q->slot_size = (q->headroom + RX_SLOT_DATA + 63) & ~(size_t)63;
		q->rx = malloc(q->slot_size * SRV6_NFQ_BATCH);
		if (!q->rx)
			abort();
		for (unsigned int i = 0; i < SRV6_NFQ_BATCH; i++) {
			q->rxiov[i].iov_base = q->rx + i * q->slot_size + q->headroom;
			q->rxiov[i].iov_len = RX_SLOT_DATA;
			q->mm[i].msg_hdr.msg_iov = &q->rxiov[i];
			q->mm[i].msg_hdr.msg_iovlen = 1;
		}
		q->fd = -1;
		q->batch_bytes = SRV6_NFQ_BATCH_BYTES;
	}
	memset(&q->st, 0, sizeof(q->st));
	q->nv = q->niov = 0;
	q->vbytes = 0;
	return q;
}

/* nfq_attrs() against libnetfilter_queue's nfq_nlmsg_parse() on the input
 * as one message: wherever the library accepts a message, nfq_attrs() must
 * accept it too and find the same attributes srv6d reads (the library
 * rejects a few more: wrong sizes of attributes srv6d never reads). */
static void diff_attrs(const uint8_t *data, size_t size)
{
	static uint8_t buf[RX_SLOT_DATA + 8] __attribute__((aligned(8)));
	struct nlattr *lib[NFQA_MAX + 1] = { 0 };
	const struct nlattr *own[NFQA_MAX + 1] = { 0 };
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;

	if (size < NLMSG_HDRLEN || size > RX_SLOT_DATA)
		return;
	memcpy(buf, data, size);
	memset(buf + size, 0, 8);
	if (nlh->nlmsg_len < NLMSG_HDRLEN || MNL_ALIGN(nlh->nlmsg_len) > size)
		return;
	if (nfq_nlmsg_parse(nlh, lib) < 0)
		return;
	if (nfq_attrs(nlh, own) != 0)
		abort();
	/* the attributes srv6d reads (the library may know fewer types than
	 * the kernel headers srv6d is built with) */
	static const int used[] = { NFQA_PACKET_HDR, NFQA_PAYLOAD, NFQA_MARK, NFQA_IFINDEX_INDEV,
				    NFQA_CAP_LEN, NFQA_SKB_INFO };
	for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		if ((const struct nlattr *)lib[used[i]] != own[used[i]])
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srv6_nfq *q = fake_queue();
	struct srv6_nfq_packet p;
	unsigned int nd, answer;
	unsigned long packets = 0, attempted;
	size_t chunk, off = 3;

	if (size < 3)
		return 0;
	diff_attrs(data + 3, size - 3);
	nd = 1 + (data[0] & 3);
	fk.fail = data[1];
	fk.sent = fk.calls = 0;
	answer = data[2];
	chunk = (size - 3) / nd;
	if (chunk > RX_SLOT_DATA)
		chunk = RX_SLOT_DATA;
	for (unsigned int i = 0; i < nd; i++) {
		size_t len = i == nd - 1 ? size - off : chunk;

		if (len > RX_SLOT_DATA)
			len = RX_SLOT_DATA;
		memcpy(q->rxiov[i].iov_base, data + off, len);
		q->mm[i].msg_len = (unsigned int)len;
		q->mm[i].msg_hdr.msg_flags = i == nd - 1 && (data[0] & 4) ? MSG_TRUNC : 0;
		off += len;
	}
	q->nrx = (int)nd;
	q->cur = 0;
	q->cur_off = 0;

	while (srv6_nfq_next(q, &p)) {
		int d = q->cur;  /* the datagram p came from */
		uint8_t *base = q->rxiov[d].iov_base;
		uint8_t *slot = base - q->headroom, *slot_end = base + RX_SLOT_DATA;

		/* libmnl lets the last attribute reach the message's aligned
		 * end: up to 3 bytes past an unaligned datagram (never from
		 * the kernel, whose messages are aligned), still in the slot */
		if (d >= q->nrx || p.data < base || p.len > q->mm[d].msg_len ||
		    p.data + p.len > base + NLMSG_ALIGN(q->mm[d].msg_len))
			abort();
		if (p.room < slot || p.room > p.data || p.room_len > (size_t)(slot_end - p.room) ||
		    p.data + p.len > p.room + p.room_len)
			abort();
		if (p.orig_len < p.len || (p.truncated && p.orig_len == p.len))
			abort();
		/* the worker may use the headroom in front of the packet */
		memset(p.room, 0xa5, (size_t)(p.data - p.room));
		packets++;
		/* as the worker: a payload only for a packet it could parse
		 * (>= 40 bytes); a zero-length payload verdict would make
		 * srv6_nfq_flush()'s per-verdict retry read the empty data
		 * iovec as a message header (latent: the worker never sends one) */
		if ((answer & 1) && p.len >= 40)
			(void)srv6_nfq_verdict(q, p.id, NF_ACCEPT, answer & 2, 0x6d000001, p.data, p.len);
		else
			(void)srv6_nfq_verdict(q, p.id, NF_DROP, answer & 2, 0x6d000001, NULL, 0);
	}
	(void)srv6_nfq_flush(q);
	if (q->nv)
		abort();
	attempted = packets + q->st.bad_msgs;
	if (!(fk.fail & 7)) {
		if (fk.sent != attempted || q->st.fallback_drops)
			abort();
	} else if (fk.sent + q->st.lost_ids < attempted) {
		/* lost_ids also counts messages without a packet header */
		abort();
	}
	return 0;
}
