#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-ctr aggregate -f llvm-probe: the probe-based LLVM sample profile
# of a program built with clang 19 -fpseudo-probe-for-profiling, against
# llvm-profgen 19's of the same recording (fed perf 7.3's script of it,
# as profgen.sh feeds it):
#   probe-md5                      util/md5.c: RFC 1321's digests, md5sum's
#   probe-vs-llvm-profgen          the same profile, byte for byte
#   probe-llvm-profdata            llvm-profdata 19 reads it
#   probe-clang-sample-use         clang 19 -fprofile-sample-use takes it
#   probe-cxx-vs-llvm-profgen      the same for C++ initializers, whose
#                                  profiles llvm-profgen leaves out
#   probe-edited-vs-llvm-profgen   the same with what clang 19 emits none
#                                  of for RISC-V: call probes, a sentinel,
#                                  an inline site of index 0
#   probe-malformed                a cut section: an error naming it and
#                                  its offset, exit status 1, no profile
#   probe-none                     a binary without probes: an error
# Prints PASS/FAIL/SKIP lines; exits non-zero on any FAIL.
. "$(dirname "$0")/lib.sh"
. "$top/scripts/lib.sh"
fix=$here/afdo
PC=${PERF_CTR:-$top/out/perf-ctr/perf-ctr}
cross_setup probe

# --- MD5, the GUIDs of function names ---------------------------------------
# md5sum at the lengths where the padding takes another block, and more.
md5_ok() {
	local n s
	for n in 0 1 55 56 63 64 65 119 120 127 128 1000; do
		s=$(head -c "$n" /dev/zero | tr '\0' p)
		[ "$(./md5-test "$s")" = "$(printf %s "$s" | md5sum | cut -d' ' -f1)" ] ||
			return 1
	done
}
if ${CC:-gcc} -O2 -Wall -Wextra -Werror -I"$src/util" -o md5-test \
	"$src/util/md5.c" "$here/md5-test.c" && ./md5-test && md5_ok; then
	pass probe-md5
else
	fail probe-md5
fi

# --- the tools of the trixie root ---------------------------------------------
names="probe-vs-llvm-profgen probe-llvm-profdata probe-clang-sample-use probe-cxx-vs-llvm-profgen probe-edited-vs-llvm-profgen probe-malformed probe-none"
# shellcheck disable=SC2086
llvm19_setup t-probe $names
cp "$fix/probe.c" "$fix/probe-init.cpp" "$rtmp/"

if ! rcc clang-19 --target=riscv64-linux-gnu -O2 -g -fpseudo-probe-for-profiling \
	-fuse-ld=lld -o probe probe.c || ! cp "$rtmp/probe" .; then
	fail probe-build
	exit 1
fi

# profgen NAME BINARY: NAME.data recorded over BINARY, NAME.pg llvm-profgen's
# profile of it, NAME.prof perf-ctr's. A sample without records is kept
# out of llvm-profgen's text (see profgen.sh).
profgen() {
	"$PC" synth -o "$1.data" --samples 3000 --depth 32 --binary "$2" --seed 5 >&2 &&
	"${ROOT_LOADER[@]}" "$ROOT/usr/bin/perf" script -i "$1.data" --show-mmap-events \
		-F ip,brstack 2>/dev/null | awk '/^PERF_RECORD_/ || /\//' >"$1.script" &&
	root_exec "$profgen" --perfscript="$1.script" --binary="$2" --format=text \
		--output="$1.pg" 2>"$1.pg.err" &&
	"$PC" aggregate -i "$1.data" --binary "$2" -f llvm-probe -o "$1.prof"
}

if profgen p probe && grep -q '^ *!CFGChecksum: ' p.pg &&
   grep -q '^work:[1-9]' p.pg && diff -u p.pg p.prof >&2; then
	pass probe-vs-llvm-profgen
else
	cat p.pg.err >&2 2>/dev/null
	fail probe-vs-llvm-profgen
fi

if root_exec /usr/lib/llvm-19/bin/llvm-profdata show --sample p.prof >show.out 2>show.err &&
   [ ! -s show.err ] && grep -q '^Function: work: CFG checksum [1-9]' show.out; then
	pass probe-llvm-profdata
else
	cat show.err >&2
	fail probe-llvm-profdata
fi

cp p.prof "$rtmp/"
if rcc clang-19 --target=riscv64-linux-gnu -O2 -g -fpseudo-probe-for-profiling \
	-fprofile-sample-use=p.prof -Rpass=sample-profile -c probe.c -o p.o >use.out 2>&1 &&
   ! grep -qE 'warning|error' use.out && grep -q 'remark: .*sample-profile' use.out; then
	pass probe-clang-sample-use
else
	cat use.out >&2
	fail probe-clang-sample-use
fi

