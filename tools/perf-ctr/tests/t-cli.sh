#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-ctr's command line (options.c): one parser for every command, the
# common options after the command's name, record's workload keeping its
# own options, -i/-o everywhere, outputs that appear whole or not at all,
# and the exit status (0 success, 1 error while working, 2 usage error).
. "$(dirname "$0")/lib.sh"
need_tool cli
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

commands="record report script decode check aggregate synth"

"$pc" synth -o a.data --samples 50 --depth 8 --seed 3 &&
"$pc" synth -o bogus.data --samples 16 --depth 4 --bogus ||
	{ fail "cli-synth"; exit 1; }

# No temporary file left anywhere in the work directory.
no_tmp() { [ -z "$(find . -name '*.tmp.*')" ]; }

# --- record: options end at the workload, "--" or not ---
want=$("$pc" record --dry-run -b)
if [ -n "$want" ] &&
   [ "$("$pc" record --dry-run -b -- true)" = "$want" ] &&
   [ "$("$pc" record --dry-run -b true)" = "$want" ] &&
   [ "$("$pc" record --dry-run -bv)" = "$want" ] &&
   [ "$("$pc" record --dry-run --branch-any -- true)" = "$want" ]; then
	pass "cli-record-dash-dash-optional"
else
	fail "cli-record-dash-dash-optional"
fi

# An option after the workload is the workload's: record does not look at
# it, so an option record does not know is no error.
if [ "$("$pc" record --dry-run -b sh -c 'echo "$@"' x -v --bogus 2>&1)" = "$want" ] &&
   [ "$("$pc" record --dry-run -b -- sh --bogus 2>&1)" = "$want" ]; then
	pass "cli-record-workload-options-dry-run"
else
	fail "cli-record-workload-options-dry-run"
fi

# And it reaches the workload, which writes its argv to a file; record's
# own -v before the workload does not.
"$pc" record -v -e task-clock -c 20000 -o argv.data \
	sh -c 'printf "%s\n" "$@" >"$0"' argv.txt -v --bogus -o x 2>record.err
r=$?
if [ $r != 0 ] && grep -q 'cannot open the task-clock event' record.err; then
	cat record.err >&2
	skip "cli-record-workload-gets-its-options" "perf_event_open of task-clock fails here"
elif [ $r = 0 ] && [ "$(cat argv.txt)" = "$(printf -- '-v\n--bogus\n-o\nx')" ] &&
     [ -s argv.data ] && [ ! -e x ] && no_tmp; then
	pass "cli-record-workload-gets-its-options"
else
	cat record.err argv.txt >&2
	fail "cli-record-workload-gets-its-options (exit $r)"
fi

# --- -h/--help: usage on stdout, exit 0, for every command ---
ok=1
for c in $commands; do
	for h in -h --help; do
		if ! "$pc" "$c" $h >help.out 2>help.err || [ -s help.err ] ||
		   ! head -1 help.out | grep -q "^usage: perf-ctr $c " ||
		   ! grep -q -- '--verbose' help.out; then
			echo "perf-ctr $c $h:" >&2
			cat help.out help.err >&2
			ok=0
		fi
	done
done
"$pc" -h | grep -q '^usage: perf-ctr ' && "$pc" help | grep -q '^   aggregate ' &&
	"$pc" help script | grep -q '^usage: perf-ctr script ' || ok=0
[ $ok = 1 ] && pass "cli-help-every-command" || fail "cli-help-every-command"

# --- usage errors: exit 2, one line naming the option, then the usage ---
usage_error() {	# what-must-be-named usage-name argv...
	local name=$1 c=$2 r
	shift 2
	"$pc" "$@" >err.out 2>err.txt
	r=$?
	if [ $r != 2 ] || [ -s err.out ] ||
	   ! head -1 err.txt | grep -q -F -- "$name" ||
	   ! grep -q "^usage: perf-ctr $c" err.txt; then
		echo "perf-ctr $*: exit $r" >&2
		cat err.txt >&2
		return 1
	fi
}
ok=1
for c in $commands; do
	usage_error "'--no-such-option'" "$c" "$c" --no-such-option || ok=0
	usage_error "'-Q'" "$c" "$c" -Q || ok=0
done
usage_error "'--no-such-option'" "" --no-such-option || ok=0
usage_error "'-i'" script script -i || ok=0
usage_error "'--input'" script script --input || ok=0
usage_error "'--limit'" report report --limit 12abc -i a.data || ok=0
usage_error "'--json'" report report --json=yes -i a.data || ok=0
usage_error "'stray'" report report -i a.data stray || ok=0
usage_error "'--in'" aggregate aggregate --in a.data --binary x || ok=0
usage_error "'bogus'" record record --dry-run -j any,bogus || ok=0
usage_error "'nosuchkey'" report report --sort nosuchkey || ok=0
usage_error "-o" synth synth --samples 3 || ok=0
usage_error "'--events'" synth synth -o x.data --events nan || ok=0
usage_error "command to run" record record -v || ok=0
[ $ok = 1 ] && no_tmp && [ ! -e x.data ] && pass "cli-usage-errors-exit-2" ||
	fail "cli-usage-errors-exit-2"

