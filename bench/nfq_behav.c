// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfq_behav - minimal NFQUEUE consumers doing End.X, End.DX6, End.B6.Encaps
 * and H.Encaps themselves: the references srv6d's behaviors are measured
 * against (issue 14, bench/run_datapath.sh PLACE=onecore).  The receive and
 * verdict shapes of nfq_end (recvmmsg of up to 64 datagrams into static
 * slots, 64 verdicts per sendmsg, each carrying the rewritten packet as its
 * payload through an iovec: the original bytes are never copied, a pushed
 * header goes in its own iovec in front of them), with one rewrite chosen
 * by -a:
 *
 *   x      End.X: End (RFC 8986 4.1), and the verdict sets mark -k MARK,
 *          which an ip rule of the bench sends to the next hop's table
 *   dx6    End.DX6: SRH absent or Segments Left 0, next header IPv6: strip
 *          the outer IPv6 header and the SRH; the verdict sets mark -k MARK
 *   b6     End.B6.Encaps: End, then push an outer IPv6 header (source -s)
 *          and an SRH of the segments -S
 *   encap  H.Encaps (policy in encap mode): push an outer IPv6 header and
 *          SRH on the packet as it came
 *
 * The pushed header is the kernel's seg6_do_srh_encap(): hop limit and
 * traffic class of the inner packet, flow label 0 (seg6_flowlabel 0), SRH
 * next header 41, Last Entry = Segments Left = n - 1, segments reversed.
 * Other packets: DROP.  No SID table: every queued packet is the behavior's
 * (the bench's rule queues only its traffic).  Self-contained, shares no
 * code with srv6d.  Frozen reference once measured: change it only to fix a
 * measured defect, and say so in docs/PERFORMANCE.md.
 *
 *   nfq_behav -a x|dx6|b6|encap [-k MARK] [-s SRC -S SEG1[,SEG2...]]
 *             [-q QUEUE] [-m MAXLEN] [-c CPU] [-t SECONDS]
 *
 * Runs until SIGINT/SIGTERM (or -t), then prints
 *   packets N verdicts N sendmsgs N enobufs N dropped N
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#define BATCH 64
#define SLOT (0xffff + 4096)
#define MAXSEG 16

enum act { ACT_X, ACT_DX6, ACT_B6, ACT_ENCAP };

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int cfg_ack(struct mnl_socket *nl, struct nlmsghdr *nlh)
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

/* End on the IPv6 packet @p (@len bytes), in place: 0, or -1 (drop). */
static int end(uint8_t *p, uint32_t len)
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

/*
 * End.DX6's decapsulation check on @p (@len bytes): the number of bytes to
 * strip (outer IPv6 header and SRH), or -1 (drop).
 */
static int dx6(const uint8_t *p, uint32_t len)
{
	uint32_t off = 40;

	if (len < 80 || (p[0] >> 4) != 6)
		return -1;
	if (p[6] == 43) {
		const uint8_t *srh = p + 40;

		if (len < 40 + 8 + 8 * (uint32_t)srh[1] || srh[2] != 4 || srh[3] != 0 || srh[0] != 41)
			return -1;
		off += 8 + 8 * (uint32_t)srh[1];
	} else if (p[6] != 41) {
		return -1;
	}
	if (len < off + 40 || (p[off] >> 4) != 6)
		return -1;
	return (int)off;
}

/*
 * Fill @h (the template from main: outer header and SRH of @hlen bytes)
 * for the inner packet @p of @len bytes.
 */
static void encap_hdr(uint8_t *h, uint32_t hlen, const uint8_t *p, uint32_t len)
{
	uint32_t pl = hlen - 40 + len;

	h[0] = (uint8_t)(0x60 | (p[0] & 0x0f));     /* traffic class of the inner */
	h[1] = (uint8_t)(p[1] & 0xf0);              /* flow label 0 */
	h[2] = h[3] = 0;
	h[4] = (uint8_t)(pl >> 8);
	h[5] = (uint8_t)pl;
	h[7] = p[7];                                /* hop limit of the inner */
}

int main(int argc, char **argv)
{
	static uint8_t rx[BATCH][SLOT] __attribute__((aligned(8)));
	static uint8_t vb[BATCH][64] __attribute__((aligned(8)));
	static uint8_t eh[BATCH][40 + 8 + 16 * MAXSEG];
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	struct mmsghdr mm[BATCH];
	static const uint8_t pad[4];
	struct iovec rxiov[BATCH], txiov[BATCH * 4];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned long long packets = 0, verdicts = 0, sendmsgs = 0, enobufs = 0, dropped = 0;
	unsigned int queue = 0, maxlen = 4096, seconds = 0, nsegs = 0, mark = 1;
	int cpu = -1, opt, fd, rb, act = -1;
	const char *src = NULL, *segarg = NULL;
	struct in6_addr segs[MAXSEG], saddr;
	struct timeval tv = { .tv_usec = 200000 };
	uint32_t hlen = 0;
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	time_t endt;

	while ((opt = getopt(argc, argv, "a:k:s:S:q:m:c:t:")) != -1) {
		switch (opt) {
		case 'a':
			act = !strcmp(optarg, "x") ? ACT_X : !strcmp(optarg, "dx6") ? ACT_DX6 :
			      !strcmp(optarg, "b6") ? ACT_B6 : !strcmp(optarg, "encap") ? ACT_ENCAP : -1;
			if (act < 0)
				goto usage;
			break;
		case 'k': mark = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 's': src = optarg; break;
		case 'S': segarg = optarg; break;
		case 'q': queue = (unsigned int)atoi(optarg); break;
		case 'm': maxlen = (unsigned int)atoi(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		case 't': seconds = (unsigned int)atoi(optarg); break;
		default: goto usage;
		}
	}
	if (act < 0)
		goto usage;
	if (act == ACT_B6 || act == ACT_ENCAP) {
		char *s, *save = NULL;

		if (!src || !segarg || inet_pton(AF_INET6, src, &saddr) != 1)
			goto usage;
		s = strdup(segarg);
		for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (nsegs == MAXSEG || inet_pton(AF_INET6, tok, &segs[nsegs]) != 1)
				goto usage;
			nsegs++;
		}
		free(s);
		if (!nsegs)
			goto usage;
		hlen = 40 + 8 + 16 * nsegs;
		for (int b = 0; b < BATCH; b++) {   /* the constant part of each slot's header */
			uint8_t *h = eh[b];

			memset(h, 0, hlen);
			h[6] = 43;
			memcpy(h + 8, &saddr, 16);
			memcpy(h + 24, &segs[0], 16);
			h[40] = 41;
			h[41] = (uint8_t)(2 * nsegs);
			h[42] = 4;
			h[43] = (uint8_t)(nsegs - 1);
			h[44] = (uint8_t)(nsegs - 1);
			for (unsigned int i = 0; i < nsegs; i++)
				memcpy(h + 48 + 16 * i, &segs[nsegs - 1 - i], 16);
		}
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			perror("sched_setaffinity");
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("netlink");
		return 1;
	}
	fd = mnl_socket_get_fd(nl);
	/* as srv6d and nfq_floor: 2048 bytes per queued packet */
	rb = (int)(maxlen < 512 ? 1 << 20 : maxlen > 131072 ? 256 << 20 : maxlen * 2048);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, queue);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET6, NFQNL_CFG_CMD_BIND);
	if (cfg_ack(nl, nlh) < 0) {
		perror("bind");
		return 1;
	}
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, queue);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, 0xffff);
	nfq_nlmsg_cfg_put_qmaxlen(nlh, maxlen);
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(0));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(NFQA_CFG_F_FAIL_OPEN | NFQA_CFG_F_GSO |
						    NFQA_CFG_F_CONNTRACK));
	if (cfg_ack(nl, nlh) < 0) {
		perror("config");
		return 1;
	}
	for (int i = 0; i < BATCH; i++) {
		rxiov[i].iov_base = rx[i];
		rxiov[i].iov_len = SLOT;
		memset(&mm[i], 0, sizeof(mm[i]));
		mm[i].msg_hdr.msg_iov = &rxiov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	endt = seconds ? time(NULL) + seconds : 0;

	while (!stop && (!endt || time(NULL) < endt)) {
		unsigned int nv = 0, niov = 0;
		int n = recvmmsg(fd, mm, BATCH, MSG_WAITFORONE, NULL);

		if (n < 0) {
			if (errno == ENOBUFS)
				enobufs++;
			continue;
		}
		for (int i = 0; i < n; i++) {
			const struct nlmsghdr *m = (const struct nlmsghdr *)rx[i];
			int len = (int)mm[i].msg_len;

			for (; mnl_nlmsg_ok(m, len); m = mnl_nlmsg_next(m, &len)) {
				struct nlattr *attr[NFQA_MAX + 1] = { 0 };
				const struct nfqnl_msg_packet_hdr *ph;
				uint32_t plen = 0, push = 0;
				struct nlmsghdr *v;
				uint8_t *data = NULL;
				int ok = -1;

				if (m->nlmsg_type != ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET))
					continue;
				if (nfq_nlmsg_parse(m, attr) < 0 || !attr[NFQA_PACKET_HDR])
					continue;
				ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
				packets++;
				v = nfq_nlmsg_put((char *)vb[nv], NFQNL_MSG_VERDICT, queue);
				if (attr[NFQA_PAYLOAD]) {
					int s;

					data = mnl_attr_get_payload(attr[NFQA_PAYLOAD]);
					plen = mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]);
					switch (act) {
					case ACT_X:
						ok = end(data, plen);
						break;
					case ACT_DX6:
						s = dx6(data, plen);
						if (s > 0) {
							data += s;
							plen -= (uint32_t)s;
							ok = 0;
						}
						break;
					case ACT_B6:
						if (end(data, plen) < 0)
							break;
						/* fall through */
					case ACT_ENCAP:
						if (plen < 40 || (data[0] >> 4) != 6 || plen + hlen > 0xffff)
							break;
						encap_hdr(eh[nv], hlen, data, plen);
						push = hlen;
						ok = 0;
						break;
					}
				}
				if (ok < 0) {
					nfq_nlmsg_verdict_put(v, (int)ntohl(ph->packet_id), NF_DROP);
					dropped++;
					txiov[niov].iov_base = v;
					txiov[niov++].iov_len = v->nlmsg_len;
				} else {
					uint32_t tot = push + plen;
					struct nlattr *a;

					nfq_nlmsg_verdict_put(v, (int)ntohl(ph->packet_id), NF_ACCEPT);
					if (act == ACT_X || act == ACT_DX6)
						nfq_nlmsg_verdict_put_mark(v, mark);
					a = mnl_nlmsg_get_payload_tail(v);
					a->nla_type = NFQA_PAYLOAD;
					a->nla_len = (uint16_t)(MNL_ATTR_HDRLEN + tot);
					v->nlmsg_len += MNL_ATTR_HDRLEN;
					txiov[niov].iov_base = v;
					txiov[niov++].iov_len = v->nlmsg_len;
					if (push) {
						txiov[niov].iov_base = eh[nv];
						txiov[niov++].iov_len = push;
					}
					txiov[niov].iov_base = data;
					txiov[niov++].iov_len = plen;
					if (MNL_ALIGN(tot) != tot) {
						txiov[niov].iov_base = (void *)pad;
						txiov[niov++].iov_len = MNL_ALIGN(tot) - tot;
					}
					v->nlmsg_len += MNL_ALIGN(tot);
				}
				nv++;
				if (nv == BATCH) {
					struct msghdr mh = { .msg_name = &sa, .msg_namelen = sizeof(sa),
							     .msg_iov = txiov, .msg_iovlen = niov };

					if (sendmsg(fd, &mh, 0) >= 0) {
						sendmsgs++;
						verdicts += nv;
					}
					nv = niov = 0;
				}
			}
		}
		if (nv) {
			struct msghdr mh = { .msg_name = &sa, .msg_namelen = sizeof(sa),
					     .msg_iov = txiov, .msg_iovlen = niov };

			if (sendmsg(fd, &mh, 0) >= 0) {
				sendmsgs++;
				verdicts += nv;
			}
		}
	}
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, queue);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET6, NFQNL_CFG_CMD_UNBIND);
	mnl_socket_sendto(nl, nlh, nlh->nlmsg_len);
	mnl_socket_close(nl);
	printf("packets %llu verdicts %llu sendmsgs %llu enobufs %llu dropped %llu\n",
	       packets, verdicts, sendmsgs, enobufs, dropped);
	return 0;

usage:
	fprintf(stderr, "usage: nfq_behav -a x|dx6|b6|encap [-k MARK] [-s SRC -S SEG1[,SEG2...]] "
		"[-q QUEUE] [-m MAXLEN] [-c CPU] [-t SECONDS]\n");
	return 2;
}
