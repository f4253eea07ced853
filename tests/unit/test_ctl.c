// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_ctl.c - the control protocol's pure half: the request parser (every
 * row of the command table, the default command, options, every error),
 * the kernel's queue counters, and import's ip-route-show lines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv6d/conf.h"
#include "srv6d/ctl.h"
#include "srv6d/nfqstat.h"
#include "srv6d/sbuf.h"

static int parse(const char *line, bool local, struct srv6_ctl_req *req, char *err)
{
	static char buf[SRV6_CTL_REQ_MAX * 2];

	snprintf(buf, sizeof(buf), "%s", line);
	err[0] = '\0';
	return srv6_ctl_parse(buf, strlen(buf), local, req, err, SRV6_CTL_ERRLEN);
}

static void test_every_row(void **state)
{
	char line[256], err[SRV6_CTL_ERRLEN];
	const struct srv6_ctl_cmd *t;
	struct srv6_ctl_req req;
	size_t n;

	t = srv6_ctl_cmds(&n);
	assert_int_equal(n, SRV6_CTL_OP_MAX);
	for (size_t i = 0; i < n; i++) {
		int len;

		assert_int_equal(t[i].op, (int)i);
		len = snprintf(line, sizeof(line), "%s%s%s", t[i].object, t[i].command ? " " : "",
			       t[i].command ? t[i].command : "");
		for (unsigned int a = 0; a < t[i].min_args; a++)
			len += snprintf(line + len, sizeof(line) - (size_t)len, " w%u", a);
		strcat(line, "\n");
		if (parse(line, true, &req, err))
			fail_msg("%s: %s", line, err);
		assert_ptr_equal(req.cmd, &t[i]);
		assert_int_equal(req.argc, (int)t[i].min_args);
		/* the daemon refuses local rows */
		if (t[i].flags & SRV6_CTL_F_LOCAL)
			assert_int_equal(parse(line, false, &req, err), -EINVAL);
		/* -j only where the row has JSON */
		snprintf(line, sizeof(line), "-j %s %s", t[i].object, t[i].command ? t[i].command : "");
		if (!t[i].min_args)
			assert_int_equal(parse(line, true, &req, err) == 0,
					 !!(t[i].flags & SRV6_CTL_F_JSON));
	}
}

static void test_requests(void **state)
{
	char err[SRV6_CTL_ERRLEN];
	struct srv6_ctl_req req;

	assert_int_equal(parse("-s -j sid show fc00::1\n", false, &req, err), 0);
	assert_int_equal(req.cmd->op, SRV6_CTL_SID_SHOW);
	assert_true(req.json && req.stats);
	assert_int_equal(req.argc, 1);
	assert_string_equal(req.argv[0], "fc00::1");
	/* OBJECT alone and OBJECT -opt mean OBJECT show */
	assert_int_equal(parse("sid", false, &req, err), 0);
	assert_int_equal(req.cmd->op, SRV6_CTL_SID_SHOW);
	assert_int_equal(parse("stats --format prometheus", false, &req, err), 0);
	assert_int_equal(req.cmd->op, SRV6_CTL_STATS_SHOW);
	assert_int_equal(req.argc, 2);
	assert_int_equal(parse("\tsid  add fc00::1\taction End  \n", false, &req, err), 0);
	assert_int_equal(req.cmd->op, SRV6_CTL_SID_ADD);
	assert_int_equal(req.argc, 3);
	assert_string_equal(req.argv[2], "End");
	assert_int_equal(parse("status\n", false, &req, err), 0);
	assert_int_equal(req.cmd->op, SRV6_CTL_STATUS);
}

static void test_errors(void **state)
{
	static const struct { const char *line, *msg; int rc; } cases[] = {
		{ "", "missing object", -EINVAL },
		{ "\n", "missing object", -EINVAL },
		{ "-j", "missing object", -EINVAL },
		{ "-x sid show", "unknown option \"-x\"", -EINVAL },
		{ "bogus", "unknown object \"bogus\"", -EINVAL },
		{ "sid bogus", "unknown command \"bogus\" for sid", -EINVAL },
		{ "sid show a b", "sid show: too many arguments (usage: sid show [SID])", -EINVAL },
		{ "sid add fc00::1", "sid add: missing arguments (usage: sid add SID action NAME "
		  "[ATTR...])", -EINVAL },
		{ "sid del", "sid del: missing arguments (usage: sid del SID)", -EINVAL },
		{ "status extra", "status: too many arguments (usage: status)", -EINVAL },
		{ "-j reload", "reload has no JSON output", -EINVAL },
		{ "-s queue show", "queue show takes no -s", -EINVAL },
		{ "import", "import runs in srv6ctl, not in srv6d", -EINVAL },
		{ "sid show\001", "bad byte 0x01 at offset 8 of the request", -EINVAL },
		{ "sid\nshow\n", "bad byte 0x0a at offset 3 of the request", -EINVAL },
		{ "status\xff", "bad byte 0xff at offset 6 of the request", -EINVAL },
	};
	char err[SRV6_CTL_ERRLEN];
	struct srv6_ctl_req req;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = parse(cases[i].line, false, &req, err);

		if (rc != cases[i].rc || strcmp(err, cases[i].msg))
			fail_msg("case %zu: rc %d [%s], want [%s]", i, rc, err, cases[i].msg);
		assert_null(req.cmd);
	}
}

