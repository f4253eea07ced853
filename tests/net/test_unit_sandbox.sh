#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_unit_sandbox.sh - srv6d under the sandbox of its own unit.  systemd is
# not PID 1 here, so the test reads every [Service] property of
# systemd/srv6d.service.in and applies the sandboxing ones itself, the way
# systemd 252 (Debian 12) does in src/core/namespace.c: in a private mount
# namespace (unshare) the mount entries of ProtectSystem=, ProtectHome=,
# PrivateTmp=, PrivateDevices=, ProtectKernelTunables=, ProtectKernelModules=,
# ProtectKernelLogs=, ProtectControlGroups=, ReadWritePaths=, ReadOnlyPaths=,
# InaccessiblePaths= and RuntimeDirectory= are sorted by path, applied, and
# every mount then takes the read-only flag of the deepest entry covering it
# (nosuid everywhere with NoNewPrivileges=); ProtectHostname= is a UTS
# namespace; CapabilityBoundingSet=, AmbientCapabilities= (less what the
# Protect*/PrivateDevices= settings drop) and NoNewPrivileges= go to setpriv;
# MemoryDenyWriteExecute= is the kernel's PR_SET_MDWE (where it has it); the
# environment is a service's (env -i, PATH, stdin /dev/null, umask 022).  The
# seccomp properties (SystemCallFilter=, RestrictAddressFamilies=,
# SystemCallArchitectures=, RestrictNamespaces=, RestrictRealtime=,
# RestrictSUIDSGID=, LockPersonality=) cannot be enforced without systemd:
# they are audited instead (6. below) and printed as a named list with what
# else is not applied.  A property the test does not know is a [FAIL], so a
# change of the unit comes with its emulation.  The unit's own ExecStartPre=,
# ExecStart= and ExecReload= lines run in that sandbox in rtr (@SBINDIR@,
# @SYSCONFDIR@ and %t filled in as `make install` and systemd do: the build's
# srv6d bind-mounted into a stand-in of the installation under
# /run/srv6d-sandbox.*, whose private runtime directory stands in for
# /run/srv6d).
#
#   +---------------+      +-----------------------------------+      +---------------+
#   | src           |      | rtr   the unit's sandbox:         |      | dst           |
#   |          eth0 +------+ eth0   srv6d (queue 0)       eth1 +------+ eth0          |
#   | 2001:db8:1::1 |      | 2001:db8:1::2       2001:db8:2::1 |      | 2001:db8:2::2 |
#   | 10.1.0.1/24   |      | 10.1.0.2             10.2.0.1     |      | 10.2.0.2/24   |
#   +---------------+      |  srv6d0 <-veth-> srv6d0p (srv6d)  |      |  captures     |
#     scapy sends          +-----------------------------------+      +---------------+
#
# SIDs: 2001:db8:ff::1 End, 2001:db8:ff::41 End.DX4 nh4 10.2.0.2; with a route
# line the policy 2001:db8:99::/64 encap segs 2001:db8:aa::1,2001:db8:aa::2.
# Checks:
# 1.-4. for each start (egress inject; gso on; a route line; egress auto):
#   ExecStartPre (srv6d --check) passes, ExecStart brings srv6d up, srv6d0 and
#   srv6d0p carry the sysctls srv6d writes (src/datapath/inject.c), End, End.DX4
#   (an IPv4 result: injected through srv6d0) and the policy reach dst
#   processed, srv6d stops with exit 0 and deletes srv6d0; once: srv6d runs
#   with the unit's capabilities and no_new_privs, every mount entry is in
#   force in its mount namespace, ExecReload reloads it.
# 5. the same sandbox without the unit's ReadWritePaths= below /proc/sys (a
#   read-only /proc/sys/net): srv6d cannot configure srv6d0 and says so:
#   egress inject and a route line are start-up failures (exit 3) naming the
#   sysctl and what must be writable; egress auto starts without the device,
#   logs a warning with the reason and one for the End.DX4 line, srv6ctl
#   status names it, End.DX4 packets are dropped and counted as "unsupported".
# 6. the seccomp audit: srv6d (egress inject, a policy) under strace in the
#   sandbox, with traffic, a reload and a stop; every system call it and its
#   children (the iptables tools) made is one the unit's SystemCallFilter=
#   lets through (its groups as systemd-analyze lists them), every socket of
#   a RestrictAddressFamilies= family, no 32-bit call, no new namespace, no
#   realtime policy, no set-ID mode, no personality change.
# 7. ingress-napi (implying worker-sched fifo 10): under the shipped unit a
#   start-up failure naming the device, the read-only /sys and the drop-in;
#   with that drop-in (ReadWritePaths=/sys/class/net/IF/, RestrictRealtime=no,
#   LimitRTPRIO=10; CAP_SYS_NICE instead where this machine cannot raise
#   RLIMIT_RTPRIO: no CAP_SYS_RESOURCE) the device switched, the worker SCHED_FIFO 10, End works,
#   the device put back at the stop; with the /sys line only, the worker
#   SCHED_OTHER and a warning naming LimitRTPRIO.
#
# UNIT_TEMPLATE=FILE checks another unit text (default systemd/srv6d.service.in),
# e.g. an older one: git show REV:systemd/srv6d.service.in >FILE.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
EG="$LIB_DIR/egress.py"
UNIT_TEMPLATE=${UNIT_TEMPLATE:-$TOP_DIR/systemd/srv6d.service.in}

require_env
# (strace: scripts/deps.sh; systemd-analyze: the systemd package)
for t in unshare setpriv env realpath strace systemd-analyze; do
	command -v "$t" >/dev/null || { echo "SKIP: $t not found"; exit $ksft_skip; }
done
[ -r "$UNIT_TEMPLATE" ] || { echo "[FAIL] unit: $UNIT_TEMPLATE: not readable"; exit 1; }
if ! srv6d_built || ! [ -x "$BUILD/srv6ctl" ]; then
	echo "[FAIL] $SRV6D or srv6ctl not built"; exit 1
fi
# Outside /tmp and /home (the sandbox hides them): the installation stand-in
# (etc, sbin), the private runtime directory, private /tmp and /var/tmp, the
# inaccessible nodes, the private /dev's staging mount.
STAGE=$(mktemp -d /run/srv6d-sandbox.XXXXXX) || exit 1
sbx_cleanup() {
	cleanup_srv6d
	rm -rf "$STAGE"
}
cleanup_srv6d() { [ -n "$SRV6D_PID" ] && srv6d_stop >/dev/null; true; }
trap 'sbx_cleanup; cleanup' EXIT
topo_create || { echo "cannot create the topology"; exit 1; }

# ---- IPv4 on top of lib.sh's topology (End.DX4) ----
ip -n "$NS_SRC" addr add 10.1.0.1/24 dev eth0
ip -n "$NS_RTR" addr add 10.1.0.2/24 dev "$RTR_IF_SRC"
ip -n "$NS_RTR" addr add 10.2.0.1/24 dev "$RTR_IF_DST"
ip -n "$NS_DST" addr add 10.2.0.2/24 dev eth0
ip -n "$NS_SRC" neigh replace 10.1.0.2 lladdr "$RTR_MAC_SRC" dev eth0 nud permanent
ip -n "$NS_RTR" neigh replace 10.2.0.2 lladdr "$DST_MAC" dev "$RTR_IF_DST" nud permanent
ip -n "$NS_SRC" route add default via 10.1.0.2
in_rtr sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 >/dev/null

