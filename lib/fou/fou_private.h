/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The gateway's tables as the control files write them and the data path
 * reads them, with the inline helpers both sides share; not installed.
 * The text layer never includes it.
 */
#ifndef FOU_PRIVATE_H
#define FOU_PRIVATE_H

#include <assert.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <rte_hash.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "fou.h"

enum fou_nh_type {
	FOU_NH_LOCAL = 1,	/* one of our addresses */
	FOU_NH_CONNECTED,	/* on-link: the destination is the neighbour */
	FOU_NH_GATEWAY,		/* via a gateway on the port */
	FOU_NH_TUNNEL,		/* into a tunnel: encapsulate */
	FOU_NH_BCAST,		/* broadcast address of a connected network */
};

/* A next hop; routes sharing one share the entry. Immutable once used. */
struct fou_nexthop {
	uint8_t type;		/* enum fou_nh_type; 0 = free slot */
	uint8_t family;
	uint16_t port;
	uint32_t tunnel;	/* FOU_NH_TUNNEL: index into gw->tunnels */
	uint32_t refcnt;	/* control only */
	struct fou_ip gw;	/* FOU_NH_GATEWAY */
};

/* Neighbour table key: no padding, so it hashes the same every time. */
struct fou_neigh_key {
	uint16_t port;
	uint8_t family;
	uint8_t zero;
	uint8_t addr[16];	/* IPv4 in the first 4 bytes, rest 0 */
};
static_assert(sizeof(struct fou_neigh_key) == 20, "neighbour key has padding");

/*
 * What a worker tells the control thread about a neighbour it heard from
 * (ARP, NS, NA): through gw->nev_ring, never waiting. The control thread
 * decides what the table makes of it (fou_neigh.c).
 */
enum fou_nev_kind {
	FOU_NEV_SOLICIT = 1,	/* ARP request / NS for one of our addresses: create or update */
	FOU_NEV_ADVERT,		/* ARP reply / NA: update an entry that exists */
	FOU_NEV_OTHER,		/* a request not for us, an announcement: update if it exists */
};
#define FOU_NEV_F_CONFIRM 0x01	/* a unicast reply / solicited NA: the neighbour is reachable */
#define FOU_NEV_F_OVERRIDE 0x02	/* may replace a known MAC at once (gratuitous ARP, NS, NA O) */
#define FOU_NEV_F_ROUTER 0x04	/* NA R flag (shown only) */

struct fou_neigh_ev {
	uint8_t kind;		/* enum fou_nev_kind */
	uint8_t flags;		/* FOU_NEV_F_* */
	uint16_t port;
	struct rte_ether_addr mac;	/* all zero: an NA without target link-layer address */
	uint8_t family;
	uint8_t zero;
	uint8_t addr[16];	/* IPv4 in the first 4 bytes */
	uint32_t zero2;
};
static_assert(sizeof(struct fou_neigh_ev) == 32, "neighbour event is not 32 bytes");

/* What the data path needs of a DPDK port. */
struct fou_iface {
	struct rte_ether_addr mac;
	uint16_t mtu;		/* L3 MTU */
	uint8_t enabled;
	uint8_t tx_ol;		/* FOU_TXOL_*: checksums the port computes */
	uint8_t gro;		/* GRO on packets received here */
	uint32_t gro_timeout_us;	/* control only: as configured */
	uint64_t gro_hold_tsc;	/* how long a flow may be held, in TSC cycles */
	/* fe80::/64 on this port, as the route Linux gives every interface:
	 * the way back to a link-local address heard here */
	struct fou_nexthop ll_nh;
};

#define FOU_TXOL_IPV4 0x01	/* outer IPv4 header checksum */
#define FOU_TXOL_UDP 0x02	/* UDP checksum over IPv4 */
#define FOU_TXOL_TSO 0x04	/* TCP segmentation (TCP/IPv4; IPv4 and TCP checksums) */
#define FOU_TXOL_MSEG 0x08	/* sends chained mbufs (merged or resegmented packets) */

/*
 * What fou_rx_burst() records in an mbuf (a dynamic field) for GRO on its
 * port: the tunnel the packet came out of, all zero for one that was not
 * decapsulated. Packets are merged only with the same tag.
 */
struct fou_gro_tag {
	rte_be32_t src, dst;	/* outer IPv4 addresses */
	uint32_t ports;		/* outer UDP source and destination port; 0: plain */
	uint32_t key;		/* GRE key */
	uint32_t proto;		/* tunnel protocol | GRE flags << 8 */
};

/* Counter rows: one per lcore, and the control context's (FOU_LCORE_CONTROL). */
#define FOU_STATS_ROWS (RTE_MAX_LCORE + 1)

/* Ring sizes of the local stack (fou_neigh.c): events, packets waiting for
 * a neighbour, packets the control thread sends through a worker. */
#define FOU_NEV_RING 1024
#define FOU_HOLD_RING 1024
#define FOU_INJECT_RING 1024

