/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Malformed and inconsistent frames: each is dropped, freed, and counted
 * under exactly one reason; frames that are merely padded or trimmed by a
 * length field are forwarded without the extra bytes (as Linux does).
 */
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>

#include "unit.h"
#include "fou_hdr.h"

static struct fou_gw *gw;

static uint8_t out[UNIT_PKT_MAX];

/* --- truncation ---------------------------------------------------------- */

/* Drop reason for a tunnel payload of t bytes (UDP payload) of frame p. */
static unsigned int
reason_for_payload(const struct unit_pkt *p, uint32_t t)
{
	if (p->gre != 0) {
		if (t < p->gre_len)
			return FOU_DROP_GRE_TRUNCATED;
		t -= p->gre_len;
	}
	if (t < p->inner_hl)
		return FOU_DROP_INNER_TRUNCATED;
	if (t < p->inner_tot)
		return FOU_DROP_INNER_LEN_BAD;
	return UNIT_FWD;
}

static void
run_expect(const struct unit_case *c, const struct unit_pkt *p, unsigned int verdict)
{
	uint32_t olen;

	if (verdict != UNIT_FWD) {
		UNIT_RUN(gw, unit_mbuf(p->b, p->len), .verdict = verdict, .decap_inner = -1);
		return;
	}
	olen = unit_expect_out_same(p, c->inner == FOU_INNER_IPV4 ? &mac_nb4 : &mac_nb6, out);
	UNIT_RUN(gw, unit_mbuf(p->b, p->len), .verdict = UNIT_FWD, .decap_port = c->port,
		 .decap_inner = c->inner, .out = out, .out_len = olen, .out_port = EG_PORT);
}

/*
 * Cut the frame at every length: the length fields still claim the full
 * packet, so past the outer IPv4 header everything is ip_len_bad. Only the
 * complete frame is forwarded.
 */
static void
test_trunc_frame(void **state)
{
	unsigned int i;
	uint32_t len;

	(void)state;
	for (i = 0; i < unit_nb_cases; i++) {
		const struct unit_case *c = &unit_cases[i];
		struct unit_pkt p, full;

		if (c->inner < 0)
			continue;
		unit_case_build(c, &full);
		for (len = 0; len <= full.len; len++) {
			unsigned int v;

			p = full;
			p.len = len;
			if (len < p.l3)
				v = FOU_DROP_ETH_TRUNCATED;
			else if (len < p.l4)
				v = FOU_DROP_IP_TRUNCATED;
			else if (len < full.len)
				v = FOU_DROP_IP_LEN_BAD;
			else
				v = UNIT_FWD;
			unit_ctx("%s cut to %u of %u", c->name, len, full.len);
			run_expect(c, &p, v);
		}
	}
}

/*
 * Cut the frame at every length and make the IPv4 and UDP lengths and all
 * checksums agree with the cut: each header in turn is what is too short.
 */
static void
test_trunc_consistent(void **state)
{
	unsigned int i;
	uint32_t len;

	(void)state;
	for (i = 0; i < unit_nb_cases; i++) {
		const struct unit_case *c = &unit_cases[i];
		struct unit_pkt p, full;

		if (c->inner < 0)
			continue;
		unit_case_build(c, &full);
		for (len = 0; len <= full.len; len++) {
			unsigned int v;

			p = full;
			p.len = len;
			if (len >= p.l3 + 4)
				unit_put16(p.b + p.l3 + 2, (uint16_t)(len - p.l3));
			if (len >= p.l4 + 6)
				unit_put16(p.b + p.l4 + 4, (uint16_t)(len - p.l4));
			unit_fix(&p);
			if (len < p.l3)
				v = FOU_DROP_ETH_TRUNCATED;
			else if (len < p.l4)
				v = FOU_DROP_IP_TRUNCATED;
			else if (len < p.l4 + 8)
				v = FOU_DROP_UDP_TRUNCATED;
			else
				v = reason_for_payload(&p, len - p.l4 - 8);
			unit_ctx("%s, lengths set to a cut at %u of %u", c->name, len, full.len);
			run_expect(c, &p, v);
		}
	}
}

/*
 * Keep the frame, shorten only the UDP length (checksums fixed): the
 * datagram ends early, so its payload is what is too short.
 */
static void
test_trunc_udp_len(void **state)
{
	unsigned int i;
	uint32_t ulen, full_ulen;

	(void)state;
	for (i = 0; i < unit_nb_cases; i++) {
		const struct unit_case *c = &unit_cases[i];
		struct unit_pkt p, full;

		if (c->inner < 0)
			continue;
		unit_case_build(c, &full);
		full_ulen = full.len - full.l4;
		for (ulen = 0; ulen <= full_ulen + 1; ulen++) {
			unsigned int v;

			p = full;
			unit_put16(p.b + p.l4 + 4, (uint16_t)ulen);
			unit_fix(&p);
			if (ulen < 8 || ulen > full_ulen)
				v = FOU_DROP_UDP_LEN_BAD;
			else
				v = reason_for_payload(&p, ulen - 8);
			unit_ctx("%s, UDP length %u of %u", c->name, ulen, full_ulen);
			run_expect(c, &p, v);
		}
	}
}

