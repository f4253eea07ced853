// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fpm.c - zebra's FPM stream into a store of SIDs and headend policies
 * (fpm.h).  The frames' routes go through the one route decoder
 * (src/conf/rtmsg.c) and the conf grammar.  The store is a sorted array of
 * pointers (binary search by key; an insert or a delete moves pointers, a
 * sweep compacts in one pass).  Routes that name a nexthop object are kept
 * as messages too, whatever they decoded to ("parked" when they gave no
 * entry), so that a nexthop that changes or arrives late re-decodes them:
 * zebra does not send a route again when only its nexthop changes.  The
 * messages kept are bounded (SRV6_FPM_MSG_MAX each, SRV6_FPM_MSG_BYTES in
 * all).  Control thread only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/lwtunnel.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "srv6d/fpm.h"
#include "srv6d/log.h"
#include "srv6d/rtmsg.h"

#define FPM_READ_BUDGET (4u << 20)
#define FPM_LOG_MAX     8         /* refused routes named per session */

/* A route (stored entry or parked message): the key first (key_search). */
struct fent {
	struct srv6_rtkey key;    /* family, plen, dst, table compared (table 0 = main) */
	uint32_t nhid;
	char *line;               /* the canonical conf line; NULL when parked */
	void *msg;                /* the route's message when it names a nexthop */
	struct srv6_fpm_entry e;
};

struct fnh {
	uint32_t id;
	bool stale;
	void *msg;
	size_t len;
};

struct srv6_fpm {
	unsigned int grace;
	uint8_t origin;           /* enum srv6_origin of the entries */
	uint32_t table;           /* the one table taken (main) */
	unsigned int takes;       /* SRV6_FPM_TAKE_SIDS | _ROUTES */
	struct fent **ents;       /* stored entries, by key */
	size_t n, cap;
	struct fent **park;       /* routes naming a nexthop that gave no entry */
	size_t npark, parkcap;
	struct fnh *nhs;          /* nexthop objects, by id */
	size_t nnh, nhcap;
	size_t msg_bytes;         /* kept messages, all together */
	int64_t grace_at;         /* the grace time's end; valid while grace_on */
	bool grace_on;
	bool redecode;            /* on_route() runs again on a kept message */
	struct srv6_fpm_stats st;
	unsigned int logged;      /* refused routes named this session */
	/* sockets */
	int lfd, sfd;
	bool lpaused;             /* accept failed: the listener rests a second */
	int64_t lpause_until;
	char laddr[64], peer[64];
	time_t since;
	uint32_t rx[(SRV6_FPM_FRAME_MAX + 1) * 2 / 4];   /* aligned for libmnl */
	size_t rxlen;
};

static int key_cmp(const struct srv6_rtkey *a, const struct srv6_rtkey *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if (a->table != b->table)
		return a->table < b->table ? -1 : 1;
	if (a->plen != b->plen)
		return a->plen < b->plen ? -1 : 1;
	return memcmp(a->dst, b->dst, 16);
}

/* The index of @k in the sorted @v[0..@n), or where it would go (*@found false). */
static size_t key_search(struct fent *const *v, size_t n, const struct srv6_rtkey *k, bool *found)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(&v[mid]->key, k);

		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

static void fent_free(struct srv6_fpm *f, struct fent *fe)
{
	if (fe->msg)
		f->msg_bytes -= ((const struct nlmsghdr *)fe->msg)->nlmsg_len;
	free(fe->line);
	free(fe->msg);
	free(fe);
}

/* Take @fe out of @v (index @i) and free it. */
static void vec_remove(struct srv6_fpm *f, struct fent **v, size_t *n, size_t i)
{
	fent_free(f, v[i]);
	memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof(*v));
	(*n)--;
}

/* Free the records of @v[0..*@n) that @drop(record, @arg) picks, keeping
 * the others in order, in one pass.  How many went. */
static size_t vec_drop(struct srv6_fpm *f, struct fent **v, size_t *n,
		       bool (*drop)(const struct fent *fe, uint32_t arg), uint32_t arg)
{
	size_t k = 0, gone = 0;

	for (size_t i = 0; i < *n; i++) {
		if (drop(v[i], arg)) {
			fent_free(f, v[i]);
			gone++;
		} else {
			v[k++] = v[i];
		}
	}
	*n = k;
	return gone;
}

