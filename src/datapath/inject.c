// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inject.c - srv6d's veth pair and the per-worker AF_PACKET injector.
 * See include/srv6d/inject.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_link.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/route/link.h>
#include <netlink/route/link/inet6.h>
#include <netlink/route/link/veth.h>

#include "srv6d/errbuf.h"
#include "srv6d/inject.h"

#define INJ_MTU 65535          /* veth's max_mtu: every result fits */
#define INJ_SNDBUF (4 << 20)

/* ---- the device (control thread) ---- */

static int write_sysctl(const char *fam, const char *dev, const char *key, const char *val)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/%s/conf/%s/%s", fam, dev, key);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

static int link_del(struct nl_sock *sk, const char *name)
{
	struct rtnl_link *l = rtnl_link_alloc();
	int r;

	if (!l)
		return -ENOMEM;
	rtnl_link_set_name(l, name);
	r = rtnl_link_delete(sk, l);
	rtnl_link_put(l);
	return r;
}

/* ifindex and MAC of @name. */
static int link_read(struct nl_sock *sk, const char *name, int *ifindex, uint8_t mac[6])
{
	struct rtnl_link *l = NULL;
	struct nl_addr *a;
	int r;

	r = rtnl_link_get_kernel(sk, 0, name, &l);
	if (r < 0)
		return -ENODEV;
	*ifindex = rtnl_link_get_ifindex(l);
	a = rtnl_link_get_addr(l);
	if (!a || nl_addr_get_len(a) != 6) {
		rtnl_link_put(l);
		return -EINVAL;
	}
	memcpy(mac, nl_addr_get_binary_addr(a), 6);
	rtnl_link_put(l);
	return 0;
}

/* Flags, MTU, addrgenmode; up. */
static int link_setup(struct nl_sock *sk, const char *name, bool kernel_end)
{
	struct rtnl_link *cur = NULL, *chg = rtnl_link_alloc();
	int r;

	if (!chg)
		return -ENOMEM;
	r = rtnl_link_get_kernel(sk, 0, name, &cur);
	if (r < 0) {
		rtnl_link_put(chg);
		return -ENODEV;
	}
	rtnl_link_set_mtu(chg, INJ_MTU);
	rtnl_link_set_flags(chg, IFF_UP | IFF_NOARP);
	rtnl_link_unset_flags(chg, IFF_MULTICAST);
	if (kernel_end)
		rtnl_link_inet6_set_addr_gen_mode(chg, IN6_ADDR_GEN_MODE_NONE);
	r = rtnl_link_change(sk, cur, chg, 0);
	rtnl_link_put(cur);
	rtnl_link_put(chg);
	return r < 0 ? -EIO : 0;
}

/* @err for a failed write of net.@fam.conf.@dev.@key (-@r): the sysctl and,
 * for a read-only /proc/sys (a service sandbox), the directory that must be
 * writable. */
static void sysctl_err(const struct srv6_injdev *d, const char *fam, const char *dev,
		       const char *key, int r, char *err, size_t errlen)
{
	if (r == -EROFS)
		srv6_seterr(err, errlen, "egress device %s: sysctl net.%s.conf.%s.%s: %s "
			    "(/proc/sys/net/%s/conf must be writable, see srv6d(8))", d->name, fam,
			    dev, key, strerror(-r), fam);
	else
		srv6_seterr(err, errlen, "egress device %s: sysctl net.%s.conf.%s.%s: %s", d->name,
			    fam, dev, key, strerror(-r));
}

