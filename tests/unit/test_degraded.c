// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_degraded.c - the pure parts of the degraded start: which rtnetlink
 * events wake the completion (srv6_linkwatch_classify, src/kernel/linkwatch.c),
 * and which ones make srv6d look at the policies' kernel routes
 * (SRV6_LW_POLROUTE: tests/net/test_polroute_watch.sh), and the pending
 * bookkeeping (src/daemon/pending.c): flags set from the
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

#include "srv6d/fallback.h"
#include "srv6d/linkwatch.h"
#include "srv6d/pending.h"

#define LO 4200000000u
#define HI (LO + 0xffffu)
#define DEV 7                 /* srv6d's device */

static const struct srv6_lw_scope plain = { .table_lo = LO, .table_hi = HI };

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

	return srv6_linkwatch_classify(buf, len, &plain);
}

/* A link message for @ifindex. */
static size_t lmsg(uint16_t type, int ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	nlh->nlmsg_type = type;
	ifi->ifi_index = ifindex;
	return nlh->nlmsg_len;
}

/* A route message as the kernel sends it: RTA_PRIORITY and RTA_OIF only
 * when not 0 (an IPv4 route at metric 0 carries none), RTA_DST unless /0. */
static size_t rmsg(uint16_t type, const char *prefix, uint32_t table, uint8_t proto, uint8_t rtype,
		   uint32_t oif, uint32_t prio)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	char a[64], *slash;
	uint8_t dst[16];
	int family;

	snprintf(a, sizeof(a), "%s", prefix);
	slash = strchr(a, '/');
	assert_non_null(slash);
	*slash = '\0';
	family = strchr(a, ':') ? AF_INET6 : AF_INET;
	assert_int_equal(inet_pton(family, a, dst), 1);
	nlh->nlmsg_type = type;
	rtm->rtm_family = (uint8_t)family;
	rtm->rtm_dst_len = (uint8_t)atoi(slash + 1);
	rtm->rtm_table = table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = proto;
	rtm->rtm_type = rtype;
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	if (rtm->rtm_dst_len)
		mnl_attr_put(nlh, RTA_DST, family == AF_INET6 ? 16 : 4, dst);
	if (prio)
		mnl_attr_put_u32(nlh, RTA_PRIORITY, prio);
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, oif);
	return nlh->nlmsg_len;
}

static struct srv6_conf_route pol[3];
static struct srv6_conf pconf = { .routes = pol, .nroutes = 3 };

/* 2001:db8::/32 (IPv6 default metric 1024), 10.0.0.0/8 (IPv4 default 0),
 * 2001:db8:77::/48 metric 300. */
static void pconf_make(void)
{
	memset(pol, 0, sizeof(pol));
	pol[0].family = AF_INET6;
	inet_pton(AF_INET6, "2001:db8::", &pol[0].prefix.v6);
	pol[0].plen = 32;
	pol[1].family = AF_INET;
	inet_pton(AF_INET, "10.0.0.0", &pol[1].prefix.v4);
	pol[1].plen = 8;
	pol[2].family = AF_INET6;
	inet_pton(AF_INET6, "2001:db8:77::", &pol[2].prefix.v6);
	pol[2].plen = 48;
	pol[2].has_metric = true;
	pol[2].metric = 300;
}

static int rcls(const struct srv6_lw_scope *s, uint16_t type, const char *prefix, uint32_t table,
		uint8_t proto, uint8_t rtype, uint32_t oif, uint32_t prio)
{
	size_t len = rmsg(type, prefix, table, proto, rtype, oif, prio);

	return srv6_linkwatch_classify(buf, len, s);
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
	assert_int_equal(srv6_linkwatch_classify(buf, 8, &plain), 0);
	msg(RTM_DELROUTE, AF_INET6, LO + 7);
	assert_int_equal(srv6_linkwatch_classify(buf, NLMSG_LENGTH(4), &plain), 0);
}

