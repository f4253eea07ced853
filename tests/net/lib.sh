# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/net/lib.sh - shared helpers of the srv6d namespace tests.
# Source it from a test script; it sets nothing up until topo_create is called.
#
# Topology built by topo_create (every namespace name is unique per run):
#
#   +-------------+        +------------------------------+        +-------------+
#   | $NS_SRC     |        | $NS_RTR  (forwarding=1)      |        | $NS_DST     |
#   |        eth0 +--------+ eth0                    eth1 +--------+ eth0        |
#   | 2001:db8:1::1/64     | 2001:db8:1::2   2001:db8:2::1|        | 2001:db8:2::2/64
#   +-------------+        +------------------------------+        +-------------+
#    default via rtr        2001:db8::/32 via dst (segments,         default via rtr
#                           inner destinations, C-SID locators)
#                           2001:db8:cc::/64 unreachable in main,
#                           via dst in table 100 (End.T/End.DT6
#                           must use table 100 to get through)
#
# Neighbours are static (no ND on the data path), addresses are nodad.
# RTR_IF_SRC / RTR_IF_DST name rtr's interfaces (default eth0 / eth1); the demo
# renames them to fit conf/srv6d.conf.
#
# KEEP_TMP=1 keeps the run's files (captures, confs, srv6d logs) in $TMPD.
#
# Result lines: "[ OK ] name", "[FAIL] name", "[SKIP] name: why" (skips are
# counted neither as passed nor failed).

LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP_DIR=$(cd "$LIB_DIR/../.." && pwd)
PY=/usr/bin/python3
PKT="$LIB_DIR/pkt.py"
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD="$TOP_DIR/$BUILD" ;; esac
SRV6D=${SRV6D:-$BUILD/srv6d}

ksft_skip=4
# a timeout (tests/check.sh) or ^C: exit, so that the EXIT trap cleans up
trap 'exit 143' TERM
trap 'exit 130' INT
NS_SRC="src-$$-$RANDOM"
NS_RTR="rtr-$$-$RANDOM"
NS_DST="dst-$$-$RANDOM"
RTR_IF_SRC=${RTR_IF_SRC:-eth0}
RTR_IF_DST=${RTR_IF_DST:-eth1}
SRC_ADDR=2001:db8:1::1
RTR_ADDR_SRC=2001:db8:1::2
RTR_ADDR_DST=2001:db8:2::1
DST_ADDR=2001:db8:2::2
TMPD=$(mktemp -d /tmp/srv6d-net.XXXXXX)
SRV6D_PID=
SRV6D_RC=
n_ok=0 n_fail=0 n_skip=0

