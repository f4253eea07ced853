// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctl_status.c - `status`: the daemon's state in a screen.
 */
#include <signal.h>
#include <time.h>

#include "srv6d/ctlsock.h"
#include "srv6d/sbuf.h"

#include "daemon.h"

static bool path_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

/* The running start-only settings (a reload keeps them): "cpu-affinity"
 * as "0,2" or "none", "worker-sched" as "other" or "fifo N", "egress". */
static void start_only_strs(const struct srv6_conf *c, char *cpus, size_t clen, char *sched,
			    size_t slen, const char **egress)
{
	static const char *const eg[] = {
		[SRV6_EGRESS_AUTO] = "auto",
		[SRV6_EGRESS_VERDICT] = "verdict",
		[SRV6_EGRESS_INJECT] = "inject",
	};
	size_t n = 0;

	snprintf(cpus, clen, "none");
	for (int i = 0; i < c->ncpus && n < clen; i++)
		n += (size_t)snprintf(cpus + n, clen - n, "%s%d", i ? "," : "", c->cpus[i]);
	if (c->worker_fifo)
		snprintf(sched, slen, "fifo %d", c->worker_prio);
	else
		snprintf(sched, slen, "other");
	*egress = (size_t)c->egress < sizeof(eg) / sizeof(eg[0]) ? eg[c->egress] : "?";
}

/* zebra's FPM: the session and the counters (srv6ctl status), or nothing. */
static void fpm_status(const struct daemon *d, FILE *o, bool json)
{
	const struct srv6_fpm_stats *st;
	char state[256];

	if (!d->fpm) {
		if (json)
			fprintf(o, ",\"fpm\":null");
		return;
	}
	st = srv6_fpm_stats(d->fpm);
	/* one table for both outputs: the JSON name, the text before the value */
	const struct { const char *name, *text; uint64_t v; } c[] = {
		{ "sessions", "fpm received: ", st->sessions },
		{ "frames", " sessions, ", st->frames },
		{ "adds", " frames, ", st->adds },
		{ "dels", " adds, ", st->dels },
		{ "nexthops", " dels, ", st->nexthops },
		{ "not_srv6", " nexthops; ", st->not_srv6 },
		{ "refused", " not SRv6, ", st->refused },
		{ "refused_table", " refused (", st->refused_table },
		{ "other", " not in the main table), ", st->other },
		{ "bad", " other, ", st->bad },
		{ "refused_conns", " bad, ", st->refused_conns },
		{ "expired", " connections refused; ", st->expired },
		{ "shadowed", " expired, ", d->fpm_shadowed },
		{ "applies", " shadowed by conf lines; ", d->fpm_applies },
		{ "apply_failures", " applies (", d->fpm_apply_failures },
		{ "rejected", " failed, ", d->fpm_rejected },
	};

	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	srv6_fpm_state(d->fpm, (int64_t)ts.tv_sec, state, sizeof(state));
	if (json) {
		fprintf(o, ",\"fpm\":{\"state\":");
		srv6_json_str(o, state);
		fprintf(o, ",\"entries\":%zu,\"parked\":%zu", srv6_fpm_count(d->fpm),
			srv6_fpm_parked(d->fpm));
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
			fprintf(o, ",\"%s\":%llu", c[i].name, (unsigned long long)c[i].v);
		fprintf(o, ",\"last_apply_ms\":%.1f}", d->fpm_apply_ms);
		return;
	}
	fprintf(o, "fpm %s: %zu entries, %zu routes waiting for their nexthop object%s\n", state,
		srv6_fpm_count(d->fpm), srv6_fpm_parked(d->fpm),
		d->fpm_dirty ? " (NOT APPLIED: tried again after a backoff)" : "");
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		fprintf(o, "%s%llu", c[i].text, (unsigned long long)c[i].v);
	fprintf(o, " entries rejected, last %.1f ms)\n", d->fpm_apply_ms);
}

