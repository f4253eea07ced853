// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inject_paths.c - the candidates for srv6d's injection egress, measured on
 * the same packets: how much CPU the sending thread spends per packet
 * (user + system, which includes the kernel's forwarding work the send runs
 * synchronously: veth and TUN hand the packet to netif_rx, whose softirq
 * runs when the send re-enables bottom halves) and what reached the sink.
 *
 *   inject_paths MODE COUNT
 *     MODE  packet  AF_PACKET SOCK_RAW on veth "injp" (peer "inj"), 64
 *                   frames per sendmmsg, SO_MARK per message: the receive
 *                   path of "inj", forwarding (hop limit - 1), FORWARD hook
 *           raw     AF_INET6 SOCK_RAW IPPROTO_RAW (header included), 64 per
 *                   sendmmsg, SO_MARK per message: the LOCAL OUTPUT path (no
 *                   forwarding, no hop limit decrement, OUTPUT hook)
 *           tun     write() per packet on TUN "injt" (no per-packet mark:
 *                   TUN has no way to carry one): receive path of "injt"
 *           bypass  as packet, with PACKET_QDISC_BYPASS on the socket
 *           ring    as packet, through a PACKET_TX_RING (TPACKET_V2): 64
 *                   frames written to the ring, one send() with the SO_MARK
 *                   cmsg for all of them (the kernel attaches the ring's
 *                   pages to each skb: zero-copy)
 *   Packets: IPv6 + UDP, 150 bytes, to 2001:db8:aa::1 (the script routes it
 *   to a sink), from 2001:db8:1::1, hop limit 64.
 * Prints "MODE sent N errors E cpu_ns_per_pkt X wall_s W".
 * bench/run_inject_paths.sh sets up the namespaces and reads the sink.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PKT_LEN 150
#define BATCH 64

static uint8_t pkt[PKT_LEN];

static void build(void)
{
	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0x60;
	pkt[4] = 0;
	pkt[5] = PKT_LEN - 40;
	pkt[6] = 17;
	pkt[7] = 64;
	inet_pton(AF_INET6, "2001:db8:1::1", pkt + 8);
	inet_pton(AF_INET6, "2001:db8:aa::1", pkt + 24);
	pkt[40] = 0x10;
	pkt[42] = 0x20;
	pkt[44] = 0;
	pkt[45] = PKT_LEN - 40;  /* UDP length; checksum 0 is accepted on the way */
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int mac_of(int fd, const char *dev, uint8_t mac[6])
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		return -errno;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

/* An AF_PACKET socket that sends on "injp" to "inj": @sa its address, @mac
 * inj's and @pmac injp's MAC.  The socket, or -1 (said on stderr). */
static int packet_open(struct sockaddr_ll *sa, uint8_t mac[6], uint8_t pmac[6])
{
	int fd = socket(AF_PACKET, SOCK_RAW, 0);

	if (fd < 0 || mac_of(fd, "inj", mac) < 0 || mac_of(fd, "injp", pmac) < 0) {
		perror("packet socket / devices inj, injp");
		return -1;
	}
	memset(sa, 0, sizeof(*sa));
	sa->sll_family = AF_PACKET;
	sa->sll_ifindex = (int)if_nametoindex("injp");
	sa->sll_protocol = htons(ETH_P_IPV6);
	sa->sll_halen = 6;
	memcpy(sa->sll_addr, mac, 6);
	return fd;
}

struct msg {
	struct iovec iov[2];
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} ctl;
};

static void set_mark(struct msg *m, struct msghdr *h, uint32_t mark)
{
	struct cmsghdr *c = &m->ctl.align;

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SO_MARK;
	c->cmsg_len = CMSG_LEN(sizeof(mark));
	memcpy(CMSG_DATA(c), &mark, sizeof(mark));
	h->msg_control = m->ctl.buf;
	h->msg_controllen = sizeof(m->ctl.buf);
}

static long run_batched(int fd, struct mmsghdr *mm, long count, long *errors)
{
	long sent = 0;

	while (sent < count) {
		unsigned int n = count - sent < BATCH ? (unsigned int)(count - sent) : BATCH;
		int r = sendmmsg(fd, mm, n, 0);

		if (r <= 0) {
			(*errors)++;
			sent++;
			continue;
		}
		sent += r;
	}
	return sent;
}

