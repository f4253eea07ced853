// SPDX-License-Identifier: GPL-2.0-or-later
/* sbuf.c - the string builder of include/srv6d/sbuf.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "srv6d/sbuf.h"

void srv6_sb_printf(struct srv6_sbuf *b, const char *fmt, ...)
{
	size_t room = b->len < b->cap ? b->cap - b->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? b->p + b->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n;
}

int srv6_sb_grow_printf(struct srv6_sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = b->cap - b->len, cap;
		char *p;

		va_start(ap, fmt);
		n = vsnprintf(room ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return -EINVAL;
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return 0;
		}
		cap = (b->cap + (size_t)n + 1) * 2;
		p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
}

int srv6_sb_done(const struct srv6_sbuf *b)
{
	if (b->len >= b->cap)
		return -ENOSPC;
	return (int)b->len;
}

void srv6_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}
