// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfq_end - the minimal NFQUEUE consumer doing SRv6 End itself: the reference
 * srv6d's End is measured against (issue 14).  Same queue settings and the
 * same receive/verdict shapes as nfq_floor -p (recvmmsg of up to 64
 * datagrams into static slots, 64 verdicts per sendmsg, each carrying the
 * rewritten packet as its payload through an iovec), plus End on each packet
 * (RFC 8986 4.1: SRH present, Segments Left > 0: decrement it and copy the
 * next segment into the destination address; otherwise DROP).  No SID table:
 * every queued packet is treated as addressed to the SID (the bench's rule
 * queues only the SID's traffic).  Self-contained on purpose: it shares no
 * code with srv6d.  Frozen reference: change it only to fix a measured
 * defect, and say so in docs/PERFORMANCE.md.
 *
 *   nfq_end [-q QUEUE] [-m MAXLEN] [-c CPU] [-t SECONDS]
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

int main(int argc, char **argv)
{
	static uint8_t rx[BATCH][SLOT] __attribute__((aligned(8)));
	static uint8_t vb[BATCH][64] __attribute__((aligned(8)));
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	struct mmsghdr mm[BATCH];
	static const uint8_t pad[4];
	struct iovec rxiov[BATCH], txiov[BATCH * 3];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned long long packets = 0, verdicts = 0, sendmsgs = 0, enobufs = 0, dropped = 0;
	unsigned int queue = 0, maxlen = 4096, seconds = 0;
	int cpu = -1, opt, fd, rb;
	struct timeval tv = { .tv_usec = 200000 };
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	time_t endt;

	while ((opt = getopt(argc, argv, "q:m:c:t:")) != -1) {
		switch (opt) {
		case 'q': queue = (unsigned int)atoi(optarg); break;
		case 'm': maxlen = (unsigned int)atoi(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		case 't': seconds = (unsigned int)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: nfq_end [-q QUEUE] [-m MAXLEN] [-c CPU] [-t SECONDS]\n");
			return 2;
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
				struct nlmsghdr *v;
				uint8_t *data;
				uint16_t plen;

				if (m->nlmsg_type != ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET))
					continue;
				if (nfq_nlmsg_parse(m, attr) < 0 || !attr[NFQA_PACKET_HDR])
					continue;
				ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
				packets++;
				v = nfq_nlmsg_put((char *)vb[nv], NFQNL_MSG_VERDICT, queue);
				if (!attr[NFQA_PAYLOAD] ||
				    end(data = mnl_attr_get_payload(attr[NFQA_PAYLOAD]),
					plen = mnl_attr_get_payload_len(attr[NFQA_PAYLOAD])) < 0) {
					nfq_nlmsg_verdict_put(v, (int)ntohl(ph->packet_id), NF_DROP);
					dropped++;
					txiov[niov].iov_base = v;
					txiov[niov++].iov_len = v->nlmsg_len;
				} else {
					struct nlattr *a;

					nfq_nlmsg_verdict_put(v, (int)ntohl(ph->packet_id), NF_ACCEPT);
					a = mnl_nlmsg_get_payload_tail(v);
					a->nla_type = NFQA_PAYLOAD;
					a->nla_len = (uint16_t)(MNL_ATTR_HDRLEN + plen);
					v->nlmsg_len += MNL_ATTR_HDRLEN;
					txiov[niov].iov_base = v;
					txiov[niov++].iov_len = v->nlmsg_len;
					txiov[niov].iov_base = data;
					txiov[niov++].iov_len = plen;
					if (MNL_ALIGN(plen) != plen) {
						txiov[niov].iov_base = (void *)pad;
						txiov[niov++].iov_len = MNL_ALIGN(plen) - plen;
					}
					v->nlmsg_len += MNL_ALIGN(plen);
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
}
