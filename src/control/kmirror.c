// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmirror.c - the kernel's seg6local routes into srv6d's SIDs (kmirror.h):
 * an rtnetlink subscription (RTNLGRP_IPV6_ROUTE, RTNLGRP_NEXTHOP) and
 * dumps, fed message by message into an fpm.h store of origin kernel.
 * Control thread only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "srv6d/kmirror.h"
#include "srv6d/log.h"
#include "srv6d/rtmsg.h"

#define KM_BUF 65536

struct srv6_kmirror {
	struct mnl_socket *ev;        /* events */
	struct srv6_fpm *store;
	uint32_t table;
	int proto;
	struct srv6_kmirror_stats st;
};

/* Take @nlh (nlmsg_len bytes checked by libmnl) when it is ours: 1 changed. */
static int take(struct srv6_kmirror *m, const struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_type == RTM_NEWROUTE || nlh->nlmsg_type == RTM_DELROUTE) {
		struct srv6_rtkey k;
		const struct rtmsg *rtm;

		if (srv6_rtmsg_key(nlh, nlh->nlmsg_len, &k) < 0 || k.family != AF_INET6) {
			m->st.filtered++;
			return 0;
		}
		rtm = mnl_nlmsg_get_payload(nlh);
		if ((k.table ? k.table : RT_TABLE_MAIN) != m->table ||
		    k.encap_type == LWTUNNEL_ENCAP_SEG6 ||          /* sids-from: no policies */
		    (m->proto >= 0 && rtm->rtm_protocol != m->proto) ||
		    rtm->rtm_type != RTN_UNICAST) {
			m->st.filtered++;
			return 0;
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

/* Dump message type @type (RTM_GETROUTE / RTM_GETNEXTHOP) on a socket of
 * its own into the store.  1 changed, 0 not, -errno. */
static int dump_one(struct srv6_kmirror *m, uint16_t type)
{
	static char buf[KM_BUF] __attribute__((aligned(8)));
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	struct walk w = { .m = m };
	struct nlmsghdr *nlh;
	unsigned int seq = (unsigned int)time(NULL), portid;
	int r = 0;

	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		r = -errno;
		goto out_close;
	}
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	if (type == RTM_GETROUTE) {
		struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

		rtm->rtm_family = AF_INET6;
	} else {
		struct nhmsg *nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));

		nhm->nh_family = AF_UNSPEC;
	}
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		r = -errno;
		goto out_close;
	}
	for (;;) {
		ssize_t len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		int c;

		if (len < 0) {
			r = -errno;
			break;
		}
		c = mnl_cb_run(buf, (size_t)len, seq, portid, walk_cb, &w);
		if (c < 0) {
			r = errno ? -errno : -EIO;
			break;
		}
		if (c == MNL_CB_STOP)
			break;
	}
	if (!r)
		r = w.changed;
out_close:
	mnl_socket_close(nl);
	return r;
}

/* A full dump: nexthop objects first (the routes name them), then the
 * routes; entries the dump does not have go.  1 changed, 0 not, -errno. */
static int resync(struct srv6_kmirror *m)
{
	int a, b, gone;

	m->st.dumps++;
	srv6_fpm_resync_begin(m->store);
	a = dump_one(m, RTM_GETNEXTHOP);     /* a kernel without them: -EOPNOTSUPP, fine */
	b = dump_one(m, RTM_GETROUTE);
	if (b < 0) {
		/* keep what there was: a failed dump is no deletion */
		srv6_fpm_resync_abort(m->store);
		return b;
	}
	gone = srv6_fpm_resync_end(m->store);
	return (a > 0) | (b > 0) | gone;
}

struct srv6_kmirror *srv6_kmirror_open(const struct srv6_conf_kmirror *c, char *err,
				       size_t errlen)
{
	struct srv6_kmirror *m = calloc(1, sizeof(*m));
	int r;

	if (!m) {
		snprintf(err, errlen, "sids-from kernel: out of memory");
		return NULL;
	}
	m->table = c->table;
	m->proto = c->proto;
	m->store = srv6_fpm_new(0);
	if (!m->store) {
		snprintf(err, errlen, "sids-from kernel: out of memory");
		goto out_free;
	}
	srv6_fpm_configure(m->store, SRV6_ORIGIN_KERNEL, c->table);
	/* subscribed before the dump: no change between the two is missed
	 * (an event the dump already holds is taken again: no change) */
	m->ev = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!m->ev || mnl_socket_bind(m->ev, 1u << (RTNLGRP_IPV6_ROUTE - 1), MNL_SOCKET_AUTOPID) < 0) {
		snprintf(err, errlen, "sids-from kernel: rtnetlink: %s", strerror(errno));
		goto out_free;
	}
	(void)mnl_socket_setsockopt(m->ev, NETLINK_ADD_MEMBERSHIP,
				    &(int){ RTNLGRP_NEXTHOP }, sizeof(int));
	r = resync(m);
	if (r < 0) {
		snprintf(err, errlen, "sids-from kernel: route dump: %s", strerror(-r));
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
				int r;

				m->st.overruns++;
				srv6_log(LOG_WARNING, "sids-from kernel: route events lost (ENOBUFS): "
					 "dumping the routes again");
				r = resync(m);
				if (r < 0)
					srv6_log(LOG_ERR, "sids-from kernel: route dump: %s", strerror(-r));
				else
					w.changed |= r;
				continue;
			}
			break;    /* EAGAIN: all read */
		}
		(void)mnl_cb_run(buf, (size_t)len, 0, 0, walk_cb, &w);
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
