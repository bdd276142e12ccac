#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series-export.sh TREE: write the hook patches of patches/series back from
# the commits v7.3-pristine..HEAD of the git work tree TREE, one commit per
# series line, leaving out the new files the line names (they live in
# this repository). The way to edit a hook patch: series.sh into a tree,
# amend the commit there (git rebase), export.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$1
mapfile -t lines < <(grep -v '^\s*\(#\|$\)' "$TOP/patches/series")
mapfile -t commits < <(git -C "$tree" rev-list --reverse v7.3-pristine..HEAD)
[ ${#lines[@]} = ${#commits[@]} ] ||
	die "$tree has ${#commits[@]} commits, patches/series ${#lines[@]} lines"

new_series=$(mktemp)
grep '^#' "$TOP/patches/series" >"$new_series"
rm -f "$TOP"/patches/*.patch
for i in "${!lines[@]}"; do
	read -r _ files <<<"${lines[$i]}"
	excl=()
	for f in $files; do excl+=(":(exclude)$f"); done
	if git -C "$tree" diff --quiet "${commits[$i]}^" "${commits[$i]}" \
		-- . "${excl[@]}"; then
		# Only new files of this repository: the patch is the commit
		# message alone (with a path limit, format-patch would take an
		# older commit that touches the paths instead).
		name=$(git -C "$tree" format-patch --no-signature --zero-commit \
			--start-number $((i + 1)) -o "$TOP/patches" \
			-1 "${commits[$i]}")
		sed -i '/^---$/,$d' "$name"
	else
		name=$(git -C "$tree" format-patch --no-signature --zero-commit \
			--start-number $((i + 1)) -o "$TOP/patches" \
			-1 "${commits[$i]}" -- . "${excl[@]}")
	fi
	echo "$(basename "$name")${files:+ $files}" >>"$new_series"
done
mv "$new_series" "$TOP/patches/series"
