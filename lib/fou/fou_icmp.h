/* SPDX-License-Identifier: BSD-3-Clause */
/* The ICMP messages the gateway sends: errors and echo replies (fou_icmp.c). */
#ifndef FOU_ICMP_H
#define FOU_ICMP_H

#include "fou_lcore.h"

/*
 * Turn m, which holds an IPv4 / IPv6 packet at off of tot bytes that cannot
 * be forwarded or delivered, into the ICMP error kind to its source, routed
 * like any packet. info is the message's second word (host order): the MTU
 * of "fragmentation needed" / "packet too big", the pointer of a parameter
 * problem, else 0. local: the packet was addressed to the gateway, so the
 * error comes from that address. Returns FOU_FWD with *out_port set, or the
 * drop reason (fallback when the rules forbid an error about this packet).
 */
unsigned int fou_icmp4_error(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off,
			     uint32_t tot, enum fou_icmp_kind kind, uint32_t info, bool local,
			     unsigned int fallback, uint16_t *out_port);
unsigned int fou_icmp6_error(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off,
			     uint32_t tot, enum fou_icmp_kind kind, uint32_t info, bool local,
			     unsigned int fallback, uint16_t *out_port);

/*
 * Turn m, an ICMP / ICMPv6 echo request to one of our addresses (IP header
 * at off, hl bytes, tot in all; its checksum verified, its 8-byte ICMP header
 * in the first segment), into the echo reply, routed back to its source.
 * ecn: the request's ECN field (as decapsulation left it), which the reply
 * copies. Returns FOU_FWD with *out_port set, or why the reply cannot leave.
 */
unsigned int fou_icmp4_echo(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off, uint32_t hl,
			    uint32_t tot, uint8_t ecn, uint16_t *out_port);
unsigned int fou_icmp6_echo(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off, uint32_t tot,
			    uint8_t ecn, uint16_t *out_port);

#endif /* FOU_ICMP_H */
