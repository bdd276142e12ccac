#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What tools/perf-ctr and its tests need on the host. Idempotent.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Debian packages perf-ctr builds and tests with (by name; apt skips the
# installed ones): libelf/libdw headers, clang for the fuzzer, perf for
# the byte-identical comparisons.
pkgs=(libelf-dev libdw-dev zlib1g-dev clang-14 linux-perf python3)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing ${missing[*]}"
	apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
fi

# libperf.a leaves libapi (fdarray, sysfs helpers) to its user: build it
# from the same kernel tree, next to libperf, once per architecture.
for arch in x86_64 riscv64; do
	out=$CTR_CACHE/libperf/$arch
	[ -f "$out/lib64/libperf.a" ] || continue
	[ -f "$out/lib64/libapi.a" ] && continue
	[ -d "$KSRC/tools/lib/api" ] || continue
	say "building libapi ($arch) from $KSRC/tools/lib/api"
	cross=()
	[ $arch = riscv64 ] && cross=(ARCH=riscv CROSS_COMPILE=$CROSS)
	rm -rf "$out/api.build"
	mkdir -p "$out/api.build"
	make -s -C "$KSRC/tools/lib/api" "${cross[@]}" OUTPUT="$out/api.build/" \
		>/dev/null || die "libapi build ($arch) failed"
	cp "$out/api.build/libapi.a" "$out/lib64/libapi.a"
	rm -rf "$out/api.build"
done

# The AutoFDO consumers (compilers, create_gcov, llvm-profgen) that the
# profile tests feed are set up by their own script.
[ -x "$TOP/scripts/setup-afdo.sh" ] && "$TOP/scripts/setup-afdo.sh"
exit 0
