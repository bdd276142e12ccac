#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of perf-ctr's core: the reader on files from its own writer
# and from the host's perf, golden outputs of script, decode, check and
# report, malformed inputs, 256-deep stacks, and byte-identical output
# with `perf script -F brstack` when the host has perf.
#
# UPDATE_GOLDEN=1 rewrites tests/golden/ instead of comparing (review the
# diff before committing it).
. "$(dirname "$0")/lib.sh"
golden=$here/golden
need_tool perf-ctr-core
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Compare OUTPUT with golden/NAME, or write it with UPDATE_GOLDEN=1.
golden_cmp() {
	local name=$1 file=$2
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$file" "$golden/$name"
		echo "updated golden/$name" >&2
		return 0
	fi
	if [ ! -f "$golden/$name" ]; then
		echo "missing golden/$name" >&2
		return 1
	fi
	if ! diff -u "$golden/$name" "$file" >&2; then
		return 1
	fi
}

# --- files written by perf-ctr synth (the writer) ---
"$pc" synth -o "$work/a.data" --samples 50 --depth 8 --seed 3 &&
"$pc" synth -o "$work/two.data" --samples 12 --depth 4 --seed 5 --events 2 &&
"$pc" synth -o "$work/nohw.data" --samples 10 --depth 5 --no-hw-idx &&
"$pc" synth -o "$work/deep.data" --samples 40 --depth 256 --seed 9 &&
"$pc" synth -o "$work/bogus.data" --samples 16 --depth 4 --bogus ||
	{ fail "perf-ctr-synth"; exit 1; }
pass "perf-ctr-synth"

# script output of the writer's files: one line per sample, golden.
"$pc" script -i "$work/a.data" >"$work/script-a.txt" 2>"$work/err" &&
	[ "$(wc -l <"$work/script-a.txt")" = 50 ] &&
	golden_cmp script-a.txt "$work/script-a.txt" &&
	pass "perf-ctr-script-golden" || fail "perf-ctr-script-golden"

"$pc" script -i "$work/two.data" >"$work/script-two.txt" &&
	golden_cmp script-two.txt "$work/script-two.txt" &&
	pass "perf-ctr-script-two-events" || fail "perf-ctr-script-two-events"

# Every line of the 256-deep file has 256 records.
if "$pc" script -i "$work/deep.data" >"$work/deep.txt" &&
   [ "$(wc -l <"$work/deep.txt")" = 40 ] &&
   awk '{ if (NF != 256) exit 1 }' "$work/deep.txt" &&
   "$pc" check -i "$work/deep.data" >/dev/null; then
	pass "perf-ctr-256-deep"
else
	fail "perf-ctr-256-deep"
fi

# Pipe mode: the same records whether read from a file or a pipe, and the
# pipe-mode corpus files read like their file-mode originals.
if cat "$work/a.data" | "$pc" script -i - | cmp -s - "$work/script-a.txt" &&
   cmp -s <("$pc" script -i "$src/fuzz/corpus/pipe-d2") \
	  <("$pc" script -i "$src/fuzz/corpus/file-d2") &&
   cmp -s <("$pc" script -i "$src/fuzz/corpus/pipe-2events") \
	  <("$pc" script -i "$src/fuzz/corpus/file-2events") &&
   [ -s "$work/script-a.txt" ]; then
	pass "perf-ctr-pipe-mode"
else
	fail "perf-ctr-pipe-mode"
fi

# One pass in perf's order (FINISHED_ROUND), or, for a recording without
# rounds too long to hold its samples back, two passes: the same either
# way, and the same from a pipe.
if "$pc" synth -o "$work/rounds.data" --samples 25000 --depth 32 --seed 4 &&
   "$pc" synth -o "$work/norounds.data" --samples 25000 --depth 32 --seed 4 --round 0 &&
   [ "$(stat -c %s "$work/norounds.data")" -gt $((16 << 20)) ]; then
	ok=1
	for c in "script -F ip,brstacksym" "check" "report --limit 5"; do
		# shellcheck disable=SC2086
		"$pc" $c -i "$work/rounds.data" >"$work/r1.txt" 2>&1
		# shellcheck disable=SC2086
		"$pc" $c -i "$work/norounds.data" >"$work/r2.txt" 2>&1
		# shellcheck disable=SC2086
		"$pc" $c -i - <"$work/norounds.data" >"$work/r3.txt" 2>&1
		cmp -s "$work/r1.txt" "$work/r2.txt" && cmp -s "$work/r1.txt" "$work/r3.txt" &&
			[ -s "$work/r1.txt" ] || { echo "$c differs between rounds and none" >&2; ok=0; }
	done
	[ $ok = 1 ] && pass "perf-ctr-one-pass-or-two" || fail "perf-ctr-one-pass-or-two"
