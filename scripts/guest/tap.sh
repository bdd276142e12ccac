# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the guest's shell tests. Sourced.
TAP_N=0
ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N $*"; }
not_ok() { TAP_N=$((TAP_N + 1)); echo "not ok $TAP_N $*"; }
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N $1 # SKIP $2"; }
check() { name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
note() { echo "# $*"; }
# The plan, after the results: the host fails a stream that falls short.
done_testing() { echo "1..$TAP_N"; }

# On a hart whose driver offers no branch stack: perf record -b is refused
# with perf's own message.
check_branch_stack_refused() {
	out=$(perf record -b -o /tmp/b.data -- /ctr/spin 1000 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# perf: /' | head -5
	check "perf record -b is refused cleanly" \
		eval '[ $rc -ne 0 ] && echo "$out" | grep -q "branch stack sampling"'
}

# samples FILE: how many samples a perf record wrote to FILE.
samples() {
	perf report --stats -i "$1" 2>/dev/null |
		awk '/SAMPLE events/ { n = $3 } END { print n + 0 }'
}

# sampled FILE CMD...: run CMD, a perf record into FILE, again while it
# exits 0 with no sample in FILE, four times more at most; CMD's status.
# Without -icount QEMU raises overflow interrupts from its main-loop
# thread, which a loaded host stops for about 100 ms, longer than the
# short runs compute (docs/testing.md); the -icount guest never retries.
# Each retry is noted on the console, whatever CMD's output is sent to.
sampled() {
	_s_f=$1 _s_n=0
	shift
	while :; do
		"$@"
		_s_rc=$?
		[ $_s_rc = 0 ] && [ "$(param exact)" != 1 ] && [ $_s_n -lt 4 ] &&
			[ "$(samples "$_s_f")" = 0 ] || return $_s_rc
		_s_n=$((_s_n + 1))
		echo "# $_s_f: no sample, recorded again ($_s_n)" >/dev/console
	done
}

# The value of ctr.NAME=VALUE on the kernel command line.
param() {
	for arg in $(cat /proc/cmdline); do
		case $arg in ctr.$1=*) echo "${arg#ctr."$1"=}"; return ;; esac
	done
}
