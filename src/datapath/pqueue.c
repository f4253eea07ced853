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
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "srv6d/sbuf.h"
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

/* The up/down state of one device a held record names. */
struct dev_state {
	uint32_t idx;
	bool up;
};

/* The held records the kernel no longer queues, as the reconcile sees them:
 * all those that arrived before @before_ms (the kernel holds none), or
 * those whose input or output device is down or gone in @dev (@ndev
 * entries, every device the records name); at most @max of them. */
struct held_sel {
	uint64_t before_ms;
	bool all;
	size_t max;
	const struct dev_state *dev;
	size_t ndev;
};

static bool dev_is_up(const struct held_sel *sel, uint32_t idx)
{
	for (size_t i = 0; i < sel->ndev; i++)
		if (sel->dev[i].idx == idx)
			return sel->dev[i].up;
	return true;    /* not looked up: not known down */
}

static bool sel_match(const struct held_sel *sel, const struct srv6_pq_rec *r)
{
	if (r->t_ms >= sel->before_ms)
		return false;
	return sel->all || (r->indev && !dev_is_up(sel, r->indev)) ||
	       (r->outdev && !dev_is_up(sel, r->outdev));
}

/* NF_ACCEPT for the held records @sel matches, at most sel->max (entered
 * and left with the lock held, verdicts sent without it; queue thread
 * only).  The ids are taken in one pass that keeps the others in order.
 * Returns how many. */
static uint64_t held_release_sel(struct srv6_pq *pq, const struct held_sel *sel)
{
	size_t n = 0, keep = 0, max = pq->nheld < sel->max ? pq->nheld : sel->max;
	uint32_t *ids;

	if (!max)
		return 0;
	pthread_mutex_unlock(&pq->lock);
	ids = malloc(max * sizeof(*ids));       /* the list cannot grow meanwhile */
	pthread_mutex_lock(&pq->lock);
	if (!ids)
		return 0;
	for (size_t i = 0; i < pq->nheld; i++) {
		if (n < max && sel_match(sel, &pq->held[i]))
			ids[n++] = pq->held[i].id;
		else
			pq->held[keep++] = pq->held[i];
	}
	pq->nheld = keep;
	pq->st.released += n;
	pq->st.accepted += n;
	pthread_mutex_unlock(&pq->lock);
	for (size_t i = 0; i < n; i++)
		(void)srv6_nfq_verdict(pq->nfq, ids[i], NF_ACCEPT, false, 0, NULL, 0);
	free(ids);
	pthread_mutex_lock(&pq->lock);
	return n;
}

/* Whether device @idx is up (IFF_UP: NETDEV_DOWN is what makes the kernel
 * flush a device's packets), asked by ifindex, so devices without a
 * link-layer address (tun, WireGuard, PPP) are seen as well: 1 up, 0 down
 * or gone (ENODEV), or -errno (not known). */
