/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tunnel health: echo probes through the peer (the idea of BFD's echo
 * function, RFC 5880 6.4, with no BFD session and no software on the
 * peer). Linux' FOU and GUE carry no keepalive (gue_control_message: "No
 * support yet"), but a Linux peer that forwards sends back any inner
 * packet addressed to the gateway's own tunnel address. So, on a tunnel
 * with probe=on and an address of the family, the control thread sends,
 * every interval, an inner UDP datagram from that address to itself
 * (ports 3785, the BFD echo port of RFC 5881; TTL / hop limit 255, IPv4
 * DF) into exactly that tunnel; the peer decapsulates it, routes it back
 * into the tunnel, and it comes back with TTL 254.
 *
 * Where the work runs: the workers recognise a returned probe with one
 * check where a decapsulated packet to a local address is delivered
 * (fou_local.c: UDP to port 3785, out of a tunnel), stamp it with the
 * burst's TSC and the tunnel and hand it to the control thread on an MP/SC
 * ring, never waiting (full: probe_ring_full). The control thread
 * (fou_probe_service(), with the neighbour service) validates (magic,
 * version, the tunnel it names is the one it came out of, TTL 254, source
 * = destination = our address on that tunnel, the sequence outstanding,
 * the token and the time it went out) and accounts; anything else is
 * counted under a reason of its own and never changes the state.
 *
 * States: unknown until the first valid reply (a peer that does not
 * forward never makes a tunnel down), up on a valid reply, down from up
 * after timeout consecutive echo probes unanswered within one interval
 * (BFD's detection time: timeout x interval). Each change into or out of
 * down goes to the routes (fou_tunnel_usable_set()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_udp.h>

#include "fou_ctl.h"
#include "fou_fwd.h"
#include "fou_plpmtu.h"
#include "fou_probe.h"

#define FOU_PROBE_RING 1024		/* returned probes waiting for the control thread */
#define FOU_PROBE_BATCH 256		/* taken per service round */
#define FOU_PROBE_RX_TTL (FOU_PROBE_TTL - 1)

/* One probe sent, while it is in the window. */
struct fou_probe_slot {
	uint64_t tx_tsc;
	uint64_t deadline;		/* TSC: unanswered by then, it is lost */
	uint64_t token;
	uint32_t seq;
	uint16_t size;			/* outer bytes (MTU probes) */
	uint8_t kind;
	uint8_t family;
	bool used;			/* seq was sent */
	bool open;			/* neither answered nor lost yet */
	bool answered;
};

/* A probing tunnel's state: written by the control thread under the
 * control lock, read by telemetry under it. */
struct fou_probe_tun {
	struct fou_probe_slot win[FOU_PROBE_WINDOW];	/* by seq % FOU_PROBE_WINDOW */
	uint32_t next_seq;
	uint64_t next_tx;		/* TSC: the next echo probes go; 0: at once */
	uint64_t changed;		/* TSC: the last change of state */
	uint64_t hist;			/* the last decided echo probes, bit 0 newest: 1 lost */
	uint32_t hist_n;
	uint8_t state;			/* enum fou_health */
	uint32_t unanswered;
	uint64_t rtt_last, rtt_min, srtt, jitter;	/* TSC cycles */
	bool have_rtt;
	struct fou_tunnel_health c;	/* the counters (its other fields unused) */
};

struct fou_probe_tbl {
	struct fou_probe_tun **tun;	/* max_tunnels: NULL for a tunnel that does not probe */
	uint32_t hi;			/* tunnels below this may probe */
	uint64_t hz;
};

static const char *const fou_health_names[] = {
	[FOU_HEALTH_OFF] = "off", [FOU_HEALTH_UNKNOWN] = "unknown",
	[FOU_HEALTH_UP] = "up", [FOU_HEALTH_DOWN] = "down",
};

const char *
fou_health_name(enum fou_health h)
{
	return (unsigned int)h < RTE_DIM(fou_health_names) ? fou_health_names[h] : "?";
}

/* --- the table ---------------------------------------------------------------- */

int
fou_probe_create(struct fou_gw *gw)
{
	char name[RTE_RING_NAMESIZE];
	struct fou_probe_tbl *t;

	t = rte_zmalloc_socket("fou_probe", sizeof(*t), 0, gw->params.socket_id);
	if (t == NULL)
		return -1;
	gw->probe = t;
	t->hz = rte_get_tsc_hz();
	t->tun = rte_zmalloc_socket("fou_probe_tun", sizeof(*t->tun) *
				    RTE_MAX(gw->params.max_tunnels, 1u), 0, gw->params.socket_id);
	snprintf(name, sizeof(name), "fou_probe_%p", (void *)gw);
	gw->probe_ring = rte_ring_create(name, FOU_PROBE_RING, gw->params.socket_id,
					 RING_F_SC_DEQ);
	return t->tun != NULL && gw->probe_ring != NULL ? 0 : -1;
}

void
fou_probe_stop(struct fou_gw *gw)
{
	struct rte_mbuf *m;

	/* counted consumed when they were handed over */
	while (gw != NULL && gw->probe_ring != NULL &&
	       rte_ring_sc_dequeue(gw->probe_ring, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

void
fou_probe_free(struct fou_gw *gw)
{
	struct fou_probe_tbl *t = gw->probe;
	uint32_t i;

	fou_probe_stop(gw);
	rte_ring_free(gw->probe_ring);
	gw->probe_ring = NULL;
	if (t == NULL)
		return;
	for (i = 0; t->tun != NULL && i < t->hi; i++)
		rte_free(t->tun[i]);
	rte_free(t->tun);
	rte_free(t);
	gw->probe = NULL;
}

int
fou_probe_tunnel_reset(struct fou_gw *gw, uint32_t tunnel)
{
	struct fou_probe_tbl *t = gw->probe;
	struct fou_probe_tun **pt = &t->tun[tunnel];

	if (!gw->tunnels[tunnel].conf.probe) {
		rte_free(*pt);
		*pt = NULL;
		return 0;
	}
	if (*pt == NULL)
		*pt = rte_zmalloc_socket("fou_probe_tun", sizeof(**pt), 0, gw->params.socket_id);
	if (*pt == NULL)
		return -ENOMEM;
	memset(*pt, 0, sizeof(**pt));
	(*pt)->state = FOU_HEALTH_UNKNOWN;
	(*pt)->next_seq = 1;
	(*pt)->changed = rte_rdtsc();
	if (tunnel >= t->hi)
		t->hi = tunnel + 1;
	return 0;
}

static struct fou_probe_tun *
fou_probe_tun(const struct fou_gw *gw, uint32_t tunnel)
{
	if (tunnel >= gw->params.max_tunnels || !gw->tunnels[tunnel].used)
		return NULL;
	return gw->probe->tun[tunnel];
}

uint8_t
fou_probe_health(const struct fou_gw *gw, uint32_t tunnel)
{
	const struct fou_probe_tun *pt = fou_probe_tun(gw, tunnel);

	return pt != NULL ? pt->state : FOU_HEALTH_OFF;
}

void
fou_probe_echo(const struct fou_gw *gw, uint32_t tunnel, uint64_t *received,
	       uint32_t *unanswered)
{
	const struct fou_probe_tun *pt = fou_probe_tun(gw, tunnel);

	*received = pt != NULL ? pt->c.received : 0;
	*unanswered = pt != NULL ? pt->unanswered : 0;
}

uint64_t
fou_probe_interval_tsc(const struct fou_gw *gw, uint32_t tunnel)
{
	return gw->probe->hz / 1000 * gw->tunnels[tunnel].conf.probe_interval_ms;
}

/* The tunnel's first address of family (4 or 16 bytes into addr). */
static bool
fou_probe_addr(const struct fou_gw *gw, uint32_t tunnel, uint8_t family, void *addr)
{
	const struct fou_addr_set *as = gw->addrs;
	unsigned int i;

	for (i = 0; i < as->n; i++) {
		const struct fou_addr *a = &as->a[i];

		if (a->tunnel != tunnel + 1 || a->ip.family != family)
			continue;
		memcpy(addr, family == AF_INET ? (const void *)&a->ip.v4 : (const void *)a->ip.v6,
		       family == AF_INET ? 4 : 16);
		return true;
	}
	return false;
}

/* Whether the tunnel carries family and has an address of it. */
static bool
fou_probe_family(const struct fou_gw *gw, uint32_t tunnel, uint8_t family, void *addr)
{
	return fou_tunnel_carries(gw, tunnel, family, NULL) == 0 &&
	       fou_probe_addr(gw, tunnel, family, addr);
}

/* --- state ---------------------------------------------------------------------- */

static void
fou_probe_set_state(struct fou_gw *gw, struct fou_probe_tun *pt, uint32_t tunnel, uint8_t state,
		    uint64_t now)
{
	const uint8_t old = pt->state;

	if (old == state)
		return;
	pt->state = state;
	pt->changed = now;
	pt->c.transitions++;
	FOU_LOG(INFO, ctl, "tunnel %s: health %s -> %s", gw->tunnels[tunnel].conf.name,
		fou_health_name(old), fou_health_name(state));
	/* the routes follow: a tunnel that is down carries nothing */
	if (state == FOU_HEALTH_DOWN || old == FOU_HEALTH_DOWN)
		fou_tunnel_usable_set(gw, tunnel, state != FOU_HEALTH_DOWN);
}

/* An echo probe decided: lost (1) or answered (0), in the loss window. */
static void
fou_probe_hist(struct fou_probe_tun *pt, bool lost)
{
	pt->hist = pt->hist << 1 | (lost ? 1 : 0);
	if (pt->hist_n < FOU_PROBE_WINDOW)
		pt->hist_n++;
}

/* s had no valid reply within its interval. */
static void
fou_probe_lost(struct fou_gw *gw, struct fou_probe_tun *pt, uint32_t tunnel,
	       struct fou_probe_slot *s, uint64_t now)
{
	s->open = false;
	if (s->kind != FOU_PROBE_KIND_ECHO)
		return;		/* an MTU probe's loss is the search's business */
	pt->c.lost++;
	fou_probe_hist(pt, true);
	pt->unanswered++;
	if (pt->state == FOU_HEALTH_UP && pt->unanswered >= gw->tunnels[tunnel].conf.probe_timeout)
		fou_probe_set_state(gw, pt, tunnel, FOU_HEALTH_DOWN, now);
}

/* The RTT of a valid reply: last, least, SRTT (RFC 6298, gain 1/8) and
 * jitter (RFC 3550 6.4.1, gain 1/16, over successive RTTs). */
static void
fou_probe_rtt(struct fou_probe_tun *pt, uint64_t rtt)
{
	if (!pt->have_rtt) {
		pt->rtt_min = rtt;
		pt->srtt = rtt;
		pt->jitter = 0;
		pt->have_rtt = true;
	} else {
		const int64_t d = (int64_t)(rtt - pt->rtt_last);
		const uint64_t ad = (uint64_t)(d < 0 ? -d : d);

		pt->rtt_min = RTE_MIN(pt->rtt_min, rtt);
		pt->srtt = (uint64_t)((int64_t)pt->srtt + ((int64_t)rtt - (int64_t)pt->srtt) / 8);
		pt->jitter = (uint64_t)((int64_t)pt->jitter +
					((int64_t)ad - (int64_t)pt->jitter) / 16);
	}
	pt->rtt_last = rtt;
}

static void
fou_probe_answered(struct fou_gw *gw, struct fou_probe_tun *pt, uint32_t tunnel,
		   struct fou_probe_slot *s, uint64_t rx_tsc, uint64_t now)
{
	s->open = false;
	s->answered = true;
	if (s->kind == FOU_PROBE_KIND_MTU) {
		fou_plpmtu_reply(gw, tunnel, s->seq, s->size, now);
		return;
	}
	pt->c.received++;
	fou_probe_hist(pt, false);
	pt->unanswered = 0;
	fou_probe_rtt(pt, rx_tsc > s->tx_tsc ? rx_tsc - s->tx_tsc : 0);
	fou_probe_set_state(gw, pt, tunnel, FOU_HEALTH_UP, now);
}

/* --- sending ---------------------------------------------------------------------- */

/* The inner packet: IPv4 or IPv6 + UDP + payload + padding, len bytes. */
static void
fou_probe_build(struct fou_lcore *ctl, uint8_t *b, uint32_t len, uint8_t family,
		const uint8_t *addr, const struct fou_probe_payload *pl)
{
	struct rte_udp_hdr *udp;
	size_t hl;

	memset(b, 0, len);
	if (family == AF_INET) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)b;

		hl = sizeof(*ip);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16((uint16_t)len);
		ip->packet_id = rte_cpu_to_be_16(ctl->ip_id++);
		ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = FOU_PROBE_TTL;
		ip->next_proto_id = IPPROTO_UDP;
		memcpy(&ip->src_addr, addr, 4);
		memcpy(&ip->dst_addr, addr, 4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)b;

		hl = sizeof(*ip6);
		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)(len - hl));
		ip6->proto = IPPROTO_UDP;
		ip6->hop_limits = FOU_PROBE_TTL;
		memcpy(ip6->src_addr, addr, 16);
		memcpy(ip6->dst_addr, addr, 16);
	}
	udp = (struct rte_udp_hdr *)(b + hl);
	udp->src_port = rte_cpu_to_be_16(FOU_PROBE_PORT);
	udp->dst_port = rte_cpu_to_be_16(FOU_PROBE_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - hl));
	memcpy(udp + 1, pl, sizeof(*pl));
	udp->dgram_cksum = family == AF_INET ?
		rte_ipv4_udptcp_cksum((const struct rte_ipv4_hdr *)b, udp) :
		rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)b, udp);
}