static bool is_stale(const struct fent *fe, uint32_t arg)
{
	(void)arg;
	return fe->e.stale;
}

static bool names_nh(const struct fent *fe, uint32_t id)
{
	return fe->nhid == id;
}

/* Put @fe into @v at index @i.  0 or -ENOMEM. */
static int vec_insert(struct fent ***v, size_t *n, size_t *cap, size_t i, struct fent *fe)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct fent **nv = realloc(*v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	memmove(&(*v)[i + 1], &(*v)[i], (*n - i) * sizeof(**v));
	(*v)[i] = fe;
	(*n)++;
	return 0;
}

static struct fnh *nh_find(const struct srv6_fpm *f, uint32_t id, size_t *pos)
{
	size_t lo = 0, hi = f->nnh;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->nhs[mid].id == id) {
			*pos = mid;
			return &f->nhs[mid];
		}
		if (f->nhs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return NULL;
}

static void nh_remove(struct srv6_fpm *f, size_t pos)
{
	f->msg_bytes -= f->nhs[pos].len;
	free(f->nhs[pos].msg);
	memmove(&f->nhs[pos], &f->nhs[pos + 1], (f->nnh - pos - 1) * sizeof(*f->nhs));
	f->nnh--;
}

struct srv6_fpm *srv6_fpm_new(unsigned int grace_s)
{
	struct srv6_fpm *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->grace = grace_s;
	f->origin = SRV6_ORIGIN_FPM;
	f->table = RT_TABLE_MAIN;
	f->takes = SRV6_FPM_TAKE_SIDS | SRV6_FPM_TAKE_ROUTES;
	f->lfd = f->sfd = -1;
	return f;
}

void srv6_fpm_configure(struct srv6_fpm *f, enum srv6_origin origin, uint32_t table,
			unsigned int takes)
{
	f->origin = (uint8_t)origin;
	f->table = table;
	f->takes = takes;
}

void srv6_fpm_free(struct srv6_fpm *f)
{
	if (!f)
		return;
	if (f->sfd >= 0)
		close(f->sfd);
	if (f->lfd >= 0)
		close(f->lfd);
	for (size_t i = 0; i < f->n; i++)
		fent_free(f, f->ents[i]);
	for (size_t i = 0; i < f->npark; i++)
		fent_free(f, f->park[i]);
	for (size_t i = 0; i < f->nnh; i++)
		free(f->nhs[i].msg);
	free(f->ents);
	free(f->park);
	free(f->nhs);
	free(f);
}

static const char *ifname_cb(unsigned int ifindex, char *buf, void *arg)
{
	(void)arg;
	return if_indextoname(ifindex, buf);
}

/* A refused SRv6 route: counted, and named while this session has named
 * fewer than FPM_LOG_MAX.  A re-decode (a nexthop changed) counts nothing:
 * zebra sent nothing. */
static void refuse(struct srv6_fpm *f, const struct srv6_rtkey *k, const char *why)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (f->redecode)
		return;
	f->st.refused++;
	if (f->logged++ >= FPM_LOG_MAX) {
		if (f->logged == FPM_LOG_MAX + 1)
			srv6_log(LOG_WARNING, "%s: more routes refused (counted: srv6ctl status)",
				 srv6_origin_name((enum srv6_origin)f->origin));
		return;
	}
	inet_ntop(k->family, k->dst, a, sizeof(a));
	srv6_log(LOG_WARNING, "%s: route %s/%u table %u refused: %s",
		 srv6_origin_name((enum srv6_origin)f->origin), a, k->plen, k->table, why);
}

/* The conf line @line (from srv6_rtmsg_conf()) into @e, of @origin.  0 or
 * -EINVAL with @why. */
