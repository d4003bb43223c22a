/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the port tells us and how it hands us data: the RX checksum flags
 * (trusted for the outer IPv4 and UDP headers only, and only where the port
 * parsed no tunnel; cleared on output) and
 * multi-segment mbufs (checksums across segments, headers never read
 * across a segment boundary).
 */
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "fou_hdr.h"

static struct fou_gw *gw;
static uint8_t out[UNIT_PKT_MAX];

static struct rte_mbuf *
mbuf_flags(const struct unit_pkt *p, uint64_t flags)
{
	struct rte_mbuf *m = unit_mbuf(p->b, p->len);

	m->ol_flags = flags;
	return m;
}

/* The same with a packet type, as a port that parsed the frame sets it. */
static struct rte_mbuf *
mbuf_typed(const struct unit_pkt *p, uint64_t flags, uint32_t ptype)
{
	struct rte_mbuf *m = mbuf_flags(p, flags);

	m->packet_type = ptype;
	return m;
}

static void
run_fwd(const struct unit_case *c, const struct unit_pkt *p, struct rte_mbuf *m,
	const char *file, int line)
{
	uint32_t olen = unit_expect_out_same(p, c->inner == FOU_INNER_IPV4 ? &mac_nb4 : &mac_nb6,
					     out);

	unit_run(gw, m, &(struct unit_exp){ .verdict = UNIT_FWD, .decap_port = c->port,
					    .decap_inner = c->inner, .out = out, .out_len = olen,
					    .out_port = EG_PORT },
		 file, line);
}
#define RUN_FWD(c, p, m) run_fwd((c), (p), (m), __FILE__, __LINE__)
#define RUN_DROP(m, reason) UNIT_RUN(gw, (m), .verdict = (reason), .decap_inner = -1)

static const struct unit_case *
case_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < unit_nb_cases; i++)
		if (strcmp(unit_cases[i].name, name) == 0)
			return &unit_cases[i];
	fail_msg("no case %s", name);
	return NULL;
}

/* --- RX checksum flags ------------------------------------------------------- */

static void
test_hw_ip_cksum_bad(void **state)
{
	const struct unit_case *c = case_named("g_ipip");
	struct unit_pkt p;

	(void)state;
	unit_case_build(c, &p);
	RUN_DROP(mbuf_flags(&p, RTE_MBUF_F_RX_IP_CKSUM_BAD), FOU_DROP_IP_CKSUM_BAD);
	RUN_DROP(mbuf_flags(&p, RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_GOOD),
		 FOU_DROP_IP_CKSUM_BAD);
}

static void
test_hw_l4_cksum_bad(void **state)
{
	const struct unit_case *c = case_named("g_ipip_csum");
	struct unit_pkt p;

	(void)state;
	unit_case_build(c, &p);
	RUN_DROP(mbuf_flags(&p, RTE_MBUF_F_RX_L4_CKSUM_BAD), FOU_DROP_UDP_CKSUM_BAD);
	RUN_DROP(mbuf_flags(&p, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_BAD),
		 FOU_DROP_UDP_CKSUM_BAD);
	/* a zero UDP checksum is no checksum, whatever the port thinks */
	c = case_named("g_ipip");
	unit_case_build(c, &p);
	RUN_FWD(c, &p, mbuf_flags(&p, RTE_MBUF_F_RX_L4_CKSUM_BAD));
}

