/* SPDX-License-Identifier: BSD-3-Clause */
/* Encapsulation into a tunnel (fou_encap.c), for the output step (fou_fwd.h). */
#ifndef FOU_ENCAP_H
#define FOU_ENCAP_H

#include <stdbool.h>

#include "fou_lcore.h"

/*
 * Encapsulate the IP packet m (starting at its header, cut to its length)
 * into tunnel t: prepends the outer IPv4 [+ UDP [+ GUE]] [+ GRE] header, or
 * for an ip6tnl / ip6gre IPv6 [+ Destination Options] [+ UDP [+ GUE]]
 * [+ GRE]. inner_v6
 * says the family; the inner TTL/ECN are final; port is where it leaves (its
 * checksum offloads are used, unless sw_csum: the outer packet is
 * fragmented next, and a port would sum each fragment on its own).
 * Returns FOU_FWD or a drop.
 */
unsigned int fou_tunnel_encap(struct fou_lcore *lc, const struct fou_tunnel *t,
			      struct rte_mbuf *m, bool inner_v6, uint16_t port, bool sw_csum);

#endif /* FOU_ENCAP_H */
