/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RX-side GRO, one table per lcore context (fou_lcore.c creates it and
 * hands it each burst of a port with GRO on): TCP segments that the
 * receive stage forwarded are merged into
 * one packet per flow, as Linux' inet_gro_receive / ipv6_gro_receive and
 * tcp_gro_receive merge them, then sent on:
 *   - through the egress port's TSO (TCP/IPv4, the port splits it again);
 *   - whole, where it fits the egress MTU (a jumbo link, a tap toward a VM);
 *   - or resegmented by rte_gso into the segments it was made of.
 * DPDK 22.11's rte_gro is not used: its key cannot hold the tunnel a
 * packet came out of, it merges segments whose window, TTL or TOS differ
 * (Linux flushes), never merges a PSH segment, recomputes no checksum and
 * has no IPv6. 22.11's rte_gso (and net_tap's TSO, built on it) has no
 * TCP/IPv6, so an IPv6 merge never grows past the egress MTU.
 *
 * Runs on worker lcores: no locks, no logs, no allocation (rte_gso takes
 * its mbufs from pools).
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_gso.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>
#include <rte_tcp.h>

#include "fou_gro.h"
#include "fou_hdr.h"

#define FOU_TCP_NOMERGE (RTE_TCP_FIN_FLAG | RTE_TCP_SYN_FLAG | RTE_TCP_RST_FLAG | \
			 RTE_TCP_URG_FLAG | RTE_TCP_CWR_FLAG)
#define FOU_IP_MAX 65535u	/* IPv4 total length, IPv6 payload length */

/* A flow being merged: the first packet (head) keeps its headers, the
 * payloads of the next ones are chained behind it. */
struct fou_gro_flow {
	uint32_t hash;
	uint16_t rx_port, tx_port;
	struct rte_mbuf *head, *tail;	/* tail: the last mbuf segment */
	uint64_t deadline;		/* TSC: sent on by then */
	uint32_t next_seq;		/* sequence number the next segment has */
	uint32_t paysum;		/* raw sum of the whole payload */
	uint32_t paylen;		/* payload bytes */
	uint32_t limit;			/* IP bytes the merge may reach */
	uint16_t mss;			/* the head's payload: no segment is larger */
	uint16_t count;			/* segments merged */
	uint16_t ip_id;			/* the head's IPv4 ID */
	uint8_t v6;
	uint8_t id_fixed;		/* IPv4 IDs all equal (DF), not incrementing */
	uint8_t l3_len, l4_len;
	uint16_t segsum[FOU_GRO_MAX_SEGS];	/* each segment's payload sum */
};

struct fou_gro {
	const struct fou_gw *gw;
	unsigned int n;			/* flows [0, n) held, oldest first */
	struct fou_gro_flow flows[FOU_GRO_FLOWS];
	struct rte_gso_ctx gso;
	struct rte_mbuf *segs[FOU_GRO_MAX_SEGS];
};

/* What one forwarded packet looks like to GRO. */
struct fou_gro_pkt {
	struct rte_mbuf *m;
	uint8_t *l3;
	struct rte_tcp_hdr *th;
	uint32_t hash;
	uint32_t seq;
	uint32_t paysum;
	uint16_t paylen;
	uint16_t l3_len, l4_len;
	uint16_t rx_port, tx_port;
	uint8_t v6;
	uint8_t flags;
	bool mergeable;			/* may be held or merged at all */
};

struct fou_gro *
fou_gro_create(const struct fou_gw *gw, struct rte_mempool *direct, struct rte_mempool *indirect,
	       int socket_id)
{
	struct fou_gro *g = rte_zmalloc_socket("fou_gro", sizeof(*g), RTE_CACHE_LINE_SIZE,
					       socket_id);

	if (g == NULL)
		return NULL;
	g->gw = gw;
	g->gso.direct_pool = direct;
	g->gso.indirect_pool = indirect;
	g->gso.gso_types = RTE_ETH_TX_OFFLOAD_TCP_TSO;
	return g;
}

