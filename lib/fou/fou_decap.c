/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive path: classify a frame, remove Ethernet + outer IPv4 + UDP
 * (+ GRE), check the inner packet, route it, rewrite Ethernet for the next
 * hop. Runs on worker lcores: no locks, no logs, no allocation. Every check
 * reads only bytes it has proven to be inside the frame.
 *
 * The order of the checks follows Linux (ip_rcv, udp_rcv, fou_udp_recv,
 * gre_parse_header, ip_tunnel_rcv, ip_forward / ip6_forward), so a packet
 * with several faults is counted where Linux would have dropped it.
 */
#include <sys/socket.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_prefetch.h>

#include "fou_hdr.h"
#include "fou_private.h"

/* Verdict of one packet: a drop reason, or forward. */
#define FOU_FWD FOU_DROP_MAX

/* What the outer layers leave for the inner packet handler. */
struct fou_inner_ctx {
	uint32_t off;		/* offset of the inner IP header in the frame */
	uint32_t len;		/* bytes of tunnel payload from off */
	uint8_t outer_ecn;
	uint8_t slot;		/* FOU port slot, for counting */
};

static inline const struct fou_nexthop *
fou_route4(const struct fou_gw *gw, rte_be32_t dst)
{
	uint32_t nh;

	if (rte_lpm_lookup(gw->lpm4, rte_be_to_cpu_32(dst), &nh) == 0)
		return &gw->nh[nh];
	nh = __atomic_load_n(&gw->default_nh4, __ATOMIC_ACQUIRE);
	return nh != 0 ? &gw->nh[nh - 1] : NULL;
}

static inline const struct fou_nexthop *
fou_route6(const struct fou_gw *gw, const uint8_t *dst)
{
	uint32_t nh;

	if (rte_lpm6_lookup(gw->lpm6, dst, &nh) == 0)
		return &gw->nh[nh];
	nh = __atomic_load_n(&gw->default_nh6, __ATOMIC_ACQUIRE);
	return nh != 0 ? &gw->nh[nh - 1] : NULL;
}

/* rte_hash position of the next hop's MAC, or < 0. */
static inline int32_t
fou_neigh_find(const struct fou_gw *gw, const struct fou_nexthop *nh, const void *dst)
{
	struct fou_neigh_key key;

	fou_neigh_key_make(&key, nh->port, nh->family,
			   nh->type == FOU_NH_GATEWAY ?
			   (nh->family == AF_INET ? (const void *)&nh->gw.v4 :
			    (const void *)nh->gw.v6) : dst);
	return rte_hash_lookup(gw->neigh, &key);
}

/*
 * After the route lookup, as ip_forward / ip6_forward check: a route, not
 * to us, TTL or hop limit left, fits the egress MTU, a neighbour to send to.
 */
static inline unsigned int
fou_forward_check(const struct fou_gw *gw, const struct fou_nexthop *nh, uint8_t ttl,
		  uint32_t len, const void *dst, int32_t *neigh)
{
	if (nh == NULL)
		return FOU_DROP_NO_ROUTE;
	if (nh->type == FOU_NH_LOCAL)
		return FOU_DROP_INNER_LOCAL;
	if (ttl <= 1)
		return FOU_DROP_TTL_EXCEEDED;
	if (len > gw->iface[nh->port].mtu)
		return FOU_DROP_MTU_EXCEEDED;
	*neigh = fou_neigh_find(gw, nh, dst);
	return *neigh < 0 ? FOU_DROP_NO_NEIGH : FOU_FWD;
}

/* Linux' martian rules (ip_route_input_slow): a source that never sends, */
static inline bool
fou_martian4_src(rte_be32_t src_be)
{
	uint32_t src = rte_be_to_cpu_32(src_be);

	return (src >> 28) == 0xe || src == 0xffffffff || (src >> 24) == 0 ||
	       (src >> 24) == 127;
}

/* ... and a packet never forwarded. */
static inline bool
fou_martian4(rte_be32_t src_be, rte_be32_t dst_be)
{
	uint32_t dst = rte_be_to_cpu_32(dst_be);

	return fou_martian4_src(src_be) || (dst >> 28) == 0xe || dst == 0xffffffff ||
	       (dst >> 24) == 0 || (dst >> 24) == 127;
}

