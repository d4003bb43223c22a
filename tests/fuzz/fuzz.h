/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared pieces of the libFuzzer targets: the EAL, a gateway configured
 * through the statement parser, frames copied into (chained) mbufs whose
 * unused bytes are poisoned for ASan, one burst through a worker's context
 * (fou_lcore_rx()) with every output checked and freed, and the running
 * configuration as text to compare and restore. A broken rule aborts, which
 * libFuzzer reports as a crash with the input that caused it.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_mbuf.h>

#include "fou.h"
#include "fou_stmt.h"

#define FUZZ_FAIL(...) \
	do { \
		fprintf(stderr, "fuzz: %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} while (0)

#define FUZZ_ASSERT(cond, ...) \
	do { \
		if (!(cond)) \
			FUZZ_FAIL(__VA_ARGS__); \
	} while (0)

/* --- EAL and the gateway ------------------------------------------------ */

#define FUZZ_NB_MBUF 511
#define FUZZ_PORTS 3		/* gateway ports 0-2 (net_null vdevs when asked) */

extern struct rte_mempool *fuzz_pool;

/*
 * rte_eal_init (no hugepages, no PCI, own file prefix), the mbuf pool;
 * with FUZZ_EAL_VDEVS, FUZZ_PORTS net_null ports configured and started;
 * with FUZZ_EAL_TELEMETRY, the telemetry socket in the runtime directory
 * (removed at exit). Allocations made here are not leaks.
 */
#define FUZZ_EAL_VDEVS 1
#define FUZZ_EAL_TELEMETRY 2
void fuzz_eal_init(const char *name, unsigned int flags);

/* A gateway with default sizes (or small tables, that fill up) and the
 * statements ("NAME ARG" lines), each of which must apply. */
struct fou_gw *fuzz_gw_new(const char *const *stmts, bool small);
void fuzz_gw_apply(struct fou_gw *gw, const char *const *stmts);

/*
 * The gateway of the packet targets: ports 0 (outside, 10.99.0.1/24), 1
 * (inside, 192.168.1.1/24, fd00:1::1/64, default routes) and 2 (outside,
 * 10.98.0.1/24, MTU 1400, checksum offloads); FOU ports 5555 ipip, 5556
 * gre, 5557 sit, 5558 ipv6, 6000 udp, GUE port 6080; the tunnels of fuzz_tunnels routed
 * from 10.T.0.0/16 and fd10:T::/32. config/demo.conf is a subset.
 */
extern const char *const fuzz_gw_stmts[];
struct fou_gw *fuzz_gw_packet(bool small);
/* The parser targets' gateway (fuzz_gw_new(fuzz_parser_stmts, true)). */
extern const char *const fuzz_parser_stmts[];
/* How many tunnels fuzz_gw_packet() has (named t1 ...). */
unsigned int fuzz_nb_tunnels(void);

/* --- frames --------------------------------------------------------------- */

struct fuzz_frame {
	uint16_t port;		/* ingress port */
	uint64_t ol_flags;	/* RX checksum verdicts */
	unsigned int nb_segs;	/* wanted; raised so each segment fits */
	uint32_t seed;		/* segment lengths */
	uint16_t headroom;
};

/*
 * The frame in an mbuf chain from fuzz_pool; bytes of the buffers outside
 * the frame are poisoned, so reading past it is an ASan error.
 */
struct rte_mbuf *fuzz_mbuf(const uint8_t *b, size_t len, const struct fuzz_frame *f);

/*
 * The RX checksum flags a NIC would set for this frame (truthful verdicts
 * of the outer IPv4 header and UDP checksum), picked by sel: 0 none, 1 the
 * verdicts, 2 "not in the packet but verified" where the checksum is right.
 */
uint64_t fuzz_rx_flags(const uint8_t *b, size_t len, unsigned int sel);

/*
 * A worker's context of this lcore on gw (outer IPv4 IDs from 0), for the
 * life of the process. rte_gso's pools: direct and indirect, fuzz_pool
 * where NULL.
 */
struct fou_lcore *fuzz_lcore_new(struct fou_gw *gw, struct rte_mempool *direct,
				 struct rte_mempool *indirect);

/*
 * One burst (at most FOU_BURST) received on port, through fou_lcore_rx() as
 * a worker runs it, on the one context of gw this file makes at the first
 * burst: its state (IP IDs, ICMP bucket, the neighbours it looked up) goes
 * on from input to input, as a worker's does. Every output is checked
 * (fuzz_check_output), counted as tx and freed; then rx = tx + drops +
 * held for the burst, the held ones go through fuzz_local_stack(), and
 * every mbuf is back in the pool, or abort. Returns how many
 * were forwarded.
 */
uint16_t fuzz_burst(const struct fou_gw *gw, uint16_t port, struct rte_mbuf **pkts, uint16_t n);

/*
 * After a burst, the gateway's own stack as its control thread runs it:
 * what the worker held for want of a neighbour is checked
 * (fuzz_check_held()), then a control context takes it and what ARP told
 * the worker (fou_neigh_service(): learn, queue, resolve; no worker is
 * started, so nothing is sent), the learnt entries are flushed so that
 * every input starts from the static ones, and what still waits is
 * dropped (fou_neigh_stop()). Then nothing is held and the whole
 * gateway's accounting balances, or abort. Returns how many were held.
 */
unsigned int fuzz_local_stack(struct fou_gw *gw);

/* --- the running configuration -------------------------------------------- */

#define FUZZ_CFG_MAX 65536

/* fou_config_dump() as "NAME ARG\n" lines into buf. */
void fuzz_config_text(const struct fou_gw *gw, char *buf, size_t size);

/*
 * Put gw back to the configuration base (a fuzz_config_text()): delete
 * every statement it does not have, set or re-add the ones it lost. Then
 * the configuration must hold the same statements as base, or abort.
 */
void fuzz_config_restore(struct fou_gw *gw, const char *base);

/* Run a function with stdout and stderr (the FILE streams, not the file
 * descriptors sanitizers write to) going into a buffer; returns how many
 * bytes it printed. */
size_t fuzz_quiet_begin(void);
size_t fuzz_quiet_end(void);

/* getopt as main.c leaves it for fou_app_args(): EAL's parse has run to
 * its end (nothing left of an earlier argv). */
void fuzz_getopt_reset(void);

#endif /* FUZZ_H */
