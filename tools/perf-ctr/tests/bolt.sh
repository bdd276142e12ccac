#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bolt.sh FILES BINS CAPS: perf-ctr aggregate -f bolt on the guest's
# recording of boltprog (FILES/bolt.data: perf record -b of a static
# riscv64 program linked with --emit-relocs, BINS/boltprog), checked
# against llvm-bolt 19 (bolt-19):
#  - perf2bolt -pa reads the profile with no trace that mismatches the
#    binary's code or leaves its functions;
#  - perf2bolt reading the perf.data itself (through perf 7.3's script,
#    which it runs as `perf`) writes the same fdata, mispredicts
#    included;
#  - llvm-bolt rewrites boltprog with it.
# CAPS is the guest's ctr.caps= (mispred=0: a hart without mispredict
# bits, whose profile has none). Prints PASS/FAIL/SKIP lines.
set -uo pipefail
files=$1 bins=$2 caps=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$top/scripts/lib.sh"
PC=${PERF_CTR:-$top/out/perf-ctr/perf-ctr}
bolt=/usr/lib/llvm-19/bin
data=$files/bolt.data
prog=$bins/boltprog
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

if [ ! -x "$bolt/perf2bolt" ] || [ ! -x "$bolt/llvm-bolt" ]; then
	echo "SKIP BOLT: perf-ctr aggregate -f bolt (no llvm-bolt 19: scripts/setup-afdo.sh installs bolt-19)"
	exit 0
fi
if [ ! -s "$data" ] || [ ! -x "$prog" ]; then
	echo "FAIL BOLT: the guest's recording of boltprog ($data) and the program ($prog)"
	exit 0
fi

# The profile.
if ! "$PC" aggregate -i "$data" --binary "$prog" -f bolt -o "$w/bolt.pre" 2>"$w/agg.err"; then
	sed 's/^/# /' "$w/agg.err"
	echo "FAIL BOLT: perf-ctr aggregate -f bolt"
	exit 0
fi
read -r nb nt ms < <(awk '$1 == "B" { b++; m += $5 } $1 == "F" || $1 == "f" { t++ }
	END { print b + 0, t + 0, m + 0 }' "$w/bolt.pre")
case ,$caps, in
*,mispred=0,*) want_misp=0; misp_ok=$((ms == 0)) ;;
*) want_misp=1; misp_ok=$((ms > 0)) ;;
esac
if [ "$nb" -gt 0 ] && [ "$nt" -gt 0 ] && [ $misp_ok = 1 ]; then
	echo "PASS BOLT: perf-ctr aggregate -f bolt: $nb branches ($ms mispredicted), $nt traces"
else
	echo "FAIL BOLT: perf-ctr aggregate -f bolt: $nb branches ($ms mispredicted; the hart has mispredict bits: $want_misp), $nt traces"
fi

# perf2bolt takes it: every trace runs through the binary's own code.
"$bolt/perf2bolt" -pa -p "$w/bolt.pre" -o "$w/pa.fdata" "$prog" >"$w/pa.log" 2>&1
mis=$(sed -n 's/.*traces mismatching disassembled function contents: \([0-9]*\).*/\1/p' "$w/pa.log")
out=$(sed -n 's/.*[Oo]ut of range traces involving unknown regions: \([0-9]*\).*/\1/p' "$w/pa.log")
if [ -s "$w/pa.fdata" ] && [ "$mis" = 0 ] && [ "$out" = 0 ]; then
	echo "PASS BOLT: perf2bolt -pa reads it: 0 traces mismatch boltprog's code, 0 leave its functions ($(wc -l <"$w/pa.fdata") fdata lines)"
else
	grep -E 'PERF2BOLT|ERROR' "$w/pa.log" | sed 's/^/# /'
	echo "FAIL BOLT: perf2bolt -pa reads it (${mis:-?} traces mismatching, ${out:-?} out of range)"
fi

# The same fdata as perf2bolt's own reading of the perf.data, which runs
# `perf script`: perf 7.3 of the trixie root (Debian 12's perf cannot
# read a riscv64 branch stack recording's every field).
if [ -x "$ROOT/usr/bin/perf" ]; then
	mkdir -p "$w/bin"
	printf '#!/bin/sh\nexec %s "%s/usr/bin/perf" "$@"\n' \
		"${ROOT_LOADER[*]}" "$ROOT" >"$w/bin/perf"
	chmod +x "$w/bin/perf"
	(cd "$w" && PATH=$w/bin:$PATH "$bolt/perf2bolt" -p "$data" -o "$w/p.fdata" \
		"$prog" >"$w/p.log" 2>&1)
	if [ -s "$w/p.fdata" ] && cmp -s "$w/p.fdata" "$w/pa.fdata"; then
		echo "PASS BOLT: perf2bolt reading the perf.data itself (perf 7.3 script) writes the same fdata"
	else
		grep -E 'PERF2BOLT: (read|trace|out)|ERROR' "$w/p.log" | sed 's/^/# /'
		diff "$w/p.fdata" "$w/pa.fdata" | head -5 | sed 's/^/# /'
		echo "FAIL BOLT: perf2bolt reading the perf.data itself (perf 7.3 script) writes the same fdata"
	fi
else
	echo "SKIP BOLT: perf2bolt reading the perf.data itself (no perf 7.3 in $ROOT: scripts/perf73.sh)"
fi

# llvm-bolt lays boltprog out by it.
if "$bolt/llvm-bolt" "$prog" -o "$w/boltprog.bolt" -data "$w/pa.fdata" \
	-reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions \
	>"$w/bolt.log" 2>&1 &&
   n=$(sed -n 's/^BOLT-INFO: \([0-9]*\) out of \([0-9]*\) functions in the binary.*profile$/\1 of \2/p' "$w/bolt.log") &&
   [ -n "$n" ] && [ "${n%% *}" -gt 0 ]; then
	echo "PASS BOLT: llvm-bolt rewrites boltprog with it ($n functions profiled)"
else
	grep -E 'BOLT-(ERROR|WARNING)' "$w/bolt.log" | head -5 | sed 's/^/# /'
	echo "FAIL BOLT: llvm-bolt rewrites boltprog with it"
fi
