#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_install.sh - `make install` and the Debian package, into scratch
# directories (no namespaces; nothing is installed on this machine).
#
#   source tree --make install DESTDIR=--> $TMPD/root   exactly the expected files,
#                                                      no test program built
#   copy of the tree --dpkg-buildpackage -b--> .deb --dpkg -x--> $TMPD/deb
#                                                      the same files + docs,
#                                                      conffiles, the binary runs
#
# Also: CPPFLAGS reach the compiler, -Werror only in the developer build, the
# installed unit verifies and names the installed paths.
set -u
source "$(dirname "$0")/lib.sh"
trap 'rm -rf "$TMPD"' EXIT

cd "$TOP_DIR" || exit 1
ROOT=$TMPD/root B=$TMPD/build

# The files an install must produce, from what this tree has.
expected() { # PREFIX-style listing: sbin path, unit dir, man dir
	local sbin=$1 unitdir=$2 mandir=$3 etc=$4 m
	echo "$etc/srv6d/srv6d.conf.example"
	echo "$unitdir/srv6d.service"
	echo "$sbin/srv6d"
	if ls src/ctl/*.c >/dev/null 2>&1; then echo "${sbin%/sbin}/bin/srv6ctl"; fi
	for m in man/*.[58]; do echo "$mandir/man${m##*.}/$(basename "$m")$5"; done
}

# ---- make install -----------------------------------------------------------------
UNITDIR=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
if make --no-print-directory BUILD="$B" V=1 DESTDIR="$ROOT" PREFIX=/usr \
	CPPFLAGS=-DSRV6D_TEST_CPPFLAGS install >"$TMPD/install.log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/usr"
else
	fail "make install DESTDIR=... PREFIX=/usr" "$(tail -20 "$TMPD/install.log")"
fi
got=$(cd "$ROOT" && find . -type f | sed 's|^\.||' | sort)
want=$(expected /usr/sbin "$UNITDIR" /usr/share/man /etc "" | sort)
if [ "$got" = "$want" ]; then ok "install: exactly the expected files ($(echo "$got" | wc -l))"
else fail "install: exactly the expected files" "$(diff <(echo "$want") <(echo "$got"))"; fi
check "install: builds no test program, benchmark or test tool" \
	test ! -e "$B/tests" -a ! -e "$B/bench"
check "install: CPPFLAGS reach the compiler" grep -q -- '-DSRV6D_TEST_CPPFLAGS' "$TMPD/install.log"
check "install: no -Werror" eval '! grep -q -- -Werror "$TMPD/install.log"'
check "developer build: -Werror" eval 'make -n -B BUILD="$B" "$B/src/core/srh.o" | grep -q -- -Werror'
check "developer build: WERROR=0 drops it" \
	eval '! make -n -B BUILD="$B" WERROR=0 "$B/src/core/srh.o" | grep -q -- -Werror'
UNIT=$ROOT$UNITDIR/srv6d.service
check "install: the unit runs /usr/sbin/srv6d with /etc/srv6d/srv6d.conf" \
	grep -q '^ExecStart=/usr/sbin/srv6d --foreground --config /etc/srv6d/srv6d.conf ' "$UNIT"
check "install: no @VARIABLE@ left in the unit" eval '! grep -Eq "@[A-Z]+@" "$UNIT"'
if command -v systemd-analyze >/dev/null; then
	# verify wants the binaries where the unit says: point it at the DESTDIR's.
	sed "s|/usr/sbin/srv6d|$ROOT/usr/sbin/srv6d|g" "$UNIT" >"$TMPD/srv6d.service"
	if out=$(systemd-analyze verify --man=no "$TMPD/srv6d.service" 2>&1) && [ -z "$out" ]; then
		ok "install: the installed unit verifies"
	else fail "install: the installed unit verifies" "$out"; fi
else
	skip "install: the installed unit verifies" "systemd-analyze not installed"
fi
check "install: the installed srv6d checks the installed example" \
	eval '"$ROOT/usr/sbin/srv6d" --check -c "$ROOT/etc/srv6d/srv6d.conf.example" 2>"$TMPD/chk.err" ||
	      ! grep -v -e ": warning: " -e "^$" "$TMPD/chk.err" | grep -q .'
check "install: --version prints a version" eval '"$ROOT/usr/sbin/srv6d" --version | grep -Eq "^srv6d [0-9]"'
if ls src/ctl/*.c >/dev/null 2>&1; then
	check "install: the installed srv6ctl prints its usage" \
		eval '"$ROOT/usr/bin/srv6ctl" -h | grep -q "^  sid show "'
fi

# ---- the Debian package ------------------------------------------------------------
if ! command -v dpkg-buildpackage >/dev/null; then
	skip "debian package" "dpkg-buildpackage not installed (dpkg-dev)"
elif ! command -v dh >/dev/null; then
	skip "debian package" "dh not installed (debhelper)"
else
	# A copy of the tree (tracked and new files, no build output): the
	# package build runs `make clean`, which must not touch this tree's.
	mkdir -p "$TMPD/pkg/srv6d"
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -co --exclude-standard | tar -T - -cf -
	else
		tar --exclude='./build*' --exclude=./.git -cf - .
	fi | tar -xf - -C "$TMPD/pkg/srv6d"
	# make check exports BUILD (its object directory): the package build
	# must use its own and leave that one alone (its `make clean` once
	# removed it).  A stand-in with a sentinel file shows it.
	mkdir -p "$TMPD/objdir" && touch "$TMPD/objdir/sentinel"
	if (cd "$TMPD/pkg/srv6d" && BUILD="$TMPD/objdir" dpkg-buildpackage -us -uc -b) \
		>"$TMPD/deb.log" 2>&1; then
		ok "dpkg-buildpackage -us -uc -b"
	else
		fail "dpkg-buildpackage -us -uc -b" "$(tail -20 "$TMPD/deb.log")"
	fi
	check "deb: the package build leaves an exported BUILD directory alone" \
		test -e "$TMPD/objdir/sentinel"
	deb=$(ls "$TMPD"/pkg/srv6d_*.deb 2>/dev/null | head -1)
	if [ -n "$deb" ]; then
		dpkg -x "$deb" "$TMPD/deb"
		dpkg-deb -e "$deb" "$TMPD/deb-ctl"
		got=$(cd "$TMPD/deb" && find . -type f | sed 's|^\.||' | grep -v '^/usr/share/doc/' | sort)
		want=$(expected /usr/sbin /lib/systemd/system /usr/share/man /etc .gz | sort)
		if [ "$got" = "$want" ]; then ok "deb: the files of make install (man pages gzipped)"
		else fail "deb: the files of make install" "$(diff <(echo "$want") <(echo "$got"))"; fi
		check "deb: copyright and docs" test -f "$TMPD/deb/usr/share/doc/srv6d/copyright" \
			-a -f "$TMPD/deb/usr/share/doc/srv6d/README.md.gz"
		check "deb: the example conf is a conffile" \
			grep -qx /etc/srv6d/srv6d.conf.example "$TMPD/deb-ctl/conffiles"
		check "deb: depends on iptables and the libraries" \
			eval 'dpkg-deb -f "$deb" Depends | grep -q "iptables" &&
			      dpkg-deb -f "$deb" Depends | grep -q "libnetfilter-queue"'
		check "deb: the unit is not enabled at install (no enable in postinst)" \
			eval '! grep -q "deb-systemd-helper enable .srv6d.service. >/dev/null || true$" <(sed -n "/was-enabled/,/fi/!p" "$TMPD/deb-ctl/postinst")'
		check "deb: the packaged srv6d runs (--check of the packaged example)" \
			eval '"$TMPD/deb/usr/sbin/srv6d" --check -c "$TMPD/deb/etc/srv6d/srv6d.conf.example" 2>"$TMPD/dchk.err" ||
			      ! grep -v ": warning: " "$TMPD/dchk.err" | grep -q .'
		# dpkg-buildflags' CPPFLAGS (-D_FORTIFY_SOURCE=2) and CFLAGS
		# (-fstack-protector-strong) reached the compiler: the packaged
		# binary calls the checking variants (this Debian's gcc adds
		# neither by default; the plain install build above shows it).
		syms() { readelf --dyn-syms -W "$1" 2>/dev/null; }
		check "deb: built with dpkg-buildflags (fortify, stack protector)" \
			eval 'syms "$TMPD/deb/usr/sbin/srv6d" | grep -q __snprintf_chk &&
			      syms "$TMPD/deb/usr/sbin/srv6d" | grep -q __stack_chk_fail'
		check "... which the plain make install build is not" \
			eval '! syms "$ROOT/usr/sbin/srv6d" | grep -q __snprintf_chk'
	fi
fi
summary
