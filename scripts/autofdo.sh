#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make autofdo: AutoFDO through perf-ctr, measured on three real programs.
#
# bzip2, lua5.4 and duk (duktape's JavaScript interpreter) come from
# their Debian source packages (apt-get
# source, through a deb-src entry for the host's suite that this script
# owns) and are cross-built static for riscv64 with GCC 12:
#   base    -O2 -g: the binary that is profiled, and the baseline
#   instr   -O2 -fprofile-generate -fprofile-update=single
#   fdo     -O2 -fprofile-use with instr's .gcda from the guest
#   afdo-P  -O2 -fauto-profile with perf-ctr aggregate -f gcov of the
#           recording of base at period P
#   afdowin-P  the same with perf-ctr aggregate --weight window
#   cov     -O2 -g --coverage -fprofile-update=single: gcov's exact line
#           counts on the training inputs, against which the line counts
#           of each recording (perf-ctr aggregate -f lines) are compared
# GCC 14 from the trixie root builds base, instr, fdo, afdo-P and
# afdowin-P the same way (AFDO_GCC14=0 leaves it out): its profiles have
# discriminators, which GCC 12's cannot hold. So do GCC 15 and GCC 16
# from the forky root (AFDO_GCC15=0, AFDO_GCC16=0 leave them out): GCC
# 16's AutoFDO is much changed, and reads gcov version 3. And with clang 14
# (AFDO_CLANG=0 leaves it out): base (-O2
# -gline-tables-only -fdebug-info-for-profiling), instr and fdo (with a
# profile runtime built here for riscv64), afdo-P (-fprofile-sample-use,
# perf-ctr aggregate -f llvm-text), afdowin-P (--weight window) and
# profgen-P (llvm-profgen 19 on perf-ctr script's text of the same
# recording).
# And with clang 19 from the trixie root (AFDO_CLANG19=0 leaves it out),
# the pseudo-probe path (CSSPGO): base is built with
# -fpseudo-probe-for-profiling, frame pointers and -mno-relax (clang 19
# computes probe addresses before lld's relaxation moves code), and is
# recorded with call chains beside the branch stacks (--call-graph fp);
# instr and fdo as clang 14's, with Debian's riscv64 profile runtime;
# afdo-P from perf-ctr aggregate -f llvm-probe (probes, no contexts;
# afdowin-P with --weight window), profgen-P from llvm-profgen 19 on the
# branch stacks alone (the same kind of profile), cs-P from perf-ctr
# aggregate -f llvm-cs (contexts from each sample's call chain, through
# llvm-profgen's pre-inliner), csnest-P the same nested by llvm-profdata,
# csnat-P with --native-calls (contexts through every call, which
# llvm-profgen 19 does not see on RISC-V), profgencs-P from llvm-profgen
# 19 on perf 7.3's script of the call chains and branch stacks and
# profgencsnopre-P the same without its pre-inliner.
# Round exact-PROG-CC (AFDO_EXACT=0 leaves it out) runs GCC 12's and clang
# 19's base binaries once on the training inputs under tools/insn-count,
# a QEMU plugin counting each of their instructions: the table gives each
# recording's overlap with those exact counts. AFDO_PROGS picks the
# programs. AFDO_FUNCTIONS="PROG:CC:VARIANT[:SET] ..." also counts those
# binaries and their -O2 exactly (on the held-out inputs, or with SET
# train the training ones), compares them per function and, for an
# AutoFDO variant, the recording's counts of those functions with the
# exact ones (out/autofdo/functions.md).
# Round 1 boots the -icount CTR guest once per compiler: perf record -b
# of base on the training inputs at each period, instr writing its
# profile and (GCC) cov its .gcda files. Round 2 boots it again: perf stat -e instructions:u of every
# binary on the held-out (and the training) inputs, once each (-icount
# counts exactly), every output checked against GCC -O2's. The table
# goes to out/autofdo/table.md.
# BOLT (AFDO_BOLT=0 leaves it out; llvm-bolt 19 from bolt-19): GCC 12's
# base and AutoFDO binaries are linked with their relocations
# (--emit-relocs; the code is the same), as llvm-bolt rewrites RISC-V
# programs. base-bolt-P is base rewritten with perf-ctr aggregate -f bolt
# of its recording at period P; round 1b records each afdo-P at
# AFDO_BOLT_PERIOD (default: the middle period) the same way, and
# afdo-P-bolt is that binary rewritten with its own profile. Round 2
# counts them beside the rest; out/autofdo/bolt.md has their table.
#
# Everything is cached in $CTR_CACHE/autofdo: a second run rebuilds
# nothing and boots only when a binary, an input or the guest side
# changed (AFDO_FRESH=1 boots anyway). AFDO_PERIODS="P ..." picks the
# periods, AFDO_WINDOW=0 leaves the afdowin-P binaries out. Needs root
# (apt-get) the first time.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export LC_ALL=C

W=$CTR_CACHE/autofdo
OUT=$TOP/out/autofdo
PERIODS=${AFDO_PERIODS:-50021 70001 100003 140009 199999}
# Round 2 counts the held-out inputs, and the training ones unless
# AFDO_INSAMPLE=0.
SETS="measure train"
[ "${AFDO_INSAMPLE:-1}" = 1 ] || SETS=measure
PROGS=${AFDO_PROGS:-bzip2 lua duk}
PC=$TOP/out/perf-ctr/perf-ctr
GCC=${CROSS}gcc
GCC14=/usr/bin/${CROSS}gcc-14	# in the trixie root
GCC15=/usr/bin/${CROSS}gcc-15	# in the forky root
GCC16=/usr/bin/${CROSS}gcc-16
CLANG=clang-14
CLANG19=/usr/bin/clang-19	# in the trixie root
SRC_LIST=/etc/apt/sources.list.d/ctr-autofdo-src.sources
T0=$(date +%s)

mkdir -p "$W/src" "$W/build" "$W/prof" "$OUT"

# --- host packages, the Debian sources ----------------------------------------
setup() {
	local pkgs="dpkg-dev gcc-riscv64-linux-gnu libc6-dev-riscv64-cross cpio bzip2 python3 gcc"
	local missing=() p
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} != 0 ]; then
		[ "$(id -u)" = 0 ] || die "autofdo: needs root to install ${missing[*]}"
		say "installing ${missing[*]}"
		apt-get update -qq || true
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${missing[@]}" >/dev/null ||
			die "apt-get install ${missing[*]} failed"
	fi
	# libperf/libapi for perf-ctr, and the AutoFDO consumers
	"$TOP/scripts/setup-perfctr.sh" >/dev/null
	[ -f "$KBUILD/ctr/arch/riscv/boot/Image" ] ||
		die "no kernel image: run make kernel (make autofdo does)"
}