/* SRV6_LW_POLROUTE: what may have taken a policy's route away. */
static void test_classify_polroute(void **state)
{
	const struct srv6_lw_scope s = { .table_lo = LO, .table_hi = HI, .dev_ifindex = DEV,
					 .conf = &pconf };
	const struct srv6_lw_scope noconf = { .table_lo = LO, .table_hi = HI, .dev_ifindex = DEV };
	const uint8_t P = SRV6_FALLBACK_PROTO, BOOT = RTPROT_BOOT, U = RTN_UNICAST;
	const int R = SRV6_LW_RETRY, PR = SRV6_LW_POLROUTE;
	size_t len;

	(void)state;
	pconf_make();
	/* srv6d's own route removed (`ip route del PREFIX dev srv6d0 proto 109`,
	 * a reload's stale one alike: one look, which finds all in place) */
	assert_int_equal(rcls(&s, RTM_DELROUTE, "2001:db8::/32", RT_TABLE_MAIN, P, U, DEV, 1024), PR);
	assert_int_equal(rcls(&s, RTM_DELROUTE, "2001:db8:5::/64", RT_TABLE_MAIN, P, U, DEV, 1024), PR);
	assert_int_equal(rcls(&s, RTM_DELROUTE, "10.0.0.0/8", RT_TABLE_MAIN, P, U, DEV, 0), PR);
	assert_int_equal(rcls(&noconf, RTM_DELROUTE, "2001:db8::/32", RT_TABLE_MAIN, P, U, DEV, 1024),
			 PR);
	/* not srv6d's policy route: another instance's device, another
	 * table, a fail-open blackhole (no device, its own metric), another
	 * protocol at another place */
	assert_int_equal(rcls(&s, RTM_DELROUTE, "2001:db8::/32", RT_TABLE_MAIN, P, U, DEV + 1, 1024),
			 PR);   /* ...but a route of the policy's place: looked at */
	assert_int_equal(rcls(&s, RTM_DELROUTE, "2001:db8:5::/64", RT_TABLE_MAIN, P, U, DEV + 1, 1024),
			 0);
	assert_int_equal(rcls(&s, RTM_DELROUTE, "2001:db8::/32", 100, P, U, DEV, 1024), 0);
	assert_int_equal(rcls(&s, RTM_DELROUTE, "2001:db8::/32", RT_TABLE_MAIN, P, RTN_BLACKHOLE, 0,
			      0xffff0000u + 40000u), 0);
	assert_int_equal(rcls(&s, RTM_DELROUTE, "2001:db8:5::/64", RT_TABLE_MAIN, BOOT, U, DEV, 1024),
			 0);
	/* srv6d's own adds wake no look */
	assert_int_equal(rcls(&s, RTM_NEWROUTE, "2001:db8::/32", RT_TABLE_MAIN, P, U, DEV, 1024), R);
	assert_int_equal(rcls(&s, RTM_NEWROUTE, "10.0.0.0/8", RT_TABLE_MAIN, P, U, DEV, 0), R);
	/* a foreign route in a policy's place (`ip route replace`: no
	 * RTM_DELROUTE for srv6d's), and gone again */
	assert_int_equal(rcls(&s, RTM_NEWROUTE, "2001:db8::/32", RT_TABLE_MAIN, BOOT, U, 3, 1024),
			 R | PR);
	assert_int_equal(rcls(&s, RTM_NEWROUTE, "10.0.0.0/8", RT_TABLE_MAIN, BOOT, U, 3, 0), R | PR);
	assert_int_equal(rcls(&s, RTM_NEWROUTE, "2001:db8:77::/48", RT_TABLE_MAIN, BOOT, U, 3, 300),
			 R | PR);
	assert_int_equal(rcls(&s, RTM_DELROUTE, "2001:db8::/32", RT_TABLE_MAIN, BOOT, U, 3, 1024), PR);
	/* ...not in it: another metric, another length, another prefix, or
	 * no policies */
	assert_int_equal(rcls(&s, RTM_NEWROUTE, "2001:db8::/32", RT_TABLE_MAIN, BOOT, U, 3, 1023), R);
	assert_int_equal(rcls(&s, RTM_NEWROUTE, "10.0.0.0/8", RT_TABLE_MAIN, BOOT, U, 3, 5), R);
	assert_int_equal(rcls(&s, RTM_NEWROUTE, "2001:db8::/33", RT_TABLE_MAIN, BOOT, U, 3, 1024), R);
	assert_int_equal(rcls(&s, RTM_NEWROUTE, "2001:db9::/32", RT_TABLE_MAIN, BOOT, U, 3, 1024), R);
	assert_int_equal(rcls(&s, RTM_NEWROUTE, "2001:db8:77::/48", RT_TABLE_MAIN, BOOT, U, 3, 1024),
			 R);
	assert_int_equal(rcls(&s, RTM_NEWROUTE, "2001:db8::/32", 100, BOOT, U, 3, 1024), R);
	assert_int_equal(rcls(&noconf, RTM_NEWROUTE, "2001:db8::/32", RT_TABLE_MAIN, BOOT, U, 3, 1024),
			 R);
	/* no device (egress verdict without one): nothing is srv6d's */
	assert_int_equal(rcls(&plain, RTM_DELROUTE, "2001:db8::/32", RT_TABLE_MAIN, P, U, DEV, 1024),
			 0);
	/* srv6d's next-hop tables keep their own bit */
	assert_int_equal(rcls(&s, RTM_DELROUTE, "2001:db8::/32", LO + 7, P, U, DEV, 1024),
			 SRV6_LW_VERIFY6);
	/* its device: up, down, deleted */
	len = lmsg(RTM_NEWLINK, DEV);
	assert_int_equal(srv6_linkwatch_classify(buf, len, &s),
			 R | SRV6_LW_VERIFY4 | SRV6_LW_LINK | PR);
	len = lmsg(RTM_DELLINK, DEV);
	assert_int_equal(srv6_linkwatch_classify(buf, len, &s),
			 R | SRV6_LW_VERIFY4 | SRV6_LW_LINK | PR);
	len = lmsg(RTM_NEWLINK, 3);
	assert_int_equal(srv6_linkwatch_classify(buf, len, &s), R | SRV6_LW_VERIFY4 | SRV6_LW_LINK);
	len = lmsg(RTM_NEWLINK, DEV);
	assert_int_equal(srv6_linkwatch_classify(buf, len, &plain),
			 R | SRV6_LW_VERIFY4 | SRV6_LW_LINK);
	/* a short RTA_OIF or RTA_PRIORITY is never read */
	len = rmsg(RTM_DELROUTE, "2001:db8:5::/64", RT_TABLE_MAIN, P, U, 0, 1024);
	{
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
		uint16_t two = DEV;

		mnl_attr_put(nlh, RTA_OIF, sizeof(two), &two);
		len = nlh->nlmsg_len;
	}
	assert_int_equal(srv6_linkwatch_classify(buf, len, &s), 0);
	len = rmsg(RTM_NEWROUTE, "2001:db8::/32", RT_TABLE_MAIN, BOOT, U, 3, 0);
	{
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
		uint16_t two = 1024;

		mnl_attr_put(nlh, RTA_PRIORITY, sizeof(two), &two);
		len = nlh->nlmsg_len;
	}
	assert_int_equal(srv6_linkwatch_classify(buf, len, &s), R);
	/* a truncated RTA_DST is no prefix */
	{
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
		uint8_t half[8] = { 0x20, 0x01, 0x0d, 0xb8 };

		nlh->nlmsg_type = RTM_DELROUTE;
		rtm->rtm_family = AF_INET6;
		rtm->rtm_dst_len = 32;
		rtm->rtm_table = RT_TABLE_MAIN;
		rtm->rtm_protocol = BOOT;
		rtm->rtm_type = U;
		mnl_attr_put(nlh, RTA_DST, sizeof(half), half);
		mnl_attr_put_u32(nlh, RTA_PRIORITY, 1024);
		len = nlh->nlmsg_len;
	}
	assert_int_equal(srv6_linkwatch_classify(buf, len, &s), 0);
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

/* what a new pending state takes over from the old one: the same entry
 * waiting for the same thing is not said again; a changed reason, a new
 * entry, a moved line are */
static void test_pending_carry(void **state)
{
	struct srv6_pending old, np;
	struct srv6_conf c, c2;

	(void)state;
	conf_make(&c);
	assert_int_equal(srv6_pending_init(&old, "x.conf", &c), 0);
	assert_int_equal(srv6_pending_set_src(&old, 0, "no source address toward fc00::1"), 0);
	assert_int_equal(srv6_pending_set_src(&old, 2, "no source address toward fc00::2"), 0);
	(void)srv6_pending_update(&old, &c);
	srv6_pending_log(&old, &c);             /* both said */
	assert_true(old.logged[0] && old.logged[2]);

	/* the next batch: SID 0 waits for the same, the route for another
	 * thing, SID 1 starts waiting */
	assert_int_equal(srv6_pending_init(&np, "x.conf", &c), 0);
	assert_int_equal(srv6_pending_set_src(&np, 0, "no source address toward fc00::1"), 0);
	assert_int_equal(srv6_pending_set_src(&np, 1, "no source address toward fc00::1"), 0);
	assert_int_equal(srv6_pending_set_src(&np, 2, "no source address toward fc00::3"), 0);
	(void)srv6_pending_update(&np, &c);
	assert_int_equal(srv6_pending_carry(&np, &c, &old, &c), 1);
	assert_true(np.logged[0]);
	assert_false(np.logged[1]);
	assert_false(np.logged[2]);
	srv6_pending_free(&np);

	/* the route no longer waits: its "complete" is due (logged, not
	 * pending), SID 0 still is carried */
	assert_int_equal(srv6_pending_init(&np, "x.conf", &c), 0);
	assert_int_equal(srv6_pending_set_src(&np, 0, "no source address toward fc00::1"), 0);
	(void)srv6_pending_update(&np, &c);
	assert_int_equal(srv6_pending_carry(&np, &c, &old, &c), 1);
	assert_true(np.logged[0]);
	assert_false(np.logged[1]);       /* never said: nothing due */
	assert_true(np.logged[2]);        /* said pending: complete is due */
	srv6_pending_log(&np, &c);        /* says "x.conf:5: route ... complete" */
	assert_false(np.logged[2]);
	assert_true(np.logged[0]);
	srv6_pending_free(&np);

	/* the same entry on another line is another message: said again */
	conf_make(&c2);
	c2.sids[0].line = 9;
	assert_int_equal(srv6_pending_init(&np, "x.conf", &c2), 0);
	assert_int_equal(srv6_pending_set_src(&np, 0, "no source address toward fc00::1"), 0);
	(void)srv6_pending_update(&np, &c2);
	assert_int_equal(srv6_pending_carry(&np, &c2, &old, &c), 0);
	srv6_pending_free(&np);
	free(c2.sids);
	free(c2.routes);
	/* nothing said before: nothing carried */
	srv6_pending_free(&old);
	assert_int_equal(srv6_pending_init(&old, "x.conf", &c), 0);
	assert_int_equal(srv6_pending_init(&np, "x.conf", &c), 0);
	assert_int_equal(srv6_pending_set_src(&np, 0, "x"), 0);
	assert_int_equal(srv6_pending_carry(&np, &c, &old, &c), 0);
	srv6_pending_free(&np);
	srv6_pending_free(&old);
	free(c.sids);
	free(c.routes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_classify_polroute),
		cmocka_unit_test(test_pending),
		cmocka_unit_test(test_pending_carry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
