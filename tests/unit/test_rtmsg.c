// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_rtmsg.c - the one decoder of seg6local / seg6 route messages
 * (src/conf/rtmsg.c): messages built here as the kernel and zebra's
 * dplane_fpm_nl build them (libmnl), decoded to the words `ip route show`
 * prints and to srv6d.conf lines; and what a hostile peer could send
 * (short attributes, a length past the buffer, an SRH that claims more
 * segments than it has) refused with -EINVAL, never read past.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <linux/seg6.h>
#include <linux/seg6_iptunnel.h>
#include <linux/seg6_local.h>

#include "srv6d/rtmsg.h"

static char rbuf[2048] __attribute__((aligned(8)));
static char nbuf[2048] __attribute__((aligned(8)));
static char words[1024];

/* ifindex 3 is "eth1", 4 "eth2", anything else has no name */
static const char *names(unsigned int ifindex, char *buf, void *arg)
{
	(void)arg;
	if (ifindex == 3 || ifindex == 4) {
		snprintf(buf, IF_NAMESIZE, "eth%u", ifindex - 2);
		return buf;
	}
	return NULL;
}

static struct nlmsghdr *route(int family, const char *dst, uint8_t plen, uint32_t table)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(rbuf);
	struct rtmsg *rtm;
	uint8_t a[16];

	nlh->nlmsg_type = RTM_NEWROUTE;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = (uint8_t)family;
	rtm->rtm_dst_len = plen;
	rtm->rtm_table = table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = RTPROT_ZEBRA;
	rtm->rtm_type = RTN_UNICAST;
	if (dst) {
		assert_int_equal(inet_pton(family, dst, a), 1);
		mnl_attr_put(nlh, RTA_DST, family == AF_INET6 ? 16 : 4, a);
	}
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	return nlh;
}

static void put6(struct nlmsghdr *nlh, uint16_t type, const char *addr)
{
	struct in6_addr a;

	assert_int_equal(inet_pton(AF_INET6, addr, &a), 1);
	mnl_attr_put(nlh, type, sizeof(a), &a);
}

/* RTA_ENCAP_TYPE seg6local + RTA_ENCAP { ACTION @act, ... } opened: the
 * caller adds the action's attributes and closes the nest. */
static struct nlattr *seg6local(struct nlmsghdr *nlh, uint16_t etype, uint16_t encap, uint32_t act)
{
	struct nlattr *n;

	mnl_attr_put_u16(nlh, etype, LWTUNNEL_ENCAP_SEG6_LOCAL);
	n = mnl_attr_nest_start(nlh, encap);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_ACTION, act);
	return n;
}

/* An SRH of @n segments (travel order in @segs) into @out; its length. */
static size_t srh(uint8_t *out, const char *const *segs, int n)
{
	struct ipv6_sr_hdr *h = (struct ipv6_sr_hdr *)out;

	memset(h, 0, sizeof(*h));
	h->hdrlen = (uint8_t)(n * 2);
	h->type = 4;
	h->segments_left = (uint8_t)(n - 1);
	h->first_segment = (uint8_t)(n - 1);
	for (int i = 0; i < n; i++)
		assert_int_equal(inet_pton(AF_INET6, segs[i], &h->segments[n - 1 - i]), 1);
	return sizeof(*h) + (size_t)n * 16;
}

static void seg6_encap(struct nlmsghdr *nlh, uint16_t etype, uint16_t encap, int mode,
		       const char *const *segs, int n)
{
	uint8_t b[sizeof(struct seg6_iptunnel_encap) + 8 + 16 * 8];
	struct seg6_iptunnel_encap *t = (struct seg6_iptunnel_encap *)b;
	struct nlattr *nest;
	size_t l;

	t->mode = mode;
	l = srh((uint8_t *)t->srh, segs, n);
	mnl_attr_put_u16(nlh, etype, LWTUNNEL_ENCAP_SEG6);
	nest = mnl_attr_nest_start(nlh, encap);
	mnl_attr_put(nlh, SEG6_IPTUNNEL_SRH, sizeof(*t) + l, b);
	mnl_attr_nest_end(nlh, nest);
}

