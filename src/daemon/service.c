// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * service.c - the systemd notify protocol (the documented datagram, no
 * libsystemd), watchdog liveness, fork-when-up and the pid file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "srv6d/service.h"

static int notify_fd = -1;
static struct sockaddr_un notify_sa;
static socklen_t notify_salen;

int srv6_notify_init(void)
{
	const char *e = getenv("NOTIFY_SOCKET");
	size_t l;

	if (notify_fd >= 0)
		return 1;
	if (!e || !*e)
		return 0;
	l = strlen(e);
	if ((e[0] != '/' && e[0] != '@') || l < 2 || l > sizeof(notify_sa.sun_path))
		return -EINVAL;
	memset(&notify_sa, 0, sizeof(notify_sa));
	notify_sa.sun_family = AF_UNIX;
	memcpy(notify_sa.sun_path, e, l);
	if (e[0] == '@')
		notify_sa.sun_path[0] = '\0';   /* abstract: no NUL terminator counted */
	notify_salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l);
	notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (notify_fd < 0)
		return -errno;
	return 1;
}

int srv6_notify(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int n;

	if (notify_fd < 0)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	if (sendto(notify_fd, msg, (size_t)n, MSG_NOSIGNAL, (struct sockaddr *)&notify_sa,
		   notify_salen) < 0)
		return -errno;
	return 0;
}

int srv6_notify_reloading(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return srv6_notify("RELOADING=1\nMONOTONIC_USEC=%" PRIu64,
			   (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u);
}

void srv6_notify_close(void)
{
	if (notify_fd >= 0)
		close(notify_fd);
	notify_fd = -1;
}

/* A decimal number with nothing after it, > 0. */
static int env_u64(const char *name, uint64_t *out)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return -ENOENT;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || s[0] == '-')
		return -EINVAL;
	*out = v;
	return 0;
}

uint64_t srv6_watchdog_usec(void)
{
	uint64_t usec, pid;
	int r = env_u64("WATCHDOG_PID", &pid);

	if (r == 0 && pid != (uint64_t)getpid())
		return 0;
	if (r < 0 && r != -ENOENT)
		return 0;
	return env_u64("WATCHDOG_USEC", &usec) == 0 ? usec : 0;
}

int srv6_liveness_init(struct srv6_liveness *l, unsigned int n)
{
	l->n = n;
	l->seen = calloc(n ? n : 1, sizeof(*l->seen));
	if (!l->seen)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		l->seen[i] = UINT64_MAX;   /* "never checked" */
	return 0;
}

bool srv6_liveness_check(struct srv6_liveness *l, const uint64_t *beats, unsigned int *stuck)
{
	bool ok = true;

	for (unsigned int i = 0; i < l->n; i++) {
		if (l->seen[i] != UINT64_MAX && beats[i] == l->seen[i] && ok) {
			ok = false;
			*stuck = i;
		}
		l->seen[i] = beats[i];
	}
	return ok;
}

void srv6_liveness_free(struct srv6_liveness *l)
{
	free(l->seen);
	l->seen = NULL;
	l->n = 0;
}

int srv6_daemonize(int *fd)
{
	int p[2], status;
	unsigned char st;
	ssize_t n;
	pid_t pid;

	*fd = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (pid > 0) {
		/* The parent: the child's report, or its exit. */
		close(p[1]);
		do
			n = read(p[0], &st, 1);
		while (n < 0 && errno == EINTR);
		if (n == 1)
			_exit(st);
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				_exit(1);
		if (WIFEXITED(status))
			_exit(WEXITSTATUS(status) ? WEXITSTATUS(status) : 1);
		_exit(1);
	}
	close(p[0]);
	if (setsid() < 0 || chdir("/") < 0) {
		int e = errno;

		close(p[1]);
		(void)e;
		_exit(3);
	}
	*fd = p[1];
	return 0;
}

void srv6_daemon_ready(int *fd)
{
	unsigned char ok = 0;
	int null;

	if (*fd < 0)
		return;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		fflush(NULL);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	while (write(*fd, &ok, 1) < 0 && errno == EINTR)
		;
	close(*fd);
	*fd = -1;
}

int srv6_pidfile_open(const char *path, char *err, size_t errlen)
{
	char dir[4096], buf[32];
	const char *slash = strrchr(path, '/');
	int fd, n, e;

	if (slash && slash != path && (size_t)(slash - path) < sizeof(dir)) {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			e = errno;
			snprintf(err, errlen, "%s: %s", dir, strerror(e));
			return -e;
		}
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		e = errno;
		n = (int)pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (e == EWOULDBLOCK)
			snprintf(err, errlen, "%s: locked by a running srv6d (pid %s)", path,
				 buf[0] ? buf : "?");
		else
			snprintf(err, errlen, "%s: lock: %s", path, strerror(e));
		close(fd);
		return e == EWOULDBLOCK ? -EEXIST : -e;
	}
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
		e = errno ? errno : EIO;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

void srv6_pidfile_close(const char *path, int fd)
{
	if (fd < 0)
		return;
	unlink(path);
	close(fd);
}
