/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Forwarding helpers shared by the receive path (fou_rx.c) and ICMP errors
 * (fou_icmp.c): next-hop resolution to a port, MTU and neighbour, and the
 * last steps of output (encapsulation, Ethernet). Data path: no locks, no
 * logs, no allocation.
 */
#ifndef FOU_FWD_H
#define FOU_FWD_H

#include <sys/socket.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_mbuf_dyn.h>

#include "fou_encap.h"
#include "fou_hdr.h"
#include "fou_lcore.h"
#include "fou_rib.h"

/*
 * need bytes at offset at, of which avail are there (in the frame, the IP
 * packet, the tunnel payload): too few is the layer's truncation counter;
 * then they must be in the first segment, which is all the code reads.
 */
static inline unsigned int
fou_need(const struct rte_mbuf *m, uint32_t at, uint32_t avail, uint32_t need,
	 unsigned int truncated)
{
	if (avail < need)
		return truncated;
	if (at + need > rte_pktmbuf_data_len(m))
		return FOU_DROP_HDR_SPLIT;
	return FOU_FWD;
}

/* Where a routed packet leaves: a port and a neighbour on it, maybe after
 * encapsulation into a tunnel. */
struct fou_adj {
	const struct fou_tunnel *tun;	/* NULL: no encapsulation */
	const struct fou_nexthop *nh;	/* the port-level next hop */
	const void *dst;		/* the address the neighbour is looked up for */
	uint16_t port;
	uint16_t mtu;			/* largest packet that may enter here */
	uint16_t mtu_nodf;		/* the same for one a tunnel sends without DF */
};

/*
 * Resolve a next hop that is not local: for a tunnel, route its remote to
 * find the port; the tunnel's MTU is the port's (or its path MTU at now,
 * TSC, where lower) minus the outer headers. An ECMP group is
 * FOU_ADJ_GROUP (fou_adj_resolve_flow()): tested after the tunnel, so
 * that a tunnel's packets pay nothing for it.
 */
static inline unsigned int
fou_adj_resolve(const struct fou_gw *gw, const struct fou_route_memo *memo,
		const struct fou_nexthop *nh, const void *dst, uint64_t now, struct fou_adj *a)
{
	if (nh->type == FOU_NH_TUNNEL) {
		const struct fou_tunnel *t = &gw->tunnels[nh->tunnel];

		switch (fou_tunnel_egress(gw, memo, t, now, &a->nh, &a->mtu, &a->mtu_nodf)) {
		case FOU_EGRESS_NO_ROUTE:
			return FOU_DROP_NO_ROUTE;
		case FOU_EGRESS_LOOP:
			return FOU_DROP_TUNNEL_LOOP;
		case FOU_EGRESS_OK:
			break;
		}
		a->tun = t;
		a->dst = likely(!fou_tunnel_is6(t)) ? (const void *)&t->remote :
			 (const void *)fou_tunnel_remote6(t);
		a->port = a->nh->port;
		return FOU_FWD;
	}
	if (unlikely(nh->type == FOU_NH_GROUP))
		return FOU_ADJ_GROUP;
	a->tun = NULL;
	a->nh = nh;
	a->dst = dst;
	a->port = nh->port;
	a->mtu = gw->iface[nh->port].mtu;
	a->mtu_nodf = a->mtu;
	return FOU_FWD;
}

/*
 * The same for the IP packet at off in m (v6: IPv6): a group's member is
 * the one the packet's flow takes (the inner flow hash of encap-sport
 * auto). Out of line: the single next hop's path keeps its shape.
 */
static __rte_noinline unsigned int
fou_adj_resolve_member(const struct fou_gw *gw, const struct fou_route_memo *memo,
		       const struct fou_nexthop *nh, const void *dst, uint64_t now,
		       const struct rte_mbuf *m, uint32_t off, bool v6, struct fou_adj *a)
{
	return fou_adj_resolve(gw, memo, fou_nh_member(gw, nh, fou_flow_hash(m, off, v6)), dst,
			       now, a);
}

static inline unsigned int
fou_adj_resolve_flow(const struct fou_gw *gw, const struct fou_route_memo *memo,
		     const struct fou_nexthop *nh, const void *dst, uint64_t now,
		     const struct rte_mbuf *m, uint32_t off, bool v6, struct fou_adj *a)
{
	unsigned int r = fou_adj_resolve(gw, memo, nh, dst, now, a);

	if (unlikely(r == FOU_ADJ_GROUP))
		r = fou_adj_resolve_member(gw, memo, nh, dst, now, m, off, v6, a);
	return r;
}

