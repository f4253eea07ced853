/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * saddr.h - the outer source address of srv6d's encapsulations, chosen as
 * the kernel's seg6 chooses it (set_tun_src() in seg6_iptunnel.c):
 *   1. `ip sr tunsrc` when it is set (srv6d's own `encap-source` conf line
 *      comes before it);
 *   2. otherwise ipv6_dev_get_saddr() on the device of the route carrying the
 *      SRv6 state toward the first segment: for srv6d the `dev` of the pasted
 *      sid/route line, else the device of the route toward the first segment.
 */
#ifndef SRV6D_SADDR_H
#define SRV6D_SADDR_H

#include <netinet/in.h>
#include <stddef.h>

/**
 * srv6_saddr_pick - the kernel's source address selection (RFC 6724 as
 * ipv6_dev_get_saddr() applies it with IPV6_PREFER_SRC_PUBLIC) toward
 * @daddr with outgoing interface @oif, over the addresses listed in @if_inet6
 * (the text of /proc/net/if_inet6).  Rules, in order: the destination itself;
 * a scope at least the destination's, then the smallest such; not
 * deprecated; on @oif; public over temporary; longest prefix matched with
 * @daddr; the first listed.  Tentative and DAD-failed addresses are never
 * chosen.  Returns 0 with *@out, or -EADDRNOTAVAIL.  Pure.
 */
int srv6_saddr_pick(const char *if_inet6, const struct in6_addr *daddr, int oif,
		    struct in6_addr *out);

/**
 * srv6_saddr_select - the outer source toward @daddr: the kernel's tunsrc if
 * set, else srv6_saddr_pick() over this namespace's addresses with @oif when
 * @oif > 0, else the source a connected UDP socket toward @daddr gets (the
 * route's device).  Returns 0 or -errno.  Control thread.
 */
int srv6_saddr_select(const struct in6_addr *daddr, int oif, struct in6_addr *out);

/*
 * The same for many SIDs and policies at once: read the kernel's tunsrc and
 * the address list once (srv6_saddr_env_read), resolve each
 * (srv6_saddr_from_env), free (always, whatever the read returned).
 * srv6_saddr_env_read returns 0, -ENOMEM, or the -errno of a tunsrc read
 * that failed (the address list is there; tunsrc reads as unset): a caller
 * that can wait (the periodic refresh) skips that round rather than
 * flapping the source.  Control thread.
 */
struct srv6_saddr_env {
	struct in6_addr tunsrc;        /* :: when unset */
	char *if_inet6;                /* /proc/net/if_inet6 */
};
int srv6_saddr_env_read(struct srv6_saddr_env *env);
int srv6_saddr_from_env(const struct srv6_saddr_env *env, const struct in6_addr *daddr, int oif,
			struct in6_addr *out);
void srv6_saddr_env_free(struct srv6_saddr_env *env);

/**
 * srv6_tunsrc_read - the kernel's `ip sr tunsrc` (SEG6 generic netlink).
 * Returns 0 with *@out (:: when unset), or -errno.  Control thread.
 */
int srv6_tunsrc_read(struct in6_addr *out);

#endif
