// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_conf.c - libFuzzer target for the srv6d.conf parser.
 *
 * Parses the input as a whole file; on success, every SID and route must
 * print (srv6_sid_format/srv6_route_format) to a line that parses back to
 * an equal configuration and prints identically again: any difference
 * aborts.  On failure the message must be one line starting "fuzz.conf:".
 * Includes the grammar sources (as wireguard-tools' fuzzers include config.c) to reach
 * its static word splitter.
 */
#include "../../src/conf/sbuf.c"
#include "../../src/conf/util.c"
#include "../../src/conf/sid.c"
#include "../../src/conf/route.c"
#include "../../src/conf/file.c"
#include "../../src/conf/rttables.c"
#include "../../src/conf/queue.c"
#include "../../src/conf/hmac_conf.c"
#include "../../src/conf/errbuf.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_sid(const struct srv6_conf_sid *s)
{
	char line[SRV6_CONF_LINE_MAX], again[SRV6_CONF_LINE_MAX], err[SRV6_CONF_ERRLEN];
	char *argv[CONF_MAX_WORDS];
	struct srv6_sid_cfg cfg;
	struct in6_addr pfx;
	struct errbuf e = { err, sizeof(err) };
	uint8_t plen;
	int n, argc;

	n = srv6_sid_format(line, sizeof(line), &s->prefix, s->plen, &s->cfg);
	if (n < 0 || (size_t)n >= sizeof(line))
		abort();
	memcpy(again, line, (size_t)n + 1);
	argc = conf_split_words(again, argv, &e);
	if (argc < 2 || strcmp(argv[0], "sid"))
		abort();
	if (srv6_sid_parse_words(argc - 1, argv + 1, &pfx, &plen, &cfg, err, sizeof(err)))
		abort();
	if (plen != s->plen || memcmp(&pfx, &s->prefix, sizeof(pfx)) ||
	    !srv6_sid_cfg_equal(&cfg, &s->cfg))
		abort();
	if (srv6_sid_format(again, sizeof(again), &pfx, plen, &cfg) != n || strcmp(line, again))
		abort();
	/* a too-small buffer is reported, never overrun */
	if (srv6_sid_format(again, (size_t)n, &pfx, plen, &cfg) != -ENOSPC ||
	    strlen(again) != (size_t)n - 1)
		abort();
}

static void check_route(const struct srv6_conf_route *r)
{
	char line[SRV6_CONF_LINE_MAX], again[SRV6_CONF_LINE_MAX], err[SRV6_CONF_ERRLEN];
	char *argv[CONF_MAX_WORDS];
	struct srv6_conf_route r2;
	struct errbuf e = { err, sizeof(err) };
	int n, argc;

	n = srv6_route_format(line, sizeof(line), r);
	if (n < 0)
		abort();
	memcpy(again, line, (size_t)n + 1);
	argc = conf_split_words(again, argv, &e);
	if (argc < 2 || strcmp(argv[0], "route"))
		abort();
	if (srv6_route_parse_words(argc - 1, argv + 1, &r2, err, sizeof(err)))
		abort();
	if (r2.family != r->family || r2.plen != r->plen ||
	    memcmp(&r2.prefix, &r->prefix, r->family == AF_INET6 ? 16 : 4) ||
	    !srv6_policy_equal(&r2.pol, &r->pol))
		abort();
	if (srv6_route_format(again, sizeof(again), &r2) != n || strcmp(line, again))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c;
	char *text;
	size_t i;
	int rc;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	rc = srv6_conf_parse_string(&c, "fuzz.conf", text, err, sizeof(err));
	if (rc == 0) {
		if (c.queue_last < c.queue_first ||
		    srv6_conf_nqueues(&c) > SRV6_CONF_MAX_QUEUES ||
		    (c.ncpus && (unsigned int)c.ncpus != srv6_conf_nqueues(&c)))
			abort();
		for (i = 0; i < c.nsids; i++)
			check_sid(&c.sids[i]);
		for (i = 0; i < c.nroutes; i++)
			check_route(&c.routes[i]);
	} else {
		if (strncmp(err, "fuzz.conf:", 10) || strchr(err, '\n') || c.sids || c.routes)
			abort();
		for (i = 0; err[i]; i++)
			if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] >= 0x7f)
				abort();
	}
	srv6_conf_free(&c);
	free(text);
	return 0;
}
