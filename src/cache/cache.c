// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cache.c - the RCU route cache: snapshots, copy-update, lookups in the three
 * modes of the ablation, counter ids and per-worker counters.
 *
 * Memory reclamation (the choice the header leaves open): every writer
 * entry point publishes with rcu_assign_pointer, then waits for a grace
 * period with synchronize_rcu() and frees what the new snapshot no longer
 * references, all in the writer thread under c->wlock.  call_rcu is not
 * used: in the QSBR flavor it must be called from a registered, online
 * thread, and the control plane is not one; synchronize-then-free also
 * bounds memory (at most one retired snapshot at any time) and gives TSan a
 * single, annotated happens-before edge (rcu_tsan.h).  A change therefore
 * costs one grace period of latency (tens of microseconds when workers pass
 * quiescent states per batch); bulk changes go through one publish.
 * Because no callback is ever queued, srv6_cache_destroy has nothing for
 * rcu_barrier() to wait for and frees directly.
 *
 * Entries ("nodes") are allocated one by one and reference counted: the
 * snapshot that holds a node owns one reference, a lookup with noref =
 * false takes another.  When a snapshot (or the part of it a copy-update
 * replaced) is freed after the grace period, it drops its reference; the
 * node is freed when the count reaches zero, possibly later, by the
 * srv6_entry_put of a reader that held it across quiescent states.  A
 * reader can take a reference without inc-not-zero because, inside its read
 * section, the snapshot it found the node in still holds one.
 *
 * Counter ids: the current snapshot is the writer's prefix -> id map.  A
 * prefix present in the old snapshot keeps its id in the new one; a new
 * prefix gets a free id.  idref[id] counts the live nodes carrying the id;
 * the id returns to the free list (and its counters are zeroed when it is
 * reused) only when the last of them is freed, so a worker still holding a
 * reference can never count into another prefix's slot.
 */
#include <errno.h>
#include <endian.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "srv6d/cache.h"
#include "lpm.h"
#include "rcu_tsan.h"

#ifdef SRV6_TSAN
char srv6_tsan_gp_token;

const char *__tsan_default_suppressions(void);
/*
 * liburcu-internal races only; the reasoning is in tests/tsan.supp, which
 * holds the same list.  Built in so that the tests and the daemon run clean
 * under TSan without TSAN_OPTIONS.
 */
__attribute__((visibility("default"), used))
const char *__tsan_default_suppressions(void)
{
	return "race:urcu_qsbr_wake_up_gp\n";
}
#endif

#define ID_NONE UINT32_MAX
#define CTR_CHUNK 1024u   /* counters per worker per chunk */

_Static_assert(sizeof(struct srv6_counters) % sizeof(uint64_t) == 0,
	       "srv6_counters must be made of uint64_t only");

enum { T_SID, T_POL4, T_POL6, T_MAX };
enum { K_SID, K_POL, K_MAX }; /* counter/id spaces */

struct node_hdr {
	uint32_t refcnt;          /* snapshot's reference + noref = false holders */
	uint8_t kind;             /* K_SID or K_POL */
	struct srv6_cache *c;     /* owner of e.id once published, else NULL */
};

struct sid_node {
	struct node_hdr h;
	struct srv6_sid_entry e;
};

struct pol_node {
	struct node_hdr h;
	struct srv6_policy_entry e;
};

_Static_assert(offsetof(struct sid_node, e) == offsetof(struct pol_node, e),
	       "srv6_entry_put finds the header at the same offset for both");
#define NODE_OFF offsetof(struct sid_node, e)

struct srv6_tables {
	struct lpm *lpm[T_MAX];
};

struct ctr_dir {
	struct ctr_dir *prev;     /* older, smaller directories, freed at destroy */
	uint32_t nchunks;
	struct srv6_counters *chunk[]; /* nworkers * CTR_CHUNK counters each */
};

struct ctr_space {
	struct ctr_dir *dir;      /* release-published by the writer */
	/* under c->idlock: */
	uint32_t next_id;
	uint32_t cap;             /* of idref[] and freeids[] */
	uint32_t nfree;
	uint32_t *idref;
	uint32_t *freeids;
};

