#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/run.sh - `make bench`: every benchmark, in one run on this machine.
#   1. cache_bench: the route cache ablation (rcu / refcount / rwlock),
#      then hmac_bench: the per-packet cost of the SRH HMAC check
#   2. run_datapath.sh: End throughput, kernel seg6local vs the NFQUEUE floor
#      vs srv6d (root only: network namespaces)
#   3. run_datapath.sh PLACE=onecore: per-packet cost of every case against
#      the minimal End consumer (issue 14; root only)
# Environment: BUILD (object dir), CACHE_ARGS (extra cache_bench options),
# and run_datapath.sh's own (DUR, REPEAT, ...).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
echo "== machine: $(nproc) CPUs, $(uname -r), $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p')"
echo "== net.netfilter.nf_hooks_lwtunnel = $(cat /proc/sys/net/netfilter/nf_hooks_lwtunnel 2>/dev/null || echo absent)"
echo "== route cache ablation"
# shellcheck disable=SC2086
"$BUILD/bench/cache_bench" ${CACHE_ARGS:-}
rc=$?
echo "== SRH HMAC check, ns per packet"
"$BUILD/bench/hmac_bench" || rc=1
if [ "$(id -u)" -eq 0 ]; then
	echo "== datapath: End throughput at <= 0.5% loss"
	BUILD="$BUILD" bench/run_datapath.sh || rc=1
	echo "== datapath: per-packet cost, everything on one core (REPEAT=${REPEAT:-1})"
	PLACE=onecore BUILD="$BUILD" bench/run_datapath.sh || rc=1
else
	echo "== datapath benchmark skipped: needs root (network namespaces)"
fi
exit $rc
