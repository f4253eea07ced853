// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_fpm.c - zebra's FPM stream into srv6d's store (src/control/fpm.c,
 * srv6_fpm_feed() and the grace time): frames built here as dplane_fpm_nl
 * builds them (a 4-byte header, version 1, type 1, BE16 length, then
 * rtnetlink messages), including partial frames, several messages in a
 * frame, replays, nexthop objects, and what must be refused or close the
 * session.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <linux/seg6.h>
#include <linux/seg6_iptunnel.h>
#include <linux/seg6_local.h>

#include "srv6d/fpm.h"

static uint8_t buf[8192] __attribute__((aligned(8)));
static size_t blen;

/* Start a frame at the end of buf; returns the message to fill. */
static struct nlmsghdr *frame_begin(uint16_t type)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + blen + SRV6_FPM_HDR);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE;
	return nlh;
}

/* Close the frame whose message is @nlh (and any messages after it). */
static void frame_end(size_t msgs_len)
{
	size_t flen = SRV6_FPM_HDR + msgs_len;

	buf[blen] = 1;
	buf[blen + 1] = 1;
	buf[blen + 2] = (uint8_t)(flen >> 8);
	buf[blen + 3] = (uint8_t)flen;
	blen += flen;
}

static struct rtmsg *rt_put(struct nlmsghdr *nlh, int family, const char *dst, uint8_t plen,
			    uint32_t table)
{
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	uint8_t a[16];

	rtm->rtm_family = (uint8_t)family;
	rtm->rtm_dst_len = plen;
	rtm->rtm_table = table < 256 ? (uint8_t)table : RT_TABLE_COMPAT;
	rtm->rtm_protocol = 11;       /* RTPROT_ZEBRA */
	rtm->rtm_type = RTN_UNICAST;
	assert_int_equal(inet_pton(family, dst, a), 1);
	mnl_attr_put(nlh, RTA_DST, family == AF_INET6 ? 16 : 4, a);
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	return rtm;
}

/* An End (or End.X nh6 @nh6) SID route message in the frame being built. */
static void sid_msg(struct nlmsghdr *nlh, const char *dst, uint32_t table, const char *nh6)
{
	struct nlattr *n;

	rt_put(nlh, AF_INET6, dst, 128, table);
	mnl_attr_put_u32(nlh, RTA_OIF, 1);    /* lo */
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6_LOCAL);
	n = mnl_attr_nest_start(nlh, RTA_ENCAP);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_ACTION, nh6 ? SEG6_LOCAL_ACTION_END_X : SEG6_LOCAL_ACTION_END);
	if (nh6) {
		uint8_t a[16];

		assert_int_equal(inet_pton(AF_INET6, nh6, a), 1);
		mnl_attr_put(nlh, SEG6_LOCAL_NH6, 16, a);
	}
	mnl_attr_nest_end(nlh, n);
}

static void add_sid(const char *dst, uint32_t table, const char *nh6)
{
	struct nlmsghdr *nlh = frame_begin(RTM_NEWROUTE);

	sid_msg(nlh, dst, table, nh6);
	frame_end(nlh->nlmsg_len);
}

static void del_route(int family, const char *dst, uint8_t plen)
{
	struct nlmsghdr *nlh = frame_begin(RTM_DELROUTE);

	rt_put(nlh, family, dst, plen, RT_TABLE_MAIN);
	frame_end(nlh->nlmsg_len);
}

static int feed_all(struct srv6_fpm *f)
{
	size_t used = 0;
	int r = srv6_fpm_feed(f, buf, blen, &used);

	if (r >= 0)
		assert_int_equal(used, blen);
	blen = 0;
	return r;
}

