/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * errbuf.h - the one-line error text daemon modules hand back to their caller
 * (the edge that prints it).  Any thread.
 */
#ifndef SRV6D_ERRBUF_H
#define SRV6D_ERRBUF_H

#include <stddef.h>

/**
 * srv6_seterr - format one line into @err (@errlen bytes, always
 * NUL-terminated, truncated if needed).  Does nothing when @err is NULL or
 * @errlen is 0, so callers may pass an optional buffer straight through.
 */
void srv6_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * srv6_escape_into - @in for a message into @out (@outlen bytes, NUL
 * terminated): control bytes, '"' and '\\' as \xNN, cut after @max bytes
 * with "...".  Any thread.
 */
void srv6_escape_into(char *out, size_t outlen, const char *in, size_t max);

#endif
