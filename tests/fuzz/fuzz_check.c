/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <rte_ether.h>

#include "fuzz.h"
#include "fuzz_check.h"

#define FUZZ_MAX_ENTRIES 64

/* GRE flags (RFC 2784, 2890) */
#define GRE_C 0x8000
#define GRE_K 0x2000
#define GRE_S 0x1000

static struct {
	struct rte_ether_addr mac;
	uint16_t mtu;
	bool tx_cksum;		/* port 2: the NIC sums outer IPv4 and UDP */
} fuzz_port[FUZZ_PORTS];
static struct fou_addr_info fuzz_addr[FUZZ_MAX_ENTRIES];
static unsigned int fuzz_nb_addr;
static struct fou_neigh_info fuzz_neigh[FUZZ_MAX_ENTRIES];
static unsigned int fuzz_nb_neigh;
static struct fou_tunnel_info fuzz_tun[FUZZ_MAX_ENTRIES];
static unsigned int fuzz_nb_tun;
static uint16_t fuzz_sport_min, fuzz_sport_max;

void
fuzz_check_init(const struct fou_gw *gw)
{
	uint16_t p;

	for (p = 0; p < FUZZ_PORTS; p++)
		FUZZ_ASSERT(fou_iface_get(gw, p, &fuzz_port[p].mac, &fuzz_port[p].mtu) == 0,
			    "port %u", p);
	fuzz_port[2].tx_cksum = true;
	fuzz_nb_addr = fou_addr_list(gw, fuzz_addr, FUZZ_MAX_ENTRIES);
	fuzz_nb_neigh = fou_neigh_list(gw, fuzz_neigh, FUZZ_MAX_ENTRIES, 0);
	fuzz_nb_tun = fou_tunnel_list(gw, fuzz_tun, FUZZ_MAX_ENTRIES);
	FUZZ_ASSERT(fuzz_nb_addr <= FUZZ_MAX_ENTRIES && fuzz_nb_neigh <= FUZZ_MAX_ENTRIES &&
		    fuzz_nb_tun <= FUZZ_MAX_ENTRIES, "tables outgrew the checker");
	fou_sport_range_get(gw, &fuzz_sport_min, &fuzz_sport_max);
}

static uint16_t
get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static uint32_t
get32(const uint8_t *b)
{
	return (uint32_t)get16(b) << 16 | get16(b + 2);
}

static bool
fuzz_ours(int family, const uint8_t *a)
{
	unsigned int i;

	for (i = 0; i < fuzz_nb_addr; i++) {
		const struct fou_ip *ip = &fuzz_addr[i].ip;

		if (ip->family == family &&
		    memcmp(a, family == AF_INET ? (const void *)&ip->v4 : (const void *)ip->v6,
			   family == AF_INET ? 4 : 16) == 0)
			return true;
	}
	return false;
}

/* What the output may carry in front of its inner packet. */
struct fuzz_ctx {
	uint64_t ol_flags;	/* of the mbuf, for the outermost header */
	uint16_t port;
	unsigned int depth;	/* 0: the packet on the wire, 1: inside a tunnel */
	int icmp;		/* the packet is an ICMP error we made: 1, 0, -1 unknown */
	bool icmp_seen;
};

static void fuzz_check_ip(uint8_t *p, size_t len, int family, struct fuzz_ctx *c);

static const struct fou_tunnel_info *
fuzz_tunnel_find(const uint8_t *ip, uint8_t proto, const uint8_t *l4, size_t l4len)
{
	unsigned int i;

	for (i = 0; i < fuzz_nb_tun; i++) {
		const struct fou_tunnel_conf *t = &fuzz_tun[i].conf;
		const uint8_t *g = l4;
		size_t glen = l4len;

		if (t->local.family != AF_INET || memcmp(ip + 12, &t->local.v4, 4) != 0 ||
		    memcmp(ip + 16, &t->remote.v4, 4) != 0)
			continue;
		if (t->encap != FOU_ENCAP_NONE) {
			if (proto != IPPROTO_UDP || l4len < 8 || get16(l4 + 2) != t->encap_dport)
				continue;
			g += 8;
			glen -= 8;
			if (t->encap == FOU_ENCAP_GUE) {
				if (glen < 4)
					return &fuzz_tun[i];
				/* one GUE port for every type: the header names it */
				if (g[1] != t->type)
					continue;
				g += 4;
				glen -= 4;
			}
		} else if (proto != t->type) {
			continue;
		}
		if (t->type != IPPROTO_GRE)
			return &fuzz_tun[i];
		/* GRE tunnels between the same ends differ by their key */
		if (glen < 4)
			return &fuzz_tun[i];
		if (!(g[0] & 0x20) != !t->key_set)
			continue;
		if (t->key_set && (glen < (g[0] & 0x80 ? 12u : 8u) ||
				   get32(g + (g[0] & 0x80 ? 8 : 4)) != t->key))
			continue;
		return &fuzz_tun[i];
	}
	return NULL;
}

