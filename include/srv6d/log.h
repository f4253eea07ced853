/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - the daemon's one logging edge: stderr (foreground) or syslog.
 * Thread-safe (one write per message); never called on the per-packet fast
 * path except for rate-limited first-occurrence reports.
 */
#ifndef SRV6D_LOG_H
#define SRV6D_LOG_H

#include <stdbool.h>
#include <syslog.h>

/**
 * srv6_log_init - send messages to stderr (@to_stderr) or to syslog under
 * @ident (facility daemon).  Call once from main before any thread starts.
 */
void srv6_log_init(bool to_stderr, const char *ident);

/** srv6_log - log one line at syslog priority @prio (LOG_ERR, ...). */
void srv6_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