else
	fail "perf-ctr-one-pass-or-two (synth)"
fi

# --- decode ---
"$pc" decode <"$here/decode-input.txt" >"$work/decode.txt" &&
	golden_cmp decode.txt "$work/decode.txt" &&
	[ "$("$pc" decode 0x1001 0x2001 0x8000800c)" = \
	  "0: 0x1000 -> 0x2000 type=12:CO_SWAP perf=RISCV_CO_SWAP misp=1 ccv=1 cce=8 ccm=0 cycles=524288 (perf: 65535)" ] &&
	pass "perf-ctr-decode" || fail "perf-ctr-decode"
if ! echo "1 2" | "$pc" decode >/dev/null 2>&1 && ! "$pc" decode 1 2 >/dev/null 2>&1; then
	pass "perf-ctr-decode-rejects-bad-input"
else
	fail "perf-ctr-decode-rejects-bad-input"
fi

# --- check ---
"$pc" check -i "$work/bogus.data" >"$work/check.txt"
crc=$?
if [ $crc = 1 ] && golden_cmp check-bogus.txt "$work/check.txt" &&
   grep -q '^empty-stack      2$' "$work/check.txt" &&
   grep -q '^backward-range   2$' "$work/check.txt" &&
   grep -q '^outside-mapping  4$' "$work/check.txt" &&
   grep -q '^duplicate-stack  2$' "$work/check.txt"; then
	pass "perf-ctr-check-finds-bogus"
else
	fail "perf-ctr-check-finds-bogus (exit $crc)"
fi
if "$pc" check -i "$work/a.data" >"$work/check-a.txt" &&
   "$pc" check -i "$work/nohw.data" >/dev/null &&
   "$pc" check --no-fail -i "$work/bogus.data" >/dev/null; then
	pass "perf-ctr-check-clean"
else
	fail "perf-ctr-check-clean"
fi

# --- report ---
if "$pc" report -i "$work/a.data" --limit 10 >"$work/report.txt" 2>"$work/err" &&
   golden_cmp report-a.txt "$work/report.txt" &&
   "$pc" report -i "$work/a.data" --json --limit 5 >"$work/report.json" &&
   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["edges"] and d["functions"] is not None' \
	"$work/report.json"; then
	pass "perf-ctr-report"
else
	cat "$work/err" >&2
	fail "perf-ctr-report"
fi

# DWARF 5 lines and inlined frames: a RISC-V binary gives real branch
# sites, among them the loop branch of the inlined function.
cat >"$work/inl.c" <<'EOC'
#include <stdlib.h>
static inline __attribute__((always_inline)) int sq(int x)
{
	int r = 0;
	for (int i = 0; i < x; i++)
		r += x ^ i;
	return r;
}
int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < atoi(argv[argc - 1]); i++)
		s += sq(i);
	return s & 1;
}
EOC
if command -v riscv64-linux-gnu-gcc >/dev/null; then
	if riscv64-linux-gnu-gcc -O2 -g -gdwarf-5 -o "$work/inl" "$work/inl.c" &&
	   "$pc" synth -o "$work/inl.data" --samples 200 --depth 8 --binary "$work/inl" &&
	   "$pc" report -i "$work/inl.data" --limit 0 >"$work/inl.txt" &&
	   grep -q 'main+0x[0-9a-f]* (inl.c:[0-9]* \[inlined: sq <- main\])' "$work/inl.txt" &&
	   "$pc" check -i "$work/inl.data" >/dev/null; then
		pass "perf-ctr-report-dwarf5-inlined"
	else
		fail "perf-ctr-report-dwarf5-inlined"
	fi
