/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * After decapsulation: ECN (RFC 6040), TTL / hop limit, martians, routes,
 * neighbours, local destinations and the egress MTU; before it, the
 * Ethernet classification of the received frame.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_arp.h>

#include "unit.h"
#include "fou_hdr.h"

static struct fou_gw *gw;
static uint8_t out[UNIT_PKT_MAX];

/* The inner packet of an ipip frame (v4) or a sit frame (v6). */
static void
spec_v4(struct unit_spec *s, uint32_t dst)
{
	unit_spec_ipip(s);
	s->in_dst4 = dst;
}

static void
spec_v6(struct unit_spec *s, const char *dst)
{
	unit_spec_sit(s);
	assert_int_equal(inet_pton(AF_INET6, dst, s->in_dst6), 1);
}

static void
expect_fwd_to(const struct unit_pkt *p, const struct rte_ether_addr *mac, const char *file,
	      int line)
{
	uint32_t olen = unit_expect_out_same(p, mac, out);
	bool v4 = p->kind == UNIT_IN_V4;

	unit_run(gw, unit_mbuf(p->b, p->len),
		 &(struct unit_exp){ .verdict = UNIT_FWD, .decap_port = v4 ? PORT_IPIP : PORT_SIT,
				     .decap_inner = v4 ? FOU_INNER_IPV4 : FOU_INNER_IPV6,
				     .out = out, .out_len = olen, .out_port = EG_PORT },
		 file, line);
}
#define EXPECT_FWD_TO(p, mac) expect_fwd_to((p), (mac), __FILE__, __LINE__)

/*
 * Held after decapsulation for the neighbour neigh on port: the frame as it
 * would leave, with a zero destination MAC until the neighbour answers.
 */
static void
expect_held_for(const struct unit_pkt *p, uint16_t port, const char *neigh, const char *file,
		int line)
{
	uint32_t olen = unit_expect_out_same(p, &mac_zero, out);
	bool v4 = p->kind == UNIT_IN_V4;

	if (port != EG_PORT)
		memcpy(out + 6, mac_rx.addr_bytes, 6);
	unit_run(gw, unit_mbuf(p->b, p->len),
		 &(struct unit_exp){ .verdict = UNIT_HELD, .decap_port = v4 ? PORT_IPIP : PORT_SIT,
				     .decap_inner = v4 ? FOU_INNER_IPV4 : FOU_INNER_IPV6,
				     .out = out, .out_len = olen, .out_port = port,
				     .neigh = neigh },
		 file, line);
}
#define EXPECT_HELD_FOR(p, port, neigh) expect_held_for((p), (port), (neigh), __FILE__, __LINE__)

/* Dropped after decapsulation (counted as decapsulated). */
#define EXPECT_LATE_DROP(p, reason) \
	PKT_DROP_DECAP(gw, (p), (reason), (p)->kind == UNIT_IN_V4 ? PORT_IPIP : PORT_SIT, \
		       (p)->kind == UNIT_IN_V4 ? FOU_INNER_IPV4 : FOU_INNER_IPV6)

/* --- ECN ------------------------------------------------------------------- */

#define DROP 0xff
/* RFC 6040 figure 4: [outer][inner] -> inner after decapsulation. */
static const uint8_t ecn_table[4][4] = {
	/* inner:  Not-ECT  ECT(1)  ECT(0)  CE */
	/* Not-ECT */ { 0, 1, 2, 3 },
	/* ECT(1)  */ { 0, 1, 1, 3 },
	/* ECT(0)  */ { 0, 1, 2, 3 },
	/* CE      */ { DROP, 3, 3, 3 },
};

static void
ecn_matrix(void (*spec)(struct unit_spec *s), uint16_t port, int inner)
{
	unsigned int o, i;

	for (o = 0; o < 4; o++) {
		for (i = 0; i < 4; i++) {
			struct unit_spec s;
			struct unit_pkt p;
			uint32_t olen;

			spec(&s);
			s.tos = (uint8_t)(0xb8 | o);		/* EF on the outside */
			s.in_tos = (uint8_t)(0x28 | i);		/* AF11 inside, kept */
			unit_build(&s, &p);
			unit_ctx("%s: outer ECN %u, inner ECN %u", inner == FOU_INNER_IPV4 ?
				 "IPv4" : "IPv6", o, i);
			if (ecn_table[o][i] == DROP) {
				PKT_DROP(gw, &p, FOU_DROP_ECN_DROP);
				continue;
			}
			/* expected output: checksum recomputed from scratch */
			olen = unit_expect_out(&p, inner == FOU_INNER_IPV4 ? &mac_nb4 : &mac_nb6,
					       ecn_table[o][i], out);
			if (inner == FOU_INNER_IPV4)
				assert_int_equal(out[15], 0x28 | ecn_table[o][i]);
			else
				assert_int_equal((out[14] << 4 | out[15] >> 4) & 0xff,
						 0x28 | ecn_table[o][i]);
			UNIT_RUN(gw, unit_mbuf(p.b, p.len), .verdict = UNIT_FWD,
				 .decap_port = port, .decap_inner = inner, .out = out,
				 .out_len = olen, .out_port = EG_PORT);
		}
	}
}

static void
spec_ipip(struct unit_spec *s)
{
	unit_spec_ipip(s);
}

static void
spec_sit(struct unit_spec *s)
{
	unit_spec_sit(s);
}

static void
spec_gre4(struct unit_spec *s)
{
	unit_spec_gre4(s, FOU_GRE_C);
}

static void
test_ecn_ipv4(void **state)
{
	(void)state;
	ecn_matrix(spec_ipip, PORT_IPIP, FOU_INNER_IPV4);
	ecn_matrix(spec_gre4, PORT_GRE, FOU_INNER_IPV4);
}

static void
test_ecn_ipv6(void **state)
{
	(void)state;
	ecn_matrix(spec_sit, PORT_SIT, FOU_INNER_IPV6);
}

/* The inner checksum after an ECN change and the TTL decrement, for many headers. */
static void
test_ecn_cksum_sweep(void **state)
{
	unsigned int k;

	(void)state;
	for (k = 0; k < 512; k++) {
		struct unit_spec s;
		struct unit_pkt p;
		uint32_t olen;

		unit_spec_ipip(&s);
		s.tos = FOU_ECN_CE;
		s.in_tos = (uint8_t)(k & 0xfc) | FOU_ECN_ECT1;
		s.in_ttl = (uint8_t)(2 + (k * 37) % 254);
		s.in_src4 = IP4(10, 30, k >> 8, k & 0xff);
		unit_build(&s, &p);
		olen = unit_expect_out(&p, &mac_nb4, FOU_ECN_CE, out);
		assert_true(unit_cksum_ok(out + 14, 20));
		unit_ctx("inner TOS 0x%02x TTL %u", s.in_tos, s.in_ttl);
		EXPECT_FWD(gw, p.b, p.len, PORT_IPIP, FOU_INNER_IPV4, out, olen);
	}
}

static uint16_t
oc_add(uint32_t a, uint32_t b)
{
	return rfc1071_fold(a + b);
}

/*
 * Header checksums where an incremental update (RFC 1624) needs its second
 * carry fold: with the words summed as stored, an ECN increase of n needs a
 * checksum of 0xff00 + n - 1 on a little-endian host, n - 1 on a big-endian
 * one. 0xffff is the other spelling of 0x0000 and must be accepted and
 * updated as well.
 */
static void
test_ecn_cksum_edges(void **state)
{
	static const uint16_t targets[] = { 0x0000, 0x0001, 0x0002, 0x0003, 0x0100, 0xfeff,
					    0xff00, 0xff01, 0xff02, 0xff03, 0xfffc, 0xfffd,
					    0xfffe, 0xffff };
	static const uint8_t ecn[][2] = {	/* outer, inner */
		{ FOU_ECN_CE, FOU_ECN_ECT1 }, { FOU_ECN_CE, FOU_ECN_ECT0 },
		{ FOU_ECN_ECT1, FOU_ECN_ECT0 }, { FOU_ECN_NOT_ECT, FOU_ECN_ECT0 },
	};
	unsigned int t, e;

	(void)state;
	for (t = 0; t < RTE_DIM(targets); t++) {
		for (e = 0; e < RTE_DIM(ecn); e++) {
			/* the sum the header needs for a checksum of 0 when 0xffff is asked */
			uint16_t want = targets[t] == 0xffff ? 0 : targets[t];
			struct unit_spec s;
			struct unit_pkt p;
			uint8_t *ip;
			uint32_t olen;
			uint16_t sum, id;

			unit_spec_ipip(&s);
			s.tos = ecn[e][0];
			s.in_tos = ecn[e][1];
			unit_build(&s, &p);
			ip = p.b + p.inner;
			/* pick the IP ID that gives the wanted checksum */
			unit_put16(ip + 10, 0);
			sum = rfc1071_fold(rfc1071_sum(ip, 20, 0));
			id = oc_add(unit_get16(ip + 4), oc_add((uint16_t)~want, (uint16_t)~sum));
			unit_put16(ip + 4, id);
			unit_fix(&p);
			assert_int_equal(unit_get16(ip + 10), want);
			if (targets[t] == 0xffff)
				unit_put16(ip + 10, 0xffff);
			assert_true(unit_cksum_ok(ip, 20));
			olen = unit_expect_out(&p, &mac_nb4, ecn_table[ecn[e][0]][ecn[e][1]], out);
			unit_ctx("inner checksum 0x%04x, outer ECN %u, inner ECN %u", targets[t],
				 ecn[e][0], ecn[e][1]);
			EXPECT_FWD(gw, p.b, p.len, PORT_IPIP, FOU_INNER_IPV4, out, olen);
		}
	}
}