static int words_of(const struct nlmsghdr *nh)
{
	return srv6_rtmsg_words((struct nlmsghdr *)rbuf, nh, names, NULL, words, sizeof(words));
}

static void end_x(void **state)
{
	struct nlmsghdr *nlh = route(AF_INET6, "fc00:0:1::1", 128, RT_TABLE_MAIN);
	struct nlattr *n = seg6local(nlh, RTA_ENCAP_TYPE, RTA_ENCAP, SEG6_LOCAL_ACTION_END_X);
	char line[512], warn[256];
	struct srv6_rtkey k;

	(void)state;
	put6(nlh, SEG6_LOCAL_NH6, "fe80::2");
	mnl_attr_nest_end(nlh, n);
	mnl_attr_put_u32(nlh, RTA_OIF, 3);

	assert_int_equal(words_of(NULL), 1);
	assert_string_equal(words, "fc00:0:1::1 encap seg6local action End.X nh6 fe80::2 dev eth1");
	assert_int_equal(srv6_rtmsg_key(nlh, nlh->nlmsg_len, &k), 0);
	assert_int_equal(k.family, AF_INET6);
	assert_int_equal(k.plen, 128);
	assert_int_equal(k.table, RT_TABLE_MAIN);
	assert_int_equal(k.encap_type, LWTUNNEL_ENCAP_SEG6_LOCAL);
	assert_int_equal(srv6_rtmsg_conf(nlh, NULL, names, NULL, line, sizeof(line), warn,
					 sizeof(warn)), 1);
	assert_string_equal(line, "sid fc00:0:1::1 action End.X nh6 fe80::2 dev eth1");
}

static void end_dt6_flavors(void **state)
{
	struct nlmsghdr *nlh = route(AF_INET6, "fc00:0:1::", 48, 1000);
	struct nlattr *n = seg6local(nlh, RTA_ENCAP_TYPE, RTA_ENCAP, SEG6_LOCAL_ACTION_END_DT6);
	struct nlattr *f;

	(void)state;
	mnl_attr_put_u32(nlh, SEG6_LOCAL_TABLE, 100);
	f = mnl_attr_nest_start(nlh, SEG6_LOCAL_FLAVORS);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_FLV_OPERATION,
			 1u << SEG6_LOCAL_FLV_OP_PSP | 1u << SEG6_LOCAL_FLV_OP_USD);
	mnl_attr_nest_end(nlh, f);
	mnl_attr_nest_end(nlh, n);
	mnl_attr_put_u32(nlh, RTA_OIF, 4);
	assert_int_equal(words_of(NULL), 1);
	assert_string_equal(words, "fc00:0:1::/48 encap seg6local action End.DT6 table 100 "
			    "flavors psp,usd dev eth2 table 1000");
}

static void next_csid(void **state)
{
	struct nlmsghdr *nlh = route(AF_INET6, "fc00:0:1::", 48, RT_TABLE_MAIN);
	struct nlattr *n = seg6local(nlh, RTA_ENCAP_TYPE, RTA_ENCAP, SEG6_LOCAL_ACTION_END);
	struct nlattr *f;

	(void)state;
	f = mnl_attr_nest_start(nlh, SEG6_LOCAL_FLAVORS);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_FLV_OPERATION, 1u << SEG6_LOCAL_FLV_OP_NEXT_CSID);
	mnl_attr_put_u8(nlh, SEG6_LOCAL_FLV_LCBLOCK_BITS, 32);
	mnl_attr_put_u8(nlh, SEG6_LOCAL_FLV_LCNODE_FN_BITS, 16);
	mnl_attr_nest_end(nlh, f);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(words_of(NULL), 1);
	assert_string_equal(words, "fc00:0:1::/48 encap seg6local action End flavors next-csid "
			    "lblen 32 nflen 16");
}

