/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fou-microbench: cycles per packet of each stage of the data path, in
 * process, over bursts of FOU_BURST packets, as the tables grow.
 *
 * Stages (each one call of fou_lcore_rx() on a burst received on port 0):
 *   fwd    plain IPv4, classify + route + rewrite (the routing baseline)
 *   decap  FOU/IPIP from a tunnel's remote: classify + decap + route + rewrite
 *   encap  plain IPv4 routed into a tunnel: classify + route + encap + rewrite
 *   decap-gue  GUE (version 0, protocol 4) to the GUE port from a tunnel's
 *          remote: the decap stage with the GUE header's checks
 *   encap-gue  plain IPv4 routed into an encap gue tunnel (a GRE twin of
 *          each tunnel, added only when this stage runs)
 *   decap6 FOU/IPIP over IPv6 as Linux' ip6tnl sends it (the encap limit
 *          Destination Options before UDP, a UDP checksum) to the port over
 *          IPv6, from a source per tunnel, each matched to its ip6tnl (a
 *          twin of each tunnel, added only when this stage runs): the IPv6
 *          underlay's decap
 *   encap6 plain IPv4 routed into an ip6tnl (mode ipip6, encap fou, the
 *          defaults: encaplimit 4, UDP checksum over IPv6) twin of each
 *          tunnel, added only when this stage runs: the IPv6 underlay's encap
 *
 * Tables grow along two axes, one gateway built incrementally through the
 * control functions of fou.h: tunnels 1 -> 1k -> 64k at the smallest route
 * count, then routes 10 -> 10k -> 1M at the largest tunnel count. Flows are
 * spread over every tunnel and every route present (decap: outer source =
 * a tunnel's remote, inner destination in one of the routes; encap: inner
 * destination in a tunnel's own route; fwd: destination in a route).
 *
 * fou_lcore_rx() rewrites packets in place, so every burst is first reset
 * from templates (the first FOU_MB_HDR bytes; the rest of a packet is never
 * written): that reset is timed on its own and reported as reset_cyc, not
 * included in the stage. Cycles are TSC ticks between rte_rdtsc() reads,
 * minus the cost of the reads themselves.
 *
 * Output: CSV on stdout, progress on stderr. Under valgrind --tool=callgrind
 * the per-stage functions fou_mb_stage_<stage>() are what --toggle-collect
 * names (see bench/callgrind).
 *
 * --control times the control operations instead, through fou.h's
 * functions on a gateway made with --limits sized for them: the last
 * --tunnels count of tunnel adds, their routes, the last --routes count of
 * route adds (the stages' routes), as many static neighbours as the table
 * holds (at most the tunnels), then every delete. CSV: operation, count,
 * seconds, microseconds per operation.
 *
 * --check-mix shows that a burst decides nothing (see fou_mb_check_mix()):
 * a CSV line per outcome of a mix of every kind of packet, in bursts and
 * one packet per call; exit status 1 on any difference.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "fou.h"
#include "fou_stmt.h"

#define FOU_MB_MAX_LEVELS 8
#define FOU_MB_HDR 128		/* template bytes per flow: every header written */
#define FOU_MB_RING 32		/* bursts of mbufs cycled through, like an RX ring */
#define FOU_MB_FOU_PORT 5555
#define FOU_MB_GUE_PORT 6080
#define FOU_MB_GROUPS 3000	/* /24s that hold the routes longer than /24 */

enum fou_mb_stage {
	FOU_MB_FWD, FOU_MB_DECAP, FOU_MB_ENCAP, FOU_MB_DECAP_GUE, FOU_MB_ENCAP_GUE, FOU_MB_DECAP6,
	FOU_MB_ENCAP6, FOU_MB_STAGES
};
static const char *const fou_mb_stage_names[FOU_MB_STAGES] = {
	"fwd", "decap", "encap", "decap-gue", "encap-gue", "decap6", "encap6"
};

struct fou_mb_opts {
	uint32_t tunnels[FOU_MB_MAX_LEVELS], routes[FOU_MB_MAX_LEVELS];
	unsigned int nb_tunnels, nb_routes;
	bool stage[FOU_MB_STAGES];
	bool control;
	bool check_mix;
	bool huge;		/* EAL memory on hugepages (else 4 KB pages) */
	uint32_t flows, bursts, passes, inner_len, mem_mb;
};

/* One route of the grown table: prefix (host order) and length. */
struct fou_mb_route {
	uint32_t prefix;
	uint8_t plen;
};

struct fou_mb {
	struct fou_mb_opts o;
	struct fou_gw *gw;
	struct fou_lcore *lc;
	struct rte_mempool *mp;
	struct rte_mbuf *ring[FOU_MB_RING * FOU_BURST];
	uint8_t *tmpl;			/* flows x FOU_MB_HDR */
	uint16_t *tmpl_len;		/* frame length per flow */
	struct fou_mb_route *routes;
	uint32_t nb_tunnels, nb_routes;
	uint64_t depth_count[33];	/* routes of each length so far */
	unsigned int depth_turn;
	uint64_t tsc_overhead;
};

static const struct rte_ether_addr fou_mb_mac0 = { { 0x02, 0, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr fou_mb_mac1 = { { 0x02, 0, 0, 0, 1, 0x01 } };
static const struct rte_ether_addr fou_mb_peer0 = { { 0x02, 0, 0, 0, 0, 0x02 } };

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define FOU_MB_LOCAL0 IP4(10, 0, 0, 1)	/* port 0, 10.0.0.0/16: tunnels' local */
#define FOU_MB_GW0 IP4(10, 0, 0, 2)	/* port 0 next hop to the tunnel remotes */
#define FOU_MB_LOCAL1 IP4(10, 1, 0, 1)	/* port 1, 10.1.0.0/24 */
#define FOU_MB_GW1 IP4(10, 1, 0, 2)	/* port 1 next hop of every plain route */
#define FOU_MB_REMOTE(k) (IP4(100, 64, 0, 1) + (k))	/* tunnel k's remote */
#define FOU_MB_TUNNET(k) (IP4(11, 0, 0, 0) + ((k) << 8))	/* tunnel k's /24 */
#define FOU_MB_GUENET(k) (IP4(12, 0, 0, 0) + ((k) << 8))	/* its GUE twin's /24 */
#define FOU_MB_SIXNET(k) (IP4(13, 0, 0, 0) + ((k) << 8))	/* its ip6tnl twin's /24 */
#define FOU_MB_SRC(f) (IP4(198, 18, 0, 1) + ((f) & 0x1ffff))	/* flow sources */

static void
fou_mb_die(const char *what, const struct fou_err *err)
{
	fprintf(stderr, "fou-microbench: %s: %s\n", what, err != NULL ? err->msg : "");
	exit(1);
}

static struct fou_ip
fou_mb_ip4(uint32_t a, uint8_t plen)
{
	struct fou_ip ip = { .family = AF_INET, .plen = plen };

	ip.v4 = rte_cpu_to_be_32(a);
	return ip;
}

/* A 64-bit mix (splitmix64): deterministic spreading of flows. */
static uint64_t
fou_mb_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* --- the routes -------------------------------------------------------- */

/* First octets the plain routes use: not local (10, 11, 100), not the
 * tunnels' twins' (12, 13), not the flow sources (198), not the
 * long-prefix groups (200), nothing never routed. */
static unsigned int
fou_mb_octets(uint8_t *out)
{
	unsigned int n = 0, o;

	for (o = 1; o < 224; o++)
		if (o != 10 && o != 11 && o != 12 && o != 13 && o != 100 && o != 127 &&
		    o != 198 && o != 200)
			out[n++] = (uint8_t)o;
	return n;
}

/* Route lengths in the order they are handed out: every length gets its
 * share. (The mix dates from rte_lpm, which scanned the rules of one
 * length on every add, so that one length with a million rules took hours
 * to build; it stays so that the figures compare with the earlier ones.) */
static const uint8_t fou_mb_depths[] = {
	24, 16, 20, 28, 22, 18, 26, 32, 23, 17, 21, 25, 30, 19, 27, 31, 29,
	15, 14, 13, 12, 11, 10, 9,
};

static uint64_t
fou_mb_depth_space(uint8_t d)
{
	uint8_t oct[256];

	if (d > 24)
		return (uint64_t)FOU_MB_GROUPS << (d - 24);
	return (uint64_t)fou_mb_octets(oct) << (d - 8);
}

/* The j-th prefix of length d: j * P mod space is a bijection of [0, space)
 * (P = 2654435761 is prime, so coprime with every space), so none repeats. */
static uint32_t
fou_mb_prefix(uint8_t d, uint64_t j)
{
	uint64_t space = fou_mb_depth_space(d), x = (j * 2654435761ull) % space;
	uint8_t oct[256];

	if (d > 24) {
		uint64_t g = x >> (d - 24), sub = x & ((1ull << (d - 24)) - 1);

		return IP4(200, 0, 0, 0) + (uint32_t)(g << 8) + (uint32_t)(sub << (32 - d));
	}
	fou_mb_octets(oct);
	return (uint32_t)oct[x >> (d - 8)] << 24 | (uint32_t)((x & ((1ull << (d - 8)) - 1))
							       << (32 - d));
}

static struct fou_mb_route
fou_mb_route_next(struct fou_mb *b)
{
	unsigned int tries;

	for (tries = 0; tries < RTE_DIM(fou_mb_depths); tries++) {
		uint8_t d = fou_mb_depths[b->depth_turn++ % RTE_DIM(fou_mb_depths)];

		if (b->depth_count[d] < fou_mb_depth_space(d))
			return (struct fou_mb_route){ fou_mb_prefix(d, b->depth_count[d]++), d };
	}
	fou_mb_die("route space exhausted", NULL);
	return (struct fou_mb_route){ 0, 0 };
}

static void
fou_mb_grow_routes(struct fou_mb *b, uint32_t n)
{
	struct fou_ip via = fou_mb_ip4(FOU_MB_GW1, 32);
	struct fou_err err;

	for (; b->nb_routes < n; b->nb_routes++) {
		struct fou_mb_route r = fou_mb_route_next(b);
		struct fou_ip p = fou_mb_ip4(r.prefix, r.plen);

		if (fou_route_add(b->gw, &p, 1, &via, &err) != 0)
			fou_mb_die("route", &err);
		b->routes[b->nb_routes] = r;
	}
}

/* --- the tunnels ------------------------------------------------------- */

/* Tunnel k's configuration: FOU/IPIP to its own remote. */
static void
fou_mb_tunnel_conf(struct fou_tunnel_conf *c, uint32_t k)
{
	fou_tunnel_conf_default(c);
	snprintf(c->name, sizeof(c->name), "t%u", k);
	c->type = IPPROTO_IPIP;
	c->local = fou_mb_ip4(FOU_MB_LOCAL0, 32);
	c->remote = fou_mb_ip4(FOU_MB_REMOTE(k), 32);
	c->encap_dport = FOU_MB_FOU_PORT;
}

/* Tunnel k and the route of its /24 into it; with gue, its twin: GRE with
 * encap gue to the same remote, and the route of its own /24; with v6, an
 * ip6tnl (mode ipip6, encap fou) from decap6's source fd00:ff::1:K, so
 * that those packets are matched to a tunnel as over IPv4. */
static void
fou_mb_tunnel_add(struct fou_gw *gw, uint32_t k, bool gue, bool v6)
{
	struct fou_ip net = fou_mb_ip4(FOU_MB_TUNNET(k), 24);
	struct fou_tunnel_conf c;
	struct fou_err err;

	fou_mb_tunnel_conf(&c, k);
	if (fou_tunnel_add(gw, &c, &err) != 0 || fou_route_add_tunnel(gw, &net, c.name, &err) != 0)
		fou_mb_die("tunnel", &err);
	if (v6) {
		struct fou_tunnel_conf c6;

		fou_tunnel_conf_default6(&c6);
		snprintf(c6.name, sizeof(c6.name), "r%u", k);
		c6.type = IPPROTO_IPIP;
		c6.encap = FOU_ENCAP_FOU;
		c6.encap_dport = FOU_MB_FOU_PORT;
		c6.local.plen = c6.remote.plen = 128;
		memcpy(c6.local.v6, "\xfd\x00\x00\xff\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
		memcpy(c6.remote.v6, c6.local.v6, 13);
		c6.remote.v6[13] = 1;
		c6.remote.v6[14] = (uint8_t)(k >> 8);
		c6.remote.v6[15] = (uint8_t)k;
		if (fou_tunnel_add(gw, &c6, &err) != 0)
			fou_mb_die("ip6tnl", &err);
	}
	if (!gue)
		return;
	snprintf(c.name, sizeof(c.name), "u%u", k);
	c.type = IPPROTO_GRE;
	c.encap = FOU_ENCAP_GUE;
	c.encap_dport = FOU_MB_GUE_PORT;
	net = fou_mb_ip4(FOU_MB_GUENET(k), 24);
	if (fou_tunnel_add(gw, &c, &err) != 0 || fou_route_add_tunnel(gw, &net, c.name, &err) != 0)
		fou_mb_die("gue tunnel", &err);
}

/* Tunnel k's ip6tnl twin: from fd00:ff::1 to fd00:fe::K (K + 1 in the last
 * 32 bits: 65536 tunnels need them; routed via one
 * neighbour), the route of its own /24 into it. */
static void
fou_mb_tunnel6_add(struct fou_gw *gw, uint32_t k)
{
	struct fou_ip net = fou_mb_ip4(FOU_MB_SIXNET(k), 24);
	struct fou_tunnel_conf c;
	struct fou_err err;
	char a[INET6_ADDRSTRLEN];

	fou_tunnel_conf_default6(&c);
	snprintf(c.name, sizeof(c.name), "s%u", k);
	c.type = IPPROTO_IPIP;
	if (fou_parse_ip("fd00:ff::1", false, &c.local, &err) != 0)
		fou_mb_die("local", &err);
	snprintf(a, sizeof(a), "fd00:fe::%x:%x", (k + 1) >> 16, (k + 1) & 0xffff);
	if (fou_parse_ip(a, false, &c.remote, &err) != 0)
		fou_mb_die("remote", &err);
	c.encap_dport = FOU_MB_FOU_PORT;
	if (fou_tunnel_add(gw, &c, &err) != 0 || fou_route_add_tunnel(gw, &net, c.name, &err) != 0)
		fou_mb_die("ip6tnl tunnel", &err);
}

static void
fou_mb_grow_tunnels(struct fou_mb *b, uint32_t n)
{
	for (; b->nb_tunnels < n; b->nb_tunnels++) {
		fou_mb_tunnel_add(b->gw, b->nb_tunnels, b->o.stage[FOU_MB_ENCAP_GUE],
				  b->o.stage[FOU_MB_DECAP6]);
		if (b->o.stage[FOU_MB_ENCAP6])
			fou_mb_tunnel6_add(b->gw, b->nb_tunnels);
	}
}

/* --- the gateway ------------------------------------------------------- */

static void
fou_mb_stmt(struct fou_gw *gw, const char *name, const char *arg)
{
	struct fou_err err;
	char what[128];

	if (fou_stmt_apply(gw, name, arg, &err) != 0) {
		snprintf(what, sizeof(what), "--%s %s", name, arg);
		fou_mb_die(what, &err);
	}
}

/* A gateway with the ports, addresses, neighbours and routes every
 * measurement starts from, and no tunnel. */
static struct fou_gw *
fou_mb_gw_new(const struct fou_mb *b)
{
	struct fou_gw_params p;
	struct fou_err err;
	struct fou_gw *gw;
	/* the GUE and ip6tnl twins add tunnels (and routes) */
	uint32_t max_t = b->o.tunnels[b->o.nb_tunnels - 1] *
			 (1 + b->o.stage[FOU_MB_ENCAP_GUE] + b->o.stage[FOU_MB_ENCAP6] +
			  b->o.stage[FOU_MB_DECAP6]);
	uint32_t max_r = b->o.routes[b->o.nb_routes - 1];
	char limits[128];

	/* as a user sizes the tables: --limits */
	fou_gw_params_default(&p);
	snprintf(limits, sizeof(limits), "tunnels=%u,routes4=%u,neigh=%u", max_t,
		 max_r + max_t + 64, RTE_MIN(RTE_MAX(max_t, 64u), (uint32_t)FOU_LIMIT_NEIGH_MAX));
	if (fou_limits_parse(limits, &p, &err) != 0)
		fou_mb_die(limits, &err);
	p.socket_id = (int)rte_socket_id();
	gw = fou_gw_create(&p, &err);
	if (gw == NULL)
		fou_mb_die("gateway", &err);
	if (fou_iface_set(gw, 0, &fou_mb_mac0, RTE_ETHER_MTU, &err) != 0 ||
	    fou_iface_set(gw, 1, &fou_mb_mac1, RTE_ETHER_MTU, &err) != 0)
		fou_mb_die("ports", &err);
	fou_mb_stmt(gw, "port", "5555:ipip");
	fou_mb_stmt(gw, "port", "6080:gue");
	fou_mb_stmt(gw, "port", "5555:ipip,family=6");
	fou_mb_stmt(gw, "addr", "0,fd00:ff::1/64");
	fou_mb_stmt(gw, "addr", "0,10.0.0.1/16");
	fou_mb_stmt(gw, "addr", "1,10.1.0.1/24");
	fou_mb_stmt(gw, "neigh", "10.0.0.2,dev=0,lladdr=02:00:00:00:00:02");
	fou_mb_stmt(gw, "neigh", "10.1.0.2,dev=1,lladdr=02:00:00:00:01:02");
	fou_mb_stmt(gw, "route", "100.64.0.0/10,dev=0,via=10.0.0.2");
	/* the ip6tnl twins' remotes */
	fou_mb_stmt(gw, "neigh", "fd00:ff::2,dev=0,lladdr=02:00:00:00:00:02");
	fou_mb_stmt(gw, "route", "fd00:fe::/32,dev=0,via=fd00:ff::2");
	return gw;
}

static struct fou_lcore *
fou_mb_lcore_new(struct fou_mb *b, struct fou_gw *gw)
{
	struct fou_err err;
	struct fou_lcore *lc = fou_lcore_create(gw, rte_lcore_id(), &(struct fou_lcore_conf){
		.direct = b->mp, .indirect = b->mp, .socket_id = (int)rte_socket_id() }, &err);

	if (lc == NULL)
		fou_mb_die("lcore context", &err);
	return lc;
}

static void
fou_mb_gw_create(struct fou_mb *b)
{
	b->gw = fou_mb_gw_new(b);
	b->lc = fou_mb_lcore_new(b, b->gw);
	b->routes = calloc(b->o.routes[b->o.nb_routes - 1], sizeof(*b->routes));
	if (b->routes == NULL)
		fou_mb_die("out of memory", NULL);
}

/* --- packets ----------------------------------------------------------- */

/* IPv4 + UDP of len bytes (the IP packet), the rest zero. */
static uint8_t *
fou_mb_ip_udp(uint8_t *p, uint32_t src, uint32_t dst, uint16_t len, uint16_t sport,
	      uint16_t dport)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(len);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dst_port = rte_cpu_to_be_16(dport);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - sizeof(*ip)));
	udp->dgram_cksum = 0;
	return (uint8_t *)(udp + 1);
}

/*
 * FOU/IPIP over IPv6 from fd00:ff::100:K (tunnel k's source) to our
 * fd00:ff::1, as Linux' ip6tnl sends it by default: the Destination Options
 * header with the Tunnel Encapsulation Limit option (4) before UDP, and a
 * UDP checksum; the inner IPv4 + UDP to dst, in_len bytes. The frame's
 * length.
 */
static uint16_t
fou_mb_frame6(uint8_t *p, uint32_t k, uint64_t h, uint32_t dst, uint16_t sport, uint16_t in_len)
{
	static const uint8_t tel[8] = { IPPROTO_UDP, 0, 4, 1, 4, 1, 1, 0 };
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)p;
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(eth + 1);
	uint8_t *opt = (uint8_t *)(ip6 + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(opt + sizeof(tel));
	const uint16_t ulen = (uint16_t)(sizeof(*udp) + in_len);
	uint32_t sum;

	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	memset(ip6, 0, sizeof(*ip6));
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)(h & 0xfffff));
	ip6->payload_len = rte_cpu_to_be_16((uint16_t)(sizeof(tel) + ulen));
	ip6->proto = IPPROTO_DSTOPTS;
	ip6->hop_limits = 64;
	ip6->src_addr[0] = 0xfd;
	ip6->src_addr[3] = 0xff;
	ip6->src_addr[13] = 1;
	ip6->src_addr[14] = (uint8_t)(k >> 8);
	ip6->src_addr[15] = (uint8_t)k;
	memcpy(ip6->dst_addr, ip6->src_addr, 13);
	ip6->dst_addr[13] = 0;
	ip6->dst_addr[15] = 1;
	memcpy(opt, tel, sizeof(tel));
	udp->src_port = rte_cpu_to_be_16((uint16_t)(49152 + (h & 0x3fff)));
	udp->dst_port = rte_cpu_to_be_16(FOU_MB_FOU_PORT);
	udp->dgram_len = rte_cpu_to_be_16(ulen);
	udp->dgram_cksum = 0;
	fou_mb_ip_udp((uint8_t *)(udp + 1), FOU_MB_SRC((uint32_t)h), dst, in_len, sport, 9);
	/* over the pseudo-header (addresses, length, next header UDP) */
	sum = __rte_raw_cksum(ip6->src_addr, 32, 0) + rte_cpu_to_be_16(ulen) +
	      rte_cpu_to_be_16(IPPROTO_UDP);
	sum = __rte_raw_cksum(udp, ulen, sum);
	udp->dgram_cksum = (uint16_t)~__rte_raw_cksum_reduce(sum);
	if (udp->dgram_cksum == 0)
		udp->dgram_cksum = 0xffff;
	return (uint16_t)((uint8_t *)(udp + 1) - p + in_len);
}

