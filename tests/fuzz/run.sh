#!/bin/bash
# tests/fuzz/run.sh DIR SECONDS [TARGET...]: run libFuzzer targets for a bounded
# time each, starting from (and adding to a scratch copy of) the committed
# corpus tests/fuzz/corpus/<target>.  Exits non-zero on the first crash, or
# on an input running longer than 20 s (a hang: libFuzzer reports a timeout).
set -eu
dir=$1 secs=$2; shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(cd "$dir" && ls fuzz_* 2>/dev/null))
here=$(cd "$(dirname "$0")" && pwd)
for t in "${targets[@]}"; do
	seed="$here/corpus/$t"; mkdir -p "$seed"
	work=$(mktemp -d); cp -r "$seed"/. "$work"/ 2>/dev/null || true
	echo "fuzz $t: ${secs}s"
	"$dir/$t" -max_total_time="$secs" -print_final_stats=1 -max_len=4096 -timeout=20 \
		-artifact_prefix="$dir/$t-" "$work" 2>&1 | tail -n 12
	rc=${PIPESTATUS[0]}
	rm -rf "$work"
	[ "$rc" -eq 0 ] || { echo "fuzz $t: crash, see $dir/$t-*"; exit 1; }
done