struct srv6_cache {
	/* read-mostly: every lookup reads these */
	struct srv6_tables *cur;
	enum srv6_lookup_mode mode;
	unsigned int nworkers;
	struct ctr_space ctr[K_MAX];

	/* written by RWLOCK-mode readers: a line of its own */
	_Alignas(64) pthread_rwlock_t rw;

	/* written by writers and final puts only */
	_Alignas(64) pthread_mutex_t wlock;  /* one writer; held across the grace period */
	pthread_mutex_t idlock;               /* id allocator; never held across a grace period */
};

/* ---- keys ---- */

static inline void key6(const struct in6_addr *a, uint64_t *hi, uint64_t *lo)
{
	uint64_t h, l;

	memcpy(&h, a->s6_addr, 8);
	memcpy(&l, a->s6_addr + 8, 8);
	*hi = be64toh(h);
	*lo = be64toh(l);
}

static inline void key4(const struct in_addr *a, uint64_t *hi, uint64_t *lo)
{
	*hi = (uint64_t)be32toh(a->s_addr) << 32;
	*lo = 0;
}

static void key6_store(struct in6_addr *a, uint64_t hi, uint64_t lo)
{
	uint64_t h = htobe64(hi), l = htobe64(lo);

	memcpy(a->s6_addr, &h, 8);
	memcpy(a->s6_addr + 8, &l, 8);
}

/* ---- nodes ---- */

static uint32_t *node_id(struct node_hdr *h)
{
	if (h->kind == K_SID)
		return &((struct sid_node *)h)->e.id;
	return &((struct pol_node *)h)->e.id;
}

/* Key and table index of a node. */
static int node_key(struct node_hdr *h, uint64_t *hi, uint64_t *lo, unsigned int *plen)
{
	if (h->kind == K_SID) {
		struct srv6_sid_entry *e = &((struct sid_node *)h)->e;

		key6(&e->prefix, hi, lo);
		*plen = e->plen;
		return T_SID;
	} else {
		struct srv6_policy_entry *e = &((struct pol_node *)h)->e;

		*plen = e->plen;
		if (e->family == AF_INET) {
			key4(&e->prefix.v4, hi, lo);
			return T_POL4;
		}
		key6(&e->prefix.v6, hi, lo);
		return T_POL6;
	}
}

static void id_put(struct srv6_cache *c, int kind, uint32_t id);

static void node_free(struct node_hdr *h)
{
	size_t size = h->kind == K_SID ? sizeof(struct sid_node) : sizeof(struct pol_node);

	if (h->c)
		id_put(h->c, h->kind, *node_id(h));
	lpm_poison_free(h, size);
}

/* Drop one reference; frees the node on the last one.  Any thread. */
static void node_put(void *node)
{
	struct node_hdr *h = node;

	if (__atomic_sub_fetch(&h->refcnt, 1, __ATOMIC_ACQ_REL) == 0)
		node_free(h);
}

static inline void node_get(struct node_hdr *h)
{
	__atomic_fetch_add(&h->refcnt, 1, __ATOMIC_RELAXED);
}

/* Drop a reference that cannot be the last (the snapshot holds one). */
static inline void node_drop(struct node_hdr *h)
{
	__atomic_fetch_sub(&h->refcnt, 1, __ATOMIC_RELEASE);
}

static struct node_hdr *sid_node_new(const struct in6_addr *prefix, uint8_t plen,
				     const struct srv6_sid_cfg *cfg,
				     uint64_t *hi, uint64_t *lo)
{
	struct sid_node *n = calloc(1, sizeof(*n));
	uint64_t mhi, mlo;

	if (!n)
		return NULL;
	key6(prefix, hi, lo);
	lpm_mask(plen, &mhi, &mlo);
	*hi &= mhi;
	*lo &= mlo;
	n->h.refcnt = 1;
	n->h.kind = K_SID;
	key6_store(&n->e.prefix, *hi, *lo);
	n->e.plen = plen;
	n->e.id = ID_NONE;
	n->e.cfg = *cfg;
	return &n->h;
}

