// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * counters.c - the counters as srv6ctl and the stats file see them: read
 * per slot, worker and injection socket minus the `stats reset` base; the
 * stats file and SIGUSR1 dump.
 */

#include "srv6d/pqueue.h"
#include "srv6d/statsfile.h"
#include "srv6d/worker.h"

#include "daemon/daemon.h"

/* @n uint64_t fields of @v minus those of @base (0 when below). */
static void sub_u64s(void *v, const void *base, size_t size)
{
	uint64_t *a = v;
	const uint64_t *b = base;

	for (size_t i = 0; i < size / sizeof(uint64_t); i++)
		a[i] = a[i] >= b[i] ? a[i] - b[i] : 0;
}

_Static_assert(sizeof(struct srv6_counters) % sizeof(uint64_t) == 0, "all uint64_t");

_Static_assert(sizeof(struct srv6_worker_stats) % sizeof(uint64_t) == 0, "all uint64_t");

_Static_assert(sizeof(struct srv6_nfq_stats) % sizeof(uint64_t) == 0, "all uint64_t");

/* The counters of slot @id (prefix @addr/@plen of @family) since the last reset. */
void ctr_read(const struct daemon *d, bool policy, uint32_t id, int family,
	      const void *addr, uint8_t plen, struct srv6_counters *ct)
{
	const struct ctr_base *b = policy ? d->base_pol : d->base_sid;
	size_t nb = policy ? d->nbase_pol : d->nbase_sid;

	srv6_cache_counters(d->cache, policy, id, ct);
	if (id < nb && b[id].set && b[id].family == family && b[id].plen == plen &&
	    !memcmp(b[id].addr, addr, family == AF_INET6 ? 16 : 4))
		sub_u64s(ct, &b[id].c, sizeof(*ct));
}

void worker_read(const struct daemon *d, unsigned int i, struct srv6_worker_stats *s,
		 struct srv6_nfq_stats *q)
{
	srv6_worker_stats_read(&d->workers[i], s);
	srv6_nfq_stats_read(d->workers[i].nfq, q);
	if (d->base_w)
		sub_u64s(s, &d->base_w[i], sizeof(*s));
	if (d->base_q)
		sub_u64s(q, &d->base_q[i], sizeof(*q));
}

/* Worker @i's injection socket counters since the last `stats reset`
 * (zero without one).  Control thread. */
void inj_read(const struct daemon *d, unsigned int i, struct srv6_inj_stats *is)
{
	memset(is, 0, sizeof(*is));
	if (!d->workers[i].inj)
		return;
	srv6_inj_stats_read(d->workers[i].inj, is);
	if (d->base_i)
		sub_u64s(is, &d->base_i[i], sizeof(*is));
}

/* ---- counters ---- */

struct dump_ctx {
	struct daemon *d;
	FILE *f;           /* NULL: log */
};

static void dump_line(struct dump_ctx *x, const char *head, const struct srv6_counters *ct)
{
	char line[2048];
	int n;

	n = snprintf(line, sizeof(line), "%s %llu %llu %llu", head,
		     (unsigned long long)ct->packets, (unsigned long long)ct->bytes,
		     (unsigned long long)ct->errors);
	for (int r = 1; r < SRV6_DROP_MAX && n > 0 && (size_t)n < sizeof(line); r++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %s=%llu",
			      srv6_drop_name((enum srv6_drop)r), (unsigned long long)ct->drops[r]);
	if (x->f)
		fprintf(x->f, "%s\n", line);
	else
		srv6_log(LOG_INFO, "%s", line);
}

static void dump_sid(const struct srv6_sid_entry *e, void *arg)
{
	struct dump_ctx *x = arg;
	struct srv6_counters ct;
	char a[INET6_ADDRSTRLEN + 8], head[256];

	ctr_read(x->d, false, e->id, AF_INET6, &e->prefix, e->plen, &ct);
	addr_str(AF_INET6, &e->prefix, e->plen, true, a, sizeof(a));
	snprintf(head, sizeof(head), "%s %s", a, srv6_action_name(e->cfg.action));
	dump_line(x, head, &ct);
}

