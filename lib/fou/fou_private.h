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
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "fou.h"

enum fou_nh_type {
	FOU_NH_LOCAL = 1,	/* one of our addresses */
	FOU_NH_CONNECTED,	/* on-link: the destination is the neighbour */
	FOU_NH_GATEWAY,		/* via a gateway on the port */
	FOU_NH_TUNNEL,		/* into a tunnel: encapsulate */
	FOU_NH_BCAST,		/* broadcast address of a connected network */
	FOU_NH_GROUP,		/* ECMP: a member per flow, gw->nhg[tunnel] */
};

/* A next hop; routes sharing one share the entry. Immutable once used. */
struct fou_nexthop {
	uint8_t type;		/* enum fou_nh_type; 0 = free slot */
	uint8_t family;
	uint16_t port;
	uint32_t tunnel;	/* FOU_NH_TUNNEL: index into gw->tunnels;
				 * FOU_NH_GROUP: into gw->nhg */
	uint32_t refcnt;	/* control only: the routes that use it */
	struct fou_ip gw;	/* FOU_NH_GATEWAY */
};

/*
 * What rte_fib / rte_fib6 hold for a prefix: gw->nh[value - FOU_FIB_NH0].
 * FOU_FIB_NONE is their default (no route: the default route's word
 * decides). FOU_FIB_RETRY is never stored: 22.11's DIR-24-8 and trie zero
 * a group of 256 entries right after they stop pointing at it, so a
 * reader that took the pointer just before may read a 0; the entry that
 * pointed there already holds the final value, and the reader looks again.
 * A zeroed group is reused only by a later add, which comes after the
 * grace period that ends the control operation that freed it.
 */
#define FOU_FIB_RETRY 0
#define FOU_FIB_NONE 1
#define FOU_FIB_NH0 2

/* The next hop table's key (control only): no padding, so it hashes the
 * same every time; what fou_nh_get() shares an entry on. */
struct fou_nh_key {
	uint8_t type;
	uint8_t family;
	uint16_t port;
	uint32_t tunnel;
	uint8_t gw[16];
};
static_assert(sizeof(struct fou_nh_key) == 24, "next hop key has padding");

/* Control-only state of a next hop, beside gw->nh so that the data path's
 * entries stay 32 bytes. */
struct fou_nh_ctl {
	uint32_t head, tail;	/* its routes (struct fou_route), in the order added */
	uint32_t gw_prev, gw_next;	/* FOU_NH_GATEWAY: the list of gateways */
	uint32_t next_free;	/* on the list fou_gw_commit() frees */
	uint8_t queued;		/* on that list */
};

#define FOU_NONE UINT32_MAX	/* no index: the end of a list */

/*
 * An ECMP next-hop group (fou_nhgroup.c): the next hop of each of
 * FOU_NHG_BUCKETS buckets, which a packet's flow hash picks. Its members
 * fill home[] by weight; a bucket whose home member is unusable goes to a
 * live one (rendezvous hashing), so a member that fails or returns moves
 * its own buckets only. Workers read bucket[] (one word per store).
 */