# ---- result lines -------------------------------------------------------
ok()   { echo "[ OK ] $1"; n_ok=$((n_ok + 1)); }
fail() { echo "[FAIL] $1"; shift; [ $# -gt 0 ] && printf '       %s\n' "$@"; n_fail=$((n_fail + 1)); }
skip() { echo "[SKIP] $1: $2"; n_skip=$((n_skip + 1)); }
# check NAME CMD...: OK when CMD succeeds.
check() { local name=$1; shift; if "$@"; then ok "$name"; else fail "$name"; fi; }
# summary: print totals, return the exit code a test script must use.
summary() {
	echo "# $(basename "$0"): $n_ok passed, $n_fail failed, $n_skip skipped"
	[ "$n_fail" -eq 0 ]
}

# ---- prerequisites ------------------------------------------------------
# require_env: exit 4 unless root with ip, ip6tables, iptables and scapy
# available (tests/check.sh turns exit 4 into a failure under CI).
require_env() {
	if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root"; exit $ksft_skip; fi
	local t
	for t in ip ip6tables iptables ip6tables-save iptables-save timeout; do
		command -v "$t" >/dev/null || { echo "SKIP: $t not found"; exit $ksft_skip; }
	done
	if ! [ -x "$PY" ] || ! "$PY" -c 'import scapy.layers.inet6' 2>/dev/null; then
		echo "SKIP: $PY with scapy not found"; exit $ksft_skip
	fi
}

# test_begin [OPTION...]: how a test starts, in this order: require_env, its
# prerequisites, cleanup on exit, lib.sh's topology (exit 1 when it cannot be
# made).  A system tool that is absent is a skip (exit 4, which tests/check.sh
# turns into a failure under CI); something the build makes that is not there
# is a failure (exit 1): the build is the suite's business.
#   --tool CMD     CMD must be on PATH (skip)
#   --cpus N       at least N CPUs (skip)
#   --srv6d        srv6d must be built ($SRV6D)
#   --srv6ctl      srv6ctl must be built ($SRV6CTL, default next to srv6d)
#   --built PATH   PATH (a test tool, a bench program) must be built
#   --trap CMD     run CMD on exit, before the shared cleanup (repeatable)
#   --no-topo      no topology: the test makes its own namespaces
# The exit trap is set first, so an early exit still removes $TMPD.
test_begin() {
	local tools=() built=() cpus=0 extra="" topo=1 t

	while [ $# -gt 0 ]; do
		case "$1" in
		--tool) tools+=("$2"); shift ;;
		--cpus) cpus=$2; shift ;;
		--srv6d) built+=("$SRV6D") ;;
		--srv6ctl) SRV6CTL=${SRV6CTL:-$BUILD/srv6ctl}; built+=("$SRV6CTL") ;;
		--built) built+=("$2"); shift ;;
		--trap) extra+="$2; "; shift ;;
		--no-topo) topo=0 ;;
		*) echo "[FAIL] test_begin: unknown option $1"; exit 1 ;;
		esac
		shift
	done
	# the extra commands may name functions the test defines later: quiet
	# when an early exit comes first
	[ -z "$extra" ] || extra="{ ${extra}} 2>/dev/null; "
	# shellcheck disable=SC2064  # the command is fixed now, run at exit
	trap "${extra}cleanup" EXIT
	require_env
	for t in ${tools[@]+"${tools[@]}"}; do
		command -v "$t" >/dev/null || { echo "SKIP: $t not found"; exit $ksft_skip; }
	done
	if [ "$cpus" -gt 0 ] && [ "$(nproc)" -lt "$cpus" ]; then
		echo "SKIP: needs $cpus CPUs"; exit $ksft_skip
	fi
	for t in ${built[@]+"${built[@]}"}; do
		[ -x "$t" ] || { echo "[FAIL] $t not built (make BUILD=... all)"; exit 1; }
	done
	[ $topo -eq 0 ] || topo_create || { echo "cannot create the topology"; exit 1; }
}

# pings6 NS ADDR[%IF] [COUNT]: COUNT (2) Echo Requests from NS's own stack
# (tests/net/ping6.py); prints how many were answered.
pings6() { local ns=$1; shift; ip netns exec "$ns" "$PY" "$TOP_DIR/tests/net/ping6.py" "$@"; }

# ---- kernel features: kfeat, kfeat_why (tests/kfeat.sh) --------------------
. "$TOP_DIR/tests/kfeat.sh"
# route_feats ROUTE...: the kernel features (tests/kfeat.sh names) that the
# `ip route` arguments ROUTE need, one a line: seg6local, seg6encap.
route_feats() {
	case "$* " in *"encap seg6local "*) echo seg6local ;; esac
	case "$* " in *"encap seg6 "*) echo seg6encap ;; esac
}
# needs NAME FEATURE...: true when the kernel has every FEATURE; otherwise
# a [SKIP] line for the check NAME naming the first one missing, and false:
#   needs "End byte-identical to the kernel" seg6local && compare ...
needs() {
	local name=$1 f; shift
	for f in "$@"; do
		kfeat "$f" || { skip "$name" "$(kfeat_why "$f")"; return 1; }
	done
}

# conf_extra: the lines of $SRV6D_EXTRA_CONF (may be empty or several lines),
# for every srv6d.conf a test writes: a rerun of the suite with e.g.
# SRV6D_EXTRA_CONF="egress inject" runs every srv6d check in that mode.
conf_extra() { [ -z "${SRV6D_EXTRA_CONF:-}" ] || printf '%s\n' "$SRV6D_EXTRA_CONF"; }

# srv6d_built: true when the srv6d binary exists.
srv6d_built() { [ -x "$SRV6D" ]; }