static int dev_up(int fd, uint32_t idx)
{
	struct ifreq ifr = { .ifr_ifindex = (int)idx };

	if (ioctl(fd, SIOCGIFNAME, &ifr) < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return errno == ENODEV ? 0 : -errno;
	return !!(ifr.ifr_flags & IFF_UP);
}

/* The state of every device the held records name, into *@dev (malloc'd;
 * NULL when none) and *@ndev.  Reads pq->held without the lock: queue
 * thread only (the only one that changes the list).  0 or -errno (a device
 * whose state is not known: nothing is guessed). */
static int devs_state(struct srv6_pq *pq, struct dev_state **dev, size_t *ndev)
{
	struct dev_state *v = NULL;
	size_t n = 0, cap = 0;
	int fd, r = 0;

	*dev = NULL;
	*ndev = 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	for (size_t i = 0; i < pq->nheld * 2 && !r; i++) {
		uint32_t idx = i & 1 ? pq->held[i / 2].outdev : pq->held[i / 2].indev;
		size_t j = 0;

		while (j < n && v[j].idx != idx)
			j++;
		if (!idx || j < n)
			continue;
		if (n == cap) {
			struct dev_state *nv = realloc(v, (cap = cap ? cap * 2 : 8) * sizeof(*v));

			if (!nv) {
				r = -ENOMEM;
				break;
			}
			v = nv;
		}
		r = dev_up(fd, idx);
		if (r >= 0) {
			v[n].idx = idx;
			v[n++].up = r;
			r = 0;
		}
	}
	close(fd);
	if (r < 0) {
		free(v);
		return r;
	}
	*dev = v;
	*ndev = n;
	return 0;
}

/*
 * The held list against the kernel (pqueue.h, "reconcile"): every
 * SRV6_PQ_RECONCILE_MS while something is held, the kernel's queue_total
 * for this queue; fewer packets there than records here: release the
 * records the kernel cannot hold any more.  Entered and left with the lock
 * held; queue thread only.
 */
static void pq_reconcile(struct srv6_pq *pq)
{
	char proc[16384];
	struct srv6_nfq_kstats k;
	struct held_sel sel = { .max = SIZE_MAX };
	struct dev_state *dev = NULL;
	size_t nheld = pq->nheld;
	uint64_t now = mono_ms();

	if (!nheld || now < pq->reconcile_ms)
		return;
	pq->reconcile_ms = now + SRV6_PQ_RECONCILE_MS;
	pthread_mutex_unlock(&pq->lock);
	/* records that arrived a tick before the read: the kernel counts a
	 * packet in queue_total just after it has sent it to us */
	sel.before_ms = now > SRV6_PQ_TICK_MS ? now - SRV6_PQ_TICK_MS : 0;
	if (srv6_nfq_proc_read(proc, sizeof(proc)) < 0 ||
	    srv6_nfq_proc_find(proc, srv6_nfq_queue(pq->nfq), &k) < 0 || k.waiting >= nheld)
		goto relock;
	sel.all = k.waiting == 0;
	if (!sel.all && devs_state(pq, &dev, &sel.ndev) < 0)
		goto relock;
	sel.dev = dev;
	pthread_mutex_lock(&pq->lock);
	pq->st.reconciled += held_release_sel(pq, &sel);
	free(dev);
	return;
relock:
	pthread_mutex_lock(&pq->lock);
}

/*
 * The list is full (held_max) and one more packet is queued: the kernel
 * (queue-maxlen) no longer holds @n of the records.  Those whose input or
 * output device is down or gone go first; only when there are not enough
 * of them the oldest: a device that went down and up since the last
 * reconcile leaves no trace, and the oldest may then be a live packet,
 * released early (pqueue.h, "bound").  Counted as evicted.  Entered and
 * left with the lock held; queue thread only.
 */
static void pq_evict(struct srv6_pq *pq, uint64_t n)
{
	struct held_sel sel = { .before_ms = UINT64_MAX, .max = n };
	struct dev_state *dev = NULL;
	uint64_t done = 0;
	int r;

	pthread_mutex_unlock(&pq->lock);
	r = devs_state(pq, &dev, &sel.ndev);
	pthread_mutex_lock(&pq->lock);
	if (r == 0 && sel.ndev) {
		sel.dev = dev;
		done = held_release_sel(pq, &sel);
	}
	free(dev);
	if (done < n)
		done += held_release(pq, n - done);
	pq->st.evicted += done;
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
		/* held_max held and one more queued: the kernel (queue-maxlen)
		 * dropped one of them already */
		if (!stopping && pq->held_max && pq->nheld >= pq->held_max)
			pq_evict(pq, pq->nheld - pq->held_max + 1);
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
	pq_reconcile(pq);
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
	pq->st.kernel_dropped = ns.verdict_enoent - pq->kdrop_base;
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
	pq->late_base = pq->enobufs_base = pq->kdrop_base = 0;
	pq->reconcile_ms = 0;
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
	pq->kdrop_base += pq->st.kernel_dropped;
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

/* What srv6_pq_show() prints, copied under pq->lock. */
struct pq_snap {
	struct srv6_pq_stats st;
	size_t nheld, nshow;            /* held now / listed (the oldest) */
	size_t nrec;                    /* then the recent records, oldest first */
};

/* Copy @pq's counters and (with @recs, room for SRV6_PQ_SHOW_HELD +
 * SRV6_PQ_RECENT records) the oldest held and the recent records: memcpy
 * only, under the lock (none once the queue is stopped). */
static void pq_snapshot(struct srv6_pq *pq, struct pq_snap *sn, struct srv6_pq_rec *recs)
{
	bool lock = pq->running;

	if (lock)
		pthread_mutex_lock(&pq->lock);
	sn->st = pq->st;
	sn->nheld = pq->nheld;
	sn->nshow = sn->nrec = 0;
	if (recs) {
		uint64_t nrec = pq->nrecent < SRV6_PQ_RECENT ? pq->nrecent : SRV6_PQ_RECENT;

		sn->nshow = pq->nheld < SRV6_PQ_SHOW_HELD ? pq->nheld : SRV6_PQ_SHOW_HELD;
		if (sn->nshow)
			memcpy(recs, pq->held, sn->nshow * sizeof(*recs));
		for (uint64_t i = 0; i < nrec; i++)
			recs[sn->nshow + i] = pq->recent[(pq->nrecent - nrec + i) % SRV6_PQ_RECENT];
		sn->nrec = (size_t)nrec;
	}
	if (lock)
		pthread_mutex_unlock(&pq->lock);
}

void srv6_pq_show(struct srv6_pq *pq, FILE *o, bool json, bool held,
		  const struct srv6_nfq_kstats *k)
{
	struct srv6_pq_rec *recs = NULL;
	struct pq_snap sn;
	const struct srv6_pq_stats *s = &sn.st;
	uint64_t now;
	char pol[64];

	/* allocated before the lock, formatted after it */
	if (held)
		recs = malloc((SRV6_PQ_SHOW_HELD + SRV6_PQ_RECENT) * sizeof(*recs));
	srv6_pqueue_format(pol, sizeof(pol), &pq->cfg);
	pq_snapshot(pq, &sn, recs);
	now = mono_ms();
	if (json) {
		fprintf(o, "{\"queue\":%u,\"policy\":", pq->cfg.queue);
		srv6_json_str(o, pol);
		fprintf(o, ",\"packets\":%llu,\"accepted\":%llu,\"dropped\":%llu,\"repeated\":%llu,"
			"\"requeued\":%llu,\"guarded\":%llu,\"held_total\":%llu,\"released\":%llu,"
			"\"evicted\":%llu,\"reconciled\":%llu,\"late\":%llu,\"kernel_dropped\":%llu,"
			"\"enobufs\":%llu,\"held_now\":%zu",
			(unsigned long long)s->packets, (unsigned long long)s->accepted,
			(unsigned long long)s->dropped, (unsigned long long)s->repeated,
			(unsigned long long)s->requeued, (unsigned long long)s->guarded,
			(unsigned long long)s->held, (unsigned long long)s->released,
			(unsigned long long)s->evicted, (unsigned long long)s->reconciled,
			(unsigned long long)s->late, (unsigned long long)s->kernel_dropped,
			(unsigned long long)s->enobufs, sn.nheld);
		if (k)
			fprintf(o, ",\"kernel\":{\"waiting\":%llu,\"queue_dropped\":%llu,"
				"\"user_dropped\":%llu,\"id_sequence\":%llu,\"portid\":%u}",
				(unsigned long long)k->waiting, (unsigned long long)k->queue_dropped,
				(unsigned long long)k->user_dropped, (unsigned long long)k->id_sequence,
				k->portid);
		else
			fprintf(o, ",\"kernel\":null");
		if (held && !recs) {
			/* nothing copied: say so, never an empty list */
			fprintf(o, ",\"held\":null,\"held_omitted\":%zu,\"recent\":null,"
				"\"held_error\":", sn.nheld);
			srv6_json_str(o, strerror(ENOMEM));
		} else if (held) {
			fprintf(o, ",\"held\":[");
			for (size_t i = 0; i < sn.nshow; i++)
				rec_show(o, &recs[i], true, now, i == 0);
			fprintf(o, "],\"held_omitted\":%zu,\"recent\":[", sn.nheld - sn.nshow);
			for (size_t i = 0; i < sn.nrec; i++)
				rec_show(o, &recs[sn.nshow + i], true, now, i == 0);
			fprintf(o, "]");
		}
		fprintf(o, "}");
	} else {
		fprintf(o, "queue %u policy %s\n    packets %llu accepted %llu dropped %llu "
			"repeated %llu requeued %llu guarded %llu\n    held %zu (total %llu, "
			"released %llu, evicted %llu, reconciled %llu) late %llu kernel-dropped %llu "
			"enobufs %llu\n", pq->cfg.queue, pol,
			(unsigned long long)s->packets, (unsigned long long)s->accepted,
			(unsigned long long)s->dropped, (unsigned long long)s->repeated,
			(unsigned long long)s->requeued, (unsigned long long)s->guarded, sn.nheld,
			(unsigned long long)s->held, (unsigned long long)s->released,
			(unsigned long long)s->evicted, (unsigned long long)s->reconciled,
			(unsigned long long)s->late, (unsigned long long)s->kernel_dropped,
			(unsigned long long)s->enobufs);
		if (k)
			fprintf(o, "    kernel waiting %llu queue-dropped %llu user-dropped %llu "
				"id-sequence %llu\n", (unsigned long long)k->waiting,
				(unsigned long long)k->queue_dropped, (unsigned long long)k->user_dropped,
				(unsigned long long)k->id_sequence);
		if (held && !recs) {
			fprintf(o, "  held and recent records not copied (%s): %zu held\n",
				strerror(ENOMEM), sn.nheld);
		} else if (held) {
			if (sn.nheld)
				fprintf(o, "  held (oldest first):\n");
			for (size_t i = 0; i < sn.nshow; i++)
				rec_show(o, &recs[i], false, now, false);
			if (sn.nheld > sn.nshow)
				fprintf(o, "    ... and %zu more\n", sn.nheld - sn.nshow);
			if (sn.nrec)
				fprintf(o, "  recent (oldest first):\n");
			for (size_t i = 0; i < sn.nrec; i++)
				rec_show(o, &recs[sn.nshow + i], false, now, false);
		}
	}
	free(recs);
}
