// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_seg6.c - libFuzzer target over "parse + run behavior" and the
 * headend transforms.
 *
 * Input layout: byte 0 action (mod SRV6_ACT_MAX), byte 1 flavor bits (low
 * 4, kept only where the action allows them) and oif (bits 4-5), byte 2
 * lblen, byte 3 nflen (both mapped to whole bytes, lblen + nflen <= 128, so
 * that NEXT-C-SID configurations are valid), byte 4 attribute bits /
 * headend mode and flow label mode, byte 5 segment count (low 4 bits), nh6
 * (bits 4-5) and nh4 (bits 6-7); encapsulation source from bytes 2 and 3.
 * The rest is the packet.  Configurations srv6_sid_cfg_check() still
 * refuses are skipped, as the daemon never publishes them.  Invariants checked after every call: data stays inside
 * the buffer, len within it, ICMP/DROP leave the packet as received, a
 * forwarded IPv6 packet has a consistent Payload Length.
 * SRH HMAC: every SID has a key set (key 7; ifindex 1 require, 2 ignore,
 * others verify) and runs with input interface byte 3 & 3; End.B6* and the
 * headend sign with key 7 when byte 2 bit 0 / byte 3 bit 2 is set, and what
 * they forward signed must verify under require.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "srv6d/headend.h"
#include "srv6d/hmac.h"
#include "srv6d/seg6.h"

#define HDR 6
#define MAXPKT 4096

/* next hops and sources worth telling apart: unspecified, global, link
 * local, v4-mapped / the SID's own locator, multicast */
static const char *const nh6s[4] = { "::", "fc00::2", "fe80::1", "::ffff:192.0.2.1" };
static const uint8_t nh4s[4][4] = { { 0, 0, 0, 0 }, { 192, 0, 2, 254 }, { 10, 0, 0, 1 },
				    { 255, 255, 255, 255 } };
static const int oifs[4] = { 0, 3, 7, 65535 };
static const char *const srcs[4] = { "::", "fc00:0:1::1", "fe80::1", "ff02::1" };

static void addr6(struct in6_addr *a, const char *s)
{
	if (inet_pton(AF_INET6, s, a) != 1)
		abort();
}

static uint8_t buf[SRV6_PKT_HEADROOM + MAXPKT];

/*
 * @hdr_from: where the packet started; a FORWARD6 packet starting there or
 * in front (same or pushed outer header) must have a consistent Payload
 * Length; a decapsulated one (data moved forward) carries whatever the
 * inner header says.
 */
