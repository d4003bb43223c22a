/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive path: classify a frame; to a local address, remove outer
 * IPv4 + UDP (+ GRE) and check the inner packet; route the inner packet,
 * or a received IP packet for somewhere else, to a port or into a tunnel;
 * rewrite Ethernet for the next hop. The first stage of a context's burst
 * (fou_lcore.c calls it); runs on worker lcores: no locks, no logs, no
 * allocation. Every check reads only bytes it has proven to be inside the
 * frame.
 *
 * The order of the checks follows Linux (ip_rcv, udp_rcv, fou_udp_recv,
 * gre_parse_header, ip_tunnel_rcv, ip_forward / ip6_forward), so a packet
 * with several faults is counted where Linux would have dropped it.
 */
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>

#include "fou_fwd.h"
#include "fou_frag.h"
#include "fou_icmp.h"
#include "fou_arp.h"
#include "fou_local.h"
#include "fou_ndisc.h"
#include "fou_pmtu.h"
#include "fou_reasm.h"
#include "fou_punt.h"
#include "fou_rx.h"

/* fib_validate_source: one of our addresses, or a connected network's
 * broadcast address, never arrives as a source (the local set holds both). */
static inline bool
fou_src4_ours(const struct fou_gw *gw, rte_be32_t src)
{
	return fou_own4(gw, src) != NULL;
}

/* What the outer layers leave for the inner packet handler. */
struct fou_inner_ctx {
	uint32_t off;		/* offset of the inner IP header in the frame */
	uint32_t len;		/* bytes of tunnel payload from off */
	uint8_t outer_ecn;
	uint8_t slot;		/* FOU port slot, 0 for a plain tunnel; for counting */
	bool gro;		/* GRO is on: the tag is written, and these: */
	uint8_t csum;		/* what is known of the inner checksum, FOU_GRO_CSUM_* */
	uint16_t sum;		/* COMPLETE: the one's complement sum of the tunnel payload */
	bool remcsum;		/* GUE remote checksum offload: complete this checksum */
	uint16_t rc_start;	/* from the inner packet's start: where the sum starts */
	uint16_t rc_field;	/* and where the checksum field is */
	uint32_t tun;		/* the tunnel matched, index + 1; 0: none (a port's fallback) */
};

/*
 * For GRO (struct fou_gro_tag): what is known of the inner L4 checksum of
 * the inner packet at in->off, IPv4 or IPv6 (v6) with a header of hl bytes
 * and tot bytes in all. A sum of the tunnel payload becomes the inner IP
 * payload's by taking off the header's, as Linux' skb_gro_postpull_rcsum
 * does; bytes after the inner packet would have to come off too, and the
 * sum is left unknown then.
 */
static inline void
fou_inner_gro(const struct fou_gw *gw, struct rte_mbuf *m, const struct fou_inner_ctx *in,
	      const void *l3, uint32_t hl, uint32_t tot, bool v6)
{
	struct fou_gro_tag *tag;

	if (likely(in->csum == FOU_GRO_CSUM_NONE) || in->remcsum ||
	    (in->csum == FOU_GRO_CSUM_COMPLETE && tot != in->len))
		return;
	tag = RTE_MBUF_DYNFIELD(m, gw->gro_tag_off, struct fou_gro_tag *);
	tag->csum = in->csum;
	/* an IPv4 header whose checksum was checked sums to zero */
	tag->l4sum = v6 ? fou_sum16_sub(in->sum, fou_raw_sum(l3, hl)) : in->sum;
}

/*
 * Forward the IPv4 packet at off (its header checked) along nh, as
 * ip_forward does: local, TTL, MTU, neighbour; then TTL and ECN are
 * rewritten, and the packet is encapsulated if nh is a tunnel. One without
 * DF too large for the device it leaves by is fragmented to its MTU (the
 * port's, the tunnel's) by the context's fragmentation stage, as ip_output
 * does after ip_forward.
 */
static inline unsigned int
fou_fwd4(const struct fou_gw *gw, struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off,
	 struct rte_ipv4_hdr *ip, uint32_t hl, uint32_t tot, uint8_t ecn,
	 const struct fou_nexthop *nh, uint32_t tun, uint16_t *out_port)
{
	struct fou_adj a;
	uint16_t old_w0, old_w4, cksum, frag_mtu = 0;
	struct rte_ether_addr neigh;
	bool have_neigh, frag = false;
	unsigned int r;

	/* ip_error: no route is net unreachable */
	if (nh == NULL)
		return fou_icmp4_error(lc, m, off, tot, FOU_ICMP_NET_UNREACH, 0, false,
				       FOU_DROP_NO_ROUTE, out_port);
	/* only an inner packet comes here for us (the outer ones were
	 * delivered before): it is delivered as an outer one would be */
	if (nh->type == FOU_NH_LOCAL)
		return fou_local4(lc, m, &(struct fou_local){ .off = off, .hl = hl, .tot = tot,
							      .ecn = ecn, .inner = true,
							      .tun = tun },
				  out_port);
	if (nh->type == FOU_NH_BCAST)
		return FOU_DROP_BCAST_MCAST;
	if (ip->time_to_live <= 1)
		return fou_icmp4_error(lc, m, off, tot, FOU_ICMP_TIME_EXCEEDED, 0, false,
				       FOU_DROP_TTL_EXCEEDED, out_port);
	if (unlikely(nh->type == FOU_NH_GROUP))
		nh = fou_nh_member(gw, nh, fou_flow_hash(m, off, false));
	r = fou_adj_resolve(gw, lc->memo, nh, &ip->dst_addr, lc->now, &a);
	if (r != FOU_FWD)
		return r;
	/* a.mtu is the lower of the two: the one compare per packet */
	if (unlikely(tot > a.mtu)) {
		const bool df = (ip->fragment_offset &
				 rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG)) != 0;
		const uint16_t mtu = fou_adj_mtu(&a, df);

		if (tot > mtu && df)
			return fou_icmp4_error(lc, m, off, tot,
					       FOU_ICMP_FRAG_NEEDED, mtu,
					       false, FOU_DROP_MTU_EXCEEDED, out_port);
		/* ip_output: to the device's MTU, which for a tunnel
		 * knows no path MTU (mtu_nodf); between the two, a
		 * nopmtudisc tunnel's outer packet is fragmented, a
		 * pmtudisc tunnel's has DF and is lost (fou_frag.c) */
		if (a.tun != NULL && fou_tunnel_is6(a.tun))
			frag_mtu = mtu;	/* IPv6 underlay: the inner packet, to the path's */
		else if (tot > a.mtu_nodf)
			frag_mtu = a.mtu_nodf;
		else if (a.tun == NULL || (a.tun->flags & FOU_TUN_PMTUDISC))
			return FOU_DROP_MTU_EXCEEDED;
		frag = true;
	}
	/* none yet: the packet is held for resolution once rewritten */
	have_neigh = fou_adj_neigh(lc, &a, &neigh);

	/* TTL and ECN change; patch the checksum for both words (RFC 1624) */
	memcpy(&old_w0, ip, 2);
	memcpy(&old_w4, &ip->time_to_live, 2);
	ip->type_of_service = (uint8_t)((ip->type_of_service & ~3u) | ecn);
	ip->time_to_live--;
	cksum = fou_cksum_update16(ip->hdr_checksum, old_w0, *(const unaligned_uint16_t *)ip);
	ip->hdr_checksum = fou_cksum_update16(cksum, old_w4,
					      *(const unaligned_uint16_t *)&ip->time_to_live);

	fou_l3_isolate(m, off, tot);
	m->l3_len = hl;
	m->packet_type = RTE_PTYPE_L2_ETHER |
			 (hl == sizeof(*ip) ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV4_EXT);
	if (unlikely(frag))
		return fou_frag_defer(lc, m, &a, have_neigh ? &neigh : NULL, false, frag_mtu,
				      out_port);
	return fou_adj_output(lc, m, &a, have_neigh ? &neigh : NULL, false, out_port);
}

/* The same for the IPv6 packet at off, as ip6_forward does. */
static inline unsigned int
fou_fwd6(const struct fou_gw *gw, struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off,
	 struct rte_ipv6_hdr *ip6, uint32_t tot, uint8_t ecn, const struct fou_nexthop *nh,
	 uint32_t tun, uint16_t *out_port)
{
	struct fou_adj a;
	uint32_t vtc;
	struct rte_ether_addr neigh;
	bool have_neigh, frag = false;
	unsigned int r;

	/* ip6_pkt_drop: no route is destination unreachable, no route */
	if (nh == NULL)
		return fou_icmp6_error(lc, m, off, tot, FOU_ICMP_NOROUTE6, 0, false,
				       FOU_DROP_NO_ROUTE, out_port);
	if (nh->type == FOU_NH_LOCAL)
		return fou_local6(lc, m, &(struct fou_local){ .off = off, .hl = sizeof(*ip6),
							      .tot = tot, .ecn = ecn, .inner = true,
							      .tun = tun },
				  out_port);
	if (ip6->hop_limits <= 1)
		return fou_icmp6_error(lc, m, off, tot, FOU_ICMP_TIME_EXCEEDED6, 0, false,
				       FOU_DROP_TTL_EXCEEDED, out_port);
	if (unlikely(nh->type == FOU_NH_GROUP))
		nh = fou_nh_member(gw, nh, fou_flow_hash(m, off, true));
	r = fou_adj_resolve(gw, lc->memo, nh, ip6->dst_addr, lc->now, &a);
	if (r != FOU_FWD)
		return r;
	if (unlikely(tot > a.mtu)) {
		const uint16_t mtu = fou_adj_mtu(&a, false);

		/* ip6_forward never reports an MTU below the IPv6 minimum */
		if (tot > RTE_MAX(mtu, (uint16_t)RTE_IPV6_MIN_MTU))
			return fou_icmp6_error(lc, m, off, tot,
					       FOU_ICMP_PKT_TOO_BIG,
					       RTE_MAX(mtu, (uint16_t)RTE_IPV6_MIN_MTU),
					       false, FOU_DROP_MTU_EXCEEDED, out_port);
		if (tot > mtu)
			return FOU_DROP_MTU_EXCEEDED;
		/* within a nopmtudisc tunnel's MTU, over its path MTU: the
		 * outer packet goes without DF, and is fragmented */
		frag = true;
	}
	/* none yet: the packet is held for resolution once rewritten */
	have_neigh = fou_adj_neigh(lc, &a, &neigh);

	vtc = rte_be_to_cpu_32(ip6->vtc_flow);
	ip6->vtc_flow = rte_cpu_to_be_32((vtc & ~(3u << 20)) | ((uint32_t)ecn << 20));
	ip6->hop_limits--;
	fou_l3_isolate(m, off, tot);
	m->l3_len = sizeof(*ip6);
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6;
	if (unlikely(frag))
		return fou_frag_defer(lc, m, &a, have_neigh ? &neigh : NULL, true, 0, out_port);
	return fou_adj_output(lc, m, &a, have_neigh ? &neigh : NULL, true, out_port);
}

