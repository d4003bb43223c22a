/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker lcore loop (l3fwd's shape): drain timer, rx burst on each of
 * its RX queues, fou_rx_burst() (which prefetches a window ahead), packets
 * buffered per egress port and sent on this worker's own TX queue there.
 * No locks, no syscalls, no logging, no allocation once running.
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_random.h>

#include "app.h"

#define FOU_TX_DRAIN_US 100
#define FOU_QS_LOOPS 16		/* loops between two RCU quiescent-state reports */

volatile bool fou_app_quit;

int
fou_worker_init(struct fou_worker *w, struct fou_gw *gw, unsigned int lcore_id, uint16_t idx,
		const struct fou_app_port *ports, struct rte_mempool *mp,
		struct rte_mempool *indirect)
{
	struct fou_err err;
	uint16_t port;

	memset(w, 0, sizeof(*w));
	w->gw = gw;
	w->st = fou_lcore_stats(gw, lcore_id);
	/* outer IPv4 IDs: each lcore starts somewhere else, so two lcores
	 * sending to one remote do not walk the same IDs in step */
	w->st->ip_id = (uint16_t)rte_rand();
	w->conf.tx_queue = idx;
	RTE_ETH_FOREACH_DEV(port) {
		w->ports[w->nb_ports++] = port;
		if (idx < ports[port].nb_rxq)
			w->conf.rxq[w->conf.nb_rxq++] = (struct fou_rxq){ port, idx };
	}
	if (fou_worker_set(gw, lcore_id, &w->conf, &err) != 0) {
		fprintf(stderr, "dpdk-fou: %s\n", err.msg);
		return -EINVAL;
	}
	w->gro = fou_gro_create(gw, mp, indirect, (int)rte_lcore_to_socket_id(lcore_id));
	if (w->gro == NULL) {
		fprintf(stderr, "dpdk-fou: lcore %u: cannot allocate its GRO table\n", lcore_id);
		return -ENOMEM;
	}
	return 0;
}

void
fou_worker_fini(struct fou_worker *w)
{
	fou_gro_free(w->gro);
	w->gro = NULL;
}

/*
 * Send what is buffered for port: rte_eth_tx_prepare first (it fixes up or
 * refuses offload requests on PMDs that need it), then the queue. A refused
 * packet is dropped and the rest still go; what the queue cannot take is
 * dropped as tx_full.
 */
static void
fou_worker_tx_flush(struct fou_worker *w, uint16_t port)
{
	struct fou_txbuf *b = &w->txb[port];
	const uint16_t q = w->conf.tx_queue;
	uint16_t done = 0, ok, sent;

	while (done < b->n) {
		ok = rte_eth_tx_prepare(port, q, &b->pkts[done], b->n - done);
		sent = rte_eth_tx_burst(port, q, &b->pkts[done], ok);
		FOU_STAT_ADD(w->st->tx[port], sent);
		if (unlikely(sent < ok)) {
			FOU_STAT_ADD(w->st->drop[FOU_DROP_TX_FULL], ok - sent);
			rte_pktmbuf_free_bulk(&b->pkts[done + sent], ok - sent);
		}
		done += ok;
		if (unlikely(done < b->n)) {
			FOU_STAT_ADD(w->st->drop[FOU_DROP_TX_PREPARE], 1);
			rte_pktmbuf_free(b->pkts[done++]);
		}
	}
	b->n = 0;
}

static inline void
fou_worker_tx(struct fou_worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct fou_txbuf *b = &w->txb[port];

	b->pkts[b->n++] = m;
	if (b->n == FOU_BURST)
		fou_worker_tx_flush(w, port);
}

/* fou_gro_burst() / fou_gro_flush() send through here */
static void
fou_worker_emit(void *ctx, uint16_t port, struct rte_mbuf *m)
{
	fou_worker_tx(ctx, port, m);
}

static inline void
fou_worker_flush(struct fou_worker *w)
{
	uint16_t i;

	for (i = 0; i < w->nb_ports; i++)
		if (w->txb[w->ports[i]].n != 0)
			fou_worker_tx_flush(w, w->ports[i]);
}

int
fou_worker_main(void *arg)
{
	struct fou_worker *w = arg;
	const uint64_t drain_tsc = (rte_get_tsc_hz() + US_PER_S - 1) / US_PER_S * FOU_TX_DRAIN_US;
	struct rte_mbuf *pkts[FOU_BURST];
	uint16_t out_port[FOU_BURST];
	uint64_t prev_tsc = 0;
	unsigned int lcore = rte_lcore_id(), loops = 0;

	if (fou_lcore_reader_start(w->gw, lcore) != 0)
		return -1;
	while (!__atomic_load_n(&fou_app_quit, __ATOMIC_RELAXED)) {
		uint64_t cur_tsc = rte_rdtsc();
		uint16_t i, j;

		if (++loops % FOU_QS_LOOPS == 0)
			fou_lcore_quiescent(w->gw, lcore);

		if (unlikely(cur_tsc - prev_tsc > drain_tsc)) {
			fou_worker_flush(w);
			prev_tsc = cur_tsc;
		}
		for (i = 0; i < w->conf.nb_rxq; i++) {
			const uint16_t port = w->conf.rxq[i].port;
			uint16_t n, nf;

			n = rte_eth_rx_burst(port, w->conf.rxq[i].queue, pkts, FOU_BURST);
			if (n == 0) {
				FOU_STAT_ADD(w->st->polls_idle, 1);
				continue;
			}
			FOU_STAT_ADD(w->st->polls_busy, 1);
			nf = fou_rx_burst(w->gw, w->st, port, pkts, n, out_port);
			if (w->st->gro_tagged) {
				fou_gro_burst(w->gro, w->st, port, pkts, nf, out_port, cur_tsc,
					      fou_worker_emit, w);
				w->gro_held = 1;
				continue;
			}
			/* GRO just turned off here: what it held goes first */
			if (unlikely(w->gro_held != 0))
				w->gro_held = fou_gro_flush_port(w->gro, w->st, port,
								 fou_worker_emit, w);
			for (j = 0; j < nf; j++)
				fou_worker_tx(w, out_port[j], pkts[j]);
		}
		/* GRO: what was held through this poll goes, unless the port
		 * gives it time (then when that is up) */
		if (w->gro_held != 0)
			w->gro_held = fou_gro_flush(w->gro, w->st, cur_tsc, false,
						    fou_worker_emit, w);
	}
	fou_gro_flush(w->gro, w->st, 0, true, fou_worker_emit, w);
	fou_worker_flush(w);
	fou_lcore_reader_stop(w->gw, lcore);
	return 0;
}
