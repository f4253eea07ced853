// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_seg6.c - the endpoint behaviors (src/core/seg6.c).
 *
 * Part 1 replays tests/unit/vectors/seg6.txt (written by gen_seg6.py with
 * scapy from the kernel's seg6_local.c/seg6_iptunnel.c semantics, an
 * encoder independent of this C code): one cmocka test per vector, bytes
 * compared exactly.  SRV6_VECTORS=path overrides the file.
 * Each vector the kernel ran in the kernel-oracle VM has its real output in
 * tests/unit/vectors/seg6-kernel.txt (recorded by test_seg6_vectors.sh
 * with SEG6_VECTORS_RECORD, the kernel release in its header): srv6d's
 * output, after the forwarding step the kernel's capture includes (hop
 * limit or TTL minus one), must equal those bytes too, except for a
 * vector with kout= (a documented deviation).
 * Part 2 covers what vectors cannot: tables, cfg_check, names, next-hop
 * context, headroom exhaustion, SL at each boundary, robustness.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vectors.h"

#include "srv6d/headend.h"
#include "srv6d/seg6.h"

#define BUFSZ (SRV6_PKT_HEADROOM + 4096)

/* ---- vector file ------------------------------------------------------ */

struct vec {
	char name[96];
	bool headend;
	struct srv6_sid_cfg cfg;
	struct srv6_policy pol;
	uint8_t inner;
	enum srv6_verdict verdict;
	bool has_icmp;
	struct srv6_icmp icmp;
	bool has_reason;
	enum srv6_drop reason;
	bool has_kout;
	uint8_t in[2048], out[2048];
	size_t in_len, out_len;
};

/* one line of seg6-kernel.txt: what the kernel sent for vector @name */
struct kvec {
	char name[96];
	uint8_t got[2048];
	size_t len;
	bool used;
};

static struct kvec *kvecs;
static size_t n_kvecs;
static char krelease[128];

static enum srv6_drop reason_of(const char *v)
{
	for (int r = 0; r < SRV6_DROP_MAX; r++)
		if (!strcmp(srv6_drop_name((enum srv6_drop)r), v))
			return (enum srv6_drop)r;
	fail_msg("unknown drop reason %s", v);
	return SRV6_DROP_MAX;
}

static void parse_segs(char *v, struct in6_addr *segs, unsigned int *n)
{
	char *save = NULL, *t;

	*n = 0;
	for (t = strtok_r(v, ",", &save); t && *n < SRV6_MAX_SEGS;
	     t = strtok_r(NULL, ",", &save))
		assert_int_equal(inet_pton(AF_INET6, t, &segs[(*n)++]), 1);
}

static enum srv6_verdict verdict_of(const char *v)
{
	if (!strcmp(v, "forward6"))
		return SRV6_V_FORWARD6;
	if (!strcmp(v, "forward4"))
		return SRV6_V_FORWARD4;
	if (!strcmp(v, "l2"))
		return SRV6_V_L2;
	if (!strcmp(v, "icmp"))
		return SRV6_V_ICMP;
	return SRV6_V_DROP;
}

