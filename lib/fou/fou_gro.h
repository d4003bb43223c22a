/* SPDX-License-Identifier: BSD-3-Clause */
/* One lcore's GRO table (fou_gro.c), driven by its context (fou_lcore.c). */
#ifndef FOU_GRO_H
#define FOU_GRO_H

#include "fou_lcore.h"

struct rte_mempool;

/* Control path: the pools give rte_gso its header (direct) and payload
 * (indirect) mbufs. */
struct fou_gro *fou_gro_create(const struct fou_gw *gw, struct rte_mempool *direct,
			       struct rte_mempool *indirect, int socket_id);
/* Frees what the table still holds. */
void fou_gro_free(struct fou_gro *g);
/*
 * Data path: the n packets fou_rx_burst() forwarded (tagged for GRO),
 * received on rx_port, to out_port[]: merged or held, or sent on through
 * emit (after the held packets of their own flow). now: rte_rdtsc().
 */
void fou_gro_burst(struct fou_gro *g, struct fou_lcore_stats *st, uint16_t rx_port,
		   struct rte_mbuf **pkts, uint16_t n, const uint16_t *out_port, uint64_t now,
		   fou_emit_fn emit, void *ctx);
/* Send on the held flows whose time is up (all: every one). Returns how
 * many flows are still held. */
unsigned int fou_gro_flush(struct fou_gro *g, struct fou_lcore_stats *st, uint64_t now, bool all,
			   fou_emit_fn emit, void *ctx);
/* Send on every flow held from rx_port: its GRO was turned off, and what
 * it receives now must not pass what is held. Returns as fou_gro_flush. */
unsigned int fou_gro_flush_port(struct fou_gro *g, struct fou_lcore_stats *st, uint16_t rx_port,
				fou_emit_fn emit, void *ctx);

#endif /* FOU_GRO_H */