# ---- wait helpers -------------------------------------------------------
# wait_until TIMEOUT_S CMD...: poll CMD every 50 ms until it succeeds.
# WAIT_SCALE (an integer, default 1) stretches every timeout: the
# kernel-oracle VM sets it under emulation (tests/vm/run.sh), where all
# runs 15-30x slower; a wait that succeeds ends as early as before.
wait_until() {
	local deadline=$(( $(date +%s%N) + ${1%.*} * ${WAIT_SCALE:-1} * 1000000000 )); shift
	while :; do
		"$@" && return 0
		[ "$(date +%s%N)" -ge "$deadline" ] && return 1
		sleep 0.05
	done
}

# ---- topology -----------------------------------------------------------
in_src() { ip netns exec "$NS_SRC" "$@"; }
in_rtr() { ip netns exec "$NS_RTR" "$@"; }
in_dst() { ip netns exec "$NS_DST" "$@"; }

mac_of() { ip -n "$1" -br link show dev "$2" | awk '{print $3}'; }

# lpm_setup: on top of topo_create, the topology of the policy-route tests
# (test_lpm, test_polroute_watch): the lib's 2001:db8::/32 underlay gives
# way to the policy, the segments keep a more specific underlay route
# (2001:db8:aa::/48); rtr's tunnel source; IPv4 on both links.  Sets LPM
# (tests/net/lpm.py), TUNSRC, SEGS, and FWD6 / FWD4, the frames src sends
# (hex: one to the policy's prefix, one to dst itself).
lpm_setup() {
	LPM="$LIB_DIR/lpm.py"
	TUNSRC=$RTR_ADDR_SRC
	SEGS=2001:db8:aa::1,2001:db8:aa::2
	ip -n "$NS_RTR" -6 route del 2001:db8::/32
	ip -n "$NS_RTR" -6 route add 2001:db8:aa::/48 via $DST_ADDR dev "$RTR_IF_DST"
	in_rtr sysctl -qw net.ipv6.auto_flowlabels=0 net.ipv4.ip_forward=1 >/dev/null
	in_rtr ip sr tunsrc set $TUNSRC
	ip -n "$NS_SRC" addr add 10.0.1.1/24 dev eth0
	ip -n "$NS_RTR" addr add 10.0.1.2/24 dev "$RTR_IF_SRC"
	ip -n "$NS_RTR" addr add 10.0.2.1/24 dev "$RTR_IF_DST"
	ip -n "$NS_DST" addr add 10.0.2.2/24 dev eth0
	ip -n "$NS_RTR" neigh replace 10.0.2.2 lladdr "$DST_MAC" dev "$RTR_IF_DST" nud permanent
	ip -n "$NS_SRC" neigh replace 10.0.1.2 lladdr "$RTR_MAC_SRC" dev eth0 nud permanent
	ip -n "$NS_SRC" route add default via 10.0.1.2
	FWD6=$("$PY" "$LPM" --build-fwd 2001:db8:99::1 $DST_ADDR)
	FWD4=$("$PY" -c '
from scapy.layers.inet import IP, ICMP
from scapy.packet import Raw
for i, d in enumerate(("10.9.9.1", "10.0.2.2")):
    print(bytes(IP(src="10.0.1.1", dst=d, ttl=64, tos=0x28, id=0x100 + i) / ICMP(id=7, seq=i) / Raw(bytes(32))).hex())')
}

topo_create() {
	local ns
	for ns in "$NS_SRC" "$NS_RTR" "$NS_DST"; do
		ip netns add "$ns" || return 1
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 \
			net.ipv6.conf.all.router_solicitations=0 \
			net.ipv6.conf.default.router_solicitations=0 >/dev/null
	done
	in_rtr sysctl -qw net.ipv6.conf.all.forwarding=1 net.ipv6.conf.all.seg6_enabled=1 \
		net.ipv6.conf.default.seg6_enabled=1 >/dev/null
	ip -n "$NS_SRC" link add eth0 type veth peer name "$RTR_IF_SRC" netns "$NS_RTR" || return 1
	ip -n "$NS_DST" link add eth0 type veth peer name "$RTR_IF_DST" netns "$NS_RTR" || return 1
	in_rtr sysctl -qw "net.ipv6.conf.$RTR_IF_SRC.seg6_enabled=1" \
		"net.ipv6.conf.$RTR_IF_DST.seg6_enabled=1" >/dev/null
	ip -n "$NS_SRC" addr add $SRC_ADDR/64 dev eth0 nodad
	ip -n "$NS_RTR" addr add $RTR_ADDR_SRC/64 dev "$RTR_IF_SRC" nodad
	ip -n "$NS_RTR" addr add $RTR_ADDR_DST/64 dev "$RTR_IF_DST" nodad
	ip -n "$NS_DST" addr add $DST_ADDR/64 dev eth0 nodad
	ip -n "$NS_SRC" link set eth0 up
	ip -n "$NS_RTR" link set "$RTR_IF_SRC" up
	ip -n "$NS_RTR" link set "$RTR_IF_DST" up
	ip -n "$NS_DST" link set eth0 up
	SRC_MAC=$(mac_of "$NS_SRC" eth0)
	DST_MAC=$(mac_of "$NS_DST" eth0)
	RTR_MAC_SRC=$(mac_of "$NS_RTR" "$RTR_IF_SRC")
	RTR_MAC_DST=$(mac_of "$NS_RTR" "$RTR_IF_DST")
	# static neighbours: no ND on the data path, nothing to wait for
	ip -n "$NS_SRC" neigh replace $RTR_ADDR_SRC lladdr "$RTR_MAC_SRC" dev eth0 nud permanent
	ip -n "$NS_RTR" neigh replace $SRC_ADDR lladdr "$SRC_MAC" dev "$RTR_IF_SRC" nud permanent
	ip -n "$NS_RTR" neigh replace $DST_ADDR lladdr "$DST_MAC" dev "$RTR_IF_DST" nud permanent
	ip -n "$NS_DST" neigh replace $RTR_ADDR_DST lladdr "$RTR_MAC_DST" dev eth0 nud permanent
	ip -n "$NS_SRC" -6 route add default via $RTR_ADDR_SRC dev eth0
	ip -n "$NS_DST" -6 route add default via $RTR_ADDR_DST dev eth0
	ip -n "$NS_RTR" -6 route add 2001:db8::/32 via $DST_ADDR dev "$RTR_IF_DST"
	ip -n "$NS_RTR" -6 route add unreachable 2001:db8:cc::/64
	ip -n "$NS_RTR" -6 route add 2001:db8:cc::/64 via $DST_ADDR dev "$RTR_IF_DST" table 100
	wait_until 5 topo_up
}

topo_up() {
	ip -n "$NS_RTR" -br link show dev "$RTR_IF_DST" | grep -q UP &&
		ip -n "$NS_RTR" -br link show dev "$RTR_IF_SRC" | grep -q UP &&
		ip -n "$NS_DST" -br link show dev eth0 | grep -q UP &&
		ip -n "$NS_SRC" -br link show dev eth0 | grep -q UP
}

# ---- packets --------------------------------------------------------------
# pkt ARGS...: run pkt.py, sending from src's eth0 to rtr.
pkt() {
	"$PY" "$PKT" --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" "$@"
}
# pkt_to_dst ARGS...: send, capture what reaches dst's eth0 from rtr.
pkt_to_dst() { pkt --cap-ns "$NS_DST" "$@"; }
# pkt_to_src ARGS...: send, capture what comes back to src's eth0.
pkt_to_src() { pkt --cap-ns "$NS_SRC" "$@"; }

# hexdiff A B: a readable diff of two hex strings, 16 bytes a line.
hexdiff() {
	diff <(echo "$1" | fold -w32 | nl -v0 -i16 -w4 -nrz) \
	     <(echo "$2" | fold -w32 | nl -v0 -i16 -w4 -nrz) | sed 's/^/       /' | head -40
}

# ---- srv6d --------------------------------------------------------------
# srv6d_start CONF STATS LOG: run srv6d in rtr; wait until its steering rules
# (unless the conf says "steer none") and its queue exist.  Returns 1 (and prints the log) if it died or timed out.
srv6d_start() {
	# shellcheck disable=SC2034  # SRV6D_LOG is for the tests
	SRV6D_CONF=$1 SRV6D_STATS=$2 SRV6D_LOG=$3 SRV6D_RC=
	rm -f "$2"   # a stats file from an earlier run must not pass for this one's
	ip netns exec "$NS_RTR" "$SRV6D" -f -c "$1" -s "$2" >"$3" 2>&1 &
	SRV6D_PID=$!
	if ! wait_until 10 srv6d_ready; then
		echo "# srv6d did not become ready; log:"; sed 's/^/#   /' "$3"
		srv6d_alive || { wait "$SRV6D_PID"; SRV6D_RC=$?; SRV6D_PID=; }
		return 1
	fi
}
srv6d_alive() { [ -n "$SRV6D_PID" ] && kill -0 "$SRV6D_PID" 2>/dev/null; }
srv6d_ready() {
	srv6d_alive || return 2
	if ! grep -Eq '^[[:space:]]*steer[[:space:]]+none' "$SRV6D_CONF"; then
		# SIDs at raw PREROUTING, policies at mangle POSTROUTING
		{ in_rtr ip6tables -t raw -S; in_rtr ip6tables -t mangle -S; } 2>/dev/null |
			grep -q NFQUEUE || return 1
	fi
	in_rtr cat /proc/net/netfilter/nfnetlink_queue 2>/dev/null | grep -q . || return 1
	# rules a crashed run left look ready too: srv6d says when it is up
	# (unless its log-level hides notices)
	grep -Eq '^[[:space:]]*log-level[[:space:]]+(emerg|alert|crit|err|warning)' "$SRV6D_CONF" &&
		return 0
	grep -q 'started: ' "$SRV6D_LOG" 2>/dev/null
}
# srv6d_stop [SIGNAL]: signal srv6d (TERM) and wait up to 10 s; sets SRV6D_RC
# (the exit status, 255 if it had to be killed); returns 0 if it exited 0.
srv6d_stop() {
	[ -n "$SRV6D_PID" ] || return 1
	kill -"${1:-TERM}" "$SRV6D_PID" 2>/dev/null
	if ! wait_until 10 srv6d_gone; then
		kill -KILL "$SRV6D_PID" 2>/dev/null
	fi
	wait "$SRV6D_PID" 2>/dev/null; SRV6D_RC=$?
	srv6d_gone || SRV6D_RC=255
	SRV6D_PID=
	[ "$SRV6D_RC" -eq 0 ]
}
srv6d_gone() { ! kill -0 "$SRV6D_PID" 2>/dev/null; }

# srv6d_stats: ask srv6d (SIGUSR1) for a fresh stats file and wait for it.
srv6d_stats() {
	srv6d_alive || return 1
	rm -f "$SRV6D_STATS"
	kill -USR1 "$SRV6D_PID"
	wait_until 5 stats_stable
}
stats_stable() {
	[ -s "$SRV6D_STATS" ] || return 1
	local a; a=$(cat "$SRV6D_STATS"); sleep 0.05
	[ "$a" = "$(cat "$SRV6D_STATS")" ]
}
# counter SID|PREFIX FIELD: a value from the stats file, whose lines are
#   SID action packets bytes errors reason=count...
#   route PREFIX mode packets bytes errors reason=count...
# FIELD is packets, bytes, errors or a drop reason name; prints 0 when the SID
# or the reason is absent.
counter() {
	awk -v sid="$1" -v f="$2" '
		$1 == sid || $1 == sid "/128" { o = 0; hit = 1 }
		$1 == "route" && $2 == sid { o = 1; hit = 1 }
		hit {
			if (f == "packets") v = $(3 + o); else if (f == "bytes") v = $(4 + o);
			else if (f == "errors") v = $(5 + o);
			else for (i = 6 + o; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) v = kv[2]; }
			hit = 0
		}
		END { print v + 0 }' "$SRV6D_STATS" 2>/dev/null || echo 0
}