/* The GRE header at g (glen bytes to the end) of tunnel t; returns its length. */
static size_t
fuzz_check_gre(const uint8_t *g, size_t glen, const struct fou_tunnel_conf *t, int *family)
{
	uint16_t flags, proto;
	size_t hlen = 4;

	FUZZ_ASSERT(glen >= 4, "GRE header cut: %zu bytes", glen);
	flags = get16(g);
	proto = get16(g + 2);
	FUZZ_ASSERT((flags & ~(GRE_C | GRE_K | GRE_S)) == 0,
		    "GRE flags 0x%04x: reserved bits or version set", flags);
	FUZZ_ASSERT(!(flags & GRE_C) == !t->gre_csum && !(flags & GRE_K) == !t->key_set &&
		    !(flags & GRE_S) == !t->gre_seq,
		    "GRE flags 0x%04x on tunnel %s (csum %d key %d seq %d)", flags, t->name,
		    t->gre_csum, t->key_set, t->gre_seq);
	hlen += 4 * (!!(flags & GRE_C) + !!(flags & GRE_K) + !!(flags & GRE_S));
	FUZZ_ASSERT(glen >= hlen, "GRE header cut: %zu of %zu bytes", glen, hlen);
	if (flags & GRE_C)
		FUZZ_ASSERT(rfc1071_fold(rfc1071_sum(g, glen, 0)) == 0xffff, "GRE checksum wrong");
	FUZZ_ASSERT(proto == 0x0800 || proto == 0x86dd, "GRE protocol 0x%04x", proto);
	*family = proto == 0x0800 ? AF_INET : AF_INET6;
	return hlen;
}

/* encap-sport: the tunnel's, or auto in the range */
static void
fuzz_check_sport(uint16_t sport, const struct fou_tunnel_conf *t)
{
	if (t->encap_sport != 0)
		FUZZ_ASSERT(sport == t->encap_sport, "source port %u, tunnel %s has %u", sport,
			    t->name, t->encap_sport);
	else
		FUZZ_ASSERT(sport >= fuzz_sport_min && sport <= fuzz_sport_max,
			    "source port %u outside %u-%u", sport, fuzz_sport_min, fuzz_sport_max);
}

/* The outer UDP header at u of tunnel t; ip is the outer IPv4 header. */
static void
fuzz_check_fou(uint8_t *u, size_t ulen_avail, const uint8_t *ip,
	       const struct fou_tunnel_conf *t, const struct fuzz_ctx *c)
{
	uint16_t ulen, sport = get16(u), cks = get16(u + 4 + 2);
	uint32_t phdr;

	ulen = get16(u + 4);
	FUZZ_ASSERT(ulen == ulen_avail, "UDP length %u, %zu bytes follow the IPv4 header", ulen,
		    ulen_avail);
	fuzz_check_sport(sport, t);
	phdr = rfc1071_sum(ip + 12, 8, 0) + IPPROTO_UDP + ulen;
	if (!t->encap_csum) {
		FUZZ_ASSERT(cks == 0, "UDP checksum 0x%04x on tunnel %s without encap-csum", cks,
			    t->name);
		FUZZ_ASSERT(!(c->ol_flags & RTE_MBUF_F_TX_UDP_CKSUM), "UDP offload without csum");
		return;
	}
	if (c->depth == 0 && (c->ol_flags & RTE_MBUF_F_TX_UDP_CKSUM)) {
		uint16_t sum;

		FUZZ_ASSERT(fuzz_port[c->port].tx_cksum, "UDP checksum offload on port %u",
			    c->port);
		/* the field holds the pseudo-header sum; the NIC adds the rest */
		FUZZ_ASSERT(cks == rfc1071_fold(phdr), "pseudo-header sum 0x%04x, expected 0x%04x",
			    cks, rfc1071_fold(phdr));
		u[6] = u[7] = 0;
		sum = (uint16_t)~rfc1071_fold(rfc1071_sum(u, ulen, phdr));
		if (sum == 0)
			sum = 0xffff;
		u[6] = (uint8_t)(sum >> 8);
		u[7] = (uint8_t)sum;
		return;
	}
	FUZZ_ASSERT(cks != 0, "tunnel %s: UDP checksum missing", t->name);
	FUZZ_ASSERT(rfc1071_fold(rfc1071_sum(u, ulen, phdr)) == 0xffff,
		    "tunnel %s: UDP checksum wrong", t->name);
}

