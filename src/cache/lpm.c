// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lpm.c - per-prefix-length chunked hash tables with copy-update; see lpm.h
 * for the structure and the cost of each operation.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lpm.h"

/* Resize the directory of an ltab when the average chunk leaves this band. */
#define CHUNK_MAX_AVG (2 * LPM_CHUNK_TARGET)
#define CHUNK_MIN_AVG (LPM_CHUNK_TARGET / 4)
#define CHUNK_MIN_CAP 4u

_Static_assert((LPM_CHUNK_TARGET & (LPM_CHUNK_TARGET - 1)) == 0,
	       "LPM_CHUNK_TARGET must be a power of two");

void lpm_poison_free(void *p, size_t n)
{
	if (!p)
		return;
#ifndef NDEBUG
	/* A stale reader then sees 0x6b bytes (plen 107, absurd pointers). */
	memset(p, 0x6b, n);
#else
	(void)n;
#endif
	free(p);
}

/* murmur3's 64-bit finaliser: a bijection with full avalanche. */
static inline uint64_t fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/*
 * 128-bit key -> 64-bit hash.  Full avalanche matters: the chunk index
 * comes from the high half and the slot from the low half, and real keys
 * vary in few bits (an IPv4 /24 in 24 bits at the top of hi, lo = 0); a
 * weaker mixer made the slot a function of the chunk index (measured: 20
 * probes per chunk instead of ~1.5).
 */
static inline uint64_t key_hash(uint64_t hi, uint64_t lo)
{
	return fmix64(hi ^ fmix64(lo ^ 0x9e3779b97f4a7c15ULL));
}

static inline uint32_t chunk_index(const struct lpm_ltab *t, uint64_t h)
{
	return (uint32_t)(h >> 32) & (t->nchunks - 1);
}

void lpm_mask(unsigned int plen, uint64_t *mhi, uint64_t *mlo)
{
	*mhi = plen == 0 ? 0 : plen >= 64 ? ~0ULL : ~0ULL << (64 - plen);
	*mlo = plen <= 64 ? 0 : plen >= 128 ? ~0ULL : ~0ULL << (128 - plen);
}

/* ---- chunks ---- */

static size_t chunk_size(uint32_t cap)
{
	return sizeof(struct lpm_chunk) + (size_t)cap * sizeof(struct lpm_slot);
}

static size_t chunk_bytes(const struct lpm_chunk *c)
{
	return chunk_size(c->mask + 1);
}

/* Capacity keeping the load at or under 1/2, so a probe always ends. */
static uint32_t cap_for(uint32_t n)
{
	uint32_t cap = CHUNK_MIN_CAP;

	while (cap < 2 * n)
		cap <<= 1;
	return cap;
}

static struct lpm_chunk *chunk_alloc(uint32_t cap)
{
	struct lpm_chunk *c = calloc(1, chunk_size(cap));

	if (c)
		c->mask = cap - 1;
	return c;
}

static void chunk_put(struct lpm_chunk *c, uint64_t h, uint64_t hi, uint64_t lo,
		      void *node)
{
	uint32_t i;

	for (i = (uint32_t)h & c->mask; c->s[i].node; i = (i + 1) & c->mask)
		;
	c->s[i].hi = hi;
	c->s[i].lo = lo;
	c->s[i].node = node;
	c->count++;
}

static struct lpm_slot *chunk_find(const struct lpm_chunk *c, uint64_t h,
				   uint64_t hi, uint64_t lo)
{
	uint32_t i;

	for (i = (uint32_t)h & c->mask; c->s[i].node; i = (i + 1) & c->mask)
		if (c->s[i].hi == hi && c->s[i].lo == lo)
			return (struct lpm_slot *)&c->s[i];
	return NULL;
}

/*
 * A new chunk of capacity @cap with the slots of @old (may be NULL) except
 * (skip_hi, skip_lo) when @skip.  Slots are re-hashed: cheap, C entries.
 */