static struct node_hdr *pol_node_new(int family, const void *prefix, uint8_t plen,
				     const struct srv6_policy *pol,
				     uint64_t *hi, uint64_t *lo)
{
	struct pol_node *n = calloc(1, sizeof(*n));
	uint64_t mhi, mlo;

	if (!n)
		return NULL;
	lpm_mask(plen, &mhi, &mlo);
	n->h.refcnt = 1;
	n->h.kind = K_POL;
	n->e.family = family;
	n->e.plen = plen;
	n->e.id = ID_NONE;
	n->e.pol = *pol;
	if (family == AF_INET) {
		struct in_addr a;

		memcpy(&a, prefix, sizeof(a));
		key4(&a, hi, lo);
		*hi &= mhi;
		n->e.prefix.v4.s_addr = htobe32((uint32_t)(*hi >> 32));
	} else {
		struct in6_addr a;

		memcpy(&a, prefix, sizeof(a));
		key6(&a, hi, lo);
		*hi &= mhi;
		*lo &= mlo;
		key6_store(&n->e.prefix.v6, *hi, *lo);
	}
	return &n->h;
}

/* Table index and max prefix length of a policy family; -EAFNOSUPPORT. */
static int pol_table(int family, uint8_t plen)
{
	if (family == AF_INET)
		return plen <= 32 ? T_POL4 : -EINVAL;
	if (family == AF_INET6)
		return plen <= 128 ? T_POL6 : -EINVAL;
	return -EAFNOSUPPORT;
}

/* ---- snapshots ---- */

struct srv6_tables *srv6_tables_new(void)
{
	struct srv6_tables *t = calloc(1, sizeof(*t));
	int i;

	if (!t)
		return NULL;
	for (i = 0; i < T_MAX; i++) {
		t->lpm[i] = lpm_new();
		if (!t->lpm[i])
			goto out_free;
	}
	return t;

out_free:
	srv6_tables_free(t);
	errno = ENOMEM;
	return NULL;
}

void srv6_tables_free(struct srv6_tables *t)
{
	int i;

	if (!t)
		return;
	for (i = 0; i < T_MAX; i++)
		lpm_free(t->lpm[i], node_put);
	lpm_poison_free(t, sizeof(*t));
}

int srv6_tables_add_sid(struct srv6_tables *t, const struct in6_addr *prefix,
			uint8_t plen, const struct srv6_sid_cfg *cfg)
{
	struct node_hdr *n;
	uint64_t hi, lo;
	int ret;

	if (!t || !prefix || !cfg || plen > 128)
		return -EINVAL;
	n = sid_node_new(prefix, plen, cfg, &hi, &lo);
	if (!n)
		return -ENOMEM;
	ret = lpm_add(t->lpm[T_SID], hi, lo, plen, n);
	if (ret)
		node_free(n);
	return ret;
}

int srv6_tables_add_policy(struct srv6_tables *t, int family, const void *prefix,
			   uint8_t plen, const struct srv6_policy *pol)
{
	struct node_hdr *n;
	uint64_t hi, lo;
	int ti, ret;

	if (!t || !prefix || !pol)
		return -EINVAL;
	ti = pol_table(family, plen);
	if (ti < 0)
		return ti;
	n = pol_node_new(family, prefix, plen, pol, &hi, &lo);
	if (!n)
		return -ENOMEM;
	ret = lpm_add(t->lpm[ti], hi, lo, plen, n);
	if (ret)
		node_free(n);
	return ret;
}

/* ---- counters and ids ---- */

static size_t ctr_chunk_bytes(const struct srv6_cache *c)
{
	return (size_t)c->nworkers * CTR_CHUNK * sizeof(struct srv6_counters);
}

/*
 * Make room for ids < @nids in space @k: the per-id arrays and the counter
 * directory.  Writer only (c->wlock).  Counter chunks are anonymous
 * mappings: zero pages cost no RSS until a worker counts into them.
 */
