/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Path MTU probing without ICMP (RFC 8899, DPLPMTUD, search style), per
 * tunnel with probe=on: probes of a chosen outer size, sent with DF
 * through the peer (fou_probe.c), come back when the path carries that
 * size; the largest size confirmed is the tunnel's probed path MTU, which
 * bounds its MTU as an ICMP-learnt one does (fou_tunnel_egress()). Linux
 * has nothing of the kind for tunnels: they learn only from ICMP, so a
 * path that drops big packets without a word black-holes TCP through them.
 *
 * The search: BASE_PLPMTU first (it must pass, else ERROR), then the
 * egress port's MTU (the common case: one probe confirms it), then a
 * binary search between the largest size confirmed and the smallest
 * failed. RFC 8899's example steps through a list of common MTUs; a
 * binary search finds the exact size in about log2(max - base) steps
 * whatever the overheads of the tunnels and encapsulations on the way,
 * where a list rounds down to its entries, and it bounds the number of
 * failing sizes (each costs FOU_PLPMTU_MAX_PROBES timeouts) to as many.
 * What the data path is told (plpmtu) changes only when the search learns
 * something: a failure below it lowers it to the largest size confirmed,
 * a confirmation above it raises it, the end of the search sets it.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "fou_ctl.h"
#include "fou_hdr.h"
#include "fou_plpmtu.h"
#include "fou_probe.h"

static void
fou_plpmtu_base(struct fou_plpmtu *s, uint16_t hi)
{
	s->state = FOU_PLPMTU_BASE;
	s->lo = 0;
	s->hi = RTE_MAX(hi, s->base);
	s->size = s->base;
	s->lost = 0;
	s->confirming = false;
}

void
fou_plpmtu_start(struct fou_plpmtu *s, bool v6, uint16_t max)
{
	s->max = max;
	s->base = RTE_MIN((uint16_t)(v6 ? FOU_PLPMTU_BASE6 : FOU_PLPMTU_BASE4), max);
	s->min = RTE_MIN((uint16_t)(v6 ? FOU_PLPMTU_MIN6 : FOU_PLPMTU_MIN4), s->base);
	fou_plpmtu_base(s, max);
}

void
fou_plpmtu_stop(struct fou_plpmtu *s)
{
	memset(s, 0, sizeof(*s));
	s->state = FOU_PLPMTU_DISABLED;
}

/* The search is over: lo is what the path carries. */
static bool
fou_plpmtu_complete(struct fou_plpmtu *s, uint64_t now, uint64_t hz)
{
	const bool changed = s->plpmtu != s->lo;

	s->state = FOU_PLPMTU_SEARCH_COMPLETE;
	s->plpmtu = s->lo;
	s->size = 0;
	s->confirming = false;
	s->timer = now + FOU_PLPMTU_CONFIRM_S * hz;
	s->raise_at = now + FOU_PLPMTU_RAISE_S * hz;
	return changed;
}

/* SEARCHING: the next size between lo (passes) and hi (not known to
 * fail): the port's MTU while it is not known to fail, else halfway. */
static bool
fou_plpmtu_next(struct fou_plpmtu *s, uint64_t now, uint64_t hz)
{
	s->lost = 0;
	if (s->lo >= s->hi)
		return fou_plpmtu_complete(s, now, hz);
	s->size = s->hi == s->max ? s->hi : (uint16_t)(s->lo + (s->hi - s->lo + 1) / 2);
	return false;
}

uint16_t
fou_plpmtu_want(struct fou_plpmtu *s, uint64_t now, uint64_t hz)
{
	switch (s->state) {
	case FOU_PLPMTU_BASE:
	case FOU_PLPMTU_SEARCHING:
		return s->size;
	case FOU_PLPMTU_SEARCH_COMPLETE:
		if (s->confirming)
			return s->size;
		if (now >= s->raise_at && s->plpmtu < s->max) {
			/* PMTU_RAISE_TIMER: the path may carry more now */
			s->state = FOU_PLPMTU_SEARCHING;
			s->lo = s->plpmtu;
			s->hi = s->max;
			fou_plpmtu_next(s, now, hz);
			return s->size;
		}
		if (now >= s->timer) {
			/* does the path still carry what was found? */
			s->confirming = true;
			s->size = s->plpmtu;
			s->lost = 0;
			return s->size;
		}
		return 0;
	case FOU_PLPMTU_ERROR:
		if (now < s->timer)
			return 0;
		fou_plpmtu_base(s, s->max);
		return s->size;
	default:
		return 0;
	}
}

