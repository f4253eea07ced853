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
 * trip, not srv6d's implementation of it (the round trip is bench/nfq_ref.h,
 * shared by the three references only).
 *
 *   nfq_floor [-q QUEUE] [-m MAXLEN] [-1] [-p] [-b] [-c CPU] [-t SECONDS]
 *
 * Runs until SIGINT/SIGTERM (or -t), then prints
 *   packets N verdicts N sendmsgs N enobufs N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "nfq_ref.h"

int main(int argc, char **argv)
{
	static struct nfqr r;
	unsigned int queue = 0, maxlen = 4096, per_send = NFQR_BATCH, seconds = 0, echo = 0;
	unsigned int vbatch = 0;
	int cpu = -1, opt;
	time_t endt;

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
	nfqr_setup(cpu);
	if (nfqr_open(&r, queue, maxlen) < 0)
		return 1;
	r.per_send = per_send;
	endt = seconds ? time(NULL) + seconds : 0;

	while (nfqr_running(endt)) {
		unsigned int nb = 0;
		uint32_t maxid = 0;
		struct nfqr_pkt p;

		if (nfqr_recv(&r) < 0)
			continue;
		while (nfqr_next(&r, &p)) {
			struct nlmsghdr *v;

			if (vbatch) {
				if (p.id > maxid)
					maxid = p.id;
				nb++;
				continue;
			}
			v = nfqr_verdict(&r, p.id, NF_ACCEPT);
			if (echo && p.data)
				nfqr_commit_payload(&r, v, NULL, 0, p.data, p.len);
			else
				nfqr_commit(&r, v);
		}
		if (nb) {
			/* one NFQNL_MSG_VERDICT_BATCH: every id up to maxid */
			struct nlmsghdr *v = nfq_nlmsg_put((char *)nfqr_vb[0], NFQNL_MSG_VERDICT_BATCH,
							   queue);

			nfq_nlmsg_verdict_put(v, (int)maxid, NF_ACCEPT);
			if (mnl_socket_sendto(r.nl, v, v->nlmsg_len) >= 0) {
				r.sendmsgs++;
				r.verdicts += nb;
			}
		}
		nfqr_flush(&r);
	}
	nfqr_close(&r);
	printf("packets %llu verdicts %llu sendmsgs %llu enobufs %llu\n",
	       r.packets, r.verdicts, r.sendmsgs, r.enobufs);
	return 0;
}
