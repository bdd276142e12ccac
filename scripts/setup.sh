#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install and fetch everything the build, boot and test loop needs.
# Idempotent: every step leaves a stamp in $CTR_CACHE and is skipped when
# its stamp is there. Needs root (apt, debootstrap, chroot) on Debian
# bookworm or newer.
#
# Usage: setup.sh [host|root|qemu|qemuctr|opensbi|ksrc|guest|all]...
set -euo pipefail
. "$(dirname "$0")/lib.sh"

HOST_PKGS="gcc-riscv64-linux-gnu libc6-dev-riscv64-cross binutils-riscv64-linux-gnu
	make gcc flex bison bc libelf-dev libdw-dev libssl-dev cpio ccache
	debootstrap xz-utils zstd rsync python3 git kmod perl gdb"

stamp() { [ -e "$CTR_CACHE/.stamp-$1" ]; }
mark() { date > "$CTR_CACHE/.stamp-$1"; }

[ "$(id -u)" = 0 ] || die "setup needs root (apt-get, debootstrap, chroot)"
mkdir -p "$CTR_CACHE" "$DEBS"

setup_host() {
	local missing=() p
	for p in $HOST_PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return
	say "installing host packages: ${missing[*]}"
	apt-get update -qq || say "apt-get update reported errors; trying anyway"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
}

setup_root() {
	stamp root && return
	[ -n "$DEBIAN_MIRROR" ] ||
		die "no Debian archive in this host's apt sources: set DEBIAN_MIRROR"
	if [ ! -e "$ROOT/.debootstrap-done" ]; then
		say "debootstrap: minimal trixie root in $ROOT (about 30 s)"
		rm -rf "$ROOT.tmp"
		debootstrap --variant=minbase trixie "$ROOT.tmp" "$DEBIAN_MIRROR" \
			>"$CTR_CACHE/debootstrap.log" 2>&1 ||
			die "debootstrap failed, see $CTR_CACHE/debootstrap.log"
		rm -rf "$ROOT"
		mv "$ROOT.tmp" "$ROOT"
		touch "$ROOT/.debootstrap-done"
	fi
	cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
	rm -f "$ROOT/etc/apt/sources.list"
	# riscv64 is only listed where its index downloads cleanly: the
	# trixie-backports riscv64 index fails with "File has unexpected size".
	cat >"$ROOT/etc/apt/sources.list.d/ctr.sources" <<-SRC
	Types: deb
	URIs: $DEBIAN_MIRROR
	Suites: trixie
	Components: main
	Architectures: amd64 riscv64
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	Check-Valid-Until: no

	Types: deb
	URIs: $DEBIAN_MIRROR
	Suites: trixie-backports
	Components: main
	Architectures: amd64
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	Check-Valid-Until: no

	Types: deb
	URIs: $DEBIAN_MIRROR
	Suites: forky
	Components: main
	Architectures: amd64 riscv64
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	Check-Valid-Until: no
	SRC
	# The mirror may serve a snapshot whose Release files have expired.
	# forky is only a source of single packages, never an upgrade path.
	cat >"$ROOT/etc/apt/preferences.d/ctr" <<-PIN
	Package: *
	Pin: release n=forky
	Pin-Priority: 100
	PIN
	in_root dpkg --add-architecture riscv64
	say "apt-get update in the trixie root"
	in_root apt-get update -qq || die "apt-get update in $ROOT failed"
	mark root
}

setup_qemu() {
	stamp qemu && return
	say "installing qemu-system-riscv from trixie-backports into $ROOT"
	in_root apt-get install -y -qq --no-install-recommends \
		-t trixie-backports qemu-system-riscv >/dev/null ||
		die "could not install qemu-system-riscv from trixie-backports"
	local v
	v=$(root_exec /usr/bin/qemu-system-riscv64 --version | head -1)
	# QEMU 10.0 (plain trixie) never delivers counter-overflow interrupts.
	case "$v" in
	*" version 11."[1-9]* | *" version 1[2-9]."*) say "$v" ;;
	*) die "need QEMU >= 11.1 (trixie-backports), got: $v" ;;
	esac
	mark qemu
}

# The QEMU the guests run on: Debian's source package and qemu/patches,
# built inside the root (scripts/qemu.sh; about 3 minutes the first time,
# nothing after that until the series changes).
setup_qemuctr() {
	"$TOP/scripts/qemu.sh" build
}

