// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_pqueue.c - the pure part of the verdict-policy queues: the one-line
 * packet summary (srv6_pq_summary) on IPv6 with and without an SRH (behind
 * a Hop-by-Hop header too), IPv4, and inputs too short to parse; and the
 * control thread's side of a queue whose thread does not answer: a release
 * returns within SRV6_PQ_RELEASE_WAIT_MS (-EINPROGRESS, requests add up)
 * instead of blocking the control loop; stats reset zeroes the counters and
 * keeps the nfq-derived ones relative to the reset; `queue show` copies the
 * records under the queue's lock and formats without it (a slow reader never
 * holds up the queue's thread), listing at most SRV6_PQ_SHOW_HELD of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <errno.h>
#include <time.h>
#include <cmocka.h>

#include "srv6d/pqueue.h"

/* IPv6 header: @nh, hop limit 64, 2001:db8:1::1 > @dst, payload @plen. */
static size_t ip6(uint8_t *b, uint8_t nh, const char *dst, uint16_t plen)
{
	memset(b, 0, 40);
	b[0] = 0x60;
	b[4] = (uint8_t)(plen >> 8);
	b[5] = (uint8_t)plen;
	b[6] = nh;
	b[7] = 64;
	inet_pton(AF_INET6, "2001:db8:1::1", b + 8);
	inet_pton(AF_INET6, dst, b + 24);
	return 40;
}

/* SRH (type 4) with @n segments, Segments Left @sl, next header UDP. */
static size_t srh(uint8_t *b, unsigned int n, uint8_t sl)
{
	memset(b, 0, 8 + 16 * n);
	b[0] = 17;
	b[1] = (uint8_t)(2 * n);
	b[2] = 4;
	b[3] = sl;
	b[4] = (uint8_t)(n - 1);
	return 8 + 16 * n;
}

static void test_summary_srh(void **state)
{
	uint8_t b[256];
	char s[SRV6_PQ_SUMMARY];
	size_t l = ip6(b, 43, "2001:db8:5::1", 40 + 8);

	l += srh(b + l, 2, 1);
	memset(b + l, 0, 8);
	l += 8;
	srv6_pq_summary(s, sizeof(s), AF_INET6, b, (uint32_t)l);
	assert_string_equal(s, "2001:db8:1::1 > 2001:db8:5::1 hlim 64 srh sl 1/2 nh udp len 88");
}

static void test_summary_hbh_srh(void **state)
{
	uint8_t b[256];
	char s[SRV6_PQ_SUMMARY];
	size_t l = ip6(b, 0, "2001:db8:5::2", 8 + 56);

	memset(b + l, 0, 8);
	b[l] = 43;            /* hop-by-hop, 8 bytes, then the SRH */
	l += 8;
	l += srh(b + l, 3, 0);
	srv6_pq_summary(s, sizeof(s), AF_INET6, b, (uint32_t)l);
	assert_string_equal(s, "2001:db8:1::1 > 2001:db8:5::2 hlim 64 srh sl 0/3 nh udp len 104");
}

static void test_summary_plain_v4_short(void **state)
{
	uint8_t b[64] = { 0 };
	char s[SRV6_PQ_SUMMARY];

	ip6(b, 58, "2001:db8:2::2", 0);
	srv6_pq_summary(s, sizeof(s), AF_INET6, b, 40);
	assert_string_equal(s, "2001:db8:1::1 > 2001:db8:2::2 hlim 64 nh icmp6 len 40");

	memset(b, 0, sizeof(b));
	b[0] = 0x45;
	b[8] = 63;
	b[9] = 17;
	inet_pton(AF_INET, "198.51.100.1", b + 12);
	inet_pton(AF_INET, "192.0.2.2", b + 16);
	srv6_pq_summary(s, sizeof(s), AF_INET, b, 28);
	assert_string_equal(s, "198.51.100.1 > 192.0.2.2 ttl 63 proto udp len 28");

	/* too short to be what it claims; an SRH cut short is not read */
	srv6_pq_summary(s, sizeof(s), AF_INET6, b, 39);
	assert_string_equal(s, "39 bytes, not IPv4/IPv6");
	ip6(b, 43, "2001:db8:5::1", 4);
	srv6_pq_summary(s, sizeof(s), AF_INET6, b, 44);
	assert_string_equal(s, "2001:db8:1::1 > 2001:db8:5::1 hlim 64 rh type 0 nh 0 len 44");
	/* a small buffer is cut, never overrun */
	srv6_pq_summary(s, 8, AF_INET6, b, 44);
	assert_string_equal(s, "2001:db");
}

