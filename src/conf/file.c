// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * file.c - srv6d.conf as a whole: the global keywords, duplicate prefixes,
 * cross-line checks, reading the file (grammar in include/srv6d/conf.h).
 *
 * Structure, after wireguard-tools' config.c: init, one call per line, a
 * finish step for cross-line checks; "has" state (the line a global keyword
 * was first seen on) lives in the parse context, not in struct srv6_conf.
 * The words of sid and route lines are parsed by sid.c and route.c.
 * Nothing exits, logs or keeps global state.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv6d/errbuf.h"
#include "conf_int.h"
#include "srv6d/hmac_conf.h"   /* hmac hook */
#include "srv6d/loglevel.h"

#define CPU_MAX (CPU_SETSIZE - 1)

/* ---------------------------------------------------------------------- */
/* duplicate prefix detection: an open-addressing set of (family, plen,   */
/* prefix) -> first line                                                  */

struct pkey {
	uint8_t family, plen;
	uint8_t addr[16];
	unsigned int line;   /* 0: empty slot */
};

struct pset {
	struct pkey *slot;
	size_t cap, n;       /* cap: power of two or 0 */
};

static size_t pkey_hash(const struct pkey *k)
{
	uint64_t h = 1469598103934665603ull;  /* FNV-1a */
	size_t i;

	h = (h ^ k->family) * 1099511628211ull;
	h = (h ^ k->plen) * 1099511628211ull;
	for (i = 0; i < sizeof(k->addr); i++)
		h = (h ^ k->addr[i]) * 1099511628211ull;
	return (size_t)(h ^ (h >> 32));
}

static struct pkey *pset_slot(struct pkey *tab, size_t cap, const struct pkey *k)
{
	size_t i = pkey_hash(k) & (cap - 1);

	while (tab[i].line && (tab[i].family != k->family || tab[i].plen != k->plen ||
			       memcmp(tab[i].addr, k->addr, sizeof(k->addr))))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* Insert @k; returns 0, the line of an existing equal key, or -ENOMEM. */
static long pset_add(struct pset *s, const struct pkey *k)
{
	struct pkey *sl;

	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64, i;
		struct pkey *nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		for (i = 0; i < s->cap; i++)
			if (s->slot[i].line)
				*pset_slot(nt, ncap, &s->slot[i]) = s->slot[i];
		free(s->slot);
		s->slot = nt;
		s->cap = ncap;
	}
	sl = pset_slot(s->slot, s->cap, k);
	if (sl->line)
		return (long)sl->line;
	*sl = *k;
	s->n++;
	return 0;
}