/*
 * GUE remote checksum offload (Linux' gue_remcsum, skb_remcsum_process
 * without remcsum_nopartial): the sender left the inner L4 checksum to the
 * receiver, its field holding the pseudo-header sum; Linux makes the packet
 * CHECKSUM_PARTIAL and the checksum is completed on the way out, over the
 * inner packet from the start to its end, a zero sent as 0xffff. Done here
 * before forwarding, which gives the same bytes as long as the forwarding
 * rewrite (TTL, IPv4 header checksum) lies outside the summed region: a
 * start or field inside the inner IP header is dropped. A field before the
 * start, Linux leaves as it is (skb_checksum_help's warning), so does this.
 * The GRO tag then knows no sum (the field changed).
 */
static inline unsigned int
fou_inner_remcsum(struct rte_mbuf *m, const struct fou_inner_ctx *in, uint32_t hl, uint32_t tot)
{
	uint32_t at = in->off + in->rc_field, i;
	struct rte_mbuf *seg = m;
	uint16_t c;

	if (likely(!in->remcsum))
		return FOU_FWD;
	if (in->rc_start < hl || in->rc_field < hl || in->rc_field + 2u > tot ||
	    in->rc_start > tot)
		return FOU_DROP_GUE_REMCSUM_BAD;
	if (in->rc_field < in->rc_start)
		return FOU_FWD;
	c = (uint16_t)~fou_cksum_fold(m, in->off + in->rc_start, tot - in->rc_start, 0);
	if (c == 0)
		c = 0xffff;
	/* the field's two bytes, wherever the segments cut them */
	for (i = 0; i < 2; i++, at++) {
		while (at >= seg->data_len) {
			at -= seg->data_len;
			seg = seg->next;
		}
		*rte_pktmbuf_mtod_offset(seg, uint8_t *, at) = ((const uint8_t *)&c)[i];
	}
	return FOU_FWD;
}

static inline void
fou_count_decap(struct fou_lcore_stats *st, const struct fou_inner_ctx *in, enum fou_inner kind)
{
	FOU_STAT_ADD(st->decap[in->slot], 1);
	FOU_STAT_ADD(st->decap_inner[kind], 1);
}

/*
 * Linux drops an inner packet from one of its own addresses (a martian
 * source, without accept_local); one of our tunnel probes comes back so:
 * UDP from our address to itself, to the probe port, out of a tunnel.
 * Read only for a source that is ours.
 */
static inline bool
fou_probe4_back(const struct rte_mbuf *m, const struct fou_inner_ctx *in,
		const struct rte_ipv4_hdr *ip, uint32_t hl, uint32_t tot)
{
	const struct rte_udp_hdr *udp;

	if (in->tun == 0 || ip->src_addr != ip->dst_addr || ip->next_proto_id != IPPROTO_UDP ||
	    fou_need(m, in->off + hl, tot - hl, sizeof(*udp), FOU_DROP_UDP_TRUNCATED) != FOU_FWD)
		return false;
	udp = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, in->off + hl);
	return udp->dst_port == rte_cpu_to_be_16(FOU_PROBE_PORT);
}

static inline unsigned int
fou_inner4(const struct fou_gw *gw, struct fou_lcore *lc, struct rte_mbuf *m,
	   const struct fou_inner_ctx *in, uint16_t *out_port)
{
	struct rte_ipv4_hdr *ip;
	uint32_t hl, tot;
	uint8_t ecn;
	unsigned int r;

	r = fou_need(m, in->off, in->len, sizeof(*ip), FOU_DROP_INNER_TRUNCATED);
	if (r != FOU_FWD)
		return r;
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, in->off);
	if ((ip->version_ihl >> 4) != 4 || (ip->version_ihl & 0xf) < 5)
		return FOU_DROP_INNER_HDR_BAD;
	hl = (ip->version_ihl & 0xfu) * 4;
	r = fou_need(m, in->off, in->len, hl, FOU_DROP_INNER_TRUNCATED);
	if (r != FOU_FWD)
		return r;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < hl || tot > in->len)
		return FOU_DROP_INNER_LEN_BAD;
	if (fou_ip4_hdr_sum(ip, hl) != 0xffff)
		return FOU_DROP_INNER_CKSUM_BAD;
	ecn = fou_ecn_decap(in->outer_ecn, ip->type_of_service & 3);
	if (ecn == FOU_ECN_DROP)
		return FOU_DROP_ECN_DROP;
	fou_count_decap(lc->st, in, FOU_INNER_IPV4);

	if (fou_martian4_src(ip->src_addr) || fou_martian4_dst(ip->dst_addr) ||
	    fou_bcast4(ip->dst_addr) ||
	    (fou_src4_ours(gw, ip->src_addr) && !fou_probe4_back(m, in, ip, hl, tot)))
		return FOU_DROP_INNER_MARTIAN;
	if (!fou_ip4_hdr_options_ok(ip, hl))
		return FOU_DROP_INNER_OPTIONS_BAD;
	r = fou_inner_remcsum(m, in, hl, tot);
	if (r != FOU_FWD)
		return r;
	fou_inner_gro(gw, m, in, ip, hl, tot, false);
	return fou_fwd4(gw, lc, m, in->off, ip, hl, tot, ecn, fou_dst4_memo(gw, lc->memo, ip->dst_addr),
			in->tun, out_port);
}

static inline unsigned int
fou_inner6(const struct fou_gw *gw, struct fou_lcore *lc, struct rte_mbuf *m,
	   const struct fou_inner_ctx *in, uint16_t *out_port)
{
	struct rte_ipv6_hdr *ip6;
	uint32_t tot, vtc;
	uint8_t ecn;
	unsigned int r;

	r = fou_need(m, in->off, in->len, sizeof(*ip6), FOU_DROP_INNER_TRUNCATED);
	if (r != FOU_FWD)
		return r;
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
	fou_count_decap(lc->st, in, FOU_INNER_IPV6);

	if (ip6->src_addr[0] == 0xff || ip6->dst_addr[0] == 0xff ||
	    fou_martian6_addr(ip6->src_addr) || fou_martian6_addr(ip6->dst_addr))
		return FOU_DROP_INNER_MARTIAN;
	r = fou_inner_remcsum(m, in, sizeof(*ip6), tot);
	if (r != FOU_FWD)
		return r;
	/* before forwarding rewrites its hop limit and traffic class */
	fou_inner_gro(gw, m, in, ip6, sizeof(*ip6), tot, true);
	return fou_fwd6(gw, lc, m, in->off, ip6, tot, ecn, fou_dst6_memo(gw, lc->memo, ip6->dst_addr),
			in->tun, out_port);
}

/*
 * GRE (RFC 2784 + RFC 2890 key and sequence): checks as Linux'
 * gre_parse_header does, then steps in past the header.
 */
static inline unsigned int
fou_gre(const struct rte_mbuf *m, struct fou_inner_ctx *in, uint16_t *proto, uint16_t *gflags,
	uint32_t *key)
{
	const uint8_t *g;
	uint16_t flags;
	uint32_t hlen;
	unsigned int r;

	r = fou_need(m, in->off, in->len, 4, FOU_DROP_GRE_TRUNCATED);
	if (r != FOU_FWD)
		return r;
	g = rte_pktmbuf_mtod_offset(m, const uint8_t *, in->off);
	flags = (uint16_t)(g[0] << 8 | g[1]);
	if (flags & FOU_GRE_VER_MASK)
		return FOU_DROP_GRE_VERSION;
	if (flags & FOU_GRE_R)
		return FOU_DROP_GRE_ROUTING;
	hlen = fou_gre_hlen(flags);
	r = fou_need(m, in->off, in->len, hlen, FOU_DROP_GRE_TRUNCATED);
	if (r != FOU_FWD)
		return r;
	if ((flags & FOU_GRE_C) && fou_cksum_fold(m, in->off, in->len, 0) != 0xffff)
		return FOU_DROP_GRE_CKSUM_BAD;
	/* GRO's inner sum: the header comes off a sum of the UDP payload;
	 * a GRE checksum found good says the whole sums to zero
	 * (gre_parse_header's skb_checksum_try_convert) */
	if (in->csum == FOU_GRO_CSUM_COMPLETE) {
		in->sum = fou_sum16_sub(in->sum, fou_raw_sum(g, hlen));
	} else if ((flags & FOU_GRE_C) && in->gro && in->csum == FOU_GRO_CSUM_NONE) {
		in->sum = (uint16_t)~fou_raw_sum(g, hlen);
		in->csum = FOU_GRO_CSUM_COMPLETE;
	}
	*proto = (uint16_t)(g[2] << 8 | g[3]);
	*gflags = flags;
	if (flags & FOU_GRE_K) {
		rte_be32_t k;

		memcpy(&k, g + fou_gre_key_off(flags), sizeof(k));
		*key = rte_be_to_cpu_32(k);
	}
	in->off += hlen;
	in->len -= hlen;
	return FOU_FWD;
}

