// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtmsg.c - route and nexthop messages as srv6d.conf words
 * (include/srv6d/rtmsg.h).  The words are those `ip route show` prints, the
 * lwtunnel attributes decoded as iproute2's ip/iproute_lwtunnel.c does;
 * srv6_import_line() (import.c) turns them into a conf line.  Every
 * attribute is validated before it is read: a message may come from a TCP
 * peer (zebra's FPM).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <linux/seg6.h>
#include <linux/seg6_iptunnel.h>
#include <linux/seg6_local.h>

#include "conf_int.h"
#include "srv6d/rtmsg.h"

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

/* The largest attribute table any of the callbacks below fills. */
#define TB_MAX 64
_Static_assert(RTA_MAX <= TB_MAX && NHA_MAX <= TB_MAX && SEG6_LOCAL_MAX <= TB_MAX &&
	       SEG6_IPTUNNEL_MAX <= TB_MAX && SEG6_LOCAL_FLV_MAX <= TB_MAX, "TB_MAX too small");

struct tb {
	const struct nlattr *a[TB_MAX + 1];
	int max;
};

/* Each attribute of type <= max, the last of a type winning (as the
 * kernel's nla_parse); lengths are checked by the reader (fits()). */
static int attr_cb(const struct nlattr *a, void *data)
{
	struct tb *tb = data;
	int t = mnl_attr_get_type(a);

	if (mnl_attr_type_valid(a, (uint16_t)tb->max) < 0)
		return MNL_CB_OK;   /* newer than srv6d: not read */
	tb->a[t] = a;
	return MNL_CB_OK;
}

/* @a's payload is at least @n bytes (NULL @a: absent, fine). */
static bool fits(const struct nlattr *a, size_t n)
{
	return !a || mnl_attr_get_payload_len(a) >= n;
}

static uint32_t u32(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, mnl_attr_get_payload(a), sizeof(v));
	return v;
}

/* The attributes of a nested @a into @tb (max @max); -EINVAL when the
 * nest does not walk. */
static int nested(const struct nlattr *a, struct tb *tb, int max)
{
	memset(tb, 0, sizeof(*tb));
	tb->max = max;
	return mnl_attr_parse_nested(a, attr_cb, tb) < 0 ? -EINVAL : 0;
}

/* The segments of an SRH attribute of @len bytes in travel order, as ip
 * prints them; -EINVAL when the SRH does not hold what it claims. */
static int words_srh(struct srv6_sbuf *o, const struct ipv6_sr_hdr *srh, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	struct in6_addr seg;
	int n;

	if (len < sizeof(*srh))
		return -EINVAL;
	n = srh->first_segment;
	if (len < sizeof(*srh) + (size_t)(n + 1) * sizeof(struct in6_addr) ||
	    len < (size_t)(srh->hdrlen + 1) * 8)
		return -EINVAL;
	srv6_sb_printf(o, " segs %d [", n + 1);
	for (int i = n; i >= 0; i--) {
		memcpy(&seg, (const uint8_t *)srh + sizeof(*srh) + (size_t)i * sizeof(seg), sizeof(seg));
		srv6_sb_printf(o, " %s", inet_ntop(AF_INET6, &seg, a, sizeof(a)));
	}
	srv6_sb_printf(o, " ]");
	/* iproute2: the HMAC TLV the kernel keeps last (flag 0x08), its key id
	 * in hex ("hmac %llX"), which srv6_import_line() reads back */
	if ((srh->flags & 0x08) && (srh->hdrlen + 1) * 8 >= 40 + (int)sizeof(*srh) +
	    (n + 1) * (int)sizeof(seg)) {
		const uint8_t *tlv = (const uint8_t *)srh + (srh->hdrlen + 1) * 8 - 40;

		srv6_sb_printf(o, " hmac %X", (unsigned int)tlv[4] << 24 | (unsigned int)tlv[5] << 16 |
			       (unsigned int)tlv[6] << 8 | tlv[7]);
	}
	return 0;
}

static void put_ifname(struct srv6_sbuf *o, const char *kw, uint32_t idx, srv6_ifname_fn ifname,
		       void *arg)
{
	char name[64];
	const char *s = ifname ? ifname(idx, name, arg) : NULL;

	if (s)
		srv6_sb_printf(o, " %s %s", kw, s);
	else
		srv6_sb_printf(o, " %s if%u", kw, idx);
}

