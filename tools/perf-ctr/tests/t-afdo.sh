#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-ctr aggregate: golden counts on a program whose control flow is
# known, relocation checked against llvm-profgen, and every format fed
# to its consumer:
#   llvm-text   -> llvm-profdata show --sample, clang -fprofile-sample-use (LLVM 14, host)
#   gcov        -> riscv64-linux-gnu-gcc -fauto-profile (GCC 12, host)
#   autofdo-text-> create_gcov --profiler=text (autofdo 0.19, host)
#   llvm-unsym  -> llvm-profgen --unsymbolized-profile (LLVM 19, trixie root)
# Prints PASS/FAIL/SKIP lines; exits non-zero on any FAIL.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$top/scripts/lib.sh"
fix=$here/afdo
PC=${PERF_CTR:-$top/out/perf-ctr/perf-ctr}
CROSS_CC=${CROSS}gcc
fails=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }
skip() { echo "SKIP $1 ($2)"; }

make -s -C "$top/tools/perf-ctr" -j2 >&2 || { fail afdo-build; exit 1; }
command -v "$CROSS_CC" >/dev/null ||
	{ skip afdo "no $CROSS_CC: scripts/setup.sh host"; exit 0; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-afdo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# --- the programs -----------------------------------------------------------
"$CROSS_CC" -nostdlib -static -Wl,-Ttext=0x10000 -Wl,--build-id=none \
	-o golden "$fix/golden.S" || { fail afdo-golden-build; exit 1; }
# DWARF 5 is GCC 12's default; said anyway.
"$CROSS_CC" -O2 -gdwarf-5 -o prog "$fix/prog.c" &&
"$CROSS_CC" -O2 -gdwarf-5 -no-pie -o prog_nopie "$fix/prog.c" ||
	{ fail afdo-prog-build; exit 1; }

# --- golden: known records -> exact counts -----------------------------------
agg() { "$PC" aggregate "$@"; }
golden() {	# name format
	if agg --input-format brstack -i "$fix/golden.brstack" --binary golden \
		-f "$2" -o "$1.out" && diff -u "$fix/golden.$2" "$1.out" >&2; then
		pass "$1"
	else
		fail "$1"
	fi
}
golden afdo-golden-autofdo-text autofdo-text
golden afdo-golden-llvm-unsym llvm-unsym
if agg -v --input-format brstack -i "$fix/golden.brstack" --binary golden \
	-o /dev/null 2>stats.out &&
   diff -u "$fix/golden.stats" <(grep -v '^  memory:' stats.out) >&2; then
	pass afdo-golden-rejects
else
	fail afdo-golden-rejects
fi

# --- perf.data in, with MMAP2 relocation --------------------------------------
"$PC" synth -o pie.data --samples 3000 --depth 32 --binary prog --seed 7 >&2 &&
"$PC" synth -o nopie.data --samples 3000 --depth 32 --binary prog_nopie --seed 7 >&2 ||
	{ fail afdo-synth; exit 1; }

# Non-PIE: runtime = link-time, so the perf.data and its own script text
# must give the same profile.
if agg -i nopie.data --binary prog_nopie -o a.txt &&
   "$PC" script -i nopie.data -F ip,brstack >nopie.script &&
   agg --input-format brstack -i nopie.script --binary prog_nopie -o b.txt &&
   cmp -s a.txt b.txt && [ "$(head -1 a.txt)" -gt 0 ]; then
	pass afdo-perfdata-nopie
else
	fail afdo-perfdata-nopie
fi

# A truncated perf.data: an error naming the offset, non-zero exit.
head -c 3000 pie.data >trunc.data
if agg -i trunc.data --binary prog -o /dev/null 2>trunc.err; then
	fail afdo-truncated
elif grep -q 'offset 0x' trunc.err; then
	pass afdo-truncated
else
	cat trunc.err >&2
	fail afdo-truncated
fi

# A perf.data of another binary: nothing of prog, non-zero exit.
if agg -i nopie.data --binary golden -o /dev/null 2>other.err; then
	fail afdo-other-binary
else
	pass afdo-other-binary
fi

profgen=$ROOT/usr/lib/llvm-19/bin/llvm-profgen
have_profgen() { [ -x "$profgen" ] && root_exec /usr/lib/llvm-19/bin/llvm-profgen --version >/dev/null 2>&1; }

# PIE: the ranges must be llvm-profgen's own, computed from the host
# perf's script output of the same file (its relocation against ours).
agg -i pie.data --binary prog -f llvm-unsym -o pie.unsym || fail afdo-llvm-unsym-write
if ! have_profgen; then
	skip afdo-relocation-vs-llvm-profgen "no llvm-profgen 19: scripts/setup-afdo.sh installs llvm-19 into $ROOT"
elif ! command -v perf >/dev/null; then
	skip afdo-relocation-vs-llvm-profgen "no host perf to write the perf script text"
else
	perf script -i pie.data --show-mmap-events -F ip,brstack >pie.script 2>/dev/null
	root_exec /usr/lib/llvm-19/bin/llvm-profgen --perfscript=pie.script \
		--binary=prog --skip-symbolization --output=pie.ref.unsym 2>/dev/null
	n=$(head -1 pie.ref.unsym)
	if [ -n "$n" ] && [ "$n" -gt 0 ] &&
	   diff <(head -$((n + 1)) pie.ref.unsym) <(head -$((n + 1)) pie.unsym) >&2; then
		pass afdo-relocation-vs-llvm-profgen
	else
		fail afdo-relocation-vs-llvm-profgen
	fi
fi

# --- llvm-text -> llvm-profdata ----------------------------------------------
agg -i pie.data --binary prog -f llvm-text -o pie.prof || fail afdo-llvm-text-write
profdata=$(command -v llvm-profdata || command -v llvm-profdata-14 || true)
if [ -z "$profdata" ]; then
	skip afdo-llvm-text-profdata "no llvm-profdata: apt-get install llvm-14"
elif "$profdata" show --sample pie.prof >show.out 2>show.err &&
     [ ! -s show.err ] && grep -q '^Function: work: ' show.out &&
     grep -q 'sq:' pie.prof; then
	pass afdo-llvm-text-profdata
else
	cat show.err >&2
	fail afdo-llvm-text-profdata
fi

# Same body counts as llvm-profgen's own symbolization of our ranges.
if have_profgen; then
	root_exec /usr/lib/llvm-19/bin/llvm-profgen --unsymbolized-profile=pie.unsym \
		--binary=prog --format=text --output=pg.prof 2>pg.err
	body() {	# the nonzero body lines of work (not inlined ones)
		awk '/^[^ ]/ { f = ($0 ~ /^work:/) } f && /^ [0-9.]+: [0-9]+/ && $2 != 0 { print $1, $2 }' "$1"
	}
	if [ -s pg.prof ] && [ -n "$(body pie.prof)" ] &&
	   diff <(body pg.prof) <(body pie.prof) >&2; then
		pass afdo-llvm-unsym-profgen
	else
		cat pg.err >&2
		fail afdo-llvm-unsym-profgen
	fi
else
	skip afdo-llvm-unsym-profgen "no llvm-profgen 19: scripts/setup-afdo.sh installs llvm-19 into $ROOT"
fi

# --- llvm-text -> clang -fprofile-sample-use (a clang-built binary) --------
clang=$(command -v clang-14 || command -v clang || true)
if [ -z "$clang" ]; then
	skip afdo-llvm-text-clang "no clang: apt-get install clang-14"
elif ! "$clang" --target=riscv64-linux-gnu -O2 -gdwarf-5 -o cprog "$fix/prog.c" 2>clang.err; then
	skip afdo-llvm-text-clang "clang cannot link for riscv64 here: $(head -1 clang.err)"
else
	"$PC" synth -o c.data --samples 3000 --depth 32 --binary cprog --seed 3 >&2
	agg -i c.data --binary cprog -f llvm-text -o c.prof
	cp "$fix/prog.c" cprog_fdo.c
	if "$clang" --target=riscv64-linux-gnu -O2 -g -fprofile-sample-use=c.prof \
		-Rpass=sample-profile -c cprog_fdo.c -o cprog_fdo.o 2>clang.out &&
	   ! grep -qE 'warning|error' clang.out &&
	   grep -q 'remark: .*sample-profile' clang.out && grep -q '^work:' c.prof; then
		pass afdo-llvm-text-clang
	else
		cat clang.out >&2
		fail afdo-llvm-text-clang
	fi
fi

# --- gcov -> GCC 12 -fauto-profile -------------------------------------------
agg -i pie.data --binary prog -f gcov -o prog.afdo || fail afdo-gcov-write
head=$(sed -n 's/^work:[0-9]*:\([0-9]*\)$/\1/p' pie.prof)
cp "$fix/prog.c" prog_fdo.c
if "$CROSS_CC" -O2 -g -fauto-profile=prog.afdo -Wall \
	-fdump-tree-optimized-blocks-details -c prog_fdo.c -o prog_fdo.o 2>gcc.err &&
   [ ! -s gcc.err ] && [ -n "$head" ] &&
   # work's entry block carries the head count from the profile
   grep -q "count $head (auto FDO)" prog_fdo.c.*t.optimized; then
	pass afdo-gcov-gcc
else
	cat gcc.err >&2
	echo "expected work's entry count '$head (auto FDO)'" >&2
	fail afdo-gcov-gcc
fi

# --- autofdo-text -> create_gcov ---------------------------------------------
# autofdo 0.19 reads no DWARF 5 (its output then names no function): its
# binary is built with DWARF 4; the text is the same either way.
if ! command -v create_gcov >/dev/null; then
	skip afdo-autofdo-text-create_gcov "no create_gcov: apt-get install autofdo"
elif "$CROSS_CC" -O2 -gdwarf-4 -o prog_dw4 "$fix/prog.c" &&
     "$PC" synth -o dw4.data --samples 3000 --depth 32 --binary prog_dw4 --seed 7 >&2 &&
     agg -i dw4.data --binary prog_dw4 -o dw4.txt &&
     create_gcov --binary=prog_dw4 --profile=dw4.txt --profiler=text \
	--gcov=cg.afdo >cg.out 2>&1 && [ -s cg.afdo ] && grep -q work cg.afdo; then
	pass afdo-autofdo-text-create_gcov
else
	cat cg.out >&2
	fail afdo-autofdo-text-create_gcov
fi

# --- llvm-unsym -> llvm-profgen ----------------------------------------------
if have_profgen; then
	if root_exec /usr/lib/llvm-19/bin/llvm-profgen --unsymbolized-profile=pie.unsym \
		--binary=prog --format=text --output=pg2.prof 2>pg2.err &&
	   grep -q '^work:' pg2.prof; then
		pass afdo-llvm-unsym-accepted
	else
		cat pg2.err >&2
		fail afdo-llvm-unsym-accepted
	fi
else
	skip afdo-llvm-unsym-accepted "no llvm-profgen 19: scripts/setup-afdo.sh installs llvm-19 into $ROOT"
fi

[ $fails = 0 ]