# ---- the unit's [Service] properties ----------------------------------------
# unit_props FILE: "KEY<TAB>VALUE" per [Service] assignment, in order
# (continuation lines joined, comments and other sections skipped).
unit_props() {
	awk '
		/^[ \t]*[#;]/ || /^[ \t]*$/ { next }
		/^[ \t]*\[/ { sec = $0; gsub(/[ \t]/, "", sec); next }
		sec == "[Service]" {
			line = $0
			while (line ~ /\\$/ && (getline nxt) > 0) { sub(/\\$/, " ", line); line = line nxt }
			i = index(line, "="); if (!i) { print "?\t" line; next }
			k = substr(line, 1, i - 1); v = substr(line, i + 1)
			gsub(/^[ \t]+|[ \t]+$/, "", k); gsub(/^[ \t]+|[ \t]+$/, "", v)
			print k "\t" v
		}' "$1"
}

# The properties and what the test does with each.
#   emulated: applied to srv6d (see the header)
#   audited: systemd's seccomp filters, not enforced (no systemd as PID 1):
#            the audit (6.) checks what srv6d calls against them
#   seccomp: seccomp settings neither enforced nor audited
#   manager: the service manager's own business (test_service.sh covers
#            Type=notify and the watchdog); the Exec lines are run
declare -A SBX_SECCOMP=()   # the seccomp properties' values (sbx_parse)
declare -A KIND=(
	[ProtectSystem]=emulated [ProtectHome]=emulated [PrivateTmp]=emulated
	[PrivateDevices]=emulated [ProtectKernelTunables]=emulated
	[ProtectKernelModules]=emulated [ProtectKernelLogs]=emulated
	[ProtectControlGroups]=emulated [ProtectHostname]=emulated
	[ReadWritePaths]=emulated [ReadOnlyPaths]=emulated [InaccessiblePaths]=emulated
	[RuntimeDirectory]=emulated [RuntimeDirectoryMode]=emulated
	[CapabilityBoundingSet]=emulated [AmbientCapabilities]=emulated
	[NoNewPrivileges]=emulated [MemoryDenyWriteExecute]=emulated [LimitRTPRIO]=emulated
	[RestrictNamespaces]=audited [RestrictRealtime]=audited
	[RestrictSUIDSGID]=audited [LockPersonality]=audited
	[RestrictAddressFamilies]=audited [SystemCallArchitectures]=audited
	[SystemCallFilter]=audited
	[ProtectClock]=seccomp [SystemCallErrorNumber]=seccomp
	[Type]=manager [NotifyAccess]=manager [ExecStartPre]=manager [ExecStart]=manager
	[ExecReload]=manager [Restart]=manager [RestartSec]=manager
	[RestartPreventExitStatus]=manager [WatchdogSec]=manager [TimeoutStopSec]=manager
)
# The kernel's PR_SET_MDWE (Linux 6.3): MemoryDenyWriteExecute= without seccomp.
MDWE_PY='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(65, 1, 0, 0, 0):   # PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN
    sys.exit("sandbox: PR_SET_MDWE: " + os.strerror(ctypes.get_errno()))
os.execvp(sys.argv[1], sys.argv[1:])'
have_mdwe() { "$PY" -c 'import ctypes, sys; sys.exit(ctypes.CDLL(None).prctl(66, 0, 0, 0, 0) < 0)'; }

yes_no() { case "$1" in yes|true|on|1) echo 1 ;; no|false|off|0) echo 0 ;; *) echo bad ;; esac; }
# caps_of "CAP_A CAP_B": "a,b" (setpriv's names)
caps_of() { local c out=; for c in $1; do c=${c#CAP_}; out+=${out:+,}${c,,}; done; echo "$out"; }

# sbx_parse UNIT ENTRIES [quiet]: read UNIT, write the sandbox's ENTRIES file
# (read by sandbox.sh below) and set PRE/START/RELOAD (the Exec lines,
# expanded), SBX_UNSHARE, SBX_CAPS (the capabilities srv6d must end up with:
# the bounding set's, "" when the unit sets none or an inverted one); fail
# what is unknown (unless quiet).
sbx_parse() {
	local unit=$1 out=$2 quiet=${3:-} k v kb nb p
	local psys=no phome=no ptmp=0 pdev=0 pkt=0 pkm=0 pkl=0 pcg=0 phost=0 pclock=0 nnp=0 mdwe=0
	local -a rw=() ro=() inacc=() rtdirs=() seccomp=() audited=() manager=() bad=()
	local rtmode=0755 bnd='' bnd_set=0 amb='' rtprio=''
	PRE=() START=() RELOAD=() SBX_CAPS=
	SBX_SECCOMP=()
	while IFS=$'\t' read -r k v; do
		case "${KIND[$k]:-}" in
		'') bad+=("$k (unknown to this test: emulate it or name it as not emulated)"); continue ;;
		audited|seccomp)
			if [ "$k" = ProtectClock ]; then
				pclock=$(yes_no "$v")
				seccomp+=("$k=$v (its @clock filter; its capability drop is applied)")
			elif [ "${KIND[$k]}" = audited ]; then
				audited+=("$k=$v")
			else
				seccomp+=("$k=$v")
			fi
			# repeated: one line each ("" resets)
			if [ -z "$v" ]; then SBX_SECCOMP[$k]=''
			else SBX_SECCOMP[$k]+=$v$'\n'; fi
			continue ;;
		manager) manager+=("$k=") ;;
		esac
		case $k in
		ProtectSystem) case $v in strict|full|yes|true|no|false) psys=$v ;;
			*) bad+=("ProtectSystem=$v (value unknown to this test)") ;; esac ;;
		ProtectHome) case $v in yes|true|read-only|no|false) phome=$v ;;
			*) bad+=("ProtectHome=$v (value unknown to this test)") ;; esac ;;
		PrivateTmp) ptmp=$(yes_no "$v") ;;
		PrivateDevices) pdev=$(yes_no "$v") ;;
		ProtectKernelTunables) pkt=$(yes_no "$v") ;;
		ProtectKernelModules) pkm=$(yes_no "$v") ;;
		ProtectKernelLogs) pkl=$(yes_no "$v") ;;
		ProtectControlGroups) pcg=$(yes_no "$v") ;;
		ProtectHostname) phost=$(yes_no "$v") ;;
		NoNewPrivileges) nnp=$(yes_no "$v") ;;
		MemoryDenyWriteExecute) mdwe=$(yes_no "$v") ;;
		LimitRTPRIO) case $v in ''|*[!0-9]*) bad+=("LimitRTPRIO=$v (a value this test cannot apply)") ;;
			*) rtprio=$v ;; esac ;;
		ReadWritePaths) if [ -z "$v" ]; then rw=(); else read -ra p <<<"$v"; rw+=("${p[@]}"); fi ;;
		ReadOnlyPaths) if [ -z "$v" ]; then ro=(); else read -ra p <<<"$v"; ro+=("${p[@]}"); fi ;;
		InaccessiblePaths) if [ -z "$v" ]; then inacc=(); else read -ra p <<<"$v"; inacc+=("${p[@]}"); fi ;;
		RuntimeDirectory) read -ra p <<<"$v"; rtdirs+=("${p[@]}") ;;
		RuntimeDirectoryMode) rtmode=$v ;;
		CapabilityBoundingSet)
			if [ -z "$v" ]; then bnd='' bnd_set=0
			elif [ "${v#\~}" != "$v" ]; then bnd="+all,-$(caps_of "${v#\~}" | sed 's/,/,-/g')" bnd_set=1
				SBX_CAPS=
			else bnd="-all,+$(caps_of "$v" | sed 's/,/,+/g')" bnd_set=1
				SBX_CAPS=$(caps_of "$v"); fi ;;
		AmbientCapabilities) [ -n "$v" ] && amb=$(caps_of "$v") ;;
		ExecStartPre|ExecStart|ExecReload)
			v=${v//@SBINDIR@/$STAGE/sbin}; v=${v//@SYSCONFDIR@/$STAGE/etc}; v=${v//%t//run}
			case $v in [-+!@:]*) bad+=("$k=$v (an Exec prefix this test does not run)"); continue ;; esac
			case $v in *@*@*|*%*) bad+=("$k=$v (a placeholder or specifier left)"); continue ;; esac
			case $k in
			ExecStartPre) read -ra PRE <<<"$v" ;;
			ExecStart) read -ra START <<<"$v" ;;
			ExecReload) read -ra RELOAD <<<"$v" ;;
			esac ;;
		esac
	done < <(unit_props "$unit")
	for k in ptmp pdev pkt pkm pkl pcg phost pclock nnp mdwe; do
		[ "${!k}" = bad ] && bad+=("$k: a boolean this test cannot read")
	done
	if [ "$mdwe" = 1 ] && ! have_mdwe; then
		seccomp+=("MemoryDenyWriteExecute=yes (this kernel has no PR_SET_MDWE)"); mdwe=0
	fi
	[ ${#START[@]} -gt 0 ] || bad+=("no ExecStart= line")
	if [ -z "$quiet" ]; then
		for p in "${bad[@]}"; do fail "unit: $p"; done
		[ ${#bad[@]} -eq 0 ] &&
			ok "unit: every [Service] property is emulated or named as not emulated"
	fi
	# what the emulated ones imply and the test does not apply either
	[ "$pdev" = 1 ] && seccomp+=("PrivateDevices='s @raw-io filter and DevicePolicy=closed")
	[ "$pkm" = 1 ] && seccomp+=("ProtectKernelModules='s @module filter")
	[ "$pkl" = 1 ] && seccomp+=("ProtectKernelLogs='s syslog(2) filter")
	[ "$phost" = 1 ] && seccomp+=("ProtectHostname='s sethostname(2) filter")
	SBX_NOT_EMULATED=$(printf '%s; ' "${seccomp[@]}") SBX_MANAGER="${manager[*]}"
	SBX_AUDITED=$(printf '%s; ' "${audited[@]}")

	# The mount entries: "PRIORITY MODE IGNORE PATH [SOURCE]"; the priority
	# is systemd's MountMode order (the first of two entries of one path wins).
	local -a ents=() paths=()
	ent() { # MODE PATH [SOURCE]; a leading "-" on PATH: ignored when missing
		local prio ign=0 path=$2
		case $1 in inaccessible) prio=0 ;; private-tmp) prio=4 ;; private-dev) prio=6 ;;
			read-only) prio=11 ;; read-write) prio=12 ;; rw-implicit) prio=17 ;; esac
		[ "${path#-}" != "$path" ] && { ign=1; path=${path#-}; }
		ents+=("$prio $1 $ign ${3:--}"); paths+=("${path#+}")
	}
	case $psys in
	strict) ent read-only /
		for p in /proc /sys /dev; do ent rw-implicit "$p"; done
		for p in /home /run/user /root; do ent rw-implicit "-$p"; done ;;
	full) ent read-only /usr; ent read-only -/boot; ent read-only -/efi; ent read-only /etc ;;
	yes|true) ent read-only /usr; ent read-only -/boot; ent read-only -/efi ;;
	esac
	case $phome in
	yes|true) for p in /home /run/user /root; do ent inaccessible "-$p" "$STAGE/inacc"; done ;;
	read-only) for p in /home /run/user /root; do ent read-only "-$p"; done ;;
	esac
	[ "$ptmp" = 1 ] && { ent private-tmp /tmp "$STAGE/tmp"; ent private-tmp /var/tmp "$STAGE/vartmp"; }
	[ "$pdev" = 1 ] && ent private-dev /dev "$STAGE/dev"
	if [ "$pkt" = 1 ]; then
		for p in /proc/acpi /proc/apm /proc/asound /proc/bus /proc/fs /proc/irq \
			/proc/latency_stats /proc/mtrr /proc/scsi /proc/sysrq-trigger /proc/timer_stats \
			/sys/fs/bpf /sys/kernel/debug /sys/kernel/tracing; do
			ent read-only "-$p"
		done
		ent read-only /proc/sys; ent read-only /sys
		ent inaccessible -/proc/kallsyms "$STAGE/inacc"; ent inaccessible -/proc/kcore "$STAGE/inacc"
		ent rw-implicit /sys/fs/cgroup; ent rw-implicit -/sys/fs/selinux
	fi
	[ "$pkm" = 1 ] && { ent inaccessible -/usr/lib/modules "$STAGE/inacc"; ent inaccessible -/lib/modules "$STAGE/inacc"; }
	[ "$pkl" = 1 ] && { ent inaccessible -/proc/kmsg "$STAGE/inacc"; ent inaccessible -/dev/kmsg "$STAGE/inacc"; }
	[ "$pcg" = 1 ] && ent read-only /sys/fs/cgroup
	# RuntimeDirectory= is one more ReadWritePaths= entry (systemd 252)
	for p in "${rtdirs[@]}"; do ent read-write "/run/$p"; done
	for p in "${rw[@]}"; do ent read-write "$p"; done
	for p in "${ro[@]}"; do ent read-only "$p"; done
	for p in "${inacc[@]}"; do ent inaccessible "$p" "$STAGE/inacc"; done
	# systemd follows symlinks of entry paths (/lib/modules -> usr/lib/modules;
	# /sys/class/net/IF -> the device's directory, in srv6d's namespace)
	mapfile -t paths < <(ip netns exec "$NS_RTR" realpath -m -- "${paths[@]}")
	for k in "${!ents[@]}"; do
		set -- ${ents[$k]}
		echo "$1 $2 $3 ${paths[$k]} $4"
	done | LC_ALL=C sort -s -k4,4 -k1,1n | awk '
		$4 == last { next }                      # duplicates: the first wins
		hide != "" && index($4, hide) == 1 { next }   # below an inaccessible path
		{ last = $4; hide = ($2 == "inaccessible") ? $4 "/" : ""; print "mount", $2, $3, $4, $5 }' >"$out"

	# Capabilities: the bounding set less what the other settings drop.
	kb=''
	[ "$pdev" = 1 ] && kb+=",-mknod,-sys_rawio"
	[ "$pkm" = 1 ] && kb+=",-sys_module"
	[ "$pkl" = 1 ] && kb+=",-syslog"
	[ "$pclock" = 1 ] && kb+=",-sys_time,-wake_alarm"
	[ "$bnd_set" = 1 ] || bnd=+all
	nb=$bnd$kb
	{
		[ "$nnp" = 1 ] && { echo "setpriv --no-new-privs"; echo "nosuid"; }
		echo "setpriv --bounding-set=$nb"
		if [ -n "$amb" ]; then
			echo "setpriv --inh-caps=-all,+${amb//,/,+}"
			echo "setpriv --ambient-caps=-all,+${amb//,/,+}"
		fi
		[ "$mdwe" = 1 ] && echo "mdwe"
		# LimitRTPRIO= unset: systemd's default, the kernel's 0 (not what
		# the test inherits)
		echo "rlimit rtprio ${rtprio:-0}"
		for p in "${rtdirs[@]}"; do echo "runtime /run/$p $rtmode"; done
	} >>"$out"
	SBX_UNSHARE=(unshare --mount --propagation private)
	[ "$phost" = 1 ] && SBX_UNSHARE+=(--uts)
	return 0
}

