// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_fpm.c - libFuzzer target for zebra's FPM stream into the store
 * (src/control/fpm.c srv6_fpm_feed(), then the decoder and the grammar):
 * what a TCP peer sends.  The input is the byte stream; its first byte
 * picks the read size (1..256 bytes per read), so frames arrive cut at
 * every place, as session_read() hands them over (the unconsumed tail
 * moved to the front of an aligned buffer); an input of odd length makes
 * the store the kernel mirror's (origin kernel, policies one metric below the
 * kernel route's).  At the end the session is lost and the grace time runs
 * out: the store must empty.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/conf/sbuf.c"
#include "../../src/conf/util.c"
#include "../../src/conf/sid.c"
#include "../../src/conf/route.c"
#include "../../src/conf/file.c"
#include "../../src/conf/rttables.c"
#include "../../src/conf/queue.c"
#include "../../src/conf/hmac_conf.c"
#include "../../src/conf/errbuf.c"
#include "../../src/conf/import.c"
#include "../../src/conf/rtmsg.c"
#include "../../src/base/log.c"
#include "../../src/control/fpm.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t rx[(SRV6_FPM_FRAME_MAX + 1) * 2 / 4];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	enum srv6_origin origin;
	struct srv6_fpm *f;
	size_t step, off = 1, have = 0;

	if (!quiet++)
		srv6_log_set_level(LOG_EMERG);    /* the refusals' log lines */
	if (!size || !(f = srv6_fpm_new(5)))
		return 0;
	step = (size_t)data[0] + 1;
	origin = size & 1 ? SRV6_ORIGIN_KERNEL : SRV6_ORIGIN_FPM;
	if (origin == SRV6_ORIGIN_KERNEL)
		srv6_fpm_configure(f, origin, RT_TABLE_MAIN, SRV6_FPM_TAKE_SIDS | SRV6_FPM_TAKE_ROUTES);
	while (off < size) {
		size_t n = size - off < step ? size - off : step, used = 0;
		int r;

		if (n > sizeof(rx) - have)
			n = sizeof(rx) - have;
		memcpy((uint8_t *)rx + have, data + off, n);
		off += n;
		have += n;
		r = srv6_fpm_feed(f, rx, have, &used);
		if (used > have)
			abort();
		if (r < 0)
			break;
		memmove(rx, (uint8_t *)rx + used, have - used);
		have -= used;
	}
	for (size_t i = 0; i < srv6_fpm_count(f); i++) {
		const struct srv6_fpm_entry *e = srv6_fpm_entry(f, i);

		if (e->is_sid ? e->sid.origin != origin : e->route.origin != origin)
			abort();
		/* a mirrored policy always carries its metric (the kernel's - 1) */
		if (origin == SRV6_ORIGIN_KERNEL && !e->is_sid && !e->route.has_metric)
			abort();
	}
	srv6_fpm_session_lost(f, 1000);
	(void)srv6_fpm_tick(f, 1005);
	if (srv6_fpm_count(f))
		abort();
	srv6_fpm_free(f);
	return 0;
}