static struct lpm_chunk *chunk_rebuild(const struct lpm_chunk *old, uint32_t cap,
				       bool skip, uint64_t skip_hi, uint64_t skip_lo)
{
	struct lpm_chunk *c = chunk_alloc(cap);
	uint32_t i;

	if (!c || !old)
		return c;
	for (i = 0; i <= old->mask; i++) {
		const struct lpm_slot *s = &old->s[i];

		if (!s->node || (skip && s->hi == skip_hi && s->lo == skip_lo))
			continue;
		chunk_put(c, key_hash(s->hi, s->lo), s->hi, s->lo, s->node);
	}
	return c;
}

/* ---- per-length tables ---- */

static size_t ltab_size(uint32_t nchunks)
{
	return sizeof(struct lpm_ltab) + (size_t)nchunks * sizeof(struct lpm_chunk *);
}

static size_t ltab_bytes(const struct lpm_ltab *t)
{
	return ltab_size(t->nchunks);
}

static struct lpm_ltab *ltab_alloc(unsigned int plen, uint32_t nchunks)
{
	struct lpm_ltab *t = calloc(1, ltab_size(nchunks));

	if (!t)
		return NULL;
	t->plen = (uint8_t)plen;
	t->nchunks = nchunks;
	lpm_mask(plen, &t->mhi, &t->mlo);
	return t;
}

static struct lpm_ltab *ltab_copy(const struct lpm_ltab *t)
{
	struct lpm_ltab *n = malloc(ltab_bytes(t));

	if (n)
		memcpy(n, t, ltab_bytes(t));
	return n;
}

static void ltab_free_deep(struct lpm_ltab *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; i < t->nchunks; i++)
		if (t->chunk[i])
			lpm_poison_free(t->chunk[i], chunk_bytes(t->chunk[i]));
	lpm_poison_free(t, ltab_bytes(t));
}

static uint32_t nchunks_for(uint32_t n)
{
	uint32_t k = 1;

	while (k < (1u << 30) && (uint64_t)k * LPM_CHUNK_TARGET < n)
		k <<= 1;
	return k;
}

static bool ltab_needs_resize(const struct lpm_ltab *t)
{
	if ((uint64_t)t->count > (uint64_t)t->nchunks * CHUNK_MAX_AVG)
		return nchunks_for(t->count) > t->nchunks;
	return t->nchunks > 1 && t->count < t->nchunks * CHUNK_MIN_AVG;
}

/* A new ltab with @nchunks chunks holding every entry of @t; O(n). */
static struct lpm_ltab *ltab_rebuild(const struct lpm_ltab *t, uint32_t nchunks)
{
	struct lpm_ltab *n = ltab_alloc(t->plen, nchunks);
	uint32_t *cnt, i, j;

	if (!n)
		return NULL;
	cnt = calloc(nchunks, sizeof(*cnt));
	if (!cnt)
		goto out_free_ltab;
	for (i = 0; i < t->nchunks; i++) {
		const struct lpm_chunk *c = t->chunk[i];

		for (j = 0; c && j <= c->mask; j++)
			if (c->s[j].node)
				cnt[chunk_index(n, key_hash(c->s[j].hi, c->s[j].lo))]++;
	}
	for (i = 0; i < nchunks; i++) {
		if (!cnt[i])
			continue;
		n->chunk[i] = chunk_alloc(cap_for(cnt[i]));
		if (!n->chunk[i])
			goto out_free_cnt;
	}
	for (i = 0; i < t->nchunks; i++) {
		const struct lpm_chunk *c = t->chunk[i];

		for (j = 0; c && j <= c->mask; j++) {
			const struct lpm_slot *s = &c->s[j];
			uint64_t h;

			if (!s->node)
				continue;
			h = key_hash(s->hi, s->lo);
			chunk_put(n->chunk[chunk_index(n, h)], h, s->hi, s->lo, s->node);
		}
	}
	n->count = t->count;
	free(cnt);
	return n;

out_free_cnt:
	free(cnt);
out_free_ltab:
	ltab_free_deep(n);
	return NULL;
}

/* ---- the table of lengths ---- */

