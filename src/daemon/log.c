// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - stderr or syslog, one line per message. */
#include <stdarg.h>
#include <stdio.h>

#include "srv6d/log.h"

static bool log_stderr = true;

void srv6_log_init(bool to_stderr, const char *ident)
{
	log_stderr = to_stderr;
	if (!to_stderr)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void srv6_log(int prio, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (log_stderr) {
		static const char *const names[] = {
			"emerg", "alert", "crit", "error", "warning", "notice", "info", "debug",
		};
		fprintf(stderr, "srv6d: %s: %s\n", names[prio & 7], line);
	} else {
		syslog(prio, "%s", line);
	}
}
