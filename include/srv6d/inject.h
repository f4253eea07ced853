/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inject.h - the injection egress: results that leave srv6d through its own
 * device instead of inside an NFQUEUE verdict.
 *
 * srv6d owns one veth pair in its network namespace (docs/ARCHITECTURE.md
 * says why this one and not TUN or a raw IPPROTO_RAW socket):
 *
 *     srv6d (AF_PACKET, sendmmsg)                     kernel
 *        |                                              ^
 *        v                                              |
 *    [ <name>p ]  ==== veth ====>  [ <name> ]  -> ip6_rcv/ip_rcv -> PREROUTING ->
 *    srv6d's end: no IPv6,         the kernel's end: no address, IPv4 rp_filter 0,
 *    no ARP, no multicast          src_valid_mark, accept_local (forwarding: the host's)
 *
 * A result is written as an Ethernet frame (destination = the kernel end's
 * MAC) with a per-message SO_MARK control message, into srv6d's end.  The veth
 * hands it to the kernel end's receive path in the same namespace, which keeps
 * the mark (skb_scrub_packet only clears it across namespaces): the kernel
 * routes it with the mark (fwmark rules of the next-hop contexts), forwards
 * it (one hop limit / TTL decrement, exactly as after the kernel's own
 * seg6local), passes FORWARD and POSTROUTING, sends its own ICMP errors and
 * resolves neighbours.  Its input interface is <name>; srv6d's steering chain
 * accepts everything arriving on it first, so nothing injected is steered
 * back to a queue.
 *
 * End.DX2 frames go out of their oif unchanged through the same socket (a
 * per-message sockaddr_ll names the device).
 *
 * A veth transmit reports success even when the receiving side drops (its
 * backlog is full): srv6_injdev_drops() reads the device counters so that
 * such loss is counted, not silent.
 *
 * Threading: struct srv6_injdev is the control thread's (open at start,
 * close at exit).  Each worker owns one struct srv6_inj (socket + batch).
 */
#ifndef SRV6D_INJECT_H
#define SRV6D_INJECT_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRV6_INJ_DEV_DEFAULT "srv6d0"  /* the kernel's end; srv6d's end adds "p" */
#define SRV6_INJ_BATCH       64

struct srv6_injdev {
	char name[IF_NAMESIZE];       /* kernel end: input interface of results */
	char peer[IF_NAMESIZE];       /* srv6d's end: where frames are written */
	int ifindex, peer_ifindex;
	uint8_t mac[6], peer_mac[6];
};

/**
 * srv6_injdev_name - the device name of the instance whose steering chain is
 * @chain: SRV6_INJ_DEV_DEFAULT for the default chain, else "srv6d" + 8 hex
 * digits of a hash of the chain name (instances lock their chains, so their
 * devices differ too).  @buf gets IF_NAMESIZE bytes.  Pure.
 */
void srv6_injdev_name(const char *chain, char *buf, size_t len);

/**
 * srv6_injdev_open - create srv6d's veth pair @name / @name"p" (removing a
 * left-over pair of that name first: it is srv6d's), configure both ends as
 * described above and bring them up.  @name must be 1..IF_NAMESIZE-2 chars.
 * Returns 0 or -errno with one line in @err.  Control thread.
 */
int srv6_injdev_open(struct srv6_injdev *d, const char *name, char *err, size_t errlen);

/** srv6_injdev_close - delete the pair (NULL or never opened: no-op). */
void srv6_injdev_close(struct srv6_injdev *d);

/**
 * srv6_injdev_state - whether the kernel end (@d->ifindex) is there and up:
 * 1 up, 0 down, -ENODEV gone (someone deleted it: srv6d does not create it
 * again), else -errno.  Any thread.
 */
int srv6_injdev_state(const struct srv6_injdev *d);

/**
 * struct srv6_injdev_drops - what the devices dropped (veth counters of both
 * ends: a full backlog on the kernel end shows as its rx_dropped or srv6d's
 * end's tx_dropped), plus softnet backlog drops of the whole host
 * (/proc/net/softnet_stat, column 2; not srv6d's alone).
 */
struct srv6_injdev_drops {
	uint64_t rx_packets;          /* frames the kernel end received */
	uint64_t rx_dropped, tx_dropped;
	uint64_t softnet_dropped;
};

