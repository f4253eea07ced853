// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * conf.c - srv6d.conf parser and printer (grammar in include/srv6d/conf.h).
 *
 * Structure, after wireguard-tools' config.c: init, one call per line, a
 * finish step for cross-line checks; "has" state (the line a global keyword
 * was first seen on) lives in the parse context, not in struct srv6_conf.
 *
 * SID attributes are data: one keyword table (keyword, attribute bit, parse,
 * put, cmp), as the kernel's seg6_action_params.  Which attributes a
 * behavior requires or accepts comes only from the behavior descriptors
 * (srv6_action_desc_get()); nothing here switches on the action.
 *
 * Every error is one line naming the bad token; tokens are quoted with
 * control characters escaped so a message is always one printable line.
 * Nothing exits, logs or keeps global state.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv6d/conf.h"
#include "srv6d/hmac_conf.h"   /* hmac hook */
#include "srv6d/log.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CONF_MAX_WORDS 64
#define CPU_MAX (CPU_SETSIZE - 1)

/* ---------------------------------------------------------------------- */
/* error text                                                             */

struct errbuf {
	char *buf;
	size_t len;
};

static void __attribute__((format(printf, 2, 3)))
seterr(struct errbuf *e, const char *fmt, ...)
{
	va_list ap;

	if (!e->buf || !e->len)
		return;
	va_start(ap, fmt);
	vsnprintf(e->buf, e->len, fmt, ap);
	va_end(ap);
}

/* A token as it appears in a message: quoted, control bytes escaped, long
 * tokens cut.  Each call site passes its own buffer. */
#define QTOK_MAX 72
struct qtok {
	char s[QTOK_MAX * 4 + 8];
};

static void escape_into(char *out, size_t outlen, const char *in, size_t max)
{
	size_t o = 0, i;

	for (i = 0; in[i] && o + 5 < outlen; i++) {
		unsigned char ch = (unsigned char)in[i];

		if (i == max) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
			o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", ch);
		else
			out[o++] = (char)ch;
	}
	out[o] = '\0';
}

static const char *q(struct qtok *b, const char *tok)
{
	b->s[0] = '"';
	escape_into(b->s + 1, sizeof(b->s) - 2, tok, QTOK_MAX);
	strcat(b->s, "\"");
	return b->s;
}

/* ---------------------------------------------------------------------- */
/* scalar parsers                                                         */

