/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hmac.h - the SRH HMAC TLV (RFC 8754 §2.1.2), computed, verified and
 * written exactly as the kernel's net/ipv6/seg6_hmac.c does.
 *
 * Pure code: no I/O, no globals, safe from any thread.  The digests come
 * from OpenSSL's libcrypto (HMAC-SHA-1, HMAC-SHA-256).
 */
#ifndef SRV6D_HMAC_H
#define SRV6D_HMAC_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRV6_HMAC_SECRET_MAX  64   /* the kernel's SEG6_HMAC_SECRET_LEN */
#define SRV6_HMAC_FIELD_LEN   32   /* SEG6_HMAC_FIELD_LEN */
#define SRV6_HMAC_TLV_LEN     40   /* type, len 38, reserved, key id, field */
#define SRV6_SRH_FLAG_HMAC    0x08 /* the legacy H flag, sr_has_hmac() */
/* The kernel's 256-byte text buffer: 22 + 16 * n < 256. */
#define SRV6_HMAC_MAX_ENTRIES 14
#define SRV6_HMAC_MAX_KEYS    64
#define SRV6_HMAC_MAX_IFS     64

/* Values of the kernel's SEG6_HMAC_ALGO_*. */
enum srv6_hmac_algo {
	SRV6_HMAC_ALGO_SHA1 = 1,
	SRV6_HMAC_ALGO_SHA256 = 2,
};

/* Values of net.ipv6.conf.IF.seg6_require_hmac. */
enum srv6_hmac_mode {
	SRV6_HMAC_IGNORE = -1,     /* never look at the TLV */
	SRV6_HMAC_VERIFY = 0,      /* verify when present (default) */
	SRV6_HMAC_REQUIRE = 1,     /* a TLV must be present and verify */
};

/** struct srv6_hmac_key - one `hmac key` line; secret never printed. */
struct srv6_hmac_key {
	uint32_t id;               /* 1..2^32-1 */
	uint8_t algo;              /* enum srv6_hmac_algo */
	uint8_t slen;              /* 1..SRV6_HMAC_SECRET_MAX */
	uint8_t secret[SRV6_HMAC_SECRET_MAX];
	/* libcrypto HMAC state keyed with the secret (srv6_hmac_key_prepare()),
	 * copied per packet; NULL: keyed per packet (slower) */
	void *mac;
	/* conf side only (the packet code ignores them): */
	char *path;                /* secret-file */
	unsigned int line;
};

/** struct srv6_hmac_ifmode - `hmac MODE dev IF`; ifindex 0 = unresolved. */
struct srv6_hmac_ifmode {
	char name[IF_NAMESIZE];
	int ifindex;
	int mode;                  /* enum srv6_hmac_mode */
};

/**
 * struct srv6_hmac_set - keys and verification policy of one configuration.
 * Immutable once published; SIDs and policies point into it and it lives as
 * long as the configuration that owns it (until the reload after the next
 * one has passed its grace period).
 */
struct srv6_hmac_set {
	int mode;                  /* global; default SRV6_HMAC_VERIFY */
	bool has_mode;
	unsigned int nkeys, nifs;
	struct srv6_hmac_key keys[SRV6_HMAC_MAX_KEYS];
	struct srv6_hmac_ifmode ifs[SRV6_HMAC_MAX_IFS];
};

/** Why srv6_hmac_check() refused a packet. */
enum srv6_hmac_fail {
	SRV6_HMAC_PASS = 0,
	SRV6_HMAC_FAIL_MISSING,    /* required, no TLV */
	SRV6_HMAC_FAIL_KEY,        /* key id not configured */
	SRV6_HMAC_FAIL_LEN,        /* TLV length not 38, or > 14 segment entries */
	SRV6_HMAC_FAIL_DIGEST,     /* HMAC mismatch */
};

/** srv6_hmac_algo_from_name / _name - "sha1", "sha256"; -1 / "unknown". */
int srv6_hmac_algo_from_name(const char *name);
const char *srv6_hmac_algo_name(int algo);
/** srv6_hmac_mode_name - "require", "verify", "ignore". */
const char *srv6_hmac_mode_name(int mode);

