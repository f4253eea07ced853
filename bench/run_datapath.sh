#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/run_datapath.sh - first datapath measurement: End throughput at
# <= 0.5% loss for the kernel's seg6local End, the bare NFQUEUE floor
# (bench/nfq_floor: accept without payload, 64 verdicts per sendmsg; floor1:
# one verdict per sendmsg; floorp: 64 per sendmsg, each echoing the packet as
# its payload, the floor of a design that rewrites packets) and srv6d End,
# measured in the same run on the same topology.  With REPEAT=N the modes
# run N times, interleaved, and the table shows each mode's median.
#
#   +-----------+          +-------------------------+          +-----------+
#   | $NS_SRC   |          | $NS_RTR (forwarding=1)  |          | $NS_DST   |
#   |  veth0    +----------+ veth1             veth2 +----------+ veth3     |
#   | fc00:1::1 |          | fc00:1::2     fc00:2::1 |          | fc00:2::2 |
#   +-----------+          +-------------------------+          +-----------+
#   srv6_blast (CPU 0)      SID fc00:ff::1 End                   raw PREROUTING
#   AF_PACKET sendmmsg      consumer pinned to CPU 1             DROP; rx counted
#   IPv6+SRH(fc00:ff::1,    fc00:ff::/64 via fc00:2::2           on veth3
#   fc00:2::2)+UDP          (what the floor accepts unchanged)
#
# Usage: BUILD=build bench/run_datapath.sh [MODES...]
#   MODES: kernel floor floor1 floorp srv6d srv6d-inject ovl ovl-napi ovl-conf
#   ovl-conf-other
#   lat-kernel lat-end lat-srv6d mw1 mw2 (one PE pair with one worker and
#   with two: see run_mw below) oth oth-ovl oth-ovl-napi (what the overload
#   setup costs non-SRv6 traffic: see run_oth below)
#   (default: the first five; srv6d runs `egress verdict`, srv6d-inject
#   `egress inject`; ovl and ovl-napi measure goodput under overload, see
#   run_ovl below; lat-* the one-way delay at LAT_RATE, see lat_run)
# Environment: DUR (seconds per trial, default 2), PAYLOAD (UDP bytes, 64),
#   LOSS (max loss in percent, 0.5), COST_RATE (pps of the CPU-cost trial,
#   100000), REPEAT (runs of every mode, 1), QMAXLEN (NFQUEUE queue length of
#   floor* and srv6d, 4096: a longer queue rides out scheduling stalls of this
#   VM's vCPUs, so the figure measures capacity more than jitter), OUT (also
#   append the table here), SEARCH=0 (skip the throughput search: CPU cost
#   trials only, quick enough to repeat many times).
#   PLACE=onecore: the per-packet cost method of issue 14 instead (see
#   onecore_main below): MODES then also accept fwd (kernel IPv6 forward of
#   the same packets, no SID), end (bench/nfq_end, the minimal consumer
#   doing End itself), floorb (nfq_floor -b: one NFQNL_MSG_VERDICT_BATCH per
#   receive) and srv6d-plain (srv6d under `steer none` with the
#   references' one NFQUEUE rule: srv6d's code without its chain); default
#   modes: fwd kernel floor floorb floorp end srv6d srv6d-inject.  fwd-srv6d: fwd
#   while srv6d runs with an End.X SID elsewhere (its chain and next-hop
#   context rules present: what srv6d's presence costs non-SRv6 traffic);
#   fwd-chain: the same with an End SID (the chain only, no ip rule);
#   fwd-rule1: fwd with one unrelated ip rule and no srv6d.
#   SRV6D_BASE=BINARY (onecore): mode srv6d-base runs srv6d's case with
#   another srv6d binary (a before/after comparison in the same run), mode
#   fwd-srv6d-base fwd-srv6d's.
#   Other behaviors (onecore): kernel-B (the kernel's seg6local/seg6
#   route), ref-B (bench/nfq_behav -a B, the minimal consumer doing B),
#   srv6d-B (egress verdict) and srv6d-B-inject (egress inject) for B = x
#   (End.X), dx6 (End.DX6), b6 (End.B6.Encaps), dt6 (End.DT6 table 100;
#   ref-dt6 is nfq_behav -a dx6 with the mark's table holding the route);
#   kernel-henc, ref-henc and srv6d-henc for a headend policy in encap mode
#   (H.Encaps, always injected).  Their ratios are to kernel-B and ref-B.
#   IPv4 results, injected (no verdict can carry them, no reference
#   consumer): kernel-dx4 and srv6d-dx4-inject (End.DX4 nh4 10.2.0.2),
#   kernel-henc4 and srv6d-henc4 (an IPv4 policy in encap mode); ratios
#   to kernel-B only.
#   PERF_DIR=DIR (onecore): `perf record -a -C 1 -g` during each trial into
#   DIR/perf.MODE.data (the last round's).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac
DUR=${DUR:-2}
PAYLOAD=${PAYLOAD:-64}
LOSS=${LOSS:-0.5}
COST_RATE=${COST_RATE:-100000}
QMAXLEN=${QMAXLEN:-4096}
SEARCH=${SEARCH:-1}
REPEAT=${REPEAT:-1}
PLACE=${PLACE:-split}
if [ "$PLACE" = onecore ]; then
	MODES=${*:-fwd kernel floor floorb floorp end srv6d srv6d-inject}
else
	MODES=${*:-kernel floor floor1 floorp srv6d}
fi

[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 4; }
for t in ip ip6tables taskset; do
	command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 4; }
done
for b in srv6_blast nfq_floor nfq_end; do
	[ -x "$BUILD/bench/$b" ] || { echo "missing $BUILD/bench/$b (make BUILD=... all)"; exit 1; }
done

S="$$-$RANDOM"
NS_SRC=bsrc-$S NS_RTR=brtr-$S NS_DST=bdst-$S
TMPD=$(mktemp -d /tmp/srv6d-bench.XXXXXX)
BGPID=

cleanup() {
	[ -n "$BGPID" ] && kill "$BGPID" 2>/dev/null && wait "$BGPID" 2>/dev/null
	for n in $NS_SRC $NS_RTR $NS_DST; do ip netns del "$n" 2>/dev/null; done
	rm -rf "$TMPD"
}
trap cleanup EXIT

R() { ip netns exec "$NS_RTR" "$@"; }

setup() {
	local n
	for n in $NS_SRC $NS_RTR $NS_DST; do
		ip netns add "$n" || exit 1
		ip -n "$n" link set lo up
	done
	ip link add veth0 netns "$NS_SRC" address 02:00:00:00:00:01 type veth \
		peer name veth1 netns "$NS_RTR" address 02:00:00:00:01:01
	ip link add veth2 netns "$NS_RTR" address 02:00:00:00:01:02 type veth \
		peer name veth3 netns "$NS_DST" address 02:00:00:00:02:01
	ip -n "$NS_SRC" addr add fc00:1::1/64 dev veth0 nodad
	ip -n "$NS_RTR" addr add fc00:1::2/64 dev veth1 nodad
	ip -n "$NS_RTR" addr add fc00:2::1/64 dev veth2 nodad
	ip -n "$NS_DST" addr add fc00:2::2/64 dev veth3 nodad
	for n in "$NS_SRC veth0" "$NS_RTR veth1" "$NS_RTR veth2" "$NS_DST veth3"; do
		set -- $n; ip -n "$1" link set "$2" up
	done
	ip netns exec "$NS_RTR" sysctl -qw net.ipv6.conf.all.forwarding=1 net.ipv4.ip_forward=1
	ip -n "$NS_RTR" neigh add fc00:2::2 lladdr 02:00:00:00:02:01 dev veth2 nud permanent
	# IPv4 (End.DX4, IPv4 policies): dst has no IPv4 address, its stack
	# drops what it receives (counted on veth3 like the rest)
	ip -n "$NS_RTR" addr add 10.2.0.1/24 dev veth2
	ip -n "$NS_RTR" addr add 10.1.0.2/24 dev veth1   # (a route back for rp_filter)
	ip -n "$NS_RTR" neigh add 10.2.0.2 lladdr 02:00:00:00:02:01 dev veth2 nud permanent
	ip -n "$NS_RTR" neigh add fc00:1::1 lladdr 02:00:00:00:00:01 dev veth1 nud permanent
	ip -n "$NS_RTR" -6 route add fc00:ff::/64 via fc00:2::2
	# the segments encapsulations push (End.B6.Encaps, H.Encaps, PLACE=onecore)
	ip -n "$NS_RTR" -6 route add fc00:3::/64 via fc00:2::2
	# CPU 0 generates; all of the router's work (its receive softirq via
	# RPS, and the queue consumer) runs on CPU 1.  Generator and consumer run
	# SCHED_FIFO so other load on the machine disturbs the run less.
	[ "$PLACE" = onecore ] ||
		ip netns exec "$NS_RTR" sh -c 'echo 2 > /sys/class/net/veth1/queues/rx-0/rps_cpus'
	# (dst receives on the CPU that forwards: its raw DROP is cheap)
	ip netns exec "$NS_DST" ip6tables -t raw -A PREROUTING -j DROP
	ip netns exec "$NS_DST" iptables -t raw -A PREROUTING -j DROP
}

