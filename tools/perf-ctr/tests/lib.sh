# SPDX-License-Identifier: GPL-2.0
# Sourced by perf-ctr's tests (t-*.sh): where things are, and how a test
# says how it went, one "PASS name", "FAIL name" or "SKIP name (why)"
# line each. rc is 1 once anything failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
top=$(cd "$src/../.." && pwd)
out=${O:-$top/out/perf-ctr}
rc=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; rc=1; }
skip() { echo "SKIP $1 ($2)"; }

# need_tool NAME: the built perf-ctr ($pc), or FAIL NAME and exit.
need_tool() {
	pc=$out/perf-ctr
	if [ ! -x "$pc" ]; then
		fail "$1 (no $pc: run t-build.sh first)"
		exit 1
	fi
}

# cross_setup NAME: build perf-ctr, have the riscv64 cross compiler
# ($CROSS_CC) and work in a temporary directory; or FAIL/SKIP NAME and
# exit. Needs scripts/lib.sh.
cross_setup() {
	CROSS_CC=${CROSS}gcc
	make -s -C "$top/tools/perf-ctr" -j2 >&2 || { fail "$1-build"; exit 1; }
	command -v "$CROSS_CC" >/dev/null ||
		{ skip "$1" "no $CROSS_CC: scripts/setup.sh host"; exit 0; }
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-$1.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	cd "$tmp" || exit 1
}

# llvm19_setup NAME TESTS...: clang 19, llvm-profgen 19 ($profgen) and
# perf 7.3 of the trixie root, and a temporary directory in it ($rtmp,
# NAME.XXXXXX; rcc CMD runs CMD there); or SKIP each of TESTS and exit.
llvm19_setup() {
	local name=$1 why='' t
	shift
	profgen=/usr/lib/llvm-19/bin/llvm-profgen
	if [ "$(id -u)" != 0 ] || [ ! -x "$ROOT/usr/bin/clang-19" ]; then
		why="no clang-19 in $ROOT (scripts/setup-afdo.sh) or not root"
	elif [ ! -x "$ROOT$profgen" ]; then
		why="no llvm-profgen 19 in $ROOT: scripts/setup-afdo.sh"
	elif [ ! -x "$ROOT/usr/bin/perf" ]; then
		why="no perf 7.3 in $ROOT: scripts/setup-afdo.sh"
	fi
	if [ -n "$why" ]; then
		for t in "$@"; do skip "$t" "$why"; done
		exit $rc
	fi
	rtmp=$(mktemp -d "$ROOT/tmp/$name.XXXXXX")
	trap 'rm -rf "$tmp" "$rtmp"' EXIT
}
rcc() { in_root sh -c "cd ${rtmp#"$ROOT"} && $*"; }
