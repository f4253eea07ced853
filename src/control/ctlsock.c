// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctlsock.c - srv6d's control socket (include/srv6d/ctlsock.h): accept,
 * buffer, parse (srv6_ctl_parse), run, reply, close.  Control thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "srv6d/ctlsock.h"
#include "srv6d/log.h"
#include "srv6d/sbuf.h"

enum client_state {
	C_FREE,
	C_READ,          /* waiting for the request line */
	C_REPLY,         /* writing the reply, then close */
	C_MONITOR,       /* writing events until the client goes */
};

struct client {
	enum client_state state;
	int fd;
	bool json;                       /* monitor: events as JSON */
	int64_t deadline_ms;             /* C_READ: drop after this */
	int64_t since_ms;                /* accepted; then the last write progress */
	size_t inlen;
	char in[SRV6_CTL_REQ_MAX];
	char *out;
	size_t outlen, outoff, outcap;
};

struct srv6_ctlsock {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct client c[SRV6_CTLSOCK_MAX_CLIENTS];
	int slot_of_pfd[SRV6_CTLSOCK_NFDS];  /* pollfd index -> client, -1 listener */
	int write_ms;                        /* SRV6_CTLSOCK_WRITE_MS (tests: less) */
	int evict_ms;                        /* SRV6_CTLSOCK_EVICT_MS (tests: less) */
	uint64_t dropped;                    /* stalled clients closed or evicted */
	struct srv6_ratelimit drop_rl;
};

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Whether something accepts on @path (a live srv6d). */
static bool socket_live(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool live;

	if (fd < 0)
		return false;
	live = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
	close(fd);
	return live;
}

/*
 * Bind @fd and put the socket at @path, mode 0660, group srv6d where that
 * group exists.  The socket is bound, chowned and chmodded in a private
 * directory (0700, made next to @path) and only then renamed to @path, so
 * whoever else may write @path's directory can neither connect early nor
 * swap the path for a symlink that chown() would follow (and give group
 * srv6d to any file), nor over a socket that appeared at @path since the
 * caller looked (RENAME_NOREPLACE).  @dir is @path's directory ("" for the
 * cwd, "/").
 * 0 or -errno with @err set.
 */
static int bind_private(int fd, const char *path, const char *dir, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char priv[sizeof(sa.sun_path)];
	struct group *g;
	mode_t old;
	int r, n;

	n = snprintf(priv, sizeof(priv), "%s%s.srv6d-XXXXXX", dir,
		     *dir && strcmp(dir, "/") ? "/" : "");
	if (n < 0 || (size_t)n + sizeof("/s") > sizeof(sa.sun_path)) {
		snprintf(err, errlen, "control socket %s: path too long (its directory must "
			 "leave room for a private directory)", path);
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(priv)) {
		r = -errno;
		snprintf(err, errlen, "control socket %s: private directory %s: %s", path, priv,
			 strerror(errno));
		return r;
	}
	memcpy(sa.sun_path, priv, (size_t)n);   /* fits: checked above */
	memcpy(sa.sun_path + n, "/s", sizeof("/s"));
	old = umask(0117);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0) {
		r = -errno;
		snprintf(err, errlen, "control socket %s: bind: %s", path, strerror(errno));
		goto out_rmdir;
	}
	g = getgrnam("srv6d");
	if (g && fchownat(AT_FDCWD, sa.sun_path, (uid_t)-1, g->gr_gid, AT_SYMLINK_NOFOLLOW) < 0)
		snprintf(err, errlen, "control socket %s: chown to group srv6d: %s", path,
			 strerror(errno));   /* a warning at most: keep going */
	/* never over another srv6d's socket that appeared since the check */
	const char *how = "rename";

	r = renameat2(AT_FDCWD, sa.sun_path, AT_FDCWD, path, RENAME_NOREPLACE);
	if (r < 0 && (errno == EINVAL || errno == ENOSYS)) {
		/* a file system without RENAME_NOREPLACE: link() fails on EEXIST too */
		how = "link";
		r = link(sa.sun_path, path);
		if (r == 0)
			(void)unlink(sa.sun_path);
	}
	if (r < 0) {
		r = -errno;
		if (r == -EEXIST)
			snprintf(err, errlen, "control socket %s: appeared while srv6d bound its own "
				 "(another srv6d starting? give each instance its own control-socket)",
				 path);
		else
			snprintf(err, errlen, "control socket %s: %s from %s: %s", path,
				 how, sa.sun_path, strerror(errno));
		goto out_unlink;
	}
	(void)rmdir(priv);
	return 0;

