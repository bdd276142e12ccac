#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf73.sh: cross-build perf (tools/perf) for riscv64 from the 7.3 tree
# that kernel.sh builds (the series applied, $CTR_CACHE/linux-build), to
# run in the guest as /usr/local/bin/perf73 beside Debian's perf.
#
# The build runs inside the trixie root with its riscv64 cross GCC 14,
# against a sysroot of Debian riscv64 packages from $GUEST_SUITE (the
# suite the guest's libraries come from): glibc and the -dev packages of
# libelf, libdw, libtraceevent, zlib, zstd, xz, libnuma, slang,
# libstdc++ and libdebuginfod. They are unpacked, not installed: the
# root's amd64 libelf1t64 comes from trixie-backports, and a multiarch
# riscv64 libelf1t64 must have the same version, which trixie's riscv64
# index does not have.
#
# Everything lives in $CTR_CACHE/perf73:
#   src/       the tools/ part of the kernel tree at the commit built
#   sysroot/   the unpacked riscv64 packages
#   build/     the out-of-tree build (OUTPUT)
#   install/   what the guest gets: usr/local/bin/perf73,
#              usr/local/libexec/perf-core (tests/shell, and a "perf"
#              link to perf73 there, so that the shell tests that perf73
#              test runs call perf73: perf puts that directory first in
#              their PATH) and usr/local/etc/perfconfig
#   build.log, features.log
# Idempotent: nothing is rebuilt while the perf sources in the tree, this
# script and the sysroot's packages are unchanged. The kernel tree is
# only read (git archive of the commit its work tree is at).
#
# Needs root (chroot, mount). Runs in a mount namespace of its own, so
# that /proc and the bind mount into the root vanish with it and never
# meet another script's in_root. PERF73_JOBS (default 2) sets make -j.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ -z "${PERF73_IN_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || die "perf73.sh needs root (chroot, mount)"
	PERF73_IN_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

P=$CTR_CACHE/perf73
M=/mnt/perf73			# $P as the root sees it
S=$M/sysroot
tree=$CTR_CACHE/linux-build
jobs=${PERF73_JOBS:-2}
triplet=riscv64-linux-gnu

[ -x "$ROOT/usr/bin/apt-get" ] || die "no trixie root in $ROOT: run make setup"
git -C "$tree" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
	die "no kernel tree in $tree: run make kernel"

# The root's build tools: host make/gcc/flex/bison, python for jevents
# (perf finds it through python3-config, hence python3-dev, though it
# links no python: NO_LIBPYTHON), pkg-config, and the riscv64 cross GCC
# and G++ 14 (G++ for C++ demangling).
ROOT_PKGS="make gcc libc6-dev flex bison pkgconf python3-dev
	gcc-14-riscv64-linux-gnu g++-14-riscv64-linux-gnu binutils-riscv64-linux-gnu"
# The sysroot: glibc and the libraries perf links, with their headers.
SYSROOT_PKGS="libc6-dev libelf-dev libdw-dev libtraceevent-dev zlib1g-dev
	libzstd-dev liblzma-dev libnuma-dev libslang2-dev
	libstdc++-14-dev libdebuginfod-dev"

root_tools() {
	local missing=() p
	for p in $ROOT_PKGS; do
		chroot "$ROOT" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return
	say "installing into the trixie root: ${missing[*]}"
	# No pty for dpkg: the root has no /dev/pts.
	local apt=(apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends)
	in_root "${apt[@]}" "${missing[@]}" >/dev/null ||
		{ in_root apt-get update -qq &&
		  in_root "${apt[@]}" "${missing[@]}" >/dev/null; } ||
		die "apt-get install ${missing[*]} in $ROOT failed"
}

