/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The routing table as the data path reads it: fou_route4/6() and their
 * bulk forms against a longest-prefix match computed here from the routes
 * fou_route_list() shows, on tables grown and shrunk through the
 * statements; the set of our own addresses against the address list; the
 * slots tunnels and neighbours take (the order /fou/config lists them in).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include "unit.h"
#include "fou_ctl.h"

/* A deterministic generator (xorshift64*): the same tables every run. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545f4914f6cdd1dull) >> 32);
}

static const char *const nh_types[] = {
	[FOU_NH_LOCAL] = "local", [FOU_NH_CONNECTED] = "connected",
	[FOU_NH_GATEWAY] = "gateway", [FOU_NH_TUNNEL] = "tunnel",
	[FOU_NH_BCAST] = "broadcast",
};

/* Does the next hop the data path found lead where route ri says? */
static bool
nh_is(const struct fou_gw *gw, const struct fou_nexthop *nh, const struct fou_route_info *ri)
{
	if (nh == NULL || ri == NULL)
		return nh == NULL && ri == NULL;
	if (strcmp(nh_types[nh->type], ri->type) != 0)
		return false;
	switch (nh->type) {
	case FOU_NH_GATEWAY:
		return nh->port == ri->port && memcmp(&nh->gw, &ri->via, sizeof(nh->gw)) == 0;
	case FOU_NH_TUNNEL:
		return strcmp(gw->tunnels[nh->tunnel].conf.name, ri->tunnel) == 0;
	case FOU_NH_CONNECTED:
		return nh->port == ri->port;
	default:
		return true;
	}
}

/* The route a longest-prefix match picks for a among every route: the
 * default route when none holds it, NULL without one either. */
static const struct fou_route_info *
reference(const struct fou_route_info *ri, unsigned int n, const struct fou_ip *a)
{
	const struct fou_route_info *best = NULL;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (fou_prefix_contains(&ri[i].prefix, a) &&
		    (best == NULL || ri[i].prefix.plen > best->prefix.plen))
			best = &ri[i];
	return best;
}

static struct fou_ip
ip4(uint32_t a, uint8_t plen)
{
	struct fou_ip ip = { .family = AF_INET, .plen = plen };

	ip.v4 = rte_cpu_to_be_32(a);
	return ip;
}

/* A prefix of length plen around one of a few /8s, so that routes nest. */
static struct fou_ip
rand_prefix4(uint8_t plen)
{
	static const uint8_t first[] = { 20, 21, 60 };
	struct fou_ip p = ip4((uint32_t)first[rnd() % RTE_DIM(first)] << 24 |
			      (rnd() & 0x0003ffff) << (rnd() % 7), plen);

	fou_ip_mask(&p, plen);
	return p;
}

static struct fou_ip
rand_prefix6(uint8_t plen)
{
	struct fou_ip p = { .family = AF_INET6, .plen = plen };
	unsigned int i;

	p.v6[0] = 0x20;
	p.v6[1] = 0x01;
	p.v6[2] = 0x0d;
	p.v6[3] = (uint8_t)(0xb8 + rnd() % 2);
	for (i = 4; i < 16; i++)
		p.v6[i] = (uint8_t)(rnd() % 4);	/* few values: prefixes share bytes */
	fou_ip_mask(&p, plen);
	return p;
}

/* Route prefix to one of the next hops (two gateways, the port, two tunnels);
 * an existing prefix is left as it is. */
static void
add_route(struct fou_gw *gw, const struct fou_ip *p)
{
	static const char *const v4_via[] = { ",dev=1,via=192.168.1.2", ",dev=1,via=192.168.1.3",
					      ",dev=1", ",dev=t1", ",dev=g1" };
	static const char *const v6_via[] = { ",dev=1,via=fd00:1::2", ",dev=1,via=fd00:1::3",
					      ",dev=1", ",dev=s1", ",dev=g1" };
	struct fou_route_info ri;
	char arg[128];
	struct fou_err err;
	int ret;

	/* a second route would share the prefix (ECMP: test_ecmp.c) */
	if (fou_route_get(gw, p, &ri) == 0)
		return;
	snprintf(arg, sizeof(arg), "%s/%u%s", FOU_IPSTR(p), p->plen,
		 (p->family == AF_INET ? v4_via : v6_via)[rnd() % 5]);
	ret = fou_stmt_apply(gw, "route", arg, &err);
	if (ret != 0 && ret != -EEXIST)
		fail_msg("route %s: %s", arg, err.msg);
}