else
	skip "perf-ctr-report-dwarf5-inlined" "no riscv64-linux-gnu-gcc"
fi

# --- malformed inputs: exact message with the offset, exit 1, no crash ---
python3 "$here/mk-malformed.py" "$src/fuzz/corpus/file-d2" "$work" \
	"$src/fuzz/corpus/file-rounds" "$src/fuzz/corpus/file-build-id" ||
	fail "perf-ctr-malformed-gen"
: >"$work/malformed.txt"
bad=0
for f in trunc-header bad-magic bad-attr-size attrs-beyond-eof \
	 rec-size-0 rec-beyond-end nr-beyond-record nr-huge \
	 sample-cut-short ids-beyond-eof \
	 feature-table-beyond-eof build-ids-beyond-eof build-id-size-0 \
	 build-id-name-unterminated round-size-4; do
	"$pc" script -i "$work/$f" >/dev/null 2>"$work/err"
	r=$?
	echo "$f exit=$r $(sed "s|$work/||" "$work/err")" >>"$work/malformed.txt"
	if [ $r != 1 ]; then
		echo "malformed $f: exit $r" >&2
		bad=1
	fi
done
[ $bad = 0 ] && golden_cmp malformed.txt "$work/malformed.txt" &&
	pass "perf-ctr-malformed-inputs" || fail "perf-ctr-malformed-inputs"
# Two events whose id sections both cover the whole file: refused before
# any allocation sized by them.
python3 "$here/mk-two-events.py" "$work/two.data" "$work"
"$pc" check -i "$work/ids-overlap" >/dev/null 2>"$work/err"
r=$?
[ $r = 2 ] && grep -q "offset 0x[0-9a-f]*: the events' id sections hold [0-9]* ids, more than a file of" "$work/err" &&
	pass "perf-ctr-overlapping-id-sections" ||
	{ echo "exit $r: $(cat "$work/err")" >&2; fail "perf-ctr-overlapping-id-sections"; }

# Two events with ID but no IDENTIFIER, one without TIME: their samples
# place the id at different offsets, which no reader can tell apart.
"$pc" check -i "$work/id-moves" >/dev/null 2>"$work/err"
r=$?
[ $r = 2 ] && grep -q "offset 0x[0-9a-f]*: events disagree on where the sample id is" "$work/err" &&
	pass "perf-ctr-sample-id-layouts-differ" ||
	{ echo "exit $r: $(cat "$work/err")" >&2; fail "perf-ctr-sample-id-layouts-differ"; }

# A data section that runs past the end of the file is a copy cut short
# (perf reads it too): what is there is read, with a warning, exit 0.
: >"$work/cut.txt"
for f in data-beyond-eof trunc-data; do
	"$pc" check -i "$work/$f" >"$work/out" 2>"$work/err"
	echo "$f exit=$? $(head -1 "$work/out") $(sed "s|$work/||" "$work/err")" >>"$work/cut.txt"
done
golden_cmp cut-short.txt "$work/cut.txt" &&
	pass "perf-ctr-cut-short-inputs" || fail "perf-ctr-cut-short-inputs"

# --- the host's perf ---
if ! command -v perf >/dev/null; then
	skip "perf-ctr-vs-host-perf" "no perf on the host"
