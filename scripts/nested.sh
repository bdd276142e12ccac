#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make nested: perf record -b in a nested Linux guest. The -cpu max guest
# (L1, this kernel, KVM) runs Debian's riscv64 QEMU (qemu-system-riscv
# from forky, 11.1) with KVM, which boots L2: this kernel and this
# initramfs again. Debian's QEMU knows neither KVM's Ssctr register nor
# the device tree name, so scripts/nested/ssctr-shim.c, preloaded into
# it, turns the register on for every vCPU, and L1 adds the names to
# QEMU's device tree (scripts/guest/nested). L2 records the workload
# with Debian's perf (scripts/guest/l2); the host judges the recordings
# as make check judges the L1 guest's (tools/perf-ctr/tests/e2e.py) and
# prints the nested boot times. About 2.5 minutes; make check runs it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

W=$CTR_CACHE/nested
SUITE=forky
IMAGE=$KBUILD/ctr/arch/riscv/boot/Image
BASE=$CTR_CACHE/initramfs-$GUEST_SUITE.cpio.gz
T0=$(date +%s)
mkdir -p "$W/debs"
[ -f "$IMAGE" ] || die "no kernel image $IMAGE: run make kernel"
"$TOP/scripts/mkinitramfs.sh" "$BASE"

# Debian's riscv64 QEMU and dtc, with the libraries they load: the
# runtime closure over forky's riscv64 index, less what only a booted
# Debian system uses (systemd) and the firmware and ROMs that a KVM
# guest without a network card never loads.
index=$(ls "$ROOT"/var/lib/apt/lists/*_dists_${SUITE}_main_binary-riscv64_Packages 2>/dev/null) ||
	die "no riscv64 index for $SUITE in $ROOT (scripts/setup.sh)"
pkgs=$(python3 "$TOP/scripts/guest-deps.py" "$index" qemu-system-riscv device-tree-compiler |
	grep -v -E '^(systemd|libsystemd-shared|opensbi|ipxe-qemu|qemu-system-data)(:|$)')
# shellcheck disable=SC2086 # a list of names
debs=$(fetch_debs "$W/debs" "$SUITE" $pkgs) ||
	die "downloading the nested VMM's packages failed"
st=$W/stage
rm -rf "$st"
mkdir -p "$st/nested/q"
for d in $debs; do
	dpkg-deb -x "$d" "$st/nested/q"
done
rm -rf "$st"/nested/q/usr/share/{doc,man,locale,lintian,bash-completion,zsh} \
	"$st"/nested/q/usr/lib/systemd "$st"/nested/q/etc/systemd \
	"$st"/nested/q/usr/bin/qemu-system-riscv32 "$st"/nested/q/usr/bin/qemu-pr-helper
[ -x "$st/nested/q/usr/bin/qemu-system-riscv64" ] || die "no qemu-system-riscv64 in $SUITE's package"

"${CROSS}gcc" -O2 -Wall -Wextra -Werror -shared -fPIC -I"$CTR_CACHE/uapi/include" \
	-o "$st/nested/ssctr-shim.so" "$TOP/scripts/nested/ssctr-shim.c" -ldl ||
	die "ssctr-shim.c does not build (the series' uapi headers: make kernel)"
cp "$IMAGE" "$st/nested/Image"
cp "$BASE" "$st/nested/l2.cpio.gz"
(cd "$st" && find nested | cpio -o -H newc --quiet | gzip -1) >"$W/nested.cpio.gz"
# The kernel unpacks concatenated archives one after the other.
cat "$BASE" "$W/nested.cpio.gz" >"$W/initrd.cpio.gz"

say "nested: booting L1 ($(du -h "$W/nested.cpio.gz" | cut -f1) for it)"
log=$TOP/out/nested/console.log
mkdir -p "$(dirname "$log")"
t=$(date +%s)
# -icount: without it L2's user-only counts overflowed seldom (5 and 18
# samples, where the same recordings in L1 get 34 and 256), mostly where
# the workload starts and exits. AIA stays on: without it KVM offers L2
# no Sscofpmf, so no sampling.
CTR_INITRD=$W/initrd.cpio.gz "$TOP/scripts/run.sh" --smp 2 --icount \
	--cpu max --run nested \
	--timeout "${NESTED_TIMEOUT:-900}" --log "$log" >/dev/null 2>&1 || true
say "nested: L1 ran for $(($(date +%s) - t)) s"
grep -a -E '^(nested|l2): ' "$log" | grep -v 'QEMU.s L2 extensions' || true
files=$TOP/out/nested/files
rm -rf "$files"
python3 "$TOP/scripts/guest-files.py" "$log" "$files" >/dev/null ||
	die "a recording did not come back whole: $log"
rc=0
python3 "$TOP/tools/perf-ctr/tests/e2e.py" "$files" "$CTR_CACHE/guest-bin" |
	sed 's/^\(PASS\|FAIL\|SKIP\) e2e:/\1 nested L2:/' | tee "$TOP/out/nested/results" || rc=1
grep -q '^FAIL' "$TOP/out/nested/results" && rc=1
# L2's samples follow the period: one per 20011 user instructions of
# the workload (perf stat's count in the same L2), with 10% to spare.
# Before the fix of the SBI PMU snapshot restart (patch 0001) it got 2.
n=$(grep -a -o 'l2: perf stat: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
s=$(grep -a -o 'l2: perf record -j any,u,save_type: exit 0, [0-9]* samples' "$log" |
	tail -1 | grep -o '[0-9]* samples' | cut -d' ' -f1)
want=$(( ${n:-0} / 20011 * 9 / 10 ))
if [ -n "$s" ] && [ "$want" -gt 0 ] && [ "$s" -ge "$want" ]; then
	echo "PASS nested L2: perf record -b samples follow the period ($s for ${n} instructions:u at 20011)"
else
	echo "FAIL nested L2: perf record -b samples follow the period (${s:-no} samples for ${n:-no count of} instructions:u at 20011, want $want or more)"
	rc=1
fi
# Both kernels run the driver's KUnit suites at boot, L2 on a hart
# without the H extension.
if grep -a -E '\] not ok [0-9]+ riscv_ctr' "$log" >&2; then
	echo "FAIL nested: a KUnit suite of riscv_ctr failed in L1 or L2 (above)"
	rc=1
else
	echo "PASS nested: KUnit suites of riscv_ctr in L1 and in both L2 boots"
fi
if grep -a -E 'WARNING:|BUG:|Oops|lockdep|KASAN|rcu.*stall' "$log" >&2; then
	echo "FAIL nested: a warning in a guest's log (above)"
	rc=1
fi
say "make nested: $(($(date +%s) - T0)) s"
exit $rc