/* --- TTL / hop limit ------------------------------------------------------- */

static void
test_ttl(void **state)
{
	struct unit_spec s;
	struct unit_pkt p;

	(void)state;
	unit_spec_ipip(&s);
	s.in_ttl = 0;
	unit_build(&s, &p);
	EXPECT_LATE_DROP(&p, FOU_DROP_TTL_EXCEEDED);
	s.in_ttl = 1;
	unit_build(&s, &p);
	EXPECT_LATE_DROP(&p, FOU_DROP_TTL_EXCEEDED);
	s.in_ttl = 2;
	unit_build(&s, &p);
	unit_expect_out_same(&p, &mac_nb4, out);
	assert_int_equal(out[14 + 8], 1);
	EXPECT_FWD_TO(&p, &mac_nb4);
	s.in_ttl = 255;
	unit_build(&s, &p);
	EXPECT_FWD_TO(&p, &mac_nb4);
}

static void
test_hop_limit(void **state)
{
	struct unit_spec s;
	struct unit_pkt p;

	(void)state;
	unit_spec_sit(&s);
	s.in_ttl = 0;
	unit_build(&s, &p);
	EXPECT_LATE_DROP(&p, FOU_DROP_TTL_EXCEEDED);
	s.in_ttl = 1;
	unit_build(&s, &p);
	EXPECT_LATE_DROP(&p, FOU_DROP_TTL_EXCEEDED);
	s.in_ttl = 2;
	unit_build(&s, &p);
	unit_expect_out_same(&p, &mac_nb6, out);
	assert_int_equal(out[14 + 7], 1);
	EXPECT_FWD_TO(&p, &mac_nb6);
}

/* --- martians -------------------------------------------------------------- */

static void
test_martian4(void **state)
{
	static const struct {
		uint32_t src, dst;
		unsigned int verdict;
	} cases[] = {
		{ IP4(10, 30, 0, 5), IP4(127, 0, 0, 1), FOU_DROP_INNER_MARTIAN },
		{ IP4(10, 30, 0, 5), IP4(127, 255, 255, 254), FOU_DROP_INNER_MARTIAN },
		{ IP4(10, 30, 0, 5), IP4(0, 0, 0, 0), FOU_DROP_INNER_MARTIAN },
		{ IP4(10, 30, 0, 5), IP4(0, 1, 2, 3), FOU_DROP_INNER_MARTIAN },
		{ IP4(10, 30, 0, 5), IP4(224, 0, 0, 1), FOU_DROP_INNER_MARTIAN },
		{ IP4(10, 30, 0, 5), IP4(239, 255, 255, 255), FOU_DROP_INNER_MARTIAN },
		{ IP4(10, 30, 0, 5), IP4(255, 255, 255, 255), FOU_DROP_INNER_MARTIAN },
		{ IP4(224, 0, 0, 5), IP4(10, 20, 0, 7), FOU_DROP_INNER_MARTIAN },
		{ IP4(239, 1, 1, 1), IP4(10, 20, 0, 7), FOU_DROP_INNER_MARTIAN },
		{ IP4(255, 255, 255, 255), IP4(10, 20, 0, 7), FOU_DROP_INNER_MARTIAN },
		{ IP4(0, 0, 0, 0), IP4(10, 20, 0, 7), FOU_DROP_INNER_MARTIAN },
		{ IP4(0, 255, 0, 1), IP4(10, 20, 0, 7), FOU_DROP_INNER_MARTIAN },
		{ IP4(127, 0, 0, 1), IP4(10, 20, 0, 7), FOU_DROP_INNER_MARTIAN },
		/* just outside the ranges: routed as usual */
		{ IP4(10, 30, 0, 5), IP4(128, 0, 0, 1), FOU_DROP_NO_ROUTE },
		{ IP4(10, 30, 0, 5), IP4(126, 255, 255, 255), FOU_DROP_NO_ROUTE },
		{ IP4(10, 30, 0, 5), IP4(1, 0, 0, 0), FOU_DROP_NO_ROUTE },
		{ IP4(10, 30, 0, 5), IP4(223, 255, 255, 255), FOU_DROP_NO_ROUTE },
		{ IP4(10, 30, 0, 5), IP4(240, 0, 0, 1), FOU_DROP_NO_ROUTE },
		{ IP4(223, 255, 255, 255), IP4(10, 20, 0, 7), UNIT_FWD },
		{ IP4(128, 0, 0, 0), IP4(10, 20, 0, 7), UNIT_FWD },
		{ IP4(1, 0, 0, 0), IP4(10, 20, 0, 7), UNIT_FWD },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct unit_spec s;
		struct unit_pkt p;

		spec_v4(&s, cases[i].dst);
		s.in_src4 = cases[i].src;
		unit_build(&s, &p);
		unit_ctx("inner 0x%08x -> 0x%08x", cases[i].src, cases[i].dst);
		if (cases[i].verdict == UNIT_FWD)
			EXPECT_FWD_TO(&p, &mac_nb4);
		else
			EXPECT_LATE_DROP(&p, cases[i].verdict);
	}
}

static void
test_martian6(void **state)
{
	static const struct {
		const char *src, *dst;
		unsigned int verdict;
	} cases[] = {
		{ "fd00:30::5", "fe80::1", FOU_DROP_INNER_MARTIAN },
		{ "fd00:30::5", "febf:ffff::1", FOU_DROP_INNER_MARTIAN },
		{ "fe80::1", "fd00:20::7", FOU_DROP_INNER_MARTIAN },
		{ "fd00:30::5", "ff02::1", FOU_DROP_INNER_MARTIAN },
		{ "fd00:30::5", "ff0e::1", FOU_DROP_INNER_MARTIAN },
		{ "ff02::1", "fd00:20::7", FOU_DROP_INNER_MARTIAN },
		{ "fd00:30::5", "::1", FOU_DROP_INNER_MARTIAN },
		{ "::1", "fd00:20::7", FOU_DROP_INNER_MARTIAN },
		{ "fd00:30::5", "::", FOU_DROP_INNER_MARTIAN },
		{ "::", "fd00:20::7", FOU_DROP_INNER_MARTIAN },
		/* next to the ranges */
		{ "fd00:30::5", "fec0::1", FOU_DROP_NO_ROUTE },
		{ "fd00:30::5", "fe7f::1", FOU_DROP_NO_ROUTE },
		{ "fd00:30::5", "::2", FOU_DROP_NO_ROUTE },
		{ "fd00:30::5", "1::1", FOU_DROP_NO_ROUTE },
		{ "::2", "fd00:20::7", UNIT_FWD },
		{ "fec0::1", "fd00:20::7", UNIT_FWD },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct unit_spec s;
		struct unit_pkt p;

		spec_v6(&s, cases[i].dst);
		assert_int_equal(inet_pton(AF_INET6, cases[i].src, s.in_src6), 1);
		unit_build(&s, &p);
		unit_ctx("inner %s -> %s", cases[i].src, cases[i].dst);
		if (cases[i].verdict == UNIT_FWD)
			EXPECT_FWD_TO(&p, &mac_nb6);
		else
			EXPECT_LATE_DROP(&p, cases[i].verdict);
	}
}

/* --- routes and neighbours ------------------------------------------------- */

static void
test_routes4(void **state)
{
	static const struct {
		uint32_t dst;
		unsigned int verdict;
		const struct rte_ether_addr *mac;
		const char *neigh;	/* UNIT_HELD: the neighbour it waits for */
		uint16_t port;
	} cases[] = {
		{ IP4(10, 20, 0, 7), UNIT_FWD, &mac_nb4, NULL, 0 },
		{ IP4(10, 20, 255, 255), UNIT_FWD, &mac_nb4, NULL, 0 },
		/* the longer prefix 10.20.5.0/24 goes via .7 */
		{ IP4(10, 20, 5, 9), UNIT_FWD, &mac_nb4_7, NULL, 0 },
		{ IP4(10, 20, 4, 255), UNIT_FWD, &mac_nb4, NULL, 0 },
		{ IP4(10, 20, 6, 0), UNIT_FWD, &mac_nb4, NULL, 0 },
		/* on link: the destination is the neighbour */
		{ IP4(192, 168, 1, 7), UNIT_FWD, &mac_nb4_7, NULL, 0 },
		{ IP4(192, 168, 1, 2), UNIT_FWD, &mac_nb4, NULL, 0 },
		{ IP4(192, 168, 1, 8), UNIT_HELD, NULL, "192.168.1.8", EG_PORT },
		/* via 192.168.1.3, which has no neighbour entry: waits for .3 */
		{ IP4(10, 21, 0, 5), UNIT_HELD, NULL, "192.168.1.3", EG_PORT },
		{ IP4(10, 19, 255, 255), FOU_DROP_NO_ROUTE, NULL, NULL, 0 },
		{ IP4(10, 22, 0, 0), FOU_DROP_NO_ROUTE, NULL, NULL, 0 },
		{ IP4(10, 0, 0, 1), FOU_DROP_INNER_LOCAL, NULL, NULL, 0 },
		{ IP4(192, 168, 1, 1), FOU_DROP_INNER_LOCAL, NULL, NULL, 0 },
		/* back out of the receiving port: no neighbour there yet */
		{ IP4(10, 0, 0, 2), UNIT_HELD, NULL, "10.0.0.2", RX_PORT },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct unit_spec s;
		struct unit_pkt p;

		spec_v4(&s, cases[i].dst);
		unit_build(&s, &p);
		unit_ctx("inner destination 0x%08x", cases[i].dst);
		if (cases[i].verdict == UNIT_FWD)
			EXPECT_FWD_TO(&p, cases[i].mac);
		else if (cases[i].verdict == UNIT_HELD)
			EXPECT_HELD_FOR(&p, cases[i].port, cases[i].neigh);
		else
			EXPECT_LATE_DROP(&p, cases[i].verdict);
	}
}