/* A destination inside route r. */
static uint32_t
fou_mb_route_dst(const struct fou_mb_route *r, uint64_t h)
{
	uint32_t host = r->plen == 32 ? 0 : (uint32_t)h & (UINT32_MAX >> r->plen);

	return r->prefix | host;
}

/* The frame of flow f for a stage, its inner IP packet in_len bytes;
 * returns its length. */
static uint16_t
fou_mb_frame_len(const struct fou_mb *b, enum fou_mb_stage s, uint32_t f, uint8_t *p,
		 uint16_t in_len)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)p;
	uint64_t h = fou_mb_mix(f);
	uint32_t k = (uint32_t)(h % b->nb_tunnels), dst;
	uint16_t sport = (uint16_t)(1024 + (h >> 48) % 60000);
	uint8_t *ip = p + sizeof(*eth);

	rte_ether_addr_copy(&fou_mb_mac0, &eth->dst_addr);
	rte_ether_addr_copy(&fou_mb_peer0, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	if (s == FOU_MB_ENCAP)
		dst = FOU_MB_TUNNET(k) | (uint32_t)(1 + (h >> 32) % 254);
	else if (s == FOU_MB_ENCAP_GUE)
		dst = FOU_MB_GUENET(k) | (uint32_t)(1 + (h >> 32) % 254);
	else if (s == FOU_MB_ENCAP6)
		dst = FOU_MB_SIXNET(k) | (uint32_t)(1 + (h >> 32) % 254);
	else
		dst = fou_mb_route_dst(&b->routes[(h >> 20) % b->nb_routes], h >> 24);
	if (s == FOU_MB_DECAP || s == FOU_MB_DECAP_GUE) {
		const bool gue = s == FOU_MB_DECAP_GUE;
		uint16_t outer = (uint16_t)(in_len + sizeof(struct rte_ipv4_hdr) +
					    sizeof(struct rte_udp_hdr) + (gue ? 4 : 0));

		ip = fou_mb_ip_udp(ip, FOU_MB_REMOTE(k), FOU_MB_LOCAL0, outer,
				   (uint16_t)(49152 + (h & 0x3fff)),
				   gue ? FOU_MB_GUE_PORT : FOU_MB_FOU_PORT);
		((struct rte_ipv4_hdr *)(p + sizeof(*eth)))->type_of_service = 0;
		if (gue) {
			/* GUE version 0, protocol 4, no flags */
			memcpy(ip, "\x00\x04\x00\x00", 4);
			ip += 4;
		}
	}
	if (s == FOU_MB_DECAP6)
		return fou_mb_frame6(p, k, h, dst, sport, in_len);
	fou_mb_ip_udp(ip, FOU_MB_SRC(f), dst, in_len, sport, 9);
	return (uint16_t)(ip - p + in_len);
}

