// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctl_queue.c - `queue show N` and `queue release N [COUNT|all]`.
 */
#include <errno.h>
#include <stdlib.h>

#include "srv6d/pqueue.h"
#include "srv6d/worker.h"

#include "daemon.h"

/* The kernel's counters of @queue; false when it has none for it. */
bool kq_find(const char *proc, unsigned int queue, struct srv6_nfq_kstats *k)
{
	return proc && srv6_nfq_proc_find(proc, queue, k) == 0;
}

/* QUEUE: a queue number srv6d serves (SRv6 or policy); *@pq the policy
 * queue or NULL.  0 or -ENOENT/-EINVAL with @err. */
static int queue_arg(struct daemon *d, const char *w, unsigned int *qn, struct srv6_pq **pq,
		     char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(w, &end, 10);
	if (!*w || *end || errno || v > 65535 || w[0] == '-' || w[0] == '+') {
		snprintf(err, errlen, "bad queue \"%.40s\" (0..65535)", w);
		return -EINVAL;
	}
	*qn = (unsigned int)v;
	*pq = NULL;
	for (unsigned int i = 0; i < d->npqs; i++)
		if (d->pqs[i].cfg.queue == v)
			*pq = &d->pqs[i];
	if (!*pq && (v < d->conf.queue_first || v > d->conf.queue_last)) {
		snprintf(err, errlen, "queue %lu is not one of srv6d's queues", v);
		return -ENOENT;
	}
	return 0;
}

/* Worker @i's GSO counters (gso on) for queue show: a "    gso NAME N ..."
 * line, or with @json an object of the same names ('-' as '_'). */
static void print_gso(FILE *o, const struct daemon *d, unsigned int i,
		      const struct srv6_worker_stats *s, const struct srv6_nfq_stats *n, bool json)
{
	struct srv6_inj_stats is;

	inj_read(d, i, &is);
	const struct {
		const char *name;
		uint64_t v;
	} f[] = {
		{ "queued", n->gso },
		{ "injected", s->gso_injected },
		{ "sent", is.gso_sent },
		{ "segmented", s->gso_segmented },
		{ "segments", s->gso_segments },
		{ "dropped", s->gso_dropped },
		{ "csum-completed", s->csum_completed },
		{ "csum-dropped", s->csum_dropped },
	};

	fputs(json ? "{" : "    gso", o);
	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		if (!json) {
			fprintf(o, " %s %llu", f[k].name, (unsigned long long)f[k].v);
			continue;
		}
		fprintf(o, "%s\"", k ? "," : "");
		for (const char *c = f[k].name; *c; c++)
			fputc(*c == '-' ? '_' : *c, o);
		fprintf(o, "\":%llu", (unsigned long long)f[k].v);
	}
	fputs(json ? "}" : "\n", o);
}

/* queue show [N]: the SRv6 queues' counters, the policy queues' counters
 * (with N: their held packets and the last packets seen too). */
