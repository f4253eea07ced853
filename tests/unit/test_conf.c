// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_conf.c - srv6d.conf parser: the shipped example, every error class
 * with its exact message and line, round trips for every action, and
 * iproute2-pasted lines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv6d/conf.h"

static struct in6_addr a6(const char *s)
{
	struct in6_addr a;

	assert_int_equal(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

static void assert_addr6(const struct in6_addr *got, const char *want)
{
	struct in6_addr w = a6(want);

	assert_memory_equal(got, &w, sizeof(w));
}

/* Split a formatted line into words (modifies @line). */
static int words(char *line, char **argv, int max)
{
	int n = 0;
	char *save = NULL, *w;

	for (w = strtok_r(line, " ", &save); w && n < max; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	return n;
}

/* Format, parse back, compare, format again: identical cfg and text. */
static void roundtrip_sid(const struct in6_addr *pfx, uint8_t plen,
			  const struct srv6_sid_cfg *cfg)
{
	char line[SRV6_CONF_LINE_MAX], copy[SRV6_CONF_LINE_MAX], again[SRV6_CONF_LINE_MAX];
	char err[SRV6_CONF_ERRLEN], *argv[64];
	struct srv6_sid_cfg cfg2;
	struct in6_addr pfx2;
	uint8_t plen2;
	int n, argc;

	n = srv6_sid_format(line, sizeof(line), pfx, plen, cfg);
	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(line));
	strcpy(copy, line);
	argc = words(copy, argv, 64);
	assert_string_equal(argv[0], "sid");
	if (srv6_sid_parse_words(argc - 1, argv + 1, &pfx2, &plen2, &cfg2, err, sizeof(err)))
		fail_msg("reparse of \"%s\": %s", line, err);
	assert_int_equal(plen2, plen);
	assert_memory_equal(&pfx2, pfx, sizeof(pfx2));
	assert_true(srv6_sid_cfg_equal(&cfg2, cfg));
	/* identical in every configured field, not only by the cmp functions */
	assert_int_equal(cfg2.action, cfg->action);
	assert_int_equal(cfg2.attrs, cfg->attrs);
	assert_int_equal(cfg2.flavors, cfg->flavors);
	assert_int_equal(cfg2.lblen, cfg->lblen);
	assert_int_equal(cfg2.nflen, cfg->nflen);
	assert_int_equal(cfg2.table, cfg->table);
	assert_int_equal(cfg2.vrftable, cfg->vrftable);
	assert_memory_equal(&cfg2.nh4, &cfg->nh4, sizeof(cfg->nh4));
	assert_memory_equal(&cfg2.nh6, &cfg->nh6, sizeof(cfg->nh6));
	assert_memory_equal(cfg2.oif_name, cfg->oif_name, sizeof(cfg->oif_name));
	assert_int_equal(cfg2.nsegs, cfg->nsegs);
	assert_memory_equal(cfg2.segs, cfg->segs, sizeof(cfg->segs));
	assert_int_equal(srv6_sid_format(again, sizeof(again), &pfx2, plen2, &cfg2), n);
	assert_string_equal(again, line);
}

static void roundtrip_route(const struct srv6_conf_route *r)
{
	char line[SRV6_CONF_LINE_MAX], copy[SRV6_CONF_LINE_MAX], again[SRV6_CONF_LINE_MAX];
	char err[SRV6_CONF_ERRLEN], *argv[64];
	struct srv6_conf_route r2;
	int n, argc;

	n = srv6_route_format(line, sizeof(line), r);
	assert_true(n > 0);
	strcpy(copy, line);
	argc = words(copy, argv, 64);
	assert_string_equal(argv[0], "route");
	if (srv6_route_parse_words(argc - 1, argv + 1, &r2, err, sizeof(err)))
		fail_msg("reparse of \"%s\": %s", line, err);
	assert_int_equal(r2.family, r->family);
	assert_int_equal(r2.plen, r->plen);
	assert_memory_equal(&r2.prefix, &r->prefix, r->family == AF_INET6 ? 16 : 4);
	assert_true(srv6_policy_equal(&r2.pol, &r->pol));
	assert_int_equal(r2.pol.mode, r->pol.mode);
	assert_int_equal(r2.pol.nsegs, r->pol.nsegs);
	assert_memory_equal(r2.pol.segs, r->pol.segs, sizeof(r->pol.segs));
	assert_int_equal(srv6_route_format(again, sizeof(again), &r2), n);
	assert_string_equal(again, line);
}

/* ---- the shipped example ---------------------------------------------- */

/* conf/srv6d.conf from the working directory or relative to the binary
 * ($(BUILD)/tests/test_conf -> ../../conf/srv6d.conf). */
static const char *example_path(char *buf, size_t len)
{
	static const char *const rel[] = { "conf/srv6d.conf", "../conf/srv6d.conf",
					   "../../conf/srv6d.conf" };
	char exe[PATH_MAX];
	ssize_t n;
	size_t i;
	int up;

	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		if (access(rel[i], R_OK) == 0)
			return rel[i];
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	for (up = 0; up < 3; up++) {
		char *slash = strrchr(exe, '/');

		if (!slash)
			return NULL;
		*slash = '\0';
	}
	snprintf(buf, len, "%s/conf/srv6d.conf", exe);
	return access(buf, R_OK) == 0 ? buf : NULL;
}

static void test_example_file(void **state)
{
	char pbuf[PATH_MAX + 32], err[SRV6_CONF_ERRLEN];
	const char *path = example_path(pbuf, sizeof(pbuf));
	struct srv6_conf c;
	const struct srv6_sid_cfg *s;
	size_t i;

	assert_non_null(path);
	if (srv6_conf_parse_file(&c, path, err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(err, "");
	assert_int_equal(c.queue_first, 0);
	assert_int_equal(c.queue_last, 1);
	assert_int_equal(srv6_conf_nqueues(&c), 2);
	assert_int_equal(c.queue_maxlen, 4096);
	assert_false(c.fail_open);
	assert_int_equal(c.steer, SRV6_STEER_AUTO);
	assert_false(c.has_encap_src);
	assert_int_equal(c.ncpus, 0);
	assert_int_equal(c.nsids, 9);
	assert_int_equal(c.nroutes, 2);

	s = &c.sids[0].cfg;
	assert_addr6(&c.sids[0].prefix, "2001:db8:ff::1");
	assert_int_equal(c.sids[0].plen, 128);
	assert_int_equal(s->action, SRV6_ACT_END);
	assert_int_equal(s->attrs, 0);

	s = &c.sids[1].cfg;
	assert_int_equal(s->action, SRV6_ACT_END);
	assert_int_equal(s->attrs, SRV6_F_ATTR(SRV6_ATTR_FLAVORS));
	assert_int_equal(s->flavors, SRV6_F_FLV(SRV6_FLV_PSP));

	s = &c.sids[2].cfg;
	assert_int_equal(s->action, SRV6_ACT_END_X);
	assert_int_equal(s->attrs, SRV6_F_ATTR(SRV6_ATTR_NH6) | SRV6_F_ATTR(SRV6_ATTR_OIF));
	assert_addr6(&s->nh6, "2001:db8:2::2");
	assert_string_equal(s->oif_name, "veth1");
	assert_int_equal(s->oif, 0);    /* resolved by the datapath, not here */

	s = &c.sids[3].cfg;
	assert_int_equal(s->action, SRV6_ACT_END_T);
	assert_int_equal(s->table, 100);

	s = &c.sids[4].cfg;
	assert_int_equal(s->action, SRV6_ACT_END_DX6);
	assert_addr6(&s->nh6, "2001:db8:2::2");

	s = &c.sids[5].cfg;
	assert_int_equal(s->action, SRV6_ACT_END_DT6);
	assert_int_equal(s->attrs, SRV6_F_ATTR(SRV6_ATTR_TABLE));
	assert_int_equal(s->table, 100);

	for (i = 6; i <= 7; i++) {
		s = &c.sids[i].cfg;
		assert_int_equal(s->action, i == 6 ? SRV6_ACT_END_B6 : SRV6_ACT_END_B6_ENCAP);
		assert_int_equal(s->attrs, SRV6_F_ATTR(SRV6_ATTR_SRH));
		assert_int_equal(s->nsegs, 2);
		assert_addr6(&s->segs[0], "2001:db8:aa::1");   /* travel order */
		assert_addr6(&s->segs[1], "2001:db8:aa::2");
	}

	s = &c.sids[8].cfg;
	assert_addr6(&c.sids[8].prefix, "2001:db8:100::");
	assert_int_equal(c.sids[8].plen, 48);
	assert_int_equal(s->flavors, SRV6_F_FLV(SRV6_FLV_NEXT_CSID));
	assert_int_equal(s->lblen, 32);
	assert_int_equal(s->nflen, 16);

	assert_int_equal(c.routes[0].family, AF_INET6);
	assert_addr6(&c.routes[0].prefix.v6, "2001:db8:99::");
	assert_int_equal(c.routes[0].plen, 64);
	assert_int_equal(c.routes[0].pol.mode, SRV6_MODE_ENCAP);
	assert_int_equal(c.routes[0].pol.nsegs, 2);
	assert_addr6(&c.routes[0].pol.segs[0], "2001:db8:ff::1");
	assert_addr6(&c.routes[0].pol.segs[1], "2001:db8:aa::1");
	assert_int_equal(c.routes[1].pol.mode, SRV6_MODE_INLINE);
	assert_int_equal(c.routes[1].pol.nsegs, 1);

	/* line numbers point into the file */
	for (i = 1; i < c.nsids; i++)
		assert_true(c.sids[i].line > c.sids[i - 1].line);
	assert_true(c.routes[0].line > c.sids[c.nsids - 1].line);

	/* every entry of the example round-trips */
	for (i = 0; i < c.nsids; i++)
		roundtrip_sid(&c.sids[i].prefix, c.sids[i].plen, &c.sids[i].cfg);
	for (i = 0; i < c.nroutes; i++)
		roundtrip_route(&c.routes[i]);
	srv6_conf_free(&c);
	assert_null(c.sids);
	assert_int_equal(c.nsids, 0);
	srv6_conf_free(&c);   /* idempotent */
}

/* ---- globals and defaults --------------------------------------------- */

static void test_defaults(void **state)
{
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c;

	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "# nothing\n\n   \t\n", err,
						sizeof(err)), 0);
	assert_int_equal(c.queue_first, 0);
	assert_int_equal(c.queue_last, 0);
	assert_int_equal(c.queue_maxlen, SRV6_CONF_QUEUE_MAXLEN_DEF);
	assert_false(c.fail_open);
	assert_int_equal(c.steer, SRV6_STEER_AUTO);
	assert_false(c.has_encap_src);
	assert_int_equal(c.ncpus, 0);
	assert_int_equal(c.nsids, 0);
	assert_int_equal(c.nroutes, 0);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "", err, sizeof(err)), 0);
	srv6_conf_free(&c);
}

