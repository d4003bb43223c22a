/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Golden frames: one valid FOU frame per protocol and encoding, each
 * forwarded and compared byte for byte with the expected output frame.
 * The frames are also the reference for the tests' packet builder.
 */
#include <stdio.h>
#include <string.h>

#include <rte_lcore.h>

#include "unit.h"
#define GOLDEN_RX
#include "golden.h"

static struct fou_gw *gw;

/* The golden frames, in the order of unit_cases[], with their outputs. */
struct golden {
	const char *name;
	const uint8_t *b;
	uint32_t len;
	const uint8_t *out;	/* NULL: not forwarded */
	uint32_t out_len;
	const struct unit_case *c;
	uint16_t port;
	int inner;
};

#define G(n, o) { #n, n, sizeof(n), o, sizeof(o), NULL, 0, 0 }
static struct golden goldens[] = {
	G(g_ipip, g_out4),
	G(g_ipip_csum, g_out4),
	G(g_sit, g_out6),
	G(g_gre4_none, g_out4),
	G(g_gre4_c, g_out4),
	G(g_gre4_k, g_out4),
	G(g_gre4_s, g_out4),
	G(g_gre4_ck, g_out4),
	G(g_gre4_cs, g_out4),
	G(g_gre4_ks, g_out4),
	G(g_gre4_cks, g_out4),
	G(g_gre6, g_out6),
	{ "g_other", g_other, sizeof(g_other), NULL, 0, NULL, 0, 0 },
	G(g_vlan, g_out4),
	G(g_ipopt, g_out4),
};

static const struct golden *
golden_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(goldens); i++)
		if (strcmp(goldens[i].name, name) == 0)
			return &goldens[i];
	fail_msg("no golden frame %s", name);
	return NULL;
}

/* Offsets in a golden frame, found by building its spec. */
static void
golden_layout(const struct golden *g, struct unit_pkt *p)
{
	unit_case_build(g->c, p);
}

/*
 * The golden frames carry valid checksums: checked here with the tests' own
 * RFC 1071 code, so a wrong array (or a wrong checksum routine) shows.
 */
static void
test_golden_checksums(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(goldens); i++) {
		const struct golden *g = &goldens[i];
		struct unit_pkt p;
		const uint8_t *b = g->b;
		uint16_t ulen;

		golden_layout(g, &p);
		if (!unit_cksum_ok(b + p.l3, p.l4 - p.l3))
			fail_msg("%s: outer IPv4 checksum", g->name);
		ulen = unit_get16(b + p.l4 + 4);
		if (ulen != g->len - p.l4)
			fail_msg("%s: UDP length %u", g->name, ulen);
		if (unit_get16(b + p.l4 + 6) != 0 &&
		    rfc1071_fold(rfc1071_sum(b + p.l4, ulen, rfc1071_sum(b + p.l3 + 12, 8, 0) +
					     17 + ulen)) != 0xffff)
			fail_msg("%s: UDP checksum", g->name);
		if (p.gre_c && !unit_cksum_ok(b + p.gre, g->len - p.gre))
			fail_msg("%s: GRE checksum", g->name);
		if (p.kind == UNIT_IN_V4 && !unit_cksum_ok(b + p.inner, p.inner_hl))
			fail_msg("%s: inner IPv4 checksum", g->name);
	}
	assert_true(unit_cksum_ok(g_out4 + 14, 20));
	/* the non-zero UDP checksums are really there */
	assert_int_equal(unit_get16(g_ipip_csum + 40), 0x221d);
	assert_int_equal(unit_get16(g_ipip + 40), 0);
}

/* The builder used by the other tests reproduces every golden frame. */
static void
test_builder_matches_golden(void **state)
{
	unsigned int i, j;

	(void)state;
	for (i = 0; i < RTE_DIM(goldens); i++) {
		const struct golden *g = &goldens[i];
		struct unit_pkt p;
		uint8_t out[256];

		golden_layout(g, &p);
		if (p.len != g->len || memcmp(p.b, g->b, g->len) != 0) {
			for (j = 0; j < g->len && p.b[j] == g->b[j]; j++)
				;
			fail_msg("%s: builder gives %u bytes, golden %u; first difference at %u",
				 g->name, p.len, g->len, j);
		}
		if (g->out == NULL)
			continue;
		assert_int_equal(unit_expect_out_same(&p, g->inner == FOU_INNER_IPV4 ?
						      &mac_nb4 : &mac_nb6, out), g->out_len);
		assert_memory_equal(out, g->out, g->out_len);
	}
}

static void
test_golden_fwd(void **state)
{
	const struct golden *g = *state;

	unit_ctx("%s", g->name);
	EXPECT_FWD(gw, g->b, g->len, g->port, g->inner, g->out, g->out_len);
}