# Download a package with apt inside the root; print the .deb path.
download() {
	local spec=$1
	mkdir -p "$ROOT/tmp/dl"
	chmod 1777 "$ROOT/tmp/dl"
	(cd "$ROOT/tmp/dl" && rm -f ./*.deb)
	in_root sh -c "cd /tmp/dl && apt-get download -qq '$spec'" >&2 ||
		die "apt-get download $spec failed"
	local f
	f=$(ls "$ROOT"/tmp/dl/*.deb)
	mv "$f" "$DEBS/"
	echo "$DEBS/$(basename "$f")"
}

setup_opensbi() {
	stamp opensbi && return
	say "fetching OpenSBI >= 1.9 firmware (opensbi from forky)"
	local deb v
	deb=$(download opensbi/forky)
	v=$(dpkg-deb -f "$deb" Version)
	dpkg --compare-versions "$v" ge 1.9 ||
		die "opensbi $v is too old: need >= 1.9 (1.6 leaves CTR locked)"
	rm -rf "$CTR_CACHE/opensbi"
	dpkg-deb -x "$deb" "$CTR_CACHE/opensbi"
	[ -f "$OPENSBI_FW" ] || die "no fw_dynamic.bin in $deb"
	say "opensbi $v"
	mark opensbi
}

# The kernel source becomes a git repository with the pristine tree tagged
# v7.3-pristine, so that the series can be committed on top of it and only
# the files it changes are rewritten between builds. It comes from
# linux-source-7.3 or, with KSRC=/path, from an existing unmodified tree.
setup_ksrc() {
	local from=linux-source-7.3
	if [ "$KSRC" != "$KSRC_DEFAULT" ]; then
		[ -f "$KSRC/Makefile" ] || die "KSRC=$KSRC is not a kernel tree"
		grep -q '^VERSION = 7$' "$KSRC/Makefile" &&
			grep -q '^PATCHLEVEL = 3$' "$KSRC/Makefile" ||
			die "KSRC=$KSRC is not Linux 7.3"
		from=$(realpath "$KSRC")
	fi
	[ "$(cat "$CTR_CACHE/.stamp-ksrc" 2>/dev/null)" = "$from" ] && return

	rm -rf "$KSRC_DEFAULT.tmp"
	mkdir -p "$KSRC_DEFAULT.tmp"
	if [ "$from" = linux-source-7.3 ]; then
		say "fetching linux-source-7.3 from trixie-backports (167 MB)"
		local deb tarball
		deb=$(download linux-source-7.3/trixie-backports)
		rm -rf "$CTR_CACHE/linux-source.x"
		dpkg-deb -x "$deb" "$CTR_CACHE/linux-source.x"
		tarball=$(ls "$CTR_CACHE"/linux-source.x/usr/src/linux-source-7.3*.tar.*)
		say "extracting $(basename "$tarball")"
		tar -xf "$tarball" -C "$KSRC_DEFAULT.tmp" --strip-components=1
		rm -rf "$CTR_CACHE/linux-source.x"
		from_desc="$(basename "$deb")"
	else
		say "importing the kernel tree $from"
		rsync -a --exclude=/.git "$from/" "$KSRC_DEFAULT.tmp/"
		from_desc=$from
	fi
	# Debian's tree ignores everything at its top level: add by force.
	(cd "$KSRC_DEFAULT.tmp" && git init -q -b pristine &&
		git add -f -A . >/dev/null &&
		git -c user.name=setup -c user.email=setup@localhost \
			commit -q -m "Linux 7.3 from $from_desc" &&
		git tag v7.3-pristine)
	# The work trees of the old repository go with it.
	rm -rf "$KSRC_DEFAULT" "$CTR_CACHE"/linux-stage "$CTR_CACHE"/linux-build \
		"$CTR_CACHE"/linux-am "$KBUILD"
	mv "$KSRC_DEFAULT.tmp" "$KSRC_DEFAULT"
	echo "$from" >"$CTR_CACHE/.stamp-ksrc"
}

# Linux 7.3 needs a sparse that knows __typeof_unqual__ (0.6.5): bookworm
# and trixie have 0.6.4. forky's runs through the trixie root's loader.
setup_sparse() {
	[ -x "$SPARSE" ] && return
	say "fetching sparse >= 0.6.5 (forky)"
	local deb
	deb=$(download sparse/forky)
	rm -rf "$CTR_CACHE/sparse"
	dpkg-deb -x "$deb" "$CTR_CACHE/sparse"
	cat >"$SPARSE.tmp" <<-WRAP
	#!/bin/sh
	exec "$ROOT/lib64/ld-linux-x86-64.so.2" \\
		--library-path "$ROOT/lib/x86_64-linux-gnu:$ROOT/usr/lib/x86_64-linux-gnu" \\
		"$CTR_CACHE/sparse/usr/bin/sparse" "\$@"
	WRAP
	chmod +x "$SPARSE.tmp"
	mv "$SPARSE.tmp" "$SPARSE"
}

# The guest's stamp holds a hash of what makes the guest root: its package
# list and trimming (guest-root.sh) and the dependency walk
# (guest-deps.py). A change to either unpacks the guest again, once; a
# stamp from before the hash (a date) counts as a change.
guest_key() {
	cat "$TOP/scripts/guest-root.sh" "$TOP/scripts/guest-deps.py" |
		sha1sum | cut -d' ' -f1
}

setup_guest() {
	local key f=$CTR_CACHE/.stamp-guest-$GUEST_SUITE
	key=$(guest_key)
	[ -d "$GUEST/$GUEST_SUITE" ] && [ "$(cat "$f" 2>/dev/null)" = "$key" ] &&
		return
	"$TOP/scripts/guest-root.sh"
	echo "$key" >"$f"
}

setup_libperf() {
	local arch out
	for arch in x86_64 riscv64; do
		out=$CTR_CACHE/libperf/$arch
		ls "$out"/lib*/libperf.a >/dev/null 2>&1 && continue
		say "building libperf ($arch) from $KSRC/tools/lib/perf"
		local cross=()
		[ $arch = riscv64 ] && cross=(ARCH=riscv CROSS_COMPILE=$CROSS)
		rm -rf "$out.build"
		mkdir -p "$out.build"
		make -s -C "$KSRC/tools/lib/perf" "${cross[@]}" \
			OUTPUT="$out.build/" DESTDIR="$out" prefix= \
			install_lib install_headers >/dev/null ||
			die "libperf build ($arch) failed"
		rm -rf "$out.build"
	done
}

# perf-ctr's own needs (host tools, the compilers its tests feed) live in
# scripts/setup-perfctr.sh; it follows the same stamp rules.
setup_perfctr() {
	"$TOP/scripts/setup-perfctr.sh"
}

steps=${*:-all}
[ "$steps" = all ] && steps="host root qemu qemuctr opensbi sparse ksrc guest libperf perfctr"
for s in $steps; do
	"setup_$s"
done