static int line_parse(const char *line, uint8_t origin, struct srv6_fpm_entry *e, char *why,
		      size_t whylen)
{
	char buf[SRV6_CONF_LINE_MAX], *argv[2 * SRV6_MAX_SEGS + 64], *save = NULL, *w;
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (argc == (int)(sizeof(argv) / sizeof(argv[0]))) {
			snprintf(why, whylen, "too many words");
			return -EINVAL;
		}
		argv[argc++] = w;
	}
	memset(e, 0, sizeof(*e));
	if (argc > 1 && !strcmp(argv[0], "sid")) {
		e->is_sid = true;
		e->sid.origin = origin;
		return srv6_sid_parse_words(argc - 1, argv + 1, &e->sid.prefix, &e->sid.plen,
					    &e->sid.cfg, why, whylen) ? -EINVAL : 0;
	}
	if (argc > 1 && !strcmp(argv[0], "route")) {
		if (srv6_route_parse_words(argc - 1, argv + 1, &e->route, why, whylen))
			return -EINVAL;
		e->route.origin = origin;
		return 0;
	}
	snprintf(why, whylen, "not a sid or route line");
	return -EINVAL;
}

/* A copy of @nlh to keep, within the bounds; NULL when over them or ENOMEM. */
static void *msg_keep(struct srv6_fpm *f, const struct nlmsghdr *nlh)
{
	void *m;

	if (nlh->nlmsg_len > SRV6_FPM_MSG_MAX || f->msg_bytes + nlh->nlmsg_len > SRV6_FPM_MSG_BYTES)
		return NULL;
	m = malloc(nlh->nlmsg_len);
	if (!m)
		return NULL;
	memcpy(m, nlh, nlh->nlmsg_len);
	f->msg_bytes += nlh->nlmsg_len;
	return m;
}

/* The record of @k in the entries or the parked routes (NULL: none). */
static struct fent *rec_find(const struct srv6_fpm *f, const struct srv6_rtkey *k)
{
	bool found;
	size_t i = key_search(f->ents, f->n, k, &found);

	if (found)
		return f->ents[i];
	i = key_search(f->park, f->npark, k, &found);
	return found ? f->park[i] : NULL;
}

/* The route at @k gives no entry: drop its record (entry or parked).  With
 * @park (a route whose nexthop object has not come), keep its message
 * parked, stale as @stale, until the object comes.  1 when an entry went. */
static int no_entry(struct srv6_fpm *f, const struct srv6_rtkey *k, const struct nlmsghdr *park,
		    bool stale)
{
	bool found;
	size_t i = key_search(f->ents, f->n, k, &found);
	int gone = 0;

	if (found) {
		vec_remove(f, f->ents, &f->n, i);
		gone = 1;
	}
	i = key_search(f->park, f->npark, k, &found);
	if (found)
		vec_remove(f, f->park, &f->npark, i);
	if (park) {
		struct fent *fe = f->npark < SRV6_FPM_MAX_PARKED ? calloc(1, sizeof(*fe)) : NULL;

		if (fe && (fe->msg = msg_keep(f, park))) {
			fe->key = *k;
			fe->nhid = k->nhid;
			fe->e.stale = stale;
			if (vec_insert(&f->park, &f->npark, &f->parkcap, i, fe) == 0)
				return gone;
		}
		if (fe)
			fent_free(f, fe);
		refuse(f, k, "too many routes waiting for their nexthop object (not kept)");
	}
	return gone;
}

/* In the kernel, routes of one prefix and table with other metrics are other
 * routes: a message about one of them leaves the mirrored entry alone. */
static bool other_route(const struct srv6_fpm *f, const struct fent *rec, const struct srv6_rtkey *k)
{
	return f->origin == SRV6_ORIGIN_KERNEL && rec && rec->key.priority != k->priority;
}

/* The kind of SRv6 route of @k, or of the nexthop object @nh it names:
 * SRV6_FPM_TAKE_SIDS (seg6local), SRV6_FPM_TAKE_ROUTES (seg6), else 0 (a
 * malformed object too: the decoder says so next). */
static unsigned int route_kind(const struct srv6_rtkey *k, const struct fnh *nh)
{
	int t = nh ? srv6_nhmsg_encap_type(nh->msg) : k->encap_type;

	return t == LWTUNNEL_ENCAP_SEG6_LOCAL ? SRV6_FPM_TAKE_SIDS :
	       t == LWTUNNEL_ENCAP_SEG6 ? SRV6_FPM_TAKE_ROUTES : 0;
}

