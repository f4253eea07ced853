// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nhctx_rules.c - the policy rules under the next-hop contexts: each
 * family's gate, catch-all and isolation gate, and the rule primitives
 * nhctx.c builds contexts from.  See include/srv6d/nhctx.h for the model.
 */
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include <netlink/route/rule.h>

#include <libmnl/libmnl.h>
#include <time.h>

#include "srv6d/errbuf.h"
#include "srv6d/rtdump.h"
#include "nhctx_int.h"


/* ---- rules ---- */

static struct rtnl_rule *rule_build(int family, uint32_t prio, uint32_t mark,
				    uint32_t mask, uint8_t action, uint32_t table)
{
	struct rtnl_rule *r = rtnl_rule_alloc();

	if (!r)
		return NULL;
	rtnl_rule_set_family(r, family);
	rtnl_rule_set_prio(r, prio);
	rtnl_rule_set_mark(r, mark);
	rtnl_rule_set_mask(r, mask);
	rtnl_rule_set_action(r, action);
	if (action == FR_ACT_TO_TBL)
		rtnl_rule_set_table(r, table);
	else if (action == FR_ACT_GOTO)
		rtnl_rule_set_goto(r, table);   /* @table is the target preference */
	return r;
}

/* Add a rule unless an identical one exists (NLM_F_EXCL makes the kernel
 * compare).  Returns 0 or -errno. */
int nhctx_rule_ensure(struct srv6_nhctx *n, int family, uint32_t prio, uint32_t mark,
		       uint32_t mask, uint8_t action, uint32_t table)
{
	struct rtnl_rule *r = rule_build(family, prio, mark, mask, action, table);
	int e;

	if (!r)
		return -ENOMEM;
	n->kerr = 0;
	e = rtnl_rule_add(n->sk, r, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_rule_put(r);
	if (e < 0 && -e != NLE_EXIST)
		return req_errno(n, e);
	return 0;
}

int nhctx_rule_remove(struct srv6_nhctx *n, int family, uint32_t prio, uint32_t mark,
		       uint32_t mask, uint8_t action, uint32_t table)
{
	struct rtnl_rule *r = rule_build(family, prio, mark, mask, action, table);
	int e;

	if (!r)
		return -ENOMEM;
	n->kerr = 0;
	e = rtnl_rule_delete(n->sk, r, 0);
	rtnl_rule_put(r);
	if (e < 0 && -e != NLE_OBJ_NOTFOUND)
		return req_errno(n, e);
	return 0;
}

/*
 * The gate: "pref PRIO not fwmark BASE/MASK goto PRIO+1", before the context
 * rules of its family (same preference, added first: the kernel keeps rules
 * of one preference in insertion order).  With PRIO behind main and default
 * (the default, 40000), a lookup without a mark of srv6d's range gets here
 * only when no host table routed it; it then jumps over every context rule
 * to the catch-all, which does not match it either: three srv6d rules
 * crossed in all (this gate, the catch-all and the isolation gate at 0),
 * however many contexts.  A lookup that local, main or default routes
 * crosses only the isolation gate.  libnl has no setter for
 * FIB_RULE_INVERT, so the message is built here.
 */
static int gate_msg(struct srv6_nhctx *n, int family, int cmd, int flags)
{
	struct fib_rule_hdr frh = {
		.family = (uint8_t)family,
		.action = FR_ACT_GOTO,
		.flags = FIB_RULE_INVERT,
	};
	struct nl_msg *m = nlmsg_alloc_simple(cmd, flags);
	int e;

	if (!m)
		return -ENOMEM;
	if (nlmsg_append(m, &frh, sizeof(frh), NLMSG_ALIGNTO) < 0 ||
	    nla_put_u32(m, FRA_PRIORITY, n->prio) < 0 ||
	    nla_put_u32(m, FRA_FWMARK, n->mark_base) < 0 ||
	    nla_put_u32(m, FRA_FWMASK, n->id_mask) < 0 ||
	    nla_put_u32(m, FRA_GOTO, n->prio + 1) < 0) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	n->kerr = 0;
	e = nl_send_sync(n->sk, m);   /* frees m */
	if (e < 0 || n->kerr)
		return req_errno(n, e);
	return 0;
}

/* What preference 0 holds now, in the kernel's order: whether a local rule
 * comes before srv6d's isolation gate, whether one comes after it, and how
 * many non-kernel copies (left by a crash in the middle of a reorder) exist. */
struct zero_state {
	bool local_before, local_after, gate;
	int temps;
	uint32_t foreign;   /* 1 + the preference of a rule at PRIO or PRIO + 1
			       that is not srv6d's (0: none) */
};

#define LOCAL_TEMP_PROTO 4   /* RTPROT_STATIC: srv6d's temporary copy */

struct zero_walk {
	struct srv6_nhctx *n;
	struct zero_state *z;
};

static int zero_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int t = mnl_attr_get_type(a);

	if (t <= FRA_MAX)
		tb[t] = a;
	return MNL_CB_OK;
}

