#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [options]: boot the CTR kernel in QEMU with the guest initramfs.
#   --cpu OPTS      QEMU -cpu value (default: max)
#   --config NAME   kernel config, ctr, debug or clang (default: ctr)
#   --smp N         harts (default: 4)
#   --icount        exact instruction counting (-icount shift=0,sleep=off:
#                   idle time passes without waiting for the host clock)
#   --run NAME      run /ctr/NAME in the guest and power off (scripted mode)
#   --append ARGS   more kernel command line
#   --timeout S     wall-clock limit of a scripted run (default: 600)
#   --log FILE      also write the console to FILE
# Without --run it is an interactive shell on the console.
# CTR_IMAGE and CTR_INITRD override the kernel image and the initramfs
# path, for runs beside a kernel build; CTR_QEMU_ARGS adds QEMU options
# (a monitor socket to look at a hung guest, say).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cpu=max config=ctr smp=4 run= append= tmo=600 log=/dev/null icount=()
while [ $# -gt 0 ]; do
	case $1 in
	--cpu) cpu=$2; shift ;;
	--config) config=$2; shift ;;
	--smp) smp=$2; shift ;;
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

mem=1G
[ "$config" = debug ] && mem=2G
args=(-M virt -smp "$smp" -m "$mem" -cpu "$cpu" -nographic -no-reboot
	-bios "$OPENSBI_FW" -kernel "$image" -initrd "$initrd" "${icount[@]}")
# shellcheck disable=SC2206 # split on purpose: several options
args+=(${CTR_QEMU_ARGS:-})
cmdline="console=ttyS0 panic=-1 $append"

if [ -z "$run" ]; then
	qemu "${args[@]}" -append "$cmdline"
	exit
fi
# A scripted run never waits for input and never outlives its timeout.
# The log follows the console line by line (tr would hold back a block:
# minutes of a debug kernel's output, lost if the run is killed).
rc=0
timeout --foreground -k 10 "$tmo" "${ROOT_LOADER[@]}" \
	"$QEMU_BIN" -L "$ROOT/usr/share/qemu" \
	"${args[@]}" -append "$cmdline ctr.run=$run" </dev/null |
	stdbuf -oL tr -d '\r' | tee "$log" || rc=$?
[ "${PIPESTATUS[0]}" = 124 ] && { echo "run.sh: timed out after $tmo s" | tee -a "$log"; exit 124; }
exit $rc
