/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The routing table as both sides read it: address arithmetic, the route
 * lookups, and the rule that gives a tunnel its egress and MTU. Pure
 * inline helpers over fou_private.h's tables, so that the data path and
 * the control files (fou_rib.c, fou_tunnel.c) share one copy of each.
 */
#ifndef FOU_RIB_H
#define FOU_RIB_H

#include <string.h>
#include <sys/socket.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_debug.h>
#include <rte_hash_crc.h>

#include "fou_private.h"

static inline uint8_t
fou_ip_maxlen(const struct fou_ip *ip)
{
	return ip->family == AF_INET ? 32 : 128;
}

/* Is bit i (0 = most significant) of the address set? */
static inline int
fou_ip_bit(const struct fou_ip *ip, unsigned int i)
{
	const uint8_t *b = ip->family == AF_INET ? (const uint8_t *)&ip->v4 : ip->v6;

	return (b[i / 8] >> (7 - i % 8)) & 1;
}

/* Clear the bits past plen. */
static inline void
fou_ip_mask(struct fou_ip *ip, uint8_t plen)
{
	uint8_t *b = ip->family == AF_INET ? (uint8_t *)&ip->v4 : ip->v6;
	unsigned int n = fou_ip_maxlen(ip) / 8, i;

	for (i = 0; i < n; i++) {
		if (plen >= 8 * (i + 1))
			continue;
		b[i] &= plen > 8 * i ? (uint8_t)(0xff << (8 - (plen - 8 * i))) : 0;
	}
}

static inline bool
fou_ip_equal(const struct fou_ip *a, const struct fou_ip *b)
{
	if (a->family != b->family)
		return false;
	return a->family == AF_INET ? a->v4 == b->v4 : memcmp(a->v6, b->v6, 16) == 0;
}

/* Does prefix p (its plen) contain address a? */
static inline bool
fou_prefix_contains(const struct fou_ip *p, const struct fou_ip *a)
{
	unsigned int i;

	if (p->family != a->family)
		return false;
	for (i = 0; i < p->plen; i++)
		if (fou_ip_bit(p, i) != fou_ip_bit(a, i))
			return false;
	return true;
}

/* Unicast and usable as an interface address or next hop. */
static inline bool
fou_ip_is_unicast(const struct fou_ip *ip)
{
	static const uint8_t zero[16], loop[16] = { [15] = 1 };

	if (ip->family == AF_INET) {
		uint32_t a = rte_be_to_cpu_32(ip->v4);

		return (a >> 24) != 0 && (a >> 24) != 127 && (a >> 28) != 0xe &&
		       a != 0xffffffff;
	}
	return ip->v6[0] != 0xff && memcmp(ip->v6, zero, 16) != 0 &&
	       memcmp(ip->v6, loop, 16) != 0;
}

/* What a FIB value leads to: the route's next hop, or the default route's. */
static inline const struct fou_nexthop *
fou_route_nh(const struct fou_gw *gw, uint64_t v, const uint32_t *default_nh)
{
	uint32_t nh;

	if (likely(v >= FOU_FIB_NH0))
		return &gw->nh[v - FOU_FIB_NH0];
	nh = __atomic_load_n(default_nh, __ATOMIC_ACQUIRE);
	return nh != 0 ? &gw->nh[nh - 1] : NULL;
}

/* The member of group nh (FOU_NH_GROUP) that a flow of hash h takes. */
static inline const struct fou_nexthop *
fou_nh_member(const struct fou_gw *gw, const struct fou_nexthop *nh, uint32_t h)
{
	const struct fou_nhg *g = gw->nhg[nh->tunnel];

	return &gw->nh[__atomic_load_n(&g->bucket[h % FOU_NHG_BUCKETS], __ATOMIC_RELAXED)];
}

/* The next hop of the longest prefix that holds dst, or the default route. */
static inline const struct fou_nexthop *
fou_route4(const struct fou_gw *gw, rte_be32_t dst)
{
	uint32_t ip = rte_be_to_cpu_32(dst);
	uint64_t v;

	do
		rte_fib_lookup_bulk(gw->fib4, &ip, &v, 1);
	while (unlikely(v == FOU_FIB_RETRY));
	return fou_route_nh(gw, v, &gw->default_nh4);
}