static int ctr_reserve(struct srv6_cache *c, int k, uint32_t nids)
{
	struct ctr_space *cs = &c->ctr[k];
	struct ctr_dir *d = cs->dir, *nd;
	uint32_t need = (uint32_t)(((uint64_t)nids + CTR_CHUNK - 1) / CTR_CHUNK);
	uint32_t n, i;
	int ret = 0;

	pthread_mutex_lock(&c->idlock);
	if (nids > cs->cap) {
		uint32_t cap = cs->cap ? cs->cap : 1024;
		uint32_t *r, *f;

		while (cap < nids)
			cap *= 2;
		r = realloc(cs->idref, cap * sizeof(*r));
		if (r)
			cs->idref = r;
		f = r ? realloc(cs->freeids, cap * sizeof(*f)) : NULL;
		if (f)
			cs->freeids = f;
		if (!r || !f)
			ret = -ENOMEM;
		else
			cs->cap = cap;
	}
	pthread_mutex_unlock(&c->idlock);
	if (ret || need <= d->nchunks)
		return ret;

	n = d->nchunks * 2 > need ? d->nchunks * 2 : need;
	nd = calloc(1, sizeof(*nd) + n * sizeof(nd->chunk[0]));
	if (!nd)
		return -ENOMEM;
	memcpy(nd->chunk, d->chunk, d->nchunks * sizeof(d->chunk[0]));
	for (i = d->nchunks; i < n; i++) {
		void *p = mmap(NULL, ctr_chunk_bytes(c), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			goto out_unmap;
		nd->chunk[i] = p;
	}
	nd->nchunks = n;
	nd->prev = d;
	/* Readers may use ids < n * CTR_CHUNK once they see a node carrying one,
	 * which is published after this store. */
	__atomic_store_n(&cs->dir, nd, __ATOMIC_RELEASE);
	return 0;

out_unmap:
	while (i-- > d->nchunks)
		munmap(nd->chunk[i], ctr_chunk_bytes(c));
	free(nd);
	return -ENOMEM;
}

/* Ids that allocating @nnew new ones may reach. */
static uint32_t ids_needed(struct srv6_cache *c, int k, uint32_t nnew)
{
	struct ctr_space *cs = &c->ctr[k];
	uint32_t need;

	pthread_mutex_lock(&c->idlock);
	need = cs->next_id + (nnew > cs->nfree ? nnew - cs->nfree : 0);
	pthread_mutex_unlock(&c->idlock);
	return need;
}

static struct srv6_counters *ctr_slot(const struct ctr_dir *d, unsigned int worker,
				      uint32_t id)
{
	return &d->chunk[id / CTR_CHUNK][(size_t)worker * CTR_CHUNK + id % CTR_CHUNK];
}

/* A fresh id (after ctr_reserve).  Caller holds c->idlock. */
static uint32_t id_alloc_locked(struct srv6_cache *c, int k)
{
	struct ctr_space *cs = &c->ctr[k];
	uint32_t id;
	unsigned int w;
	size_t i;

	if (cs->nfree) {
		id = cs->freeids[--cs->nfree];
		/* No node carries id any more, so no worker writes these slots;
		 * relaxed stores because srv6_cache_counters may read them. */
		for (w = 0; w < c->nworkers; w++) {
			uint64_t *p = (uint64_t *)ctr_slot(cs->dir, w, id);

			for (i = 0; i < sizeof(struct srv6_counters) / sizeof(*p); i++)
				__atomic_store_n(&p[i], 0, __ATOMIC_RELAXED);
		}
	} else {
		id = cs->next_id++;
	}
	cs->idref[id] = 1;
	return id;
}

static void id_put(struct srv6_cache *c, int k, uint32_t id)
{
	struct ctr_space *cs = &c->ctr[k];

	pthread_mutex_lock(&c->idlock);
	if (--cs->idref[id] == 0)
		cs->freeids[cs->nfree++] = id;
	pthread_mutex_unlock(&c->idlock);
}

/*
 * Give @n the id of its prefix in @old, or a new one.  Caller holds
 * c->wlock and has reserved room for a new id.
 */
static void node_take_id(struct srv6_cache *c, const struct srv6_tables *old,
			 struct node_hdr *n)
{
	struct node_hdr *on;
	uint64_t hi, lo;
	unsigned int plen;
	int ti = node_key(n, &hi, &lo, &plen);

	on = lpm_find(old->lpm[ti], hi, lo, plen);
	pthread_mutex_lock(&c->idlock);
	if (on) {
		*node_id(n) = *node_id(on);
		c->ctr[n->kind].idref[*node_id(n)]++;
	} else {
		*node_id(n) = id_alloc_locked(c, n->kind);
	}
	pthread_mutex_unlock(&c->idlock);
	n->c = c;
}

/* ---- writer ---- */

struct srv6_cache *srv6_cache_new(unsigned int nworkers, enum srv6_lookup_mode mode)
{
	pthread_rwlockattr_t ra;
	struct srv6_cache *c;
	int k;

	if (nworkers == 0 || (mode != SRV6_LOOKUP_RCU && mode != SRV6_LOOKUP_REFCOUNT &&
			      mode != SRV6_LOOKUP_RWLOCK)) {
		errno = EINVAL;
		return NULL;
	}
	c = aligned_alloc(64, (sizeof(*c) + 63) & ~(size_t)63);
	if (!c)
		goto out_nomem;
	memset(c, 0, sizeof(*c));
	c->mode = mode;
	c->nworkers = nworkers;
	for (k = 0; k < K_MAX; k++) {
		c->ctr[k].dir = calloc(1, sizeof(struct ctr_dir));
		if (!c->ctr[k].dir)
			goto out_free_dirs;
	}
	c->cur = srv6_tables_new();
	if (!c->cur)
		goto out_free_dirs;
	/* Writer preference: a reader-preferring lock starves the writer
	 * under a continuous lookup load. */
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&c->rw, &ra);
	pthread_rwlockattr_destroy(&ra);
	pthread_mutex_init(&c->wlock, NULL);
	pthread_mutex_init(&c->idlock, NULL);
	return c;

out_free_dirs:
	for (k = 0; k < K_MAX; k++)
		free(c->ctr[k].dir);
	free(c);
out_nomem:
	errno = ENOMEM;
	return NULL;
}

