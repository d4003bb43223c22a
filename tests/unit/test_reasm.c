/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly of outer IPv4 fragments to the gateway (fou_reasm.c): FOU
 * ipip, gre and sit packets cut into fragments by the tests' own code, in
 * order, reversed and interleaved, must leave as the whole packet would
 * (unit_expect_out()); one burst or one fragment per call gives the same.
 * Then the classifier, each case under its reason with the count of the
 * fragments it drops: a duplicate alone, an overlap, a contradiction, an
 * oversized datagram, a ninth fragment, Not-ECT with CE, a table over its
 * memory, another protocol under a held ID. Timeouts (a later `now`): ICMP
 * time exceeded code 1 about a datagram whose first fragment came, none
 * otherwise. A datagram larger than an mbuf stays a chain through local
 * delivery. What is held at the end is reasm_stopped; every mbuf goes back.
 */
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "unit.h"
#include "fou_hdr.h"

#define ETH 14
#define MAX_FRAGS 16

static struct fou_gw *cur_gw;
static struct unit_lcore ul;
static struct unit_frame got[FOU_BURST];
static uint64_t sent;		/* what the context sent in this test: no port counts it */

/* The peer on port 0 has a neighbour, so errors can go back. */
static struct fou_gw *
reasm_gw(const char *stmts)
{
	unit_lcore_end(&ul);
	fou_gw_free(cur_gw);
	sent = 0;
	cur_gw = unit_gw_std();
	UNIT_APPLY_LINES(cur_gw, "neigh 10.0.0.2,dev=0,lladdr=02:00:00:00:00:02\n");
	if (stmts != NULL)
		UNIT_APPLY_LINES(cur_gw, stmts);
	unit_lcore_begin(&ul, cur_gw, 0);
	return cur_gw;
}

static int
teardown(void **state)
{
	struct fou_gw *gw = cur_gw;

	unit_lcore_end(&ul);
	cur_gw = NULL;
	return unit_test_teardown_gw(state, gw);
}

/* A fragment: bytes [off, off + len) of the outer payload of p (a 20-byte
 * outer header), MF or not, with the ID id. */
struct frag {
	uint32_t off, len;
	bool mf;
};

static struct rte_mbuf *
frag_mbuf(const struct unit_pkt *p, const struct frag *f, uint16_t id, uint8_t tos)
{
	uint8_t b[UNIT_PKT_MAX];
	uint8_t *ip = b + p->l3;
	/* past the packet's end (an oversized datagram) the bytes are its first */
	const uint32_t from = f->off + f->len <= p->len - p->l3 - 20 ? f->off : 0;

	assert_true(p->l3 + 20 + f->len <= sizeof(b));
	assert_true(from + f->len <= p->len - p->l3 - 20);
	memcpy(b, p->b, p->l3 + 20);
	memcpy(b + p->l3 + 20, p->b + p->l3 + 20 + from, f->len);
	ip[1] = tos;
	unit_put16(ip + 2, (uint16_t)(20 + f->len));
	unit_put16(ip + 4, id);
	unit_put16(ip + 6, (uint16_t)((f->mf ? 0x2000 : 0) | f->off / 8));
	unit_put16(ip + 10, 0);
	unit_put16(ip + 10, (uint16_t)~rfc1071_fold(rfc1071_sum(ip, 20, 0)));
	return unit_mbuf(b, p->l3 + 20 + f->len);
}

/* The outer payload of p cut at the 8-byte multiples cut[0..n-1). */
static unsigned int
frag_cut(const struct unit_pkt *p, const uint32_t *cut, unsigned int n, struct frag *f)
{
	const uint32_t total = p->len - p->l3 - 20;
	uint32_t at = 0;
	unsigned int i;

	for (i = 0; i <= n; i++) {
		uint32_t end = i < n ? cut[i] : total;

		f[i] = (struct frag){ at, end - at, i < n };
		at = end;
	}
	return n + 1;
}

static void
build(struct unit_pkt *p, void (*spec)(struct unit_spec *s), uint16_t flags, uint16_t payload)
{
	struct unit_spec s;

	if (spec == NULL)
		unit_spec_gre4(&s, flags);
	else
		spec(&s);
	s.payload = payload;
	unit_build(&s, p);
	assert_int_equal(p->b[p->l3], 0x45);
}