rx_dst() { ip netns exec "$NS_DST" cat /sys/class/net/veth3/statistics/rx_packets; }
# cpu1_ticks: "busy total" jiffies of CPU 1 (all but idle and iowait)
cpu1_ticks() { awk '$1 == "cpu1" { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat; }

# drained: wait (at most 10 s) until no packet is left in rtr's queues, so a
# trial neither counts the backlog of the previous one nor starts behind it
drained() {
	local i
	for ((i = 0; i < 100; i++)); do
		R awk '{ s += $3 } END { exit (s > 0) }' /proc/net/netfilter/nfnetlink_queue 2>/dev/null && break
		sleep 0.1
	done
	sleep 0.2
}

# trial RATE -> prints "offered_pps rx_pps loss_percent cpu1_busy_percent
# refused_pps" (refused: packets the veth would not take, see srv6_blast -O)
trial() {
	local rate=$1 before after out sent secs c0 c1 refused a=${GENA:-1}
	before=$(rx_dst)
	c0=$(cpu1_ticks)
	# amplified (GENA=N, veth0's tc program): the generator sends rate / N,
	# each of its packets leaves veth0 N times
	out=$(ip netns exec "$NS_SRC" chrt -f 10 "$BUILD/bench/srv6_blast" -i veth0 -M 02:00:00:00:01:01 \
		-s fc00:1::1 -S fc00:ff::1,fc00:2::2 -l "$PAYLOAD" -r $(((rate + a - 1) / a)) -t "$DUR" -c 0 -F 64 \
		$GENY $GENO $([ "$a" -gt 1 ] && echo "-A $a"))
	c1=$(cpu1_ticks)
	drained
	after=$(rx_dst)
	# open loop (GENO=-O): what was offered, refused by the veth or not
	if [ -n "$GENO" ]; then
		sent=$(echo "$out" | awk '{ for (i = 1; i < NF; i++) if ($i == "offered") print $(i + 1) }')
	else
		sent=$(echo "$out" | awk '{print $2}')
	fi
	refused=$(echo "$out" | awk '{ for (i = 1; i < NF; i++) if ($i == "refused") print $(i + 1) }')
	secs=$(echo "$out" | awk '{print $4}')
	awk -v s="$((sent * a))" -v t="$secs" -v r=$((after - before)) -v c0="$c0" -v c1="$c1" \
		-v f="$((${refused:-0} * a))" 'BEGIN {
		l = s > 0 ? (s - r) * 100 / s : 100; if (l < 0) l = 0;
		split(c0, a, " "); split(c1, b, " ");
		u = b[2] > a[2] ? (b[1] - a[1]) * 100 / (b[2] - a[2]) : 0
		printf "%.0f %.0f %.3f %.1f %.0f\n", s / t, r / t, l, u, f / t }'
}

# search -> prints "RX BUSY LIMITED": the highest rx rate (pps) with loss
# <= LOSS, CPU 1's busy percentage at that rate, and 1 if the generator (not
# the router) was the limit
search() {
	local lo=0 hi=0 rate=50000 res off rx loss busy best=0 bbusy=0 i
	while :; do
		res=$(trial $rate); set -- $res; off=$1 rx=$2 loss=$3 busy=$4
		echo "    offered $off rx $rx loss $loss% cpu1 $busy%" >&2
		if awk -v l="$loss" -v m="$LOSS" 'BEGIN { exit !(l <= m) }'; then
			lo=$rate; best=$rx bbusy=$busy
			# the generator cannot go faster: its rate is the answer
			if awk -v o="$off" -v r="$rate" 'BEGIN { exit !(o < 0.9 * r) }'; then
				echo "    (generator limit)" >&2; echo "$best $bbusy 1"; return
			fi
			rate=$((rate * 3 / 2))
		else
			hi=$rate; break
		fi
		[ $rate -gt 5000000 ] && { echo "$best $bbusy 1"; return; }
	done
	for i in 1 2 3 4 5; do
		rate=$(((lo + hi) / 2))
		[ $((hi - lo)) -lt 10000 ] && break
		res=$(trial $rate); set -- $res; off=$1 rx=$2 loss=$3 busy=$4
		echo "    offered $off rx $rx loss $loss% cpu1 $busy%" >&2
		if awk -v l="$loss" -v m="$LOSS" 'BEGIN { exit !(l <= m) }'; then
			lo=$rate; [ "${rx%.*}" -gt "$best" ] && best=$rx bbusy=$busy
		else
			hi=$rate
		fi
	done
	echo "$best $bbusy 0"
}

# cost: CPU 1's busy time per packet forwarded, in ns, at COST_RATE pps
# offered (below every NFQUEUE mode's capacity): all of the router's work
# (softirq, consumer, kernel work in its syscalls) whoever it is charged to.
# Less disturbed by the machine's other load than a throughput.
cost() {
	local c0 c1 r0 r1
	c0=$(cpu1_ticks); r0=$(rx_dst)
	ip netns exec "$NS_SRC" chrt -f 10 "$BUILD/bench/srv6_blast" -i veth0 -M 02:00:00:00:01:01 \
		-s fc00:1::1 -S fc00:ff::1,fc00:2::2 -l "$PAYLOAD" -r "$COST_RATE" -t "$DUR" -c 0 -F 64 >/dev/null
	c1=$(cpu1_ticks)
	drained
	r1=$(rx_dst)
	awk -v c0="$c0" -v c1="$c1" -v n=$((r1 - r0)) -v hz="$(getconf CLK_TCK)" 'BEGIN {
		split(c0, a, " "); split(c1, b, " ")
		printf "%.0f\n", (n > 0 ? (b[1] - a[1]) / hz * 1e9 / n : 0) }'
}

# search_if: the throughput search, unless SEARCH=0 (CPU cost trials only)
search_if() { if [ "$SEARCH" = 0 ]; then echo "0 0 0"; else search; fi; }

start_bg() { # start_bg CMD... in rtr; waits briefly for it to bind
	ip netns exec "$NS_RTR" chrt -f 10 "$@" >"$TMPD/bg.out" 2>&1 &
	BGPID=$!
	sleep 0.5
}
stop_bg() {
	[ -n "$BGPID" ] || return
	kill -TERM "$BGPID" 2>/dev/null; wait "$BGPID" 2>/dev/null
	BGPID=
}

