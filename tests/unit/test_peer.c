/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fou_peer_config(): the exact Linux commands for the far end of every
 * kind of tunnel (ipip, sit, gre, ip6tnl in its modes, ip6gre; fou, gue,
 * none; GRE key, checksum, sequence; IPv4 and IPv6 addresses), the
 * peer's address and route-back rules, and the errors, which hand out no
 * line at all. The expected lines are written here by hand from
 * iproute2's syntax (ip-link(8), ip-fou(8)), not from the code.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

#define MAX_LINES 32

struct lines {
	unsigned int n;
	char l[MAX_LINES][512];
	unsigned int fail_at;	/* 1-based line the callback refuses, 0: none */
};

static int
record(void *ctx, const char *line, struct fou_err *err)
{
	struct lines *r = ctx;

	if (r->n == MAX_LINES)
		return -E2BIG;
	snprintf(r->l[r->n], sizeof(r->l[0]), "%s", line);
	if (++r->n == r->fail_at) {
		fou_err_set(err, "refused line %u", r->n);
		return -EPIPE;
	}
	return 0;
}

/* The commands for tunnel name are exactly want[] (NULL-terminated). */
static void
expect_lines(struct fou_gw *gw, const char *name, const char *const *want)
{
	struct lines r = { 0 };
	struct fou_err err = { "" };
	unsigned int i;
	int ret;

	ret = fou_peer_config(gw, name, record, &r, &err);
	if (ret != 0)
		fail_msg("fou_peer_config(%s): %d %s", name, ret, err.msg);
	for (i = 0; want[i] != NULL && i < r.n; i++)
		if (strcmp(r.l[i], want[i]) != 0)
			fail_msg("line %u:\n got  '%s'\n want '%s'", i + 1, r.l[i], want[i]);
	if (want[i] != NULL)
		fail_msg("%u lines, want more: '%s'", r.n, want[i]);
	if (i != r.n)
		fail_msg("%u lines, want %u; extra: '%s'", r.n, i, r.l[i]);
}

/* fou_peer_config(name) fails with ret, err containing msg, no line out. */
static void
expect_error(struct fou_gw *gw, const char *name, int ret, const char *msg)
{
	struct lines r = { 0 };
	struct fou_err err = { "" };

	assert_int_equal(fou_peer_config(gw, name, record, &r, &err), ret);
	if (strstr(err.msg, msg) == NULL)
		fail_msg("error '%s' lacks '%s'", err.msg, msg);
	assert_int_equal(r.n, 0);
}

static int
teardown_gw(void **state)
{
	fou_gw_free(*state);
	*state = NULL;
	return 0;
}

/*
 * ipip over FOU, an IPv4 /30 on it: the peer's side mirrored (local and
 * remote swapped), encap-dport the gateway's ipip port (5555, not the
 * tunnel's own 5570, which is what the peer listens on), the other host of
 * the /30, the routes back to port 1's network and its routes (not port
 * 0's: the underlay), forwarding and rp_filter for IPv4 only.
 */
static void
test_ipip_fou(void **state)
{
	struct fou_gw *gw = *state = unit_gw_std();
	static const char *const want[] = {
		"ip fou add port 5570 ipproto 4",
		"ip link add t1 type ipip local 10.0.0.2 remote 10.0.0.1 ttl 64 encap fou "
		"encap-sport auto encap-dport 5555 encap-csum",
		"ip addr add 192.168.70.2/30 dev t1",
		"ip link set t1 up",
		"ip route add 192.168.1.0/24 dev t1",
		"ip route add 10.20.0.0/16 dev t1",
		"ip route add 10.21.0.0/16 dev t1",
		"sysctl -w net.ipv4.ip_forward=1",
		"sysctl -w net.ipv4.conf.t1.rp_filter=2",
		NULL,
	};

	UNIT_APPLY_LINES(gw, "tunnel t1,type=ipip,local=10.0.0.1,remote=10.0.0.2,ttl=64,"
			 "encap-dport=5570,encap-csum\n"
			 "addr t1,192.168.70.1/30\n");
	expect_lines(gw, "t1", want);
}