/* --- outer IPv4 ------------------------------------------------------------ */

static void
build_ipip(struct unit_pkt *p, bool udp_csum)
{
	struct unit_spec s;

	unit_spec_ipip(&s);
	s.udp_csum = udp_csum;
	unit_build(&s, p);
}

static void
set_ip_tot(struct unit_pkt *p, uint16_t tot)
{
	unit_put16(p->b + p->l3 + 2, tot);
	unit_fix_outer(p);
}

static void
test_ip_len_beyond_frame(void **state)
{
	struct unit_pkt p;

	(void)state;
	build_ipip(&p, false);
	set_ip_tot(&p, (uint16_t)(p.len - p.l3 + 1));
	PKT_DROP(gw, &p, FOU_DROP_IP_LEN_BAD);
	set_ip_tot(&p, 0xffff);
	PKT_DROP(gw, &p, FOU_DROP_IP_LEN_BAD);
}

static void
test_ip_len_below_header(void **state)
{
	struct unit_spec s;
	struct unit_pkt p;

	(void)state;
	build_ipip(&p, false);
	set_ip_tot(&p, 19);
	PKT_DROP(gw, &p, FOU_DROP_IP_LEN_BAD);
	set_ip_tot(&p, 0);
	PKT_DROP(gw, &p, FOU_DROP_IP_LEN_BAD);
	/* exactly the header: valid IPv4, but no room for UDP */
	set_ip_tot(&p, 20);
	PKT_DROP(gw, &p, FOU_DROP_UDP_TRUNCATED);
	set_ip_tot(&p, 27);
	PKT_DROP(gw, &p, FOU_DROP_UDP_TRUNCATED);

	unit_spec_ipip(&s);
	s.opt_words = 2;
	unit_build(&s, &p);
	set_ip_tot(&p, 27);	/* above 20, below IHL 7 */
	PKT_DROP(gw, &p, FOU_DROP_IP_LEN_BAD);
}

/*
 * Ethernet padding after the IPv4 packet is not part of it: the checksums
 * (UDP, GRE) cover only the datagram, and the output frame loses the pad.
 */
static void
test_eth_padding_trimmed(void **state)
{
	static const uint16_t pads[] = { 1, 2, 10, 33 };
	unsigned int i, k;

	(void)state;
	for (i = 0; i < unit_nb_cases; i++) {
		const struct unit_case *c = &unit_cases[i];

		if (c->inner < 0)
			continue;
		for (k = 0; k < RTE_DIM(pads); k++) {
			struct unit_spec s;
			struct unit_pkt p;

			c->spec(&s);
			s.pad = pads[k];
			unit_build(&s, &p);
			unit_ctx("%s with %u bytes of padding", c->name, pads[k]);
			run_expect(c, &p, UNIT_FWD);
		}
	}
}

static void
test_ip_hdr_bad(void **state)
{
	static const uint8_t bad[] = { 0x44, 0x40, 0x41, 0x65, 0x55, 0x35, 0x05, 0x00, 0xf5 };
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		struct unit_pkt p;

		build_ipip(&p, false);
		p.b[p.l3] = bad[i];
		unit_fix_outer(&p);
		unit_ctx("version/IHL byte 0x%02x", bad[i]);
		PKT_DROP(gw, &p, FOU_DROP_IP_HDR_BAD);
	}
}

/* IHL claims more header than the frame has. */
static void
test_ip_ihl_beyond_frame(void **state)
{
	struct unit_pkt p;

	(void)state;
	build_ipip(&p, false);
	p.len = p.l3 + 40;
	p.b[p.l3] = 0x4f;	/* 60 bytes of header */
	PKT_DROP(gw, &p, FOU_DROP_IP_TRUNCATED);
}

/* The outer fragments to us are reassembled (test_reasm.c); what is no
 * fragment, or not ours, goes on as before. */
