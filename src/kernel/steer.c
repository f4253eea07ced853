// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * steer.c - srv6d's SRV6D chain in raw PREROUTING, installed with
 * ip6tables-restore/iptables-restore --noflush (fork/exec, pipes, no shell).
 * See include/srv6d/steer.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "srv6d/errbuf.h"
#include "srv6d/sbuf.h"
#include "srv6d/steer.h"

#define TOOL_TIMEOUT_MS 30000
#define TOOL_OUT_MAX (64u << 20)


/* ---- text building ---- */

static const char *chain_of(const struct srv6_steer_cfg *cfg)
{
	return cfg && cfg->chain ? cfg->chain : SRV6_STEER_CHAIN;
}

bool srv6_steer_chain_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > SRV6_STEER_CHAIN_MAX || name[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '-'))
			return false;
	return true;
}

static int check_cfg(const struct srv6_steer_cfg *cfg)
{
	if (cfg->queue_first > cfg->queue_last || cfg->queue_last > 65535 ||
	    !srv6_steer_chain_valid(chain_of(cfg)))
		return -EINVAL;
	for (size_t i = 0; i < cfg->nsids; i++)
		if (cfg->sid_plens[i] > 128)
			return -EINVAL;
	for (size_t i = 0; i < cfg->npol6; i++)
		if (cfg->pol6_plens[i] > 128)
			return -EINVAL;
	for (size_t i = 0; i < cfg->npol4; i++)
		if (cfg->pol4_plens[i] > 32)
			return -EINVAL;
	return 0;
}

static void queue_target(const struct srv6_steer_cfg *cfg, char *buf, size_t len)
{
	int n;

	/* In iptables-save's order (--queue-bypass before
	 * --queue-cpu-fanout): the steering check compares the text. */
	if (cfg->queue_first == cfg->queue_last)
		n = snprintf(buf, len, "-j NFQUEUE --queue-num %u%s", cfg->queue_first,
			     cfg->fail_open ? " --queue-bypass" : "");
	else
		n = snprintf(buf, len, "-j NFQUEUE --queue-balance %u:%u%s%s", cfg->queue_first,
			     cfg->queue_last, cfg->fail_open ? " --queue-bypass" : "",
			     cfg->cpu_fanout ? " --queue-cpu-fanout" : "");
	(void)n;
}

static void pfx6_str(const struct in6_addr *a, uint8_t plen, char *buf, size_t len)
{
	struct in6_addr m = *a;
	char s[INET6_ADDRSTRLEN];

	for (unsigned int i = 0; i < 16; i++) {
		unsigned int bits = plen > i * 8 ? plen - i * 8 : 0;

		if (bits < 8)
			m.s6_addr[i] &= (uint8_t)(0xff00u >> bits);
	}
	inet_ntop(AF_INET6, &m, s, sizeof(s));
	snprintf(buf, len, "%s/%u", s, plen);
}

/* Address ranges a policy never steers.  Written by srv6d before policies
 * became routes (issue 8, item 2): still recognised as srv6d's in a stale
 * chain, so that one is replaced, never refused as foreign. */
static const char *const excls[] = {
	"fe80::/10", "ff00::/8", "169.254.0.0/16", "224.0.0.0/4", "255.255.255.255/32",
};

/* The match of those old policy rules (same reason). */
#define POLICY_MATCH "-m addrtype ! --dst-type LOCAL"

/* The two places srv6d hooks its chain: raw PREROUTING (SIDs, IPv6 only)
 * and mangle POSTROUTING (policies: what the FIB sends to srv6d's device). */
enum hook_spot { SPOT_RAW, SPOT_MANGLE };

static const char *spot_table(enum hook_spot s)
{
	return s == SPOT_RAW ? "raw" : "mangle";
}

static const char *spot_hook(enum hook_spot s)
{
	return s == SPOT_RAW ? "PREROUTING" : "POSTROUTING";
}

static size_t npol_of(const struct srv6_steer_cfg *cfg, int family)
{
	return family == AF_INET6 ? cfg->npol6 : cfg->npol4;
}

/* Whether srv6d wants its chain at @s for @family: raw for IPv6 always (the
 * injected results' ACCEPT, the SIDs), mangle when the family has policies
 * and there is a device their routes point to. */
static bool spot_wanted(const struct srv6_steer_cfg *cfg, int family, enum hook_spot s)
{
	if (s == SPOT_RAW)
		return family == AF_INET6;
	return npol_of(cfg, family) && cfg->inject_dev && cfg->inject_dev[0];
}

/* ---- the context gate (steer.h) ---- */

static bool gate_wanted(const struct srv6_steer_cfg *cfg, int family)
{
	return cfg->gate_mask && (family == AF_INET6 ? cfg->gate6 : cfg->gate4);
}

/* The gate's match and target as iptables-save prints them after
 * "-A PREROUTING ": mark in hex, the mask left out when it is every bit. */
