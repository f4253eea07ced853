/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fallback.h - what `fail-open yes` leaves in the kernel so that bypassed
 * packets never leak (issue 8, item 6; docs/NETFILTER-ROUTING.md).
 *
 * With --queue-bypass / F_FAIL_OPEN the kernel accepts a steered packet when
 * no srv6d reads its queue (dead, restarting) or the queue is full.  Such a
 * packet is then routed by the kernel's own tables.  For every SID prefix
 * and policy prefix srv6d installs a blackhole route for exactly that prefix
 * in the main table, at a metric worse than any usual one
 * (SRV6_FALLBACK_METRIC + rule-pref: one per instance) and with protocol
 * SRV6_FALLBACK_PROTO: a kernel route for the same prefix at a
 * better metric (an equivalent seg6 / seg6local route the operator keeps)
 * still carries the packet; otherwise it is dropped, never sent unencapsulated
 * or toward a SID that is not a kernel route.  The routes stay when srv6d
 * exits or dies: they are the fail-open state.
 *
 * Control thread only.
 */
#ifndef SRV6D_FALLBACK_H
#define SRV6D_FALLBACK_H

#include <stddef.h>

#include "conf.h"

#define SRV6_FALLBACK_PROTO  109u          /* 'm': srv6d's routes */
#define SRV6_FALLBACK_METRIC 0xffff0000u   /* + rule-pref: any usual route wins */

/**
 * srv6_fallback_sync - make srv6d's fallback routes those of @c: one
 * blackhole per SID prefix (IPv6) and per policy prefix (its family) when
 * c->fail_open, none otherwise; routes of SRV6_FALLBACK_PROTO at this
 * instance's metric in the main table that @c does not want are removed.
 * An instance of the default rule-pref also takes over (removes) the
 * blackholes at the metric of rule-pref 1000 (a pre-40000 srv6d's) for the
 * prefixes it protects itself, unless a srv6d of rule-pref 1000 runs
 * (srv6_instance_pref_held, an unreadable lock counting as one); it leaves
 * every other, logged when their number (or the lock's error) changes, not
 * at each call.  Returns 0 or -errno (@err set).
 */
int srv6_fallback_sync(const struct srv6_conf *c, char *err, size_t errlen);

/**
 * srv6_polroute_check - whether @c's policy routes can be installed: -EEXIST
 * (@err names the line) when the main table holds a route of a policy's
 * prefix and metric that is not srv6d's (through @ifindex), 0 otherwise,
 * -errno when the table cannot be read.  Changes nothing; reload calls it
 * before publishing, so a conflict keeps the running configuration.
 * Control thread.
 */
int srv6_polroute_check(const struct srv6_conf *c, int ifindex, char *err, size_t errlen);

/**
 * srv6_polroute_sync - make the policies' kernel routes those of @c: for each
 * policy (`route PREFIX encap seg6 ...`, either family) a route
 * `PREFIX dev @ifindex proto SRV6_FALLBACK_PROTO metric M` (M:
 * srv6_route_metric()) in the
 * main table, so that the FIB decides (longest prefix, local first) which
 * packets reach srv6d's device, where srv6d queues them at mangle
 * POSTROUTING (steer.h).  Such routes through @ifindex that @c does not want
 * are removed.  They go with the device (srv6d's exit); after a kill -9 the
 * device stays and drops what the route sends it.  A policy that a route of
 * its prefix at a better metric shadows is warned of when it becomes so,
 * not again at each call that finds the same.  Returns 0, -ENODEV (no
 * device while @c has policies) or -errno (@err set).  Control thread.
 */
int srv6_polroute_sync(const struct srv6_conf *c, int ifindex, char *err, size_t errlen);

/* What srv6_polroute_restore() found for one missing route: 0 added again,
 * -EEXIST a route that is not srv6d's holds its prefix and metric (left
 * alone), else -errno (the add failed). */
typedef void (*srv6_polroute_fn)(const struct srv6_conf_route *r, int result, void *arg);

/**
 * srv6_polroute_restore - put back the routes of @c's policies that are no
 * longer in the main table (removed by hand or by a routing daemon, flushed
 * with a device that went down): for each policy whose route through
 * @ifindex is missing, @fn says what became of it; one whose prefix and
 * metric a foreign route holds now (`ip route replace`) is reported, never
 * replaced.  Nothing is removed, and every other policy is still restored
 * (srv6_polroute_sync refuses the whole set).  Quiet when nothing is
 * missing (@fn is not called).  Returns how many were added, or -errno with
 * @err set when the table cannot be read (-ENODEV: @ifindex <= 0 while @c
 * has policies).  Control thread (after rtnetlink events, linkwatch.h).
 */
int srv6_polroute_restore(const struct srv6_conf *c, int ifindex, srv6_polroute_fn fn, void *arg,
			  char *err, size_t errlen);

#endif
