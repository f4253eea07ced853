// SPDX-License-Identifier: GPL-2.0-or-later
/* rtdump.c - route dumps over plain rtnetlink: include/srv6d/rtdump.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/rtnetlink.h>

#include <libmnl/libmnl.h>

#include "srv6d/rtdump.h"

#define RT_DUMP_BUF 32768   /* the largest skb a netlink dump fills */

struct dump {
	srv6_rt_fn fn;
	srv6_rt_msg_fn msg_fn;   /* srv6_rt_dump_msgs: the raw message instead */
	void *arg;
	bool keep;           /* copy the picked messages (sweep) */
	struct nlmsghdr **picked;
	size_t npicked, cap;
	int err;             /* -ENOMEM while copying */
};

static int rt_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int t = mnl_attr_get_type(a);

	if (t <= RTA_MAX)
		tb[t] = a;
	return MNL_CB_OK;
}

static int keep_msg(struct dump *d, const struct nlmsghdr *nlh)
{
	struct nlmsghdr *copy;

	if (d->npicked == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct nlmsghdr **p = realloc(d->picked, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		d->picked = p;
		d->cap = cap;
	}
	copy = malloc(nlh->nlmsg_len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, nlh, nlh->nlmsg_len);
	d->picked[d->npicked++] = copy;
	return 0;
}

static int rt_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump *d = data;
	const struct rtmsg *rtm;
	const struct nlattr *tb[RTA_MAX + 1] = { 0 };
	struct srv6_rt rt = { 0 };

	if (nlh->nlmsg_type != RTM_NEWROUTE || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return MNL_CB_OK;
	if (d->msg_fn) {
		d->msg_fn(nlh, d->arg);
		return MNL_CB_OK;
	}
	rtm = mnl_nlmsg_get_payload(nlh);
	if (mnl_attr_parse(nlh, sizeof(*rtm), rt_attr_cb, tb) < 0)
		return MNL_CB_OK;   /* a message we cannot walk is not ours */
	rt.family = rtm->rtm_family;
	rt.dst_len = rtm->rtm_dst_len;
	rt.protocol = rtm->rtm_protocol;
	rt.type = rtm->rtm_type;
	rt.table = rtm->rtm_table;
	if (tb[RTA_TABLE] && mnl_attr_get_payload_len(tb[RTA_TABLE]) >= 4)
		rt.table = mnl_attr_get_u32(tb[RTA_TABLE]);
	if (tb[RTA_PRIORITY] && mnl_attr_get_payload_len(tb[RTA_PRIORITY]) >= 4)
		rt.priority = mnl_attr_get_u32(tb[RTA_PRIORITY]);
	if (tb[RTA_OIF] && mnl_attr_get_payload_len(tb[RTA_OIF]) >= 4)
		rt.oif = mnl_attr_get_u32(tb[RTA_OIF]);
	if (tb[RTA_DST]) {
		size_t len = mnl_attr_get_payload_len(tb[RTA_DST]);

		memcpy(rt.dst, mnl_attr_get_payload(tb[RTA_DST]),
		       len < sizeof(rt.dst) ? len : sizeof(rt.dst));
	}
	if (d->fn(&rt, d->arg) == 1 && d->keep && !d->err)
		d->err = keep_msg(d, nlh);
	return MNL_CB_OK;
}

static struct mnl_socket *rt_open(unsigned int *portid)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);

	if (!nl)
		return NULL;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int e = errno;

		mnl_socket_close(nl);
		errno = e;
		return NULL;
	}
	*portid = mnl_socket_get_portid(nl);
	return nl;
}

/* The one dump loop: @req (built in @buf) sent on @nl, every reply run
 * through @cb until NLMSG_DONE.  0, -errno, -EINTR (NLM_F_DUMP_INTR). */
static int nl_walk(struct mnl_socket *nl, unsigned int portid, struct nlmsghdr *req, void *buf,
		   size_t buflen, mnl_cb_t cb, void *arg)
{
	unsigned int seq = req->nlmsg_seq;

	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ssize_t len = mnl_socket_recvfrom(nl, buf, buflen);
		int c;

		if (len < 0)
			return -errno;
		c = mnl_cb_run(buf, (size_t)len, seq, portid, cb, arg);
		if (c < 0)
			return errno ? -errno : -EIO;
		if (c == MNL_CB_STOP)
			return 0;
	}
}

/* The request of a dump of @type with the family header @hdr, in @buf. */
static struct nlmsghdr *dump_req(void *buf, uint16_t type, const void *hdr, size_t hdrlen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = (unsigned int)time(NULL);
	memcpy(mnl_nlmsg_put_extra_header(nlh, hdrlen), hdr, hdrlen);
	return nlh;
}