void
fou_gro_free(struct fou_gro *g)
{
	unsigned int i;

	if (g == NULL)
		return;
	for (i = 0; i < g->n; i++)
		rte_pktmbuf_free(g->flows[i].head);
	rte_free(g);
}

/* One packet on to emit. */
static inline void
fou_gro_emit(fou_emit_fn emit, void *ctx, uint16_t port, struct rte_mbuf *m)
{
	emit(ctx, &m, &port, 1);
}

static inline const struct fou_gro_tag *
fou_gro_tag(const struct fou_gw *gw, const struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, gw->gro_tag_off, const struct fou_gro_tag *);
}

static inline uint32_t
fou_sum_add(uint32_t a, uint32_t b)
{
	uint64_t s = (uint64_t)a + b;

	return (uint32_t)((s & 0xffffffff) + (s >> 32));
}


/* The pseudo-header sum (addresses, protocol, TCP length). */
static inline uint32_t
fou_gro_phdr(const uint8_t *l3, bool v6, uint32_t tcp_len)
{
	uint32_t s = rte_raw_cksum(l3 + (v6 ? 8 : 12), v6 ? 32 : 8);

	s = fou_sum_add(s, rte_cpu_to_be_16(IPPROTO_TCP));
	s = fou_sum_add(s, rte_cpu_to_be_16((uint16_t)(tcp_len >> 16)));
	return fou_sum_add(s, rte_cpu_to_be_16((uint16_t)tcp_len));
}

/* rte_hash_crc() loads 8 bytes at a time: the key is copied to an aligned
 * place first (the headers are only 2-byte aligned, the dynfield 4). */
static inline uint32_t
fou_gro_crc(const void *key, uint32_t len, uint32_t init)
{
	uint64_t k[5];

	memcpy(k, key, len);
	return rte_hash_crc(k, len, init);
}

/*
 * The sum of p's TCP payload, and whether its TCP checksum is good
 * (tcp4_gro_receive / tcp6_gro_receive check it first: a segment with a
 * bad one is sent on as it is, never merged, which would hide it behind a
 * checksum made anew). The payload is summed only where nothing else says
 * what it sums to: the port found the checksum good (then the segment sums
 * to minus its pseudo-header), or the receive path kept the sum of the
 * inner IP payload from an outer checksum it checked over the same bytes.
 */
static inline bool
fou_gro_cksum(const struct fou_gro_tag *tag, struct fou_gro_pkt *p)
{
	const uint32_t thl = p->l4_len;
	uint32_t seg;

	switch (tag->csum) {
	case FOU_GRO_CSUM_GOOD:
		p->paysum = fou_sum16_sub((uint16_t)~__rte_raw_cksum_reduce(
						  fou_gro_phdr(p->l3, p->v6, thl + p->paylen)),
					  fou_raw_sum(p->th, thl));
		return true;
	case FOU_GRO_CSUM_COMPLETE:
		seg = tag->l4sum;
		p->paysum = fou_sum16_sub((uint16_t)seg, fou_raw_sum(p->th, thl));
		break;
	default:
		p->paysum = fou_raw_sum((const uint8_t *)p->th + thl, p->paylen);
		seg = fou_sum_add(fou_raw_sum(p->th, thl), p->paysum);
	}
	/* the pseudo-header last: one value fewer held across the sum's loop */
	return __rte_raw_cksum_reduce(fou_sum_add(fou_gro_phdr(p->l3, p->v6, thl + p->paylen),
						  seg)) == 0xffff;
}

/*
 * Parse a forwarded packet: Ethernet (as the output path built it), IPv4
 * without options and not a fragment or IPv6 straight to TCP, a TCP header
 * in the frame, a payload and a valid TCP checksum.
 */
static bool
fou_gro_parse(const struct fou_gw *gw, struct rte_mbuf *m, uint16_t rx_port, uint16_t tx_port,
	      struct fou_gro_pkt *p)
{
	const struct fou_gro_tag *tag = fou_gro_tag(gw, m);
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t l3_tot, thl, h, ports;
	uint16_t etype;