#define FOU_NHG_BUCKETS 256
struct fou_nhg {
	uint32_t bucket[FOU_NHG_BUCKETS];	/* index into gw->nh */
	/* control only */
	uint32_t n;				/* members (routes of one metric) */
	uint32_t member[FOU_ECMP_MAX];		/* their next hops */
	uint16_t weight[FOU_ECMP_MAX];
	uint8_t home[FOU_NHG_BUCKETS];		/* member of each bucket when all are live */
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
#define FOU_TXOL_UDP6 0x10	/* UDP checksum over IPv6 (extension headers in l3_len) */

/*
 * What fou_rx_burst() records in an mbuf (a dynamic field) for GRO on its
 * port: the tunnel the packet came out of, all zero for one that was not
 * decapsulated; packets are merged only with the same key (the first
 * FOU_GRO_KEY_LEN bytes). Then what is already known of the inner L4
 * checksum, so that GRO need not sum a TCP payload again (Linux'
 * CHECKSUM_UNNECESSARY and CHECKSUM_COMPLETE).
 */
struct fou_gro_tag {
	rte_be32_t src, dst;	/* outer IPv4 addresses; IPv6: the tunnel's index + 1, 0 */
	uint32_t ports;		/* outer UDP source and destination port; 0: plain */
	uint32_t key;		/* GRE key */
	uint32_t proto;		/* tunnel protocol | GRE flags << 8 | FOU_GRO_UDP_CSUM |
				 * FOU_GRO_GUE | FOU_GRO_OUTER6 */
	uint16_t l4sum;		/* FOU_GRO_CSUM_COMPLETE: the inner IP payload's sum */
	uint8_t csum;		/* FOU_GRO_CSUM_* */
	uint8_t pad;
};
/*
 * The mbuf's dynamic field area is 36 bytes, 8 of them the Rx timestamp
 * that the pcap PMD registers: no room for two IPv6 addresses. A packet
 * that came out of an IPv6 outer header (FOU_GRO_OUTER6) has the index + 1
 * of the tunnel it matched in src instead, which stands for the addresses
 * (and key) exactly; one a port took without a tunnel (src 0) is never
 * merged, rather than merged with another sender's.
 */
static_assert(sizeof(struct fou_gro_tag) <= 28, "the GRO tag does not fit an mbuf");
#define FOU_GRO_KEY_LEN offsetof(struct fou_gro_tag, l4sum)
/* A zero and a non-zero outer UDP checksum are two flows (udp_gro_receive). */
#define FOU_GRO_UDP_CSUM (1u << 24)
/* Received on a GUE port: never one flow with what a FOU port received. */
#define FOU_GRO_GUE (1u << 25)
/* The outer header was IPv6: src is its tunnel (see above). */
#define FOU_GRO_OUTER6 (1u << 26)
/* tag.csum: nothing known; the port found the inner TCP checksum good;
 * l4sum is the one's complement sum of the inner IP payload as received
 * (from a UDP or GRE checksum checked over the same bytes). */
#define FOU_GRO_CSUM_NONE 0
#define FOU_GRO_CSUM_GOOD 1
#define FOU_GRO_CSUM_COMPLETE 2

/* Counter rows: one per lcore, and the control context's (FOU_LCORE_CONTROL). */
#define FOU_STATS_ROWS (RTE_MAX_LCORE + 1)

/* Ring sizes of the local stack (fou_neigh.c): events, packets waiting for
 * a neighbour, packets the control thread sends through a worker. */
#define FOU_NEV_RING 1024
#define FOU_HOLD_RING 1024
#define FOU_INJECT_RING 1024
#define FOU_PUNT_RING 1024	/* per port with a kernel interface */

/* Tunnel flags read per packet. */
#define FOU_TUN_TTL_INHERIT 0x01
#define FOU_TUN_TOS_INHERIT 0x02
#define FOU_TUN_SPORT_AUTO 0x04
#define FOU_TUN_UDP_CSUM 0x08
#define FOU_TUN_GRE_CSUM 0x10
#define FOU_TUN_GRE_SEQ 0x20
#define FOU_TUN_FOU 0x40	/* UDP encapsulation: encap fou or gue */
#define FOU_TUN_PMTUDISC 0x80	/* every packet leaves with DF */

/* Outer IPv4 (20) + UDP (8) + GUE (4) + GRE with checksum, key and
 * sequence (16). */
#define FOU_TUN_HDR_MAX 48

/* Outer IPv6 (40) + Destination Options with the Tunnel Encapsulation
 * Limit (8) + UDP (8) + GUE (4) + GRE with checksum, key and sequence (16). */
#define FOU_TUN6_HDR_MAX 76
#define FOU_IP6_DSTOPT_LEN 8	/* the encaplimit Destination Options header */

/* Per-packet choices of an IPv6-underlay tunnel (struct fou_tunnel6.flags6) */
#define FOU_TUN6_FLOW_INHERIT 0x01	/* flowlabel inherit: the inner IPv6 one */
#define FOU_TUN6_FLOW_AUTO 0x02		/* flowlabel 0: from the inner flow's hash */
#define FOU_TUN6_ANY 0x04		/* ip6tnl mode any: the protocol per packet */

/*
 * The outer header of an IPv6-underlay tunnel (ip6tnl, ip6gre): IPv6
 * [+ Destination Options] [+ UDP [+ GUE]] [+ GRE], as ip6_tnl_xmit and
 * ip6gre_xmit with fou6_build_udp / gue6_build_udp lay it out. It lives in
 * the tunnel's second cache line, which IPv4 tunnels never touch.
 */
struct fou_tunnel6 {
	uint8_t hdr[FOU_TUN6_HDR_MAX];
	uint8_t l4_off;		/* what follows IPv6 and its Destination Options */
	uint8_t proto_off;	/* the byte that names the inner protocol: the
				 * last next header, or GUE's proto field; 0:
				 * none (FOU) */
	uint8_t flags6;		/* FOU_TUN6_* */
	uint8_t zero;
	uint32_t flow;		/* tclass << 20 | flowlabel, as configured */
};

/*
 * A tunnel. The first cache line is what the data path reads: a pre-built
 * outer header patched per packet (lengths, TTL, TOS, ID, checksums). An
 * IPv6-underlay tunnel has hdr[0] 0x60 (the version nibble: 6) and its
 * header in v6.hdr; hdr_len, gre_off, seq_off, flags and seq hold for it as
 * for IPv4 ones (FOU_TUN_UDP_CSUM is encap-csum6, FOU_TUN_PMTUDISC unset),
 * and hdr[1] is its type (fou_tunnel6_type()), which the receive side
 * checks an ip6tnl's mode by without reading past the first line.
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
	struct fou_tunnel6 v6 __rte_cache_aligned;	/* IPv6 underlay only */
	/* control only */
	struct fou_tunnel_conf conf;
	uint8_t used;
	uint8_t unusable;		/* fou_tunnel_usable_set(): its routes rest */
} __rte_cache_aligned;
static_assert(offsetof(struct fou_tunnel, v6) == RTE_CACHE_LINE_SIZE,
	      "tunnel data-path fields exceed a cache line");

