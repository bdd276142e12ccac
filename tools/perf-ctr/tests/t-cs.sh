#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-ctr aggregate -f llvm-cs: the context-sensitive probe-based
# profile (CSSPGO) of a program built with clang 19
# -fpseudo-probe-for-profiling, against llvm-profgen 19's of the same
# recording: perf-ctr synth --callchain gives each sample the call chain
# of its branch walk, perf 7.3's script of it is llvm-profgen's hybrid
# input (stack lines, then the brstack line).
#   cs-synth-callchain      synth --callchain: call chains perf 7.3 reads
#   cs-vs-llvm-profgen      the same profile, byte for byte
#   cs-calls-vs-llvm-profgen  the same with call probes added (clang 19
#                           emits none for RISC-V): contexts through calls
#   cs-edited-vs-llvm-profgen  the same for t-probe.sh's program with call
#                           probes, a sentinel and an inline site of index
#                           0 (its context starts over, call sites too)
#   cs-bogus-vs-llvm-profgen  the same with synth --bogus: records into
#                           no mapping, ranges backwards, samples twice
#                           and samples without records
#   cs-preinline-vs-llvm-profgen  the four recordings above with the
#                           pre-inliner (perf-ctr's default, and
#                           llvm-profgen's): the same profiles, byte for
#                           byte, with contexts both inlined and folded
#   cs-scc-order-vs-llvm-profgen  a recursion of three functions run from
#                           each (synth --walk of mk-ring-walk.py's runs
#                           of ring.c): the pre-inliner takes its
#                           members as llvm-profgen does, the one run
#                           first keeping the others inlined
#   cs-synth-walk-errors    synth --walk of a transfer from no branch, or
#                           of a return where no call returns: an error
#                           naming the line, exit status 1, no file
#   cs-native-calls         --native-calls (on the root's libdw): contexts
#                           through every call RISC-V makes, each site the
#                           call probe index in the call's DWARF
#                           discriminator; clang 19 takes the profile
#   cs-foreign-samples      samples of a process that maps no binary,
#                           their addresses numbers in its text, count
#                           for nothing (llvm-profgen, reading text
#                           without pids, takes them for the binary's)
#   cs-llvm-profdata        llvm-profdata 19 reads it
#   cs-clang-sample-use     clang 19 -fprofile-sample-use takes it
#   cs-no-callchain         a recording without call chains: an error,
#                           exit status 1, no profile
#   cs-no-probes            a binary without probes: an error
#   cs-options-llvm-cs-only --native-calls or --no-preinline with another
#                           format: a usage error (exit 2), no profile
# llvm-profgen runs with CMP_OPTS against perf-ctr --no-preinline: its
# pre-inliner and nested profiles left out (the flat profile of every
# context), and so are the merging of cold contexts and the inference of
# frames missing for tail calls; and with PRE_OPTS, its pre-inliner on,
# against perf-ctr's default.
# Prints PASS/FAIL/SKIP lines; exits non-zero on any FAIL.
. "$(dirname "$0")/lib.sh"
. "$top/scripts/lib.sh"
fix=$here/afdo
PC=${PERF_CTR:-$top/out/perf-ctr/perf-ctr}
CMP_OPTS="--csspgo-preinliner=0 --gen-cs-nested-profile=0 --csprof-merge-cold-context=0 --infer-missing-frames=0"
PRE_OPTS="--gen-cs-nested-profile=0 --infer-missing-frames=0"
cross_setup cs

names="cs-synth-callchain cs-vs-llvm-profgen cs-calls-vs-llvm-profgen cs-edited-vs-llvm-profgen cs-bogus-vs-llvm-profgen cs-preinline-vs-llvm-profgen cs-scc-order-vs-llvm-profgen cs-synth-walk-errors cs-native-calls cs-foreign-samples cs-llvm-profdata cs-clang-sample-use cs-no-callchain cs-no-probes cs-options-llvm-cs-only"
# shellcheck disable=SC2086
llvm19_setup t-cs $names
cp "$fix/cs.c" "$fix/probe.c" "$fix/ring.c" "$rtmp/"
CFLAGS="--target=riscv64-linux-gnu -O2 -g -fpseudo-probe-for-profiling -mno-relax -fno-omit-frame-pointer"

if ! rcc clang-19 $CFLAGS -fuse-ld=lld -o cs cs.c || ! cp "$rtmp/cs" .; then
	fail cs-build
	exit 1
