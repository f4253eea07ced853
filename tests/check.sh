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
	passed=$((passed + p)); failed=$((failed + f))
	if [ $rc -eq 4 ]; then
		echo "[SKIP] $t"; skipped=$((skipped + 1))
	elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "[FAIL] $t exited $rc"; failed=$((failed + 1))
	fi
done

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
