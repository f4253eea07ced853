/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * service.h - srv6d as a service: the systemd notify protocol, the watchdog,
 * forking only once everything is up, the pid file.
 *
 * Notify protocol (sd_notify(3), implemented here without libsystemd): one
 * datagram of "KEY=VALUE\n" lines to the AF_UNIX socket named by
 * $NOTIFY_SOCKET ('/' a path, '@' the abstract namespace).  srv6d sends
 *   READY=1, STATUS=..., MAINPID=   queues bound, contexts and rules
 *                                   installed, workers running
 *   RELOADING=1, MONOTONIC_USEC=    a SIGHUP reload begins
 *   READY=1, STATUS=...             ... and ended (whatever its outcome)
 *   STOPPING=1                      SIGTERM/SIGINT received
 *   WATCHDOG=1                      every worker made progress since the
 *                                   last ping (WatchdogSec=)
 *   STATUS=..., ERRNO=              start-up failed
 * Without $NOTIFY_SOCKET every call is a no-op returning 0.
 *
 * All functions: control (main) thread only.
 */
#ifndef SRV6D_SERVICE_H
#define SRV6D_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * srv6_notify_init - read $NOTIFY_SOCKET and open the socket (close-on-exec).
 * Returns 1 when notifying, 0 when not under a service manager, -errno when
 * the variable is set but unusable (then later calls are no-ops).
 */
int srv6_notify_init(void);

/** srv6_notify - send the lines @fmt gives as one datagram.  0 or -errno. */
int srv6_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** srv6_notify_reloading - "RELOADING=1\nMONOTONIC_USEC=<now>".  0 or -errno. */
int srv6_notify_reloading(void);

/** srv6_notify_close - close the socket (at exit). */
void srv6_notify_close(void);

/**
 * srv6_watchdog_usec - the watchdog interval systemd asks for
 * ($WATCHDOG_USEC, when $WATCHDOG_PID is unset or this process), else 0.
 */
uint64_t srv6_watchdog_usec(void);

/**
 * struct srv6_liveness - the watchdog's view of the workers: one heartbeat
 * counter per worker (advanced by the worker on each loop iteration, at least
 * every receive timeout) and the value seen at the last check.
 */
struct srv6_liveness {
	unsigned int n;
	uint64_t *seen;
};

/** srv6_liveness_init - room for @n workers.  0 or -ENOMEM. */
int srv6_liveness_init(struct srv6_liveness *l, unsigned int n);

/**
 * srv6_liveness_check - true if every heartbeat in @beats[0..n) moved since
 * the previous call (the first call only records them and returns true).
 * On false, *@stuck is the index of the first worker that did not move.
 */
bool srv6_liveness_check(struct srv6_liveness *l, const uint64_t *beats, unsigned int *stuck);

/** srv6_liveness_free - release @l. */
void srv6_liveness_free(struct srv6_liveness *l);

/**
 * srv6_daemonize - fork; the parent waits until the child reports (with
 * srv6_daemon_ready()) or exits, and exits with the child's status: a
 * failed start is a non-zero exit of the command that started it.  The
 * child becomes a session leader with cwd "/" and gets the pipe's write end
 * in *@fd.  Returns 0 in the child, -errno if the fork failed (no child).
 */
int srv6_daemonize(int *fd);

/**
 * srv6_daemon_ready - the child is up: point stdin/stdout/stderr at
 * /dev/null, then tell the parent to exit 0.  No-op when @fd < 0.
 */
void srv6_daemon_ready(int *fd);

/**
 * srv6_pidfile_open - create @path (and its directory if missing, 0755),
 * lock it and write this process's pid.  -EEXIST with "pid N" in @err when
 * another live srv6d holds the lock; other -errno with the reason.
 * Returns the fd (keep it open: it holds the lock).
 */
int srv6_pidfile_open(const char *path, char *err, size_t errlen);

/** srv6_pidfile_close - unlink @path and close @fd (if >= 0). */
void srv6_pidfile_close(const char *path, int fd);

#endif
