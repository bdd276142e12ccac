#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-perf-ctr: perf-ctr aggregate against the other ways of
# turning branch stacks into profiles, on one perf.data of SAMPLES
# samples of 32-deep stacks (perf-ctr synth over a real riscv64 binary,
# cached in $CTR_CACHE/perf-ctr-bench). Wall time and peak RSS of each,
# printed as ratios; not a test.
#
#   SAMPLES=1000000 DEPTH=32 tools/perf-ctr/tests/bench.sh
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
