// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * import.c - one line of `ip -6 route show` / `ip -4 route show` output as
 * an srv6d.conf line (srv6ctl import).  The encap words go through the
 * conf grammar (sid.c, route.c), so what import prints is what srv6d
 * loads.  Pure.
 *
 * ip prints a route as [TYPE] PREFIX [encap ...] [via A] dev IF [table T]
 * [proto P] [metric M] [flags...] [pref P]: the encap words come before
 * dev, the route's own words after; End.T's "table N" is therefore told
 * from the route's "table N" by its place.  The show form of a segment
 * list, "segs 2 [ A B ]", becomes "segs A,B" (and "srh segs A,B" in a
 * seg6local encap).  ip prints an HMAC key id in hex without "0x"
 * ("hmac %X": key 26 shows as "hmac 1A"); srv6d.conf, like `ip route add`,
 * reads decimal, so the id is rewritten.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "conf_int.h"

/* Route words after the encap that take a value; srv6d has no use for
 * them (dev aside).  Flags (linkdown, onlink...) take none. */
static const char *const route_kws1[] = {
	"proto", "metric", "pref", "scope", "src", "expires", "mtu", "advmss", "hoplimit",
	"realm", "realms", "weight", "nhid", "congctl", "rtt", "rttvar", "window", "cwnd",
	"initcwnd", "initrwnd", "ssthresh", "reordering", "features", "quickack",
	"fastopen_no_cookie", "from", "tos", "dsfield", "error",
};
static const char *const route_flags[] = {
	"linkdown", "onlink", "dead", "offload", "trap", "notify", "pervasive", "rt_offload",
	"rt_trap", "rt_offload_failed", "cache",
};

/* @s, ip's show form of a key id (hex, "0x" allowed), as decimal in @out;
 * false when @s is not one (the grammar then names the bad word). */
static bool hex_keyid(const char *s, char *out, size_t outlen)
{
	unsigned int v = 0;      /* at most 8 hex digits: 32 bits */
	size_t i = 0, nd = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	for (; s[i]; i++, nd++) {
		int d = isdigit((unsigned char)s[i]) ? s[i] - '0' :
			isxdigit((unsigned char)s[i]) ? tolower((unsigned char)s[i]) - 'a' + 10 : -1;

		if (d < 0 || nd >= 8)
			return false;
		v = v * 16 + (unsigned int)d;
	}
	if (!nd || !v)
		return false;
	snprintf(out, outlen, "%u", v);
	return true;
}

static bool in_list(const char *w, const char *const *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(w, l[i]))
			return true;
	return false;
}