/* A port mapped to a protocol without a handler drops, nothing decapsulated. */
static void
test_other_proto_unhandled(void **state)
{
	(void)state;
	EXPECT_DROP(gw, g_other, sizeof(g_other), FOU_DROP_FOU_PROTO_UNHANDLED);
}

/* What the mbuf says about itself after decapsulation. */
static void
test_fwd_mbuf_fields(void **state)
{
	static const struct {
		const char *name;
		uint32_t l3_len, ptype;
	} cases[] = {
		{ "g_gre4_cks", 20, RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 },
		{ "g_sit", 40, RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 },
		{ "g_vlan", 20, RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 },
	};
	struct unit_lcore u = { 0 };
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		const struct golden *g = golden_find(cases[i].name);
		struct rte_mbuf *m = unit_mbuf(g->b, g->len);
		uint16_t out_port = 0;
		struct rte_mbuf *pkts[1] = { m };
		uint32_t l2, l3, ptype, plen, dlen;
		uint64_t fl;

		m->ol_flags = RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED |
			      RTE_MBUF_F_RX_RSS_HASH;
		unit_lcore_begin(&u, gw, 0);
		assert_int_equal(unit_rx(&u, RX_PORT, pkts, 1, &out_port), 1);
		unit_lcore_end(&u);
		l2 = m->l2_len;
		l3 = m->l3_len;
		ptype = m->packet_type;
		plen = rte_pktmbuf_pkt_len(m);
		dlen = rte_pktmbuf_data_len(m);
		fl = m->ol_flags;
		rte_pktmbuf_free(m);
		unit_ctx("%s", g->name);
		assert_int_equal(out_port, EG_PORT);
		assert_int_equal(plen, g->out_len);
		assert_int_equal(dlen, g->out_len);
		assert_int_equal(l2, RTE_ETHER_HDR_LEN);
		assert_int_equal(l3, cases[i].l3_len);
		assert_int_equal(ptype, cases[i].ptype);
		/* the VLAN verdict was about the outer frame; the RSS hash may stay */
		assert_int_equal(fl, RTE_MBUF_F_RX_RSS_HASH);
	}
}

/*
 * A burst: forwarded frames move to the front in order with their ports,
 * dropped ones (more than FOU_BURST of them) are freed, counters add up.
 */
static void
test_burst_mixed(void **state)
{
	struct rte_mbuf *pkts[40], *fwd[40];
	uint16_t out_port[40];
	struct fou_lcore_stats *st = fou_lcore_stats(gw, rte_lcore_id());
	struct fou_lcore_stats sum;
	struct unit_lcore u = { 0 };
	unsigned int i, nf = 0;
	uint16_t n;

	(void)state;
	memset(st, 0, sizeof(*st));
	for (i = 0; i < RTE_DIM(pkts); i++) {
		if (i % 7 == 3) {
			pkts[i] = unit_mbuf(i % 2 ? g_gre6 : g_ipip, i % 2 ? sizeof(g_gre6) :
					    sizeof(g_ipip));
			fwd[nf++] = pkts[i];
		} else {
			pkts[i] = unit_mbuf(g_other, sizeof(g_other));
		}
	}
	memset(out_port, 0xff, sizeof(out_port));
	unit_lcore_begin(&u, gw, 0);
	n = unit_rx(&u, RX_PORT, pkts, RTE_DIM(pkts), out_port);
	unit_lcore_end(&u);
	assert_int_equal(nf, 6);
	assert_int_equal(n, nf);
	for (i = 0; i < nf; i++) {
		assert_ptr_equal(pkts[i], fwd[i]);
		assert_int_equal(out_port[i], EG_PORT);
	}
	for (i = 0; i < nf; i++)
		rte_pktmbuf_free(pkts[i]);
	UNIT_POOL_FULL();

	fou_stats_sum(gw, &sum);
	assert_int_equal(sum.rx[RX_PORT], 40);
	assert_int_equal(sum.rx[EG_PORT], 0);
	assert_int_equal(sum.drop[FOU_DROP_FOU_PROTO_UNHANDLED], 34);
	assert_int_equal(fou_stats_drops(&sum), 34);
	assert_int_equal(sum.decap[1], 3);	/* 5555 ipip */
	assert_int_equal(sum.decap[2], 3);	/* 5556 gre */
	assert_int_equal(sum.decap_inner[FOU_INNER_IPV4], 3);
	assert_int_equal(sum.decap_inner[FOU_INNER_IPV6], 3);
	memset(st, 0, sizeof(*st));
}