static uint8_t
fuzz_inner_ecn_ttl(const uint8_t *p, int family, uint8_t *ttl)
{
	if (family == AF_INET) {
		*ttl = p[8];
		return p[1] & 3;
	}
	*ttl = p[7];
	return (p[1] >> 4) & 3;
}

/* An IPv4 packet the gateway built around an inner one for tunnel t. */
static void
fuzz_check_encap(uint8_t *p, size_t hl, size_t tot, const struct fou_tunnel_info *ti,
		 struct fuzz_ctx *c)
{
	const struct fou_tunnel_conf *t = &ti->conf;
	struct fuzz_ctx ic = { 0, c->port, c->depth + 1, c->icmp, false };
	size_t off = hl;
	int family = t->type == IPPROTO_IPIP ? AF_INET : AF_INET6;
	uint8_t ttl, ecn;

	FUZZ_ASSERT(c->depth == 0, "a tunnel inside tunnel %s", t->name);
	FUZZ_ASSERT((get16(p + 6) & 0x3fff) == 0, "encapsulated packet is a fragment");
	if (t->encap != FOU_ENCAP_NONE) {
		FUZZ_ASSERT(tot >= hl + 8, "UDP header cut");
		fuzz_check_fou(p + hl, tot - hl, p, t, c);
		off += 8;
	}
	if (t->encap == FOU_ENCAP_GUE) {
		/* __gue_build_header: version 0, no control bit or fields, the
		 * tunnel's protocol, no flags */
		FUZZ_ASSERT(tot >= off + 4, "GUE header cut");
		FUZZ_ASSERT(p[off] == 0 && p[off + 1] == t->type && p[off + 2] == 0 &&
			    p[off + 3] == 0, "GUE header %02x%02x%02x%02x on tunnel %s", p[off],
			    p[off + 1], p[off + 2], p[off + 3], t->name);
		off += 4;
	}
	if (t->type == IPPROTO_GRE)
		off += fuzz_check_gre(p + off, tot - off, t, &family);
	FUZZ_ASSERT(tot > off, "tunnel %s: nothing inside", t->name);
	fuzz_check_ip(p + off, tot - off, family, &ic);
	c->icmp_seen = ic.icmp_seen;
	ecn = fuzz_inner_ecn_ttl(p + off, family, &ttl);
	FUZZ_ASSERT((p[1] & 3) == (ecn == 3 ? 2 : ecn), "outer ECN %u for inner %u", p[1] & 3,
		    ecn);
	FUZZ_ASSERT(p[8] == (t->ttl != 0 ? t->ttl : ttl), "outer TTL %u (tunnel %u, inner %u)",
		    p[8], t->ttl, ttl);
	if (t->pmtudisc)
		FUZZ_ASSERT(p[6] & 0x40, "tunnel %s has pmtudisc: DF must be set", t->name);
}

/* An ICMP message we built: an echo reply (the request's size), or an
 * error (destination unreachable, time exceeded in transit or in
 * reassembly) quoting at least a header,
 * within 576 bytes. */
static void
fuzz_check_icmp4(const uint8_t *p, size_t hl, size_t tot)
{
	const uint8_t *icmp = p + hl;

	FUZZ_ASSERT(tot >= hl + 8, "ICMP message of %zu bytes", tot);
	if (icmp[0] != 0) {
		FUZZ_ASSERT(tot >= hl + 8 + 20, "ICMP error of %zu bytes", tot);
		/* time exceeded: in transit, or fragment reassembly */
		FUZZ_ASSERT((icmp[0] == 3 && icmp[1] <= 4) || (icmp[0] == 11 && icmp[1] <= 1),
			    "ICMP type %u code %u", icmp[0], icmp[1]);
		FUZZ_ASSERT(tot <= 576, "ICMP error of %zu bytes, above 576", tot);
	}
	FUZZ_ASSERT(rfc1071_fold(rfc1071_sum(icmp, tot - hl, 0)) == 0xffff, "ICMP checksum wrong");
}

