/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The workers' side of the exception path (fou_punt.c has the control
 * thread's): a packet for one of our addresses that the gateway does not
 * take itself goes up to the receiving port's kernel interface instead of
 * being answered or dropped. The hand-over is an MP/SC ring the control
 * thread empties: no lock, no syscall, never waiting; a full ring or an
 * exhausted rate is a drop under its own reason.
 */
#ifndef FOU_PUNT_H
#define FOU_PUNT_H

#include <rte_cycles.h>
#include <rte_ring.h>

#include "fou_lcore.h"

/* Whether port has a kernel interface. */
static inline bool
fou_punt_on(const struct fou_gw *gw, uint16_t port)
{
	return port < RTE_MAX_ETHPORTS && gw->punt_ring[port] != NULL;
}

/* The port's token bucket (as fou_icmp.c's): true if one more may go. */
static inline bool
fou_punt_allow(struct fou_lcore *lc, uint16_t port)
{
	const uint64_t l = lc->gw->punt_limit[port];
	const uint32_t rate = (uint32_t)(l >> 32), burst = (uint32_t)l;
	uint64_t now, cost, cap;

	if (rate == 0)
		return true;
	now = lc->now != 0 ? lc->now : rte_rdtsc();
	cost = rte_get_tsc_hz() / rate;
	cap = cost * RTE_MAX(burst, 1u);
	if (lc->punt_tsc[port] == 0) {
		lc->punt_credit[port] = cap;
	} else if (now > lc->punt_tsc[port]) {
		lc->punt_credit[port] += now - lc->punt_tsc[port];
		if (lc->punt_credit[port] > cap)
			lc->punt_credit[port] = cap;
	}
	lc->punt_tsc[port] = now;
	if (lc->punt_credit[port] < cost)
		return false;
	lc->punt_credit[port] -= cost;
	return true;
}

/*
 * Hand m, received on port (which has a kernel interface), up as it came
 * (its Ethernet header and all), counted under why: FOU_PUNTED, or the
 * drop reason (m is the caller's to free then).
 */
static inline unsigned int
fou_punt_up(struct fou_lcore *lc, uint16_t port, struct rte_mbuf *m, enum fou_punt_counter why)
{
	if (!fou_punt_allow(lc, port))
		return FOU_DROP_PUNT_RATELIMITED;
	if (rte_ring_mp_enqueue(lc->gw->punt_ring[port], m) != 0)
		return FOU_DROP_PUNT_RING_FULL;
	FOU_STAT_ADD(lc->st->punt[why], 1);
	return FOU_PUNTED;
}

/*
 * A copy of m up (an ARP request or a Neighbour Solicitation for us, which
 * the gateway answers in m itself), so that the kernel learns its sender
 * as Linux would; the kernel's own answer never reaches the wire
 * (fou_punt.c). A copy that cannot go is counted as dropped.
 */
static inline void
fou_punt_copy(struct fou_lcore *lc, uint16_t port, const struct rte_mbuf *m)
{
	struct rte_mbuf *c;
	unsigned int r;

	if (!fou_punt_on(lc->gw, port))
		return;
	FOU_STAT_ADD(lc->st->punt[FOU_PUNT_COPIES], 1);
	c = rte_pktmbuf_copy(m, lc->pool, 0, UINT32_MAX);
	if (c == NULL) {
		FOU_STAT_ADD(lc->st->drop[FOU_DROP_PUNT_RING_FULL], 1);
		return;
	}
	r = fou_punt_up(lc, port, c, FOU_PUNT_UP_COPY);
	if (r != FOU_PUNTED) {
		FOU_STAT_ADD(lc->st->drop[r], 1);
		rte_pktmbuf_free(c);
	}
}

#endif /* FOU_PUNT_H */
