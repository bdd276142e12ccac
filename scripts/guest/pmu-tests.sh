# SPDX-License-Identifier: GPL-2.0
#
# Two counters of one event: each counts it, each samples it. QEMU gave an
# event to the first counter programmed with it and left every other one
# at 0, never overflowing (fixed by qemu/patches/0006). Sourced by
# /ctr/check on every boot but the reduced hart's (its counters are
# those of the -cpu max boots).

# stat_of FILE NAME: the count perf stat -x, wrote for event NAME, or 0.
stat_of() { awk -F, -v e="$2" '$3 == e { print $1 + 0; n++ } END { if (!n) print 0 }' "$1"; }

perf stat -x, -o /tmp/two.csv -e cpu/instructions,name=ia/u,cpu/instructions,name=ib/u \
	-e cpu/cycles,name=ca/u,cpu/cycles,name=cb/u -- /ctr/spin 2000000 >/dev/null 2>&1
ia=$(stat_of /tmp/two.csv ia) ib=$(stat_of /tmp/two.csv ib)
ca=$(stat_of /tmp/two.csv ca) cb=$(stat_of /tmp/two.csv cb)
note "two counters each: instructions:u $ia and $ib, cycles:u $ca and $cb"
# Both count the same instructions; without -icount they are read apart
# in host time, which QEMU's counts follow: within a tenth.
close() { [ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ $(($1 / 10)) -ge $(($1 - $2)) ] &&
	[ $(($2 / 10)) -ge $(($2 - $1)) ]; }
check "perf stat: two counters of instructions:u count alike" close "$ia" "$ib"
check "perf stat: two counters of cycles:u count alike" close "$ca" "$cb"
perf stat -x, -o /tmp/two.csv -e cpu/instructions,name=iu/u,cpu/instructions,name=ik/k \
	-- /ctr/spin 2000000 >/dev/null 2>&1
iu=$(stat_of /tmp/two.csv iu) ik=$(stat_of /tmp/two.csv ik)
note "instructions:u $iu, instructions:k $ik"
check "perf stat: instructions:u and instructions:k both count" [ "$iu" -gt 0 -a "$ik" -gt 0 ]

sampled /tmp/two.data perf record -q -c 100003 -e cpu/instructions,name=ia/u \
	-e cpu/instructions,name=ib/u -o /tmp/two.data -- /ctr/spin 2000000 >/dev/null 2>&1
perf script -i /tmp/two.data -F event 2>/dev/null | tr -d ' :' | sort | uniq -c >/tmp/two.txt
sa=$(awk '$2 == "ia" { print $1 }' /tmp/two.txt) sb=$(awk '$2 == "ib" { print $1 }' /tmp/two.txt)
note "perf record, two counters of instructions:u: ${sa:-0} and ${sb:-0} samples"
check "perf record: two counters of instructions:u both sample" \
	[ "${sa:-0}" -gt 0 -a "${sb:-0}" -gt 0 ]
