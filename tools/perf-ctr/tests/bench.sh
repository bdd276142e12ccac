#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-perf-ctr: perf-ctr aggregate against the other ways of
# turning branch stacks into profiles, on one perf.data of SAMPLES
# samples of 32-deep stacks (perf-ctr synth over a real riscv64 binary,
# cached in $CTR_CACHE/perf-ctr-bench), then on the real recordings
# `make autofdo` made in the guest (bzip2 and lua from Debian's sources,
# perf record -b, 256-deep stacks) when they are in its cache. Wall time
# and peak RSS of each, printed as ratios; not a test.
#
#   SAMPLES=1000000 DEPTH=32 RUNS=5 tools/perf-ctr/tests/bench.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$top/scripts/lib.sh"
SAMPLES=${SAMPLES:-1000000}
DEPTH=${DEPTH:-32}
PC=${PERF_CTR:-$top/out/perf-ctr/perf-ctr}
dir=$CTR_CACHE/perf-ctr-bench
TIME=/usr/bin/time

make -s -C "$top/tools/perf-ctr" -j2 >&2 || die "perf-ctr does not build"
[ -x $TIME ] || die "no $TIME: apt-get install time (scripts/setup-afdo.sh)"
command -v "${CROSS}gcc" >/dev/null || die "no ${CROSS}gcc: scripts/setup.sh host"
mkdir -p "$dir"
cd "$dir" || exit 1

data=bench-$SAMPLES-$DEPTH.data
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

# run NAME CMD...: wall seconds (ns clock) and peak RSS (KiB) into NAME.*
run() {
	local name=$1; shift
	local t0 t1
	t0=$(date +%s%N)
	$TIME -f %M -o "$name.rss" "$@" >"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000)) >"$name.us"
}
ok() { [ "$(cat "$1.rc")" = 0 ]; }
secs() { awk -v u="$(cat "$1.us")" 'BEGIN { printf "%.3f", u / 1e6 }'; }
ratio() { awk -v a="$(cat "$1")" -v b="$(cat "$2")" 'BEGIN { printf "%.1f", a / b }'; }

run agg "$PC" aggregate -v -i "$data" --binary prog -f autofdo-text -o agg.txt
ok agg || { cat agg.err >&2; die "perf-ctr aggregate failed"; }
run aggl "$PC" aggregate -i "$data" --binary prog -f llvm-text -o aggl.prof
anon=$(sed -n 's/.*KiB of tables, \([0-9]*\) KiB anonymous.*/\1/p' agg.err)

printf '\nperf-ctr aggregate, %s samples x %s records = %s records (%s MB perf.data)\n' \
	"$SAMPLES" "$DEPTH" "$records" "$(($(stat -c %s "$data") / 1000000))"
printf '  %-34s %8s s %9s KiB peak RSS\n' "perf-ctr aggregate (autofdo-text)" "$(secs agg)" "$(cat agg.rss)"
printf '  %-34s %8s s %9s KiB peak RSS\n' "perf-ctr aggregate (llvm-text)" "$(secs aggl)" "$(cat aggl.rss)"
awk -v r=$records -v u="$(cat agg.us)" 'BEGIN { printf "  %.1f M records/s (goal: 20)\n", r / u }'
printf '  of the peak RSS, anonymous memory (the tables): %s KiB; the rest is code and the input window\n' "${anon:-?}"

echo
if command -v perf >/dev/null; then
	run ps perf script -F ip,brstack -i "$data"
	if ok ps; then
		printf '  %-34s %8s s %9s KiB  -> aggregate is %sx faster (goal: 5x), %sx less RSS\n' \
			"perf script -F ip,brstack ($(perf version | cut -d' ' -f3))" "$(secs ps)" \
			"$(cat ps.rss)" "$(ratio ps.us agg.us)" "$(ratio ps.rss agg.rss)"
	else
		echo "  perf script failed: $(head -1 ps.err)"
	fi
else
	echo "  perf script: no host perf"
fi

profgen=/usr/lib/llvm-19/bin/llvm-profgen
if [ -x "$ROOT$profgen" ] && command -v perf >/dev/null; then
	# llvm-profgen --perfdata runs the host perf script itself.
	run pg "${ROOT_LOADER[@]}" "$ROOT$profgen" --perfdata="$data" \
		--binary=prog --output=pg.prof
	if ok pg; then
		printf '  %-34s %8s s %9s KiB  -> aggregate (llvm-text) is %sx faster, %sx less RSS\n' \
			"llvm-profgen 19 --perfdata" "$(secs pg)" "$(cat pg.rss)" \
			"$(ratio pg.us aggl.us)" "$(ratio pg.rss aggl.rss)"
		echo "    (its RSS is its own; the perf script it runs is measured above)"
	else
		echo "  llvm-profgen --perfdata failed: $(grep -m1 -i error pg.err)"
	fi
else
	echo "  llvm-profgen: no LLVM 19 in $ROOT (scripts/setup-afdo.sh) or no host perf"
fi