static void test_globals(void **state)
{
	static const char text[] =
		"queue 10-13\r\n"              /* CRLF tolerated */
		"queue-maxlen 1048576\n"
		"fail-open yes   # trailing comment\n"
		"queue-cpu-fanout yes\n"
		"steer none\n"
		"encap-source 2001:db8::53\n"
		"cpu-affinity 0,1-2,7\n"
		"worker-sched fifo 50\n"
		"sid 2001:db8:ff::1 action End#comment glued to a word\n";
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c;

	if (srv6_conf_parse_string(&c, "t.conf", text, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(c.queue_first, 10);
	assert_int_equal(c.queue_last, 13);
	assert_int_equal(srv6_conf_nqueues(&c), 4);
	assert_int_equal(c.queue_maxlen, 1048576);
	assert_true(c.fail_open);
	assert_int_equal(c.steer, SRV6_STEER_NONE);
	assert_true(c.has_encap_src);
	assert_addr6(&c.encap_src, "2001:db8::53");
	assert_int_equal(c.ncpus, 4);
	assert_int_equal(c.cpus[0], 0);
	assert_int_equal(c.cpus[1], 1);
	assert_int_equal(c.cpus[2], 2);
	assert_int_equal(c.cpus[3], 7);
	assert_true(c.worker_fifo);
	assert_int_equal(c.worker_prio, 50);
	assert_int_equal(c.nsids, 1);
	assert_int_equal(c.sids[0].line, 9);
	assert_true(c.cpu_fanout);
	assert_false(c.fpm.on);
	srv6_conf_free(&c);
	/* fpm listen: defaults, then every word */
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "fpm listen 127.0.0.2\n", err,
						sizeof(err)), 0);
	assert_true(c.fpm.on && !c.fpm.remote);
	assert_int_equal(c.fpm.family, AF_INET);
	assert_int_equal(c.fpm.port, SRV6_FPM_PORT_DEF);
	assert_int_equal(c.fpm.grace, SRV6_FPM_GRACE_DEF);
	assert_int_equal(c.fpm.line, 1);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf",
						"\nfpm listen 2001:db8::1 2700 grace 0 remote\n", err,
						sizeof(err)), 0);
	assert_true(c.fpm.on && c.fpm.remote);
	assert_int_equal(c.fpm.family, AF_INET6);
	assert_int_equal(c.fpm.port, 2700);
	assert_int_equal(c.fpm.grace, 0);
	assert_int_equal(c.fpm.line, 2);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "sids-from kernel\n", err, sizeof(err)), 0);
	assert_true(c.kmirror.on && c.kmirror.sids && !c.kmirror.routes);
	assert_int_equal(c.kmirror.table, 254);
	assert_int_equal(c.kmirror.proto, -1);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "sids-from kernel table 100 proto zebra\n",
						err, sizeof(err)), 0);
	assert_int_equal(c.kmirror.table, 100);
	assert_int_equal(c.kmirror.proto, 11);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "sids-from kernel proto 42 table main\n",
						err, sizeof(err)), 0);
	assert_int_equal(c.kmirror.table, 254);
	assert_int_equal(c.kmirror.proto, 42);
	srv6_conf_free(&c);
	/* routes-from alone, then both (one mirror: the same table and proto) */
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "routes-from kernel\n", err, sizeof(err)), 0);
	assert_true(c.kmirror.on && c.kmirror.routes && !c.kmirror.sids);
	assert_int_equal(c.kmirror.table, 254);
	assert_int_equal(c.kmirror.line, 1);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "\nsids-from kernel table 7 proto 9\n"
						"routes-from kernel proto 9 table 7\n", err, sizeof(err)), 0);
	assert_true(c.kmirror.on && c.kmirror.routes && c.kmirror.sids);
	assert_int_equal(c.kmirror.table, 7);
	assert_int_equal(c.kmirror.proto, 9);
	assert_int_equal(c.kmirror.line, 2);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "ingress-napi threaded dev eth0 eth1\n",
						err, sizeof(err)), 0);
	assert_int_equal(c.nnapi, 2);
	assert_string_equal(c.napi_devs[1], "eth1");
	/* the overload setting in one line: SCHED_FIFO workers implied */
	assert_true(c.worker_fifo);
	assert_int_equal(c.worker_prio, SRV6_CONF_NAPI_FIFO_PRIO);
	assert_true(c.worker_sched_implied);
	srv6_conf_free(&c);
	/* an explicit worker-sched wins, before or after the line */
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "worker-sched other\n"
						"ingress-napi threaded dev eth0\n", err, sizeof(err)), 0);
	assert_false(c.worker_fifo);
	assert_false(c.worker_sched_implied);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "ingress-napi threaded dev eth0\n"
						"worker-sched fifo 30\n", err, sizeof(err)), 0);
	assert_true(c.worker_fifo);
	assert_int_equal(c.worker_prio, 30);
	assert_false(c.worker_sched_implied);
	srv6_conf_free(&c);
	/* and without ingress-napi nothing is implied */
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "queue 1\n", err, sizeof(err)), 0);
	assert_false(c.worker_fifo);
	assert_false(c.worker_sched_implied);
	srv6_conf_free(&c);

	assert_int_equal(srv6_conf_parse_string(&c, "t.conf",
						"queue 65535\ncpu-affinity none\n"
						"fail-open no\nsteer auto\nworker-sched other\n"
						"queue-cpu-fanout no\n",
						err, sizeof(err)), 0);
	assert_false(c.cpu_fanout);
	assert_int_equal(c.queue_first, 65535);
	assert_int_equal(c.queue_last, 65535);
	assert_int_equal(c.ncpus, 0);
	assert_false(c.worker_fifo);
	assert_false(c.fail_open);
	assert_false(c.cpu_fanout);   /* the default */
	srv6_conf_free(&c);

	/* 64 queues is the limit, inclusive */
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "queue 100-163\n", err,
						sizeof(err)), 0);
	assert_int_equal(srv6_conf_nqueues(&c), 64);
	srv6_conf_free(&c);
}

/* ---- every error class: exact message and line ------------------------ */

struct err_case {
	const char *text;
	const char *msg;
};

#define SEGS17 "1::1,1::2,1::3,1::4,1::5,1::6,1::7,1::8,1::9,1::a,1::b,1::c,1::d,1::e,1::f,1::10,1::11"
#define SEGS16 "1::1,1::2,1::3,1::4,1::5,1::6,1::7,1::8,1::9,1::a,1::b,1::c,1::d,1::e,1::f,1::10"

