/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The path MTU search of fou_plpmtu.c on its own (RFC 8899): the sizes it
 * asks for, where it ends over paths that drop every packet over some
 * size, ERROR when not even BASE_PLPMTU passes, losses that say nothing
 * about the size, the raise timer, black holes found by the confirmation
 * probes, and a start again; and the DF an MTU probe leaves with. Time is a made-up TSC (HZ a second): nothing
 * here waits.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "fou_plpmtu.h"

#define HZ UINT64_C(1000000)
#define SEC(n) ((uint64_t)(n) * HZ)

/* A path: packets of up to carry bytes pass, bigger ones are lost. */
struct path {
	uint16_t carry;
	unsigned int probes;		/* sent so far */
	uint16_t least;			/* the least plpmtu told while they went */
	uint16_t sizes[256];		/* their sizes */
};

/*
 * Probe what the search wants at now until it wants nothing (at most 200
 * probes); smaller packets pass meanwhile (path_ok). Returns the probes sent.
 */
static unsigned int
run_path(struct fou_plpmtu *s, struct path *p, uint64_t now)
{
	unsigned int n = 0;
	uint16_t size;

	while (n < 200 && (size = fou_plpmtu_want(s, now, HZ)) != 0) {
		if (p->probes < RTE_DIM(p->sizes))
			p->sizes[p->probes] = size;
		p->probes++;
		n++;
		if (size <= p->carry)
			fou_plpmtu_acked(s, size, now, HZ);
		else
			fou_plpmtu_lost(s, size, true, now, HZ);
		if (p->least == 0 || s->plpmtu < p->least)
			p->least = s->plpmtu;
	}
	return n;
}

/* A new search up to max (IPv6 path: v6) run over p to its end, at 0:
 * the probes it took. */
static unsigned int
search(struct fou_plpmtu *s, struct path *p, bool v6, uint16_t max)
{
	fou_plpmtu_stop(s);
	fou_plpmtu_start(s, v6, max);
	return run_path(s, p, 0);
}

static void
expect_state(const struct fou_plpmtu *s, enum fou_plpmtu_state st, uint16_t plpmtu,
	     const char *what)
{
	if (s->state != st || s->plpmtu != plpmtu)
		fail_msg("%s: %s with plpmtu %u; expected %s with %u", what,
			 fou_plpmtu_state_name(s->state), s->plpmtu, fou_plpmtu_state_name(st),
			 plpmtu);
}

/* The first sizes over a path that carries 1400 of a port's 1500: BASE
 * (1200), the port's MTU three times, then halfway between what passed
 * and what failed; the data path is told 1200 once 1500 has failed. */
static void
test_plpmtu_sizes(void **state)
{
	static const uint16_t want[] = { 1200, 1500, 1500, 1500, 1350, 1425, 1425, 1425, 1387 };
	struct fou_plpmtu s;
	unsigned int i;
	bool changed;

	(void)state;
	fou_plpmtu_stop(&s);
	expect_state(&s, FOU_PLPMTU_DISABLED, 0, "stopped");
	assert_int_equal(fou_plpmtu_want(&s, 0, HZ), 0);
	fou_plpmtu_start(&s, false, 1500);
	expect_state(&s, FOU_PLPMTU_BASE, 0, "started");
	for (i = 0; i < RTE_DIM(want); i++) {
		const uint16_t size = fou_plpmtu_want(&s, 0, HZ);

		if (size != want[i])
			fail_msg("probe %u: %u bytes, expected %u", i, size, want[i]);
		/* asked again without an answer: the same size */
		assert_int_equal(fou_plpmtu_want(&s, 0, HZ), size);
		if (size <= 1400) {
			changed = fou_plpmtu_acked(&s, size, 0, HZ);
		} else {
			/* an answer about another size changes nothing */
			assert_false(fou_plpmtu_lost(&s, (uint16_t)(size - 1), true, 0, HZ));
			changed = fou_plpmtu_lost(&s, size, true, 0, HZ);
		}
		/* told 1200 at the third loss of 1500, 1350 and 1387 once confirmed */
		assert_int_equal(changed, i == 3 || i == 4 || i == 8);
		if (i == 0)
			expect_state(&s, FOU_PLPMTU_SEARCHING, 0, "BASE confirmed");
		if (i == 3)
			expect_state(&s, FOU_PLPMTU_SEARCHING, 1200, "1500 failed");
	}
}

/* Over paths that carry N bytes of a port's 1500 (IPv4) or 9000 (IPv6),
 * the search ends at N exactly, in at most BASE, the port's MTU three
 * times and 3 a halving of max - base (9000 - 1280: 13 halvings). */
