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

# The value of ctr.NAME=VALUE on the kernel command line.
param() {
	for arg in $(cat /proc/cmdline); do
		case $arg in ctr.$1=*) echo "${arg#ctr."$1"=}"; return ;; esac
	done
}
