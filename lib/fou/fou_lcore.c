/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's per-lcore context: created and freed on the control side,
 * then driven by its lcore with fou_lcore_rx() per burst and
 * fou_lcore_idle() per polling loop. It runs the receive stage (fou_rx.c)
 * and, on ports with GRO, hands what that forwarded to its GRO table
 * (fou_gro.c); the worker sees only what leaves.
 */
#include <stdio.h>

#include <rte_malloc.h>

#include "fou_frag.h"
#include "fou_gro.h"
#include "fou_lcore.h"
#include "fou_reasm.h"
#include "fou_rx.h"

/* What the control thread queued for this context to send and nobody sent:
 * dropped, counted where the control thread counts. */
static void
fou_lcore_inject_drop(struct fou_lcore *lc)
{
	struct rte_mbuf *m;

	while (lc->inject != NULL && rte_ring_sc_dequeue(lc->inject, (void **)&m) == 0) {
		FOU_STAT_ADD(lc->gw->stats[FOU_LCORE_CONTROL].drop[FOU_DROP_NEIGH_STOPPED], 1);
		rte_pktmbuf_free(m);
	}
}

/* Send what the control thread queued for this context (fou_neigh.c): each
 * mbuf carries its egress port in m->port. */
static inline void
fou_lcore_inject(struct fou_lcore *lc, fou_emit_fn emit, void *ctx)
{
	struct rte_mbuf *pkts[FOU_BURST];
	uint16_t ports[FOU_BURST];
	unsigned int n, i;

	do {
		n = rte_ring_sc_dequeue_burst(lc->inject, (void **)pkts, FOU_BURST, NULL);
		for (i = 0; i < n; i++)
			ports[i] = pkts[i]->port;
		if (n != 0)
			emit(ctx, pkts, ports, (uint16_t)n);
	} while (n == FOU_BURST);
}

void
fou_lcore_free(struct fou_lcore *lc)
{
	if (lc == NULL)
		return;
	fou_lcore_inject_drop(lc);
	rte_ring_free(lc->inject);
	fou_frag_free(lc->frag);
	fou_gro_free(lc->gro);
	if (lc->reasm != NULL)
		fou_reasm_free(lc->reasm, lc->st);
	rte_free(lc);
}

struct fou_lcore *
fou_lcore_create(struct fou_gw *gw, unsigned int lcore_id, const struct fou_lcore_conf *c,
		 struct fou_err *err)
{
	struct fou_lcore *lc;

	char name[RTE_RING_NAMESIZE];