else
	# perf 6.1 and older print no SPEC field: follow the host's format.
	noSpec=
	perf script -F brstack -i "$work/a.data" >"$work/host.txt" 2>"$work/err"
	if head -1 "$work/host.txt" | awk '{ exit split($1, f, "/") == 7 ? 0 : 1 }'; then
		noSpec=--no-spec
	fi
	ok=1
	for f in a nohw deep; do
		perf script -F brstack -i "$work/$f.data" >"$work/host-$f.txt" 2>"$work/err" ||
			{ cat "$work/err" >&2; ok=0; }
		"$pc" script $noSpec -i "$work/$f.data" >"$work/ours-$f.txt"
		if ! cmp "$work/host-$f.txt" "$work/ours-$f.txt" >&2; then
			echo "perf script -F brstack differs on $f.data" >&2
			ok=0
		fi
	done
	[ $ok = 1 ] && [ -s "$work/host-a.txt" ] && pass "perf-ctr-script-identical-to-perf" ||
		fail "perf-ctr-script-identical-to-perf"

	# brstacksym against a real binary (made-up sites in its functions).
	if command -v gcc >/dev/null &&
	   printf 'static int f(int x){return x*3;}\nint main(int c,char**v){(void)v;int s=0;for(int i=0;i<c*1000;i++)s+=f(i);return s&1;}\n' >"$work/w.c" &&
	   gcc -O1 -g -o "$work/w" "$work/w.c"; then
		"$pc" synth -o "$work/sym.data" --samples 20 --depth 8 --binary "$work/w" &&
		perf script -F brstacksym -i "$work/sym.data" >"$work/host-sym.txt" 2>/dev/null &&
		"$pc" script $noSpec -F brstacksym -i "$work/sym.data" >"$work/ours-sym.txt" &&
		grep -q 'main+0x' "$work/ours-sym.txt" &&
		cmp "$work/host-sym.txt" "$work/ours-sym.txt" >&2 &&
			pass "perf-ctr-brstacksym-identical-to-perf" ||
			fail "perf-ctr-brstacksym-identical-to-perf"
	else
		skip "perf-ctr-brstacksym-identical-to-perf" "no gcc"
	fi

	# perf report reads the writer's files (two events, 256 deep).
	if perf report --stdio -i "$work/two.data" >/dev/null 2>"$work/err" &&
	   perf report --stdio -b -i "$work/deep.data" >/dev/null 2>>"$work/err"; then
		pass "perf-report-reads-writer-output"
	else
		cat "$work/err" >&2
		fail "perf-report-reads-writer-output"
	fi

	# Files of the host's perf record: file and pipe mode, callchains.
	if perf record -q -e task-clock -c 200000 -g -o "$work/host.data" -- \
		sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null 2>&1; then
		n=$(perf script -F tid -i "$work/host.data" 2>/dev/null | wc -l)
		"$pc" check -i "$work/host.data" >"$work/hc.txt" 2>&1
		if grep -q "^$n samples, 0 with branch stacks" "$work/hc.txt" &&
		   "$pc" report --folded -i "$work/host.data" >"$work/folded.txt" &&
		   [ -s "$work/folded.txt" ]; then
			pass "perf-ctr-reads-host-perf-record"
		else
			cat "$work/hc.txt" >&2
			fail "perf-ctr-reads-host-perf-record"
		fi
		perf record -q -e task-clock -c 200000 -o - -- sh -c 'echo hi' \
			2>/dev/null >"$work/hostpipe.data"
		"$pc" check -i - <"$work/hostpipe.data" >"$work/hp.txt" 2>&1 &&
			pass "perf-ctr-reads-host-perf-pipe" ||
			{ cat "$work/hp.txt" >&2; fail "perf-ctr-reads-host-perf-pipe"; }
		# Cut recordings, as perf record leaves one when it is killed
		# and as a copy cut short: every whole sample of the finished
		# recording is read (as many as perf script gives there), the
		# cut one is dropped, a warning names each, the exit is 0.
		ok=1
		mkdir -p "$work/cut"
		while read -r f want; do
			if ! "$pc" check -i "$work/cut/$f" >"$work/cut/$f.out" 2>"$work/cut/$f.err" ||
			   ! grep -q "^$want samples," "$work/cut/$f.out" ||
			   ! grep -q "^perf-ctr: warning: .*/$f: offset 0x[0-9a-f]*: the last record is cut short" \
				"$work/cut/$f.err"; then
				echo "cut recording $f: want $want samples and a warning" >&2
				cat "$work/cut/$f.out" "$work/cut/$f.err" >&2
				ok=0
			fi
		done < <(python3 "$here/mk-cut.py" "$work/host.data" "$work/cut")
		n=$(perf script -F tid -i "$work/host.data" 2>/dev/null | wc -l)
		grep -q "data size is 0: perf record did not finish" "$work/cut/killed.err" &&
		grep -q "^$((n - 1)) samples," "$work/cut/killed.out" &&
		[ $ok = 1 ] && pass "perf-ctr-reads-cut-recordings" ||
			fail "perf-ctr-reads-cut-recordings"
	else
		skip "perf-ctr-reads-host-perf-record" "perf record fails here (perf_event_paranoid?)"
	fi