/* ip6_forward: multicast, loopback, unspecified and link-local stay put. */
static inline bool
fou_martian6_addr(const uint8_t *a)
{
	static const uint8_t zero[15];

	if (a[0] == 0xff || (a[0] == 0xfe && (a[1] & 0xc0) == 0x80))
		return true;
	return memcmp(a, zero, 15) == 0 && (a[15] == 0 || a[15] == 1);
}

/* Cut the packet to len bytes, freeing segments past the end. */
static inline void
fou_mbuf_cut(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *seg = m;
	uint32_t left = len;
	uint16_t nb_segs = 1;

	if (likely(m->pkt_len == len))
		return;
	while (left > seg->data_len) {
		left -= seg->data_len;
		seg = seg->next;
		nb_segs++;
	}
	seg->data_len = (uint16_t)left;
	if (seg->next != NULL) {
		rte_pktmbuf_free(seg->next);
		seg->next = NULL;
	}
	m->nb_segs = nb_segs;
	m->pkt_len = len;
}

/* Replace everything before the inner packet by a new Ethernet header. */
static inline void
fou_output(const struct fou_gw *gw, struct rte_mbuf *m, const struct fou_inner_ctx *in,
	   uint32_t inner_len, uint16_t ether_type, uint32_t l3_len, uint32_t ptype,
	   const struct fou_nexthop *nh, int32_t neigh)
{
	struct rte_ether_hdr *eth;

	rte_pktmbuf_adj(m, (uint16_t)(in->off - RTE_ETHER_HDR_LEN));
	fou_mbuf_cut(m, RTE_ETHER_HDR_LEN + inner_len);
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	rte_ether_addr_copy(&gw->neigh_mac[neigh], &eth->dst_addr);
	rte_ether_addr_copy(&gw->iface[nh->port].mac, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(ether_type);
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = l3_len;
	/* the port's checksum verdicts were about the outer headers */
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK |
			 RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK | RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD |
			 RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED |
			 RTE_MBUF_F_RX_QINQ | RTE_MBUF_F_RX_QINQ_STRIPPED);
	m->packet_type = RTE_PTYPE_L2_ETHER | ptype;
}

static inline void
fou_count_decap(struct fou_lcore_stats *st, const struct fou_inner_ctx *in, enum fou_inner kind)
{
	FOU_STAT_ADD(st->decap[in->slot], 1);
	FOU_STAT_ADD(st->decap_inner[kind], 1);
}

static inline unsigned int
fou_inner4(const struct fou_gw *gw, struct fou_lcore_stats *st, struct rte_mbuf *m,
	   const struct fou_inner_ctx *in, uint16_t *out_port)
{
	struct rte_ipv4_hdr *ip;
	const struct fou_nexthop *nh;
	uint32_t hl, tot;
	uint16_t old_w0, old_w4, cksum;
	uint8_t ecn;
	int32_t neigh;
	unsigned int r;

	if (in->len < sizeof(*ip))
		return FOU_DROP_INNER_TRUNCATED;
	if (in->off + sizeof(*ip) > m->data_len)
		return FOU_DROP_HDR_SPLIT;
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, in->off);
	if ((ip->version_ihl >> 4) != 4 || (ip->version_ihl & 0xf) < 5)
		return FOU_DROP_INNER_HDR_BAD;
	hl = (ip->version_ihl & 0xfu) * 4;
	if (hl > in->len)
		return FOU_DROP_INNER_TRUNCATED;
	if (in->off + hl > m->data_len)
		return FOU_DROP_HDR_SPLIT;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < hl || tot > in->len)
		return FOU_DROP_INNER_LEN_BAD;
	if (rte_raw_cksum(ip, hl) != 0xffff)
		return FOU_DROP_INNER_CKSUM_BAD;
	ecn = fou_ecn_decap(in->outer_ecn, ip->type_of_service & 3);
	if (ecn == FOU_ECN_DROP)
		return FOU_DROP_ECN_DROP;
	fou_count_decap(st, in, FOU_INNER_IPV4);

	if (fou_martian4(ip->src_addr, ip->dst_addr))
		return FOU_DROP_INNER_MARTIAN;
	nh = fou_route4(gw, ip->dst_addr);
	r = fou_forward_check(gw, nh, ip->time_to_live, tot, &ip->dst_addr, &neigh);
	if (r != FOU_FWD)
		return r;

	/* TTL and ECN change; patch the checksum for both words (RFC 1624) */
	memcpy(&old_w0, ip, 2);
	memcpy(&old_w4, &ip->time_to_live, 2);
	ip->type_of_service = (uint8_t)((ip->type_of_service & ~3u) | ecn);
	ip->time_to_live--;
	cksum = fou_cksum_update16(ip->hdr_checksum, old_w0, *(const unaligned_uint16_t *)ip);
	ip->hdr_checksum = fou_cksum_update16(cksum, old_w4,
					      *(const unaligned_uint16_t *)&ip->time_to_live);

	fou_output(gw, m, in, tot, RTE_ETHER_TYPE_IPV4, hl,
		   hl == sizeof(*ip) ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV4_EXT, nh, neigh);
	*out_port = nh->port;
	return FOU_FWD;
}

