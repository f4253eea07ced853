#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/run.sh - `make bench`: every benchmark, in one run on this machine.
#   cache     cache_bench: the route cache ablation (rcu / refcount / rwlock)
#   hmac      hmac_bench: the per-packet cost of the SRH HMAC check
#   (root only from here: network namespaces)
#   split     run_datapath.sh: End throughput at <= 0.5% loss, kernel
#             seg6local vs the NFQUEUE floor vs srv6d
#   onecore   run_datapath.sh PLACE=onecore: per-packet cost of every case
#             against the minimal End consumer (issue 14)
#   behaviors the same for End.X, End.DX6, End.DT6, End.B6.Encaps, H.Encaps
#             (verdict and inject against the kernel and the minimal consumer
#             doing the same rewrite), End.DX4 and IPv4 H.Encaps (injected)
#   inject    run_inject_paths.sh: the ways of sending an injected packet
#   overload  ovl ovl-napi: goodput at 2x and 5x the loss-free rate; oth*:
#             what the overload setup costs other traffic
#   latency   lat-*: one-way delay at 25 kpps, with RPS and threaded NAPI
#   workers   mw1 mw2: one PE pair with one worker and with two
#   tcp       run_tcp.sh: bulk TCP through End, gso on/off (needs iperf3)
# BENCH_PARTS picks some (default: all, in this order).  Environment: BUILD
# (object dir), CACHE_ARGS (extra cache_bench options), REPEAT (rounds of
# the datapath parts, default 3; the figures in docs/PERFORMANCE.md use 10),
# and run_datapath.sh's own (DUR, ...).  Each part prints its table;
# docs/PERFORMANCE.md explains them.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
PARTS=${BENCH_PARTS:-cache hmac split onecore behaviors inject overload latency workers tcp}
export REPEAT=${REPEAT:-3}
echo "== machine: $(nproc) CPUs, $(uname -r), $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p')"
echo "== net.netfilter.nf_hooks_lwtunnel = $(cat /proc/sys/net/netfilter/nf_hooks_lwtunnel 2>/dev/null || echo absent)"
echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
root=$([ "$(id -u)" -eq 0 ] && echo 1 || echo 0)
for p in $PARTS; do
	case $p in
	cache|hmac) ;;
	*) if [ "$root" = 0 ]; then echo "== $p skipped: needs root (network namespaces)"; continue; fi ;;
	esac
	case $p in
	cache)
		echo "== route cache ablation"
		# shellcheck disable=SC2086
		"$BUILD/bench/cache_bench" ${CACHE_ARGS:-} || rc=1 ;;
	hmac)
		echo "== SRH HMAC check, ns per packet"
		"$BUILD/bench/hmac_bench" || rc=1 ;;
	split)
		echo "== datapath: End throughput at <= 0.5% loss"
		BUILD="$BUILD" REPEAT=1 bench/run_datapath.sh || rc=1 ;;
	onecore)
		echo "== datapath: per-packet cost, everything on one core (REPEAT=$REPEAT)"
		PLACE=onecore BUILD="$BUILD" bench/run_datapath.sh || rc=1 ;;
	behaviors)
		echo "== datapath: the other behaviors, one core (REPEAT=$REPEAT)"
		PLACE=onecore BUILD="$BUILD" bench/run_datapath.sh kernel end srv6d srv6d-inject \
			kernel-x ref-x srv6d-x srv6d-x-inject kernel-dx6 ref-dx6 srv6d-dx6 srv6d-dx6-inject \
			kernel-dt6 ref-dt6 srv6d-dt6 srv6d-dt6-inject kernel-b6 ref-b6 srv6d-b6 srv6d-b6-inject \
			kernel-henc ref-henc srv6d-henc kernel-dx4 srv6d-dx4-inject kernel-henc4 srv6d-henc4 ||
			rc=1 ;;
	inject)
		echo "== injection send paths"
		BUILD="$BUILD" COUNT=300000 REPEAT=$((REPEAT < 5 ? 5 : REPEAT)) bench/run_inject_paths.sh ||
			rc=1 ;;
	overload)
		echo "== overload: goodput at 2x and 5x; what the overload setup costs other traffic"
		BUILD="$BUILD" REPEAT=1 bench/run_datapath.sh ovl ovl-napi || rc=1
		BUILD="$BUILD" bench/run_datapath.sh oth oth-ovl oth-ovl-napi || rc=1 ;;
	latency)
		echo "== added latency at 25 kpps"
		LAT_RATE=25000 BUILD="$BUILD" bench/run_datapath.sh lat-kernel lat-end lat-srv6d \
			lat-kernel-napi lat-end-napi lat-srv6d-napi || rc=1 ;;
	workers)
		echo "== one PE pair, one worker and two"
		BUILD="$BUILD" bench/run_datapath.sh mw1 mw2 || rc=1 ;;
	tcp)
		echo "== TCP through End"
		if command -v iperf3 >/dev/null; then
			BUILD="$BUILD" bench/run_tcp.sh || rc=1
		else
			echo "== tcp skipped: iperf3 is not installed (apt-get install iperf3)"
		fi ;;
	*)
		echo "bench/run.sh: unknown part \"$p\" (cache hmac split onecore behaviors inject overload latency workers tcp)" >&2
		rc=1 ;;
	esac
done
exit $rc
