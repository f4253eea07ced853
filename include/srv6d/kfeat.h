/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kfeat.h - which of the kernel's own SRv6 features this host has, for the
 * report of `srv6ctl status` and `srv6d --check -v`.  srv6d needs none of
 * them (it does the SRv6 work itself); an operator comparing it with the
 * kernel, or falling back to kernel routes, does.
 *
 *   seg6       ip -6 route ... encap seg6 ...       CONFIG_IPV6_SEG6_LWTUNNEL
 *   seg6local  ip -6 route ... encap seg6local ...  CONFIG_IPV6_SEG6_LWTUNNEL
 *   seg6_hmac  ip sr hmac, seg6_require_hmac        CONFIG_IPV6_SEG6_HMAC
 *
 * net.ipv6.seg6_flowlabel says none of this: it exists without them.
 *
 * The lightweight tunnel types are asked of rtnetlink with an RTM_NEWROUTE
 * that cannot add anything: its encapsulation is empty (no action, no SRH)
 * and its interface (index INT_MAX) does not exist.  The kernel checks the
 * encapsulation type first (rtm_to_fib6_config(): EOPNOTSUPP when this
 * kernel has no such type), and only then looks for the interface (ENODEV).
 * Nothing is created, not even a table (the main table).  It needs
 * CAP_NET_ADMIN in the namespace's user namespace: without it the answer is
 * "unknown".  HMAC support is the presence of the seg6_require_hmac sysctl,
 * which the kernel registers only with CONFIG_IPV6_SEG6_HMAC (no privileges).
 */
#ifndef SRV6D_KFEAT_H
#define SRV6D_KFEAT_H

#include <stdint.h>
#include <stdio.h>

/* A feature's state: SRV6_KFEAT_YES, SRV6_KFEAT_NO, or SRV6_KFEAT_UNKNOWN
 * (the probe could not tell: no privileges, no /proc...). */
enum srv6_kfeat_state {
	SRV6_KFEAT_UNKNOWN = -1,
	SRV6_KFEAT_NO = 0,
	SRV6_KFEAT_YES = 1,
};

struct srv6_kfeat {
	enum srv6_kfeat_state seg6;        /* encap seg6 */
	enum srv6_kfeat_state seg6local;   /* encap seg6local */
	enum srv6_kfeat_state seg6_hmac;   /* SRv6 HMAC */
};

/**
 * srv6_kfeat_lwt - whether this kernel has the lightweight tunnel type
 * @encap_type (LWTUNNEL_ENCAP_SEG6, LWTUNNEL_ENCAP_SEG6_LOCAL...), asked of
 * rtnetlink in the caller's network namespace without changing anything (see
 * above).  Returns 1 (it has), 0 (it has not), or -errno when it cannot tell
 * (-EPERM without CAP_NET_ADMIN; -EPROTO for an answer that proves nothing).
 * Any thread; takes up to 1 s when the kernel does not answer.
 */
int srv6_kfeat_lwt(uint16_t encap_type);

/**
 * srv6_kfeat_probe - fill @k for this kernel (srv6_kfeat_lwt() for seg6 and
 * seg6local, the seg6_require_hmac sysctl for seg6_hmac).  Returns 0; what
 * a probe cannot tell is SRV6_KFEAT_UNKNOWN.  Any thread.
 */
int srv6_kfeat_probe(struct srv6_kfeat *k);

/** srv6_kfeat_word - "yes", "no" or "unknown" for @s (status text). */
const char *srv6_kfeat_word(enum srv6_kfeat_state s);

/** srv6_kfeat_json - "true", "false" or "null" for @s (status JSON). */
const char *srv6_kfeat_json(enum srv6_kfeat_state s);

/**
 * srv6_kfeat_print - "seg6 W seg6local W seg6_hmac W" (W from
 * srv6_kfeat_word()) to @o, no newline: the words of the status line.
 */
void srv6_kfeat_print(const struct srv6_kfeat *k, FILE *o);

#endif