/* @pq as srv6_pq_start() leaves it, @nheld packets held, but no thread:
 * a queue thread busy elsewhere (or stuck) as the control thread sees it. */
static void pq_fake(struct srv6_pq *pq, size_t nheld)
{
	pthread_condattr_t ca;

	memset(pq, 0, sizeof(*pq));
	pq->cfg.policy = SRV6_PQ_HOLD;
	pthread_mutex_init(&pq->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pq->cond, &ca);
	pthread_condattr_destroy(&ca);
	pq->held = calloc(nheld + 1, sizeof(*pq->held));
	assert_non_null(pq->held);
	for (size_t i = 0; i < nheld; i++)
		pq->held[i].id = (uint32_t)i + 1;
	pq->nheld = pq->cap = nheld;
	pq->running = true;
}

static void pq_unfake(struct srv6_pq *pq)
{
	pthread_cond_destroy(&pq->cond);
	pthread_mutex_destroy(&pq->lock);
	free(pq->held);
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000L + (t.tv_nsec - t0->tv_nsec) / 1000000L;
}

/* The queue's thread does not serve the request: the control thread gets
 * -EINPROGRESS after SRV6_PQ_RELEASE_WAIT_MS, not after seconds; the
 * request stays for the thread, a second one adds to it. */
static void test_release_bounded(void **state)
{
	struct srv6_pq pq;
	struct timespec t0;
	uint64_t pending = 0;
	long r, ms;

	(void)state;
	pq_fake(&pq, 3);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = srv6_pq_release(&pq, 2, &pending);
	ms = ms_since(&t0);
	assert_int_equal(r, -EINPROGRESS);
	/* the control loop is held for the bound, and the bound is short */
	assert_true(ms >= SRV6_PQ_RELEASE_WAIT_MS - 5);
	assert_true(ms < 1000);
	assert_int_equal(pending, 2);
	assert_int_equal(pq.rel_count, 2);
	r = srv6_pq_release(&pq, 5, &pending);
	assert_int_equal(r, -EINPROGRESS);
	assert_int_equal(pending, 3);           /* 7 asked, 3 held */
	assert_int_equal(pq.rel_count, 7);
	r = srv6_pq_release(&pq, UINT64_MAX, NULL);
	assert_int_equal(r, -EINPROGRESS);
	assert_true(pq.rel_count == UINT64_MAX);  /* saturates */
	assert_int_equal(pq.rel_seq - pq.rel_done, 3);
	pq_unfake(&pq);
	pq.running = false;
	assert_int_equal(srv6_pq_release(&pq, 1, NULL), -ESRCH);
}

/* stats reset: every counter 0, held packets stay; late/enobufs (the nfq's
 * totals minus a base) count from the reset on. */