static void
test_ip_fragment(void **state)
{
	struct unit_pkt p;

	(void)state;
	/* DF alone (the golden frames) and the reserved bit are no fragment */
	build_ipip(&p, false);
	unit_put16(p.b + p.l3 + 6, 0x8000);
	unit_fix(&p);
	unit_ctx("reserved flag");
	run_expect(&unit_cases[0], &p, UNIT_FWD);
	/* a fragment for someone else is not ours to judge: it is routed */
	build_ipip(&p, false);
	unit_put16(p.b + p.l3 + 6, 0x2000);
	p.b[p.l3 + 19] = 9;
	unit_fix(&p);
	unit_ctx("fragment to 10.0.0.9 (on link, no neighbour yet)");
	EXPECT_HELD(gw, p.b, p.len, RX_PORT, "10.0.0.9", out,
		    unit_expect_routed_on(p.b + p.l3, p.len - p.l3, RX_PORT, &mac_zero, out));
	build_ipip(&p, false);
	unit_put16(p.b + p.l3 + 6, 0x2001);
	unit_put32(p.b + p.l3 + 16, IP4(10, 20, 0, 7));
	unit_fix(&p);
	unit_ctx("fragment to 10.20.0.7 (routed via 192.168.1.2)");
	UNIT_RUN(gw, unit_mbuf(p.b, p.len), .verdict = UNIT_FWD, .decap_inner = -1, .out = out,
		 .out_len = unit_expect_routed(p.b + p.l3, p.len - p.l3, &mac_nb4, out),
		 .out_port = EG_PORT);
}

static void
test_ip_cksum_bad(void **state)
{
	struct unit_pkt p;

	(void)state;
	build_ipip(&p, false);
	p.b[p.l3 + 11] ^= 0x01;
	PKT_DROP(gw, &p, FOU_DROP_IP_CKSUM_BAD);
	/* checked before the destination */
	build_ipip(&p, false);
	p.b[p.l3 + 19] = 9;
	PKT_DROP(gw, &p, FOU_DROP_IP_CKSUM_BAD);
	/* the option words are covered too */
	{
		struct unit_spec s;

		unit_spec_ipip(&s);
		s.opt_words = 1;
		unit_build(&s, &p);
		p.b[p.l3 + 23] ^= 0x10;
		PKT_DROP(gw, &p, FOU_DROP_IP_CKSUM_BAD);
	}
}

/*
 * Linux' ip_rcv_core verifies the header checksum before it looks at the
 * total length; fou_decap.c says it checks in Linux' order, so a frame with
 * both faults counts as ip_cksum_bad.
 */
static void
test_ip_cksum_before_len(void **state)
{
	struct unit_pkt p;

	(void)state;
	build_ipip(&p, false);
	set_ip_tot(&p, (uint16_t)(p.len - p.l3 + 1));
	p.b[p.l3 + 11] ^= 0x01;
	unit_ctx("total length beyond the frame, bad checksum");
	PKT_DROP(gw, &p, FOU_DROP_IP_CKSUM_BAD);
	set_ip_tot(&p, 19);
	p.b[p.l3 + 11] ^= 0x01;
	unit_ctx("total length below the header, bad checksum");
	PKT_DROP(gw, &p, FOU_DROP_IP_CKSUM_BAD);
}

/*
 * FOU to an address that is not ours is an IPv4 packet like any other: it
 * is routed (ip_forward), never decapsulated.
 */
static void
test_not_local_routed(void **state)
{
	static const struct {
		uint32_t dst;
		unsigned int verdict;
		const struct rte_ether_addr *mac;
		const char *neigh;	/* UNIT_HELD: waits for it */
		uint16_t port;
	} cases[] = {
		/* on link, port 0: held until 10.0.0.9 answers ARP */
		{ IP4(10, 0, 0, 9), UNIT_HELD, NULL, "10.0.0.9", RX_PORT },
		{ IP4(8, 8, 8, 8), FOU_DROP_NO_ROUTE, NULL, NULL, 0 },
		/* via .3, which has no neighbour entry: waits for .3 */
		{ IP4(10, 21, 0, 5), UNIT_HELD, NULL, "192.168.1.3", EG_PORT },
		{ IP4(192, 168, 1, 2), UNIT_FWD, &mac_nb4, NULL, 0 },
		{ IP4(10, 20, 0, 7), UNIT_FWD, &mac_nb4, NULL, 0 },
		{ IP4(192, 168, 1, 7), UNIT_FWD, &mac_nb4_7, NULL, 0 },
		{ IP4(224, 0, 0, 1), FOU_DROP_BCAST_MCAST, NULL, NULL, 0 },
		{ IP4(239, 255, 255, 255), FOU_DROP_BCAST_MCAST, NULL, NULL, 0 },
		{ IP4(255, 255, 255, 255), FOU_DROP_BCAST_MCAST, NULL, NULL, 0 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct unit_spec s;
		struct unit_pkt p;

		unit_spec_ipip(&s);
		s.dst = cases[i].dst;
		unit_build(&s, &p);
		unit_ctx("outer destination 0x%08x", cases[i].dst);
		if (cases[i].verdict == UNIT_HELD) {
			EXPECT_HELD(gw, p.b, p.len, cases[i].port, cases[i].neigh, out,
				    unit_expect_routed_on(p.b + p.l3, p.len - p.l3, cases[i].port,
							  &mac_zero, out));
			continue;
		}
		if (cases[i].verdict != UNIT_FWD) {
			PKT_DROP(gw, &p, cases[i].verdict);
			continue;
		}
		UNIT_RUN(gw, unit_mbuf(p.b, p.len), .verdict = UNIT_FWD, .decap_inner = -1,
			 .out = out,
			 .out_len = unit_expect_routed(p.b + p.l3, p.len - p.l3, cases[i].mac, out),
			 .out_port = EG_PORT);
	}
}

/*
 * The broadcast address of a network of ours is a broadcast (Linux adds
 * an RTN_BROADCAST route for it with the address): not forwarded as
 * unicast onto the link.
 */
static void
test_subnet_broadcast(void **state)
{
	static const uint32_t dst[] = { IP4(10, 0, 0, 255), IP4(192, 168, 1, 255) };
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(dst); i++) {
		struct unit_spec s;
		struct unit_pkt p;

		unit_spec_ipip(&s);
		s.dst = dst[i];
		unit_build(&s, &p);
		unit_ctx("outer destination 0x%08x", dst[i]);
		PKT_DROP(gw, &p, FOU_DROP_BCAST_MCAST);
	}
}

