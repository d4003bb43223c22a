/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>

#include "unit.h"
#include "fou_hdr.h"
#include "fou_private.h"	/* the hold and event rings the control thread reads */

struct rte_mempool *unit_pool;
struct fou_lcore_stats unit_stats;
struct unit_ev unit_events[UNIT_EVENTS_MAX];
unsigned int unit_nb_events;

const struct rte_ether_addr mac_rx = { { 0x02, 0, 0, 0, 0, 0x01 } };
const struct rte_ether_addr mac_peer = { { 0x02, 0, 0, 0, 0, 0x02 } };
const struct rte_ether_addr mac_eg = { { 0x02, 0, 0, 0, 0x01, 0x01 } };
const struct rte_ether_addr mac_nb4 = { { 0x02, 0, 0, 0, 0x01, 0x02 } };
const struct rte_ether_addr mac_nb6 = { { 0x02, 0, 0, 0, 0x01, 0x03 } };
const struct rte_ether_addr mac_nb4_7 = { { 0x02, 0, 0, 0, 0x01, 0x07 } };
const struct rte_ether_addr mac_nb6_7 = { { 0x02, 0, 0, 0, 0x01, 0x08 } };
const struct rte_ether_addr mac_zero;

static char unit_ctx_buf[256];

/* --- EAL ---------------------------------------------------------------- */

