// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_ctl.c - libFuzzer target for what srv6d and srv6ctl read from
 * outside: the control socket's request parser (srv6_ctl_parse), the
 * kernel's queue counters (srv6_nfq_proc_find) and import's ip-route-show
 * lines (srv6_import_line).  Besides memory safety (ASan+UBSan) it checks:
 *   - a request parses only when it fits SRV6_CTL_REQ_MAX, and then into a
 *     row of the table with an argument count the row allows, every word
 *     non-empty printable ASCII without blanks;
 *   - an error is exactly one printable line;
 *   - what import prints parses back as a conf line (the round trip the
 *     conf fuzzer checks from there on).
 * Includes the grammar sources (as fuzz_conf does), ctl.c and hmac_conf.c.
 */
#include "../../src/conf/sbuf.c"
#include "../../src/conf/util.c"
#include "../../src/conf/sid.c"
#include "../../src/conf/route.c"
#include "../../src/conf/file.c"
#include "../../src/conf/rttables.c"
#include "../../src/conf/queue.c"
#include "../../src/conf/import.c"
#include "../../src/control/ctl.c"
#include "../../src/datapath/nfqstat.c"
#include "../../src/conf/hmac_conf.c"   /* hmac KEYID words */
#include "../../src/conf/errbuf.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void check_msg(const char *m)
{
	CHECK(m[0]);
	for (; *m; m++)
		CHECK(*m >= 0x20 && *m < 0x7f);
}

static void fuzz_request(const uint8_t *data, size_t size, bool local)
{
	char *buf = malloc(size + 1), err[SRV6_CTL_ERRLEN];
	struct srv6_ctl_req req;
	int rc;

	if (!buf)
		return;
	memcpy(buf, data, size);
	buf[size] = '\0';
	rc = srv6_ctl_parse(buf, size, local, &req, err, sizeof(err));
	if (rc == 0) {
		CHECK(size <= SRV6_CTL_REQ_MAX);
		CHECK(req.cmd);
		CHECK((unsigned int)req.argc >= req.cmd->min_args &&
		      (unsigned int)req.argc <= req.cmd->max_args);
		CHECK(local || !(req.cmd->flags & SRV6_CTL_F_LOCAL));
		CHECK(!req.json || (req.cmd->flags & SRV6_CTL_F_JSON));
		for (int i = 0; i < req.argc; i++) {
			CHECK(req.argv[i] >= buf && req.argv[i] < buf + size);
			CHECK(req.argv[i][0]);
			for (const char *p = req.argv[i]; *p; p++)
				CHECK(*p > 0x20 && *p < 0x7f);
		}
	} else {
		CHECK(rc == -EINVAL || rc == -E2BIG);
		CHECK(!req.cmd);
		check_msg(err);
	}
	free(buf);
}

static void fuzz_import(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), out[SRV6_CONF_LINE_MAX], warn[SRV6_CONF_ERRLEN];
	char *argv[CONF_MAX_WORDS], err[SRV6_CONF_ERRLEN];
	struct errbuf e = { err, sizeof(err) };
	int rc, argc;

	if (!line)
		return;
	memcpy(line, data, size);
	line[size] = '\0';
	rc = srv6_import_line(line, size & 1 ? AF_INET : AF_INET6, out, sizeof(out), warn,
			      sizeof(warn));
	if (rc == 1) {
		struct srv6_conf_route r;
		struct srv6_sid_cfg cfg;
		struct in6_addr pfx;
		uint8_t plen;

		argc = conf_split_words(out, argv, &e);
		CHECK(argc >= 2);
		if (!strcmp(argv[0], "sid"))
			CHECK(!srv6_sid_parse_words(argc - 1, argv + 1, &pfx, &plen, &cfg, err,
						    sizeof(err)));
		else
			CHECK(!strcmp(argv[0], "route") &&
			      !srv6_route_parse_words(argc - 1, argv + 1, &r, err, sizeof(err)));
	} else if (rc < 0) {
		CHECK(rc == -EINVAL || rc == -ENOSPC);
	} else {
		CHECK(rc == 0 && !out[0]);
	}
	free(line);
}

static void fuzz_proc(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct srv6_nfq_kstats k;

	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)srv6_nfq_proc_find(text, size ? data[0] : 0, &k);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_request(data, size, false);
	fuzz_request(data, size, true);
	fuzz_import(data, size);
	fuzz_proc(data, size);
	return 0;
}