static uint16_t
fou_mb_frame(const struct fou_mb *b, enum fou_mb_stage s, uint32_t f, uint8_t *p)
{
	return fou_mb_frame_len(b, s, f, p, (uint16_t)b->o.inner_len);
}

static void
fou_mb_templates(struct fou_mb *b, enum fou_mb_stage s)
{
	uint32_t f;

	for (f = 0; f < b->o.flows; f++) {
		uint8_t frame[FOU_MB_HDR + 64];

		memset(frame, 0, sizeof(frame));
		b->tmpl_len[f] = fou_mb_frame(b, s, f, frame);
		memcpy(b->tmpl + (size_t)f * FOU_MB_HDR, frame, FOU_MB_HDR);
	}
}

/* Put a burst back to what was received: the stage writes in place. */
static __rte_noinline void
fou_mb_reset(const struct fou_mb *b, struct rte_mbuf **pkts, uint32_t first_flow)
{
	unsigned int i;

	for (i = 0; i < FOU_BURST; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t f = (first_flow + i) % b->o.flows;
		uint16_t len = b->tmpl_len[f];

		m->data_off = RTE_PKTMBUF_HEADROOM;
		m->data_len = len;
		m->pkt_len = len;
		m->ol_flags = 0;
		m->packet_type = 0;
		rte_memcpy(rte_pktmbuf_mtod(m, void *), b->tmpl + (size_t)f * FOU_MB_HDR,
			   RTE_MIN(len, FOU_MB_HDR));
	}
}

/* --- the stages: one function each, so that callgrind can name them ---- */

/* The forwarded packets stay where they are: the next pass resets them. */
static void
fou_mb_emit(void *ctx __rte_unused, struct rte_mbuf **pkts __rte_unused,
	    const uint16_t *ports __rte_unused, uint16_t n __rte_unused)
{
}

#define FOU_MB_STAGE_FN(name) \
	static __rte_noinline uint16_t \
	fou_mb_stage_##name(struct fou_mb *b, struct rte_mbuf **pkts) \
	{ \
		return fou_lcore_rx(b->lc, 0, pkts, FOU_BURST, 0, fou_mb_emit, NULL); \
	}
FOU_MB_STAGE_FN(fwd)
FOU_MB_STAGE_FN(decap)
FOU_MB_STAGE_FN(encap)
FOU_MB_STAGE_FN(decap_gue)
FOU_MB_STAGE_FN(encap_gue)
FOU_MB_STAGE_FN(decap6)
FOU_MB_STAGE_FN(encap6)
#undef FOU_MB_STAGE_FN

typedef uint16_t (*fou_mb_stage_fn)(struct fou_mb *b, struct rte_mbuf **pkts);
static const fou_mb_stage_fn fou_mb_stage_fns[FOU_MB_STAGES] = {
	fou_mb_stage_fwd, fou_mb_stage_decap, fou_mb_stage_encap, fou_mb_stage_decap_gue,
	fou_mb_stage_encap_gue, fou_mb_stage_decap6, fou_mb_stage_encap6,
};

/* A packet the stage did not forward: name the counter, stop. */
static void
fou_mb_check(const struct fou_mb *b, enum fou_mb_stage s, uint16_t nf)
{
	struct fou_lcore_stats sum;
	unsigned int d;

	if (nf == FOU_BURST)
		return;
	fou_stats_sum(b->gw, &sum);
	for (d = 0; d < FOU_DROP_MAX; d++)
		if (sum.drop[d] != 0)
			fprintf(stderr, "fou-microbench: %s: drop %s: %" PRIu64 "\n",
				fou_mb_stage_names[s], fou_drop_name(d), sum.drop[d]);
	fou_mb_die("a packet was not forwarded: the benchmark measures the forwarding path", NULL);
}

struct fou_mb_pass {
	uint64_t stage, reset, pkts;
};

static struct fou_mb_pass
fou_mb_pass(struct fou_mb *b, enum fou_mb_stage s, uint32_t *flow)
{
	struct fou_mb_pass r = { 0, 0, 0 };
	uint32_t i;

	for (i = 0; i < b->o.bursts; i++) {
		struct rte_mbuf **pkts = &b->ring[(i % FOU_MB_RING) * FOU_BURST];
		uint64_t t0, t1, t2;
		uint16_t nf;

		t0 = rte_rdtsc();
		fou_mb_reset(b, pkts, *flow);
		t1 = rte_rdtsc();
		nf = fou_mb_stage_fns[s](b, pkts);
		t2 = rte_rdtsc();
		fou_mb_check(b, s, nf);
		*flow = (*flow + FOU_BURST) % b->o.flows;
		r.reset += t1 - t0 - b->tsc_overhead;
		r.stage += t2 - t1 - b->tsc_overhead;
		r.pkts += FOU_BURST;
	}
	return r;
}

static int
fou_mb_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, c = *(const double *)y;

	return a < c ? -1 : a > c;
}

/* One stage at the current table sizes: a warm-up pass, then passes whose
 * median is reported (other processes share the CPUs). */
static void
fou_mb_measure(struct fou_mb *b, enum fou_mb_stage s)
{
	double cyc[64], rst[64];
	uint32_t flow = 0, p, n = RTE_MIN(b->o.passes, RTE_DIM(cyc));
	uint64_t pkts = 0;

	fou_mb_templates(b, s);
	fou_mb_pass(b, s, &flow);
	for (p = 0; p < n; p++) {
		struct fou_mb_pass r = fou_mb_pass(b, s, &flow);

		cyc[p] = (double)r.stage / (double)r.pkts;
		rst[p] = (double)r.reset / (double)r.pkts;
		pkts += r.pkts;
	}
	qsort(cyc, n, sizeof(cyc[0]), fou_mb_cmp_double);
	qsort(rst, n, sizeof(rst[0]), fou_mb_cmp_double);
	printf("%s,%u,%u,%u,%u,%" PRIu64 ",%.1f,%.1f,%.1f,%.0f\n", fou_mb_stage_names[s],
	       b->nb_tunnels, b->nb_routes, b->o.inner_len, b->o.flows, pkts, cyc[n / 2], cyc[0],
	       rst[n / 2], (double)rte_get_tsc_hz() / 1e6);
	fflush(stdout);
}