struct lpm *lpm_new(void)
{
	return calloc(1, sizeof(struct lpm));
}

/* Rebuild order[] (longest first) from bylen[]. */
static void lpm_reorder(struct lpm *l)
{
	int plen;

	l->nlens = 0;
	for (plen = LPM_MAXLEN; plen >= 0; plen--)
		if (l->bylen[plen])
			l->order[l->nlens++] = l->bylen[plen];
	memset(&l->order[l->nlens], 0,
	       (LPM_MAXLEN + 1 - l->nlens) * sizeof(l->order[0]));
}

/* Replace the ltab of length @plen in @l by @t (NULL: remove the length). */
static void lpm_set_ltab(struct lpm *l, unsigned int plen, struct lpm_ltab *t)
{
	bool present = l->bylen[plen] != NULL;
	uint32_t i;

	l->bylen[plen] = t;
	if (present && t) {
		for (i = 0; i < l->nlens; i++)
			if (l->order[i]->plen == plen)
				l->order[i] = t;
		return;
	}
	lpm_reorder(l);
}

void lpm_free(struct lpm *l, void (*node_put)(void *node))
{
	uint32_t i, j, k;

	if (!l)
		return;
	for (i = 0; i < l->nlens; i++) {
		struct lpm_ltab *t = l->order[i];

		for (j = 0; node_put && j < t->nchunks; j++) {
			struct lpm_chunk *c = t->chunk[j];

			for (k = 0; c && k <= c->mask; k++)
				if (c->s[k].node)
					node_put(c->s[k].node);
		}
		ltab_free_deep(t);
	}
	lpm_poison_free(l, sizeof(*l));
}

void *lpm_lookup(const struct lpm *l, uint64_t hi, uint64_t lo)
{
	uint32_t i;

	for (i = 0; i < l->nlens; i++) {
		const struct lpm_ltab *t = l->order[i];
		uint64_t kh = hi & t->mhi, kl = lo & t->mlo;
		uint64_t h = key_hash(kh, kl);
		const struct lpm_chunk *c = t->chunk[chunk_index(t, h)];
		uint32_t j;

		if (!c)
			continue;
		for (j = (uint32_t)h & c->mask; c->s[j].node; j = (j + 1) & c->mask)
			if (c->s[j].hi == kh && c->s[j].lo == kl)
				return c->s[j].node;
	}
	return NULL;
}

void *lpm_find(const struct lpm *l, uint64_t hi, uint64_t lo, unsigned int plen)
{
	const struct lpm_ltab *t;
	const struct lpm_chunk *c;
	const struct lpm_slot *s;
	uint64_t h;

	if (plen > LPM_MAXLEN || !(t = l->bylen[plen]))
		return NULL;
	hi &= t->mhi;
	lo &= t->mlo;
	h = key_hash(hi, lo);
	c = t->chunk[chunk_index(t, h)];
	if (!c)
		return NULL;
	s = chunk_find(c, h, hi, lo);
	return s ? s->node : NULL;
}

int lpm_add(struct lpm *l, uint64_t hi, uint64_t lo, unsigned int plen, void *node)
{
	struct lpm_ltab *t;
	struct lpm_chunk *c;
	bool new_ltab = false;
	uint64_t h;
	uint32_t ci;

	if (plen > LPM_MAXLEN)
		return -EINVAL;
	t = l->bylen[plen];
	if (!t) {
		t = ltab_alloc(plen, 1);
		if (!t)
			return -ENOMEM;
		new_ltab = true;
	}
	hi &= t->mhi;
	lo &= t->mlo;
	h = key_hash(hi, lo);
	ci = chunk_index(t, h);
	c = t->chunk[ci];
	if (c && chunk_find(c, h, hi, lo))
		return -EEXIST;
	if (!c || 2 * (c->count + 1) > c->mask + 1) {
		struct lpm_chunk *nc = chunk_rebuild(c, cap_for(c ? c->count + 1 : 1),
						     false, 0, 0);

		if (!nc) {
			if (new_ltab)
				free(t);
			return -ENOMEM;
		}
		if (c)
			lpm_poison_free(c, chunk_bytes(c));
		t->chunk[ci] = c = nc;
	}
	chunk_put(c, h, hi, lo, node);
	t->count++;
	l->count++;
	if (new_ltab)
		lpm_set_ltab(l, plen, t);
	if (ltab_needs_resize(t)) {
		struct lpm_ltab *n = ltab_rebuild(t, nchunks_for(t->count));

		/* On ENOMEM keep the crowded but correct table. */
		if (n) {
			lpm_set_ltab(l, plen, n);
			ltab_free_deep(t);
		}
	}
	return 0;
}

