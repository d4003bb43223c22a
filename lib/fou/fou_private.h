/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal layout of the gateway tables; not installed. */
#ifndef FOU_PRIVATE_H
#define FOU_PRIVATE_H

#include <assert.h>
#include <rte_hash.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>

#include "fou.h"

enum fou_nh_type {
	FOU_NH_LOCAL = 1,	/* one of our addresses */
	FOU_NH_CONNECTED,	/* on-link: the destination is the neighbour */
	FOU_NH_GATEWAY,		/* via a gateway on the port */
};

/* A next hop; routes sharing one share the entry. Immutable once used. */
struct fou_nexthop {
	uint8_t type;		/* enum fou_nh_type; 0 = free slot */
	uint8_t family;
	uint16_t port;
	uint32_t refcnt;	/* control only */
	struct fou_ip gw;	/* FOU_NH_GATEWAY */
};

/* Neighbour table key: no padding, so it hashes the same every time. */
struct fou_neigh_key {
	uint16_t port;
	uint8_t family;
	uint8_t zero;
	uint8_t addr[16];	/* IPv4 in the first 4 bytes, rest 0 */
};
static_assert(sizeof(struct fou_neigh_key) == 20, "neighbour key has padding");

/* What the data path needs of a DPDK port. */
struct fou_iface {
	struct rte_ether_addr mac;
	uint16_t mtu;		/* L3 MTU */
	uint8_t enabled;
};

struct fou_udp_port {
	uint16_t udp_port;
	uint8_t ipproto;	/* 0 = free slot */
};

/* Control-side record of a local address (for on-link checks, display). */
struct fou_addr {
	uint16_t port;
	struct fou_ip ip;
};

#define FOU_MAX_ADDRS 256

struct fou_gw {
	/* read per packet */
	struct rte_lpm *lpm4;
	struct rte_lpm6 *lpm6;
	struct fou_nexthop *nh;
	struct rte_hash *neigh;
	struct rte_ether_addr *neigh_mac;	/* by rte_hash position */
	uint32_t default_nh4;			/* 0/0 route: nh index + 1, 0 = none */
	uint32_t default_nh6;
	struct fou_iface iface[RTE_MAX_ETHPORTS];
	uint8_t udp_slot[65536];		/* UDP dport -> slot, 0 = not FOU */
	struct fou_udp_port udp[FOU_MAX_UDP_PORTS + 1];

	/* control only */
	struct fou_gw_params params;
	uint32_t nb_nh;
	unsigned int nb_addrs;
	struct fou_addr addrs[FOU_MAX_ADDRS];
	struct fou_lcore_stats *stats;		/* RTE_MAX_LCORE entries */
};

void fou_neigh_key_make(struct fou_neigh_key *k, uint16_t port, uint8_t family,
			const void *addr);

/* Stop telemetry commands from reading gw; waits for one in progress. */
void fou_telemetry_detach(struct fou_gw *gw);

#endif /* FOU_PRIVATE_H */
