/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lpm.h - longest-prefix match over 128-bit keys for the route cache
 * (internal to src/cache).
 *
 * Structure: one hash table per prefix length in use ("ltab"), visited
 * longest first (so an exact /128 SID is the first probe).  A table is a
 * directory of 2^k pointers to small open-addressing chunks (about
 * LPM_CHUNK_TARGET entries, load <= 1/2, linear probing); the top hash bits
 * pick the chunk, the low bits the slot.  Keys are stored in the slots, so
 * a probe touches the directory, one chunk and, on a hit, the node.
 *
 * Immutability: a published struct lpm and everything reachable from it is
 * never written.  lpm_cow_set/lpm_cow_del build a new struct lpm that shares
 * every untouched ltab and chunk with the old one and list in a struct
 * lpm_gc the pieces the old one does not share any more; the caller frees
 * those after a grace period.  Cost of one change, n entries at that prefix
 * length, L lengths in use, C = LPM_CHUNK_TARGET:
 *   O(L) (struct lpm copy, 2 KiB) + O(n / C) (directory copy, 8 bytes per
 *   chunk) + O(C) (one chunk rebuilt); a directory resize, O(n), happens when
 *   n has doubled or shrunk eight-fold, so it is amortised O(1).
 * lpm_add (unpublished tables only) inserts in place, amortised O(1).
 *
 * IPv4 keys are hi = address << 32, lo = 0, with prefix lengths <= 32.
 * Nodes are opaque; the caller owns their lifetime through node_put.
 */
#ifndef SRV6D_CACHE_LPM_H
#define SRV6D_CACHE_LPM_H

#include <stddef.h>
#include <stdint.h>

#define LPM_MAXLEN 128
#define LPM_CHUNK_TARGET 32   /* entries per chunk after a directory resize */

struct lpm_slot {
	uint64_t hi, lo;          /* masked prefix */
	void *node;               /* NULL: empty slot */
};

struct lpm_chunk {
	uint32_t count;
	uint32_t mask;            /* capacity - 1, capacity a power of two */
	struct lpm_slot s[];
};

struct lpm_ltab {
	uint64_t mhi, mlo;        /* prefix mask of this length */
	uint32_t count;
	uint32_t nchunks;         /* power of two */
	uint8_t plen;
	struct lpm_chunk *chunk[]; /* NULL: empty chunk */
};

struct lpm {
	uint32_t count;
	uint32_t nlens;
	struct lpm_ltab *order[LPM_MAXLEN + 1]; /* lengths in use, longest first */
	struct lpm_ltab *bylen[LPM_MAXLEN + 1]; /* same tables by length */
};

/* What a copy-update replaced; freed by lpm_gc_run after a grace period. */
enum lpm_gc_kind {
	LPM_GC_RAW,        /* free(p) after poisoning size bytes */
	LPM_GC_LPM,        /* a struct lpm (not its tables) */
	LPM_GC_LTAB,       /* an ltab and its directory (not its chunks) */
	LPM_GC_LTAB_DEEP,  /* an ltab and all its chunks (not the nodes) */
	LPM_GC_CHUNK,
	LPM_GC_NODE,       /* node_put(p) */
};

#define LPM_GC_MAX 8
struct lpm_gc {
	unsigned int n;
	struct {
		enum lpm_gc_kind kind;
		void *p;
		size_t size;
	} item[LPM_GC_MAX];
};

/** lpm_poison_free - fill @n bytes of @p with 0x6b (unless NDEBUG) and free it. */
void lpm_poison_free(void *p, size_t n);

/** lpm_new - an empty table.  NULL on ENOMEM. */
struct lpm *lpm_new(void);
/** lpm_free - free @l, its tables and chunks; node_put(node) for each node. */
void lpm_free(struct lpm *l, void (*node_put)(void *node));

/** lpm_mask - the mask of prefix length @plen (0..128). */
void lpm_mask(unsigned int plen, uint64_t *mhi, uint64_t *mlo);

/**
 * lpm_lookup - the node of the longest prefix covering (hi, lo), or NULL.
 * Reads only; safe on a published table from any reader.
 */
void *lpm_lookup(const struct lpm *l, uint64_t hi, uint64_t lo);
/** lpm_find - the node of exactly (hi, lo)/plen (masked here), or NULL. */
void *lpm_find(const struct lpm *l, uint64_t hi, uint64_t lo, unsigned int plen);

/**
 * lpm_add - insert in place into an UNPUBLISHED table.  (hi, lo) is masked
 * to @plen.  Returns 0, -EEXIST, -ENOMEM (table unchanged on error).
 */
int lpm_add(struct lpm *l, uint64_t hi, uint64_t lo, unsigned int plen, void *node);

/**
 * lpm_cow_set - *@out = a copy of the published @old with (hi, lo)/plen
 * mapped to @node (added or replacing); @old is not modified.  The pieces of
 * @old that *@out does not share (including a replaced node, as
 * LPM_GC_NODE) are appended to @gc (which must have 4 free items).
 * Returns 0 or -ENOMEM (nothing allocated then, @gc unchanged).
 */
int lpm_cow_set(const struct lpm *old, uint64_t hi, uint64_t lo, unsigned int plen,
		void *node, struct lpm **out, struct lpm_gc *gc);
/** lpm_cow_del - as lpm_cow_set, removing the prefix; -ENOENT if absent. */
int lpm_cow_del(const struct lpm *old, uint64_t hi, uint64_t lo, unsigned int plen,
		struct lpm **out, struct lpm_gc *gc);

/** lpm_gc_add - append an item; the caller guarantees room. */
void lpm_gc_add(struct lpm_gc *gc, enum lpm_gc_kind kind, void *p, size_t size);
/** lpm_gc_run - free every item of @gc (after a grace period) and empty it. */
void lpm_gc_run(struct lpm_gc *gc, void (*node_put)(void *node));

/** lpm_foreach - call @fn for every node, longest prefixes first. */
void lpm_foreach(const struct lpm *l, void (*fn)(void *node, void *arg), void *arg);

#endif