/* Into the tunnel, and out through a started worker (or held for the
 * neighbour); lost on the way: counted under its reason. */
static void
fou_probe_output(struct fou_lcore *ctl, struct rte_mbuf *m, uint32_t tunnel, uint8_t family,
		 const uint8_t *addr, uint8_t kind)
{
	const struct fou_nexthop nh = { .type = FOU_NH_TUNNEL, .family = family,
					.tunnel = tunnel };
	struct fou_gw *gw = ctl->gw;
	struct rte_ether_addr mac;
	bool v6 = family == AF_INET6;
	struct fou_adj a;
	uint16_t port;
	unsigned int r;

	r = fou_adj_resolve(gw, NULL, &nh, addr, ctl->now, &a);
	/* an MTU probe leaves with DF whatever the tunnel's pmtudisc:
	 * encapsulated here, DF set, then sent on as the outer packet */
	if (r == FOU_FWD && kind == FOU_PROBE_KIND_MTU) {
		r = fou_tunnel_encap(ctl, a.tun, m, v6, a.port, false);
		if (r == FOU_FWD) {
			fou_plpmtu_df(m);
			v6 = fou_tunnel_is6(a.tun);
			a.tun = NULL;
		}
	}
	if (r == FOU_FWD)
		r = fou_adj_output(ctl, m, &a, fou_adj_neigh(ctl, &a, &mac) ? &mac : NULL, v6,
				   &port);
	if (r == FOU_FWD) {
		fou_neigh_emit(gw, m, port, FOU_DROP_TX_FULL);
		return;
	}
	if (r == FOU_HELD)
		return;
	FOU_STAT_ADD(ctl->st->drop[r], 1);
	rte_pktmbuf_free(m);
}

