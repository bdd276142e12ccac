# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# kernel-autofdo.sh full (sourced by it): the kernel AutoFDO loop, whole.
# KAFDO_RECORDINGS (default 3) training recordings of the clang kernel
# (scripts/guest/kprofile: perf record -a -e instructions:k -j any,k of
# sched pipe, syscall basic and a tmpfs file workload, period
# KAFDO_PERIOD), each turned into a profile of vmlinux twice: by perf-ctr
# aggregate and, the peer, by llvm-profgen 19 --kernel from perf 7.3's
# perf script of the same file. Each profile builds a kernel
# (CLANG_AUTOFDO_PROFILE); the base kernel and every profiled one then
# run scripts/guest/kbench under -icount on one hart, KAFDO_BOOTS boots
# (default 2) of KAFDO_REPS runs of each workload (default 3): exact
# kernel-mode instruction counts of the training workloads and of
# held-out ones. The table: per workload, the change in kernel
# instructions against the base kernel, median over the recordings and
# its spread. Everything is kept in out/kautofdo/full/ and
# $KBUILD/clang-{pc,pg}N and redone only when its input changes
# (KAFDO_FRESH=1 records again).

F=$W/full
recs=${KAFDO_RECORDINGS:-3}
boots=${KAFDO_BOOTS:-2}
reps=${KAFDO_REPS:-3}
# A sample carries 127 records (3 KB), and the training load runs some
# 6 G kernel instructions on two harts: at this period a recording is
# about 40 MB, which the console (some 40 KB/s of base64) moves in
# minutes. 100003 gives 190 MB.
period=${KAFDO_PERIOD:-500009}
mkdir -p "$F"
base_sum=$(sha1sum <"$KOUT/vmlinux" | cut -c1-40)
[ -z "${KAFDO_FRESH:-}" ] || rm -f "$F"/train*.data

# The first executable segment of vmlinux: llvm-profgen 19 --kernel takes
# the kernel map's start for it, where RISC-V's _text is above it.
# (awk reads to the end: an early exit would kill the writer, and
# pipefail the script.)
first_exec_seg() {
	"${CROSS}readelf" -lW "$1" |
		awk '$1 == "LOAD" && / [RW ]*E / && !n++ { print $3 }'
}
ktext() { "${CROSS}nm" "$1" | awk '$3 == "_text" && !n++ { print "0x" $1 }'; }

# --- training recordings ----------------------------------------------------
for r in $(seq "$recs"); do
	data=$F/train$r.data
	# A recording belongs to the base kernel it was made of.
	if [ -s "$data" ] && [ "$(cat "$data.kernel" 2>/dev/null)" = "$base_sum" ]; then
		continue
	fi
	say "training recording $r of $recs"
	rm -rf "$F/files$r"
	"$TOP/scripts/run.sh" --config clang --smp 2 --cpu max --run kprofile \
		--append "ctr.kperiod=$period" --timeout 1800 \
		--log "$F/train$r.log" >/dev/null || true
	python3 "$TOP/scripts/guest-files.py" "$F/train$r.log" "$F/files$r" >/dev/null || true
	if [ ! -s "$F/files$r/kprofile.data" ]; then
		result FAIL "training recording $r (see $F/train$r.log)"
		exit 1
	fi
	mv "$F/files$r/kprofile.data" "$data"
	rm -rf "$F/files$r"
	echo "$base_sum" >"$data.kernel"
done
result PASS "$recs training recordings of the clang kernel ($(du -shc "$F"/train*.data | tail -1 | cut -f1))"

# --- profiles: perf-ctr's and llvm-profgen's, each timed --------------------
# The peer's input is perf script's text. The guest's perf (Debian 13's
# 6.12) writes attrs that the host's perf 6.1 refuses ("a more recent
# and unsupported ABI"): perf 7.3 from trixie-backports, in the root.
if ! [ -x "$ROOT/usr/bin/perf" ]; then
	say "installing linux-perf from trixie-backports into the trixie root"
	in_root apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends \
		-t trixie-backports linux-perf >/dev/null ||
		{ result FAIL "linux-perf from trixie-backports in $ROOT"; exit 1; }
