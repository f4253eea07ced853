// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_steer.c - srv6_steer_format() (src/kernel/steer.c): the rule text
 * srv6d installs and prints for `steer none`.  Installing for real is
 * tests/net/test_steer.sh.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "srv6d/nhctx.h"

#include "srv6d/steer.h"

static struct in6_addr a6(const char *s)
{
	struct in6_addr a;

	assert_int_equal(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

static struct in_addr a4(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static void format_ok(const struct srv6_steer_cfg *c, int family, const char *want)
{
	char buf[2048];
	int n = srv6_steer_format(c, family, buf, sizeof(buf));

	assert_int_equal(n, (int)strlen(want));
	assert_string_equal(buf, want);
}

static void test_single_queue(void **state)
{
	struct in6_addr sids[] = { a6("2001:db8:ff::1") };
	uint8_t pl[] = { 128 };
	struct srv6_steer_cfg c = { .queue_first = 4, .queue_last = 4,
				    .sid_prefixes = sids, .sid_plens = pl, .nsids = 1 };

	format_ok(&c, AF_INET6,
		  "*raw\n:SRV6D - [0:0]\n-I PREROUTING 1 -j SRV6D\n"
		  "-A SRV6D -d 2001:db8:ff::1/128 -j NFQUEUE --queue-num 4\nCOMMIT\n");
	c.fail_open = true;
	c.cpu_fanout = true; /* meaningless with one queue: not printed */
	format_ok(&c, AF_INET6,
		  "*raw\n:SRV6D - [0:0]\n-I PREROUTING 1 -j SRV6D\n"
		  "-A SRV6D -d 2001:db8:ff::1/128 -j NFQUEUE --queue-num 4 --queue-bypass\nCOMMIT\n");
}

static void test_balance_and_policies(void **state)
{
	struct in6_addr sids[] = { a6("2001:db8:ff::1"), a6("2001:db8:100:abcd::") };
	uint8_t spl[] = { 128, 48 };
	struct in6_addr p6[] = { a6("2001:db8:99::") };
	uint8_t p6l[] = { 64 };
	struct in_addr p4[] = { a4("10.1.2.3"), a4("0.0.0.0") };
	uint8_t p4l[] = { 16, 0 };
	struct srv6_steer_cfg c = { .queue_first = 0, .queue_last = 3, .fail_open = true,
				    .cpu_fanout = true, .sid_prefixes = sids, .sid_plens = spl,
				    .nsids = 2, .pol6 = p6, .pol6_plens = p6l, .npol6 = 1,
				    .pol4 = p4, .pol4_plens = p4l, .npol4 = 2 };
	const char *t = "-j NFQUEUE --queue-balance 0:3 --queue-bypass --queue-cpu-fanout\n";
	char want[1024];

	/* without a device for their routes, policies capture nothing */
	snprintf(want, sizeof(want),
		 "*raw\n:SRV6D - [0:0]\n-I PREROUTING 1 -j SRV6D\n"
		 "-A SRV6D -d 2001:db8:ff::1/128 %s"
		 "-A SRV6D -d 2001:db8:100::/48 %sCOMMIT\n", t, t);   /* host bits masked */
	format_ok(&c, AF_INET6, want);
	format_ok(&c, AF_INET, "");
	/* issue 8.2: policies are kernel routes through srv6d's device; what
	 * the FIB sends there is queued at mangle POSTROUTING, whatever the
	 * prefixes (no per-prefix rule, no exclusions) */
	c.inject_dev = "srv6d0";
	snprintf(want, sizeof(want),
		 "*raw\n:SRV6D - [0:0]\n-I PREROUTING 1 -j SRV6D\n"
		 "-A SRV6D -i srv6d0 -j ACCEPT\n"
		 "-A SRV6D -d 2001:db8:ff::1/128 %s"
		 "-A SRV6D -d 2001:db8:100::/48 %sCOMMIT\n"
		 "*mangle\n:SRV6D - [0:0]\n-I POSTROUTING 1 -j SRV6D\n"
		 "-A SRV6D -o srv6d0 %sCOMMIT\n", t, t, t);
	format_ok(&c, AF_INET6, want);
	snprintf(want, sizeof(want),
		 "*mangle\n:SRV6D - [0:0]\n-I POSTROUTING 1 -j SRV6D\n"
		 "-A SRV6D -o srv6d0 %sCOMMIT\n", t);
	format_ok(&c, AF_INET, want);
	c.npol6 = 0;
	snprintf(want, sizeof(want),
		 "*raw\n:SRV6D - [0:0]\n-I PREROUTING 1 -j SRV6D\n"
		 "-A SRV6D -i srv6d0 -j ACCEPT\n"
		 "-A SRV6D -d 2001:db8:ff::1/128 %s"
		 "-A SRV6D -d 2001:db8:100::/48 %sCOMMIT\n", t, t);
	format_ok(&c, AF_INET6, want);
}

static void test_empty(void **state)
{
	struct srv6_steer_cfg c = { .queue_first = 0, .queue_last = 0 };

	format_ok(&c, AF_INET6, "*raw\n:SRV6D - [0:0]\n-I PREROUTING 1 -j SRV6D\nCOMMIT\n");
}

static void test_truncation_like_snprintf(void **state)
{
	struct in6_addr sids[] = { a6("2001:db8:ff::1") };
	uint8_t pl[] = { 128 };
	struct srv6_steer_cfg c = { .sid_prefixes = sids, .sid_plens = pl, .nsids = 1 };
	char full[512], small[16];
	int n = srv6_steer_format(&c, AF_INET6, full, sizeof(full));

	assert_true(n > (int)sizeof(small));
	assert_int_equal(srv6_steer_format(&c, AF_INET6, small, sizeof(small)), n);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, full, sizeof(small) - 1);
	assert_int_equal(srv6_steer_format(&c, AF_INET6, NULL, 0), n);
}

static void test_invalid(void **state)
{
	struct in6_addr sids[] = { a6("2001:db8:ff::1") };
	uint8_t bad6[] = { 129 };
	struct in_addr p4[] = { a4("10.0.0.0") };
	uint8_t bad4[] = { 33 };
	struct srv6_steer_cfg c = { .queue_first = 2, .queue_last = 1 };
	char buf[256];

	assert_int_equal(srv6_steer_format(&c, AF_INET6, buf, sizeof(buf)), -EINVAL);
	c = (struct srv6_steer_cfg){ .queue_first = 0, .queue_last = 65536 };
	assert_int_equal(srv6_steer_format(&c, AF_INET6, buf, sizeof(buf)), -EINVAL);
	c = (struct srv6_steer_cfg){ .sid_prefixes = sids, .sid_plens = bad6, .nsids = 1 };
	assert_int_equal(srv6_steer_format(&c, AF_INET6, buf, sizeof(buf)), -EINVAL);
	c = (struct srv6_steer_cfg){ .pol4 = p4, .pol4_plens = bad4, .npol4 = 1 };
	assert_int_equal(srv6_steer_format(&c, AF_INET, buf, sizeof(buf)), -EINVAL);
	c = (struct srv6_steer_cfg){ 0 };
	assert_int_equal(srv6_steer_format(&c, AF_PACKET, buf, sizeof(buf)), -EINVAL);
}

/* issue 25: the context gate, first in mangle PREROUTING, per family; the
 * mask left out when it is every bit (iptables-save's form) */
static void test_context_gate(void **state)
{
	struct in6_addr sids[] = { a6("2001:db8:ff::3") };
	uint8_t pl[] = { 128 };
	struct srv6_steer_cfg c = { .sid_prefixes = sids, .sid_plens = pl, .nsids = 1,
				    .gate_mark = 0x6d000000, .gate_mask = 0xffff0000,
				    .gate6 = true };
	const char *raw = "*raw\n:SRV6D - [0:0]\n-I PREROUTING 1 -j SRV6D\n"
			  "-A SRV6D -d 2001:db8:ff::3/128 -j NFQUEUE --queue-num 0\nCOMMIT\n";
	char want[512];

	snprintf(want, sizeof(want), "%s*mangle\n-I PREROUTING 1 -m mark --mark "
		 "0x6d000000/0xffff0000 -j ACCEPT\nCOMMIT\n", raw);
	format_ok(&c, AF_INET6, want);
	format_ok(&c, AF_INET, "");          /* no IPv4 context */
	c.gate4 = true;
	format_ok(&c, AF_INET, "*mangle\n-I PREROUTING 1 -m mark --mark "
		  "0x6d000000/0xffff0000 -j ACCEPT\nCOMMIT\n");
	c.gate6 = false;
	format_ok(&c, AF_INET6, raw);
	c.gate6 = true;
	c.gate_mask = 0xffffffffu;
	snprintf(want, sizeof(want), "%s*mangle\n-I PREROUTING 1 -m mark --mark "
		 "0x6d000000 -j ACCEPT\nCOMMIT\n", raw);
	format_ok(&c, AF_INET6, want);
	c.gate_mask = 0;                     /* no gate at all */
	format_ok(&c, AF_INET6, raw);
	/* the gate's own rule is not a mark user */
	assert_false(srv6_steer_mark_clash("-A PREROUTING -m mark --mark 0x6d000000/0xffff0000 "
					   "-j ACCEPT", 0xffffffffu));
}

/* The chain name of an instance (steer-chain), and what is refused. */
static void test_chain_name(void **state)
{
	struct in6_addr sids[1] = { a6("2001:db8:ff::1") };
	uint8_t pl[1] = { 128 };
	struct srv6_steer_cfg c = { .chain = "SRV6D-b", .sid_prefixes = sids, .sid_plens = pl,
				    .nsids = 1 };
	char buf[512];

	format_ok(&c, AF_INET6, "*raw\n:SRV6D-b - [0:0]\n-I PREROUTING 1 -j SRV6D-b\n"
		  "-A SRV6D-b -d 2001:db8:ff::1/128 -j NFQUEUE --queue-num 0\nCOMMIT\n");
	assert_true(srv6_steer_chain_valid("SRV6D"));
	assert_true(srv6_steer_chain_valid("a_b-012345678901234567890123"));  /* 28 */
	assert_false(srv6_steer_chain_valid("a_b-0123456789012345678901234")); /* 29 */
	assert_false(srv6_steer_chain_valid(""));
	assert_false(srv6_steer_chain_valid("-X"));
	assert_false(srv6_steer_chain_valid("a b"));
	assert_false(srv6_steer_chain_valid("a\nb"));
	c.chain = "bad chain";
	assert_int_equal(srv6_steer_format(&c, AF_INET6, buf, sizeof(buf)), -EINVAL);
}

/* issue 8.4: mangle rules that can rewrite srv6d's mark bits */
static void test_mark_clash(void **state)
{
	const uint32_t m = 0xffff0000u;

	(void)state;
	assert_true(srv6_steer_mark_clash("-A PREROUTING -j CONNMARK --restore-mark "
					  "--nfmask 0xffffffff --ctmask 0xffffffff", m));
	assert_false(srv6_steer_mark_clash("-A PREROUTING -j CONNMARK --restore-mark "
					   "--nfmask 0xff00 --ctmask 0xff00", m));
	assert_true(srv6_steer_mark_clash("-A PREROUTING -j CONNMARK --restore-mark", m));
	assert_true(srv6_steer_mark_clash("-A PREROUTING -i eth0 -j MARK --set-xmark 0x5/0xffffffff", m));
	assert_false(srv6_steer_mark_clash("-A PREROUTING -j MARK --set-xmark 0x5/0xff", m));
	assert_true(srv6_steer_mark_clash("-A MYCHAIN -j MARK --set-xmark 0x10000/0x10000", m));
	assert_false(srv6_steer_mark_clash("-A PREROUTING -j MARK --or-mark 0x1", m));
	assert_true(srv6_steer_mark_clash("-A PREROUTING -j MARK --and-mark 0xffff", m));
	/* after the routing decision, or not a mark target */
	assert_false(srv6_steer_mark_clash("-A OUTPUT -j MARK --set-xmark 0x5/0xffffffff", m));
	assert_false(srv6_steer_mark_clash("-A FORWARD -j CONNMARK --restore-mark", m));
	assert_false(srv6_steer_mark_clash("-A PREROUTING -j CONNMARK --set-xmark 0x1/0xffffffff", m));
	assert_false(srv6_steer_mark_clash(":PREROUTING ACCEPT [0:0]", m));
	assert_false(srv6_steer_mark_clash("-A PREROUTING -m mark --mark 0x1 -j ACCEPT", m));
}

/* the context index field of a mark-base / mark-mask pair */
static void test_idx_field(void **state)
{
	(void)state;
	assert_int_equal(srv6_nhctx_idx_field(0x6d000000u, 0xffffffffu), 0x0000ffffu);
	assert_int_equal(srv6_nhctx_idx_field(0x6d000000u, 0xffff0000u), 0x00ff0000u);
	assert_int_equal(srv6_nhctx_idx_field(0x00100000u, 0x00ff0000u), 0x000f0000u);
	assert_int_equal(srv6_nhctx_idx_field(0x6d000000u, 0xff000000u), 0);
	assert_int_equal(srv6_nhctx_idx_mark(1, 0x00ff0000u), 0x00010000u);
	assert_int_equal(srv6_nhctx_idx_mark(0xff, 0x00ff0000u), 0x00ff0000u);
	assert_int_equal(srv6_nhctx_idx_mark(5, 0x0000ffffu), 5);
	assert_int_equal(srv6_nhctx_idx_mark(3, 0x00000a00u), 0x00000a00u);  /* spread */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_queue),
		cmocka_unit_test(test_balance_and_policies),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_chain_name),
		cmocka_unit_test(test_truncation_like_snprintf),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_mark_clash),
		cmocka_unit_test(test_idx_field),
		cmocka_unit_test(test_context_gate),
	};

	return cmocka_run_group_tests_name("steer", tests, NULL, NULL);
}