int
fou_probe_send(struct fou_lcore *ctl, uint32_t tunnel, uint8_t family, uint8_t kind,
	       uint16_t outer_size, uint32_t *seq)
{
	struct fou_gw *gw = ctl->gw;
	struct fou_probe_tun *pt = fou_probe_tun(gw, tunnel);
	const uint32_t min = (family == AF_INET ? sizeof(struct rte_ipv4_hdr) :
			      sizeof(struct rte_ipv6_hdr)) + sizeof(struct rte_udp_hdr) +
			     sizeof(struct fou_probe_payload);
	struct fou_probe_payload pl = { .version = FOU_PROBE_VERSION };
	struct fou_probe_slot *s;
	uint8_t addr[16];
	struct rte_mbuf *m;
	uint32_t len;
	uint8_t *b;

	if (pt == NULL)
		return -ENOENT;
	if (kind != FOU_PROBE_KIND_ECHO && kind != FOU_PROBE_KIND_MTU)
		return -EINVAL;
	if ((family != AF_INET && family != AF_INET6) ||
	    fou_tunnel_carries(gw, tunnel, family, NULL) < 0)
		return -EAFNOSUPPORT;
	if (!fou_probe_addr(gw, tunnel, family, addr))
		return -EADDRNOTAVAIL;
	len = outer_size == 0 ? min : (uint32_t)outer_size - gw->tunnels[tunnel].hdr_len;
	if (outer_size != 0 && (outer_size < gw->tunnels[tunnel].hdr_len || len < min))
		return -EINVAL;
	if (len > UINT16_MAX)
		return -EMSGSIZE;
	m = rte_pktmbuf_alloc(ctl->pool);
	if (m == NULL)
		return -ENOBUFS;
	b = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (b == NULL) {
		rte_pktmbuf_free(m);
		return -EMSGSIZE;
	}
	/* the slot of seq: one still open is decided first (lost) */
	s = &pt->win[pt->next_seq % FOU_PROBE_WINDOW];
	if (s->open)
		fou_probe_lost(gw, pt, tunnel, s, ctl->now);
	*s = (struct fou_probe_slot){
		.tx_tsc = ctl->now,
		.deadline = ctl->now + fou_probe_interval_tsc(gw, tunnel),
		.token = rte_rand(),
		.seq = pt->next_seq++,
		.size = (uint16_t)(outer_size == 0 ? len + gw->tunnels[tunnel].hdr_len : outer_size),
		.kind = kind,
		.family = family,
		.used = true,
		.open = true,
	};
	memcpy(pl.magic, FOU_PROBE_MAGIC, sizeof(pl.magic));
	pl.kind = kind;
	pl.tunnel = rte_cpu_to_be_32(tunnel);
	pl.seq = rte_cpu_to_be_32(s->seq);
	pl.tx_tsc = rte_cpu_to_be_64(s->tx_tsc);
	pl.token = s->token;
	fou_probe_build(ctl, b, len, family, addr, &pl);
	m->l3_len = family == AF_INET ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L4_UDP |
			 (family == AF_INET ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV6);
	/* built here: originated, as the neighbour code's requests */
	FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_ORIGINATED], 1);
	FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_PROBES_OUT], 1);
	if (kind == FOU_PROBE_KIND_ECHO)
		pt->c.sent++;
	if (seq != NULL)
		*seq = s->seq;
	fou_probe_output(ctl, m, tunnel, family, addr, kind);
	return 0;
}

