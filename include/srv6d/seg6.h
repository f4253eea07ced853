/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * seg6.h - the SRv6 packet engine: RFC 8986 endpoint behaviors and headend
 * transforms as pure functions over a struct srv6_pkt.
 *
 * Behaviors are data: a descriptor table (action, required and optional
 * attribute masks, handler) as in the kernel's seg6_local.c.  One
 * enum<->name table serves the conf parser, the CLI and every printer.
 *
 * Nothing here does I/O, allocates, or touches globals other than the const
 * tables: any thread may call any function at any time.  Counters are not
 * updated here; the caller accounts the returned struct srv6_result.
 */
#ifndef SRV6D_SEG6_H
#define SRV6D_SEG6_H

#include <netinet/in.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "pkt.h"
#include "srh.h"

struct srv6_hmac_set;
struct srv6_hmac_key;

/* Behaviors.  Values match the kernel's SEG6_LOCAL_ACTION_* where it has one. */
enum srv6_action {
	SRV6_ACT_UNSPEC = 0,
	SRV6_ACT_END = 1,
	SRV6_ACT_END_X = 2,
	SRV6_ACT_END_T = 3,
	SRV6_ACT_END_DX2 = 4,
	SRV6_ACT_END_DX6 = 5,
	SRV6_ACT_END_DX4 = 6,
	SRV6_ACT_END_DT6 = 7,
	SRV6_ACT_END_DT4 = 8,
	SRV6_ACT_END_B6 = 9,
	SRV6_ACT_END_B6_ENCAP = 10,
	SRV6_ACT_END_DT46 = 16,
	SRV6_ACT_END_B6_ENCAP_RED = 17, /* not in the kernel */
	SRV6_ACT_MAX,
};

/* An End.B6.Encaps(.Red) SID: its result is a new outer header, whose
 * source address the daemon picks (encap-src or the route's).  Pure. */
static inline bool srv6_action_encaps(enum srv6_action a)
{
	return a == SRV6_ACT_END_B6_ENCAP || a == SRV6_ACT_END_B6_ENCAP_RED;
}

/* SID attributes, one bit each in srv6_action_desc masks. */
enum srv6_attr {
	SRV6_ATTR_SRH,      /* segment list (End.B6*) */
	SRV6_ATTR_TABLE,    /* lookup table (End.T, End.DT*) */
	SRV6_ATTR_VRFTABLE, /* VRF table (End.DT*) */
	SRV6_ATTR_NH4,
	SRV6_ATTR_NH6,
	SRV6_ATTR_OIF,
	SRV6_ATTR_FLAVORS,
	SRV6_ATTR_MAX,
};
#define SRV6_F_ATTR(a) (1u << (a))
_Static_assert(SRV6_ATTR_MAX <= 32, "attribute mask is 32 bits");

/* Flavors (RFC 8986 §4.16, RFC 9800). */
enum srv6_flavor {
	SRV6_FLV_PSP,
	SRV6_FLV_USP,
	SRV6_FLV_USD,
	SRV6_FLV_NEXT_CSID,
	SRV6_FLV_MAX,
};
#define SRV6_F_FLV(f) (1u << (f))

#define SRV6_CSID_LBLEN_DEFAULT 32
#define SRV6_CSID_NFLEN_DEFAULT 16

/**
 * struct srv6_sid_cfg - one local SID's configuration, immutable once
 * published (readers may hold it under RCU).
 */
