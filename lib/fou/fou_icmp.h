/* SPDX-License-Identifier: BSD-3-Clause */
/* ICMP errors about packets that cannot be forwarded (fou_icmp.c). */
#ifndef FOU_ICMP_H
#define FOU_ICMP_H

#include "fou_lcore.h"

/*
 * Turn m, which holds an IPv4 / IPv6 packet at off of tot bytes that cannot
 * be forwarded, into an ICMP error to its source, routed like any packet.
 * Returns FOU_FWD with *out_port set, or the drop reason (fallback when the
 * rules forbid an error about this packet).
 */
unsigned int fou_icmp4_error(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off,
			     uint32_t tot, enum fou_icmp_kind kind, uint16_t mtu,
			     unsigned int fallback, uint16_t *out_port);
unsigned int fou_icmp6_error(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off,
			     uint32_t tot, enum fou_icmp_kind kind, uint32_t mtu,
			     unsigned int fallback, uint16_t *out_port);

#endif /* FOU_ICMP_H */
