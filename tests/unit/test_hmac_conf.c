// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_hmac_conf.c - the `hmac` conf lines and secret files
 * (src/conf/hmac_conf.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "srv6d/conf.h"
#include "srv6d/hmac_conf.h"

static char dir[] = "/tmp/srv6d-hmac-XXXXXX";

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Write @n bytes of @data to DIR/@name with @mode; returns the path. */
static const char *secret_file(const char *name, const void *data, size_t n, mode_t mode)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
	return path;
}

static int parse(struct srv6_conf *c, const char *text, char *err)
{
	return srv6_conf_parse_string(c, "t.conf", text, err, SRV6_CONF_ERRLEN);
}

static void test_parse_ok(void **state)
{
	char err[SRV6_CONF_ERRLEN], buf[SRV6_CONF_LINE_MAX];
	struct srv6_conf c;

	assert_int_equal(parse(&c,
		"hmac key 7 algo sha256 secret-file /etc/srv6d/hmac-7.key\n"
		"hmac key 4294967295 secret-file /k algo sha1\n"
		"hmac require\n"
		"hmac ignore dev eth1\n"
		"hmac verify dev eth2\n"
		"route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:ff::1,2001:db8:aa::1 hmac 7\n"
		"sid 2001:db8:ff::8 action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 hmac 4294967295\n"
		"sid 2001:db8:ff::9 action End.B6 srh segs 2001:db8:aa::1 hmac 7 count\n"
		"sid 2001:db8:ff::a action End\n", err), 0);
	assert_non_null(c.hmac);
	assert_int_equal(c.hmac->nkeys, 2);
	assert_int_equal(c.hmac->keys[0].id, 7);
	assert_int_equal(c.hmac->keys[0].algo, SRV6_HMAC_ALGO_SHA256);
	assert_string_equal(c.hmac->keys[0].path, "/etc/srv6d/hmac-7.key");
	assert_int_equal(c.hmac->keys[1].id, 4294967295u);
	assert_int_equal(c.hmac->keys[1].algo, SRV6_HMAC_ALGO_SHA1);
	assert_int_equal(c.hmac->keys[0].slen, 0);          /* not read at parse */
	assert_int_equal(c.hmac->mode, SRV6_HMAC_REQUIRE);
	assert_int_equal(c.hmac->nifs, 2);
	assert_string_equal(c.hmac->ifs[0].name, "eth1");
	assert_int_equal(c.hmac->ifs[0].mode, SRV6_HMAC_IGNORE);
	assert_int_equal(c.hmac->ifs[1].mode, SRV6_HMAC_VERIFY);
	assert_int_equal(c.routes[0].pol.hmac_keyid, 7);
	assert_int_equal(c.sids[0].cfg.hmac_keyid, 4294967295u);
	assert_int_equal(c.sids[1].cfg.hmac_keyid, 7);
	assert_int_equal(c.sids[2].cfg.hmac_keyid, 0);

	assert_true(srv6_route_format(buf, sizeof(buf), &c.routes[0]) > 0);
	assert_string_equal(buf, "route 2001:db8:99::/64 encap seg6 mode encap segs "
			    "2001:db8:ff::1,2001:db8:aa::1 hmac 7");
	assert_true(srv6_sid_format(buf, sizeof(buf), &c.sids[0].prefix, c.sids[0].plen,
				    &c.sids[0].cfg) > 0);
	assert_non_null(strstr(buf, " srh segs 2001:db8:aa::1,2001:db8:aa::2 hmac 4294967295"));

	/* bind: every SID sees the set, signing SIDs and routes their key */
	srv6_hmac_conf_bind(&c);
	assert_ptr_equal(c.sids[2].cfg.hmac, c.hmac);
	assert_null(c.sids[2].cfg.hmac_key);
	assert_ptr_equal(c.sids[0].cfg.hmac_key, &c.hmac->keys[1]);
	assert_ptr_equal(c.routes[0].pol.hmac_key, &c.hmac->keys[0]);
	srv6_conf_free(&c);
	assert_null(c.hmac);

	/* no hmac lines: no set (verify, no key) */
	assert_int_equal(parse(&c, "sid 2001:db8::1 action End\n", err), 0);
	assert_null(c.hmac);
	srv6_conf_free(&c);
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *text, *err;
	} cases[] = {
		{ "hmac\n", "t.conf:1: missing value after \"hmac\"" },
		{ "hmac key\n", "t.conf:1: missing key id after \"hmac key\"" },
		{ "hmac key 0 algo sha1 secret-file /k\n", "t.conf:1: bad hmac key id \"0\" (1..4294967295)" },
		{ "hmac key 4294967296 algo sha1 secret-file /k\n",
		  "t.conf:1: bad hmac key id \"4294967296\" (1..4294967295)" },
		{ "hmac key 07 algo sha1 secret-file /k\n", "t.conf:1: bad hmac key id \"07\" (1..4294967295)" },
		{ "hmac key 7 algo md5 secret-file /k\n", "t.conf:1: unknown hmac algo \"md5\" (sha1, sha256)" },
		{ "hmac key 7 algo sha1\n", "t.conf:1: hmac key 7 needs \"secret-file PATH\"" },
		{ "hmac key 7 secret-file /k\n", "t.conf:1: hmac key 7 needs \"algo sha1|sha256\"" },
		{ "hmac key 7 algo sha1 algo sha1 secret-file /k\n", "t.conf:1: duplicate \"algo\"" },
		{ "hmac key 7 algo sha1 secret-file\n", "t.conf:1: missing value after \"secret-file\"" },
		{ "hmac key 7 algo sha1 secret /k\n", "t.conf:1: unknown keyword \"secret\"" },
		{ "hmac key 7 algo sha1 secret-file /k\nhmac key 7 algo sha256 secret-file /j\n",
		  "t.conf:2: duplicate hmac key 7 (first at line 1)" },
		{ "hmac required\n", "t.conf:1: unknown hmac word \"required\" (key, require, verify, ignore)" },
		{ "hmac require\nhmac ignore\n", "t.conf:2: duplicate global hmac mode" },
		{ "hmac require dev\n", "t.conf:1: missing value after \"dev\"" },
		{ "hmac require eth0\n", "t.conf:1: unexpected \"eth0\" after \"hmac require\" (dev IFNAME)" },
		{ "hmac require dev eth0 x\n", "t.conf:1: unexpected \"x\"" },
		{ "hmac require dev eth0\nhmac ignore dev eth0\n",
		  "t.conf:2: duplicate hmac mode for dev \"eth0\"" },
		{ "hmac require dev a/b\n", "t.conf:1: bad interface name \"a/b\" for dev" },
		{ "route 2001:db8::/64 encap seg6 mode encap segs 2001:db8::2 hmac x\n",
		  "t.conf:1: bad hmac key id \"x\" (1..4294967295)" },
		{ "route 2001:db8::/64 encap seg6 mode encap segs 2001:db8::2 hmac\n",
		  "t.conf:1: missing value after \"hmac\"" },
		{ "hmac key 1 algo sha1 secret-file /k\n"
		  "route 2001:db8::/64 encap seg6 mode encap segs 2001:db8::2 hmac 1 hmac 1\n",
		  "t.conf:2: duplicate \"hmac\"" },
		{ "sid 2001:db8::1 action End.B6 srh segs 2001:db8::2 hmac\n",
		  "t.conf:1: missing value after \"hmac\"" },
		/* 14 entries at most: inline adds the slot */
		{ "hmac key 1 algo sha1 secret-file /k\n"
		  "route 2001:db8::/64 encap seg6 mode inline segs 2001:db8::1,2001:db8::2,2001:db8::3,"
		  "2001:db8::4,2001:db8::5,2001:db8::6,2001:db8::7,2001:db8::8,2001:db8::9,2001:db8::a,"
		  "2001:db8::b,2001:db8::c,2001:db8::d,2001:db8::e hmac 1\n",
		  "t.conf:2: hmac: at most 14 SRH entries can be signed, this SRH has 15" },
	};
	char err[SRV6_CONF_ERRLEN];
	struct srv6_conf c;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(&c, cases[i].text, err), -EINVAL);
		if (strcmp(err, cases[i].err))
			fail_msg("case %zu: got '%s', want '%s'", i, err, cases[i].err);
		assert_null(c.hmac);
	}
	/* 14 entries are fine */
	assert_int_equal(parse(&c, "hmac key 1 algo sha1 secret-file /k\n"
		"route 2001:db8::/64 encap seg6 mode encap segs 2001:db8::1,2001:db8::2,2001:db8::3,"
		"2001:db8::4,2001:db8::5,2001:db8::6,2001:db8::7,2001:db8::8,2001:db8::9,2001:db8::a,"
		"2001:db8::b,2001:db8::c,2001:db8::d,2001:db8::e hmac 1\n", err), 0);
	srv6_conf_free(&c);
}