static void gate_rule(uint32_t mark, uint32_t mask, char *buf, size_t len)
{
	if (mask == 0xffffffffu)
		snprintf(buf, len, "-m mark --mark 0x%x -j ACCEPT", mark);
	else
		snprintf(buf, len, "-m mark --mark 0x%x/0x%x -j ACCEPT", mark, mask);
}

/* Whether the mangle PREROUTING rule @line has the gate's form (any
 * instance's marks): nothing but a mark match and ACCEPT. */
static bool gate_shaped(const char *line)
{
	static const char head[] = "-A PREROUTING -m mark --mark ", tail[] = " -j ACCEPT";
	size_t n = strlen(line), hl = sizeof(head) - 1, tl = sizeof(tail) - 1;
	const char *v = line + hl;

	if (n <= hl + tl || strncmp(line, head, hl) || strcmp(line + n - tl, tail))
		return false;
	for (; v < line + n - tl; v++)
		if (!((*v >= '0' && *v <= '9') || (*v >= 'a' && *v <= 'f') || *v == 'x' ||
		      *v == '/'))
			return false;
	return true;
}

bool srv6_steer_wants_v4(const struct srv6_steer_cfg *cfg)
{
	return cfg->npol4 || gate_wanted(cfg, AF_INET);
}

/* Both IPv4 tools are there (the IPv4 gate is needed only then: without
 * them no IPv4 xtables rule can reset a mark). */
static bool v4_tools(void);

/* Append the text that leaves exactly one gate @gate (a gate_rule() text),
 * first in mangle PREROUTING, when @want, and none otherwise; @n gates are
 * there now, @first whether the first of them comes first. */
static int gate_text(const char *gate, bool want, unsigned int n, bool first,
		     struct srv6_sbuf *b)
{
	int e = 0;

	if (want ? (n == 1 && first) : n == 0)
		return 0;
	e = srv6_sb_grow_printf(b, "*mangle\n");
	for (unsigned int i = 0; !e && i < n; i++)
		e = srv6_sb_grow_printf(b, "-D PREROUTING %s\n", gate);
	if (!e && want)
		e = srv6_sb_grow_printf(b, "-I PREROUTING 1 %s\n", gate);
	return e ? e : srv6_sb_grow_printf(b, "COMMIT\n");
}

/* The chain body at @s: "-A SRV6D ..." lines. */
static void format_rules(const struct srv6_steer_cfg *cfg, int family, enum hook_spot s,
			 struct srv6_sbuf *b)
{
	char tgt[96], p[INET6_ADDRSTRLEN + 8];
	const char *chain = chain_of(cfg);

	queue_target(cfg, tgt, sizeof(tgt));
	if (s == SPOT_MANGLE) {
		/* Policies are kernel routes through srv6d's device (fallback.h):
		 * whatever the FIB sends there, forwarded or locally
		 * originated, is srv6d's to encapsulate. */
		if (spot_wanted(cfg, family, s))
			srv6_sb_printf(b, "-A %s -o %s %s\n", chain, cfg->inject_dev, tgt);
		return;
	}
	if (cfg->inject_dev && cfg->inject_dev[0])
		srv6_sb_printf(b, "-A %s -i %s -j ACCEPT\n", chain, cfg->inject_dev);
	if (family == AF_INET6)
		for (size_t i = 0; i < cfg->nsids; i++) {
			pfx6_str(&cfg->sid_prefixes[i], cfg->sid_plens[i], p, sizeof(p));
			srv6_sb_printf(b, "-A %s -d %s %s\n", chain, p, tgt);
		}
}

int srv6_steer_format(const struct srv6_steer_cfg *cfg, int family, char *buf, size_t len)
{
	struct srv6_sbuf b = SRV6_SB_FIXED(buf, len);

	if ((family != AF_INET6 && family != AF_INET) || check_cfg(cfg) < 0)
		return -EINVAL;
	if (len)
		buf[0] = '\0';
	for (enum hook_spot s = SPOT_RAW; s <= SPOT_MANGLE; s++) {
		if (!spot_wanted(cfg, family, s))
			continue;
		/* Inserted first: an earlier terminal rule would bypass it. */
		srv6_sb_printf(&b, "*%s\n:%s - [0:0]\n-I %s 1 -j %s\n", spot_table(s), chain_of(cfg),
			  spot_hook(s), chain_of(cfg));
		format_rules(cfg, family, s, &b);
		srv6_sb_printf(&b, "COMMIT\n");
	}
	if (gate_wanted(cfg, family)) {
		char g[96];

		gate_rule(cfg->gate_mark, cfg->gate_mask, g, sizeof(g));
		srv6_sb_printf(&b, "*mangle\n-I PREROUTING 1 %s\nCOMMIT\n", g);
	}
	return b.len > INT32_MAX ? -EOVERFLOW : (int)b.len;
}

/* ---- running the tools ---- */