	p->m = m;
	p->mergeable = false;
	p->paysum = 0;
	if (m->nb_segs != 1 || m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) +
					     sizeof(struct rte_tcp_hdr))
		return false;
	/* GRE with sequence numbers is not merged (gre_gro_receive); nor
	 * what came out of an IPv6 outer header without a tunnel (struct
	 * fou_gro_tag) */
	if ((tag->proto & (FOU_GRE_S << 8)) || ((tag->proto & FOU_GRO_OUTER6) && tag->src == 0))
		return false;
	p->l3 = d + RTE_ETHER_HDR_LEN;
	etype = rte_be_to_cpu_16(((const struct rte_ether_hdr *)d)->ether_type);
	if (etype == RTE_ETHER_TYPE_IPV4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p->l3;

		/* inet_gro_receive: any flag but DF (MF, the reserved bit) or
		 * an offset is never merged */
		if (ip->version_ihl != 0x45 || ip->next_proto_id != IPPROTO_TCP ||
		    (ip->fragment_offset & ~rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG)))
			return false;
		p->v6 = 0;
		p->l3_len = sizeof(*ip);
		l3_tot = rte_be_to_cpu_16(ip->total_length);
	} else if (etype == RTE_ETHER_TYPE_IPV6) {
		const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)p->l3;

		if (ip6->proto != IPPROTO_TCP ||
		    m->data_len < RTE_ETHER_HDR_LEN + sizeof(*ip6) + sizeof(struct rte_tcp_hdr))
			return false;
		p->v6 = 1;
		p->l3_len = sizeof(*ip6);
		l3_tot = sizeof(*ip6) + rte_be_to_cpu_16(ip6->payload_len);
	} else {
		return false;
	}
	if (RTE_ETHER_HDR_LEN + l3_tot != m->data_len)
		return false;
	p->th = (struct rte_tcp_hdr *)(p->l3 + p->l3_len);
	thl = (uint32_t)(p->th->data_off >> 4) * 4;
	if (thl < sizeof(struct rte_tcp_hdr) || p->l3_len + thl > l3_tot)
		return false;
	p->l4_len = (uint16_t)thl;
	p->paylen = (uint16_t)(l3_tot - p->l3_len - thl);
	p->flags = p->th->tcp_flags;
	p->seq = rte_be_to_cpu_32(p->th->sent_seq);
	p->rx_port = rx_port;
	p->tx_port = tx_port;
	/* the flow: tunnel, addresses, ports, where it comes in and goes out */
	h = fou_gro_crc(tag, FOU_GRO_KEY_LEN, (uint32_t)rx_port << 16 | tx_port);
	h = fou_gro_crc(p->l3 + (p->v6 ? 8 : 12), p->v6 ? 32 : 8, h);
	memcpy(&ports, p->th, sizeof(ports));	/* not 4-byte aligned */
	p->hash = rte_hash_crc_4byte(ports, h);
	if (p->paylen == 0)
		return true;	/* a pure ACK: flushes its flow, never held */
	p->mergeable = fou_gro_cksum(tag, p);
	return true;
}

/*
 * Whether flow f is the one of packet m, received on rx_port and sent to
 * tx_port, whose IP header l3 is of family v6, with TCP ports at ports:
 * the same tunnel, addresses and ports.
 */
static bool
fou_gro_flow_is(const struct fou_gw *gw, const struct fou_gro_flow *f,
		const struct rte_mbuf *m, uint16_t rx_port, uint16_t tx_port, bool v6,
		const uint8_t *l3, const uint8_t *ports)
{
	const uint8_t *hl3 = rte_pktmbuf_mtod(f->head, const uint8_t *) + RTE_ETHER_HDR_LEN;
	const uint32_t aoff = v6 ? 8 : 12;

	return f->rx_port == rx_port && f->tx_port == tx_port && f->v6 == v6 &&
	       memcmp(hl3 + aoff, l3 + aoff, v6 ? 32 : 8) == 0 &&
	       memcmp(hl3 + f->l3_len, ports, 4) == 0 &&
	       memcmp(fou_gro_tag(gw, f->head), fou_gro_tag(gw, m), FOU_GRO_KEY_LEN) == 0;
}