void
unit_eal_init(const char *prog)
{
	char lcore[16];
	cpu_set_t set;
	int cpu = 0;

	/* one lcore, on a CPU this process may run on */
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
			;
	snprintf(lcore, sizeof(lcore), "%d", cpu);

	/*
	 * No hugepages, no shared runtime files and no telemetry socket, so
	 * that test binaries run side by side and without root (--in-memory
	 * would do the same but EAL refuses it with --no-huge). A gateway of
	 * the default sizes takes about 141 MiB (most of it the first levels
	 * of rte_fib and rte_fib6, 32 MiB each, and their RIBs): 512 MB hold
	 * three; test_forward and test_stmt need two.
	 */
	char *argv[] = {
		(char *)prog, "-l", lcore, "--no-huge", "-m", "512", "--no-pci",
		"--no-shconf", "--no-telemetry", "--iova-mode=va", "--log-level=*:error",
	};

	if (rte_eal_init((int)RTE_DIM(argv), argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed: %s\n", prog, rte_strerror(rte_errno));
		exit(1);
	}
	/* no per-lcore cache: the available count is exact at all times */
	unit_pool = rte_pktmbuf_pool_create("unit_pool", UNIT_NB_MBUF, 0, 0,
					    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (unit_pool == NULL) {
		fprintf(stderr, "%s: cannot create the mbuf pool: %s\n", prog,
			rte_strerror(rte_errno));
		exit(1);
	}
}

int
unit_eal_fini(int failures)
{
	rte_mempool_free(unit_pool);
	rte_eal_cleanup();
	return failures != 0;
}

/* --- topology ------------------------------------------------------------ */

void
unit_stmt(struct fou_gw *gw, bool del, const char *name, const char *arg, const char *file,
	  int line)
{
	struct fou_err err = { "" };
	int ret = (del ? fou_stmt_del : fou_stmt_apply)(gw, name, arg, &err);

	if (ret != 0) {
		print_error("%s%s %s: %d (%s)\n", del ? "del " : "", name, arg, ret, err.msg);
		_fail(file, line);
	}
}

struct fou_gw *
unit_gw_new(const struct fou_gw_params *p)
{
	struct fou_gw_params def;
	struct fou_err err = { "" };
	struct fou_gw *gw;

	if (p == NULL) {
		fou_gw_params_default(&def);
		p = &def;
	}
	gw = fou_gw_create(p, &err);
	if (gw == NULL) {
		print_error("fou_gw_create: %s\n", err.msg);
		fail();
	}
	return gw;
}

struct fou_gw *
unit_gw_std(void)
{
	return unit_gw_std_params(NULL);
}

struct fou_gw *
unit_gw_std_params(const struct fou_gw_params *p)
{
	static const char *const stmts[][2] = {
		{ "addr", "0,10.0.0.1/24" },
		{ "addr", "1,192.168.1.1/24" },
		{ "addr", "1,fd00:1::1/64" },
		{ "neigh", "192.168.1.2,dev=1,lladdr=02:00:00:00:01:02" },
		{ "neigh", "fd00:1::2,dev=1,lladdr=02:00:00:00:01:03" },
		{ "neigh", "192.168.1.7,dev=1,lladdr=02:00:00:00:01:07" },
		{ "neigh", "fd00:1::7,dev=1,lladdr=02:00:00:00:01:08" },
		{ "route", "10.20.0.0/16,dev=1,via=192.168.1.2" },
		{ "route", "fd00:20::/32,dev=1,via=fd00:1::2" },
		{ "route", "10.21.0.0/16,dev=1,via=192.168.1.3" },
		{ "route", "fd00:21::/32,dev=1,via=fd00:1::3" },
		{ "port", "5555:ipip" },
		{ "port", "5556:gre" },
		{ "port", "5557:sit" },
		{ "port", "6000:17" },
	};
	struct fou_err err = { "" };
	struct fou_gw *gw = unit_gw_new(p);
	unsigned int i;

	assert_int_equal(fou_iface_set(gw, RX_PORT, &mac_rx, 1500, &err), 0);
	assert_int_equal(fou_iface_set(gw, EG_PORT, &mac_eg, 1500, &err), 0);
	for (i = 0; i < RTE_DIM(stmts); i++)
		UNIT_APPLY(gw, stmts[i][0], stmts[i][1]);
	return gw;
}

void
unit_apply_lines(struct fou_gw *gw, const char *lines, const char *file, int line)
{
	char buf[1024], *l, *save = NULL;

	if (snprintf(buf, sizeof(buf), "%s", lines) >= (int)sizeof(buf))
		_fail(file, line);
	for (l = strtok_r(buf, "\n", &save); l != NULL; l = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(l, ' ');

		if (sp == NULL) {
			print_error("'%s' is not NAME ARG\n", l);
			_fail(file, line);
		}
		*sp = '\0';
		unit_stmt(gw, false, l, sp + 1, file, line);
	}
}

/* --- a worker's context ------------------------------------------------------ */

/*
 * The contexts open now, by id: a test that fails (a longjmp out of it)
 * leaves its own, and its teardown ends them with unit_lcore_end_all()
 * before the gateway goes. An id is never reused, so that a stale
 * struct unit_lcore (a static one of a test that failed) ends nothing.
 */
#define UNIT_LCORES 8
static struct {
	struct fou_lcore *lc;
	uint64_t id;
} unit_open[UNIT_LCORES];
static uint64_t unit_next_id = 1;

void
unit_emit_free(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports, uint16_t n)
{
	(void)ctx;
	(void)ports;
	rte_pktmbuf_free_bulk(pkts, n);
}

static void
unit_lcore_close(unsigned int i)
{
	fou_lcore_stop(unit_open[i].lc, unit_emit_free, NULL);
	fou_lcore_free(unit_open[i].lc);
	unit_open[i].lc = NULL;
	unit_open[i].id = 0;
}

void
unit_lcore_end(struct unit_lcore *u)
{
	unsigned int i;

	for (i = 0; u->id != 0 && i < UNIT_LCORES; i++)
		if (unit_open[i].id == u->id)
			unit_lcore_close(i);
	u->lc = NULL;
	u->id = 0;
}

unsigned int
unit_lcore_end_all(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < UNIT_LCORES; i++) {
		if (unit_open[i].lc != NULL) {
			unit_lcore_close(i);
			n++;
		}
	}
	return n;
}

void
unit_lcore_begin_id(struct unit_lcore *u, const struct fou_gw *gw, unsigned int lcore_id,
		    uint16_t ip_id)
{
	const struct fou_lcore_conf c = {
		.direct = unit_pool,
		.indirect = unit_pool,
		.ip_id = ip_id,
		.socket_id = SOCKET_ID_ANY,
	};
	struct fou_err err = { "" };
	unsigned int i;

	unit_lcore_end(u);
	for (i = 0; i < UNIT_LCORES && unit_open[i].lc != NULL; i++)
		;
	if (i == UNIT_LCORES) {
		print_error("more than %u contexts open\n", UNIT_LCORES);
		fail();
	}
	/* a context writes nothing of the gateway but its counters */
	u->gw = (struct fou_gw *)(uintptr_t)gw;
	u->lcore_id = lcore_id;
	u->lc = fou_lcore_create(u->gw, lcore_id, &c, &err);
	if (u->lc == NULL) {
		print_error("fou_lcore_create: %s\n", err.msg);
		fail();
	}
	u->id = unit_next_id++;
	unit_open[i].lc = u->lc;
	unit_open[i].id = u->id;
	memset(&u->st, 0, sizeof(u->st));
}

void
unit_lcore_begin(struct unit_lcore *u, const struct fou_gw *gw, uint16_t ip_id)
{
	unit_lcore_begin_id(u, gw, rte_lcore_id(), ip_id);
}

/* What fou_lcore_rx() sent, in order. */
struct unit_sent {
	struct rte_mbuf *pkts[UNIT_NB_MBUF];
	uint16_t ports[UNIT_NB_MBUF];
	uint16_t n;
	bool over;
};

static void
unit_emit_collect(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports, uint16_t n)
{
	struct unit_sent *s = ctx;
	uint16_t i;

	for (i = 0; i < n; i++) {
		if (s->n == RTE_DIM(s->pkts)) {
			rte_pktmbuf_free(pkts[i]);
			s->over = true;
			continue;
		}
		s->pkts[s->n] = pkts[i];
		s->ports[s->n++] = ports[i];
	}
}

/* st += now - before, counter by counter (the struct is uint64_t only). */
static void
unit_stats_add(struct fou_lcore_stats *st, const struct fou_lcore_stats *now,
	       const struct fou_lcore_stats *before)
{
	uint64_t *d = (uint64_t *)st;
	const uint64_t *a = (const uint64_t *)now, *b = (const uint64_t *)before;
	size_t i;

	RTE_BUILD_BUG_ON(sizeof(*st) % sizeof(uint64_t) != 0);
	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		d[i] += a[i] - b[i];
}

uint16_t
unit_rx(struct unit_lcore *u, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
	uint16_t *out_port)
{
	return unit_rx_at(u, port, pkts, n, out_port, rte_rdtsc());
}

/* unit_rx_at() whose pkts and out_port have room for cap packets (a packet
 * fragmented on its way out leaves as several). */
static uint16_t
unit_rx_cap(struct unit_lcore *u, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
	    uint16_t cap, uint16_t *out_port, uint64_t now)
{
	static struct unit_sent sent;
	static struct fou_lcore_stats before;
	const struct fou_lcore_stats *row;
	uint16_t nf, i;

	if (u->lc == NULL) {
		print_error("unit_rx() without a context (unit_lcore_begin())\n");
		fail();
	}
	if (n > RTE_DIM(sent.pkts)) {
		print_error("unit_rx() of %u packets\n", n);
		fail();
	}
	row = fou_lcore_stats(u->gw, u->lcore_id);
	before = *row;
	sent.n = 0;
	sent.over = false;
	nf = fou_lcore_rx(u->lc, port, pkts, n, now, unit_emit_collect, &sent);
	unit_stats_add(&u->st, row, &before);
	if (sent.n > cap) {
		print_error("fou_lcore_rx() sent %u packets, room for %u\n", sent.n, cap);
		for (i = 0; i < sent.n; i++)
			rte_pktmbuf_free(sent.pkts[i]);
		fail();
	}
	for (i = 0; i < sent.n; i++) {
		pkts[i] = sent.pkts[i];
		out_port[i] = sent.ports[i];
	}
	if (sent.over || sent.n != nf) {
		print_error("fou_lcore_rx() forwarded %u packets and sent %u%s\n", nf, sent.n,
			    sent.over ? " and more" : "");
		for (i = 0; i < sent.n; i++)
			rte_pktmbuf_free(pkts[i]);
		fail();
	}
	return sent.n;
}

uint16_t
unit_rx_at(struct unit_lcore *u, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
	   uint16_t *out_port, uint64_t now)
{
	return unit_rx_cap(u, port, pkts, n, n, out_port, now);
}

void
unit_frame_copy(const struct rte_mbuf *m, uint16_t port, struct unit_frame *f)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const void *d = NULL;

	f->len = len;
	f->port = port;
	f->ol_flags = m->ol_flags;
	f->l2_len = (uint8_t)m->l2_len;
	f->l3_len = (uint8_t)m->l3_len;
	f->l4_len = (uint8_t)m->l4_len;
	if (len <= sizeof(f->b))
		d = rte_pktmbuf_read(m, 0, len, f->b);
	if (d == NULL)
		f->len = 0;
	else if (d != f->b)
		memcpy(f->b, d, len);
}

