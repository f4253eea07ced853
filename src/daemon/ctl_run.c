// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctl_run.c - the control socket's dispatcher: one request to its handler.
 */
#include <errno.h>

#include "srv6d/ctlsock.h"

#include "daemon.h"

/* srv6_ctl_handler: one request.  Control thread. */
int ctl_run(void *arg, const struct srv6_ctl_req *q, FILE *o, char *err, size_t errlen)
{
	struct daemon *d = arg;
	int r;

	switch (q->cmd->op) {
	case SRV6_CTL_SID_SHOW:
		return ctl_show(d, q, false, o, err, errlen);
	case SRV6_CTL_ROUTE_SHOW:
		return ctl_show(d, q, true, o, err, errlen);
	case SRV6_CTL_SID_ADD:
	case SRV6_CTL_SID_DEL:
	case SRV6_CTL_ROUTE_ADD:
	case SRV6_CTL_ROUTE_DEL:
		return ctl_change(d, q, o, err, errlen);
	case SRV6_CTL_QUEUE_SHOW:
		return ctl_queue(d, q, o, err, errlen);
	case SRV6_CTL_QUEUE_RELEASE:
		return ctl_release(d, q, o, err, errlen);
	case SRV6_CTL_STEER_SHOW:
		return ctl_steer(d, q, o, err, errlen);
	case SRV6_CTL_STATUS:
		return ctl_status(d, q, o);
	case SRV6_CTL_STATS_SHOW:
		return ctl_stats(d, q, o, err, errlen);
	case SRV6_CTL_STATS_RESET:
		return ctl_reset(d, o, err, errlen);
	case SRV6_CTL_RELOAD:
		srv6_notify_reloading();
		r = daemon_reload(d, err, errlen);
		daemon_notify_status(d, "READY=1\n");
		if (r < 0)
			return r;
		fprintf(o, "reloaded %s: %zu SIDs, %zu routes", d->conf_path, d->conf.nsids,
			d->conf.nroutes);
		if (d->pend.count)
			fprintf(o, ", %zu pending (srv6d completes them when the kernel has "
				"what they wait for: stats show)", d->pend.count);
		fputc('\n', o);
		return 0;
	case SRV6_CTL_MONITOR:
		return SRV6_CTL_MONITOR_KEEP;
	case SRV6_CTL_IMPORT:
	case SRV6_CTL_OP_MAX:
		break;
	}
	snprintf(err, errlen, "not a daemon command");
	return -EINVAL;
}