static inline const struct fou_nexthop *
fou_route6(const struct fou_gw *gw, const uint8_t *dst)
{
	uint8_t ip[1][RTE_FIB6_IPV6_ADDR_SIZE];
	uint64_t v;

	memcpy(ip[0], dst, sizeof(ip[0]));
	do
		rte_fib6_lookup_bulk(gw->fib6, ip, &v, 1);
	while (unlikely(v == FOU_FIB_RETRY));
	return fou_route_nh(gw, v, &gw->default_nh6);
}

/*
 * The same for n destinations at once (at most FOU_BURST): the FIB looks
 * them up together, prefetching ahead, so that their cache misses overlap.
 * nh[i] is dst[i]'s next hop, NULL for none.
 */
static inline void
fou_route4_bulk(const struct fou_gw *gw, const rte_be32_t *dst, const struct fou_nexthop **nh,
		unsigned int n)
{
	uint32_t ip[FOU_BURST];
	uint64_t v[FOU_BURST];
	unsigned int i;

	RTE_ASSERT(n <= FOU_BURST);
	for (i = 0; i < n; i++)
		ip[i] = rte_be_to_cpu_32(dst[i]);
	rte_fib_lookup_bulk(gw->fib4, ip, v, (int)n);
	for (i = 0; i < n; i++) {
		while (unlikely(v[i] == FOU_FIB_RETRY))
			rte_fib_lookup_bulk(gw->fib4, &ip[i], &v[i], 1);
		nh[i] = fou_route_nh(gw, v[i], &gw->default_nh4);
	}
}

/* dst: n IPv6 addresses, 16 bytes each, back to back. */
static inline void
fou_route6_bulk(const struct fou_gw *gw, const uint8_t *dst, const struct fou_nexthop **nh,
		unsigned int n)
{
	uint8_t ip[FOU_BURST][RTE_FIB6_IPV6_ADDR_SIZE];
	uint64_t v[FOU_BURST];
	unsigned int i;

	RTE_ASSERT(n <= FOU_BURST);
	memcpy(ip, dst, (size_t)n * RTE_FIB6_IPV6_ADDR_SIZE);
	rte_fib6_lookup_bulk(gw->fib6, ip, v, (int)n);
	for (i = 0; i < n; i++) {
		while (unlikely(v[i] == FOU_FIB_RETRY))
			rte_fib6_lookup_bulk(gw->fib6, &ip[i], &v[i], 1);
		nh[i] = fou_route_nh(gw, v[i], &gw->default_nh6);
	}
}

/* The route to dst, from memo (a burst's lookups, NULL: none) when it
 * holds dst's. */
static inline const struct fou_nexthop *
fou_route4_memo(const struct fou_gw *gw, const struct fou_route_memo *memo, rte_be32_t dst)
{
	unsigned int k;

	if (memo != NULL)
		for (k = 0; k < memo->n4; k++)
			if (memo->a4[k] == dst)
				return memo->nh4[k];
	return fou_route4(gw, dst);
}

static inline const struct fou_nexthop *
fou_route6_memo(const struct fou_gw *gw, const struct fou_route_memo *memo, const uint8_t *dst)
{
	unsigned int k;

	if (memo != NULL)
		for (k = 0; k < memo->n6; k++)
			if (memcmp(memo->a6[k], dst, 16) == 0)
				return memo->nh6[k];
	return fou_route6(gw, dst);
}

/* --- is this address ours ------------------------------------------------- */

static inline uint32_t
fou_own4_hash(rte_be32_t a)
{
	return (a * UINT32_C(0x9e3779b1)) >> 22;	/* log2(FOU_OWN4_SLOTS) bits */
}

static inline uint32_t
fou_own6_hash(const uint8_t *a)
{
	uint32_t w[4];

	memcpy(w, a, sizeof(w));
	return ((w[0] ^ w[1] ^ w[2] ^ w[3]) * UINT32_C(0x9e3779b1)) >> 23;	/* FOU_OWN6_SLOTS */
}
static_assert(FOU_OWN4_SLOTS == 1 << 10 && FOU_OWN6_SLOTS == 1 << 9,
	      "the own-address hashes' shifts are for 1024 and 512 slots");

/* The entry of IPv4 address a in set ls: ours, a broadcast address of
 * ours, or NULL. */
