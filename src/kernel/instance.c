// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * instance.c - per-netns byte-range locks on srv6d's resources.  See
 * include/srv6d/instance.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "srv6d/errbuf.h"
#include "srv6d/instance.h"
#include "srv6d/nhctx.h"
#include "srv6d/steer.h"

/* Disjoint regions of the lock file's offset space, one per resource kind. */
#define OFF_TABLES 0ull                 /* table numbers: < 2^32 */
#define OFF_MARKS  (1ull << 33)         /* mark_base >> 16 */
#define OFF_PREFS  (1ull << 34)         /* rule preferences */
#define OFF_CHAIN  (1ull << 35)         /* FNV-1a of the chain name */

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s) {
		h ^= (uint8_t)*s++;
		h *= 16777619u;
	}
	return h;
}

static int lock_range(int fd, unsigned long long start, unsigned long long len)
{
	struct flock fl = {
		.l_type = F_WRLCK,
		.l_whence = SEEK_SET,
		.l_start = (off_t)start,
		.l_len = (off_t)len,
	};

	if (fcntl(fd, F_OFD_SETLK, &fl) < 0)
		return errno == EAGAIN || errno == EACCES ? -EBUSY : -errno;
	return 0;
}

/* @buf: the lock file of the calling thread's network namespace.  0 or
 * -errno (its namespace cannot be named). */
static int lock_path(char *buf, size_t len)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st) < 0)
		return -errno;
	snprintf(buf, len, "%s/instances.%lu", SRV6_STEER_STATE_DIR, (unsigned long)st.st_ino);
	return 0;
}

int srv6_instance_lock(const struct srv6_instance *inst, char *err, size_t errlen)
{
	char path[256];
	int fd, r;

	r = lock_path(path, sizeof(path));
	if (r < 0) {
		srv6_seterr(err, errlen, "/proc/self/ns/net: %s", strerror(-r));
		return r;
	}
	(void)mkdir(SRV6_STEER_STATE_DIR, 0755);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		srv6_seterr(err, errlen, "%s: %s", path, strerror(errno));
		return r;
	}
	r = lock_range(fd, OFF_TABLES + inst->table_base + 1, SRV6_NHCTX_MAX);
	if (r == -EBUSY) {
		srv6_seterr(err, errlen, "another srv6d in this network namespace uses tables "
			    "overlapping %llu-%llu (table-base %u)",
			    (unsigned long long)inst->table_base + 1,
			    (unsigned long long)inst->table_base + SRV6_NHCTX_MAX, inst->table_base);
		goto out_close;
	}
	if (!r) {
		uint32_t f = srv6_nhctx_idx_field(inst->mark_base,
						  inst->mark_mask ? inst->mark_mask : SRV6_NHCTX_MARK_ALL);

		/* every mark base|index, by its high 16 bits */
		r = lock_range(fd, OFF_MARKS + (inst->mark_base >> 16),
			       ((inst->mark_base | f) >> 16) - (inst->mark_base >> 16) + 1);
		if (r == -EBUSY) {
			srv6_seterr(err, errlen, "another srv6d in this network namespace uses "
				    "mark-base 0x%08x", inst->mark_base);
			goto out_close;
		}
	}
	if (!r) {
		r = lock_range(fd, OFF_PREFS + inst->rule_pref, 2);
		if (r == -EBUSY) {
			srv6_seterr(err, errlen, "another srv6d in this network namespace uses "
				    "rule preference %u or %u (rule-pref %u)", inst->rule_pref,
				    inst->rule_pref + 1, inst->rule_pref);
			goto out_close;
		}
	}
	if (!r) {
		r = lock_range(fd, OFF_CHAIN + fnv1a(inst->chain), 1);
		if (r == -EBUSY) {
			srv6_seterr(err, errlen, "another srv6d in this network namespace uses "
				    "steer-chain %s", inst->chain);
			goto out_close;
		}
	}
	if (r < 0) {
		srv6_seterr(err, errlen, "%s: lock: %s", path, strerror(-r));
		goto out_close;
	}
	return fd;

out_close:
	close(fd);
	return r;
}

int srv6_instance_pref_held(uint32_t pref)
{
	struct flock fl = {
		.l_type = F_WRLCK,
		.l_whence = SEEK_SET,
		.l_start = (off_t)(OFF_PREFS + pref),
		.l_len = 1,
	};
	char path[256];
	int fd, r;

	r = lock_path(path, sizeof(path));
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)   /* no lock file: no srv6d ever locked anything here */
		return errno == ENOENT ? 0 : -errno;
	r = fcntl(fd, F_OFD_GETLK, &fl) < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	/* Byte @pref is locked by the instance of rule-pref @pref (its range
	 * starts there) or by that of @pref - 1 (it covers @pref - 1 and
	 * @pref, and excludes an instance of @pref). */
	return fl.l_type != F_UNLCK && fl.l_start == (off_t)(OFF_PREFS + pref);
}
