/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-fou: EAL, options, ports, worker launch, and the end of a run:
 * stop, flush, print what was done, check that every packet and every mbuf
 * is accounted for. Every option is read before the gateway is made, since
 * the limits statements size its tables; the others are applied to it.
 *
 * What it says while it runs goes through rte_log (fou.port, fou.app: the
 * startup lines, link changes); the exit summary is printed on stdout for
 * scripts, and the errors that stop it before it starts go to stderr.
 * The telemetry commands exist before rte_eal_init() opens their socket
 * and work once the workers run, when systemd hears READY=1
 * (fou_telemetry_start(), fou_app_notify()).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pdump.h>
#include <rte_random.h>

#include "app.h"

#define FOU_MBUF_CACHE 256
/* The main lcore's round: the local stack's service (ARP/ND answers come
 * from the workers at once; resolution waits at most this) and --idle-exit. */
#define FOU_MONITOR_US 1000
/* Rounds between two looks at the ports' links: a second. */
#define FOU_LINK_ROUNDS 1000

/*
 * A line built in pieces, logged at once: rte_log writes each call to
 * syslog as a message of its own, so a line must be one call.
 */
struct fou_line {
	char s[1024];
	size_t n;
};

static void __rte_format_printf(2, 3)
fou_line_add(struct fou_line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->n >= sizeof(l->s) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->s + l->n, sizeof(l->s) - l->n, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->n = RTE_MIN(l->n + (size_t)n, sizeof(l->s) - 1);
}

static void
fou_app_signal(int sig __rte_unused)
{
	__atomic_store_n(&fou_app_quit, true, __ATOMIC_RELAXED);
}

static uint64_t
fou_app_rx_total(struct fou_gw *gw)
{
	struct fou_lcore_stats s;
	uint64_t rx, tx;

	fou_stats_sum(gw, &s);
	fou_stats_rx_tx(&s, &rx, &tx);
	return rx;
}

/*
 * Log a port's link when it differs from *last (always with first): up at
 * INFO, down as a WARNING, in ethdev's words ("Link up at 10 Gbps FDX
 * Autoneg"). A device that cannot tell is not logged.
 */
static void
fou_app_link_check(uint16_t port, struct rte_eth_link *last, bool first)
{
	char name[RTE_ETH_NAME_MAX_LEN] = "?", str[RTE_ETH_LINK_MAX_STR_LEN];
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(port, &link) != 0)
		return;
	if (!first && link.link_status == last->link_status &&
	    link.link_speed == last->link_speed && link.link_duplex == last->link_duplex)
		return;
	*last = link;
	rte_eth_dev_get_name_by_port(port, name);
	rte_eth_link_to_str(str, sizeof(str), &link);
	if (link.link_status == RTE_ETH_LINK_UP)
		FOU_LOG(INFO, port, "port %u (%s): %s", port, name, str);
	else
		FOU_LOG(WARNING, port, "port %u (%s): %s", port, name, str);
}

static void
fou_app_links(struct rte_eth_link *last, bool first)
{
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port)
		fou_app_link_check(port, &last[port], first);
}

/* Runs on the main lcore while the workers forward: the gateway's own
 * stack through the control context, the ports' links, and --idle-exit. */
static void
fou_app_monitor(struct fou_gw *gw, struct fou_lcore *ctl, const struct fou_app_opts *opts)
{
	static struct rte_eth_link links[RTE_MAX_ETHPORTS];
	uint64_t last_rx = 0, last_change = rte_get_timer_cycles();
	const uint64_t idle = opts->idle_exit_ms * (rte_get_timer_hz() / 1000);
	unsigned int rounds = 0;

	fou_app_links(links, true);
	while (!__atomic_load_n(&fou_app_quit, __ATOMIC_RELAXED)) {
		rte_delay_us_sleep(FOU_MONITOR_US);
		fou_neigh_service(ctl, rte_rdtsc());
		fou_probe_service(ctl, rte_rdtsc());
		fou_plpmtu_service(ctl, rte_rdtsc());
		fou_punt_service(ctl, rte_rdtsc());
		if (++rounds % FOU_LINK_ROUNDS == 0)
			fou_app_links(links, false);
		if (opts->idle_exit_ms == 0)
			continue;
		uint64_t rx = fou_app_rx_total(gw), now = rte_get_timer_cycles();

		if (rx != last_rx) {
			last_rx = rx;
			last_change = now;
		} else if (now - last_change >= idle) {
			__atomic_store_n(&fou_app_quit, true, __ATOMIC_RELAXED);
		}
	}
}

