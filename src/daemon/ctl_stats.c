// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctl_stats.c - `stats show` (text, JSON, Prometheus) and `stats reset`.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>

#include "srv6d/ctlsock.h"
#include "srv6d/pqueue.h"
#include "srv6d/worker.h"

#include "daemon.h"

/* Prometheus text exposition format (docs/CONTROL.md lists the names). */
static void prom_head(FILE *o, const char *name, const char *type, const char *help)
{
	fprintf(o, "# HELP srv6d_%s %s\n# TYPE srv6d_%s %s\n", name, help, name, type);
}

struct prom_row {
	const char *labels;          /* name="value",... */
	struct srv6_counters ct;
};

static void prom_counters(FILE *o, const char *what, struct prom_row *rows, size_t n)
{
	char name[64];
	static const char *const f[] = { "packets", "bytes", "errors" };

	for (int k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "%s_%s_total", what, f[k]);
		prom_head(o, name, "counter", k == 0 ? "Packets processed successfully." :
			  k == 1 ? "Bytes of the packets processed successfully." :
			  "Packets not processed successfully.");
		for (size_t i = 0; i < n; i++)
			fprintf(o, "srv6d_%s{%s} %llu\n", name, rows[i].labels, (unsigned long long)
				(k == 0 ? rows[i].ct.packets : k == 1 ? rows[i].ct.bytes : rows[i].ct.errors));
	}
	snprintf(name, sizeof(name), "%s_drops_total", what);
	prom_head(o, name, "counter", "Packets dropped, by reason.");
	for (size_t i = 0; i < n; i++)
		for (int r = 1; r < SRV6_DROP_MAX; r++)
			fprintf(o, "srv6d_%s{%s,reason=\"%s\"} %llu\n", name, rows[i].labels,
				srv6_drop_name((enum srv6_drop)r), (unsigned long long)rows[i].ct.drops[r]);
}