# ---------------------------------------------------------------------------
# Overload (split placement), modes ovl and ovl-napi: srv6d End, throughput
# at <= LOSS, then goodput when offering 2x and 5x that rate.
#   ovl:      the defaults: rtr's receive softirq on CPU 1 (RPS), the worker
#             SCHED_OTHER on CPU 1 (worker-sched other).
#   ovl-napi: rtr's ingress veth in threaded NAPI mode (GRO on, which gives
#             veth a NAPI context; `threaded` 1; RPS off), its NAPI thread
#             pinned to CPU 1, the worker `worker-sched fifo 10` on CPU 1.
#   ovl-conf: what an operator gets from the one documented conf line alone,
#             `ingress-napi threaded dev veth1`, which implies `worker-sched
#             fifo 10` (srv6d sets threaded NAPI and RPS 0 itself and puts
#             them back at stop; its NAPI thread is not pinned), with GRO on
#             veth1 (a veth has NAPI only with GRO: the prerequisite srv6d
#             names).
#   ovl-conf-other: the same line with `worker-sched other`: threaded NAPI
#             alone, the worker SCHED_OTHER.
# All of them offer open loop (srv6_blast -O): with threaded NAPI the
# veth's ring holds the sender's packets until the router takes them, its
# socket's send buffer fills, and a blocking sender would offer only what
# the router takes (about 1x); open loop counts what it could not hand over
# as offered and lost, as a NIC drops at its ring.
# And amplified (OVL_AMP, default 8; 1 turns it off): src's veth0 sends each
# of the generator's packets OVL_AMP times (bench/bpf/amp.c, srv6_blast -A),
# for every trial of these modes, the search's as well: the generator alone,
# one system call per 32 packets, cannot offer 5x what a worker takes on
# this 2-vCPU machine (about 1x through a threaded-NAPI veth); the copies
# cost CPU 0 a clone and a veth transmit each.  What the veth refuses
# (its ring full) is lost, counted against goodput as before.
# ---------------------------------------------------------------------------
napi_on() { # on failure undoes what it did: the next modes run as set up
	local p
	if R "$PY" "$PWD/bench/veth_gro.py" veth1 1 &&
		R sh -c 'echo 0 > /sys/class/net/veth1/queues/rx-0/rps_cpus; echo 1 > /sys/class/net/veth1/threaded' &&
		# the newest one: kernel threads have no namespace, other veth1s exist
		p=$(pgrep -n '^napi/veth1-') && taskset -pc 1 "$p" >/dev/null; then
		return 0
	fi
	napi_off 2>/dev/null
	return 1
}
napi_off() {
	R sh -c 'echo 0 > /sys/class/net/veth1/threaded; echo 2 > /sys/class/net/veth1/queues/rx-0/rps_cpus'
	R "$PY" "$PWD/bench/veth_gro.py" veth1 0
}
PY=${PY:-/usr/bin/python3}
# end_conf EGRESS [LINE...]: srv6d's conf for a case, one queue on CPU 1,
# `egress EGRESS`, then each LINE (default: the End SID fc00:ff::1)
end_conf() {
	local egress=$1
	shift
	{
		printf 'queue 0\nqueue-maxlen %s\nsteer auto\ncpu-affinity 1\n' "$QMAXLEN"
		printf 'control-socket none\negress %s\n' "$egress"
		if [ $# -eq 0 ]; then echo "sid fc00:ff::1 action End"; else printf '%s\n' "$@"; fi
	} >"$TMPD/srv6d.conf"
}
# ovl_srv6d SCHED [LINE...]: srv6d End on CPU 1 with `worker-sched SCHED` (none
# when SCHED is empty)
# (no chrt: the worker's policy is the conf's) and each LINE, in the
# background (BGPID)
ovl_srv6d() {
	local sched=$1
	shift
	if [ -n "$sched" ]; then
		end_conf verdict "worker-sched $sched" "$@" "sid fc00:ff::1 action End"
	else
		end_conf verdict "$@" "sid fc00:ff::1 action End"
	fi
	ip netns exec "$NS_RTR" "$BUILD/srv6d" -f -c "$TMPD/srv6d.conf" -s "$TMPD/stats" \
		>"$TMPD/bg.out" 2>&1 &
	BGPID=$!
	sleep 1
}
declare -A OVL2 OVL5 OVLA
OVL_AMP=${OVL_AMP:-8}
amp_on() { # amp_on N: veth0's tc program, GENA=N; GENA=1 when it cannot
	GENA=1
	[ "$1" -gt 1 ] || return 0
	if ip netns exec "$NS_SRC" tc qdisc add dev veth0 clsact &&
		ip netns exec "$NS_SRC" tc filter add dev veth0 egress bpf direct-action \
			obj "$BUILD/bench/amp.bpf.o" sec tc; then
		GENA=$1
	else
		echo "    cannot attach $BUILD/bench/amp.bpf.o to veth0: the generator alone" >&2
		ip netns exec "$NS_SRC" tc qdisc del dev veth0 clsact 2>/dev/null
	fi
}
amp_off() {
	[ "$GENA" -gt 1 ] && ip netns exec "$NS_SRC" tc qdisc del dev veth0 clsact
	GENA=1
}
run_ovl() { # run_ovl MODE
	local m=$1 rate r2 r5
	# open loop: what the sender cannot hand over (its send buffer full
	# while the veth's ring holds its packets) counts as offered and lost
	GENO=-O
	amp_on "$OVL_AMP"
	OVLA[$m]=$GENA
	if [ "$m" = ovl-napi ]; then
		napi_on || { echo "    cannot enable threaded NAPI on veth1" >&2; RES[$m]="0 0 0"; GENO=; amp_off; return; }
	fi
	R ip -6 route del fc00:ff::/64
	if [ "$m" = ovl-conf ] || [ "$m" = ovl-conf-other ]; then
		R "$PY" "$PWD/bench/veth_gro.py" veth1 1
		# ovl-conf: the one line (worker-sched fifo 10 implied);
		# ovl-conf-other: the same with the worker left SCHED_OTHER
		if [ "$m" = ovl-conf ]; then
			ovl_srv6d "" "ingress-napi threaded dev veth1"
		else
			ovl_srv6d other "ingress-napi threaded dev veth1"
		fi
		if ! R grep -qx 1 /sys/class/net/veth1/threaded; then
			echo "    srv6d did not set threaded NAPI on veth1: $(tail -3 "$TMPD/bg.out")" >&2
			stop_bg; R "$PY" "$PWD/bench/veth_gro.py" veth1 0
			R ip -6 route add fc00:ff::/64 via fc00:2::2
			RES[$m]="0 0 0"; GENO=; amp_off; return
		fi
		echo "    srv6d's threads (policy prio name): $(ps -L -o cls=,rtprio=,comm= -p "$BGPID" |
			sort | uniq -c | tr -s ' ' | tr '\n' ';')" >&2
	else
		ovl_srv6d "$([ "$m" = ovl-napi ] && echo fifo 10 || echo other)"
	fi
	RES[$m]=$(search)
	set -- ${RES[$m]}; rate=${1%.*}
	r2=$(trial $((rate * 2))); r5=$(trial $((rate * 5)))
	echo "    2x: offered/rx/loss/cpu1/refused $r2   5x: $r5" >&2
	set -- $r2; OVL2[$m]="${OVL2[$m]:-}${OVL2[$m]:+ }$1:$2"
	set -- $r5; OVL5[$m]="${OVL5[$m]:-}${OVL5[$m]:+ }$1:$2"
	stop_bg
	GENO=
	amp_off
	echo "    srv6d stats: $(grep -h '^queue' "$TMPD/stats" 2>/dev/null | tr '\n' ';')" >&2
	[ "$m" = ovl-napi ] && napi_off
	if [ "$m" = ovl-conf ] || [ "$m" = ovl-conf-other ]; then
		echo "    after srv6d's stop: veth1 threaded $(R cat /sys/class/net/veth1/threaded)," \
			"rps_cpus $(R cat /sys/class/net/veth1/queues/rx-0/rps_cpus)" >&2
		R "$PY" "$PWD/bench/veth_gro.py" veth1 0
	fi
	R ip -6 route add fc00:ff::/64 via fc00:2::2
}
GENO= GENA=1