static inline const struct fou_own4 *
fou_own4_in(const struct fou_own_set *ls, rte_be32_t a)
{
	uint32_t h = fou_own4_hash(a);

	for (;; h = (h + 1) & (FOU_OWN4_SLOTS - 1)) {
		const struct fou_own4 *e = &ls->v4[h];

		if (e->kind == 0)
			return NULL;
		if (e->addr == a)
			return e;
	}
}

static inline const struct fou_own6 *
fou_own6_in(const struct fou_own_set *ls, const uint8_t *a)
{
	uint32_t h = fou_own6_hash(a);

	for (;; h = (h + 1) & (FOU_OWN6_SLOTS - 1)) {
		const struct fou_own6 *e = &ls->v6[h];

		if (e->kind == 0)
			return NULL;
		if (memcmp(e->addr, a, 16) == 0)
			return e;
	}
}

/* The same, in what the workers see now. */
static inline const struct fou_own4 *
fou_own4(const struct fou_gw *gw, rte_be32_t a)
{
	return fou_own4_in(__atomic_load_n(&gw->own, __ATOMIC_ACQUIRE), a);
}

static inline const struct fou_own6 *
fou_own6(const struct fou_gw *gw, const uint8_t *a)
{
	return fou_own6_in(__atomic_load_n(&gw->own, __ATOMIC_ACQUIRE), a);
}

/*
 * Where a packet to dst goes: to us when dst is one of our addresses (the
 * own set, no FIB lookup: the next hop of our addresses' routes, which
 * is all the local path reads), else along its route. Equal to the route
 * lookup, whose only FOU_NH_LOCAL routes are our addresses' own.
 */
static inline bool
fou_addr4_own(const struct fou_gw *gw, rte_be32_t a)
{
	const struct fou_own4 *l = fou_own4(gw, a);

	return l != NULL && l->kind == FOU_OWN_ADDR;
}

static inline const struct fou_nexthop *
fou_dst4_memo(const struct fou_gw *gw, const struct fou_route_memo *memo, rte_be32_t dst)
{
	static const struct fou_nexthop local = { .type = FOU_NH_LOCAL, .family = AF_INET };

	if (fou_addr4_own(gw, dst))
		return &local;
	return fou_route4_memo(gw, memo, dst);
}

static inline const struct fou_nexthop *
fou_dst4(const struct fou_gw *gw, rte_be32_t dst)
{
	return fou_dst4_memo(gw, NULL, dst);
}

static inline const struct fou_nexthop *
fou_dst6_memo(const struct fou_gw *gw, const struct fou_route_memo *memo, const uint8_t *dst)
{
	static const struct fou_nexthop local = { .type = FOU_NH_LOCAL, .family = AF_INET6 };

	if (fou_own6(gw, dst) != NULL)
		return &local;
	return fou_route6_memo(gw, memo, dst);
}

static inline const struct fou_nexthop *
fou_dst6(const struct fou_gw *gw, const uint8_t *dst)
{
	return fou_dst6_memo(gw, NULL, dst);
}

