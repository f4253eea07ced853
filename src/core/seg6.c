// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * seg6.c - RFC 8986 endpoint behaviors as pure functions over a packet.
 *
 * Behaviors are data: seg6_actions[] describes each one (name, required,
 * optional and one-of attribute masks, flavors allowed, handler) the way the
 * kernel's seg6_action_table does; srv6_sid_cfg_check() and the conf
 * parser/printers walk the masks generically.
 *
 * Byte-level parity with net/ipv6/seg6_local.c where the kernel implements a
 * behavior; the RFC 8986 error handling the kernel lacks (ICMP answers,
 * SL == 0 processing, PSP/USP/USD) is added on top.  Every difference is
 * listed in docs/BEHAVIORS.md.  The hop limit is never decremented here:
 * the forwarding step that follows does it, as ip6_forward() does for the
 * kernel.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "srv6d/headend.h"
#include "srv6d/hmac.h"
#include "srv6d/seg6.h"
#include "srv6d/srh.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define NH_IPIP     4
#define NH_IPV6     41
#define NH_ICMPV6   58
#define NH_ETHERNET 143

#define ICMP6_TIME_EXCEEDED  3
#define ICMP6_PARAM_PROB     4
#define ICMP6_ECHO_REQUEST   128
#define ICMP6_ECHO_REPLY     129
#define PARAM_PROB_HEADER    0   /* erroneous header field */
#define PARAM_PROB_SR_UPPER  4   /* SR Upper-layer Header Error (RFC 8754) */

#define SRH_OFF_SL     3
#define IP6_OFF_PLEN   4
#define IP6_OFF_NH     6
#define IP6_OFF_HLIM   7
#define IP6_OFF_DST    24
#define ETH_HLEN       14
#define IP4_HLEN_MIN   20

#define A(x)   SRV6_F_ATTR(SRV6_ATTR_##x)
#define F(x)   SRV6_F_FLV(SRV6_FLV_##x)
#define RFC8986_FLAVORS (F(PSP) | F(USP) | F(USD))

_Static_assert(SRV6_FLV_MAX <= 32, "flavor mask is 32 bits");
_Static_assert(SRV6_DROP_MAX <= 32, "drop reasons fit a small table");

/* ---- small helpers ---------------------------------------------------- */