/** srv6_injdev_drops - read the counters.  0 or -errno.  Any thread. */
int srv6_injdev_drops(const struct srv6_injdev *d, struct srv6_injdev_drops *out);

/* ---- per worker ---- */

struct srv6_inj;

struct srv6_inj_stats {
	uint64_t injected;            /* frames handed to the kernel end */
	uint64_t l2_sent;             /* End.DX2 frames sent on their oif */
	uint64_t errors;              /* frames the socket refused (counted, lost) */
	uint64_t sendmmsgs;
	uint64_t gso_sent;            /* of injected: GSO super-packets (vnet header) */
};

/**
 * srv6_inj_open - a socket writing into @d (and into any device, for L2
 * frames).  @d may be NULL: then only L2 frames can be sent.  Returns NULL
 * with one line in @err.  Owner thread.
 */
struct srv6_inj *srv6_inj_open(const struct srv6_injdev *d, char *err, size_t errlen);

/** srv6_inj_close - flush and close; NULL accepted.  Owner thread. */
void srv6_inj_close(struct srv6_inj *j);

/**
 * srv6_inj_add - queue the IPv6 (@family AF_INET6) or IPv4 (AF_INET) packet
 * @data/@len for injection with @mark.  @data is not copied: it must stay
 * valid until srv6_inj_flush().  Flushes by itself when the batch is full.
 * Returns 0, -EMSGSIZE (too long for a frame), or -ENODEV (no device).
 */
int srv6_inj_add(struct srv6_inj *j, int family, uint32_t mark, const uint8_t *data, size_t len);

/**
 * srv6_inj_set_vnet - turn PACKET_VNET_HDR on (conf gso): from now on every
 * frame is written behind a struct virtio_net_hdr (zero for plain frames),
 * and srv6_inj_add_gso() can pass a partial checksum and a GSO size to the
 * kernel, which completes the checksum and segments on the way out.  0 or
 * -errno.  Owner thread, before the first frame.
 */
int srv6_inj_set_vnet(struct srv6_inj *j);

/* What srv6_inj_add_gso() puts in the virtio-net header (offsets from the
 * IP header, the frame's Ethernet header is added). */
struct srv6_inj_gso {
	uint16_t csum_start;          /* L4 header: checksum from here to the end */
	uint16_t csum_offset;         /* checksum field, from csum_start */
	uint16_t hdr_len;             /* headers through the TCP options */
	uint16_t gso_size;            /* TCP payload bytes per segment; 0: not GSO
					 (checksum completion only) */
	bool ecn;                     /* CWR set: VIRTIO_NET_HDR_GSO_ECN */
};

/**
 * srv6_inj_add_gso - srv6_inj_add() with a virtio-net header from @g
 * (NULL: none): VIRTIO_NET_HDR_F_NEEDS_CSUM at @g's offsets (the L4 checksum
 * field must hold the pseudo-header sum, as CHECKSUM_PARTIAL), and with a
 * gso_size, GSO type TCPV6 (@family AF_INET6) or TCPV4.  -EOPNOTSUPP when
 * srv6_inj_set_vnet() was not called; else as srv6_inj_add().
 */
int srv6_inj_add_gso(struct srv6_inj *j, int family, uint32_t mark, const uint8_t *data,
		     size_t len, const struct srv6_inj_gso *g);

/**
 * srv6_inj_add_l2 - queue the Ethernet frame @data/@len for transmission on
 * @ifindex as is (End.DX2).  Same rules as srv6_inj_add().
 */
int srv6_inj_add_l2(struct srv6_inj *j, int ifindex, const uint8_t *data, size_t len);

/**
 * srv6_inj_flush - send everything queued with sendmmsg (never blocks:
 * a frame refused for lack of buffer space is counted as an error).
 * Returns the number of frames refused (0 when all went out).  Owner thread.
 */
int srv6_inj_flush(struct srv6_inj *j);

/** srv6_inj_pending - frames queued and not yet sent. */
unsigned int srv6_inj_pending(const struct srv6_inj *j);

/** srv6_inj_stats_read - copy the counters (any thread, relaxed loads). */
void srv6_inj_stats_read(const struct srv6_inj *j, struct srv6_inj_stats *out);

#endif
