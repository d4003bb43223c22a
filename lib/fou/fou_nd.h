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
#include "fou_rib.h"

/*
 * Whether addr (4 or 16 bytes by family) is one of our addresses: on port
 * (port >= 0; a tunnel's addresses are on no port), or anywhere. One probe
 * of the published local set, usually (fou_local4(), fou_local6()).
 */
static inline bool
fou_addr_mine(const struct fou_gw *gw, int port, uint8_t family, const void *addr)
{
	uint32_t tunnel;
	uint16_t p;

	if (family == AF_INET) {
		const struct fou_own4 *e;
		rte_be32_t v4;

		memcpy(&v4, addr, 4);
		e = fou_own4(gw, v4);
		if (e == NULL || e->kind != FOU_OWN_ADDR)
			return false;
		tunnel = e->tunnel;
		p = e->port;
	} else {
		const struct fou_own6 *e = fou_own6(gw, addr);

		if (e == NULL)
			return false;
		tunnel = e->tunnel;
		p = e->port;
	}
	return port < 0 || (tunnel == 0 && p == port);
}

/*
 * The link-local address of a port (fe80::/64), made from its MAC by
 * modified EUI-64 (RFC 4291 appendix A) as Linux' addrconf does by default
 * (addr_gen_mode eui64): every port has it without configuration, for
 * Neighbour Discovery; it follows the MAC.
 */
static inline void
fou_ll6(const struct rte_ether_addr *mac, uint8_t *a)
{
	memset(a, 0, 16);
	a[0] = 0xfe;
	a[1] = 0x80;
	a[8] = mac->addr_bytes[0] ^ 0x02;	/* the universal/local bit, inverted */
	a[9] = mac->addr_bytes[1];
	a[10] = mac->addr_bytes[2];
	a[11] = 0xff;
	a[12] = 0xfe;
	memcpy(a + 13, mac->addr_bytes + 3, 3);
}

/* Whether the IPv6 addr is port's: one of its addresses or its link-local. */
static inline bool
fou_addr6_mine_on(const struct fou_gw *gw, uint16_t port, const uint8_t *addr)
{
	uint8_t ll[16];

	fou_ll6(&gw->iface[port].mac, ll);
	return memcmp(addr, ll, 16) == 0 || fou_addr_mine(gw, port, AF_INET6, addr);
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
