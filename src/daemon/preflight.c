// SPDX-License-Identifier: GPL-2.0-or-later
/* preflight.c - srv6d --check: host checks and the canonical configuration. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "srv6d/hmac_conf.h"
#include "srv6d/inject.h"
#include "srv6d/log.h"
#include "srv6d/preflight.h"
#include "srv6d/saddr.h"

static bool is_local_addr6(const struct in6_addr *a)
{
	struct ifaddrs *ifa, *i;
	bool found = false;

	if (getifaddrs(&ifa) < 0)
		return true;   /* cannot tell: do not warn */
	for (i = ifa; i && !found; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET6 &&
		    !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, a, sizeof(*a)))
			found = true;
	freeifaddrs(ifa);
	return found;
}

/* What srv6d does with an entry whose dependency is missing (degraded start). */
#define PENDING_TAIL "pending: srv6d starts and completes it when that changes (its packets " \
	"are dropped and counted meanwhile)"

/* Whether interface @ifi is administratively up.  Unknown: true (no warning). */
static bool if_is_up(unsigned int ifi)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool up = true;

	if (fd < 0 || !if_indextoname(ifi, ifr.ifr_name)) {
		if (fd >= 0)
			close(fd);
		return true;
	}
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0)
		up = ifr.ifr_flags & IFF_UP;
	close(fd);
	return up;
}

static void check_source(const char *path, unsigned int line, const struct in6_addr *seg0,
			 const char *dev, FILE *msgs)
{
	char a[INET6_ADDRSTRLEN];
	struct in6_addr src;
	int oif = 0, r;

	if (dev[0] && !(oif = (int)if_nametoindex(dev))) {
		fprintf(msgs, "%s:%u: warning: dev \"%s\" does not exist (yet): %s\n", path, line,
			dev, PENDING_TAIL);
		return;
	}
	r = srv6_saddr_select(seg0, oif, &src);
	if (r < 0) {
		inet_ntop(AF_INET6, seg0, a, sizeof(a));
		fprintf(msgs, "%s:%u: warning: no source address toward %s: %s (set encap-source): "
			"%s\n", path, line, a, strerror(-r), PENDING_TAIL);
	}
}

/* Whether the kernel has a route toward @nh6 (a connected UDP socket gets
 * one or fails): an End.X / End.DX6 next hop without oif needs it. */
static int route_toward(const struct in6_addr *nh6)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(9), .sin6_addr = *nh6 };
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = 0;

	if (fd < 0)
		return 0;   /* cannot tell: do not warn */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* What a SID's next hop needs from this host and does not find yet. */
static void check_nexthop(const char *path, const struct srv6_conf_sid *s, FILE *msgs)
{
	const struct srv6_sid_cfg *cfg = &s->cfg;
	char a[INET6_ADDRSTRLEN];
	unsigned int ifi;
	int r;

	if ((cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_OIF)) && cfg->oif_name[0]) {
		ifi = if_nametoindex(cfg->oif_name);
		if (!ifi) {
			fprintf(msgs, "%s:%u: warning: interface \"%.*s\" does not exist (yet): %s\n",
				path, s->line, (int)sizeof(cfg->oif_name), cfg->oif_name,
				PENDING_TAIL);
		} else if (!if_is_up(ifi)) {
			fprintf(msgs, "%s:%u: warning: interface \"%.*s\" is down: %s\n", path,
				s->line, (int)sizeof(cfg->oif_name), cfg->oif_name, PENDING_TAIL);
		}
		return;
	}
	if ((cfg->action == SRV6_ACT_END_X || cfg->action == SRV6_ACT_END_DX6) &&
	    (cfg->attrs & SRV6_F_ATTR(SRV6_ATTR_NH6)) && !IN6_IS_ADDR_UNSPECIFIED(&cfg->nh6) &&
	    !IN6_IS_ADDR_LINKLOCAL(&cfg->nh6) && (r = route_toward(&cfg->nh6)) < 0) {
		inet_ntop(AF_INET6, &cfg->nh6, a, sizeof(a));
		fprintf(msgs, "%s:%u: warning: nh6 %s: no route toward the next hop (yet): %s: "
			"%s\n", path, s->line, a, strerror(-r), PENDING_TAIL);
	}
}

int srv6_read_int_file(const char *p, int *v)
{
	char buf[32];
	ssize_t n;
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	*v = atoi(buf);
	return 0;
}

