// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hmac_conf.c - `hmac` lines of srv6d.conf, secret files, and binding the
 * keys to SIDs and policies.  See hmac_conf.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "srv6d/conf.h"
#include "srv6d/errbuf.h"
#include "srv6d/hmac_conf.h"

#define TOK_MAX 64

/* @tok quoted for a message, control bytes escaped, cut at TOK_MAX. */
static const char *quote(char *out, size_t outlen, const char *tok)
{
	out[0] = '"';
	srv6_escape_into(out + 1, outlen - 2, tok, TOK_MAX);
	strcat(out, "\"");
	return out;
}

int srv6_hmac_parse_keyid(const char *s, uint32_t *id, char *err, size_t errlen)
{
	char qb[TOK_MAX * 4 + 8];
	unsigned long long v = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 10)
			break;
		v = v * 10 + (unsigned long long)(s[i] - '0');
	}
	if (i == 0 || s[i] || (s[0] == '0' && i > 1) || v == 0 || v > UINT32_MAX) {
		srv6_seterr(err, errlen, "bad hmac key id %s (1..4294967295)",
			    quote(qb, sizeof(qb), s));
		return -EINVAL;
	}
	*id = (uint32_t)v;
	return 0;
}

static int parse_mode(const char *s)
{
	if (!strcmp(s, "require"))
		return SRV6_HMAC_REQUIRE;
	if (!strcmp(s, "verify"))
		return SRV6_HMAC_VERIFY;
	if (!strcmp(s, "ignore"))
		return SRV6_HMAC_IGNORE;
	return -2;
}

