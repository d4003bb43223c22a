/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the workers' ARP and IPv6 Neighbour Discovery share: which
 * addresses are ours, and the event that tells the control thread about a
 * neighbour (fou_neigh.c owns the table). Data path: no locks, no logs,
 * no allocation.
 */
#ifndef FOU_ND_H
#define FOU_ND_H

#include "fou_lcore.h"

/*
 * Whether addr (4 or 16 bytes by family) is one of our addresses: on port
 * (port >= 0; a tunnel's addresses are on no port), or anywhere. A walk over the published address list: ARP
 * and ND are rare next to forwarding, and the list is short (FOU_MAX_ADDRS).
 */
static inline bool
fou_addr_mine(const struct fou_gw *gw, int port, uint8_t family, const void *addr)
{
	const struct fou_addr_set *as = __atomic_load_n(&gw->addrs, __ATOMIC_ACQUIRE);
	uint32_t v4 = 0;
	unsigned int i;

	if (family == AF_INET)
		memcpy(&v4, addr, 4);
	for (i = 0; i < as->n; i++) {
		const struct fou_addr *ad = &as->a[i];

		if (ad->ip.family != family ||
		    (port >= 0 && (ad->tunnel != 0 || ad->port != port)))
			continue;
		if (family == AF_INET ? ad->ip.v4 == v4 :
		    memcmp(ad->ip.v6, addr, 16) == 0)
			return true;
	}
	return false;
}

/* Tell the control thread what a frame said about its sender; a full ring
 * loses the event (counted), never the packet. */
static inline void
fou_nev_post(struct fou_lcore *lc, uint8_t kind, uint8_t flags, uint16_t port,
	     const struct rte_ether_addr *mac, uint8_t family, const void *addr)
{
	struct fou_neigh_ev ev = {
		.kind = kind,
		.flags = flags,
		.port = port,
		.mac = *mac,
		.family = family,
	};

	memcpy(ev.addr, addr, family == AF_INET ? 4 : 16);
	if (rte_ring_mp_enqueue_elem(lc->gw->nev_ring, &ev, sizeof(ev)) != 0)
		FOU_STAT_ADD(lc->st->local[FOU_LOCAL_NEIGH_EVENTS_LOST], 1);
}

#endif /* FOU_ND_H */
