// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * util.c - what every part of the srv6d.conf grammar shares: error text
 * (one line, the bad token quoted and escaped), strict scalar parsers
 * (numbers, addresses, prefixes, segment lists), the printers' output
 * buffer and the word splitter.  Pure: no I/O, no globals.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv6d/errbuf.h"
#include "conf_int.h"

/* ---------------------------------------------------------------------- */
/* error text                                                             */

void conf_seterr(struct errbuf *e, const char *fmt, ...)
{
	va_list ap;

	if (!e->buf || !e->len)
		return;
	va_start(ap, fmt);
	vsnprintf(e->buf, e->len, fmt, ap);
	va_end(ap);
}

const char *conf_q(struct qtok *b, const char *tok)
{
	b->s[0] = '"';
	srv6_escape_into(b->s + 1, sizeof(b->s) - 2, tok, QTOK_MAX);
	strcat(b->s, "\"");
	return b->s;
}

/* ---------------------------------------------------------------------- */
/* scalar parsers                                                         */

/* Strict decimal: digits only, no sign, no leading zero except "0". */
int conf_parse_u64(const char *s, uint64_t *out)
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
int conf_parse_num(const char *kw, const char *s, uint64_t min, uint64_t max,
		     uint64_t *out, struct errbuf *e)
{
	struct qtok qb;
	uint64_t v;
	int rc = conf_parse_u64(s, &v);

	if (rc == -EINVAL) {
		conf_seterr(e, "bad number %s for %s", conf_q(&qb, s), kw);
		return -EINVAL;
	}
	if (rc == -ERANGE || v < min || v > max) {
		conf_seterr(e, "%s %s out of range (%llu..%llu)", kw, conf_q(&qb, s),
		       (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int conf_parse_addr6(const char *kw, const char *s, struct in6_addr *a, struct errbuf *e)
{
	struct qtok qb;

	if (inet_pton(AF_INET6, s, a) != 1) {
		conf_seterr(e, "bad IPv6 address %s for %s", conf_q(&qb, s), kw);
		return -EINVAL;
	}
	return 0;
}

int conf_parse_addr4(const char *kw, const char *s, struct in_addr *a, struct errbuf *e)
{
	struct qtok qb;

	if (inet_pton(AF_INET, s, a) != 1) {
		conf_seterr(e, "bad IPv4 address %s for %s", conf_q(&qb, s), kw);
		return -EINVAL;
	}
	return 0;
}

int conf_parse_prefix(int family, const char *s, void *addr, uint8_t *plen)
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
	if (slash && (conf_parse_u64(slash + 1, &len) < 0 || len > maxlen))
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
const char *conf_not_unicast6(const struct in6_addr *a, bool no_ll)
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
int conf_prefix_multicast(int family, const void *addr, const char *what, const char *s,
			    struct errbuf *e)
{
	const uint8_t *b = addr;
	struct qtok qb;

	if (family == AF_INET6 ? b[0] != 0xff : (b[0] & 0xf0) != 0xe0)
		return 0;
	conf_seterr(e, "%s prefix %s is multicast", what, conf_q(&qb, s));
	return -EINVAL;
}

int conf_prefix_err(int rc, const char *what, const char *s, struct errbuf *e)
{
	struct qtok qb;

	switch (rc) {
	case PFX_LEN:
		conf_seterr(e, "bad prefix length in %s", conf_q(&qb, s));
		break;
	case PFX_HOST:
		conf_seterr(e, "%s prefix %s has host bits set", what, conf_q(&qb, s));
		break;
	default:
		conf_seterr(e, "bad %s prefix %s", what, conf_q(&qb, s));
		break;
	}
	return -EINVAL;
}

/* "A,B,..." -> segs[] in travel order. */
int conf_parse_seglist(const char *s, struct in6_addr *segs, unsigned int *nsegs,
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
			conf_seterr(e, "too many segments (%u, at most %u)", total,
			       SRV6_MAX_SEGS);
			return -EINVAL;
		}
		if (l >= sizeof(buf)) {
			l = sizeof(buf) - 1;
			memcpy(buf, p, l);
			buf[l] = '\0';
			conf_seterr(e, "bad segment %s", conf_q(&qb, buf));
			return -EINVAL;
		}
		memcpy(buf, p, l);
		buf[l] = '\0';
		if (inet_pton(AF_INET6, buf, &segs[n]) != 1) {
			conf_seterr(e, "bad segment %s", conf_q(&qb, buf));
			return -EINVAL;
		}
		/* A segment is a destination packets are routed to. */
		if ((why = conf_not_unicast6(&segs[n], false))) {
			conf_seterr(e, "segment %s is %s", conf_q(&qb, buf), why);
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

void conf_sb_addr6(struct srv6_sbuf *s, const struct in6_addr *a)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, a, buf, sizeof(buf));
	srv6_sb_printf(s, "%s", buf);
}

void conf_sb_segs(struct srv6_sbuf *s, const struct in6_addr *segs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (i)
			srv6_sb_printf(s, ",");
		conf_sb_addr6(s, &segs[i]);
	}
}

int conf_need_arg(int argc, char **argv, struct errbuf *e)
{
	struct qtok qb;

	if (argc < 2) {
		conf_seterr(e, "missing value after %s", conf_q(&qb, argv[0]));
		return -EINVAL;
	}
	return 0;
}
/* The kernel's dev_valid_name(). */
bool conf_ifname_valid(const char *s)
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
void conf_put_prefix(struct srv6_sbuf *s, int family, const void *addr, uint8_t plen)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(family, addr, buf, sizeof(buf));
	if (plen == (family == AF_INET6 ? 128 : 32))
		srv6_sb_printf(s, "%s", buf);
	else
		srv6_sb_printf(s, "%s/%u", buf, plen);
}
/* Split @line (modified) into words; '#' starts a comment. */
int conf_split_words(char *line, char **argv, struct errbuf *e)
{
	int argc = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f')
			p++;
		if (!*p || *p == '#')
			break;
		if (argc == CONF_MAX_WORDS) {
			conf_seterr(e, "too many words (at most %d)", CONF_MAX_WORDS);
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


int conf_route_level_word(int argc, char **argv, unsigned int *seen, struct errbuf *e,
			  struct errbuf *w)
{
	static const char *const words[] = { "metric", "proto", "pref" };
	struct qtok qb, qv;

	for (unsigned int i = 0; i < ARRAY_SIZE(words); i++) {
		if (strcmp(argv[0], words[i]))
			continue;
		if (*seen & (1u << i)) {
			conf_seterr(e, "duplicate %s", conf_q(&qb, argv[0]));
			return -EINVAL;
		}
		if (conf_need_arg(argc, argv, e))
			return -EINVAL;
		*seen |= 1u << i;
		/* the first one on the line is the one reported */
		if (w->buf && w->len && !w->buf[0])
			conf_seterr(w, "route-level %s %s ignored (srv6d has no routing metric, "
				    "protocol or preference)", conf_q(&qb, argv[0]),
				    conf_q(&qv, argv[1]));
		return 2;
	}
	return 0;
}
