/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMP errors for packets the gateway cannot forward (TTL expired, too big
 * for the egress or tunnel MTU), as icmp_send / icmp6_send build them. The
 * packet's own mbuf becomes the error: cut to the quote, headers put in
 * front, routed back to the source like any packet (through a tunnel if
 * that is the way back). Rate-limited per lcore by a token bucket. Called
 * by the receive stage (fou_rx.c); runs on worker lcores: no locks, no
 * logs, no allocation.
 */
#include <rte_cycles.h>
#include <rte_icmp.h>

#include "fou_fwd.h"
#include "fou_icmp.h"

#define FOU_ICMP_TTL 64			/* Linux' ip_default_ttl / hop_limit */
#define FOU_ICMP4_MAX 576		/* RFC 1812 4.3.2.3: at most 576 bytes */
#define FOU_ICMP_HDR 8
#define FOU_ICMP_DEST_UNREACH 3

/*
 * Token bucket: credit in TSC cycles, each error costs hz / rate. rate and
 * burst were read once by the caller (rate != 0): a change under traffic
 * can never reach the division half-seen.
 */
static bool
fou_icmp_allow(struct fou_lcore *lc, uint32_t rate, uint32_t burst)
{
	uint64_t now = rte_rdtsc();
	uint64_t cost = rte_get_tsc_hz() / rate;
	uint64_t cap = cost * burst;

	if (lc->icmp_tsc == 0) {
		lc->icmp_credit = cap;
	} else {
		lc->icmp_credit += now - lc->icmp_tsc;
		if (lc->icmp_credit > cap)
			lc->icmp_credit = cap;
	}
	lc->icmp_tsc = now;
	if (lc->icmp_credit < cost)
		return false;
	lc->icmp_credit -= cost;
	return true;
}

/* Route the error back to dst; false when there is no way back. */
static bool
fou_icmp_route(struct fou_lcore *lc, const struct fou_nexthop *nh, const void *dst,
	       struct fou_adj *a, struct rte_ether_addr *neigh)
{
	if (nh == NULL || nh->type == FOU_NH_LOCAL || nh->type == FOU_NH_BCAST)
		return false;
	if (fou_adj_resolve(lc->gw, nh, dst, lc->now, a) != FOU_FWD)
		return false;
	return fou_adj_neigh(lc, a, neigh);
}

/*
 * The address of the family of target on a device, port (tunnel 0) or
 * tunnel (index + 1): the one on the network of target, else the device's
 * first; NULL if it has none. *gw_first: the gateway's first of the family.
 */
static const struct fou_addr *
fou_icmp_dev_addr(const struct fou_addr_set *as, uint16_t port, uint32_t tunnel,
		  const struct fou_ip *target, const struct fou_addr **gw_first)
{
	const struct fou_addr *dev_first = NULL;
	unsigned int i;

	for (i = 0; i < as->n; i++) {
		const struct fou_addr *ad = &as->a[i];

		if (ad->ip.family != target->family)
			continue;
		if (*gw_first == NULL)
			*gw_first = ad;
		if (ad->tunnel != tunnel || (tunnel == 0 && ad->port != port))
			continue;
		if (fou_prefix_contains(&ad->ip, target))
			return ad;
		if (dev_first == NULL)
			dev_first = ad;
	}
	return dev_first;
}

/*
 * The source of an error leaving along adjacency a toward dst, as
 * inet_select_addr / ipv6_dev_get_saddr on the device it leaves by (the
 * connected route's preferred source): through a tunnel, the tunnel's
 * address on the network of dst, else its first; a tunnel without an
 * address of the family has, for IPv4, its local, for IPv6, what the
 * port it leaves by has. Out of a port, the port's address on the network
 * of the next hop (dst itself, or the gateway), else the port's first,
 * else the gateway's first. Slow path: a walk or two over the addresses.
 */
