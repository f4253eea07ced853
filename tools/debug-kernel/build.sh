#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tools/debug-kernel/build.sh - a debug kernel for the kernel-oracle VM
# (tests/vm/run.sh), built from Debian's linux-source-6.12 package:
#
#   tools/debug-kernel/build.sh [baseline|noref|nochk|kasan|lockdep|net]
#
# baseline: the package's source; noref: the same with the seg6 noref series
# (../shared/kernel-patches, or PATCHES=DIR) applied, through the 6.12
# backports in tools/debug-kernel/patches-6.12/ where those exist.
# Config: x86_64_defconfig + config.fragment (what the suite needs, all built
# in) + the checkers: checkers-kasan.fragment (KASAN generic, inline),
# checkers-lockdep.fragment (PROVE_LOCKING/PROVE_RCU, DEBUG_ATOMIC_SLEEP),
# checkers-net.fragment (DEBUG_NET, the netdev and netns refcount trackers,
# DEBUG_OBJECTS_RCU_HEAD).  baseline and noref have all three; the kinds
# nochk (none), kasan, lockdep and net (that one alone, on the package's
# source) exist to measure what each checker costs (tools/debug-kernel/
# cost.sh, docs/REINJECTION.md).  The result:
#
#   $OUT/KIND/bzImage   (OUT: /var/cache/srv6d-vm/debug; not CI)
#
# Run the suite on it with
#   KERNEL=$OUT/KIND/bzImage MODULES=none tests/vm/run.sh make check ...
# Not part of CI: the baseline takes 708-814 s on two cores (nochk 618 s,
# kasan 868 s, lockdep 859 s, each beside a VM test run); noref, built after it, starts from the
# baseline's objects and takes about a minute.
set -eu
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KIND=${1:-baseline}
OUT=${OUT:-/var/cache/srv6d-vm/debug}
SRC_TAR=${SRC_TAR:-/usr/src/linux-source-6.12.tar.xz}
PATCHES=${PATCHES:-$HERE/../../../shared/kernel-patches}
JOBS=${JOBS:-$(nproc)}

case "$KIND" in
baseline|noref) FRAGS="config.fragment checkers-kasan.fragment checkers-lockdep.fragment checkers-net.fragment" ;;
nochk) FRAGS=config.fragment ;;
kasan|lockdep|net) FRAGS="config.fragment checkers-$KIND.fragment" ;;
*) echo "usage: $0 [baseline|noref|nochk|kasan|lockdep|net]" >&2; exit 2 ;;
esac
if [ ! -r "$SRC_TAR" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "$0: $SRC_TAR missing (apt-get install linux-source-6.12)" >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-source-6.12 bc bison flex libelf-dev libssl-dev >/dev/null
fi
for t in bc bison flex make gcc; do
	command -v $t >/dev/null || { echo "$0: $t missing (apt-get install bc bison flex build-essential)" >&2; exit 1; }
done

dir=$OUT/$KIND
src=$dir/src
mkdir -p "$dir"
if [ ! -f "$src/.unpacked" ]; then
	rm -rf "$src"
	if [ "$KIND" = noref ] && [ -f "$OUT/baseline/src/vmlinux" ]; then
		# the built baseline tree, copied with its objects: after the
		# patch only seg6_local.o and the link are redone (about a minute)
		echo "build.sh: noref starts from the built $OUT/baseline/src"
		cp -a "$OUT/baseline/src" "$src"
		rm -f "$src/.unpacked"
	else
		mkdir -p "$src"
		tar -xJf "$SRC_TAR" -C "$src" --strip-components=1
	fi
	if [ "$KIND" = noref ]; then
		for p in "$PATCHES"/0*.patch; do
			b=$(basename "$p")
			if [ -f "$HERE/patches-6.12/$b" ]; then
				echo "build.sh: $b: the 6.12 backport"
				patch -d "$src" -p1 --quiet --fuzz=0 <"$HERE/patches-6.12/$b"
			else
				patch -d "$src" -p1 --quiet --fuzz=0 <"$p" ||
					{ echo "build.sh: $b does not apply to 6.12 and has no backport in $HERE/patches-6.12" >&2; exit 1; }
			fi
		done
	fi
	touch "$src/.unpacked"
fi

start=$(date +%s)
make -C "$src" -s x86_64_defconfig
frags=; for f in $FRAGS; do frags="$frags $HERE/$f"; done
# shellcheck disable=SC2086  # one word per fragment
"$src/scripts/kconfig/merge_config.sh" -m -O "$src" "$src/.config" $frags >/dev/null
make -C "$src" -s olddefconfig
# what the merge could not set (a dependency missing on 6.12): said, not hidden
# shellcheck disable=SC2086
missing=$(cat $frags | grep -E '^CONFIG_[A-Z0-9_]+=y' | while read -r l; do
	grep -qx "$l" "$src/.config" || echo "${l%=y}"; done | tr '\n' ' ')
[ -z "$missing" ] || echo "build.sh: not in the resulting config: $missing"
make -C "$src" -s -j"$JOBS" bzImage
cp "$src/arch/x86/boot/bzImage" "$dir/bzImage"
cp "$src/.config" "$dir/config"
echo "build.sh: $dir/bzImage built in $(( $(date +%s) - start )) s ($JOBS jobs)"