static void add_del_replay(void **state)
{
	struct srv6_fpm *f = srv6_fpm_new(30);
	struct srv6_fpm_entry *e;
	struct in6_addr want;

	(void)state;
	add_sid("2001:db8:ff::9", RT_TABLE_MAIN, NULL);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 1);
	e = srv6_fpm_entry(f, 0);
	assert_true(e->is_sid);
	inet_pton(AF_INET6, "2001:db8:ff::9", &want);
	assert_memory_equal(&e->sid.prefix, &want, 16);
	assert_int_equal(e->sid.plen, 128);
	assert_int_equal(e->sid.origin, SRV6_ORIGIN_FPM);
	/* the same route again (zebra's replay): no change */
	add_sid("2001:db8:ff::9", RT_TABLE_MAIN, NULL);
	assert_int_equal(feed_all(f), 0);
	/* changed: End.X */
	add_sid("2001:db8:ff::9", RT_TABLE_MAIN, "2001:db8:2::2");
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 1);
	del_route(AF_INET6, "2001:db8:ff::9", 128);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 0);
	del_route(AF_INET6, "2001:db8:ff::9", 128);    /* not there: no change */
	assert_int_equal(feed_all(f), 0);
	assert_int_equal(srv6_fpm_stats(f)->adds, 3);
	assert_int_equal(srv6_fpm_stats(f)->dels, 2);
	assert_int_equal(srv6_fpm_stats(f)->frames, 5);
	srv6_fpm_free(f);
}

static void partial_and_multi(void **state)
{
	struct srv6_fpm *f = srv6_fpm_new(30);
	size_t used, total;
	struct nlmsghdr *a, *b;

	(void)state;
	/* one frame with two messages, then a second frame */
	a = frame_begin(RTM_NEWROUTE);
	sid_msg(a, "2001:db8:ff::1", RT_TABLE_MAIN, NULL);
	b = mnl_nlmsg_put_header((uint8_t *)a + a->nlmsg_len);
	b->nlmsg_type = RTM_NEWROUTE;
	sid_msg(b, "2001:db8:ff::2", RT_TABLE_MAIN, NULL);
	frame_end(a->nlmsg_len + b->nlmsg_len);
	add_sid("2001:db8:ff::3", RT_TABLE_MAIN, NULL);
	total = blen;
	/* a first read that ends inside the second frame */
	assert_int_equal(srv6_fpm_feed(f, buf, total - 7, &used), 1);
	assert_int_equal(used, SRV6_FPM_HDR + a->nlmsg_len + b->nlmsg_len);
	assert_int_equal(srv6_fpm_count(f), 2);
	/* less than a header: nothing taken */
	assert_int_equal(srv6_fpm_feed(f, buf + used, 3, &total), 0);
	assert_int_equal(total, 0);
	blen = 0;
	srv6_fpm_free(f);
}

static void refused_and_plain(void **state)
{
	struct srv6_fpm *f = srv6_fpm_new(30);
	struct nlmsghdr *nlh;

	(void)state;
	add_sid("2001:db8:ff::20", 100, NULL);          /* a VRF's table */
	nlh = frame_begin(RTM_NEWROUTE);                /* a plain route */
	rt_put(nlh, AF_INET6, "2001:db8:5::", 64, RT_TABLE_MAIN);
	mnl_attr_put_u32(nlh, RTA_OIF, 1);
	frame_end(nlh->nlmsg_len);
	nlh = frame_begin(RTM_NEWROUTE);                /* End.X without nh6 */
	{
		struct nlattr *n;

		rt_put(nlh, AF_INET6, "2001:db8:ff::21", 128, RT_TABLE_MAIN);
		mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6_LOCAL);
		n = mnl_attr_nest_start(nlh, RTA_ENCAP);
		mnl_attr_put_u32(nlh, SEG6_LOCAL_ACTION, SEG6_LOCAL_ACTION_END_X);
		mnl_attr_nest_end(nlh, n);
	}
	frame_end(nlh->nlmsg_len);
	assert_int_equal(feed_all(f), 0);
	assert_int_equal(srv6_fpm_count(f), 0);
	assert_int_equal(srv6_fpm_stats(f)->refused_table, 1);
	assert_int_equal(srv6_fpm_stats(f)->refused, 2);
	assert_int_equal(srv6_fpm_stats(f)->not_srv6, 1);
	/* an SRv6 route replaced by a plain one: the entry goes */
	add_sid("2001:db8:5::", RT_TABLE_MAIN, NULL);
	assert_int_equal(feed_all(f), 1);
	nlh = frame_begin(RTM_NEWROUTE);
	rt_put(nlh, AF_INET6, "2001:db8:5::", 128, RT_TABLE_MAIN);
	frame_end(nlh->nlmsg_len);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 0);
	srv6_fpm_free(f);
}

