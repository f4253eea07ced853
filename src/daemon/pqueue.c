// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pqueue.c - verdict-policy queues (include/srv6d/pqueue.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "srv6d/ctl.h"
#include "srv6d/log.h"
#include "srv6d/pqueue.h"

#define DRAIN_MAX_BATCHES 64

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static const char *l4_name(uint8_t p, char *buf, size_t len)
{
	switch (p) {
	case IPPROTO_TCP: return "tcp";
	case IPPROTO_UDP: return "udp";
	case IPPROTO_ICMP: return "icmp";
	case IPPROTO_ICMPV6: return "icmp6";
	case IPPROTO_IPV6: return "ipv6";
	case IPPROTO_IPIP: return "ipv4";
	case 143: return "ethernet";
	case IPPROTO_NONE: return "none";
	default:
		snprintf(buf, len, "%u", p);
		return buf;
	}
}

void srv6_pq_summary(char *buf, size_t len, int family, const uint8_t *d, uint32_t dlen)
{
	char s[INET6_ADDRSTRLEN], t[INET6_ADDRSTRLEN], nb[8];

	if (family == AF_INET6 && dlen >= 40) {
		uint8_t nh = d[6];
		uint32_t off = 40;
		int n;

		inet_ntop(AF_INET6, d + 8, s, sizeof(s));
		inet_ntop(AF_INET6, d + 24, t, sizeof(t));
		n = snprintf(buf, len, "%s > %s hlim %u", s, t, d[7]);
		/* Hop-by-hop and destination options may precede the SRH. */
		while ((nh == 0 || nh == 60) && off + 8 <= dlen) {
			nh = d[off];
			off += 8u * (d[off + 1] + 1u);
		}
		if (nh == 43 && off + 8 <= dlen && d[off + 2] == 4) {
			unsigned int segs = d[off + 4] + 1u;   /* last entry + 1 */

			if (n > 0 && (size_t)n < len)
				n += snprintf(buf + n, len - (size_t)n, " srh sl %u/%u", d[off + 3], segs);
			nh = d[off];
		} else if (nh == 43 && off + 4 <= dlen) {
			if (n > 0 && (size_t)n < len)
				n += snprintf(buf + n, len - (size_t)n, " rh type %u", d[off + 2]);
			nh = d[off];
		}
		if (n > 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, " nh %s len %u", l4_name(nh, nb, sizeof(nb)), dlen);
	} else if (family == AF_INET && dlen >= 20) {
		inet_ntop(AF_INET, d + 12, s, sizeof(s));
		inet_ntop(AF_INET, d + 16, t, sizeof(t));
		snprintf(buf, len, "%s > %s ttl %u proto %s len %u", s, t, d[8],
			 l4_name(d[9], nb, sizeof(nb)), dlen);
	} else {
		snprintf(buf, len, "%u bytes, not IPv4/IPv6", dlen);
	}
}

static void rec_fill(struct srv6_pq_rec *r, const struct srv6_nfq_packet *p)
{
	int family = p->hw_proto == 0x86dd ? AF_INET6 : p->hw_proto == 0x0800 ? AF_INET : 0;

	/* hw_protocol may be 0 (LOCAL_OUT): the version nibble decides */
	if (!family && p->len)
		family = (p->data[0] >> 4) == 6 ? AF_INET6 : (p->data[0] >> 4) == 4 ? AF_INET : 0;
	r->id = p->id;
	r->hook = p->hook;
	r->family = (uint8_t)family;
	r->indev = p->indev;
	r->outdev = p->outdev;
	r->mark = p->mark;
	r->priority = p->priority;
	r->len = p->orig_len;
	r->t_ms = mono_ms();
	srv6_pq_summary(r->summary, sizeof(r->summary), family, p->data, p->len);
}