/* The kernel mirror (sids-from / routes-from kernel), or nothing. */
static void kmirror_status(const struct daemon *d, FILE *o, bool json)
{
	const struct srv6_kmirror_stats *st;
	struct srv6_fpm *f;

	if (!d->kmirror) {
		if (json)
			fprintf(o, ",\"kernel_mirror\":null");
		return;
	}
	st = srv6_kmirror_stats(d->kmirror);
	f = srv6_kmirror_store(d->kmirror);
	if (json) {
		fprintf(o, ",\"kernel_mirror\":{\"sids\":%s,\"routes\":%s,\"table\":%u,\"proto\":%d,\"entries\":%zu,"
			"\"dumps\":%llu,\"events\":%llu,\"filtered\":%llu,\"overruns\":%llu,"
			"\"not_srv6\":%llu,\"refused\":%llu}", d->conf.kmirror.sids ? "true" : "false",
			d->conf.kmirror.routes ? "true" : "false", d->conf.kmirror.table,
			d->conf.kmirror.proto, srv6_fpm_count(f), (unsigned long long)st->dumps,
			(unsigned long long)st->events, (unsigned long long)st->filtered,
			(unsigned long long)st->overruns,
			(unsigned long long)srv6_fpm_stats(f)->not_srv6,
			(unsigned long long)srv6_fpm_stats(f)->refused);
		return;
	}
	fprintf(o, "%s kernel table %u: %zu entries; %llu dumps, %llu events, %llu filtered, "
		"%llu overruns, %llu not SRv6, %llu refused\n",
		d->conf.kmirror.sids && d->conf.kmirror.routes ? "sids-from, routes-from" :
		d->conf.kmirror.sids ? "sids-from" : "routes-from", d->conf.kmirror.table,
		srv6_fpm_count(f), (unsigned long long)st->dumps, (unsigned long long)st->events,
		(unsigned long long)st->filtered, (unsigned long long)st->overruns,
		(unsigned long long)srv6_fpm_stats(f)->not_srv6,
		(unsigned long long)srv6_fpm_stats(f)->refused);
}