/*
 * sit over GUE, fixed source port, TTL inherit, an IPv6 /127: the other
 * address of the pair (RFC 6164), the IPv6 networks behind port 1.
 */
static void
test_sit_gue(void **state)
{
	struct fou_gw *gw = *state = unit_gw_std();
	static const char *const want[] = {
		"ip fou add port 6081 gue",
		"ip link add s1 type sit local 10.0.0.2 remote 10.0.0.1 ttl inherit encap gue "
		"encap-sport 1234 encap-dport 6080 noencap-csum",
		"ip addr add fd00:70::1/127 dev s1",
		"ip link set s1 up",
		"ip route add fd00:1::/64 dev s1",
		"ip route add fd00:20::/32 dev s1",
		"ip route add fd00:21::/32 dev s1",
		"sysctl -w net.ipv6.conf.all.forwarding=1",
		NULL,
	};

	UNIT_APPLY_LINES(gw, "port 6080:gue\n"
			 "tunnel s1,type=sit,local=10.0.0.1,remote=10.0.0.2,encap=gue,"
			 "encap-sport=1234,encap-dport=6081\n"
			 "addr s1,fd00:70::/127\n");
	expect_lines(gw, "s1", want);
}

/*
 * gre with key, checksum and sequence numbers, TOS inherited, no DF: the
 * key both ways, the checksum both ways, the sequence numbers the gateway
 * sends required (iseq) and none sent back. IPv4 /24 (the first host,
 * .1, is the gateway's: .2) and two IPv6 addresses of one /64 (::1 and ::2
 * the gateway's: ::3, once). Both families routed back; the default route
 * and a route containing the tunnel's remote are not.
 */
static void
test_gre_options(void **state)
{
	struct fou_gw *gw = *state = unit_gw_std();
	static const char *const want[] = {
		"ip fou add port 5580 ipproto 47",
		"ip link add g1 type gre local 10.0.0.2 remote 10.0.0.1 ttl inherit tos inherit "
		"nopmtudisc key 42 csum iseq encap fou encap-sport auto encap-dport 5556 "
		"noencap-csum",
		"ip addr add 192.168.47.2/24 dev g1",
		"ip addr add fd00:47::3/64 dev g1",
		"ip link set g1 up",
		"ip route add 192.168.1.0/24 dev g1",
		"ip route add fd00:1::/64 dev g1",
		"ip route add 10.20.0.0/16 dev g1",
		"ip route add fd00:20::/32 dev g1",
		"ip route add 10.21.0.0/16 dev g1",
		"ip route add fd00:21::/32 dev g1",
		"sysctl -w net.ipv4.ip_forward=1",
		"sysctl -w net.ipv4.conf.g1.rp_filter=2",
		"sysctl -w net.ipv6.conf.all.forwarding=1",
		NULL,
	};

	UNIT_APPLY_LINES(gw, "route 0.0.0.0/0,dev=1,via=192.168.1.2\n"
			 "route 10.0.0.0/8,dev=1,via=192.168.1.2\n"
			 "tunnel g1,type=gre,local=10.0.0.1,remote=10.0.0.2,tos=inherit,nopmtudisc,"
			 "key=42,csum,seq,encap-dport=5580\n"
			 "addr g1,192.168.47.1/24\n"
			 "addr g1,fd00:47::1/64\n"
			 "addr g1,fd00:47::2/64\n");
	expect_lines(gw, "g1", want);
}

/*
 * The routes back follow the families the gateway uses the tunnel for: a
 * gre tunnel with only an IPv4 address gets no IPv6 route nor IPv6
 * forwarding; a route of the gateway's into it brings its family in. A
 * tunnel with no address nor route gets its link, and nothing else.
 */