/* Add @r to the held list (under the lock).  0 or -ENOMEM. */
static int held_push(struct srv6_pq *pq, const struct srv6_pq_rec *r)
{
	if (pq->nheld == pq->cap) {
		size_t cap = pq->cap ? pq->cap * 2 : 64;
		struct srv6_pq_rec *n = realloc(pq->held, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		pq->held = n;
		pq->cap = cap;
	}
	pq->held[pq->nheld++] = *r;
	return 0;
}

/* Take the ids of the (at most @max) oldest held packets out of the list,
 * counted as released (under the lock).  Returns how many. */
static size_t held_take(struct srv6_pq *pq, uint32_t *ids, size_t max)
{
	size_t n = pq->nheld < max ? pq->nheld : max;

	if (!n)
		return 0;       /* pq->held may be NULL: no memmove from it */
	for (size_t i = 0; i < n; i++)
		ids[i] = pq->held[i].id;
	memmove(pq->held, pq->held + n, (pq->nheld - n) * sizeof(*pq->held));
	pq->nheld -= n;
	pq->st.released += n;
	pq->st.accepted += n;
	return n;
}

/* NF_ACCEPT for the @n oldest held packets (at most: UINT64_MAX all),
 * SRV6_PQ_RELEASE_CHUNK at a time: the verdicts are sent without the lock
 * (entered and left with it held).  Queue thread only (the only one that
 * adds to the list).  Returns how many. */
static uint64_t held_release(struct srv6_pq *pq, uint64_t n)
{
	uint32_t ids[SRV6_PQ_RELEASE_CHUNK];
	uint64_t done = 0;
	size_t k;

	while (done < n) {
		uint64_t left = n - done;

		k = held_take(pq, ids, left < SRV6_PQ_RELEASE_CHUNK ? (size_t)left : SRV6_PQ_RELEASE_CHUNK);
		if (!k)
			break;
		pthread_mutex_unlock(&pq->lock);
		for (size_t i = 0; i < k; i++)
			(void)srv6_nfq_verdict(pq->nfq, ids[i], NF_ACCEPT, false, 0, NULL, 0);
		pthread_mutex_lock(&pq->lock);
		done += k;
	}
	return done;
}

/* One packet: its record, then its verdict (or the held list). */
static void pq_handle(struct srv6_pq *pq, const struct srv6_nfq_packet *p, bool stopping)
{
	const struct srv6_conf_pqueue *c = &pq->cfg;
	struct srv6_pq_rec r;
	uint32_t v = NF_ACCEPT, mark = 0;
	bool set_mark = false;

	rec_fill(&r, p);
	pthread_mutex_lock(&pq->lock);
	pq->recent[pq->nrecent++ % SRV6_PQ_RECENT] = r;
	pq->st.packets++;
	switch (c->policy) {
	case SRV6_PQ_ACCEPT:
		set_mark = c->has_mark;
		mark = c->mark;
		pq->st.accepted++;
		break;
	case SRV6_PQ_DROP:
		v = NF_DROP;
		pq->st.dropped++;
		break;
	case SRV6_PQ_REPEAT:
		if (c->has_mark && (p->mark & c->mark) == c->mark) {
			pq->st.guarded++;
			pq->st.accepted++;
			break;
		}
		v = NF_REPEAT;
		set_mark = c->has_mark;
		mark = p->mark | c->mark;
		pq->st.repeated++;
		break;
	case SRV6_PQ_REQUEUE:
		v = NF_QUEUE | ((uint32_t)c->requeue << 16);
		pq->st.requeued++;
		break;
	case SRV6_PQ_HOLD:
	case SRV6_PQ_DELAY:
		if (stopping || held_push(pq, &r) < 0) {
			pq->st.accepted++;    /* at once: stopping, or no room to remember it */
			break;
		}
		pq->st.held++;
		pthread_mutex_unlock(&pq->lock);
		return;
	}
	pthread_mutex_unlock(&pq->lock);
	(void)srv6_nfq_verdict(pq->nfq, p->id, v, set_mark, mark, NULL, 0);
}

/* After each receive: release requests, expired delays (under the lock). */
static void pq_tick(struct srv6_pq *pq)
{
	pthread_mutex_lock(&pq->lock);
	if (pq->rel_done != pq->rel_seq) {
		/* requests made while the verdicts go out wait for the next tick */
		uint64_t seq = pq->rel_seq, want = pq->rel_count;

		pq->rel_count = 0;
		pq->rel_last = held_release(pq, want);
		pq->rel_done = seq;
		pthread_cond_broadcast(&pq->cond);
	}
	if (pq->cfg.policy == SRV6_PQ_DELAY && pq->nheld) {
		uint64_t now = mono_ms();
		size_t n = 0;

		while (n < pq->nheld && pq->held[n].t_ms + pq->cfg.delay_ms <= now)
			n++;
		(void)held_release(pq, n);
	}
	pthread_mutex_unlock(&pq->lock);
}

static void pq_batch(struct srv6_pq *pq, bool stopping)
{
	struct srv6_nfq_packet p;
	struct srv6_nfq_stats ns;

	while (srv6_nfq_next(pq->nfq, &p) == 1)
		pq_handle(pq, &p, stopping);
	srv6_nfq_stats_read(pq->nfq, &ns);
	pthread_mutex_lock(&pq->lock);
	pq->st.late = ns.verdict_errors - pq->late_base;
	pq->st.enobufs = ns.enobufs - pq->enobufs_base;
	pthread_mutex_unlock(&pq->lock);
}

static void *pq_main(void *arg)
{
	struct srv6_pq *pq = arg;
	uint16_t qn = srv6_nfq_queue(pq->nfq);

	while (!__atomic_load_n(&pq->stop, __ATOMIC_ACQUIRE)) {
		int n = srv6_nfq_recv(pq->nfq, true);

		if (n < 0) {
			if (n == -EBADF || n == -ENOTSOCK) {
				srv6_log(LOG_ERR, "policy queue %u: receive: %s", qn, strerror(-n));
				__atomic_store_n(&pq->failed, n, __ATOMIC_RELEASE);
				break;
			}
			usleep(1000);
			continue;
		}
		if (n > 0)
			pq_batch(pq, false);
		pq_tick(pq);
		(void)srv6_nfq_flush(pq->nfq);
	}
	/* Stop: what is readable gets its verdict (hold/delay: NF_ACCEPT),
	 * then everything held is accepted, then the caller unbinds. */
	for (int i = 0; i < DRAIN_MAX_BATCHES; i++) {
		if (srv6_nfq_recv(pq->nfq, false) <= 0)
			break;
		pq_batch(pq, true);
	}
	pthread_mutex_lock(&pq->lock);
	(void)held_release(pq, UINT64_MAX);
	pq->rel_done = pq->rel_seq;     /* nobody waits on a stopped queue */
	pthread_cond_broadcast(&pq->cond);
	pthread_mutex_unlock(&pq->lock);
	(void)srv6_nfq_flush(pq->nfq);
	return NULL;
}

int srv6_pq_start(struct srv6_pq *pq)
{
	pthread_condattr_t ca;
	int r;

	pq->stop = 0;
	pq->failed = 0;
	pq->held = NULL;
	pq->nheld = pq->cap = 0;
	pq->rel_seq = pq->rel_done = 0;
	pq->rel_count = pq->rel_last = 0;
	pq->late_base = pq->enobufs_base = 0;
	pq->nrecent = 0;
	memset(&pq->st, 0, sizeof(pq->st));
	pthread_mutex_init(&pq->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pq->cond, &ca);
	pthread_condattr_destroy(&ca);
	r = pthread_create(&pq->thread, NULL, pq_main, pq);
	if (r) {
		pthread_cond_destroy(&pq->cond);
		pthread_mutex_destroy(&pq->lock);
		return -r;
	}
	pq->running = true;
	return 0;
}

void srv6_pq_stop(struct srv6_pq *pq)
{
	if (!pq->running)
		return;
	__atomic_store_n(&pq->stop, 1, __ATOMIC_RELEASE);
	pthread_join(pq->thread, NULL);
	pq->running = false;
	pthread_cond_destroy(&pq->cond);
	pthread_mutex_destroy(&pq->lock);
	free(pq->held);
	pq->held = NULL;
	pq->nheld = pq->cap = 0;
}

int srv6_pq_failed(const struct srv6_pq *pq)
{
	return __atomic_load_n(&pq->failed, __ATOMIC_ACQUIRE);
}

long srv6_pq_release(struct srv6_pq *pq, uint64_t count, uint64_t *pending)
{
	struct timespec dl;
	uint64_t seq;
	long r = 0;

	if (!pq->running || srv6_pq_failed(pq))
		return -ESRCH;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_nsec += SRV6_PQ_RELEASE_WAIT_MS * 1000000L;
	dl.tv_sec += dl.tv_nsec / 1000000000L;
	dl.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&pq->lock);
	/* not yet taken by the queue's thread: this request adds to it */
	pq->rel_count = count > UINT64_MAX - pq->rel_count ? UINT64_MAX : pq->rel_count + count;
	seq = ++pq->rel_seq;
	if (pending)
		*pending = pq->rel_count < pq->nheld ? pq->rel_count : pq->nheld;
	while (pq->rel_done < seq && r == 0)
		r = -pthread_cond_timedwait(&pq->cond, &pq->lock, &dl);
	if (pq->rel_done >= seq)
		r = (long)pq->rel_last;
	else
		r = -EINPROGRESS;
	pthread_mutex_unlock(&pq->lock);
	return r;
}

