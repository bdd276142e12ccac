#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu.sh build|test|lint|export: the QEMU every guest runs on.
#   build   Debian's qemu source package (the version qemu/patches/series
#           names on its "# base:" line) with this repository's series on
#           top, riscv64-softmmu only, built inside the trixie root.
#           Keyed by the series and this script: a second run with the
#           same inputs does nothing, a changed series rebuilds only the
#           files it touches. The binary: $QEMU_CTR/bin.
#   test    the series' own tests (tests/tcg/riscv64, bare-metal programs
#           that end through semihosting), built with the host's riscv64
#           cross compiler and run the way their Makefile runs them (a
#           rule's "test $$(grep -c EVENT $<.trace) -le N" too: at most N
#           lines of that QEMU trace event); one "PASS|FAIL qemu: NAME"
#           line each.
#   lint    QEMU's checkpatch.pl over the series: no error, and no warning
#           but the one about new files (tests/tcg/riscv64/ is in
#           MAINTAINERS).
#   export  write qemu/patches back from the commits debian-base..HEAD of
#           $QEMU_CTR/src: the way to change the series is to commit there
#           (git rebase -i), then export.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SERIES=$TOP/qemu/patches/series
SRC=$QEMU_CTR/src
BUILD=$QEMU_CTR/build
BIN=$QEMU_CTR/bin
# What the build needs inside the trixie root.
BUILD_PKGS="gcc make ninja-build meson pkgconf python3 python3-venv
	python3-pycotap libglib2.0-dev zlib1g-dev libfdt-dev libpixman-1-dev
	flex bison dpkg-dev"
# TCG plugins: make autofdo counts each instruction of a program exactly
# (tools/insn-count) to measure its profiles against.
CONFIGURE=(--target-list=riscv64-softmmu --without-default-features
	--enable-tcg --enable-plugins --enable-fdt=system --disable-docs --disable-tools
	--disable-user --disable-download --disable-install-blobs
	--disable-werror --prefix=/usr)

# "# base: qemu VERSION SUITE": the source package and where it is listed.
base_version() {
	sed -n 's/^# base: qemu \([^ ]*\).*/\1/p' "$SERIES"
}
base_suite() {
	sed -n 's/^# base: qemu [^ ]* \([^ ]*\).*/\1/p' "$SERIES"
}

# A deb-src entry for the base's suite in the trixie root, in a file of
# its own.
setup_deb_src() {
	local f=$ROOT/etc/apt/sources.list.d/ctr-qemu-src.sources suite
	suite=$(base_suite)
	[ -n "$suite" ] || die "$SERIES: the base line names no suite"
	grep -q "^Suites: $suite\$" "$f" 2>/dev/null && return
	cat >"$f" <<-SRC
	Types: deb-src
	URIs: $DEBIAN_MIRROR
	Suites: $suite
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	Check-Valid-Until: no
	SRC
	say "apt-get update in the trixie root (deb-src $suite)"
	in_root apt-get update -qq || die "apt-get update in $ROOT failed"
}

git_id=(-c user.name="RISC-V CTR for Linux perf" -c user.email=ctr@localhost)