static void
test_plpmtu_converges(void **state)
{
	static const struct {
		bool v6;
		uint16_t max, carry;
	} cases[] = {
		{ false, 1500, 1500 }, { false, 1500, 1499 }, { false, 1500, 1472 },
		{ false, 1500, 1400 }, { false, 1500, 1201 }, { false, 1500, 1200 },
		{ true, 1500, 1280 }, { true, 1500, 1452 }, { true, 9000, 8972 },
		{ true, 9000, 1500 }, { true, 9000, 1281 }, { false, 9000, 4000 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct path p = { .carry = cases[i].carry };
		struct fou_plpmtu s;
		unsigned int n;

		unit_ctx("IPv%d, port %u, path %u", cases[i].v6 ? 6 : 4, cases[i].max,
			 cases[i].carry);
		n = search(&s, &p, cases[i].v6, cases[i].max);
		expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, cases[i].carry, "ended");
		if (n > 1 + 3 + 3 * 13)
			fail_msg("%u probes", n);
		if (cases[i].carry == cases[i].max && n != 2)
			fail_msg("the port's MTU passes: %u probes, expected 2", n);
	}
}

/*
 * BASE_PLPMTU lost three times while small packets pass: ERROR, the data
 * path told the minimum (552 over IPv4, 1280 over IPv6); nothing is probed
 * until FOU_PLPMTU_ERROR_S later, then BASE again. Losses while small
 * packets do not pass either (path_ok false) are not the size's: never
 * ERROR from them.
 */
static void
test_plpmtu_error(void **state)
{
	struct path p = { .carry = 1000 };
	struct fou_plpmtu s;
	unsigned int i;

	(void)state;
	fou_plpmtu_stop(&s);
	fou_plpmtu_start(&s, false, 1500);
	for (i = 0; i < 10; i++)
		assert_false(fou_plpmtu_lost(&s, fou_plpmtu_want(&s, 0, HZ), false, 0, HZ));
	expect_state(&s, FOU_PLPMTU_BASE, 0, "the path down");
	assert_int_equal(run_path(&s, &p, 0), 3);
	expect_state(&s, FOU_PLPMTU_ERROR, 552, "1200 lost three times");
	assert_int_equal(fou_plpmtu_want(&s, SEC(FOU_PLPMTU_ERROR_S) - 1, HZ), 0);
	p.carry = 1300;
	run_path(&s, &p, SEC(FOU_PLPMTU_ERROR_S));
	expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 1300, "BASE again, passes");
	/* IPv6: 1280 is BASE and the least */
	p.carry = 1279;
	search(&s, &p, true, 1500);
	expect_state(&s, FOU_PLPMTU_ERROR, 1280, "IPv6 1280 lost");
	/* a port below BASE_PLPMTU: its MTU is BASE, and MAX */
	p.carry = 1500;
	assert_int_equal(search(&s, &p, false, 1000), 1);
	expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 1000, "port of 1000");
}

/*
 * SEARCH_COMPLETE below the port's MTU: FOU_PLPMTU_RAISE_S later the
 * search starts above again, from the port's MTU; a path that now carries
 * it gets it. Confirmation probes of the size found come every
 * FOU_PLPMTU_CONFIRM_S before that and change nothing while they pass.
 */
static void
test_plpmtu_raise(void **state)
{
	struct path p = { .carry = 1400 };
	struct fou_plpmtu s;
	uint64_t t;

	(void)state;
	search(&s, &p, false, 1500);
	expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 1400, "found");
	assert_int_equal(fou_plpmtu_want(&s, SEC(FOU_PLPMTU_CONFIRM_S) - 1, HZ), 0);
	for (t = SEC(FOU_PLPMTU_CONFIRM_S); t < SEC(FOU_PLPMTU_RAISE_S);
	     t += SEC(FOU_PLPMTU_CONFIRM_S)) {
		p.probes = 0;
		assert_int_equal(run_path(&s, &p, t), 1);
		assert_int_equal(p.sizes[0], 1400);
		expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 1400, "confirmed");
	}
	p.carry = 1500;
	p.probes = 0;
	assert_int_equal(run_path(&s, &p, SEC(FOU_PLPMTU_RAISE_S)), 1);
	assert_int_equal(p.sizes[0], 1500);
	expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 1500, "raised");
	/* at the port's MTU nothing is raised: only confirmed */
	p.probes = 0;
	assert_int_equal(run_path(&s, &p, SEC(2 * FOU_PLPMTU_RAISE_S)), 1);
	expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 1500, "at the port's MTU");
	/* raised while the path still carries only 1450: stays at 1450's
	 * neighbourhood, the data path never told less than it had */
	p.carry = 1400;
	search(&s, &p, false, 1500);
	p.carry = 1450;
	p.least = 0;
	run_path(&s, &p, SEC(FOU_PLPMTU_RAISE_S));
	assert_int_equal(p.least, 1400);
	expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 1450, "raised to 1450");
}

/*
 * A black hole: the size found stops passing (a confirmation lost three
 * times while small packets pass). The data path is told BASE_PLPMTU at
 * once, and the search runs again below the size that failed. A
 * confirmation lost while small packets fail too is no black hole.
 */