static void
fuzz_check_ip4(uint8_t *p, size_t len, struct fuzz_ctx *c)
{
	size_t hl, tot;
	uint32_t src, dst;
	bool hw = c->depth == 0 && (c->ol_flags & RTE_MBUF_F_TX_IP_CKSUM);

	FUZZ_ASSERT(len >= 20, "IPv4 packet of %zu bytes", len);
	FUZZ_ASSERT((p[0] >> 4) == 4 && (p[0] & 0xf) >= 5, "IPv4 version/IHL 0x%02x", p[0]);
	hl = (p[0] & 0xfu) * 4;
	tot = get16(p + 2);
	FUZZ_ASSERT(hl <= len && tot == len, "IPv4 IHL %zu, total length %zu, %zu bytes", hl, tot,
		    len);
	if (hw) {
		/* the NIC writes the header checksum: do as it would */
		uint16_t s;

		FUZZ_ASSERT(fuzz_port[c->port].tx_cksum, "IPv4 checksum offload on port %u",
			    c->port);
		p[10] = p[11] = 0;
		s = (uint16_t)~rfc1071_fold(rfc1071_sum(p, hl, 0));
		p[10] = (uint8_t)(s >> 8);
		p[11] = (uint8_t)s;
	}
	FUZZ_ASSERT(rfc1071_fold(rfc1071_sum(p, hl, 0)) == 0xffff, "IPv4 header checksum wrong");
	FUZZ_ASSERT(p[8] != 0, "IPv4 TTL 0 sent");
	src = get32(p + 12);
	dst = get32(p + 16);
	/* Linux' martians (0/8, 127/8), multicast and limited broadcast */
	FUZZ_ASSERT((src >> 24) != 0 && (src >> 24) != 127 && (src >> 28) != 0xe &&
		    src != 0xffffffff, "martian source %08x sent", src);
	FUZZ_ASSERT((dst >> 24) != 0 && (dst >> 24) != 127 && (dst >> 28) != 0xe &&
		    dst != 0xffffffff, "martian or group destination %08x sent", dst);
	if (!fuzz_ours(AF_INET, p + 12))
		return;
	/* from one of our addresses: only ICMP messages and tunnels */
	if (p[9] == IPPROTO_ICMP) {
		FUZZ_ASSERT(c->icmp != 0, "ICMP from our address, and no ICMP message was counted");
		fuzz_check_icmp4(p, hl, tot);
		c->icmp_seen = true;
		return;
	}
	if (get16(p + 6) & 0x3fff) {
		/* an outer fragment: only a nopmtudisc tunnel's packet without
		 * DF is cut; the first one names the tunnel, the datagram whole
		 * is nowhere to check */
		const struct fou_tunnel_info *t = NULL;

		FUZZ_ASSERT(c->depth == 0 && !(p[6] & 0x40), "outer fragment with DF, or inside");
		if ((get16(p + 6) & 0x1fff) == 0)
			t = fuzz_tunnel_find(p, p[9], p + hl, tot - hl);
		FUZZ_ASSERT((get16(p + 6) & 0x1fff) != 0 || (t != NULL && !t->conf.pmtudisc),
			    "first outer fragment, protocol %u, not of a nopmtudisc tunnel", p[9]);
		return;
	}
	{
		const struct fou_tunnel_info *t = fuzz_tunnel_find(p, p[9], p + hl, tot - hl);

		FUZZ_ASSERT(t != NULL, "IPv4 protocol %u from our address %08x, no tunnel of ours",
			    p[9], src);
		fuzz_check_encap(p, hl, tot, t, c);
	}
}

/* The IPv6-underlay tunnel an IPv6 packet from one of our addresses was
 * sent by: its endpoints, then its UDP port or, plain, its protocol. */
