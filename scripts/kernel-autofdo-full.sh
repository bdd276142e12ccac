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
profile_speed "$F/train1.data" "recording 1" "$F" | tee -a "$F/functions.txt"
exit "$rc"
