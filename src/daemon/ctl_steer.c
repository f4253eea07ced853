// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctl_steer.c - `steer show`: srv6d's rules and routes as the kernel holds them.
 */
#include <errno.h>
#include <stdlib.h>

#include "srv6d/pqueue.h"
#include "srv6d/preflight.h"
#include "srv6d/sbuf.h"

#include "daemon.h"

/* steer show [--template] */
int ctl_steer(struct daemon *d, const struct srv6_ctl_req *q, FILE *o, char *err,
	      size_t errlen)
{
	bool tmpl = q->argc == 1;
	struct srv6_steer_cfg sc;
	char what[512] = "";
	int r, state = -1;

	if (q->argc && strcmp(q->argv[0], "--template")) {
		snprintf(err, errlen, "unknown option \"%.40s\" (--template)", q->argv[0]);
		return -EINVAL;
	}
	if (steer_cfg_make(d, &d->conf, &sc) < 0) {
		srv6_steer_cfg_release(&sc);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!tmpl && d->steered)
		state = srv6_steer_check(&sc, what, sizeof(what));
	if (q->json) {
		fprintf(o, "{\"mode\":\"%s\",\"chain\":", d->conf.steer == SRV6_STEER_AUTO ? "auto" : "none");
		srv6_json_str(o, daemon_steer_chain(d));
		fprintf(o, ",\"installed\":%s,\"state\":\"%s\",\"detail\":",
			d->steered && !tmpl ? "true" : "false",
			state == 0 ? "intact" : state > 0 ? "changed" : "unknown");
		srv6_json_str(o, what);
		fprintf(o, ",\"repairs\":%llu,\"rules\":{",
			(unsigned long long)(d->steer_repairs - d->base_repairs));
	} else if (!tmpl) {
		fprintf(o, "steer %s chain %s: %s%s\n", d->conf.steer == SRV6_STEER_AUTO ? "auto" : "none",
			daemon_steer_chain(d), !d->steered ? "not installed" : state == 0 ? "installed, intact" :
			state > 0 ? "installed, changed: " : "installed, check failed: ",
			d->steered && state != 0 ? what : "");
	}
	r = 0;
	for (int fam = 0; fam < 2 && r == 0; fam++) {
		int family = fam ? AF_INET : AF_INET6;
		int n;
		char *buf;

		if (family == AF_INET && !srv6_steer_wants_v4(&sc))
			continue;
		if (!tmpl && !d->steered && !q->json)
			break;
		n = srv6_steer_format(&sc, family, NULL, 0);
		if (n < 0 || !(buf = malloc((size_t)n + 1))) {
			r = n < 0 ? n : -ENOMEM;
			break;
		}
		srv6_steer_format(&sc, family, buf, (size_t)n + 1);
		if (q->json) {
			fprintf(o, "%s\"%s\":", fam ? "," : "", family == AF_INET6 ? "ip6tables" : "iptables");
			srv6_json_str(o, (d->steered || tmpl) ? buf : "");
		} else {
			fprintf(o, "# %s --noflush\n%s", family == AF_INET6 ? "ip6tables-restore" :
				"iptables-restore", buf);
		}
		free(buf);
	}
	if (tmpl && d->npqs) {
		/* The policy queues' steering is the operator's: one rule per
		 * queue at the hook under test, here in ip6tables-restore form. */
		char *buf = NULL;
		size_t blen = 0;
		FILE *t = open_memstream(&buf, &blen);

		if (t) {
			fprintf(t, "*mangle\n");
			for (unsigned int i = 0; i < d->npqs; i++) {
				char pol[64];

				srv6_pqueue_format(pol, sizeof(pol), &d->pqs[i].cfg);
				fprintf(t, "# queue %u policy %s: pick the chain (hook) and the match, e.g.\n"
					"# -A INPUT -d SID/128 -j NFQUEUE --queue-num %u\n"
					"# -A FORWARD -d NEXT-SEGMENT/128 -j NFQUEUE --queue-num %u\n",
					d->pqs[i].cfg.queue, pol, d->pqs[i].cfg.queue,
					d->pqs[i].cfg.queue);
			}
			fprintf(t, "COMMIT\n");
			fclose(t);
		}
		if (q->json) {
			fprintf(o, ",\"policy_queues\":");
			srv6_json_str(o, buf ? buf : "");
		} else if (buf) {
			fprintf(o, "# policy queues (steering is yours; net.netfilter.nf_hooks_lwtunnel=1 "
				"for the hooks inside seg6local)\n# ip6tables-restore --noflush\n%s", buf);
		}
		free(buf);
	}
	if (q->json)
		fprintf(o, "}}\n");
	srv6_steer_cfg_release(&sc);
	if (r < 0)
		snprintf(err, errlen, "formatting the rules: %s", strerror(-r));
	return r;
}
