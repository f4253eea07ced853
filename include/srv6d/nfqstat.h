/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nfqstat.h - the kernel's own NFQUEUE counters, one line per bound queue of
 * /proc/net/netfilter/nfnetlink_queue (the netns of the caller).  The
 * daemon's queue and stats commands and the hold policy's backlog check
 * read them.  srv6_nfq_proc_find() is pure; srv6_nfq_proc_read() does the
 * one read.  Any thread, no locks.
 */
#ifndef SRV6D_NFQSTAT_H
#define SRV6D_NFQSTAT_H

#include <stddef.h>
#include <stdint.h>

/* One line of /proc/net/netfilter/nfnetlink_queue. */
struct srv6_nfq_kstats {
	unsigned int queue;
	uint32_t portid;
	uint64_t waiting;            /* queue_total: packets waiting for a verdict */
	unsigned int copy_mode, copy_range;
	uint64_t queue_dropped;      /* queue full (queue-maxlen) */
	uint64_t user_dropped;       /* the netlink socket's buffer full */
	uint64_t id_sequence;
};

/**
 * srv6_nfq_proc_find - the line for @queue in the text of
 * /proc/net/netfilter/nfnetlink_queue.  0, -ENOENT (no such queue bound
 * in this namespace) or -EINVAL (a line that does not parse).  Pure.
 */
int srv6_nfq_proc_find(const char *text, unsigned int queue, struct srv6_nfq_kstats *out);

/** srv6_nfq_proc_read - the file into @buf (NUL-terminated).  0 or -errno. */
int srv6_nfq_proc_read(char *buf, size_t len);

#endif