/*
 * Packet buffers per NUMA socket: one pool of mbufs and one of indirect
 * mbufs (rte_gso's) for each socket with a worker lcore or the main lcore
 * (the control context), taken from by the lcores of that socket only, so
 * that what a worker touches for every packet (mbuf, headers, its per-lcore
 * cache of the pool) is in its socket's memory. The last slot is for
 * SOCKET_ID_ANY: all lcores on 4 KB pages (the EAL files all of that memory
 * under socket 0, so no other socket could be asked for), and an lcore
 * whose CPUs span sockets (--lcores 1@(0,8)).
 */
struct fou_app_pool {
	struct rte_mempool *direct, *indirect;
	unsigned int workers;	/* worker lcores on the socket */
	bool main;		/* the main lcore is on it */
};

#define FOU_APP_POOL_ANY RTE_MAX_NUMA_NODES
static struct fou_app_pool fou_app_pools[RTE_MAX_NUMA_NODES + 1];

/* The socket lcore's memory is allocated on. */
static int
fou_app_mem_socket(unsigned int lcore)
{
	unsigned int s = rte_lcore_to_socket_id(lcore);

	return rte_eal_has_hugepages() && s < RTE_MAX_NUMA_NODES ? (int)s : SOCKET_ID_ANY;
}

static int
fou_app_pool_socket(unsigned int slot)
{
	return slot == FOU_APP_POOL_ANY ? SOCKET_ID_ANY : (int)slot;
}

static struct fou_app_pool *
fou_app_pool_of(unsigned int lcore)
{
	int socket = fou_app_mem_socket(lcore);

	return &fou_app_pools[socket == SOCKET_ID_ANY ? FOU_APP_POOL_ANY : socket];
}

/* The memory of lcore: its socket and that socket's pools. */
static struct fou_app_mem
fou_app_mem_of(unsigned int lcore)
{
	const struct fou_app_pool *p = fou_app_pool_of(lcore);

	return (struct fou_app_mem){ fou_app_mem_socket(lcore), p->direct, p->indirect };
}

/* "socket 0", "any socket" or "4 KB pages" (no socket at all). */
static const char *
fou_app_pool_where(unsigned int slot, char *buf, size_t len)
{
	if (!rte_eal_has_hugepages())
		return "4 KB pages (--no-huge)";
	if (slot == FOU_APP_POOL_ANY)
		return "any socket";
	snprintf(buf, len, "socket %u", slot);
	return buf;
}

static void
fou_app_pool_name(char *buf, size_t len, const char *what, unsigned int slot)
{
	if (slot == FOU_APP_POOL_ANY)
		snprintf(buf, len, "fou_%s_any", what);
	else
		snprintf(buf, len, "fou_%s_%u", what, slot);
}

/*
 * Make the pools of every socket that has a worker or the main lcore. Each
 * is sized as the single pool was, for its socket's workers: their RX and
 * TX queues full, their TX buffers and GRO tables full; plus what may hold
 * any socket's mbufs: every lcore's cache, the packets waiting for a
 * neighbour and the inject and local-stack rings, and per kernel interface
 * (--punt) its ring and its RX queue. Returns false after printing which
 * pool could not be made.
 */
