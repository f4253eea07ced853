#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/vm/kernel.sh - the kernel-oracle VM's default kernel: Debian's
# linux-image-6.12-amd64 package, downloaded with apt-get and unpacked into a
# cache directory (never installed into /boot), its module tree depmod'ed.
#
#   tests/vm/kernel.sh ensure   download and unpack when missing (root; apt)
#   tests/vm/kernel.sh env      print KERNEL=... MODULES=... KVER=... for the
#                               unpacked kernel (exit 1 when none is unpacked)
#
# VM_CACHE (default /var/cache/srv6d-vm) holds one directory per package
# version; VM_KPKG names the package (default: the one the metapackage
# linux-image-6.12-amd64 depends on, its -unsigned build).
set -eu
CACHE=${VM_CACHE:-/var/cache/srv6d-vm}
META=${VM_KPKG_META:-linux-image-6.12-amd64}

# the newest unpacked tree in the cache: DIR with boot/vmlinuz-* and lib/modules/*
unpacked() {
	local d
	for d in $(ls -d "$CACHE"/*/ 2>/dev/null | sort -rV); do
		if [ -f "$d/.complete" ]; then echo "${d%/}"; return 0; fi
	done
	return 1
}

case "${1:-}" in
env)
	d=$(unpacked) || { echo "no kernel unpacked in $CACHE (tests/vm/kernel.sh ensure)" >&2; exit 1; }
	kver=$(ls "$d/lib/modules" | head -1)
	echo "KERNEL=$d/boot/vmlinuz-$kver"
	echo "MODULES=$d"
	echo "KVER=$kver"
	;;
ensure)
	if [ -z "${VM_KPKG:-}" ]; then
		# linux-image-6.12-amd64 -> linux-image-6.12.N+debN-amd64: the
		# unsigned build of the same kernel (the same image, unsigned)
		dep=$(apt-cache depends "$META" 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
		if [ -z "$dep" ]; then
			apt-get update -qq
			dep=$(apt-cache depends "$META" | awk '/Depends: linux-image-/ {print $2; exit}')
		fi
		[ -n "$dep" ] || { echo "tests/vm/kernel.sh: apt knows no $META" >&2; exit 1; }
		VM_KPKG=$dep-unsigned
	fi
	ver=$(apt-cache policy "$VM_KPKG" | awk '/Candidate:/ {print $2}')
	[ -n "$ver" ] && [ "$ver" != "(none)" ] ||
		{ echo "tests/vm/kernel.sh: apt has no candidate for $VM_KPKG" >&2; exit 1; }
	dir="$CACHE/$VM_KPKG-$ver"
	[ -f "$dir/.complete" ] && exit 0
	[ "$(id -u)" -eq 0 ] || { echo "tests/vm/kernel.sh: run as root to download $VM_KPKG" >&2; exit 1; }
	echo "srv6d: downloading the oracle kernel $VM_KPKG $ver into $dir"
	rm -rf "$dir"; mkdir -p "$dir/.deb"
	# apt's sandbox user cannot write a root-only directory: download in /tmp
	tmp=$(mktemp -d); chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -qq "$VM_KPKG=$ver" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
	deb=$(ls "$tmp"/*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { rm -rf "$tmp" "$dir"; echo "tests/vm/kernel.sh: apt-get download $VM_KPKG failed" >&2; exit 1; }
	dpkg-deb -x "$deb" "$dir"
	rm -rf "$tmp" "$dir/.deb"
	kver=$(ls "$dir/lib/modules" | head -1)
	depmod -b "$dir" "$kver"
	touch "$dir/.complete"
	;;
*)
	echo "usage: tests/vm/kernel.sh ensure|env" >&2; exit 2 ;;
esac