uint16_t
unit_burst(struct unit_lcore *u, struct rte_mbuf **pkts, uint16_t n, struct unit_frame *got)
{
	return unit_burst_at(u, RX_PORT, pkts, n, got, rte_rdtsc());
}

uint16_t
unit_burst_at(struct unit_lcore *u, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
	      struct unit_frame *got, uint64_t now)
{
	struct rte_mbuf *io[FOU_BURST];
	uint16_t out_port[FOU_BURST], nb, i;

	assert_true(n <= FOU_BURST);
	memcpy(io, pkts, n * sizeof(*pkts));
	nb = unit_rx_cap(u, port, io, n, FOU_BURST, out_port, now);
	for (i = 0; i < nb; i++) {
		unit_frame_copy(io[i], out_port[i], &got[i]);
		rte_pktmbuf_free(io[i]);
	}
	return nb;
}

/* --- the gateway's own stack ------------------------------------------------ */

static void
unit_key_ip(struct fou_ip *ip, uint8_t family, const uint8_t *addr)
{
	memset(ip, 0, sizeof(*ip));
	ip->family = family;
	ip->plen = family == AF_INET ? 32 : 128;
	memcpy(family == AF_INET ? (void *)&ip->v4 : (void *)ip->v6, addr,
	       family == AF_INET ? 4 : 16);
}

unsigned int
unit_held_take(struct fou_gw *gw, struct unit_held *got, unsigned int n)
{
	struct rte_mbuf *m[FOU_HOLD_RING];
	unsigned int k, i;

	/* out and back in, in order: fou_neigh_stop() drains it as at exit */
	k = rte_ring_sc_dequeue_burst(gw->hold_ring, (void **)m, RTE_DIM(m), NULL);
	for (i = 0; i < k && got != NULL && i < n; i++) {
		struct fou_neigh_key key;

		memcpy(&key, RTE_MBUF_DYNFIELD(m[i], gw->hold_key_off, void *), sizeof(key));
		unit_frame_copy(m[i], key.port, &got[i].f);
		unit_key_ip(&got[i].neigh, key.family, key.addr);
	}
	if (rte_ring_mp_enqueue_bulk(gw->hold_ring, (void **)m, k, NULL) != k) {
		rte_pktmbuf_free_bulk(m, k);
		print_error("the hold ring took back fewer than the %u packets it had\n", k);
		fail();
	}
	fou_neigh_stop(gw);
	return k;
}

static_assert((int)UNIT_EV_SOLICIT == (int)FOU_NEV_SOLICIT &&
	      (int)UNIT_EV_ADVERT == (int)FOU_NEV_ADVERT &&
	      (int)UNIT_EV_OTHER == (int)FOU_NEV_OTHER && UNIT_EV_F_CONFIRM == FOU_NEV_F_CONFIRM &&
	      UNIT_EV_F_OVERRIDE == FOU_NEV_F_OVERRIDE && UNIT_EV_F_ROUTER == FOU_NEV_F_ROUTER,
	      "the harness's event names differ from the library's");

unsigned int
unit_events_take(struct fou_gw *gw, struct unit_ev *ev, unsigned int n)
{
	struct fou_neigh_ev e;
	unsigned int k = 0;

	while (rte_ring_sc_dequeue_elem(gw->nev_ring, &e, sizeof(e)) == 0) {
		if (ev != NULL && k < n) {
			ev[k].kind = e.kind;
			ev[k].flags = e.flags;
			ev[k].port = e.port;
			ev[k].mac = e.mac;
			unit_key_ip(&ev[k].ip, e.family, e.addr);
		}
		k++;
	}
	return k;
}

const struct fou_lcore_stats *
unit_ctl_stats(const struct fou_gw *gw)
{
	return &gw->stats[FOU_LCORE_CONTROL];
}

/* Ends the contexts still open: -1 (and says so) if there were any. */
static int
unit_lcores_closed(void)
{
	unsigned int open = unit_lcore_end_all();

	if (open == 0)
		return 0;
	print_error("%u worker context(s) still open after the test (ended now)\n", open);
	return -1;
}

int
unit_test_teardown_gw(void **state, struct fou_gw *gw)
{
	int ret = unit_lcores_closed();

	fou_gw_free(gw);
	return unit_test_teardown_pool(state) != 0 ? -1 : ret;
}

int
unit_test_teardown_pool(void **state)
{
	unsigned int avail;
	int ret = unit_lcores_closed();

	(void)state;
	unit_ctx_buf[0] = '\0';
	avail = rte_mempool_avail_count(unit_pool);
	if (avail != UNIT_NB_MBUF) {
		print_error("mbuf leak: %u of %u mbufs in the pool after the test\n", avail,
			    UNIT_NB_MBUF);
		ret = -1;
	}
	return ret;
}

/* --- checksums ----------------------------------------------------------- */

