// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtshow.c - `srv6ctl import --from-kernel`: every routing table of this
 * network namespace, read through the tree's one rtnetlink dump
 * (include/srv6d/rtdump.h, IPv6 then IPv4), each seg6local / seg6 route
 * written as the words `ip route show` would print, by the tree's one
 * decoder of those messages (include/srv6d/rtmsg.h), for
 * srv6_import_line() to convert.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include "srv6d/conf.h"
#include "srv6d/rtdump.h"
#include "srv6d/rtmsg.h"
#include "srv6ctl.h"

struct rtshow {
	FILE *o;
	unsigned int opaque;    /* routes whose nexthops srv6ctl does not read */
};

static const char *os_ifname(unsigned int ifindex, char *buf, void *arg)
{
	(void)arg;
	return if_indextoname(ifindex, buf);
}

/* One RTM_NEWROUTE: a line when it carries a seg6/seg6local encap.  A route
 * naming a nexthop object (nhid) or with several nexthops (RTA_MULTIPATH)
 * has its encaps there, which this dump does not read (the kernel copies a
 * nexthop object's encap into the route only with nexthop_compat_mode):
 * counted and said once at the end, not skipped silently. */
static void put_route_cb(const struct nlmsghdr *nh, void *arg)
{
	struct rtshow *rs = arg;
	char words[SRV6_CONF_LINE_MAX + 256];
	struct srv6_rtkey k;
	int r = srv6_rtmsg_words(nh, NULL, os_ifname, NULL, words, sizeof(words));

	if (r > 0)
		fprintf(rs->o, "%s\n", words);
	else if (r < 0)   /* not silently: the kernel sent what srv6d cannot read */
		fprintf(stderr, "srv6ctl: skipped a route the kernel sent: %s\n",
			r == -ENOSPC ? "longer than a conf line" : "malformed seg6/seg6local attributes");
	else if (srv6_rtmsg_key(nh, nh->nlmsg_len, &k) == 0 && (k.nhid || k.multipath))
		rs->opaque++;
}

int srv6ctl_rtdump(int family, FILE *o)
{
	struct rtshow rs = { .o = o };
	int r = srv6_rt_dump_msgs(family, put_route_cb, &rs);

	if (r == 0 && rs.opaque)
		fprintf(stderr, "srv6ctl: %u %s route%s with a nexthop object or several nexthops not read "
			"(an SRv6 encap there is not imported)\n", rs.opaque,
			family == AF_INET ? "IPv4" : "IPv6", rs.opaque == 1 ? "" : "s");
	return r;
}
