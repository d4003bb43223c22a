/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GRO and the inner TCP checksum. GRO merges a segment only after its TCP
 * checksum is found good, and sums the payload for that only where nothing
 * says what it sums to already: an outer UDP or GRE checksum the receive
 * stage checked over the same bytes (the sum of the inner IP payload then
 * follows from the headers in front of it, as Linux' checksum-complete
 * conversion gives it), or the port's verdict on the inner TCP checksum.
 * Checked here: what the receive stage records for GRO (the GRO tag) in
 * each case, against the sum the tests' own code takes; and what GRO does
 * with segments whose TCP checksum is good or bad -- with an outer UDP
 * checksum that is correct over the corrupt bytes, with a zero one (the
 * payload is summed, as Linux must), and with the port's verdict.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_ethdev.h>
#include <rte_mbuf_ptype.h>

#include "unit.h"
#include "fou_hdr.h"
#include "fou_lcore.h"
#include "fou_rx.h"

#define ETH 14
#define MSS 400
#define NSEG 5
#define FRAME_MAX 4096

/* The running test's gateway (gro_gw()); the teardown frees it. */
static struct fou_gw *gw;

/* How the test flow's segments reach port 0. */
enum path {
	P_IPIP,		/* FOU ipip (5555) */
	P_SIT,		/* FOU sit (5557): IPv6 inside */
	P_GRE4,		/* FOU gre (5556), IPv4 inside */
	P_GRE6,		/* FOU gre, IPv6 inside */
	P_PLAIN_IPIP,	/* ipip without FOU (a tunnel with encap none) */
	P_PLAIN_GRE,	/* gre without FOU, IPv4 inside */
	P_FOU6,		/* FOU ipip over IPv6 (5555, family=6), zero UDP checksum */
};

struct how {
	enum path path;
	bool udp_csum;		/* the outer UDP checksum is set */
	uint16_t gre_flags;
	uint16_t trailer;	/* bytes after the inner packet, inside the tunnel */
};

static bool
path_v6(enum path p)
{
	return p == P_SIT || p == P_GRE6;
}

/* --- frames ----------------------------------------------------------------- */

/*
 * Inner segment i of the test flow (10.30.0.5 or fd00:30::5 port 40000 to
 * 10.20.0.7 or fd00:20::7 port 80, routed out of port 1): ACK, paylen
 * bytes, the TCP checksum right unless bad. Returns the IP packet's length.
 */
static uint32_t
tcp_seg(uint8_t *ip, bool v6, unsigned int i, uint16_t paylen, bool bad)
{
	const uint32_t hl = v6 ? 40 : 20, tl = 20 + paylen;
	uint8_t *t = ip + hl;
	uint32_t phdr, j;

	memset(ip, 0, hl + tl);
	if (v6) {
		unit_put32(ip, 6u << 28 | 0x12345);
		unit_put16(ip + 4, (uint16_t)tl);
		ip[6] = IPPROTO_TCP;
		ip[7] = 64;
		inet_pton(AF_INET6, "fd00:30::5", ip + 8);
		inet_pton(AF_INET6, "fd00:20::7", ip + 24);
		phdr = rfc1071_sum(ip + 8, 32, 0);
	} else {
		ip[0] = 0x45;
		unit_put16(ip + 2, (uint16_t)(hl + tl));
		unit_put16(ip + 4, (uint16_t)(0x100 + i));
		unit_put16(ip + 6, 0x4000);
		ip[8] = 64;
		ip[9] = IPPROTO_TCP;
		unit_put32(ip + 12, IP4(10, 30, 0, 5));
		unit_put32(ip + 16, IP4(10, 20, 0, 7));
		unit_put16(ip + 10, (uint16_t)~rfc1071_fold(rfc1071_sum(ip, hl, 0)));
		phdr = rfc1071_sum(ip + 12, 8, 0);
	}
	unit_put16(t, 40000);
	unit_put16(t + 2, 80);
	unit_put32(t + 4, 1000 + i * MSS);
	unit_put32(t + 8, 7777);
	t[12] = 5 << 4;
	t[13] = 0x10;			/* ACK */
	unit_put16(t + 14, 512);
	for (j = 0; j < paylen; j++)
		t[20 + j] = (uint8_t)(i * 31 + j * 7 + (j >> 8));
	unit_put16(t + 16, (uint16_t)~rfc1071_fold(rfc1071_sum(t, tl, phdr + IPPROTO_TCP + tl)));
	if (bad)
		t[16] ^= 0x5a;		/* the field wrong, the bytes as sent */
	return hl + tl;
}