# The initializers run once, inlined into _GLOBAL__sub_I_probe_init.cpp.
if rcc clang-19 --target=riscv64-linux-gnu -O1 -g -fpseudo-probe-for-profiling \
	-fuse-ld=lld -o probe-init probe-init.cpp && cp "$rtmp/probe-init" . &&
   profgen init probe-init && diff -u init.pg init.prof >&2 &&
   grep -q '^_GLOBAL__sub_I_probe_init.cpp:[1-9]' init.prof &&
   ! grep -q '__cxx_global_var_init' init.prof; then
	pass probe-cxx-vs-llvm-profgen
else
	cat init.pg.err >&2 2>/dev/null
	fail probe-cxx-vs-llvm-profgen
fi

# --- what clang 19 emits none of for RISC-V -----------------------------------
# Call probes at the calls of work and main (a direct one to a static
# function, an indirect one), a sentinel moving work's probe 20 into
# mix (at its return), poly's inline site at index 0 (its context starts
# over: a top-level profile of poly).
"${CROSS}objcopy" --dump-section .pseudo_probe=probe.pp probe
starts=$("${CROSS}nm" probe | awk '$2 == "t" || $2 == "T" { printf "start=%s=%s ", $3, $1 }')
mix=$("${CROSS}nm" probe | awk '$3 ~ /^_ZL3mixii\.__uniq\./ { print $3 }')
poly=_ZL4polyi${mix#_ZL3mixii}
insn() {	# FUNCTION OPCODE [TARGET]: the address of its first such instruction
	"${CROSS}objdump" -d --no-show-raw-insn probe |
		awk -v f="<$1>:" -v op="$2" -v tgt="${3:-}" '
			$2 == f { on = 1; next } /^$/ { on = 0 }
			on && $2 == op && (tgt == "" || index($0, "<" tgt ">")) {
				sub(":", "", $1); print $1; exit }'
}
cmix=$(insn work jal "$mix") cind=$(insn main jalr) csum=$(insn main jal sum)
mret=$(insn "$mix" ret) mstart=$("${CROSS}nm" probe | awk -v f="$mix" '$3 == f { print $1 }')
if [ -n "$mix" ] && [ -n "$cmix" ] && [ -n "$cind" ] && [ -n "$csum" ] && [ -n "$mret" ] &&
   python3 "$here/probe-edit.py" probe.pp edited.pp $starts call=work:8:2:"$cmix" \
	call=main:9:1:"$cind" call=main:13:2:"$csum" zero-site="$poly" \
	sentinel=work:"$mix":20:"$(printf %x $((0x$mret - 0x$mstart)))" &&
   "${CROSS}objcopy" --update-section .pseudo_probe=edited.pp probe probe-ed &&
   profgen ed probe-ed && diff -u ed.pg ed.prof >&2 &&
   grep -q "^ 8: [0-9]* $mix:[1-9]" ed.prof && grep -q '^ 9: [0-9]* work:[1-9]' ed.prof &&
   grep -q '^ 20: [1-9]' ed.prof && grep -q "^$poly:[1-9]" ed.prof; then
	pass probe-edited-vs-llvm-profgen
else
	cat ed.pg.err >&2 2>/dev/null
	fail probe-edited-vs-llvm-profgen
fi

# --- broken sections, no probes -----------------------------------------------
# .pseudo_probe cut in half, .pseudo_probe_desc in the middle of a name.
"${CROSS}objcopy" --dump-section .pseudo_probe_desc=probe.ppd probe
head -c $(($(stat -c %s probe.pp) / 2)) probe.pp >cut.pp
head -c 20 probe.ppd >cut.ppd
bad() {	# BINARY SECTION: perf-ctr's error of BINARY names SECTION
	local st
	"$PC" aggregate -i p.data --binary "$1" -f llvm-probe -o "$1.prof" 2>"$1.err"
	st=$?
	[ $st = 1 ] && [ ! -e "$1.prof" ] &&
	grep -q "^perf-ctr aggregate: $1: $2: offset 0x[0-9a-f]*: .*runs past the end" "$1.err"
}
if "${CROSS}objcopy" --update-section .pseudo_probe=cut.pp probe probe-cut &&
   "${CROSS}objcopy" --update-section .pseudo_probe_desc=cut.ppd probe probe-cutd &&
   bad probe-cut .pseudo_probe && bad probe-cutd .pseudo_probe_desc; then
	pass probe-malformed
else
	cat probe-cut.err probe-cutd.err >&2 2>/dev/null
	fail probe-malformed
fi

"${CROSS}objcopy" --remove-section .pseudo_probe probe probe-none
"$PC" aggregate -i p.data --binary probe-none -f llvm-probe -o none.prof 2>none.err
if [ $? = 1 ] && [ ! -e none.prof ] &&
   grep -q 'probe-none: no pseudo probes (no .pseudo_probe)' none.err; then
	pass probe-none
else
	cat none.err >&2
	fail probe-none
fi

exit $rc