static const struct err_case err_cases[] = {
	/* unknown words */
	{ "queue 0\nbogus 1\n", "t.conf:2: unknown keyword \"bogus\"" },
	{ "Queue 0\n", "t.conf:1: unknown keyword \"Queue\"" },              /* exact case */
	{ "que 0\n", "t.conf:1: unknown keyword \"que\"" },                  /* no abbreviations */
	{ "# header\n\nqueue 0-1\nsteer auto\n\n# SIDs\nsid 2001:db8:ff::1 action End\n"
	  "\n\n\n\nsid 2001:db8:ff::2 action End.DX5 nh6 2001:db8::2\n",
	  "t.conf:12: unknown action \"End.DX5\"" },
	{ "sid 2001:db8::1 action end\n", "t.conf:1: unknown action \"end\"" },
	{ "sid 2001:db8::1 action End.X nh6 2001:db8::2 via 2001:db8::3\n",
	  "t.conf:1: unknown keyword \"via\"" },
	{ "sid 2001:db8::1 action End weight 3\n", "t.conf:1: unknown keyword \"weight\"" },
	{ "sid 2001:db8::1 action End\x01\n", "t.conf:1: unknown action \"End\\x01\"" },
	{ "route 2001:db8::/64 encap seg6 mode encap segs 2001:db8::1 via x\n",
	  "t.conf:1: unknown keyword \"via\"" },
	/* required attribute missing / attribute not taken (descriptor masks) */
	{ "queue 0\n\nsid 2001:db8:ff::3 action End.X oif eth1\n", "t.conf:3: End.X requires nh6" },
	{ "sid 2001:db8::1 action End.T\n", "t.conf:1: End.T requires table" },
	{ "sid 2001:db8::1 action End.B6\n", "t.conf:1: End.B6 requires srh" },
	{ "sid 2001:db8::1 action End.DX4\n", "t.conf:1: End.DX4 requires nh4" },
	{ "sid 2001:db8::1 action End.DX2\n", "t.conf:1: End.DX2 requires oif" },
	{ "sid 2001:db8::1 action End.DT6\n", "t.conf:1: End.DT6 requires table or vrftable" },
	{ "sid 2001:db8::1 action End.DT46 table 1 vrftable 2\n",
	  "t.conf:1: End.DT46 takes table or vrftable, not both" },
	{ "sid 2001:db8::1 action End nh6 2001:db8::2\n", "t.conf:1: End does not take nh6" },
	{ "sid 2001:db8::1 action End.DX6 nh6 2001:db8::2 table 5\n",
	  "t.conf:1: End.DX6 does not take table (a route-level \"table N\" is not supported: "
	  "srv6d's SIDs are not per routing table)" },
	{ "sid 2001:db8::1 action End.DX6 nh6 2001:db8::2 flavors psp\n",
	  "t.conf:1: End.DX6 does not take flavors" },
	{ "sid 2001:db8::1 action End.T table 5 flavors next-csid\n",
	  "t.conf:1: End.T does not take flavor next-csid" },
	{ "sid 2001:db8::1\n", "t.conf:1: missing \"action\" for SID \"2001:db8::1\"" },
	{ "sid\n", "t.conf:1: missing SID prefix after \"sid\"" },
	/* duplicates */
	{ "sid 2001:db8::1 action End.X nh6 2001:db8::2 nh6 2001:db8::3\n",
	  "t.conf:1: duplicate \"nh6\"" },
	{ "sid 2001:db8::1 action End action End\n", "t.conf:1: duplicate \"action\"" },
	{ "sid 2001:db8::1 action End dev eth0 dev eth1\n", "t.conf:1: duplicate \"dev\"" },
	{ "sid 2001:db8::1 action End count count\n", "t.conf:1: duplicate \"count\"" },
	{ "sid 2001:db8::1 action End flavors psp flavors usp\n",
	  "t.conf:1: duplicate \"flavors\"" },
	{ "sid 2001:db8::1 action End flavors psp,psp\n", "t.conf:1: duplicate flavor \"psp\"" },
	{ "route 2001:db8::/64 encap seg6 mode encap mode inline segs 2001:db8::1\n",
	  "t.conf:1: duplicate \"mode\"" },
	{ "queue 1\nqueue-maxlen 10\nqueue 2\n", "t.conf:3: duplicate \"queue\" (first at line 1)" },
	{ "steer auto\nsteer auto\n", "t.conf:2: duplicate \"steer\" (first at line 1)" },
	{ "sid 2001:db8:ff::1 action End\nsid 2001:db8:ff::2 action End\n"
	  "sid 2001:DB8:FF:0::1/128 action End.T table 4\n",
	  "t.conf:3: duplicate sid 2001:db8:ff::1 (first at line 1)" },
	{ "sid 2001:db8:100::/48 action End\nsid 2001:db8:100::/64 action End\n"
	  "sid 2001:db8:100:0::/48 action End\n",
	  "t.conf:3: duplicate sid 2001:db8:100::/48 (first at line 1)" },
	{ "route 10.0.0.0/8 encap seg6 mode encap segs 2001:db8::1\n"
	  "route 10.0.0.0/8 encap seg6 mode encap.red segs 2001:db8::2\n",
	  "t.conf:2: duplicate route 10.0.0.0/8 (first at line 1)" },
	/* values out of range */
	{ "queue 65536\n", "t.conf:1: queue \"65536\" out of range (0..65535)" },
	{ "queue 0-64\n", "t.conf:1: too many queues in \"0-64\" (65, at most 64)" },
	{ "queue 5-3\n", "t.conf:1: bad queue range \"5-3\" (end before start)" },
	{ "queue -3\n", "t.conf:1: bad queue range \"-3\"" },
	{ "queue x\n", "t.conf:1: bad number \"x\" for queue" },
	{ "queue 0 1\n", "t.conf:1: \"queue\" takes one value, unexpected \"1\"" },
	{ "queue\n", "t.conf:1: missing value after \"queue\"" },
	{ "queue-maxlen 0\n", "t.conf:1: queue-maxlen \"0\" out of range (1..1048576)" },
	{ "queue-maxlen 1048577\n", "t.conf:1: queue-maxlen \"1048577\" out of range (1..1048576)" },
	{ "queue-maxlen 99999999999999999999999\n",
	  "t.conf:1: queue-maxlen \"99999999999999999999999\" out of range (1..1048576)" },
	{ "queue-maxlen 010\n", "t.conf:1: bad number \"010\" for queue-maxlen" },
	{ "queue-maxlen 0x10\n", "t.conf:1: bad number \"0x10\" for queue-maxlen" },
	{ "fail-open maybe\n", "t.conf:1: bad value \"maybe\" for fail-open (yes or no)" },
	{ "queue-cpu-fanout 1\n", "t.conf:1: bad value \"1\" for queue-cpu-fanout (yes or no)" },
	{ "steer manual\n", "t.conf:1: bad value \"manual\" for steer (auto or none)" },
	{ "cpu-affinity 0,5000\n", "t.conf:1: cpu \"5000\" out of range (0..1023)" },
	{ "worker-sched rr 5\n", "t.conf:1: bad value \"rr\" for worker-sched (other, or fifo PRIO)" },
	{ "fpm\n", "t.conf:1: missing \"listen\" after \"fpm\"" },
	{ "sids-from\n", "t.conf:1: missing \"kernel\" after \"sids-from\"" },
	{ "ingress-napi\n", "t.conf:1: missing \"threaded\" after \"ingress-napi\"" },
	{ "ingress-napi busy dev eth0\n", "t.conf:1: unknown mode \"busy\" after \"ingress-napi\" (threaded)" },
	{ "ingress-napi threaded eth0\n", "t.conf:1: \"ingress-napi threaded\" needs dev IF [IF...]" },
	{ "ingress-napi threaded dev ../x\n", "t.conf:1: bad interface name \"../x\" for ingress-napi" },
	{ "ingress-napi threaded dev eth0 eth0\n", "t.conf:1: ingress-napi: \"eth0\" given twice" },
	{ "ingress-napi threaded dev a b c d e f g h i\n", "t.conf:1: ingress-napi: at most 8 devices" },
	{ "sids-from zebra\n", "t.conf:1: unknown source \"zebra\" after \"sids-from\" (kernel)" },
	{ "sids-from kernel table\n", "t.conf:1: missing value after \"table\"" },
	{ "sids-from kernel table 0\n", "t.conf:1: sids-from table \"0\" out of range (1..4294967295)" },
	{ "sids-from kernel proto 256\n", "t.conf:1: sids-from proto \"256\" out of range (0..255)" },
	{ "sids-from kernel metric 5\n", "t.conf:1: unexpected \"metric\" after \"sids-from kernel\" (table N, proto P)" },
	{ "sids-from kernel\nsids-from kernel\n", "t.conf:2: duplicate \"sids-from\" (first at line 1)" },
	{ "routes-from kernel\nroutes-from kernel\n", "t.conf:2: duplicate \"routes-from\" (first at line 1)" },
	{ "routes-from\n", "t.conf:1: missing \"kernel\" after \"routes-from\"" },
	{ "routes-from fpm\n", "t.conf:1: unknown source \"fpm\" after \"routes-from\" (kernel)" },
	{ "routes-from kernel proto 300\n", "t.conf:1: routes-from proto \"300\" out of range (0..255)" },
	{ "routes-from kernel via x\n", "t.conf:1: unexpected \"via\" after \"routes-from kernel\" (table N, proto P)" },
	{ "sids-from kernel table 100\nroutes-from kernel\n", "t.conf:2: \"routes-from kernel\" takes table main proto any, line 1's \"sids-from kernel\" table 100 proto any (one mirror: give both the same)" },
	{ "routes-from kernel proto zebra\nsids-from kernel proto bgp\n", "t.conf:2: \"sids-from kernel\" takes table main proto 186, line 1's \"routes-from kernel\" table main proto 11 (one mirror: give both the same)" },
	{ "fpm connect ::1\n", "t.conf:1: unknown fpm word \"connect\" (fpm listen ADDR [PORT] [grace SECONDS] [remote])" },
	{ "fpm listen\n", "t.conf:1: missing address after \"fpm listen\"" },
	{ "fpm listen zebra\n", "t.conf:1: bad fpm address \"zebra\" (an IPv4 or IPv6 address)" },
	{ "fpm listen 10.0.0.1\n", "t.conf:1: fpm address \"10.0.0.1\" is not a loopback address: zebra's stream is not authenticated (add \"remote\" to listen there anyway)" },
	{ "fpm listen ::1 0\n", "t.conf:1: fpm port \"0\" out of range (1..65535)" },
	{ "fpm listen ::1 grace\n", "t.conf:1: missing seconds after \"grace\"" },
	{ "fpm listen ::1 grace 3601\n", "t.conf:1: fpm grace \"3601\" out of range (0..3600)" },
	{ "fpm listen ::1 2620 2621\n", "t.conf:1: unexpected \"2621\" after the fpm address (PORT, grace SECONDS, remote)" },
	{ "fpm listen ::1\nfpm listen 127.0.0.1\n", "t.conf:2: duplicate \"fpm\" (first at line 1)" },
	{ "worker-sched fifo\n", "t.conf:1: missing priority after \"worker-sched fifo\" (1..99)" },
	{ "worker-sched fifo 0\n", "t.conf:1: worker-sched priority \"0\" out of range (1..99)" },
	{ "worker-sched fifo 100\n", "t.conf:1: worker-sched priority \"100\" out of range (1..99)" },
	{ "worker-sched fifo 5 6\n", "t.conf:1: \"worker-sched fifo\" takes one priority, unexpected \"6\"" },
	{ "worker-sched other 5\n", "t.conf:1: \"worker-sched other\" takes no priority, unexpected \"5\"" },
	{ "worker-sched\n", "t.conf:1: missing value after \"worker-sched\"" },
	{ "worker-sched other\n\nworker-sched fifo 3\n",
	  "t.conf:3: duplicate \"worker-sched\" (first at line 1)" },
	{ "cpu-affinity 0,,1\n", "t.conf:1: bad CPU list \"0,,1\"" },
	{ "cpu-affinity 0-100\n", "t.conf:1: too many CPUs in \"0-100\" (at most 64)" },
	{ "queue 0-1\n\ncpu-affinity 0\n",
	  "t.conf:3: cpu-affinity lists 1 CPU for 2 queues (one per queue)" },
	{ "cpu-affinity 0,1,2\nqueue 4-5\n",
	  "t.conf:1: cpu-affinity lists 3 CPUs for 2 queues (one per queue)" },
	{ "sid 2001:db8::1 action End.T table 0\n",
	  "t.conf:1: table \"0\" out of range (1..4294967295)" },
	{ "sid 2001:db8::1 action End.T table 4294967296\n",
	  "t.conf:1: table \"4294967296\" out of range (1..4294967295)" },
	{ "sid 2001:db8::1 action End.DT6 vrftable -1\n", "t.conf:1: bad number \"-1\" for vrftable" },
	{ "sid 2001:db8::1 action End flavors next-csid lblen 7\n",
	  "t.conf:1: lblen \"7\" out of range (8..120, multiple of 8)" },
	{ "sid 2001:db8::1 action End flavors next-csid nflen 128\n",
	  "t.conf:1: nflen \"128\" out of range (8..120, multiple of 8)" },
	{ "sid 2001:db8::1 action End flavors next-csid lblen 64 nflen 72\n",
	  "t.conf:1: lblen 64 + nflen 72 exceed 128 bits" },
	/* bad addresses and names */
	{ "sid 2001:db8::1 action End.X nh6 2001:db8::zz\n",
	  "t.conf:1: bad IPv6 address \"2001:db8::zz\" for nh6" },
	{ "sid 2001:db8::1 action End.X nh6 192.0.2.1\n",
	  "t.conf:1: bad IPv6 address \"192.0.2.1\" for nh6" },
	{ "sid 2001:db8::1 action End.DX4 nh4 192.0.2.256\n",
	  "t.conf:1: bad IPv4 address \"192.0.2.256\" for nh4" },
	{ "sid 192.0.2.1 action End\n", "t.conf:1: bad SID prefix \"192.0.2.1\"" },
	{ "sid 2001:db8::/129 action End\n", "t.conf:1: bad prefix length in \"2001:db8::/129\"" },
	{ "sid 2001:db8::/ action End\n", "t.conf:1: bad prefix length in \"2001:db8::/\"" },
	{ "sid 2001:db8::1/64 action End\n",
	  "t.conf:1: SID prefix \"2001:db8::1/64\" has host bits set" },
	{ "encap-source 2001:db8::g\n", "t.conf:1: bad IPv6 address \"2001:db8::g\" for encap-source" },
	{ "encap-source ff02::1\n",
	  "t.conf:1: encap-source \"ff02::1\" is not a global unicast address (multicast)" },
	{ "encap-source ::\n",
	  "t.conf:1: encap-source \"::\" is not a global unicast address (unspecified)" },
	/* issue 9.10: link-local source, non-unicast segments, multicast prefixes */
	{ "encap-source ::1\n",
	  "t.conf:1: encap-source \"::1\" is not a global unicast address (loopback)" },
	{ "encap-source fe80::1\n",
	  "t.conf:1: encap-source \"fe80::1\" is not a global unicast address (link-local)" },
	{ "encap-source FE80::1:2\n",
	  "t.conf:1: encap-source \"FE80::1:2\" is not a global unicast address (link-local)" },
	{ "route 2001:db8::/64 encap seg6 mode encap segs 2001:db8::1,::\n",
	  "t.conf:1: segment \"::\" is unspecified" },
	{ "route 2001:db8::/64 encap seg6 mode encap segs ff02::2,2001:db8::1\n",
	  "t.conf:1: segment \"ff02::2\" is multicast" },
	{ "route 2001:db8::/64 encap seg6 mode inline segs ::1\n",
	  "t.conf:1: segment \"::1\" is loopback" },
	{ "sid 2001:db8::1 action End.B6 srh segs 2001:db8::2,ff0e::1\n",
	  "t.conf:1: segment \"ff0e::1\" is multicast" },
	{ "sid 2001:db8::1 action End.B6.Encaps srh segs 0:0::0:0\n",
	  "t.conf:1: segment \"0:0::0:0\" is unspecified" },
	{ "sid ff02::1 action End\n", "t.conf:1: SID prefix \"ff02::1\" is multicast" },
	{ "sid ff00::/8 action End\n", "t.conf:1: SID prefix \"ff00::/8\" is multicast" },
	{ "sid ::1 action End\n", "t.conf:1: SID \"::1\" is loopback" },
	{ "sid ::/128 action End\n", "t.conf:1: SID \"::/128\" is unspecified" },
	{ "route ff0e::/16 encap seg6 mode encap segs 2001:db8::1\n",
	  "t.conf:1: route prefix \"ff0e::/16\" is multicast" },
	{ "route 224.0.0.0/4 encap seg6 mode encap segs 2001:db8::1\n",
	  "t.conf:1: route prefix \"224.0.0.0/4\" is multicast" },
	{ "route 239.1.2.3 encap seg6 mode encap segs 2001:db8::1\n",
	  "t.conf:1: route prefix \"239.1.2.3\" is multicast" },
	/* issue 9.5: per-instance resources, and tables srv6d must not share */
	{ "steer-chain -X\n",
	  "t.conf:1: bad chain name \"-X\" for steer-chain (1..28 of A-Z a-z 0-9 _ -)" },
	{ "steer-chain a_b-0123456789012345678901234\n",
	  "t.conf:1: bad chain name \"a_b-0123456789012345678901234\" for steer-chain (1..28 of A-Z a-z 0-9 _ -)" },
	{ "steer-chain SRV6D.b\n",
	  "t.conf:1: bad chain name \"SRV6D.b\" for steer-chain (1..28 of A-Z a-z 0-9 _ -)" },
	{ "steer-chain A\nsteer-chain B\n", "t.conf:2: duplicate \"steer-chain\" (first at line 1)" },
	{ "mark-base 0x6d000001\n",
	  "t.conf:1: mark-base \"0x6d000001\" must be non-zero with its low 16 bits clear" },
	{ "mark-base 0x0000\n",
	  "t.conf:1: mark-base \"0x0000\" must be non-zero with its low 16 bits clear" },
	{ "mark-base 1828716544\n",
	  "t.conf:1: bad mark \"1828716544\" for mark-base (0x followed by up to 8 hex digits)" },
	{ "mark-base 0x16d000000\n",
	  "t.conf:1: bad mark \"0x16d000000\" for mark-base (0x followed by up to 8 hex digits)" },
	{ "mark-base 0xg0000\n",
	  "t.conf:1: bad mark \"0xg0000\" for mark-base (0x followed by up to 8 hex digits)" },
	/* issue 8.2: SID prefixes are srv6d's own addresses */
	{ "sid ::/0 action End\n", "t.conf:1: SID prefix \"::/0\" is over-broad (shorter than /16)" },
	{ "sid fe00::/8 action End\n",
	  "t.conf:1: SID prefix \"fe00::/8\" is over-broad (shorter than /16)" },
	{ "sid fe80::/64 action End\n", "t.conf:1: SID prefix \"fe80::/64\" holds link-local addresses" },
	{ "sid ::/96 action End\n",
	  "t.conf:1: SID prefix \"::/96\" holds the loopback and unspecified addresses" },
	/* issue 8.4: the mark bits srv6d owns */
	{ "mark-mask 0x0\n", "t.conf:1: mark-mask \"0x0\" must be non-zero" },
	{ "mark-mask ffff0000\n",
	  "t.conf:1: bad mark \"ffff0000\" for mark-mask (0x followed by up to 8 hex digits)" },
	{ "mark-mask 0x0000ffff\n",
	  "t.conf:1: mark-base 0x6d000000 does not fit mark-mask 0x0000ffff (the base inside the mask, and mask bits below it for the context index)" },
	{ "mark-base 0x10000\nmark-mask 0xffff0000\n",
	  "t.conf:2: mark-base 0x00010000 does not fit mark-mask 0xffff0000 (the base inside the mask, and mask bits below it for the context index)" },
	{ "table-base 254\n", "t.conf:1: table-base \"254\" out of range (255..4294901760)" },
	{ "table-base 4294901761\n",
	  "t.conf:1: table-base \"4294901761\" out of range (255..4294901760)" },
	{ "rule-pref 0\n", "t.conf:1: rule-pref \"0\" out of range (1..65534)" },
	{ "rule-pref 65535\n", "t.conf:1: rule-pref \"65535\" out of range (1..65534)" },
	{ "rule-pref 32765\n", "t.conf:1: rule-pref \"32765\" out of range (1..32764, 32768..65534): "
	  "N and N+1 may not be main's 32766 or default's 32767" },
	{ "rule-pref 32767\n", "t.conf:1: rule-pref \"32767\" out of range (1..32764, 32768..65534): "
	  "N and N+1 may not be main's 32766 or default's 32767" },
	{ "sid 2001:db8::1 action End.T table 254\n",
	  "t.conf:1: table 254 is a reserved table (253 default, 254 main, 255 local)" },
	{ "sid 2001:db8::1 action End.T table 253\n",
	  "t.conf:1: table 253 is a reserved table (253 default, 254 main, 255 local)" },
	{ "sid 2001:db8::1 action End.DT6 vrftable 255\n",
	  "t.conf:1: vrftable 255 is a reserved table (253 default, 254 main, 255 local)" },
	{ "sid 2001:db8::1 action End.T table 4200000001\n",
	  "t.conf:1: table 4200000001 is inside srv6d's own table range 4200000001-4200065535 (table-base)" },
	{ "sid 2001:db8::1 action End.DT6 table 4200065535\n",
	  "t.conf:1: table 4200065535 is inside srv6d's own table range 4200000001-4200065535 (table-base)" },
	{ "# table-base comes after the SID\nsid 2001:db8::1 action End.T table 5001\ntable-base 5000\n",
	  "t.conf:2: table 5001 is inside srv6d's own table range 5001-70535 (table-base)" },
	{ "sid 2001:db8::1 action End.X nh6 2001:db8::2 oif eth0:1\n",
	  "t.conf:1: bad interface name \"eth0:1\" for oif" },
	{ "sid 2001:db8::1 action End.X nh6 2001:db8::2 oif abcdefghijklmnop\n",
	  "t.conf:1: bad interface name \"abcdefghijklmnop\" for oif" },
	{ "route 2001:db8::/64 encap seg6 mode encap segs 2001:db8::1,bad\n",
	  "t.conf:1: bad segment \"bad\"" },
	{ "route 10.0.0.0/33 encap seg6 mode encap segs 2001:db8::1\n",
	  "t.conf:1: bad prefix length in \"10.0.0.0/33\"" },
	{ "route 10.0.0.1/8 encap seg6 mode encap segs 2001:db8::1\n",
	  "t.conf:1: route prefix \"10.0.0.1/8\" has host bits set" },
	{ "route 300.0.0.0/8 encap seg6 mode encap segs 2001:db8::1\n",
	  "t.conf:1: bad route prefix \"300.0.0.0/8\"" },
	/* flavors */
	{ "sid 2001:db8::1 action End flavors psp,bogus\n", "t.conf:1: unknown flavor \"bogus\"" },
	{ "sid 2001:db8::1 action End flavors psp,\n", "t.conf:1: unknown flavor \"\"" },
	{ "sid 2001:db8::1 action End lblen 32\n", "t.conf:1: lblen requires flavors next-csid" },
	{ "sid 2001:db8::1 action End flavors psp nflen 16\n",
	  "t.conf:1: nflen requires flavors next-csid" },
	/* segments */
	{ "sid 2001:db8::1 action End.B6 srh segs " SEGS17 "\n",
	  "t.conf:1: too many segments (17, at most 16)" },
	{ "route 2001:db8::/64 encap seg6 mode encap segs " SEGS17 "\n",
	  "t.conf:1: too many segments (17, at most 16)" },
	{ "sid 2001:db8::1 action End.B6 srh segs 2001:db8::2,,2001:db8::3\n",
	  "t.conf:1: bad segment \"\"" },
	{ "sid 2001:db8::1 action End.B6 srh 2001:db8::2\n",
	  "t.conf:1: expected \"segs\" after \"srh\", got \"2001:db8::2\"" },
	{ "sid 2001:db8::1 action End.B6 srh segs\n", "t.conf:1: missing value after \"segs\"" },
	/* HMAC */
	{ "sid 2001:db8::1 action End.B6 srh segs 2001:db8::2 hmac 7\n",
	  "t.conf:1: hmac key 7 is not defined" },
	{ "sid 2001:db8::1 action End.B6 hmac 7 srh segs 2001:db8::2\n",
	  "t.conf:1: \"hmac\" goes after \"srh segs LIST\"" },
	{ "route 2001:db8::/64 encap seg6 mode encap segs 2001:db8::2 hmac 7\n",
	  "t.conf:1: hmac key 7 is not defined" },
	/* missing values, encap words */
	{ "sid 2001:db8::1 action End.X nh6\n", "t.conf:1: missing value after \"nh6\"" },
	{ "sid 2001:db8::1 action\n", "t.conf:1: missing value after \"action\"" },
	{ "sid 2001:db8::1 encap seg6 action End\n",
	  "t.conf:1: expected \"seg6local\" after \"encap\", got \"seg6\"" },
	{ "route 2001:db8::/64 encap seg6local mode encap segs 2001:db8::1\n",
	  "t.conf:1: expected \"seg6\" after \"encap\", got \"seg6local\"" },
	{ "route 2001:db8::/64 mode encap segs 2001:db8::1\n",
	  "t.conf:1: route requires \"encap seg6\"" },
	{ "route 2001:db8::/64 encap seg6 segs 2001:db8::1\n", "t.conf:1: route requires mode" },
	{ "route 2001:db8::/64 encap seg6 mode encap\n", "t.conf:1: route requires segs" },
	{ "route 2001:db8::/64 encap seg6 mode tunnel segs 2001:db8::1\n",
	  "t.conf:1: unknown mode \"tunnel\"" },
	{ "route 10.1.0.0/16 encap seg6 mode inline segs 2001:db8::1\n",
	  "t.conf:1: mode inline needs an IPv6 prefix, not \"10.1.0.0/16\"" },
	{ "route\n", "t.conf:1: missing prefix after \"route\"" },
	/* verdict-policy queues */
	{ "queue 10 policy\n", "t.conf:1: missing value after \"policy\"" },
	{ "queue 10 policy bounce\n",
	  "t.conf:1: unknown policy \"bounce\" (accept drop repeat requeue hold delay)" },
	{ "queue 10 polic accept\n", "t.conf:1: \"queue\" takes one value, unexpected \"polic\"" },
	{ "queue 10 policy accept mark 0\n", "t.conf:1: mark \"0\": 0 is no mark" },
	{ "queue 10 policy repeat mark 0x1g\n",
	  "t.conf:1: bad mark \"0x1g\" (0x hex or decimal, 32 bits)" },
	{ "queue 10 policy repeat mark\n", "t.conf:1: policy repeat takes \"mark M\" or nothing" },
	{ "queue 10 policy drop now\n", "t.conf:1: unexpected \"now\" after policy drop" },
	{ "queue 10 policy requeue 10\n", "t.conf:1: queue 10 requeues to itself" },
	{ "queue 10 policy requeue\n", "t.conf:1: missing queue after \"requeue\"" },
	/* requeue cycles: named at the line that closes them */
	{ "queue 10 policy requeue 11\nqueue 11 policy requeue 10\n",
	  "t.conf:2: queue 11 requeue 10 -> 11 makes a cycle (every packet would loop forever)" },
	{ "queue 10 policy requeue 11\nqueue 11 policy requeue 12\nqueue 12 policy requeue 10\n",
	  "t.conf:3: queue 12 requeue 10 -> 11 -> 12 makes a cycle (every packet would loop "
	  "forever)" },
	{ "queue 12 policy requeue 10\nqueue 10 policy requeue 12\nqueue 11 policy requeue 10\n"
	  "queue 13 policy requeue 14\nqueue 14 policy requeue 13\n",
	  "t.conf:2: queue 10 requeue 12 -> 10 makes a cycle (every packet would loop forever)" },
	{ "queue 5 policy requeue 10\nqueue 10 policy requeue 11\nqueue 11 policy requeue 10\n",
	  "t.conf:3: queue 11 requeue 10 -> 11 makes a cycle (every packet would loop forever)" },
	{ "queue 10 policy delay 50\n",
	  "t.conf:1: bad duration \"50\" (N ms or N s, e.g. 50ms)" },
	{ "queue 10 policy delay 0ms\n", "t.conf:1: delay \"0ms\" out of range (1ms..3600s)" },
	{ "queue 10 policy delay 3601s\n", "t.conf:1: delay \"3601s\" out of range (1ms..3600s)" },
	{ "queue 10 policy hold\nqueue 10 policy drop\n",
	  "t.conf:2: duplicate policy queue 10 (first at line 1)" },
	{ "queue 0-3\nqueue 2 policy hold\n",
	  "t.conf:2: policy queue 2 is one of the SRv6 queues 0-3 (\"queue\")" },
	{ "queue 70000 policy hold\n", "t.conf:1: queue \"70000\" out of range (0..65535)" },
	/* gso */
	{ "gso yes\n", "t.conf:1: bad value \"yes\" for gso (on or off)" },
	{ "gso on\n", "t.conf:1: gso on needs \"egress inject\" (a rewritten GSO packet cannot "
	  "go back in a verdict)" },
	{ "egress verdict\n\ngso on\n", "t.conf:3: gso on needs \"egress inject\" (a rewritten GSO "
	  "packet cannot go back in a verdict)" },
	{ "gso off\ngso off\n", "t.conf:2: duplicate \"gso\" (first at line 1)" },
	/* line-level */
	{ "sid 2001:db8::1 action End count count count count count count count count count count "
	  "count count count count count count count count count count count count count count "
	  "count count count count count count count count count count count count count count "
	  "count count count count count count count count count count count count count count "
	  "count count count count count count count count count\n",
	  "t.conf:1: too many words (at most 64)" },
};