static struct fou_gw *
rib_gw(void)
{
	struct fou_gw *gw = unit_gw_new(NULL);
	struct fou_err err;

	assert_int_equal(fou_iface_set(gw, RX_PORT, &mac_rx, 1500, &err), 0);
	assert_int_equal(fou_iface_set(gw, EG_PORT, &mac_eg, 1500, &err), 0);
	UNIT_APPLY(gw, "addr", "0,10.0.0.1/24");
	UNIT_APPLY(gw, "addr", "1,192.168.1.1/24");
	UNIT_APPLY(gw, "addr", "1,fd00:1::1/64");
	UNIT_APPLY(gw, "tunnel", "t1,type=ipip,local=10.0.0.1,remote=10.0.0.2,encap-dport=5555");
	UNIT_APPLY(gw, "tunnel", "s1,type=sit,local=10.0.0.1,remote=10.0.0.3,encap-dport=5557");
	UNIT_APPLY(gw, "tunnel", "g1,type=gre,local=10.0.0.1,remote=10.0.0.4,encap=none");
	return gw;
}

#define CHECKS 3000

/*
 * Every address of a sample: fou_route4() and fou_route4_bulk() (bursts of
 * 1, 7 and FOU_BURST) give the next hop of the longest prefix that holds
 * it, as computed from the routes listed.
 */
static void
check_lookups(struct fou_gw *gw, uint8_t family)
{
	static rte_be32_t dst4[CHECKS];
	static uint8_t dst6[CHECKS][16];
	static const struct fou_nexthop *nh_bulk[CHECKS];
	const unsigned int sizes[] = { 1, 7, FOU_BURST };
	unsigned int nr = fou_route_list(gw, NULL, 0, 0), i, k, s;
	struct fou_route_info *ri = calloc(nr + 1, sizeof(*ri));

	assert_non_null(ri);
	assert_int_equal(fou_route_list(gw, ri, nr, 0), nr);
	for (i = 0; i < CHECKS; i++) {
		/* inside a route (a random host of it), or anywhere near them */
		struct fou_ip a = family == AF_INET ? rand_prefix4(32) : rand_prefix6(128);
		const struct fou_ip *p = &ri[rnd() % nr].prefix;

		if (rnd() % 2 == 0 && p->family == family) {
			unsigned int b;

			for (b = 0; b < p->plen; b++) {
				uint8_t *x = family == AF_INET ? (uint8_t *)&a.v4 : a.v6;
				const uint8_t *y = family == AF_INET ? (const uint8_t *)&p->v4 : p->v6;
				const uint8_t bit = (uint8_t)(0x80 >> (b % 8));

				x[b / 8] = (uint8_t)((x[b / 8] & ~bit) | (y[b / 8] & bit));
			}
		}
		if (family == AF_INET)
			dst4[i] = a.v4;
		else
			memcpy(dst6[i], a.v6, 16);
	}
	for (s = 0; s < RTE_DIM(sizes); s++) {
		for (i = 0; i < CHECKS; i += k) {
			k = RTE_MIN(sizes[s], CHECKS - i);
			if (family == AF_INET)
				fou_route4_bulk(gw, &dst4[i], &nh_bulk[i], k);
			else
				fou_route6_bulk(gw, dst6[i], &nh_bulk[i], k);
		}
		for (i = 0; i < CHECKS; i++) {
			struct fou_ip a = { .family = family, .plen = family == AF_INET ? 32 : 128 };
			const struct fou_nexthop *nh;
			const struct fou_route_info *want;

			if (family == AF_INET) {
				a.v4 = dst4[i];
				nh = fou_route4(gw, dst4[i]);
			} else {
				memcpy(a.v6, dst6[i], 16);
				nh = fou_route6(gw, dst6[i]);
			}
			want = reference(ri, nr, &a);
			unit_ctx("%s, burst of %u: %s (route %s/%u)", family == AF_INET ? "IPv4" : "IPv6",
				 sizes[s], FOU_IPSTR(&a), want != NULL ? FOU_IPSTR(&want->prefix) : "none",
				 want != NULL ? want->prefix.plen : 0);
			assert_ptr_equal(nh_bulk[i], nh);
			assert_true(nh_is(gw, nh, want));
		}
	}
	unit_ctx(" ");
	free(ri);
}

