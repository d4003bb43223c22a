/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbours: next-hop IP -> MAC per port, as Linux' neighbour table with
 * its NUD states. The control side owns the table (struct fou_neigh_tbl:
 * every entry, its state, timers and queue of packets waiting for it);
 * the workers read only the entries that have a MAC, from an rte_hash
 * with lock-free readers (gw->neigh), and cache them per lcore until a
 * change bumps gw->neigh_gen.
 *
 * Where the work runs: the workers answer ARP and Neighbour Solicitations
 * themselves, without state (fou_arp.c, fou_ndisc.c); what they hear about
 * a neighbour, and every packet whose neighbour they do not know, goes to
 * the control thread through a ring (gw->nev_ring, gw->hold_ring), never
 * waiting. The control thread (fou_neigh_service(), every millisecond in
 * the app) learns, queues, resolves, times the states out and sends its
 * requests and the released packets through a started worker's inject
 * ring: the workers' per-packet path keeps no lock, no timer and no
 * allocation, and one thread writes the table, under the gateway's control
 * lock that the telemetry commands hold too (fou_gw_lock()).
 *
 * The constants are Linux' defaults (net.ipv4.neigh.default.*). The
 * control thread logs what happens to an entry at DEBUG (fou.neigh):
 * resolved, failed, its MAC changed; the workers never log.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "fou_arp.h"
#include "fou_ctl.h"
#include "fou_fwd.h"
#include "fou_icmp.h"
#include "fou_idpool.h"
#include "fou_nd.h"
#include "fou_ndisc.h"

#define FOU_NEIGH_QLEN 101		/* unres_qlen: packets queued per neighbour */
#define FOU_NEIGH_QBYTES 212992		/* unres_qlen_bytes */
#define FOU_NEIGH_PROBES 3		/* mcast_solicit, ucast_solicit */
#define FOU_NEIGH_RETRANS_MS 1000	/* retrans_time_ms */
#define FOU_NEIGH_REACHABLE_MS 30000	/* base_reachable_time_ms */
#define FOU_NEIGH_DELAY_MS 5000		/* delay_first_probe_time */
#define FOU_NEIGH_LOCKTIME_MS 1000	/* locktime: a MAC change waits this long */
#define FOU_NEIGH_FAILED_MS 60000	/* a FAILED entry is shown this long (gc_stale_time) */
#define FOU_NEIGH_BATCH 256		/* events and packets taken per service round */

struct fou_neigh_entry {
	struct fou_neigh_key key;
	struct rte_ether_addr mac;	/* valid from REACHABLE on */
	uint8_t state;			/* enum fou_neigh_state; 0: free slot */
	uint8_t probes;			/* sent in this state */
	bool in_dp;			/* in gw->neigh: the workers send to mac */
	bool router;			/* NA R flag */
	uint64_t updated;		/* TSC: state or MAC last set */
	uint64_t confirmed;		/* TSC: last proof of reachability */
	uint64_t timer;			/* TSC: when this state's time is up */
	uint32_t qn, qhead, qbytes;	/* the queue, a ring of FOU_NEIGH_QLEN */
	struct rte_mbuf **q;		/* while waiting for a MAC */
};

struct fou_neigh_tbl {
	struct rte_hash *slots;		/* key -> slot */
	struct fou_idpool *free;	/* free slots, lowest first: the listing's order */
	struct fou_neigh_entry *e;	/* params.max_neighs */
	uint32_t hi;			/* slots below this may be in use */
	uint32_t held;			/* packets in every queue */
	uint64_t hz;
	struct fou_addr_set announced;	/* addresses announced so far */
	bool announced_all;		/* the start's announcement went out */
};

static const struct rte_ether_addr fou_bcast_mac = {
	.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };

static const char *const fou_neigh_states[] = {
	[FOU_NUD_INCOMPLETE] = "INCOMPLETE", [FOU_NUD_REACHABLE] = "REACHABLE",
	[FOU_NUD_STALE] = "STALE", [FOU_NUD_DELAY] = "DELAY", [FOU_NUD_PROBE] = "PROBE",
	[FOU_NUD_FAILED] = "FAILED", [FOU_NUD_PERMANENT] = "PERMANENT",
};

const char *
fou_neigh_state_name(enum fou_neigh_state s)
{
	return (unsigned int)s < RTE_DIM(fou_neigh_states) ? fou_neigh_states[s] : NULL;
}

static uint64_t
fou_ms(const struct fou_neigh_tbl *t, uint64_t ms)
{
	return t->hz / 1000 * ms;
}

/* The control side's counters: the control context's row. */
static struct fou_lcore_stats *
fou_neigh_st(struct fou_gw *gw)
{
	return &gw->stats[FOU_LCORE_CONTROL];
}

/* "neigh: IP dev PORT: ...": an event of e, at DEBUG, on the control thread. */
static void __rte_format_printf(2, 3)
fou_neigh_log(const struct fou_neigh_entry *e, const char *fmt, ...)
{
	char ip[INET6_ADDRSTRLEN], msg[128];
	va_list ap;

	inet_ntop(e->key.family, e->key.addr, ip, sizeof(ip));
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	FOU_LOG(DEBUG, neigh, "neigh: %s dev %u: %s", ip, e->key.port, msg);
}

