// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * linkwatch.c - rtnetlink events for the degraded start and the policies'
 * kernel routes (include/srv6d/linkwatch.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "srv6d/errbuf.h"
#include "srv6d/fallback.h"
#include "srv6d/linkwatch.h"

struct srv6_linkwatch {
	struct mnl_socket *nl;
	struct srv6_lw_scope scope;   /* .conf: set by each drain */
};

static int rt_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int t = mnl_attr_get_type(a);

	/* the u32 ones read here: a short one is ignored, never read past */
	if ((t == RTA_TABLE || t == RTA_OIF || t == RTA_PRIORITY) &&
	    mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return MNL_CB_OK;
	if (t <= RTA_MAX)
		tb[t] = a;
	return MNL_CB_OK;
}

/* Whether the route @rtm/@tb has the prefix and metric of one of @c's
 * policies (srv6_route_metric: what the policy's own route carries). */
static bool policy_place(const struct srv6_conf *c, const struct rtmsg *rtm,
			 const struct nlattr **tb)
{
	uint32_t prio = tb[RTA_PRIORITY] ? mnl_attr_get_u32(tb[RTA_PRIORITY]) : 0;
	size_t alen = rtm->rtm_family == AF_INET6 ? 16 : 4;
	uint8_t dst[16] = { 0 };

	if (!c || (rtm->rtm_family != AF_INET6 && rtm->rtm_family != AF_INET))
		return false;
	if (tb[RTA_DST]) {
		if (mnl_attr_get_payload_len(tb[RTA_DST]) < alen)
			return false;
		memcpy(dst, mnl_attr_get_payload(tb[RTA_DST]), alen);
	}
	for (size_t i = 0; i < c->nroutes; i++) {
		const struct srv6_conf_route *r = &c->routes[i];

		if (r->family == rtm->rtm_family && r->plen == rtm->rtm_dst_len &&
		    srv6_route_metric(r) == prio && !memcmp(&r->prefix, dst, alen))
			return true;
	}
	return false;
}

/* A main-table route event as it concerns the policies' routes: srv6d's own
 * (protocol, type, device) removed, or any other of a policy's prefix and
 * metric added (`ip route replace` swaps it in with no RTM_DELROUTE for
 * srv6d's) or removed (the place is free again). */
static int polroute_event(const struct nlmsghdr *nlh, const struct rtmsg *rtm,
			  const struct nlattr **tb, const struct srv6_lw_scope *s)
{
	bool ours = s->dev_ifindex > 0 && rtm->rtm_protocol == SRV6_FALLBACK_PROTO &&
		    rtm->rtm_type == RTN_UNICAST && tb[RTA_OIF] &&
		    mnl_attr_get_u32(tb[RTA_OIF]) == (uint32_t)s->dev_ifindex;

	if (ours)
		return nlh->nlmsg_type == RTM_DELROUTE ? SRV6_LW_POLROUTE : 0;
	return policy_place(s->conf, rtm, tb) ? SRV6_LW_POLROUTE : 0;
}

int srv6_linkwatch_classify(const void *msg, size_t len, const struct srv6_lw_scope *s)
{
	const struct nlmsghdr *nlh = msg;
	const struct nlattr *tb[RTA_MAX + 1] = { 0 };
	const struct rtmsg *rtm;
	uint32_t table;
	bool ours;
	int want;

	if (len < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len)
		return 0;
	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:      /* created, up, down, renamed: both ways */
	case RTM_DELLINK:
		want = SRV6_LW_RETRY | SRV6_LW_VERIFY4 | SRV6_LW_LINK;
		/* srv6d's device down takes the policies' routes with it, up
		 * lets them back; deleted, they cannot come back (said once) */
		if (s->dev_ifindex > 0 && nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifinfomsg)) &&
		    ((const struct ifinfomsg *)mnl_nlmsg_get_payload(nlh))->ifi_index == s->dev_ifindex)
			want |= SRV6_LW_POLROUTE;
		return want;
	case RTM_NEWADDR:      /* a source, a connected route toward a next hop */
		return SRV6_LW_RETRY;
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		break;
	default:
		return 0;
	}
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return 0;
	rtm = mnl_nlmsg_get_payload(nlh);
	if (mnl_attr_parse(nlh, sizeof(*rtm), rt_attr_cb, tb) < 0)
		return 0;
	table = tb[RTA_TABLE] ? mnl_attr_get_u32(tb[RTA_TABLE]) : rtm->rtm_table;
	want = table == RT_TABLE_MAIN ? polroute_event(nlh, rtm, tb, s) : 0;
	ours = table >= s->table_lo && table <= s->table_hi;
	if (nlh->nlmsg_type == RTM_NEWROUTE)
		return want | (ours ? 0 : SRV6_LW_RETRY);   /* srv6d's own installs: nothing new */
	if (!ours)
		return want;
	return want | (rtm->rtm_family == AF_INET ? SRV6_LW_VERIFY4 : SRV6_LW_VERIFY6);
}

struct srv6_linkwatch *srv6_linkwatch_open(uint32_t table_lo, uint32_t table_hi, int dev_ifindex,
					   char *err, size_t errlen)
{
	static const unsigned int groups[] = {
		RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR,
		RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE,
	};
	struct srv6_linkwatch *lw = calloc(1, sizeof(*lw));
	int fd, e;

	if (!lw) {
		srv6_seterr(err, errlen, "out of memory");
		return NULL;
	}
	lw->scope.table_lo = table_lo;
	lw->scope.table_hi = table_hi;
	lw->scope.dev_ifindex = dev_ifindex;
	lw->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!lw->nl) {
		e = errno;
		srv6_seterr(err, errlen, "rtnetlink socket: %s", strerror(e));
		goto out_free;
	}
	if (mnl_socket_bind(lw->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto out_sys;
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (mnl_socket_setsockopt(lw->nl, NETLINK_ADD_MEMBERSHIP, (void *)&groups[i],
					  sizeof(groups[i])) < 0)
			goto out_sys;
	/* A receive overrun is reported (ENOBUFS, netlink's default) and
	 * taken as "everything changed". */
	fd = mnl_socket_get_fd(lw->nl);
	if (fcntl(fd, F_SETOWN, getpid()) < 0 || fcntl(fd, F_SETSIG, SRV6_LINKWATCH_SIG) < 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC | O_NONBLOCK) < 0)
		goto out_sys;
	return lw;

out_sys:
	e = errno;
	srv6_seterr(err, errlen, "rtnetlink events: %s", strerror(e));
	mnl_socket_close(lw->nl);
out_free:
	free(lw);
	errno = e;
	return NULL;
}

int srv6_linkwatch_drain(struct srv6_linkwatch *lw, const struct srv6_conf *c)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	int want = 0;

	if (!lw)
		return 0;
	lw->scope.conf = c;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(lw->nl, buf, sizeof(buf));
		const struct nlmsghdr *nlh;
		int left;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {   /* events lost: assume anything */
				want |= SRV6_LW_RETRY | SRV6_LW_VERIFY | SRV6_LW_LINK |
					SRV6_LW_POLROUTE;
				continue;
			}
			break;                    /* EAGAIN: all read */
		}
		left = (int)n;
		for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, left);
		     nlh = mnl_nlmsg_next(nlh, &left))
			want |= srv6_linkwatch_classify(nlh, (size_t)left, &lw->scope);
	}
	lw->scope.conf = NULL;   /* not kept past the call */
	return want;
}

void srv6_linkwatch_close(struct srv6_linkwatch *lw)
{
	if (!lw)
		return;
	mnl_socket_close(lw->nl);
	free(lw);
}