/* Tunnel flags read per packet. */
#define FOU_TUN_TTL_INHERIT 0x01
#define FOU_TUN_TOS_INHERIT 0x02
#define FOU_TUN_SPORT_AUTO 0x04
#define FOU_TUN_UDP_CSUM 0x08
#define FOU_TUN_GRE_CSUM 0x10
#define FOU_TUN_GRE_SEQ 0x20
#define FOU_TUN_FOU 0x40
#define FOU_TUN_PMTUDISC 0x80	/* every packet leaves with DF */

/* Outer IPv4 (20) + UDP (8) + GRE with checksum, key and sequence (16). */
#define FOU_TUN_HDR_MAX 44

/*
 * A tunnel. The first cache line is what the data path reads: a pre-built
 * outer header patched per packet (lengths, TTL, TOS, ID, checksums).
 */
struct fou_tunnel {
	uint8_t hdr[FOU_TUN_HDR_MAX];	/* IPv4 [+ UDP] [+ GRE] template */
	uint8_t hdr_len;
	uint8_t gre_off;		/* offset of the GRE header, 0: none */
	uint8_t flags;			/* FOU_TUN_* */
	uint8_t seq_off;		/* offset of the GRE sequence number */
	rte_be32_t remote;		/* routed per packet to find the egress */
	uint32_t idx;
	uint32_t seq;			/* next GRE sequence number (atomic) */
	/* control only */
	struct fou_tunnel_conf conf;
	uint8_t used;
} __rte_cache_aligned;
static_assert(offsetof(struct fou_tunnel, conf) <= RTE_CACHE_LINE_SIZE,
	      "tunnel data-path fields exceed a cache line");

/* Per lcore, per tunnel: written by the lcore, summed by the control side. */
struct fou_tun_stats {
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t rx_packets;
	uint64_t rx_bytes;
};

/* What a received tunnel packet is matched on (ip_tunnel_lookup): no
 * padding, so it hashes the same every time. */
struct fou_tun_key {
	rte_be32_t local;	/* outer destination */
	rte_be32_t remote;	/* outer source */
	uint32_t key;		/* GRE key, 0 without one */
	uint8_t type;		/* IPPROTO_IPIP / IPPROTO_IPV6 / IPPROTO_GRE */
	uint8_t key_set;
	uint16_t zero;
};
static_assert(sizeof(struct fou_tun_key) == 16, "tunnel key has padding");

struct fou_udp_port {
	uint16_t udp_port;
	uint8_t ipproto;	/* 0 = free slot */
};

/* A local address (on-link checks, ICMP error sources, display): of a
 * port, or of a tunnel (then port is 0 and means nothing). */
struct fou_addr {
	uint32_t tunnel;	/* index into gw->tunnels + 1; 0: a port's address */
	uint16_t port;
	struct fou_ip ip;
};

/*
 * The address list, read by the data path (ICMP error sources): a change
 * is written into the other of two sets, published, and the old set is
 * reused only after a grace period.
 */
struct fou_addr_set {
	unsigned int n;
	struct fou_addr a[FOU_MAX_ADDRS];
};

/*
 * Control-side record of a route installed in the LPM (or as a default
 * route): what /fou/routes lists, /fou/config saves and delete finds.
 */
struct fou_route {
	struct fou_ip prefix;
	uint32_t nh;		/* index into gw->nh */
	uint8_t from_addr;	/* installed by an address: local, connected, broadcast */
};

struct fou_gw {
	/* read per packet */
	struct rte_lpm *lpm4;
	struct rte_lpm6 *lpm6;
	struct fou_nexthop *nh;
	struct rte_hash *neigh;			/* key -> MAC (fou_neigh_mac()) */
	uint32_t default_nh4;			/* 0/0 route: nh index + 1, 0 = none */
	uint32_t default_nh6;
	struct fou_iface iface[RTE_MAX_ETHPORTS];
	uint8_t udp_slot[65536];		/* UDP dport -> slot, 0 = not FOU */
	struct fou_udp_port udp[FOU_MAX_UDP_PORTS + 1];
	uint8_t plain_rx[256];			/* IP proto -> an encap-none tunnel has it */
	uint32_t tun_types[256];		/* IP proto -> tunnels of that type */
	struct rte_hash *tun_rx;		/* fou_tun_key -> tunnel index */
	struct fou_tunnel *tunnels;		/* max_tunnels entries */
	/* Per tunnel, the path MTU learnt from ICMP fragmentation needed
	 * (fou_pmtu.c), one word each (FOU_PMTU_WORD): workers only lower it
	 * or replace an expired one; the control side zeroes a slot when its
	 * tunnel comes and goes. */
	uint64_t *tun_pmtu;			/* max_tunnels entries, 0 = none */
	uint64_t pmtu_expires_tsc;		/* a learnt path MTU's life, TSC cycles */
	/* Settings a worker must see whole: published as one word each
	 * (fou_sport_range_load, fou_icmp_limit_load). */
	uint32_t sport_range;			/* MIN << 16 | MAX */
	uint64_t icmp_limit;			/* rate << 32 | burst; rate 0: none */
	const struct fou_addr_set *addrs;	/* one of addr_sets */
	uint32_t neigh_gen;			/* bumped by every neighbour change */
	/*
	 * The local stack: workers post what they heard (nev_ring) and hand
	 * packets whose neighbour is unknown to the control thread (hold_ring,
	 * the key in the mbuf's hold_key_off dynamic field); they mark a
	 * neighbour they looked up as used (neigh_used[slot], the slot is in
	 * the hash data's top 16 bits); the control thread sends through a
	 * started context's inject ring. All rings: multi-producer or
	 * single-consumer as their users are, never waiting.
	 */
	struct rte_ring *nev_ring;		/* struct fou_neigh_ev, MP/SC */
	struct rte_ring *hold_ring;		/* mbufs waiting for a neighbour, MP/SC */
	int hold_key_off;			/* mbuf dynamic field: struct fou_neigh_key
						 * (the GRO tag's: held packets skip GRO) */
	uint8_t *neigh_used;			/* max_neighs entries */
	struct rte_ring *inject[RTE_MAX_LCORE];	/* of started contexts (SP/SC) */
	int gro_tag_off;			/* mbuf dynamic field: struct fou_gro_tag */