static const char *
fou_neigh_mac_str(const struct rte_ether_addr *mac, char *buf)
{
	rte_ether_format_addr(buf, RTE_ETHER_ADDR_FMT_SIZE, mac);
	return buf;
}

#define NEIGHMAC(m) fou_neigh_mac_str((m), (char[RTE_ETHER_ADDR_FMT_SIZE]){ 0 })

/* Nothing is formatted, the MAC addresses neither, unless fou.neigh logs DEBUG. */
#define NEIGH_LOG(e, ...) do { \
	if (FOU_LOG_ON(DEBUG, neigh)) \
		fou_neigh_log((e), __VA_ARGS__); \
} while (0)

int
fou_neigh_tbl_create(struct fou_gw *gw)
{
	struct fou_neigh_tbl *t;
	char name[RTE_HASH_NAMESIZE];

	t = rte_zmalloc_socket("fou_neigh_tbl", sizeof(*t), RTE_CACHE_LINE_SIZE,
			       gw->params.socket_id);
	if (t == NULL)
		return -ENOMEM;
	gw->nt = t;
	t->hz = rte_get_tsc_hz();
	t->e = rte_zmalloc_socket("fou_neigh_ent", sizeof(*t->e) * RTE_MAX(gw->params.max_neighs, 1u),
				  RTE_CACHE_LINE_SIZE, gw->params.socket_id);
	t->free = fou_idpool_create("fou_neigh_free", gw->params.max_neighs, gw->params.socket_id);
	snprintf(name, sizeof(name), "fou_nslot_%p", (void *)gw);
	t->slots = rte_hash_create(&(struct rte_hash_parameters){
		.name = name,
		.entries = 2 * RTE_MAX(gw->params.max_neighs, 8u),
		.key_len = sizeof(struct fou_neigh_key),
		.hash_func = rte_hash_crc,
		.socket_id = gw->params.socket_id,
	});
	return t->e != NULL && t->slots != NULL && t->free != NULL ? 0 : -ENOMEM;
}

/* --- the workers' view ------------------------------------------------------ */

/* Empty every lcore's neighbour cache (fou_adj_neigh): the next lookup of
 * each lcore sees the table as it is now. */
static void
fou_neigh_changed(struct fou_gw *gw)
{
	__atomic_add_fetch(&gw->neigh_gen, 1, __ATOMIC_RELEASE);
}

/* Publish e's MAC to the workers (or a new MAC). */
static void
fou_neigh_dp_set(struct fou_gw *gw, struct fou_neigh_entry *e)
{
	uint32_t slot = (uint32_t)(e - gw->nt->e);

	/* the hash has room for every entry of the table: it cannot refuse */
	if (rte_hash_add_key_data(gw->neigh, &e->key, fou_neigh_data(&e->mac, (uint16_t)slot)) == 0)
		e->in_dp = true;
	fou_neigh_changed(gw);
}

static void
fou_neigh_dp_clear(struct fou_gw *gw, struct fou_neigh_entry *e)
{
	if (!e->in_dp)
		return;
	/* rte_hash frees the key after a grace period (its RCU mode) */
	rte_hash_del_key(gw->neigh, &e->key);
	e->in_dp = false;
	fou_neigh_changed(gw);
}

/* --- sending ------------------------------------------------------------------ */

/* (fou_ctl.h) */
void
fou_neigh_emit(struct fou_gw *gw, struct rte_mbuf *m, uint16_t port, unsigned int reason)
{
	unsigned int l;

	m->port = port;
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		struct rte_ring *r = __atomic_load_n(&gw->inject[l], __ATOMIC_ACQUIRE);

		if (r == NULL)
			continue;
		if (rte_ring_sp_enqueue(r, m) == 0)
			return;
		break;
	}
	FOU_STAT_ADD(fou_neigh_st(gw)->drop[reason], 1);
	rte_pktmbuf_free(m);
}

static bool
fou_neigh_can_send(const struct fou_gw *gw)
{
	unsigned int l;

	for (l = 0; l < RTE_MAX_LCORE; l++)
		if (__atomic_load_n(&gw->inject[l], __ATOMIC_ACQUIRE) != NULL)
			return true;
	return false;
}

/*
 * The source of a request for target on port, as inet_select_addr /
 * ipv6_dev_get_saddr: the port's address on target's network, else its
 * first of the family; for IPv6 the port's link-local address for a
 * link-local target or when it has no other. false: the port has none.
 */
bool
fou_neigh_src(const struct fou_gw *gw, uint16_t port, uint8_t family, const void *target,
	      void *src)
{
	struct fou_ip tip = { .family = family };
	const struct fou_addr *first = NULL;
	const struct fou_addr_set *as = gw->addrs;
	unsigned int i;

	memcpy(family == AF_INET ? (void *)&tip.v4 : (void *)tip.v6, target,
	       family == AF_INET ? 4 : 16);
	if (family == AF_INET6 && tip.v6[0] == 0xfe && (tip.v6[1] & 0xc0) == 0x80) {
		fou_ll6(&gw->iface[port].mac, src);
		return true;
	}
	for (i = 0; i < as->n; i++) {
		const struct fou_addr *a = &as->a[i];

		if (a->tunnel != 0 || a->port != port || a->ip.family != family)
			continue;
		if (first == NULL)
			first = a;
		if (fou_prefix_contains(&a->ip, &tip)) {
			first = a;
			break;
		}
	}
	if (first == NULL && family == AF_INET6) {
		fou_ll6(&gw->iface[port].mac, src);
		return true;
	}
	if (first == NULL)
		return false;
	memcpy(src, family == AF_INET ? (const void *)&first->ip.v4 : (const void *)first->ip.v6,
	       family == AF_INET ? 4 : 16);
	return true;
}

