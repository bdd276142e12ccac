#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of perf-ctr: builds the tool, then runs every tests/t-*.sh,
# or those named (run.sh t-cs.sh ...). Each prints "PASS name", "FAIL
# name" or "SKIP name (reason)" lines.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rc=0
tests=("$here"/t-*.sh)
[ $# = 0 ] || tests=("${@/#/$here/}")
for t in "${tests[@]}"; do
	[ -e "$t" ] || continue
	bash "$t" || rc=1
done
exit $rc