static void parse_vec(char *line, struct vec *v)
{
	char *save = NULL, *tok, *val;
	struct srv6_sid_cfg *c = &v->cfg;

	memset(v, 0, sizeof(*v));
	c->mark = 0x6d000042;
	v->pol.mark = 0x6d000043;
	for (tok = strtok_r(line, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		val = strchr(tok, '=');
		assert_non_null(val);
		*val++ = 0;
		if (!strcmp(tok, "kind")) {
			v->headend = !strcmp(val, "headend");
		} else if (!strcmp(tok, "name")) {
			snprintf(v->name, sizeof(v->name), "%s", val);
		} else if (!strcmp(tok, "action")) {
			c->action = srv6_action_from_name(val);
			assert_int_not_equal(c->action, SRV6_ACT_UNSPEC);
		} else if (!strcmp(tok, "flavors")) {
			char *s2 = NULL, *f;

			c->attrs |= SRV6_F_ATTR(SRV6_ATTR_FLAVORS);
			for (f = strtok_r(val, ",", &s2); f;
			     f = strtok_r(NULL, ",", &s2)) {
				int fl = srv6_flavor_from_name(f);

				assert_true(fl >= 0);
				c->flavors |= SRV6_F_FLV(fl);
			}
		} else if (!strcmp(tok, "lblen")) {
			c->lblen = (uint8_t)atoi(val);
		} else if (!strcmp(tok, "nflen")) {
			c->nflen = (uint8_t)atoi(val);
		} else if (!strcmp(tok, "nh6")) {
			c->attrs |= SRV6_F_ATTR(SRV6_ATTR_NH6);
			assert_int_equal(inet_pton(AF_INET6, val, &c->nh6), 1);
		} else if (!strcmp(tok, "nh4")) {
			c->attrs |= SRV6_F_ATTR(SRV6_ATTR_NH4);
			assert_int_equal(inet_pton(AF_INET, val, &c->nh4), 1);
		} else if (!strcmp(tok, "table")) {
			c->attrs |= SRV6_F_ATTR(SRV6_ATTR_TABLE);
			c->table = (uint32_t)atoi(val);
		} else if (!strcmp(tok, "vrftable")) {
			c->attrs |= SRV6_F_ATTR(SRV6_ATTR_VRFTABLE);
			c->vrftable = (uint32_t)atoi(val);
		} else if (!strcmp(tok, "oif")) {
			c->attrs |= SRV6_F_ATTR(SRV6_ATTR_OIF);
			c->oif = atoi(val);
		} else if (!strcmp(tok, "segs")) {
			c->attrs |= SRV6_F_ATTR(SRV6_ATTR_SRH);
			parse_segs(val, c->segs, &c->nsegs);
			memcpy(v->pol.segs, c->segs, sizeof(c->segs));
			v->pol.nsegs = c->nsegs;
		} else if (!strcmp(tok, "src")) {
			assert_int_equal(inet_pton(AF_INET6, val,
						   &c->encap_src), 1);
			v->pol.encap_src = c->encap_src;
		} else if (!strcmp(tok, "flowlabel")) {
			c->flowlabel_mode = atoi(val);
			v->pol.flowlabel_mode = c->flowlabel_mode;
		} else if (!strcmp(tok, "mode")) {
			int m = srv6_mode_from_name(val);

			assert_true(m >= 0);
			v->pol.mode = (enum srv6_encap_mode)m;
		} else if (!strcmp(tok, "inner")) {
			v->inner = (uint8_t)atoi(val);
		} else if (!strcmp(tok, "verdict")) {
			v->verdict = verdict_of(val);
		} else if (!strcmp(tok, "icmp")) {
			unsigned int t, co, p;

			assert_int_equal(sscanf(val, "%u/%u/%u", &t, &co, &p),
					 3);
			v->has_icmp = true;
			v->icmp.type = (uint8_t)t;
			v->icmp.code = (uint8_t)co;
			v->icmp.pointer = p;
		} else if (!strcmp(tok, "reason")) {
			v->has_reason = true;
			v->reason = reason_of(val);
		} else if (!strcmp(tok, "in")) {
			v->in_len = vec_unhex(val, v->in, sizeof(v->in));
		} else if (!strcmp(tok, "kout")) {
			/* the kernel's (differing) output: net test only */
			v->has_kout = true;
		} else if (!strcmp(tok, "out")) {
			v->out_len = vec_unhex(val, v->out, sizeof(v->out));
		} else {
			fail_msg("unknown vector key %s", tok);
		}
	}
}

static void print_hex(const char *what, const uint8_t *p, size_t n)
{
	size_t i;

	fprintf(stderr, "%s (%zu):", what, n);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%02x", i % 32 ? "" : "\n  ", p[i]);
	fprintf(stderr, "\n");
}

/* the recorded kernel output of vector @name, or NULL */
static struct kvec *kernel_of(const char *name)
{
	for (size_t i = 0; i < n_kvecs; i++)
		if (!strcmp(kvecs[i].name, name))
			return &kvecs[i];
	return NULL;
}

/* The forwarding step after the behavior, which the kernel's capture at dst
 * includes: IPv6 hop limit, or IPv4 TTL (header checksum updated), minus
 * one; an End.DX2 frame goes out as it is. */
static void forward_step(enum srv6_verdict verdict, uint8_t *p, size_t n)
{
	if (verdict == SRV6_V_FORWARD6 && n >= 40) {
		p[7]--;
	} else if (verdict == SRV6_V_FORWARD4 && n >= 20) {
		size_t ihl = (size_t)(p[0] & 0xf) * 4, i;
		uint32_t sum = 0;

		p[8]--;
		p[10] = p[11] = 0;
		for (i = 0; i + 1 < ihl && i + 1 < n; i += 2)
			sum += (uint32_t)p[i] << 8 | p[i + 1];
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		p[10] = (uint8_t)(~sum >> 8);
		p[11] = (uint8_t)~sum;
	}
}

/* srv6d's output of vector @v against the kernel's recorded bytes, if any */
static void compare_kernel(const struct vec *v, const struct srv6_pkt *pkt,
			   enum srv6_verdict verdict)
{
	struct kvec *k = kernel_of(v->name);
	static uint8_t fw[2048];

	if (!k)
		return;
	if (v->has_kout)        /* a documented deviation: the net test checks it */
		return;
	if (verdict != SRV6_V_FORWARD6 && verdict != SRV6_V_FORWARD4 &&
	    verdict != SRV6_V_L2)
		fail_msg("%s: the kernel %s forwarded it, srv6d's verdict is %d",
			 v->name, krelease, verdict);
	assert_true(pkt->len <= sizeof(fw));
	memcpy(fw, pkt->data, pkt->len);
	forward_step(verdict, fw, pkt->len);
	if (pkt->len != k->len || memcmp(fw, k->got, k->len)) {
		print_hex("kernel", k->got, k->len);
		print_hex("srv6d, forwarded", fw, pkt->len);
		fail_msg("%s: differs from what the kernel %s sent", v->name, krelease);
	}
}

static void run_vector(void **state)
{
	struct vec *v = *state;
	static uint8_t buf[BUFSZ];
	struct srv6_result res;
	struct srv6_pkt pkt;
	const char *why = NULL;

	memset(buf, 0xa5, sizeof(buf));
	memcpy(buf + SRV6_PKT_HEADROOM, v->in, v->in_len);
	assert_int_equal(srv6_pkt_init(&pkt, buf, sizeof(buf),
				       SRV6_PKT_HEADROOM, v->in_len), 0);
	if (v->headend) {
		assert_int_equal(srv6_policy_check(&v->pol, &why), 0);
		assert_int_equal(srv6_headend_apply(&v->pol, v->inner, &pkt,
						    &res), 0);
	} else {
		if (srv6_sid_cfg_check(&v->cfg, &why))
			fail_msg("%s: cfg rejected: %s", v->name, why);
		assert_int_equal(srv6_sid_process(&v->cfg, &pkt, &res), 0);
	}
	if (res.verdict != v->verdict)
		fail_msg("%s: verdict %d, want %d (reason %s)", v->name,
			 res.verdict, v->verdict, srv6_drop_name(res.reason));
	/* every vector that does not forward names its drop reason */
	if (v->verdict == SRV6_V_ICMP || v->verdict == SRV6_V_DROP) {
		if (!v->has_reason)
			fail_msg("%s: vector has no reason=", v->name);
		if (res.reason != v->reason)
			fail_msg("%s: drop reason %s, want %s", v->name,
				 srv6_drop_name(res.reason), srv6_drop_name(v->reason));
	}
	if (v->has_icmp) {
		assert_int_equal(res.icmp.type, v->icmp.type);
		assert_int_equal(res.icmp.code, v->icmp.code);
		assert_int_equal(res.icmp.pointer, v->icmp.pointer);
	}
	if (pkt.len != v->out_len || memcmp(pkt.data, v->out, v->out_len)) {
		print_hex("want", v->out, v->out_len);
		print_hex("got", pkt.data, pkt.len);
		fail_msg("%s: bytes differ", v->name);
	}
	if (res.verdict == SRV6_V_FORWARD6 || res.verdict == SRV6_V_FORWARD4 ||
	    res.verdict == SRV6_V_L2) {
		assert_int_equal(res.reason, SRV6_DROP_NONE);
		assert_int_equal(res.nh.mark, v->headend ? v->pol.mark :
							   v->cfg.mark);
	}
	compare_kernel(v, &pkt, res.verdict);
}

/* SRV6_VECTORS names the directory of the vector files, as for test_srh. */
static const char *vectors_path(void)
{
	static char path[4096];
	const char *dir = getenv("SRV6_VECTORS");

	snprintf(path, sizeof(path), "%s/seg6.txt", dir && *dir ? dir : "tests/unit/vectors");
	return path;
}

/* Load seg6-kernel.txt from the vectors' directory (none: nothing to
 * compare, said on stderr).  Returns 0, or 1 on a malformed file. */
static int load_kernel(const char *dir)
{
	char path[4096], *line = NULL;
	size_t lcap = 0, cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/seg6-kernel.txt", dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "test_seg6: no %s: srv6d is compared with the vectors only\n", path);
		return 0;
	}
	while (getline(&line, &lcap, f) > 0) {
		char *p;

		if (line[0] == '#') {
			p = strstr(line, " on ");
			if (p && !krelease[0]) {
				snprintf(krelease, sizeof(krelease), "%s", p + 4);
				krelease[strcspn(krelease, "\n")] = 0;
			}
			continue;
		}
		if (line[0] == '\n')
			continue;
		if (n_kvecs == cap) {
			cap = cap ? cap * 2 : 64;
			kvecs = realloc(kvecs, cap * sizeof(*kvecs));
			if (!kvecs)
				abort();
		}
		struct kvec *k = &kvecs[n_kvecs];
		char name[96], hex[4200];

		memset(k, 0, sizeof(*k));
		if (sscanf(line, "name=%95s kgot=%4199s", name, hex) != 2) {
			fprintf(stderr, "test_seg6: %s: bad line: %s", path, line);
			free(line);
			fclose(f);
			return 1;
		}
		snprintf(k->name, sizeof(k->name), "%s", name);
		k->len = vec_unhex(hex, k->got, sizeof(k->got));
		n_kvecs++;
	}
	free(line);
	fclose(f);
	return 0;
}