fi

# --- record ---
if [ "$("$pc" record --dry-run -j any_call,ind_jump,u,save_type)" = \
     "type 0 config 0 sample_type 0x10987 branch_sample_type 0x31011 (u,any_call,ind_jmp,save_type,hw_index) exclude_kernel" ] &&
   [ "$("$pc" record --dry-run -j k)" = \
     "type 0 config 0 sample_type 0x10987 branch_sample_type 0x2000a (k,any,hw_index)" ] &&
   ! "$pc" record --dry-run -j any,bogus >/dev/null 2>&1; then
	pass "perf-ctr-record-filters"
else
	fail "perf-ctr-record-filters"
fi
if "$pc" record -e task-clock -c 20000 -o "$work/rec.data" -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' 2>"$work/err"; then
	n=$("$pc" script -F ip -i "$work/rec.data" | wc -l)
	if [ "$n" -gt 0 ] && grep -q "$n samples" "$work/err" &&
	   { ! command -v perf >/dev/null ||
	     [ "$(perf script -F ip -i "$work/rec.data" 2>/dev/null | wc -l)" = "$n" ]; }; then
		pass "perf-ctr-record-readable-by-perf"
	else
		cat "$work/err" >&2
		fail "perf-ctr-record-readable-by-perf"
	fi
else
	cat "$work/err" >&2
	skip "perf-ctr-record-readable-by-perf" "perf_event_open of task-clock fails here"
fi
if [ -e /sys/bus/event_source/devices/cpu/caps/branches ]; then
	skip "perf-ctr-record-no-branch-stacks" "this host has branch stacks"
elif "$pc" record -b -o "$work/rb.data" -- true 2>"$work/err"; then
	fail "perf-ctr-record-no-branch-stacks (succeeded without branch stacks)"
elif grep -q "caps/branches is absent" "$work/err" &&
     grep -qi "branch stack" "$work/err" && [ ! -s "$work/rb.data" ]; then
	pass "perf-ctr-record-no-branch-stacks"
else
	cat "$work/err" >&2
	fail "perf-ctr-record-no-branch-stacks"
fi

# --- data recorded in the riscv64 guest, when someone has committed some ---
shopt -s nullglob
data=("$here"/data/*.data)
if [ ${#data[@]} = 0 ]; then
	skip "perf-ctr-riscv64-data" "no tests/data/*.data recorded in the guest yet"
else
	ok=1
	for f in "${data[@]}"; do
		"$pc" script -i "$f" >"$work/rv.txt" 2>"$work/err" || { cat "$work/err" >&2; ok=0; }
		"$pc" check -i "$f" >"$work/rvc.txt" 2>&1
		[ $? -le 1 ] || { cat "$work/rvc.txt" >&2; ok=0; }
		grep -q ' 0x' "$work/rv.txt" || { echo "$f: no branch records" >&2; ok=0; }
		if command -v perf >/dev/null &&
		   perf script -F brstack -i "$f" >"$work/rvh.txt" 2>/dev/null; then
			"$pc" script $noSpec -i "$f" | cmp -s - "$work/rvh.txt" ||
				{ echo "$f: differs from perf script" >&2; ok=0; }
		fi
	done
	[ $ok = 1 ] && pass "perf-ctr-riscv64-data" || fail "perf-ctr-riscv64-data"
fi

# --- reader speed (printed, not a timed test) ---
"$pc" synth -o "$work/speed.data" --samples 200000 --depth 32 >/dev/null &&
	s=$(date +%s.%N) && "$pc" check -i "$work/speed.data" >/dev/null &&
	e=$(date +%s.%N) &&
	awk -v s="$s" -v e="$e" 'BEGIN { printf "check: 6.4M records in %.3fs, %.1fM records/s\n", e - s, 6.4 / (e - s) }' >&2

exit $rc