static bool
fou_app_pools_create(unsigned int nb_ports, unsigned int nb_workers, unsigned int nb_punt)
{
	const unsigned int nb_lcores = rte_lcore_count();
	unsigned int lcore, s;
	char name[RTE_MEMPOOL_NAMESIZE], where[32];

	fou_app_pool_of(rte_get_main_lcore())->main = true;
	RTE_LCORE_FOREACH_WORKER(lcore)
		fou_app_pool_of(lcore)->workers++;
	for (s = 0; s < RTE_DIM(fou_app_pools); s++) {
		struct fou_app_pool *p = &fou_app_pools[s];
		const unsigned int w = p->workers;
		const int socket = fou_app_pool_socket(s);
		unsigned int n;

		if (w == 0 && !p->main)
			continue;
		/* every queue full, every tx buffer full, every lcore cache
		 * full, every GRO table full; resegmented packets' headers and
		 * the payloads they point to fill the TX queues twice over, as
		 * do fragments (one mbuf each, or a header and what it points
		 * to: beyond that, a fragment is dropped as frag_nomem) */
		n = nb_ports * w * (1024 + 2 * 1024 + FOU_BURST) +
		    w * FOU_GRO_FLOWS * FOU_GRO_MAX_SEGS +
		    nb_lcores * (FOU_MBUF_CACHE + FOU_BURST) +
		    /* what waits for a neighbour, and the local stack's rings */
		    FOU_NEIGH_HELD_MAX + 1024 + nb_workers * 1024 +
		    /* the fragments its workers' reassembly tables hold */
		    w * (FOU_REASM_MEM / nb_workers) /
		    (unsigned int)(sizeof(struct rte_mbuf) + RTE_MBUF_DEFAULT_BUF_SIZE) +
		    nb_punt * (1024 + 256 + FOU_BURST);
		n = RTE_MAX(n, 8192u);
		fou_app_pool_name(name, sizeof(name), "mbufs", s);
		p->direct = rte_pktmbuf_pool_create(name, n, FOU_MBUF_CACHE, 0,
						    RTE_MBUF_DEFAULT_BUF_SIZE, socket);
		if (p->direct == NULL) {
			fprintf(stderr, "dpdk-fou: cannot create a pool of %u mbufs on %s: %s%s\n",
				n, fou_app_pool_where(s, where, sizeof(where)),
				rte_strerror(rte_errno),
				socket < 0 ? "" : " (too few free hugepages on that NUMA node, or its --socket-limit)");
			return false;
		}
		/* rte_gso's segments point into the merged packet with these,
		 * and fragments larger than an mbuf into the packet cut */
		n = nb_ports * w * (1024 + FOU_BURST) + w * FOU_GRO_MAX_SEGS +
		    nb_lcores * FOU_MBUF_CACHE;
		fou_app_pool_name(name, sizeof(name), "indirect", s);
		p->indirect = rte_pktmbuf_pool_create(name, n, FOU_MBUF_CACHE, 0, 0, socket);
		if (p->indirect == NULL) {
			fprintf(stderr, "dpdk-fou: cannot create a pool of %u indirect mbufs on %s: %s%s\n",
				n, fou_app_pool_where(s, where, sizeof(where)),
				rte_strerror(rte_errno),
				socket < 0 ? "" : " (too few free hugepages on that NUMA node, or its --socket-limit)");
			return false;
		}
	}
	return true;
}

/* The startup line of each socket's pools. */
static void
fou_app_pools_print(void)
{
	unsigned int s, lcore;
	char where[32];

	for (s = 0; s < RTE_DIM(fou_app_pools); s++) {
		const struct fou_app_pool *p = &fou_app_pools[s];
		struct fou_line line = { .n = 0 };

		if (p->direct == NULL)
			continue;
		fou_line_add(&line, "mbuf pool on %s", fou_app_pool_where(s, where, sizeof(where)));
		fou_line_add(&line, ": %u mbufs, %u indirect, for lcores", p->direct->size,
			     p->indirect->size);
		RTE_LCORE_FOREACH(lcore)
			if (fou_app_pool_of(lcore) == p)
				fou_line_add(&line, " %u", lcore);
		FOU_LOG(INFO, app, "%s", line.s);
	}
}

/*
 * Every mbuf back in its pool (printed after a run: one line of each kind,
 * summed over the sockets, which tests and scripts read; a line per socket
 * before them when there are several); frees the pools.
 */
