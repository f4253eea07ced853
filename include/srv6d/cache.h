/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cache.h - the lock-free RCU route cache: local SIDs (IPv6 LPM), headend
 * policies (IPv4 and IPv6 LPM) and per-worker counters.
 *
 * Model (liburcu QSBR flavor):
 *  - A struct srv6_tables is an immutable snapshot of every table.  The
 *    writer (control plane, one thread at a time, serialised by the cache's
 *    writer mutex) builds a new snapshot, or copies only the parts a single
 *    change touches, and publishes it with rcu_assign_pointer; then it waits
 *    for a grace period (synchronize_rcu) and frees what was replaced.  A
 *    reader sees the old snapshot or the new one, never a mix.
 *  - Entries are reference counted: the snapshot holding an entry owns one
 *    reference, a noref = false lookup takes another.  An entry that a
 *    snapshot dropped is freed by its last srv6_entry_put().
 *  - Readers (packet workers) are registered QSBR threads.  They call
 *    srv6_reader_quiescent() between batches and go offline around blocking
 *    calls (recv).  Lookups take no lock and write no shared cache line.
 *
 * The noref rule (the kernel's "seg6: skip route refcounts" contract):
 * an entry returned by a lookup with noref = true is valid only until the
 * calling thread's next quiescent state or offline transition.  Anything that
 * outlives that (a verdict deferred past the batch, a held packet) must look
 * up with noref = false, which takes a real reference that must be dropped
 * with srv6_entry_put(), or copy what it needs.
 */
#ifndef SRV6D_CACHE_H
#define SRV6D_CACHE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "headend.h"
#include "seg6.h"

/* How lookups protect entries (the ablation of the kernel patch). */
enum srv6_lookup_mode {
	SRV6_LOOKUP_RCU = 0,   /* RCU, noref: no shared write per packet */
	SRV6_LOOKUP_REFCOUNT,  /* RCU plus an atomic get/put on the entry per
				  lookup, as dst_hold/dst_release did; a noref
				  lookup takes and drops the reference itself */
	SRV6_LOOKUP_RWLOCK,    /* a pthread rwlock around each lookup.  Entries
				  are still freed after a grace period (a noref
				  result outlives the read lock), so readers
				  must be registered in this mode too. */
};

/* Counters of one SID or policy (RFC 8986 §6), per worker, summed on read. */
struct srv6_counters {
	uint64_t packets;      /* processed successfully */
	uint64_t bytes;        /* bytes of those packets, as received */
	uint64_t errors;       /* not processed successfully */
	uint64_t drops[SRV6_DROP_MAX];
};

/* One local SID.  Readers must treat it as const. */
struct srv6_sid_entry {
	struct in6_addr prefix;
	uint8_t plen;
	uint32_t id;           /* counter slot; stable across swaps for a prefix */
	struct srv6_sid_cfg cfg;
};

/* One headend policy. */
struct srv6_policy_entry {
	int family;            /* AF_INET or AF_INET6 */
	union {
		struct in6_addr v6;
		struct in_addr v4;
	} prefix;
	uint8_t plen;
	uint32_t id;           /* counter slot, separate space from SIDs */
	struct srv6_policy pol;
};

struct srv6_cache;      /* the published pointer plus writer state */
struct srv6_tables;     /* a snapshot under construction or published */

/*
 * ---- writer side (control plane) ----
 * Writers are serialised by the cache's writer mutex.  Every function that
 * changes the published snapshot (publish, *_set, *_del) returns only after
 * a grace period, having freed what it replaced (synchronize_rcu, not
 * call_rcu: the control thread need not be a registered reader).  Called
 * from a registered online thread, it goes offline for the duration: that
 * is a quiescent state for the caller, whose noref entries become invalid.
 * Never call a writer function from a foreach callback.
 * Prefixes are stored masked to their length (host bits are ignored, so
 * 2001:db8::1/64 and 2001:db8::/64 are the same prefix).
 */

/**
 * srv6_cache_new - create an empty cache for @nworkers reader slots, using
 * @mode for lookups.  Returns NULL on ENOMEM (errno set).
 */
struct srv6_cache *srv6_cache_new(unsigned int nworkers, enum srv6_lookup_mode mode);

/**
 * srv6_cache_destroy - free everything.  Call after every reader thread has
 * unregistered and every noref = false reference has been put.  The cache
 * queues no call_rcu callbacks (writers wait for their grace period), so
 * there is nothing left for rcu_barrier to wait for.
 */
void srv6_cache_destroy(struct srv6_cache *c);

/** srv6_tables_new - an empty, unpublished snapshot.  NULL on ENOMEM. */
struct srv6_tables *srv6_tables_new(void);
/** srv6_tables_free - free an unpublished snapshot. */
void srv6_tables_free(struct srv6_tables *t);

/**
 * srv6_tables_add_sid / srv6_tables_add_policy - add an entry to an
 * unpublished snapshot.  The cfg/pol is copied.  Returns 0, -EEXIST for a
 * duplicate prefix, -EINVAL for a bad prefix length, -ENOMEM.
 */
int srv6_tables_add_sid(struct srv6_tables *t, const struct in6_addr *prefix,
			uint8_t plen, const struct srv6_sid_cfg *cfg);
int srv6_tables_add_policy(struct srv6_tables *t, int family, const void *prefix,
			   uint8_t plen, const struct srv6_policy *pol);

/**
 * srv6_cache_publish - make @t the snapshot readers see (atomic swap).  Takes
 * ownership of @t; the previous snapshot is freed after a grace period.
 * Counter ids are carried over by prefix, so counters survive a reload.
 * Returns 0, or -ENOMEM with @t untouched and still the caller's.
 */
int srv6_cache_publish(struct srv6_cache *c, struct srv6_tables *t);

/**
 * srv6_cache_sid_set / srv6_cache_sid_del - incremental change of one SID
 * (add or replace; delete), published atomically (copy-update of the
 * affected structure).  -ENOENT when deleting an absent prefix.
 */
int srv6_cache_sid_set(struct srv6_cache *c, const struct in6_addr *prefix,
		       uint8_t plen, const struct srv6_sid_cfg *cfg);
int srv6_cache_sid_del(struct srv6_cache *c, const struct in6_addr *prefix,
		       uint8_t plen);

/**
 * srv6_cache_policy_set / srv6_cache_policy_del - the same for one headend
 * policy of @family (AF_INET, AF_INET6; -EAFNOSUPPORT otherwise).
 */
int srv6_cache_policy_set(struct srv6_cache *c, int family, const void *prefix,
			  uint8_t plen, const struct srv6_policy *pol);
int srv6_cache_policy_del(struct srv6_cache *c, int family, const void *prefix,
			  uint8_t plen);

/**
 * srv6_cache_counters - sum the per-worker counters of SID (or, with
 * @policy, policy) slot @id into @out.  Any thread; values are not a
 * consistent snapshot across fields (as with the kernel's per-CPU counters).
 */
void srv6_cache_counters(struct srv6_cache *c, bool policy, uint32_t id,
			 struct srv6_counters *out);

/**
 * srv6_cache_foreach_sid - call @fn for each SID of the current snapshot,
 * from a registered reader thread or the writer.  Takes the read lock itself.
 */
void srv6_cache_foreach_sid(struct srv6_cache *c,
			    void (*fn)(const struct srv6_sid_entry *e, void *arg),
			    void *arg);
void srv6_cache_foreach_policy(struct srv6_cache *c,
			       void (*fn)(const struct srv6_policy_entry *e, void *arg),
			       void *arg);

/* ---- reader side (packet workers) ---- */

/** srv6_reader_register - make the calling thread a reader (QSBR online). */
void srv6_reader_register(void);
/** srv6_reader_unregister - before the thread exits. */
void srv6_reader_unregister(void);
/** srv6_reader_quiescent - announce a quiescent state: every noref entry
 *  obtained before this call is now invalid. */
void srv6_reader_quiescent(void);
/** srv6_reader_offline / _online - around blocking calls (recv, poll). */
void srv6_reader_offline(void);
void srv6_reader_online(void);

/**
 * srv6_sid_lookup - longest-prefix match of @daddr among local SIDs.
 * Call from a registered, online reader.  With @noref the result is valid
 * until the next srv6_reader_quiescent()/offline; without, the caller owns a
 * reference and must call srv6_entry_put(c, e) (valid across quiescent
 * states).  Returns NULL when no SID matches.
 */
const struct srv6_sid_entry *srv6_sid_lookup(struct srv6_cache *c,
					     const struct in6_addr *daddr,
					     bool noref);

/** srv6_policy_lookup - LPM among policies of @family for @daddr; as above. */
const struct srv6_policy_entry *srv6_policy_lookup(struct srv6_cache *c, int family,
						   const void *daddr, bool noref);

/** srv6_entry_put - drop a reference taken by a lookup with noref = false. */
void srv6_entry_put(struct srv6_cache *c, const void *entry);

/**
 * srv6_counters_slot - the calling worker's private counters for SID (or
 * policy) slot @id (e->id of an entry the worker holds).  @worker is the
 * worker's index < nworkers; NULL if out of range.  The worker is the only
 * writer of its slot: no lock, no read-modify-write atomic.  Count with
 * srv6_counter_add(), which compiles to the same load/add/store as "+=" but
 * is a relaxed atomic store, so the concurrent relaxed loads of
 * srv6_cache_counters() are not a data race (and TSan agrees).
 */
struct srv6_counters *srv6_counters_slot(struct srv6_cache *c, unsigned int worker,
					 bool policy, uint32_t id);

/** srv6_counter_add - *@ctr += @v by its only writer (see srv6_counters_slot). */
static inline void srv6_counter_add(uint64_t *ctr, uint64_t v)
{
	__atomic_store_n(ctr, __atomic_load_n(ctr, __ATOMIC_RELAXED) + v,
			 __ATOMIC_RELAXED);
}

#endif