/*
 * GUE (Linux' gue_udp_recv): version 0's header is checked and stepped
 * over, the protocol is the one it names; version 1 is an IP packet right
 * after UDP, IPIP or IPv6 by its first nibble. The order of the checks is
 * Linux': version, header length, flags (validate_gue_flags), remote
 * checksum offload, control bit, and the protocol last.
 */
static inline unsigned int
fou_gue(const struct rte_mbuf *m, struct fou_inner_ctx *in, uint8_t *proto)
{
	const uint8_t *g;
	uint32_t hlen, optlen;
	uint16_t flags;
	unsigned int r;

	r = fou_need(m, in->off, in->len, FOU_GUE_HLEN, FOU_DROP_GUE_TRUNCATED);
	if (r != FOU_FWD)
		return r;
	g = rte_pktmbuf_mtod_offset(m, const uint8_t *, in->off);
	switch (FOU_GUE_VER(g[0])) {
	case 0:
		break;
	case 1:
		/* nothing to step over: the IP header is the payload's start */
		if ((g[0] >> 4) == 4)
			*proto = IPPROTO_IPIP;
		else if ((g[0] >> 4) == 6)
			*proto = IPPROTO_IPV6;
		else
			return FOU_DROP_GUE_V1_NOT_IP;
		return FOU_FWD;
	default:
		return FOU_DROP_GUE_VERSION;
	}
	optlen = 4 * FOU_GUE_HLEN_WORDS(g[0]);
	hlen = FOU_GUE_HLEN + optlen;
	r = fou_need(m, in->off, in->len, hlen, FOU_DROP_GUE_HLEN_BAD);
	if (r != FOU_FWD)
		return r;
	flags = (uint16_t)(g[2] << 8 | g[3]);
	if (flags & ~FOU_GUE_FLAGS_ALL)
		return FOU_DROP_GUE_FLAGS_BAD;
	if (flags & FOU_GUE_FLAG_PRIV) {
		uint32_t pflags;

		/* the private flags are the first (only) optional field */
		if (optlen < FOU_GUE_LEN_PRIV)
			return FOU_DROP_GUE_FLAGS_BAD;
		pflags = (uint32_t)g[4] << 24 | (uint32_t)g[5] << 16 | (uint32_t)g[6] << 8 | g[7];
		if (pflags & ~FOU_GUE_PFLAGS_ALL)
			return FOU_DROP_GUE_PFLAGS_BAD;
		if (pflags & FOU_GUE_PFLAG_REMCSUM) {
			/* its start and field follow the private flags; Linux reads
			 * them there even when hlen leaves them out, and needs the
			 * packet to reach past both (gue_remcsum's pskb_may_pull) */
			r = fou_need(m, in->off, in->len, 12, FOU_DROP_GUE_REMCSUM_BAD);
			if (r != FOU_FWD)
				return r;
			in->rc_start = (uint16_t)(g[8] << 8 | g[9]);
			in->rc_field = (uint16_t)(g[10] << 8 | g[11]);
			if (RTE_MAX(in->rc_field + 2u, (uint32_t)in->rc_start) > in->len - hlen)
				return FOU_DROP_GUE_REMCSUM_BAD;
			in->remcsum = true;
		}
	}
	if (g[0] & FOU_GUE_C)
		return FOU_DROP_GUE_CONTROL;
	*proto = g[1];
	if (*proto != IPPROTO_IPIP && *proto != IPPROTO_IPV6 && *proto != IPPROTO_GRE)
		return FOU_DROP_GUE_PROTO_UNHANDLED;
	/* GRO's inner sum: the header comes off a sum of the UDP payload, as
	 * Linux' skb_postpull_rcsum does */
	if (in->csum == FOU_GRO_CSUM_COMPLETE)
		in->sum = fou_sum16_sub(in->sum, fou_raw_sum(g, hlen));
	in->off += hlen;
	in->len -= hlen;
	return FOU_FWD;
}

/*
 * What follows the UDP header of a datagram to a receive port (in->slot),
 * for either outer family: FOU's payload is a packet of the port's
 * protocol, GUE's says its protocol (fou_gue).
 */
static inline unsigned int
fou_udp_payload(const struct fou_gw *gw, const struct rte_mbuf *m, struct fou_inner_ctx *in,
		uint8_t *proto)
{
	in->remcsum = false;
	in->rc_start = in->rc_field = 0;
	if (gw->udp[in->slot].gue)
		return fou_gue(m, in, proto);
	*proto = gw->udp[in->slot].ipproto;
	return FOU_FWD;
}

/*
 * A tunnel payload of protocol proto at in->off, for either outer family:
 * GRE's header is checked and stepped over; what is inside, IPv4 or IPv6.
 */
static inline unsigned int
fou_tunnel_proto(const struct rte_mbuf *m, struct fou_inner_ctx *in, uint8_t proto,
		 bool *inner_v6, uint16_t *gflags, uint32_t *key)
{
	uint16_t gre_proto;
	unsigned int r;

	switch (proto) {
	case IPPROTO_IPIP:
		*inner_v6 = false;
		return FOU_FWD;
	case IPPROTO_IPV6:
		*inner_v6 = true;
		return FOU_FWD;
	case IPPROTO_GRE:
		r = fou_gre(m, in, &gre_proto, gflags, key);
		if (r != FOU_FWD)
			return r;
		if (gre_proto != RTE_ETHER_TYPE_IPV4 && gre_proto != RTE_ETHER_TYPE_IPV6)
			return FOU_DROP_GRE_PROTO_UNKNOWN;
		*inner_v6 = gre_proto == RTE_ETHER_TYPE_IPV6;
		return FOU_FWD;
	default:
		return FOU_DROP_FOU_PROTO_UNHANDLED;
	}
}

/*
 * A packet matched to tunnel t (ip_tunnel_rcv, ip6_tnl_rcv): the GRE
 * checksum is there exactly when the tunnel has csum; then it counts as
 * received on the tunnel.
 */
static inline unsigned int
fou_tunnel_rx(struct fou_lcore *lc, const struct fou_tunnel *t, uint16_t gflags, uint32_t len)
{
	struct fou_tun_stats *ts;

	if (!(gflags & FOU_GRE_C) != !(t->flags & FOU_TUN_GRE_CSUM))
		return FOU_DROP_GRE_CSUM_MISMATCH;
	ts = &lc->tun_st[t->idx];
	FOU_STAT_ADD(ts->rx_packets, 1);
	FOU_STAT_ADD(ts->rx_bytes, len);
	return FOU_FWD;
}

/*
 * ip_tunnel_lookup: once tunnels of a type exist, packets of that type are
 * taken only from them (outer source = remote, destination = local, the
 * same GRE key). Without any, a FOU port takes them from anyone, as Linux
 * does with the fallback device (tunl0, gre0, sit0) up.
 */
static inline unsigned int
fou_tunnel_match(const struct fou_gw *gw, struct fou_lcore *lc, const struct rte_ipv4_hdr *ip,
		 uint8_t type, uint16_t gflags, uint32_t key, uint32_t len, uint32_t *tun)
{
	struct fou_tun_key k;
	void *data;

	*tun = 0;
	if (__atomic_load_n(&gw->tun_types[type], __ATOMIC_ACQUIRE) == 0)
		return FOU_FWD;
	fou_tun_key_make(&k, type, ip->dst_addr, ip->src_addr, (gflags & FOU_GRE_K) != 0, key);
	if (lc->memo != NULL && lc->memo->tk_fam == AF_INET && fou_tun_key_eq(&lc->memo->tk, &k)) {
		if (lc->memo->tidx < 0)
			return FOU_DROP_NO_TUNNEL;
		data = (void *)(uintptr_t)lc->memo->tidx;
	} else if (rte_hash_lookup_data(gw->tun_rx, &k, &data) < 0) {
		return FOU_DROP_NO_TUNNEL;
	}
	*tun = (uint32_t)(uintptr_t)data + 1;
	return fou_tunnel_rx(lc, &gw->tunnels[(uintptr_t)data], gflags, len);
}

/*
 * The same over an IPv6 underlay, as ip6_tnl_lookup + ipxip6_rcv and
 * ip6gre_tunnel_lookup + ip6gre_rcv: ip6tnl tunnels are matched on the
 * outer addresses alone, whatever their mode, and a mode that does not
 * take the packet's protocol (the next header, FOU port's or GUE's
 * protocol: 4 or 41) drops it there, as ipxip6_rcv does; ip6gre on the
 * addresses and key. Without any of the type, the FOU port's fallback
 * stays. A burst's look-ahead is taken for the same key only, as over
 * IPv4. *tidx: the tunnel matched, -1 none.
 */
