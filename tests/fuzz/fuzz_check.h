/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every packet the gateway sends must be, checked with code of its
 * own (not the library's): a sane mbuf; Ethernet from the egress port's
 * MAC to a neighbour on that port; an IPv4 or IPv6 packet exactly as long
 * as the frame and never above the port's MTU, with a valid header
 * checksum and a TTL / hop limit left; nothing forwarded to or from a
 * martian or multicast address; an ICMP error with a valid checksum; an
 * encapsulation matching one of the gateway's tunnels in every outer field
 * (lengths, checksums computed or left to the port as configured, GRE
 * flags, key, protocol) around a valid inner packet; or an ARP reply for
 * one of the port's addresses.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdint.h>
#include <stddef.h>

#include <rte_mbuf.h>

#include "fou.h"
#include "cksum.h"	/* the checksum code of the tests (tests/common) */

/* Learn the gateway's ports, addresses, neighbours and tunnels. */
void fuzz_check_init(const struct fou_gw *gw);
/*
 * Abort unless m, sent on port, is a packet the gateway may send; icmp 1:
 * it is an ICMP error the gateway made (maybe in a tunnel), 0: it is not,
 * -1: either.
 */
void fuzz_check_output(const struct rte_mbuf *m, uint16_t port, int icmp);
/* The same for m held for want of its neighbour on port: finished but for
 * the destination MAC, which is zero. */
void fuzz_check_held(const struct rte_mbuf *m, uint16_t port);

#endif /* FUZZ_CHECK_H */
