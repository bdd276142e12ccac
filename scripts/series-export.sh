#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series-export.sh TREE: write the hook patches of patches/series back from
# the commits v7.3-pristine..HEAD of the git work tree TREE, one commit per
# patch line, leaving out the new files the line names (they live in
# this repository). Each patch goes to the directory of its series,
# numbered within it. The way to edit a hook patch: series.sh into a
# tree, amend the commit there (git rebase), export; to move a patch to
# another series or place, reorder the commits and the lines alike.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$1
list=$TOP/patches/series
mapfile -t lines < <(grep -v '^\s*\(#\|$\|series \)' "$list")
mapfile -t commits < <(git -C "$tree" rev-list --reverse v7.3-pristine..HEAD)
[ ${#lines[@]} = ${#commits[@]} ] ||
	die "$tree has ${#commits[@]} commits, patches/series ${#lines[@]} lines"

new_list=$(mktemp)
rm -f "$TOP"/patches/*.patch "$TOP"/patches/*/*.patch
i=0
series=
n=0
while IFS= read -r line; do
	case $line in
	'' | '#'*)
		echo "$line" >>"$new_list"
		continue
		;;
	'series '*)
		read -r _ series _ <<<"$line"
		n=0
		echo "$line" >>"$new_list"
		continue
		;;
	esac
	[ -n "$series" ] || die "patches/series: a patch line before any series"
	n=$((n + 1))
	read -r _ files <<<"$line"
	excl=()
	for f in $files; do excl+=(":(exclude)$f"); done
	c=${commits[$i]}
	out=$TOP/patches/$series
	if git -C "$tree" diff --quiet "$c^" "$c" -- . "${excl[@]}"; then
		# Only new files of this repository: the patch is the commit
		# message alone (with a path limit, format-patch would take an
		# older commit that touches the paths instead).
		name=$(git -C "$tree" format-patch --no-signature --zero-commit \
			--start-number $n -o "$out" -1 "$c")
		sed -i '/^---$/,$d' "$name"
	else
		name=$(git -C "$tree" format-patch --no-signature --zero-commit \
			--start-number $n -o "$out" -1 "$c" -- . "${excl[@]}")
	fi
	echo "$series/$(basename "$name")${files:+ $files}" >>"$new_list"
	i=$((i + 1))
done <"$list"
mv "$new_list" "$list"