# ---------------------------------------------------------------------------
# What the overload setup costs other traffic (split placement), modes oth
# (the kernel's seg6local End), oth-ovl (srv6d's defaults, as ovl) and
# oth-ovl-napi (the overload setup, as ovl-napi): non-SRv6 traffic, plain
# IPv6 to fc00:6::2 that rtr forwards through the same ingress veth, at
# OTH_RATE pps (srv6_blast -T -P: one packet per call, its send time in the
# payload; lat_sink on dst: one-way delay), while End traffic is offered at
# each rate of OTH_LOAD (pps, 0: none).  Per load: the plain packets'
# delivery and p50/p99, and the End goodput.
# ---------------------------------------------------------------------------
OTH_RATE=${OTH_RATE:-5000}
OTH_LOAD=${OTH_LOAD:-0 100000 300000}
declare -A OTH
run_oth() { # run_oth MODE
	local m=$1 load out sent got before after gpid spid
	if [ "$m" = oth-ovl-napi ]; then
		napi_on || { echo "    cannot enable threaded NAPI on veth1" >&2; return; }
	fi
	R ip -6 route del fc00:ff::/64
	R ip -6 route add fc00:6::/64 via fc00:2::2
	case $m in
	oth)
		R ip -6 route add fc00:ff::1/128 encap seg6local action End dev veth2
		;;
	*)
		ovl_srv6d "$([ "$m" = oth-ovl-napi ] && echo fifo 10 || echo other)"
		;;
	esac
	for load in $OTH_LOAD; do
		# the sink at a higher real-time priority than generator and
		# worker: starved, its socket would drop what the path delivered
		ip netns exec "$NS_DST" chrt -f 20 "$BUILD/bench/lat_sink" -i veth3 -o 62 -d fc00:6::2 \
			-t $((DUR + 2)) \
			>"$TMPD/lat.out" 2>&1 &
		spid=$!
		sleep 0.5
		before=$(rx_dst)
		gpid=
		if [ "$load" -gt 0 ]; then
			ip netns exec "$NS_SRC" chrt -f 10 "$BUILD/bench/srv6_blast" -i veth0 \
				-M 02:00:00:00:01:01 -s fc00:1::1 -S fc00:ff::1,fc00:2::2 -l "$PAYLOAD" \
				-r "$load" -t "$DUR" -c 0 -F 64 -y >"$TMPD/flood.out" &
			gpid=$!
		fi
		out=$(ip netns exec "$NS_SRC" chrt -f 10 "$BUILD/bench/srv6_blast" -i veth0 \
			-M 02:00:00:00:01:01 -s fc00:1::1 -S fc00:6::2 -P -l "$PAYLOAD" -r "$OTH_RATE" \
			-t "$DUR" -c 0 -T)
		[ -n "$gpid" ] && wait "$gpid"
		wait "$spid"
		drained
		after=$(rx_dst)
		sent=$(echo "$out" | awk '{print $2}')
		set -- $(grep '^packets' "$TMPD/lat.out")
		got=${2:-0}
		# load goodput: what dst received beyond the plain packets
		local gp=$(( (after - before - got) / DUR ))
		local line="$load $sent $got ${4:-0} ${8:-0} $gp"
		echo "    $m, End offered $load pps: plain sent $sent got $got p50 ${4:-0} us p99 ${8:-0} us (sink drops ${12:-?}); End goodput $gp pps" >&2
		OTH[$m:$load]="${OTH[$m:$load]:-}${OTH[$m:$load]:+;}$line"
	done
	if [ "$m" = oth ]; then
		R ip -6 route del fc00:ff::1/128
	else
		stop_bg
		echo "    srv6d stats: $(grep -h '^queue' "$TMPD/stats" 2>/dev/null | cut -c1-200)" >&2
		[ "$m" = oth-ovl-napi ] && napi_off
	fi
	R ip -6 route del fc00:6::/64
	R ip -6 route add fc00:ff::/64 via fc00:2::2
}

# ---------------------------------------------------------------------------
# Added latency (split placement), modes lat-kernel and lat-srv6d: End at
# LAT_RATE pps (default 50000, about half of srv6d's loss-free rate here),
# srv6_blast -T stamping each burst with CLOCK_REALTIME, bench/lat_sink on
# dst's veth3 reading the kernel's receive timestamp: one-way delay
# percentiles through rtr (generator send path and dst's receive included,
# the same for both modes; -T sends one packet per call).
# ---------------------------------------------------------------------------
LAT_RATE=${LAT_RATE:-50000}
declare -A LAT
lat_run() { # lat_run MODE
	local m=$1 out
	ip netns exec "$NS_DST" "$BUILD/bench/lat_sink" -i veth3 -o 102 -t $((DUR + 2)) >"$TMPD/lat.out" 2>&1 &
	local spid=$!
	sleep 0.5
	ip netns exec "$NS_SRC" chrt -f 10 "$BUILD/bench/srv6_blast" -i veth0 -M 02:00:00:00:01:01 \
		-s fc00:1::1 -S fc00:ff::1,fc00:2::2 -l "$PAYLOAD" -r "$LAT_RATE" -t "$DUR" -c 0 -F 64 -T >/dev/null
	wait "$spid"
	out=$(grep '^packets' "$TMPD/lat.out")
	echo "    $m at $LAT_RATE pps: $out" >&2
	LAT[$m]="${LAT[$m]:-}${LAT[$m]:+;}$out"
}

# ---------------------------------------------------------------------------
# Two workers for one PE pair (split placement's search), modes mw1 and mw2:
# srv6d End for one outer source/destination carrying 64 flows (UDP source
# ports behind the SRH).  --queue-balance hashes the addresses only, so one
# pair is one queue; mw2 spreads it: RPS on rtr's ingress veth over CPUs 0
# and 1 (the kernel's flow hash: the outer flow label when set, else the
# headers behind the SRH), `queue-cpu-fanout yes` (the queue is the
# receiving CPU's), queues 0-1 with `cpu-affinity 0,1`.  mw1: one queue,
# RPS and worker on CPU 1, as the srv6d case.  In both the generator (CPU 0,
# SCHED_FIFO 10) yields after each burst and while it waits for its pace
# (-y), and the workers run SCHED_FIFO 10 (start_bg): in mw2 the worker on
# CPU 0 shares that CPU with the generator, which is what a 2-core machine
# allows.
# ---------------------------------------------------------------------------
GENY=
run_mw() { # run_mw MODE
	local m=$1
	[ -x "$BUILD/srv6d" ] || { echo "    no $BUILD/srv6d" >&2; RES[$m]="0 0 0"; return; }
	if [ "$m" = mw2 ]; then
		R sh -c 'echo 3 > /sys/class/net/veth1/queues/rx-0/rps_cpus'
	fi
	cat >"$TMPD/srv6d.conf" <<-EOF
	queue $([ "$m" = mw2 ] && echo 0-1 || echo 0)
	queue-maxlen $QMAXLEN
	$([ "$m" = mw2 ] && echo "queue-cpu-fanout yes")
	steer auto
	cpu-affinity $([ "$m" = mw2 ] && echo 0,1 || echo 1)
	control-socket none
	egress verdict
	sid fc00:ff::1 action End
	EOF
	GENY=-y
	start_bg "$BUILD/srv6d" -f -c "$TMPD/srv6d.conf" -s "$TMPD/stats"
	RES[$m]=$(search_if)
	GENY=
	stop_bg
	echo "    srv6d stats: $(grep -h '^queue' "$TMPD/stats" 2>/dev/null | tr '\n' ';')" >&2
	R sh -c 'echo 2 > /sys/class/net/veth1/queues/rx-0/rps_cpus'
}

# run_lat MODE: lat_run for End in the kernel (lat-kernel), the minimal
# consumer (lat-end) or srv6d (lat-srv6d); -napi: with rtr's ingress veth
# in threaded NAPI mode, RPS off (as ovl-napi)
run_lat() {
	local m=$1 b=${1%-napi}
	if [ "$b" != "$m" ]; then
		napi_on || { echo "    cannot enable threaded NAPI on veth1" >&2; return; }
	fi
	case $b in
	lat-kernel)
		ip -n "$NS_RTR" -6 route add fc00:ff::1/128 encap seg6local action End dev veth2
		lat_run "$m"
		ip -n "$NS_RTR" -6 route del fc00:ff::1/128
		;;
	lat-end)
		R ip -6 route del fc00:ff::/64
		R ip6tables -t raw -A PREROUTING -d fc00:ff::1/128 -j NFQUEUE --queue-num 0
		start_bg "$BUILD/bench/nfq_end" -q 0 -c 1 -m "$QMAXLEN"
		lat_run "$m"
		stop_bg
		R ip6tables -t raw -D PREROUTING -d fc00:ff::1/128 -j NFQUEUE --queue-num 0
		R ip -6 route add fc00:ff::/64 via fc00:2::2
		;;
	lat-srv6d)
		R ip -6 route del fc00:ff::/64
		end_conf verdict
		start_bg "$BUILD/srv6d" -f -c "$TMPD/srv6d.conf" -s "$TMPD/stats"
		sleep 0.5
		lat_run "$m"
		stop_bg
		R ip -6 route add fc00:ff::/64 via fc00:2::2
		;;
	esac
	[ "$b" != "$m" ] && napi_off
	return 0
}

