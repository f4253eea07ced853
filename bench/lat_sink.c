// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lat_sink - the receiving end of the latency measurement: an AF_PACKET
 * socket on IF with SO_TIMESTAMPNS (the kernel's receive timestamp, taken
 * when the frame enters the stack, whatever this process's scheduling) reads
 * the CLOCK_REALTIME send time srv6_blast -T wrote at OFFSET (the UDP
 * payload: 14 + 40 + 8 + 16 x segments + 8 bytes into the frame) and prints
 * the one-way delay percentiles after SECONDS:
 *   packets N p50_us X p90_us X p99_us X max_us X sink_drops D
 * Generator and sink share the host clock (namespaces, one VM).
 * -d ADDR: only IPv6 packets to ADDR reach the socket (a classic BPF filter
 * on the destination), so other traffic on IF cannot overflow its receive
 * queue.  sink_drops: frames the socket itself dropped (PACKET_STATISTICS):
 * not 0 means the sink, not the path, lost packets.
 *
 *   lat_sink -i IF -o OFFSET -t SECONDS [-d ADDR]
 */
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXS (1u << 24)

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *daddr = NULL;
	struct tpacket_stats pst = { 0 };
	socklen_t pl = sizeof(pst);
	unsigned int off = 0;
	double secs = 5;
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IPV6) };
	struct timeval tv = { .tv_usec = 100000 };
	uint64_t *d;
	size_t n = 0;
	int fd, opt, one = 1;
	struct timespec t0, t;

	while ((opt = getopt(argc, argv, "i:o:t:d:")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'o': off = (unsigned int)atoi(optarg); break;
		case 't': secs = atof(optarg); break;
		case 'd': daddr = optarg; break;
		default: goto usage;
		}
	}
	if (!ifname || !off || off > 1400)
		goto usage;
	d = malloc(MAXS * sizeof(*d));
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IPV6));
	if (!d || fd < 0) {
		perror("socket");
		return 1;
	}
	/* before bind: no frame queued unfiltered */
	if (daddr) {
		/* the IPv6 destination, 14 + 24 bytes into the frame */
		uint32_t w[4];
		struct in6_addr a;

		if (inet_pton(AF_INET6, daddr, &a) != 1)
			goto usage;
		memcpy(w, &a, sizeof(w));
		struct sock_filter code[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 38),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ntohl(w[0]), 0, 7),
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 42),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ntohl(w[1]), 0, 5),
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 46),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ntohl(w[2]), 0, 3),
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 50),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ntohl(w[3]), 0, 1),
			BPF_STMT(BPF_RET | BPF_K, 0xffff),
			BPF_STMT(BPF_RET | BPF_K, 0),
		};
		struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };

		if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0) {
			perror("SO_ATTACH_FILTER");
			return 1;
		}
	}
	ll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!ll.sll_ifindex || bind(fd, (struct sockaddr *)&ll, sizeof(ll)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0) {
		perror(ifname);
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	printf("ready\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		uint8_t buf[2048];
		char cbuf[256];
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		ssize_t r;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 >= secs)
			break;
		r = recvmsg(fd, &mh, 0);
		if (r < (ssize_t)(off + 8))
			continue;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec rx;
				uint64_t sent, got;

				memcpy(&rx, CMSG_DATA(c), sizeof(rx));
				memcpy(&sent, buf + off, sizeof(sent));
				got = (uint64_t)rx.tv_sec * 1000000000u + (uint64_t)rx.tv_nsec;
				if (got >= sent && got - sent < 10000000000ull && n < MAXS)
					d[n++] = got - sent;
			}
		}
	}
	(void)getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &pst, &pl);
	if (!n) {
		printf("packets 0 p50_us 0 p90_us 0 p99_us 0 max_us 0 sink_drops %u\n", pst.tp_drops);
		return 0;
	}
	qsort(d, n, sizeof(*d), cmp_u64);
	printf("packets %zu p50_us %.1f p90_us %.1f p99_us %.1f max_us %.1f sink_drops %u\n", n,
	       d[n / 2] / 1e3, d[n * 9 / 10] / 1e3, d[n * 99 / 100] / 1e3, d[n - 1] / 1e3,
	       pst.tp_drops);
	return 0;

usage:
	fprintf(stderr, "usage: lat_sink -i IF -o OFFSET -t SECONDS [-d ADDR]\n");
	return 2;
}
