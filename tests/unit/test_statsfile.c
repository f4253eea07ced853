// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_statsfile.c - srv6_file_replace() (src/daemon/statsfile.c), the
 * writer of `srv6d -s FILE`: a symlink planted at FILE.tmp (the old writer's
 * fixed temporary name) or at FILE must never make it write through to the
 * symlink's target; the result is FILE with the new contents, mode 0644, and
 * no temporary file left over, also when the fill fails.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "srv6d/statsfile.h"

static char dir[64];

static int fill_hello(FILE *f, void *arg)
{
	fprintf(f, "%s\n", (const char *)arg);
	return 0;
}

static int fill_fail(FILE *f, void *arg)
{
	fprintf(f, "partial\n");
	return -ENOSPC;
}

static void read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Entries of dir other than "." and "..". */
static int dir_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/srv6d-statsfile.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_plain(void **state)
{
	char path[128], buf[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/stats", dir);
	assert_int_equal(srv6_file_replace(path, fill_hello, "one", NULL, 0), 0);
	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, "one\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(srv6_file_replace(path, fill_hello, "two", NULL, 0), 0);
	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, "two\n");
	assert_int_equal(dir_entries(), 1);
}

/* The old writer did fopen("FILE.tmp", "w"): through this symlink it would
 * have truncated and overwritten the victim. */
static void test_symlink_at_tmp(void **state)
{
	char path[128], tmp[140], victim[128], buf[128];

	snprintf(path, sizeof(path), "%s/stats", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	put_file(victim, "precious\n");
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(srv6_file_replace(path, fill_hello, "counters", NULL, 0), 0);
	read_file(victim, buf, sizeof(buf));
	assert_string_equal(buf, "precious\n");
	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, "counters\n");
	/* stats, stats.tmp (untouched symlink), victim: no stray file */
	assert_int_equal(dir_entries(), 3);
}

/* A symlink at FILE itself is replaced by the new file, not followed. */
static void test_symlink_at_file(void **state)
{
	char path[128], victim[128], buf[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/stats", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	put_file(victim, "precious\n");
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(srv6_file_replace(path, fill_hello, "counters", NULL, 0), 0);
	read_file(victim, buf, sizeof(buf));
	assert_string_equal(buf, "precious\n");
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

/* A failing fill leaves FILE as it was and no temporary behind. */
static void test_fill_fails(void **state)
{
	char path[128], buf[128], err[256] = "";

	snprintf(path, sizeof(path), "%s/stats", dir);
	put_file(path, "old\n");
	assert_int_equal(srv6_file_replace(path, fill_fail, NULL, err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "No space left"));
	read_file(path, buf, sizeof(buf));
	assert_string_equal(buf, "old\n");
	assert_int_equal(dir_entries(), 1);
}

/* No directory: one line naming the temporary file. */
static void test_no_dir(void **state)
{
	char path[128], err[256] = "";

	snprintf(path, sizeof(path), "%s/nodir/stats", dir);
	assert_int_equal(srv6_file_replace(path, fill_hello, "x", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nodir/.stats."));
	assert_int_equal(srv6_file_replace("", fill_hello, "x", err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_at_tmp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_at_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fill_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_dir, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
