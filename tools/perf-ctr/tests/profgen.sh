#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# profgen.sh DATA BINARY: perf-ctr's ranges and branches of a real
# recording against llvm-profgen 19's, fed the text perf 7.3 itself
# writes of the same file (perf script -F ip,brstack --show-mmap-events):
# the unsymbolized profiles (every range and branch with its count) must
# be the same, byte for byte. Prints PASS/FAIL/SKIP lines.
set -uo pipefail
data=$(realpath -m "$1") bin=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$top/scripts/lib.sh"
PC=${PERF_CTR:-$top/out/perf-ctr/perf-ctr}
name="llvm-profgen 19 on perf 7.3's script of $(basename "$data")"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

if [ ! -x "$ROOT/usr/lib/llvm-19/bin/llvm-profgen" ] || [ ! -x "$ROOT/usr/bin/perf" ]; then
	echo "SKIP $name (no llvm-profgen 19 or perf 7.3 in $ROOT: scripts/setup-afdo.sh, scripts/perf73.sh)"
	exit 0
fi
if [ ! -s "$data" ] || [ ! -x "$bin" ]; then
	echo "FAIL $name: no recording ($data) or program ($bin)"
	exit 0
fi

# llvm-profgen takes the mappings of the binary of its own name.
cp "$bin" "$w/" && cd "$w" || exit 0
prog=$(basename "$bin")
# A sample without records (the first after an exec has none) is kept
# out: llvm-profgen tells the text's kind from its first sample and,
# given one without a branch stack, finds no sample at all. It has no
# range or branch to give.
"${ROOT_LOADER[@]}" "$ROOT/usr/bin/perf" script -i "$data" --show-mmap-events \
	-F ip,brstack 2>p73.err | awk '/^PERF_RECORD_/ || /\//' >p73.script
"${ROOT_LOADER[@]}" "$ROOT/usr/lib/llvm-19/bin/llvm-profgen" --perfscript=p73.script \
	--binary="$prog" --skip-symbolization --output=pg.unsym 2>pg.err
"$PC" aggregate -i "$data" --binary "$prog" -f llvm-unsym -o pc.unsym 2>pc.err
nr=$(head -1 pg.unsym 2>/dev/null)
nb=$(sed -n "$((${nr:-0} + 2))p" pg.unsym 2>/dev/null)
if [ "${nr:-0}" -gt 0 ] && [ "${nb:-0}" -gt 0 ] && cmp -s pg.unsym pc.unsym; then
	echo "PASS $name: the same $nr ranges and $nb branches with their counts as perf-ctr's"
else
	cat p73.err pg.err pc.err 2>/dev/null | head -5 | sed 's/^/# /'
	diff pg.unsym pc.unsym 2>&1 | head -6 | sed 's/^/# /'
	echo "FAIL $name: ${nr:-no} ranges, ${nb:-no} branches, not perf-ctr's"
fi
