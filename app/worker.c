/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker lcore loop (l3fwd's shape): drain timer, rx burst on each of
 * its RX queues handed to its gateway context (fou_lcore_rx()), what
 * leaves buffered per egress port and sent on this worker's own TX queue
 * there, fou_lcore_idle() at the end of every loop. No locks, no syscalls,
 * no logging, no allocation once running.
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_random.h>

#include "app.h"

#define FOU_TX_DRAIN_US 100

volatile bool fou_app_quit;

int
fou_worker_init(struct fou_worker *w, struct fou_gw *gw, unsigned int lcore_id, uint16_t idx,
		uint16_t burst, const struct fou_app_port *ports, const struct fou_app_mem *mem)
{
	const struct fou_lcore_conf lconf = {
		.direct = mem->direct,
		.indirect = mem->indirect,
		/* outer IPv4 IDs: each lcore starts somewhere else, so two
		 * lcores sending to one remote do not walk the same IDs in step */
		.ip_id = (uint16_t)rte_rand(),
		/* Linux' ipfrag_high_thresh is the gateway's, shared out */
		.reasm_mem = FOU_REASM_MEM / (rte_lcore_count() - 1),
		.socket_id = mem->socket,
	};
	struct fou_err err;
	uint16_t port;

	memset(w, 0, sizeof(*w));
	w->burst = burst;
	w->st = fou_lcore_stats(gw, lcore_id);
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
	w->lc = fou_lcore_create(gw, lcore_id, &lconf, &err);
	if (w->lc == NULL) {
		fprintf(stderr, "dpdk-fou: %s\n", err.msg);
		return -ENOMEM;
	}
	return 0;
}

void
fou_worker_fini(struct fou_worker *w)
{
	fou_lcore_free(w->lc);
	w->lc = NULL;
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

/* What the gateway context sends comes here. */
static void
fou_worker_emit(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		fou_worker_tx(ctx, ports[i], pkts[i]);
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
	uint64_t prev_tsc = 0;

	if (fou_lcore_start(w->lc) != 0)
		return -1;
	while (!__atomic_load_n(&fou_app_quit, __ATOMIC_RELAXED)) {
		uint64_t cur_tsc = rte_rdtsc();
		uint16_t i;

		if (unlikely(cur_tsc - prev_tsc > drain_tsc)) {
			fou_worker_flush(w);
			prev_tsc = cur_tsc;
		}
		for (i = 0; i < w->conf.nb_rxq; i++) {
			const uint16_t port = w->conf.rxq[i].port;
			uint16_t n;

			n = rte_eth_rx_burst(port, w->conf.rxq[i].queue, pkts, w->burst);
			if (n == 0) {
				FOU_STAT_ADD(w->st->polls_idle, 1);
				continue;
			}
			FOU_STAT_ADD(w->st->polls_busy, 1);
			fou_lcore_rx(w->lc, port, pkts, n, cur_tsc, fou_worker_emit, w);
		}
		fou_lcore_idle(w->lc, cur_tsc, fou_worker_emit, w);
	}
	fou_lcore_stop(w->lc, fou_worker_emit, w);
	fou_worker_flush(w);
	return 0;
}