fi
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
for r in $(seq "$recs"); do
	data=$F/train$r.data
	sum=$(cat "$data.kernel")
	if [ "$(cat "$F/pc$r.prof.from" 2>/dev/null)" != "$sum" ]; then
		t0=$(now)
		pc aggregate -i "$data" --binary "$KOUT/vmlinux" -f llvm-text \
			-o "$F/pc$r.prof" 2>"$F/pc$r.err" ||
			{ cat "$F/pc$r.err" >&2; result FAIL "perf-ctr aggregate of recording $r"; exit 1; }
		t1=$(now)
		echo "$t0 $t1" | awk '{ printf "%.2f\n", $2 - $1 }' >"$F/pc$r.secs"
		echo "$sum" >"$F/pc$r.prof.from"
	fi
	if [ "$(cat "$F/pg$r.prof.from" 2>/dev/null)" != "$sum" ]; then
		t0=$(now)
		root_exec /usr/bin/perf script -i "$data" --show-mmap-events -F ip,brstack \
			>"$F/pg$r.script" 2>"$F/pg$r.err" ||
			{ cat "$F/pg$r.err" >&2; result FAIL "perf script of recording $r"; exit 1; }
		t1=$(now)
		profgen_text "$F/pg$r.script" "$F/pg$r.lbr" ||
			{ result FAIL "no kernel map in the perf script of recording $r"; exit 1; }
		mv "$F/pg$r.lbr" "$F/pg$r.script"
		t2=$(now)
		root_exec /usr/lib/llvm-19/bin/llvm-profgen --kernel --perfscript="$F/pg$r.script" \
			--binary="$KOUT/vmlinux" --format=text --output="$F/pg$r.prof" \
			2>"$F/pg$r.err" ||
			{ tail -5 "$F/pg$r.err" >&2; result FAIL "llvm-profgen of recording $r"; exit 1; }
		t3=$(now)
		echo "$t0 $t1 $t2 $t3" | awk '{ printf "%.2f %.2f\n", $2 - $1, $4 - $3 }' >"$F/pg$r.secs"
		rm -f "$F/pg$r.script"
		echo "$sum" >"$F/pg$r.prof.from"
	fi
	read -r pgs pgp <"$F/pg$r.secs"
	for p in pc pg; do
		grep -q '^[^ ]' "$F/$p$r.prof" ||
			{ result FAIL "the $p profile of recording $r has no function (see $F/$p$r.err)"; exit 1; }
	done
	result PASS "profiles of recording $r: perf-ctr $(grep -vc '^ ' "$F/pc$r.prof") functions in $(cat "$F/pc$r.secs") s; perf script $pgs s + llvm-profgen $pgp s, $(grep -vc '^ ' "$F/pg$r.prof") functions"
done

# --- a kernel per profile -----------------------------------------------------
# Kbuild rebuilds on a changed command line, not on a changed profile:
# a tree whose profile changed starts over.
kernels=(clang)
for r in $(seq "$recs"); do
	for kind in pc pg; do
		name=clang-$kind$r
		out=$KBUILD/$name
		want=$(cat "$F/$kind$r.prof" "$KOUT/.config" | sha1sum | cut -c1-40)
		if [ "$(cat "$out/.autofdo-sum" 2>/dev/null)" != "$want" ] ||
		   [ ! -s "$out/arch/riscv/boot/Image" ]; then
			rm -rf "$out"
			mkdir -p "$out"
			cp "$F/$kind$r.prof" "$out/autofdo.prof"
			say "building $name (profile $kind$r.prof)"
			KERNEL_OUT=$name "$TOP/scripts/kernel.sh" clang \
				CLANG_AUTOFDO_PROFILE=/mnt/kout/autofdo.prof \
				>"$F/build-$name.log" 2>&1 ||
				{ tail -20 "$F/build-$name.log" >&2; result FAIL "build of $name"; exit 1; }
			grep -q 'fprofile-sample-use=/mnt/kout/autofdo.prof' "$out/fs/.pipe.o.cmd" ||
				{ result FAIL "$name was built without its profile"; exit 1; }
			echo "$want" >"$out/.autofdo-sum"
		fi
		kernels+=("$name")
	done
done
result PASS "${#kernels[@]} kernels: the base and one per profile"

# --- measurement ----------------------------------------------------------------
# Two guests at a time (QEMU runs an -icount guest on one thread).
# A boot's log is kept while its kernel image is the same.
for k in "${kernels[@]}"; do
	img=$KBUILD/$k/arch/riscv/boot/Image
	isum=$(sha1sum <"$img" | cut -c1-40)
	for b in $(seq "$boots"); do
		log=$F/bench-$k-$b.log
		if [ "$(cat "$log.image" 2>/dev/null)" = "$isum" ] &&
		   grep -q '^ctr-guest: kbench exited with 0' "$log"; then
			continue
		fi
		while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
		say "kbench: $k, boot $b of $boots"
		( CTR_IMAGE=$img "$TOP/scripts/run.sh" --config clang --smp 1 --icount \
			--run kbench --append "ctr.reps=$reps norandmaps" --timeout 1800 \
			--log "$log" >/dev/null 2>&1 || true
		  echo "$isum" >"$log.image" ) &
	done
