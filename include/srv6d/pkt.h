/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pkt.h - a packet buffer with headroom, the unit the packet engine works on.
 *
 * The engine rewrites packets in place.  Encapsulation grows the packet at the
 * front (data moves toward buf), decapsulation shrinks it (data moves away from
 * buf).  Nothing here allocates: the owner (datapath, test, fuzzer) provides
 * buf with enough headroom (SRV6_PKT_HEADROOM is always enough for one
 * encapsulation with a maximal SRH).
 */
#ifndef SRV6D_PKT_H
#define SRV6D_PKT_H

#include <stddef.h>
#include <stdint.h>

/* 40 (IPv6) + 8 + 16 * 255 (largest SRH the 8-bit hdrlen allows) + slack. */
#define SRV6_PKT_HEADROOM 4160

struct srv6_pkt {
	uint8_t *buf;   /* start of the owner's buffer */
	size_t cap;     /* bytes at buf */
	uint8_t *data;  /* first byte of the packet (IPv6/IPv4 header or Ethernet) */
	size_t len;     /* bytes of packet at data */
};

/** Bytes available in front of data.  Pure. */
static inline size_t srv6_pkt_headroom(const struct srv6_pkt *p)
{
	return (size_t)(p->data - p->buf);
}

/** Bytes available after data + len.  Pure. */
static inline size_t srv6_pkt_tailroom(const struct srv6_pkt *p)
{
	return p->cap - srv6_pkt_headroom(p) - p->len;
}

/**
 * srv6_pkt_init - lay a packet of @len bytes (already copied at buf + headroom)
 * into @p.  Returns 0, or -EINVAL when headroom + len exceeds cap.
 */
static inline int srv6_pkt_init(struct srv6_pkt *p, uint8_t *buf, size_t cap,
				size_t headroom, size_t len)
{
	if (headroom > cap || len > cap - headroom)
		return -22; /* -EINVAL, kept header-light */
	p->buf = buf;
	p->cap = cap;
	p->data = buf + headroom;
	p->len = len;
	return 0;
}

#endif
