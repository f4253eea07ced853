/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * headend.h - SR policy headend transforms (RFC 8986 §5): H.Encaps,
 * H.Encaps.Red, H.Insert (the kernel's "inline" mode), H.Encaps.L2 and
 * H.Encaps.L2.Red, as used by "route PREFIX encap seg6 mode M segs ...".
 * Pure code: no I/O, no globals.
 */
#ifndef SRV6D_HEADEND_H
#define SRV6D_HEADEND_H

#include <netinet/in.h>
#include <stdint.h>

#include "pkt.h"
#include "seg6.h"
#include "srh.h"

/* Values match iproute2's/the kernel's SEG6_IPTUN_MODE_* where they exist. */
enum srv6_encap_mode {
	SRV6_MODE_INLINE = 0,      /* "inline": H.Insert */
	SRV6_MODE_ENCAP = 1,       /* "encap": H.Encaps */
	SRV6_MODE_L2ENCAP = 2,     /* "l2encap": H.Encaps.L2 */
	SRV6_MODE_ENCAP_RED = 3,   /* "encap.red": H.Encaps.Red */
	SRV6_MODE_L2ENCAP_RED = 4, /* "l2encap.red": H.Encaps.L2.Red */
	SRV6_MODE_MAX,
};

/** srv6_mode_from_name / srv6_mode_name - "encap", "inline", ... ; -1 if unknown. */
int srv6_mode_from_name(const char *name);
const char *srv6_mode_name(enum srv6_encap_mode m);

/** struct srv6_policy - one headend policy, immutable once published. */
struct srv6_policy {
	enum srv6_encap_mode mode;
	unsigned int nsegs;
	struct in6_addr segs[SRV6_MAX_SEGS];  /* travel order */
	/* Filled by the datapath before publishing: */
	struct in6_addr encap_src;            /* outer source address */
	int flowlabel_mode;                   /* net.ipv6.seg6_flowlabel */
	uint32_t mark;                        /* next-hop context, usually 0 */
};

/**
 * srv6_policy_check - validate a policy (segment count, mode known, L2 modes
 * only for Ethernet input).  Returns 0 or -EINVAL with a static reason in
 * *@why.  Pure.
 */
int srv6_policy_check(const struct srv6_policy *pol, const char **why);

/**
 * srv6_headend_apply - apply @pol to the packet at @pkt: an IPv6 packet (all
 * modes but L2), an IPv4 packet (encap modes) or an Ethernet frame (L2 modes),
 * as @inner_proto says (IPPROTO_IPV6, IPPROTO_IPIP, or 143 for Ethernet).
 * Produces bytes identical to the kernel's seg6_do_srh_encap/inline for the
 * same input.  Fills @res (SRV6_V_FORWARD6 or a drop).  Returns 0.  Pure.
 */
int srv6_headend_apply(const struct srv6_policy *pol, uint8_t inner_proto,
		       struct srv6_pkt *pkt, struct srv6_result *res);

#endif