# --- the forms of an option's argument ---
"$pc" script -i a.data >s.ref
ok=1
for form in "--input=a.data" "--input a.data" "-ia.data" "--inp a.data"; do
	# shellcheck disable=SC2086
	"$pc" script $form >s.out && cmp -s s.ref s.out || { echo "script $form" >&2; ok=0; }
done
# The default input, and "-" for stdin.
cp a.data perf.data && "$pc" script | cmp -s s.ref - || ok=0
rm -f perf.data
"$pc" script -i - <a.data | cmp -s s.ref - || ok=0
[ -s s.ref ] && [ $ok = 1 ] && pass "cli-input-forms" || fail "cli-input-forms"

# --- the common options after the command's name, and before it ---
# check -v prints every example, not only --max-examples of each.
n1=$("$pc" check --max-examples 1 -i bogus.data | grep -c ': sample at offset')
nv=$("$pc" check --max-examples 1 -v -i bogus.data | grep -c ': sample at offset')
nvb=$("$pc" -v check --max-examples 1 -i bogus.data | grep -c ': sample at offset')
if [ "$n1" = 4 ] && [ "$nv" = 10 ] && [ "$nvb" = 10 ] &&
   "$pc" report --symfs=/nonexistent -i a.data >/dev/null &&
   "$pc" --symfs /nonexistent report -i a.data >/dev/null; then
	pass "cli-common-options-before-and-after-command"
else
	fail "cli-common-options-before-and-after-command ($n1 $nv $nvb)"
fi

# --- -o: the same bytes as stdout, written whole ---
ok=1
for args in "report -i a.data --limit 7" "report -i a.data --json" \
	    "report -i a.data --folded" "script -i a.data -F ip,brstack" \
	    "decode 0x1001 0x2001 0x8000800c 0x41 0x0 0x3"; do
	# shellcheck disable=SC2086
	"$pc" $args >o.ref && "$pc" $args -o o.file && "$pc" $args --output=o.file2 &&
		cmp -s o.ref o.file && cmp -s o.ref o.file2 && [ -s o.ref ] ||
		{ echo "$args -o differs from stdout" >&2; ok=0; }
done
"$pc" check -i bogus.data >o.ref
[ $? = 1 ] || ok=0
"$pc" check -i bogus.data -o o.file
[ $? = 1 ] && cmp -s o.ref o.file || ok=0
printf '0x1001 0x2001 0x8000800c\n' >triplets.txt
"$pc" decode -i triplets.txt -o o.file &&
	[ "$("$pc" decode 0x1001 0x2001 0x8000800c)" = "$(cat o.file)" ] || ok=0
[ $ok = 1 ] && no_tmp && pass "cli-output-same-as-stdout" || fail "cli-output-same-as-stdout"

# --- -o to what is not a regular file: a FIFO or a device is written in
# place, never replaced by a file; a symbolic link stays one, and the file
# it points to gets the output ---
ok=1
"$pc" report -i a.data --limit 7 >o.ref
"$pc" script -i a.data -F ip,brstack >s.ref
for c in "report -i a.data --limit 7:o.ref" "script -i a.data -F ip,brstack:s.ref"; do
	rm -f o.fifo got
	mkfifo o.fifo
	timeout 20 cat o.fifo >got &
	reader=$!
	# shellcheck disable=SC2086
	timeout 20 "$pc" ${c%:*} -o o.fifo || ok=0
	wait $reader
	[ -p o.fifo ] && cmp -s "${c#*:}" got ||
		{ echo "perf-ctr ${c%:*} -o FIFO: not written in place" >&2; ok=0; }
done
rm -f o.fifo
echo old >real.txt
ln -s real.txt link.txt
"$pc" report -i a.data --limit 7 -o link.txt &&
	[ -L link.txt ] && cmp -s o.ref real.txt ||
	{ echo "perf-ctr report -o SYMLINK: link replaced or target not written" >&2; ok=0; }
ln -s real.data link.data
"$pc" synth -o link.data --samples 5 --depth 2 &&
	[ -L link.data ] && [ -s real.data ] ||
	{ echo "perf-ctr synth -o SYMLINK: link replaced or target not written" >&2; ok=0; }