/* Same flow as p, to merge into: also the rewritten Ethernet header and,
 * for IPv6, the flow label (ipv6_gro_receive). */
static bool
fou_gro_same_flow(const struct fou_gw *gw, const struct fou_gro_flow *f,
		  const struct fou_gro_pkt *p)
{
	const uint8_t *h = rte_pktmbuf_mtod(f->head, const uint8_t *);
	uint32_t w_h, w_p;

	if (f->hash != p->hash ||
	    !fou_gro_flow_is(gw, f, p->m, p->rx_port, p->tx_port, p->v6, p->l3,
			     (const uint8_t *)p->th))
		return false;
	if (memcmp(h, rte_pktmbuf_mtod(p->m, const uint8_t *), RTE_ETHER_HDR_LEN) != 0)
		return false;
	/* the headers are only 2-byte aligned: words are copied, not loaded */
	memcpy(&w_h, h + RTE_ETHER_HDR_LEN, sizeof(w_h));
	memcpy(&w_p, p->l3, sizeof(w_p));
	return !p->v6 || ((w_h ^ w_p) & rte_cpu_to_be_32(0x000fffff)) == 0;
}

/*
 * Whether p continues flow f, as the rules of inet_gro_receive /
 * ipv6_gro_receive and tcp_gro_receive say.
 */
static bool
fou_gro_can_merge(const struct fou_gro_flow *f, const struct fou_gro_pkt *p)
{
	const uint8_t *hl3 = rte_pktmbuf_mtod(f->head, const uint8_t *) + RTE_ETHER_HDR_LEN;
	const struct rte_tcp_hdr *ht = (const struct rte_tcp_hdr *)(hl3 + f->l3_len);
	uint32_t w_h, w_p;

	if (!p->mergeable || (p->flags & FOU_TCP_NOMERGE) || p->paylen > f->mss ||
	    p->seq != f->next_seq || f->count >= FOU_GRO_MAX_SEGS ||
	    (uint32_t)f->l3_len + f->l4_len + f->paylen + p->paylen > f->limit)
		return false;
	if (p->v6) {
		const struct rte_ipv6_hdr *a = (const void *)hl3, *b = (const void *)p->l3;

		/* traffic class and hop limit (the flow label is in the key) */
		if (((a->vtc_flow ^ b->vtc_flow) & rte_cpu_to_be_32(0x0ff00000)) ||
		    a->hop_limits != b->hop_limits)
			return false;
	} else {
		const struct rte_ipv4_hdr *a = (const void *)hl3, *b = (const void *)p->l3;
		const uint16_t id = rte_be_to_cpu_16(b->packet_id);
		const bool df = (b->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG)) != 0;

		if (a->time_to_live != b->time_to_live ||
		    a->type_of_service != b->type_of_service ||
		    ((a->fragment_offset ^ b->fragment_offset) &
		     rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG)))
			return false;
		/* IDs go up by one a segment; with DF they may stay fixed,
		 * which the second segment decides */
		if (f->count == 1 ? !(id == (uint16_t)(f->ip_id + 1) || (df && id == f->ip_id)) :
		    f->id_fixed ? id != f->ip_id : id != (uint16_t)(f->ip_id + f->count))
			return false;
	}
	/* same ACK, data offset, flags but PSH, window; same options */
	memcpy(&w_h, (const uint8_t *)ht + 12, 4);
	memcpy(&w_p, (const uint8_t *)p->th + 12, 4);
	if (((w_h ^ w_p) & ~rte_cpu_to_be_32((uint32_t)RTE_TCP_PSH_FLAG << 16)) != 0 ||
	    ht->recv_ack != p->th->recv_ack)
		return false;
	return memcmp(ht + 1, p->th + 1, p->l4_len - sizeof(*ht)) == 0;
}