static void
test_routes6(void **state)
{
	static const struct {
		const char *dst;
		unsigned int verdict;
		const struct rte_ether_addr *mac;
		const char *neigh;	/* UNIT_HELD: the neighbour it waits for */
	} cases[] = {
		{ "fd00:20::7", UNIT_FWD, &mac_nb6, NULL },
		{ "fd00:20:ffff:ffff:ffff:ffff:ffff:ffff", UNIT_FWD, &mac_nb6, NULL },
		{ "fd00:20:5::9", UNIT_FWD, &mac_nb6_7, NULL },
		{ "fd00:20:4:ffff::1", UNIT_FWD, &mac_nb6, NULL },
		{ "fd00:1::7", UNIT_FWD, &mac_nb6_7, NULL },
		{ "fd00:1::8", UNIT_HELD, NULL, "fd00:1::8" },
		{ "fd00:21::5", UNIT_HELD, NULL, "fd00:1::3" },
		{ "fd00:1f:ffff::1", FOU_DROP_NO_ROUTE, NULL, NULL },
		{ "fd00:22::", FOU_DROP_NO_ROUTE, NULL, NULL },
		{ "fd00:1::1", FOU_DROP_INNER_LOCAL, NULL, NULL },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct unit_spec s;
		struct unit_pkt p;

		spec_v6(&s, cases[i].dst);
		unit_build(&s, &p);
		unit_ctx("inner destination %s", cases[i].dst);
		if (cases[i].verdict == UNIT_FWD)
			EXPECT_FWD_TO(&p, cases[i].mac);
		else if (cases[i].verdict == UNIT_HELD)
			EXPECT_HELD_FOR(&p, EG_PORT, cases[i].neigh);
		else
			EXPECT_LATE_DROP(&p, cases[i].verdict);
	}
}

/* TTL is judged after the route: a local or unroutable packet says so. */
static void
test_check_order(void **state)
{
	struct unit_spec s;
	struct unit_pkt p;

	(void)state;
	spec_v4(&s, IP4(10, 99, 0, 1));
	s.in_ttl = 1;
	unit_build(&s, &p);
	EXPECT_LATE_DROP(&p, FOU_DROP_NO_ROUTE);
	spec_v4(&s, IP4(192, 168, 1, 1));
	s.in_ttl = 1;
	unit_build(&s, &p);
	EXPECT_LATE_DROP(&p, FOU_DROP_INNER_LOCAL);
	spec_v4(&s, IP4(10, 21, 0, 1));
	s.in_ttl = 1;
	unit_build(&s, &p);
	EXPECT_LATE_DROP(&p, FOU_DROP_TTL_EXCEEDED);
	/* ECN is part of decapsulation, before any routing decision */
	spec_v4(&s, IP4(127, 0, 0, 1));
	s.tos = FOU_ECN_CE;
	unit_build(&s, &p);
	PKT_DROP(gw, &p, FOU_DROP_ECN_DROP);
}

/* --- Ethernet classification ----------------------------------------------- */

/* Insert a 4-byte tag (tpid, vid) after the MAC addresses. */
static void
push_tag(struct unit_pkt *p, uint16_t tpid, uint16_t vid)
{
	memmove(p->b + 16, p->b + 12, p->len - 12);
	unit_put16(p->b + 12, tpid);
	unit_put16(p->b + 14, vid);
	p->len += 4;
	p->l3 += 4;
	p->l4 += 4;
	p->inner += 4;
}

static void
test_eth_other_host(void **state)
{
	static const struct rte_ether_addr other = { { 0x02, 0, 0, 0, 0, 0x99 } };
	struct unit_spec s;
	struct unit_pkt p;

	(void)state;
	unit_spec_ipip(&s);
	s.eth_dst = other;
	unit_build(&s, &p);
	PKT_DROP(gw, &p, FOU_DROP_ETH_OTHER_HOST);
	/* the MAC of the other port is not ours on this one */
	s.eth_dst = mac_eg;
	unit_build(&s, &p);
	PKT_DROP(gw, &p, FOU_DROP_ETH_OTHER_HOST);
	/* checked before the ethertype */
	s.eth_dst = other;
	unit_build(&s, &p);
	unit_put16(p.b + 12, RTE_ETHER_TYPE_ARP);
	PKT_DROP(gw, &p, FOU_DROP_ETH_OTHER_HOST);
}

