/* SPDX-License-Identifier: BSD-3-Clause */
/* Encapsulation into a tunnel (fou_encap.c), for the output step (fou_fwd.h). */
#ifndef FOU_ENCAP_H
#define FOU_ENCAP_H

#include <stdbool.h>

#include <rte_hash_crc.h>

#include "fou_lcore.h"

/*
 * A hash of the inner flow of the IP packet at off in m (Linux' skb flow
 * hash as far as it goes): the addresses, the protocol and, for a first
 * fragment or an unfragmented packet, the ports. encap-sport auto, the
 * auto flow label and the pick of an ECMP group's member take it.
 */
static __rte_always_inline uint32_t
fou_flow_hash(const struct rte_mbuf *m, uint32_t off, bool inner_v6)
{
	const uint8_t *p = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	uint32_t h, l4;
	uint8_t proto;

	if (!inner_v6) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p;

		h = rte_hash_crc_4byte(ip->src_addr, 0);
		h = rte_hash_crc_4byte(ip->dst_addr, h);
		proto = ip->next_proto_id;
		l4 = (ip->version_ihl & 0xfu) * 4;
		if (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
							   RTE_IPV4_HDR_OFFSET_MASK))
			proto = 0;
	} else {
		const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)p;
		uint64_t addrs[4];	/* rte_hash_crc reads 8 bytes at a time, aligned */

		memcpy(addrs, ip6->src_addr, sizeof(addrs));
		h = rte_hash_crc(addrs, sizeof(addrs), 0);
		proto = ip6->proto;
		l4 = sizeof(*ip6);
	}
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_SCTP ||
	    proto == IPPROTO_UDPLITE) {
		uint32_t buf, v;
		/* the same port for a flow however the packet is segmented */
		const void *ports = rte_pktmbuf_read(m, off + l4, sizeof(buf), &buf);

		if (ports != NULL) {
			memcpy(&v, ports, sizeof(v));
			h = rte_hash_crc_4byte(v, h);
		}
	}
	return rte_hash_crc_4byte(proto, h);
}

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