bool
unit_cksum_ok(const uint8_t *b, size_t n)
{
	return rfc1071_fold(rfc1071_sum(b, n, 0)) == 0xffff;
}

/* Write ~sum of b[0..n) into the 16-bit field at b + at (zeroed first). */
static void
unit_cksum_set(uint8_t *b, size_t n, size_t at, uint32_t init)
{
	unit_put16(b + at, 0);
	unit_put16(b + at, (uint16_t)~rfc1071_fold(rfc1071_sum(b, n, init)));
}

/* --- packet builder ----------------------------------------------------- */

static void
unit_spec_base(struct unit_spec *s, uint16_t sport, uint16_t dport)
{
	memset(s, 0, sizeof(*s));
	s->eth_dst = mac_rx;
	s->vlan = -1;
	s->ttl = 64;
	s->ip_id = 0x04d2;
	s->src = IP4(10, 0, 0, 2);
	s->dst = IP4(10, 0, 0, 1);
	s->sport = sport;
	s->dport = dport;
	s->in_ttl = 64;
	s->payload = 8;
}

static void
unit_spec_in4(struct unit_spec *s)
{
	s->inner = UNIT_IN_V4;
	s->in_src4 = IP4(10, 30, 0, 5);
	s->in_dst4 = IP4(10, 20, 0, 7);
}

static void
unit_spec_in6(struct unit_spec *s)
{
	s->inner = UNIT_IN_V6;
	inet_pton(AF_INET6, "fd00:30::5", s->in_src6);
	inet_pton(AF_INET6, "fd00:20::7", s->in_dst6);
}

void
unit_spec_ipip(struct unit_spec *s)
{
	unit_spec_base(s, 51234, PORT_IPIP);
	unit_spec_in4(s);
}

void
unit_spec_sit(struct unit_spec *s)
{
	unit_spec_base(s, 51235, PORT_SIT);
	s->udp_csum = true;
	unit_spec_in6(s);
}

void
unit_spec_gre4(struct unit_spec *s, uint16_t flags)
{
	unit_spec_base(s, 51236, PORT_GRE);
	s->gre = true;
	s->gre_flags = flags;
	s->gre_proto = RTE_ETHER_TYPE_IPV4;
	s->gre_key = 0x01020304;
	s->gre_seq = 0x0a0b0c0d;
	unit_spec_in4(s);
}

void
unit_spec_gre6(struct unit_spec *s, uint16_t flags)
{
	unit_spec_base(s, 51237, PORT_GRE);
	s->udp_csum = true;
	s->gre = true;
	s->gre_flags = flags;
	s->gre_proto = RTE_ETHER_TYPE_IPV6;
	s->gre_key = 0x01020304;
	s->gre_seq = 0x0a0b0c0d;
	unit_spec_in6(s);
}

#define C FOU_GRE_C
#define K FOU_GRE_K
#define S FOU_GRE_S

static void
case_ipip(struct unit_spec *s)
{
	unit_spec_ipip(s);
}

static void
case_ipip_csum(struct unit_spec *s)
{
	unit_spec_ipip(s);
	s->udp_csum = true;
}

static void
case_sit(struct unit_spec *s)
{
	unit_spec_sit(s);
}

#define CASE_GRE4(n, f) \
	static void case_gre4_##n(struct unit_spec *s) { unit_spec_gre4(s, f); }
CASE_GRE4(none, 0)
CASE_GRE4(c, C)
CASE_GRE4(k, K)
CASE_GRE4(s, S)
CASE_GRE4(ck, C | K)
CASE_GRE4(cs, C | S)
CASE_GRE4(ks, K | S)
CASE_GRE4(cks, C | K | S)

static void
case_gre6(struct unit_spec *s)
{
	unit_spec_gre6(s, C | K);
}

static void
case_vlan(struct unit_spec *s)
{
	unit_spec_ipip(s);
	s->vlan = 100;
}

static void
case_ipopt(struct unit_spec *s)
{
	unit_spec_ipip(s);
	s->opt_words = 1;
}

/* The FOU payload of g_other: a UDP header (1 -> 2) and "fou-test". */
static const uint8_t other_payload[] = {
	0x00, 0x01, 0x00, 0x02, 0x00, 0x10, 0x00, 0x00,
	0x66, 0x6f, 0x75, 0x2d, 0x74, 0x65, 0x73, 0x74,
};

static void
case_other(struct unit_spec *s)
{
	unit_spec_ipip(s);
	s->sport = 51238;
	s->dport = PORT_OTHER;
	s->inner = UNIT_IN_RAW;
	s->raw = other_payload;
	s->raw_len = sizeof(other_payload);
}

const struct unit_case unit_cases[] = {
	{ "g_ipip", case_ipip, PORT_IPIP, FOU_INNER_IPV4 },
	{ "g_ipip_csum", case_ipip_csum, PORT_IPIP, FOU_INNER_IPV4 },
	{ "g_sit", case_sit, PORT_SIT, FOU_INNER_IPV6 },
	{ "g_gre4_none", case_gre4_none, PORT_GRE, FOU_INNER_IPV4 },
	{ "g_gre4_c", case_gre4_c, PORT_GRE, FOU_INNER_IPV4 },
	{ "g_gre4_k", case_gre4_k, PORT_GRE, FOU_INNER_IPV4 },
	{ "g_gre4_s", case_gre4_s, PORT_GRE, FOU_INNER_IPV4 },
	{ "g_gre4_ck", case_gre4_ck, PORT_GRE, FOU_INNER_IPV4 },
	{ "g_gre4_cs", case_gre4_cs, PORT_GRE, FOU_INNER_IPV4 },
	{ "g_gre4_ks", case_gre4_ks, PORT_GRE, FOU_INNER_IPV4 },
	{ "g_gre4_cks", case_gre4_cks, PORT_GRE, FOU_INNER_IPV4 },
	{ "g_gre6", case_gre6, PORT_GRE, FOU_INNER_IPV6 },
	{ "g_other", case_other, PORT_OTHER, -1 },
	{ "g_vlan", case_vlan, PORT_IPIP, FOU_INNER_IPV4 },
	{ "g_ipopt", case_ipopt, PORT_IPIP, FOU_INNER_IPV4 },
};
const unsigned int unit_nb_cases = RTE_DIM(unit_cases);

