/* SPDX-License-Identifier: BSD-3-Clause */
/* Delivery to the gateway's own addresses (fou_local.c). */
#ifndef FOU_LOCAL_H
#define FOU_LOCAL_H

#include "fou_lcore.h"

/* An IP packet to one of our addresses that no tunnel takes, and how it came. */
struct fou_local {
	uint32_t off;		/* its IP header in the frame */
	uint32_t hl;		/* its IP header length (40 for IPv6) */
	uint32_t tot;		/* its IP length, within the frame */
	uint8_t ecn;		/* its ECN field (for an inner packet, after decapsulation) */
	bool inner;		/* decapsulated: what it is dropped for is inner_local */
	bool l2_group;		/* in a broadcast or multicast frame: no error about it */
	uint16_t rx_port;	/* an outer packet's: its kernel interface (--punt) takes
				 * what the gateway does not */
	uint32_t tun;		/* an inner packet's: the tunnel it came out of, index + 1;
				 * 0: none (a FOU port's fallback) */
};

/*
 * What Linux' local input answers, for the IPv4 packet p in m: an echo
 * reply, or a protocol / port unreachable; the ICMP errors the gateway acts
 * on (one day) and what it does not answer are counted. With a kernel
 * interface on the receiving port, an outer packet that is not an echo
 * request goes up there instead (FOU_PUNTED). An outer packet
 * comes here when it is neither UDP nor a plain tunnel protocol that a
 * tunnel takes; an inner one, whatever it carries. Returns FOU_FWD with
 * *out_port set (m is the answer), or the drop reason.
 */
unsigned int fou_local4(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_local *p,
			uint16_t *out_port);
/* UDP to a port that is not a FOU port, the datagram (ulen bytes) checked:
 * port unreachable, as __udp4_lib_rcv sends it. */
unsigned int fou_local4_port_unreach(struct fou_lcore *lc, struct rte_mbuf *m,
				     const struct fou_local *p, uint32_t ulen, uint16_t *out_port);
/* The same for an IPv6 packet (FOU over IPv6 was taken before: the receive
 * path's fou_rx_local6()). */
unsigned int fou_local6(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_local *p,
			uint16_t *out_port);

#endif /* FOU_LOCAL_H */
