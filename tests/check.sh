#!/bin/bash
# make check driver: scapy vectors, unit tests (cmocka), a bounded fuzz run,
# namespace tests.  Prints every suite's own output, then each failure again
# as a "# failed: ..." line naming its test, then one closing line "N passed, N failed,
# N skipped" (and the time each suite took).
#
# Environment:
#   BUILD          object dir                  SAN   sanitizers of this build
#   FUZZ_SECONDS   per fuzz target (20)
#   CHECK_SUITES   which suites: any of "vectors unit fuzz net reinject
#                  oracle" (default all).  "oracle": on a kernel without
#                  SEG6 (seg6local, seg6 encap, HMAC), VRF or dummy, whose
#                  kernel-oracle checks the net and reinject suites skipped
#                  by name, ORACLE_NET and the reinjection suite run again
#                  in a QEMU VM booting a kernel that has them (tests/vm/,
#                  KERNEL= picks another), counted in the same closing line;
#                  on a kernel that has them it does nothing (they ran
#                  natively).  "reinject" (tests/reinject/) sets
#                  net.netfilter.nf_hooks_lwtunnel=1, which cannot be undone:
#                  it always runs after every other suite of the run, and
#                  scripts/check.sh gives it a pass of its own after all
#                  the others (plain build only)
#   CHECK_UNIT     run only these unit binaries (names, e.g. test_cache_stress)
#   CHECK_NET      run only these namespace tests (names, e.g. test_steer.sh)
#   CHECK_REINJECT run only these reinjection tests (names)
#   ORACLE_NET     the namespace tests the "oracle" suite runs in the VM
#                  (default: every test with checks against the kernel's
#                  seg6local, seg6 encap, SEG6 HMAC, VRF or dummy)
#   ORACLE_TIMEOUT seconds for the whole VM run (3600)
#   STRICT=1       (set when CI=true) a missing prerequisite is a failure,
#                  not a skip: not root, no clang, no scapy, no ip6tables, a
#                  test script without its exec bit.  Skips then come only
#                  from [SKIP] lines inside a test (a kernel feature this
#                  kernel lacks, machine state that cannot be reset), each
#                  naming why.
#   UNIT_TIMEOUT, FUZZ_TIMEOUT, NET_TIMEOUT   seconds per test binary/script
#                  (defaults 600, FUZZ_SECONDS + 300, 1200): a hang is a
#                  [FAIL] naming the test.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SUITES=" ${CHECK_SUITES:-vectors unit fuzz net reinject oracle} "
[ "${CI:-}" = true ] && STRICT=1
STRICT=${STRICT:-0}
UNIT_TIMEOUT=${UNIT_TIMEOUT:-600}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-$(( ${FUZZ_SECONDS:-20} + 300 ))}
NET_TIMEOUT=${NET_TIMEOUT:-1200}
passed=0 failed=0 skipped=0 times= recap=
log=$(mktemp); trap 'rm -f "$log"' EXIT

want() { [[ "$SUITES" == *" $1 "* ]]; }
# fail WHAT: a [FAIL] line, counted, and recalled in the recap at the end
fail() { echo "[FAIL] $*"; failed=$((failed + 1)); recap+="# failed: $*"$'\n'; }
# recall TEST FILE: the failure lines of TEST's output FILE, for the recap
# (cmocka names a failed test twice: once)
recall() {
	local l
	while IFS= read -r l; do recap+="# failed: $1: $l"$'\n'; done \
		< <(grep -E '^\[FAIL\]|^\[  FAILED  \] [a-z_]' "$2" | awk '!seen[$0]++')
}
# missing WHAT: a prerequisite is absent: [FAIL] under STRICT, else [SKIP].
missing() {
	if [ "$STRICT" = 1 ]; then
		fail "$1 (CI: a missing prerequisite is a failure)"
	else
		echo "[SKIP] $1"; skipped=$((skipped + 1))
	fi
}
# run_timed SECONDS CMD...: CMD with a time limit (SIGTERM, SIGKILL 20 s
# later); returns CMD's status, 124 on a timeout.
run_timed() { local s=$1; shift; timeout -k 20 "$s" "$@"; }
timed_out() { # NAME SECONDS RC: a [FAIL] line for a timeout, true if it was one
	[ "$3" -eq 124 ] || [ "$3" -eq 137 ] || return 1
	fail "$1: timed out after $2 s"
}
t_suite=
suite_begin() { t_suite=$(date +%s); echo "== $1"; }
suite_end() { times+=" $1=$(( $(date +%s) - t_suite ))s"; }

count_cmocka() { # $1 = output file; adds to passed/failed
	local p f
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
	passed=$((passed + p)); failed=$((failed + f))
}