void lpm_gc_add(struct lpm_gc *gc, enum lpm_gc_kind kind, void *p, size_t size)
{
	if (!p)
		return;
	if (gc->n >= LPM_GC_MAX)
		abort(); /* a caller reserving too little is a bug, not a runtime case */
	gc->item[gc->n].kind = kind;
	gc->item[gc->n].p = p;
	gc->item[gc->n].size = size;
	gc->n++;
}

void lpm_gc_run(struct lpm_gc *gc, void (*node_put)(void *node))
{
	unsigned int i;

	for (i = 0; i < gc->n; i++) {
		void *p = gc->item[i].p;

		switch (gc->item[i].kind) {
		case LPM_GC_RAW:
			lpm_poison_free(p, gc->item[i].size);
			break;
		case LPM_GC_LPM:
			lpm_poison_free(p, sizeof(struct lpm));
			break;
		case LPM_GC_LTAB:
			lpm_poison_free(p, ltab_bytes(p));
			break;
		case LPM_GC_LTAB_DEEP:
			ltab_free_deep(p);
			break;
		case LPM_GC_CHUNK:
			lpm_poison_free(p, chunk_bytes(p));
			break;
		case LPM_GC_NODE:
			node_put(p);
			break;
		}
	}
	gc->n = 0;
}

/*
 * Common tail of the copy-updates: @nt is the new ltab of @plen in the copy
 * @nl of @old (NULL: the length is gone), @t the old ltab, @oc the old chunk
 * that @nc replaced in @nt.  Resizes the directory when due.
 */
static int cow_finish(const struct lpm *old, struct lpm *nl, struct lpm_ltab *t,
		      struct lpm_ltab *nt, struct lpm_chunk *oc, struct lpm_chunk *nc,
		      unsigned int plen, struct lpm **out, struct lpm_gc *gc)
{
	if (nt && ltab_needs_resize(nt)) {
		struct lpm_ltab *rt = ltab_rebuild(nt, nchunks_for(nt->count));

		if (rt) {
			/* nt and nc were never published: free them now. */
			if (nc)
				free(nc);
			free(nt);
			nt = rt;
			nc = NULL;
			oc = NULL;
			lpm_gc_add(gc, LPM_GC_LTAB_DEEP, t, 0);
			t = NULL;
		}
	}
	lpm_set_ltab(nl, plen, nt);
	lpm_gc_add(gc, LPM_GC_LPM, (void *)old, 0);
	if (t)
		lpm_gc_add(gc, LPM_GC_LTAB, t, 0);
	if (oc)
		lpm_gc_add(gc, LPM_GC_CHUNK, oc, 0);
	*out = nl;
	return 0;
}

