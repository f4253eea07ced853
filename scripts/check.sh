#!/bin/bash
# The whole test suite, as CI runs it: install missing Debian packages, build
# with -Werror, run the scapy vectors, unit tests, a bounded fuzz run and the
# namespace tests.  Extra arguments go to make (e.g. SAN=address,undefined).
#
# With CI=true (what .ci/run sees in CI) the run is strict (tests/check.sh:
# a missing tool, not being root or a test script without its exec bit is a
# failure) and adds the sanitizer passes:
#   2. unit + namespace suites built with ASan+UBSan    (build-asan/)
#   3. unit suite built with TSan, the cache stress test included (build-tsan/)
#   4. the plain build again: the reinjection suite (tests/reinject/),
#      which sets net.netfilter.nf_hooks_lwtunnel=1 for good (it cannot be
#      turned off): every earlier pass ran without it on a fresh machine
#   5. the kernel oracle: on a kernel without SEG6, VRF or dummy, the tests
#      that compare with the kernel (tests/check.sh ORACLE_NET) and the
#      reinjection suite in a QEMU VM booting Debian's 6.12 kernel; the
#      summary line names that kernel
# and, between 1 and 2, the datapath's namespace tests again with
# `egress inject` (SRV6D_EXTRA_CONF, tests/net/lib.sh conf_extra).
# Each pass prints its own totals; the run fails if any pass fails.  The
# time of every pass, and each failure by test name, is printed at the end.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs=$(nproc)
if [ "${CI:-}" != true ]; then
	exec make -j"$jobs" check "$@"
fi

export STRICT=1
# the namespace tests whose srv6d conf takes lib.sh's conf_extra
INJECT_NET="test_oracle.sh test_rfc_errors.sh test_verdicts.sh test_seg6_vectors.sh test_nfq_csum.sh test_hmac.sh"
export SRV6D_EXTRA_CONF="${SRV6D_EXTRA_CONF:-}"
rc=0 summary= tp=0 tf=0 ts=0
out=$(mktemp); trap 'rm -f "$out"' EXIT
pass() { # NAME MAKE-ARGS...
	local name=$1 t0 r st line named; shift
	t0=$(date +%s)
	echo "======== $name"
	make -j"$jobs" --no-print-directory check "$@" 2>&1 | tee "$out"
	st=${PIPESTATUS[0]}
	if [ "$st" -eq 0 ]; then r=ok; else r=FAILED; rc=1; fi
	# this pass's closing line, added to the grand total
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -1)
	if [ -n "$line" ]; then
		set -- $line
		tp=$((tp + $1)); tf=$((tf + $3)); ts=$((ts + $5))
	else
		tf=$((tf + 1)); r="$r (no closing line)"; rc=1
	fi
	# a pass may name itself better (the oracle: the kernel it booted)
	named=$(sed -n 's/^# pass: \(.*\): [0-9]* passed, .*/\1/p' "$out" | tail -1)
	summary+="  ${named:-$name}: $r, ${line:-no count}, $(( $(date +%s) - t0 )) s"$'\n'
	# what failed, named in the summary (CI shows the log's end)
	summary+=$(grep '^# failed: ' "$out" | sed 's/^# failed: /    /'; echo x)
	summary=${summary%x}
}
t_all=$(date +%s)
pass "plain build: vectors, unit, fuzz, namespace" CHECK_SUITES="vectors unit fuzz net" "$@"
# The datapath's namespace tests again with every result injected (this
# kernel takes rewrites in verdicts, so this is how the injection path is
# proven here: docs/ARCHITECTURE.md).
SRV6D_EXTRA_CONF="egress inject" pass "egress inject: the datapath's namespace tests" \
	CHECK_SUITES="net" CHECK_NET="$INJECT_NET" "$@"
pass "ASan+UBSan: unit, namespace" BUILD=build-asan SAN=address,undefined \
	CHECK_SUITES="unit net" "$@"
pass "TSan: unit (cache stress test included)" BUILD=build-tsan SAN=thread \
	CHECK_SUITES="unit" "$@"
pass "plain build: reinjection suite (sets nf_hooks_lwtunnel=1: last)" \
	CHECK_SUITES="reinject" "$@"
# On a kernel without SEG6/VRF/dummy the checks against the kernel ran as
# named skips above: here they run in a VM booting a kernel that has them
# (tests/vm/; a no-op on a kernel that has them).
pass "kernel oracle (vm)" CHECK_SUITES="oracle" "$@"
echo "======== CI summary"
printf '%s' "$summary"
echo "  total: $(( $(date +%s) - t_all )) s"
echo
echo "$tp passed, $tf failed, $ts skipped"
exit $rc
