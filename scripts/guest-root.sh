#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unpack the riscv64 guest root: busybox, bash, the unmodified Debian
# linux-perf and binutils' objdump, with the libraries they need, from
# $GUEST_SUITE. Called by setup.sh, which runs it again whenever this
# script or guest-deps.py changes; the result is $GUEST/$GUEST_SUITE.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# perf's shell tests want GNU tools (busybox mktemp needs six X's); perf
# annotate disassembles with objdump (binutils).
GUEST_PKGS="linux-perf bash busybox-static coreutils grep sed gawk binutils"

index=$(ls "$ROOT"/var/lib/apt/lists/*_dists_"${GUEST_SUITE}"_main_binary-riscv64_Packages 2>/dev/null) ||
	die "no riscv64 index for $GUEST_SUITE in $ROOT (GUEST_SUITE=trixie or forky)"
# shellcheck disable=SC2086 # a list of names
pkgs=$(python3 "$TOP/scripts/guest-deps.py" "$index" $GUEST_PKGS)
say "guest: $(echo "$pkgs" | wc -l) riscv64 packages from $GUEST_SUITE"

# shellcheck disable=SC2086 # a list of names
debs=$(fetch_debs "$DEBS/guest-$GUEST_SUITE" "$GUEST_SUITE" $pkgs) ||
	die "downloading guest packages failed"

out=$GUEST/$GUEST_SUITE
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
for d in $debs; do
	dpkg-deb -x "$d" "$out.tmp"
done
cd "$out.tmp"
# dpkg -x only fills /usr: the merged-/usr links are made by base-files'
# maintainer scripts, which do not run here.
for d in bin sbin lib; do
	[ -e $d ] || ln -s usr/$d $d
done
# Trim what a test guest never reads: it halves the initramfs.
rm -rf usr/share/doc usr/share/man usr/share/info usr/share/locale \
	usr/share/lintian usr/share/bash-completion usr/lib/python3* \
	usr/share/perl* usr/lib/riscv64-linux-gnu/perl* usr/share/zoneinfo
[ -x usr/bin/perf ] || die "no usr/bin/perf in linux-perf"
# binutils is here for objdump (perf annotate) and the tools that read
# binaries (readelf, nm, strings): the guest assembles, links and gprofs
# nothing, which saves 10 MB. No addr2line either: Debian's perf, built
# without libbfd and LLVM, runs it for source lines and inlined frames
# when it is on PATH, and the checks of that perf were written against a
# guest without it (perf73 resolves lines with libdw).
rm -rf usr/lib/riscv64-linux-gnu/ldscripts usr/lib/riscv64-linux-gnu/gprofng \
	usr/lib/riscv64-linux-gnu/libgprofng.so* usr/bin/gprof* usr/bin/gp-* \
	usr/bin/riscv64-linux-gnu-ld* usr/bin/ld usr/bin/ld.bfd \
	usr/bin/riscv64-linux-gnu-as usr/bin/as \
	usr/bin/riscv64-linux-gnu-gprof \
	usr/bin/riscv64-linux-gnu-addr2line usr/bin/addr2line
[ -x usr/bin/objdump ] || die "no usr/bin/objdump in binutils"
cd - >/dev/null
rm -rf "$out"
mv "$out.tmp" "$out"
say "guest root: $out ($(du -sh "$out" | cut -f1))"
