// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtshow.c - `srv6ctl import --from-kernel`: every routing table of this
 * network namespace, read through the tree's one rtnetlink dump
 * (include/srv6d/rtdump.h, IPv6 then IPv4), each seg6local / seg6 route
 * written as the words `ip route show` would print, by the tree's one
 * decoder of those messages (include/srv6d/rtmsg.h, which zebra's FPM
 * stream goes through too), for srv6_import_line() to convert.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>

#include "srv6d/conf.h"
#include "srv6d/rtdump.h"
#include "srv6d/rtmsg.h"
#include "srv6ctl.h"

static const char *os_ifname(unsigned int ifindex, char *buf, void *arg)
{
	(void)arg;
	return if_indextoname(ifindex, buf);
}

/* One RTM_NEWROUTE: a line when it carries a seg6/seg6local encap.  A
 * route with a nexthop object (nhid) is shown without its nexthop: the
 * kernel refuses seg6 encaps in nexthop objects, so it has none. */
static void put_route_cb(const struct nlmsghdr *nh, void *arg)
{
	char words[SRV6_CONF_LINE_MAX + 256];
	int r = srv6_rtmsg_words(nh, NULL, os_ifname, NULL, words, sizeof(words));

	if (r > 0)
		fprintf(arg, "%s\n", words);
	else if (r < 0)   /* not silently: the kernel sent what srv6d cannot read */
		fprintf(stderr, "srv6ctl: skipped a route the kernel sent: %s\n",
			r == -ENOSPC ? "longer than a conf line" : "malformed seg6/seg6local attributes");
}

int srv6ctl_rtdump(int family, FILE *o)
{
	return srv6_rt_dump_msgs(family, put_route_cb, o);
}