/* --- receiving ---------------------------------------------------------------------- */

enum fou_probe_verdict {
	FOU_PROBE_VALID,
	FOU_PROBE_FORGED,
	FOU_PROBE_WRONG_TUNNEL,
	FOU_PROBE_BAD_TTL,
	FOU_PROBE_REPLAYED,
	FOU_PROBE_LATE,
};

/*
 * What the returned probe m (its IP packet, checked by the worker up to
 * the UDP checksum) is, out of tunnel; *sp its slot when valid or late.
 */
static enum fou_probe_verdict
fou_probe_check(const struct fou_gw *gw, struct fou_probe_tun *pt, uint32_t tunnel,
		const struct rte_mbuf *m, uint64_t rx_tsc, struct fou_probe_slot **sp)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint32_t len = rte_pktmbuf_data_len(m);
	const struct rte_udp_hdr *udp;
	struct fou_probe_payload pl;
	struct fou_probe_slot *s;
	uint8_t family, ttl, addr[16];
	const uint8_t *src, *dst;
	uint32_t hl, seq;
	size_t alen;

	if (len < 1)
		return FOU_PROBE_FORGED;
	if (b[0] >> 4 == 4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)b;

		family = AF_INET;
		hl = (b[0] & 0xfu) * 4;
		ttl = len >= sizeof(*ip) ? ip->time_to_live : 0;
		src = (const uint8_t *)&ip->src_addr;
		dst = (const uint8_t *)&ip->dst_addr;
		alen = 4;
	} else {
		const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)b;

		family = AF_INET6;
		hl = sizeof(*ip6);
		ttl = len >= sizeof(*ip6) ? ip6->hop_limits : 0;
		src = ip6->src_addr;
		dst = ip6->dst_addr;
		alen = 16;
	}
	/* the worker saw the headers whole in the first segment */
	if (len < hl + sizeof(*udp) + sizeof(pl))
		return FOU_PROBE_FORGED;
	udp = (const struct rte_udp_hdr *)(b + hl);
	if (udp->src_port != rte_cpu_to_be_16(FOU_PROBE_PORT) ||
	    rte_be_to_cpu_16(udp->dgram_len) < sizeof(*udp) + sizeof(pl))
		return FOU_PROBE_FORGED;
	memcpy(&pl, udp + 1, sizeof(pl));
	if (memcmp(pl.magic, FOU_PROBE_MAGIC, sizeof(pl.magic)) != 0 ||
	    pl.version != FOU_PROBE_VERSION || pl.reserved != 0 ||
	    (pl.kind != FOU_PROBE_KIND_ECHO && pl.kind != FOU_PROBE_KIND_MTU))
		return FOU_PROBE_FORGED;
	if (rte_be_to_cpu_32(pl.tunnel) != tunnel)
		return FOU_PROBE_WRONG_TUNNEL;
	if (ttl != FOU_PROBE_RX_TTL)
		return FOU_PROBE_BAD_TTL;
	if (!fou_probe_addr(gw, tunnel, family, addr) || memcmp(src, addr, alen) != 0 ||
	    memcmp(dst, addr, alen) != 0)
		return FOU_PROBE_FORGED;
	seq = rte_be_to_cpu_32(pl.seq);
	s = &pt->win[seq % FOU_PROBE_WINDOW];
	/* a sequence number not sent yet, or whose slot went to another */
	if ((int32_t)(seq - pt->next_seq) >= 0)
		return FOU_PROBE_FORGED;
	if (!s->used || s->seq != seq)
		return FOU_PROBE_LATE;	/* older than the window: long decided */
	if (s->token != pl.token || s->tx_tsc != rte_be_to_cpu_64(pl.tx_tsc) ||
	    s->kind != pl.kind || s->family != family)
		return FOU_PROBE_FORGED;
	*sp = s;
	if (s->answered)
		return FOU_PROBE_REPLAYED;
	if (!s->open || rx_tsc > s->deadline)
		return FOU_PROBE_LATE;
	return FOU_PROBE_VALID;
}