static const struct fou_lcore_stats *
row(void)
{
	return fou_lcore_stats(cur_gw, rte_lcore_id());
}

/* rx = sent + drops + absorbed + held: every fragment once (the ports'
 * tx counters are the worker's, which does not run here). */
static void
balanced(void)
{
	const struct fou_lcore_stats *s = row();
	uint64_t rx, tx;

	fou_stats_rx_tx(s, &rx, &tx);
	assert_int_equal(tx, 0);
	assert_int_equal(rx, sent + fou_stats_drops(s) + s->reasm_absorbed +
			 fou_stats_reasm_held(s));
}

/* Run the fragments (indices order[]) through the context, n per call. */
static unsigned int
run_frags(const struct unit_pkt *const *pk, const struct frag *const *fr, const uint16_t *ids,
	  const unsigned int (*order)[2], unsigned int nb, unsigned int per_call,
	  struct unit_frame *out, uint64_t now)
{
	struct rte_mbuf *m[FOU_BURST];
	unsigned int i, k, done = 0;

	for (i = 0; i < nb; i += per_call) {
		unsigned int n = RTE_MIN(per_call, nb - i);

		for (k = 0; k < n; k++) {
			const unsigned int d = order[i + k][0], j = order[i + k][1];

			m[k] = frag_mbuf(pk[d], &fr[d][j], ids[d], 0);
		}
		done += unit_burst_at(&ul, RX_PORT, m, (uint16_t)n, out + done, now);
	}
	sent += done;
	return done;
}

static void
expect_whole(const struct unit_frame *f, const struct unit_pkt *p, bool v6)
{
	uint8_t out[UNIT_PKT_MAX];
	uint32_t olen = unit_expect_out(p, v6 ? &mac_nb6 : &mac_nb4, 0, out);

	assert_int_equal(f->port, EG_PORT);
	assert_int_equal(f->len, olen);
	assert_memory_equal(f->b, out, olen);
}

/* FOU ipip, gre with key and checksum, and sit, each in three fragments:
 * in order, reversed, the middle first; two datagrams interleaved; every
 * way as one burst and one fragment per call. */
static void
test_reasm_orders(void **state)
{
	static const unsigned int orders[3][3] = { { 0, 1, 2 }, { 2, 1, 0 }, { 1, 2, 0 } };
	static const uint32_t cut[] = { 400, 808 };
	struct unit_pkt p[3];
	struct frag f[3][3];
	const struct unit_pkt *pk[3] = { &p[0], &p[1], &p[2] };
	const struct frag *fr[3] = { f[0], f[1], f[2] };
	static const uint16_t ids[3] = { 7001, 7002, 7003 };
	unsigned int o, d, per, i, n;

	(void)state;
	reasm_gw(NULL);
	build(&p[0], unit_spec_ipip, 0, 1100);
	build(&p[1], NULL, FOU_GRE_K | FOU_GRE_C, 1100);
	build(&p[2], unit_spec_sit, 0, 1100);
	for (d = 0; d < 3; d++)
		assert_int_equal(frag_cut(&p[d], cut, 2, f[d]), 3);
	for (per = 1; per <= FOU_BURST; per += FOU_BURST - 1) {
		for (d = 0; d < 3; d++) {
			for (o = 0; o < 3; o++) {
				unsigned int ord[3][2];
				const uint64_t dg = row()->reasm_datagrams;

				for (i = 0; i < 3; i++) {
					ord[i][0] = d;
					ord[i][1] = orders[o][i];
				}
				unit_ctx("datagram %u, order %u, %u per call", d, o, per);
				n = run_frags(pk, fr, ids, (const unsigned int (*)[2])ord, 3, per, got,
					      rte_rdtsc());
				assert_int_equal(n, 1);
				expect_whole(&got[0], &p[d], d == 2);
				assert_int_equal(row()->reasm_datagrams, dg + 1);
			}
		}
		/* the three interleaved, the last fragment of each completing it */
		{
			unsigned int ord[9][2];

			for (i = 0; i < 9; i++) {
				ord[i][0] = i % 3;
				ord[i][1] = orders[1][i / 3];
			}
			unit_ctx("interleaved, %u per call", per);
			n = run_frags(pk, fr, ids, (const unsigned int (*)[2])ord, 9, per, got,
				      rte_rdtsc());
			assert_int_equal(n, 3);
			for (d = 0; d < 3; d++)
				expect_whole(&got[d], &p[d], d == 2);
		}
	}
	assert_int_equal(row()->reasm_in, row()->reasm_out);
	assert_int_equal(row()->reasm_absorbed, 2 * row()->reasm_datagrams);
	assert_int_equal(row()->reasm_datagrams, 2 * (9 + 3));
	balanced();
}