static double
fou_mb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
fou_mb_level(struct fou_mb *b, uint32_t tunnels, uint32_t routes)
{
	double t0 = fou_mb_now();
	unsigned int s;

	fou_mb_grow_tunnels(b, tunnels);
	fou_mb_grow_routes(b, routes);
	fprintf(stderr, "fou-microbench: %u tunnels, %u routes (built in %.1f s)\n", tunnels,
		routes, fou_mb_now() - t0);
	for (s = 0; s < FOU_MB_STAGES; s++)
		if (b->o.stage[s])
			fou_mb_measure(b, s);
}

/* The cost of the two rte_rdtsc() reads around a stage. */
static uint64_t
fou_mb_tsc_overhead(void)
{
	uint64_t best = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < 1000; i++) {
		uint64_t t0 = rte_rdtsc(), t1 = rte_rdtsc();

		best = RTE_MIN(best, t1 - t0);
	}
	return best;
}

static void
fou_mb_mbufs(struct fou_mb *b)
{
	unsigned int i;

	b->mp = rte_pktmbuf_pool_create("fou_mb", RTE_DIM(b->ring) + 64, 0, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (b->mp == NULL || rte_pktmbuf_alloc_bulk(b->mp, b->ring, RTE_DIM(b->ring)) != 0)
		fou_mb_die("mbufs", NULL);
	for (i = 0; i < RTE_DIM(b->ring); i++)
		memset(rte_pktmbuf_mtod(b->ring[i], void *), 0, b->o.inner_len + 64);
	b->tmpl = rte_zmalloc("fou_mb_tmpl", (size_t)b->o.flows * FOU_MB_HDR,
			      RTE_CACHE_LINE_SIZE);
	b->tmpl_len = calloc(b->o.flows, sizeof(*b->tmpl_len));
	if (b->tmpl == NULL || b->tmpl_len == NULL)
		fou_mb_die("templates: out of memory", NULL);
}

/* --- --check-mix: a burst decides nothing ---------------------------------- */

/*
 * The receive path looks a burst's tunnels and routes up together before
 * it handles the packets one by one (fou_rx.c); what becomes of a packet
 * must not depend on the packets it shares a burst with. A mix of every
 * kind of packet the stages see and of packets that end otherwise
 * (dropped for many reasons, answered with ICMP, taken in) goes through
 * one gateway in bursts of FOU_BURST, and through a second one built the
 * same way one packet per call; both must forward the same packets to the
 * same ports with the same bytes and count the same, and every packet must
 * end as its kind says. Twice: with ICMP errors sent (a bucket that
 * cannot run out during the check), and with none (each due error dropped
 * under its own reason).
 */
#define FOU_MB_MIX_BURSTS 16
#define FOU_MB_MIX_PKTS (FOU_MB_MIX_BURSTS * FOU_BURST)
#define FOU_MB_FRAME_MAX 1536
#define FOU_MB_MIX_REPORT 20	/* differences printed, at most */

/* CUT: fragmented on its way out (into FOU_MB_BIG_PIECES fragments, each
 * encapsulated): what leaves is new mbufs, compared in order between the
 * two gateways, not the packet itself */
enum fou_mb_fate { FOU_MB_SENT, FOU_MB_DROPPED, FOU_MB_TAKEN_IN, FOU_MB_CUT };

/* 1480 bytes into a tunnel of MTU 1472: 1448 bytes of payload, then 12 */
#define FOU_MB_BIG_PIECES 2
/* room for the fragments of a round: every packet cut would be too many */
#define FOU_MB_MIX_FRAGS (FOU_MB_MIX_PKTS * FOU_MB_BIG_PIECES)

enum fou_mb_kind {
	FOU_MB_K_FWD, FOU_MB_K_DECAP, FOU_MB_K_ENCAP, FOU_MB_K_NO_TUNNEL, FOU_MB_K_TTL_BACK,
	FOU_MB_K_TTL, FOU_MB_K_INNER_TTL, FOU_MB_K_CKSUM, FOU_MB_K_INNER_CKSUM,
	FOU_MB_K_NOROUTE_BACK, FOU_MB_K_NOROUTE, FOU_MB_K_OTHER_MAC, FOU_MB_K_NOT_IP,
	FOU_MB_K_PORT_UNREACH, FOU_MB_K_PING, FOU_MB_K_DF_BIG, FOU_MB_K_BIG, FOU_MB_K_ARP_REQ,
	FOU_MB_K_ARP_REP, FOU_MB_K_TRUNC, FOU_MB_K_UDP_CKSUM, FOU_MB_K_MARTIAN, FOU_MB_K_BCAST,
	FOU_MB_K_ECN, FOU_MB_KINDS
};

/* What must become of a kind of packet. */
struct fou_mb_kind_fate {
	const char *name;
	enum fou_mb_fate fate;
	int what;		/* FWD: the port; DROP: the reason */
	int icmp;		/* FWD: the ICMP message it leaves as; -1: itself */
	int off;		/* ICMP errors off: the reason it is dropped under; -1: as with them */
	bool decap;		/* counted as decapsulated */
	bool encap;		/* encapsulated into a tunnel */
};

static const struct fou_mb_kind_fate fou_mb_kinds[FOU_MB_KINDS] = {
	[FOU_MB_K_FWD] = { "fwd flow: routed to port 1", FOU_MB_SENT, 1, -1, -1, false, false },
	[FOU_MB_K_DECAP] = { "decap flow: decapsulated, routed to port 1", FOU_MB_SENT, 1, -1, -1,
			     true, false },
	[FOU_MB_K_ENCAP] = { "encap flow: into its tunnel, out of port 0", FOU_MB_SENT, 0, -1, -1,
			     false, true },
	[FOU_MB_K_NO_TUNNEL] = { "decap flow from no tunnel's remote", FOU_MB_DROPPED,
				 FOU_DROP_NO_TUNNEL, -1, -1, false, false },
	[FOU_MB_K_TTL_BACK] = { "fwd flow from 10.0.0.2, TTL 1: time exceeded", FOU_MB_SENT, 0,
				FOU_ICMP_TIME_EXCEEDED, FOU_DROP_TTL_EXCEEDED, false, false },
	[FOU_MB_K_TTL] = { "fwd flow, TTL 1, no way back", FOU_MB_DROPPED, FOU_DROP_TTL_EXCEEDED, -1,
			   -1, false, false },
	[FOU_MB_K_INNER_TTL] = { "decap flow, inner TTL 1, no way back", FOU_MB_DROPPED,
				 FOU_DROP_TTL_EXCEEDED, -1, -1, true, false },
	[FOU_MB_K_CKSUM] = { "fwd flow, IPv4 header checksum wrong", FOU_MB_DROPPED,
			     FOU_DROP_IP_CKSUM_BAD, -1, -1, false, false },
	[FOU_MB_K_INNER_CKSUM] = { "decap flow, inner IPv4 header checksum wrong", FOU_MB_DROPPED,
				   FOU_DROP_INNER_CKSUM_BAD, -1, -1, false, false },
	[FOU_MB_K_NOROUTE_BACK] = { "from 10.0.0.2 to 198.51.100.0/24: net unreachable",
				    FOU_MB_SENT, 0, FOU_ICMP_NET_UNREACH, FOU_DROP_NO_ROUTE, false,
				    false },
	[FOU_MB_K_NOROUTE] = { "to 198.51.100.0/24, no way back", FOU_MB_DROPPED, FOU_DROP_NO_ROUTE,
			       -1, -1, false, false },
	[FOU_MB_K_OTHER_MAC] = { "fwd flow to another MAC", FOU_MB_DROPPED, FOU_DROP_ETH_OTHER_HOST,
				 -1, -1, false, false },
	[FOU_MB_K_NOT_IP] = { "ethertype 0x88b5", FOU_MB_DROPPED, FOU_DROP_NOT_IP, -1, -1, false,
			      false },
	[FOU_MB_K_PORT_UNREACH] = { "UDP from 10.0.0.2 to 10.0.0.1 port 9: port unreachable",
				    FOU_MB_SENT, 0, FOU_ICMP_PORT_UNREACH,
				    FOU_DROP_FOU_PORT_UNKNOWN, false, false },
	[FOU_MB_K_PING] = { "ping of 10.0.0.1 from 10.0.0.2", FOU_MB_SENT, 0, FOU_ICMP_ECHO_REPLY,
			    -1, false, false },
	[FOU_MB_K_DF_BIG] = { "encap flow from 10.0.0.2, 1480 bytes, DF: fragmentation needed",
			      FOU_MB_SENT, 0, FOU_ICMP_FRAG_NEEDED, FOU_DROP_MTU_EXCEEDED, false,
			      false },
	[FOU_MB_K_BIG] = { "encap flow, 1480 bytes, no DF: cut in two", FOU_MB_CUT, 0, -1,
			   -1, false, false },
	[FOU_MB_K_ARP_REQ] = { "ARP request for 10.0.0.1: answered", FOU_MB_SENT, 0, -1, -1, false,
			       false },
	[FOU_MB_K_ARP_REP] = { "ARP reply from 10.0.0.2: taken in", FOU_MB_TAKEN_IN, 0, -1, -1,
			       false, false },
	[FOU_MB_K_TRUNC] = { "fwd flow cut inside its IPv4 header", FOU_MB_DROPPED,
			     FOU_DROP_IP_TRUNCATED, -1, -1, false, false },
	[FOU_MB_K_UDP_CKSUM] = { "decap flow, UDP checksum wrong", FOU_MB_DROPPED,
				 FOU_DROP_UDP_CKSUM_BAD, -1, -1, false, false },
	[FOU_MB_K_MARTIAN] = { "decap flow, inner destination 127.0.0.1", FOU_MB_DROPPED,
			       FOU_DROP_INNER_MARTIAN, -1, -1, true, false },
	[FOU_MB_K_BCAST] = { "to 10.1.0.255, a broadcast address", FOU_MB_DROPPED,
			     FOU_DROP_BCAST_MCAST, -1, -1, false, false },
	[FOU_MB_K_ECN] = { "decap flow, outer CE, inner Not-ECT", FOU_MB_DROPPED, FOU_DROP_ECN_DROP,
			   -1, -1, false, false },
};

#define FOU_MB_PEER0 IP4(10, 0, 0, 2)
#define FOU_MB_UNROUTED IP4(198, 51, 100, 0)	/* 198/8 is never routed here */

static struct rte_ipv4_hdr *
fou_mb_ip_at(uint8_t *p, size_t off)
{
	return (struct rte_ipv4_hdr *)(p + off);
}

static void
fou_mb_ip_fix(struct rte_ipv4_hdr *ip)
{
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* A checksum that is wrong whatever the right one is (a 0 / 0xFFFF swap
 * would still be right in ones' complement). */
static rte_be16_t
fou_mb_wrong(rte_be16_t c)
{
	return (rte_be16_t)(c ^ rte_cpu_to_be_16(0x0100));
}

static uint16_t
fou_mb_arp(uint8_t *p, uint16_t op, const struct rte_ether_addr *dst)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)p;
	struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(eth + 1);

	eth->dst_addr = *dst;
	eth->src_addr = fou_mb_peer0;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(op);
	arp->arp_data.arp_sha = fou_mb_peer0;
	arp->arp_data.arp_sip = rte_cpu_to_be_32(FOU_MB_PEER0);
	arp->arp_data.arp_tha = op == RTE_ARP_OP_REPLY ? fou_mb_mac0 : (struct rte_ether_addr){ 0 };
	arp->arp_data.arp_tip = rte_cpu_to_be_32(FOU_MB_LOCAL0);
	return RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN;
}

/* The frame of packet kind k of flow f into p (FOU_MB_FRAME_MAX bytes);
 * returns its length. */
static uint16_t
fou_mb_mix_frame(const struct fou_mb *b, enum fou_mb_kind k, uint32_t f, uint8_t *p)
{
	const size_t outer = sizeof(struct rte_ether_hdr);
	const size_t inner = outer + sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr);
	const struct rte_ether_addr other = { { 0x02, 0, 0, 0, 0, 0x99 } };
	struct rte_ipv4_hdr *ip = fou_mb_ip_at(p, outer), *in = fou_mb_ip_at(p, inner);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)(ip + 1);
	uint16_t len;

	memset(p, 0, FOU_MB_FRAME_MAX);
	switch (k) {
	case FOU_MB_K_DECAP: case FOU_MB_K_NO_TUNNEL: case FOU_MB_K_INNER_TTL:
	case FOU_MB_K_INNER_CKSUM: case FOU_MB_K_UDP_CKSUM: case FOU_MB_K_MARTIAN:
	case FOU_MB_K_ECN:
		len = fou_mb_frame(b, FOU_MB_DECAP, f, p);
		break;
	case FOU_MB_K_ENCAP:
		len = fou_mb_frame(b, FOU_MB_ENCAP, f, p);
		break;
	case FOU_MB_K_DF_BIG: case FOU_MB_K_BIG:
		/* the tunnels' MTU: 1500 less IPv4 and UDP */
		len = fou_mb_frame_len(b, FOU_MB_ENCAP, f, p, 1480);
		break;
	case FOU_MB_K_ARP_REQ:
		return fou_mb_arp(p, RTE_ARP_OP_REQUEST, &(struct rte_ether_addr){
			{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } });
	case FOU_MB_K_ARP_REP:
		return fou_mb_arp(p, RTE_ARP_OP_REPLY, &fou_mb_mac0);
	default:
		len = fou_mb_frame(b, FOU_MB_FWD, f, p);
		break;
	}
	switch (k) {
	case FOU_MB_K_NO_TUNNEL:
		ip->src_addr = rte_cpu_to_be_32(IP4(100, 100, 0, 1) + (f & 0xff));
		break;
	case FOU_MB_K_TTL_BACK:
		ip->src_addr = rte_cpu_to_be_32(FOU_MB_PEER0);
		ip->time_to_live = 1;
		break;
	case FOU_MB_K_TTL:
		ip->time_to_live = 1;
		break;
	case FOU_MB_K_INNER_TTL:
		in->time_to_live = 1;
		fou_mb_ip_fix(in);
		break;
	case FOU_MB_K_CKSUM:
		ip->hdr_checksum = fou_mb_wrong(ip->hdr_checksum);
		return len;
	case FOU_MB_K_INNER_CKSUM:
		in->hdr_checksum = fou_mb_wrong(in->hdr_checksum);
		break;
	case FOU_MB_K_NOROUTE_BACK:
		ip->src_addr = rte_cpu_to_be_32(FOU_MB_PEER0);
		/* fall through */
	case FOU_MB_K_NOROUTE:
		ip->dst_addr = rte_cpu_to_be_32(FOU_MB_UNROUTED + 1 + f % 254);
		break;
	case FOU_MB_K_OTHER_MAC:
		((struct rte_ether_hdr *)p)->dst_addr = other;
		break;
	case FOU_MB_K_NOT_IP:
		((struct rte_ether_hdr *)p)->ether_type = rte_cpu_to_be_16(0x88b5);
		break;
	case FOU_MB_K_PORT_UNREACH:
		ip->src_addr = rte_cpu_to_be_32(FOU_MB_PEER0);
		ip->dst_addr = rte_cpu_to_be_32(FOU_MB_LOCAL0);
		break;
	case FOU_MB_K_PING:
		ip->src_addr = rte_cpu_to_be_32(FOU_MB_PEER0);
		ip->dst_addr = rte_cpu_to_be_32(FOU_MB_LOCAL0);
		ip->next_proto_id = IPPROTO_ICMP;
		memset(icmp, 0, sizeof(*icmp));
		icmp->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
		icmp->icmp_ident = rte_cpu_to_be_16(0x4d42);
		icmp->icmp_seq_nb = rte_cpu_to_be_16((uint16_t)f);
		icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, rte_be_to_cpu_16(ip->total_length) -
							   sizeof(*ip));
		break;
	case FOU_MB_K_DF_BIG:
		ip->src_addr = rte_cpu_to_be_32(FOU_MB_PEER0);
		ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		break;
	case FOU_MB_K_TRUNC:
		return (uint16_t)(outer + 10);
	case FOU_MB_K_UDP_CKSUM: {
		rte_be16_t right;

		udp->dgram_cksum = 0;
		right = rte_ipv4_udptcp_cksum(ip, udp);
		udp->dgram_cksum = fou_mb_wrong(right);
		if (udp->dgram_cksum == 0)	/* 0 would mean none */
			udp->dgram_cksum = (rte_be16_t)(right ^ rte_cpu_to_be_16(0x0200));
		return len;
	}
	case FOU_MB_K_MARTIAN:
		in->dst_addr = rte_cpu_to_be_32(IP4(127, 0, 0, 1));
		fou_mb_ip_fix(in);
		break;
	case FOU_MB_K_BCAST:
		ip->dst_addr = rte_cpu_to_be_32(IP4(10, 1, 0, 255));
		break;
	case FOU_MB_K_ECN:
		ip->type_of_service = 3;
		break;
	default:
		return len;
	}
	fou_mb_ip_fix(ip);
	return len;
}