/* A plain tunnel frame from 10.0.0.2 to 10.0.0.1 around the inner packet. */
static void
plain_frame(struct unit_pkt *p, const struct how *h, const uint8_t *in, uint32_t in_len)
{
	uint8_t *b = p->b;
	uint32_t o = ETH + 20;

	memset(p, 0, sizeof(*p));
	memcpy(b, mac_rx.addr_bytes, 6);
	memcpy(b + 6, mac_peer.addr_bytes, 6);
	unit_put16(b + 12, RTE_ETHER_TYPE_IPV4);
	b[ETH] = 0x45;
	b[ETH + 8] = 64;
	unit_put32(b + ETH + 12, IP4(10, 0, 0, 2));
	unit_put32(b + ETH + 16, IP4(10, 0, 0, 1));
	if (h->path == P_PLAIN_GRE) {
		b[ETH + 9] = IPPROTO_GRE;
		unit_put16(b + o, h->gre_flags);
		unit_put16(b + o + 2, RTE_ETHER_TYPE_IPV4);
		o += (h->gre_flags & FOU_GRE_C) ? 8 : 4;
		if (h->gre_flags & FOU_GRE_K) {
			unit_put32(b + o, 9);
			o += 4;
		}
	} else {
		b[ETH + 9] = IPPROTO_IPIP;
	}
	memcpy(b + o, in, in_len);
	p->inner = o;
	p->len = o + in_len;
	if (h->gre_flags & FOU_GRE_C)
		unit_put16(b + ETH + 24, (uint16_t)~rfc1071_fold(rfc1071_sum(b + ETH + 20,
									      p->len - ETH - 20,
									      0)));
	unit_put16(b + ETH + 2, (uint16_t)(p->len - ETH));
	unit_put16(b + ETH + 10, (uint16_t)~rfc1071_fold(rfc1071_sum(b + ETH, 20, 0)));
}

/* FOU over IPv6 from fd00:99::2 to fd00:99::1, port 5555, around the inner
 * packet; the UDP checksum zero, as Linux takes it over IPv6 on a FOU port. */
static void
fou6_frame(struct unit_pkt *p, const uint8_t *in, uint32_t in_len)
{
	uint8_t *b = p->b, *u = b + ETH + 40;

	memset(p, 0, sizeof(*p));
	memcpy(b, mac_rx.addr_bytes, 6);
	memcpy(b + 6, mac_peer.addr_bytes, 6);
	unit_put16(b + 12, RTE_ETHER_TYPE_IPV6);
	unit_put32(b + ETH, 6u << 28);
	unit_put16(b + ETH + 4, (uint16_t)(8 + in_len));
	b[ETH + 6] = IPPROTO_UDP;
	b[ETH + 7] = 64;
	inet_pton(AF_INET6, "fd00:99::2", b + ETH + 8);
	inet_pton(AF_INET6, "fd00:99::1", b + ETH + 24);
	unit_put16(u, 40000);
	unit_put16(u + 2, 5555);
	unit_put16(u + 4, (uint16_t)(8 + in_len));
	memcpy(u + 8, in, in_len);
	p->inner = ETH + 48;
	p->len = ETH + 48 + in_len;
}

/* Segment i of the test flow the way h says; its inner packet at p->inner. */
static void
seg_frame(struct unit_pkt *p, const struct how *h, unsigned int i, bool bad)
{
	static uint8_t in[UNIT_PKT_MAX];
	struct unit_spec s;
	uint32_t len = tcp_seg(in, path_v6(h->path), i, MSS, bad);

	switch (h->path) {
	case P_PLAIN_IPIP:
	case P_PLAIN_GRE:
		plain_frame(p, h, in, len);
		return;
	case P_FOU6:
		fou6_frame(p, in, len);
		return;
	case P_IPIP:
		unit_spec_ipip(&s);
		break;
	case P_SIT:
		unit_spec_sit(&s);
		break;
	case P_GRE4:
		unit_spec_gre4(&s, h->gre_flags);
		break;
	case P_GRE6:
		unit_spec_gre6(&s, h->gre_flags);
		break;
	}
	s.udp_csum = h->udp_csum;
	s.trailer = h->trailer;
	s.inner = UNIT_IN_RAW;
	s.raw = in;
	s.raw_len = (uint16_t)len;
	unit_build(&s, p);
}

