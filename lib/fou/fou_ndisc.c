/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 Neighbour Discovery (RFC 4861) on the workers, as Linux' ndisc_rcv,
 * ndisc_recv_ns and ndisc_recv_na: a solicitation for one of the receiving
 * port's addresses (its link-local one included) is answered at once, the
 * frame turned around into the advertisement (no state, no allocation);
 * what a solicitation's source link-layer option and an advertisement say
 * about a neighbour goes to the control thread as an event, where the
 * neighbour table decides (fou_neigh.c). The control thread builds its own
 * solicitations and announcements here too, hop limit 255 as 7.1 requires
 * of what a receiver accepts. Data path: no locks, no logs, no allocation.
 *
 * Where this differs from Linux: only the receiving port's addresses are
 * answered (as ipv6_get_ifaddr(..., strict) does; no anycast or proxy
 * addresses); the answer to a solicitation without a source link-layer
 * option goes to the frame's source MAC (or the one the table holds)
 * instead of waiting for the gateway's own resolution of the solicitor;
 * ND behind an extension header is not taken; a link-layer option that is
 * not a unicast MAC makes the message invalid.
 */
#include <rte_ip.h>

#include "fou_fwd.h"
#include "fou_hdr.h"
#include "fou_ndisc.h"
#include "fou_punt.h"

#define FOU_NDISC_HOPS 255
#define FOU_NDISC_OPT_SLLA 1
#define FOU_NDISC_OPT_TLLA 2
#define FOU_NDISC_MSG 24		/* type, code, checksum, 4 bytes, the target */
#define FOU_NDISC_OPT_LL 8		/* a link-layer address option for Ethernet */

static const uint8_t fou_all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
static const struct rte_ether_addr fou_all_nodes_mac = {
	.addr_bytes = { 0x33, 0x33, 0, 0, 0, 1 } };

/* The IPv6 header of an ND message we send: traffic class and flow label
 * 0 (ip6_nd_hdr), payload len bytes. */
static void
fou_ndisc_ip6(struct rte_ipv6_hdr *ip6, uint16_t len, const uint8_t *src, const uint8_t *dst)
{
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip6->payload_len = rte_cpu_to_be_16(len);
	ip6->proto = IPPROTO_ICMPV6;
	ip6->hop_limits = FOU_NDISC_HOPS;
	memcpy(ip6->src_addr, src, 16);
	memcpy(ip6->dst_addr, dst, 16);
}

/* Ethernet + IPv6 + an ICMPv6 message of len bytes; returns the message. */
static uint8_t *
fou_ndisc_frame(struct rte_mbuf *m, uint16_t len, const struct rte_ether_addr *src_mac,
		const struct rte_ether_addr *dst_mac, const uint8_t *src, const uint8_t *dst)
{
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip6;

	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*ip6) + len);
	ip6 = (struct rte_ipv6_hdr *)(eth + 1);
	eth->dst_addr = *dst_mac;
	eth->src_addr = *src_mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	fou_ndisc_ip6(ip6, len, src, dst);
	m->l2_len = sizeof(*eth);
	m->l3_len = sizeof(*ip6);
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_ICMP;
	return (uint8_t *)(ip6 + 1);
}

/* The ICMPv6 checksum of the message after the IPv6 header at off, once
 * the message is complete. */
static void
fou_ndisc_cksum(struct rte_mbuf *m, uint32_t off)
{
	struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, off);
	uint8_t *icmp = (uint8_t *)(ip6 + 1);
	uint16_t c;

	icmp[2] = 0;
	icmp[3] = 0;
	c = (uint16_t)~fou_cksum_fold(m, off + sizeof(*ip6), rte_be_to_cpu_16(ip6->payload_len),
				      rte_ipv6_phdr_cksum(ip6, 0));
	memcpy(icmp + 2, &c, 2);
}

/* An NS or NA body: type, flags, target, and our MAC as the link-layer
 * address option of type opt (0: none). */
static void
fou_ndisc_msg(uint8_t *icmp, uint8_t type, uint32_t flags, const uint8_t *target,
	      uint8_t opt, const struct rte_ether_addr *mac)
{
	rte_be32_t f = rte_cpu_to_be_32(flags);

	icmp[0] = type;
	icmp[1] = 0;
	memcpy(icmp + 4, &f, 4);
	memmove(icmp + 8, target, 16);
	if (opt == 0)
		return;
	icmp[24] = opt;
	icmp[25] = 1;
	memcpy(icmp + 26, mac, RTE_ETHER_ADDR_LEN);
}