static int put_seg6local(struct srv6_sbuf *o, const struct nlattr *encap, srv6_ifname_fn ifname,
			 void *arg)
{
	struct tb tb, fl;
	char a[INET6_ADDRSTRLEN];
	const struct nlattr *x;

	if (nested(encap, &tb, SEG6_LOCAL_MAX) < 0 ||
	    !fits(tb.a[SEG6_LOCAL_ACTION], 4) || !fits(tb.a[SEG6_LOCAL_TABLE], 4) ||
	    !fits(tb.a[SEG6_LOCAL_VRFTABLE], 4) || !fits(tb.a[SEG6_LOCAL_NH4], 4) ||
	    !fits(tb.a[SEG6_LOCAL_NH6], 16) || !fits(tb.a[SEG6_LOCAL_IIF], 4) ||
	    !fits(tb.a[SEG6_LOCAL_OIF], 4))
		return -EINVAL;
	srv6_sb_printf(o, " encap seg6local");
	if ((x = tb.a[SEG6_LOCAL_ACTION])) {
		uint32_t act = u32(x);

		srv6_sb_printf(o, " action %s", act < ARRAY_SIZE(action_names) && action_names[act] ?
			       action_names[act] : "unknown");
	}
	if ((x = tb.a[SEG6_LOCAL_SRH]) && words_srh(o, mnl_attr_get_payload(x),
						  mnl_attr_get_payload_len(x)) < 0)
		return -EINVAL;
	if ((x = tb.a[SEG6_LOCAL_TABLE]))
		srv6_sb_printf(o, " table %u", u32(x));
	if ((x = tb.a[SEG6_LOCAL_VRFTABLE]))
		srv6_sb_printf(o, " vrftable %u", u32(x));
	if ((x = tb.a[SEG6_LOCAL_NH4]))
		srv6_sb_printf(o, " nh4 %s", inet_ntop(AF_INET, mnl_attr_get_payload(x), a, sizeof(a)));
	if ((x = tb.a[SEG6_LOCAL_NH6]))
		srv6_sb_printf(o, " nh6 %s", inet_ntop(AF_INET6, mnl_attr_get_payload(x), a, sizeof(a)));
	if ((x = tb.a[SEG6_LOCAL_IIF]))
		put_ifname(o, "iif", u32(x), ifname, arg);
	if ((x = tb.a[SEG6_LOCAL_OIF]))
		put_ifname(o, "oif", u32(x), ifname, arg);
	if (tb.a[SEG6_LOCAL_BPF])
		srv6_sb_printf(o, " endpoint bpf");
	if ((x = tb.a[SEG6_LOCAL_FLAVORS])) {
		if (nested(x, &fl, SEG6_LOCAL_FLV_MAX) < 0 || !fits(fl.a[SEG6_LOCAL_FLV_OPERATION], 4) ||
		    !fits(fl.a[SEG6_LOCAL_FLV_LCBLOCK_BITS], 1) ||
		    !fits(fl.a[SEG6_LOCAL_FLV_LCNODE_FN_BITS], 1))
			return -EINVAL;
		if ((x = fl.a[SEG6_LOCAL_FLV_OPERATION])) {
			uint32_t ops = u32(x);
			const char *sep = " flavors ";

			for (unsigned int f = 1; f < ARRAY_SIZE(flavor_names); f++) {
				if (ops & (1u << f)) {
					srv6_sb_printf(o, "%s%s", sep, flavor_names[f]);
					sep = ",";
				}
			}
		}
		if ((x = fl.a[SEG6_LOCAL_FLV_LCBLOCK_BITS]))
			srv6_sb_printf(o, " lblen %u", *(const uint8_t *)mnl_attr_get_payload(x));
		if ((x = fl.a[SEG6_LOCAL_FLV_LCNODE_FN_BITS]))
			srv6_sb_printf(o, " nflen %u", *(const uint8_t *)mnl_attr_get_payload(x));
	}
	return 0;
}

static int put_seg6(struct srv6_sbuf *o, const struct nlattr *encap)
{
	const struct seg6_iptunnel_encap *t;
	struct tb tb;
	int mode;
	size_t len;

	if (nested(encap, &tb, SEG6_IPTUNNEL_MAX) < 0 || !tb.a[SEG6_IPTUNNEL_SRH] ||
	    !fits(tb.a[SEG6_IPTUNNEL_SRH], sizeof(*t)))
		return -EINVAL;
	t = mnl_attr_get_payload(tb.a[SEG6_IPTUNNEL_SRH]);
	len = mnl_attr_get_payload_len(tb.a[SEG6_IPTUNNEL_SRH]) - sizeof(*t);
	memcpy(&mode, &t->mode, sizeof(mode));
	srv6_sb_printf(o, " encap seg6 mode %s", mode >= 0 && (size_t)mode < ARRAY_SIZE(mode_names) &&
		       mode_names[mode] ? mode_names[mode] : "unknown");
	return words_srh(o, t->srh, len);
}