/* An ARP request or Neighbour Solicitation for e: broadcast / multicast
 * while INCOMPLETE, unicast to the known MAC while PROBE. */
static bool
fou_neigh_solicit(struct fou_lcore *ctl, struct fou_neigh_entry *e)
{
	struct fou_gw *gw = ctl->gw;
	const bool ucast = e->state == FOU_NUD_PROBE;
	struct rte_mbuf *m;
	uint8_t src[16];

	if (!fou_neigh_src(gw, e->key.port, e->key.family, e->key.addr, src))
		return false;
	if (!fou_neigh_can_send(gw))
		return true;	/* nobody sends yet: the timer will ask again */
	m = rte_pktmbuf_alloc(ctl->pool);
	if (m == NULL)
		return true;
	if (e->key.family == AF_INET) {
		rte_be32_t sip, tip;

		memcpy(&sip, src, 4);
		memcpy(&tip, e->key.addr, 4);
		fou_arp_build(m, ucast ? &e->mac : &fou_bcast_mac, RTE_ARP_OP_REQUEST,
			      &gw->iface[e->key.port].mac, sip, &(struct rte_ether_addr){ 0 }, tip);
		FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_ARP_REQ_OUT], 1);
	} else {
		fou_ndisc_build_ns(m, &gw->iface[e->key.port].mac, src, e->key.addr,
				   ucast ? &e->mac : NULL);
		FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_NS_OUT], 1);
	}
	FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_ORIGINATED], 1);
	fou_neigh_emit(gw, m, e->key.port, FOU_DROP_TX_FULL);
	return true;
}

/* --- the queue of packets waiting for a neighbour -------------------------- */

static struct rte_mbuf *
fou_neigh_q_pop(struct fou_gw *gw, struct fou_neigh_entry *e)
{
	struct rte_mbuf *m = e->q[e->qhead];

	e->qhead = (e->qhead + 1) % FOU_NEIGH_QLEN;
	e->qn--;
	e->qbytes -= rte_pktmbuf_pkt_len(m);
	gw->nt->held--;
	FOU_STAT_ADD(fou_neigh_st(gw)->local[FOU_LOCAL_NEIGH_DEQUEUED], 1);
	return m;
}

/* Every packet queued on e dropped under reason. */
static void
fou_neigh_q_drop(struct fou_gw *gw, struct fou_neigh_entry *e, unsigned int reason)
{
	while (e->qn != 0) {
		rte_pktmbuf_free(fou_neigh_q_pop(gw, e));
		FOU_STAT_ADD(fou_neigh_st(gw)->drop[reason], 1);
	}
	free(e->q);
	e->q = NULL;
}

/*
 * The error a packet that waited in vain gets, built by the control
 * context: ICMP host unreachable to an IPv4 source, address unreachable
 * to an IPv6 one. FOU_FWD with *port set, FOU_HELD if the way back waits
 * for a neighbour too, or the drop reason.
 */
static unsigned int
fou_neigh_unreachable(struct fou_lcore *ctl, struct rte_mbuf *m, uint16_t *port)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const uint32_t off = sizeof(*eth);
	const uint32_t len = rte_pktmbuf_pkt_len(m) - off;

	/* the packet was finished for the wire: its IP header follows the
	 * Ethernet header, and its length is checked */
	if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
									 off);

		/* an encapsulated packet is our own: Linux' error would be
		 * for ourselves */
		if (fou_addr_mine(ctl->gw, -1, AF_INET, &ip->src_addr))
			return FOU_DROP_NEIGH_FAILED;
		return fou_icmp4_error(ctl, m, off, RTE_MIN(len, rte_be_to_cpu_16(ip->total_length)),
				       FOU_ICMP_HOST_UNREACH, 0, false, FOU_DROP_NEIGH_FAILED, port);
	}
	if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
									  off);

		if (fou_addr_mine(ctl->gw, -1, AF_INET6, ip6->src_addr))
			return FOU_DROP_NEIGH_FAILED;
		return fou_icmp6_error(ctl, m, off, len, FOU_ICMP_ADDR_UNREACH6, 0, false,
				       FOU_DROP_NEIGH_FAILED, port);
	}
	return FOU_DROP_NEIGH_FAILED;
}

/* The resolution failed: what waited gets host unreachable (ICMP errors
 * about packets sent on, not encapsulated ones: those come from us), as
 * Linux' arp_error_report / ndisc_error_report. */
static void
fou_neigh_q_fail(struct fou_lcore *ctl, struct fou_neigh_entry *e)
{
	struct fou_gw *gw = ctl->gw;

	while (e->qn != 0) {
		struct rte_mbuf *m = fou_neigh_q_pop(gw, e);
		uint16_t port;
		unsigned int r;

		r = fou_neigh_unreachable(ctl, m, &port);
		if (r == FOU_FWD) {
			fou_neigh_emit(gw, m, port, FOU_DROP_TX_FULL);
			continue;
		}
		if (r != FOU_HELD) {
			FOU_STAT_ADD(ctl->st->drop[r], 1);
			rte_pktmbuf_free(m);
		}
	}
	free(e->q);
	e->q = NULL;
}

