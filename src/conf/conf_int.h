/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conf_int.h - internals shared by the parts of the srv6d.conf grammar
 * (util.c, sid.c, route.c, file.c); not for use outside src/conf/.  The
 * public API is include/srv6d/conf.h.  Everything here is pure and
 * reentrant.
 */
#ifndef SRV6D_CONF_INT_H
#define SRV6D_CONF_INT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srv6d/conf.h"
#include "srv6d/sbuf.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define CONF_MAX_WORDS 64

/* Where a message goes (without the "FILE:LINE: " prefix). */
struct errbuf {
	char *buf;
	size_t len;
};

/** conf_seterr - format one line into @e (nothing if it has no room). */
void conf_seterr(struct errbuf *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A token as it appears in a message: quoted, control bytes escaped, long
 * tokens cut.  Each call site passes its own buffer. */
#define QTOK_MAX 72
struct qtok {
	char s[QTOK_MAX * 4 + 8];
};

/** conf_q - @tok quoted and escaped into @b; returns b->s. */
const char *conf_q(struct qtok *b, const char *tok);

/** conf_parse_u64 - strict decimal (no sign, no leading zero): 0, -EINVAL or -ERANGE. */
int conf_parse_u64(const char *s, uint64_t *out);
/** conf_parse_num - a decimal for keyword @kw in [min, max]; message names the token. */
int conf_parse_num(const char *kw, const char *s, uint64_t min, uint64_t max,
		   uint64_t *out, struct errbuf *e);
int conf_parse_addr6(const char *kw, const char *s, struct in6_addr *a, struct errbuf *e);
int conf_parse_addr4(const char *kw, const char *s, struct in_addr *a, struct errbuf *e);

/* conf_parse_prefix results */
enum { PFX_OK, PFX_BAD, PFX_LEN, PFX_HOST };
/** conf_parse_prefix - ADDR or ADDR/LEN of @family, host bits zero: PFX_*; no message. */
int conf_parse_prefix(int family, const char *s, void *addr, uint8_t *plen);
/** conf_prefix_err - the message for a PFX_* result; returns -EINVAL. */
int conf_prefix_err(int rc, const char *what, const char *s, struct errbuf *e);
/** conf_prefix_multicast - -EINVAL with a message when the prefix is in multicast space. */
int conf_prefix_multicast(int family, const void *addr, const char *what, const char *s,
			  struct errbuf *e);
/** conf_not_unicast6 - why @a cannot be a unicast address srv6d uses, or NULL. */
const char *conf_not_unicast6(const struct in6_addr *a, bool no_ll);
/** conf_parse_seglist - "A,B,..." into @segs (travel order). */
int conf_parse_seglist(const char *s, struct in6_addr *segs, unsigned int *nsegs,
		       struct errbuf *e);
/** conf_need_arg - -EINVAL with "missing value after KW" when argc < 2. */
int conf_need_arg(int argc, char **argv, struct errbuf *e);
/** conf_ifname_valid - the kernel's dev_valid_name(). */
bool conf_ifname_valid(const char *s);
/**
 * conf_route_level_word - iproute2's route-level words on a pasted line
 * (metric N, proto P, pref P): 2 (the words consumed; ignored, with a
 * warning in @w) when argv[0] is one, 0 when it is not, -EINVAL on a
 * duplicate or missing value.  @seen: the words met so far on the line.
 */
int conf_route_level_word(int argc, char **argv, unsigned int *seen, struct errbuf *e,
			  struct errbuf *w);
/** conf_parse_table_id - a routing table for @kw: decimal, 0x hex or a name of rt_tables. */
int conf_parse_table_id(const char *kw, const char *s, uint32_t *out, struct errbuf *e);

/**
 * conf_pqueue_cycles - refuse a cycle in the requeue graph of @c's policy
 * queues (10 requeue 11, 11 requeue 10: an NF_QUEUE verdict queues the
 * packet again at the same hook without running a rule, so it would loop
 * forever).  0, or -ELOOP with *@line the line that closes the cycle and
 * one message naming it in @e.  Pure (src/conf/queue.c).
 */
int conf_pqueue_cycles(const struct srv6_conf *c, unsigned int *line, struct errbuf *e);

void conf_sb_addr6(struct srv6_sbuf *s, const struct in6_addr *a);
void conf_sb_segs(struct srv6_sbuf *s, const struct in6_addr *segs, unsigned int n);
void conf_put_prefix(struct srv6_sbuf *s, int family, const void *addr, uint8_t plen);

/** conf_split_words - split @line (modified) into at most CONF_MAX_WORDS words; '#' starts a comment. */
int conf_split_words(char *line, char **argv, struct errbuf *e);

#endif