static void
test_gre_families(void **state)
{
	struct fou_gw *gw = *state = unit_gw_std();
	static const char *const v4[] = {
		"ip fou add port 5580 ipproto 47",
		"ip link add g4 type gre local 10.0.0.2 remote 10.0.0.1 ttl inherit encap fou "
		"encap-sport auto encap-dport 5556 noencap-csum",
		"ip addr add 192.168.47.1/24 dev g4",
		"ip link set g4 up",
		"ip route add 192.168.1.0/24 dev g4",
		"ip route add 10.20.0.0/16 dev g4",
		"ip route add 10.21.0.0/16 dev g4",
		"sysctl -w net.ipv4.ip_forward=1",
		"sysctl -w net.ipv4.conf.g4.rp_filter=2",
		NULL,
	};
	/* g0 (another key, so another tunnel) has neither */
	static const char *const bare[] = {
		"ip fou add port 5581 ipproto 47",
		"ip link add g0 type gre local 10.0.0.2 remote 10.0.0.1 ttl inherit key 1 "
		"encap fou encap-sport auto encap-dport 5556 noencap-csum",
		"ip link set g0 up",
		NULL,
	};
	static const char *const v4v6[] = {
		"ip fou add port 5580 ipproto 47",
		"ip link add g4 type gre local 10.0.0.2 remote 10.0.0.1 ttl inherit encap fou "
		"encap-sport auto encap-dport 5556 noencap-csum",
		"ip addr add 192.168.47.1/24 dev g4",
		"ip link set g4 up",
		"ip route add 192.168.1.0/24 dev g4",
		"ip route add fd00:1::/64 dev g4",
		"ip route add 10.20.0.0/16 dev g4",
		"ip route add fd00:20::/32 dev g4",
		"ip route add 10.21.0.0/16 dev g4",
		"ip route add fd00:21::/32 dev g4",
		"sysctl -w net.ipv4.ip_forward=1",
		"sysctl -w net.ipv4.conf.g4.rp_filter=2",
		"sysctl -w net.ipv6.conf.all.forwarding=1",
		NULL,
	};
	/* .2 is the gateway's: the peer takes .1 */
	UNIT_APPLY_LINES(gw, "tunnel g4,type=gre,local=10.0.0.1,remote=10.0.0.2,encap-dport=5580\n"
			 "addr g4,192.168.47.2/24\n"
			 "tunnel g0,type=gre,local=10.0.0.1,remote=10.0.0.2,key=1,encap-dport=5581\n");
	expect_lines(gw, "g4", v4);
	UNIT_APPLY(gw, "route", "fd00:99::/64,dev=g4");
	expect_lines(gw, "g4", v4v6);
	expect_lines(gw, "g0", bare);
}

/*
 * The routes back take the metric of the gateway's routes into the
 * tunnel: two tunnels backing each other up (metric 10 and 20 to one
 * network) give the peer 10 and 20, so its two routes back to port 1's
 * network do not collide and keep the gateway's order. Per family, the
 * lowest of that family, else of any family; metric 0 (Linux's IPv4 default,
 * which IPv6 takes as 1024) is left out.
 */
