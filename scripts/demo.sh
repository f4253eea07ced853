#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# demo.sh - srv6d in five minutes: run as root on Debian 12 from the source tree.
#
#   sudo scripts/demo.sh
#
# Installs missing packages (scripts/deps.sh), builds srv6d, builds this
# topology in three network namespaces (unique names, removed at exit):
#
#   +---------------+      +-----------------------------------+      +---------------+
#   | src           |      | rtr: srv6d -c conf/srv6d.conf     |      | dst           |
#   |          eth0 +------+ veth0                       veth1 +------+ eth0          |
#   | 2001:db8:1::1 |      | 2001:db8:1::2       2001:db8:2::1 |      | 2001:db8:2::2 |
#   | scapy sends   |      | SIDs 2001:db8:ff::/64, table 100  |      | captures      |
#   +---------------+      +-----------------------------------+      +---------------+
#
# starts srv6d with the shipped example conf, sends SRv6 traffic through its
# behaviors, shows what left the router, prints srv6d's per-SID counters and
# cleans up.  rtr's interface toward dst is named after the first "oif" of the
# conf, so End.X's "oif" exists as written.  Environment: BUILD (object dir,
# default build), CONF (default conf/srv6d.conf).
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
BUILD=${BUILD:-build}
CONF=${CONF:-conf/srv6d.conf}
case "$BUILD" in /*) ;; *) BUILD="$TOP/$BUILD" ;; esac
case "$CONF" in /*) ;; *) CONF="$TOP/$CONF" ;; esac

if [ "$(id -u)" -ne 0 ]; then
	echo "demo.sh: run as root (it creates network namespaces): sudo $0" >&2
	exit 1
fi
if [ -t 1 ]; then B=$'\033[1m' N=$'\033[0m'; else B= N=; fi
say() { printf '\n%s== %s%s\n' "$B" "$*" "$N"; }

say "dependencies"
scripts/deps.sh || exit 1
echo "all present"

say "build ($BUILD)"
make --no-print-directory BUILD="$BUILD" -j"$(nproc)" "$BUILD/srv6d" "$BUILD/srv6ctl" || exit 1

[ -r "$CONF" ] || { echo "demo.sh: $CONF not found" >&2; exit 1; }
say "configuration ($CONF)"
grep -v '^[[:space:]]*\(#\|$\)' "$CONF" | sed 's/[[:space:]]*#.*//; s/^/  /'
"$BUILD/srv6d" -n -c "$CONF" || { echo "demo.sh: srv6d rejects $CONF" >&2; exit 1; }

# rtr's interface names: the conf's first oif for the dst side
oif=$(awk '{ sub(/#.*/, ""); for (i = 1; i < NF; i++) if ($i == "oif") { print $(i + 1); exit } }' "$CONF")
export RTR_IF_DST=${oif:-veth1}
export RTR_IF_SRC=veth0
[ "$RTR_IF_SRC" = "$RTR_IF_DST" ] && RTR_IF_SRC=veth9
export BUILD
# shellcheck source=../tests/net/lib.sh
source tests/net/lib.sh
trap cleanup EXIT

say "topology"
require_env
topo_create || { echo "demo.sh: cannot create the topology" >&2; exit 1; }
echo "  src $NS_SRC ($SRC_ADDR) -- $RTR_IF_SRC rtr $NS_RTR $RTR_IF_DST -- dst $NS_DST ($DST_ADDR)"
echo "  rtr table 100: $(ip -n "$NS_RTR" -6 route show table 100)"

say "start srv6d in rtr"
# the demo's own control socket (an installed srv6d may own the default one)
CTL_SOCK=$TMPD/srv6d.sock
{ cat "$CONF"; echo "control-socket $CTL_SOCK"; } >"$TMPD/demo.conf"
if ! srv6d_start "$TMPD/demo.conf" "$TMPD/stats" "$TMPD/srv6d.log"; then
	echo "demo.sh: srv6d did not start" >&2; exit 1
fi
echo "  pid $SRV6D_PID; its steering rules (SIDs at raw PREROUTING, policies at mangle POSTROUTING):"
{ in_rtr ip6tables -t raw -S; in_rtr ip6tables -t mangle -S; } | grep -i nfqueue | sed 's/^/    /'
echo "  its policies as kernel routes:"
ip -n "$NS_RTR" -6 route show proto 109 | grep -v blackhole | sed 's/^/    /'