static inline unsigned int
fou_tunnel_match6(const struct fou_gw *gw, struct fou_lcore *lc, const struct rte_ipv6_hdr *ip6,
		  uint8_t proto, uint16_t gflags, uint32_t key, uint32_t len, int32_t *tidx)
{
	const uint8_t type = proto == IPPROTO_GRE ? IPPROTO_GRE : FOU_TUN6_IP6TNL;
	const struct fou_tunnel *t;
	struct fou_tun_key6 k;
	void *data;

	*tidx = -1;
	if (__atomic_load_n(&gw->tun_types6[type], __ATOMIC_ACQUIRE) == 0)
		return FOU_FWD;
	if (lc->memo != NULL && lc->memo->tk_fam == AF_INET6 &&
	    fou_tun_key6_is(&lc->memo->tk6, type, ip6->dst_addr, ip6->src_addr,
			    (gflags & FOU_GRE_K) != 0, key)) {
		if (lc->memo->tidx < 0)
			return FOU_DROP_NO_TUNNEL;
		data = (void *)(uintptr_t)lc->memo->tidx;
	} else {
		fou_tun_key6_make(&k, type, ip6->dst_addr, ip6->src_addr,
				  (gflags & FOU_GRE_K) != 0, key);
		if (rte_hash_lookup_data(gw->tun_rx6, &k, &data) < 0)
			return FOU_DROP_NO_TUNNEL;
	}
	t = &gw->tunnels[(uintptr_t)data];
	if (type == FOU_TUN6_IP6TNL && fou_tunnel6_type(t) != FOU_TUN_ANY &&
	    fou_tunnel6_type(t) != proto)
		return FOU_DROP_TUNNEL_MODE_MISMATCH;
	*tidx = (int32_t)(uintptr_t)data;
	return fou_tunnel_rx(lc, t, gflags, len);
}

/*
 * The RX checksum flags of a port that has parsed a tunnel (its type in
 * packet_type) speak of the inner headers, RTE_MBUF_F_RX_OUTER_* of the
 * outer ones: DPDK's convention, which the NICs that parse tunnels keep,
 * but net_tap, for one, reports the outer headers in the inner flags all
 * the same. What is meant is unknown then, and the outer header is checked
 * here: the verdict on the outer IPv4 or UDP header, as the flags say it
 * for a packet without a tunnel, or none (UNKNOWN).
 */
static inline uint64_t
fou_rx_outer_ip_flags(const struct rte_mbuf *m)
{
	return (m->packet_type & RTE_PTYPE_TUNNEL_MASK) ? RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN :
	       m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
}

static inline uint64_t
fou_rx_outer_l4_flags(const struct rte_mbuf *m)
{
	return (m->packet_type & RTE_PTYPE_TUNNEL_MASK) ? RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN :
	       m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
}

/*
 * Whether the port found the inner TCP checksum of this plain (encap none)
 * tunnel packet of protocol proto good: by the convention above, where the
 * port parsed the same tunnel as the gateway and found TCP inside. The
 * outer packet has no L4 header of its own that a port keeping to the
 * outer headers could mean instead. A FOU packet has no tunnel type in
 * 22.11's packet types: its outer UDP checksum stands for the inner one.
 */
static inline bool
fou_rx_inner_tcp_good(const struct rte_mbuf *m, uint8_t proto)
{
	const uint32_t want = (proto == IPPROTO_GRE ? RTE_PTYPE_TUNNEL_GRE : RTE_PTYPE_TUNNEL_IP) |
			      RTE_PTYPE_INNER_L4_TCP;

	return (m->packet_type & (RTE_PTYPE_TUNNEL_MASK | RTE_PTYPE_INNER_L4_MASK)) == want &&
	       (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD;
}

/*
 * An IPv4 packet to one of our addresses (header at off, hl and tot
 * checked): FOU over UDP, or a plain tunnel protocol, is decapsulated;
 * ICMP fragmentation needed may lower a tunnel's path MTU; what else is
 * for us, local delivery (fou_local.c) answers.
 */
static inline unsigned int
fou_rx_local4(const struct fou_gw *gw, struct fou_lcore *lc, uint16_t rx_port, struct rte_mbuf *m,
	      uint32_t off, const struct rte_ipv4_hdr *ip, uint32_t hl, uint32_t tot, bool l2_group,
	      bool gro, uint16_t *out_port)
{
	const struct rte_udp_hdr *udp = NULL;
	struct fou_inner_ctx in;
	uint32_t ulen, key = 0;
	uint16_t gflags = 0;
	uint8_t proto;
	bool inner_v6;
	unsigned int r;

	/* ip_local_deliver: fragments are reassembled first (fou_reasm.c);
	 * the datagram comes back through fou_rx_one() as a packet of its own */
	if (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
						   RTE_IPV4_HDR_OFFSET_MASK))
		return fou_reasm4(lc, m, off, (struct rte_ipv4_hdr *)(uintptr_t)ip, hl, tot);
	in.outer_ecn = ip->type_of_service & 3;
	in.gro = gro;
	in.csum = FOU_GRO_CSUM_NONE;
	in.sum = 0;
	if (ip->next_proto_id == IPPROTO_UDP) {
		/* UDP (__udp4_lib_rcv): a shorter UDP length trims the datagram */
		r = fou_need(m, off + hl, tot - hl, sizeof(*udp), FOU_DROP_UDP_TRUNCATED);
		if (r != FOU_FWD)
			return r;
		udp = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, off + hl);
		ulen = rte_be_to_cpu_16(udp->dgram_len);
		if (ulen < sizeof(*udp) || ulen > tot - hl)
			return FOU_DROP_UDP_LEN_BAD;
		if (udp->dgram_cksum != 0) {
			uint32_t phdr = 0;
			bool good = true;

			switch (fou_rx_outer_l4_flags(m)) {
			case RTE_MBUF_F_RX_L4_CKSUM_BAD:
				return FOU_DROP_UDP_CKSUM_BAD;
			case RTE_MBUF_F_RX_L4_CKSUM_NONE:
				good = false;	/* checked, but the field is not right */
				break;
			case RTE_MBUF_F_RX_L4_CKSUM_GOOD:
				break;
			default:
				phdr = fou_udp4_phdr_sum(ip, ulen);
				if (fou_cksum_fold(m, off + hl, ulen, phdr) != 0xffff)
					return FOU_DROP_UDP_CKSUM_BAD;
			}
			/* a datagram whose checksum is good sums to minus its
			 * pseudo-header: GRO's sum of what it carries follows
			 * without reading it again (skb_checksum_try_convert) */
			if (good && gro) {
				if (phdr == 0)
					phdr = fou_udp4_phdr_sum(ip, ulen);
				in.sum = fou_sum16_sub((uint16_t)~__rte_raw_cksum_reduce(phdr),
						       fou_raw_sum(udp, sizeof(*udp)));
				in.csum = FOU_GRO_CSUM_COMPLETE;
			}
		}
		/* FOU (fou_udp_recv): the UDP header goes, the protocol decides */
		in.slot = __atomic_load_n(&gw->udp_slot[rte_be_to_cpu_16(udp->dst_port)],
					  __ATOMIC_ACQUIRE);
		if (in.slot == 0)
			return fou_local4_port_unreach(lc, m, &(struct fou_local){
				.off = off, .hl = hl, .tot = tot, .l2_group = l2_group,
				.rx_port = rx_port }, ulen, out_port);
		in.off = off + hl + sizeof(*udp);
		in.len = ulen - sizeof(*udp);
		r = fou_udp_payload(gw, m, &in, &proto);
		if (r != FOU_FWD)
			return r;
	} else {
		proto = ip->next_proto_id;
		/* a tunnel's path MTU (fou_pmtu.c) */
		if (proto == IPPROTO_ICMP && fou_pmtu4_is_frag_needed(m, off, hl, tot)) {
			r = fou_pmtu4_input(lc, m, off, ip, hl, tot);
			/* not about a tunnel: the kernel's sockets may want it */
			if (r == FOU_DROP_PMTU_BAD && fou_punt_on(gw, rx_port))
				return fou_punt_up(lc, rx_port, m, FOU_PUNT_UP_ICMP);
			return r;
		}
		/* a tunnel with encap none of this type exists: plain decap */
		if (!__atomic_load_n(&gw->plain_rx[proto], __ATOMIC_ACQUIRE))
			return fou_local4(lc, m, &(struct fou_local){
				.off = off, .hl = hl, .tot = tot,
				.ecn = ip->type_of_service & 3, .l2_group = l2_group,
				.rx_port = rx_port }, out_port);
		in.slot = 0;
		in.remcsum = false;
		in.rc_start = in.rc_field = 0;
		in.off = off + hl;
		in.len = tot - hl;
		if (gro && fou_rx_inner_tcp_good(m, proto))
			in.csum = FOU_GRO_CSUM_GOOD;
	}
	r = fou_tunnel_proto(m, &in, proto, &inner_v6, &gflags, &key);
	if (r != FOU_FWD)
		return r;
	r = fou_tunnel_match(gw, lc, ip, proto, gflags, key, in.len, &in.tun);
	if (r != FOU_FWD)
		return r;
	if (gro) {
		struct fou_gro_tag *tag = RTE_MBUF_DYNFIELD(m, gw->gro_tag_off,
							    struct fou_gro_tag *);

		/* the UDP header is at an odd 2-byte offset: copied, not loaded */
		*tag = (struct fou_gro_tag){
			.src = ip->src_addr,
			.dst = ip->dst_addr,
			.key = key,
			.proto = proto | (uint32_t)gflags << 8 |
				 (udp != NULL && udp->dgram_cksum != 0 ? FOU_GRO_UDP_CSUM : 0) |
				 (udp != NULL && gw->udp[in.slot].gue ? FOU_GRO_GUE : 0),
		};
		if (udp != NULL)
			memcpy(&tag->ports, udp, sizeof(tag->ports));
	}
	return inner_v6 ? fou_inner6(gw, lc, m, &in, out_port) : fou_inner4(gw, lc, m, &in, out_port);
}

