#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_manpages.sh - man/srv6d.8, man/srv6d.conf.5 and man/srv6ctl.8 against the code.  No
# namespaces and no root needed (it lives with the namespace tests so
# `make check` runs it).
#
#   man pages --lint--> mandoc -Tlint -Wwarning (else groff -ww -z): silent
#   src/conf/*.c keyword tables (*_kws[]) + strcmp words --> srv6d.conf(5)
#   src/conf/hmac_conf.c strcmp words (the hmac lines) --------> srv6d.conf(5)
#   src/core behavior/flavor/mode names -------------------------> srv6d.conf(5)
#   src/daemon/main.c opt_rows[] (long and short options) -------> srv6d(8)
#   src/control/ctl.c cmds[] (OBJECT COMMAND of srv6ctl) ----------> srv6ctl(8)
#   srv6d.conf(5) EXAMPLES and pasted ip-route lines --> srv6d --check: parse
#
# Each coverage check also runs once on a copy of the page with one word taken
# out, and must then fail: the check can fail.
set -u
source "$(dirname "$0")/lib.sh"
trap 'rm -rf "$TMPD"' EXIT

M5=$TOP_DIR/man/srv6d.conf.5
M8=$TOP_DIR/man/srv6d.8
M8C=$TOP_DIR/man/srv6ctl.8
MC="$PY $LIB_DIR/man_check.py"
[ -x "$PY" ] || { echo "SKIP: $PY not found"; exit $ksft_skip; }

# ---- lint ---------------------------------------------------------------------
for m in "$M8" "$M5" "$M8C"; do
	if command -v mandoc >/dev/null; then
		out=$(mandoc -Tlint -Wwarning "$m" 2>&1); tool=mandoc
	elif command -v groff >/dev/null; then
		out=$(groff -ww -z -t -man "$m" 2>&1); tool=groff
	else
		skip "lint $(basename "$m")" "neither mandoc nor groff installed"; continue
	fi
	if [ -z "$out" ]; then ok "lint $(basename "$m") ($tool)"; else fail "lint $(basename "$m") ($tool)" "$out"; fi
done

# ---- coverage -------------------------------------------------------------------
# cover NAME PAGE MODE ARGS...: man_check.py must find nothing missing.
cover() {
	local name=$1 out rc; shift
	out=$($MC "$@" 2>/dev/null); rc=$?
	if [ $rc -eq 0 ]; then ok "$name"; else fail "$name" "missing: $(echo "$out" | paste -sd' ')"; fi
}
# uncover NAME WORD SED MODE ARGS... PAGE: on a copy of PAGE edited by the
# sed expression SED (which takes WORD out), the check must name WORD.
uncover() {
	local name=$1 word=$2 expr=$3 page=${*: -1} copy="$TMPD/page" out; shift 3
	sed -e "$expr" "$page" >"$copy"
	out=$($MC "${@:1:$#-1}" "$copy" 2>/dev/null)
	if echo "$out" | grep -qx -- "$word"; then ok "$name"; else fail "$name" "got: $out"; fi
}
# the grammar's files; import.c reads ip's output, not srv6d.conf
GRAMMAR=$(ls "$TOP_DIR"/src/conf/*.c | grep -v '/import\.c$')
cover "srv6d.conf(5) documents every keyword the grammar knows" \
	keywords $GRAMMAR "$M5"
uncover "... and notices one taken out (log-level)" log-level \
	's/^\.BR log-level /.R log-level /' keywords $GRAMMAR "$M5"
cover "srv6d.conf(5) documents every hmac keyword hmac_conf.c knows" \
	keywords "$TOP_DIR/src/conf/hmac_conf.c" "$M5"
cover "srv6d.conf(5) documents every behavior, flavor and mode" \
	names "$TOP_DIR/src/core/seg6.c" "$TOP_DIR/src/core/headend.c" "$M5"
uncover "... and notices one taken out (End.DT46)" End.DT46 's/^End\.DT46\t/Xx\t/' \
	names "$TOP_DIR/src/core/seg6.c" "$TOP_DIR/src/core/headend.c" "$M5"
cover "srv6d(8) documents every option" options "$TOP_DIR/src/daemon/main.c" "$M8"
uncover "... and notices one taken out (--pid-file)" --pid-file 's/\\-\\-pid-file//g' \
	options "$TOP_DIR/src/daemon/main.c" "$M8"

cover "srv6ctl(8) documents every command of the table" commands "$TOP_DIR/src/control/ctl.c" "$M8C"
uncover "... and notices one taken out (queue show)" "queue show" 's/^\.B queue show/.B queue list/' \
	commands "$TOP_DIR/src/control/ctl.c" "$M8C"

# ---- the examples parse -------------------------------------------------------------
if srv6d_built; then
	# EXAMPLES of srv6d.conf(5); the uncommented lines of PASTING IP ROUTE
	# LINES (a file of their own: they repeat a SID of the examples).
	for sec in EXAMPLES PASTING; do
		awk -v want="$sec" '/^\.SH /{ sec = $2 } /^\.EX/{ ex = 1; next } /^\.EE/{ ex = 0 }
		     ex && sec == want && $0 !~ /^#/' "$M5" |
			sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e '/^steer /d' >"$TMPD/$sec.conf"
		sed -i '1i steer none' "$TMPD/$sec.conf"   # no steering tools needed
		n=$(grep -c '^\(sid\|route\) ' "$TMPD/$sec.conf")
		if out=$("$SRV6D" --check -c "$TMPD/$sec.conf" 2>&1) && [ "$n" -gt 0 ] &&
		   ! echo "$out" | grep -v ': warning: ' | grep -q .; then
			ok "srv6d.conf(5) $sec lines parse ($n sid/route lines)"
		else
			fail "srv6d.conf(5) $sec lines parse ($n sid/route lines)" "$out"
		fi
	done
else
	skip "srv6d.conf(5) examples parse" "srv6d not built"
fi
summary
