// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfq_mark - minimal NFQUEUE consumer for the namespace tests: accept every
 * packet of one queue, unchanged, with a mark (NFQA_MARK in the verdict).
 *
 *   nfq_mark QUEUE MARK SECONDS [gso]
 *
 * Prints "ready" once bound, and "packets N" when SECONDS have passed.
 * With "gso" it sets NFQA_CFG_F_GSO (srv6d does not) and also prints
 * "csum-not-ready N gso N": how many packets came with NFQA_SKB_CSUMNOTREADY
 * / NFQA_SKB_GSO, the positive control of tests/net/test_nfq_csum.sh.
 * Uses libnetfilter_queue's libmnl API (as examples/nf-queue.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

struct state {
	struct mnl_socket *nl;
	unsigned int queue;
	uint32_t mark;
	unsigned long packets, csum_not_ready, gso;
};

static int send_verdict(struct state *s, uint32_t id)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_VERDICT, s->queue);

	nfq_nlmsg_verdict_put(nlh, (int)id, NF_ACCEPT);
	if (s->mark)
		nfq_nlmsg_verdict_put_mark(nlh, s->mark);
	return mnl_socket_sendto(s->nl, nlh, nlh->nlmsg_len) < 0 ? -errno : 0;
}

static int on_packet(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *attr[NFQA_MAX + 1] = { 0 };
	struct nfqnl_msg_packet_hdr *ph;
	struct state *s = data;

	if (nfq_nlmsg_parse(nlh, attr) < 0 || !attr[NFQA_PACKET_HDR])
		return MNL_CB_ERROR;
	ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
	s->packets++;
	if (attr[NFQA_SKB_INFO]) {
		uint32_t info = ntohl(mnl_attr_get_u32(attr[NFQA_SKB_INFO]));

		s->csum_not_ready += !!(info & NFQA_SKB_CSUMNOTREADY);
		s->gso += !!(info & NFQA_SKB_GSO);
	}
	return send_verdict(s, ntohl(ph->packet_id)) < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

static int config(struct state *s, uint8_t cmd_or_mode, int is_cmd)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, s->queue);

	if (is_cmd)
		nfq_nlmsg_cfg_put_cmd(nlh, AF_INET6, cmd_or_mode);
	else
		nfq_nlmsg_cfg_put_params(nlh, cmd_or_mode, 0xffff);
	return mnl_socket_sendto(s->nl, nlh, nlh->nlmsg_len) < 0 ? -errno : 0;
}

static int config_gso(struct state *s)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, s->queue);

	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(NFQA_CFG_F_GSO));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(NFQA_CFG_F_GSO));
	return mnl_socket_sendto(s->nl, nlh, nlh->nlmsg_len) < 0 ? -errno : 0;
}

int main(int argc, char **argv)
{
	static char buf[0xffff + 8192];
	struct state s = { 0 };
	struct timespec t0, t;
	long secs;

	bool gso = argc == 5 && !strcmp(argv[4], "gso");

	if (argc != 4 && !gso) {
		fprintf(stderr, "usage: nfq_mark QUEUE MARK SECONDS [gso]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	s.queue = (unsigned int)strtoul(argv[1], NULL, 0);
	s.mark = (uint32_t)strtoul(argv[2], NULL, 0);
	secs = strtol(argv[3], NULL, 0);
	s.nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!s.nl || mnl_socket_bind(s.nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("netlink");
		return 1;
	}
	if (config(&s, NFQNL_CFG_CMD_BIND, 1) < 0 || config(&s, NFQNL_COPY_PACKET, 0) < 0 ||
	    (gso && config_gso(&s) < 0)) {
		perror("bind queue");
		return 1;
	}
	printf("ready\n");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = mnl_socket_get_fd(s.nl), .events = POLLIN };
		long left;
		ssize_t r;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = secs * 1000 - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			break;
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		r = mnl_socket_recvfrom(s.nl, buf, sizeof(buf));
		if (r < 0) {
			if (errno == ENOBUFS)
				continue;
			perror("recv");
			return 1;
		}
		if (mnl_cb_run(buf, (size_t)r, 0, mnl_socket_get_portid(s.nl), on_packet, &s) < 0) {
			perror("verdict");
			return 1;
		}
	}
	printf("packets %lu\n", s.packets);
	if (gso)
		printf("csum-not-ready %lu gso %lu\n", s.csum_not_ready, s.gso);
	mnl_socket_close(s.nl);
	return 0;
}
