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

#include <rte_byteorder.h>

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

/* The next hop of the longest prefix that holds dst, or the default route. */
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

/* The path MTU of tunnel t at now (TSC); 0: none, the egress port's. */
static inline uint16_t
fou_tunnel_pmtu(const struct fou_gw *gw, const struct fou_tunnel *t, uint64_t now)
{
	return fou_pmtu_word_mtu(__atomic_load_n(&gw->tun_pmtu[t->idx], __ATOMIC_RELAXED), now);
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
 * (ipv4_mtu: a learnt path MTU until it expires, else the device's).
 * The path MTU bounds only packets that leave with DF (Linux'
 * tnl_update_pmtu): *mtu_nodf is the port's MTU minus the headers, for a
 * nopmtudisc tunnel's packets without DF, which the path may fragment.
 */
static inline enum fou_egress
fou_tunnel_egress(const struct fou_gw *gw, const struct fou_tunnel *t, uint64_t now,
		  const struct fou_nexthop **onh, uint16_t *mtu, uint16_t *mtu_nodf)
{
	const struct fou_nexthop *nh = fou_route4(gw, t->remote);
	uint16_t link, pmtu;

	if (nh == NULL)
		return FOU_EGRESS_NO_ROUTE;
	if (nh->type != FOU_NH_CONNECTED && nh->type != FOU_NH_GATEWAY)
		return FOU_EGRESS_LOOP;
	*onh = nh;
	link = gw->iface[nh->port].mtu;
	pmtu = fou_tunnel_pmtu(gw, t, now);
	*mtu_nodf = (uint16_t)(link - t->hdr_len);
	*mtu = (uint16_t)((pmtu != 0 && pmtu < link ? pmtu : link) - t->hdr_len);
	return FOU_EGRESS_OK;
}

#endif /* FOU_RIB_H */