/* One rule of the dump, in the kernel's order (libnl's caches do not keep
 * it, hence this walk). */
static int zero_rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct zero_walk *w = data;
	const struct fib_rule_hdr *frh = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[FRA_MAX + 1] = { 0 };
	uint32_t prio = 0, table, mark = 0;
	uint8_t proto = 0;

	if (nlh->nlmsg_type != RTM_NEWRULE)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*frh), zero_attr_cb, tb);
	if (tb[FRA_PRIORITY])
		prio = mnl_attr_get_u32(tb[FRA_PRIORITY]);
	if (prio != 0 && prio != w->n->prio && prio != w->n->prio + 1)
		return MNL_CB_OK;
	table = tb[FRA_TABLE] ? mnl_attr_get_u32(tb[FRA_TABLE]) : frh->table;
	if (tb[FRA_FWMARK])
		mark = mnl_attr_get_u32(tb[FRA_FWMARK]);
	if (tb[FRA_PROTOCOL])
		proto = mnl_attr_get_u8(tb[FRA_PROTOCOL]);
	if ((prio == w->n->prio || prio == w->n->prio + 1) && !w->z->foreign) {
		uint32_t mask = tb[FRA_FWMASK] ? mnl_attr_get_u32(tb[FRA_FWMASK]) : 0;

		/* srv6d's rules at its preferences all match one of its marks */
		if ((mark & w->n->id_mask) != w->n->mark_base ||
		    (mask & w->n->id_mask) != w->n->id_mask)
			w->z->foreign = prio + 1;
	}
	if (prio != 0)
		return MNL_CB_OK;
	if (frh->action == FR_ACT_GOTO && tb[FRA_GOTO] &&
	    mnl_attr_get_u32(tb[FRA_GOTO]) == w->n->prio && mark == w->n->mark_base) {
		w->z->gate = true;
		return MNL_CB_OK;
	}
	if (table != RT_TABLE_LOCAL || frh->action != FR_ACT_TO_TBL || mark)
		return MNL_CB_OK;
	if (proto == LOCAL_TEMP_PROTO)
		w->z->temps++;
	else if (w->z->gate)
		w->z->local_after = true;
	else
		w->z->local_before = true;
	return MNL_CB_OK;
}

static int zero_state_read(struct srv6_nhctx *n, int family, struct zero_state *z)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	struct fib_rule_hdr frh = { .family = (uint8_t)family };
	struct zero_walk w = { n, z };

	memset(z, 0, sizeof(*z));
	return srv6_nl_dump(RTM_GETRULE, &frh, sizeof(frh), buf, sizeof(buf), zero_rule_cb, &w);
}

/* "pref 0 lookup local proto @proto": add (not exclusive) or delete the first
 * such rule (the kernel matches the protocol when the request names one). */
static int local_rule_op(struct srv6_nhctx *n, int family, uint8_t proto, bool add)
{
	struct rtnl_rule *r = rule_build(family, 0, 0, 0, FR_ACT_TO_TBL, RT_TABLE_LOCAL);
	int e;

	if (!r)
		return -ENOMEM;
	rtnl_rule_set_protocol(r, proto);
	n->kerr = 0;
	e = add ? rtnl_rule_add(n->sk, r, NLM_F_CREATE) : rtnl_rule_delete(n->sk, r, 0);
	rtnl_rule_put(r);
	return e < 0 ? req_errno(n, e) : 0;
}

/*
 * Table isolation (docs/NETFILTER-ROUTING.md): "pref 0 fwmark BASE/MASK goto
 * PRIO" before the host's "lookup local" rule, so srv6d's results never
 * reach the local table.  A rule added at an existing preference goes behind
 * the rules already there, and the kernel refuses an identical second rule,
 * so the host's rule (proto kernel) is moved behind the gate through a
 * temporary copy of another protocol: add the copy (behind the gate), delete
 * the original, add the original again (behind the copy), delete the copy.
 * There is no moment without a local rule, every other lookup keeps its
 * order, and the rule stays "proto kernel" (network managers that flush
 * foreign rules keep it).  A copy left by a crash is removed here.
 */
