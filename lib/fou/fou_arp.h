/* SPDX-License-Identifier: BSD-3-Clause */
/* ARP (RFC 826): the workers' answer, the control thread's frames (fou_arp.c). */
#ifndef FOU_ARP_H
#define FOU_ARP_H

#include <rte_arp.h>

#include "fou_lcore.h"

/*
 * An ARP frame received on port, its ARP header at off: a request for one
 * of the port's addresses becomes the reply (FOU_FWD, *out_port = port);
 * everything else ends here under its reason. What the frame says about
 * its sender goes to the control thread.
 */
unsigned int fou_arp_input(struct fou_lcore *lc, uint16_t port, struct rte_mbuf *m,
			   uint32_t off, uint16_t *out_port);

/*
 * Fill the empty mbuf m with an ARP frame: op from sha/sip to tha/tip
 * (network order addresses), Ethernet from sha to eth_dst.
 */
void fou_arp_build(struct rte_mbuf *m, const struct rte_ether_addr *eth_dst, uint16_t op,
		   const struct rte_ether_addr *sha, rte_be32_t sip,
		   const struct rte_ether_addr *tha, rte_be32_t tip);

#endif /* FOU_ARP_H */