# sandbox.sh ENTRIES -- CMD...: run as root in a new private mount namespace:
# apply ENTRIES, then exec CMD with the unit's credentials, in systemd's
# environment for a service.
cat >"$STAGE/sandbox.sh" <<'SANDBOX'
set -eu
entries=$1; shift; shift
stage=$(dirname "$0")
umask 022
die() { echo "sandbox: $*" >&2; exit 226; }   # systemd's 226/NAMESPACE
# a private /dev as systemd's mount_private_dev() builds it
private_dev() {
	local d=$1 n
	mkdir -p "$d"
	mount -t tmpfs -o nosuid,noexec,strictatime,mode=755 tmpfs "$d"
	mkdir "$d/pts" "$d/shm"
	mount --bind /dev/pts "$d/pts"; mount --bind /dev/shm "$d/shm"
	if [ -L /dev/ptmx ]; then ln -s pts/ptmx "$d/ptmx"; else mknod -m 666 "$d/ptmx" c 5 2; fi
	for n in mqueue hugepages; do
		[ -d "/dev/$n" ] && mkdir "$d/$n" && { mount --bind "/dev/$n" "$d/$n" || true; }
	done
	ln -s /run/systemd/journal/dev-log "$d/log"
	for n in null zero full random urandom tty; do
		[ -c "/dev/$n" ] || continue
		# shellcheck disable=SC2046  # mode, major, minor
		set -- $(stat -c '%a %t %T' "/dev/$n")
		mknod -m "$1" "$d/$n" c $((16#$2)) $((16#$3))
	done
	ln -s /proc/self/fd "$d/fd"
	ln -s /proc/self/fd/0 "$d/stdin"; ln -s /proc/self/fd/1 "$d/stdout"
	ln -s /proc/self/fd/2 "$d/stderr"
	[ -e /proc/kcore ] && ln -s /proc/kcore "$d/core"
	mount --move "$d" /dev
}
sp=() pre=() nosuid=0 rl=()
# the private runtime directory of the stand-in (systemd creates /run/NAME)
while read -r kind a b _; do
	case $kind in
	runtime) mkdir -p "$stage/rt"; chmod "$b" "$stage/rt"; mkdir -p "$a"
		mount --bind "$stage/rt" "$a" ;;
	esac
done <"$entries"
# the installation stand-in: the build's srv6d as $stage/sbin/srv6d
mount --bind "$SBX_SRV6D" "$stage/sbin/srv6d"
declare -A mnt=()   # the mount points now
while read -r _ _ _ _ t _; do mnt[$t]=1; done </proc/self/mountinfo
applied=
while read -r kind mode ign path src; do
	case $kind in
	setpriv) sp+=("$mode") ;;
	mdwe) pre=(/usr/bin/python3 -c "$SBX_MDWE_PY") ;;
	rlimit) rl=(prlimit "--$mode=$ign:$ign") ;;   # LimitRTPRIO=: soft and hard
	nosuid) nosuid=1 ;;
	mount)
		if ! [ -e "$path" ]; then
			[ "$ign" = 1 ] && continue
			die "$path: no such file or directory"
		fi
		case $mode in
		inaccessible)
			if [ -d "$path" ]; then mount --bind "$src/dir" "$path"
			else mount --bind "$src/reg" "$path"; fi ;;
		private-tmp) mount --bind "$src" "$path" ;;
		private-dev) private_dev "$src" ;;
		*) [ -n "${mnt[$path]:-}" ] || mount --rbind "$path" "$path" ;;
		esac || die "$mode $path: cannot mount"
		mnt[$path]=1
		applied+="$mode $path"$'\n' ;;
	esac