/* Broadcast and multicast frames are for everyone, us included. */
static void
test_eth_group_addresses(void **state)
{
	static const struct rte_ether_addr group[] = {
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
		{ { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } },
		{ { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(group); i++) {
		struct unit_spec s;
		struct unit_pkt p;

		unit_spec_ipip(&s);
		s.eth_dst = group[i];
		unit_build(&s, &p);
		unit_ctx("group address %u", i);
		EXPECT_FWD_TO(&p, &mac_nb4);
	}
}

static void
test_eth_types(void **state)
{
	static const struct {
		uint16_t type;
		unsigned int verdict;
	} cases[] = {
		{ RTE_ETHER_TYPE_ARP, FOU_DROP_ARP_BAD },
		/* IPv6 now: the IPv4 bytes have version 4 */
		{ RTE_ETHER_TYPE_IPV6, FOU_DROP_IP_HDR_BAD },
		{ RTE_ETHER_TYPE_LLDP, FOU_DROP_NOT_IP },
		{ 0x0801, FOU_DROP_NOT_IP },
		{ RTE_ETHER_TYPE_MPLS, FOU_DROP_NOT_IP },
		{ 0x0000, FOU_DROP_NOT_IP },
		{ RTE_ETHER_TYPE_RARP, FOU_DROP_NOT_IP },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct unit_pkt p;
		struct unit_spec s;

		unit_spec_ipip(&s);
		unit_build(&s, &p);
		unit_put16(p.b + 12, cases[i].type);
		unit_ctx("ethertype 0x%04x", cases[i].type);
		PKT_DROP(gw, &p, cases[i].verdict);
		/* the same behind an 802.1Q tag */
		unit_build(&s, &p);
		push_tag(&p, RTE_ETHER_TYPE_VLAN, 7);
		unit_put16(p.b + 16, cases[i].type);
		unit_ctx("802.1Q, ethertype 0x%04x", cases[i].type);
		PKT_DROP(gw, &p, cases[i].verdict);
	}
	/* ARP frame of minimum size */
	{
		uint8_t arp[60] = { 0 };

		memcpy(arp, "\xff\xff\xff\xff\xff\xff\x02\x00\x00\x00\x00\x02\x08\x06", 14);
		unit_ctx("ARP request");
		EXPECT_DROP(gw, arp, sizeof(arp), FOU_DROP_ARP_BAD);
		/* ARP is classified on its ethertype alone */
		EXPECT_DROP(gw, arp, 14, FOU_DROP_ARP_BAD);
	}
}

/* Up to two tags (802.1ad outside 802.1Q) are skipped; a third is not. */
static void
test_eth_tags(void **state)
{
	struct unit_spec s;
	struct unit_pkt p, ref;

	(void)state;
	unit_spec_ipip(&s);
	unit_build(&s, &ref);

	p = ref;
	push_tag(&p, RTE_ETHER_TYPE_VLAN, 100);
	push_tag(&p, RTE_ETHER_TYPE_QINQ, 200);
	unit_ctx("802.1ad + 802.1Q");
	EXPECT_FWD(gw, p.b, p.len, PORT_IPIP, FOU_INNER_IPV4, out,
		   unit_expect_out_same(&ref, &mac_nb4, out));
	p = ref;
	push_tag(&p, RTE_ETHER_TYPE_QINQ, 200);
	unit_ctx("802.1ad alone");
	EXPECT_FWD(gw, p.b, p.len, PORT_IPIP, FOU_INNER_IPV4, out,
		   unit_expect_out_same(&ref, &mac_nb4, out));
	p = ref;
	push_tag(&p, RTE_ETHER_TYPE_VLAN, 1);
	push_tag(&p, RTE_ETHER_TYPE_VLAN, 2);
	push_tag(&p, RTE_ETHER_TYPE_VLAN, 3);
	unit_ctx("three tags");
	PKT_DROP(gw, &p, FOU_DROP_NOT_IP);
	/* a second tag cut short */
	p = ref;
	push_tag(&p, RTE_ETHER_TYPE_VLAN, 100);
	push_tag(&p, RTE_ETHER_TYPE_QINQ, 200);
	p.len = 20;
	unit_ctx("second tag cut");
	PKT_DROP(gw, &p, FOU_DROP_ETH_TRUNCATED);
	p.len = 22;
	unit_ctx("two tags, no IPv4");
	PKT_DROP(gw, &p, FOU_DROP_IP_TRUNCATED);
}

static int
setup(void **state)
{
	(void)state;
	gw = unit_gw_std();
	UNIT_APPLY(gw, "route", "10.20.5.0/24,dev=1,via=192.168.1.7");
	UNIT_APPLY(gw, "route", "fd00:20:5::/48,dev=1,via=fd00:1::7");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	fou_gw_free(gw);
	gw = NULL;
	return 0;
}

/* --- default routes (a gateway of their own) ------------------------------- */

static int
setup_default(void **state)
{
	(void)state;
	gw = unit_gw_std();
	UNIT_APPLY(gw, "route", "0.0.0.0/0,dev=1,via=192.168.1.7");
	UNIT_APPLY(gw, "route", "::/0,dev=1,via=fd00:1::7");
	return 0;
}

static void
test_default_route(void **state)
{
	static const uint32_t dst4[] = { IP4(8, 8, 8, 8), IP4(10, 99, 0, 1), IP4(1, 0, 0, 0),
					 IP4(223, 255, 255, 254) };
	static const char *const dst6[] = { "2001:db8::1", "fd00:99::1", "8000::" };
	struct unit_spec s;
	struct unit_pkt p;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(dst4); i++) {
		spec_v4(&s, dst4[i]);
		unit_build(&s, &p);
		unit_ctx("0x%08x by the default route", dst4[i]);
		EXPECT_FWD_TO(&p, &mac_nb4_7);
	}
	for (i = 0; i < RTE_DIM(dst6); i++) {
		spec_v6(&s, dst6[i]);
		unit_build(&s, &p);
		unit_ctx("%s by the default route", dst6[i]);
		EXPECT_FWD_TO(&p, &mac_nb6_7);
	}
	/* more specific routes still win */
	spec_v4(&s, IP4(10, 20, 0, 7));
	unit_build(&s, &p);
	unit_ctx("10.20.0.7");
	EXPECT_FWD_TO(&p, &mac_nb4);
	spec_v6(&s, "fd00:20::7");
	unit_build(&s, &p);
	unit_ctx("fd00:20::7");
	EXPECT_FWD_TO(&p, &mac_nb6);
	/* martians are not routed by it */
	spec_v4(&s, IP4(127, 0, 0, 1));
	unit_build(&s, &p);
	EXPECT_LATE_DROP(&p, FOU_DROP_INNER_MARTIAN);
}

/*
 * Local stays local: an inner UDP datagram to 10.0.0.1 is delivered, finds
 * no listener and, now that the default route leads back to 10.30.0.5, is
 * answered with a port unreachable from 10.0.0.1 (without it, test_routes4
 * sees it dropped as inner_local).
 */
static void
test_default_route_local(void **state)
{
	struct unit_lcore u = { 0 };
	struct rte_mbuf *m;
	struct unit_spec s;
	struct unit_pkt p;
	const uint8_t *b;
	uint16_t port;

	(void)state;
	spec_v4(&s, IP4(10, 0, 0, 1));
	unit_build(&s, &p);
	m = unit_mbuf(p.b, p.len);
	unit_lcore_begin(&u, gw, 0);
	assert_int_equal(unit_rx(&u, RX_PORT, &m, 1, &port), 1);
	assert_int_equal(port, EG_PORT);
	assert_int_equal(u.st.decap_inner[FOU_INNER_IPV4], 1);
	assert_int_equal(u.st.icmp_out[FOU_ICMP_PORT_UNREACH], 1);
	b = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_memory_equal(b, &mac_nb4_7, 6);
	assert_int_equal(unit_get32(b + 14 + 12), IP4(10, 0, 0, 1));
	assert_int_equal(unit_get32(b + 14 + 16), IP4(10, 30, 0, 5));
	assert_int_equal(b[14 + 20], 3);
	assert_int_equal(b[14 + 21], 3);
	assert_memory_equal(b + 14 + 28, p.b + p.inner, p.inner_tot);
	assert_true(unit_cksum_ok(b + 14 + 20, rte_pktmbuf_pkt_len(m) - 14 - 20));
	rte_pktmbuf_free(m);
	unit_lcore_end(&u);
}

/*
 * The default route does not make other outer destinations ours: FOU to
 * another host is routed by it as a plain IPv4 packet, not decapsulated.
 */
static void
test_default_route_not_local(void **state)
{
	struct unit_spec s;
	struct unit_pkt p;

	(void)state;
	unit_spec_ipip(&s);
	s.dst = IP4(8, 8, 8, 8);
	unit_build(&s, &p);
	UNIT_RUN(gw, unit_mbuf(p.b, p.len), .verdict = UNIT_FWD, .decap_inner = -1, .out = out,
		 .out_len = unit_expect_routed(p.b + p.l3, p.len - p.l3, &mac_nb4_7, out),
		 .out_port = EG_PORT);
}

/* --- MTU (a gateway of its own) --------------------------------------------- */

static int
setup_mtu(void **state)
{
	(void)state;
	gw = unit_gw_std();
	UNIT_APPLY(gw, "link", "1,mtu=100");
	UNIT_APPLY(gw, "link", "0,mtu=68");	/* the receiving port's MTU plays no part */
	return 0;
}

static void
test_mtu(void **state)
{
	struct rte_ether_addr mac;
	struct unit_spec s;
	struct unit_pkt p;
	uint16_t mtu;

	(void)state;
	assert_int_equal(fou_iface_get(gw, EG_PORT, &mac, &mtu), 0);
	assert_int_equal(mtu, 100);
	assert_true(rte_is_same_ether_addr(&mac, &mac_eg));

	unit_spec_ipip(&s);
	s.payload = 72;		/* 20 + 8 + 72 = the MTU */
	unit_build(&s, &p);
	assert_int_equal(p.inner_tot, 100);
	EXPECT_FWD_TO(&p, &mac_nb4);
	s.payload = 73;
	unit_build(&s, &p);
	EXPECT_LATE_DROP(&p, FOU_DROP_MTU_EXCEEDED);
	/* judged on the inner packet, not on the padded tunnel payload */
	s.payload = 72;
	s.trailer = 40;
	unit_build(&s, &p);
	EXPECT_FWD_TO(&p, &mac_nb4);

	unit_spec_sit(&s);
	s.payload = 52;		/* 40 + 8 + 52 */
	unit_build(&s, &p);
	assert_int_equal(p.inner_tot, 100);
	EXPECT_FWD_TO(&p, &mac_nb6);
	s.payload = 53;
	unit_build(&s, &p);
	EXPECT_LATE_DROP(&p, FOU_DROP_MTU_EXCEEDED);

	/* too big and TTL 1: the TTL is reported */
	unit_spec_ipip(&s);
	s.payload = 500;
	s.in_ttl = 1;
	unit_build(&s, &p);
	EXPECT_LATE_DROP(&p, FOU_DROP_TTL_EXCEEDED);
}

/* --- tunnel receive matching (a gateway of its own) ------------------------ */

static int
setup_tunnels(void **state)
{
	(void)state;
	gw = unit_gw_std();
	UNIT_APPLY(gw, "tunnel", "tun1,type=ipip,local=10.0.0.1,remote=10.0.0.2,encap-dport=5555");
	UNIT_APPLY(gw, "tunnel", "gre1,type=gre,local=10.0.0.1,remote=10.0.0.2,key=16909060,"
		   "encap-dport=5556");
	return 0;
}

/* The tunnel's received-packet counters, from fou_tunnel_list(). */
static uint64_t
tunnel_rx(const char *name)
{
	struct fou_tunnel_info ti[8];
	unsigned int n = fou_tunnel_list(gw, ti, RTE_DIM(ti)), i;

	for (i = 0; i < n; i++)
		if (strcmp(ti[i].conf.name, name) == 0)
			return ti[i].rx_packets;
	fail_msg("no tunnel %s", name);
	return 0;
}

/* GRE over FOU port 5556 carrying IPv4, forwarded to 192.168.1.2. */
#define EXPECT_GRE_FWD(p) \
	UNIT_RUN(gw, unit_mbuf((p)->b, (p)->len), .verdict = UNIT_FWD, .decap_port = PORT_GRE, \
		 .decap_inner = FOU_INNER_IPV4, .out = out, \
		 .out_len = unit_expect_out_same((p), &mac_nb4, out), .out_port = EG_PORT)

/* ip_tunnel_lookup: once a type has tunnels, only their endpoints (and the
 * GRE key) are decapsulated; a type without tunnels is taken from anyone. */
static void
test_tunnel_rx_match(void **state)
{
	struct unit_spec s;
	struct unit_pkt p;

	(void)state;
	unit_spec_ipip(&s);
	unit_build(&s, &p);
	EXPECT_FWD_TO(&p, &mac_nb4);
	assert_int_equal(tunnel_rx("tun1"), 1);
	s.src = IP4(10, 0, 0, 3);
	unit_build(&s, &p);
	unit_ctx("ipip from 10.0.0.3, not tun1's remote");
	PKT_DROP(gw, &p, FOU_DROP_NO_TUNNEL);
	assert_int_equal(tunnel_rx("tun1"), 1);

	/* GRE: the key must be gre1's (0x01020304), and present */
	unit_spec_gre4(&s, FOU_GRE_K);
	unit_build(&s, &p);
	EXPECT_GRE_FWD(&p);
	assert_int_equal(tunnel_rx("gre1"), 1);
	unit_spec_gre4(&s, FOU_GRE_K | FOU_GRE_S);
	unit_build(&s, &p);
	EXPECT_GRE_FWD(&p);
	assert_int_equal(tunnel_rx("gre1"), 2);
	/* ip_tunnel_rcv: a checksum gre1 has not been configured with */
	unit_spec_gre4(&s, FOU_GRE_C | FOU_GRE_K | FOU_GRE_S);
	unit_build(&s, &p);
	unit_ctx("GRE with a checksum, gre1 without csum");
	PKT_DROP(gw, &p, FOU_DROP_GRE_CSUM_MISMATCH);
	assert_int_equal(tunnel_rx("gre1"), 2);
	s.gre_key = 0x01020305;
	unit_build(&s, &p);
	unit_ctx("GRE with another key");
	PKT_DROP(gw, &p, FOU_DROP_NO_TUNNEL);
	unit_spec_gre4(&s, 0);
	unit_build(&s, &p);
	unit_ctx("GRE without a key");
	PKT_DROP(gw, &p, FOU_DROP_NO_TUNNEL);
	assert_int_equal(tunnel_rx("gre1"), 2);

	/* gre2 (key 7) has csum: its packets must carry one */
	UNIT_APPLY(gw, "tunnel", "gre2,type=gre,local=10.0.0.1,remote=10.0.0.2,key=7,csum,"
		   "encap-dport=5556");
	unit_spec_gre4(&s, FOU_GRE_C | FOU_GRE_K);
	s.gre_key = 7;
	unit_build(&s, &p);
	EXPECT_GRE_FWD(&p);
	assert_int_equal(tunnel_rx("gre2"), 1);
	unit_spec_gre4(&s, FOU_GRE_K);
	s.gre_key = 7;
	unit_build(&s, &p);
	unit_ctx("GRE without a checksum, gre2 with csum");
	PKT_DROP(gw, &p, FOU_DROP_GRE_CSUM_MISMATCH);
	assert_int_equal(tunnel_rx("gre2"), 1);

	/* no sit tunnel: sit over FOU comes from anyone */
	unit_spec_sit(&s);
	s.src = IP4(10, 0, 0, 3);
	unit_build(&s, &p);
	EXPECT_FWD_TO(&p, &mac_nb6);
}

/* ip_forward takes PACKET_HOST only: a routable packet in a broadcast or
 * multicast frame is not forwarded (it is for every host on the link). */
static void
test_l2_group_not_forwarded(void **state)
{
	static const struct rte_ether_addr group[] = {
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
		{ { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 } },
		{ { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } },
	};
	struct unit_spec s;
	struct unit_pkt p;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(group); i++) {
		unit_spec_ipip(&s);
		s.dst = IP4(192, 168, 1, 2);	/* routed, with a neighbour */
		s.eth_dst = group[i];
		unit_build(&s, &p);
		unit_ctx("group frame %u to a routed address", i);
		PKT_DROP(gw, &p, FOU_DROP_BCAST_MCAST);
		/* to us, it is delivered: FOU in a broadcast frame is decapsulated */
		unit_spec_ipip(&s);
		s.eth_dst = group[i];
		unit_build(&s, &p);
		unit_ctx("group frame %u to 10.0.0.1", i);
		EXPECT_FWD_TO(&p, &mac_nb4);
	}
}