/* Chain p's payload behind the flow. */
static void
fou_gro_append(struct fou_gro_flow *f, struct fou_gro_pkt *p)
{
	struct rte_mbuf *m = p->m, *h = f->head;
	uint32_t sum = p->paysum;

	if (f->count == 1 && !f->v6) {
		const struct rte_ipv4_hdr *b = (const void *)p->l3;

		f->id_fixed = rte_be_to_cpu_16(b->packet_id) == f->ip_id;
	}
	rte_pktmbuf_adj(m, (uint16_t)(RTE_ETHER_HDR_LEN + p->l3_len + p->l4_len));
	m->pkt_len = m->data_len;
	f->segsum[f->count] = (uint16_t)sum;
	f->tail->next = m;
	f->tail = m;
	h->nb_segs++;
	h->pkt_len += m->data_len;
	/* a payload that starts at an odd offset adds its sum byte-swapped */
	if (f->paylen & 1)
		sum = ((sum & 0x00ff00ff) << 8) | ((sum >> 8) & 0x00ff00ff);
	f->paysum = fou_sum_add(f->paysum, sum);
	f->paylen += p->paylen;
	f->next_seq += p->paylen;
	f->count++;
}

/*
 * Checksums of the i-th IPv4/TCP segment rte_gso made (a header mbuf and
 * an indirect one): it carries the payload of the i-th segment merged, whose
 * sum was kept, so only the headers are summed.
 */
static void
fou_gro_seg_cksum(const struct fou_gro_flow *f, struct rte_mbuf *s, unsigned int i)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(s, uint8_t *, RTE_ETHER_HDR_LEN);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(l3 + f->l3_len);

	s->ol_flags &= ~RTE_MBUF_F_TX_OFFLOAD_MASK;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = (uint16_t)~fou_ip4_hdr_sum(ip, f->l3_len);
	th->cksum = 0;
	th->cksum = (uint16_t)~__rte_raw_cksum_reduce(fou_sum_add(fou_sum_add(
		fou_gro_phdr(l3, false, rte_be_to_cpu_16(ip->total_length) - f->l3_len),
		fou_raw_sum(th, f->l4_len)), f->segsum[i]));
}

/* Resegment a merged IPv4 packet into the segments it was made of. */
static void
fou_gro_resegment(struct fou_gro *g, struct fou_lcore_stats *st, struct fou_gro_flow *f,
		  fou_emit_fn emit, void *ctx)
{
	struct rte_mbuf *h = f->head;
	int i, nb;

	/* IPv6 merges stay within the MTU it had when they began */
	if (f->v6) {
		FOU_STAT_ADD(st->drop[FOU_DROP_GSO_FAILED], 1);
		rte_pktmbuf_free(h);
		return;
	}
	h->ol_flags |= RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4;
	g->gso.gso_size = (uint16_t)(RTE_ETHER_HDR_LEN + f->l3_len + f->l4_len + f->mss);
	g->gso.flag = f->id_fixed ? RTE_GSO_FLAG_IPID_FIXED : 0;
	nb = rte_gso_segment(h, &g->gso, g->segs, RTE_DIM(g->segs));
	if (nb <= 0) {
		FOU_STAT_ADD(st->drop[FOU_DROP_GSO_FAILED], 1);
		rte_pktmbuf_free(h);
		return;
	}
	FOU_STAT_ADD(st->gso_packets, 1);
	FOU_STAT_ADD(st->gso_segments, (uint64_t)nb);
	/* the segments hold the payload now */
	rte_pktmbuf_free(h);
	for (i = 0; i < nb; i++) {
		fou_gro_seg_cksum(f, g->segs[i], (unsigned int)i);
		fou_gro_emit(emit, ctx, f->tx_port, g->segs[i]);
	}
}

/* Send flow f on: as it is if nothing merged, else with its lengths and
 * checksums made whole, through TSO, whole, or resegmented. */