# create_gcov (quipper) reads no PERF_SAMPLE_BRANCH_HW_INDEX and takes
# about 7 KB and 0.4 ms per 32-deep sample: it gets its own, smaller file.
CG_SAMPLES=${CG_SAMPLES:-100000}
cg=bench-$CG_SAMPLES-$DEPTH-nohwidx.data
if command -v create_gcov >/dev/null; then
	[ -s "$cg" ] || "$PC" synth -o "$cg" --samples "$CG_SAMPLES" --depth "$DEPTH" \
		--binary prog --seed 1 --no-hw-idx >&2
	cat "$cg" >/dev/null
	run agg2 "$PC" aggregate -i "$cg" --binary prog -f autofdo-text -o agg2.txt
	run cgp create_gcov --binary=prog --profile="$cg" --gcov=cgp.afdo
	if ok cgp && ok agg2; then
		printf '\n  on %s samples without hw_idx (what create_gcov 0.19 reads):\n' "$CG_SAMPLES"
		printf '  %-34s %8s s %9s KiB\n' "perf-ctr aggregate" "$(secs agg2)" "$(cat agg2.rss)"
		printf '  %-34s %8s s %9s KiB  -> aggregate is %sx faster, %sx less RSS (goal: 10x)\n' \
			"create_gcov (perf.data)" "$(secs cgp)" "$(cat cgp.rss)" \
			"$(ratio cgp.us agg2.us)" "$(ratio cgp.rss agg2.rss)"
	else
		echo "  create_gcov failed on $cg: $(grep -m1 -i error cgp.err)"
	fi
else
	echo "  create_gcov: not installed (apt-get install autofdo)"
fi

# --- real recordings ------------------------------------------------------------
# make autofdo's recordings of bzip2 and lua (GCC and clang builds): RUNS
# runs of each tool, min and median. The host perf (bookworm, 6.1) cannot
# read the guest perf's files; llvm-profgen reads perf-ctr script's text
# (the same format perf script -F ip,brstack prints). The LLVM profiles
# of both are compared: identical lines, and how many differ.
RUNS=${RUNS:-5}
afdo=$CTR_CACHE/autofdo
stats() {	# NAME: "min median" seconds of NAME.1.us .. NAME.$RUNS.us
	for i in $(seq "$RUNS"); do cat "$1.$i.us"; done | sort -n |
		awk '{ v[NR] = $1 } END { printf "%.3f %.3f", v[1] / 1e6, v[int((NR + 1) / 2)] / 1e6 }'
}
runs() {	# NAME CMD...: RUNS runs into NAME.i.*
	local name=$1 i; shift
	for i in $(seq "$RUNS"); do run "$name.$i" "$@"; done
}
found=0
for rec in "$afdo"/prof/*-50021.data; do
	[ -s "$rec" ] || continue
	base=$(basename "$rec" -50021.data)	# bzip2-gcc, lua-clang, ...
	prog=${base%-*}; cc=${base##*-}
	bin=$afdo/build/$prog-$cc-base/$prog
	[ -x "$bin" ] || continue
	found=1
	cat "$rec" >/dev/null
	n=$("$PC" aggregate -v -i "$rec" --binary "$bin" -o /dev/null 2>&1 |
		sed -n 's/^perf-ctr aggregate: \([0-9]*\) samples.*, \([0-9]*\) records$/\1 samples, \2 records/p')
	printf '\n%s (%s, %s MB perf.data, %s), %s runs, min / median seconds:\n' \
		"$prog" "$cc" "$(($(stat -c %s "$rec") / 1000000))" "$n" "$RUNS"
	runs r-agg "$PC" aggregate -i "$rec" --binary "$bin" -f autofdo-text -o r-agg.txt
	runs r-gcov "$PC" aggregate -i "$rec" --binary "$bin" -f gcov -o r-agg.afdo
	runs r-llvm "$PC" aggregate -i "$rec" --binary "$bin" -f llvm-text -o r-agg.prof
	runs r-script "$PC" script -i "$rec" -F ip,brstack
	cp r-script.1.out r.script
	printf '  %-44s %s\n' "perf-ctr aggregate -f autofdo-text" "$(stats r-agg)"
	printf '  %-44s %s\n' "perf-ctr aggregate -f gcov (DWARF)" "$(stats r-gcov)"
	printf '  %-44s %s\n' "perf-ctr aggregate -f llvm-text (DWARF)" "$(stats r-llvm)"
	printf '  %-44s %s\n' "perf-ctr script -F ip,brstack" "$(stats r-script)"
	if [ -x "$ROOT$profgen" ]; then
		runs r-pg "${ROOT_LOADER[@]}" "$ROOT$profgen" --perfscript=r.script \
			--binary="$bin" --format=text --output=r-pg.prof
		printf '  %-44s %s  -> script + profgen take %sx the time of aggregate (llvm-text)\n' \
			"llvm-profgen 19 --perfscript" "$(stats r-pg)" \
			"$(awk -v a="$(stats r-script | cut -d' ' -f2)" -v b="$(stats r-pg | cut -d' ' -f2)" \
				-v c="$(stats r-llvm | cut -d' ' -f2)" 'BEGIN { printf "%.1f", (a + b) / c }')"
		"$PC" aggregate -i "$rec" --binary "$bin" -f llvm-unsym -o r.unsym &&
		"${ROOT_LOADER[@]}" "$ROOT$profgen" --unsymbolized-profile=r.unsym \
			--binary="$bin" --format=text --output=r-pgu.prof 2>/dev/null
		printf '  LLVM profile against llvm-profgen'"'"'s from the same ranges: %s of %s lines differ\n' \
			"$(diff r-agg.prof r-pgu.prof | grep -c '^[<>]')" "$(wc -l <r-pgu.prof)"
	fi
done
[ $found = 1 ] || echo "
real recordings: none in $afdo/prof (make autofdo records them)"
