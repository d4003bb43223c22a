/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 fragmentation on the way out (fou_frag.h), with DPDK's rte_ip_frag
 * and the headers Linux' ip_do_fragment writes: the ID kept, offsets in
 * 8-byte units, MF on every fragment but the last, and on the last too
 * when the packet cut was itself a fragment that had it; every option on
 * the first fragment, and on the others only the copied ones, the rest
 * overwritten with NOPs so that every header keeps the length of the
 * original (ip_options_fragment). Runs on worker lcores: no locks, no
 * logs; mbufs come from the lcore's pools.
 *
 * rte_ipv4_fragment_copy_nonseg_packet() makes a fragment that fits one
 * mbuf of the pool: one segment, which every port sends and every
 * checksum offload takes, and a packet that may be an external or a
 * clone's buffer is copied out of, as Linux' slow path copies. A larger
 * fragment (jumbo MTUs) is a header mbuf chained to indirect mbufs
 * pointing into the packet (rte_ipv4_fragment_packet()), for a port that
 * sends chained mbufs.
 */
#include <rte_ip_frag.h>
#include <rte_malloc.h>

#include "fou_frag.h"

struct fou_frag *
fou_frag_create(int socket_id)
{
	return rte_zmalloc_socket("fou_frag", sizeof(struct fou_frag), RTE_CACHE_LINE_SIZE,
				  socket_id);
}

void
fou_frag_free(struct fou_frag *f)
{
	rte_free(f);
}

/* What the stage sends, a burst at a time. */
struct fou_frag_out {
	fou_emit_fn emit;
	void *ctx;
	uint16_t n, sent;
	struct rte_mbuf *pkts[FOU_BURST];
	uint16_t ports[FOU_BURST];
};

static void
fou_frag_flush(struct fou_frag_out *o)
{
	if (o->n == 0)
		return;
	o->emit(o->ctx, o->pkts, o->ports, o->n);
	o->sent += o->n;
	o->n = 0;
}

/* A fragment's verdict r from the output step: sent, held, or dropped. */
static void
fou_frag_done(struct fou_lcore *lc, struct fou_frag_out *o, struct rte_mbuf *m, unsigned int r,
	      uint16_t port)
{
	if (r == FOU_FWD) {
		o->pkts[o->n] = m;
		o->ports[o->n++] = port;
		if (o->n == FOU_BURST)
			fou_frag_flush(o);
		return;
	}
	if (r == FOU_HELD)
		return;
	FOU_STAT_ADD(lc->st->drop[r], 1);
	rte_pktmbuf_free(m);
}

/* ip_options_fragment: the options a fragment after the first carries. */
static void
fou_frag_opts_copied(uint8_t *opt, uint32_t len)
{
	while (len > 0) {
		uint32_t ol;

		if (opt[0] == RTE_IPV4_HDR_OPT_EOL)
			return;
		if (opt[0] == RTE_IPV4_HDR_OPT_NOP) {
			opt++;
			len--;
			continue;
		}
		if (len < 2 || opt[1] < 2 || opt[1] > len)
			return;
		ol = opt[1];
		if (!RTE_IPV4_HDR_OPT_COPIED(opt[0]))
			memset(opt, RTE_IPV4_HDR_OPT_NOP, ol);
		opt += ol;
		len -= ol;
	}
}

/*
 * Cut the IPv4 packet m (from its header, its total length long, the header
 * in the first segment, DF clear) into fragments of at most mtu bytes in
 * out[0..max); m is freed. chains: the port they leave by sends chained
 * mbufs. Returns how many, or 0 with the drop reason in *why.
 */
