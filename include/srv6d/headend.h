/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * headend.h - SR policy headend transforms (RFC 8986 §5): H.Encaps,
 * H.Encaps.Red, H.Insert (the kernel's "inline" mode), H.Encaps.L2 and
 * H.Encaps.L2.Red, as used by "route PREFIX encap seg6 mode M segs ...".
 * Pure code: no I/O, no globals.
 */
#ifndef SRV6D_HEADEND_H
#define SRV6D_HEADEND_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt.h"
#include "seg6.h"
#include "srh.h"

struct srv6_hmac_key;

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
	char dev_name[IF_NAMESIZE];           /* "dev" of the pasted route: outer
						 source selection ("" none) */
	/* Filled by the datapath before publishing: */
	struct in6_addr encap_src;            /* outer source address */
	int flowlabel_mode;                   /* net.ipv6.seg6_flowlabel: > 0 hash,
						 0 copy, < 0 zero (any int) */
	uint32_t mark;                        /* next-hop context, usually 0 */
	/* `hmac KEYID` (0: none); the key is filled by the datapath and
	 * points into the configuration's struct srv6_hmac_set: */
	uint32_t hmac_keyid;
	const struct srv6_hmac_key *hmac_key;
	bool pending;                         /* no outer source yet (interface or
						 route toward the first segment
						 missing): packets are dropped as
						 SRV6_DROP_PENDING */
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
 * same input.  Fills @res (SRV6_V_FORWARD6 or a drop; SRV6_DROP_PENDING for a
 * pending @pol).  Returns 0.  Pure.
 */
int srv6_headend_apply(const struct srv6_policy *pol, uint8_t inner_proto,
		       struct srv6_pkt *pkt, struct srv6_result *res);

/*
 * Engine internals shared by headend.c and seg6.c (End.B6*); not for the
 * datapath.  Both rewrite @pkt in place and return 0, -ENOSPC (headroom
 * exhausted, @pkt untouched), -EMSGSIZE (result longer than 65535 + 40) or
 * -EINVAL (@pkt too short for @proto).  Pure.
 */

/**
 * srv6_encap_push - push an outer IPv6 header + SRH for @segs (travel
 * order; @reduced: .Red encoding, no SRH for a single SID) in front of the
 * @proto packet at @pkt (IPPROTO_IPV6, IPPROTO_IPIP or 143 Ethernet), with
 * the kernel's seg6_do_srh_encap()/_red() header rules: traffic class, flow
 * label (per @flowlabel_mode, net.ipv6.seg6_flowlabel) and hop limit from an
 * inner IPv6 header, else 0 / hash / 64; outer source @src.
 */
int srv6_encap_push(struct srv6_pkt *pkt, const struct in6_addr *segs,
		    unsigned int nsegs, bool reduced, uint8_t proto,
		    const struct in6_addr *src, int flowlabel_mode);

/**
 * srv6_encap_push_hmac - srv6_encap_push() with an HMAC TLV signed with
 * @hmac (NULL: none) as iproute2 lays it out and seg6_push_hmac() fills it
 * (H flag set, TLV last, outer source @src).  A reduced single SID keeps its
 * SRH (the kernel's seg6_do_srh_encap_red()).  When signing fails @pkt is
 * left as it came: -EMSGSIZE (more than SRV6_HMAC_MAX_ENTRIES entries, the
 * kernel's limit) or -EINVAL.
 */
int srv6_encap_push_hmac(struct srv6_pkt *pkt, const struct in6_addr *segs,
			 unsigned int nsegs, bool reduced, uint8_t proto,
			 const struct in6_addr *src, int flowlabel_mode,
			 const struct srv6_hmac_key *hmac);

/**
 * srv6_srh_insert - the kernel's seg6_do_srh_inline(): insert an SRH for
 * @segs plus a slot right after the IPv6 header of @pkt; the slot
 * (segments[0]) receives the current destination, the destination becomes
 * segs[0], the SRH takes over the IPv6 Next Header.
 */
int srv6_srh_insert(struct srv6_pkt *pkt, const struct in6_addr *segs,
		    unsigned int nsegs);

/** srv6_srh_insert_hmac - srv6_srh_insert() signed with @hmac (NULL: none),
 * over the packet's own source once the slot is filled; signing errors as
 * srv6_encap_push_hmac(), @pkt left as it came. */
int srv6_srh_insert_hmac(struct srv6_pkt *pkt, const struct in6_addr *segs,
			 unsigned int nsegs, const struct srv6_hmac_key *hmac);

/**
 * srv6_flowlabel_hash - the flow label srv6d uses for seg6_flowlabel = 1: a
 * deterministic FNV-1a hash over the inner 5-tuple (addresses, protocol,
 * ports) of the @proto packet at @p, folded as the kernel folds
 * skb_get_hash() (rol32(h, 16) & 0xfffff).  Not equal to the kernel's
 * value, which uses a random per-boot seed.  Pure.
 */
uint32_t srv6_flowlabel_hash(const uint8_t *p, size_t len, uint8_t proto);

#endif