/* Dump @family's routes through @nl into @d. */
static int rt_walk(struct mnl_socket *nl, unsigned int portid, int family, struct dump *d)
{
	char buf[RT_DUMP_BUF] __attribute__((aligned(8)));
	struct rtmsg rtm = { .rtm_family = (uint8_t)family };
	int e = nl_walk(nl, portid, dump_req(buf, RTM_GETROUTE, &rtm, sizeof(rtm)), buf,
			sizeof(buf), rt_msg_cb, d);

	return e ? e : d->err;
}

/* One socket, one dump of @family into @d. */
static int rt_dump_once(int family, struct dump *d)
{
	struct mnl_socket *nl;
	unsigned int portid;
	int e;

	nl = rt_open(&portid);
	if (!nl)
		return -errno;
	e = rt_walk(nl, portid, family, d);
	mnl_socket_close(nl);
	return e;
}

int srv6_nl_dump(uint16_t type, const void *hdr, size_t hdrlen, void *buf, size_t buflen,
		 srv6_nl_cb cb, void *arg)
{
	struct mnl_socket *nl;
	unsigned int portid;
	int e;

	if (buflen < (size_t)MNL_SOCKET_BUFFER_SIZE || hdrlen > 64)
		return -EINVAL;
	nl = rt_open(&portid);
	if (!nl)
		return -errno;
	e = nl_walk(nl, portid, dump_req(buf, type, hdr, hdrlen), buf, buflen, cb, arg);
	mnl_socket_close(nl);
	return e;
}

int srv6_rt_dump(int family, srv6_rt_fn fn, void *arg)
{
	struct dump d = { .fn = fn, .arg = arg };

	return rt_dump_once(family, &d);
}

int srv6_rt_dump_msgs(int family, srv6_rt_msg_fn fn, void *arg)
{
	struct dump d = { .msg_fn = fn, .arg = arg };

	return rt_dump_once(family, &d);
}

/* Send @nlh (NLM_F_ACK set) and wait for the kernel's answer: 0, or its
 * -errno (mnl_cb_run() turns an NLMSG_ERROR into errno); -ETIMEDOUT when a
 * receive timeout on @nl ran out. */
static int rt_ack(struct mnl_socket *nl, unsigned int portid, struct nlmsghdr *nlh)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	unsigned int seq = nlh->nlmsg_seq;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ssize_t len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		int c;

		if (len < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		c = mnl_cb_run(buf, (size_t)len, seq, portid, NULL, NULL);
		if (c < 0)
			return errno ? -errno : -EPROTO;
		if (c == MNL_CB_STOP)
			return 0;
	}
}

/* Send @nlh back as RTM_DELROUTE and wait for the kernel's answer. */
static int rt_delete(struct mnl_socket *nl, unsigned int portid, struct nlmsghdr *nlh,
		     unsigned int seq)
{
	int r;

	nlh->nlmsg_type = RTM_DELROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = 0;
	r = rt_ack(nl, portid, nlh);
	return r == -ENOENT || r == -ESRCH ? 0 : r;
}

int srv6_rt_request(struct nlmsghdr *nlh, int timeout_s)
{
	struct timeval tv = { .tv_sec = timeout_s };
	struct mnl_socket *nl;
	unsigned int portid;
	int r;

	nl = rt_open(&portid);
	if (!nl)
		return -errno;
	if (timeout_s > 0)
		(void)setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	r = rt_ack(nl, portid, nlh);
	mnl_socket_close(nl);
	return r;
}

int srv6_rt_sweep(int family, srv6_rt_fn pick, void *arg)
{
	struct dump d = { .fn = pick, .arg = arg, .keep = true };
	struct mnl_socket *nl;
	unsigned int portid, seq = (unsigned int)time(NULL) + 1;
	int e, err = 0, deleted = 0;

	nl = rt_open(&portid);
	if (!nl)
		return -errno;
	e = rt_walk(nl, portid, family, &d);
	for (size_t i = 0; e == 0 && i < d.npicked; i++) {
		int r = rt_delete(nl, portid, d.picked[i], seq++);

		if (r < 0 && !err)
			err = r;
		else if (r == 0)
			deleted++;
	}
	if (!e)
		e = err;
	for (size_t i = 0; i < d.npicked; i++)
		free(d.picked[i]);
	free(d.picked);
	mnl_socket_close(nl);
	return e < 0 ? e : deleted;
}