static void test_reset(void **state)
{
	struct srv6_pq pq;
	struct srv6_pq_stats st;
	size_t nheld;

	(void)state;
	pq_fake(&pq, 2);
	pq.st = (struct srv6_pq_stats){ .packets = 9, .accepted = 4, .dropped = 1, .repeated = 1,
					.requeued = 1, .guarded = 1, .held = 2, .released = 1,
					.evicted = 1, .reconciled = 1, .late = 3,
					.kernel_dropped = 2, .enobufs = 5 };
	srv6_pq_reset(&pq);
	srv6_pq_stats_read(&pq, &st, &nheld);
	assert_int_equal(nheld, 2);
	assert_int_equal(st.packets + st.accepted + st.dropped + st.repeated + st.requeued +
			 st.guarded + st.held + st.released + st.evicted + st.reconciled +
			 st.late + st.kernel_dropped + st.enobufs, 0);
	assert_int_equal(pq.late_base, 3);
	assert_int_equal(pq.kdrop_base, 2);
	assert_int_equal(pq.enobufs_base, 5);
	pq.st.late = 1;                         /* nfq total 4 */
	srv6_pq_reset(&pq);
	assert_int_equal(pq.late_base, 4);
	pq_unfake(&pq);
}

/* A stream that records, on every write, whether the queue's lock is held
 * (by anyone: trylock fails), and keeps what was written. */
struct probe {
	struct srv6_pq *pq;
	unsigned int writes, locked;
	char *text;
	size_t len;
};

static ssize_t probe_write(void *c, const char *buf, size_t n)
{
	struct probe *p = c;

	p->writes++;
	if (pthread_mutex_trylock(&p->pq->lock) == 0)
		pthread_mutex_unlock(&p->pq->lock);
	else
		p->locked++;
	p->text = realloc(p->text, p->len + n + 1);
	assert_non_null(p->text);
	memcpy(p->text + p->len, buf, n);
	p->len += n;
	p->text[p->len] = '\0';
	return (ssize_t)n;
}

static void probe_show(struct probe *p, bool json)
{
	cookie_io_functions_t io = { .write = probe_write };
	FILE *o = fopencookie(p, "w", io);

	assert_non_null(o);
	setvbuf(o, NULL, _IONBF, 0);    /* every fprintf reaches probe_write at once */
	srv6_pq_show(p->pq, o, json, true, NULL);
	fclose(o);
}

static unsigned int count(const char *s, const char *what)
{
	unsigned int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/* queue show N of a queue holding 300 packets (and 16 recent records): no
 * byte is written while the queue's lock is held, and the held list shows
 * the SRV6_PQ_SHOW_HELD oldest and how many more, in text and in JSON. */
static void test_show_unlocked(void **state)
{
	struct srv6_pq pq;
	struct probe p = { .pq = &pq };

	(void)state;
	pq_fake(&pq, 300);
	for (unsigned int i = 0; i < SRV6_PQ_RECENT + 3; i++)
		pq.recent[pq.nrecent++ % SRV6_PQ_RECENT].id = 1000 + i;
	probe_show(&p, false);
	assert_true(p.writes > SRV6_PQ_SHOW_HELD);
	assert_int_equal(p.locked, 0);
	assert_int_equal(count(p.text, "    id "), SRV6_PQ_SHOW_HELD + SRV6_PQ_RECENT);
	assert_non_null(strstr(p.text, "    id 256 "));
	assert_null(strstr(p.text, "    id 257 "));
	assert_non_null(strstr(p.text, "    ... and 44 more\n"));
	assert_non_null(strstr(p.text, "  recent (oldest first):\n    id 1003 "));
	free(p.text);

	p = (struct probe){ .pq = &pq };
	probe_show(&p, true);
	assert_int_equal(p.locked, 0);
	assert_int_equal(count(p.text, "{\"id\":"), SRV6_PQ_SHOW_HELD + SRV6_PQ_RECENT);
	assert_non_null(strstr(p.text, "\"held_now\":300,"));
	assert_non_null(strstr(p.text, "],\"held_omitted\":44,\"recent\":[{\"id\":1003,"));
	free(p.text);
	pq_unfake(&pq);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_srh),
		cmocka_unit_test(test_summary_hbh_srh),
		cmocka_unit_test(test_summary_plain_v4_short),
		cmocka_unit_test(test_release_bounded),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_show_unlocked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