/* Hand one fragment over; returns what was forwarded. */
static unsigned int
one(const struct unit_pkt *p, const struct frag *f, uint16_t id, uint8_t tos, uint64_t now)
{
	struct rte_mbuf *m = frag_mbuf(p, f, id, tos);
	const unsigned int n = unit_burst_at(&ul, RX_PORT, &m, 1, got, now);

	sent += n;
	return n;
}

static uint64_t
drops(enum fou_drop d)
{
	return row()->drop[d];
}

/* Each bad fragment under its reason, with the fragments it takes along. */
static void
test_reasm_classify(void **state)
{
	struct unit_pkt p;
	struct frag f[MAX_FRAGS];
	const uint64_t now = rte_rdtsc();
	unsigned int i;
	uint16_t id = 100;

	(void)state;
	reasm_gw(NULL);
	build(&p, unit_spec_ipip, 0, 1100);
	frag_cut(&p, (const uint32_t[]){ 400, 808 }, 2, f);

	/* a duplicate, of the first and of the last: alone; the datagram completes */
	assert_int_equal(one(&p, &f[0], id, 0, now), 0);
	assert_int_equal(one(&p, &f[0], id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_DUPLICATE), 1);
	assert_int_equal(one(&p, &f[2], id, 0, now), 0);
	assert_int_equal(one(&p, &(struct frag){ f[2].off + 8, f[2].len - 8, false }, id, 0, now),
			 0);
	assert_int_equal(drops(FOU_DROP_REASM_DUPLICATE), 2);
	assert_int_equal(one(&p, &f[1], id, 0, now), 1);
	expect_whole(&got[0], &p, false);

	/* an overlap: the two held and itself */
	id++;
	assert_int_equal(one(&p, &f[0], id, 0, now), 0);
	assert_int_equal(one(&p, &f[2], id, 0, now), 0);
	assert_int_equal(one(&p, &(struct frag){ 392, 16, true }, id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_OVERLAP), 3);
	/* the datagram went: its fragments start a new one (no first yet) */
	assert_int_equal(one(&p, &f[1], id, 0, now), 0);
	assert_int_equal(one(&p, &(struct frag){ 800, 16, true }, id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_OVERLAP), 5);

	/* a second last fragment with another end; one past the end */
	id++;
	assert_int_equal(one(&p, &f[2], id, 0, now), 0);
	assert_int_equal(one(&p, &(struct frag){ f[2].off, f[2].len - 8, false }, id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_BAD), 2);
	id++;
	assert_int_equal(one(&p, &f[1], id, 0, now), 0);
	assert_int_equal(one(&p, &(struct frag){ 200, 8, false }, id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_BAD), 4);
	/* an empty one, alone and in a datagram */
	id++;
	assert_int_equal(one(&p, &(struct frag){ 400, 0, true }, id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_BAD), 5);
	assert_int_equal(one(&p, &f[0], id, 0, now), 0);
	assert_int_equal(one(&p, &(struct frag){ 808, 7, true }, id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_BAD), 7);

	/* past 65535 bytes: alone, and with a datagram held */
	id++;
	assert_int_equal(one(&p, &(struct frag){ 65528, 16, false }, id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_OVERSIZE), 1);
	assert_int_equal(one(&p, &f[0], id, 0, now), 0);
	assert_int_equal(one(&p, &(struct frag){ 65512, 8, true }, id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_OVERSIZE), 3);

	/* DPDK holds the first, the last and 6 between: a 7th between drops all */
	id++;
	for (i = 0; i < 7; i++)
		assert_int_equal(one(&p, &(struct frag){ 8 * i, 8, true }, id, 0, now), 0);
	assert_int_equal(one(&p, &(struct frag){ 200, 8, false }, id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_TOO_MANY), 0);
	assert_int_equal(one(&p, &(struct frag){ 64, 8, true }, id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_TOO_MANY), 9);
	/* without the last, the 7th between is one too many as well */
	id++;
	for (i = 1; i < 7; i++)
		assert_int_equal(one(&p, &(struct frag){ 8 * i, 8, true }, id, 0, now), 0);
	assert_int_equal(one(&p, &(struct frag){ 64, 8, true }, id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_TOO_MANY), 16);
	/* 8 make a datagram */
	id++;
	{
		uint32_t cut[7];

		for (i = 0; i < 7; i++)
			cut[i] = 136 * (i + 1);
		frag_cut(&p, cut, 7, f);
		for (i = 0; i < 7; i++)
			assert_int_equal(one(&p, &f[7 - i], id, 0, now), 0);
		assert_int_equal(one(&p, &f[0], id, 0, now), 1);
		expect_whole(&got[0], &p, false);
		frag_cut(&p, (const uint32_t[]){ 400, 808 }, 2, f);
	}

	/* Not-ECT and CE: the datagram goes when the last comes */
	id++;
	assert_int_equal(one(&p, &f[0], id, 0, now), 0);
	assert_int_equal(one(&p, &f[1], id, 3, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_ECN), 0);
	assert_int_equal(one(&p, &f[2], id, 0, now), 0);
	assert_int_equal(drops(FOU_DROP_REASM_ECN), 3);

	/* another protocol under a held ID: alone */
	id++;
	assert_int_equal(one(&p, &f[0], id, 0, now), 0);
	{
		struct rte_mbuf *m = frag_mbuf(&p, &f[1], id, 0);
		uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, ETH);

		ip[9] = IPPROTO_TCP;
		unit_put16(ip + 10, 0);
		unit_put16(ip + 10, (uint16_t)~rfc1071_fold(rfc1071_sum(ip, 20, 0)));
		assert_int_equal(unit_burst_at(&ul, RX_PORT, &m, 1, got, now), 0);
	}
	assert_int_equal(drops(FOU_DROP_REASM_BAD), 8);
	assert_int_equal(one(&p, &f[2], id, 0, now), 0);
	assert_int_equal(one(&p, &f[1], id, 0, now), 1);
	expect_whole(&got[0], &p, false);

	/* what is held when the context ends: reasm_stopped */
	assert_int_equal(fou_stats_reasm_held(row()), 0);
	assert_int_equal(one(&p, &f[0], 200, 0, now), 0);
	assert_int_equal(one(&p, &f[2], 201, 0, now), 0);
	assert_int_equal(one(&p, &f[1], 201, 0, now), 0);
	{
		const uint64_t held = fou_stats_reasm_held(row());

		assert_int_equal(held, 3);
		unit_lcore_end(&ul);
		assert_int_equal(fou_stats_reasm_held(fou_lcore_stats(cur_gw, rte_lcore_id())), 0);
		assert_int_equal(fou_lcore_stats(cur_gw, rte_lcore_id())->drop[FOU_DROP_REASM_STOPPED],
				 held);
		balanced();
	}
	UNIT_POOL_FULL();
}

