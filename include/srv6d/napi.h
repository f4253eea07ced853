/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * napi.h - `ingress-napi threaded dev IF...`: the ingress devices' receive
 * processing moved out of softirq into NAPI kernel threads, RPS off, for as
 * long as srv6d runs (docs/PERFORMANCE.md "Overload").  Under overload the
 * receive softirq otherwise runs inside the workers' own syscalls and their
 * goodput collapses; with a NAPI thread the scheduler shares the CPU (with
 * `worker-sched fifo`, in the worker's favour).  What srv6d changed is put
 * back when it stops.  Control thread only.
 */
#ifndef SRV6D_NAPI_H
#define SRV6D_NAPI_H

#include <net/if.h>
#include <stddef.h>

#define SRV6_NAPI_MAX_DEVS   8
#define SRV6_NAPI_MAX_QUEUES 64

struct srv6_napi_state {
	unsigned int n;                  /* devices changed */
	struct {
		char name[IF_NAMESIZE];
		char threaded[8];        /* /sys/class/net/DEV/threaded before */
		unsigned int nq;
		char rps[SRV6_NAPI_MAX_QUEUES][80];   /* queues/rx-N/rps_cpus before */
	} dev[SRV6_NAPI_MAX_DEVS];
};

/**
 * srv6_napi_apply - set threaded NAPI (and RPS off on every receive queue)
 * on the @n devices @names, remembering what was there in @s.  0, or
 * -errno with one line naming the device in @err, everything changed so
 * far put back.  Needs CAP_NET_ADMIN and this namespace's sysfs; on a
 * read-only sysfs the line names the unit's drop-in, with LimitRTPRIO=@rtprio
 * when the workers run SCHED_FIFO (@rtprio > 0).  Control thread.
 */
int srv6_napi_apply(struct srv6_napi_state *s, const char (*names)[IF_NAMESIZE], unsigned int n,
		    int rtprio, char *err, size_t errlen);

/** srv6_napi_restore - put back what srv6_napi_apply() changed.  Idempotent. */
void srv6_napi_restore(struct srv6_napi_state *s);

#endif /* SRV6D_NAPI_H */