/* every recorded kernel output belongs to a vector of seg6.txt (a renamed
 * or removed vector leaves a stale record: record the file again) */
static void test_kernel_records(void **state)
{
	(void)state;
	for (size_t i = 0; i < n_kvecs; i++)
		if (!kvecs[i].used)
			fail_msg("seg6-kernel.txt: %s matches no vector of seg6.txt", kvecs[i].name);
	fprintf(stderr, "test_seg6: %zu vectors compared with the kernel %s's own output\n",
		n_kvecs, krelease[0] ? krelease : "(none recorded)");
}

static int run_vectors(void)
{
	const char *path = vectors_path();
	struct CMUnitTest *tests = NULL;
	struct vec *vecs = NULL;
	size_t n = 0, cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	FILE *f;
	int rc;

	const char *dir = getenv("SRV6_VECTORS");

	if (load_kernel(dir && *dir ? dir : "tests/unit/vectors"))
		return 1;
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "test_seg6: cannot open %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	while (getline(&line, &lcap, f) > 0) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			vecs = realloc(vecs, cap * sizeof(*vecs));
			tests = realloc(tests, cap * sizeof(*tests));
			if (!vecs || !tests)
				abort();
		}
		parse_vec(line, &vecs[n]);
		n++;
	}
	free(line);
	fclose(f);
	for (size_t i = 0; i < n; i++) {
		struct kvec *k = kernel_of(vecs[i].name);

		if (k)
			k->used = true;
		memset(&tests[i], 0, sizeof(tests[i]));
		tests[i].name = vecs[i].name;
		tests[i].test_func = run_vector;
		tests[i].initial_state = &vecs[i];
	}
	if (n == 0) {
		fprintf(stderr, "test_seg6: no vectors in %s\n", path);
		return 1;
	}
	rc = _cmocka_run_group_tests("seg6_vectors", tests, n, NULL, NULL);
	if (n_kvecs) {
		const struct CMUnitTest k[] = { cmocka_unit_test(test_kernel_records) };

		rc |= cmocka_run_group_tests_name("seg6_kernel", k, NULL, NULL);
	}
	free(tests);
	free(vecs);
	free(kvecs);
	return rc;
}