/*
 * The options of a hop-by-hop or destination options header (len bytes at
 * o, after its first two), as Linux' ip6_parse_tlv reads them: Pad1 and
 * PadN together at most 7 bytes and PadN's all zero, every option within
 * the header, at most 8 that are not padding (max_dst_opts_cnt /
 * max_hbh_opts_cnt). Known ones here: router alert (hop-by-hop, 2 bytes of
 * value, nothing to do for a packet to us); the jumbo payload is refused
 * (a payload length of 0 never comes this far). Any other is skipped or not by the two high
 * bits of its type: 00 skip; 01 discard; 10 parameter problem (code 2,
 * pointing at it); 11 the same unless to a group. *ptr: that pointer, from
 * the IPv6 header, for FOU_DROP_IP6_OPT_DISCARD with a parameter problem
 * due (0: none).
 */
#define FOU_IP6_OPT_PAD1 0
#define FOU_IP6_OPT_PADN 1
#define FOU_IP6_OPT_JUMBO 0xc2
#define FOU_IP6_OPT_RA 5
#define FOU_IP6_OPTS_MAX 8

static inline unsigned int
fou_ip6_tlv(const uint8_t *o, uint32_t len, bool hbh, uint32_t at, uint32_t *ptr)
{
	uint32_t i = 0, pad = 0, n = 0, olen, k;

	while (i < len) {
		const uint8_t type = o[i];

		if (type == FOU_IP6_OPT_PAD1) {
			if (++pad > 7)
				return FOU_DROP_IP6_EXTHDR_BAD;
			i++;
			continue;
		}
		if (i + 2 > len)
			return FOU_DROP_IP6_EXTHDR_BAD;
		olen = o[i + 1] + 2u;
		if (i + olen > len)
			return FOU_DROP_IP6_EXTHDR_BAD;
		if (type == FOU_IP6_OPT_PADN) {
			pad += olen;
			if (pad > 7)
				return FOU_DROP_IP6_EXTHDR_BAD;
			for (k = 2; k < olen; k++)
				if (o[i + k] != 0)
					return FOU_DROP_IP6_EXTHDR_BAD;
			i += olen;
			continue;
		}
		pad = 0;
		if (++n > FOU_IP6_OPTS_MAX)
			return FOU_DROP_IP6_EXTHDR_BAD;
		/* ipv6_hop_jumbo, and ipv6_hop_ra: a value of 2 bytes */
		if (hbh && (type == FOU_IP6_OPT_JUMBO || (type == FOU_IP6_OPT_RA && olen != 4)))
			return FOU_DROP_IP6_EXTHDR_BAD;
		if (!(hbh && type == FOU_IP6_OPT_RA)) {
			switch (type >> 6) {
			case 0:
				break;
			case 1:
				*ptr = 0;
				return FOU_DROP_IP6_OPT_DISCARD;
			default:	/* to a local unicast address: 10 and 11 alike */
				*ptr = at + i;
				return FOU_DROP_IP6_OPT_DISCARD;
			}
		}
		i += olen;
	}
	return FOU_FWD;
}

/*
 * The extension headers after the IPv6 header at off (tot bytes in all),
 * as Linux' ip6_input_finish walks them for a packet to us: a hop-by-hop
 * header only first, destination options, a routing header with no
 * segments left stepped over; one with segments left, and a fragment,
 * refused by name. Sets *proto to the upper layer's protocol and *at to
 * its offset; *ptr as fou_ip6_tlv does.
 */
static inline unsigned int
fou_ip6_exthdrs(const struct rte_mbuf *m, uint32_t off, uint32_t tot, uint8_t *proto,
		uint32_t *at, uint32_t *ptr)
{
	uint32_t h = sizeof(struct rte_ipv6_hdr), len;
	uint8_t nh = *proto;
	const uint8_t *e;
	unsigned int r;

	*ptr = 0;
	for (;;) {
		switch (nh) {
		case IPPROTO_HOPOPTS:
			if (h != sizeof(struct rte_ipv6_hdr))
				return FOU_DROP_IP6_EXTHDR_BAD;
			/* fall through */
		case IPPROTO_DSTOPTS:
		case IPPROTO_ROUTING:
			r = fou_need(m, off + h, tot - h, 8, FOU_DROP_IP6_EXTHDR_BAD);
			if (r != FOU_FWD)
				return r;
			e = rte_pktmbuf_mtod_offset(m, const uint8_t *, off + h);
			len = (e[1] + 1u) * 8;
			r = fou_need(m, off + h, tot - h, len, FOU_DROP_IP6_EXTHDR_BAD);
			if (r != FOU_FWD)
				return r;
			if (nh == IPPROTO_ROUTING) {
				/* segments left: where it goes next is not here */
				if (e[3] != 0)
					return FOU_DROP_IP6_RTHDR;
			} else {
				r = fou_ip6_tlv(e + 2, len - 2, nh == IPPROTO_HOPOPTS, h + 2, ptr);
				if (r != FOU_FWD)
					return r;
			}
			nh = e[0];
			h += len;
			break;
		case IPPROTO_FRAGMENT:
			return FOU_DROP_IP6_FRAG;
		default:
			*proto = nh;
			*at = off + h;
			return FOU_FWD;
		}
	}
}

/*
 * The UDP datagram at at (plen bytes of IPv6 payload from there) of an
 * IPv6 packet to us: to a FOU port over IPv6, checked as __udp6_lib_rcv
 * does and its payload stepped into (fou_udp_payload); FOU_RX_LOCAL6
 * when it is not for a FOU port (or too short to tell), for local
 * delivery: never returned further than fou_rx_local6.
 */
#define FOU_RX_LOCAL6 (FOU_FRAG + 1)

static inline unsigned int
fou_rx_udp6(const struct fou_gw *gw, const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip6,
	    uint32_t at, uint32_t plen, struct fou_inner_ctx *in, uint8_t *proto)
{
	const struct rte_udp_hdr *udp;
	uint32_t ulen;

	if (plen < sizeof(*udp) || at + sizeof(*udp) > rte_pktmbuf_data_len(m))
		return FOU_RX_LOCAL6;
	udp = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, at);
	in->slot = __atomic_load_n(&gw->udp_slot6[rte_be_to_cpu_16(udp->dst_port)],
				   __ATOMIC_ACQUIRE);
	if (in->slot == 0)
		return FOU_RX_LOCAL6;
	/* 0 is a jumbogram's length, the whole payload; a shorter one trims
	 * the datagram */
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (ulen == 0)
		ulen = plen;
	if (ulen < sizeof(*udp) || ulen > plen)
		return FOU_DROP_UDP_LEN_BAD;
	if (udp->dgram_cksum != 0) {
		switch (fou_rx_outer_l4_flags(m)) {
		case RTE_MBUF_F_RX_L4_CKSUM_BAD:
			return FOU_DROP_UDP_CKSUM_BAD;
		case RTE_MBUF_F_RX_L4_CKSUM_NONE:
		case RTE_MBUF_F_RX_L4_CKSUM_GOOD:
			break;
		default:
			if (fou_cksum_fold(m, at, ulen, fou_udp6_phdr_sum(ip6, ulen)) != 0xffff)
				return FOU_DROP_UDP_CKSUM_BAD;
		}
	}
	in->off = at + sizeof(*udp);
	in->len = ulen - sizeof(*udp);
	return fou_udp_payload(gw, m, in, proto);
}

/*
 * An IPv6 packet to one of our addresses (header at off, tot checked): its
 * extension headers walked, UDP to a FOU port over IPv6, or IPIP / IPv6 /
 * GRE when an encap-none ip6tnl / ip6gre takes that protocol,
 * decapsulated and matched to a tunnel as over IPv4 (fou_rx_local4);
 * ICMPv6 packet too big may lower a tunnel's path MTU; what else is for
 * us to local delivery (fou_local.c). A zero UDP checksum is taken on a FOU port: Linux' FOU
 * socket over IPv6 is made with no_check6_rx (udp_sock_create6 with
 * use_udp6_rx_checksums off), as RFC 6935 allows tunnels.
 */