/* fib_validate_source for the inner packet: our own address or a
 * connected broadcast address as the source is a martian. */
static void
test_inner_source_ours(void **state)
{
	static const uint32_t src[] = {
		IP4(192, 168, 1, 1), IP4(10, 0, 0, 1), IP4(192, 168, 1, 255), IP4(10, 0, 0, 255),
	};
	struct unit_spec s;
	struct unit_pkt p;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(src); i++) {
		unit_spec_ipip(&s);
		s.in_src4 = src[i];
		unit_build(&s, &p);
		unit_ctx("inner source 0x%08x", src[i]);
		EXPECT_LATE_DROP(&p, FOU_DROP_INNER_MARTIAN);
	}
}

/* An ICMP error's source is the egress port's address on the network of
 * its next hop (the connected route's preferred source), not merely the
 * port's first address. */
static void
test_icmp_source_network(void **state)
{
	struct unit_lcore u = { 0 };
	struct rte_mbuf *m;
	struct unit_spec s;
	struct unit_pkt p;
	uint16_t port;
	const uint8_t *b;

	(void)state;
	UNIT_APPLY(gw, "addr", "1,192.168.2.1/24");
	UNIT_APPLY(gw, "neigh", "192.168.2.9,dev=1,lladdr=02:00:00:00:02:09");
	unit_spec_ipip(&s);
	s.in_src4 = IP4(192, 168, 2, 9);
	s.in_ttl = 1;
	unit_build(&s, &p);
	m = unit_mbuf(p.b, p.len);
	unit_lcore_begin(&u, gw, 0);
	assert_int_equal(unit_rx(&u, RX_PORT, &m, 1, &port), 1);
	assert_int_equal(port, EG_PORT);
	assert_int_equal(u.st.icmp_out[FOU_ICMP_TIME_EXCEEDED], 1);
	b = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_int_equal(unit_get32(b + 14 + 12), IP4(192, 168, 2, 1));	/* source */
	assert_int_equal(unit_get32(b + 14 + 16), IP4(192, 168, 2, 9));	/* destination */
	assert_int_equal(b[14 + 20], 11);					/* time exceeded */
	rte_pktmbuf_free(m);
	/* toward 192.168.1.0/24 it is the first address, 192.168.1.1 */
	s.in_src4 = IP4(192, 168, 1, 2);
	unit_build(&s, &p);
	m = unit_mbuf(p.b, p.len);
	assert_int_equal(unit_rx(&u, RX_PORT, &m, 1, &port), 1);
	b = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_int_equal(unit_get32(b + 14 + 12), IP4(192, 168, 1, 1));
	rte_pktmbuf_free(m);
	unit_lcore_end(&u);
}

/* --- ARP (fou_arp.c): answered on the worker, heard by the control thread --- */

static const struct rte_ether_addr mac_bcast = { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };

/*
 * An ARP frame as a host sends it: Ethernet to dst from sha, op from
 * sha/sip to tha/tip, padded to len (>= 42) with non-zero bytes so that a
 * reply that kept the padding shows. Returns the frame's length.
 */
static uint32_t
arp_frame(uint8_t *b, const struct rte_ether_addr *dst, uint16_t op,
	  const struct rte_ether_addr *sha, uint32_t sip, const struct rte_ether_addr *tha,
	  uint32_t tip, uint32_t len)
{
	memset(b, 0xa5, len);
	memcpy(b, dst->addr_bytes, 6);
	memcpy(b + 6, sha->addr_bytes, 6);
	unit_put16(b + 12, RTE_ETHER_TYPE_ARP);
	unit_put16(b + 14, 1);				/* Ethernet */
	unit_put16(b + 16, RTE_ETHER_TYPE_IPV4);
	b[18] = 6;
	b[19] = 4;
	unit_put16(b + 20, op);
	memcpy(b + 22, sha->addr_bytes, 6);
	unit_put32(b + 28, sip);
	memcpy(b + 32, tha->addr_bytes, 6);
	unit_put32(b + 38, tip);
	return len;
}

/* The event of the last unit_run(): kind, flags, port 0, sender mac/ip. */
static void
expect_event(unsigned int kind, unsigned int flags, const struct rte_ether_addr *mac,
	     uint32_t ip)
{
	const struct unit_ev *ev = &unit_events[0];

	assert_int_equal(unit_nb_events, 1);
	assert_int_equal(ev->kind, kind);
	assert_int_equal(ev->flags, flags);
	assert_int_equal(ev->port, RX_PORT);
	assert_memory_equal(ev->mac.addr_bytes, mac->addr_bytes, 6);
	assert_int_equal(ev->ip.family, AF_INET);
	assert_int_equal(rte_be_to_cpu_32(ev->ip.v4), ip);
}

/*
 * A request for the receiving port's address is turned around into the
 * reply arp_process sends: from the port's MAC, sender and target swapped,
 * the frame's padding gone (42 bytes, the port pads), 802.1Q tags kept.
 * What it says about its sender goes to the control thread (a request for
 * us: the table creates its entry).
 */
