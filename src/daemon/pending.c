// SPDX-License-Identifier: GPL-2.0-or-later
/* pending.c - SIDs and policies waiting for what they need (include/srv6d/pending.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv6d/headend.h"
#include "srv6d/log.h"
#include "srv6d/pending.h"

/* The reason of an entry whose text could not be allocated. */
static char nomem[] = "(reason not kept: out of memory)";

int srv6_pending_init(struct srv6_pending *p, const char *path, const struct srv6_conf *c)
{
	size_t n = c->nsids + c->nroutes;

	memset(p, 0, sizeof(*p));
	p->path = path;
	p->nsids = c->nsids;
	p->nroutes = c->nroutes;
	/* one spare element each: calloc(0) may return NULL */
	p->nh = calloc(c->nsids + 1, sizeof(*p->nh));
	p->src = calloc(n + 1, sizeof(*p->src));
	p->logged = calloc(n + 1, sizeof(*p->logged));
	if (!p->nh || !p->src || !p->logged) {
		srv6_pending_free(p);
		return -ENOMEM;
	}
	return 0;
}

void srv6_pending_free(struct srv6_pending *p)
{
	for (size_t i = 0; p->nh && i < p->nsids; i++)
		free(p->nh[i].why);
	for (size_t i = 0; p->src && i < p->nsids + p->nroutes; i++)
		if (p->src[i] != nomem)
			free(p->src[i]);
	free(p->nh);
	free(p->src);
	free(p->logged);
	memset(p, 0, sizeof(*p));
}

int srv6_pending_set_src(struct srv6_pending *p, size_t i, const char *why)
{
	if (p->src[i] && p->src[i] != nomem && !strcmp(p->src[i], why))
		return 0;
	if (p->src[i] != nomem)
		free(p->src[i]);
	p->src[i] = NULL;
	if (!why[0])
		return 0;
	p->src[i] = strdup(why);
	if (!p->src[i]) {
		p->src[i] = nomem;
		return -ENOMEM;
	}
	return 0;
}

/* Entry @i (SIDs first, then routes): whether it waits, and for what. */
static const char *why_of(const struct srv6_pending *p, size_t i)
{
	if (i < p->nsids && p->nh[i].err)
		return p->nh[i].why ? p->nh[i].why : nomem;
	return p->src[i];
}

unsigned int srv6_pending_update(struct srv6_pending *p, struct srv6_conf *c)
{
	unsigned int changed = 0;
	size_t i;

	p->count = 0;
	for (i = 0; i < p->nsids && i < c->nsids; i++) {
		bool on = why_of(p, i) != NULL;

		changed += c->sids[i].cfg.pending != on;
		c->sids[i].cfg.pending = on;
		p->count += on;
	}
	for (i = 0; i < p->nroutes && i < c->nroutes; i++) {
		bool on = why_of(p, p->nsids + i) != NULL;

		changed += c->routes[i].pol.pending != on;
		c->routes[i].pol.pending = on;
		p->count += on;
	}
	return changed;
}

/* "sid 2001:db8::1/128 End.X" or "route 10.0.0.0/8 encap" for entry @i, and
 * where it came from into @where (SRV6_PENDING_WHERE bytes). */
#define SRV6_PENDING_WHERE 4200
static void name_of(const struct srv6_pending *p, const struct srv6_conf *c, size_t i,
		    char *buf, size_t len, char *where)
{
	char a[INET6_ADDRSTRLEN];

	if (i < p->nsids) {
		const struct srv6_conf_sid *s = &c->sids[i];

		inet_ntop(AF_INET6, &s->prefix, a, sizeof(a));
		snprintf(buf, len, "sid %s/%u %s", a, s->plen, srv6_action_name(s->cfg.action));
		srv6_origin_where(p->path, s->origin, s->line, where, SRV6_PENDING_WHERE);
	} else {
		const struct srv6_conf_route *r = &c->routes[i - p->nsids];

		inet_ntop(r->family, &r->prefix, a, sizeof(a));
		snprintf(buf, len, "route %s/%u %s", a, r->plen, srv6_mode_name(r->pol.mode));
		srv6_origin_where(p->path, r->origin, r->line, where, SRV6_PENDING_WHERE);
	}
}