static inline unsigned int
fou_inner6(const struct fou_gw *gw, struct fou_lcore_stats *st, struct rte_mbuf *m,
	   const struct fou_inner_ctx *in, uint16_t *out_port)
{
	struct rte_ipv6_hdr *ip6;
	const struct fou_nexthop *nh;
	uint32_t tot, vtc;
	uint8_t ecn;
	int32_t neigh;
	unsigned int r;

	if (in->len < sizeof(*ip6))
		return FOU_DROP_INNER_TRUNCATED;
	if (in->off + sizeof(*ip6) > m->data_len)
		return FOU_DROP_HDR_SPLIT;
	ip6 = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, in->off);
	vtc = rte_be_to_cpu_32(ip6->vtc_flow);
	if ((vtc >> 28) != 6)
		return FOU_DROP_INNER_HDR_BAD;
	tot = sizeof(*ip6) + rte_be_to_cpu_16(ip6->payload_len);
	if (tot > in->len)
		return FOU_DROP_INNER_LEN_BAD;
	ecn = fou_ecn_decap(in->outer_ecn, (vtc >> 20) & 3);
	if (ecn == FOU_ECN_DROP)
		return FOU_DROP_ECN_DROP;
	fou_count_decap(st, in, FOU_INNER_IPV6);

	if (fou_martian6_addr(ip6->src_addr) || fou_martian6_addr(ip6->dst_addr))
		return FOU_DROP_INNER_MARTIAN;
	nh = fou_route6(gw, ip6->dst_addr);
	r = fou_forward_check(gw, nh, ip6->hop_limits, tot, ip6->dst_addr, &neigh);
	if (r != FOU_FWD)
		return r;

	ip6->vtc_flow = rte_cpu_to_be_32((vtc & ~(3u << 20)) | ((uint32_t)ecn << 20));
	ip6->hop_limits--;
	fou_output(gw, m, in, tot, RTE_ETHER_TYPE_IPV6, sizeof(*ip6), RTE_PTYPE_L3_IPV6, nh,
		   neigh);
	*out_port = nh->port;
	return FOU_FWD;
}

/*
 * GRE (RFC 2784 + RFC 2890 key and sequence): checks as Linux'
 * gre_parse_header does, then steps in past the header.
 */
static inline unsigned int
fou_gre(const struct rte_mbuf *m, struct fou_inner_ctx *in, uint16_t *proto)
{
	const uint8_t *g;
	uint16_t flags;
	uint32_t hlen;

	if (in->len < 4)
		return FOU_DROP_GRE_TRUNCATED;
	if (in->off + 4 > m->data_len)
		return FOU_DROP_HDR_SPLIT;
	g = rte_pktmbuf_mtod_offset(m, const uint8_t *, in->off);
	flags = (uint16_t)(g[0] << 8 | g[1]);
	if (flags & FOU_GRE_VER_MASK)
		return FOU_DROP_GRE_VERSION;
	if (flags & FOU_GRE_R)
		return FOU_DROP_GRE_ROUTING;
	hlen = 4 + 4 * (!!(flags & FOU_GRE_C) + !!(flags & FOU_GRE_K) + !!(flags & FOU_GRE_S));
	if (in->len < hlen)
		return FOU_DROP_GRE_TRUNCATED;
	if (in->off + hlen > m->data_len)
		return FOU_DROP_HDR_SPLIT;
	if ((flags & FOU_GRE_C) && fou_cksum_fold(m, in->off, in->len, 0) != 0xffff)
		return FOU_DROP_GRE_CKSUM_BAD;
	*proto = (uint16_t)(g[2] << 8 | g[3]);
	in->off += hlen;
	in->len -= hlen;
	return FOU_FWD;
}

