// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctl_show.c - `sid show`, `route show` and the runtime changes (`sid add/del`,
 * `route add/del`): the control socket's table commands.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "srv6d/hmac_conf.h"
#include "srv6d/ctlsock.h"
#include "srv6d/sbuf.h"

#include "daemon.h"

static void *grow(void *v, size_t *cap, size_t n, size_t size, bool *oom)
{
	void *nv;

	if (n < *cap)
		return v;
	nv = realloc(v, (*cap ? *cap * 2 : 64) * size);
	if (!nv) {
		*oom = true;
		return v;
	}
	*cap = *cap ? *cap * 2 : 64;
	return nv;
}

void collect_sid(const struct srv6_sid_entry *e, void *arg)
{
	struct ent_list *l = arg;

	l->sid = grow(l->sid, &l->cap, l->n, sizeof(*e), &l->oom);
	if (l->n < l->cap)
		l->sid[l->n++] = *e;
}

void collect_pol(const struct srv6_policy_entry *e, void *arg)
{
	struct ent_list *l = arg;

	l->pol = grow(l->pol, &l->cap, l->n, sizeof(*e), &l->oom);
	if (l->n < l->cap)
		l->pol[l->n++] = *e;
}

/* show and stats list entries in address order, as ip route does */
static int cmp_sid_ent(const void *a, const void *b)
{
	const struct srv6_sid_entry *x = a, *y = b;
	int c = memcmp(&x->prefix, &y->prefix, sizeof(x->prefix));

	return c ? c : (int)x->plen - (int)y->plen;
}

static int cmp_pol_ent(const void *a, const void *b)
{
	const struct srv6_policy_entry *x = a, *y = b;
	int c;

	if (x->family != y->family)
		return x->family == AF_INET ? -1 : 1;
	c = memcmp(&x->prefix, &y->prefix, x->family == AF_INET6 ? 16 : 4);
	return c ? c : (int)x->plen - (int)y->plen;
}

static void ent_list_sort(struct ent_list *l)
{
	if (l->sid && l->n > 1)
		qsort(l->sid, l->n, sizeof(*l->sid), cmp_sid_ent);
	if (l->pol && l->n > 1)
		qsort(l->pol, l->n, sizeof(*l->pol), cmp_pol_ent);
}

/* "ADDR" or "ADDR/LEN" of @family (AF_UNSPEC: either) for show/del filters. */
static int parse_pfx(const char *s, int *family, void *addr, uint8_t *plen, char *err,
		     size_t errlen)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash;
	int fam = strchr(s, ':') ? AF_INET6 : AF_INET;
	unsigned long len = fam == AF_INET6 ? 128 : 32, max = len;
	char *end;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (!slash[1] || *end || errno || len > max)
			goto bad;
	}
	if ((*family != AF_UNSPEC && *family != fam) || inet_pton(fam, buf, addr) != 1)
		goto bad;
	*family = fam;
	*plen = (uint8_t)len;
	return 0;
bad:
	snprintf(err, errlen, "bad prefix \"%.60s\"", s);
	return -EINVAL;
}

static void json_counters(FILE *o, const struct srv6_counters *ct)
{
	fprintf(o, "{\"packets\":%llu,\"bytes\":%llu,\"errors\":%llu,\"drops\":{",
		(unsigned long long)ct->packets, (unsigned long long)ct->bytes,
		(unsigned long long)ct->errors);
	for (int r = 1; r < SRV6_DROP_MAX; r++)
		fprintf(o, "%s\"%s\":%llu", r > 1 ? "," : "", srv6_drop_name((enum srv6_drop)r),
			(unsigned long long)ct->drops[r]);
	fprintf(o, "}}");
}

static void text_counters(FILE *o, const struct srv6_counters *ct)
{
	fprintf(o, "    packets %llu bytes %llu errors %llu\n    drops",
		(unsigned long long)ct->packets, (unsigned long long)ct->bytes,
		(unsigned long long)ct->errors);
	for (int r = 1; r < SRV6_DROP_MAX; r++)
		fprintf(o, " %s %llu", srv6_drop_name((enum srv6_drop)r),
			(unsigned long long)ct->drops[r]);
	fprintf(o, "\n");
}

/* The origin of the running conf's entry with that prefix (conf_index()). */
static enum srv6_origin origin_of(const struct srv6_conf *c, bool policy, const struct conf_key *v,
				  size_t n, int family, const void *addr, uint8_t plen)
{
	long i = conf_index_find(v, n, family, addr, plen);

	if (i < 0)
		return SRV6_ORIGIN_CONF;
	return (enum srv6_origin)(policy ? c->routes[i].origin : c->sids[i].origin);
}