/*
 * Sources Linux refuses before the FOU socket sees the packet
 * (ip_route_input_slow, fib_validate_source): loopback, multicast, 0/8,
 * limited broadcast, and the gateway's own addresses on any port.
 */
static void
test_outer_martian(void **state)
{
	static const uint32_t src[] = {
		IP4(127, 0, 0, 1), IP4(224, 0, 0, 5), IP4(239, 1, 2, 3), IP4(0, 1, 2, 3),
		IP4(255, 255, 255, 255), IP4(10, 0, 0, 1), IP4(192, 168, 1, 1),
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(src); i++) {
		struct unit_spec s;
		struct unit_pkt p;

		unit_spec_ipip(&s);
		s.src = src[i];
		unit_build(&s, &p);
		unit_ctx("outer source 0x%08x", src[i]);
		PKT_DROP(gw, &p, FOU_DROP_OUTER_MARTIAN);
	}
}

/* An address of another port is local too (Linux' weak host model). */
static void
test_local_other_port(void **state)
{
	struct unit_spec s;
	struct unit_pkt p;

	(void)state;
	unit_spec_ipip(&s);
	s.dst = IP4(192, 168, 1, 1);
	unit_build(&s, &p);
	run_expect(&unit_cases[0], &p, UNIT_FWD);
}

/*
 * Not UDP to us: TCP gets nothing, a protocol without a handler would get a
 * protocol unreachable, but 10.0.0.2 has no neighbour here: no way back.
 * What follows the header as ICMP is not a valid ICMP message.
 */
static void
test_local_not_udp(void **state)
{
	static const struct {
		uint8_t proto;
		unsigned int verdict;
	} cases[] = {
		{ IPPROTO_TCP, FOU_DROP_LOCAL_NOT_UDP },
		{ IPPROTO_IPIP, FOU_DROP_LOCAL_NOT_UDP },
		{ IPPROTO_GRE, FOU_DROP_LOCAL_NOT_UDP },
		{ 99, FOU_DROP_LOCAL_NOT_UDP },
		{ IPPROTO_ICMP, FOU_DROP_ICMP_BAD },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct unit_pkt p;

		build_ipip(&p, false);
		p.b[p.l3 + 9] = cases[i].proto;
		unit_fix_outer(&p);
		unit_ctx("protocol %u", cases[i].proto);
		PKT_DROP(gw, &p, cases[i].verdict);
	}
}

/* --- UDP ------------------------------------------------------------------- */

static void
test_udp_len_bad(void **state)
{
	struct unit_pkt p;
	uint16_t full;

	(void)state;
	build_ipip(&p, true);
	full = unit_get16(p.b + p.l4 + 4);
	unit_put16(p.b + p.l4 + 4, 0);
	PKT_DROP(gw, &p, FOU_DROP_UDP_LEN_BAD);
	unit_put16(p.b + p.l4 + 4, 7);
	PKT_DROP(gw, &p, FOU_DROP_UDP_LEN_BAD);
	unit_put16(p.b + p.l4 + 4, (uint16_t)(full + 1));
	unit_fix(&p);
	PKT_DROP(gw, &p, FOU_DROP_UDP_LEN_BAD);
	unit_put16(p.b + p.l4 + 4, 0xffff);
	unit_fix(&p);
	PKT_DROP(gw, &p, FOU_DROP_UDP_LEN_BAD);
}

/*
 * Bytes after the UDP datagram inside the IPv4 packet are cut (Linux'
 * pskb_trim_rcsum): the UDP and GRE checksums cover only the datagram.
 */