static inline unsigned int
fou_rx_one(const struct fou_gw *gw, struct fou_lcore_stats *st, uint16_t rx_port,
	   struct rte_mbuf *m, uint16_t *out_port)
{
	const uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	const uint32_t seg_len = rte_pktmbuf_data_len(m);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)p;
	const struct rte_ipv4_hdr *ip;
	const struct rte_udp_hdr *udp;
	struct fou_inner_ctx in;
	uint32_t off = RTE_ETHER_HDR_LEN, hl, tot, ulen;
	uint16_t etype, gre_proto;
	unsigned int tags, r;
	uint8_t slot;

	if (pkt_len < off)
		return FOU_DROP_ETH_TRUNCATED;
	if (seg_len < off)
		return FOU_DROP_HDR_SPLIT;
	if (rte_is_unicast_ether_addr(&eth->dst_addr) &&
	    !rte_is_same_ether_addr(&eth->dst_addr, &gw->iface[rx_port].mac))
		return FOU_DROP_ETH_OTHER_HOST;
	etype = rte_be_to_cpu_16(eth->ether_type);
	/* 802.1Q, and 802.1ad outside it: the tag is not kept */
	for (tags = 0; tags < 2 && (etype == RTE_ETHER_TYPE_VLAN || etype == RTE_ETHER_TYPE_QINQ);
	     tags++) {
		if (pkt_len < off + sizeof(struct rte_vlan_hdr))
			return FOU_DROP_ETH_TRUNCATED;
		if (seg_len < off + sizeof(struct rte_vlan_hdr))
			return FOU_DROP_HDR_SPLIT;
		etype = rte_be_to_cpu_16(((const struct rte_vlan_hdr *)(p + off))->eth_proto);
		off += sizeof(struct rte_vlan_hdr);
	}
	if (etype != RTE_ETHER_TYPE_IPV4) {
		if (etype == RTE_ETHER_TYPE_ARP)
			return FOU_DROP_ARP;
		if (etype == RTE_ETHER_TYPE_IPV6)
			return FOU_DROP_OUTER_IPV6;
		return FOU_DROP_NOT_IP;
	}

	/* outer IPv4 (ip_rcv_core) */
	if (pkt_len - off < sizeof(*ip))
		return FOU_DROP_IP_TRUNCATED;
	if (seg_len < off + sizeof(*ip))
		return FOU_DROP_HDR_SPLIT;
	ip = (const struct rte_ipv4_hdr *)(p + off);
	if ((ip->version_ihl >> 4) != 4 || (ip->version_ihl & 0xf) < 5)
		return FOU_DROP_IP_HDR_BAD;
	hl = (ip->version_ihl & 0xfu) * 4;
	if (pkt_len - off < hl)
		return FOU_DROP_IP_TRUNCATED;
	if (seg_len < off + hl)
		return FOU_DROP_HDR_SPLIT;
	switch (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) {
	case RTE_MBUF_F_RX_IP_CKSUM_BAD:
		return FOU_DROP_IP_CKSUM_BAD;
	case RTE_MBUF_F_RX_IP_CKSUM_GOOD:
	case RTE_MBUF_F_RX_IP_CKSUM_NONE:
		break;
	default:
		if (rte_raw_cksum(ip, hl) != 0xffff)
			return FOU_DROP_IP_CKSUM_BAD;
	}
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < hl || tot > pkt_len - off)
		return FOU_DROP_IP_LEN_BAD;
	/* ip_route_input_slow: martian source first, then the destination;
	 * for a local one, fib_validate_source refuses our own addresses */
	if (fou_martian4_src(ip->src_addr))
		return FOU_DROP_OUTER_MARTIAN;
	{
		const struct fou_nexthop *nh = fou_route4(gw, ip->dst_addr);

		if (nh == NULL || nh->type != FOU_NH_LOCAL)
			return FOU_DROP_NOT_LOCAL;
		nh = fou_route4(gw, ip->src_addr);
		if (nh != NULL && nh->type == FOU_NH_LOCAL)
			return FOU_DROP_OUTER_MARTIAN;
	}
	if (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
						   RTE_IPV4_HDR_OFFSET_MASK))
		return FOU_DROP_IP_FRAGMENT;
	if (ip->next_proto_id != IPPROTO_UDP)
		return FOU_DROP_LOCAL_NOT_UDP;

	/* UDP (__udp4_lib_rcv): a shorter UDP length trims the datagram */
	if (tot - hl < sizeof(*udp))
		return FOU_DROP_UDP_TRUNCATED;
	if (seg_len < off + hl + sizeof(*udp))
		return FOU_DROP_HDR_SPLIT;
	udp = (const struct rte_udp_hdr *)(p + off + hl);
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (ulen < sizeof(*udp) || ulen > tot - hl)
		return FOU_DROP_UDP_LEN_BAD;
	if (udp->dgram_cksum != 0) {
		switch (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) {
		case RTE_MBUF_F_RX_L4_CKSUM_BAD:
			return FOU_DROP_UDP_CKSUM_BAD;
		case RTE_MBUF_F_RX_L4_CKSUM_GOOD:
		case RTE_MBUF_F_RX_L4_CKSUM_NONE:
			break;
		default:
			if (fou_cksum_fold(m, off + hl, ulen, fou_udp4_phdr_sum(ip, ulen)) !=
			    0xffff)
				return FOU_DROP_UDP_CKSUM_BAD;
		}
	}

	/* FOU (fou_udp_recv): the UDP header goes, the protocol decides */
	slot = __atomic_load_n(&gw->udp_slot[rte_be_to_cpu_16(udp->dst_port)], __ATOMIC_ACQUIRE);
	if (slot == 0)
		return FOU_DROP_FOU_PORT_UNKNOWN;
	in = (struct fou_inner_ctx){
		.off = off + hl + sizeof(*udp),
		.len = ulen - sizeof(*udp),
		.outer_ecn = ip->type_of_service & 3,
		.slot = slot,
	};
	switch (gw->udp[slot].ipproto) {
	case IPPROTO_IPIP:
		return fou_inner4(gw, st, m, &in, out_port);
	case IPPROTO_IPV6:
		return fou_inner6(gw, st, m, &in, out_port);
	case IPPROTO_GRE:
		r = fou_gre(m, &in, &gre_proto);
		if (r != FOU_FWD)
			return r;
		if (gre_proto == RTE_ETHER_TYPE_IPV4)
			return fou_inner4(gw, st, m, &in, out_port);
		if (gre_proto == RTE_ETHER_TYPE_IPV6)
			return fou_inner6(gw, st, m, &in, out_port);
		return FOU_DROP_GRE_PROTO_UNKNOWN;
	default:
		return FOU_DROP_FOU_PROTO_UNHANDLED;
	}
}

#define FOU_PREFETCH_OFFSET 3

uint16_t
fou_rx_burst(const struct fou_gw *gw, struct fou_lcore_stats *st, uint16_t rx_port,
	     struct rte_mbuf **pkts, uint16_t n, uint16_t *out_port)
{
	struct rte_mbuf *drop[FOU_BURST];
	uint16_t i, nb_fwd = 0, nb_drop = 0;

	FOU_STAT_ADD(st->rx[rx_port], n);
	for (i = 0; i < n && i < FOU_PREFETCH_OFFSET; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		unsigned int r;

		if (i + FOU_PREFETCH_OFFSET < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + FOU_PREFETCH_OFFSET], void *));
		r = fou_rx_one(gw, st, rx_port, m, &out_port[nb_fwd]);
		if (likely(r == FOU_FWD)) {
			pkts[nb_fwd++] = m;
			continue;
		}
		FOU_STAT_ADD(st->drop[r], 1);
		drop[nb_drop++] = m;
		if (nb_drop == FOU_BURST) {
			rte_pktmbuf_free_bulk(drop, nb_drop);
			nb_drop = 0;
		}
	}
	if (nb_drop != 0)
		rte_pktmbuf_free_bulk(drop, nb_drop);
	return nb_fwd;
}