static void put16(uint8_t *p, size_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint8_t *srh_at(const struct srv6_pkt *pkt,
		       const struct srv6_ip6_info *info)
{
	return pkt->data + info->srh_off;
}

/* Context every handler works with. */
struct ep {
	const struct srv6_sid_cfg *cfg;
	struct srv6_pkt *pkt;
	struct srv6_result *res;
	struct srv6_ip6_info info;
	int hmac_mode;             /* enum srv6_hmac_mode for the input interface */
};

static int drop(struct srv6_result *res, enum srv6_drop why)
{
	res->verdict = SRV6_V_DROP;
	res->reason = why;
	return 0;
}

static int icmp(struct srv6_result *res, uint8_t type, uint8_t code,
		size_t pointer, enum srv6_drop why)
{
	res->verdict = SRV6_V_ICMP;
	res->reason = why;
	res->icmp.type = type;
	res->icmp.code = code;
	res->icmp.pointer = (uint32_t)pointer;
	return 0;
}

/*
 * The next-hop context of a successful result, from the SID's attributes:
 * generic over the attribute mask, so every behavior gets exactly what it
 * was configured with (End.X nh6/oif, End.T table, End.DT* table or
 * vrftable, End.DX4 nh4, End.DX2 oif) and the fwmark selecting it.
 */
static int forward(struct ep *ep, enum srv6_verdict v)
{
	const struct srv6_sid_cfg *cfg = ep->cfg;
	struct srv6_nh *nh = &ep->res->nh;

	ep->res->verdict = v;
	ep->res->reason = SRV6_DROP_NONE;
	nh->mark = cfg->mark;
	if (cfg->attrs & A(TABLE))
		nh->table = cfg->table;
	else if (cfg->attrs & A(VRFTABLE))
		nh->table = cfg->vrftable;
	if (cfg->attrs & A(OIF))
		nh->oif = cfg->oif;
	if (cfg->attrs & A(NH6))
		nh->nh6 = cfg->nh6;
	if (cfg->attrs & A(NH4))
		nh->nh4 = cfg->nh4;
	return 0;
}

/* RFC 8986 §4.1 S05-S06 (and RFC 9800 S02-S03). */
static bool hop_limit_exhausted(struct ep *ep)
{
	if (ep->pkt->data[IP6_OFF_HLIM] > 1)
		return false;
	icmp(ep->res, ICMP6_TIME_EXCEEDED, 0, 0, SRV6_DROP_HOP_LIMIT);
	return true;
}

/*
 * @endpoint: End/End.X/End.T/End.B6*, whose RFC 8986 §4.1 pseudocode checks
 * the hop limit (S05) before the SRH (S09): with Segments Left != 0 and
 * Hop Limit <= 1 an invalid SRH gets Time Exceeded.
 */
static bool srh_error(struct ep *ep, size_t sl_ptr, bool endpoint)
{
	if (endpoint && ep->pkt->data[sl_ptr] != 0 && hop_limit_exhausted(ep))
		return false;
	icmp(ep->res, ICMP6_PARAM_PROB, PARAM_PROB_HEADER, sl_ptr,
	     SRV6_DROP_SRH_INVALID);
	return false;
}

/*
 * Parse the IPv6 chain and map an error to the RFC 8986 answer:
 * LE > max_LE (hdrlen too small included) or SL > LE + 1 -> Parameter
 * Problem code 0 at Segments Left (RFC 8986 §4.1 S09-S10); a TLV overrun is
 * dropped (no ICMP is specified); truncated or malformed chains are dropped.
 * Returns true when @ep->info is usable.
 */
static bool parse(struct ep *ep, bool endpoint)
{
	int err = srv6_ip6_parse(ep->pkt->data, ep->pkt->len, &ep->info);

	switch (err) {
	case SRV6_SRH_OK:
		return true;
	case SRV6_SRH_ERR_LE:
	case SRV6_SRH_ERR_SL:
		/* err_ptr is srh_off + 3: Segments Left */
		return srh_error(ep, ep->info.err_ptr, endpoint);
	case SRV6_SRH_ERR_LEN:
		/* err_ptr is srh_off + 1 (Hdr Ext Len < 2): max_LE < 0, so
		 * this is RFC 8986 S09's Last Entry > max_LE. */
		return srh_error(ep, ep->info.err_ptr + 2, endpoint);
	case SRV6_SRH_ERR_TYPE:
		icmp(ep->res, ICMP6_PARAM_PROB, PARAM_PROB_HEADER,
		     ep->info.err_ptr, SRV6_DROP_SRH_INVALID);
		return false;
	case SRV6_SRH_ERR_TLV:
		drop(ep->res, SRV6_DROP_SRH_INVALID);
		return false;
	default:
		drop(ep->res, SRV6_DROP_MALFORMED);
		return false;
	}
}

/*
 * seg6_hmac_validate_skb() on the parsed SRH (the TLV found the RFC's way).
 * Returns false with @res final (SRV6_DROP_HMAC) when it fails.
 */
static bool hmac_ok(struct ep *ep)
{
	size_t off;

	if (srv6_hmac_check(ep->cfg->hmac, ep->hmac_mode, srh_at(ep->pkt, &ep->info),
			    ep->pkt->data + 8, &off) == SRV6_HMAC_PASS)
		return true;
	if (off)   /* RFC 8754 §2.1.2.1: Parameter Problem at the HMAC TLV */
		icmp(ep->res, ICMP6_PARAM_PROB, PARAM_PROB_HEADER,
		     ep->info.srh_off + off, SRV6_DROP_HMAC);
	else
		drop(ep->res, SRV6_DROP_HMAC);
	return false;
}

static bool has_flavor(const struct ep *ep, enum srv6_flavor f)
{
	return (ep->cfg->attrs & A(FLAVORS)) &&
	       (ep->cfg->flavors & SRV6_F_FLV(f));
}

static unsigned int sl_of(const struct ep *ep)
{
	return ep->info.has_srh ? srh_at(ep->pkt, &ep->info)[SRH_OFF_SL] : 0;
}

/*
 * Remove the outer IPv6 header and every extension header in front of the
 * upper layer at info.upper_off (the kernel's decap_and_validate()).
 */
static void decap(struct ep *ep)
{
	ep->pkt->data += ep->info.upper_off;
	ep->pkt->len -= ep->info.upper_off;
}

/* Is the upper layer a well-formed enough @proto packet to forward? */
static bool inner_ok(const struct ep *ep, uint8_t proto)
{
	size_t n = ep->pkt->len - ep->info.upper_off;
	const uint8_t *p = ep->pkt->data + ep->info.upper_off;

	switch (proto) {
	case NH_IPV6:
		return n >= SRV6_IPV6_HLEN && (p[0] >> 4) == 6;
	case NH_IPIP:
		return n >= IP4_HLEN_MIN && (p[0] >> 4) == 4;
	case NH_ETHERNET:
		/* the kernel's eth_proto_is_802_3() check in End.DX2 */
		return n >= ETH_HLEN && ((p[12] << 8) | p[13]) >= 0x0600;
	}
	return false;
}

/*
 * RFC 8986 §4.1.1: local processing of the upper layer.  An ICMPv6 Echo
 * Request is answered (so "ping SID" works); ICMPv6 errors are never
 * answered with errors (RFC 4443 §2.4(e)) and are dropped; anything else
 * gets Parameter Problem code 4 pointing at the upper-layer header.
 */
static int upper_local(struct ep *ep, enum srv6_drop why)
{
	size_t off = ep->info.upper_off;
	const uint8_t *p = ep->pkt->data;

	if (ep->info.upper_proto == NH_ICMPV6 && off < ep->pkt->len) {
		if (p[off] == ICMP6_ECHO_REQUEST)
			return icmp(ep->res, ICMP6_ECHO_REPLY, 0, 0,
				    SRV6_DROP_NONE);
		if (p[off] < 128)
			return drop(ep->res, why);
	}
	return icmp(ep->res, ICMP6_PARAM_PROB, PARAM_PROB_SR_UPPER, off, why);
}

/*
 * Upper-layer processing of End/End.X/End.T/End.B6* (no SRH, or SL == 0).
 * USD (RFC 8986 §4.16.3): an inner IPv6/IPv4 packet is decapsulated and
 * forwarded with the SID's next-hop context (main table for End, table T
 * for End.T, the adjacency for End.X).  USP (§4.16.2) removes the SRH before
 * this step; since every local outcome here is either that decapsulation
 * (which removes the SRH anyway) or an ICMP answer quoting the received
 * packet, USP has no visible effect on the result.
 */
static int upper_layer(struct ep *ep)
{
	enum srv6_drop why = ep->info.has_srh ? SRV6_DROP_SL_ZERO :
						SRV6_DROP_NO_SRH;
	uint8_t up = ep->info.upper_proto;

	if (has_flavor(ep, SRV6_FLV_USD) && (up == NH_IPV6 || up == NH_IPIP)) {
		if (!inner_ok(ep, up))
			return drop(ep->res, SRV6_DROP_BAD_INNER);
		decap(ep);
		return forward(ep, up == NH_IPV6 ? SRV6_V_FORWARD6 :
						   SRV6_V_FORWARD4);
	}
	return upper_local(ep, why);
}

/* ---- NEXT-C-SID (RFC 9800; the kernel's end_next_csid_core()) --------- */

static void csid_lengths(const struct srv6_sid_cfg *cfg, unsigned int *blk,
			 unsigned int *fnc)
{
	*blk = (cfg->lblen ? cfg->lblen : SRV6_CSID_LBLEN_DEFAULT) / 8;
	*fnc = (cfg->nflen ? cfg->nflen : SRV6_CSID_NFLEN_DEFAULT) / 8;
}

/* seg6_next_csid_is_arg_zero() */
static bool csid_arg_zero(const uint8_t *da, unsigned int blk,
			  unsigned int fnc)
{
	unsigned int i;

	for (i = blk + fnc; i < 16; i++)
		if (da[i])
			return false;
	return true;
}

/*
 * Returns true when NEXT-C-SID consumed the packet (argument non-zero: DA
 * shifted, or Time Exceeded); false to continue with the End processing.
 */
static bool next_csid(struct ep *ep)
{
	unsigned int blk, fnc;
	uint8_t *da = ep->pkt->data + IP6_OFF_DST;

	if (!has_flavor(ep, SRV6_FLV_NEXT_CSID))
		return false;
	csid_lengths(ep->cfg, &blk, &fnc);
	if (blk + fnc >= 16 || csid_arg_zero(da, blk, fnc))
		return false;
	if (hop_limit_exhausted(ep))
		return true;
	/* seg6_next_csid_advance_arg() */
	memmove(da + blk, da + blk + fnc, 16 - blk - fnc);
	memset(da + 16 - fnc, 0, fnc);
	forward(ep, SRV6_V_FORWARD6);
	return true;
}

/* ---- End, End.X, End.T ------------------------------------------------ */

/*
 * The part of RFC 8986 §4.1 shared by End, End.X, End.T and End.B6*:
 * NEXT-C-SID, parse, SL == 0 / no SRH -> upper layer, hop limit.  Returns
 * true when the caller must go on with an SRH whose SL > 0.
 */
static bool end_prologue(struct ep *ep, bool csid)
{
	/* RFC 9800 S01 and the kernel's end_next_csid_core(): a non-zero
	 * argument is consumed before the SRH is looked at (valid or not). */
	if (csid && next_csid(ep))
		return false;
	if (!parse(ep, true))
		return false;
	/* get_and_validate_srh(): HMAC before anything else looks at the SRH */
	if (ep->info.has_srh && !hmac_ok(ep))
		return false;
	if (!ep->info.has_srh || sl_of(ep) == 0) {
		upper_layer(ep);
		return false;
	}
	return !hop_limit_exhausted(ep);
}

/* advance_nextseg(): SL--, DA = Segment List[SL]. */
static void advance(struct ep *ep)
{
	uint8_t *srh = srh_at(ep->pkt, &ep->info);
	unsigned int sl = --srh[SRH_OFF_SL];

	memcpy(ep->pkt->data + IP6_OFF_DST,
	       srh + SRV6_SRH_FIXED + (size_t)sl * 16, 16);
}

/*
 * The kernel's seg6_pop_srh(): remove the SRH, give its Next Header to the
 * header in front of it, fix the Payload Length.  The IPv6 header and any
 * extension headers before the SRH move forward by the SRH length.
 */
static void pop_srh(struct ep *ep)
{
	struct srv6_pkt *pkt = ep->pkt;
	size_t off = ep->info.srh_off, len = ep->info.srh_len;
	uint8_t nh = pkt->data[off];

	memmove(pkt->data + len, pkt->data, off);
	pkt->data += len;
	pkt->len -= len;
	pkt->data[ep->info.nh_byte_off] = nh;
	put16(pkt->data + IP6_OFF_PLEN, pkt->len - SRV6_IPV6_HLEN);
}

/* S12-S15 plus PSP (RFC 8986 §4.16.1.2: pop the SRH when SL became 0). */
static int end_finish(struct ep *ep)
{
	advance(ep);
	if (has_flavor(ep, SRV6_FLV_PSP) && sl_of(ep) == 0)
		pop_srh(ep);
	return forward(ep, SRV6_V_FORWARD6);
}

/* End (§4.1), End.X (§4.2), End.T (§4.3): they differ only in the
 * next-hop context, which forward() takes from the attributes. */
static int input_end(const struct srv6_sid_cfg *cfg, int hmac_mode,
		     struct srv6_pkt *pkt,
		     struct srv6_result *res)
{
	struct ep ep = { .cfg = cfg, .pkt = pkt, .res = res,
			 .hmac_mode = hmac_mode };

	if (!end_prologue(&ep, true))
		return 0;
	return end_finish(&ep);
}

/* ---- End.B6 (kernel: SRH insertion), End.B6.Encaps(.Red) -------------- */

static int rewrite_failed(struct srv6_result *res, int err)
{
	return drop(res, err == -EINVAL ? SRV6_DROP_MALFORMED :
					  SRV6_DROP_NO_ROOM);
}

/*
 * The kernel's input_action_end_b6(): seg6_do_srh_inline() on the packet as
 * received, without advancing its SRH; the new SRH's slot receives the
 * current destination (this SID).
 */
static int input_end_b6(const struct srv6_sid_cfg *cfg, int hmac_mode,
			struct srv6_pkt *pkt,
			struct srv6_result *res)
{
	struct ep ep = { .cfg = cfg, .pkt = pkt, .res = res,
			 .hmac_mode = hmac_mode };
	int err;

	if (!end_prologue(&ep, false))
		return 0;
	err = srv6_srh_insert_hmac(pkt, cfg->segs, cfg->nsegs, cfg->hmac_key);
	if (err)
		return rewrite_failed(res, err);
	return forward(&ep, SRV6_V_FORWARD6);
}

/* The kernel's input_action_end_b6_encap(): advance, then encapsulate. */
static int b6_encap(struct ep *ep, bool reduced)
{
	const struct srv6_sid_cfg *cfg = ep->cfg;
	uint8_t da[16], *srh;
	int err;

	if (!end_prologue(ep, false))
		return 0;
	srh = srh_at(ep->pkt, &ep->info);
	memcpy(da, ep->pkt->data + IP6_OFF_DST, 16);
	advance(ep);
	err = srv6_encap_push_hmac(ep->pkt, cfg->segs, cfg->nsegs, reduced,
				   NH_IPV6, &cfg->encap_src, cfg->flowlabel_mode,
				   cfg->hmac_key);
	if (err) {
		/* the push left the packet alone: undo the advance */
		srh[SRH_OFF_SL]++;
		memcpy(ep->pkt->data + IP6_OFF_DST, da, 16);
		return rewrite_failed(ep->res, err);
	}
	return forward(ep, SRV6_V_FORWARD6);
}

static int input_end_b6_encap(const struct srv6_sid_cfg *cfg, int hmac_mode,
			      struct srv6_pkt *pkt, struct srv6_result *res)
{
	struct ep ep = { .cfg = cfg, .pkt = pkt, .res = res,
			 .hmac_mode = hmac_mode };

	return b6_encap(&ep, false);
}

static int input_end_b6_encap_red(const struct srv6_sid_cfg *cfg, int hmac_mode,
				  struct srv6_pkt *pkt,
				  struct srv6_result *res)
{
	struct ep ep = { .cfg = cfg, .pkt = pkt, .res = res,
			 .hmac_mode = hmac_mode };

	return b6_encap(&ep, true);
}

/* ---- decapsulating behaviors ------------------------------------------ */

/*
 * RFC 8986 §4.4-§4.9: an SRH must have SL == 0 (else Parameter Problem
 * code 0 at Segments Left); no SRH is fine (the kernel's
 * decap_and_validate()).  The upper layer must be one @want accepts; else
 * §4.1.1.  Returns the accepted upper-layer protocol, or 0 when @res is
 * final.
 */
static uint8_t decap_prologue(struct ep *ep, bool v6, bool v4, bool l2)
{
	uint8_t up;

	if (!parse(ep, false))
		return 0;
	if (ep->info.has_srh && sl_of(ep) != 0) {
		icmp(ep->res, ICMP6_PARAM_PROB, PARAM_PROB_HEADER,
		     ep->info.srh_off + SRH_OFF_SL, SRV6_DROP_SL_NONZERO);
		return 0;
	}
	/* decap_and_validate(): an SRH with SL 0 is checked */
	if (ep->info.has_srh && !hmac_ok(ep))
		return 0;
	up = ep->info.upper_proto;
	if ((v6 && up == NH_IPV6) || (v4 && up == NH_IPIP) ||
	    (l2 && up == NH_ETHERNET)) {
		if (!inner_ok(ep, up)) {
			drop(ep->res, SRV6_DROP_BAD_INNER);
			return 0;
		}
		return up;
	}
	upper_local(ep, SRV6_DROP_BAD_INNER);
	return 0;
}

static int decap_forward(struct ep *ep, uint8_t up)
{
	decap(ep);
	if (up == NH_ETHERNET)
		return forward(ep, SRV6_V_L2);
	return forward(ep, up == NH_IPV6 ? SRV6_V_FORWARD6 : SRV6_V_FORWARD4);
}

#define DECAP_HANDLER(fn, v6, v4, l2)					\
static int fn(const struct srv6_sid_cfg *cfg, int hmac_mode,		\
	      struct srv6_pkt *pkt,					\
	      struct srv6_result *res)					\
{									\
	struct ep ep = { .cfg = cfg, .pkt = pkt, .res = res,		\
			 .hmac_mode = hmac_mode };			\
	uint8_t up = decap_prologue(&ep, v6, v4, l2);			\
									\
	return up ? decap_forward(&ep, up) : 0;				\
}

/* End.DX6/End.DT6 (§4.4, §4.6), End.DX4/End.DT4 (§4.5, §4.7),
 * End.DT46 (§4.8), End.DX2 (§4.9). */
DECAP_HANDLER(input_end_d6, true, false, false)
DECAP_HANDLER(input_end_d4, false, true, false)
DECAP_HANDLER(input_end_dt46, true, true, false)
DECAP_HANDLER(input_end_dx2, false, false, true)

/* ---- tables ----------------------------------------------------------- */

static const struct srv6_action_desc seg6_actions[SRV6_ACT_MAX] = {
	[SRV6_ACT_END] = {
		.action = SRV6_ACT_END, .name = "End",
		.optional_attrs = A(FLAVORS),
		.flavors_allowed = RFC8986_FLAVORS | F(NEXT_CSID),
		.kernel = true, .input = input_end,
	},
	[SRV6_ACT_END_X] = {
		.action = SRV6_ACT_END_X, .name = "End.X",
		.required_attrs = A(NH6),
		.optional_attrs = A(OIF) | A(FLAVORS),
		.flavors_allowed = RFC8986_FLAVORS | F(NEXT_CSID),
		.kernel = true, .input = input_end,
	},
	[SRV6_ACT_END_T] = {
		.action = SRV6_ACT_END_T, .name = "End.T",
		.required_attrs = A(TABLE),
		.optional_attrs = A(FLAVORS),
		.flavors_allowed = RFC8986_FLAVORS,
		.kernel = true, .input = input_end,
	},
	[SRV6_ACT_END_DX2] = {
		.action = SRV6_ACT_END_DX2, .name = "End.DX2",
		.required_attrs = A(OIF),
		.kernel = true, .input = input_end_dx2,
	},
	[SRV6_ACT_END_DX6] = {
		.action = SRV6_ACT_END_DX6, .name = "End.DX6",
		.required_attrs = A(NH6),
		.kernel = true, .input = input_end_d6,
	},
	[SRV6_ACT_END_DX4] = {
		.action = SRV6_ACT_END_DX4, .name = "End.DX4",
		.required_attrs = A(NH4),
		.kernel = true, .input = input_end_d4,
	},
	[SRV6_ACT_END_DT6] = {
		.action = SRV6_ACT_END_DT6, .name = "End.DT6",
		.optional_attrs = A(TABLE) | A(VRFTABLE),
		.one_of_attrs = A(TABLE) | A(VRFTABLE),
		.kernel = true, .input = input_end_d6,
	},
	[SRV6_ACT_END_DT4] = {
		.action = SRV6_ACT_END_DT4, .name = "End.DT4",
		.optional_attrs = A(TABLE) | A(VRFTABLE),
		.one_of_attrs = A(TABLE) | A(VRFTABLE),
		.kernel = true, .input = input_end_d4,
	},
	[SRV6_ACT_END_B6] = {
		.action = SRV6_ACT_END_B6, .name = "End.B6",
		.required_attrs = A(SRH),
		.kernel = true, .input = input_end_b6,
	},
	[SRV6_ACT_END_B6_ENCAP] = {
		.action = SRV6_ACT_END_B6_ENCAP, .name = "End.B6.Encaps",
		.required_attrs = A(SRH),
		.kernel = true, .input = input_end_b6_encap,
	},
	[SRV6_ACT_END_DT46] = {
		.action = SRV6_ACT_END_DT46, .name = "End.DT46",
		.optional_attrs = A(TABLE) | A(VRFTABLE),
		.one_of_attrs = A(TABLE) | A(VRFTABLE),
		.kernel = true, .input = input_end_dt46,
	},
	[SRV6_ACT_END_B6_ENCAP_RED] = {
		.action = SRV6_ACT_END_B6_ENCAP_RED,
		.name = "End.B6.Encaps.Red",
		.required_attrs = A(SRH),
		.kernel = false, .input = input_end_b6_encap_red,
	},
};
_Static_assert(ARRAY_SIZE(seg6_actions) == SRV6_ACT_MAX,
	       "one descriptor slot per action value");
_Static_assert(SRV6_ACT_MAX <= 32, "action values stay small");

static const char *const attr_names[SRV6_ATTR_MAX] = {
	[SRV6_ATTR_SRH] = "srh",
	[SRV6_ATTR_TABLE] = "table",
	[SRV6_ATTR_VRFTABLE] = "vrftable",
	[SRV6_ATTR_NH4] = "nh4",
	[SRV6_ATTR_NH6] = "nh6",
	[SRV6_ATTR_OIF] = "oif",
	[SRV6_ATTR_FLAVORS] = "flavors",
};
_Static_assert(ARRAY_SIZE(attr_names) == SRV6_ATTR_MAX, "attr names");

/* cfg_check messages naming the attribute (static strings, no formatting) */
static const char *const attr_missing[SRV6_ATTR_MAX] = {
	[SRV6_ATTR_SRH] = "missing attribute \"srh\"",
	[SRV6_ATTR_TABLE] = "missing attribute \"table\"",
	[SRV6_ATTR_VRFTABLE] = "missing attribute \"vrftable\"",
	[SRV6_ATTR_NH4] = "missing attribute \"nh4\"",
	[SRV6_ATTR_NH6] = "missing attribute \"nh6\"",
	[SRV6_ATTR_OIF] = "missing attribute \"oif\"",
	[SRV6_ATTR_FLAVORS] = "missing attribute \"flavors\"",
};
static const char *const attr_extra[SRV6_ATTR_MAX] = {
	[SRV6_ATTR_SRH] = "attribute \"srh\" not valid for this action",
	[SRV6_ATTR_TABLE] = "attribute \"table\" not valid for this action",
	[SRV6_ATTR_VRFTABLE] =
		"attribute \"vrftable\" not valid for this action",
	[SRV6_ATTR_NH4] = "attribute \"nh4\" not valid for this action",
	[SRV6_ATTR_NH6] = "attribute \"nh6\" not valid for this action",
	[SRV6_ATTR_OIF] = "attribute \"oif\" not valid for this action",
	[SRV6_ATTR_FLAVORS] =
		"attribute \"flavors\" not valid for this action",
};

static const char *const flavor_names[SRV6_FLV_MAX] = {
	[SRV6_FLV_PSP] = "psp",
	[SRV6_FLV_USP] = "usp",
	[SRV6_FLV_USD] = "usd",
	[SRV6_FLV_NEXT_CSID] = "next-csid",
};
_Static_assert(ARRAY_SIZE(flavor_names) == SRV6_FLV_MAX, "flavor names");

static const char *const flavor_unsupported[SRV6_FLV_MAX] = {
	[SRV6_FLV_PSP] = "flavor \"psp\" not supported by this action",
	[SRV6_FLV_USP] = "flavor \"usp\" not supported by this action",
	[SRV6_FLV_USD] = "flavor \"usd\" not supported by this action",
	[SRV6_FLV_NEXT_CSID] =
		"flavor \"next-csid\" not supported by this action",
};

static const char *const drop_names[SRV6_DROP_MAX] = {
	[SRV6_DROP_NONE] = "none",
	[SRV6_DROP_MALFORMED] = "malformed",
	[SRV6_DROP_SRH_INVALID] = "srh-invalid",
	[SRV6_DROP_NO_SRH] = "no-srh",
	[SRV6_DROP_SL_ZERO] = "sl-zero",
	[SRV6_DROP_SL_NONZERO] = "sl-nonzero",
	[SRV6_DROP_BAD_INNER] = "bad-inner",
	[SRV6_DROP_HOP_LIMIT] = "hop-limit",
	[SRV6_DROP_NO_ROOM] = "no-room",
	[SRV6_DROP_CSID_ARG] = "csid-arg",
	[SRV6_DROP_UNSUPPORTED] = "unsupported",
	[SRV6_DROP_LOOP] = "loop",
	[SRV6_DROP_PENDING] = "pending",
	[SRV6_DROP_ICMP_LIMITED] = "icmp-limited",
	[SRV6_DROP_ECHO_IGNORED] = "echo-ignored",
	[SRV6_DROP_HMAC] = "hmac",
};
_Static_assert(ARRAY_SIZE(drop_names) == SRV6_DROP_MAX, "drop names");

/* ---- public API ------------------------------------------------------- */

const struct srv6_action_desc *srv6_action_desc_get(enum srv6_action act)
{
	if ((unsigned int)act >= SRV6_ACT_MAX || !seg6_actions[act].name)
		return NULL;
	return &seg6_actions[act];
}

enum srv6_action srv6_action_from_name(const char *name)
{
	unsigned int i;

	if (!name)
		return SRV6_ACT_UNSPEC;
	for (i = 0; i < SRV6_ACT_MAX; i++)
		if (seg6_actions[i].name && !strcmp(seg6_actions[i].name, name))
			return (enum srv6_action)i;
	return SRV6_ACT_UNSPEC;
}

const char *srv6_action_name(enum srv6_action act)
{
	const struct srv6_action_desc *d = srv6_action_desc_get(act);

	return d ? d->name : "unknown";
}

const char *srv6_attr_name(enum srv6_attr a)
{
	if ((unsigned int)a >= SRV6_ATTR_MAX)
		return "unknown";
	return attr_names[a];
}

int srv6_flavor_from_name(const char *name)
{
	unsigned int i;

	if (!name)
		return -1;
	for (i = 0; i < SRV6_FLV_MAX; i++)
		if (!strcmp(flavor_names[i], name))
			return (int)i;
	return -1;
}

const char *srv6_flavor_name(enum srv6_flavor f)
{
	if ((unsigned int)f >= SRV6_FLV_MAX)
		return "unknown";
	return flavor_names[f];
}

const char *srv6_drop_name(enum srv6_drop r)
{
	if ((unsigned int)r >= SRV6_DROP_MAX)
		return "unknown";
	return drop_names[r];
}

static int check_fail(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -EINVAL;
}

/* The kernel's seg6_chk_next_csid_cfg() on lengths (0 = default). */
static bool csid_len_ok(unsigned int bits)
{
	return bits >= 8 && bits <= 120 && !(bits & 7);
}

int srv6_sid_cfg_check(const struct srv6_sid_cfg *cfg, const char **why)
{
	const struct srv6_action_desc *d;
	uint32_t allowed, present;
	unsigned int i, lb, nf;

	if (!cfg)
		return check_fail(why, "no configuration");
	d = srv6_action_desc_get(cfg->action);
	if (!d || !d->input)
		return check_fail(why, "unknown action");

	present = cfg->attrs;
	allowed = d->required_attrs | d->optional_attrs;
	for (i = 0; i < SRV6_ATTR_MAX; i++) {
		if ((d->required_attrs & SRV6_F_ATTR(i)) &&
		    !(present & SRV6_F_ATTR(i)))
			return check_fail(why, attr_missing[i]);
		if ((present & SRV6_F_ATTR(i)) && !(allowed & SRV6_F_ATTR(i)))
			return check_fail(why, attr_extra[i]);
	}
	if (present & ~((uint32_t)SRV6_F_ATTR(SRV6_ATTR_MAX) - 1))
		return check_fail(why, "unknown attribute");
	if (d->one_of_attrs) {
		uint32_t got = present & d->one_of_attrs;

		if (!got)
			return check_fail(why,
					  "one of \"table\", \"vrftable\" is required");
		if (got & (got - 1))
			return check_fail(why,
					  "\"table\" and \"vrftable\" are exclusive");
	}

	/* Segment list (End.B6*). */
	if (present & A(SRH)) {
		if (cfg->nsegs == 0)
			return check_fail(why, "empty segment list");
		if (cfg->nsegs > SRV6_MAX_SEGS)
			return check_fail(why, "too many segments");
	}

	/* Flavors: each allowed for the action.  RFC 8986 §4.16 allows PSP,
	 * USP and USD in every combination; RFC 9800 §4.1.3 combines
	 * NEXT-C-SID with each of them unchanged. */
	if (present & A(FLAVORS)) {
		if (!cfg->flavors)
			return check_fail(why, "empty flavor list");
		if (cfg->flavors & ~((uint32_t)SRV6_F_FLV(SRV6_FLV_MAX) - 1))
			return check_fail(why, "unknown flavor");
		for (i = 0; i < SRV6_FLV_MAX; i++)
			if ((cfg->flavors & SRV6_F_FLV(i)) &&
			    !(d->flavors_allowed & SRV6_F_FLV(i)))
				return check_fail(why, flavor_unsupported[i]);
	} else if (cfg->flavors) {
		return check_fail(why, "flavors set without the flavors attribute");
	}

	if ((present & A(FLAVORS)) && (cfg->flavors & F(NEXT_CSID))) {
		lb = cfg->lblen ? cfg->lblen : SRV6_CSID_LBLEN_DEFAULT;
		nf = cfg->nflen ? cfg->nflen : SRV6_CSID_NFLEN_DEFAULT;
		if (!csid_len_ok(lb))
			return check_fail(why,
					  "lblen must be a multiple of 8 in 8..120");
		if (!csid_len_ok(nf))
			return check_fail(why,
					  "nflen must be a multiple of 8 in 8..120");
		if (lb + nf > 128)
			return check_fail(why, "lblen + nflen exceeds 128");
	} else if (cfg->lblen || cfg->nflen) {
		return check_fail(why, "lblen/nflen need the next-csid flavor");
	}
	if (why)
		*why = NULL;
	return 0;
}

int srv6_sid_process(const struct srv6_sid_cfg *cfg, struct srv6_pkt *pkt,
		     struct srv6_result *res)
{
	return srv6_sid_process_in(cfg, 0, pkt, res);
}

int srv6_sid_process_in(const struct srv6_sid_cfg *cfg, int indev, struct srv6_pkt *pkt,
			struct srv6_result *res)
{
	const struct srv6_action_desc *d;
	size_t plen, len;

	memset(res, 0, sizeof(*res));
	res->verdict = SRV6_V_DROP;
	d = cfg ? srv6_action_desc_get(cfg->action) : NULL;
	if (!d || !d->input)
		return drop(res, SRV6_DROP_UNSUPPORTED);
	/* Nothing can be forwarded yet (degraded start): the kernel drops a
	 * packet whose next hop has no route (its blackhole entry, no ICMP). */
	if (cfg->pending)
		return drop(res, SRV6_DROP_PENDING);
	if (pkt->len < SRV6_IPV6_HLEN || (pkt->data[0] >> 4) != 6)
		return drop(res, SRV6_DROP_MALFORMED);
	/* Bytes past the Payload Length are link-layer trailer (the kernel's
	 * ipv6_rcv() trims them the same way); a jumbogram (Payload Length 0
	 * with hop-by-hop) keeps its length. */
	len = pkt->len;
	plen = (size_t)pkt->data[4] << 8 | pkt->data[5];
	if (plen || pkt->data[IP6_OFF_NH] != 0) {
		/* ipv6_rcv() drops a packet shorter than its Payload Length */
		if (plen + SRV6_IPV6_HLEN > pkt->len)
			return drop(res, SRV6_DROP_MALFORMED);
		pkt->len = plen + SRV6_IPV6_HLEN;
	}
	d->input(cfg, srv6_hmac_mode_for(cfg->hmac, indev), pkt, res);
	if (res->verdict == SRV6_V_ICMP || res->verdict == SRV6_V_DROP)
		pkt->len = len;   /* as received, trailer included */
	return 0;
}