void
unit_case_build(const struct unit_case *c, struct unit_pkt *p)
{
	struct unit_spec s;

	c->spec(&s);
	unit_build(&s, p);
}

static void
unit_fill(uint8_t *b, uint32_t n, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + 7 * i);
}

/* Inner UDP datagram with its checksum; phdr is the pseudo-header sum. */
static uint32_t
unit_inner_udp(uint8_t *u, uint16_t payload, uint32_t phdr)
{
	static const char pattern[] = "fou-test";
	uint16_t ulen = (uint16_t)(8 + payload), c;
	unsigned int i;

	unit_put16(u, 40000);
	unit_put16(u + 2, 7);
	unit_put16(u + 4, ulen);
	unit_put16(u + 6, 0);
	for (i = 0; i < payload; i++)
		u[8 + i] = (uint8_t)pattern[i % 8];
	c = (uint16_t)~rfc1071_fold(rfc1071_sum(u, ulen, phdr + 17 + ulen));
	unit_put16(u + 6, c == 0 ? 0xffff : c);
	return ulen;
}

static uint32_t
unit_build_in4(const struct unit_spec *s, uint8_t *ip, struct unit_pkt *p)
{
	uint32_t hl = 20 + 4u * s->in_opt_words, tot;

	tot = hl + 8 + s->payload;
	ip[0] = (uint8_t)(0x40 | (hl / 4));
	ip[1] = s->in_tos;
	unit_put16(ip + 2, (uint16_t)tot);
	unit_put16(ip + 4, 0x1234);
	unit_put16(ip + 6, 0x4000);
	ip[8] = s->in_ttl;
	ip[9] = IPPROTO_UDP;
	unit_put32(ip + 12, s->in_src4);
	unit_put32(ip + 16, s->in_dst4);
	memset(ip + 20, 0x01, hl - 20);	/* NOP options */
	unit_inner_udp(ip + hl, s->payload, rfc1071_sum(ip + 12, 8, 0));
	p->inner_hl = hl;
	return tot;
}

static uint32_t
unit_build_in6(const struct unit_spec *s, uint8_t *ip, struct unit_pkt *p)
{
	uint16_t plen = (uint16_t)(8 + s->payload);

	unit_put32(ip, 6u << 28 | (uint32_t)s->in_tos << 20 | 0x12345);
	unit_put16(ip + 4, plen);
	ip[6] = IPPROTO_UDP;
	ip[7] = s->in_ttl;
	memcpy(ip + 8, s->in_src6, 16);
	memcpy(ip + 24, s->in_dst6, 16);
	unit_inner_udp(ip + 40, s->payload, rfc1071_sum(ip + 8, 32, 0));
	p->inner_hl = 40;
	return 40u + plen;
}

void
unit_build(const struct unit_spec *s, struct unit_pkt *p)
{
	uint8_t *b = p->b;
	uint32_t o, hl;

	memset(p, 0, sizeof(*p));
	memcpy(b, s->eth_dst.addr_bytes, 6);
	memcpy(b + 6, mac_peer.addr_bytes, 6);
	o = 12;
	if (s->vlan >= 0) {
		unit_put16(b + o, RTE_ETHER_TYPE_VLAN);
		unit_put16(b + o + 2, (uint16_t)s->vlan);
		o += 4;
	}
	unit_put16(b + o, RTE_ETHER_TYPE_IPV4);
	o += 2;

	p->l3 = o;
	hl = 20 + 4u * s->opt_words;
	b[o] = (uint8_t)(0x40 | (hl / 4));
	b[o + 1] = s->tos;
	unit_put16(b + o + 4, s->ip_id);
	unit_put16(b + o + 6, 0x4000);
	b[o + 8] = s->ttl;
	b[o + 9] = IPPROTO_UDP;
	unit_put32(b + o + 12, s->src);
	unit_put32(b + o + 16, s->dst);
	if (s->opt_words != 0) {
		static const uint8_t router_alert[] = { 0x94, 0x04, 0x00, 0x00 };

		memcpy(b + o + 20, router_alert, 4);
		memset(b + o + 24, 0x01, hl - 24);
	}
	o += hl;

	p->l4 = o;
	unit_put16(b + o, s->sport);
	unit_put16(b + o + 2, s->dport);
	o += 8;

	if (s->gre) {
		p->gre = o;
		unit_put16(b + o, s->gre_flags);
		unit_put16(b + o + 2, s->gre_proto);
		o += 4;
		if (s->gre_flags & FOU_GRE_C)
			o += 4;		/* checksum + reserved, set by unit_fix */
		if (s->gre_flags & FOU_GRE_K) {
			unit_put32(b + o, s->gre_key);
			o += 4;
		}
		if (s->gre_flags & FOU_GRE_S) {
			unit_put32(b + o, s->gre_seq);
			o += 4;
		}
		p->gre_len = o - p->gre;
		p->gre_c = (s->gre_flags & FOU_GRE_C) != 0;
	}

	p->inner = o;
	p->kind = s->inner;
	switch (s->inner) {
	case UNIT_IN_V4:
		p->inner_tot = unit_build_in4(s, b + o, p);
		break;
	case UNIT_IN_V6:
		p->inner_tot = unit_build_in6(s, b + o, p);
		break;
	case UNIT_IN_RAW:
		memcpy(b + o, s->raw, s->raw_len);
		p->inner_tot = s->raw_len;
		break;
	}
	o += p->inner_tot;
	unit_fill(b + o, s->trailer, 0xa5);
	o += s->trailer;
	unit_put16(b + p->l4 + 4, (uint16_t)(o - p->l4));
	unit_fill(b + o, s->udp_trailer, 0x5a);
	o += s->udp_trailer;
	unit_put16(b + p->l3 + 2, (uint16_t)(o - p->l3));
	unit_fill(b + o, s->pad, 0xc3);
	o += s->pad;
	p->len = o;
	p->udp_csum = s->udp_csum;
	unit_fix(p);
}

