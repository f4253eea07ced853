// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sid.c - the words of a "sid" line (srv6d.conf, srv6ctl sid add): parse,
 * print, compare.
 *
 * SID attributes are data: one keyword table (keyword, attribute bit, parse,
 * put, cmp), as the kernel's seg6_action_params.  Which attributes a
 * behavior requires or accepts comes only from the behavior descriptors
 * (srv6_action_desc_get()); nothing here switches on the action.  Pure.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_int.h"
#include "srv6d/hmac_conf.h"   /* hmac hook */

#define SRV6_SID_PLEN_MIN 16u   /* shorter SID prefixes are refused */

/* ---------------------------------------------------------------------- */
/* SID attributes: one row per keyword                                     */

/*
 * parse: argv[0] is the keyword, argc counts it; returns the number of words
 * consumed (>= 1) or -EINVAL with a message.  put: appends " kw value".
 * cmp: 0 when equal.  Rows beyond SRV6_ATTR_MAX set no attribute bit: they
 * modify another attribute (lblen/nflen belong to flavors, as in the
 * kernel's nested SEG6_LOCAL_FLAVORS), which prints and compares them.
 */
enum {
	KW_LBLEN = SRV6_ATTR_MAX,
	KW_NFLEN,
	KW_MAX,
};
_Static_assert(KW_MAX <= 32, "keyword seen-mask is 32 bits");

struct sid_kw {
	const char *kw;
	int (*parse)(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e);
	void (*put)(struct srv6_sbuf *s, const struct srv6_sid_cfg *cfg);
	int (*cmp)(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b);
};


