#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test of the project, ending in "N passed, N failed,
# N skipped" and a non-zero exit on any failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$TOP"

OUT=${OUT:-$TOP/out/check}
rm -rf "$OUT"
mkdir -p "$OUT"
pass=0 fail=0 skipped=0 t_all=$(date +%s)
# Failures and the lines that explain them, repeated at the end: CI
# shows only the tail of a long run.
failures=()

record() {	# VERDICT NAME
	case $1 in
	PASS) pass=$((pass + 1)) ;;
	FAIL) fail=$((fail + 1)); failures+=("FAIL $2") ;;
	SKIP) skipped=$((skipped + 1)) ;;
	esac
	echo "$1 $2"
}

# tool_results PREFIX NAME CMD...: record the PASS, FAIL and SKIP lines
# of CMD, a script of host checks, under PREFIX, and show its other
# lines. A CMD that gives no result, or exits non-zero with no FAIL
# (a crash), fails on its own: its checks must not vanish unseen.
tool_results() {
	local pre=$1 name=$2 out rc=0 n=0 failed=0 v rest
	shift 2
	out=$("$@") || rc=$?
	while read -r v rest; do
		case $v in
		PASS | SKIP) record "$v" "$pre$rest"; n=$((n + 1)) ;;
		FAIL) record FAIL "$pre$rest"; n=$((n + 1)); failed=1 ;;
		'') ;;
		*) echo "$v $rest" ;;
		esac
	done <<<"$out"
	if [ $n = 0 ] || { [ $rc != 0 ] && [ $failed = 0 ]; }; then
		record FAIL "$pre$name: exited $rc after $n results (see out/check/)"
	fi
}

# A stage's command must succeed; its output goes to out/check/NAME.log.
run_step() {	# NAME COMMAND...
	local name=$1; shift
	if "$@" >"$OUT/$name.log" 2>&1; then
		record PASS "$name"
	else
		record FAIL "$name (see out/check/$name.log)"
		tail -20 "$OUT/$name.log" | sed 's/^/#   /'
		return 1
	fi
}

guest_run() {	# NAME RUN.SH-ARGS...: boot, leave the console in NAME.log
	local name=$1; shift
	"$TOP/scripts/run.sh" --timeout 900 --log "$OUT/$name.log" "$@" >/dev/null 2>&1
}

guest_results() {	# NAME
	while read -r v rest; do
		case $v in
		PASS | FAIL | SKIP) record "$v" "$rest" ;;
		*) echo "$v $rest"; failures+=("$v $rest") ;;
		esac
	done < <(python3 "$TOP/scripts/results.py" "$1" "$OUT/$1.log")
}

stage_start "setup"
"$TOP/scripts/setup.sh" >"$OUT/setup.log" 2>&1 ||
	{ cat "$OUT/setup.log"; die "setup failed"; }
stage_end

# The QEMU series' own tests (bare-metal, a few seconds) and QEMU's
# checkpatch over it.
stage_start "QEMU series: tests/tcg/riscv64 and checkpatch"
while read -r v rest; do
	case $v in
	PASS | FAIL | SKIP) record "$v" "$rest" ;;
	*) echo "$v $rest" ;;
	esac
done < <("$TOP/scripts/qemu.sh" test 2>"$OUT/qemu-tests.log")
run_step qemu-checkpatch "$TOP/scripts/qemu.sh" lint
stage_end

stage_start "host unit tests"
python3 -m unittest -v tests/host/test_*.py >"$OUT/host.log" 2>&1
while read -r t v; do
	case $v in
	ok) record PASS "host: $t" ;;
	skipped*) record SKIP "host: $t ($v)" ;;
	*) record FAIL "host: $t ($v)" ;;
	esac
done < <(sed -n 's/^\(test[a-z_0-9]*\) (.*) \.\.\. \(.*\)$/\1 \2/p' "$OUT/host.log")
grep -q '^OK' "$OUT/host.log" || record FAIL "host unit tests (see out/check/host.log)"
stage_end

# perf-ctr's host test results, from the file its background run wrote.
perf_ctr_results() {
	# tools/perf-ctr/tests/run.sh prints one "PASS|FAIL|SKIP name" line
	# per test.
	local pc_fail=0 v rest
	while read -r v rest; do
		case $v in
		PASS | SKIP) record "$v" "perf-ctr: $rest" ;;
		FAIL) record FAIL "perf-ctr: $rest"; pc_fail=1 ;;
		RC) [ "$rest" = 0 ] || [ $pc_fail = 1 ] ||
			record FAIL "perf-ctr tests exited $rest (see out/check/perf-ctr.log)" ;;
		esac
	done <"$OUT/perf-ctr.results"
	grep -q . "$OUT/perf-ctr.log" && sed 's/^/#   /' "$OUT/perf-ctr.log" | tail -20
}