void srv6_cache_destroy(struct srv6_cache *c)
{
	int k;

	if (!c)
		return;
	/* No call_rcu callback is ever queued (see the top of this file), so
	 * there is nothing for rcu_barrier() to wait for. */
	srv6_tables_free(c->cur);
	for (k = 0; k < K_MAX; k++) {
		struct ctr_dir *d = c->ctr[k].dir, *prev;
		uint32_t i;

		for (i = 0; i < d->nchunks; i++)
			munmap(d->chunk[i], ctr_chunk_bytes(c));
		for (; d; d = prev) {
			prev = d->prev;
			free(d);
		}
		free(c->ctr[k].idref);
		free(c->ctr[k].freeids);
	}
	pthread_rwlock_destroy(&c->rw);
	pthread_mutex_destroy(&c->wlock);
	pthread_mutex_destroy(&c->idlock);
	free(c);
}

/*
 * Writer entry and exit.  A registered thread that is online goes offline
 * first: it may block on wlock while another writer waits in
 * synchronize_rcu() for it, and synchronize_rcu() itself needs it offline.
 */
static bool writer_lock(struct srv6_cache *c)
{
	bool was_online = rcu_read_ongoing();

	if (was_online)
		srv6_reader_offline();
	pthread_mutex_lock(&c->wlock);
	return was_online;
}

static void writer_unlock(struct srv6_cache *c, bool was_online)
{
	pthread_mutex_unlock(&c->wlock);
	if (was_online)
		srv6_reader_online();
}

