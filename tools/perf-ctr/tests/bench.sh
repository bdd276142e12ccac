#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-perf-ctr: perf-ctr aggregate against the other ways of
# turning branch stacks into profiles, each run RUNS times, min and
# median wall time and the peak RSS of the median run, as ratios of the
# peers' to perf-ctr's, on:
#  1. one perf.data of SAMPLES samples of DEPTH-deep stacks (perf-ctr
#     synth over a real riscv64 binary, with perf record's rounds,
#     cached in $CTR_CACHE/perf-ctr-bench): every format against perf
#     script, llvm-profgen --perfdata and create_gcov;
#  2. the real recordings `make autofdo` made in the guest (bzip2 and
#     lua, perf record -b, 256-deep stacks) when they are in its cache:
#     every format against perf-ctr script + llvm-profgen --perfscript;
#  3. a system-wide recording of FLEET_MB (default 1024) MB made of those
#     real recordings (tests/mk-fleet.py: each a process of its own, one
#     after another), or of synthetic ones of several programs when
#     there are none (said so): every format for one program against
#     the same peers, and the counts checked against that program's own
#     recordings times their copies.
# The profiles are compared with the peers' where they write the same
# format. Not a test: it prints numbers.
#
#   SAMPLES=1000000 DEPTH=32 RUNS=3 FLEET_MB=1024 tools/perf-ctr/tests/bench.sh
# FLEET_MB=0 leaves out the fleet (3.), which takes the longest to make.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$top/scripts/lib.sh"
SAMPLES=${SAMPLES:-1000000}
DEPTH=${DEPTH:-32}
RUNS=${RUNS:-3}
FLEET_MB=${FLEET_MB:-1024}
PC=${PERF_CTR:-$top/out/perf-ctr/perf-ctr}
dir=$CTR_CACHE/perf-ctr-bench
TIME=/usr/bin/time
ALL_FORMATS="autofdo-text llvm-unsym llvm-text gcov lines"
FORMATS=$ALL_FORMATS
profgen=/usr/lib/llvm-19/bin/llvm-profgen

make -s -C "$top/tools/perf-ctr" -j2 >&2 || die "perf-ctr does not build"
[ -x $TIME ] || die "no $TIME: apt-get install time (scripts/setup-afdo.sh)"
command -v "${CROSS}gcc" >/dev/null || die "no ${CROSS}gcc: scripts/setup.sh host"
mkdir -p "$dir"
cd "$dir" || exit 1

# run NAME CMD...: wall microseconds and peak RSS (KiB) into NAME.*
run() {
	local name=$1; shift
	local t0 t1
	t0=$(date +%s%N)
	$TIME -f %M -o "$name.rss" "$@" >"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000)) >"$name.us"
}
# runs NAME CMD...: RUNS runs into NAME.1.* .. NAME.$RUNS.*
runs() {
	local name=$1 i; shift
	for i in $(seq "$RUNS"); do run "$name.$i" "$@"; done
}
ok() { [ "$(cat "$1.1.rc")" = 0 ]; }
# tm NAME: "min median" seconds; rss NAME: the median run's peak RSS
tm() {
	for i in $(seq "$RUNS"); do cat "$1.$i.us"; done | sort -n |
		awk '{ v[NR] = $1 } END { printf "%.3f %.3f", v[1] / 1e6, v[int((NR + 1) / 2)] / 1e6 }'
}
rss() {
	for i in $(seq "$RUNS"); do echo "$(cat "$1.$i.us") $(cat "$1.$i.rss")"; done |
		sort -n | awk '{ v[NR] = $2 } END { print v[int((NR + 1) / 2)] }'
}
# ratio PEER OURS: the peer's min over ours, its median over ours
ratio() {
	awk -v a="$(tm "$1")" -v b="$(tm "$2")" 'BEGIN {
		split(a, p, " "); split(b, q, " ")
		printf "%.1fx / %.1fx", p[1] / q[1], p[2] / q[2] }'
}
# sum PEER1 PEER2 OURS: (peer1 + peer2) over ours, min and median
sum_ratio() {
	awk -v a="$(tm "$1")" -v b="$(tm "$2")" -v c="$(tm "$3")" 'BEGIN {
		split(a, p, " "); split(b, q, " "); split(c, r, " ")
		printf "%.1fx / %.1fx", (p[1] + q[1]) / r[1], (p[2] + q[2]) / r[2] }'
}
line() {	# LABEL NAME [EXTRA]
	printf '  %-40s %7s / %7s s %9s KiB %s\n' "$1" $(tm "$2") "$(rss "$2")" "${3:-}"
}
# against_peers P: each format's P-FORMAT runs against P-script + P-pg.
against_peers() {
	local f
	for f in $FORMATS; do
		if [ -x "$ROOT$profgen" ]; then
			line "perf-ctr aggregate -f $f" "$1-$f" \
				"-> script + profgen: $(sum_ratio "$1-script" "$1-pg" "$1-$f")"
		else
			line "perf-ctr aggregate -f $f" "$1-$f"
		fi
	done
	line "perf-ctr script -F ip,brstack" "$1-script"
}
# The LLVM profiles of perf-ctr and of llvm-profgen: how many lines differ.
llvm_diff() {
	printf '%s of %s lines differ' "$(diff "$1" "$2" | grep -c '^[<>]')" "$(wc -l <"$2")"
}

