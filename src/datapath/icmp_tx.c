// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * icmp_tx.c - per-worker ICMPv6 sender with the kernel's rate limits.
 * See include/srv6d/icmp_tx.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "srv6d/errbuf.h"
#include "srv6d/icmp6.h"
#include "srv6d/icmp_tx.h"

/*
 * Per-destination buckets: PEER_SETS sets of PEER_WAYS entries, the set
 * chosen by SipHash-2-4 of the address under a random per-sender key (an
 * attacker cannot aim sources at a victim's set), the least recently used
 * way of a full set replaced.  Bounded memory, no allocation per packet.
 */
#define PEER_SETS         256
#define PEER_WAYS         4
#define PEER_REFRESH_MS   30000      /* re-read the route's prefix length */
#define XRLIM_BURST_FACTOR 6         /* net/ipv4/inetpeer.c */
#define NL_POLL_MAX       16         /* route answers read per send, at most */
#define ECHO_MAX          65535      /* an Echo Reply takes the whole data */
_Static_assert((PEER_SETS & (PEER_SETS - 1)) == 0, "PEER_SETS must be a power of 2");
_Static_assert(PEER_SETS * PEER_WAYS <= 4096, "peer index must fit 12 bits of a seq");

struct peer {
	struct in6_addr addr;
	int64_t last_ms;        /* token refill time (kernel: rate_last) */
	int64_t tokens_ms;      /* kernel: rate_tokens, in ms instead of jiffies */
	int64_t used_ms;        /* last use, for the LRU replacement */
	int64_t looked_up_ms;   /* when the route lookup was asked for */
	uint32_t seq;           /* of the route lookup in flight, 0 none */
	int32_t tmo_ms;         /* -1: loopback route, unlimited */
	bool valid;
};

/* Sysctls another thread changed (srv6_icmp_tx_sysctls_changed). */
static unsigned int sysctl_gen;