static void dump_policy(const struct srv6_policy_entry *e, void *arg)
{
	struct dump_ctx *x = arg;
	struct srv6_counters ct;
	char a[INET6_ADDRSTRLEN + 8], head[256];

	ctr_read(x->d, true, e->id, e->family, &e->prefix, e->plen, &ct);
	addr_str(e->family, &e->prefix, e->plen, false, a, sizeof(a));
	snprintf(head, sizeof(head), "route %s %s", a, srv6_mode_name(e->pol.mode));
	dump_line(x, head, &ct);
}

/* The injection device's counters: frames the kernel end received and what
 * the veth pair and the host's backlogs dropped (a veth transmit reports
 * success even when its peer drops). */
static void dump_egress(struct dump_ctx *x)
{
	struct srv6_injdev_drops dr;
	char line[512];

	if (!x->d->injdev.ifindex || srv6_injdev_drops(&x->d->injdev, &dr) < 0)
		return;
	snprintf(line, sizeof(line),
		 "egress %s ipv6=%s rx-packets=%llu rx-dropped=%llu tx-dropped=%llu softnet-dropped=%llu",
		 x->d->injdev.name, x->d->inject6 ? "inject" : "verdict",
		 (unsigned long long)dr.rx_packets, (unsigned long long)dr.rx_dropped,
		 (unsigned long long)dr.tx_dropped, (unsigned long long)dr.softnet_dropped);
	if (x->f)
		fprintf(x->f, "%s\n", line);
	else
		srv6_log(LOG_INFO, "%s", line);
}

static void dump_workers(struct dump_ctx *x)
{
	for (unsigned int i = 0; x->d->workers && i < x->d->nworkers; i++) {
		struct srv6_worker *w = &x->d->workers[i];
		struct srv6_worker_stats s;
		struct srv6_nfq_stats q;
		char line[1024];

		if (!w->nfq)
			continue;
		struct srv6_inj_stats is = { 0 };
		int n;

		worker_read(x->d, i, &s, &q);
		inj_read(x->d, i, &is);
		n = snprintf(line, sizeof(line),
			 "queue %u packets=%llu accepted=%llu dropped=%llu miss=%llu malformed=%llu "
			 "truncated=%llu xfamily=%llu icmp-sent=%llu icmp-limited=%llu icmp-failed=%llu "
			 "icmp-ignored=%llu "
			 "enobufs=%llu verdict-errors=%llu send-errors=%llu sendmsgs=%llu batches=%llu "
			 "gso=%llu csum-not-ready=%llu lost-ids=%llu fallback-drops=%llu",
			 srv6_nfq_queue(w->nfq), (unsigned long long)s.packets,
			 (unsigned long long)s.accepted, (unsigned long long)s.dropped,
			 (unsigned long long)s.miss, (unsigned long long)s.malformed,
			 (unsigned long long)(s.truncated), (unsigned long long)s.xfamily,
			 (unsigned long long)s.icmp_sent, (unsigned long long)s.icmp_limited,
			 (unsigned long long)s.icmp_failed, (unsigned long long)s.icmp_ignored,
			 (unsigned long long)q.enobufs,
			 (unsigned long long)q.verdict_errors, (unsigned long long)q.send_errors,
			 (unsigned long long)q.sendmsgs, (unsigned long long)s.batches,
			 (unsigned long long)q.gso, (unsigned long long)q.csum_not_ready,
			 (unsigned long long)q.lost_ids, (unsigned long long)q.fallback_drops);
		if (n > 0 && (size_t)n < sizeof(line))
			snprintf(line + n, sizeof(line) - (size_t)n,
				 " injected=%llu inject-errors=%llu l2-sent=%llu chained=%llu",
				 (unsigned long long)s.injected, (unsigned long long)is.errors,
				 (unsigned long long)is.l2_sent, (unsigned long long)s.chained);
		n = (int)strlen(line);
		if (w->gso && (size_t)n < sizeof(line))
			snprintf(line + n, sizeof(line) - (size_t)n,
				 " gso-injected=%llu gso-sent=%llu gso-segmented=%llu gso-segments=%llu "
				 "gso-dropped=%llu csum-completed=%llu csum-dropped=%llu",
				 (unsigned long long)s.gso_injected, (unsigned long long)is.gso_sent,
				 (unsigned long long)s.gso_segmented,
				 (unsigned long long)s.gso_segments, (unsigned long long)s.gso_dropped,
				 (unsigned long long)s.csum_completed, (unsigned long long)s.csum_dropped);
		if (x->f)
			fprintf(x->f, "%s\n", line);
		else
			srv6_log(LOG_INFO, "%s", line);
	}
}

