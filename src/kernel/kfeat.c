// SPDX-License-Identifier: GPL-2.0-or-later
/* kfeat.c - the kernel's own SRv6 features (see include/srv6d/kfeat.h). */
#include <errno.h>
#include <limits.h>
#include <linux/lwtunnel.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>

#include "srv6d/kfeat.h"
#include "srv6d/rtdump.h"

/* The probe route: a documentation address, an interface no host has. */
#define PROBE_IFINDEX INT_MAX
static const struct in6_addr probe_dst = {
	.s6_addr = { 0x20, 0x01, 0x0d, 0xb8, 0x6b, 0x66, 0x65, 0x61, 0x74, [15] = 1 }
};

/* The probe route, RTM_NEWROUTE (with an empty encapsulation of @type) or
 * RTM_DELROUTE (the same prefix on the same interface). */
static struct nlmsghdr *probe_msg(char *buf, uint16_t msgtype, uint16_t flags, uint16_t type)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;

	nlh->nlmsg_type = msgtype;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = (unsigned int)time(NULL);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET6;
	rtm->rtm_dst_len = 128;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put(nlh, RTA_DST, sizeof(probe_dst), &probe_dst);
	mnl_attr_put_u32(nlh, RTA_OIF, PROBE_IFINDEX);
	if (msgtype == RTM_NEWROUTE) {
		mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, type);
		mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, RTA_ENCAP));
	}
	return nlh;
}

int srv6_kfeat_lwt(uint16_t encap_type)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	int r;

	r = srv6_rt_request(probe_msg(buf, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, encap_type), 1);
	switch (r) {
	case -EOPNOTSUPP:       /* "lwt encapsulation type not supported" */
		return 0;
	case -ENODEV:           /* past the type check, on to the interface */
		return 1;
	case 0:                 /* cannot happen (no such interface, no action):
				 * should it, the route goes at once */
		(void)srv6_rt_request(probe_msg(buf, RTM_DELROUTE, 0, 0), 1);
		return 1;
	default:                /* -EPERM, or an answer that proves nothing */
		return r < 0 ? r : -EPROTO;
	}
}

static enum srv6_kfeat_state lwt_state(uint16_t encap_type)
{
	int r = srv6_kfeat_lwt(encap_type);

	return r < 0 ? SRV6_KFEAT_UNKNOWN : r ? SRV6_KFEAT_YES : SRV6_KFEAT_NO;
}

/* CONFIG_IPV6_SEG6_HMAC registers net.ipv6.conf.*.seg6_require_hmac; the
 * conf directory itself tells whether /proc/sys can answer at all. */
static enum srv6_kfeat_state hmac_state(void)
{
	if (access("/proc/sys/net/ipv6/conf/all/seg6_require_hmac", F_OK) == 0)
		return SRV6_KFEAT_YES;
	if (access("/proc/sys/net/ipv6/conf/all/seg6_enabled", F_OK) == 0)
		return SRV6_KFEAT_NO;
	return SRV6_KFEAT_UNKNOWN;
}

int srv6_kfeat_probe(struct srv6_kfeat *k)
{
	k->seg6 = lwt_state(LWTUNNEL_ENCAP_SEG6);
	k->seg6local = lwt_state(LWTUNNEL_ENCAP_SEG6_LOCAL);
	k->seg6_hmac = hmac_state();
	return 0;
}

const char *srv6_kfeat_word(enum srv6_kfeat_state s)
{
	return s == SRV6_KFEAT_YES ? "yes" : s == SRV6_KFEAT_NO ? "no" : "unknown";
}

const char *srv6_kfeat_json(enum srv6_kfeat_state s)
{
	return s == SRV6_KFEAT_YES ? "true" : s == SRV6_KFEAT_NO ? "false" : "null";
}

void srv6_kfeat_print(const struct srv6_kfeat *k, FILE *o)
{
	fprintf(o, "seg6 %s seg6local %s seg6_hmac %s", srv6_kfeat_word(k->seg6),
		srv6_kfeat_word(k->seg6local), srv6_kfeat_word(k->seg6_hmac));
}
