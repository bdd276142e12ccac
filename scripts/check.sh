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

guest() {	# NAME RUN.SH-ARGS...
	guest_run "$@"
	guest_results "$1"
}

stage_start "setup"
"$TOP/scripts/setup.sh" >"$OUT/setup.log" 2>&1 ||
	{ cat "$OUT/setup.log"; die "setup failed"; }
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

stage_start "perf-ctr (host)"
# tools/perf-ctr/tests/run.sh prints one "PASS|FAIL|SKIP name" line per test.
pc_fail=0
while read -r v rest; do
	case $v in
	PASS | SKIP) record "$v" "perf-ctr: $rest" ;;
	FAIL) record FAIL "perf-ctr: $rest"; pc_fail=1 ;;
	RC) [ "$rest" = 0 ] || [ $pc_fail = 1 ] ||
		record FAIL "perf-ctr tests exited $rest (see out/check/perf-ctr.log)" ;;
	esac
done < <(FUZZ_SECONDS=${FUZZ_SECONDS:-20} "$TOP/tools/perf-ctr/tests/run.sh" \
	2>"$OUT/perf-ctr.log"; echo "RC $?")
grep -q . "$OUT/perf-ctr.log" && sed 's/^/#   /' "$OUT/perf-ctr.log" | tail -20
stage_end

stage_start "static checks of the series"
run_step checkpatch "$TOP/scripts/lint.sh" checkpatch
run_step patches-apply "$TOP/scripts/lint.sh" apply
stage_end

stage_start "kernel build"
kernel_ok=1
run_step kernel-build "$TOP/scripts/kernel.sh" ctr || kernel_ok=0
run_step kernel-W1-sparse "$TOP/scripts/lint.sh" build-warnings
run_step guest-binaries "$TOP/scripts/guest-bins.sh" || kernel_ok=0
stage_end

if [ $kernel_ok = 1 ]; then
	stage_start "guest: -cpu max (CTR, AIA)"
	guest max --cpu max --run check --append "ctr.isa=yes ctr.depth=256 ctr.files=1"
	stage_end

	# perf-ctr on what the Debian perf recorded in that guest.
	stage_start "perf-ctr on guest recordings"
	if python3 "$TOP/scripts/guest-files.py" "$OUT/max.log" "$OUT/max-files" \
		>/dev/null 2>"$OUT/e2e.log"; then
		while read -r v rest; do
			case $v in
			PASS | FAIL | SKIP) record "$v" "perf-ctr $rest" ;;
			esac
		done < <(python3 "$TOP/tools/perf-ctr/tests/e2e.py" "$OUT/max-files" \
			"$CTR_CACHE/guest-bin" 2>>"$OUT/e2e.log")
	else
		record FAIL "perf-ctr e2e: guest recordings (see out/check/e2e.log)"
	fi
	stage_end

	# Without AIA every overflow arrives frozen; with it some are
	# serviced inside a timer trap and arrive unfrozen. -icount makes
	# counter overflow exact, so that this run can also require a sample
	# for every period, beside a second sampling event too.
	# -icount runs the guest in one host thread: the guest without CTR
	# and a round of the stress test (migrations, concurrent filters,
	# CPU hotplug) boot on the other core meanwhile.
	stage_start "guests: -cpu max,smaia=false,ssaia=false -icount (CTR, no AIA); -cpu max,smctr=false,ssctr=false (no CTR); stress"
	{
		guest_run noctr --cpu max,smctr=false,ssctr=false --run check \
			--append "ctr.isa=no"
		guest_run stress --cpu max --run stress --append "ctr.stress=1"
	} &
	others=$!
	guest noaia --cpu max,smaia=false,ssaia=false --icount --run check \
		--append "ctr.isa=yes ctr.depth=256 ctr.exact=1"
	wait $others
	guest_results noctr
	guest_results stress
	stage_end
else
	record FAIL "guest tests (no kernel to boot)"
fi

say "make check: $(($(date +%s) - t_all)) s"
if [ $fail != 0 ]; then
	echo "failures:"
	printf '%s\n' "${failures[@]}"
fi
echo "$pass passed, $fail failed, $skipped skipped"
[ $fail = 0 ]
