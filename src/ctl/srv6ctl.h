/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srv6ctl.h - srv6ctl's own parts (import.c). */
#ifndef SRV6CTL_H
#define SRV6CTL_H

#include <stdio.h>

/**
 * srv6ctl_import - `srv6ctl import [--from-kernel]`: print srv6d.conf lines
 * for the SRv6 routes of stdin (ip route show output) or of the kernel.
 * Returns the exit code (0, 1 when a route could not be converted, 2 usage).
 */
int srv6ctl_import(int argc, char **argv);

/**
 * srv6ctl_rtdump - every seg6local and seg6 encap route of @family
 * (AF_INET6, AF_INET) in every table, over rtnetlink, written to @o as
 * `ip route show` writes them (one line each).  0 or -errno; -EINTR when
 * the kernel marked the dump interrupted (what @o got is then torn).
 */
int srv6ctl_rtdump(int family, FILE *o);

#endif