static void
fou_gro_send(struct fou_gro *g, struct fou_lcore_stats *st, struct fou_gro_flow *f,
	     fou_emit_fn emit, void *ctx)
{
	const struct fou_iface *ifc = &g->gw->iface[f->tx_port];
	struct rte_mbuf *h = f->head;
	uint8_t *l3 = rte_pktmbuf_mtod_offset(h, uint8_t *, RTE_ETHER_HDR_LEN);
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(l3 + f->l3_len);
	const uint32_t tcp_len = f->l4_len + f->paylen;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

	FOU_STAT_ADD(st->gro_flushed, 1);
	/* the egress MTU shrank (/fou/link/set) while it was held: its
	 * segments no longer fit, as ip_forward would find */
	if (unlikely((uint32_t)f->l3_len + f->l4_len + f->mss > ifc->mtu)) {
		FOU_STAT_ADD(st->drop[FOU_DROP_MTU_EXCEEDED], 1);
		rte_pktmbuf_free(h);
		return;
	}
	if (f->count == 1) {
		fou_gro_emit(emit, ctx, f->tx_port, h);
		return;
	}
	h->l2_len = RTE_ETHER_HDR_LEN;
	h->l3_len = f->l3_len;
	h->l4_len = f->l4_len;
	if (f->v6)
		((struct rte_ipv6_hdr *)l3)->payload_len = rte_cpu_to_be_16((uint16_t)tcp_len);
	else
		ip->total_length = rte_cpu_to_be_16((uint16_t)(f->l3_len + tcp_len));
	/* net_tap's TSO (22.11) refuses a segment whose frame, Ethernet
	 * header included, is over the MTU: a full-sized one at the MTU
	 * would be lost with the whole merge; rte_gso cuts those here.
	 * A port's TSO counts IP IDs up: fixed ones (DF) are cut here too,
	 * keeping them (Linux' SKB_GSO_TCP_FIXEDID) */
	if (!f->v6 && !f->id_fixed && (ifc->tx_ol & FOU_TXOL_TSO) &&
	    RTE_ETHER_HDR_LEN + f->l3_len + f->l4_len + f->mss <= ifc->mtu) {
		h->ol_flags |= RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_TCP_CKSUM |
			       RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
		h->tso_segsz = f->mss;
		ip->hdr_checksum = 0;
		th->cksum = rte_ipv4_phdr_cksum(ip, h->ol_flags);
		FOU_STAT_ADD(st->gro_tso, 1);
		fou_gro_emit(emit, ctx, f->tx_port, h);
		return;
	}
	if (!f->v6) {
		ip->hdr_checksum = 0;
		ip->hdr_checksum = (uint16_t)~fou_ip4_hdr_sum(ip, f->l3_len);
	}
	if (f->l3_len + tcp_len > ifc->mtu) {
		fou_gro_resegment(g, st, f, emit, ctx);
		return;
	}
	th->cksum = 0;
	th->cksum = (uint16_t)~__rte_raw_cksum_reduce(fou_sum_add(fou_sum_add(
		fou_gro_phdr(l3, f->v6, tcp_len), fou_raw_sum(th, f->l4_len)), f->paysum));
	fou_gro_emit(emit, ctx, f->tx_port, h);
}

static void
fou_gro_remove(struct fou_gro *g, unsigned int i)
{
	memmove(&g->flows[i], &g->flows[i + 1], (g->n - i - 1) * sizeof(g->flows[0]));
	g->n--;
}