# The reduced hart, and what its caps/ files must say.
REDUCED_CPU=max,ctr-depth-min=16,ctr-depth-max=16,ctr-misp=off,ctr-cc=off,ctr-ctl-mask=0
REDUCED_CAPS=types=1,mispred=0,cycles=0,call_stack=0,freeze=1,depths=16,hw_filters=

static_checks() {
	run_step checkpatch "$TOP/scripts/lint.sh" checkpatch
	run_step patches-apply "$TOP/scripts/lint.sh" apply
}

# perf-ctr's host tests (one core: build, golden files, a fuzz run) beside
# the kernel build. The guest programs come after both: they include
# perf-ctr's riscv64 build.
stage_start "perf-ctr (host tests) and kernel build, then perf 7.3"
(FUZZ_SECONDS=${FUZZ_SECONDS:-20} "$TOP/tools/perf-ctr/tests/run.sh" \
	>"$OUT/perf-ctr.results" 2>"$OUT/perf-ctr.log"
	echo "RC $?" >>"$OUT/perf-ctr.results") &
pc=$!
kernel_ok=1
run_step kernel-build "$TOP/scripts/kernel.sh" ctr || kernel_ok=0
run_step kernel-W1-sparse "$TOP/scripts/lint.sh" build-warnings
wait $pc
perf_ctr_results
run_step guest-binaries "$TOP/scripts/guest-bins.sh" || kernel_ok=0
# perf from the same 7.3 tree, for the guest beside Debian's (its own
# branch tests run in the -icount guest); without it they skip.
[ $kernel_ok = 1 ] && run_step perf-7.3 "$TOP/scripts/perf73.sh"
stage_end

