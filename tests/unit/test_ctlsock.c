// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_ctlsock.c - the control socket without a daemon: a stub handler,
 * real unix sockets in a scratch directory, the poll loop driven by hand.
 * Replies, errors, bounds (oversized request, full table, slow monitor,
 * write deadline, eviction of stalled clients, the monitor cap),
 * what the socket may replace (a stale socket) and what not (a live one,
 * a file that is no socket).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "srv6d/ctlsock.h"

static char dir[40], path[100];
static int calls;
static size_t big_reply;   /* status: a body of this many bytes */

static int stub(void *arg, const struct srv6_ctl_req *req, FILE *out, char *err, size_t errlen)
{
	calls++;
	if (req->cmd->op == SRV6_CTL_MONITOR)
		return SRV6_CTL_MONITOR_KEEP;
	if (req->cmd->op == SRV6_CTL_RELOAD) {
		snprintf(err, errlen, "f.conf:3: unknown action \"End.DX5\"");
		return -EINVAL;
	}
	if (req->cmd->op == SRV6_CTL_STATUS && big_reply) {
		static char chunk[65536];

		memset(chunk, 'x', sizeof(chunk));
		for (size_t n = 0; n < big_reply; n += sizeof(chunk))
			fwrite(chunk, 1, sizeof(chunk), out);
		return 0;
	}
	fprintf(out, "%s %d%s\n", req->cmd->object, req->argc, req->json ? " json" : "");
	return 0;
}

/* Run the loop until nothing happens for a moment. */
static void spin(struct srv6_ctlsock *s)
{
	for (int i = 0; i < 50; i++) {
		struct pollfd pfd[SRV6_CTLSOCK_NFDS];
		int n = srv6_ctlsock_pollfds(s, pfd);

		if (poll(pfd, (nfds_t)n, 10) > 0)
			srv6_ctlsock_process(s, pfd, n, stub, NULL);
	}
}