/* A port that checked the checksum is trusted over the bytes. */
static void
test_hw_cksum_good_trusted(void **state)
{
	const struct unit_case *c = case_named("g_ipip_csum");
	struct unit_pkt p;

	(void)state;
	unit_case_build(c, &p);
	p.b[p.l3 + 10] ^= 0xff;
	RUN_FWD(c, &p, mbuf_flags(&p, RTE_MBUF_F_RX_IP_CKSUM_GOOD));
	/* NONE: the header was verified although the field is not right */
	RUN_FWD(c, &p, mbuf_flags(&p, RTE_MBUF_F_RX_IP_CKSUM_NONE));
	/* without a verdict the bytes are checked */
	RUN_DROP(mbuf_flags(&p, RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN), FOU_DROP_IP_CKSUM_BAD);
	RUN_DROP(mbuf_flags(&p, RTE_MBUF_F_RX_L4_CKSUM_GOOD), FOU_DROP_IP_CKSUM_BAD);

	unit_case_build(c, &p);
	p.b[p.l4 + 6] ^= 0x5a;
	RUN_FWD(c, &p, mbuf_flags(&p, RTE_MBUF_F_RX_L4_CKSUM_GOOD));
	RUN_FWD(c, &p, mbuf_flags(&p, RTE_MBUF_F_RX_L4_CKSUM_NONE));
	RUN_DROP(mbuf_flags(&p, RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN), FOU_DROP_UDP_CKSUM_BAD);
	RUN_DROP(mbuf_flags(&p, RTE_MBUF_F_RX_IP_CKSUM_GOOD), FOU_DROP_UDP_CKSUM_BAD);
}

/*
 * A port that parsed a tunnel (its type in packet_type) speaks of the inner
 * headers in these flags, by DPDK's convention, and net_tap of the outer
 * ones all the same: for such a packet they say nothing of the outer
 * headers, which are checked over the bytes.
 */
static void
test_hw_flags_tunnel_parsed(void **state)
{
	static const uint32_t tunnels[] = {
		RTE_PTYPE_TUNNEL_IP, RTE_PTYPE_TUNNEL_GRE, RTE_PTYPE_TUNNEL_VXLAN,
	};
	const struct unit_case *c = case_named("g_ipip_csum");
	struct unit_pkt p;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(tunnels); i++) {
		const uint32_t ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | tunnels[i] |
				       RTE_PTYPE_INNER_L3_IPV4 | RTE_PTYPE_INNER_L4_UDP;

		unit_ctx("packet type 0x%x", ptype);
		unit_case_build(c, &p);
		p.b[p.l3 + 10] ^= 0xff;
		RUN_DROP(mbuf_typed(&p, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD,
				    ptype), FOU_DROP_IP_CKSUM_BAD);
		RUN_DROP(mbuf_typed(&p, RTE_MBUF_F_RX_IP_CKSUM_NONE, ptype), FOU_DROP_IP_CKSUM_BAD);

		unit_case_build(c, &p);
		p.b[p.l4 + 6] ^= 0x5a;
		RUN_DROP(mbuf_typed(&p, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD,
				    ptype), FOU_DROP_UDP_CKSUM_BAD);
		RUN_DROP(mbuf_typed(&p, RTE_MBUF_F_RX_L4_CKSUM_NONE, ptype), FOU_DROP_UDP_CKSUM_BAD);

		/* nor do they drop what the bytes say is right */
		unit_case_build(c, &p);
		RUN_FWD(c, &p, mbuf_typed(&p, RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_BAD,
					  ptype));
	}
}

/* The flags speak of the outer headers: GRE and inner checksums are still checked. */
static void
test_hw_flags_not_for_inner(void **state)
{
	const uint64_t good = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD |
			      RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
	struct unit_pkt p;

	(void)state;
	unit_case_build(case_named("g_gre6"), &p);
	p.b[p.gre + 4] ^= 0x01;
	RUN_DROP(mbuf_flags(&p, good), FOU_DROP_GRE_CKSUM_BAD);
	unit_case_build(case_named("g_gre4_c"), &p);
	p.b[p.inner + 10] ^= 0x01;
	unit_fix_outer(&p);
	RUN_DROP(mbuf_flags(&p, good), FOU_DROP_INNER_CKSUM_BAD);
}

/* Forwarded packets carry no RX checksum verdict: it was about the outer headers. */
static void
test_hw_flags_cleared(void **state)
{
	static const uint64_t flags[] = {
		RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD,
		RTE_MBUF_F_RX_IP_CKSUM_NONE | RTE_MBUF_F_RX_L4_CKSUM_NONE,
		RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD |
			RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD,
		RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD |
			RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD,
	};
	unsigned int i, k;

	(void)state;
	for (i = 0; i < unit_nb_cases; i++) {
		const struct unit_case *c = &unit_cases[i];
		struct unit_pkt p;

		if (c->inner < 0)
			continue;
		unit_case_build(c, &p);
		for (k = 0; k < RTE_DIM(flags); k++) {
			unit_ctx("%s, RX flags 0x%" PRIx64, c->name, (uint64_t)flags[k]);
			/* unit_run fails if any RX checksum flag is left */
			RUN_FWD(c, &p, mbuf_flags(&p, flags[k]));
		}
	}
}

