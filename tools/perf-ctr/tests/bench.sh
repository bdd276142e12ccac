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
printf '  peak RSS counts the mapped perf.data; anonymous memory (tables): %s KiB\n' "${anon:-?}"

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

if command -v create_gcov >/dev/null; then
	run cgp create_gcov --binary=prog --profile="$data" --gcov=cgp.afdo
	if ok cgp; then
		printf '  %-34s %8s s %9s KiB  -> %sx faster, %sx less RSS\n' \
			"create_gcov (perf.data)" "$(secs cgp)" "$(cat cgp.rss)" \
			"$(ratio cgp.us agg.us)" "$(ratio cgp.rss agg.rss)"
	else
		echo "  create_gcov cannot read this perf.data ($(grep -m1 -o 'Error[^.]*' cgp.err)):"
		echo "  measured on the text profile instead, which is the smaller job"
	fi
	run cgt create_gcov --binary=prog --profile=agg.txt --profiler=text --gcov=cgt.afdo
	if ok cgt; then
		printf '  %-34s %8s s %9s KiB  -> aggregate uses %sx less RSS (goal: 10x)\n' \
			"create_gcov --profiler=text" "$(secs cgt)" "$(cat cgt.rss)" \
			"$(ratio cgt.rss agg.rss)"
	fi
else
	echo "  create_gcov: not installed (apt-get install autofdo)"
fi
