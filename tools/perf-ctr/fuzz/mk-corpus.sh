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
# perf record's rounds (FINISHED_ROUND), in a file and a pipe; a build id
# feature (the tool itself is the ELF: one with a build id); a MMAP2 that
# comes after the rounds said every record up to its time was in.
"$pc" synth -o "$out/file-rounds" --samples 6 --depth 2 --round 2
python3 "$here/to-pipe.py" "$out/file-rounds" "$out/pipe-rounds"
"$pc" synth -o "$out/file-build-id" --samples 2 --depth 2 --binary "$pc"
python3 - "$here/../tests" "$out/file-late-round" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import machine as m
m.perf_data(sys.argv[2], [
    m.mmap2(300, 10, '/opt/beta'), m.sample(300, 30), m.finished_round(),
    m.sample(300, 40), m.finished_round(), m.finished_round(),
    m.mmap2(300, 35, '/usr/bin/alpha'), m.sample(300, 50)])
PY
