#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tools/debug-kernel/cost.sh - what each checker of the debug kernels costs
# at run time under TCG: one fixed workload (cost-guest.sh: namespaces made
# and torn down, the kernel's seg6local End and plain forwarding driven by
# bench/srv6_blast) in the VM (tests/vm/run.sh) on each kernel, one after
# the other, from the top of the tree as root:
#
#   tools/debug-kernel/cost.sh [SPEC...]
#
# SPEC: stock (Debian's 6.12, the VM's default kernel, its modules), or a
# build.sh kind (nochk kasan lockdep net baseline noref: OUT/KIND/bzImage,
# MODULES=none), optionally with boot arguments after a colon
# (baseline:no_debug_objects).  Default: stock nochk kasan lockdep net
# baseline baseline:no_debug_objects.  nochk is the same config as baseline
# without any checker, so each kind's ratio to nochk is that checker alone;
# stock differs in config too (a distribution kernel, modules) and is there
# as the kernel the rest of the suite runs on.  Prints each run's "cost:"
# lines, then a table of medians over COST_ROUNDS rounds (3) and the ratios
# to nochk.  Not CI: about 5 minutes a kernel on these 2 cores.  Its VM
# runs multi-threaded TCG unless VM_TCG_THREAD says otherwise: the figures
# in docs/REINJECTION.md were taken so (a vCPU a host core), and a single
# thread would halve what two vCPUs can do.  Multi-threaded TCG is the mode
# in which the stock 6.12 has panicked on a stale int3 (tests/vm/run.sh): a
# run that dies so is the emulator's, run it again.
set -u
export VM_TCG_THREAD=${VM_TCG_THREAD:-multi}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
OUT=$(realpath -m -- "${OUT:-/var/cache/srv6d-vm/debug}")
BUILD=$(realpath -m -- "${BUILD:-$TOP/build}")
[ $# -gt 0 ] || set -- stock nochk kasan lockdep net baseline baseline:no_debug_objects
[ -x "$BUILD/bench/srv6_blast" ] || { echo "$0: $BUILD/bench/srv6_blast missing: make" >&2; exit 1; }
for spec in "$@"; do
	kind=${spec%%:*}
	[ "$kind" = stock ] || [ -r "$OUT/$kind/bzImage" ] ||
		{ echo "$0: $OUT/$kind/bzImage missing: tools/debug-kernel/build.sh $kind" >&2; exit 1; }
done
res=$(mktemp -d /tmp/srv6d-cost.XXXXXX)
TOPOS=${COST_TOPOS:-10}
# the workload's size, the same on every kernel (cost-guest.sh)
genv="COST_ROUNDS=${COST_ROUNDS:-3} COST_TOPOS=$TOPOS COST_SECS=${COST_SECS:-3}"
cd "$TOP" || exit 1
n=0
for spec in "$@"; do
	kind=${spec%%:*} args=
	[ "$spec" = "$kind" ] || args=${spec#*:}
	n=$((n + 1))
	start=$(date +%s)
	if [ "$kind" = stock ]; then
		# shellcheck disable=SC2086  # genv: one word per variable
		VM_APPEND="$args" tests/vm/run.sh env BUILD="$BUILD" $genv tools/debug-kernel/cost-guest.sh
	else
		# shellcheck disable=SC2086
		KERNEL=$OUT/$kind/bzImage MODULES=none VM_APPEND="$args" tests/vm/run.sh env BUILD="$BUILD" \
			$genv tools/debug-kernel/cost-guest.sh
	fi 2>&1 | tr -d '\r' | tee "$res/$n.log" | grep '^cost:'
	echo "# cost.sh: $spec: the VM ran $(( $(date +%s) - start )) s"
	echo "$spec" >"$res/$n.spec"
done
# the table: medians per spec, ratios to nochk's
python3 - "$res" "$n" "$TOPOS" <<'PY'
import sys, statistics as st
res, n, topos = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = []
for i in range(1, n + 1):
    spec = open(f"{res}/{i}.spec").read().strip()
    v = {"ns": [], "end_pps": [], "end_cpu": [], "fwd_pps": [], "fwd_cpu": []}
    boot = None; clean = "?"; lost = 0
    for l in open(f"{res}/{i}.log"):
        f = l.split()
        if not f or f[0] != "cost:":
            continue
        if f[2] == "boot": boot = float(f[4])
        elif f[2] == "dmesg": clean = f[3]
        elif f[2] == "ns": v["ns"].append(float(f[4]))
        elif f[2] in ("end", "fwd"):
            v[f[2] + "_pps"].append(float(f[4])); v[f[2] + "_cpu"].append(float(f[6]))
            lost += int(f[8]) - int(f[10])      # sent - at_dst
    med = {k: (st.median(x) if x else None) for k, x in v.items()}
    rows.append((spec, boot, lost, clean, med, len(v["ns"])))
ref = next((r for r in rows if r[0] == "nochk"), None)
def ratio(m, k):
    if not ref or m[k] is None or not ref[4][k]:
        return "-"
    return f"{m[k] / ref[4][k]:.2f}x"
print(f"| kernel | boot to init (s) | namespaces, {topos} topologies (s) | End: pps, CPU ns/pkt | forward: pps, CPU ns/pkt | vs nochk: ns, End CPU, fwd CPU | rounds | sent, not at dst | kernel log |")
print("|---|---|---|---|---|---|---|---|---|")
for spec, boot, lost, clean, m, k in rows:
    f = lambda x, p=0: "-" if x is None else f"{x:.{p}f}"
    print(f"| {spec} | {f(boot, 1)} | {f(m['ns'], 1)} | {f(m['end_pps'])}, {f(m['end_cpu'])} | "
          f"{f(m['fwd_pps'])}, {f(m['fwd_cpu'])} | {ratio(m, 'ns')}, {ratio(m, 'end_cpu')}, "
          f"{ratio(m, 'fwd_cpu')} | {k} | {lost} | {clean} |")
PY
echo "# cost.sh: logs in $res"