# behavior | pkt.py case (tests/net/pkt.py builds the packets)
SHOW=(
"End (2001:db8:ff::1)|end"
"End with PSP (2001:db8:ff::2)|end-psp"
"End.X (2001:db8:ff::3)|end-x"
"End.T table 100 (2001:db8:ff::4)|end-t"
"End.DX6 (2001:db8:ff::5)|end-dx6"
"End.DT6 table 100 (2001:db8:ff::6)|end-dt6"
"End.B6 (2001:db8:ff::7)|end-b6"
"End.B6.Encaps (2001:db8:ff::8)|end-b6-encaps"
"End with NEXT-C-SID (2001:db8:100::/48)|end-csid"
"policy encap (2001:db8:99::/64)|policy-encap"
"policy inline (2001:db8:98::/64)|policy-inline"
)
keys=(); for s in "${SHOW[@]}"; do keys+=("${s#*|}"); done
pkt_to_dst send --describe --case "${keys[@]}" >"$TMPD/traffic" || { echo "demo.sh: pkt.py failed" >&2; exit 1; }
total=0 arrived=0
for s in "${SHOW[@]}"; do
	what=${s%|*} key=${s#*|}
	say "$what"
	n=$(awk -v k="$key" '$1 == "TD" && $2 == k' "$TMPD/traffic" | wc -l)
	for ((i = 0; i < n; i++)); do
		total=$((total + 1))
		echo "  sent:     $(awk -v k="$key" -v i=$i '$1 == "TD" && $2 == k && $3 == i {$1 = $2 = $3 = ""; print substr($0, 4)}' "$TMPD/traffic")"
		got=$(awk -v k="$key" -v i=$i '$1 == "RD" && $2 == k && $3 == i {$1 = $2 = $3 = ""; print substr($0, 4)}' "$TMPD/traffic")
		if [ -n "$got" ]; then
			arrived=$((arrived + 1))
			echo "$got" | sed 's/^/  at dst:   /'
		else
			echo "  at dst:   (nothing)"
		fi
	done
done

say "ping the End SID (RFC 8986 4.1.1: srv6d answers, the kernel's seg6local drops)"
pkt_to_src send --describe --case err-echo-nosrh >"$TMPD/ping" 2>&1
awk '$1 == "TD" {$1 = $2 = $3 = ""; print "  sent:     " substr($0, 4)}
     $1 == "RD" {$1 = $2 = $3 = ""; print "  at src:   " substr($0, 4)}' "$TMPD/ping"
grep -q '^RD' "$TMPD/ping" || echo "  at src:   (nothing)"

say "srv6ctl -s sid show (srv6d's control socket)"
in_rtr "$BUILD/srv6ctl" -S "$CTL_SOCK" -s sid show | sed 's/^/  /'

say "per-SID counters (srv6d stats file, SIGUSR1)"
if srv6d_stats; then
	# zero drop reasons and queue counters left out
	{
		echo "SID action packets bytes errors drops"
		awk '$1 != "route" && $1 != "queue" && $1 != "egress" && $1 != "steering"' "$SRV6D_STATS" | sort
		echo "route mode packets bytes errors drops"
		awk '$1 == "route" { $1 = ""; print }' "$SRV6D_STATS" | sort
	} | awk '{ o = sprintf("  %-19s %-14s %8s %9s %7s ", $1, $2, $3, $4, $5)
		   for (i = 6; i <= NF; i++) if ($i !~ /=0$/) o = o " " $i; print o }'
	awk '$1 == "queue" { o = "  queue " $2 ":"; for (i = 3; i <= NF; i++) if ($i !~ /=0$/) o = o " " $i; print o }' "$SRV6D_STATS"
	awk '$1 == "egress" { $1 = ""; print "  egress:" $0 }' "$SRV6D_STATS"
else
	echo "  no stats file"
fi

say "stop srv6d"
srv6d_stop TERM
echo "  srv6d exited with status $SRV6D_RC; $arrived of $total packets arrived at dst"
[ "$SRV6D_RC" -eq 0 ] && [ "$arrived" -eq "$total" ]
