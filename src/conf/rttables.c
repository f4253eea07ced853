// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rttables.c - routing table ids as iproute2 takes them: decimal, 0x hex, or
 * a name of rt_tables (iproute2's rtnl_rttable_a2n()).  The text parser is
 * pure; srv6_rt_table_lookup() reads the files.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_int.h"

/* One "ID NAME" line of rt_tables: 1 and *@id when NAME is @name, 0 if not. */
static int rt_line_match(const char *line, const char *name, uint32_t *id)
{
	char nm[256];
	unsigned int v;

	if (sscanf(line, " 0x%x %255s", &v, nm) != 2 && sscanf(line, " %u %255s", &v, nm) != 2)
		return 0;
	if (nm[0] == '#' || strcmp(nm, name))
		return 0;
	*id = v;
	return 1;
}

int srv6_rt_tables_find(const char *text, const char *name, uint32_t *id)
{
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];

		if (l >= sizeof(line))
			l = sizeof(line) - 1;
		memcpy(line, p, l);
		line[l] = '\0';
		if (line[strspn(line, " \t")] != '#' && rt_line_match(line, name, id))
			return 0;
		p = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

/* The whole (small) file @path into a NUL-terminated malloc'ed string. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n;

	if (!f)
		return NULL;
	buf = malloc(65536);
	if (buf) {
		n = fread(buf, 1, 65535, f);
		buf[n] = '\0';
	}
	fclose(f);
	return buf;
}

static int find_in_file(const char *path, const char *name, uint32_t *id)
{
	char *text = slurp(path);
	int r;

	if (!text)
		return -ENOENT;
	r = srv6_rt_tables_find(text, name, id);
	free(text);
	return r;
}

/* rt_tables.d/ *.conf of @dir, in directory order as iproute2 reads them. */
static int find_in_dir(const char *dir, const char *name, uint32_t *id)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int r = -ENOENT;

	if (!d)
		return -ENOENT;
	while (r < 0 && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char path[512];

		if (l < 6 || strcmp(de->d_name + l - 5, ".conf") || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		r = find_in_file(path, name, id);
	}
	closedir(d);
	return r;
}

int srv6_rt_table_lookup(const char *name, uint32_t *id)
{
	static const char *const dirs[] = { "/etc/iproute2", "/usr/share/iproute2",
					    "/usr/lib/iproute2" };
	static const struct { const char *n; uint32_t id; } builtin[] = {
		{ "default", 253 }, { "main", 254 }, { "local", 255 },
	};
	char path[256];

	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++) {
		if (!strcmp(name, builtin[i].n)) {
			*id = builtin[i].id;
			return 0;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/rt_tables", dirs[i]);
		if (!find_in_file(path, name, id))
			return 0;
		snprintf(path, sizeof(path), "%s/rt_tables.d", dirs[i]);
		if (!find_in_dir(path, name, id))
			return 0;
	}
	return -ENOENT;
}

int conf_parse_table_id(const char *kw, const char *s, uint32_t *out, struct errbuf *e)
{
	struct qtok qb;
	uint64_t v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		size_t n = strlen(s + 2);
		char *end;

		if (!n || n > 8 || strspn(s + 2, "0123456789abcdefABCDEF") != n) {
			conf_seterr(e, "bad table %s for %s (decimal, 0x hex or a name of rt_tables)",
				    conf_q(&qb, s), kw);
			return -EINVAL;
		}
		v = strtoull(s + 2, &end, 16);
		if (!v) {
			conf_seterr(e, "%s %s out of range (1..%u)", kw, conf_q(&qb, s), UINT32_MAX);
			return -EINVAL;
		}
		*out = (uint32_t)v;
		return 0;
	}
	if (isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '+')
		return conf_parse_num(kw, s, 1, UINT32_MAX, &v, e) ? -EINVAL : (*out = (uint32_t)v, 0);
	if (srv6_rt_table_lookup(s, out)) {
		conf_seterr(e, "unknown table %s for %s (not a number nor a name of rt_tables)",
			    conf_q(&qb, s), kw);
		return -EINVAL;
	}
	if (!*out) {
		conf_seterr(e, "%s %s is table 0 (unspec)", kw, conf_q(&qb, s));
		return -EINVAL;
	}
	return 0;
}
