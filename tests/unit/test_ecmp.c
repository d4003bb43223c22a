/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Several routes to one prefix: metric failover and ECMP by weight, driven
 * through the statements and fou_tunnel_usable_set(), and checked on what a
 * worker's context (fou_lcore_rx(), in bursts, so the look-ahead's memo
 * takes the group) sends: the tunnel of each flow is the outer destination
 * of its frame, the gateway of a port next hop the frame's MAC. Flows are
 * inner packets from many sources, decapsulated from the peer and routed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include "unit.h"
#include "fou_ctl.h"

#define FLOWS 1536
#define NO_TUNNEL 0xff

/* The tunnels the routes lead into: ipip e1..e3 and sit s1..s2 to remotes
 * routed via 192.168.1.2 (a known neighbour), so every frame leaves; the
 * flows come from the peer through r4 and r6. */
static const uint32_t remote4[] = { IP4(10, 20, 0, 11), IP4(10, 20, 0, 12),
				    IP4(10, 20, 0, 13), IP4(10, 20, 0, 21),
				    IP4(10, 20, 0, 22) };

static struct fou_gw *
ecmp_gw(void)
{
	struct fou_gw *gw = unit_gw_std();

	/* what the flows come out of (from the peer) */
	UNIT_APPLY(gw, "tunnel", "r4,type=ipip,local=10.0.0.1,remote=10.0.0.2,encap-dport=5555");
	UNIT_APPLY(gw, "tunnel", "r6,type=sit,local=10.0.0.1,remote=10.0.0.2,encap-dport=5557");

	UNIT_APPLY(gw, "tunnel", "e1,type=ipip,local=192.168.1.1,remote=10.20.0.11,encap-dport=5555");
	UNIT_APPLY(gw, "tunnel", "e2,type=ipip,local=192.168.1.1,remote=10.20.0.12,encap-dport=5555");
	UNIT_APPLY(gw, "tunnel", "e3,type=ipip,local=192.168.1.1,remote=10.20.0.13,encap-dport=5555");
	UNIT_APPLY(gw, "tunnel", "s1,type=sit,local=192.168.1.1,remote=10.20.0.21,encap-dport=5557");
	UNIT_APPLY(gw, "tunnel", "s2,type=sit,local=192.168.1.1,remote=10.20.0.22,encap-dport=5557");
	return gw;
}

static uint32_t
tun_idx(const struct fou_gw *gw, const char *name)
{
	int i = fou_tunnel_find(gw, name);

	assert_true(i >= 0);
	return (uint32_t)i;
}

/* Flow i: an inner packet from 10.100.x.y (IPv4) or fd00:100::x:y to dst. */
static struct rte_mbuf *
flow_mbuf(unsigned int i, bool v6, uint32_t dst4, const char *dst6)
{
	struct unit_spec s;
	struct unit_pkt p;

	if (v6) {
		unit_spec_sit(&s);
		inet_pton(AF_INET6, "fd00:100::", s.in_src6);
		s.in_src6[14] = (uint8_t)(i >> 8);
		s.in_src6[15] = (uint8_t)i;
		inet_pton(AF_INET6, dst6, s.in_dst6);
	} else {
		unit_spec_ipip(&s);
		s.in_src4 = IP4(10, 100, 0, 0) + i;
		s.in_dst4 = dst4;
	}
	unit_build(&s, &p);
	return unit_mbuf(p.b, p.len);
}

/* The tunnel (0-4: e1, e2, e3, s1, s2) frame f went into; NO_TUNNEL if none. */
static uint8_t
frame_tunnel(const struct unit_frame *f)
{
	uint32_t dst;
	unsigned int k;

	if (f->len < 34 || unit_get16(f->b + 12) != RTE_ETHER_TYPE_IPV4)
		return NO_TUNNEL;
	dst = unit_get32(f->b + 30);
	for (k = 0; k < RTE_DIM(remote4); k++)
		if (remote4[k] == dst)
			return (uint8_t)k;
	return NO_TUNNEL;
}