static void
fou_probe_input(struct fou_lcore *ctl, struct rte_mbuf *m, uint64_t now)
{
	struct fou_gw *gw = ctl->gw;
	struct fou_probe_stamp st;
	struct fou_probe_slot *s = NULL;
	struct fou_probe_tun *pt;

	memcpy(&st, RTE_MBUF_DYNFIELD(m, gw->gro_tag_off, void *), sizeof(st));
	pt = fou_probe_tun(gw, st.tunnel);
	if (pt == NULL) {
		FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_PROBES_STRAY], 1);
		rte_pktmbuf_free(m);
		return;
	}
	switch (fou_probe_check(gw, pt, st.tunnel, m, st.rx_tsc, &s)) {
	case FOU_PROBE_VALID:
		fou_probe_answered(gw, pt, st.tunnel, s, st.rx_tsc, now);
		break;
	case FOU_PROBE_FORGED:
		pt->c.forged++;
		break;
	case FOU_PROBE_WRONG_TUNNEL:
		pt->c.wrong_tunnel++;
		break;
	case FOU_PROBE_BAD_TTL:
		pt->c.bad_ttl++;
		break;
	case FOU_PROBE_REPLAYED:
		pt->c.replayed++;
		break;
	case FOU_PROBE_LATE:
		pt->c.late++;
		/* came after its deadline, before the round that decides it */
		if (s != NULL && s->open)
			fou_probe_lost(gw, pt, st.tunnel, s, now);
		break;
	}
	rte_pktmbuf_free(m);
}