static bool
fou_icmp_src(const struct fou_gw *gw, const struct fou_adj *a, uint8_t family, const void *dst,
	     void *src)
{
	struct fou_ip target = { .family = family };
	const struct fou_addr *gw_first = NULL, *pick = NULL;
	const size_t alen = family == AF_INET ? 4 : 16;
	const struct fou_addr_set *as = __atomic_load_n(&gw->addrs, __ATOMIC_ACQUIRE);

	memcpy(family == AF_INET ? (void *)&target.v4 : (void *)target.v6, dst, alen);
	if (a->tun != NULL) {
		pick = fou_icmp_dev_addr(as, 0, a->tun->idx + 1, &target, &gw_first);
		if (pick == NULL && family == AF_INET) {
			memcpy(src, &((const struct rte_ipv4_hdr *)a->tun->hdr)->src_addr, alen);
			return true;
		}
	}
	/* the outer next hop of a tunnel is of another family for IPv6 */
	if (pick == NULL && a->nh->type == FOU_NH_GATEWAY && a->nh->gw.family == family)
		target = a->nh->gw;
	if (pick == NULL)
		pick = fou_icmp_dev_addr(as, a->port, 0, &target, &gw_first);
	if (pick == NULL)
		pick = gw_first;
	if (pick == NULL)
		return false;
	memcpy(src, family == AF_INET ? (const void *)&pick->ip.v4 : (const void *)pick->ip.v6,
	       alen);
	return true;
}

/* The finished error leaves along a, and counts once it has. */
static unsigned int
fou_icmp_send(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_adj *a,
	      const struct rte_ether_addr *neigh, bool v6, enum fou_icmp_kind kind,
	      uint16_t *out_port)
{
	unsigned int r;

	m->l3_len = v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L4_ICMP |
			 (v6 ? RTE_PTYPE_L3_IPV6 : RTE_PTYPE_L3_IPV4);
	r = fou_adj_send(lc, m, a, neigh, v6, out_port);
	if (r == FOU_FWD)
		FOU_STAT_ADD(lc->st->icmp_out[kind], 1);
	return r;
}

/* ICMP types that are errors themselves: never answered with an error. */
static bool
fou_icmp4_is_error(uint8_t type)
{
	return type == FOU_ICMP_DEST_UNREACH || type == 4 /* source quench */ ||
	       type == 5 /* redirect */ || type == 11 /* time exceeded */ ||
	       type == 12 /* parameter problem */;
}

unsigned int
fou_icmp4_error(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off, uint32_t tot,
		enum fou_icmp_kind kind, uint16_t mtu, unsigned int fallback, uint16_t *out_port)
{
	const struct fou_gw *gw = lc->gw;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								 off);
	const uint32_t hl = (ip->version_ihl & 0xfu) * 4;
	struct rte_ipv4_hdr *nip;
	struct rte_icmp_hdr *icmp;
	rte_be32_t saddr, daddr = ip->src_addr;
	uint32_t quote;
	uint16_t c, way_mtu;
	uint8_t tos = (uint8_t)((ip->type_of_service & 0x1e) | 0xc0);
	struct fou_adj a;
	struct rte_ether_addr neigh;
	uint32_t rate, burst;

	fou_icmp_limit_load(gw, &rate, &burst);
	if (rate == 0)
		return fallback;
	/* icmp_send: only about a first fragment, never about an error */
	if (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK))
		return fallback;
	if (ip->next_proto_id == IPPROTO_ICMP) {
		if (tot < hl + 1 || off + hl + 1 > rte_pktmbuf_data_len(m))
			return fallback;
		if (fou_icmp4_is_error(*((const uint8_t *)ip + hl)))
			return fallback;
	}
	if (!fou_icmp_route(lc, fou_route4(gw, daddr), &daddr, &a, &neigh))
		return fallback;
	/* the source is an address of the way out (RFC 1812 4.3.2.4, Linux'
	 * default): the tunnel's or its local, or the egress port's */
	if (!fou_icmp_src(gw, &a, AF_INET, &daddr, &saddr))
		return fallback;
	/* the error itself leaves without DF */
	way_mtu = fou_adj_mtu(&a, false);
	if (way_mtu < sizeof(*nip) + FOU_ICMP_HDR + hl + 8)
		return fallback;
	if (!fou_icmp_allow(lc, rate, burst))
		return FOU_DROP_ICMP_RATELIMITED;

	quote = RTE_MIN(tot, (uint32_t)RTE_MIN(way_mtu, FOU_ICMP4_MAX) -
			     (uint32_t)(sizeof(*nip) + FOU_ICMP_HDR));
	fou_l3_isolate(m, off, quote);
	nip = (struct rte_ipv4_hdr *)rte_pktmbuf_prepend(m, sizeof(*nip) + FOU_ICMP_HDR);
	if (nip == NULL)
		return FOU_DROP_NO_HEADROOM;
	icmp = (struct rte_icmp_hdr *)(nip + 1);
	memset(icmp, 0, FOU_ICMP_HDR);
	if (kind == FOU_ICMP_FRAG_NEEDED) {
		icmp->icmp_type = FOU_ICMP_DEST_UNREACH;
		icmp->icmp_code = 4;	/* fragmentation needed and DF set */
		icmp->icmp_seq_nb = rte_cpu_to_be_16(mtu);
	} else {
		icmp->icmp_type = 11;	/* time exceeded in transit */
	}
	c = (uint16_t)~fou_cksum_fold(m, sizeof(*nip), FOU_ICMP_HDR + quote, 0);
	icmp->icmp_cksum = c;
	*nip = (struct rte_ipv4_hdr){
		.version_ihl = RTE_IPV4_VHL_DEF,
		.type_of_service = tos,
		.total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*nip) + FOU_ICMP_HDR + quote)),
		.packet_id = rte_cpu_to_be_16(lc->ip_id),
		.time_to_live = FOU_ICMP_TTL,
		.next_proto_id = IPPROTO_ICMP,
		.src_addr = saddr,
		.dst_addr = daddr,
	};
	lc->ip_id++;
	nip->hdr_checksum = rte_ipv4_cksum(nip);
	return fou_icmp_send(lc, m, &a, &neigh, false, kind, out_port);
}

