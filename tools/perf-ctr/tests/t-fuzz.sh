#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzz the perf.data reader under ASan/UBSan for a bounded time, starting
# from the committed corpus (the grown corpus stays in a temporary
# directory). Any crash, leak or sanitizer report fails.
# FUZZ_SECONDS (default 60) sets the time.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
out=${O:-$(cd "$src/../.." && pwd)/out/perf-ctr}
secs=${FUZZ_SECONDS:-60}

if ! command -v "${CLANG:-clang-14}" >/dev/null; then
	echo "SKIP perf-ctr-fuzz-reader (no ${CLANG:-clang-14}: apt-get install clang-14)"
	exit 0
fi
if ! make -s -C "$src" O="$out" fuzz >&2; then
	echo "FAIL perf-ctr-fuzz-build"
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src"/fuzz/corpus/* "$work/"
mkdir -p "$out/fuzz-crashes"
log=$out/fuzz.log
if "$out/fuzz_reader" -max_total_time="$secs" -max_len=8192 -timeout=10 \
	-rss_limit_mb=1024 -print_final_stats=1 \
	-artifact_prefix="$out/fuzz-crashes/" "$work" >"$log" 2>&1; then
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	echo "fuzzed the reader for ${secs}s: ${execs:-?} executions" >&2
	echo "PASS perf-ctr-fuzz-reader"
	exit 0
fi
grep -E "ERROR|SUMMARY|runtime error" "$log" | head -5 >&2
echo "crash inputs: $out/fuzz-crashes/, log: $log" >&2
echo "FAIL perf-ctr-fuzz-reader"
exit 1
