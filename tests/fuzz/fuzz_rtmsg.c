// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_rtmsg.c - libFuzzer target for the route-message decoder
 * (src/conf/rtmsg.c), which reads what a TCP peer (zebra's FPM) sends.
 *
 * The input is one or two netlink messages back to back: the first a
 * route, the second (when present and whole) the nexthop object it names.
 * srv6_rtmsg_key() gets the received length; the words and the conf line
 * are decoded only from a message srv6_rtmsg_key() accepted (their
 * contract).  A result of 1 must come with a NUL-terminated line of the
 * grammar's size, a refusal with an empty one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/conf/sbuf.c"
#include "../../src/conf/util.c"
#include "../../src/conf/sid.c"
#include "../../src/conf/route.c"
#include "../../src/conf/file.c"
#include "../../src/conf/rttables.c"
#include "../../src/conf/queue.c"
#include "../../src/conf/hmac_conf.c"
#include "../../src/conf/errbuf.c"
#include "../../src/conf/import.c"
#include "../../src/conf/rtmsg.c"

#include <libmnl/libmnl.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *names(unsigned int ifindex, char *buf, void *arg)
{
	(void)arg;
	if (ifindex % 3)
		return NULL;
	snprintf(buf, 16, "eth%u", ifindex % 1000);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *msg;
	char words[SRV6_CONF_LINE_MAX + 256], line[SRV6_CONF_LINE_MAX], warn[256];
	const struct nlmsghdr *nlh, *nh = NULL;
	struct srv6_rtkey k;
	uint32_t id;
	int r;

	/* exactly @size bytes on the heap: ASan sees a read past them */
	if (size < sizeof(struct nlmsghdr) || !(msg = malloc(size)))
		return 0;
	memcpy(msg, data, size);
	nlh = (const void *)msg;
	if (srv6_rtmsg_key(nlh, size, &k) < 0)
		goto out;
	if (NLMSG_ALIGN(nlh->nlmsg_len) + sizeof(struct nlmsghdr) <= size) {
		const struct nlmsghdr *n2 = (const void *)(msg + NLMSG_ALIGN(nlh->nlmsg_len));
		size_t rest = size - NLMSG_ALIGN(nlh->nlmsg_len);

		if (n2->nlmsg_len <= rest && srv6_nhmsg_id(n2, rest, &id) == 0)
			nh = n2;
	}
	r = srv6_rtmsg_words(nlh, nh, names, NULL, words, sizeof(words));
	if ((r != 1 && r != 0 && r != -EINVAL && r != -ENOSPC) || (r != 1 && words[0]) ||
	    strlen(words) >= sizeof(words))
		abort();
	r = srv6_rtmsg_conf(nlh, nh, names, NULL, line, sizeof(line), warn, sizeof(warn));
	if (r == 1 && (!line[0] || strlen(line) >= sizeof(line)))
		abort();
	if (r != 1 && line[0])
		abort();
out:
	free(msg);
	return 0;
}
