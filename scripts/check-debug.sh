#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: make check's -cpu max guest under the debug kernel
# (KASAN, PROVE_LOCKING, DEBUG_PREEMPT, DEBUG_ATOMIC_SLEEP), its two
# halves side by side as make check boots them: the KUnit suites, the
# kselftests and the KVM tests in one, the shell tests and perf in the
# other. Any WARN, BUG, lockdep, KASAN or RCU report in either kernel log
# fails it. Too slow for make check (the perf half takes most of an
# hour), so a target of its own; ends in "N passed, N failed, N skipped".
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$TOP"

OUT=${OUT:-$TOP/out/check-debug}
rm -rf "$OUT"
mkdir -p "$OUT"
t0=$(date +%s)

"$TOP/scripts/kernel.sh" debug >"$OUT/kernel.log" 2>&1 ||
	{ tail -20 "$OUT/kernel.log"; die "the debug kernel does not build"; }

boot() {	# NAME PART TIMEOUT
	"$TOP/scripts/run.sh" --config debug --cpu max --run check \
		--timeout "$3" --log "$OUT/$1.log" \
		--append "ctr.isa=yes ctr.depth=256 ctr.part=$2" >/dev/null 2>&1
}
boot kernel kernel 3600 &
k=$!
boot perf perf 5400
wait $k

pass=0 fail=0 skipped=0
for g in kernel perf; do
	while read -r v rest; do
		case $v in
		PASS) pass=$((pass + 1)) ;;
		FAIL) fail=$((fail + 1)) ;;
		SKIP) skipped=$((skipped + 1)) ;;
		*) continue ;;
		esac
		echo "$v debug $g: $rest"
	done < <(python3 "$TOP/scripts/results.py" "$g" "$OUT/$g.log")
done
say "make check-debug: $(($(date +%s) - t0)) s"
echo "$pass passed, $fail failed, $skipped skipped"
[ $fail = 0 ]