/*
 * Every flow once through u, in bursts of FOU_BURST: where[i] is the tunnel
 * flow i went into (or, with by_mac, 0 for mac_nb4 and 1 for mac_nb4_7).
 * Every flow must leave.
 */
static void
send_flows(struct unit_lcore *u, bool v6, uint32_t dst4, const char *dst6, bool by_mac,
	   uint8_t *where)
{
	static struct unit_frame got[FOU_BURST];
	struct rte_mbuf *pkts[FOU_BURST];
	unsigned int i, k, n;

	for (i = 0; i < FLOWS; i += n) {
		n = RTE_MIN((unsigned int)FOU_BURST, FLOWS - i);
		for (k = 0; k < n; k++)
			pkts[k] = flow_mbuf(i + k, v6, dst4, dst6);
		if (unit_burst(u, pkts, (uint16_t)n, got) != n) {
			unsigned int d;

			for (d = 0; d < FOU_DROP_MAX; d++)
				if (u->st.drop[d] != 0)
					print_error("drop %s: %lu\n", fou_drop_name(d),
						    (unsigned long)u->st.drop[d]);
			fail_msg("%u flows from %u: not all left", n, i);
		}
		for (k = 0; k < n; k++) {
			if (by_mac)
				where[i + k] = memcmp(got[k].b, &mac_nb4, 6) == 0 ? 0 :
					       memcmp(got[k].b, &mac_nb4_7, 6) == 0 ? 1 : NO_TUNNEL;
			else
				where[i + k] = frame_tunnel(&got[k]);
			assert_int_not_equal(where[i + k], NO_TUNNEL);
		}
	}
}

static void
count(const uint8_t *where, unsigned int *cnt, unsigned int n)
{
	unsigned int i;

	memset(cnt, 0, n * sizeof(*cnt));
	for (i = 0; i < FLOWS; i++) {
		assert_true(where[i] < n);
		cnt[where[i]]++;
	}
}

/* The route to prefix into (or out of) dev: its listing. */
static struct fou_route_info
route_of(const struct fou_gw *gw, const char *prefix, const char *dev)
{
	unsigned int n = fou_route_list(gw, NULL, 0, 0), i;
	struct fou_route_info *ri = calloc(n, sizeof(*ri)), r;
	struct fou_ip p;

	assert_non_null(ri);
	assert_int_equal(fou_parse_ip(prefix, true, &p, NULL), 0);
	fou_route_list(gw, ri, n, 0);
	for (i = 0; i < n; i++)
		if (memcmp(&ri[i].prefix, &p, sizeof(p)) == 0 && strcmp(ri[i].tunnel, dev) == 0)
			break;
	assert_true(i < n);
	r = ri[i];
	free(ri);
	return r;
}

/*
 * Weights 1:2:1 over e1..e3: the flows spread by weight, a flow sent again
 * takes the same tunnel; e2 made unusable gives its flows (and only they
 * move) to e1 and e3, none goes into it once the call returned; it comes
 * back and every flow is where it was.
 */