/*
 * m goes out to e's MAC. Sending through an entry uses it, as Linux's
 * neigh_resolve_output: a STALE entry turns DELAY on the next tick, as it
 * does when a worker finds it (fou_adj_neigh), whichever of the two sends.
 */
static void
fou_neigh_send(struct fou_gw *gw, struct fou_neigh_entry *e, struct rte_mbuf *m)
{
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = e->mac;
	__atomic_store_n(&gw->neigh_used[e - gw->nt->e], 1, __ATOMIC_RELAXED);
	fou_neigh_emit(gw, m, e->key.port, FOU_DROP_TX_FULL);
}

/* e has a MAC now: what waited goes to it, in order. */
static void
fou_neigh_q_release(struct fou_gw *gw, struct fou_neigh_entry *e)
{
	while (e->qn != 0)
		fou_neigh_send(gw, e, fou_neigh_q_pop(gw, e));
	free(e->q);
	e->q = NULL;
}

/* Queue m on e; a full queue drops its oldest, as __neigh_event_send. */
static void
fou_neigh_q_add(struct fou_gw *gw, struct fou_neigh_entry *e, struct rte_mbuf *m)
{
	struct fou_neigh_tbl *t = gw->nt;
	const uint32_t len = rte_pktmbuf_pkt_len(m);

	if (e->q == NULL)
		e->q = malloc(sizeof(*e->q) * FOU_NEIGH_QLEN);
	if (e->q == NULL || t->held >= FOU_NEIGH_HELD_MAX) {
		/* counted as queued and taken out at once: the balance holds */
		FOU_STAT_ADD(fou_neigh_st(gw)->local[FOU_LOCAL_NEIGH_DEQUEUED], 1);
		FOU_STAT_ADD(fou_neigh_st(gw)->drop[FOU_DROP_NEIGH_QUEUE_FULL], 1);
		rte_pktmbuf_free(m);
		return;
	}
	while (e->qn != 0 && (e->qn == FOU_NEIGH_QLEN || e->qbytes + len > FOU_NEIGH_QBYTES)) {
		rte_pktmbuf_free(fou_neigh_q_pop(gw, e));
		FOU_STAT_ADD(fou_neigh_st(gw)->drop[FOU_DROP_NEIGH_QUEUE_FULL], 1);
	}
	e->q[(e->qhead + e->qn) % FOU_NEIGH_QLEN] = m;
	e->qn++;
	e->qbytes += len;
	t->held++;
}

/* --- entries ------------------------------------------------------------------ */

static struct fou_neigh_entry *
fou_neigh_find(struct fou_gw *gw, const struct fou_neigh_key *key)
{
	void *data;

	if (rte_hash_lookup_data(gw->nt->slots, key, &data) < 0)
		return NULL;
	return &gw->nt->e[(uintptr_t)data];
}

static void
fou_neigh_free(struct fou_gw *gw, struct fou_neigh_entry *e, unsigned int reason)
{
	fou_neigh_dp_clear(gw, e);
	fou_neigh_q_drop(gw, e, reason);
	rte_hash_del_key(gw->nt->slots, &e->key);
	memset(e, 0, sizeof(*e));
	fou_idpool_put(gw->nt->free, (uint32_t)(e - gw->nt->e));
	gw->nb_neighs--;
}

/*
 * A new entry for key. A full table first gives up its oldest learnt
 * entry that nothing waits on (FAILED or STALE first), as the forced
 * garbage collection of neigh_alloc; PERMANENT entries never go. NULL
 * when nothing can go.
 */
static struct fou_neigh_entry *
fou_neigh_new(struct fou_gw *gw, const struct fou_neigh_key *key, uint8_t state, uint64_t now)
{
	struct fou_neigh_tbl *t = gw->nt;
	struct fou_neigh_entry *e, *victim = NULL;
	int64_t slot;
	uint32_t i;

	if (gw->nb_neighs >= gw->params.max_neighs) {
		for (i = 0; i < t->hi; i++) {
			struct fou_neigh_entry *c = &t->e[i];
			bool gone = c->state == FOU_NUD_FAILED || c->state == FOU_NUD_STALE;

			if (c->state == 0 || c->state == FOU_NUD_PERMANENT || c->qn != 0)
				continue;
			if (victim == NULL || (gone && !(victim->state == FOU_NUD_FAILED ||
							 victim->state == FOU_NUD_STALE)) ||
			    (gone == (victim->state == FOU_NUD_FAILED ||
				      victim->state == FOU_NUD_STALE) &&
			     c->updated < victim->updated))
				victim = c;
		}
		if (victim == NULL)
			return NULL;
		fou_neigh_free(gw, victim, FOU_DROP_NEIGH_STOPPED);
		FOU_STAT_ADD(fou_neigh_st(gw)->local[FOU_LOCAL_NEIGH_EVICTED], 1);
	}
	slot = fou_idpool_get(t->free);
	if (slot < 0)
		return NULL;
	i = (uint32_t)slot;
	if (rte_hash_add_key_data(t->slots, key, (void *)(uintptr_t)i) < 0) {
		fou_idpool_put(t->free, i);
		return NULL;
	}
	e = &t->e[i];
	memset(e, 0, sizeof(*e));
	e->key = *key;
	e->state = state;
	e->updated = now;
	if (i >= t->hi)
		t->hi = i + 1;
	gw->nb_neighs++;
	return e;
}