# A deb-src entry for the host's own suite and mirror, in a file of ours.
deb_src() {
	local suite want
	suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	[ -n "$DEBIAN_MIRROR" ] ||
		die "no Debian archive in this host's apt sources: set DEBIAN_MIRROR"
	want="# make autofdo (scripts/autofdo.sh): apt-get source bzip2 lua5.4 duktape
Types: deb-src
URIs: $DEBIAN_MIRROR
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
	if [ "$(cat "$SRC_LIST" 2>/dev/null)" != "$want" ]; then
		[ "$(id -u)" = 0 ] || die "autofdo: needs root to write $SRC_LIST"
		echo "$want" >"$SRC_LIST"
	fi
	apt-cache showsrc bzip2 2>/dev/null | grep -q '^Package:' && return
	say "apt-get update (deb-src $suite)"
	apt-get update -qq >/dev/null 2>&1 || true
	# Where apt's _apt sandbox cannot run gpgv, verify as root instead.
	apt-cache showsrc bzip2 2>/dev/null | grep -q '^Package:' ||
		apt-get update -qq -o APT::Sandbox::User=root >/dev/null 2>&1 || true
	apt-cache showsrc bzip2 2>/dev/null | grep -q '^Package:' ||
		die "no source package index after apt-get update (see $SRC_LIST)"
}

srcdir() {	# DEBIAN-SOURCE-PACKAGE: its unpacked tree, fetched once
	local d
	d=$(ls -d "$W/src/$1"-[0-9]*/ 2>/dev/null | head -1)
	if [ -z "$d" ]; then
		deb_src
		say "apt-get source $1"
		(cd "$W/src" && apt-get source -qq "$1" >"$W/src/$1.log" 2>&1) ||
			{ tail -5 "$W/src/$1.log" >&2; die "apt-get source $1 failed"; }
		d=$(ls -d "$W/src/$1"-[0-9]*/ | head -1)
	fi
	echo "${d%/}"
}