/* A table over its memory refuses fragments, never the pool. */
static void
test_reasm_full(void **state)
{
	struct unit_pkt p;
	struct frag f[3];
	struct fou_err err;
	const struct fou_lcore_conf c = { .direct = unit_pool, .indirect = unit_pool,
					  .reasm_mem = 10 * unit_pool->elt_size,
					  .socket_id = SOCKET_ID_ANY };
	struct fou_lcore *lc;
	struct rte_mbuf *m;
	uint16_t port[1];
	unsigned int i;

	(void)state;
	reasm_gw(NULL);
	unit_lcore_end(&ul);
	lc = fou_lcore_create(cur_gw, rte_lcore_id(), &c, &err);
	assert_non_null(lc);
	assert_int_equal(fou_lcore_start(lc), 0);
	build(&p, unit_spec_ipip, 0, 1100);
	frag_cut(&p, (const uint32_t[]){ 400, 808 }, 2, f);
	for (i = 0; i < 12; i++) {
		m = frag_mbuf(&p, &f[0], (uint16_t)(500 + i), 0);
		assert_int_equal(fou_lcore_rx(lc, RX_PORT, &m, 1, rte_rdtsc(), unit_emit_free, NULL),
				 0);
	}
	(void)port;
	assert_int_equal(fou_stats_reasm_held(fou_lcore_stats(cur_gw, rte_lcore_id())), 10);
	assert_int_equal(fou_lcore_stats(cur_gw, rte_lcore_id())->drop[FOU_DROP_REASM_FULL], 2);
	assert_int_equal(rte_mempool_avail_count(unit_pool), UNIT_NB_MBUF - 10);
	fou_lcore_stop(lc, unit_emit_free, NULL);
	fou_lcore_free(lc);
	assert_int_equal(fou_lcore_stats(cur_gw, rte_lcore_id())->drop[FOU_DROP_REASM_STOPPED],
			 10);
	UNIT_POOL_FULL();
}

