/* SPDX-License-Identifier: BSD-3-Clause */
/* dpdk-fou application: shared between main, args, port and worker. */
#ifndef FOU_APP_H
#define FOU_APP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "fou.h"
#include "fou_stmt.h"

#define FOU_APP_EXIT_USAGE 2	/* bad option or config: nothing started */

struct fou_app_stmts;

struct fou_app_opts {
	uint32_t idle_exit_ms;	/* 0 = run until a signal */
	uint16_t burst;		/* --burst: most packets per rte_eth_rx_burst(), 1-FOU_BURST */
	struct fou_app_stmts *stmts;	/* read, for fou_app_args_apply() */
	bool no_pdump;		/* dpdk-dumpcap cannot attach */
};

/*
 * Parse the application arguments (after EAL's): the limits statements
 * into *params (the gateway is made with them), every other statement
 * into opts, sorted, for fou_app_args_apply(). params NULL: the gateway
 * exists, limits are applied (refused) as the others. Returns 0, 1 for
 * --help, or -1 after printing a message naming the bad option (opts then
 * holds nothing).
 */
int fou_app_args_parse(int argc, char **argv, struct fou_gw_params *params,
		       struct fou_app_opts *opts);
/* Apply the statements parsed to gw and free them: 0, or -1 after
 * printing a message naming the statement. */
int fou_app_args_apply(struct fou_gw *gw, struct fou_app_opts *opts);
/* Free the statements parsed and not applied. */
void fou_app_args_free(struct fou_app_opts *opts);
/* Both, on a gateway that exists. */
int fou_app_args(int argc, char **argv, struct fou_gw *gw, struct fou_app_opts *opts);
void fou_app_usage(const char *prgname);

/* How a started port is set up. */
struct fou_app_port {
	uint16_t nb_rxq;	/* <= workers: RSS spreads over these */
	uint16_t nb_txq;	/* one per worker */
	uint64_t rss_hf;	/* 0: no RSS */
	uint64_t tx_offloads;	/* RTE_ETH_TX_OFFLOAD_* enabled (MULTI_SEGS: sends chains) */
	char driver[32];
};

/*
 * Where a worker's memory comes from: the mbuf pools of its NUMA socket,
 * which its RX queues on every port fill from and its context allocates
 * from, and the socket the rings of its queues are allocated on
 * (SOCKET_ID_ANY on 4 KB pages, which the EAL files under socket 0 only).
 */
struct fou_app_mem {
	int socket;
	struct rte_mempool *direct, *indirect;
};

/* Configure and start a port for nb_workers worker lcores, with the MAC
 * address and MTU the gateway holds for it: its queue q in mem[q]'s memory
 * (worker number q owns them). */
int fou_app_port_start(const struct fou_gw *gw, uint16_t port, uint16_t nb_workers,
		       const struct fou_app_mem *mem, struct fou_app_port *out);

/* Packets waiting for one port's TX queue. */
struct fou_txbuf {
	uint16_t n;
	struct rte_mbuf *pkts[FOU_BURST];
};

/* Worker lcore state: written by its lcore only. */
struct fou_worker {
	struct fou_lcore *lc;			/* the gateway's per-lcore context */
	struct fou_lcore_stats *st;		/* its counters: the worker counts TX */
	struct fou_worker_conf conf;		/* its RX queues and its TX queue */
	uint16_t burst;				/* most packets one RX poll takes */
	uint16_t nb_ports;
	uint16_t ports[RTE_MAX_ETHPORTS];	/* every port: it may send on each */
	struct fou_txbuf txb[RTE_MAX_ETHPORTS];
} __rte_cache_aligned;

extern volatile bool fou_app_quit;

/* Before rte_eal_init(): rte_log's messages to stdout, with their
 * priority when stdout is systemd's journal, to syslog with --syslog
 * (app/log.c). */
void fou_app_log_init(int argc, char **argv);

/* One sd_notify datagram ("READY=1", "STOPPING=1", "STATUS=...", lines
 * joined by '\n') to $NOTIFY_SOCKET if systemd gave one (app/notify.c). */
int fou_app_notify(const char *fmt, ...) __rte_format_printf(1, 2);

/* Worker number idx (0-based) of nb: TX queue idx on every port, RX queue
 * idx where the port has that many; at most burst packets per RX poll. */
int fou_worker_init(struct fou_worker *w, struct fou_gw *gw, unsigned int lcore_id,
		    uint16_t idx, uint16_t burst, const struct fou_app_port *ports,
		    const struct fou_app_mem *mem);
void fou_worker_fini(struct fou_worker *w);
int fou_worker_main(void *arg);

#endif /* FOU_APP_H */