static const char *tool_path(const char *name, char *buf, size_t len)
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin", "/usr/local/sbin",
					    "/usr/bin", "/bin" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(buf, len, "%s/%s", dirs[i], name);
		if (access(buf, X_OK) == 0)
			return buf;
	}
	return NULL;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static int read_into(int fd, struct srv6_sbuf *b)
{
	char tmp[4096];
	ssize_t r = read(fd, tmp, sizeof(tmp));

	if (r < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -errno;
	if (r == 0)
		return 0;
	if (b->len + (size_t)r > TOOL_OUT_MAX)
		return -E2BIG;
	if (srv6_sb_grow_printf(b, "%.*s", (int)r, tmp) < 0)
		return -ENOMEM;
	return 1;
}

/*
 * Run @name with @argv, @in on its stdin, collecting stdout in @out (NUL
 * terminated, caller frees) and the first line of stderr in @err.  Returns 0
 * when it exited 0, -EIO when it exited non-zero, -errno otherwise.
 * Only async-signal-safe calls happen in the child before exec, so this is
 * safe in a multithreaded process.  SIGPIPE is blocked in the calling thread
 * while writing, and a pending one is consumed.
 */
static int run_tool(const char *name, char *const argv[], const char *in, size_t inlen,
		    char **out, char *err, size_t errlen)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	struct srv6_sbuf o = { 0 }, e = { 0 };
	sigset_t pipeset, oldset;
	struct timespec t0;
	char path[256];
	size_t off = 0;
	int ret, status, devnull;
	pid_t pid;

	if (out)
		*out = NULL;
	if (!tool_path(name, path, sizeof(path))) {
		srv6_seterr(err, errlen, "%s: not found", name);
		return -ENOENT;
	}
	o.p = malloc(o.cap = 4096);
	e.p = malloc(e.cap = 1024);
	if (!o.p || !e.p) {
		ret = -ENOMEM;
		goto out_bufs;
	}
	o.p[0] = e.p[0] = '\0';
	if (pipe2(pin, O_CLOEXEC) < 0 || pipe2(pout, O_CLOEXEC) < 0 || pipe2(perr, O_CLOEXEC) < 0) {
		ret = -errno;
		srv6_seterr(err, errlen, "%s: pipe: %s", name, strerror(errno));
		goto out_pipes;
	}
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		srv6_seterr(err, errlen, "%s: fork: %s", name, strerror(errno));
		if (devnull >= 0)
			close(devnull);
		goto out_pipes;
	}
	if (pid == 0) {
		sigset_t none;

		/* The daemon blocks its signals and ignores SIGPIPE; the
		 * tool must be stoppable and see broken pipes as usual. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(in ? pin[0] : devnull, 0) < 0 || dup2(pout[1], 1) < 0 ||
		    dup2(perr[1], 2) < 0)
			_exit(127);
		execv(path, argv);
		_exit(127);
	}
	if (devnull >= 0)
		close(devnull);
	close(pin[0]);
	pin[0] = -1;
	close(pout[1]);
	pout[1] = -1;
	close(perr[1]);
	perr[1] = -1;
	if (!in || !inlen) {
		close(pin[1]);
		pin[1] = -1;
	} else {
		fcntl(pin[1], F_SETFL, O_NONBLOCK);
	}

	sigemptyset(&pipeset);
	sigaddset(&pipeset, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipeset, &oldset);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = 0;
	while (pout[0] >= 0 || perr[0] >= 0) {
		struct pollfd pfd[3] = {
			{ .fd = pout[0], .events = POLLIN },
			{ .fd = perr[0], .events = POLLIN },
			{ .fd = pin[1], .events = POLLOUT },
		};
		long left = TOOL_TIMEOUT_MS - ms_since(&t0);
		int r;

		if (left <= 0) {
			kill(pid, SIGKILL);
			ret = -ETIMEDOUT;
			srv6_seterr(err, errlen, "%s: timed out", name);
			break;
		}
		r = poll(pfd, 3, (int)left);
		if (r < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		if (pfd[2].revents) {
			ssize_t w = write(pin[1], in + off, inlen - off);

			if (w > 0)
				off += (size_t)w;
			if ((w < 0 && errno != EAGAIN && errno != EINTR) || off == inlen) {
				close(pin[1]); /* EPIPE: the tool gave up, its stderr says why */
				pin[1] = -1;
			}
		}
		for (int i = 0; i < 2; i++) {
			int *fd = i ? &perr[0] : &pout[0];

			if (!pfd[i].revents)
				continue;
			r = read_into(*fd, i ? &e : &o);
			if (r <= 0) {
				if (r < 0 && !ret)
					ret = r;
				close(*fd);
				*fd = -1;
			}
		}
	}
	if (sigismember(&oldset, SIGPIPE) == 0) {
		struct timespec zero = { 0, 0 };

		while (sigtimedwait(&pipeset, NULL, &zero) > 0)
			;
	}
	pthread_sigmask(SIG_SETMASK, &oldset, NULL);

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	if (!ret && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		char *nl = strchr(e.p, '\n');

		if (nl)
			*nl = '\0';
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			srv6_seterr(err, errlen, "%s: cannot execute", name);
		else
			srv6_seterr(err, errlen, "%s: %s", name, e.p[0] ? e.p : "failed");
		ret = -EIO;
	}
	if (!ret && out) {
		*out = o.p;
		o.p = NULL;
	}

