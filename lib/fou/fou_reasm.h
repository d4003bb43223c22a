/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly of IPv4 fragments addressed to the gateway (fou_reasm.c): a
 * context's table, the step of the receive path that takes a fragment,
 * and the timer work a context does between bursts.
 */
#ifndef FOU_REASM_H
#define FOU_REASM_H

#include <rte_ip.h>

#include "fou_lcore.h"

struct fou_reasm;

/* A context's table: reasm_mem bytes of mbufs at most (0: FOU_REASM_MEM);
 * time from the gateway (fou_reasm_time_set()). NULL without memory. */
struct fou_reasm *fou_reasm_create(const struct fou_gw *gw, struct rte_mempool *pool,
				   uint32_t reasm_mem, int socket_id);
/* What it still holds is dropped (reasm_stopped) and counted in st. */
void fou_reasm_free(struct fou_reasm *r, struct fou_lcore_stats *st);
void fou_reasm_flush(struct fou_reasm *r, struct fou_lcore_stats *st);

/*
 * The IPv4 fragment m (IP header ip at off, hl and tot checked, to one
 * of our addresses): checked against what came before of its datagram as
 * Linux' ip_frag_queue checks it, then taken into the table. Returns
 * FOU_TAKEN (kept, or dropped with its datagram and counted here), a drop
 * reason for the fragment alone (the caller frees and counts it), or
 * FOU_REASSEMBLED with lc->reasm_done the whole datagram: its Ethernet and
 * IPv4 header are the first fragment's, no longer a fragment, the header
 * checksum right; one mbuf where it fits, else a chain.
 */
unsigned int fou_reasm4(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off,
			struct rte_ipv4_hdr *ip, uint32_t hl, uint32_t tot);

/*
 * Datagrams older than the reassembly time at now are dropped; for each
 * whose first fragment came, that fragment becomes ICMP time exceeded
 * (fragment reassembly time exceeded), sent to emit. Before any fragment
 * of a burst at now is taken, and once per polling loop.
 */
void fou_reasm_expire(struct fou_lcore *lc, uint64_t now, fou_emit_fn emit, void *ctx);

/* Whether the table holds anything (a poll without fragments skips it). */
bool fou_reasm_busy(const struct fou_reasm *r);

#endif /* FOU_REASM_H */