static void headend_v4(void **state)
{
	static const char *const segs[] = { "fc00:0:2::100", "fc00:0:3::" };
	struct nlmsghdr *nlh = route(AF_INET, "10.2.0.0", 24, RT_TABLE_MAIN);
	char line[512], warn[256];

	(void)state;
	seg6_encap(nlh, RTA_ENCAP_TYPE, RTA_ENCAP, SEG6_IPTUN_MODE_ENCAP, segs, 2);
	mnl_attr_put_u32(nlh, RTA_OIF, 3);
	assert_int_equal(words_of(NULL), 1);
	assert_string_equal(words, "10.2.0.0/24 encap seg6 mode encap segs 2 "
			    "[ fc00:0:2::100 fc00:0:3:: ] dev eth1");
	assert_int_equal(srv6_rtmsg_conf(nlh, NULL, names, NULL, line, sizeof(line), warn,
					 sizeof(warn)), 1);
	assert_non_null(strstr(line, "10.2.0.0/24"));
	assert_non_null(strstr(line, "fc00:0:2::100"));
}

/* zebra's default (fpm use-next-hop-groups): the route names a nexthop
 * object, whose encap, gateway and device are the route's. */
static void nexthop_object(void **state)
{
	static const char *const segs[] = { "fc00:0:9::1" };
	struct nlmsghdr *nlh = route(AF_INET6, "2001:db8::", 64, RT_TABLE_MAIN);
	struct nlmsghdr *nh = mnl_nlmsg_put_header(nbuf);
	struct nhmsg *nm;
	uint32_t id = 0;

	(void)state;
	mnl_attr_put_u32(nlh, RTA_NH_ID, 7);
	assert_int_equal(words_of(NULL), 0);        /* nothing in the route itself */
	assert_string_equal(words, "");

	nh->nlmsg_type = RTM_NEWNEXTHOP;
	nm = mnl_nlmsg_put_extra_header(nh, sizeof(*nm));
	nm->nh_family = AF_INET6;
	mnl_attr_put_u32(nh, NHA_ID, 7);
	put6(nh, NHA_GATEWAY, "fe80::1");
	mnl_attr_put_u32(nh, NHA_OIF, 3);
	seg6_encap(nh, NHA_ENCAP_TYPE, NHA_ENCAP, SEG6_IPTUN_MODE_ENCAP_RED, segs, 1);
	assert_int_equal(srv6_nhmsg_id(nh, nh->nlmsg_len, &id), 0);
	assert_int_equal(id, 7);
	assert_int_equal(words_of(nh), 1);
	assert_string_equal(words, "2001:db8::/64 encap seg6 mode encap.red segs 1 [ fc00:0:9::1 ] "
			    "via fe80::1 dev eth1");
}

static void plain_route(void **state)
{
	struct nlmsghdr *nlh = route(AF_INET6, "2001:db8::", 64, RT_TABLE_MAIN);

	(void)state;
	mnl_attr_put_u32(nlh, RTA_OIF, 3);
	put6(nlh, RTA_GATEWAY, "fe80::1");
	assert_int_equal(words_of(NULL), 0);
	assert_string_equal(words, "");
}

/* A device srv6d cannot name stays visible ("if9"): the line names a device
 * no system has, so the SID fails where srv6d resolves the conf's devices,
 * naming it, instead of losing its device silently. */
static void unnamed_device(void **state)
{
	struct nlmsghdr *nlh = route(AF_INET6, "fc00::10", 128, RT_TABLE_MAIN);
	struct nlattr *n = seg6local(nlh, RTA_ENCAP_TYPE, RTA_ENCAP, SEG6_LOCAL_ACTION_END_DX6);
	char line[512], warn[256];

	(void)state;
	put6(nlh, SEG6_LOCAL_NH6, "2001:db8::2");
	mnl_attr_nest_end(nlh, n);
	mnl_attr_put_u32(nlh, RTA_OIF, 9);
	assert_int_equal(words_of(NULL), 1);
	assert_string_equal(words, "fc00::10 encap seg6local action End.DX6 nh6 2001:db8::2 dev if9");
	assert_int_equal(srv6_rtmsg_conf(nlh, NULL, names, NULL, line, sizeof(line), warn,
					 sizeof(warn)), 1);
	assert_string_equal(line, "sid fc00::10 action End.DX6 nh6 2001:db8::2 dev if9");
}

