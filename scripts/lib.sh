# SPDX-License-Identifier: GPL-2.0
# Common settings for the build, boot and test scripts. Sourced, not run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CTR_CACHE=${CTR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/riscv-ctr}
ROOT=$CTR_CACHE/trixie-root		# debootstrap'ed trixie: QEMU and apt
FORKY=$CTR_CACHE/forky-root		# minimal forky: riscv64 GCC 15 and 16
DEBS=$CTR_CACHE/debs			# downloaded .deb files
KSRC_DEFAULT=$CTR_CACHE/linux-7.3	# extracted linux-source-7.3 (git)
KSRC=${KSRC:-$KSRC_DEFAULT}
KBUILD=$CTR_CACHE/build			# per-config kernel build dirs
GUEST=$CTR_CACHE/guest			# riscv64 guest root (unpacked .debs)
GUEST_SUITE=${GUEST_SUITE:-trixie}	# where linux-perf:riscv64 comes from
OPENSBI_FW=$CTR_CACHE/opensbi/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin
SPARSE=$CTR_CACHE/sparse/sparse	# wrapper: runs forky's sparse
CROSS=riscv64-linux-gnu-
JOBS=${JOBS:-$(($(nproc) + 1))}

# The Debian archive this host already uses, from its own apt sources
# (deb822 .sources files or one-line sources.list entries): the first URI
# whose path ends in /debian (not the security archive). DEBIAN_MIRROR
# overrides it.
host_debian_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list \
		/etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		sed -n -e 's/^URIs:[[:space:]]*//p' \
			-e 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\).*/\2/p' "$f"
	done | tr ' ' '\n' | grep -m1 '/debian/\?$' | sed 's|/$||'
}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-$(host_debian_mirror)}

export CCACHE_DIR=${CCACHE_DIR:-$CTR_CACHE/ccache}

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The trixie root's loader: runs its programs from outside it.
ROOT_LOADER=("$ROOT/lib64/ld-linux-x86-64.so.2"
	--library-path "$ROOT/lib/x86_64-linux-gnu:$ROOT/usr/lib/x86_64-linux-gnu")

root_exec() {
	local bin=$1; shift
	"${ROOT_LOADER[@]}" "$ROOT$bin" "$@"
}

# in_chroot DIR CMD...: run CMD inside the root DIR, with /proc mounted
# while it runs.
in_chroot() {
	local dir=$1 rc=0; shift
	mountpoint -q "$dir/proc" || mount -t proc proc "$dir/proc"
	chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive "$@" || rc=$?
	umount "$dir/proc" 2>/dev/null || true
	return $rc
}
# Inside the trixie root; inside the forky root.
in_root() { in_chroot "$ROOT" "$@"; }
in_forky() { in_chroot "$FORKY" "$@"; }

# fetch_debs DIR SUITE PKG...: download from SUITE (through the trixie
# root's apt) each package that has no .deb in DIR yet, then print the
# .deb of every PKG, one path a line. PKG may carry an :arch suffix.
fetch_debs() {
	local dir=$1 suite=$2 p tmp want=()
	shift 2
	mkdir -p "$dir"
	for p in "$@"; do
		ls "$dir/${p%:*}_"*.deb >/dev/null 2>&1 || want+=("$p/$suite")
	done
	if [ ${#want[@]} -gt 0 ]; then
		say "downloading ${#want[@]} packages from $suite into $dir"
		# apt drops privileges to _apt: a directory it can write to.
		tmp=$(mktemp -d "$ROOT/tmp/dl.XXXXXX")
		chmod 1777 "$tmp"
		in_root sh -c "cd /tmp/${tmp##*/} && apt-get download -qq ${want[*]}" >&2 ||
			{ rm -rf "$tmp"; die "downloading packages from $suite failed"; }
		mv "$tmp"/*.deb "$dir/"
		rmdir "$tmp"
	fi
	for p in "$@"; do
		ls "$dir/${p%:*}_"*.deb | tail -1
	done
}

# The QEMU every guest runs on: the one scripts/qemu.sh builds from
# Debian's qemu source package and this repository's qemu/ series, run
# through the trixie root's loader. CTR_QEMU=/path/to/qemu-system-riscv64
# picks another (a binary that runs with the trixie root's libraries).
QEMU_CTR=$ROOT/qemu-ctr		# built inside the trixie root
QEMU_BIN=${CTR_QEMU:-$QEMU_CTR/bin/qemu-system-riscv64}

qemu() {
	"${ROOT_LOADER[@]}" "$QEMU_BIN" -L "$ROOT/usr/share/qemu" "$@"
}

# Stage timing for make check / make demo.
stage_start() { STAGE_NAME=$1; STAGE_T0=$(date +%s); say "$1"; }
stage_end() { say "$STAGE_NAME: $(($(date +%s) - STAGE_T0)) s"; }