/* Publish @t; afterwards no reader holds a pointer into the old snapshot. */
static void swap_and_wait(struct srv6_cache *c, struct srv6_tables *t)
{
	if (c->mode == SRV6_LOOKUP_RWLOCK)
		pthread_rwlock_wrlock(&c->rw);
	srv6_rcu_assign(c->cur, t);
	if (c->mode == SRV6_LOOKUP_RWLOCK)
		pthread_rwlock_unlock(&c->rw);
	/*
	 * Even in RWLOCK mode the old nodes wait for a grace period: a noref
	 * result is used after the read lock is dropped, so freeing at write
	 * unlock would be a use after free.  That mode measures the read-side
	 * cost of the lock, nothing else.
	 */
	synchronize_rcu();
	srv6_tsan_gp_end();
}

struct id_pass {
	struct srv6_cache *c;
	const struct srv6_tables *old;
	uint32_t nnew[K_MAX];
};

static void count_new(void *node, void *arg)
{
	struct id_pass *p = arg;
	struct node_hdr *n = node;
	uint64_t hi, lo;
	unsigned int plen;
	int ti = node_key(n, &hi, &lo, &plen);

	if (!lpm_find(p->old->lpm[ti], hi, lo, plen))
		p->nnew[n->kind]++;
}

static void take_id(void *node, void *arg)
{
	struct id_pass *p = arg;

	node_take_id(p->c, p->old, node);
}

int srv6_cache_publish(struct srv6_cache *c, struct srv6_tables *t)
{
	struct id_pass p = { .c = c };
	struct srv6_tables *old;
	bool was_online;
	int ret = 0, i, k;

	if (!c || !t)
		return -EINVAL;
	was_online = writer_lock(c);
	old = c->cur;
	p.old = old;
	for (i = 0; i < T_MAX; i++)
		lpm_foreach(t->lpm[i], count_new, &p);
	for (k = 0; k < K_MAX && !ret; k++)
		ret = ctr_reserve(c, k, ids_needed(c, k, p.nnew[k]));
	if (ret)
		goto out_unlock; /* @t untouched, still the caller's */
	for (i = 0; i < T_MAX; i++)
		lpm_foreach(t->lpm[i], take_id, &p);
	swap_and_wait(c, t);
	srv6_tables_free(old);
out_unlock:
	writer_unlock(c, was_online);
	return ret;
}

/* Copy-update of one prefix in table @ti: @n added/replacing, or deleted. */
static int cache_update(struct srv6_cache *c, int ti, uint64_t hi, uint64_t lo,
			unsigned int plen, struct node_hdr *n)
{
	struct lpm_gc gc = { .n = 0 };
	struct srv6_tables *old, *nt;
	struct lpm *nl;
	bool was_online;
	int ret;

	was_online = writer_lock(c);
	old = c->cur;
	if (n) {
		int k = n->kind;

		if (!lpm_find(old->lpm[ti], hi, lo, plen)) {
			ret = ctr_reserve(c, k, ids_needed(c, k, 1));
			if (ret)
				goto out_unlock;
		}
		node_take_id(c, old, n);
	}
	nt = malloc(sizeof(*nt));
	if (!nt) {
		ret = -ENOMEM;
		goto out_put_id;
	}
	*nt = *old;
	if (n)
		ret = lpm_cow_set(old->lpm[ti], hi, lo, plen, n, &nl, &gc);
	else
		ret = lpm_cow_del(old->lpm[ti], hi, lo, plen, &nl, &gc);
	if (ret)
		goto out_free_tables;
	nt->lpm[ti] = nl;
	lpm_gc_add(&gc, LPM_GC_RAW, old, sizeof(*old));
	swap_and_wait(c, nt);
	lpm_gc_run(&gc, node_put);
	writer_unlock(c, was_online);
	return 0;

out_free_tables:
	free(nt);
out_put_id:
	if (n) {
		id_put(c, n->kind, *node_id(n));
		n->c = NULL;
	}
out_unlock:
	writer_unlock(c, was_online);
	return ret;
}