/* --- the round ---------------------------------------------------------------------- */

static void
fou_probe_tick(struct fou_lcore *ctl, struct fou_probe_tun *pt, uint32_t tunnel, uint64_t now)
{
	static const uint8_t families[] = { AF_INET, AF_INET6 };
	struct fou_gw *gw = ctl->gw;
	const uint64_t ival = fou_probe_interval_tsc(gw, tunnel);
	uint8_t addr[16];
	unsigned int i;

	/* oldest first: the consecutive count is in the order they went */
	for (i = 1; i <= FOU_PROBE_WINDOW; i++) {
		struct fou_probe_slot *s = &pt->win[(pt->next_seq + i - 1) % FOU_PROBE_WINDOW];

		if (s->open && now >= s->deadline)
			fou_probe_lost(gw, pt, tunnel, s, now);
	}
	if (now < pt->next_tx)
		return;
	/* one round late or a minute: the next goes an interval from now */
	pt->next_tx = pt->next_tx != 0 && now - pt->next_tx < ival ? pt->next_tx + ival :
		      now + ival;
	for (i = 0; i < RTE_DIM(families); i++)
		if (fou_probe_family(gw, tunnel, families[i], addr))
			fou_probe_send(ctl, tunnel, families[i], FOU_PROBE_KIND_ECHO, 0, NULL);
}

