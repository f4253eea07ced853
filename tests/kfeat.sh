# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/kfeat.sh - what this kernel can do, for the tests (sourced by
# tests/net/lib.sh and tests/check.sh; needs ip and root).
#
# kfeat FEATURE: true when this kernel has FEATURE, one of
#   seg6local  ip -6 route ... encap seg6local   (CONFIG_IPV6_SEG6_LWTUNNEL)
#   seg6encap  ip -6 route ... encap seg6        (CONFIG_IPV6_SEG6_LWTUNNEL)
#   seg6hmac   ip sr hmac set                    (CONFIG_IPV6_SEG6_HMAC)
#   vrf        ip link add ... type vrf          (CONFIG_NET_VRF)
#   dummy      ip link add ... type dummy        (CONFIG_DUMMY)
#   lwthooks   net.netfilter.nf_hooks_lwtunnel   (CONFIG_NF_HOOKS_LWTUNNEL)
# Probed by doing it, once per process tree, in a throwaway namespace (root);
# the answer is kept in the environment (KFEAT_<feature>=yes|no, exported:
# what a test runs inherits it).  Any test may call it.
kfeat() {
	local v="KFEAT_$1" ns r=no
	if [ -z "${!v:-}" ]; then
		ns="kf-$$-$RANDOM"
		ip netns add "$ns" 2>/dev/null || { printf -v "$v" no; return 1; }
		ip -n "$ns" link set lo up
		case $1 in
		seg6local) ip -n "$ns" -6 route add 2001:db8:ffff::1/128 encap seg6local action End dev lo 2>/dev/null && r=yes ;;
		seg6encap) ip -n "$ns" -6 route add 2001:db8:fffe::/64 encap seg6 mode encap segs 2001:db8:fffd::1 dev lo 2>/dev/null && r=yes ;;
		seg6hmac) printf 'probe\n' | ip netns exec "$ns" ip sr hmac set 77 sha256 >/dev/null 2>&1 && r=yes ;;
		vrf) ip -n "$ns" link add kfvrf type vrf table 77 2>/dev/null && r=yes ;;
		dummy) ip -n "$ns" link add kfdum type dummy 2>/dev/null && r=yes ;;
		lwthooks) [ -e /proc/sys/net/netfilter/nf_hooks_lwtunnel ] && r=yes ;;
		*) ip netns del "$ns"; echo "kfeat: unknown feature $1" >&2; return 2 ;;
		esac
		ip netns del "$ns" 2>/dev/null
		printf -v "$v" %s "$r"; export "${v?}"
	fi
	[ "${!v}" = yes ]
}
# kfeat_why FEATURE: the skip reason naming what this kernel lacks.
kfeat_why() {
	case $1 in
	seg6local) echo "this kernel has no seg6local (CONFIG_IPV6_SEG6_LWTUNNEL)" ;;
	seg6encap) echo "this kernel has no seg6 encap (CONFIG_IPV6_SEG6_LWTUNNEL)" ;;
	seg6hmac) echo "this kernel has no SRv6 HMAC (CONFIG_IPV6_SEG6_HMAC)" ;;
	vrf) echo "this kernel has no VRF devices (CONFIG_NET_VRF)" ;;
	dummy) echo "this kernel has no dummy devices (CONFIG_DUMMY)" ;;
	lwthooks) echo "this kernel has no net.netfilter.nf_hooks_lwtunnel (CONFIG_NF_HOOKS_LWTUNNEL)" ;;
	esac
}
# kfeat_lacking: the features (all of the list above) this kernel lacks,
# space-separated; empty when it has them all (tests/check.sh's oracle suite).
kfeat_lacking() {
	local f out=
	for f in seg6local seg6encap seg6hmac vrf dummy lwthooks; do
		kfeat "$f" || out+=" $f"
	done
	echo "${out# }"
}