void srv6_pending_log(struct srv6_pending *p, const struct srv6_conf *c)
{
	for (size_t i = 0; i < p->nsids + p->nroutes; i++) {
		const char *why = why_of(p, i);
		char name[INET6_ADDRSTRLEN + 64], where[SRV6_PENDING_WHERE];

		if ((why != NULL) == p->logged[i])
			continue;
		p->logged[i] = why != NULL;
		name_of(p, c, i, name, sizeof(name), where);
		if (why)
			srv6_log(LOG_WARNING, "%s: %s pending: %s (its packets are dropped "
				 "and counted as \"pending\" until it completes)", where, name, why);
		else
			srv6_log(LOG_NOTICE, "%s: %s complete", where, name);
	}
}

void srv6_pending_print(const struct srv6_pending *p, const struct srv6_conf *c, FILE *f)
{
	size_t sids = 0, routes = 0;

	for (size_t i = 0; i < p->nsids + p->nroutes; i++)
		if (why_of(p, i))
			*(i < p->nsids ? &sids : &routes) += 1;
	if (f)
		fprintf(f, "pending total=%zu sids=%zu routes=%zu\n", sids + routes, sids, routes);
	else
		srv6_log(LOG_INFO, "pending total=%zu sids=%zu routes=%zu", sids + routes, sids,
			 routes);
	for (size_t i = 0; i < p->nsids + p->nroutes; i++) {
		const char *why = why_of(p, i);
		char name[INET6_ADDRSTRLEN + 64], where[SRV6_PENDING_WHERE];

		if (!why)
			continue;
		name_of(p, c, i, name, sizeof(name), where);
		if (f)
			fprintf(f, "pending %s %s: %s\n", name, where, why);
		else
			srv6_log(LOG_INFO, "pending %s %s: %s", name, where, why);
	}
}

/* "NAME\tWHERE" of entry @i, with "\tWHY" when @why and it is pending;
 * malloc'ed, NULL on no memory or (with @why) when it is not pending. */
static char *said_key(const struct srv6_pending *p, const struct srv6_conf *c, size_t i, bool why)
{
	char name[INET6_ADDRSTRLEN + 64], where[SRV6_PENDING_WHERE], *k;
	const char *w = why_of(p, i);

	if (why && !w)
		return NULL;
	name_of(p, c, i, name, sizeof(name), where);
	if (why ? asprintf(&k, "%s\t%s\t%s", name, where, w) < 0 :
		  asprintf(&k, "%s\t%s", name, where) < 0)
		return NULL;
	return k;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The keys of @old's logged entries, sorted, into *@keys: how many. */
static size_t said_keys(const struct srv6_pending *old, const struct srv6_conf *oc, bool why,
			char ***keys)
{
	size_t n = 0, nold = old->nsids + old->nroutes;

	*keys = calloc(nold + 1, sizeof(**keys));
	if (!*keys)
		return 0;
	for (size_t j = 0; j < nold; j++)
		if (old->logged[j] && ((*keys)[n] = said_key(old, oc, j, why)))
			n++;
	qsort(*keys, n, sizeof(**keys), key_cmp);
	return n;
}

static bool has_key(char **keys, size_t n, const char *k)
{
	return k && n && bsearch(&k, keys, n, sizeof(*keys), key_cmp);
}

size_t srv6_pending_carry(struct srv6_pending *np, const struct srv6_conf *nc,
			  const struct srv6_pending *old, const struct srv6_conf *oc)
{
	char **full = NULL, **bare = NULL;
	size_t nf, nb, carried = 0;

	if (!old->logged || old->nsids + old->nroutes == 0)
		return 0;
	/* still waiting for the same thing: said; resolved: "complete" is
	 * due (srv6_pending_log says it for an entry logged but no longer
	 * pending) */
	nf = said_keys(old, oc, true, &full);
	nb = said_keys(old, oc, false, &bare);
	for (size_t i = 0; (nf || nb) && i < np->nsids + np->nroutes; i++) {
		bool pending = why_of(np, i) != NULL;
		char *k = said_key(np, nc, i, pending);

		if (pending ? has_key(full, nf, k) : has_key(bare, nb, k)) {
			np->logged[i] = true;
			carried += pending;
		}
		free(k);
	}
	for (size_t j = 0; j < nf; j++)
		free(full[j]);
	for (size_t j = 0; j < nb; j++)
		free(bare[j]);
	free(full);
	free(bare);
	return carried;
}