static void test_limits(void **state)
{
	char buf[SRV6_CTL_REQ_MAX + 8], err[SRV6_CTL_ERRLEN];
	struct srv6_ctl_req req;
	size_t len;

	/* exactly the limit with its '\n': fine; one more byte: too long */
	memset(buf, ' ', sizeof(buf));
	memcpy(buf, "status", 6);
	buf[SRV6_CTL_REQ_MAX - 1] = '\n';
	assert_int_equal(srv6_ctl_parse(buf, SRV6_CTL_REQ_MAX, false, &req, err, sizeof(err)), 0);
	memset(buf, ' ', sizeof(buf));
	memcpy(buf, "status", 6);
	assert_int_equal(srv6_ctl_parse(buf, SRV6_CTL_REQ_MAX, false, &req, err, sizeof(err)),
			 -E2BIG);
	assert_string_equal(err, "request too long (at most 4096 bytes)");
	assert_int_equal(srv6_ctl_parse(buf, SRV6_CTL_REQ_MAX + 1, false, &req, err, sizeof(err)),
			 -E2BIG);
	/* 64 words fine, 65 not */
	len = (size_t)snprintf(buf, sizeof(buf), "sid add fc00::1 action End");
	for (int i = 5; i < SRV6_CTL_MAX_WORDS; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, " count");
	assert_int_equal(srv6_ctl_parse(buf, len, false, &req, err, sizeof(err)), 0);
	assert_int_equal(req.argc, SRV6_CTL_MAX_WORDS - 2);
	len = (size_t)snprintf(buf, sizeof(buf), "sid add fc00::1 action End");
	for (int i = 5; i <= SRV6_CTL_MAX_WORDS; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, " count");
	assert_int_equal(srv6_ctl_parse(buf, len, false, &req, err, sizeof(err)), -E2BIG);
	assert_string_equal(err, "too many words (at most 64)");
}

static void test_usage(void **state)
{
	char *text = NULL;
	size_t len = 0, n;
	FILE *f = open_memstream(&text, &len);
	const struct srv6_ctl_cmd *t = srv6_ctl_cmds(&n);

	srv6_ctl_usage(f, "srv6ctl");
	fclose(f);
	for (size_t i = 0; i < n; i++) {
		char want[96];

		snprintf(want, sizeof(want), "  %s%s%s", t[i].object, t[i].command ? " " : "",
			 t[i].command ? t[i].command : "");
		assert_non_null(strstr(text, want));
		assert_non_null(strstr(text, t[i].help));
	}
	free(text);
}

static void test_nfq_proc(void **state)
{
	static const char text[] =
		"    0  26529     0 2 65531     0     0        4  1\n"
		"    7   1234     3 2 65531    17     5       99  1\n";
	struct srv6_nfq_kstats k;

	assert_int_equal(srv6_nfq_proc_find(text, 7, &k), 0);
	assert_int_equal(k.portid, 1234);
	assert_int_equal(k.waiting, 3);
	assert_int_equal(k.queue_dropped, 17);
	assert_int_equal(k.user_dropped, 5);
	assert_int_equal(k.id_sequence, 99);
	assert_int_equal(srv6_nfq_proc_find(text, 0, &k), 0);
	assert_int_equal(k.portid, 26529);
	assert_int_equal(srv6_nfq_proc_find(text, 5, &k), -ENOENT);
	assert_int_equal(srv6_nfq_proc_find("", 5, &k), -ENOENT);
	assert_int_equal(srv6_nfq_proc_find("garbage\n", 5, &k), -EINVAL);
}

static void test_json_str(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	srv6_json_str(f, "a\"b\\c\n\x01\xc3\xa9");
	fclose(f);
	assert_string_equal(text, "\"a\\\"b\\\\c\\u000a\\u0001\\u00c3\\u00a9\"");
	free(text);
}

