#!/bin/bash
# make check driver: unit tests (cmocka), a bounded fuzz run, namespace tests.
# Prints every suite's own output, then one closing line "N passed, N failed".
# Environment: BUILD (object dir), SAN (sanitizers of this build), FUZZ_SECONDS.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
passed=0 failed=0 skipped=0
log=$(mktemp); trap 'rm -f "$log"' EXIT

count_cmocka() { # $1 = output file; adds to passed/failed
	local p f
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
	passed=$((passed + p)); failed=$((failed + f))
}

echo "== scapy vectors (an independent encoder: regenerated and compared with the committed files)"
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import scapy' 2>/dev/null; then
	vdir=$(mktemp -d)
	if /usr/bin/python3 tests/unit/vectors/gen_srh.py "$vdir/srh.txt" >/dev/null 2>&1 &&
	   /usr/bin/python3 tests/unit/vectors/gen_seg6.py >"$vdir/seg6.txt" 2>/dev/null; then
		for v in srh icmp6 seg6; do
			if cmp -s "$vdir/$v.txt" "tests/unit/vectors/$v.txt"; then
				echo "[ OK ] vectors $v.txt match scapy"; passed=$((passed + 1))
			else
				echo "[FAIL] vectors $v.txt differ from what scapy generates now"
				diff "$vdir/$v.txt" "tests/unit/vectors/$v.txt" | head -20
				failed=$((failed + 1))
			fi
		done
	else
		echo "[FAIL] generating scapy vectors"; failed=$((failed + 1))
	fi
	rm -rf "$vdir"
else
	echo "[SKIP] scapy vectors: /usr/bin/python3 has no scapy"; skipped=$((skipped + 1))
fi

echo "== unit tests"
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.o|*.d) continue;; esac
	"$t" >"$log" 2>&1; rc=$?
	cat "$log"
	count_cmocka "$log"
	if [ $rc -ne 0 ] && ! grep -q '^\[  FAILED  \]' "$log"; then
		echo "[FAIL] $t exited $rc"; failed=$((failed + 1))
	fi
done

if [ "${SAN:-}" != thread ] && command -v clang >/dev/null; then
	echo "== bounded fuzz run (${FUZZ_SECONDS:-20}s per target, ASan+UBSan)"
	if make --no-print-directory BUILD="$BUILD" fuzz >"$log" 2>&1; then
		for f in "$BUILD"/fuzz/fuzz_*; do
			[ -x "$f" ] || continue
			if tests/fuzz/run.sh "$BUILD/fuzz" "${FUZZ_SECONDS:-20}" "$(basename "$f")"; then
				echo "[ OK ] fuzz $(basename "$f")"; passed=$((passed + 1))
			else
				echo "[FAIL] fuzz $(basename "$f")"; failed=$((failed + 1))
			fi
		done
	else
		cat "$log"; echo "[FAIL] building fuzz targets"; failed=$((failed + 1))
	fi
fi

echo "== namespace tests"
for t in tests/net/test_*.sh; do
	[ -x "$t" ] || continue
	BUILD="$BUILD" "$t" >"$log" 2>&1; rc=$?
	cat "$log"
	p=$(grep -c '^\[ OK \]' "$log"); f=$(grep -c '^\[FAIL\]' "$log")
	s=$(grep -c '^\[SKIP\]' "$log")
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	if [ $rc -eq 4 ]; then
		echo "[SKIP] $t"; skipped=$((skipped + 1))
	elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "[FAIL] $t exited $rc"; failed=$((failed + 1))
	fi
done

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