static void
test_udp_len_short_trims(void **state)
{
	static const uint16_t extra[] = { 1, 6, 31 };
	unsigned int i, k;

	(void)state;
	for (i = 0; i < unit_nb_cases; i++) {
		const struct unit_case *c = &unit_cases[i];

		if (c->inner < 0)
			continue;
		for (k = 0; k < RTE_DIM(extra); k++) {
			struct unit_spec s;
			struct unit_pkt p;

			c->spec(&s);
			s.udp_csum = true;
			s.udp_trailer = extra[k];
			unit_build(&s, &p);
			unit_ctx("%s with %u bytes after the UDP datagram", c->name, extra[k]);
			run_expect(c, &p, UNIT_FWD);
		}
	}
}

static void
test_udp_cksum_bad(void **state)
{
	struct unit_pkt p;

	(void)state;
	build_ipip(&p, true);
	p.b[p.l4 + 7] ^= 0x01;
	PKT_DROP(gw, &p, FOU_DROP_UDP_CKSUM_BAD);
	/* the pseudo-header counts: another source address, IPv4 checksum fixed */
	build_ipip(&p, true);
	p.b[p.l3 + 15] = 3;
	unit_put16(p.b + p.l3 + 10, 0);
	unit_put16(p.b + p.l3 + 10, (uint16_t)~rfc1071_fold(rfc1071_sum(p.b + p.l3, 20, 0)));
	PKT_DROP(gw, &p, FOU_DROP_UDP_CKSUM_BAD);
	/* the payload counts: the last byte (not under the inner IPv4 checksum) */
	build_ipip(&p, true);
	p.b[p.len - 1] ^= 0x40;
	PKT_DROP(gw, &p, FOU_DROP_UDP_CKSUM_BAD);
}

/* A sum of 0 is sent as 0xffff (RFC 768) and must be accepted as such. */
static void
test_udp_cksum_ffff(void **state)
{
	struct unit_pkt p;
	uint32_t sum;
	uint16_t delta, sport;

	(void)state;
	build_ipip(&p, true);
	/* pick the source port that makes the computed checksum 0 */
	unit_put16(p.b + p.l4 + 6, 0);
	sum = rfc1071_fold(rfc1071_sum(p.b + p.l4, p.len - p.l4,
				       rfc1071_sum(p.b + p.l3 + 12, 8, 0) + 17 + (p.len - p.l4)));
	delta = (uint16_t)(0xffff - sum);
	sport = rfc1071_fold((uint32_t)unit_get16(p.b + p.l4) + delta);
	unit_put16(p.b + p.l4, sport);
	unit_fix(&p);
	assert_int_equal(unit_get16(p.b + p.l4 + 6), 0xffff);
	run_expect(&unit_cases[1], &p, UNIT_FWD);
}

static void
test_fou_port_unknown(void **state)
{
	static const uint16_t ports[] = { 5558, 5554, 0, 65535, 4789 };
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(ports); i++) {
		struct unit_spec s;
		struct unit_pkt p;

		unit_spec_ipip(&s);
		s.dport = ports[i];
		s.udp_csum = true;
		unit_build(&s, &p);
		unit_ctx("UDP port %u", ports[i]);
		PKT_DROP(gw, &p, FOU_DROP_FOU_PORT_UNKNOWN);
	}
}

/* --- GRE ------------------------------------------------------------------- */

static void
build_gre(struct unit_pkt *p, uint16_t flags)
{
	struct unit_spec s;

	unit_spec_gre4(&s, flags);
	unit_build(&s, p);
}

static void
test_gre_version(void **state)
{
	static const uint16_t ver[] = { 1, 2, 7 };
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(ver); i++) {
		struct unit_pkt p;

		build_gre(&p, FOU_GRE_C | FOU_GRE_K);
		p.b[p.gre + 1] |= (uint8_t)ver[i];
		unit_fix(&p);
		unit_ctx("GRE version %u", ver[i]);
		PKT_DROP(gw, &p, FOU_DROP_GRE_VERSION);
	}
}

static void
test_gre_routing(void **state)
{
	struct unit_pkt p;

	(void)state;
	build_gre(&p, FOU_GRE_K);
	p.b[p.gre] |= 0x40;
	PKT_DROP(gw, &p, FOU_DROP_GRE_ROUTING);
	build_gre(&p, FOU_GRE_C);
	p.b[p.gre] |= 0x40;
	unit_fix(&p);
	PKT_DROP(gw, &p, FOU_DROP_GRE_ROUTING);
}

/* Linux' gre_parse_header ignores the RFC 1701 recursion and flag bits. */
static void
test_gre_other_bits_ignored(void **state)
{
	struct unit_pkt p;

	(void)state;
	build_gre(&p, FOU_GRE_C);
	p.b[p.gre] |= 0x0f;
	p.b[p.gre + 1] |= 0xf8;
	unit_fix(&p);
	run_expect(&unit_cases[4], &p, UNIT_FWD);
}