static void pset_free(struct pset *s)
{
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

/* ---------------------------------------------------------------------- */
/* the file: init / line / finish                                         */

struct conf_ctx {
	struct srv6_conf *c;
	struct errbuf e;            /* message without the "FILE:LINE: " prefix */
	const char *name;           /* FILE of messages, escaped */
	unsigned int line;
	/* "has" flags: the line a global keyword was seen on, 0 if not */
	unsigned int has_queue, has_maxlen, has_failopen, has_steer, has_src, has_cpu, has_fanout;
	unsigned int has_egress, has_gso;
	unsigned int has_loglevel;
	unsigned int has_chain, has_markbase, has_markmask, has_tablebase, has_rulepref;
	unsigned int has_ctlsock;
	unsigned int has_sched;
	unsigned int has_fpm, has_kmirror, has_kroutes, has_napi;
	size_t sids_cap, routes_cap;
	struct pset sid_set, route_set;
};

/* A line that parsed with a warning in x->e: count it, keep the first. */
static void conf_warn(struct conf_ctx *x)
{
	if (!x->e.buf[0])
		return;
	if (!x->c->nwarnings++)
		snprintf(x->c->warning, sizeof(x->c->warning), "%s:%u: %s", x->name, x->line,
			 x->e.buf);
	x->e.buf[0] = '\0';
}

static int need_one(int argc, char **argv, struct errbuf *e)
{
	struct qtok qb;

	if (conf_need_arg(argc, argv, e))
		return -EINVAL;
	if (argc > 2) {
		conf_seterr(e, "\"%s\" takes one value, unexpected %s", argv[0], conf_q(&qb, argv[2]));
		return -EINVAL;
	}
	return 0;
}

static int g_queue(struct conf_ctx *x, char **argv)
{
	char *dash = strchr(argv[1], '-');
	uint64_t a, b;
	struct qtok qb;

	if (dash) {
		char first[16];
		size_t l = (size_t)(dash - argv[1]);

		if (l == 0 || l >= sizeof(first)) {
			conf_seterr(&x->e, "bad queue range %s", conf_q(&qb, argv[1]));
			return -EINVAL;
		}
		memcpy(first, argv[1], l);
		first[l] = '\0';
		if (conf_parse_num("queue", first, 0, 65535, &a, &x->e) ||
		    conf_parse_num("queue", dash + 1, 0, 65535, &b, &x->e))
			return -EINVAL;
		if (b < a) {
			conf_seterr(&x->e, "bad queue range %s (end before start)", conf_q(&qb, argv[1]));
			return -EINVAL;
		}
	} else {
		if (conf_parse_num("queue", argv[1], 0, 65535, &a, &x->e))
			return -EINVAL;
		b = a;
	}
	if (b - a + 1 > SRV6_CONF_MAX_QUEUES) {
		conf_seterr(&x->e, "too many queues in %s (%llu, at most %d)", conf_q(&qb, argv[1]),
		       (unsigned long long)(b - a + 1), SRV6_CONF_MAX_QUEUES);
		return -EINVAL;
	}
	x->c->queue_first = (unsigned int)a;
	x->c->queue_last = (unsigned int)b;
	return 0;
}

static int g_maxlen(struct conf_ctx *x, char **argv)
{
	uint64_t v;

	if (conf_parse_num("queue-maxlen", argv[1], 1, SRV6_CONF_QUEUE_MAXLEN_MAX, &v, &x->e))
		return -EINVAL;
	x->c->queue_maxlen = (unsigned int)v;
	return 0;
}

static int g_failopen(struct conf_ctx *x, char **argv)
{
	struct qtok qb;

	if (!strcmp(argv[1], "yes")) {
		x->c->fail_open = true;
	} else if (!strcmp(argv[1], "no")) {
		x->c->fail_open = false;
	} else {
		conf_seterr(&x->e, "bad value %s for fail-open (yes or no)", conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	return 0;
}

static int g_steer(struct conf_ctx *x, char **argv)
{
	struct qtok qb;

	if (!strcmp(argv[1], "auto")) {
		x->c->steer = SRV6_STEER_AUTO;
	} else if (!strcmp(argv[1], "none")) {
		x->c->steer = SRV6_STEER_NONE;
	} else {
		conf_seterr(&x->e, "bad value %s for steer (auto or none)", conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	return 0;
}

static int g_egress(struct conf_ctx *x, char **argv)
{
	static const char *const names[] = {
		[SRV6_EGRESS_AUTO] = "auto",
		[SRV6_EGRESS_VERDICT] = "verdict",
		[SRV6_EGRESS_INJECT] = "inject",
	};
	struct qtok qb;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (!strcmp(argv[1], names[i])) {
			x->c->egress = (enum srv6_egress_mode)i;
			return 0;
		}
	}
	conf_seterr(&x->e, "bad value %s for egress (auto, verdict or inject)", conf_q(&qb, argv[1]));
	return -EINVAL;
}

static int g_gso(struct conf_ctx *x, char **argv)
{
	struct qtok qb;

	if (!strcmp(argv[1], "on")) {
		x->c->gso = true;
	} else if (!strcmp(argv[1], "off")) {
		x->c->gso = false;
	} else {
		conf_seterr(&x->e, "bad value %s for gso (on or off)", conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	return 0;
}

static int g_loglevel(struct conf_ctx *x, char **argv)
{
	int l = srv6_log_level_from_name(argv[1]);
	struct qtok qb;

	if (l < 0) {
		conf_seterr(&x->e, "bad value %s for log-level (emerg, alert, crit, err, warning, "
		       "notice, info or debug)", conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	x->c->log_level = l;
	return 0;
}

static int g_chain(struct conf_ctx *x, char **argv)
{
	const char *s = argv[1];
	size_t n = strlen(s);
	struct qtok qb;
	bool ok = n >= 1 && n <= SRV6_STEER_CHAIN_MAX && s[0] != '-';

	for (size_t i = 0; ok && i < n; i++)
		ok = (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		     (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-';
	if (!ok) {
		conf_seterr(&x->e, "bad chain name %s for steer-chain (1..%d of A-Z a-z 0-9 _ -)",
		       conf_q(&qb, s), SRV6_STEER_CHAIN_MAX);
		return -EINVAL;
	}
	memcpy(x->c->steer_chain, s, n + 1);
	return 0;
}

/* 0x followed by 1..8 hex digits: marks are read in hex. */
static int parse_hexmark(struct conf_ctx *x, const char *kw, const char *s, unsigned long long *v)
{
	struct qtok qb;
	size_t n = strlen(s);

	if (n < 3 || n > 10 || s[0] != '0' || s[1] != 'x' || strspn(s + 2, "0123456789abcdefABCDEF") != n - 2) {
		conf_seterr(&x->e, "bad mark %s for %s (0x followed by up to 8 hex digits)", conf_q(&qb, s), kw);
		return -EINVAL;
	}
	*v = strtoull(s + 2, NULL, 16);
	return 0;
}

/* mark-mask 0xHHHHHHHH: the mark bits srv6d owns (checked against mark-base
 * in conf_finish). */
static int g_markmask(struct conf_ctx *x, char **argv)
{
	unsigned long long v = 0;
	struct qtok qb;

	if (parse_hexmark(x, "mark-mask", argv[1], &v))
		return -EINVAL;
	if (!v) {
		conf_seterr(&x->e, "mark-mask %s must be non-zero", conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	x->c->mark_mask = (uint32_t)v;
	return 0;
}

/* 0xHHHH0000. */
static int g_markbase(struct conf_ctx *x, char **argv)
{
	const char *s = argv[1];
	unsigned long long v = 0;
	struct qtok qb;

	if (parse_hexmark(x, "mark-base", s, &v))
		return -EINVAL;
	if (!v || (v & 0xffff)) {
		conf_seterr(&x->e, "mark-base %s must be non-zero with its low 16 bits clear", conf_q(&qb, s));
		return -EINVAL;
	}
	x->c->mark_base = (uint32_t)v;
	return 0;
}

static int g_tablebase(struct conf_ctx *x, char **argv)
{
	uint64_t v;

	/* base+1 .. base+0xffff: never 0 or 252..255, within 32 bits */
	if (conf_parse_num("table-base", argv[1], 255, 0xffffffffull - SRV6_NHCTX_MAX, &v, &x->e))
		return -EINVAL;
	x->c->table_base = (uint32_t)v;
	return 0;
}

static int g_rulepref(struct conf_ctx *x, char **argv)
{
	uint64_t v;

	/* N and N + 1 on either side of main (32766) and default (32767),
	 * never at them (srv6_nhctx_pref_ok) */
	if (conf_parse_num("rule-pref", argv[1], 1, SRV6_NHCTX_RULE_PRIO_MAX, &v, &x->e))
		return -EINVAL;
	if (!srv6_nhctx_pref_ok(v)) {
		struct qtok qb;

		conf_seterr(&x->e, "rule-pref %s out of range (1..32764, 32768..%u): N and N+1 "
			    "may not be main's 32766 or default's 32767", conf_q(&qb, argv[1]),
			    SRV6_NHCTX_RULE_PRIO_MAX);
		return -EINVAL;
	}
	x->c->rule_pref = (uint32_t)v;
	return 0;
}

/* An absolute path that fits a sockaddr_un, or "none". */
static int g_ctlsock(struct conf_ctx *x, char **argv)
{
	const char *p = argv[1];
	struct qtok qb;

	if (!strcmp(p, "none")) {
		x->c->ctl_path[0] = '\0';
		return 0;
	}
	if (p[0] != '/' || strlen(p) >= sizeof(x->c->ctl_path) || !strcmp(p + strlen(p) - 1, "/")) {
		conf_seterr(&x->e, "bad path %s for control-socket (an absolute file name of at most "
			    "%zu bytes, or none)", conf_q(&qb, p), sizeof(x->c->ctl_path) - 1);
		return -EINVAL;
	}
	memcpy(x->c->ctl_path, p, strlen(p) + 1);
	return 0;
}

static int g_src(struct conf_ctx *x, char **argv)
{
	struct in6_addr a;
	struct qtok qb;
	const char *why;

	if (conf_parse_addr6("encap-source", argv[1], &a, &x->e))
		return -EINVAL;
	/* The outer source of packets routed off-link: not link-local. */
	if ((why = conf_not_unicast6(&a, true))) {
		conf_seterr(&x->e, "encap-source %s is not a global unicast address (%s)",
		       conf_q(&qb, argv[1]), why);
		return -EINVAL;
	}
	x->c->has_encap_src = true;
	x->c->encap_src = a;
	return 0;
}

/* N[-M][,N[-M]...] or "none" */
static int g_cpu(struct conf_ctx *x, char **argv)
{
	const char *p = argv[1];
	struct qtok qb;
	int n = 0;

	x->c->ncpus = 0;
	if (!strcmp(p, "none"))
		return 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t l = comma ? (size_t)(comma - p) : strlen(p);
		char item[32], *dash;
		uint64_t a, b;

		if (l == 0 || l >= sizeof(item)) {
			conf_seterr(&x->e, "bad CPU list %s", conf_q(&qb, argv[1]));
			return -EINVAL;
		}
		memcpy(item, p, l);
		item[l] = '\0';
		dash = strchr(item, '-');
		if (dash)
			*dash = '\0';
		if (conf_parse_num("cpu", item, 0, CPU_MAX, &a, &x->e))
			return -EINVAL;
		b = a;
		if (dash && conf_parse_num("cpu", dash + 1, 0, CPU_MAX, &b, &x->e))
			return -EINVAL;
		if (b < a) {
			conf_seterr(&x->e, "bad CPU list %s (range end before start)", conf_q(&qb, argv[1]));
			return -EINVAL;
		}
		for (; a <= b; a++) {
			if (n == SRV6_CONF_MAX_QUEUES) {
				conf_seterr(&x->e, "too many CPUs in %s (at most %d)", conf_q(&qb, argv[1]),
				       SRV6_CONF_MAX_QUEUES);
				return -EINVAL;
			}
			x->c->cpus[n++] = (int)a;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	x->c->ncpus = n;
	return 0;
}

/* worker-sched other | fifo PRIO (the only keyword with a two-word value) */
static int l_sched(struct conf_ctx *x, int argc, char **argv)
{
	struct qtok qb;
	uint64_t v;

	if (x->has_sched) {
		conf_seterr(&x->e, "duplicate \"worker-sched\" (first at line %u)", x->has_sched);
		return -EINVAL;
	}
	if (conf_need_arg(argc, argv, &x->e))
		return -EINVAL;
	x->has_sched = x->line;
	if (!strcmp(argv[1], "other")) {
		if (argc > 2) {
			conf_seterr(&x->e, "\"worker-sched other\" takes no priority, unexpected %s",
				    conf_q(&qb, argv[2]));
			return -EINVAL;
		}
		x->c->worker_fifo = false;
		x->c->worker_prio = 0;
		return 0;
	}
	if (strcmp(argv[1], "fifo")) {
		conf_seterr(&x->e, "bad value %s for worker-sched (other, or fifo PRIO)",
			    conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	if (argc < 3) {
		conf_seterr(&x->e, "missing priority after \"worker-sched fifo\" (1..99)");
		return -EINVAL;
	}
	if (argc > 3) {
		conf_seterr(&x->e, "\"worker-sched fifo\" takes one priority, unexpected %s",
			    conf_q(&qb, argv[3]));
		return -EINVAL;
	}
	if (conf_parse_num("worker-sched priority", argv[2], 1, 99, &v, &x->e))
		return -EINVAL;
	x->c->worker_fifo = true;
	x->c->worker_prio = (int)v;
	return 0;
}

static int l_sid(struct conf_ctx *x, int argc, char **argv)
{
	struct srv6_conf_sid s;
	struct pkey k = { 0 };
	char pbuf[INET6_ADDRSTRLEN + 8];
	struct srv6_sbuf sb = SRV6_SB_FIXED(pbuf, sizeof(pbuf));
	long first;

	memset(&s, 0, sizeof(s));
	if (srv6_sid_parse_words(argc - 1, argv + 1, &s.prefix, &s.plen, &s.cfg,
				 x->e.buf, x->e.len))
		return -EINVAL;
	conf_warn(x);
	s.line = x->line;

	k.family = AF_INET6;
	k.plen = s.plen;
	memcpy(k.addr, &s.prefix, 16);
	k.line = x->line;
	first = pset_add(&x->sid_set, &k);
	if (first < 0) {
		conf_seterr(&x->e, "out of memory");
		return -ENOMEM;
	}
	if (first > 0) {
		conf_put_prefix(&sb, AF_INET6, &s.prefix, s.plen);
		conf_seterr(&x->e, "duplicate sid %s (first at line %ld)", pbuf, first);
		return -EINVAL;
	}
	if (x->c->nsids == x->sids_cap) {
		size_t ncap = x->sids_cap ? x->sids_cap * 2 : 16;
		struct srv6_conf_sid *n = realloc(x->c->sids, ncap * sizeof(*n));

		if (!n) {
			conf_seterr(&x->e, "out of memory");
			return -ENOMEM;
		}
		x->c->sids = n;
		x->sids_cap = ncap;
	}
	x->c->sids[x->c->nsids++] = s;
	return 0;
}

static int l_route(struct conf_ctx *x, int argc, char **argv)
{
	struct srv6_conf_route r;
	struct pkey k = { 0 };
	char pbuf[INET6_ADDRSTRLEN + 8];
	struct srv6_sbuf sb = SRV6_SB_FIXED(pbuf, sizeof(pbuf));
	long first;

	if (srv6_route_parse_words(argc - 1, argv + 1, &r, x->e.buf, x->e.len))
		return -EINVAL;
	conf_warn(x);
	r.line = x->line;

	k.family = (uint8_t)r.family;
	k.plen = r.plen;
	memcpy(k.addr, &r.prefix, r.family == AF_INET6 ? 16 : 4);
	k.line = x->line;
	first = pset_add(&x->route_set, &k);
	if (first < 0) {
		conf_seterr(&x->e, "out of memory");
		return -ENOMEM;
	}
	if (first > 0) {
		conf_put_prefix(&sb, r.family, &r.prefix, r.plen);
		conf_seterr(&x->e, "duplicate route %s (first at line %ld)", pbuf, first);
		return -EINVAL;
	}
	if (x->c->nroutes == x->routes_cap) {
		size_t ncap = x->routes_cap ? x->routes_cap * 2 : 16;
		struct srv6_conf_route *n = realloc(x->c->routes, ncap * sizeof(*n));

		if (!n) {
			conf_seterr(&x->e, "out of memory");
			return -ENOMEM;
		}
		x->c->routes = n;
		x->routes_cap = ncap;
	}
	x->c->routes[x->c->nroutes++] = r;
	return 0;
}

/* "fpm listen ADDR [PORT] [grace SECONDS] [remote]" */
static int l_fpm(struct conf_ctx *x, int argc, char **argv)
{
	struct srv6_conf_fpm *f = &x->c->fpm;
	struct qtok qb;
	uint64_t v;
	int i;

	if (x->has_fpm) {
		conf_seterr(&x->e, "duplicate \"fpm\" (first at line %u)", x->has_fpm);
		return -EINVAL;
	}
	if (argc < 2 || strcmp(argv[1], "listen")) {
		conf_seterr(&x->e, argc < 2 ? "missing \"listen\" after \"fpm\"" :
			    "unknown fpm word %s (fpm listen ADDR [PORT] [grace SECONDS] [remote])",
			    argc < 2 ? "" : conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	if (argc < 3) {
		conf_seterr(&x->e, "missing address after \"fpm listen\"");
		return -EINVAL;
	}
	x->has_fpm = x->line;
	memset(f, 0, sizeof(*f));
	if (inet_pton(AF_INET6, argv[2], f->addr) == 1) {
		f->family = AF_INET6;
	} else if (inet_pton(AF_INET, argv[2], f->addr) == 1) {
		f->family = AF_INET;
	} else {
		conf_seterr(&x->e, "bad fpm address %s (an IPv4 or IPv6 address)", conf_q(&qb, argv[2]));
		return -EINVAL;
	}
	f->port = SRV6_FPM_PORT_DEF;
	f->grace = SRV6_FPM_GRACE_DEF;
	i = 3;
	if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9') {
		if (conf_parse_num("fpm port", argv[i], 1, 65535, &v, &x->e))
			return -EINVAL;
		f->port = (uint16_t)v;
		i++;
	}
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "remote")) {
			f->remote = true;
		} else if (!strcmp(argv[i], "grace") && i + 1 < argc) {
			if (conf_parse_num("fpm grace", argv[++i], 0, SRV6_FPM_GRACE_MAX, &v, &x->e))
				return -EINVAL;
			f->grace = (unsigned int)v;
		} else {
			conf_seterr(&x->e, !strcmp(argv[i], "grace") ? "missing seconds after \"grace\"" :
				    "unexpected %s after the fpm address (PORT, grace SECONDS, remote)",
				    conf_q(&qb, argv[i]));
			return -EINVAL;
		}
	}
	if (!f->remote && !(f->family == AF_INET6 ? !memcmp(f->addr, &in6addr_loopback, 16) :
			    f->addr[0] == 127)) {
		conf_seterr(&x->e, "fpm address %s is not a loopback address: zebra's stream is not "
			    "authenticated (add \"remote\" to listen there anyway)", conf_q(&qb, argv[2]));
		return -EINVAL;
	}
	f->on = true;
	f->line = x->line;
	return 0;
}

/* a mirror's table and proto for an error line: "main" or N, "any" or N */
static void kmirror_name(uint32_t table, int proto, char t[16], char p[16])
{
	if (table == 254)
		snprintf(t, 16, "main");
	else
		snprintf(t, 16, "%u", table);
	if (proto < 0)
		snprintf(p, 16, "any");
	else
		snprintf(p, 16, "%d", proto);
}

/* "sids-from kernel [table N|main] [proto P]", "routes-from kernel ...":
 * one mirror; the second line must name the first one's table and proto */
static int l_kmirror(struct conf_ctx *x, int argc, char **argv)
{
	static const struct { const char *name; int id; } protos[] = {
		{ "kernel", 2 }, { "boot", 3 }, { "static", 4 }, { "zebra", 11 }, { "bgp", 186 },
		{ "isis", 187 }, { "ospf", 188 },
	};
	struct srv6_conf_kmirror *m = &x->c->kmirror;
	bool routes = !strcmp(argv[0], "routes-from");
	unsigned int *seen = routes ? &x->has_kroutes : &x->has_kmirror;
	unsigned int other = routes ? x->has_kmirror : x->has_kroutes;
	uint32_t table = 254;
	int proto = -1;
	struct qtok qb;
	char nm[32];
	uint64_t v;

	if (*seen) {
		conf_seterr(&x->e, "duplicate \"%s\" (first at line %u)", argv[0], *seen);
		return -EINVAL;
	}
	if (argc < 2 || strcmp(argv[1], "kernel")) {
		conf_seterr(&x->e, argc < 2 ? "missing \"kernel\" after \"%s\"%s" :
			    "unknown source %2$s after \"%1$s\" (kernel)", argv[0],
			    argc < 2 ? "" : conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	*seen = x->line;
	for (int i = 2; i < argc; i += 2) {
		if (i + 1 >= argc || (strcmp(argv[i], "table") && strcmp(argv[i], "proto"))) {
			conf_seterr(&x->e, i + 1 >= argc && (!strcmp(argv[i], "table") ||
				    !strcmp(argv[i], "proto")) ? "missing value after %s" :
				    "unexpected %s after \"%s kernel\" (table N, proto P)",
				    conf_q(&qb, argv[i]), argv[0]);
			return -EINVAL;
		}
		if (!strcmp(argv[i], "table")) {
			if (!strcmp(argv[i + 1], "main")) {
				table = 254;
				continue;
			}
			snprintf(nm, sizeof(nm), "%s table", argv[0]);
			if (conf_parse_num(nm, argv[i + 1], 1, UINT32_MAX, &v, &x->e))
				return -EINVAL;
			table = (uint32_t)v;
			continue;
		}
		proto = -2;
		for (size_t k = 0; k < ARRAY_SIZE(protos); k++)
			if (!strcmp(argv[i + 1], protos[k].name))
				proto = protos[k].id;
		if (proto == -2) {
			snprintf(nm, sizeof(nm), "%s proto", argv[0]);
			if (conf_parse_num(nm, argv[i + 1], 0, 255, &v, &x->e))
				return -EINVAL;
			proto = (int)v;
		}
	}
	if (other && (table != m->table || proto != m->proto)) {
		char t[2][16], p[2][16];

		kmirror_name(table, proto, t[0], p[0]);
		kmirror_name(m->table, m->proto, t[1], p[1]);
		conf_seterr(&x->e, "\"%s kernel\" takes table %s proto %s, line %u's \"%s "
			    "kernel\" table %s proto %s (one mirror: give both the same)",
			    argv[0], t[0], p[0], other, routes ? "sids-from" : "routes-from",
			    t[1], p[1]);
		return -EINVAL;
	}
	m->table = table;
	m->proto = proto;
	if (routes)
		m->routes = true;
	else
		m->sids = true;
	m->on = true;
	if (!m->line)
		m->line = x->line;
	return 0;
}

/* "ingress-napi threaded dev IF [IF...]" */
static int l_napi(struct conf_ctx *x, int argc, char **argv)
{
	struct qtok qb;

	if (x->has_napi) {
		conf_seterr(&x->e, "duplicate \"ingress-napi\" (first at line %u)", x->has_napi);
		return -EINVAL;
	}
	if (argc < 2 || strcmp(argv[1], "threaded")) {
		conf_seterr(&x->e, argc < 2 ? "missing \"threaded\" after \"ingress-napi\"%s" :
			    "unknown mode %s after \"ingress-napi\" (threaded)",
			    argc < 2 ? "" : conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	if (argc < 4 || strcmp(argv[2], "dev")) {
		conf_seterr(&x->e, "\"ingress-napi threaded\" needs dev IF [IF...]");
		return -EINVAL;
	}
	if (argc - 3 > (int)ARRAY_SIZE(x->c->napi_devs)) {
		conf_seterr(&x->e, "ingress-napi: at most %zu devices", ARRAY_SIZE(x->c->napi_devs));
		return -EINVAL;
	}
	x->has_napi = x->line;
	for (int i = 3; i < argc; i++) {
		if (strlen(argv[i]) >= sizeof(x->c->napi_devs[0]) || strchr(argv[i], '/') ||
		    !strcmp(argv[i], ".") || !strcmp(argv[i], "..")) {
			conf_seterr(&x->e, "bad interface name %s for ingress-napi", conf_q(&qb, argv[i]));
			return -EINVAL;
		}
		for (unsigned int k = 0; k < x->c->nnapi; k++)
			if (!strcmp(x->c->napi_devs[k], argv[i])) {
				conf_seterr(&x->e, "ingress-napi: %s given twice", conf_q(&qb, argv[i]));
				return -EINVAL;
			}
		snprintf(x->c->napi_devs[x->c->nnapi++], sizeof(x->c->napi_devs[0]), "%s", argv[i]);
	}
	return 0;
}

/* "queue N policy ...": a verdict-policy queue. */
static int l_pqueue(struct conf_ctx *x, int argc, char **argv)
{
	struct srv6_conf_pqueue pq;
	uint64_t n;

	if (conf_parse_num("queue", argv[1], 0, 65535, &n, &x->e))
		return -EINVAL;
	if (srv6_pqueue_parse_words((unsigned int)n, argc - 2, argv + 2, &pq, x->e.buf, x->e.len))
		return -EINVAL;
	for (unsigned int i = 0; i < x->c->npqueues; i++) {
		if (x->c->pqueues[i].queue == pq.queue) {
			conf_seterr(&x->e, "duplicate policy queue %u (first at line %u)", pq.queue,
				    x->c->pqueues[i].line);
			return -EINVAL;
		}
	}
	if (x->c->npqueues == SRV6_CONF_MAX_PQUEUES) {
		conf_seterr(&x->e, "too many policy queues (at most %d)", SRV6_CONF_MAX_PQUEUES);
		return -EINVAL;
	}
	pq.line = x->line;
	x->c->pqueues[x->c->npqueues++] = pq;
	return 0;
}

static int g_fanout(struct conf_ctx *x, char **argv)
{
	struct qtok qb;

	if (!strcmp(argv[1], "yes")) {
		x->c->cpu_fanout = true;
	} else if (!strcmp(argv[1], "no")) {
		x->c->cpu_fanout = false;
	} else {
		conf_seterr(&x->e, "bad value %s for queue-cpu-fanout (yes or no)", conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	return 0;
}

/* Global keywords: exactly one value, at most once per file. */
static const struct global_kw {
	const char *kw;
	size_t has_off;         /* offsetof(struct conf_ctx, has_*) */
	int (*parse)(struct conf_ctx *x, char **argv);
} global_kws[] = {
	{ "queue",        offsetof(struct conf_ctx, has_queue),    g_queue },
	{ "queue-maxlen", offsetof(struct conf_ctx, has_maxlen),   g_maxlen },
	{ "fail-open",    offsetof(struct conf_ctx, has_failopen), g_failopen },
	{ "queue-cpu-fanout", offsetof(struct conf_ctx, has_fanout), g_fanout },
	{ "steer",        offsetof(struct conf_ctx, has_steer),    g_steer },
	{ "egress",       offsetof(struct conf_ctx, has_egress),   g_egress },
	{ "gso",          offsetof(struct conf_ctx, has_gso),      g_gso },
	{ "encap-source", offsetof(struct conf_ctx, has_src),      g_src },
	{ "steer-chain",  offsetof(struct conf_ctx, has_chain),    g_chain },
	{ "mark-base",    offsetof(struct conf_ctx, has_markbase), g_markbase },
	{ "mark-mask",    offsetof(struct conf_ctx, has_markmask), g_markmask },
	{ "table-base",   offsetof(struct conf_ctx, has_tablebase), g_tablebase },
	{ "rule-pref",    offsetof(struct conf_ctx, has_rulepref), g_rulepref },
	{ "cpu-affinity", offsetof(struct conf_ctx, has_cpu),      g_cpu },
	{ "log-level",    offsetof(struct conf_ctx, has_loglevel), g_loglevel },
	{ "control-socket", offsetof(struct conf_ctx, has_ctlsock), g_ctlsock },
};

static int conf_line(struct conf_ctx *x, int argc, char **argv)
{
	struct qtok qb;
	size_t i;

	if (!strcmp(argv[0], "sid"))
		return l_sid(x, argc, argv);
	if (!strcmp(argv[0], "route"))
		return l_route(x, argc, argv);
	if (!strcmp(argv[0], "queue") && argc > 2 && !strcmp(argv[2], "policy"))
		return l_pqueue(x, argc, argv);
	if (!strcmp(argv[0], "hmac"))                 /* hmac hook */
		return srv6_hmac_conf_line(&x->c->hmac, argc, argv, x->line, x->e.buf, x->e.len);
	if (!strcmp(argv[0], "worker-sched"))
		return l_sched(x, argc, argv);
	if (!strcmp(argv[0], "fpm"))
		return l_fpm(x, argc, argv);
	if (!strcmp(argv[0], "sids-from") || !strcmp(argv[0], "routes-from"))
		return l_kmirror(x, argc, argv);
	if (!strcmp(argv[0], "ingress-napi"))
		return l_napi(x, argc, argv);
	for (i = 0; i < ARRAY_SIZE(global_kws); i++) {
		const struct global_kw *g = &global_kws[i];
		unsigned int *has = (unsigned int *)((char *)x + g->has_off);

		if (strcmp(argv[0], g->kw))
			continue;
		if (*has) {
			conf_seterr(&x->e, "duplicate \"%s\" (first at line %u)", g->kw, *has);
			return -EINVAL;
		}
		if (need_one(argc, argv, &x->e))
			return -EINVAL;
		*has = x->line;
		return g->parse(x, argv);
	}
	conf_seterr(&x->e, "unknown keyword %s", conf_q(&qb, argv[0]));
	return -EINVAL;
}

/* Cross-line checks; sets x->line to the line the error belongs to. */
/* A SID's table or vrftable @t against srv6d's own tables. */
static int table_clash(struct conf_ctx *x, const char *kw, uint32_t t)
{
	uint64_t lo = (uint64_t)x->c->table_base + 1, hi = (uint64_t)x->c->table_base + SRV6_NHCTX_MAX;

	if (t >= 253 && t <= 255) {
		conf_seterr(&x->e, "%s %u is a reserved table (253 default, 254 main, 255 local)", kw, t);
		return -EINVAL;
	}
	if (t >= lo && t <= hi) {
		conf_seterr(&x->e, "%s %u is inside srv6d's own table range %llu-%llu (table-base)", kw, t,
		       (unsigned long long)lo, (unsigned long long)hi);
		return -EINVAL;
	}
	return 0;
}

int srv6_conf_check_sid_tables(const struct srv6_conf *c, const struct srv6_sid_cfg *cfg,
			       char *err, size_t errlen)
{
	struct conf_ctx x;

	memset(&x, 0, sizeof(x));
	x.c = (struct srv6_conf *)c;   /* table_clash only reads it */
	x.e.buf = err;
	x.e.len = errlen;
	if ((cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_TABLE)) && table_clash(&x, "table", cfg->table))
		return -EINVAL;
	if ((cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_VRFTABLE)) &&
	    table_clash(&x, "vrftable", cfg->vrftable))
		return -EINVAL;
	return 0;
}

static int conf_finish(struct conf_ctx *x)
{
	unsigned int nq = srv6_conf_nqueues(x->c);

	/* After the whole file: table-base may come after the SIDs. */
	for (size_t i = 0; i < x->c->nsids; i++) {
		const struct srv6_sid_cfg *cfg = &x->c->sids[i].cfg;

		x->line = x->c->sids[i].line;
		if ((cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_TABLE)) && table_clash(x, "table", cfg->table))
			return -EINVAL;
		if ((cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_VRFTABLE)) &&
		    table_clash(x, "vrftable", cfg->vrftable))
			return -EINVAL;
	}

	for (unsigned int i = 0; i < x->c->npqueues; i++) {
		const struct srv6_conf_pqueue *pq = &x->c->pqueues[i];

		if (pq->queue >= x->c->queue_first && pq->queue <= x->c->queue_last) {
			x->line = pq->line;
			conf_seterr(&x->e, "policy queue %u is one of the SRv6 queues %u-%u (\"queue\")",
				    pq->queue, x->c->queue_first, x->c->queue_last);
			return -EINVAL;
		}
	}
	if (conf_pqueue_cycles(x->c, &x->line, &x->e))
		return -EINVAL;
	/* ingress-napi without a worker-sched line: the overload setting is
	 * both, so one line gives it (an explicit worker-sched other keeps
	 * the workers SCHED_OTHER) */
	if (x->has_napi && !x->has_sched) {
		x->c->worker_fifo = true;
		x->c->worker_prio = SRV6_CONF_NAPI_FIFO_PRIO;
		x->c->worker_sched_implied = true;
	}
	if (srv6_hmac_conf_finish(x->c, &x->line, x->e.buf, x->e.len))   /* hmac hook */
		return -EINVAL;
	if ((x->c->mark_base & ~x->c->mark_mask) ||
	    !srv6_nhctx_idx_field(x->c->mark_base, x->c->mark_mask)) {
		x->line = x->has_markmask ? x->has_markmask : x->has_markbase;
		conf_seterr(&x->e, "mark-base 0x%08x does not fit mark-mask 0x%08x (the base inside "
			    "the mask, and mask bits below it for the context index)",
			    x->c->mark_base, x->c->mark_mask);
		return -EINVAL;
	}

	/* GSO super-packets are queued whole only where the result is
	 * injected: a verdict would hand a rewritten one back CHECKSUM_NONE
	 * (docs/DATAPATH.md). */
	if (x->c->gso && x->c->egress != SRV6_EGRESS_INJECT) {
		x->line = x->has_gso;
		conf_seterr(&x->e, "gso on needs \"egress inject\" (a rewritten GSO packet cannot "
			    "go back in a verdict)");
		return -EINVAL;
	}
	if (x->c->ncpus && (unsigned int)x->c->ncpus != nq) {
		x->line = x->has_cpu;
		conf_seterr(&x->e, "cpu-affinity lists %d CPU%s for %u queue%s (one per queue)",
		       x->c->ncpus, x->c->ncpus == 1 ? "" : "s", nq, nq == 1 ? "" : "s");
		return -EINVAL;
	}
	return 0;
}


void srv6_conf_init(struct srv6_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->queue_first = 0;
	c->queue_last = 0;
	c->queue_maxlen = SRV6_CONF_QUEUE_MAXLEN_DEF;
	c->fail_open = false;
	c->cpu_fanout = false;
	c->steer = SRV6_STEER_AUTO;
	c->log_level = LOG_INFO;
	snprintf(c->steer_chain, sizeof(c->steer_chain), "%s", SRV6_STEER_CHAIN);
	c->mark_base = SRV6_NHCTX_MARK_BASE;
	c->mark_mask = SRV6_NHCTX_MARK_ALL;
	c->table_base = SRV6_NHCTX_TABLE_BASE;
	c->rule_pref = SRV6_NHCTX_RULE_PRIO;
	snprintf(c->ctl_path, sizeof(c->ctl_path), "%s", SRV6_CTL_SOCK_DEFAULT);
}

const char *srv6_origin_name(enum srv6_origin o)
{
	return o == SRV6_ORIGIN_FPM ? "fpm" : o == SRV6_ORIGIN_KERNEL ? "kernel" : "conf";
}

char *srv6_origin_where(const char *path, unsigned int origin, unsigned int line, char *buf,
			size_t len)
{
	if (origin != SRV6_ORIGIN_CONF)
		snprintf(buf, len, "%s", srv6_origin_name((enum srv6_origin)origin));
	else if (!line)
		snprintf(buf, len, "srv6ctl");
	else if (!path)
		snprintf(buf, len, "line %u", line);
	else
		snprintf(buf, len, "%s:%u", path, line);
	return buf;
}

void srv6_conf_free(struct srv6_conf *c)
{
	free(c->sids);
	free(c->routes);
	srv6_hmac_set_free(c->hmac);                  /* hmac hook */
	srv6_conf_init(c);
}

/* Parse @len bytes of @text (a private, writable copy; may hold NULs). */
static int conf_parse_buf(struct srv6_conf *c, const char *name, char *text, size_t len,
			  char *err, size_t errlen)
{
	char msg[SRV6_CONF_ERRLEN], qname[QTOK_MAX * 4 + 8];
	struct conf_ctx x;
	char *argv[CONF_MAX_WORDS];
	size_t off = 0;
	int rc = 0;

	memset(&x, 0, sizeof(x));
	srv6_conf_init(c);
	x.c = c;
	x.e.buf = msg;
	x.e.len = sizeof(msg);
	srv6_escape_into(qname, sizeof(qname), name ? name : "srv6d.conf", QTOK_MAX * 2);
	x.name = qname;
	msg[0] = '\0';

	while (off < len) {
		char *line = text + off;
		char *nl = memchr(line, '\n', len - off);
		size_t l = nl ? (size_t)(nl - line) : len - off;
		int argc;

		x.line++;
		off += l + 1;
		line[l] = '\0';   /* the '\n' or, at the very end, the copy's NUL */
		if (strlen(line) != l) {
			conf_seterr(&x.e, "NUL byte in line");
			rc = -EINVAL;
			break;
		}
		argc = conf_split_words(line, argv, &x.e);
		if (argc < 0) {
			rc = argc;
			break;
		}
		if (argc == 0)
			continue;
		rc = conf_line(&x, argc, argv);
		if (rc)
			break;
	}
	if (!rc)
		rc = conf_finish(&x);
	pset_free(&x.sid_set);
	pset_free(&x.route_set);
	if (rc) {
		if (err && errlen)
			snprintf(err, errlen, "%s:%u: %s", qname, x.line, msg);
		srv6_conf_free(c);
		return rc;
	}
	if (err && errlen)
		err[0] = '\0';
	return 0;
}

int srv6_conf_parse_string(struct srv6_conf *c, const char *name, const char *text,
			   char *err, size_t errlen)
{
	size_t len;
	char *copy;
	int rc;

	if (!text) {
		srv6_conf_init(c);
		if (err && errlen)
			snprintf(err, errlen, "%s: no text", name ? name : "srv6d.conf");
		return -EINVAL;
	}
	len = strlen(text);
	copy = malloc(len + 1);
	if (!copy) {
		srv6_conf_init(c);
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", name ? name : "srv6d.conf");
		return -ENOMEM;
	}
	memcpy(copy, text, len + 1);
	rc = conf_parse_buf(c, name, copy, len, err, errlen);
	free(copy);
	return rc;
}

int srv6_conf_parse_file(struct srv6_conf *c, const char *path, char *err, size_t errlen)
{
	char qname[QTOK_MAX * 4 + 8];
	size_t cap = 4096, len = 0;
	char *buf = NULL;
	int fd, rc;

	srv6_conf_init(c);
	srv6_escape_into(qname, sizeof(qname), path, QTOK_MAX * 2);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto out_err;
	}
	for (;;) {
		ssize_t n;

		if (!buf || len + 1 >= cap) {
			char *nb;

			if (buf)
				cap *= 2;
			if (cap > (size_t)SRV6_CONF_MAX_FILE + 2)
				cap = (size_t)SRV6_CONF_MAX_FILE + 2;
			nb = realloc(buf, cap);
			if (!nb) {
				rc = -ENOMEM;
				goto out_free;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			goto out_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > SRV6_CONF_MAX_FILE) {
			rc = -EFBIG;
			goto out_free;
		}
	}
	close(fd);
	buf[len] = '\0';
	rc = conf_parse_buf(c, path, buf, len, err, errlen);
	free(buf);
	return rc;

out_free:
	free(buf);
	close(fd);
out_err:
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", qname,
			 rc == -EFBIG ? "file too large" : strerror(-rc));
	return rc;
}