	/* Readers (worker lcores) report quiescent states here; a control
	 * operation waits for a grace period before it returns (and before
	 * it reuses anything it unlinked). */
	struct rte_rcu_qsbr *qsbr;

	/* Counters: a context writes the row of its lcore (fou_lcore.h
	 * keeps the pointers), the control side sums the rows. */
	struct fou_lcore_stats *stats;		/* FOU_STATS_ROWS entries */
	struct fou_tun_stats *tun_stats;	/* [lcore][max_tunnels] */

	/* control only */
	struct fou_gw_params params;
	uint32_t nb_nh;
	uint32_t nb_neighs;			/* against params.max_neighs */
	struct fou_neigh_tbl *nt;		/* the neighbour table (fou_neigh.c) */
	pthread_mutex_t ctl_lock;		/* fou_gw_lock(): one control writer */
	struct rte_hash *tun_names;		/* name -> index */
	struct fou_addr_set addr_sets[2];
	struct fou_route *routes;		/* in the order they were added */
	uint32_t nb_routes, max_routes;
	bool ports_running;			/* link changes go to the ethdev too */
	struct fou_worker_conf *workers;	/* RTE_MAX_LCORE entries */
	bool is_worker[RTE_MAX_LCORE];
	/* what /fou/stats/reset saw: readers subtract it (control only) */
	struct fou_lcore_stats *stats_base;	/* FOU_STATS_ROWS entries */
	struct fou_tun_stats *tun_base;		/* max_tunnels entries */
	uint8_t lcore_reader[RTE_MAX_LCORE];	/* a started context (qsbr reader) */
};

/* The neighbour's MAC travels in the rte_hash data word (6 of its 8
 * bytes, its table slot in the other 2), so a reader sees the key, its
 * MAC and its slot published together. */
static inline void *
fou_neigh_data(const struct rte_ether_addr *mac, uint16_t slot)
{
	uint64_t v = slot;
	unsigned int i;

	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		v = v << 8 | mac->addr_bytes[i];
	return (void *)(uintptr_t)v;
}

static inline uint16_t
fou_neigh_slot(const void *data)
{
	return (uint16_t)((uintptr_t)data >> 48);
}

static inline void
fou_neigh_mac(const void *data, struct rte_ether_addr *mac)
{
	uint64_t v = (uintptr_t)data;
	int i;

	for (i = RTE_ETHER_ADDR_LEN - 1; i >= 0; i--, v >>= 8)
		mac->addr_bytes[i] = (uint8_t)v;
}

static inline void
fou_tun_key_make(struct fou_tun_key *k, uint8_t type, rte_be32_t local, rte_be32_t remote,
		 bool key_set, uint32_t key)
{
	k->local = local;
	k->remote = remote;
	k->key = key_set ? key : 0;
	k->type = type;
	k->key_set = key_set;
	k->zero = 0;
}

/* The encap-sport auto range, read once so both ends are of one setting. */
static inline void
fou_sport_range_load(const struct fou_gw *gw, uint16_t *min, uint16_t *max)
{
	uint32_t r = __atomic_load_n(&gw->sport_range, __ATOMIC_RELAXED);

	*min = (uint16_t)(r >> 16);
	*max = (uint16_t)r;
}

/* The ICMP error rate (per second, 0: none) and burst, read once. */
static inline void
fou_icmp_limit_load(const struct fou_gw *gw, uint32_t *rate, uint32_t *burst)
{
	uint64_t l = __atomic_load_n(&gw->icmp_limit, __ATOMIC_RELAXED);

	*rate = (uint32_t)(l >> 32);
	*burst = (uint32_t)l;
}

/* The neighbour hash key of addr (4 or 16 bytes by family) on port; the
 * control functions and the data path (fou_adj_neigh) build it here. */
static inline void
fou_neigh_key_make(struct fou_neigh_key *k, uint16_t port, uint8_t family, const void *addr)
{
	memset(k, 0, sizeof(*k));
	k->port = port;
	k->family = family;
	if (family == AF_INET)
		memcpy(k->addr, addr, 4);
	else
		memcpy(k->addr, addr, 16);
}

#endif /* FOU_PRIVATE_H */
