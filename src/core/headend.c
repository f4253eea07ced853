// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * headend.c - SR policy headend transforms (RFC 8986 §5) with the header
 * rules of the kernel's net/ipv6/seg6_iptunnel.c: seg6_do_srh_encap(),
 * seg6_do_srh_encap_red() and seg6_do_srh_inline().  Also the encapsulation
 * and insertion primitives End.B6, End.B6.Encaps and End.B6.Encaps.Red use.
 * Pure code; the packet is rewritten in place, growing into its headroom.
 */
#include <errno.h>
#include <string.h>

#include "srv6d/headend.h"
#include "srv6d/hmac.h"
#include "srv6d/srh.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define NH_TCP      6
#define NH_UDP      17
#define NH_IPIP     4
#define NH_IPV6     41
#define NH_ROUTING  43
#define NH_SCTP     132
#define NH_ETHERNET 143

#define ETH_HLEN        14
#define ETH_P_IP        0x0800
#define ETH_P_IPV6      0x86dd
#define IP4_HLEN_MIN    20
/* ip6_dst_hoplimit() of a route without RTAX_HOPLIMIT: the default
 * net.ipv6.conf.*.hop_limit. */
#define DEFAULT_HOPLIMIT 64
#define SRH_MAX_BYTES  (SRV6_SRH_FIXED + 16 * (SRV6_MAX_SEGS + 1) + SRV6_HMAC_TLV_LEN)
#define IP6_PLEN_MAX   65535u

static const char *const mode_names[SRV6_MODE_MAX] = {
	[SRV6_MODE_INLINE] = "inline",
	[SRV6_MODE_ENCAP] = "encap",
	[SRV6_MODE_L2ENCAP] = "l2encap",
	[SRV6_MODE_ENCAP_RED] = "encap.red",
	[SRV6_MODE_L2ENCAP_RED] = "l2encap.red",
};
_Static_assert(ARRAY_SIZE(mode_names) == SRV6_MODE_MAX, "mode names");

int srv6_mode_from_name(const char *name)
{
	unsigned int i;

	if (!name)
		return -1;
	for (i = 0; i < SRV6_MODE_MAX; i++)
		if (!strcmp(mode_names[i], name))
			return (int)i;
	return -1;
}

const char *srv6_mode_name(enum srv6_encap_mode m)
{
	if ((unsigned int)m >= SRV6_MODE_MAX)
		return "unknown";
	return mode_names[m];
}

int srv6_policy_check(const struct srv6_policy *pol, const char **why)
{
	const char *msg = NULL;

	if (!pol)
		msg = "no policy";
	else if ((unsigned int)pol->mode >= SRV6_MODE_MAX)
		msg = "unknown encap mode";
	else if (pol->nsegs == 0)
		msg = "empty segment list";
	else if (pol->nsegs > SRV6_MAX_SEGS)
		msg = "too many segments";
	/* Any flowlabel_mode is valid: the kernel's seg6_make_flowlabel()
	 * hashes for > 0, copies for 0, gives 0 for < 0. */
	if (why)
		*why = msg;
	return msg ? -EINVAL : 0;
}

/* ---- flow label ------------------------------------------------------- */

