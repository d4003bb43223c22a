/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ICMP messages the gateway sends: errors about packets it cannot
 * forward or deliver (TTL expired, too big, no route, port or protocol
 * unreachable), as icmp_send / icmp6_send build them, and echo replies, as
 * icmp_reply / icmpv6_echo_reply do. The packet's own mbuf becomes the
 * message: an error is the packet cut to its quote with headers put in
 * front, a reply the request turned around; either is routed back to the
 * source like any packet (through a tunnel if that is the way back).
 * Errors are rate-limited per lcore by a token bucket; echo replies are
 * not (Linux' icmp_ratemask and icmpv6 ratemask leave them out). Called by
 * the receive stage (fou_rx.c) and local delivery (fou_local.c); runs on
 * worker lcores: no locks, no logs, no allocation.
 */
#include <rte_cycles.h>
#include <rte_icmp.h>

#include "fou_fwd.h"
#include "fou_icmp.h"

#define FOU_ICMP_TTL 64			/* Linux' ip_default_ttl / hop_limit */
#define FOU_ICMP4_MAX 576		/* RFC 1812 4.3.2.3: at most 576 bytes */
#define FOU_ICMP_HDR 8
#define FOU_ICMP_DEST_UNREACH 3
#define FOU_ICMP6_ECHO_REPLY 129

/*
 * What each kind is on the wire, ICMP or ICMPv6 type and code: the kind a
 * caller names is the one counted, so it cannot count one message and send
 * another. (An echo reply keeps the request's code, as Linux does.)
 */
static const struct {
	uint8_t type, code;
} fou_icmp_wire[FOU_ICMP_MAX] = {
	[FOU_ICMP_FRAG_NEEDED] = { FOU_ICMP_DEST_UNREACH, 4 },
	[FOU_ICMP_TIME_EXCEEDED] = { 11, 0 },
	[FOU_ICMP_REASM_EXCEEDED] = { 11, 1 },
	[FOU_ICMP_PKT_TOO_BIG] = { 2, 0 },
	[FOU_ICMP_TIME_EXCEEDED6] = { 3, 0 },
	[FOU_ICMP_ECHO_REPLY] = { RTE_IP_ICMP_ECHO_REPLY, 0 },
	[FOU_ICMP_NET_UNREACH] = { FOU_ICMP_DEST_UNREACH, 0 },
	[FOU_ICMP_HOST_UNREACH] = { FOU_ICMP_DEST_UNREACH, 1 },
	[FOU_ICMP_PROTO_UNREACH] = { FOU_ICMP_DEST_UNREACH, 2 },
	[FOU_ICMP_PORT_UNREACH] = { FOU_ICMP_DEST_UNREACH, 3 },
	[FOU_ICMP_ECHO6_REPLY] = { FOU_ICMP6_ECHO_REPLY, 0 },
	[FOU_ICMP_NOROUTE6] = { 1, 0 },
	[FOU_ICMP_ADDR_UNREACH6] = { 1, 3 },
	[FOU_ICMP_PORT_UNREACH6] = { 1, 4 },
	[FOU_ICMP_PARAM_PROB6] = { 4, 1 },
	[FOU_ICMP_PARAM_OPT6] = { 4, 2 },
};

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

/*
 * Route a message back to dst: where it leaves, or why it cannot. *neigh
 * is NULL when the way back's neighbour is not known yet: the message is
 * then held while it is resolved (fou_adj_output), as Linux queues it in
 * the neighbour entry. A peer that pings us with our MAC still in its
 * cache (we restarted, or it learned us from a gratuitous ARP) is not one
 * we have learned, and its first reply must not be lost.
 */
static unsigned int
fou_icmp_route(struct fou_lcore *lc, const struct fou_nexthop *nh, const void *dst,
	       struct fou_adj *a, struct rte_ether_addr *mac, const struct rte_ether_addr **neigh)
{
	unsigned int r;

	if (nh == NULL || nh->type == FOU_NH_LOCAL || nh->type == FOU_NH_BCAST)
		return FOU_DROP_NO_ROUTE;
	/* a message to an ECMP prefix: by its destination */
	if (nh->type == FOU_NH_GROUP)
		nh = fou_nh_member(lc->gw, nh, nh->family == AF_INET ?
				   rte_hash_crc(dst, 4, 0) : rte_hash_crc(dst, 16, 0));
	r = fou_adj_resolve(lc->gw, NULL, nh, dst, lc->now, a);
	if (r != FOU_FWD)
		return r;
	*neigh = fou_adj_neigh(lc, a, mac) ? mac : NULL;
	return FOU_FWD;
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
 * address of the family has, for IPv4 over IPv4, its local, else what the
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
		/* over IPv6 (ip6tnl, ip6gre) there is no IPv4 local: as the
		 * other tunnels without an address, the port's */
		if (pick == NULL && family == AF_INET && !fou_tunnel_is6(a->tun)) {
			memcpy(src, &((const struct rte_ipv4_hdr *)a->tun->hdr)->src_addr, alen);
			return true;
		}
	}
	/* the outer next hop of a tunnel may be of the other family */
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

/* The finished message leaves along a, and counts once it has. */
static unsigned int
fou_icmp_send(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_adj *a,
	      const struct rte_ether_addr *neigh, bool v6, enum fou_icmp_kind kind,
	      uint16_t *out_port)
{
	unsigned int r;

	m->l3_len = v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L4_ICMP |
			 (v6 ? RTE_PTYPE_L3_IPV6 : RTE_PTYPE_L3_IPV4);
	r = fou_adj_output(lc, m, a, neigh, v6, out_port);
	if (r == FOU_FWD || r == FOU_HELD)
		FOU_STAT_ADD(lc->st->icmp_out[kind], 1);
	return r;
}

/*
 * ICMP types that are errors themselves, never answered with an error:
 * Linux' icmp_pointers[].error, which counts the unassigned types below 13
 * and every type above 18 ("assume any unknown ICMP type is an error"),
 * not only destination unreachable, source quench, redirect, time
 * exceeded and parameter problem. Echo (0, 8), timestamp (13, 14),
 * information (15, 16) and address mask (17, 18) are not.
 */
static bool
fou_icmp4_is_error(uint8_t type)
{
	return type != RTE_IP_ICMP_ECHO_REPLY && type != RTE_IP_ICMP_ECHO_REQUEST &&
	       (type < 13 || type > 18);
}

unsigned int
fou_icmp4_error(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off, uint32_t tot,
		enum fou_icmp_kind kind, uint32_t info, bool local, unsigned int fallback,
		uint16_t *out_port)
{
	const struct fou_gw *gw = lc->gw;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								 off);
	const uint32_t hl = (ip->version_ihl & 0xfu) * 4;
	struct rte_ipv4_hdr *nip;
	struct rte_icmp_hdr *icmp;
	rte_be32_t saddr, daddr = ip->src_addr;
	rte_be32_t be;
	uint32_t quote;
	uint16_t c, way_mtu;
	uint8_t tos = (uint8_t)((ip->type_of_service & 0x1e) | 0xc0);
	struct fou_adj a;
	struct rte_ether_addr mac;
	const struct rte_ether_addr *neigh;
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
	if (fou_icmp_route(lc, fou_route4(gw, daddr), &daddr, &a, &mac, &neigh) != FOU_FWD)
		return fallback;
	/* about a packet for us, the address it was sent to (icmp_send on
	 * a local route); else an address of the way out (RFC 1812 4.3.2.4,
	 * Linux' default): the tunnel's or its local, or the egress port's */
	if (local)
		saddr = ip->dst_addr;
	else if (!fou_icmp_src(gw, &a, AF_INET, &daddr, &saddr))
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
	icmp->icmp_type = fou_icmp_wire[kind].type;
	icmp->icmp_code = fou_icmp_wire[kind].code;
	icmp->icmp_cksum = 0;
	be = rte_cpu_to_be_32(info);
	memcpy((uint8_t *)icmp + 4, &be, sizeof(be));
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
	return fou_icmp_send(lc, m, &a, neigh, false, kind, out_port);
}