static void
test_gre_cksum_bad(void **state)
{
	unsigned int f;

	(void)state;
	for (f = 0; f < 4; f++) {
		uint16_t flags = FOU_GRE_C | (f & 1 ? FOU_GRE_K : 0) | (f & 2 ? FOU_GRE_S : 0);
		struct unit_pkt p;

		build_gre(&p, flags);
		p.b[p.gre + 5] ^= 0x01;
		unit_ctx("GRE flags 0x%04x, checksum off by one bit", flags);
		PKT_DROP(gw, &p, FOU_DROP_GRE_CKSUM_BAD);
		/* the last payload byte is covered (inner checksums still fine) */
		build_gre(&p, flags);
		p.b[p.len - 1] ^= 0x01;
		unit_ctx("GRE flags 0x%04x, last byte changed", flags);
		PKT_DROP(gw, &p, FOU_DROP_GRE_CKSUM_BAD);
	}
	/* without C the same bytes are not checked */
	{
		struct unit_pkt p;

		build_gre(&p, FOU_GRE_K);
		p.b[p.gre + 4] ^= 0x01;		/* the key */
		unit_ctx("K only, key changed");
		run_expect(&unit_cases[5], &p, UNIT_FWD);
	}
}

static void
test_gre_proto_unknown(void **state)
{
	static const uint16_t proto[] = { 0x6558, 0x0806, 0x0000, 0x8847, 0x0801 };
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(proto); i++) {
		struct unit_pkt p;

		build_gre(&p, FOU_GRE_C);
		unit_put16(p.b + p.gre + 2, proto[i]);
		unit_fix(&p);
		unit_ctx("GRE protocol 0x%04x", proto[i]);
		PKT_DROP(gw, &p, FOU_DROP_GRE_PROTO_UNKNOWN);
	}
}

/* --- inner packet ---------------------------------------------------------- */

/* A FOU frame on udp_port carrying the inner packet of spec in. */
static void
build_carrying(struct unit_pkt *p, uint16_t udp_port, bool gre, uint16_t gre_proto,
	       enum unit_inner inner, uint16_t payload)
{
	struct unit_spec s;

	if (gre) {
		unit_spec_gre4(&s, FOU_GRE_C);
		s.gre_proto = gre_proto;
	} else {
		unit_spec_ipip(&s);
	}
	s.dport = udp_port;
	if (inner == UNIT_IN_V6) {
		struct unit_spec s6;

		unit_spec_sit(&s6);
		s.inner = UNIT_IN_V6;
		memcpy(s.in_src6, s6.in_src6, 16);
		memcpy(s.in_dst6, s6.in_dst6, 16);
	}
	s.payload = payload;
	unit_build(&s, p);
}

static void
test_inner_version_mismatch(void **state)
{
	struct unit_pkt p;

	(void)state;
	build_carrying(&p, PORT_IPIP, false, 0, UNIT_IN_V6, 8);
	unit_ctx("ipip port, IPv6 inside");
	PKT_DROP(gw, &p, FOU_DROP_INNER_HDR_BAD);
	build_carrying(&p, PORT_SIT, false, 0, UNIT_IN_V4, 20);
	unit_ctx("sit port, IPv4 of 48 bytes inside");
	PKT_DROP(gw, &p, FOU_DROP_INNER_HDR_BAD);
	build_carrying(&p, PORT_SIT, false, 0, UNIT_IN_V4, 8);
	unit_ctx("sit port, IPv4 of 36 bytes inside");
	PKT_DROP(gw, &p, FOU_DROP_INNER_TRUNCATED);
	build_carrying(&p, PORT_GRE, true, RTE_ETHER_TYPE_IPV4, UNIT_IN_V6, 8);
	unit_ctx("GRE 0x0800, IPv6 inside");
	PKT_DROP(gw, &p, FOU_DROP_INNER_HDR_BAD);
	build_carrying(&p, PORT_GRE, true, RTE_ETHER_TYPE_IPV6, UNIT_IN_V4, 20);
	unit_ctx("GRE 0x86dd, IPv4 inside");
	PKT_DROP(gw, &p, FOU_DROP_INNER_HDR_BAD);
}

static void
test_inner_ihl_bad(void **state)
{
	static const uint8_t bad[] = { 0x44, 0x40, 0x41, 0x55, 0x65 };
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		struct unit_pkt p;

		build_gre(&p, FOU_GRE_C);
		p.b[p.inner] = bad[i];
		unit_fix(&p);
		unit_ctx("inner version/IHL 0x%02x", bad[i]);
		PKT_DROP(gw, &p, FOU_DROP_INNER_HDR_BAD);
	}
}

/* A larger IHL that still fits the payload: the header checksum, now over
 * 40 bytes, no longer holds. */