static inline unsigned int
fou_rx_local6(const struct fou_gw *gw, struct fou_lcore *lc, uint16_t rx_port, struct rte_mbuf *m,
	      uint32_t off, const struct rte_ipv6_hdr *ip6, uint32_t tot, bool l2_group, bool gro,
	      uint16_t *out_port)
{
	const struct fou_local loc = {
		.off = off, .hl = sizeof(*ip6), .tot = tot,
		.ecn = (rte_be_to_cpu_32(ip6->vtc_flow) >> 20) & 3, .l2_group = l2_group,
		.rx_port = rx_port };
	struct fou_inner_ctx in;
	uint32_t at, ptr, key = 0;
	uint16_t gflags = 0;
	uint8_t proto = ip6->proto;
	int32_t tidx;
	bool inner_v6;
	unsigned int r;

	r = fou_ip6_exthdrs(m, off, tot, &proto, &at, &ptr);
	if (r == FOU_DROP_IP6_OPT_DISCARD && ptr != 0 && !l2_group)
		return fou_icmp6_error(lc, m, off, tot, FOU_ICMP_PARAM_OPT6, ptr, true, r,
				       out_port);
	if (r != FOU_FWD)
		return r;
	in.outer_ecn = loc.ecn;
	in.gro = gro;
	in.csum = FOU_GRO_CSUM_NONE;
	in.sum = 0;
	if (proto == IPPROTO_UDP) {
		r = fou_rx_udp6(gw, m, ip6, at, tot - (at - off), &in, &proto);
		if (r == FOU_RX_LOCAL6)
			return fou_local6(lc, m, &loc, out_port);
		if (r != FOU_FWD)
			return r;
	} else if (__atomic_load_n(&gw->plain_rx6[proto], __ATOMIC_ACQUIRE)) {
		/* an ip6tnl or ip6gre with encap none takes this protocol
		 * (ip6_tnl / ip6gre's inet6_protocol handlers) */
		in.slot = 0;
		in.remcsum = false;
		in.rc_start = in.rc_field = 0;
		in.off = at;
		in.len = tot - (at - off);
	} else if (proto == IPPROTO_ICMPV6 && fou_pmtu6_is_too_big(m, at, tot - (at - off))) {
		/* a tunnel's path MTU (fou_pmtu.c) */
		r = fou_pmtu6_input(lc, m, ip6, at, tot - (at - off));
		/* not about a tunnel: the kernel's sockets may want it */
		if (r == FOU_DROP_PMTU_BAD && fou_punt_on(gw, rx_port))
			return fou_punt_up(lc, rx_port, m, FOU_PUNT_UP_ICMP);
		return r;
	} else {
		return fou_local6(lc, m, &loc, out_port);
	}
	r = fou_tunnel_proto(m, &in, proto, &inner_v6, &gflags, &key);
	if (r != FOU_FWD)
		return r;
	r = fou_tunnel_match6(gw, lc, ip6, proto, gflags, key, in.len, &tidx);
	if (r != FOU_FWD)
		return r;
	in.tun = (uint32_t)(tidx + 1);
	if (gro) {
		struct fou_gro_tag *tag = RTE_MBUF_DYNFIELD(m, gw->gro_tag_off,
							    struct fou_gro_tag *);
		const struct rte_udp_hdr *udp = in.slot == 0 ? NULL :
			rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, at);

		/* no room for the outer IPv6 addresses (struct fou_gro_tag):
		 * the tunnel they matched stands for them; a port's fallback
		 * (no tunnel) leaves src 0, never merged */
		*tag = (struct fou_gro_tag){
			.src = tidx < 0 ? 0 : rte_cpu_to_be_32((uint32_t)tidx + 1),
			.key = key,
			.proto = proto | (uint32_t)gflags << 8 | FOU_GRO_OUTER6 |
				 (udp != NULL && udp->dgram_cksum != 0 ? FOU_GRO_UDP_CSUM : 0) |
				 (in.slot != 0 && gw->udp[in.slot].gue ? FOU_GRO_GUE : 0),
		};
		if (udp != NULL)
			memcpy(&tag->ports, udp, sizeof(tag->ports));
	}
	return inner_v6 ? fou_inner6(gw, lc, m, &in, out_port) : fou_inner4(gw, lc, m, &in, out_port);
}

/* A received IPv4 packet at off: checked as ip_rcv_core and
 * ip_route_input_slow do, then delivered locally or forwarded. */
static inline unsigned int
fou_rx_ip4(const struct fou_gw *gw, struct fou_lcore *lc, uint16_t rx_port, struct rte_mbuf *m,
	   uint32_t off, bool l2_group, bool gro, uint16_t *out_port)
{
	const uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	const struct fou_nexthop *nh;
	struct rte_ipv4_hdr *ip;
	uint32_t hl, tot;
	unsigned int r;

	r = fou_need(m, off, pkt_len - off, sizeof(*ip), FOU_DROP_IP_TRUNCATED);
	if (r != FOU_FWD)
		return r;
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, off);
	if ((ip->version_ihl >> 4) != 4 || (ip->version_ihl & 0xf) < 5)
		return FOU_DROP_IP_HDR_BAD;
	hl = (ip->version_ihl & 0xfu) * 4;
	r = fou_need(m, off, pkt_len - off, hl, FOU_DROP_IP_TRUNCATED);
	if (r != FOU_FWD)
		return r;
	switch (fou_rx_outer_ip_flags(m)) {
	case RTE_MBUF_F_RX_IP_CKSUM_BAD:
		return FOU_DROP_IP_CKSUM_BAD;
	case RTE_MBUF_F_RX_IP_CKSUM_GOOD:
	case RTE_MBUF_F_RX_IP_CKSUM_NONE:
		break;
	default:
		if (fou_ip4_hdr_sum(ip, hl) != 0xffff)
			return FOU_DROP_IP_CKSUM_BAD;
	}
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < hl || tot > pkt_len - off)
		return FOU_DROP_IP_LEN_BAD;
	/* ip_route_input_slow: martian source, broadcast, martian
	 * destination; fib_validate_source refuses our own addresses */
	if (fou_martian4_src(ip->src_addr))
		return FOU_DROP_OUTER_MARTIAN;
	if (fou_bcast4(ip->dst_addr))
		return FOU_DROP_BCAST_MCAST;
	if (fou_martian4_dst(ip->dst_addr))
		return FOU_DROP_OUTER_MARTIAN;
	nh = fou_dst4_memo(gw, lc->memo, ip->dst_addr);
	if (fou_src4_ours(gw, ip->src_addr))
		return FOU_DROP_OUTER_MARTIAN;
	/* ip_rcv_options, after the route lookup as in ip_rcv_finish_core */
	if (!fou_ip4_hdr_options_ok(ip, hl))
		return FOU_DROP_IP_OPTIONS_BAD;
	if (nh != NULL && nh->type == FOU_NH_LOCAL)
		return fou_rx_local4(gw, lc, rx_port, m, off, ip, hl, tot, l2_group, gro, out_port);
	if (l2_group)
		return FOU_DROP_BCAST_MCAST;
	return fou_fwd4(gw, lc, m, off, ip, hl, tot, ip->type_of_service & 3, nh, 0, out_port);
}

/* A received IPv6 packet at off: checked as ip6_rcv_core, then Neighbour
 * Discovery for us answered or taken in (fou_ndisc.c), delivered locally
 * (FOU over IPv6 decapsulated) or forwarded. */
static inline unsigned int
fou_rx_ip6(const struct fou_gw *gw, struct fou_lcore *lc, uint16_t rx_port, struct rte_mbuf *m,
	   uint32_t off, bool l2_group, bool gro, uint16_t *out_port)
{
	const uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	static const struct fou_nexthop fou_nh_local6 = { .type = FOU_NH_LOCAL, .family = AF_INET6 };
	const struct fou_nexthop *nh;
	struct rte_ipv6_hdr *ip6;
	uint32_t tot;
	unsigned int r;
	bool src_ll;

	r = fou_need(m, off, pkt_len - off, sizeof(*ip6), FOU_DROP_IP_TRUNCATED);
	if (r != FOU_FWD)
		return r;
	ip6 = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, off);
	if ((rte_be_to_cpu_32(ip6->vtc_flow) >> 28) != 6)
		return FOU_DROP_IP_HDR_BAD;
	tot = sizeof(*ip6) + rte_be_to_cpu_16(ip6->payload_len);
	if (tot > pkt_len - off)
		return FOU_DROP_IP_LEN_BAD;
	/* Neighbour Discovery for us: from link-local or unspecified
	 * sources, to groups, so ahead of the checks that refuse those */
	if (fou_ndisc_match(gw, m, off, ip6))
		return fou_ndisc_input(lc, rx_port, m, off, out_port);
	/* a link-local source may talk to us (ping6 fe80::...%eth0, or from
	 * its link-local address to a global one of ours), never through us */
	src_ll = fou_ll6_addr(ip6->src_addr);
	if (ip6->src_addr[0] == 0xff || (!src_ll && fou_martian6_addr(ip6->src_addr)))
		return FOU_DROP_OUTER_MARTIAN;
	if (ip6->dst_addr[0] == 0xff)
		return FOU_DROP_BCAST_MCAST;
	if (fou_ll6_addr(ip6->dst_addr))
		/* scoped to the port: ours only if it is this port's */
		nh = fou_addr6_mine_on(gw, rx_port, ip6->dst_addr) ? &fou_nh_local6 : NULL;
	else
		nh = fou_dst6_memo(gw, lc->memo, ip6->dst_addr);
	if (nh != NULL && nh->type == FOU_NH_LOCAL) {
		/* the way back to a link-local address is the port it came in by */
		m->port = rx_port;
		return fou_rx_local6(gw, lc, rx_port, m, off, ip6, tot, l2_group, gro, out_port);
	}
	if (src_ll || fou_martian6_addr(ip6->dst_addr))
		return FOU_DROP_OUTER_MARTIAN;
	if (l2_group)
		return FOU_DROP_BCAST_MCAST;
	return fou_fwd6(gw, lc, m, off, ip6, tot, (rte_be_to_cpu_32(ip6->vtc_flow) >> 20) & 3, nh,
			0, out_port);
}