out_pipes:
	for (int i = 0; i < 2; i++) {
		if (pin[i] >= 0)
			close(pin[i]);
		if (pout[i] >= 0)
			close(pout[i]);
		if (perr[i] >= 0)
			close(perr[i]);
	}
out_bufs:
	free(o.p);
	free(e.p);
	if (ret == -ENOMEM)
		srv6_seterr(err, errlen, "out of memory");
	return ret;
}

struct fam_tools {
	const char *save, *restore;
};

static const struct fam_tools *tools_for(int family)
{
	static const struct fam_tools v6 = { "ip6tables-save", "ip6tables-restore" };
	static const struct fam_tools v4 = { "iptables-save", "iptables-restore" };

	return family == AF_INET6 ? &v6 : &v4;
}

/* What a table's hook and srv6d's chain there hold now. */
struct raw_view {
	bool chain;              /* the chain exists */
	unsigned int jumps;      /* hook jumps to it */
	bool jump_first;         /* the first rule of the hook is such a jump */
	char foreign[160];       /* a rule in the chain srv6d does not write */
	unsigned int gates;      /* mangle only: PREROUTING rules equal to the gate asked for */
	bool gate_first;         /* the first of them has only gates before it */
	struct srv6_sbuf rules;       /* the chain's rules, one "-A ..." line each */
};

/* A rule srv6d writes into @chain: "-A CHAIN -d P/L -j NFQUEUE --queue-...",
 * "-A CHAIN -i DEV -j ACCEPT", "-A CHAIN -o DEV -j NFQUEUE --queue-..." (and
 * the forms of older srv6d versions, so that their stale chains are
 * replaced). */
static bool rule_is_ours(const char *line, const char *chain)
{
	size_t n = strlen(chain);
	const char *dev, *sp;

	if (strncmp(line, "-A ", 3) || strncmp(line + 3, chain, n))
		return false;
	/* accept what arrives on srv6d's injection device; queue what the
	 * FIB sends out of it */
	if (!strncmp(line + 3 + n, " -i ", 4) || !strncmp(line + 3 + n, " -o ", 4)) {
		bool in = line[3 + n + 2] == 'i';

		dev = line + 3 + n + 4;
		sp = strchr(dev, ' ');
		if (!sp || sp == dev || (size_t)(sp - dev) >= 16)
			return false;
		return in ? !strcmp(sp, " -j ACCEPT") :
			    !strncmp(sp, " -j NFQUEUE --queue-", 20) && !strstr(sp + 4, " -m ");
	}
	if (strncmp(line + 3 + n, " -d ", 4))
		return false;
	/* an old exclusion in front of the policies */
	for (size_t x = 0; x < sizeof(excls) / sizeof(excls[0]); x++) {
		const char *t = line + 3 + n + 4;
		size_t l = strlen(excls[x]);

		if (!strncmp(t, excls[x], l) && !strcmp(t + l, " -j RETURN"))
			return true;
	}
	/* a SID rule, or an old policy rule (one addrtype match) */
	sp = strstr(line + 3 + n + 4, " -m ");
	if (sp && (strncmp(sp, " " POLICY_MATCH " -j ", strlen(POLICY_MATCH) + 5) ||
		   strstr(sp + 4, " -m ")))
		return false;
	return strstr(line, " -j NFQUEUE --queue-") != NULL;
}

/* Whether the @hook rule @line is a plain jump to a chain holding only
 * srv6d's rules (another srv6d instance's): harmless in front of ours, and
 * each instance insisting on the top would swap places forever. */
static bool jump_to_srv6d(const char *text, const char *hook, const char *line)
{
	char head[48], rule[64];
	const char *name, *p;
	size_t hl;

	hl = (size_t)snprintf(head, sizeof(head), "-A %s -j ", hook);
	name = line + hl;
	if (strncmp(line, head, hl) || strchr(name, ' ') || !srv6_steer_chain_valid(name))
		return false;
	snprintf(rule, sizeof(rule), "\n-A %s ", name);
	for (p = strstr(text, rule); p; p = strstr(p + 1, rule)) {
		const char *end = strchr(p + 1, '\n');
		char buf[512];
		size_t l = end ? (size_t)(end - p - 1) : strlen(p + 1);

		if (l >= sizeof(buf))
			return false;
		memcpy(buf, p + 1, l);
		buf[l] = '\0';
		if (!rule_is_ours(buf, name))
			return false;
	}
	return true;
}

static void raw_view_free(struct raw_view *v)
{
	free(v->rules.p);
	v->rules.p = NULL;
}

/* What @s of @family holds for @chain; at SPOT_MANGLE also the gates
 * equal to @gate (a gate_rule() text; NULL: none counted). */
static int raw_view(int family, enum hook_spot s, const char *chain, const char *gate,
		    struct raw_view *v, char *err, size_t errlen)
{
	const struct fam_tools *t = tools_for(family);
	char *const argv[] = { (char *)t->save, "-t", (char *)spot_table(s), NULL };
	char *out, *copy, *line, *save, jump[64], decl[64], rule[64], hook[32];
	bool blocked = false, gblocked = false;
	int e;