/* Hold p as the head of a new flow (the oldest goes if the table is full). */
static void
fou_gro_hold(struct fou_gro *g, struct fou_lcore_stats *st, struct fou_gro_pkt *p, uint64_t now,
	     fou_emit_fn emit, void *ctx)
{
	const struct fou_iface *in = &g->gw->iface[p->rx_port];
	const struct fou_iface *out = &g->gw->iface[p->tx_port];
	struct fou_gro_flow *f;

	if (g->n == FOU_GRO_FLOWS) {
		fou_gro_send(g, st, &g->flows[0], emit, ctx);
		fou_gro_remove(g, 0);
	}
	f = &g->flows[g->n++];
	f->hash = p->hash;
	f->rx_port = p->rx_port;
	f->tx_port = p->tx_port;
	f->head = f->tail = p->m;
	f->deadline = now + __atomic_load_n(&in->gro_hold_tsc, __ATOMIC_RELAXED);
	f->next_seq = p->seq + p->paylen;
	f->paysum = p->paysum;
	f->segsum[0] = (uint16_t)p->paysum;
	f->paylen = p->paylen;
	f->mss = p->paylen;
	f->count = 1;
	f->v6 = p->v6;
	f->id_fixed = 0;
	f->l3_len = (uint8_t)p->l3_len;
	f->l4_len = (uint8_t)p->l4_len;
	/*
	 * How large the merge may grow: to 64 KiB for the port's TSO; to the
	 * egress MTU where two segments fit (it leaves whole: a jumbo link, a
	 * tap toward a VM); else to 64 KiB and rte_gso cuts it again. IPv6
	 * has neither TSO nor rte_gso here: the MTU bounds it.
	 */
	if (p->v6) {
		f->ip_id = 0;
		f->limit = RTE_MIN((uint32_t)out->mtu, p->l3_len + FOU_IP_MAX);
	} else {
		f->ip_id = rte_be_to_cpu_16(((const struct rte_ipv4_hdr *)p->l3)->packet_id);
		f->limit = !(out->tx_ol & FOU_TXOL_TSO) &&
			   out->mtu >= p->l3_len + p->l4_len + 2u * p->paylen ? out->mtu :
			   FOU_IP_MAX;
	}
}

static void
fou_gro_one(struct fou_gro *g, struct fou_lcore_stats *st, struct fou_gro_pkt *p, uint64_t now,
	    fou_emit_fn emit, void *ctx)
{
	struct fou_gro_flow *f = NULL;
	unsigned int i;

	for (i = 0; i < g->n; i++)
		if (fou_gro_same_flow(g->gw, &g->flows[i], p)) {
			f = &g->flows[i];
			break;
		}
	if (f != NULL && fou_gro_can_merge(f, p)) {
		fou_gro_append(f, p);
		FOU_STAT_ADD(st->gro_merged, 1);
		/* a PSH or a short segment is the last of a merge */
		if ((p->flags & RTE_TCP_PSH_FLAG) || p->paylen < f->mss) {
			struct rte_tcp_hdr *ht = rte_pktmbuf_mtod_offset(
				f->head, struct rte_tcp_hdr *, RTE_ETHER_HDR_LEN + f->l3_len);

			ht->tcp_flags |= p->flags & RTE_TCP_PSH_FLAG;
			fou_gro_send(g, st, f, emit, ctx);
			fou_gro_remove(g, i);
		}
		return;
	}
	/* not merged: what is held of its flow goes first */
	if (f != NULL) {
		fou_gro_send(g, st, f, emit, ctx);
		fou_gro_remove(g, i);
	}
	/* a merge leaves as chained mbufs: only to a port that sends them;
	 * an IPv6 merge must fit the egress MTU: held only if two would */
	if (p->mergeable && !(p->flags & (FOU_TCP_NOMERGE | RTE_TCP_PSH_FLAG)) &&
	    (g->gw->iface[p->tx_port].tx_ol & FOU_TXOL_MSEG) &&
	    (!p->v6 || p->l3_len + p->l4_len + 2u * p->paylen <= g->gw->iface[p->tx_port].mtu))
		fou_gro_hold(g, st, p, now, emit, ctx);
	else
		fou_gro_emit(emit, ctx, p->tx_port, p->m);
}

/*
 * The TCP ports of an IPv4 or IPv6 packet GRO does not take (IPv4 options,
 * a first fragment, IPv6 extension headers), where they can be read.
 */