/* Odd and tiny payloads: the checksums pad the last byte, nothing else does. */
static void
test_odd_lengths(void **state)
{
	static uint8_t out[UNIT_PKT_MAX];
	unsigned int i, len;

	(void)state;
	for (i = 0; i < unit_nb_cases; i++) {
		const struct unit_case *c = &unit_cases[i];

		if (c->inner < 0)
			continue;
		for (len = 0; len < 10; len++) {
			struct unit_spec s;
			struct unit_pkt p;
			uint32_t olen;

			c->spec(&s);
			s.payload = (uint16_t)len;
			s.udp_csum = true;
			unit_build(&s, &p);
			olen = unit_expect_out_same(&p, c->inner == FOU_INNER_IPV4 ? &mac_nb4 :
						    &mac_nb6, out);
			unit_ctx("%s with %u payload bytes", c->name, len);
			EXPECT_FWD(gw, p.b, p.len, c->port, c->inner, out, olen);
		}
	}
}

/* Another receiving port: its own MAC, its own rx counter. */
static void
test_rx_other_port(void **state)
{
	struct unit_lcore u = { 0 };
	struct unit_spec s;
	struct unit_pkt p;
	struct rte_mbuf *m;
	uint16_t out_port = 0;

	(void)state;
	unit_lcore_begin(&u, gw, 0);
	unit_spec_ipip(&s);
	unit_build(&s, &p);
	m = unit_mbuf(p.b, p.len);
	assert_int_equal(unit_rx(&u, EG_PORT, &m, 1, &out_port), 0);
	assert_int_equal(u.st.drop[FOU_DROP_ETH_OTHER_HOST], 1);
	assert_int_equal(u.st.rx[EG_PORT], 1);
	assert_int_equal(u.st.rx[RX_PORT], 0);

	s.eth_dst = mac_eg;
	unit_build(&s, &p);
	m = unit_mbuf(p.b, p.len);
	assert_int_equal(unit_rx(&u, EG_PORT, &m, 1, &out_port), 1);
	assert_int_equal(out_port, EG_PORT);
	assert_int_equal(u.st.rx[EG_PORT], 2);
	assert_int_equal(u.st.decap_inner[FOU_INNER_IPV4], 1);
	rte_pktmbuf_free(m);
	unit_lcore_end(&u);
}

/*
 * GUE (port 6080 gue): version 0 with each protocol and with fields that
 * change nothing, version 1, forwarded as their FOU twins; each malformed
 * kind dropped under its reason, as Linux' gue_udp_recv drops it.
 */
static void
test_gue_rx(void **state)
{
	static const struct {
		const char *name;
		const uint8_t *b;
		uint32_t len;
		const uint8_t *out;	/* NULL: dropped */
		uint32_t out_len;
		int inner;
		unsigned int drop;
	} cases[] = {
#define GF(n, o, in) { #n, n, sizeof(n), o, sizeof(o), in, 0 }
#define GD(n, r) { #n, n, sizeof(n), NULL, 0, -1, r }
		GF(g_gue_ipip, g_out4, FOU_INNER_IPV4),
		GF(g_gue_sit, g_out6, FOU_INNER_IPV6),
		GF(g_gue_gre4_cks, g_out4, FOU_INNER_IPV4),
		GF(g_gue_gre6, g_out6, FOU_INNER_IPV6),
		GF(g_gue_v1_ipip, g_out4, FOU_INNER_IPV4),
		GF(g_gue_v1_sit, g_out6, FOU_INNER_IPV6),
		GF(g_gue_priv0, g_out4, FOU_INNER_IPV4),
		GF(g_gue_opts, g_out4, FOU_INNER_IPV4),
		GD(g_gue_ver2, FOU_DROP_GUE_VERSION),
		GD(g_gue_ver3, FOU_DROP_GUE_VERSION),
		GD(g_gue_v1_bad, FOU_DROP_GUE_V1_NOT_IP),
		GD(g_gue_control, FOU_DROP_GUE_CONTROL),
		GD(g_gue_hlen, FOU_DROP_GUE_HLEN_BAD),
		GD(g_gue_flags, FOU_DROP_GUE_FLAGS_BAD),
		GD(g_gue_priv_short, FOU_DROP_GUE_FLAGS_BAD),
		GD(g_gue_pflags, FOU_DROP_GUE_PFLAGS_BAD),
		GF(g_gue_remcsum, g_out4, FOU_INNER_IPV4),
		GD(g_gue_remcsum_past, FOU_DROP_GUE_REMCSUM_BAD),
		GD(g_gue_proto0, FOU_DROP_GUE_PROTO_UNHANDLED),
		GD(g_gue_proto17, FOU_DROP_GUE_PROTO_UNHANDLED),
		GD(g_gue_trunc, FOU_DROP_GUE_TRUNCATED),
#undef GF
#undef GD
	};
	struct fou_gw *g = unit_gw_std();
	unsigned int i;

	(void)state;
	UNIT_APPLY(g, "port", "6080:gue");
	for (i = 0; i < RTE_DIM(cases); i++) {
		unit_ctx("%s", cases[i].name);
		if (cases[i].out != NULL)
			EXPECT_FWD(g, cases[i].b, cases[i].len, PORT_GUE, cases[i].inner,
				   cases[i].out, cases[i].out_len);
		else
			EXPECT_DROP(g, cases[i].b, cases[i].len, cases[i].drop);
	}
	unit_ctx("g_gue_remcsum_iphdr");
	EXPECT_DROP_DECAP(g, g_gue_remcsum_iphdr, sizeof(g_gue_remcsum_iphdr),
			  FOU_DROP_GUE_REMCSUM_BAD, PORT_GUE, FOU_INNER_IPV4);
	/* a GRE tunnel of other endpoints: the GUE packet is for none of ours */
	UNIT_APPLY(g, "tunnel", "tg,type=gre,local=10.0.0.1,remote=10.0.0.9,key=16909060,csum,seq,"
		   "encap=gue,encap-dport=6080");
	unit_ctx("g_gue_gre4_cks with another tunnel");
	EXPECT_DROP(g, g_gue_gre4_cks, sizeof(g_gue_gre4_cks), FOU_DROP_NO_TUNNEL);
	/* Linux matches by addresses, type and key, not by encap: a tunnel
	 * with encap fou takes GUE packets from its remote */
	UNIT_APPLY(g, "tunnel", "tf,type=gre,local=10.0.0.1,remote=10.0.0.2,key=16909060,csum,seq,"
		   "encap=fou,encap-dport=5556");
	unit_ctx("g_gue_gre4_cks to an encap fou tunnel");
	EXPECT_FWD(g, g_gue_gre4_cks, sizeof(g_gue_gre4_cks), PORT_GUE, FOU_INNER_IPV4, g_out4,
		   sizeof(g_out4));
	fou_gw_free(g);
}