# As root, a rename over /dev/null would replace the device for everyone.
if [ -c /dev/null ]; then
	"$pc" report -i a.data -o /dev/null || ok=0
	if [ ! -c /dev/null ]; then
		echo "perf-ctr report -o /dev/null replaced the device" >&2
		ok=0
		rm -f /dev/null && mknod -m 666 /dev/null c 1 3
	fi
fi
[ $ok = 1 ] && no_tmp && pass "cli-output-in-place-when-not-a-regular-file" ||
	fail "cli-output-in-place-when-not-a-regular-file"

# --- a failing command leaves no file, no temporary file, and an
# existing output untouched; exit 1 (check: 2) ---
python3 "$here/mk-bad-record.py" a.data trunc.data
echo precious >keep.txt
ok=1
expect_fail() {	# status args...
	local want=$1 r
	shift
	"$pc" "$@" 2>fail.err >/dev/null
	r=$?
	if [ $r != "$want" ]; then
		echo "perf-ctr $*: exit $r, want $want" >&2
		cat fail.err >&2
		ok=0
	fi
}
expect_fail 1 aggregate -i a.data --binary /bin/true -o keep.txt
expect_fail 1 aggregate -i a.data --binary /bin/true -o new.txt
expect_fail 1 script -i trunc.data -o keep.txt
expect_fail 1 script -i trunc.data -o new.txt
expect_fail 1 report -i trunc.data -o keep.txt
expect_fail 2 check -i trunc.data -o keep.txt
expect_fail 1 script -i no-such.data -o new.txt
printf '0x1001 0x2001 0x8000800c\n1 2\n' | "$pc" decode -o keep.txt 2>/dev/null && ok=0
printf '0x1001 0x2001 0x8000800c\n1 2\n' | "$pc" decode -o new.txt 2>/dev/null && ok=0
expect_fail 1 synth -o keep.txt --binary /no/such/elf
[ "$(cat keep.txt)" = precious ] && [ ! -e new.txt ] || ok=0
[ $ok = 1 ] && no_tmp && pass "cli-failed-output-not-written" ||
	{ ls -a >&2; fail "cli-failed-output-not-written"; }

# Killed while it writes (SIGTERM once its temporary file exists): the
# output is as it was and no temporary file stays.
"$pc" synth -o big.data --samples 100000 --depth 32 --seed 3 >/dev/null 2>&1
echo precious >keep.txt
"$pc" script -i big.data -o keep.txt &
p=$!
i=0
while [ -z "$(find . -name 'keep.txt.tmp.*')" ] && [ $i -lt 500 ]; do
	sleep 0.01
	i=$((i + 1))
done
kill -TERM $p 2>/dev/null
wait $p
r=$?
if [ $r = 143 ] && [ "$(cat keep.txt)" = precious ] && no_tmp; then
	pass "cli-killed-output-not-written"
elif [ $r = 0 ]; then
	skip "cli-killed-output-not-written" "script ended before the signal"
else
	ls -a >&2
	fail "cli-killed-output-not-written (exit $r)"
fi

# The input cut short by another process while it is read: an error
# naming it, not SIGBUS.
"$pc" script -i big.data -o /dev/null 2>shrink.err &
p=$!
i=0
while ! ls -l /proc/$p/fd 2>/dev/null | grep -q big.data && [ $i -lt 500 ]; do
	sleep 0.01
	i=$((i + 1))
done
truncate -s 4096 big.data
wait $p
r=$?
if [ $r = 1 ] && grep -q "big.data: offset 0x0: the file shrank below its [0-9]* bytes while it was read" shrink.err; then
	pass "cli-input-shrinks-while-read"
elif [ $r = 0 ]; then
	skip "cli-input-shrinks-while-read" "script ended before the truncation"
else
	cat shrink.err >&2
	fail "cli-input-shrinks-while-read (exit $r)"
fi
rm -f big.data

# A write error is an error: exit 1 (check: 2).
if [ -w /dev/full ]; then
	ok=1
	"$pc" script -i a.data >/dev/full 2>/dev/null; [ $? = 1 ] || ok=0
	"$pc" report -i a.data >/dev/full 2>/dev/null; [ $? = 1 ] || ok=0
	"$pc" check -i a.data >/dev/full 2>/dev/null; [ $? = 2 ] || ok=0
	[ $ok = 1 ] && pass "cli-write-error" || fail "cli-write-error"
else
	skip "cli-write-error" "no /dev/full"
fi

# synth and record write through the writer: the file appears complete,
# no temporary file stays, and an existing file is replaced.
echo old >w.data
if "$pc" synth -o w.data --samples 5 --depth 2 && no_tmp &&
   [ "$("$pc" script -i w.data | wc -l)" = 5 ]; then
	pass "cli-writer-renames"
else
	fail "cli-writer-renames"
fi

exit $rc