static const struct fou_tunnel_info *
fuzz_tunnel_find6(const uint8_t *p, size_t len)
{
	unsigned int i;
	size_t off = p[6] == IPPROTO_DSTOPTS ? 48 : 40;
	uint8_t nh = p[6] == IPPROTO_DSTOPTS && len >= 48 ? p[40] : p[6];

	for (i = 0; i < fuzz_nb_tun; i++) {
		const struct fou_tunnel_conf *t = &fuzz_tun[i].conf;

		if (t->local.family != AF_INET6 || memcmp(p + 8, t->local.v6, 16) != 0 ||
		    memcmp(p + 24, t->remote.v6, 16) != 0)
			continue;
		if (t->encap != FOU_ENCAP_NONE ? nh == IPPROTO_UDP && len >= off + 8 &&
						 get16(p + off + 2) == t->encap_dport :
		    (t->type == IPPROTO_GRE ? nh == IPPROTO_GRE :
					      nh == IPPROTO_IPIP || nh == IPPROTO_IPV6))
			return &fuzz_tun[i];
	}
	return NULL;
}

/*
 * An IPv6 packet the gateway built around an inner one for tunnel t
 * (ip6tnl, ip6gre), as Linux lays it out: IPv6, the Tunnel Encapsulation
 * Limit in Destination Options (unless none), UDP with the checksum over
 * IPv6 (encap-udp6-csum) or 0, GUE, GRE; the inner protocol as the mode
 * says; traffic class, flow label and hop limit as configured or inherited.
 */
static void
fuzz_check_encap6(const uint8_t *p, size_t len, const struct fou_tunnel_info *ti,
		  struct fuzz_ctx *c)
{
	const struct fou_tunnel_conf *t = &ti->conf;
	struct fuzz_ctx ic = { 0, c->port, c->depth + 1, c->icmp, false };
	const uint32_t vtc = get32(p);
	size_t off = 40;
	uint8_t nh = p[6], proto = t->type, ttl, ecn;
	int family;

	FUZZ_ASSERT(c->depth == 0, "a tunnel inside tunnel %s", t->name);
	if (t->encaplimit >= 0) {
		FUZZ_ASSERT(nh == IPPROTO_DSTOPTS && len >= 48 && p[41] == 0 && p[42] == 4 &&
			    p[43] == 1 && p[44] == (uint8_t)t->encaplimit && p[45] == 1 &&
			    p[46] == 1 && p[47] == 0, "tunnel %s: encaplimit option", t->name);
		nh = p[40];
		off = 48;
	}
	if (t->encap != FOU_ENCAP_NONE) {
		const uint8_t *u = p + off;
		uint16_t ulen = get16(u + 4), cks = get16(u + 6);
		uint32_t phdr;

		FUZZ_ASSERT(nh == IPPROTO_UDP && ulen == len - off, "tunnel %s: UDP %u, length %u "
			    "of %zu", t->name, nh, ulen, len - off);
		fuzz_check_sport(get16(u), t);
		phdr = rfc1071_sum(p + 8, 32, 0) + IPPROTO_UDP + ulen;
		if (t->encap_csum6 && (c->ol_flags & RTE_MBUF_F_TX_UDP_CKSUM)) {
			/* the port's: the field holds the pseudo-header sum */
			FUZZ_ASSERT(fuzz_port[c->port].tx_cksum && (c->ol_flags &
				    RTE_MBUF_F_TX_IPV6), "UDP checksum offload over IPv6 on port %u",
				    c->port);
			FUZZ_ASSERT(cks == rfc1071_fold(phdr), "pseudo-header sum 0x%04x over IPv6, "
				    "expected 0x%04x", cks, rfc1071_fold(phdr));
		} else if (t->encap_csum6) {
			FUZZ_ASSERT(cks != 0 && rfc1071_fold(rfc1071_sum(u, ulen, phdr)) == 0xffff,
				    "tunnel %s: UDP checksum over IPv6 wrong", t->name);
		} else {
			FUZZ_ASSERT(!(c->ol_flags & RTE_MBUF_F_TX_UDP_CKSUM),
				    "UDP offload without encap-udp6-csum");
			FUZZ_ASSERT(cks == 0, "tunnel %s: UDP checksum without encap-udp6-csum",
				    t->name);
		}
		off += 8;
		if (t->encap == FOU_ENCAP_GUE) {
			FUZZ_ASSERT(len >= off + 4 && p[off] == 0 && p[off + 2] == 0 &&
				    p[off + 3] == 0, "GUE header on tunnel %s", t->name);
			proto = p[off + 1];
			off += 4;
		} else if (t->type == FOU_TUN_ANY) {
			proto = len > off && (p[off] >> 4) == 4 ? IPPROTO_IPIP : IPPROTO_IPV6;
		}
	} else {
		proto = nh;
	}
	if (t->type == FOU_TUN_ANY)
		FUZZ_ASSERT(proto == IPPROTO_IPIP || proto == IPPROTO_IPV6,
			    "mode any, protocol %u", proto);
	else
		FUZZ_ASSERT(proto == t->type, "tunnel %s: protocol %u", t->name, proto);
	family = proto == IPPROTO_IPIP ? AF_INET : AF_INET6;
	if (t->type == IPPROTO_GRE)
		off += fuzz_check_gre(p + off, len - off, t, &family);
	FUZZ_ASSERT(len > off, "tunnel %s: nothing inside", t->name);
	FUZZ_ASSERT(family == AF_INET ? (p[off] >> 4) == 4 : (p[off] >> 4) == 6,
		    "tunnel %s: protocol %u, version %u inside", t->name, proto, p[off] >> 4);
	/* the inner packet is checked in the packet's own bytes (no offloads
	 * inside a tunnel: nothing is written) */
	fuzz_check_ip((uint8_t *)(uintptr_t)(p + off), len - off, family, &ic);
	c->icmp_seen = ic.icmp_seen;
	ecn = fuzz_inner_ecn_ttl(p + off, family, &ttl);
	FUZZ_ASSERT(((vtc >> 20) & 3) == (ecn == 3 ? 2u : ecn), "outer ECN %u for inner %u",
		    (vtc >> 20) & 3, ecn);
	if (!t->tos_inherit)
		FUZZ_ASSERT(((vtc >> 22) & 0x3f) == (uint32_t)(t->tos >> 2),
			    "tunnel %s: traffic class 0x%02x", t->name, (vtc >> 20) & 0xff);
	FUZZ_ASSERT(p[7] == (t->ttl != 0 ? t->ttl : ttl), "outer hop limit %u (tunnel %u, "
		    "inner %u)", p[7], t->ttl, ttl);
	if (!t->flowlabel_inherit && t->flowlabel != 0)
		FUZZ_ASSERT((vtc & 0xfffff) == t->flowlabel, "tunnel %s: flow label 0x%05x",
			    t->name, vtc & 0xfffff);
	else
		FUZZ_ASSERT((vtc & 0xfffff) != 0, "tunnel %s: flow label 0", t->name);
}

