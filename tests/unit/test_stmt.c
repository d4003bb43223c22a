/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Statements and control operations: valid and invalid forms of port,
 * addr, route, neigh and link. A failed statement returns the right
 * -errno, names the problem in its message and changes nothing: neither the
 * gateway's tables (compared byte for byte) nor what the data path does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <pthread.h>

#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "unit.h"
#include "fou_stmt.h"
#include "fou_rib.h"

/* --- snapshots of the control state ------------------------------------------ */

struct snap {
	struct fou_gw gw;
	struct fou_nexthop *nh;
	struct fou_neigh_info *neighs;
	struct fou_route_info *routes;
	struct fou_tunnel *tunnels;
	unsigned int nb_neigh, nb_routes;
	int32_t nb_tun_names;
};

static void
snap_take(const struct fou_gw *gw, struct snap *s)
{
	unsigned int i;

	memcpy(&s->gw, gw, sizeof(*gw));
	s->nh = malloc(sizeof(*s->nh) * gw->params.max_nexthops);
	assert_non_null(s->nh);
	memcpy(s->nh, gw->nh, sizeof(*s->nh) * gw->params.max_nexthops);
	s->nb_neigh = fou_neigh_list(gw, NULL, 0, 0);
	s->neighs = calloc(s->nb_neigh + 1, sizeof(*s->neighs));
	assert_non_null(s->neighs);
	fou_neigh_list(gw, s->neighs, s->nb_neigh, 0);
	/* the clock moves on between two snapshots: the age is no state */
	for (i = 0; i < s->nb_neigh; i++)
		s->neighs[i].age_ms = 0;
	s->nb_routes = fou_route_list(gw, NULL, 0, 0);
	s->routes = calloc(s->nb_routes + 1, sizeof(*s->routes));
	assert_non_null(s->routes);
	fou_route_list(gw, s->routes, s->nb_routes, 0);
	s->tunnels = malloc(sizeof(*s->tunnels) * gw->params.max_tunnels);
	assert_non_null(s->tunnels);
	memcpy(s->tunnels, gw->tunnels, sizeof(*s->tunnels) * gw->params.max_tunnels);
	s->nb_tun_names = rte_hash_count(gw->tun_names);
}

/* Same as when taken? Frees the snapshot either way. */
static bool
snap_same(const struct fou_gw *gw, struct snap *s)
{
	struct snap now;
	bool same;

	snap_take(gw, &now);
	same = memcmp(&s->gw, gw, sizeof(*gw)) == 0 &&
	       memcmp(s->nh, gw->nh, sizeof(*s->nh) * gw->params.max_nexthops) == 0 &&
	       s->nb_neigh == now.nb_neigh &&
	       memcmp(s->neighs, now.neighs, sizeof(*s->neighs) * s->nb_neigh) == 0 &&
	       s->nb_routes == now.nb_routes &&
	       memcmp(s->routes, now.routes, sizeof(*s->routes) * s->nb_routes) == 0 &&
	       memcmp(s->tunnels, gw->tunnels, sizeof(*s->tunnels) * gw->params.max_tunnels) == 0 &&
	       s->nb_tun_names == rte_hash_count(gw->tun_names);
	free(s->nh);
	free(s->neighs);
	free(s->routes);
	free(s->tunnels);
	free(now.nh);
	free(now.neighs);
	free(now.routes);
	free(now.tunnels);
	return same;
}

/*
 * fou_stmt_apply(name, arg) fails with ret, its message contains every
 * string of want, and the gateway is unchanged.
 */
typedef int (*stmt_fn)(struct fou_gw *gw, const char *name, const char *arg,
		       struct fou_err *err);

static void
stmt_run_err(struct fou_gw *gw, stmt_fn fn, const char *name, const char *arg, int ret,
	     const char *const *want, const char *file, int line)
{
	struct fou_err err;
	struct snap s;
	bool same;
	int r;

	strcpy(err.msg, "(no message)");
	snap_take(gw, &s);
	r = fn(gw, name, arg, &err);
	same = snap_same(gw, &s);
	if (r != ret) {
		print_error("%s '%s': returned %d (%s), expected %d\n", name, arg, r, err.msg, ret);
		_fail(file, line);
	}
	for (; *want != NULL; want++) {
		if (strstr(err.msg, *want) == NULL) {
			print_error("%s '%s': message \"%s\" lacks \"%s\"\n", name, arg, err.msg,
				    *want);
			_fail(file, line);
		}
	}
	if (!same) {
		print_error("%s '%s' failed but changed the gateway\n", name, arg);
		_fail(file, line);
	}
}
#define EXPECT_STMT_ERR(gw, name, arg, ret, ...) \
	stmt_run_err((gw), fou_stmt_apply, (name), (arg), (ret), \
		     (const char *const[]){ __VA_ARGS__, NULL }, __FILE__, __LINE__)
/* The same for the delete form of a statement. */
#define EXPECT_DEL_ERR(gw, name, arg, ret, ...) \
	stmt_run_err((gw), fou_stmt_del, (name), (arg), (ret), \
		     (const char *const[]){ __VA_ARGS__, NULL }, __FILE__, __LINE__)

/* A table of failing arguments for one statement. */
struct bad_arg {
	const char *arg;
	int ret;
	const char *want1, *want2;
};

static void
bad_args(struct fou_gw *gw, stmt_fn fn, const char *name, const struct bad_arg *t,
	 unsigned int n, const char *file, int line)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		stmt_run_err(gw, fn, name, t[i].arg, t[i].ret,
			     (const char *const[]){ t[i].want1, t[i].want2, NULL }, file, line);
}
#define BAD_ARGS(gw, name, t) \
	bad_args((gw), fou_stmt_apply, (name), (t), RTE_DIM(t), __FILE__, __LINE__)
#define BAD_DEL_ARGS(gw, name, t) \
	bad_args((gw), fou_stmt_del, (name), (t), RTE_DIM(t), __FILE__, __LINE__)

/* --- fixtures -------------------------------------------------------------- */

/* Ports 0 and 1 with their MACs, nothing else. */
static int
setup_bare(void **state)
{
	struct fou_err err;
	struct fou_gw *gw = unit_gw_new(NULL);

	assert_int_equal(fou_iface_set(gw, RX_PORT, &mac_rx, 1500, &err), 0);
	assert_int_equal(fou_iface_set(gw, EG_PORT, &mac_eg, 1500, &err), 0);
	*state = gw;
	return 0;
}

/* Ports and addresses as in the standard topology, no routes or neighbours. */
static int
setup_addrs(void **state)
{
	setup_bare(state);
	UNIT_APPLY(*state, "addr", "0,10.0.0.1/24");
	UNIT_APPLY(*state, "addr", "1,192.168.1.1/24");
	UNIT_APPLY(*state, "addr", "1,fd00:1::1/64");
	return 0;
}

static int
setup_std(void **state)
{
	*state = unit_gw_std();
	return 0;
}

static int
teardown_gw(void **state)
{
	return unit_test_teardown_gw(state, *state);
}

/* An ipip frame to outer dst, inner to inner_dst. */
static void
frame_to(struct unit_pkt *p, uint32_t dst, uint32_t inner_dst)
{
	struct unit_spec s;

	unit_spec_ipip(&s);
	s.dst = dst;
	s.in_dst4 = inner_dst;
	unit_build(&s, p);
}

static void
expect_golden_fwd(const struct fou_gw *gw, const struct rte_ether_addr *mac, const char *file,
		  int line)
{
	static uint8_t out[UNIT_PKT_MAX];
	struct unit_pkt p;
	uint32_t olen;

	frame_to(&p, IP4(10, 0, 0, 1), IP4(10, 20, 0, 7));
	olen = unit_expect_out_same(&p, mac, out);
	unit_run(gw, unit_mbuf(p.b, p.len),
		 &(struct unit_exp){ .verdict = UNIT_FWD, .decap_port = PORT_IPIP,
				     .decap_inner = FOU_INNER_IPV4, .out = out, .out_len = olen,
				     .out_port = EG_PORT },
		 file, line);
}
/* The standard ipip frame is forwarded to mac. */
#define EXPECT_GOLDEN_FWD(gw, mac) expect_golden_fwd((gw), (mac), __FILE__, __LINE__)

/* A plain GRE (protocol 47) frame to 10.0.0.1 carrying the standard inner IPv4. */
static void
build_plain_gre(struct unit_pkt *p)
{
	struct unit_pkt f;

	frame_to(&f, IP4(10, 0, 0, 1), IP4(10, 20, 0, 7));
	/* outer IPv4 (20), GRE (4), then the inner packet: the UDP header goes */
	memcpy(p, &f, sizeof(*p));
	memcpy(p->b + f.l4 + 4, f.b + f.inner, f.inner_tot);
	unit_put16(p->b + f.l4, 0);
	unit_put16(p->b + f.l4 + 2, RTE_ETHER_TYPE_IPV4);
	p->len = f.l4 + 4 + f.inner_tot;
	p->b[f.l3 + 9] = IPPROTO_GRE;
	unit_put16(p->b + f.l3 + 2, (uint16_t)(p->len - f.l3));
	unit_ip4_cksum_fix(p->b + f.l3);
}

/* --- generic ------------------------------------------------------------------- */

static void
test_stmt_unknown(void **state)
{
	struct fou_gw *gw = *state;

	EXPECT_STMT_ERR(gw, "tunnels", "1", -EINVAL, "unknown statement 'tunnels'");
	EXPECT_STMT_ERR(gw, "fou", "5555:ipip", -EINVAL, "unknown statement 'fou'");
	EXPECT_STMT_ERR(gw, "Port", "5555:ipip", -EINVAL, "unknown statement 'Port'");
	EXPECT_STMT_ERR(gw, "", "5555:ipip", -EINVAL, "unknown statement ''");
}

static void
test_stmt_too_long(void **state)
{
	struct fou_gw *gw = *state;
	char arg[400];

	memset(arg, '1', sizeof(arg) - 1);
	arg[sizeof(arg) - 1] = '\0';
	EXPECT_STMT_ERR(gw, "port", arg, -E2BIG, "longer than 255 characters");
	/* 255 characters still parse (and fail on content) */
	arg[1] = ':';
	arg[255] = '\0';
	EXPECT_STMT_ERR(gw, "port", arg, -EINVAL, "unknown protocol '1111");
}

static void
test_stmt_rank_usage(void **state)
{
	(void)state;
	/* doc/running.md's order: limits (taken before the gateway is made), sport-range,
	 * icmp-rate, ipfrag-time, link, gro, punt, addr, neigh, port, tunnel, route */
	static const char *const order[] = { "limits", "sport-range", "icmp-rate", "ipfrag-time",
					     "link", "gro", "punt", "addr", "neigh", "port",
					     "tunnel", "route" };
	unsigned int i;

	for (i = 0; i < RTE_DIM(order); i++) {
		assert_int_equal(fou_stmt_rank(order[i]), (int)i);
		assert_string_equal(fou_stmt_name(i), order[i]);
		assert_non_null(fou_stmt_usage(order[i]));
		assert_non_null(fou_stmt_help(order[i]));
	}
	/* fou_stmt_name() lists every statement once, in rank order */
	assert_null(fou_stmt_name(RTE_DIM(order)));
	assert_int_equal(fou_stmt_rank("tunnels"), -1);
	assert_int_equal(fou_stmt_rank(""), -1);
	assert_string_equal(fou_stmt_usage("route"),
			    "PREFIX,dev=PORTID|TUNNEL[,via=IP][,metric=N][,weight=N]");
	assert_string_equal(fou_stmt_usage("port"), "UDPPORT:PROTO|gue[,family=4|6]");
	assert_string_equal(fou_stmt_usage("sport-range"), "MIN-MAX");
	assert_null(fou_stmt_usage("tunnels"));
	assert_non_null(strstr(fou_stmt_help("port"), "ip fou add port"));
	assert_non_null(strstr(fou_stmt_help("tunnel"), "ip link add"));
	assert_null(fou_stmt_help("tunnels"));
	assert_string_equal(fou_stmt_usage("addr"), "PORTID|TUNNEL,IP/PLEN");
	/* the order statements are applied in: by rank, but an address on a
	 * tunnel after the tunnels and before the routes */
	for (i = 0; i < RTE_DIM(order); i++)
		assert_int_equal(fou_stmt_order(order[i], "1,x"), 2 * (int)i);
	assert_int_equal(fou_stmt_order("addr", "0,10.0.0.1/24"), 2 * fou_stmt_rank("addr"));
	assert_int_equal(fou_stmt_order("addr", "t1,192.168.4.1/30"),
			 2 * fou_stmt_rank("tunnel") + 1);
	assert_int_equal(fou_stmt_order("addr", "1a,192.168.4.1/30"),
			 2 * fou_stmt_rank("tunnel") + 1);
	assert_true(fou_stmt_order("addr", "t1,192.168.4.1/30") <
		    fou_stmt_order("route", "192.168.5.0/24,dev=t1"));
	assert_int_equal(fou_stmt_order("addr", ""), 2 * fou_stmt_rank("addr"));
	assert_int_equal(fou_stmt_order("tunnels", "t1"), -1);
}

/*
 * The telemetry commands come from the statement table: every statement
 * has /fou/NAME/add and /fou/NAME/del, or /fou/NAME/set if it cannot be
 * deleted ('-' as '_'), each with its help, each once; and the help fits
 * what rte_telemetry_register_cmd() takes.
 */
static void
test_tel_cmds_from_stmts(void **state)
{
	static const char *const expect[] = {
		"/fou/limits/set", "/fou/sport_range/set", "/fou/icmp_rate/set",
		"/fou/ipfrag_time/set", "/fou/link/set", "/fou/gro/add",
		"/fou/gro/del", "/fou/punt/add", "/fou/punt/del", "/fou/addr/add",
		"/fou/addr/del", "/fou/neigh/add",
		"/fou/neigh/del", "/fou/port/add", "/fou/port/del", "/fou/tunnel/add",
		"/fou/tunnel/del", "/fou/route/add", "/fou/route/del",
	};
	const struct fou_tel_cmd *cmds;
	unsigned int n, i, j, found = 0;

	(void)state;
	cmds = fou_telemetry_cmds(&n);
	for (i = 0; i < n; i++) {
		unit_ctx("%s", cmds[i].cmd);
		assert_non_null(cmds[i].fn);
		assert_non_null(cmds[i].help);
		assert_true(strlen(cmds[i].help) < RTE_TEL_MAX_STRING_LEN);
		for (j = 0; j < i; j++)
			assert_string_not_equal(cmds[i].cmd, cmds[j].cmd);
		for (j = 0; j < RTE_DIM(expect); j++)
			found += strcmp(cmds[i].cmd, expect[j]) == 0;
	}
	assert_int_equal(found, RTE_DIM(expect));
	/* and the reads: stats, reset, ports, tunnels, tunnel/health,
	 * tunnel/mtu_probe, routes, neighs, neigh/flush, addrs, punt, lcores,
	 * config, tunnel/peer_config */
	assert_int_equal(n, RTE_DIM(expect) + 14);
	for (i = 0; i < n && strcmp(cmds[i].cmd, "/fou/neigh/flush") != 0; i++)
		;
	assert_true(i < n);
	for (i = 0; i < n && strcmp(cmds[i].cmd, "/fou/tunnel/add") != 0; i++)
		;
	assert_true(i < n);
	assert_string_equal(cmds[i].help, "Add a tunnel: NAME,type=ipip|sit|gre|ip6tnl|ip6gre,"
			    "local=IP,remote=IP[,...], as --tunnel");
}

static const struct fou_tel_cmd *
tel_cmd(const char *name)
{
	const struct fou_tel_cmd *cmds;
	unsigned int n, i;

	cmds = fou_telemetry_cmds(&n);
	for (i = 0; i < n && strcmp(cmds[i].cmd, name) != 0; i++)
		;
	assert_true(i < n);
	return &cmds[i];
}

/* Run the handler of name as telemetry would; its return value. */
static int
tel_run(const char *name, const char *params)
{
	const struct fou_tel_cmd *c = tel_cmd(name);
	struct rte_tel_data *d = rte_tel_data_alloc();
	int ret;

	assert_non_null(d);
	ret = c->fn(c->cmd, params, d);
	rte_tel_data_free(d);
	return ret;
}

/*
 * Ready means ready: before fou_telemetry_start() (the app is still
 * building the gateway, without the lock) and after fou_telemetry_stop()
 * (it reads the final state, then frees it) a command answers its error
 * (the handler returns 0: a reply, not telemetry's null) and touches
 * nothing; in between it works. This binary starts no other command.
 */
static void
test_tel_ready_window(void **state)
{
	struct fou_port_info info[FOU_MAX_UDP_PORTS];
	struct fou_gw *gw = *state;

	assert_int_equal(tel_run("/fou/port/add", "7000:ipip"), 0);
	assert_int_equal(tel_run("/fou/neigh/flush", NULL), 0);
	assert_int_equal(tel_run("/fou/ports", NULL), 0);
	assert_int_equal(fou_port_list(gw, info, RTE_DIM(info)), 0);

	fou_telemetry_start(gw);
	assert_int_equal(tel_run("/fou/port/add", "7000:ipip"), 0);
	assert_int_equal(tel_run("/fou/port/add", "7001:gre"), 0);
	assert_int_equal(fou_port_list(gw, info, RTE_DIM(info)), 2);

	fou_telemetry_stop();
	assert_int_equal(tel_run("/fou/port/del", "7000"), 0);
	assert_int_equal(tel_run("/fou/stats/reset", NULL), 0);
	assert_int_equal(fou_port_list(gw, info, RTE_DIM(info)), 2);
	assert_int_equal(info[0].udp_port, 7000);
}

/* GRO per receiving port: on with a hold time, off again; bad ports and
 * times change nothing. */
static void
test_gro_stmt(void **state)
{
	struct fou_gw *gw = *state;
	uint32_t timeout;
	bool on;

	assert_int_equal(fou_gro_get(gw, RX_PORT, &on, &timeout), 0);
	assert_false(on);
	UNIT_APPLY(gw, "gro", "0,timeout=250");
	assert_int_equal(fou_gro_get(gw, RX_PORT, &on, &timeout), 0);
	assert_true(on);
	assert_int_equal(timeout, 250);
	EXPECT_STMT_ERR(gw, "gro", "7", -ENODEV, "no DPDK port 7");
	EXPECT_STMT_ERR(gw, "gro", "0,timeout=1000001", -EINVAL, "timeout '1000001'",
			"microseconds");
	EXPECT_STMT_ERR(gw, "gro", "0,timeout=x", -EINVAL, "timeout 'x'");
	EXPECT_STMT_ERR(gw, "gro", "0,delay=1", -EINVAL, "delay");
	assert_int_equal(fou_gro_get(gw, RX_PORT, &on, &timeout), 0);
	assert_true(on);
	assert_int_equal(timeout, 250);
	assert_int_equal(fou_gro_get(gw, 7, &on, &timeout), -ENODEV);
	EXPECT_DEL_ERR(gw, "gro", "9", -ENODEV, "no DPDK port 9");
	/* what /fou/config prints deletes it; another timeout does not */
	EXPECT_DEL_ERR(gw, "gro", "0,timeout=0", -EINVAL, "timeout: port 0's is 250");
	EXPECT_DEL_ERR(gw, "gro", "0,timeout=x", -EINVAL, "timeout 'x'");
	assert_int_equal(fou_stmt_del(gw, "gro", "0,timeout=250", &(struct fou_err){ "" }), 0);
	assert_int_equal(fou_gro_get(gw, RX_PORT, &on, &timeout), 0);
	assert_false(on);
	assert_int_equal(timeout, 0);
	EXPECT_DEL_ERR(gw, "gro", "0", -ENOENT, "GRO is not on for port 0");
}

/* Empty fields and stray separators, for every statement. */
static void
test_stmt_empty_fields(void **state)
{
	static const char *const names[] = { "port", "addr", "route", "neigh", "link" };
	static const char *const args[] = { "", ",", ",,", "1,", ",1", "1,,mtu=1" };
	struct fou_gw *gw = *state;
	unsigned int i, k;

	for (i = 0; i < RTE_DIM(names); i++) {
		for (k = 0; k < RTE_DIM(args); k++) {
			const char *want = args[k][0] == '\0' ? "missing fields" : "empty field";

			unit_ctx("%s '%s'", names[i], args[k]);
			EXPECT_STMT_ERR(gw, names[i], args[k], -EINVAL, want);
		}
	}
}

/* --- number and address parsers ---------------------------------------------- */