# --- 1. synthetic ---------------------------------------------------------------
data=bench-$SAMPLES-$DEPTH-rounds.data
if [ ! -s prog ] || [ "$here/afdo/prog.c" -nt prog ]; then
	"${CROSS}gcc" -O2 -g -o prog "$here/afdo/prog.c" || die "cross build"
	rm -f bench-*.data
fi
if [ ! -s "$data" ]; then
	say "writing $data ($SAMPLES samples, depth $DEPTH)"
	"$PC" synth -o "$data.tmp" --samples "$SAMPLES" --depth "$DEPTH" \
		--binary prog --seed 1 >&2 && mv "$data.tmp" "$data" ||
		die "perf-ctr synth failed"
fi
records=$((SAMPLES * DEPTH))
cat "$data" >/dev/null		# every contender starts from the page cache

printf '\nperf-ctr aggregate, %s samples x %s records = %s records (%s MB perf.data), %s runs, min / median:\n' \
	"$SAMPLES" "$DEPTH" "$records" "$(($(stat -c %s "$data") / 1000000))" "$RUNS"
for f in $FORMATS; do
	runs "s-$f" "$PC" aggregate -i "$data" --binary prog -f "$f" -o "s-$f.prof"
	ok "s-$f" || { cat "s-$f.1.err" >&2; die "perf-ctr aggregate -f $f failed"; }
	line "perf-ctr aggregate -f $f" "s-$f" "$(tm "s-$f" |
		awk -v r=$records '{ printf "%.0f / %.0f M records/s", r / $1 / 1e6, r / $2 / 1e6 }')"
done
"$PC" aggregate -v -i "$data" --binary prog -o /dev/null 2>&1 | sed -n 's/^  memory: /  of the peak RSS: /p'

if command -v perf >/dev/null; then
	runs ps perf script -F ip,brstack -i "$data"
	if ok ps; then
		line "perf script -F ip,brstack ($(perf version | cut -d' ' -f3))" ps \
			"-> $(ratio ps s-autofdo-text) the time of -f autofdo-text"
	else
		echo "  perf script failed: $(head -1 ps.1.err)"
	fi
else
	echo "  perf script: no host perf"
fi
if [ -x "$ROOT$profgen" ] && command -v perf >/dev/null; then
	# llvm-profgen --perfdata runs the host perf script itself.
	runs pg "${ROOT_LOADER[@]}" "$ROOT$profgen" --perfdata="$data" \
		--binary=prog --format=text --output=pg.prof
	if ok pg; then
		line "llvm-profgen 19 --perfdata" pg \
			"-> $(ratio pg s-llvm-text) the time of -f llvm-text"
		echo "    LLVM profile against llvm-profgen's: $(llvm_diff s-llvm-text.prof pg.prof)"
	else
		echo "  llvm-profgen --perfdata failed: $(grep -m1 -i error pg.1.err)"
	fi
else
	echo "  llvm-profgen: no LLVM 19 in $ROOT (scripts/setup-afdo.sh) or no host perf"
fi

