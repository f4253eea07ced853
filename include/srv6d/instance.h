/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * instance.h - what one srv6d owns in its network namespace, and the lock
 * that keeps a second srv6d off it.
 *
 * Each srv6d removes at start whatever a crashed predecessor with the same
 * resources left (next-hop context rules and tables, its steering chain):
 * started with the same resources as a LIVE srv6d, it would tear down that
 * one's routing.  So every srv6d takes, for its lifetime, open-file-description
 * byte-range locks (F_OFD_SETLK, released by the kernel when the process ends,
 * crash included) on SRV6_STEER_STATE_DIR/instances.NETNS, one range per
 * resource: its table range, its mark range, its two rule preferences, its
 * chain name.  Ranges that overlap a running instance's are refused.
 */
#ifndef SRV6D_INSTANCE_H
#define SRV6D_INSTANCE_H

#include <stddef.h>
#include <stdint.h>

struct srv6_instance {
	const char *chain;        /* steer-chain */
	uint32_t mark_base;       /* mark-base: marks base|1 .. base|0xffff */
	uint32_t mark_mask;       /* mark-mask (0: all bits) */
	uint32_t table_base;      /* table-base: tables base+1 .. base+0xffff */
	uint32_t rule_pref;       /* rule-pref: N and N+1 */
};

/**
 * srv6_instance_lock - lock @inst's resources in the calling thread's network
 * namespace.  Returns the lock's file descriptor (keep it open while running;
 * close it to release), or -EBUSY with one line in @err naming the resource
 * another running srv6d holds, or another -errno (the lock file cannot be
 * made: the caller may go on without the protection).  Control thread.
 */
int srv6_instance_lock(const struct srv6_instance *inst, char *err, size_t errlen);

/**
 * srv6_instance_pref_held - whether a running srv6d in the calling thread's
 * network namespace (this one included) holds rule-pref @pref: the lock
 * srv6_instance_lock() took for an instance of that rule-pref, tested
 * (F_OFD_GETLK), never taken.  Returns 1 held, 0 not (no lock file: no srv6d
 * ran here), or -errno when the lock file cannot be read (unknown).
 * Control thread.
 */
int srv6_instance_pref_held(uint32_t pref);

#endif