	if (lcore_id > FOU_LCORE_CONTROL) {
		fou_err_set(err, "lcore %u is beyond RTE_MAX_LCORE", lcore_id);
		return NULL;
	}
	lc = rte_zmalloc_socket("fou_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE, c->socket_id);
	if (lc == NULL) {
		fou_err_set(err, "lcore %u: cannot allocate its context", lcore_id);
		return NULL;
	}
	lc->gro = fou_gro_create(gw, c->direct, c->indirect, c->socket_id);
	if (lc->gro == NULL) {
		fou_err_set(err, "lcore %u: cannot allocate its GRO table", lcore_id);
		fou_lcore_free(lc);
		return NULL;
	}
	lc->st = &gw->stats[lcore_id];	/* FOU_LCORE_CONTROL: the control row */
	/* the control context receives nothing: no fragments to hold */
	if (lcore_id != FOU_LCORE_CONTROL) {
		lc->reasm = fou_reasm_create(gw, c->direct, c->reasm_mem, c->socket_id);
		if (lc->reasm == NULL) {
			fou_err_set(err, "lcore %u: cannot allocate its reassembly table", lcore_id);
			fou_lcore_free(lc);
			return NULL;
		}
	}
	lc->frag = fou_frag_create(c->socket_id);
	if (lc->frag == NULL) {
		fou_err_set(err, "lcore %u: cannot allocate its fragmentation stage", lcore_id);
		fou_lcore_free(lc);
		return NULL;
	}
	/* what the control thread sends goes out through a worker's TX queue */
	snprintf(name, sizeof(name), "fou_inj_%u_%p", lcore_id, (void *)gw);
	lc->inject = rte_ring_create(name, FOU_INJECT_RING, c->socket_id,
				     RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (lc->inject == NULL) {
		fou_err_set(err, "lcore %u: cannot allocate its inject ring", lcore_id);
		fou_lcore_free(lc);
		return NULL;
	}
	lc->gw = gw;
	lc->pool = c->direct;
	lc->indirect = c->indirect;
	lc->lcore_id = lcore_id;
	/* a gateway without tunnels has no tunnel counters (and no packet
	 * ever reaches a tunnel) */
	if (gw->tun_stats != NULL)
		lc->tun_st = &gw->tun_stats[(size_t)lcore_id * gw->params.max_tunnels];
	lc->ip_id = c->ip_id;
	return lc;
}

int
fou_lcore_start(struct fou_lcore *lc)
{
	struct fou_gw *gw = lc->gw;
	int ret;

	if (lc->lcore_id == FOU_LCORE_CONTROL)
		return -EINVAL;
	ret = rte_rcu_qsbr_thread_register(gw->qsbr, lc->lcore_id);
	if (ret != 0)
		return ret;
	rte_rcu_qsbr_thread_online(gw->qsbr, lc->lcore_id);
	__atomic_store_n(&gw->lcore_reader[lc->lcore_id], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&gw->inject[lc->lcore_id], lc->inject, __ATOMIC_RELEASE);
	lc->started = true;
	return 0;
}

void
fou_lcore_stop(struct fou_lcore *lc, fou_emit_fn emit, void *ctx)
{
	struct fou_gw *gw = lc->gw;

	fou_gro_flush(lc->gro, lc->st, 0, true, emit, ctx);
	lc->gro_held = false;
	fou_reasm_flush(lc->reasm, lc->st);
	if (!lc->started)
		return;
	/* the control thread stops sending through it; what it sent goes */
	__atomic_store_n(&gw->inject[lc->lcore_id], NULL, __ATOMIC_RELEASE);
	fou_lcore_inject(lc, emit, ctx);
	rte_rcu_qsbr_thread_offline(gw->qsbr, lc->lcore_id);
	rte_rcu_qsbr_thread_unregister(gw->qsbr, lc->lcore_id);
	lc->started = false;
}

bool
fou_lcore_is_reader(const struct fou_gw *gw, unsigned int lcore_id)
{
	return lcore_id < RTE_MAX_LCORE &&
	       __atomic_load_n(&gw->lcore_reader[lcore_id], __ATOMIC_RELAXED) != 0;
}

/* What the receive stage forwarded, nf packets from port: to GRO or emit. */
static inline void
fou_lcore_deliver(struct fou_lcore *lc, uint16_t port, struct rte_mbuf **pkts,
		  const uint16_t *out_port, uint16_t nf, bool gro, uint64_t now, fou_emit_fn emit,
		  void *ctx)
{
	if (gro) {
		fou_gro_burst(lc->gro, lc->st, port, pkts, nf, out_port, now, emit, ctx);
		lc->gro_held = true;
		return;
	}
	/* GRO just turned off here: what it held from the port goes first */
	if (unlikely(lc->gro_held))
		lc->gro_held = fou_gro_flush_port(lc->gro, lc->st, port, emit, ctx) != 0;
	if (nf != 0)
		emit(ctx, pkts, out_port, nf);
}

/*
 * A burst with packets to fragment: each is cut where it stands, so that
 * what came before it from the port (GRO's held flows among them: one
 * may be its own) has gone first and what follows goes after.
 */
static __rte_noinline uint16_t
fou_lcore_frag_burst(struct fou_lcore *lc, uint16_t port, struct rte_mbuf **pkts,
		     const uint16_t *out_port, uint16_t nf, bool gro, uint64_t now,
		     fou_emit_fn emit, void *ctx)
{
	struct fou_frag *fr = lc->frag;
	uint16_t i, start = 0, sent = 0;
	unsigned int k = 0;

	for (i = 0; i < nf && k < fr->n; i++) {
		if (pkts[i] != fr->job[k].m)
			continue;
		if (i > start) {
			fou_lcore_deliver(lc, port, pkts + start, out_port + start, i - start, gro,
					  now, emit, ctx);
			sent += i - start;
		}
		if (lc->gro_held)
			lc->gro_held = fou_gro_flush_port(lc->gro, lc->st, port, emit, ctx) != 0;
		sent += fou_frag_output(lc, &fr->job[k++], emit, ctx);
		start = i + 1;
	}
	fr->n = 0;
	if (nf > start) {
		fou_lcore_deliver(lc, port, pkts + start, out_port + start, nf - start, gro, now,
				  emit, ctx);
		sent += nf - start;
	}
	/* as after any burst GRO saw: its flows are looked at when idle */
	if (gro)
		lc->gro_held = true;
	return sent;
}

/* One rte_eth_rx_burst()'s worth: the receive stage, then GRO or emit. */
static inline uint16_t
fou_lcore_rx_burst(struct fou_lcore *lc, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
		   uint64_t now, fou_emit_fn emit, void *ctx)
{
	uint16_t out_port[FOU_BURST], nf;
	bool gro;

	/* what timed out goes before a fragment can meet it (fou_reasm.c) */
	if (fou_reasm_busy(lc->reasm))
		fou_reasm_expire(lc, now, emit, ctx);
	lc->now = now;
	nf = fou_rx_burst(lc, port, pkts, n, out_port, &gro);
	if (unlikely(lc->frag->n != 0))
		return fou_lcore_frag_burst(lc, port, pkts, out_port, nf, gro, now, emit, ctx);
	fou_lcore_deliver(lc, port, pkts, out_port, nf, gro, now, emit, ctx);
	return nf;
}

uint16_t
fou_lcore_rx(struct fou_lcore *lc, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
	     uint64_t now, fou_emit_fn emit, void *ctx)
{
	uint16_t done, nf = 0;

	if (likely(n <= FOU_BURST))
		return fou_lcore_rx_burst(lc, port, pkts, n, now, emit, ctx);
	for (done = 0; done < n; done += FOU_BURST)
		nf += fou_lcore_rx_burst(lc, port, pkts + done, RTE_MIN(n - done, FOU_BURST), now,
					 emit, ctx);
	return nf;
}

void
fou_lcore_idle(struct fou_lcore *lc, uint64_t now, fou_emit_fn emit, void *ctx)
{
	/* what was held through this poll goes, unless the port gives it
	 * time (then when that is up) */
	if (lc->gro_held)
		lc->gro_held = fou_gro_flush(lc->gro, lc->st, now, false, emit, ctx) != 0;
	if (!rte_ring_empty(lc->inject))
		fou_lcore_inject(lc, emit, ctx);
	fou_reasm_expire(lc, now, emit, ctx);
	if (lc->started)
		rte_rcu_qsbr_quiescent(lc->gw->qsbr, lc->lcore_id);
}