static const uint8_t *
fou_gro_ports(const uint8_t *l3, uint32_t len, bool v6)
{
	uint32_t off, n;
	uint8_t proto;

	if (!v6) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;

		if (ip->next_proto_id != IPPROTO_TCP ||
		    (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK)))
			return NULL;
		off = (ip->version_ihl & 0xfu) * 4;
		return off + 4 <= len ? l3 + off : NULL;
	}
	proto = ((const struct rte_ipv6_hdr *)l3)->proto;
	off = sizeof(struct rte_ipv6_hdr);
	for (n = 0; n < 8 && proto != IPPROTO_TCP; n++) {
		if (off + 8 > len)
			return NULL;
		switch (proto) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
			proto = l3[off];
			off += (l3[off + 1] + 1u) * 8;
			break;
		case IPPROTO_FRAGMENT:
			if ((l3[off + 2] << 8 | l3[off + 3]) & ~7u)
				return NULL;	/* not the first fragment */
			proto = l3[off];
			off += 8;
			break;
		default:
			return NULL;
		}
	}
	return proto == IPPROTO_TCP && off + 4 <= len ? l3 + off : NULL;
}

/*
 * A packet GRO does not take that belongs to a held flow (same tunnel,
 * ports in and out, addresses and TCP ports): the flow goes first, so no
 * flow is reordered.
 */
static void
fou_gro_flush_flow(struct fou_gro *g, struct fou_lcore_stats *st, struct rte_mbuf *m,
		   uint16_t rx_port, uint16_t tx_port, fou_emit_fn emit, void *ctx)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *l3 = d + RTE_ETHER_HDR_LEN, *ports;
	uint32_t i;
	uint16_t etype;
	bool v6;

	if (m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr))
		return;
	etype = rte_be_to_cpu_16(((const struct rte_ether_hdr *)d)->ether_type);
	v6 = etype == RTE_ETHER_TYPE_IPV6;
	if ((etype != RTE_ETHER_TYPE_IPV4 && !v6) ||
	    (v6 && m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr)))
		return;
	ports = fou_gro_ports(l3, m->data_len - RTE_ETHER_HDR_LEN, v6);
	if (ports == NULL)
		return;
	for (i = 0; i < g->n; i++) {
		if (fou_gro_flow_is(g->gw, &g->flows[i], m, rx_port, tx_port, v6, l3, ports)) {
			fou_gro_send(g, st, &g->flows[i], emit, ctx);
			fou_gro_remove(g, i);
			return;		/* a flow is held once */
		}
	}
}

void
fou_gro_burst(struct fou_gro *g, struct fou_lcore_stats *st, uint16_t rx_port,
	      struct rte_mbuf **pkts, uint16_t n, const uint16_t *out_port, uint64_t now,
	      fou_emit_fn emit, void *ctx)
{
	struct fou_gro_pkt p;
	uint16_t i;

	for (i = 0; i < n; i++) {
		if (fou_gro_parse(g->gw, pkts[i], rx_port, out_port[i], &p)) {
			fou_gro_one(g, st, &p, now, emit, ctx);
			continue;
		}
		if (g->n != 0)
			fou_gro_flush_flow(g, st, pkts[i], rx_port, out_port[i], emit, ctx);
		fou_gro_emit(emit, ctx, out_port[i], pkts[i]);
	}
}

/* Send on the held flows received on rx_port (any: -1) whose time is up
 * (all: every one), oldest first; returns how many stay held. */
static unsigned int
fou_gro_drain(struct fou_gro *g, struct fou_lcore_stats *st, int rx_port, uint64_t now, bool all,
	      fou_emit_fn emit, void *ctx)
{
	unsigned int i = 0;

	while (i < g->n) {
		const struct fou_gro_flow *f = &g->flows[i];

		if ((rx_port < 0 || f->rx_port == rx_port) &&
		    (all || (int64_t)(now - f->deadline) >= 0)) {
			fou_gro_send(g, st, &g->flows[i], emit, ctx);
			fou_gro_remove(g, i);
		} else {
			i++;
		}
	}
	return g->n;
}

unsigned int
fou_gro_flush(struct fou_gro *g, struct fou_lcore_stats *st, uint64_t now, bool all,
	      fou_emit_fn emit, void *ctx)
{
	return fou_gro_drain(g, st, -1, now, all, emit, ctx);
}

unsigned int
fou_gro_flush_port(struct fou_gro *g, struct fou_lcore_stats *st, uint16_t rx_port,
		   fou_emit_fn emit, void *ctx)
{
	return fou_gro_drain(g, st, rx_port, 0, true, emit, ctx);
}