struct srv6_sid_cfg {
	enum srv6_action action;
	uint32_t attrs;               /* SRV6_F_ATTR() bits present */
	uint32_t flavors;             /* SRV6_F_FLV() bits */
	uint8_t lblen, nflen;         /* NEXT-C-SID, bits */
	uint32_t table;
	uint32_t vrftable;
	struct in_addr nh4;
	struct in6_addr nh6;
	char oif_name[IF_NAMESIZE];
	int oif;                      /* ifindex, resolved by the datapath */
	char dev_name[IF_NAMESIZE];   /* "dev" of a pasted route: the device whose
					 addresses the outer source of End.B6.Encaps*
					 is chosen from, as the kernel does ("" none) */
	unsigned int nsegs;           /* End.B6*: segments, travel order */
	struct in6_addr segs[SRV6_MAX_SEGS];
	/* Filled by the datapath before publishing, copied into results: */
	struct in6_addr encap_src;    /* outer source for End.B6.Encaps* */
	int flowlabel_mode;           /* net.ipv6.seg6_flowlabel: > 0 hash, 0 copy, < 0 zero */
	uint32_t mark;                /* fwmark selecting the next-hop context */
	/* SRH HMAC (include/srv6d/hmac.h): */
	uint32_t hmac_keyid;          /* End.B6*: `srh segs ... hmac KEYID` (0: none) */
	const struct srv6_hmac_set *hmac;     /* datapath-filled: the configuration's
						 keys and modes (NULL: verify, no key) */
	const struct srv6_hmac_key *hmac_key; /* datapath-filled: End.B6* signing key */
	bool pending;                 /* a dependency is missing (interface, next-hop
					 route, VRF, outer source): every packet is
					 dropped as SRV6_DROP_PENDING */
};

/* What the datapath must do with the packet after srv6_sid_process(). */
enum srv6_verdict {
	SRV6_V_FORWARD6,  /* IPv6 packet at pkt->data: route it (nh context) */
	SRV6_V_FORWARD4,  /* IPv4 packet at pkt->data: route it (nh context) */
	SRV6_V_L2,        /* Ethernet frame at pkt->data: transmit on nh.oif */
	SRV6_V_ICMP,      /* answer with res->icmp; the packet is untouched */
	SRV6_V_DROP,      /* drop, res->reason says why */
};

/* Drop reasons; each has a per-SID counter and a name. */
enum srv6_drop {
	SRV6_DROP_NONE = 0,
	SRV6_DROP_MALFORMED,     /* not a parseable IPv6 packet */
	SRV6_DROP_SRH_INVALID,   /* SRH failed validation */
	SRV6_DROP_NO_SRH,        /* behavior needs an SRH, there is none */
	SRV6_DROP_SL_ZERO,       /* SL == 0 where the behavior cannot end */
	SRV6_DROP_SL_NONZERO,    /* decap behavior with SL != 0 */
	SRV6_DROP_BAD_INNER,     /* upper layer not what the behavior accepts */
	SRV6_DROP_HOP_LIMIT,     /* hop limit exhausted */
	SRV6_DROP_NO_ROOM,       /* no headroom/tailroom for the rewrite */
	SRV6_DROP_CSID_ARG,      /* NEXT-C-SID argument invalid */
	SRV6_DROP_UNSUPPORTED,   /* action/flavor not runnable here */
	SRV6_DROP_LOOP,          /* local SID chain longer than the datapath allows */
	SRV6_DROP_PENDING,       /* the SID or policy is pending: its interface, next-hop
				    route, VRF or outer source is missing (degraded start) */
	/* Set by the datapath (never by the engine) for an Echo Request at
	 * the SID whose reply was not sent: */
	SRV6_DROP_ICMP_LIMITED,  /* the ICMPv6 rate limit suppressed it */
	SRV6_DROP_ECHO_IGNORED,  /* net.ipv6.icmp.echo_ignore_all */
	SRV6_DROP_HMAC,          /* SRH HMAC missing (require) or not verified */
	SRV6_DROP_MAX,
};

/* Next-hop context the packet must be forwarded with. */
struct srv6_nh {
	uint32_t mark;            /* fwmark; 0 = main table */
	uint32_t table;           /* informational: table the mark selects */
	int oif;                  /* End.X/DX*: output interface (0 = any) */
	struct in6_addr nh6;
	struct in_addr nh4;
};

struct srv6_icmp {
	uint8_t type, code;
	uint32_t pointer;          /* Parameter Problem pointer (host order) */
};

struct srv6_result {
	enum srv6_verdict verdict;
	enum srv6_drop reason;     /* SRV6_V_DROP, and the cause for ICMP errors */
	struct srv6_nh nh;
	struct srv6_icmp icmp;
};