static uint32_t fnv1a(uint32_t h, const uint8_t *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

static bool has_ports(uint8_t proto)
{
	return proto == NH_TCP || proto == NH_UDP || proto == NH_SCTP;
}

uint32_t srv6_flowlabel_hash(const uint8_t *p, size_t len, uint8_t proto)
{
	uint32_t h = 2166136261u;
	size_t ihl;

	switch (proto) {
	case NH_ETHERNET:
		if (len >= ETH_HLEN) {
			unsigned int et = (unsigned int)p[12] << 8 | p[13];

			if (et == ETH_P_IPV6)
				return srv6_flowlabel_hash(p + ETH_HLEN,
							   len - ETH_HLEN,
							   NH_IPV6);
			if (et == ETH_P_IP)
				return srv6_flowlabel_hash(p + ETH_HLEN,
							   len - ETH_HLEN,
							   NH_IPIP);
			h = fnv1a(h, p, ETH_HLEN);   /* MACs + ethertype */
		}
		break;
	case NH_IPV6:
		if (len < SRV6_IPV6_HLEN)
			break;
		h = fnv1a(h, p + 8, 32);
		h = fnv1a(h, p + 6, 1);
		if (has_ports(p[6]) && len >= SRV6_IPV6_HLEN + 4)
			h = fnv1a(h, p + SRV6_IPV6_HLEN, 4);
		break;
	case NH_IPIP:
		if (len < IP4_HLEN_MIN)
			break;
		ihl = (size_t)(p[0] & 0x0f) * 4;
		h = fnv1a(h, p + 12, 8);
		h = fnv1a(h, p + 9, 1);
		/* ports only in an unfragmented packet or the first fragment */
		if (has_ports(p[9]) && ihl >= IP4_HLEN_MIN &&
		    !(((p[6] & 0x1f) << 8) | p[7]) && len >= ihl + 4)
			h = fnv1a(h, p + ihl, 4);
		break;
	default:
		break;
	}
	return ((h << 16) | (h >> 16)) & 0xfffff;
}

/* ---- encapsulation ---------------------------------------------------- */

/*
 * seg6_do_srh_encap()/_red(): the inner IPv6 header the kernel inherits
 * traffic class, flow label and hop limit from is ipv6_hdr(skb) when
 * skb->protocol is IPv6 -- for L2 encapsulation that is an IPv6 packet
 * carried in the Ethernet frame (the frame's EtherType).
 */
static const uint8_t *inner_ipv6(const struct srv6_pkt *pkt, uint8_t proto)
{
	if (proto == NH_IPV6)
		return pkt->data;
	if (proto == NH_ETHERNET && pkt->len >= ETH_HLEN + SRV6_IPV6_HLEN &&
	    ((pkt->data[12] << 8) | pkt->data[13]) == ETH_P_IPV6)
		return pkt->data + ETH_HLEN;
	return NULL;
}

static bool inner_len_ok(const struct srv6_pkt *pkt, uint8_t proto)
{
	switch (proto) {
	case NH_IPV6:
		return pkt->len >= SRV6_IPV6_HLEN;
	case NH_IPIP:
		return pkt->len >= IP4_HLEN_MIN;
	case NH_ETHERNET:
		return pkt->len >= ETH_HLEN;
	}
	return false;
}

int srv6_encap_push(struct srv6_pkt *pkt, const struct in6_addr *segs,
		    unsigned int nsegs, bool reduced, uint8_t proto,
		    const struct in6_addr *src, int flowlabel_mode)
{
	return srv6_encap_push_hmac(pkt, segs, nsegs, reduced, proto, src,
				    flowlabel_mode, NULL);
}

int srv6_encap_push_hmac(struct srv6_pkt *pkt, const struct in6_addr *segs,
			 unsigned int nsegs, bool reduced, uint8_t proto,
			 const struct in6_addr *src, int flowlabel_mode,
			 const struct srv6_hmac_key *hmac)
{
	uint8_t srh[SRH_MAX_BYTES], *hdr;
	const uint8_t *in6;
	uint32_t tc = 0, fl = 0;
	uint8_t hlim = DEFAULT_HOPLIMIT;
	size_t tot;
	int srhlen, err;

	if (!inner_len_ok(pkt, proto))
		return -EINVAL;
	/* seg6_do_srh_encap_red() keeps the whole SRH of a single SID that
	 * carries an HMAC (SL = LE = 0) */
	if (hmac && reduced && nsegs == 1)
		reduced = false;
	srhlen = srv6_srh_build(srh, sizeof(srh), segs, nsegs, reduced, false,
				proto);
	if (srhlen < 0)
		return srhlen == -ENOSPC ? -ENOSPC : -EINVAL;
	if (hmac) {
		srhlen = srv6_hmac_tlv_append(srh, (size_t)srhlen, sizeof(srh), hmac->id);
		if (srhlen < 0)
			return -EINVAL;
	}
	tot = SRV6_IPV6_HLEN + (size_t)srhlen;
	if (srv6_pkt_headroom(pkt) < tot)
		return -ENOSPC;
	if (pkt->len + (size_t)srhlen > IP6_PLEN_MAX)
		return -EMSGSIZE;

	/* seg6_make_flowlabel(): > 0 hash, 0 copy (IPv6 inner), < 0 zero */
	in6 = inner_ipv6(pkt, proto);
	if (flowlabel_mode > 0)
		fl = srv6_flowlabel_hash(pkt->data, pkt->len, proto);
	else if (flowlabel_mode == 0 && in6)
		fl = ((uint32_t)(in6[1] & 0x0f) << 16) | in6[2] << 8 | in6[3];
	if (in6) {
		tc = (uint32_t)((in6[0] & 0x0f) << 4 | in6[1] >> 4);
		hlim = in6[7];
	}

	pkt->data -= tot;
	pkt->len += tot;
	hdr = pkt->data;
	/* ip6_flow_hdr(hdr, tclass, flowlabel) */
	hdr[0] = (uint8_t)(0x60 | tc >> 4);
	hdr[1] = (uint8_t)((tc & 0x0f) << 4 | fl >> 16);
	hdr[2] = (uint8_t)(fl >> 8);
	hdr[3] = (uint8_t)fl;
	hdr[4] = (uint8_t)((pkt->len - SRV6_IPV6_HLEN) >> 8);
	hdr[5] = (uint8_t)(pkt->len - SRV6_IPV6_HLEN);
	hdr[6] = srhlen ? NH_ROUTING : proto;
	hdr[7] = hlim;
	memcpy(hdr + 8, src, 16);
	/* the first segment always travels in the outer DA */
	memcpy(hdr + 24, &segs[0], 16);
	memcpy(hdr + SRV6_IPV6_HLEN, srh, (size_t)srhlen);
	/* seg6_push_hmac() with the outer source, as the last step */
	if (hmac && (err = srv6_hmac_sign(hmac, hdr + SRV6_IPV6_HLEN, hdr + 8)) != 0) {
		pkt->data += tot;          /* the packet itself was not touched */
		pkt->len -= tot;
		return err == -EMSGSIZE ? -EMSGSIZE : -EINVAL;
	}
	return 0;
}

int srv6_srh_insert(struct srv6_pkt *pkt, const struct in6_addr *segs,
		    unsigned int nsegs)
{
	return srv6_srh_insert_hmac(pkt, segs, nsegs, NULL);
}

int srv6_srh_insert_hmac(struct srv6_pkt *pkt, const struct in6_addr *segs,
			 unsigned int nsegs, const struct srv6_hmac_key *hmac)
{
	uint8_t *hdr, *srh, plen[2];
	int srhlen, seglen, err;

	if (pkt->len < SRV6_IPV6_HLEN)
		return -EINVAL;
	if (!segs || nsegs == 0 || nsegs > SRV6_MAX_SEGS)
		return -EINVAL;
	if (hmac && nsegs + 1 > SRV6_HMAC_MAX_ENTRIES)
		return -EMSGSIZE;          /* seg6_hmac_compute()'s limit */
	memcpy(plen, pkt->data + 4, 2);
	seglen = SRV6_SRH_FIXED + 16 * ((int)nsegs + 1);
	srhlen = seglen + (hmac ? SRV6_HMAC_TLV_LEN : 0);
	if (srv6_pkt_headroom(pkt) < (size_t)srhlen)
		return -ENOSPC;
	if (pkt->len - SRV6_IPV6_HLEN + (size_t)srhlen > IP6_PLEN_MAX)
		return -EMSGSIZE;

	memmove(pkt->data - srhlen, pkt->data, SRV6_IPV6_HLEN);
	pkt->data -= srhlen;
	pkt->len += (size_t)srhlen;
	hdr = pkt->data;
	srh = hdr + SRV6_IPV6_HLEN;
	if (srv6_srh_build(srh, (size_t)srhlen, segs, nsegs, false, true,
			   hdr[6]) != seglen ||
	    (hmac && srv6_hmac_tlv_append(srh, (size_t)seglen, (size_t)srhlen,
					  hmac->id) != srhlen)) {
		/* cannot happen with the checks above; restore anyway */
		pkt->data += srhlen;
		pkt->len -= (size_t)srhlen;
		memmove(pkt->data, hdr, SRV6_IPV6_HLEN);
		return -EINVAL;
	}
	hdr[6] = NH_ROUTING;
	memcpy(srh + SRV6_SRH_FIXED, hdr + 24, 16);      /* segments[0] = DA */
	memcpy(hdr + 24, &segs[0], 16);                  /* DA = first SID */
	hdr[4] = (uint8_t)((pkt->len - SRV6_IPV6_HLEN) >> 8);
	hdr[5] = (uint8_t)(pkt->len - SRV6_IPV6_HLEN);
	/* seg6_do_srh_inline(): signed last, with the packet's own source */
	if (hmac && (err = srv6_hmac_sign(hmac, srh, hdr + 8)) != 0) {
		/* put the packet back as it came */
		memcpy(hdr + 24, srh + SRV6_SRH_FIXED, 16);
		hdr[6] = srh[0];
		memcpy(hdr + 4, plen, 2);
		pkt->data += srhlen;
		pkt->len -= (size_t)srhlen;
		memmove(pkt->data, hdr, SRV6_IPV6_HLEN);
		return err == -EMSGSIZE ? -EMSGSIZE : -EINVAL;
	}
	return 0;
}

/* ---- policy application ----------------------------------------------- */

static bool mode_is_l2(enum srv6_encap_mode m)
{
	return m == SRV6_MODE_L2ENCAP || m == SRV6_MODE_L2ENCAP_RED;
}

int srv6_headend_apply(const struct srv6_policy *pol, uint8_t inner_proto,
		       struct srv6_pkt *pkt, struct srv6_result *res)
{
	int err;

	memset(res, 0, sizeof(*res));
	res->verdict = SRV6_V_DROP;
	if (srv6_policy_check(pol, NULL)) {
		res->reason = SRV6_DROP_UNSUPPORTED;
		return 0;
	}
	if (pol->pending) {   /* degraded start: see srv6_sid_process() */
		res->reason = SRV6_DROP_PENDING;
		return 0;
	}
	/* seg6_do_srh(): inline only for IPv6, encap for IPv6 and IPv4, the
	 * L2 modes for Ethernet frames. */
	if (mode_is_l2(pol->mode) ? inner_proto != NH_ETHERNET :
	    pol->mode == SRV6_MODE_INLINE ? inner_proto != NH_IPV6 :
	    inner_proto != NH_IPV6 && inner_proto != NH_IPIP) {
		res->reason = SRV6_DROP_BAD_INNER;
		return 0;
	}
	if ((inner_proto == NH_IPV6 &&
	     (pkt->len < SRV6_IPV6_HLEN || (pkt->data[0] >> 4) != 6)) ||
	    (inner_proto == NH_IPIP &&
	     (pkt->len < IP4_HLEN_MIN || (pkt->data[0] >> 4) != 4)) ||
	    (inner_proto == NH_ETHERNET && pkt->len < ETH_HLEN)) {
		res->reason = SRV6_DROP_MALFORMED;
		return 0;
	}

	if (pol->mode == SRV6_MODE_INLINE)
		err = srv6_srh_insert_hmac(pkt, pol->segs, pol->nsegs, pol->hmac_key);
	else
		err = srv6_encap_push_hmac(pkt, pol->segs, pol->nsegs,
					   pol->mode == SRV6_MODE_ENCAP_RED ||
					   pol->mode == SRV6_MODE_L2ENCAP_RED,
					   inner_proto, &pol->encap_src,
					   pol->flowlabel_mode, pol->hmac_key);
	if (err) {
		res->reason = err == -EINVAL ? SRV6_DROP_MALFORMED :
					       SRV6_DROP_NO_ROOM;
		return 0;
	}
	res->verdict = SRV6_V_FORWARD6;
	res->nh.mark = pol->mark;
	return 0;
}