static int ctl_prometheus(struct daemon *d, FILE *o)
{
	struct ent_list ls = { 0 }, lp = { 0 };
	struct prom_row *rows;
	char (*lab)[160];
	size_t n;
	char proc[16384];
	bool have = srv6_nfq_proc_read(proc, sizeof(proc)) == 0;

	srv6_cache_foreach_sid(d->cache, collect_sid, &ls);
	srv6_cache_foreach_policy(d->cache, collect_pol, &lp);
	n = ls.n > lp.n ? ls.n : lp.n;
	rows = calloc(n + 1, sizeof(*rows));
	lab = calloc(n + 1, sizeof(*lab));
	if (ls.oom || lp.oom || !rows || !lab) {
		free(ls.sid);
		free(lp.pol);
		free(rows);
		free(lab);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ls.n; i++) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &ls.sid[i].prefix, a, sizeof(a));
		snprintf(lab[i], sizeof(lab[i]), "sid=\"%s/%u\",action=\"%s\"", a, ls.sid[i].plen,
			 srv6_action_name(ls.sid[i].cfg.action));
		rows[i].labels = lab[i];
		ctr_read(d, false, ls.sid[i].id, AF_INET6, &ls.sid[i].prefix, ls.sid[i].plen, &rows[i].ct);
	}
	prom_counters(o, "sid", rows, ls.n);
	for (size_t i = 0; i < lp.n; i++) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(lp.pol[i].family, &lp.pol[i].prefix, a, sizeof(a));
		snprintf(lab[i], sizeof(lab[i]), "route=\"%s/%u\",mode=\"%s\"", a, lp.pol[i].plen,
			 srv6_mode_name(lp.pol[i].pol.mode));
		rows[i].labels = lab[i];
		ctr_read(d, true, lp.pol[i].id, lp.pol[i].family, &lp.pol[i].prefix, lp.pol[i].plen,
			 &rows[i].ct);
	}
	prom_counters(o, "route", rows, lp.n);
	free(ls.sid);
	free(lp.pol);
	free(rows);
	free(lab);
	{
		static const struct { const char *name, *help; size_t off; bool nfq; } qf[] = {
			{ "queue_packets_total", "Packets received from the queue.",
			  offsetof(struct srv6_worker_stats, packets), false },
			{ "queue_verdicts_total", "Verdicts sent.", offsetof(struct srv6_nfq_stats, verdicts), true },
			{ "queue_batches_total", "Receive batches processed.",
			  offsetof(struct srv6_worker_stats, batches), false },
			{ "queue_accepted_total", "Packets accepted rewritten.",
			  offsetof(struct srv6_worker_stats, accepted), false },
			{ "queue_dropped_total", "Packets dropped by srv6d.",
			  offsetof(struct srv6_worker_stats, dropped), false },
			{ "queue_miss_total", "Packets matching no SID or policy (accepted unchanged).",
			  offsetof(struct srv6_worker_stats, miss), false },
			{ "queue_injected_total", "Results handed to the injection egress.",
			  offsetof(struct srv6_worker_stats, injected), false },
			{ "queue_enobufs_total", "Receive overruns (the kernel dropped packets).",
			  offsetof(struct srv6_nfq_stats, enobufs), true },
			{ "queue_gso_injected_total", "GSO super-packets injected whole (gso on).",
			  offsetof(struct srv6_worker_stats, gso_injected), false },
			{ "queue_gso_segmented_total", "GSO super-packets segmented by srv6d (gso on).",
			  offsetof(struct srv6_worker_stats, gso_segmented), false },
			{ "queue_gso_dropped_total", "GSO packets dropped: not TCP or no segment size (gso on).",
			  offsetof(struct srv6_worker_stats, gso_dropped), false },
			{ "queue_csum_completed_total", "Partial checksums completed by srv6d (gso on).",
			  offsetof(struct srv6_worker_stats, csum_completed), false },
			{ "queue_csum_dropped_total", "Partial checksums not found: dropped (gso on).",
			  offsetof(struct srv6_worker_stats, csum_dropped), false },
		};

		for (size_t f = 0; f < sizeof(qf) / sizeof(qf[0]); f++) {
			prom_head(o, qf[f].name, "counter", qf[f].help);
			for (unsigned int i = 0; i < d->nworkers; i++) {
				struct srv6_worker_stats s;
				struct srv6_nfq_stats q;

				worker_read(d, i, &s, &q);
				fprintf(o, "srv6d_%s{queue=\"%u\"} %llu\n", qf[f].name,
					srv6_nfq_queue(d->workers[i].nfq), (unsigned long long)
					*(const uint64_t *)((const char *)(qf[f].nfq ? (void *)&q : (void *)&s) + qf[f].off));
			}
		}
	}
	{
		static const char *const kn[] = { "queue_kernel_waiting", "queue_kernel_dropped_total",
						  "queue_kernel_user_dropped_total" };
		static const char *const kh[] = { "Packets waiting for a verdict in the kernel.",
						  "Packets the kernel dropped: queue full.",
						  "Packets the kernel dropped: socket buffer full." };

		for (int f = 0; f < 3; f++) {
			prom_head(o, kn[f], f ? "counter" : "gauge", kh[f]);
			for (unsigned int i = 0; i < d->nworkers; i++) {
				struct srv6_nfq_kstats k;
				unsigned int qn = srv6_nfq_queue(d->workers[i].nfq);

				if (kq_find(have ? proc : NULL, qn, &k))
					fprintf(o, "srv6d_%s{queue=\"%u\"} %llu\n", kn[f], qn, (unsigned long long)
						(f == 0 ? k.waiting : f == 1 ? k.queue_dropped : k.user_dropped));
			}
		}
	}
	prom_head(o, "steering_repairs_total", "counter", "Times the steering was found changed and reinstalled.");
	fprintf(o, "srv6d_steering_repairs_total %llu\n",
		(unsigned long long)(d->steer_repairs - d->base_repairs));
	prom_head(o, "policy_routes_restored_total", "counter",
		  "Policy routes found gone from the kernel and added again.");
	fprintf(o, "srv6d_policy_routes_restored_total %llu\n",
		(unsigned long long)(d->route_restores - d->base_restores));
	prom_head(o, "sync_failed_applies_total", "counter",
		  "Applies of the steering rules and policy routes that failed (retries included).");
	fprintf(o, "srv6d_sync_failed_applies_total %llu\n",
		(unsigned long long)(d->sync_failures - d->base_sync_failures));
	prom_head(o, "sync_out_of_sync", "gauge",
		  "1 while the kernel does not hold the running steering rules and policy routes.");
	fprintf(o, "srv6d_sync_out_of_sync %d\n", d->sync_dirty);
	prom_head(o, "start_time_seconds", "gauge", "Start time, Unix seconds.");
	fprintf(o, "srv6d_start_time_seconds %lld\n", (long long)d->started);
	prom_head(o, "config_load_time_seconds", "gauge", "Last configuration load, Unix seconds.");
	fprintf(o, "srv6d_config_load_time_seconds %lld\n", (long long)d->loaded);
	prom_head(o, "sids", "gauge", "Local SIDs configured.");
	fprintf(o, "srv6d_sids %zu\n", d->conf.nsids);
	prom_head(o, "routes", "gauge", "Headend policies configured.");
	fprintf(o, "srv6d_routes %zu\n", d->conf.nroutes);
	return 0;
}

