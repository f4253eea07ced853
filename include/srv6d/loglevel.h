/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loglevel.h - the names of the syslog priorities, as the conf's `log-level`
 * and the daemon's stderr lines spell them.  Pure; the conf grammar uses it
 * without pulling in the daemon's logging edge (log.h includes this file).
 */
#ifndef SRV6D_LOGLEVEL_H
#define SRV6D_LOGLEVEL_H

#include <string.h>
#include <syslog.h>

/** srv6_log_level_name - "err", "warning", ... for LOG_*; NULL if out of range.  Pure. */
static inline const char *srv6_log_level_name(int prio)
{
	static const char *const names[] = {
		"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == LOG_DEBUG + 1,
		       "one name per syslog priority");

	return prio >= 0 && prio <= LOG_DEBUG ? names[prio] : NULL;
}

/** srv6_log_level_from_name - LOG_* for a name of srv6_log_level_name(), or -1.  Pure. */
static inline int srv6_log_level_from_name(const char *name)
{
	for (int i = 0; i <= LOG_DEBUG; i++)
		if (!strcmp(srv6_log_level_name(i), name))
			return i;
	return -1;
}

#endif