static bool
fou_app_pools_check(int status)
{
	unsigned int avail[2] = { 0, 0 }, size[2] = { 0, 0 }, nb = 0, s, k;
	static const char *const what[2] = { "", "indirect " };
	char where[32];
	bool ok = true;

	for (s = 0; s < RTE_DIM(fou_app_pools); s++)
		nb += fou_app_pools[s].direct != NULL;
	for (s = 0; s < RTE_DIM(fou_app_pools); s++) {
		struct fou_app_pool *p = &fou_app_pools[s];
		struct rte_mempool *mp[2] = { p->direct, p->indirect };

		for (k = 0; k < 2; k++) {
			unsigned int a;

			if (mp[k] == NULL)
				continue;
			a = rte_mempool_avail_count(mp[k]);
			if (nb > 1 && status != FOU_APP_EXIT_USAGE)
				printf("%s: %smbufs: %u of %u back in the pool: %s\n",
				       fou_app_pool_where(s, where, sizeof(where)), what[k], a,
				       mp[k]->size, a == mp[k]->size ? "ok" : "LEAK");
			avail[k] += a;
			size[k] += mp[k]->size;
			ok = ok && a == mp[k]->size;
			rte_mempool_free(mp[k]);
		}
		p->direct = p->indirect = NULL;
	}
	for (k = 0; k < 2 && nb > 0; k++)
		if (status != FOU_APP_EXIT_USAGE)
			printf("%smbufs: %u of %u back in the pool: %s\n", what[k], avail[k], size[k],
			       avail[k] == size[k] ? "ok" : "LEAK");
	return ok;
}

/* One line per tunnel: its configuration at startup (logged), or what it
 * did in the exit summary (printed). */
static void
fou_app_print_tunnels(struct fou_gw *gw, bool counters)
{
	unsigned int n = fou_tunnel_list(gw, NULL, 0), i;
	struct fou_tunnel_info *ti;

	if (n == 0)
		return;
	ti = calloc(n, sizeof(*ti));
	if (ti == NULL)
		return;
	n = RTE_MIN(n, fou_tunnel_list(gw, ti, n));
	for (i = 0; i < n; i++) {
		const struct fou_tunnel_conf *c = &ti[i].conf;
		char l[INET_ADDRSTRLEN], r[INET_ADDRSTRLEN];
		struct fou_line line = { .n = 0 };

		if (counters) {
			printf("tunnel %s: encapsulated %" PRIu64 " (%" PRIu64 " bytes)"
			       " decapsulated %" PRIu64 " (%" PRIu64 " bytes)\n", c->name,
			       ti[i].tx_packets, ti[i].tx_bytes, ti[i].rx_packets, ti[i].rx_bytes);
			if (ti[i].tx_frags + ti[i].tx_outer_frags != 0)
				printf("tunnel %s: fragments inner %" PRIu64 " outer %" PRIu64 "\n",
				       c->name, ti[i].tx_frags, ti[i].tx_outer_frags);
			continue;
		}
		inet_ntop(c->local.family, c->local.family == AF_INET6 ? (const void *)c->local.v6 :
			  (const void *)&c->local.v4, l, sizeof(l));
		inet_ntop(c->remote.family, c->remote.family == AF_INET6 ?
			  (const void *)c->remote.v6 : (const void *)&c->remote.v4, r, sizeof(r));
		fou_line_add(&line, "tunnel %s: %s%s%s local %s remote %s encap %s", c->name,
			     fou_tunnel_type_name(c), fou_tunnel_mode_name(c) ? " " : "",
			     fou_tunnel_mode_name(c) ? fou_tunnel_mode_name(c) : "", l, r,
			     fou_encap_name(c->encap));
		if (c->encap != FOU_ENCAP_NONE)
			fou_line_add(&line, " dport %u", c->encap_dport);
		if (ti[i].unresolved == NULL)
			fou_line_add(&line, " mtu %u", ti[i].mtu);
		else
			fou_line_add(&line, " (%s)", ti[i].unresolved);
		FOU_LOG(INFO, app, "%s", line.s);
	}
	free(ti);
}

/* Names of the offloads a port uses, for the startup lines. */
static void
fou_app_line_offloads(struct fou_line *line, uint64_t tx_offloads)
{
	if (tx_offloads & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM)
		fou_line_add(line, " ipv4_cksum");
	if (tx_offloads & RTE_ETH_TX_OFFLOAD_UDP_CKSUM)
		fou_line_add(line, " udp_cksum");
	if (tx_offloads & RTE_ETH_TX_OFFLOAD_TCP_TSO)
		fou_line_add(line, " tcp_tso");
	if (!(tx_offloads & (RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_TSO)))
		fou_line_add(line, " none (checksums in software)");
}