out_unlink:
	(void)unlink(sa.sun_path);
out_rmdir:
	(void)rmdir(priv);
	return r;
}

struct srv6_ctlsock *srv6_ctlsock_open(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct srv6_ctlsock *s;
	char dir[sizeof(sa.sun_path)], *slash;
	int r;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "control socket %s: path too long (at most %zu bytes)", path,
			 sizeof(sa.sun_path) - 1);
		return NULL;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "control socket: out of memory");
		return NULL;
	}
	memcpy(s->path, path, strlen(path) + 1);
	s->write_ms = SRV6_CTLSOCK_WRITE_MS;
	s->evict_ms = SRV6_CTLSOCK_EVICT_MS;
	memcpy(dir, path, strlen(path) + 1);
	slash = strrchr(dir, '/');
	if (!slash) {
		dir[0] = '\0';                  /* the cwd */
	} else if (slash == dir) {
		dir[1] = '\0';                  /* "/" */
	} else {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "control socket %s: mkdir %s: %s", path, dir,
				 strerror(errno));
			goto out_free;
		}
	}
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->fd < 0) {
		snprintf(err, errlen, "control socket: %s", strerror(errno));
		goto out_free;
	}
	if (socket_live(&sa)) {
		snprintf(err, errlen, "control socket %s: another srv6d answers on it (give each "
			 "instance its own control-socket)", path);
		goto out_close;
	}
	{
		struct stat st;

		/* stale: its srv6d is gone.  Never remove anything else. */
		if (lstat(path, &st) == 0) {
			if (!S_ISSOCK(st.st_mode)) {
				snprintf(err, errlen, "control socket %s: exists and is not a socket",
					 path);
				goto out_close;
			}
			(void)unlink(path);
		}
	}
	r = bind_private(s->fd, path, dir, err, errlen);
	if (r < 0)
		goto out_close;
	if (listen(s->fd, 16) < 0) {
		snprintf(err, errlen, "control socket %s: listen: %s", path, strerror(errno));
		goto out_unlink;
	}
	return s;

out_unlink:
	unlink(path);
out_close:
	close(s->fd);
out_free:
	free(s);
	return NULL;
}

static void client_close(struct client *c)
{
	if (c->state == C_FREE)
		return;
	close(c->fd);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->state = C_FREE;
}

void srv6_ctlsock_close(struct srv6_ctlsock *s)
{
	if (!s)
		return;
	for (int i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS; i++)
		client_close(&s->c[i]);
	close(s->fd);
	unlink(s->path);
	free(s);
}

/* Append @len bytes to the output; false (client dropped) past the bound. */
static bool out_append(struct client *c, const char *data, size_t len)
{
	if (c->outlen - c->outoff + len > SRV6_CTLSOCK_MAX_BACKLOG && c->state == C_MONITOR)
		return false;
	if (c->outoff == c->outlen) {
		c->outoff = c->outlen = 0;
		c->since_ms = now_ms();   /* output pending from now: the write clock */
	}
	if (c->outlen + len > c->outcap) {
		size_t ncap = c->outcap ? c->outcap : 4096;
		char *n;

		while (ncap < c->outlen + len)
			ncap *= 2;
		n = realloc(c->out, ncap);
		if (!n)
			return false;
		c->out = n;
		c->outcap = ncap;
	}
	memcpy(c->out + c->outlen, data, len);
	c->outlen += len;
	return true;
}

int srv6_ctlsock_pollfds(struct srv6_ctlsock *s, struct pollfd *pfd)
{
	int n = 0;

	pfd[n] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
	s->slot_of_pfd[n++] = -1;
	for (int i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS; i++) {
		struct client *c = &s->c[i];
		short ev;

		if (c->state == C_FREE)
			continue;
		/* a request, or a monitor's EOF; a reply only needs to go out */
		ev = c->state == C_REPLY ? 0 : POLLIN;
		if (c->outoff < c->outlen || c->state == C_REPLY)
			ev |= POLLOUT;
		pfd[n] = (struct pollfd){ .fd = c->fd, .events = ev };
		s->slot_of_pfd[n++] = i;
	}
	return n;
}

/* Whether @c holds its slot without progress since @since (ms): no
 * complete request yet, or output it does not read.  A monitor waiting for
 * events with nothing to write is not stalled. */