fi

# script NAME BINARY [SYNTH-OPTION...]: NAME.data, a recording of BINARY
# with call chains, and its text (script_text).
script() {
	local name=$1 bin=$2

	shift 2
	"$PC" synth -o "$name.data" --samples 3000 --depth 32 --binary "$bin" --seed 5 \
		--callchain "$@" >&2 &&
	script_text "$name"
}
# script_text NAME: NAME.script, perf 7.3's text of NAME.data (--no-inline:
# perf would ask addr2line for the inlined frames of each address and
# print nothing), without the samples that have no records
# (profgen-hybrid.awk).
script_text() {
	"${ROOT_LOADER[@]}" "$ROOT/usr/bin/perf" script -i "$1.data" --show-mmap-events \
		--no-inline -F ip,brstack 2>/dev/null |
		awk -f "$here/profgen-hybrid.awk" >"$1.script"
}
# profgen NAME BINARY [SYNTH-OPTION...]: NAME.pg llvm-profgen's profile,
# NAME.prof perf-ctr's, each of every context; NAME.pgpre and NAME.pre
# the two pre-inlined.
profgen() {
	script "$@" && both "$1" "$2"
}
# both NAME BINARY: the profiles of NAME.data and NAME.script.
both() {
	root_exec "$profgen" --perfscript="$1.script" --binary="$2" --format=text \
		$CMP_OPTS --output="$1.pg" 2>"$1.pg.err" &&
	root_exec "$profgen" --perfscript="$1.script" --binary="$2" --format=text \
		$PRE_OPTS --output="$1.pgpre" 2>>"$1.pg.err" &&
	"$PC" aggregate -i "$1.data" --binary "$2" -f llvm-cs --no-preinline \
		-o "$1.prof" &&
	"$PC" aggregate -i "$1.data" --binary "$2" -f llvm-cs -o "$1.pre"
}

# A sample's stack lines: the leaf (its ip), then return addresses.
if profgen p cs && awk '/^$/ { n = 0; next } /^\t/ { n++ } / 0x/ { if (n > 2) deep++ }
	END { exit !(deep > 100) }' p.script; then
	pass cs-synth-callchain
else
	fail cs-synth-callchain
fi

# clang 19 emits no call probes for RISC-V: llvm-profgen cuts every
# context at the first call site without one, so the contexts are
# those of inlining only.
if [ -s p.pg ] && grep -q '^\[left:[0-9]* @ _ZL5scalei' p.pg &&
   grep -q '^ !CFGChecksum: ' p.pg && diff -u p.pg p.prof >&2; then
	pass cs-vs-llvm-profgen
else
	cat p.pg.err >&2 2>/dev/null
	fail cs-vs-llvm-profgen
fi

# --- contexts through calls ------------------------------------------------
# call_probes BINARY FUNCTION...: a call probe at every jalr of each
# FUNCTION, index 40 on: type 2 (direct) for a jalr through ra after
# its auipc, 1 (indirect) for one through another register.
call_probes() {
	local bin=$1

	shift
	"${CROSS}objdump" -d --no-show-raw-insn "$bin" | awk -v fs=" $* " '
		/^[0-9a-f]+ <.*>:$/ { f = substr($2, 2, length($2) - 3); i = 40; next }
		index(fs, " " f " ") && $2 == "jalr" {
			sub(":", "", $1)
			printf "call=%s:%d:%d:%s ", f, i++, ($3 ~ /\(ra\)/) ? 2 : 1, $1 }'
}
# with_call_probes BINARY OUT FUNCTION...: OUT, BINARY with call_probes'
# probes at the calls of each FUNCTION in its .pseudo_probe.
# shellcheck disable=SC2046,SC2086 # the probe-edit arguments are lists
with_call_probes() {
	local bin=$1 out=$2 starts

	shift 2
	"${CROSS}objcopy" --dump-section .pseudo_probe="$bin.pp" "$bin" &&
	starts=$("${CROSS}nm" "$bin" | awk '$2 == "t" || $2 == "T" { printf "start=%s=%s ", $3, $1 }') &&
	python3 "$here/probe-edit.py" "$bin.pp" "$out.pp" $starts $(call_probes "$bin" "$@") &&
	"${CROSS}objcopy" --update-section .pseudo_probe="$out.pp" "$bin" "$out"
}
# A call probe at every call of main, fact, left and right (index 40
# on). llvm-profgen 19 takes only c.jalr for a call on RISC-V (LLVM's
# instruction descriptions call no jal or jalr one): main's call through
# a pointer opens contexts, the other calls give call targets.
if with_call_probes cs cs-calls main fact left right &&
   profgen c cs-calls && grep -q '^\[main:[0-9]* @ right' c.pg &&
   grep -q ' leaf:[1-9]' c.pg && diff -u c.pg c.prof >&2; then
	pass cs-calls-vs-llvm-profgen