static int isolation_on(struct srv6_nhctx *n, int family)
{
	struct zero_state z = { 0 };
	int e;

	e = nhctx_rule_ensure(n, family, 0, n->mark_base, n->id_mask, FR_ACT_GOTO, n->prio);
	if (e == 0)
		e = zero_state_read(n, family, &z);
	if (e < 0)
		return e;
	if (z.local_before) {
		e = local_rule_op(n, family, LOCAL_TEMP_PROTO, true);
		if (e == 0)
			e = local_rule_op(n, family, RTPROT_KERNEL, false);
		if (e == 0)
			e = local_rule_op(n, family, RTPROT_KERNEL, true);
		if (e < 0)
			return e;
		z.temps++;
	} else if (!z.local_after && z.temps) {
		/* a crash left only the copy: put the original back first */
		e = local_rule_op(n, family, RTPROT_KERNEL, true);
		if (e < 0)
			return e;
	}
	for (; z.temps > 0; z.temps--) {
		e = local_rule_op(n, family, LOCAL_TEMP_PROTO, false);
		if (e < 0)
			return e;
	}
	return 0;
}

static int fam_idx(int family)
{
	return family == AF_INET6 ? 0 : 1;
}

/* Before the first context rule of @family (and once per sync, a repair):
 * the catch-all, then the gate, then the isolation gate at 0 (each goto's
 * target exists before the goto: an unresolved goto is skipped, and marked
 * lookups would fall through to local and main).  No srv6d rule exists in a
 * family while no context needs one.  A rule of someone else at PRIO or
 * PRIO + 1 is refused (-EEXIST, @err says which): the isolation gate's goto
 * lands on the first rule of PRIO, and srv6d's results would meet it before
 * the contexts and the catch-all. */
int nhctx_family_on(struct srv6_nhctx *n, int family, char *err, size_t errlen)
{
	int i = fam_idx(family), e;
	struct zero_state z;

	if (n->fam_on[i] && n->fam_ok[i])
		return 0;
	e = zero_state_read(n, family, &z);
	if (e < 0)
		return e;
	if (z.foreign) {
		srv6_seterr(err, errlen, "IPv%d rule preference %u holds a rule that is not srv6d's: "
			    "srv6d's results would reach it (choose another rule-pref, or move it)",
			    family == AF_INET6 ? 6 : 4, z.foreign - 1);
		return -EEXIST;
	}
	e = nhctx_rule_ensure(n, family, n->prio + 1, n->mark_base, n->id_mask,
			FR_ACT_UNREACHABLE, 0);
	if (e < 0)
		return e;
	e = gate_msg(n, family, RTM_NEWRULE, NLM_F_CREATE | NLM_F_EXCL);
	if (e < 0 && e != -EEXIST)
		return e;
	e = isolation_on(n, family);
	if (e < 0)
		return e;
	n->fam_on[i] = n->fam_ok[i] = true;
	return 0;
}

/* After contexts went: a family none of them needs loses its gates and its
 * catch-all.  Returns the first error. */
int nhctx_family_prune(struct srv6_nhctx *n)
{
	bool need[2] = { false, false };
	int ret = 0;

	for (size_t i = 0; i < n->nctx; i++) {
		need[0] |= ctx_has_v6_rule(&n->ctx[i]);
		need[1] |= ctx_has_v4_rule(&n->ctx[i]);
	}
	for (int i = 0; i < 2; i++) {
		int family = i ? AF_INET : AF_INET6, e;

		if (!n->fam_on[i] || need[i])
			continue;
		e = nhctx_rule_remove(n, family, 0, n->mark_base, n->id_mask, FR_ACT_GOTO,
				n->prio);
		if (e < 0 && !ret)
			ret = e;
		e = gate_msg(n, family, RTM_DELRULE, 0);
		if (e < 0 && e != -ENOENT && !ret)
			ret = e;
		e = nhctx_rule_remove(n, family, n->prio + 1, n->mark_base, n->id_mask,
				FR_ACT_UNREACHABLE, 0);
		if (e < 0 && !ret)
			ret = e;
		n->fam_on[i] = n->fam_ok[i] = false;
	}
	return ret;
}