/* srh segs LIST [hmac N] */
static int parse_srh(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	struct qtok qb;

	if (conf_need_arg(argc, argv, e))
		return -EINVAL;
	if (strcmp(argv[1], "segs")) {
		conf_seterr(e, "expected \"segs\" after \"srh\", got %s", conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	if (conf_need_arg(argc - 1, argv + 1, e))
		return -EINVAL;
	if (conf_parse_seglist(argv[2], cfg->segs, &cfg->nsegs, e))
		return -EINVAL;
	/* hmac hook: "srh segs LIST hmac KEYID" (iproute2's order) */
	if (argc > 3 && !strcmp(argv[3], "hmac")) {
		if (conf_need_arg(argc - 3, argv + 3, e))
			return -EINVAL;
		if (srv6_hmac_parse_keyid(argv[4], &cfg->hmac_keyid, e->buf, e->len))
			return -EINVAL;
		return 5;
	}
	return 3;
}

static void put_srh(struct srv6_sbuf *s, const struct srv6_sid_cfg *cfg)
{
	srv6_sb_printf(s, " srh segs ");
	conf_sb_segs(s, cfg->segs, cfg->nsegs);
	if (cfg->hmac_keyid)                      /* hmac hook */
		srv6_sb_printf(s, " hmac %u", cfg->hmac_keyid);
}

static int cmp_srh(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	return a->nsegs != b->nsegs || a->hmac_keyid != b->hmac_keyid ||
	       memcmp(a->segs, b->segs, a->nsegs * sizeof(a->segs[0]));
}

static int parse_table_kw(const char *kw, uint32_t *out, int argc, char **argv,
			  struct errbuf *e)
{
	if (conf_need_arg(argc, argv, e) || conf_parse_table_id(kw, argv[1], out, e))
		return -EINVAL;
	return 2;
}

static int parse_table(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	return parse_table_kw("table", &cfg->table, argc, argv, e);
}

static void put_table(struct srv6_sbuf *s, const struct srv6_sid_cfg *cfg)
{
	srv6_sb_printf(s, " table %u", cfg->table);
}

static int cmp_table(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	return a->table != b->table;
}

static int parse_vrftable(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	return parse_table_kw("vrftable", &cfg->vrftable, argc, argv, e);
}

static void put_vrftable(struct srv6_sbuf *s, const struct srv6_sid_cfg *cfg)
{
	srv6_sb_printf(s, " vrftable %u", cfg->vrftable);
}

static int cmp_vrftable(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	return a->vrftable != b->vrftable;
}

static int parse_nh4(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	if (conf_need_arg(argc, argv, e) || conf_parse_addr4("nh4", argv[1], &cfg->nh4, e))
		return -EINVAL;
	return 2;
}

static void put_nh4(struct srv6_sbuf *s, const struct srv6_sid_cfg *cfg)
{
	char buf[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &cfg->nh4, buf, sizeof(buf));
	srv6_sb_printf(s, " nh4 %s", buf);
}

static int cmp_nh4(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	return a->nh4.s_addr != b->nh4.s_addr;
}

static int parse_nh6(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	if (conf_need_arg(argc, argv, e) || conf_parse_addr6("nh6", argv[1], &cfg->nh6, e))
		return -EINVAL;
	return 2;
}

static void put_nh6(struct srv6_sbuf *s, const struct srv6_sid_cfg *cfg)
{
	srv6_sb_printf(s, " nh6 ");
	conf_sb_addr6(s, &cfg->nh6);
}

static int cmp_nh6(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	return memcmp(&a->nh6, &b->nh6, sizeof(a->nh6));
}


static int parse_oif(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	struct qtok qb;

	if (conf_need_arg(argc, argv, e))
		return -EINVAL;
	if (!conf_ifname_valid(argv[1])) {
		conf_seterr(e, "bad interface name %s for oif", conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	memset(cfg->oif_name, 0, sizeof(cfg->oif_name));
	memcpy(cfg->oif_name, argv[1], strlen(argv[1]));
	return 2;
}

static void put_oif(struct srv6_sbuf *s, const struct srv6_sid_cfg *cfg)
{
	srv6_sb_printf(s, " oif %.*s", (int)sizeof(cfg->oif_name), cfg->oif_name);
}

static int cmp_oif(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	return strncmp(a->oif_name, b->oif_name, sizeof(a->oif_name));
}

static int parse_flavors(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	char buf[32];
	struct qtok qb;
	const char *p;

	if (conf_need_arg(argc, argv, e))
		return -EINVAL;
	for (p = argv[1];;) {
		const char *comma = strchr(p, ',');
		size_t l = comma ? (size_t)(comma - p) : strlen(p);
		int f;

		if (l >= sizeof(buf))
			l = sizeof(buf) - 1;
		memcpy(buf, p, l);
		buf[l] = '\0';
		for (char *c = buf; *c; c++)   /* as iproute2: PSP, Next-CSID... */
			*c = (char)tolower((unsigned char)*c);
		f = srv6_flavor_from_name(buf);
		if (f < 0 || f >= SRV6_FLV_MAX) {
			conf_seterr(e, "unknown flavor %s", conf_q(&qb, buf));
			return -EINVAL;
		}
		if (cfg->flavors & SRV6_F_FLV(f)) {
			conf_seterr(e, "duplicate flavor %s", conf_q(&qb, buf));
			return -EINVAL;
		}
		cfg->flavors |= SRV6_F_FLV(f);
		if (!comma)
			break;
		p = comma + 1;
	}
	return 2;
}

static void put_flavors(struct srv6_sbuf *s, const struct srv6_sid_cfg *cfg)
{
	const char *sep = " flavors ";
	int f;

	for (f = 0; f < SRV6_FLV_MAX; f++) {
		if (!(cfg->flavors & SRV6_F_FLV(f)))
			continue;
		srv6_sb_printf(s, "%s%s", sep, srv6_flavor_name((enum srv6_flavor)f));
		sep = ",";
	}
	if (cfg->flavors & SRV6_F_FLV(SRV6_FLV_NEXT_CSID))
		srv6_sb_printf(s, " lblen %u nflen %u", cfg->lblen, cfg->nflen);
}

static int cmp_flavors(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	if (a->flavors != b->flavors)
		return 1;
	if (a->flavors & SRV6_F_FLV(SRV6_FLV_NEXT_CSID))
		return a->lblen != b->lblen || a->nflen != b->nflen;
	return 0;
}

/* lblen/nflen: byte-aligned, 8..120 (seg6_chk_next_csid_cfg()). */
static int parse_csid_len(const char *kw, uint8_t *out, int argc, char **argv,
			  struct errbuf *e)
{
	struct qtok qb;
	uint64_t v;
	int rc;

	if (conf_need_arg(argc, argv, e))
		return -EINVAL;
	rc = conf_parse_u64(argv[1], &v);
	if (rc == -EINVAL) {
		conf_seterr(e, "bad number %s for %s", conf_q(&qb, argv[1]), kw);
		return -EINVAL;
	}
	if (rc || v < 8 || v > 120 || v % 8) {
		conf_seterr(e, "%s %s out of range (8..120, multiple of 8)", kw, conf_q(&qb, argv[1]));
		return -EINVAL;
	}
	*out = (uint8_t)v;
	return 2;
}

static int parse_lblen(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	return parse_csid_len("lblen", &cfg->lblen, argc, argv, e);
}

static int parse_nflen(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	return parse_csid_len("nflen", &cfg->nflen, argc, argv, e);
}

/* Indexed by enum srv6_attr, then the modifier keywords; printed in this order. */
static const struct sid_kw sid_kws[KW_MAX] = {
	[SRV6_ATTR_SRH]      = { "srh",      parse_srh,      put_srh,      cmp_srh },
	[SRV6_ATTR_TABLE]    = { "table",    parse_table,    put_table,    cmp_table },
	[SRV6_ATTR_VRFTABLE] = { "vrftable", parse_vrftable, put_vrftable, cmp_vrftable },
	[SRV6_ATTR_NH4]      = { "nh4",      parse_nh4,      put_nh4,      cmp_nh4 },
	[SRV6_ATTR_NH6]      = { "nh6",      parse_nh6,      put_nh6,      cmp_nh6 },
	[SRV6_ATTR_OIF]      = { "oif",      parse_oif,      put_oif,      cmp_oif },
	[SRV6_ATTR_FLAVORS]  = { "flavors",  parse_flavors,  put_flavors,  cmp_flavors },
	[KW_LBLEN]           = { "lblen",    parse_lblen,    NULL,         NULL },
	[KW_NFLEN]           = { "nflen",    parse_nflen,    NULL,         NULL },
};
_Static_assert(ARRAY_SIZE(sid_kws) == KW_MAX, "one row per keyword");

static int sid_kw_find(const char *w)
{
	int i;

	for (i = 0; i < KW_MAX; i++)
		if (sid_kws[i].kw && !strcmp(sid_kws[i].kw, w))
			return i;
	return -1;
}

/* Lowest set bit of @mask, as an attribute index. */
static int first_bit(uint32_t mask)
{
	return __builtin_ctz(mask);
}

/* Keyword of attribute @a for messages (the engine's name if no row). */
static const char *attr_kw(int a)
{
	if (a < SRV6_ATTR_MAX && sid_kws[a].kw)
		return sid_kws[a].kw;
	return srv6_attr_name((enum srv6_attr)a);
}

/* Checks after the whole line is read, driven by the descriptor masks. */
static int sid_check(struct srv6_sid_cfg *cfg, const struct srv6_action_desc *d,
		     uint32_t seen, struct errbuf *e)
{
	uint32_t missing = d->required_attrs & ~cfg->attrs;
	uint32_t extra = cfg->attrs & ~(d->required_attrs | d->optional_attrs);
	uint32_t badflv = cfg->flavors & ~d->flavors_allowed;
	bool csid = cfg->flavors & SRV6_F_FLV(SRV6_FLV_NEXT_CSID);
	const char *why = NULL;
	int k;

	if (missing) {
		conf_seterr(e, "%s requires %s", d->name, attr_kw(first_bit(missing)));
		return -EINVAL;
	}
	if (extra == SRV6_F_ATTR(SRV6_ATTR_TABLE)) {
		/* a pasted route's own "table N", not End.T's attribute */
		conf_seterr(e, "%s does not take table (a route-level \"table N\" is not "
			    "supported: srv6d's SIDs are not per routing table)", d->name);
		return -EINVAL;
	}
	if (extra) {
		conf_seterr(e, "%s does not take %s", d->name, attr_kw(first_bit(extra)));
		return -EINVAL;
	}
	if (d->one_of_attrs) {
		uint32_t got = cfg->attrs & d->one_of_attrs;

		if (!got || (got & (got - 1))) {
			char names[96];
			struct srv6_sbuf sb = SRV6_SB_FIXED(names, sizeof(names));
			uint32_t m;

			for (m = d->one_of_attrs; m; m &= m - 1)
				srv6_sb_printf(&sb, "%s%s", sb.len ? " or " : "",
					  attr_kw(first_bit(m)));
			if (!got)
				conf_seterr(e, "%s requires %s", d->name, names);
			else
				conf_seterr(e, "%s takes %s, not both", d->name, names);
			return -EINVAL;
		}
	}
	if (badflv) {
		conf_seterr(e, "%s does not take flavor %s", d->name,
		       srv6_flavor_name((enum srv6_flavor)first_bit(badflv)));
		return -EINVAL;
	}
	for (k = KW_LBLEN; k <= KW_NFLEN; k++) {
		if ((seen & (1u << k)) && !csid) {
			conf_seterr(e, "%s requires flavors next-csid", sid_kws[k].kw);
			return -EINVAL;
		}
	}
	if (csid) {
		if (!(seen & (1u << KW_LBLEN)))
			cfg->lblen = SRV6_CSID_LBLEN_DEFAULT;
		if (!(seen & (1u << KW_NFLEN)))
			cfg->nflen = SRV6_CSID_NFLEN_DEFAULT;
		if (cfg->lblen + cfg->nflen > 128) {
			conf_seterr(e, "lblen %u + nflen %u exceed 128 bits", cfg->lblen,
			       cfg->nflen);
			return -EINVAL;
		}
	}
	/* Backstop: the engine's own validation must agree. */
	if (srv6_sid_cfg_check(cfg, &why)) {
		conf_seterr(e, "invalid %s SID: %s", d->name, why ? why : "rejected");
		return -EINVAL;
	}
	return 0;
}

int srv6_sid_parse_words(int argc, char **argv, struct in6_addr *prefix, uint8_t *plen,
			 struct srv6_sid_cfg *cfg, char *err, size_t errlen)
{
	struct errbuf e = { err, errlen };
	const struct srv6_action_desc *d = NULL;
	bool seen_encap = false, seen_dev = false, seen_count = false;
	char warn[SRV6_CONF_ERRLEN] = "";
	struct errbuf w_e = { warn, sizeof(warn) };
	unsigned int seen_rl = 0;
	uint32_t seen = 0;
	struct qtok qb;
	int i, rc;

	memset(cfg, 0, sizeof(*cfg));
	if (err && errlen)
		err[0] = '\0';
	if (argc < 1) {
		conf_seterr(&e, "missing SID prefix after \"sid\"");
		return -EINVAL;
	}
	rc = conf_parse_prefix(AF_INET6, argv[0], prefix, plen);
	if (rc != PFX_OK)
		return conf_prefix_err(rc, "SID", argv[0], &e);
	if (conf_prefix_multicast(AF_INET6, prefix, "SID", argv[0], &e))
		return -EINVAL;
	/* issue 8.2: a SID prefix is srv6d's own address space, steered
	 * before routing: never the host's link-local, loopback or
	 * unspecified space, never a whole /0../15 of the Internet */
	if (*plen < SRV6_SID_PLEN_MIN) {
		conf_seterr(&e, "SID prefix %s is over-broad (shorter than /%u)", conf_q(&qb, argv[0]),
			    SRV6_SID_PLEN_MIN);
		return -EINVAL;
	}
	if (*plen < 128 && (IN6_IS_ADDR_LINKLOCAL(prefix) || IN6_IS_ADDR_UNSPECIFIED(prefix))) {
		conf_seterr(&e, "SID prefix %s holds %s addresses", conf_q(&qb, argv[0]),
			    IN6_IS_ADDR_LINKLOCAL(prefix) ? "link-local" : "the loopback and unspecified");
		return -EINVAL;
	}
	if (*plen == 128 && conf_not_unicast6(prefix, false)) {
		conf_seterr(&e, "SID %s is %s", conf_q(&qb, argv[0]), conf_not_unicast6(prefix, false));
		return -EINVAL;
	}

	for (i = 1; i < argc;) {
		const char *w = argv[i];
		int k;

		if (!strcmp(w, "action")) {
			enum srv6_action act;

			if (d) {
				conf_seterr(&e, "duplicate \"action\"");
				return -EINVAL;
			}
			if (conf_need_arg(argc - i, argv + i, &e))
				return -EINVAL;
			act = srv6_action_from_name(argv[i + 1]);
			d = act == SRV6_ACT_UNSPEC ? NULL : srv6_action_desc_get(act);
			if (!d) {
				conf_seterr(&e, "unknown action %s", conf_q(&qb, argv[i + 1]));
				return -EINVAL;
			}
			cfg->action = act;
			i += 2;
		} else if (!strcmp(w, "encap")) {
			/* pasted "ip -6 route add SID encap seg6local action ..." */
			if (seen_encap) {
				conf_seterr(&e, "duplicate \"encap\"");
				return -EINVAL;
			}
			if (conf_need_arg(argc - i, argv + i, &e))
				return -EINVAL;
			if (strcmp(argv[i + 1], "seg6local")) {
				conf_seterr(&e, "expected \"seg6local\" after \"encap\", got %s",
				       conf_q(&qb, argv[i + 1]));
				return -EINVAL;
			}
			seen_encap = true;
			i += 2;
		} else if (!strcmp(w, "dev")) {
			/* the kernel's meaning: the device whose addresses the
			 * outer source of an encapsulation comes from */
			if (seen_dev) {
				conf_seterr(&e, "duplicate \"dev\"");
				return -EINVAL;
			}
			if (conf_need_arg(argc - i, argv + i, &e))
				return -EINVAL;
			if (!conf_ifname_valid(argv[i + 1])) {
				conf_seterr(&e, "bad interface name %s for dev", conf_q(&qb, argv[i + 1]));
				return -EINVAL;
			}
			snprintf(cfg->dev_name, sizeof(cfg->dev_name), "%s", argv[i + 1]);
			seen_dev = true;
			i += 2;
		} else if (!strcmp(w, "count")) {
			/* accepted and ignored: counters are always on */
			if (seen_count) {
				conf_seterr(&e, "duplicate \"count\"");
				return -EINVAL;
			}
			seen_count = true;
			i++;
		} else if (!strcmp(w, "hmac")) {
			conf_seterr(&e, "\"hmac\" goes after \"srh segs LIST\"");
			return -EINVAL;
		} else if ((k = sid_kw_find(w)) >= 0) {
			if (seen & (1u << k)) {
				conf_seterr(&e, "duplicate %s%s", conf_q(&qb, w),
					    k == SRV6_ATTR_TABLE ? " (a route-level \"table N\" is "
					    "not supported: srv6d's SIDs are not per routing table)" : "");
				return -EINVAL;
			}
			seen |= 1u << k;
			rc = sid_kws[k].parse(cfg, argc - i, argv + i, &e);
			if (rc < 0)
				return -EINVAL;
			if (k < SRV6_ATTR_MAX)
				cfg->attrs |= SRV6_F_ATTR(k);
			i += rc;
		} else if ((rc = conf_route_level_word(argc - i, argv + i, &seen_rl, &e, &w_e))) {
			if (rc < 0)
				return -EINVAL;
			i += rc;
		} else {
			conf_seterr(&e, "unknown keyword %s", conf_q(&qb, w));
			return -EINVAL;
		}
	}
	if (!d) {
		conf_seterr(&e, "missing \"action\" for SID %s", conf_q(&qb, argv[0]));
		return -EINVAL;
	}
	rc = sid_check(cfg, d, seen, &e);
	if (!rc && warn[0])
		conf_seterr(&e, "%s", warn);
	return rc;
}

bool srv6_sid_cfg_equal(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	int k;

	if (a->action != b->action || a->attrs != b->attrs)
		return false;
	for (k = 0; k < SRV6_ATTR_MAX; k++)
		if ((a->attrs & SRV6_F_ATTR(k)) && sid_kws[k].cmp && sid_kws[k].cmp(a, b))
			return false;
	/* flavors live in their own field; compare even without the bit */
	return !cmp_flavors(a, b) && !strncmp(a->dev_name, b->dev_name, sizeof(a->dev_name));
}


int srv6_sid_format(char *buf, size_t len, const struct in6_addr *prefix, uint8_t plen,
		    const struct srv6_sid_cfg *cfg)
{
	struct srv6_sbuf s = SRV6_SB_FIXED(buf, len);
	const struct srv6_action_desc *d = srv6_action_desc_get(cfg->action);
	int k;

	if (len)
		buf[0] = '\0';
	if (!d)
		return -EINVAL;
	srv6_sb_printf(&s, "sid ");
	conf_put_prefix(&s, AF_INET6, prefix, plen);
	srv6_sb_printf(&s, " action %s", d->name);
	for (k = 0; k < SRV6_ATTR_MAX; k++)
		if ((cfg->attrs & SRV6_F_ATTR(k)) && sid_kws[k].put)
			sid_kws[k].put(&s, cfg);
	/* flavors set without the attribute bit (hand-built cfg): print anyway */
	if (!(cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_FLAVORS)) && cfg->flavors)
		put_flavors(&s, cfg);
	if (cfg->dev_name[0])
		srv6_sb_printf(&s, " dev %.*s", (int)sizeof(cfg->dev_name), cfg->dev_name);
	return srv6_sb_done(&s);
}