static void headend_policy(void **state)
{
	struct srv6_fpm *f = srv6_fpm_new(30);
	struct nlmsghdr *nlh = frame_begin(RTM_NEWROUTE);
	struct seg6_iptunnel_encap *tun;
	struct nlattr *n;
	char tb[sizeof(*tun) + sizeof(struct ipv6_sr_hdr) + 2 * 16] __attribute__((aligned(4))) = { 0 };

	(void)state;
	tun = (void *)tb;
	tun->mode = SEG6_IPTUN_MODE_ENCAP;
	tun->srh->hdrlen = 4;
	tun->srh->type = 4;
	tun->srh->segments_left = 1;
	tun->srh->first_segment = 1;
	inet_pton(AF_INET6, "2001:db8:bb::1", &tun->srh->segments[0]);
	inet_pton(AF_INET6, "2001:db8:aa::1", &tun->srh->segments[1]);
	rt_put(nlh, AF_INET, "10.9.0.0", 16, RT_TABLE_MAIN);
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6);
	n = mnl_attr_nest_start(nlh, RTA_ENCAP);
	mnl_attr_put(nlh, SEG6_IPTUNNEL_SRH, sizeof(tb), tb);
	mnl_attr_nest_end(nlh, n);
	frame_end(nlh->nlmsg_len);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 1);
	assert_false(srv6_fpm_entry(f, 0)->is_sid);
	assert_int_equal(srv6_fpm_entry(f, 0)->route.family, AF_INET);
	assert_int_equal(srv6_fpm_entry(f, 0)->route.plen, 16);
	assert_int_equal(srv6_fpm_entry(f, 0)->route.pol.nsegs, 2);
	assert_int_equal(srv6_fpm_entry(f, 0)->route.origin, SRV6_ORIGIN_FPM);
	del_route(AF_INET, "10.9.0.0", 16);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 0);
	srv6_fpm_free(f);
}

/* A seg6 encap route (mode encap, one segment) for @dst/@plen at metric
 * @prio (0: no RTA_PRIORITY, as IPv4's default) in the frame being built. */
static void add_policy(int family, const char *dst, uint8_t plen, uint32_t prio)
{
	struct nlmsghdr *nlh = frame_begin(RTM_NEWROUTE);
	struct seg6_iptunnel_encap *tun;
	struct nlattr *n;
	char tb[sizeof(*tun) + sizeof(struct ipv6_sr_hdr) + 16] __attribute__((aligned(4))) = { 0 };

	tun = (void *)tb;
	tun->mode = SEG6_IPTUN_MODE_ENCAP;
	tun->srh->hdrlen = 2;
	tun->srh->type = 4;
	inet_pton(AF_INET6, "2001:db8:bb::1", &tun->srh->segments[0]);
	rt_put(nlh, family, dst, plen, RT_TABLE_MAIN);
	if (prio)
		mnl_attr_put_u32(nlh, RTA_PRIORITY, prio);
	mnl_attr_put_u32(nlh, RTA_OIF, 1);
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6);
	n = mnl_attr_nest_start(nlh, RTA_ENCAP);
	mnl_attr_put(nlh, SEG6_IPTUNNEL_SRH, sizeof(tb), tb);
	mnl_attr_nest_end(nlh, n);
	frame_end(nlh->nlmsg_len);
}

/* The kernel mirror's store (sids-from / routes-from kernel): a policy's
 * metric is one below the kernel route's, metric 0 is refused, and what
 * the store does not take counts as not SRv6. */