/* The tunnel's outer header is IPv6 (ip6tnl, ip6gre). */
static inline bool
fou_tunnel_is6(const struct fou_tunnel *t)
{
	return (t->hdr[0] >> 4) == 6;
}

/* An IPv6 tunnel's conf.type: IPPROTO_IPIP, IPPROTO_IPV6, FOU_TUN_ANY (ip6tnl
 * modes ipip6, ip6ip6, any) or IPPROTO_GRE. */
static inline uint8_t
fou_tunnel6_type(const struct fou_tunnel *t)
{
	return t->hdr[1];
}

/* The IPv6 tunnel's remote: the outer destination in its template. */
static inline const uint8_t *
fou_tunnel_remote6(const struct fou_tunnel *t)
{
	return t->v6.hdr + offsetof(struct rte_ipv6_hdr, dst_addr);
}

/* Per lcore, per tunnel: written by the lcore, summed by the control side. */
struct fou_tun_stats {
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t tx_frags;		/* inner fragments made for it */
	uint64_t tx_outer_frags;	/* outer fragments of its packets */
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

/*
 * The same over an IPv6 underlay, as ip6_tnl_lookup / ip6gre_tunnel_lookup
 * match: type FOU_TUN6_IP6TNL for every ip6tnl (one per address pair,
 * whatever its mode: the packet's protocol is checked against the
 * tunnel's mode after the match, as ipxip6_rcv does), IPPROTO_GRE for
 * ip6gre (with its key).
 */
#define FOU_TUN6_IP6TNL 0
struct fou_tun_key6 {
	uint8_t local[16];	/* outer destination */
	uint8_t remote[16];	/* outer source */
	uint32_t key;		/* GRE key, 0 without one */
	uint8_t type;		/* FOU_TUN6_IP6TNL or IPPROTO_GRE */
	uint8_t key_set;
	uint16_t zero;
};
static_assert(sizeof(struct fou_tun_key6) == 40, "IPv6 tunnel key has padding");

static inline void
fou_tun_key6_make(struct fou_tun_key6 *k, uint8_t type, const uint8_t *local,
		  const uint8_t *remote, bool key_set, uint32_t key)
{
	memcpy(k->local, local, 16);
	memcpy(k->remote, remote, 16);
	k->key = key_set ? key : 0;
	k->type = type;
	k->key_set = key_set;
	k->zero = 0;
}

/*
 * What the receive path looked up ahead for one packet of a burst
 * (fou_rx.c's stages): routes and the tunnel match, each with the key it
 * was looked up for. The packet's own processing takes a result only
 * for the same key, in the same grace period, so it equals the lookup it
 * saves; a packet the stages read otherwise looks up for itself.
 */
#define FOU_MEMO4 2		/* outer or inner destination, a tunnel's remote */
#define FOU_MEMO6 2		/* the same over IPv6 */
struct fou_route_memo {
	uint8_t n4, n6;
	uint8_t tk_fam;				/* 0, AF_INET: tk, AF_INET6: tk6 */
	int32_t tidx;				/* the tunnel match: index, -1 none */
	union {
		struct fou_tun_key tk;
		struct fou_tun_key6 tk6;
	};
	rte_be32_t a4[FOU_MEMO4];
	const struct fou_nexthop *nh4[FOU_MEMO4];
	uint8_t a6[FOU_MEMO6][16];
	const struct fou_nexthop *nh6[FOU_MEMO6];
};

struct fou_udp_port {
	uint16_t udp_port;	/* 0 = free slot */
	uint8_t ipproto;	/* FOU's protocol; 0 for GUE */
	bool gue;		/* the protocol is in a GUE header */
	uint8_t family;		/* AF_INET or AF_INET6 */
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
 * "Is this address ours", without a route lookup: every local address and
 * every connected network's broadcast address (what fib_validate_source
 * refuses as a source) in small open-addressing tables, at most half
 * full, so that a probe sequence always ends at an empty slot. Built from
 * the address list and published with it, under the same rule (written
 * into the other of two, reused after a grace period). An entry carries
 * what the readers ask about, so that it never points into a list the
 * reader did not load.
 */
#define FOU_OWN_ADDR 1	/* one of our addresses */
#define FOU_OWN_BCAST 2	/* the broadcast address of a network of ours */
#define FOU_OWN4_SLOTS (4 * FOU_MAX_ADDRS)	/* addresses and broadcasts */
#define FOU_OWN6_SLOTS (2 * FOU_MAX_ADDRS)

struct fou_own4 {
	rte_be32_t addr;
	uint8_t kind;		/* FOU_OWN_*; 0: empty slot */
	uint8_t zero;
	uint16_t port;		/* FOU_OWN_ADDR on a port */
	uint32_t tunnel;	/* FOU_OWN_ADDR on a tunnel: its index + 1; 0: a port's */
};

struct fou_own6 {
	uint8_t addr[16];
	uint8_t kind;
	uint8_t zero;
	uint16_t port;
	uint32_t tunnel;
};

struct fou_own_set {
	struct fou_own4 v4[FOU_OWN4_SLOTS];
	struct fou_own6 v6[FOU_OWN6_SLOTS];
};

/*
 * Control-side record of a route installed in the FIB (or as a default
 * route): what /fou/routes lists, /fou/config saves and delete finds. A
 * FIB's RIB node carries the index of its record (4 bytes of extension),
 * so finding the record of a prefix is a walk down the RIB; records are
 * linked in the order they were added, and per next hop.
 */
struct fou_route {
	struct fou_ip prefix;
	uint32_t nh;		/* index into gw->nh */
	uint8_t from_addr;	/* installed by an address: local, connected, broadcast */
	uint16_t weight;	/* among the routes of its metric (ECMP) */
	uint32_t metric;	/* lower wins */
	uint32_t pfx_next;	/* the next route to the same prefix: by metric, then added */
	uint32_t prev, next;	/* every route, in the order added; next: the free list */
	uint32_t nh_prev, nh_next;	/* the routes of next hop nh, in the order added */
	uint64_t seq;		/* when it was added: orders routes of several next hops */
};

/*
 * Control-only state of the route records that no operation restores when
 * it fails (outside struct fou_gw, which then stays as it was): where the
 * last fou_route_list() stopped, so that reading the routes a page at a
 * time walks them once, and the count that orders them.
 */
struct fou_route_aux {
	uint64_t seq;		/* routes added so far */
	bool cursor_valid;
	uint32_t cursor_pos;	/* list position of ... */
	uint32_t cursor_idx;	/* ... this record */
};

struct fou_idpool;

/*
 * A tunnel's path MTUs, read by the data path with one load of a line:
 * word, learnt from ICMP fragmentation needed (fou_pmtu.c, FOU_PMTU_WORD),
 * which workers only lower or replace once expired; probed, the largest
 * outer packet the path MTU search confirmed (fou_plpmtu.c), written by
 * the control thread alone; 0: none. 16 bytes, aligned to them, so both
 * are in the cache line the data path prefetches for the word.
 */
struct fou_tun_pmtu {
	uint64_t word;
	uint16_t probed;
	uint16_t zero[3];
} __rte_aligned(16);
static_assert(sizeof(struct fou_tun_pmtu) == 16, "a tunnel's path MTUs outgrew 16 bytes");

struct fou_plpmtu_tun;

struct fou_gw {
	/* read per packet */
	struct rte_fib *fib4;			/* value: FOU_FIB_* */
	struct rte_fib6 *fib6;
	struct fou_nexthop *nh;
	struct fou_nhg **nhg;			/* a FOU_NH_GROUP's buckets, by its tunnel */
	struct rte_hash *neigh;			/* key -> MAC (fou_neigh_mac()) */
	uint32_t default_nh4;			/* 0/0 route: nh index + 1, 0 = none */
	uint32_t default_nh6;
	struct fou_iface iface[RTE_MAX_ETHPORTS];
	uint8_t udp_slot[65536];		/* UDP dport -> slot, 0 = not FOU */
	uint8_t udp_slot6[65536];		/* the same for UDP over IPv6 (ip fou add -6) */
	struct fou_udp_port udp[FOU_MAX_UDP_PORTS + 1];
	uint8_t plain_rx[256];			/* IP proto -> an encap-none tunnel has it */
	uint32_t tun_types[256];		/* IP proto -> tunnels of that type */
	struct rte_hash *tun_rx;		/* fou_tun_key -> tunnel index */
	/* The same over an IPv6 underlay (ip6tnl, ip6gre) */
	uint8_t plain_rx6[256];			/* IP proto -> an encap-none tunnel has it */
	uint32_t tun_types6[256];		/* FOU_TUN6_* type -> tunnels of it */
	struct rte_hash *tun_rx6;		/* fou_tun_key6 -> tunnel index */
	struct fou_tunnel *tunnels;		/* max_tunnels entries */
	/* Per tunnel, its path MTUs (struct fou_tun_pmtu): the control side
	 * zeroes a slot when its tunnel comes and goes. */
	struct fou_tun_pmtu *tun_pmtu;		/* max_tunnels entries */
	uint64_t pmtu_expires_tsc;		/* a learnt path MTU's life, TSC cycles */
	/* Settings a worker must see whole: published as one word each
	 * (fou_sport_range_load, fou_icmp_limit_load). */
	uint32_t sport_range;			/* MIN << 16 | MAX */
	uint64_t icmp_limit;			/* rate << 32 | burst; rate 0: none */
	const struct fou_addr_set *addrs;	/* one of addr_sets */
	const struct fou_own_set *own;		/* one of own_sets, built from addrs */
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
	struct rte_ring *probe_ring;		/* returned tunnel probes, MP/SC (fou_probe.c) */
	struct fou_probe_tbl *probe;		/* tunnel health, control only */
	int hold_key_off;			/* mbuf dynamic field: struct fou_neigh_key
						 * (the GRO tag's: held packets skip GRO) */
	uint8_t *neigh_used;			/* max_neighs entries */
	struct rte_ring *inject[RTE_MAX_LCORE];	/* of started contexts (SP/SC) */
	int gro_tag_off;			/* mbuf dynamic field: struct fou_gro_tag */
	/*
	 * The exception path (fou_punt.c), per port: the ring the workers
	 * hand what goes up to the kernel interface to (MP/SC, never waiting;
	 * NULL: no kernel interface), and its rate limit per lcore, rate << 32
	 * | burst (rate 0: none). Set before the workers start, and not
	 * changed while they run.
	 */
	struct rte_ring *punt_ring[RTE_MAX_ETHPORTS];
	uint64_t punt_limit[RTE_MAX_ETHPORTS];

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
	size_t memsize;				/* heap the tables took when made */
	uint32_t nb_nh;
	struct fou_nh_ctl *nh_ctl;		/* max_nexthops entries, beside nh */
	struct rte_hash *nh_keys;		/* fou_nh_key -> index into nh */
	struct fou_idpool *nh_ids;		/* free next hops, lowest first */
	uint32_t nh_unused;			/* next hops without a route: freed at commit */
	uint32_t nh_gateways;			/* FOU_NH_GATEWAY next hops (nh_ctl.gw_next) */
	uint32_t nb_neighs;			/* against params.max_neighs */
	struct fou_neigh_tbl *nt;		/* the neighbour table (fou_neigh.c) */
	pthread_mutex_t ctl_lock;		/* fou_gw_lock(): one control writer */
	struct rte_hash *tun_names;		/* name -> index */
	struct fou_idpool *tun_ids;		/* free tunnel slots, lowest first */
	uint32_t tun_plain[256];		/* IP proto -> encap-none tunnels of that type */
	uint32_t tun_plain6[256];		/* the same over IPv6 (plain_rx6) */
	struct fou_addr_set addr_sets[2];
	struct fou_own_set *own_sets;		/* two: own is one of them */
	struct fou_route *routes;		/* max_routes records */
	uint32_t max_routes;
	uint32_t route_head, route_tail;	/* the routes in the order they were added */
	uint32_t route_free;			/* unused records, linked by next */
	uint32_t nb_routes;			/* all, default routes too */
	uint32_t nb_routes4, nb_routes6;	/* in the FIBs: against params.max_routes4/6 */
	uint32_t default_route4, default_route6;	/* record of 0/0 + 1, 0 = none */
	struct fou_route_aux *raux;
	bool ports_running;			/* link changes go to the ethdev too */
	uint32_t reasm_time;			/* seconds: the contexts' reassembly tables */
	struct fou_worker_conf *workers;	/* RTE_MAX_LCORE entries */
	bool is_worker[RTE_MAX_LCORE];
	/* what /fou/stats/reset saw: readers subtract it (control only) */
	struct fou_lcore_stats *stats_base;	/* FOU_STATS_ROWS entries */
	struct fou_tun_stats *tun_base;		/* max_tunnels entries */
	uint8_t lcore_reader[RTE_MAX_LCORE];	/* a started context (qsbr reader) */
	struct fou_punt_ctl *punt;		/* the kernel interfaces (fou_punt.c) */
	struct fou_plpmtu_tun *plpmtu;		/* max_tunnels path MTU searches */
	uint32_t plpmtu_hi;			/* tunnels below it may be searched */
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

static inline bool
fou_tun_key_eq(const struct fou_tun_key *a, const struct fou_tun_key *b)
{
	uint64_t x[2], y[2];

	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	return ((x[0] ^ y[0]) | (x[1] ^ y[1])) == 0;
}

/* Whether k is the key fou_tun_key6_make() would make of the rest: read
 * from the packet's header rather than from a key just built, whose
 * narrow stores the wide loads of a comparison would wait for. */
static inline bool
fou_tun_key6_is(const struct fou_tun_key6 *k, uint8_t type, const uint8_t *local,
		const uint8_t *remote, bool key_set, uint32_t key)
{
	uint64_t x[4], y[4];

	memcpy(x, k->local, 32);	/* local, then remote */
	memcpy(y, local, 16);
	memcpy(y + 2, remote, 16);
	return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3])) == 0 &&
	       k->key == (key_set ? key : 0) && k->type == type && k->key_set == key_set;
}
static_assert(offsetof(struct fou_tun_key6, remote) == 16, "fou_tun_key6_is's addresses");

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
