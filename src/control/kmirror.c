// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmirror.c - the kernel's seg6local routes into srv6d's SIDs, its seg6
 * encap routes into srv6d's policies (kmirror.h): an rtnetlink subscription
 * (RTNLGRP_IPV6_ROUTE, RTNLGRP_NEXTHOP, and RTNLGRP_IPV4_ROUTE for the
 * policies) and dumps, fed message by message into an fpm.h store of
 * origin kernel.
 * Control thread only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "srv6d/fallback.h"
#include "srv6d/kmirror.h"
#include "srv6d/log.h"
#include "srv6d/rtdump.h"
#include "srv6d/rtmsg.h"

#define KM_BUF 65536

struct srv6_kmirror {
	struct mnl_socket *ev;        /* events */
	struct srv6_fpm *store;
	uint32_t table;
	int proto;
	bool routes;              /* routes-from kernel: IPv4 routes too */
	const char *what;         /* the conf line's words, for the log */
	bool need_resync;         /* events were lost and a dump failed: tick */
	bool dirty;               /* a dump changed the store: not applied yet */
	struct srv6_kmirror_stats st;
};


/* Take @nlh (nlmsg_len bytes checked by libmnl) when it is ours: 1 changed. */
static int take(struct srv6_kmirror *m, const struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_type == RTM_NEWROUTE || nlh->nlmsg_type == RTM_DELROUTE) {
		struct srv6_rtkey k;
		const struct rtmsg *rtm;

		if (srv6_rtmsg_key(nlh, nlh->nlmsg_len, &k) < 0 ||
		    (k.family != AF_INET6 && !(m->routes && k.family == AF_INET))) {
			m->st.filtered++;
			return 0;
		}
		rtm = mnl_nlmsg_get_payload(nlh);
		/* other tables, other types (srv6d's fail-open blackholes, the
		 * local table's routes), srv6d's own routes (fallback.h's
		 * protocol: never a SID, never a reason to drop one) */
		if ((k.table ? k.table : RT_TABLE_MAIN) != m->table || rtm->rtm_type != RTN_UNICAST ||
		    rtm->rtm_protocol == SRV6_FALLBACK_PROTO) {
			m->st.filtered++;
			return 0;
		}
		/* another protocol: not taken, and a SID it replaced is gone */
		if (m->proto >= 0 && rtm->rtm_protocol != m->proto) {
			m->st.filtered++;
			return srv6_fpm_forget(m->store, nlh) > 0;
		}
	} else if (nlh->nlmsg_type != RTM_NEWNEXTHOP && nlh->nlmsg_type != RTM_DELNEXTHOP) {
		return 0;
	}
	m->st.events++;
	return srv6_fpm_feed_msg(m->store, nlh) > 0;
}

struct walk {
	struct srv6_kmirror *m;
	int changed;
};

static int walk_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct walk *w = arg;

	w->changed |= take(w->m, nlh);
	return MNL_CB_OK;
}

/* Dump message type @type (RTM_GETROUTE of @family / RTM_GETNEXTHOP) on a
 * socket of its own into the store (m->dirty when it changed it).  0 or
 * -errno. */
static int dump_one(struct srv6_kmirror *m, uint16_t type, uint8_t family)
{
	static char buf[KM_BUF] __attribute__((aligned(8)));
	struct rtmsg rtm = { .rtm_family = family };
	struct nhmsg nhm = { .nh_family = AF_UNSPEC };
	struct walk w = { .m = m };
	int r;

	if (type == RTM_GETROUTE)
		r = srv6_nl_dump(type, &rtm, sizeof(rtm), buf, sizeof(buf), walk_cb, &w);
	else
		r = srv6_nl_dump(type, &nhm, sizeof(nhm), buf, sizeof(buf), walk_cb, &w);
	/* what a dump changed stays changed when a later one fails: it is
	 * reported by the next resync that works */
	m->dirty |= w.changed;
	return r;
}

/* dump_one(), again while the kernel says the dump was interrupted (libmnl
 * turns NLM_F_DUMP_INTR into EINTR: the table changed meanwhile). */
static int dump_retry(struct srv6_kmirror *m, uint16_t type, uint8_t family)
{
	int r = -EINTR;

	for (int i = 0; i < 4 && r == -EINTR; i++)
		r = dump_one(m, type, family);
	return r;
}

/* A full dump: nexthop objects first (the routes name them), then the
 * routes (IPv6, and IPv4 for policies); entries the dump does not have go.
 * 1 changed, 0 not, -errno (a failed dump is no deletion: the entries
 * stay; what it changed is reported by the next resync that works). */
static int resync(struct srv6_kmirror *m)
{
	int a, b, r;

	m->st.dumps++;
	srv6_fpm_resync_begin(m->store);
	a = dump_retry(m, RTM_GETNEXTHOP, AF_UNSPEC);
	if (a == -EOPNOTSUPP || a == -EAFNOSUPPORT)
		a = 0;                       /* a kernel without nexthop objects */
	b = a < 0 ? a : dump_retry(m, RTM_GETROUTE, AF_INET6);
	if (b >= 0 && m->routes)
		b = dump_retry(m, RTM_GETROUTE, AF_INET);
	if (b < 0) {
		srv6_fpm_resync_abort(m->store);
		m->need_resync = true;
		return b;
	}
	m->need_resync = false;
	r = m->dirty | srv6_fpm_resync_end(m->store);
	m->dirty = false;
	return r;
}

