/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's per-lcore context (fou.h's opaque struct fou_lcore): the
 * pointers into the gateway it reads and counts in, and the data-path state
 * only its own lcore writes. Created and freed by the control side
 * (fou_lcore.c); every data-path stage takes it. Later per-lcore state
 * (neighbour resolution queues, fragment tables) belongs here too.
 */
#ifndef FOU_LCORE_H
#define FOU_LCORE_H

#include "fou_private.h"

/* The verdict of a data-path stage on one packet: a drop reason, forward,
 * held (handed to the control thread to wait for its neighbour),
 * consumed (taken in by the gateway's own stack: an ARP reply, an NA);
 * taken (a fragment kept by the reassembly table, or dropped by it and
 * counted there; a returned tunnel probe handed to the control thread,
 * counted consumed), reassembled (the fragment completed a datagram, which
 * is in lc->reasm_done), or punted (handed to the control thread for the
 * port's kernel interface). */
#define FOU_FWD FOU_DROP_MAX
#define FOU_HELD (FOU_DROP_MAX + 1)
#define FOU_CONSUMED (FOU_DROP_MAX + 2)
#define FOU_TAKEN (FOU_DROP_MAX + 3)
#define FOU_REASSEMBLED (FOU_DROP_MAX + 4)
#define FOU_PUNTED (FOU_DROP_MAX + 5)
/* forward, but fragmented on the way out: the context's fragmentation
 * stage (fou_frag.h) takes it after the receive stage */
#define FOU_FRAG (FOU_DROP_MAX + 6)

#define FOU_NEIGH_CACHE 64	/* neighbours each lcore remembers (power of 2) */

struct fou_gro;
struct fou_reasm;
struct fou_frag;

/* A neighbour an lcore looked up (fou_adj_neigh()). */
struct fou_neigh_cached {
	uint64_t key[3];		/* the neighbour key; 0: empty */
	struct rte_ether_addr mac;
};

struct fou_lcore {
	/* set at creation; the data path only reads the gateway (its stages
	 * take it const), fou_lcore_start/stop register it as a reader */
	struct fou_gw *gw;
	struct fou_lcore_stats *st;		/* the gateway's counters of this lcore */
	struct fou_tun_stats *tun_st;		/* its tunnel counters, by tunnel index */
	struct fou_gro *gro;			/* its GRO table (fou_gro.c) */
	struct fou_reasm *reasm;		/* its fragments (fou_reasm.c); NULL for
						 * the control context */
	struct fou_frag *frag;			/* its fragmentation stage (fou_frag.c) */
	struct rte_mempool *pool;		/* packets it builds (the control context),
						 * and fragments */
	struct rte_mempool *indirect;		/* fragments that point into a packet */
	struct rte_ring *inject;		/* what the control thread sends through it */
	unsigned int lcore_id;

	/* written by the owning lcore only */
	uint64_t now;				/* TSC of the burst it works on */
	const struct fou_route_memo *memo;	/* the packet's lookups done ahead */
	uint16_t ip_id;				/* outer IPv4 ID of packets we build */
	bool gro_held;				/* the GRO table may hold packets */
	bool started;				/* a qsbr reader */
	struct rte_mbuf *reasm_done;		/* FOU_REASSEMBLED: the datagram */
	uint64_t icmp_tsc;			/* ICMP token bucket: last refill, 0 = full */
	uint64_t icmp_credit;			/* TSC cycles; an error costs hz / rate */
	/* the punt path's token bucket per port, as the ICMP one */
	uint64_t punt_tsc[RTE_MAX_ETHPORTS];
	uint64_t punt_credit[RTE_MAX_ETHPORTS];
	/* neighbours this lcore looked up, valid while neigh_gen equals the
	 * gateway's: any neighbour change empties it */
	uint32_t neigh_gen;
	struct fou_neigh_cached neigh_cache[FOU_NEIGH_CACHE];
} __rte_cache_aligned;

#endif /* FOU_LCORE_H */