static void test_gso(void **state)
{
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c;

	(void)state;
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "queue 0\n", err, sizeof(err)), 0);
	assert_false(c.gso);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "gso on\negress inject\n", err,
						sizeof(err)), 0);
	assert_true(c.gso);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "gso off\n", err, sizeof(err)), 0);
	assert_false(c.gso);
	srv6_conf_free(&c);
}

static void test_errors(void **state)
{
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c;
	size_t i;

	for (i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		int rc = srv6_conf_parse_string(&c, "t.conf", err_cases[i].text, err, sizeof(err));

		if (rc != -EINVAL || strcmp(err, err_cases[i].msg))
			fail_msg("case %zu: rc %d\n  got  [%s]\n  want [%s]", i, rc, err,
				 err_cases[i].msg);
		/* a failed parse leaves defaults and nothing to free */
		assert_null(c.sids);
		assert_null(c.routes);
		assert_int_equal(c.nsids, 0);
		assert_int_equal(c.queue_maxlen, SRV6_CONF_QUEUE_MAXLEN_DEF);
		assert_null(strchr(err, '\n'));
	}
}

/* queue N policy ...: every policy, parsed and printed back. */
static void test_policy_queues(void **state)
{
	static const struct {
		const char *line, *fmt;
		enum srv6_pq_policy pol;
	} ok[] = {
		{ "queue 10 policy accept", "accept", SRV6_PQ_ACCEPT },
		{ "queue 11 policy drop", "drop", SRV6_PQ_DROP },
		{ "queue 12 policy repeat mark 0x10", "repeat mark 0x10", SRV6_PQ_REPEAT },
		{ "queue 18 policy repeat", "repeat", SRV6_PQ_REPEAT },
		{ "queue 13 policy requeue 14", "requeue 14", SRV6_PQ_REQUEUE },
		{ "queue 15 policy hold", "hold", SRV6_PQ_HOLD },
		{ "queue 16 policy delay 50ms", "delay 50ms", SRV6_PQ_DELAY },
		{ "queue 19 policy delay 2s", "delay 2s", SRV6_PQ_DELAY },
		{ "queue 17 policy accept mark 32", "accept mark 0x20", SRV6_PQ_ACCEPT },
	};
	char err[SRV6_CONF_ERRLEN], text[1024] = "queue 0-1\n", fmt[64];
	struct srv6_conf c;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		strcat(text, ok[i].line);
		strcat(text, "\n");
	}
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", text, err, sizeof(err)), 0);
	assert_int_equal(c.npqueues, sizeof(ok) / sizeof(ok[0]));
	assert_int_equal(c.queue_first, 0);
	assert_int_equal(c.queue_last, 1);
	for (size_t i = 0; i < c.npqueues; i++) {
		assert_int_equal(c.pqueues[i].policy, ok[i].pol);
		assert_int_equal(c.pqueues[i].line, i + 2);
		srv6_pqueue_format(fmt, sizeof(fmt), &c.pqueues[i]);
		assert_string_equal(fmt, ok[i].fmt);
	}
	assert_int_equal(c.pqueues[2].mark, 0x10);
	assert_true(c.pqueues[2].has_mark);
	assert_false(c.pqueues[3].has_mark);
	assert_int_equal(c.pqueues[4].requeue, 14);
	assert_int_equal(c.pqueues[6].delay_ms, 50);
	assert_int_equal(c.pqueues[7].delay_ms, 2000);
	srv6_conf_free(&c);
	assert_int_equal(c.npqueues, 0);
}

