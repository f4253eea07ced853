// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * egress.c - the `egress auto` probe.  See include/srv6d/egress.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv6d/egress.h"
#include "srv6d/errbuf.h"
#include "srv6d/steer.h"

#define PROBE_CHAIN "SRV6D-PROBE"
#define PROBE_WAIT_MS 1500
#define PROBE_DRAIN_BATCHES 64
#define PROBE_TAG_CONTROL 0x5201
#define PROBE_TAG_TEST    0x5202

/* IPv6 header + an SRH with two segments; nothing behind it. */
#define PROBE_LEN (40 + 8 + 2 * 16)

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void probe_addr(struct in6_addr *a, unsigned int last)
{
	inet_pton(AF_INET6, SRV6_PROBE_PREFIX "1", a);
	a->s6_addr[15] = (uint8_t)last;
}

/* The packet: src ::99, DA ::1, SRH SL 1, LE 1, list [::2, ::1], tag. */
static void probe_build(uint8_t *p, uint16_t tag)
{
	struct in6_addr a;

	memset(p, 0, PROBE_LEN);
	p[0] = 0x60;
	p[5] = PROBE_LEN - 40;          /* payload length */
	p[6] = 43;                      /* routing header */
	p[7] = 64;
	probe_addr(&a, 0x99);
	memcpy(p + 8, &a, 16);
	probe_addr(&a, 1);
	memcpy(p + 24, &a, 16);
	p[40] = 59;                     /* no next header */
	p[41] = 4;                      /* (8 + 32) / 8 - 1 */
	p[42] = 4;                      /* SRH */
	p[43] = 1;                      /* segments left */
	p[44] = 1;                      /* last entry */
	p[46] = (uint8_t)(tag >> 8);
	p[47] = (uint8_t)tag;
	probe_addr(&a, 2);
	memcpy(p + 48, &a, 16);         /* segment list[0]: last segment */
	probe_addr(&a, 1);
	memcpy(p + 64, &a, 16);         /* segment list[1]: first */
}

static int rules_add(const char *dev, unsigned int queue, char *err, size_t errlen)
{
	char txt[1024];
	char probe_da[INET6_ADDRSTRLEN];
	struct in6_addr a;

	probe_addr(&a, 1);
	inet_ntop(AF_INET6, &a, probe_da, sizeof(probe_da));
	snprintf(txt, sizeof(txt),
		 "*raw\n:" PROBE_CHAIN " - [0:0]\n"
		 "-I PREROUTING 1 -i %s -j " PROBE_CHAIN "\n"
		 "-A " PROBE_CHAIN " -d %s/128 -m mark ! --mark 0x%x -j NFQUEUE --queue-num %u\n"
		 "COMMIT\n"
		 "*mangle\n:" PROBE_CHAIN " - [0:0]\n"
		 "-I PREROUTING 1 -i %s -j " PROBE_CHAIN "\n"
		 "-A " PROBE_CHAIN " -m mark --mark 0x%x -j NFQUEUE --queue-num %u\n"
		 "COMMIT\n",
		 dev, probe_da, SRV6_PROBE_MARK, queue, dev, SRV6_PROBE_MARK, queue);
	return srv6_steer_restore(AF_INET6, txt, err, errlen);
}

static int rules_remove(const char *table, const char *dev, char *err, size_t errlen)
{
	char txt[512];

	snprintf(txt, sizeof(txt), "*%s\n-D PREROUTING -i %s -j " PROBE_CHAIN "\n-F " PROBE_CHAIN
		 "\n-X " PROBE_CHAIN "\nCOMMIT\n", table, dev);
	return srv6_steer_restore(AF_INET6, txt, err, errlen);
}

struct probe_state {
	bool control_back, test_back, test_rewritten;
	unsigned int stray;
};