declare -A RES ALL COST CALL
run_mode() {
	local m=$1
	echo "== $m" >&2
	case $m in
	lat-kernel|lat-kernel-napi|lat-end|lat-end-napi|lat-srv6d|lat-srv6d-napi)
		run_lat "$m"
		RES[$m]="0 0 0"; COST[$m]=-
		;;
	ovl|ovl-napi|ovl-conf|ovl-conf-other)
		run_ovl "$m"
		COST[$m]=-
		;;
	oth|oth-ovl|oth-ovl-napi)
		run_oth "$m"
		RES[$m]="0 0 0"; COST[$m]=-
		;;
	mw1|mw2)
		run_mw "$m"
		COST[$m]=-
		;;
	kernel)
		ip -n "$NS_RTR" -6 route add fc00:ff::1/128 encap seg6local action End dev veth2
		RES[$m]=$(search_if)
		COST[$m]=$(cost)
		echo "    CPU 1 per packet at $COST_RATE pps: ${COST[$m]} ns" >&2
		ip -n "$NS_RTR" -6 route del fc00:ff::1/128
		;;
	floor|floor1|floorp)
		R ip6tables -t raw -A PREROUTING -d fc00:ff::1/128 -j NFQUEUE --queue-num 0
		case $m in
		floor)  start_bg "$BUILD/bench/nfq_floor" -q 0 -c 1 -m "$QMAXLEN" ;;
		floor1) start_bg "$BUILD/bench/nfq_floor" -q 0 -c 1 -m "$QMAXLEN" -1 ;;
		floorp) start_bg "$BUILD/bench/nfq_floor" -q 0 -c 1 -m "$QMAXLEN" -p ;;
		esac
		RES[$m]=$(search_if)
		COST[$m]=$(cost)
		echo "    CPU 1 per packet at $COST_RATE pps: ${COST[$m]} ns" >&2
		stop_bg
		echo "    nfq_floor: $(cat "$TMPD/bg.out")" >&2
		R ip6tables -t raw -D PREROUTING -d fc00:ff::1/128 -j NFQUEUE --queue-num 0
		;;
	srv6d|srv6d-inject)
		[ -x "$BUILD/srv6d" ] || { echo "    no $BUILD/srv6d" >&2; RES[$m]=0; return; }
		end_conf "$([ "$m" = srv6d-inject ] && echo inject || echo verdict)"
		start_bg "$BUILD/srv6d" -f -c "$TMPD/srv6d.conf" -s "$TMPD/stats"
		RES[$m]=$(search_if)
		COST[$m]=$(cost)
		echo "    CPU 1 per packet at $COST_RATE pps: ${COST[$m]} ns" >&2
		stop_bg
		echo "    srv6d stats: $(tr '\n' ';' <"$TMPD/stats" 2>/dev/null)" >&2
		;;
	esac
}