static void
test_plpmtu_black_hole(void **state)
{
	struct path p = { .carry = 1500 };
	struct fou_plpmtu s;
	const uint64_t t = SEC(FOU_PLPMTU_CONFIRM_S);
	uint16_t size;

	(void)state;
	search(&s, &p, false, 1500);
	expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 1500, "found");
	size = fou_plpmtu_want(&s, t, HZ);
	assert_int_equal(size, 1500);
	assert_false(fou_plpmtu_lost(&s, size, false, t, HZ));
	assert_false(fou_plpmtu_lost(&s, size, false, t, HZ));
	assert_false(fou_plpmtu_lost(&s, size, false, t, HZ));
	expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 1500, "the tunnel down, not the size");
	assert_false(fou_plpmtu_lost(&s, size, true, t, HZ));
	assert_false(fou_plpmtu_lost(&s, size, true, t, HZ));
	assert_true(fou_plpmtu_lost(&s, size, true, t, HZ));
	expect_state(&s, FOU_PLPMTU_BASE, 1200, "black hole");
	p.carry = 1300;
	p.probes = 0;
	run_path(&s, &p, t);
	expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 1300, "found again");
	/* 1500 is not tried again: it just failed */
	while (p.probes-- > 0)
		assert_true(p.sizes[p.probes] < 1500);
}

/*
 * Started again (on demand) the search keeps what the data path was told
 * until it learns otherwise, and ends where the path is now; a start over
 * a new path (fou_plpmtu_tunnel_start's fresh: the caller clears plpmtu)
 * tells nothing until the port's MTU has failed.
 */
static void
test_plpmtu_restart(void **state)
{
	struct path p = { .carry = 1400 };
	struct fou_plpmtu s;
	uint16_t size;

	(void)state;
	search(&s, &p, false, 1500);
	expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 1400, "found");
	fou_plpmtu_start(&s, false, 1500);
	expect_state(&s, FOU_PLPMTU_BASE, 1400, "again: 1400 kept");
	size = fou_plpmtu_want(&s, 0, HZ);
	assert_int_equal(size, 1200);
	assert_false(fou_plpmtu_acked(&s, size, 0, HZ));
	expect_state(&s, FOU_PLPMTU_SEARCHING, 1400, "BASE passes: 1400 kept");
	p.carry = 1350;
	run_path(&s, &p, 0);
	expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 1350, "the path got smaller");
	/* a new path over a port of 9000 */
	s.plpmtu = 0;
	fou_plpmtu_start(&s, false, 9000);
	p.carry = 9000;
	assert_int_equal(run_path(&s, &p, 0), 2);
	expect_state(&s, FOU_PLPMTU_SEARCH_COMPLETE, 9000, "new path");
	fou_plpmtu_stop(&s);
	expect_state(&s, FOU_PLPMTU_DISABLED, 0, "stopped");
	assert_int_equal(fou_plpmtu_want(&s, SEC(10000), HZ), 0);
	assert_false(fou_plpmtu_acked(&s, 1200, 0, HZ));
	assert_string_equal(fou_plpmtu_state_name(FOU_PLPMTU_SEARCH_COMPLETE), "search_complete");
}

/*
 * An MTU probe leaves with DF (fou_plpmtu_df): an outer IPv4 header
 * without it (a nopmtudisc tunnel's, IPv6 inside) gets it with its
 * checksum fixed, or left to a port that fills it; one with DF and an
 * outer IPv6 header are left as they are.
 */
static void
test_plpmtu_df(void **state)
{
	uint8_t b[60] = { 0x45, 0, 0, 60, 0x12, 0x34, 0, 0, 64, IPPROTO_UDP, 0, 0,
			  192, 168, 1, 1, 10, 20, 0, 9 };
	uint8_t orig[sizeof(b)];
	struct rte_mbuf *m;
	uint8_t *ip;

	(void)state;
	unit_ip4_cksum_fix(b);
	memcpy(orig, b, sizeof(b));
	m = unit_mbuf(b, sizeof(b));
	ip = rte_pktmbuf_mtod(m, uint8_t *);
	fou_plpmtu_df(m);
	assert_int_equal(unit_get16(ip + 6), 0x4000);
	assert_true(unit_cksum_ok(ip, 20));
	assert_memory_equal(ip + 12, orig + 12, sizeof(b) - 12);
	/* with DF: nothing to do */
	memcpy(orig, ip, sizeof(b));
	fou_plpmtu_df(m);
	assert_memory_equal(ip, orig, sizeof(b));
	/* the port sums the header: left to it */
	unit_put16(ip + 6, 0);
	unit_put16(ip + 10, 0);
	m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	fou_plpmtu_df(m);
	assert_int_equal(unit_get16(ip + 6), 0x4000);
	assert_int_equal(unit_get16(ip + 10), 0);
	/* IPv6 */
	ip[0] = 0x60;
	unit_put16(ip + 6, 0);
	memcpy(orig, ip, sizeof(b));
	fou_plpmtu_df(m);
	assert_memory_equal(ip, orig, sizeof(b));
	rte_pktmbuf_free(m);
	UNIT_POOL_FULL();
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plpmtu_sizes),
		cmocka_unit_test(test_plpmtu_converges),
		cmocka_unit_test(test_plpmtu_error),
		cmocka_unit_test(test_plpmtu_raise),
		cmocka_unit_test(test_plpmtu_black_hole),
		cmocka_unit_test(test_plpmtu_restart),
		cmocka_unit_test(test_plpmtu_df),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("plpmtu", tests, NULL, NULL);
	return unit_eal_fini(failures);
}