int srv6_import_line(const char *line, int family, char *out, size_t outlen, char *warn,
		     size_t warnlen)
{
	char buf[2048], segbuf[SRV6_MAX_SEGS * (INET6_ADDRSTRLEN + 1) + 1], keybuf[16];
	char *w[CONF_MAX_WORDS], *argv[CONF_MAX_WORDS + 2], *defpfx = NULL;
	struct errbuf e = { buf, 0 }, we = { warn, warnlen };
	char errmsg[SRV6_CONF_ERRLEN];
	int n, i = 0, argc = 0, encap = -1;
	bool local;

	if (warn && warnlen)
		warn[0] = '\0';
	if (out && outlen)
		out[0] = '\0';
	if (strlen(line) >= sizeof(buf)) {
		conf_seterr(&we, "line too long");
		return -EINVAL;
	}
	memcpy(buf, line, strlen(line) + 1);
	buf[strcspn(buf, "\n")] = '\0';
	n = conf_split_words(buf, w, &e);
	if (n < 0) {
		conf_seterr(&we, "too many words");
		return -EINVAL;
	}
	for (int k = 0; k + 1 < n; k++) {
		if (!strcmp(w[k], "encap") && (!strcmp(w[k + 1], "seg6local") || !strcmp(w[k + 1], "seg6"))) {
			encap = k;
			break;
		}
	}
	if (encap < 0)
		return 0;              /* not an SRv6 route */
	local = !strcmp(w[encap + 1], "seg6local");
	if (!strcmp(w[0], "unicast"))
		i = 1;
	if (i >= encap) {
		conf_seterr(&we, "no prefix before \"encap\"");
		return -EINVAL;
	}
	if (!strcmp(w[i], "default"))
		defpfx = family == AF_INET && !local ? "0.0.0.0/0" : "::/0";
	argv[argc++] = defpfx ? defpfx : w[i];
	/* words between the prefix and encap (from, tos...): not srv6d's */
	if (encap > i + 1)
		conf_seterr(&we, "%s %s ignored", w[i + 1], encap > i + 2 ? w[i + 2] : "");
	/* the encap's words, up to the route's own */
	for (i = encap + (local ? 2 : 0); i < n; i++) {
		if (!strcmp(w[i], "dev") || !strcmp(w[i], "via") || in_list(w[i], route_kws1,
			ARRAY_SIZE(route_kws1)) || in_list(w[i], route_flags, ARRAY_SIZE(route_flags)))
			break;
		if (!strcmp(w[i], "segs") && i + 2 < n && !strcmp(w[i + 2], "[")) {
			size_t o = 0;
			int k, end;
			bool insert = false;

			/* An SRH the kernel inserts (mode inline, End.B6) holds
			 * a placeholder for the original destination, shown as
			 * a last "::": not a segment of the conf's list. */
			for (int j = 0; j < argc; j++)
				if (!strcmp(argv[j], "inline") || !strcmp(argv[j], "End.B6"))
					insert = true;
			for (end = i + 3; end < n && strcmp(w[end], "]"); end++)
				;
			if (insert && end < n && end - 1 > i + 3 && !strcmp(w[end - 1], "::"))
				end--;
			for (k = i + 3; k < end; k++) {
				if (o + strlen(w[k]) + 2 > sizeof(segbuf)) {
					conf_seterr(&we, "segment list too long");
					return -EINVAL;
				}
				o += (size_t)snprintf(segbuf + o, sizeof(segbuf) - o, "%s%s", o ? "," : "", w[k]);
			}
			if (k == n) {
				conf_seterr(&we, "segment list without \"]\"");
				return -EINVAL;
			}
			while (strcmp(w[k], "]"))
				k++;
			if (local && !(argc > 1 && !strcmp(argv[argc - 1], "srh")))
				argv[argc++] = "srh";
			argv[argc++] = "segs";
			argv[argc++] = segbuf;
			i = k;
			continue;
		}
		if (argc >= CONF_MAX_WORDS) {
			conf_seterr(&we, "too many words");
			return -EINVAL;
		}
		if (!strcmp(w[i], "hmac") && i + 1 < n && hex_keyid(w[i + 1], keybuf, sizeof(keybuf))) {
			argv[argc++] = w[i++];
			argv[argc++] = keybuf;
			continue;
		}
		argv[argc++] = w[i];
	}
	/* the route's own words: dev kept (the kernel's meaning for the outer
	 * source), the rest dropped */
	for (; i < n; i++) {
		if (!strcmp(w[i], "dev") && i + 1 < n) {
			argv[argc++] = w[i];
			argv[argc++] = w[++i];
		} else if ((!strcmp(w[i], "table") || !strcmp(w[i], "via")) && i + 1 < n) {
			if (strcmp(w[i + 1], "main") && strcmp(w[i + 1], "254"))
				conf_seterr(&we, "route-level \"%s %s\" dropped (srv6d's %s no routing "
					    "table or next hop)", w[i], w[i + 1],
					    local ? "SIDs have" : "policies have");
			i++;
		} else if (in_list(w[i], route_kws1, ARRAY_SIZE(route_kws1))) {
			i++;
		} else if (!in_list(w[i], route_flags, ARRAY_SIZE(route_flags))) {
			conf_seterr(&we, "unknown route word \"%.40s\" dropped", w[i]);
		}
	}
	if (local) {
		struct in6_addr pfx;
		struct srv6_sid_cfg cfg;
		uint8_t plen;

		if (srv6_sid_parse_words(argc, argv, &pfx, &plen, &cfg, errmsg, sizeof(errmsg))) {
			conf_seterr(&we, "%s", errmsg);
			return -EINVAL;
		}
		return srv6_sid_format(out, outlen, &pfx, plen, &cfg) < 0 ? -ENOSPC : 1;
	} else {
		struct srv6_conf_route r;

		if (srv6_route_parse_words(argc, argv, &r, errmsg, sizeof(errmsg))) {
			conf_seterr(&we, "%s", errmsg);
			return -EINVAL;
		}
		return srv6_route_format(out, outlen, &r) < 0 ? -ENOSPC : 1;
	}
}
