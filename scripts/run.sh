#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [options]: boot the CTR kernel in QEMU with the guest initramfs.
#   --cpu OPTS      QEMU -cpu value (default: max)
#   --config NAME   kernel config, ctr, debug or clang (default: ctr)
#   --smp N         harts (default: 4)
#   --mem SIZE      guest RAM, as QEMU's -m takes it (default: 1G, 2G for
#                   the debug kernel)
#   --icount        exact instruction counting (-icount shift=0,sleep=off:
#                   idle time passes without waiting for the host clock)
#   --run NAME      run /ctr/NAME in the guest and power off (scripted mode)
#   --append ARGS   more kernel command line
#   --timeout S     wall-clock limit of a scripted run (default: 600)
#   --log FILE      also write the console to FILE
# Without --run it is an interactive shell on the console.
# CTR_IMAGE and CTR_INITRD override the kernel image and the initramfs
# path, for runs beside a kernel build; CTR_QEMU_ARGS adds QEMU options
# (a monitor socket to look at a hung guest, say). CTR_SILENT: see
# watch_silence below.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cpu=max config=ctr smp=4 mem= run= append= tmo=600 log=/dev/null icount=()
while [ $# -gt 0 ]; do
	case $1 in
	--cpu) cpu=$2; shift ;;
	--config) config=$2; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--icount) icount=(-icount shift=0,sleep=off) ;;
	--run) run=$2; shift ;;
	--append) append="$append $2"; shift ;;
	--timeout) tmo=$2; shift ;;
	--log) log=$2; shift ;;
	*) die "run.sh: unknown option $1" ;;
	esac
	shift
done

image=${CTR_IMAGE:-$KBUILD/$config/arch/riscv/boot/Image}
initrd=${CTR_INITRD:-$CTR_CACHE/initramfs-$GUEST_SUITE.cpio.gz}
[ -f "$image" ] || die "no kernel image $image: run make kernel"
"$TOP/scripts/mkinitramfs.sh" "$initrd"

if [ -z "$mem" ]; then
	mem=1G
	[ "$config" = debug ] && mem=2G
fi
args=(-M virt -smp "$smp" -m "$mem" -cpu "$cpu" -nographic -no-reboot
	-bios "$OPENSBI_FW" -kernel "$image" -initrd "$initrd" "${icount[@]}")
# shellcheck disable=SC2206 # split on purpose: several options
args+=(${CTR_QEMU_ARGS:-})
cmdline="console=ttyS0 panic=-1 $append"

if [ -z "$run" ]; then
	qemu "${args[@]}" -append "$cmdline"
	exit
fi
# A console silent for CTR_SILENT seconds (default 300) while QEMU runs:
# where QEMU's threads are, once, into LOG.hang (their CPU time, and a
# backtrace of each where gdb is installed). Nothing else changes: the
# guest may go on, and the run's own checks and timeout decide.
watch_silence() {	# LOG PIDFILE
	local log=$1 pidf=$2 size=-1 last=$SECONDS s pid t
	while sleep 10; do
		pid=$(cat "$pidf" 2>/dev/null)
		[ -n "$pid" ] || continue
		kill -0 "$pid" 2>/dev/null || return 0
		s=$(stat -c %s "$log" 2>/dev/null) || return 0
		if [ "$s" != "$size" ]; then
			size=$s last=$SECONDS
			continue
		fi
		[ $((SECONDS - last)) -ge "${CTR_SILENT:-300}" ] || continue
		{
		echo "the console has been silent for $((SECONDS - last)) s;" \
			"QEMU's threads (id, name, CPU seconds):"
		for t in /proc/"$pid"/task/*; do
			echo "  ${t##*/} $(cat "$t/comm") $(awk '{ print ($14 + $15) / 100 }' "$t/stat")"
		done
		# QEMU runs under the root's loader: its symbols by its base
		base=$(awk -v b="$(readlink -f "$QEMU_BIN")" \
			'$6 == b && $3 == "00000000" { print "0x" substr($1, 1, index($1, "-") - 1); exit }' \
			/proc/"$pid"/maps)
		command -v gdb >/dev/null && [ -n "$base" ] &&
			timeout 60 gdb -batch -p "$pid" \
				-ex "add-symbol-file $QEMU_BIN -o $base" \
				-ex 'thread apply all bt 15' 2>&1 |
			grep -E '^(Thread|#)' | grep -v ' in ?? ()' | head -200
		} >"$log.hang" 2>&1
		return 0
	done
}

# A scripted run never waits for input and never outlives its timeout.
# The log follows the console line by line (tr would hold back a block:
# minutes of a debug kernel's output, lost if the run is killed).
rc=0 watcher=
pidf=$(mktemp)
if [ "$log" != /dev/null ]; then
	rm -f "$log.hang"
	watch_silence "$log" "$pidf" &
	watcher=$!
fi
timeout --foreground -k 10 "$tmo" "${ROOT_LOADER[@]}" \
	"$QEMU_BIN" -L "$ROOT/usr/share/qemu" -pidfile "$pidf" \
	"${args[@]}" -append "$cmdline ctr.run=$run" </dev/null |
	stdbuf -oL tr -d '\r' | tee "$log" || rc=$?
[ -z "$watcher" ] || kill "$watcher" 2>/dev/null || true
rm -f "$pidf"
# (pipefail: rc is timeout's 124 when it stopped QEMU)
[ "$rc" = 124 ] && { echo "run.sh: timed out after $tmo s" | tee -a "$log"; exit 124; }
exit $rc
