// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * statsfile.c - atomic, symlink-safe file replacement (mkstemp in the target
 * directory + rename).  See include/srv6d/statsfile.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "srv6d/errbuf.h"
#include "srv6d/statsfile.h"

int srv6_file_replace(const char *path, int (*fill)(FILE *f, void *arg), void *arg,
		      char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *tmp;
	FILE *f;
	int fd, r;

	if (!*base) {
		srv6_seterr(err, errlen, "%s: not a file name", path);
		return -EINVAL;
	}
	/* "DIR/.BASE.XXXXXX": same directory (rename stays atomic), hidden. */
	if (asprintf(&tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     base) < 0) {
		srv6_seterr(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		srv6_seterr(err, errlen, "%s: cannot create a temporary file: %s", tmp,
			    strerror(errno));
		goto out_free;
	}
	/* mkstemp gives 0600; the counters are for monitoring tools too. */
	if (fchmod(fd, 0644) < 0) {
		r = -errno;
		srv6_seterr(err, errlen, "%s: chmod: %s", tmp, strerror(errno));
		close(fd);
		goto out_unlink;
	}
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		srv6_seterr(err, errlen, "%s: %s", tmp, strerror(errno));
		close(fd);
		goto out_unlink;
	}
	r = fill(f, arg);
	if (fflush(f) != 0 && !r)
		r = -errno;
	if (ferror(f) && !r)
		r = -EIO;
	if (fclose(f) != 0 && !r)
		r = -errno;
	if (r < 0) {
		srv6_seterr(err, errlen, "%s: write: %s", tmp, strerror(-r));
		goto out_unlink;
	}
	if (rename(tmp, path) < 0) {
		r = -errno;
		srv6_seterr(err, errlen, "%s: rename: %s", path, strerror(errno));
		goto out_unlink;
	}
	free(tmp);
	return 0;

out_unlink:
	unlink(tmp);
out_free:
	free(tmp);
	return r;
}