/* The sysctls each end needs (see inject.h); before the links go up. */
static int dev_sysctls(const struct srv6_injdev *d, char *err, size_t errlen)
{
	static const struct {
		bool kernel_end;
		const char *fam, *key, *val;
	} tab[] = {
		/* srv6d's end: no IPv6 stack at all, so nothing it receives
		 * (nothing should arrive) is processed. */
		{ false, "ipv6", "disable_ipv6", "1" },
		/* the kernel's end receives and forwards everything; its IPv6
		 * stays off until the link is up with multicast off and
		 * forwarding 0 (srv6d_injdev_open turns it on) */
		{ true, "ipv6", "disable_ipv6", "1" },
		/* created while all.forwarding is 1, the device joined the
		 * all-routers groups; MLDv2 would report leaving them once
		 * IPv6 is up, MLDv1 reports a leave only for a group it had
		 * reported (never: the link was down).  No MLD message ever
		 * leaves srv6d0 (test_burst.sh checks). */
		{ true, "ipv6", "force_mld_version", "1" },
		{ true, "ipv6", "accept_ra", "0" },
		{ true, "ipv6", "accept_dad", "0" },
		/* ip6_forward() needs only all.forwarding; 0 here takes the
		 * device out of the all-routers groups.  IPv4
		 * forwarding is left as the host has it (net.ipv4.ip_forward
		 * sets every device): End.DX4/DT4 are refused with it off, as
		 * the kernel's own are. */
		{ true, "ipv6", "forwarding", "0" },
		/* ipv6_srh_rcv() takes min(all, dev): ours defers to all */
		{ true, "ipv6", "seg6_enabled", "1" },
		/* rp_filter is max(all, dev): 0 here defers to all */
		{ true, "ipv4", "rp_filter", "0" },
		/* End.DT4 sources may exist only in table N (the mark) */
		{ true, "ipv4", "src_valid_mark", "1" },
		{ true, "ipv4", "accept_local", "1" },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		const char *dev = tab[i].kernel_end ? d->name : d->peer;
		int r = write_sysctl(tab[i].fam, dev, tab[i].key, tab[i].val);

		if (r == -ENOENT && !strcmp(tab[i].fam, "ipv4"))
			continue;   /* a kernel without IPv4 */
		if (r < 0) {
			sysctl_err(d, tab[i].fam, dev, tab[i].key, r, err, errlen);
			return r;
		}
	}
	return 0;
}