/* A randomised reachable time, between half and one and a half of the
 * base (neigh_rand_reach_time). */
static uint64_t
fou_neigh_reach_time(const struct fou_neigh_tbl *t)
{
	uint64_t base = fou_ms(t, FOU_NEIGH_REACHABLE_MS);

	return base / 2 + rte_rand_max(base);
}

static void
fou_neigh_set_state(struct fou_gw *gw, struct fou_neigh_entry *e, uint8_t state, uint64_t now)
{
	struct fou_neigh_tbl *t = gw->nt;

	e->state = state;
	e->updated = now;
	e->probes = 0;
	switch (state) {
	case FOU_NUD_REACHABLE:
		e->confirmed = now;
		e->timer = now + fou_neigh_reach_time(t);
		break;
	case FOU_NUD_STALE:
		/* the next worker to use it marks it (its cache was emptied) */
		__atomic_store_n(&gw->neigh_used[e - t->e], 0, __ATOMIC_RELAXED);
		fou_neigh_changed(gw);
		e->timer = 0;
		break;
	case FOU_NUD_DELAY:
		e->timer = now + fou_ms(t, FOU_NEIGH_DELAY_MS);
		break;
	case FOU_NUD_INCOMPLETE:
	case FOU_NUD_PROBE:
		e->timer = now;		/* the first probe goes at once */
		break;
	case FOU_NUD_FAILED:
		e->timer = now + fou_ms(t, FOU_NEIGH_FAILED_MS);
		break;
	default:
		e->timer = 0;
	}
}

/*
 * What neigh_update does with a MAC heard for e: an entry without one
 * takes it (and sends what waited); a different MAC replaces a known one
 * only with override (an announcement, an NA with O) or once locktime has
 * passed; a confirmation makes it REACHABLE, anything else leaves a
 * reachable entry as it is (STALE never downgrades the same MAC).
 */
static void
fou_neigh_update(struct fou_lcore *ctl, struct fou_neigh_entry *e,
		 const struct rte_ether_addr *mac, bool confirm, bool override, uint64_t now)
{
	struct fou_gw *gw = ctl->gw;
	const uint8_t state = confirm ? FOU_NUD_REACHABLE : FOU_NUD_STALE;

	if (e->state == FOU_NUD_PERMANENT)
		return;
	if (e->state == FOU_NUD_INCOMPLETE || e->state == FOU_NUD_FAILED) {
		if (e->state == FOU_NUD_INCOMPLETE)
			FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_NEIGH_RESOLVED], 1);
		NEIGH_LOG(e, "resolved to %s (was %s), packets waiting: %u", NEIGHMAC(mac),
			      fou_neigh_state_name(e->state), e->qn);
		e->mac = *mac;
		fou_neigh_set_state(gw, e, state, now);
		fou_neigh_dp_set(gw, e);
		fou_neigh_q_release(gw, e);
		return;
	}
	if (!rte_is_same_ether_addr(mac, &e->mac)) {
		if (!override && now - e->updated < fou_ms(gw->nt, FOU_NEIGH_LOCKTIME_MS))
			return;
		NEIGH_LOG(e, "lladdr changed to %s (was %s)", NEIGHMAC(mac), NEIGHMAC(&e->mac));
		e->mac = *mac;
		fou_neigh_set_state(gw, e, state, now);
		fou_neigh_dp_set(gw, e);
		return;
	}
	if (confirm)
		fou_neigh_set_state(gw, e, FOU_NUD_REACHABLE, now);
}

/*
 * The same for IPv6, as neigh_update with the flags ndisc_recv_ns and
 * ndisc_recv_na give it (RFC 4861 7.2.3, 7.2.5): mac NULL when an NA
 * carried no target link-layer address, which only confirms a MAC the
 * entry has. A different MAC replaces the known one only with override
 * (an NS, an NA with O), without locktime; otherwise it is ignored, except
 * that a REACHABLE entry turns STALE on its old MAC (the neighbour may
 * have moved: it is probed before use). Returns whether the NA's router
 * flag applies (not when a different MAC was refused).
 */
static bool
fou_neigh_update6(struct fou_lcore *ctl, struct fou_neigh_entry *e,
		  const struct rte_ether_addr *mac, bool confirm, bool override, uint64_t now)
{
	struct fou_gw *gw = ctl->gw;
	const uint8_t state = confirm ? FOU_NUD_REACHABLE : FOU_NUD_STALE;

	if (e->state == FOU_NUD_PERMANENT)
		return false;
	if (e->state == FOU_NUD_INCOMPLETE || e->state == FOU_NUD_FAILED) {
		if (mac == NULL)
			return false;
		fou_neigh_update(ctl, e, mac, confirm, true, now);
		return true;
	}
	if (mac != NULL && !rte_is_same_ether_addr(mac, &e->mac)) {
		if (!override) {
			if (e->state == FOU_NUD_REACHABLE)
				fou_neigh_set_state(gw, e, FOU_NUD_STALE, now);
			return false;
		}
		NEIGH_LOG(e, "lladdr changed to %s (was %s)", NEIGHMAC(mac), NEIGHMAC(&e->mac));
		e->mac = *mac;
		fou_neigh_set_state(gw, e, state, now);
		fou_neigh_dp_set(gw, e);
		return true;
	}
	if (confirm)
		fou_neigh_set_state(gw, e, FOU_NUD_REACHABLE, now);
	return true;
}