/* stats show [--format text|json|prometheus] */
int ctl_stats(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
	      size_t errlen)
{
	const char *fmt = q->json ? "json" : "text";

	if (q->argc == 1 || (q->argc == 2 && strcmp(q->argv[0], "--format"))) {
		snprintf(err, errlen, "stats show: expected --format text|json|prometheus");
		return -EINVAL;
	}
	if (q->argc == 2)
		fmt = q->argv[1];
	if (!strcmp(fmt, "prometheus")) {
		if (ctl_prometheus(d, o) < 0) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		return 0;
	}
	if (!strcmp(fmt, "text"))
		return fill_stats(o, d);
	if (strcmp(fmt, "json")) {
		snprintf(err, errlen, "unknown format \"%.40s\" (text, json or prometheus)", fmt);
		return -EINVAL;
	}
	{
		struct srv6_ctl_req sq = { .cmd = q->cmd, .json = true, .stats = true };

		fprintf(o, "{\"sids\":");
		if (ctl_show(d, &sq, false, o, err, errlen) < 0)
			return -ENOMEM;
		fprintf(o, ",\"routes\":");
		if (ctl_show(d, &sq, true, o, err, errlen) < 0)
			return -ENOMEM;
		fprintf(o, ",\"queues\":");
		(void)ctl_queue(d, &sq, o, err, errlen);
		fprintf(o, ",\"steering\":{\"repairs\":%llu},\"policy_routes\":{\"restored\":%llu},"
			"\"sync\":{\"failed_applies\":%llu,\"out_of_sync\":%s}}\n",
			(unsigned long long)(d->steer_repairs - d->base_repairs),
			(unsigned long long)(d->route_restores - d->base_restores),
			(unsigned long long)(d->sync_failures - d->base_sync_failures),
			d->sync_dirty ? "true" : "false");
	}
	return 0;
}

/* stats reset: remember every counter now (kernel counters are not ours) */
int ctl_reset(struct daemon *d, FILE *o, char *err, size_t errlen)
{
	struct ent_list ls = { 0 }, lp = { 0 };
	uint32_t maxs = 0, maxp = 0;
	struct ctr_base *bs, *bp;
	struct srv6_worker_stats *bw;
	struct srv6_nfq_stats *bq;
	struct srv6_inj_stats *bi;

	srv6_cache_foreach_sid(d->cache, collect_sid, &ls);
	srv6_cache_foreach_policy(d->cache, collect_pol, &lp);
	for (size_t i = 0; i < ls.n; i++)
		maxs = ls.sid[i].id + 1 > maxs ? ls.sid[i].id + 1 : maxs;
	for (size_t i = 0; i < lp.n; i++)
		maxp = lp.pol[i].id + 1 > maxp ? lp.pol[i].id + 1 : maxp;
	bs = calloc(maxs + 1, sizeof(*bs));
	bp = calloc(maxp + 1, sizeof(*bp));
	bw = calloc(d->nworkers + 1, sizeof(*bw));
	bq = calloc(d->nworkers + 1, sizeof(*bq));
	bi = calloc(d->nworkers + 1, sizeof(*bi));
	if (ls.oom || lp.oom || !bs || !bp || !bw || !bq || !bi) {
		free(bs);
		free(bp);
		free(bw);
		free(bq);
		free(bi);
		free(ls.sid);
		free(lp.pol);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < ls.n; i++) {
		struct ctr_base *b = &bs[ls.sid[i].id];

		*b = (struct ctr_base){ .set = true, .family = AF_INET6, .plen = ls.sid[i].plen };
		memcpy(b->addr, &ls.sid[i].prefix, 16);
		srv6_cache_counters(d->cache, false, ls.sid[i].id, &b->c);
	}
	for (size_t i = 0; i < lp.n; i++) {
		struct ctr_base *b = &bp[lp.pol[i].id];

		*b = (struct ctr_base){ .set = true, .family = (uint8_t)lp.pol[i].family,
					.plen = lp.pol[i].plen };
		memcpy(b->addr, &lp.pol[i].prefix, lp.pol[i].family == AF_INET6 ? 16 : 4);
		srv6_cache_counters(d->cache, true, lp.pol[i].id, &b->c);
	}
	for (unsigned int i = 0; i < d->nworkers; i++) {
		srv6_worker_stats_read(&d->workers[i], &bw[i]);
		srv6_nfq_stats_read(d->workers[i].nfq, &bq[i]);
		if (d->workers[i].inj)
			srv6_inj_stats_read(d->workers[i].inj, &bi[i]);
	}
	free(d->base_sid);
	free(d->base_pol);
	free(d->base_w);
	free(d->base_q);
	free(d->base_i);
	d->base_sid = bs;
	d->nbase_sid = maxs;
	d->base_pol = bp;
	d->nbase_pol = maxp;
	d->base_w = bw;
	d->base_q = bq;
	d->base_i = bi;
	d->base_repairs = d->steer_repairs;
	d->base_restores = d->route_restores;
	d->base_sync_failures = d->sync_failures;
	for (unsigned int i = 0; i < d->npqs; i++)
		if (d->pqs[i].running)
			srv6_pq_reset(&d->pqs[i]);
	free(ls.sid);
	free(lp.pol);
	srv6_log(LOG_NOTICE, "counters reset (srv6ctl)");
	srv6_ctlsock_event(d->ctl, "stats", "reset");
	fprintf(o, "counters reset (the kernel's queue counters are not srv6d's to reset)\n");
	return 0;
}
