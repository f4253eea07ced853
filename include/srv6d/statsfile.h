/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * statsfile.h - replace a file atomically and safely, as root, in a directory
 * others may write to (the counters file of `srv6d -s FILE`).
 *
 * The new contents go to a fresh file created with mkstemp() in FILE's own
 * directory (O_CREAT|O_EXCL: a symlink or file planted under any name is
 * never opened, so nothing outside is truncated or written), mode 0644, then
 * rename()d over FILE: readers see the old or the new file, never half of
 * one, and a symlink at FILE is replaced, not followed.  On any failure the
 * temporary file is removed and FILE is left as it was.
 */
#ifndef SRV6D_STATSFILE_H
#define SRV6D_STATSFILE_H

#include <stddef.h>
#include <stdio.h>

/**
 * srv6_file_replace - write FILE @path through @fill(@f, @arg) as described
 * above.  @fill returns 0 or -errno (an error aborts the replace).  Returns 0
 * or -errno with one line naming the file and the failed step in @err.
 * Any thread; blocking (file I/O), so never on the packet path.
 */
int srv6_file_replace(const char *path, int (*fill)(FILE *f, void *arg), void *arg,
		      char *err, size_t errlen);

#endif
