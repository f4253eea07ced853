/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtmsg.h - an rtnetlink route message (RTM_NEWROUTE / RTM_DELROUTE, and the
 * RTM_NEWNEXTHOP a route's RTA_NH_ID names) as srv6d.conf words: the one
 * decoder of seg6local and seg6 encapsulations in the tree.  The kernel's
 * route dump (`srv6ctl import --from-kernel`) goes through it, and zebra's
 * FPM stream is to (docs/CONTROL.md), then through srv6_import_line() (the
 * conf grammar), so a route means the same whichever way it came.
 *
 * The message may come from a TCP peer: the message length, every
 * attribute's length (libmnl's walk, then a minimum per attribute read) and
 * the SRH's own lengths are checked, nothing is trusted.  Messages must be
 * 4-byte aligned in memory (libmnl reads them in place).  Pure: no I/O, no
 * globals (interface names come from the caller's @ifname), reentrant.
 */
#ifndef SRV6D_RTMSG_H
#define SRV6D_RTMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlmsghdr;

/* What identifies a route (the FPM store's key) and what srv6d filters on. */
struct srv6_rtkey {
	uint8_t family;                /* AF_INET6 or AF_INET */
	uint8_t plen;
	uint8_t dst[16];               /* RTA_DST, zero when absent (default) */
	uint32_t table;                /* RTA_TABLE, else rtm_table */
	uint32_t nhid;                 /* RTA_NH_ID, 0 when absent */
	uint32_t priority;             /* RTA_PRIORITY (the metric), 0 when absent */
	uint16_t encap_type;           /* RTA_ENCAP_TYPE, 0 when absent */
	bool multipath;                /* RTA_MULTIPATH: nexthops (and their
	                                * encaps) srv6d does not read */
};

/* The name of interface @ifindex into @buf (IF_NAMESIZE bytes), or NULL
 * when it has none; srv6d then writes "ifN", a name no device has, so the
 * entry fails (naming it) where srv6d resolves devices. */
typedef const char *(*srv6_ifname_fn)(unsigned int ifindex, char *buf, void *arg);

/**
 * srv6_rtmsg_key - the key fields of route message @nlh (@len bytes
 * available from @nlh, at least nlh->nlmsg_len).  0, or -EINVAL for a
 * message that is no valid IPv6/IPv4 RTM_NEWROUTE/RTM_DELROUTE (its
 * nlmsg_len past @len or no multiple of 4 included).  Pure.
 */
int srv6_rtmsg_key(const struct nlmsghdr *nlh, size_t len, struct srv6_rtkey *k);

/**
 * srv6_nhmsg_encap_type - the NHA_ENCAP_TYPE of nexthop message @nh
 * (nlmsg_len bytes there), 0 when it has none; -EINVAL for a malformed
 * message.  Pure: for a route naming @nh, the encap is the object's.
 */
int srv6_nhmsg_encap_type(const struct nlmsghdr *nh);

/**
 * srv6_nhmsg_id - the NHA_ID of nexthop message @nlh (RTM_NEWNEXTHOP /
 * RTM_DELNEXTHOP, @len bytes available).  0, or -EINVAL.  Pure.
 */
int srv6_nhmsg_id(const struct nlmsghdr *nlh, size_t len, uint32_t *id);

/**
 * srv6_rtmsg_words - route @nlh as the words `ip route show` prints for it
 * ("PREFIX encap seg6local action End.X nh6 A dev IF", iproute2's
 * ip/iproute_lwtunnel.c spelling), NUL-terminated in @buf.  When the route
 * names a nexthop object (RTA_NH_ID), @nh is that object's RTM_NEWNEXTHOP
 * (its encap, gateway and device are the route's), else NULL.  Returns 1
 * with the words, 0 for a route without a seg6 / seg6local encapsulation
 * (@buf ""), -EINVAL for a malformed message or attribute, -ENOSPC when
 * @buflen is too small (@buf "" on both errors).  The caller has checked that nlmsg_len bytes of
 * @nlh (and of @nh) are there (srv6_rtmsg_key() with the received length
 * does).  Pure.
 */
int srv6_rtmsg_words(const struct nlmsghdr *nlh, const struct nlmsghdr *nh,
		     srv6_ifname_fn ifname, void *arg, char *buf, size_t buflen);

/**
 * srv6_rtmsg_conf - route @nlh (and its nexthop @nh, as above) as a
 * canonical srv6d.conf line ("sid ..." or "route ..."): the words of
 * srv6_rtmsg_words() through srv6_import_line().  Returns as
 * srv6_import_line(): 1 with the line in @out and "" or what was dropped in
 * @warn, 0 when it is no SRv6 route, -EINVAL with the reason in @warn.
 * Pure.
 */
int srv6_rtmsg_conf(const struct nlmsghdr *nlh, const struct nlmsghdr *nh,
		    srv6_ifname_fn ifname, void *arg, char *out, size_t outlen,
		    char *warn, size_t warnlen);

#endif /* SRV6D_RTMSG_H */
