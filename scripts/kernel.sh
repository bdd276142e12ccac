#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel.sh [CONFIG] [MAKE ARGS...]: build Linux 7.3 with this repository's
# series applied, for CONFIG = ctr (default), debug, or lint (the ctr
# config in a build tree of its own for W=1 and sparse runs). The image
# ends up in $KBUILD/CONFIG/arch/riscv/boot/Image.
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
*) die "unknown kernel config '$cfg' (ctr, debug, lint, lint-nokunit or lint-noctr)" ;;
esac

KTREE=$KSRC_DEFAULT
stage=$CTR_CACHE/linux-stage
src=$CTR_CACHE/linux-build
out=$KBUILD/$cfg
[ -d "$KTREE/.git" ] || die "no kernel source in $KTREE: run make setup"

for wt in "$stage" "$src"; do
	[ -e "$wt/.git" ] ||
		git -C "$KTREE" worktree add -q --detach "$wt" v7.3-pristine
done

git -C "$stage" checkout -q -f --detach v7.3-pristine
git -C "$stage" clean -q -fdx
"$TOP/scripts/series.sh" "$stage"
git -C "$src" checkout -q -f --detach "$(git -C "$stage" rev-parse HEAD)"

kmake() {
	make -s -C "$src" O="$out" ARCH=riscv CROSS_COMPILE=$CROSS \
		CC="ccache ${CROSS}gcc" -j"$JOBS" "$@"
}

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