void
fou_probe_service(struct fou_lcore *ctl, uint64_t now)
{
	struct fou_gw *gw = ctl->gw;
	struct fou_probe_tbl *t = gw->probe;
	struct rte_mbuf *m[FOU_PROBE_BATCH];
	unsigned int n, i;
	uint32_t k;

	fou_gw_lock(gw);
	ctl->now = now;
	/* what came back before now is decided before now's timeouts */
	n = rte_ring_sc_dequeue_burst(gw->probe_ring, (void **)m, FOU_PROBE_BATCH, NULL);
	for (i = 0; i < n; i++)
		fou_probe_input(ctl, m[i], now);
	for (k = 0; k < t->hi; k++) {
		struct fou_probe_tun *pt = fou_probe_tun(gw, k);

		if (pt != NULL)
			fou_probe_tick(ctl, pt, k, now);
	}
	fou_gw_unlock(gw);
}

/* --- telemetry ---------------------------------------------------------------------- */

static uint64_t
fou_probe_us(const struct fou_probe_tbl *t, uint64_t cycles)
{
	return cycles * 1000000 / t->hz;
}

int
fou_tunnel_health_get(const struct fou_gw *gw, const char *name, struct fou_tunnel_health *h,
		      struct fou_err *err)
{
	const struct fou_probe_tbl *t = gw->probe;
	const struct fou_probe_tun *pt;
	const struct fou_tunnel_conf *c;
	uint8_t addr[16];
	uint64_t now = rte_rdtsc();
	int idx = fou_tunnel_find(gw, name);
	unsigned int i;

	if (idx < 0) {
		fou_err_set(err, "no tunnel '%s'", name);
		return -ENODEV;
	}
	c = &gw->tunnels[idx].conf;
	pt = fou_probe_tun(gw, (uint32_t)idx);
	memset(h, 0, sizeof(*h));
	if (pt != NULL)
		*h = pt->c;
	rte_strscpy(h->name, c->name, sizeof(h->name));
	h->interval_ms = c->probe_interval_ms;
	h->timeout = c->probe_timeout;
	if (pt == NULL)
		return 0;	/* off */
	h->state = pt->state;
	h->probing4 = fou_probe_family(gw, (uint32_t)idx, AF_INET, addr);
	h->probing6 = fou_probe_family(gw, (uint32_t)idx, AF_INET6, addr);
	h->last_change_ms = now > pt->changed ? fou_probe_us(t, now - pt->changed) / 1000 : 0;
	h->unanswered = pt->unanswered;
	if (pt->have_rtt) {
		h->rtt_last_us = fou_probe_us(t, pt->rtt_last);
		h->rtt_min_us = fou_probe_us(t, pt->rtt_min);
		h->rtt_avg_us = fou_probe_us(t, pt->srtt);
		h->rtt_jitter_us = fou_probe_us(t, pt->jitter);
	}
	h->window = pt->hist_n;
	for (i = 0; i < pt->hist_n; i++)
		h->window_lost += (pt->hist >> i) & 1;
	return 0;
}
