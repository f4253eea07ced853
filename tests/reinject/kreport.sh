# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/reinject/kreport.sh - KREPORT: the first line of a kernel report of
# any kind, as an extended regular expression.  One pattern for the
# reinjection suite's dmesg_clean (tests/reinject/lib.sh) and for
# tools/debug-kernel/run-oracle.sh, which searches a debug kernel's whole
# log with it: a WARN or BUG (KASAN's reports start "BUG: KASAN:", lockdep's
# RCU one "WARNING: suspicious RCU usage"), an oops or panic, UBSAN,
# refcount_t and ref_tracker, lockdep's lock reports, RCU stalls, hung
# tasks, list corruption, a device whose references never drop.  The boot's
# "RCU lockdep checking is enabled" and "KernelAddressSanitizer initialized"
# are not reports and do not match.
# shellcheck disable=SC2034  # used by the files that source this one
KREPORT='WARNING:|BUG:|kernel BUG at|Oops:|Kernel panic|KASAN:|UBSAN:|ref_tracker:|refcount_t:|suspicious RCU usage|possible circular locking|possible recursive locking|inconsistent lock state|possible irq lock inversion|trying to register non-static key|lock held when returning to user space|unregister_netdevice: waiting|list_del corruption|list_add corruption|general protection|rcu: INFO|self-detected stall|detected stalls|blocked for more than'