/* ip route show output (iproute2 6.1, kernel 6.x) -> conf lines */
static void test_import(void **state)
{
	static const struct { const char *in, *out, *warn; int rc; } cases[] = {
		{ "fc00::1  encap seg6local action End.DT6 table 100 dev v0 metric 1024 linkdown pref medium\n",
		  "sid fc00::1 action End.DT6 table 100 dev v0", "", 1 },
		{ "fc00::4  encap seg6local action End.T table 100 dev v0 table 200 metric 1024 pref medium",
		  "sid fc00::4 action End.T table 100 dev v0",
		  "route-level \"table 200\" dropped (srv6d's SIDs have no routing table or next hop)", 1 },
		{ "fc00::3  encap seg6local action End.B6.Encaps segs 2 [ fc00::a fc00::b ] dev v0 metric 1024",
		  "sid fc00::3 action End.B6.Encaps srh segs fc00::a,fc00::b dev v0", "", 1 },
		/* ip prints HMAC key ids in hex ("%X"): 26 is "1A", 16 is "10" */
		{ "fc00::7  encap seg6local action End.B6.Encaps segs 1 [ fc00::a ] hmac 1A dev v0 metric 1024",
		  "sid fc00::7 action End.B6.Encaps srh segs fc00::a hmac 26 dev v0", "", 1 },
		{ "2001:db8:8::/64  encap seg6 mode encap segs 1 [ fc00::1 ] hmac 10 dev v0 metric 1024",
		  "route 2001:db8:8::/64 encap seg6 mode encap segs fc00::1 dev v0 hmac 16", "", 1 },
		{ "2001:db8:8::/64  encap seg6 mode inline segs 1 [ fc00::1 ] hmac 0x7 dev v0",
		  "route 2001:db8:8::/64 encap seg6 mode inline segs fc00::1 dev v0 hmac 7", "", 1 },
		/* inserted SRHs hold a placeholder for the original DA, which
		 * ip prints as a last "::" (lines from ip on 6.18) */
		{ "2001:db8:8::/64  encap seg6 mode inline segs 3 [ fc00::1 fc00::2 :: ] dev v0 metric 1024 linkdown pref medium",
		  "route 2001:db8:8::/64 encap seg6 mode inline segs fc00::1,fc00::2 dev v0", "", 1 },
		{ "fc00::9  encap seg6local action End.B6 segs 3 [ fc00::a fc00::b :: ] dev v0 metric 1024 linkdown pref medium",
		  "sid fc00::9 action End.B6 srh segs fc00::a,fc00::b dev v0", "", 1 },
		{ "2001:db8:8::/64  encap seg6 mode encap segs 2 [ fc00::1 :: ] dev v0", "",
		  "segment \"::\" is unspecified", -EINVAL },
		{ "2001:db8:8::/64  encap seg6 mode encap segs 1 [ fc00::1 ] hmac 0 dev v0", "",
		  "bad hmac key id \"0\" (1..4294967295)", -EINVAL },
		{ "2001:db8:8::/64  encap seg6 mode encap segs 1 [ fc00::1 ] hmac 1FFFFFFFF dev v0", "",
		  "bad hmac key id \"1FFFFFFFF\" (1..4294967295)", -EINVAL },
		{ "fc00::5  encap seg6local action End flavors next-csid lblen 32 nflen 16 dev v0 metric 1024",
		  "sid fc00::5 action End flavors next-csid lblen 32 nflen 16 dev v0", "", 1 },
		{ "2001:db8:9::/64  encap seg6 mode encap segs 2 [ fc00::1 fc00::2 ] dev v0 metric 1024 pref medium",
		  "route 2001:db8:9::/64 encap seg6 mode encap segs fc00::1,fc00::2 dev v0", "", 1 },
		{ "10.9.0.0/16  encap seg6 mode encap segs 1 [ fc00::1 ] dev v0 scope link linkdown",
		  "route 10.9.0.0/16 encap seg6 mode encap segs fc00::1 dev v0", "", 1 },
		{ "fc00::6  encap seg6local action End.X nh6 2001:db8::2 dev v0 proto static metric 20",
		  "sid fc00::6 action End.X nh6 2001:db8::2 dev v0", "", 1 },
		{ "fe80::/64 dev eth0 proto kernel metric 256 pref medium", "", "", 0 },
		{ "local ::1 dev lo table local proto kernel metric 0 pref medium", "", "", 0 },
		{ "fc00::9 encap seg6local action End.X nh6 fe80::1 iif v0 dev v0", "",
		  "unknown keyword \"iif\"", -EINVAL },
		{ "fc00::9 encap seg6local action End.B6 segs 2 [ fc00::a", "",
		  "segment list without \"]\"", -EINVAL },
		{ "encap seg6 mode encap segs 1 [ fc00::1 ]", "", "no prefix before \"encap\"", -EINVAL },
	};
	char out[SRV6_CONF_LINE_MAX], warn[SRV6_CONF_ERRLEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = srv6_import_line(cases[i].in, AF_UNSPEC, out, sizeof(out), warn, sizeof(warn));

		if (rc != cases[i].rc || strcmp(out, cases[i].out) || strcmp(warn, cases[i].warn))
			fail_msg("case %zu: rc %d\n  out [%s]\n  warn [%s]", i, rc, out, warn);
	}
	/* "default" follows the family of the listing */
	assert_int_equal(srv6_import_line("default encap seg6 mode encap segs 1 [ fc00::1 ] dev v0",
					  AF_INET, out, sizeof(out), warn, sizeof(warn)), 1);
	assert_string_equal(out, "route 0.0.0.0/0 encap seg6 mode encap segs fc00::1 dev v0");
	assert_int_equal(srv6_import_line("default encap seg6 mode encap segs 1 [ fc00::1 ] dev v0",
					  AF_INET6, out, sizeof(out), warn, sizeof(warn)), 1);
	assert_string_equal(out, "route ::/0 encap seg6 mode encap segs fc00::1 dev v0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_row),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_nfq_proc),
		cmocka_unit_test(test_json_str),
		cmocka_unit_test(test_import),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