static void short_attribute(void **state)
{
	struct nlmsghdr *nlh = route(AF_INET6, "fc00::10", 128, RT_TABLE_MAIN);
	struct nlattr *n = seg6local(nlh, RTA_ENCAP_TYPE, RTA_ENCAP, SEG6_LOCAL_ACTION_END_X);
	char line[512], warn[256];

	(void)state;
	mnl_attr_put(nlh, SEG6_LOCAL_NH6, 8, "12345678");   /* half an address */
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(words_of(NULL), -EINVAL);
	assert_string_equal(words, "");
	assert_int_equal(srv6_rtmsg_conf(nlh, NULL, names, NULL, line, sizeof(line), warn,
					 sizeof(warn)), -EINVAL);
	assert_string_equal(warn, "malformed route message");
}

static void srh_overclaims(void **state)
{
	static const char *const segs[] = { "fc00::1" };
	struct nlmsghdr *nlh = route(AF_INET6, "2001:db8::", 64, RT_TABLE_MAIN);
	struct nlattr *attr, *a;
	struct seg6_iptunnel_encap *t;
	struct ipv6_sr_hdr *h;

	(void)state;
	seg6_encap(nlh, RTA_ENCAP_TYPE, RTA_ENCAP, SEG6_IPTUN_MODE_ENCAP, segs, 1);
	assert_int_equal(words_of(NULL), 1);
	/* the SRH now claims four segments in the room of one */
	mnl_attr_for_each(attr, nlh, sizeof(struct rtmsg)) {
		if (mnl_attr_get_type(attr) != RTA_ENCAP)
			continue;
		a = mnl_attr_get_payload(attr);
		t = mnl_attr_get_payload(a);
		h = (struct ipv6_sr_hdr *)t->srh;
		h->first_segment = 3;
	}
	assert_int_equal(words_of(NULL), -EINVAL);
	assert_string_equal(words, "");
}

/* The message says it is longer than what was received. */
static void length_past_buffer(void **state)
{
	struct nlmsghdr *nlh = route(AF_INET6, "fc00::10", 128, RT_TABLE_MAIN);
	struct srv6_rtkey k;
	uint32_t id;

	(void)state;
	assert_int_equal(srv6_rtmsg_key(nlh, nlh->nlmsg_len, &k), 0);
	assert_int_equal(srv6_rtmsg_key(nlh, nlh->nlmsg_len - 4, &k), -EINVAL);
	assert_int_equal(srv6_rtmsg_key(nlh, 8, &k), -EINVAL);
	nlh->nlmsg_len = NLMSG_LENGTH(4);   /* shorter than struct rtmsg */
	assert_int_equal(srv6_rtmsg_key(nlh, sizeof(rbuf), &k), -EINVAL);
	assert_int_equal(srv6_nhmsg_id(nlh, sizeof(rbuf), &id), -EINVAL);
	((struct rtmsg *)mnl_nlmsg_get_payload(route(AF_UNIX, NULL, 0, 254)))->rtm_family = AF_UNIX;
	assert_int_equal(srv6_rtmsg_key((struct nlmsghdr *)rbuf, sizeof(rbuf), &k), -EINVAL);
}

/* What FRR 8.4's zebra (Debian 12's frr, -M dplane_fpm_nl) sent over FPM for
 * a namespace with `ipv6 address fc00:0:1::1/128` on lo and a locator
 * `prefix fc00:0:1::/48 func-bits 16` (status Up): the netlink messages of
 * its two frames, FPM headers (version 1, type 1, length) stripped,
 * captured 2026-12-06.  A nexthop object and the connected route using it;
 * no SID route for the locator (docs/CONTROL.md, "zebra's FPM").  `ip -6
 * monitor file` prints them as "id 2 dev lo proto zebra" and
 * "fc00:0:1::1 nhid 2 proto kernel metric 20". */
static const uint8_t zebra84[] __attribute__((aligned(8))) = {
	0x28, 0x00, 0x00, 0x00, 0x68, 0x00, 0x01, 0x05, 0x00, 0x00, 0x00, 0x00,
	0xd8, 0x57, 0xf0, 0xee, 0x0a, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x08, 0x00, 0x05, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x18, 0x00, 0x01, 0x04,
	0x00, 0x00, 0x00, 0x00, 0xd8, 0x57, 0xf0, 0xee, 0x0a, 0x80, 0x00, 0x00,
	0xfe, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x01, 0x00,
	0xfc, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x06, 0x00, 0x14, 0x00, 0x00, 0x00,
	0x08, 0x00, 0x1e, 0x00, 0x02, 0x00, 0x00, 0x00,
};