/* What became of one packet of the mix in one gateway. */
struct fou_mb_got {
	bool fwd;
	uint16_t port;
	uint32_t len;
	int drop, icmp;			/* alone: the reason, the ICMP message; -1 none */
	bool consumed;			/* alone */
	uint8_t bytes[FOU_MB_FRAME_MAX];
};

/* One call of fou_lcore_rx(): its packets, to tell where what leaves came from. */
struct fou_mb_call {
	struct rte_mbuf *in[FOU_BURST];
	uint16_t n;
	struct fou_mb_got *got;		/* one per packet of in */
	unsigned int strays;		/* what left and was none of in */
	struct fou_mb_got *frags;	/* room for the strays, in order */
	unsigned int frags_room;
};

static void
fou_mb_mix_emit(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports, uint16_t n)
{
	struct fou_mb_call *c = ctx;
	uint16_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < c->n && c->in[j] != pkts[i]; j++)
			;
		if (j == c->n && c->strays >= c->frags_room) {
			c->strays++;
		} else {
			struct fou_mb_got *g = j == c->n ? &c->frags[c->strays++] : &c->got[j];
			const uint32_t len = RTE_MIN(rte_pktmbuf_pkt_len(pkts[i]),
						     (uint32_t)FOU_MB_FRAME_MAX);
			const void *d = rte_pktmbuf_read(pkts[i], 0, len, g->bytes);

			g->fwd = true;
			g->port = ports[i];
			g->len = rte_pktmbuf_pkt_len(pkts[i]);
			if (d != g->bytes)
				memcpy(g->bytes, d, len);
		}
		rte_pktmbuf_free(pkts[i]);
	}
}

/* The mix's frames, and each one's kind. */
struct fou_mb_mix {
	uint8_t (*frame)[FOU_MB_FRAME_MAX];
	uint16_t len[FOU_MB_MIX_PKTS];
	enum fou_mb_kind kind[FOU_MB_MIX_PKTS];
	struct fou_mb_got *bursts, *alone;
	struct fou_mb_got *frags[2];	/* what cut packets became: in bursts, alone */
	struct rte_mempool *mp;
};

static void
fou_mb_mix_fill(struct fou_mb_mix *mx, struct rte_mbuf **pkts, unsigned int first, uint16_t n)
{
	uint16_t i;

	if (rte_pktmbuf_alloc_bulk(mx->mp, pkts, n) != 0)
		fou_mb_die("check-mix: out of mbufs", NULL);
	for (i = 0; i < n; i++)
		memcpy(rte_pktmbuf_append(pkts[i], mx->len[first + i]), mx->frame[first + i],
		       mx->len[first + i]);
}

/* Counters a round compares: the lcore's, the tunnels' summed. */
struct fou_mb_count {
	struct fou_lcore_stats s;
	uint64_t tun_tx, tun_rx, tun_tx_bytes, tun_rx_bytes;
};

/* Every tunnel of the gateway: each of b's, with its twins. */
static uint32_t
fou_mb_nb_all(const struct fou_mb *b)
{
	return b->nb_tunnels * (1 + b->o.stage[FOU_MB_ENCAP_GUE] + b->o.stage[FOU_MB_ENCAP6] +
				b->o.stage[FOU_MB_DECAP6]);
}