static void
fuzz_check_ip6(const uint8_t *p, size_t len, struct fuzz_ctx *c)
{
	static const uint8_t zero[15];
	size_t i;

	FUZZ_ASSERT(len >= 40 && (p[0] >> 4) == 6, "IPv6 packet of %zu bytes, version %u", len,
		    p[0] >> 4);
	FUZZ_ASSERT(40u + get16(p + 4) == len, "IPv6 payload length %u, %zu bytes",
		    get16(p + 4), len);
	FUZZ_ASSERT(p[7] != 0, "IPv6 hop limit 0 sent");
	for (i = 8; i <= 24; i += 16) {
		const uint8_t *a = p + i;

		FUZZ_ASSERT(a[0] != 0xff, "multicast %s sent", i == 8 ? "source" : "destination");
		FUZZ_ASSERT(!(a[0] == 0xfe && (a[1] & 0xc0) == 0x80), "link-local address sent");
		FUZZ_ASSERT(!(memcmp(a, zero, 15) == 0 && a[15] <= 1), "::/::1 sent");
	}
	/* from a tunnel's local address: the tunnel's packet (the receive
	 * seeds never send from the one the IPv6 tunnels have) */
	if (c->depth == 0 && fuzz_ours(AF_INET6, p + 8)) {
		const struct fou_tunnel_info *t = fuzz_tunnel_find6(p, len);

		if (t != NULL) {
			fuzz_check_encap6(p, len, t, c);
			return;
		}
	}
	/* IPv6 from one of our addresses is forwarded (as Linux does): only
	 * a counted ICMP error is known to be ours */
	if (c->icmp != 1 || !fuzz_ours(AF_INET6, p + 8) || p[6] != IPPROTO_ICMPV6)
		return;
	c->icmp_seen = true;
	/* an echo reply (the request's size), or an error within 1280 bytes:
	 * destination unreachable, too big, time exceeded, parameter problem */
	FUZZ_ASSERT(len >= 48 && (p[40] == 129 || (p[40] >= 1 && p[40] <= 4 && len <= 1280)),
		    "ICMPv6 type %u, %zu bytes", len >= 48 ? p[40] : 0, len);
	FUZZ_ASSERT(rfc1071_fold(rfc1071_sum(p + 40, len - 40, rfc1071_sum(p + 8, 32, 0) +
					     IPPROTO_ICMPV6 + (uint32_t)(len - 40))) == 0xffff,
		    "ICMPv6 checksum wrong");
}