/* ---- packet builders for part 2 --------------------------------------- */

struct tpkt {
	uint8_t buf[BUFSZ];
	struct srv6_pkt pkt;
	uint8_t orig[1024];
	size_t orig_len;
};

static void addr(struct in6_addr *a, const char *s)
{
	assert_int_equal(inet_pton(AF_INET6, s, a), 1);
}

/*
 * IPv6 (hop limit @hlim, DA = @da) + SRH with @nsegs segments (wire order
 * segs_wire[0..]), SL @sl, LE @le, next header 41 + a 40-byte inner IPv6
 * header + 8 bytes of payload.  @headroom bytes in front.
 */
static void build(struct tpkt *t, size_t headroom, uint8_t hlim,
		  const char *da, const char *const *segs_wire,
		  unsigned int nsegs, unsigned int sl, unsigned int le)
{
	uint8_t *p = t->buf + headroom;
	size_t srhlen = nsegs ? 8 + 16 * (size_t)nsegs : 0;
	size_t len = 40 + srhlen + 48, i;
	struct in6_addr a;

	memset(t->buf, 0, sizeof(t->buf));
	p[0] = 0x60;
	p[4] = (uint8_t)((len - 40) >> 8);
	p[5] = (uint8_t)(len - 40);
	p[6] = nsegs ? 43 : 41;
	p[7] = hlim;
	addr(&a, "2001:db8::99");
	memcpy(p + 8, &a, 16);
	addr(&a, da);
	memcpy(p + 24, &a, 16);
	if (nsegs) {
		p[40] = 41;
		p[41] = (uint8_t)(2 * nsegs);
		p[42] = 4;
		p[43] = (uint8_t)sl;
		p[44] = (uint8_t)le;
		for (i = 0; i < nsegs; i++) {
			addr(&a, segs_wire[i]);
			memcpy(p + 48 + 16 * i, &a, 16);
		}
	}
	p += 40 + srhlen;
	p[0] = 0x60;
	p[6] = 59;
	p[7] = 9;
	memset(p + 40, 0xee, 8);
	p[5] = 8;
	assert_int_equal(srv6_pkt_init(&t->pkt, t->buf, sizeof(t->buf),
				       headroom, len), 0);
	memcpy(t->orig, t->buf + headroom, len);
	t->orig_len = len;
}

static void assert_untouched(const struct tpkt *t)
{
	assert_int_equal(t->pkt.len, t->orig_len);
	assert_memory_equal(t->pkt.data, t->orig, t->orig_len);
}

static struct srv6_sid_cfg cfg_of(enum srv6_action act)
{
	struct srv6_sid_cfg c;

	memset(&c, 0, sizeof(c));
	c.action = act;
	return c;
}

static const char *const three[] = { "fc00::3", "fc00::2", "fc00::1" };

/* ---- part 2 tests ------------------------------------------------------ */