/* Walk what one receive returned; one verdict per packet. */
static void probe_handle(struct srv6_nfq *q, struct probe_state *st, uint32_t stray_verdict)
{
	struct srv6_nfq_packet p;
	struct in6_addr da1, da2;

	probe_addr(&da1, 1);
	probe_addr(&da2, 2);
	while (srv6_nfq_next(q, &p)) {
		uint16_t tag;

		if (p.hw_proto != ETH_P_IPV6 || p.len != PROBE_LEN || p.truncated ||
		    p.data[6] != 43 || p.data[42] != 4) {
			st->stray++;
			(void)srv6_nfq_verdict(q, p.id, stray_verdict, false, 0, NULL, 0);
			continue;
		}
		tag = (uint16_t)(p.data[46] << 8 | p.data[47]);
		if (p.mark == SRV6_PROBE_MARK) {
			/* back at mangle PREROUTING */
			if (tag == PROBE_TAG_CONTROL) {
				st->control_back = true;
			} else if (tag == PROBE_TAG_TEST) {
				st->test_back = true;
				st->test_rewritten = !memcmp(p.data + 24, &da2, 16) && p.data[43] == 0;
			}
			(void)srv6_nfq_verdict(q, p.id, NF_DROP, false, 0, NULL, 0);
		} else if (!memcmp(p.data + 24, &da1, 16) && tag == PROBE_TAG_CONTROL) {
			(void)srv6_nfq_verdict(q, p.id, NF_ACCEPT, true, SRV6_PROBE_MARK, NULL, 0);
		} else if (!memcmp(p.data + 24, &da1, 16) && tag == PROBE_TAG_TEST) {
			/* End: Segments Left 1 -> 0, DA = Segment List[0] */
			p.data[43] = 0;
			memcpy(p.data + 24, p.data + 48, 16);
			(void)srv6_nfq_verdict(q, p.id, NF_ACCEPT, true, SRV6_PROBE_MARK, p.data,
					       p.len);
		} else {
			st->stray++;
			(void)srv6_nfq_verdict(q, p.id, stray_verdict, false, 0, NULL, 0);
		}
	}
	(void)srv6_nfq_flush(q);
}

/* Inject the packet tagged @tag and wait until @done or the deadline. */
static int probe_one(struct srv6_nfq *q, struct srv6_inj *j, struct probe_state *st,
		     uint16_t tag, bool *done, uint32_t stray_verdict)
{
	uint8_t pkt[PROBE_LEN];
	int64_t deadline = now_ms() + PROBE_WAIT_MS;

	probe_build(pkt, tag);
	if (srv6_inj_add(j, AF_INET6, 0, pkt, sizeof(pkt)) < 0 || srv6_inj_flush(j) != 0)
		return -EIO;
	while (!*done && now_ms() < deadline) {
		int n = srv6_nfq_recv(q, true);

		if (n < 0)
			return n;
		if (n > 0)
			probe_handle(q, st, stray_verdict);
	}
	return 0;
}

void srv6_egress_probe_cleanup(const struct srv6_injdev *d)
{
	char err[256];

	/* One transaction per table: a missing chain fails only its own. */
	(void)rules_remove("raw", d->name, err, sizeof(err));
	(void)rules_remove("mangle", d->name, err, sizeof(err));
}

int srv6_egress_probe(struct srv6_nfq *q, const struct srv6_injdev *d, struct srv6_inj *j,
		      uint32_t stray_verdict, char *why, size_t whylen)
{
	const char *hook = getenv("SRV6D_TEST_PROBE");
	struct probe_state st = { 0 };
	char err[256];
	int r;

	if (hook && !strcmp(hook, "fail")) {
		srv6_seterr(why, whylen, "probe forced to fail (SRV6D_TEST_PROBE=fail)");
		return 0;
	}
	srv6_egress_probe_cleanup(d);   /* a crashed run's */
	r = rules_add(d->name, srv6_nfq_queue(q), err, sizeof(err));
	if (r < 0) {
		srv6_egress_probe_cleanup(d);   /* half of it may be in */
		srv6_seterr(why, whylen, "probe rules: %s", err);
		return r;
	}
	r = probe_one(q, j, &st, PROBE_TAG_CONTROL, &st.control_back, stray_verdict);
	if (r == 0 && st.control_back)
		r = probe_one(q, j, &st, PROBE_TAG_TEST, &st.test_back, stray_verdict);
	srv6_egress_probe_cleanup(d);
	/* Late answers (none expected) get their verdicts now; steady traffic
	 * from operator rules must not hold the start-up: bounded. */
	for (int i = 0; i < PROBE_DRAIN_BATCHES && srv6_nfq_recv(q, false) > 0; i++)
		probe_handle(q, &st, stray_verdict);

	if (r < 0) {
		srv6_seterr(why, whylen, "probe failed: %s", strerror(-r));
		return r;
	}
	if (!st.control_back) {
		srv6_seterr(why, whylen, "probe inconclusive: the unchanged control packet "
			    "did not come back through queue %u", srv6_nfq_queue(q));
		return -ETIMEDOUT;
	}
	if (st.test_back && st.test_rewritten) {
		srv6_seterr(why, whylen, "probe: this kernel accepts SRH rewrites in verdicts");
		return 1;
	}
	srv6_seterr(why, whylen, "probe: this kernel dropped a verdict that rewrote the SRH "
		    "(restricted verdicts, or a user-namespace-owned netns)");
	return 0;
}