static struct unit_frame emitted[4];
static unsigned int nb_emitted;

static void
emit_copy(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports, uint16_t n)
{
	uint16_t i;

	(void)ctx;
	sent += n;
	for (i = 0; i < n; i++) {
		if (nb_emitted < RTE_DIM(emitted))
			unit_frame_copy(pkts[i], ports[i], &emitted[nb_emitted++]);
		rte_pktmbuf_free(pkts[i]);
	}
}

/* ip_expire: time exceeded (11/1) about a datagram whose first came. */
static void
test_reasm_timeout(void **state)
{
	struct unit_pkt p;
	struct frag f[3];
	const uint64_t t0 = rte_rdtsc(), hz = rte_get_tsc_hz();
	struct rte_mbuf *m;
	const uint8_t *ip, *icmp, *q;

	(void)state;
	reasm_gw("ipfrag-time 2\n");
	build(&p, unit_spec_ipip, 0, 1100);
	frag_cut(&p, (const uint32_t[]){ 400, 808 }, 2, f);
	assert_int_equal(one(&p, &f[0], 900, 0, t0), 0);
	assert_int_equal(one(&p, &f[2], 900, 0, t0), 0);
	assert_int_equal(one(&p, &f[1], 901, 0, t0), 0);
	/* not yet at 2 s */
	nb_emitted = 0;
	fou_lcore_idle(ul.lc, t0 + 2 * hz, emit_copy, NULL);
	assert_int_equal(nb_emitted, 0);
	assert_int_equal(fou_stats_reasm_held(row()), 3);
	/* past it: the next burst finds them gone (its fragment starts anew) */
	nb_emitted = 0;
	m = frag_mbuf(&p, &f[1], 900, 0);
	assert_int_equal(fou_lcore_rx(ul.lc, RX_PORT, &m, 1, t0 + 2 * hz + 1, emit_copy, NULL), 0);
	assert_int_equal(nb_emitted, 1);
	assert_int_equal(drops(FOU_DROP_REASM_TIMEOUT), 2);
	assert_int_equal(row()->icmp_out[FOU_ICMP_REASM_EXCEEDED], 1);
	assert_int_equal(fou_stats_reasm_held(row()), 1);
	/* to the peer, from the address the fragments were sent to */
	assert_int_equal(emitted[0].port, RX_PORT);
	assert_memory_equal(emitted[0].b, "\x02\x00\x00\x00\x00\x02", 6);
	ip = emitted[0].b + ETH;
	assert_int_equal(ip[9], IPPROTO_ICMP);
	assert_int_equal(unit_get32(ip + 12), IP4(10, 0, 0, 1));
	assert_int_equal(unit_get32(ip + 16), IP4(10, 0, 0, 2));
	assert_true(unit_cksum_ok(ip, 20));
	icmp = ip + 20;
	assert_int_equal(icmp[0], 11);
	assert_int_equal(icmp[1], 1);
	assert_true(unit_cksum_ok(icmp, emitted[0].len - ETH - 20));
	/* the quote: the first fragment's header, as it came, and its data */
	q = icmp + 8;
	assert_int_equal(unit_get16(q + 4), 900);
	assert_int_equal(unit_get16(q + 6), 0x2000);
	assert_memory_equal(q + 20, p.b + p.l3 + 20, 8);
	/* the lone middle one: no error, only the drop */
	nb_emitted = 0;
	fou_lcore_idle(ul.lc, t0 + 5 * hz, emit_copy, NULL);
	assert_int_equal(nb_emitted, 0);
	assert_int_equal(drops(FOU_DROP_REASM_TIMEOUT), 3);
	assert_int_equal(fou_stats_reasm_held(row()), 0);
	balanced();
}