/* sid show [SID] / route show [PREFIX] */
int ctl_show(struct daemon *d, const struct srv6_ctl_req *q, bool policy, FILE *o,
	     char *err, size_t errlen)
{
	struct ent_list l = { 0 };
	uint8_t want[16] = { 0 }, plen = 0;
	int fam = policy ? AF_UNSPEC : AF_INET6;
	size_t shown = 0, nov;
	struct conf_key *ov;

	if (q->argc && parse_pfx(q->argv[0], &fam, want, &plen, err, errlen))
		return -EINVAL;
	if (policy)
		srv6_cache_foreach_policy(d->cache, collect_pol, &l);
	else
		srv6_cache_foreach_sid(d->cache, collect_sid, &l);
	if (l.oom) {
		free(l.sid);
		free(l.pol);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ent_list_sort(&l);
	ov = conf_index(&d->conf, policy, &nov);
	if (!ov && (policy ? d->conf.nroutes : d->conf.nsids)) {
		free(l.sid);
		free(l.pol);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (q->json)
		fprintf(o, "[");
	for (size_t i = 0; i < l.n; i++) {
		char line[SRV6_CONF_LINE_MAX], a[INET6_ADDRSTRLEN];
		int family = policy ? l.pol[i].family : AF_INET6;
		const void *addr = policy ? (const void *)&l.pol[i].prefix : &l.sid[i].prefix;
		uint8_t pl = policy ? l.pol[i].plen : l.sid[i].plen;
		uint32_t id = policy ? l.pol[i].id : l.sid[i].id;
		struct srv6_counters ct;

		if (q->argc && (fam != family || pl != plen ||
				memcmp(addr, want, family == AF_INET6 ? 16 : 4)))
			continue;
		if (policy) {
			struct srv6_conf_route r = { .family = family, .plen = pl, .pol = l.pol[i].pol };
			long ci = conf_index_find(ov, nov, family, addr, pl);

			memcpy(&r.prefix, addr, family == AF_INET6 ? 16 : 4);
			/* the kernel route's metric is the conf's, not the table's */
			if (ci >= 0) {
				r.has_metric = d->conf.routes[ci].has_metric;
				r.metric = d->conf.routes[ci].metric;
			}
			srv6_route_format(line, sizeof(line), &r);
		} else {
			srv6_sid_format(line, sizeof(line), &l.sid[i].prefix, pl, &l.sid[i].cfg);
		}
		inet_ntop(family, addr, a, sizeof(a));
		ctr_read(d, policy, id, family, addr, pl, &ct);
		if (q->json) {
			fprintf(o, "%s{\"%s\":\"%s/%u\",\"family\":\"%s\",\"prefix\":\"%s\",\"plen\":%u,",
				shown ? "," : "", policy ? "route" : "sid", a, pl,
				family == AF_INET6 ? "inet6" : "inet", a, pl);
			if (policy)
				fprintf(o, "\"mode\":\"%s\",\"segs\":[", srv6_mode_name(l.pol[i].pol.mode));
			else
				fprintf(o, "\"action\":\"%s\",\"segs\":[", srv6_action_name(l.sid[i].cfg.action));
			for (unsigned int k = 0; k < (policy ? l.pol[i].pol.nsegs : l.sid[i].cfg.nsegs); k++) {
				char sg[INET6_ADDRSTRLEN];

				inet_ntop(AF_INET6, policy ? &l.pol[i].pol.segs[k] : &l.sid[i].cfg.segs[k],
					  sg, sizeof(sg));
				fprintf(o, "%s\"%s\"", k ? "," : "", sg);
			}
			fprintf(o, "],\"origin\":\"%s\",\"conf\":",
				srv6_origin_name(origin_of(&d->conf, policy, ov, nov, family, addr, pl)));
			srv6_json_str(o, line);
			if (q->stats) {
				fprintf(o, ",\"stats\":");
				json_counters(o, &ct);
			}
			fprintf(o, "}");
		} else {
			/* the conf line without its first word, as `ip route` prints,
			 * and where it came from when that is not the conf (a
			 * comment: the line stays conf words) */
			enum srv6_origin og = origin_of(&d->conf, policy, ov, nov, family, addr, pl);

			fprintf(o, "%s%s%s\n", strchr(line, ' ') + 1, og ? "  # origin " : "",
				og ? srv6_origin_name(og) : "");
			if (q->stats)
				text_counters(o, &ct);
		}
		shown++;
	}
	if (q->json)
		fprintf(o, "]\n");
	free(ov);
	free(l.sid);
	free(l.pol);
	if (q->argc && !shown) {
		snprintf(err, errlen, "%s %s: not configured", policy ? "route" : "sid", q->argv[0]);
		return -ENOENT;
	}
	return 0;
}

/* sid add / sid del / route add / route del: a new conf, applied whole
 * (one RCU swap); it lasts until the next reload. */
int ctl_change(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
	       size_t errlen)
{
	bool add = q->cmd->op == SRV6_CTL_SID_ADD || q->cmd->op == SRV6_CTL_ROUTE_ADD;
	bool route = q->cmd->op == SRV6_CTL_ROUTE_ADD || q->cmd->op == SRV6_CTL_ROUTE_DEL;
	char warn[SRV6_CONF_ERRLEN] = "", what[32];
	struct srv6_conf nc;
	struct srv6_conf_sid sd = { 0 };
	struct srv6_conf_route rt = { 0 };
	int family = route ? AF_UNSPEC : AF_INET6;
	uint8_t addr[16] = { 0 }, plen = 0;
	size_t i, n;
	bool live;
	int r;

	snprintf(what, sizeof(what), "%s %s", q->cmd->object, q->cmd->command);
	if (add && !route) {
		if (srv6_sid_parse_words(q->argc, (char **)q->argv, &sd.prefix, &sd.plen, &sd.cfg, err, errlen))
			return -EINVAL;
		snprintf(warn, sizeof(warn), "%s", err);
		if (srv6_conf_check_sid_tables(&d->conf, &sd.cfg, err, errlen))
			return -EINVAL;
		family = AF_INET6;
		memcpy(addr, &sd.prefix, 16);
		plen = sd.plen;
	} else if (add) {
		if (srv6_route_parse_words(q->argc, (char **)q->argv, &rt, err, errlen))
			return -EINVAL;
		snprintf(warn, sizeof(warn), "%s", err);
		family = rt.family;
		memcpy(addr, &rt.prefix, family == AF_INET6 ? 16 : 4);
		plen = rt.plen;
	} else if (parse_pfx(q->argv[0], &family, addr, &plen, err, errlen)) {
		return -EINVAL;
	}
	if (conf_copy(&d->conf, &nc, 1, 1) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* the entry with this prefix, if any */
	n = route ? nc.nroutes : nc.nsids;
	for (i = 0; i < n; i++) {
		if (route ? nc.routes[i].family == family && nc.routes[i].plen == plen &&
			    !memcmp(&nc.routes[i].prefix, addr, family == AF_INET6 ? 16 : 4)
			  : nc.sids[i].plen == plen && !memcmp(&nc.sids[i].prefix, addr, 16))
			break;
	}
	if (!add && i == n) {
		srv6_conf_free(&nc);
		snprintf(err, errlen, "%s %s: not configured", q->cmd->object, q->argv[0]);
		return -ENOENT;
	}
	if (route) {
		if (!add)
			memmove(&nc.routes[i], &nc.routes[i + 1], (--nc.nroutes - i) * sizeof(rt));
		else
			nc.routes[i == n ? nc.nroutes++ : i] = rt;
	} else {
		if (!add)
			memmove(&nc.sids[i], &nc.sids[i + 1], (--nc.nsids - i) * sizeof(sd));
		else
			nc.sids[i == n ? nc.nsids++ : i] = sd;
	}
	/* a `hmac KEYID` names a key of the running conf (file: conf_finish) */
	if (add) {
		unsigned int line;

		r = srv6_hmac_conf_finish(&nc, &line, err, errlen);
		if (r < 0) {
			srv6_conf_free(&nc);
			return r;
		}
	}
	r = conf_apply(d, &nc, what, err, errlen, &live);
	if (r < 0) {
		char why[SRV6_CTL_ERRLEN];

		srv6_ctlsock_event(d->ctl, q->cmd->object, "%s %s failed: %s", q->cmd->command,
				   q->argv[0], err);
		if (live) {   /* in the running conf: the answer says it failed, and what */
			srv6_log(LOG_NOTICE, "%s %s (srv6ctl; until the next reload): its kernel side "
				 "failed", what, q->argv[0]);
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "%s %s: %s", what, q->argv[0], why);
		}
		return r;
	}
	srv6_log(LOG_NOTICE, "%s %s (srv6ctl; until the next reload)", what, q->argv[0]);
	srv6_ctlsock_event(d->ctl, q->cmd->object, "%s %s", add ? (i == n ? "added" : "replaced") :
			   "deleted", q->argv[0]);
	if (warn[0])
		fprintf(o, "warning: %s\n", warn);
	fprintf(o, "%s %s %s; lasts until the next reload of %s\n", q->cmd->object, q->argv[0],
		add ? (i == n ? "added" : "replaced") : "deleted", d->conf_path);
	if (add && d->conf.steer != SRV6_STEER_AUTO)
		fprintf(o, "steer none: its packets reach srv6d once your rules send them "
			"(srv6ctl steer show --template)\n");
	return 0;
}
