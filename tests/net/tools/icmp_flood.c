// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * icmp_flood - the per-destination ICMPv6 rate limit of src/datapath/icmp_tx.c
 * under a bucket-collision attack, for test_icmp_limits.sh:
 *
 *   icmp_flood SID VICTIM ROUNDS alone|attack
 *
 * Asks srv6_icmp_tx_send_if() for ROUNDS Parameter Problems to VICTIM (the
 * invoking packet's source), back to back on one sender.  With "attack",
 * each is preceded by one to ATTACKER, an address of VICTIM's /64 chosen to
 * fall in VICTIM's bucket under the fixed hash srv6d used before issue 9.2
 * (a 1024-slot direct-mapped table: each attacker message reset the
 * victim's bucket, so every victim message passed).  Prints "attacker ADDR
 * victim sent N limited M".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv6d/icmp_tx.h"

/* The old, public slot function: what an attacker could aim at. */
static unsigned int old_slot(const struct in6_addr *a)
{
	uint32_t h = 0;

	for (int i = 0; i < 4; i++) {
		uint32_t w;

		memcpy(&w, &a->s6_addr[i * 4], 4);
		h = (h ^ w) * 0x9e3779b1u;
	}
	return (h >> 16) & 1023;
}

static void invoking(uint8_t *pkt, const struct in6_addr *src, const struct in6_addr *sid)
{
	memset(pkt, 0, 80);
	pkt[0] = 0x60;
	pkt[5] = 8 + 32;
	pkt[6] = 17;
	pkt[7] = 64;
	memcpy(pkt + 8, src, 16);
	memcpy(pkt + 24, sid, 16);
	pkt[40] = 0x10, pkt[41] = 0x92, pkt[42] = 0x10, pkt[43] = 0x93, pkt[45] = 40;
}

int main(int argc, char **argv)
{
	struct srv6_icmp ic = { .type = 4, .code = 0, .pointer = 40 };
	struct in6_addr sid, victim, att;
	uint8_t pv[80], pa[80];
	unsigned long rounds, sent = 0, limited = 0;
	struct srv6_icmp_tx *t;
	char err[256], as[INET6_ADDRSTRLEN];
	bool attack;

	if (argc != 5 || inet_pton(AF_INET6, argv[1], &sid) != 1 ||
	    inet_pton(AF_INET6, argv[2], &victim) != 1) {
		fprintf(stderr, "usage: icmp_flood SID VICTIM ROUNDS alone|attack\n");
		return 2;
	}
	rounds = strtoul(argv[3], NULL, 0);
	attack = !strcmp(argv[4], "attack");
	att = victim;
	for (uint32_t x = 1;; x++) {
		att.s6_addr[12] = (uint8_t)(x >> 24), att.s6_addr[13] = (uint8_t)(x >> 16);
		att.s6_addr[14] = (uint8_t)(x >> 8), att.s6_addr[15] = (uint8_t)x;
		if (memcmp(&att, &victim, sizeof(att)) && old_slot(&att) == old_slot(&victim))
			break;
	}
	invoking(pv, &victim, &sid);
	invoking(pa, &att, &sid);
	t = srv6_icmp_tx_open(err, sizeof(err));
	if (!t) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (unsigned long i = 0; i < rounds; i++) {
		int e;

		if (attack)
			(void)srv6_icmp_tx_send_if(t, &ic, pa, sizeof(pa), 0);
		e = srv6_icmp_tx_send_if(t, &ic, pv, sizeof(pv), 0);
		if (e == 0)
			sent++;
		else if (e == -EAGAIN)
			limited++;
	}
	srv6_icmp_tx_close(t);
	inet_ntop(AF_INET6, &att, as, sizeof(as));
	printf("attacker %s victim sent %lu limited %lu\n", as, sent, limited);
	return 0;
}