static void test_names(void **state)
{
	static const char *const acts[] = {
		"End", "End.X", "End.T", "End.DX2", "End.DX6", "End.DX4",
		"End.DT6", "End.DT4", "End.DT46", "End.B6", "End.B6.Encaps",
		"End.B6.Encaps.Red",
	};
	size_t i;
	int a;

	for (i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
		a = srv6_action_from_name(acts[i]);
		assert_int_not_equal(a, SRV6_ACT_UNSPEC);
		assert_string_equal(srv6_action_name(a), acts[i]);
		assert_non_null(srv6_action_desc_get(a));
		assert_int_equal(srv6_action_desc_get(a)->action, a);
	}
	/* kernel values */
	assert_int_equal(srv6_action_from_name("End.DT46"), 16);
	assert_int_equal(srv6_action_from_name("End.B6.Encaps"), 10);
	assert_int_equal(srv6_action_from_name("end"), SRV6_ACT_UNSPEC);
	assert_int_equal(srv6_action_from_name("End.DX5"), SRV6_ACT_UNSPEC);
	assert_int_equal(srv6_action_from_name("End."), SRV6_ACT_UNSPEC);
	assert_int_equal(srv6_action_from_name(""), SRV6_ACT_UNSPEC);
	assert_null(srv6_action_desc_get(SRV6_ACT_UNSPEC));
	assert_null(srv6_action_desc_get(11));
	assert_null(srv6_action_desc_get(SRV6_ACT_MAX));
	assert_null(srv6_action_desc_get((enum srv6_action)-1));
	assert_string_equal(srv6_action_name(12), "unknown");
	assert_false(srv6_action_desc_get(SRV6_ACT_END_B6_ENCAP_RED)->kernel);
	assert_true(srv6_action_desc_get(SRV6_ACT_END_DT46)->kernel);

	assert_string_equal(srv6_attr_name(SRV6_ATTR_SRH), "srh");
	assert_string_equal(srv6_attr_name(SRV6_ATTR_VRFTABLE), "vrftable");
	assert_string_equal(srv6_attr_name(SRV6_ATTR_FLAVORS), "flavors");
	assert_string_equal(srv6_attr_name(SRV6_ATTR_MAX), "unknown");
	assert_int_equal(srv6_flavor_from_name("psp"), SRV6_FLV_PSP);
	assert_int_equal(srv6_flavor_from_name("usp"), SRV6_FLV_USP);
	assert_int_equal(srv6_flavor_from_name("usd"), SRV6_FLV_USD);
	assert_int_equal(srv6_flavor_from_name("next-csid"),
			 SRV6_FLV_NEXT_CSID);
	assert_int_equal(srv6_flavor_from_name("PSP"), -1);
	assert_int_equal(srv6_flavor_from_name("nextcsid"), -1);
	assert_string_equal(srv6_flavor_name(SRV6_FLV_NEXT_CSID), "next-csid");
	assert_string_equal(srv6_drop_name(SRV6_DROP_SRH_INVALID),
			    "srh-invalid");
	assert_string_equal(srv6_drop_name(SRV6_DROP_NO_ROOM), "no-room");
	assert_string_equal(srv6_drop_name(SRV6_DROP_MAX), "unknown");
	for (a = 0; a < SRV6_DROP_MAX; a++)
		assert_non_null(srv6_drop_name(a));
	for (a = 0; a < SRV6_ACT_MAX; a++) {
		const struct srv6_action_desc *d = srv6_action_desc_get(a);

		if (!d)
			continue;
		/* required and optional are disjoint (the kernel's rule) */
		assert_int_equal(d->required_attrs & d->optional_attrs, 0);
		assert_int_equal(d->one_of_attrs & ~d->optional_attrs, 0);
		assert_non_null(d->input);
	}
}

static void expect_reject(struct srv6_sid_cfg *c, const char *substr)
{
	const char *why = NULL;

	assert_int_equal(srv6_sid_cfg_check(c, &why), -EINVAL);
	assert_non_null(why);
	if (!strstr(why, substr))
		fail_msg("reason \"%s\" lacks \"%s\"", why, substr);
}

static void expect_ok(struct srv6_sid_cfg *c)
{
	const char *why = NULL;

	if (srv6_sid_cfg_check(c, &why))
		fail_msg("rejected: %s", why);
}