unsigned int
fou_icmp6_error(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off, uint32_t tot,
		enum fou_icmp_kind kind, uint32_t info, bool local, unsigned int fallback,
		uint16_t *out_port)
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
	struct rte_ether_addr mac;
	const struct rte_ether_addr *neigh;
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
	if (fou_icmp_route(lc, fou_route6_from(gw, m, daddr), daddr, &a, &mac, &neigh) != FOU_FWD)
		return fallback;
	/* about a packet for us, the address it was sent to (icmp6_send);
	 * else an address of the tunnel or of the egress port, or the
	 * gateway's first */
	if (local)
		memcpy(saddr, ip6->dst_addr, 16);
	else if (!fou_icmp_src(gw, &a, AF_INET6, daddr, saddr))
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
	icmp[0] = fou_icmp_wire[kind].type;
	icmp[1] = fou_icmp_wire[kind].code;
	be = rte_cpu_to_be_32(info);
	memcpy(icmp + 4, &be, 4);
	c = (uint16_t)~fou_cksum_fold(m, sizeof(*nip6), len, rte_ipv6_phdr_cksum(nip6, 0));
	memcpy(icmp + 2, &c, 2);
	return fou_icmp_send(lc, m, &a, neigh, true, kind, out_port);
}

unsigned int
fou_icmp4_echo(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off, uint32_t hl, uint32_t tot,
	       uint8_t ecn, uint16_t *out_port)
{
	const struct fou_gw *gw = lc->gw;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								 off);
	const uint32_t len = tot - hl;
	/* icmp_reply: from the address that was pinged, the whole TOS byte
	 * of the request (its ECN field as decapsulation left it) */
	const rte_be32_t saddr = ip->dst_addr, daddr = ip->src_addr;
	const uint8_t tos = (uint8_t)((ip->type_of_service & ~3u) | ecn);
	struct rte_ipv4_hdr *nip;
	struct rte_icmp_hdr *icmp;
	struct fou_adj a;
	struct rte_ether_addr mac;
	const struct rte_ether_addr *neigh;
	unsigned int r;

	r = fou_icmp_route(lc, fou_route4(gw, daddr), &daddr, &a, &mac, &neigh);
	if (r != FOU_FWD)
		return r;
	/* Linux would fragment a reply too big for the way back */
	if (sizeof(*nip) + len > a.mtu)
		return FOU_DROP_MTU_EXCEEDED;
	icmp = rte_pktmbuf_mtod_offset(m, struct rte_icmp_hdr *, off + hl);
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp->icmp_cksum = 0;
	icmp->icmp_cksum = (uint16_t)~fou_cksum_fold(m, off + hl, len, 0);
	/* a header of its own in front of the message: the request's
	 * options, if any, are not echoed */
	nip = (struct rte_ipv4_hdr *)icmp - 1;
	*nip = (struct rte_ipv4_hdr){
		.version_ihl = RTE_IPV4_VHL_DEF,
		.type_of_service = tos,
		.total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*nip) + len)),
		.packet_id = rte_cpu_to_be_16(lc->ip_id),
		.time_to_live = FOU_ICMP_TTL,
		.next_proto_id = IPPROTO_ICMP,
		.src_addr = saddr,
		.dst_addr = daddr,
	};
	lc->ip_id++;
	nip->hdr_checksum = rte_ipv4_cksum(nip);
	fou_l3_isolate(m, off + hl - (uint32_t)sizeof(*nip), (uint32_t)sizeof(*nip) + len);
	return fou_icmp_send(lc, m, &a, neigh, false, FOU_ICMP_ECHO_REPLY, out_port);
}