static void
test_metric(void **state)
{
	struct fou_gw *gw = *state = unit_gw_std();
	static const char *const m1[] = {
		"ip fou add port 5581 ipproto 47",
		"ip link add m1 type gre local 10.0.0.2 remote 10.0.0.1 ttl inherit key 1 "
		"encap fou encap-sport auto encap-dport 5556 noencap-csum",
		"ip addr add 192.168.81.2/30 dev m1",
		"ip link set m1 up",
		"ip route add 192.168.1.0/24 dev m1 metric 10",
		"ip route add fd00:1::/64 dev m1 metric 30",
		"ip route add 10.20.0.0/16 dev m1 metric 10",
		"ip route add fd00:20::/32 dev m1 metric 30",
		"ip route add 10.21.0.0/16 dev m1 metric 10",
		"ip route add fd00:21::/32 dev m1 metric 30",
		"sysctl -w net.ipv4.ip_forward=1",
		"sysctl -w net.ipv4.conf.m1.rp_filter=2",
		"sysctl -w net.ipv6.conf.all.forwarding=1",
		NULL,
	};
	static const char *const m2[] = {
		"ip fou add port 5582 ipproto 47",
		"ip link add m2 type gre local 10.0.0.2 remote 10.0.0.1 ttl inherit key 2 "
		"encap fou encap-sport auto encap-dport 5556 noencap-csum",
		"ip addr add 192.168.82.2/30 dev m2",
		"ip addr add fd00:82::2/64 dev m2",
		"ip link set m2 up",
		"ip route add 192.168.1.0/24 dev m2 metric 20",
		"ip route add fd00:1::/64 dev m2 metric 20",
		"ip route add 10.20.0.0/16 dev m2 metric 20",
		"ip route add fd00:20::/32 dev m2 metric 20",
		"ip route add 10.21.0.0/16 dev m2 metric 20",
		"ip route add fd00:21::/32 dev m2 metric 20",
		"sysctl -w net.ipv4.ip_forward=1",
		"sysctl -w net.ipv4.conf.m2.rp_filter=2",
		"sysctl -w net.ipv6.conf.all.forwarding=1",
		NULL,
	};
	static const char *const m3[] = {
		"ip fou add port 5583 ipproto 4",
		"ip link add m3 type ipip local 10.0.0.3 remote 10.0.0.1 ttl inherit encap fou "
		"encap-sport auto encap-dport 5555 noencap-csum",
		"ip link set m3 up",
		"ip route add 192.168.1.0/24 dev m3",
		"ip route add 10.20.0.0/16 dev m3",
		"ip route add 10.21.0.0/16 dev m3",
		"sysctl -w net.ipv4.ip_forward=1",
		"sysctl -w net.ipv4.conf.m3.rp_filter=2",
		NULL,
	};

	UNIT_APPLY_LINES(gw, "tunnel m1,type=gre,local=10.0.0.1,remote=10.0.0.2,key=1,"
			 "encap-dport=5581\n"
			 "addr m1,192.168.81.1/30\n"
			 "tunnel m2,type=gre,local=10.0.0.1,remote=10.0.0.2,key=2,"
			 "encap-dport=5582\n"
			 "addr m2,192.168.82.1/30\n"
			 "addr m2,fd00:82::1/64\n"
			 "tunnel m3,type=ipip,local=10.0.0.1,remote=10.0.0.3,encap-dport=5583\n"
			 "route 10.77.0.0/24,dev=m1,metric=10\n"
			 "route 10.77.0.0/24,dev=m2,metric=20\n"
			 "route 10.78.0.0/24,dev=m1,metric=40\n"
			 /* m1's IPv6 routes back take 30, its IPv4 ones 10; m2 has
			  * no IPv6 route: its IPv6 routes back take its 20 */
			 "route fd00:77::/64,dev=m1,metric=30\n"
			 "route 10.79.0.0/24,dev=m3,metric=0\n");
	expect_lines(gw, "m1", m1);
	expect_lines(gw, "m2", m2);
	expect_lines(gw, "m3", m3);
}

/*
 * Over IPv6: ip6tnl mode ipip6 over FOU (the gateway's ipip port over
 * IPv6), ip6ip6 over GUE, ip6gre with every outer option not the
 * default, and plain ip6tnl mode any; every outer option written out.
 */