void
unit_fix(struct unit_pkt *p)
{
	if (p->kind == UNIT_IN_V4 && p->inner + p->inner_hl <= p->len)
		unit_cksum_set(p->b + p->inner, p->inner_hl, 10, 0);
	unit_fix_outer(p);
}

void
unit_fix_outer(struct unit_pkt *p)
{
	uint8_t *b = p->b;
	uint32_t end = 0, ulen = 0;

	if (p->l4 + 8 <= p->len) {
		ulen = unit_get16(b + p->l4 + 4);
		end = RTE_MIN(p->l4 + ulen, p->len);
	}
	if (p->gre_c && ulen >= 8 && p->gre + 8 <= end)
		unit_cksum_set(b + p->gre, end - p->gre, 4, 0);
	if (p->udp_csum && ulen >= 8) {
		uint32_t phdr = rfc1071_sum(b + p->l3 + 12, 8, 0) + IPPROTO_UDP + ulen;

		unit_cksum_set(b + p->l4, end - p->l4, 6, phdr);
		if (unit_get16(b + p->l4 + 6) == 0)
			unit_put16(b + p->l4 + 6, 0xffff);
	}
	if (p->l4 <= p->len)
		unit_cksum_set(b + p->l3, p->l4 - p->l3, 10, 0);
}

uint32_t
unit_expect_out(const struct unit_pkt *p, const struct rte_ether_addr *dst_mac, uint8_t ecn,
		uint8_t *out)
{
	uint8_t *ip = out + RTE_ETHER_HDR_LEN;

	memcpy(out, dst_mac->addr_bytes, 6);
	memcpy(out + 6, mac_eg.addr_bytes, 6);
	unit_put16(out + 12, p->kind == UNIT_IN_V4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	memcpy(ip, p->b + p->inner, p->inner_tot);
	if (p->kind == UNIT_IN_V4) {
		ip[1] = (uint8_t)((ip[1] & ~3u) | ecn);
		ip[8]--;
		unit_cksum_set(ip, p->inner_hl, 10, 0);
	} else {
		ip[1] = (uint8_t)((ip[1] & ~0x30u) | (uint8_t)(ecn << 4));
		ip[7]--;
	}
	return RTE_ETHER_HDR_LEN + p->inner_tot;
}

uint32_t
unit_expect_out_same(const struct unit_pkt *p, const struct rte_ether_addr *dst_mac,
		     uint8_t *out)
{
	const uint8_t *ip = p->b + p->inner;
	uint8_t ecn = p->kind == UNIT_IN_V4 ? ip[1] & 3 : (ip[1] >> 4) & 3;

	return unit_expect_out(p, dst_mac, ecn, out);
}

uint32_t
unit_expect_routed(const uint8_t *ip, uint32_t len, const struct rte_ether_addr *dst_mac,
		   uint8_t *out)
{
	return unit_expect_routed_on(ip, len, EG_PORT, dst_mac, out);
}

uint32_t
unit_expect_routed_on(const uint8_t *ip, uint32_t len, uint16_t port,
		      const struct rte_ether_addr *dst_mac, uint8_t *out)
{
	uint8_t *o = out + RTE_ETHER_HDR_LEN;
	bool v4 = (ip[0] >> 4) == 4;

	memcpy(out, dst_mac->addr_bytes, 6);
	memcpy(out + 6, (port == EG_PORT ? &mac_eg : &mac_rx)->addr_bytes, 6);
	unit_put16(out + 12, v4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	memcpy(o, ip, len);
	if (v4) {
		o[8]--;
		unit_cksum_set(o, (o[0] & 0xfu) * 4, 10, 0);
	} else {
		o[7]--;
	}
	return RTE_ETHER_HDR_LEN + len;
}

void
unit_ip4_cksum_fix(uint8_t *ip)
{
	unit_cksum_set(ip, (ip[0] & 0xfu) * 4, 10, 0);
}

bool
unit_udp4_cksum_ok(const uint8_t *ip)
{
	const uint8_t *u = ip + (ip[0] & 0xfu) * 4;
	uint16_t ulen = unit_get16(u + 4);

	return rfc1071_fold(rfc1071_sum(u, ulen, rfc1071_sum(ip + 12, 8, 0) + IPPROTO_UDP +
					ulen)) == 0xffff;
}

/* --- mbufs -------------------------------------------------------------- */

static struct rte_mbuf *
unit_mbuf_one(const uint8_t *b, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(unit_pool);
	char *d;

	if (m == NULL) {
		print_error("mbuf pool empty\n");
		fail();
	}
	d = rte_pktmbuf_append(m, (uint16_t)len);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		print_error("%u bytes do not fit an mbuf\n", len);
		fail();
	}
	memcpy(d, b, len);
	return m;
}

struct rte_mbuf *
unit_mbuf(const uint8_t *b, uint32_t len)
{
	return unit_mbuf_one(b, len);
}

struct rte_mbuf *
unit_mbuf_segs(const uint8_t *b, uint32_t len, const uint32_t *seg_len, unsigned int nb_segs)
{
	struct rte_mbuf *head = NULL;
	uint32_t off = 0;
	unsigned int i;

	for (i = 0; i < nb_segs; i++) {
		uint32_t n = i + 1 == nb_segs ? len - off : seg_len[i];
		struct rte_mbuf *m = unit_mbuf_one(b + off, n);

		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0)
			fail();
		off += n;
	}
	return head;
}

/* --- running frames ----------------------------------------------------- */

void
unit_ctx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(unit_ctx_buf, sizeof(unit_ctx_buf), fmt, ap);
	va_end(ap);
}