static void
test_inner_ihl_beyond_payload(void **state)
{
	struct unit_pkt p;

	(void)state;
	build_ipip(&p, true);
	p.b[p.inner] = 0x4a;	/* 40 bytes of header */
	unit_fix(&p);
	PKT_DROP(gw, &p, FOU_DROP_INNER_TRUNCATED);
}

static void
test_inner_len_bad(void **state)
{
	struct unit_spec s;
	struct unit_pkt p;

	(void)state;
	build_ipip(&p, true);
	unit_put16(p.b + p.inner + 2, (uint16_t)(p.inner_tot + 1));
	unit_fix(&p);
	PKT_DROP(gw, &p, FOU_DROP_INNER_LEN_BAD);
	unit_put16(p.b + p.inner + 2, 19);
	unit_fix(&p);
	PKT_DROP(gw, &p, FOU_DROP_INNER_LEN_BAD);
	unit_put16(p.b + p.inner + 2, 0);
	unit_fix(&p);
	PKT_DROP(gw, &p, FOU_DROP_INNER_LEN_BAD);

	unit_spec_ipip(&s);
	s.in_opt_words = 1;
	unit_build(&s, &p);
	unit_put16(p.b + p.inner + 2, 23);
	unit_fix(&p);
	unit_ctx("inner IHL 6, total length 23");
	PKT_DROP(gw, &p, FOU_DROP_INNER_LEN_BAD);

	unit_spec_sit(&s);
	unit_build(&s, &p);
	unit_put16(p.b + p.inner + 4, (uint16_t)(p.inner_tot - 40 + 1));
	unit_fix(&p);
	unit_ctx("inner IPv6 payload length one too long");
	PKT_DROP(gw, &p, FOU_DROP_INNER_LEN_BAD);
}

/* Bytes after the inner packet in the tunnel payload are cut. */
static void
test_inner_trailer_trimmed(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < unit_nb_cases; i++) {
		const struct unit_case *c = &unit_cases[i];
		struct unit_spec s;
		struct unit_pkt p;

		if (c->inner < 0)
			continue;
		c->spec(&s);
		s.trailer = 5;
		unit_build(&s, &p);
		unit_ctx("%s with 5 bytes after the inner packet", c->name);
		run_expect(c, &p, UNIT_FWD);
	}
}

static void
test_inner_cksum_bad(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < unit_nb_cases; i++) {
		const struct unit_case *c = &unit_cases[i];
		struct unit_pkt p;

		if (c->inner != FOU_INNER_IPV4)
			continue;
		unit_case_build(c, &p);
		p.b[p.inner + 10] ^= 0x80;
		unit_fix_outer(&p);	/* UDP and GRE checksums agree with it */
		unit_ctx("%s", c->name);
		PKT_DROP(gw, &p, FOU_DROP_INNER_CKSUM_BAD);
	}
}

/* Inner IPv4 options stay, the checksum covers them. */
static void
test_inner_options(void **state)
{
	struct unit_spec s;
	struct unit_pkt p;

	(void)state;
	unit_spec_gre4(&s, FOU_GRE_C | FOU_GRE_K);
	s.in_opt_words = 3;
	unit_build(&s, &p);
	run_expect(&unit_cases[7], &p, UNIT_FWD);
	p.b[p.inner + 30] ^= 0x01;	/* an option byte */
	unit_fix_outer(&p);
	PKT_DROP(gw, &p, FOU_DROP_INNER_CKSUM_BAD);
}

/*
 * IPv4 options as Linux' ip_options_compile() takes them on receive, and
 * source routes refused (accept_source_route off): option bytes -> verdict.
 */