/** srv6_hmac_key_find - key @id of @set (NULL-safe), NULL if absent.  Pure. */
const struct srv6_hmac_key *srv6_hmac_key_find(const struct srv6_hmac_set *set, uint32_t id);

/**
 * srv6_hmac_mode_for - the mode for packets received on @ifindex: a
 * `hmac MODE dev IF` line naming it, else the global mode.  A NULL @set is
 * the default (verify).  Pure.
 */
int srv6_hmac_mode_for(const struct srv6_hmac_set *set, int ifindex);

/**
 * srv6_hmac_key_prepare - key libcrypto's HMAC once for @key (its algo and
 * secret set), so that each packet only copies that state: about 2.5 times
 * cheaper than keying per packet (bench/hmac_bench).  Replaces an earlier
 * state.  0, -EINVAL (bad algo/secret) or -ENOMEM.  Control thread, before
 * the key is published.
 */
int srv6_hmac_key_prepare(struct srv6_hmac_key *key);

/** srv6_hmac_key_release - free what srv6_hmac_key_prepare() made.  Idempotent. */
void srv6_hmac_key_release(struct srv6_hmac_key *key);

/**
 * srv6_hmac_compute - seg6_hmac_compute(): HMAC with @key over source
 * address @saddr (16 bytes), Last Entry, Flags, the key id (big endian) and
 * every segment of the validated SRH @srh; the digest is written to @out
 * (32 bytes), a SHA-1 digest zero-padded.  Returns 0, -EMSGSIZE (more than
 * SRV6_HMAC_MAX_ENTRIES entries, as the kernel), -EINVAL (bad algo/secret)
 * or -EIO (libcrypto failed).  Pure.
 */
int srv6_hmac_compute(const struct srv6_hmac_key *key, const uint8_t *srh,
		      const uint8_t *saddr, uint8_t *out);

/**
 * srv6_hmac_tlv_find - RFC 8754: walk the TLVs of the validated SRH @srh
 * and return the offset (within the SRH) of the first HMAC TLV, 0 if there
 * is none.  The H flag is not consulted.  Pure.
 */
size_t srv6_hmac_tlv_find(const uint8_t *srh);

/**
 * srv6_hmac_tlv_find_kernel - the kernel's seg6_get_tlv_hmac(): only with
 * the H flag, only a 40-byte TLV (type 5, length 38) ending the SRH.
 * Offset or 0.  For tests and documentation of the difference.  Pure.
 */
size_t srv6_hmac_tlv_find_kernel(const uint8_t *srh);

/**
 * srv6_hmac_check - seg6_hmac_validate_skb() for the validated SRH @srh of a
 * packet with source @saddr under @mode with the keys of @set (NULL: none).
 * The TLV is found by srv6_hmac_tlv_find(); the comparison is constant
 * time.  Returns SRV6_HMAC_PASS or an enum srv6_hmac_fail; *@tlv_off
 * (may be NULL) receives the TLV offset within the SRH (0 when absent).
 * Pure.
 */
int srv6_hmac_check(const struct srv6_hmac_set *set, int mode, const uint8_t *srh,
		    const uint8_t *saddr, size_t *tlv_off);

/**
 * srv6_hmac_tlv_append - iproute2's layout for `hmac KEYID`: grow the SRH
 * at @srh (@len bytes, @cap available) by a 40-byte HMAC TLV with key id
 * @keyid and a zero field, set the H flag and Hdr Ext Len.  Returns the new
 * length, -ENOSPC or -EINVAL (Hdr Ext Len would overflow).  Pure.
 */
int srv6_hmac_tlv_append(uint8_t *srh, size_t len, size_t cap, uint32_t keyid);

/**
 * srv6_hmac_sign - seg6_push_hmac(): fill the field of the TLV that ends
 * the SRH @srh (as srv6_hmac_tlv_append() wrote it) for source @saddr.
 * Returns 0, -EINVAL (no such TLV) or srv6_hmac_compute()'s error.  Pure.
 */
int srv6_hmac_sign(const struct srv6_hmac_key *key, uint8_t *srh, const uint8_t *saddr);

#endif
