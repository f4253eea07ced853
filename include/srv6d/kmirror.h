/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kmirror.h - the kernel's seg6local routes as srv6d's SIDs (`sids-from
 * kernel [table N] [proto P]`), its seg6 encap routes as srv6d's policies
 * (`routes-from kernel`, IPv6 and IPv4: srv6d's policy route one metric
 * before the kernel's, a kernel route at metric 0 refused), docs/CONTROL.md
 * "The kernel mirror".
 *
 * Where the kernel has SEG6, an operator (or a routing daemon writing to
 * the kernel) installs SIDs as `ip -6 route add SID encap seg6local ...`;
 * srv6d dumps them at start and follows rtnetlink's route events, into a
 * store of origin SRV6_ORIGIN_KERNEL (fpm.h's store: the same decoder, the
 * same grammar, the same merge).  The kernel's routes stay where they are:
 * srv6d's steering takes the SIDs' packets first while it runs, and the
 * kernel's seg6local processes them again once srv6d is gone (fail-open to
 * the kernel, never a leak).  A lost event (ENOBUFS) is repaired by a new
 * dump.  Control thread only.
 */
#ifndef SRV6D_KMIRROR_H
#define SRV6D_KMIRROR_H

#include <poll.h>
#include <stdint.h>

#include "srv6d/conf.h"
#include "srv6d/fpm.h"

struct srv6_kmirror;

struct srv6_kmirror_stats {
	uint64_t dumps;           /* full dumps (the first, then one per overrun) */
	uint64_t events;          /* route and nexthop messages taken */
	uint64_t filtered;        /* routes of other tables / protocols / families */
	uint64_t overruns;        /* ENOBUFS: events lost, a dump repaired them */
};

/**
 * srv6_kmirror_open - subscribe to the route events of this namespace,
 * then dump its IPv6 routes (IPv4 too with @c->routes, and the nexthop
 * objects) into a new store as @c says.  NULL with one line in @err (errno kept).
 */
struct srv6_kmirror *srv6_kmirror_open(const struct srv6_conf_kmirror *c, char *err,
				       size_t errlen);

/** srv6_kmirror_close - unsubscribe and free the store.  NULL is fine. */
void srv6_kmirror_close(struct srv6_kmirror *m);

/** srv6_kmirror_fd - the event socket, to poll for POLLIN. */
int srv6_kmirror_fd(const struct srv6_kmirror *m);

/**
 * srv6_kmirror_process - read the pending events (and dump again after an
 * overrun).  1 when the store changed, else 0.
 */
int srv6_kmirror_process(struct srv6_kmirror *m);

/**
 * srv6_kmirror_tick - the watch tick: when events were lost and the dump
 * that repairs them failed, dump again.  1 when the store changed.
 */
int srv6_kmirror_tick(struct srv6_kmirror *m);

/** srv6_kmirror_store - the entries (fpm.h's accessors read them). */
struct srv6_fpm *srv6_kmirror_store(struct srv6_kmirror *m);

/** srv6_kmirror_stats - the counters. */
const struct srv6_kmirror_stats *srv6_kmirror_stats(const struct srv6_kmirror *m);

#endif /* SRV6D_KMIRROR_H */