static inline bool
fou_ll6_addr(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/*
 * The way to an IPv6 destination from where m came in: a link-local one
 * is on the port it was heard on (m->port, set by the receive path for
 * what it delivers from or to a link-local address), as every Linux
 * interface has its own fe80::/64; anything else is routed.
 */
static inline const struct fou_nexthop *
fou_route6_from(const struct fou_gw *gw, const struct rte_mbuf *m, const uint8_t *dst)
{
	if (fou_ll6_addr(dst))
		return m->port < RTE_MAX_ETHPORTS && gw->iface[m->port].enabled ?
		       &gw->iface[m->port].ll_nh : NULL;
	return fou_route6(gw, dst);
}

/*
 * A tunnel's path MTU word: the outer packet size the path carries in the
 * high 16 bits, and when it expires in the low 48 (TSC >> FOU_PMTU_SHIFT:
 * 65536 cycles, some 20 us, and 48 bits never wrap). 0: none learnt. One
 * word, so a worker reads both halves of one update.
 */
#define FOU_PMTU_MIN 552		/* Linux' ip_rt_min_pmtu: 512 + 20 + 20 */
#define FOU_PMTU_EXPIRES_S 600		/* Linux' ip_rt_mtu_expires */
#define FOU_PMTU_SHIFT 16
#define FOU_PMTU_EXP_MASK ((UINT64_C(1) << 48) - 1)

static inline uint64_t
fou_pmtu_word(uint16_t mtu, uint64_t expires)
{
	return (uint64_t)mtu << 48 | ((expires >> FOU_PMTU_SHIFT) & FOU_PMTU_EXP_MASK);
}

/* The MTU a word holds at now; 0 when none, or when it has expired. */
static inline uint16_t
fou_pmtu_word_mtu(uint64_t w, uint64_t now)
{
	if (w == 0 || (now >> FOU_PMTU_SHIFT) >= (w & FOU_PMTU_EXP_MASK))
		return 0;
	return (uint16_t)(w >> 48);
}

/* The path MTU of tunnel t at now (TSC): the lower of the one ICMP
 * taught while it lasts and the probed one; 0: neither, the egress port's. */
static inline uint16_t
fou_tunnel_pmtu(const struct fou_gw *gw, const struct fou_tunnel *t, uint64_t now)
{
	const struct fou_tun_pmtu *p = &gw->tun_pmtu[t->idx];
	const uint16_t icmp = fou_pmtu_word_mtu(__atomic_load_n(&p->word, __ATOMIC_RELAXED), now);
	const uint16_t probed = __atomic_load_n(&p->probed, __ATOMIC_RELAXED);

	if (probed != 0 && (icmp == 0 || probed < icmp))
		return probed;
	return icmp;
}

/* Why a tunnel's remote cannot be reached (fou_tunnel_egress()). */
enum fou_egress {
	FOU_EGRESS_OK,
	FOU_EGRESS_NO_ROUTE,	/* no route to the remote */
	FOU_EGRESS_LOOP,	/* the remote is routed into a tunnel or to us */
};

/*
 * The one rule for a tunnel's way out: its remote is routed, and must
 * leave through a port (connected or via a gateway). The tunnel's MTU is
 * that port's MTU, or the path MTU learnt for the tunnel where lower,
 * minus the outer headers, as Linux' ip_tunnel_xmit with the route's MTU
 * (ipv4_mtu: a learnt path MTU until it expires, else the device's); the
 * probed path MTU (fou_plpmtu.c) bounds it as the learnt one does.
 * The path MTU bounds only packets that leave with DF (Linux'
 * tnl_update_pmtu): *mtu_nodf is the port's MTU minus the headers, for a
 * nopmtudisc tunnel's packets without DF, which the path may fragment.
 * An IPv6-underlay tunnel's remote is routed through the IPv6 table, and
 * its headers (hdr_len) include IPv6's and the Destination Options'.
 */
static inline enum fou_egress
fou_tunnel_egress(const struct fou_gw *gw, const struct fou_route_memo *memo,
		  const struct fou_tunnel *t, uint64_t now, const struct fou_nexthop **onh,
		  uint16_t *mtu, uint16_t *mtu_nodf)
{
	const struct fou_nexthop *nh = likely(!fou_tunnel_is6(t)) ?
		fou_route4_memo(gw, memo, t->remote) :
		fou_route6_memo(gw, memo, fou_tunnel_remote6(t));
	uint16_t link, pmtu;

	if (nh == NULL)
		return FOU_EGRESS_NO_ROUTE;
	if (nh->type != FOU_NH_CONNECTED && nh->type != FOU_NH_GATEWAY) {
		/* ECMP in the underlay: by the outer addresses, as Linux'
		 * multipath hash (policy 0) takes an outer packet's */
		if (nh->type != FOU_NH_GROUP)
			return FOU_EGRESS_LOOP;
		nh = fou_nh_member(gw, nh, likely(!fou_tunnel_is6(t)) ?
				   rte_hash_crc_4byte(t->remote, 0) :
				   rte_hash_crc(fou_tunnel_remote6(t), 16, 0));
		if (nh->type != FOU_NH_CONNECTED && nh->type != FOU_NH_GATEWAY)
			return FOU_EGRESS_LOOP;
	}
	*onh = nh;
	link = gw->iface[nh->port].mtu;
	pmtu = fou_tunnel_pmtu(gw, t, now);
	*mtu_nodf = (uint16_t)(link - t->hdr_len);
	*mtu = (uint16_t)((pmtu != 0 && pmtu < link ? pmtu : link) - t->hdr_len);
	return FOU_EGRESS_OK;
}

#endif /* FOU_RIB_H */