# create_gcov (quipper) reads no PERF_SAMPLE_BRANCH_HW_INDEX and takes
# about 7 KB and 0.4 ms per 32-deep sample: it gets its own, smaller file.
CG_SAMPLES=${CG_SAMPLES:-100000}
cg=bench-$CG_SAMPLES-$DEPTH-nohwidx-rounds.data
if command -v create_gcov >/dev/null; then
	[ -s "$cg" ] || "$PC" synth -o "$cg" --samples "$CG_SAMPLES" --depth "$DEPTH" \
		--binary prog --seed 1 --no-hw-idx >&2
	cat "$cg" >/dev/null
	runs cg-agg "$PC" aggregate -i "$cg" --binary prog -f gcov -o cg-agg.afdo
	runs cgp create_gcov --binary=prog --profile="$cg" --gcov=cgp.afdo
	if ok cgp && ok cg-agg; then
		printf '\n  on %s samples without hw_idx (what create_gcov 0.19 reads):\n' "$CG_SAMPLES"
		line "perf-ctr aggregate -f gcov" cg-agg
		line "create_gcov (perf.data)" cgp "-> $(ratio cgp cg-agg) the time"
	else
		echo "  create_gcov failed on $cg: $(grep -m1 -i error cgp.1.err)"
	fi
else
	echo "  create_gcov: not installed (apt-get install autofdo)"
fi