static void
fuzz_check_ip(uint8_t *p, size_t len, int family, struct fuzz_ctx *c)
{
	if (family == AF_INET)
		fuzz_check_ip4(p, len, c);
	else
		fuzz_check_ip6(p, len, c);
}

static bool
fuzz_neigh_mac(uint16_t port, const struct rte_ether_addr *mac)
{
	unsigned int i;

	for (i = 0; i < fuzz_nb_neigh; i++)
		if (fuzz_neigh[i].port == port && rte_is_same_ether_addr(&fuzz_neigh[i].mac, mac))
			return true;
	return false;
}

#define FUZZ_RX_FLAGS \
	(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK | \
	 RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK | RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD | \
	 RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_QINQ | \
	 RTE_MBUF_F_RX_QINQ_STRIPPED)

/*
 * An ARP reply the worker turned a request around into (behind the
 * request's 802.1Q tags, off bytes in): nothing past the ARP header; from
 * the port's MAC for one of the port's addresses, to the asker's MAC and
 * address, as arp_process answers.
 */
static void
fuzz_check_arp(const uint8_t *f, uint32_t len, uint32_t off, uint16_t port)
{
	const uint8_t *a = f + off;
	struct rte_ether_addr sha, tha;
	unsigned int i;
	bool ours = false;

	FUZZ_ASSERT(len == off + 28, "ARP reply of %u bytes, %u expected", len, off + 28);
	FUZZ_ASSERT(get16(a) == 1 && get16(a + 2) == 0x0800 && a[4] == 6 && a[5] == 4 &&
		    get16(a + 6) == 2, "ARP that is no Ethernet/IPv4 reply");
	memcpy(&sha, a + 8, 6);
	memcpy(&tha, a + 18, 6);
	FUZZ_ASSERT(rte_is_same_ether_addr(&sha, &fuzz_port[port].mac),
		    "ARP reply for another MAC than port %u's", port);
	for (i = 0; i < fuzz_nb_addr; i++)
		ours |= fuzz_addr[i].port == port && fuzz_addr[i].ip.family == AF_INET &&
			memcmp(a + 14, &fuzz_addr[i].ip.v4, 4) == 0;
	FUZZ_ASSERT(ours, "ARP reply for %u.%u.%u.%u, no address of port %u", a[14], a[15],
		    a[16], a[17], port);
	FUZZ_ASSERT(rte_is_same_ether_addr(&tha, (const struct rte_ether_addr *)f) &&
		    rte_is_valid_assigned_ether_addr(&tha), "ARP reply to a MAC that did not ask");
	FUZZ_ASSERT(!fuzz_ours(AF_INET, a + 24), "ARP reply to one of our addresses");
}

static void fuzz_check_frame(const struct rte_mbuf *m, uint16_t port, int icmp, bool held);

void
fuzz_check_output(const struct rte_mbuf *m, uint16_t port, int icmp)
{
	fuzz_check_frame(m, port, icmp, false);
}

void
fuzz_check_held(const struct rte_mbuf *m, uint16_t port)
{
	fuzz_check_frame(m, port, -1, true);
}

