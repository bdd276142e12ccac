#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-ctr's address-space model (machine.c): which process's samples
# count for a binary, on recordings written record by record (machine.py)
# over two small static riscv64 programs linked at the same address.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$top/scripts/lib.sh"
PC=${PERF_CTR:-$top/out/perf-ctr/perf-ctr}

make -s -C "$top/tools/perf-ctr" -j2 >&2 || { echo "FAIL machine: build"; exit 1; }
command -v "${CROSS}gcc" >/dev/null ||
	{ echo "SKIP machine (no ${CROSS}gcc: scripts/setup.sh host)"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-machine.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# 4 KiB of text from the default static address (0x10000) on.
printf '\t.globl _start\n_start:\n\t.rept 1024\n\taddi x0, x0, 0\n\t.endr\n' >"$tmp/p.S"
for p in alpha beta; do
	"${CROSS}gcc" -static -no-pie -nostdlib -Wl,--build-id -o "$tmp/$p" \
		"$tmp/p.S" -Wa,--defsym,"$p"=1 ||
		{ echo "FAIL machine: cannot build $p"; exit 1; }
done
python3 "$here/machine.py" "$PC" "$tmp" "$tmp"
