// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * napi.c - threaded NAPI on the ingress devices while srv6d runs (napi.h):
 * /sys/class/net/DEV/threaded and queues/rx-N/rps_cpus, read, written,
 * written back.  Control thread only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv6d/napi.h"

/* The first line of @path into @buf (newline cut).  0 or -errno. */
static int sys_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = read(fd, buf, len - 1);
	if (r < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	buf[r] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int sys_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = write(fd, val, strlen(val));
	if (r < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	return 0;
}

/* /sys read-only: the shipped unit's ProtectKernelTunables=; the drop-in
 * that allows the device is in systemd/srv6d.service.in */
#define RO_HINT_A " (/sys is read-only: under the srv6d unit allow the device in a drop-in, " \
		  "ReadWritePaths=/sys/class/net/"

/* the end of the hint: the real-time part only for SCHED_FIFO workers */
static const char *ro_hint_b(int rtprio, char *buf, size_t len)
{
	if (rtprio > 0)
		snprintf(buf, len, "/, and for its workers RestrictRealtime=no and LimitRTPRIO=%d)",
			 rtprio);
	else
		snprintf(buf, len, "/)");
	return buf;
}

void srv6_napi_restore(struct srv6_napi_state *s)
{
	char p[128];

	for (unsigned int i = s->n; i--;) {
		for (unsigned int q = 0; q < s->dev[i].nq; q++) {
			snprintf(p, sizeof(p), "/sys/class/net/%s/queues/rx-%u/rps_cpus", s->dev[i].name, q);
			(void)sys_write(p, s->dev[i].rps[q]);
		}
		snprintf(p, sizeof(p), "/sys/class/net/%s/threaded", s->dev[i].name);
		(void)sys_write(p, s->dev[i].threaded);
	}
	s->n = 0;
}

int srv6_napi_apply(struct srv6_napi_state *s, const char (*names)[IF_NAMESIZE], unsigned int n,
		    int rtprio, char *err, size_t errlen)
{
	char p[128], hb[96];
	int r;

	s->n = 0;
	for (unsigned int i = 0; i < n && i < SRV6_NAPI_MAX_DEVS; i++) {
		typeof(s->dev[0]) *dv = &s->dev[s->n];

		memset(dv, 0, sizeof(*dv));
		snprintf(dv->name, sizeof(dv->name), "%s", names[i]);
		snprintf(p, sizeof(p), "/sys/class/net/%s/threaded", dv->name);
		r = sys_read(p, dv->threaded, sizeof(dv->threaded));
		if (r < 0) {
			snprintf(err, errlen, "ingress-napi: %s: %s", dv->name,
				 r == -ENOENT ? "no such device" : strerror(-r));
			goto fail;
		}
		r = sys_write(p, "1");
		if (r < 0) {
			snprintf(err, errlen, "ingress-napi: %s: threaded NAPI: %s%s%s%s%s", dv->name,
				 strerror(-r),
				 r == -EOPNOTSUPP || r == -EINVAL || r == -EIO ?
				 " (the device has no NAPI context; a veth has one with GRO on: "
				 "ethtool -K DEV gro on)" : "",
				 r == -EROFS ? RO_HINT_A : "", r == -EROFS ? dv->name : "",
				 r == -EROFS ? ro_hint_b(rtprio, hb, sizeof(hb)) : "");
			goto fail;
		}
		s->n++;
		for (unsigned int q = 0; q < SRV6_NAPI_MAX_QUEUES; q++) {
			snprintf(p, sizeof(p), "/sys/class/net/%s/queues/rx-%u/rps_cpus", dv->name, q);
			if (sys_read(p, dv->rps[q], sizeof(dv->rps[q])) < 0)
				break;        /* no such queue (or no RPS): done */
			dv->nq = q + 1;
			r = sys_write(p, "0");
			if (r < 0) {
				snprintf(err, errlen, "ingress-napi: %s: rx-%u rps_cpus: %s%s%s%s", dv->name,
					 q, strerror(-r), r == -EROFS ? RO_HINT_A : "",
					 r == -EROFS ? dv->name : "",
					 r == -EROFS ? ro_hint_b(rtprio, hb, sizeof(hb)) : "");
				goto fail;
			}
		}
	}
	return 0;

fail:
	srv6_napi_restore(s);
	return r;
}