static void
test_arp_answered(void **state)
{
	static const struct rte_ether_addr odd_tha = { { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66 } };
	uint8_t b[64], exp[64];
	uint32_t len, elen;

	(void)state;
	elen = arp_frame(exp, &mac_peer, RTE_ARP_OP_REPLY, &mac_rx, IP4(10, 0, 0, 1), &mac_peer,
			 IP4(10, 0, 0, 2), 42);

	unit_ctx("broadcast request for 10.0.0.1");
	len = arp_frame(b, &mac_bcast, RTE_ARP_OP_REQUEST, &mac_peer, IP4(10, 0, 0, 2), &mac_zero,
			IP4(10, 0, 0, 1), 60);
	UNIT_RUN(gw, unit_mbuf(b, len), .verdict = UNIT_FWD, .decap_inner = -1, .out = exp,
		 .out_len = elen, .out_port = RX_PORT, .events = 1,
		 .local = { [FOU_LOCAL_ARP_REQ_IN] = 1, [FOU_LOCAL_ARP_REP_OUT] = 1 });
	expect_event(UNIT_EV_SOLICIT, 0, &mac_peer, IP4(10, 0, 0, 2));

	/* unicast (a host checking its cache), whatever its target MAC says */
	unit_ctx("unicast request for 10.0.0.1");
	len = arp_frame(b, &mac_rx, RTE_ARP_OP_REQUEST, &mac_peer, IP4(10, 0, 0, 2), &odd_tha,
			IP4(10, 0, 0, 1), 42);
	UNIT_RUN(gw, unit_mbuf(b, len), .verdict = UNIT_FWD, .decap_inner = -1, .out = exp,
		 .out_len = elen, .out_port = RX_PORT, .events = 1,
		 .local = { [FOU_LOCAL_ARP_REQ_IN] = 1, [FOU_LOCAL_ARP_REP_OUT] = 1 });

	/* a duplicate address probe (RFC 5227, sender 0.0.0.0): answered to
	 * the prober's MAC with target 0.0.0.0, as Linux; nothing learnt */
	unit_ctx("address probe for 10.0.0.1");
	len = arp_frame(b, &mac_bcast, RTE_ARP_OP_REQUEST, &mac_peer, 0, &mac_zero,
			IP4(10, 0, 0, 1), 60);
	unit_put32(exp + 38, 0);
	UNIT_RUN(gw, unit_mbuf(b, len), .verdict = UNIT_FWD, .decap_inner = -1, .out = exp,
		 .out_len = elen, .out_port = RX_PORT, .events = 0,
		 .local = { [FOU_LOCAL_ARP_REQ_IN] = 1, [FOU_LOCAL_ARP_REP_OUT] = 1 });
	unit_put32(exp + 38, IP4(10, 0, 0, 2));

	/* behind an 802.1Q tag: the reply keeps it */
	unit_ctx("802.1Q request for 10.0.0.1");
	len = arp_frame(b, &mac_bcast, RTE_ARP_OP_REQUEST, &mac_peer, IP4(10, 0, 0, 2), &mac_zero,
			IP4(10, 0, 0, 1), 60);
	memmove(b + 16, b + 12, 46);
	unit_put16(b + 12, RTE_ETHER_TYPE_VLAN);
	unit_put16(b + 14, 5);
	memmove(exp + 16, exp + 12, elen - 12);
	unit_put16(exp + 12, RTE_ETHER_TYPE_VLAN);
	unit_put16(exp + 14, 5);
	UNIT_RUN(gw, unit_mbuf(b, len), .verdict = UNIT_FWD, .decap_inner = -1, .out = exp,
		 .out_len = elen + 4, .out_port = RX_PORT, .events = 1,
		 .local = { [FOU_LOCAL_ARP_REQ_IN] = 1, [FOU_LOCAL_ARP_REP_OUT] = 1 });
}

/*
 * Frames that get no answer: requests for another address (also the other
 * port's: only the receiving port answers, arp_ignore=1), announcements
 * and replies (heard: the table refreshes entries it has), and requests
 * for us from a sender the table must not learn (our own address, a
 * group MAC, a martian): neither answered nor learnt.
 */
static void
test_arp_not_answered(void **state)
{
	static const struct rte_ether_addr mcast = { { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } };
	static const struct {
		const char *what;
		const struct rte_ether_addr *dst;
		uint16_t op;
		const struct rte_ether_addr *sha;
		uint32_t sip, tip;
		unsigned int verdict, counter;
		int ev_kind;		/* -1: no event */
		unsigned int ev_flags;
	} cases[] = {
		{ "request for 10.0.0.9", &mac_bcast, RTE_ARP_OP_REQUEST, &mac_peer,
		  IP4(10, 0, 0, 2), IP4(10, 0, 0, 9), FOU_DROP_ARP_NOT_OURS, FOU_LOCAL_MAX,
		  UNIT_EV_OTHER, 0 },
		{ "request for the other port's 192.168.1.1", &mac_bcast, RTE_ARP_OP_REQUEST,
		  &mac_peer, IP4(10, 0, 0, 2), IP4(192, 168, 1, 1), FOU_DROP_ARP_NOT_OURS,
		  FOU_LOCAL_MAX, UNIT_EV_OTHER, 0 },
		{ "gratuitous request", &mac_bcast, RTE_ARP_OP_REQUEST, &mac_peer,
		  IP4(10, 0, 0, 2), IP4(10, 0, 0, 2), FOU_DROP_ARP_NOT_OURS, FOU_LOCAL_MAX,
		  UNIT_EV_OTHER, UNIT_EV_F_OVERRIDE },
		{ "reply to us", &mac_rx, RTE_ARP_OP_REPLY, &mac_peer, IP4(10, 0, 0, 2),
		  IP4(10, 0, 0, 1), UNIT_CONSUMED, FOU_LOCAL_ARP_REP_IN, UNIT_EV_ADVERT,
		  UNIT_EV_F_CONFIRM },
		{ "gratuitous reply", &mac_bcast, RTE_ARP_OP_REPLY, &mac_peer, IP4(10, 0, 0, 2),
		  IP4(10, 0, 0, 2), UNIT_CONSUMED, FOU_LOCAL_ARP_REP_IN, UNIT_EV_ADVERT,
		  UNIT_EV_F_OVERRIDE },
		{ "reply from our own address", &mac_rx, RTE_ARP_OP_REPLY, &mac_peer,
		  IP4(10, 0, 0, 1), IP4(10, 0, 0, 1), UNIT_CONSUMED, FOU_LOCAL_ARP_REP_IN,
		  -1, 0 },
		{ "request for us from our own address", &mac_bcast, RTE_ARP_OP_REQUEST,
		  &mac_peer, IP4(10, 0, 0, 1), IP4(10, 0, 0, 1), UNIT_CONSUMED,
		  FOU_LOCAL_ARP_REQ_IN, -1, 0 },
		{ "request for us from the other port's address", &mac_bcast,
		  RTE_ARP_OP_REQUEST, &mac_peer, IP4(192, 168, 1, 1), IP4(10, 0, 0, 1),
		  UNIT_CONSUMED, FOU_LOCAL_ARP_REQ_IN, -1, 0 },
		{ "request for us from a group MAC", &mac_bcast, RTE_ARP_OP_REQUEST, &mcast,
		  IP4(10, 0, 0, 2), IP4(10, 0, 0, 1), UNIT_CONSUMED, FOU_LOCAL_ARP_REQ_IN,
		  -1, 0 },
		{ "request for us from 127.0.0.1", &mac_bcast, RTE_ARP_OP_REQUEST, &mac_peer,
		  IP4(127, 0, 0, 1), IP4(10, 0, 0, 1), UNIT_CONSUMED, FOU_LOCAL_ARP_REQ_IN,
		  -1, 0 },
		{ "address probe from a zero MAC", &mac_bcast, RTE_ARP_OP_REQUEST, &mac_zero, 0,
		  IP4(10, 0, 0, 1), UNIT_CONSUMED, FOU_LOCAL_ARP_REQ_IN, -1, 0 },
	};
	uint8_t b[64];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct unit_exp e = { .verdict = cases[i].verdict, .decap_inner = -1,
				      .events = cases[i].ev_kind >= 0 };
		uint32_t len;

		if (cases[i].counter != FOU_LOCAL_MAX)
			e.local[cases[i].counter] = 1;
		len = arp_frame(b, cases[i].dst, cases[i].op, cases[i].sha, cases[i].sip,
				&mac_zero, cases[i].tip, 60);
		unit_ctx("%s", cases[i].what);
		unit_run(gw, unit_mbuf(b, len), &e, __FILE__, __LINE__);
		if (cases[i].ev_kind >= 0)
			expect_event((unsigned int)cases[i].ev_kind, cases[i].ev_flags,
				     cases[i].sha, cases[i].sip);
	}
}

/* Malformed ARP, or about an address no ARP is about: arp_bad, unheard. */
static void
test_arp_bad(void **state)
{
	static const struct {
		const char *what;
		unsigned int off, size;		/* the field changed, 1 or 2 bytes */
		uint16_t value;
	} fields[] = {
		{ "hardware type IEEE 802", 14, 2, 6 },
		{ "protocol IPv6", 16, 2, RTE_ETHER_TYPE_IPV6 },
		{ "hardware length 8", 18, 1, 8 },
		{ "protocol length 16", 19, 1, 16 },
		{ "opcode 3 (RARP)", 20, 2, 3 },
		{ "opcode 0", 20, 2, 0 },
	};
	static const uint32_t targets[] = {
		IP4(255, 255, 255, 255), IP4(224, 0, 0, 1), IP4(127, 0, 0, 1),
	};
	uint8_t b[64];
	uint32_t len;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(fields); i++) {
		len = arp_frame(b, &mac_bcast, RTE_ARP_OP_REQUEST, &mac_peer, IP4(10, 0, 0, 2),
				&mac_zero, IP4(10, 0, 0, 1), 60);
		if (fields[i].size == 1)
			b[fields[i].off] = (uint8_t)fields[i].value;
		else
			unit_put16(b + fields[i].off, fields[i].value);
		unit_ctx("%s", fields[i].what);
		EXPECT_DROP(gw, b, len, FOU_DROP_ARP_BAD);
	}
	for (i = 0; i < RTE_DIM(targets); i++) {
		len = arp_frame(b, &mac_bcast, RTE_ARP_OP_REQUEST, &mac_peer, IP4(10, 0, 0, 2),
				&mac_zero, targets[i], 60);
		unit_ctx("target 0x%08x", targets[i]);
		EXPECT_DROP(gw, b, len, FOU_DROP_ARP_BAD);
	}
	/* one byte short of the 28-byte ARP header */
	len = arp_frame(b, &mac_bcast, RTE_ARP_OP_REQUEST, &mac_peer, IP4(10, 0, 0, 2), &mac_zero,
			IP4(10, 0, 0, 1), 42);
	unit_ctx("41 bytes");
	EXPECT_DROP(gw, b, len - 1, FOU_DROP_ARP_BAD);
}