static void
fou_mb_count(struct fou_gw *gw, uint32_t nb_tunnels, struct fou_mb_count *c)
{
	struct fou_tunnel_info *ti = calloc(nb_tunnels, sizeof(*ti));
	unsigned int i, n;

	if (ti == NULL)
		fou_mb_die("out of memory", NULL);
	memset(c, 0, sizeof(*c));
	fou_stats_get(gw, (int)rte_lcore_id(), &c->s);
	n = RTE_MIN(fou_tunnel_list(gw, ti, nb_tunnels), nb_tunnels);
	for (i = 0; i < n; i++) {
		c->tun_tx += ti[i].tx_packets;
		c->tun_rx += ti[i].rx_packets;
		c->tun_tx_bytes += ti[i].tx_bytes;
		c->tun_rx_bytes += ti[i].rx_bytes;
	}
	free(ti);
}

/* What the counters the check reads did from a to b, into a. */
static void
fou_mb_count_delta(struct fou_mb_count *a, const struct fou_mb_count *b)
{
	unsigned int i;

	for (i = 0; i < FOU_DROP_MAX; i++)
		a->s.drop[i] = b->s.drop[i] - a->s.drop[i];
	for (i = 0; i < FOU_ICMP_MAX; i++)
		a->s.icmp_out[i] = b->s.icmp_out[i] - a->s.icmp_out[i];
	for (i = 0; i < FOU_LOCAL_MAX; i++)
		a->s.local[i] = b->s.local[i] - a->s.local[i];
	for (i = 0; i < RTE_DIM(a->s.decap); i++)
		a->s.decap[i] = b->s.decap[i] - a->s.decap[i];
	for (i = 0; i < FOU_INNER_MAX; i++)
		a->s.decap_inner[i] = b->s.decap_inner[i] - a->s.decap_inner[i];
	a->s.rx[0] = b->s.rx[0] - a->s.rx[0];
	a->tun_tx = b->tun_tx - a->tun_tx;
	a->tun_rx = b->tun_rx - a->tun_rx;
	a->tun_tx_bytes = b->tun_tx_bytes - a->tun_tx_bytes;
	a->tun_rx_bytes = b->tun_rx_bytes - a->tun_rx_bytes;
}

/* The one counter of d (n of them) that moved, by one: its index; -1 when
 * none moved, -2 when several did or one by more. */
static int
fou_mb_moved(const uint64_t *d, unsigned int n)
{
	unsigned int i;
	int which = -1;

	for (i = 0; i < n; i++)
		if (d[i] != 0) {
			if (d[i] != 1 || which >= 0)
				return -2;
			which = (int)i;
		}
	return which;
}

static void
fou_mb_describe(const struct fou_mb_got *g, bool alone, char *buf, size_t len)
{
	if (g->fwd)
		snprintf(buf, len, "sent on port %u, %u bytes%s%s", g->port, g->len,
			 alone && g->icmp >= 0 ? " as " : "", alone && g->icmp >= 0 ?
			 fou_icmp_name((enum fou_icmp_kind)g->icmp) : "");
	else if (!alone)
		snprintf(buf, len, "not sent");
	else if (g->consumed)
		snprintf(buf, len, "taken in");
	else if (g->drop >= 0)
		snprintf(buf, len, "dropped: %s", fou_drop_name((enum fou_drop)g->drop));
	else
		snprintf(buf, len, "neither sent, dropped nor taken in");
}

/* One row of the report: an outcome, how many the kinds say, how many
 * each gateway gave. expect < 0: the kinds say nothing of it. */
static bool
fou_mb_mix_row(const char *round, const char *what, int64_t expect, uint64_t bursts,
	       uint64_t alone)
{
	bool ok = bursts == alone && (expect < 0 || (uint64_t)expect == bursts);

	if (expect < 0 && bursts == 0 && alone == 0)
		return true;
	if (expect < 0)
		printf("%s,%s,-,%" PRIu64 ",%" PRIu64 ",%s\n", round, what, bursts, alone,
		       ok ? "ok" : "DIFFERENT");
	else
		printf("%s,%s,%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%s\n", round, what, expect, bursts,
		       alone, ok ? "ok" : "DIFFERENT");
	return ok;
}

/* One round: the mix through gateway a in bursts and through b alone. */
static bool
fou_mb_mix_round(struct fou_mb *b, struct fou_mb_mix *mx, struct fou_gw *ga,
		 struct fou_lcore *la, struct fou_gw *gb, struct fou_lcore *lb, bool errors)
{
	const char *round = errors ? "icmp errors sent" : "icmp errors off";
	const uint64_t now = rte_rdtsc();
	struct fou_mb_count ca, cb, after, before;
	int64_t fwd[2] = { 0 }, drop[FOU_DROP_MAX] = { 0 }, icmp[FOU_ICMP_MAX] = { 0 };
	int64_t consumed = 0, decap = 0, encap = 0, cut = 0;
	uint64_t got_fwd[2][2] = { { 0 } };
	struct fou_mb_call call;
	unsigned int p, i, reported = 0, strays = 0, nfrags[2] = { 0, 0 };
	bool ok = true;
	char x[128], y[128];

	memset(mx->bursts, 0, FOU_MB_MIX_PKTS * sizeof(*mx->bursts));
	memset(mx->alone, 0, FOU_MB_MIX_PKTS * sizeof(*mx->alone));
	memset(mx->frags[0], 0, FOU_MB_MIX_FRAGS * sizeof(*mx->frags[0]));
	memset(mx->frags[1], 0, FOU_MB_MIX_FRAGS * sizeof(*mx->frags[1]));
	fou_mb_stmt(ga, "icmp-rate", errors ? "1000000,burst=1000000" : "0");
	fou_mb_stmt(gb, "icmp-rate", errors ? "1000000,burst=1000000" : "0");

	/* in bursts */
	fou_mb_count(ga, fou_mb_nb_all(b), &ca);
	for (p = 0; p < FOU_MB_MIX_PKTS; p += FOU_BURST) {
		struct rte_mbuf *pkts[FOU_BURST];

		fou_mb_mix_fill(mx, pkts, p, FOU_BURST);
		memcpy(call.in, pkts, sizeof(pkts));
		call.n = FOU_BURST;
		call.got = &mx->bursts[p];
		call.strays = 0;
		call.frags = &mx->frags[0][nfrags[0]];
		call.frags_room = FOU_MB_MIX_FRAGS - nfrags[0];
		fou_lcore_rx(la, 0, pkts, FOU_BURST, now, fou_mb_mix_emit, &call);
		nfrags[0] += RTE_MIN(call.strays, call.frags_room);
		strays += call.strays - RTE_MIN(call.strays, call.frags_room);
	}
	fou_mb_count(ga, fou_mb_nb_all(b), &after);
	fou_mb_count_delta(&ca, &after);

	/* one by one, each one's counters apart */
	fou_mb_count(gb, fou_mb_nb_all(b), &cb);
	for (p = 0; p < FOU_MB_MIX_PKTS; p++) {
		struct fou_mb_got *g = &mx->alone[p];
		struct rte_mbuf *m;

		fou_stats_get(gb, (int)rte_lcore_id(), &before.s);
		fou_mb_mix_fill(mx, &m, p, 1);
		call.in[0] = m;
		call.n = 1;
		call.got = g;
		call.strays = 0;
		call.frags = &mx->frags[1][nfrags[1]];
		call.frags_room = FOU_MB_MIX_FRAGS - nfrags[1];
		fou_lcore_rx(lb, 0, &m, 1, now, fou_mb_mix_emit, &call);
		nfrags[1] += RTE_MIN(call.strays, call.frags_room);
		strays += call.strays - RTE_MIN(call.strays, call.frags_room);
		fou_stats_get(gb, (int)rte_lcore_id(), &after.s);
		for (i = 0; i < FOU_DROP_MAX; i++)
			after.s.drop[i] -= before.s.drop[i];
		for (i = 0; i < FOU_ICMP_MAX; i++)
			after.s.icmp_out[i] -= before.s.icmp_out[i];
		g->drop = fou_mb_moved(after.s.drop, FOU_DROP_MAX);
		g->icmp = fou_mb_moved(after.s.icmp_out, FOU_ICMP_MAX);
		g->consumed = after.s.local[FOU_LOCAL_CONSUMED] != before.s.local[FOU_LOCAL_CONSUMED];
	}
	fou_mb_count(gb, fou_mb_nb_all(b), &after);
	fou_mb_count_delta(&cb, &after);
	if (strays != 0) {
		fprintf(stderr, "fou-microbench: check-mix: %u packets left that were not received\n",
			strays);
		ok = false;
	}

	/* packet by packet: the same in both, and what its kind says */
	for (p = 0; p < FOU_MB_MIX_PKTS; p++) {
		const struct fou_mb_kind_fate *k = &fou_mb_kinds[mx->kind[p]];
		const struct fou_mb_got *ga_ = &mx->bursts[p], *gb_ = &mx->alone[p];
		enum fou_mb_fate fate = k->fate;
		int what = k->what, kicmp = k->icmp;
		bool same, as_said;

		if (!errors && k->off >= 0) {
			fate = FOU_MB_DROPPED;
			what = k->off;
			kicmp = -1;
		}
		if (fate == FOU_MB_SENT) {
			fwd[what]++;
			if (kicmp >= 0)
				icmp[kicmp]++;
		} else if (fate == FOU_MB_DROPPED) {
			drop[what]++;
		} else if (fate == FOU_MB_CUT) {
			cut++;
		} else {
			consumed++;
		}
		decap += k->decap;
		encap += k->encap && fate == FOU_MB_SENT;
		/* a tunnel counts each fragment it carries */
		encap += fate == FOU_MB_CUT ? FOU_MB_BIG_PIECES : 0;
		if (ga_->fwd && ga_->port < 2)
			got_fwd[0][ga_->port]++;
		if (gb_->fwd && gb_->port < 2)
			got_fwd[1][gb_->port]++;
		same = ga_->fwd == gb_->fwd && (!ga_->fwd || (ga_->port == gb_->port &&
							      ga_->len == gb_->len &&
							      memcmp(ga_->bytes, gb_->bytes,
								     RTE_MIN(ga_->len,
									     (uint32_t)FOU_MB_FRAME_MAX)) == 0));
		as_said = fate == FOU_MB_SENT ? gb_->fwd && gb_->port == what && gb_->icmp == kicmp :
			  fate == FOU_MB_DROPPED ? !gb_->fwd && gb_->drop == what && !gb_->consumed :
			  fate == FOU_MB_CUT ? !gb_->fwd && gb_->drop == -1 && !gb_->consumed :
			  !gb_->fwd && gb_->consumed && gb_->drop == -1;
		if ((!same || !as_said) && reported++ < FOU_MB_MIX_REPORT) {
			uint32_t at = 0;

			fou_mb_describe(ga_, false, x, sizeof(x));
			fou_mb_describe(gb_, true, y, sizeof(y));
			if (!same && ga_->fwd && gb_->fwd && ga_->len == gb_->len)
				while (at < ga_->len && ga_->bytes[at] == gb_->bytes[at])
					at++;
			fprintf(stderr, "fou-microbench: check-mix (%s): packet %u (burst %u, position %u,"
				" %s): in a burst %s; alone %s%s", round, p, p / FOU_BURST,
				p % FOU_BURST, k->name, x, y, same ? ", not what its kind says" : "");
			if (at != 0)
				fprintf(stderr, "; the frames differ from byte %u", at);
			fprintf(stderr, "\n");
		}
		ok = ok && same && as_said;
	}

