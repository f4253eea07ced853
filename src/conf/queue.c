// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pqueue.c - "queue N policy POLICY" lines: verdict-policy queues
 * (include/srv6d/conf.h, docs/REINJECTION.md).  Pure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_int.h"

static const char *const pq_names[] = {
	[SRV6_PQ_ACCEPT] = "accept",
	[SRV6_PQ_DROP] = "drop",
	[SRV6_PQ_REPEAT] = "repeat",
	[SRV6_PQ_REQUEUE] = "requeue",
	[SRV6_PQ_HOLD] = "hold",
	[SRV6_PQ_DELAY] = "delay",
};
_Static_assert(ARRAY_SIZE(pq_names) == SRV6_PQ_DELAY + 1, "one name per policy");

/* M: 0x hex or decimal, 1..0xffffffff. */
static int pq_mark(const char *s, uint32_t *out, struct errbuf *e)
{
	struct qtok qb;
	uint64_t v;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!s[2] || strspn(s + 2, "0123456789abcdefABCDEF") != strlen(s + 2) ||
		    strlen(s + 2) > 8)
			goto bad;
		v = strtoull(s + 2, &end, 16);
	} else if (conf_parse_u64(s, &v) < 0 || v > 0xffffffffull) {
		goto bad;
	}
	if (v == 0) {
		conf_seterr(e, "mark %s: 0 is no mark", conf_q(&qb, s));
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
bad:
	conf_seterr(e, "bad mark %s (0x hex or decimal, 32 bits)", conf_q(&qb, s));
	return -EINVAL;
}

/* DURATION: N ms or N s, 1 ms .. 3600 s. */
static int pq_duration(const char *s, uint32_t *ms, struct errbuf *e)
{
	size_t digits = strspn(s, "0123456789");
	uint64_t v, mult;
	struct qtok qb;
	char num[24];

	if (digits == 0 || digits >= sizeof(num))
		goto bad;
	if (!strcmp(s + digits, "ms"))
		mult = 1;
	else if (!strcmp(s + digits, "s"))
		mult = 1000;
	else
		goto bad;
	memcpy(num, s, digits);
	num[digits] = '\0';
	if (conf_parse_u64(num, &v) < 0 || v == 0 || v > SRV6_CONF_PQ_DELAY_MAX_MS / mult) {
		conf_seterr(e, "delay %s out of range (1ms..3600s)", conf_q(&qb, s));
		return -EINVAL;
	}
	*ms = (uint32_t)(v * mult);
	return 0;
bad:
	conf_seterr(e, "bad duration %s (N ms or N s, e.g. 50ms)", conf_q(&qb, s));
	return -EINVAL;
}

int srv6_pqueue_parse_words(unsigned int queue, int argc, char **argv,
			    struct srv6_conf_pqueue *pq, char *err, size_t errlen)
{
	struct errbuf eb = { err, errlen };
	struct errbuf *e = &eb;
	struct qtok qb;
	uint64_t v;
	int need = 2;   /* "policy" NAME */
	size_t i;

