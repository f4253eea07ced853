// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hmac.c - the SRH HMAC TLV (RFC 8754 §2.1.2) with the kernel's input,
 * layout and limits (net/ipv6/seg6_hmac.c, iproute2's parse_srh()).
 * Pure code over byte buffers; the digests are libcrypto's.
 */
#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>

#include "srv6d/hmac.h"
#include "srv6d/srh.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define SRH_OFF_LE     4
#define SRH_OFF_FLAGS  5
#define TLV_HMAC_LEN   38   /* the length byte of a 40-byte HMAC TLV */
#define TEXT_MAX       256  /* the kernel's SEG6_HMAC_RING_SIZE */

_Static_assert(22 + 16 * SRV6_HMAC_MAX_ENTRIES < TEXT_MAX, "entries fit the text");
_Static_assert(22 + 16 * (SRV6_HMAC_MAX_ENTRIES + 1) >= TEXT_MAX, "and no more");

int srv6_hmac_algo_from_name(const char *name)
{
	if (!name)
		return -1;
	if (!strcmp(name, "sha1"))
		return SRV6_HMAC_ALGO_SHA1;
	if (!strcmp(name, "sha256"))
		return SRV6_HMAC_ALGO_SHA256;
	return -1;
}

const char *srv6_hmac_algo_name(int algo)
{
	switch (algo) {
	case SRV6_HMAC_ALGO_SHA1:
		return "sha1";
	case SRV6_HMAC_ALGO_SHA256:
		return "sha256";
	}
	return "unknown";
}

const char *srv6_hmac_mode_name(int mode)
{
	return mode > 0 ? "require" : mode < 0 ? "ignore" : "verify";
}

const struct srv6_hmac_key *srv6_hmac_key_find(const struct srv6_hmac_set *set, uint32_t id)
{
	if (!set || id == 0)
		return NULL;
	for (unsigned int i = 0; i < set->nkeys && i < ARRAY_SIZE(set->keys); i++)
		if (set->keys[i].id == id)
			return &set->keys[i];
	return NULL;
}

int srv6_hmac_mode_for(const struct srv6_hmac_set *set, int ifindex)
{
	if (!set)
		return SRV6_HMAC_VERIFY;
	if (ifindex > 0)
		for (unsigned int i = 0; i < set->nifs && i < ARRAY_SIZE(set->ifs); i++)
			/* srv6_hmac_conf_relink() may store it meanwhile */
			if (__atomic_load_n(&set->ifs[i].ifindex, __ATOMIC_RELAXED) == ifindex)
				return set->ifs[i].mode;
	return set->mode;
}

static size_t srh_bytes(const uint8_t *srh)
{
	return ((size_t)srh[1] + 1) * 8;
}

static const char *digest_name(int algo)
{
	switch (algo) {
	case SRV6_HMAC_ALGO_SHA1:
		return "SHA1";
	case SRV6_HMAC_ALGO_SHA256:
		return "SHA256";
	}
	return NULL;
}

int srv6_hmac_key_prepare(struct srv6_hmac_key *key)
{
	const char *dg = digest_name(key->algo);
	OSSL_PARAM params[2];
	EVP_MAC_CTX *ctx;
	EVP_MAC *mac;
	int ok;

	if (!dg || key->slen == 0 || key->slen > SRV6_HMAC_SECRET_MAX)
		return -EINVAL;
	mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (!mac)
		return -ENOMEM;
	ctx = EVP_MAC_CTX_new(mac);
	EVP_MAC_free(mac);          /* the context holds its own reference */
	if (!ctx)
		return -ENOMEM;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)dg, 0);
	params[1] = OSSL_PARAM_construct_end();
	ok = EVP_MAC_init(ctx, key->secret, key->slen, params);
	if (!ok) {
		EVP_MAC_CTX_free(ctx);
		return -EINVAL;
	}
	srv6_hmac_key_release(key);
	key->mac = ctx;
	return 0;
}

void srv6_hmac_key_release(struct srv6_hmac_key *key)
{
	EVP_MAC_CTX_free(key->mac);
	key->mac = NULL;
}

/* HMAC of @text with @key into @md (EVP_MAX_MD_SIZE); digest length or 0. */
static unsigned int do_hmac(const struct srv6_hmac_key *key, const EVP_MD *evp,
			    const uint8_t *text, size_t len, uint8_t *md)
{
	unsigned int mdlen = 0;
	EVP_MAC_CTX *ctx;
	size_t out = 0;
	int ok;

	if (!key->mac)
		return HMAC(evp, key->secret, key->slen, text, len, md, &mdlen) ? mdlen : 0;
	/* the prepared state is only read: any thread may copy it */
	ctx = EVP_MAC_CTX_dup(key->mac);
	if (!ctx)
		return 0;
	ok = EVP_MAC_update(ctx, text, len) && EVP_MAC_final(ctx, md, &out, EVP_MAX_MD_SIZE);
	EVP_MAC_CTX_free(ctx);
	return ok ? (unsigned int)out : 0;
}