static void
test_ecmp_weight_and_failover(void **state)
{
	struct fou_gw *gw = ecmp_gw();
	static uint8_t first[FLOWS], again[FLOWS], down[FLOWS], back[FLOWS];
	struct unit_lcore u = { 0 };
	unsigned int cnt[3], i, moved_to[3] = { 0 };
	struct fou_route_info ri;

	*state = gw;
	UNIT_APPLY(gw, "route", "10.60.0.0/16,dev=e1");
	UNIT_APPLY(gw, "route", "10.60.0.0/16,dev=e2,weight=2");
	UNIT_APPLY(gw, "route", "10.60.0.0/16,dev=e3");
	unit_lcore_begin(&u, gw, 1);
	send_flows(&u, false, IP4(10, 60, 1, 1), NULL, false, first);
	send_flows(&u, false, IP4(10, 60, 1, 1), NULL, false, again);
	assert_memory_equal(first, again, FLOWS);
	count(first, cnt, 3);
	/* shares 1/4, 1/2, 1/4 of 1536: 384, 768, 384 (the buckets' hash) */
	unit_ctx("e1 %u e2 %u e3 %u", cnt[0], cnt[1], cnt[2]);
	assert_in_range(cnt[0], 280, 490);
	assert_in_range(cnt[1], 640, 900);
	assert_in_range(cnt[2], 280, 490);
	ri = route_of(gw, "10.60.0.0/16", "e2");
	assert_int_equal(ri.weight, 2);
	assert_true(ri.usable && ri.in_use);

	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e2"), false), 0);
	send_flows(&u, false, IP4(10, 60, 1, 1), NULL, false, down);
	for (i = 0; i < FLOWS; i++) {
		assert_int_not_equal(down[i], 1);
		if (first[i] != 1)
			assert_int_equal(down[i], first[i]);	/* nothing else moves */
		else
			moved_to[down[i]]++;
	}
	/* e2's flows are shared by the live members */
	assert_true(moved_to[0] > 150 && moved_to[2] > 150);
	ri = route_of(gw, "10.60.0.0/16", "e2");
	assert_false(ri.usable);
	assert_false(ri.in_use);
	assert_true(route_of(gw, "10.60.0.0/16", "e1").in_use);
	/* the same again is no change */
	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e2"), false), 0);

	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e2"), true), 0);
	send_flows(&u, false, IP4(10, 60, 1, 1), NULL, false, back);
	assert_memory_equal(first, back, FLOWS);
	assert_true(route_of(gw, "10.60.0.0/16", "e2").in_use);
	unit_lcore_end(&u);
	UNIT_POOL_FULL();
}

/* Two of three down, one up again: a flow of the last live member never
 * moves, and each comes back to its own buckets. */
static void
test_ecmp_two_down(void **state)
{
	struct fou_gw *gw = ecmp_gw();
	static uint8_t first[FLOWS], now[FLOWS];
	struct unit_lcore u = { 0 };
	unsigned int i;

	*state = gw;
	UNIT_APPLY(gw, "route", "10.60.0.0/16,dev=e1");
	UNIT_APPLY(gw, "route", "10.60.0.0/16,dev=e2");
	UNIT_APPLY(gw, "route", "10.60.0.0/16,dev=e3");
	unit_lcore_begin(&u, gw, 1);
	send_flows(&u, false, IP4(10, 60, 2, 2), NULL, false, first);
	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e1"), false), 0);
	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e3"), false), 0);
	send_flows(&u, false, IP4(10, 60, 2, 2), NULL, false, now);
	for (i = 0; i < FLOWS; i++)
		assert_int_equal(now[i], 1);
	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e3"), true), 0);
	send_flows(&u, false, IP4(10, 60, 2, 2), NULL, false, now);
	for (i = 0; i < FLOWS; i++) {
		assert_int_not_equal(now[i], 0);
		if (first[i] != 0)
			assert_int_equal(now[i], first[i]);
	}
	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e1"), true), 0);
	send_flows(&u, false, IP4(10, 60, 2, 2), NULL, false, now);
	assert_memory_equal(first, now, FLOWS);
	unit_lcore_end(&u);
	UNIT_POOL_FULL();
}

/*
 * Metrics: the best usable one carries alone; it fails, the next metric's
 * routes carry (two of them: ECMP); it returns and carries again. All down:
 * the lowest metric, as Linux. Deleting the best route by its metric hands
 * over too.
 */