static void test_cfg_check(void **state)
{
	struct srv6_sid_cfg c;
	unsigned int f;

	c = cfg_of(SRV6_ACT_END);
	expect_ok(&c);
	c = cfg_of(SRV6_ACT_UNSPEC);
	expect_reject(&c, "unknown action");
	c = cfg_of((enum srv6_action)11);
	expect_reject(&c, "unknown action");
	assert_int_equal(srv6_sid_cfg_check(NULL, NULL), -EINVAL);

	/* required */
	c = cfg_of(SRV6_ACT_END_X);
	expect_reject(&c, "\"nh6\"");
	c.attrs = SRV6_F_ATTR(SRV6_ATTR_NH6);
	expect_ok(&c);
	c.attrs |= SRV6_F_ATTR(SRV6_ATTR_OIF);
	expect_ok(&c);
	c.attrs |= SRV6_F_ATTR(SRV6_ATTR_TABLE);
	expect_reject(&c, "\"table\" not valid");
	c = cfg_of(SRV6_ACT_END_T);
	expect_reject(&c, "\"table\"");
	c = cfg_of(SRV6_ACT_END_DX2);
	expect_reject(&c, "\"oif\"");
	c = cfg_of(SRV6_ACT_END_DX4);
	expect_reject(&c, "\"nh4\"");
	c = cfg_of(SRV6_ACT_END_B6);
	expect_reject(&c, "\"srh\"");
	c.attrs = SRV6_F_ATTR(SRV6_ATTR_SRH);
	expect_reject(&c, "empty segment list");
	c.nsegs = SRV6_MAX_SEGS + 1;
	expect_reject(&c, "too many");
	c.nsegs = SRV6_MAX_SEGS;
	expect_ok(&c);
	c = cfg_of(SRV6_ACT_END);
	c.attrs = 1u << 20;
	expect_reject(&c, "unknown attribute");
	c = cfg_of(SRV6_ACT_END);
	c.attrs = SRV6_F_ATTR(SRV6_ATTR_NH4);
	expect_reject(&c, "\"nh4\" not valid");

	/* End.DT*: exactly one of table, vrftable */
	for (f = 0; f < 3; f++) {
		enum srv6_action a = f == 0 ? SRV6_ACT_END_DT6 :
				     f == 1 ? SRV6_ACT_END_DT4 :
					      SRV6_ACT_END_DT46;

		c = cfg_of(a);
		expect_reject(&c, "one of");
		c.attrs = SRV6_F_ATTR(SRV6_ATTR_TABLE);
		expect_ok(&c);
		c.attrs = SRV6_F_ATTR(SRV6_ATTR_VRFTABLE);
		expect_ok(&c);
		c.attrs |= SRV6_F_ATTR(SRV6_ATTR_TABLE);
		expect_reject(&c, "exclusive");
	}

	/* flavors: every PSP/USP/USD combination on End, End.X, End.T */
	for (f = 1; f < 8; f++) {
		c = cfg_of(SRV6_ACT_END);
		c.attrs = SRV6_F_ATTR(SRV6_ATTR_FLAVORS);
		c.flavors = f;
		expect_ok(&c);
		c.flavors |= SRV6_F_FLV(SRV6_FLV_NEXT_CSID);
		expect_ok(&c);
		c = cfg_of(SRV6_ACT_END_X);
		c.attrs = SRV6_F_ATTR(SRV6_ATTR_FLAVORS) |
			  SRV6_F_ATTR(SRV6_ATTR_NH6);
		c.flavors = f | SRV6_F_FLV(SRV6_FLV_NEXT_CSID);
		expect_ok(&c);
		c = cfg_of(SRV6_ACT_END_T);
		c.attrs = SRV6_F_ATTR(SRV6_ATTR_FLAVORS) |
			  SRV6_F_ATTR(SRV6_ATTR_TABLE);
		c.flavors = f;
		expect_ok(&c);
		c.flavors |= SRV6_F_FLV(SRV6_FLV_NEXT_CSID);
		expect_reject(&c, "\"next-csid\" not supported");
	}
	c = cfg_of(SRV6_ACT_END_DX6);
	c.attrs = SRV6_F_ATTR(SRV6_ATTR_NH6) | SRV6_F_ATTR(SRV6_ATTR_FLAVORS);
	c.flavors = SRV6_F_FLV(SRV6_FLV_PSP);
	expect_reject(&c, "\"flavors\" not valid");
	c = cfg_of(SRV6_ACT_END);
	c.attrs = SRV6_F_ATTR(SRV6_ATTR_FLAVORS);
	expect_reject(&c, "empty flavor");
	c.flavors = 1u << 9;
	expect_reject(&c, "unknown flavor");
	c = cfg_of(SRV6_ACT_END);
	c.flavors = SRV6_F_FLV(SRV6_FLV_PSP);
	expect_reject(&c, "without the flavors attribute");

	/* NEXT-C-SID lengths: the kernel's seg6_chk_next_csid_cfg() */
	c = cfg_of(SRV6_ACT_END);
	c.attrs = SRV6_F_ATTR(SRV6_ATTR_FLAVORS);
	c.flavors = SRV6_F_FLV(SRV6_FLV_NEXT_CSID);
	expect_ok(&c);          /* defaults 32/16 */
	c.lblen = 8; c.nflen = 8;
	expect_ok(&c);
	c.lblen = 120; c.nflen = 8;
	expect_ok(&c);
	c.lblen = 64; c.nflen = 64;
	expect_ok(&c);
	c.lblen = 72; c.nflen = 64;
	expect_reject(&c, "exceeds 128");
	c.lblen = 128; c.nflen = 8;
	expect_reject(&c, "lblen");
	c.lblen = 36; c.nflen = 16;
	expect_reject(&c, "lblen");
	c.lblen = 32; c.nflen = 12;
	expect_reject(&c, "nflen");
	c.lblen = 32; c.nflen = 128;
	expect_reject(&c, "nflen");
	c.lblen = 7; c.nflen = 16;
	expect_reject(&c, "lblen");
	c = cfg_of(SRV6_ACT_END);
	c.lblen = 32;
	expect_reject(&c, "next-csid");
}

/* End.X: the next-hop context is copied from the configuration. */
static void test_nh_context(void **state)
{
	struct tpkt *t = malloc(sizeof(*t));
	struct srv6_sid_cfg c = cfg_of(SRV6_ACT_END_X);
	struct srv6_result res;

	c.attrs = SRV6_F_ATTR(SRV6_ATTR_NH6) | SRV6_F_ATTR(SRV6_ATTR_OIF);
	addr(&c.nh6, "fe80::1");
	c.oif = 17;
	c.mark = 0x6d000005;
	build(t, 64, 64, "fc00::1", three, 3, 2, 2);
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	assert_int_equal(res.nh.mark, 0x6d000005);
	assert_int_equal(res.nh.oif, 17);
	assert_memory_equal(&res.nh.nh6, &c.nh6, 16);
	assert_int_equal(res.nh.table, 0);

	c = cfg_of(SRV6_ACT_END_T);
	c.attrs = SRV6_F_ATTR(SRV6_ATTR_TABLE);
	c.table = 254;
	build(t, 64, 64, "fc00::1", three, 3, 2, 2);
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	assert_int_equal(res.nh.table, 254);
	assert_int_equal(res.nh.oif, 0);

	c = cfg_of(SRV6_ACT_END_DT6);
	c.attrs = SRV6_F_ATTR(SRV6_ATTR_VRFTABLE);
	c.vrftable = 1000;
	build(t, 64, 64, "fc00::1", three, 3, 0, 2);
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	assert_int_equal(res.nh.table, 1000);
	assert_int_equal(t->pkt.len, 48);
	free(t);
}