static int client(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* Everything the server sent until it closed (or nothing more comes). */
static char *reply(int fd)
{
	static char buf[8192];
	size_t n = 0;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (;;) {
		ssize_t r = recv(fd, buf + n, sizeof(buf) - 1 - n, 0);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return buf;
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/test_ctlsock.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s/srv6d.sock", dir);
	return 0;
}

static int teardown(void **state)
{
	char p[160];

	unlink(path);
	snprintf(p, sizeof(p), "%s/s", dir);
	rmdir(p);
	rmdir(dir);
	return 0;
}

static void test_requests(void **state)
{
	char err[SRV6_CTL_ERRLEN] = "";
	struct srv6_ctlsock *s = srv6_ctlsock_open(path, err, sizeof(err));
	struct stat st;
	int a, b, c;

	assert_non_null(s);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0660);
	a = client();
	b = client();
	c = client();
	assert_int_equal(send(a, "-j sid show fc00::1\n", 20, 0), 20);
	assert_int_equal(send(b, "reload\n", 7, 0), 7);
	assert_int_equal(send(c, "sid frob\n", 9, 0), 9);
	spin(s);
	assert_string_equal(reply(a), "ok\nsid 1 json\n");
	assert_string_equal(reply(b), "error f.conf:3: unknown action \"End.DX5\"\n");
	assert_string_equal(reply(c), "error unknown command \"frob\" for sid\n");
	close(a);
	close(b);
	close(c);
	/* a request in pieces; the close ends one without '\n' */
	a = client();
	b = client();
	assert_int_equal(send(a, "sta", 3, 0), 3);
	spin(s);
	assert_int_equal(send(a, "tus\n", 4, 0), 4);
	assert_int_equal(send(b, "status", 6, 0), 6);
	shutdown(b, SHUT_WR);
	spin(s);
	assert_string_equal(reply(a), "ok\nstatus 0\n");
	assert_string_equal(reply(b), "ok\nstatus 0\n");
	close(a);
	close(b);
	/* a live socket is not taken over */
	assert_null(srv6_ctlsock_open(path, err, sizeof(err)));
	assert_non_null(strstr(err, "another srv6d answers on it"));
	srv6_ctlsock_close(s);
	assert_int_equal(access(path, F_OK), -1);
}

static void test_bounds(void **state)
{
	char err[SRV6_CTL_ERRLEN] = "", big[SRV6_CTL_REQ_MAX + 100];
	struct srv6_ctlsock *s = srv6_ctlsock_open(path, err, sizeof(err));
	int fds[SRV6_CTLSOCK_MAX_CLIENTS], extra, a, m;

	assert_non_null(s);
	/* no eviction here: the full table is refused, however slow the run */
	srv6_ctlsock_set_deadlines(s, SRV6_CTLSOCK_WRITE_MS, 60000);
	memset(big, 'x', sizeof(big));
	a = client();
	assert_int_equal(send(a, big, sizeof(big), MSG_DONTWAIT), (ssize_t)sizeof(big));
	calls = 0;
	spin(s);
	assert_string_equal(reply(a), "error request too long (at most 4096 bytes)\n");
	assert_int_equal(calls, 0);
	close(a);
	/* the table full: the next one is refused at once */
	for (int i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS; i++)
		fds[i] = client();
	spin(s);
	extra = client();
	spin(s);
	assert_string_equal(reply(extra), "error too many control connections\n");
	close(extra);
	for (int i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS; i++)
		close(fds[i]);
	spin(s);
	/* monitors get events as text or JSON */
	a = client();
	m = client();
	assert_int_equal(send(a, "monitor\n", 8, 0), 8);
	assert_int_equal(send(m, "-j monitor\n", 11, 0), 11);
	spin(s);
	srv6_ctlsock_event(s, "reload", "ok: %d SIDs", 3);
	spin(s);
	assert_string_equal(reply(a), "ok\nreload ok: 3 SIDs\n");
	assert_non_null(strstr(reply(m), "ok\n{\"event\":\"reload\",\"message\":\"ok: 3 SIDs\",\"time\":"));
	/* a monitor that never reads is dropped past the backlog bound */
	for (int i = 0; i < 20000; i++)
		srv6_ctlsock_event(s, "x", "%0200d", i);
	spin(s);
	{
		char b[65536];
		ssize_t r;
		size_t tot = 0;

		while ((r = recv(m, b, sizeof(b), MSG_DONTWAIT)) > 0)
			tot += (size_t)r;
		/* what was queued is bounded, then the connection is closed */
		assert_true(r == 0);
		assert_true(tot <= SRV6_CTLSOCK_MAX_BACKLOG + 3 * 65536);
	}
	close(a);
	close(m);
	srv6_ctlsock_close(s);
}

/* Drive the loop for @ms milliseconds. */
static void spin_ms(struct srv6_ctlsock *s, int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct pollfd pfd[SRV6_CTLSOCK_NFDS];
		int n = srv6_ctlsock_pollfds(s, pfd);

		(void)poll(pfd, (nfds_t)n, 10);
		srv6_ctlsock_process(s, pfd, n, stub, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/* Whether the server closed @fd (EOF after draining what it sent). */
static bool closed_by_server(int fd)
{
	char b[65536];
	ssize_t r;

	while ((r = recv(fd, b, sizeof(b), MSG_DONTWAIT)) > 0)
		;
	return r == 0;
}

/* Clients that never read their reply or their events, or send nothing,
 * may not lock srv6ctl out: a write deadline closes them, a full table
 * evicts the one stalled longest, monitors take at most half the table. */
static void test_stalled_clients(void **state)
{
	char err[SRV6_CTL_ERRLEN] = "";
	struct srv6_ctlsock *s = srv6_ctlsock_open(path, err, sizeof(err));
	int fds[SRV6_CTLSOCK_MAX_CLIENTS], extra, m;

	assert_non_null(s);
	srv6_ctlsock_set_deadlines(s, 2000, 200);
	/* every slot a reply far larger than the socket buffer, never read */
	big_reply = 1u << 20;
	for (int i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS; i++) {
		fds[i] = client();
		assert_int_equal(send(fds[i], "status\n", 7, 0), 7);
	}
	spin_ms(s, 300);
	big_reply = 0;
	/* past the eviction delay: the next connection gets a slot */
	extra = client();
	assert_int_equal(send(extra, "status\n", 7, 0), 7);
	spin_ms(s, 100);
	assert_string_equal(reply(extra), "ok\nstatus 0\n");
	close(extra);
	assert_true(srv6_ctlsock_dropped(s) >= 1);
	/* past the write deadline: every stalled reply is closed */
	spin_ms(s, 2300);
	assert_int_equal(srv6_ctlsock_dropped(s), SRV6_CTLSOCK_MAX_CLIENTS);
	for (int i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS; i++) {
		assert_true(closed_by_server(fds[i]));
		close(fds[i]);
	}
	/* monitors take at most half the table; the rest serves requests */
	for (int i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS; i++) {
		fds[i] = client();
		assert_int_equal(send(fds[i], "monitor\n", 8, 0), 8);
	}
	spin(s);
	for (int i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS; i++) {
		if (i < SRV6_CTLSOCK_MAX_MONITORS)
			continue;
		assert_string_equal(reply(fds[i]), "error too many monitors (at most 8)\n");
		close(fds[i]);
	}
	extra = client();
	assert_int_equal(send(extra, "status\n", 7, 0), 7);
	spin(s);
	assert_string_equal(reply(extra), "ok\nstatus 0\n");
	close(extra);
	/* an idle monitor (nothing to write) is no stalled client */
	spin_ms(s, 2300);
	m = fds[0];
	assert_false(closed_by_server(m));
	/* a monitor that reads no events past the socket buffer: closed at
	 * the write deadline, well before the backlog bound */
	for (int i = 0; i < 4000; i++)
		srv6_ctlsock_event(s, "x", "%0200d", i);
	spin_ms(s, 2300);
	for (int i = 0; i < SRV6_CTLSOCK_MAX_MONITORS; i++) {
		if (i)
			assert_true(closed_by_server(fds[i]));
		close(fds[i]);
	}
	assert_int_equal(srv6_ctlsock_dropped(s), SRV6_CTLSOCK_MAX_CLIENTS + SRV6_CTLSOCK_MAX_MONITORS);
	srv6_ctlsock_close(s);
}

static void test_what_it_replaces(void **state)
{
	char err[SRV6_CTL_ERRLEN] = "";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct srv6_ctlsock *s;
	int fd;

	/* a stale socket (bound, nobody listens) is replaced */
	{
		char d[64];

		snprintf(d, sizeof(d), "%s/s", dir);
		assert_int_equal(mkdir(d, 0755), 0);
	}
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	s = srv6_ctlsock_open(path, err, sizeof(err));
	assert_non_null(s);
	srv6_ctlsock_close(s);
	/* a regular file is left alone */
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	close(fd);
	assert_null(srv6_ctlsock_open(path, err, sizeof(err)));
	assert_string_equal(strstr(err, "exists and is not a socket"), "exists and is not a socket");
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stalled_clients, setup, teardown),
		cmocka_unit_test_setup_teardown(test_what_it_replaces, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