static inline unsigned int
fou_rx_one(const struct fou_gw *gw, struct fou_lcore *lc, uint16_t rx_port, struct rte_mbuf *m,
	   bool gro, uint16_t *out_port)
{
	const uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)p;
	uint32_t off = RTE_ETHER_HDR_LEN;
	uint16_t etype;
	unsigned int tags;
	bool l2_group;
	unsigned int r;

	r = fou_need(m, 0, pkt_len, off, FOU_DROP_ETH_TRUNCATED);
	if (r != FOU_FWD)
		return r;
	if (rte_is_unicast_ether_addr(&eth->dst_addr) &&
	    !rte_is_same_ether_addr(&eth->dst_addr, &gw->iface[rx_port].mac))
		return FOU_DROP_ETH_OTHER_HOST;
	etype = rte_be_to_cpu_16(eth->ether_type);
	/* 802.1Q, and 802.1ad outside it: the tag is not kept */
	for (tags = 0; tags < 2 && (etype == RTE_ETHER_TYPE_VLAN || etype == RTE_ETHER_TYPE_QINQ);
	     tags++) {
		r = fou_need(m, off, pkt_len - off, sizeof(struct rte_vlan_hdr),
			     FOU_DROP_ETH_TRUNCATED);
		if (r != FOU_FWD)
			return r;
		etype = rte_be_to_cpu_16(((const struct rte_vlan_hdr *)(p + off))->eth_proto);
		off += sizeof(struct rte_vlan_hdr);
	}
	/* a frame to a group address is for every host: never forwarded
	 * (ip_forward / ip6_forward take PACKET_HOST only) */
	l2_group = !rte_is_unicast_ether_addr(&eth->dst_addr);
	/* not decapsulated, until the tunnel path says otherwise */
	if (gro)
		memset(RTE_MBUF_DYNFIELD(m, gw->gro_tag_off, struct fou_gro_tag *), 0,
		       sizeof(struct fou_gro_tag));
	switch (etype) {
	case RTE_ETHER_TYPE_IPV4:
		return fou_rx_ip4(gw, lc, rx_port, m, off, l2_group, gro, out_port);
	case RTE_ETHER_TYPE_IPV6:
		return fou_rx_ip6(gw, lc, rx_port, m, off, l2_group, gro, out_port);
	case RTE_ETHER_TYPE_ARP:
		return fou_arp_input(lc, rx_port, m, off, out_port);
	default:
		return FOU_DROP_NOT_IP;
	}
}

/*
 * --- a burst's lookups, stage by stage ---------------------------------------
 *
 * Before the packets are handled one by one, the burst's lookups are done
 * together, so that their cache misses overlap instead of following one
 * another (the way VPP's and l3fwd's loops are built): a first pass reads
 * each packet's headers far enough to know what it will look up (the
 * tunnel match and the inner destination of a tunnel packet to us, the
 * destination of one to route), then each table is searched once for the
 * whole burst (rte_hash_lookup_bulk_data, rte_fib_lookup_bulk), the
 * entries the next stage reads are prefetched, and the remotes of the
 * tunnels the routes lead into are routed together too. What is found
 * goes into the packet's memo with the key it was found for; the
 * packet's own processing, which checks everything, takes a result only
 * for the same key. The first pass may therefore skip what it does not
 * understand (a second VLAN tag, a malformed header): that packet looks
 * up for itself, and no decision can differ from one made alone.
 */
struct fou_rx_ahead {
	struct fou_route_memo memo[FOU_BURST];
	unsigned int n4, n6, ntk, nrem;
	rte_be32_t a4[FOU_BURST];
	uint8_t a4_pkt[FOU_BURST];
	uint8_t a6[FOU_BURST][16];
	uint8_t a6_pkt[FOU_BURST];
	const void *tk[FOU_BURST];
	uint8_t tk_pkt[FOU_BURST];
	unsigned int ntk6, nrem6;
	const void *tk6[FOU_BURST];
	uint8_t tk6_pkt[FOU_BURST];
	rte_be32_t rem[FOU_BURST];
	uint8_t rem_pkt[FOU_BURST];
	uint8_t rem6[FOU_BURST][16];
	uint8_t rem6_pkt[FOU_BURST];
};

static inline void
fou_ahead_dst4(const struct fou_gw *gw, struct fou_rx_ahead *ah, uint8_t i, rte_be32_t dst)
{
	if (fou_addr4_own(gw, dst))
		return;
	ah->a4[ah->n4] = dst;
	ah->a4_pkt[ah->n4++] = i;
}

static inline void
fou_ahead_dst6(const struct fou_gw *gw, struct fou_rx_ahead *ah, uint8_t i, const uint8_t *dst)
{
	if (dst[0] == 0xff || fou_ll6_addr(dst) || fou_own6(gw, dst) != NULL)
		return;
	memcpy(ah->a6[ah->n6], dst, 16);
	ah->a6_pkt[ah->n6++] = i;
}

/*
 * What a tunnel packet to us carries at *off, of IP protocol proto: a UDP
 * datagram to a FOU port (slots: the family's port table) stepped into,
 * GUE version 0 without options or version 1; GRE's flags and key read.
 * *type: the tunnel type the match is for (IPIP, IPV6, GRE), *inner the
 * protocol inside (IPIP, IPV6, 0 unknown). false: nothing to look up.
 */
static inline bool
fou_ahead_payload(const struct fou_gw *gw, const uint8_t *p, uint32_t len, uint32_t *off,
		  const uint8_t *slots, const uint8_t *plain, uint8_t proto, uint8_t *type,
		  uint8_t *inner, uint16_t *gflags, uint32_t *key)
{
	uint32_t o = *off;
	uint16_t etype;
	uint8_t slot;

	if (proto == IPPROTO_UDP) {
		if (len < o + sizeof(struct rte_udp_hdr))
			return false;
		slot = __atomic_load_n(&slots[(uint16_t)(p[o + 2] << 8 | p[o + 3])],
				       __ATOMIC_ACQUIRE);
		if (slot == 0)
			return false;
		o += sizeof(struct rte_udp_hdr);
		proto = gw->udp[slot].ipproto;
		/* GUE: version 0 without options, or version 1 */
		if (gw->udp[slot].gue) {
			if (len < o + FOU_GUE_HLEN)
				return false;
			if (FOU_GUE_VER(p[o]) == 1) {
				proto = (p[o] >> 4) == 4 ? IPPROTO_IPIP : IPPROTO_IPV6;
			} else if (p[o] == 0) {
				proto = p[o + 1];
				o += FOU_GUE_HLEN;
			} else {
				return false;
			}
		}
	} else if (!__atomic_load_n(&plain[proto], __ATOMIC_ACQUIRE)) {
		return false;
	}
	*type = proto;
	*inner = proto;
	*gflags = 0;
	*key = 0;
	if (proto == IPPROTO_GRE) {
		if (len < o + 4)
			return false;
		*gflags = (uint16_t)(p[o] << 8 | p[o + 1]);
		etype = (uint16_t)(p[o + 2] << 8 | p[o + 3]);
		if (*gflags & FOU_GRE_K && len >= o + 12) {
			rte_be32_t k;

			memcpy(&k, p + o + fou_gre_key_off(*gflags), sizeof(k));
			*key = rte_be_to_cpu_32(k);
		}
		o += fou_gre_hlen(*gflags);
		*inner = etype == RTE_ETHER_TYPE_IPV4 ? IPPROTO_IPIP :
			 etype == RTE_ETHER_TYPE_IPV6 ? IPPROTO_IPV6 : 0;
	}
	*off = o;
	return proto == IPPROTO_IPIP || proto == IPPROTO_IPV6 || proto == IPPROTO_GRE;
}

/* The inner destination at off of a tunnel packet, to route ahead. */
static inline void
fou_ahead_inner(const struct fou_gw *gw, struct fou_rx_ahead *ah, uint8_t i, const uint8_t *p,
		uint32_t len, uint32_t off, uint8_t inner)
{
	if (inner == IPPROTO_IPIP && len >= off + sizeof(struct rte_ipv4_hdr))
		fou_ahead_dst4(gw, ah, i, ((const struct rte_ipv4_hdr *)(p + off))->dst_addr);
	else if (inner == IPPROTO_IPV6 && len >= off + sizeof(struct rte_ipv6_hdr))
		fou_ahead_dst6(gw, ah, i, ((const struct rte_ipv6_hdr *)(p + off))->dst_addr);
}

/*
 * An IPv6 packet at off: routed, or, to us, a tunnel packet's match and
 * inner destination. Of the extension headers only the Destination
 * Options header that Linux' ip6tnl sends (the encapsulation limit) is
 * stepped over; a packet with others looks up for itself.
 */
static inline void
fou_ahead_peek6(const struct fou_gw *gw, const uint8_t *p, uint32_t len, uint32_t off,
		uint8_t i, struct fou_rx_ahead *ah)
{
	const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)(p + off);
	struct fou_route_memo *memo = &ah->memo[i];
	uint8_t proto = ip6->proto, type, inner;
	uint16_t gflags;
	uint32_t key;

	if (ip6->dst_addr[0] == 0xff || fou_ll6_addr(ip6->dst_addr))
		return;
	if (fou_own6(gw, ip6->dst_addr) == NULL) {
		fou_ahead_dst6(gw, ah, i, ip6->dst_addr);
		return;
	}
	off += sizeof(*ip6);
	if (proto == IPPROTO_DSTOPTS) {
		if (len < off + 8)
			return;
		proto = p[off];
		off += (p[off + 1] + 1u) * 8;
	}
	if (!fou_ahead_payload(gw, p, len, &off, gw->udp_slot6, gw->plain_rx6, proto, &type,
			       &inner, &gflags, &key))
		return;
	type = type == IPPROTO_GRE ? IPPROTO_GRE : FOU_TUN6_IP6TNL;
	if (__atomic_load_n(&gw->tun_types6[type], __ATOMIC_ACQUIRE) != 0) {
		fou_tun_key6_make(&memo->tk6, type, ip6->dst_addr, ip6->src_addr,
				  (gflags & FOU_GRE_K) != 0, key);
		ah->tk6[ah->ntk6] = &memo->tk6;
		ah->tk6_pkt[ah->ntk6++] = i;
	}
	fou_ahead_inner(gw, ah, i, p, len, off, inner);
}