/* requeue chains without a cycle are fine: to a policy queue that gives its
 * own verdict, to a queue srv6d does not serve, into repeat. */
static void test_requeue_chain(void **state)
{
	static const char *const ok[] = {
		"queue 10 policy requeue 11\nqueue 11 policy requeue 12\nqueue 12 policy accept\n",
		"queue 10 policy requeue 99\nqueue 11 policy requeue 10\nqueue 12 policy requeue 10\n",
		"queue 12 policy requeue 11\nqueue 11 policy requeue 10\nqueue 10 policy repeat\n",
	};
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(srv6_conf_parse_string(&c, "t.conf", ok[i], err, sizeof(err)), 0);
		srv6_conf_free(&c);
	}
	/* a cycle through all 64 policy queues: the message is cut, not the line */
	char text[64 * 40] = "", *p = text;

	for (unsigned int q = 0; q < SRV6_CONF_MAX_PQUEUES; q++)
		p += sprintf(p, "queue %u policy requeue %u\n", 1000 + q,
			     1000 + (q + 1) % SRV6_CONF_MAX_PQUEUES);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", text, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:64: queue 1063 requeue 1000 -> 1001 -> "));
	assert_non_null(strstr(err, " -> ... makes a cycle (every packet would loop forever)"));
}

/* The first bad line wins, even when a later line is bad too. */
static void test_first_error_wins(void **state)
{
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c;

	assert_int_equal(srv6_conf_parse_string(&c, "x/srv6d.conf",
						"sid 2001:db8::1 action End\n"
						"sid 2001:db8::1 action End\n"
						"bogus\n", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "x/srv6d.conf:2: duplicate sid 2001:db8::1 (first at line 1)");
	/* errlen bounds the message */
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "bogus\n", err, 8), -EINVAL);
	assert_string_equal(err, "t.conf:");
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "bogus\n", NULL, 0), -EINVAL);
}