void srv6_injdev_name(const char *chain, char *buf, size_t len)
{
	uint32_t h = 2166136261u;

	if (!chain || !strcmp(chain, "SRV6D")) {
		snprintf(buf, len, "%s", SRV6_INJ_DEV_DEFAULT);
		return;
	}
	for (const char *c = chain; *c; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	snprintf(buf, len, "srv6d%08x", h);
}

int srv6_injdev_open(struct srv6_injdev *d, const char *name, char *err, size_t errlen)
{
	struct rtnl_link *l = NULL, *peer;
	struct nl_sock *sk;
	size_t n = strlen(name);
	int r;

	memset(d, 0, sizeof(*d));
	if (n == 0 || n > IF_NAMESIZE - 2) {
		srv6_seterr(err, errlen, "egress device name \"%s\": 1 to %d characters",
			    name, IF_NAMESIZE - 2);
		return -EINVAL;
	}
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->peer, sizeof(d->peer), "%sp", name);
	sk = nl_socket_alloc();
	if (!sk) {
		srv6_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (nl_connect(sk, NETLINK_ROUTE) < 0) {
		r = -EIO;
		srv6_seterr(err, errlen, "rtnetlink: cannot connect");
		goto out_sock;
	}
	/* A left-over pair of this name is ours (a crashed srv6d): remove it
	 * (deleting one end deletes both).  A device of that name that is no
	 * veth is someone else's: refuse. */
	for (int i = 0; i < 2; i++) {
		const char *nm = i ? d->peer : d->name;
		struct rtnl_link *old = NULL;

		if (rtnl_link_get_kernel(sk, 0, nm, &old) < 0)
			continue;
		r = rtnl_link_get_type(old) && !strcmp(rtnl_link_get_type(old), "veth");
		rtnl_link_put(old);
		if (!r) {
			srv6_seterr(err, errlen, "egress device %s: a device named %s exists and is "
				    "not srv6d's veth", d->name, nm);
			r = -EEXIST;
			goto out_sock;
		}
		(void)link_del(sk, nm);
	}

	l = rtnl_link_veth_alloc();
	if (!l) {
		r = -ENOMEM;
		srv6_seterr(err, errlen, "out of memory");
		goto out_sock;
	}
	rtnl_link_set_name(l, d->name);
	peer = rtnl_link_veth_get_peer(l);   /* a reference of its own */
	rtnl_link_set_name(peer, d->peer);
	rtnl_link_put(peer);
	r = rtnl_link_add(sk, l, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_link_veth_release(l);
	if (r < 0) {
		srv6_seterr(err, errlen, "egress device %s: cannot create veth pair: %s",
			    d->name, nl_geterror(r));
		r = -EIO;
		goto out_sock;
	}
	r = dev_sysctls(d, err, errlen);
	if (r < 0)
		goto out_del;
	r = link_setup(sk, d->peer, false);
	if (r == 0)
		r = link_setup(sk, d->name, true);
	if (r == 0) {
		r = write_sysctl("ipv6", d->name, "disable_ipv6", "0");
		if (r < 0) {
			sysctl_err(d, "ipv6", d->name, "disable_ipv6", r, err, errlen);
			goto out_del;
		}
	}
	if (r == 0)
		r = link_read(sk, d->name, &d->ifindex, d->mac);
	if (r == 0)
		r = link_read(sk, d->peer, &d->peer_ifindex, d->peer_mac);
	if (r < 0) {
		srv6_seterr(err, errlen, "egress device %s: cannot configure: %s", d->name,
			    strerror(-r));
		goto out_del;
	}
	nl_socket_free(sk);
	return 0;

out_del:
	(void)link_del(sk, d->name);
	d->ifindex = 0;
out_sock:
	nl_socket_free(sk);
	return r;
}

void srv6_injdev_close(struct srv6_injdev *d)
{
	struct nl_sock *sk;

	if (!d || !d->ifindex)
		return;
	sk = nl_socket_alloc();
	if (sk && nl_connect(sk, NETLINK_ROUTE) == 0)
		(void)link_del(sk, d->name);
	if (sk)
		nl_socket_free(sk);
	d->ifindex = 0;
}

int srv6_injdev_state(const struct srv6_injdev *d)
{
	struct ifreq ifr;
	int fd, r;

	memset(&ifr, 0, sizeof(ifr));
	if (d->ifindex <= 0)
		return -ENODEV;
	/* gone is ENXIO (or ENODEV); anything else (EMFILE, ENOMEM...) says
	 * nothing about the device */
	if (!if_indextoname((unsigned int)d->ifindex, ifr.ifr_name))
		return errno == ENXIO || errno == ENODEV ? -ENODEV : -(errno ? errno : EIO);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = ioctl(fd, SIOCGIFFLAGS, &ifr) < 0 ? (errno == ENODEV ? -ENODEV : -errno)
					      : !!(ifr.ifr_flags & IFF_UP);
	close(fd);
	return r;
}

static uint64_t softnet_dropped(void)
{
	char line[512];
	uint64_t sum = 0;
	FILE *f = fopen("/proc/net/softnet_stat", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned int processed, dropped;

		if (sscanf(line, "%x %x", &processed, &dropped) == 2)
			sum += dropped;
	}
	fclose(f);
	return sum;
}

int srv6_injdev_drops(const struct srv6_injdev *d, struct srv6_injdev_drops *out)
{
	struct rtnl_link *k = NULL, *p = NULL;
	struct nl_sock *sk;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!d || !d->ifindex)
		return -ENODEV;
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	if (nl_connect(sk, NETLINK_ROUTE) < 0 ||
	    rtnl_link_get_kernel(sk, d->ifindex, NULL, &k) < 0 ||
	    rtnl_link_get_kernel(sk, d->peer_ifindex, NULL, &p) < 0) {
		r = -EIO;
		goto out;
	}
	out->rx_packets = rtnl_link_get_stat(k, RTNL_LINK_RX_PACKETS);
	out->rx_dropped = rtnl_link_get_stat(k, RTNL_LINK_RX_DROPPED) +
			  rtnl_link_get_stat(p, RTNL_LINK_RX_DROPPED);
	out->tx_dropped = rtnl_link_get_stat(p, RTNL_LINK_TX_DROPPED) +
			  rtnl_link_get_stat(k, RTNL_LINK_TX_DROPPED);
	out->softnet_dropped = softnet_dropped();
out:
	if (k)
		rtnl_link_put(k);
	if (p)
		rtnl_link_put(p);
	nl_socket_free(sk);
	return r;
}

/* ---- the injector (one per worker) ---- */

struct frame {
	struct sockaddr_ll sa;
	struct virtio_net_hdr vh;     /* iov[0] when the socket has PACKET_VNET_HDR */
	uint8_t eth[ETH_HLEN];
	bool l2, gso;
	struct iovec iov[3];
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} ctl;
};