/* A worker heard from a neighbour (fou_arp.c, fou_ndisc.c). */
static void
fou_neigh_learn(struct fou_lcore *ctl, const struct fou_neigh_ev *ev, uint64_t now)
{
	struct fou_gw *gw = ctl->gw;
	struct fou_neigh_key key;
	struct fou_neigh_entry *e;

	if (!fou_iface_enabled(gw, ev->port))
		return;
	fou_neigh_key_make(&key, ev->port, ev->family, ev->addr);
	e = fou_neigh_find(gw, &key);
	if (e == NULL) {
		/* only a request for us creates an entry (neigh_event_ns); a
		 * reply or an announcement nobody asked for does not */
		if (ev->kind != FOU_NEV_SOLICIT)
			return;
		e = fou_neigh_new(gw, &key, FOU_NUD_STALE, now);
		if (e == NULL)
			return;
		e->mac = ev->mac;
		fou_neigh_set_state(gw, e, FOU_NUD_STALE, now);
		fou_neigh_dp_set(gw, e);
		return;
	}
	if (ev->family == AF_INET6) {
		/* ndisc_recv_na leaves a FAILED entry alone (an NS does not) */
		if (ev->kind == FOU_NEV_ADVERT && e->state == FOU_NUD_FAILED)
			return;
		if (fou_neigh_update6(ctl, e, rte_is_zero_ether_addr(&ev->mac) ? NULL : &ev->mac,
				      (ev->flags & FOU_NEV_F_CONFIRM) != 0,
				      (ev->flags & FOU_NEV_F_OVERRIDE) != 0, now) &&
		    ev->kind == FOU_NEV_ADVERT)
			e->router = (ev->flags & FOU_NEV_F_ROUTER) != 0;
		return;
	}
	fou_neigh_update(ctl, e, &ev->mac, (ev->flags & FOU_NEV_F_CONFIRM) != 0,
			 (ev->flags & FOU_NEV_F_OVERRIDE) != 0, now);
}

/* A packet a worker could not send for want of its neighbour. */
static void
fou_neigh_hold(struct fou_lcore *ctl, struct rte_mbuf *m, uint64_t now)
{
	struct fou_gw *gw = ctl->gw;
	struct fou_neigh_key key;
	struct fou_neigh_entry *e;

	memcpy(&key, RTE_MBUF_DYNFIELD(m, gw->hold_key_off, void *), sizeof(key));
	e = fou_neigh_find(gw, &key);
	if (e != NULL && e->in_dp) {
		/* resolved since the worker looked */
		FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_NEIGH_DEQUEUED], 1);
		fou_neigh_send(gw, e, m);
		return;
	}
	if (e == NULL)
		e = fou_neigh_new(gw, &key, FOU_NUD_INCOMPLETE, now);
	if (e != NULL && e->state == FOU_NUD_FAILED)
		fou_neigh_set_state(gw, e, FOU_NUD_INCOMPLETE, now);
	if (e != NULL && e->state == FOU_NUD_INCOMPLETE && e->probes == 0) {
		/* the first request at once (neigh_probe), from an address of
		 * the port: without one there is nobody to ask */
		if (!fou_neigh_solicit(ctl, e)) {
			NEIGH_LOG(e, "failed: the port has no address to ask from");
			fou_neigh_free(gw, e, FOU_DROP_NO_NEIGH);
			e = NULL;
		} else {
			e->probes = 1;
			e->timer = now + fou_ms(gw->nt, FOU_NEIGH_RETRANS_MS);
		}
	}
	if (e == NULL) {
		FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_NEIGH_DEQUEUED], 1);
		FOU_STAT_ADD(ctl->st->drop[FOU_DROP_NO_NEIGH], 1);
		rte_pktmbuf_free(m);
		return;
	}
	fou_neigh_q_add(gw, e, m);
}

static void
fou_neigh_fail(struct fou_lcore *ctl, struct fou_neigh_entry *e, uint64_t now)
{
	NEIGH_LOG(e, "failed in %s after %u probes, packets waiting: %u",
		      fou_neigh_state_name(e->state), e->probes, e->qn);
	FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_NEIGH_FAILED], 1);
	fou_neigh_dp_clear(ctl->gw, e);
	fou_neigh_set_state(ctl->gw, e, FOU_NUD_FAILED, now);
	fou_neigh_q_fail(ctl, e);
}

/* One entry's timers, as neigh_timer_handler. */
static void
fou_neigh_tick(struct fou_lcore *ctl, struct fou_neigh_entry *e, uint64_t now)
{
	struct fou_gw *gw = ctl->gw;
	struct fou_neigh_tbl *t = gw->nt;

	switch (e->state) {
	case FOU_NUD_REACHABLE:
		if (now >= e->timer)
			fou_neigh_set_state(gw, e, FOU_NUD_STALE, now);
		break;
	case FOU_NUD_STALE:
		if (__atomic_load_n(&gw->neigh_used[e - t->e], __ATOMIC_RELAXED) != 0)
			fou_neigh_set_state(gw, e, FOU_NUD_DELAY, now);
		break;
	case FOU_NUD_DELAY:
		if (now < e->timer)
			break;
		if (e->confirmed >= e->updated) {
			fou_neigh_set_state(gw, e, FOU_NUD_REACHABLE, e->confirmed);
			break;
		}
		/* the first unicast probe goes at once */
		fou_neigh_set_state(gw, e, FOU_NUD_PROBE, now);
		__attribute__((fallthrough));
	case FOU_NUD_INCOMPLETE:
	case FOU_NUD_PROBE:
		if (now < e->timer)
			break;
		if (e->probes >= FOU_NEIGH_PROBES) {
			fou_neigh_fail(ctl, e, now);
			break;
		}
		if (!fou_neigh_solicit(ctl, e)) {
			fou_neigh_fail(ctl, e, now);
			break;
		}
		e->probes++;
		e->timer = now + fou_ms(t, FOU_NEIGH_RETRANS_MS);
		break;
	case FOU_NUD_FAILED:
		if (now >= e->timer)
			fou_neigh_free(gw, e, FOU_DROP_NEIGH_FAILED);
		break;
	default:
		break;
	}
}

