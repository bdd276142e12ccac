# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# kernel-autofdo.sh full and speed (sourced by it): the peer, llvm-profgen
# 19 --kernel fed by perf 7.3's perf script, and how fast each makes a
# profile of a kernel recording.

# The peer's input is perf script's text. The guest's perf (Debian 13's
# 6.12) writes attrs that the host's perf 6.1 refuses ("a more recent
# and unsupported ABI"): perf 7.3 from trixie-backports, in the root.
if ! [ -x "$ROOT/usr/bin/perf" ]; then
	say "installing linux-perf from trixie-backports into the trixie root"
	in_root apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends \
		-t trixie-backports linux-perf >/dev/null ||
		{ result FAIL "linux-perf from trixie-backports in $ROOT"; exit 1; }
fi

# The first executable segment of vmlinux: llvm-profgen 19 --kernel takes
# the kernel map's start for it, where RISC-V's _text is above it.
# (awk reads to the end: an early exit would kill the writer, and
# pipefail the script.)
first_exec_seg() {
	"${CROSS}readelf" -lW "$1" |
		awk '$1 == "LOAD" && / [RW ]*E / && !n++ { print $3 }'
}
ktext() { "${CROSS}nm" "$1" | awk '$3 == "_text" && !n++ { print "0x" $1 }'; }

seg=$(first_exec_seg "$KOUT/vmlinux")
text=$(ktext "$KOUT/vmlinux")
now() { date +%s.%N; }
# perf script's text as llvm-profgen takes it: perf's kernel map starts
# at _text (relocated), llvm-profgen wants the executable segment's start
# there, moved by the same amount. And a sample whose branch stack is
# empty (7 to 20% of them, nearly all taken where interrupts come back
# on) is only its IP: when the first sample is one, llvm-profgen takes
# the file for one without branch stacks and finds "No samples in perf
# script!". They carry no transfer; perf-ctr skips them too.
profgen_text() {	# IN OUT
	local map
	map=$(grep -m1 -o '\[0x[0-9a-f]*([^]]*\]: x \[kernel.kallsyms\]_text' "$1" |
		sed 's/^\[\(0x[0-9a-f]*\)(.*/\1/')
	[ -n "$map" ] || return 1
	sed "0,/\]: x \[kernel.kallsyms\]_text/s/\[$map(/[$(printf '0x%x' $((map - text + seg)))(/" \
		"$1" | awk '/^PERF_RECORD/ || NF > 1' >"$2"
}

times() {	# N COMMAND...: the median wall time of N runs, in seconds
	local n=$1 _; shift
	for _ in $(seq "$n"); do
		t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
		echo "$t0 $t1" | awk '{ print $2 - $1 }'
	done | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# How fast, on DATA (a recording of this vmlinux), with nothing else
# running: five runs of each, the median of each: perf-ctr aggregate
# from perf.data; perf script (perf 7.3) and llvm-profgen --kernel from
# the same file (its kernel map moved as above). Scratch files in DIR.
profile_speed() {	# DATA WHAT DIR
	local data=$1 what=$2 dir=$3 t_pc t_ps t_pg
	root_exec /usr/bin/perf script -i "$data" --show-mmap-events -F ip,brstack \
		2>/dev/null >"$dir/bench.raw"
	profgen_text "$dir/bench.raw" "$dir/bench.script" || return 1
	rm -f "$dir/bench.raw"
	t_pc=$(times 5 pc aggregate -i "$data" --binary "$KOUT/vmlinux" -f llvm-text \
		-o "$dir/bench.pc")
	t_ps=$(times 5 root_exec /usr/bin/perf script -i "$data" --show-mmap-events \
		-F ip,brstack)
	t_pg=$(times 5 root_exec /usr/lib/llvm-19/bin/llvm-profgen --kernel \
		--perfscript="$dir/bench.script" --binary="$KOUT/vmlinux" --format=text \
		--output="$dir/bench.pg")
	rm -f "$dir/bench.script" "$dir/bench.pc" "$dir/bench.pg"
	echo "$t_pc $t_ps $t_pg" | awk -v size="$(du -h "$data" | cut -f1)" -v what="$what" '{
		printf "\nprofile generation, %s (%s), median of 5 runs: perf-ctr aggregate %.3f s;\n", what, size, $1
		printf "perf script %.3f s + llvm-profgen %.3f s = %.3f s: llvm-profgen alone %.1fx perf-ctr, with perf script %.1fx\n", $2, $3, $2 + $3, $3 / $1, ($2 + $3) / $1
	}'
}