# Debian's source package, unpacked with its own patches applied
# (dpkg-source), as a git repository whose first commit is tagged
# debian-base.
setup_source() {
	local ver dl
	ver=$(base_version)
	[ -n "$ver" ] || die "$SERIES has no '# base: qemu VERSION' line"
	[ "$(cat "$QEMU_CTR/.stamp-src" 2>/dev/null)" = "$ver" ] && [ -d "$SRC/.git" ] &&
		return
	# The version may have left the suites' indices but not the pool: the
	# source files are kept in the cache once downloaded.
	dl=$CTR_CACHE/debs-src/qemu-${ver#*:}
	if ! ls "$dl"/*.dsc >/dev/null 2>&1; then
		say "fetching Debian's qemu $ver source package"
		setup_deb_src
		rm -rf "$ROOT/tmp/qsrc"
		mkdir -p "$ROOT/tmp/qsrc" "$dl"
		in_root sh -c "cd /tmp/qsrc && apt-get source -qq --download-only 'qemu=$ver'" >&2 ||
			die "apt-get source qemu=$ver failed (is it in a deb-src suite of $ROOT?)"
		mv "$ROOT"/tmp/qsrc/* "$dl/"
		rmdir "$ROOT/tmp/qsrc"
	fi
	say "unpacking qemu $ver (dpkg-source -x)"
	rm -rf "$ROOT/tmp/qsrc" "$SRC.new"
	mkdir -p "$ROOT/tmp/qsrc" "$QEMU_CTR"
	cp "$dl"/* "$ROOT/tmp/qsrc/"
	in_root sh -c "cd /tmp/qsrc && dpkg-source -q --no-check -x *.dsc src" >&2 ||
		die "dpkg-source -x of qemu $ver failed"
	mv "$ROOT/tmp/qsrc/src" "$SRC.new"
	rm -rf "$ROOT/tmp/qsrc"
	(cd "$SRC.new" && git init -q -b debian && git add -f -A . >/dev/null &&
		git "${git_id[@]}" commit -q -m "qemu $ver (Debian source package, its patches applied)" &&
		git tag debian-base)
	rm -rf "$SRC" "$BUILD" "$BIN"
	mv "$SRC.new" "$SRC"
	echo "$ver" >"$QEMU_CTR/.stamp-src"
}

setup_build_deps() {
	[ -e "$QEMU_CTR/.stamp-deps" ] &&
		[ "$(cat "$QEMU_CTR/.stamp-deps")" = "$(echo $BUILD_PKGS)" ] && return
	say "installing QEMU's build dependencies into $ROOT"
	# shellcheck disable=SC2086 # a list of package names
	in_root apt-get install -y -qq --no-install-recommends $BUILD_PKGS >/dev/null ||
		die "could not install QEMU's build dependencies into $ROOT"
	mkdir -p "$QEMU_CTR"
	echo $BUILD_PKGS >"$QEMU_CTR/.stamp-deps"
}

key() {
	cat "$SERIES" "$TOP"/qemu/patches/*.patch "$0" | sha1sum | cut -d' ' -f1
}

build() {
	local k t0
	k=$(key)
	[ -x "$BIN/qemu-system-riscv64" ] && [ "$(cat "$BIN/.key" 2>/dev/null)" = "$k" ] &&
		return
	setup_build_deps
	setup_source
	t0=$(date +%s)
	# Back to the base, then the series: git rewrites only the files
	# the series touches, and ninja rebuilds only what they feed.
	git -C "$SRC" am --abort >/dev/null 2>&1 || true
	git -C "$SRC" checkout -q -f --detach debian-base
	git -C "$SRC" clean -q -fdx
	while read -r p; do
		case $p in '' | '#'*) continue ;; esac
		git -C "$SRC" "${git_id[@]}" am -q "$TOP/qemu/patches/$p" ||
			die "qemu/patches/$p does not apply to qemu $(base_version)"
	done <"$SERIES"
	if [ ! -f "$BUILD/build.ninja" ] ||
		[ "$(cat "$BUILD/.configure" 2>/dev/null)" != "${CONFIGURE[*]}" ]; then
		say "configuring QEMU (riscv64-softmmu)"
		rm -rf "$BUILD"
		mkdir -p "$BUILD"
		in_root sh -c "export HOME=/root; cd /${BUILD#"$ROOT"/} && ../src/configure ${CONFIGURE[*]}" \
			>"$QEMU_CTR/configure.log" 2>&1 ||
			{ tail -20 "$QEMU_CTR/configure.log"; die "QEMU's configure failed"; }
		echo "${CONFIGURE[*]}" >"$BUILD/.configure"
	fi
	say "building qemu-system-riscv64 with the series (about 3 minutes from scratch)"
	in_root sh -c "export HOME=/root; cd /${BUILD#"$ROOT"/} && ninja -j$JOBS qemu-system-riscv64" \
		>"$QEMU_CTR/build.log" 2>&1 ||
		{ grep -B2 -A8 'error' "$QEMU_CTR/build.log" | head -40; die "QEMU build failed"; }
	mkdir -p "$BIN"
	cp "$BUILD/qemu-system-riscv64" "$BIN/qemu-system-riscv64.tmp"
	mv "$BIN/qemu-system-riscv64.tmp" "$BIN/qemu-system-riscv64"
	echo "$k" >"$BIN/.key"
	say "$("${ROOT_LOADER[@]}" "$BIN/qemu-system-riscv64" --version | head -1), built in $(($(date +%s) - t0)) s"
}

# The CTR tests of tests/tcg/riscv64/Makefile.softmmu-target: each name of
# CTR_TESTS, its extra compiler flags (a "NAME.o: SRC.S" rule) and the
# QEMU options of its run-NAME recipe.
tcg_tests() {
	python3 - "$1" <<-'PY'
	import re, sys
	mk = open(sys.argv[1]).read().replace('\\\n\t  ', '').replace('\\\n', '')
	names = re.search(r'^CTR_TESTS = (.*)$', mk, re.M).group(1).split()
	for n in names:
	    src, flags = n + '.S', ''
	    m = re.search(r'^%s\.o: (\S+)\n\t\$\(CC\) \$\(CFLAGS\) (.*?) \$<' % re.escape(n), mk, re.M)
	    if m:
	        src, flags = m.group(1), m.group(2)
	    m = re.search(r'^run-%s: .*\n\t\$\(call run-test, \$<, \$\(QEMU\) (.*?) \$\(QEMU_OPTS\)' % re.escape(n), mk, re.M)
	    opts = m.group(1)
	    # a trace the test's rule counts: "EVENT MAX"
	    t = re.match(r'.*\n\ttest \$\$\(grep -c (\S+) \$<\.trace\) -le (\d+)\n', mk[m.end():m.end() + 300])
	    trace = t.group(1) + '\x1f' + t.group(2) if t else '-'
	    print(n, src, opts.replace(' ', '\x1f'), flags.replace(' ', '\x1f') or '-', trace)
	PY
}

run_tests() {
	local t=$SRC/tests/tcg/riscv64 out=$TOP/out/qemu-tests name src opts flags trace rc n
	build
	rm -rf "$out"
	mkdir -p "$out"
	while read -r name src opts flags trace; do
		opts=${opts//$'\x1f'/ } flags=${flags//$'\x1f'/ } trace=${trace//$'\x1f'/ }
		[ "$flags" != - ] || flags=
		opts=${opts//'$<'/$out/$name}
		# shellcheck disable=SC2086 # flags and options are lists
		if ! ${CROSS}gcc -g -Og $flags -c "$t/$src" -Wa,--noexecstack \
			-o "$out/$name.o" >"$out/$name.log" 2>&1 ||
			! ${CROSS}ld -T "$t/semihost.ld" "$out/$name.o" -o "$out/$name" \
			>>"$out/$name.log" 2>&1; then
			echo "FAIL qemu: $name (does not build, see out/qemu-tests/$name.log)"
			continue
		fi
		rc=0
		# shellcheck disable=SC2086
		timeout 120 "${ROOT_LOADER[@]}" "$BIN/qemu-system-riscv64" $opts \
			-M virt -bios none -display none -semihosting \
			-device loader,file="$out/$name" >>"$out/$name.log" 2>&1 || rc=$?
		# the lines of the trace the rule counts, at most MAX of them
		n=
		[ "$trace" = - ] || n=$(grep -c "${trace% *}" "$out/$name.trace" 2>/dev/null || true)
		if [ $rc != 0 ]; then
			echo "FAIL qemu: $name ($opts): exit status $rc, the number of the failed check"
		elif [ "$trace" != - ] && [ -z "$n" ]; then
			echo "FAIL qemu: $name: no out/qemu-tests/$name.trace"
		elif [ "$trace" != - ] && [ "$n" -gt "${trace#* }" ]; then
			echo "FAIL qemu: $name: $n lines of ${trace% *} in out/qemu-tests/$name.trace, at most ${trace#* }"
		else
			echo "PASS qemu: $name ($opts)"
		fi
	done < <(tcg_tests "$t/Makefile.softmmu-target")
}

lint() {
	local pdir=$TOP/out/qemu-patches log=$TOP/out/qemu-checkpatch.log
	build
	rm -rf "$pdir"
	mkdir -p "$pdir"
	git -C "$SRC" format-patch -q --no-signature --zero-commit -o "$pdir" debian-base..HEAD
	(cd "$TOP/out" && perl "$SRC/scripts/checkpatch.pl" "$pdir"/*.patch) >"$log" 2>&1 || true
	local n bad
	n=$(ls "$pdir" | wc -l)
	# Every patch: 0 errors; a warning only for files MAINTAINERS covers.
	[ "$(grep -c '^total: 0 errors' "$log")" = "$n" ] ||
		{ grep -A3 '^ERROR' "$log" | head -30; die "checkpatch errors in the QEMU series (out/qemu-checkpatch.log)"; }
	bad=$(grep '^WARNING' "$log" | grep -v 'added, moved or deleted file' || true)
	[ -z "$bad" ] || { echo "$bad"; die "checkpatch warnings in the QEMU series"; }
	say "checkpatch: $n QEMU patches, 0 errors"
}

export_series() {
	local new
	new=$(mktemp)
	grep '^#' "$SERIES" >"$new"
	rm -f "$TOP"/qemu/patches/*.patch
	git -C "$SRC" format-patch -q --no-signature --zero-commit \
		-o "$TOP/qemu/patches" debian-base..HEAD
	(cd "$TOP/qemu/patches" && ls ./*.patch | sed 's|^\./||') >>"$new"
	mv "$new" "$SERIES"
	say "$(grep -vc '^#' "$SERIES") patches in qemu/patches"
}

case ${1:-} in
build) build ;;
test) run_tests ;;
lint) lint ;;
export) export_series ;;
*) die "usage: qemu.sh build|test|lint|export" ;;
esac