static void
fuzz_check_frame(const struct rte_mbuf *m, uint16_t port, int icmp, bool held)
{
	static uint8_t frame[UINT16_MAX + 64];
	const struct rte_mbuf *seg;
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)frame;
	struct fuzz_ctx c = { m->ol_flags, port, 0, icmp, false };
	const char *reason = NULL;
	uint32_t len = rte_pktmbuf_pkt_len(m), sum = 0;
	uint16_t et, nb = 0;
	const void *d;

	FUZZ_ASSERT(port < FUZZ_PORTS, "sent to port %u", port);
	FUZZ_ASSERT(rte_mbuf_check(m, 1, &reason) == 0, "bad mbuf: %s", reason);
	for (seg = m; seg != NULL; seg = seg->next, nb++)
		sum += seg->data_len;
	FUZZ_ASSERT(sum == len && nb == m->nb_segs, "segments hold %u bytes in %u, mbuf says %u in %u",
		    sum, nb, len, m->nb_segs);
	FUZZ_ASSERT(!(m->ol_flags & FUZZ_RX_FLAGS), "RX flags left: 0x%" PRIx64,
		    (uint64_t)(m->ol_flags & FUZZ_RX_FLAGS));
	FUZZ_ASSERT(len >= RTE_ETHER_HDR_LEN + 20 && len <= sizeof(frame), "frame of %u bytes",
		    len);
	FUZZ_ASSERT(len - RTE_ETHER_HDR_LEN <= fuzz_port[port].mtu,
		    "%u-byte packet on port %u with MTU %u", len - RTE_ETHER_HDR_LEN, port,
		    fuzz_port[port].mtu);
	d = rte_pktmbuf_read(m, 0, len, frame);
	FUZZ_ASSERT(d != NULL, "cannot read %u bytes", len);
	if (d != frame)
		memcpy(frame, d, len);
	FUZZ_ASSERT(rte_is_same_ether_addr(&eth->src_addr, &fuzz_port[port].mac),
		    "source MAC is not port %u's", port);
	et = rte_be_to_cpu_16(eth->ether_type);
	if (!held) {
		uint32_t off = RTE_ETHER_HDR_LEN;

		/* an answered request keeps its tags (at most two) */
		while ((et == RTE_ETHER_TYPE_VLAN || et == RTE_ETHER_TYPE_QINQ) &&
		       off < RTE_ETHER_HDR_LEN + 8 && off + 4 <= len) {
			et = get16(frame + off + 2);
			off += 4;
		}
		if (et == RTE_ETHER_TYPE_ARP) {
			fuzz_check_arp(frame, len, off, port);
			return;
		}
		et = rte_be_to_cpu_16(eth->ether_type);
	}
	/* a packet waiting for its neighbour has no MAC to go to yet */
	if (held)
		FUZZ_ASSERT(rte_is_zero_ether_addr(&eth->dst_addr),
			    "held packet with a destination MAC");
	else
		FUZZ_ASSERT(fuzz_neigh_mac(port, &eth->dst_addr),
			    "destination MAC is no neighbour on %u", port);
	FUZZ_ASSERT(et == RTE_ETHER_TYPE_IPV4 || et == RTE_ETHER_TYPE_IPV6, "ethertype 0x%04x",
		    et);
	if (et == RTE_ETHER_TYPE_IPV6 && (m->ol_flags & RTE_MBUF_F_TX_UDP_CKSUM)) {
		const uint8_t *ip6 = frame + RTE_ETHER_HDR_LEN;
		const unsigned int l3 = ip6[6] == IPPROTO_DSTOPTS ? 48 : 40;

		/* an IPv6 tunnel's UDP: l3_len covers the Destination Options */
		FUZZ_ASSERT(!(m->ol_flags & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_IPV4)) &&
			    (m->ol_flags & RTE_MBUF_F_TX_IPV6) && m->l2_len == RTE_ETHER_HDR_LEN &&
			    m->l3_len == l3 && m->l4_len == 8 &&
			    (l3 == 40 ? ip6[6] : ip6[40]) == IPPROTO_UDP,
			    "UDP offload over IPv6: flags %#" PRIx64 " l2 %u l3 %u l4 %u",
			    m->ol_flags, m->l2_len, m->l3_len, m->l4_len);
	} else if (m->ol_flags & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_UDP_CKSUM)) {
		FUZZ_ASSERT(et == RTE_ETHER_TYPE_IPV4 && (m->ol_flags & RTE_MBUF_F_TX_IPV4),
			    "checksum offload without TX_IPV4");
		FUZZ_ASSERT(m->l2_len == RTE_ETHER_HDR_LEN &&
			    m->l3_len == (frame[RTE_ETHER_HDR_LEN] & 0xfu) * 4,
			    "l2_len %u l3_len %u for the offload", m->l2_len, m->l3_len);
		if (m->ol_flags & RTE_MBUF_F_TX_UDP_CKSUM)
			FUZZ_ASSERT(m->l4_len == 8 && frame[RTE_ETHER_HDR_LEN + 9] == IPPROTO_UDP,
				    "UDP offload: l4_len %u, protocol %u", m->l4_len,
				    frame[RTE_ETHER_HDR_LEN + 9]);
	}
	fuzz_check_ip(frame + RTE_ETHER_HDR_LEN, len - RTE_ETHER_HDR_LEN,
		      et == RTE_ETHER_TYPE_IPV4 ? AF_INET : AF_INET6, &c);
	FUZZ_ASSERT(c.icmp != 1 || c.icmp_seen, "an ICMP error was counted, none was sent");
}
