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
. "$(dirname "$0")/lib.sh"
. "$top/scripts/lib.sh"
fix=$here/afdo
PC=${PERF_CTR:-$top/out/perf-ctr/perf-ctr}
cross_setup afdo

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
golden afdo-golden-bolt bolt
if agg -v --input-format brstack -i "$fix/golden.brstack" --binary golden \
	-o /dev/null 2>stats.out &&
   diff -u "$fix/golden.stats" <(grep -v '^  memory:' stats.out) >&2; then
	pass afdo-golden-rejects
else
	fail afdo-golden-rejects
fi

# --weight window: each sample's records count 2^20 / (the instructions
# its window spans, the branches included): 3 and 4 instructions of
# golden's text (10 and 12 bytes) for the first two samples; the third's
# window is 3 instructions in the text and 16 bytes outside it, taken as
# 16 / 2.8 (golden's mean instruction length) + 1 = 6.
cat >w.brstack <<'EOF'
10000 0x10008/0x10002/P/-/-/0 0x10008/0x10002/P/-/-/0
10000 0x10008/0x10003/P/-/-/0 0x10008/0x10000/P/-/-/0
10000 0x10008/0x10002/P/-/-/0 0x20010/0x10002/P/-/-/0 0x20020/0x20000/P/-/-/0
EOF
if agg --input-format brstack -i w.brstack --binary golden --weight window -o w.txt &&
   grep -qx '1002-1008:466033' w.txt && grep -qx '1000-1008:262144' w.txt &&
   grep -qx '1008->1002:815558' w.txt &&
   agg --input-format brstack -i w.brstack --binary golden -o w1.txt &&
   grep -qx '1002-1008:2' w1.txt; then
	pass afdo-weight-window
else
	cat w.txt >&2
	fail afdo-weight-window
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

# Several -i: one profile, every count the sum of the recordings'.
if agg -i nopie.data -i nopie.data --binary prog_nopie -o twice.txt &&
   python3 "$here/counts.py" a.txt twice.txt 2 >&2; then
	pass afdo-merge-inputs
else
	fail afdo-merge-inputs
fi

# A copy cut short is read as far as it goes, with a warning naming the
# offset; a malformed perf.data (a record of size 0) is an error naming
# the offset, with a non-zero exit.
head -c 3000 pie.data >trunc.data
python3 "$here/mk-bad-record.py" pie.data bad.data
if agg -i trunc.data --binary prog -o trunc.prof 2>trunc.err &&
   grep -q 'warning: .*offset 0x' trunc.err &&
   ! agg -i bad.data --binary prog -o /dev/null 2>bad.err &&
   grep -q 'offset 0x.*record size 0' bad.err; then
	pass afdo-truncated
else
	cat trunc.err bad.err >&2
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
# Can llvm-profgen 19 be fed the host perf's script text? Else skip NAME.
profgen_and_perf() {	# NAME
	if ! have_profgen; then
		skip "$1" "no llvm-profgen 19: scripts/setup-afdo.sh installs llvm-19 into $ROOT"
	elif ! command -v perf >/dev/null; then
		skip "$1" "no host perf to write the perf script text"
	else
		return 0
	fi
	return 1
}

# PIE: the ranges must be llvm-profgen's own, computed from the host
# perf's script output of the same file (its relocation against ours).
agg -i pie.data --binary prog -f llvm-unsym -o pie.unsym || fail afdo-llvm-unsym-write
if profgen_and_perf afdo-relocation-vs-llvm-profgen; then
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

# --- a kernel: perf's map of [kernel.kallsyms]_text, KASLR ------------------
# kprog stands in for a vmlinux: linked at 0xffffffff80001000 with _text a
# page above its executable segment's start, as RISC-V's head text puts
# it. A recording of it running 0x200000 above its link-time addresses
# must give the profile of the same walk recorded where it was linked.
"$CROSS_CC" -O2 -g -ffreestanding -nostdlib -static -mcmodel=medany -fno-pie \
	-Wl,-Ttext=0xffffffff80002000 -Wl,--defsym=_text=0xffffffff80002000 \
	-Wl,-e,kstart -Wl,--build-id=none -o kprog "$fix/kprog.c" ||
	fail afdo-kernel-build
"$PC" synth --kernel --kaslr 0x200000 --binary kprog --seed 3 --samples 500 \
	-o kern.data >&2 &&