/* The counter names are part of the interface (telemetry, summary). */
static void
test_drop_names(void **state)
{
	(void)state;
	assert_string_equal(fou_drop_name(FOU_DROP_ETH_TRUNCATED), "eth_truncated");
	assert_string_equal(fou_drop_name(FOU_DROP_GRE_CKSUM_BAD), "gre_cksum_bad");
	assert_string_equal(fou_drop_name(FOU_DROP_TX_FULL), "tx_full");
	assert_string_equal(fou_drop_name(FOU_DROP_GUE_CONTROL), "gue_control");
	assert_null(fou_drop_name(FOU_DROP_MAX));
	assert_non_null(fou_drop_desc(FOU_DROP_ECN_DROP));
	assert_string_equal(fou_inner_name(FOU_INNER_IPV6), "ipv6");
	assert_string_equal(fou_proto_name(47), "gre");
	assert_null(fou_proto_name(17));
}

static int
setup(void **state)
{
	(void)state;
	gw = unit_gw_std();
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
	static const struct CMUnitTest head[] = {
		T(test_golden_checksums),
		T(test_builder_matches_golden),
	}, tail[] = {
		T(test_other_proto_unhandled),
		T(test_fwd_mbuf_fields),
		T(test_burst_mixed),
		T(test_odd_lengths),
		T(test_rx_other_port),
		T(test_gue_rx),
		T(test_drop_names),
	};
	struct CMUnitTest tests[RTE_DIM(head) + RTE_DIM(goldens) + RTE_DIM(tail)];
	char names[RTE_DIM(goldens)][48];
	unsigned int i, n = 0;
	int failures;

	(void)argc;
	/* pair each frame with its case, by name, or refuse to run */
	if (unit_nb_cases != RTE_DIM(goldens))
		return 1;
	for (i = 0; i < RTE_DIM(goldens); i++) {
		if (strcmp(unit_cases[i].name, goldens[i].name) != 0)
			return 1;
		goldens[i].c = &unit_cases[i];
		goldens[i].port = unit_cases[i].port;
		goldens[i].inner = unit_cases[i].inner;
	}
	for (i = 0; i < RTE_DIM(head); i++)
		tests[n++] = head[i];
	/* one test case per golden frame that is forwarded */
	for (i = 0; i < RTE_DIM(goldens); i++) {
		if (goldens[i].out == NULL)
			continue;
		snprintf(names[i], sizeof(names[i]), "fwd_%s", goldens[i].name);
		tests[n++] = (struct CMUnitTest){
			.name = names[i],
			.test_func = test_golden_fwd,
			.teardown_func = unit_test_teardown_pool,
			.initial_state = (void *)(uintptr_t)&goldens[i],
		};
	}
	for (i = 0; i < RTE_DIM(tail); i++)
		tests[n++] = tail[i];

	unit_eal_init(argv[0]);
	failures = _cmocka_run_group_tests("golden", tests, n, setup, teardown);
	return unit_eal_fini(failures);
}