struct srv6_icmp_tx {
	int fd;
	struct mnl_socket *nl;      /* route lookups for the per-peer timeout,
				       non-blocking: never waited for */
	unsigned int nl_portid, nl_seq;
	/* sysctls */
	unsigned int gen;           /* sysctl_gen they were read at */
	unsigned int share;         /* workers sharing the global rate */
	uint8_t ratemask[32];       /* bit per ICMPv6 type: rate limited */
	int ratelimit_ms;           /* net.ipv6.icmp.ratelimit */
	int echo_ignore_all;        /* net.ipv6.icmp.echo_ignore_all */
	int msgs_per_sec, msgs_burst; /* net.ipv4.icmp_msgs_*, divided by the share */
	int sys_per_sec, sys_burst;
	/* global bucket (kernel: icmp_global_credit / icmp_global_stamp) */
	int64_t credit;
	int64_t stamp_ms;
	uint64_t rng;
	uint64_t key[2];            /* SipHash key of the peer table */
	int lo_ifindex;
	struct peer peers[PEER_SETS * PEER_WAYS];
	uint8_t buf[ECHO_MAX];
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int read_sysctl(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

static int read_int(const char *path, int def)
{
	char buf[64], *end;
	long v;

	if (read_sysctl(path, buf, sizeof(buf)) < 0)
		return def;
	v = strtol(buf, &end, 10);
	if (end == buf || v < 0 || v > 0x7fffffff)
		return def;
	return (int)v;
}

static void mask_set(uint8_t *mask, unsigned int lo, unsigned int hi)
{
	for (unsigned int t = lo; t <= hi && t < 256; t++)
		mask[t / 8] |= (uint8_t)(1u << (t % 8));
}

/* "0-1,3-127" (net.ipv6.icmp.ratemask, a bitmap list) -> bitmap; the
 * kernel's default when the sysctl is absent or unparsable. */
static void read_ratemask(uint8_t *mask)
{
	char buf[512], *p, *save, *tok;

	memset(mask, 0, 32);
	if (read_sysctl("/proc/sys/net/ipv6/icmp/ratemask", buf, sizeof(buf)) < 0)
		goto dflt;
	for (tok = strtok_r(buf, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save)) {
		unsigned long lo, hi;

		lo = strtoul(tok, &p, 10);
		if (p == tok)
			goto dflt;
		hi = lo;
		if (*p == '-') {
			char *q = p + 1;

			hi = strtoul(q, &p, 10);
			if (p == q)
				goto dflt;
		}
		if (*p || lo > hi || hi > 255)
			goto dflt;
		mask_set(mask, (unsigned int)lo, (unsigned int)hi);
	}
	return;
dflt:
	memset(mask, 0, 32);
	mask_set(mask, 0, 1);
	mask_set(mask, 3, 127);
}

static bool type_limited(const struct srv6_icmp_tx *t, uint8_t type)
{
	return t->ratemask[type / 8] & (1u << (type % 8));
}

static uint32_t rnd(struct srv6_icmp_tx *t)
{
	/* xorshift64*: per-worker, no shared state */
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return (uint32_t)((t->rng * 0x2545F4914F6CDD1DULL) >> 32);
}

/* icmp_global_allow() of net/ipv4/icmp.c, per worker. */
static bool global_allow(struct srv6_icmp_tx *t, int64_t now)
{
	int64_t delta, incr;

	if (t->credit > 0)
		return true;
	delta = now - t->stamp_ms;
	if (delta > 1000)
		delta = 1000;
	if (delta < 1000 / 50)
		return false;
	incr = (int64_t)t->msgs_per_sec * delta / 1000;
	if (!incr)
		return false;
	t->stamp_ms = now;
	t->credit += incr;
	if (t->credit > t->msgs_burst)
		t->credit = t->msgs_burst;
	return true;
}

/* icmp_global_consume(): 0, 1 or 2 credits, may go negative. */
static void global_consume(struct srv6_icmp_tx *t)
{
	t->credit -= rnd(t) % 3;
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND \
	do { \
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
	} while (0)

/* SipHash-2-4 of the 16 address bytes under @k. */
static uint64_t siphash_addr(const uint64_t k[2], const struct in6_addr *a)
{
	uint64_t v0 = 0x736f6d6570736575ULL ^ k[0], v1 = 0x646f72616e646f6dULL ^ k[1];
	uint64_t v2 = 0x6c7967656e657261ULL ^ k[0], v3 = 0x7465646279746573ULL ^ k[1];
	uint64_t m[2], b = (uint64_t)16 << 56;

	memcpy(m, a, sizeof(m));
	for (int i = 0; i < 2; i++) {
		v3 ^= m[i];
		SIPROUND;
		SIPROUND;
		v0 ^= m[i];
	}
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/*
 * Ask for the route toward @dst (RTM_GETROUTE with RTM_F_FIB_MATCH returns
 * the FIB entry itself) on the non-blocking socket, for peer @idx.  The
 * kernel answers within the send, so the answer is normally read right after
 * by route_poll(); a missing one is never waited for.
 */
static void route_request(struct srv6_icmp_tx *t, unsigned int idx, const struct in6_addr *dst,
			  int ifindex)
{
	char buf[256] __attribute__((aligned(8)));
	struct peer *p = &t->peers[idx];
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	uint32_t seq = (++t->nl_seq << 12) | idx;

	if (!seq)
		seq = (++t->nl_seq << 12) | idx;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET6;
	rtm->rtm_dst_len = 128;
	rtm->rtm_flags = RTM_F_FIB_MATCH;
	mnl_attr_put(nlh, RTA_DST, sizeof(*dst), dst);
	if (ifindex)
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)ifindex);
	p->looked_up_ms = now_ms();
	if (send(mnl_socket_get_fd(t->nl), nlh, nlh->nlmsg_len, MSG_DONTWAIT) < 0)
		return;   /* full timeout meanwhile; asked again at the next refresh */
	p->seq = seq;
}

/* The per-peer timeout of one route answer: -1 for a loopback route (not
 * limited), ratelimit shifted by the prefix length otherwise, -errno. */
static int route_tmo(const struct srv6_icmp_tx *t, const struct nlmsghdr *nlh)
{
	const struct rtmsg *rtm;
	const struct nlattr *a;
	int oif = 0, tmo;

	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

		return e->error ? e->error : -EIO;
	}
	if (nlh->nlmsg_type != RTM_NEWROUTE || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return -EIO;
	rtm = mnl_nlmsg_get_payload(nlh);
	mnl_attr_for_each(a, nlh, sizeof(*rtm))
		if (mnl_attr_get_type(a) == RTA_OIF && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			oif = (int)mnl_attr_get_u32(a);
	if (rtm->rtm_type == RTN_LOCAL || (oif && oif == t->lo_ifindex))
		return -1;
	tmo = t->ratelimit_ms;
	if (rtm->rtm_dst_len < 128)
		tmo >>= (128 - rtm->rtm_dst_len) >> 5;
	return tmo;
}

/* Apply the route answers that are there, without waiting (bounded). */
static void route_poll(struct srv6_icmp_tx *t)
{
	char buf[8192] __attribute__((aligned(8)));

	for (int i = 0; i < NL_POLL_MAX; i++) {
		ssize_t r = recv(mnl_socket_get_fd(t->nl), buf, sizeof(buf), MSG_DONTWAIT);
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
		int len = (int)r;

		if (r < 0) {
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			return;   /* EAGAIN: nothing more */
		}
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			struct peer *p = &t->peers[nlh->nlmsg_seq & 0xfff];
			int tmo;

			if (!nlh->nlmsg_seq || p->seq != nlh->nlmsg_seq)
				continue;   /* an answer for an entry since replaced */
			p->seq = 0;
			tmo = route_tmo(t, nlh);
			p->tmo_ms = tmo == -1 ? -1 : tmo < 0 ? t->ratelimit_ms : tmo;
		}
	}
}

/* The entry of @dst: its own, else a free or the least recently used way of
 * its set, reset as inet_getpeer() creates one.  Returns the index. */
static unsigned int peer_get(struct srv6_icmp_tx *t, const struct in6_addr *dst, int64_t now,
			     bool *fresh)
{
	unsigned int set = (unsigned int)siphash_addr(t->key, dst) & (PEER_SETS - 1);
	unsigned int base = set * PEER_WAYS, victim = base;
	struct peer *p;

	*fresh = false;
	for (unsigned int i = base; i < base + PEER_WAYS; i++) {
		p = &t->peers[i];
		if (p->valid && !memcmp(&p->addr, dst, sizeof(*dst)))
			return i;
		if (!p->valid || (t->peers[victim].valid && p->used_ms < t->peers[victim].used_ms))
			victim = i;
	}
	p = &t->peers[victim];
	memset(p, 0, sizeof(*p));
	p->valid = true;
	p->addr = *dst;
	p->last_ms = now - 60000;  /* inet_getpeer(): rate_last = jiffies - 60 * HZ */
	p->tmo_ms = t->ratelimit_ms;   /* until the route answer: the full timeout */
	*fresh = true;
	return victim;
}

/* icmpv6_xrlim_allow()'s per-destination part, with inet_peer_xrlim_allow()'s
 * token bucket.  Never blocks: the route's prefix length arrives through
 * route_poll(); until then (or when the lookup fails) the full timeout. */
static bool peer_allow(struct srv6_icmp_tx *t, const struct in6_addr *dst, int ifindex,
		       int64_t now)
{
	unsigned int idx;
	struct peer *p;
	int64_t token;
	bool fresh;

	idx = peer_get(t, dst, now, &fresh);
	p = &t->peers[idx];
	p->used_ms = now;
	if (fresh || (!p->seq && now - p->looked_up_ms > PEER_REFRESH_MS))
		route_request(t, idx, dst, ifindex);
	if (p->seq)
		route_poll(t);
	if (p->tmo_ms < 0)
		return true;
	token = p->tokens_ms + (now - p->last_ms);
	p->last_ms = now;
	if (token > (int64_t)XRLIM_BURST_FACTOR * p->tmo_ms)
		token = (int64_t)XRLIM_BURST_FACTOR * p->tmo_ms;
	if (token >= p->tmo_ms) {
		p->tokens_ms = token - p->tmo_ms;
		return true;
	}
	p->tokens_ms = token;
	return false;
}

/* The sysctls of the calling thread's netns, the global share applied. */
static void read_sysctls(struct srv6_icmp_tx *t)
{
	t->gen = __atomic_load_n(&sysctl_gen, __ATOMIC_ACQUIRE);
	read_ratemask(t->ratemask);
	t->ratelimit_ms = read_int("/proc/sys/net/ipv6/icmp/ratelimit", 1000);
	t->echo_ignore_all = read_int("/proc/sys/net/ipv6/icmp/echo_ignore_all", 0);
	t->sys_per_sec = read_int("/proc/sys/net/ipv4/icmp_msgs_per_sec", 1000);
	t->sys_burst = read_int("/proc/sys/net/ipv4/icmp_msgs_burst", 50);
	srv6_icmp_tx_set_share(t, t->share);
	/* Timeouts derive from ratelimit: look every route up again. */
	for (unsigned int i = 0; i < PEER_SETS * PEER_WAYS; i++)
		t->peers[i].valid = false;
}

void srv6_icmp_tx_sysctls_changed(void)
{
	__atomic_add_fetch(&sysctl_gen, 1, __ATOMIC_RELEASE);
}

struct srv6_icmp_tx *srv6_icmp_tx_open(char *err, size_t errlen)
{
	struct srv6_icmp_tx *t;
	struct icmp6_filter filt;
	int one = 1, small = 4096, e;

	t = calloc(1, sizeof(*t));
	if (!t) {
		srv6_seterr(err, errlen, "out of memory");
		return NULL;
	}
	t->fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMPV6);
	if (t->fd < 0) {
		e = errno;
		srv6_seterr(err, errlen, "raw ICMPv6 socket: %s", strerror(e));
		goto out_free;
	}
	if (setsockopt(t->fd, IPPROTO_IPV6, IPV6_FREEBIND, &one, sizeof(one)) < 0 &&
	    setsockopt(t->fd, IPPROTO_IPV6, IPV6_TRANSPARENT, &one, sizeof(one)) < 0) {
		e = errno;
		srv6_seterr(err, errlen, "IPV6_FREEBIND/IPV6_TRANSPARENT: %s", strerror(e));
		goto out_close;
	}
	/* A send-only socket: receive nothing. */
	ICMP6_FILTER_SETBLOCKALL(&filt);
	if (setsockopt(t->fd, IPPROTO_ICMPV6, ICMP6_FILTER, &filt, sizeof(filt)) < 0) {
		e = errno;
		srv6_seterr(err, errlen, "ICMP6_FILTER: %s", strerror(e));
		goto out_close;
	}
	setsockopt(t->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));