int srv6_kmirror_tick(struct srv6_kmirror *m)
{
	int r;

	if (!m->need_resync)
		return 0;
	r = resync(m);
	if (r < 0) {
		srv6_log(LOG_ERR, "%s: route dump: %s (tried again in a second)", m->what,
			 strerror(-r));
		return 0;
	}
	srv6_log(LOG_NOTICE, "%s: the routes dumped again: the mirror is whole", m->what);
	return r;
}

struct srv6_kmirror *srv6_kmirror_open(const struct srv6_conf_kmirror *c, char *err,
				       size_t errlen)
{
	const char *what = c->sids && c->routes ? "sids-from/routes-from kernel" :
			   c->sids ? "sids-from kernel" : "routes-from kernel";
	struct srv6_kmirror *m = calloc(1, sizeof(*m));
	int r;

	if (!m) {
		snprintf(err, errlen, "%s: out of memory", what);
		return NULL;
	}
	m->table = c->table;
	m->proto = c->proto;
	m->routes = c->routes;
	m->what = what;
	m->store = srv6_fpm_new(0);
	if (!m->store) {
		snprintf(err, errlen, "%s: out of memory", m->what);
		goto out_free;
	}
	srv6_fpm_configure(m->store, SRV6_ORIGIN_KERNEL, c->table,
			   (c->sids ? SRV6_FPM_TAKE_SIDS : 0) | (c->routes ? SRV6_FPM_TAKE_ROUTES : 0));
	/* subscribed before the dump: no change between the two is missed
	 * (an event the dump already holds is taken again: no change) */
	m->ev = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!m->ev || mnl_socket_bind(m->ev, 1u << (RTNLGRP_IPV6_ROUTE - 1), MNL_SOCKET_AUTOPID) < 0) {
		snprintf(err, errlen, "%s: rtnetlink: %s", m->what, strerror(errno));
		goto out_free;
	}
	(void)mnl_socket_setsockopt(m->ev, NETLINK_ADD_MEMBERSHIP,
				    &(int){ RTNLGRP_NEXTHOP }, sizeof(int));
	if (m->routes && mnl_socket_setsockopt(m->ev, NETLINK_ADD_MEMBERSHIP,
					       &(int){ RTNLGRP_IPV4_ROUTE }, sizeof(int)) < 0) {
		snprintf(err, errlen, "%s: rtnetlink: %s", m->what, strerror(errno));
		goto out_free;
	}
	/* room for a burst (a routing daemon installing a table): 4 MiB, past
	 * rmem_max as root (an overrun is repaired by a dump anyway) */
	if (setsockopt(mnl_socket_get_fd(m->ev), SOL_SOCKET, SO_RCVBUFFORCE, &(int){ 4 << 20 },
		       sizeof(int)) < 0)
		(void)setsockopt(mnl_socket_get_fd(m->ev), SOL_SOCKET, SO_RCVBUF, &(int){ 4 << 20 },
				 sizeof(int));
	r = resync(m);
	if (r < 0) {
		snprintf(err, errlen, "%s: route dump: %s", m->what, strerror(-r));
		errno = -r;
		goto out_free;
	}
	return m;

out_free:
	srv6_kmirror_close(m);
	return NULL;
}

void srv6_kmirror_close(struct srv6_kmirror *m)
{
	if (!m)
		return;
	if (m->ev)
		mnl_socket_close(m->ev);
	srv6_fpm_free(m->store);
	free(m);
}

int srv6_kmirror_fd(const struct srv6_kmirror *m)
{
	return mnl_socket_get_fd(m->ev);
}

int srv6_kmirror_process(struct srv6_kmirror *m)
{
	static char buf[KM_BUF] __attribute__((aligned(8)));
	struct walk w = { .m = m };

	for (unsigned int n = 0; n < 1024; n++) {
		ssize_t len = mnl_socket_recvfrom(m->ev, buf, sizeof(buf));

		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {   /* events lost: the dump says what is */
				m->st.overruns++;
				m->need_resync = true;
				continue;
			}
			break;    /* EAGAIN: all read */
		}
		(void)mnl_cb_run(buf, (size_t)len, 0, 0, walk_cb, &w);
	}
	/* at most one dump a call, after the events read */
	if (m->need_resync) {
		int r;

		srv6_log(LOG_WARNING, "%s: route events lost (ENOBUFS): dumping the routes again",
			 m->what);
		r = resync(m);
		if (r < 0)
			srv6_log(LOG_ERR, "%s: route dump: %s (tried again in a second)", m->what,
				 strerror(-r));
		else
			w.changed |= r;
	}
	return w.changed;
}

struct srv6_fpm *srv6_kmirror_store(struct srv6_kmirror *m)
{
	return m->store;
}

const struct srv6_kmirror_stats *srv6_kmirror_stats(const struct srv6_kmirror *m)
{
	return &m->st;
}
