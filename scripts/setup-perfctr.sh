#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What tools/perf-ctr and its tests need on the host. Idempotent.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The AutoFDO consumers (compilers, create_gcov, llvm-profgen) that the
# profile tests feed are set up by their own script.
[ -x "$TOP/scripts/setup-afdo.sh" ] && "$TOP/scripts/setup-afdo.sh"
exit 0