static void kernel_policies(void **state)
{
	struct srv6_fpm *f = srv6_fpm_new(0);
	const struct srv6_fpm_entry *e;
	uint8_t a[16];

	(void)state;
	srv6_fpm_configure(f, SRV6_ORIGIN_KERNEL, RT_TABLE_MAIN, SRV6_FPM_TAKE_ROUTES);
	add_policy(AF_INET6, "2001:db8:99::", 64, 1024);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 1);
	inet_pton(AF_INET6, "2001:db8:99::", a);
	e = srv6_fpm_find(f, AF_INET6, a, 64);
	assert_non_null(e);
	assert_false(e->is_sid);
	assert_int_equal(e->route.origin, SRV6_ORIGIN_KERNEL);
	assert_true(e->route.has_metric);
	assert_int_equal(e->route.metric, 1023);
	/* IPv4 at metric 10: srv6d's at 9 */
	add_policy(AF_INET, "10.9.0.0", 16, 10);
	assert_int_equal(feed_all(f), 1);
	inet_pton(AF_INET, "10.9.0.0", a);
	e = srv6_fpm_find(f, AF_INET, a, 16);
	assert_non_null(e);
	assert_int_equal(e->route.metric, 9);
	/* IPv4 at metric 0: nothing can go before it, refused (the kernel keeps it) */
	add_policy(AF_INET, "10.8.0.0", 16, 0);
	assert_int_equal(feed_all(f), 0);
	inet_pton(AF_INET, "10.8.0.0", a);
	assert_null(srv6_fpm_find(f, AF_INET, a, 16));
	assert_int_equal(srv6_fpm_stats(f)->refused, 1);
	/* IPv6 at metric 1: srv6d's would be 0, which the kernel makes 1024 */
	add_policy(AF_INET6, "2001:db8:97::", 64, 1);
	assert_int_equal(feed_all(f), 0);
	inet_pton(AF_INET6, "2001:db8:97::", a);
	assert_null(srv6_fpm_find(f, AF_INET6, a, 64));
	assert_int_equal(srv6_fpm_stats(f)->refused, 2);
	/* IPv6 at 2: srv6d's at 1 */
	add_policy(AF_INET6, "2001:db8:96::", 64, 2);
	assert_int_equal(feed_all(f), 1);
	inet_pton(AF_INET6, "2001:db8:96::", a);
	assert_int_equal(srv6_fpm_find(f, AF_INET6, a, 64)->route.metric, 1);
	/* its delete names its metric (one without is another route's) */
	del_route(AF_INET6, "2001:db8:96::", 64);
	assert_int_equal(feed_all(f), 0);
	{
		struct nlmsghdr *nlh = frame_begin(RTM_DELROUTE);

		rt_put(nlh, AF_INET6, "2001:db8:96::", 64, RT_TABLE_MAIN);
		mnl_attr_put_u32(nlh, RTA_PRIORITY, 2);
		frame_end(nlh->nlmsg_len);
	}
	assert_int_equal(feed_all(f), 1);
	/* a SID: routes-from alone does not take it */
	add_sid("2001:db8:ff::9", RT_TABLE_MAIN, NULL);
	assert_int_equal(feed_all(f), 0);
	assert_int_equal(srv6_fpm_count(f), 2);
	assert_int_equal(srv6_fpm_stats(f)->not_srv6, 1);
	/* the kernel route of another metric is another route: no change */
	add_policy(AF_INET6, "2001:db8:99::", 64, 2000);
	assert_int_equal(feed_all(f), 0);
	inet_pton(AF_INET6, "2001:db8:99::", a);
	assert_int_equal(srv6_fpm_find(f, AF_INET6, a, 64)->route.metric, 1023);
	srv6_fpm_free(f);
	/* sids-from alone: the SID, not the policy */
	f = srv6_fpm_new(0);
	srv6_fpm_configure(f, SRV6_ORIGIN_KERNEL, RT_TABLE_MAIN, SRV6_FPM_TAKE_SIDS);
	add_policy(AF_INET6, "2001:db8:99::", 64, 1024);
	add_sid("2001:db8:ff::9", RT_TABLE_MAIN, NULL);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 1);
	assert_true(srv6_fpm_entry(f, 0)->is_sid);
	assert_int_equal(srv6_fpm_stats(f)->not_srv6, 1);
	srv6_fpm_free(f);
}

static void nh_put(uint32_t id, uint32_t action)
{
	struct nlmsghdr *nlh = frame_begin(RTM_NEWNEXTHOP);
	struct nhmsg *nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));
	struct nlattr *n;

	nhm->nh_family = AF_INET6;
	mnl_attr_put_u32(nlh, NHA_ID, id);
	mnl_attr_put_u32(nlh, NHA_OIF, 1);
	mnl_attr_put_u16(nlh, NHA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6_LOCAL);
	n = mnl_attr_nest_start(nlh, NHA_ENCAP);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_ACTION, action);
	if (action == SEG6_LOCAL_ACTION_END_T)
		mnl_attr_put_u32(nlh, SEG6_LOCAL_TABLE, 100);
	mnl_attr_nest_end(nlh, n);
	frame_end(nlh->nlmsg_len);
}

