/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Encapsulation into a tunnel, as Linux' ip_tunnel_xmit / ip_tunnel_encap
 * (fou_build_udp, gre_build_header) build it: the tunnel's pre-built outer
 * header is copied in front of the inner packet and patched for this
 * packet (lengths, TOS/ECN, TTL, DF, ID, source port, GRE sequence, the
 * checksums); over IPv6 as ip6_tnl_xmit / ip6gre_xmit with fou6_build_udp
 * and gue6_build_udp. Called by the output step (fou_fwd.h's fou_adj_send()). Data
 * path: no locks, no logs, no allocation.
 */
#include <rte_hash_crc.h>

#include "fou_encap.h"
#include "fou_hdr.h"

/* encap-sport auto (udp_flow_src_port): the flow hash mapped onto the
 * configured range [MIN, MAX]. */
static inline uint16_t
fou_flow_sport(const struct fou_gw *gw, uint32_t h)
{
	uint16_t min, max;
	uint32_t range;

	fou_sport_range_load(gw, &min, &max);
	range = (uint32_t)max - min + 1;
	return (uint16_t)(min + (((uint64_t)h * range) >> 32));
}

/* INET_ECN_encapsulate: the outer ECN is the inner's, but CE becomes ECT(0). */
static inline uint8_t
fou_ecn_encap(uint8_t outer_ds, uint8_t inner_ds)
{
	uint8_t ecn = inner_ds & 3;

	if (ecn == FOU_ECN_CE)
		ecn = FOU_ECN_ECT0;
	return (uint8_t)((outer_ds & ~3u) | ecn);
}

/* The GRE header's protocol, sequence number and checksum (gre_build_header). */
static inline void
fou_gre_finish(const struct fou_tunnel *t, struct rte_mbuf *m, uint8_t *h, uint32_t inner_len,
	       bool inner_v6)
{
	uint8_t *g = h + t->gre_off;
	uint16_t proto = inner_v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;

	g[2] = (uint8_t)(proto >> 8);
	g[3] = (uint8_t)proto;
	if (t->flags & FOU_TUN_GRE_SEQ) {
		uint32_t seq = __atomic_fetch_add((uint32_t *)(uintptr_t)&t->seq, 1,
						  __ATOMIC_RELAXED);
		rte_be32_t be = rte_cpu_to_be_32(seq);

		memcpy(h + t->seq_off, &be, 4);
	}
	if (t->flags & FOU_TUN_GRE_CSUM) {
		uint16_t c = (uint16_t)~fou_cksum_fold(m, t->gre_off,
						       t->hdr_len - t->gre_off + inner_len, 0);

		memcpy(g + 4, &c, 2);
	}
}

/*
 * Into an IPv6-underlay tunnel, as ip6_tnl_xmit / ip6gre_xmit with
 * fou6_build_udp / gue6_build_udp: the template of t->v6 patched with the
 * payload length, traffic class (configured or inherited, ECN as
 * INET_ECN_encapsulate), flow label, hop limit, mode any's protocol, UDP
 * length, source port and checksum (over the IPv6 pseudo header, next
 * header 17 and the UDP length; by the port where it can), GRE's fields.
 *
 * The flow label, as ip6_make_flowlabel with Linux' default auto flow
 * labels: the configured one; with flowlabel inherit an inner IPv6
 * packet's; where that leaves 0, 20 bits of the inner flow's hash (never
 * 0), so that a flow keeps one label and flows spread.
 */
static __rte_noinline unsigned int
fou_tunnel_encap6(struct fou_lcore *lc, const struct fou_tunnel *t, struct rte_mbuf *m,
		  bool inner_v6, uint8_t tx_ol)
{
	const struct fou_tunnel6 *t6 = &t->v6;
	struct fou_tun_stats *ts = &lc->tun_st[t->idx];
	const uint8_t *inner = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint32_t inner_len = rte_pktmbuf_pkt_len(m);
	const uint8_t flags = t->flags;
	uint32_t flow = t6->flow, hash = 0;
	struct rte_ipv6_hdr *ip6;
	uint8_t *h, hop, ds;
	bool auto_label;

	if (!inner_v6) {
		const struct rte_ipv4_hdr *iip = (const struct rte_ipv4_hdr *)inner;

		hop = iip->time_to_live;
		ds = iip->type_of_service;
	} else {
		uint32_t vtc = rte_be_to_cpu_32(((const struct rte_ipv6_hdr *)inner)->vtc_flow);

		hop = ((const struct rte_ipv6_hdr *)inner)->hop_limits;
		ds = (uint8_t)(vtc >> 20);
		if (t6->flags6 & FOU_TUN6_FLOW_INHERIT)
			flow |= vtc & 0xfffff;
	}
	auto_label = (t6->flags6 & (FOU_TUN6_FLOW_AUTO | FOU_TUN6_FLOW_INHERIT)) &&
		     (flow & 0xfffff) == 0;
	if ((flags & FOU_TUN_SPORT_AUTO) || auto_label)
		hash = fou_flow_hash(m, 0, inner_v6);
	if (auto_label) {
		uint32_t l = (hash ^ (hash >> 20)) & 0xfffff;

		flow |= l != 0 ? l : 1;
	}
	h = (uint8_t *)rte_pktmbuf_prepend(m, t->hdr_len);
	if (unlikely(h == NULL))
		return FOU_DROP_NO_HEADROOM;
	memcpy(h, t6->hdr, t->hdr_len);
	ip6 = (struct rte_ipv6_hdr *)h;
	ip6->payload_len = rte_cpu_to_be_16((uint16_t)(t->hdr_len - sizeof(*ip6) + inner_len));
	ds = fou_ecn_encap((flags & FOU_TUN_TOS_INHERIT) ? ds : (uint8_t)(t6->flow >> 20), ds);
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)ds << 20 | (flow & 0xfffff));
	if (flags & FOU_TUN_TTL_INHERIT)
		ip6->hop_limits = hop;
	if ((t6->flags6 & FOU_TUN6_ANY) && t6->proto_off != 0)
		h[t6->proto_off] = inner_v6 ? IPPROTO_IPV6 : IPPROTO_IPIP;
	m->l3_len = t6->l4_off;
	if (flags & FOU_TUN_FOU) {
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(h + t6->l4_off);
		uint16_t ulen = (uint16_t)(t->hdr_len - t6->l4_off + inner_len);

		udp->dgram_len = rte_cpu_to_be_16(ulen);
		if (flags & FOU_TUN_SPORT_AUTO)
			udp->src_port = rte_cpu_to_be_16(fou_flow_sport(lc->gw, hash));
		if (t->gre_off != 0)
			fou_gre_finish(t, m, h, inner_len, inner_v6);
		if ((flags & FOU_TUN_UDP_CSUM) && (tx_ol & FOU_TXOL_UDP6)) {
			/* the port sums the datagram onto the pseudo header's
			 * sum (next header 17, the UDP length: not the IPv6
			 * payload length, which counts the Destination Options) */
			udp->dgram_cksum = __rte_raw_cksum_reduce(fou_udp6_phdr_sum(ip6, ulen));
			m->l4_len = sizeof(*udp);
			m->ol_flags |= RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
		} else if (flags & FOU_TUN_UDP_CSUM) {
			uint16_t c = (uint16_t)~fou_cksum_fold(m, t6->l4_off, ulen,
							       fou_udp6_phdr_sum(ip6, ulen));

			/* RFC 8200: a computed zero is sent as all ones */
			udp->dgram_cksum = c == 0 ? 0xffff : c;
		}
	} else if (t->gre_off != 0) {
		fou_gre_finish(t, m, h, inner_len, inner_v6);
	}
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6_EXT_UNKNOWN |
			 ((flags & FOU_TUN_FOU) ? RTE_PTYPE_L4_UDP : 0);
	FOU_STAT_ADD(ts->tx_packets, 1);
	FOU_STAT_ADD(ts->tx_bytes, inner_len);
	return FOU_FWD;
}