done
wait
for k in "${kernels[@]}"; do
	for b in $(seq "$boots"); do
		log=$F/bench-$k-$b.log
		if ! grep -q '^ctr-guest: kbench exited with 0' "$log" || grep -q '^not ok' "$log"; then
			result FAIL "kbench of $k, boot $b (see $log)"
		fi
	done
done
python3 "$TOP/scripts/kernel-autofdo-table.py" "$F" "$recs" "$boots" | tee "$F/table.txt"

# --- where the gain comes from ------------------------------------------------
# The held-out workloads sampled every KAFDO_KSAMPLE kernel instructions
# (default 10007) in the base kernel and in those of recording 1's
# profiles: perf report's samples of each function, times the period.
ksp=${KAFDO_KSAMPLE:-10007}
for k in clang clang-pc1 clang-pg1; do
	img=$KBUILD/$k/arch/riscv/boot/Image
	isum=$(sha1sum <"$img" | cut -c1-40)
	log=$F/ksample-$k.log
	if [ "$(cat "$log.image" 2>/dev/null)" != "$isum" ] || [ ! -s "$F/ksample-$k.data" ]; then
		while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
		say "kbench: $k, kernel samples of the held-out workloads"
		( CTR_IMAGE=$img "$TOP/scripts/run.sh" --config clang --smp 1 --icount \
			--run kbench --append "ctr.ksample=$ksp norandmaps" --timeout 1800 \
			--log "$log" >/dev/null 2>&1 || true
		  rm -rf "$F/ks-$k"
		  python3 "$TOP/scripts/guest-files.py" "$log" "$F/ks-$k" >/dev/null &&
			mv "$F/ks-$k/ksample.data" "$F/ksample-$k.data" &&
			echo "$isum" >"$log.image"
		  rm -rf "$F/ks-$k" ) &
	fi
done
wait
for k in clang clang-pc1 clang-pg1; do
	if [ -s "$F/ksample-$k.data" ]; then
		root_exec /usr/bin/perf report -i "$F/ksample-$k.data" \
			--vmlinux "$KBUILD/$k/vmlinux" --sort sym -n --stdio -q \
			2>/dev/null >"$F/ksample-$k.txt"
	else
		result FAIL "kernel samples of the held-out workloads in $k (see $F/ksample-$k.log)"
	fi
done
python3 "$TOP/scripts/kernel-autofdo-table.py" --functions "$F" "$ksp" |
	tee "$F/functions.txt"

# --- how fast: profile generation, perf-ctr against llvm-profgen --------------
# Five runs of each on recording 1 with nothing else running, the median
# of each: perf-ctr aggregate from perf.data; perf script (perf 7.3) and
# llvm-profgen --kernel from the same file (the start of its kernel map
# moved as above).
times() {	# N COMMAND...: the median wall time of N runs, in seconds
	local n=$1 _; shift
	for _ in $(seq "$n"); do
		t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
		echo "$t0 $t1" | awk '{ print $2 - $1 }'
	done | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
data=$F/train1.data
root_exec /usr/bin/perf script -i "$data" --show-mmap-events -F ip,brstack \
	2>/dev/null >"$F/bench.raw"
profgen_text "$F/bench.raw" "$F/bench.script"
rm -f "$F/bench.raw"
t_pc=$(times 5 pc aggregate -i "$data" --binary "$KOUT/vmlinux" -f llvm-text -o "$F/bench.pc")
t_ps=$(times 5 root_exec /usr/bin/perf script -i "$data" --show-mmap-events -F ip,brstack)
t_pg=$(times 5 root_exec /usr/lib/llvm-19/bin/llvm-profgen --kernel \
	--perfscript="$F/bench.script" --binary="$KOUT/vmlinux" --format=text \
	--output="$F/bench.pg")
rm -f "$F/bench.script" "$F/bench.pc" "$F/bench.pg"
echo "$t_pc $t_ps $t_pg" | awk -v size="$(du -h "$data" | cut -f1)" '{
	printf "\nprofile generation, recording 1 (%s), median of 5 runs: perf-ctr aggregate %.3f s;\n", size, $1
	printf "perf script %.3f s + llvm-profgen %.3f s = %.3f s: llvm-profgen alone %.1fx perf-ctr, with perf script %.1fx\n", $2, $3, $2 + $3, $3 / $1, ($2 + $3) / $1
}' | tee -a "$F/functions.txt"
exit "$rc"
