#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_reinject_maxlen.sh - held packets count against queue-maxlen
# (docs/REINJECTION.md): with queue-maxlen 4, six End packets of the
# kernel's seg6local sent to policy queue 11 (hold) at LOCAL_IN: four are
# held, the kernel drops two (queue_dropped +2, fail-open no); `queue
# release 11 all` delivers the four, each exactly once.
#
# SETS net.netfilter.nf_hooks_lwtunnel=1, which is global and cannot be
# turned off again: run it last (tests/check.sh runs the suite "reinject"
# after every other one).  Topology and SIDs: tests/reinject/lib.sh.
#
#   src --(6 x End)--> rtr (INPUT -> queue 11 hold, maxlen 4) --> dst (counter)
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
RJ_EXTRA_CONF="queue-maxlen 4"
rj_require
trap cleanup EXIT
rj_setup || { fail "setup"; exit 1; }

kq() { in_rtr awk -v f="$1" '$1 == 11 {print $f}' /proc/net/netfilter/nfnetlink_queue; }
sink_add
hook INPUT 11 -d $SID:1
"$PY" "$RJ_DIR/rj_send.py" --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" --cap "$NS_DST:eth0" \
	--hex "${RJ_HEX[end]}" --count 6 --want 0 --timeout 0 >/dev/null
dropped() { [ "$(kq 6)" = 2 ]; }
check "queue-maxlen 4: the kernel dropped 2 of 6 (queue_dropped $(wait_until 10 dropped; kq 6))" dropped
check "queue-maxlen 4: 4 held by srv6d, 4 waiting in the kernel" \
	wait_until 10 eval '[ "$(qget 11 held_now)/$(kq 3)" = 4/4 ]'
check "nothing delivered while held" [ "$(sink)" = 0 ]
R=$(ctl queue release 11 all)
check "release all: $R" [ "$R" = "queue 11: released 4" ]
check "the 4 held packets delivered, each once" wait_until 10 eval '[ "$(sink)" = 4 ]'
check "kernel waiting 0, srv6d holds 0, no late verdict" \
	[ "$(kq 3)/$(qget 11 held_now)/$(qget 11 late)" = 0/0/0 ]
rj_finish