/* The startup lines (tests and scripts read them: keep their text). */
static void
fou_app_print_config(struct fou_gw *gw, const struct fou_app_port *ports, unsigned int nb_workers,
		     uint16_t burst)
{
	struct fou_port_info info[FOU_MAX_UDP_PORTS];
	struct fou_gw_params lim;
	unsigned int n, i, lcore;
	uint16_t port;

	fou_gw_params_get(gw, &lim);
	FOU_LOG(INFO, app, "tables: tunnels %u, routes4 %u, routes6 %u, neigh %u: %.1f MiB",
		lim.max_tunnels, lim.max_routes4, lim.max_routes6, lim.max_neighs,
		(double)fou_gw_memsize(gw) / (1024 * 1024));
	fou_app_pools_print();

	RTE_ETH_FOREACH_DEV(port) {
		struct rte_ether_addr mac;
		char macs[RTE_ETHER_ADDR_FMT_SIZE], name[RTE_ETH_NAME_MAX_LEN] = "?";
		char lls[INET6_ADDRSTRLEN];
		const struct fou_app_port *p = &ports[port];
		struct fou_line line = { .n = 0 };
		struct fou_ip ll;
		uint16_t mtu;

		fou_iface_get(gw, port, &mac, &mtu);
		fou_iface_ll6(gw, port, &ll);
		rte_ether_format_addr(macs, sizeof(macs), &mac);
		rte_eth_dev_get_name_by_port(port, name);
		fou_line_add(&line, "port %u (%s): mac %s mtu %u, link-local %s, %u rx / %u tx queues, rss %s, tx offloads",
			     port, name, macs, mtu, fou_ip_str(&ll, lls, sizeof(lls)), p->nb_rxq,
			     p->nb_txq, p->rss_hf != 0 ? "on" : "off");
		fou_app_line_offloads(&line, p->tx_offloads);
		FOU_LOG(INFO, port, "%s", line.s);
	}
	n = fou_punt_list(gw, NULL, 0);
	if (n != 0) {
		struct fou_punt_info *pi = calloc(n, sizeof(*pi));

		n = pi == NULL ? 0 : RTE_MIN(n, fou_punt_list(gw, pi, n));
		for (i = 0; i < n; i++) {
			struct fou_line line = { .n = 0 };

			fou_line_add(&line, "port %u: kernel interface %s (ifindex %d, net_tap port %u), ",
				     pi[i].port, pi[i].conf.ifname, pi[i].ifindex, pi[i].dev_port);
			if (pi[i].conf.rate == 0)
				fou_line_add(&line, "no rate limit");
			else
				fou_line_add(&line, "up to %u/s per lcore, burst %u", pi[i].conf.rate,
					     pi[i].conf.burst);
			FOU_LOG(INFO, port, "%s", line.s);
		}
		free(pi);
	}
	FOU_LOG(INFO, app, "worker lcores: %u, rx burst size %u", nb_workers, burst);
	RTE_LCORE_FOREACH_WORKER(lcore) {
		const struct fou_worker_conf *c = fou_worker_get(gw, lcore);
		struct fou_line line = { .n = 0 };

		fou_line_add(&line, "lcore %u: tx queue %u on every port, rx", lcore, c->tx_queue);
		for (i = 0; i < c->nb_rxq; i++)
			fou_line_add(&line, " port %u queue %u%s", c->rxq[i].port, c->rxq[i].queue,
				     i + 1 < c->nb_rxq ? "," : "");
		fou_line_add(&line, "%s", c->nb_rxq == 0 ? " none" : "");
		FOU_LOG(INFO, app, "%s", line.s);
	}
	n = fou_port_list(gw, info, RTE_DIM(info));
	for (i = 0; i < n; i++) {
		const char *name = fou_proto_name(info[i].ipproto);

		const char *v6 = info[i].family == AF_INET6 ? " over ipv6" : "";

		if (info[i].gue)
			FOU_LOG(INFO, app, "fou port %u%s: gue", info[i].udp_port, v6);
		else
			FOU_LOG(INFO, app, "fou port %u%s: ipproto %u (%s)", info[i].udp_port, v6,
				info[i].ipproto, name != NULL ? name : "no handler");
	}
	fou_app_print_tunnels(gw, false);
}