	memset(v, 0, sizeof(*v));
	v->rules.p = malloc(v->rules.cap = 256);
	if (!v->rules.p) {
		srv6_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	v->rules.p[0] = '\0';
	snprintf(jump, sizeof(jump), "-A %s -j %s", spot_hook(s), chain);
	snprintf(hook, sizeof(hook), "-A %s ", spot_hook(s));
	snprintf(decl, sizeof(decl), ":%s ", chain);
	snprintf(rule, sizeof(rule), "-A %s ", chain);
	e = run_tool(t->save, argv, NULL, 0, &out, err, errlen);
	if (e < 0) {
		raw_view_free(v);
		return e;
	}
	copy = strdup(out);
	if (!copy) {
		free(out);
		raw_view_free(v);
		srv6_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (gate && s == SPOT_MANGLE && !strncmp(line, "-A PREROUTING ", 14)) {
			if (!strcmp(line + 14, gate)) {
				if (!v->gates++ && !gblocked)
					v->gate_first = true;
			} else if (!v->gates && !gate_shaped(line)) {
				gblocked = true;
			}
			continue;
		}
		if (!strncmp(line, hook, strlen(hook))) {
			if (!strcmp(line, jump)) {
				/* first: nothing but other instances' jumps before it */
				if (!v->jumps++ && !blocked)
					v->jump_first = true;
			} else if (!v->jumps && !jump_to_srv6d(copy, spot_hook(s), line)) {
				blocked = true;
			}
		} else if (!strncmp(line, decl, strlen(decl))) {
			v->chain = true;
		} else if (!strncmp(line, rule, strlen(rule))) {
			if (!rule_is_ours(line, chain) && !v->foreign[0])
				snprintf(v->foreign, sizeof(v->foreign), "%s", line);
			if (srv6_sb_grow_printf(&v->rules, "%s\n", line) < 0) {
				e = -ENOMEM;
				break;
			}
		}
	}
	free(out);
	free(copy);
	if (e < 0) {
		raw_view_free(v);
		srv6_seterr(err, errlen, "out of memory");
	}
	return e;
}

static int refuse_foreign(const char *chain, const struct raw_view *v, char *err, size_t errlen)
{
	srv6_seterr(err, errlen, "steer: chain %s holds a rule srv6d did not write (%s): "
		    "not touching it", chain, v->foreign);
	return -EEXIST;
}

static int restore(int family, const char *text, size_t len, char *err, size_t errlen)
{
	const struct fam_tools *t = tools_for(family);
	/* Wait at most 5 s for the xtables lock, so a stuck lock holder
	 * cannot hang a reload or the shutdown. */
	char *const argv[] = { (char *)t->restore, "--noflush", "--wait=5", NULL };

	return run_tool(t->restore, argv, text, len, NULL, err, errlen);
}

int srv6_steer_restore(int family, const char *text, char *err, size_t errlen)
{
	if (family != AF_INET6 && family != AF_INET)
		return -EINVAL;
	return restore(family, text, strlen(text), err, errlen);
}

/* ---- the marker of a `steer auto` run ---- */

/* SRV6_STEER_STATE_DIR/steer.NETNS.CHAIN: exists while srv6d's steering may
 * be installed (made before the install, removed after the removal), so a
 * `steer none` start after a crash knows the chain there is a stale one. */
static int marker_path(const char *chain, char *buf, size_t len)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st) < 0)
		return -errno;
	snprintf(buf, len, "%s/steer.%lu.%s", SRV6_STEER_STATE_DIR, (unsigned long)st.st_ino,
		 chain);
	return 0;
}