# --- the programs -------------------------------------------------------------
# prog_files PROG: the C files of the program; prog_flags, prog_libs.
prog_src() { case $1 in bzip2) echo "$BZ" ;; lua) echo "$LUA/src" ;; duk) echo "$DUK/src-noline" ;; esac; }
prog_files() {
	case $1 in
	bzip2) echo blocksort.c huffman.c crctable.c randtable.c compress.c \
		decompress.c bzlib.c bzip2.c ;;
	lua) (cd "$LUA/src" && ls ./*.c | sed 's|^\./||' | grep -v '^luac\.c$') ;;
	# Duktape's one-file engine (without #line: its lines are the
	# file's, as gcov counts them) and its command line, with print()
	duk) echo duktape.c ../examples/cmdline/duk_cmdline.c \
		../extras/print-alert/duk_print_alert.c ;;
	esac
}
prog_flags() {
	case $1 in
	bzip2) echo -D_FILE_OFFSET_BITS=64 ;;
	# A fixed string hash seed: Lua's own mixes in the time and ASLR'ed
	# addresses, so that each run would take another number of instructions.
	lua) echo -std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_POSIX -I"$W/src/lua-inc" \
		'-Dluai_makeseed(L)=0x5eedu' ;;
	duk) echo -std=c99 -I"$DUK/examples/cmdline" -I"$DUK/extras/print-alert" \
		-DDUK_CMDLINE_PRINTALERT_SUPPORT ;;
	esac
}
prog_libs() { case $1 in lua | duk) echo -lm ;; esac; }

hash_files() { cat "$@" | sha256sum | cut -d' ' -f1; }

# build CC PROG VARIANT [FLAGS...]: $W/build/PROG-CC-VARIANT/PROG, one
# object per source file in that directory (GCC names the .gcda files
# after them). DEPS (files) are part of the key: profiles, .gcda files.
# LDEXTRA: more link arguments.
DEPS=() LDEXTRA=()
build() {
	local cc=$1 p=$2 v=$3; shift 3
	local d=$W/build/$p-$cc-$v src key f fail=0 n=0 compiler
	src=$(prog_src "$p")
	case $cc in
	gcc) compiler=("$GCC") ;;
	gcc14) compiler=(chroot "$ROOT" "$GCC14") ;;
	gcc15) compiler=(chroot "$FORKY" "$GCC15") ;;
	gcc16) compiler=(chroot "$FORKY" "$GCC16") ;;
	clang) compiler=("$CLANG" --target=riscv64-linux-gnu) ;;
	clang19) compiler=(chroot "$ROOT" "$CLANG19" --target=riscv64-linux-gnu -fuse-ld=lld) ;;
	esac
	key=$( {
		echo "${compiler[*]} $* | ${LDEXTRA[*]}"; "${compiler[@]}" --version | head -1
		prog_flags "$p"; prog_libs "$p"
		for f in $(prog_files "$p"); do sha256sum <"$src/$f"; done
		cat "$src"/*.h | sha256sum
		[ ${#DEPS[@]} = 0 ] || cat "${DEPS[@]}" | sha256sum
	} | sha256sum | cut -d' ' -f1)
	[ -x "$d/$p" ] && [ "$(cat "$d/.key" 2>/dev/null)" = "$key" ] && return
	rm -rf "$d"
	mkdir -p "$d"
	for f in "${DEPS[@]}"; do
		case $f in *.gcda) cp "$f" "$d/" ;; esac
	done
	# shellcheck disable=SC2046 # flags split on purpose
	for f in $(prog_files "$p"); do
		"${compiler[@]}" "$@" $(prog_flags "$p") -I"$src" -c "$src/$f" \
			-o "$d/$(basename "${f%.c}").o" 2>>"$d/build.log" &
		n=$((n + 1))
		if [ $n -ge 2 ]; then wait -n || fail=1; n=$((n - 1)); fi
	done
	while [ $n -gt 0 ]; do wait -n || fail=1; n=$((n - 1)); done
	# clang's driver would link its own profile runtime, which does not
	# exist for riscv64: LDEXTRA brings ours instead.
	local link=()
	for f in "$@"; do
		[ "$cc" = clang ] && [ "$f" = -fprofile-generate ] && continue
		link+=("$f")
	done
	# shellcheck disable=SC2046,SC2015
	[ $fail = 0 ] && "${compiler[@]}" "${link[@]}" -static -o "$d/$p" "$d"/*.o \
		"${LDEXTRA[@]}" $(prog_libs "$p") 2>>"$d/build.log" ||
		{ tail -20 "$d/build.log" >&2; die "build of $p-$cc-$v failed"; }
	echo "$key" >"$d/.key"
	say "built $p-$cc-$v"
}

# GCOV_PREFIX_STRIP for a binary whose objects are in DIR: all of DIR.
strip_count() { echo "$1" | tr -cd / | wc -c; }

# --- inputs -------------------------------------------------------------------
# bzip2 is trained on lua5.4's sources and manual and measured on bzip2's
# own sources and documentation; lua and duk on two scripts each of this
# repository.
inputs() {
	local in=$W/in
	mkdir -p "$in"
	# about 300 M instructions to compress and decompress each
	cat "$LUA"/src/*.c "$LUA"/src/*.h "$LUA"/doc/*.html >"$in/bzip2.train"
	truncate -s 640000 "$in/bzip2.train"
	cat "$BZ"/*.c "$BZ"/*.h "$BZ"/manual.xml "$BZ"/bzip2.txt "$BZ"/CHANGES \
		"$BZ"/README >"$in/bzip2.measure"
	cp "$TOP/scripts/autofdo/train.lua" "$TOP/scripts/autofdo/measure.lua" \
		"$TOP/scripts/autofdo/train.js" "$TOP/scripts/autofdo/measure.js" "$in/"
}

# The expected output of lua SET.lua, from an x86-64 build of the
# same interpreter on the host (a riscv64 base miscompiled would show).
host_lua() {
	local d=$W/build/lua-host key
	key=$( { cat "$LUA"/src/*.[ch]; prog_flags lua; } | sha256sum | cut -d' ' -f1)
	if [ ! -x "$d/lua" ] || [ "$(cat "$d/.key" 2>/dev/null)" != "$key" ]; then
		rm -rf "$d"
		mkdir -p "$d"
		# shellcheck disable=SC2046
		gcc -O1 $(prog_flags lua) -o "$d/lua" \
			$(for f in $(prog_files lua); do echo "$LUA/src/$f"; done) -lm \
			2>"$d/build.log" || { tail "$d/build.log" >&2; die "host lua build failed"; }
		echo "$key" >"$d/.key"
	fi
	"$d/lua" "$W/in/$1.lua" | sha256sum | cut -d' ' -f1
}

# The same for duk SET.js. Duktape seeds its string hash with its heap's
# address: each binary has its own (ASLR is off in the guest), which
# moves a few hash collisions between binaries, not the output.
host_duk() {
	local d=$W/build/duk-host key
	key=$( { cat "$DUK"/src-noline/*.[ch] "$DUK"/examples/cmdline/*.[ch]; prog_flags duk; } |
		sha256sum | cut -d' ' -f1)
	if [ ! -x "$d/duk" ] || [ "$(cat "$d/.key" 2>/dev/null)" != "$key" ]; then
		rm -rf "$d"
		mkdir -p "$d"
		# shellcheck disable=SC2046
		gcc -O1 -I"$DUK/src-noline" $(prog_flags duk) -o "$d/duk" \
			$(for f in $(prog_files duk); do echo "$DUK/src-noline/$f"; done) -lm \
			2>"$d/build.log" || { tail "$d/build.log" >&2; die "host duk build failed"; }
		echo "$key" >"$d/.key"
	fi
	"$d/duk" "$W/in/$1.js" | sha256sum | cut -d' ' -f1
}

# --- guest rounds -------------------------------------------------------------
# round N[-TAG] PLAN-LINES...: boot the -icount guest for round N with
# /afdo holding the plan's binaries, the inputs and the env; the console
# is in $W/roundN[-TAG]/console.log, the files it printed in .../files.
round() {
	local name=$1; shift
	local n=${name%%-*} r=$W/round$name st line p cc v key base mb mem
	st=$r/stage
	rm -rf "$st"
	mkdir -p "$st/afdo/bin" "$st/afdo/in"
	cp "$W"/in/* "$st/afdo/in/"
	{
		echo "ROUND=$n"
		echo "PERIODS='${ROUND_PERIODS:-$PERIODS}'"
		echo "SETS='$SETS'"
		[ -z "${ROUND_SET:-}" ] || echo "EXACT_SET=$ROUND_SET"
		for p in $PROGS; do
			for v in instr cov; do
				echo "GCOV_STRIP_${p}_gcc_$v=$(strip_count "$W/build/$p-gcc-$v")"
			done
			echo "GCOV_STRIP_${p}_gcc14_instr=$(strip_count "$W/build/$p-gcc14-instr")"
		done
		# the later GCCs' only where they run: other rounds keep their keys
		for line in "$@"; do
			read -r p cc v <<<"$line"
			case $cc-$v in gcc1[5-9]-instr)
				echo "GCOV_STRIP_${p}_${cc}_$v=$(strip_count "$W/build/$p-$cc-$v")" ;;
			esac
		done
	} >"$st/afdo/env"
	for line in "$@"; do
		read -r p cc v <<<"$line"
		echo "$line" >>"$st/afdo/plan"
		cp "$W/build/$p-$cc-$v/$p" "$st/afdo/bin/$p-$cc-$v"
	done
	# The guest unpacks the binaries into its RAM: 1 GB holds round 1's,
	# round 2's (every binary of the run, most of them with their debug
	# information) take twice their size more, the compressed archive
	# and the files unpacked from it.
	mb=$(du -sm "$st" | cut -f1)
	mem=1G
	[ "$mb" -le 200 ] || mem=$(((1024 + 2 * mb + 255) / 256 * 256))M
	# The QEMU it boots on is an input too: its predictor and counters
	# make the recordings.
	key=$( (cd "$st" && find . -type f | sort | xargs sha256sum;
		sha256sum <"$TOP/scripts/guest/autofdo"; sha256sum <"$QEMU_BIN"
		echo "${ROUND_QEMU:-}"; [ -z "${ROUND_KEY:-}" ] || sha256sum <"$ROUND_KEY"
		[ "$mem" = 1G ] || echo "mem=$mem") |
		sha256sum | cut -d' ' -f1)
	if [ -z "${AFDO_FRESH:-}" ] && [ "$(cat "$r/key" 2>/dev/null)" = "$key" ]; then
		say "round $name: unchanged, results of $(date -r "$r/key" '+%F %T')"
		return
	fi
	base=$CTR_CACHE/initramfs-$GUEST_SUITE.cpio.gz
	"$TOP/scripts/mkinitramfs.sh" "$base"
	(cd "$st" && find afdo | cpio -o -H newc --quiet | gzip -1) >"$r/afdo.cpio.gz"
	# The kernel unpacks concatenated archives one after the other.
	cat "$base" "$r/afdo.cpio.gz" >"$r/initrd.cpio.gz"
	rm -f "$r/key"
	rm -rf "$r/files"
	local t
	t=$(date +%s)
	say "round $name: booting the -icount guest ($(du -h "$r/afdo.cpio.gz" | cut -f1) of binaries and inputs)"
	CTR_INITRD=$r/initrd.cpio.gz CTR_QEMU_ARGS=${ROUND_QEMU:-} "$TOP/scripts/run.sh" --smp 1 \
		--mem "$mem" --cpu max,smaia=false,ssaia=false --icount --run autofdo \
		--timeout "${AFDO_TIMEOUT:-3600}" --log "$r/console.log" >/dev/null 2>&1 || true
	! grep -q "Initramfs unpacking failed" "$r/console.log" ||
		die "round $name: the guest could not unpack its binaries into $mem of RAM ($mb MB of them): $r/console.log"
	grep -q "^afdo: round $n done" "$r/console.log" ||
		{ grep '^afdo' "$r/console.log" | tail -20 >&2; tail -5 "$r/console.log" >&2;
		  die "round $name did not finish: $r/console.log"; }
	python3 "$TOP/scripts/guest-files.py" "$r/console.log" "$r/files" >/dev/null ||
		die "round $name: a file did not come back whole"
	say "round $name: $(($(date +%s) - t)) s, console $(du -h "$r/console.log" | cut -f1)"
	echo "$key" >"$r/key"
}

# insn_count: tools/insn-count built in the trixie root against the QEMU
# plugin API of the QEMU built here, as $INSN_COUNT.
INSN_COUNT=$W/build/insn-count/insn-count.so
insn_count() {
	local d=$W/build/insn-count key
	key=$(cat "$TOP/tools/insn-count/insn-count.c" "$QEMU_CTR/src/include/qemu/qemu-plugin.h" |
		sha256sum | cut -d' ' -f1)
	[ -f "$INSN_COUNT" ] && [ "$(cat "$d/.key" 2>/dev/null)" = "$key" ] && return
	rm -rf "$d"
	mkdir -p "$d"
	cp "$TOP/tools/insn-count/insn-count.c" "$d/"
	root_bind
	in_root sh -c "cd $d && gcc -O2 -shared -fPIC -Wall -Wextra -Wno-unused-parameter -Werror \
		\$(pkg-config --cflags glib-2.0) -I/${QEMU_CTR#"$ROOT"/}/src/include/qemu \
		-o insn-count.so insn-count.c" || die "tools/insn-count did not build"
	echo "$key" >"$d/.key"
}

# exact PROG CC [VARIANT [SET]]: round exact-PROG-CC runs PROG-CC-base
# once on the training inputs under tools/insn-count; its counts of the
# binary's text are $W/roundexact-PROG-CC/counts.txt. Those of another
# VARIANT, or of the held-out inputs (SET measure), are in
# roundexact-PROG-CC[-VARIANT][-measure].
exact() {
	local p=$1 cc=$2 v=${3:-base} set=${4:-train} name=exact-$1-$2 r rs=
	[ "$v" = base ] || name=$name-$v
	[ "$set" = train ] || { name=$name-$set; rs=$set; }
	r=$W/round$name
	[ -s "$r/counts.txt" ] || rm -f "$r/key"
	mkdir -p "$r"
	ROUND_SET=$rs ROUND_KEY=$INSN_COUNT \
	ROUND_QEMU="-plugin $INSN_COUNT,bin=$W/build/$p-$cc-$v/$p,out=$r/counts.txt" \
		round "$name" "$p $cc $v"
	[ -s "$r/counts.txt" ] || die "round $name: no instruction counts"
}

# clang's instrumented PGO needs libclang_rt.profile, which Debian ships
# for the host only: build it for riscv64 from compiler-rt/lib/profile of
# the llvm-toolchain-14 source package (the clang-14 the host has).
clang_rt() {
	local d=$W/build/clang-rt s f
	local a=$d/libclang_rt.profile-riscv64.a
	[ -f "$a" ] && { echo "$a"; return; }
	s=$(ls -d "$W"/src/llvm-14/llvm-toolchain-14_*/compiler-rt 2>/dev/null | head -1)
	if [ -z "$s" ]; then
		deb_src
		mkdir -p "$W/src/llvm-14"
		say "apt-get source --download-only llvm-toolchain-14 (130 MB, for compiler-rt/lib/profile)"
		(cd "$W/src/llvm-14" && apt-get source --download-only -qq llvm-toolchain-14 \
			>dl.log 2>&1) || { say "could not fetch llvm-toolchain-14"; return 1; }
		tar -C "$W/src/llvm-14" -xJf "$W"/src/llvm-14/llvm-toolchain-14_*.orig.tar.xz \
			--wildcards '*/compiler-rt/lib/profile/*' '*/compiler-rt/include/profile/*' ||
			return 1
		rm -f "$W"/src/llvm-14/*.orig.tar.xz
		s=$(ls -d "$W"/src/llvm-14/llvm-toolchain-14_*/compiler-rt | head -1)
	fi
	rm -rf "$d"
	mkdir -p "$d"
	for f in "$s"/lib/profile/*.c "$s"/lib/profile/*.cpp; do
		"$CLANG" --target=riscv64-linux-gnu -O2 -g0 -fno-exceptions -fno-rtti \
			-DCOMPILER_RT_HAS_UNAME=1 -DCOMPILER_RT_HAS_ATOMICS=1 \
			-DCOMPILER_RT_HAS_FCNTL_LCK=1 -I"$s/include" -I"$s/lib/profile" \
			-c "$f" -o "$d/$(basename "$f").o" 2>>"$d/build.log" || return 1
	done
	${CROSS}ar rcs "$a.tmp" "$d"/*.o && mv "$a.tmp" "$a" || return 1
	echo "$a"
}

# --- main -----------------------------------------------------------------------
setup
BZ=$(srcdir bzip2)
LUA=$(srcdir lua5.4)
DUK=$(srcdir duktape)
# debian/rules writes the header that Debian's luaconf.h patch includes
mkdir -p "$W/src/lua-inc"
echo '#define DEB_HOST_MULTIARCH "riscv64-linux-gnu"' >"$W/src/lua-inc/lua5.4-deb-multiarch.h"
inputs
make -C "$TOP/tools/perf-ctr" -s >/dev/null || {
	say "perf-ctr did not build (being edited?); retrying in 60 s"
	sleep 60
	make -C "$TOP/tools/perf-ctr" -s >/dev/null
} || die "perf-ctr does not build"

O2="-O2 -g"
BOLT=/usr/lib/llvm-19/bin
BOLT_ON=0
if [ "${AFDO_BOLT:-1}" = 1 ]; then
	if [ -x "$BOLT/llvm-bolt" ]; then
		BOLT_ON=1
	else
		say "no llvm-bolt 19 (bolt-19: scripts/setup-afdo.sh): no BOLT rows"
	fi
fi
BOLT_PER=${AFDO_BOLT_PERIOD:-$(echo $PERIODS | awk '{ print $(int((NF + 1) / 2)) }')}
case " $PERIODS " in
*" $BOLT_PER "*) ;;
*) die "AFDO_BOLT_PERIOD=$BOLT_PER is not one of the periods ($PERIODS)" ;;
esac
BOLT_LD=()
[ $BOLT_ON = 0 ] || BOLT_LD=(-Wl,--emit-relocs)
for p in $PROGS; do
	DEPS=()
	LDEXTRA=("${BOLT_LD[@]}")
	build gcc "$p" base $O2
	LDEXTRA=()
	build gcc "$p" instr $O2 -fprofile-generate -fprofile-update=single
	# -O2 as base, so that its lines are attributed as base's are
	build gcc "$p" cov $O2 --coverage -fprofile-update=single
done

# GCC 14 and clang 19 run in the trixie root, GCC 15 and 16 in the forky
# root: root_bind DIR makes DIR see $W at the same path.
root_bind() {
	local dir=${1:-$ROOT}
	mountpoint -q "$dir$W" && return
	mkdir -p "$dir$W"
	mount --bind "$W" "$dir$W" || die "cannot bind $W into $dir"
	trap 'umount "$ROOT$W" "$FORKY$W" 2>/dev/null || true' EXIT
}
GCCS=gcc
for cc in gcc14 gcc15 gcc16; do
	case $cc in
	gcc14) dir=$ROOT gcc=$GCC14 on=${AFDO_GCC14:-1} ;;
	gcc15) dir=$FORKY gcc=$GCC15 on=${AFDO_GCC15:-1} ;;
	gcc16) dir=$FORKY gcc=$GCC16 on=${AFDO_GCC16:-1} ;;
	esac
	[ "$on" = 1 ] || continue
	if [ "$(id -u)" != 0 ] || [ ! -x "$dir$gcc" ]; then
		say "no riscv64 GCC ${cc#gcc} in $dir (scripts/setup-afdo.sh) or not root: no $cc rows"
		continue
	fi
	root_bind "$dir"
	GCCS="$GCCS $cc"
	for p in $PROGS; do
		DEPS=()
		build "$cc" "$p" base $O2
		build "$cc" "$p" instr $O2 -fprofile-generate -fprofile-update=single
	done
done

# clang: the profiled binary carries what sample profiles need; the
# instrumented one is built without the integrated assembler and without
# debug info (LLVM 14's riscv64 relocations and DWARF are not GNU as's).
CL_BASE="-O2 -gline-tables-only -fdebug-info-for-profiling"
COMPILERS=$GCCS CLANG_RT=
if [ "${AFDO_CLANG:-1}" = 1 ] && command -v "$CLANG" >/dev/null; then
	COMPILERS="$GCCS clang"
	CLANG_RT=$(clang_rt) || CLANG_RT=
	[ -n "$CLANG_RT" ] || say "no clang profile runtime for riscv64: clang without FDO"
	for p in $PROGS; do
		build clang "$p" base $CL_BASE
		if [ -n "$CLANG_RT" ]; then
			LDEXTRA=("$CLANG_RT" -Wl,-u,__llvm_profile_runtime)
			build clang "$p" instr -O2 -g0 -fno-integrated-as -fprofile-generate
			LDEXTRA=()
		fi
	done
fi
# clang 19: probes, frame pointers for the call chains, no relaxation.
CL19_BASE="-O2 -gline-tables-only -fdebug-info-for-profiling -fpseudo-probe-for-profiling -mno-relax -fno-omit-frame-pointer"
CL19_RT=/usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.profile-riscv64.a
if [ "${AFDO_CLANG19:-1}" = 1 ] && [ "$(id -u)" = 0 ] && [ -x "$ROOT$CLANG19" ] &&
	[ -f "$ROOT$CL19_RT" ]; then
	root_bind
	COMPILERS="$COMPILERS clang19"
	for p in $PROGS; do
		build clang19 "$p" base $CL19_BASE
		build clang19 "$p" instr -O2 -g0 -mno-relax -fno-omit-frame-pointer -fprofile-generate
	done
else
	say "no clang 19 with a riscv64 profile runtime in $ROOT (scripts/setup-afdo.sh) or not root: no clang19 rows"
fi
have() {	# PROG CC VARIANT: was it built
	[ -x "$W/build/$1-$2-$3/$1" ]
}

# One boot per compiler keeps the console at about 3 MB a boot.
for cc in $COMPILERS; do
	plan1=()
	for p in $PROGS; do
		plan1+=("$p $cc base")
		[ "$cc" != clang ] || [ -n "$CLANG_RT" ] && plan1+=("$p $cc instr")
		[ "$cc" = gcc ] && plan1+=("$p gcc cov")
	done
	round "1-$cc" "${plan1[@]}"
done

# The exact counts the recordings of GCC 12's and clang 19's base binaries
# are measured against (AFDO_EXACT=0 leaves them out).
EXACT=
if [ "${AFDO_EXACT:-1}" = 1 ]; then
	if "${ROOT_LOADER[@]}" "$QEMU_BIN" -plugin help 2>&1 | grep -q 'not enabled'; then
		say "$QEMU_BIN has no TCG plugins (scripts/qemu.sh build): no exact counts"
	else
		insn_count
		for cc in gcc clang19; do
			case " $COMPILERS " in *" $cc "*) ;; *) continue ;; esac
			for p in $PROGS; do exact "$p" "$cc"; done
			EXACT="$EXACT $cc"
		done
	fi
fi

# Profiles: per recording, GCC's gcov or LLVM's sample text from perf-ctr
# (with --weight none and window) and, for clang, llvm-profgen's from
# perf-ctr script's text of the same recording; per program, the
# instrumented run's .gcda or .profraw.
PROFGEN=$ROOT/usr/lib/llvm-19/bin/llvm-profgen
WEIGHTS="none"
[ "${AFDO_WINDOW:-1}" = 1 ] && WEIGHTS="none window"
wsuf() { [ "$1" = none ] || echo ".$1"; }	# WEIGHT: profile name suffix
# cov_json PROG: gcov's line counts of the cov binary's training run, as
# JSON in $W/prof/cov-PROG.json (the .gcda from the guest beside the
# .gcno of the build).
GCOV=${CROSS}gcov-12
cov_json() {
	local p=$1 d=$W/prof/cov-$1 c=$W/round1-gcc/files/cov-$1-gcc.cpio
	[ -f "$c" ] || return 1
	mkdir -p "$d"
	(cd "$d" && cpio -id --quiet <"$c")
	ls "$d"/*.gcda >/dev/null 2>&1 || { say "no .gcda of $p-gcc-cov came back"; return 1; }
	cp "$W/build/$p-gcc-cov"/*.gcno "$d/"
	# shellcheck disable=SC2046
	(cd "$d" && "$GCOV" --json-format --stdout -o "$d" $(ls ./*.gcda | sed 's|\.gcda$|.c|') \
		>"$W/prof/cov-$p.json" 2>"$d/gcov.log") ||
		{ tail -5 "$d/gcov.log" >&2; say "$GCOV failed on $p-gcc-cov"; return 1; }
}
# probe_profiles PROG BINARY F: the clang19 profiles of recording F.data
# (call chains and branch stacks) of BINARY: F.prof perf-ctr's probe
# profile (F.window.prof with --weight window), F.pg.prof llvm-profgen's
# of the branch stacks alone, F.cs.prof perf-ctr's context-sensitive one
# (F.csnest.prof nested by llvm-profdata), F.pgcs.prof llvm-profgen's of
# the call chains and branch stacks (perf 7.3's script: perf-ctr script
# writes no call chains; F.pgcsnopre.prof without its pre-inliner). A
# profile that cannot be made is left out and said; its row is missing
# from the table.
probe_profiles() {
	local p=$1 bin=$2 f=$3
	"$PC" aggregate -v -i "$f.data" --binary "$bin" -f llvm-probe -o "$f.prof" \
		2>"$f.agg" || { cat "$f.agg" >&2; die "perf-ctr aggregate -f llvm-probe of $f.data failed"; }
	case " $WEIGHTS " in
	*" window "*)
		"$PC" aggregate -v -i "$f.data" --binary "$bin" -f llvm-probe --weight window \
			-o "$f.window.prof" 2>"$f.window.agg" ||
			{ cat "$f.window.agg" >&2; die "perf-ctr aggregate -f llvm-probe --weight window of $f.data failed"; } ;;
	esac
	"$PC" aggregate -i "$f.data" --binary "$bin" -f llvm-cs -o "$f.cs.prof" \
		2>"$f.cs.agg" || { rm -f "$f.cs.prof"; say "no perf-ctr CS profile of $f.data: $(tail -1 "$f.cs.agg")"; }
	# contexts through every call: perf-ctr on the root's libdw, which
	# reads clang 19's line tables (Debian 12's does not)
	"${ROOT_LOADER[@]}" "$PC" aggregate -v -i "$f.data" --binary "$bin" -f llvm-cs \
		--native-calls -o "$f.csnat.prof" 2>"$f.csnat.agg" ||
		{ rm -f "$f.csnat.prof"; say "no native-calls CS profile of $f.data: $(tail -1 "$f.csnat.agg")"; }
	# perf-ctr's flat CS profile nested as llvm-profgen nests its own
	[ ! -f "$f.cs.prof" ] || root_exec /usr/lib/llvm-19/bin/llvm-profdata merge --sample --text \
		--convert-sample-profile-layout=nest "$f.cs.prof" -o "$f.csnest.prof" ||
		{ rm -f "$f.csnest.prof"; say "llvm-profdata could not nest $f.cs.prof"; }
	[ -x "$PROFGEN" ] || return 0
	"$PC" script -i "$f.data" -F ip,brstack -o "$f.script"
	root_exec /usr/lib/llvm-19/bin/llvm-profgen --perfscript="$f.script" \
		--binary="$bin" --format=text --output="$f.pg.prof" >"$f.pg.log" 2>&1 ||
		{ rm -f "$f.pg.prof"; tail -5 "$f.pg.log" >&2; say "llvm-profgen failed on $f.data"; }
	# --no-inline: perf would ask addr2line for each address's inlined
	# frames; profgen-hybrid.awk leaves out the samples without records
	"${ROOT_LOADER[@]}" "$ROOT/usr/bin/perf" script -i "$f.data" --show-mmap-events \
		--no-inline -F ip,brstack 2>/dev/null |
		awk -f "$TOP/tools/perf-ctr/tests/profgen-hybrid.awk" >"$f.script"
	root_exec /usr/lib/llvm-19/bin/llvm-profgen --perfscript="$f.script" \
		--binary="$bin" --format=text --output="$f.pgcs.prof" >"$f.pgcs.log" 2>&1 ||
		{ rm -f "$f.pgcs.prof"; tail -5 "$f.pgcs.log" >&2; say "llvm-profgen (CS) failed on $f.data"; }
	# what llvm-profgen's pre-inliner brings: the same without it
	root_exec /usr/lib/llvm-19/bin/llvm-profgen --perfscript="$f.script" \
		--binary="$bin" --format=text --csspgo-preinliner=0 \
		--output="$f.pgcsnopre.prof" >/dev/null 2>&1 || rm -f "$f.pgcsnopre.prof"
	# perf-ctr's CS profile is llvm-profgen's without nesting and frame
	# inference (CS_PRE), and without its pre-inliner as well (CS_FLAT)
	# perf-ctr's --no-preinline one: checked on each real recording
	[ -f "$f.cs.prof" ] && "$PC" aggregate -i "$f.data" --binary "$bin" -f llvm-cs \
		--no-preinline -o "$f.csflat.prof" 2>/dev/null &&
		cs_same "$p" "$bin" "$f" csflat "$CS_FLAT" cs-flat
	[ -f "$f.cs.prof" ] && cs_same "$p" "$bin" "$f" cs "$CS_PRE" cs-pre
	rm -f "$f.script" "$f.csflat.prof"
}
CS_FLAT="--csspgo-preinliner=0 --gen-cs-nested-profile=0 --csprof-merge-cold-context=0 --infer-missing-frames=0"
CS_PRE="--gen-cs-nested-profile=0 --infer-missing-frames=0"
# cs_same PROG BINARY F KIND OPTIONS LIST: whether llvm-profgen given
# OPTIONS writes F.KIND.prof from F.script too: a line of
# $W/prof/LIST.txt.
cs_same() {
	local p=$1 bin=$2 f=$3 kind=$4 opts=$5 list=$6
	# shellcheck disable=SC2086
	root_exec /usr/lib/llvm-19/bin/llvm-profgen --perfscript="$f.script" \
		--binary="$bin" --format=text $opts --output="$f.pgsame.prof" \
		>/dev/null 2>&1 || return 0
	if cmp -s "$f.$kind.prof" "$f.pgsame.prof"; then
		echo "$p $(basename "$f") identical"
	else
		echo "$p $(basename "$f") differs"
	fi >>"$W/prof/$list.txt"
	rm -f "$f.pgsame.prof"
}
# exact_overlap PROG CC PERIOD: how close the ranges of the recording of
# PROG-CC-base at PERIOD come to the exact counts of its training run, a
# line "PROG CC PERIOD WEIGHT OVERLAP" of $W/prof/exact.txt per weight.
exact_overlap() {
	local p=$1 cc=$2 per=$3 wt f=$W/prof/$1-$2-$3 ov
	for wt in none window; do
		"$PC" aggregate -i "$f.data" --binary "$W/build/$p-$cc-base/$p" --weight "$wt" \
			-f autofdo-text -o "$f.ranges" ||
			die "perf-ctr aggregate -f autofdo-text of $p-$cc at $per failed"
		ov=$(python3 "$TOP/scripts/afdo-exact.py" overlap "$W/build/$p-$cc-base/$p" \
			"$W/roundexact-$p-$cc/counts.txt" "$f.ranges") ||
			die "afdo-exact.py failed on $f.ranges"
		echo "$p $cc $per $wt $ov" >>"$W/prof/exact.txt"
	done
	rm -f "$f.ranges"
}
# fleet_profile PROG CC BINARY: the five recordings in one profile, as
# the recordings of five machines would be merged: LLVM's (clang 14's
# lines, clang 19's probes) by llvm-profdata merge --sample of each
# one's profile, GCC 12's by one perf-ctr aggregate of them all (Debian
# has no merger for GCC's format: autofdo's profile_merger reads only
# GCC 11's). $W/prof/PROG-CC-fleet.prof or .afdo, for the fleet
# binaries that round 2-fleet counts.
fleet_profile() {
	local p=$1 cc=$2 bin=$3 per ins=() profs=()
	for per in $PERIODS; do
		ins+=(-i "$W/prof/$p-$cc-$per.data")
		profs+=("$W/prof/$p-$cc-$per.prof")
	done
	case $cc in
	gcc)
		"$PC" aggregate "${ins[@]}" --binary "$bin" -f gcov -o "$W/prof/$p-gcc-fleet.afdo" ||
			die "perf-ctr aggregate of $p-gcc's recordings together failed" ;;
	clang)
		llvm-profdata-14 merge --sample --text "${profs[@]}" \
			-o "$W/prof/$p-clang-fleet.prof" ||
			die "llvm-profdata-14 merge --sample of $p-clang's profiles failed" ;;
	clang19)
		root_exec /usr/lib/llvm-19/bin/llvm-profdata merge --sample --text "${profs[@]}" \
			-o "$W/prof/$p-clang19-fleet.prof" ||
			die "llvm-profdata 19 merge --sample of $p-clang19's probe profiles failed" ;;
	esac
}

rm -rf "$W/prof"
mkdir -p "$W/prof"
: >"$W/prof/overlap.txt"
: >"$W/prof/exact.txt"
: >"$W/prof/cs-flat.txt"
: >"$W/prof/cs-pre.txt"
# each exact run's instructions, which round 2's perf stat of the same
# binary on the same inputs must find too
for cc in $EXACT; do
	for p in $PROGS; do
		echo "$p $cc $(awk '{ n += $2 } END { print n }' "$W/roundexact-$p-$cc/counts.txt")"
	done
done >"$W/prof/exact-sum.txt"
for p in $PROGS; do
	cov=
	cov_json "$p" && cov=$W/prof/cov-$p.json
	for cc in $COMPILERS; do
		base=$W/build/$p-$cc-base/$p
		for per in $PERIODS; do
			f=$W/prof/$p-$cc-$per
			gzip -dc "$W/round1-$cc/files/rec-$p-$cc-$per.data.gz" >"$f.data"
			case " $EXACT " in *" $cc "*) exact_overlap "$p" "$cc" "$per" ;; esac
			if [ "$cc" = clang19 ]; then
				probe_profiles "$p" "$base" "$f"
				continue
			fi
			for wt in $WEIGHTS; do
				g=$f$(wsuf "$wt")
				case $cc in
				gcc|gcc1[0-9])
					"$PC" aggregate -v -i "$f.data" --binary "$base" --weight "$wt" \
						-f gcov -o "$g.afdo" 2>"$g.agg" ||
						{ cat "$g.agg" >&2; die "perf-ctr aggregate of $p-$cc at $per failed"; } ;;
				clang)
					"$PC" aggregate -v -i "$f.data" --binary "$base" --weight "$wt" \
						-f llvm-text -o "$g.prof" 2>"$g.agg" ||
						{ cat "$g.agg" >&2; die "perf-ctr aggregate of $p-$cc at $per failed"; }
					;;
				esac
				# the overlap of this recording's line counts with gcov's
				[ -n "$cov" ] || continue
				"$PC" aggregate -i "$f.data" --binary "$base" --weight "$wt" \
					-f lines -o "$g.lines" ||
					die "perf-ctr aggregate -f lines of $p-$cc at $per failed"
				ov=$(python3 "$TOP/scripts/afdo-overlap.py" --keep "$(prog_src "$p")" \
					"$g.lines" "$cov") || die "afdo-overlap.py failed on $g.lines"
				echo "$p $cc $per $wt $ov" >>"$W/prof/overlap.txt"
			done
			case $cc in
			clang)
				[ -x "$PROFGEN" ] || continue
				"$PC" script -i "$f.data" -F ip,brstack -o "$f.script"
				root_exec /usr/lib/llvm-19/bin/llvm-profgen --perfscript="$f.script" \
					--binary="$base" --format=text --output="$f.pg.prof" \
					>"$f.pg.log" 2>&1 ||
					{ tail -5 "$f.pg.log" >&2; say "llvm-profgen failed on $p-$cc at $per"; }
				rm -f "$f.script" ;;
			esac
		done
		fleet_profile "$p" "$cc" "$base"
		[ -f "$W/round1-$cc/files/instr-$p-$cc.cpio" ] || continue
		mkdir -p "$W/prof/instr-$p-$cc"
		(cd "$W/prof/instr-$p-$cc" && cpio -id --quiet <"$W/round1-$cc/files/instr-$p-$cc.cpio")
		case $cc in
		clang) llvm-profdata-14 merge -o "$W/prof/$p-clang.profdata" \
				"$W/prof/instr-$p-$cc"/*.profraw ;;
		clang19) in_root /usr/lib/llvm-19/bin/llvm-profdata merge \
				-o "$W/prof/$p-clang19.profdata" "$W/prof/instr-$p-$cc"/*.profraw ;;
		esac
	done
done

plan2=() plan2f=()
for p in $PROGS; do
	for cc in $GCCS; do
		mapfile -t DEPS < <(ls "$W/prof/instr-$p-$cc"/*.gcda)
		[ ${#DEPS[@]} -gt 0 ] || die "no .gcda files of $p-$cc came back"
		build "$cc" "$p" fdo $O2 -fprofile-use -Wno-missing-profile
		plan2+=("$p $cc base" "$p $cc fdo")
		for per in $PERIODS; do
			DEPS=("$W/prof/$p-$cc-$per.afdo")
			[ "$cc" != gcc ] || LDEXTRA=("${BOLT_LD[@]}")
			build "$cc" "$p" "afdo-$per" $O2 -fauto-profile="$W/prof/$p-$cc-$per.afdo"
			LDEXTRA=()
			plan2+=("$p $cc afdo-$per")
			[ -f "$W/prof/$p-$cc-$per.window.afdo" ] || continue
			DEPS=("$W/prof/$p-$cc-$per.window.afdo")
			build "$cc" "$p" "afdowin-$per" $O2 \
				-fauto-profile="$W/prof/$p-$cc-$per.window.afdo"
			plan2+=("$p $cc afdowin-$per")
		done
		[ -f "$W/prof/$p-$cc-fleet.afdo" ] || continue
		DEPS=("$W/prof/$p-$cc-fleet.afdo")
		# shellcheck disable=SC2086
		build "$cc" "$p" fleet $O2 -fauto-profile="$W/prof/$p-$cc-fleet.afdo"
		plan2f+=("$p $cc fleet")
	done
	# clang's variants, each built with the profile of that name
	# (afdo: .prof, afdowin: .window.prof, ...) where there is one.
	for cc in clang clang19; do
		case " $COMPILERS " in *" $cc "*) ;; *) continue ;; esac
		flags=$CL_BASE
		[ "$cc" = clang ] || flags=$CL19_BASE
		plan2+=("$p $cc base")
		if [ -f "$W/prof/$p-$cc.profdata" ]; then
			DEPS=("$W/prof/$p-$cc.profdata")
			# shellcheck disable=SC2086
			build "$cc" "$p" fdo $flags -fprofile-use="$W/prof/$p-$cc.profdata" \
				-Wno-profile-instr-unprofiled
			plan2+=("$p $cc fdo")
		fi
		for per in $PERIODS; do
			for vs in afdo: afdowin:.window profgen:.pg cs:.cs csnest:.csnest \
				csnat:.csnat profgencs:.pgcs profgencsnopre:.pgcsnopre; do
				v=${vs%%:*} prof=$W/prof/$p-$cc-$per${vs#*:}.prof
				[ -s "$prof" ] || continue
				DEPS=("$prof")
				# shellcheck disable=SC2086
				build "$cc" "$p" "$v-$per" $flags -fprofile-sample-use="$prof"
				plan2+=("$p $cc $v-$per")
			done
		done
		prof=$W/prof/$p-$cc-fleet.prof
		[ -s "$prof" ] || continue
		DEPS=("$prof")
		# shellcheck disable=SC2086
		build "$cc" "$p" fleet $flags -fprofile-sample-use="$prof"
		plan2f+=("$p $cc fleet")
	done
done
DEPS=()

# bolt_build PROG VARIANT RECORDING NAME: $W/build/PROG-gcc-NAME/PROG,
# llvm-bolt's layout of PROG-gcc-VARIANT by perf-ctr's profile of
# RECORDING (gzip'ed), through perf2bolt -pa; its logs beside it.
bolt_build() {
	local p=$1 v=$2 bin=$W/build/$1-gcc-$2/$1 d=$W/build/$1-gcc-$4 key
	mkdir -p "$d"
	gzip -dc "$3" >"$d/rec.data"
	"$PC" aggregate -v -i "$d/rec.data" --binary "$bin" -f bolt -o "$d/prof.pre" \
		2>"$d/agg.log" || { cat "$d/agg.log" >&2; die "perf-ctr aggregate -f bolt of $p-gcc-$v failed"; }
	rm -f "$d/rec.data"
	key=$(cat "$bin" "$d/prof.pre" | sha256sum | cut -d' ' -f1)
	[ -x "$d/$p" ] && [ "$(cat "$d/.key" 2>/dev/null)" = "$key" ] && return
	rm -f "$d/$p"
	"$BOLT/perf2bolt" -pa -p "$d/prof.pre" -o "$d/prof.fdata" "$bin" >"$d/perf2bolt.log" 2>&1 ||
		{ tail -5 "$d/perf2bolt.log" >&2; die "perf2bolt of $p-gcc-$v failed"; }
	# llvm-bolt 19 itself can fail (it crashes on GCC 12's lua, with or
	# without a profile): the table says so, the rest goes on.
	if ! "$BOLT/llvm-bolt" "$bin" -o "$d/$p" -data "$d/prof.fdata" -dyno-stats \
		-reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions \
		>"$d/bolt.log" 2>&1; then
		rm -f "$d/$p"
		say "llvm-bolt failed on $p-gcc-$v (see $d/bolt.log): no $4 row"
		return 1
	fi
	echo "$key" >"$d/.key"
	say "built $p-gcc-$4 ($(grep -c . "$d/prof.pre") profile lines)"
}
# One layout of base per recording of it (base-bolt-P), and one of each
# AutoFDO binary (afdo-P-bolt) by a recording of that binary itself
# (round 1b, at BOLT_PER): the spread over recordings, as for AutoFDO.
if [ $BOLT_ON = 1 ]; then
	plan1b=()
	for p in $PROGS; do
		ok=0
		for per in $PERIODS; do
			bolt_build "$p" base "$W/round1-gcc/files/rec-$p-gcc-$per.data.gz" \
				"base-bolt-$per" || continue
			ok=1
			plan2+=("$p gcc base-bolt-$per")
		done
		# llvm-bolt that cannot lay out -O2 (lua) is not tried on the rest
		[ $ok = 0 ] && continue
		for per in $PERIODS; do
			plan1b+=("$p gcc afdo-$per")
		done
	done
	[ ${#plan1b[@]} = 0 ] || ROUND_PERIODS=$BOLT_PER round 1b-gcc "${plan1b[@]}"
	for line in "${plan1b[@]}"; do
		read -r p _ v <<<"$line"
		bolt_build "$p" "$v" "$W/round1b-gcc/files/rec-$p-gcc-$v-$BOLT_PER.data.gz" \
			"$v-bolt" && plan2+=("$p gcc $v-bolt")
	done
fi
round 2 "${plan2[@]}"
# the fleet binaries in a round of their own (with -O2 again, whose
# count must be round 2's): adding them leaves round 2 as it was
for line in "${plan2f[@]}"; do
	read -r p cc _ <<<"$line"
	plan2f+=("$p $cc base")
done
[ ${#plan2f[@]} = 0 ] || round 2-fleet "${plan2f[@]}"
FLEET_CONSOLE=()
[ ${#plan2f[@]} = 0 ] || FLEET_CONSOLE=(--console "$W/round2-fleet/console.log")

# Where a profile's gain is made or lost, per function: AFDO_FUNCTIONS=
# "PROG:CC:VARIANT[:SET] ..." counts PROG-CC-base and PROG-CC-VARIANT
# exactly on the held-out inputs (SET measure, the default) or the
# training ones (train) and writes out/autofdo/functions.md.
if [ -n "${AFDO_FUNCTIONS:-}" ]; then
	insn_count
	: >"$OUT/functions.md"
	for x in $AFDO_FUNCTIONS; do
		IFS=: read -r p cc v set <<<"$x"
		set=${set:-measure}
		have "$p" "$cc" "$v" || die "AFDO_FUNCTIONS: no $p-$cc-$v was built"
		exact "$p" "$cc" base "$set"
		exact "$p" "$cc" "$v" "$set"
		sfx=-$set
		[ "$set" != train ] || sfx=
		{
			echo "### $p $cc: A = -O2 (base), B = $v, $set inputs"
			echo
			python3 "$TOP/scripts/afdo-exact.py" functions \
				"$W/build/$p-$cc-base/$p" "$W/roundexact-$p-$cc$sfx/counts.txt" \
				"$W/build/$p-$cc-$v/$p" "$W/roundexact-$p-$cc-$v$sfx/counts.txt" 20 |
				tee "$W/prof/functions.tmp"
			echo
		} >>"$OUT/functions.md"
		# An AutoFDO binary's: how right its recording was about those
		# functions, against base's exact counts on the training inputs.
		per=${v#afdo-}
		[ "$v" = "afdo-$per" ] && [ -f "$W/prof/$p-$cc-$per.data" ] || continue
		exact "$p" "$cc"
		"$PC" aggregate -i "$W/prof/$p-$cc-$per.data" --binary "$W/build/$p-$cc-base/$p" \
			-f autofdo-text -o "$W/prof/functions.txt" || die "perf-ctr aggregate of $p-$cc-$per failed"
		held=()
		[ "$set" = train ] || held=(--held-out "$W/roundexact-$p-$cc$sfx/counts.txt")
		{
			echo "Recording $per against -O2's exact counts (training inputs), the functions above:"
			echo
			# shellcheck disable=SC2046
			python3 "$TOP/scripts/afdo-exact.py" accuracy "$W/build/$p-$cc-base/$p" \
				"$W/roundexact-$p-$cc/counts.txt" "$W/prof/functions.txt" "${held[@]}" \
				$(awk -F' [|] ' 'NR > 2 && NR <= 10 && $1 != "| total" { sub(/^[|] /, "", $1); print $1 }' \
					"$W/prof/functions.tmp")
			echo
		} >>"$OUT/functions.md"
	done
fi

# same_note LIST: "N of M profiles identical[; different: F, ...]"
same_note() {
	local l=$W/prof/$1.txt
	echo "$(grep -c ' identical$' "$l") of $(wc -l <"$l") profiles identical$(awk '$3 != "identical" { printf "%s %s", (n++ ? "," : "; different:"), $2 }' "$l")"
}
CS_NOTE=()
if [ -s "$W/prof/cs-flat.txt" ]; then
	CS_NOTE=(--note "CSSPGO: perf-ctr aggregate -f llvm-cs against llvm-profgen 19 \`$CS_PRE\` on the same recordings: $(same_note cs-pre); with --no-preinline against \`$CS_FLAT\`: $(same_note cs-flat). The llvm-profgen rows are its defaults (pre-inliner, nested profile).")
fi
BOLT_TABLE=()
[ $BOLT_ON = 0 ] || BOLT_TABLE=(--bolt-periods "$PERIODS" --bolt-build "$W/build"
	--bolt-output "$OUT/bolt.md")
table_rc=0
python3 "$TOP/scripts/autofdo-table.py" --console "$W/round2/console.log" "${FLEET_CONSOLE[@]}" \
	--prof "$W/prof" --periods "$PERIODS" --overlap "$W/prof/overlap.txt" \
	--exact "$W/prof/exact.txt" --exact-sum "$W/prof/exact-sum.txt" \
	--expect "bzip2 decompress $(sha256sum <"$W/in/bzip2.measure" | cut -d' ' -f1)" \
	--expect "bzip2 train-decompress $(sha256sum <"$W/in/bzip2.train" | cut -d' ' -f1)" \
	--expect "lua run $(host_lua measure)" \
	--expect "lua train-run $(host_lua train)" \
	--expect "duk run $(host_duk measure)" \
	--expect "duk train-run $(host_duk train)" \
	"${CS_NOTE[@]}" "${BOLT_TABLE[@]}" -o "$OUT/table.md" || table_rc=$?
cat "$OUT/table.md"
[ $BOLT_ON = 0 ] || [ ! -f "$OUT/bolt.md" ] || cat "$OUT/bolt.md"
[ -z "${AFDO_FUNCTIONS:-}" ] || cat "$OUT/functions.md"
say "make autofdo: $(($(date +%s) - T0)) s"
# the problems the table lists at its end (a run without a count, an
# output not the -O2 binary's) fail the target
[ "$table_rc" = 0 ] || die "make autofdo: the table lists problems (out/autofdo/table.md)"