int srv6_hmac_compute(const struct srv6_hmac_key *key, const uint8_t *srh,
		      const uint8_t *saddr, uint8_t *out)
{
	uint8_t text[TEXT_MAX], md[EVP_MAX_MD_SIZE];
	unsigned int entries = (unsigned int)srh[SRH_OFF_LE] + 1, mdlen = 0;
	const EVP_MD *evp;
	size_t plen;

	if (!key || key->slen == 0 || key->slen > SRV6_HMAC_SECRET_MAX)
		return -EINVAL;
	switch (key->algo) {
	case SRV6_HMAC_ALGO_SHA1:
		evp = EVP_sha1();
		break;
	case SRV6_HMAC_ALGO_SHA256:
		evp = EVP_sha256();
		break;
	default:
		return -EINVAL;
	}
	/* saddr(16) + first_seg(1) + flags(1) + keyid(4) + seglist(16n) */
	plen = 22 + (size_t)entries * 16;
	if (plen >= TEXT_MAX)
		return -EMSGSIZE;
	memcpy(text, saddr, 16);
	text[16] = srh[SRH_OFF_LE];
	text[17] = srh[SRH_OFF_FLAGS];
	text[18] = (uint8_t)(key->id >> 24);
	text[19] = (uint8_t)(key->id >> 16);
	text[20] = (uint8_t)(key->id >> 8);
	text[21] = (uint8_t)key->id;
	memcpy(text + 22, srh + SRV6_SRH_FIXED, (size_t)entries * 16);

	mdlen = do_hmac(key, evp, text, plen, md);
	if (mdlen == 0)
		return -EIO;
	memset(out, 0, SRV6_HMAC_FIELD_LEN);
	memcpy(out, md, mdlen < SRV6_HMAC_FIELD_LEN ? mdlen : SRV6_HMAC_FIELD_LEN);
	OPENSSL_cleanse(md, sizeof(md));
	return 0;
}

size_t srv6_hmac_tlv_find(const uint8_t *srh)
{
	size_t hlen = srh_bytes(srh);
	size_t off = SRV6_SRH_FIXED + ((size_t)srh[SRH_OFF_LE] + 1) * 16;

	/* srv6_srh_validate() made sure every TLV fits */
	while (off < hlen) {
		if (srh[off] == SRV6_TLV_PAD1) {
			off++;
			continue;
		}
		if (hlen - off < 2)
			return 0;
		if (srh[off] == SRV6_TLV_HMAC)
			return off;
		off += (size_t)srh[off + 1] + 2;
	}
	return 0;
}

size_t srv6_hmac_tlv_find_kernel(const uint8_t *srh)
{
	size_t off;

	if (srh[1] < ((unsigned int)srh[SRH_OFF_LE] + 1) * 2 + 5)
		return 0;
	if (!(srh[SRH_OFF_FLAGS] & SRV6_SRH_FLAG_HMAC))
		return 0;
	off = srh_bytes(srh) - SRV6_HMAC_TLV_LEN;
	if (srh[off] != SRV6_TLV_HMAC || srh[off + 1] != TLV_HMAC_LEN)
		return 0;
	return off;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int srv6_hmac_check(const struct srv6_hmac_set *set, int mode, const uint8_t *srh,
		    const uint8_t *saddr, size_t *tlv_off)
{
	uint8_t want[SRV6_HMAC_FIELD_LEN];
	const struct srv6_hmac_key *key;
	size_t off, dummy;
	int ok;

	if (!tlv_off)
		tlv_off = &dummy;
	*tlv_off = 0;
	if (mode < 0)
		return SRV6_HMAC_PASS;
	off = srv6_hmac_tlv_find(srh);
	*tlv_off = off;
	if (!off)
		return mode > 0 ? SRV6_HMAC_FAIL_MISSING : SRV6_HMAC_PASS;
	/* Only the kernel's (and RFC 8754's) 32-byte field is understood. */
	if (srh[off + 1] != TLV_HMAC_LEN)
		return SRV6_HMAC_FAIL_LEN;
	key = srv6_hmac_key_find(set, get32(srh + off + 4));
	if (!key)
		return SRV6_HMAC_FAIL_KEY;
	if (srv6_hmac_compute(key, srh, saddr, want))
		return SRV6_HMAC_FAIL_LEN;
	ok = !CRYPTO_memcmp(want, srh + off + 8, SRV6_HMAC_FIELD_LEN);
	OPENSSL_cleanse(want, sizeof(want));
	return ok ? SRV6_HMAC_PASS : SRV6_HMAC_FAIL_DIGEST;
}

int srv6_hmac_tlv_append(uint8_t *srh, size_t len, size_t cap, uint32_t keyid)
{
	uint8_t *t;

	if (len < SRV6_SRH_FIXED || len % 8 || len != srh_bytes(srh))
		return -EINVAL;
	if (len + SRV6_HMAC_TLV_LEN > cap)
		return -ENOSPC;
	if ((len + SRV6_HMAC_TLV_LEN) / 8 - 1 > 255)
		return -EINVAL;
	t = srh + len;
	memset(t, 0, SRV6_HMAC_TLV_LEN);
	t[0] = SRV6_TLV_HMAC;
	t[1] = TLV_HMAC_LEN;
	t[4] = (uint8_t)(keyid >> 24);
	t[5] = (uint8_t)(keyid >> 16);
	t[6] = (uint8_t)(keyid >> 8);
	t[7] = (uint8_t)keyid;
	len += SRV6_HMAC_TLV_LEN;
	srh[1] = (uint8_t)(len / 8 - 1);
	srh[SRH_OFF_FLAGS] |= SRV6_SRH_FLAG_HMAC;
	return (int)len;
}

int srv6_hmac_sign(const struct srv6_hmac_key *key, uint8_t *srh, const uint8_t *saddr)
{
	size_t off = srv6_hmac_tlv_find_kernel(srh);

	if (!off || !key || get32(srh + off + 4) != key->id)
		return -EINVAL;
	memset(srh + off + 8, 0, SRV6_HMAC_FIELD_LEN);
	return srv6_hmac_compute(key, srh, saddr, srh + off + 8);
}