static void marker_set(const char *chain)
{
	char path[256];
	int fd;

	if (marker_path(chain, path, sizeof(path)) < 0)
		return;
	(void)mkdir(SRV6_STEER_STATE_DIR, 0755);
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

static void marker_clear(const char *chain)
{
	char path[256];

	if (marker_path(chain, path, sizeof(path)) == 0)
		(void)unlink(path);
}

bool srv6_steer_stale(const char *chain)
{
	char path[256];

	return marker_path(chain ? chain : SRV6_STEER_CHAIN, path, sizeof(path)) == 0 &&
	       access(path, F_OK) == 0;
}

/* Append to @b the text that makes @s of @family what @cfg wants: the chain
 * created or flushed and refilled, exactly one jump as the hook's first rule;
 * or, when @cfg wants nothing there, the jumps and the chain removed.
 * @v: what is there now. */
static int spot_text(const struct srv6_steer_cfg *cfg, int family, enum hook_spot s,
		     const struct raw_view *v, struct srv6_sbuf *b)
{
	const char *chain = chain_of(cfg), *hook = spot_hook(s);
	struct srv6_sbuf r = { 0 };
	char *body;
	int e;

	if (!spot_wanted(cfg, family, s)) {
		if (!v->chain && !v->jumps)
			return 0;
		e = srv6_sb_grow_printf(b, "*%s\n", spot_table(s));
		for (unsigned int i = 0; !e && i < v->jumps; i++)
			e = srv6_sb_grow_printf(b, "-D %s -j %s\n", hook, chain);
		if (!e && v->chain)
			e = srv6_sb_grow_printf(b, "-F %s\n-X %s\n", chain, chain);
		return e ? e : srv6_sb_grow_printf(b, "COMMIT\n");
	}
	/* Declaring an existing user chain in --noflush mode flushes it; -F
	 * says so explicitly for both backends. */
	e = srv6_sb_grow_printf(b, "*%s\n:%s - [0:0]\n-F %s\n", spot_table(s), chain, chain);
	/* Exactly one jump, the first rule of the hook (a terminal rule
	 * before it would bypass srv6d): otherwise all go, one is inserted at
	 * the top, in the same transaction. */
	if (!e && (v->jumps != 1 || !v->jump_first)) {
		for (unsigned int i = 0; !e && i < v->jumps; i++)
			e = srv6_sb_grow_printf(b, "-D %s -j %s\n", hook, chain);
		if (!e)
			e = srv6_sb_grow_printf(b, "-I %s 1 -j %s\n", hook, chain);
	}
	if (e)
		return e;
	format_rules(cfg, family, s, &r); /* measure */
	body = malloc(r.len + 1);
	if (!body)
		return -ENOMEM;
	body[0] = '\0';  /* nothing to format: nothing written */
	r = SRV6_SB_FIXED(body, r.len + 1);
	format_rules(cfg, family, s, &r);
	e = srv6_sb_grow_printf(b, "%sCOMMIT\n", body);
	free(body);
	return e;
}

static int install_family(const struct srv6_steer_cfg *cfg, int family, char *err, size_t errlen)
{
	const char *chain = chain_of(cfg);
	bool gwant = gate_wanted(cfg, family);
	struct srv6_sbuf b = { 0 };
	struct raw_view v;
	char gate[96];
	int e = 0;

	gate_rule(cfg->gate_mark, cfg->gate_mask, gate, sizeof(gate));
	b.p = malloc(b.cap = 4096);
	if (!b.p) {
		srv6_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	b.p[0] = '\0';
	for (enum hook_spot s = SPOT_RAW; s <= SPOT_MANGLE; s++) {
		e = raw_view(family, s, chain, cfg->gate_mask ? gate : NULL, &v, err, errlen);
		if (e < 0)
			goto out;
		raw_view_free(&v);
		if (v.foreign[0]) {
			e = refuse_foreign(chain, &v, err, errlen);
			goto out;
		}
		e = spot_text(cfg, family, s, &v, &b);
		if (!e && s == SPOT_MANGLE && cfg->gate_mask)
			e = gate_text(gate, gwant, v.gates, v.gate_first, &b);
		if (e < 0) {
			srv6_seterr(err, errlen, "out of memory");
			goto out;
		}
	}
	if (b.len)
		e = restore(family, b.p, b.len, err, errlen);
	if (e < 0)
		goto out;
	/* Check the result: someone may have inserted a rule meanwhile. */
	for (enum hook_spot s = SPOT_RAW; s <= SPOT_MANGLE; s++) {
		bool g = s == SPOT_MANGLE && gwant;

		if (!spot_wanted(cfg, family, s) && !g)
			continue;
		e = raw_view(family, s, chain, g ? gate : NULL, &v, err, errlen);
		if (e < 0)
			goto out;
		raw_view_free(&v);
		if (spot_wanted(cfg, family, s) && (!v.chain || v.jumps != 1 || !v.jump_first)) {
			srv6_seterr(err, errlen, "steer: the jump to %s is not the first rule of %s "
				    "%s after the install", chain, spot_table(s), spot_hook(s));
			e = -EAGAIN;
			goto out;
		}
		if (g && (v.gates != 1 || !v.gate_first)) {
			srv6_seterr(err, errlen, "steer: the context gate is not the first rule of "
				    "mangle PREROUTING after the install");
			e = -EAGAIN;
			goto out;
		}
	}
out:
	free(b.p);
	return e;
}

static int remove_family(int family, const char *chain, uint32_t gate_mark, uint32_t gate_mask,
			 char *err, size_t errlen)
{
	/* wants nothing anywhere: no policies, no raw chain for IPv4, no gate */
	struct srv6_steer_cfg none = { .chain = chain };
	char gate[96];
	struct srv6_sbuf b = { 0 };
	struct raw_view v;
	int e = 0;

	b.p = malloc(b.cap = 512);
	if (!b.p) {
		srv6_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	b.p[0] = '\0';
	gate_rule(gate_mark, gate_mask, gate, sizeof(gate));
	for (enum hook_spot s = SPOT_RAW; s <= SPOT_MANGLE; s++) {
		e = raw_view(family, s, chain, gate_mask ? gate : NULL, &v, err, errlen);
		if (e < 0)
			goto out;
		raw_view_free(&v);
		if (v.foreign[0] && (v.chain || v.jumps)) {
			e = refuse_foreign(chain, &v, err, errlen);
			goto out;
		}
		if (s == SPOT_MANGLE && gate_mask && gate_text(gate, false, v.gates, false, &b) < 0) {
			e = -ENOMEM;
			srv6_seterr(err, errlen, "out of memory");
			goto out;
		}
		if (!v.chain && !v.jumps)
			continue;
		/* the raw chain of IPv6 goes too: force "not wanted" */
		if (s == SPOT_RAW && family == AF_INET6) {
			e = srv6_sb_grow_printf(&b, "*raw\n");
			for (unsigned int i = 0; !e && i < v.jumps; i++)
				e = srv6_sb_grow_printf(&b, "-D PREROUTING -j %s\n", chain);
			if (!e && v.chain)
				e = srv6_sb_grow_printf(&b, "-F %s\n-X %s\n", chain, chain);
			if (!e)
				e = srv6_sb_grow_printf(&b, "COMMIT\n");
		} else {
			e = spot_text(&none, family, s, &v, &b);
		}
		if (e < 0) {
			srv6_seterr(err, errlen, "out of memory");
			goto out;
		}
	}
	if (b.len)
		e = restore(family, b.p, b.len, err, errlen);
out:
	free(b.p);
	return e;
}

int srv6_steer_install(const struct srv6_steer_cfg *cfg, char *err, size_t errlen)
{
	int e;

	if (!srv6_steer_chain_valid(chain_of(cfg))) {
		srv6_seterr(err, errlen, "steer: invalid chain name \"%s\"", chain_of(cfg));
		return -EINVAL;
	}
	if (check_cfg(cfg) < 0) {
		srv6_seterr(err, errlen, "steer: invalid queue range %u-%u or prefix length",
		       cfg->queue_first, cfg->queue_last);
		return -EINVAL;
	}
	marker_set(chain_of(cfg));
	e = install_family(cfg, AF_INET6, err, errlen);
	if (e < 0)
		return e;
	if (cfg->npol4)
		return install_family(cfg, AF_INET, err, errlen);
	if (gate_wanted(cfg, AF_INET) && v4_tools())
		return install_family(cfg, AF_INET, err, errlen);
	/* No IPv4 policies or contexts: a leftover IPv4 chain or gate goes; no
	 * iptables at all is fine then. */
	e = remove_family(AF_INET, chain_of(cfg), cfg->gate_mark, cfg->gate_mask, err, errlen);
	return e == -ENOENT ? 0 : e;
}

int srv6_steer_remove(const char *chain, uint32_t gate_mark, uint32_t gate_mask, char *err,
		      size_t errlen)
{
	int e6, e4;
	char err4[256] = "";

	if (!chain)
		chain = SRV6_STEER_CHAIN;
	if (!srv6_steer_chain_valid(chain)) {
		srv6_seterr(err, errlen, "steer: invalid chain name");
		return -EINVAL;
	}
	e6 = remove_family(AF_INET6, chain, gate_mark, gate_mask, err, errlen);
	e4 = remove_family(AF_INET, chain, gate_mark, gate_mask, err4, sizeof(err4));
	if (e4 == -ENOENT) /* no iptables: nothing of ours can be there */
		e4 = 0;
	if (e6 < 0)
		return e6;
	if (e4 < 0) {
		srv6_seterr(err, errlen, "%s", err4);
		return e4;
	}
	marker_clear(chain);
	return 0;
}

/* One family against @cfg: 0 intact, 1 changed (@what says how). */
static int check_family(const struct srv6_steer_cfg *cfg, int family, char *what, size_t len)
{
	const char *chain = chain_of(cfg);
	const char *fam = family == AF_INET6 ? "IPv6" : "IPv4";

	for (enum hook_spot s = SPOT_RAW; s <= SPOT_MANGLE; s++) {
		const char *tb = s == SPOT_RAW ? "" : "mangle ";
		struct srv6_sbuf want = { 0 };
		struct raw_view v;
		int e;

		bool g = s == SPOT_MANGLE && gate_wanted(cfg, family);
		char gate[96];

		if (!spot_wanted(cfg, family, s) && !g)
			continue;
		gate_rule(cfg->gate_mark, cfg->gate_mask, gate, sizeof(gate));
		e = raw_view(family, s, chain, g ? gate : NULL, &v, what, len);
		if (e < 0)
			return e;
		if (g && !v.gates) {
			srv6_seterr(what, len, "%s mangle PREROUTING context gate is gone", fam);
			e = 1;
		} else if (g && (v.gates != 1 || !v.gate_first)) {
			srv6_seterr(what, len, "%s context gate is not (only) the first rule of "
				    "mangle PREROUTING", fam);
			e = 1;
		} else if (!spot_wanted(cfg, family, s)) {
			e = 0;
		} else if (!v.chain) {
			srv6_seterr(what, len, "%s %schain %s is gone", fam, tb, chain);
			e = 1;
		} else if (!v.jumps) {
			srv6_seterr(what, len, "%s %sjump to %s is gone", fam, tb, chain);
			e = 1;
		} else if (v.jumps != 1 || !v.jump_first) {
			srv6_seterr(what, len, "%s jump to %s is not (only) the first rule of %s %s",
				    fam, chain, spot_table(s), spot_hook(s));
			e = 1;
		} else {
			format_rules(cfg, family, s, &want); /* measure (cap 0: nothing written) */
			want.p = malloc(want.cap = want.len + 1);
			if (!want.p) {
				raw_view_free(&v);
				srv6_seterr(what, len, "out of memory");
				return -ENOMEM;
			}
			want.len = 0;
			want.p[0] = '\0';
			format_rules(cfg, family, s, &want);
			if (strcmp(want.p, v.rules.p ? v.rules.p : "")) {
				srv6_seterr(what, len, "%s %schain %s does not hold srv6d's rules", fam,
					    tb, chain);
				e = 1;
			}
			free(want.p);
		}
		raw_view_free(&v);
		if (e)
			return e;
	}
	return 0;
}

int srv6_steer_check(const struct srv6_steer_cfg *cfg, char *what, size_t len)
{
	int e;

	if (check_cfg(cfg) < 0) {
		srv6_seterr(what, len, "steer: invalid configuration");
		return -EINVAL;
	}
	e = check_family(cfg, AF_INET6, what, len);
	if (e == 0 && cfg->npol4) {
		e = check_family(cfg, AF_INET, what, len);
	} else if (e == 0 && gate_wanted(cfg, AF_INET) && v4_tools()) {
		e = check_family(cfg, AF_INET, what, len);
	}
	return e;
}

static bool v4_tools(void)
{
	const struct fam_tools *t = tools_for(AF_INET);
	char path[256];

	return tool_path(t->save, path, sizeof(path)) && tool_path(t->restore, path, sizeof(path));
}

int srv6_steer_tools_check(bool v4, char *err, size_t errlen)
{
	const struct fam_tools *t[2] = { tools_for(AF_INET6), tools_for(AF_INET) };
	char path[256];

	for (int f = 0; f < (v4 ? 2 : 1); f++) {
		if (!tool_path(t[f]->save, path, sizeof(path))) {
			srv6_seterr(err, errlen, "%s: not found", t[f]->save);
			return -ENOENT;
		}
		if (!tool_path(t[f]->restore, path, sizeof(path))) {
			srv6_seterr(err, errlen, "%s: not found", t[f]->restore);
			return -ENOENT;
		}
	}
	return 0;
}

/* ---- other mark users (mark-mask) ---- */

static bool opt_u32(const char *line, const char *opt, uint32_t *v, uint32_t *m)
{
	const char *p = strstr(line, opt);
	char *end;
	unsigned long x;

	if (!p)
		return false;
	p += strlen(opt);
	x = strtoul(p, &end, 0);
	*v = (uint32_t)x;
	if (m)
		*m = *end == '/' ? (uint32_t)strtoul(end + 1, NULL, 0) : 0xffffffffu;
	return true;
}

bool srv6_steer_mark_clash(const char *line, uint32_t mask)
{
	uint32_t v, m;

	if (strncmp(line, "-A ", 3) || !strncmp(line, "-A OUTPUT ", 10) ||
	    !strncmp(line, "-A POSTROUTING ", 15) || !strncmp(line, "-A INPUT ", 9) ||
	    !strncmp(line, "-A FORWARD ", 11))
		return false;
	if (strstr(line, "-j CONNMARK") && strstr(line, "--restore-mark")) {
		/* mark = (mark & ~nfmask) | (ctmark & ctmask) */
		if (!opt_u32(line, "--nfmask ", &v, NULL) && !opt_u32(line, "--mask ", &v, NULL))
			v = 0xffffffffu;
		return (v & mask) != 0;
	}
	if (!strstr(line, "-j MARK"))
		return false;
	if (opt_u32(line, "--set-xmark ", &v, &m) || opt_u32(line, "--set-mark ", &v, &m))
		return ((v | m) & mask) != 0;
	if (opt_u32(line, "--and-mark ", &v, NULL))
		return (~v & mask) != 0;
	if (opt_u32(line, "--or-mark ", &v, NULL) || opt_u32(line, "--xor-mark ", &v, NULL))
		return (v & mask) != 0;
	return true;   /* a MARK form this parser does not know: say so */
}

int srv6_steer_mark_users(int family, uint32_t mask, void (*fn)(const char *rule, void *arg),
			  void *arg, char *err, size_t errlen)
{
	const struct fam_tools *t = tools_for(family);
	char *const argv[] = { (char *)t->save, "-t", "mangle", NULL };
	char *out, *line, *save;
	int e, n = 0;

	e = run_tool(t->save, argv, NULL, 0, &out, err, errlen);
	if (e < 0)
		return e;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (srv6_steer_mark_clash(line, mask)) {
			fn(line, arg);
			n++;
		}
	}
	free(out);
	return n;
}