/* RTM_NEWROUTE / RTM_DELROUTE @nlh (nlmsg_len checked).  1 changed, 0 not, -EPROTO. */
static int on_route(struct srv6_fpm *f, const struct nlmsghdr *nlh)
{
	char line[SRV6_CONF_LINE_MAX], why[SRV6_CONF_ERRLEN];
	const struct rtmsg *rtm = NLMSG_DATA(nlh);
	struct srv6_fpm_entry e;
	const struct fnh *nh = NULL;
	struct srv6_rtkey k;
	struct fent *fe, *rec;
	bool found, stale;
	unsigned int kind;
	size_t i, pos;
	int r;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return -EPROTO;
	/* zebra sends MPLS label routes (AF_MPLS) too: not srv6d's */
	if (rtm->rtm_family != AF_INET6 && rtm->rtm_family != AF_INET) {
		if (!f->redecode)
			f->st.other++;
		return 0;
	}
	if (srv6_rtmsg_key(nlh, nlh->nlmsg_len, &k) < 0) {
		if (!f->redecode) {
			f->st.refused++;
			if (f->logged++ < FPM_LOG_MAX)
				srv6_log(LOG_WARNING, "%s: a route message with malformed attributes "
					 "refused", srv6_origin_name((enum srv6_origin)f->origin));
		}
		return 0;
	}
	if (!k.table)
		k.table = RT_TABLE_MAIN;     /* what the kernel means by it */
	rec = rec_find(f, &k);
	/* a re-decode keeps the record's staleness whatever it turns into: a
	 * restarted zebra's nexthop must not revive an old route */
	stale = f->redecode ? rec && rec->e.stale : false;
	if (other_route(f, rec, &k))
		return 0;
	if (nlh->nlmsg_type == RTM_DELROUTE) {
		f->st.dels++;
		return no_entry(f, &k, NULL, false);
	}
	if (!f->redecode)
		f->st.adds++;
	if (k.nhid) {
		nh = nh_find(f, k.nhid, &pos);
		if (!nh && k.table == f->table)    /* not sent yet: parked until it is */
			return no_entry(f, &k, nlh, stale);
	}
	if (k.multipath) {
		if (!f->redecode)
			f->st.not_srv6++;      /* srv6d does not read RTA_MULTIPATH nexthops */
		return no_entry(f, &k, NULL, false);
	}
	/* what this store does not take (sids-from without routes-from: a
	 * policy is no SID) is not srv6d's, before the grammar sees it */
	kind = route_kind(&k, nh);
	if (kind && !(f->takes & kind)) {
		if (!f->redecode)
			f->st.not_srv6++;
		return no_entry(f, &k, NULL, false);
	}
	r = nh || !k.nhid ? srv6_rtmsg_conf(nlh, nh ? nh->msg : NULL, ifname_cb, NULL, line,
					    sizeof(line), why, sizeof(why)) : 0;
	if (r == 0) {
		if (!f->redecode)
			f->st.not_srv6++;
		return no_entry(f, &k, NULL, false);
	}
	if (k.table != f->table) {
		if (!f->redecode)
			f->st.refused_table++;
		refuse(f, &k, f->table == RT_TABLE_MAIN ? "not in the main table (a VRF's route: "
		       "srv6d's SIDs and policies are global)" : "not in the table taken");
		return no_entry(f, &k, NULL, false);
	}
	if (r < 0) {
		refuse(f, &k, why);
		return no_entry(f, &k, NULL, false);
	}
	/* a mirrored policy: the kernel's route stays (the fallback once
	 * srv6d has stopped), srv6d's capture route goes one metric before it */
	if (f->origin == SRV6_ORIGIN_KERNEL && !strncmp(line, "route ", 6)) {
		size_t ll = strlen(line);

		if (!k.priority) {
			refuse(f, &k, "metric 0: srv6d's route cannot come before it (the kernel's "
			       "route keeps its traffic; give it a metric of 1 or more)");
			return no_entry(f, &k, NULL, false);
		}
		if (k.priority == 1 && k.family == AF_INET6) {
			refuse(f, &k, "metric 1: srv6d's route would need metric 0, which the kernel "
			       "makes 1024 (the kernel's route keeps its traffic; give it a metric of "
			       "2 or more)");
			return no_entry(f, &k, NULL, false);
		}
		if (snprintf(line + ll, sizeof(line) - ll, " metric %u", k.priority - 1) >=
		    (int)(sizeof(line) - ll)) {
			refuse(f, &k, "route too long");
			return no_entry(f, &k, NULL, false);
		}
	}
	if (line_parse(line, f->origin, &e, why, sizeof(why)) < 0) {
		refuse(f, &k, why);
		return no_entry(f, &k, NULL, false);
	}
	i = key_search(f->ents, f->n, &k, &found);
	if (!found && f->n >= SRV6_FPM_MAX_ENTRIES) {
		refuse(f, &k, "the store is full");
		return no_entry(f, &k, NULL, false);
	}
	/* an entry now: not parked */
	{
		bool pf;
		size_t pi = key_search(f->park, f->npark, &k, &pf);

		if (pf)
			vec_remove(f, f->park, &f->npark, pi);
	}
	fe = found ? f->ents[i] : calloc(1, sizeof(*fe));
	if (!fe) {
		refuse(f, &k, "out of memory");
		return 0;
	}
	if (found && !strcmp(fe->line, line) && fe->e.is_sid == e.is_sid) {
		/* the same entry again: a replay (a new session's replay
		 * also tries a rejected entry again), or the same result
		 * through another nexthop; a re-decode keeps what it was */
		if (f->redecode)
			return 0;
		if (fe->e.stale)
			fe->e.rejected = false;
		fe->e.stale = false;
		fe->key.priority = k.priority;
		/* follow the nexthop the route names now (the old message
		 * goes first: a replay near the bound must not fail) */
		if (fe->msg)
			f->msg_bytes -= ((const struct nlmsghdr *)fe->msg)->nlmsg_len;
		free(fe->msg);
		fe->msg = k.nhid ? msg_keep(f, nlh) : NULL;
		fe->nhid = k.nhid;
		fe->key.nhid = k.nhid;
		if (k.nhid && !fe->msg) {
			refuse(f, &k, "too many messages kept");
			vec_remove(f, f->ents, &f->n, i);
			return 1;
		}
		return 0;
	}
	if (found && fe->msg) {       /* replaced below: its bytes free first */
		f->msg_bytes -= ((const struct nlmsghdr *)fe->msg)->nlmsg_len;
		free(fe->msg);
		fe->msg = NULL;
	}
	char *l = strdup(line);
	void *m = k.nhid ? msg_keep(f, nlh) : NULL;

	if (!l || (k.nhid && !m)) {
		free(l);
		if (m) {
			f->msg_bytes -= nlh->nlmsg_len;
			free(m);
		}
		refuse(f, &k, k.nhid && l ? "too many messages kept" : "out of memory");
		if (!found) {
			free(fe);
			return 0;
		}
		vec_remove(f, f->ents, &f->n, i);
		return 1;
	}
	if (!found && vec_insert(&f->ents, &f->n, &f->cap, i, fe) < 0) {
		free(l);
		if (m) {
			f->msg_bytes -= nlh->nlmsg_len;
			free(m);
		}
		free(fe);
		refuse(f, &k, "out of memory");
		return 0;
	}
	free(fe->line);
	fe->key = k;
	fe->line = l;
	fe->msg = m;
	fe->nhid = k.nhid;
	fe->e = e;
	fe->e.stale = stale;       /* a re-decode does not make a stale entry fresh */
	return 1;
}

