// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * icmp_tool - drive src/datapath/icmp_tx.c from a namespace test.
 *
 *   icmp_tool SRC DST TYPE CODE POINTER COUNT [IFINDEX [TCLASS]]
 *
 * Builds an invoking packet SRC -> DST (DST is the SID the answer comes
 * from): an ICMPv6 Echo Request when TYPE is 129 (Echo Reply), a UDP
 * datagram otherwise, with traffic class TCLASS; asks srv6_icmp_tx_send_if()
 * COUNT times back to back, and prints "sent N limited N error N" (error: the
 * first errno name too).  COUNT may be N+M@MS: N sends, a pause of MS ms,
 * then M more, all on the same sender (rate limiter state).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv6d/icmp_tx.h"

int main(int argc, char **argv)
{
	uint8_t pkt[40 + 8 + 32] = { 0 };
	struct srv6_icmp ic = { 0 };
	struct srv6_icmp_tx *t;
	unsigned long count, count2 = 0, pause_ms = 0, sent = 0, limited = 0, errors = 0;
	int first_err = 0, ifindex = 0;
	char err[256];

	if (argc < 7) {
		fprintf(stderr, "usage: icmp_tool SRC DST TYPE CODE POINTER COUNT [IFINDEX [TCLASS]]\n");
		return 2;
	}
	pkt[0] = 0x60;
	pkt[4] = 0;
	pkt[5] = 8 + 32;
	pkt[7] = 64;
	if (inet_pton(AF_INET6, argv[1], pkt + 8) != 1 || inet_pton(AF_INET6, argv[2], pkt + 24) != 1)
		return 2;
	ic.type = (uint8_t)strtoul(argv[3], NULL, 0);
	ic.code = (uint8_t)strtoul(argv[4], NULL, 0);
	ic.pointer = (uint32_t)strtoul(argv[5], NULL, 0);
	{
		char *end;

		count = strtoul(argv[6], &end, 0);
		if (*end == '+') {
			count2 = strtoul(end + 1, &end, 0);
			if (*end != '@')
				return 2;
			pause_ms = strtoul(end + 1, &end, 0);
		}
		if (*end)
			return 2;
	}
	if (argc > 7)
		ifindex = atoi(argv[7]);
	if (argc > 8) {
		unsigned int tc = (unsigned int)strtoul(argv[8], NULL, 0) & 0xff;

		pkt[0] |= (uint8_t)(tc >> 4);
		pkt[1] = (uint8_t)(tc << 4);
	}
	if (ic.type == 129) {
		pkt[6] = 58;           /* Echo Request, id 0x1234, seq 7 */
		pkt[40] = 128;
		pkt[44] = 0x12, pkt[45] = 0x34, pkt[47] = 7;
	} else {
		pkt[6] = 17;           /* UDP 4242 -> 4243 */
		pkt[40] = 0x10, pkt[41] = 0x92, pkt[42] = 0x10, pkt[43] = 0x93;
		pkt[45] = 8 + 32;
	}
	for (int i = 0; i < 32; i++)
		pkt[48 + i] = (uint8_t)('a' + i % 26);

	t = srv6_icmp_tx_open(err, sizeof(err));
	if (!t) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (unsigned long i = 0; i < count + count2; i++) {
		int e;

		if (i == count && pause_ms) {
			struct timespec ts = { (time_t)(pause_ms / 1000), (long)(pause_ms % 1000) * 1000000 };

			nanosleep(&ts, NULL);
		}
		e = srv6_icmp_tx_send_if(t, &ic, pkt, sizeof(pkt), ifindex);

		if (e == 0)
			sent++;
		else if (e == -EAGAIN)
			limited++;
		else if (errors++ == 0)
			first_err = -e;
	}
	srv6_icmp_tx_close(t);
	printf("sent %lu limited %lu error %lu%s%s\n", sent, limited, errors,
	       first_err ? " " : "", first_err ? strerrorname_np(first_err) : "");
	return 0;
}