	t->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!t->nl || mnl_socket_bind(t->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		e = errno;
		srv6_seterr(err, errlen, "rtnetlink: %s", strerror(e));
		goto out_nl;
	}
	t->nl_portid = mnl_socket_get_portid(t->nl);

	t->share = 1;
	read_sysctls(t);
	t->credit = 0;
	t->stamp_ms = now_ms() - 1000;
	t->lo_ifindex = 1;
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		t->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)(uintptr_t)t ^ 0x9e3779b97f4a7c15ULL;
		if (!t->rng)
			t->rng = 1;
	}
	/* The peer table's hash key: unpredictable, or its sets can be aimed at. */
	if (getrandom(t->key, sizeof(t->key), GRND_NONBLOCK) != sizeof(t->key)) {
		t->key[0] = t->rng ^ (uint64_t)getpid() << 32;
		t->key[1] = rnd(t) | (uint64_t)rnd(t) << 32;
	}
	return t;

out_nl:
	if (t->nl)
		mnl_socket_close(t->nl);
out_close:
	close(t->fd);
out_free:
	free(t);
	errno = e;
	return NULL;
}

void srv6_icmp_tx_set_share(struct srv6_icmp_tx *t, unsigned int nworkers)
{
	if (!nworkers)
		nworkers = 1;
	t->share = nworkers;
	t->msgs_per_sec = t->sys_per_sec / (int)nworkers;
	t->msgs_burst = t->sys_burst / (int)nworkers;
	if (t->msgs_per_sec < 1 && t->sys_per_sec > 0)
		t->msgs_per_sec = 1;
	if (t->msgs_burst < 1 && t->sys_burst > 0)
		t->msgs_burst = 1;
}