"$PC" synth --binary kprog --seed 3 --samples 500 -o kern-at-link.data >&2 ||
	fail afdo-kernel-synth
if agg -i kern.data --binary kprog -f llvm-text -o kern.prof &&
   agg -i kern-at-link.data --binary kprog -f llvm-text -o kern-at-link.prof &&
   cmp kern.prof kern-at-link.prof && grep -q '^kwork:[1-9]' kern.prof &&
   agg -i kern.data --binary kprog -o kern.txt &&
   agg -i kern-at-link.data --binary kprog -o kern-at-link.txt &&
   cmp kern.txt kern-at-link.txt; then
	pass afdo-kernel-kaslr
else
	fail afdo-kernel-kaslr
fi
# A kernel recording and a --binary that is no kernel: nothing of it.
if agg -i kern.data --binary prog -o /dev/null 2>kern-other.err; then
	fail afdo-kernel-not-vmlinux
else
	pass afdo-kernel-not-vmlinux
fi
# llvm-profgen --kernel on perf's script of the same recording. It takes
# the kernel map's start for its first executable segment's, which holds
# where _text starts that segment (x86), not on RISC-V: fed perf's text
# as it is, it finds no sample. With the map's start moved down to the
# segment, its profile must be ours.
if profgen_and_perf afdo-kernel-vs-llvm-profgen; then
	perf script -i kern.data --show-mmap-events -F ip,brstack >kern.script 2>/dev/null
	seg=$("${CROSS}readelf" -lW kprog | awk '$1 == "LOAD" && / [RW ]*E / { print $3; exit }')
	sed -E "1s/\[0x[0-9a-f]+\(/[$(printf '0x%x' $((seg + 0x200000)))(/" \
		kern.script >kern-seg.script
	if root_exec /usr/lib/llvm-19/bin/llvm-profgen --kernel --perfscript=kern-seg.script \
		--binary=kprog --format=text --output=kern.pg 2>kern.pg.err &&
	   grep -q '^kwork:' kern.pg && diff -u kern.pg kern.prof >&2; then
		pass afdo-kernel-vs-llvm-profgen
	else
		cat kern.pg.err >&2
		fail afdo-kernel-vs-llvm-profgen
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

# A fleet: recordings of several machines, each made into its own profile,
# merged by llvm-profdata merge --sample, give the profile of all of them
# read at once (every count the sum; a line's count is its hottest
# instruction's, the same one in each of these recordings, so the two are
# equal to the unit; a count scaled or rounded per recording would not
# be). GCC's side has no such merger in
# Debian: autofdo 0.19's profile_merger reads only the string table of
# GCC 11 and older; several recordings go to one perf-ctr aggregate.
for s in 8 9; do
	"$PC" synth -o "fleet$s.data" --samples 2000 --depth 32 --binary prog \
		--seed "$s" >&2
done
if [ -z "$profdata" ]; then
	skip afdo-fleet-llvm-merge "no llvm-profdata: apt-get install llvm-14"
elif agg -i fleet8.data --binary prog -f llvm-text -o fleet8.prof &&
     agg -i fleet9.data --binary prog -f llvm-text -o fleet9.prof &&
     agg -i pie.data -i fleet8.data -i fleet9.data --binary prog -f llvm-text \
	-o fleet-all.prof &&
     "$profdata" merge --sample --text pie.prof fleet8.prof fleet9.prof \
	-o fleet-merged.prof 2>merge.err && [ ! -s merge.err ] &&
     "$profdata" show --sample fleet-merged.prof >merged.show &&
     "$profdata" show --sample fleet-all.prof >all.show &&
     diff -u all.show merged.show >&2 &&
     grep -q '^Function: work: ' merged.show &&
     ! cmp -s pie.prof fleet8.prof; then
	pass afdo-fleet-llvm-merge
else
	cat merge.err >&2
	fail afdo-fleet-llvm-merge
fi

# The whole LLVM profile (totals, heads, bodies, call targets, inlinees)
# as llvm-profgen's own symbolization of our ranges: binaries from GCC 12,
# clang 14 and clang 19 (discriminators with duplication factors, line 0).
same_as_profgen() {	# NAME BINARY DATA
	agg -i "$3" --binary "$2" -f llvm-unsym -o "$1.unsym" &&
	agg -i "$3" --binary "$2" -f llvm-text -o "$1.prof" &&
	root_exec /usr/lib/llvm-19/bin/llvm-profgen --unsymbolized-profile="$1.unsym" \
		--binary="$2" --format=text --output="$1.pg" 2>"$1.err" &&
	[ -s "$1.pg" ] && diff -u "$1.pg" "$1.prof" >&2
}
if ! have_profgen; then
	skip afdo-llvm-text-profgen "no llvm-profgen 19: scripts/setup-afdo.sh installs llvm-19 into $ROOT"
