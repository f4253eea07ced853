#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_hardening.sh - issue 9 (hardening) on lib.sh's topology: the stats
# file against a planted symlink, the control socket's chown against a
# swapped path, net.ipv6.seg6_flowlabel values other than
# -1/0/1, and refused configurations.
#
#   +---------------+      +------------------------------------+      +---------------+
#   | src           |      | rtr  srv6d (steer auto)            |      | dst           |
#   |          eth0 +------+ eth0                          eth1 +------+ eth0          |
#   | 2001:db8:1::1 |      | route 2001:db8:99::/64 encap       |      | 2001:db8:2::2 |
#   | policy-encap  |      |   segs aa::1,aa::2 (-> dst)        |      | captures the  |
#   | packets       |      | -s $TMPD/stats (symlink planted)   |      | encapsulation |
#   +---------------+      +------------------------------------+      +---------------+
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin

if ! srv6d_built; then
	fail "hardening" "srv6d not built ($SRV6D)"
	summary; exit
fi

conf=$TMPD/srv6d.conf
cat >"$conf" <<CONF
queue 0
steer auto
encap-source 2001:db8:2::1
sid 2001:db8:ff::1 action End
route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2
CONF

# ---- 9.1 stats file: a symlink at FILE.tmp must not be written through -------
victim=$TMPD/victim
echo precious >"$victim"
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.stats.log"; then
	ln -s "$victim" "$TMPD/stats.tmp"
	srv6d_stats
	check "stats: SIGUSR1 writes the stats file past a symlink at FILE.tmp" \
		grep -q '^queue 0 ' "$TMPD/stats"
	check "stats: the symlink's target is untouched" test "$(cat "$victim")" = precious
	check "stats: the planted symlink itself is untouched" test -L "$TMPD/stats.tmp"
	n=$(find "$TMPD" -maxdepth 1 -name '.stats.*' | wc -l)
	check "stats: no temporary file left ($n)" test "$n" -eq 0
	srv6d_stop
	check "stats: target still untouched after the exit dump" test "$(cat "$victim")" = precious
	rm -f "$TMPD/stats.tmp"
else
	fail "stats file" "srv6d did not start"
fi

# ---- 9.3 net.ipv6.seg6_flowlabel: > 0 hash, < 0 zero (as the kernel) ----------
# flow label of the first captured packet (hex of the outer header) and its DA
rx_fl() { awk '$1 == "RX" {print substr($4, 4, 5); exit}'; }
rx_da() { awk '$1 == "RX" {print substr($4, 49, 32); exit}'; }
AA1=20010db800aa00000000000000000001
for fl in -2 2 -1; do
	in_rtr sysctl -qw net.ipv6.seg6_flowlabel=$fl >/dev/null
	if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.fl$fl.log"; then
		out=$(pkt_to_dst send --case policy-encap)
		da=$(echo "$out" | rx_da) label=$(echo "$out" | rx_fl)
		check "seg6_flowlabel $fl: policy packet encapsulated toward aa::1 (DA ${da:-none})" \
			test "$da" = $AA1
		if [ "$fl" -lt 0 ]; then
			check "seg6_flowlabel $fl: outer flow label 0 (${label:-none})" test "$label" = 00000
		else
			check "seg6_flowlabel $fl: outer flow label hashed (${label:-none})" \
				eval '[ -n "$label" ] && [ "$label" != 00000 ]'
		fi
		srv6d_stop
	else
		fail "seg6_flowlabel $fl" "srv6d did not start"
	fi
done
# reload re-reads the sysctl: start with 0 (inner label copied), switch to -3
in_rtr sysctl -qw net.ipv6.seg6_flowlabel=0 >/dev/null
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.flreload.log"; then
	label=$(pkt_to_dst send --case policy-encap | rx_fl)
	check "seg6_flowlabel 0: inner label 12345 copied (${label:-none})" test "$label" = 12345
	in_rtr sysctl -qw net.ipv6.seg6_flowlabel=-3 >/dev/null
	kill -HUP "$SRV6D_PID"
	wait_until 5 grep -q reloaded "$SRV6D_LOG"
	label=$(pkt_to_dst send --case policy-encap | rx_fl)
	check "reload re-reads seg6_flowlabel (-3: label 0, got ${label:-none})" test "$label" = 00000
	srv6d_stop
else
	fail "seg6_flowlabel reload" "srv6d did not start"
fi
in_rtr sysctl -qw net.ipv6.seg6_flowlabel=1 >/dev/null