/* Print what the run did; returns false if a packet is unaccounted for. */
static bool
fou_app_print_stats(struct fou_gw *gw)
{
	struct fou_port_info info[FOU_MAX_UDP_PORTS];
	struct fou_lcore_stats s;
	uint64_t rx = 0, tx = 0, drops;
	unsigned int n, i;
	uint16_t port;

	fou_stats_sum(gw, &s);
	RTE_ETH_FOREACH_DEV(port) {
		struct rte_eth_stats es;

		rx += s.rx[port];
		tx += s.tx[port];
		printf("port %u: rx %" PRIu64 " tx %" PRIu64, port, s.rx[port], s.tx[port]);
		if (s.frag_port[port] != 0)
			printf(" fragments %" PRIu64, s.frag_port[port]);
		if (rte_eth_stats_get(port, &es) == 0 && (es.imissed || es.rx_nombuf || es.oerrors))
			printf(" (device: imissed %" PRIu64 " rx_nombuf %" PRIu64 " oerrors %" PRIu64 ")",
			       es.imissed, es.rx_nombuf, es.oerrors);
		printf("\n");
	}
	printf("decapsulated: %" PRIu64 " (ipv4 %" PRIu64 ", ipv6 %" PRIu64 ")\n",
	       s.decap_inner[FOU_INNER_IPV4] + s.decap_inner[FOU_INNER_IPV6],
	       s.decap_inner[FOU_INNER_IPV4], s.decap_inner[FOU_INNER_IPV6]);
	n = fou_port_list(gw, info, RTE_DIM(info));
	for (i = 0; i < n; i++)
		printf("decap fou port %u%s: %" PRIu64 "\n", info[i].udp_port,
		       info[i].family == AF_INET6 ? " over ipv6" : "", s.decap[info[i].slot]);
	if (s.decap[0] != 0)
		printf("decap plain: %" PRIu64 "\n", s.decap[0]);
	fou_app_print_tunnels(gw, true);
	for (i = 0; i < FOU_ICMP_MAX; i++)
		if (s.icmp_out[i] != 0)
			printf("sent %s: %" PRIu64 " (%s)\n", fou_icmp_name(i), s.icmp_out[i],
			       fou_icmp_desc(i));
	for (i = 0; i < FOU_LOCAL_MAX; i++)
		if (s.local[i] != 0)
			printf("local %s: %" PRIu64 " (%s)\n", fou_local_name(i), s.local[i],
			       fou_local_desc(i));
	for (i = 0; i < FOU_PUNT_MAX; i++)
		if (s.punt[i] != 0)
			printf("punt %s: %" PRIu64 " (%s)\n", fou_punt_name(i), s.punt[i],
			       fou_punt_desc(i));
	drops = fou_stats_drops(&s);
	printf("dropped: %" PRIu64 "\n", drops);
	for (i = 0; i < FOU_DROP_MAX; i++)
		if (s.drop[i] != 0)
			printf("drop %s: %" PRIu64 " (%s)\n", fou_drop_name(i), s.drop[i],
			       fou_drop_desc(i));
	printf("gro: merged %" PRIu64 ", flushed %" PRIu64 ", tso %" PRIu64 ", gso packets %" PRIu64
	       ", segments %" PRIu64 "\n", s.gro_merged, s.gro_flushed, s.gro_tso, s.gso_packets,
	       s.gso_segments);
	printf("frag: packets %" PRIu64 ", fragments %" PRIu64 "\n", s.frag_packets,
	       s.frag_fragments);
	printf("reassembly: datagrams %" PRIu64 ", fragments absorbed %" PRIu64 "\n",
	       s.reasm_datagrams, s.reasm_absorbed);
	printf("accounting: rx %" PRIu64 " + originated %" PRIu64 " + gso added %" PRIu64
	       " + frags added %" PRIu64 " + punt in %" PRIu64
	       " = tx %" PRIu64 " + dropped %" PRIu64 " + gro merged %" PRIu64 " + held %" PRIu64
	       " + consumed %" PRIu64 " + reasm absorbed %" PRIu64 " + reasm held %" PRIu64
	       " + punted %" PRIu64 ": %s\n", rx, s.local[FOU_LOCAL_ORIGINATED],
	       s.gso_segments - s.gso_packets, fou_stats_frag_added(&s), fou_stats_punt_in(&s),
	       tx, drops, s.gro_merged, fou_stats_held(&s), s.local[FOU_LOCAL_CONSUMED],
	       s.reasm_absorbed, fou_stats_reasm_held(&s), fou_stats_punted(&s),
	       fou_stats_balanced(&s) ? "ok" : "MISMATCH");
	return fou_stats_balanced(&s);
}