/* Routes of every length that nest and overlap, lookups checked as they
 * grow, after deletes (which empty groups of 256 entries) and without and
 * with default routes. */
static void
test_route_lookup_matches_lpm(void **state)
{
	static const uint8_t len4[] = { 8, 12, 14, 16, 18, 20, 22, 23, 24, 25, 26, 28, 30, 31, 32 };
	static const uint8_t len6[] = { 16, 24, 30, 32, 40, 47, 48, 56, 64, 72, 96, 120, 127, 128 };
	struct fou_gw *gw = rib_gw();
	struct fou_route_info *ri;
	unsigned int i, n;

	*state = gw;
	for (i = 0; i < 600; i++) {
		struct fou_ip p4 = rand_prefix4(len4[rnd() % RTE_DIM(len4)]);
		struct fou_ip p6 = rand_prefix6(len6[rnd() % RTE_DIM(len6)]);

		add_route(gw, &p4);
		add_route(gw, &p6);
	}
	check_lookups(gw, AF_INET);
	check_lookups(gw, AF_INET6);

	/* every other route of a route statement goes */
	n = fou_route_list(gw, NULL, 0, 0);
	ri = calloc(n, sizeof(*ri));
	assert_non_null(ri);
	fou_route_list(gw, ri, n, 0);
	for (i = 0; i < n; i++) {
		struct fou_err err;
		char arg[64];

		if (ri[i].from_addr || i % 2 == 0)
			continue;
		snprintf(arg, sizeof(arg), "%s/%u", FOU_IPSTR(&ri[i].prefix), ri[i].prefix.plen);
		assert_int_equal(fou_stmt_del(gw, "route", arg, &err), 0);
	}
	free(ri);
	check_lookups(gw, AF_INET);
	check_lookups(gw, AF_INET6);

	UNIT_APPLY(gw, "route", "0.0.0.0/0,dev=1,via=192.168.1.2");
	UNIT_APPLY(gw, "route", "::/0,dev=s1");
	check_lookups(gw, AF_INET);
	check_lookups(gw, AF_INET6);
}

/* The data path's "is it ours" agrees with the addresses, and with the
 * routes an address brings, as addresses come and go. */
static void
test_own_addresses(void **state)
{
	struct fou_gw *gw = rib_gw();
	const struct fou_own4 *o4;
	const struct fou_own6 *o6;
	struct fou_ip a6;

	*state = gw;
	UNIT_APPLY(gw, "addr", "1,192.168.1.9/24");	/* a second address of the network */
	UNIT_APPLY(gw, "addr", "t1,192.168.4.1/30");
	UNIT_APPLY(gw, "addr", "g1,fd00:44::1/64");
	UNIT_APPLY(gw, "addr", "0,10.5.0.1/31");	/* no broadcast address */

	o4 = fou_own4(gw, rte_cpu_to_be_32(IP4(192, 168, 1, 9)));
	assert_non_null(o4);
	assert_int_equal(o4->kind, FOU_OWN_ADDR);
	assert_int_equal(o4->port, EG_PORT);
	assert_int_equal(o4->tunnel, 0);
	o4 = fou_own4(gw, rte_cpu_to_be_32(IP4(192, 168, 4, 1)));
	assert_non_null(o4);
	assert_int_equal(o4->tunnel, (uint32_t)fou_tunnel_find(gw, "t1") + 1);
	o4 = fou_own4(gw, rte_cpu_to_be_32(IP4(192, 168, 1, 255)));
	assert_non_null(o4);
	assert_int_equal(o4->kind, FOU_OWN_BCAST);
	assert_int_equal(fou_route4(gw, rte_cpu_to_be_32(IP4(192, 168, 1, 255)))->type,
			 FOU_NH_BCAST);
	assert_int_equal(fou_own4(gw, rte_cpu_to_be_32(IP4(192, 168, 4, 3)))->kind,
			 FOU_OWN_BCAST);
	assert_null(fou_own4(gw, rte_cpu_to_be_32(IP4(10, 5, 0, 0))));
	assert_null(fou_own4(gw, rte_cpu_to_be_32(IP4(192, 168, 1, 2))));
	assert_null(fou_own4(gw, rte_cpu_to_be_32(IP4(192, 168, 1, 0))));
	assert_int_equal(fou_route4(gw, rte_cpu_to_be_32(IP4(10, 5, 0, 1)))->type, FOU_NH_LOCAL);
	assert_int_equal(fou_dst4(gw, rte_cpu_to_be_32(IP4(10, 5, 0, 1)))->type, FOU_NH_LOCAL);
	assert_int_equal(fou_dst4(gw, rte_cpu_to_be_32(IP4(192, 168, 1, 2)))->type,
			 FOU_NH_CONNECTED);
	assert_int_equal(fou_parse_ip("fd00:44::1", false, &a6, NULL), 0);
	o6 = fou_own6(gw, a6.v6);
	assert_non_null(o6);
	assert_int_equal(o6->tunnel, (uint32_t)fou_tunnel_find(gw, "g1") + 1);
	a6.v6[15] = 2;
	assert_null(fou_own6(gw, a6.v6));

	/* the network's broadcast address stays with its last address */
	UNIT_DEL(gw, "addr", "1,192.168.1.9/24");
	assert_null(fou_own4(gw, rte_cpu_to_be_32(IP4(192, 168, 1, 9))));
	assert_non_null(fou_own4(gw, rte_cpu_to_be_32(IP4(192, 168, 1, 255))));
	/* a tunnel takes its addresses with it */
	UNIT_DEL(gw, "tunnel", "t1");
	assert_null(fou_own4(gw, rte_cpu_to_be_32(IP4(192, 168, 4, 1))));
	assert_null(fou_own4(gw, rte_cpu_to_be_32(IP4(192, 168, 4, 3))));
}

