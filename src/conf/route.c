// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * route.c - the words of a "route" line (a headend policy: srv6d.conf,
 * srv6ctl route add): parse, print, compare.  Pure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_int.h"
#include "srv6d/hmac_conf.h"   /* hmac hook */

/* ---------------------------------------------------------------------- */
/* policies                                                               */

int srv6_route_parse_words(int argc, char **argv, struct srv6_conf_route *r,
			   char *err, size_t errlen)
{
	struct errbuf e = { err, errlen };
	bool seen_encap = false, seen_mode = false, seen_segs = false;
	bool seen_dev = false, seen_count = false, seen_hmac = false;
	char warn[SRV6_CONF_ERRLEN] = "";
	struct errbuf w_e = { warn, sizeof(warn) };
	unsigned int seen_rl = 0;
	const char *why = NULL;
	struct qtok qb;
	int i, rc;

	memset(r, 0, sizeof(*r));
	if (err && errlen)
		err[0] = '\0';
	if (argc < 1) {
		conf_seterr(&e, "missing prefix after \"route\"");
		return -EINVAL;
	}
	r->family = strchr(argv[0], ':') ? AF_INET6 : AF_INET;
	rc = conf_parse_prefix(r->family, argv[0], &r->prefix, &r->plen);
	if (rc != PFX_OK)
		return conf_prefix_err(rc, "route", argv[0], &e);
	if (conf_prefix_multicast(r->family, &r->prefix, "route", argv[0], &e))
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
		else if (!strcmp(w, "metric"))        /* a policy is a route: its metric */
			seen = &r->has_metric;
		else if (!strcmp(w, "table")) {
			conf_seterr(&e, "route-level \"table\" is not supported (srv6d's policies "
				    "are not per routing table)");
			return -EINVAL;
		} else if ((rc = conf_route_level_word(argc - i, argv + i, &seen_rl, &e, &w_e))) {
			if (rc < 0)
				return -EINVAL;
			i += rc;
			continue;
		} else {
			conf_seterr(&e, "unknown keyword %s", conf_q(&qb, w));
			return -EINVAL;
		}
		if (*seen) {
			conf_seterr(&e, "duplicate %s", conf_q(&qb, w));
			return -EINVAL;
		}
		*seen = true;
		if (seen == &seen_count) {
			i++;
			continue;
		}
		if (conf_need_arg(argc - i, argv + i, &e))
			return -EINVAL;
		if (seen == &seen_encap) {
			if (strcmp(argv[i + 1], "seg6")) {
				conf_seterr(&e, "expected \"seg6\" after \"encap\", got %s",
				       conf_q(&qb, argv[i + 1]));
				return -EINVAL;
			}
		} else if (seen == &seen_mode) {
			int m = srv6_mode_from_name(argv[i + 1]);

			if (m < 0 || m >= SRV6_MODE_MAX) {
				conf_seterr(&e, "unknown mode %s", conf_q(&qb, argv[i + 1]));
				return -EINVAL;
			}
			r->pol.mode = (enum srv6_encap_mode)m;
		} else if (seen == &seen_segs) {
			if (conf_parse_seglist(argv[i + 1], r->pol.segs, &r->pol.nsegs, &e))
				return -EINVAL;
		} else if (seen == &seen_dev) {
			if (!conf_ifname_valid(argv[i + 1])) {
				conf_seterr(&e, "bad interface name %s for dev", conf_q(&qb, argv[i + 1]));
				return -EINVAL;
			}
			snprintf(r->pol.dev_name, sizeof(r->pol.dev_name), "%s", argv[i + 1]);
		} else if (seen == &r->has_metric) {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(argv[i + 1], &end, 0);
			/* 0xffff0000 and above: fail-open blackholes (fallback.h) */
			if (errno || end == argv[i + 1] || *end || argv[i + 1][0] == '-' ||
			    v >= 0xffff0000ull) {
				conf_seterr(&e, "bad metric %s (0-4294901759)", conf_q(&qb, argv[i + 1]));
				return -EINVAL;
			}
			r->metric = (uint32_t)v;
			/* the kernel turns an IPv6 metric 0 into 1024 */
			if (r->family == AF_INET6 && !r->metric)
				r->metric = 1024;
		} else if (seen == &seen_hmac) {      /* hmac hook */
			if (srv6_hmac_parse_keyid(argv[i + 1], &r->pol.hmac_keyid, e.buf, e.len))
				return -EINVAL;
		}
		i += 2;
	}
	if (!seen_encap) {
		conf_seterr(&e, "route requires \"encap seg6\"");
		return -EINVAL;
	}
	if (!seen_mode) {
		conf_seterr(&e, "route requires mode");
		return -EINVAL;
	}
	if (!seen_segs) {
		conf_seterr(&e, "route requires segs");
		return -EINVAL;
	}
	/* NFQUEUE hands srv6d the IP packet without its Ethernet header, so an
	 * L2 mode on a route would encapsulate nothing: refuse it here rather
	 * than drop every packet at run time. */
	if (r->pol.mode == SRV6_MODE_L2ENCAP || r->pol.mode == SRV6_MODE_L2ENCAP_RED) {
		conf_seterr(&e, "mode %s is not supported on routes (NFQUEUE carries no Ethernet header)",
		       conf_q(&qb, srv6_mode_name(r->pol.mode)));
		return -EINVAL;
	}
	if (r->family == AF_INET && r->pol.mode == SRV6_MODE_INLINE) {
		conf_seterr(&e, "mode inline needs an IPv6 prefix, not %s", conf_q(&qb, argv[0]));
		return -EINVAL;
	}
	if (srv6_policy_check(&r->pol, &why)) {
		conf_seterr(&e, "invalid policy: %s", why ? why : "rejected");
		return -EINVAL;
	}
	if (warn[0])
		conf_seterr(&e, "%s", warn);
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
	struct srv6_sbuf s = SRV6_SB_FIXED(buf, len);
	const char *mode;

	if (len)
		buf[0] = '\0';
	if ((r->family != AF_INET6 && r->family != AF_INET) ||
	    (unsigned int)r->pol.mode >= SRV6_MODE_MAX || r->pol.nsegs > SRV6_MAX_SEGS)
		return -EINVAL;
	mode = srv6_mode_name(r->pol.mode);
	srv6_sb_printf(&s, "route ");
	conf_put_prefix(&s, r->family, &r->prefix, r->plen);
	srv6_sb_printf(&s, " encap seg6 mode %s segs ", mode);
	conf_sb_segs(&s, r->pol.segs, r->pol.nsegs);
	if (r->pol.dev_name[0])
		srv6_sb_printf(&s, " dev %.*s", (int)sizeof(r->pol.dev_name), r->pol.dev_name);
	if (r->pol.hmac_keyid)                    /* hmac hook */
		srv6_sb_printf(&s, " hmac %u", r->pol.hmac_keyid);
	if (r->has_metric)
		srv6_sb_printf(&s, " metric %u", r->metric);
	return srv6_sb_done(&s);
}