unsigned int
fou_tunnel_encap(struct fou_lcore *lc, const struct fou_tunnel *t, struct rte_mbuf *m,
		 bool inner_v6, uint16_t port, bool sw_csum)
{
	const struct fou_gw *gw = lc->gw;
	struct fou_tun_stats *ts = &lc->tun_st[t->idx];
	const uint8_t tx_ol = sw_csum ? 0 : gw->iface[port].tx_ol;
	const uint8_t *inner = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint32_t inner_len = rte_pktmbuf_pkt_len(m);
	struct rte_ipv4_hdr *ip;
	uint8_t *h, ttl, ds;
	uint16_t sport = 0;
	bool df = false;

	if (unlikely(fou_tunnel_is6(t)))
		return fou_tunnel_encap6(lc, t, m, inner_v6, tx_ol);
	if (!inner_v6) {
		const struct rte_ipv4_hdr *iip = (const struct rte_ipv4_hdr *)inner;

		ttl = iip->time_to_live;
		ds = iip->type_of_service;
		df = (iip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG)) != 0;
	} else {
		uint32_t vtc = rte_be_to_cpu_32(((const struct rte_ipv6_hdr *)inner)->vtc_flow);

		ttl = ((const struct rte_ipv6_hdr *)inner)->hop_limits;
		ds = (uint8_t)(vtc >> 20);
	}
	if (t->flags & FOU_TUN_SPORT_AUTO)
		sport = fou_flow_sport(gw, fou_flow_hash(m, 0, inner_v6));

	h = (uint8_t *)rte_pktmbuf_prepend(m, t->hdr_len);
	if (unlikely(h == NULL))
		return FOU_DROP_NO_HEADROOM;
	memcpy(h, t->hdr, t->hdr_len);
	ip = (struct rte_ipv4_hdr *)h;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(t->hdr_len + inner_len));
	ip->type_of_service = fou_ecn_encap((t->flags & FOU_TUN_TOS_INHERIT) ?
					    ds : ip->type_of_service, ds);
	if (t->flags & FOU_TUN_TTL_INHERIT)
		ip->time_to_live = ttl;
	if (df)
		ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->packet_id = rte_cpu_to_be_16(lc->ip_id);
	lc->ip_id++;
	m->l3_len = sizeof(*ip);
	if (tx_ol & FOU_TXOL_IPV4) {
		/* the port fills hdr_checksum (0 in the template) */
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	} else {
		ip->hdr_checksum = (uint16_t)~fou_ip4_hdr_sum(ip, sizeof(*ip));
	}

	if (t->flags & FOU_TUN_FOU) {
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

		udp->dgram_len = rte_cpu_to_be_16((uint16_t)(t->hdr_len - sizeof(*ip) +
							     inner_len));
		if (t->flags & FOU_TUN_SPORT_AUTO)
			udp->src_port = rte_cpu_to_be_16(sport);
	}
	if (t->gre_off != 0)
		fou_gre_finish(t, m, h, inner_len, inner_v6);
	if (t->flags & FOU_TUN_UDP_CSUM) {
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
		uint16_t ulen = rte_be_to_cpu_16(udp->dgram_len);

		if (tx_ol & FOU_TXOL_UDP) {
			/* the port sums the datagram onto the pseudo header's sum
			 * (and sends a zero result as all ones) */
			udp->dgram_cksum = rte_ipv4_phdr_cksum(ip, RTE_MBUF_F_TX_IPV4);
			m->l4_len = sizeof(*udp);
			m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_UDP_CKSUM;
		} else {
			uint16_t c = (uint16_t)~fou_cksum_fold(m, sizeof(*ip), ulen,
							       fou_udp4_phdr_sum(ip, ulen));

			/* RFC 768: a computed zero is sent as all ones */
			udp->dgram_cksum = c == 0 ? 0xffff : c;
		}
	}
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			 ((t->flags & FOU_TUN_FOU) ? RTE_PTYPE_L4_UDP : 0);
	FOU_STAT_ADD(ts->tx_packets, 1);
	FOU_STAT_ADD(ts->tx_bytes, inner_len);
	return FOU_FWD;
}