static const struct {
	const char *name;
	uint8_t len;
	uint8_t b[16];
	bool ok;
} opt_cases[] = {
	{ "NOPs", 4, { 1, 1, 1, 1 }, true },
	{ "EOL, then anything", 4, { 0, 0xff, 0x07, 0x01 }, true },
	{ "router alert", 4, { 0x94, 4, 0, 0 }, true },
	{ "router alert of 2 bytes", 4, { 0x94, 2, 1, 1 }, false },
	{ "stream id (unknown here: ignored)", 4, { 0x88, 4, 0, 1 }, true },
	{ "record route with room", 8, { 7, 7, 4, 0, 0, 0, 0, 0 }, true },
	{ "record route full", 8, { 7, 7, 8, 1, 2, 3, 4, 0 }, true },
	{ "record route pointer 3", 8, { 7, 7, 3, 0, 0, 0, 0, 0 }, false },
	{ "record route pointer inside the last address", 8, { 7, 7, 5, 0, 0, 0, 0, 0 }, false },
	{ "record route of 2 bytes", 4, { 7, 2, 1, 1 }, false },
	{ "option length 1", 4, { 7, 1, 0, 0 }, false },
	{ "option length 0", 4, { 0x94, 0, 0, 0 }, false },
	{ "option longer than the header", 4, { 0x44, 40, 5, 0 }, false },
	{ "type byte alone at the end", 4, { 1, 1, 1, 0x94 }, false },
	{ "timestamp with room", 12, { 0x44, 12, 5, 0 }, true },
	{ "timestamp and address with room", 12, { 0x44, 12, 5, 1 }, true },
	{ "timestamp and address, room for 4 bytes", 12, { 0x44, 12, 9, 1 }, false },
	{ "timestamp full, overflow 14", 12, { 0x44, 12, 13, 0xe0 }, true },
	{ "timestamp full, overflow 15", 12, { 0x44, 12, 13, 0xf0 }, false },
	{ "timestamp prespecified full, overflow 15", 12, { 0x44, 12, 13, 0xf3 }, true },
	{ "timestamp pointer 4", 12, { 0x44, 12, 4, 0 }, false },
	{ "timestamp of 3 bytes", 4, { 0x44, 3, 5, 1 }, false },
	{ "loose source route", 8, { 0x83, 7, 4, 192, 0, 2, 1, 0 }, false },
	{ "strict source route", 8, { 0x89, 7, 4, 192, 0, 2, 1, 0 }, false },
	{ "source route after a NOP and RA", 12, { 1, 0x94, 4, 0, 0, 0x83, 3, 4, 0, 0, 0, 0 },
	  false },
};

static void
test_ip_options(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(opt_cases); i++) {
		unit_ctx("%s", opt_cases[i].name);
		assert_int_equal(fou_ip4_options_ok(opt_cases[i].b, opt_cases[i].len),
				 opt_cases[i].ok);
	}
}

/* A refused option, outer or inner, drops the packet under its counter. */
static void
test_ip_options_refused(void **state)
{
	static const uint8_t lsrr[8] = { 0x83, 7, 4, 192, 0, 2, 1, 0 };
	struct unit_spec s;
	struct unit_pkt p;

	(void)state;
	unit_spec_gre4(&s, FOU_GRE_C | FOU_GRE_K);
	s.in_opt_words = 2;
	unit_build(&s, &p);
	memcpy(p.b + p.inner + 20, lsrr, sizeof(lsrr));
	unit_fix(&p);
	PKT_DROP_DECAP(gw, &p, FOU_DROP_INNER_OPTIONS_BAD, PORT_GRE, FOU_INNER_IPV4);

	unit_spec_ipip(&s);
	s.opt_words = 2;
	unit_build(&s, &p);
	memcpy(p.b + p.l3 + 20, lsrr, sizeof(lsrr));
	unit_fix(&p);
	PKT_DROP(gw, &p, FOU_DROP_IP_OPTIONS_BAD);
	p.b[p.l3 + 20] = 0x94;	/* a router alert of 7 bytes: fine */
	unit_fix(&p);
	run_expect(&unit_cases[0], &p, UNIT_FWD);
}

static int
setup(void **state)
{
	(void)state;
	gw = unit_gw_std();
	/* the cases are about what is dropped and why: the ICMP errors a
	 * router sends about some of them (which wait for the sender's
	 * neighbour here) are test_encap's */
	UNIT_APPLY(gw, "icmp-rate", "0");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	fou_gw_free(gw);
	return 0;
}

#define T(f) cmocka_unit_test_teardown(f, unit_test_teardown_pool)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_trunc_frame),
		T(test_trunc_consistent),
		T(test_trunc_udp_len),
		T(test_ip_len_beyond_frame),
		T(test_ip_len_below_header),
		T(test_eth_padding_trimmed),
		T(test_ip_hdr_bad),
		T(test_ip_ihl_beyond_frame),
		T(test_ip_fragment),
		T(test_ip_cksum_bad),
		T(test_ip_cksum_before_len),
		T(test_not_local_routed),
		T(test_subnet_broadcast),
		T(test_outer_martian),
		T(test_local_other_port),
		T(test_local_not_udp),
		T(test_udp_len_bad),
		T(test_udp_len_short_trims),
		T(test_udp_cksum_bad),
		T(test_udp_cksum_ffff),
		T(test_fou_port_unknown),
		T(test_gre_version),
		T(test_gre_routing),
		T(test_gre_other_bits_ignored),
		T(test_gre_cksum_bad),
		T(test_gre_proto_unknown),
		T(test_inner_version_mismatch),
		T(test_inner_ihl_bad),
		T(test_inner_ihl_beyond_payload),
		T(test_inner_len_bad),
		T(test_inner_trailer_trimmed),
		T(test_inner_cksum_bad),
		T(test_inner_options),
		T(test_ip_options),
		T(test_ip_options_refused),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("malformed", tests, setup, teardown);
	return unit_eal_fini(failures);
}