/* The neighbour key of an adjacency: its gateway on the port, or the
 * destination itself (connected, or a tunnel's remote). */
union fou_adj_key {
	struct fou_neigh_key k;
	uint64_t w[3];
};

static inline void
fou_adj_key(const struct fou_adj *a, union fou_adj_key *key)
{
	const struct fou_nexthop *nh = a->nh;

	static_assert(sizeof(key->k) <= sizeof(key->w), "neighbour key outgrew the cache key");
	key->w[2] = 0;
	fou_neigh_key_make(&key->k, nh->port, nh->family, nh->type != FOU_NH_GATEWAY ? a->dst :
			   nh->family == AF_INET ? (const void *)&nh->gw.v4 :
			   (const void *)nh->gw.v6);
}

/*
 * The MTU a packet meets along a: inner_df, whether it is IPv4 with DF.
 * A nopmtudisc tunnel sends the others without DF: the path MTU does not
 * bound them (Linux' tnl_update_pmtu takes the route's MTU only with DF).
 * Over IPv6 nothing is fragmented on the way: the path MTU bounds all.
 */
static inline uint16_t
fou_adj_mtu(const struct fou_adj *a, bool inner_df)
{
	if (a->tun != NULL && !inner_df && !(a->tun->flags & FOU_TUN_PMTUDISC) &&
	    !fou_tunnel_is6(a->tun))
		return a->mtu_nodf;
	return a->mtu;
}

/*
 * The MAC address of the adjacency's neighbour; false when there is none
 * (yet). Each lcore remembers the neighbours it found in a small
 * direct-mapped cache (a key compare instead of an rte_hash lookup); a
 * neighbour change bumps gw->neigh_gen, so once the change has returned
 * no lcore uses what it cached before. A lookup that reaches the table
 * marks the neighbour used: the control thread's reachability timers
 * (STALE to DELAY) read the mark; a STALE entry empties the caches, so a
 * neighbour in use is marked again.
 */
static inline bool
fou_adj_neigh(struct fou_lcore *lc, const struct fou_adj *a, struct rte_ether_addr *mac)
{
	const struct fou_gw *gw = lc->gw;
	const uint32_t gen = __atomic_load_n(&gw->neigh_gen, __ATOMIC_ACQUIRE);
	union fou_adj_key key;
	struct fou_neigh_cached *c;
	uint8_t *used;
	uint64_t x;
	void *data;

	fou_adj_key(a, &key);
	if (unlikely(gen != lc->neigh_gen)) {
		memset(lc->neigh_cache, 0, sizeof(lc->neigh_cache));
		lc->neigh_gen = gen;
	}
	x = key.w[0] ^ key.w[1] ^ key.w[2];
	c = &lc->neigh_cache[rte_hash_crc_4byte((uint32_t)(x ^ (x >> 32)), 0) &
			     (FOU_NEIGH_CACHE - 1)];
	if (likely(c->key[0] == key.w[0] && c->key[1] == key.w[1] && c->key[2] == key.w[2])) {
		*mac = c->mac;
		return true;
	}
	if (rte_hash_lookup_data(gw->neigh, &key.k, &data) < 0)
		return false;
	fou_neigh_mac(data, mac);
	used = &gw->neigh_used[fou_neigh_slot(data)];
	if (__atomic_load_n(used, __ATOMIC_RELAXED) == 0)
		__atomic_store_n(used, 1, __ATOMIC_RELAXED);
	memcpy(c->key, key.w, sizeof(c->key));
	c->mac = *mac;
	return true;
}

/* Linux' martian rules (ip_route_input_slow): a source that never sends, */
static inline bool
fou_martian4_src(rte_be32_t src_be)
{
	uint32_t src = rte_be_to_cpu_32(src_be);

	return (src >> 28) == 0xe || src == 0xffffffff || (src >> 24) == 0 ||
	       (src >> 24) == 127;
}

/* ... a destination that is never routed, */
static inline bool
fou_martian4_dst(rte_be32_t dst_be)
{
	uint32_t dst = rte_be_to_cpu_32(dst_be);

	return (dst >> 24) == 0 || (dst >> 24) == 127;
}