/* Decode again the kept messages of routes naming nexthop @id (stored and
 * parked): 1 when the store changed. */
static int redecode(struct srv6_fpm *f, uint32_t id)
{
	uint32_t tmp[SRV6_FPM_MSG_MAX / 4];
	int changed = 0;

	f->redecode = true;
	for (int pass = 0; pass < 2; pass++) {
		struct fent ***v = pass ? &f->park : &f->ents;
		size_t *n = pass ? &f->npark : &f->n;

		for (size_t i = 0; i < *n;) {
			struct fent *fe = (*v)[i];
			size_t before = *n;
			struct srv6_rtkey k = fe->key;
			bool found;

			if (fe->nhid != id || !fe->msg) {
				i++;
				continue;
			}
			memcpy(tmp, fe->msg, ((const struct nlmsghdr *)fe->msg)->nlmsg_len);
			changed |= on_route(f, (const struct nlmsghdr *)tmp) > 0;
			/* the route stays at i, left this vector (i is the
			 * next), or (a parked one) was taken as an entry */
			(void)key_search(*v, *n, &k, &found);
			if (found && *n == before)
				i++;
		}
	}
	f->redecode = false;
	return changed;
}

/* RTM_NEWNEXTHOP / RTM_DELNEXTHOP: kept by id; the routes naming a
 * changed one are decoded again, those naming a deleted one go (the kernel
 * deletes them silently).  1 changed, 0 not, -EPROTO. */