/* Up to FOU_MAX_ADDRS addresses of both families: each found, nothing else
 * (the tables stay at most half full). */
static void
test_own_addresses_full(void **state)
{
	struct fou_gw *gw = unit_gw_new(NULL);
	struct fou_err err;
	char arg[64];
	unsigned int i;

	*state = gw;
	assert_int_equal(fou_iface_set(gw, EG_PORT, &mac_eg, 1500, &err), 0);
	for (i = 0; i < FOU_MAX_ADDRS; i++) {
		if (i % 2 == 0)
			snprintf(arg, sizeof(arg), "1,10.%u.%u.1/24", i / 256, i % 256);
		else
			snprintf(arg, sizeof(arg), "1,fd00:%x::1/64", i);
		UNIT_APPLY(gw, "addr", arg);
	}
	for (i = 0; i < FOU_MAX_ADDRS; i += 2) {
		unit_ctx("10.%u.%u.0/24", i / 256, i % 256);
		assert_int_equal(fou_own4(gw, rte_cpu_to_be_32(IP4(10, i / 256, i % 256, 1)))->kind,
				 FOU_OWN_ADDR);
		assert_int_equal(fou_own4(gw, rte_cpu_to_be_32(IP4(10, i / 256, i % 256, 255)))->kind,
				 FOU_OWN_BCAST);
		assert_null(fou_own4(gw, rte_cpu_to_be_32(IP4(10, i / 256, i % 256, 2))));
	}
	for (i = 1; i < FOU_MAX_ADDRS; i += 2) {
		struct fou_ip a;

		snprintf(arg, sizeof(arg), "fd00:%x::1", i);
		assert_int_equal(fou_parse_ip(arg, false, &a, NULL), 0);
		unit_ctx("%s", arg);
		assert_non_null(fou_own6(gw, a.v6));
		a.v6[15] = 3;
		assert_null(fou_own6(gw, a.v6));
	}
}

/* The names of the tunnels (or neighbours' addresses) in listing order. */
static void
tunnel_names(const struct fou_gw *gw, char *out, size_t len)
{
	struct fou_tunnel_info ti[16];
	unsigned int n = fou_tunnel_list(gw, ti, RTE_DIM(ti)), i;

	out[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%.15s", i ? " " : "",
			 ti[i].conf.name);
}

static void
neigh_addrs(const struct fou_gw *gw, char *out, size_t len)
{
	struct fou_neigh_info ni[16];
	unsigned int n = fou_neigh_list(gw, ni, RTE_DIM(ni), 0), i;

	out[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "",
			 FOU_IPSTR(&ni[i].ip));
}

/* A new tunnel or neighbour takes the lowest free slot: it is listed (and
 * written in /fou/config) where the first deleted one was. */