int main(int argc, char **argv)
{
	static struct mmsghdr mm[BATCH];
	static struct msg m[BATCH];
	const char *mode;
	long count, sent = 0, errors = 0;
	double c0, w0;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: inject_paths packet|bypass|ring|raw|tun COUNT\n");
		return 2;
	}
	mode = argv[1];
	count = atol(argv[2]);
	build();
	if (!strcmp(mode, "ring")) {
		static struct sockaddr_ll sa;
		struct tpacket_req req = { .tp_block_size = 4096, .tp_frame_size = 2048,
					   .tp_block_nr = BATCH / 2, .tp_frame_nr = BATCH };
		int v = TPACKET_V2;
		uint8_t mac[6], pmac[6];
		struct msghdr h;
		struct msg mk;
		uint8_t *ring;
		unsigned int cur = 0;

		fd = packet_open(&sa, mac, pmac);
		if (fd < 0)
			return 1;
		if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0 ||
		    setsockopt(fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)) < 0) {
			perror("PACKET_TX_RING");
			return 1;
		}
		ring = mmap(NULL, (size_t)req.tp_block_size * req.tp_block_nr,
			    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (ring == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		memset(&h, 0, sizeof(h));
		h.msg_name = &sa;
		h.msg_namelen = sizeof(sa);
		set_mark(&mk, &h, 0x42);
		c0 = cpu_s();
		w0 = wall_s();
		while (sent < count) {
			unsigned int n = count - sent < BATCH ? (unsigned int)(count - sent) : BATCH;
			unsigned int k = 0;

			for (; k < n; k++) {
				struct tpacket2_hdr *t = (void *)(ring + (size_t)cur * req.tp_frame_size);
				uint8_t *d = (uint8_t *)t + TPACKET2_HDRLEN - sizeof(struct sockaddr_ll);

				unsigned int st = __atomic_load_n(&t->tp_status, __ATOMIC_ACQUIRE);

				if (st & TP_STATUS_WRONG_FORMAT) {
					fprintf(stderr, "ring: frame refused (TP_STATUS_WRONG_FORMAT)\n");
					return 1;
				}
				if (st != TP_STATUS_AVAILABLE)
					break;
				memcpy(d, mac, 6);
				memcpy(d + 6, pmac, 6);
				d[12] = 0x86;
				d[13] = 0xdd;
				memcpy(d + 14, pkt, PKT_LEN);
				t->tp_len = 14 + PKT_LEN;
				__atomic_store_n(&t->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
				cur = (cur + 1) % req.tp_frame_nr;
			}
			if (sendmsg(fd, &h, 0) < 0)
				errors++;
			sent += k;
		}
	} else if (!strcmp(mode, "packet") || !strcmp(mode, "bypass")) {
		static struct sockaddr_ll sa;
		static uint8_t eth[14];
		uint8_t mac[6], pmac[6];

		fd = packet_open(&sa, mac, pmac);
		if (fd < 0)
			return 1;
		if (!strcmp(mode, "bypass")) {
			int one = 1;

			if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) < 0) {
				perror("PACKET_QDISC_BYPASS");
				return 1;
			}
		}
		memcpy(eth, mac, 6);
		memcpy(eth + 6, pmac, 6);
		eth[12] = 0x86;
		eth[13] = 0xdd;
		for (int i = 0; i < BATCH; i++) {
			m[i].iov[0] = (struct iovec){ eth, 14 };
			m[i].iov[1] = (struct iovec){ pkt, PKT_LEN };
			mm[i].msg_hdr.msg_name = &sa;
			mm[i].msg_hdr.msg_namelen = sizeof(sa);
			mm[i].msg_hdr.msg_iov = m[i].iov;
			mm[i].msg_hdr.msg_iovlen = 2;
			set_mark(&m[i], &mm[i].msg_hdr, 0x42);
		}
		c0 = cpu_s();
		w0 = wall_s();
		sent = run_batched(fd, mm, count, &errors);
	} else if (!strcmp(mode, "raw")) {
		static struct sockaddr_in6 sa;

		fd = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);
		if (fd < 0) {
			perror("raw socket");
			return 1;
		}
		sa.sin6_family = AF_INET6;
		inet_pton(AF_INET6, "2001:db8:aa::1", &sa.sin6_addr);
		for (int i = 0; i < BATCH; i++) {
			m[i].iov[0] = (struct iovec){ pkt, PKT_LEN };
			mm[i].msg_hdr.msg_name = &sa;
			mm[i].msg_hdr.msg_namelen = sizeof(sa);
			mm[i].msg_hdr.msg_iov = m[i].iov;
			mm[i].msg_hdr.msg_iovlen = 1;
			set_mark(&m[i], &mm[i].msg_hdr, 0x42);
		}
		c0 = cpu_s();
		w0 = wall_s();
		sent = run_batched(fd, mm, count, &errors);
	} else if (!strcmp(mode, "tun")) {
		struct ifreq ifr;
		uint8_t frame[4 + PKT_LEN];

		fd = open("/dev/net/tun", O_RDWR);
		memset(&ifr, 0, sizeof(ifr));
		ifr.ifr_flags = IFF_TUN;   /* with the 4-byte packet information */
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "injt");
		if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0) {
			perror("tun");
			return 1;
		}
		/* the script configures injt while we wait for it */
		printf("ready\n");
		fflush(stdout);
		if (getchar() == EOF)
			return 1;
		memset(frame, 0, 4);
		frame[2] = 0x86;
		frame[3] = 0xdd;
		memcpy(frame + 4, pkt, PKT_LEN);
		c0 = cpu_s();
		w0 = wall_s();
		for (sent = 0; sent < count; sent++)
			if (write(fd, frame, sizeof(frame)) < 0)
				errors++;
	} else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	printf("%s sent %ld errors %ld cpu_ns_per_pkt %.0f wall_s %.3f\n", mode, sent, errors,
	       (cpu_s() - c0) * 1e9 / (double)(sent ? sent : 1), wall_s() - w0);
	return 0;
}