# queue_stat FIELD [QUEUE]: a "queue N ... FIELD=V ..." value of the stats
# file (miss, verdict-errors, lost-ids, fallback-drops, packets...), summed
# over every queue unless QUEUE is given; prints -1 when no queue line has
# the field (a renamed counter must not read as 0).
queue_stat() {
	awk -v f="$1" -v q="${2:-}" '
		$1 == "queue" && (q == "" || $2 == q) {
			for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) { s += kv[2]; hit = 1 } }
		}
		END { print hit ? s + 0 : -1 }' "$SRV6D_STATS" 2>/dev/null || echo -1
}
# queue_ids: the queue numbers listed in the stats file, one a line.
queue_ids() { awk '$1 == "queue" {print $2}' "$SRV6D_STATS" 2>/dev/null; }

# queue_total: sum of "queue_total" (column 3) over our netns' queues.
queue_total() { in_rtr awk '{s += $3} END {print s + 0}' /proc/net/netfilter/nfnetlink_queue; }

# ---- cleanup --------------------------------------------------------------
# rules_crossed MARK ROUTED [OURS]: walk an `ip rule show` listing on stdin as
# fib_rules_lookup() does for a lookup with fwmark MARK, and print how many
# rules matching the regex OURS (srv6d's: default "fwmark 0x6d") it evaluates.
# A rule matches on its fwmark selector only (every rule is "from all"); "not"
# inverts; a matching "goto P" continues at the first rule of preference P
# (an unresolved goto is skipped); "lookup T" ends the walk when T is in the
# space-separated list ROUTED (the tables that route the destination: "main"
# for a forwarded packet main routes, "" for one no table routes);
# unreachable/blackhole/prohibit end it.
rules_crossed() {
	awk -v mark="$1" -v routed=" $2 " -v ours="${3:-fwmark 0x6d}" '
	function hex(s,   v, i, c) {
		s = tolower(s); sub(/^0x/, "", s); v = 0
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1)) - 1
			v = v * 16 + c
		}
		return v
	}
	function band(a, b,   r, p) {
		r = 0; p = 1
		while (a > 0 && b > 0) {
			if (a % 2 == 1 && b % 2 == 1) r += p
			a = int(a / 2); b = int(b / 2); p *= 2
		}
		return r
	}
	{ sub(/:/, "", $1); pref[NR] = $1 + 0; line[NR] = $0 }
	END {
		m = hex(mark); n = 0; i = 1
		while (i <= NR) {
			l = line[i]
			if (l ~ ours) n++
			hit = 1
			if (match(l, /fwmark [0-9a-fx]+(\/[0-9a-fx]+)?/)) {
				split(substr(l, RSTART + 7, RLENGTH - 7), fm, "/")
				msk = (2 in fm) ? hex(fm[2]) : 4294967295
				hit = band(m, msk) == hex(fm[1])
			}
			if (l ~ /^[0-9]+[ \t]+not /) hit = !hit
			if (!hit) { i++; continue }
			if (match(l, /goto [0-9]+/)) {
				t = substr(l, RSTART + 5, RLENGTH - 5) + 0
				for (j = i + 1; j <= NR && pref[j] != t; j++) ;
				i = (j <= NR) ? j : i + 1
				continue
			}
			if (l ~ /(unreachable|blackhole|prohibit)/) break
			if (match(l, /lookup [^ \t]+/)) {
				t = substr(l, RSTART + 7, RLENGTH - 7)
				if (index(routed, " " t " ")) break
			}
			i++
		}
		print n
	}'
}

