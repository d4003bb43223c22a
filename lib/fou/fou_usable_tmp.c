/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TEMPORARY: the failover hook of fou_ctl.h until the routes' metrics and
 * next-hop groups land, which implement it (a tunnel that is down takes
 * its routes out of use). Until then a tunnel's health changes nothing
 * in forwarding. Delete this file when merging that work.
 */
#include "fou_ctl.h"

int
fou_tunnel_usable_set(struct fou_gw *gw, uint32_t tunnel, bool usable)
{
	(void)gw;
	(void)tunnel;
	(void)usable;
	return 0;
}
