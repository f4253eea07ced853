// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfq_drain - the shutdown drain of a srv6d worker (src/datapath/worker.c),
 * on srv6d's own queue code (src/datapath/nfq.c), for test_nfq_drain.sh:
 *
 *   nfq_drain QUEUE MAXLEN
 *
 * Binds QUEUE as srv6d does, prints "ready", and reads nothing until a line
 * arrives on stdin (the test fills the queue meanwhile, past the receive
 * buffer: ENOBUFS).  Then drains as the worker does at shutdown
 * (srv6_nfq_recv without waiting until it returns 0, NF_ACCEPT for every
 * packet), prints "drained N enobufs E", waits for a second line (the test
 * reads the kernel's queue state) and unbinds.
 */
#include <linux/netfilter.h>
#include <stdio.h>
#include <stdlib.h>

#include "srv6d/nfq.h"

int main(int argc, char **argv)
{
	struct srv6_nfq_opts o = { 0 };
	struct srv6_nfq_packet p;
	struct srv6_nfq_stats st;
	struct srv6_nfq *q;
	unsigned long drained = 0;
	char err[256], line[64];
	int n;

	if (argc != 3) {
		fprintf(stderr, "usage: nfq_drain QUEUE MAXLEN\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	o.queue = (uint16_t)strtoul(argv[1], NULL, 0);
	o.maxlen = (uint32_t)strtoul(argv[2], NULL, 0);
	if (srv6_nfq_open(&q, &o, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	printf("ready\n");
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	while ((n = srv6_nfq_recv(q, false)) > 0) {
		while (srv6_nfq_next(q, &p)) {
			(void)srv6_nfq_verdict(q, p.id, NF_ACCEPT, false, 0, NULL, 0);
			drained++;
		}
		(void)srv6_nfq_flush(q);
	}
	srv6_nfq_stats_read(q, &st);
	printf("drained %lu enobufs %llu\n", drained, (unsigned long long)st.enobufs);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	srv6_nfq_close(q);
	return n < 0 ? 1 : 0;
}