static int on_nexthop(struct srv6_fpm *f, const struct nlmsghdr *nlh)
{
	uint32_t id;
	size_t pos;
	struct fnh *nh;
	void *m;

	if (srv6_nhmsg_id(nlh, nlh->nlmsg_len, &id) < 0 || !id)
		return -EPROTO;
	f->st.nexthops++;
	nh = nh_find(f, id, &pos);
	if (nlh->nlmsg_type == RTM_DELNEXTHOP) {
		size_t gone;

		if (nh)
			nh_remove(f, pos);
		gone = vec_drop(f, f->ents, &f->n, names_nh, id);
		(void)vec_drop(f, f->park, &f->npark, names_nh, id);
		return gone > 0;
	}
	if (nh && nh->len == nlh->nlmsg_len && !memcmp(nh->msg, nlh, nh->len)) {
		nh->stale = false;
		return 0;
	}
	m = msg_keep(f, nlh);
	if (!m) {
		if (nh)
			nh_remove(f, pos);    /* its routes are decoded again without it */
		return redecode(f, id);
	}
	if (!nh) {
		if (f->nnh >= SRV6_FPM_MAX_NEXTHOPS || f->nnh == f->nhcap) {
			size_t ncap = f->nhcap ? f->nhcap * 2 : 64;
			struct fnh *n = f->nnh < SRV6_FPM_MAX_NEXTHOPS ?
					realloc(f->nhs, ncap * sizeof(*n)) : NULL;

			if (!n) {
				f->msg_bytes -= nlh->nlmsg_len;
				free(m);
				return 0;
			}
			f->nhs = n;
			f->nhcap = ncap;
		}
		memmove(&f->nhs[pos + 1], &f->nhs[pos], (f->nnh - pos) * sizeof(*f->nhs));
		f->nnh++;
		nh = &f->nhs[pos];
	} else {
		f->msg_bytes -= nh->len;
		free(nh->msg);
	}
	nh->id = id;
	nh->stale = false;
	nh->msg = m;
	nh->len = nlh->nlmsg_len;
	return redecode(f, id);
}

int srv6_fpm_forget(struct srv6_fpm *f, const struct nlmsghdr *nlh)
{
	struct srv6_rtkey k;

	if (srv6_rtmsg_key(nlh, nlh->nlmsg_len, &k) < 0)
		return 0;
	if (!k.table)
		k.table = RT_TABLE_MAIN;
	if (other_route(f, rec_find(f, &k), &k))
		return 0;
	return no_entry(f, &k, NULL, false);
}

int srv6_fpm_feed_msg(struct srv6_fpm *f, const struct nlmsghdr *nlh)
{
	switch (nlh->nlmsg_type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		return on_route(f, nlh);
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP:
		return on_nexthop(f, nlh);
	default:
		f->st.other++;
		return 0;
	}
}

const struct srv6_fpm_entry *srv6_fpm_find(const struct srv6_fpm *f, int family, const void *dst,
					    uint8_t plen)
{
	struct srv6_rtkey k = { .family = (uint8_t)family, .plen = plen, .table = f->table };
	bool found;
	size_t i;

	memcpy(k.dst, dst, family == AF_INET6 ? 16 : 4);
	i = key_search(f->ents, f->n, &k, &found);
	return found ? &f->ents[i]->e : NULL;
}

/* Remove the stale entries (one pass) and parked routes and nexthops that
 * are stale; the number of entries that went. */
static size_t sweep(struct srv6_fpm *f)
{
	size_t k = 0, gone;

	gone = vec_drop(f, f->ents, &f->n, is_stale, 0);
	(void)vec_drop(f, f->park, &f->npark, is_stale, 0);
	for (size_t i = 0; i < f->nnh; i++) {
		if (f->nhs[i].stale) {
			f->msg_bytes -= f->nhs[i].len;
			free(f->nhs[i].msg);
		} else {
			f->nhs[k++] = f->nhs[i];
		}
	}
	f->nnh = k;
	return gone;
}