/* --- the gateways ----------------------------------------------------------- */

/*
 * unit_gw_std() with GRO on port 0 and a port 1 that takes chained mbufs
 * and a jumbo MTU, so that merges leave whole; plain: with the plain
 * (encap none) ipip and gre tunnels from 10.0.0.2 (gre without a key, and
 * with key 9 and checksums), which also make the FOU ones of those types
 * take packets from it only.
 */
static struct fou_gw *
gro_gw(bool plain)
{
	struct fou_gw *g = unit_gw_std();
	struct fou_err err = { "" };

	UNIT_APPLY(g, "gro", "0");
	UNIT_APPLY(g, "link", "1,mtu=9000");
	assert_int_equal(fou_iface_tx_offload_set(g, EG_PORT, RTE_ETH_TX_OFFLOAD_MULTI_SEGS,
						  &err), 0);
	if (plain) {
		UNIT_APPLY(g, "tunnel", "t1,type=ipip,local=10.0.0.1,remote=10.0.0.2,encap=none");
		UNIT_APPLY(g, "tunnel", "t2,type=gre,local=10.0.0.1,remote=10.0.0.2,encap=none");
		UNIT_APPLY(g, "tunnel", "t3,type=gre,local=10.0.0.1,remote=10.0.0.2,encap=none,"
			   "key=9,csum");
	}
	return g;
}

/* gro_gw(false) with a FOU port over IPv6 on fd00:99::1, and with tunnel:
 * an ip6tnl from fd00:99::2 that its packets match. */
static struct fou_gw *
gro_gw6(bool tunnel)
{
	struct fou_gw *g = gro_gw(false);

	UNIT_APPLY(g, "addr", "0,fd00:99::1/64");
	UNIT_APPLY(g, "port", "5555:ipip,family=6");
	if (tunnel)
		UNIT_APPLY(g, "tunnel", "t6,type=ip6tnl,mode=ipip6,local=fd00:99::1,"
			   "remote=fd00:99::2,encap=fou,encap-dport=5555");
	return g;
}

/* --- the GRO tag ------------------------------------------------------------ */

/* The tag's sum (of the bytes as they lie in memory, as DPDK's raw sums
 * are) equal to b, a sum of big-endian words: 0 and 0xffff are both zero. */
static bool
sum_eq(uint16_t raw, uint16_t b)
{
	return rte_be_to_cpu_16(raw) % 0xffff == b % 0xffff;
}

/* The frame p with these RX flags and packet type through the receive
 * stage alone: forwarded, on a port with GRO; its tag. */
static struct fou_gro_tag
rx_tag(const struct unit_pkt *p, uint64_t ol_flags, uint32_t ptype)
{
	struct unit_lcore u = { 0 };
	struct fou_gro_tag tag = { 0 };
	struct rte_mbuf *m = unit_mbuf(p->b, p->len);
	uint16_t out_port, nf;
	bool gro;

	m->ol_flags = ol_flags;
	m->packet_type = ptype;
	unit_lcore_begin(&u, gw, 0);
	nf = fou_rx_burst(u.lc, RX_PORT, &m, 1, &out_port, &gro);
	/* a dropped one is freed already */
	if (nf == 1) {
		memcpy(&tag, RTE_MBUF_DYNFIELD(m, gw->gro_tag_off, void *), sizeof(tag));
		rte_pktmbuf_free(m);
	}
	unit_lcore_end(&u);
	assert_int_equal(nf, 1);
	assert_true(gro);
	return tag;
}

/*
 * Segment 0 the way h says, with these RX flags and packet type, through
 * the receive stage alone: forwarded, and its tag says csum (and, for
 * COMPLETE, the sum the tests' own code takes of the inner IP payload).
 */
