/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tunnel probes (fou_probe.c): the wire format, the workers' hand-off of a
 * returned probe, and what the control side offers other control code
 * (the MTU probing sends sized probes through fou_probe_send()).
 */
#ifndef FOU_PROBE_H
#define FOU_PROBE_H

#include "fou_fwd.h"

#define FOU_PROBE_KIND_ECHO 1
#define FOU_PROBE_KIND_MTU 2
#define FOU_PROBE_VERSION 1
#define FOU_PROBE_TTL 255		/* sent; one router (the peer) makes it 254 */
#define FOU_PROBE_MAGIC "FOUP"

/* The UDP payload of a probe, network order, then zero padding. */
struct fou_probe_payload {
	uint8_t magic[4];		/* FOU_PROBE_MAGIC */
	uint8_t version;		/* FOU_PROBE_VERSION */
	uint8_t kind;			/* FOU_PROBE_KIND_* */
	uint16_t reserved;		/* 0 */
	rte_be32_t tunnel;		/* the index of the tunnel it was sent into */
	rte_be32_t seq;
	rte_be64_t tx_tsc;		/* the control thread's TSC when it was built */
	uint64_t token;			/* random, per probe */
} __rte_packed;

/* What a worker writes into a returned probe (the GRO tag's field: a
 * probe never goes to GRO) before handing it to the control thread. */
struct fou_probe_stamp {
	uint64_t rx_tsc;		/* the TSC of the burst it came in */
	uint32_t tunnel;		/* the index of the tunnel it came out of */
};

/*
 * Data path (fou_local.c): the inner UDP datagram to port FOU_PROBE_PORT
 * of one of our addresses at off (tot bytes of IP), out of tunnel: cut to
 * its IP packet, stamped and handed to the control thread. FOU_TAKEN
 * (counted consumed), or FOU_DROP_PROBE_RING_FULL. Never waits.
 */
static inline unsigned int
fou_probe_rx(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off, uint32_t tot,
	     uint32_t tunnel)
{
	const struct fou_probe_stamp s = { .rx_tsc = lc->now, .tunnel = tunnel };
	const struct fou_gw *gw = lc->gw;

	static_assert(sizeof(struct fou_probe_stamp) <= sizeof(struct fou_gro_tag),
		      "the probe stamp does not fit the GRO tag's field");
	fou_l3_isolate(m, off, tot);
	memcpy(RTE_MBUF_DYNFIELD(m, gw->gro_tag_off, void *), &s, sizeof(s));
	if (rte_ring_mp_enqueue(gw->probe_ring, m) != 0)
		return FOU_DROP_PROBE_RING_FULL;
	FOU_STAT_ADD(lc->st->local[FOU_LOCAL_PROBES_IN], 1);
	FOU_STAT_ADD(lc->st->local[FOU_LOCAL_CONSUMED], 1);
	return FOU_TAKEN;
}

/* With the gateway (fou_gw.c): the ring and the per-tunnel table. */
int fou_probe_create(struct fou_gw *gw);
void fou_probe_free(struct fou_gw *gw);
/* Tunnel slot idx was (re)used or freed (fou_tunnel.c): its health starts
 * again from unknown, with its state made or freed by conf.probe. 0 or
 * -ENOMEM. */
int fou_probe_tunnel_reset(struct fou_gw *gw, uint32_t tunnel);
/* enum fou_health of tunnel idx. */
uint8_t fou_probe_health(const struct fou_gw *gw, uint32_t tunnel);
/* Tunnel idx's echo replies so far and its echo probes unanswered in a row
 * now (both 0 for a tunnel that does not probe). */
void fou_probe_echo(const struct fou_gw *gw, uint32_t tunnel, uint64_t *received,
		    uint32_t *unanswered);
/* Tunnel idx's probe interval in TSC cycles: a probe unanswered that long
 * is lost. */
uint64_t fou_probe_interval_tsc(const struct fou_gw *gw, uint32_t tunnel);

/*
 * Control side, control lock held: build a probe of kind from the
 * tunnel's address of family to itself (outer_size: the outer IP packet's
 * bytes, 0 the smallest probe), register it as outstanding for one
 * interval of the tunnel, and send it into the tunnel through a started
 * worker (held for the neighbour if unknown). Its time is ctl->now. 0 with
 * *seq (if not NULL) set, or -ENOENT (the tunnel does not probe),
 * -EAFNOSUPPORT (it does not carry family), -EADDRNOTAVAIL (no address of
 * family on it), -EINVAL (kind, or outer_size too small), -EMSGSIZE (larger
 * than an mbuf), -ENOBUFS (no mbuf). A probe built and lost on its way out
 * (no route to the remote, queue full) is counted under its drop reason.
 */
int fou_probe_send(struct fou_lcore *ctl, uint32_t tunnel, uint8_t family, uint8_t kind,
		   uint16_t outer_size, uint32_t *seq);

/*
 * A valid reply to an MTU probe of outer_size bytes (kind
 * FOU_PROBE_KIND_MTU): the path MTU search's (fou_plpmtu.c). Control lock
 * held.
 */
void fou_plpmtu_reply(struct fou_gw *gw, uint32_t tunnel, uint32_t seq, uint16_t outer_size,
		      uint64_t now);

#endif /* FOU_PROBE_H */
