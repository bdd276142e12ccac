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

# The UAPI headers, each replaced only when it changed: what is built
# against them is rebuilt only then.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C "$src" ARCH=riscv O="$KBUILD/ctr" INSTALL_HDR_PATH="$tmp" \
	headers_install
(cd "$tmp" && find . -type f) | while read -r f; do
	cmp -s "$tmp/$f" "$hdr/$f" || install -D -m 644 "$tmp/$f" "$hdr/$f"
done
mkdir -p "$bins"
make -s -C "$src/tools/testing/selftests/riscv/ctr" ARCH=riscv \
	CROSS_COMPILE=$CROSS CC="${CROSS}gcc" OUTPUT="$bins" \
	KHDR_INCLUDES="-I$hdr/include" \
	CFLAGS="-Wall -O2 -I$src/tools/testing/selftests -I$hdr/include" all
# KVM's selftests of what a guest sees of CTR, and two that must keep
# passing beside them; static, like the kernel tree builds them.
kvm=$CTR_CACHE/kvm-selftests
kvm_tests="riscv/ctr_test riscv/ctr_guest_test riscv/sbi_pmu_test get-reg-list"
make -s -C "$src/tools/testing/selftests/kvm" ARCH=riscv \
	CROSS_COMPILE=$CROSS OUTPUT="$kvm" \
	KHDR_INCLUDES="-isystem $hdr/include" LDFLAGS=-static \
	$(for t in $kvm_tests; do echo "$kvm/$t"; done)
mkdir -p "$bins/kvm"
for t in $kvm_tests; do
	install -C -m 755 "$kvm/$t" "$bins/kvm/"
done
# The guest sequences of ctr_guest_test, which no host record may hold.
${CROSS}nm "$bins/kvm/ctr_guest_test" | grep ' ctr_[ab]' \
	>"$bins/kvm/ctr_guest_test.syms"
# The perf tool tests check records against the workload's symbols.
${CROSS}nm "$bins/workload" | grep ' ctr_wl' >"$bins/workload.syms"
# The program perf-ctr's BOLT profiles are checked on (llvm-bolt
# rewrites static riscv64 binaries linked with their relocations).
boltprog=$TOP/tools/perf-ctr/tests/afdo/boltprog.c
if [ ! "$bins/boltprog" -nt "$boltprog" ]; then
	${CROSS}gcc -O2 -g -static -Wl,--emit-relocs -o "$bins/boltprog" "$boltprog"
fi
# perf-ctr's static riscv64 build (record, script, check), when the host
# tests have built it, records in the guest too.
pc=$TOP/out/perf-ctr/riscv64/perf-ctr
if [ -x "$pc" ]; then
	install -m 755 "$pc" "$bins/perf-ctr"
else
	rm -f "$bins/perf-ctr"
fi