static void
test_ip6(void **state)
{
	struct fou_gw *gw = *state = unit_gw_std();
	static const char *const ipip6[] = {
		"ip fou add port 5590 ipproto 4 -6",
		"ip link add a6 type ip6tnl mode ipip6 local fd00:99::2 remote fd00:99::10 "
		"hoplimit 64 encaplimit 4 tclass 0x00 flowlabel 0x00000 encap fou "
		"encap-sport auto encap-dport 5565 encap-udp6-csum",
		"ip addr add 192.168.60.2/24 dev a6",
		"ip link set a6 up",
		"ip route add 192.168.1.0/24 dev a6",
		"ip route add 10.20.0.0/16 dev a6",
		"ip route add 10.21.0.0/16 dev a6",
		"sysctl -w net.ipv4.ip_forward=1",
		"sysctl -w net.ipv4.conf.a6.rp_filter=2",
		NULL,
	};
	static const char *const ip6ip6[] = {
		"ip fou add port 5591 gue -6",
		"ip link add b6 type ip6tnl mode ip6ip6 local fd00:99::3 remote fd00:99::10 "
		"hoplimit inherit encaplimit none tclass inherit flowlabel inherit encap gue "
		"encap-sport auto encap-dport 5568 noencap-udp6-csum",
		"ip addr add fd00:61::2/64 dev b6",
		"ip link set b6 up",
		/* fd00:99::/64 is port 0's, the underlay: not routed back */
		"ip route add fd00:1::/64 dev b6",
		"ip route add fd00:20::/32 dev b6",
		"ip route add fd00:21::/32 dev b6",
		"sysctl -w net.ipv6.conf.all.forwarding=1",
		NULL,
	};
	static const char *const ip6gre[] = {
		"ip fou add port 5592 ipproto 47 -6",
		"ip link add c6 type ip6gre local fd00:99::4 remote fd00:99::10 hoplimit 17 "
		"encaplimit 0 tclass 0xb8 flowlabel 0x12345 key 7 csum encap fou "
		"encap-sport auto encap-dport 5567 encap-udp6-csum",
		"ip link set c6 up",
		NULL,
	};
	static const char *const any[] = {
		"ip link add d6 type ip6tnl mode any local fd00:99::5 remote fd00:99::10 "
		"hoplimit 64 encaplimit 4 tclass 0x00 flowlabel 0x00000",
		"ip addr add 192.168.62.2/24 dev d6",
		"ip addr add fd00:62::2/64 dev d6",
		"ip link set d6 up",
		"ip route add 192.168.1.0/24 dev d6",
		"ip route add fd00:1::/64 dev d6",
		"ip route add 10.20.0.0/16 dev d6",
		"ip route add fd00:20::/32 dev d6",
		"ip route add 10.21.0.0/16 dev d6",
		"ip route add fd00:21::/32 dev d6",
		"sysctl -w net.ipv4.ip_forward=1",
		"sysctl -w net.ipv4.conf.d6.rp_filter=2",
		"sysctl -w net.ipv6.conf.all.forwarding=1",
		NULL,
	};

	UNIT_APPLY_LINES(gw, "addr 0,fd00:99::10/64\n"
			 "port 5565:ipip,family=6\n"
			 "port 5567:gre,family=6\n"
			 "port 5568:gue,family=6\n"
			 "tunnel a6,type=ip6tnl,mode=ipip6,local=fd00:99::10,remote=fd00:99::2,"
			 "encap=fou,encap-dport=5590\n"
			 "addr a6,192.168.60.1/24\n"
			 "tunnel b6,type=ip6tnl,mode=ip6ip6,local=fd00:99::10,remote=fd00:99::3,"
			 "hoplimit=inherit,encaplimit=none,tclass=inherit,flowlabel=inherit,"
			 "encap=gue,encap-dport=5591,noencap-udp6-csum\n"
			 "addr b6,fd00:61::1/64\n"
			 "tunnel c6,type=ip6gre,local=fd00:99::10,remote=fd00:99::4,hoplimit=17,"
			 "encaplimit=0,tclass=b8,flowlabel=12345,key=7,csum,encap-dport=5592\n"
			 "tunnel d6,type=ip6tnl,mode=any,local=fd00:99::10,remote=fd00:99::5,"
			 "encap=none\n"
			 "addr d6,192.168.62.1/24\n"
			 "addr d6,fd00:62::1/64\n");
	expect_lines(gw, "a6", ipip6);
	expect_lines(gw, "b6", ip6ip6);
	expect_lines(gw, "c6", ip6gre);
	expect_lines(gw, "d6", any);
}

/*
 * Plain ipip (encap none): no FOU port, no encap words. A name with a dot
 * has its sysctl key written with slashes. A /31: the other of the pair.
 */
static void
test_plain_and_dotted(void **state)
{
	struct fou_gw *gw = *state = unit_gw_std();
	static const char *const want[] = {
		"ip link add p.1 type ipip local 10.0.0.2 remote 10.0.0.1 ttl inherit",
		"ip addr add 192.168.80.4/31 dev p.1",
		"ip link set p.1 up",
		"ip route add 192.168.1.0/24 dev p.1",
		"ip route add 10.20.0.0/16 dev p.1",
		"ip route add 10.21.0.0/16 dev p.1",
		"sysctl -w net.ipv4.ip_forward=1",
		"sysctl -w net/ipv4/conf/p.1/rp_filter=2",
		NULL,
	};

	UNIT_APPLY_LINES(gw, "tunnel p.1,type=ipip,local=10.0.0.1,remote=10.0.0.2,encap=none\n"
			 "addr p.1,192.168.80.5/31\n");
	expect_lines(gw, "p.1", want);
}