else
	cat c.pg.err >&2 2>/dev/null
	fail cs-calls-vs-llvm-profgen
fi

# t-probe.sh's program and its edits: call probes in work and main, mix's
# return taking work's probe 20 (a sentinel), poly inlined at index 0.
if rcc clang-19 $CFLAGS -fuse-ld=lld -o probe probe.c && cp "$rtmp/probe" . &&
   "${CROSS}objcopy" --dump-section .pseudo_probe=probe.pp probe; then
	pstarts=$("${CROSS}nm" probe | awk '$2 == "t" || $2 == "T" { printf "start=%s=%s ", $3, $1 }')
	mix=$("${CROSS}nm" probe | awk '$3 ~ /^_ZL3mixii\.__uniq\./ { print $3 }')
	poly=_ZL4polyi${mix#_ZL3mixii}
	mstart=$("${CROSS}nm" probe | awk -v f="$mix" '$3 == f { print $1 }')
	mret=$("${CROSS}objdump" -d --no-show-raw-insn probe | awk -v f="<$mix>:" '
		$2 == f { on = 1; next } /^$/ { on = 0 }
		on && $2 == "ret" { sub(":", "", $1); print $1; exit }')
fi
if [ -n "${mix:-}" ] && [ -n "${mret:-}" ] &&
   python3 "$here/probe-edit.py" probe.pp edited.pp $pstarts \
	$(call_probes probe work main) zero-site="$poly" \
	sentinel=work:"$mix":20:"$(printf %x $((0x$mret - 0x$mstart)))" &&
   "${CROSS}objcopy" --update-section .pseudo_probe=edited.pp probe probe-ed &&
   profgen e probe-ed && grep -q '^\[main:[0-9]* @ work\]' e.pg &&
   grep -q "^\[$poly\]:" e.pg && ! grep -q "@ $poly" e.pg && diff -u e.pg e.prof >&2; then
	pass cs-edited-vs-llvm-profgen
else
	cat e.pg.err >&2 2>/dev/null
	fail cs-edited-vs-llvm-profgen
fi

# An end in no mapping, or inside an instruction (a backward range's
# may be), is outside the binary to both.
if profgen b cs-calls --bogus && grep -q '^\[main:[0-9]* @ right' b.pg &&
   diff -u b.pg b.prof >&2; then
	pass cs-bogus-vs-llvm-profgen
else
	cat b.pg.err >&2 2>/dev/null
	fail cs-bogus-vs-llvm-profgen
fi

# The pre-inliner: some contexts inlined (attribute 2), others folded
# into their function's base profile (fewer profiles than contexts).
ok=y
for r in p c e b; do
	if [ ! -s $r.pgpre ] || ! diff -u $r.pgpre $r.pre >&2; then
		echo "preinline: $r differs" >&2
		ok=
	fi
done
if [ -n "$ok" ] && grep -q '^ !Attributes: [23]$' c.pre &&
   [ "$(grep -c '^\[' c.pre)" -lt "$(grep -c '^\[' c.prof)" ]; then
	pass cs-preinline-vs-llvm-profgen
else
	fail cs-preinline-vs-llvm-profgen
fi

# --- the members of a recursion ---------------------------------------------
# ring.c's ping -> pong -> pang -> ping, with call probes, run 300 times
# from main at depth r % 150 (mk-ring-walk.py), a sample every 97
# transfers. Deeper than the 64 frames of synth's call chains, most
# contexts start inside the recursion; the members' order decides which
# of them keeps the others' contexts inlined: the one main calls, two
# deep (llvm-profgen's choice, from the heaviest calls of the ring). In
# Tarjan's order, or the members reversed, the profiles differ.
ok=
rcc clang-19 $CFLAGS -fuse-ld=lld -o ring ring.c && cp "$rtmp/ring" . &&
	with_call_probes ring ringc main ping pong pang &&
	"${CROSS}objdump" -d --no-show-raw-insn ring >ring.dis && ok=y
for run in "ping pong pang" "pong pang ping" "pang ping pong"; do
	# shellcheck disable=SC2086
	set -- $run
	if [ -z "$ok" ] || ! python3 "$here/mk-ring-walk.py" 300 150 "$@" <ring.dis >"ring-$1.walk" ||
	   ! "$PC" synth -o "r$1.data" --binary ringc --walk "ring-$1.walk" --every 97 \
		--callchain >&2 ||
	   ! script_text "r$1" || ! both "r$1" ringc ||
	   ! diff -u "r$1.pg" "r$1.prof" >&2 || ! diff -u "r$1.pgpre" "r$1.pre" >&2 ||
	   ! grep -q "^\[$1:[0-9]* @ $2:[0-9]* @ $3\]:" "r$1.pre"; then
		echo "scc order: the run from $1 differs" >&2
		ok=
	fi
done
if [ -n "$ok" ]; then
	pass cs-scc-order-vs-llvm-profgen
else
	fail cs-scc-order-vs-llvm-profgen
fi

# A walk with a transfer from no branch (main's first instruction), and
# one whose return goes elsewhere than its call returns to (ring-ping's
# third transfer, ping's return to main).
main=$("${CROSS}nm" ring | awk '$3 == "main" { sub(/^0+/, "", $1); print $1 }')
ret=$(sed -n 3p ring-ping.walk 2>/dev/null)
sed "2s/^[0-9a-f]* /$main /" ring-ping.walk >bad-from.walk 2>/dev/null
[ -n "$ret" ] && sed "3s/ .*/ $(printf %x $((0x${ret#* } + 2)))/" ring-ping.walk >bad-ret.walk 2>/dev/null
"$PC" synth -o bf.data --binary ringc --walk bad-from.walk --callchain 2>bf.err
bf=$?
"$PC" synth -o br.data --binary ringc --walk bad-ret.walk --callchain 2>br.err
br=$?
if [ -n "$main" ] && [ -n "$ret" ] && [ $bf = 1 ] && [ $br = 1 ] && [ ! -e bf.data ] && [ ! -e br.data ] &&
   grep -q 'bad-from.walk:2: FROM 0x[0-9a-f]* is no branch or jump of ' bf.err &&
   grep -q 'bad-ret.walk:3: a return to 0x[0-9a-f]*, where its call returns to 0x' br.err; then
	pass cs-synth-walk-errors
else
	cat bf.err br.err >&2 2>/dev/null
	fail cs-synth-walk-errors
fi

# --native-calls. The sites are the indices of the call probes clang 19
# writes into each call's line discriminator (it emits no call probes
# for RISC-V): those of main's calls of the functions it does not
# inline, from llvm-dwarfdump's rows at them (inlined functions' calls
# have sites of their own). Debian 12's libdw cannot read clang 19's
# line tables: perf-ctr runs on the root's.
"${CROSS}objdump" -d --no-show-raw-insn cs | awk '/^[0-9a-f]+ <main>:$/ { on = 1; next }
	/^$/ { on = 0 } on && $2 ~ /^(c\.)?jalr?$/ { sub(":", "", $1); print $1, $NF }' >main-calls.txt
root_exec /usr/lib/llvm-19/bin/llvm-dwarfdump --debug-line "$rtmp/cs" >lines.txt 2>/dev/null
sites=$(python3 - main-calls.txt lines.txt <<'PY'
import sys
rows = []
for l in open(sys.argv[2]):
    f = l.split()
    if len(f) >= 6 and f[0].startswith("0x") and f[1].isdigit():
        rows.append((int(f[0], 16), int(f[5])))
rows.sort()
for l in open(sys.argv[1]):
    a, callee = l.split()
    a = int(a, 16)
    d = max(r for r in rows if r[0] <= a)[1]
    if d & 7 == 7:
        i = (d >> 3) & (0x1fff if d & (1 << 28) else 0xffff)
        print(i, callee.strip("<>"))
PY
)
kleft=$(echo "$sites" | awk '$2 == "left" { print $1; exit }')
if [ -n "$kleft" ] &&
   "${ROOT_LOADER[@]}" "$PC" aggregate -i p.data --binary cs -f llvm-cs --native-calls \
	--no-preinline -o n.prof &&
   "${ROOT_LOADER[@]}" "$PC" aggregate -i p.data --binary cs -f llvm-cs --native-calls \
	-o n.pre &&
   grep -q "^\[main:$kleft @ left\]" n.prof && ! grep -q "^\[main:$kleft @ left\]" p.prof &&
   ! grep -oE 'main:[0-9]+ @ (left|right|fact|big|leaf|tail)\]' n.prof | sort -u |
	awk -v s=" $(echo "$sites" | awk '{ printf "%s ", $1 }')" '
	{ split($1, f, ":"); if (index(s, " " f[2] " ") == 0) { print "no call site " $0; bad = 1 } }
	END { exit !bad }' >&2 &&
   cp n.pre "$rtmp/" &&
   rcc clang-19 $CFLAGS -fprofile-sample-use=n.pre -c cs.c -o n.o >nuse.out 2>&1 &&
   ! grep -qE 'warning|error' nuse.out; then
	pass cs-native-calls
else
	echo "main's call sites: $sites" >&2
	cat nuse.out >&2 2>/dev/null
	fail cs-native-calls
fi

# Every tenth sample moved to a process that maps nothing, as the
# shell's last samples before it execs the program are: perf-ctr's
# profile is the one of the recording without them (and not the
# recording's own: they were counted there).
if python3 "$here/mk-foreign.py" p.data f.data &&
   python3 "$here/mk-foreign.py" p.data d.data 10 drop &&
   "$PC" aggregate -i f.data --binary cs -f llvm-cs --no-preinline -o f.prof &&
   "$PC" aggregate -i d.data --binary cs -f llvm-cs --no-preinline -o d.prof &&
   ! cmp -s p.prof d.prof && diff -u d.prof f.prof >&2; then
	pass cs-foreign-samples
else
	fail cs-foreign-samples
fi

if root_exec /usr/lib/llvm-19/bin/llvm-profdata show --sample c.prof >show.out 2>show.err &&
   [ ! -s show.err ] && grep -q '^Function: main:[0-9]* @ right: CFG checksum [1-9]' show.out; then
	pass cs-llvm-profdata
else
	cat show.err >&2
	fail cs-llvm-profdata
fi

cp c.prof c.pre "$rtmp/"
if rcc clang-19 $CFLAGS -fprofile-sample-use=c.prof -Rpass=sample-profile \
	-c cs.c -o c.o >use.out 2>&1 &&
   rcc clang-19 $CFLAGS -fprofile-sample-use=c.pre -Rpass=sample-profile \
	-c cs.c -o c.o >>use.out 2>&1 &&
   ! grep -qE 'warning|error' use.out && grep -q 'remark: .*sample-profile' use.out; then
	pass cs-clang-sample-use
else
	cat use.out >&2
	fail cs-clang-sample-use
fi

# --- what it refuses ----------------------------------------------------------
"$PC" synth -o plain.data --samples 300 --binary cs --seed 5 >&2
"$PC" aggregate -i plain.data --binary cs -f llvm-cs -o plain.prof 2>plain.err
if [ $? = 1 ] && [ ! -e plain.prof ] && grep -q 'no sample has a call chain' plain.err; then
	pass cs-no-callchain
else
	cat plain.err >&2
	fail cs-no-callchain
fi

"${CROSS}objcopy" --remove-section .pseudo_probe cs cs-none
"$PC" aggregate -i p.data --binary cs-none -f llvm-cs -o none.prof 2>none.err
if [ $? = 1 ] && [ ! -e none.prof ] &&
   grep -q 'cs-none: no pseudo probes (no .pseudo_probe)' none.err; then
	pass cs-no-probes
else
	cat none.err >&2
	fail cs-no-probes
fi

"$PC" aggregate -i p.data --binary cs -f llvm-probe --native-calls -o opt.prof 2>opt.err
st1=$?
"$PC" aggregate -i p.data --binary cs -f llvm-probe --no-preinline -o opt.prof 2>>opt.err
st2=$?
if [ $st1 = 2 ] && [ $st2 = 2 ] && [ ! -e opt.prof ] &&
   [ "$(grep -c 'are options of -f llvm-cs' opt.err)" = 2 ]; then
	pass cs-options-llvm-cs-only
else
	cat opt.err >&2
	fail cs-options-llvm-cs-only
fi

exit $rc
