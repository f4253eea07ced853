// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * saddr.c - outer source address selection as the kernel's seg6 does it.
 * See include/srv6d/saddr.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/if_addr.h>
#include <linux/seg6_genl.h>

#include "srv6d/saddr.h"

/* ---- selection (pure) ---- */

enum { SC_LINK = 2, SC_SITE = 5, SC_GLOBAL = 14 };  /* RFC 4291 scope values */

static int addr_scope(const struct in6_addr *a)
{
	if (IN6_IS_ADDR_MULTICAST(a))
		return a->s6_addr[1] & 0x0f;
	if (IN6_IS_ADDR_LINKLOCAL(a) || IN6_IS_ADDR_LOOPBACK(a))
		return SC_LINK;
	if (IN6_IS_ADDR_SITELOCAL(a))
		return SC_SITE;
	return SC_GLOBAL;
}

static int common_prefix(const struct in6_addr *a, const struct in6_addr *b)
{
	int n = 0;

	for (int i = 0; i < 16; i++) {
		uint8_t x = a->s6_addr[i] ^ b->s6_addr[i];

		if (!x) {
			n += 8;
			continue;
		}
		while (!(x & 0x80)) {
			n++;
			x <<= 1;
		}
		break;
	}
	return n;
}

struct cand {
	struct in6_addr a;
	int ifindex, scope;
	unsigned int flags;
};

/* > 0 when @x is the better source toward @d (ipv6_get_saddr_eval's order). */
static int better(const struct cand *x, const struct cand *y, const struct in6_addr *d,
		  int dscope, int oif)
{
	int r;

	/* rule 1: the destination itself */
	if ((r = !memcmp(&x->a, d, 16) - !memcmp(&y->a, d, 16)))
		return r;
	/* rule 2: appropriate scope: at least the destination's, the smallest */
	if (x->scope != y->scope) {
		if (x->scope >= dscope && y->scope >= dscope)
			return x->scope < y->scope ? 1 : -1;
		return x->scope > y->scope ? 1 : -1;
	}
	/* rule 3: avoid deprecated */
	if ((r = !(y->flags & IFA_F_DEPRECATED) - !(x->flags & IFA_F_DEPRECATED)))
		return -r;
	/* rule 5: the outgoing interface */
	if (oif > 0 && (r = (x->ifindex == oif) - (y->ifindex == oif)))
		return r;
	/* rule 7: public over temporary (IPV6_PREFER_SRC_PUBLIC) */
	if ((r = !(x->flags & IFA_F_TEMPORARY) - !(y->flags & IFA_F_TEMPORARY)))
		return r;
	/* rule 8: longest matching prefix */
	return common_prefix(&x->a, d) - common_prefix(&y->a, d);
}

int srv6_saddr_pick(const char *if_inet6, const struct in6_addr *daddr, int oif,
		    struct in6_addr *out)
{
	const char *p = if_inet6;
	int dscope = addr_scope(daddr);
	struct cand best;
	bool have = false;

	while (p && *p) {
		char hex[33], name[64];
		unsigned int ifi, plen, scope, flags;
		const char *nl = strchr(p, '\n');
		char line[160];
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		struct cand c;

		if (l >= sizeof(line))
			l = sizeof(line) - 1;
		memcpy(line, p, l);
		line[l] = '\0';
		p = nl ? nl + 1 : NULL;
		if (sscanf(line, "%32s %x %x %x %x %63s", hex, &ifi, &plen, &scope, &flags, name) != 6 ||
		    strlen(hex) != 32)
			continue;
		for (int i = 0; i < 16; i++) {
			unsigned int b;

			if (sscanf(hex + 2 * i, "%2x", &b) != 1)
				goto next;
			c.a.s6_addr[i] = (uint8_t)b;
		}
		if (flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED)) {
			if (!(flags & IFA_F_OPTIMISTIC) || (flags & IFA_F_DADFAILED))
				continue;
		}
		if (IN6_IS_ADDR_LOOPBACK(&c.a) || IN6_IS_ADDR_UNSPECIFIED(&c.a))
			continue;
		c.ifindex = (int)ifi;
		c.flags = flags;
		c.scope = addr_scope(&c.a);
		if (!have || better(&c, &best, daddr, dscope, oif) > 0) {
			best = c;
			have = true;
		}
next:
		;
	}
	if (!have)
		return -EADDRNOTAVAIL;
	*out = best.a;
	return 0;
}