static unsigned int
fou_frag_ip4(struct fou_lcore *lc, struct rte_mbuf *m, uint16_t mtu, bool chains,
	     struct rte_mbuf **out, unsigned int max, unsigned int *why)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
	const uint32_t hl = (ip->version_ihl & 0xfu) * 4;
	const uint32_t room = rte_pktmbuf_data_room_size(lc->pool) - RTE_PKTMBUF_HEADROOM;
	uint8_t first[60], rest[60];	/* IHL 15 */
	const uint16_t fo0 = rte_be_to_cpu_16(ip->fragment_offset);
	uint32_t at = (uint32_t)(fo0 & RTE_IPV4_HDR_OFFSET_MASK) * 8;
	int32_t n;
	int i;

	/* ip_do_fragment fails below 8 bytes of payload a fragment; DPDK
	 * takes no MTU below the least a link has */
	if (mtu < RTE_ETHER_MIN_MTU || mtu < hl + 8) {
		*why = FOU_DROP_FRAG_FAILED;
		rte_pktmbuf_free(m);
		return 0;
	}
	memcpy(first, ip, hl);
	memcpy(rest, ip, hl);
	if (hl > sizeof(*ip) && !(ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK)))
		fou_frag_opts_copied(rest + sizeof(*ip), hl - (uint32_t)sizeof(*ip));
	/* the copy writes the header and a whole payload in one mbuf */
	if (hl + ((mtu - hl) & ~7u) <= room)
		n = rte_ipv4_fragment_copy_nonseg_packet(m, out, (uint16_t)max, mtu, lc->pool);
	else if (chains)
		n = rte_ipv4_fragment_packet(m, out, (uint16_t)max, mtu, lc->pool, lc->indirect);
	else
		n = -ENOTSUP;
	rte_pktmbuf_free(m);
	if (n <= 0) {
		*why = n == -ENOMEM ? FOU_DROP_FRAG_NOMEM : FOU_DROP_FRAG_FAILED;
		return 0;
	}
	/*
	 * Linux' headers over DPDK's: DPDK keeps a packet's reserved flag,
	 * adds the offsets into the flags word (an offset past 13 bits then
	 * carries into MF) and shortens the options of the later fragments;
	 * Linux writes the offset alone (ip_frag_next: what overflows it
	 * lands in the flags), MF on all but the last or where the packet
	 * had it, and keeps the header's length with NOPs.
	 */
	for (i = 0; i < n; i++) {
		struct rte_mbuf *f = out[i];
		struct rte_ipv4_hdr *h = rte_pktmbuf_mtod(f, struct rte_ipv4_hdr *);
		const uint32_t cur = (h->version_ihl & 0xfu) * 4;
		uint16_t fo = (uint16_t)(at >> 3);

		if (i < n - 1 || (fo0 & RTE_IPV4_HDR_MF_FLAG))
			fo |= RTE_IPV4_HDR_MF_FLAG;
		at += rte_pktmbuf_pkt_len(f) - cur;
		if (cur < hl)
			h = (struct rte_ipv4_hdr *)rte_pktmbuf_prepend(f, (uint16_t)(hl - cur));
		/* never fails: a fragment's header mbuf is fresh from the pool */
		RTE_ASSERT(h != NULL);
		memcpy(h, i == 0 ? first : rest, hl);
		h->fragment_offset = rte_cpu_to_be_16(fo);
		h->total_length = rte_cpu_to_be_16((uint16_t)rte_pktmbuf_pkt_len(f));
		h->hdr_checksum = 0;
		h->hdr_checksum = (uint16_t)~fou_ip4_hdr_sum(h, hl);
		f->l3_len = hl;
		f->packet_type = RTE_PTYPE_L2_ETHER |
				 (hl == sizeof(*h) ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV4_EXT);
	}
	return (unsigned int)n;
}

/* n fragments made of one packet: where it leaves (port: the ones whose
 * header is on the port's wire), inner ones for tunnel t, outer ones. */
