#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What tools/perf-ctr and its tests need on the host. Idempotent.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