void
fou_ndisc_build_ns(struct rte_mbuf *m, const struct rte_ether_addr *mac, const uint8_t *src,
		   const uint8_t *target, const struct rte_ether_addr *ucast)
{
	uint8_t dst[16] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
	struct rte_ether_addr dmac = { .addr_bytes = { 0x33, 0x33, 0xff } };

	if (ucast != NULL) {
		memcpy(dst, target, 16);
		dmac = *ucast;
	} else {
		memcpy(dst + 13, target + 13, 3);
		memcpy(dmac.addr_bytes + 3, target + 13, 3);
	}
	fou_ndisc_msg(fou_ndisc_frame(m, FOU_NDISC_MSG + FOU_NDISC_OPT_LL, mac, &dmac, src, dst),
		      FOU_NDISC_NS, 0, target, FOU_NDISC_OPT_SLLA, mac);
	fou_ndisc_cksum(m, sizeof(struct rte_ether_hdr));
}

void
fou_ndisc_build_na(struct rte_mbuf *m, const struct rte_ether_addr *mac,
		   const uint8_t *target, const uint8_t *dst,
		   const struct rte_ether_addr *dst_mac, uint32_t flags)
{
	fou_ndisc_msg(fou_ndisc_frame(m, FOU_NDISC_MSG + FOU_NDISC_OPT_LL, mac,
				      dst_mac != NULL ? dst_mac : &fou_all_nodes_mac, target,
				      dst != NULL ? dst : fou_all_nodes),
		      FOU_NDISC_NA, flags, target, FOU_NDISC_OPT_TLLA, mac);
	fou_ndisc_cksum(m, sizeof(struct rte_ether_hdr));
}

/* --- receive ------------------------------------------------------------------ */

/* ff02::1:ffXX:XXXX, the solicited-node group of addresses ending XXXXXX. */
static inline bool
fou_ndisc_solicited_node(const uint8_t *a)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

	return memcmp(a, pfx, sizeof(pfx)) == 0;
}

/*
 * Whether port is in the group g (ip6_mc_input): all nodes, all routers
 * (a router joins it), or the solicited-node group of one of its addresses,
 * the link-local one included.
 */
static bool
fou_ndisc_member(const struct fou_gw *gw, uint16_t port, const uint8_t *g)
{
	static const uint8_t all_routers[16] = { 0xff, 0x02, [15] = 0x02 };
	const struct fou_addr_set *as;
	uint8_t ll[16];
	unsigned int i;

	if (memcmp(g, fou_all_nodes, 16) == 0 || memcmp(g, all_routers, 16) == 0)
		return true;
	if (!fou_ndisc_solicited_node(g))
		return false;
	fou_ll6(&gw->iface[port].mac, ll);
	if (memcmp(ll + 13, g + 13, 3) == 0)
		return true;
	as = __atomic_load_n(&gw->addrs, __ATOMIC_ACQUIRE);
	for (i = 0; i < as->n; i++)
		if (as->a[i].port == port && as->a[i].ip.family == AF_INET6 &&
		    memcmp(as->a[i].ip.v6 + 13, g + 13, 3) == 0)
			return true;
	return false;
}

/*
 * The options after the message (len bytes at opt), as ndisc_parse_options:
 * every option at least 8 bytes and within the message, or the message is
 * invalid (false). *ll: the first option of type want, which for Ethernet
 * must be 8 bytes (ndisc_opt_addr_data); NULL without one. Other options
 * are ignored.
 */
static bool
fou_ndisc_opts(const uint8_t *opt, uint32_t len, uint8_t want, const uint8_t **ll)
{
	*ll = NULL;
	while (len != 0) {
		uint32_t l;

		if (len < 2)
			return false;
		l = (uint32_t)opt[1] * 8;
		if (l == 0 || l > len)
			return false;
		if (opt[0] == want && *ll == NULL) {
			if (l != FOU_NDISC_OPT_LL)
				return false;
			*ll = opt + 2;
		}
		opt += l;
		len -= l;
	}
	return true;
}

static inline bool
fou_ndisc_multicast(const uint8_t *a)
{
	return a[0] == 0xff;
}

/* ::last: the unspecified address (0), loopback (1) */
static inline bool
fou_ip6_is_low(const uint8_t *a, uint8_t last)
{
	static const uint8_t zero[15];

	return memcmp(a, zero, sizeof(zero)) == 0 && a[15] == last;
}

static inline bool
fou_ip6_is_unspec(const uint8_t *a)
{
	return fou_ip6_is_low(a, 0);
}

static inline bool
fou_ip6_is_loopback(const uint8_t *a)
{
	return fou_ip6_is_low(a, 1);
}

/*
 * A solicitation for one of our addresses (ndisc_recv_ns): the answer goes
 * to its source at its link-layer address, or to all nodes for a duplicate
 * address probe (source ::); override unless the solicitation came to a
 * unicast address; our MAC in a target link-layer option when it came to
 * a group (Linux' inc_opt: a unicast solicitor knows it). The frame becomes
 * the advertisement, its 802.1Q tags kept.
 */
