#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build perf-ctr (every tools/perf-ctr/*.c) with -Werror.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
out=${O:-$(cd "$src/../.." && pwd)/out/perf-ctr}

if make -s -C "$src" -j2 O="$out" >&2; then
	if [ -x "$out/perf-ctr" ] && "$out/perf-ctr" --help >/dev/null; then
		echo "PASS perf-ctr-build"
		exit 0
	fi
	echo "perf-ctr built but '$out/perf-ctr --help' fails" >&2
fi
echo "FAIL perf-ctr-build"
exit 1
