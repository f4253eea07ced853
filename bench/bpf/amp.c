// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * amp - a tc egress program for the overload benchmark's generator
 * (bench/run_datapath.sh, ovl modes; srv6_blast -A N): a packet whose
 * priority is N (2..16) leaves the device N times.  Its priority is reset to
 * 0 and N - 1 clones are sent out of the same device (bpf_clone_redirect,
 * egress), which pass this program again with priority 0, untouched.
 * Everything else passes untouched.  A userspace generator pays one system
 * call per packet or burst; a clone costs the kernel's transmit alone, so a
 * generator sharing a 2-vCPU machine can offer several times the rate the
 * router takes.
 *
 *   tc qdisc add dev IF clsact
 *   tc filter add dev IF egress bpf direct-action obj amp.bpf.o sec tc
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>

static long (*bpf_clone_redirect)(struct __sk_buff *skb, __u32 ifindex, __u64 flags) = (void *)BPF_FUNC_clone_redirect;

#define MAXAMP 16

__attribute__((section("tc"), used))
int amplify(struct __sk_buff *skb)
{
	__u32 n = skb->priority;

	if (n < 2 || n > MAXAMP)
		return TC_ACT_OK;
	skb->priority = 0;
	for (__u32 i = 1; i < MAXAMP; i++) {
		if (i >= n)
			break;
		bpf_clone_redirect(skb, skb->ifindex, 0);
	}
	return TC_ACT_OK;
}

char _license[] __attribute__((section("license"), used)) = "GPL";