static bool in6_needs_scope(const struct in6_addr *a)
{
	return IN6_IS_ADDR_LINKLOCAL(a) || IN6_IS_ADDR_MC_LINKLOCAL(a);
}

int srv6_icmp_tx_send_if(struct srv6_icmp_tx *t, const struct srv6_icmp *icmp,
			 const uint8_t *orig, size_t len, int ifindex)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(int))];
	} cbuf;
	struct cmsghdr *c;
	size_t clen = 0;
	struct sockaddr_in6 to = { .sin6_family = AF_INET6 };
	struct in6_addr src, dst;
	struct iovec iov;
	struct msghdr msg = { 0 };
	bool limited, scoped;
	int64_t now;
	int n;

	if (__atomic_load_n(&sysctl_gen, __ATOMIC_RELAXED) != t->gen)
		read_sysctls(t);
	/* icmpv6_rcv(): no Echo Reply at all with echo_ignore_all. */
	if (icmp->type == ICMP6_ECHO_REPLY && t->echo_ignore_all)
		return -EACCES;
	/* Errors stop at 1280 bytes by themselves; an Echo Reply takes the
	 * whole data (RFC 4443 4.2), fragmented by the kernel to the path MTU
	 * as its own replies are. */
	n = srv6_icmp6_build(icmp, orig, len, t->buf, sizeof(t->buf), &src, &dst);
	if (n < 0)
		return n;
	scoped = in6_needs_scope(&dst);
	if (scoped && !ifindex)
		return -EINVAL;

	limited = type_limited(t, icmp->type);
	if (limited) {
		now = now_ms();
		/* icmpv6_global_allow() then icmpv6_xrlim_allow() */
		if (!global_allow(t, now))
			return -EAGAIN;
		if (!peer_allow(t, &dst, scoped ? ifindex : 0, now))
			return -EAGAIN;
		global_consume(t); /* as icmpv6_xrlim_allow() once allowed */
	}

	to.sin6_addr = dst;
	to.sin6_scope_id = scoped ? (uint32_t)ifindex : 0;
	iov.iov_base = t->buf;
	iov.iov_len = (size_t)n;
	msg.msg_name = &to;
	msg.msg_namelen = sizeof(to);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	memset(&cbuf, 0, sizeof(cbuf));
	msg.msg_control = cbuf.b;
	msg.msg_controllen = sizeof(cbuf.b);
	c = CMSG_FIRSTHDR(&msg);
	if (!IN6_IS_ADDR_UNSPECIFIED(&src) && !IN6_IS_ADDR_MULTICAST(&src)) {
		struct in6_pktinfo pi = { .ipi6_addr = src,
					  .ipi6_ifindex = scoped ? (unsigned int)ifindex : 0 };

		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		clen += CMSG_SPACE(sizeof(pi));
		c = CMSG_NXTHDR(&msg, c);
	}
	if (icmp->type == ICMP6_ECHO_REPLY) {
		/* icmpv6_echo_reply(): the reply keeps the request's traffic class */
		int tclass = ((orig[0] & 0x0f) << 4) | (orig[1] >> 4);

		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_TCLASS;
		c->cmsg_len = CMSG_LEN(sizeof(tclass));
		memcpy(CMSG_DATA(c), &tclass, sizeof(tclass));
		clen += CMSG_SPACE(sizeof(tclass));
	}
	msg.msg_controllen = clen;
	if (!clen)
		msg.msg_control = NULL;
	if (sendmsg(t->fd, &msg, MSG_DONTWAIT) < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return 0;
}

int srv6_icmp_tx_send(struct srv6_icmp_tx *t, const struct srv6_icmp *icmp,
		      const uint8_t *orig, size_t len)
{
	return srv6_icmp_tx_send_if(t, icmp, orig, len, 0);
}

void srv6_icmp_tx_close(struct srv6_icmp_tx *t)
{
	if (!t)
		return;
	mnl_socket_close(t->nl);
	close(t->fd);
	free(t);
}