static void nexthop_objects(void **state)
{
	struct srv6_fpm *f = srv6_fpm_new(30);
	struct nlmsghdr *nlh;

	(void)state;
	/* a route naming an unknown nexthop: kept for it */
	nlh = frame_begin(RTM_NEWROUTE);
	rt_put(nlh, AF_INET6, "2001:db8:ff::31", 128, RT_TABLE_MAIN);
	mnl_attr_put_u32(nlh, RTA_NH_ID, 9);
	frame_end(nlh->nlmsg_len);
	assert_int_equal(feed_all(f), 0);
	assert_int_equal(srv6_fpm_parked(f), 1);
	assert_int_equal(srv6_fpm_count(f), 0);
	nh_put(7, SEG6_LOCAL_ACTION_END);
	nlh = frame_begin(RTM_NEWROUTE);
	rt_put(nlh, AF_INET6, "2001:db8:ff::21", 128, RT_TABLE_MAIN);
	mnl_attr_put_u32(nlh, RTA_NH_ID, 7);
	frame_end(nlh->nlmsg_len);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 1);
	assert_int_equal(srv6_fpm_entry(f, 0)->sid.cfg.action, SRV6_ACT_END);
	/* the same nexthop again: nothing; changed to End.T: the route follows */
	nh_put(7, SEG6_LOCAL_ACTION_END);
	assert_int_equal(feed_all(f), 0);
	nh_put(7, SEG6_LOCAL_ACTION_END_T);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_entry(f, 0)->sid.cfg.action, SRV6_ACT_END_T);
	assert_int_equal(srv6_fpm_stats(f)->nexthops, 3);
	assert_int_equal(srv6_fpm_stats(f)->adds, 2);    /* zebra's, not the re-decode */
	srv6_fpm_free(f);
}

static void malformed(void **state)
{
	struct srv6_fpm *f = srv6_fpm_new(30);
	struct nlmsghdr *nlh;
	size_t used;

	(void)state;
	add_sid("2001:db8:ff::1", RT_TABLE_MAIN, NULL);
	buf[blen] = 2;       /* version 2 */
	buf[blen + 1] = 1;
	buf[blen + 2] = 0;
	buf[blen + 3] = 20;
	memset(buf + blen + 4, 0, 16);
	assert_int_equal(srv6_fpm_feed(f, buf, blen + 20, &used), -EPROTO);
	assert_int_equal(used, blen);       /* the frame before it was taken */
	assert_int_equal(srv6_fpm_count(f), 1);
	blen = 0;
	/* a frame shorter than a netlink header */
	memcpy(buf, "\x01\x01\x00\x08\0\0\0\0", 8);
	assert_int_equal(srv6_fpm_feed(f, buf, 8, &used), -EPROTO);
	/* a message claiming more than its frame */
	nlh = frame_begin(RTM_NEWROUTE);
	sid_msg(nlh, "2001:db8:ff::2", RT_TABLE_MAIN, NULL);
	frame_end(nlh->nlmsg_len);
	nlh->nlmsg_len += 8;
	assert_int_equal(srv6_fpm_feed(f, buf, blen, &used), -EPROTO);
	blen = 0;
	/* a route message too short for its rtmsg */
	nlh = frame_begin(RTM_NEWROUTE);
	frame_end(nlh->nlmsg_len);
	assert_int_equal(srv6_fpm_feed(f, buf, blen, &used), -EPROTO);
	blen = 0;
	/* other types are counted and skipped */
	nlh = frame_begin(RTM_NEWNEIGH);
	mnl_nlmsg_put_extra_header(nlh, 12);
	frame_end(nlh->nlmsg_len);
	assert_int_equal(feed_all(f), 0);
	assert_int_equal(srv6_fpm_stats(f)->other, 1);
	assert_int_equal(srv6_fpm_stats(f)->bad, 4);
	srv6_fpm_free(f);
}

