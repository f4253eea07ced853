/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * egress.h - which way each kind of result goes back to the kernel, and the
 * start-up probe behind `egress auto`.
 *
 * Kinds of result and their paths:
 *   IPv6 result of an IPv6 hook    verdict (NF_ACCEPT + payload + mark) when
 *                                  the kernel takes header rewrites in
 *                                  verdicts, else injection
 *   IPv4 result, IPv6 result of an IPv4 hook   injection (a verdict can never
 *                                  change the family)
 *   Ethernet frame (End.DX2)       sent on its oif (AF_PACKET)
 *
 * The probe answers "does this kernel, in this namespace, accept a verdict
 * that rewrites an extension header?" with a real packet through a real
 * queue: upstream netfilter drops such verdicts since "nfnetlink_queue:
 * restrict writes to network header" (2026), and every payload change in a
 * namespace owned by a non-initial user namespace since "disable payload
 * mangling in userns".  See srv6_egress_probe().
 */
#ifndef SRV6D_EGRESS_H
#define SRV6D_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inject.h"
#include "nfq.h"

/* The probe's addresses (a ULA prefix no network uses: fd73:7276:3664::/64,
 * "srv6d"), mark and SRH tag. */
#define SRV6_PROBE_PREFIX "fd73:7276:3664::"
#define SRV6_PROBE_MARK   0x5236d0beu

/**
 * srv6_egress_probe - run the probe on queue @q (bound, no worker on it yet)
 * through srv6d's device @d and injector @j (owned by the caller's thread).
 *
 * It installs two temporary rules (raw and mangle PREROUTING, input
 * interface @d only, chain SRV6D-PROBE), injects two SRv6 packets to
 * SRV6_PROBE_PREFIX"1" with Segments Left 1 and waits for them on @q:
 *   - the control: accepted unchanged with SRV6_PROBE_MARK; it must come back
 *     at mangle PREROUTING, which proves the path;
 *   - the test: End's rewrite (Segments Left 0, destination
 *     SRV6_PROBE_PREFIX"2") as the verdict's payload, with the mark; the
 *     kernel took the rewrite if it comes back at mangle rewritten.
 * Every probe packet ends with NF_DROP; anything else arriving on @q
 * meanwhile (rules of `steer none` already in place) gets @stray_verdict.
 * The rules are removed before it returns.
 *
 * Returns 1 (rewrites accepted), 0 (refused), or -errno when the probe could
 * not tell (no ip6tables, the control never came back); @why receives one
 * line either way.  When the environment variable SRV6D_TEST_PROBE is "fail"
 * (a test hook, not an option) the answer is 0 without a probe.
 * Control thread, before the queue's worker starts.
 */
int srv6_egress_probe(struct srv6_nfq *q, const struct srv6_injdev *d, struct srv6_inj *j,
		      uint32_t stray_verdict, char *why, size_t whylen);

/**
 * srv6_egress_probe_cleanup - remove the probe's rules (SRV6D-PROBE in raw
 * and mangle PREROUTING) if any are there: a crashed start's left-overs.
 * Control thread.
 */
void srv6_egress_probe_cleanup(const struct srv6_injdev *d);

#endif
