/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tunnels' path MTU: an ICMP "fragmentation needed" sent to one of our
 * addresses about an outer packet a tunnel sent lowers that tunnel's path
 * MTU (gw->tun_pmtu word), as Linux' ipip_err / ipgre_err and the FOU error
 * handler (__udp4_lib_err_encap) do through ipv4_update_pmtu and
 * __ip_rt_update_pmtu: a reported MTU below 552 counts as 552
 * (ip_rt_min_pmtu), an error never raises it, and it expires after 10
 * minutes (ip_rt_mtu_expires). Over an IPv6 underlay an ICMPv6 packet too
 * big does the same for an ip6tnl / ip6gre tunnel (ip6_tnl_err,
 * ip6gre_err, and fou6 / gue6's error handlers, through ip6_update_pmtu):
 * never below 1280, the same 10 minutes (ip6_rt_mtu_expires). Called by
 * the receive stage (fou_rx.c); runs on worker lcores: no locks, no logs,
 * no allocation.
 *
 * The quote must be an outer packet exactly as the tunnel sends it:
 * source its local, destination its remote, its protocol (UDP to its
 * encap-dport from its encap-sport or range, with GUE's header after it,
 * or plain IPIP / SIT / GRE), and for GRE its flags and key. An error forged from off the path must
 * guess all of that, and even then lowers the MTU no further than 552 for
 * 10 minutes, as it could with Linux.
 */
#include "fou_fwd.h"
#include "fou_pmtu.h"

#define FOU_ICMP_HDR 8
/* What is read of a quote: an IPv4 header with options, UDP, and GRE up
 * to its key (flags and protocol, checksum word, key). */
#define FOU_PMTU_QUOTE_MAX (60 + 8 + 12)

/* The outer addresses of the quoted packet: IPv4 or (v6) IPv6. */
struct fou_pmtu_quote {
	bool v6;
	rte_be32_t src;		/* our tunnel's local */
	rte_be32_t dst;		/* its remote */
	const uint8_t *src6;	/* the same over IPv6 */
	const uint8_t *dst6;
};

/*
 * The tunnel of type between the quote's addresses (with a GRE key). Over
 * IPv6 an ip6tnl is keyed by its addresses alone (fou_tun_key6): its mode
 * must take type (IPIP or IPv6), the protocol the quote says it carried.
 */
static const struct fou_tunnel *
fou_pmtu_lookup(const struct fou_gw *gw, const struct fou_pmtu_quote *q, uint8_t type,
		bool key_set, uint32_t key)
{
	const struct fou_tunnel *t;
	struct fou_tun_key6 k6;
	struct fou_tun_key k;
	uint8_t type6;
	void *data;

	if (!q->v6) {
		if (__atomic_load_n(&gw->tun_types[type], __ATOMIC_ACQUIRE) == 0)
			return NULL;
		fou_tun_key_make(&k, type, q->src, q->dst, key_set, key);
		if (rte_hash_lookup_data(gw->tun_rx, &k, &data) < 0)
			return NULL;
		return &gw->tunnels[(uintptr_t)data];
	}
	type6 = type == IPPROTO_GRE ? IPPROTO_GRE : FOU_TUN6_IP6TNL;
	if (__atomic_load_n(&gw->tun_types6[type6], __ATOMIC_ACQUIRE) == 0)
		return NULL;
	fou_tun_key6_make(&k6, type6, q->src6, q->dst6, key_set, key);
	if (rte_hash_lookup_data(gw->tun_rx6, &k6, &data) < 0)
		return NULL;
	t = &gw->tunnels[(uintptr_t)data];
	if (type6 == FOU_TUN6_IP6TNL && fou_tunnel6_type(t) != FOU_TUN_ANY &&
	    fou_tunnel6_type(t) != type)
		return NULL;
	return t;
}

/*
 * The tunnel of type that sent the quoted tunnel payload p (n bytes of it:
 * after UDP for FOU, after IPv4 for plain; an RFC 792 router quotes only
 * 8 bytes past the IPv4 header, so for FOU there may be none). Where the
 * quote has them, the inner IP version and the GRE flags must be the
 * tunnel's; a GRE key must be there for a keyed tunnel to match.
 */
static const struct fou_tunnel *
fou_pmtu_type(const struct fou_gw *gw, const struct fou_pmtu_quote *q, uint8_t type,
	      const uint8_t *p, uint32_t n)
{
	const struct fou_tunnel *t;
	uint16_t flags = 0;
	uint32_t key = 0;

	if (type == IPPROTO_IPIP || type == IPPROTO_IPV6) {
		if (n >= 1 && (p[0] >> 4) != (type == IPPROTO_IPIP ? 4 : 6))
			return NULL;
		return fou_pmtu_lookup(gw, q, type, false, 0);
	}
	if (n >= 4) {
		flags = (uint16_t)(p[0] << 8 | p[1]);
		if (flags & FOU_GRE_K) {
			const uint32_t at = fou_gre_key_off(flags);
			rte_be32_t be;

			if (n < at + 4)
				return NULL;
			memcpy(&be, p + at, sizeof(be));
			key = rte_be_to_cpu_32(be);
		}
	}
	t = fou_pmtu_lookup(gw, q, IPPROTO_GRE, (flags & FOU_GRE_K) != 0, key);
	if (t != NULL && n >= 4 &&
	    flags != ((t->conf.gre_csum ? FOU_GRE_C : 0) | (t->conf.key_set ? FOU_GRE_K : 0) |
		      (t->conf.gre_seq ? FOU_GRE_S : 0)))
		return NULL;
	return t;
}

/*
 * The FOU or GUE tunnel of type that sent the quoted UDP datagram p (n
 * bytes of it). A GUE tunnel's 4 bytes (version 0, its type, no flags) must
 * be in the quote, as Linux' gue_err wants the GUE header; its payload
 * follows them. (The rare path reads the tunnel's configuration.)
 */
static const struct fou_tunnel *
fou_pmtu_udp(const struct fou_gw *gw, const struct fou_pmtu_quote *q, uint8_t type,
	     const uint8_t *p, uint32_t n)
{
	const struct fou_tunnel *t = NULL;

	if (n >= 8 + FOU_GUE_HLEN && p[8] == 0 && p[9] == type && p[10] == 0 && p[11] == 0) {
		t = fou_pmtu_type(gw, q, type, p + 8 + FOU_GUE_HLEN, n - 8 - FOU_GUE_HLEN);
		if (t != NULL && t->conf.encap == FOU_ENCAP_GUE)
			return t;
	}
	t = fou_pmtu_type(gw, q, type, p + 8, n - 8);
	return t != NULL && t->conf.encap == FOU_ENCAP_GUE ? NULL : t;
}

/* Did FOU tunnel t send the quoted UDP header: to its encap-dport, from
 * its encap-sport or, with encap-sport auto, from the range? (Read from
 * its configuration: the outer header before UDP differs by family.) */
static bool
fou_pmtu_udp_ok(const struct fou_gw *gw, const struct fou_tunnel *t, const uint8_t *udp)
{
	const uint16_t sport = (uint16_t)(udp[0] << 8 | udp[1]);
	const uint16_t dport = (uint16_t)(udp[2] << 8 | udp[3]);
	uint16_t min, max;

	if (t->conf.encap == FOU_ENCAP_NONE || dport != t->conf.encap_dport)
		return false;
	if (t->conf.encap_sport != 0)
		return sport == t->conf.encap_sport;
	fou_sport_range_load(gw, &min, &max);
	return sport >= min && sport <= max;
}

/*
 * The tunnel that sent the quoted outer packet's payload p (n bytes of
 * it) of protocol proto: UDP for FOU and GUE (of any of the three tunnel
 * protocols, the ports its own), else plain IPIP / IPv6 / GRE from a
 * tunnel with encap none.
 */
static const struct fou_tunnel *
fou_pmtu_payload(const struct fou_gw *gw, const struct fou_pmtu_quote *q, uint8_t proto,
		 const uint8_t *p, uint32_t n)
{
	const struct fou_tunnel *t = NULL;

	if (proto == IPPROTO_UDP) {
		static const uint8_t types[] = { IPPROTO_IPIP, IPPROTO_IPV6, IPPROTO_GRE };
		unsigned int i;

		for (i = 0; i < RTE_DIM(types) && t == NULL; i++) {
			t = fou_pmtu_udp(gw, q, types[i], p, n);
			if (t != NULL && !fou_pmtu_udp_ok(gw, t, p))
				t = NULL;
		}
	} else if (proto == IPPROTO_IPIP || proto == IPPROTO_IPV6 || proto == IPPROTO_GRE) {
		t = fou_pmtu_type(gw, q, proto, p, n);
		if (t != NULL && t->conf.encap != FOU_ENCAP_NONE)
			t = NULL;
	}
	return t;
}

/*
 * Lower the path MTU word at slot to mtu, for lifetime (TSC cycles) from
 * now, if mtu is below what the path carries now: the word's MTU while it
 * lasts, else the egress port's (link). false when it would not lower it
 * (__ip_rt_update_pmtu: old_mtu < mtu returns). Several workers may race:
 * each retries against what the other wrote, so the lowest one stays.
 */
static bool
fou_pmtu_lower(uint64_t *slot, uint16_t mtu, uint16_t link, uint64_t now, uint64_t lifetime)
{
	const uint64_t w = fou_pmtu_word(mtu, now + lifetime);
	uint64_t old = __atomic_load_n(slot, __ATOMIC_RELAXED);

	do {
		const uint16_t cur = fou_pmtu_word_mtu(old, now);

		if (mtu >= (cur != 0 && cur < link ? cur : link))
			return false;
	} while (!__atomic_compare_exchange_n(slot, &old, w, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

/* Tunnel t's path MTU lowered to mtu, below what its egress port
 * carries, and counted either way: the error was about a tunnel. */
static unsigned int
fou_pmtu_apply(struct fou_lcore *lc, const struct fou_tunnel *t, uint16_t mtu)
{
	const struct fou_nexthop *onh;
	uint16_t tun_mtu, tun_mtu_nodf, link = UINT16_MAX;

	if (fou_tunnel_egress(lc->gw, NULL, t, lc->now, &onh, &tun_mtu, &tun_mtu_nodf) ==
	    FOU_EGRESS_OK)
		link = (uint16_t)(tun_mtu_nodf + t->hdr_len);
	/* written through lc->gw, the context's writable pointer: a
	 * compare-exchange that only lowers, no lock (fou_private.h) */
	if (fou_pmtu_lower(&lc->gw->tun_pmtu[t->idx].word, mtu, link, lc->now,
			   lc->gw->pmtu_expires_tsc))
		FOU_STAT_ADD(lc->st->local[FOU_LOCAL_PMTU_UPDATES], 1);
	else
		FOU_STAT_ADD(lc->st->local[FOU_LOCAL_PMTU_REFUSED], 1);
	return FOU_CONSUMED;
}

/* ip: the shape every handler fou_rx_local4 calls shares; the message is
 * read from m, across segments where it must be. */
unsigned int
fou_pmtu4_input(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off,
		const struct rte_ipv4_hdr *ip __rte_unused, uint32_t hl, uint32_t tot)
{
	const struct fou_gw *gw = lc->gw;
	const uint32_t len = tot - hl;
	uint8_t buf[FOU_ICMP_HDR + FOU_PMTU_QUOTE_MAX];
	const struct fou_tunnel *t;
	struct fou_pmtu_quote q;
	const uint8_t *icmp, *qip;
	uint32_t n, qhl;
	uint16_t mtu;

	/* icmp_rcv: a whole header, and the checksum over the message */
	if (len < FOU_ICMP_HDR || fou_cksum_fold(m, off + hl, len, 0) != 0xffff)
		return FOU_DROP_PMTU_BAD;
	n = RTE_MIN(len, (uint32_t)sizeof(buf));
	icmp = rte_pktmbuf_read(m, off + hl, n, buf);
	if (icmp == NULL)
		return FOU_DROP_PMTU_BAD;
	/* icmp_unreach, icmp_socket_deliver: an IPv4 header and the 8 bytes
	 * after it (the ports, or the start of the tunnel header) */
	qip = icmp + FOU_ICMP_HDR;
	n -= FOU_ICMP_HDR;
	if (n < sizeof(struct rte_ipv4_hdr) || (qip[0] >> 4) != 4 || (qip[0] & 0xf) < 5)
		return FOU_DROP_PMTU_BAD;
	qhl = (qip[0] & 0xfu) * 4;
	if (n < qhl + 8)
		return FOU_DROP_PMTU_BAD;
	/* a tunnel sends no fragments: a later one quotes none of its headers */
	if ((qip[6] & 0x1f) != 0 || qip[7] != 0)
		return FOU_DROP_PMTU_BAD;
	q.v6 = false;
	memcpy(&q.src, qip + 12, sizeof(q.src));
	memcpy(&q.dst, qip + 16, sizeof(q.dst));
	t = fou_pmtu_payload(gw, &q, qip[9], qip + qhl, n - qhl);
	if (t == NULL)
		return FOU_DROP_PMTU_BAD;

	/* __ip_rt_update_pmtu: below ip_rt_min_pmtu (an MTU of 0 from an
	 * old router too) it is taken as the minimum */
	mtu = RTE_MAX((uint16_t)(icmp[6] << 8 | icmp[7]), (uint16_t)FOU_PMTU_MIN);
	return fou_pmtu_apply(lc, t, mtu);
}

/* The IPv6 extension headers a tunnel may put before its payload in the
 * quote (Linux' ip6tnl / ip6gre: destination options for the encap limit),
 * and a few for a quote from elsewhere: what is read of them. */
#define FOU_PMTU6_EXT_MAX 64
#define FOU_PMTU6_QUOTE_MAX (40 + FOU_PMTU6_EXT_MAX + 8 + FOU_GUE_HLEN + 12)

unsigned int
fou_pmtu6_input(struct fou_lcore *lc, struct rte_mbuf *m, const struct rte_ipv6_hdr *ip6,
		uint32_t at, uint32_t len)
{
	const struct fou_gw *gw = lc->gw;
	uint8_t buf[FOU_ICMP_HDR + FOU_PMTU6_QUOTE_MAX];
	const struct fou_tunnel *t;
	struct fou_pmtu_quote q;
	const uint8_t *icmp, *qip;
	uint32_t n, h = 40, mtu32;
	uint8_t nh;

	/* icmpv6_rcv: a whole header, and the checksum with its pseudo-header */
	if (len < FOU_ICMP_HDR ||
	    fou_cksum_fold(m, at, len, __rte_raw_cksum(ip6->src_addr, 32, 0) +
			   rte_cpu_to_be_16((uint16_t)len) + rte_cpu_to_be_16(IPPROTO_ICMPV6)) !=
	    0xffff)
		return FOU_DROP_PMTU_BAD;
	n = RTE_MIN(len, (uint32_t)sizeof(buf));
	icmp = rte_pktmbuf_read(m, at, n, buf);
	if (icmp == NULL)
		return FOU_DROP_PMTU_BAD;
	/* icmpv6_notify: the quoted IPv6 header, its extension headers
	 * stepped over to the protocol whose error handler is called */
	qip = icmp + FOU_ICMP_HDR;
	n -= FOU_ICMP_HDR;
	if (n < 40 || (qip[0] >> 4) != 6)
		return FOU_DROP_PMTU_BAD;
	nh = qip[6];
	while (nh == IPPROTO_HOPOPTS || nh == IPPROTO_DSTOPTS || nh == IPPROTO_ROUTING) {
		if (n < h + 8 || n < h + (qip[h + 1] + 1u) * 8)
			return FOU_DROP_PMTU_BAD;
		nh = qip[h];
		h += (qip[h + 1] + 1u) * 8;
	}
	/* a tunnel sends no fragments (nh 44 is no tunnel's protocol) */
	q.v6 = true;
	q.src6 = qip + 8;
	q.dst6 = qip + 24;
	t = fou_pmtu_payload(gw, &q, nh, qip + h, n - h);
	if (t == NULL)
		return FOU_DROP_PMTU_BAD;

	/* ip6_update_pmtu / __ip6_rt_update_pmtu: never below the IPv6
	 * minimum; an MTU the 16 bits of the word cannot hold lowers nothing */
	mtu32 = (uint32_t)icmp[4] << 24 | (uint32_t)icmp[5] << 16 | (uint32_t)icmp[6] << 8 |
		icmp[7];
	if (mtu32 >= UINT16_MAX) {
		FOU_STAT_ADD(lc->st->local[FOU_LOCAL_PMTU_REFUSED], 1);
		return FOU_CONSUMED;
	}
	return fou_pmtu_apply(lc, t, RTE_MAX((uint16_t)mtu32, (uint16_t)RTE_IPV6_MIN_MTU));
}
