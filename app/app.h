/* SPDX-License-Identifier: BSD-3-Clause */
/* dpdk-fou application: shared between main, args, port and worker. */
#ifndef FOU_APP_H
#define FOU_APP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "fou.h"

#define FOU_APP_EXIT_USAGE 2	/* bad option or config: nothing started */

struct fou_app_opts {
	uint32_t idle_exit_ms;	/* 0 = run until a signal */
};

/* Parse the application arguments (after EAL's) and apply them to gw.
 * Returns 0, 1 for --help, or -1 after printing a message naming the bad
 * option. */
int fou_app_args(int argc, char **argv, struct fou_gw *gw, struct fou_app_opts *opts);
void fou_app_usage(const char *prgname);

/* Configure and start a port with nb_queues RX and TX queues. */
int fou_app_port_start(uint16_t port, uint16_t nb_queues, struct rte_mempool *mp,
		       const struct rte_ether_addr *mac, uint16_t mtu);

/* Worker lcore state: written by its lcore only. */
struct fou_worker {
	struct fou_gw *gw;
	struct fou_lcore_stats *st;
	uint16_t queue;				/* RX and TX queue on every port */
	uint16_t nb_ports;
	uint16_t ports[RTE_MAX_ETHPORTS];	/* ports this worker polls */
	struct rte_eth_dev_tx_buffer *txb[RTE_MAX_ETHPORTS];
} __rte_cache_aligned;

extern volatile bool fou_app_quit;

int fou_worker_init(struct fou_worker *w, struct fou_gw *gw, unsigned int lcore_id,
		    uint16_t queue);
void fou_worker_free(struct fou_worker *w);
int fou_worker_main(void *arg);

#endif /* FOU_APP_H */