/* ---- the kernel's tunsrc (SEG6 generic netlink) ---- */

struct genl_ctx {
	uint16_t family;
	struct in6_addr dst;
	bool have;
};

static int attr_family_cb(const struct nlattr *a, void *data)
{
	struct genl_ctx *x = data;

	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
		x->family = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), attr_family_cb, data);
}

static int attr_tunsrc_cb(const struct nlattr *a, void *data)
{
	struct genl_ctx *x = data;

	if (mnl_attr_get_type(a) == SEG6_ATTR_DST && mnl_attr_get_payload_len(a) == 16) {
		memcpy(&x->dst, mnl_attr_get_payload(a), 16);
		x->have = true;
	}
	return MNL_CB_OK;
}

static int tunsrc_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), attr_tunsrc_cb, data);
}

static int genl_request(struct mnl_socket *nl, uint16_t type, uint8_t cmd, const char *famname,
			mnl_cb_t cb, struct genl_ctx *x)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;
	unsigned int seq = (unsigned int)time(NULL), portid = mnl_socket_get_portid(nl);
	int r;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = 1;
	if (famname)
		mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, famname);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl, buf, sizeof(buf));

		if (n < 0)
			return -errno;
		r = mnl_cb_run(buf, (size_t)n, seq, portid, cb, x);
		if (r < 0)
			return -errno;
		if (r == MNL_CB_STOP)
			return 0;
	}
}

int srv6_tunsrc_read(struct in6_addr *out)
{
	struct genl_ctx x = { 0 };
	struct mnl_socket *nl;
	struct timeval tv = { .tv_sec = 1 };
	int r;

	memset(out, 0, sizeof(*out));
	nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		r = -errno;
		goto out;
	}
	(void)setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	r = genl_request(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, SEG6_GENL_NAME, family_cb, &x);
	if (r == -ENOENT) {      /* no SRv6 in this kernel: no tunsrc */
		r = 0;
		goto out;
	}
	if (r < 0 || !x.family)
		goto out;
	r = genl_request(nl, x.family, SEG6_CMD_GET_TUNSRC, NULL, tunsrc_cb, &x);
	if (r == 0 && x.have)
		*out = x.dst;
out:
	mnl_socket_close(nl);
	return r;
}

/* ---- the datapath's entry point ---- */

static int connect_source(const struct in6_addr *dst, struct in6_addr *src)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	socklen_t sl = sizeof(sa);
	int fd, r = 0;

	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sa.sin6_addr = *dst;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0)
		r = -errno;
	else
		*src = sa.sin6_addr;
	close(fd);
	return r;
}

static char *read_if_inet6(void)
{
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap);
	int fd = open("/proc/net/if_inet6", O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

int srv6_saddr_env_read(struct srv6_saddr_env *env)
{
	int r;

	memset(env, 0, sizeof(*env));
	env->if_inet6 = read_if_inet6();
	if (!env->if_inet6)
		return -ENOMEM;
	r = srv6_tunsrc_read(&env->tunsrc);
	if (r < 0)
		memset(&env->tunsrc, 0, sizeof(env->tunsrc));
	return r;
}

void srv6_saddr_env_free(struct srv6_saddr_env *env)
{
	free(env->if_inet6);
	env->if_inet6 = NULL;
}

int srv6_saddr_from_env(const struct srv6_saddr_env *env, const struct in6_addr *daddr, int oif,
			struct in6_addr *out)
{
	if (!IN6_IS_ADDR_UNSPECIFIED(&env->tunsrc)) {
		*out = env->tunsrc;
		return 0;
	}
	if (oif <= 0)
		return connect_source(daddr, out);
	if (!env->if_inet6)
		return -ENOMEM;
	return srv6_saddr_pick(env->if_inet6, daddr, oif, out);
}

int srv6_saddr_select(const struct in6_addr *daddr, int oif, struct in6_addr *out)
{
	struct srv6_saddr_env env;
	int r;

	r = srv6_saddr_env_read(&env);
	if (r == 0 || (r != -ENOMEM && env.if_inet6))   /* tunsrc unreadable: as unset */
		r = srv6_saddr_from_env(&env, daddr, oif, out);
	srv6_saddr_env_free(&env);
	return r;
}