static void
fou_frag_count(struct fou_lcore *lc, const struct fou_tunnel *t, uint16_t port, unsigned int n,
	       bool outer)
{
	FOU_STAT_ADD(lc->st->frag_packets, 1);
	FOU_STAT_ADD(lc->st->frag_fragments, n);
	if (t == NULL || outer)
		FOU_STAT_ADD(lc->st->frag_port[port], n);
	if (t != NULL && outer)
		FOU_STAT_ADD(lc->tun_st[t->idx].tx_outer_frags, n);
	else if (t != NULL)
		FOU_STAT_ADD(lc->tun_st[t->idx].tx_frags, n);
}

/*
 * One IP packet of job j (a fragment, or the packet whole) on its way:
 * into the tunnel, if any, and out. An outer packet larger than the path
 * MTU is cut when it goes without DF (a nopmtudisc tunnel: ip_fragment
 * after ip_tunnel_xmit, the UDP checksum over the whole datagram first);
 * a pmtudisc tunnel's has DF, and Linux' ip_fragment refuses it (the
 * error it sends goes to the gateway's own address): lost.
 */
static void
fou_frag_piece(struct fou_lcore *lc, const struct fou_frag_job *j, struct rte_mbuf *p,
	       bool chains, struct fou_frag_out *o)
{
	const struct fou_tunnel *t = j->a.tun;
	const struct rte_ether_addr *neigh = j->have_neigh ? &j->neigh : NULL;
	struct fou_adj plain;
	unsigned int r, n, i;
	uint16_t port = 0;

	if (t == NULL || rte_pktmbuf_pkt_len(p) <= j->a.mtu) {
		r = fou_adj_output(lc, p, &j->a, neigh, j->v6, &port);
		fou_frag_done(lc, o, p, r, port);
		return;
	}
	if (t->flags & FOU_TUN_PMTUDISC) {
		fou_frag_done(lc, o, p, FOU_DROP_MTU_EXCEEDED, 0);
		return;
	}
	r = fou_tunnel_encap(lc, t, p, j->v6, j->a.port, true);
	if (r != FOU_FWD) {
		fou_frag_done(lc, o, p, r, 0);
		return;
	}
	n = fou_frag_ip4(lc, p, (uint16_t)(j->a.mtu + t->hdr_len), chains, lc->frag->outer,
			 FOU_FRAG_OUTER_MAX, &r);
	if (n == 0) {
		FOU_STAT_ADD(lc->st->drop[r], 1);
		return;
	}
	fou_frag_count(lc, t, j->a.port, n, true);
	/* encapsulated already: the rest of the way is a port's */
	plain = j->a;
	plain.tun = NULL;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *q = lc->frag->outer[i];

		q->packet_type |= t->flags & FOU_TUN_FOU ? RTE_PTYPE_L4_UDP : 0;
		r = fou_adj_output(lc, q, &plain, neigh, false, &port);
		fou_frag_done(lc, o, q, r, port);
	}
}

uint16_t
fou_frag_output(struct fou_lcore *lc, const struct fou_frag_job *j, fou_emit_fn emit, void *ctx)
{
	struct fou_frag_out o = { .emit = emit, .ctx = ctx };
	const bool chains = (lc->gw->iface[j->a.port].tx_ol & FOU_TXOL_MSEG) != 0;
	struct rte_mbuf *whole = j->m, **p = &whole;
	const uint16_t ip_id = lc->ip_id;
	unsigned int n = 1, i, why;

	if (j->inner_mtu != 0) {
		n = fou_frag_ip4(lc, j->m, j->inner_mtu, chains, lc->frag->inner, FOU_FRAG_MAX,
				 &why);
		if (n == 0) {
			FOU_STAT_ADD(lc->st->drop[why], 1);
			return 0;
		}
		fou_frag_count(lc, j->a.tun, j->a.port, n, false);
		p = lc->frag->inner;
	}
	/* the pieces take the IDs set aside for them (fou_frag_defer()) */
	lc->ip_id = j->ip_id;
	for (i = 0; i < n; i++)
		fou_frag_piece(lc, j, p[i], chains, &o);
	lc->ip_id = ip_id;
	fou_frag_flush(&o);
	return o.sent;
}