if [ $kernel_ok = 1 ]; then
	# Every guest boots the same initramfs: pack it once, before they
	# start side by side.
	run_step initramfs "$TOP/scripts/mkinitramfs.sh" \
		"$CTR_CACHE/initramfs-$GUEST_SUITE.cpio.gz"

	# -cpu max (CTR, AIA): some overflows arrive unfrozen, serviced
	# inside a timer trap. -cpu max,smaia=false,ssaia=false -icount:
	# every overflow arrives frozen, and exact counting lets that run
	# also require a sample for every period, beside a second sampling
	# event too. -icount runs its guest in one host thread and takes
	# longest, so it boots first; the static checks of the series and
	# the other guests (AIA, no CTR, no overflow interrupt, a round of
	# the stress test, make nested) take turns on the other core.
	stage_start "guests: -cpu max,smaia=false,ssaia=false -icount (CTR, no AIA), beside the static checks of the series, -cpu max (CTR, AIA), -cpu max,smctr=false,ssctr=false (no CTR), -cpu max,sscofpmf=false (CTR, no overflow interrupt), stress, a hart without TYPE and make nested"
	# 900 s fit it on CI's machines; it ran out of them, before the
	# end of perf 7.3's record_lbr.sh, on a slower one: 1800. The -cpu
	# max hart's check comes in two boots, one on each core: its
	# kselftests and KVM tests, and after the -icount guest on this
	# core, its shell tests and perf (with the recordings the host
	# checks below).
	(guest_run noaia --cpu max,smaia=false,ssaia=false --icount --run check \
		--append "ctr.isa=yes ctr.depth=256 ctr.exact=1" --timeout 1800
	 guest_run maxperf --cpu max --run check \
		--append "ctr.isa=yes ctr.depth=256 ctr.files=1 ctr.part=perf") &
	exact=$!
	# Meanwhile, on the other core:
	static_checks
	guest_run max --cpu max --run check \
		--append "ctr.isa=yes ctr.depth=256 ctr.part=kernel"
	guest_run noctr --cpu max,smctr=false,ssctr=false --run check \
		--append "ctr.isa=no"
	# Ssctr without overflow interrupts: CTR stays unused, and says so.
	guest_run nosampling --cpu max,sscofpmf=false --smp 2 --run nosampling
	guest_run stress --cpu max --run stress --append "ctr.stress=1"
	# A hart with what Smctr makes mandatory and little more: one depth,
	# no mispredict bit, no cycle count, none of the optional sctrctl
	# fields (no filters, no call stacks), the patched QEMU's properties.
	# What does not depend on the hart's parts the -cpu max boot runs.
	guest_run reduced --cpu "$REDUCED_CPU" --run check \
		--append "ctr.isa=yes ctr.depth=16 ctr.files=1 ctr.scope=hart ctr.caps=$REDUCED_CAPS"
	# Every part but TYPE: type filters where the hart applies them.
	guest_run notype --cpu max,ctr-type=off --run notype
	# perf record -b in a nested Linux guest (make nested, about 2.5
	# minutes): fits in what the -icount guest leaves of this core.
	nested_rc=0
	"$TOP/scripts/nested.sh" >"$OUT/nested.log" 2>&1 || nested_rc=$?
	wait $exact
	for g in max maxperf noaia noctr nosampling stress reduced notype; do
		guest_results $g
	done
	while read -r v rest; do
		record "$v" "$rest"
	done < <(grep -E '^(PASS|FAIL|SKIP) ' "$OUT/nested.log")
	if [ $nested_rc != 0 ] && ! grep -q '^FAIL ' "$OUT/nested.log"; then
		record FAIL "nested: make nested stopped early ($(grep -m1 '^error:' "$OUT/nested.log"))"
	fi
	stage_end

	# perf-ctr on what the Debian perf recorded in the -cpu max guest.
	stage_start "perf-ctr on guest recordings"
	# What the Debian perf recorded in the -cpu max guest and on the
	# reduced hart (its name prefixes its results, CAPS what it has).
	guest_recordings() {	# GUEST PREFIX CAPS
		local g=$1 pre=$2 caps=$3 f
		if ! python3 "$TOP/scripts/guest-files.py" "$OUT/$g.log" "$OUT/$g-files" \
			>/dev/null 2>>"$OUT/e2e.log"; then
			record FAIL "${pre}perf-ctr e2e: guest recordings (see out/check/e2e.log)"
			return
		fi
		tool_results "${pre}perf-ctr " e2e.py python3 \
			"$TOP/tools/perf-ctr/tests/e2e.py" "$OUT/$g-files" \
			"$CTR_CACHE/guest-bin" "$caps" 2>>"$OUT/e2e.log"
		# perf record -a -b and -a -j any,u over two processes on one
		# CPU: each record in the sampled process's own mappings.
		for f in "sys:-b" "sysu:-j any,u"; do
			tool_results "$pre" sysattr.py python3 "$TOP/scripts/sysattr.py" \
				"$OUT/$g-files/${f%%:*}.data" \
				"perf record -a ${f#*:}" spin sled
		done
		# Programs started through a shell and wrappers, two at one
		# address, a PIE: perf-ctr aggregate per program against the
		# recording's own COMM, FORK and MMAP2 events.
		tool_results "${pre}perf-ctr " attrib.py python3 \
			"$TOP/tools/perf-ctr/tests/attrib.py" \
			"$OUT/$g-files/mix.data" "$CTR_CACHE/guest-bin" \
			"perf record -a -b, programs started by a shell" \
			workload sled spin
		# perf-ctr's BOLT profile against llvm-bolt's own tools.
		tool_results "${pre}perf-ctr " bolt.sh \
			"$TOP/tools/perf-ctr/tests/bolt.sh" "$OUT/$g-files" \
			"$CTR_CACHE/guest-bin" "$caps"
		# Its ranges and branches against llvm-profgen's from perf 7.3.
		tool_results "${pre}perf-ctr " profgen.sh \
			"$TOP/tools/perf-ctr/tests/profgen.sh" \
			"$OUT/$g-files/bolt.data" "$CTR_CACHE/guest-bin/boltprog"
	}
	: >"$OUT/e2e.log"
	guest_recordings maxperf "" ""
	guest_recordings reduced "reduced hart: " "$REDUCED_CAPS"
	stage_end

	# Kernel AutoFDO, small: the clang kernel (built once, about 12
	# minutes cold) records its own branches in the guest, perf-ctr makes
	# the LLVM profile of its vmlinux, llvm-profdata reads it and clang
	# builds a kernel file with it.
	stage_start "kernel AutoFDO round trip (the clang kernel)"
	tool_results "" "kernel AutoFDO round trip" \
		"$TOP/scripts/kernel-autofdo.sh" roundtrip 2>"$OUT/kautofdo.log"
	stage_end
else
	stage_start "static checks of the series"
	static_checks
	stage_end
	record FAIL "guest tests (no kernel to boot)"
fi

say "make check: $(($(date +%s) - t_all)) s"
if [ $fail != 0 ]; then
	echo "failures:"
	printf '%s\n' "${failures[@]}"
fi
# Where a guest's console went silent for minutes (run.sh): QEMU's
# threads then, for the next look at a stuck guest.
for h in "$OUT"/*.log.hang; do
	[ -s "$h" ] || continue
	echo "silent console: ${h##*/}"
	head -n 40 "$h" | sed 's/^/  /'
done
echo "$pass passed, $fail failed, $skipped skipped"
[ $fail = 0 ]