int
main(int argc, char **argv)
{
	static struct fou_worker workers[RTE_MAX_LCORE];
	static struct fou_app_port ports[RTE_MAX_ETHPORTS];
	struct fou_gw_params params;
	struct fou_app_opts opts = { 0 };
	struct fou_err err = { "" };
	static struct fou_app_mem mem[RTE_MAX_LCORE];	/* by worker number */
	struct fou_app_mem cmem;
	struct fou_lcore *ctl = NULL;
	struct fou_gw *gw = NULL;
	unsigned int lcore, nb_workers, nb_ports, q;
	uint16_t port;
	int ret, status = FOU_APP_EXIT_USAGE;
	bool started[RTE_MAX_ETHPORTS] = { false }, pdump = false, ok;

	fou_app_log_init(argc, argv);
	/*
	 * Before the EAL opens the telemetry socket, as DPDK's libraries
	 * register theirs (from constructors): a client that connects as soon
	 * as the socket appears gets "not ready" (-EAGAIN) until
	 * fou_telemetry_start(), never an unknown command (null) that a
	 * script might take for done.
	 */
	ret = fou_telemetry_register();
	if (ret != 0) {
		fprintf(stderr, "dpdk-fou: cannot register the telemetry commands: %s\n",
			strerror(-ret));
		return FOU_APP_EXIT_USAGE;
	}
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "dpdk-fou: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
		return FOU_APP_EXIT_USAGE;
	}
	argc -= ret;
	argv += ret;
	signal(SIGINT, fou_app_signal);
	signal(SIGTERM, fou_app_signal);

	/* the table sizes first: the gateway is made with them */
	fou_gw_params_default(&params);
	params.socket_id = fou_app_mem_socket(rte_get_main_lcore());
	ret = fou_app_args_parse(argc, argv, &params, &opts);
	if (ret != 0) {
		status = ret > 0 ? EXIT_SUCCESS : FOU_APP_EXIT_USAGE;
		goto out;
	}
	gw = fou_gw_create(&params, &err);
	if (gw == NULL) {
		fprintf(stderr, "dpdk-fou: %s\n", err.msg);
		goto out;
	}
	RTE_ETH_FOREACH_DEV(port) {
		struct rte_ether_addr mac;

		if (rte_eth_macaddr_get(port, &mac) != 0 ||
		    fou_iface_set(gw, port, &mac, RTE_ETHER_MTU, &err) != 0) {
			fprintf(stderr, "dpdk-fou: port %u: %s\n", port, err.msg);
			goto out;
		}
	}
	if (fou_app_args_apply(gw, &opts) != 0)
		goto out;

	nb_workers = rte_lcore_count() - 1;
	nb_ports = rte_eth_dev_count_avail();
	if (nb_workers == 0) {
		fprintf(stderr, "dpdk-fou: no worker lcore: give the EAL at least two lcores (-l 0-1)\n");
		goto out;
	}
	if (nb_ports == 0) {
		fprintf(stderr, "dpdk-fou: no DPDK port (add a NIC or --vdev)\n");
		goto out;
	}

	if (!fou_app_pools_create(nb_ports, nb_workers, fou_punt_list(gw, NULL, 0)))
		goto out;
	q = 0;
	RTE_LCORE_FOREACH_WORKER(lcore)
		mem[q++] = fou_app_mem_of(lcore);

	RTE_ETH_FOREACH_DEV(port) {
		if (fou_app_port_start(gw, port, (uint16_t)nb_workers, mem, &ports[port]) != 0)
			goto out;
		started[port] = true;
		if (fou_iface_tx_offload_set(gw, port, ports[port].tx_offloads, &err) != 0) {
			fprintf(stderr, "dpdk-fou: %s\n", err.msg);
			goto out;
		}
	}
	q = 0;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (fou_worker_init(&workers[lcore], gw, lcore, (uint16_t)q, opts.burst, ports,
				    &mem[q]) != 0)
			goto out;
		q++;
	}
	cmem = fou_app_mem_of(rte_get_main_lcore());
	ctl = fou_lcore_create(gw, FOU_LCORE_CONTROL, &(struct fou_lcore_conf){
		.direct = cmem.direct, .indirect = cmem.indirect, .ip_id = (uint16_t)rte_rand(),
		.socket_id = cmem.socket }, &err);
	if (ctl == NULL) {
		fprintf(stderr, "dpdk-fou: %s\n", err.msg);
		goto out;
	}
	/* the kernel interfaces (--punt): the ports run, the workers do not yet */
	if (fou_punt_start(gw, cmem.direct, &err) != 0) {
		fprintf(stderr, "dpdk-fou: %s\n", err.msg);
		goto out;
	}
	/* Only now: a capture asked for before the ports have their queues
	 * would be refused. rte_pdump installs its RX/TX callbacks when a
	 * dpdk-dumpcap starts and removes them when it stops, so a gateway
	 * nobody captures from runs its bursts as if this were not here. */
	if (!opts.no_pdump && rte_eal_process_type() == RTE_PROC_PRIMARY) {
		if (rte_pdump_init() != 0) {
			fprintf(stderr, "dpdk-fou: cannot initialise packet capture (rte_pdump): %s"
				" (--no-pdump runs without it)\n", rte_strerror(rte_errno));
			goto out;
		}
		pdump = true;
	}
	fou_app_print_config(gw, ports, nb_workers, opts.burst);
	/* from here on a link change goes to the ethdev too */
	fou_gw_ports_running(gw);
	RTE_LCORE_FOREACH_WORKER(lcore)
		rte_eal_remote_launch(fou_worker_main, &workers[lcore], lcore);
	/* the telemetry commands are the only writer from now on; once they
	 * work the gateway is ready */
	fou_telemetry_start(gw);
	fou_app_notify("READY=1\nSTATUS=forwarding: %u ports, %u worker lcores", nb_ports,
		       nb_workers);

	uint64_t t0 = rte_get_timer_cycles();

	fou_app_monitor(gw, ctl, &opts);
	fou_telemetry_stop();		/* no command changes what the summary reads */
	fou_app_notify("STOPPING=1\nSTATUS=stopping");
	rte_eal_mp_wait_lcore();
	fou_neigh_stop(gw);		/* what waited for a neighbour is dropped */
	fou_probe_stop(gw);		/* returned probes not looked at go */
	fou_punt_stop(gw);		/* what was handed up goes; the interfaces too */
	printf("dpdk-fou: stopped after %.2f s\n",
	       (double)(rte_get_timer_cycles() - t0) / (double)rte_get_timer_hz());
	ok = fou_app_print_stats(gw);
	status = ok ? EXIT_SUCCESS : EXIT_FAILURE;

out:
	fou_app_args_free(&opts);	/* statements read and not applied */
	fou_telemetry_stop();		/* a start that failed answers "stopping" */
	RTE_LCORE_FOREACH_WORKER(lcore)
		fou_worker_fini(&workers[lcore]);
	fou_neigh_stop(gw);
	fou_probe_stop(gw);
	fou_punt_stop(gw);
	fou_lcore_free(ctl);
	/* the workers are stopped: no callback of a capture still running */
	if (pdump)
		rte_pdump_uninit();
	RTE_ETH_FOREACH_DEV(port) {
		if (started[port])
			rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
	if (!fou_app_pools_check(status) && status == EXIT_SUCCESS)
		status = EXIT_FAILURE;
	fou_gw_free(gw);
	fflush(stdout);
	rte_eal_cleanup();
	return status;
}