int lpm_cow_set(const struct lpm *old, uint64_t hi, uint64_t lo, unsigned int plen,
		void *node, struct lpm **out, struct lpm_gc *gc)
{
	struct lpm_ltab *t, *nt;
	struct lpm_chunk *oc, *nc;
	struct lpm_slot *s;
	struct lpm *nl;
	uint64_t h, mhi, mlo;
	uint32_t ci;

	if (plen > LPM_MAXLEN)
		return -EINVAL;
	lpm_mask(plen, &mhi, &mlo);
	hi &= mhi;
	lo &= mlo;
	h = key_hash(hi, lo);

	nl = malloc(sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	memcpy(nl, old, sizeof(*nl));

	t = old->bylen[plen];
	if (!t) {
		nt = ltab_alloc(plen, 1);
		if (!nt)
			goto out_free_lpm;
		nc = chunk_alloc(CHUNK_MIN_CAP);
		if (!nc) {
			free(nt);
			goto out_free_lpm;
		}
		chunk_put(nc, h, hi, lo, node);
		nt->chunk[0] = nc;
		nt->count = 1;
		nl->count++;
		lpm_set_ltab(nl, plen, nt);
		lpm_gc_add(gc, LPM_GC_LPM, (void *)old, 0);
		*out = nl;
		return 0;
	}

	ci = chunk_index(t, h);
	oc = t->chunk[ci];
	s = oc ? chunk_find(oc, h, hi, lo) : NULL;
	if (s) {
		/* Replace: same layout, one slot's node differs. */
		nc = malloc(chunk_bytes(oc));
		if (!nc)
			goto out_free_lpm;
		memcpy(nc, oc, chunk_bytes(oc));
		nc->s[s - oc->s].node = node;
	} else {
		uint32_t n = oc ? oc->count + 1 : 1;
		uint32_t cap = oc && 2 * n <= oc->mask + 1 ? oc->mask + 1 : cap_for(n);

		nc = chunk_rebuild(oc, cap, false, 0, 0);
		if (!nc)
			goto out_free_lpm;
		chunk_put(nc, h, hi, lo, node);
	}
	nt = ltab_copy(t);
	if (!nt) {
		free(nc);
		goto out_free_lpm;
	}
	nt->chunk[ci] = nc;
	if (s) {
		lpm_gc_add(gc, LPM_GC_NODE, s->node, 0);
	} else {
		nt->count++;
		nl->count++;
	}
	return cow_finish(old, nl, t, nt, oc, nc, plen, out, gc);

out_free_lpm:
	free(nl);
	return -ENOMEM;
}

int lpm_cow_del(const struct lpm *old, uint64_t hi, uint64_t lo, unsigned int plen,
		struct lpm **out, struct lpm_gc *gc)
{
	struct lpm_ltab *t, *nt = NULL;
	struct lpm_chunk *oc, *nc = NULL;
	struct lpm_slot *s;
	struct lpm *nl;
	uint64_t h, mhi, mlo;
	uint32_t ci;

	if (plen > LPM_MAXLEN)
		return -EINVAL;
	t = old->bylen[plen];
	if (!t)
		return -ENOENT;
	lpm_mask(plen, &mhi, &mlo);
	hi &= mhi;
	lo &= mlo;
	h = key_hash(hi, lo);
	ci = chunk_index(t, h);
	oc = t->chunk[ci];
	s = oc ? chunk_find(oc, h, hi, lo) : NULL;
	if (!s)
		return -ENOENT;

	nl = malloc(sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	memcpy(nl, old, sizeof(*nl));
	nl->count--;

	if (t->count > 1) {
		if (oc->count > 1) {
			nc = chunk_rebuild(oc, cap_for(oc->count - 1), true, hi, lo);
			if (!nc)
				goto out_free_lpm;
		}
		nt = ltab_copy(t);
		if (!nt) {
			free(nc);
			goto out_free_lpm;
		}
		nt->chunk[ci] = nc;
		nt->count--;
	}
	lpm_gc_add(gc, LPM_GC_NODE, s->node, 0);
	return cow_finish(old, nl, t, nt, oc, nc, plen, out, gc);

out_free_lpm:
	free(nl);
	return -ENOMEM;
}

void lpm_foreach(const struct lpm *l, void (*fn)(void *node, void *arg), void *arg)
{
	uint32_t i, j, k;

	for (i = 0; i < l->nlens; i++) {
		const struct lpm_ltab *t = l->order[i];

		for (j = 0; j < t->nchunks; j++) {
			const struct lpm_chunk *c = t->chunk[j];

			for (k = 0; c && k <= c->mask; k++)
				if (c->s[k].node)
					fn(c->s[k].node, arg);
		}
	}
}
