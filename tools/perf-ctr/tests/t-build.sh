#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build perf-ctr (every tools/perf-ctr/*.c) with -Werror.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
out=${O:-$(cd "$src/../.." && pwd)/out/perf-ctr}

rc=0
if make -s -C "$src" -j2 O="$out" >&2 && [ -x "$out/perf-ctr" ] &&
   "$out/perf-ctr" --help >/dev/null; then
	echo "PASS perf-ctr-build"
else
	echo "FAIL perf-ctr-build"
	rc=1
fi

# The static riscv64 build for the guest (record, script, decode, check).
cache=${CTR_CACHE:-$HOME/.cache/riscv-ctr}
if ! command -v riscv64-linux-gnu-gcc >/dev/null; then
	echo "SKIP perf-ctr-cross-build (no riscv64-linux-gnu-gcc)"
elif [ ! -f "$cache/libperf/riscv64/lib64/libapi.a" ]; then
	echo "SKIP perf-ctr-cross-build (no riscv64 libperf/libapi: run scripts/setup-perfctr.sh)"
elif make -s -C "$src" O="$out" cross >&2 &&
     file "$out/riscv64/perf-ctr" | grep -q 'RISC-V.*statically linked'; then
	echo "PASS perf-ctr-cross-build"
else
	echo "FAIL perf-ctr-cross-build"
	rc=1
fi
exit $rc
