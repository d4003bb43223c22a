/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 Neighbour Discovery (RFC 4861): the workers' answer to solicitations
 * and what they take from advertisements, the frames the control thread
 * sends (fou_ndisc.c).
 */
#ifndef FOU_NDISC_H
#define FOU_NDISC_H

#include <rte_ip.h>

#include "fou_lcore.h"
#include "fou_nd.h"

#define FOU_NDISC_NS 135
#define FOU_NDISC_NA 136
#define FOU_NDISC_NA_ROUTER 0x80000000u
#define FOU_NDISC_NA_SOLICITED 0x40000000u
#define FOU_NDISC_NA_OVERRIDE 0x20000000u

/*
 * Whether the IPv6 packet at off (its header in the first segment, its
 * length checked) goes to fou_ndisc_input(): a Neighbour Solicitation or
 * Advertisement right after the IPv6 header (no extension header), to a
 * group, to a link-local address or to one of our addresses. It comes
 * before the checks that refuse link-local and unspecified sources and
 * group destinations, which ND uses.
 */
static inline bool
fou_ndisc_match(const struct fou_gw *gw, const struct rte_mbuf *m, uint32_t off,
		const struct rte_ipv6_hdr *ip6)
{
	const uint8_t *d = ip6->dst_addr;
	uint8_t type;

	if (ip6->proto != IPPROTO_ICMPV6 || ip6->payload_len == 0 ||
	    off + sizeof(*ip6) >= rte_pktmbuf_data_len(m))
		return false;
	type = *rte_pktmbuf_mtod_offset(m, const uint8_t *, off + sizeof(*ip6));
	if (type != FOU_NDISC_NS && type != FOU_NDISC_NA)
		return false;
	return d[0] == 0xff || (d[0] == 0xfe && (d[1] & 0xc0) == 0x80) ||
	       fou_addr_mine(gw, -1, AF_INET6, d);
}

/*
 * A Neighbour Solicitation or Advertisement received on port, its IPv6
 * header at off (fou_ndisc_match()): validated as RFC 4861 7.1 and Linux'
 * ndisc_rcv; a solicitation for one of the port's addresses becomes the
 * advertisement that answers it (FOU_FWD, *out_port = port); everything
 * else ends here under its reason. What the message says about a
 * neighbour goes to the control thread.
 */
unsigned int fou_ndisc_input(struct fou_lcore *lc, uint16_t port, struct rte_mbuf *m,
			     uint32_t off, uint16_t *out_port);

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