/* --- multi-segment mbufs ----------------------------------------------------- */

/* The golden cases, GRE with every flag and a UDP checksum, inner options. */
static void
multiseg_cases(struct unit_pkt *pkts, const struct unit_case **cases, unsigned int *n)
{
	unsigned int i;

	*n = 0;
	for (i = 0; i < unit_nb_cases; i++) {
		if (unit_cases[i].inner < 0)
			continue;
		unit_case_build(&unit_cases[i], &pkts[*n]);
		cases[(*n)++] = &unit_cases[i];
	}
	{
		struct unit_spec s;
		const struct unit_case *c = case_named("g_gre4_cks");

		unit_spec_gre4(&s, FOU_GRE_C | FOU_GRE_K | FOU_GRE_S);
		s.udp_csum = true;
		s.payload = 301;	/* odd, and long enough for carries */
		unit_build(&s, &pkts[*n]);
		cases[(*n)++] = c;
		/* inner IPv4 options: the header ends past its first 20 bytes */
		unit_spec_gre4(&s, FOU_GRE_C);
		s.in_opt_words = 3;
		unit_build(&s, &pkts[*n]);
		cases[(*n)++] = case_named("g_gre4_c");
	}
}

/*
 * Two segments, split at every offset (even ones here, odd ones below):
 * until the inner IP header is whole in the first segment the frame is
 * hdr_split; from there on it is forwarded, the UDP and GRE checksums
 * computed across the segments.
 */
static void
multiseg_sweep(unsigned int parity)
{
	static struct unit_pkt pkts[32];
	const struct unit_case *cases[32];
	unsigned int n, i;

	multiseg_cases(pkts, cases, &n);
	for (i = 0; i < n; i++) {
		const struct unit_pkt *p = &pkts[i];
		uint32_t split;

		for (split = parity; split < p->len; split += 2) {
			struct rte_mbuf *m = unit_mbuf_segs(p->b, p->len, &split, 2);

			unit_ctx("%s (%u bytes) split at %u", cases[i]->name, p->len, split);
			if (split < p->inner + p->inner_hl)
				RUN_DROP(m, FOU_DROP_HDR_SPLIT);
			else
				RUN_FWD(cases[i], p, m);
		}
	}
}

static void
test_multiseg_split_even(void **state)
{
	(void)state;
	multiseg_sweep(0);
}

/*
 * Every header starts at an even offset, so an odd split leaves the second
 * segment at an odd offset from the start of the UDP and GRE checksums.
 */
static void
test_multiseg_split_odd(void **state)
{
	(void)state;
	multiseg_sweep(1);
}

/* The same with checksums that fail: the bad sum is found across segments too. */
static void
test_multiseg_cksum_bad(void **state)
{
	struct unit_spec s;
	struct unit_pkt p;
	uint32_t split;

	(void)state;
	unit_spec_gre4(&s, FOU_GRE_C | FOU_GRE_K);
	s.payload = 100;
	unit_build(&s, &p);
	p.b[p.len - 3] ^= 0x20;		/* GRE checksum now wrong */
	for (split = p.inner + p.inner_hl; split < p.len; split++) {
		unit_ctx("GRE, split at %u", split);
		RUN_DROP(unit_mbuf_segs(p.b, p.len, &split, 2), FOU_DROP_GRE_CKSUM_BAD);
	}
	unit_spec_ipip(&s);
	s.udp_csum = true;
	s.payload = 100;
	unit_build(&s, &p);
	p.b[p.len - 3] ^= 0x20;		/* UDP checksum now wrong */
	for (split = p.inner + p.inner_hl; split < p.len; split++) {
		unit_ctx("ipip, split at %u", split);
		RUN_DROP(unit_mbuf_segs(p.b, p.len, &split, 2), FOU_DROP_UDP_CKSUM_BAD);
	}
}