/*
 * --- the neighbour table (fou_neigh.c) on the control context ---------------
 *
 * A gateway of its own with a control context and a started worker context
 * on this thread: fou_neigh_service() runs at times the test chooses (its
 * now), what it sends leaves through the worker's fou_lcore_idle() and is
 * collected here. No control operation that waits for a grace period runs
 * while the worker is started (this thread is the reader it would wait for).
 */
static struct fou_gw *ngw;
static struct fou_lcore *nctl;
static struct unit_lcore nu;
static struct unit_frame nsent[128];
static unsigned int nb_nsent;
static uint64_t nt0, nhz;

static void
emit_keep(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports, uint16_t n)
{
	uint16_t i;

	(void)ctx;
	for (i = 0; i < n; i++) {
		if (nb_nsent < RTE_DIM(nsent))
			unit_frame_copy(pkts[i], ports[i], &nsent[nb_nsent]);
		nb_nsent++;
		rte_pktmbuf_free(pkts[i]);
	}
}

/* The service at t0 + ms, then what the worker sends: how many frames. */
static unsigned int
service_at(uint64_t ms)
{
	nb_nsent = 0;
	fou_neigh_service(nctl, nt0 + nhz / 1000 * ms);
	fou_lcore_idle(nu.lc, rte_rdtsc(), emit_keep, NULL);
	assert_true(nb_nsent <= RTE_DIM(nsent));
	return nb_nsent;
}

/* An ARP request the gateway sends: from port's MAC and sip, for tip. */
static void
expect_arp_request(const struct unit_frame *f, uint16_t port, uint32_t sip, uint32_t tip)
{
	uint8_t exp[64];

	arp_frame(exp, &mac_bcast, RTE_ARP_OP_REQUEST, port == EG_PORT ? &mac_eg : &mac_rx, sip,
		  &mac_zero, tip, 42);
	assert_int_equal(f->port, port);
	assert_int_equal(f->len, 42);
	assert_memory_equal(f->b, exp, 42);
}

/* The neighbour ip on port 1 as /fou/neighs lists it; false: none. */
static bool
neigh_find(uint32_t ip, struct fou_neigh_info *out)
{
	struct fou_neigh_info ni[64];
	unsigned int n = fou_neigh_list(ngw, ni, RTE_DIM(ni), 0), i;

	assert_true(n <= RTE_DIM(ni));
	for (i = 0; i < n; i++) {
		if (ni[i].port == EG_PORT && ni[i].ip.family == AF_INET &&
		    rte_be_to_cpu_32(ni[i].ip.v4) == ip) {
			*out = ni[i];
			return true;
		}
	}
	return false;
}

/* A packet from the FOU peer whose inner packet goes to dst, from src. */
static void
neigh_pkt(struct unit_pkt *p, uint32_t src, uint32_t dst)
{
	struct unit_spec s;

	unit_spec_ipip(&s);
	s.in_src4 = src;
	s.in_dst4 = dst;
	unit_build(&s, p);
}

/* ARP from port 1's network to the gateway: what the worker made of it. */
static uint16_t
arp_in(uint16_t op, const struct rte_ether_addr *dst, const struct rte_ether_addr *sha,
       uint32_t sip, uint32_t tip)
{
	uint8_t b[64];
	struct rte_mbuf *m;
	uint16_t port, n;

	arp_frame(b, dst, op, sha, sip, &mac_zero, tip, 60);
	m = unit_mbuf(b, 60);
	n = unit_rx(&nu, EG_PORT, &m, 1, &port);
	if (n == 1)
		rte_pktmbuf_free(m);
	return n;
}

static int
setup_neigh(void **state)
{
	const struct fou_lcore_conf c = { .direct = unit_pool, .indirect = unit_pool,
					  .socket_id = SOCKET_ID_ANY };
	struct fou_err err = { "" };

	(void)state;
	ngw = unit_gw_std();
	nctl = fou_lcore_create(ngw, FOU_LCORE_CONTROL, &c, &err);
	assert_non_null(nctl);
	unit_lcore_begin(&nu, ngw, 0);
	assert_int_equal(fou_lcore_start(nu.lc), 0);
	nhz = rte_get_tsc_hz();
	nt0 = rte_rdtsc();
	return 0;
}

static int
teardown_neigh(void **state)
{
	struct fou_gw *gw_ = ngw;

	unit_lcore_end(&nu);
	fou_neigh_stop(ngw);
	fou_lcore_free(nctl);
	nctl = NULL;
	ngw = NULL;
	return unit_test_teardown_gw(state, gw_);
}

/*
 * The start: a gratuitous ARP request for each IPv4 address from its port
 * (sender = target = the address, as inetdev announces), an unsolicited
 * NA for the IPv6 one; once.
 */
static void
test_neigh_announce(void **state)
{
	const struct fou_lcore_stats *ctl = unit_ctl_stats(ngw);

	(void)state;
	assert_int_equal(service_at(0), 3);
	expect_arp_request(&nsent[0], RX_PORT, IP4(10, 0, 0, 1), IP4(10, 0, 0, 1));
	expect_arp_request(&nsent[1], EG_PORT, IP4(192, 168, 1, 1), IP4(192, 168, 1, 1));
	/* to all nodes, ICMPv6 type 136 (the ND side has tests of its own) */
	assert_int_equal(nsent[2].port, EG_PORT);
	assert_memory_equal(nsent[2].b, "\x33\x33\x00\x00\x00\x01", 6);
	assert_int_equal(unit_get16(nsent[2].b + 12), RTE_ETHER_TYPE_IPV6);
	assert_int_equal(nsent[2].b[14 + 40], 136);
	assert_int_equal(ctl->local[FOU_LOCAL_ARP_REQ_OUT], 2);
	assert_int_equal(ctl->local[FOU_LOCAL_NA_OUT], 1);
	assert_int_equal(ctl->local[FOU_LOCAL_ORIGINATED], 3);
	assert_int_equal(service_at(1), 0);
}

/*
 * Resolution, as Linux: packets for 10.21/16 (via 192.168.1.3) and for the
 * on-link 192.168.1.8 wait; one broadcast request each at once, then one a
 * second while unanswered. .3 answers: its packets leave in order to its
 * MAC, and later ones go straight out. .8 never answers: the third request
 * goes at 2 s, at 3 s it is FAILED and what waited is dropped.
 */
static void
test_neigh_resolve(void **state)
{
	static const struct rte_ether_addr mac3 = { { 0x02, 0, 0, 0, 0x01, 0x33 } };
	const struct fou_lcore_stats *ctl = unit_ctl_stats(ngw);
	struct rte_mbuf *m[4];
	struct unit_frame got[4];
	struct unit_pkt p[4];
	struct fou_neigh_info ni;
	uint8_t exp[UNIT_PKT_MAX];
	unsigned int i;

	(void)state;
	service_at(0);		/* the announcements */
	for (i = 0; i < 3; i++)
		neigh_pkt(&p[i], IP4(10, 30, 0, 5 + i), IP4(10, 21, 0, 5));
	neigh_pkt(&p[3], IP4(10, 30, 0, 9), IP4(192, 168, 1, 8));
	for (i = 0; i < 4; i++)
		m[i] = unit_mbuf(p[i].b, p[i].len);
	assert_int_equal(unit_burst(&nu, m, 4, got), 0);
	assert_int_equal(nu.st.local[FOU_LOCAL_NEIGH_QUEUED], 4);
	assert_int_equal(fou_stats_drops(&nu.st), 0);

	assert_int_equal(service_at(2), 2);
	expect_arp_request(&nsent[0], EG_PORT, IP4(192, 168, 1, 1), IP4(192, 168, 1, 3));
	expect_arp_request(&nsent[1], EG_PORT, IP4(192, 168, 1, 1), IP4(192, 168, 1, 8));
	assert_true(neigh_find(IP4(192, 168, 1, 3), &ni));
	assert_string_equal(fou_neigh_state_name(ni.state), "INCOMPLETE");
	assert_int_equal(ni.queued, 3);
	assert_int_equal(ni.probes, 1);
	assert_true(neigh_find(IP4(192, 168, 1, 8), &ni));
	assert_int_equal(ni.queued, 1);
	/* nothing more until a second has passed */
	assert_int_equal(service_at(500), 0);

	/* .3 answers, to us */
	assert_int_equal(arp_in(RTE_ARP_OP_REPLY, &mac_eg, &mac3, IP4(192, 168, 1, 3),
				IP4(192, 168, 1, 1)), 0);
	assert_int_equal(nu.st.local[FOU_LOCAL_CONSUMED], 1);
	assert_int_equal(service_at(600), 3);
	for (i = 0; i < 3; i++) {
		uint32_t olen = unit_expect_out_same(&p[i], &mac3, exp);

		assert_int_equal(nsent[i].port, EG_PORT);
		assert_int_equal(nsent[i].len, olen);
		assert_memory_equal(nsent[i].b, exp, olen);
	}
	assert_true(neigh_find(IP4(192, 168, 1, 3), &ni));
	assert_string_equal(fou_neigh_state_name(ni.state), "REACHABLE");
	assert_memory_equal(ni.mac.addr_bytes, mac3.addr_bytes, 6);
	assert_int_equal(ni.queued, 0);
	assert_int_equal(ctl->local[FOU_LOCAL_NEIGH_RESOLVED], 1);
	/* the workers know it now */
	m[0] = unit_mbuf(p[0].b, p[0].len);
	assert_int_equal(unit_burst(&nu, m, 1, got), 1);
	assert_memory_equal(got[0].b, mac3.addr_bytes, 6);

	/* .8: the second and third request a second apart, then FAILED */
	assert_int_equal(service_at(1003), 1);
	expect_arp_request(&nsent[0], EG_PORT, IP4(192, 168, 1, 1), IP4(192, 168, 1, 8));
	assert_int_equal(service_at(1500), 0);
	assert_int_equal(service_at(2004), 1);
	expect_arp_request(&nsent[0], EG_PORT, IP4(192, 168, 1, 1), IP4(192, 168, 1, 8));
	assert_int_equal(ctl->drop[FOU_DROP_NEIGH_FAILED], 0);
	assert_int_equal(service_at(3005), 0);
	assert_int_equal(ctl->drop[FOU_DROP_NEIGH_FAILED], 1);
	assert_int_equal(ctl->local[FOU_LOCAL_NEIGH_FAILED], 1);
	assert_true(neigh_find(IP4(192, 168, 1, 8), &ni));
	assert_string_equal(fou_neigh_state_name(ni.state), "FAILED");
	assert_int_equal(ni.queued, 0);
	/* 3 answered and 1 failed: nothing waits, every packet accounted for */
	assert_int_equal(ctl->local[FOU_LOCAL_NEIGH_DEQUEUED], 4);
	assert_int_equal(ctl->local[FOU_LOCAL_ARP_REQ_OUT], 2 + 4);
}

