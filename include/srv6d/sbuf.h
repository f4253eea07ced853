/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sbuf.h - a string builder: snprintf semantics over several calls (the
 * conf printers, the ctl replies) or a growing heap string (steer's
 * ip6tables-restore input and tool output), and the JSON string encoder
 * the ctl replies and the stats dumps share.  Pure; any thread, no locks.
 */
#ifndef SRV6D_SBUF_H
#define SRV6D_SBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct srv6_sbuf {
	char *p;
	size_t len;    /* what has been (or, in a full fixed buffer, would have been) written */
	size_t cap;    /* bytes at p */
};

/* A fixed buffer of @size bytes at @buf. */
#define SRV6_SB_FIXED(buf, size) ((struct srv6_sbuf){ .p = (buf), .len = 0, .cap = (size) })

/**
 * srv6_sb_printf - append to a fixed buffer, snprintf-style: what does not
 * fit is counted in len but not written; p stays NUL terminated while cap > 0.
 */
void srv6_sb_printf(struct srv6_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * srv6_sb_grow_printf - append, growing p with realloc() (the caller frees
 * p; an empty {0} buffer is fine).  0, -EINVAL (format error) or -ENOMEM
 * (len and cap unchanged; the bytes past len may have been overwritten,
 * so p is NUL terminated at len only after a success).
 */
int srv6_sb_grow_printf(struct srv6_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** srv6_sb_done - a fixed buffer's length, or -ENOSPC when the output did not fit. */
int srv6_sb_done(const struct srv6_sbuf *b);

/**
 * srv6_json_str - @s as a JSON string (quotes included) into @out:
 * '"', '\\' and control bytes escaped; bytes >= 0x80 as \u00XX.
 */
void srv6_json_str(FILE *out, const char *s);

#endif