int srv6_cache_sid_set(struct srv6_cache *c, const struct in6_addr *prefix,
		       uint8_t plen, const struct srv6_sid_cfg *cfg)
{
	struct node_hdr *n;
	uint64_t hi, lo;
	int ret;

	if (!c || !prefix || !cfg || plen > 128)
		return -EINVAL;
	n = sid_node_new(prefix, plen, cfg, &hi, &lo);
	if (!n)
		return -ENOMEM;
	ret = cache_update(c, T_SID, hi, lo, plen, n);
	if (ret)
		node_free(n);
	return ret;
}

int srv6_cache_sid_del(struct srv6_cache *c, const struct in6_addr *prefix,
		       uint8_t plen)
{
	uint64_t hi, lo;

	if (!c || !prefix || plen > 128)
		return -EINVAL;
	key6(prefix, &hi, &lo);
	return cache_update(c, T_SID, hi, lo, plen, NULL);
}

int srv6_cache_policy_set(struct srv6_cache *c, int family, const void *prefix,
			  uint8_t plen, const struct srv6_policy *pol)
{
	struct node_hdr *n;
	uint64_t hi, lo;
	int ti, ret;

	if (!c || !prefix || !pol)
		return -EINVAL;
	ti = pol_table(family, plen);
	if (ti < 0)
		return ti;
	n = pol_node_new(family, prefix, plen, pol, &hi, &lo);
	if (!n)
		return -ENOMEM;
	ret = cache_update(c, ti, hi, lo, plen, n);
	if (ret)
		node_free(n);
	return ret;
}

int srv6_cache_policy_del(struct srv6_cache *c, int family, const void *prefix,
			  uint8_t plen)
{
	uint64_t hi, lo;
	int ti;

	if (!c || !prefix)
		return -EINVAL;
	ti = pol_table(family, plen);
	if (ti < 0)
		return ti;
	if (family == AF_INET) {
		struct in_addr a;

		memcpy(&a, prefix, sizeof(a));
		key4(&a, &hi, &lo);
	} else {
		struct in6_addr a;

		memcpy(&a, prefix, sizeof(a));
		key6(&a, &hi, &lo);
	}
	return cache_update(c, ti, hi, lo, plen, NULL);
}

void srv6_cache_counters(struct srv6_cache *c, bool policy, uint32_t id,
			 struct srv6_counters *out)
{
	const struct ctr_dir *d = __atomic_load_n(&c->ctr[policy].dir, __ATOMIC_ACQUIRE);
	uint64_t *o = (uint64_t *)out;
	unsigned int w;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (id / CTR_CHUNK >= d->nchunks)
		return;
	for (w = 0; w < c->nworkers; w++) {
		uint64_t *p = (uint64_t *)ctr_slot(d, w, id);

		for (i = 0; i < sizeof(*out) / sizeof(*o); i++)
			o[i] += __atomic_load_n(&p[i], __ATOMIC_RELAXED);
	}
}

struct foreach_ctx {
	void (*sid_fn)(const struct srv6_sid_entry *e, void *arg);
	void (*pol_fn)(const struct srv6_policy_entry *e, void *arg);
	void *arg;
};

static void foreach_node(void *node, void *arg)
{
	struct foreach_ctx *x = arg;
	struct node_hdr *h = node;

	if (h->kind == K_SID)
		x->sid_fn(&((struct sid_node *)h)->e, x->arg);
	else
		x->pol_fn(&((struct pol_node *)h)->e, x->arg);
}

/*
 * An online reader iterates under its read section; any other thread (the
 * writer, an unregistered control thread) holds wlock, which keeps the
 * current snapshot from being replaced and freed.
 */
static void cache_foreach(struct srv6_cache *c, int t0, int t1, struct foreach_ctx *x)
{
	bool online = rcu_read_ongoing();
	struct srv6_tables *t;
	int i;

	if (!online)
		pthread_mutex_lock(&c->wlock);
	t = srv6_rcu_deref(c->cur);
	for (i = t0; i <= t1; i++)
		lpm_foreach(t->lpm[i], foreach_node, x);
	if (!online)
		pthread_mutex_unlock(&c->wlock);
}