static bool ifname_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= IF_NAMESIZE || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || (unsigned char)s[i] <= ' ' ||
		    (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* hmac key ID algo A secret-file PATH (algo and secret-file in any order) */
static int key_line(struct srv6_hmac_set *set, int argc, char **argv, unsigned int line,
		    char *err, size_t errlen)
{
	struct srv6_hmac_key k;
	const struct srv6_hmac_key *old;
	char qb[TOK_MAX * 4 + 8];
	const char *path = NULL;
	int algo = -1;

	memset(&k, 0, sizeof(k));
	if (argc < 3) {
		srv6_seterr(err, errlen, "missing key id after \"hmac key\"");
		return -EINVAL;
	}
	if (srv6_hmac_parse_keyid(argv[2], &k.id, err, errlen))
		return -EINVAL;
	for (int i = 3; i < argc; i += 2) {
		if (strcmp(argv[i], "algo") && strcmp(argv[i], "secret-file")) {
			srv6_seterr(err, errlen, "unknown keyword %s", quote(qb, sizeof(qb), argv[i]));
			return -EINVAL;
		}
		if (i + 1 >= argc) {
			srv6_seterr(err, errlen, "missing value after \"%s\"", argv[i]);
			return -EINVAL;
		}
		if (!strcmp(argv[i], "algo")) {
			if (algo >= 0) {
				srv6_seterr(err, errlen, "duplicate \"algo\"");
				return -EINVAL;
			}
			algo = srv6_hmac_algo_from_name(argv[i + 1]);
			if (algo < 0) {
				srv6_seterr(err, errlen, "unknown hmac algo %s (sha1, sha256)",
					    quote(qb, sizeof(qb), argv[i + 1]));
				return -EINVAL;
			}
		} else {
			if (path) {
				srv6_seterr(err, errlen, "duplicate \"secret-file\"");
				return -EINVAL;
			}
			path = argv[i + 1];
		}
	}
	if (algo < 0 || !path) {
		srv6_seterr(err, errlen, "hmac key %u needs %s", k.id,
			    algo < 0 ? "\"algo sha1|sha256\"" : "\"secret-file PATH\"");
		return -EINVAL;
	}
	old = srv6_hmac_key_find(set, k.id);
	if (old) {
		srv6_seterr(err, errlen, "duplicate hmac key %u (first at line %u)", k.id, old->line);
		return -EINVAL;
	}
	if (set->nkeys >= SRV6_HMAC_MAX_KEYS) {
		srv6_seterr(err, errlen, "more than %d hmac keys", SRV6_HMAC_MAX_KEYS);
		return -EINVAL;
	}
	k.algo = (uint8_t)algo;
	k.line = line;
	k.path = strdup(path);
	if (!k.path) {
		srv6_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	set->keys[set->nkeys++] = k;
	return 0;
}

/* hmac require|verify|ignore [dev IF] */
static int mode_line(struct srv6_hmac_set *set, int argc, char **argv, char *err,
		     size_t errlen)
{
	char qb[TOK_MAX * 4 + 8];
	int mode = parse_mode(argv[1]);

	if (mode < -1) {
		srv6_seterr(err, errlen, "unknown hmac word %s (key, require, verify, ignore)",
			    quote(qb, sizeof(qb), argv[1]));
		return -EINVAL;
	}
	if (argc == 2) {
		if (set->has_mode) {
			srv6_seterr(err, errlen, "duplicate global hmac mode");
			return -EINVAL;
		}
		set->has_mode = true;
		set->mode = mode;
		return 0;
	}
	if (strcmp(argv[2], "dev")) {
		srv6_seterr(err, errlen, "unexpected %s after \"hmac %s\" (dev IFNAME)",
			    quote(qb, sizeof(qb), argv[2]), argv[1]);
		return -EINVAL;
	}
	if (argc < 4) {
		srv6_seterr(err, errlen, "missing value after \"dev\"");
		return -EINVAL;
	}
	if (argc > 4) {
		srv6_seterr(err, errlen, "unexpected %s", quote(qb, sizeof(qb), argv[4]));
		return -EINVAL;
	}
	if (!ifname_ok(argv[3])) {
		srv6_seterr(err, errlen, "bad interface name %s for dev", quote(qb, sizeof(qb), argv[3]));
		return -EINVAL;
	}
	for (unsigned int i = 0; i < set->nifs; i++)
		if (!strcmp(set->ifs[i].name, argv[3])) {
			srv6_seterr(err, errlen, "duplicate hmac mode for dev %s",
				    quote(qb, sizeof(qb), argv[3]));
			return -EINVAL;
		}
	if (set->nifs >= SRV6_HMAC_MAX_IFS) {
		srv6_seterr(err, errlen, "more than %d hmac dev lines", SRV6_HMAC_MAX_IFS);
		return -EINVAL;
	}
	snprintf(set->ifs[set->nifs].name, IF_NAMESIZE, "%s", argv[3]);
	set->ifs[set->nifs].mode = mode;
	set->ifs[set->nifs].ifindex = 0;
	set->nifs++;
	return 0;
}

int srv6_hmac_conf_line(struct srv6_hmac_set **setp, int argc, char **argv, unsigned int line,
			char *err, size_t errlen)
{
	if (argc < 2) {
		srv6_seterr(err, errlen, "missing value after \"hmac\"");
		return -EINVAL;
	}
	if (!*setp) {
		*setp = calloc(1, sizeof(**setp));
		if (!*setp) {
			srv6_seterr(err, errlen, "out of memory");
			return -ENOMEM;
		}
		(*setp)->mode = SRV6_HMAC_VERIFY;
	}
	if (!strcmp(argv[1], "key"))
		return key_line(*setp, argc, argv, line, err, errlen);
	return mode_line(*setp, argc, argv, err, errlen);
}

static bool action_signs(enum srv6_action a)
{
	return a == SRV6_ACT_END_B6 || a == SRV6_ACT_END_B6_ENCAP ||
	       a == SRV6_ACT_END_B6_ENCAP_RED;
}

int srv6_hmac_conf_finish(const struct srv6_conf *c, unsigned int *line, char *err,
			  size_t errlen)
{
	for (size_t i = 0; i < c->nsids; i++) {
		const struct srv6_sid_cfg *cfg = &c->sids[i].cfg;
		unsigned int entries;

		if (!cfg->hmac_keyid)
			continue;
		*line = c->sids[i].line;
		if (!action_signs(cfg->action)) {
			srv6_seterr(err, errlen, "hmac: %s does not push an SRH",
				    srv6_action_name(cfg->action));
			return -EINVAL;
		}
		if (!srv6_hmac_key_find(c->hmac, cfg->hmac_keyid)) {
			srv6_seterr(err, errlen, "hmac key %u is not defined", cfg->hmac_keyid);
			return -EINVAL;
		}
		entries = cfg->nsegs + (cfg->action == SRV6_ACT_END_B6 ? 1 : 0) -
			  (cfg->action == SRV6_ACT_END_B6_ENCAP_RED && cfg->nsegs > 1 ? 1 : 0);
		if (entries > SRV6_HMAC_MAX_ENTRIES) {
			srv6_seterr(err, errlen, "hmac: at most %d SRH entries can be signed, "
				    "this SRH has %u", SRV6_HMAC_MAX_ENTRIES, entries);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < c->nroutes; i++) {
		const struct srv6_policy *pol = &c->routes[i].pol;
		unsigned int entries;

		if (!pol->hmac_keyid)
			continue;
		*line = c->routes[i].line;
		if (!srv6_hmac_key_find(c->hmac, pol->hmac_keyid)) {
			srv6_seterr(err, errlen, "hmac key %u is not defined", pol->hmac_keyid);
			return -EINVAL;
		}
		entries = pol->nsegs + (pol->mode == SRV6_MODE_INLINE ? 1 : 0) -
			  ((pol->mode == SRV6_MODE_ENCAP_RED || pol->mode == SRV6_MODE_L2ENCAP_RED) &&
			   pol->nsegs > 1 ? 1 : 0);
		if (entries > SRV6_HMAC_MAX_ENTRIES) {
			srv6_seterr(err, errlen, "hmac: at most %d SRH entries can be signed, "
				    "this SRH has %u", SRV6_HMAC_MAX_ENTRIES, entries);
			return -EINVAL;
		}
	}
	return 0;
}

int srv6_hmac_key_load(struct srv6_hmac_key *k, char *err, size_t errlen)
{
	uint8_t buf[SRV6_HMAC_SECRET_MAX + 2];
	struct stat st;
	ssize_t n;
	size_t len = 0;
	int fd, r;

	fd = open(k->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		srv6_seterr(err, errlen, "%s: %s", k->path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		srv6_seterr(err, errlen, "%s: %s", k->path, strerror(-r));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		srv6_seterr(err, errlen, "%s: not a regular file", k->path);
		r = -EINVAL;
		goto out_close;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		srv6_seterr(err, errlen, "%s: group- or world-accessible (mode %04o), "
			    "refusing the secret (chmod 600)", k->path,
			    (unsigned int)(st.st_mode & 07777));
		r = -EPERM;
		goto out_close;
	}
	/* one byte more than a 64-byte secret plus its newline tells "too long" */
	while (len < sizeof(buf)) {
		n = read(fd, buf + len, sizeof(buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			srv6_seterr(err, errlen, "%s: %s", k->path, strerror(-r));
			goto out_wipe;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len == sizeof(buf) && buf[len - 1] != '\n') {
		srv6_seterr(err, errlen, "%s: the secret is longer than %d bytes", k->path,
			    SRV6_HMAC_SECRET_MAX);
		r = -EINVAL;
		goto out_wipe;
	}
	if (len && buf[len - 1] == '\n')
		len--;
	if (len > SRV6_HMAC_SECRET_MAX) {
		srv6_seterr(err, errlen, "%s: the secret is longer than %d bytes", k->path,
			    SRV6_HMAC_SECRET_MAX);
		r = -EINVAL;
		goto out_wipe;
	}
	if (len == 0) {
		srv6_seterr(err, errlen, "%s: the secret is empty", k->path);
		r = -EINVAL;
		goto out_wipe;
	}
	memcpy(k->secret, buf, len);
	k->slen = (uint8_t)len;
	r = srv6_hmac_key_prepare(k);
	if (r < 0)
		srv6_seterr(err, errlen, "%s: cannot key HMAC-%s: %s", k->path,
			    srv6_hmac_algo_name(k->algo), strerror(-r));
out_wipe:
	OPENSSL_cleanse(buf, sizeof(buf));
out_close:
	close(fd);
	return r;
}

int srv6_hmac_conf_load(struct srv6_hmac_set *set, char *err, size_t errlen)
{
	char msg[512];
	int r;

	if (!set)
		return 0;
	for (unsigned int i = 0; i < set->nkeys; i++) {
		r = srv6_hmac_key_load(&set->keys[i], msg, sizeof(msg));
		if (r < 0) {
			srv6_seterr(err, errlen, "hmac key %u: %s", set->keys[i].id, msg);
			return r;
		}
	}
	for (unsigned int i = 0; i < set->nifs; i++)
		set->ifs[i].ifindex = (int)if_nametoindex(set->ifs[i].name);
	return 0;
}

int srv6_hmac_conf_relink(struct srv6_hmac_set *set,
			  void (*log)(const char *name, int old_ifindex, int new_ifindex))
{
	int changed = 0;

	if (!set)
		return 0;
	for (unsigned int i = 0; i < set->nifs; i++) {
		struct srv6_hmac_ifmode *m = &set->ifs[i];
		int now = (int)if_nametoindex(m->name), was = m->ifindex;

		if (now == was)
			continue;
		__atomic_store_n(&m->ifindex, now, __ATOMIC_RELAXED);
		changed++;
		if (log)
			log(m->name, was, now);
	}
	return changed;
}

void srv6_hmac_conf_bind(struct srv6_conf *c)
{
	for (size_t i = 0; i < c->nsids; i++) {
		struct srv6_sid_cfg *cfg = &c->sids[i].cfg;

		cfg->hmac = c->hmac;
		cfg->hmac_key = srv6_hmac_key_find(c->hmac, cfg->hmac_keyid);
	}
	for (size_t i = 0; i < c->nroutes; i++) {
		struct srv6_policy *pol = &c->routes[i].pol;

		pol->hmac_key = srv6_hmac_key_find(c->hmac, pol->hmac_keyid);
	}
}

void srv6_hmac_conf_print(const struct srv6_hmac_set *set, FILE *out)
{
	if (!set)
		return;
	for (unsigned int i = 0; i < set->nkeys; i++)
		fprintf(out, "hmac key %u algo %s secret-file %s\n", set->keys[i].id,
			srv6_hmac_algo_name(set->keys[i].algo),
			set->keys[i].path ? set->keys[i].path : "");
	fprintf(out, "hmac %s\n", srv6_hmac_mode_name(set->mode));
	for (unsigned int i = 0; i < set->nifs; i++)
		fprintf(out, "hmac %s dev %s\n", srv6_hmac_mode_name(set->ifs[i].mode),
			set->ifs[i].name);
}

int srv6_hmac_set_dup(const struct srv6_hmac_set *set, struct srv6_hmac_set **out)
{
	struct srv6_hmac_set *n;

	*out = NULL;
	if (!set)
		return 0;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->mode = set->mode;
	n->has_mode = set->has_mode;
	n->nifs = set->nifs;
	memcpy(n->ifs, set->ifs, sizeof(n->ifs));
	for (unsigned int i = 0; i < set->nkeys; i++) {
		struct srv6_hmac_key *k = &n->keys[n->nkeys];

		k->id = set->keys[i].id;
		k->algo = set->keys[i].algo;
		k->line = set->keys[i].line;
		k->path = strdup(set->keys[i].path ? set->keys[i].path : "");
		if (!k->path) {
			srv6_hmac_set_free(n);
			return -ENOMEM;
		}
		n->nkeys++;
	}
	*out = n;
	return 0;
}

void srv6_hmac_set_free(struct srv6_hmac_set *set)
{
	if (!set)
		return;
	for (unsigned int i = 0; i < set->nkeys; i++) {
		free(set->keys[i].path);
		srv6_hmac_key_release(&set->keys[i]);
	}
	OPENSSL_cleanse(set, sizeof(*set));
	free(set);
}