static void
expect_tag(const struct how *h, uint64_t ol_flags, uint32_t ptype,
	   uint8_t csum, const char *what)
{
	struct unit_pkt p;
	struct fou_gro_tag tag;
	uint16_t want;
	uint32_t hl, tot;

	unit_ctx("%s", what);
	seg_frame(&p, h, 0, false);
	tag = rx_tag(&p, ol_flags, ptype);
	if (tag.csum != csum)
		fail_msg("%s: tag csum %u, expected %u", what, tag.csum, csum);
	if (csum == FOU_GRO_CSUM_COMPLETE) {
		hl = path_v6(h->path) ? 40 : 20;
		tot = path_v6(h->path) ? 40 + unit_get16(p.b + p.inner + 4) :
			unit_get16(p.b + p.inner + 2);
		want = rfc1071_fold(rfc1071_sum(p.b + p.inner + hl, tot - hl, 0));
		if (!sum_eq(tag.l4sum, want))
			fail_msg("%s: tag sum 0x%04x, the inner IP payload sums to 0x%04x", what,
				 rte_be_to_cpu_16(tag.l4sum), want);
	}
}

/* An outer UDP or GRE checksum checked over the inner packet gives its sum. */
static void
test_tag_sum_from_outer_cksum(void **state)
{
	static const struct {
		struct how h;
		uint8_t csum;
		const char *what;
	} cases[] = {
		{ { P_IPIP, true, 0, 0 }, FOU_GRO_CSUM_COMPLETE, "ipip, UDP checksum" },
		{ { P_SIT, true, 0, 0 }, FOU_GRO_CSUM_COMPLETE, "sit, UDP checksum" },
		{ { P_GRE4, true, 0, 0 }, FOU_GRO_CSUM_COMPLETE, "gre, UDP checksum" },
		{ { P_GRE4, true, FOU_GRE_K, 0 }, FOU_GRO_CSUM_COMPLETE, "gre key, UDP checksum" },
		{ { P_GRE4, false, FOU_GRE_C, 0 }, FOU_GRO_CSUM_COMPLETE, "gre csum" },
		{ { P_GRE4, false, FOU_GRE_C | FOU_GRE_K, 0 }, FOU_GRO_CSUM_COMPLETE,
		  "gre csum key" },
		{ { P_GRE4, true, FOU_GRE_C | FOU_GRE_K, 0 }, FOU_GRO_CSUM_COMPLETE,
		  "gre csum key, UDP checksum" },
		{ { P_GRE6, true, FOU_GRE_C | FOU_GRE_K, 0 }, FOU_GRO_CSUM_COMPLETE,
		  "gre6 csum key, UDP checksum" },
		{ { P_GRE6, true, FOU_GRE_K, 0 }, FOU_GRO_CSUM_COMPLETE, "gre6 key, UDP checksum" },
		/* Linux' default: a zero UDP checksum says nothing */
		{ { P_IPIP, false, 0, 0 }, FOU_GRO_CSUM_NONE, "ipip, zero UDP checksum" },
		{ { P_GRE4, false, FOU_GRE_K, 0 }, FOU_GRO_CSUM_NONE, "gre key, zero UDP checksum" },
		{ { P_GRE6, false, FOU_GRE_K, 0 }, FOU_GRO_CSUM_NONE, "gre6, zero UDP checksum" },
		/* bytes after the inner packet would have to come off the sum */
		{ { P_IPIP, true, 0, 3 }, FOU_GRO_CSUM_NONE, "ipip, UDP checksum, trailer" },
		{ { P_SIT, true, 0, 2 }, FOU_GRO_CSUM_NONE, "sit, UDP checksum, trailer" },
	};
	gw = gro_gw(false);
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++)
		expect_tag(&cases[i].h, 0, 0, cases[i].csum, cases[i].what);
	/* the port's verdict on the outer UDP checksum stands for the sum */
	expect_tag(&cases[0].h, RTE_MBUF_F_RX_L4_CKSUM_GOOD, 0, FOU_GRO_CSUM_COMPLETE,
		   "ipip, UDP checksum found good by the port");
	/* integrity checked, the field not right: no sum follows */
	expect_tag(&cases[0].h, RTE_MBUF_F_RX_L4_CKSUM_NONE, 0, FOU_GRO_CSUM_NONE,
		   "ipip, UDP checksum NONE");
	/* a port that parsed a tunnel: the flag is not the outer UDP's, the
	 * bytes are summed and give the sum all the same */
	expect_tag(&cases[0].h, RTE_MBUF_F_RX_L4_CKSUM_NONE,
		   RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_TUNNEL_VXLAN,
		   FOU_GRO_CSUM_COMPLETE, "ipip, UDP checksum, a tunnel parsed by the port");
}

/*
 * GUE (a port 6080 gue): the GUE header comes off the sum the outer UDP
 * checksum gave, fields and all, as Linux' skb_postpull_rcsum takes it off;
 * version 1 has none. The tag says GUE: never one flow with FOU's.
 */