static void test_key_files(void **state)
{
	char err[512], big[80];
	struct srv6_hmac_key k;
	const char *p;

	memset(&k, 0, sizeof(k));
	k.algo = SRV6_HMAC_ALGO_SHA256;
	/* one trailing newline removed, the rest kept */
	p = secret_file("a", "s3cret\n", 7, 0600);
	k.path = (char *)p;
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), 0);
	assert_int_equal(k.slen, 6);
	assert_memory_equal(k.secret, "s3cret", 6);
	p = secret_file("a", "x\n\n", 3, 0400);
	k.path = (char *)p;
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), 0);
	assert_int_equal(k.slen, 2);
	/* a 64-byte secret with or without newline; 65 refused */
	memset(big, 'k', sizeof(big));
	big[64] = '\n';
	k.path = (char *)secret_file("b", big, 65, 0600);
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), 0);
	assert_int_equal(k.slen, 64);
	k.path = (char *)secret_file("b", big, 64, 0600);
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), 0);
	assert_int_equal(k.slen, 64);
	memset(big, 'k', sizeof(big));
	k.path = (char *)secret_file("c", big, 65, 0600);
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/c: the secret is longer than 64 bytes"));
	big[65] = '\n';
	k.path = (char *)secret_file("c", big, 66, 0600);
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), -EINVAL);
	k.path = (char *)secret_file("c", big, 80, 0600);
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), -EINVAL);
	assert_null(strstr(err, "kkkk"));
	/* empty */
	k.path = (char *)secret_file("d", "\n", 1, 0600);
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/d: the secret is empty"));
	/* group- or world-readable: refused, file named, secret not shown */
	k.path = (char *)secret_file("e", "topsecret\n", 10, 0640);
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "/e: group- or world-accessible (mode 0640)"));
	assert_null(strstr(err, "topsecret"));
	k.path = (char *)secret_file("e", "topsecret\n", 10, 0604);
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), -EPERM);
	k.path = (char *)secret_file("e", "topsecret\n", 10, 0620);
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), -EPERM);
	/* missing, not a regular file */
	k.path = (char *)"/nonexistent/srv6d.key";
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/srv6d.key: No such file or directory");
	k.path = dir;
	assert_true(srv6_hmac_key_load(&k, err, sizeof(err)) < 0);
	/* a loaded key is prepared for the packet path */
	k.path = (char *)secret_file("a", "s3cret\n", 7, 0600);
	assert_int_equal(srv6_hmac_key_load(&k, err, sizeof(err)), 0);
	assert_non_null(k.mac);
	srv6_hmac_key_release(&k);
	assert_null(k.mac);
}