done <"$entries"
# The read-only (and nosuid) flags: each mount takes them from the deepest
# entry covering it (systemd's deny lists); a private /dev is read-only
# itself, not its submounts.  "TARGET OPTIONS" of each mount to change.
while read -r target opts; do
	case $target in *\\*) target=$(printf '%b' "$target") ;; esac
	# (a mount point another test's `ip netns del` unlinked is out of reach)
	if ! err=$(mount -o "remount,bind,$opts" "$target" 2>&1) && [ -e "$target" ]; then
		die "$target: cannot remount $opts: $err"
	fi
done < <(awk -v applied="$applied" -v nosuid=$nosuid '
	BEGIN { n = split(applied, a, "\n"); for (i = 1; i <= n; i++) {
		if (a[i] == "") continue
		j = index(a[i], " "); mode[++m] = substr(a[i], 1, j - 1); path[m] = substr(a[i], j + 1) } }
	{ o[$5] = $6; if (!($5 in seen)) { seen[$5] = 1; t[++k] = $5 } }
	END {
		for (i = 1; i <= k; i++) {
			best = -1; bm = ""; exact = 0
			for (e = 1; e <= m; e++) {
				p = path[e]
				if ((p == "/" || t[i] == p || index(t[i], p "/") == 1) && length(p) > best) {
					best = length(p); bm = mode[e]; exact = t[i] == p
				}
			}
			w = o[t[i]]
			if (bm == "read-only" || bm == "inaccessible" || (bm == "private-dev" && exact))
				if (w == "rw") w = "ro"; else if (substr(w, 1, 3) == "rw,") w = "ro," substr(w, 4)
			if (nosuid && ("," w ",") !~ /,nosuid,/) w = w ",nosuid"
			if (w != o[t[i]]) print t[i], w
		}
	}' /proc/self/mountinfo)
keep=()
for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS; do
	[ -n "${!v:-}" ] && keep+=("$v=${!v}")
done
exec </dev/null env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	LANG=C.UTF-8 "${keep[@]}" "${rl[@]}" setpriv "${sp[@]}" -- "${pre[@]}" "$@"
SANDBOX
mkdir -p "$STAGE/etc/srv6d" "$STAGE/sbin" "$STAGE/tmp" "$STAGE/vartmp" "$STAGE/dev" \
	"$STAGE/inacc/dir"
chmod 1777 "$STAGE/tmp" "$STAGE/vartmp"
: >"$STAGE/sbin/srv6d"
: >"$STAGE/inacc/reg"
chmod 000 "$STAGE/inacc/dir" "$STAGE/inacc/reg"
export SBX_SRV6D=$SRV6D SBX_MDWE_PY=$MDWE_PY
CTL="$BUILD/srv6ctl -S $STAGE/rt/srv6d.sock"

# sbx ENTRIES CMD... &: CMD in rtr under the sandbox ENTRIES describes, in
# the background, $! its pid (every step execs); sbx_wait ENTRIES CMD...: the
# same in the foreground, for at most 30 s
sbx() {
	local e=$1; shift
	exec ip netns exec "$NS_RTR" "${SBX_UNSHARE[@]}" -- bash "$STAGE/sandbox.sh" "$e" -- "$@"
}
sbx_wait() {
	local e=$1; shift
	timeout 30 ip netns exec "$NS_RTR" "${SBX_UNSHARE[@]}" -- bash "$STAGE/sandbox.sh" "$e" -- "$@"
}

UNIT=$STAGE/unit.service
cp "$UNIT_TEMPLATE" "$UNIT"
sbx_parse "$UNIT" "$STAGE/entries"
WANT_CAPS=$SBX_CAPS
echo "# unit: $UNIT_TEMPLATE"
echo "# seccomp, audited (6.), not enforced: ${SBX_AUDITED:-none}"
echo "# not applied: ${SBX_NOT_EMULATED:-none}"
echo "# the service manager's (Exec lines run, the rest not emulated): $SBX_MANAGER"
echo "# sandbox mounts: $(awk '$1 == "mount" {printf "%s %s%s; ", $2, $3 == 1 ? "-" : "", $4}' "$STAGE/entries")"
echo "# credentials: $(awk '$1 == "setpriv" {printf "%s ", $2} $1 == "mdwe" {printf "PR_SET_MDWE "}' "$STAGE/entries")"
# The same sandbox without the unit's ReadWritePaths= below /proc/sys.
sed -E '/^ReadWritePaths=/{s#[[:space:]]+-?/proc/sys[^[:space:]]*##g; s#=-?/proc/sys[^[:space:]]*[[:space:]]*#=#}' \
	"$UNIT" >"$STAGE/unit-ro.service"
sed -i '/^ReadWritePaths=$/d' "$STAGE/unit-ro.service"
sbx_parse "$STAGE/unit-ro.service" "$STAGE/entries-ro" quiet

# ---- srv6d in the sandbox ---------------------------------------------------
CONF=$STAGE/etc/srv6d/srv6d.conf
base_conf() {
	cat <<CONF
queue 0
log-level info
encap-source 2001:db8:2::1
sid 2001:db8:ff::1 action End
sid 2001:db8:ff::41 action End.DX4 nh4 10.2.0.2
CONF
}
# unit_start NAME ENTRIES: ExecStartPre, then ExecStart in the background
# (SRV6D_PID); true when srv6d is up.
unit_start() {
	local name=$1 e=$2 out
	rm -rf "$STAGE/rt"
	if out=$(sbx_wait "$e" "${PRE[@]}" 2>&1); then
		ok "$name: ExecStartPre (srv6d --check) passes in the sandbox"
	else   # systemd would not run ExecStart
		fail "$name: ExecStartPre (srv6d --check) passes in the sandbox" "$out"
		return 1
	fi
	SRV6D_CONF=$CONF SRV6D_STATS=$STAGE/rt/stats SRV6D_LOG=$TMPD/srv6d.${name//[^a-z0-9]/_}.log SRV6D_RC=
	sbx "$e" "${START[@]}" >"$SRV6D_LOG" 2>&1 &
	SRV6D_PID=$!
	if wait_until 10 up_or_dead && srv6d_ready; then
		ok "$name: ExecStart: srv6d is up in the sandbox"
		return 0
	fi
	srv6d_alive || { wait "$SRV6D_PID"; SRV6D_RC=$?; SRV6D_PID=; }
	fail "$name: ExecStart: srv6d is up in the sandbox" "exit ${SRV6D_RC:-none}:" \
		"$(head -5 "$SRV6D_LOG")"
	cleanup_srv6d
	return 1
}
up_or_dead() { srv6d_ready || ! srv6d_alive; }
unit_stop() { # NAME
	srv6d_stop
	check "$1: srv6d stops with exit 0 (${SRV6D_RC:-})" test "${SRV6D_RC:-1}" -eq 0
	check "$1: srv6d0 deleted at exit" eval '! ip -n "$NS_RTR" link show srv6d0 >/dev/null 2>&1'
}

# the sysctls srv6d sets on its veth pair (inject.c dev_sysctls)
SYSCTLS="ipv6/conf/srv6d0/disable_ipv6=0 ipv6/conf/srv6d0/force_mld_version=1
ipv6/conf/srv6d0/accept_ra=0 ipv6/conf/srv6d0/accept_dad=0 ipv6/conf/srv6d0/forwarding=0
ipv6/conf/srv6d0/seg6_enabled=1 ipv4/conf/srv6d0/rp_filter=0
ipv4/conf/srv6d0/src_valid_mark=1 ipv4/conf/srv6d0/accept_local=1
ipv6/conf/srv6d0p/disable_ipv6=1"
check_sysctls() { # NAME
	local s v bad=()
	for s in $SYSCTLS; do
		v=$(in_rtr cat "/proc/sys/net/${s%=*}" 2>/dev/null) || v=none
		[ "$v" = "${s#*=}" ] || bad+=("net/${s%=*} is $v, want ${s#*=}")
	done
	if [ ${#bad[@]} -eq 0 ]; then ok "$1: srv6d0 and srv6d0p carry srv6d's sysctls"
	else fail "$1: srv6d0 and srv6d0p carry srv6d's sysctls" "${bad[@]}"; fi
}

# da HEX: an IPv6 packet's destination (hex)
da() { echo "${1:48:32}"; }
FF1=20010db800ff00000000000000000001
AA1=20010db800aa00000000000000000001
send_end() { # NAME: the End case: 4 packets, each with its next segment as DA
	local out n=0 same=0 h
	out=$(pkt_to_dst send --case end)
	while read -r _ _ _ h; do
		n=$((n + 1)); [ "$(da "$h")" = $FF1 ] && same=$((same + 1))
	done < <(grep '^RX' <<<"$out")
	check "$1: End: 4 packets reach dst processed ($n arrived, $same unprocessed)" \
		test $n -eq 4 -a $same -eq 0
}
send_dx4() { # NAME [WANT]: the End.DX4 case: its 2 IPv4 packets at dst
	local n
	n=$("$PY" "$EG" send --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" --cap-ns "$NS_DST" \
		--case dx4 --timeout 2 --expect "${2:-2}" | awk '$1 == "RX" && $4 == "0800"' | wc -l)
	if [ "${2:-2}" -gt 0 ]; then
		check "$1: End.DX4: 2 IPv4 results injected through srv6d0 reach dst ($n)" test "$n" -eq 2
	else
		check "$1: End.DX4: nothing reaches dst ($n)" test "$n" -eq 0
	fi
}
send_policy() { # NAME: the policy: 2 packets encapsulated toward aa::1
	local out n=0 good=0 h
	out=$(pkt_to_dst send --case policy-encap)
	while read -r _ _ _ h; do
		n=$((n + 1)); [ "$(da "$h")" = $AA1 ] && good=$((good + 1))
	done < <(grep '^RX' <<<"$out")
	check "$1: policy: 2 packets reach dst encapsulated toward aa::1 ($good of $n)" \
		test $n -eq 2 -a $good -eq 2
}
# mnt_opts PID PATH: the per-mount options of the mount at PATH in PID's view
mnt_opts() { awk -v t="$2" '$5 == t { o = $6 } END { print o }' "/proc/$1/mountinfo"; }

# ---- 1. egress inject (and, once, the sandbox itself and ExecReload) ----
{ base_conf; echo "egress inject"; } >"$CONF"
if unit_start "egress inject" "$STAGE/entries"; then
	# the unit's capabilities as a mask (numbers from the kernel's header)
	mask=0
	for c in ${WANT_CAPS//,/ }; do
		b=$(awk -v n="CAP_${c^^}" '$1 == "#define" && $2 == n { print $3 }' \
			/usr/include/linux/capability.h)
		mask=$((mask | 1 << ${b:-63}))
	done
	want=$(printf '%016x' $mask)
	got=$(awk '/^(CapEff|CapBnd|NoNewPrivs):/ {printf "%s %s ", $1, $2}' "/proc/$SRV6D_PID/status")
	if [ -n "$WANT_CAPS" ]; then want="CapEff: $want CapBnd: $want NoNewPrivs: 1 "
	else want="${got%NoNewPrivs:*}NoNewPrivs: 1 "; fi   # an inverted set: no_new_privs only
	check "sandbox: srv6d runs with the unit's capabilities only (${WANT_CAPS:-unchecked}), no_new_privs ($got)" \
		test "$got" = "$want"
	# every mount entry is in force in srv6d's mount namespace
	bad=() n=0
	while read -r kind mode ign p _; do
		[ "$kind" = mount ] || continue
		o=$(mnt_opts "$SRV6D_PID" "$p")
		[ -z "$o" ] && [ "$ign" = 1 ] && continue   # "-": absent here
		n=$((n + 1))
		case $mode in
		read-only|inaccessible) [[ ",$o," == *,ro,* ]] || bad+=("$mode $p: mount options '$o'") ;;
		read-write) [ -n "$o" ] && [[ ",$o," != *,ro,* ]] || bad+=("$mode $p: mount options '$o'") ;;
		private-tmp|private-dev)
			[ "$(stat -L -c %d:%i "/proc/$SRV6D_PID/root$p")" != "$(stat -c %d:%i "$p")" ] ||
				bad+=("$mode $p: the host's") ;;
		esac
	done <"$STAGE/entries"
	if [ ${#bad[@]} -eq 0 ]; then ok "sandbox: srv6d's mounts are the unit's ($n entries in force)"
	else fail "sandbox: srv6d's mounts are the unit's" "${bad[@]}"; fi
	check_sysctls "egress inject"
	send_end "egress inject"
	send_dx4 "egress inject"
	if [ ${#RELOAD[@]} -gt 0 ]; then
		out=$(sbx_wait "$STAGE/entries" "${RELOAD[@]//\$MAINPID/$SRV6D_PID}" 2>&1)
		if wait_until 5 grep -q 'reloaded ' "$SRV6D_LOG"; then
			ok "egress inject: ExecReload reloads srv6d"
		else
			fail "egress inject: ExecReload reloads srv6d" "$out" "$(tail -3 "$SRV6D_LOG")"
		fi
	fi
	unit_stop "egress inject"
fi

# ---- 2. gso on ----
{ base_conf; echo "egress inject"; echo "gso on"; } >"$CONF"
if unit_start "gso on" "$STAGE/entries"; then
	check_sysctls "gso on"
	send_end "gso on"
	unit_stop "gso on"
fi

# ---- 3. a route line (policies are routes through srv6d0 in every mode) ----
{ base_conf; echo "route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2"; } >"$CONF"
if unit_start "route" "$STAGE/entries"; then
	check_sysctls "route"
	send_policy "route"
	unit_stop "route"
fi

# ---- 4. egress auto ----
base_conf >"$CONF"
if unit_start "egress auto" "$STAGE/entries"; then
	check_sysctls "egress auto"
	send_end "egress auto"
	send_dx4 "egress auto"
	unit_stop "egress auto"
fi

# ---- 5. a read-only /proc/sys/net: srv6d says it has no srv6d0 ----
RO="read-only /proc/sys/net"
for mode in "egress inject" "route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1"; do
	{ base_conf; echo "$mode"; } >"$CONF"
	rm -rf "$STAGE/rt"
	what=${mode%% 2001*}
	log=$TMPD/srv6d.ro.${what// /_}.log
	sbx_wait "$STAGE/entries-ro" "${START[@]}" >"$log" 2>&1; rc=$?
	check "$RO, $what: a start-up failure, exit 3 ($rc)" test $rc -eq 3
	check "$RO, $what: the error names the sysctl, the read-only file system, what must be writable" \
		grep -Eq 'egress device srv6d0: sysctl net\.ipv6\.conf\.srv6d0p?\.[a-z_0-9]+: Read-only file system \(/proc/sys/net/ipv6/conf must be writable' "$log"
done
base_conf >"$CONF"
if unit_start "$RO, egress auto" "$STAGE/entries-ro"; then
	check "$RO, egress auto: a warning names the missing device and why" \
		grep -Eq 'no injection egress \(egress device srv6d0: sysctl net\.ipv6\.conf\.srv6d0p?\.[a-z_0-9]+: Read-only file system' "$SRV6D_LOG"
	check "$RO, egress auto: a warning names the End.DX4 line" \
		grep -q 'srv6d.conf:5: End.DX4 (IPv4 results) needs the injection egress' "$SRV6D_LOG"
	out=$($CTL status 2>&1)
	check "$RO, egress auto: srv6ctl status names it" \
		grep -q 'egress ipv4 and l2: no injection device (dropped, counted as unsupported)' <<<"$out"
	check "$RO, egress auto: srv6ctl status says why (the sysctl)" \
		grep -Eq 'egress ipv6 verdicts \(no injection device: egress device srv6d0: sysctl net\.ipv6\.conf\.srv6d0p?\.[a-z_0-9]+: Read-only' <<<"$out"
	check "$RO, egress auto: srv6d0 was not left behind" \
		eval '! ip -n "$NS_RTR" link show srv6d0 >/dev/null 2>&1'
	send_dx4 "$RO, egress auto" 0
	srv6d_stats
	n=$(counter 2001:db8:ff::41 unsupported)
	check "$RO, egress auto: End.DX4 packets counted as unsupported ($n)" test "$n" -eq 2
	unit_stop "$RO, egress auto"
fi

# ---- 6. the seccomp properties: what srv6d and its children call ----
# Not enforced here (no systemd), so audited: srv6d runs in the sandbox under
# strace through a start with the injection egress, a policy, traffic, a
# reload and a stop; every system call it and its children (the iptables
# tools) make must be in SystemCallFilter= (the groups as this systemd's
# systemd-analyze lists them), every socket of a family in
# RestrictAddressFamilies=, no 32-bit call (SystemCallArchitectures=native),
# no new namespace (RestrictNamespaces=), no realtime policy
# (RestrictRealtime=), no set-user/group-ID mode (RestrictSUIDSGID=), no
# personality change (LockPersonality=).
# filter_calls SPEC: the system calls of a SystemCallFilter= value
filter_calls() {
	systemd-analyze syscall-filter --no-pager 2>/dev/null | awk -v spec="$1" '
		/^@/ { g = $1; next }
		g != "" && NF && $1 !~ /^#/ { m[g] = m[g] " " $1 }
		function add(x,   n, i, a) {
			if (x !~ /^@/) { out[x] = 1; return }
			if (x in done) return
			done[x] = 1; n = split(m[x], a, " ")
			for (i = 1; i <= n; i++) add(a[i])
		}
		END { n = split(spec, s, " "); for (i = 1; i <= n; i++) add(s[i]); for (x in out) print x }'
}
# sc_last KEY: the last value of a seccomp property
sc_last() { local v=${SBX_SECCOMP[$1]:-}; v=${v%$'\n'}; echo "${v##*$'\n'}"; }
# filter_split LINES: "MODE<TAB>LIST<TAB>EXCEPT" as systemd combines the
# lines of SystemCallFilter= (or RestrictAddressFamilies=): the first line's
# "~" makes MODE deny (else allow), the lines of that sign make LIST, those
# of the other sign EXCEPT (taken out of LIST); ":ERRNO" suffixes dropped.
filter_split() {
	awk '
		NF == 0 { next }
		{ neg = sub(/^~/, ""); if (mode == "") mode = neg ? "deny" : "allow"
		  for (i = 1; i <= NF; i++) { x = $i; sub(/:.*/, "", x)
			if (neg == (mode == "deny")) l = l " " x; else e = e " " x } }
		END { print mode "\t" l "\t" e }' <<<"$1"
}
# refused CALLS MODE LIST EXCEPT: the CALLS (sorted, one a line) such a
# SystemCallFilter= refuses
refused() {
	local ok
	ok=$(comm -23 <(filter_calls "$3" | sort -u) <(filter_calls "$4" | sort -u))
	case $2 in
	allow) comm -23 <(echo "$1") <(echo "$ok") ;;
	deny) comm -12 <(echo "$1") <(echo "$ok") ;;
	esac
}
audit() {
	local f fx fmode tr calls bad=() c fams famx fmodef tracer
	IFS=$'\t' read -r fmode f fx <<<"$(filter_split "${SBX_SECCOMP[SystemCallFilter]:-}")"
	{ base_conf; echo "egress inject"
	  echo "route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2"; } >"$CONF"
	rm -rf "$STAGE/rt"
	SRV6D_CONF=$CONF SRV6D_STATS=$STAGE/rt/stats SRV6D_LOG=$TMPD/srv6d.audit.log SRV6D_RC=
	# (LeakSanitizer cannot run under ptrace: an ASan build's leak check is off here)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		sbx "$STAGE/entries" strace -f -qq -o /run/srv6d/strace "${START[@]}" >"$SRV6D_LOG" 2>&1 &
	tracer=$! SRV6D_PID=
	tracee() { # srv6d, once strace (the sandbox's last exec) started it
		[ "$(cat "/proc/$tracer/comm" 2>/dev/null)" = strace ] &&
			SRV6D_PID=$(cat "/proc/$tracer/task/$tracer/children" 2>/dev/null) &&
			SRV6D_PID=${SRV6D_PID% } && [ "$(cat "/proc/$SRV6D_PID/comm" 2>/dev/null)" = srv6d ]
	}
	if ! wait_until 10 tracee || ! wait_until 10 up_or_dead || ! srv6d_ready; then
		fail "seccomp audit: srv6d is up under strace" "$(head -5 "$SRV6D_LOG")"
		kill "$tracer" 2>/dev/null; wait "$tracer" 2>/dev/null; SRV6D_PID=
		return
	fi
	send_end "seccomp audit"
	send_dx4 "seccomp audit"
	send_policy "seccomp audit"
	kill -HUP "$SRV6D_PID"; wait_until 5 grep -q 'reloaded ' "$SRV6D_LOG"
	# srv6d is strace's child: strace exits with srv6d's status
	kill -TERM "$SRV6D_PID"
	wait_until 10 srv6d_gone || kill -KILL "$SRV6D_PID"
	wait "$tracer"; SRV6D_RC=$? SRV6D_PID=
	check "seccomp audit: srv6d stops with exit 0 ($SRV6D_RC)" test "$SRV6D_RC" -eq 0
	tr=$STAGE/rt/strace
	calls=$(sed -nE 's/^[0-9]+ +([a-z_0-9]+)\(.*/\1/p' "$tr" | sort -u)
	for c in $(refused "$calls" "$fmode" "$f" "$fx"); do
		bad+=("$c (SystemCallFilter=: $fmode$f${fx:+, except$fx}): $(grep -m1 -E "^[0-9]+ +$c\(" "$tr" | cut -c1-100)")
	done
	check "seccomp audit: the trace holds srv6d's calls ($(echo "$calls" | wc -l) distinct)" \
		grep -q 'sendmmsg\|sendmsg\|sendto' "$tr"
	IFS=$'\t' read -r fmodef fams famx <<<"$(filter_split "${SBX_SECCOMP[RestrictAddressFamilies]:-}")"
	for c in $(sed -nE 's/^[0-9]+ +socket\((AF_[A-Z0-9]+),.*/\1/p' "$tr" | sort -u); do
		in=0
		[[ " $fams " == *" $c "* ]] && [[ " $famx " != *" $c "* ]] && in=1
		case $fmodef$in in allow0|deny1)
			bad+=("socket($c) (RestrictAddressFamilies=: $fmodef$fams${famx:+, except$famx})") ;;
		esac
	done
	grep -q 'runs in 32 bit mode' "$tr" && bad+=("a 32-bit call (SystemCallArchitectures=native)")
	[ "$(sc_last RestrictNamespaces)" = yes ] &&
		grep -Eq '^[0-9]+ +(unshare|setns)\(|CLONE_NEW' "$tr" &&
		bad+=("a new namespace (RestrictNamespaces=yes): $(grep -m1 -E 'unshare\(|setns\(|CLONE_NEW' "$tr")")
	[ "$(sc_last RestrictRealtime)" = yes ] && grep -Eq 'SCHED_(FIFO|RR|DEADLINE)' "$tr" &&
		bad+=("a realtime policy (RestrictRealtime=yes): $(grep -m1 -E 'SCHED_(FIFO|RR|DEADLINE)' "$tr")")
	[ "$(sc_last RestrictSUIDSGID)" = yes ] && grep -Eq 'chmod.*S_IS[UG]ID' "$tr" &&
		bad+=("a set-ID mode (RestrictSUIDSGID=yes): $(grep -m1 -E 'chmod.*S_IS[UG]ID' "$tr")")
	[ "$(sc_last LockPersonality)" = yes ] &&
		grep -E '^[0-9]+ +personality\(' "$tr" | grep -vq 'personality(0xffffffff)' &&
		bad+=("a personality change (LockPersonality=yes)")
	if [ ${#bad[@]} -eq 0 ]; then
		ok "seccomp audit: every call srv6d and its children made passes the unit's filters"
	else
		fail "seccomp audit: every call srv6d and its children made passes the unit's filters" "${bad[@]}"
	fi
}
audit

# ---- 7. ingress-napi (which implies worker-sched fifo 10) under the unit ----
# The shipped unit makes /sys read-only (ProtectKernelTunables=) and forbids
# SCHED_FIFO: the start fails naming the device and the drop-in.  With the
# drop-in the unit's comment gives (ReadWritePaths=/sys/class/net/IF/,
# RestrictRealtime=no, LimitRTPRIO=10) srv6d switches the device, its worker
# runs SCHED_FIFO 10, End works, and the stop puts the device back; with
# only the ReadWritePaths= line the worker stays SCHED_OTHER, said once.
NAPI_IF=$RTR_IF_SRC
# napi_state: "threaded T rps R" of rtr's ingress device
napi_state() {
	echo "threaded $(in_rtr cat "/sys/class/net/$NAPI_IF/threaded" 2>/dev/null)" \
		"rps $(in_rtr cat "/sys/class/net/$NAPI_IF/queues/rx-0/rps_cpus" 2>/dev/null)"
}
# fifo_threads PID: how many of PID's threads run SCHED_FIFO at priority 10
fifo_threads() { ps -L -o cls=,rtprio= -p "$1" | awk '$1 == "FF" && $2 == 10' | wc -l; }
# unit_with NAME LINE...: the unit with LINEs added to [Service], as a
# drop-in adds them
unit_with() {
	local f=$STAGE/unit-$1.service; shift
	awk -v add="$(printf '%s\n' "$@")" '/^\[Install\]/ && !done { printf "%s\n", add; done = 1 } { print }
		END { if (!done) printf "%s\n", add }' "$UNIT" >"$f"
	echo "$f"
}
NI="ingress-napi"
if ! in_rtr "$PY" "$TOP_DIR/bench/veth_gro.py" "$NAPI_IF" 1; then
	fail "$NI: GRO on for rtr's $NAPI_IF (a veth's NAPI context)"
else
	before=$(napi_state)
	{ base_conf; echo "egress inject"; echo "ingress-napi threaded dev $NAPI_IF"; } >"$CONF"
	# 7a. the shipped unit
	rm -rf "$STAGE/rt"
	log=$TMPD/srv6d.napi.ro.log
	out=$(sbx_wait "$STAGE/entries" "${PRE[@]}" 2>&1); prc=$?
	check "$NI, shipped unit: ExecStartPre (srv6d --check) passes (exit $prc: $(tail -1 <<<"$out"))" \
		test "$prc" -eq 0
	sbx_wait "$STAGE/entries" "${START[@]}" >"$log" 2>&1; rc=$?
	check "$NI, shipped unit: a start-up failure, not a run without the setting (exit $rc)" \
		test "$rc" -ne 0 -a "$rc" -ne 124
	check "$NI, shipped unit: one line names the device, the read-only /sys and the drop-in" \
		grep -q "ingress-napi: $NAPI_IF: threaded NAPI: Read-only file system (/sys is read-only: under the srv6d unit allow the device in a drop-in, ReadWritePaths=/sys/class/net/$NAPI_IF/, and for its workers RestrictRealtime=no and LimitRTPRIO=10)" "$log"
	check "$NI, shipped unit: the device is as it was ($(napi_state))" test "$(napi_state)" = "$before"
	# 7b. with the drop-in.  Raising RLIMIT_RTPRIO's hard limit (what
	# systemd does for LimitRTPRIO=) needs CAP_SYS_RESOURCE, which some
	# containers lack: there the unit comment's other form, CAP_SYS_NICE
	# added to the two capability lines
	if prlimit --rtprio=10:10 true 2>/dev/null; then
		rt=(RestrictRealtime=no LimitRTPRIO=10)
	else
		rt=(RestrictRealtime=no "$(grep '^CapabilityBoundingSet=' "$UNIT" | tail -1) CAP_SYS_NICE"
			"$(grep '^AmbientCapabilities=' "$UNIT" | tail -1) CAP_SYS_NICE")
	fi
	echo "# $NI drop-in: ReadWritePaths=/sys/class/net/$NAPI_IF/ ${rt[*]}"
	sbx_parse "$(unit_with napi "ReadWritePaths=/sys/class/net/$NAPI_IF/" "${rt[@]}")" \
		"$STAGE/entries-napi" quiet
	if unit_start "$NI, with the drop-in" "$STAGE/entries-napi"; then
		check "$NI, with the drop-in: threaded NAPI on, RPS off ($(napi_state))" \
			test "$(napi_state)" = "threaded 1 rps 0"
		n=$(fifo_threads "$SRV6D_PID")
		check "$NI, with the drop-in: the worker runs SCHED_FIFO 10, implied ($n thread)" test "$n" -eq 1
		check "$NI, with the drop-in: no SCHED_FIFO warning" \
			eval '! grep -q "cannot run the worker SCHED_FIFO" "$SRV6D_LOG"'
		send_end "$NI, with the drop-in"
		unit_stop "$NI, with the drop-in"
		check "$NI, with the drop-in: the stop puts the device back ($(napi_state))" \
			test "$(napi_state)" = "$before"
	fi
	# 7c. the /sys line only: the worker stays SCHED_OTHER and says why
	sbx_parse "$(unit_with napi-sys "ReadWritePaths=/sys/class/net/$NAPI_IF/")" \
		"$STAGE/entries-napi-sys" quiet
	if unit_start "$NI, /sys only" "$STAGE/entries-napi-sys"; then
		check "$NI, /sys only: threaded NAPI on ($(napi_state))" test "$(napi_state)" = "threaded 1 rps 0"
		n=$(fifo_threads "$SRV6D_PID")
		check "$NI, /sys only: no SCHED_FIFO thread ($n)" test "$n" -eq 0
		check "$NI, /sys only: a warning names the missing LimitRTPRIO" \
			grep -q "cannot run the worker SCHED_FIFO 10: Operation not permitted (needs CAP_SYS_NICE or LimitRTPRIO)" "$SRV6D_LOG"
		unit_stop "$NI, /sys only"
		check "$NI, /sys only: the stop puts the device back ($(napi_state))" \
			test "$(napi_state)" = "$before"
	fi
	in_rtr "$PY" "$TOP_DIR/bench/veth_gro.py" "$NAPI_IF" 0
fi

summary