static void
test_metric_failover(void **state)
{
	struct fou_gw *gw = ecmp_gw();
	static uint8_t now[FLOWS];
	struct unit_lcore u = { 0 };
	unsigned int cnt[3], i;

	*state = gw;
	UNIT_APPLY(gw, "route", "10.61.0.0/16,dev=e2,metric=20");
	UNIT_APPLY(gw, "route", "10.61.0.0/16,dev=e1,metric=10");
	UNIT_APPLY(gw, "route", "10.61.0.0/16,dev=e3,metric=20");
	unit_lcore_begin(&u, gw, 1);
	send_flows(&u, false, IP4(10, 61, 0, 9), NULL, false, now);
	count(now, cnt, 3);
	assert_int_equal(cnt[0], FLOWS);
	assert_false(route_of(gw, "10.61.0.0/16", "e2").in_use);

	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e1"), false), 0);
	send_flows(&u, false, IP4(10, 61, 0, 9), NULL, false, now);
	count(now, cnt, 3);
	assert_int_equal(cnt[0], 0);
	assert_true(cnt[1] > 500 && cnt[2] > 500);
	assert_true(route_of(gw, "10.61.0.0/16", "e3").in_use);

	/* everything down: the lowest metric carries, as Linux' route would */
	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e2"), false), 0);
	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e3"), false), 0);
	send_flows(&u, false, IP4(10, 61, 0, 9), NULL, false, now);
	count(now, cnt, 3);
	assert_int_equal(cnt[0], FLOWS);
	assert_true(route_of(gw, "10.61.0.0/16", "e1").in_use);

	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e3"), true), 0);
	send_flows(&u, false, IP4(10, 61, 0, 9), NULL, false, now);
	count(now, cnt, 3);
	assert_int_equal(cnt[2], FLOWS);
	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e1"), true), 0);
	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "e2"), true), 0);
	send_flows(&u, false, IP4(10, 61, 0, 9), NULL, false, now);
	count(now, cnt, 3);
	assert_int_equal(cnt[0], FLOWS);

	/* `ip route del` of the best metric: the next carries */
	UNIT_DEL(gw, "route", "10.61.0.0/16,metric=10");
	send_flows(&u, false, IP4(10, 61, 0, 9), NULL, false, now);
	count(now, cnt, 3);
	assert_int_equal(cnt[0], 0);
	/* without qualifiers: the first (lowest metric, first added): e2 */
	UNIT_DEL(gw, "route", "10.61.0.0/16");
	send_flows(&u, false, IP4(10, 61, 0, 9), NULL, false, now);
	for (i = 0; i < FLOWS; i++)
		assert_int_equal(now[i], 2);
	unit_lcore_end(&u);
	UNIT_POOL_FULL();
}

/* IPv6 into sit tunnels, the default route, and gateways on a port. */
static void
test_ecmp_v6_default_gateways(void **state)
{
	struct fou_gw *gw = ecmp_gw();
	static uint8_t first[FLOWS], now[FLOWS];
	struct unit_lcore u = { 0 };
	unsigned int cnt[5], i;

	*state = gw;
	UNIT_APPLY(gw, "route", "fd00:60::/32,dev=s1");
	UNIT_APPLY(gw, "route", "fd00:60::/32,dev=s2");
	unit_lcore_begin(&u, gw, 1);
	send_flows(&u, true, 0, "fd00:60::1", false, first);
	count(first, cnt, 5);
	assert_true(cnt[3] > 500 && cnt[4] > 500);
	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "s2"), false), 0);
	send_flows(&u, true, 0, "fd00:60::1", false, now);
	for (i = 0; i < FLOWS; i++)
		assert_int_equal(now[i], 3);
	assert_int_equal(fou_tunnel_usable_set(gw, tun_idx(gw, "s2"), true), 0);
	send_flows(&u, true, 0, "fd00:60::1", false, now);
	assert_memory_equal(first, now, FLOWS);

	/* the default route: a destination no other route holds */
	UNIT_APPLY(gw, "route", "0.0.0.0/0,dev=e1");
	UNIT_APPLY(gw, "route", "0.0.0.0/0,dev=e3");
	send_flows(&u, false, IP4(10, 99, 1, 1), NULL, false, now);
	count(now, cnt, 3);
	assert_true(cnt[0] > 500 && cnt[2] > 500);
	UNIT_DEL(gw, "route", "0.0.0.0/0,dev=e1");
	send_flows(&u, false, IP4(10, 99, 1, 1), NULL, false, now);
	count(now, cnt, 3);
	assert_int_equal(cnt[2], FLOWS);

	/* two gateways on port 1, by the frame's MAC */
	UNIT_APPLY(gw, "route", "10.62.0.0/16,dev=1,via=192.168.1.2");
	UNIT_APPLY(gw, "route", "10.62.0.0/16,dev=1,via=192.168.1.7,weight=3");
	send_flows(&u, false, IP4(10, 62, 0, 1), NULL, true, now);
	count(now, cnt, 2);
	assert_in_range(cnt[1], 1000, 1300);	/* 3/4 of 1536: 1152 */
	unit_lcore_end(&u);
	UNIT_POOL_FULL();
}