void srv6_cache_foreach_sid(struct srv6_cache *c,
			    void (*fn)(const struct srv6_sid_entry *e, void *arg),
			    void *arg)
{
	struct foreach_ctx x = { .sid_fn = fn, .arg = arg };

	cache_foreach(c, T_SID, T_SID, &x);
}

void srv6_cache_foreach_policy(struct srv6_cache *c,
			       void (*fn)(const struct srv6_policy_entry *e, void *arg),
			       void *arg)
{
	struct foreach_ctx x = { .pol_fn = fn, .arg = arg };

	cache_foreach(c, T_POL4, T_POL6, &x);
}

/* ---- readers ---- */

void srv6_reader_register(void)
{
	rcu_register_thread();
}

void srv6_reader_unregister(void)
{
	srv6_tsan_qs();
	rcu_unregister_thread();
}

void srv6_reader_quiescent(void)
{
	srv6_tsan_qs();
	rcu_quiescent_state();
}

void srv6_reader_offline(void)
{
	srv6_tsan_qs();
	rcu_thread_offline();
}

void srv6_reader_online(void)
{
	rcu_thread_online();
}

/* The lookup of every mode; @ti is the table, the key is ready. */
static inline struct node_hdr *cache_lookup(struct srv6_cache *c, int ti,
					    uint64_t hi, uint64_t lo, bool noref)
{
	struct node_hdr *h;

	switch (c->mode) {
	case SRV6_LOOKUP_RWLOCK:
		pthread_rwlock_rdlock(&c->rw);
		h = lpm_lookup(srv6_rcu_deref(c->cur)->lpm[ti], hi, lo);
		if (h && !noref)
			node_get(h);
		pthread_rwlock_unlock(&c->rw);
		return h;
	case SRV6_LOOKUP_REFCOUNT:
		h = lpm_lookup(srv6_rcu_deref(c->cur)->lpm[ti], hi, lo);
		if (h) {
			/* dst_hold/dst_release: a write to the entry's shared
			 * cache line on every lookup, even a noref one. */
			node_get(h);
			if (noref)
				node_drop(h);
		}
		return h;
	case SRV6_LOOKUP_RCU:
	default:
		h = lpm_lookup(srv6_rcu_deref(c->cur)->lpm[ti], hi, lo);
		if (h && !noref)
			node_get(h);
		return h;
	}
}

const struct srv6_sid_entry *srv6_sid_lookup(struct srv6_cache *c,
					     const struct in6_addr *daddr,
					     bool noref)
{
	struct node_hdr *h;
	uint64_t hi, lo;

	key6(daddr, &hi, &lo);
	h = cache_lookup(c, T_SID, hi, lo, noref);
	return h ? &((struct sid_node *)h)->e : NULL;
}

const struct srv6_policy_entry *srv6_policy_lookup(struct srv6_cache *c, int family,
						   const void *daddr, bool noref)
{
	struct node_hdr *h;
	uint64_t hi, lo;
	int ti;

	if (family == AF_INET) {
		struct in_addr a;

		memcpy(&a, daddr, sizeof(a));
		key4(&a, &hi, &lo);
		ti = T_POL4;
	} else if (family == AF_INET6) {
		struct in6_addr a;

		memcpy(&a, daddr, sizeof(a));
		key6(&a, &hi, &lo);
		ti = T_POL6;
	} else {
		return NULL;
	}
	h = cache_lookup(c, ti, hi, lo, noref);
	return h ? &((struct pol_node *)h)->e : NULL;
}

void srv6_entry_put(struct srv6_cache *c, const void *entry)
{
	(void)c;
	if (entry)
		node_put((char *)entry - NODE_OFF);
}

struct srv6_counters *srv6_counters_slot(struct srv6_cache *c, unsigned int worker,
					 bool policy, uint32_t id)
{
	const struct ctr_dir *d = __atomic_load_n(&c->ctr[policy].dir, __ATOMIC_ACQUIRE);

	if (worker >= c->nworkers || id / CTR_CHUNK >= d->nchunks)
		return NULL;
	return ctr_slot(d, worker, id);
}