static void grace(void **state)
{
	struct srv6_fpm *f = srv6_fpm_new(30);

	(void)state;
	add_sid("2001:db8:ff::1", RT_TABLE_MAIN, NULL);
	add_sid("2001:db8:ff::2", RT_TABLE_MAIN, NULL);
	assert_int_equal(feed_all(f), 1);
	srv6_fpm_session_lost(f, 100);
	assert_true(srv6_fpm_entry(f, 0)->stale && srv6_fpm_entry(f, 1)->stale);
	assert_int_equal(srv6_fpm_tick(f, 129), 0);
	assert_int_equal(srv6_fpm_count(f), 2);
	/* the next session replays ::1 only */
	add_sid("2001:db8:ff::1", RT_TABLE_MAIN, NULL);
	assert_int_equal(feed_all(f), 0);
	assert_false(srv6_fpm_entry(f, 0)->stale);
	assert_int_equal(srv6_fpm_tick(f, 130), 1);
	assert_int_equal(srv6_fpm_count(f), 1);
	assert_int_equal(srv6_fpm_stats(f)->expired, 1);
	assert_int_equal(srv6_fpm_tick(f, 200), 0);      /* once */
	/* grace 0: gone at the next tick */
	srv6_fpm_free(f);
	f = srv6_fpm_new(0);
	add_sid("2001:db8:ff::1", RT_TABLE_MAIN, NULL);
	assert_int_equal(feed_all(f), 1);
	srv6_fpm_session_lost(f, 50);
	assert_int_equal(srv6_fpm_tick(f, 50), 1);
	assert_int_equal(srv6_fpm_count(f), 0);
	srv6_fpm_free(f);
}

/* A route naming nexthop @id (no encap of its own). */
static void nh_route(const char *dst, uint32_t id)
{
	struct nlmsghdr *nlh = frame_begin(RTM_NEWROUTE);

	rt_put(nlh, AF_INET6, dst, 128, RT_TABLE_MAIN);
	mnl_attr_put_u32(nlh, RTA_NH_ID, id);
	frame_end(nlh->nlmsg_len);
}

/* A nexthop without an encap (a plain one). */
static void nh_plain(uint32_t id)
{
	struct nlmsghdr *nlh = frame_begin(RTM_NEWNEXTHOP);
	struct nhmsg *nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));

	nhm->nh_family = AF_INET6;
	mnl_attr_put_u32(nlh, NHA_ID, id);
	mnl_attr_put_u32(nlh, NHA_OIF, 1);
	frame_end(nlh->nlmsg_len);
}

static void nexthop_late_and_moves(void **state)
{
	struct srv6_fpm *f = srv6_fpm_new(30);

	(void)state;
	/* the route first, its nexthop after: parked, then an entry */
	nh_route("2001:db8:ff::21", 7);
	assert_int_equal(feed_all(f), 0);
	assert_int_equal(srv6_fpm_count(f), 0);
	nh_put(7, SEG6_LOCAL_ACTION_END);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 1);
	/* the nexthop changes: the route follows */
	nh_put(7, SEG6_LOCAL_ACTION_END_T);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_entry(f, 0)->sid.cfg.action, SRV6_ACT_END_T);
	/* the route moves to nexthop 8 with the same result: 7's changes no
	 * longer touch it, 8's do */
	nh_put(8, SEG6_LOCAL_ACTION_END_T);
	assert_int_equal(feed_all(f), 0);
	nh_route("2001:db8:ff::21", 8);
	assert_int_equal(feed_all(f), 0);
	nh_put(7, SEG6_LOCAL_ACTION_END);
	assert_int_equal(feed_all(f), 0);
	assert_int_equal(srv6_fpm_entry(f, 0)->sid.cfg.action, SRV6_ACT_END_T);
	nh_put(8, SEG6_LOCAL_ACTION_END);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_entry(f, 0)->sid.cfg.action, SRV6_ACT_END);
	/* re-decodes count nothing zebra did not send */
	assert_int_equal(srv6_fpm_stats(f)->adds, 2);
	assert_int_equal(srv6_fpm_stats(f)->refused, 0);
	/* a nexthop without SRv6: the route's entry goes, and is not kept (a
	 * full table of plain routes would be); zebra sends a route again
	 * when its nexthop group changes */
	nh_plain(8);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 0);
	assert_int_equal(srv6_fpm_parked(f), 0);
	nh_route("2001:db8:ff::21", 7);
	assert_int_equal(feed_all(f), 1);
	/* RTM_DELNEXTHOP forgets it and the routes naming it (the kernel
	 * deletes them silently) */
	{
		struct nlmsghdr *nlh = frame_begin(RTM_DELNEXTHOP);
		struct nhmsg *nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));

		nhm->nh_family = AF_INET6;
		mnl_attr_put_u32(nlh, NHA_ID, 7);
		frame_end(nlh->nlmsg_len);
	}
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 0);
	/* plain routes through plain nexthops: neither stored nor parked */
	nh_plain(9);
	for (int i = 0; i < 50; i++) {
		char a[64];

		snprintf(a, sizeof(a), "2001:db8:5::%x", i + 1);
		nh_route(a, 9);
	}
	assert_int_equal(feed_all(f), 0);
	assert_int_equal(srv6_fpm_count(f) + srv6_fpm_parked(f), 0);
	srv6_fpm_free(f);
}