/* Descriptor of one behavior. */
struct srv6_action_desc {
	enum srv6_action action;
	const char *name;          /* "End.DX6" */
	uint32_t required_attrs;
	uint32_t optional_attrs;
	uint32_t one_of_attrs;     /* exactly one of these must be present
				      (End.DT*: table or vrftable) */
	uint32_t flavors_allowed;  /* SRV6_F_FLV() bits */
	bool kernel;               /* the Linux kernel implements it */
	int (*input)(const struct srv6_sid_cfg *cfg, int hmac_mode, struct srv6_pkt *pkt,
		     struct srv6_result *res);
};

/** srv6_action_desc_get - descriptor for @act, NULL if none.  Pure. */
const struct srv6_action_desc *srv6_action_desc_get(enum srv6_action act);

/** srv6_action_from_name - exact (case-sensitive) name -> action; UNSPEC if unknown. */
enum srv6_action srv6_action_from_name(const char *name);
/** srv6_action_name - action -> name; "unknown" if out of range. */
const char *srv6_action_name(enum srv6_action act);
/** srv6_attr_name - attribute keyword ("nh6", "table", ...). */
const char *srv6_attr_name(enum srv6_attr a);
/** srv6_flavor_from_name / srv6_flavor_name - "psp", "usp", "usd", "next-csid". */
int srv6_flavor_from_name(const char *name);
const char *srv6_flavor_name(enum srv6_flavor f);
/** srv6_drop_name - counter name of a drop reason ("srh-invalid", ...). */
const char *srv6_drop_name(enum srv6_drop r);

/**
 * srv6_sid_cfg_check - cross-field validation of a SID configuration:
 * required attributes present, no attribute outside required|optional,
 * flavors allowed for the action and in a combination RFC 8986 allows,
 * lblen/nflen byte-aligned, 8..120 and sum <= 128 (the kernel's checks),
 * segment count within SRV6_MAX_SEGS.  Returns 0 or -EINVAL; when @why is
 * not NULL it receives a static string naming the problem.  Pure.
 */
int srv6_sid_cfg_check(const struct srv6_sid_cfg *cfg, const char **why);

/**
 * srv6_sid_process - run the behavior of @cfg on the IPv6 packet @pkt whose
 * destination matched the SID.  Rewrites @pkt in place (data/len may move)
 * and fills @res.  On SRV6_V_ICMP and SRV6_V_DROP the packet bytes (and
 * len) are left as received; a forwarded packet loses any trailer past its
 * Payload Length.  A @cfg marked pending drops every packet (SRV6_DROP_PENDING),
 * as the kernel's blackhole drops a packet whose next hop has no route.  The hop limit is never decremented (the kernel's
 * forwarding step does it).  @cfg must have passed srv6_sid_cfg_check().
 * docs/BEHAVIORS.md lists every result.  Pure; never reads outside
 * pkt->data[0 .. len).
 * Returns 0 (the result says what to do); never fails otherwise.
 */
int srv6_sid_process(const struct srv6_sid_cfg *cfg, struct srv6_pkt *pkt,
		     struct srv6_result *res);

/**
 * srv6_sid_process_in - srv6_sid_process() for a packet received on
 * interface @indev (ifindex; 0 unknown): the SRH HMAC is checked under the
 * mode cfg->hmac gives that interface (srv6_hmac_mode_for()), at the point
 * the kernel's seg6local checks it (End, End.X, End.T, End.B6*: any SRH, SL
 * 0 or not; decapsulating behaviors: an SRH with SL 0).  A failure is
 * SRV6_DROP_HMAC: an ICMPv6 Parameter Problem code 0 pointing at the HMAC
 * TLV (RFC 8754 §2.1.2.1), or a plain drop when a required TLV is absent.
 * srv6_sid_process() is this with @indev 0.  Pure.
 */
int srv6_sid_process_in(const struct srv6_sid_cfg *cfg, int indev, struct srv6_pkt *pkt,
			struct srv6_result *res);

#endif