static unsigned int
fou_ndisc_answer(struct fou_lcore *lc, uint16_t port, struct rte_mbuf *m, uint32_t off,
		 uint32_t len, const uint8_t *slla)
{
	const struct fou_gw *gw = lc->gw;
	const struct rte_ether_addr *mac = &gw->iface[port].mac;
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, off);
	uint8_t *icmp = (uint8_t *)(ip6 + 1);
	const uint32_t l4 = off + sizeof(*ip6);
	const bool dad = fou_ip6_is_unspec(ip6->src_addr);
	const bool group = fou_ndisc_multicast(ip6->dst_addr);
	struct rte_ether_addr dmac;
	uint8_t target[16], dst[16];
	uint32_t flags = FOU_NDISC_NA_ROUTER;
	uint16_t nalen = FOU_NDISC_MSG;
	void *data;

	memcpy(target, icmp + 8, 16);
	if (dad) {
		memcpy(dst, fou_all_nodes, 16);
		dmac = fou_all_nodes_mac;
		flags |= FOU_NDISC_NA_OVERRIDE;
		nalen += FOU_NDISC_OPT_LL;
	} else {
		struct fou_neigh_key key;

		memcpy(dst, ip6->src_addr, 16);
		fou_neigh_key_make(&key, port, AF_INET6, dst);
		if (slla != NULL)
			memcpy(&dmac, slla, RTE_ETHER_ADDR_LEN);
		else if (rte_hash_lookup_data(gw->neigh, &key, &data) >= 0)
			fou_neigh_mac(data, &dmac);
		else if (!group)
			dmac = eth->src_addr;
		else
			/* a group solicitation must carry the option (4.3);
			 * Linux answers it only for a neighbour it knows */
			return FOU_DROP_ND_BAD;
		flags |= FOU_NDISC_NA_SOLICITED;
		if (group) {
			flags |= FOU_NDISC_NA_OVERRIDE;
			nalen += FOU_NDISC_OPT_LL;
		}
	}

	/* the solicitation is whole in the first segment: the answer is cut
	 * from it, or grows by the option into its tailroom */
	fou_mbuf_cut(m, l4 + RTE_MIN(len, (uint32_t)nalen));
	if (len < nalen && rte_pktmbuf_append(m, (uint16_t)(nalen - len)) == NULL)
		return FOU_DROP_NO_HEADROOM;
	fou_ndisc_ip6(ip6, nalen, target, dst);
	fou_ndisc_msg(icmp, FOU_NDISC_NA, flags, target,
		      nalen > FOU_NDISC_MSG ? FOU_NDISC_OPT_TLLA : 0, mac);
	fou_ndisc_cksum(m, off);
	eth->dst_addr = dmac;
	eth->src_addr = *mac;
	fou_mbuf_flags_reset(m);
	m->l2_len = off;
	m->l3_len = sizeof(*ip6);
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_ICMP;
	FOU_STAT_ADD(lc->st->local[FOU_LOCAL_NA_OUT], 1);
	return FOU_FWD;
}