else
	if same_as_profgen pg prog pie.data; then
		pass afdo-llvm-text-profgen-gcc12
	else
		fail afdo-llvm-text-profgen-gcc12
	fi
	clang14=$(command -v clang-14 || true)
	if [ -z "$clang14" ]; then
		skip afdo-llvm-text-profgen-clang14 "no clang-14: apt-get install clang-14"
	elif "$clang14" --target=riscv64-linux-gnu -O2 -g -fdebug-info-for-profiling \
		-funroll-loops -o c14prog "$fix/prog.c" 2>/dev/null &&
	     "$PC" synth -o c14.data --samples 3000 --depth 32 --binary c14prog \
		--seed 3 >&2 && same_as_profgen c14 c14prog c14.data; then
		pass afdo-llvm-text-profgen-clang14
	else
		fail afdo-llvm-text-profgen-clang14
	fi
fi

# A function whose only count is a call that was a sample's oldest record
# (no range before it, as in a kernel recording's proc_sys_read): one
# sample of prog, main's call of work, then work's first branch, taken.
# llvm-profgen writes main with total and head 0 and the call's target.
call=$("${CROSS}objdump" -d prog | awk '/<main>:/, /^$/' |
	awk '/jal.*<work>/ { sub(/:/, "", $1); print $1; exit }')
entry=$("${CROSS}nm" prog | awk '$3 == "work" { sub(/^0*/, "", $1); print $1 }')
read -r bfrom bto < <("${CROSS}objdump" -d prog | awk '/<work>:/, /^$/' |
	awk '$3 ~ /^b/ { t = $4; sub(/.*,/, "", t); sub(/:/, "", $1); print $1, t; exit }')
if ! have_profgen; then
	skip afdo-llvm-text-call-only "no llvm-profgen 19: scripts/setup-afdo.sh installs llvm-19 into $ROOT"
elif [ -n "$call" ] && [ -n "$entry" ] && [ -n "${bto:-}" ] &&
     echo "$bto 0x$bfrom/0x$bto/P/-/-/0 0x$call/0x$entry/P/-/-/0" >co.brstack &&
     agg --input-format brstack -i co.brstack --binary prog -f llvm-unsym -o co.unsym &&
     agg --input-format brstack -i co.brstack --binary prog -f llvm-text -o co.prof &&
     root_exec /usr/lib/llvm-19/bin/llvm-profgen --unsymbolized-profile=co.unsym \
	--binary=prog --format=text --output=co.pg 2>co.err &&
     grep -q '^main:0:0$' co.pg && diff -u co.pg co.prof >&2; then
	pass afdo-llvm-text-call-only
else
	fail afdo-llvm-text-call-only
fi

# A function in pieces: records of step()'s loop alone give step.cold's
# lines at 0 as well, as llvm-profgen's profile of the same records has.
"$CROSS_CC" -O2 -freorder-blocks-and-partition -gdwarf-5 -no-pie -o split \
	"$fix/split.c" || fail afdo-split-build