unsigned int
fou_icmp6_echo(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off, uint32_t tot, uint8_t ecn,
	       uint16_t *out_port)
{
	const struct fou_gw *gw = lc->gw;
	struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, off);
	const uint32_t len = tot - (uint32_t)sizeof(*ip6);
	uint8_t *icmp = (uint8_t *)(ip6 + 1);
	uint8_t saddr[16], daddr[16], tc;
	struct fou_adj a;
	struct rte_ether_addr mac;
	const struct rte_ether_addr *neigh;
	unsigned int r;
	uint16_t c;

	memcpy(saddr, ip6->dst_addr, 16);
	memcpy(daddr, ip6->src_addr, 16);
	r = fou_icmp_route(lc, fou_route6_from(gw, m, daddr), daddr, &a, &mac, &neigh);
	if (r != FOU_FWD)
		return r;
	if (tot > a.mtu)
		return FOU_DROP_MTU_EXCEEDED;
	/* icmpv6_echo_reply: the request's traffic class, the default hop
	 * limit; flow label 0 where Linux hashes the flow into one
	 * (auto_flowlabels), as for the errors */
	tc = (uint8_t)(((rte_be_to_cpu_32(ip6->vtc_flow) >> 20) & 0xfc) | ecn);
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tc << 20);
	ip6->hop_limits = FOU_ICMP_TTL;
	memcpy(ip6->src_addr, saddr, 16);
	memcpy(ip6->dst_addr, daddr, 16);
	icmp[0] = FOU_ICMP6_ECHO_REPLY;
	icmp[2] = icmp[3] = 0;
	c = (uint16_t)~fou_cksum_fold(m, off + sizeof(*ip6), len, rte_ipv6_phdr_cksum(ip6, 0));
	memcpy(icmp + 2, &c, 2);
	fou_l3_isolate(m, off, tot);
	return fou_icmp_send(lc, m, &a, neigh, true, FOU_ICMP_ECHO6_REPLY, out_port);
}