/* srv6_hmac_conf_load() names the key; print never shows a secret. */
static void test_conf_load_print(void **state)
{
	char err[SRV6_CONF_ERRLEN], text[1024], *out = NULL;
	struct srv6_conf c;
	size_t outlen = 0;
	FILE *f;

	secret_file("k7", "seven-secret\n", 13, 0600);
	secret_file("k8", "eight-secret\n", 13, 0644);
	snprintf(text, sizeof(text),
		 "hmac key 7 algo sha256 secret-file %s/k7\nhmac ignore dev lo\n", dir);
	assert_int_equal(parse(&c, text, err), 0);
	assert_int_equal(srv6_hmac_conf_load(c.hmac, err, sizeof(err)), 0);
	assert_int_equal(c.hmac->keys[0].slen, 12);
	assert_int_equal(c.hmac->ifs[0].ifindex, 1);          /* lo */
	f = open_memstream(&out, &outlen);
	assert_non_null(f);
	srv6_hmac_conf_print(c.hmac, f);
	fclose(f);
	assert_null(strstr(out, "seven"));
	assert_non_null(strstr(out, "hmac key 7 algo sha256 secret-file "));
	assert_non_null(strstr(out, "hmac verify\nhmac ignore dev lo\n"));
	free(out);
	srv6_conf_free(&c);

	snprintf(text, sizeof(text),
		 "hmac key 7 algo sha256 secret-file %s/k7\n"
		 "hmac key 8 algo sha1 secret-file %s/k8\n", dir, dir);
	assert_int_equal(parse(&c, text, err), 0);
	assert_int_equal(srv6_hmac_conf_load(c.hmac, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "hmac key 8: "));
	assert_non_null(strstr(err, "/k8: group- or world-accessible (mode 0644)"));
	srv6_conf_free(&c);
}

static int relinks;
static void on_relink(const char *name, int was, int now)
{
	relinks++;
}

/* `hmac MODE dev IF` follows the name: a link event resolves it again
 * (lo always exists; the other name never does). */
static void test_relink(void **state)
{
	struct srv6_hmac_set set = { .nifs = 2 };

	snprintf(set.ifs[0].name, sizeof(set.ifs[0].name), "lo");
	set.ifs[0].ifindex = 0;           /* absent at load, there now */
	snprintf(set.ifs[1].name, sizeof(set.ifs[1].name), "srv6tnoif0");
	set.ifs[1].ifindex = 4242;        /* the ifindex of a deleted interface */
	set.ifs[1].mode = SRV6_HMAC_REQUIRE;
	assert_int_equal(srv6_hmac_conf_relink(&set, on_relink), 2);
	assert_int_equal(relinks, 2);
	assert_int_equal(set.ifs[0].ifindex, 1);
	assert_int_equal(set.ifs[1].ifindex, 0);
	/* the old ifindex no longer selects require */
	assert_int_equal(srv6_hmac_mode_for(&set, 4242), set.mode);
	assert_int_equal(srv6_hmac_conf_relink(&set, on_relink), 0);
	assert_int_equal(srv6_hmac_conf_relink(NULL, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_key_files),
		cmocka_unit_test(test_conf_load_print),
		cmocka_unit_test(test_relink),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
