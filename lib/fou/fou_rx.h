/* SPDX-License-Identifier: BSD-3-Clause */
/* The receive stage (fou_rx.c), which a context runs on every burst. */
#ifndef FOU_RX_H
#define FOU_RX_H

#include "fou_lcore.h"

/*
 * Classify, decapsulate, route, encapsulate and rewrite n received
 * packets; a packet that needs an ICMP error leaves as the error.
 * Forwarded packets are moved to the front of pkts with their egress port
 * in out_port[], among them those the context must fragment (lc->frag's
 * jobs, in the same order); dropped ones are freed and counted. *gro says whether the
 * port's GRO was on for this burst (then the packets carry their GRO tag).
 * Returns the number forwarded.
 */
uint16_t fou_rx_burst(struct fou_lcore *lc, uint16_t rx_port, struct rte_mbuf **pkts,
		      uint16_t n, uint16_t *out_port, bool *gro);

#endif /* FOU_RX_H */
