// SPDX-License-Identifier: GPL-2.0-or-later
/* nfqstat.c - the kernel's NFQUEUE counters (include/srv6d/nfqstat.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "srv6d/nfqstat.h"

/* "  0  23456  0 2 65531  0  0  42  1" */
int srv6_nfq_proc_find(const char *text, unsigned int queue, struct srv6_nfq_kstats *out)
{
	const char *p = text;

	while (p && *p) {
		struct srv6_nfq_kstats k;
		unsigned long long w, qd, ud, seq;
		int one;

		if (sscanf(p, "%u %" SCNu32 " %llu %u %u %llu %llu %llu %d", &k.queue, &k.portid,
			   &w, &k.copy_mode, &k.copy_range, &qd, &ud, &seq, &one) != 9)
			return -EINVAL;
		if (k.queue == queue) {
			k.waiting = w;
			k.queue_dropped = qd;
			k.user_dropped = ud;
			k.id_sequence = seq;
			*out = k;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

int srv6_nfq_proc_read(char *buf, size_t len)
{
	int fd = open("/proc/net/netfilter/nfnetlink_queue", O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		ssize_t r = read(fd, buf + got, len - 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	return 0;
}