# --- 2. real recordings ---------------------------------------------------------
# make autofdo's recordings of its programs (GCC and clang builds). The
# host perf (bookworm, 6.1) cannot read the guest perf's files;
# llvm-profgen reads perf-ctr script's text (the format of perf script
# -F ip,brstack).
afdo=$CTR_CACHE/autofdo
reals=()
# One recording per program and compiler: the shortest period make
# autofdo recorded (its AFDO_PERIODS), the most records.
declare -A shortest=()
for rec in "$afdo"/prof/*-*-[0-9]*.data; do
	[ -s "$rec" ] || continue
	b=$(basename "$rec" .data)	# bzip2-gcc-50021, ...
	per=${b##*-}
	[ -n "${shortest[${b%-*}]:-}" ] && [ "${shortest[${b%-*}]}" -le "$per" ] ||
		shortest[${b%-*}]=$per
done
for base in $(printf '%s\n' "${!shortest[@]}" | sort); do
	rec=$afdo/prof/$base-${shortest[$base]}.data
	prog=${base%-*}; cc=${base##*-}
	bin=$afdo/build/$prog-$cc-base/$prog
	[ -x "$bin" ] || continue
	reals+=("$rec:$bin")
	cat "$rec" >/dev/null
	n=$("$PC" aggregate -v -i "$rec" --binary "$bin" -o /dev/null 2>&1 |
		sed -n 's/^perf-ctr aggregate: \([0-9]*\) samples.*, \([0-9]*\) records$/\1 samples, \2 records/p')
	# llvm-profgen writes a probe profile of a binary with pseudo-probes:
	# perf-ctr's is -f llvm-probe there
	llvm=llvm-text
	"${CROSS}readelf" -SW "$bin" 2>/dev/null | grep -q ' \.pseudo_probe ' && llvm=llvm-probe
	FORMATS=${ALL_FORMATS/llvm-text/$llvm}
	printf '\n%s (%s, %s MB perf.data, %s), %s runs, min / median:\n' \
		"$prog" "$cc" "$(($(stat -c %s "$rec") / 1000000))" "$n" "$RUNS"
	for f in $FORMATS; do
		runs "r-$f" "$PC" aggregate -i "$rec" --binary "$bin" -f "$f" -o "r-$f.prof"
		ok "r-$f" || { cat "r-$f.1.err" >&2; die "perf-ctr aggregate -f $f of $rec failed"; }
	done
	runs r-script "$PC" script -i "$rec" -F ip,brstack -o r.script
	if [ -x "$ROOT$profgen" ]; then
		runs r-pg "${ROOT_LOADER[@]}" "$ROOT$profgen" --perfscript=r.script \
			--binary="$bin" --format=text --output=r-pg.prof
	fi
	against_peers r
	if [ -x "$ROOT$profgen" ]; then
		line "llvm-profgen 19 --perfscript" r-pg
		"$PC" aggregate -i "$rec" --binary "$bin" -f llvm-unsym -o r.unsym &&
		"${ROOT_LOADER[@]}" "$ROOT$profgen" --unsymbolized-profile=r.unsym \
			--binary="$bin" --format=text --output=r-pgu.prof 2>/dev/null
		echo "  LLVM profile against llvm-profgen's from the same ranges: $(llvm_diff "r-$llvm.prof" r-pgu.prof)"
	fi
done
FORMATS=$ALL_FORMATS
[ ${#reals[@]} -gt 0 ] || echo "
real recordings: none in $afdo/prof (make autofdo records them)"

# --- 3. a fleet -------------------------------------------------------------------
[ "$FLEET_MB" -gt 0 ] || exit 0
# Real recordings, or, without any, synthetic ones of three builds of
# prog.c (GCC -O2 and -O1, clang -O2; PIE, as the real ones are not).
fleet_in=()
if [ ${#reals[@]} -gt 0 ]; then
	for r in "${reals[@]}"; do fleet_in+=("${r%%:*}"); done
	kind=real
	want=${reals[0]#*:}
	want_in=${reals[0]%%:*}
else
	kind="synthetic (no real recordings)"
	"${CROSS}gcc" -O1 -g -o fleet-o1 "$here/afdo/prog.c" &&
	clang-14 --target=riscv64-linux-gnu -O2 -g -o fleet-clang "$here/afdo/prog.c" 2>/dev/null ||
		cp fleet-o1 fleet-clang
	for b in prog fleet-o1 fleet-clang; do
		[ -s "fleet-in-$b.data" ] || "$PC" synth -o "fleet-in-$b.data" --samples 20000 \
			--depth "$DEPTH" --binary "$b" --seed 3 >&2
		fleet_in+=("fleet-in-$b.data")
	done
	want=prog
	want_in=fleet-in-prog.data
fi
fleet=fleet-$FLEET_MB.data
# Made again when its inputs change (real recordings made since, say).
fleet_key=$( { sha256sum <"$here/mk-fleet.py"
	for f in "${fleet_in[@]}"; do echo "$f"; sha256sum <"$f"; done; } |
	sha256sum | cut -d' ' -f1)
if [ ! -s "$fleet" ] || [ "$(cat "$fleet.key" 2>/dev/null)" != "$fleet_key" ]; then
	say "writing $fleet from ${fleet_in[*]}"
	python3 "$here/mk-fleet.py" "$fleet.tmp" "$FLEET_MB" "${fleet_in[@]}" >fleet.copies &&
		mv "$fleet.tmp" "$fleet" || die "mk-fleet.py failed"
	echo "$fleet_key" >"$fleet.key"
fi
cat "$fleet" >/dev/null
copies=$(awk -v f="$want_in" '$2 == f { print $1 }' fleet.copies)
printf '\na system-wide recording of %s programs, %s recordings, %s MB, %s; %s of %s copies of %s; %s runs, min / median:\n' \
	"$(wc -l <fleet.copies)" "$(awk '{ n += $1 } END { print n }' fleet.copies)" \
	"$(($(stat -c %s "$fleet") / 1000000))" "$kind" "$(basename "$want")" "$copies" \
	"$(basename "$want_in")" "$RUNS"
for f in $FORMATS; do
	runs "f-$f" "$PC" aggregate -i "$fleet" --binary "$want" -f "$f" -o "f-$f.prof"
	ok "f-$f" || { cat "f-$f.1.err" >&2; die "perf-ctr aggregate -f $f of the fleet failed"; }
done
runs f-script "$PC" script -i "$fleet" -F ip,brstack -o f.script
[ -x "$ROOT$profgen" ] && runs f-pg "${ROOT_LOADER[@]}" "$ROOT$profgen" \
	--perfscript=f.script --binary="$want" --format=text --output=f-pg.prof
against_peers f
[ -x "$ROOT$profgen" ] && line "llvm-profgen 19 --perfscript (all programs' samples)" f-pg
# The fleet's counts for the program are its own recording's times its copies.
"$PC" aggregate -i "$want_in" --binary "$want" -o one.txt 2>/dev/null
echo "  counts against $copies x its own recording: $(python3 "$here/counts.py" one.txt f-autofdo-text.prof "$copies")"