/* Per-instance resources: defaults, values, and the tables beside them. */
static void test_instance(void **state)
{
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c;

	if (srv6_conf_parse_string(&c, "t.conf", "sid 2001:db8::1 action End.T table 252\n",
				   err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(c.steer_chain, "SRV6D");
	assert_int_equal(c.mark_base, SRV6_NHCTX_MARK_BASE);
	assert_int_equal(c.table_base, SRV6_NHCTX_TABLE_BASE);
	assert_int_equal(c.rule_pref, SRV6_NHCTX_RULE_PRIO);
	srv6_conf_free(&c);
	if (srv6_conf_parse_string(&c, "t.conf",
				   "steer-chain SRV6D-b_2\n"
				   "mark-base 0x6E0A0000\n"
				   "table-base 5000\n"
				   "rule-pref 32764\n"
				   "sid 2001:db8::1 action End.T table 5000\n"
				   "sid 2001:db8::2 action End.T table 70536\n"
				   "sid 2001:db8::3 action End.DT6 vrftable 4200000001\n",
				   err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(c.steer_chain, "SRV6D-b_2");
	assert_int_equal(c.mark_base, 0x6e0a0000u);
	assert_int_equal(c.table_base, 5000);
	assert_int_equal(c.rule_pref, 32764);
	srv6_conf_free(&c);
	/* the edges of the ranges */
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "table-base 255\nrule-pref 1\n"
						"mark-base 0xffff0000\nsteer-chain a_b-012345678901234567890123\n",
						err, sizeof(err)), 0);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "table-base 4294901760\n",
						err, sizeof(err)), 0);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "rule-pref 32768\n",
						err, sizeof(err)), 0);
	srv6_conf_free(&c);
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf", "rule-pref 65534\n",
						err, sizeof(err)), 0);
	assert_int_equal(c.rule_pref, 65534);
	srv6_conf_free(&c);
}