/* A ping of 3000 bytes in three fragments: a chain through local delivery,
 * the reply the right length with a checksum over the whole. */
static void
test_reasm_chain(void **state)
{
	enum { DATA = 3000 };
	static uint8_t b[ETH + 20 + 8 + DATA];
	struct rte_mbuf *m[3], *r;
	uint16_t port[3];
	uint8_t *ip = b + ETH, *icmp = ip + 20, buf[64];
	uint32_t i, sum;
	static const uint32_t cut[4] = { 0, 1480, 2960, 8 + DATA };

	(void)state;
	reasm_gw("link 0,mtu=9000\n");
	memcpy(b, mac_rx.addr_bytes, 6);
	memcpy(b + 6, "\x02\x00\x00\x00\x00\x02", 6);
	unit_put16(b + 12, RTE_ETHER_TYPE_IPV4);
	icmp[0] = 8;
	unit_put16(icmp + 4, 77);
	unit_put16(icmp + 6, 1);
	for (i = 0; i < DATA; i++)
		icmp[8 + i] = (uint8_t)i;
	unit_put16(icmp + 2, (uint16_t)~rfc1071_fold(rfc1071_sum(icmp, 8 + DATA, 0)));
	for (i = 0; i < 3; i++) {
		uint8_t fb[ETH + 20 + 1480];
		const uint32_t len = cut[i + 1] - cut[i];

		memset(fb, 0, sizeof(fb));
		memcpy(fb, b, ETH);
		fb[ETH] = 0x45;
		unit_put16(fb + ETH + 2, (uint16_t)(20 + len));
		unit_put16(fb + ETH + 4, 4711);
		unit_put16(fb + ETH + 6, (uint16_t)((i < 2 ? 0x2000 : 0) | cut[i] / 8));
		fb[ETH + 8] = 64;
		fb[ETH + 9] = IPPROTO_ICMP;
		unit_put32(fb + ETH + 12, IP4(10, 0, 0, 2));
		unit_put32(fb + ETH + 16, IP4(10, 0, 0, 1));
		unit_put16(fb + ETH + 10, (uint16_t)~rfc1071_fold(rfc1071_sum(fb + ETH, 20, 0)));
		memcpy(fb + ETH + 20, icmp + cut[i], len);
		m[i] = unit_mbuf(fb, ETH + 20 + len);
	}
	assert_int_equal(unit_rx(&ul, RX_PORT, m, 3, port), 1);
	sent++;
	r = m[0];
	assert_int_equal(port[0], RX_PORT);
	assert_true(r->nb_segs > 1);
	assert_int_equal(rte_pktmbuf_pkt_len(r), ETH + 20 + 8 + DATA);
	assert_int_equal(row()->icmp_out[FOU_ICMP_ECHO_REPLY], 1);
	/* the reply: type 0, the data as sent, its checksum over the chain */
	memcpy(buf, rte_pktmbuf_read(r, ETH, 28, buf), 28);
	assert_int_equal(buf[20], 0);
	assert_int_equal(unit_get16(buf + 2), 20 + 8 + DATA);
	assert_true(unit_cksum_ok(buf, 20));
	sum = 0;
	for (i = 0; i < 8 + DATA; i += 32) {
		const uint32_t n = RTE_MIN(32u, 8 + DATA - i);
		const uint8_t *d = rte_pktmbuf_read(r, ETH + 20 + i, n, buf);

		/* every piece starts at an even offset: the sums add up */
		sum = rfc1071_sum(d, n, sum);
		if (i + n > 8)
			assert_memory_equal(d + (i < 8 ? 8 - i : 0),
					    icmp + RTE_MAX(i, 8u), n - (i < 8 ? 8 - i : 0));
	}
	assert_int_equal(rfc1071_fold(sum), 0xffff);
	rte_pktmbuf_free(r);
	assert_int_equal(row()->reasm_absorbed, 2);
	balanced();
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_reasm_orders),
		T(test_reasm_classify),
		T(test_reasm_full),
		T(test_reasm_timeout),
		T(test_reasm_chain),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests(tests, NULL, NULL);
	return unit_eal_fini(failures);
}