static void stale_survives_redecode(void **state)
{
	struct srv6_fpm *f = srv6_fpm_new(30);

	(void)state;
	nh_put(7, SEG6_LOCAL_ACTION_END);
	nh_route("2001:db8:ff::21", 7);
	assert_int_equal(feed_all(f), 1);
	srv6_fpm_session_lost(f, 100);
	/* the next session (a restarted zebra: ids from scratch) sends only
	 * nexthop 7, something else now: the old route is not revived */
	nh_put(7, SEG6_LOCAL_ACTION_END_T);
	assert_int_equal(feed_all(f), 1);
	assert_true(srv6_fpm_entry(f, 0)->stale);
	assert_int_equal(srv6_fpm_tick(f, 130), 1);
	assert_int_equal(srv6_fpm_count(f), 0);
	/* a stale parked route whose nexthop comes in the next session stays
	 * stale: gone when the grace time ends */
	nh_route("2001:db8:ff::23", 77);
	assert_int_equal(feed_all(f), 0);
	assert_int_equal(srv6_fpm_parked(f), 1);
	srv6_fpm_session_lost(f, 140);
	nh_put(77, SEG6_LOCAL_ACTION_END);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 1);
	assert_true(srv6_fpm_entry(f, 0)->stale);
	assert_int_equal(srv6_fpm_tick(f, 170), 1);
	assert_int_equal(srv6_fpm_count(f) + srv6_fpm_parked(f), 0);
	/* stale nexthops go too: a route naming 7 now waits */
	srv6_fpm_session_lost(f, 200);
	assert_int_equal(srv6_fpm_tick(f, 230), 0);
	nh_route("2001:db8:ff::22", 7);
	assert_int_equal(feed_all(f), 0);
	assert_int_equal(srv6_fpm_count(f), 0);
	srv6_fpm_free(f);
}

static void mpls_and_table0(void **state)
{
	struct srv6_fpm *f = srv6_fpm_new(30);
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	(void)state;
	/* an MPLS label route (zebra's LSPs): other, the session stays */
	nlh = frame_begin(RTM_NEWROUTE);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = 28;    /* AF_MPLS */
	rtm->rtm_dst_len = 20;
	mnl_attr_put_u32(nlh, RTA_DST, 0x00010100);
	frame_end(nlh->nlmsg_len);
	assert_int_equal(feed_all(f), 0);
	assert_int_equal(srv6_fpm_stats(f)->other, 1);
	assert_int_equal(srv6_fpm_stats(f)->bad, 0);
	/* table 0 is main: one entry, not two */
	add_sid("2001:db8:ff::1", RT_TABLE_MAIN, NULL);
	nlh = frame_begin(RTM_NEWROUTE);
	sid_msg(nlh, "2001:db8:ff::1", 0, "2001:db8:2::2");
	frame_end(nlh->nlmsg_len);
	assert_int_equal(feed_all(f), 1);
	assert_int_equal(srv6_fpm_count(f), 1);
	assert_int_equal(srv6_fpm_entry(f, 0)->sid.cfg.action, SRV6_ACT_END_X);
	/* a route with a bad prefix length: refused, the session stays */
	nlh = frame_begin(RTM_NEWROUTE);
	rtm = rt_put(nlh, AF_INET6, "2001:db8:ff::2", 128, RT_TABLE_MAIN);
	rtm->rtm_dst_len = 200;
	frame_end(nlh->nlmsg_len);
	assert_int_equal(feed_all(f), 0);
	assert_int_equal(srv6_fpm_stats(f)->refused, 1);
	srv6_fpm_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(add_del_replay),
		cmocka_unit_test(partial_and_multi),
		cmocka_unit_test(refused_and_plain),
		cmocka_unit_test(headend_policy),
		cmocka_unit_test(kernel_policies),
		cmocka_unit_test(nexthop_objects),
		cmocka_unit_test(malformed),
		cmocka_unit_test(grace),
		cmocka_unit_test(nexthop_late_and_moves),
		cmocka_unit_test(stale_survives_redecode),
		cmocka_unit_test(mpls_and_table0),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
