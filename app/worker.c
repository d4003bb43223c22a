/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker lcore loop (l3fwd's shape): drain timer, rx burst on each of
 * its queues, fou_rx_burst(), buffered tx per egress port. No locks, no
 * syscalls, no logging, no allocation once running.
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "app.h"

#define FOU_TX_DRAIN_US 100
#define FOU_QS_LOOPS 16		/* loops between two RCU quiescent-state reports */

volatile bool fou_app_quit;

/* rte_eth_tx_buffer error callback: the queue was full. */
static void
fou_worker_tx_unsent(struct rte_mbuf **pkts, uint16_t n, void *arg)
{
	struct fou_lcore_stats *st = arg;

	FOU_STAT_ADD(st->drop[FOU_DROP_TX_FULL], n);
	rte_pktmbuf_free_bulk(pkts, n);
}

int
fou_worker_init(struct fou_worker *w, struct fou_gw *gw, unsigned int lcore_id, uint16_t queue)
{
	uint16_t port;

	memset(w, 0, sizeof(*w));
	w->gw = gw;
	w->st = fou_lcore_stats(gw, lcore_id);
	/* outer IPv4 IDs: each lcore starts somewhere else, so two lcores
	 * sending to one remote do not walk the same IDs in step */
	w->st->ip_id = (uint16_t)rte_rand();
	w->queue = queue;
	RTE_ETH_FOREACH_DEV(port) {
		w->txb[port] = rte_zmalloc_socket("fou_txb", RTE_ETH_TX_BUFFER_SIZE(FOU_BURST), 0,
						  rte_lcore_to_socket_id(lcore_id));
		if (w->txb[port] == NULL)
			return -ENOMEM;
		rte_eth_tx_buffer_init(w->txb[port], FOU_BURST);
		rte_eth_tx_buffer_set_err_callback(w->txb[port], fou_worker_tx_unsent, w->st);
		w->ports[w->nb_ports++] = port;
	}
	return 0;
}

void
fou_worker_free(struct fou_worker *w)
{
	unsigned int p;

	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		rte_free(w->txb[p]);
}

static inline void
fou_worker_flush(struct fou_worker *w)
{
	uint16_t i;

	for (i = 0; i < w->nb_ports; i++) {
		uint16_t port = w->ports[i];
		uint16_t sent = rte_eth_tx_buffer_flush(port, w->queue, w->txb[port]);

		FOU_STAT_ADD(w->st->tx[port], sent);
	}
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
		for (i = 0; i < w->nb_ports; i++) {
			uint16_t port = w->ports[i], n, nf;

			n = rte_eth_rx_burst(port, w->queue, pkts, FOU_BURST);
			if (n == 0)
				continue;
			nf = fou_rx_burst(w->gw, w->st, port, pkts, n, out_port);
			for (j = 0; j < nf; j++) {
				uint16_t op = out_port[j];
				uint16_t sent = rte_eth_tx_buffer(op, w->queue, w->txb[op], pkts[j]);

				if (sent != 0)
					FOU_STAT_ADD(w->st->tx[op], sent);
			}
		}
	}
	fou_worker_flush(w);
	fou_lcore_reader_stop(w->gw, lcore);
	return 0;
}