# Download the sysroot's packages (the closure of SYSROOT_PKGS over the
# riscv64 index, as for the guest) and print one .deb path a line.
sysroot_debs() {
	local index pkgs
	index=$(ls "$ROOT"/var/lib/apt/lists/*_dists_"${GUEST_SUITE}"_main_binary-riscv64_Packages 2>/dev/null) ||
		die "no riscv64 index for $GUEST_SUITE in $ROOT"
	# shellcheck disable=SC2086 # a list of names
	pkgs=$(python3 "$TOP/scripts/guest-deps.py" "$index" $SYSROOT_PKGS)
	# shellcheck disable=SC2086 # a list of names
	fetch_debs "$DEBS/perf73-$GUEST_SUITE" "$GUEST_SUITE" $pkgs
}

make_sysroot() {	# DEB...: unpack them into $P/sysroot
	local d l t
	rm -rf "$P/sysroot.tmp"
	mkdir -p "$P/sysroot.tmp"
	for d in "$@"; do
		dpkg-deb -x "$d" "$P/sysroot.tmp"
	done
	(
		cd "$P/sysroot.tmp"
		# Merged /usr, as base-files would make it.
		for l in bin sbin lib; do
			[ -e $l ] || ln -s usr/$l $l
		done
		# Absolute links would point out of the sysroot: make them
		# relative (libfoo.so -> /lib/riscv64-linux-gnu/libfoo.so.N).
		find . -type l -lname '/*' | while read -r l; do
			t=$(readlink "$l")
			ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" ".$t")" "$l"
		done
	)
	rm -rf "$P/sysroot"
	mv "$P/sysroot.tmp" "$P/sysroot"
}

# What perf's own build reads: tools/ but tools/testing (where the series
# adds the CTR kselftests: they never cause a perf rebuild), the UAPI
# headers that tools/include refers to by relative paths
# (include/uapi, arch/*/include/uapi), the arm64 system register table
# (perf decodes arm64 recordings on any host) and the script that writes
# libbpf's helper definitions.
src_paths() {	# COMMIT
	local a
	printf '%s\n' tools/perf tools/lib tools/include tools/arch tools/build \
		tools/scripts include/uapi arch/arm64/tools scripts/bpf_doc.py
	git -C "$tree" ls-tree -d --name-only "$1" arch/ | while read -r a; do
		if git -C "$tree" cat-file -e "$1:$a/include/uapi" 2>/dev/null; then
			echo "$a/include/uapi"
		fi
	done
}

mkdir -p "$P" "$DEBS"
root_tools
# Through files, so that a failure stops the script.
sysroot_debs >"$P/debs.list"
mapfile -t debs <"$P/debs.list"

commit=$(git -C "$tree" rev-parse HEAD)
src_paths "$commit" >"$P/paths.list"
mapfile -t paths <"$P/paths.list"
trees=$(git -C "$tree" ls-tree -r "$commit" -- "${paths[@]}" | sha1sum | cut -d' ' -f1)
kver=$(git -C "$tree" show "$commit:Makefile" |
	awk '!done && $1 ~ /^(VERSION|PATCHLEVEL|SUBLEVEL)$/ && $2 == "=" { v = v (v ? "." : "") $3 }
	     /^EXTRAVERSION/ { done = 1 }
	     END { print v }')
# How perf is built: its make command line and the sysroot's packages.
# A new recipe builds from scratch; a new tree only rebuilds what changed
# (rsync -c below keeps the time stamps of unchanged files); a new version
# of this script installs again.
pmake=(env PKG_CONFIG="pkg-config"
	PKG_CONFIG_SYSROOT_DIR="$S"
	PKG_CONFIG_LIBDIR="$S/usr/lib/$triplet/pkgconfig:$S/usr/share/pkgconfig"
	make -C "$M/src/tools/perf" O="$M/build" JOBS="$jobs"
	ARCH=riscv CROSS_COMPILE="$triplet-"
	CC="$triplet-gcc-14 --sysroot=$S" CXX="$triplet-g++-14 --sysroot=$S"
	HOSTCC=gcc prefix=/usr/local
	NO_LIBPERL=1 NO_LIBPYTHON=1 BUILD_BPF_SKEL=0 NO_LIBLLVM=1 NO_JVMTI=1
	NO_LIBBABELTRACE=1 NO_SDT=1 VF=1)
recipe=$(printf '%s\n' "${pmake[@]}" "${debs[@]##*/}" | sha1sum | cut -d' ' -f1)
key="$recipe $trees $(sha1sum <"$0" | cut -d' ' -f1)"

if [ "$(cat "$P/.key" 2>/dev/null)" = "$key" ] &&
	[ -x "$P/install/usr/local/bin/perf73" ]; then
	say "perf73: up to date ($P/install/usr/local/bin/perf73, perf $kver)"
	exit 0
fi
rm -f "$P/.key"

if [ "$(cat "$P/.recipe" 2>/dev/null)" != "$recipe" ]; then
	say "perf73: new recipe, building from scratch"
	rm -rf "$P/build" "$P/install" "$P/sysroot"
fi
[ -d "$P/sysroot" ] || make_sysroot "${debs[@]}"
echo "$recipe" >"$P/.recipe"

say "perf73: tools/ of $(git -C "$tree" log -1 --format='%h %s' "$commit")"
rm -rf "$P/src.new"
mkdir -p "$P/src.new"
git -C "$tree" archive "$commit" -- "${paths[@]}" | tar -x -C "$P/src.new"
# No .git and no top-level Makefile in the copy: PERF-VERSION-GEN takes
# the version from here.
echo "#define PERF_VERSION \"$kver\"" >"$P/src.new/PERF-VERSION-FILE"
mkdir -p "$P/src"
rsync -rlpc --delete "$P/src.new/" "$P/src/"
rm -rf "$P/src.new"
mkdir -p "$P/build"

# Inside the root, $P is $M.
mkdir -p "$ROOT$M"
mount --bind "$P" "$ROOT$M"
trap 'umount "$ROOT$M" 2>/dev/null || true' EXIT

say "perf73: building perf $kver for riscv64 (make -j$jobs, log in $P/build.log)"
t0=$(date +%s)
if ! in_root "${pmake[@]}" >"$P/build.log" 2>&1; then
	tail -30 "$P/build.log" >&2
	die "perf73 build failed, see $P/build.log"
fi

# The feature summary perf printed while configuring (VF=1: every
# feature, without colours), and what Makefile.config made of it.
{
	sed -n '/Auto-detecting system features/,/^$/p' "$P/build.log" |
		sed 's/\x1b\[[0-9;]*m//g'
	echo "Makefile.config detected:"
	grep "^CONFIG_" "$P/build/.config-detected" | sort -u
} >"$P/features.log"
for f in LIBELF LIBDW LIBTRACEEVENT LIBDW_DWARF_UNWIND; do
	grep -q "^CONFIG_$f=y" "$P/features.log" ||
		die "perf73 was built without $f (see $P/features.log)"
done

# Install into a staging tree, then rename perf to perf73.
rm -rf "$P/install.tmp"
in_root "${pmake[@]}" DESTDIR="$M/install.tmp" install-bin >>"$P/build.log" 2>&1 ||
	die "perf73 install failed, see $P/build.log"
(
	cd "$P/install.tmp/usr/local"
	mv bin/perf bin/perf73
	rm -f bin/trace
	rm -rf etc include
	ln -s ../../bin/perf73 libexec/perf-core/perf
	# perf73 reads $prefix/etc/perfconfig (Debian's perf: /etc). With
	# neither LLVM nor libbfd, perf 7.3 runs addr2line for what libdw
	# cannot resolve; the guest has none, and perf report and perf
	# script then die of SIGPIPE (exit 141). libdw alone finds every
	# line and inlined frame that has DWARF.
	mkdir etc
	printf '[addr2line]\n\tstyle = libdw\n' >etc/perfconfig
)
rm -rf "$P/install"
mv "$P/install.tmp" "$P/install"
echo "$key" >"$P/.key"
say "perf73: built in $(($(date +%s) - t0)) s: $(du -h "$P/install/usr/local/bin/perf73" | cut -f1) perf73, features in $P/features.log"
