/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * steer.h - the netfilter rules that send srv6d's traffic to its queues
 * (`steer auto`).
 *
 * srv6d owns one chain (SRV6D unless the conf's `steer-chain` names another,
 * so two instances keep apart) in the raw table of ip6tables, jumped to once,
 * from the FIRST rule of raw PREROUTING (a terminal rule before it would
 * bypass srv6d silently), and, when a family has headend policies, a chain of
 * the same name in its mangle table, jumped to from the first rule of mangle
 * POSTROUTING:
 *
 *   *raw
 *   :SRV6D - [0:0]
 *   -I PREROUTING 1 -j SRV6D
 *   -A SRV6D -i srv6d0 -j ACCEPT
 *   -A SRV6D -d 2001:db8:ff::1/128 -j NFQUEUE --queue-balance 0:1 --queue-bypass
 *   ...
 *   COMMIT
 *   *mangle
 *   :SRV6D - [0:0]
 *   -I POSTROUTING 1 -j SRV6D
 *   -A SRV6D -o srv6d0 -j NFQUEUE --queue-balance 0:1 --queue-bypass
 *   COMMIT
 *
 * When the conf has SIDs whose results carry a next-hop context mark
 * (include/srv6d/nhctx.h), the first rule of mangle PREROUTING of that family
 * is srv6d's context gate, in both egress modes:
 *
 *   *mangle
 *   -I PREROUTING 1 -m mark --mark 0x6d000000/0xffff0000 -j ACCEPT
 *   COMMIT
 *
 * A result carrying a context leaves the mangle table there: no later mangle
 * PREROUTING rule (a `CONNMARK --restore-mark`, a MARK) can reset the mark
 * that its routing decision needs.  The kernel's End.X/End.T results never
 * cross PREROUTING at all (seg6local runs after it and sends them to
 * FORWARD), so skipping the operator's mangle PREROUTING rules is what the
 * kernel does for them; for End.DX4/DX6/DT4/DT6/DT46 results, which the kernel with
 * nf_hooks_lwtunnel runs through PREROUTING again, those rules are skipped
 * where the kernel would run them (docs/NETFILTER-ROUTING.md).  Only
 * srv6d's context marks match: a result without a context (End, End.B6*,
 * nh6 ::) keeps its mark and meets every rule.  Other instances' gates (the
 * same form, their marks) may precede it; anything else before it is moved
 * behind it, as with the raw jump.
 *
 * First, results srv6d injected through its device (include/srv6d/inject.h)
 * are accepted: they already passed this hook once as the packet srv6d
 * received, and must be neither steered back nor judged by raw PREROUTING
 * rules again (an IPv6 `-m rpfilter` rule would drop them: they arrive with
 * their original source on srv6d's device).  Then one rule per SID prefix.
 * Policies are kernel routes through srv6d's device (fallback.h,
 * srv6_polroute_sync): the mangle rule queues whatever the FIB sends there,
 * forwarded or locally originated, so no rule names a policy prefix (there
 * is no IPv4 raw chain at all).  One queue gives
 * `--queue-num N`; several give `--queue-balance A:B`, which spreads by a
 * hash of the addresses so a flow stays on one worker (packet order kept).
 * `--queue-cpu-fanout` (queue chosen by the receiving CPU) is off by default:
 * it only helps with multi-queue NICs whose RSS already spreads flows, and on
 * a single-queue device it would send everything to one worker.
 * `--queue-bypass` is added when fail-open is set: with no listener on the
 * queue the kernel accepts the packet instead of dropping it (a policy
 * packet then leaves by srv6d's device, whose other end drops it).
 *
 * Each install is one `ip6tables-restore --noflush -w` transaction per
 * family (both tables; chains created or flushed and refilled in it, so there
 * is no moment without rules), fed on a pipe to a fork/exec'ed child: no
 * shell.  Before it, `ip6tables-save -t raw` and `-t mangle` are read: unless
 * there is exactly one jump and it is the first rule of the hook, every jump
 * is deleted and one inserted at the top in the same transaction; after it,
 * the position is checked again.
 * A chain holding any rule srv6d does not write (anything but the forms above,
 * or those older versions wrote) is not srv6d's: install and remove refuse
 * to touch it (-EEXIST, the rule named).  A stale chain of srv6d's rules from
 * a crashed srv6d is simply replaced.  IPv6 and IPv4 are separate
 * transactions.
 *
 * A marker file SRV6_STEER_STATE_DIR/steer.NETNS.CHAIN exists from before
 * an install until after a removal: after a crash it tells a `steer none`
 * start that the chain there is a stale one of a `steer auto` run (and not
 * rules the operator installed from srv6_steer_format's text).
 *
 * These functions fork and wait: control thread only, never the packet path.
 */
#ifndef SRV6D_STEER_H
#define SRV6D_STEER_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf_defs.h"  /* SRV6_STEER_CHAIN, its length */

#define SRV6_STEER_STATE_DIR "/run/srv6d"

struct srv6_steer_cfg {
	const char *chain;                     /* NULL: SRV6_STEER_CHAIN */
	unsigned int queue_first, queue_last;  /* queue_first <= queue_last <= 65535 */
	bool fail_open;                        /* --queue-bypass */
	bool cpu_fanout;                       /* --queue-cpu-fanout (several queues only) */
	char inject_name[16];                  /* storage inject_dev may point to */
	const char *inject_dev;                /* srv6d's injection device: its
						  packets are accepted first, never
						  steered back; what leaves by it is
						  the policies' (NULL: none, and no
						  policy is captured) */
	const struct in6_addr *sid_prefixes;   /* local SIDs / SID prefixes */
	const uint8_t *sid_plens;
	size_t nsids;
	const struct in6_addr *pol6;           /* IPv6 policy prefixes (route ... encap seg6) */
	const uint8_t *pol6_plens;
	size_t npol6;
	const struct in_addr *pol4;            /* IPv4 policy prefixes */
	const uint8_t *pol4_plens;
	size_t npol4;
	uint32_t gate_mark, gate_mask;         /* the context gate's match (mark
						  base / mask without the index
						  bits); mask 0: none (and none
						  is removed) */
	bool gate6, gate4;                     /* a family whose results carry a
						  context: the gate is wanted */
};

/**
 * srv6_steer_install - atomically replace srv6d's rules with those of @cfg:
 * the IPv6 raw chain always (possibly empty), the mangle chain of a family
 * when it has policies and @cfg names the device (otherwise a leftover one is
 * removed, as is an IPv4 raw chain of an older srv6d).  Idempotent.
 * Returns 0 or -errno with one line in @err (the tool's first error line).
 * Control thread only.
 */
int srv6_steer_install(const struct srv6_steer_cfg *cfg, char *err, size_t errlen);

/**
 * srv6_steer_remove - remove the PREROUTING jumps and the chains @chain (NULL:
 * SRV6D) of both families, the context gates matching @gate_mark/@gate_mask
 * (mask 0: none), then the marker; absent chains are not an error,
 * a chain holding foreign rules is left alone (-EEXIST).  Returns 0 or
 * -errno with one line in @err.  Control thread only.
 */
int srv6_steer_remove(const char *chain, uint32_t gate_mark, uint32_t gate_mask, char *err,
		      size_t errlen);

/**
 * srv6_steer_check - compare what is installed with what @cfg installs: the
 * chain(s), exactly one jump as the first rule of raw PREROUTING, the rules,
 * the context gate where wanted (one, first in mangle PREROUTING).
 * Returns 0 when intact, 1 when not (one line in @what saying what differs:
 * a firewall reload, `nft flush ruleset`, a rule inserted in front), or
 * -errno (the tool failed).  Control thread only (forks).
 */
int srv6_steer_check(const struct srv6_steer_cfg *cfg, char *what, size_t len);

/**
 * srv6_steer_stale - true when the marker of a `steer auto` install into
 * @chain (NULL: SRV6D) in this network namespace exists (srv6d stopped
 * without removing its steering).  Any thread.
 */
bool srv6_steer_stale(const char *chain);

/**
 * srv6_steer_chain_valid - true if @name is a chain name srv6d accepts: 1 to
 * SRV6_STEER_CHAIN_MAX of [A-Za-z0-9_-], not starting with '-'.  Pure.
 */
bool srv6_steer_chain_valid(const char *name);

/**
 * srv6_steer_restore - feed @text (restore format, any tables) to
 * ip6tables-restore (@family AF_INET6) or iptables-restore --noflush.
 * For srv6d's other rules (the egress probe).  0 or -errno with @err.
 * Control thread only.
 */
int srv6_steer_restore(int family, const char *text, char *err, size_t errlen);

/**
 * srv6_steer_wants_v4 - whether @cfg installs anything in IPv4 (policies or
 * the IPv4 context gate): the families srv6_steer_format() has text for.
 * Pure.
 */
bool srv6_steer_wants_v4(const struct srv6_steer_cfg *cfg);

/**
 * srv6_steer_format - print the restore-format rules @cfg gives for @family
 * (AF_INET6 or AF_INET) into @buf: the text `steer none` operators feed to
 * `ip6tables-restore --noflush` / `iptables-restore --noflush`.  Returns the
 * length the full text needs (like snprintf; truncated if >= @len) or
 * -EINVAL (bad family, queue range or prefix length).  Pure.
 */
int srv6_steer_format(const struct srv6_steer_cfg *cfg, int family, char *buf, size_t len);

/**
 * srv6_steer_tools_check - whether the tools srv6_steer_install() runs are
 * there (ip6tables-save/-restore; with @v4 also iptables-save/-restore), in
 * the directories it searches.  0 or -ENOENT with "TOOL: not found" in @err.
 * Any thread.
 */
int srv6_steer_tools_check(bool v4, char *err, size_t errlen);

/**
 * srv6_steer_mark_clash - whether @line, one "-A CHAIN ..." line of
 * iptables-save -t mangle, can change a mark bit of @mask before the routing
 * decision of a forwarded packet: a CONNMARK --restore-mark whose nfmask
 * covers one, or a MARK that sets, clears or flips one, in PREROUTING or a
 * user chain.  Pure; any thread.
 */
bool srv6_steer_mark_clash(const char *line, uint32_t mask);

/**
 * srv6_steer_mark_users - read the mangle table of @family (ip6tables-save or
 * iptables-save) and call @fn for each rule srv6_steer_mark_clash() finds.
 * Returns how many, or -errno with @err.  Control thread (forks).
 */
int srv6_steer_mark_users(int family, uint32_t mask, void (*fn)(const char *rule, void *arg),
			  void *arg, char *err, size_t errlen);

#endif