# The loop's back edge: step()'s branch to an address below its own.
src= tgt=
while read -r a b; do
	[ $((16#$b)) -lt $((16#$a)) ] && src=$a tgt=$b
done < <("${CROSS}objdump" -d split | awk '/<step>:/, /^$/' |
	awk '$3 ~ /^b/ { t = $4; sub(/.*,/, "", t); sub(/:/, "", $1); print $1, t }')
if [ -z "${src:-}" ] || ! "${CROSS}nm" split | grep -q ' step\.cold$'; then
	fail afdo-split-pieces-zero-filled
else
	for i in $(seq 20); do
		printf '%s' "$src"
		for j in $(seq 8); do printf ' 0x%s/0x%s/P/-/-/0 ' "$src" "$tgt"; done
		echo
	done >split.brstack
	cold=$("${CROSS}objdump" -d split | awk '/<step\.cold>:/ { getline; sub(/:/, "", $1); print $1; exit }')
	agg --input-format brstack -i split.brstack --binary split -f llvm-text \
		-o split.prof 2>split.err
	# The cold piece's first instruction's line, at 0 in step's profile.
	line=$("${CROSS}addr2line" -e split "0x$cold" | sed 's/.*://; s/ .*//')
	decl=$(grep -n '^__attribute__((noinline)) int step(' "$fix/split.c" | cut -d: -f1)
	if [ -n "$line" ] && [ -n "$decl" ] &&
	   awk -v want=" $((line - decl)): 0" '/^step:/ { f = 1; next } /^[^ ]/ { f = 0 }
		f && $0 == want { ok = 1 } END { exit !ok }' split.prof; then
		pass afdo-split-pieces-zero-filled
	else
		cat split.err >&2
		fail afdo-split-pieces-zero-filled
	fi
	if ! have_profgen; then
		skip afdo-split-pieces-vs-llvm-profgen "no llvm-profgen 19: scripts/setup-afdo.sh installs llvm-19 into $ROOT"
	elif root_exec /usr/lib/llvm-19/bin/llvm-profgen --perfscript=split.brstack \
		--binary=split --format=text --output=split.pg 2>split.pg.err &&
	     diff -u split.pg split.prof >&2; then
		pass afdo-split-pieces-vs-llvm-profgen
	else
		fail afdo-split-pieces-vs-llvm-profgen
	fi
fi

# Compilers that live in the trixie root (GCC 14, clang 19) run there.
in_root_ok() { [ "$(id -u)" = 0 ] && [ -x "$ROOT/usr/bin/$1" ]; }
rtmp=
if in_root_ok riscv64-linux-gnu-gcc-14 || in_root_ok clang-19; then
	rtmp=$(mktemp -d "$ROOT/tmp/t-afdo.XXXXXX")
	trap 'rm -rf "$tmp" "$rtmp"' EXIT
	cp "$fix/prog.c" "$rtmp/"
fi
rcc() { in_root sh -c "cd ${rtmp#"$ROOT"} && $*"; }

if ! in_root_ok clang-19 || ! have_profgen; then
	skip afdo-llvm-text-profgen-clang19 "no clang-19 in $ROOT (scripts/setup-afdo.sh) or not root"
elif rcc clang-19 --target=riscv64-linux-gnu -O2 -g -fdebug-info-for-profiling \
	-funroll-loops -o c19prog prog.c && cp "$rtmp/c19prog" . &&
     "$PC" synth -o c19.data --samples 3000 --depth 32 --binary c19prog --seed 5 >&2 &&
     same_as_profgen c19 c19prog c19.data && cp c19.prof "$rtmp/" &&
     rcc clang-19 --target=riscv64-linux-gnu -O2 -g -fprofile-sample-use=c19.prof \
	-Rpass=sample-profile -c prog.c -o c19.o >c19.out 2>&1 &&
     ! grep -qE 'warning|error' c19.out && grep -q 'remark: .*sample-profile' c19.out; then
	pass afdo-llvm-text-profgen-clang19
else
	fail afdo-llvm-text-profgen-clang19
fi

# clang's flow-sensitive discriminators (-enable-fs-discriminator, as the
# kernel's CONFIG_AUTOFDO_CLANG builds): a binary with the
# __llvm_fs_discriminator__ symbol carries them whole, base and pass bits,
# with no duplication factor, as llvm-profgen reads them.
if ! in_root_ok clang-19 || ! have_profgen; then
	skip afdo-llvm-fs-discriminators "no clang-19 in $ROOT (scripts/setup-afdo.sh) or not root"
elif rcc clang-19 --target=riscv64-linux-gnu -O2 -gmlt -fdebug-info-for-profiling \
	-mllvm -enable-fs-discriminator=true -mllvm -improved-fs-discriminator=true \
	-funroll-loops -o fsprog prog.c && cp "$rtmp/fsprog" . &&
     "${CROSS}nm" fsprog | grep -q ' __llvm_fs_discriminator__$' &&
     "$PC" synth -o fs.data --samples 3000 --depth 32 --binary fsprog --seed 6 >&2 &&
     same_as_profgen fs fsprog fs.data &&
     sed -n 's/^ *[0-9]*\.\([0-9]*\):.*/\1/p' fs.prof | awk '$1 >= 256 { f = 1 } END { exit !f }'; then
	pass afdo-llvm-fs-discriminators
else
	fail afdo-llvm-fs-discriminators
fi

# GCC 13 and newer look profiles up by line offset and discriminator,
# GCC 12 by line offset only: the gcov format follows the GCC named in
# the binary's DWARF, and that GCC takes the result: GCC 14 (trixie root),
# 15 and 16 (forky root). GCC 16 reads version 3 only, which adds a
# summary (its hot threshold) and the file of each function (a top-level
# function whose file does not match its own gets no profile): checked
# against counts and files recomputed here.
keys() { python3 "$fix/gcov-keys.py" "$@"; }
ftmp=
if [ "$(id -u)" = 0 ] && [ -x "$FORKY/usr/bin/riscv64-linux-gnu-gcc-16" ]; then
	ftmp=$(mktemp -d "$FORKY/tmp/t-afdo.XXXXXX")
	trap 'rm -rf "$tmp" "$rtmp" "$ftmp"' EXIT
	cp "$fix/prog.c" "$ftmp/"
fi
fcc() { in_forky sh -c "cd ${ftmp#"$FORKY"} && $*"; }
# summary_ok V3FILE: the summary is that of the body counts written
summary_ok() {
	keys --summary "$1" >"$1.sum" && keys "$1" | awk '$4 != "inline"' >"$1.keys" &&
	python3 - "$1.sum" "$1.keys" <<-'PY'
	import sys
	s = open(sys.argv[1]).read().split('\n')
	c = sorted((int(l.split()[3]) for l in open(sys.argv[2])), reverse=True)
	total, mx, _, n, _ = map(int, s[1].split()[1:])
	assert (total, mx, n) == (sum(c), max(c), len(c)), (total, mx, n)
	cuts = [l.split()[1:] for l in s[2:] if l.startswith('cutoff')]
	assert len(cuts) == 16
	for cut, mn, num in (map(int, x) for x in cuts):
	    want, acc, k = total * cut // 1000000, 0, 0
	    while acc < want:
	        acc += c[k]
	        k += 1
	    while 0 < k < len(c) and c[k] == c[k - 1]:
	        k += 1
	    assert (mn, num) == ((c[k - 1], k) if want else (0, 0)), (cut, mn, num)
	PY
}
for v in 14 15 16; do
	name=afdo-gcov-gcc$v-discriminators
	[ $v != 16 ] || name=afdo-gcov-gcc16-version3
	if [ $v = 14 ]; then
		root=$ROOT run=rcc dir=$rtmp ok=y
		in_root_ok riscv64-linux-gnu-gcc-14 || ok=
	else
		root=$FORKY run=fcc dir=$ftmp ok=y
		[ -n "$ftmp" ] && [ -x "$FORKY/usr/bin/riscv64-linux-gnu-gcc-$v" ] || ok=
	fi
	if [ -z "$ok" ]; then
		skip $name "no riscv64 GCC $v in $root (scripts/setup-afdo.sh) or not root"
		continue
	fi
	if $run riscv64-linux-gnu-gcc-$v -O2 -g -o prog$v prog.c && cp "$dir/prog$v" . &&
	   "$PC" synth -o p$v.data --samples 3000 --depth 32 --binary prog$v --seed 7 >&2 &&
	   agg -v -i p$v.data --binary prog$v -f gcov -o p$v.afdo 2>p$v.err &&
	   grep -q "GCC $v profile: with discriminators" p$v.err &&
	   [ "$(keys p$v.afdo | awk '$3 != 0' | wc -l)" -gt 0 ] &&
	   { [ $v != 16 ] ||
	     { [ "$(keys --files p$v.afdo | head -1)" = "version 3" ] &&
	       keys --heads p$v.afdo | awk '{ print $1, "prog.c" }' >p$v.want &&
	       keys --files p$v.afdo | awk 'NR > 2 { sub(".*/", "", $2); print }' |
		grep -v ' -$' | sort >p$v.files && sort -o p$v.want p$v.want &&
	       join -a 1 -e none -o 0,2.2 p$v.want p$v.files | cmp -s - p$v.want &&
	       summary_ok p$v.afdo; }; } &&
	   cp p$v.afdo "$dir/" &&
	   $run riscv64-linux-gnu-gcc-$v -O2 -g -fauto-profile=p$v.afdo -Wall \
		-fdump-tree-optimized-blocks-details -c prog.c -o p$v.o >p$v.gcc 2>&1 &&
	   [ ! -s p$v.gcc ] && grep -q "(auto FDO)" "$dir"/*t.optimized; then
		pass $name
	else
		cat p$v.err p$v.gcc >&2 2>/dev/null
		fail $name
	fi
	rm -f "$dir"/*t.optimized
done
# Lines that did not run are written with count 0 (as create_gcov
# writes them), not left out: GCC takes an explicit 0 as code that did
# not run and guesses for a line the profile lacks. Records of work()'s
# loop taken through its else branch only: `s += sq(i);` did not run.
keep_only_else() {	# prog_nopie's work(): "IP BACKEDGE/LOOPHEAD" samples
	"${CROSS}objdump" -d -l --no-show-raw-insn prog_nopie | python3 -c '
import re, sys
line = want = None
rows = []
infn = False
for t in sys.stdin:
    if re.match(r"^[0-9a-f]+ <", t):
        infn = t.rstrip().endswith("<work>:")
        continue
    m = re.search(r"prog\.c:(\d+)", t)
    if m:
        line = int(m.group(1))
        continue
    m = re.match(r"\s+([0-9a-f]+):\s+(\S+)\s+(.*)", t)
    if infn and m:
        rows.append((int(m.group(1), 16), line, m.group(2), m.group(3)))
head = min(a for a, l, _, _ in rows if l == int(sys.argv[1]))
back = [a for a, _, op, args in rows if op.startswith("b") and
        args.split(",")[-1].split()[0] == "%x" % head]
for _ in range(20):
    print("%#x" % back[-1], " ".join(["%#x/%#x/P/-/-/0" % (back[-1], head)] * 8))
' "$(grep -n 'if (i % 3 == 0)' "$fix/prog.c" | cut -d: -f1)"
}
decl=$(grep -n '^__attribute__((noinline)) int work' "$fix/prog.c" | cut -d: -f1)
then_l=$(grep -n 's += sq(i);' "$fix/prog.c" | cut -d: -f1)
else_l=$(grep -n 's -= i;' "$fix/prog.c" | cut -d: -f1)
if keep_only_else >else.brstack && [ -s else.brstack ] &&
   agg --input-format brstack -i else.brstack --binary prog_nopie -f gcov \
	-o else.afdo && keys else.afdo >else.keys &&
   grep -qx "work $((then_l - decl)) 0 0" else.keys &&
   grep -q "^work $((else_l - decl)) 0 [1-9]" else.keys; then
	pass afdo-gcov-zero-lines
else
	cat else.keys >&2 2>/dev/null
	fail afdo-gcov-zero-lines
fi
# Lines above their function's own (#line, macros) have negative offsets,
# which GCC computes in 32 bits and create_gcov writes so: left out, GCC
# 12 takes neg()'s loop, which ran, for code that never runs.
if "$CROSS_CC" -O2 -g -o negline "$fix/negline.c" &&
   "$PC" synth -o neg.data --samples 2000 --depth 32 --binary negline --seed 3 >&2 &&
   agg -i neg.data --binary negline -f gcov -o neg.afdo && keys neg.afdo >neg.keys &&
   grep -q '^neg 655[0-9][0-9] 0 [1-9]' neg.keys &&
   "$CROSS_CC" -O2 -g -fauto-profile=neg.afdo -fdump-tree-optimized-blocks-details \
	-c "$fix/negline.c" -o neg.o 2>neg.gcc && [ ! -s neg.gcc ] &&
   sed -n '/^int neg/,/^}/p' neg.c.*t.optimized |
	grep -q 'loop depth 1, count [1-9][0-9]* (auto FDO)'; then
	pass afdo-gcov-negative-offsets
else
	cat neg.keys neg.gcc >&2 2>/dev/null
	fail afdo-gcov-negative-offsets
fi
# A function entered seldom can have samples in its loop and no sampled
# call: its head count is at least 1 (given 0, GCC 14 optimised bzip2's
# mainSort for size, hot loops and all), and sampled calls still count
# as they are. else.afdo has work()'s loop only, no call into it.
if keys --heads else.afdo >else.heads && grep -qx "work 1" else.heads &&
   agg -i nopie.data --binary prog_nopie -f gcov -o calls.afdo &&
   keys --heads calls.afdo >calls.heads &&
   awk '$1 == "work" && $2 > 1 { ok = 1 } END { exit !ok }' calls.heads; then
	pass afdo-gcov-head-floor
else
	cat else.heads calls.heads >&2 2>/dev/null
	fail afdo-gcov-head-floor
fi
# --gcc-version names the consumer when it is not the GCC of the DWARF.
if agg -v -i pie.data --binary prog -f gcov --gcc-version 14 -o p12as14.afdo 2>p12as14.err &&
   grep -q 'GCC 14 profile: with discriminators' p12as14.err &&
   [ "$(keys p12as14.afdo | awk '$3 != 0' | wc -l)" -gt 0 ]; then
	pass afdo-gcc-version
else
	fail afdo-gcc-version
fi
# -f lines: the source lines of the loop in work() count, 0 outside.
if agg -i pie.data --binary prog -f lines -o lines.txt &&
   grep -q "prog.c:$(grep -n 'for (int i = 0; i < n; i++)' "$fix/prog.c" | cut -d: -f1) [1-9]" lines.txt; then
	pass afdo-lines
else
	head -5 lines.txt >&2
	fail afdo-lines
fi
agg -v -i pie.data --binary prog -f gcov -o p12.afdo 2>p12.err
if grep -q 'GCC 12 profile: without discriminators' p12.err &&
   keys p12.afdo >/dev/null && [ "$(keys p12.afdo | wc -l)" -gt 0 ] &&
   [ "$(keys p12.afdo | awk '$3 != 0' | wc -l)" = 0 ]; then
	pass afdo-gcov-gcc12-no-discriminators
else
	fail afdo-gcov-gcc12-no-discriminators
fi

# --- stripped binaries and separate debug information -------------------------
# A stripped binary keeps every range (its .dynsym knows no function, so
# no range is across functions); its DWARF and symbols come from the
# debug file that .gnu_debuglink names or that its build id finds under
# --symfs DIR/usr/lib/debug/.build-id/: the same profile as unstripped.
"$CROSS_CC" -O2 -g -rdynamic -o progdyn "$fix/prog.c" &&
"$PC" synth -o dyn.data --samples 3000 --depth 32 --binary progdyn --seed 7 >&2 &&
${CROSS}objcopy --only-keep-debug progdyn progdyn.debug &&
${CROSS}strip -o progdyn.s progdyn &&
${CROSS}objcopy --add-gnu-debuglink=progdyn.debug progdyn.s progdyn.dl &&
agg -v -i dyn.data --binary progdyn -o full.txt 2>full.err &&
agg -v -i dyn.data --binary progdyn.s -o stripped.txt 2>stripped.err &&
agg -i dyn.data --binary progdyn -f llvm-text -o full.prof ||
	fail afdo-stripped-build
ranges() { grep -o 'ranges: [0-9]*, [0-9]* unique' "$1"; }
if [ -n "$(ranges full.err)" ] && [ "$(ranges full.err)" = "$(ranges stripped.err)" ] &&
   cmp -s full.txt stripped.txt; then
	pass afdo-stripped-keeps-ranges
else
	ranges full.err >&2; ranges stripped.err >&2
	fail afdo-stripped-keeps-ranges
fi
if agg -i dyn.data --binary progdyn.dl -f llvm-text -o dl.prof &&
   cmp -s full.prof dl.prof; then
	pass afdo-debuglink
else
	fail afdo-debuglink
fi
${CROSS}strip -o progdyn.nolink progdyn
if agg -i dyn.data --binary progdyn.nolink --debug-binary progdyn.debug \
	-f llvm-text -o db.prof && cmp -s full.prof db.prof &&
   ! agg -i dyn.data --binary progdyn.nolink -f llvm-text -o nodb.prof 2>nodb.err &&
   grep -q -- '--debug-binary' nodb.err && [ ! -e nodb.prof ]; then
	pass afdo-debug-binary
else
	fail afdo-debug-binary
fi
bid=$(${CROSS}readelf -n progdyn | sed -n 's/.*Build ID: \([0-9a-f]*\)/\1/p')
mkdir -p "symfs/usr/lib/debug/.build-id/${bid:0:2}" symfs/opt &&
cp progdyn.debug "symfs/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" &&
cp progdyn.s symfs/opt/progdyn
if [ -n "$bid" ] && agg -i dyn.data --symfs symfs --binary /opt/progdyn \
	-f llvm-text -o bid.prof && cmp -s full.prof bid.prof; then
	pass afdo-build-id-debug-dir
else
	fail afdo-build-id-debug-dir
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

exit $rc