static bool client_stalled(const struct client *c, int64_t since)
{
	if (c->state == C_READ)
		return c->deadline_ms - SRV6_CTLSOCK_IDLE_MS <= since;
	return c->outoff < c->outlen && c->since_ms <= since;
}

/* A stalled client closed (write deadline, eviction): counted, logged at
 * most once an interval. */
static void client_drop(struct srv6_ctlsock *s, struct client *c, const char *why)
{
	s->dropped++;
	srv6_log_rl(&s->drop_rl, LOG_WARNING, "control socket: closed a client that %s", why);
	client_close(c);
}

/* The table is full: the slot of the client stalled longest, if one has been
 * stalled for evict_ms (its slot goes to the new connection), else -1. */
static int evict_one(struct srv6_ctlsock *s)
{
	int64_t limit = now_ms() - s->evict_ms, oldest = 0;
	int victim = -1;

	for (int i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS; i++) {
		const struct client *c = &s->c[i];
		int64_t t = c->state == C_READ ? c->deadline_ms - SRV6_CTLSOCK_IDLE_MS : c->since_ms;

		if (client_stalled(c, limit) && (victim < 0 || t < oldest)) {
			victim = i;
			oldest = t;
		}
	}
	if (victim >= 0)
		client_drop(s, &s->c[victim], "stalled while the connection table was full");
	return victim;
}

static void accept_all(struct srv6_ctlsock *s)
{
	for (;;) {
		int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), i;
		static const char busy[] = "error too many control connections\n";

		if (fd < 0)
			return;   /* EAGAIN, or a transient error: the next poll retries */
		for (i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS && s->c[i].state != C_FREE; i++)
			;
		if (i == SRV6_CTLSOCK_MAX_CLIENTS) {
			int v = evict_one(s);

			if (v >= 0)
				i = v;
		}
		if (i == SRV6_CTLSOCK_MAX_CLIENTS) {
			(void)!send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			continue;
		}
		s->c[i] = (struct client){ .state = C_READ, .fd = fd,
					   .deadline_ms = now_ms() + SRV6_CTLSOCK_IDLE_MS };
	}
}

static void reply_error(struct client *c, const char *msg)
{
	c->state = C_REPLY;
	if (!out_append(c, "error ", 6) || !out_append(c, msg, strlen(msg)) ||
	    !out_append(c, "\n", 1))
		client_close(c);
}

/* How many clients are monitors now. */
static int monitors(const struct srv6_ctlsock *s)
{
	int n = 0;

	for (int i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS; i++)
		n += s->c[i].state == C_MONITOR;
	return n;
}

/* A complete request of @len bytes in c->in. */
static void run_request(struct srv6_ctlsock *s, struct client *c, size_t len,
			srv6_ctl_handler fn, void *arg)
{
	char err[SRV6_CTL_ERRLEN] = "";
	struct srv6_ctl_req req;
	char *body = NULL;
	size_t blen = 0;
	FILE *out;
	int r;

	if (srv6_ctl_parse(c->in, len, false, &req, err, sizeof(err)) < 0) {
		reply_error(c, err);
		return;
	}
	if (req.cmd->op == SRV6_CTL_MONITOR && monitors(s) >= SRV6_CTLSOCK_MAX_MONITORS) {
		/* monitors wait for events without a deadline: they may not
		 * take every slot from requests */
		snprintf(err, sizeof(err), "too many monitors (at most %d)",
			 SRV6_CTLSOCK_MAX_MONITORS);
		reply_error(c, err);
		return;
	}
	out = open_memstream(&body, &blen);
	if (!out) {
		reply_error(c, "out of memory");
		return;
	}
	r = fn(arg, &req, out, err, sizeof(err));
	if (fclose(out) != 0 && r >= 0) {
		r = -ENOMEM;
		snprintf(err, sizeof(err), "out of memory");
	}
	if (r < 0) {
		reply_error(c, err[0] ? err : strerror(-r));
	} else {
		c->state = r == SRV6_CTL_MONITOR_KEEP ? C_MONITOR : C_REPLY;
		c->json = req.json;
		if (!out_append(c, "ok\n", 3) || !out_append(c, body, blen))
			client_close(c);
	}
	free(body);
}

