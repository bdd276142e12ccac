#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh patches|checkpatch|apply|build-warnings
#   patches         write each series of patches/series as git format-patch
#                   files with a cover letter to out/patches/NAME, and as
#                   one mbox to out/mbox/NAME.mbox
#   checkpatch      checkpatch.pl --strict over every patch: 0 errors, 0
#                   warnings
#   apply           git am each series onto pristine 7.3 after the series it
#                   needs; all of them in order must give the tree that
#                   make kernel builds
#   build-warnings  rebuild the objects of the files the series touches with
#                   W=1 and sparse (C=2), then with W=1 in a kernel without
#                   KUnit, in one without the CTR driver and with clang 19:
#                   no warning at all
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KTREE=$KSRC_DEFAULT
stage=$CTR_CACHE/linux-stage
src=$CTR_CACHE/linux-build
pdir=$TOP/out/patches

# The series of patches/series: "NAME NEEDS COUNT" lines, in order.
list_series() {
	awk '/^series / { if (name) print name, needs, n
			  name = $2; needs = $3 ? $3 : "-"; n = 0; next }
	     /^[^#[:space:]]/ { n++ }
	     END { if (name) print name, needs, n }' "$TOP/patches/series"
}

# Each series in out/patches/NAME: a cover letter from
# patches/NAME/cover-letter, then the patches numbered 1/N to N/N, with the
# base (pristine 7.3) and, for a series that needs another, the patch ids
# of the patches that go before it (git format-patch --base).
make_patches() {
	"$TOP/scripts/kernel.sh" ctr prepare >/dev/null
	rm -rf "$pdir" "$TOP/out/riscv-ctr.mbox" "$TOP/out/mbox"
	mkdir -p "$pdir" "$TOP/out/mbox"
	mapfile -t commits < <(git -C "$stage" rev-list --reverse \
		v7.3-pristine..HEAD)
	local at=0 name needs n cover subject
	while read -r name needs n; do
		cover=$TOP/patches/$name/cover-letter
		[ -f "$cover" ] || die "series $name has no $cover"
		subject=$(head -n 1 "$cover")
		git -C "$stage" format-patch -q --no-signature --zero-commit \
			--cover-letter --base=v7.3-pristine -o "$pdir/$name" \
			"${commits[$at]}^..${commits[$((at + n - 1))]}"
		fill_cover "$pdir/$name/0000-cover-letter.patch" "$cover" "$needs"
		cat "$pdir/$name"/*.patch >"$TOP/out/mbox/$name.mbox"
		at=$((at + n))
		say "$name: $n patches and a cover letter in $pdir/$name ($subject)"
	done < <(list_series)
	[ "$at" = ${#commits[@]} ] ||
		die "patches/series names $at patches, the tree has ${#commits[@]}"
}

# fill_cover LETTER COVER NEEDS: the subject and text of COVER in the cover
# letter git wrote, and what the series applies on.
fill_cover() {
	local letter=$1 cover=$2 needs=$3 dep=
	if [ "$needs" != - ]; then
		dep="It applies to v7.3 after the series \"$(head -n 1 \
			"$TOP/patches/$needs/cover-letter")\" ($needs), whose patches the
prerequisite-patch-id lines below name."
	else
		dep="It applies to v7.3 on its own."
	fi
	SUBJECT=$(head -n 1 "$cover") BLURB="$(tail -n +3 "$cover")

$dep" python3 - "$letter" <<'PY'
import os, sys
p = sys.argv[1]
s = open(p).read()
s = s.replace('*** SUBJECT HERE ***', os.environ['SUBJECT'], 1)
s = s.replace('*** BLURB HERE ***', os.environ['BLURB'], 1)
open(p, 'w').write(s)
PY
}

# series_patches NAME: the patches of series NAME, without its cover letter.
series_patches() {
	ls "$pdir/$1"/*.patch | grep -v '/0000-cover-letter\.patch$'
}

# The patches of every series, in order.
all_patches() {
	local name _
	while read -r name _; do
		series_patches "$name"
	done < <(list_series)
}

# am_series TREE NAME...: pristine 7.3 in TREE, then git am of each series.
am_series() {
	local t=$1 name
	shift
	git -C "$t" am --abort >/dev/null 2>&1 || true
	git -C "$t" checkout -q -f --detach v7.3-pristine
	git -C "$t" clean -q -fdx
	for name in "$@"; do
		mapfile -t files < <(series_patches "$name")
		git -C "$t" am -q "${files[@]}" ||
			die "series $name does not apply after: v7.3 $*"
	done
}

# needs_of NAME: the series NAME needs, the furthest first.
needs_of() {
	local name=$1 needs
	needs=$(list_series | awk -v n="$name" '$1 == n { print $2 }')
	[ "$needs" = - ] || { needs_of "$needs"; echo "$needs"; }
}

case ${1:-} in
patches)
	make_patches
	;;
checkpatch)
	make_patches
	mapfile -t files < <(all_patches)
	# checkpatch leaves a cache file in the current directory. The
	# kernel tree holds 7.3 as one commit, without upstream history:
	# checkpatch cannot look up the commits that Fixes: tags name.
	(cd "$TOP/out" && "$src/scripts/checkpatch.pl" --strict --show-types \
		--ignore UNKNOWN_COMMIT_ID \
		--root="$src" "${files[@]}") | tee "$TOP/out/checkpatch.log" || true
	n=$(grep -c '^total: 0 errors, 0 warnings,' "$TOP/out/checkpatch.log")
	[ "$n" = ${#files[@]} ]
	;;
apply)
	make_patches
	t=$CTR_CACHE/linux-am
	[ -e "$t/.git" ] ||
		git -C "$KTREE" worktree add -q --detach "$t" v7.3-pristine
	# Each series on pristine 7.3 with only the series it needs.
	while read -r name _; do
		mapfile -t chain < <(needs_of "$name")
		am_series "$t" "${chain[@]}" "$name"
		say "git am: $name applies to v7.3${chain[*]:+ after ${chain[*]}}"
	done < <(list_series)
	# All of them: the tree make kernel builds.
	mapfile -t every < <(list_series | cut -d' ' -f1)
	am_series "$t" "${every[@]}"
	[ "$(git -C "$t" rev-parse 'HEAD^{tree}')" = \
	  "$(git -C "$stage" rev-parse 'HEAD^{tree}')" ] ||
		die "the series applied with git am differ from the built tree"
	say "git am: the $(all_patches | wc -l) patches of ${every[*]} give the built tree"
	;;
build-warnings)
	objs="drivers/perf/riscv_ctr.o drivers/perf/riscv_ctr_test.o
		drivers/perf/riscv_pmu_sbi.o drivers/perf/riscv_pmu.o
		arch/riscv/kernel/cpufeature.o arch/riscv/kernel/sbi.o
		arch/riscv/kvm/aia.o arch/riscv/kvm/isa.o arch/riscv/kvm/vcpu.o
		arch/riscv/kvm/vcpu_config.o arch/riscv/kvm/vcpu_insn.o
		arch/riscv/kvm/vcpu_onereg.o arch/riscv/kvm/vcpu_pmu.o
		arch/riscv/kvm/vcpu_ssctr.o"
	"$TOP/scripts/kernel.sh" lint W=1 C=2 CHECK="$SPARSE" $objs 2>&1 |
		tee "$TOP/out/build-warnings.log"
	# The same files as users build them: without KUnit (the driver's
	# test hooks compile away), and KVM without the driver (its stubs).
	"$TOP/scripts/kernel.sh" lint-nokunit W=1 \
		$(echo $objs | tr ' ' '\n' | grep -v riscv_ctr_test) 2>&1 |
		tee -a "$TOP/out/build-warnings.log"
	"$TOP/scripts/kernel.sh" lint-noctr W=1 \
		$(echo $objs | tr ' ' '\n' | grep -v riscv_ctr) 2>&1 |
		tee -a "$TOP/out/build-warnings.log"
	# And with clang 19 (the AutoFDO kernel's compiler), in its own tree.
	KERNEL_OUT=lint-clang "$TOP/scripts/kernel.sh" clang W=1 $objs 2>&1 |
		tee -a "$TOP/out/build-warnings.log"
	! grep -E 'warning|error' "$TOP/out/build-warnings.log" ||
		die "W=1 or sparse warnings in the files the series touches"
	;;
*)
	die "usage: lint.sh patches|checkpatch|apply|build-warnings"
	;;
esac