static void zebra84_capture(void **state)
{
	const struct nlmsghdr *nh = (const void *)zebra84, *rt;
	struct srv6_rtkey k;
	uint32_t id = 0;
	uint8_t want[16];

	(void)state;
	assert_int_equal(nh->nlmsg_type, RTM_NEWNEXTHOP);
	assert_int_equal(srv6_nhmsg_id(nh, sizeof(zebra84), &id), 0);
	assert_int_equal(id, 2);
	rt = (const void *)(zebra84 + NLMSG_ALIGN(nh->nlmsg_len));
	assert_int_equal(rt->nlmsg_type, RTM_NEWROUTE);
	assert_int_equal(srv6_rtmsg_key(rt, sizeof(zebra84) - NLMSG_ALIGN(nh->nlmsg_len), &k), 0);
	inet_pton(AF_INET6, "fc00:0:1::1", want);
	assert_memory_equal(k.dst, want, 16);
	assert_int_equal(k.plen, 128);
	assert_int_equal(k.table, RT_TABLE_MAIN);
	assert_int_equal(k.nhid, 2);
	assert_int_equal(k.encap_type, 0);
	memcpy(rbuf, rt, rt->nlmsg_len);
	assert_int_equal(words_of(nh), 0);      /* no SRv6 in it: nothing to take */
	assert_string_equal(words, "");
}

static void end_dx4_vrftable(void **state)
{
	struct nlmsghdr *nlh = route(AF_INET6, "fc00::d4", 128, RT_TABLE_MAIN);
	struct nlattr *n = seg6local(nlh, RTA_ENCAP_TYPE, RTA_ENCAP, SEG6_LOCAL_ACTION_END_DX4);
	struct in_addr a4;

	(void)state;
	inet_pton(AF_INET, "192.0.2.2", &a4);
	mnl_attr_put(nlh, SEG6_LOCAL_NH4, 4, &a4);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_IIF, 4);
	mnl_attr_nest_end(nlh, n);
	mnl_attr_put_u32(nlh, RTA_OIF, 3);
	assert_int_equal(words_of(NULL), 1);
	assert_string_equal(words, "fc00::d4 encap seg6local action End.DX4 nh4 192.0.2.2 iif eth2 dev eth1");

	nlh = route(AF_INET6, "fc00::46", 128, RT_TABLE_MAIN);
	n = seg6local(nlh, RTA_ENCAP_TYPE, RTA_ENCAP, SEG6_LOCAL_ACTION_END_DT46);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_VRFTABLE, 100);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(words_of(NULL), 1);
	assert_string_equal(words, "fc00::46 encap seg6local action End.DT46 vrftable 100");
}

/* A seg6 route without RTA_DST is the default route; a prefix length
 * without a prefix is refused. */
static void default_route(void **state)
{
	static const char *const segs[] = { "fc00::1" };
	struct nlmsghdr *nlh = route(AF_INET6, NULL, 0, RT_TABLE_MAIN);

	(void)state;
	seg6_encap(nlh, RTA_ENCAP_TYPE, RTA_ENCAP, SEG6_IPTUN_MODE_INLINE, segs, 1);
	assert_int_equal(words_of(NULL), 1);
	assert_string_equal(words, "default encap seg6 mode inline segs 1 [ fc00::1 ]");
	nlh = route(AF_INET6, NULL, 64, RT_TABLE_MAIN);
	seg6_encap(nlh, RTA_ENCAP_TYPE, RTA_ENCAP, SEG6_IPTUN_MODE_INLINE, segs, 1);
	assert_int_equal(words_of(NULL), -EINVAL);
}

/* The HMAC TLV (flag 0x08, the last 40 bytes of the SRH): its key id in
 * hex, as iproute2 prints it; an SRH whose hdrlen claims more than the
 * attribute holds is refused. */