struct srv6_inj {
	int fd;
	bool have_dev;
	bool vnet;                    /* PACKET_VNET_HDR: every frame has one */
	struct srv6_injdev dev;
	unsigned int n;
	struct frame f[SRV6_INJ_BATCH];
	struct mmsghdr mm[SRV6_INJ_BATCH];
	struct srv6_inj_stats st;
};

#define ST_ADD(j, f, v) \
	__atomic_store_n(&(j)->st.f, __atomic_load_n(&(j)->st.f, __ATOMIC_RELAXED) + (v), \
			 __ATOMIC_RELAXED)

struct srv6_inj *srv6_inj_open(const struct srv6_injdev *d, char *err, size_t errlen)
{
	struct srv6_inj *j = calloc(1, sizeof(*j));
	int sb = INJ_SNDBUF;

	if (!j) {
		srv6_seterr(err, errlen, "out of memory");
		return NULL;
	}
	/* Protocol 0: the socket receives nothing. */
	j->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (j->fd < 0) {
		srv6_seterr(err, errlen, "AF_PACKET socket: %s", strerror(errno));
		free(j);
		return NULL;
	}
	if (setsockopt(j->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sb, sizeof(sb)) < 0)
		(void)setsockopt(j->fd, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
	if (d && d->ifindex) {
		j->dev = *d;
		j->have_dev = true;
	}
	return j;
}

void srv6_inj_close(struct srv6_inj *j)
{
	if (!j)
		return;
	(void)srv6_inj_flush(j);
	close(j->fd);
	free(j);
}

static struct frame *slot(struct srv6_inj *j, size_t len)
{
	if (len > INJ_MTU)
		return NULL;
	if (j->n == SRV6_INJ_BATCH)
		(void)srv6_inj_flush(j);
	return &j->f[j->n];
}

int srv6_inj_set_vnet(struct srv6_inj *j)
{
	int one = 1;

	if (setsockopt(j->fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0)
		return -errno;
	j->vnet = true;
	return 0;
}

/* @f's iov from index 1 is filled; iov[0] is the virtio-net header, used
 * only when the socket has PACKET_VNET_HDR (none set: f->vh zero). */
static void commit(struct srv6_inj *j, struct frame *f, int iovlen, bool with_mark)
{
	struct mmsghdr *m = &j->mm[j->n++];

	memset(m, 0, sizeof(*m));
	f->iov[0].iov_base = &f->vh;
	f->iov[0].iov_len = sizeof(f->vh);
	m->msg_hdr.msg_name = &f->sa;
	m->msg_hdr.msg_namelen = sizeof(f->sa);
	m->msg_hdr.msg_iov = j->vnet ? f->iov : f->iov + 1;
	m->msg_hdr.msg_iovlen = (size_t)iovlen + (j->vnet ? 1 : 0);
	if (with_mark) {
		m->msg_hdr.msg_control = f->ctl.buf;
		m->msg_hdr.msg_controllen = sizeof(f->ctl.buf);
	}
}

int srv6_inj_add_gso(struct srv6_inj *j, int family, uint32_t mark, const uint8_t *data,
		     size_t len, const struct srv6_inj_gso *g)
{
	uint16_t type = family == AF_INET ? ETH_P_IP : ETH_P_IPV6;
	struct frame *f;

	if (!j->have_dev)
		return -ENODEV;
	if (g && !j->vnet)
		return -EOPNOTSUPP;
	f = slot(j, len);
	if (!f)
		return -EMSGSIZE;
	memset(&f->vh, 0, sizeof(f->vh));
	f->gso = false;
	if (g) {
		/* Offsets count from the frame's first byte (the Ethernet
		 * header): SOCK_RAW. */
		f->vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		f->vh.csum_start = (uint16_t)(ETH_HLEN + g->csum_start);
		f->vh.csum_offset = g->csum_offset;
		f->vh.hdr_len = (uint16_t)(ETH_HLEN + g->hdr_len);
		if (g->gso_size) {
			f->vh.gso_type = (uint8_t)((family == AF_INET ? VIRTIO_NET_HDR_GSO_TCPV4 :
						    VIRTIO_NET_HDR_GSO_TCPV6) |
						   (g->ecn ? VIRTIO_NET_HDR_GSO_ECN : 0));
			f->vh.gso_size = g->gso_size;
			f->gso = true;
		}
	}
	memset(&f->sa, 0, sizeof(f->sa));
	f->sa.sll_family = AF_PACKET;
	f->sa.sll_ifindex = j->dev.peer_ifindex;
	f->sa.sll_protocol = htons(type);
	f->sa.sll_halen = ETH_ALEN;
	memcpy(f->sa.sll_addr, j->dev.mac, ETH_ALEN);
	memcpy(f->eth, j->dev.mac, ETH_ALEN);
	memcpy(f->eth + ETH_ALEN, j->dev.peer_mac, ETH_ALEN);
	f->eth[12] = (uint8_t)(type >> 8);
	f->eth[13] = (uint8_t)type;
	f->l2 = false;
	f->iov[1].iov_base = f->eth;
	f->iov[1].iov_len = ETH_HLEN;
	f->iov[2].iov_base = (void *)data;
	f->iov[2].iov_len = len;
	if (mark) {
		struct cmsghdr *c = &f->ctl.align;

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SO_MARK;
		c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
		memcpy(CMSG_DATA(c), &mark, sizeof(mark));
	}
	commit(j, f, 2, mark != 0);
	return 0;
}

int srv6_inj_add(struct srv6_inj *j, int family, uint32_t mark, const uint8_t *data, size_t len)
{
	return srv6_inj_add_gso(j, family, mark, data, len, NULL);
}

int srv6_inj_add_l2(struct srv6_inj *j, int ifindex, const uint8_t *data, size_t len)
{
	struct frame *f;

	if (len < ETH_HLEN || ifindex <= 0)
		return -EINVAL;
	f = slot(j, len);
	if (!f)
		return -EMSGSIZE;
	memset(&f->sa, 0, sizeof(f->sa));
	f->sa.sll_family = AF_PACKET;
	f->sa.sll_ifindex = ifindex;
	f->sa.sll_protocol = (uint16_t)(data[12] | data[13] << 8); /* network order as is */
	f->sa.sll_halen = ETH_ALEN;
	memcpy(f->sa.sll_addr, data, ETH_ALEN);
	f->l2 = true;
	f->gso = false;
	memset(&f->vh, 0, sizeof(f->vh));
	f->iov[1].iov_base = (void *)data;
	f->iov[1].iov_len = len;
	commit(j, f, 1, false);
	return 0;
}

int srv6_inj_flush(struct srv6_inj *j)
{
	unsigned int off = 0;
	int refused = 0;

	while (off < j->n) {
		int r = sendmmsg(j->fd, j->mm + off, j->n - off, MSG_DONTWAIT);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			/* This frame is refused (ENOBUFS, EMSGSIZE, ENETDOWN,
			 * EAGAIN...): count it and go on with the next. */
			refused++;
			off++;
			continue;
		}
		ST_ADD(j, sendmmsgs, 1);
		for (int i = 0; i < r; i++) {
			if (j->f[off + (unsigned int)i].l2)
				ST_ADD(j, l2_sent, 1);
			else
				ST_ADD(j, injected, 1);
			if (j->f[off + (unsigned int)i].gso)
				ST_ADD(j, gso_sent, 1);
		}
		off += (unsigned int)r;
	}
	if (refused)
		ST_ADD(j, errors, (uint64_t)refused);
	j->n = 0;
	return refused;
}

unsigned int srv6_inj_pending(const struct srv6_inj *j)
{
	return j ? j->n : 0;
}

void srv6_inj_stats_read(const struct srv6_inj *j, struct srv6_inj_stats *out)
{
	const uint64_t *src = (const uint64_t *)&j->st;
	uint64_t *dst = (uint64_t *)out;

	_Static_assert(sizeof(*out) % sizeof(uint64_t) == 0, "stats are u64 only");
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}