/* A pending SID (degraded start) drops everything, untouched, as "pending";
 * the same SID completed forwards again. */
static void test_pending(void **state)
{
	struct tpkt *t = malloc(sizeof(*t));
	struct srv6_sid_cfg c = cfg_of(SRV6_ACT_END_X);
	struct srv6_result res;
	uint8_t before[256];
	size_t len;

	c.attrs = SRV6_F_ATTR(SRV6_ATTR_NH6) | SRV6_F_ATTR(SRV6_ATTR_OIF);
	addr(&c.nh6, "fe80::1");
	c.pending = true;
	build(t, 64, 64, "fc00::1", three, 3, 2, 2);
	len = t->pkt.len;
	memcpy(before, t->pkt.data, len);
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_DROP);
	assert_int_equal(res.reason, SRV6_DROP_PENDING);
	assert_string_equal(srv6_drop_name(SRV6_DROP_PENDING), "pending");
	assert_int_equal(t->pkt.len, len);
	assert_memory_equal(t->pkt.data, before, len);
	c.pending = false;
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	free(t);
}

/* Segments Left at every boundary: 0, 1, LE, LE + 1, LE + 2, 255. */
static void test_sl_boundaries(void **state)
{
	struct tpkt *t = malloc(sizeof(*t));
	struct srv6_sid_cfg end = cfg_of(SRV6_ACT_END);
	struct srv6_sid_cfg dt6 = cfg_of(SRV6_ACT_END_DT6);
	struct srv6_result res;
	struct in6_addr a;
	unsigned int sl;

	dt6.attrs = SRV6_F_ATTR(SRV6_ATTR_TABLE);
	for (sl = 0; sl <= 5; sl++) {
		unsigned int s = sl == 5 ? 255 : sl;

		/* LE = 2, three segments */
		build(t, 64, 64, "fc00::1", three, 3, s, 2);
		assert_int_equal(srv6_sid_process(&end, &t->pkt, &res), 0);
		if (s == 0) {
			/* upper layer 41 without USD: param problem code 4 */
			assert_int_equal(res.verdict, SRV6_V_ICMP);
			assert_int_equal(res.icmp.type, 4);
			assert_int_equal(res.icmp.code, 4);
			assert_int_equal(res.icmp.pointer, 40 + 56);
			assert_int_equal(res.reason, SRV6_DROP_SL_ZERO);
			assert_untouched(t);
		} else if (s <= 3) {
			/* 1, 2 (= LE), 3 (= LE + 1) are valid */
			assert_int_equal(res.verdict, SRV6_V_FORWARD6);
			assert_int_equal(t->pkt.data[43], s - 1);
			addr(&a, three[s - 1]);
			assert_memory_equal(t->pkt.data + 24, &a, 16);
		} else {
			assert_int_equal(res.verdict, SRV6_V_ICMP);
			assert_int_equal(res.icmp.type, 4);
			assert_int_equal(res.icmp.code, 0);
			assert_int_equal(res.icmp.pointer, 43);
			assert_int_equal(res.reason, SRV6_DROP_SRH_INVALID);
			assert_untouched(t);
		}

		build(t, 64, 64, "fc00::1", three, 3, s, 2);
		assert_int_equal(srv6_sid_process(&dt6, &t->pkt, &res), 0);
		if (s == 0) {
			assert_int_equal(res.verdict, SRV6_V_FORWARD6);
			assert_int_equal(t->pkt.len, 48);
			assert_int_equal(t->pkt.data[0], 0x60);
		} else {
			assert_int_equal(res.verdict, SRV6_V_ICMP);
			assert_int_equal(res.icmp.type, 4);
			assert_int_equal(res.icmp.code, 0);
			assert_int_equal(res.icmp.pointer, 43);
			assert_int_equal(res.reason, s <= 3 ?
					 SRV6_DROP_SL_NONZERO :
					 SRV6_DROP_SRH_INVALID);
			assert_untouched(t);
		}
	}
	free(t);
}