/* The first pass over packet i: what it will look up. */
static inline void
fou_ahead_peek(const struct fou_gw *gw, const struct rte_mbuf *m, uint8_t i,
	       struct fou_rx_ahead *ah)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint32_t len = rte_pktmbuf_data_len(m);
	struct fou_route_memo *memo = &ah->memo[i];
	const struct rte_ipv4_hdr *ip;
	uint32_t off = RTE_ETHER_HDR_LEN, key;
	uint16_t etype, gflags;
	uint8_t type, inner;

	memo->n4 = 0;
	memo->n6 = 0;
	memo->tk_fam = 0;
	if (len < off + sizeof(struct rte_ipv6_hdr))
		return;
	etype = (uint16_t)(p[12] << 8 | p[13]);
	if (etype == RTE_ETHER_TYPE_VLAN) {
		etype = (uint16_t)(p[16] << 8 | p[17]);
		off += sizeof(struct rte_vlan_hdr);
		if (len < off + sizeof(struct rte_ipv6_hdr))
			return;
	}
	if (etype == RTE_ETHER_TYPE_IPV6) {
		fou_ahead_peek6(gw, p, len, off, i, ah);
		return;
	}
	if (etype != RTE_ETHER_TYPE_IPV4)
		return;
	ip = (const struct rte_ipv4_hdr *)(p + off);
	if ((ip->version_ihl >> 4) != 4)
		return;
	if (!fou_addr4_own(gw, ip->dst_addr)) {
		fou_ahead_dst4(gw, ah, i, ip->dst_addr);
		return;
	}
	/* to us: a tunnel packet's match and inner destination */
	off += (ip->version_ihl & 0xfu) * 4;
	if (!fou_ahead_payload(gw, p, len, &off, gw->udp_slot, gw->plain_rx, ip->next_proto_id,
			       &type, &inner, &gflags, &key))
		return;
	if (__atomic_load_n(&gw->tun_types[type], __ATOMIC_ACQUIRE) != 0) {
		fou_tun_key_make(&memo->tk, type, ip->dst_addr, ip->src_addr,
				 (gflags & FOU_GRE_K) != 0, key);
		ah->tk[ah->ntk] = &memo->tk;
		ah->tk_pkt[ah->ntk++] = i;
	}
	fou_ahead_inner(gw, ah, i, p, len, off, inner);
}

/* A route found for packet i: kept, and a tunnel's remote routed next. */
static inline void
fou_ahead_routed(const struct fou_gw *gw, struct fou_lcore *lc, struct fou_rx_ahead *ah,
		 uint8_t i, const struct fou_nexthop *nh)
{
	const struct fou_tunnel *t;

	if (nh == NULL || nh->type != FOU_NH_TUNNEL)
		return;
	t = &gw->tunnels[nh->tunnel];
	rte_prefetch0(t);
	rte_prefetch0(&lc->tun_st[nh->tunnel]);
	rte_prefetch0(&gw->tun_pmtu[nh->tunnel]);
	if (fou_tunnel_is6(t)) {
		memcpy(ah->rem6[ah->nrem6], fou_tunnel_remote6(t), 16);
		ah->rem6_pkt[ah->nrem6++] = i;
		return;
	}
	ah->rem[ah->nrem] = t->remote;
	ah->rem_pkt[ah->nrem++] = i;
}

/* The tunnel match k of a bulk lookup, into memo; the tunnel's entry and
 * counters prefetched. */
static inline void
fou_ahead_matched(const struct fou_gw *gw, struct fou_lcore *lc, struct fou_route_memo *memo,
		  uint64_t hits, unsigned int k, void *data)
{
	memo->tidx = (hits >> k) & 1 ? (int32_t)(uintptr_t)data : -1;
	if (memo->tidx >= 0) {
		rte_prefetch0(&gw->tunnels[memo->tidx]);
		rte_prefetch0(&lc->tun_st[memo->tidx]);
	}
}

/* The burst's lookups (see above), into each packet's memo. */
static void
fou_ahead(const struct fou_gw *gw, struct fou_lcore *lc, struct rte_mbuf **pkts, uint16_t n,
	  struct fou_rx_ahead *ah)
{
	const struct fou_nexthop *nh[FOU_BURST];
	void *data[FOU_BURST];
	uint64_t hits = 0;
	unsigned int k;
	uint16_t i;

	ah->n4 = ah->n6 = ah->ntk = ah->nrem = ah->ntk6 = ah->nrem6 = 0;
	for (i = 0; i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++)
		fou_ahead_peek(gw, pkts[i], (uint8_t)i, ah);
	if (ah->ntk != 0) {
		rte_hash_lookup_bulk_data(gw->tun_rx, ah->tk, ah->ntk, &hits, data);
		for (k = 0; k < ah->ntk; k++) {
			struct fou_route_memo *memo = &ah->memo[ah->tk_pkt[k]];

			memo->tk_fam = AF_INET;
			fou_ahead_matched(gw, lc, memo, hits, k, data[k]);
		}
	}
	if (ah->ntk6 != 0) {
		rte_hash_lookup_bulk_data(gw->tun_rx6, ah->tk6, ah->ntk6, &hits, data);
		for (k = 0; k < ah->ntk6; k++) {
			struct fou_route_memo *memo = &ah->memo[ah->tk6_pkt[k]];

			memo->tk_fam = AF_INET6;
			fou_ahead_matched(gw, lc, memo, hits, k, data[k]);
		}
	}
	if (ah->n4 != 0) {
		fou_route4_bulk(gw, ah->a4, nh, ah->n4);
		for (k = 0; k < ah->n4; k++) {
			struct fou_route_memo *memo = &ah->memo[ah->a4_pkt[k]];

			memo->a4[0] = ah->a4[k];
			memo->nh4[0] = nh[k];
			memo->n4 = 1;
			fou_ahead_routed(gw, lc, ah, ah->a4_pkt[k], nh[k]);
		}
	}
	if (ah->n6 != 0) {
		fou_route6_bulk(gw, ah->a6[0], nh, ah->n6);
		for (k = 0; k < ah->n6; k++) {
			struct fou_route_memo *memo = &ah->memo[ah->a6_pkt[k]];

			memcpy(memo->a6[0], ah->a6[k], 16);
			memo->nh6[0] = nh[k];
			memo->n6 = 1;
			fou_ahead_routed(gw, lc, ah, ah->a6_pkt[k], nh[k]);
		}
	}
	if (ah->nrem != 0) {
		fou_route4_bulk(gw, ah->rem, nh, ah->nrem);
		for (k = 0; k < ah->nrem; k++) {
			struct fou_route_memo *memo = &ah->memo[ah->rem_pkt[k]];

			if (memo->n4 < FOU_MEMO4) {
				memo->a4[memo->n4] = ah->rem[k];
				memo->nh4[memo->n4++] = nh[k];
			}
		}
	}
	if (ah->nrem6 != 0) {
		fou_route6_bulk(gw, ah->rem6[0], nh, ah->nrem6);
		for (k = 0; k < ah->nrem6; k++) {
			struct fou_route_memo *memo = &ah->memo[ah->rem6_pkt[k]];

			if (memo->n6 < FOU_MEMO6) {
				memcpy(memo->a6[memo->n6], ah->rem6[k], 16);
				memo->nh6[memo->n6++] = nh[k];
			}
		}
	}
}

uint16_t
fou_rx_burst(struct fou_lcore *lc, uint16_t rx_port, struct rte_mbuf **pkts, uint16_t n,
	     uint16_t *out_port, bool *gro_on)
{
	const struct fou_gw *gw = lc->gw;
	struct fou_lcore_stats *st = lc->st;
	struct rte_mbuf *drop[FOU_BURST];
	struct fou_rx_ahead ah;
	uint16_t i, nb_fwd = 0, nb_drop = 0;
	/* read once: the tags are written for exactly the bursts GRO sees */
	const bool gro = __atomic_load_n(&gw->iface[rx_port].gro, __ATOMIC_ACQUIRE) != 0;

	*gro_on = gro;
	lc->frag->n = 0;
	FOU_STAT_ADD(st->rx[rx_port], n);
	RTE_ASSERT(n <= FOU_BURST);
	/* one packet has nothing to overlap its misses with */
	if (n > 1)
		fou_ahead(gw, lc, pkts, n, &ah);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		unsigned int r;

		lc->memo = n > 1 ? &ah.memo[i] : NULL;
		r = fou_rx_one(gw, lc, rx_port, m, gro, &out_port[nb_fwd]);
		/* the fragment completed a datagram, which goes the whole way
		 * again as a packet of its own: the burst's lookups ahead
		 * were not for it */
		if (unlikely(r == FOU_REASSEMBLED)) {
			m = lc->reasm_done;
			lc->reasm_done = NULL;
			lc->memo = NULL;
			r = fou_rx_one(gw, lc, rx_port, m, gro, &out_port[nb_fwd]);
		}
		/* a packet to fragment goes on too: the context cuts it */
		if (likely(r == FOU_FWD) || r == FOU_FRAG) {
			pkts[nb_fwd++] = m;
			continue;
		}
		/* the reassembly table or the control thread has it now
		 * (counted when taken or handed over) */
		if (r == FOU_HELD || r == FOU_TAKEN || r == FOU_PUNTED)
			continue;
		/* what the local stack took in is freed with the drops */
		if (r == FOU_CONSUMED)
			FOU_STAT_ADD(st->local[FOU_LOCAL_CONSUMED], 1);
		else
			FOU_STAT_ADD(st->drop[r], 1);
		drop[nb_drop++] = m;
		if (nb_drop == FOU_BURST) {
			rte_pktmbuf_free_bulk(drop, nb_drop);
			nb_drop = 0;
		}
	}
	lc->memo = NULL;
	if (nb_drop != 0)
		rte_pktmbuf_free_bulk(drop, nb_drop);
	return nb_fwd;
}