int ctl_queue(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
	      size_t errlen)
{
	char proc[16384];
	bool have = srv6_nfq_proc_read(proc, sizeof(proc)) == 0;
	unsigned int only = 0, nshown = 0;
	struct srv6_pq *opq = NULL;

	if (q->argc) {
		int r = queue_arg(d, q->argv[0], &only, &opq, err, errlen);

		if (r < 0)
			return r;
	}
	if (q->json)
		fprintf(o, "[");
	for (unsigned int i = 0; i < d->nworkers; i++) {
		struct srv6_worker_stats s;
		struct srv6_nfq_stats n;
		struct srv6_nfq_kstats k = { 0 };
		unsigned int qn = srv6_nfq_queue(d->workers[i].nfq);
		bool kk = kq_find(have ? proc : NULL, qn, &k);

		if (q->argc && (opq || qn != only))
			continue;
		worker_read(d, i, &s, &n);
		if (q->json) {
			fprintf(o, "%s{\"queue\":%u,\"packets\":%llu,\"verdicts\":%llu,\"batches\":%llu,"
				"\"accepted\":%llu,\"dropped\":%llu,\"miss\":%llu,\"injected\":%llu,"
				"\"enobufs\":%llu,\"fail_open\":%s,\"kernel\":", nshown++ ? "," : "", qn,
				(unsigned long long)s.packets, (unsigned long long)n.verdicts,
				(unsigned long long)s.batches, (unsigned long long)s.accepted,
				(unsigned long long)s.dropped, (unsigned long long)s.miss,
				(unsigned long long)s.injected, (unsigned long long)n.enobufs,
				d->conf.fail_open ? "true" : "false");
			if (kk)
				fprintf(o, "{\"waiting\":%llu,\"queue_dropped\":%llu,\"user_dropped\":%llu,"
					"\"id_sequence\":%llu,\"portid\":%u}",
					(unsigned long long)k.waiting, (unsigned long long)k.queue_dropped,
					(unsigned long long)k.user_dropped,
					(unsigned long long)k.id_sequence, k.portid);
			else
				fprintf(o, "null");
			fprintf(o, ",\"gso\":");
			if (d->workers[i].gso)
				print_gso(o, d, i, &s, &n, true);
			else
				fprintf(o, "null");
			fprintf(o, "}");
		} else {
			fprintf(o, "queue %u fail-open %s\n    packets %llu verdicts %llu batches %llu "
				"accepted %llu dropped %llu miss %llu injected %llu enobufs %llu\n", qn,
				d->conf.fail_open ? "yes" : "no", (unsigned long long)s.packets,
				(unsigned long long)n.verdicts, (unsigned long long)s.batches,
				(unsigned long long)s.accepted, (unsigned long long)s.dropped,
				(unsigned long long)s.miss, (unsigned long long)s.injected,
				(unsigned long long)n.enobufs);
			if (kk)
				fprintf(o, "    kernel waiting %llu queue-dropped %llu user-dropped %llu "
					"id-sequence %llu\n", (unsigned long long)k.waiting,
					(unsigned long long)k.queue_dropped,
					(unsigned long long)k.user_dropped,
					(unsigned long long)k.id_sequence);
			else
				fprintf(o, "    kernel: no counters (/proc/net/netfilter/nfnetlink_queue)\n");
			if (d->workers[i].gso)
				print_gso(o, d, i, &s, &n, false);
		}
	}
	for (unsigned int i = 0; i < d->npqs; i++) {
		struct srv6_nfq_kstats k = { 0 };
		struct srv6_pq *pq = &d->pqs[i];
		bool kk = kq_find(have ? proc : NULL, pq->cfg.queue, &k);

		if (q->argc && pq != opq)
			continue;
		if (q->json && nshown++)
			fprintf(o, ",");
		srv6_pq_show(pq, o, q->json, q->argc > 0, kk ? &k : NULL);
	}
	if (q->json)
		fprintf(o, "]\n");
	return 0;
}

/* queue release N [COUNT|all]: the COUNT (default 1) oldest held packets
 * of policy queue N get NF_ACCEPT.  Answers once the verdicts are sent, or
 * after SRV6_PQ_RELEASE_WAIT_MS with "releasing K (in progress)" while the
 * queue's thread goes on: the control loop never waits longer. */
int ctl_release(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
		size_t errlen)
{
	uint64_t count = 1, pending = 0;
	struct srv6_pq *pq;
	unsigned int qn;
	long n;
	int r;

	r = queue_arg(d, q->argv[0], &qn, &pq, err, errlen);
	if (r < 0)
		return r;
	if (!pq) {
		snprintf(err, errlen, "queue %u is an SRv6 queue, not a policy queue", qn);
		return -EINVAL;
	}
	if (q->argc > 1) {
		char *end;

		errno = 0;
		if (!strcmp(q->argv[1], "all")) {
			count = UINT64_MAX;
		} else {
			count = strtoull(q->argv[1], &end, 10);
			if (!q->argv[1][0] || *end || errno || q->argv[1][0] == '-' || !count) {
				snprintf(err, errlen, "bad count \"%.40s\" (N >= 1 or all)", q->argv[1]);
				return -EINVAL;
			}
		}
	}
	n = srv6_pq_release(pq, count, &pending);
	if (n == -EINPROGRESS) {
		/* the queue's thread goes on sending them: the control loop does
		 * not wait (queue show N: held_now, released) */
		if (q->json)
			fprintf(o, "{\"queue\":%u,\"released\":null,\"releasing\":%llu}\n", qn,
				(unsigned long long)pending);
		else
			fprintf(o, "queue %u: releasing %llu (in progress: queue show %u)\n", qn,
				(unsigned long long)pending, qn);
		return 0;
	}
	if (n < 0) {
		snprintf(err, errlen, "queue %u: %s", qn, strerror((int)-n));
		return (int)n;
	}
	if (q->json)
		fprintf(o, "{\"queue\":%u,\"released\":%ld}\n", qn, n);
	else
		fprintf(o, "queue %u: released %ld\n", qn, n);
	return 0;
}