if want vectors; then
	suite_begin "scapy vectors (an independent encoder: regenerated and compared with the committed files)"
	if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import scapy.layers.inet6' 2>/dev/null; then
		vdir=$(mktemp -d)
		if /usr/bin/python3 tests/unit/vectors/gen_srh.py "$vdir/srh.txt" >/dev/null 2>&1 &&
		   /usr/bin/python3 tests/unit/vectors/gen_seg6.py >"$vdir/seg6.txt" 2>/dev/null; then
			for v in srh icmp6 seg6; do
				if cmp -s "$vdir/$v.txt" "tests/unit/vectors/$v.txt"; then
					echo "[ OK ] vectors $v.txt match scapy"; passed=$((passed + 1))
				else
					fail "vectors $v.txt differ from what scapy generates now"
					diff "$vdir/$v.txt" "tests/unit/vectors/$v.txt" | head -20
				fi
			done
		else
			fail "generating scapy vectors"
		fi
		rm -rf "$vdir"
	else
		missing "scapy vectors: /usr/bin/python3 has no scapy"
	fi
	suite_end vectors
fi

if want unit; then
	suite_begin "unit tests${SAN:+ (SAN=$SAN)}"
	n=0
	for t in "$BUILD"/tests/test_*; do
		case "$t" in *.o|*.d) continue;; esac
		[ -f "$t" ] || continue
		if [ -n "${CHECK_UNIT:-}" ] && [[ " $CHECK_UNIT " != *" $(basename "$t") "* ]]; then
			continue
		fi
		if ! [ -x "$t" ]; then
			fail "$t is not executable"; continue
		fi
		n=$((n + 1))
		run_timed "$UNIT_TIMEOUT" "$t" >"$log" 2>&1; rc=$?
		cat "$log"
		count_cmocka "$log"
		recall "$(basename "$t")" "$log"
		timed_out "$t" "$UNIT_TIMEOUT" $rc && continue
		if [ $rc -ne 0 ] && ! grep -q '^\[  FAILED  \]' "$log"; then
			fail "$t exited $rc"
		fi
	done
	[ $n -gt 0 ] || fail "no unit test binary in $BUILD/tests${CHECK_UNIT:+ named $CHECK_UNIT}"
	if [ -z "${CHECK_UNIT:-}" ]; then
		# docs/ARCHITECTURE.md's room map: no include from a lower room up
		if /usr/bin/python3 scripts/check-layers.py >"$log" 2>&1; then
			echo "[ OK ] rooms: no include from a lower room to a higher one"
			passed=$((passed + 1))
		else
			cat "$log"
			fail "rooms: includes that run up the room map (scripts/check-layers.py)"
		fi
	fi
	suite_end unit
fi

if want fuzz && [ "${SAN:-}" != thread ]; then
	suite_begin "bounded fuzz run (${FUZZ_SECONDS:-20}s per target, ASan+UBSan)"
	if ! command -v clang >/dev/null; then
		missing "fuzz: clang not found"
	elif make --no-print-directory BUILD="$BUILD" fuzz >"$log" 2>&1; then
		for f in "$BUILD"/fuzz/fuzz_*; do
			[ -x "$f" ] || continue
			run_timed "$FUZZ_TIMEOUT" tests/fuzz/run.sh "$BUILD/fuzz" "${FUZZ_SECONDS:-20}" "$(basename "$f")"
			rc=$?
			timed_out "fuzz $(basename "$f")" "$FUZZ_TIMEOUT" $rc && continue
			if [ $rc -eq 0 ]; then
				echo "[ OK ] fuzz $(basename "$f")"; passed=$((passed + 1))
			else
				fail "fuzz $(basename "$f")"
			fi
		done
	else
		cat "$log"; fail "building fuzz targets"
	fi
	suite_end fuzz
fi

# ns_tests DIR FILTER: every DIR/test_*.sh (only the names in FILTER when
# set), each counted by its [ OK ]/[FAIL]/[SKIP] lines.
ns_tests() {
	local t t0 rc p f s
	for t in "$1"/test_*.sh; do
		if [ -n "$2" ] && [[ " $2 " != *" $(basename "$t") "* ]]; then
			continue
		fi
		if ! [ -x "$t" ]; then
			fail "$t is not executable (chmod +x; it would never run)"
			continue
		fi
		t0=$(date +%s)
		BUILD="$BUILD" run_timed "$NET_TIMEOUT" "$t" >"$log" 2>&1; rc=$?
		cat "$log"
		echo "# $t: exit $rc, $(( $(date +%s) - t0 )) s"
		p=$(grep -c '^\[ OK \]' "$log"); f=$(grep -c '^\[FAIL\]' "$log")
		s=$(grep -c '^\[SKIP\]' "$log")
		passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
		[ "$f" -eq 0 ] || recall "$(basename "$t")" "$log"
		timed_out "$t" "$NET_TIMEOUT" $rc && continue
		if [ $rc -eq 4 ]; then
			missing "$t: prerequisite missing ($(grep -m1 '^SKIP' "$log"))"
		elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
			fail "$t exited $rc"
		elif [ $rc -eq 0 ] && [ "$p" -eq 0 ] && [ "$s" -eq 0 ]; then
			fail "$t passed no check"
		fi
	done
}