	/* what the cut packets became: the same fragments, in the same order,
	 * on the same port (their outer IDs too: set aside where each packet
	 * stood in its burst) */
	for (i = 0; i < RTE_MAX(nfrags[0], nfrags[1]); i++) {
		const struct fou_mb_got *fa = &mx->frags[0][i], *fb = &mx->frags[1][i];

		if (i < nfrags[0] && i < nfrags[1] && fa->port == fb->port && fa->len == fb->len &&
		    memcmp(fa->bytes, fb->bytes, RTE_MIN(fa->len, (uint32_t)FOU_MB_FRAME_MAX)) == 0)
			continue;
		if (reported++ < FOU_MB_MIX_REPORT)
			fprintf(stderr, "fou-microbench: check-mix (%s): fragment %u of the cut packets "
				"differs between bursts and one per call\n", round, i);
		ok = false;
	}
	ok &= fou_mb_mix_row(round, "fragments sent on port 0", cut * FOU_MB_BIG_PIECES,
			     nfrags[0], nfrags[1]);

	/* the report: a line per outcome */
	for (i = 0; i < 2; i++) {
		snprintf(x, sizeof(x), "sent on port %u", i);
		ok &= fou_mb_mix_row(round, x, fwd[i], got_fwd[0][i], got_fwd[1][i]);
	}
	for (i = 0; i < FOU_DROP_MAX; i++) {
		snprintf(x, sizeof(x), "drop %s", fou_drop_name(i));
		ok &= fou_mb_mix_row(round, x, drop[i] != 0 || ca.s.drop[i] != 0 ||
				     cb.s.drop[i] != 0 ? drop[i] : -1, ca.s.drop[i], cb.s.drop[i]);
	}
	for (i = 0; i < FOU_ICMP_MAX; i++) {
		snprintf(x, sizeof(x), "sent %s", fou_icmp_name(i));
		ok &= fou_mb_mix_row(round, x, icmp[i] != 0 || ca.s.icmp_out[i] != 0 ||
				     cb.s.icmp_out[i] != 0 ? icmp[i] : -1, ca.s.icmp_out[i],
				     cb.s.icmp_out[i]);
	}
	ok &= fou_mb_mix_row(round, "received", FOU_MB_MIX_PKTS, ca.s.rx[0], cb.s.rx[0]);
	ok &= fou_mb_mix_row(round, "taken in", consumed, ca.s.local[FOU_LOCAL_CONSUMED],
			     cb.s.local[FOU_LOCAL_CONSUMED]);
	ok &= fou_mb_mix_row(round, "decapsulated", decap,
			     ca.s.decap_inner[FOU_INNER_IPV4] + ca.s.decap_inner[FOU_INNER_IPV6],
			     cb.s.decap_inner[FOU_INNER_IPV4] + cb.s.decap_inner[FOU_INNER_IPV6]);
	ok &= fou_mb_mix_row(round, "encapsulated", encap, ca.tun_tx, cb.tun_tx);
	ok &= fou_mb_mix_row(round, "encapsulated bytes", -1, ca.tun_tx_bytes, cb.tun_tx_bytes);
	ok &= fou_mb_mix_row(round, "tunnel packets decapsulated", -1, ca.tun_rx, cb.tun_rx);
	ok &= fou_mb_mix_row(round, "tunnel bytes decapsulated", -1, ca.tun_rx_bytes,
			     cb.tun_rx_bytes);
	for (i = 0; i < RTE_DIM(ca.s.decap); i++)
		if (ca.s.decap[i] != cb.s.decap[i]) {
			snprintf(x, sizeof(x), "decapsulated on FOU port slot %u", i);
			ok &= fou_mb_mix_row(round, x, -1, ca.s.decap[i], cb.s.decap[i]);
		}
	for (i = 0; i < FOU_LOCAL_MAX; i++) {
		if (i == FOU_LOCAL_CONSUMED)
			continue;
		snprintf(x, sizeof(x), "local %s", fou_local_name(i));
		ok &= fou_mb_mix_row(round, x, -1, ca.s.local[i], cb.s.local[i]);
	}
	fflush(stdout);
	return ok;
}

/* The mix over the tables of the last --tunnels and --routes counts:
 * 0 when a burst decided nothing, 1 otherwise. */
static int
fou_mb_check_mix(struct fou_mb *b)
{
	struct fou_mb_mix mx;
	struct fou_gw *gb;
	struct fou_lcore *lb;
	uint32_t i, p;
	bool ok;

	fou_mb_grow_tunnels(b, b->o.tunnels[b->o.nb_tunnels - 1]);
	fou_mb_grow_routes(b, b->o.routes[b->o.nb_routes - 1]);
	/* the second gateway: the same statements, tunnels and routes in the
	 * same order */
	gb = fou_mb_gw_new(b);
	for (i = 0; i < b->nb_tunnels; i++) {
		fou_mb_tunnel_add(gb, i, b->o.stage[FOU_MB_ENCAP_GUE], b->o.stage[FOU_MB_DECAP6]);
		if (b->o.stage[FOU_MB_ENCAP6])
			fou_mb_tunnel6_add(gb, i);
	}
	for (i = 0; i < b->nb_routes; i++) {
		struct fou_ip pfx = fou_mb_ip4(b->routes[i].prefix, b->routes[i].plen);
		struct fou_ip via = fou_mb_ip4(FOU_MB_GW1, 32);
		struct fou_err err;

		if (fou_route_add(gb, &pfx, 1, &via, &err) != 0)
			fou_mb_die("route", &err);
	}
	lb = fou_mb_lcore_new(b, gb);

	memset(&mx, 0, sizeof(mx));
	mx.frame = calloc(FOU_MB_MIX_PKTS, sizeof(*mx.frame));
	mx.bursts = calloc(FOU_MB_MIX_PKTS, sizeof(*mx.bursts));
	mx.alone = calloc(FOU_MB_MIX_PKTS, sizeof(*mx.alone));
	mx.frags[0] = calloc(FOU_MB_MIX_FRAGS, sizeof(*mx.frags[0]));
	mx.frags[1] = calloc(FOU_MB_MIX_FRAGS, sizeof(*mx.frags[1]));
	mx.mp = rte_pktmbuf_pool_create("fou_mb_mix", 2 * FOU_BURST + 64, 0, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (mx.frame == NULL || mx.bursts == NULL || mx.alone == NULL || mx.frags[0] == NULL ||
	    mx.frags[1] == NULL || mx.mp == NULL)
		fou_mb_die("check-mix: out of memory", NULL);
	/* every kind in every burst, in another order each time (7 and the
	 * kinds' count are coprime), each packet of a flow of its own */
	for (p = 0; p < FOU_MB_MIX_PKTS; p++) {
		mx.kind[p] = (enum fou_mb_kind)((p * 7 + p / FOU_BURST * 5) % FOU_MB_KINDS);
		mx.len[p] = fou_mb_mix_frame(b, mx.kind[p], p, mx.frame[p]);
	}
	fprintf(stderr, "fou-microbench: check-mix: %u packets of %u kinds over %u tunnels and %u "
		"routes, in bursts of %u and one per call\n", FOU_MB_MIX_PKTS, FOU_MB_KINDS,
		b->nb_tunnels, b->nb_routes, FOU_BURST);
	printf("round,outcome,expected,bursts,one_per_call,verdict\n");
	ok = fou_mb_mix_round(b, &mx, b->gw, b->lc, gb, lb, true);
	ok = fou_mb_mix_round(b, &mx, b->gw, b->lc, gb, lb, false) && ok;
	fprintf(stderr, "fou-microbench: check-mix: %s\n", ok ? "bursts of 32 and one packet per "
		"call gave the same results" : "DIFFERENT");
	fou_lcore_free(lb);
	fou_gw_free(gb);
	rte_mempool_free(mx.mp);
	free(mx.frame);
	free(mx.frags[0]);
	free(mx.frags[1]);
	free(mx.bursts);
	free(mx.alone);
	return ok ? 0 : 1;
}

/* --- control operations ---------------------------------------------------- */

static void
fou_mb_control_row(const char *op, uint32_t n, double t0)
{
	double s = fou_mb_now() - t0;

	printf("%s,%u,%.3f,%.2f\n", op, n, s, n != 0 ? s * 1e6 / n : 0.0);
	fflush(stdout);
	fprintf(stderr, "fou-microbench: %s x %u: %.2f s\n", op, n, s);
}

static struct fou_ip
fou_mb_neigh_ip(uint32_t k)
{
	return fou_mb_ip4(IP4(172, 16, 0, 1) + k, 32);	/* 172.16.0.0/12 holds 65536 */
}

static void
fou_mb_control(struct fou_mb *b)
{
	const uint32_t nt = b->o.tunnels[b->o.nb_tunnels - 1];
	const uint32_t nr = b->o.routes[b->o.nb_routes - 1];
	struct fou_gw_params p;
	struct fou_tunnel_conf c;
	struct fou_err err;
	struct fou_ip ip;
	uint32_t k, nn;
	double t0;

	fou_gw_params_get(b->gw, &p);
	nn = RTE_MIN(nt, p.max_neighs - fou_neigh_list(b->gw, NULL, 0, 0));
	printf("operation,count,seconds,us_per_op\n");
	t0 = fou_mb_now();
	for (k = 0; k < nt; k++) {
		fou_mb_tunnel_conf(&c, k);
		if (fou_tunnel_add(b->gw, &c, &err) != 0)
			fou_mb_die("tunnel add", &err);
	}
	fou_mb_control_row("tunnel_add", nt, t0);
	t0 = fou_mb_now();
	for (k = 0; k < nt; k++) {
		ip = fou_mb_ip4(FOU_MB_TUNNET(k), 24);
		snprintf(c.name, sizeof(c.name), "t%u", k);
		if (fou_route_add_tunnel(b->gw, &ip, c.name, &err) != 0)
			fou_mb_die("route into a tunnel", &err);
	}
	b->nb_tunnels = nt;
	fou_mb_control_row("route_add_tunnel", nt, t0);
	t0 = fou_mb_now();
	fou_mb_grow_routes(b, nr);
	fou_mb_control_row("route_add", nr, t0);
	t0 = fou_mb_now();
	for (k = 0; k < nn; k++) {
		const struct rte_ether_addr mac = { { 0x02, 0x01, 0, 0, (uint8_t)(k >> 8),
						       (uint8_t)k } };

		ip = fou_mb_neigh_ip(k);
		if (fou_neigh_add(b->gw, &ip, 1, &mac, &err) != 0)
			fou_mb_die("neighbour add", &err);
	}
	fou_mb_control_row("neigh_add", nn, t0);
	t0 = fou_mb_now();
	for (k = 0; k < nr; k++) {
		ip = fou_mb_ip4(b->routes[k].prefix, b->routes[k].plen);
		if (fou_route_del(b->gw, &ip, &err) != 0)
			fou_mb_die("route delete", &err);
	}
	fou_mb_control_row("route_del", nr, t0);
	t0 = fou_mb_now();
	for (k = 0; k < nn; k++) {
		ip = fou_mb_neigh_ip(k);
		if (fou_neigh_del(b->gw, &ip, 1, &err) != 0)
			fou_mb_die("neighbour delete", &err);
	}
	fou_mb_control_row("neigh_del", nn, t0);
	t0 = fou_mb_now();
	for (k = 0; k < nt; k++) {
		snprintf(c.name, sizeof(c.name), "t%u", k);
		if (fou_tunnel_del(b->gw, c.name, &err) != 0)
			fou_mb_die("tunnel delete (with its route)", &err);
	}
	fou_mb_control_row("tunnel_del", nt, t0);
}

/* --- options ----------------------------------------------------------- */

static void
fou_mb_usage(void)
{
	fprintf(stderr,
		"usage: fou-microbench [--tunnels N,N,...] [--routes N,N,...] [--stages fwd,decap,encap,decap-gue,encap-gue,decap6,encap6]\n"
		"                      [--flows N] [--bursts N] [--passes N] [--size BYTES]\n"
		"                      [--cpu N] [--mem MB] [--huge] [--control | --check-mix]\n"
		"  tunnels grow along the list at the first route count, then routes\n"
		"  grow along theirs at the last tunnel count (both ascending).\n"
		"  defaults: --tunnels 1,1000,65536 --routes 10,10000,1000000 --flows 65536\n"
		"            --bursts 4000 --passes 5 --size 64 (inner IP packet bytes)\n"
		"  --huge: the EAL's memory (tables, packets) on hugepages, as a\n"
		"          gateway runs; without it 4 KB pages (runs anywhere)\n"
		"  --control: time adding and deleting the last tunnel and route counts\n"
		"             (and neighbours) through fou.h instead of the stages\n"
		"  --check-mix: at the last tunnel and route counts, a mix of every outcome\n"
		"             in bursts of 32 and one packet per call on a second gateway:\n"
		"             a CSV line per outcome, exit status 1 on any difference\n");
}

static int
fou_mb_list(const char *s, uint32_t *v, unsigned int *n)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (*n == FOU_MB_MAX_LEVELS || fou_parse_u32(tok, 1u << 24, &v[*n]) < 0 ||
		    v[*n] == 0 || (*n > 0 && v[*n] < v[*n - 1]))
			return -1;
		(*n)++;
	}
	return *n > 0 ? 0 : -1;
}

