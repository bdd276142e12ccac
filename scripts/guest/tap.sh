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

# The value of ctr.NAME=VALUE on the kernel command line.
param() {
	for arg in $(cat /proc/cmdline); do
		case $arg in ctr.$1=*) echo "${arg#ctr."$1"=}"; return ;; esac
	done
}