/* A route's or a nexthop's own attributes (RTA_* or NHA_*).  libmnl walks
 * attributes up to MNL_ALIGN(nlmsg_len): a length that is no multiple of 4
 * (no netlink producer writes one) would let the last attribute run up to
 * 3 bytes past what was received, so it is refused. */
static int parse_msg(const struct nlmsghdr *nlh, size_t len, size_t hdr, int max, struct tb *tb)
{
	memset(tb, 0, sizeof(*tb));
	tb->max = max;
	if (len < sizeof(*nlh) || nlh->nlmsg_len > len || nlh->nlmsg_len < NLMSG_LENGTH(hdr) ||
	    nlh->nlmsg_len % NLMSG_ALIGNTO)
		return -EINVAL;
	return mnl_attr_parse(nlh, (unsigned int)hdr, attr_cb, tb) < 0 ? -EINVAL : 0;
}

/* Route message @nlh's attributes into @tb and its key into @k: the one
 * parse srv6_rtmsg_key() and the words share. */
static int parse_route(const struct nlmsghdr *nlh, size_t len, struct srv6_rtkey *k, struct tb *t)
{
	const struct rtmsg *rtm;
	size_t alen;

	memset(k, 0, sizeof(*k));
	if (parse_msg(nlh, len, sizeof(*rtm), RTA_MAX, t) < 0 ||
	    (nlh->nlmsg_type != RTM_NEWROUTE && nlh->nlmsg_type != RTM_DELROUTE))
		return -EINVAL;
	rtm = mnl_nlmsg_get_payload(nlh);
	if (rtm->rtm_family != AF_INET6 && rtm->rtm_family != AF_INET)
		return -EINVAL;
	alen = rtm->rtm_family == AF_INET6 ? 16 : 4;
	if (rtm->rtm_dst_len > alen * 8 || !fits(t->a[RTA_DST], alen) || !fits(t->a[RTA_TABLE], 4) ||
	    !fits(t->a[RTA_NH_ID], 4) || !fits(t->a[RTA_ENCAP_TYPE], 2) ||
	    !fits(t->a[RTA_PRIORITY], 4))
		return -EINVAL;
	k->family = rtm->rtm_family;
	k->plen = rtm->rtm_dst_len;
	if (t->a[RTA_DST])
		memcpy(k->dst, mnl_attr_get_payload(t->a[RTA_DST]), alen);
	k->table = t->a[RTA_TABLE] ? u32(t->a[RTA_TABLE]) : rtm->rtm_table;
	k->nhid = t->a[RTA_NH_ID] ? u32(t->a[RTA_NH_ID]) : 0;
	k->priority = t->a[RTA_PRIORITY] ? u32(t->a[RTA_PRIORITY]) : 0;
	if (t->a[RTA_ENCAP_TYPE])
		memcpy(&k->encap_type, mnl_attr_get_payload(t->a[RTA_ENCAP_TYPE]), 2);
	k->multipath = t->a[RTA_MULTIPATH] != NULL;
	return 0;
}

int srv6_rtmsg_key(const struct nlmsghdr *nlh, size_t len, struct srv6_rtkey *k)
{
	struct tb tb;

	return parse_route(nlh, len, k, &tb);
}

int srv6_nhmsg_encap_type(const struct nlmsghdr *nh)
{
	uint16_t type;
	struct tb nt;

	if (parse_msg(nh, nh->nlmsg_len, sizeof(struct nhmsg), NHA_MAX, &nt) < 0 ||
	    !fits(nt.a[NHA_ENCAP_TYPE], 2))
		return -EINVAL;
	if (!nt.a[NHA_ENCAP_TYPE])
		return 0;
	memcpy(&type, mnl_attr_get_payload(nt.a[NHA_ENCAP_TYPE]), sizeof(type));
	return type;
}

int srv6_nhmsg_id(const struct nlmsghdr *nlh, size_t len, uint32_t *id)
{
	struct tb tb;

	if (parse_msg(nlh, len, sizeof(struct nhmsg), NHA_MAX, &tb) < 0 ||
	    (nlh->nlmsg_type != RTM_NEWNEXTHOP && nlh->nlmsg_type != RTM_DELNEXTHOP) ||
	    !tb.a[NHA_ID] || !fits(tb.a[NHA_ID], 4))
		return -EINVAL;
	*id = u32(tb.a[NHA_ID]);
	return 0;
}

