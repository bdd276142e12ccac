#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The consumers of perf-ctr aggregate's profiles, for its tests and its
# benchmark. Idempotent; every step leaves a stamp in $CTR_CACHE.
#
#   host (bookworm): autofdo (create_gcov), llvm-14 (llvm-profdata), clang-14
#                    (-fprofile-sample-use), linux-perf (perf script, for the
#                    relocation check and the benchmark), time, bolt-19
#                    (llvm-bolt and perf2bolt, for the BOLT profile)
#   trixie root:     llvm-19 (llvm-profgen handles RISC-V from 19 on), clang-19,
#                    riscv64 GCC 14 (profiles with discriminators)
#   forky root:      riscv64 GCC 15 and 16 (GCC 16 reads gcov version 3)
#
# A package that cannot be installed is reported, not fatal: the tests
# that need it skip and say why.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

stamp() { [ -e "$CTR_CACHE/.stamp-$1" ]; }
mark() { date > "$CTR_CACHE/.stamp-$1"; }

[ "$(id -u)" = 0 ] || { say "setup-afdo: not root, nothing installed"; exit 0; }
mkdir -p "$CTR_CACHE"

HOST_PKGS="autofdo llvm-14 clang-14 linux-perf time gcc-riscv64-linux-gnu libelf-dev libdw-dev bolt-19"

host_pkgs() {
	# the stamp holds the list, so that a longer list installs again
	[ "$(cat "$CTR_CACHE/.stamp-afdo-host" 2>/dev/null)" = "$HOST_PKGS" ] && return 0
	local missing=() p
	for p in $HOST_PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} != 0 ]; then
		say "installing host packages: ${missing[*]}"
		apt-get update -qq || say "apt-get update reported errors; trying anyway"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${missing[@]}" >/dev/null ||
			{ say "apt-get install ${missing[*]} failed"; return 1; }
	fi
	echo "$HOST_PKGS" >"$CTR_CACHE/.stamp-afdo-host"
}

# llvm-profgen (LLVM >= 19) lives in the trixie root and runs through its
# loader (root_exec), like QEMU; so do the newer compilers the profiles are
# tested with (riscv64 GCC 14, clang 19), run there with in_root; clang
# 19's instrumented riscv64 binaries link Debian's riscv64 profile runtime;
# its binaries link with lld (clang 19 places probes before ld's relaxing).
ROOT_PKGS="llvm-19 clang-19 lld-19 gcc-14-riscv64-linux-gnu libc6-dev-riscv64-cross libclang-rt-19-dev:riscv64"
# llvm-profgen's input is perf script's text, of perf 7.3 (trixie-backports):
# the host's perf 6.1 prints the stacks of riscv64 call chains as offsets.
# perf-ctr reads clang 19's line tables with the root's libdw 0.196 (Debian
# 12's 0.188 cannot).
BPO_PKGS="linux-perf libdw1t64"

root_llvm() {
	[ "$(cat "$CTR_CACHE/.stamp-afdo-root" 2>/dev/null)" = "$ROOT_PKGS $BPO_PKGS" ] && return 0
	[ -e "$ROOT/.debootstrap-done" ] ||
		{ say "no trixie root at $ROOT (scripts/setup.sh root): no llvm-profgen"; return 1; }
	say "installing $ROOT_PKGS into the trixie root"
	# shellcheck disable=SC2086
	in_root apt-get install -y -qq --no-install-recommends $ROOT_PKGS >/dev/null ||
		{ in_root apt-get update -qq &&
		  in_root apt-get install -y -qq --no-install-recommends $ROOT_PKGS >/dev/null; } ||
		{ say "apt-get install $ROOT_PKGS in $ROOT failed"; return 1; }
	[ -x "$ROOT/usr/lib/llvm-19/bin/llvm-profgen" ] ||
		{ say "llvm-19 has no llvm-profgen"; return 1; }
	# shellcheck disable=SC2086
	in_root apt-get install -y -qq --no-install-recommends -t trixie-backports \
		$BPO_PKGS >/dev/null || { say "apt-get install $BPO_PKGS in $ROOT failed"; return 1; }
	echo "$ROOT_PKGS $BPO_PKGS" >"$CTR_CACHE/.stamp-afdo-root"
}

# GCC 15 and 16 for riscv64 come from forky, whose cross compilers need
# forky's libstdc++ and glibc: they get a minimal forky root of their own,
# so that the trixie root stays trixie (its clang 19 and GCC 14 link its
# riscv64 libc). The host's debootstrap may not know forky: sid's script
# makes any suite. The mirror may serve an expired Release file.
FORKY_PKGS="gcc-15-riscv64-linux-gnu gcc-16-riscv64-linux-gnu libc6-dev-riscv64-cross"

forky_gcc() {
	[ "$(cat "$CTR_CACHE/.stamp-afdo-forky" 2>/dev/null)" = "$FORKY_PKGS" ] && return 0
	[ -n "$DEBIAN_MIRROR" ] ||
		{ say "no Debian archive in this host's apt sources: no forky root"; return 1; }
	if [ ! -e "$FORKY/.debootstrap-done" ]; then
		say "debootstrap: minimal forky root in $FORKY (about 30 s)"
		rm -rf "$FORKY.tmp"
		debootstrap --variant=minbase forky "$FORKY.tmp" "$DEBIAN_MIRROR" \
			/usr/share/debootstrap/scripts/sid >"$CTR_CACHE/debootstrap-forky.log" 2>&1 ||
			{ say "debootstrap of forky failed, see $CTR_CACHE/debootstrap-forky.log"; return 1; }
		rm -rf "$FORKY"
		mv "$FORKY.tmp" "$FORKY"
		touch "$FORKY/.debootstrap-done"
	fi
	cp /etc/resolv.conf "$FORKY/etc/resolv.conf" 2>/dev/null || true
	echo 'Acquire::Check-Valid-Until "false";' >"$FORKY/etc/apt/apt.conf.d/99ctr"
	say "installing $FORKY_PKGS into the forky root"
	# shellcheck disable=SC2086
	{ in_forky apt-get update -qq &&
	  in_forky apt-get install -y -qq --no-install-recommends $FORKY_PKGS >/dev/null; } ||
		{ say "apt-get install $FORKY_PKGS in $FORKY failed"; return 1; }
	echo "$FORKY_PKGS" >"$CTR_CACHE/.stamp-afdo-forky"
}

host_pkgs
root_llvm
forky_gcc
exit 0
