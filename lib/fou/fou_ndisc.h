/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6 Neighbour Discovery (RFC 4861): the frames the gateway sends (fou_ndisc.c). */
#ifndef FOU_NDISC_H
#define FOU_NDISC_H

#include "fou_lcore.h"

#define FOU_NDISC_NS 135
#define FOU_NDISC_NA 136
#define FOU_NDISC_NA_ROUTER 0x80000000u
#define FOU_NDISC_NA_SOLICITED 0x40000000u
#define FOU_NDISC_NA_OVERRIDE 0x20000000u

/*
 * Fill the empty mbuf m with a Neighbour Solicitation from src (our
 * address on the port with MAC mac) for target, with our MAC as source
 * link-layer option: to target's solicited-node group, or to target itself
 * at ucast when that is given (a reachability probe).
 */
void fou_ndisc_build_ns(struct rte_mbuf *m, const struct rte_ether_addr *mac, const uint8_t *src,
			const uint8_t *target, const struct rte_ether_addr *ucast);

/*
 * Fill the empty mbuf m with a Neighbour Advertisement for our address
 * target (also its source), flags FOU_NDISC_NA_*, our MAC as target
 * link-layer option: to dst at dst_mac, or to all nodes (ff02::1) when
 * they are NULL (an unsolicited advertisement).
 */
void fou_ndisc_build_na(struct rte_mbuf *m, const struct rte_ether_addr *mac,
			const uint8_t *target, const uint8_t *dst,
			const struct rte_ether_addr *dst_mac, uint32_t flags);

#endif /* FOU_NDISC_H */