/* One line per verdict-policy queue (pqueue.h). */
static void dump_pqueues(struct dump_ctx *x)
{
	for (unsigned int i = 0; x->d->pqs && i < x->d->npqs; i++) {
		struct srv6_pq *pq = &x->d->pqs[i];
		struct srv6_pq_stats s;
		char line[512];
		size_t nheld;

		srv6_pq_stats_read(pq, &s, &nheld);
		snprintf(line, sizeof(line),
			 "pqueue %u packets=%llu accepted=%llu dropped=%llu repeated=%llu "
			 "requeued=%llu guarded=%llu held=%llu released=%llu late=%llu enobufs=%llu "
			 "held-now=%zu evicted=%llu reconciled=%llu kernel-dropped=%llu",
			 pq->cfg.queue, (unsigned long long)s.packets,
			 (unsigned long long)s.accepted, (unsigned long long)s.dropped,
			 (unsigned long long)s.repeated, (unsigned long long)s.requeued,
			 (unsigned long long)s.guarded, (unsigned long long)s.held,
			 (unsigned long long)s.released, (unsigned long long)s.late,
			 (unsigned long long)s.enobufs, nheld, (unsigned long long)s.evicted,
			 (unsigned long long)s.reconciled, (unsigned long long)s.kernel_dropped);
		if (x->f)
			fprintf(x->f, "%s\n", line);
		else
			srv6_log(LOG_INFO, "%s", line);
	}
}

int fill_stats(FILE *f, void *arg)
{
	struct dump_ctx x = { .d = arg, .f = f };

	srv6_cache_foreach_sid(x.d->cache, dump_sid, &x);
	srv6_cache_foreach_policy(x.d->cache, dump_policy, &x);
	dump_workers(&x);
	dump_pqueues(&x);
	dump_egress(&x);
	fprintf(f, "steering repairs=%llu\n",
		(unsigned long long)(x.d->steer_repairs - x.d->base_repairs));
	fprintf(f, "policy-routes restored=%llu\n",
		(unsigned long long)(x.d->route_restores - x.d->base_restores));
	fprintf(f, "sync failed-applies=%llu out-of-sync=%d\n",
		(unsigned long long)(x.d->sync_failures - x.d->base_sync_failures),
		x.d->sync_dirty);
	srv6_pending_print(&x.d->pend, &x.d->conf, f);
	return 0;
}

/* Counters to the log, and to the stats file when one was given (a fresh
 * mkstemp file in its directory renamed over it: readers never see half a
 * file, and a planted symlink is never followed). */
void dump_counters(struct daemon *d, bool to_log)
{
	struct dump_ctx x = { .d = d };
	char err[512];

	if (to_log) {
		srv6_cache_foreach_sid(d->cache, dump_sid, &x);
		srv6_cache_foreach_policy(d->cache, dump_policy, &x);
		dump_workers(&x);
		dump_pqueues(&x);
		dump_egress(&x);
		srv6_log(LOG_INFO, "steering repairs=%llu",
			 (unsigned long long)(d->steer_repairs - d->base_repairs));
		srv6_log(LOG_INFO, "policy-routes restored=%llu",
			 (unsigned long long)(d->route_restores - d->base_restores));
		srv6_log(LOG_INFO, "sync failed-applies=%llu out-of-sync=%d",
			 (unsigned long long)(d->sync_failures - d->base_sync_failures),
			 d->sync_dirty);
		srv6_pending_print(&d->pend, &d->conf, NULL);
	}
	if (d->stats_path && srv6_file_replace(d->stats_path, fill_stats, d, err, sizeof(err)) < 0)
		srv6_log(LOG_ERR, "%s", err);
}
