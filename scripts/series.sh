#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series.sh TREE: commit patches/series on top of the git work tree TREE,
# every series of it in order. Each commit gets its hook patch's message, author and date, the patch's
# changes to existing files and the new files the series line names (a
# name ending in / stands for every file git tracks under it), as they
# are in this repository now.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

while read -r patch files; do
	case $patch in '' | '#'* | series) continue ;; esac
	src=$TOP/patches/$patch
	[ -f "$src" ] || die "patches/series names a missing patch: $patch"
	git -C "$tree" mailinfo -k "$tmp/msg" "$tmp/diff" <"$src" >"$tmp/info"
	subject=$(sed -n 's/^Subject: \(\[PATCH[^]]*\] \)\?//p' "$tmp/info")
	if [ -s "$tmp/diff" ]; then
		git -C "$tree" apply --index --whitespace=nowarn "$tmp/diff" ||
			die "$patch does not apply to $tree"
	fi
	for entry in $files; do
		# DIR/ stands for every file git tracks under it.
		if [ "${entry%/}" != "$entry" ]; then
			mapfile -t list < <(git -C "$TOP" ls-files -- "$entry")
			[ ${#list[@]} -gt 0 ] ||
				die "patches/series: $patch names empty directory $entry"
		else
			list=("$entry")
		fi
		for f in "${list[@]}"; do
			[ -f "$TOP/$f" ] ||
				die "patches/series: $patch names missing file $f"
			install -D -m 644 "$TOP/$f" "$tree/$f"
			git -C "$tree" add -f "$f"
		done
	done
	GIT_AUTHOR_NAME=$(sed -n 's/^Author: //p' "$tmp/info") \
	GIT_AUTHOR_EMAIL=$(sed -n 's/^Email: //p' "$tmp/info") \
	GIT_AUTHOR_DATE=$(sed -n 's/^Date: //p' "$tmp/info") \
	GIT_COMMITTER_NAME=$(sed -n 's/^Author: //p' "$tmp/info") \
	GIT_COMMITTER_EMAIL=$(sed -n 's/^Email: //p' "$tmp/info") \
	GIT_COMMITTER_DATE=$(sed -n 's/^Date: //p' "$tmp/info") \
		git -C "$tree" commit -q --allow-empty -F - \
		< <(printf '%s\n\n' "$subject"; cat "$tmp/msg")
done <"$TOP/patches/series"
