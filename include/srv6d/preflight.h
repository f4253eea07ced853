/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * preflight.h - `srv6d --check`: what a parsed configuration needs from this
 * host, checked without changing anything and without privileges.
 *
 *   error    (start-up would fail)   steer auto and ip6tables-save/-restore
 *                                    (iptables-* with IPv4 policies) missing
 *   warning  (starts, but degraded)  what starts pending (pending.h): an
 *                                    oif interface that does not exist (yet)
 *                                    or is down; an End.X/End.DX6 nh6
 *                                    without oif and without a route toward
 *                                    it; a dev that does not exist or no
 *                                    source address toward the first segment
 *                                    of an encapsulating SID or policy
 *                                    (without encap-source); also
 *                                    encap-source not an address of this
 *                                    host; net.ipv6.conf.all.forwarding = 0
 *
 * Messages are one line each, "FILE:LINE: warning: ..." when they belong to
 * a line.  Verbose output is the canonical configuration (parses back to the
 * same configuration), followed by the rules `steer none` needs as comment
 * lines "#6 RULE" (ip6tables-restore --noflush input) and "#4 RULE"
 * (iptables-restore --noflush), so `sed -n 's/^#6 //p'` extracts them.
 */
#ifndef SRV6D_PREFLIGHT_H
#define SRV6D_PREFLIGHT_H

#include <stdbool.h>
#include <stdio.h>

#include "conf.h"
#include "steer.h"

/**
 * srv6_preflight - check @c (parsed from @path) against this host; messages
 * go to @msgs.  Returns the number of errors (0: a start can succeed).
 * Any thread; forks nothing.
 */
int srv6_preflight(const char *path, const struct srv6_conf *c, FILE *msgs);

/**
 * srv6_conf_print - write @c as a canonical configuration file to @out,
 * then the `steer none` rules as "#6 "/"#4 " comment lines.  0 or -errno.
 */
int srv6_conf_print(const struct srv6_conf *c, FILE *out);

/**
 * srv6_steer_cfg_from_conf - point @sc at freshly allocated prefix arrays
 * for @c's SIDs and policies (queues and fail-open from @c).  0 or -ENOMEM;
 * release with srv6_steer_cfg_release().
 */
int srv6_steer_cfg_from_conf(const struct srv6_conf *c, struct srv6_steer_cfg *sc);

/**
 * srv6_steer_gate_of - the match of srv6d's context gate for @c's
 * mark-base/mark-mask (include/srv6d/steer.h): the base and the mask
 * without the index bits.  Pure.
 */
void srv6_steer_gate_of(const struct srv6_conf *c, uint32_t *mark, uint32_t *mask);

/** srv6_steer_cfg_release - free what srv6_steer_cfg_from_conf() allocated. */
void srv6_steer_cfg_release(struct srv6_steer_cfg *sc);


/**
 * srv6_read_int_file - the integer in the file @path (a sysctl under
 * /proc/sys).  0 or -errno.  Any thread.
 */
int srv6_read_int_file(const char *path, int *v);

#endif