# ---- 9.10 the control socket's group: no chown through a swapped path -------
# An attacker who may write the socket's directory swaps the freshly bound
# socket for a symlink to a file of theirs choosing before srv6d's chown.
# ctl_swap.so (built here) plays that attacker deterministically: right after
# srv6d's first AF_UNIX bind() it puts a symlink to $victim at the configured
# path.  srv6d must neither chown through it nor replace it.  A group srv6d exists only inside a private mount namespace (a copy
# of /etc/group bind-mounted over it), so the host's is untouched.
ctl_swap_test() {
	local so=$TMPD/ctl_swap.so dir=$TMPD/ctl victim=$TMPD/ctl-victim gid=64999
	local cconf=$TMPD/srv6d.ctl.conf log=$TMPD/srv6d.ctl.log pid vg ctl=${SRV6CTL:-$BUILD/srv6ctl}
	if ! command -v cc >/dev/null; then
		skip "control socket: no chown through a swapped path" "no C compiler (cc)"
		return
	fi
	cat >"$TMPD/ctl_swap.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	static int done;
	int (*real)(int, const struct sockaddr *, socklen_t) =
		(int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
	int r = real(fd, sa, len);
	const char *path = getenv("CTL_SWAP_PATH"), *to = getenv("CTL_SWAP_TO");

	if (r == 0 && sa->sa_family == AF_UNIX && !done && path && to) {
		done = 1;
		unlink(path);
		if (symlink(to, path) < 0)
			return -1;
	}
	return r;
}
C
	if ! cc -shared -fPIC -o "$so" "$TMPD/ctl_swap.c" -ldl 2>"$TMPD/ctl_swap.cc.log"; then
		fail "control socket: build the path-swapping shim" "$(head -1 "$TMPD/ctl_swap.cc.log")"
		return
	fi
	mkdir -p "$dir"; chmod 1777 "$dir"
	echo precious >"$victim"; chown 0:0 "$victim"
	{ cat /etc/group; echo "srv6d:x:$gid:"; } >"$TMPD/group"
	cat >"$cconf" <<CONF
queue 0
steer none
control-socket $dir/srv6d.sock
sid 2001:db8:ff::1 action End
CONF
	# ctl_run [SHIM]: srv6d with the group namespace (and the shim)
	ctl_run() {
		ip netns exec "$NS_RTR" unshare -m --propagation private sh -c \
			'mount --bind "$1" /etc/group && shift && exec "$@"' sh "$TMPD/group" \
			env ${1:+LD_PRELOAD="$1"} CTL_SWAP_PATH="$dir/srv6d.sock" CTL_SWAP_TO="$victim" \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
			"$SRV6D" -f -c "$cconf" >"$log" 2>&1 &
		pid=$!
	}
	# the path swapped for a symlink after srv6d's bind: srv6d neither
	# chowns through it nor replaces it (another srv6d's socket could be
	# there): it refuses to start, naming the path
	ctl_run "$so"
	wait_until 10 eval '! kill -0 $pid 2>/dev/null || grep -q "started: " "$log"'
	vg=$(stat -c %g "$victim")
	check "control socket: chown did not follow the planted symlink (victim gid $vg)" \
		test "$vg" -eq 0
	check "control socket: a path that appeared after the bind is refused, named" \
		grep -q "control socket $dir/srv6d.sock: appeared while srv6d bound its own" "$log"
	grep -q 'appeared while' "$log" || sed 's/^/#   /' "$log" | head -20
	check "control socket: the planted symlink is left as it was" \
		test "$(readlink "$dir/srv6d.sock")" = "$victim"
	check "control socket: no private directory left" \
		test -z "$(find "$dir" -mindepth 1 -maxdepth 1 -type d)"
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	# the same directory without the attacker
	rm -f "$dir/srv6d.sock"
	ctl_run
	check "control socket: srv6d starts with its directory written by others" \
		wait_until 10 grep -q 'started: ' "$log"
	check "control socket: group srv6d (gid $gid) on the socket" \
		test "$(stat -c %g "$dir/srv6d.sock" 2>/dev/null)" = $gid
	check "control socket: mode 0660" test "$(stat -c %a "$dir/srv6d.sock" 2>/dev/null)" = 660
	check "control socket: srv6ctl answers on it" \
		eval "in_rtr \"\$ctl\" -S \"\$dir/srv6d.sock\" status >/dev/null"
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
}
ctl_swap_test

# ---- 9.9 a dead worker: srv6d notices, logs, exits non-zero -------------------
# gdb replaces queue 1's netlink socket by /dev/null (fd 0) under the running
# daemon: its worker's next receive fails with ENOTSOCK and the thread ends.
# nfq_fds PID: the fds of PID's NETLINK_NETFILTER (12) sockets, queue order.
nfq_fds() {
	local ino fd
	for ino in $(awk '$2 == 12 {print $NF}' "/proc/$1/net/netlink"); do
		for fd in /proc/"$1"/fd/*; do
			[ "$(readlink "$fd")" = "socket:[$ino]" ] && echo "${fd##*/}"
		done
	done | sort -n
}
if ! command -v gdb >/dev/null; then
	skip "dead worker" "gdb not found"
else
	sed -i 's/^queue 0$/queue 0-1/' "$conf"
	if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.dead.log"; then
		mapfile -t fds < <(nfq_fds "$SRV6D_PID")
		check "two queue sockets found (${fds[*]})" test "${#fds[@]}" -eq 2
		gdb -p "$SRV6D_PID" -batch -ex "call (int)dup2(0, ${fds[1]:-999})" >"$TMPD/gdb.log" 2>&1
		wait_until 10 srv6d_gone
		srv6d_stop; rc=$SRV6D_RC
		check "srv6d exits on its own, non-zero, after a worker died (rc=$rc)" \
			eval '[ "$rc" -ne 0 ] && [ "$rc" -ne 255 ]'
		check "the log names the queue and the error" \
			grep -q 'queue 1: worker stopped: Socket operation on non-socket' "$SRV6D_LOG"
		check "steering rules removed at that exit" \
			bash -c "! ip netns exec $NS_RTR ip6tables -t raw -S | grep -q NFQUEUE"
	else
		fail "dead worker" "srv6d did not start"
	fi
	sed -i 's/^queue 0-1$/queue 0/' "$conf"
fi

summary
