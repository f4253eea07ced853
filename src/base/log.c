// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - stderr (with "<N>" prefixes under systemd) or syslog, one line per
 * message; a level filter; rate-limited repeated messages. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv6d/log.h"

static bool log_stderr = true;
static bool log_copy_stderr;      /* atomic: syslog mode, until srv6_log_detach() */
static bool log_prefix;           /* "<N>" prefixes for journald */
static int log_level = LOG_INFO;  /* atomic */
static void (*log_sink)(int prio, const char *line);

void srv6_log_init(bool to_stderr, const char *ident)
{
	log_stderr = to_stderr;
	log_prefix = getenv("JOURNAL_STREAM") || getenv("NOTIFY_SOCKET");
	if (!to_stderr) {
		log_copy_stderr = true;
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	}
}

void srv6_log_detach(void)
{
	/* Workers may be logging: they read it atomically. */
	__atomic_store_n(&log_copy_stderr, false, __ATOMIC_RELAXED);
}

void srv6_log_set_level(int prio)
{
	__atomic_store_n(&log_level, prio, __ATOMIC_RELAXED);
}

void srv6_log_set_sink(void (*fn)(int prio, const char *line))
{
	log_sink = fn;
}

static void emit(int prio, const char *line)
{
	prio &= 7;
	if (prio > __atomic_load_n(&log_level, __ATOMIC_RELAXED))
		return;
	if (log_sink) {
		log_sink(prio, line);
		return;
	}
	if (!log_stderr) {
		syslog(prio, "%s", line);
		if (!__atomic_load_n(&log_copy_stderr, __ATOMIC_RELAXED) || prio > LOG_WARNING)
			return;
	}
	if (log_prefix)
		fprintf(stderr, "<%d>%s\n", prio, line);
	else
		fprintf(stderr, "srv6d: %s: %s\n", prio == LOG_ERR ? "error" : srv6_log_level_name(prio),
			line);
}

void srv6_log(int prio, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	emit(prio, line);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t rl_interval(const struct srv6_ratelimit *rl)
{
	return rl->interval_ns ? rl->interval_ns : SRV6_LOG_RL_INTERVAL_NS;
}

/* Report @rl->last with the held count; opens a new interval. */
static void rl_report(struct srv6_ratelimit *rl, uint64_t now, uint64_t held)
{
	char line[sizeof(rl->last) + 96];
	unsigned long long secs = (unsigned long long)(rl_interval(rl) / 1000000000ull);

	if (held)
		snprintf(line, sizeof(line), "%s (%llu more in the last %llu s)", rl->last,
			 (unsigned long long)held, secs ? secs : 1);
	else
		snprintf(line, sizeof(line), "%s", rl->last);
	emit(rl->prio, line);
	rl->next_ns = now + rl_interval(rl);
}

static void rl_vlog(struct srv6_ratelimit *rl, uint64_t now, int prio, const char *fmt,
		    va_list ap)
{
	if (rl->next_ns && now < rl->next_ns) {
		rl->suppressed++;
		vsnprintf(rl->last, sizeof(rl->last), fmt, ap);
		rl->prio = prio;
		return;
	}
	/* This occurrence is reported; the held ones are counted in it. */
	vsnprintf(rl->last, sizeof(rl->last), fmt, ap);
	rl->prio = prio;
	rl_report(rl, now, rl->suppressed);
	rl->suppressed = 0;
}

void srv6_log_rl_at(struct srv6_ratelimit *rl, uint64_t now, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rl_vlog(rl, now, prio, fmt, ap);
	va_end(ap);
}

void srv6_log_rl(struct srv6_ratelimit *rl, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rl_vlog(rl, now_ns(), prio, fmt, ap);
	va_end(ap);
}

void srv6_log_rl_flush_at(struct srv6_ratelimit *rl, uint64_t now)
{
	if (!rl->suppressed || now < rl->next_ns)
		return;
	/* The last held occurrence stands for all of them. */
	rl_report(rl, now, rl->suppressed - 1);
	rl->suppressed = 0;
}

void srv6_log_rl_flush(struct srv6_ratelimit *rl)
{
	if (rl->suppressed)
		srv6_log_rl_flush_at(rl, now_ns());
}