# ---------------------------------------------------------------------------
# PLACE=onecore: everything on CPU 1 (generator, rtr's receive softirq, which
# runs in the generator's sendmmsg with RPS off, the consumer, dst's drop),
# generator unpaced and yielding after each 32-packet burst, generator and
# consumer SCHED_FIFO 10 (same priority: the yield hands the CPU to the
# consumer).  For each repetition every mode runs in a fresh set of
# namespaces (the kernel never clears a namespace's custom-rules flag once
# an ip rule was added, so srv6d's rules must not leak into the next case),
# and so does a baseline, "gen+drop": the same generator with rtr dropping
# everything in raw PREROUTING.  Router cost per packet:
#   ns = 1e9 / delivered_pps - 1e9 / gendrop_pps
# and packets per core = 1e9 / ns.  Ratios are to the same round's figures.
# ---------------------------------------------------------------------------
# oc_cpu PID: user + system seconds of PID (all threads) and of ksoftirqd/1
# (softirq work deferred there is the router's too)
oc_cpu() {
	local k hz
	hz=$(getconf CLK_TCK)
	k=$(pgrep -x ksoftirqd/1 | head -1)
	{ [ -n "$1" ] && cat "/proc/$1/stat" 2>/dev/null; [ -n "$k" ] && cat "/proc/$k/stat"; } |
		sed 's/.*) //' | awk -v hz="$hz" '{ s += $12 + $13 } END { printf "%.3f", s / hz }'
}
# oc_shape MODE: the packet shape MODE's generator sends (srh: IPv6 + SRH of
# 2 segments + UDP; dx6: IPv6 + SRH of 1 segment, Segments Left 0, + IPv6 +
# UDP; plain: IPv6 + UDP for a headend policy), which has its own gen+drop
# baseline per round
oc_shape() {
	case $1 in
	*-dx6|*-dx6-inject|*-dt6|*-dt6-inject|gendrop-dx6) echo dx6 ;;
	*-dx4|*-dx4-inject|gendrop-dx4) echo dx4 ;;
	*-henc|gendrop-plain) echo plain ;;
	*-henc4|gendrop-plain4) echo plain4 ;;
	*) echo srh ;;
	esac
}
# oc_gen MODE: srv6_blast's segment arguments for MODE.  End.X and
# End.B6.Encaps: the next segment fc00:5::2 has no route in rtr's main table
# (End.X must use its next hop; End.B6.Encaps pushes the policy in front of
# it); End.DX6: the inner destination is fc00:5::2 too; policies: fc00:4::2.
# End.DX4: the inner destination is nh4 itself (10.2.0.2): the kernel's
# End.DX4 resolves the inner destination's neighbour when nh4 is on a
# connected subnet (docs/BEHAVIORS.md), so a host beyond nh4 would never be
# reached in kernel-dx4.
oc_gen() {
	case $1 in
	*-x|*-x-inject|*-b6|*-b6-inject) echo "-S fc00:ff::1,fc00:5::2" ;;
	*-dx6|*-dx6-inject|*-dt6|*-dt6-inject|gendrop-dx6) echo "-S fc00:ff::1 -D fc00:5::2" ;;
	*-dx4|*-dx4-inject|gendrop-dx4) echo "-S fc00:ff::1 -4 10.2.0.2" ;;
	*-henc|gendrop-plain) echo "-S fc00:4::2 -P" ;;
	*-henc4|gendrop-plain4) echo "-S fc00:4::2 -P -4 10.4.0.2" ;;
	*) echo "-S fc00:ff::1,fc00:2::2" ;;
	esac
}
oc_blast() { # oc_blast GENDROP_MODE -> "sent_pps cpu_ns_per_sent"
	local c0 c1 out
	c0=$(oc_cpu "")
	out=$(ip netns exec "$NS_SRC" chrt -f 10 "$BUILD/bench/srv6_blast" -i veth0 -M 02:00:00:00:01:01 \
		-s fc00:1::1 $(oc_gen "$1") -l "$PAYLOAD" -r 0 -t "$DUR" -c 1 -y -F 64)
	c1=$(oc_cpu "")
	echo "$out" | awk -v c0="$c0" -v c1="$c1" '{ printf "%.0f %.0f\n", $6, ($8 + c1 - c0) * 1e9 / $2 }'
}
oc_trial() { # oc_trial MODE -> "sent_pps rx_pps cpu_ns_per_delivered"
	local before after out secs ppid= c0 c1
	before=$(rx_dst)
	c0=$(oc_cpu "$BGPID")
	if [ -n "${PERF_DIR:-}" ]; then
		perf record -q -a -C 1 -g -o "$PERF_DIR/perf.$1.data" >/dev/null 2>&1 &
		ppid=$!
		sleep 2   # perf's start-up (symbol tables) must not miss the trial
	fi
	out=$(ip netns exec "$NS_SRC" chrt -f 10 "$BUILD/bench/srv6_blast" -i veth0 -M 02:00:00:00:01:01 \
		-s fc00:1::1 $(oc_gen "$1") -l "$PAYLOAD" -r 0 -t "$DUR" -c 1 -y -F 64)
	[ -n "$ppid" ] && kill -INT "$ppid" && wait "$ppid"
	drained
	c1=$(oc_cpu "$BGPID")
	after=$(rx_dst)
	secs=$(echo "$out" | awk '{print $4}')
	echo "$out" | awk -v r=$((after - before)) -v t="$secs" -v c0="$c0" -v c1="$c1" \
		'{ printf "%.0f %.0f %.0f\n", $6, r / t, (r > 0 ? ($8 + c1 - c0) * 1e9 / r : 0) }'
}
oc_rules() { ip -n "$NS_RTR" -6 rule show | grep -vc -e '^0:.*lookup local' -e '^32766:' -e '^32767:'; }
oc_start() { # oc_start CMD... in rtr, pinned to CPU 1, SCHED_FIFO 10
	ip netns exec "$NS_RTR" chrt -f 10 taskset -c 1 "$@" >"$TMPD/bg.out" 2>&1 &
	BGPID=$!
	sleep 0.5
}
oc_mode() { # oc_mode MODE -> "delivered_pps sent_pps rules"
	local m=$1 res rules=0 line
	setup
	case $m in
	gendrop|gendrop-dx6|gendrop-plain|gendrop-dx4|gendrop-plain4)
		R ip6tables -t raw -A PREROUTING -j DROP
		R iptables -t raw -A PREROUTING -j DROP
		res=$(oc_blast $m); set -- $res; res="$1 $1 $2"
		;;
	kernel-x|kernel-dx6|kernel-b6|kernel-henc|kernel-dt6|kernel-dx4|kernel-henc4)
		# the kernel's seg6local / seg6 route for the behavior
		case $m in
		kernel-dt6) R ip -6 route add default via fc00:2::2 dev veth2 table 100
			    R ip -6 route add fc00:ff::1/128 encap seg6local action End.DT6 table 100 dev veth2 ;;
		kernel-dx4) R ip -6 route add fc00:ff::1/128 encap seg6local action End.DX4 nh4 10.2.0.2 dev veth2 ;;
		kernel-henc4) R ip route add 10.4.0.0/24 encap seg6 mode encap segs fc00:3::1,fc00:3::2 dev veth2 ;;
		kernel-x)   R ip -6 route add fc00:ff::1/128 encap seg6local action End.X nh6 fc00:2::2 dev veth2 ;;
		kernel-dx6) R ip -6 route add fc00:ff::1/128 encap seg6local action End.DX6 nh6 fc00:2::2 dev veth2 ;;
		kernel-b6)  R ip -6 route add fc00:ff::1/128 encap seg6local action End.B6.Encaps \
				srh segs fc00:3::1,fc00:3::2 dev veth2 ;;
		kernel-henc) R ip -6 route add fc00:4::/64 encap seg6 mode encap segs fc00:3::1,fc00:3::2 dev veth2 ;;
		esac
		res=$(oc_trial $m)
		;;
	ref-x|ref-dx6|ref-b6|ref-henc|ref-dt6)
		# bench/nfq_behav: the minimal consumer doing the behavior; End.X
		# and End.DX6 mark the verdict, and one ip rule sends the mark
		# to the next hop's table (srv6d's next-hop context)
		R ip -6 route del fc00:ff::/64
		case $m in
		ref-x|ref-dx6|ref-dt6)
			# (End.DT6's lookup in table 100 is the mark's table:
			# the same minimal consumer as End.DX6)
			R ip -6 route add default via fc00:2::2 dev veth2 table 100
			R ip -6 rule add pref 100 fwmark 0x1 lookup 100
			R ip6tables -t raw -A PREROUTING -d fc00:ff::1/128 -j NFQUEUE --queue-num 0
			b=${m#ref-}; [ "$b" = dt6 ] && b=dx6
			oc_start "$BUILD/bench/nfq_behav" -q 0 -m "$QMAXLEN" -k 1 -a "$b"
			;;
		ref-b6)
			R ip6tables -t raw -A PREROUTING -d fc00:ff::1/128 -j NFQUEUE --queue-num 0
			oc_start "$BUILD/bench/nfq_behav" -q 0 -m "$QMAXLEN" -a b6 \
				-s fc00:2::1 -S fc00:3::1,fc00:3::2
			;;
		ref-henc)
			# queued before routing by destination, the simplest
			# headend (srv6d: the FIB routes to srv6d0, queued at
			# mangle POSTROUTING, injected)
			R ip6tables -t raw -A PREROUTING -d fc00:4::/64 -j NFQUEUE --queue-num 0
			oc_start "$BUILD/bench/nfq_behav" -q 0 -m "$QMAXLEN" -a encap \
				-s fc00:2::1 -S fc00:3::1,fc00:3::2
			;;
		esac
		res=$(oc_trial $m)
		stop_bg
		echo "    $m: $(cat "$TMPD/bg.out")" >&2
		;;
	srv6d-x|srv6d-x-inject|srv6d-dx6|srv6d-dx6-inject|srv6d-b6|srv6d-b6-inject|srv6d-henc|\
	srv6d-dt6|srv6d-dt6-inject|srv6d-dx4-inject|srv6d-henc4)
		R ip -6 route del fc00:ff::/64
		case $m in
		srv6d-dt6*) R ip -6 route add default via fc00:2::2 dev veth2 table 100
			    line="sid fc00:ff::1 action End.DT6 table 100" ;;
		srv6d-dx4*) line="sid fc00:ff::1 action End.DX4 nh4 10.2.0.2" ;;
		srv6d-henc4) line="route 10.4.0.0/24 encap seg6 mode encap segs fc00:3::1,fc00:3::2" ;;
		srv6d-x*)   line="sid fc00:ff::1 action End.X nh6 fc00:2::2" ;;
		srv6d-dx6*) line="sid fc00:ff::1 action End.DX6 nh6 fc00:2::2" ;;
		srv6d-b6*)  line="sid fc00:ff::1 action End.B6.Encaps srh segs fc00:3::1,fc00:3::2" ;;
		srv6d-henc) line="route fc00:4::/64 encap seg6 mode encap segs fc00:3::1,fc00:3::2" ;;
		esac
		end_conf "$(case $m in *-inject|srv6d-henc|srv6d-henc4) echo inject ;; *) echo verdict ;; esac)" \
			"$line"
		oc_start "$BUILD/srv6d" -f -c "$TMPD/srv6d.conf" -s "$TMPD/stats"
		sleep 0.5
		rules=$(oc_rules)
		res=$(oc_trial $m)
		stop_bg
		echo "    $m stats: $(grep -h -e '^queue' -e 'drop' "$TMPD/stats" 2>/dev/null | grep -v ' 0$' | tr '\n' ';' | cut -c1-300)" >&2
		;;
	fwd)
		ip -n "$NS_RTR" -6 route add fc00:ff::1/128 via fc00:2::2
		res=$(oc_trial $m)
		;;
	fwd-rule1)
		# fwd with one unrelated custom ip rule: the kernel leaves its
		# no-custom-rules fast path (what any rule costs, srv6d's or not)
		ip -n "$NS_RTR" -6 route add fc00:ff::1/128 via fc00:2::2
		ip -n "$NS_RTR" -6 rule add pref 500 fwmark 0x1234 lookup 100
		res=$(oc_trial $m)
		;;
	fwd-srv6d|fwd-chain|fwd-srv6d-base)
		# kernel forward of the same (non-SID) traffic while srv6d runs
		# with a SID elsewhere: its chain (every packet jumps into it)
		# and, for fwd-srv6d (End.X: a next-hop context), its ip rules
		ip -n "$NS_RTR" -6 route add fc00:ff::1/128 via fc00:2::2
		cat >"$TMPD/srv6d.conf" <<-EOF
		queue 0
		steer auto
		cpu-affinity 1
		control-socket none
		sid fc00:ee::1 action $([ "$m" = fwd-chain ] && echo End || echo "End.X nh6 fc00:2::2")
		EOF
		oc_start "$([ "$m" = fwd-srv6d-base ] && echo "${SRV6D_BASE:?}" || echo "$BUILD/srv6d")" \
			-f -c "$TMPD/srv6d.conf" -s "$TMPD/stats"
		sleep 0.5
		rules=$(oc_rules)
		res=$(oc_trial $m)
		stop_bg
		;;
	kernel)
		ip -n "$NS_RTR" -6 route add fc00:ff::1/128 encap seg6local action End dev veth2
		res=$(oc_trial $m)
		;;
	floor|floor1|floorp|floorb|end)
		R ip6tables -t raw -A PREROUTING -d fc00:ff::1/128 -j NFQUEUE --queue-num 0
		case $m in
		floor)  oc_start "$BUILD/bench/nfq_floor" -q 0 -m "$QMAXLEN" ;;
		floorb) oc_start "$BUILD/bench/nfq_floor" -q 0 -m "$QMAXLEN" -b ;;
		floor1) oc_start "$BUILD/bench/nfq_floor" -q 0 -m "$QMAXLEN" -1 ;;
		floorp) oc_start "$BUILD/bench/nfq_floor" -q 0 -m "$QMAXLEN" -p ;;
		end)    # End rewrites the DA: no kernel route for the SID needed
			ip -n "$NS_RTR" -6 route del fc00:ff::/64
			oc_start "$BUILD/bench/nfq_end" -q 0 -m "$QMAXLEN" ;;
		esac
		res=$(oc_trial $m)
		stop_bg
		echo "    $m: $(cat "$TMPD/bg.out")" >&2
		;;
	srv6d|srv6d-inject|srv6d-plain|srv6d-base)
		ip -n "$NS_RTR" -6 route del fc00:ff::/64
		# srv6d-plain: steer none and the references' single rule
		# instead of srv6d's chain (the cost of the chain)
		[ "$m" = srv6d-plain ] &&
			R ip6tables -t raw -A PREROUTING -d fc00:ff::1/128 -j NFQUEUE --queue-num 0
		cat >"$TMPD/srv6d.conf" <<-EOF
		queue 0
		queue-maxlen $QMAXLEN
		steer $([ "$m" = srv6d-plain ] && echo none || echo auto)
		cpu-affinity 1
		control-socket none
		egress $([ "$m" = srv6d-inject ] && echo inject || echo verdict)
		sid fc00:ff::1 action End
		EOF
		oc_start "$([ "$m" = srv6d-base ] && echo "${SRV6D_BASE:?}" || echo "$BUILD/srv6d")" \
			-f -c "$TMPD/srv6d.conf" -s "$TMPD/stats"
		sleep 0.5
		rules=$(oc_rules)
		res=$(oc_trial $m)
		stop_bg
		;;
	esac
	for n in $NS_SRC $NS_RTR $NS_DST; do ip netns del "$n" 2>/dev/null; done
	set -- $res
	echo "$2 $1 $rules $3"
}
# median / min / max of the numbers on stdin, "min med max"
oc_stats() { sort -n | awk '{ l[NR] = $1 } END { printf "%.0f %.0f %.0f", l[1], l[int((NR + 1) / 2)], l[NR] }'; }
# oc_ratio "REF ns per round" "MODE ns per round" -> "min med max" of the
# per-round packets-per-core ratios (REF ns / MODE ns)
oc_ratio() {
	paste -d' ' <(echo $1 | tr ' ' '\n') <(echo $2 | tr ' ' '\n') |
		awk 'NF == 2 && $2 > 0 { print $1 / $2 }' | sort -n |
		awk '{ l[NR] = $1 } END { if (NR) printf "%.2f %.2f %.2f", l[1], l[int((NR + 1) / 2)], l[NR]; else printf "- - -" }'
}
# oc_row ARRAY MODE -> the formatted half row of MODE's figures in ARRAY
oc_row() {
	local -n A=$1
	local st rk re
	st=$(echo ${A[$2]} | tr ' ' '\n' | oc_stats)
	# references: the same behavior's kernel route and minimal consumer
	# (kernel and end for End, kernel-B and ref-B for behavior B)
	local b=${2#*-}; b=${b%-inject}
	case $2 in
	*-x|*-x-inject|*-dx6|*-dx6-inject|*-b6|*-b6-inject|*-henc|*-dt6|*-dt6-inject|*-dx4|\
	*-dx4-inject|*-henc4)
		rk=$(oc_ratio "${A[kernel-$b]:-}" "${A[$2]}")
		re=$(oc_ratio "${A[ref-$b]:-}" "${A[$2]}") ;;
	*)
		rk=$(oc_ratio "${A[kernel]:-}" "${A[$2]}")
		re=$(oc_ratio "${A[end]:-}" "${A[$2]}") ;;
	esac
	set -- $st $rk $re
	printf '%18s %9s %7s %5s %11s' "$1/$2/$3" \
		"$(awk -v n="$2" 'BEGIN { printf "%.0f", (n > 0 ? 1e6 / n : 0) }')" "$5" "$8" "$7-$9"
}
onecore_main() {
	local rep m res gd gdc d ns cns order sh shapes
	declare -A NS_ALL CNS_ALL GD GDC
	shapes=$(for m in $MODES; do oc_shape "$m"; done | sort -u)
	for ((rep = 1; rep <= REPEAT; rep++)); do
		# one gen+drop baseline per packet shape the modes send
		for sh in $shapes; do
			res=$(oc_mode "$([ "$sh" = srh ] && echo gendrop || echo "gendrop-$sh")")
			set -- $res; GD[$sh]=$1 GDC[$sh]=$4
			echo "== round $rep: gen+drop ($sh) $(($1 / 1000)) kpps, $4 ns CPU/pkt, load $(cut -d' ' -f1 /proc/loadavg)" >&2
			LOADS="${LOADS:-}${LOADS:+ }$(cut -d' ' -f1 /proc/loadavg)"
		done
		# odd rounds in the given order, even rounds reversed: no mode
		# always runs first or last after the baseline
		order=$MODES
		[ $((rep % 2)) -eq 0 ] && order=$(echo $MODES | tr ' ' '\n' | tac | tr '\n' ' ')
		for m in $order; do
			res=$(oc_mode "$m"); set -- $res; d=$1
			sh=$(oc_shape "$m"); gd=${GD[$sh]} gdc=${GDC[$sh]}
			ns=$(awk -v d="$d" -v g="$gd" 'BEGIN { printf "%.0f", (d > 0 ? 1e9 / d - 1e9 / g : 0) }')
			cns=$(( ${4:-0} - gdc ))
			echo "    $m: delivered $((d / 1000)) kpps of $(($2 / 1000)) sent, router $ns ns/pkt (wall), $cns ns/pkt (CPU), srv6d ip rules $3" >&2
			NS_ALL[$m]="${NS_ALL[$m]:-} $ns"
			CNS_ALL[$m]="${CNS_ALL[$m]:-} $cns"
			[ "$m" = srv6d ] && RULES=$3
			[ "$m" = fwd-srv6d ] && RULES_FWD=$3
		done
	done
	{
	echo "Onecore router cost per packet ($(nproc) CPUs, $(uname -r), ${PAYLOAD}-byte UDP payload, 2-segment SRH, ${DUR}s trials, $REPEAT rounds, queue-maxlen $QMAXLEN, load average $(cut -d' ' -f1-3 /proc/loadavg), nf_hooks_lwtunnel=$(cat /proc/sys/net/netfilter/nf_hooks_lwtunnel 2>/dev/null || echo absent), srv6d ip rules present in its case: ${RULES:-n/a}, in fwd-srv6d's: ${RULES_FWD:-n/a}, fresh namespaces per case)"
	echo "load average at each round's baselines: ${LOADS:-}"
	printf '%-16s | %18s %9s %7s %5s %11s | %18s %9s %7s %5s %11s\n' mode \
		"wall ns min/med/max" "kpps/core" /kernel /end "/end rounds" \
		"CPU ns min/med/max" "kpps/core" /kernel /end "/end rounds"
	for m in $MODES; do
		local w c
		w=$(oc_row NS_ALL "$m"); c=$(oc_row CNS_ALL "$m")
		printf '%-16s | %s | %s\n' "$m" "$w" "$c"
	done
	echo "(wall: router ns/pkt = 1e9/delivered - 1e9/(generator + ingress drop), the issue's method, in which CPU 1's"
	echo " time taken by other tasks counts as router time; CPU: the same difference on the CPU time of the generator,"
	echo " the consumer (all threads) and ksoftirqd/1 per packet, which other tasks on CPU 1 do not inflate."
	echo " kpps/core = 1e6 / median ns; /kernel, /end = median over rounds of that round's packets-per-core ratio"
	echo " (reference ns / mode ns); rounds = min-max of those ratios; for the modes of behavior B (B = x, dx6, b6,"
	echo " henc) /kernel is to kernel-B and /end to ref-B, the minimal consumer doing B (bench/nfq_behav))"
	for m in $MODES; do echo "$m ns/pkt per round, wall:${NS_ALL[$m]}; CPU:${CNS_ALL[$m]}"; done
	} | tee -a "${OUT:-/dev/null}"
}