/* What a route statement may not do, and what the limits count. */
static void
test_ecmp_limits(void **state)
{
	struct fou_gw_params p;
	struct fou_gw *gw;
	struct fou_err err;
	char arg[64];
	unsigned int i;

	(void)state;
	gw = ecmp_gw();
	*state = gw;
	for (i = 0; i < FOU_ECMP_MAX; i++) {
		snprintf(arg, sizeof(arg), "10.63.0.0/16,dev=1,via=192.168.1.%u", 100 + i);
		UNIT_APPLY(gw, "route", arg);
	}
	assert_int_equal(fou_stmt_apply(gw, "route", "10.63.0.0/16,dev=e1", &err), -E2BIG);
	assert_non_null(strstr(err.msg, "has 16 next hops of metric 0 already"));
	/* another metric is no group of those */
	UNIT_APPLY(gw, "route", "10.63.0.0/16,dev=e1,metric=5");
	assert_int_equal(fou_stmt_apply(gw, "route", "10.63.0.0/16,dev=e1,metric=5,weight=9",
					&err), -EEXIST);
	assert_string_equal(err.msg, "the route to 10.63.0.0/16 dev e1 metric 5 exists");
	assert_int_equal(fou_stmt_del(gw, "route", "10.63.0.0/16,dev=e2", &err), -ESRCH);
	assert_non_null(strstr(err.msg, "no route to 10.63.0.0/16 with dev=e2 (there are: "
				       "dev 1 via 192.168.1.100 metric 0, dev 1 via 192.168.1.101"));
	/* an address's route stays alone */
	assert_int_equal(fou_stmt_apply(gw, "route", "192.168.1.0/24,dev=e1", &err), -EEXIST);
	assert_int_equal(fou_tunnel_usable_set(gw, 999, false), -ENODEV);
	fou_gw_free(gw);

	/* every route counts against routes4, but the first default route */
	fou_gw_params_default(&p);
	p.max_routes4 = 9;
	gw = unit_gw_std_params(&p);	/* 8 IPv4 routes of addresses and routes */
	*state = gw;
	UNIT_APPLY(gw, "route", "0.0.0.0/0,dev=1,via=192.168.1.2");
	UNIT_APPLY(gw, "route", "10.20.0.0/16,dev=1,via=192.168.1.7");
	assert_int_equal(fou_stmt_apply(gw, "route", "0.0.0.0/0,dev=1,via=192.168.1.7", &err),
			 -ENOSPC);
	assert_non_null(strstr(err.msg, "routing table full"));
	UNIT_DEL(gw, "route", "10.20.0.0/16,via=192.168.1.7");
	UNIT_APPLY(gw, "route", "0.0.0.0/0,dev=1,via=192.168.1.7");
	UNIT_DEL(gw, "route", "0.0.0.0/0");
	UNIT_DEL(gw, "route", "0.0.0.0/0");
	UNIT_APPLY(gw, "route", "10.20.0.0/16,dev=1,via=192.168.1.7");
}

static int
teardown_gw(void **state)
{
	unit_lcore_end_all();
	fou_gw_free(*state);
	*state = NULL;
	return 0;
}

#define T(f) cmocka_unit_test_teardown(f, teardown_gw)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_ecmp_weight_and_failover),
		T(test_ecmp_two_down),
		T(test_metric_failover),
		T(test_ecmp_v6_default_gateways),
		T(test_ecmp_limits),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("ecmp", tests, NULL, NULL);
	return unit_eal_fini(failures);
}
