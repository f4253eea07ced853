// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fpm.c - zebra's FPM stream into a store of SIDs and headend policies
 * (fpm.h).  The frames' routes go through the one route decoder
 * (src/conf/rtmsg.c) and the conf grammar; the store is a sorted array
 * (binary search by key), so a 10k-route replay costs 10k searches and
 * memmoves of pointers.  Control thread only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "srv6d/fpm.h"
#include "srv6d/log.h"
#include "srv6d/rtmsg.h"

#define FPM_READ_BUDGET (4u << 20)
#define FPM_LOG_MAX     8         /* refused routes named per session */

struct fent {
	struct srv6_rtkey key;    /* family, plen, dst, table compared */
	uint32_t nhid;
	char *line;               /* the canonical conf line */
	void *msg;                /* the route's message when it names a nexthop */
	struct srv6_fpm_entry e;
};

struct fnh {
	uint32_t id;
	void *msg;
	size_t len;
};

struct srv6_fpm {
	unsigned int grace;
	uint8_t origin;           /* enum srv6_origin of the entries */
	uint32_t table;           /* the one table taken (main) */
	struct fent *ents;
	size_t n, cap;
	struct fnh *nhs;
	size_t nnh, nhcap;
	int64_t grace_at;         /* 0: no stale entry waits */
	struct srv6_fpm_stats st;
	unsigned int logged;      /* refused routes named this session */
	/* sockets */
	int lfd, sfd;
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

/* The index of @k, or where it would go (*@found false). */
static size_t ent_find(const struct srv6_fpm *f, const struct srv6_rtkey *k, bool *found)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(&f->ents[mid].key, k);

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

static void ent_remove(struct srv6_fpm *f, size_t i)
{
	free(f->ents[i].line);
	free(f->ents[i].msg);
	memmove(&f->ents[i], &f->ents[i + 1], (f->n - i - 1) * sizeof(*f->ents));
	f->n--;
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

struct srv6_fpm *srv6_fpm_new(unsigned int grace_s)
{
	struct srv6_fpm *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->grace = grace_s;
	f->origin = SRV6_ORIGIN_FPM;
	f->table = RT_TABLE_MAIN;
	f->lfd = f->sfd = -1;
	return f;
}

void srv6_fpm_configure(struct srv6_fpm *f, enum srv6_origin origin, uint32_t table)
{
	f->origin = (uint8_t)origin;
	f->table = table;
}

void srv6_fpm_free(struct srv6_fpm *f)
{
	if (!f)
		return;
	if (f->sfd >= 0)
		close(f->sfd);
	if (f->lfd >= 0)
		close(f->lfd);
	while (f->n)
		ent_remove(f, f->n - 1);
	for (size_t i = 0; i < f->nnh; i++)
		free(f->nhs[i].msg);
	free(f->ents);
	free(f->nhs);
	free(f);
}

static const char *ifname_cb(unsigned int ifindex, char *buf, void *arg)
{
	(void)arg;
	return if_indextoname(ifindex, buf);
}

/* A refused SRv6 route: counted, and named while this session has named
 * fewer than FPM_LOG_MAX. */
static void refuse(struct srv6_fpm *f, const struct srv6_rtkey *k, const char *why)
{
	char a[INET6_ADDRSTRLEN] = "?";

	f->st.refused++;
	if (f->logged++ >= FPM_LOG_MAX) {
		if (f->logged == FPM_LOG_MAX + 1)
			srv6_log(LOG_WARNING, "fpm: more routes refused this session (counted: "
				 "srv6ctl status)");
		return;
	}
	inet_ntop(k->family, k->dst, a, sizeof(a));
	srv6_log(LOG_WARNING, "fpm: route %s/%u table %u refused: %s", a, k->plen, k->table, why);
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

/* Drop the entry at @k, if any: 1 when one went. */
static int drop_key(struct srv6_fpm *f, const struct srv6_rtkey *k)
{
	bool found;
	size_t i = ent_find(f, k, &found);

	if (!found)
		return 0;
	ent_remove(f, i);
	return 1;
}

/* RTM_NEWROUTE / RTM_DELROUTE @nlh (nlmsg_len checked).  1 changed, 0 not, -EPROTO. */
static int on_route(struct srv6_fpm *f, const struct nlmsghdr *nlh)
{
	char line[SRV6_CONF_LINE_MAX], why[SRV6_CONF_ERRLEN];
	struct srv6_fpm_entry e;
	const struct fnh *nh = NULL;
	struct srv6_rtkey k;
	struct fent *fe;
	bool found;
	size_t i, pos;
	int r;

	if (srv6_rtmsg_key(nlh, nlh->nlmsg_len, &k) < 0)
		return -EPROTO;
	if (nlh->nlmsg_type == RTM_DELROUTE) {
		f->st.dels++;
		return drop_key(f, &k);
	}
	f->st.adds++;
	if (k.nhid) {
		nh = nh_find(f, k.nhid, &pos);
		if (!nh) {
			if (!k.encap_type)     /* could be anything: a plain route, likely */
				f->st.not_srv6++;
			else
				refuse(f, &k, "its nexthop object was not sent");
			return drop_key(f, &k);
		}
	}
	if (k.multipath) {
		f->st.not_srv6++;      /* srv6d does not read RTA_MULTIPATH nexthops */
		return drop_key(f, &k);
	}
	r = srv6_rtmsg_conf(nlh, nh ? nh->msg : NULL, ifname_cb, NULL, line, sizeof(line), why,
			    sizeof(why));
	if (r == 0) {
		f->st.not_srv6++;
		return drop_key(f, &k);
	}
	if (r < 0) {
		refuse(f, &k, why);
		return drop_key(f, &k);
	}
	if ((k.table ? k.table : RT_TABLE_MAIN) != f->table) {
		f->st.refused_table++;
		refuse(f, &k, f->table == RT_TABLE_MAIN ? "not in the main table (a VRF's route: "
		       "srv6d's SIDs and policies are global)" : "not in the table taken");
		return drop_key(f, &k);
	}
	if (line_parse(line, f->origin, &e, why, sizeof(why)) < 0) {
		refuse(f, &k, why);
		return drop_key(f, &k);
	}
	i = ent_find(f, &k, &found);
	if (found) {
		fe = &f->ents[i];
		if (!strcmp(fe->line, line) && fe->e.is_sid == e.is_sid) {
			fe->e.stale = false;   /* the same entry again: a replay */
			return 0;
		}
	} else {
		if (f->n >= SRV6_FPM_MAX_ENTRIES) {
			refuse(f, &k, "the store is full");
			return 0;
		}
		if (f->n == f->cap) {
			size_t ncap = f->cap ? f->cap * 2 : 64;
			struct fent *n = realloc(f->ents, ncap * sizeof(*n));

			if (!n) {
				refuse(f, &k, "out of memory");
				return 0;
			}
			f->ents = n;
			f->cap = ncap;
		}
		memmove(&f->ents[i + 1], &f->ents[i], (f->n - i) * sizeof(*f->ents));
		f->n++;
		fe = &f->ents[i];
		memset(fe, 0, sizeof(*fe));
		fe->key = k;
	}
	char *l = strdup(line);
	void *m = k.nhid ? malloc(nlh->nlmsg_len) : NULL;

	if (!l || (k.nhid && !m)) {
		free(l);
		free(m);
		if (!found)
			memmove(&f->ents[i], &f->ents[i + 1], (--f->n - i) * sizeof(*f->ents));
		else
			ent_remove(f, i);
		refuse(f, &k, "out of memory");
		return found;
	}
	if (m)
		memcpy(m, nlh, nlh->nlmsg_len);
	free(fe->line);
	free(fe->msg);
	fe->line = l;
	fe->msg = m;
	fe->nhid = k.nhid;
	fe->key.nhid = k.nhid;
	fe->e = e;
	return 1;
}

/* RTM_NEWNEXTHOP / RTM_DELNEXTHOP: kept by id; the routes naming a
 * changed one are decoded again.  1 changed, 0 not, -EPROTO. */
static int on_nexthop(struct srv6_fpm *f, const struct nlmsghdr *nlh)
{
	uint32_t id;
	size_t pos;
	struct fnh *nh;
	int changed = 0;

	if (srv6_nhmsg_id(nlh, nlh->nlmsg_len, &id) < 0 || !id)
		return -EPROTO;
	f->st.nexthops++;
	nh = nh_find(f, id, &pos);
	if (nlh->nlmsg_type == RTM_DELNEXTHOP) {
		if (nh) {
			free(nh->msg);
			memmove(nh, nh + 1, (f->nnh - pos - 1) * sizeof(*nh));
			f->nnh--;
		}
		return 0;     /* zebra deletes the routes first */
	}
	if (nh && nh->len == nlh->nlmsg_len && !memcmp(nh->msg, nlh, nh->len))
		return 0;
	void *m = malloc(nlh->nlmsg_len);

	if (!m)
		return 0;
	memcpy(m, nlh, nlh->nlmsg_len);
	if (!nh) {
		if (f->nnh >= SRV6_FPM_MAX_NEXTHOPS) {
			free(m);
			return 0;
		}
		if (f->nnh == f->nhcap) {
			size_t ncap = f->nhcap ? f->nhcap * 2 : 64;
			struct fnh *n = realloc(f->nhs, ncap * sizeof(*n));

			if (!n) {
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
		free(nh->msg);
	}
	nh->id = id;
	nh->msg = m;
	nh->len = nlh->nlmsg_len;
	/* the routes that name it, decoded again from their own messages */
	for (size_t i = 0; i < f->n;) {
		size_t n = f->n;

		if (f->ents[i].nhid != id || !f->ents[i].msg) {
			i++;
			continue;
		}
		uint32_t tmp[(SRV6_FPM_FRAME_MAX + 3) / 4];
		const struct nlmsghdr *r = f->ents[i].msg;

		memcpy(tmp, r, r->nlmsg_len);
		changed |= on_route(f, (const struct nlmsghdr *)tmp) > 0;
		f->st.adds--;          /* not a message zebra sent */
		if (f->n == n)
			i++;
	}
	return changed;
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

bool srv6_fpm_has(const struct srv6_fpm *f, int family, const void *dst, uint8_t plen)
{
	struct srv6_rtkey k = { .family = (uint8_t)family, .plen = plen, .table = f->table };
	bool found;

	memcpy(k.dst, dst, family == AF_INET6 ? 16 : 4);
	(void)ent_find(f, &k, &found);
	return found;
}

void srv6_fpm_resync_begin(struct srv6_fpm *f)
{
	for (size_t i = 0; i < f->n; i++)
		f->ents[i].e.stale = true;
}

void srv6_fpm_resync_abort(struct srv6_fpm *f)
{
	for (size_t i = 0; i < f->n; i++)
		f->ents[i].e.stale = false;
}

int srv6_fpm_resync_end(struct srv6_fpm *f)
{
	size_t gone = 0;

	for (size_t i = 0; i < f->n;) {
		if (f->ents[i].e.stale) {
			ent_remove(f, i);
			gone++;
		} else {
			i++;
		}
	}
	return gone > 0;
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
			int r = 0;

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
	for (size_t i = 0; i < f->n; i++)
		f->ents[i].e.stale = true;
	f->grace_at = f->n ? now + f->grace : 0;
}

int srv6_fpm_tick(struct srv6_fpm *f, int64_t now)
{
	size_t gone = 0;

	if (!f->grace_at || now < f->grace_at)
		return 0;
	f->grace_at = 0;
	for (size_t i = 0; i < f->n;) {
		if (f->ents[i].e.stale) {
			ent_remove(f, i);
			gone++;
		} else {
			i++;
		}
	}
	f->st.expired += gone;
	if (gone)
		srv6_log(LOG_NOTICE, "fpm: %zu entries zebra did not send again within %u s removed",
			 gone, f->grace);
	return gone > 0;
}

size_t srv6_fpm_count(const struct srv6_fpm *f)
{
	return f->n;
}

struct srv6_fpm_entry *srv6_fpm_entry(struct srv6_fpm *f, size_t i)
{
	return &f->ents[i].e;
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
	snprintf(err, errlen, "fpm listen %s: %s", f->laddr, strerror(errno));
	return -errno;
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

	if (f->lfd >= 0)
		pfd[n++] = (struct pollfd){ .fd = f->lfd, .events = POLLIN };
	if (f->sfd >= 0)
		pfd[n++] = (struct pollfd){ .fd = f->sfd, .events = POLLIN };
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
			int fd = accept4(f->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (fd < 0)
				continue;
			if (f->sfd >= 0)
				session_close(f, now, "a new connection replaces it");
			f->sfd = fd;
			f->rxlen = 0;
			f->logged = 0;
			f->since = time(NULL);
			f->st.sessions++;
			sa_str(&ss, f->peer, sizeof(f->peer));
			srv6_log(LOG_NOTICE, "fpm: session from %s (%zu entries kept from before)",
				 f->peer, f->n);
		} else if (pfd[i].fd == f->sfd) {
			changed |= session_read(f, now);
		}
	}
	return changed;
}

void srv6_fpm_state(const struct srv6_fpm *f, char *buf, size_t len)
{
	char t[32] = "";
	struct tm tm;

	if (f->sfd >= 0 && gmtime_r(&f->since, &tm))
		strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (f->sfd >= 0)
		snprintf(buf, len, "listening %s, session from %s since %s", f->laddr, f->peer, t);
	else if (f->grace_at)
		snprintf(buf, len, "listening %s, no session (stale entries removed in at most %u s)",
			 f->laddr, f->grace);
	else
		snprintf(buf, len, "listening %s, no session", f->laddr);
}