static void check_pkt(const struct srv6_pkt *pkt, const struct srv6_result *res,
		      const uint8_t *in, size_t in_len, const uint8_t *hdr_from)
{
	if (pkt->data < buf || pkt->data > buf + sizeof(buf) ||
	    pkt->len > (size_t)(buf + sizeof(buf) - pkt->data))
		abort();
	if ((unsigned int)res->verdict > SRV6_V_DROP ||
	    (unsigned int)res->reason >= SRV6_DROP_MAX)
		abort();
	if (res->verdict == SRV6_V_ICMP || res->verdict == SRV6_V_DROP) {
		if (pkt->len != in_len || memcmp(pkt->data, in, in_len))
			abort();
		if (res->verdict == SRV6_V_DROP && res->reason == SRV6_DROP_NONE)
			abort();
		return;
	}
	if (res->reason != SRV6_DROP_NONE)
		abort();
	if (res->verdict == SRV6_V_FORWARD6) {
		size_t plen;

		if (pkt->len < 40 || (pkt->data[0] >> 4) != 6)
			abort();
		if (pkt->data > hdr_from)
			return;
		plen = (size_t)pkt->data[4] << 8 | pkt->data[5];
		/* rewritten headers keep Payload Length consistent, except
		 * for an untouched jumbogram (0) */
		if (plen && plen + 40 != pkt->len)
			abort();
	}
	if (res->verdict == SRV6_V_FORWARD4 &&
	    (pkt->len < 20 || (pkt->data[0] >> 4) != 4))
		abort();
	if (res->verdict == SRV6_V_L2 && pkt->len < 14)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct srv6_hmac_set hset = {
	.nkeys = 1,
	.keys = { { .id = 7, .algo = SRV6_HMAC_ALGO_SHA256, .slen = 6, .secret = "fuzzed" } },
	.nifs = 2,
	.ifs = { { .ifindex = 1, .mode = SRV6_HMAC_REQUIRE }, { .ifindex = 2, .mode = SRV6_HMAC_IGNORE } },
};

/* A forwarded packet that was signed verifies under require: the pushed or
 * inserted SRH follows the IPv6 header (what comes after it may be a
 * truncated fuzz input, so the chain is not parsed). */
static void check_signed(const struct srv6_pkt *pkt, const struct srv6_result *res)
{
	if (res->verdict != SRV6_V_FORWARD6)
		return;
	if (pkt->len < 40 + 8 || pkt->data[6] != 43 ||
	    srv6_srh_validate(pkt->data + 40, pkt->len - 40, NULL) != SRV6_SRH_OK)
		abort();
	if (srv6_hmac_check(&hset, SRV6_HMAC_REQUIRE, pkt->data + 40, pkt->data + 8,
			    NULL) != SRV6_HMAC_PASS)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t in[MAXPKT];
	static bool prepared;
	struct srv6_sid_cfg cfg;
	struct srv6_policy pol;
	struct srv6_result res;
	struct srv6_pkt pkt;
	const struct srv6_action_desc *d;
	size_t len, i;
	uint8_t protos[3] = { 41, 4, 143 };

	if (!prepared) {
		if (srv6_hmac_key_prepare(&hset.keys[0]))
			abort();
		prepared = true;
	}
	if (size < HDR)
		return 0;
	len = size - HDR;
	if (len > MAXPKT)
		len = MAXPKT;
	memcpy(in, data + HDR, len);

	memset(&cfg, 0, sizeof(cfg));
	cfg.action = (enum srv6_action)(data[0] % SRV6_ACT_MAX);
	d = srv6_action_desc_get(cfg.action);
	if (d) {
		/* required attributes, plus optional ones chosen by byte 4 */
		cfg.attrs = d->required_attrs |
			    (d->optional_attrs & ((uint32_t)data[4] << 1));
		if (d->one_of_attrs && !(cfg.attrs & d->one_of_attrs))
			cfg.attrs |= d->one_of_attrs & -d->one_of_attrs;
		/* only flavors the action allows: a random byte would make
		 * most configurations invalid for actions with none */
		cfg.flavors = data[1] & 0x0f & d->flavors_allowed;
		if (cfg.flavors && (d->optional_attrs & SRV6_F_ATTR(SRV6_ATTR_FLAVORS)))
			cfg.attrs |= SRV6_F_ATTR(SRV6_ATTR_FLAVORS);
		if (cfg.flavors & SRV6_F_FLV(SRV6_FLV_NEXT_CSID)) {
			/* whole bytes, 8..120, sum <= 128 (the kernel's checks) */
			cfg.lblen = (uint8_t)(8 * (1 + data[2] % 15));
			cfg.nflen = (uint8_t)(8 * (1 + data[3] % 15));
			if (cfg.lblen + cfg.nflen > 128)
				cfg.nflen = (uint8_t)(128 - cfg.lblen < 8 ? 8 : 128 - cfg.lblen);
			if (cfg.lblen + cfg.nflen > 128)
				cfg.lblen = (uint8_t)(128 - cfg.nflen);
		}
		addr6(&cfg.nh6, nh6s[(data[5] >> 4) & 3]);
		memcpy(&cfg.nh4, nh4s[data[5] >> 6], 4);
		addr6(&cfg.encap_src, srcs[(data[2] ^ data[3]) & 3]);
		cfg.nsegs = 1 + data[5] % SRV6_MAX_SEGS;
		for (i = 0; i < cfg.nsegs; i++) {
			cfg.segs[i].s6_addr[0] = 0xfc;
			cfg.segs[i].s6_addr[15] = (uint8_t)i;
		}
		cfg.table = 100;
		cfg.vrftable = 10;
		cfg.oif = oifs[(data[1] >> 4) & 3];
		cfg.flowlabel_mode = (int)(data[4] >> 6) - 1;
		if (cfg.flowlabel_mode > 1)
			cfg.flowlabel_mode = 1;
		cfg.mark = 7;
		cfg.hmac = &hset;
		if ((data[2] & 1) && (d->required_attrs & SRV6_F_ATTR(SRV6_ATTR_SRH))) {
			cfg.hmac_keyid = 7;
			cfg.hmac_key = &hset.keys[0];
		}
		if (srv6_sid_cfg_check(&cfg, NULL) == 0) {
			memcpy(buf + SRV6_PKT_HEADROOM, in, len);
			if (srv6_pkt_init(&pkt, buf, sizeof(buf),
					  SRV6_PKT_HEADROOM, len))
				abort();
			srv6_sid_process_in(&cfg, data[3] & 3, &pkt, &res);
			check_pkt(&pkt, &res, in, len,
				  buf + SRV6_PKT_HEADROOM);
			if (cfg.hmac_key && cfg.action != SRV6_ACT_END_B6_ENCAP_RED)
				check_signed(&pkt, &res);

			/* the same with almost no headroom */
			memcpy(buf + 16, in, len);
			if (srv6_pkt_init(&pkt, buf, sizeof(buf), 16, len))
				abort();
			srv6_sid_process(&cfg, &pkt, &res);
			check_pkt(&pkt, &res, in, len, buf + 16);
		}
	}

	/* headend: every input protocol against the chosen mode */
	memset(&pol, 0, sizeof(pol));
	pol.mode = (enum srv6_encap_mode)(data[4] % SRV6_MODE_MAX);
	pol.nsegs = 1 + data[5] % SRV6_MAX_SEGS;
	for (i = 0; i < pol.nsegs; i++)
		pol.segs[i].s6_addr[15] = (uint8_t)(i + 1);
	addr6(&pol.encap_src, srcs[(data[2] ^ data[3]) & 3]);
	pol.flowlabel_mode = (int)(data[1] >> 6) - 1;
	if (pol.flowlabel_mode > 1)
		pol.flowlabel_mode = 1;
	if (data[3] & 4) {
		pol.hmac_keyid = 7;
		pol.hmac_key = &hset.keys[0];
	}
	for (i = 0; i < 3; i++) {
		memcpy(buf + SRV6_PKT_HEADROOM, in, len);
		if (srv6_pkt_init(&pkt, buf, sizeof(buf), SRV6_PKT_HEADROOM,
				  len))
			abort();
		srv6_headend_apply(&pol, protos[i], &pkt, &res);
		check_pkt(&pkt, &res, in, len, buf + SRV6_PKT_HEADROOM);
		if (pol.hmac_key)
			check_signed(&pkt, &res);
		if (res.verdict == SRV6_V_FORWARD6 && pkt.len < len + 40 &&
		    pol.mode != SRV6_MODE_INLINE)
			abort();
	}
	return 0;
}