bool
fou_plpmtu_acked(struct fou_plpmtu *s, uint16_t size, uint64_t now, uint64_t hz)
{
	bool changed = false;

	if (size == 0 || size != s->size)
		return false;
	switch (s->state) {
	case FOU_PLPMTU_BASE:
	case FOU_PLPMTU_SEARCHING:
		s->state = FOU_PLPMTU_SEARCHING;
		s->lo = size;
		/* known to pass, above what the data path was told */
		if (s->plpmtu != 0 && size > s->plpmtu) {
			s->plpmtu = size;
			changed = true;
		}
		return fou_plpmtu_next(s, now, hz) || changed;
	case FOU_PLPMTU_SEARCH_COMPLETE:
		s->confirming = false;
		s->size = 0;
		s->lost = 0;
		s->timer = now + FOU_PLPMTU_CONFIRM_S * hz;
		return false;
	default:
		return false;
	}
}

bool
fou_plpmtu_lost(struct fou_plpmtu *s, uint16_t size, bool path_ok, uint64_t now, uint64_t hz)
{
	uint16_t old;

	if (size == 0 || size != s->size || !path_ok)
		return false;
	if (++s->lost < FOU_PLPMTU_MAX_PROBES)
		return false;
	old = s->plpmtu;
	switch (s->state) {
	case FOU_PLPMTU_BASE:
		/* not even BASE_PLPMTU passes while small packets do */
		s->state = FOU_PLPMTU_ERROR;
		s->plpmtu = s->min;
		s->size = 0;
		s->lost = 0;
		s->timer = now + FOU_PLPMTU_ERROR_S * hz;
		return old != s->plpmtu;
	case FOU_PLPMTU_SEARCHING:
		s->hi = (uint16_t)(size - 1);
		/* what the data path was told does not pass: the largest that does */
		if (s->plpmtu == 0 || s->plpmtu > s->hi)
			s->plpmtu = s->lo;
		return fou_plpmtu_next(s, now, hz) || old != s->plpmtu;
	case FOU_PLPMTU_SEARCH_COMPLETE:
		/* a black hole: the size found no longer passes; back to BASE
		 * (RFC 8899 §4.3), told BASE_PLPMTU meanwhile */
		s->plpmtu = s->base;
		fou_plpmtu_base(s, (uint16_t)(size - 1));
		return old != s->plpmtu;
	default:
		return false;
	}
}

const char *
fou_plpmtu_state_name(uint8_t state)
{
	static const char *const names[] = {
		[FOU_PLPMTU_DISABLED] = "disabled",
		[FOU_PLPMTU_BASE] = "base",
		[FOU_PLPMTU_SEARCHING] = "searching",
		[FOU_PLPMTU_SEARCH_COMPLETE] = "search_complete",
		[FOU_PLPMTU_ERROR] = "error",
	};

	return state < RTE_DIM(names) ? names[state] : "?";
}

void
fou_plpmtu_df(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);

	if ((ip->version_ihl >> 4) != 4 ||
	    (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG)) != 0)
		return;
	ip->fragment_offset |= rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	if (!(m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM)) {
		ip->hdr_checksum = 0;
		ip->hdr_checksum = (uint16_t)~fou_ip4_hdr_sum(ip, (ip->version_ihl & 0xf) * 4u);
	}
}

/* --- on the gateway's tunnels --------------------------------------------- */

/* What the data path is told for tunnel idx: its search's plpmtu. A
 * single store the workers read when they next route into the tunnel. */
static void
fou_plpmtu_publish(struct fou_gw *gw, uint32_t idx)
{
	__atomic_store_n(&gw->tun_pmtu[idx].probed, gw->plpmtu[idx].s.plpmtu, __ATOMIC_RELAXED);
}

void
fou_plpmtu_tunnel_reset(struct fou_gw *gw, uint32_t idx)
{
	memset(&gw->plpmtu[idx], 0, sizeof(gw->plpmtu[idx]));
	fou_plpmtu_stop(&gw->plpmtu[idx].s);
	fou_plpmtu_publish(gw, idx);
	/* the service looks at the tunnels that may probe, and no further */
	if (gw->tunnels[idx].conf.probe && idx >= gw->plpmtu_hi)
		gw->plpmtu_hi = idx + 1;
}

int
fou_plpmtu_tunnel_start(struct fou_gw *gw, uint32_t idx, bool fresh, uint64_t now)
{
	const struct fou_tunnel *t = &gw->tunnels[idx];
	struct fou_plpmtu_tun *p = &gw->plpmtu[idx];
	const struct fou_nexthop *onh;
	uint16_t mtu, mtu_nodf;

	if (fou_tunnel_egress(gw, NULL, t, now, &onh, &mtu, &mtu_nodf) != FOU_EGRESS_OK)
		return -ENETUNREACH;
	if (fresh)
		p->s.plpmtu = 0;
	p->inflight = 0;	/* a reply to what went before is not this search's */
	p->port = onh->port;
	p->port_mtu = gw->iface[onh->port].mtu;
	fou_plpmtu_start(&p->s, fou_tunnel_is6(t), p->port_mtu);
	fou_plpmtu_publish(gw, idx);
	return 0;
}

void
fou_plpmtu_tunnel_acked(struct fou_gw *gw, uint32_t idx, uint16_t size, uint64_t now)
{
	if (fou_plpmtu_acked(&gw->plpmtu[idx].s, size, now, rte_get_tsc_hz()))
		fou_plpmtu_publish(gw, idx);
}