static void
test_tag_gue(void **state)
{
	static const struct {
		uint8_t hdr[12];
		uint8_t len;
		const char *what;
	} cases[] = {
		{ { 0x00, 4, 0, 0 }, 4, "GUE version 0" },
		{ { 0x02, 4, 0, 1, 0, 0, 0, 0, 0xab, 0xcd, 0x12, 0x34 }, 12,
		  "GUE version 0, private flags 0 and a field" },
		{ { 0 }, 0, "GUE version 1" },
	};
	static uint8_t in[UNIT_PKT_MAX];
	unsigned int i;

	(void)state;
	gw = gro_gw(false);
	UNIT_APPLY(gw, "port", "6080:gue");
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct fou_gro_tag tag;
		struct unit_spec s;
		struct unit_pkt p;
		uint16_t want;
		uint32_t len, tot;

		unit_ctx("%s", cases[i].what);
		memcpy(in, cases[i].hdr, cases[i].len);
		len = tcp_seg(in + cases[i].len, false, 0, MSS, false);
		unit_spec_ipip(&s);
		s.dport = 6080;
		s.udp_csum = true;
		s.inner = UNIT_IN_RAW;
		s.raw = in;
		s.raw_len = (uint16_t)(cases[i].len + len);
		unit_build(&s, &p);
		tag = rx_tag(&p, 0, 0);
		assert_int_equal(tag.csum, FOU_GRO_CSUM_COMPLETE);
		assert_int_equal(tag.proto, IPPROTO_IPIP | FOU_GRO_UDP_CSUM | FOU_GRO_GUE);
		tot = unit_get16(in + cases[i].len + 2);
		want = rfc1071_fold(rfc1071_sum(in + cases[i].len + 20, tot - 20, 0));
		if (!sum_eq(tag.l4sum, want))
			fail_msg("%s: tag sum 0x%04x, the inner IP payload sums to 0x%04x",
				 cases[i].what, rte_be_to_cpu_16(tag.l4sum), want);
	}
}

/* The port's verdict on the inner TCP checksum, where it parsed the same tunnel. */
static void
test_tag_port_verdict(void **state)
{
	const uint32_t ipip = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_TUNNEL_IP |
			      RTE_PTYPE_INNER_L3_IPV4 | RTE_PTYPE_INNER_L4_TCP;
	const uint32_t gre = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_TUNNEL_GRE |
			     RTE_PTYPE_INNER_L3_IPV4 | RTE_PTYPE_INNER_L4_TCP;
	const uint64_t good = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	const struct how h_ipip = { P_PLAIN_IPIP, false, 0, 0 };
	const struct how h_gre = { P_PLAIN_GRE, false, 0, 0 };
	const struct how h_gre_c = { P_PLAIN_GRE, false, FOU_GRE_C | FOU_GRE_K, 0 };
	const struct how h_fou = { P_IPIP, true, 0, 0 };
	gw = gro_gw(true);

	(void)state;
	expect_tag(&h_ipip, good, ipip, FOU_GRO_CSUM_GOOD, "plain ipip, inner TCP good");
	expect_tag(&h_gre, good, gre, FOU_GRO_CSUM_GOOD, "plain gre, inner TCP good");
	expect_tag(&h_gre_c, good, gre, FOU_GRO_CSUM_GOOD, "plain gre csum, inner TCP good");
	/* anything else is no verdict on it */
	expect_tag(&h_ipip, RTE_MBUF_F_RX_L4_CKSUM_BAD, ipip, FOU_GRO_CSUM_NONE,
		   "plain ipip, inner TCP bad");
	expect_tag(&h_ipip, RTE_MBUF_F_RX_L4_CKSUM_NONE, ipip, FOU_GRO_CSUM_NONE,
		   "plain ipip, inner TCP NONE");
	expect_tag(&h_ipip, good, 0, FOU_GRO_CSUM_NONE, "plain ipip, no packet type");
	expect_tag(&h_ipip, good, RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP,
		   FOU_GRO_CSUM_NONE, "plain ipip, packet type without the tunnel");
	expect_tag(&h_ipip, good, gre, FOU_GRO_CSUM_NONE, "plain ipip, another tunnel");
	expect_tag(&h_ipip, good, ipip & ~RTE_PTYPE_INNER_L4_MASK, FOU_GRO_CSUM_NONE,
		   "plain ipip, no inner TCP found");
	/* the GRE checksum gives the sum where the port says nothing */
	expect_tag(&h_gre_c, 0, 0, FOU_GRO_CSUM_COMPLETE, "plain gre csum");
	/* FOU has no tunnel packet type in 22.11: the flag is no inner verdict
	 * (and the outer UDP checksum is checked over the bytes) */
	expect_tag(&h_fou, good, ipip, FOU_GRO_CSUM_COMPLETE, "FOU ipip, tunnel type");
}

