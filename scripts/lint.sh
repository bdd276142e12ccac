#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh patches|checkpatch|apply|build-warnings
#   patches         write the series as git format-patch files to out/patches
#   checkpatch      checkpatch.pl --strict over that series: 0 errors, 0 warnings
#   apply           git am the series onto pristine 7.3; the result must be
#                   the tree that make kernel builds
#   build-warnings  rebuild the objects of the files the series touches with
#                   W=1 and sparse (C=2): no warning at all
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KTREE=$KSRC_DEFAULT
stage=$CTR_CACHE/linux-stage
src=$CTR_CACHE/linux-build
pdir=$TOP/out/patches

make_patches() {
	"$TOP/scripts/kernel.sh" ctr prepare >/dev/null
	rm -rf "$pdir"
	mkdir -p "$pdir"
	git -C "$stage" format-patch -q --no-signature --zero-commit \
		-o "$pdir" v7.3-pristine..HEAD
	git -C "$stage" format-patch -q --no-signature --zero-commit \
		--stdout v7.3-pristine..HEAD >"$TOP/out/riscv-ctr.mbox"
	say "$(ls "$pdir" | wc -l) patches in $pdir"
}

case ${1:-} in
patches)
	make_patches
	;;
checkpatch)
	make_patches
	# checkpatch leaves a cache file in the current directory. The
	# kernel tree holds 7.3 as one commit, without upstream history:
	# checkpatch cannot look up the commits that Fixes: tags name.
	(cd "$TOP/out" && "$src/scripts/checkpatch.pl" --strict --show-types \
		--ignore UNKNOWN_COMMIT_ID \
		--root="$src" "$pdir"/*.patch) | tee "$TOP/out/checkpatch.log" || true
	n=$(grep -c '^total: 0 errors, 0 warnings,' "$TOP/out/checkpatch.log")
	[ "$n" = "$(ls "$pdir" | wc -l)" ]
	;;
apply)
	make_patches
	t=$CTR_CACHE/linux-am
	[ -e "$t/.git" ] ||
		git -C "$KTREE" worktree add -q --detach "$t" v7.3-pristine
	git -C "$t" am --abort >/dev/null 2>&1 || true
	git -C "$t" checkout -q -f --detach v7.3-pristine
	git -C "$t" clean -q -fdx
	git -C "$t" am -q "$pdir"/*.patch
	[ "$(git -C "$t" rev-parse 'HEAD^{tree}')" = \
	  "$(git -C "$stage" rev-parse 'HEAD^{tree}')" ] ||
		die "the series applied with git am differs from the built tree"
	say "git am: $(ls "$pdir" | wc -l) patches apply to pristine 7.3"
	;;
build-warnings)
	objs="drivers/perf/riscv_ctr.o drivers/perf/riscv_ctr_test.o
		drivers/perf/riscv_pmu_sbi.o drivers/perf/riscv_pmu.o
		arch/riscv/kernel/cpufeature.o arch/riscv/kernel/sbi.o
		arch/riscv/kvm/aia.o arch/riscv/kvm/isa.o arch/riscv/kvm/vcpu.o
		arch/riscv/kvm/vcpu_config.o arch/riscv/kvm/vcpu_insn.o
		arch/riscv/kvm/vcpu_onereg.o arch/riscv/kvm/vcpu_pmu.o"
	"$TOP/scripts/kernel.sh" lint W=1 C=2 CHECK="$SPARSE" $objs 2>&1 |
		tee "$TOP/out/build-warnings.log"
	! grep -E 'warning|error' "$TOP/out/build-warnings.log" ||
		die "W=1 or sparse warnings in the files the series touches"
	;;
*)
	die "usage: lint.sh patches|checkpatch|apply|build-warnings"
	;;
esac
