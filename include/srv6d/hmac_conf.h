/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hmac_conf.h - the `hmac` lines of srv6d.conf and the secret files.
 *
 *   hmac key ID algo sha1|sha256 secret-file PATH
 *   hmac require|verify|ignore [dev IFNAME]
 *
 * ID is 1..4294967295 (0 means "no HMAC" in RFC 8754); the secret is the
 * file's content with one trailing newline removed, 1..64 bytes (the
 * kernel's limit).  The file must be a regular file with no permission for
 * group or others.  The mode without dev is the global one (default verify,
 * like net.ipv6.conf.*.seg6_require_hmac = 0); with dev it applies to
 * packets received on that interface.  `hmac KEYID` on route lines and after
 * `srh segs LIST` on End.B6/End.B6.Encaps(.Red) SID lines names a key to
 * sign with; src/conf/file.c (and srv6d for srv6ctl sid/route add) calls
 * srv6_hmac_conf_finish() to check it exists.
 *
 * Parsing never reads a file: srv6_hmac_conf_load() does, when the daemon
 * resolves a parsed configuration (start, reload).  Secrets are never
 * written to any message.  Any thread, on objects the caller owns.
 */
#ifndef SRV6D_HMAC_CONF_H
#define SRV6D_HMAC_CONF_H

#include <stddef.h>
#include <stdio.h>

#include "hmac.h"

struct srv6_conf;

/**
 * srv6_hmac_conf_line - parse one `hmac ...` line (@argv[0] is "hmac") on
 * line @line into *@setp, allocating the set on first use.  Returns 0 or
 * -EINVAL/-ENOMEM with one message (no "FILE:LINE: " prefix) in @err.
 */
int srv6_hmac_conf_line(struct srv6_hmac_set **setp, int argc, char **argv, unsigned int line,
			char *err, size_t errlen);

/**
 * srv6_hmac_parse_keyid - parse the value of a `hmac KEYID` word (decimal
 * 1..4294967295).  0 or -EINVAL with a message in @err.
 */
int srv6_hmac_parse_keyid(const char *s, uint32_t *id, char *err, size_t errlen);

/**
 * srv6_hmac_conf_finish - cross-line checks of @c: every route and SID
 * `hmac KEYID` names a configured key, and the signed SRH carries at most
 * SRV6_HMAC_MAX_ENTRIES segments (the kernel's limit).  On error sets
 * *@line to the offending line and returns -EINVAL with @err.
 */
int srv6_hmac_conf_finish(const struct srv6_conf *c, unsigned int *line, char *err,
			  size_t errlen);

/**
 * srv6_hmac_key_load - read @k->path into @k->secret/slen.  Refuses a file
 * that is not regular, that group or others may read or write, an empty
 * secret and one longer than 64 bytes.  0 or -errno with "PATH: reason" in
 * @err (never the secret).
 */
int srv6_hmac_key_load(struct srv6_hmac_key *k, char *err, size_t errlen);

/**
 * srv6_hmac_conf_load - load every key of @set (NULL: nothing to do) and
 * resolve the `dev` interfaces (ifindex 0 when absent: those lines are
 * inactive until a reload finds the interface).  0 or -errno with
 * "hmac key ID: PATH: reason" in @err.
 */
int srv6_hmac_conf_load(struct srv6_hmac_set *set, char *err, size_t errlen);

/**
 * srv6_hmac_conf_relink - resolve the `dev` interfaces of the running @set
 * again (a link event: an interface deleted, created again under its name
 * with another ifindex, renamed).  Each ifindex is stored atomically: the
 * workers read @set meanwhile (srv6_hmac_mode_for).  Returns how many
 * changed; @log (NULL: none) is called once per change with the name, the
 * old and the new ifindex (0: absent).  NULL @set: 0.  Control thread.
 */
int srv6_hmac_conf_relink(struct srv6_hmac_set *set,
			  void (*log)(const char *name, int old_ifindex, int new_ifindex));

/**
 * srv6_hmac_conf_bind - point every SID (cfg->hmac, cfg->hmac_key) and
 * policy (pol->hmac_key) of @c at @c's keys.  Call after
 * srv6_hmac_conf_load(), before the tables are published.
 */
void srv6_hmac_conf_bind(struct srv6_conf *c);

/**
 * srv6_hmac_conf_print - write @set's lines (keys with their algorithm and
 * file, never the secret; global and per-device modes) to @out.
 */
void srv6_hmac_conf_print(const struct srv6_hmac_set *set, FILE *out);

/**
 * srv6_hmac_set_dup - a copy of @set's lines in *@out (NULL for a NULL
 * @set): key ids, algorithms, files and modes, no secret and no prepared
 * state, so srv6_hmac_conf_load() on the copy rereads the files without
 * touching @set (which workers may be using).  0 or -ENOMEM.
 */
int srv6_hmac_set_dup(const struct srv6_hmac_set *set, struct srv6_hmac_set **out);

/** srv6_hmac_set_free - wipe the secrets and free @set.  NULL is fine. */
void srv6_hmac_set_free(struct srv6_hmac_set *set);

#endif