/* --- GRO on segments --------------------------------------------------------- */

struct got_frame {
	uint8_t b[FRAME_MAX];
	uint32_t len;
	uint16_t port;
};

struct got {
	struct got_frame f[2 * NSEG];
	unsigned int n;
};

static void
emit_copy(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports, uint16_t n)
{
	struct got *g = ctx;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct got_frame *f = &g->f[g->n];
		const void *d;

		if (g->n == RTE_DIM(g->f) || pkts[i]->pkt_len > sizeof(f->b)) {
			rte_pktmbuf_free(pkts[i]);
			fail_msg("more frames sent than expected, or one of %u bytes",
				 pkts[i]->pkt_len);
		}
		f->len = pkts[i]->pkt_len;
		f->port = ports[i];
		d = rte_pktmbuf_read(pkts[i], 0, f->len, f->b);
		if (d != f->b)
			memcpy(f->b, d, f->len);
		g->n++;
		rte_pktmbuf_free(pkts[i]);
	}
}

/*
 * The NSEG segments of the test flow the way h says (bad[i]: segment i with
 * a wrong TCP checksum), with these RX flags and packet type, in one burst
 * through a worker's context; what it held goes at the end of the poll
 * (timeout 0). Returns the segments merged into another.
 */
static uint64_t
run_flow(const struct how *h, const bool *bad, uint64_t ol_flags,
	 uint32_t ptype, struct unit_pkt *in, struct got *g)
{
	struct unit_lcore u = { 0 };
	struct rte_mbuf *pkts[NSEG];
	uint64_t merged, drops, now = rte_rdtsc();
	unsigned int i;

	g->n = 0;
	for (i = 0; i < NSEG; i++) {
		seg_frame(&in[i], h, i, bad[i]);
		pkts[i] = unit_mbuf(in[i].b, in[i].len);
		pkts[i]->ol_flags = ol_flags;
		pkts[i]->packet_type = ptype;
	}
	unit_lcore_begin(&u, gw, 0);
	/* the lcore's row: what this context adds to it */
	merged = u.lc->st->gro_merged;
	drops = fou_stats_drops(u.lc->st);
	assert_int_equal(fou_lcore_rx(u.lc, RX_PORT, pkts, NSEG, now, emit_copy, g), NSEG);
	fou_lcore_idle(u.lc, now, emit_copy, g);
	merged = u.lc->st->gro_merged - merged;
	assert_int_equal(fou_stats_drops(u.lc->st), drops);
	unit_lcore_end(&u);
	UNIT_POOL_FULL();
	return merged;
}

/*
 * Frame k of what was sent is segments [first, last] of the flow merged
 * (or segment first alone, exactly as it came in but for the rewrite of
 * forwarding: its TCP bytes untouched, a bad checksum kept).
 */