/* ... and one that is for every host on the link. */
static inline bool
fou_bcast4(rte_be32_t dst_be)
{
	uint32_t dst = rte_be_to_cpu_32(dst_be);

	return (dst >> 28) == 0xe || dst == 0xffffffff;
}

/* ip6_forward: loopback, unspecified and link-local stay put. */
static inline bool
fou_martian6_addr(const uint8_t *a)
{
	static const uint8_t zero[15];

	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
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

/* Make the packet start at its IP header at off and be len bytes long. */
static inline void
fou_l3_isolate(struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	rte_pktmbuf_adj(m, (uint16_t)off);
	fou_mbuf_cut(m, len);
}

/*
 * A reply made in the request's own mbuf (ARP, NA) sheds the request's
 * flags but the two that say whose buffer it is: without them the free
 * would take a PMD's external buffer, or a clone's, for the mbuf's own,
 * never give it back and return the mbuf to its pool still pointing at it.
 */
static inline void
fou_mbuf_flags_reset(struct rte_mbuf *m)
{
	m->ol_flags &= RTE_MBUF_F_EXTERNAL | RTE_MBUF_F_INDIRECT;
}

/* Put the Ethernet header for the neighbour in front of the IP packet. */
static inline unsigned int
fou_eth_push(const struct fou_gw *gw, struct rte_mbuf *m, uint16_t port,
	     const struct rte_ether_addr *dst, uint16_t ether_type)
{
	struct rte_ether_hdr *eth;

	eth = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, RTE_ETHER_HDR_LEN);
	if (unlikely(eth == NULL))
		return FOU_DROP_NO_HEADROOM;
	rte_ether_addr_copy(dst, &eth->dst_addr);
	rte_ether_addr_copy(&gw->iface[port].mac, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(ether_type);
	m->l2_len = RTE_ETHER_HDR_LEN;
	/* the port's checksum verdicts were about what was received */
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK |
			 RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK | RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD |
			 RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED |
			 RTE_MBUF_F_RX_QINQ | RTE_MBUF_F_RX_QINQ_STRIPPED);
	return FOU_FWD;
}

/*
 * The last steps of every packet that leaves: into the tunnel if the
 * adjacency has one, then the Ethernet header for the neighbour.
 */
static inline unsigned int
fou_adj_send(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_adj *a,
	     const struct rte_ether_addr *neigh, bool v6, uint16_t *out_port)
{
	unsigned int r;

	if (a->tun != NULL) {
		r = fou_tunnel_encap(lc, a->tun, m, v6, a->port, false);
		if (r != FOU_FWD)
			return r;
	}
	if (a->tun != NULL)
		v6 = fou_tunnel_is6(a->tun);	/* what leaves is the outer packet */
	r = fou_eth_push(lc->gw, m, a->port, neigh, v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	if (r != FOU_FWD)
		return r;
	*out_port = a->port;
	return FOU_FWD;
}

/*
 * No neighbour yet: the packet is finished as if it had one (encapsulated,
 * an Ethernet header with a zero destination) and handed to the control
 * thread with its neighbour key, which queues it, resolves, and sends it
 * (or drops it) later. FOU_HELD, or no_neigh when the hand-off ring is
 * full.
 */
static inline unsigned int
fou_adj_hold(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_adj *a, bool v6)
{
	static const struct rte_ether_addr none;
	union fou_adj_key key;
	uint16_t out_port;
	unsigned int r;

	r = fou_adj_send(lc, m, a, &none, v6, &out_port);
	if (r != FOU_FWD)
		return r;
	fou_adj_key(a, &key);
	memcpy(RTE_MBUF_DYNFIELD(m, lc->gw->hold_key_off, void *), &key.k, sizeof(key.k));
	if (rte_ring_mp_enqueue(lc->gw->hold_ring, m) != 0)
		return FOU_DROP_NO_NEIGH;
	FOU_STAT_ADD(lc->st->local[FOU_LOCAL_NEIGH_QUEUED], 1);
	return FOU_HELD;
}

/* Send along a: to the neighbour's MAC, or held until it is known. */
static inline unsigned int
fou_adj_output(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_adj *a,
	       const struct rte_ether_addr *neigh, bool v6, uint16_t *out_port)
{
	if (likely(neigh != NULL))
		return fou_adj_send(lc, m, a, neigh, v6, out_port);
	return fou_adj_hold(lc, m, a, v6);
}

#endif /* FOU_FWD_H */