unsigned int
fou_ndisc_input(struct fou_lcore *lc, uint16_t port, struct rte_mbuf *m, uint32_t off,
		uint16_t *out_port)
{
	const struct fou_gw *gw = lc->gw;
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
								  off);
	const uint32_t l4 = off + sizeof(*ip6);
	const uint32_t len = rte_be_to_cpu_16(ip6->payload_len);
	const uint8_t *src = ip6->src_addr, *dst = ip6->dst_addr, *icmp, *target, *ll;
	const bool group = fou_ndisc_multicast(dst);
	struct rte_ether_addr lladdr;
	uint32_t flags;
	unsigned int r;

	/* ip6_rcv_core: a group never sends, loopback stays in the host */
	if (fou_ndisc_multicast(src) || fou_ip6_is_loopback(src))
		return FOU_DROP_OUTER_MARTIAN;
	if (group) {
		/* ip6_mc_input: a group the port is in, reached through its
		 * own MAC (RFC 2464 7; what a NIC's filter lets in) or ours */
		const uint8_t *d = eth->dst_addr.addr_bytes;

		if (!fou_ndisc_member(gw, port, dst) ||
		    (!rte_is_same_ether_addr(&eth->dst_addr, &gw->iface[port].mac) &&
		     (d[0] != 0x33 || d[1] != 0x33 || memcmp(d + 2, dst + 12, 4) != 0)))
			return FOU_DROP_BCAST_MCAST;
	} else if (!fou_addr_mine(gw, -1, AF_INET6, dst) && !fou_addr6_mine_on(gw, port, dst)) {
		/* a link-local address of someone else: never forwarded */
		return FOU_DROP_OUTER_MARTIAN;
	}

	/* icmpv6_rcv: the header, the checksum over the pseudo header */
	r = fou_need(m, l4, len, len < 8 ? 8 : len, FOU_DROP_ND_BAD);
	if (r != FOU_FWD)
		return r;
	if (fou_cksum_fold(m, l4, len, rte_ipv6_phdr_cksum(ip6, 0)) != 0xffff)
		return FOU_DROP_ND_BAD;
	icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, l4);
	/* ndisc_rcv, RFC 4861 7.1.1 / 7.1.2: from the link itself, code 0,
	 * the whole message, a unicast target */
	if (ip6->hop_limits != FOU_NDISC_HOPS || icmp[1] != 0 || len < FOU_NDISC_MSG)
		return FOU_DROP_ND_BAD;
	target = icmp + 8;
	if (fou_ndisc_multicast(target))
		return FOU_DROP_ND_BAD;

	if (icmp[0] == FOU_NDISC_NA) {
		memcpy(&flags, icmp + 4, 4);
		flags = rte_be_to_cpu_32(flags);
		if ((flags & FOU_NDISC_NA_SOLICITED) && group)
			return FOU_DROP_ND_BAD;
		if (!fou_ndisc_opts(icmp + FOU_NDISC_MSG, len - FOU_NDISC_MSG, FOU_NDISC_OPT_TLLA,
				    &ll))
			return FOU_DROP_ND_BAD;
		memset(&lladdr, 0, sizeof(lladdr));
		if (ll != NULL) {
			memcpy(&lladdr, ll, RTE_ETHER_ADDR_LEN);
			if (!rte_is_valid_assigned_ether_addr(&lladdr))
				return FOU_DROP_ND_BAD;
		}
		FOU_STAT_ADD(lc->st->local[FOU_LOCAL_NA_IN], 1);
		/* someone advertising our own address: Linux only says so */
		if (!fou_addr6_mine_on(gw, port, target))
			fou_nev_post(lc, FOU_NEV_ADVERT,
				     ((flags & FOU_NDISC_NA_SOLICITED) ? FOU_NEV_F_CONFIRM : 0) |
				     ((flags & FOU_NDISC_NA_OVERRIDE) ? FOU_NEV_F_OVERRIDE : 0) |
				     ((flags & FOU_NDISC_NA_ROUTER) ? FOU_NEV_F_ROUTER : 0),
				     port, &lladdr, AF_INET6, target);
		/* the kernel interface resolves its neighbours too (fou_arp.c) */
		if (fou_punt_on(gw, port))
			return fou_punt_up(lc, port, m, FOU_PUNT_UP_NEIGH);
		return FOU_CONSUMED;
	}

	/* a duplicate address probe goes to the solicited-node group and
	 * says nothing about its sender (7.1.1) */
	if (fou_ip6_is_unspec(src) && !fou_ndisc_solicited_node(dst))
		return FOU_DROP_ND_BAD;
	if (!fou_ndisc_opts(icmp + FOU_NDISC_MSG, len - FOU_NDISC_MSG, FOU_NDISC_OPT_SLLA, &ll))
		return FOU_DROP_ND_BAD;
	if (ll != NULL) {
		memcpy(&lladdr, ll, RTE_ETHER_ADDR_LEN);
		if (fou_ip6_is_unspec(src) || !rte_is_valid_assigned_ether_addr(&lladdr))
			return FOU_DROP_ND_BAD;
	}
	/* no proxy or anycast answers, and no learning from what is not for
	 * us (ndisc_recv_ns returns before its neighbour update) */
	if (!fou_addr6_mine_on(gw, port, target))
		return FOU_DROP_ND_NOT_OURS;
	FOU_STAT_ADD(lc->st->local[FOU_LOCAL_NS_IN], 1);
	/* neigh_event_ns: the solicitor, at the MAC it gave, becomes STALE
	 * (a different MAC replaces the known one at once); our own address
	 * as a source is not a neighbour */
	if (ll != NULL && !fou_addr_mine(gw, -1, AF_INET6, src) && !fou_addr6_mine_on(gw, port, src)) {
		fou_nev_post(lc, FOU_NEV_SOLICIT, FOU_NEV_F_OVERRIDE, port, &lladdr, AF_INET6,
			     src);
		/* and the kernel interface's, from a copy (fou_arp.c) */
		fou_punt_copy(lc, port, m);
	}
	r = fou_ndisc_answer(lc, port, m, off, len, ll != NULL ? lladdr.addr_bytes : NULL);
	if (r == FOU_FWD)
		*out_port = port;
	return r;
}