/*
 * Announce addresses that appeared since the last round (and every address
 * at the start): a gratuitous ARP request (arp_send with sip = tip, as
 * inetdev's NETDEV_UP does), an unsolicited NA for IPv6 (RFC 4861 7.2.6).
 */
static void
fou_neigh_announce(struct fou_lcore *ctl)
{
	struct fou_gw *gw = ctl->gw;
	struct fou_neigh_tbl *t = gw->nt;
	const struct fou_addr_set *as = gw->addrs;
	unsigned int i, j;

	if (!fou_neigh_can_send(gw))
		return;
	for (i = 0; i < as->n; i++) {
		const struct fou_addr *a = &as->a[i];
		const struct rte_ether_addr *mac = &gw->iface[a->port].mac;
		struct rte_mbuf *m;
		bool known = false;

		for (j = 0; j < t->announced.n && !known; j++)
			known = t->announced.a[j].port == a->port &&
				fou_ip_equal(&t->announced.a[j].ip, &a->ip);
		/* a tunnel's address has no link to announce it on */
		if (known || a->tunnel != 0 || !fou_iface_enabled(gw, a->port))
			continue;
		m = rte_pktmbuf_alloc(ctl->pool);
		if (m == NULL)
			return;	/* the next round tries again */
		if (a->ip.family == AF_INET) {
			fou_arp_build(m, &fou_bcast_mac, RTE_ARP_OP_REQUEST, mac, a->ip.v4,
				      &(struct rte_ether_addr){ 0 }, a->ip.v4);
			FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_ARP_REQ_OUT], 1);
		} else {
			fou_ndisc_build_na(m, mac, a->ip.v6, NULL, NULL, FOU_NDISC_NA_ROUTER |
					   FOU_NDISC_NA_OVERRIDE);
			FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_NA_OUT], 1);
		}
		FOU_STAT_ADD(ctl->st->local[FOU_LOCAL_ORIGINATED], 1);
		fou_neigh_emit(gw, m, a->port, FOU_DROP_TX_FULL);
	}
	t->announced = *as;
	t->announced_all = true;
}

void
fou_neigh_service(struct fou_lcore *ctl, uint64_t now)
{
	struct fou_gw *gw = ctl->gw;
	struct fou_neigh_tbl *t = gw->nt;
	struct fou_neigh_ev ev[FOU_NEIGH_BATCH];
	struct rte_mbuf *held[FOU_NEIGH_BATCH];
	unsigned int n, i;
	uint32_t s;

	fou_gw_lock(gw);
	ctl->now = now;		/* what the errors it builds read (path MTU expiry) */
	n = rte_ring_sc_dequeue_burst_elem(gw->nev_ring, ev, sizeof(ev[0]), FOU_NEIGH_BATCH, NULL);
	for (i = 0; i < n; i++)
		fou_neigh_learn(ctl, &ev[i], now);
	n = rte_ring_sc_dequeue_burst(gw->hold_ring, (void **)held, FOU_NEIGH_BATCH, NULL);
	for (i = 0; i < n; i++)
		fou_neigh_hold(ctl, held[i], now);
	for (s = 0; s < t->hi; s++)
		if (t->e[s].state != 0)
			fou_neigh_tick(ctl, &t->e[s], now);
	if (!t->announced_all || t->announced.n != gw->addrs->n ||
	    memcmp(&t->announced, gw->addrs, sizeof(t->announced)) != 0)
		fou_neigh_announce(ctl);
	fou_gw_unlock(gw);
}

/* --- control operations ---------------------------------------------------- */

static void
fou_neigh_key_ip(struct fou_neigh_key *k, uint16_t port, const struct fou_ip *ip)
{
	fou_neigh_key_make(k, port, ip->family, ip->family == AF_INET ? (const void *)&ip->v4 :
			   (const void *)ip->v6);
}

