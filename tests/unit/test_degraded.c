// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_degraded.c - the pure parts of the degraded start: which rtnetlink
 * events wake the completion (srv6_linkwatch_classify, src/daemon/linkwatch.c)
 * and the pending bookkeeping (src/daemon/pending.c): flags set from the
 * next-hop and source parts, counted, listed.  The namespace side is
 * tests/net/test_degraded.sh.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "srv6d/linkwatch.h"
#include "srv6d/pending.h"

#define LO 4200000000u
#define HI (LO + 0xffffu)

static char buf[512] __attribute__((aligned(8)));

static size_t msg(uint16_t type, int family, uint32_t table)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	if (type == RTM_NEWROUTE || type == RTM_DELROUTE) {
		struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

		rtm->rtm_family = (uint8_t)family;
		rtm->rtm_table = table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
		mnl_attr_put_u32(nlh, RTA_TABLE, table);
	} else {
		(void)mnl_nlmsg_put_extra_header(nlh, 16);
	}
	return nlh->nlmsg_len;
}

static int cls(uint16_t type, int family, uint32_t table)
{
	size_t len = msg(type, family, table);

	return srv6_linkwatch_classify(buf, len, LO, HI);
}

static void test_classify(void **state)
{
	assert_int_equal(cls(RTM_NEWLINK, 0, 0), SRV6_LW_RETRY | SRV6_LW_VERIFY4 | SRV6_LW_LINK);
	assert_int_equal(cls(RTM_DELLINK, 0, 0), SRV6_LW_RETRY | SRV6_LW_VERIFY4 | SRV6_LW_LINK);
	assert_int_equal(cls(RTM_NEWADDR, 0, 0), SRV6_LW_RETRY);
	assert_int_equal(cls(RTM_DELADDR, 0, 0), 0);
	assert_int_equal(cls(RTM_NEWNEIGH, 0, 0), 0);
	/* a route somewhere else may make a next hop or a segment reachable */
	assert_int_equal(cls(RTM_NEWROUTE, AF_INET6, RT_TABLE_MAIN), SRV6_LW_RETRY);
	assert_int_equal(cls(RTM_NEWROUTE, AF_INET, 100), SRV6_LW_RETRY);
	/* srv6d's own installs wake nothing; their removal is checked */
	assert_int_equal(cls(RTM_NEWROUTE, AF_INET6, LO + 1), 0);
	assert_int_equal(cls(RTM_NEWROUTE, AF_INET6, HI), 0);
	assert_int_equal(cls(RTM_DELROUTE, AF_INET6, LO + 7), SRV6_LW_VERIFY6);
	assert_int_equal(cls(RTM_DELROUTE, AF_INET, LO + 7), SRV6_LW_VERIFY4);
	assert_int_equal(cls(RTM_DELROUTE, AF_INET6, RT_TABLE_MAIN), 0);
	assert_int_equal(cls(RTM_DELROUTE, AF_INET6, HI + 1), 0);
	/* truncated messages are ignored */
	msg(RTM_NEWLINK, 0, 0);
	assert_int_equal(srv6_linkwatch_classify(buf, 8, LO, HI), 0);
	msg(RTM_DELROUTE, AF_INET6, LO + 7);
	assert_int_equal(srv6_linkwatch_classify(buf, NLMSG_LENGTH(4), LO, HI), 0);
}

static void conf_make(struct srv6_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->nsids = 2;
	c->sids = calloc(2, sizeof(*c->sids));
	c->nroutes = 1;
	c->routes = calloc(1, sizeof(*c->routes));
	assert_non_null(c->sids);
	assert_non_null(c->routes);
	inet_pton(AF_INET6, "2001:db8:ff::1", &c->sids[0].prefix);
	c->sids[0].plen = 128;
	c->sids[0].line = 3;
	c->sids[0].cfg.action = SRV6_ACT_END_X;
	inet_pton(AF_INET6, "2001:db8:ff::2", &c->sids[1].prefix);
	c->sids[1].plen = 128;
	c->sids[1].line = 4;
	c->sids[1].cfg.action = SRV6_ACT_END;
	c->routes[0].family = AF_INET;
	inet_pton(AF_INET, "10.1.0.0", &c->routes[0].prefix.v4);
	c->routes[0].plen = 16;
	c->routes[0].line = 5;
	c->routes[0].pol.mode = SRV6_MODE_ENCAP;
}

static char *printed(const struct srv6_pending *p, const struct srv6_conf *c)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	srv6_pending_print(p, c, f);
	fclose(f);
	return out;
}

static void test_pending(void **state)
{
	struct srv6_pending p;
	struct srv6_conf c;
	char *out;

	conf_make(&c);
	assert_int_equal(srv6_pending_init(&p, "x.conf", &c), 0);
	assert_int_equal(srv6_pending_update(&p, &c), 0);
	assert_int_equal(p.count, 0);
	out = printed(&p, &c);
	assert_string_equal(out, "pending total=0 sids=0 routes=0\n");
	free(out);

	/* the SID misses its next hop, the route its source */
	p.nh[0].err = -ENODEV;
	p.nh[0].why = strdup("unknown interface \"eth9\"");
	assert_int_equal(srv6_pending_set_src(&p, 2, "no source address toward fc00::1"), 0);
	assert_int_equal(srv6_pending_update(&p, &c), 2);
	assert_true(c.sids[0].cfg.pending);
	assert_false(c.sids[1].cfg.pending);
	assert_true(c.routes[0].pol.pending);
	assert_int_equal(p.count, 2);
	assert_int_equal(srv6_pending_update(&p, &c), 0);   /* no change, no publish */
	out = printed(&p, &c);
	assert_string_equal(out, "pending total=2 sids=1 routes=1\n"
			    "pending sid 2001:db8:ff::1/128 End.X x.conf:3: unknown interface \"eth9\"\n"
			    "pending route 10.1.0.0/16 encap x.conf:5: no source address toward fc00::1\n");
	free(out);

	/* either part keeps a SID pending */
	p.nh[0].err = 0;
	assert_int_equal(srv6_pending_set_src(&p, 0, "dev \"eth8\": unknown interface"), 0);
	assert_int_equal(srv6_pending_update(&p, &c), 0);
	assert_true(c.sids[0].cfg.pending);
	assert_int_equal(srv6_pending_set_src(&p, 0, ""), 0);
	assert_int_equal(srv6_pending_set_src(&p, 2, ""), 0);
	assert_null(p.src[0]);
	assert_int_equal(srv6_pending_update(&p, &c), 2);
	assert_false(c.sids[0].cfg.pending);
	assert_false(c.routes[0].pol.pending);
	assert_int_equal(p.count, 0);

	srv6_pending_free(&p);
	srv6_pending_free(&p);   /* harmless */
	free(c.sids);
	free(c.routes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_pending),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