static void
expect_frame(const struct got *g, unsigned int k, const struct unit_pkt *in, bool v6,
	     unsigned int first, unsigned int last)
{
	const struct got_frame *f = &g->f[k];
	const uint32_t hl = v6 ? 40 : 20;
	const uint8_t *ip = f->b + ETH, *t = ip + hl;
	const uint8_t *in_t = in[first].b + in[first].inner + hl;
	uint32_t tl = 20 + (last - first + 1) * MSS, phdr;
	unsigned int i;

	unit_ctx("frame %u: segments %u to %u", k, first, last);
	assert_true(k < g->n);
	assert_int_equal(f->port, EG_PORT);
	assert_int_equal(f->len, ETH + hl + tl);
	assert_int_equal(unit_get16(f->b + 12), v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	if (v6) {
		assert_int_equal(unit_get16(ip + 4), tl);
		phdr = rfc1071_sum(ip + 8, 32, 0);
	} else {
		assert_int_equal(unit_get16(ip + 2), hl + tl);
		assert_true(unit_cksum_ok(ip, hl));
		phdr = rfc1071_sum(ip + 12, 8, 0);
	}
	if (first == last) {
		assert_memory_equal(t, in_t, tl);
		return;
	}
	/* the first segment's header, its checksum made for the whole */
	assert_memory_equal(t, in_t, 16);
	assert_memory_equal(t + 18, in_t + 18, 2);
	for (i = first; i <= last; i++)
		assert_memory_equal(t + 20 + (i - first) * MSS,
				    in[i].b + in[i].inner + hl + 20, MSS);
	assert_int_equal(rfc1071_fold(rfc1071_sum(t, tl, phdr + IPPROTO_TCP + tl)), 0xffff);
}

/* All good: one merge of NSEG segments. */
static void
expect_all_merged(const struct how *h, uint64_t ol_flags, uint32_t ptype,
		  const char *what)
{
	static struct unit_pkt in[NSEG];
	static struct got g;
	static const bool none[NSEG];

	unit_ctx("%s", what);
	assert_int_equal(run_flow(h, none, ol_flags, ptype, in, &g), NSEG - 1);
	assert_int_equal(g.n, 1);
	expect_frame(&g, 0, in, path_v6(h->path), 0, NSEG - 1);
}

/* Segment 2 of 5 with a bad TCP checksum: never merged; 0-1 and 3-4 are. */
static void
expect_bad_alone(const struct how *h, uint64_t ol_flags, uint32_t ptype,
		 const char *what)
{
	static struct unit_pkt in[NSEG];
	static struct got g;
	static const bool bad[NSEG] = { false, false, true, false, false };
	const bool v6 = path_v6(h->path);

	RTE_BUILD_BUG_ON(NSEG != 5);
	unit_ctx("%s", what);
	assert_int_equal(run_flow(h, bad, ol_flags, ptype, in, &g), 2);
	assert_int_equal(g.n, 3);
	expect_frame(&g, 0, in, v6, 0, 1);
	expect_frame(&g, 1, in, v6, 2, 2);
	expect_frame(&g, 2, in, v6, 3, 4);
}

/* Tunnels whose outer checksum (UDP, or GRE's) covers the inner segment. */
static const struct {
	struct how h;
	const char *what;
} cksum_cases[] = {
	{ { P_IPIP, true, 0, 0 }, "ipip" },
	{ { P_SIT, true, 0, 0 }, "sit" },
	{ { P_GRE4, true, FOU_GRE_K, 0 }, "gre key" },
	{ { P_GRE6, true, FOU_GRE_C | FOU_GRE_K, 0 }, "gre6 csum key" },
	{ { P_GRE4, false, FOU_GRE_C, 0 }, "gre csum, zero UDP checksum" },
};

/* Outer UDP checksum set: good segments merge without their payload summed. */
static void
test_gro_outer_cksum_good(void **state)
{
	gw = gro_gw(false);
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cksum_cases); i++)
		expect_all_merged(&cksum_cases[i].h, 0, 0, cksum_cases[i].what);
}

/*
 * Outer UDP checksum set and right over a segment whose TCP checksum field
 * is wrong: the segment is sent on as it is, never merged.
 */
static void
test_gro_outer_cksum_bad_tcp(void **state)
{
	gw = gro_gw(false);
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cksum_cases); i++) {
		struct unit_pkt p;

		/* the frame is right but for the TCP checksum: the outer
		 * checks pass, and it is forwarded */
		seg_frame(&p, &cksum_cases[i].h, 2, true);
		if (cksum_cases[i].h.udp_csum) {
			uint16_t ulen = unit_get16(p.b + p.l4 + 4);

			assert_int_equal(rfc1071_fold(rfc1071_sum(p.b + p.l4, ulen,
				rfc1071_sum(p.b + p.l3 + 12, 8, 0) + IPPROTO_UDP + ulen)), 0xffff);
		}
		expect_bad_alone(&cksum_cases[i].h, 0, 0, cksum_cases[i].what);
	}
}