/*
 * Errors name the tunnel and what is missing, and no line comes out: no
 * such tunnel; no receive port of the gateway for the peer's packets (a
 * FOU port of the protocol, a GUE port, of the outer family); ip6tnl mode
 * any over FOU; an address that leaves none for the peer; a network whose
 * every host is the gateway's. A callback's error ends the lines with it.
 */
static void
test_errors(void **state)
{
	struct fou_gw *gw = *state = unit_gw_std();
	struct lines r = { .fail_at = 2 };
	struct fou_err err = { "" };

	expect_error(gw, "nosuch", -ENOENT, "no tunnel 'nosuch'");
	UNIT_APPLY_LINES(gw, "addr 0,fd00:99::10/64\n"
			 "tunnel nogue,type=ipip,local=10.0.0.1,remote=10.0.0.2,encap=gue,"
			 "encap-dport=7000\n"
			 "tunnel no6,type=ip6tnl,mode=ipip6,local=fd00:99::10,remote=fd00:99::2,"
			 "encap-dport=7001\n"
			 "tunnel any6,type=ip6tnl,mode=any,local=fd00:99::10,remote=fd00:99::3,"
			 "encap=gue,encap-dport=7002\n"
			 "tunnel host,type=ipip,local=10.0.0.1,remote=10.0.0.3,encap-dport=7003\n"
			 "addr host,192.168.90.1/32\n"
			 "tunnel full,type=ipip,local=10.0.0.1,remote=10.0.0.4,encap-dport=7004\n"
			 "addr full,192.168.91.1/30\n"
			 "addr full,192.168.91.2/30\n"
			 "tunnel host6,type=sit,local=10.0.0.1,remote=10.0.0.5,encap-dport=7005\n"
			 "addr host6,fd00:92::1/128\n");
	expect_error(gw, "nogue", -ENOENT,
		     "tunnel nogue: the gateway has no GUE port over IPv4 for the peer");
	expect_error(gw, "no6", -ENOENT,
		     "tunnel no6: the gateway has no FOU port for ipip over IPv6 for the peer "
		     "to send to (add one: port P:ipip,family=6)");
	/* a GUE port over IPv6 would do for any6, but there is none either */
	expect_error(gw, "any6", -ENOENT, "tunnel any6: the gateway has no GUE port over IPv6");
	expect_error(gw, "host", -EINVAL,
		     "tunnel host: address 192.168.90.1/32 leaves no address for the peer");
	expect_error(gw, "full", -EADDRINUSE,
		     "tunnel full: every host address of 192.168.91.1/30 is the gateway's");
	expect_error(gw, "host6", -EINVAL,
		     "tunnel host6: address fd00:92::1/128 leaves no address for the peer");
	UNIT_APPLY_LINES(gw, "tunnel anyfou,type=ip6tnl,mode=any,local=fd00:99::10,"
			 "remote=fd00:99::4,encap=fou,encap-dport=7006\n");
	expect_error(gw, "anyfou", -EINVAL, "tunnel anyfou: ip6tnl mode any over FOU");

	assert_int_equal(fou_peer_config(gw, "any6", record, &r, &err), -ENOENT);
	UNIT_APPLY(gw, "port", "6090:gue,family=6");
	assert_int_equal(fou_peer_config(gw, "any6", record, &r, &err), -EPIPE);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.l[0], "ip fou add port 7002 gue -6");
	assert_string_equal(err.msg, "refused line 2");
}

#define T(f) cmocka_unit_test_teardown(f, teardown_gw)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_ipip_fou),
		T(test_sit_gue),
		T(test_gre_options),
		T(test_gre_families),
		T(test_metric),
		T(test_ip6),
		T(test_plain_and_dotted),
		T(test_errors),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("peer", tests, NULL, NULL);
	return unit_eal_fini(failures);
}
