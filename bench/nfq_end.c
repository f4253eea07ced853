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
 * code with srv6d (the round trip is bench/nfq_ref.h, shared by the three
 * references only).  Frozen reference: change it only to fix a measured
 * defect, and say so in docs/PERFORMANCE.md.
 *
 *   nfq_end [-q QUEUE] [-m MAXLEN] [-c CPU] [-t SECONDS]
 *
 * Runs until SIGINT/SIGTERM (or -t), then prints
 *   packets N verdicts N sendmsgs N enobufs N dropped N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nfq_ref.h"

int main(int argc, char **argv)
{
	static struct nfqr r;
	unsigned long long dropped = 0;
	unsigned int queue = 0, maxlen = 4096, seconds = 0;
	int cpu = -1, opt;
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
	nfqr_setup(cpu);
	if (nfqr_open(&r, queue, maxlen) < 0)
		return 1;
	endt = seconds ? time(NULL) + seconds : 0;

	while (nfqr_running(endt)) {
		struct nfqr_pkt p;

		if (nfqr_recv(&r) < 0)
			continue;
		while (nfqr_next(&r, &p)) {
			if (!p.data || nfqr_end(p.data, p.len) < 0) {
				nfqr_commit(&r, nfqr_verdict(&r, p.id, NF_DROP));
				dropped++;
			} else {
				nfqr_commit_payload(&r, nfqr_verdict(&r, p.id, NF_ACCEPT), NULL, 0,
						    p.data, p.len);
			}
		}
		nfqr_flush(&r);
	}
	nfqr_close(&r);
	printf("packets %llu verdicts %llu sendmsgs %llu enobufs %llu dropped %llu\n",
	       r.packets, r.verdicts, r.sendmsgs, r.enobufs, dropped);
	return 0;
}