/* A zero outer UDP checksum (Linux' default): the payload is summed. */
static void
test_gro_outer_cksum_zero(void **state)
{
	const struct how ipip = { P_IPIP, false, 0, 0 }, sit = { P_SIT, false, 0, 0 };
	const struct how gre = { P_GRE4, false, FOU_GRE_K, 0 };
	gw = gro_gw(false);

	(void)state;
	expect_all_merged(&ipip, 0, 0, "ipip, good");
	expect_all_merged(&sit, 0, 0, "sit, good");
	expect_all_merged(&gre, 0, 0, "gre, good");
	expect_bad_alone(&ipip, 0, 0, "ipip, bad");
	expect_bad_alone(&sit, 0, 0, "sit, bad");
	expect_bad_alone(&gre, 0, 0, "gre, bad");
}

/*
 * The port's verdict on the inner TCP checksum of a plain tunnel packet:
 * trusted where it parsed the tunnel (as Linux trusts CHECKSUM_UNNECESSARY),
 * so that a segment it calls good is merged even with a wrong checksum;
 * otherwise the checksum is checked as ever.
 */
static void
test_gro_port_verdict(void **state)
{
	const uint32_t ipip = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_TUNNEL_IP |
			      RTE_PTYPE_INNER_L3_IPV4 | RTE_PTYPE_INNER_L4_TCP;
	const uint32_t gre = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_TUNNEL_GRE |
			     RTE_PTYPE_INNER_L3_IPV4 | RTE_PTYPE_INNER_L4_TCP;
	const uint64_t good = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	const struct how h_ipip = { P_PLAIN_IPIP, false, 0, 0 };
	const struct how h_gre = { P_PLAIN_GRE, false, 0, 0 };
	static const bool bad[NSEG] = { false, false, true, false, false };
	static struct unit_pkt in[NSEG];
	static struct got g;
	gw = gro_gw(true);

	(void)state;
	/* good segments the port found good: the merge's checksum is right */
	expect_all_merged(&h_ipip, good, ipip, "plain ipip, port: good");
	expect_all_merged(&h_gre, good, gre, "plain gre, port: good");
	/* the port vouches for the bad one: merged, nothing summed (the merge
	 * carries the port's error in its checksum, where Linux would sum the
	 * bytes anew on the way out: not checked) */
	unit_ctx("plain ipip, a bad checksum the port calls good");
	assert_int_equal(run_flow(&h_ipip, bad, good, ipip, in, &g), NSEG - 1);
	assert_int_equal(g.n, 1);
	/* without the verdict it is checked, and not merged */
	expect_bad_alone(&h_ipip, RTE_MBUF_F_RX_L4_CKSUM_BAD, ipip, "plain ipip, port: bad");
	expect_bad_alone(&h_ipip, 0, ipip, "plain ipip, port: unknown");
	expect_bad_alone(&h_ipip, good, 0, "plain ipip, no packet type");
	expect_bad_alone(&h_gre, good, ipip, "plain gre, the port parsed another tunnel");
	expect_all_merged(&h_ipip, RTE_MBUF_F_RX_L4_CKSUM_BAD, ipip,
			  "plain ipip, good segments the port calls bad");
}

/* The contexts end before the gateway they count into goes. */
/*
 * FOU over IPv6: no room in the tag for the outer addresses, the tunnel
 * they match stands for them; a port's packets without a tunnel (Linux's
 * fallback ip6tnl0) are never merged.
 */
static void
test_gro_outer6(void **state)
{
	static const struct how h = { P_FOU6, false, 0, 0 };
	static struct unit_pkt in[NSEG];
	static struct got g;
	static const bool none[NSEG];
	unsigned int i;

	(void)state;
	gw = gro_gw6(true);
	expect_all_merged(&h, 0, 0, "FOU over IPv6 matching an ip6tnl");
	fou_gw_free(gw);
	gw = gro_gw6(false);
	unit_ctx("FOU over IPv6, no tunnel");
	assert_int_equal(run_flow(&h, none, 0, 0, in, &g), 0);
	assert_int_equal(g.n, NSEG);
	for (i = 0; i < NSEG; i++)
		expect_frame(&g, i, in, false, i, i);
}

static int
teardown(void **state)
{
	int r = unit_test_teardown_pool(state);

	fou_gw_free(gw);
	gw = NULL;
	return r;
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_tag_sum_from_outer_cksum),
		T(test_tag_gue),
		T(test_tag_port_verdict),
		T(test_gro_outer_cksum_good),
		T(test_gro_outer_cksum_bad_tcp),
		T(test_gro_outer_cksum_zero),
		T(test_gro_port_verdict),
		T(test_gro_outer6),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("gro", tests, NULL, NULL);
	return unit_eal_fini(failures);
}