static void
unit_hexdump(const char *what, const uint8_t *b, uint32_t len, uint32_t from)
{
	uint32_t i;

	print_error("  %s (from byte %u):", what, from);
	for (i = from; i < len && i < from + 24; i++)
		print_error(" %02x", b[i]);
	print_error("\n");
}

static int
unit_slot(const struct fou_gw *gw, uint16_t udp_port)
{
	struct fou_port_info info[FOU_MAX_UDP_PORTS];
	unsigned int n = fou_port_list(gw, info, RTE_DIM(info)), i;

	for (i = 0; i < n && i < RTE_DIM(info); i++)
		if (info[i].udp_port == udp_port)
			return info[i].slot;
	return -1;
}

/* Every counter equal to what e says, or the differences printed. */
static bool
unit_stats_ok(const struct fou_gw *gw, const struct unit_exp *e)
{
	static struct fou_lcore_stats exp;
	const struct fou_lcore_stats *st = &unit_stats;
	bool ok = true;
	unsigned int i;

	memset(&exp, 0, sizeof(exp));
	exp.rx[RX_PORT] = 1;
	if (e->verdict < FOU_DROP_MAX)
		exp.drop[e->verdict] = 1;
	memcpy(exp.local, e->local, sizeof(exp.local));
	if (e->verdict == UNIT_HELD)
		exp.local[FOU_LOCAL_NEIGH_QUEUED]++;
	if (e->verdict == UNIT_CONSUMED)
		exp.local[FOU_LOCAL_CONSUMED]++;
	if (e->decap_port != 0) {
		int slot = unit_slot(gw, e->decap_port);

		if (slot < 0) {
			print_error("  UDP port %u is not a FOU port\n", e->decap_port);
			return false;
		}
		exp.decap[slot] = 1;
	}
	if (e->decap_inner >= 0)
		exp.decap_inner[e->decap_inner] = 1;

	for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
		if (st->rx[i] != exp.rx[i] || st->tx[i] != exp.tx[i]) {
			print_error("  port %u: rx %" PRIu64 " tx %" PRIu64 ", expected rx %" PRIu64
				    " tx 0\n", i, st->rx[i], st->tx[i], exp.rx[i]);
			ok = false;
		}
	}
	for (i = 0; i < FOU_DROP_MAX; i++) {
		if (st->drop[i] != exp.drop[i]) {
			print_error("  drop %s = %" PRIu64 ", expected %" PRIu64 "\n",
				    fou_drop_name(i), st->drop[i], exp.drop[i]);
			ok = false;
		}
	}
	for (i = 0; i <= FOU_MAX_UDP_PORTS; i++) {
		if (st->decap[i] != exp.decap[i]) {
			print_error("  decap[slot %u] = %" PRIu64 ", expected %" PRIu64 "\n", i,
				    st->decap[i], exp.decap[i]);
			ok = false;
		}
	}
	for (i = 0; i < FOU_INNER_MAX; i++) {
		if (st->decap_inner[i] != exp.decap_inner[i]) {
			print_error("  decap_inner %s = %" PRIu64 ", expected %" PRIu64 "\n",
				    fou_inner_name(i), st->decap_inner[i], exp.decap_inner[i]);
			ok = false;
		}
	}
	for (i = 0; i < FOU_LOCAL_MAX; i++) {
		if (st->local[i] != exp.local[i]) {
			print_error("  local %s = %" PRIu64 ", expected %" PRIu64 "\n",
				    fou_local_name(i), st->local[i], exp.local[i]);
			ok = false;
		}
	}
	return ok;
}

static const char *
unit_verdict_name(unsigned int v)
{
	return v == UNIT_FWD ? "forwarded" : v == UNIT_HELD ? "held" :
	       v == UNIT_CONSUMED ? "consumed" : fou_drop_name(v);
}

/* The verdict the counters show, for messages. */
static unsigned int
unit_counted_verdict(void)
{
	unsigned int i;

	for (i = 0; i < FOU_DROP_MAX; i++)
		if (unit_stats.drop[i] != 0)
			return i;
	if (unit_stats.local[FOU_LOCAL_CONSUMED] != 0)
		return UNIT_CONSUMED;
	return unit_stats.local[FOU_LOCAL_NEIGH_QUEUED] != 0 ? UNIT_HELD : UNIT_FWD;
}

/* The held packet of unit_run(): the one, for the right neighbour, the
 * frame expected, and dropped by fou_neigh_stop() under neigh_stopped. */
static bool
unit_held_ok(const struct fou_gw *gw, const struct unit_exp *e, const struct unit_held *h,
	     unsigned int k, const struct fou_lcore_stats *ctl_before)
{
	const struct fou_lcore_stats *ctl = unit_ctl_stats(gw);
	struct fou_ip want = { 0 };
	bool ok = true;
	uint32_t i;

	if (ctl->drop[FOU_DROP_NEIGH_STOPPED] - ctl_before->drop[FOU_DROP_NEIGH_STOPPED] != k ||
	    ctl->local[FOU_LOCAL_NEIGH_DEQUEUED] - ctl_before->local[FOU_LOCAL_NEIGH_DEQUEUED] != k) {
		print_error("%s: fou_neigh_stop() did not count the %u held packet(s) as "
			    "neigh_stopped\n", unit_ctx_buf, k);
		ok = false;
	}
	if (e->verdict != UNIT_HELD) {
		if (k != 0) {
			print_error("%s: %u packet(s) held, expected none\n", unit_ctx_buf, k);
			ok = false;
		}
		return ok;
	}
	if (k != 1) {
		print_error("%s: %u packets held, expected 1\n", unit_ctx_buf, k);
		return false;
	}
	want.family = strchr(e->neigh, ':') != NULL ? AF_INET6 : AF_INET;
	want.plen = want.family == AF_INET ? 32 : 128;
	if (inet_pton(want.family, e->neigh,
		      want.family == AF_INET ? (void *)&want.v4 : (void *)want.v6) != 1)
		fail_msg("bad neighbour address %s in the test", e->neigh);
	if (h->f.port != e->out_port || memcmp(&h->neigh, &want, sizeof(want)) != 0) {
		print_error("%s: held for %s on port %u, expected %s on port %u\n", unit_ctx_buf,
			    FOU_IPSTR(&h->neigh), h->f.port, e->neigh, e->out_port);
		ok = false;
	}
	if (e->out == NULL)
		return ok;
	if (h->f.len != e->out_len) {
		print_error("%s: held frame of %u bytes, expected %u\n", unit_ctx_buf, h->f.len,
			    e->out_len);
		ok = false;
	} else if (memcmp(h->f.b, e->out, h->f.len) != 0) {
		for (i = 0; h->f.b[i] == e->out[i]; i++)
			;
		print_error("%s: held frame differs at byte %u\n", unit_ctx_buf, i);
		unit_hexdump("got     ", h->f.b, h->f.len, i & ~7u);
		unit_hexdump("expected", e->out, h->f.len, i & ~7u);
		ok = false;
	}
	return ok;
}

