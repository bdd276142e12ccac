#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT: pack the guest root, the guest scripts and the test
# binaries into a gzip'ed cpio initramfs. Rebuilt only when an input is
# newer than OUT.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$1
groot=$GUEST/$GUEST_SUITE
bins=$CTR_CACHE/guest-bin
# perf from the 7.3 tree (scripts/perf73.sh), when it has been built:
# /usr/local/bin/perf73 and its libexec/perf-core, beside Debian's perf.
p73=$CTR_CACHE/perf73/install
[ -d "$groot" ] || die "no guest root in $groot: run make setup"

newest=$(find "$groot" "$TOP/scripts/guest" "$bins" "$p73" -newer "$out" \
	-print -quit 2>/dev/null || true)
[ -f "$out" ] && [ -z "$newest" ] && exit 0

stage=$(mktemp -d)
trap 'rm -rf "$stage" "$out.tmp.$$"' EXIT
cp -a "$groot/." "$stage/"
mkdir -p "$stage/ctr"
install -m 755 "$TOP/scripts/guest/init" "$stage/init"
for f in "$TOP"/scripts/guest/*; do
	[ "$(basename "$f")" = init ] && continue
	install -m 755 "$f" "$stage/ctr/"
done
[ -d "$bins" ] && cp -a "$bins/." "$stage/ctr/"
[ -x "$p73/usr/local/bin/perf73" ] && cp -a "$p73/." "$stage/"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1 >"$out.tmp.$$")
mv "$out.tmp.$$" "$out"
say "initramfs: $out ($(du -h "$out" | cut -f1))"