/* Strict decimal: digits only, no sign, no leading zero except "0". */
static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/* A number for keyword @kw in [min, max]; messages name the token. */
static int parse_num(const char *kw, const char *s, uint64_t min, uint64_t max,
		     uint64_t *out, struct errbuf *e)
{
	struct qtok qb;
	uint64_t v;
	int rc = parse_u64(s, &v);

	if (rc == -EINVAL) {
		seterr(e, "bad number %s for %s", q(&qb, s), kw);
		return -EINVAL;
	}
	if (rc == -ERANGE || v < min || v > max) {
		seterr(e, "%s %s out of range (%llu..%llu)", kw, q(&qb, s),
		       (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_addr6(const char *kw, const char *s, struct in6_addr *a, struct errbuf *e)
{
	struct qtok qb;

	if (inet_pton(AF_INET6, s, a) != 1) {
		seterr(e, "bad IPv6 address %s for %s", q(&qb, s), kw);
		return -EINVAL;
	}
	return 0;
}

static int parse_addr4(const char *kw, const char *s, struct in_addr *a, struct errbuf *e)
{
	struct qtok qb;

	if (inet_pton(AF_INET, s, a) != 1) {
		seterr(e, "bad IPv4 address %s for %s", q(&qb, s), kw);
		return -EINVAL;
	}
	return 0;
}

/* ADDR or ADDR/LEN of @family into @addr (16 or 4 bytes); host bits must be
 * zero.  No message: the caller words it. */
enum { PFX_OK, PFX_BAD, PFX_LEN, PFX_HOST };
static int parse_prefix(int family, const char *s, void *addr, uint8_t *plen)
{
	unsigned int maxlen = family == AF_INET6 ? 128 : 32;
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	uint8_t *b = addr;
	uint64_t len = maxlen;
	unsigned int i;

	if (alen >= sizeof(buf))
		return PFX_BAD;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	if (inet_pton(family, buf, addr) != 1)
		return PFX_BAD;
	if (slash && (parse_u64(slash + 1, &len) < 0 || len > maxlen))
		return PFX_LEN;
	for (i = (unsigned int)len; i < maxlen; i++)
		if (b[i / 8] & (0x80 >> (i % 8)))
			return PFX_HOST;
	*plen = (uint8_t)len;
	return PFX_OK;
}

/* What makes @a unusable as a unicast address srv6d sends to or from
 * ("multicast", "unspecified", "loopback", "link-local" when @no_ll), or
 * NULL when it is fine. */
static const char *not_unicast6(const struct in6_addr *a, bool no_ll)
{
	if (IN6_IS_ADDR_MULTICAST(a))
		return "multicast";
	if (IN6_IS_ADDR_UNSPECIFIED(a))
		return "unspecified";
	if (IN6_IS_ADDR_LOOPBACK(a))
		return "loopback";
	if (no_ll && IN6_IS_ADDR_LINKLOCAL(a))
		return "link-local";
	return NULL;
}

/* A SID or policy prefix inside multicast space (ff00::/8, 224.0.0.0/4):
 * steering it would hand the host's multicast (ND, MLD...) to srv6d. */
static int prefix_multicast(int family, const void *addr, const char *what, const char *s,
			    struct errbuf *e)
{
	const uint8_t *b = addr;
	struct qtok qb;

	if (family == AF_INET6 ? b[0] != 0xff : (b[0] & 0xf0) != 0xe0)
		return 0;
	seterr(e, "%s prefix %s is multicast", what, q(&qb, s));
	return -EINVAL;
}

static int prefix_err(int rc, const char *what, const char *s, struct errbuf *e)
{
	struct qtok qb;

	switch (rc) {
	case PFX_LEN:
		seterr(e, "bad prefix length in %s", q(&qb, s));
		break;
	case PFX_HOST:
		seterr(e, "%s prefix %s has host bits set", what, q(&qb, s));
		break;
	default:
		seterr(e, "bad %s prefix %s", what, q(&qb, s));
		break;
	}
	return -EINVAL;
}

/* "A,B,..." -> segs[] in travel order. */
static int parse_seglist(const char *s, struct in6_addr *segs, unsigned int *nsegs,
			 struct errbuf *e)
{
	char buf[INET6_ADDRSTRLEN + 1];
	struct qtok qb;
	unsigned int n = 0;
	const char *p = s, *why;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t l = comma ? (size_t)(comma - p) : strlen(p);

		if (n == SRV6_MAX_SEGS) {
			unsigned int total = n + 1;

			for (; comma; comma = strchr(comma + 1, ','))
				total++;
			seterr(e, "too many segments (%u, at most %u)", total,
			       SRV6_MAX_SEGS);
			return -EINVAL;
		}
		if (l >= sizeof(buf)) {
			l = sizeof(buf) - 1;
			memcpy(buf, p, l);
			buf[l] = '\0';
			seterr(e, "bad segment %s", q(&qb, buf));
			return -EINVAL;
		}
		memcpy(buf, p, l);
		buf[l] = '\0';
		if (inet_pton(AF_INET6, buf, &segs[n]) != 1) {
			seterr(e, "bad segment %s", q(&qb, buf));
			return -EINVAL;
		}
		/* A segment is a destination packets are routed to. */
		if ((why = not_unicast6(&segs[n], false))) {
			seterr(e, "segment %s is %s", q(&qb, buf), why);
			return -EINVAL;
		}
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	*nsegs = n;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* output buffer for the printers                                         */

struct sbuf {
	char *b;
	size_t len;
	size_t pos;    /* length the full output would have */
};

static void __attribute__((format(printf, 2, 3)))
sb_printf(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	size_t room = s->pos < s->len ? s->len - s->pos : 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? s->b + s->pos : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->pos += (size_t)n;
}

static void sb_addr6(struct sbuf *s, const struct in6_addr *a)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, a, buf, sizeof(buf));
	sb_printf(s, "%s", buf);
}

static void sb_segs(struct sbuf *s, const struct in6_addr *segs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (i)
			sb_printf(s, ",");
		sb_addr6(s, &segs[i]);
	}
}

static int sb_done(struct sbuf *s)
{
	if (s->pos >= s->len)
		return -ENOSPC;
	return (int)s->pos;
}

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
	void (*put)(struct sbuf *s, const struct srv6_sid_cfg *cfg);
	int (*cmp)(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b);
};

static int need_arg(int argc, char **argv, struct errbuf *e)
{
	struct qtok qb;

	if (argc < 2) {
		seterr(e, "missing value after %s", q(&qb, argv[0]));
		return -EINVAL;
	}
	return 0;
}

/* srh segs LIST [hmac N] */
static int parse_srh(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	struct qtok qb;

	if (need_arg(argc, argv, e))
		return -EINVAL;
	if (strcmp(argv[1], "segs")) {
		seterr(e, "expected \"segs\" after \"srh\", got %s", q(&qb, argv[1]));
		return -EINVAL;
	}
	if (need_arg(argc - 1, argv + 1, e))
		return -EINVAL;
	if (parse_seglist(argv[2], cfg->segs, &cfg->nsegs, e))
		return -EINVAL;
	/* hmac hook: "srh segs LIST hmac KEYID" (iproute2's order) */
	if (argc > 3 && !strcmp(argv[3], "hmac")) {
		if (need_arg(argc - 3, argv + 3, e))
			return -EINVAL;
		if (srv6_hmac_parse_keyid(argv[4], &cfg->hmac_keyid, e->buf, e->len))
			return -EINVAL;
		return 5;
	}
	return 3;
}

static void put_srh(struct sbuf *s, const struct srv6_sid_cfg *cfg)
{
	sb_printf(s, " srh segs ");
	sb_segs(s, cfg->segs, cfg->nsegs);
	if (cfg->hmac_keyid)                      /* hmac hook */
		sb_printf(s, " hmac %u", cfg->hmac_keyid);
}

static int cmp_srh(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	return a->nsegs != b->nsegs || a->hmac_keyid != b->hmac_keyid ||
	       memcmp(a->segs, b->segs, a->nsegs * sizeof(a->segs[0]));
}

static int parse_table_kw(const char *kw, uint32_t *out, int argc, char **argv,
			  struct errbuf *e)
{
	uint64_t v;

	if (need_arg(argc, argv, e) || parse_num(kw, argv[1], 1, UINT32_MAX, &v, e))
		return -EINVAL;
	*out = (uint32_t)v;
	return 2;
}

static int parse_table(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	return parse_table_kw("table", &cfg->table, argc, argv, e);
}

static void put_table(struct sbuf *s, const struct srv6_sid_cfg *cfg)
{
	sb_printf(s, " table %u", cfg->table);
}

static int cmp_table(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	return a->table != b->table;
}

static int parse_vrftable(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	return parse_table_kw("vrftable", &cfg->vrftable, argc, argv, e);
}

static void put_vrftable(struct sbuf *s, const struct srv6_sid_cfg *cfg)
{
	sb_printf(s, " vrftable %u", cfg->vrftable);
}

static int cmp_vrftable(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	return a->vrftable != b->vrftable;
}

static int parse_nh4(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	if (need_arg(argc, argv, e) || parse_addr4("nh4", argv[1], &cfg->nh4, e))
		return -EINVAL;
	return 2;
}

static void put_nh4(struct sbuf *s, const struct srv6_sid_cfg *cfg)
{
	char buf[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &cfg->nh4, buf, sizeof(buf));
	sb_printf(s, " nh4 %s", buf);
}

static int cmp_nh4(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	return a->nh4.s_addr != b->nh4.s_addr;
}

static int parse_nh6(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	if (need_arg(argc, argv, e) || parse_addr6("nh6", argv[1], &cfg->nh6, e))
		return -EINVAL;
	return 2;
}

static void put_nh6(struct sbuf *s, const struct srv6_sid_cfg *cfg)
{
	sb_printf(s, " nh6 ");
	sb_addr6(s, &cfg->nh6);
}

static int cmp_nh6(const struct srv6_sid_cfg *a, const struct srv6_sid_cfg *b)
{
	return memcmp(&a->nh6, &b->nh6, sizeof(a->nh6));
}

/* The kernel's dev_valid_name(). */
static bool ifname_valid(const char *s)
{
	size_t l = strlen(s);

	if (!l || l >= IF_NAMESIZE || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || (unsigned char)*s <= ' ' ||
		    (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

static int parse_oif(struct srv6_sid_cfg *cfg, int argc, char **argv, struct errbuf *e)
{
	struct qtok qb;

	if (need_arg(argc, argv, e))
		return -EINVAL;
	if (!ifname_valid(argv[1])) {
		seterr(e, "bad interface name %s for oif", q(&qb, argv[1]));
		return -EINVAL;
	}
	memset(cfg->oif_name, 0, sizeof(cfg->oif_name));
	memcpy(cfg->oif_name, argv[1], strlen(argv[1]));
	return 2;
}

static void put_oif(struct sbuf *s, const struct srv6_sid_cfg *cfg)
{
	sb_printf(s, " oif %.*s", (int)sizeof(cfg->oif_name), cfg->oif_name);
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

	if (need_arg(argc, argv, e))
		return -EINVAL;
	for (p = argv[1];;) {
		const char *comma = strchr(p, ',');
		size_t l = comma ? (size_t)(comma - p) : strlen(p);
		int f;

		if (l >= sizeof(buf))
			l = sizeof(buf) - 1;
		memcpy(buf, p, l);
		buf[l] = '\0';
		f = srv6_flavor_from_name(buf);
		if (f < 0 || f >= SRV6_FLV_MAX) {
			seterr(e, "unknown flavor %s", q(&qb, buf));
			return -EINVAL;
		}
		if (cfg->flavors & SRV6_F_FLV(f)) {
			seterr(e, "duplicate flavor %s", q(&qb, buf));
			return -EINVAL;
		}
		cfg->flavors |= SRV6_F_FLV(f);
		if (!comma)
			break;
		p = comma + 1;
	}
	return 2;
}

static void put_flavors(struct sbuf *s, const struct srv6_sid_cfg *cfg)
{
	const char *sep = " flavors ";
	int f;

	for (f = 0; f < SRV6_FLV_MAX; f++) {
		if (!(cfg->flavors & SRV6_F_FLV(f)))
			continue;
		sb_printf(s, "%s%s", sep, srv6_flavor_name((enum srv6_flavor)f));
		sep = ",";
	}
	if (cfg->flavors & SRV6_F_FLV(SRV6_FLV_NEXT_CSID))
		sb_printf(s, " lblen %u nflen %u", cfg->lblen, cfg->nflen);
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

	if (need_arg(argc, argv, e))
		return -EINVAL;
	rc = parse_u64(argv[1], &v);
	if (rc == -EINVAL) {
		seterr(e, "bad number %s for %s", q(&qb, argv[1]), kw);
		return -EINVAL;
	}
	if (rc || v < 8 || v > 120 || v % 8) {
		seterr(e, "%s %s out of range (8..120, multiple of 8)", kw, q(&qb, argv[1]));
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
		seterr(e, "%s requires %s", d->name, attr_kw(first_bit(missing)));
		return -EINVAL;
	}
	if (extra) {
		seterr(e, "%s does not take %s", d->name, attr_kw(first_bit(extra)));
		return -EINVAL;
	}
	if (d->one_of_attrs) {
		uint32_t got = cfg->attrs & d->one_of_attrs;

		if (!got || (got & (got - 1))) {
			char names[96];
			struct sbuf sb = { names, sizeof(names), 0 };
			uint32_t m;

			for (m = d->one_of_attrs; m; m &= m - 1)
				sb_printf(&sb, "%s%s", sb.pos ? " or " : "",
					  attr_kw(first_bit(m)));
			if (!got)
				seterr(e, "%s requires %s", d->name, names);
			else
				seterr(e, "%s takes %s, not both", d->name, names);
			return -EINVAL;
		}
	}
	if (badflv) {
		seterr(e, "%s does not take flavor %s", d->name,
		       srv6_flavor_name((enum srv6_flavor)first_bit(badflv)));
		return -EINVAL;
	}
	for (k = KW_LBLEN; k <= KW_NFLEN; k++) {
		if ((seen & (1u << k)) && !csid) {
			seterr(e, "%s requires flavors next-csid", sid_kws[k].kw);
			return -EINVAL;
		}
	}
	if (csid) {
		if (!(seen & (1u << KW_LBLEN)))
			cfg->lblen = SRV6_CSID_LBLEN_DEFAULT;
		if (!(seen & (1u << KW_NFLEN)))
			cfg->nflen = SRV6_CSID_NFLEN_DEFAULT;
		if (cfg->lblen + cfg->nflen > 128) {
			seterr(e, "lblen %u + nflen %u exceed 128 bits", cfg->lblen,
			       cfg->nflen);
			return -EINVAL;
		}
	}
	/* Backstop: the engine's own validation must agree. */
	if (srv6_sid_cfg_check(cfg, &why)) {
		seterr(e, "invalid %s SID: %s", d->name, why ? why : "rejected");
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
	uint32_t seen = 0;
	struct qtok qb;
	int i, rc;

	memset(cfg, 0, sizeof(*cfg));
	if (err && errlen)
		err[0] = '\0';
	if (argc < 1) {
		seterr(&e, "missing SID prefix after \"sid\"");
		return -EINVAL;
	}
	rc = parse_prefix(AF_INET6, argv[0], prefix, plen);
	if (rc != PFX_OK)
		return prefix_err(rc, "SID", argv[0], &e);
	if (prefix_multicast(AF_INET6, prefix, "SID", argv[0], &e))
		return -EINVAL;
	if (*plen == 128 && not_unicast6(prefix, false)) {
		seterr(&e, "SID %s is %s", q(&qb, argv[0]), not_unicast6(prefix, false));
		return -EINVAL;
	}

	for (i = 1; i < argc;) {
		const char *w = argv[i];
		int k;

		if (!strcmp(w, "action")) {
			enum srv6_action act;

			if (d) {
				seterr(&e, "duplicate \"action\"");
				return -EINVAL;
			}
			if (need_arg(argc - i, argv + i, &e))
				return -EINVAL;
			act = srv6_action_from_name(argv[i + 1]);
			d = act == SRV6_ACT_UNSPEC ? NULL : srv6_action_desc_get(act);
			if (!d) {
				seterr(&e, "unknown action %s", q(&qb, argv[i + 1]));
				return -EINVAL;
			}
			cfg->action = act;
			i += 2;
		} else if (!strcmp(w, "encap")) {
			/* pasted "ip -6 route add SID encap seg6local action ..." */
			if (seen_encap) {
				seterr(&e, "duplicate \"encap\"");
				return -EINVAL;
			}
			if (need_arg(argc - i, argv + i, &e))
				return -EINVAL;
			if (strcmp(argv[i + 1], "seg6local")) {
				seterr(&e, "expected \"seg6local\" after \"encap\", got %s",
				       q(&qb, argv[i + 1]));
				return -EINVAL;
			}
			seen_encap = true;
			i += 2;
		} else if (!strcmp(w, "dev")) {
			/* the kernel's meaning: the device whose addresses the
			 * outer source of an encapsulation comes from */
			if (seen_dev) {
				seterr(&e, "duplicate \"dev\"");
				return -EINVAL;
			}
			if (need_arg(argc - i, argv + i, &e))
				return -EINVAL;
			if (!ifname_valid(argv[i + 1])) {
				seterr(&e, "bad interface name %s for dev", q(&qb, argv[i + 1]));
				return -EINVAL;
			}
			snprintf(cfg->dev_name, sizeof(cfg->dev_name), "%s", argv[i + 1]);
			seen_dev = true;
			i += 2;
		} else if (!strcmp(w, "count")) {
			/* accepted and ignored: counters are always on */
			if (seen_count) {
				seterr(&e, "duplicate \"count\"");
				return -EINVAL;
			}
			seen_count = true;
			i++;
		} else if (!strcmp(w, "hmac")) {
			seterr(&e, "\"hmac\" goes after \"srh segs LIST\"");
			return -EINVAL;
		} else if ((k = sid_kw_find(w)) >= 0) {
			if (seen & (1u << k)) {
				seterr(&e, "duplicate %s", q(&qb, w));
				return -EINVAL;
			}
			seen |= 1u << k;
			rc = sid_kws[k].parse(cfg, argc - i, argv + i, &e);
			if (rc < 0)
				return -EINVAL;
			if (k < SRV6_ATTR_MAX)
				cfg->attrs |= SRV6_F_ATTR(k);
			i += rc;
		} else {
			seterr(&e, "unknown keyword %s", q(&qb, w));
			return -EINVAL;
		}
	}
	if (!d) {
		seterr(&e, "missing \"action\" for SID %s", q(&qb, argv[0]));
		return -EINVAL;
	}
	return sid_check(cfg, d, seen, &e);
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

static void put_prefix(struct sbuf *s, int family, const void *addr, uint8_t plen)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(family, addr, buf, sizeof(buf));
	if (plen == (family == AF_INET6 ? 128 : 32))
		sb_printf(s, "%s", buf);
	else
		sb_printf(s, "%s/%u", buf, plen);
}

int srv6_sid_format(char *buf, size_t len, const struct in6_addr *prefix, uint8_t plen,
		    const struct srv6_sid_cfg *cfg)
{
	struct sbuf s = { buf, len, 0 };
	const struct srv6_action_desc *d = srv6_action_desc_get(cfg->action);
	int k;

	if (len)
		buf[0] = '\0';
	if (!d)
		return -EINVAL;
	sb_printf(&s, "sid ");
	put_prefix(&s, AF_INET6, prefix, plen);
	sb_printf(&s, " action %s", d->name);
	for (k = 0; k < SRV6_ATTR_MAX; k++)
		if ((cfg->attrs & SRV6_F_ATTR(k)) && sid_kws[k].put)
			sid_kws[k].put(&s, cfg);
	/* flavors set without the attribute bit (hand-built cfg): print anyway */
	if (!(cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_FLAVORS)) && cfg->flavors)
		put_flavors(&s, cfg);
	if (cfg->dev_name[0])
		sb_printf(&s, " dev %.*s", (int)sizeof(cfg->dev_name), cfg->dev_name);
	return sb_done(&s);
}

/* ---------------------------------------------------------------------- */
/* policies                                                               */

int srv6_route_parse_words(int argc, char **argv, struct srv6_conf_route *r,
			   char *err, size_t errlen)
{
	struct errbuf e = { err, errlen };
	bool seen_encap = false, seen_mode = false, seen_segs = false;
	bool seen_dev = false, seen_count = false, seen_hmac = false;
	const char *why = NULL;
	struct qtok qb;
	int i, rc;

	memset(r, 0, sizeof(*r));
	if (err && errlen)
		err[0] = '\0';
	if (argc < 1) {
		seterr(&e, "missing prefix after \"route\"");
		return -EINVAL;
	}
	r->family = strchr(argv[0], ':') ? AF_INET6 : AF_INET;
	rc = parse_prefix(r->family, argv[0], &r->prefix, &r->plen);
	if (rc != PFX_OK)
		return prefix_err(rc, "route", argv[0], &e);
	if (prefix_multicast(r->family, &r->prefix, "route", argv[0], &e))
		return -EINVAL;

	for (i = 1; i < argc;) {
		const char *w = argv[i];
		bool *seen;

		if (!strcmp(w, "encap"))
			seen = &seen_encap;
		else if (!strcmp(w, "mode"))
			seen = &seen_mode;
		else if (!strcmp(w, "segs"))
			seen = &seen_segs;
		else if (!strcmp(w, "dev"))
			seen = &seen_dev;
		else if (!strcmp(w, "count"))
			seen = &seen_count;
		else if (!strcmp(w, "hmac"))          /* hmac hook */
			seen = &seen_hmac;
		else {
			seterr(&e, "unknown keyword %s", q(&qb, w));
			return -EINVAL;
		}
		if (*seen) {
			seterr(&e, "duplicate %s", q(&qb, w));
			return -EINVAL;
		}
		*seen = true;
		if (seen == &seen_count) {
			i++;
			continue;
		}
		if (need_arg(argc - i, argv + i, &e))
			return -EINVAL;
		if (seen == &seen_encap) {
			if (strcmp(argv[i + 1], "seg6")) {
				seterr(&e, "expected \"seg6\" after \"encap\", got %s",
				       q(&qb, argv[i + 1]));
				return -EINVAL;
			}
		} else if (seen == &seen_mode) {
			int m = srv6_mode_from_name(argv[i + 1]);

			if (m < 0 || m >= SRV6_MODE_MAX) {
				seterr(&e, "unknown mode %s", q(&qb, argv[i + 1]));
				return -EINVAL;
			}
			r->pol.mode = (enum srv6_encap_mode)m;
		} else if (seen == &seen_segs) {
			if (parse_seglist(argv[i + 1], r->pol.segs, &r->pol.nsegs, &e))
				return -EINVAL;
		} else if (seen == &seen_dev) {
			if (!ifname_valid(argv[i + 1])) {
				seterr(&e, "bad interface name %s for dev", q(&qb, argv[i + 1]));
				return -EINVAL;
			}
			snprintf(r->pol.dev_name, sizeof(r->pol.dev_name), "%s", argv[i + 1]);
		} else if (seen == &seen_hmac) {      /* hmac hook */
			if (srv6_hmac_parse_keyid(argv[i + 1], &r->pol.hmac_keyid, e.buf, e.len))
				return -EINVAL;
		}
		i += 2;
	}
	if (!seen_encap) {
		seterr(&e, "route requires \"encap seg6\"");
		return -EINVAL;
	}
	if (!seen_mode) {
		seterr(&e, "route requires mode");
		return -EINVAL;
	}
	if (!seen_segs) {
		seterr(&e, "route requires segs");
		return -EINVAL;
	}
	/* NFQUEUE hands srv6d the IP packet without its Ethernet header, so an
	 * L2 mode on a route would encapsulate nothing: refuse it here rather
	 * than drop every packet at run time. */
	if (r->pol.mode == SRV6_MODE_L2ENCAP || r->pol.mode == SRV6_MODE_L2ENCAP_RED) {
		seterr(&e, "mode %s is not supported on routes (NFQUEUE carries no Ethernet header)",
		       q(&qb, srv6_mode_name(r->pol.mode)));
		return -EINVAL;
	}
	if (r->family == AF_INET && r->pol.mode == SRV6_MODE_INLINE) {
		seterr(&e, "mode inline needs an IPv6 prefix, not %s", q(&qb, argv[0]));
		return -EINVAL;
	}
	if (srv6_policy_check(&r->pol, &why)) {
		seterr(&e, "invalid policy: %s", why ? why : "rejected");
		return -EINVAL;
	}
	return 0;
}

bool srv6_policy_equal(const struct srv6_policy *a, const struct srv6_policy *b)
{
	return a->mode == b->mode && a->nsegs == b->nsegs && a->hmac_keyid == b->hmac_keyid &&
	       !memcmp(a->segs, b->segs, a->nsegs * sizeof(a->segs[0])) &&
	       !strncmp(a->dev_name, b->dev_name, sizeof(a->dev_name));
}

int srv6_route_format(char *buf, size_t len, const struct srv6_conf_route *r)
{
	struct sbuf s = { buf, len, 0 };
	const char *mode;

	if (len)
		buf[0] = '\0';
	if ((r->family != AF_INET6 && r->family != AF_INET) ||
	    (unsigned int)r->pol.mode >= SRV6_MODE_MAX || r->pol.nsegs > SRV6_MAX_SEGS)
		return -EINVAL;
	mode = srv6_mode_name(r->pol.mode);
	sb_printf(&s, "route ");
	put_prefix(&s, r->family, &r->prefix, r->plen);
	sb_printf(&s, " encap seg6 mode %s segs ", mode);
	sb_segs(&s, r->pol.segs, r->pol.nsegs);
	if (r->pol.dev_name[0])
		sb_printf(&s, " dev %.*s", (int)sizeof(r->pol.dev_name), r->pol.dev_name);
	if (r->pol.hmac_keyid)                    /* hmac hook */
		sb_printf(&s, " hmac %u", r->pol.hmac_keyid);
	return sb_done(&s);
}

/* ---------------------------------------------------------------------- */
/* duplicate prefix detection: an open-addressing set of (family, plen,   */
/* prefix) -> first line                                                  */

struct pkey {
	uint8_t family, plen;
	uint8_t addr[16];
	unsigned int line;   /* 0: empty slot */
};

struct pset {
	struct pkey *slot;
	size_t cap, n;       /* cap: power of two or 0 */
};

static size_t pkey_hash(const struct pkey *k)
{
	uint64_t h = 1469598103934665603ull;  /* FNV-1a */
	size_t i;

	h = (h ^ k->family) * 1099511628211ull;
	h = (h ^ k->plen) * 1099511628211ull;
	for (i = 0; i < sizeof(k->addr); i++)
		h = (h ^ k->addr[i]) * 1099511628211ull;
	return (size_t)(h ^ (h >> 32));
}

static struct pkey *pset_slot(struct pkey *tab, size_t cap, const struct pkey *k)
{
	size_t i = pkey_hash(k) & (cap - 1);

	while (tab[i].line && (tab[i].family != k->family || tab[i].plen != k->plen ||
			       memcmp(tab[i].addr, k->addr, sizeof(k->addr))))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* Insert @k; returns 0, the line of an existing equal key, or -ENOMEM. */
static long pset_add(struct pset *s, const struct pkey *k)
{
	struct pkey *sl;

	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64, i;
		struct pkey *nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		for (i = 0; i < s->cap; i++)
			if (s->slot[i].line)
				*pset_slot(nt, ncap, &s->slot[i]) = s->slot[i];
		free(s->slot);
		s->slot = nt;
		s->cap = ncap;
	}
	sl = pset_slot(s->slot, s->cap, k);
	if (sl->line)
		return (long)sl->line;
	*sl = *k;
	s->n++;
	return 0;
}

static void pset_free(struct pset *s)
{
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

/* ---------------------------------------------------------------------- */
/* the file: init / line / finish                                         */

struct conf_ctx {
	struct srv6_conf *c;
	struct errbuf e;            /* message without the "FILE:LINE: " prefix */
	unsigned int line;
	/* "has" flags: the line a global keyword was seen on, 0 if not */
	unsigned int has_queue, has_maxlen, has_failopen, has_steer, has_src, has_cpu;
	unsigned int has_egress;
	unsigned int has_loglevel;
	unsigned int has_chain, has_markbase, has_tablebase, has_rulepref;
	size_t sids_cap, routes_cap;
	struct pset sid_set, route_set;
};

static int need_one(int argc, char **argv, struct errbuf *e)
{
	struct qtok qb;

	if (need_arg(argc, argv, e))
		return -EINVAL;
	if (argc > 2) {
		seterr(e, "\"%s\" takes one value, unexpected %s", argv[0], q(&qb, argv[2]));
		return -EINVAL;
	}
	return 0;
}

static int g_queue(struct conf_ctx *x, char **argv)
{
	char *dash = strchr(argv[1], '-');
	uint64_t a, b;
	struct qtok qb;

	if (dash) {
		char first[16];
		size_t l = (size_t)(dash - argv[1]);

		if (l == 0 || l >= sizeof(first)) {
			seterr(&x->e, "bad queue range %s", q(&qb, argv[1]));
			return -EINVAL;
		}
		memcpy(first, argv[1], l);
		first[l] = '\0';
		if (parse_num("queue", first, 0, 65535, &a, &x->e) ||
		    parse_num("queue", dash + 1, 0, 65535, &b, &x->e))
			return -EINVAL;
		if (b < a) {
			seterr(&x->e, "bad queue range %s (end before start)", q(&qb, argv[1]));
			return -EINVAL;
		}
	} else {
		if (parse_num("queue", argv[1], 0, 65535, &a, &x->e))
			return -EINVAL;
		b = a;
	}
	if (b - a + 1 > SRV6_CONF_MAX_QUEUES) {
		seterr(&x->e, "too many queues in %s (%llu, at most %d)", q(&qb, argv[1]),
		       (unsigned long long)(b - a + 1), SRV6_CONF_MAX_QUEUES);
		return -EINVAL;
	}
	x->c->queue_first = (unsigned int)a;
	x->c->queue_last = (unsigned int)b;
	return 0;
}

static int g_maxlen(struct conf_ctx *x, char **argv)
{
	uint64_t v;

	if (parse_num("queue-maxlen", argv[1], 1, SRV6_CONF_QUEUE_MAXLEN_MAX, &v, &x->e))
		return -EINVAL;
	x->c->queue_maxlen = (unsigned int)v;
	return 0;
}

static int g_failopen(struct conf_ctx *x, char **argv)
{
	struct qtok qb;

	if (!strcmp(argv[1], "yes")) {
		x->c->fail_open = true;
	} else if (!strcmp(argv[1], "no")) {
		x->c->fail_open = false;
	} else {
		seterr(&x->e, "bad value %s for fail-open (yes or no)", q(&qb, argv[1]));
		return -EINVAL;
	}
	return 0;
}

static int g_steer(struct conf_ctx *x, char **argv)
{
	struct qtok qb;

	if (!strcmp(argv[1], "auto")) {
		x->c->steer = SRV6_STEER_AUTO;
	} else if (!strcmp(argv[1], "none")) {
		x->c->steer = SRV6_STEER_NONE;
	} else {
		seterr(&x->e, "bad value %s for steer (auto or none)", q(&qb, argv[1]));
		return -EINVAL;
	}
	return 0;
}

static int g_egress(struct conf_ctx *x, char **argv)
{
	static const char *const names[] = {
		[SRV6_EGRESS_AUTO] = "auto",
		[SRV6_EGRESS_VERDICT] = "verdict",
		[SRV6_EGRESS_INJECT] = "inject",
	};
	struct qtok qb;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (!strcmp(argv[1], names[i])) {
			x->c->egress = (enum srv6_egress_mode)i;
			return 0;
		}
	}
	seterr(&x->e, "bad value %s for egress (auto, verdict or inject)", q(&qb, argv[1]));
	return -EINVAL;
}

static int g_loglevel(struct conf_ctx *x, char **argv)
{
	int l = srv6_log_level_from_name(argv[1]);
	struct qtok qb;

	if (l < 0) {
		seterr(&x->e, "bad value %s for log-level (emerg, alert, crit, err, warning, "
		       "notice, info or debug)", q(&qb, argv[1]));
		return -EINVAL;
	}
	x->c->log_level = l;
	return 0;
}

static int g_chain(struct conf_ctx *x, char **argv)
{
	const char *s = argv[1];
	size_t n = strlen(s);
	struct qtok qb;
	bool ok = n >= 1 && n <= SRV6_STEER_CHAIN_MAX && s[0] != '-';

	for (size_t i = 0; ok && i < n; i++)
		ok = (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		     (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-';
	if (!ok) {
		seterr(&x->e, "bad chain name %s for steer-chain (1..%d of A-Z a-z 0-9 _ -)",
		       q(&qb, s), SRV6_STEER_CHAIN_MAX);
		return -EINVAL;
	}
	memcpy(x->c->steer_chain, s, n + 1);
	return 0;
}

/* 0xHHHH0000: the only hex number of the file (marks are read in hex). */
static int g_markbase(struct conf_ctx *x, char **argv)
{
	const char *s = argv[1];
	unsigned long long v = 0;
	struct qtok qb;
	size_t n = strlen(s);

	if (n < 3 || n > 10 || s[0] != '0' || s[1] != 'x' || strspn(s + 2, "0123456789abcdefABCDEF") != n - 2) {
		seterr(&x->e, "bad mark %s for mark-base (0x followed by up to 8 hex digits)", q(&qb, s));
		return -EINVAL;
	}
	v = strtoull(s + 2, NULL, 16);
	if (!v || (v & 0xffff)) {
		seterr(&x->e, "mark-base %s must be non-zero with its low 16 bits clear", q(&qb, s));
		return -EINVAL;
	}
	x->c->mark_base = (uint32_t)v;
	return 0;
}

static int g_tablebase(struct conf_ctx *x, char **argv)
{
	uint64_t v;

	/* base+1 .. base+0xffff: never 0 or 252..255, within 32 bits */
	if (parse_num("table-base", argv[1], 255, 0xffffffffull - SRV6_NHCTX_MAX, &v, &x->e))
		return -EINVAL;
	x->c->table_base = (uint32_t)v;
	return 0;
}

static int g_rulepref(struct conf_ctx *x, char **argv)
{
	uint64_t v;

	/* N and N + 1, both before the main table's rule (32766) */
	if (parse_num("rule-pref", argv[1], 1, 32764, &v, &x->e))
		return -EINVAL;
	x->c->rule_pref = (uint32_t)v;
	return 0;
}

static int g_src(struct conf_ctx *x, char **argv)
{
	struct in6_addr a;
	struct qtok qb;
	const char *why;

	if (parse_addr6("encap-source", argv[1], &a, &x->e))
		return -EINVAL;
	/* The outer source of packets routed off-link: not link-local. */
	if ((why = not_unicast6(&a, true))) {
		seterr(&x->e, "encap-source %s is not a global unicast address (%s)",
		       q(&qb, argv[1]), why);
		return -EINVAL;
	}
	x->c->has_encap_src = true;
	x->c->encap_src = a;
	return 0;
}

/* N[-M][,N[-M]...] or "none" */
static int g_cpu(struct conf_ctx *x, char **argv)
{
	const char *p = argv[1];
	struct qtok qb;
	int n = 0;

	x->c->ncpus = 0;
	if (!strcmp(p, "none"))
		return 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t l = comma ? (size_t)(comma - p) : strlen(p);
		char item[32], *dash;
		uint64_t a, b;

		if (l == 0 || l >= sizeof(item)) {
			seterr(&x->e, "bad CPU list %s", q(&qb, argv[1]));
			return -EINVAL;
		}
		memcpy(item, p, l);
		item[l] = '\0';
		dash = strchr(item, '-');
		if (dash)
			*dash = '\0';
		if (parse_num("cpu", item, 0, CPU_MAX, &a, &x->e))
			return -EINVAL;
		b = a;
		if (dash && parse_num("cpu", dash + 1, 0, CPU_MAX, &b, &x->e))
			return -EINVAL;
		if (b < a) {
			seterr(&x->e, "bad CPU list %s (range end before start)", q(&qb, argv[1]));
			return -EINVAL;
		}
		for (; a <= b; a++) {
			if (n == SRV6_CONF_MAX_QUEUES) {
				seterr(&x->e, "too many CPUs in %s (at most %d)", q(&qb, argv[1]),
				       SRV6_CONF_MAX_QUEUES);
				return -EINVAL;
			}
			x->c->cpus[n++] = (int)a;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	x->c->ncpus = n;
	return 0;
}

static int l_sid(struct conf_ctx *x, int argc, char **argv)
{
	struct srv6_conf_sid s;
	struct pkey k = { 0 };
	char pbuf[INET6_ADDRSTRLEN + 8];
	struct sbuf sb = { pbuf, sizeof(pbuf), 0 };
	long first;

	memset(&s, 0, sizeof(s));
	if (srv6_sid_parse_words(argc - 1, argv + 1, &s.prefix, &s.plen, &s.cfg,
				 x->e.buf, x->e.len))
		return -EINVAL;
	s.line = x->line;

	k.family = AF_INET6;
	k.plen = s.plen;
	memcpy(k.addr, &s.prefix, 16);
	k.line = x->line;
	first = pset_add(&x->sid_set, &k);
	if (first < 0) {
		seterr(&x->e, "out of memory");
		return -ENOMEM;
	}
	if (first > 0) {
		put_prefix(&sb, AF_INET6, &s.prefix, s.plen);
		seterr(&x->e, "duplicate sid %s (first at line %ld)", pbuf, first);
		return -EINVAL;
	}
	if (x->c->nsids == x->sids_cap) {
		size_t ncap = x->sids_cap ? x->sids_cap * 2 : 16;
		struct srv6_conf_sid *n = realloc(x->c->sids, ncap * sizeof(*n));

		if (!n) {
			seterr(&x->e, "out of memory");
			return -ENOMEM;
		}
		x->c->sids = n;
		x->sids_cap = ncap;
	}
	x->c->sids[x->c->nsids++] = s;
	return 0;
}

static int l_route(struct conf_ctx *x, int argc, char **argv)
{
	struct srv6_conf_route r;
	struct pkey k = { 0 };
	char pbuf[INET6_ADDRSTRLEN + 8];
	struct sbuf sb = { pbuf, sizeof(pbuf), 0 };
	long first;

	if (srv6_route_parse_words(argc - 1, argv + 1, &r, x->e.buf, x->e.len))
		return -EINVAL;
	r.line = x->line;

	k.family = (uint8_t)r.family;
	k.plen = r.plen;
	memcpy(k.addr, &r.prefix, r.family == AF_INET6 ? 16 : 4);
	k.line = x->line;
	first = pset_add(&x->route_set, &k);
	if (first < 0) {
		seterr(&x->e, "out of memory");
		return -ENOMEM;
	}
	if (first > 0) {
		put_prefix(&sb, r.family, &r.prefix, r.plen);
		seterr(&x->e, "duplicate route %s (first at line %ld)", pbuf, first);
		return -EINVAL;
	}
	if (x->c->nroutes == x->routes_cap) {
		size_t ncap = x->routes_cap ? x->routes_cap * 2 : 16;
		struct srv6_conf_route *n = realloc(x->c->routes, ncap * sizeof(*n));

		if (!n) {
			seterr(&x->e, "out of memory");
			return -ENOMEM;
		}
		x->c->routes = n;
		x->routes_cap = ncap;
	}
	x->c->routes[x->c->nroutes++] = r;
	return 0;
}

/* Global keywords: exactly one value, at most once per file. */
static const struct global_kw {
	const char *kw;
	size_t has_off;         /* offsetof(struct conf_ctx, has_*) */
	int (*parse)(struct conf_ctx *x, char **argv);
} global_kws[] = {
	{ "queue",        offsetof(struct conf_ctx, has_queue),    g_queue },
	{ "queue-maxlen", offsetof(struct conf_ctx, has_maxlen),   g_maxlen },
	{ "fail-open",    offsetof(struct conf_ctx, has_failopen), g_failopen },
	{ "steer",        offsetof(struct conf_ctx, has_steer),    g_steer },
	{ "egress",       offsetof(struct conf_ctx, has_egress),   g_egress },
	{ "encap-source", offsetof(struct conf_ctx, has_src),      g_src },
	{ "steer-chain",  offsetof(struct conf_ctx, has_chain),    g_chain },
	{ "mark-base",    offsetof(struct conf_ctx, has_markbase), g_markbase },
	{ "table-base",   offsetof(struct conf_ctx, has_tablebase), g_tablebase },
	{ "rule-pref",    offsetof(struct conf_ctx, has_rulepref), g_rulepref },
	{ "cpu-affinity", offsetof(struct conf_ctx, has_cpu),      g_cpu },
	{ "log-level",    offsetof(struct conf_ctx, has_loglevel), g_loglevel },
};

static int conf_line(struct conf_ctx *x, int argc, char **argv)
{
	struct qtok qb;
	size_t i;

	if (!strcmp(argv[0], "sid"))
		return l_sid(x, argc, argv);
	if (!strcmp(argv[0], "route"))
		return l_route(x, argc, argv);
	if (!strcmp(argv[0], "hmac"))                 /* hmac hook */
		return srv6_hmac_conf_line(&x->c->hmac, argc, argv, x->line, x->e.buf, x->e.len);
	for (i = 0; i < ARRAY_SIZE(global_kws); i++) {
		const struct global_kw *g = &global_kws[i];
		unsigned int *has = (unsigned int *)((char *)x + g->has_off);

		if (strcmp(argv[0], g->kw))
			continue;
		if (*has) {
			seterr(&x->e, "duplicate \"%s\" (first at line %u)", g->kw, *has);
			return -EINVAL;
		}
		if (need_one(argc, argv, &x->e))
			return -EINVAL;
		*has = x->line;
		return g->parse(x, argv);
	}
	seterr(&x->e, "unknown keyword %s", q(&qb, argv[0]));
	return -EINVAL;
}

/* Cross-line checks; sets x->line to the line the error belongs to. */
/* A SID's table or vrftable @t against srv6d's own tables. */
static int table_clash(struct conf_ctx *x, const char *kw, uint32_t t)
{
	uint64_t lo = (uint64_t)x->c->table_base + 1, hi = (uint64_t)x->c->table_base + SRV6_NHCTX_MAX;

	if (t >= 253 && t <= 255) {
		seterr(&x->e, "%s %u is a reserved table (253 default, 254 main, 255 local)", kw, t);
		return -EINVAL;
	}
	if (t >= lo && t <= hi) {
		seterr(&x->e, "%s %u is inside srv6d's own table range %llu-%llu (table-base)", kw, t,
		       (unsigned long long)lo, (unsigned long long)hi);
		return -EINVAL;
	}
	return 0;
}

static int conf_finish(struct conf_ctx *x)
{
	unsigned int nq = srv6_conf_nqueues(x->c);

	/* After the whole file: table-base may come after the SIDs. */
	for (size_t i = 0; i < x->c->nsids; i++) {
		const struct srv6_sid_cfg *cfg = &x->c->sids[i].cfg;

		x->line = x->c->sids[i].line;
		if ((cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_TABLE)) && table_clash(x, "table", cfg->table))
			return -EINVAL;
		if ((cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_VRFTABLE)) &&
		    table_clash(x, "vrftable", cfg->vrftable))
			return -EINVAL;
	}

	if (srv6_hmac_conf_finish(x->c, &x->line, x->e.buf, x->e.len))   /* hmac hook */
		return -EINVAL;

	if (x->c->ncpus && (unsigned int)x->c->ncpus != nq) {
		x->line = x->has_cpu;
		seterr(&x->e, "cpu-affinity lists %d CPU%s for %u queue%s (one per queue)",
		       x->c->ncpus, x->c->ncpus == 1 ? "" : "s", nq, nq == 1 ? "" : "s");
		return -EINVAL;
	}
	return 0;
}

/* Split @line (modified) into words; '#' starts a comment. */
static int split_words(char *line, char **argv, struct errbuf *e)
{
	int argc = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f')
			p++;
		if (!*p || *p == '#')
			break;
		if (argc == CONF_MAX_WORDS) {
			seterr(e, "too many words (at most %d)", CONF_MAX_WORDS);
			return -EINVAL;
		}
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\v' &&
		       *p != '\f' && *p != '#')
			p++;
		if (*p == '#') {
			*p = '\0';
			break;
		}
		if (*p)
			*p++ = '\0';
	}
	return argc;
}

void srv6_conf_init(struct srv6_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->queue_first = 0;
	c->queue_last = 0;
	c->queue_maxlen = SRV6_CONF_QUEUE_MAXLEN_DEF;
	c->fail_open = false;
	c->steer = SRV6_STEER_AUTO;
	c->log_level = LOG_INFO;
	snprintf(c->steer_chain, sizeof(c->steer_chain), "%s", SRV6_STEER_CHAIN);
	c->mark_base = SRV6_NHCTX_MARK_BASE;
	c->table_base = SRV6_NHCTX_TABLE_BASE;
	c->rule_pref = SRV6_NHCTX_RULE_PRIO;
}

void srv6_conf_free(struct srv6_conf *c)
{
	free(c->sids);
	free(c->routes);
	srv6_hmac_set_free(c->hmac);                  /* hmac hook */
	srv6_conf_init(c);
}

/* Parse @len bytes of @text (a private, writable copy; may hold NULs). */
static int conf_parse_buf(struct srv6_conf *c, const char *name, char *text, size_t len,
			  char *err, size_t errlen)
{
	char msg[SRV6_CONF_ERRLEN], qname[QTOK_MAX * 4 + 8];
	struct conf_ctx x;
	char *argv[CONF_MAX_WORDS];
	size_t off = 0;
	int rc = 0;

	memset(&x, 0, sizeof(x));
	srv6_conf_init(c);
	x.c = c;
	x.e.buf = msg;
	x.e.len = sizeof(msg);
	msg[0] = '\0';

	while (off < len) {
		char *line = text + off;
		char *nl = memchr(line, '\n', len - off);
		size_t l = nl ? (size_t)(nl - line) : len - off;
		int argc;

		x.line++;
		off += l + 1;
		line[l] = '\0';   /* the '\n' or, at the very end, the copy's NUL */
		if (strlen(line) != l) {
			seterr(&x.e, "NUL byte in line");
			rc = -EINVAL;
			break;
		}
		argc = split_words(line, argv, &x.e);
		if (argc < 0) {
			rc = argc;
			break;
		}
		if (argc == 0)
			continue;
		rc = conf_line(&x, argc, argv);
		if (rc)
			break;
	}
	if (!rc)
		rc = conf_finish(&x);
	pset_free(&x.sid_set);
	pset_free(&x.route_set);
	if (rc) {
		escape_into(qname, sizeof(qname), name ? name : "srv6d.conf", QTOK_MAX * 2);
		if (err && errlen)
			snprintf(err, errlen, "%s:%u: %s", qname, x.line, msg);
		srv6_conf_free(c);
		return rc;
	}
	if (err && errlen)
		err[0] = '\0';
	return 0;
}

int srv6_conf_parse_string(struct srv6_conf *c, const char *name, const char *text,
			   char *err, size_t errlen)
{
	size_t len;
	char *copy;
	int rc;

	if (!text) {
		srv6_conf_init(c);
		if (err && errlen)
			snprintf(err, errlen, "%s: no text", name ? name : "srv6d.conf");
		return -EINVAL;
	}
	len = strlen(text);
	copy = malloc(len + 1);
	if (!copy) {
		srv6_conf_init(c);
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", name ? name : "srv6d.conf");
		return -ENOMEM;
	}
	memcpy(copy, text, len + 1);
	rc = conf_parse_buf(c, name, copy, len, err, errlen);
	free(copy);
	return rc;
}

int srv6_conf_parse_file(struct srv6_conf *c, const char *path, char *err, size_t errlen)
{
	char qname[QTOK_MAX * 4 + 8];
	size_t cap = 4096, len = 0;
	char *buf = NULL;
	int fd, rc;

	srv6_conf_init(c);
	escape_into(qname, sizeof(qname), path, QTOK_MAX * 2);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto out_err;
	}
	for (;;) {
		ssize_t n;

		if (!buf || len + 1 >= cap) {
			char *nb;

			if (buf)
				cap *= 2;
			if (cap > (size_t)SRV6_CONF_MAX_FILE + 2)
				cap = (size_t)SRV6_CONF_MAX_FILE + 2;
			nb = realloc(buf, cap);
			if (!nb) {
				rc = -ENOMEM;
				goto out_free;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			goto out_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > SRV6_CONF_MAX_FILE) {
			rc = -EFBIG;
			goto out_free;
		}
	}
	close(fd);
	buf[len] = '\0';
	rc = conf_parse_buf(c, path, buf, len, err, errlen);
	free(buf);
	return rc;

out_free:
	free(buf);
	close(fd);
out_err:
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", qname,
			 rc == -EFBIG ? "file too large" : strerror(-rc));
	return rc;
}