int ctl_status(struct daemon *d, const struct srv6_ctl_req *q, FILE *o)
{
	char cpus[SRV6_CONF_MAX_QUEUES * 12 + 8], sched[32];
	const char *egress;
	static const struct { const char *name, *path; } feats[] = {
		{ "nfnetlink_queue", "/proc/net/netfilter/nfnetlink_queue" },
		{ "ip6tables_raw", "/proc/net/ip6_tables_names" },
	};
	time_t now = time(NULL);
	char loaded[64], since[64];

	utc_str(d->loaded, loaded, sizeof(loaded));
	utc_str(d->sync_since, since, sizeof(since));
	start_only_strs(&d->conf, cpus, sizeof(cpus), sched, sizeof(sched), &egress);
	if (q->json) {
		fprintf(o, "{\"version\":\"%s\",\"pid\":%ld,\"uptime\":%lld,\"config\":", SRV6D_VERSION,
			(long)getpid(), (long long)(now - d->started));
		srv6_json_str(o, d->conf_path);
		fprintf(o, ",\"loaded\":\"%s\",\"sids\":%zu,\"routes\":%zu,\"pending\":%zu,"
			"\"contexts\":%zu,\"queues\":[%u,%u],"
			"\"steer\":\"%s\",\"steering_installed\":%s,\"egress\":{\"ipv6\":\"%s\",\"ipv6_why\":",
			loaded, d->conf.nsids, d->conf.nroutes, d->pend.count, srv6_nhctx_count(d->nh),
			d->conf.queue_first, d->conf.queue_last,
			d->conf.steer == SRV6_STEER_AUTO ? "auto" : "none", d->steered ? "true" : "false",
			d->inject6 ? "inject" : "verdict");
		srv6_json_str(o, d->egress_why);
		fprintf(o, ",\"ipv4\":\"%s\",\"l2\":\"%s\",\"device\":", d->injdev.ifindex ? "inject" : "unsupported",
			d->injdev.ifindex ? "oif" : "unsupported");
		srv6_json_str(o, d->injdev.ifindex ? d->injdev.name : "");
		fprintf(o, "},\"sync\":{\"in_sync\":%s,\"failed_applies\":%llu,\"since\":",
			d->sync_dirty ? "false" : "true", (unsigned long long)d->sync_failures);
		if (d->sync_dirty) {
			srv6_json_str(o, since);
			fprintf(o, ",\"error\":");
			srv6_json_str(o, d->sync_err);
		} else {
			fprintf(o, "null,\"error\":null");
		}
		fprintf(o, "},\"kernel\":{\"seg6\":%s,\"seg6local\":%s,\"seg6_hmac\":%s",
			srv6_kfeat_json(d->kfeat.seg6), srv6_kfeat_json(d->kfeat.seg6local),
			srv6_kfeat_json(d->kfeat.seg6_hmac));
		for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++)
			fprintf(o, ",\"%s\":%s", feats[i].name,
				path_exists(feats[i].path) ? "true" : "false");
		fprintf(o, ",\"seg6_flowlabel\":%d}", d->flowlabel_mode);
		fpm_status(d, o, true);
		kmirror_status(d, o, true);
		fprintf(o, ",\"control_dropped\":%llu,"
			"\"start_only\":{\"cpu_affinity\":\"%s\",\"worker_sched\":\"%s\","
			"\"egress\":\"%s\",\"queue_maxlen\":%u}}\n",
			(unsigned long long)srv6_ctlsock_dropped(d->ctl), cpus, sched, egress,
			d->conf.queue_maxlen);
		return 0;
	}
	fprintf(o, "srv6d %s pid %ld uptime %llds\n", SRV6D_VERSION, (long)getpid(),
		(long long)(now - d->started));
	fprintf(o, "config %s loaded %s: %zu SIDs, %zu routes, %zu next-hop contexts\n",
		d->conf_path, loaded, d->conf.nsids, d->conf.nroutes, srv6_nhctx_count(d->nh));
	if (d->pend.count)
		fprintf(o, "pending %zu (waiting for an interface, link, route or source: "
			"stats show)\n", d->pend.count);
	fprintf(o, "queues %u-%u fail-open %s, steer %s (%s)\n", d->conf.queue_first,
		d->conf.queue_last, d->conf.fail_open ? "yes" : "no",
		d->conf.steer == SRV6_STEER_AUTO ? "auto" : "none",
		d->steered ? "installed" : "not installed");
	if (d->sync_dirty)
		fprintf(o, "rules and routes OUT OF SYNC since %s (%llu failed applies, retried until "
			"they hold): %s\n", since, (unsigned long long)d->sync_failures, d->sync_err);
	else
		fprintf(o, "rules and routes in sync (%llu failed applies)\n",
			(unsigned long long)d->sync_failures);
	fprintf(o, "as started: queue-maxlen %u, cpu-affinity %s, worker-sched %s, egress %s\n",
		d->conf.queue_maxlen, cpus, sched, egress);
	fprintf(o, "egress ipv6 %s%s (%s)\n", d->inject6 ? "injected through " : "verdicts",
		d->inject6 ? d->injdev.name : "", d->egress_why);
	if (d->injdev.ifindex)
		fprintf(o, "egress ipv4 injected through %s; l2 frames sent on their oif\n",
			d->injdev.name);
	else
		fprintf(o, "egress ipv4 and l2: no injection device (dropped, counted as unsupported)\n");
	fprintf(o, "kernel ");
	srv6_kfeat_print(&d->kfeat, o);
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++)
		fprintf(o, " %s %s", feats[i].name, path_exists(feats[i].path) ? "yes" : "no");
	fprintf(o, " seg6_flowlabel %d\n", d->flowlabel_mode);
	fpm_status(d, o, false);
	kmirror_status(d, o, false);
	if (srv6_ctlsock_dropped(d->ctl))
		fprintf(o, "control socket: %llu stalled clients closed\n",
			(unsigned long long)srv6_ctlsock_dropped(d->ctl));
	return 0;
}
