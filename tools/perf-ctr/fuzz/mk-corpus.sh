#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate the fuzz corpus: tiny perf.data files written by perf-ctr
# synth (file mode) and the same turned into pipe mode. Usage:
#   fuzz/mk-corpus.sh PERF_CTR_BINARY
set -euo pipefail
pc=$1
here=$(cd "$(dirname "$0")" && pwd)
out=$here/corpus
mkdir -p "$out"
"$pc" synth -o "$out/file-d2" --samples 2 --depth 2
"$pc" synth -o "$out/file-d1-nohwidx" --samples 1 --depth 1 --no-hw-idx
"$pc" synth -o "$out/file-2events" --samples 2 --depth 3 --events 2 --seed 7
"$pc" synth -o "$out/file-d0" --samples 1 --depth 0
python3 "$here/to-pipe.py" "$out/file-d2" "$out/pipe-d2"
python3 "$here/to-pipe.py" "$out/file-2events" "$out/pipe-2events"