unsigned int
fou_icmp6_error(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off, uint32_t tot,
		enum fou_icmp_kind kind, uint32_t mtu, unsigned int fallback, uint16_t *out_port)
{
	const struct fou_gw *gw = lc->gw;
	const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
								  off);
	struct rte_ipv6_hdr *nip6;
	uint8_t *icmp, saddr[16], daddr[16];
	uint32_t quote, len;
	rte_be32_t be;
	uint16_t c;
	struct fou_adj a;
	struct rte_ether_addr neigh;
	uint32_t rate, burst;

	fou_icmp_limit_load(gw, &rate, &burst);
	if (rate == 0)
		return fallback;
	/* icmp6_send: never about an ICMPv6 error (types below 128) */
	if (ip6->proto == IPPROTO_ICMPV6) {
		if (tot < sizeof(*ip6) + 1 || off + sizeof(*ip6) + 1 > rte_pktmbuf_data_len(m))
			return fallback;
		if (*((const uint8_t *)(ip6 + 1)) < 128)
			return fallback;
	}
	memcpy(daddr, ip6->src_addr, 16);
	if (!fou_icmp_route(lc, fou_route6(gw, daddr), daddr, &a, &neigh))
		return fallback;
	/* an address of the tunnel or of the egress port, or the gateway's
	 * first */
	if (!fou_icmp_src(gw, &a, AF_INET6, daddr, saddr))
		return fallback;
	if (fou_adj_mtu(&a, false) < RTE_IPV6_MIN_MTU)
		return fallback;
	if (!fou_icmp_allow(lc, rate, burst))
		return FOU_DROP_ICMP_RATELIMITED;

	/* RFC 4443 2.4(c): as much as fits in the minimum MTU */
	quote = RTE_MIN(tot, (uint32_t)(RTE_IPV6_MIN_MTU - sizeof(*nip6) - FOU_ICMP_HDR));
	fou_l3_isolate(m, off, quote);
	nip6 = (struct rte_ipv6_hdr *)rte_pktmbuf_prepend(m, sizeof(*nip6) + FOU_ICMP_HDR);
	if (nip6 == NULL)
		return FOU_DROP_NO_HEADROOM;
	len = FOU_ICMP_HDR + quote;
	*nip6 = (struct rte_ipv6_hdr){
		.vtc_flow = rte_cpu_to_be_32(6u << 28),
		.payload_len = rte_cpu_to_be_16((uint16_t)len),
		.proto = IPPROTO_ICMPV6,
		.hop_limits = FOU_ICMP_TTL,
	};
	memcpy(nip6->src_addr, saddr, 16);
	memcpy(nip6->dst_addr, daddr, 16);
	icmp = (uint8_t *)(nip6 + 1);
	memset(icmp, 0, FOU_ICMP_HDR);
	icmp[0] = kind == FOU_ICMP_PKT_TOO_BIG ? 2 : 3;	/* packet too big : time exceeded */
	be = rte_cpu_to_be_32(kind == FOU_ICMP_PKT_TOO_BIG ? mtu : 0);
	memcpy(icmp + 4, &be, 4);
	c = (uint16_t)~fou_cksum_fold(m, sizeof(*nip6), len, rte_ipv6_phdr_cksum(nip6, 0));
	memcpy(icmp + 2, &c, 2);
	return fou_icmp_send(lc, m, &a, &neigh, true, kind, out_port);
}