if [ "$PLACE" = onecore ]; then
	onecore_main
	exit 0
fi

setup
for ((rep = 1; rep <= REPEAT; rep++)); do
	for m in $MODES; do
		run_mode "$m"
		ALL[$m]="${ALL[$m]:-}${ALL[$m]:+;}${RES[$m]}"
		CALL[$m]="${CALL[$m]:-}${CALL[$m]:+ }${COST[$m]:--}"
	done
done
# median (by kpps) of each mode's repetitions
for m in $MODES; do
	RES[$m]=$(echo "${ALL[$m]}" | tr ';' '\n' | sort -n | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }')
	COST[$m]=$(echo "${CALL[$m]}" | tr ' ' '\n' | sort -n | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }')
done

{
	echo "Datapath End throughput at <= ${LOSS}% loss ($(nproc) CPUs, $(uname -r), ${PAYLOAD}-byte UDP payload, ${DUR}s trials, queue-maxlen $QMAXLEN, load average $(cut -d' ' -f1-3 /proc/loadavg), nf_hooks_lwtunnel=$(cat /proc/sys/net/netfilter/nf_hooks_lwtunnel 2>/dev/null || echo absent))"
	printf '%-8s %8s %8s %8s %8s %14s %8s %8s %8s\n' mode kpps "/floor" "/kernel" "cpu1 %" "kpps/core est" "ns/pkt" "/floor" "/floorp"
	for m in $MODES; do
		set -- ${RES[$m]:-0 0 0}
		awk -v m="$m" -v v="$1" -v u="$2" -v g="$3" -v f="${RES[floor]:-0}" -v k="${RES[kernel]:-0}" \
		    -v c="${COST[$m]:--}" -v cf="${COST[floor]:--}" -v cp="${COST[floorp]:--}" 'BEGIN {
			split(f, F, " "); split(k, K, " ")
			rf = "-"; rk = "-"; rc = "-"; rcf = "-"
			if (F[1] > 0) rf = sprintf("%.2f", v / F[1])
			if (K[1] > 0) rk = sprintf("%.2f", v / K[1])
			if (c != "-" && cf != "-" && cf > 0) rcf = sprintf("%.2f", c / cf)
			if (c != "-" && cp != "-" && cp > 0) rc = sprintf("%.2f", c / cp)
			est = u > 0 ? sprintf("%.0f", v / u * 100 / 1000) : "-"
			printf "%-8s %8.0f%s %7s %8s %8.1f %14s %8s %8s %8s\n", m, v / 1000, (g ? "+" : " "), rf, rk, u, est, c, rcf, rc }'
	done
	echo "(+ = generator-limited: the router was not saturated; kpps/core est = kpps / CPU 1 busy share;"
	echo " ns/pkt = CPU 1 busy time per packet forwarded at $COST_RATE pps offered, median of the runs)"
	for m in $MODES; do
		case $m in lat-*) ;; *) continue ;; esac
		echo "$m at $LAT_RATE pps, per run: ${LAT[$m]:-}"
	done
	for sfx in "" -napi; do
		[ -n "${LAT[lat-kernel$sfx]:-}" ] && [ -n "${LAT[lat-srv6d$sfx]:-}" ] || continue
		# medians over the runs of p50 and p99, and srv6d's over the kernel's
		for f in p50_us p99_us; do
			k=$(echo "${LAT[lat-kernel$sfx]}" | tr ';' '\n' | awk -v f=$f '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' | sort -n | awk '{ l[NR] = $1 } END { print l[int((NR + 1) / 2)] }')
			v=$(echo "${LAT[lat-srv6d$sfx]}" | tr ';' '\n' | awk -v f=$f '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' | sort -n | awk '{ l[NR] = $1 } END { print l[int((NR + 1) / 2)] }')
			awk -v f=$f -v k="$k" -v v="$v" -v x="${sfx:+ (threaded NAPI, RPS off)}" 'BEGIN { printf "latency %s median of runs%s: kernel End %s us, srv6d %s us (%.2fx), srv6d added %.1f us\n", f, x, k, v, (k > 0 ? v / k : 0), v - k }'
		done
	done
	for m in $MODES; do
		case $m in oth|oth-ovl|oth-ovl-napi) ;; *) continue ;; esac
		for load in $OTH_LOAD; do
			# medians over the repetitions of each column
			echo "${OTH[$m:$load]:-}" | tr ';' '\n' | grep . | awk -v m="$m" -v L="$load" -v r="$OTH_RATE" '
				{ n++; s[n] = $2; g[n] = $3; p5[n] = $4; p9[n] = $5; gp[n] = $6;
				  d[n] = ($2 > 0 ? $3 * 100 / $2 : 0) }
				function med(a,   i, j, t, k) { k = n; for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((k + 1) / 2)] }
				END { if (n) printf "%s: End offered %d pps: plain traffic (%d pps) delivered %.1f%%, p50 %.1f us, p99 %.1f us; End goodput %d pps (medians of %d)\n", m, L, r, med(d), med(p5), med(p9), med(gp), n }'
		done
	done
	for m in $MODES; do
		case $m in ovl|ovl-napi|ovl-conf|ovl-conf-other) ;; *) continue ;; esac
		set -- ${RES[$m]:-0 0 0}
		echo "$m: rate at <= ${LOSS}% loss $(awk -v v="$1" 'BEGIN { printf "%.0f", v / 1000 }') kpps (median);" \
			"offered:goodput pps at 2x: ${OVL2[$m]:-}; at 5x: ${OVL5[$m]:-}" \
			"(open loop, each packet sent ${OVLA[$m]:-1} times by veth0's tc program)"
	done
	if [ -n "${ALL[mw1]:-}" ] && [ -n "${ALL[mw2]:-}" ]; then
		# per-round ratios (the modes run in the same round, one after the other)
		paste -d' ' <(echo "${ALL[mw1]}" | tr ';' '\n' | awk '{ print $1 }') \
			<(echo "${ALL[mw2]}" | tr ';' '\n' | awk '{ print $1 }') |
			awk '$1 > 0 { print $2 / $1 }' | sort -n |
			awk '{ l[NR] = $1 } END { if (NR) printf "one PE pair, two workers (mw2) / one worker (mw1): %.2fx median of %d rounds (min %.2f, max %.2f)\n", l[int((NR + 1) / 2)], NR, l[1], l[NR] }'
	fi
	[ "$REPEAT" -gt 1 ] && for m in $MODES; do
		echo "$m runs (kpps): $(echo "${ALL[$m]}" | tr ';' '\n' | awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $1 / 1000 }')  ns/pkt: ${CALL[$m]}"
	done
} | tee -a "${OUT:-/dev/null}"