/* Headroom exhaustion: SRV6_DROP_NO_ROOM, packet as received. */
static void test_no_room(void **state)
{
	struct tpkt *t = malloc(sizeof(*t));
	struct srv6_sid_cfg c;
	struct srv6_result res;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		c = cfg_of(i == 0 ? SRV6_ACT_END_B6 :
			   i == 1 ? SRV6_ACT_END_B6_ENCAP :
				    SRV6_ACT_END_B6_ENCAP_RED);
		c.attrs = SRV6_F_ATTR(SRV6_ATTR_SRH);
		c.nsegs = 2;
		addr(&c.segs[0], "fc00:b::1");
		addr(&c.segs[1], "fc00:b::2");
		/* B6 inline needs 8 + 3 * 16 = 56; encap 40 + 8 + 32 = 80;
		 * .Red 40 + 8 + 16 = 64 */
		build(t, i == 0 ? 55 : i == 1 ? 79 : 63, 64, "fc00::1", three,
		      3, 2, 2);
		assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
		assert_int_equal(res.verdict, SRV6_V_DROP);
		assert_int_equal(res.reason, SRV6_DROP_NO_ROOM);
		assert_untouched(t);
		/* one more byte is enough */
		build(t, i == 0 ? 56 : i == 1 ? 80 : 64, 64, "fc00::1", three,
		      3, 2, 2);
		assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
		assert_int_equal(res.verdict, SRV6_V_FORWARD6);
		assert_ptr_equal(t->pkt.data, t->buf);
	}
	free(t);
}

/* Malformed input never crashes and is dropped with a reason. */
static void test_malformed(void **state)
{
	struct tpkt *t = malloc(sizeof(*t));
	struct srv6_sid_cfg c = cfg_of(SRV6_ACT_END);
	struct srv6_result res;
	size_t cut;

	/* every truncation of a valid packet */
	for (cut = 0; cut < 40 + 56 + 48; cut++) {
		build(t, 64, 64, "fc00::1", three, 3, 2, 2);
		t->pkt.len = cut;
		assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
		assert_int_equal(res.verdict, SRV6_V_DROP);
		assert_int_equal(res.reason, SRV6_DROP_MALFORMED);
		assert_int_equal(t->pkt.len, cut);
	}
	/* not IPv6 */
	build(t, 64, 64, "fc00::1", three, 3, 2, 2);
	t->pkt.data[0] = 0x45;
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(res.reason, SRV6_DROP_MALFORMED);
	/* unknown action */
	c = cfg_of((enum srv6_action)13);
	build(t, 64, 64, "fc00::1", three, 3, 2, 2);
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_DROP);
	assert_int_equal(res.reason, SRV6_DROP_UNSUPPORTED);
	assert_untouched(t);
	/* TLV overrun: LE 1 in an SRH of three slots leaves a 16-byte TLV
	 * area whose PadN claims 200 bytes: dropped, no ICMP specified */
	c = cfg_of(SRV6_ACT_END);
	build(t, 64, 64, "fc00::1", three, 3, 2, 1);
	t->pkt.data[40 + 40] = 4;
	t->pkt.data[40 + 41] = 200;
	memcpy(t->orig, t->pkt.data, t->orig_len);
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_DROP);
	assert_int_equal(res.reason, SRV6_DROP_SRH_INVALID);
	assert_untouched(t);
	/* the same TLV area as a valid PadN(14) is fine */
	t->pkt.data[40 + 41] = 14;
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	free(t);
}

/* Link-layer trailer past the Payload Length is not part of the packet. */
static void test_trailer(void **state)
{
	struct tpkt *t = malloc(sizeof(*t));
	struct srv6_sid_cfg c = cfg_of(SRV6_ACT_END_DT6);
	struct srv6_result res;

	c.attrs = SRV6_F_ATTR(SRV6_ATTR_TABLE);
	build(t, 64, 64, "fc00::1", three, 3, 0, 2);
	t->pkt.len += 6;        /* Ethernet padding */
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	assert_int_equal(t->pkt.len, 48);
	/* on an error the length is left as received */
	build(t, 64, 64, "fc00::1", three, 3, 1, 2);
	t->pkt.len += 6;
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_ICMP);
	assert_int_equal(t->pkt.len, t->orig_len + 6);
	free(t);
}

/* PSP at SL 2 keeps the SRH; End without PSP at SL 1 keeps it too. */
static void test_psp_only_penultimate(void **state)
{
	struct tpkt *t = malloc(sizeof(*t));
	struct srv6_sid_cfg c = cfg_of(SRV6_ACT_END);
	struct srv6_result res;

	c.attrs = SRV6_F_ATTR(SRV6_ATTR_FLAVORS);
	c.flavors = SRV6_F_FLV(SRV6_FLV_PSP);
	build(t, 64, 64, "fc00::1", three, 3, 1, 2);
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(res.verdict, SRV6_V_FORWARD6);
	assert_int_equal(t->pkt.len, 40 + 48);
	assert_int_equal(t->pkt.data[6], 41);
	assert_int_equal(t->pkt.data[5], 48);
	assert_ptr_equal(t->pkt.data, t->buf + 64 + 56);
	c.flavors = SRV6_F_FLV(SRV6_FLV_USP);
	build(t, 64, 64, "fc00::1", three, 3, 1, 2);
	assert_int_equal(srv6_sid_process(&c, &t->pkt, &res), 0);
	assert_int_equal(t->pkt.len, 40 + 56 + 48);
	assert_int_equal(t->pkt.data[43], 0);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_cfg_check),
		cmocka_unit_test(test_nh_context),
		cmocka_unit_test(test_pending),
		cmocka_unit_test(test_sl_boundaries),
		cmocka_unit_test(test_no_room),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_trailer),
		cmocka_unit_test(test_psp_only_penultimate),
	};
	int rc = cmocka_run_group_tests_name("seg6", tests, NULL, NULL);

	return rc | run_vectors();
}
