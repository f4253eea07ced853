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
 * code with srv6d (the round trip and End are bench/nfq_ref.h, shared by
 * the three references only).  Frozen reference once measured: change it
 * only to fix a measured defect, and say so in docs/PERFORMANCE.md.
 *
 *   nfq_behav -a x|dx6|b6|encap [-k MARK] [-s SRC -S SEG1[,SEG2...]]
 *             [-q QUEUE] [-m MAXLEN] [-c CPU] [-t SECONDS]
 *
 * Runs until SIGINT/SIGTERM (or -t), then prints
 *   packets N verdicts N sendmsgs N enobufs N dropped N
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nfq_ref.h"

#define MAXSEG 16

enum act { ACT_X, ACT_DX6, ACT_B6, ACT_ENCAP };

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
	static uint8_t eh[NFQR_BATCH][40 + 8 + 16 * MAXSEG];
	static struct nfqr r;
	unsigned long long dropped = 0;
	unsigned int queue = 0, maxlen = 4096, seconds = 0, nsegs = 0, mark = 1;
	int cpu = -1, opt, act = -1;
	const char *src = NULL, *segarg = NULL;
	struct in6_addr segs[MAXSEG], saddr;
	uint32_t hlen = 0;
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
		for (int b = 0; b < NFQR_BATCH; b++) {   /* the constant part of each slot's header */
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
	nfqr_setup(cpu);
	if (nfqr_open(&r, queue, maxlen) < 0)
		return 1;
	endt = seconds ? time(NULL) + seconds : 0;

	while (nfqr_running(endt)) {
		struct nfqr_pkt p;

		if (nfqr_recv(&r) < 0)
			continue;
		while (nfqr_next(&r, &p)) {
			uint8_t *data = p.data, *push = eh[r.nv];
			uint32_t plen = p.len, pushlen = 0;
			struct nlmsghdr *v;
			int ok = -1, s;

			if (data) {
				switch (act) {
				case ACT_X:
					ok = nfqr_end(data, plen);
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
					if (nfqr_end(data, plen) < 0)
						break;
					/* fall through */
				case ACT_ENCAP:
					if (plen < 40 || (data[0] >> 4) != 6 || plen + hlen > 0xffff)
						break;
					encap_hdr(push, hlen, data, plen);
					pushlen = hlen;
					ok = 0;
					break;
				}
			}
			if (ok < 0) {
				nfqr_commit(&r, nfqr_verdict(&r, p.id, NF_DROP));
				dropped++;
				continue;
			}
			v = nfqr_verdict(&r, p.id, NF_ACCEPT);
			if (act == ACT_X || act == ACT_DX6)
				nfq_nlmsg_verdict_put_mark(v, mark);
			nfqr_commit_payload(&r, v, push, pushlen, data, plen);
		}
		nfqr_flush(&r);
	}
	nfqr_close(&r);
	printf("packets %llu verdicts %llu sendmsgs %llu enobufs %llu dropped %llu\n",
	       r.packets, r.verdicts, r.sendmsgs, r.enobufs, dropped);
	return 0;

usage:
	fprintf(stderr, "usage: nfq_behav -a x|dx6|b6|encap [-k MARK] [-s SRC -S SEG1[,SEG2...]] "
		"[-q QUEUE] [-m MAXLEN] [-c CPU] [-t SECONDS]\n");
	return 2;
}
