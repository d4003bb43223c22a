/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 Neighbour Discovery (RFC 4861) frames: the solicitations and
 * advertisements the gateway sends, hop limit 255 as 7.1 requires of what
 * a receiver accepts.
 */
#include <rte_ip.h>

#include "fou_hdr.h"
#include "fou_ndisc.h"

#define FOU_NDISC_HOPS 255
#define FOU_NDISC_OPT_SLLA 1
#define FOU_NDISC_OPT_TLLA 2

/* Ethernet + IPv6 + ICMPv6 of len bytes (type, code, checksum, 4 bytes,
 * the target, one link-layer address option); returns the ICMPv6 header. */
static uint8_t *
fou_ndisc_frame(struct rte_mbuf *m, const struct rte_ether_addr *src_mac,
		const struct rte_ether_addr *dst_mac, const uint8_t *src, const uint8_t *dst)
{
	const uint16_t len = 4 + 4 + 16 + 8;
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip6;

	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*ip6) + len);
	ip6 = (struct rte_ipv6_hdr *)(eth + 1);
	eth->dst_addr = *dst_mac;
	eth->src_addr = *src_mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	*ip6 = (struct rte_ipv6_hdr){
		.vtc_flow = rte_cpu_to_be_32(6u << 28),
		.payload_len = rte_cpu_to_be_16(len),
		.proto = IPPROTO_ICMPV6,
		.hop_limits = FOU_NDISC_HOPS,
	};
	memcpy(ip6->src_addr, src, 16);
	memcpy(ip6->dst_addr, dst, 16);
	m->l2_len = sizeof(*eth);
	m->l3_len = sizeof(*ip6);
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_ICMP;
	return (uint8_t *)(ip6 + 1);
}

/* The ICMPv6 checksum, once the message is complete. */
static void
fou_ndisc_cksum(struct rte_mbuf *m)
{
	struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *,
							   sizeof(struct rte_ether_hdr));
	uint8_t *icmp = (uint8_t *)(ip6 + 1);
	uint16_t c;

	icmp[2] = 0;
	icmp[3] = 0;
	c = (uint16_t)~fou_cksum_fold(m, sizeof(struct rte_ether_hdr) + sizeof(*ip6),
				      rte_be_to_cpu_16(ip6->payload_len),
				      rte_ipv6_phdr_cksum(ip6, 0));
	memcpy(icmp + 2, &c, 2);
}

void
fou_ndisc_build_ns(struct rte_mbuf *m, const struct rte_ether_addr *mac, const uint8_t *src,
		   const uint8_t *target, const struct rte_ether_addr *ucast)
{
	uint8_t dst[16] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
	struct rte_ether_addr dmac = { .addr_bytes = { 0x33, 0x33, 0xff } };
	uint8_t *icmp;

	if (ucast != NULL) {
		memcpy(dst, target, 16);
		dmac = *ucast;
	} else {
		memcpy(dst + 13, target + 13, 3);
		memcpy(dmac.addr_bytes + 3, target + 13, 3);
	}
	icmp = fou_ndisc_frame(m, mac, &dmac, src, dst);
	memset(icmp, 0, 8);
	icmp[0] = FOU_NDISC_NS;
	memcpy(icmp + 8, target, 16);
	icmp[24] = FOU_NDISC_OPT_SLLA;
	icmp[25] = 1;
	memcpy(icmp + 26, mac, RTE_ETHER_ADDR_LEN);
	fou_ndisc_cksum(m);
}

void
fou_ndisc_build_na(struct rte_mbuf *m, const struct rte_ether_addr *mac,
		   const uint8_t *target, const uint8_t *dst,
		   const struct rte_ether_addr *dst_mac, uint32_t flags)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	static const struct rte_ether_addr all_nodes_mac = {
		.addr_bytes = { 0x33, 0x33, 0, 0, 0, 1 } };
	rte_be32_t f = rte_cpu_to_be_32(flags);
	uint8_t *icmp;

	icmp = fou_ndisc_frame(m, mac, dst_mac != NULL ? dst_mac : &all_nodes_mac, target,
			       dst != NULL ? dst : all_nodes);
	memset(icmp, 0, 8);
	icmp[0] = FOU_NDISC_NA;
	memcpy(icmp + 4, &f, 4);
	memcpy(icmp + 8, target, 16);
	icmp[24] = FOU_NDISC_OPT_TLLA;
	icmp[25] = 1;
	memcpy(icmp + 26, mac, RTE_ETHER_ADDR_LEN);
	fou_ndisc_cksum(m);
}