/*
 * A neighbour's queue holds 101 packets (unres_qlen); a full one drops
 * its oldest (neigh_queue_full). The 101 newest leave in order once it
 * answers.
 */
static void
test_neigh_queue_bound(void **state)
{
	static const struct rte_ether_addr mac9 = { { 0x02, 0, 0, 0, 0x01, 0x39 } };
	const struct fou_lcore_stats *ctl = unit_ctl_stats(ngw);
	struct rte_mbuf *m[FOU_BURST];
	struct unit_frame got[FOU_BURST];
	struct fou_neigh_info ni;
	unsigned int i, k, sent = 0;

	(void)state;
	service_at(0);
	while (sent < 103) {
		k = RTE_MIN(103u - sent, (unsigned int)FOU_BURST);
		for (i = 0; i < k; i++) {
			struct unit_pkt p;

			/* the inner source says which packet it is */
			neigh_pkt(&p, IP4(10, 30, 1, sent + i), IP4(192, 168, 1, 9));
			m[i] = unit_mbuf(p.b, p.len);
		}
		assert_int_equal(unit_burst(&nu, m, (uint16_t)k, got), 0);
		sent += k;
	}
	assert_int_equal(service_at(1), 1);	/* the request */
	assert_true(neigh_find(IP4(192, 168, 1, 9), &ni));
	assert_int_equal(ni.queued, 101);
	assert_int_equal(ctl->drop[FOU_DROP_NEIGH_QUEUE_FULL], 2);
	assert_int_equal(arp_in(RTE_ARP_OP_REPLY, &mac_eg, &mac9, IP4(192, 168, 1, 9),
				IP4(192, 168, 1, 1)), 0);
	assert_int_equal(service_at(2), 101);
	for (i = 0; i < 101; i++) {
		assert_memory_equal(nsent[i].b, mac9.addr_bytes, 6);
		assert_int_equal(unit_get32(nsent[i].b + 14 + 12), IP4(10, 30, 1, i + 2));
	}
	assert_int_equal(fou_stats_held(ctl) + fou_stats_held(&nu.st), 0);
}

/*
 * What ARP teaches the table: a request for us creates its sender's entry
 * (STALE, and the workers use it at once); a reply nobody asked for
 * creates nothing (arp_accept=0); a static entry never changes MAC, for a
 * reply, an announcement or a request. /fou/neigh/flush drops every learnt
 * entry and keeps the static ones.
 */
static void
test_neigh_learn_flush(void **state)
{
	static const struct rte_ether_addr mac50 = { { 0x02, 0, 0, 0, 0x01, 0x50 } };
	static const struct rte_ether_addr evil = { { 0x02, 0, 0, 0, 0x0e, 0x71 } };
	struct fou_neigh_info ni[16];
	struct rte_ether_addr mac;
	struct fou_ip ip2 = { .family = AF_INET, .plen = 32 };
	struct unit_frame got[1];
	struct rte_mbuf *m;
	struct unit_pkt p;
	unsigned int n, i;

	(void)state;
	service_at(0);
	/* .50 asks for us: answered, and learnt */
	assert_int_equal(arp_in(RTE_ARP_OP_REQUEST, &mac_bcast, &mac50, IP4(192, 168, 1, 50),
				IP4(192, 168, 1, 1)), 1);
	/* .60 replies unasked, .2 (static) claims another MAC every way */
	assert_int_equal(arp_in(RTE_ARP_OP_REPLY, &mac_eg, &evil, IP4(192, 168, 1, 60),
				IP4(192, 168, 1, 1)), 0);
	assert_int_equal(arp_in(RTE_ARP_OP_REPLY, &mac_eg, &evil, IP4(192, 168, 1, 2),
				IP4(192, 168, 1, 1)), 0);
	assert_int_equal(arp_in(RTE_ARP_OP_REQUEST, &mac_bcast, &evil, IP4(192, 168, 1, 2),
				IP4(192, 168, 1, 2)), 0);
	assert_int_equal(arp_in(RTE_ARP_OP_REPLY, &mac_bcast, &evil, IP4(192, 168, 1, 2),
				IP4(192, 168, 1, 2)), 0);
	assert_int_equal(arp_in(RTE_ARP_OP_REQUEST, &mac_bcast, &evil, IP4(192, 168, 1, 2),
				IP4(192, 168, 1, 1)), 1);
	assert_int_equal(service_at(1), 0);
	assert_true(neigh_find(IP4(192, 168, 1, 50), ni));
	assert_string_equal(fou_neigh_state_name(ni[0].state), "STALE");
	assert_memory_equal(ni[0].mac.addr_bytes, mac50.addr_bytes, 6);
	assert_false(neigh_find(IP4(192, 168, 1, 60), ni));
	assert_true(neigh_find(IP4(192, 168, 1, 2), ni));
	assert_string_equal(fou_neigh_state_name(ni[0].state), "PERMANENT");
	ip2.v4 = rte_cpu_to_be_32(IP4(192, 168, 1, 2));
	assert_int_equal(fou_neigh_get(ngw, &ip2, EG_PORT, &mac), 0);
	assert_memory_equal(mac.addr_bytes, mac_nb4.addr_bytes, 6);
	/* the learnt MAC is used at once */
	neigh_pkt(&p, IP4(10, 30, 0, 5), IP4(192, 168, 1, 50));
	m = unit_mbuf(p.b, p.len);
	assert_int_equal(unit_burst(&nu, &m, 1, got), 1);
	assert_memory_equal(got[0].b, mac50.addr_bytes, 6);

	/* flush waits for a grace period: the worker stops first */
	fou_lcore_stop(nu.lc, emit_keep, NULL);
	assert_int_equal(fou_neigh_flush(ngw), 1);
	n = fou_neigh_list(ngw, ni, RTE_DIM(ni), 0);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++)
		assert_string_equal(fou_neigh_state_name(ni[i].state), "PERMANENT");
	assert_int_equal(fou_neigh_flush(ngw), 0);
}

#define T(f) cmocka_unit_test_teardown(f, unit_test_teardown_pool)
#define TN(f) cmocka_unit_test_setup_teardown(f, setup_neigh, teardown_neigh)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_ecn_ipv4),
		T(test_ecn_ipv6),
		T(test_ecn_cksum_sweep),
		T(test_ecn_cksum_edges),
		T(test_ttl),
		T(test_hop_limit),
		T(test_martian4),
		T(test_martian6),
		T(test_routes4),
		T(test_routes6),
		T(test_check_order),
		T(test_eth_other_host),
		T(test_eth_group_addresses),
		T(test_eth_types),
		T(test_eth_tags),
		T(test_arp_answered),
		T(test_arp_not_answered),
		T(test_arp_bad),
	};
	const struct CMUnitTest tests_default[] = {
		T(test_default_route),
		T(test_default_route_local),
		T(test_default_route_not_local),
	};
	const struct CMUnitTest tests_mtu[] = {
		T(test_mtu),
	};
	const struct CMUnitTest tests_tunnels[] = {
		T(test_tunnel_rx_match),
		T(test_l2_group_not_forwarded),
		T(test_inner_source_ours),
		T(test_icmp_source_network),
	};
	const struct CMUnitTest tests_neigh[] = {
		TN(test_neigh_announce),
		TN(test_neigh_resolve),
		TN(test_neigh_queue_bound),
		TN(test_neigh_learn_flush),
	};
	int failures = 0;

	(void)argc;
	unit_eal_init(argv[0]);
	failures += cmocka_run_group_tests_name("forward", tests, setup, teardown);
	failures += cmocka_run_group_tests_name("default_route", tests_default, setup_default,
						teardown);
	failures += cmocka_run_group_tests_name("mtu", tests_mtu, setup_mtu, teardown);
	failures += cmocka_run_group_tests_name("tunnels", tests_tunnels, setup_tunnels, teardown);
	failures += cmocka_run_group_tests_name("neigh", tests_neigh, NULL, NULL);
	return unit_eal_fini(failures);
}