# ns_suite SUITE TITLE DIR FILTER: a suite of namespace tests, run as root
ns_suite() {
	suite_begin "$2"
	if [ "$STRICT" = 1 ] && [ "$(id -u)" -ne 0 ]; then
		fail "$1 tests: not root (CI runs them as root)"
	fi
	ns_tests "$3" "$4"
	suite_end "$1"
}
want net && ns_suite net \
	"namespace tests${SAN:+ (SAN=$SAN)}${SRV6D_EXTRA_CONF:+ (extra conf: $SRV6D_EXTRA_CONF)}" \
	tests/net "${CHECK_NET:-}"
# Last: sets net.netfilter.nf_hooks_lwtunnel=1 for good (docs/REINJECTION.md).
want reinject && ns_suite reinject \
	"reinjection tests (sets net.netfilter.nf_hooks_lwtunnel=1: last)" \
	tests/reinject "${CHECK_REINJECT:-}"

# After reinject (in the VM the guest's own run sets nf_hooks_lwtunnel, not
# this kernel).
# Under emulation a test takes 15-30x its native time: the VM runs the tests
# whose checks are mostly the kernel's (seg6_vectors: its kernel part only),
# about 40 minutes with the reinjection suite on 2 cores.  The kernel checks
# of test_egress (20 minutes there), test_srv6ctl and test_gso stay named
# skips here: ORACLE_NET="... test_egress.sh" adds them.
ORACLE_NET=${ORACLE_NET:-test_oracle.sh test_seg6_vectors.sh test_hmac.sh test_source.sh test_lpm.sh test_firewall.sh test_nhctx.sh test_failopen.sh test_kmirror.sh}
if want oracle; then
	suite_begin "kernel oracle"
	. tests/kfeat.sh
	lacks=$(kfeat_lacking)
	if [ -z "$lacks" ]; then
		echo "# oracle: this kernel ($(uname -r)) has every feature the oracle checks need: they ran natively${SRV6D_VM:+ (in the VM)}"
	elif [ -n "${SRV6D_VM:-}" ]; then
		fail "oracle: the VM's kernel $(uname -r) lacks $lacks (its tests skipped those checks)"
	elif [ "$(id -u)" -ne 0 ]; then
		missing "oracle: not root (the feature probe and the VM need root)"
	elif ! { tests/vm/run.sh --probe >/dev/null 2>&1 || { [ -z "${KERNEL:-}" ] && tests/vm/kernel.sh ensure; }
		 vmerr=$(tests/vm/run.sh --probe 2>&1); }; then
		missing "oracle: this kernel lacks $lacks and the VM cannot run: $vmerr"
	else
		ORACLE_TIMEOUT=${ORACLE_TIMEOUT:-3600}
		echo "# oracle: this kernel ($(uname -r)) lacks $lacks: the kernel-oracle tests run in a VM"
		# the guest's "oracle" suite checks that its kernel has it all;
		# its recap lines are renamed as they stream (they come again
		# below, named by the VM's kernel)
		# the vectors: the kernel's part, and srv6d's again for what
		# needs the VM's kernel (vrftable with a VRF device)
		SEG6_VECTORS_PARTS="kernel srv6d" CHECK_SUITES="net reinject oracle" CHECK_NET="$ORACLE_NET" \
			SRV6D_VM=1 VM_ENV="SEG6_VECTORS_PARTS" \
			VM_TIMEOUT="$ORACLE_TIMEOUT" tests/vm/run.sh tests/check.sh 2>&1 |
			tr -d '\r' | tee "$log" | sed -u 's/^# failed: /# vm failed: /'
		rc=${PIPESTATUS[0]}
		kv=$(sed -n 's/^# vm: \([^,]*\),.*/\1/p' "$log" | head -1)
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -1)
		if [ -n "$line" ]; then
			set -- $line
			passed=$((passed + $1)); failed=$((failed + $3)); skipped=$((skipped + $5))
			echo "# pass: oracle kernel ${kv:-?} (vm): $line"
			while IFS= read -r l; do recap+="# failed: vm ${kv:-?}: ${l#\# failed: }"$'\n'; done \
				< <(grep '^# failed: ' "$log")
		fi
		if [ $rc -eq 124 ]; then
			fail "oracle: the VM ran out of ORACLE_TIMEOUT=$ORACLE_TIMEOUT s"
		elif [ -z "$line" ]; then
			fail "oracle: the VM's run ended (exit $rc) without a closing line"
		elif [ $rc -ne 0 ] && [ "$3" -eq 0 ]; then
			fail "oracle: the VM's run exited $rc"
		fi
	fi
	suite_end oracle
fi

echo
printf '%s' "$recap"
echo "# suite times:$times"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
