// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtshow.c - `srv6ctl import --from-kernel`: every routing table of this
 * network namespace, read through the tree's one rtnetlink dump
 * (include/srv6d/rtdump.h, IPv6 then IPv4), each seg6local / seg6 route
 * written as the words `ip route show` would print (the lwtunnel attributes
 * decoded as iproute2's ip/iproute_lwtunnel.c does), for srv6_import_line()
 * to convert.
 */
#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/lwtunnel.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/seg6.h>
#include <linux/seg6_iptunnel.h>
#include <linux/seg6_local.h>

#include "srv6d/rtdump.h"
#include "srv6ctl.h"

/* iproute2's seg6_action_names[] / seg6_mode_types[] / flavor names */
static const char *const action_names[] = {
	[SEG6_LOCAL_ACTION_END] = "End", [SEG6_LOCAL_ACTION_END_X] = "End.X",
	[SEG6_LOCAL_ACTION_END_T] = "End.T", [SEG6_LOCAL_ACTION_END_DX2] = "End.DX2",
	[SEG6_LOCAL_ACTION_END_DX6] = "End.DX6", [SEG6_LOCAL_ACTION_END_DX4] = "End.DX4",
	[SEG6_LOCAL_ACTION_END_DT6] = "End.DT6", [SEG6_LOCAL_ACTION_END_DT4] = "End.DT4",
	[SEG6_LOCAL_ACTION_END_B6] = "End.B6", [SEG6_LOCAL_ACTION_END_B6_ENCAP] = "End.B6.Encaps",
	[SEG6_LOCAL_ACTION_END_BM] = "End.BM", [SEG6_LOCAL_ACTION_END_S] = "End.S",
	[SEG6_LOCAL_ACTION_END_AS] = "End.AS", [SEG6_LOCAL_ACTION_END_AM] = "End.AM",
	[SEG6_LOCAL_ACTION_END_BPF] = "End.BPF", [SEG6_LOCAL_ACTION_END_DT46] = "End.DT46",
};
static const char *const mode_names[] = {
	[SEG6_IPTUN_MODE_INLINE] = "inline", [SEG6_IPTUN_MODE_ENCAP] = "encap",
	[SEG6_IPTUN_MODE_L2ENCAP] = "l2encap", [SEG6_IPTUN_MODE_ENCAP_RED] = "encap.red",
	[SEG6_IPTUN_MODE_L2ENCAP_RED] = "l2encap.red",
};
static const char *const flavor_names[] = {
	[SEG6_LOCAL_FLV_OP_PSP] = "psp", [SEG6_LOCAL_FLV_OP_USP] = "usp",
	[SEG6_LOCAL_FLV_OP_USD] = "usd", [SEG6_LOCAL_FLV_OP_NEXT_CSID] = "next-csid",
};
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Nested attributes of @a into tb[0..max]; later duplicates win. */
static void parse_nested(const struct rtattr *a, const struct rtattr **tb, int max)
{
	int len = RTA_PAYLOAD(a);

	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	for (a = RTA_DATA(a); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if ((a->rta_type & NLA_TYPE_MASK) <= max)
			tb[a->rta_type & NLA_TYPE_MASK] = a;
}

/* The segments of an SRH attribute in travel order, as ip prints them. */
static void put_srh(FILE *o, const struct ipv6_sr_hdr *srh, size_t len, const char *head)
{
	char a[INET6_ADDRSTRLEN];
	int n = srh->first_segment;

	if (len < sizeof(*srh) + (size_t)(n + 1) * sizeof(struct in6_addr))
		return;
	fprintf(o, " %ssegs %d [", head, n + 1);
	for (int i = n; i >= 0; i--)
		fprintf(o, " %s", inet_ntop(AF_INET6, &srh->segments[i], a, sizeof(a)));
	fprintf(o, " ]");
	/* iproute2: the HMAC TLV the kernel keeps last (flag 0x08), its key id
	 * in hex ("hmac %llX"), which srv6_import_line() reads back */
	if ((srh->flags & 0x08) && len >= (size_t)(srh->hdrlen + 1) * 8 && (srh->hdrlen + 1) * 8 >= 40) {
		const uint8_t *tlv = (const uint8_t *)srh + (srh->hdrlen + 1) * 8 - 40;

		fprintf(o, " hmac %X", (unsigned int)tlv[4] << 24 | (unsigned int)tlv[5] << 16 |
			(unsigned int)tlv[6] << 8 | tlv[7]);
	}
}

static void put_ifname(FILE *o, const char *kw, const struct rtattr *a)
{
	char name[IF_NAMESIZE];
	unsigned int idx = *(const uint32_t *)RTA_DATA(a);

	if (if_indextoname(idx, name))
		fprintf(o, " %s %s", kw, name);
	else
		fprintf(o, " %s if%u", kw, idx);
}

static void put_seg6local(FILE *o, const struct rtattr *encap)
{
	const struct rtattr *tb[SEG6_LOCAL_MAX + 1], *fl[SEG6_LOCAL_FLV_MAX + 1];
	char a[INET6_ADDRSTRLEN];

	parse_nested(encap, tb, SEG6_LOCAL_MAX);
	fprintf(o, " encap seg6local");
	if (tb[SEG6_LOCAL_ACTION]) {
		uint32_t act = *(const uint32_t *)RTA_DATA(tb[SEG6_LOCAL_ACTION]);

		fprintf(o, " action %s", act < N(action_names) && action_names[act] ?
			action_names[act] : "unknown");
	}
	if (tb[SEG6_LOCAL_SRH])
		put_srh(o, RTA_DATA(tb[SEG6_LOCAL_SRH]), RTA_PAYLOAD(tb[SEG6_LOCAL_SRH]), "");
	if (tb[SEG6_LOCAL_TABLE])
		fprintf(o, " table %u", *(const uint32_t *)RTA_DATA(tb[SEG6_LOCAL_TABLE]));
	if (tb[SEG6_LOCAL_VRFTABLE])
		fprintf(o, " vrftable %u", *(const uint32_t *)RTA_DATA(tb[SEG6_LOCAL_VRFTABLE]));
	if (tb[SEG6_LOCAL_NH4])
		fprintf(o, " nh4 %s", inet_ntop(AF_INET, RTA_DATA(tb[SEG6_LOCAL_NH4]), a, sizeof(a)));
	if (tb[SEG6_LOCAL_NH6])
		fprintf(o, " nh6 %s", inet_ntop(AF_INET6, RTA_DATA(tb[SEG6_LOCAL_NH6]), a, sizeof(a)));
	if (tb[SEG6_LOCAL_IIF])
		put_ifname(o, "iif", tb[SEG6_LOCAL_IIF]);
	if (tb[SEG6_LOCAL_OIF])
		put_ifname(o, "oif", tb[SEG6_LOCAL_OIF]);
	if (tb[SEG6_LOCAL_BPF])
		fprintf(o, " endpoint bpf");
	if (tb[SEG6_LOCAL_FLAVORS]) {
		parse_nested(tb[SEG6_LOCAL_FLAVORS], fl, SEG6_LOCAL_FLV_MAX);
		if (fl[SEG6_LOCAL_FLV_OPERATION]) {
			uint32_t ops = *(const uint32_t *)RTA_DATA(fl[SEG6_LOCAL_FLV_OPERATION]);
			const char *sep = " flavors ";

			for (unsigned int f = 1; f < N(flavor_names); f++) {
				if (ops & (1u << f)) {
					fprintf(o, "%s%s", sep, flavor_names[f]);
					sep = ",";
				}
			}
		}
		if (fl[SEG6_LOCAL_FLV_LCBLOCK_BITS])
			fprintf(o, " lblen %u", *(const uint8_t *)RTA_DATA(fl[SEG6_LOCAL_FLV_LCBLOCK_BITS]));
		if (fl[SEG6_LOCAL_FLV_LCNODE_FN_BITS])
			fprintf(o, " nflen %u", *(const uint8_t *)RTA_DATA(fl[SEG6_LOCAL_FLV_LCNODE_FN_BITS]));
	}
}

static void put_seg6(FILE *o, const struct rtattr *encap)
{
	const struct rtattr *tb[SEG6_IPTUNNEL_MAX + 1];
	const struct seg6_iptunnel_encap *t;
	size_t len;

	parse_nested(encap, tb, SEG6_IPTUNNEL_MAX);
	fprintf(o, " encap seg6");
	if (!tb[SEG6_IPTUNNEL_SRH] || RTA_PAYLOAD(tb[SEG6_IPTUNNEL_SRH]) < sizeof(*t))
		return;
	t = RTA_DATA(tb[SEG6_IPTUNNEL_SRH]);
	len = RTA_PAYLOAD(tb[SEG6_IPTUNNEL_SRH]) - sizeof(*t);
	fprintf(o, " mode %s", t->mode >= 0 && (size_t)t->mode < N(mode_names) ?
		mode_names[t->mode] : "unknown");
	if (len >= sizeof(struct ipv6_sr_hdr))
		put_srh(o, t->srh, len, "");
}

/* One RTM_NEWROUTE: a line when it carries a seg6/seg6local encap. */
static void put_route(FILE *o, const struct nlmsghdr *nh)
{
	const struct rtmsg *rtm = NLMSG_DATA(nh);
	const struct rtattr *tb[RTA_MAX + 1] = { 0 }, *a;
	int len = (int)nh->nlmsg_len - NLMSG_LENGTH(sizeof(*rtm));
	char addr[INET6_ADDRSTRLEN];
	uint16_t type;
	uint32_t table = rtm->rtm_table;

	if (len < 0)
		return;
	for (a = RTM_RTA(rtm); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type <= RTA_MAX)
			tb[a->rta_type] = a;
	if (!tb[RTA_ENCAP_TYPE] || !tb[RTA_ENCAP])
		return;
	type = *(const uint16_t *)RTA_DATA(tb[RTA_ENCAP_TYPE]);
	if (type != LWTUNNEL_ENCAP_SEG6 && type != LWTUNNEL_ENCAP_SEG6_LOCAL)
		return;
	if (tb[RTA_DST]) {
		inet_ntop(rtm->rtm_family, RTA_DATA(tb[RTA_DST]), addr, sizeof(addr));
		if (rtm->rtm_dst_len == (rtm->rtm_family == AF_INET6 ? 128 : 32))
			fprintf(o, "%s", addr);
		else
			fprintf(o, "%s/%u", addr, rtm->rtm_dst_len);
	} else {
		fprintf(o, "default");
	}
	if (type == LWTUNNEL_ENCAP_SEG6_LOCAL)
		put_seg6local(o, tb[RTA_ENCAP]);
	else
		put_seg6(o, tb[RTA_ENCAP]);
	if (tb[RTA_GATEWAY])
		fprintf(o, " via %s", inet_ntop(rtm->rtm_family, RTA_DATA(tb[RTA_GATEWAY]), addr,
						sizeof(addr)));
	if (tb[RTA_OIF])
		put_ifname(o, "dev", tb[RTA_OIF]);
	if (tb[RTA_TABLE])
		table = *(const uint32_t *)RTA_DATA(tb[RTA_TABLE]);
	if (table != RT_TABLE_MAIN)
		fprintf(o, " table %u", table);
	fprintf(o, "\n");
}

static void put_route_cb(const struct nlmsghdr *nh, void *arg)
{
	put_route(arg, nh);
}

int srv6ctl_rtdump(int family, FILE *o)
{
	return srv6_rt_dump_msgs(family, put_route_cb, o);
}