static void srh_hmac_and_hdrlen(void **state)
{
	struct nlmsghdr *nlh = route(AF_INET6, "2001:db8::", 64, RT_TABLE_MAIN);
	uint8_t b[sizeof(struct seg6_iptunnel_encap) + 8 + 16 + 40] = { 0 };
	struct seg6_iptunnel_encap *t = (struct seg6_iptunnel_encap *)b;
	struct ipv6_sr_hdr *h = (struct ipv6_sr_hdr *)t->srh;
	uint8_t *tlv = (uint8_t *)h + 8 + 16;
	struct nlattr *nest;

	(void)state;
	t->mode = SEG6_IPTUN_MODE_ENCAP;
	h->hdrlen = (16 + 40) / 8;
	h->type = 4;
	h->flags = 0x08;
	inet_pton(AF_INET6, "fc00::1", &h->segments[0]);
	tlv[0] = 5;             /* SR6_TLV_HMAC */
	tlv[1] = 38;
	tlv[4] = 0; tlv[5] = 0; tlv[6] = 0; tlv[7] = 0x2a;
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6);
	nest = mnl_attr_nest_start(nlh, RTA_ENCAP);
	mnl_attr_put(nlh, SEG6_IPTUNNEL_SRH, sizeof(b), b);
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(words_of(NULL), 1);
	assert_string_equal(words, "2001:db8::/64 encap seg6 mode encap segs 1 [ fc00::1 ] hmac 2A");

	nlh = route(AF_INET6, "2001:db8::", 64, RT_TABLE_MAIN);
	h->hdrlen = 20;         /* 168 bytes claimed in a 64-byte attribute */
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6);
	nest = mnl_attr_nest_start(nlh, RTA_ENCAP);
	mnl_attr_put(nlh, SEG6_IPTUNNEL_SRH, sizeof(b), b);
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(words_of(NULL), -EINVAL);
}

/* No netlink producer writes a length that is no multiple of 4; libmnl
 * would walk up to 3 bytes past it: refused.  A nexthop message is no route. */
static void unaligned_and_wrong_type(void **state)
{
	struct nlmsghdr *nlh = route(AF_INET6, "fc00::10", 128, RT_TABLE_MAIN);
	struct srv6_rtkey k;
	uint32_t id;

	(void)state;
	nlh->nlmsg_len -= 1;
	assert_int_equal(srv6_rtmsg_key(nlh, nlh->nlmsg_len, &k), -EINVAL);
	nlh->nlmsg_len += 1;
	nlh->nlmsg_type = RTM_NEWNEXTHOP;
	assert_int_equal(srv6_rtmsg_key(nlh, nlh->nlmsg_len, &k), -EINVAL);
	nlh->nlmsg_type = RTM_NEWROUTE;
	assert_int_equal(srv6_nhmsg_id(nlh, nlh->nlmsg_len, &id), -EINVAL);
	assert_int_equal(srv6_rtmsg_key(nlh, nlh->nlmsg_len, &k), 0);
	assert_false(k.multipath);
	mnl_attr_put(nlh, RTA_MULTIPATH, 4, "\0\0\0");
	assert_int_equal(srv6_rtmsg_key(nlh, nlh->nlmsg_len, &k), 0);
	assert_true(k.multipath);
}

static void buffer_too_small(void **state)
{
	struct nlmsghdr *nlh = route(AF_INET6, "fc00:0:1::1", 128, RT_TABLE_MAIN);
	struct nlattr *n = seg6local(nlh, RTA_ENCAP_TYPE, RTA_ENCAP, SEG6_LOCAL_ACTION_END);
	char small[16];

	(void)state;
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(srv6_rtmsg_words(nlh, NULL, names, NULL, small, sizeof(small)), -ENOSPC);
	assert_string_equal(small, "");     /* no truncated words */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(end_x),
		cmocka_unit_test(end_dt6_flavors),
		cmocka_unit_test(next_csid),
		cmocka_unit_test(headend_v4),
		cmocka_unit_test(nexthop_object),
		cmocka_unit_test(plain_route),
		cmocka_unit_test(unnamed_device),
		cmocka_unit_test(short_attribute),
		cmocka_unit_test(srh_overclaims),
		cmocka_unit_test(length_past_buffer),
		cmocka_unit_test(end_dx4_vrftable),
		cmocka_unit_test(default_route),
		cmocka_unit_test(srh_hmac_and_hdrlen),
		cmocka_unit_test(unaligned_and_wrong_type),
		cmocka_unit_test(buffer_too_small),
		cmocka_unit_test(zebra84_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
