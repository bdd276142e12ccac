#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Cross-build the programs the guest runs: the CTR kselftests, built by
# their own Makefile inside the kernel build tree (where the series put
# them), against the kernel's UAPI headers.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$CTR_CACHE/linux-build
hdr=$CTR_CACHE/uapi
bins=$CTR_CACHE/guest-bin
[ -d "$src/tools/testing/selftests/riscv/ctr" ] || die "run make kernel first"

if [ ! -f "$hdr/include/linux/perf_event.h" ]; then
	make -s -C "$src" ARCH=riscv O="$KBUILD/ctr" \
		INSTALL_HDR_PATH="$hdr" headers_install
fi
mkdir -p "$bins"
make -s -C "$src/tools/testing/selftests/riscv/ctr" ARCH=riscv \
	CROSS_COMPILE=$CROSS CC="${CROSS}gcc" OUTPUT="$bins" \
	KHDR_INCLUDES="-I$hdr/include" \
	CFLAGS="-Wall -O2 -I$src/tools/testing/selftests -I$hdr/include" all
# The perf tool tests check records against the workload's symbols.
${CROSS}nm "$bins/workload" | grep ' ctr_wl' >"$bins/workload.syms"
# perf-ctr's static riscv64 build (record, script, check), when the host
# tests have built it, records in the guest too.
pc=$TOP/out/perf-ctr/riscv64/perf-ctr
if [ -x "$pc" ]; then
	install -m 755 "$pc" "$bins/perf-ctr"
else
	rm -f "$bins/perf-ctr"
fi