/* srv6_rtmsg_words(), the route's key left in @k for srv6_rtmsg_conf(). */
static int route_words(const struct nlmsghdr *nlh, const struct nlmsghdr *nh, srv6_ifname_fn ifname,
		       void *arg, char *buf, size_t buflen, struct srv6_rtkey *k)
{
	struct srv6_sbuf o = SRV6_SB_FIXED(buf, buflen);
	const struct nlattr *etype, *encap, *gw, *oif;
	char addr[INET6_ADDRSTRLEN];
	struct tb tb, nt;
	uint16_t type;
	int family, r;

	if (buflen)
		buf[0] = '\0';
	if (parse_route(nlh, nlh->nlmsg_len, k, &tb) < 0 || !fits(tb.a[RTA_OIF], 4))
		return -EINVAL;
	family = k->family;
	etype = tb.a[RTA_ENCAP_TYPE];
	encap = tb.a[RTA_ENCAP];
	gw = tb.a[RTA_GATEWAY];
	oif = tb.a[RTA_OIF];
	if (nh) {
		const struct nhmsg *nm;

		if (parse_msg(nh, nh->nlmsg_len, sizeof(*nm), NHA_MAX, &nt) < 0 ||
		    !fits(nt.a[NHA_ENCAP_TYPE], 2) || !fits(nt.a[NHA_OIF], 4))
			return -EINVAL;
		nm = mnl_nlmsg_get_payload(nh);
		etype = nt.a[NHA_ENCAP_TYPE];
		encap = nt.a[NHA_ENCAP];
		gw = nt.a[NHA_GATEWAY];
		oif = nt.a[NHA_OIF];
		if (gw && nm->nh_family != AF_INET6 && nm->nh_family != AF_INET)
			return -EINVAL;
		if (gw)
			family = nm->nh_family;
	}
	if (!etype || !encap)
		return 0;
	if (!fits(etype, 2))
		return -EINVAL;
	memcpy(&type, mnl_attr_get_payload(etype), sizeof(type));
	if (type != LWTUNNEL_ENCAP_SEG6 && type != LWTUNNEL_ENCAP_SEG6_LOCAL)
		return 0;
	if (!fits(gw, family == AF_INET6 ? 16 : 4))
		return -EINVAL;
	if (tb.a[RTA_DST]) {
		inet_ntop(k->family, k->dst, addr, sizeof(addr));
		if (k->plen == (k->family == AF_INET6 ? 128 : 32))
			srv6_sb_printf(&o, "%s", addr);
		else
			srv6_sb_printf(&o, "%s/%u", addr, k->plen);
	} else if (k->plen) {
		return -EINVAL;   /* a prefix length without a prefix */
	} else {
		srv6_sb_printf(&o, "default");
	}
	r = type == LWTUNNEL_ENCAP_SEG6_LOCAL ? put_seg6local(&o, encap, ifname, arg) : put_seg6(&o, encap);
	if (r < 0) {
		if (buflen)
			buf[0] = '\0';
		return r;
	}
	if (gw)
		srv6_sb_printf(&o, " via %s", inet_ntop(family, mnl_attr_get_payload(gw), addr,
							sizeof(addr)));
	if (oif)
		put_ifname(&o, "dev", u32(oif), ifname, arg);
	if (k->table != RT_TABLE_MAIN)
		srv6_sb_printf(&o, " table %u", k->table);
	if (srv6_sb_done(&o) < 0) {
		if (buflen)
			buf[0] = '\0';   /* no truncated words */
		return -ENOSPC;
	}
	return 1;
}

int srv6_rtmsg_words(const struct nlmsghdr *nlh, const struct nlmsghdr *nh,
		     srv6_ifname_fn ifname, void *arg, char *buf, size_t buflen)
{
	struct srv6_rtkey k;

	return route_words(nlh, nh, ifname, arg, buf, buflen, &k);
}

int srv6_rtmsg_conf(const struct nlmsghdr *nlh, const struct nlmsghdr *nh,
		    srv6_ifname_fn ifname, void *arg, char *out, size_t outlen,
		    char *warn, size_t warnlen)
{
	char words[SRV6_CONF_LINE_MAX + 256];
	struct srv6_rtkey k;
	int r;

	if (warn && warnlen)
		warn[0] = '\0';
	if (out && outlen)
		out[0] = '\0';
	r = route_words(nlh, nh, ifname, arg, words, sizeof(words), &k);
	if (r <= 0) {
		struct errbuf we = { warn, warnlen };

		if (r < 0)
			conf_seterr(&we, "%s", r == -ENOSPC ? "route too long" : "malformed route message");
		return r == -ENOSPC ? -EINVAL : r;
	}
	return srv6_import_line(words, k.family, out, outlen, warn, warnlen);
}