void srv6_pq_reset(struct srv6_pq *pq)
{
	pthread_mutex_lock(&pq->lock);
	/* st.late/st.enobufs are the nfq counters minus these bases */
	pq->late_base += pq->st.late;
	pq->enobufs_base += pq->st.enobufs;
	memset(&pq->st, 0, sizeof(pq->st));
	pthread_mutex_unlock(&pq->lock);
}

void srv6_pq_stats_read(struct srv6_pq *pq, struct srv6_pq_stats *st, size_t *nheld)
{
	if (!pq->running) {             /* stopped (or never started): no thread, no lock */
		*st = pq->st;
		*nheld = pq->nheld;
		return;
	}
	pthread_mutex_lock(&pq->lock);
	*st = pq->st;
	*nheld = pq->nheld;
	pthread_mutex_unlock(&pq->lock);
}

static const char *hook_name(uint8_t h)
{
	static const char *const n[] = { "prerouting", "input", "forward", "output", "postrouting" };

	return h < 5 ? n[h] : "?";
}

static const char *ifname(uint32_t idx, char *buf)
{
	if (!idx)
		return "-";
	if (!if_indextoname(idx, buf))
		snprintf(buf, IF_NAMESIZE, "#%u", idx);
	return buf;
}

static void rec_show(FILE *o, const struct srv6_pq_rec *r, bool json, uint64_t now, bool first)
{
	char inb[IF_NAMESIZE + 8], outb[IF_NAMESIZE + 8];
	const char *fam = r->family == AF_INET6 ? "ipv6" : r->family == AF_INET ? "ipv4" : "-";
	const char *in = ifname(r->indev, inb), *out = ifname(r->outdev, outb);

	if (json) {
		fprintf(o, "%s{\"id\":%u,\"hook\":\"%s\",\"family\":\"%s\",\"indev\":", first ? "" : ",",
			r->id, hook_name(r->hook), fam);
		srv6_json_str(o, in);
		fprintf(o, ",\"outdev\":");
		srv6_json_str(o, out);
		fprintf(o, ",\"mark\":%u,\"priority\":%u,\"len\":%u,\"age_ms\":%llu,\"summary\":",
			r->mark, r->priority, r->len, (unsigned long long)(now - r->t_ms));
		srv6_json_str(o, r->summary);
		fprintf(o, "}");
	} else {
		char pb[24] = "";

		if (r->priority)
			snprintf(pb, sizeof(pb), " prio %x:%x", r->priority >> 16, r->priority & 0xffff);
		fprintf(o, "    id %u %s %s in %s out %s mark 0x%x%s age %llums: %s\n", r->id,
			hook_name(r->hook), fam, in, out, r->mark, pb,
			(unsigned long long)(now - r->t_ms), r->summary);
	}
}

