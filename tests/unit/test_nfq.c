// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_nfq.c - srv6_nfq_packet_id() (src/datapath/nfq.c): the packet id of a
 * packet message cut anywhere by a truncated datagram (MSG_TRUNC), so that
 * srv6_nfq_next() can give it its one DROP verdict instead of losing it.
 * The ENOBUFS drain is tests/net/test_nfq_drain.sh.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#include "srv6d/nfq.h"

static uint8_t buf[8192] __attribute__((aligned(8)));

/* A packet message as nfqnl_build_packet_message() lays it out: packet
 * header first (or after a mark when @mark_first), then a payload. */
static struct nlmsghdr *packet_msg(uint32_t id, bool mark_first, size_t payload)
{
	struct nlmsghdr *nlh = nfq_nlmsg_put((char *)buf, NFQNL_MSG_PACKET, 0);
	struct nfqnl_msg_packet_hdr ph = { .packet_id = htonl(id), .hw_protocol = htons(0x86dd) };
	static uint8_t data[4096];

	if (mark_first)
		mnl_attr_put_u32(nlh, NFQA_MARK, htonl(7));
	mnl_attr_put(nlh, NFQA_PACKET_HDR, sizeof(ph), &ph);
	memset(data, 0x60, sizeof(data));
	mnl_attr_put(nlh, NFQA_PAYLOAD, payload, data);
	return nlh;
}

/* Header end: nlmsghdr + nfgenmsg + [mark attr] + packet hdr attr. */
static size_t hdr_end(bool mark_first)
{
	return NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nfgenmsg)) + (mark_first ? 8 : 0) +
	       MNL_ATTR_HDRLEN + sizeof(struct nfqnl_msg_packet_hdr);
}

static void test_cut_anywhere(void **state)
{
	for (int mf = 0; mf <= 1; mf++) {
		struct nlmsghdr *nlh = packet_msg(0x12345678u, mf, 1500);
		size_t end = hdr_end(mf);

		for (size_t len = 0; len <= nlh->nlmsg_len; len++) {
			uint32_t id = 0;
			int r = srv6_nfq_packet_id(nlh, len, &id);

			if (len >= end) {
				assert_int_equal(r, 0);
				assert_int_equal(id, 0x12345678u);
			} else {
				assert_true(r < 0);
			}
		}
	}
}

static void test_not_a_packet(void **state)
{
	struct nlmsghdr *nlh = packet_msg(1, false, 100);
	uint32_t id;

	nlh->nlmsg_type = NLMSG_ERROR;
	assert_int_equal(srv6_nfq_packet_id(nlh, nlh->nlmsg_len, &id), -EINVAL);
	/* no packet header at all */
	nlh = nfq_nlmsg_put((char *)buf, NFQNL_MSG_PACKET, 0);
	mnl_attr_put_u32(nlh, NFQA_MARK, htonl(7));
	assert_int_equal(srv6_nfq_packet_id(nlh, nlh->nlmsg_len, &id), -ENOENT);
	/* a zero-length attribute must not loop forever */
	nlh = nfq_nlmsg_put((char *)buf, NFQNL_MSG_PACKET, 0);
	mnl_attr_put_u32(nlh, NFQA_MARK, htonl(7));
	((struct nlattr *)((uint8_t *)nlh + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nfgenmsg))))
		->nla_len = 0;
	assert_int_equal(srv6_nfq_packet_id(nlh, nlh->nlmsg_len, &id), -EINVAL);
	/* a short packet header attribute */
	nlh = nfq_nlmsg_put((char *)buf, NFQNL_MSG_PACKET, 0);
	mnl_attr_put_u16(nlh, NFQA_PACKET_HDR, 1);
	assert_int_equal(srv6_nfq_packet_id(nlh, nlh->nlmsg_len, &id), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_anywhere),
		cmocka_unit_test(test_not_a_packet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
