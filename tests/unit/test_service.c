// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_service.c - the service edges: the notify datagram (path and abstract
 * sockets), $WATCHDOG_USEC/$WATCHDOG_PID, worker liveness, the pid file lock
 * (src/daemon/service.c), and rate-limited log messages (src/base/log.c).
 * The whole sequence against a running srv6d is tests/net/test_service.sh.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "srv6d/log.h"
#include "srv6d/service.h"

/* ---- notify ---- */

/* Bind a datagram socket named @name ('@' abstract) and point $NOTIFY_SOCKET at it. */
static int listen_notify(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t l = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memcpy(sa.sun_path, name, l);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	assert_int_equal(bind(fd, (struct sockaddr *)&sa,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l)), 0);
	assert_int_equal(setenv("NOTIFY_SOCKET", name, 1), 0);
	return fd;
}

static void recv_is(int fd, const char *want)
{
	char buf[1100];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

static void notify_roundtrip(const char *name)
{
	int fd = listen_notify(name);
	char buf[64];

	assert_int_equal(srv6_notify_init(), 1);
	assert_int_equal(srv6_notify("READY=1\nSTATUS=%s", "up"), 0);
	recv_is(fd, "READY=1\nSTATUS=up");
	assert_int_equal(srv6_notify_reloading(), 0);
	assert_true(recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT) > 0);
	assert_memory_equal(buf, "RELOADING=1\nMONOTONIC_USEC=", 27);
	assert_true(buf[27] >= '1' && buf[27] <= '9');
	srv6_notify_close();
	close(fd);
	unsetenv("NOTIFY_SOCKET");
}

static void test_notify_path(void **state)
{
	char dir[] = "/tmp/srv6d-notify.XXXXXX", path[64];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sock", dir);
	notify_roundtrip(path);
	unlink(path);
	rmdir(dir);
}

static void test_notify_abstract(void **state)
{
	char name[64];

	snprintf(name, sizeof(name), "@srv6d-test-%ld-%d", (long)getpid(), rand());
	notify_roundtrip(name);
}

static void test_notify_unset_or_bad(void **state)
{
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(srv6_notify_init(), 0);
	assert_int_equal(srv6_notify("READY=1"), 0);          /* a no-op */
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	assert_int_equal(srv6_notify_init(), -EINVAL);
	assert_int_equal(srv6_notify("READY=1"), 0);
	unsetenv("NOTIFY_SOCKET");
}

/* ---- watchdog ---- */

static void test_watchdog_env(void **state)
{
	char pid[32];

	unsetenv("WATCHDOG_PID");
	unsetenv("WATCHDOG_USEC");
	assert_int_equal(srv6_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "2000000", 1);
	assert_int_equal(srv6_watchdog_usec(), 2000000);
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(srv6_watchdog_usec(), 2000000);
	snprintf(pid, sizeof(pid), "%ld", (long)getpid() + 1);
	setenv("WATCHDOG_PID", pid, 1);                  /* meant for another process */
	assert_int_equal(srv6_watchdog_usec(), 0);
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "12x", 1);
	assert_int_equal(srv6_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "0", 1);
	assert_int_equal(srv6_watchdog_usec(), 0);
	unsetenv("WATCHDOG_USEC");
}

static void test_liveness(void **state)
{
	struct srv6_liveness l;
	uint64_t b[3] = { 5, 0, 9 };
	unsigned int stuck = 99;

	assert_int_equal(srv6_liveness_init(&l, 3), 0);
	assert_true(srv6_liveness_check(&l, b, &stuck));       /* first: records */
	b[0]++; b[1]++; b[2]++;
	assert_true(srv6_liveness_check(&l, b, &stuck));
	b[0]++; b[2]++;                                        /* worker 1 stuck */
	assert_false(srv6_liveness_check(&l, b, &stuck));
	assert_int_equal(stuck, 1);
	b[0]++; b[1]++; b[2]++;                                /* it recovered */
	assert_true(srv6_liveness_check(&l, b, &stuck));
	b[0]++; b[1]++;                                        /* now the last one */
	assert_false(srv6_liveness_check(&l, b, &stuck));
	assert_int_equal(stuck, 2);
	srv6_liveness_free(&l);
}