int srv6_preflight(const char *path, const struct srv6_conf *c, FILE *msgs)
{
	char a[INET6_ADDRSTRLEN], err[256];
	bool v4 = false;
	int errors = 0, fwd;

	for (size_t i = 0; i < c->nsids; i++) {
		const struct srv6_conf_sid *s = &c->sids[i];

		check_nexthop(path, s, msgs);
		if (!c->has_encap_src && srv6_action_encaps(s->cfg.action) && s->cfg.nsegs)
			check_source(path, s->line, &s->cfg.segs[0], s->cfg.dev_name, msgs);
	}
	for (size_t i = 0; i < c->nroutes; i++) {
		const struct srv6_conf_route *r = &c->routes[i];

		if (r->family == AF_INET)
			v4 = true;
		if (!c->has_encap_src && r->pol.mode != SRV6_MODE_INLINE && r->pol.nsegs)
			check_source(path, r->line, &r->pol.segs[0], r->pol.dev_name, msgs);
	}
	if (c->has_encap_src && !is_local_addr6(&c->encap_src)) {
		inet_ntop(AF_INET6, &c->encap_src, a, sizeof(a));
		fprintf(msgs, "%s: warning: encap-source %s is not an address of this host\n", path, a);
	}
	if (srv6_read_int_file("/proc/sys/net/ipv6/conf/all/forwarding", &fwd) == 0 && fwd == 0)
		fprintf(msgs, "%s: warning: net.ipv6.conf.all.forwarding is 0: packets srv6d "
			"forwards will be dropped by the kernel\n", path);
	if (v4 && srv6_read_int_file("/proc/sys/net/ipv4/ip_forward", &fwd) == 0 && fwd == 0)
		fprintf(msgs, "%s: warning: net.ipv4.ip_forward is 0 and there are IPv4 "
			"policies\n", path);
	if (c->steer == SRV6_STEER_AUTO && srv6_steer_tools_check(v4, err, sizeof(err)) < 0) {
		fprintf(msgs, "%s: error: steer auto needs %s\n", path, err);
		errors++;
	}
	return errors;
}

void srv6_steer_gate_of(const struct srv6_conf *c, uint32_t *mark, uint32_t *mask)
{
	uint32_t base = c->mark_base ? c->mark_base : SRV6_NHCTX_MARK_BASE;
	uint32_t all = c->mark_mask ? c->mark_mask : SRV6_NHCTX_MARK_ALL;

	*mark = base;
	*mask = all & ~srv6_nhctx_idx_field(base, all);
}

/* The families of the results of SID @s that carry a context mark
 * (include/srv6d/nhctx.h: the same cases). */
static void sid_ctx_families(const struct srv6_sid_cfg *s, bool *v6, bool *v4)
{
	switch (s->action) {
	case SRV6_ACT_END_X:
	case SRV6_ACT_END_DX6:
		if (!IN6_IS_ADDR_UNSPECIFIED(&s->nh6))
			*v6 = true;
		break;
	case SRV6_ACT_END_DX4:
		if (s->nh4.s_addr != INADDR_ANY)
			*v4 = true;
		break;
	case SRV6_ACT_END_T:
	case SRV6_ACT_END_DT6:
		*v6 = true;
		break;
	case SRV6_ACT_END_DT4:
		*v4 = true;
		break;
	case SRV6_ACT_END_DT46:
		*v6 = *v4 = true;
		break;
	default:
		break;
	}
}

int srv6_steer_cfg_from_conf(const struct srv6_conf *c, struct srv6_steer_cfg *sc)
{
	struct in6_addr *s6 = calloc(c->nsids + 1, sizeof(*s6));
	uint8_t *sl = calloc(c->nsids + 1, 1);
	struct in6_addr *p6 = calloc(c->nroutes + 1, sizeof(*p6));
	uint8_t *pl6 = calloc(c->nroutes + 1, 1);
	struct in_addr *p4 = calloc(c->nroutes + 1, sizeof(*p4));
	uint8_t *pl4 = calloc(c->nroutes + 1, 1);

	memset(sc, 0, sizeof(*sc));
	sc->sid_prefixes = s6;
	sc->sid_plens = sl;
	sc->pol6 = p6;
	sc->pol6_plens = pl6;
	sc->pol4 = p4;
	sc->pol4_plens = pl4;
	if (!s6 || !sl || !p6 || !pl6 || !p4 || !pl4) {
		srv6_steer_cfg_release(sc);
		return -ENOMEM;
	}
	sc->queue_first = c->queue_first;
	sc->queue_last = c->queue_last;
	sc->fail_open = c->fail_open;
	sc->cpu_fanout = c->cpu_fanout;
	/* srv6d's injection device (docs/ARCHITECTURE.md): its results are
	 * accepted first, whatever the egress setting (IPv4 results and End.DX2
	 * always use it) */
	srv6_injdev_name(c->steer_chain, sc->inject_name, sizeof(sc->inject_name));
	sc->inject_dev = sc->inject_name;
	sc->chain = c->steer_chain;
	for (size_t i = 0; i < c->nsids; i++) {
		s6[i] = c->sids[i].prefix;
		sl[i] = c->sids[i].plen;
		sid_ctx_families(&c->sids[i].cfg, &sc->gate6, &sc->gate4);
	}
	sc->nsids = c->nsids;
	/* always known, wanted or not: an install without contexts removes a
	 * gate an earlier one left */
	srv6_steer_gate_of(c, &sc->gate_mark, &sc->gate_mask);
	for (size_t i = 0; i < c->nroutes; i++) {
		if (c->routes[i].family == AF_INET6) {
			p6[sc->npol6] = c->routes[i].prefix.v6;
			pl6[sc->npol6++] = c->routes[i].plen;
		} else {
			p4[sc->npol4] = c->routes[i].prefix.v4;
			pl4[sc->npol4++] = c->routes[i].plen;
		}
	}
	return 0;
}

