#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-autofdo.sh roundtrip: the kernel AutoFDO loop, small. The clang
# kernel (kernel.sh clang: CONFIG_AUTOFDO_CLANG) records a kernel
# workload in the guest (scripts/guest/kprofile: perf record -a -e
# instructions:k -j any,k), perf-ctr aggregate turns the recording into
# the LLVM profile of its vmlinux, llvm-profdata 19 reads it, and clang
# 19 builds a kernel file with it as CLANG_AUTOFDO_PROFILE. Prints
# PASS/FAIL lines; exits non-zero on any FAIL. Files in out/kautofdo/.
# kernel-autofdo.sh speed: the round trip, then perf-ctr and the peer
# (perf script + llvm-profgen --kernel) timed on its recording.
# kernel-autofdo.sh full: the whole loop (kernel-autofdo-full.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-roundtrip}
case $mode in roundtrip | full | speed) ;; *) die "usage: kernel-autofdo.sh roundtrip|full|speed" ;; esac
W=$TOP/out/kautofdo
PC=$TOP/out/perf-ctr/perf-ctr
KOUT=$KBUILD/clang
rc=0
result() {	# PASS|FAIL NAME
	echo "$1 kernel AutoFDO: $2"
	[ "$1" != FAIL ] || rc=1
}
mkdir -p "$W"

"$TOP/scripts/kernel.sh" clang >&2 || { result FAIL "clang kernel build"; exit 1; }
[ -x "$PC" ] || make -s -C "$TOP/tools/perf-ctr" >&2

# Debian 12's libdw (0.188) cannot read the line tables of about half the
# compile units clang 19 and lld 19 write for the kernel: perf-ctr runs
# on the trixie root's libraries, with elfutils from trixie-backports
# (0.196 reads them all).
root_libdw() {
	local v
	v=$(chroot "$ROOT" dpkg-query -W -f='${Version}' libdw1t64 2>/dev/null || true)
	case $v in 0.19[3-9]* | 0.2*) return ;; esac
	say "installing libdw1t64 from trixie-backports into the trixie root"
	in_root apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends \
		-t trixie-backports libdw1t64 >/dev/null
}
if ! root_libdw; then
	result FAIL "libdw1t64 from trixie-backports in $ROOT (apt-get install failed)"
	exit 1
fi
pc() { "${ROOT_LOADER[@]}" "$PC" "$@"; }

[ "$mode" = roundtrip ] || . "$TOP/scripts/kernel-autofdo-peer.sh"
[ "$mode" = full ] && . "$TOP/scripts/kernel-autofdo-full.sh"
rm -rf "$W/files"

"$TOP/scripts/run.sh" --config clang --cpu max --run kprofile \
	--append "ctr.kload=small" --timeout 900 --log "$W/record.log" >/dev/null || true
python3 "$TOP/scripts/results.py" kprofile "$W/record.log" >"$W/record.results"
sed 's/^/# /' "$W/record.results" >&2
python3 "$TOP/scripts/guest-files.py" "$W/record.log" "$W/files" >/dev/null || true
data=$W/files/kprofile.data
if [ -s "$data" ] && ! grep -q '^FAIL' "$W/record.results"; then
	result PASS "perf record -a -e instructions:k -j any,k in the clang kernel"
else
	result FAIL "perf record -a -e instructions:k -j any,k in the clang kernel (see $W/record.log)"
	exit 1
fi

# The profile of vmlinux: samples of the kernel, relocated by the
# recording's own kernel map.
prof=$KOUT/autofdo.prof
if pc aggregate -v -i "$data" --binary "$KOUT/vmlinux" -f llvm-text \
	-o "$prof" 2>"$W/aggregate.err"; then
	sed 's/^/# /' "$W/aggregate.err" | grep -v '^#   memory' >&2
	n=$(sed -n 's/.*: \([0-9]*\) samples (\([0-9]*\) outside.*/\1 \2/p' "$W/aggregate.err")
	set -- $n
	result PASS "perf-ctr aggregate --binary vmlinux: $(($1 - $2)) of $1 samples in the kernel's text"
else
	cat "$W/aggregate.err" >&2
	result FAIL "perf-ctr aggregate --binary vmlinux"
	exit 1
fi

# The same ranges symbolized by llvm-profgen 19: every function's head
# count the same (functions of equal totals come in either order; their
# bodies differ in a few hundred of some 50,000 lines: where a row of
# the line table has discriminator bits above 2^26, and inlined frames
# of a few rows). One rule differs, and afdo-heads.py allows for it:
# llvm-profgen takes a jump from inside a function to its first byte (a
# retry loop at the top of mutex_lock) for an entry, perf-ctr does not.
rm -f "$W/heads.out"
if pc aggregate -i "$data" --binary "$KOUT/vmlinux" -f llvm-unsym \
	-o "$W/vmlinux.unsym" 2>/dev/null &&
   root_exec /usr/lib/llvm-19/bin/llvm-profgen --unsymbolized-profile="$W/vmlinux.unsym" \
	--binary="$KOUT/vmlinux" --format=text --output="$W/profgen.prof" 2>/dev/null &&
   python3 "$TOP/scripts/afdo-heads.py" "$W/profgen.prof" "$prof" \
	"$W/vmlinux.unsym" "$KOUT/vmlinux" >"$W/heads.out"; then
	echo "# $(diff "$W/profgen.prof" "$prof" | grep -c '^[<>]') of $(wc -l <"$prof") lines differ from llvm-profgen's" >&2
	sed 's/^#* */# /' "$W/heads.out" >&2
	result PASS "every function's head count is llvm-profgen's ($(grep -vc '^ ' "$prof") functions)"
else
	[ ! -f "$W/heads.out" ] || sed 's/^#* */# /' "$W/heads.out" >&2
	result FAIL "every function's head count is llvm-profgen's"
fi

profdata=/usr/lib/llvm-19/bin/llvm-profdata
if root_exec "$profdata" show --sample "$prof" >"$W/show.txt" 2>"$W/show.err" &&
   [ ! -s "$W/show.err" ] &&
   grep -q '^Function: anon_pipe_write: [1-9]' "$W/show.txt"; then
	result PASS "llvm-profdata 19 reads the profile ($(grep -c '^Function: ' "$W/show.txt") functions, anon_pipe_write among them)"
else
	cat "$W/show.err" >&2
	result FAIL "llvm-profdata 19 reads the profile, anon_pipe_write in it"
fi

# clang with the profile: one file of the workload's hot path. The
# profile is in the build tree, which the trixie root sees at /mnt/kout.
rm -f "$KOUT/fs/pipe.o"
if "$TOP/scripts/kernel.sh" clang CLANG_AUTOFDO_PROFILE=/mnt/kout/autofdo.prof \
	fs/pipe.o >"$W/build.log" 2>&1 && [ -s "$KOUT/fs/pipe.o" ] &&
   grep -q 'fprofile-sample-use=/mnt/kout/autofdo.prof' "$KOUT/fs/.pipe.o.cmd"; then
	result PASS "clang 19 builds fs/pipe.o with the profile (CLANG_AUTOFDO_PROFILE)"
else
	tail -5 "$W/build.log" >&2
	result FAIL "clang 19 builds fs/pipe.o with the profile (CLANG_AUTOFDO_PROFILE)"
fi
if [ "$mode" = speed ]; then
	profile_speed "$data" "the round trip's recording" "$W" ||
		result FAIL "perf script of the round trip's recording has no kernel map"
fi
exit $rc