static void client_read(struct srv6_ctlsock *s, struct client *c, srv6_ctl_handler fn,
			void *arg)
{
	ssize_t r;
	char *nl;

	if (c->state == C_MONITOR) {
		char sink[256];

		/* anything, or EOF: a monitor only listens */
		r = recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			client_close(c);
		return;
	}
	r = recv(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen, MSG_DONTWAIT);
	if (r < 0) {
		if (errno != EAGAIN && errno != EINTR)
			client_close(c);
		return;
	}
	if (r == 0) {       /* EOF: what came is the request (no '\n' needed) */
		if (!c->inlen) {
			client_close(c);
			return;
		}
		run_request(s, c, c->inlen, fn, arg);
		return;
	}
	c->inlen += (size_t)r;
	nl = memchr(c->in, '\n', c->inlen);
	if (nl) {
		run_request(s, c, (size_t)(nl - c->in) + 1, fn, arg);
	} else if (c->inlen == sizeof(c->in)) {
		char msg[80];

		snprintf(msg, sizeof(msg), "request too long (at most %d bytes)", SRV6_CTL_REQ_MAX);
		reply_error(c, msg);
	}
}

static void client_write(struct client *c)
{
	while (c->outoff < c->outlen) {
		ssize_t r = send(c->fd, c->out + c->outoff, c->outlen - c->outoff,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (r < 0) {
			if (errno != EAGAIN && errno != EINTR)
				client_close(c);
			return;
		}
		c->outoff += (size_t)r;
		c->since_ms = now_ms();
	}
	if (c->state == C_REPLY)
		client_close(c);
}

void srv6_ctlsock_process(struct srv6_ctlsock *s, const struct pollfd *pfd, int n,
			  srv6_ctl_handler fn, void *arg)
{
	int64_t now = now_ms();

	for (int k = 0; k < n; k++) {
		int slot = s->slot_of_pfd[k];
		struct client *c;

		if (slot < 0) {
			if (pfd[k].revents & POLLIN)
				accept_all(s);
			continue;
		}
		c = &s->c[slot];
		if (c->state == C_FREE || c->fd != pfd[k].fd)
			continue;
		if (pfd[k].revents & (POLLERR | POLLNVAL)) {
			client_close(c);
			continue;
		}
		if (pfd[k].revents & (POLLIN | POLLHUP) && c->state != C_REPLY)
			client_read(s, c, fn, arg);
		if (c->state != C_FREE && c->outoff < c->outlen)
			client_write(c);
		else if (c->state == C_REPLY)
			client_close(c);
	}
	for (int i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS; i++) {
		struct client *c = &s->c[i];

		if (c->state == C_READ && now > c->deadline_ms)
			client_close(c);
		else if (c->state != C_FREE && c->state != C_READ &&
			 client_stalled(c, now - s->write_ms))
			client_drop(s, c, c->state == C_MONITOR ? "as a monitor read no event "
				    "for the write deadline" : "read no reply for the write deadline");
	}
	srv6_log_rl_flush(&s->drop_rl);
}

void srv6_ctlsock_set_deadlines(struct srv6_ctlsock *s, int write_ms, int evict_ms)
{
	s->write_ms = write_ms;
	s->evict_ms = evict_ms;
}

uint64_t srv6_ctlsock_dropped(const struct srv6_ctlsock *s)
{
	return s ? s->dropped : 0;
}

void srv6_ctlsock_event(struct srv6_ctlsock *s, const char *kind, const char *fmt, ...)
{
	char msg[1024], *json = NULL;
	size_t jlen = 0;
	va_list ap;
	FILE *f;

	if (!s)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	f = open_memstream(&json, &jlen);
	if (!f)
		return;
	fprintf(f, "{\"event\":");
	srv6_json_str(f, kind);
	fprintf(f, ",\"message\":");
	srv6_json_str(f, msg);
	fprintf(f, ",\"time\":%lld}\n", (long long)time(NULL));
	if (fclose(f) != 0) {
		free(json);
		return;
	}
	for (int i = 0; i < SRV6_CTLSOCK_MAX_CLIENTS; i++) {
		struct client *c = &s->c[i];
		bool ok;

		if (c->state != C_MONITOR)
			continue;
		if (c->json)
			ok = out_append(c, json, jlen);
		else
			ok = out_append(c, kind, strlen(kind)) && out_append(c, " ", 1) &&
			     out_append(c, msg, strlen(msg)) && out_append(c, "\n", 1);
		if (!ok)
			client_close(c);
		else
			client_write(c);
	}
	free(json);
}