static void
test_slots_lowest_first(void **state)
{
	struct fou_gw *gw = rib_gw();
	char arg[128], names[256];
	unsigned int i;

	*state = gw;
	UNIT_DEL(gw, "tunnel", "t1");
	UNIT_DEL(gw, "tunnel", "s1");
	UNIT_DEL(gw, "tunnel", "g1");
	for (i = 0; i < 5; i++) {
		snprintf(arg, sizeof(arg), "x%u,type=ipip,local=10.0.0.1,remote=10.9.0.%u,encap=none",
			 i, i + 1);
		UNIT_APPLY(gw, "tunnel", arg);
		snprintf(arg, sizeof(arg), "192.168.1.%u,dev=1,lladdr=02:00:00:00:01:%02x", 10 + i,
			 10 + i);
		UNIT_APPLY(gw, "neigh", arg);
	}
	UNIT_DEL(gw, "tunnel", "x3");
	UNIT_DEL(gw, "tunnel", "x1");
	UNIT_APPLY(gw, "tunnel", "y1,type=ipip,local=10.0.0.1,remote=10.9.1.1,encap=none");
	UNIT_APPLY(gw, "tunnel", "y2,type=ipip,local=10.0.0.1,remote=10.9.1.2,encap=none");
	UNIT_APPLY(gw, "tunnel", "y3,type=ipip,local=10.0.0.1,remote=10.9.1.3,encap=none");
	tunnel_names(gw, names, sizeof(names));
	assert_string_equal(names, "x0 y1 x2 y2 x4 y3");
	UNIT_DEL(gw, "neigh", "192.168.1.13,dev=1");
	UNIT_DEL(gw, "neigh", "192.168.1.10,dev=1");
	UNIT_APPLY(gw, "neigh", "192.168.1.20,dev=1,lladdr=02:00:00:00:01:20");
	UNIT_APPLY(gw, "neigh", "192.168.1.21,dev=1,lladdr=02:00:00:00:01:21");
	neigh_addrs(gw, names, sizeof(names));
	assert_string_equal(names, "192.168.1.20 192.168.1.11 192.168.1.12 192.168.1.21 "
			    "192.168.1.14");
}

/* A tunnel's delete takes the routes into it, and only those, whichever
 * family; its next hops go once unused. */
static void
test_tunnel_del_routes(void **state)
{
	struct fou_gw *gw = rib_gw();
	struct fou_route_info ri;
	struct fou_ip p;

	*state = gw;
	UNIT_APPLY(gw, "route", "172.16.0.0/16,dev=g1");
	UNIT_APPLY(gw, "route", "172.17.0.0/16,dev=t1");
	UNIT_APPLY(gw, "route", "fd00:77::/48,dev=g1");
	UNIT_APPLY(gw, "route", "172.18.0.0/16,dev=g1");
	UNIT_APPLY(gw, "addr", "g1,192.168.9.1/30");
	assert_int_equal(fou_route_list(gw, NULL, 0, 0), 15);
	UNIT_DEL(gw, "tunnel", "g1");
	/* the ports' addresses' 8 routes and the one into t1 */
	assert_int_equal(fou_route_list(gw, NULL, 0, 0), 9);
	assert_int_equal(fou_parse_ip("172.17.0.0/16", true, &p, NULL), 0);
	assert_int_equal(fou_route_get(gw, &p, &ri), 0);
	assert_string_equal(ri.tunnel, "t1");
	assert_null(fou_route4(gw, rte_cpu_to_be_32(IP4(172, 16, 1, 1))));
	assert_null(fou_route6(gw, (const uint8_t[16]){ 0xfd, 0, 0, 0x77, [15] = 1 }));
	/* the tunnel's slot and name are free again */
	UNIT_APPLY(gw, "tunnel", "g1,type=gre,local=10.0.0.1,remote=10.0.0.4,encap=none");
	UNIT_APPLY(gw, "route", "172.16.0.0/16,dev=g1");
}

static int
teardown_gw(void **state)
{
	fou_gw_free(*state);
	*state = NULL;
	return 0;
}

#define T(f) cmocka_unit_test_teardown(f, teardown_gw)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_route_lookup_matches_lpm),
		T(test_own_addresses),
		T(test_own_addresses_full),
		T(test_slots_lowest_first),
		T(test_tunnel_del_routes),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("rib", tests, NULL, NULL);
	return unit_eal_fini(failures);
}