/* Right beside what issue 9.10 refuses: still accepted. */
static void test_unicast_edges(void **state)
{
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c;

	if (srv6_conf_parse_string(&c, "t.conf",
				   "encap-source fec0::1\n"
				   "sid ::2 action End\n"
				   "sid fe00::/16 action End\n"
				   "route 223.255.255.0/24 encap seg6 mode encap segs fe80::1\n"
				   "route 240.0.0.0/4 encap seg6 mode encap segs ::2\n"
				   "route fd00::/8 encap seg6 mode encap segs fd00::1,2001:db8::1\n"
				   "sid 2001:db8::1 action End.X nh6 fe80::1 oif eth0\n",
				   err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(c.nsids, 3);
	assert_int_equal(c.nroutes, 3);
	srv6_conf_free(&c);
}

/* Limits that are valid right at the edge. */
static void test_edges(void **state)
{
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c;

	if (srv6_conf_parse_string(&c, "t.conf",
				   "sid 2001:db8::1 action End.B6 srh segs " SEGS16 "\n"
				   "route 2001:db8::/64 encap seg6 mode encap segs " SEGS16 "\n"
				   "sid 2001:db8::2 action End.T table 4294967295\n"
				   "sid 2001:db8::3 action End flavors next-csid lblen 120 nflen 8\n"
				   "sid 2001::/16 action End\n"
				   "route 0.0.0.0/0 encap seg6 mode encap segs 2001:db8::1\n"
				   "route ::/0 encap seg6 mode inline segs 2001:db8::1\n"
				   "sid 2001:db8::4 action End.X nh6 fe80::1 oif abcdefghijklmno\n",
				   err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(c.sids[0].cfg.nsegs, SRV6_MAX_SEGS);
	assert_int_equal(c.routes[0].pol.nsegs, SRV6_MAX_SEGS);
	assert_int_equal(c.sids[1].cfg.table, 4294967295u);
	assert_int_equal(c.sids[2].cfg.lblen, 120);
	assert_int_equal(c.sids[2].cfg.nflen, 8);
	assert_int_equal(c.sids[3].plen, 16);
	assert_int_equal(c.routes[1].family, AF_INET);
	assert_int_equal(c.routes[1].plen, 0);
	assert_string_equal(c.sids[4].cfg.oif_name, "abcdefghijklmno");
	roundtrip_sid(&c.sids[0].prefix, c.sids[0].plen, &c.sids[0].cfg);
	roundtrip_sid(&c.sids[3].prefix, c.sids[3].plen, &c.sids[3].cfg);
	roundtrip_route(&c.routes[0]);
	roundtrip_route(&c.routes[1]);
	roundtrip_route(&c.routes[2]);
	srv6_conf_free(&c);

	/* next-csid without lengths takes the defaults */
	assert_int_equal(srv6_conf_parse_string(&c, "t.conf",
						"sid 2001:db8::/48 action End.X nh6 2001:db8::2 "
						"flavors next-csid,psp\n", err, sizeof(err)), 0);
	assert_int_equal(c.sids[0].cfg.lblen, SRV6_CSID_LBLEN_DEFAULT);
	assert_int_equal(c.sids[0].cfg.nflen, SRV6_CSID_NFLEN_DEFAULT);
	assert_int_equal(c.sids[0].cfg.flavors,
			 SRV6_F_FLV(SRV6_FLV_NEXT_CSID) | SRV6_F_FLV(SRV6_FLV_PSP));
	srv6_conf_free(&c);
}

/* ---- round trip for every action --------------------------------------- */

/* Words for one attribute, as an operator writes them. */
static const char *attr_words(enum srv6_attr a)
{
	switch (a) {
	case SRV6_ATTR_SRH:      return "srh segs 2001:db8:aa::1,2001:db8:aa::2,2001:db8:aa::3";
	case SRV6_ATTR_TABLE:    return "table 100";
	case SRV6_ATTR_VRFTABLE: return "vrftable 4242";
	case SRV6_ATTR_NH4:      return "nh4 192.0.2.7";
	case SRV6_ATTR_NH6:      return "nh6 2001:db8:2::2";
	case SRV6_ATTR_OIF:      return "oif veth1";
	case SRV6_ATTR_FLAVORS:  return NULL;   /* built from flavors_allowed */
	default:                 return NULL;
	}
}

/* Parse "sid PFX action NAME <attrs>" built from the descriptor, then round-trip it. */
static int rt_one(const struct srv6_action_desc *d, uint32_t attrs, uint32_t flavors,
		  const char *extra)
{
	char line[1024], err[SRV6_CONF_ERRLEN], *argv[64];
	struct srv6_sid_cfg cfg;
	struct in6_addr pfx;
	uint8_t plen;
	int a, f, argc;

	snprintf(line, sizeof(line), "2001:db8:ff::%x/128 action %s", d->action, d->name);
	for (a = 0; a < SRV6_ATTR_MAX; a++) {
		if (!(attrs & SRV6_F_ATTR(a)) || a == SRV6_ATTR_FLAVORS)
			continue;
		assert_non_null(attr_words((enum srv6_attr)a));
		strcat(line, " ");
		strcat(line, attr_words((enum srv6_attr)a));
	}
	if (flavors) {
		const char *sep = " flavors ";

		for (f = SRV6_FLV_MAX - 1; f >= 0; f--) {   /* any order parses */
			if (!(flavors & SRV6_F_FLV(f)))
				continue;
			strcat(line, sep);
			strcat(line, srv6_flavor_name((enum srv6_flavor)f));
			sep = ",";
		}
	}
	if (extra)
		strcat(line, extra);
	argc = words(line, argv, 64);
	if (srv6_sid_parse_words(argc, argv, &pfx, &plen, &cfg, err, sizeof(err)))
		fail_msg("%s: %s", d->name, err);
	assert_int_equal(cfg.action, d->action);
	assert_int_equal(cfg.flavors, flavors);
	roundtrip_sid(&pfx, plen, &cfg);
	return 1;
}

static void test_roundtrip_every_action(void **state)
{
	int act, tested = 0, f;

	for (act = 0; act < SRV6_ACT_MAX; act++) {
		const struct srv6_action_desc *d = srv6_action_desc_get((enum srv6_action)act);
		uint32_t opt, one;

		if (!d)
			continue;
		assert_int_equal(srv6_action_from_name(d->name), act);
		opt = d->optional_attrs & ~d->one_of_attrs &
		      ~SRV6_F_ATTR(SRV6_ATTR_FLAVORS);
		if (!d->one_of_attrs) {
			/* required only, then required + every optional attribute */
			tested += rt_one(d, d->required_attrs, 0, NULL);
			if (opt)
				tested += rt_one(d, d->required_attrs | opt, 0, NULL);
		}
		/* one-of sets: each member alone */
		for (one = d->one_of_attrs; one; one &= one - 1)
			tested += rt_one(d, d->required_attrs | opt | (one & -one), 0, NULL);
		/* every flavor alone, then all flavors the action takes together */
		if (d->optional_attrs & SRV6_F_ATTR(SRV6_ATTR_FLAVORS)) {
			uint32_t base = d->required_attrs | opt;

			if (d->one_of_attrs)
				base |= d->one_of_attrs & -d->one_of_attrs;
			for (f = 0; f < SRV6_FLV_MAX; f++)
				if (d->flavors_allowed & SRV6_F_FLV(f))
					tested += rt_one(d, base, SRV6_F_FLV(f), NULL);
			tested += rt_one(d, base, d->flavors_allowed, NULL);
			if (d->flavors_allowed & SRV6_F_FLV(SRV6_FLV_NEXT_CSID))
				tested += rt_one(d, base, SRV6_F_FLV(SRV6_FLV_NEXT_CSID),
						 " lblen 48 nflen 24");
		}
	}
	/* End, End.X, End.T, End.DX2/4/6, End.DT4/6/46, End.B6, End.B6.Encaps(.Red) */
	assert_true(tested >= 20);
}

/* Keyword names agree with the engine's attribute names. */
static void test_attr_names(void **state)
{
	char err[SRV6_CONF_ERRLEN], line[256], *argv[16];
	struct srv6_sid_cfg cfg;
	struct in6_addr pfx;
	uint8_t plen;
	int a, argc;

	for (a = 0; a < SRV6_ATTR_MAX; a++) {
		/* End takes none but flavors: "End does not take <name>" proves the
		 * keyword exists and parses (flavors is taken, so skip it). */
		if (a == SRV6_ATTR_FLAVORS)
			continue;
		snprintf(line, sizeof(line), "2001:db8::1 action End %s",
			 attr_words((enum srv6_attr)a));
		argc = words(line, argv, 16);
		assert_int_equal(srv6_sid_parse_words(argc, argv, &pfx, &plen, &cfg, err,
						      sizeof(err)), -EINVAL);
		snprintf(line, sizeof(line), "End does not take %s%s",
			 srv6_attr_name((enum srv6_attr)a), a == SRV6_ATTR_TABLE ?
			 " (a route-level \"table N\" is not supported: srv6d's SIDs are not per "
			 "routing table)" : "");
		assert_string_equal(err, line);
	}
}

/* ---- iproute2-pasted lines -------------------------------------------- */

static void test_iproute2_paste(void **state)
{
	static const char text[] =
		"sid 2001:db8:ff::1 encap seg6local action End dev eth0\n"
		"sid 2001:db8:ff::3 encap seg6local action End.X nh6 2001:db8:2::2 oif eth1 dev eth1 count\n"
		"sid 2001:db8:ff::4 action End.T table 100 count dev eth0\n"
		"sid 2001:db8:ff::5 dev eth0 encap seg6local action End.DX6 nh6 2001:db8:2::2\n"
		"sid 2001:db8:ff::7 action End.B6 srh segs 2001:db8:aa::1,2001:db8:aa::2 dev eth0\n"
		"sid 2001:db8:100::/48 encap seg6local action End flavors next-csid lblen 32 nflen 16 count dev eth0\n"
		"route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:ff::1,2001:db8:aa::1 dev eth0\n"
		"route 2001:db8:98::/64 dev eth0 encap seg6 mode inline segs 2001:db8:aa::1 count\n"
		"route 198.51.100.0/24 encap seg6 mode encap.red segs 2001:db8:aa::1 dev eth0\n";
	static const char plain[] =
		"sid 2001:db8:ff::1 action End\n"
		"sid 2001:db8:ff::3 action End.X nh6 2001:db8:2::2 oif eth1\n"
		"sid 2001:db8:ff::4 action End.T table 100\n"
		"sid 2001:db8:ff::5 action End.DX6 nh6 2001:db8:2::2\n"
		"sid 2001:db8:ff::7 action End.B6 srh segs 2001:db8:aa::1,2001:db8:aa::2\n"
		"sid 2001:db8:100::/48 action End flavors next-csid lblen 32 nflen 16\n"
		"route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:ff::1,2001:db8:aa::1\n"
		"route 2001:db8:98::/64 encap seg6 mode inline segs 2001:db8:aa::1\n"
		"route 198.51.100.0/24 encap seg6 mode encap.red segs 2001:db8:aa::1\n";
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c, p;
	size_t i;

	if (srv6_conf_parse_string(&c, "t.conf", text, err, sizeof(err)))
		fail_msg("%s", err);
	if (srv6_conf_parse_string(&p, "t.conf", plain, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(c.nsids, 6);
	assert_int_equal(c.nroutes, 3);
	assert_int_equal(c.nsids, p.nsids);
	assert_int_equal(c.nroutes, p.nroutes);
	/* dev has the kernel's meaning (outer source selection): kept, and
	 * the only difference from the plain lines */
	for (i = 0; i < c.nsids; i++) {
		assert_memory_equal(&c.sids[i].prefix, &p.sids[i].prefix, 16);
		assert_int_equal(c.sids[i].plen, p.sids[i].plen);
		assert_string_equal(c.sids[i].cfg.dev_name, i == 1 ? "eth1" : "eth0");
		assert_false(srv6_sid_cfg_equal(&c.sids[i].cfg, &p.sids[i].cfg));
		memset(c.sids[i].cfg.dev_name, 0, sizeof(c.sids[i].cfg.dev_name));
		assert_true(srv6_sid_cfg_equal(&c.sids[i].cfg, &p.sids[i].cfg));
	}
	for (i = 0; i < c.nroutes; i++) {
		assert_int_equal(c.routes[i].family, p.routes[i].family);
		assert_int_equal(c.routes[i].plen, p.routes[i].plen);
		assert_string_equal(c.routes[i].pol.dev_name, "eth0");
		assert_false(srv6_policy_equal(&c.routes[i].pol, &p.routes[i].pol));
		memset(c.routes[i].pol.dev_name, 0, sizeof(c.routes[i].pol.dev_name));
		assert_true(srv6_policy_equal(&c.routes[i].pol, &p.routes[i].pol));
	}
	assert_string_equal(c.sids[1].cfg.oif_name, "eth1");   /* oif kept apart from dev */
	{
		/* dev round-trips through the canonical line */
		char line[SRV6_CONF_LINE_MAX];
		struct srv6_conf_sid *sd = &c.sids[4];

		strcpy(sd->cfg.dev_name, "eth9");
		assert_true(srv6_sid_format(line, sizeof(line), &sd->prefix, sd->plen, &sd->cfg) > 0);
		assert_non_null(strstr(line, " dev eth9"));
		assert_true(srv6_route_format(line, sizeof(line), &p.routes[0]) > 0);
		assert_null(strstr(line, " dev "));
	}
	assert_int_equal(c.routes[2].family, AF_INET);
	assert_int_equal(c.routes[2].pol.mode, SRV6_MODE_ENCAP_RED);
	srv6_conf_free(&c);
	srv6_conf_free(&p);
}

/* iproute2's spellings: table names and hex, flavors in any case, the
 * route-level words of `ip -6 route show` output. */
static void test_iproute2_compat(void **state)
{
	static const struct { const char *text, *msg; } errs[] = {
		{ "sid 2001:db8::1 action End table 100\n",
		  "t.conf:1: End does not take table (a route-level \"table N\" is not supported: "
		  "srv6d's SIDs are not per routing table)" },
		{ "sid 2001:db8::1 action End.T table 100 table 200\n",
		  "t.conf:1: duplicate \"table\" (a route-level \"table N\" is not supported: "
		  "srv6d's SIDs are not per routing table)" },
		{ "route 2001:db8::/64 encap seg6 mode encap segs 2001:db8::1 table 100\n",
		  "t.conf:1: route-level \"table\" is not supported (srv6d's policies are not per "
		  "routing table)" },
		{ "sid 2001:db8::1 action End.T table main\n",
		  "t.conf:1: table 254 is a reserved table (253 default, 254 main, 255 local)" },
		{ "sid 2001:db8::1 action End.T table 0xfe\n",
		  "t.conf:1: table 254 is a reserved table (253 default, 254 main, 255 local)" },
		{ "sid 2001:db8::1 action End.T table 0x\n",
		  "t.conf:1: bad table \"0x\" for table (decimal, 0x hex or a name of rt_tables)" },
		{ "sid 2001:db8::1 action End.T table 0x0\n",
		  "t.conf:1: table \"0x0\" out of range (1..4294967295)" },
		{ "sid 2001:db8::1 action End.DT6 vrftable no-such-table-xyz\n",
		  "t.conf:1: unknown table \"no-such-table-xyz\" for vrftable (not a number nor a name "
		  "of rt_tables)" },
		{ "sid 2001:db8::1 action End metric 1 metric 2\n", "t.conf:1: duplicate \"metric\"" },
		{ "sid 2001:db8::1 action End pref\n", "t.conf:1: missing value after \"pref\"" },
		{ "sid 2001:db8::1 action End flavors PSP,psp\n", "t.conf:1: duplicate flavor \"psp\"" },
	};
	static const char rt[] = "# comment\n255\tlocal\n0x64 blue # hex id\n 200  red\n#7 hidden\n";
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c;
	uint32_t id = 0;

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		int rc = srv6_conf_parse_string(&c, "t.conf", errs[i].text, err, sizeof(err));

		if (rc != -EINVAL || strcmp(err, errs[i].msg))
			fail_msg("case %zu: rc %d\n  got  [%s]\n  want [%s]", i, rc, err, errs[i].msg);
	}
	/* rt_tables text */
	assert_int_equal(srv6_rt_tables_find(rt, "blue", &id), 0);
	assert_int_equal(id, 100);
	assert_int_equal(srv6_rt_tables_find(rt, "red", &id), 0);
	assert_int_equal(id, 200);
	assert_int_equal(srv6_rt_tables_find(rt, "local", &id), 0);
	assert_int_equal(id, 255);
	assert_int_equal(srv6_rt_tables_find(rt, "hidden", &id), -ENOENT);
	assert_int_equal(srv6_rt_tables_find(rt, "comment", &id), -ENOENT);
	assert_int_equal(srv6_rt_table_lookup("main", &id), 0);
	assert_int_equal(id, 254);

	/* hex, mixed-case flavors, route-level words with a warning */
	if (srv6_conf_parse_string(&c, "t.conf",
				   "sid 2001:db8::1 action End.T table 0x64 flavors PSP,USD\n"
				   "sid 2001:db8::2 encap seg6local action End dev eth0 proto static "
				   "metric 1024 pref medium\n"
				   "route 2001:db8:9::/64 encap seg6 mode encap segs 2001:db8::1 metric 5\n",
				   err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(c.sids[0].cfg.table, 100);
	assert_int_equal(c.sids[0].cfg.flavors, SRV6_F_FLV(SRV6_FLV_PSP) | SRV6_F_FLV(SRV6_FLV_USD));
	/* a policy is a kernel route: its metric is taken, no warning */
	assert_int_equal(c.nwarnings, 1);
	assert_string_equal(c.warning, "t.conf:2: route-level \"proto\" \"static\" ignored (srv6d "
			    "has no routing metric, protocol or preference)");
	assert_true(c.routes[0].has_metric);
	assert_int_equal(srv6_route_metric(&c.routes[0]), 5);
	srv6_conf_free(&c);
	{
		static const struct {
			const char *line;
			int ok;
			uint32_t metric;
		} mv[] = {
			{ "route 2001:db8:9::/64 encap seg6 mode encap segs 2001:db8::1\n", 1, 1024 },
			{ "route 10.1.0.0/16 encap seg6 mode encap segs 2001:db8::1\n", 1, 0 },
			{ "route 2001:db8:9::/64 encap seg6 mode encap segs 2001:db8::1 metric 0\n", 1, 1024 },
			{ "route 10.1.0.0/16 encap seg6 mode encap segs 2001:db8::1 metric 0\n", 1, 0 },
			{ "route 2001:db8:9::/64 encap seg6 mode encap segs 2001:db8::1 metric 4294901759\n", 1, 4294901759u },
			{ "route 2001:db8:9::/64 encap seg6 mode encap segs 2001:db8::1 metric 4294901760\n", 0, 0 },
			{ "route 2001:db8:9::/64 encap seg6 mode encap segs 2001:db8::1 metric -1\n", 0, 0 },
			{ "route 2001:db8:9::/64 encap seg6 mode encap segs 2001:db8::1 metric x\n", 0, 0 },
			{ "route 2001:db8:9::/64 encap seg6 mode encap segs 2001:db8::1 metric 1 metric 2\n", 0, 0 },
		};

		for (size_t i = 0; i < sizeof(mv) / sizeof(mv[0]); i++) {
			int r = srv6_conf_parse_string(&c, "m.conf", mv[i].line, err, sizeof(err));

			if (mv[i].ok) {
				if (r)
					fail_msg("%s: %s", mv[i].line, err);
				assert_int_equal(srv6_route_metric(&c.routes[0]), mv[i].metric);
				srv6_conf_free(&c);
			} else if (!r) {
				fail_msg("accepted: %s", mv[i].line);
			}
		}
	}
	assert_int_equal(c.nwarnings, 0);
	{
		char *argv[] = { "2001:db8::3", "action", "End", "metric", "7" };
		struct srv6_sid_cfg cfg;
		struct in6_addr pfx;
		uint8_t plen;

		assert_int_equal(srv6_sid_parse_words(5, argv, &pfx, &plen, &cfg, err, sizeof(err)), 0);
		assert_string_equal(err, "route-level \"metric\" \"7\" ignored (srv6d has no routing "
				    "metric, protocol or preference)");
		assert_int_equal(srv6_sid_parse_words(3, argv, &pfx, &plen, &cfg, err, sizeof(err)), 0);
		assert_string_equal(err, "");
	}
}

/* ---- the API srv6ctl uses ---------------------------------------------- */

static void test_words_and_format(void **state)
{
	char *argv[] = { "2001:db8:ff::3", "action", "End.X", "nh6", "2001:db8:2::2",
			 "oif", "eth1", "flavors", "usd,psp" };
	char buf[SRV6_CONF_LINE_MAX], small[16], err[SRV6_CONF_ERRLEN];
	struct srv6_sid_cfg cfg, other;
	struct srv6_conf_route r;
	struct in6_addr pfx;
	uint8_t plen;
	int n;

	assert_int_equal(srv6_sid_parse_words(9, argv, &pfx, &plen, &cfg, err, sizeof(err)), 0);
	assert_string_equal(argv[2], "End.X");   /* argv untouched */
	n = srv6_sid_format(buf, sizeof(buf), &pfx, plen, &cfg);
	assert_string_equal(buf, "sid 2001:db8:ff::3 action End.X nh6 2001:db8:2::2 oif eth1 "
				 "flavors psp,usd");
	assert_int_equal(n, strlen(buf));
	/* too small: -ENOSPC, truncated, terminated */
	assert_int_equal(srv6_sid_format(small, sizeof(small), &pfx, plen, &cfg), -ENOSPC);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(srv6_sid_format(buf, (size_t)n, &pfx, plen, &cfg), -ENOSPC);
	assert_int_equal(srv6_sid_format(buf, (size_t)n + 1, &pfx, plen, &cfg), n);
	/* unknown action */
	other = cfg;
	other.action = SRV6_ACT_UNSPEC;
	assert_int_equal(srv6_sid_format(buf, sizeof(buf), &pfx, plen, &other), -EINVAL);

	/* equality looks at configured values only */
	other = cfg;
	other.oif = 7;
	other.mark = 99;
	assert_true(srv6_sid_cfg_equal(&cfg, &other));
	other.oif_name[3] = '2';
	assert_false(srv6_sid_cfg_equal(&cfg, &other));
	other = cfg;
	other.flavors &= ~SRV6_F_FLV(SRV6_FLV_USD);
	assert_false(srv6_sid_cfg_equal(&cfg, &other));
	other = cfg;
	other.nh6.s6_addr[15] ^= 1;
	assert_false(srv6_sid_cfg_equal(&cfg, &other));

	/* no prefix */
	assert_int_equal(srv6_sid_parse_words(0, argv, &pfx, &plen, &cfg, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "missing SID prefix after \"sid\"");

	/* routes */
	{
		char *rv[] = { "2001:db8:99::/64", "encap", "seg6", "mode", "encap.red",
			       "segs", "2001:db8:ff::1" };
		char *l2[] = { "2001:db8:99::/64", "encap", "seg6", "mode", "l2encap.red",
			       "segs", "2001:db8:ff::1" };

		assert_int_equal(srv6_route_parse_words(7, rv, &r, err, sizeof(err)), 0);
		assert_int_equal(r.line, 0);
		assert_int_equal(srv6_route_format(buf, sizeof(buf), &r),
				 strlen("route 2001:db8:99::/64 encap seg6 mode encap.red "
					"segs 2001:db8:ff::1"));
		assert_string_equal(buf, "route 2001:db8:99::/64 encap seg6 mode encap.red "
					 "segs 2001:db8:ff::1");
		roundtrip_route(&r);
		/* L2 modes need an Ethernet header NFQUEUE does not carry */
		assert_int_equal(srv6_route_parse_words(7, l2, &r, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, "mode \"l2encap.red\" is not supported on routes "
					 "(NFQUEUE carries no Ethernet header)");
	}
}

/* ---- files ------------------------------------------------------------ */

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_files(void **state)
{
	char dir[] = "/tmp/test_conf.XXXXXX", path[64], err[SRV6_CONF_ERRLEN], want[128];
	static const char nul[] = "queue 0\nsteer a\0uto\n";
	struct srv6_conf c;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing.conf", dir);
	assert_int_equal(srv6_conf_parse_file(&c, path, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(err, want);
	assert_null(c.sids);

	assert_int_equal(srv6_conf_parse_file(&c, dir, err, sizeof(err)), -EISDIR);

	snprintf(path, sizeof(path), "%s/nul.conf", dir);
	write_file(path, nul, sizeof(nul) - 1);
	assert_int_equal(srv6_conf_parse_file(&c, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:2: NUL byte in line", path);
	assert_string_equal(err, want);
	unlink(path);

	/* no trailing newline; the error names the file as given */
	snprintf(path, sizeof(path), "%s/srv6d.conf", dir);
	write_file(path, "queue 1\nsid 2001:db8::1 action End.X", 36);
	assert_int_equal(srv6_conf_parse_file(&c, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:2: End.X requires nh6", path);
	assert_string_equal(err, want);
	write_file(path, "queue 1\nsid 2001:db8::1 action End", 34);
	assert_int_equal(srv6_conf_parse_file(&c, path, err, sizeof(err)), 0);
	assert_int_equal(c.nsids, 1);
	assert_int_equal(c.queue_first, 1);
	srv6_conf_free(&c);
	unlink(path);

	/* many SIDs: arrays and the duplicate set grow */
	{
		size_t n = 5000, i, len = 0;
		char *big = malloc(n * 48 + 64);

		assert_non_null(big);
		for (i = 0; i < n; i++)
			len += (size_t)sprintf(big + len, "sid 2001:db8:%zx::%zx action End\n",
					       i / 256, i % 256 + 1);
		len += (size_t)sprintf(big + len, "sid 2001:db8:1::2 action End\n");
		write_file(path, big, len);
		assert_int_equal(srv6_conf_parse_file(&c, path, err, sizeof(err)), -EINVAL);
		snprintf(want, sizeof(want), "%s:5001: duplicate sid 2001:db8:1::2 (first at line 258)",
			 path);
		assert_string_equal(err, want);
		write_file(path, big, len - strlen("sid 2001:db8:1::2 action End\n"));
		assert_int_equal(srv6_conf_parse_file(&c, path, err, sizeof(err)), 0);
		assert_int_equal(c.nsids, n);
		assert_int_equal(c.sids[n - 1].line, n);
		srv6_conf_free(&c);
		free(big);
		unlink(path);
	}
	rmdir(dir);
}

/* srv6_origin_where: what every log line about an entry says it came from */
static void test_origin_where(void **state)
{
	char b[64], small[8];

	(void)state;
	assert_string_equal(srv6_origin_where("/etc/srv6d.conf", SRV6_ORIGIN_CONF, 12, b, sizeof(b)),
			    "/etc/srv6d.conf:12");
	assert_string_equal(srv6_origin_where("/etc/srv6d.conf", SRV6_ORIGIN_CONF, 0, b, sizeof(b)),
			    "srv6ctl");
	assert_string_equal(srv6_origin_where("x", SRV6_ORIGIN_FPM, 7, b, sizeof(b)), "fpm");
	assert_string_equal(srv6_origin_where("x", SRV6_ORIGIN_KERNEL, 0, b, sizeof(b)), "kernel");
	/* truncated, terminated */
	assert_string_equal(srv6_origin_where("/etc/srv6d.conf", SRV6_ORIGIN_CONF, 3, small,
					      sizeof(small)), "/etc/sr");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example_file),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_globals),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_gso),
		cmocka_unit_test(test_first_error_wins),
		cmocka_unit_test(test_policy_queues),
		cmocka_unit_test(test_requeue_chain),
		cmocka_unit_test(test_instance),
		cmocka_unit_test(test_unicast_edges),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_roundtrip_every_action),
		cmocka_unit_test(test_attr_names),
		cmocka_unit_test(test_iproute2_paste),
		cmocka_unit_test(test_iproute2_compat),
		cmocka_unit_test(test_words_and_format),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_origin_where),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
