// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "srv6d/errbuf.h"

void srv6_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void srv6_escape_into(char *out, size_t outlen, const char *in, size_t max)
{
	size_t o = 0, i;

	for (i = 0; in[i] && o + 5 < outlen; i++) {
		unsigned char ch = (unsigned char)in[i];

		if (i == max) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
			o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", ch);
		else
			out[o++] = (char)ch;
	}
	out[o] = '\0';
}
