// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * srv6_blast - a rate-controlled SRv6 traffic generator for the datapath
 * benchmark (pktgen is a kernel module, not available here).  Builds one
 * Ethernet + IPv6 + SRH + UDP packet and sends it with sendmmsg on an
 * AF_PACKET socket (PACKET_QDISC_BYPASS), in bursts of 32, paced by a token
 * bucket on CLOCK_MONOTONIC.  The UDP source port varies over -F flows.
 *
 *   srv6_blast -i IF -M DSTMAC -s SRC -S SEG1[,SEG2...] [-r PPS] [-t SECONDS]
 *              [-l PAYLOAD] [-F FLOWS] [-c CPU] [-y] [-T] [-O] [-A N] [-P | -D INNER] [-4 DST4]
 *
 * -y: sched_yield() after each burst, and while waiting for the pace, so a
 * consumer pinned to the same CPU at the same real-time priority
 * (bench/run_datapath.sh PLACE=onecore, and the mw2 case's worker on the
 * generator's CPU) runs between bursts.
 * -O: open loop, as traffic arriving from a wire: sendmmsg does not wait
 * (MSG_DONTWAIT), and a packet refused (EAGAIN: the socket's send buffer is
 * full because a veth peer's NAPI ring still holds its packets; ENOBUFS: the
 * device's queue stopped), where a NIC would drop at its ring, still uses
 * its token, so the offered rate is the paced one, not what the receiver
 * let through.  Without -O sendmmsg blocks on a full send buffer and a
 * refused burst is tried again at once (closed loop).
 * -A N (2..16): the device's tc egress hook sends every packet N times (with
 * bench/amp.bpf.o attached there, which reads N from the packet's priority):
 * the socket's packets get priority N and go through the device's queueing
 * path instead of PACKET_QDISC_BYPASS.  A generator whose own CPU cannot
 * offer more than the router takes (a veth in threaded NAPI mode) offers N
 * times that; the N - 1 copies cost one skb_clone and one veth transmit
 * each, not a system call.  What is printed stays per packet sent; the
 * caller multiplies by N.
 * -P: a plain IPv6 + UDP packet to SEG1 (the only segment), no SRH: traffic for
 * a headend policy (H.Encaps).
 * -D INNER: the SRH's next header is IPv6 (41): an inner IPv6 header from SRC
 * to INNER carries the UDP datagram (End.DX6 with -S SID: Segments Left 0).
 * -4 DST4: IPv4 instead.  With -P: a plain IPv4 + UDP packet from 10.1.0.1
 * to DST4 (H.Encaps of IPv4; -S is then unused but required); without: the
 * SRH's next header is IPv4 (4), an inner IPv4 header from 10.1.0.1 to DST4
 * carries the datagram (End.DX4, End.DT4).  UDP checksum 0 (allowed in
 * IPv4).
 * -T: send one packet per call, with CLOCK_REALTIME (ns, 8 bytes, host
 * order) written into the first 8 bytes of its UDP payload just before, for
 * bench/lat_sink (the UDP checksum is then wrong: nothing on the path
 * checks it).
 * SEG1 is the first segment (the packet's destination), the last one the
 * final destination; Segments Left = nsegs - 1.  -r 0 sends as fast as it can.
 * Prints "sent N seconds T pps P cpu C offered O refused F" (N: packets the
 * device took; C: its own user + system seconds, getrusage, including the
 * receive softirq work run in its context; O: packets tried, sent or not;
 * F: packets the device refused, ENOBUFS/EAGAIN; closed loop: the first of
 * each refused call, the rest of its burst is tried again).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BURST 32
#define MAXSEG 16

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint32_t sum16(const void *p, size_t len, uint32_t s)
{
	const uint8_t *b = p;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		s += (uint32_t)(b[len - 1] << 8);
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *mac = NULL, *src = NULL, *segarg = NULL, *inner = NULL;
	const char *dst4 = NULL;
	struct in_addr idst4, isrc4;
	struct in6_addr segs[MAXSEG], saddr, idst;
	unsigned int nsegs = 0, flows = 1, payload = 64;
	double rate = 0, seconds = 5;
	static uint8_t pkts[BURST][2048];
	struct mmsghdr mm[BURST];
	struct iovec iov[BURST];
	struct sockaddr_ll ll = { .sll_family = AF_PACKET };
	unsigned long long sent = 0, offered = 0, refused = 0;
	uint8_t dmac[6], *p;
	size_t len, srh_len, udp_off;
	int fd, opt, one = 1, cpu = -1, yield = 0, stamp = 0, plain = 0, open_loop = 0, amp = 1;
	size_t ip_off;
	double t0, t, tokens = 0, last;

	while ((opt = getopt(argc, argv, "i:M:s:S:r:t:l:F:c:yTOA:PD:4:")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'M': mac = optarg; break;
		case 's': src = optarg; break;
		case 'S': segarg = optarg; break;
		case 'r': rate = atof(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'l': payload = (unsigned int)atoi(optarg); break;
		case 'F': flows = (unsigned int)atoi(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		case 'y': yield = 1; break;
		case 'T': stamp = 1; break;
		case 'O': open_loop = 1; break;
		case 'A': amp = atoi(optarg); break;
		case 'P': plain = 1; break;
		case 'D': inner = optarg; break;
		case '4': dst4 = optarg; break;
		default: goto usage;
		}
	}
	if (!ifname || !mac || !src || !segarg || payload > 1400 || !flows || (stamp && payload < 8))
		goto usage;
	if (sscanf(mac, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &dmac[0], &dmac[1], &dmac[2],
		   &dmac[3], &dmac[4], &dmac[5]) != 6 || inet_pton(AF_INET6, src, &saddr) != 1)
		goto usage;
	{
		char *s = strdup(segarg), *save = NULL;

		for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (nsegs == MAXSEG || inet_pton(AF_INET6, tok, &segs[nsegs]) != 1)
				goto usage;
			nsegs++;
		}
		free(s);
	}
	if (!nsegs || (plain && (nsegs != 1 || inner)) ||
	    (inner && inet_pton(AF_INET6, inner, &idst) != 1) || (inner && dst4) ||
	    (dst4 && inet_pton(AF_INET, dst4, &idst4) != 1))
		goto usage;
	inet_pton(AF_INET, "10.1.0.1", &isrc4);
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	ll.sll_ifindex = (int)if_nametoindex(ifname);
	ll.sll_protocol = htons(plain && dst4 ? ETH_P_IP : ETH_P_IPV6);
	ll.sll_halen = 6;
	memcpy(ll.sll_addr, dmac, 6);
	if (!ll.sll_ifindex || bind(fd, (struct sockaddr *)&ll, sizeof(ll)) < 0) {
		perror(ifname);
		return 1;
	}
	if (amp < 1 || amp > 16) {
		fprintf(stderr, "-A %d: between 1 and 16\n", amp);
		return 1;
	}
	if (amp == 1) {
		setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	} else if (setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &amp, sizeof(amp)) < 0) {
		perror("SO_PRIORITY");
		return 1;
	}

	/* Ethernet + IPv6 + SRH (+ IPv6 or IPv4) + UDP + payload; -P -4:
	 * Ethernet + IPv4 + UDP + payload */
	srh_len = plain ? 0 : 8 + 16 * nsegs;
	ip_off = 14 + 40 + srh_len;                 /* the inner header (-D, -4) */
	if (plain && dst4)
		ip_off = 14;
	udp_off = ip_off + (inner ? 40 : dst4 ? 20 : 0);
	len = udp_off + 8 + payload;
	for (int b = 0; b < BURST; b++) {
		uint32_t s;
		uint16_t ck, sport = (uint16_t)(10000 + b % flows);

		p = pkts[b];
		memset(p, 0, len);
		memcpy(p, dmac, 6);
		p[6] = 0x02; p[11] = 0x01;                  /* source MAC 02:00:00:00:00:01 */
		p[12] = 0x86; p[13] = 0xdd;
		p[14] = 0x60;
		p[18] = (uint8_t)((len - 54) >> 8);
		p[19] = (uint8_t)(len - 54);
		p[20] = plain ? 17 : 43;                    /* UDP or routing header */
		p[21] = 64;
		memcpy(p + 22, &saddr, 16);
		memcpy(p + 38, &segs[0], 16);
		if (!plain) {
			p[54] = inner ? 41 : 17;            /* SRH: next header */
			p[55] = (uint8_t)(2 * nsegs);
			p[56] = 4;
			p[57] = (uint8_t)(nsegs - 1);
			p[58] = (uint8_t)(nsegs - 1);
			for (unsigned int i = 0; i < nsegs; i++) /* reversed order */
				memcpy(p + 62 + 16 * i, &segs[nsegs - 1 - i], 16);
		}
		if (inner) {
			p[ip_off] = 0x60;
			p[ip_off + 4] = (uint8_t)((8 + payload) >> 8);
			p[ip_off + 5] = (uint8_t)(8 + payload);
			p[ip_off + 6] = 17;
			p[ip_off + 7] = 64;
			memcpy(p + ip_off + 8, &saddr, 16);
			memcpy(p + ip_off + 24, &idst, 16);
		}
		if (dst4) {
			uint16_t tot = (uint16_t)(20 + 8 + payload);

			if (plain) {
				p[12] = 0x08;
				p[13] = 0x00;
			} else {
				p[54] = 4;                  /* SRH: next header IPv4 */
			}
			memset(p + ip_off, 0, 20);
			p[ip_off] = 0x45;
			p[ip_off + 2] = (uint8_t)(tot >> 8);
			p[ip_off + 3] = (uint8_t)tot;
			p[ip_off + 8] = 64;
			p[ip_off + 9] = 17;
			memcpy(p + ip_off + 12, &isrc4, 4);
			memcpy(p + ip_off + 16, &idst4, 4);
			ck = fold(sum16(p + ip_off, 20, 0));
			p[ip_off + 10] = (uint8_t)(ck >> 8);
			p[ip_off + 11] = (uint8_t)ck;
		}
		p[udp_off] = (uint8_t)(sport >> 8);
		p[udp_off + 1] = (uint8_t)sport;
		p[udp_off + 2] = 0x27; p[udp_off + 3] = 0x0f; /* port 9999 */
		p[udp_off + 4] = (uint8_t)((8 + payload) >> 8);
		p[udp_off + 5] = (uint8_t)(8 + payload);
		for (unsigned int i = 0; i < payload; i++)
			p[udp_off + 8 + i] = (uint8_t)i;
		/* checksum over the pseudo-header with the final destination
		 * (IPv4: none, 0) */
		s = sum16(&saddr, 16, 0);
		s = sum16(inner ? &idst : &segs[nsegs - 1], 16, s);
		s += 8 + payload + 17;
		s = sum16(p + udp_off, 8 + payload, s);
		ck = fold(s);
		if (!ck)
			ck = 0xffff;
		if (dst4)
			ck = 0;
		p[udp_off + 6] = (uint8_t)(ck >> 8);
		p[udp_off + 7] = (uint8_t)ck;
		iov[b].iov_base = p;
		iov[b].iov_len = len;
		memset(&mm[b], 0, sizeof(mm[b]));
		mm[b].msg_hdr.msg_iov = &iov[b];
		mm[b].msg_hdr.msg_iovlen = 1;
	}

	t0 = last = now();
	for (;;) {
		const unsigned int n = stamp ? 1 : BURST;   /* -T: each packet its own time */
		int r;

		t = now();
		if (t - t0 >= seconds)
			break;
		if (rate > 0) {
			/* whole bursts only: small sendmmsg calls would cost
			 * more than the packets they carry */
			tokens += (t - last) * rate;
			last = t;
			/* credit lost to a descheduled vCPU is paid back, up
			 * to 10 ms worth */
			if (tokens > BURST * 8 && tokens > rate / 100)
				tokens = rate / 100 > BURST * 8 ? rate / 100 : BURST * 8;
			if (tokens < n) {
				if (rate < 20000) {
					struct timespec ts = { 0, (long)(BURST * 1e9 / rate / 4) };

					nanosleep(&ts, NULL);
				}
				if (yield)
					sched_yield();
				continue;                     /* spin: sleeps are too coarse */
			}
		}
		if (stamp) {
			struct timespec ts;
			uint64_t ns;

			clock_gettime(CLOCK_REALTIME, &ts);
			ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
			for (unsigned int b = 0; b < n; b++)
				memcpy(pkts[b] + udp_off + 8, &ns, sizeof(ns));
		}
		r = sendmmsg(fd, mm, n, open_loop ? MSG_DONTWAIT : 0);
		if (r < 0 && errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
			perror("sendmmsg");
			return 1;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			r = 0;
		/* sendmmsg stops at the first packet the device refuses:
		 * the rest of the burst was not tried */
		sent += (unsigned long long)r;
		if (open_loop) {
			offered += n;
			refused += n - (unsigned int)r;
			tokens -= n;
		} else {
			offered += (unsigned long long)r + (r < (int)n);
			refused += r < (int)n;
			tokens -= r;
		}
		if (yield)
			sched_yield();
	}
	t = now() - t0;
	{
		struct rusage ru;
		double used = 0;

		if (getrusage(RUSAGE_SELF, &ru) == 0)
			used = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
			      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		printf("sent %llu seconds %.3f pps %.0f cpu %.3f offered %llu refused %llu\n", sent, t,
		       (double)sent / t, used, offered, refused);
	}
	return 0;

usage:
	fprintf(stderr, "usage: srv6_blast -i IF -M DSTMAC -s SRC -S SEG1[,SEG2...] [-r PPS] "
		"[-t SECONDS] [-l PAYLOAD<=1400] [-F FLOWS] [-c CPU] [-y] [-T] [-O] [-P | -D INNER] "
		"[-4 DST4]\n");
	return 2;
}