/* Everything stale: entries, parked routes, nexthops. */
static void mark_stale(struct srv6_fpm *f, bool stale)
{
	for (size_t i = 0; i < f->n; i++)
		f->ents[i]->e.stale = stale;
	for (size_t i = 0; i < f->npark; i++)
		f->park[i]->e.stale = stale;
	for (size_t i = 0; i < f->nnh; i++)
		f->nhs[i].stale = stale;
}

void srv6_fpm_resync_begin(struct srv6_fpm *f)
{
	mark_stale(f, true);
}

void srv6_fpm_resync_abort(struct srv6_fpm *f)
{
	mark_stale(f, false);
}

int srv6_fpm_resync_end(struct srv6_fpm *f)
{
	return sweep(f) > 0;
}

int srv6_fpm_feed(struct srv6_fpm *f, const void *buf, size_t len, size_t *used)
{
	const uint8_t *p = buf;
	size_t off = 0;
	int changed = 0;

	while (len - off >= SRV6_FPM_HDR) {
		size_t flen = (size_t)p[off + 2] << 8 | p[off + 3];
		size_t moff;

		if (p[off] != 1 || p[off + 1] != 1 || flen < SRV6_FPM_HDR + sizeof(struct nlmsghdr)) {
			f->st.bad++;
			*used = off;
			return -EPROTO;
		}
		if (len - off < flen)
			break;
		f->st.frames++;
		/* one or more netlink messages fill the frame exactly */
		for (moff = off + SRV6_FPM_HDR; moff < off + flen;) {
			const struct nlmsghdr *nlh = (const void *)(p + moff);
			size_t left = off + flen - moff;
			int r;

			if (left < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) ||
			    nlh->nlmsg_len > left || nlh->nlmsg_len % 4) {
				f->st.bad++;
				*used = off;
				return -EPROTO;
			}
			r = srv6_fpm_feed_msg(f, nlh);
			if (r < 0) {
				f->st.bad++;
				*used = off;
				return r;
			}
			changed |= r;
			moff += nlh->nlmsg_len;
		}
		off += flen;
	}
	*used = off;
	return changed;
}

void srv6_fpm_session_lost(struct srv6_fpm *f, int64_t now)
{
	mark_stale(f, true);
	f->grace_on = true;
	f->grace_at = now + f->grace;
}

int srv6_fpm_tick(struct srv6_fpm *f, int64_t now)
{
	size_t gone;

	if (f->lpaused && now >= f->lpause_until)
		f->lpaused = false;
	if (!f->grace_on || now < f->grace_at)
		return 0;
	f->grace_on = false;
	gone = sweep(f);
	f->st.expired += gone;
	if (gone)
		srv6_log(LOG_NOTICE, "%s: %zu entries not sent again within %u s removed",
			 srv6_origin_name((enum srv6_origin)f->origin), gone, f->grace);
	return gone > 0;
}

size_t srv6_fpm_count(const struct srv6_fpm *f)
{
	return f->n;
}

size_t srv6_fpm_parked(const struct srv6_fpm *f)
{
	return f->npark;
}

struct srv6_fpm_entry *srv6_fpm_entry(struct srv6_fpm *f, size_t i)
{
	return &f->ents[i]->e;
}

const struct srv6_fpm_stats *srv6_fpm_stats(const struct srv6_fpm *f)
{
	return &f->st;
}

/* ---- sockets ---- */

static void sa_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const void *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s4->sin_port));
	}
}

