/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - the daemon's one logging edge: stderr (foreground) or syslog.
 *
 * Under systemd (JOURNAL_STREAM or NOTIFY_SOCKET in the environment at
 * srv6_log_init()) stderr lines carry the kernel-style "<N>" priority prefix
 * that journald parses (SyslogLevelPrefix=), so `journalctl -p err` works;
 * on a terminal they read "srv6d: error: ...".  Messages less important than
 * the level set with srv6_log_set_level() (the conf's `log-level`) are
 * dropped.
 *
 * Thread-safe (one write per message); never called on the per-packet fast
 * path except through a struct srv6_ratelimit, which reports the first
 * occurrence at once and later ones as a count, at most once per interval.
 */
#ifndef SRV6D_LOG_H
#define SRV6D_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <syslog.h>

#include "loglevel.h"  /* srv6_log_level_name(), _from_name() */

/** Default interval of a rate-limited message (ns). */
#define SRV6_LOG_RL_INTERVAL_NS (10ull * 1000000000ull)

/**
 * srv6_log_init - send messages to stderr (@to_stderr) or to syslog under
 * @ident (facility daemon).  With syslog, warnings and errors are also
 * copied to stderr until srv6_log_detach(): a daemon that forks only once
 * it is up shows its start-up errors on the terminal that started it.
 * Call once from main before any thread starts.
 */
void srv6_log_init(bool to_stderr, const char *ident);

/** srv6_log_detach - stop copying to stderr (stdio is about to be /dev/null). */
void srv6_log_detach(void);

/** srv6_log_set_level - drop messages whose priority is above @prio (LOG_*). Any thread. */
void srv6_log_set_level(int prio);

/** srv6_log - log one line at syslog priority @prio (LOG_ERR, ...). */
void srv6_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * struct srv6_ratelimit - state of one repeated message (zero-initialise;
 * set interval_ns to override SRV6_LOG_RL_INTERVAL_NS).  Owned by one
 * thread (a worker keeps its own): no locking.
 */
struct srv6_ratelimit {
	uint64_t interval_ns;
	uint64_t next_ns;       /* CLOCK_MONOTONIC: nothing logged before this */
	uint64_t suppressed;    /* occurrences not yet reported */
	int prio;
	char last[256];         /* text of the last occurrence */
};

/**
 * srv6_log_rl - log @fmt now if @rl's interval has passed since its last
 * report (with ", N more since" when occurrences were held back), else only
 * count it.  Nothing is silenced for good: srv6_log_rl_flush() reports a
 * held count once the interval is over even if no new occurrence comes.
 */
void srv6_log_rl(struct srv6_ratelimit *rl, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** srv6_log_rl_at - srv6_log_rl() at time @now_ns (tests). */
void srv6_log_rl_at(struct srv6_ratelimit *rl, uint64_t now_ns, int prio, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * srv6_log_rl_flush - report occurrences held back by @rl if its interval
 * is over.  Cheap when nothing is held (no clock read): call it once per
 * loop iteration of the owning thread.
 */
void srv6_log_rl_flush(struct srv6_ratelimit *rl);

/** srv6_log_rl_flush_at - srv6_log_rl_flush() at time @now_ns (tests). */
void srv6_log_rl_flush_at(struct srv6_ratelimit *rl, uint64_t now_ns);

/**
 * srv6_log_set_sink - send every message to @fn instead (tests); NULL
 * restores the normal output.  Call before any thread starts.
 */
void srv6_log_set_sink(void (*fn)(int prio, const char *line));

#endif
