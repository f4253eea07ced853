#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tools/debug-kernel/run-oracle.sh [baseline|noref] - the oracle suite (the
# namespace tests that compare srv6d with the kernel's seg6local: ORACLE_NET
# in tests/check.sh) on a debug kernel built by build.sh, in the VM
# (tests/vm/run.sh), as root, from the top of the tree:
#
#   tools/debug-kernel/run-oracle.sh noref
#
# The guest's kernel log (its dmesg after the suite, and its console) goes to
# $OUT/KIND/dmesg-oracle.txt and console-oracle.txt; after the run both are
# searched for a kernel report of any kind (KASAN, lockdep and
# RCU, UBSAN, refcount and ref_tracker, a WARN or BUG, a device whose
# references never drop): one fails the run, as a failed test does.  The
# reinjection suite on these kernels is `make reinject KERNEL=...` (its tests
# check the log themselves).  Not CI: on 2 cores under TCG this takes about
# an hour a kernel (the checkers make a test 3-4x slower).
#   ORACLE_NET="test_oracle.sh ..."  other tests (default: tests/check.sh's)
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
KIND=${1:-noref}
OUT=$(realpath -m -- "${OUT:-/var/cache/srv6d-vm/debug}")
BUILD=$(realpath -m -- "${BUILD:-$TOP/build}")
case "$KIND" in baseline|noref) ;; *) echo "usage: $0 [baseline|noref]" >&2; exit 2 ;; esac
img=$OUT/$KIND/bzImage
[ -r "$img" ] || { echo "$0: $img missing: tools/debug-kernel/build.sh $KIND" >&2; exit 1; }
[ -x "$BUILD/srv6d" ] || { echo "$0: $BUILD/srv6d missing: make" >&2; exit 1; }
if [ -z "${ORACLE_NET:-}" ]; then
	ORACLE_NET=$(sed -n 's/^ORACLE_NET=\${ORACLE_NET:-\(.*\)}$/\1/p' "$TOP/tests/check.sh")
	[ -n "$ORACLE_NET" ] || { echo "$0: no ORACLE_NET in tests/check.sh" >&2; exit 1; }
fi
console=$OUT/$KIND/console-oracle.txt
rm -f "$console.boot1"
log=$OUT/$KIND/oracle.log
# a kernel report's first line: KREPORT, the reinjection suite's pattern
. "$TOP/tests/reinject/kreport.sh"

start=$(date +%s)
cd "$TOP" || exit 1
# the suite, then the guest's whole kernel log (the console has only what
# is at loglevel 4 or worse: an oops, a KASAN report; lockdep and WARN
# reports are KERN_WARNING)
# shellcheck disable=SC2016  # expanded in the guest
# (a log buffer an hour of tests does not wrap)
KERNEL=$img MODULES=none VM_CONSOLE=$console VM_TIMEOUT=${VM_TIMEOUT:-10800} \
	VM_APPEND="log_buf_len=32M ${VM_APPEND:-}" tests/vm/run.sh env \
	BUILD="$BUILD" SEG6_VECTORS_PARTS=kernel CHECK_SUITES="net oracle" CHECK_NET="$ORACLE_NET" \
	SRV6D_VM=1 sh -c 'tests/check.sh; rc=$?; echo "# ---- guest dmesg"; dmesg --color=never; exit $rc' 2>&1 |
	tr -d '\r' | tee "$log" | sed -u '/^# ---- guest dmesg$/,$d'
rc=${PIPESTATUS[0]}
secs=$(( $(date +%s) - start ))
sed -n '/^# ---- guest dmesg$/,$p' "$log" | tail -n +2 >"$OUT/$KIND/dmesg-oracle.txt"
# (colour codes out: the 2026-12-07 logs were coloured, "rcu: INFO" split by one)
# (console.boot1: a first boot that died, tests/vm/run.sh booted again)
reports=$(cat "$console" "$console.boot1" "$OUT/$KIND/dmesg-oracle.txt" 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' |
	grep -E "$KREPORT" | sort -u | head -20)
echo "# run-oracle: $KIND kernel, $secs s, exit $rc; kernel log $OUT/$KIND/dmesg-oracle.txt" \
	"($(wc -l <"$OUT/$KIND/dmesg-oracle.txt") lines), console $console"
bad=0
if [ -n "$reports" ]; then
	echo "# run-oracle: kernel reports:"
	echo "$reports" | sed 's/^/#   /'
	bad=1
fi
if [ ! -s "$OUT/$KIND/dmesg-oracle.txt" ]; then
	echo "# run-oracle: the guest's kernel log did not come back (a panic or a timeout: see $console)"
	bad=1
fi
[ "$bad" = 0 ] || exit 1
echo "# run-oracle: no kernel report in the log"
exit "$rc"