	memset(pq, 0, sizeof(*pq));
	if (err && errlen)
		err[0] = '\0';
	pq->queue = (uint16_t)queue;
	if (argc < 1 || strcmp(argv[0], "policy")) {
		conf_seterr(e, "queue %u: expected \"policy\", got %s", queue,
			    conf_q(&qb, argc ? argv[0] : ""));
		return -EINVAL;
	}
	if (argc < 2) {
		conf_seterr(e, "missing value after \"policy\"");
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(pq_names); i++)
		if (!strcmp(argv[1], pq_names[i]))
			break;
	if (i == ARRAY_SIZE(pq_names)) {
		conf_seterr(e, "unknown policy %s (accept drop repeat requeue hold delay)",
			    conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	pq->policy = (enum srv6_pq_policy)i;
	switch (pq->policy) {
	case SRV6_PQ_ACCEPT:
	case SRV6_PQ_REPEAT:
		if (argc == 2)
			break;   /* repeat without a mark loops until the rule stops matching */
		need = 4;
		if (argc < 4 || strcmp(argv[2], "mark")) {
			conf_seterr(e, "policy %s takes \"mark M\" or nothing", argv[1]);
			return -EINVAL;
		}
		if (pq_mark(argv[3], &pq->mark, e))
			return -EINVAL;
		pq->has_mark = true;
		break;
	case SRV6_PQ_REQUEUE:
		need = 3;
		if (argc < 3) {
			conf_seterr(e, "missing queue after \"requeue\"");
			return -EINVAL;
		}
		if (conf_parse_num("requeue", argv[2], 0, 65535, &v, e))
			return -EINVAL;
		if (v == queue) {
			conf_seterr(e, "queue %u requeues to itself", queue);
			return -EINVAL;
		}
		pq->requeue = (uint16_t)v;
		break;
	case SRV6_PQ_DELAY:
		need = 3;
		if (argc < 3) {
			conf_seterr(e, "missing duration after \"delay\"");
			return -EINVAL;
		}
		if (pq_duration(argv[2], &pq->delay_ms, e))
			return -EINVAL;
		break;
	case SRV6_PQ_DROP:
	case SRV6_PQ_HOLD:
		break;
	}
	if (argc > need) {
		conf_seterr(e, "unexpected %s after policy %s", conf_q(&qb, argv[need]), argv[1]);
		return -EINVAL;
	}
	return 0;
}

int srv6_pqueue_format(char *buf, size_t len, const struct srv6_conf_pqueue *pq)
{
	const char *name = (unsigned int)pq->policy < ARRAY_SIZE(pq_names) ?
			   pq_names[pq->policy] : "?";

	switch (pq->policy) {
	case SRV6_PQ_ACCEPT:
	case SRV6_PQ_REPEAT:
		if (pq->has_mark)
			return snprintf(buf, len, "%s mark 0x%x", name, pq->mark);
		return snprintf(buf, len, "%s", name);
	case SRV6_PQ_REQUEUE:
		return snprintf(buf, len, "%s %u", name, pq->requeue);
	case SRV6_PQ_DELAY:
		if (pq->delay_ms % 1000 == 0)
			return snprintf(buf, len, "%s %us", name, pq->delay_ms / 1000);
		return snprintf(buf, len, "%s %ums", name, pq->delay_ms);
	default:
		return snprintf(buf, len, "%s", name);
	}
}

/* The index in @c's policy queues of queue @q, or -1. */
static int pq_index(const struct srv6_conf *c, unsigned int q)
{
	for (unsigned int i = 0; i < c->npqueues; i++)
		if (c->pqueues[i].queue == q)
			return (int)i;
	return -1;
}

/* The policy queue @i requeues to, or -1 (not requeue, or to a queue
 * that is not one of @c's policy queues: the chain ends there). */
static int pq_next(const struct srv6_conf *c, int i)
{
	const struct srv6_conf_pqueue *pq = &c->pqueues[i];

	return pq->policy == SRV6_PQ_REQUEUE ? pq_index(c, pq->requeue) : -1;
}

int conf_pqueue_cycles(const struct srv6_conf *c, unsigned int *line, struct errbuf *e)
{
	/* Each queue requeues to at most one: a cycle is a walk of at most
	 * npqueues steps back to its start.  The line reported is the one
	 * that closes the cycle as the file is read (its last member), and
	 * the first such line in the file wins. */
	for (unsigned int i = 0; i < c->npqueues; i++) {
		char path[96];
		size_t n = 0;
		int k = pq_next(c, (int)i);
		unsigned int steps = 0;
		bool last = true;

		while (k >= 0 && k != (int)i && steps++ < c->npqueues) {
			if ((unsigned int)k > i)
				last = false;   /* closed by a later line */
			k = pq_next(c, k);
		}
		if (k != (int)i || !last)
			continue;
		/* "2 -> 3 -> 1": the queues the packet visits back to @i */
		k = (int)i;
		do {
			k = pq_next(c, k);
			if (n + 16 >= sizeof(path)) {
				snprintf(path + n, sizeof(path) - n, " -> ...");
				break;
			}
			n += (size_t)snprintf(path + n, sizeof(path) - n, "%s%u", n ? " -> " : "",
					      c->pqueues[k].queue);
		} while (k != (int)i);
		*line = c->pqueues[i].line;
		conf_seterr(e, "queue %u requeue %s makes a cycle (every packet would loop forever)",
			    c->pqueues[i].queue, path);
		return -ELOOP;
	}
	return 0;
}
