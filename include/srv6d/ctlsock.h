/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctlsock.h - srv6d's control socket (docs/CONTROL.md): a unix stream socket
 * served from the control thread's poll loop.  Every connection is
 * non-blocking, buffered and bounded (request SRV6_CTL_REQ_MAX bytes, at
 * most SRV6_CTLSOCK_MAX_CLIENTS at once, of which at most
 * SRV6_CTLSOCK_MAX_MONITORS monitors, a monitor whose reader stalls past
 * SRV6_CTLSOCK_MAX_BACKLOG bytes is dropped, a reply or a monitor whose
 * reader takes nothing for SRV6_CTLSOCK_WRITE_MS is dropped, and when the
 * table is full a client stalled for SRV6_CTLSOCK_EVICT_MS gives its slot to
 * the new connection): a client can delay nothing but itself.  Control
 * thread only; no locks.
 */
#ifndef SRV6D_CTLSOCK_H
#define SRV6D_CTLSOCK_H

#include <poll.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl.h"

#define SRV6_CTLSOCK_MAX_CLIENTS 16
#define SRV6_CTLSOCK_MAX_BACKLOG (1u << 20)
#define SRV6_CTLSOCK_IDLE_MS     10000     /* a request must arrive within this */
#define SRV6_CTLSOCK_WRITE_MS    5000      /* unsent output without progress: dropped */
#define SRV6_CTLSOCK_EVICT_MS    1000      /* table full: a client stalled this long goes */
#define SRV6_CTLSOCK_MAX_MONITORS (SRV6_CTLSOCK_MAX_CLIENTS / 2)
#define SRV6_CTLSOCK_NFDS        (1 + SRV6_CTLSOCK_MAX_CLIENTS)

/* A handler's result besides 0 and -errno: keep the client for events. */
#define SRV6_CTL_MONITOR_KEEP 1

/**
 * srv6_ctl_handler - run @req: write the body to @out and return 0,
 * SRV6_CTL_MONITOR_KEEP (monitor), or -errno with one line in @err.
 */
typedef int (*srv6_ctl_handler)(void *arg, const struct srv6_ctl_req *req, FILE *out,
				char *err, size_t errlen);

struct srv6_ctlsock;

/**
 * srv6_ctlsock_open - create the socket at @path (mode 0660, group srv6d
 * when that group exists; the directory is created 0755 if missing).  A
 * stale socket (nobody accepts on it) is replaced; a live one is -EADDRINUSE.
 * NULL with @err on failure.
 */
struct srv6_ctlsock *srv6_ctlsock_open(const char *path, char *err, size_t errlen);

/** srv6_ctlsock_close - close every connection, unlink the socket.  NULL is fine. */
void srv6_ctlsock_close(struct srv6_ctlsock *s);

/**
 * srv6_ctlsock_pollfds - the descriptors to poll and their events into @pfd
 * (room for SRV6_CTLSOCK_NFDS).  Returns how many.
 */
int srv6_ctlsock_pollfds(struct srv6_ctlsock *s, struct pollfd *pfd);

/**
 * srv6_ctlsock_process - after poll(): accept, read, run complete requests
 * through @fn, write, close; drop clients idle past SRV6_CTLSOCK_IDLE_MS and
 * clients whose output made no progress for the write deadline.
 * @pfd/@n as filled by srv6_ctlsock_pollfds() and returned by poll().
 */
void srv6_ctlsock_process(struct srv6_ctlsock *s, const struct pollfd *pfd, int n,
			  srv6_ctl_handler fn, void *arg);

/**
 * srv6_ctlsock_set_deadlines - the write deadline and the eviction delay in
 * ms (defaults SRV6_CTLSOCK_WRITE_MS, SRV6_CTLSOCK_EVICT_MS); for tests.
 */
void srv6_ctlsock_set_deadlines(struct srv6_ctlsock *s, int write_ms, int evict_ms);

/**
 * srv6_ctlsock_dropped - how many stalled clients were closed (write
 * deadline) or evicted (full table) since the socket opened; 0 for NULL.
 */
uint64_t srv6_ctlsock_dropped(const struct srv6_ctlsock *s);

/**
 * srv6_ctlsock_event - send one event to every monitor: "KIND MESSAGE" or
 * {"event":KIND,"message":MESSAGE,"time":UNIX_SECONDS}.
 */
void srv6_ctlsock_event(struct srv6_ctlsock *s, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