void
fou_plpmtu_tunnel_lost(struct fou_gw *gw, uint32_t idx, uint16_t size, bool path_ok,
		       uint64_t now)
{
	if (fou_plpmtu_lost(&gw->plpmtu[idx].s, size, path_ok, now, rte_get_tsc_hz()))
		fou_plpmtu_publish(gw, idx);
}

int
fou_tunnel_mtu_probe(struct fou_gw *gw, const char *name, struct fou_err *err)
{
	int idx = fou_tunnel_find(gw, name);

	if (idx < 0) {
		fou_err_set(err, "no tunnel '%s'", name);
		return -ENODEV;
	}
	if (!gw->tunnels[idx].conf.probe) {
		fou_err_set(err, "tunnel %s: MTU probing runs on tunnels with probe=on", name);
		return -EINVAL;
	}
	if (fou_plpmtu_tunnel_start(gw, (uint32_t)idx, false, rte_rdtsc()) < 0) {
		fou_err_set(err, "tunnel %s: no route to its remote through a port", name);
		return -ENETUNREACH;
	}
	return 0;
}

/* --- the driver: MTU probes through fou_probe.c ------------------------------ */

void
fou_plpmtu_reply(struct fou_gw *gw, uint32_t tunnel, uint32_t seq, uint16_t outer_size,
		 uint64_t now)
{
	struct fou_plpmtu_tun *p;

	if (tunnel >= gw->params.max_tunnels)
		return;
	p = &gw->plpmtu[tunnel];
	/* the probe in flight; an older one's reply (from before a restart)
	 * says nothing the search asked */
	if (p->inflight == 0 || seq != p->seq || outer_size != p->inflight)
		return;
	p->inflight = 0;
	fou_plpmtu_tunnel_acked(gw, tunnel, outer_size, now);
}

/*
 * Tunnel idx's round: start or restart its search when its path is new,
 * decide its probe in flight, send the next one. A probe unanswered within
 * the tunnel's probe interval is lost (fou_probe.c takes no reply after
 * it); the loss is the size's only when echo probes came back meanwhile,
 * or the tunnel is up with none unanswered.
 */
static void
fou_plpmtu_tick(struct fou_lcore *ctl, uint32_t idx, uint64_t now)
{
	static const uint8_t families[] = { AF_INET, AF_INET6 };
	struct fou_gw *gw = ctl->gw;
	const struct fou_tunnel *t = &gw->tunnels[idx];
	struct fou_plpmtu_tun *p = &gw->plpmtu[idx];
	const uint8_t health = fou_probe_health(gw, idx);
	const struct fou_nexthop *onh;
	uint16_t mtu, mtu_nodf, size;
	uint32_t seq, unanswered;
	uint64_t echo_rx;
	unsigned int i;

	if (fou_tunnel_egress(gw, NULL, t, now, &onh, &mtu, &mtu_nodf) != FOU_EGRESS_OK)
		return;		/* nothing to search through; a new path when it comes */
	/* a new path: the first, another port, another MTU, back from down */
	if (p->s.state == FOU_PLPMTU_DISABLED || onh->port != p->port ||
	    gw->iface[onh->port].mtu != p->port_mtu ||
	    (p->health == FOU_HEALTH_DOWN && health == FOU_HEALTH_UP))
		fou_plpmtu_tunnel_start(gw, idx, true, now);
	p->health = health;
	fou_probe_echo(gw, idx, &echo_rx, &unanswered);
	if (p->inflight != 0) {
		if (now < p->deadline)
			return;
		fou_plpmtu_tunnel_lost(gw, idx, p->inflight, echo_rx > p->echo_rx ||
				       (health == FOU_HEALTH_UP && unanswered == 0), now);
		p->inflight = 0;
	}
	/* the search waits while the tunnel's echo probes do not come back */
	if (health != FOU_HEALTH_UP)
		return;
	size = fou_plpmtu_want(&p->s, now, rte_get_tsc_hz());
	if (size == 0)
		return;
	for (i = 0; i < RTE_DIM(families); i++)
		if (fou_probe_send(ctl, idx, families[i], FOU_PROBE_KIND_MTU, size, &seq) == 0)
			break;
	if (i == RTE_DIM(families))
		return;
	p->inflight = size;
	p->seq = seq;
	p->echo_rx = echo_rx;
	p->deadline = now + fou_probe_interval_tsc(gw, idx);
}

void
fou_plpmtu_service(struct fou_lcore *ctl, uint64_t now)
{
	struct fou_gw *gw = ctl->gw;
	uint32_t k;

	fou_gw_lock(gw);
	ctl->now = now;
	for (k = 0; k < gw->plpmtu_hi; k++)
		if (gw->tunnels[k].used && gw->tunnels[k].conf.probe)
			fou_plpmtu_tick(ctl, k, now);
	fou_gw_unlock(gw);
}