void srv6_pq_show(struct srv6_pq *pq, FILE *o, bool json, bool held,
		  const struct srv6_nfq_kstats *k)
{
	char pol[64];
	uint64_t now = mono_ms(), nrec;
	const struct srv6_pq_stats *s = &pq->st;

	srv6_pqueue_format(pol, sizeof(pol), &pq->cfg);
	pthread_mutex_lock(&pq->lock);
	nrec = pq->nrecent < SRV6_PQ_RECENT ? pq->nrecent : SRV6_PQ_RECENT;
	if (json) {
		fprintf(o, "{\"queue\":%u,\"policy\":", pq->cfg.queue);
		srv6_json_str(o, pol);
		fprintf(o, ",\"packets\":%llu,\"accepted\":%llu,\"dropped\":%llu,\"repeated\":%llu,"
			"\"requeued\":%llu,\"guarded\":%llu,\"held_total\":%llu,\"released\":%llu,"
			"\"late\":%llu,\"enobufs\":%llu,\"held_now\":%zu",
			(unsigned long long)s->packets, (unsigned long long)s->accepted,
			(unsigned long long)s->dropped, (unsigned long long)s->repeated,
			(unsigned long long)s->requeued, (unsigned long long)s->guarded,
			(unsigned long long)s->held, (unsigned long long)s->released,
			(unsigned long long)s->late, (unsigned long long)s->enobufs, pq->nheld);
		if (k)
			fprintf(o, ",\"kernel\":{\"waiting\":%llu,\"queue_dropped\":%llu,"
				"\"user_dropped\":%llu,\"id_sequence\":%llu,\"portid\":%u}",
				(unsigned long long)k->waiting, (unsigned long long)k->queue_dropped,
				(unsigned long long)k->user_dropped, (unsigned long long)k->id_sequence,
				k->portid);
		else
			fprintf(o, ",\"kernel\":null");
		if (held) {
			fprintf(o, ",\"held\":[");
			for (size_t i = 0; i < pq->nheld; i++)
				rec_show(o, &pq->held[i], true, now, i == 0);
			fprintf(o, "],\"recent\":[");
			for (uint64_t i = 0; i < nrec; i++)
				rec_show(o, &pq->recent[(pq->nrecent - nrec + i) % SRV6_PQ_RECENT], true,
					 now, i == 0);
			fprintf(o, "]");
		}
		fprintf(o, "}");
	} else {
		fprintf(o, "queue %u policy %s\n    packets %llu accepted %llu dropped %llu "
			"repeated %llu requeued %llu guarded %llu\n    held %zu (total %llu, "
			"released %llu) late %llu enobufs %llu\n", pq->cfg.queue, pol,
			(unsigned long long)s->packets, (unsigned long long)s->accepted,
			(unsigned long long)s->dropped, (unsigned long long)s->repeated,
			(unsigned long long)s->requeued, (unsigned long long)s->guarded, pq->nheld,
			(unsigned long long)s->held, (unsigned long long)s->released,
			(unsigned long long)s->late, (unsigned long long)s->enobufs);
		if (k)
			fprintf(o, "    kernel waiting %llu queue-dropped %llu user-dropped %llu "
				"id-sequence %llu\n", (unsigned long long)k->waiting,
				(unsigned long long)k->queue_dropped, (unsigned long long)k->user_dropped,
				(unsigned long long)k->id_sequence);
		if (held) {
			if (pq->nheld)
				fprintf(o, "  held (oldest first):\n");
			for (size_t i = 0; i < pq->nheld; i++)
				rec_show(o, &pq->held[i], false, now, false);
			if (nrec)
				fprintf(o, "  recent (oldest first):\n");
			for (uint64_t i = 0; i < nrec; i++)
				rec_show(o, &pq->recent[(pq->nrecent - nrec + i) % SRV6_PQ_RECENT], false,
					 now, false);
		}
	}
	pthread_mutex_unlock(&pq->lock);
}