#define UNIT_OFFLOAD_RX_CKSUM \
	(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK | \
	 RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK | RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD)

void
unit_run(const struct fou_gw *gw, struct rte_mbuf *m, const struct unit_exp *e,
	 const char *file, int line)
{
	static uint8_t got[RTE_MBUF_DEFAULT_BUF_SIZE * 4];
	struct rte_mbuf *pkts[1] = { m };
	uint16_t out_port[1] = { UINT16_MAX };
	uint32_t pkt_len = 0, seg_sum = 0, i;
	uint16_t nb_segs = 0, n;
	uint64_t ol_flags = 0;
	const struct rte_mbuf *seg;
	struct unit_lcore u = { 0 };
	struct fou_gw *wgw = (struct fou_gw *)(uintptr_t)gw;
	static struct fou_lcore_stats ctl_before;
	static struct unit_held held;
	unsigned int nb_held, nb_ev;
	bool ok = true;

	unit_lcore_begin(&u, gw, 0);
	n = unit_rx(&u, RX_PORT, pkts, 1, out_port);
	unit_stats = u.st;
	unit_lcore_end(&u);
	/* what it handed the control thread, taken before anything is judged:
	 * a failure leaves nothing behind */
	ctl_before = *unit_ctl_stats(gw);
	nb_held = unit_held_take(wgw, &held, 1);
	nb_ev = unit_events_take(wgw, unit_events, UNIT_EVENTS_MAX);
	unit_nb_events = RTE_MIN(nb_ev, (unsigned int)UNIT_EVENTS_MAX);

	if (n == 1) {
		/* take everything out, free, then judge: a failure leaks nothing */
		pkt_len = rte_pktmbuf_pkt_len(m);
		nb_segs = m->nb_segs;
		ol_flags = m->ol_flags;
		for (seg = m, i = 0; seg != NULL; seg = seg->next, i++)
			seg_sum += seg->data_len;
		if (pkt_len <= sizeof(got) && seg_sum == pkt_len) {
			const void *d = rte_pktmbuf_read(m, 0, pkt_len, got);

			if (d != NULL && d != got)
				memcpy(got, d, pkt_len);
		}
		if (i != nb_segs)
			seg_sum = UINT32_MAX;
		rte_pktmbuf_free(m);
	}

	if ((e->verdict == UNIT_FWD) != (n == 1) ||
	    (n == 0 && unit_counted_verdict() != e->verdict)) {
		print_error("%s%sexpected %s, got %s\n", unit_ctx_buf, unit_ctx_buf[0] ? ": " : "",
			    unit_verdict_name(e->verdict), unit_verdict_name(unit_counted_verdict()));
		ok = false;
	}
	if (ok && !unit_stats_ok(gw, e)) {
		print_error("%s%scounters differ (verdict %s)\n", unit_ctx_buf,
			    unit_ctx_buf[0] ? ": " : "", unit_verdict_name(e->verdict));
		ok = false;
	}
	if (ok && !unit_held_ok(gw, e, &held, nb_held, &ctl_before))
		ok = false;
	if (ok && nb_ev != e->events) {
		print_error("%s%s%u neighbour event(s) posted, expected %u\n", unit_ctx_buf,
			    unit_ctx_buf[0] ? ": " : "", nb_ev, e->events);
		ok = false;
	}
	if (ok && n == 1) {
		if (out_port[0] != e->out_port) {
			print_error("%s: out_port %u, expected %u\n", unit_ctx_buf, out_port[0],
				    e->out_port);
			ok = false;
		}
		if (seg_sum != pkt_len) {
			print_error("%s: segment lengths/count (%u bytes) disagree with pkt_len %u\n",
				    unit_ctx_buf, seg_sum, pkt_len);
			ok = false;
		} else if (pkt_len != e->out_len) {
			print_error("%s: pkt_len %u, expected %u\n", unit_ctx_buf, pkt_len,
				    e->out_len);
			ok = false;
		} else if (memcmp(got, e->out, pkt_len) != 0) {
			for (i = 0; got[i] == e->out[i]; i++)
				;
			print_error("%s: output differs at byte %u\n", unit_ctx_buf, i);
			unit_hexdump("got     ", got, pkt_len, i & ~7u);
			unit_hexdump("expected", e->out, pkt_len, i & ~7u);
			ok = false;
		}
		if (ol_flags & UNIT_OFFLOAD_RX_CKSUM) {
			print_error("%s: RX checksum flags left on the output: 0x%" PRIx64 "\n",
				    unit_ctx_buf, (uint64_t)(ol_flags & UNIT_OFFLOAD_RX_CKSUM));
			ok = false;
		}
	}
	if (rte_mempool_avail_count(unit_pool) != UNIT_NB_MBUF) {
		print_error("%s%s%u mbufs missing from the pool\n", unit_ctx_buf,
			    unit_ctx_buf[0] ? ": " : "",
			    UNIT_NB_MBUF - rte_mempool_avail_count(unit_pool));
		ok = false;
	}
	if (!ok)
		_fail(file, line);
}
