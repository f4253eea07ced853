// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * srv6ctl.c - srv6d's command line client, in iproute2's style:
 *
 *   srv6ctl [-j] [-s] [-S SOCKET] OBJECT COMMAND [ARG...]
 *
 * The command table (include/srv6d/ctl.h) checks the words and generates the
 * usage; the request goes to srv6d's control socket as one line
 * (docs/CONTROL.md) and the reply body is printed as it comes.  `import`
 * runs here (import.c).
 *
 * Exit codes: 0 ok, 1 srv6d answered with an error (or import found a bad
 * route), 2 usage, 3 srv6d not reachable.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "srv6d/ctl.h"
#include "srv6ctl.h"

enum { EXIT_REPLY = 1, EXIT_USAGE = 2, EXIT_CONNECT = 3 };

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t r = send(fd, p, n, MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Send @line, print the reply: 0, EXIT_REPLY or EXIT_CONNECT. */
static int transact(const char *sock, const char *line)
{
	char buf[65536], status[SRV6_CTL_ERRLEN + 16];
	size_t slen = 0;
	bool head = true;
	int fd = connect_to(sock);

	if (fd < 0) {
		fprintf(stderr, "srv6ctl: %s: %s (is srv6d running? -S names another socket)\n",
			sock, strerror(errno));
		return EXIT_CONNECT;
	}
	if (write_all(fd, line, strlen(line)) < 0) {
		fprintf(stderr, "srv6ctl: %s: sending: %s\n", sock, strerror(errno));
		close(fd);
		return EXIT_CONNECT;
	}
	for (;;) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0);
		size_t off = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		/* the status line first, then the body as it comes */
		while (head && off < (size_t)r) {
			char c = buf[off++];

			if (c == '\n') {
				status[slen] = '\0';
				head = false;
				if (strcmp(status, "ok")) {
					const char *m = !strncmp(status, "error ", 6) ? status + 6 : status;

					fprintf(stderr, "srv6ctl: %s\n", m);
					close(fd);
					return EXIT_REPLY;
				}
			} else if (slen + 1 < sizeof(status)) {
				status[slen++] = c;
			}
		}
		if (off < (size_t)r) {
			fwrite(buf + off, 1, (size_t)r - off, stdout);
			fflush(stdout);
		}
	}
	close(fd);
	if (head) {
		fprintf(stderr, "srv6ctl: %s: srv6d closed the connection without a reply\n", sock);
		return EXIT_CONNECT;
	}
	return 0;
}

static const struct option lopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "stats", no_argument, NULL, 's' },
	{ "socket", required_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	const char *sock = getenv("SRV6CTL_SOCKET");
	char line[SRV6_CTL_REQ_MAX + 1], check[SRV6_CTL_REQ_MAX + 1], err[SRV6_CTL_ERRLEN];
	struct srv6_ctl_req req;
	bool json = false, stats = false;
	size_t len = 0;
	int opt;

	if (!sock || !*sock)
		sock = SRV6_CTL_SOCK_DEFAULT;
	while ((opt = getopt_long(argc, argv, "+jsS:h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 's':
			stats = true;
			break;
		case 'S':
			sock = optarg;
			break;
		case 'h':
			srv6_ctl_usage(stdout, "srv6ctl");
			return 0;
		default:
			srv6_ctl_usage(stderr, "srv6ctl");
			return EXIT_USAGE;
		}
	}
	if (optind == argc || !strcmp(argv[optind], "help")) {
		srv6_ctl_usage(optind == argc ? stderr : stdout, "srv6ctl");
		return optind == argc ? EXIT_USAGE : 0;
	}
	/* the request line: options first, then the words */
	len = (size_t)snprintf(line, sizeof(line), "%s%s", json ? "-j " : "", stats ? "-s " : "");
	for (int i = optind; i < argc; i++) {
		if (!argv[i][0] || strpbrk(argv[i], " \t\n")) {
			fprintf(stderr, "srv6ctl: bad word \"%s\" (empty or with blanks)\n", argv[i]);
			return EXIT_USAGE;
		}
		if (len + strlen(argv[i]) + 2 > SRV6_CTL_REQ_MAX) {
			fprintf(stderr, "srv6ctl: request too long (at most %d bytes)\n", SRV6_CTL_REQ_MAX);
			return EXIT_USAGE;
		}
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", argv[i],
					i + 1 < argc ? " " : "\n");
	}
	/* checked here against the same table srv6d uses */
	memcpy(check, line, len + 1);
	if (srv6_ctl_parse(check, len, true, &req, err, sizeof(err)) < 0) {
		fprintf(stderr, "srv6ctl: %s\n", err);
		return EXIT_USAGE;
	}
	if (req.cmd->op == SRV6_CTL_IMPORT)
		return srv6ctl_import(req.argc, req.argv);
	signal(SIGPIPE, SIG_IGN);
	return transact(sock, line);
}