static int
fou_mb_stages(const char *s, bool *stage)
{
	char buf[64], *tok, *save = NULL;
	unsigned int i;

	snprintf(buf, sizeof(buf), "%s", s);
	memset(stage, 0, sizeof(bool) * FOU_MB_STAGES);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < FOU_MB_STAGES && strcmp(tok, fou_mb_stage_names[i]) != 0; i++)
			;
		if (i == FOU_MB_STAGES)
			return -1;
		stage[i] = true;
	}
	return 0;
}

static int
fou_mb_args(int argc, char **argv, struct fou_mb_opts *o, int *cpu)
{
	static const struct option longopts[] = {
		{ "tunnels", required_argument, NULL, 't' },
		{ "routes", required_argument, NULL, 'r' },
		{ "stages", required_argument, NULL, 's' },
		{ "flows", required_argument, NULL, 'f' },
		{ "bursts", required_argument, NULL, 'b' },
		{ "passes", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 'z' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "mem", required_argument, NULL, 'm' },
		{ "control", no_argument, NULL, 'C' },
		{ "check-mix", no_argument, NULL, 'M' },
		{ "huge", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t v;
	int opt, ret = 0;

	while (ret == 0 && (opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			ret = fou_mb_list(optarg, o->tunnels, &o->nb_tunnels);
			break;
		case 'r':
			ret = fou_mb_list(optarg, o->routes, &o->nb_routes);
			break;
		case 's':
			ret = fou_mb_stages(optarg, o->stage);
			break;
		case 'f':
			ret = fou_parse_u32(optarg, 1u << 22, &o->flows);
			break;
		case 'b':
			ret = fou_parse_u32(optarg, UINT32_MAX, &o->bursts);
			break;
		case 'p':
			ret = fou_parse_u32(optarg, 64, &o->passes);
			break;
		case 'z':
			ret = fou_parse_u32(optarg, 1400, &o->inner_len);
			break;
		case 'm':
			ret = fou_parse_u32(optarg, 65536, &o->mem_mb);
			break;
		case 'c':
			ret = fou_parse_u32(optarg, CPU_SETSIZE - 1, &v);
			*cpu = (int)v;
			break;
		case 'C':
			o->control = true;
			break;
		case 'M':
			o->check_mix = true;
			break;
		case 'H':
			o->huge = true;
			break;
		default:
			ret = -1;
		}
	}
	if (ret != 0 || optind != argc || o->flows == 0 || o->bursts == 0 || o->passes == 0 ||
	    o->inner_len < 28 || (o->control && o->check_mix)) {
		fou_mb_usage();
		return -1;
	}
	return 0;
}

static void
fou_mb_eal(const char *prog, int cpu, uint32_t mem_mb, bool huge)
{
	char lcore[16], mem[16];
	cpu_set_t set;

	/* one lcore: the given CPU, else the first this process may use */
	if (cpu < 0 && sched_getaffinity(0, sizeof(set), &set) == 0)
		for (cpu = 0; cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set); cpu++)
			;
	snprintf(lcore, sizeof(lcore), "%d", cpu < 0 ? 0 : cpu);
	snprintf(mem, sizeof(mem), "%u", mem_mb);
	/* no runtime files, no telemetry: runs beside anything; hugepages
	 * only when asked (--in-memory takes them without a mount) */
	char *argv[] = {
		(char *)prog, "-l", lcore, huge ? "--in-memory" : "--no-huge", "-m", mem,
		"--no-pci", "--no-shconf", "--no-telemetry", "--iova-mode=va",
		"--log-level=*:error",
	};

	if (rte_eal_init((int)RTE_DIM(argv), argv) < 0) {
		fprintf(stderr, "fou-microbench: EAL: %s\n", rte_strerror(rte_errno));
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	static struct fou_mb b;
	unsigned int i;
	int cpu = -1, status = 0;

	b.o = (struct fou_mb_opts){
		.tunnels = { 1, 1000, 65536 }, .nb_tunnels = 3,
		.routes = { 10, 10000, 1000000 }, .nb_routes = 3,
		.stage = { true, true, true, true, true, true, true },
		.flows = 65536, .bursts = 4000, .passes = 5, .inner_len = 64, .mem_mb = 2048,
	};
	if (fou_mb_args(argc, argv, &b.o, &cpu) != 0)
		return 2;
	/* the GUE and ip6tnl twins are for the encap-gue and encap6 stages
	 * alone: the control operations and the mix count the FOU tunnels
	 * (decap6's twins stay: the mix's IPv6 packets are matched to them) */
	if (b.o.control || b.o.check_mix) {
		b.o.stage[FOU_MB_ENCAP_GUE] = false;
		b.o.stage[FOU_MB_ENCAP6] = false;
	}
	fou_mb_eal(argv[0], cpu, b.o.mem_mb, b.o.huge);
	fou_mb_mbufs(&b);
	fou_mb_gw_create(&b);
	if (b.o.control) {
		fou_mb_control(&b);
		goto out;
	}
	if (b.o.check_mix) {
		status = fou_mb_check_mix(&b);
		goto out;
	}
	b.tsc_overhead = fou_mb_tsc_overhead();
	printf("stage,tunnels,routes,inner_bytes,flows,packets,cycles_per_pkt,cycles_per_pkt_min,"
	       "reset_cycles_per_pkt,tsc_mhz\n");
	for (i = 0; i < b.o.nb_tunnels; i++)
		fou_mb_level(&b, b.o.tunnels[i], b.o.routes[0]);
	for (i = 1; i < b.o.nb_routes; i++)
		fou_mb_level(&b, b.o.tunnels[b.o.nb_tunnels - 1], b.o.routes[i]);
out:
	rte_pktmbuf_free_bulk(b.ring, RTE_DIM(b.ring));
	fou_lcore_free(b.lc);
	fou_gw_free(b.gw);
	rte_mempool_free(b.mp);
	rte_free(b.tmpl);
	free(b.tmpl_len);
	free(b.routes);
	rte_eal_cleanup();
	return status;
}