void srv6_steer_cfg_release(struct srv6_steer_cfg *sc)
{
	free((void *)sc->sid_prefixes);
	free((void *)sc->sid_plens);
	free((void *)sc->pol6);
	free((void *)sc->pol6_plens);
	free((void *)sc->pol4);
	free((void *)sc->pol4_plens);
	memset(sc, 0, sizeof(*sc));
}

/* The rules for @family as "#N RULE" lines. */
static int print_rules(const struct srv6_steer_cfg *sc, int family, FILE *out)
{
	char *buf, *line, *save;
	int n = srv6_steer_format(sc, family, NULL, 0);

	if (n < 0)
		return n;
	buf = malloc((size_t)n + 1);
	if (!buf)
		return -ENOMEM;
	srv6_steer_format(sc, family, buf, (size_t)n + 1);
	fprintf(out, "# rules `steer none` needs (%s --noflush):\n",
		family == AF_INET6 ? "ip6tables-restore" : "iptables-restore");
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fprintf(out, "#%c %s\n", family == AF_INET6 ? '6' : '4', line);
	free(buf);
	return 0;
}

int srv6_conf_print(const struct srv6_conf *c, FILE *out)
{
	char line[SRV6_CONF_LINE_MAX], a[INET6_ADDRSTRLEN];
	struct srv6_steer_cfg sc;
	int r;

	if (c->queue_first == c->queue_last)
		fprintf(out, "queue %u\n", c->queue_first);
	else
		fprintf(out, "queue %u-%u\n", c->queue_first, c->queue_last);
	fprintf(out, "queue-maxlen %u\n", c->queue_maxlen);
	fprintf(out, "fail-open %s\n", c->fail_open ? "yes" : "no");
	if (c->queue_first != c->queue_last)
		fprintf(out, "queue-cpu-fanout %s\n", c->cpu_fanout ? "yes" : "no");
	fprintf(out, "steer %s\n", c->steer == SRV6_STEER_AUTO ? "auto" : "none");
	fprintf(out, "egress %s\n", c->egress == SRV6_EGRESS_INJECT ? "inject" :
		     c->egress == SRV6_EGRESS_VERDICT ? "verdict" : "auto");
	if (c->gso)
		fprintf(out, "gso on\n");
	if (c->has_encap_src) {
		inet_ntop(AF_INET6, &c->encap_src, a, sizeof(a));
		fprintf(out, "encap-source %s\n", a);
	}
	if (c->ncpus) {
		fprintf(out, "cpu-affinity ");
		for (int i = 0; i < c->ncpus; i++)
			fprintf(out, "%s%d", i ? "," : "", c->cpus[i]);
		fprintf(out, "\n");
	} else {
		fprintf(out, "cpu-affinity none\n");
	}
	if (c->worker_fifo && !c->worker_sched_implied)
		fprintf(out, "worker-sched fifo %d\n", c->worker_prio);
	else if (!c->worker_fifo)
		fprintf(out, "worker-sched other\n");
	fprintf(out, "log-level %s\n", srv6_log_level_name(c->log_level));
	if (c->fpm.on) {
		inet_ntop(c->fpm.family, c->fpm.addr, a, sizeof(a));
		fprintf(out, "fpm listen %s %u grace %u%s\n", a, c->fpm.port, c->fpm.grace,
			c->fpm.remote ? " remote" : "");
	}
	for (int k = 0; k < 2; k++) {
		if (!(k ? c->kmirror.routes : c->kmirror.sids))
			continue;
		fprintf(out, "%s kernel table %u", k ? "routes-from" : "sids-from", c->kmirror.table);
		if (c->kmirror.proto >= 0)
			fprintf(out, " proto %d", c->kmirror.proto);
		fprintf(out, "\n");
	}
	if (c->nnapi) {
		fprintf(out, "ingress-napi threaded dev");
		for (unsigned int i = 0; i < c->nnapi; i++)
			fprintf(out, " %s", c->napi_devs[i]);
		fprintf(out, "\n");
		if (c->worker_sched_implied)
			fprintf(out, "# ingress-napi implies worker-sched fifo %d\n", c->worker_prio);
	}
	srv6_hmac_conf_print(c->hmac, out);           /* hmac hook */
	for (size_t i = 0; i < c->nsids; i++) {
		r = srv6_sid_format(line, sizeof(line), &c->sids[i].prefix, c->sids[i].plen,
				    &c->sids[i].cfg);
		if (r < 0)
			return r;
		fprintf(out, "%s\n", line);
	}
	for (size_t i = 0; i < c->nroutes; i++) {
		r = srv6_route_format(line, sizeof(line), &c->routes[i]);
		if (r < 0)
			return r;
		fprintf(out, "%s\n", line);
	}
	r = srv6_steer_cfg_from_conf(c, &sc);
	if (r < 0)
		return r;
	r = print_rules(&sc, AF_INET6, out);
	if (r == 0 && srv6_steer_wants_v4(&sc))
		r = print_rules(&sc, AF_INET, out);
	srv6_steer_cfg_release(&sc);
	return r;
}