/* ---- pid file ---- */

static void test_pidfile(void **state)
{
	char dir[] = "/tmp/srv6d-pid.XXXXXX", path[96], err[256], buf[32], want[32];
	int fd, fd2;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sub/srv6d.pid", dir);   /* directory made */
	fd = srv6_pidfile_open(path, err, sizeof(err));
	assert_true(fd >= 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	snprintf(want, sizeof(want), "%ld\n", (long)getpid());
	assert_string_equal(buf, want);
	/* flock locks belong to the open file description: a second open
	 * conflicts even in the same process, as a second srv6d would. */
	fd2 = srv6_pidfile_open(path, err, sizeof(err));
	assert_int_equal(fd2, -EEXIST);
	assert_non_null(strstr(err, "locked by a running srv6d (pid "));
	srv6_pidfile_close(path, fd);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}

/* ---- rate-limited log lines ---- */

static char sunk[8][512];
static int nsunk;

static void sink(int prio, const char *line)
{
	if (nsunk < 8)
		snprintf(sunk[nsunk++], sizeof(sunk[0]), "%d %s", prio, line);
}

static void test_ratelimit(void **state)
{
	struct srv6_ratelimit rl = { .interval_ns = 1000 };

	nsunk = 0;
	srv6_log_set_sink(sink);
	srv6_log_set_level(LOG_DEBUG);
	srv6_log_rl_at(&rl, 100, LOG_ERR, "queue %u: boom", 0u);     /* reported */
	srv6_log_rl_at(&rl, 200, LOG_ERR, "queue %u: boom", 1u);     /* held */
	srv6_log_rl_at(&rl, 300, LOG_ERR, "queue %u: boom", 2u);     /* held */
	srv6_log_rl_flush_at(&rl, 900);                            /* too early */
	assert_int_equal(nsunk, 1);
	assert_string_equal(sunk[0], "3 queue 0: boom");
	/* No new occurrence: the flush still reports the held ones. */
	srv6_log_rl_flush_at(&rl, 1100);
	assert_int_equal(nsunk, 2);
	assert_string_equal(sunk[1], "3 queue 2: boom (1 more in the last 1 s)");
	srv6_log_rl_flush_at(&rl, 5000);                           /* nothing held */
	assert_int_equal(nsunk, 2);
	/* Held, then a new occurrence after the interval carries the count. */
	srv6_log_rl_at(&rl, 2200, LOG_ERR, "x");
	srv6_log_rl_at(&rl, 2300, LOG_ERR, "y");
	srv6_log_rl_at(&rl, 3500, LOG_ERR, "z");
	assert_int_equal(nsunk, 4);
	assert_string_equal(sunk[2], "3 x");
	assert_string_equal(sunk[3], "3 z (1 more in the last 1 s)");
	srv6_log_set_sink(NULL);
	srv6_log_set_level(LOG_INFO);
}

static void test_log_level(void **state)
{
	nsunk = 0;
	srv6_log_set_sink(sink);
	srv6_log_set_level(LOG_WARNING);
	srv6_log(LOG_INFO, "quiet");
	srv6_log(LOG_WARNING, "loud");
	assert_int_equal(nsunk, 1);
	assert_string_equal(sunk[0], "4 loud");
	assert_string_equal(srv6_log_level_name(LOG_ERR), "err");
	assert_int_equal(srv6_log_level_from_name("debug"), LOG_DEBUG);
	assert_int_equal(srv6_log_level_from_name("error"), -1);   /* one spelling */
	assert_null(srv6_log_level_name(8));
	srv6_log_set_sink(NULL);
	srv6_log_set_level(LOG_INFO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notify_path),
		cmocka_unit_test(test_notify_abstract),
		cmocka_unit_test(test_notify_unset_or_bad),
		cmocka_unit_test(test_watchdog_env),
		cmocka_unit_test(test_liveness),
		cmocka_unit_test(test_pidfile),
		cmocka_unit_test(test_ratelimit),
		cmocka_unit_test(test_log_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