/* One split at an odd offset: the smallest case of the odd sweep. */
static void
test_multiseg_odd_split(void **state)
{
	const struct unit_case *c = case_named("g_ipip_csum");
	struct unit_pkt p;
	uint32_t split;

	(void)state;
	unit_case_build(c, &p);
	split = p.inner + p.inner_hl + 1;	/* 63: UDP from 34, 29 bytes in */
	RUN_FWD(c, &p, unit_mbuf_segs(p.b, p.len, &split, 2));
}

/* Three and more segments. */
static void
test_multiseg_many(void **state)
{
	const struct unit_case *c = case_named("g_gre6");
	struct unit_pkt p;
	uint32_t segs[8];
	unsigned int n;

	(void)state;
	unit_case_build(c, &p);
	segs[0] = p.inner + p.inner_hl;
	segs[1] = 4;
	segs[2] = 2;
	RUN_FWD(c, &p, unit_mbuf_segs(p.b, p.len, segs, 4));
	/* one byte per segment after the headers */
	for (n = 1; n < RTE_DIM(segs); n++)
		segs[n] = 1;
	RUN_FWD(c, &p, unit_mbuf_segs(p.b, p.len, segs, RTE_DIM(segs)));
}

/*
 * Padding in later segments is cut, the segments holding only padding are
 * freed (the pool must be full afterwards), nb_segs and pkt_len agree.
 */
static void
test_multiseg_padding(void **state)
{
	const struct unit_case *c = case_named("g_gre4_c");
	struct unit_spec s;
	struct unit_pkt p;
	uint32_t segs[3], end;

	(void)state;
	c->spec(&s);
	s.pad = 20;
	unit_build(&s, &p);
	end = p.len - 20;

	segs[0] = end;			/* second segment: padding only */
	RUN_FWD(c, &p, unit_mbuf_segs(p.b, p.len, segs, 2));
	segs[0] = end - 10;		/* cut inside the second segment */
	RUN_FWD(c, &p, unit_mbuf_segs(p.b, p.len, segs, 2));
	segs[0] = p.inner + p.inner_hl;	/* cut at the end of the second, third freed */
	segs[1] = end - segs[0];
	RUN_FWD(c, &p, unit_mbuf_segs(p.b, p.len, segs, 3));
	segs[1] = end - segs[0] - 1;	/* third keeps one byte */
	RUN_FWD(c, &p, unit_mbuf_segs(p.b, p.len, segs, 3));
	segs[1] = 4;			/* fourth: padding */
	segs[2] = end - segs[0] - 4;
	RUN_FWD(c, &p, unit_mbuf_segs(p.b, p.len, segs, 4));
}

/* Truncated headers are truncated, not split, when the frame is short. */
static void
test_multiseg_truncated(void **state)
{
	struct unit_pkt p;
	uint32_t seg = 10;

	(void)state;
	unit_case_build(case_named("g_ipip"), &p);
	RUN_DROP(unit_mbuf_segs(p.b, 12, &seg, 2), FOU_DROP_ETH_TRUNCATED);
	seg = 14;
	RUN_DROP(unit_mbuf_segs(p.b, 30, &seg, 2), FOU_DROP_IP_TRUNCATED);
	RUN_DROP(unit_mbuf_segs(p.b, p.len - 1, &seg, 2), FOU_DROP_HDR_SPLIT);
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
	const struct CMUnitTest tests[] = {
		T(test_hw_ip_cksum_bad),
		T(test_hw_l4_cksum_bad),
		T(test_hw_cksum_good_trusted),
		T(test_hw_flags_tunnel_parsed),
		T(test_hw_flags_not_for_inner),
		T(test_hw_flags_cleared),
		T(test_multiseg_split_even),
		T(test_multiseg_split_odd),
		T(test_multiseg_cksum_bad),
		T(test_multiseg_odd_split),
		T(test_multiseg_many),
		T(test_multiseg_padding),
		T(test_multiseg_truncated),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("offload", tests, setup, teardown);
	return unit_eal_fini(failures);
}
