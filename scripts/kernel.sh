#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel.sh [CONFIG] [MAKE ARGS...]: build Linux 7.3 with this repository's
# series applied, for CONFIG = ctr (default), debug, lint (the ctr
# config in a build tree of its own for W=1 and sparse runs) or clang
# (the ctr config plus CONFIG_AUTOFDO_CLANG, built with LLVM=1 by the
# trixie root's clang and lld 19). The image ends up in
# $KBUILD/CONFIG/arch/riscv/boot/Image; KERNEL_OUT=NAME builds in
# $KBUILD/NAME instead (kernel-autofdo.sh: one tree per profile).
#
# The series is committed in a staging work tree, and the build tree is
# then checked out at that commit: git rewrites only the files that
# differ, so an unchanged file keeps its timestamp and is not rebuilt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cfg=${1:-ctr}
shift || true
case $cfg in
ctr) frags="ctr.config" ;;
lint) frags="ctr.config" ;;	# W=1/sparse builds, kept apart from ctr
# The series must build as the configurations users have: without its
# KUnit tests and KUnit, and KVM without the CTR driver.
lint-nokunit) frags="ctr.config nokunit.config" ;;
lint-noctr) frags="ctr.config noctr.config" ;;
debug) frags="ctr.config debug.config" ;;
clang) frags="ctr.config clang.config" ;;
*) die "unknown kernel config '$cfg' (ctr, debug, clang, lint, lint-nokunit or lint-noctr)" ;;
esac

# clang runs inside the trixie root, which sees the trees through bind
# mounts: in a mount namespace of its own, so that they vanish with it.
if [ "$cfg" = clang ] && [ -z "${KERNEL_CLANG_IN_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || die "the clang kernel needs root (chroot, mount)"
	KERNEL_CLANG_IN_NS=1 exec unshare --mount --propagation private \
		"$0" "$cfg" "$@"
fi

KTREE=$KSRC_DEFAULT
stage=$CTR_CACHE/linux-stage
src=$CTR_CACHE/linux-build
out=$KBUILD/${KERNEL_OUT:-$cfg}
[ -d "$KTREE/.git" ] || die "no kernel source in $KTREE: run make setup"

# Every config is staged in the same two trees: one at a time (a clang
# build may run beside make check's).
exec 9>"$CTR_CACHE/.kernel-stage.lock"
flock 9
for wt in "$stage" "$src"; do
	[ -e "$wt/.git" ] ||
		git -C "$KTREE" worktree add -q --detach "$wt" v7.3-pristine
done

git -C "$stage" checkout -q -f --detach v7.3-pristine
git -C "$stage" clean -q -fdx
"$TOP/scripts/series.sh" "$stage"
git -C "$src" checkout -q -f --detach "$(git -C "$stage" rev-parse HEAD)"
flock -u 9

kmake() {
	make -s -C "$src" O="$out" ARCH=riscv CROSS_COMPILE=$CROSS \
		CC="ccache ${CROSS}gcc" -j"$JOBS" "$@"
}

if [ "$cfg" = clang ]; then
	# LLVM=-19: clang-19, ld.lld-19 and llvm-*-19 for target and host.
	clang_pkgs="clang-19 lld-19 llvm-19 make flex bison bc libc6-dev"
	missing=()
	for p in $clang_pkgs; do
		chroot "$ROOT" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		say "installing into the trixie root: ${missing[*]}"
		apt=(apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends)
		in_root "${apt[@]}" "${missing[@]}" >/dev/null ||
			{ in_root apt-get update -qq &&
			  in_root "${apt[@]}" "${missing[@]}" >/dev/null; } ||
			die "apt-get install ${missing[*]} in $ROOT failed"
	fi
	mkdir -p "$out" "$ROOT/mnt/ksrc" "$ROOT/mnt/kout"
	mount --bind "$src" "$ROOT/mnt/ksrc"
	mount --bind "$out" "$ROOT/mnt/kout"
	kmake() {
		in_root make -s -C /mnt/ksrc O=/mnt/kout ARCH=riscv LLVM=-19 \
			-j"$JOBS" "$@"
	}
fi

# Regenerate .config only when the fragments change.
mkdir -p "$out"
sum=$(cd "$TOP/kernel/configs" && cat $frags | sha1sum | cut -d' ' -f1)
if [ "$(cat "$out/.config-frags" 2>/dev/null)" != "$sum" ]; then
	say "configuring $cfg: tinyconfig + $frags"
	kmake tinyconfig >/dev/null
	(cd "$TOP/kernel/configs" &&
		KCONFIG_CONFIG=$out/.config "$src/scripts/kconfig/merge_config.sh" \
			-m -O "$out" "$out/.config" $frags >/dev/null)
	kmake olddefconfig >/dev/null
	# merge_config.sh only warns when Kconfig drops an option.
	# What the fragments set, a later one's "is not set" overriding.
	missing=$(cd "$TOP/kernel/configs" && cat $frags |
		awk '/^CONFIG_.*=y$/ { split($0, kv, "="); want[kv[1]] = $0 }
		     /^# CONFIG_.* is not set$/ { delete want[$2] }
		     END { for (k in want) print want[k] }' |
		while read -r l; do grep -qx "$l" "$out/.config" || echo "$l"; done)
	[ -z "$missing" ] || die "options not set in $cfg kernel: $missing"
	echo "$sum" >"$out/.config-frags"
fi

say "building $cfg kernel in $out"
kmake "${@:-Image}"