static void
test_parse_u32(void **state)
{
	uint32_t v = 12345;

	(void)state;
	assert_int_equal(fou_parse_u32("0", 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(fou_parse_u32("007", 10, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(fou_parse_u32("100", 100, &v), 0);
	assert_int_equal(v, 100);
	v = 5;
	assert_int_equal(fou_parse_u32("101", 100, &v), -ERANGE);
	assert_int_equal(fou_parse_u32("4294967295", UINT32_MAX, &v), 0);
	assert_int_equal(v, UINT32_MAX);
	v = 5;
	assert_int_equal(fou_parse_u32("4294967296", UINT32_MAX, &v), -ERANGE);
	assert_int_equal(fou_parse_u32("99999999999999999999999", UINT32_MAX, &v), -ERANGE);
	assert_int_equal(fou_parse_u32("", 10, &v), -EINVAL);
	assert_int_equal(fou_parse_u32("1a", 10, &v), -EINVAL);
	assert_int_equal(fou_parse_u32("+1", 10, &v), -EINVAL);
	assert_int_equal(fou_parse_u32("-1", 10, &v), -EINVAL);
	assert_int_equal(fou_parse_u32(" 1", 10, &v), -EINVAL);
	assert_int_equal(fou_parse_u32("1 ", 10, &v), -EINVAL);
	assert_int_equal(v, 5);		/* untouched on failure */
}

static void
test_parse_ip(void **state)
{
	struct fou_err err;
	struct fou_ip ip;
	uint8_t v6[16];
	char longest[80];

	(void)state;
	assert_int_equal(fou_parse_ip("10.1.2.3", false, &ip, &err), 0);
	assert_int_equal(ip.family, AF_INET);
	assert_int_equal(ip.plen, 32);
	assert_int_equal(ip.v4, htonl(0x0a010203));
	assert_int_equal(fou_parse_ip("10.0.0.0/8", true, &ip, &err), 0);
	assert_int_equal(ip.plen, 8);
	assert_int_equal(fou_parse_ip("0.0.0.0/0", true, &ip, &err), 0);
	assert_int_equal(ip.plen, 0);
	assert_int_equal(fou_parse_ip("fd00:1::7/64", true, &ip, &err), 0);
	assert_int_equal(ip.family, AF_INET6);
	assert_int_equal(ip.plen, 64);
	inet_pton(AF_INET6, "fd00:1::7", v6);
	assert_memory_equal(ip.v6, v6, 16);
	assert_int_equal(fou_parse_ip("::", false, &ip, &err), 0);
	assert_int_equal(ip.plen, 128);

	assert_int_equal(fou_parse_ip("10.0.0.0/8", false, &ip, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "a prefix length is not allowed here"));
	assert_int_equal(fou_parse_ip("10.0.0.0/33", true, &ip, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "prefix length must be 0-32"));
	assert_int_equal(fou_parse_ip("::/129", true, &ip, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "prefix length must be 0-128"));
	assert_int_equal(fou_parse_ip("10.0.0.0/8/8", true, &ip, &err), -EINVAL);
	assert_int_equal(fou_parse_ip("10.0.0", false, &ip, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'10.0.0' is not an IPv4 or IPv6 address"));
	assert_int_equal(fou_parse_ip("", false, &ip, &err), -EINVAL);
	assert_int_equal(fou_parse_ip("10.0.0.1 ", false, &ip, &err), -EINVAL);
	memset(longest, 'a', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	assert_int_equal(fou_parse_ip(longest, false, &ip, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "is not an IP address"));
}

static void
test_parse_proto(void **state)
{
	static const struct {
		const char *s;
		int ret;
		uint8_t proto;
	} cases[] = {
		{ "ipip", 0, 4 }, { "sit", 0, 41 }, { "ipv6", 0, 41 }, { "gre", 0, 47 },
		{ "17", 0, 17 }, { "255", 0, 255 }, { "4", 0, 4 },
		{ "256", -EINVAL, 0 }, { "GRE", -EINVAL, 0 }, { "", -EINVAL, 0 },
		{ "ipip ", -EINVAL, 0 }, { "udp", -EINVAL, 0 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct fou_err err = { "" };
		uint8_t proto = 0;

		unit_ctx("'%s'", cases[i].s);
		assert_int_equal(fou_parse_proto(cases[i].s, &proto, &err), cases[i].ret);
		if (cases[i].ret == 0)
			assert_int_equal(proto, cases[i].proto);
		else
			assert_non_null(strstr(err.msg, "unknown protocol"));
	}
}

/* --- port ------------------------------------------------------------------- */

static void
test_port_valid(void **state)
{
	static const struct {
		const char *arg;
		uint16_t udp;
		uint8_t proto;
	} cases[] = {
		{ "5557:sit", 5557, 41 }, { "5555:ipip", 5555, 4 }, { "5558:ipv6", 5558, 41 },
		{ "5556:gre", 5556, 47 }, { "6000:17", 6000, 17 }, { "1:255", 1, 255 },
		{ "65535:gre", 65535, 47 }, { "00080:4", 80, 4 },
	};
	struct fou_gw *gw = *state;
	struct fou_port_info info[16];
	unsigned int i, n;

	for (i = 0; i < RTE_DIM(cases); i++)
		UNIT_APPLY(gw, "port", cases[i].arg);
	n = fou_port_list(gw, info, RTE_DIM(info));
	assert_int_equal(n, RTE_DIM(cases));
	/* sorted by port; slots in the order of adding */
	for (i = 0; i < n; i++) {
		unsigned int k;

		for (k = 0; cases[k].udp != info[i].udp_port; k++)
			assert_true(k + 1 < RTE_DIM(cases));
		assert_int_equal(info[i].ipproto, cases[k].proto);
		assert_int_equal(info[i].slot, k + 1);
		if (i > 0)
			assert_true(info[i - 1].udp_port < info[i].udp_port);
	}
	/* asking for fewer entries still counts all */
	assert_int_equal(fou_port_list(gw, info, 2), RTE_DIM(cases));
	assert_int_equal(info[0].udp_port, 1);
	assert_int_equal(info[1].udp_port, 80);
}

static void
test_port_invalid(void **state)
{
	static const struct bad_arg t[] = {
		{ "0:ipip", -EINVAL, "UDP port '0' is not in 1-65535", NULL },
		{ "65536:ipip", -EINVAL, "UDP port '65536' is not in 1-65535", NULL },
		{ "99999999999:ipip", -EINVAL, "'99999999999'", NULL },
		{ "-1:ipip", -EINVAL, "UDP port '-1'", NULL },
		{ ":ipip", -EINVAL, "UDP port ''", NULL },
		{ " 5555:ipip", -EINVAL, "UDP port ' 5555'", NULL },
		{ "5555", -EINVAL, "'5555' is not UDPPORT:PROTO", NULL },
		{ "5555:", -EINVAL, "unknown protocol ''", NULL },
		{ "5555:foo", -EINVAL, "unknown protocol 'foo'", NULL },
		{ "5555:256", -EINVAL, "unknown protocol '256'", NULL },
		{ "5555:IPIP", -EINVAL, "unknown protocol 'IPIP'", NULL },
		{ "5555:ipip:gre", -EINVAL, "unknown protocol 'ipip:gre'", NULL },
		{ "5555:0", -EINVAL, "IP protocol 0", NULL },
		{ "5555:ipip,4", -EINVAL, "unexpected '4'", "usage: UDPPORT:PROTO" },
		{ "5555:ipip,proto=4", -EINVAL, "unknown parameter 'proto'", NULL },
		{ "5599:ipip,family=5", -EINVAL, "family '5' is not 4 or 6", NULL },
		{ "5599:ipip,family=", -EINVAL, "parameter 'family' has no value", NULL },
		{ "5599:ipip,family=inet6", -EINVAL, "family 'inet6' is not 4 or 6", NULL },
		{ "5599:ipip,family=6,family=4", -EINVAL, "parameter 'family' given twice", NULL },
		{ "5599:ipip,family", -EINVAL, "unexpected 'family'", NULL },
	};

	BAD_ARGS(*state, "port", t);
}

/* A port is per family (ip fou add ... -6): the same UDP port over IPv4
 * and over IPv6, each deleted alone; family=4 is the default. */
static void
test_port_family(void **state)
{
	struct fou_gw *gw = *state;
	struct fou_port_info info[8];

	UNIT_APPLY(gw, "port", "5555:gre,family=6");
	UNIT_APPLY(gw, "port", "5599:sit,family=4");
	EXPECT_STMT_ERR(gw, "port", "5555:ipip,family=6", -EEXIST,
			"UDP port 5555 is already a FOU port over IPv6");
	EXPECT_STMT_ERR(gw, "port", "5599:sit", -EEXIST, "UDP port 5599 is already a FOU port");
	assert_int_equal(fou_port_list(gw, info, RTE_DIM(info)), 6);
	/* by UDP port, IPv4 first; slots shared by both families */
	assert_int_equal(info[0].udp_port, 5555);
	assert_int_equal(info[0].family, AF_INET);
	assert_int_equal(info[0].ipproto, IPPROTO_IPIP);
	assert_int_equal(info[1].udp_port, 5555);
	assert_int_equal(info[1].family, AF_INET6);
	assert_int_equal(info[1].ipproto, IPPROTO_GRE);
	assert_int_not_equal(info[0].slot, info[1].slot);
	assert_int_equal(info[4].udp_port, 5599);
	assert_int_equal(info[4].family, AF_INET);
	EXPECT_DEL_ERR(gw, "port", "5599,family=6", -ENOENT,
		       "UDP port 5599 is not a FOU port over IPv6");
	EXPECT_DEL_ERR(gw, "port", "5555:ipip,family=6", -EINVAL,
		       "FOU port 5555 has protocol 47, not 4");
	UNIT_DEL(gw, "port", "5555,family=6");
	assert_int_equal(fou_port_list(gw, info, RTE_DIM(info)), 5);
	assert_int_equal(info[0].family, AF_INET);
	/* the IPv4 port is untouched and still carries ipip */
	EXPECT_GOLDEN_FWD(gw, &mac_nb4);
	UNIT_DEL(gw, "port", "5599,family=4");
}

static void
test_port_duplicate(void **state)
{
	struct fou_gw *gw = *state;
	struct fou_port_info info[8];

	EXPECT_STMT_ERR(gw, "port", "5555:gre", -EEXIST, "UDP port 5555 is already a FOU port");
	EXPECT_STMT_ERR(gw, "port", "5555:ipip", -EEXIST, "UDP port 5555 is already a FOU port");
	EXPECT_STMT_ERR(gw, "port", "05555:ipip", -EEXIST, "5555");
	assert_int_equal(fou_port_list(gw, info, RTE_DIM(info)), 4);
	assert_int_equal(info[0].udp_port, 5555);
	assert_int_equal(info[0].ipproto, 4);
	/* port 5555 still carries ipip */
	EXPECT_GOLDEN_FWD(gw, &mac_nb4);
}

/*
 * GUE ports (`ip fou add port P gue`): no protocol of their own; the
 * delete form names gue or nothing; a FOU port's protocol is no GUE port;
 * the running config writes them back as they were given.
 */
static void
test_port_gue(void **state)
{
	static const struct bad_arg t[] = {
		{ "6080:GUE", -EINVAL, "unknown protocol 'GUE'", NULL },
		{ "6080:gue,4", -EINVAL, "unexpected '4'", "usage: UDPPORT:PROTO|gue" },
		{ "6080:gue:4", -EINVAL, "unknown protocol 'gue:4'", NULL },
		{ "0:gue", -EINVAL, "UDP port '0' is not in 1-65535", NULL },
	};
	struct fou_gw *gw = *state;
	struct fou_port_info info[4];

	BAD_ARGS(gw, "port", t);
	UNIT_APPLY(gw, "port", "6080:gue");
	UNIT_APPLY(gw, "port", "5555:ipip");
	assert_int_equal(fou_port_list(gw, info, RTE_DIM(info)), 2);
	assert_int_equal(info[1].udp_port, 6080);
	assert_true(info[1].gue);
	assert_int_equal(info[1].ipproto, 0);
	assert_int_equal(info[1].family, AF_INET);
	assert_false(info[0].gue);
	EXPECT_STMT_ERR(gw, "port", "6080:gue", -EEXIST, "UDP port 6080 is already a FOU port");
	EXPECT_STMT_ERR(gw, "port", "6080:ipip", -EEXIST, "UDP port 6080 is already a FOU port");
	EXPECT_DEL_ERR(gw, "port", "6080:ipip", -EINVAL,
		       "UDP port 6080 is a GUE port, not one of protocol 4");
	EXPECT_DEL_ERR(gw, "port", "5555:gue", -EINVAL,
		       "FOU port 5555 has protocol 4, it is not a GUE port");
	EXPECT_DEL_ERR(gw, "port", "6081:gue", -ENOENT, "UDP port 6081 is not a FOU port");
	assert_int_equal(fou_port_list(gw, info, RTE_DIM(info)), 2);
	UNIT_DEL(gw, "port", "6080:gue");
	assert_int_equal(fou_port_list(gw, info, RTE_DIM(info)), 1);
	UNIT_APPLY(gw, "port", "6080:gue");
	UNIT_DEL(gw, "port", "6080");
	UNIT_APPLY(gw, "port", "6080:gue");
	/* the freed slots are taken again */
	assert_int_equal(fou_port_list(gw, info, RTE_DIM(info)), 2);
	assert_true(info[1].gue);
}

static void
test_port_table_full(void **state)
{
	struct fou_gw *gw = *state;
	char arg[32];
	unsigned int i;

	for (i = 0; i < FOU_MAX_UDP_PORTS; i++) {
		snprintf(arg, sizeof(arg), "%u:gre", 10000 + i);
		UNIT_APPLY(gw, "port", arg);
	}
	EXPECT_STMT_ERR(gw, "port", "5555:ipip", -ENOSPC, "too many FOU ports (at most 255)");
	assert_int_equal(fou_port_list(gw, NULL, 0), FOU_MAX_UDP_PORTS);
}

/* --- addr ------------------------------------------------------------------- */

/*
 * Is outer destination dst local? (A FOU frame to an unknown port says: a
 * local one is fou_port_unknown, another is routed.)
 */
static bool
is_local(const struct fou_gw *gw, uint32_t dst)
{
	struct unit_lcore u = { 0 };
	struct unit_spec s;
	struct unit_pkt p;
	struct rte_mbuf *m;
	unsigned int held;
	uint16_t port;

	unit_spec_ipip(&s);
	s.dst = dst;
	s.src = IP4(198, 51, 100, 7);	/* never local here: a local source is a martian */
	s.dport = 9;
	unit_build(&s, &p);
	m = unit_mbuf(p.b, p.len);
	unit_lcore_begin(&u, gw, 0);
	assert_int_equal(unit_rx(&u, RX_PORT, &m, 1, &port), 0);
	unit_lcore_end(&u);
	/* not ours and routed on link: held for the destination's MAC */
	held = unit_held_take((struct fou_gw *)(uintptr_t)gw, NULL, 0);
	UNIT_POOL_FULL();
	if (u.st.drop[FOU_DROP_FOU_PORT_UNKNOWN] == 1)
		return true;
	/* not ours: routed, and here there is no route or no neighbour yet */
	assert_int_equal(u.st.drop[FOU_DROP_NO_ROUTE] + held, 1);
	assert_int_equal(u.st.local[FOU_LOCAL_NEIGH_QUEUED], held);
	return false;
}

static void
test_addr_valid(void **state)
{
	struct fou_gw *gw = *state;

	assert_false(is_local(gw, IP4(10, 0, 0, 1)));
	UNIT_APPLY(gw, "addr", "0,10.0.0.1/24");
	UNIT_APPLY(gw, "addr", "0,10.0.0.5/24");	/* a second one, same network */
	UNIT_APPLY(gw, "addr", "1,192.168.1.1");		/* host address, /32 */
	UNIT_APPLY(gw, "addr", "1,fd00:1::1/64");
	UNIT_APPLY(gw, "addr", "1,2001:db8::1/128");
	UNIT_APPLY(gw, "addr", "0,10.255.255.255/8");
	assert_true(is_local(gw, IP4(10, 0, 0, 1)));
	assert_true(is_local(gw, IP4(10, 0, 0, 5)));
	assert_true(is_local(gw, IP4(192, 168, 1, 1)));
	assert_true(is_local(gw, IP4(10, 255, 255, 255)));
	assert_false(is_local(gw, IP4(10, 0, 0, 2)));
	assert_false(is_local(gw, IP4(10, 0, 0, 0)));
	assert_false(is_local(gw, IP4(192, 168, 1, 2)));
}

static void
test_addr_invalid(void **state)
{
	static const struct bad_arg t[] = {
		{ "0,10.0.0.1/33", -EINVAL, "'10.0.0.1/33': prefix length must be 0-32", NULL },
		{ "0,10.0.0.1/", -EINVAL, "prefix length must be 0-32", NULL },
		{ "0,10.0.0.1/-1", -EINVAL, "prefix length must be 0-32", NULL },
		{ "0,fd00::1/129", -EINVAL, "prefix length must be 0-128", NULL },
		{ "0,10.0.0.1/0", -EINVAL, "prefix length of 1 or more", NULL },
		{ "0,224.0.0.1/4", -EINVAL, "224.0.0.1 is not a unicast address", NULL },
		{ "0,239.1.1.1/24", -EINVAL, "not a unicast address", NULL },
		{ "0,127.0.0.1/8", -EINVAL, "127.0.0.1 is not a unicast address", NULL },
		{ "0,0.0.0.0/8", -EINVAL, "0.0.0.0 is not a unicast address", NULL },
		{ "0,0.1.2.3/8", -EINVAL, "not a unicast address", NULL },
		{ "0,255.255.255.255/32", -EINVAL, "not a unicast address", NULL },
		{ "0,ff02::1/64", -EINVAL, "ff02::1 is not a unicast address", NULL },
		{ "0,::1/128", -EINVAL, "::1 is not a unicast address", NULL },
		{ "0,::/64", -EINVAL, ":: is not a unicast address", NULL },
		{ "0,10.0.0.256/24", -EINVAL, "'10.0.0.256' is not an IPv4 or IPv6 address", NULL },
		{ "0,hello", -EINVAL, "'hello' is not an IPv4 or IPv6 address", NULL },
		{ "9,10.0.0.1/24", -ENODEV, "no DPDK port 9", NULL },
		{ "x,10.0.0.1/24", -ENODEV, "no tunnel 'x'", NULL },
		{ "65536,10.0.0.1/24", -EINVAL, "'65536' is not a DPDK port number", NULL },
		{ "0", -EINVAL, "missing fields", "PORTID|TUNNEL,IP/PLEN" },
		{ "0,10.0.0.1/24,1", -EINVAL, "unexpected '1'", NULL },
		{ "0,10.0.0.1/24,dev=1", -EINVAL, "unknown parameter 'dev'", NULL },
	};

	BAD_ARGS(*state, "addr", t);
}

static void
test_addr_duplicate(void **state)
{
	struct fou_gw *gw = *state;

	EXPECT_STMT_ERR(gw, "addr", "0,10.0.0.1/24", -EEXIST,
			"address 10.0.0.1 is already assigned");
	EXPECT_STMT_ERR(gw, "addr", "0,10.0.0.1/16", -EEXIST, "10.0.0.1 is already assigned");
	EXPECT_STMT_ERR(gw, "addr", "1,10.0.0.1/24", -EEXIST, "10.0.0.1 is already assigned");
	EXPECT_STMT_ERR(gw, "addr", "1,fd00:1::1/64", -EEXIST, "fd00:1::1 is already assigned");
	/* the network belongs to another port */
	EXPECT_STMT_ERR(gw, "addr", "1,10.0.0.7/24", -EEXIST,
			"network 10.0.0.0/24 is already on port 0");
	assert_false(is_local(gw, IP4(10, 0, 0, 7)));
}

static void
test_addr_route_exists(void **state)
{
	struct fou_gw *gw = *state;

	UNIT_APPLY(gw, "route", "10.5.0.0/24,dev=1");
	EXPECT_STMT_ERR(gw, "addr", "0,10.5.0.1/24", -EEXIST, "a route to 10.5.0.0/24 exists");
	assert_false(is_local(gw, IP4(10, 5, 0, 1)));
	UNIT_APPLY(gw, "route", "10.6.0.1/32,dev=1");
	EXPECT_STMT_ERR(gw, "addr", "0,10.6.0.1/24", -EEXIST, "a route to 10.6.0.1/32 exists");
	assert_false(is_local(gw, IP4(10, 6, 0, 1)));
	/* the host route was not left behind: the network is still free */
	UNIT_APPLY(gw, "addr", "0,10.5.1.1/24");
	assert_true(is_local(gw, IP4(10, 5, 1, 1)));
}

/* A second table entry that cannot be added takes the first one back. */
static void
test_addr_rollback_nexthops(void **state)
{
	struct fou_gw_params p;
	struct fou_err err;
	struct fou_gw *gw;

	(void)state;
	fou_gw_params_default(&p);
	p.max_nexthops = 1;
	gw = unit_gw_new(&p);
	assert_int_equal(fou_iface_set(gw, RX_PORT, &mac_rx, 1500, &err), 0);
	EXPECT_STMT_ERR(gw, "addr", "0,10.0.0.1/24", -ENOSPC, "too many next hops (at most 1)");
	assert_false(is_local(gw, IP4(10, 0, 0, 1)));
	UNIT_APPLY(gw, "addr", "0,10.0.0.1/32");
	assert_true(is_local(gw, IP4(10, 0, 0, 1)));
	/* a second local address shares the next hop */
	UNIT_APPLY(gw, "addr", "0,10.0.0.2/32");
	assert_true(is_local(gw, IP4(10, 0, 0, 2)));
	fou_gw_free(gw);
}

static void
test_addr_rollback_routes(void **state)
{
	struct fou_gw_params p;
	struct fou_err err;
	struct fou_gw *gw;

	(void)state;
	fou_gw_params_default(&p);
	p.max_routes4 = 1;
	gw = unit_gw_new(&p);
	assert_int_equal(fou_iface_set(gw, RX_PORT, &mac_rx, 1500, &err), 0);
	EXPECT_STMT_ERR(gw, "addr", "0,10.0.0.1/24", -ENOSPC,
			"cannot add route to 10.0.0.0/24: routing table full");
	assert_false(is_local(gw, IP4(10, 0, 0, 1)));
	UNIT_APPLY(gw, "addr", "0,10.0.0.1/32");
	assert_true(is_local(gw, IP4(10, 0, 0, 1)));
	fou_gw_free(gw);
}

/*
 * The tables hold exactly what their maximum says: max_neighs neighbours
 * and max_tunnels tunnels fit, whatever their hash keys, and one more is
 * refused with the maximum named (an rte_hash of exactly that size fills
 * up a little before, when a cuckoo path cannot be found).
 */
static void
test_tables_hold_their_maximum(void **state)
{
	struct fou_gw_params p;
	struct fou_err err;
	struct fou_gw *gw;
	char arg[128];
	unsigned int i;

	fou_gw_params_default(&p);
	p.max_tunnels = 4096;
	gw = unit_gw_new(&p);
	*state = gw;		/* the teardown frees it, also after a failure */
	assert_int_equal(fou_iface_set(gw, RX_PORT, &mac_rx, 1500, &err), 0);
	assert_int_equal(fou_iface_set(gw, EG_PORT, &mac_eg, 1500, &err), 0);
	UNIT_APPLY(gw, "addr", "0,10.0.0.1/24");
	UNIT_APPLY(gw, "addr", "1,172.16.0.1/16");
	for (i = 0; i < p.max_neighs; i++) {
		snprintf(arg, sizeof(arg), "172.16.%u.%u,dev=1,lladdr=02:00:00:00:%02x:%02x",
			 (i + 2) / 256, (i + 2) % 256, (i + 2) / 256, (i + 2) % 256);
		unit_ctx("neighbour %u of %u", i + 1, p.max_neighs);
		UNIT_APPLY(gw, "neigh", arg);
	}
	snprintf(arg, sizeof(arg), "neighbour table full (at most %u, all static)", p.max_neighs);
	EXPECT_STMT_ERR(gw, "neigh", "172.16.255.1,dev=1,lladdr=02:00:00:00:ff:01", -ENOSPC, arg);
	for (i = 0; i < p.max_tunnels; i++) {
		snprintf(arg, sizeof(arg),
			 "t%u,type=ipip,local=10.0.0.1,remote=198.18.%u.%u,encap-dport=5555", i,
			 i / 250, i % 250 + 1);
		unit_ctx("tunnel %u of %u", i + 1, p.max_tunnels);
		UNIT_APPLY(gw, "tunnel", arg);
	}
}

/* --- route ------------------------------------------------------------------ */

static void
test_route_valid(void **state)
{
	struct fou_gw *gw = *state;
	struct unit_pkt p;

	UNIT_APPLY(gw, "route", "10.20.0.0/16,dev=1,via=192.168.1.2");
	UNIT_APPLY(gw, "route", "10.30.0.7,dev=1");
	UNIT_APPLY(gw, "route", "10.31.0.0/16,dev=0");
	UNIT_APPLY(gw, "route", "fd00:20::/32,dev=1,via=fd00:1::2");
	UNIT_APPLY(gw, "route", "0.0.0.0/0,dev=1,via=192.168.1.2");
	UNIT_APPLY(gw, "route", "::/0,dev=1,via=fd00:1::2");
	UNIT_APPLY(gw, "route", "10.32.0.0/16,via=192.168.1.3,dev=1");	/* keys in any order */
	/* routes do not make addresses local */
	assert_false(is_local(gw, IP4(10, 20, 0, 7)));
	/* the data path needs ports and neighbours: none yet */
	frame_to(&p, IP4(10, 0, 0, 1), IP4(10, 20, 0, 7));
	/* (the ICMP error about it would wait for the sender's neighbour) */
	UNIT_APPLY(gw, "icmp-rate", "0");
	PKT_DROP(gw, &p, FOU_DROP_FOU_PORT_UNKNOWN);
}

static void
test_route_invalid(void **state)
{
	static const struct bad_arg t[] = {
		{ "10.20.0.1/16,dev=1", -EINVAL,
		  "10.20.0.1/16 has host bits set (the prefix is 10.20.0.0/16)", NULL },
		{ "10.21.0.0/15,dev=1", -EINVAL, "(the prefix is 10.20.0.0/15)", NULL },
		{ "fd00:20::1/32,dev=1", -EINVAL, "(the prefix is fd00:20::/32)", NULL },
		{ "0.0.0.1/0,dev=1", -EINVAL, "(the prefix is 0.0.0.0/0)", NULL },
		{ "10.20.0.0/33,dev=1", -EINVAL, "prefix length must be 0-32", NULL },
		{ "10.20.0.0/16,dev=5", -ENODEV, "no DPDK port 5", NULL },
		/* not a number: a tunnel name */
		{ "10.20.0.0/16,dev=x", -ENODEV, "no tunnel 'x'", NULL },
		{ "10.20.0.0/16,dev=1,via=10.9.9.9", -ENETUNREACH,
		  "gateway 10.9.9.9 is not on a network of port 1", NULL },
		{ "10.20.0.0/16,dev=0,via=192.168.1.2", -ENETUNREACH,
		  "gateway 192.168.1.2 is not on a network of port 0", NULL },
		{ "10.20.0.0/16,dev=1,via=fd00:1::2", -EINVAL,
		  "gateway fd00:1::2 is not of the prefix's address family", NULL },
		{ "fd00:20::/32,dev=1,via=192.168.1.2", -EINVAL,
		  "gateway 192.168.1.2 is not of the prefix's address family", NULL },
		{ "10.20.0.0/16,dev=1,via=192.168.1.1", -EINVAL,
		  "gateway 192.168.1.1 is a local address", NULL },
		{ "10.20.0.0/16,dev=1,via=224.0.0.1", -EINVAL,
		  "gateway 224.0.0.1 is not a unicast address", NULL },
		{ "10.20.0.0/16,dev=1,via=192.168.1.2/32", -EINVAL,
		  "a prefix length is not allowed here", NULL },
		{ "10.20.0.0/16,dev=1,via=gw", -EINVAL, "'gw' is not an IPv4 or IPv6 address", NULL },
		{ "10.20.0.0/16,dev=1,via=", -EINVAL, "parameter 'via' has no value", NULL },
		{ "10.20.0.0/16", -EINVAL, "missing dev=PORTID", NULL },
		{ "10.20.0.0/16,via=192.168.1.2", -EINVAL, "missing dev=PORTID", NULL },
		{ "10.20.0.0/16,dev=1,dev=1", -EINVAL, "parameter 'dev' given twice", NULL },
		{ "10.20.0.0/16,dev=1,via=192.168.1.2,via=192.168.1.2", -EINVAL,
		  "parameter 'via' given twice", NULL },
		{ "10.20.0.0/16,dev=1,table=10", -EINVAL, "unknown parameter 'table'",
		  "usage: PREFIX,dev=PORTID|TUNNEL[,via=IP][,metric=N][,weight=N]" },
		{ "10.20.0.0/16,dev=1,metric=-1", -EINVAL, "metric '-1' is not 0-4294967295", NULL },
		{ "10.20.0.0/16,dev=1,metric=4294967296", -EINVAL, "metric '4294967296'", NULL },
		{ "10.20.0.0/16,dev=1,weight=0", -EINVAL, "weight '0' is not 1-256", NULL },
		{ "10.20.0.0/16,dev=1,weight=257", -EINVAL, "weight '257' is not 1-256", NULL },
		{ "10.20.0.0/16,dev=1,weight=", -EINVAL, "parameter 'weight' has no value", NULL },
		{ "10.20.0.0/16,=1", -EINVAL, "unknown parameter ''", NULL },
		{ "10.20.0.0/16,1", -EINVAL, "unexpected '1'", NULL },
		{ "10.20.0.0/16,dev=1,1", -EINVAL, "unexpected '1'", NULL },
		{ "dev=1", -EINVAL, "missing fields", NULL },
		{ "route,dev=1", -EINVAL, "'route' is not an IPv4 or IPv6 address", NULL },
	};
	struct fou_gw *gw = *state;

	BAD_ARGS(gw, "route", t);
	/* the mask covers the 128 bit of the third byte: a proper prefix */
	UNIT_APPLY(gw, "route", "10.20.128.0/17,dev=1");
}

static void
test_route_duplicate(void **state)
{
	struct fou_gw *gw = *state;

	/* a route is its prefix, next hop and metric (another of them is ECMP
	 * or a fallback: test_ecmp.c) */
	EXPECT_STMT_ERR(gw, "route", "10.20.0.0/16,dev=1,via=192.168.1.2", -EEXIST,
			"the route to 10.20.0.0/16 dev 1 via 192.168.1.2 metric 0 exists");
	EXPECT_STMT_ERR(gw, "route", "10.20.0.0/16,dev=1,via=192.168.1.2,weight=3", -EEXIST,
			"the route to 10.20.0.0/16 dev 1 via 192.168.1.2 metric 0 exists");
	EXPECT_STMT_ERR(gw, "route", "fd00:20::/32,dev=1,via=fd00:1::2", -EEXIST,
			"the route to fd00:20::/32 dev 1 via fd00:1::2 metric 0 exists");
	/* the connected network and the local address are routes too */
	EXPECT_STMT_ERR(gw, "route", "192.168.1.0/24,dev=1", -EEXIST,
			"a route to 192.168.1.0/24 exists");
	EXPECT_STMT_ERR(gw, "route", "10.0.0.1/32,dev=1", -EEXIST, "a route to 10.0.0.1/32 exists");
	/* the data path still uses the first route */
	EXPECT_GOLDEN_FWD(gw, &mac_nb4);

	UNIT_APPLY(gw, "route", "0.0.0.0/0,dev=1,via=192.168.1.2");
	EXPECT_STMT_ERR(gw, "route", "0.0.0.0/0,dev=1,via=192.168.1.2", -EEXIST,
			"the route to 0.0.0.0/0 dev 1 via 192.168.1.2 metric 0 exists");
	UNIT_APPLY(gw, "route", "::/0,dev=1,via=fd00:1::2");
	EXPECT_STMT_ERR(gw, "route", "::/0,dev=1,via=fd00:1::2", -EEXIST,
			"the route to ::/0 dev 1 via fd00:1::2 metric 0 exists");
	UNIT_APPLY(gw, "route", "10.40.0.0/16,dev=1,via=192.168.1.7");
}

static void
test_route_nexthops_full(void **state)
{
	struct fou_gw_params p;
	struct fou_err err;
	struct fou_gw *gw;

	(void)state;
	fou_gw_params_default(&p);
	p.max_nexthops = 5;
	gw = unit_gw_new(&p);
	assert_int_equal(fou_iface_set(gw, EG_PORT, &mac_eg, 1500, &err), 0);
	UNIT_APPLY(gw, "addr", "1,192.168.1.1/24");	/* local + connected + broadcast */
	UNIT_APPLY(gw, "route", "10.1.0.0/16,dev=1,via=192.168.1.2");
	UNIT_APPLY(gw, "route", "10.2.0.0/16,dev=1,via=192.168.1.2");	/* shared */
	UNIT_APPLY(gw, "route", "10.3.0.0/16,dev=1,via=192.168.1.3");
	UNIT_APPLY(gw, "route", "10.4.0.0/16,dev=1");		/* connected, shared */
	EXPECT_STMT_ERR(gw, "route", "10.5.0.0/16,dev=1,via=192.168.1.4", -ENOSPC,
			"too many next hops (at most 5)");
	EXPECT_STMT_ERR(gw, "route", "0.0.0.0/0,dev=1,via=192.168.1.4", -ENOSPC,
			"too many next hops");
	UNIT_APPLY(gw, "route", "10.5.0.0/16,dev=1,via=192.168.1.3");
	fou_gw_free(gw);
}

static void
test_route_table_full(void **state)
{
	struct fou_gw_params p;
	struct fou_err err;
	struct fou_gw *gw;

	(void)state;
	fou_gw_params_default(&p);
	p.max_routes4 = 4;
	p.max_routes6 = 3;
	gw = unit_gw_new(&p);
	assert_int_equal(fou_iface_set(gw, EG_PORT, &mac_eg, 1500, &err), 0);
	/* /32 local, /24 connected, /32 broadcast */
	UNIT_APPLY(gw, "addr", "1,192.168.1.1/24");
	UNIT_APPLY(gw, "route", "10.1.0.0/16,dev=1,via=192.168.1.2");
	EXPECT_STMT_ERR(gw, "route", "10.2.0.0/16,dev=1,via=192.168.1.3", -ENOSPC,
			"cannot add route to 10.2.0.0/16: routing table full");
	/* the default route is not in the table */
	UNIT_APPLY(gw, "route", "0.0.0.0/0,dev=1,via=192.168.1.3");
	UNIT_APPLY(gw, "addr", "1,fd00:1::1/64");
	UNIT_APPLY(gw, "route", "fd00:2::/32,dev=1");
	EXPECT_STMT_ERR(gw, "route", "fd00:3::/32,dev=1", -ENOSPC, "routing table full");
	fou_gw_free(gw);
}

/* --- neigh ------------------------------------------------------------------ */

static void
test_neigh_valid(void **state)
{
	struct fou_gw *gw = *state;

	UNIT_APPLY(gw, "route", "10.20.0.0/16,dev=1,via=192.168.1.2");
	UNIT_APPLY(gw, "port", "5555:ipip");
	UNIT_APPLY(gw, "neigh", "192.168.1.2,dev=1,lladdr=02:00:00:00:01:02");
	UNIT_APPLY(gw, "neigh", "fd00:1::2,dev=1,lladdr=02:00:00:00:01:03");
	UNIT_APPLY(gw, "neigh", "192.168.1.3,lladdr=02:00:00:00:01:04,dev=1");
	/* the same address on another port is another neighbour */
	UNIT_APPLY(gw, "neigh", "192.168.1.2,dev=0,lladdr=02:00:00:00:00:99");
	EXPECT_GOLDEN_FWD(gw, &mac_nb4);
}

static void
test_neigh_invalid(void **state)
{
	static const struct bad_arg t[] = {
		{ "192.168.1.9,dev=1", -EINVAL, "missing lladdr=MAC", NULL },
		{ "192.168.1.9,lladdr=02:00:00:00:01:09", -EINVAL, "missing dev=PORTID", NULL },
		{ "192.168.1.9,dev=1,lladdr=02:00:00:00:01", -EINVAL,
		  "'02:00:00:00:01' is not a MAC address", NULL },
		{ "192.168.1.9,dev=1,lladdr=zz:00:00:00:01:09", -EINVAL, "is not a MAC address",
		  NULL },
		{ "192.168.1.9,dev=1,lladdr=02:00:00:00:01:09:00", -EINVAL, "is not a MAC address",
		  NULL },
		{ "192.168.1.9,dev=1,lladdr=", -EINVAL, "parameter 'lladdr' has no value", NULL },
		{ "192.168.1.9,dev=1,lladdr=01:00:5e:00:00:01", -EINVAL,
		  "lladdr must be a unicast, non-zero MAC address", NULL },
		{ "192.168.1.9,dev=1,lladdr=ff:ff:ff:ff:ff:ff", -EINVAL, "unicast, non-zero", NULL },
		{ "192.168.1.9,dev=1,lladdr=00:00:00:00:00:00", -EINVAL, "unicast, non-zero", NULL },
		{ "224.0.0.1,dev=1,lladdr=02:00:00:00:01:09", -EINVAL,
		  "224.0.0.1 is not a unicast address", NULL },
		{ "ff02::1,dev=1,lladdr=02:00:00:00:01:09", -EINVAL, "not a unicast address", NULL },
		{ "192.168.1.9/24,dev=1,lladdr=02:00:00:00:01:09", -EINVAL,
		  "a prefix length is not allowed here", NULL },
		{ "192.168.1.9,dev=7,lladdr=02:00:00:00:01:09", -ENODEV, "no DPDK port 7", NULL },
		{ "192.168.1.9,dev=one,lladdr=02:00:00:00:01:09", -EINVAL,
		  "'one' is not a DPDK port number", NULL },
		{ "192.168.1.9,dev=1,lladdr=02:00:00:00:01:09,lladdr=02:00:00:00:01:09", -EINVAL,
		  "parameter 'lladdr' given twice", NULL },
		{ "192.168.1.9,dev=1,lladdr=02:00:00:00:01:09,via=1.2.3.4", -EINVAL,
		  "unknown parameter 'via'", NULL },
		{ "192.168.1.9,dev=1,lladdr=02:00:00:00:01:09,nud=permanent", -EINVAL,
		  "unknown parameter 'nud'", NULL },
	};

	BAD_ARGS(*state, "neigh", t);
}

static void
test_neigh_duplicate(void **state)
{
	struct fou_gw *gw = *state;

	EXPECT_STMT_ERR(gw, "neigh", "192.168.1.2,dev=1,lladdr=02:00:00:00:01:99", -EEXIST,
			"neighbour 192.168.1.2 on port 1 exists");
	EXPECT_STMT_ERR(gw, "neigh", "fd00:1::2,dev=1,lladdr=02:00:00:00:01:99", -EEXIST,
			"neighbour fd00:1::2 on port 1 exists");
	/* the old MAC is still used */
	EXPECT_GOLDEN_FWD(gw, &mac_nb4);
}

/* --- link ------------------------------------------------------------------- */

static void
expect_iface(const struct fou_gw *gw, uint16_t port, const char *mac, uint16_t mtu)
{
	struct rte_ether_addr want, got;
	uint16_t got_mtu;

	assert_int_equal(rte_ether_unformat_addr(mac, &want), 0);
	assert_int_equal(fou_iface_get(gw, port, &got, &got_mtu), 0);
	assert_true(rte_is_same_ether_addr(&want, &got));
	assert_int_equal(got_mtu, mtu);
}

static void
test_link_valid(void **state)
{
	static const struct rte_ether_addr new_mac = { { 0x02, 0, 0, 0, 0x01, 0x09 } };
	struct fou_gw *gw = *state;
	static uint8_t out[UNIT_PKT_MAX];
	struct unit_pkt p;
	uint32_t olen;

	UNIT_APPLY(gw, "link", "1,mtu=1400");
	expect_iface(gw, 1, "02:00:00:00:01:01", 1400);
	UNIT_APPLY(gw, "link", "1,address=02:00:00:00:01:09");
	expect_iface(gw, 1, "02:00:00:00:01:09", 1400);
	UNIT_APPLY(gw, "link", "1,mtu=68");
	expect_iface(gw, 1, "02:00:00:00:01:09", 68);
	UNIT_APPLY(gw, "link", "1,address=02:00:00:00:01:0a,mtu=576");
	expect_iface(gw, 1, "02:00:00:00:01:0a", 576);
	UNIT_APPLY(gw, "link", "1,mtu=65535,address=02:00:00:00:01:09");
	expect_iface(gw, 1, "02:00:00:00:01:09", 65535);
	expect_iface(gw, 0, "02:00:00:00:00:01", 1500);

	/* the new source MAC is used on output */
	frame_to(&p, IP4(10, 0, 0, 1), IP4(10, 20, 0, 7));
	olen = unit_expect_out_same(&p, &mac_nb4, out);
	memcpy(out + 6, new_mac.addr_bytes, 6);
	EXPECT_FWD(gw, p.b, p.len, PORT_IPIP, FOU_INNER_IPV4, out, olen);
	/* and the port's new MAC is the one frames must be sent to */
	UNIT_APPLY(gw, "link", "0,address=02:00:00:00:00:0a");
	PKT_DROP(gw, &p, FOU_DROP_ETH_OTHER_HOST);
}

static void
test_link_invalid(void **state)
{
	static const struct bad_arg t[] = {
		{ "1,mtu=67", -EINVAL, "mtu '67' is not in 68-65535", NULL },
		{ "1,mtu=65536", -EINVAL, "mtu '65536' is not in 68-65535", NULL },
		{ "1,mtu=0", -EINVAL, "mtu '0'", NULL },
		{ "1,mtu=abc", -EINVAL, "mtu 'abc'", NULL },
		{ "1,mtu=-1", -EINVAL, "mtu '-1'", NULL },
		{ "1,mtu=1500x", -EINVAL, "mtu '1500x'", NULL },
		{ "1,mtu=", -EINVAL, "parameter 'mtu' has no value", NULL },
		{ "1,mtu=1400,mtu=1300", -EINVAL, "parameter 'mtu' given twice", NULL },
		{ "1", -EINVAL, "nothing to set (address=MAC and/or mtu=N)", NULL },
		{ "7,mtu=1500", -ENODEV, "no DPDK port 7", NULL },
		{ "x,mtu=1500", -EINVAL, "'x' is not a DPDK port number", NULL },
		{ "1,address=01:00:5e:00:00:01", -EINVAL,
		  "port 1: MAC address must be unicast and non-zero", NULL },
		{ "1,address=00:00:00:00:00:00", -EINVAL, "must be unicast and non-zero", NULL },
		{ "1,address=02:00:00:00:01", -EINVAL, "'02:00:00:00:01' is not a MAC address", NULL },
		{ "1,address=02:00:00:00:01:09,mtu=67", -EINVAL, "mtu '67'", NULL },
		{ "1,mtu=1400,address=01:00:00:00:00:01", -EINVAL, "must be unicast", NULL },
		{ "1,speed=1000", -EINVAL, "unknown parameter 'speed'",
		  "usage: PORTID[,address=MAC][,mtu=N]" },
		{ "1,2", -EINVAL, "unexpected '2'", NULL },
		{ "1,mtu=1400,2", -EINVAL, "unexpected '2'", NULL },
	};
	struct fou_gw *gw = *state;

	BAD_ARGS(gw, "link", t);
	expect_iface(gw, 1, "02:00:00:00:01:01", 1500);
}

static void
test_iface_set(void **state)
{
	static const struct rte_ether_addr mcast = { { 0x01, 0, 0x5e, 0, 0, 1 } };
	static const struct rte_ether_addr zero = { { 0 } };
	struct fou_gw *gw = *state;
	struct fou_err err = { "" };
	struct rte_ether_addr mac;
	uint16_t mtu;

	assert_int_equal(fou_iface_set(gw, RTE_MAX_ETHPORTS, &mac_rx, 1500, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "beyond RTE_MAX_ETHPORTS"));
	assert_int_equal(fou_iface_set(gw, 2, &mcast, 1500, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "port 2: MAC address must be unicast and non-zero"));
	assert_int_equal(fou_iface_set(gw, 2, &zero, 1500, &err), -EINVAL);
	assert_int_equal(fou_iface_set(gw, 2, &mac_rx, 67, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "port 2: MTU 67 below 68"));
	assert_false(fou_iface_enabled(gw, 2));
	assert_int_equal(fou_iface_get(gw, 2, &mac, &mtu), -ENODEV);
	assert_int_equal(fou_iface_set(gw, 2, &mac_rx, 68, &err), 0);
	assert_true(fou_iface_enabled(gw, 2));
	assert_false(fou_iface_enabled(gw, RTE_MAX_ETHPORTS));
	assert_false(fou_iface_enabled(gw, UINT16_MAX));
}

/* --- tunnel, route into a tunnel, sport-range, icmp-rate ---------------------- */

#define TUN_OK "t1,type=ipip,local=192.168.1.1,remote=10.20.0.9,encap-dport=5555"

/* Standard topology with tunnel t1 (ipip/fou to 10.20.0.9) and gre g1 (key 5). */
static int
setup_tun(void **state)
{
	setup_std(state);
	UNIT_APPLY(*state, "tunnel", TUN_OK);
	UNIT_APPLY(*state, "tunnel",
		   "g1,type=gre,local=192.168.1.1,remote=10.20.0.9,key=5,encap-dport=5556");
	return 0;
}

static void
test_tunnel_valid(void **state)
{
	struct fou_gw *gw = *state;
	struct fou_tunnel_info ti[12];
	unsigned int n;

	n = fou_tunnel_list(gw, ti, RTE_DIM(ti));
	assert_int_equal(n, 2);
	assert_string_equal(ti[0].conf.name, "t1");
	assert_int_equal(ti[0].conf.type, IPPROTO_IPIP);
	assert_int_equal(ti[0].conf.encap_dport, 5555);
	assert_true(ti[0].conf.encap == FOU_ENCAP_FOU && ti[0].conf.pmtudisc && !ti[0].conf.encap_csum);
	assert_int_equal(ti[0].conf.ttl, 0);
	assert_false(ti[0].conf.tos_inherit);
	assert_int_equal(ti[1].conf.key, 5);
	assert_true(ti[1].conf.key_set);
	/* iproute2's words, all of them */
	UNIT_APPLY(gw, "tunnel", "t2,type=gre,local=192.168.1.1,remote=10.20.0.10,ttl=64,"
		   "tos=0x10,pmtudisc,encap=fou,encap-sport=1234,encap-dport=5556,encap-csum,"
		   "key=1.2.3.4,csum,seq");
	UNIT_APPLY(gw, "tunnel", "t3,type=sit,local=10.0.0.1,remote=10.0.0.2,ttl=inherit,"
		   "tos=inherit,nopmtudisc,encap=none");
	/* the same endpoints, another key or another type */
	UNIT_APPLY(gw, "tunnel", "g2,type=gre,local=192.168.1.1,remote=10.20.0.9,key=6,"
		   "encap=none");
	UNIT_APPLY(gw, "tunnel", "g3,type=gre,local=192.168.1.1,remote=10.20.0.9,encap=none");
	UNIT_APPLY(gw, "tunnel", "s1,type=sit,local=192.168.1.1,remote=10.20.0.9,encap=none");
	UNIT_APPLY(gw, "tunnel", "a.b_c-D9,type=ipip,local=192.168.1.1,remote=10.20.0.11,"
		   "encap=none");
	UNIT_APPLY(gw, "tunnel", "x23456789012345,type=ipip,local=192.168.1.1,"
		   "remote=10.20.0.12,encap=none");
	/* an odd numeric tos is inherit, as in ip_tunnel_xmit */
	UNIT_APPLY(gw, "tunnel", "odd,type=ipip,local=192.168.1.1,remote=10.20.0.13,tos=0x11,"
		   "encap=none");
	n = fou_tunnel_list(gw, ti, RTE_DIM(ti));
	assert_int_equal(n, 10);
	assert_true(ti[9].conf.tos_inherit);
	assert_int_equal(ti[2].conf.key, 0x01020304);
	assert_int_equal(ti[2].conf.ttl, 64);
	assert_int_equal(ti[2].conf.tos, 0x10);
	assert_int_equal(ti[2].conf.encap_sport, 1234);
	assert_true(ti[2].conf.gre_csum && ti[2].conf.gre_seq && ti[2].conf.encap_csum);
	assert_true(ti[3].conf.tos_inherit && !ti[3].conf.pmtudisc && ti[3].conf.encap == FOU_ENCAP_NONE);
	/* routes into tunnels of the right family */
	UNIT_APPLY(gw, "route", "10.50.0.0/16,dev=t1");
	UNIT_APPLY(gw, "route", "fd00:50::/32,dev=t3");
	UNIT_APPLY(gw, "route", "10.51.0.0/16,dev=t2");
	UNIT_APPLY(gw, "route", "fd00:51::/32,dev=t2");
	UNIT_APPLY(gw, "route", "0.0.0.0/0,dev=g1");
}

/*
 * Every tunnel error: non-zero return, a message naming the problem,
 * nothing changed (the snapshot covers the tunnel table and names), and
 * the valid statement after it still works.
 */
static void
test_tunnel_invalid(void **state)
{
	static const struct bad_arg t[] = {
		{ "t2,local=192.168.1.1,remote=10.20.0.9,encap=none", -EINVAL, "missing type=", NULL },
		{ "t2,type=ipip,remote=10.20.0.9,encap=none", -EINVAL, "missing local=", NULL },
		{ "t2,type=ipip,local=192.168.1.1,encap=none", -EINVAL, "missing remote=", NULL },
		{ "t2,type=vxlan,local=192.168.1.1,remote=10.20.0.9", -EINVAL,
		  "type 'vxlan' is not ipip, sit, gre, ip6tnl or ip6gre", NULL },
		{ "t2,type=IPIP,local=192.168.1.1,remote=10.20.0.9", -EINVAL, "type 'IPIP'", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,key=1,encap=none", -EINVAL,
		  "key, csum and seq are GRE options", "t2 is ipip" },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,csum,encap=none", -EINVAL,
		  "GRE options", NULL },
		{ "t2,type=sit,local=192.168.1.1,remote=10.20.0.10,seq,encap=none", -EINVAL,
		  "GRE options", "t2 is sit" },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10", -EINVAL,
		  "encap=fou needs encap-dport", NULL },
		{ "t2,type=gre,local=192.168.1.1,remote=10.20.0.10,encap=fou", -EINVAL,
		  "encap=fou needs encap-dport", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none,encap-dport=5555",
		  -EINVAL, "need encap=fou", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none,encap-sport=5",
		  -EINVAL, "need encap=fou", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none,encap-csum",
		  -EINVAL, "need encap=fou", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=gue", -EINVAL,
		  "encap=gue needs encap-dport", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=gue,encap-dport=1,"
		  "encap-remcsum", -EOPNOTSUPP,
		  "encap-remcsum (GUE remote checksum offload) is not supported", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=gue,encap-dport=1,"
		  "encap-remcsum,noencap-remcsum", -EINVAL,
		  "'encap-remcsum' and 'noencap-remcsum' contradict", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none,encap-remcsum",
		  -EOPNOTSUPP, "encap-remcsum", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=vxlan,encap-dport=1",
		  -EINVAL, "encap 'vxlan' is not fou, gue or none", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,ttl=64,nopmtudisc,encap=none",
		  -EINVAL, "nopmtudisc needs ttl=inherit", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,pmtudisc,nopmtudisc,encap=none",
		  -EINVAL, "'pmtudisc' and 'nopmtudisc' contradict each other", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap-csum,noencap-csum,"
		  "encap-dport=1", -EINVAL, "'encap-csum' and 'noencap-csum' contradict", NULL },
		{ "t1,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none", -EEXIST,
		  "tunnel t1 exists", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.9,encap=none", -EEXIST,
		  "tunnel t1 has the same type, endpoints", NULL },
		{ "t2,type=gre,local=192.168.1.1,remote=10.20.0.9,key=5,encap=none", -EEXIST,
		  "tunnel g1 has the same type, endpoints and key", NULL },
		{ "t2,type=gre,local=192.168.1.1,remote=10.20.0.9,key=0.0.0.5,encap=none", -EEXIST,
		  "g1", NULL },
		{ "t2,type=ipip,local=192.168.1.9,remote=10.20.0.10,encap=none", -EADDRNOTAVAIL,
		  "local 192.168.1.9 is not an address of the gateway", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.0.0.1,encap=none", -EINVAL,
		  "remote 10.0.0.1 is an address of the gateway", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=224.0.0.1,encap=none", -EINVAL,
		  "remote 224.0.0.1 is not a unicast address", NULL },
		{ "t2,type=ipip,local=fd00:1::1,remote=10.20.0.10,encap=none", -EINVAL,
		  "type ipip needs IPv4 local and remote addresses", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=fd00:1::9,encap=none", -EINVAL,
		  "type ipip needs IPv4 local and remote", NULL },
		{ "t2,type=ipip,local=192.168.1.1/24,remote=10.20.0.10,encap=none", -EINVAL,
		  "a prefix length is not allowed here", NULL },
		{ "1234,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none", -EINVAL,
		  "tunnel name '1234' is all digits", NULL },
		{ "x234567890123456,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none", -EINVAL,
		  "longer than 15 characters", NULL },
		{ "t/2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none", -EINVAL,
		  "tunnel name 't/2': only letters, digits", NULL },
		{ "t 2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none", -EINVAL,
		  "only letters, digits", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,ttl=256,encap=none", -EINVAL,
		  "ttl '256' is not inherit or 0-255", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,ttl=-1,encap=none", -EINVAL,
		  "ttl '-1'", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,tos=256,encap=none", -EINVAL,
		  "tos '256' is not inherit or 0-255", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,probe=yes,encap=none", -EINVAL,
		  "probe 'yes' is not on or off", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,interval=9,encap=none", -EINVAL,
		  "interval '9' is not 10-60000 (milliseconds)", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,interval=60001,encap=none",
		  -EINVAL, "interval '60001'", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,timeout=0,encap=none", -EINVAL,
		  "timeout '0' is not 1-255 (probes)", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,timeout=256,encap=none", -EINVAL,
		  "timeout '256'", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,tos=0x100,encap=none", -EINVAL,
		  "tos '0x100'", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,tos=0x,encap=none", -EINVAL,
		  "tos '0x'", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap-sport=0,encap-dport=1",
		  -EINVAL, "encap-sport '0' is not auto or 1-65535", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap-sport=65536,"
		  "encap-dport=1", -EINVAL, "encap-sport '65536'", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap-dport=0", -EINVAL,
		  "encap-dport '0' is not 1-65535", NULL },
		{ "t2,type=gre,local=192.168.1.1,remote=10.20.0.10,key=4294967296,encap=none",
		  -EINVAL, "key '4294967296' is not 0-4294967295 or a dotted quad", NULL },
		{ "t2,type=gre,local=192.168.1.1,remote=10.20.0.10,key=abc,encap=none", -EINVAL,
		  "key 'abc'", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,mode=any,encap=none", -EINVAL,
		  "'mode' is not an option of type ipip (IPv6 underlay only", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,vlan=1,encap=none", -EINVAL,
		  "unknown parameter 'vlan'", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none,seq=1", -EINVAL,
		  "unknown parameter 'seq'", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none,ttl=1,ttl=2",
		  -EINVAL, "parameter 'ttl' given twice", NULL },
		{ "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none,icsum", -EINVAL,
		  "unexpected 'icsum'", NULL },
		{ "type=ipip,local=192.168.1.1,remote=10.20.0.10", -EINVAL, "missing fields", NULL },
	};
	struct fou_gw *gw = *state;

	BAD_ARGS(gw, "tunnel", t);
	assert_int_equal(fou_tunnel_list(gw, NULL, 0), 2);
	/* nothing was half-added: the name t2 and its endpoints are free */
	UNIT_APPLY(gw, "tunnel", "t2,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none");
	assert_int_equal(fou_tunnel_list(gw, NULL, 0), 3);
}

#define TUN6 "local=fd00:1::1,remote=fd00:99::2"

/* ip6tnl and ip6gre: iproute2's defaults, every word, the keys they take. */
static void
test_tunnel6_valid(void **state)
{
	struct fou_gw *gw = *state;
	struct fou_tunnel_info ti[16];
	unsigned int n;

	/* the interop test's spellings */
	UNIT_APPLY(gw, "tunnel", "a6,type=ip6tnl,mode=ipip6," TUN6 ",hoplimit=64,encap=fou,"
		   "encap-dport=5560,encap-udp6-csum");
	UNIT_APPLY(gw, "tunnel", "b6,type=ip6gre," TUN6 ",encaplimit=none,encap=gue,"
		   "encap-dport=5561");
	/* defaults: ip6ip6, hoplimit 64, encaplimit 4, tclass/flowlabel 0, csum6 */
	UNIT_APPLY(gw, "tunnel", "c6,type=ip6tnl,local=fd00:1::1,remote=fd00:99::3,"
		   "encap-dport=5562");
	UNIT_APPLY(gw, "tunnel", "d6,type=ip6tnl,mode=any,local=fd00:1::1,remote=fd00:99::4,"
		   "hoplimit=inherit,tclass=inherit,flowlabel=inherit,encaplimit=0,encap=gue,"
		   "encap-sport=999,encap-dport=5563,noencap-csum6");
	UNIT_APPLY(gw, "tunnel", "e6,type=ip6tnl,mode=ip6ip6,local=fd00:1::1,remote=fd00:99::5,"
		   "tclass=b8,flowlabel=12345,encaplimit=255,encap=none");
	/* another key: another ip6gre on the same pair */
	UNIT_APPLY(gw, "tunnel", "f6,type=ip6gre," TUN6 ",key=42,csum,seq,hoplimit=1,"
		   "encap-dport=5564,encap-csum6");
	n = fou_tunnel_list(gw, ti, RTE_DIM(ti));
	assert_int_equal(n, 8);
	assert_string_equal(fou_tunnel_type_name(&ti[2].conf), "ip6tnl");
	assert_string_equal(fou_tunnel_mode_name(&ti[2].conf), "ipip6");
	assert_int_equal(ti[2].conf.type, IPPROTO_IPIP);
	assert_int_equal(ti[2].conf.ttl, 64);
	assert_int_equal(ti[2].conf.encaplimit, 4);
	assert_true(ti[2].conf.encap_csum6 && !ti[2].conf.pmtudisc && !ti[2].conf.encap_csum);
	assert_string_equal(fou_tunnel_type_name(&ti[3].conf), "ip6gre");
	assert_null(fou_tunnel_mode_name(&ti[3].conf));
	assert_int_equal(ti[3].conf.encaplimit, -1);
	assert_int_equal(ti[3].conf.encap, FOU_ENCAP_GUE);
	assert_string_equal(fou_tunnel_mode_name(&ti[4].conf), "ip6ip6");
	assert_true(ti[4].conf.encap_csum6 && ti[4].conf.ttl == 64 && ti[4].conf.encaplimit == 4);
	assert_true(ti[4].conf.tos == 0 && ti[4].conf.flowlabel == 0 && !ti[4].conf.tos_inherit);
	assert_int_equal(ti[5].conf.type, FOU_TUN_ANY);
	assert_true(ti[5].conf.ttl == 0 && ti[5].conf.tos_inherit && ti[5].conf.flowlabel_inherit);
	assert_true(ti[5].conf.encaplimit == 0 && !ti[5].conf.encap_csum6);
	assert_int_equal(ti[5].conf.encap_sport, 999);
	/* tclass and flowlabel are hex, as iproute2 reads them */
	assert_int_equal(ti[6].conf.tos, 0xb8);
	assert_int_equal(ti[6].conf.flowlabel, 0x12345);
	assert_int_equal(ti[6].conf.encaplimit, 255);
	assert_false(ti[6].conf.encap_csum6);	/* no UDP */
	assert_true(ti[7].conf.key_set && ti[7].conf.key == 42 && ti[7].conf.gre_csum &&
		    ti[7].conf.gre_seq && ti[7].conf.ttl == 1 && ti[7].conf.encap_csum6);
	/* the outer header over IPv6: 40 + 8 (encaplimit) + UDP 8 */
	assert_int_equal(ti[2].overhead, 56);
	assert_int_equal(ti[3].overhead, 40 + 8 + 4 + 4);	/* UDP, GUE, GRE */
	assert_int_equal(ti[6].overhead, 48);
	assert_int_equal(ti[7].overhead, 48 + 8 + 16);
	/* routes of the families they carry */
	UNIT_APPLY(gw, "route", "10.60.0.0/16,dev=a6");
	UNIT_APPLY(gw, "route", "10.61.0.0/16,dev=b6");
	UNIT_APPLY(gw, "route", "fd00:61::/32,dev=b6");
	UNIT_APPLY(gw, "route", "fd00:62::/32,dev=c6");
	UNIT_APPLY(gw, "route", "10.63.0.0/16,dev=d6");
	UNIT_APPLY(gw, "route", "fd00:63::/32,dev=d6");
	EXPECT_STMT_ERR(gw, "route", "fd00:60::/32,dev=a6", -EINVAL,
			"tunnel a6 is ip6tnl mode ipip6: it carries IPv4 only");
	EXPECT_STMT_ERR(gw, "route", "10.62.0.0/16,dev=c6", -EINVAL,
			"tunnel c6 is ip6tnl mode ip6ip6: it carries IPv6 only");
	/* the remote of a tunnel is not deleted under it */
	/* the local of an IPv6 tunnel stays while it does; its remote is
	 * never ours */
	EXPECT_DEL_ERR(gw, "addr", "1,fd00:1::1/64", -EBUSY,
		       "tunnel a6 has local fd00:1::1 (delete the tunnel first)");
	EXPECT_STMT_ERR(gw, "addr", "1,fd00:99::2/64", -EBUSY,
			"fd00:99::2 is the remote of tunnel a6 (delete the tunnel first)");
	UNIT_DEL(gw, "tunnel", "a6");
	UNIT_DEL(gw, "tunnel", "b6");
	assert_int_equal(fou_tunnel_list(gw, NULL, 0), 6);
	/* their places are free again: the same endpoints take a new one */
	UNIT_APPLY(gw, "tunnel", "a6,type=ip6tnl," TUN6 ",encap=none");
}

static void
test_tunnel6_invalid(void **state)
{
	static const struct bad_arg t[] = {
		{ "x6,type=ip6tnl,local=192.168.1.1,remote=10.20.0.10,encap=none", -EINVAL,
		  "type ip6tnl needs IPv6 local and remote addresses", NULL },
		{ "x6,type=ip6gre,local=fd00:1::1,remote=10.20.0.10,encap=none", -EINVAL,
		  "type ip6gre needs IPv6", NULL },
		{ "x6,type=ip6tnl," TUN6 ",ttl=64,encap=none", -EINVAL,
		  "'ttl' is not an option of type ip6tnl (IPv4 underlay only", NULL },
		{ "x6,type=ip6tnl," TUN6 ",tos=0x10,encap=none", -EINVAL, "'tos' is not an option",
		  NULL },
		{ "x6,type=ip6gre," TUN6 ",pmtudisc,encap=none", -EINVAL,
		  "'pmtudisc' is not an option of type ip6gre", NULL },
		{ "x6,type=ip6tnl," TUN6 ",encap-csum,encap-dport=1", -EINVAL,
		  "'encap-csum' is not an option of type ip6tnl", NULL },
		{ "x6,type=gre,local=192.168.1.1,remote=10.20.0.10,hoplimit=3,encap=none", -EINVAL,
		  "'hoplimit' is not an option of type gre (IPv6 underlay only", NULL },
		{ "x6,type=ipip,local=192.168.1.1,remote=10.20.0.10,encaplimit=none,encap=none",
		  -EINVAL, "'encaplimit' is not an option of type ipip", NULL },
		{ "x6,type=sit,local=192.168.1.1,remote=10.20.0.10,encap-udp6-csum,encap-dport=1",
		  -EINVAL, "'encap-udp6-csum' is not an option of type sit", NULL },
		{ "x6,type=gre,local=192.168.1.1,remote=10.20.0.10,flowlabel=1,encap=none", -EINVAL,
		  "'flowlabel' is not an option", NULL },
		{ "x6,type=ip6gre," TUN6 ",mode=any,encap=none", -EINVAL,
		  "'mode' is not an option of type ip6gre", NULL },
		{ "x6,type=ip6tnl," TUN6 ",mode=gre,encap=none", -EINVAL,
		  "mode 'gre' is not ipip6, ip6ip6 or any", NULL },
		{ "x6,type=ip6tnl," TUN6 ",hoplimit=256,encap=none", -EINVAL,
		  "hoplimit '256' is not inherit or 0-255", NULL },
		{ "x6,type=ip6tnl," TUN6 ",tclass=100,encap=none", -EINVAL,
		  "tclass '100' is not inherit or 00-ff", NULL },
		{ "x6,type=ip6tnl," TUN6 ",tclass=0xg,encap=none", -EINVAL, "tclass '0xg'", NULL },
		{ "x6,type=ip6tnl," TUN6 ",flowlabel=100000,encap=none", -EINVAL,
		  "flowlabel '100000' is not inherit or 0-fffff", NULL },
		{ "x6,type=ip6tnl," TUN6 ",encaplimit=256,encap=none", -EINVAL,
		  "encaplimit '256' is not none or 0-255", NULL },
		{ "x6,type=ip6tnl," TUN6 ",encaplimit=-1,encap=none", -EINVAL,
		  "encaplimit '-1'", NULL },
		{ "x6,type=ip6tnl," TUN6 ",encap-udp6-csum,noencap-csum6,encap-dport=1", -EINVAL,
		  "'encap-udp6-csum' and 'noencap-udp6-csum' contradict", NULL },
		{ "x6,type=ip6tnl," TUN6 ",encap=none,encap-udp6-csum", -EINVAL,
		  "encap-udp6-csum needs encap=fou or gue", NULL },
		{ "x6,type=ip6tnl," TUN6 ",key=1,encap=none", -EINVAL,
		  "key, csum and seq are GRE options; tunnel x6 is ip6tnl", NULL },
		{ "x6,type=ip6tnl," TUN6 ",mode=any,encap=none", -EEXIST,
		  "tunnel a6 has the same endpoints (one ip6tnl per address pair)", NULL },
		{ "x6,type=ip6gre," TUN6 ",encap=none", -EEXIST,
		  "tunnel g6 has the same endpoints and key", NULL },
		{ "x6,type=ip6tnl,local=fd00:1::9,remote=fd00:99::3,encap=none", -EADDRNOTAVAIL,
		  "local fd00:1::9 is not an address of the gateway", NULL },
		{ "x6,type=ip6tnl,local=fd00:1::1,remote=fd00:1::1,encap=none", -EINVAL,
		  "remote fd00:1::1 is an address of the gateway", NULL },
		{ "x6,type=ip6tnl,local=fd00:1::1,remote=ff02::1,encap=none", -EINVAL,
		  "remote ff02::1 is not a unicast address", NULL },
		{ "x6,type=ip6tnl,local=fd00:1::1,remote=fe80::1,encap=none", -EINVAL,
		  "remote fe80::1 is link-local: not supported", NULL },
		{ "x6,type=ip6tnl,local=fd00:1::1,remote=fd00:99::7,encap=fou", -EINVAL,
		  "encap=fou needs encap-dport", NULL },
	};
	struct fou_gw *gw = *state;

	UNIT_APPLY(gw, "tunnel", "a6,type=ip6tnl,mode=ipip6," TUN6 ",encap=none");
	UNIT_APPLY(gw, "tunnel", "g6,type=ip6gre," TUN6 ",encap=none");
	BAD_ARGS(gw, "tunnel", t);
	assert_int_equal(fou_tunnel_list(gw, NULL, 0), 4);
	/* ip6gre with a key, and an ip6tnl on another pair, still fit */
	UNIT_APPLY(gw, "tunnel", "x6,type=ip6gre," TUN6 ",key=1,encap=none");
	UNIT_APPLY(gw, "tunnel", "y6,type=ip6tnl,local=fd00:1::1,remote=fd00:99::3,encap=none");
}

/* A failed tunnel statement does not open the plain protocol either. */
static void
test_tunnel_invalid_no_plain_rx(void **state)
{
	struct fou_gw *gw = *state;
	struct unit_pkt p;

	EXPECT_STMT_ERR(gw, "tunnel", "t2,type=gre,local=10.0.0.1,remote=10.0.0.2,key=1,ttl=5,"
			"nopmtudisc,encap=none", -EINVAL, "nopmtudisc");
	build_plain_gre(&p);
	/* (the ICMP error about it would wait for the sender's neighbour) */
	UNIT_APPLY(gw, "icmp-rate", "0");
	PKT_DROP(gw, &p, FOU_DROP_LOCAL_NOT_UDP);
}

static void
test_route_tunnel_invalid(void **state)
{
	static const struct bad_arg t[] = {
		{ "10.50.0.0/16,dev=nosuch", -ENODEV, "no tunnel 'nosuch'", NULL },
		{ "10.50.0.0/16,dev=T1", -ENODEV, "no tunnel 'T1'", NULL },
		{ "10.50.0.0/16,dev=t1,via=192.168.1.2", -EINVAL,
		  "via is not allowed with a tunnel (dev=t1)", NULL },
		{ "fd00:50::/32,dev=t1", -EINVAL, "tunnel t1 is ipip: it carries IPv4 only", NULL },
		{ "10.50.0.0/16,dev=s1", -EINVAL, "tunnel s1 is sit: it carries IPv6 only", NULL },
		{ "10.50.0.1/16,dev=t1", -EINVAL, "has host bits set", NULL },
		{ "192.168.1.0/24,dev=t1", -EEXIST, "a route to 192.168.1.0/24 exists", NULL },
		{ "10.50.0.0/16,dev=x234567890123456", -ENODEV, "no tunnel", NULL },
	};
	struct fou_gw *gw = *state;

	UNIT_APPLY(gw, "tunnel", "s1,type=sit,local=192.168.1.1,remote=10.20.0.9,encap=none");
	BAD_ARGS(gw, "route", t);
	UNIT_APPLY(gw, "route", "10.50.0.0/16,dev=t1");
	UNIT_APPLY(gw, "route", "fd00:50::/32,dev=s1");
	EXPECT_STMT_ERR(gw, "route", "10.50.0.0/16,dev=t1", -EEXIST,
			"the route to 10.50.0.0/16 dev t1 metric 0 exists");
}

static void
test_sport_range(void **state)
{
	static const struct bad_arg t[] = {
		{ "0-10", -EINVAL, "source port range 0-10: need 1 <= MIN <= MAX <= 65535", NULL },
		{ "20-10", -EINVAL, "source port range 20-10", NULL },
		{ "10", -EINVAL, "'10' is not MIN-MAX", NULL },
		{ "abc", -EINVAL, "'abc' is not MIN-MAX", NULL },
		{ "1-65536", -EINVAL, "is not MIN-MAX with ports 1-65535", NULL },
		{ "-10", -EINVAL, "is not MIN-MAX", NULL },
		{ "10-", -EINVAL, "is not MIN-MAX", NULL },
		{ "1-2-3", -EINVAL, "is not MIN-MAX", NULL },
		{ "x-10", -EINVAL, "is not MIN-MAX", NULL },
		{ "10-20,30", -EINVAL, "unexpected '30'", NULL },
		{ "", -EINVAL, "missing fields", NULL },
	};
	struct fou_gw *gw = *state;

	BAD_ARGS(gw, "sport-range", t);
	UNIT_APPLY(gw, "sport-range", "1-65535");
	UNIT_APPLY(gw, "sport-range", "49152-65535");
	UNIT_APPLY(gw, "sport-range", "7-7");
}

static void
test_icmp_rate(void **state)
{
	static const struct bad_arg t[] = {
		{ "1000001", -EINVAL, "ICMP rate 1000001 above 1000000 per second", NULL },
		{ "10,burst=0", -EINVAL, "ICMP burst must be 1 or more", NULL },
		{ "abc", -EINVAL, "'abc' is not a number of errors per second", NULL },
		{ "-1", -EINVAL, "'-1' is not a number", NULL },
		{ "10,burst=x", -EINVAL, "burst 'x' is not a number", NULL },
		{ "10,burst=", -EINVAL, "parameter 'burst' has no value", NULL },
		{ "10,rate=5", -EINVAL, "unknown parameter 'rate'", NULL },
		{ "10,burst=1,burst=2", -EINVAL, "parameter 'burst' given twice", NULL },
		{ "", -EINVAL, "missing fields", NULL },
	};
	struct fou_gw *gw = *state;

	BAD_ARGS(gw, "icmp-rate", t);
	UNIT_APPLY(gw, "icmp-rate", "0");
	UNIT_APPLY(gw, "icmp-rate", "0,burst=0");
	UNIT_APPLY(gw, "icmp-rate", "1000000,burst=1");
}

/* --- gateway creation ----------------------------------------------------- */

/*
 * When the EAL memory runs out, fou_gw_create fails cleanly, says why, and
 * gives back what it took.
 */
static void
test_gw_create_enomem(void **state)
{
	struct fou_gw *gws[8];
	struct fou_gw_params p;
	struct fou_err err = { "" };
	unsigned int n, i;

	(void)state;
	fou_gw_params_default(&p);
	for (n = 0; n < RTE_DIM(gws); n++) {
		gws[n] = fou_gw_create(&p, &err);
		if (gws[n] == NULL)
			break;
	}
	for (i = 0; i < n; i++)
		fou_gw_free(gws[i]);
	assert_true(n < RTE_DIM(gws));
	/* with -m 512 three gateways fit (see unit_eal_init) */
	if (strstr(err.msg, "cannot allocate the gateway tables") == NULL ||
	    strstr(err.msg, strerror(ENOMEM)) == NULL)
		fail_msg("after %u gateways: \"%s\" does not say \"%s\"", n, err.msg,
			 strerror(ENOMEM));
	/* and everything came back */
	gws[0] = unit_gw_new(&p);
	gws[1] = unit_gw_new(&p);
	fou_gw_free(gws[0]);
	fou_gw_free(gws[1]);
}

/* --- deletes ----------------------------------------------------------------- */

/* The standard ipip frame, decapsulated and then dropped for reason. */
static void
expect_golden_drop(const struct fou_gw *gw, unsigned int reason, const char *file, int line)
{
	struct unit_pkt p;

	frame_to(&p, IP4(10, 0, 0, 1), IP4(10, 20, 0, 7));
	unit_run(gw, unit_mbuf(p.b, p.len),
		 &(struct unit_exp){ .verdict = reason, .decap_port = PORT_IPIP,
				     .decap_inner = FOU_INNER_IPV4 }, file, line);
}
#define EXPECT_GOLDEN_DROP(gw, reason) expect_golden_drop((gw), (reason), __FILE__, __LINE__)

/* The standard ipip frame, decapsulated and held for want of the gateway
 * 192.168.1.2's MAC (its frame with a zero destination). */
static void
expect_golden_held(const struct fou_gw *gw, const char *file, int line)
{
	static uint8_t out[UNIT_PKT_MAX];
	struct unit_pkt p;
	uint32_t olen;

	frame_to(&p, IP4(10, 0, 0, 1), IP4(10, 20, 0, 7));
	olen = unit_expect_out_same(&p, &mac_zero, out);
	unit_run(gw, unit_mbuf(p.b, p.len),
		 &(struct unit_exp){ .verdict = UNIT_HELD, .decap_port = PORT_IPIP,
				     .decap_inner = FOU_INNER_IPV4, .out = out, .out_len = olen,
				     .out_port = EG_PORT, .neigh = "192.168.1.2" },
		 file, line);
}
#define EXPECT_GOLDEN_HELD(gw) expect_golden_held((gw), __FILE__, __LINE__)

static void
test_del_port(void **state)
{
	static const struct bad_arg t[] = {
		{ "", -EINVAL, "missing fields (usage: UDPPORT[:PROTO|gue][,family=4|6])", NULL },
		{ "0", -EINVAL, "UDP port '0' is not in 1-65535", NULL },
		{ "65536", -EINVAL, "UDP port '65536' is not in 1-65535", NULL },
		{ "x:ipip", -EINVAL, "UDP port 'x' is not in 1-65535", NULL },
		{ "5555:bogus", -EINVAL, "unknown protocol 'bogus'", NULL },
		{ "5555:gre", -EINVAL, "FOU port 5555 has protocol 4, not 47", NULL },
		{ "5599", -ENOENT, "UDP port 5599 is not a FOU port", NULL },
		{ "5555,5556", -EINVAL, "unexpected '5556'", NULL },
		{ "5555,proto=4", -EINVAL, "unknown parameter 'proto'", NULL },
	};
	struct fou_gw *gw = *state;
	struct unit_pkt p;

	BAD_DEL_ARGS(gw, "port", t);
	EXPECT_GOLDEN_FWD(gw, &mac_nb4);
	UNIT_DEL(gw, "port", "5555:ipip");
	frame_to(&p, IP4(10, 0, 0, 1), IP4(10, 20, 0, 7));
	/* (the ICMP error about it would wait for the sender's neighbour) */
	UNIT_APPLY(gw, "icmp-rate", "0");
	PKT_DROP(gw, &p, FOU_DROP_FOU_PORT_UNKNOWN);
	EXPECT_DEL_ERR(gw, "port", "5555", -ENOENT, "UDP port 5555 is not a FOU port");
	UNIT_APPLY(gw, "port", "5555:ipip");
	EXPECT_GOLDEN_FWD(gw, &mac_nb4);
	UNIT_DEL(gw, "port", "5556");
	EXPECT_STMT_ERR(gw, "port", "5555:ipip", -EEXIST, "UDP port 5555 is already a FOU port");
}

static void
test_del_neigh(void **state)
{
	static const struct bad_arg t[] = {
		{ "192.168.1.2", -EINVAL, "missing dev=PORTID", NULL },
		{ "192.168.1.2,dev=70000", -EINVAL, "'70000' is not a DPDK port number", NULL },
		{ "192.168.1.2,dev=1,lladdr=02:00:00:00:09:09", -EINVAL,
		  "lladdr: the neighbour's is 02:00:00:00:01:02", NULL },
		{ "192.168.1.2,dev=1,lladdr=zz", -EINVAL, "'zz' is not a MAC address", NULL },
		{ "192.168.1.99,dev=1", -ENOENT, "no neighbour 192.168.1.99 on port 1", NULL },
		{ "192.168.1.2,dev=0", -ENOENT, "no neighbour 192.168.1.2 on port 0", NULL },
		{ "192.168.1.2/24,dev=1", -EINVAL, "a prefix length is not allowed here", NULL },
		{ "192.168.1.2,dev=1,dev=1", -EINVAL, "parameter 'dev' given twice", NULL },
		{ "192.168.1.2,dev=1,via=1", -EINVAL, "unknown parameter 'via'", NULL },
	};
	struct fou_gw *gw = *state;

	BAD_DEL_ARGS(gw, "neigh", t);
	UNIT_DEL(gw, "neigh", "192.168.1.2,dev=1,lladdr=02:00:00:00:01:02");
	/* gone: the next packet waits for ARP to find it again */
	EXPECT_GOLDEN_HELD(gw);
	UNIT_APPLY(gw, "neigh", "192.168.1.2,dev=1,lladdr=02:00:00:00:01:07");
	EXPECT_GOLDEN_FWD(gw, &mac_nb4_7);
	UNIT_DEL(gw, "neigh", "fd00:1::2,dev=1");
	EXPECT_DEL_ERR(gw, "neigh", "fd00:1::2,dev=1", -ENOENT, "no neighbour fd00:1::2 on port 1");
}

/*
 * One lcore's context (its counters and neighbour cache) kept across
 * packets and neighbour changes: 100 IPv4 and 100 IPv6 neighbours on the
 * connected networks (more than the cache holds, so entries collide; the
 * IPv6 keys differ only in their last word) each get their own MAC, twice;
 * a deleted one is gone for the next packet, a re-added one has its new MAC.
 */
static uint16_t
send_keep_st(struct unit_lcore *u, uint32_t inner_dst, struct unit_frame *got)
{
	struct unit_pkt p;
	struct rte_mbuf *m;

	frame_to(&p, IP4(10, 0, 0, 1), inner_dst);
	m = unit_mbuf(p.b, p.len);
	return unit_burst(u, &m, 1, got);
}

/* The same over sit to fd00:1::N (N < 256). */
static uint16_t
send6_keep_st(struct unit_lcore *u, unsigned int n, struct unit_frame *got)
{
	static const uint8_t net[16] = { 0xfd, 0, 0, 1 };
	struct unit_spec sp;
	struct unit_pkt p;
	struct rte_mbuf *m;

	unit_spec_sit(&sp);
	memcpy(sp.in_dst6, net, sizeof(net));
	sp.in_dst6[15] = (uint8_t)n;
	unit_build(&sp, &p);
	m = unit_mbuf(p.b, p.len);
	return unit_burst(u, &m, 1, got);
}

static void
test_neigh_cache(void **state)
{
	static struct unit_lcore u;
	static struct unit_frame got[1];
	struct fou_gw *gw = *state;
	char arg[64];
	unsigned int i, round;

	unit_lcore_begin(&u, gw, 0);
	for (i = 10; i < 110; i++) {
		snprintf(arg, sizeof(arg), "192.168.1.%u,dev=1,lladdr=02:00:00:00:02:%02x", i, i);
		UNIT_APPLY(gw, "neigh", arg);
	}
	for (i = 10; i < 110; i++) {
		snprintf(arg, sizeof(arg), "fd00:1::%x,dev=1,lladdr=02:00:00:00:06:%02x", i, i);
		UNIT_APPLY(gw, "neigh", arg);
	}
	for (round = 0; round < 2; round++) {
		for (i = 10; i < 110; i++) {
			unit_ctx("round %u, neighbour 192.168.1.%u", round, i);
			assert_int_equal(send_keep_st(&u, IP4(192, 168, 1, i), got), 1);
			assert_int_equal(got[0].b[4], 0x02);
			assert_int_equal(got[0].b[5], i);
			unit_ctx("round %u, neighbour fd00:1::%x", round, i);
			assert_int_equal(send6_keep_st(&u, i, got), 1);
			assert_int_equal(got[0].b[4], 0x06);
			assert_int_equal(got[0].b[5], i);
		}
	}
	/* cached just before the delete */
	assert_int_equal(send_keep_st(&u, IP4(192, 168, 1, 42), got), 1);
	UNIT_DEL(gw, "neigh", "192.168.1.42,dev=1");
	assert_int_equal(send_keep_st(&u, IP4(192, 168, 1, 42), got), 0);
	assert_int_equal(fou_stats_drops(&u.st), 0);
	assert_int_equal(u.st.local[FOU_LOCAL_NEIGH_QUEUED], 1);
	{
		struct unit_held h;

		assert_int_equal(unit_held_take(gw, &h, 1), 1);
		assert_string_equal(FOU_IPSTR(&h.neigh), "192.168.1.42");
		assert_memory_equal(h.f.b, mac_zero.addr_bytes, 6);
	}
	UNIT_APPLY(gw, "neigh", "192.168.1.42,dev=1,lladdr=02:00:00:00:03:42");
	assert_int_equal(send_keep_st(&u, IP4(192, 168, 1, 42), got), 1);
	assert_int_equal(got[0].b[4], 0x03);
	assert_int_equal(send_keep_st(&u, IP4(192, 168, 1, 43), got), 1);
	assert_int_equal(got[0].b[4], 0x02);
	unit_lcore_end(&u);
	UNIT_POOL_FULL();
}

static void
test_del_route(void **state)
{
	static const struct bad_arg t[] = {
		{ "10.20.0.0/16,dev=0", -ESRCH, "no route to 10.20.0.0/16 with dev=0 "
		  "(there are: dev 1 via 192.168.1.2 metric 0)", NULL },
		{ "10.20.0.0/16,dev=t1", -ESRCH, "no route to 10.20.0.0/16 with dev=t1", NULL },
		{ "10.20.0.0/16,via=192.168.1.3", -ESRCH,
		  "no route to 10.20.0.0/16 with via=192.168.1.3", NULL },
		{ "10.20.0.0/16,dev=1,metric=1", -ESRCH,
		  "no route to 10.20.0.0/16 with dev=1,metric=1", NULL },
		{ "10.20.0.0/16,weight=1", -EINVAL, "unknown parameter 'weight'", NULL },
		{ "10.20.0.0/16,via=x", -EINVAL, "'x' is not an IPv4 or IPv6 address", NULL },
		{ "10.20.0.0/15", -ESRCH, "no route to 10.20.0.0/15", NULL },
		{ "10.20.0.0/33", -EINVAL, "prefix length must be 0-32", NULL },
		{ "192.168.1.0/24", -EPERM, "the route to 192.168.1.0/24 comes with an address",
		  NULL },
		{ "192.168.1.1/32", -EPERM, "comes with an address", NULL },
		{ "x", -EINVAL, "'x' is not an IPv4 or IPv6 address", NULL },
		{ "10.20.0.0/16,dev=1,dev=1", -EINVAL, "parameter 'dev' given twice", NULL },
		{ "10.20.0.0/16,gw=1", -EINVAL, "unknown parameter 'gw'", NULL },
		{ "0.0.0.0/0", -ESRCH, "no route to 0.0.0.0/0", NULL },
	};
	struct fou_gw *gw = *state;
	struct fou_route_info ri;
	struct fou_ip def;

	BAD_DEL_ARGS(gw, "route", t);
	UNIT_DEL(gw, "route", "10.20.0.0/16,dev=1,via=192.168.1.2");
	EXPECT_GOLDEN_DROP(gw, FOU_DROP_NO_ROUTE);
	/* a default route is found after the FIB misses, and goes too */
	UNIT_APPLY(gw, "route", "0.0.0.0/0,dev=1,via=192.168.1.2");
	EXPECT_GOLDEN_FWD(gw, &mac_nb4);
	assert_int_equal(fou_parse_ip("0.0.0.0/0", true, &def, NULL), 0);
	assert_int_equal(fou_route_get(gw, &def, &ri), 0);
	assert_string_equal(ri.type, "gateway");
	UNIT_DEL(gw, "route", "0.0.0.0/0,dev=1");
	EXPECT_GOLDEN_DROP(gw, FOU_DROP_NO_ROUTE);
	assert_int_equal(fou_route_get(gw, &def, &ri), -ESRCH);
	UNIT_DEL(gw, "route", "fd00:20::/32");
	UNIT_APPLY(gw, "route", "10.20.0.0/16,dev=1,via=192.168.1.2");
	EXPECT_GOLDEN_FWD(gw, &mac_nb4);
}

static bool
has_route(const struct fou_gw *gw, const char *prefix)
{
	struct fou_route_info ri;
	struct fou_ip p;

	assert_int_equal(fou_parse_ip(prefix, true, &p, NULL), 0);
	return fou_route_get(gw, &p, &ri) == 0;
}

/* An address may not be what a route or a tunnel needs not to be local:
 * a config of the statements would not load again. */
static void
test_addr_in_use(void **state)
{
	static const struct bad_arg t[] = {
		{ "1,192.168.1.2/24", -EBUSY, "192.168.1.2 is the gateway of the route to "
		  "10.20.0.0/16", "delete the route first" },
		{ "0,192.168.1.3/32", -EBUSY, "192.168.1.3 is the gateway of the route to "
		  "10.21.0.0/16", NULL },
		{ "1,fd00:1::2/64", -EBUSY, "fd00:1::2 is the gateway of the route to fd00:20::/32",
		  NULL },
		{ "0,10.20.0.9/24", -EBUSY, "10.20.0.9 is the remote of tunnel t1",
		  "delete the tunnel first" },
	};
	struct fou_gw *gw = *state;

	BAD_ARGS(gw, "addr", t);
	UNIT_DEL(gw, "tunnel", "t1");
	EXPECT_STMT_ERR(gw, "addr", "0,10.20.0.9/24", -EBUSY, "remote of tunnel g1");
	UNIT_DEL(gw, "tunnel", "g1");
	UNIT_APPLY(gw, "addr", "0,10.20.0.9/24");
	UNIT_DEL(gw, "route", "10.21.0.0/16");
	UNIT_APPLY(gw, "addr", "0,192.168.1.3/32");
	UNIT_DEL(gw, "route", "fd00:20::/32");
	UNIT_APPLY(gw, "addr", "1,fd00:1::2/64");
}

static void
test_del_addr(void **state)
{
	static const struct bad_arg t[] = {
		{ "1,192.168.1.1/24", -EBUSY, "tunnel t1 has local 192.168.1.1", NULL },
		{ "1,192.168.1.1/16", -EADDRNOTAVAIL, "address 192.168.1.1/16 is not on port 1",
		  NULL },
		{ "0,192.168.1.1/24", -EADDRNOTAVAIL, "is not on port 0", NULL },
		{ "1,192.168.9.9/24", -EADDRNOTAVAIL, "is not on port 1", NULL },
		{ "1", -EINVAL, "missing fields (usage: PORTID|TUNNEL,IP/PLEN)", NULL },
		{ "1,x/24", -EINVAL, "'x' is not an IPv4 or IPv6 address", NULL },
		{ "x,192.168.1.1/24", -ENODEV, "no tunnel 'x'", NULL },
		{ "65536,192.168.1.1/24", -EINVAL, "'65536' is not a DPDK port number", NULL },
	};
	struct fou_gw *gw = *state;

	BAD_DEL_ARGS(gw, "addr", t);
	UNIT_DEL(gw, "tunnel", "t1");
	UNIT_DEL(gw, "tunnel", "g1");
	/* a second address of the network keeps the network's route */
	UNIT_APPLY(gw, "addr", "1,192.168.1.5/24");
	UNIT_DEL(gw, "addr", "1,192.168.1.1/24");
	assert_false(has_route(gw, "192.168.1.1/32"));
	assert_true(has_route(gw, "192.168.1.0/24"));
	assert_true(has_route(gw, "192.168.1.255/32"));
	EXPECT_GOLDEN_FWD(gw, &mac_nb4);
	/* the last network of port 1 that the gateways are on stays while
	 * routes via them exist; another port's network does not count */
	UNIT_APPLY(gw, "addr", "0,192.168.0.1/16");
	EXPECT_DEL_ERR(gw, "addr", "1,192.168.1.5/24", -EBUSY, "the route to 10.20.0.0/16 via "
		       "192.168.1.2 needs address 192.168.1.5/24", "delete the route first");
	EXPECT_DEL_ERR(gw, "addr", "1,fd00:1::1/64", -EBUSY, "the route to fd00:20::/32 via "
		       "fd00:1::2 needs address fd00:1::1/64");
	UNIT_DEL(gw, "addr", "0,192.168.0.1/16");
	/* a wider network of the port holds them */
	UNIT_APPLY(gw, "addr", "1,192.168.0.1/16");
	UNIT_DEL(gw, "addr", "1,192.168.1.5/24");
	assert_false(has_route(gw, "192.168.1.5/32"));
	assert_false(has_route(gw, "192.168.1.0/24"));
	assert_false(has_route(gw, "192.168.1.255/32"));
	assert_true(has_route(gw, "10.20.0.0/16"));
	EXPECT_GOLDEN_FWD(gw, &mac_nb4);
	EXPECT_DEL_ERR(gw, "addr", "1,192.168.0.1/16", -EBUSY, "the route to 10.20.0.0/16 via");
	UNIT_DEL(gw, "route", "10.20.0.0/16");
	EXPECT_DEL_ERR(gw, "addr", "1,192.168.0.1/16", -EBUSY, "the route to 10.21.0.0/16 via");
	UNIT_DEL(gw, "route", "10.21.0.0/16");
	UNIT_DEL(gw, "addr", "1,192.168.0.1/16");
	assert_false(has_route(gw, "192.168.0.0/16"));
	UNIT_DEL(gw, "route", "fd00:20::/32");
	UNIT_DEL(gw, "route", "fd00:21::/32");
	UNIT_DEL(gw, "addr", "1,fd00:1::1/64");
	UNIT_APPLY(gw, "addr", "1,192.168.1.1/24");
	assert_true(has_route(gw, "192.168.1.0/24"));
}

static void
test_del_tunnel(void **state)
{
	static const struct bad_arg t[] = {
		{ "", -EINVAL, "missing fields (usage: NAME)", NULL },
		{ "nope", -ENODEV, "no tunnel 'nope'", NULL },
		{ "t1,x", -EINVAL, "unexpected 'x'", NULL },
		{ "t1,type=ipip", -EINVAL, "unknown parameter 'type'", NULL },
	};
	struct fou_gw *gw = *state;
	struct fou_tunnel_info ti[4];

	UNIT_APPLY(gw, "route", "10.30.0.0/16,dev=t1");
	UNIT_APPLY(gw, "route", "10.31.0.0/16,dev=g1");
	UNIT_APPLY(gw, "route", "fd00:31::/32,dev=g1");
	BAD_DEL_ARGS(gw, "tunnel", t);
	UNIT_DEL(gw, "tunnel", "g1");
	assert_true(has_route(gw, "10.30.0.0/16"));
	assert_false(has_route(gw, "10.31.0.0/16"));
	assert_false(has_route(gw, "fd00:31::/32"));
	assert_int_equal(fou_tunnel_list(gw, ti, RTE_DIM(ti)), 1);
	assert_string_equal(ti[0].conf.name, "t1");
	EXPECT_DEL_ERR(gw, "route", "10.31.0.0/16", -ESRCH, "no route to 10.31.0.0/16");
	/* the name, the endpoints and the key are free again */
	UNIT_APPLY(gw, "tunnel",
		   "g1,type=gre,local=192.168.1.1,remote=10.20.0.9,key=5,encap-dport=5556");
	UNIT_DEL(gw, "tunnel", "t1");
	assert_false(has_route(gw, "10.30.0.0/16"));
	UNIT_APPLY(gw, "tunnel", TUN_OK);
}

/* --- addresses on tunnels ------------------------------------------------------ */

/*
 * fou_addr_add_tunnel() / fou_addr_del_tunnel() (verb "add" or "del") on the
 * statement's argument TUNNEL,IP/PLEN: the control functions without the
 * text layer, as a stmt_fn for stmt_run_err().
 */
static int
tunaddr_api(struct fou_gw *gw, const char *verb, const char *arg, struct fou_err *err)
{
	const char *comma = strchr(arg, ',');
	char tun[64];
	struct fou_ip ip;

	assert_non_null(comma);
	snprintf(tun, sizeof(tun), "%.*s", (int)(comma - arg), arg);
	assert_int_equal(fou_parse_ip(comma + 1, true, &ip, err), 0);
	if (strcmp(verb, "add") == 0)
		return fou_addr_add_tunnel(gw, tun, &ip, err);
	return fou_addr_del_tunnel(gw, tun, &ip, err);
}

static void
tunaddr_ok(struct fou_gw *gw, const char *verb, const char *arg, const char *file, int line)
{
	struct fou_err err = { "" };
	int r = tunaddr_api(gw, verb, arg, &err);

	if (r != 0) {
		print_error("%s %s: returned %d (%s)\n", verb, arg, r, err.msg);
		_fail(file, line);
	}
}
#define TUNADDR_ADD(gw, arg) tunaddr_ok((gw), "add", (arg), __FILE__, __LINE__)
#define TUNADDR_DEL(gw, arg) tunaddr_ok((gw), "del", (arg), __FILE__, __LINE__)
#define EXPECT_TUNADDR_ERR(gw, verb, arg, ret, ...) \
	stmt_run_err((gw), tunaddr_api, (verb), (arg), (ret), \
		     (const char *const[]){ __VA_ARGS__, NULL }, __FILE__, __LINE__)
#define BAD_TUNADDR_ARGS(gw, verb, t) \
	bad_args((gw), tunaddr_api, (verb), (t), RTE_DIM(t), __FILE__, __LINE__)

/* The route to prefix is of type, on dev (a tunnel, a port number, "" for
 * none) and came with an address. */
static void
expect_addr_route(const struct fou_gw *gw, const char *prefix, const char *type, const char *dev,
		  const char *file, int line)
{
	struct fou_route_info ri;
	struct fou_ip p;
	char d[FOU_TUNNEL_NAMESIZE];

	assert_int_equal(fou_parse_ip(prefix, true, &p, NULL), 0);
	if (fou_route_get(gw, &p, &ri) < 0) {
		print_error("no route to %s\n", prefix);
		_fail(file, line);
	}
	if (ri.tunnel[0] != '\0')
		snprintf(d, sizeof(d), "%s", ri.tunnel);
	else if (strcmp(ri.type, "local") == 0)
		d[0] = '\0';
	else
		snprintf(d, sizeof(d), "%u", ri.port);
	if (strcmp(ri.type, type) != 0 || strcmp(d, dev) != 0 || !ri.from_addr) {
		print_error("route to %s: %s dev '%s'%s, expected %s dev '%s' from an address\n",
			    prefix, ri.type, d, ri.from_addr ? " from an address" : "", type, dev);
		_fail(file, line);
	}
}
#define EXPECT_ADDR_ROUTE(gw, prefix, type, dev) \
	expect_addr_route((gw), (prefix), (type), (dev), __FILE__, __LINE__)

/* The address at position i of fou_addr_list() is ip on tunnel ("" for a
 * port's: then on port). */
static void
expect_addr_at(const struct fou_gw *gw, unsigned int i, const char *ip, const char *tunnel,
	       uint16_t port)
{
	struct fou_addr_info ai[FOU_MAX_ADDRS];
	struct fou_ip want;

	assert_int_equal(fou_parse_ip(ip, true, &want, NULL), 0);
	assert_true(i < fou_addr_list(gw, ai, RTE_DIM(ai)));
	assert_memory_equal(&ai[i].ip, &want, sizeof(want));
	assert_string_equal(ai[i].tunnel, tunnel);
	if (tunnel[0] == '\0')
		assert_int_equal(ai[i].port, port);
}

static void
test_tunaddr_add(void **state)
{
	struct fou_gw *gw = *state;
	unsigned int nr = fou_route_list(gw, NULL, 0, 0);

	assert_false(is_local(gw, IP4(192, 168, 4, 1)));
	TUNADDR_ADD(gw, "t1,192.168.4.1/30");
	/* as Linux on a tunnel device: local, the network into the tunnel,
	 * its broadcast address */
	EXPECT_ADDR_ROUTE(gw, "192.168.4.1/32", "local", "");
	EXPECT_ADDR_ROUTE(gw, "192.168.4.0/30", "tunnel", "t1");
	EXPECT_ADDR_ROUTE(gw, "192.168.4.3/32", "broadcast", "t1");
	assert_int_equal(fou_route_list(gw, NULL, 0, 0), nr + 3);
	assert_true(is_local(gw, IP4(192, 168, 4, 1)));
	/* a second address of the network shares its routes */
	TUNADDR_ADD(gw, "t1,192.168.4.2/30");
	assert_int_equal(fou_route_list(gw, NULL, 0, 0), nr + 4);
	assert_true(is_local(gw, IP4(192, 168, 4, 2)));
	/* a host address brings only itself */
	TUNADDR_ADD(gw, "t1,192.168.5.1/32");
	assert_int_equal(fou_route_list(gw, NULL, 0, 0), nr + 5);
	/* gre carries both families, sit IPv6 */
	TUNADDR_ADD(gw, "g1,10.70.0.1/24");
	TUNADDR_ADD(gw, "g1,fd00:44::1/64");
	EXPECT_ADDR_ROUTE(gw, "10.70.0.0/24", "tunnel", "g1");
	EXPECT_ADDR_ROUTE(gw, "10.70.0.255/32", "broadcast", "g1");
	EXPECT_ADDR_ROUTE(gw, "fd00:44::1/128", "local", "");
	EXPECT_ADDR_ROUTE(gw, "fd00:44::/64", "tunnel", "g1");
	UNIT_APPLY(gw, "tunnel", "s1,type=sit,local=192.168.1.1,remote=10.20.0.9,encap=none");
	TUNADDR_ADD(gw, "s1,fd00:45::1/64");
	EXPECT_ADDR_ROUTE(gw, "fd00:45::/64", "tunnel", "s1");
	/* a port's broadcast route names the port */
	EXPECT_ADDR_ROUTE(gw, "192.168.1.255/32", "broadcast", "1");
	/* listed after the ports' addresses, in the order added, with the tunnel */
	expect_addr_at(gw, 1, "192.168.1.1/24", "", EG_PORT);
	expect_addr_at(gw, 3, "192.168.4.1/30", "t1", 0);
	expect_addr_at(gw, 5, "192.168.5.1/32", "t1", 0);
	expect_addr_at(gw, 7, "fd00:44::1/64", "g1", 0);
	expect_addr_at(gw, 8, "fd00:45::1/64", "s1", 0);
	assert_int_equal(fou_addr_list(gw, NULL, 0), 9);
}

/* Every refused add names its reason and changes nothing (the snapshot:
 * routes, next hops, the address lists). */
static void
test_tunaddr_add_invalid(void **state)
{
	static const struct bad_arg t[] = {
		{ "nope,192.168.6.1/30", -ENODEV, "no tunnel 'nope'", NULL },
		{ "T1,192.168.6.1/30", -ENODEV, "no tunnel 'T1'", NULL },
		{ "x234567890123456,192.168.6.1/30", -ENODEV, "no tunnel", NULL },
		{ "t1,fd00:46::1/64", -EINVAL, "tunnel t1 is ipip: it carries IPv4 only", NULL },
		{ "s1,192.168.6.1/30", -EINVAL, "tunnel s1 is sit: it carries IPv6 only", NULL },
		{ "t1,192.168.4.1/30", -EEXIST, "address 192.168.4.1 is already assigned", NULL },
		{ "g1,192.168.4.1/24", -EEXIST, "192.168.4.1 is already assigned", NULL },
		{ "t1,10.0.0.1/24", -EEXIST, "address 10.0.0.1 is already assigned", NULL },
		{ "g1,192.168.4.2/30", -EEXIST, "network 192.168.4.0/30 is already on tunnel t1",
		  NULL },
		{ "t1,10.0.0.9/24", -EEXIST, "network 10.0.0.0/24 is already on port 0", NULL },
		{ "t1,10.50.0.1/24", -EEXIST, "a route to 10.50.0.0/24 exists", NULL },
		{ "g1,10.51.0.1/24", -EEXIST, "a route to 10.51.0.0/24 exists", NULL },
		{ "g1,fd00:51::1/64", -EEXIST, "a route to fd00:51::/64 exists", NULL },
		{ "t1,10.52.0.1/23", -EEXIST, "a route to 10.52.1.255/32 exists", NULL },
		{ "t1,10.53.0.1/24", -EEXIST, "a route to 10.53.0.1/32 exists", NULL },
		{ "t1,10.20.0.9/32", -EBUSY, "10.20.0.9 is the remote of tunnel t1", NULL },
		{ "g1,192.168.1.2/32", -EBUSY, "192.168.1.2 is the gateway of the route to "
		  "10.20.0.0/16", NULL },
		{ "t1,224.0.0.1/4", -EINVAL, "224.0.0.1 is not a unicast address", NULL },
		{ "g1,ff02::1/64", -EINVAL, "not a unicast address", NULL },
		{ "t1,192.168.6.1/0", -EINVAL, "a prefix length of 1 or more", NULL },
	};
	struct fou_gw *gw = *state;

	UNIT_APPLY(gw, "tunnel", "s1,type=sit,local=192.168.1.1,remote=10.20.0.9,encap=none");
	TUNADDR_ADD(gw, "t1,192.168.4.1/30");
	UNIT_APPLY(gw, "route", "10.50.0.0/24,dev=t1");
	UNIT_APPLY(gw, "route", "10.51.0.0/24,dev=1");
	UNIT_APPLY(gw, "route", "fd00:51::/64,dev=g1");
	UNIT_APPLY(gw, "route", "10.52.1.255/32,dev=1");
	UNIT_APPLY(gw, "route", "10.53.0.1/32,dev=1");
	BAD_TUNADDR_ARGS(gw, "add", t);
	/* nothing was left behind: the host routes of 10.52.0.1, 10.53.0.0/24 */
	assert_false(is_local(gw, IP4(10, 52, 0, 1)));
	assert_false(has_route(gw, "10.53.0.0/24"));
	TUNADDR_ADD(gw, "t1,192.168.6.1/30");
	/* what the statements that remain need of an address on a tunnel: not a
	 * tunnel's local (a config file adds tunnels before such addresses),
	 * and a route's gateway is on a port's network */
	EXPECT_STMT_ERR(gw, "tunnel", "t9,type=ipip,local=192.168.4.1,remote=10.20.0.30,"
			"encap=none", -EINVAL, "local 192.168.4.1 is an address of tunnel t1");
	EXPECT_STMT_ERR(gw, "route", "10.80.0.0/16,dev=1,via=192.168.6.2", -ENETUNREACH,
			"gateway 192.168.6.2 is not on a network of port 1");
}

/* A route or next hop that does not fit takes the routes added before it
 * back. */
static void
test_tunaddr_add_rollback(void **state)
{
	static const struct {
		uint32_t max_routes4, max_nexthops;
		const char *msg;
	} t[] = {
		{ 3, 16, "cannot add route to 192.168.4.3/32: routing table full" },
		{ 2, 16, "cannot add route to 192.168.4.0/30: routing table full" },
		{ 64, 2, "too many next hops (at most 2)" },
	};
	struct fou_gw_params p;
	struct fou_err err;
	struct fou_gw *gw;
	unsigned int i;

	for (i = 0; i < RTE_DIM(t); i++) {
		fou_gw_params_default(&p);
		p.max_routes4 = t[i].max_routes4;
		p.max_nexthops = t[i].max_nexthops;
		gw = unit_gw_new(&p);
		*state = gw;
		assert_int_equal(fou_iface_set(gw, RX_PORT, &mac_rx, 1500, &err), 0);
		assert_int_equal(fou_iface_set(gw, EG_PORT, &mac_eg, 1500, &err), 0);
		UNIT_APPLY(gw, "addr", "1,192.168.1.1/32");
		UNIT_APPLY(gw, "tunnel", "t1,type=ipip,local=192.168.1.1,remote=10.20.0.9,"
			   "encap=none");
		unit_ctx("max_routes4 %u, max_nexthops %u", p.max_routes4, p.max_nexthops);
		EXPECT_TUNADDR_ERR(gw, "add", "t1,192.168.4.1/30", -ENOSPC, t[i].msg);
		assert_false(is_local(gw, IP4(192, 168, 4, 1)));
		assert_int_equal(fou_route_list(gw, NULL, 0, 0), 1);
		if (t[i].max_routes4 > 2) {
			/* a /31 has no broadcast route */
			TUNADDR_ADD(gw, "t1,192.168.4.1/31");
			assert_int_equal(fou_route_list(gw, NULL, 0, 0), 3);
		}
		fou_gw_free(gw);
		*state = NULL;
	}
}

static void
test_tunaddr_del(void **state)
{
	static const struct bad_arg t[] = {
		{ "t1,192.168.4.1/24", -EADDRNOTAVAIL, "address 192.168.4.1/24 is not on tunnel t1",
		  NULL },
		{ "g1,192.168.4.1/30", -EADDRNOTAVAIL, "192.168.4.1/30 is not on tunnel g1", NULL },
		{ "t1,192.168.4.3/30", -EADDRNOTAVAIL, "is not on tunnel t1", NULL },
		{ "t1,10.0.0.1/24", -EADDRNOTAVAIL, "10.0.0.1/24 is not on tunnel t1", NULL },
		{ "nope,192.168.4.1/30", -ENODEV, "no tunnel 'nope'", NULL },
	};
	struct fou_gw *gw = *state;
	unsigned int nr = fou_route_list(gw, NULL, 0, 0);

	TUNADDR_ADD(gw, "t1,192.168.4.1/30");
	TUNADDR_ADD(gw, "t1,192.168.4.2/30");
	TUNADDR_ADD(gw, "g1,fd00:44::1/64");
	BAD_TUNADDR_ARGS(gw, "del", t);
	/* not through the port's delete, nor the route's */
	EXPECT_DEL_ERR(gw, "addr", "0,192.168.4.1/30", -EADDRNOTAVAIL,
		       "address 192.168.4.1/30 is not on port 0");
	EXPECT_DEL_ERR(gw, "route", "192.168.4.0/30", -EPERM, "comes with an address");
	/* the network's routes stay with its last address */
	TUNADDR_DEL(gw, "t1,192.168.4.1/30");
	assert_false(has_route(gw, "192.168.4.1/32"));
	EXPECT_ADDR_ROUTE(gw, "192.168.4.0/30", "tunnel", "t1");
	EXPECT_ADDR_ROUTE(gw, "192.168.4.3/32", "broadcast", "t1");
	TUNADDR_DEL(gw, "t1,192.168.4.2/30");
	assert_false(has_route(gw, "192.168.4.0/30"));
	assert_false(has_route(gw, "192.168.4.3/32"));
	TUNADDR_DEL(gw, "g1,fd00:44::1/64");
	assert_false(has_route(gw, "fd00:44::/64"));
	assert_int_equal(fou_route_list(gw, NULL, 0, 0), nr);
	assert_int_equal(fou_addr_list(gw, NULL, 0), 3);
	/* the network is free for another device */
	UNIT_APPLY(gw, "addr", "0,192.168.4.2/30");
	EXPECT_ADDR_ROUTE(gw, "192.168.4.0/30", "connected", "0");
}

/* As `ip link del`: the tunnel's addresses and their routes go with it,
 * nothing of another tunnel's. */
static void
test_tunaddr_tunnel_del(void **state)
{
	struct fou_gw *gw = *state;
	unsigned int nr, i, n;
	struct fou_addr_info ai[FOU_MAX_ADDRS];

	TUNADDR_ADD(gw, "t1,192.168.4.1/30");
	nr = fou_route_list(gw, NULL, 0, 0);
	TUNADDR_ADD(gw, "g1,10.70.0.1/24");
	TUNADDR_ADD(gw, "g1,10.70.0.2/24");
	TUNADDR_ADD(gw, "g1,fd00:44::1/64");
	TUNADDR_ADD(gw, "g1,10.72.0.1/32");
	UNIT_APPLY(gw, "route", "10.71.0.0/16,dev=g1");
	UNIT_APPLY(gw, "addr", "0,10.0.1.1/24");
	UNIT_DEL(gw, "tunnel", "g1");
	n = fou_addr_list(gw, ai, RTE_DIM(ai));
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++)
		assert_string_not_equal(ai[i].tunnel, "g1");
	expect_addr_at(gw, 3, "192.168.4.1/30", "t1", 0);
	expect_addr_at(gw, 4, "10.0.1.1/24", "", RX_PORT);
	assert_int_equal(fou_route_list(gw, NULL, 0, 0), nr + 3);
	assert_false(is_local(gw, IP4(10, 70, 0, 1)));
	assert_false(is_local(gw, IP4(10, 72, 0, 1)));
	assert_false(has_route(gw, "10.70.0.0/24"));
	assert_false(has_route(gw, "10.70.0.255/32"));
	assert_false(has_route(gw, "fd00:44::1/128"));
	assert_false(has_route(gw, "fd00:44::/64"));
	EXPECT_ADDR_ROUTE(gw, "192.168.4.0/30", "tunnel", "t1");
	/* a new tunnel of that name starts without them */
	UNIT_APPLY(gw, "tunnel",
		   "g1,type=gre,local=192.168.1.1,remote=10.20.0.9,key=5,encap-dport=5556");
	EXPECT_TUNADDR_ERR(gw, "del", "g1,10.70.0.1/24", -EADDRNOTAVAIL, "not on tunnel g1");
	TUNADDR_ADD(gw, "g1,10.70.0.1/24");
	EXPECT_ADDR_ROUTE(gw, "10.70.0.0/24", "tunnel", "g1");
	/* and the other one's go with it in turn */
	UNIT_DEL(gw, "tunnel", "t1");
	assert_false(has_route(gw, "192.168.4.0/30"));
	assert_int_equal(fou_addr_list(gw, NULL, 0), 5);
}

/* Plain IPv4 from port 0 to dst with TTL ttl: the standard inner packet
 * without the tunnel around it. */
static void
plain4_to(struct unit_pkt *p, uint32_t src, uint32_t dst, uint8_t ttl)
{
	struct unit_spec s;
	struct unit_pkt f;

	unit_spec_ipip(&s);
	s.in_src4 = src;
	s.in_dst4 = dst;
	s.in_ttl = ttl;
	unit_build(&s, &f);
	memcpy(p, &f, sizeof(*p));
	memcpy(p->b + RTE_ETHER_HDR_LEN, f.b + f.inner, f.inner_tot);
	p->len = RTE_ETHER_HDR_LEN + f.inner_tot;
	p->l3 = RTE_ETHER_HDR_LEN;
	p->inner = RTE_ETHER_HDR_LEN;
}

/*
 * The network of an address on a tunnel is routed into the tunnel; the
 * address is local (an inner packet to it is not forwarded) and the
 * network's broadcast address is never forwarded.
 */
static void
test_tunaddr_forward(void **state)
{
	struct fou_gw *gw = *state;
	struct unit_lcore u = { 0 };
	static struct unit_frame got[1];
	const uint8_t *ip;
	struct rte_mbuf *m;
	struct unit_spec s;
	struct unit_pkt p;

	TUNADDR_ADD(gw, "t1,192.168.4.1/30");
	plain4_to(&p, IP4(10, 0, 0, 2), IP4(192, 168, 4, 2), 64);
	m = unit_mbuf(p.b, p.len);
	unit_lcore_begin(&u, gw, 0);
	assert_int_equal(unit_burst(&u, &m, 1, got), 1);
	unit_lcore_end(&u);
	/* ipip in FOU to t1's remote, through 192.168.1.2 on port 1 */
	ip = got[0].b + RTE_ETHER_HDR_LEN;
	assert_int_equal(got[0].port, EG_PORT);
	assert_memory_equal(got[0].b, &mac_nb4, RTE_ETHER_ADDR_LEN);
	assert_int_equal(unit_get32(ip + 12), IP4(192, 168, 1, 1));
	assert_int_equal(unit_get32(ip + 16), IP4(10, 20, 0, 9));
	assert_int_equal(ip[9], IPPROTO_UDP);
	assert_int_equal(unit_get16(ip + 22), PORT_IPIP);
	assert_int_equal(unit_get32(ip + 28 + 16), IP4(192, 168, 4, 2));
	assert_int_equal(ip[28 + 8], 63);
	/* from the tunnel's remote to the tunnel's address: local */
	unit_spec_ipip(&s);
	s.src = IP4(10, 20, 0, 9);
	s.dst = IP4(192, 168, 1, 1);
	s.in_src4 = IP4(192, 168, 4, 2);
	s.in_dst4 = IP4(192, 168, 4, 1);
	unit_build(&s, &p);
	/* UDP to the tunnel's address: port unreachable, from that address,
	 * back into the tunnel */
	m = unit_mbuf(p.b, p.len);
	unit_lcore_begin(&u, gw, 0);
	assert_int_equal(unit_burst(&u, &m, 1, got), 1);
	unit_lcore_end(&u);
	assert_int_equal(u.st.icmp_out[FOU_ICMP_PORT_UNREACH], 1);
	ip = got[0].b + RTE_ETHER_HDR_LEN;
	assert_int_equal(unit_get32(ip + 16), IP4(10, 20, 0, 9));
	assert_int_equal(unit_get32(ip + 28 + 12), IP4(192, 168, 4, 1));
	assert_int_equal(unit_get32(ip + 28 + 16), IP4(192, 168, 4, 2));
	assert_int_equal(ip[28 + 9], IPPROTO_ICMP);
	plain4_to(&p, IP4(10, 0, 0, 2), IP4(192, 168, 4, 3), 64);
	PKT_DROP(gw, &p, FOU_DROP_BCAST_MCAST);
	/* gone with the address */
	TUNADDR_DEL(gw, "t1,192.168.4.1/30");
	plain4_to(&p, IP4(10, 0, 0, 2), IP4(192, 168, 4, 2), 64);
	/* (the ICMP error about it would wait for the sender's neighbour) */
	UNIT_APPLY(gw, "icmp-rate", "0");
	PKT_DROP(gw, &p, FOU_DROP_NO_ROUTE);
	UNIT_POOL_FULL();
}

/* The addr statement takes a tunnel's name where it takes a port number:
 * the same control functions, the text layer's errors. */
static void
test_tunaddr_stmt(void **state)
{
	static const struct bad_arg t[] = {
		{ "t1", -EINVAL, "missing fields", "PORTID|TUNNEL,IP/PLEN" },
		{ "t1,hello", -EINVAL, "'hello' is not an IPv4 or IPv6 address", NULL },
		{ "t1,192.168.6.1/33", -EINVAL, "prefix length must be 0-32", NULL },
		{ "t1,192.168.6.1/30,x", -EINVAL, "unexpected 'x'", NULL },
		{ "t1,192.168.6.1/30,dev=1", -EINVAL, "unknown parameter 'dev'", NULL },
		{ "nope,192.168.6.1/30", -ENODEV, "no tunnel 'nope'", NULL },
		{ "t/1,192.168.6.1/30", -ENODEV, "no tunnel 't/1'", NULL },
		{ "t1,fd00:46::1/64", -EINVAL, "tunnel t1 is ipip: it carries IPv4 only", NULL },
		{ "g1,192.168.4.2/30", -EEXIST, "network 192.168.4.0/30 is already on tunnel t1",
		  NULL },
	};
	static const struct bad_arg d[] = {
		{ "g1,192.168.4.1/30", -EADDRNOTAVAIL, "192.168.4.1/30 is not on tunnel g1", NULL },
		{ "t1,192.168.4.1/31", -EADDRNOTAVAIL, "is not on tunnel t1", NULL },
		{ "0,192.168.4.1/30", -EADDRNOTAVAIL, "is not on port 0", NULL },
		{ "nope,192.168.4.1/30", -ENODEV, "no tunnel 'nope'", NULL },
		{ "t1", -EINVAL, "missing fields", NULL },
	};
	struct fou_gw *gw = *state;

	UNIT_APPLY(gw, "addr", "t1,192.168.4.1/30");
	UNIT_APPLY(gw, "addr", "g1,fd00:44::1/64");
	UNIT_APPLY(gw, "addr", "g1,10.70.0.1");
	EXPECT_ADDR_ROUTE(gw, "192.168.4.0/30", "tunnel", "t1");
	EXPECT_ADDR_ROUTE(gw, "fd00:44::/64", "tunnel", "g1");
	EXPECT_ADDR_ROUTE(gw, "10.70.0.1/32", "local", "");
	expect_addr_at(gw, 3, "192.168.4.1/30", "t1", 0);
	BAD_ARGS(gw, "addr", t);
	BAD_DEL_ARGS(gw, "addr", d);
	UNIT_DEL(gw, "addr", "t1,192.168.4.1/30");
	UNIT_DEL(gw, "addr", "g1,fd00:44::1/64");
	UNIT_DEL(gw, "addr", "g1,10.70.0.1/32");
	assert_false(has_route(gw, "192.168.4.0/30"));
	assert_false(has_route(gw, "fd00:44::/64"));
	assert_int_equal(fou_addr_list(gw, NULL, 0), 3);
}

static void
test_del_set_only(void **state)
{
	struct fou_gw *gw = *state;

	EXPECT_DEL_ERR(gw, "link", "0,mtu=1500", -EOPNOTSUPP, "link is set, not deleted");
	EXPECT_DEL_ERR(gw, "sport-range", "1-2", -EOPNOTSUPP, "sport-range is set");
	EXPECT_DEL_ERR(gw, "icmp-rate", "5", -EOPNOTSUPP, "icmp-rate is set");
	EXPECT_DEL_ERR(gw, "routes", "x", -EINVAL, "unknown statement 'routes'");
	assert_null(fou_stmt_del_usage("link"));
	assert_string_equal(fou_stmt_del_usage("tunnel"), "NAME");
}

/*
 * A gateway sized for no tunnel at all: a tunnel is refused, and FOU is
 * still received from anyone (no tunnel of the type exists) and forwarded
 * by a worker's context, which has no tunnel counters to point at.
 */
static void
test_no_tunnels(void **state)
{
	static uint8_t out[UNIT_PKT_MAX];
	struct fou_gw_params p;
	struct fou_err err;
	struct unit_spec s;
	struct unit_pkt pkt;
	struct fou_gw *gw;
	uint32_t olen;

	(void)state;
	fou_gw_params_default(&p);
	p.max_tunnels = 0;
	gw = unit_gw_new(&p);
	assert_int_equal(fou_iface_set(gw, RX_PORT, &mac_rx, 1500, &err), 0);
	assert_int_equal(fou_iface_set(gw, EG_PORT, &mac_eg, 1500, &err), 0);
	UNIT_APPLY_LINES(gw, "addr 0,10.0.0.1/24\naddr 1,192.168.1.1/24\n"
			 "neigh 192.168.1.2,dev=1,lladdr=02:00:00:00:01:02\n"
			 "route 10.20.0.0/16,dev=1,via=192.168.1.2\nport 5555:ipip");
	assert_int_equal(fou_stmt_apply(gw, "tunnel", "t1,type=ipip,local=10.0.0.1,"
					"remote=10.0.0.2,encap-dport=5555", &err), -ENOSPC);
	assert_string_equal(err.msg, "too many tunnels (at most 0)");
	unit_spec_ipip(&s);
	unit_build(&s, &pkt);
	olen = unit_expect_out_same(&pkt, &mac_nb4, out);
	EXPECT_FWD(gw, pkt.b, pkt.len, PORT_IPIP, FOU_INNER_IPV4, out, olen);
	fou_gw_free(gw);
}

/* Neighbour and tunnel slots come back after a delete (rte_hash frees a
 * key after the grace period), many times over. */
static void
test_del_recycles(void **state)
{
	struct fou_gw_params p;
	struct fou_err err;
	struct fou_gw *gw;
	char arg[128];
	unsigned int round, i;

	(void)state;
	fou_gw_params_default(&p);
	p.max_neighs = 64;
	p.max_tunnels = 4;
	gw = unit_gw_new(&p);
	assert_int_equal(fou_iface_set(gw, RX_PORT, &mac_rx, 1500, &err), 0);
	UNIT_APPLY(gw, "addr", "0,10.0.0.1/16");
	for (round = 0; round < 4; round++) {
		for (i = 0; i < 64; i++) {
			snprintf(arg, sizeof(arg), "10.0.%u.%u,dev=0,lladdr=02:00:00:00:00:01",
				 round, i + 2);
			UNIT_APPLY(gw, "neigh", arg);
		}
		EXPECT_STMT_ERR(gw, "neigh", "10.0.9.9,dev=0,lladdr=02:00:00:00:00:01", -ENOSPC,
				"neighbour table full (at most 64, all static)");
		for (i = 0; i < 64; i++) {
			snprintf(arg, sizeof(arg), "10.0.%u.%u,dev=0", round, i + 2);
			UNIT_DEL(gw, "neigh", arg);
		}
		for (i = 0; i < 4; i++) {
			snprintf(arg, sizeof(arg), "r%u-%u,type=gre,local=10.0.0.1,remote=10.0.%u.%u,"
				 "encap-dport=5556", round, i, round, i + 2);
			UNIT_APPLY(gw, "tunnel", arg);
			snprintf(arg, sizeof(arg), "10.%u.%u.0/24,dev=r%u-%u", 100 + round, i, round, i);
			UNIT_APPLY(gw, "route", arg);
		}
		for (i = 0; i < 4; i++) {
			snprintf(arg, sizeof(arg), "r%u-%u", round, i);
			UNIT_DEL(gw, "tunnel", arg);
		}
	}
	assert_int_equal(fou_neigh_list(gw, NULL, 0, 0), 0);
	assert_int_equal(fou_tunnel_list(gw, NULL, 0), 0);
	/* the local, connected and broadcast routes of the address */
	assert_int_equal(fou_route_list(gw, NULL, 0, 0), 3);
	fou_gw_free(gw);
}

/* fou_config_dump(): statements that rebuild the same configuration. */
struct dump_lines {
	unsigned int n;
	char line[64][FOU_ERR_LEN + 16];
};

static int
dump_cb(void *ctx, const char *name, const char *arg, struct fou_err *err)
{
	struct dump_lines *d = ctx;

	(void)err;
	assert_true(d->n < RTE_DIM(d->line));
	snprintf(d->line[d->n++], sizeof(d->line[0]), "%s %s", name, arg);
	return 0;
}

/* A kernel interface per port (--punt): its settings, the defaults, every
 * refusal, the running config's line; made at start only. */
static void
test_punt_stmt(void **state)
{
	struct fou_gw *gw = *state;
	struct fou_punt_info pi[2];
	struct fou_err err;
	struct dump_lines *d;
	unsigned int i, found = 0;

	assert_int_equal(fou_punt_list(gw, pi, RTE_DIM(pi)), 0);
	UNIT_APPLY(gw, "punt", "0,iface=fpu0,rate=5,burst=2");
	EXPECT_STMT_ERR(gw, "punt", "7", -ENODEV, "no DPDK port 7");
	EXPECT_STMT_ERR(gw, "punt", "0", -EEXIST, "port 0 has a kernel interface already (fpu0)");
	EXPECT_STMT_ERR(gw, "punt", "1,iface=fpu0", -EEXIST, "interface fpu0 is port 0's already");
	EXPECT_STMT_ERR(gw, "punt", "1,iface=a/b", -EINVAL, "'a/b' is not an interface name");
	EXPECT_STMT_ERR(gw, "punt", "1,iface=0123456789abcdef", -EINVAL,
			"longer than 15 characters");
	EXPECT_STMT_ERR(gw, "punt", "1,rate=x", -EINVAL, "rate 'x'");
	EXPECT_STMT_ERR(gw, "punt", "1,rate=5,burst=0", -EINVAL, "a burst of at least 1");
	EXPECT_STMT_ERR(gw, "punt", "1,mtu=3", -EINVAL, "unknown parameter 'mtu'");
	assert_int_equal(fou_punt_list(gw, pi, RTE_DIM(pi)), 1);
	UNIT_APPLY(gw, "punt", "1");
	assert_int_equal(fou_punt_list(gw, pi, RTE_DIM(pi)), 2);
	assert_int_equal(pi[0].port, 0);
	assert_string_equal(pi[0].conf.ifname, "fpu0");
	assert_int_equal(pi[0].conf.rate, 5);
	assert_int_equal(pi[0].conf.burst, 2);
	assert_int_equal(pi[0].ifindex, 0);
	assert_int_equal(pi[1].port, 1);
	assert_string_equal(pi[1].conf.ifname, "dpdkfou1");
	assert_int_equal(pi[1].conf.rate, FOU_PUNT_RATE_DEFAULT);
	assert_int_equal(pi[1].conf.burst, FOU_PUNT_BURST_DEFAULT);
	d = calloc(1, sizeof(*d));
	assert_non_null(d);
	assert_int_equal(fou_config_dump(gw, dump_cb, d, &err), 0);
	for (i = 0; i < d->n; i++)
		found += strcmp(d->line[i], "punt 0,iface=fpu0,rate=5,burst=2") == 0 ||
			 strcmp(d->line[i], "punt 1,iface=dpdkfou1,rate=10000,burst=1000") == 0;
	free(d);
	assert_int_equal(found, 2);
	/* a delete before the start, its given fields matching */
	EXPECT_DEL_ERR(gw, "punt", "1,iface=fpu0", -EINVAL, "iface: port 1's is dpdkfou1");
	EXPECT_DEL_ERR(gw, "punt", "1,rate=7", -EINVAL, "rate: port 1's is 10000");
	UNIT_DEL(gw, "punt", "1,iface=dpdkfou1,rate=10000,burst=1000");
	EXPECT_DEL_ERR(gw, "punt", "1", -ENOENT, "port 1 has no kernel interface");
	assert_int_equal(fou_punt_list(gw, pi, RTE_DIM(pi)), 1);
	/* once the ports run, a kernel interface would come too late */
	fou_gw_ports_running(gw);
	EXPECT_STMT_ERR(gw, "punt", "0,iface=other", -EBUSY, "at start only");
	EXPECT_DEL_ERR(gw, "punt", "0", -EBUSY, "goes when the gateway stops");
	assert_string_equal(fou_punt_name(FOU_PUNT_UP_TCP), "up_tcp");
	assert_null(fou_punt_name(FOU_PUNT_MAX));
}

static bool
dump_has(const struct dump_lines *d, const char *line)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (strcmp(d->line[i], line) == 0)
			return true;
	return false;
}

/* gw's dump applied to a fresh gateway dumps the same. A failed check
 * leaves that gateway to the next call, which frees it, so that the tests
 * after a failure still find memory for theirs. */
static void
expect_dump_reloads(const struct fou_gw *gw)
{
	struct dump_lines *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	static struct fou_gw *gw2;
	struct fou_err err;
	unsigned int i;

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(fou_config_dump(gw, dump_cb, a, &err), 0);
	fou_gw_free(gw2);
	setup_bare((void **)&gw2);
	for (i = 0; i < a->n; i++) {
		char *sp = strchr(a->line[i], ' ');

		*sp = '\0';
		UNIT_APPLY(gw2, a->line[i], sp + 1);
		*sp = ' ';
	}
	assert_int_equal(fou_config_dump(gw2, dump_cb, b, &err), 0);
	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++)
		assert_string_equal(a->line[i], b->line[i]);
	fou_gw_free(gw2);
	gw2 = NULL;
	free(a);
	free(b);
}

static void
test_config_dump(void **state)
{
	struct dump_lines *a = calloc(1, sizeof(*a));
	struct fou_gw *gw = *state;
	struct fou_err err;

	assert_non_null(a);
	UNIT_APPLY(gw, "tunnel", "every.opt,type=gre,local=192.168.1.1,remote=10.20.0.10,"
		   "ttl=9,tos=0x28,encap-sport=1234,encap-dport=5556,encap-csum,key=77,csum,seq");
	UNIT_APPLY(gw, "port", "6080:gue");
	UNIT_APPLY(gw, "tunnel", "gu,type=sit,local=192.168.1.1,remote=10.20.0.11,encap=gue,"
		   "encap-dport=6080,encap-csum,noencap-remcsum");
	UNIT_APPLY(gw, "tunnel", "p6,type=sit,local=10.0.0.1,remote=10.0.0.2,encap=none,"
		   "tos=inherit,nopmtudisc");
	UNIT_APPLY(gw, "route", "10.40.0.0/16,dev=every.opt");
	UNIT_APPLY(gw, "route", "::/0,dev=p6");
	UNIT_APPLY(gw, "route", "10.41.0.0/16,dev=1");
	/* a second route to a prefix, and another metric or weight */
	UNIT_APPLY(gw, "route", "10.41.0.0/16,dev=1,via=192.168.1.7,metric=9,weight=2");
	UNIT_APPLY(gw, "route", "::/0,dev=gu,weight=200");
	UNIT_APPLY(gw, "sport-range", "40000-50000");
	UNIT_APPLY(gw, "icmp-rate", "10,burst=3");
	UNIT_APPLY(gw, "link", "1,mtu=1400");
	/* addresses on tunnels, between ports' addresses */
	UNIT_APPLY(gw, "addr", "every.opt,192.168.4.1/30");
	UNIT_APPLY(gw, "addr", "0,10.1.0.1/24");
	UNIT_APPLY(gw, "addr", "p6,fd00:44::1/64");
	UNIT_APPLY(gw, "addr", "every.opt,fd00:45::1/64");
	UNIT_APPLY(gw, "addr", "every.opt,192.168.4.2/30");
	assert_int_equal(fou_config_dump(gw, dump_cb, a, &err), 0);
	assert_string_equal(a->line[0], "sport-range 40000-50000");
	assert_string_equal(a->line[1], "icmp-rate 10,burst=3");
	assert_string_equal(a->line[2], "link 0,address=02:00:00:00:00:01,mtu=1500");
	assert_string_equal(a->line[3], "link 1,address=02:00:00:00:01:01,mtu=1400");
	/* the ports' addresses first, the tunnels' after the tunnels, the
	 * routes after them (an address's network route is not listed) */
	assert_string_equal(a->line[4], "addr 0,10.0.0.1/24");
	assert_string_equal(a->line[7], "addr 0,10.1.0.1/24");
	assert_string_equal(a->line[a->n - 14], "tunnel p6,type=sit,local=10.0.0.1,"
			    "remote=10.0.0.2,tos=inherit,nopmtudisc,encap=none");
	assert_string_equal(a->line[a->n - 13], "addr every.opt,192.168.4.1/30");
	assert_string_equal(a->line[a->n - 12], "addr p6,fd00:44::1/64");
	assert_string_equal(a->line[a->n - 11], "addr every.opt,fd00:45::1/64");
	assert_string_equal(a->line[a->n - 10], "addr every.opt,192.168.4.2/30");
	assert_string_equal(a->line[a->n - 9], "route 10.20.0.0/16,dev=1,via=192.168.1.2");
	assert_string_equal(a->line[a->n - 3], "route 10.41.0.0/16,dev=1");
	assert_string_equal(a->line[a->n - 2],
			    "route 10.41.0.0/16,dev=1,via=192.168.1.7,metric=9,weight=2");
	assert_string_equal(a->line[a->n - 1], "route ::/0,dev=gu,weight=200");
	assert_string_equal(a->line[a->n - 15], "tunnel gu,type=sit,local=192.168.1.1,"
			    "remote=10.20.0.11,encap=gue,encap-dport=6080,encap-csum");
	assert_true(dump_has(a, "port 6080:gue"));
	free(a);
	expect_dump_reloads(gw);
}

/*
 * Commands that would leave a state its dump cannot rebuild (a route's
 * gateway or a tunnel's remote made a local address; the address a route's
 * gateway needs deleted) are refused: what the commands leave reloads.
 * A name starting with '-' is a delete.
 */
static void
expect_stmts_reload(struct fou_gw *gw, const char *const (*stmts)[2], unsigned int n)
{
	struct fou_err err;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (stmts[i][0][0] == '-')
			fou_stmt_del(gw, stmts[i][0] + 1, stmts[i][1], &err);
		else
			fou_stmt_apply(gw, stmts[i][0], stmts[i][1], &err);
	}
	expect_dump_reloads(gw);
}
#define EXPECT_STMTS_RELOAD(gw, s) expect_stmts_reload((gw), (s), RTE_DIM(s))

static void
test_reload_gateway_made_local(void **state)
{
	static const char *const s[][2] = {
		{ "route", "10.50.0.0/16,dev=1,via=192.168.1.4" },
		{ "route", "fd00:50::/64,dev=1,via=fd00:1::4" },
		{ "addr", "1,192.168.1.4/24" },
		{ "addr", "0,fd00:1::4/128" },
	};

	EXPECT_STMTS_RELOAD(*state, s);
}

static void
test_reload_remote_made_local(void **state)
{
	static const char *const s[][2] = {
		{ "tunnel", "t1,type=ipip,local=10.0.0.1,remote=10.0.0.2,encap-dport=5555" },
		{ "addr", "0,10.0.0.2/24" },
	};

	EXPECT_STMTS_RELOAD(*state, s);
}

static void
test_reload_gateway_net_deleted(void **state)
{
	static const char *const s[][2] = {
		{ "route", "10.51.0.0/16,dev=1,via=192.168.1.4" },
		{ "route", "fd00:51::/64,dev=1,via=fd00:1::4" },
		{ "-addr", "1,192.168.1.1/24" },
		{ "-addr", "1,fd00:1::1/64" },
	};

	EXPECT_STMTS_RELOAD(*state, s);
}

/* Counters: reset moves what fou_stats_get() shows, not the totals. */
static void
test_stats_reset(void **state)
{
	struct fou_gw *gw = *state;
	struct unit_frame *got = malloc(sizeof(*got));
	struct unit_lcore u = { 0 };
	struct fou_lcore_stats s;
	struct rte_mbuf *m;
	struct unit_pkt p;

	assert_non_null(got);
	unit_lcore_begin(&u, gw, 0);
	frame_to(&p, IP4(10, 0, 0, 1), IP4(10, 20, 0, 7));
	m = unit_mbuf(p.b, p.len);
	assert_int_equal(unit_burst(&u, &m, 1, got), 1);
	fou_stats_get(gw, -1, &s);
	assert_int_equal(s.decap_inner[FOU_INNER_IPV4], 1);
	fou_stats_reset(gw);
	fou_stats_get(gw, -1, &s);
	assert_int_equal(s.decap_inner[FOU_INNER_IPV4], 0);
	fou_stats_get(gw, (int)rte_lcore_id(), &s);
	assert_int_equal(s.decap_inner[FOU_INNER_IPV4], 0);
	m = unit_mbuf(p.b, p.len);
	assert_int_equal(unit_burst(&u, &m, 1, got), 1);
	unit_lcore_end(&u);
	fou_stats_get(gw, -1, &s);
	assert_int_equal(s.decap_inner[FOU_INNER_IPV4], 1);
	fou_stats_sum(gw, &s);
	assert_int_equal(s.decap_inner[FOU_INNER_IPV4], 2);
	assert_int_equal(fou_stats_get(gw, RTE_MAX_LCORE, &s), -EINVAL);
	free(got);
}

/*
 * A control operation returns only after every registered reader has
 * passed a quiescent state: the route is gone from the FIB while the
 * reader (this thread) has not reported, and the delete has not returned.
 */
struct del_thread {
	struct fou_gw *gw;
	int ret;
	unsigned int done;
};

static void *
del_thread_main(void *arg)
{
	struct del_thread *t = arg;
	struct fou_err err;

	t->ret = fou_stmt_del(t->gw, "route", "10.20.0.0/16", &err);
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void
test_grace_period(void **state)
{
	struct del_thread t = { .gw = *state };
	const unsigned int reader = RTE_MAX_LCORE - 1;
	struct fou_gw *gw = *state;
	struct unit_lcore u = { 0 };
	const rte_be32_t dst = rte_cpu_to_be_32(IP4(10, 20, 0, 7));
	const struct fou_nexthop *nh;
	pthread_t th;

	unit_lcore_begin_id(&u, gw, reader, 0);
	assert_int_equal(fou_lcore_start(u.lc), 0);
	assert_true(fou_lcore_is_reader(gw, reader));
	nh = fou_route4(gw, dst);
	assert_non_null(nh);
	assert_int_equal(nh->type, FOU_NH_GATEWAY);
	assert_int_equal(pthread_create(&th, NULL, del_thread_main, &t), 0);
	while (fou_route4(gw, dst) == nh)
		rte_pause();
	assert_int_equal(__atomic_load_n(&t.done, __ATOMIC_ACQUIRE), 0);
	fou_lcore_idle(u.lc, rte_rdtsc(), unit_emit_free, NULL);	/* a quiescent state */
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(t.done, 1);
	assert_int_equal(t.ret, 0);
	unit_lcore_end(&u);	/* fou_lcore_stop(), fou_lcore_free() */
}


/* --- limits: the table sizes -------------------------------------------------- */

/* fou_limits_parse() takes the keys given, within their bounds; a bad
 * argument names the key and its range and changes nothing. */
static void
test_limits_parse(void **state)
{
	static const struct {
		const char *arg, *msg;
	} bad[] = {
		{ "tunnels=1048577", "tunnels '1048577' is not in 0-1048576" },
		{ "tunnels=-1", "tunnels '-1' is not in 0-1048576" },
		{ "tunnels=1k", "tunnels '1k' is not in 0-1048576" },
		{ "routes4=0", "routes4 '0' is not in 1-16777216" },
		{ "routes6=16777217", "routes6 '16777217' is not in 1-16777216" },
		{ "neigh=0", "neigh '0' is not in 1-65536" },
		{ "neigh=65537", "neigh '65537' is not in 1-65536" },
		{ "tunnels=5,neigh=99999", "neigh '99999' is not in 1-65536" },
		{ "routes=5", "unknown parameter 'routes' (usage: [tunnels=N][,routes4=N]"
			      "[,routes6=N][,neigh=N])" },
		{ "tunnels", "unexpected 'tunnels'" },
		{ "tunnels=5,tunnels=6", "parameter 'tunnels' given twice" },
		{ "tunnels=", "parameter 'tunnels' has no value" },
		{ "tunnels=5,", "empty field" },
		{ "", "nothing to set (usage: [tunnels=N][,routes4=N][,routes6=N][,neigh=N])" },
	};
	struct fou_gw_params p, def;
	struct fou_err err;
	unsigned int i;

	(void)state;
	fou_gw_params_default(&def);
	for (i = 0; i < RTE_DIM(bad); i++) {
		unit_ctx("limits %s", bad[i].arg);
		p = def;
		err.msg[0] = '\0';
		assert_int_equal(fou_limits_parse(bad[i].arg, &p, &err), -EINVAL);
		if (strstr(err.msg, bad[i].msg) == NULL)
			fail_msg("limits %s: \"%s\" does not say \"%s\"", bad[i].arg, err.msg,
				 bad[i].msg);
		assert_memory_equal(&p, &def, sizeof(p));
	}
	/* the defaults are today's; the next hops follow the tunnels */
	assert_int_equal(def.max_tunnels, 1024);
	assert_int_equal(def.max_routes4, 65536);
	assert_int_equal(def.max_routes6, 65536);
	assert_int_equal(def.max_neighs, 4096);
	assert_int_equal(def.max_nexthops, 4096);
	p = def;
	assert_int_equal(fou_limits_parse("tunnels=65536,routes4=1048576", &p, &err), 0);
	assert_int_equal(p.max_tunnels, 65536);
	assert_int_equal(p.max_routes4, 1048576);
	assert_int_equal(p.max_routes6, 65536);
	assert_int_equal(p.max_neighs, 4096);
	assert_int_equal(p.max_nexthops, 2 * 65536 + 2048);
	/* a later statement changes the keys it names */
	assert_int_equal(fou_limits_parse("neigh=65536,routes6=1,tunnels=0", &p, &err), 0);
	assert_int_equal(p.max_tunnels, 0);
	assert_int_equal(p.max_routes4, 1048576);
	assert_int_equal(p.max_routes6, 1);
	assert_int_equal(p.max_neighs, 65536);
	assert_int_equal(p.max_nexthops, 2048);
	assert_int_equal(fou_limits_parse("routes4=16777216,tunnels=1048576", &p, &err), 0);
	assert_int_equal(p.max_routes4, 16777216);
	assert_int_equal(p.max_tunnels, 1048576);
}

/* Once the tables are made, limits is refused, whatever its argument, and
 * nothing changes. */
static void
test_limits_at_start_only(void **state)
{
	struct fou_gw *gw = *state;

	EXPECT_STMT_ERR(gw, "limits", "tunnels=5", -EBUSY, "limits can only be set at start");
	EXPECT_STMT_ERR(gw, "limits", "tunnels=1024", -EBUSY, "limits can only be set at start");
	EXPECT_STMT_ERR(gw, "limits", "neigh=0", -EBUSY, "limits can only be set at start");
	EXPECT_DEL_ERR(gw, "limits", "tunnels=5", -EOPNOTSUPP, "limits is set, not deleted");
	assert_null(fou_stmt_del_usage("limits"));
}

/* A gateway made with limits holds that much and no more, says so in
 * /fou/config (only what is not the default), and takes less memory. */
static void
test_limits_gateway(void **state)
{
	struct dump_lines *a = calloc(1, sizeof(*a));
	struct fou_gw_params p, got;
	struct fou_err err;
	struct fou_gw *gw, *def;
	char arg[128];
	unsigned int i;

	assert_non_null(a);
	fou_gw_params_default(&p);
	assert_int_equal(fou_limits_parse("tunnels=3,routes4=4,routes6=2,neigh=2", &p, &err), 0);
	gw = unit_gw_new(&p);
	*state = gw;
	fou_gw_params_get(gw, &got);
	assert_memory_equal(&got, &p, sizeof(p));
	assert_int_equal(fou_iface_set(gw, EG_PORT, &mac_eg, 1500, &err), 0);
	UNIT_APPLY(gw, "addr", "1,192.168.1.1/24");	/* 3 IPv4 routes */
	UNIT_APPLY(gw, "route", "10.1.0.0/16,dev=1,via=192.168.1.2");
	EXPECT_STMT_ERR(gw, "route", "10.2.0.0/16,dev=1", -ENOSPC,
			"cannot add route to 10.2.0.0/16: routing table full");
	UNIT_APPLY(gw, "route", "0.0.0.0/0,dev=1,via=192.168.1.2");	/* not in the table */
	UNIT_APPLY(gw, "addr", "1,fd00:1::1/64");	/* 2 IPv6 routes */
	EXPECT_STMT_ERR(gw, "route", "fd00:2::/32,dev=1", -ENOSPC, "routing table full");
	UNIT_APPLY(gw, "neigh", "192.168.1.2,dev=1,lladdr=02:00:00:00:01:02");
	UNIT_APPLY(gw, "neigh", "192.168.1.3,dev=1,lladdr=02:00:00:00:01:03");
	EXPECT_STMT_ERR(gw, "neigh", "192.168.1.4,dev=1,lladdr=02:00:00:00:01:04", -ENOSPC,
			"neighbour table full (at most 2, all static)");
	for (i = 0; i < 3; i++) {
		snprintf(arg, sizeof(arg), "t%u,type=ipip,local=192.168.1.1,remote=10.9.0.%u,"
			 "encap=none", i, i + 1);
		UNIT_APPLY(gw, "tunnel", arg);
	}
	EXPECT_STMT_ERR(gw, "tunnel", "t3,type=ipip,local=192.168.1.1,remote=10.9.0.9,encap=none",
			-ENOSPC, "too many tunnels (at most 3)");
	assert_int_equal(fou_config_dump(gw, dump_cb, a, &err), 0);
	assert_string_equal(a->line[0], "limits tunnels=3,routes4=4,routes6=2,neigh=2");
	assert_string_equal(a->line[1], "sport-range 32768-60999");

	/* the same sizes but one: only that one is written */
	free(a);
	a = calloc(1, sizeof(*a));
	assert_non_null(a);
	fou_gw_params_default(&p);
	assert_int_equal(fou_limits_parse("neigh=64", &p, &err), 0);
	def = unit_gw_new(&p);
	assert_int_equal(fou_config_dump(def, dump_cb, a, &err), 0);
	assert_string_equal(a->line[0], "limits neigh=64");
	/* the FIBs' first level alone (2^24 entries of 2 bytes, IPv4 and IPv6)
	 * is 64 MiB; the defaults take more than the small tables */
	assert_true(fou_gw_memsize(gw) >= 64u << 20);
	assert_true(fou_gw_memsize(def) > fou_gw_memsize(gw));
	fou_gw_free(def);
	free(a);
}

#define T_BARE(f) cmocka_unit_test_setup_teardown(f, setup_bare, teardown_gw)
#define T_ADDRS(f) cmocka_unit_test_setup_teardown(f, setup_addrs, teardown_gw)
#define T_STD(f) cmocka_unit_test_setup_teardown(f, setup_std, teardown_gw)
#define T_TUN(f) cmocka_unit_test_setup_teardown(f, setup_tun, teardown_gw)
#define T(f) cmocka_unit_test_teardown(f, unit_test_teardown_pool)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T_BARE(test_stmt_unknown),
		T_BARE(test_stmt_too_long),
		T(test_stmt_rank_usage),
		T(test_tel_cmds_from_stmts),
		T_BARE(test_tel_ready_window),
		T_ADDRS(test_stmt_empty_fields),
		T_BARE(test_gro_stmt),
		T_BARE(test_punt_stmt),
		T(test_parse_u32),
		T(test_parse_ip),
		T(test_parse_proto),
		T_BARE(test_port_valid),
		T_BARE(test_port_invalid),
		T_STD(test_port_duplicate),
		T_STD(test_port_family),
		T_BARE(test_port_table_full),
		T_BARE(test_port_gue),
		T_BARE(test_addr_valid),
		T_BARE(test_addr_invalid),
		T_ADDRS(test_addr_duplicate),
		T_ADDRS(test_addr_route_exists),
		T(test_addr_rollback_nexthops),
		T(test_addr_rollback_routes),
		T_ADDRS(test_route_valid),
		T_ADDRS(test_route_invalid),
		T_STD(test_route_duplicate),
		T(test_route_nexthops_full),
		T(test_route_table_full),
		T_ADDRS(test_neigh_valid),
		T_ADDRS(test_neigh_invalid),
		T_STD(test_neigh_duplicate),
		T_STD(test_link_valid),
		T_BARE(test_link_invalid),
		T_BARE(test_iface_set),
		T_TUN(test_tunnel_valid),
		T_TUN(test_tunnel_invalid),
		T_TUN(test_tunnel6_valid),
		T_TUN(test_tunnel6_invalid),
		T_TUN(test_tunnel_invalid_no_plain_rx),
		T_TUN(test_route_tunnel_invalid),
		T_STD(test_sport_range),
		T_STD(test_icmp_rate),
		T(test_gw_create_enomem),
		T_STD(test_del_port),
		T_STD(test_del_neigh),
		T_STD(test_neigh_cache),
		cmocka_unit_test_teardown(test_tables_hold_their_maximum, teardown_gw),
		T_STD(test_del_route),
		T_TUN(test_addr_in_use),
		T_TUN(test_del_addr),
		T_TUN(test_del_tunnel),
		T_TUN(test_tunaddr_add),
		T_TUN(test_tunaddr_add_invalid),
		cmocka_unit_test_teardown(test_tunaddr_add_rollback, teardown_gw),
		T_TUN(test_tunaddr_del),
		T_TUN(test_tunaddr_tunnel_del),
		T_TUN(test_tunaddr_forward),
		T_TUN(test_tunaddr_stmt),
		T_STD(test_del_set_only),
		T(test_del_recycles),
		T(test_no_tunnels),
		T_TUN(test_config_dump),
		T_ADDRS(test_reload_gateway_made_local),
		T_ADDRS(test_reload_remote_made_local),
		T_ADDRS(test_reload_gateway_net_deleted),
		T_STD(test_stats_reset),
		T_STD(test_grace_period),
		T(test_limits_parse),
		T_STD(test_limits_at_start_only),
		cmocka_unit_test_teardown(test_limits_gateway, teardown_gw),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("stmt", tests, NULL, NULL);
	return unit_eal_fini(failures);
}