cleanup() {
	local h
	for h in ${CLEANUP_HOOKS:-}; do "$h"; done    # a suite's own state (reinject: dropmon_stop)
	[ -n "${STREAM_PID:-}" ] && kill "$STREAM_PID" 2>/dev/null
	if [ -n "$SRV6D_PID" ]; then kill -TERM "$SRV6D_PID" 2>/dev/null
		wait_until 5 srv6d_gone || kill -KILL "$SRV6D_PID" 2>/dev/null
	fi
	local ns
	for ns in "$NS_SRC" "$NS_RTR" "$NS_DST"; do
		ip netns del "$ns" 2>/dev/null
	done
	local nf=$n_fail
	sanitizer_reports "$TMPD"
	if [ -n "${KEEP_TMP:-}" ]; then echo "# kept $TMPD"; else rm -rf "$TMPD"; fi
	# a report found now fails the test, whatever it said before
	if [ "$n_fail" -gt "$nf" ]; then summary; exit 1; fi
}
# sanitizer_reports DIR: a [FAIL] line, and the report's first lines, for
# every file in DIR (srv6d logs) holding an ASan/UBSan/TSan/LSan report.
sanitizer_reports() {
	local f
	for f in $(grep -lE 'ERROR: (Address|Leak)Sanitizer|runtime error:|WARNING: ThreadSanitizer' \
			-r "$1" 2>/dev/null); do
		fail "sanitizer report in $(basename "$f")" \
			"$(grep -m1 -A12 -E 'ERROR: (Address|Leak)Sanitizer|runtime error:|WARNING: ThreadSanitizer' "$f")"
	done
}
