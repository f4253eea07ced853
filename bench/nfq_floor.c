// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfq_floor - the floor of srv6d's design: a bare NFQUEUE consumer that
 * receives packets (recvmmsg, up to 64 per call) and accepts each one
 * unchanged (no payload in the verdict), 64 concatenated NFQNL_MSG_VERDICT
 * messages per sendmsg (or one per sendmsg with -1).  With -p each verdict
 * carries the packet back unchanged as its payload (an iovec pointing at the
 * received bytes, as srv6d does): the floor of a design that rewrites every
 * packet, which is what srv6d's End does.  With -b (added for issue 14's
 * table; the other modes are unchanged) one NFQNL_MSG_VERDICT_BATCH per
 * receive accepts every packet up to the highest id received.  Same queue
 * settings as
 * srv6d (copy packet 0xffff, F_GSO off, fail-open off).  Self-contained on
 * purpose: it does not share srv6d's nfq.c, so it measures the NFQUEUE round
 * trip, not srv6d's implementation of it.
 *
 *   nfq_floor [-q QUEUE] [-m MAXLEN] [-1] [-p] [-b] [-c CPU] [-t SECONDS]
 *
 * Runs until SIGINT/SIGTERM (or -t), then prints
 *   packets N verdicts N sendmsgs N enobufs N
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
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

int main(int argc, char **argv)
{
	static uint8_t rx[BATCH][SLOT] __attribute__((aligned(8)));
	static uint8_t vb[BATCH][64] __attribute__((aligned(8)));
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	struct mmsghdr mm[BATCH];
	static const uint8_t pad[4];
	struct iovec rxiov[BATCH], txiov[BATCH * 3];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned long long packets = 0, verdicts = 0, sendmsgs = 0, enobufs = 0;
	unsigned int queue = 0, maxlen = 4096, per_send = BATCH, seconds = 0, echo = 0, vbatch = 0;
	int cpu = -1, opt, fd, rb;
	struct timeval tv = { .tv_usec = 200000 };
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	time_t end;

	while ((opt = getopt(argc, argv, "q:m:1pbc:t:")) != -1) {
		switch (opt) {
		case 'q': queue = (unsigned int)atoi(optarg); break;
		case 'm': maxlen = (unsigned int)atoi(optarg); break;
		case '1': per_send = 1; break;
		case 'p': echo = 1; break;
		case 'b': vbatch = 1; break;
		case 'c': cpu = atoi(optarg); break;
		case 't': seconds = (unsigned int)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: nfq_floor [-q QUEUE] [-m MAXLEN] [-1] [-p] [-b] [-c CPU] [-t SECONDS]\n");
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
	/* as srv6d: 2048 bytes per queued packet (doubled by the kernel) */
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
	end = seconds ? time(NULL) + seconds : 0;

	while (!stop && (!end || time(NULL) < end)) {
		unsigned int nv = 0, niov = 0;
		uint32_t maxid = 0;
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

				if (m->nlmsg_type != ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET))
					continue;
				if (nfq_nlmsg_parse(m, attr) < 0 || !attr[NFQA_PACKET_HDR])
					continue;
				ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
				packets++;
				if (vbatch) {
					if (ntohl(ph->packet_id) > maxid)
						maxid = ntohl(ph->packet_id);
					nv++;
					continue;
				}
				v = nfq_nlmsg_put((char *)vb[nv], NFQNL_MSG_VERDICT, queue);
				nfq_nlmsg_verdict_put(v, (int)ntohl(ph->packet_id), NF_ACCEPT);
				if (echo && attr[NFQA_PAYLOAD]) {
					struct nlattr *a = mnl_nlmsg_get_payload_tail(v);
					uint16_t plen = mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]);

					a->nla_type = NFQA_PAYLOAD;
					a->nla_len = (uint16_t)(MNL_ATTR_HDRLEN + plen);
					v->nlmsg_len += MNL_ATTR_HDRLEN;
					txiov[niov].iov_base = v;
					txiov[niov++].iov_len = v->nlmsg_len;
					txiov[niov].iov_base = mnl_attr_get_payload(attr[NFQA_PAYLOAD]);
					txiov[niov++].iov_len = plen;
					if (MNL_ALIGN(plen) != plen) {
						txiov[niov].iov_base = (void *)pad;
						txiov[niov++].iov_len = MNL_ALIGN(plen) - plen;
					}
					v->nlmsg_len += MNL_ALIGN(plen);
				} else {
					txiov[niov].iov_base = v;
					txiov[niov++].iov_len = v->nlmsg_len;
				}
				nv++;
				if (nv == per_send) {
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
		if (nv && vbatch) {
			struct nlmsghdr *v = nfq_nlmsg_put((char *)vb[0], NFQNL_MSG_VERDICT_BATCH, queue);

			nfq_nlmsg_verdict_put(v, (int)maxid, NF_ACCEPT);
			if (mnl_socket_sendto(nl, v, v->nlmsg_len) >= 0) {
				sendmsgs++;
				verdicts += nv;
			}
			nv = 0;
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
	printf("packets %llu verdicts %llu sendmsgs %llu enobufs %llu\n",
	       packets, verdicts, sendmsgs, enobufs);
	return 0;
}