int srv6_fpm_listen(struct srv6_fpm *f, const struct srv6_conf_fpm *c, char *err, size_t errlen)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	int fd, one = 1;

	if (c->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (void *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(c->port);
		memcpy(&s6->sin6_addr, c->addr, 16);
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (void *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(c->port);
		memcpy(&s4->sin_addr, c->addr, 4);
		sl = sizeof(*s4);
	}
	sa_str(&ss, f->laddr, sizeof(f->laddr));
	fd = socket(c->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (c->family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, 4) < 0)
		goto fail_close;
	f->lfd = fd;
	return 0;

fail_close:
	{
		int e = errno;

		close(fd);
		errno = e;
	}
fail:
	{
		int e = errno;

		snprintf(err, errlen, "fpm listen %s: %s", f->laddr, strerror(e));
		return -e;
	}
}

static void session_close(struct srv6_fpm *f, int64_t now, const char *why)
{
	srv6_log(LOG_NOTICE, "fpm: session from %s ended (%s): %zu entries kept for %u s", f->peer,
		 why, f->n, f->grace);
	close(f->sfd);
	f->sfd = -1;
	f->rxlen = 0;
	srv6_fpm_session_lost(f, now);
}

int srv6_fpm_pollfds(const struct srv6_fpm *f, struct pollfd *pfd)
{
	int n = 0;

	/* the session first: its end is seen before a new connection */
	if (f->sfd >= 0)
		pfd[n++] = (struct pollfd){ .fd = f->sfd, .events = POLLIN };
	if (f->lfd >= 0 && !f->lpaused)
		pfd[n++] = (struct pollfd){ .fd = f->lfd, .events = POLLIN };
	return n;
}

static int session_read(struct srv6_fpm *f, int64_t now)
{
	size_t budget = FPM_READ_BUDGET;
	int changed = 0;

	while (f->sfd >= 0 && budget) {
		uint8_t *b = (uint8_t *)f->rx;
		ssize_t n = read(f->sfd, b + f->rxlen, sizeof(f->rx) - f->rxlen);
		size_t used;
		int r;

		if (n == 0) {
			session_close(f, now, "closed by zebra");
			break;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				session_close(f, now, strerror(errno));
			break;
		}
		budget = (size_t)n >= budget ? 0 : budget - (size_t)n;
		f->rxlen += (size_t)n;
		r = srv6_fpm_feed(f, b, f->rxlen, &used);
		if (r < 0) {
			char why[96];

			snprintf(why, sizeof(why), "a malformed frame at byte %zu of the buffer", used);
			session_close(f, now, why);
			changed = 1;     /* the frames before it may have changed the store */
			break;
		}
		changed |= r;
		memmove(b, b + used, f->rxlen - used);
		f->rxlen -= used;
	}
	return changed;
}

int srv6_fpm_process(struct srv6_fpm *f, const struct pollfd *pfd, int n, int64_t now)
{
	int changed = 0;

	for (int i = 0; i < n; i++) {
		if (!pfd[i].revents)
			continue;
		if (pfd[i].fd == f->lfd) {
			struct sockaddr_storage ss;
			socklen_t sl = sizeof(ss);
			char who[64];
			int fd = accept4(f->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
			int one = 1, idle = 10, intvl = 5, cnt = 3;

			if (fd < 0) {
				if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
					/* EMFILE and the like: the listener would stay
					 * readable and the loop spin; rest a second */
					srv6_log(LOG_WARNING, "fpm: accept: %s (listener paused 1 s)",
						 strerror(errno));
					f->lpaused = true;
					f->lpause_until = now + 1;
				}
				continue;
			}
			sa_str(&ss, who, sizeof(who));
			if (f->sfd >= 0) {
				/* one session: a live one is not taken over (keepalives
				 * end a dead one within about 25 s) */
				f->st.refused_conns++;
				srv6_log(LOG_WARNING, "fpm: connection from %s refused: the session from %s "
					 "is up", who, f->peer);
				close(fd);
				continue;
			}
			(void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
			(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
			(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
			(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
			f->sfd = fd;
			f->rxlen = 0;
			f->logged = 0;
			f->since = time(NULL);
			f->st.sessions++;
			memcpy(f->peer, who, sizeof(f->peer));
			srv6_log(LOG_NOTICE, "fpm: session from %s (%zu entries kept from before)",
				 f->peer, f->n);
		} else if (pfd[i].fd == f->sfd) {
			changed |= session_read(f, now);
		}
	}
	return changed;
}

void srv6_fpm_state(const struct srv6_fpm *f, int64_t now, char *buf, size_t len)
{
	char t[32] = "";
	struct tm tm;

	if (f->sfd >= 0 && gmtime_r(&f->since, &tm))
		strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (f->sfd >= 0)
		snprintf(buf, len, "listening %s, session from %s since %s", f->laddr, f->peer, t);
	else if (f->grace_on)
		snprintf(buf, len, "listening %s, no session (stale entries removed in %lld s)",
			 f->laddr, (long long)(f->grace_at > now ? f->grace_at - now : 0));
	else
		snprintf(buf, len, "listening %s, no session", f->laddr);
}
