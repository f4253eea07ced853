/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rcu_tsan.h - liburcu QSBR for the route cache, made visible to
 * ThreadSanitizer (internal to src/cache).
 *
 * liburcu 0.13 is not TSan-aware: rcu_assign_pointer/rcu_dereference are a
 * compiler barrier plus a volatile store/load, and the grace period is
 * built from inline-asm fences and a futex inside the uninstrumented
 * library.  TSan therefore sees neither the publish/consume edge nor the
 * "reader's quiescent state happens before the updater's free" edge, and
 * would report the reader's reads of a snapshot as racing with the
 * writer's construction and with its free().  Rather than suppress our own
 * code, we tell TSan the truth:
 *
 *  - Publish/consume: under TSan, srv6_rcu_assign is an __atomic RELEASE
 *    store and srv6_rcu_deref an __atomic ACQUIRE load.  Acquire is stronger
 *    than RCU's dependency ordering, so this is exactly as correct as the
 *    production macros, only slower on weakly ordered CPUs (not on x86).
 *
 *  - Grace period: srv6_tsan_qs() (__tsan_release on one global token) is
 *    called by a reader immediately before each quiescent state, offline
 *    transition and unregistration; srv6_tsan_gp_end() (__tsan_acquire on
 *    the same token) by the writer right after synchronize_rcu() returns.
 *    Why this is sound: synchronize_rcu() returns only after every reader
 *    that was online when it started has passed a quiescent state (or gone
 *    offline) after the start.  Every access a reader made to the old
 *    snapshot precedes, in its program order, that quiescent state and so
 *    the release; the acquire comes later in real time, and TSan's release
 *    accumulates into the token's clock, so the acquire orders every such
 *    access before the free.  It over-approximates (the writer also
 *    acquires releases it did not need) but never invents an edge the
 *    grace period does not provide: a reader that keeps using a noref entry
 *    AFTER its quiescent state is not ordered before the free, and TSan (or
 *    ASan) still reports it.
 *
 * Without -fsanitize=thread these compile to the plain liburcu macros and
 * to nothing.
 */
#ifndef SRV6D_CACHE_RCU_TSAN_H
#define SRV6D_CACHE_RCU_TSAN_H

#define _LGPL_SOURCE
#include <urcu-qsbr.h>

#if defined(__SANITIZE_THREAD__)
#define SRV6_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SRV6_TSAN 1
#endif
#endif

#ifdef SRV6_TSAN
#include <sanitizer/tsan_interface.h>

extern char srv6_tsan_gp_token;

#define srv6_rcu_deref(p)     __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define srv6_rcu_assign(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
static inline void srv6_tsan_qs(void)     { __tsan_release(&srv6_tsan_gp_token); }
static inline void srv6_tsan_gp_end(void) { __tsan_acquire(&srv6_tsan_gp_token); }
#else
#define srv6_rcu_deref(p)     rcu_dereference(p)
#define srv6_rcu_assign(p, v) rcu_assign_pointer(p, v)
static inline void srv6_tsan_qs(void) { }
static inline void srv6_tsan_gp_end(void) { }
#endif

#endif