int
fou_neigh_add(struct fou_gw *gw, const struct fou_ip *ip, uint16_t port,
	      const struct rte_ether_addr *mac, struct fou_err *err)
{
	struct fou_neigh_key key;
	struct fou_neigh_entry *e;
	int ret;

	ret = fou_iface_check(gw, port, err);
	if (ret < 0)
		return ret;
	if (!fou_ip_is_unicast(ip)) {
		fou_err_set(err, "%s is not a unicast address", FOU_IPSTR(ip));
		return -EINVAL;
	}
	if (!rte_is_unicast_ether_addr(mac) || rte_is_zero_ether_addr(mac)) {
		fou_err_set(err, "lladdr must be a unicast, non-zero MAC address");
		return -EINVAL;
	}
	fou_neigh_key_ip(&key, port, ip);
	e = fou_neigh_find(gw, &key);
	if (e != NULL && e->state == FOU_NUD_PERMANENT) {
		fou_err_set(err, "neighbour %s on port %u exists", FOU_IPSTR(ip), port);
		return -EEXIST;
	}
	/* a learnt entry gives way to the static one (ip neigh replace) */
	if (e == NULL)
		e = fou_neigh_new(gw, &key, FOU_NUD_PERMANENT, rte_rdtsc());
	if (e == NULL) {
		fou_err_set(err, "neighbour table full (at most %u, all static)",
			    gw->params.max_neighs);
		return -ENOSPC;
	}
	e->mac = *mac;
	fou_neigh_set_state(gw, e, FOU_NUD_PERMANENT, rte_rdtsc());
	fou_neigh_dp_set(gw, e);
	fou_neigh_q_release(gw, e);
	fou_gw_commit(gw);
	return 0;
}

int
fou_neigh_get(const struct fou_gw *gw, const struct fou_ip *ip, uint16_t port,
	      struct rte_ether_addr *mac)
{
	struct fou_neigh_key key;
	void *data;

	fou_neigh_key_ip(&key, port, ip);
	if (rte_hash_lookup_data(gw->neigh, &key, &data) < 0)
		return -ENOENT;
	fou_neigh_mac(data, mac);
	return 0;
}

int
fou_neigh_del(struct fou_gw *gw, const struct fou_ip *ip, uint16_t port, struct fou_err *err)
{
	struct fou_neigh_key key;
	struct fou_neigh_entry *e;

	fou_neigh_key_ip(&key, port, ip);
	e = fou_neigh_find(gw, &key);
	if (e == NULL) {
		fou_err_set(err, "no neighbour %s on port %u", FOU_IPSTR(ip), port);
		return -ENOENT;
	}
	fou_neigh_free(gw, e, FOU_DROP_NEIGH_STOPPED);
	fou_gw_commit(gw);
	return 0;
}

unsigned int
fou_neigh_flush(struct fou_gw *gw)
{
	struct fou_neigh_tbl *t = gw->nt;
	unsigned int n = 0;
	uint32_t s;

	for (s = 0; s < t->hi; s++) {
		if (t->e[s].state == 0 || t->e[s].state == FOU_NUD_PERMANENT)
			continue;
		fou_neigh_free(gw, &t->e[s], FOU_DROP_NEIGH_STOPPED);
		n++;
	}
	if (n != 0)
		fou_gw_commit(gw);
	return n;
}

void
fou_neigh_stop(struct fou_gw *gw)
{
	struct fou_lcore_stats *st;
	struct fou_neigh_tbl *t;
	struct rte_mbuf *m;
	uint32_t s;

	if (gw == NULL || gw->nt == NULL)
		return;
	st = fou_neigh_st(gw);
	t = gw->nt;
	while (gw->hold_ring != NULL && rte_ring_sc_dequeue(gw->hold_ring, (void **)&m) == 0) {
		FOU_STAT_ADD(st->local[FOU_LOCAL_NEIGH_DEQUEUED], 1);
		FOU_STAT_ADD(st->drop[FOU_DROP_NEIGH_STOPPED], 1);
		rte_pktmbuf_free(m);
	}
	for (s = 0; s < t->hi; s++)
		if (t->e[s].qn != 0)
			fou_neigh_q_drop(gw, &t->e[s], FOU_DROP_NEIGH_STOPPED);
}

void
fou_neigh_tbl_free(struct fou_gw *gw)
{
	struct fou_neigh_tbl *t = gw->nt;
	uint32_t s;

	if (t == NULL)
		return;
	fou_neigh_stop(gw);
	for (s = 0; s < t->hi; s++)
		free(t->e[s].q);
	rte_hash_free(t->slots);
	fou_idpool_free(t->free);
	rte_free(t->e);
	rte_free(t);
	gw->nt = NULL;
}

unsigned int
fou_neigh_list(const struct fou_gw *gw, struct fou_neigh_info *out, unsigned int n,
	       unsigned int offset)
{
	const struct fou_neigh_tbl *t = gw->nt;
	const uint64_t now = rte_rdtsc();
	unsigned int count = 0;
	uint32_t s;

	for (s = 0; s < t->hi; s++) {
		const struct fou_neigh_entry *e = &t->e[s];
		struct fou_neigh_info *ni;

		if (e->state == 0)
			continue;
		if (count++ < offset || count - offset > n)
			continue;
		ni = &out[count - offset - 1];
		memset(ni, 0, sizeof(*ni));
		ni->port = e->key.port;
		ni->ip.family = e->key.family;
		ni->ip.plen = e->key.family == AF_INET ? 32 : 128;
		memcpy(e->key.family == AF_INET ? (void *)&ni->ip.v4 : (void *)ni->ip.v6,
		       e->key.addr, e->key.family == AF_INET ? 4 : 16);
		ni->mac = e->mac;
		ni->state = e->state;
		ni->router = e->router;
		ni->age_ms = (uint32_t)RTE_MIN((now - e->updated) / (t->hz / 1000), UINT32_MAX);
		ni->queued = e->qn;
		ni->probes = e->probes;
	}
	return count;
}
