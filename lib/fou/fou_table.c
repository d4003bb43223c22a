/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The gateway tables and their control operations: interfaces, FOU receive
 * ports, local addresses, routes (rte_lpm / rte_lpm6) and neighbours
 * (rte_hash). Each operation checks everything first and changes nothing
 * when it fails.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>

#include "fou_fwd.h"

void
fou_err_set(struct fou_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* Names and descriptions of the X-macro lists in fou.h, in enum order. */
struct fou_named {
	const char *name;
	const char *desc;
};
#define FOU_NAMED(e, n, d) { #n, d },
static const struct fou_named fou_drops[] = { FOU_DROP_REASONS(FOU_NAMED) };
static const struct fou_named fou_icmp_kinds[] = { FOU_ICMP_KINDS(FOU_NAMED) };
#undef FOU_NAMED
static_assert(RTE_DIM(fou_drops) == FOU_DROP_MAX, "drop reasons and their names differ");
static_assert(RTE_DIM(fou_icmp_kinds) == FOU_ICMP_MAX, "ICMP kinds and their names differ");

void
fou_gw_params_default(struct fou_gw_params *p)
{
	p->max_routes4 = 65536;
	p->max_routes6 = 65536;
	p->max_neighs = 4096;
	p->max_nexthops = 4096;
	p->max_tunnels = 1024;
	p->socket_id = SOCKET_ID_ANY;
}

/* Names of DPDK objects must be unique per process: several gateways may
 * exist at once in the unit tests. */
static void
fou_obj_name(char *buf, size_t len, const char *what, const struct fou_gw *gw)
{
	snprintf(buf, len, "fou_%s_%p", what, (const void *)gw);
}

/* The tables the data path reads: lock-free readers, memory reused only
 * after a grace period of gw->qsbr (SYNC mode: the delete waits). */
static int
fou_gw_rcu_attach(struct fou_gw *gw)
{
	int ret;

	ret = rte_lpm_rcu_qsbr_add(gw->lpm4, &(struct rte_lpm_rcu_config){
		.v = gw->qsbr, .mode = RTE_LPM_QSBR_MODE_SYNC });
	if (ret == 0)
		ret = rte_hash_rcu_qsbr_add(gw->neigh, &(struct rte_hash_rcu_config){
			.v = gw->qsbr, .mode = RTE_HASH_QSBR_MODE_SYNC });
	if (ret == 0)
		ret = rte_hash_rcu_qsbr_add(gw->tun_rx, &(struct rte_hash_rcu_config){
			.v = gw->qsbr, .mode = RTE_HASH_QSBR_MODE_SYNC });
	return ret;
}

/*
 * Slots for an rte_hash that must hold n keys, whatever they are: a cuckoo
 * hash of exactly n slots refuses a key a little before it is full (when
 * no displacement path is found), so it gets twice the room; the tables
 * count their entries against their maximum themselves.
 */
static uint32_t
fou_hash_room(uint32_t n)
{
	return 2 * RTE_MAX(n, 8u);
}

struct fou_gw *
fou_gw_create(const struct fou_gw_params *p, struct fou_err *err)
{
	struct fou_gw *gw;
	char name[RTE_HASH_NAMESIZE];
	size_t qsz = rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE);

	gw = rte_zmalloc_socket("fou_gw", sizeof(*gw), RTE_CACHE_LINE_SIZE, p->socket_id);
	if (gw == NULL) {
		fou_err_set(err, "cannot allocate the gateway");
		return NULL;
	}
	gw->params = *p;
	gw->addrs = &gw->addr_sets[0];

	rte_errno = ENOMEM;	/* rte_zmalloc does not set it */
	gw->qsbr = rte_zmalloc_socket("fou_qsbr", qsz, RTE_CACHE_LINE_SIZE, p->socket_id);
	if (gw->qsbr == NULL || rte_rcu_qsbr_init(gw->qsbr, RTE_MAX_LCORE) != 0)
		goto fail;
	/* rte_errno of the first failure: later calls may change it */
	fou_obj_name(name, sizeof(name), "lpm4", gw);
	gw->lpm4 = rte_lpm_create(name, p->socket_id,
				  &(struct rte_lpm_config){ .max_rules = p->max_routes4,
							    .number_tbl8s = 1 << 12 });
	if (gw->lpm4 == NULL)
		goto fail;
	fou_obj_name(name, sizeof(name), "lpm6", gw);
	gw->lpm6 = rte_lpm6_create(name, p->socket_id,
				   &(struct rte_lpm6_config){ .max_rules = p->max_routes6,
							      .number_tbl8s = 1 << 16 });
	if (gw->lpm6 == NULL)
		goto fail;
	fou_obj_name(name, sizeof(name), "neigh", gw);
	gw->neigh = rte_hash_create(&(struct rte_hash_parameters){
		.name = name,
		.entries = fou_hash_room(p->max_neighs),
		.key_len = sizeof(struct fou_neigh_key),
		.hash_func = rte_hash_crc,
		.socket_id = p->socket_id,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	});
	if (gw->neigh == NULL)
		goto fail;
	fou_obj_name(name, sizeof(name), "tun", gw);
	gw->tun_names = rte_hash_create(&(struct rte_hash_parameters){
		.name = name,
		.entries = fou_hash_room(p->max_tunnels),
		.key_len = FOU_TUNNEL_NAMESIZE,
		.hash_func = rte_hash_crc,
		.socket_id = p->socket_id,
	});
	if (gw->tun_names == NULL)
		goto fail;
	fou_obj_name(name, sizeof(name), "tunrx", gw);
	gw->tun_rx = rte_hash_create(&(struct rte_hash_parameters){
		.name = name,
		.entries = fou_hash_room(p->max_tunnels),
		.key_len = sizeof(struct fou_tun_key),
		.hash_func = rte_hash_crc,
		.socket_id = p->socket_id,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	});
	if (gw->tun_rx == NULL || fou_gw_rcu_attach(gw) != 0)
		goto fail;
	rte_errno = ENOMEM;
	gw->max_routes = p->max_routes4 + p->max_routes6 + 2;	/* + the default routes */
	gw->routes = rte_zmalloc_socket("fou_routes", sizeof(*gw->routes) * gw->max_routes, 0,
					p->socket_id);
	gw->stats_base = rte_zmalloc_socket("fou_stats_base",
					    sizeof(*gw->stats_base) * RTE_MAX_LCORE,
					    RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->tun_base = rte_zmalloc_socket("fou_tun_base",
					  sizeof(*gw->tun_base) * RTE_MAX(p->max_tunnels, 1u), 0,
					  p->socket_id);
	gw->nh = rte_zmalloc_socket("fou_nh", sizeof(*gw->nh) * p->max_nexthops,
				    RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->stats = rte_zmalloc_socket("fou_stats", sizeof(*gw->stats) * RTE_MAX_LCORE,
				       RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->tunnels = rte_zmalloc_socket("fou_tunnels", sizeof(*gw->tunnels) * p->max_tunnels,
					 RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->tun_stats = rte_zmalloc_socket("fou_tun_stats", sizeof(*gw->tun_stats) *
					   (size_t)p->max_tunnels * RTE_MAX_LCORE,
					   RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->workers = rte_zmalloc_socket("fou_workers", sizeof(*gw->workers) * RTE_MAX_LCORE,
					 RTE_CACHE_LINE_SIZE, p->socket_id);
	if (gw->routes == NULL || gw->stats_base == NULL || gw->tun_base == NULL ||
	    gw->nh == NULL || gw->stats == NULL || gw->workers == NULL ||
	    (p->max_tunnels != 0 && (gw->tunnels == NULL || gw->tun_stats == NULL)))
		goto fail;
	gw->gro_tag_off = rte_mbuf_dynfield_register(&(struct rte_mbuf_dynfield){
		.name = "fou_gro_tag",
		.size = sizeof(struct fou_gro_tag),
		.align = __alignof__(struct fou_gro_tag),
	});
	if (gw->gro_tag_off < 0)
		goto fail;
	gw->sport_range = 32768u << 16 | 60999u;
	gw->icmp_limit = 1000ull << 32 | 50u;
	return gw;

fail:
	fou_err_set(err, "cannot allocate the gateway tables: %s", rte_strerror(rte_errno));
	fou_gw_free(gw);
	return NULL;
}

void
fou_gw_free(struct fou_gw *gw)
{
	if (gw == NULL)
		return;
	fou_telemetry_detach(gw);
	rte_lpm_free(gw->lpm4);
	rte_lpm6_free(gw->lpm6);
	rte_hash_free(gw->neigh);
	rte_hash_free(gw->tun_names);
	rte_hash_free(gw->tun_rx);
	rte_free(gw->tunnels);
	rte_free(gw->tun_stats);
	rte_free(gw->nh);
	rte_free(gw->stats);
	rte_free(gw->workers);
	rte_free(gw->routes);
	rte_free(gw->stats_base);
	rte_free(gw->tun_base);
	rte_free(gw->qsbr);
	rte_free(gw);
}

void
fou_gw_sync(const struct fou_gw *gw)
{
	rte_rcu_qsbr_synchronize(gw->qsbr, RTE_QSBR_THRID_INVALID);
}

int
fou_lcore_reader_start(struct fou_gw *gw, unsigned int lcore_id)
{
	int ret;

	if (lcore_id >= RTE_MAX_LCORE)
		return -EINVAL;
	ret = rte_rcu_qsbr_thread_register(gw->qsbr, lcore_id);
	if (ret != 0)
		return ret;
	rte_rcu_qsbr_thread_online(gw->qsbr, lcore_id);
	__atomic_store_n(&gw->lcore_reader[lcore_id], 1, __ATOMIC_RELAXED);
	return 0;
}

void
fou_lcore_quiescent(struct fou_gw *gw, unsigned int lcore_id)
{
	rte_rcu_qsbr_quiescent(gw->qsbr, lcore_id);
}

void
fou_lcore_reader_stop(struct fou_gw *gw, unsigned int lcore_id)
{
	if (lcore_id >= RTE_MAX_LCORE)
		return;
	rte_rcu_qsbr_thread_offline(gw->qsbr, lcore_id);
	rte_rcu_qsbr_thread_unregister(gw->qsbr, lcore_id);
}

/* --- addresses as text, for messages ---------------------------------- */

const char *
fou_ip_str(const struct fou_ip *ip, char *buf, size_t len)
{
	if (inet_ntop(ip->family, ip->family == AF_INET ? (const void *)&ip->v4 :
			  (const void *)ip->v6, buf, len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

/* --- prefix arithmetic ------------------------------------------------ */

static uint8_t
fou_ip_maxlen(const struct fou_ip *ip)
{
	return ip->family == AF_INET ? 32 : 128;
}

/* Is bit i (0 = most significant) of the address set? */
static int
fou_ip_bit(const struct fou_ip *ip, unsigned int i)
{
	const uint8_t *b = ip->family == AF_INET ? (const uint8_t *)&ip->v4 : ip->v6;

	return (b[i / 8] >> (7 - i % 8)) & 1;
}

static void
fou_ip_mask(struct fou_ip *ip, uint8_t plen)
{
	uint8_t *b = ip->family == AF_INET ? (uint8_t *)&ip->v4 : ip->v6;
	unsigned int n = fou_ip_maxlen(ip) / 8, i;

	for (i = 0; i < n; i++) {
		if (plen >= 8 * (i + 1))
			continue;
		b[i] &= plen > 8 * i ? (uint8_t)(0xff << (8 - (plen - 8 * i))) : 0;
	}
}

static bool
fou_ip_equal(const struct fou_ip *a, const struct fou_ip *b)
{
	if (a->family != b->family)
		return false;
	return a->family == AF_INET ? a->v4 == b->v4 : memcmp(a->v6, b->v6, 16) == 0;
}

/* Does prefix p (its plen) contain address a? */
bool
fou_prefix_contains(const struct fou_ip *p, const struct fou_ip *a)
{
	unsigned int i;

	if (p->family != a->family)
		return false;
	for (i = 0; i < p->plen; i++)
		if (fou_ip_bit(p, i) != fou_ip_bit(a, i))
			return false;
	return true;
}

/* Unicast and usable as an interface address or next hop. */
static bool
fou_ip_is_unicast(const struct fou_ip *ip)
{
	if (ip->family == AF_INET) {
		uint32_t a = rte_be_to_cpu_32(ip->v4);

		return (a >> 24) != 0 && (a >> 24) != 127 && (a >> 28) != 0xe &&
		       a != 0xffffffff;
	}
	static const uint8_t zero[16], loop[16] = { [15] = 1 };

	return ip->v6[0] != 0xff && memcmp(ip->v6, zero, 16) != 0 &&
	       memcmp(ip->v6, loop, 16) != 0;
}

/* --- interfaces ------------------------------------------------------- */

static int
fou_iface_check(const struct fou_gw *gw, uint16_t port, struct fou_err *err)
{
	if (port >= RTE_MAX_ETHPORTS || !gw->iface[port].enabled) {
		fou_err_set(err, "no DPDK port %u", port);
		return -ENODEV;
	}
	return 0;
}

/* The port's MAC address, or promiscuous mode if it cannot change it. */
static int
fou_iface_program_mac(const struct fou_gw *gw, uint16_t port, const struct rte_ether_addr *mac,
		      struct fou_err *err)
{
	int ret;

	if (rte_is_same_ether_addr(mac, &gw->iface[port].mac))
		return 0;
	ret = rte_eth_dev_default_mac_addr_set(port, (struct rte_ether_addr *)(uintptr_t)mac);
	if (ret == -ENOTSUP)
		ret = rte_eth_promiscuous_enable(port);
	if (ret < 0 && ret != -ENOTSUP) {
		fou_err_set(err, "port %u: cannot set the MAC address: %s", port,
			    rte_strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * A started port takes the new MTU and MAC address itself; one that
 * cannot change its address gets everything (promiscuous mode) and the
 * data path filters in software, as at start. If the MAC address fails,
 * the port gets its old MTU back: nothing half-applied.
 */
static int
fou_iface_program(const struct fou_gw *gw, uint16_t port, const struct rte_ether_addr *mac,
		  uint16_t mtu, struct fou_err *err)
{
	uint16_t old_mtu = gw->iface[port].mtu;
	char msg[FOU_ERR_LEN];
	bool mtu_set;
	int ret = 0;

	if (!rte_eth_dev_is_valid_port(port))
		return 0;
	if (mtu != old_mtu)
		ret = rte_eth_dev_set_mtu(port, mtu);
	if (ret < 0 && ret != -ENOTSUP) {
		fou_err_set(err, "port %u: cannot set MTU %u: %s", port, mtu, rte_strerror(-ret));
		return ret;
	}
	mtu_set = mtu != old_mtu && ret == 0;
	ret = fou_iface_program_mac(gw, port, mac, err);
	if (ret < 0 && mtu_set && rte_eth_dev_set_mtu(port, old_mtu) < 0 && err != NULL) {
		snprintf(msg, sizeof(msg), "%s", err->msg);
		fou_err_set(err, "%s (and the port keeps MTU %u: cannot restore %u)", msg, mtu,
			    old_mtu);
	}
	return ret;
}

void
fou_gw_ports_running(struct fou_gw *gw)
{
	gw->ports_running = true;
}

int
fou_iface_set(struct fou_gw *gw, uint16_t port, const struct rte_ether_addr *mac, uint16_t mtu,
	      struct fou_err *err)
{
	if (port >= RTE_MAX_ETHPORTS) {
		fou_err_set(err, "DPDK port %u is beyond RTE_MAX_ETHPORTS", port);
		return -ENODEV;
	}
	if (!rte_is_unicast_ether_addr(mac) || rte_is_zero_ether_addr(mac)) {
		fou_err_set(err, "port %u: MAC address must be unicast and non-zero", port);
		return -EINVAL;
	}
	if (mtu < RTE_ETHER_MIN_MTU) {
		fou_err_set(err, "port %u: MTU %u below %u", port, mtu, RTE_ETHER_MIN_MTU);
		return -EINVAL;
	}
	if (gw->ports_running) {
		int ret = fou_iface_program(gw, port, mac, mtu, err);

		if (ret < 0)
			return ret;
	}
	/* A packet in flight may see half of a new MAC address: the data
	 * path does not stop for a link change, as a NIC's filter would not. */
	gw->iface[port].mac = *mac;
	__atomic_store_n(&gw->iface[port].mtu, mtu, __ATOMIC_RELEASE);
	__atomic_store_n(&gw->iface[port].enabled, 1, __ATOMIC_RELEASE);
	fou_gw_sync(gw);
	return 0;
}

bool
fou_iface_enabled(const struct fou_gw *gw, uint16_t port)
{
	return port < RTE_MAX_ETHPORTS && gw->iface[port].enabled;
}

int
fou_iface_get(const struct fou_gw *gw, uint16_t port, struct rte_ether_addr *mac, uint16_t *mtu)
{
	if (!fou_iface_enabled(gw, port))
		return -ENODEV;
	*mac = gw->iface[port].mac;
	*mtu = gw->iface[port].mtu;
	return 0;
}

int
fou_iface_tx_offload_set(struct fou_gw *gw, uint16_t port, uint64_t tx_offloads,
			 struct fou_err *err)
{
	uint8_t ol = 0;

	if (!fou_iface_enabled(gw, port)) {
		fou_err_set(err, "port %u is not a gateway port", port);
		return -ENODEV;
	}
	if (tx_offloads & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM)
		ol |= FOU_TXOL_IPV4;
	if (tx_offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		ol |= FOU_TXOL_MSEG;
	/* TSO also computes the IPv4 header and TCP checksums */
	if ((tx_offloads & RTE_ETH_TX_OFFLOAD_TCP_TSO) &&
	    (tx_offloads & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) &&
	    (tx_offloads & RTE_ETH_TX_OFFLOAD_TCP_CKSUM))
		ol |= FOU_TXOL_TSO;
	/* the UDP checksum offload also needs the IPv4 header flags */
	if ((tx_offloads & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) && (ol & FOU_TXOL_IPV4))
		ol |= FOU_TXOL_UDP;
	gw->iface[port].tx_ol = ol;
	return 0;
}

static void fou_gw_commit(struct fou_gw *gw);

/*
 * GRO on a receiving port. The data path reads the flag once per burst and
 * the hold time once per new flow; a flow held under the old time goes
 * when that is up.
 */
int
fou_gro_set(struct fou_gw *gw, uint16_t port, bool on, uint32_t timeout_us, struct fou_err *err)
{
	struct fou_iface *f;

	if (!fou_iface_enabled(gw, port)) {
		fou_err_set(err, "no DPDK port %u", port);
		return -ENODEV;
	}
	if (timeout_us > FOU_GRO_TIMEOUT_MAX_US) {
		fou_err_set(err, "timeout %u us is over the %u us maximum", timeout_us,
			    FOU_GRO_TIMEOUT_MAX_US);
		return -EINVAL;
	}
	f = &gw->iface[port];
	f->gro_timeout_us = on ? timeout_us : 0;
	__atomic_store_n(&f->gro_hold_tsc, rte_get_tsc_hz() / US_PER_S * f->gro_timeout_us,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&f->gro, on, __ATOMIC_RELEASE);
	fou_gw_commit(gw);
	return 0;
}

int
fou_gro_get(const struct fou_gw *gw, uint16_t port, bool *on, uint32_t *timeout_us)
{
	if (!fou_iface_enabled(gw, port))
		return -ENODEV;
	*on = gw->iface[port].gro != 0;
	*timeout_us = gw->iface[port].gro_timeout_us;
	return 0;
}

/* --- worker lcores ----------------------------------------------------- */

int
fou_worker_set(struct fou_gw *gw, unsigned int lcore_id, const struct fou_worker_conf *c,
	       struct fou_err *err)
{
	uint16_t i;

	if (lcore_id >= RTE_MAX_LCORE) {
		fou_err_set(err, "lcore %u is beyond RTE_MAX_LCORE", lcore_id);
		return -EINVAL;
	}
	if (c->nb_rxq > RTE_DIM(c->rxq)) {
		fou_err_set(err, "lcore %u: %u RX queues, at most %zu", lcore_id, c->nb_rxq,
			    RTE_DIM(c->rxq));
		return -EINVAL;
	}
	for (i = 0; i < c->nb_rxq; i++) {
		if (!fou_iface_enabled(gw, c->rxq[i].port)) {
			fou_err_set(err, "lcore %u: port %u is not a gateway port", lcore_id,
				    c->rxq[i].port);
			return -ENODEV;
		}
	}
	gw->workers[lcore_id] = *c;
	gw->is_worker[lcore_id] = true;
	return 0;
}

const struct fou_worker_conf *
fou_worker_get(const struct fou_gw *gw, unsigned int lcore_id)
{
	if (lcore_id >= RTE_MAX_LCORE || !gw->is_worker[lcore_id])
		return NULL;
	return &gw->workers[lcore_id];
}

/* --- FOU receive ports ------------------------------------------------ */

const char *
fou_proto_name(uint8_t ipproto)
{
	switch (ipproto) {
	case IPPROTO_IPIP:
		return "ipip";
	case IPPROTO_IPV6:
		return "sit";
	case IPPROTO_GRE:
		return "gre";
	default:
		return NULL;
	}
}

int
fou_port_add(struct fou_gw *gw, uint16_t udp_port, uint8_t ipproto, struct fou_err *err)
{
	unsigned int slot;

	if (udp_port == 0) {
		fou_err_set(err, "UDP port 0 is not a valid FOU port");
		return -EINVAL;
	}
	if (ipproto == 0) {
		fou_err_set(err, "IP protocol 0 is not a valid FOU protocol");
		return -EINVAL;
	}
	if (gw->udp_slot[udp_port] != 0) {
		fou_err_set(err, "UDP port %u is already a FOU port", udp_port);
		return -EEXIST;
	}
	for (slot = 1; slot <= FOU_MAX_UDP_PORTS; slot++)
		if (gw->udp[slot].ipproto == 0)
			break;
	if (slot > FOU_MAX_UDP_PORTS) {
		fou_err_set(err, "too many FOU ports (at most %u)", FOU_MAX_UDP_PORTS);
		return -ENOSPC;
	}
	gw->udp[slot].udp_port = udp_port;
	gw->udp[slot].ipproto = ipproto;
	/* the slot is complete before a reader can reach it */
	__atomic_store_n(&gw->udp_slot[udp_port], (uint8_t)slot, __ATOMIC_RELEASE);
	fou_gw_sync(gw);
	return 0;
}

int
fou_port_del(struct fou_gw *gw, uint16_t udp_port, uint8_t ipproto, struct fou_err *err)
{
	unsigned int slot = gw->udp_slot[udp_port], l;

	if (slot == 0) {
		fou_err_set(err, "UDP port %u is not a FOU port", udp_port);
		return -ENOENT;
	}
	if (ipproto != 0 && gw->udp[slot].ipproto != ipproto) {
		fou_err_set(err, "FOU port %u has protocol %u, not %u", udp_port,
			    gw->udp[slot].ipproto, ipproto);
		return -EINVAL;
	}
	__atomic_store_n(&gw->udp_slot[udp_port], 0, __ATOMIC_RELEASE);
	fou_gw_sync(gw);
	/* no worker counts for the slot any more: the next port starts at 0 */
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		__atomic_store_n(&gw->stats[l].decap[slot], 0, __ATOMIC_RELAXED);
		gw->stats_base[l].decap[slot] = 0;
	}
	gw->udp[slot] = (struct fou_udp_port){ 0 };
	return 0;
}

unsigned int
fou_port_list(const struct fou_gw *gw, struct fou_port_info *out, unsigned int n)
{
	unsigned int count = 0, p;

	for (p = 1; p <= UINT16_MAX; p++) {
		uint8_t slot = gw->udp_slot[p];

		if (slot == 0)
			continue;
		if (count < n)
			out[count] = (struct fou_port_info){
				.udp_port = (uint16_t)p,
				.ipproto = gw->udp[slot].ipproto,
				.slot = slot,
			};
		count++;
	}
	return count;
}

/* --- next hops -------------------------------------------------------- */

/* Find or allocate a next hop; returns its index, or -ENOSPC. */
static int
fou_nh_get(struct fou_gw *gw, uint8_t type, uint8_t family, uint16_t port,
	   const struct fou_ip *via, uint32_t tunnel)
{
	uint32_t i, free_slot = UINT32_MAX;

	for (i = 0; i < gw->params.max_nexthops; i++) {
		struct fou_nexthop *nh = &gw->nh[i];

		if (nh->type == 0) {
			if (free_slot == UINT32_MAX)
				free_slot = i;
			continue;
		}
		if (nh->type == type && nh->family == family && nh->port == port &&
		    (type != FOU_NH_GATEWAY || fou_ip_equal(&nh->gw, via)) &&
		    (type != FOU_NH_TUNNEL || nh->tunnel == tunnel)) {
			nh->refcnt++;
			return (int)i;
		}
	}
	if (free_slot == UINT32_MAX)
		return -ENOSPC;
	gw->nh[free_slot] = (struct fou_nexthop){
		.type = type,
		.family = family,
		.port = port,
		.tunnel = tunnel,
		.refcnt = 1,
	};
	if (type == FOU_NH_GATEWAY)
		gw->nh[free_slot].gw = *via;
	gw->nb_nh++;
	return (int)free_slot;
}

/* Drop a reference. A next hop nobody uses keeps its content until
 * fou_gw_commit(): a worker may still hold it. */
static void
fou_nh_put(struct fou_gw *gw, uint32_t idx)
{
	gw->nh[idx].refcnt--;
}

/*
 * The end of every control operation: wait for a grace period, so that
 * the change is in effect on every worker when the operation returns and
 * nothing unlinked is still in use; then free the next hops that lost
 * their last route.
 */
static void
fou_gw_commit(struct fou_gw *gw)
{
	uint32_t i;

	fou_gw_sync(gw);
	for (i = 0; i < gw->params.max_nexthops; i++) {
		if (gw->nh[i].type != 0 && gw->nh[i].refcnt == 0) {
			memset(&gw->nh[i], 0, sizeof(gw->nh[i]));
			gw->nb_nh--;
		}
	}
}

/* --- routes ----------------------------------------------------------- */

static bool
fou_route_exists(const struct fou_gw *gw, const struct fou_ip *prefix)
{
	uint32_t nh;

	if (prefix->plen == 0)
		return (prefix->family == AF_INET ? gw->default_nh4 : gw->default_nh6) != 0;
	if (prefix->family == AF_INET)
		return rte_lpm_is_rule_present(gw->lpm4, rte_be_to_cpu_32(prefix->v4),
					       prefix->plen, &nh) == 1;
	return rte_lpm6_is_rule_present(gw->lpm6, prefix->v6, prefix->plen, &nh) == 1;
}

/* Install prefix -> nh index in the LPM (or as the default route). */
static int
fou_route_install(struct fou_gw *gw, const struct fou_ip *prefix, uint32_t nh)
{
	if (prefix->plen == 0) {
		uint32_t *def = prefix->family == AF_INET ? &gw->default_nh4 : &gw->default_nh6;

		__atomic_store_n(def, nh + 1, __ATOMIC_RELEASE);
		return 0;
	}
	if (prefix->family == AF_INET)
		return rte_lpm_add(gw->lpm4, rte_be_to_cpu_32(prefix->v4), prefix->plen, nh);
	return rte_lpm6_add(gw->lpm6, prefix->v6, prefix->plen, nh);
}

/* Position of the route to prefix in gw->routes, or -1. */
static int
fou_route_find(const struct fou_gw *gw, const struct fou_ip *prefix)
{
	uint32_t i;

	for (i = 0; i < gw->nb_routes; i++)
		if (gw->routes[i].prefix.plen == prefix->plen &&
		    fou_ip_equal(&gw->routes[i].prefix, prefix))
			return (int)i;
	return -1;
}

/*
 * Take route i out of the LPM and the list and drop its next hop. rte_lpm
 * frees a tbl8 group only after a grace period (its RCU mode); rte_lpm6
 * puts a group back on its free list untouched, and it can be reused only
 * by a later add, which comes after this operation's grace period.
 */
static void
fou_route_uninstall(struct fou_gw *gw, uint32_t i)
{
	const struct fou_ip *prefix = &gw->routes[i].prefix;

	if (prefix->plen == 0)
		__atomic_store_n(prefix->family == AF_INET ? &gw->default_nh4 : &gw->default_nh6,
				 0, __ATOMIC_RELEASE);
	else if (prefix->family == AF_INET)
		rte_lpm_delete(gw->lpm4, rte_be_to_cpu_32(prefix->v4), prefix->plen);
	else
		rte_lpm6_delete(gw->lpm6, prefix->v6, prefix->plen);
	fou_nh_put(gw, gw->routes[i].nh);
	memmove(&gw->routes[i], &gw->routes[i + 1],
		(gw->nb_routes - i - 1) * sizeof(gw->routes[0]));
	gw->nb_routes--;
}

/* Add a route with a next hop of the given kind; the caller checked it.
 * Returns the next hop index. */
static int
fou_route_insert(struct fou_gw *gw, const struct fou_ip *prefix, uint8_t type, uint16_t port,
		 const struct fou_ip *via, uint32_t tunnel, bool from_addr, struct fou_err *err)
{
	int nh, ret;

	if (fou_route_exists(gw, prefix)) {
		fou_err_set(err, "a route to %s/%u exists", IPSTR(prefix), prefix->plen);
		return -EEXIST;
	}
	nh = fou_nh_get(gw, type, prefix->family, port, via, tunnel);
	if (nh < 0) {
		fou_err_set(err, "too many next hops (at most %u)", gw->params.max_nexthops);
		return nh;
	}
	ret = fou_route_install(gw, prefix, (uint32_t)nh);
	if (ret < 0) {
		fou_nh_put(gw, (uint32_t)nh);
		fou_err_set(err, "cannot add route to %s/%u: %s", IPSTR(prefix), prefix->plen,
			    ret == -ENOSPC ? "routing table full" : strerror(-ret));
		return ret;
	}
	/* max_routes is the LPMs' room and two default routes: never full here */
	gw->routes[gw->nb_routes++] = (struct fou_route){
		.prefix = *prefix, .nh = (uint32_t)nh, .from_addr = from_addr };
	return nh;
}

static const struct fou_addr *
fou_addr_find(const struct fou_gw *gw, const struct fou_ip *ip)
{
	unsigned int i;

	for (i = 0; i < gw->addrs->n; i++)
		if (fou_ip_equal(&gw->addrs->a[i].ip, ip))
			return &gw->addrs->a[i];
	return NULL;
}

/* Is ip on a network of an address of port other than skip? A route's
 * gateway must be (as in Linux). */
static bool
fou_addr_onlink(const struct fou_gw *gw, uint16_t port, const struct fou_ip *ip,
		const struct fou_addr *skip)
{
	unsigned int i;

	for (i = 0; i < gw->addrs->n; i++) {
		const struct fou_addr *a = &gw->addrs->a[i];

		if (a != skip && a->port == port && fou_prefix_contains(&a->ip, ip))
			return true;
	}
	return false;
}

static int
fou_prefix_check(const struct fou_ip *prefix, struct fou_err *err)
{
	struct fou_ip masked = *prefix;

	fou_ip_mask(&masked, prefix->plen);
	if (!fou_ip_equal(&masked, prefix)) {
		fou_err_set(err, "%s/%u has host bits set (the prefix is %s/%u)", IPSTR(prefix),
			    prefix->plen, IPSTR(&masked), prefix->plen);
		return -EINVAL;
	}
	return 0;
}

int
fou_route_add(struct fou_gw *gw, const struct fou_ip *prefix, uint16_t port,
	      const struct fou_ip *via, struct fou_err *err)
{
	int ret;

	ret = fou_iface_check(gw, port, err);
	if (ret == 0)
		ret = fou_prefix_check(prefix, err);
	if (ret < 0)
		return ret;
	if (via == NULL) {
		ret = fou_route_insert(gw, prefix, FOU_NH_CONNECTED, port, NULL, 0, false, err);
		goto out;
	}

	if (via->family != prefix->family) {
		fou_err_set(err, "gateway %s is not of the prefix's address family", IPSTR(via));
		return -EINVAL;
	}
	if (!fou_ip_is_unicast(via)) {
		fou_err_set(err, "gateway %s is not a unicast address", IPSTR(via));
		return -EINVAL;
	}
	if (fou_addr_find(gw, via) != NULL) {
		fou_err_set(err, "gateway %s is a local address", IPSTR(via));
		return -EINVAL;
	}
	if (!fou_addr_onlink(gw, port, via, NULL)) {
		fou_err_set(err, "gateway %s is not on a network of port %u (add an address first)",
			    IPSTR(via), port);
		return -ENETUNREACH;
	}
	ret = fou_route_insert(gw, prefix, FOU_NH_GATEWAY, port, via, 0, false, err);
out:
	fou_gw_commit(gw);
	return ret < 0 ? ret : 0;
}

int
fou_route_del(struct fou_gw *gw, const struct fou_ip *prefix, struct fou_err *err)
{
	int i = fou_route_find(gw, prefix);

	if (i < 0) {
		fou_err_set(err, "no route to %s/%u", IPSTR(prefix), prefix->plen);
		return -ESRCH;
	}
	if (gw->routes[i].from_addr) {
		fou_err_set(err, "the route to %s/%u comes with an address (delete the address)",
			    IPSTR(prefix), prefix->plen);
		return -EPERM;
	}
	fou_route_uninstall(gw, (uint32_t)i);
	fou_gw_commit(gw);
	return 0;
}

static const char *const fou_nh_type_names[] = {
	[FOU_NH_LOCAL] = "local",
	[FOU_NH_CONNECTED] = "connected",
	[FOU_NH_GATEWAY] = "gateway",
	[FOU_NH_TUNNEL] = "tunnel",
	[FOU_NH_BCAST] = "broadcast",
};

static void
fou_route_info_fill(const struct fou_gw *gw, const struct fou_route *r, struct fou_route_info *ri)
{
	const struct fou_nexthop *nh = &gw->nh[r->nh];

	memset(ri, 0, sizeof(*ri));
	ri->prefix = r->prefix;
	ri->type = fou_nh_type_names[nh->type];
	ri->port = nh->port;
	ri->from_addr = r->from_addr;
	if (nh->type == FOU_NH_GATEWAY)
		ri->via = nh->gw;
	if (nh->type == FOU_NH_TUNNEL)
		memcpy(ri->tunnel, gw->tunnels[nh->tunnel].conf.name, sizeof(ri->tunnel));
}

int
fou_route_get(const struct fou_gw *gw, const struct fou_ip *prefix, struct fou_route_info *ri)
{
	int i = fou_route_find(gw, prefix);

	if (i < 0)
		return -ESRCH;
	fou_route_info_fill(gw, &gw->routes[i], ri);
	return 0;
}

unsigned int
fou_route_list(const struct fou_gw *gw, struct fou_route_info *out, unsigned int n,
	       unsigned int offset)
{
	unsigned int i;

	for (i = 0; i < n && offset + i < gw->nb_routes; i++)
		fou_route_info_fill(gw, &gw->routes[offset + i], &out[i]);
	return gw->nb_routes;
}

/* --- local addresses -------------------------------------------------- */

/* The routes an address brings: itself, its network, and (IPv4 /30 or
 * wider, fib_add_ifaddr) the network's broadcast address unless it is the
 * address: never forwarded as unicast. Returns whether there is one. */
static bool
fou_addr_prefixes(const struct fou_ip *addr, struct fou_ip *host, struct fou_ip *net,
		  struct fou_ip *bcast)
{
	*host = *addr;
	host->plen = fou_ip_maxlen(addr);
	*net = *addr;
	fou_ip_mask(net, net->plen);
	*bcast = *net;
	bcast->plen = 32;
	if (net->family != AF_INET || net->plen >= 31)
		return false;
	bcast->v4 |= rte_cpu_to_be_32(UINT32_MAX >> net->plen);
	return bcast->v4 != addr->v4;
}

/* Another address than skip on port in network net (same prefix length). */
static const struct fou_addr *
fou_addr_in_net(const struct fou_gw *gw, const struct fou_ip *net, const struct fou_addr *skip)
{
	unsigned int i;

	for (i = 0; i < gw->addrs->n; i++) {
		const struct fou_addr *a = &gw->addrs->a[i];

		if (a != skip && a->ip.family == net->family && a->ip.plen == net->plen &&
		    fou_prefix_contains(net, &a->ip))
			return a;
	}
	return NULL;
}

/* The address list readers do not see: a copy of the current one. */
static struct fou_addr_set *
fou_addrs_next(struct fou_gw *gw)
{
	struct fou_addr_set *next = gw->addrs == &gw->addr_sets[0] ? &gw->addr_sets[1] :
				    &gw->addr_sets[0];

	*next = *gw->addrs;
	return next;
}

/* The tunnel whose local (or remote) is ip, NULL if none. */
static const struct fou_tunnel *
fou_tunnel_with_addr(const struct fou_gw *gw, const struct fou_ip *ip, bool remote)
{
	uint32_t i;

	if (ip->family != AF_INET)
		return NULL;	/* tunnel endpoints are IPv4 */
	for (i = 0; i < gw->params.max_tunnels; i++) {
		const struct fou_tunnel_conf *c = &gw->tunnels[i].conf;

		if (gw->tunnels[i].used && (remote ? c->remote.v4 : c->local.v4) == ip->v4)
			return &gw->tunnels[i];
	}
	return NULL;
}

/* The first route through a gateway next hop from route *i on, NULL if none. */
static const struct fou_route *
fou_route_next_via(const struct fou_gw *gw, uint32_t *i, const struct fou_nexthop **nh)
{
	for (; *i < gw->nb_routes; (*i)++) {
		*nh = &gw->nh[gw->routes[*i].nh];
		if ((*nh)->type == FOU_NH_GATEWAY)
			return &gw->routes[(*i)++];
	}
	return NULL;
}

/*
 * What a new address must not be, so that every state the operations reach
 * is one a config file of its statements (fou_config_dump()) loads again:
 * the gateway of a route (fou_route_add) or the remote of a tunnel
 * (fou_tunnel_conf_check).
 */
static int
fou_addr_check_in_use(const struct fou_gw *gw, const struct fou_ip *addr, struct fou_err *err)
{
	const struct fou_tunnel *t = fou_tunnel_with_addr(gw, addr, true);
	const struct fou_nexthop *nh;
	const struct fou_route *r;
	uint32_t i = 0;

	if (t != NULL) {
		fou_err_set(err, "%s is the remote of tunnel %s (delete the tunnel first)",
			    IPSTR(addr), t->conf.name);
		return -EBUSY;
	}
	while ((r = fou_route_next_via(gw, &i, &nh)) != NULL) {
		if (fou_ip_equal(&nh->gw, addr)) {
			fou_err_set(err, "%s is the gateway of the route to %s/%u "
				    "(delete the route first)", IPSTR(addr), IPSTR(&r->prefix),
				    r->prefix.plen);
			return -EBUSY;
		}
	}
	return 0;
}

/*
 * An address that goes must not take with it what the statements that
 * remain need: the local of a tunnel, or the only network of its port that
 * a route's gateway is on.
 */
static int
fou_addr_check_needed(const struct fou_gw *gw, const struct fou_addr *a, struct fou_err *err)
{
	const struct fou_tunnel *t = fou_tunnel_with_addr(gw, &a->ip, false);
	const struct fou_nexthop *nh;
	const struct fou_route *r;
	uint32_t i = 0;

	if (t != NULL) {
		fou_err_set(err, "tunnel %s has local %s (delete the tunnel first)", t->conf.name,
			    IPSTR(&a->ip));
		return -EBUSY;
	}
	while ((r = fou_route_next_via(gw, &i, &nh)) != NULL) {
		if (nh->port == a->port && fou_prefix_contains(&a->ip, &nh->gw) &&
		    !fou_addr_onlink(gw, a->port, &nh->gw, a)) {
			fou_err_set(err, "the route to %s/%u via %s needs address %s/%u "
				    "(delete the route first)", IPSTR(&r->prefix), r->prefix.plen,
				    IPSTR(&nh->gw), IPSTR(&a->ip), a->ip.plen);
			return -EBUSY;
		}
	}
	return 0;
}

static int
fou_addr_check(const struct fou_gw *gw, uint16_t port, const struct fou_ip *addr,
	       struct fou_err *err)
{
	int ret = fou_iface_check(gw, port, err);

	if (ret < 0)
		return ret;
	if (!fou_ip_is_unicast(addr)) {
		fou_err_set(err, "%s is not a unicast address", IPSTR(addr));
		return -EINVAL;
	}
	if (addr->plen == 0) {
		fou_err_set(err, "%s/0: an address needs a prefix length of 1 or more",
			    IPSTR(addr));
		return -EINVAL;
	}
	if (fou_addr_find(gw, addr) != NULL) {
		fou_err_set(err, "address %s is already assigned", IPSTR(addr));
		return -EEXIST;
	}
	if (gw->addrs->n == FOU_MAX_ADDRS) {
		fou_err_set(err, "too many addresses (at most %u)", FOU_MAX_ADDRS);
		return -ENOSPC;
	}
	return fou_addr_check_in_use(gw, addr, err);
}

/* Remove the route to prefix if an address brought it. */
static void
fou_addr_route_remove(struct fou_gw *gw, const struct fou_ip *prefix)
{
	int i = fou_route_find(gw, prefix);

	if (i >= 0 && gw->routes[i].from_addr)
		fou_route_uninstall(gw, (uint32_t)i);
}

static int
fou_addr_insert(struct fou_gw *gw, uint16_t port, const struct fou_ip *addr, struct fou_err *err)
{
	struct fou_ip host, net, bcast;
	const struct fou_addr *other;
	struct fou_addr_set *next;
	bool add_net, add_bcast;
	int ret;

	add_bcast = fou_addr_prefixes(addr, &host, &net, &bcast);
	/* A second address in a network of the same port shares its route,
	 * as a Linux secondary address does. */
	other = fou_addr_in_net(gw, &net, NULL);
	if (other != NULL && other->port != port) {
		fou_err_set(err, "network %s/%u is already on port %u", IPSTR(&net), net.plen,
			    other->port);
		return -EEXIST;
	}
	add_net = net.plen < host.plen && other == NULL;
	add_bcast = add_bcast && add_net;
	if (add_net && fou_route_exists(gw, &net)) {
		fou_err_set(err, "a route to %s/%u exists", IPSTR(&net), net.plen);
		return -EEXIST;
	}
	if (add_bcast && fou_route_exists(gw, &bcast)) {
		fou_err_set(err, "a route to %s/32 exists", IPSTR(&bcast));
		return -EEXIST;
	}
	ret = fou_route_insert(gw, &host, FOU_NH_LOCAL, 0, NULL, 0, true, err);
	if (ret < 0)
		return ret;
	if (add_net)
		ret = fou_route_insert(gw, &net, FOU_NH_CONNECTED, port, NULL, 0, true, err);
	if (ret >= 0 && add_bcast) {
		ret = fou_route_insert(gw, &bcast, FOU_NH_BCAST, port, NULL, 0, true, err);
		if (ret < 0)
			fou_addr_route_remove(gw, &net);
	}
	if (ret < 0) {
		fou_addr_route_remove(gw, &host);
		return ret;
	}
	next = fou_addrs_next(gw);
	next->a[next->n++] = (struct fou_addr){ .port = port, .ip = *addr };
	__atomic_store_n(&gw->addrs, next, __ATOMIC_RELEASE);
	return 0;
}

int
fou_addr_add(struct fou_gw *gw, uint16_t port, const struct fou_ip *addr, struct fou_err *err)
{
	int ret = fou_addr_check(gw, port, addr, err);

	if (ret < 0)
		return ret;
	ret = fou_addr_insert(gw, port, addr, err);
	fou_gw_commit(gw);
	return ret;
}

int
fou_addr_del(struct fou_gw *gw, uint16_t port, const struct fou_ip *addr, struct fou_err *err)
{
	const struct fou_addr *a = fou_addr_find(gw, addr);
	struct fou_ip host, net, bcast;
	struct fou_addr_set *next;
	uint32_t i;
	int ret;

	if (a == NULL || a->port != port || a->ip.plen != addr->plen) {
		fou_err_set(err, "address %s/%u is not on port %u", IPSTR(addr), addr->plen, port);
		return -EADDRNOTAVAIL;
	}
	ret = fou_addr_check_needed(gw, a, err);
	if (ret < 0)
		return ret;
	fou_addr_prefixes(addr, &host, &net, &bcast);
	fou_addr_route_remove(gw, &host);
	if (fou_addr_in_net(gw, &net, a) == NULL && net.plen < host.plen) {
		fou_addr_route_remove(gw, &net);
		fou_addr_route_remove(gw, &bcast);
	}
	next = fou_addrs_next(gw);
	i = (uint32_t)(a - gw->addrs->a);
	memmove(&next->a[i], &next->a[i + 1], (next->n - i - 1) * sizeof(next->a[0]));
	next->n--;
	__atomic_store_n(&gw->addrs, next, __ATOMIC_RELEASE);
	fou_gw_commit(gw);
	return 0;
}

unsigned int
fou_addr_list(const struct fou_gw *gw, struct fou_addr_info *out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && i < gw->addrs->n; i++)
		out[i] = (struct fou_addr_info){ .port = gw->addrs->a[i].port,
						 .ip = gw->addrs->a[i].ip };
	return gw->addrs->n;
}

/* --- neighbours ------------------------------------------------------- */

/* Empty every lcore's neighbour cache (fou_adj_neigh): the next lookup of
 * each lcore sees the new generation; fou_gw_commit()'s grace period makes
 * sure none still uses an old entry once the change returns. */
static void
fou_neigh_changed(struct fou_gw *gw)
{
	__atomic_add_fetch(&gw->neigh_gen, 1, __ATOMIC_RELEASE);
}

static void
fou_neigh_key_ip(struct fou_neigh_key *k, uint16_t port, const struct fou_ip *ip)
{
	fou_neigh_key_make(k, port, ip->family, ip->family == AF_INET ? (const void *)&ip->v4 :
			   (const void *)ip->v6);
}

int
fou_neigh_add(struct fou_gw *gw, const struct fou_ip *ip, uint16_t port,
	      const struct rte_ether_addr *mac, struct fou_err *err)
{
	struct fou_neigh_key key;
	int ret;

	ret = fou_iface_check(gw, port, err);
	if (ret < 0)
		return ret;
	if (!fou_ip_is_unicast(ip)) {
		fou_err_set(err, "%s is not a unicast address", IPSTR(ip));
		return -EINVAL;
	}
	if (!rte_is_unicast_ether_addr(mac) || rte_is_zero_ether_addr(mac)) {
		fou_err_set(err, "lladdr must be a unicast, non-zero MAC address");
		return -EINVAL;
	}
	fou_neigh_key_ip(&key, port, ip);
	if (rte_hash_lookup(gw->neigh, &key) >= 0) {
		fou_err_set(err, "neighbour %s on port %u exists", IPSTR(ip), port);
		return -EEXIST;
	}
	if (gw->nb_neighs >= gw->params.max_neighs ||
	    rte_hash_add_key_data(gw->neigh, &key, fou_neigh_data(mac)) < 0) {
		fou_err_set(err, "neighbour table full (at most %u)", gw->params.max_neighs);
		return -ENOSPC;
	}
	gw->nb_neighs++;
	fou_neigh_changed(gw);
	fou_gw_commit(gw);
	return 0;
}

int
fou_neigh_get(const struct fou_gw *gw, const struct fou_ip *ip, uint16_t port,
	      struct rte_ether_addr *mac)
{
	struct fou_neigh_key key;
	void *data;

	fou_neigh_key_ip(&key, port, ip);
	if (rte_hash_lookup_data(gw->neigh, &key, &data) < 0)
		return -ENOENT;
	fou_neigh_mac(data, mac);
	return 0;
}

int
fou_neigh_del(struct fou_gw *gw, const struct fou_ip *ip, uint16_t port, struct fou_err *err)
{
	struct fou_neigh_key key;

	fou_neigh_key_ip(&key, port, ip);
	/* rte_hash frees the entry after a grace period (its RCU mode) */
	if (rte_hash_del_key(gw->neigh, &key) < 0) {
		fou_err_set(err, "no neighbour %s on port %u", IPSTR(ip), port);
		return -ENOENT;
	}
	gw->nb_neighs--;
	fou_neigh_changed(gw);
	fou_gw_commit(gw);
	return 0;
}

unsigned int
fou_neigh_list(const struct fou_gw *gw, struct fou_neigh_info *out, unsigned int n,
	       unsigned int offset)
{
	const struct fou_neigh_key *k;
	unsigned int count = 0;
	uint32_t next = 0;
	const void *key;
	void *data;

	while (rte_hash_iterate(gw->neigh, &key, &data, &next) >= 0) {
		struct fou_neigh_info *ni;

		if (count++ < offset || count - offset > n)
			continue;
		ni = &out[count - offset - 1];
		k = key;
		memset(ni, 0, sizeof(*ni));
		ni->port = k->port;
		ni->ip.family = k->family;
		ni->ip.plen = k->family == AF_INET ? 32 : 128;
		memcpy(k->family == AF_INET ? (void *)&ni->ip.v4 : (void *)ni->ip.v6, k->addr,
		       k->family == AF_INET ? 4 : 16);
		fou_neigh_mac(data, &ni->mac);
	}
	return count;
}

/* --- tunnels --------------------------------------------------------- */

void
fou_tunnel_conf_default(struct fou_tunnel_conf *c)
{
	memset(c, 0, sizeof(*c));	/* ttl inherit, tos 0, noencap-csum, no GRE options */
	c->pmtudisc = true;
	c->encap_fou = true;
}

/* Tunnel names as Linux interface names; never all digits, so that
 * dev=N stays a DPDK port number. */
static int
fou_tunnel_name_check(const char *name, struct fou_err *err)
{
	size_t i, len = strnlen(name, FOU_TUNNEL_NAMESIZE);
	bool digits = true;

	if (len == 0 || len == FOU_TUNNEL_NAMESIZE) {
		fou_err_set(err, "tunnel name must be 1-%u characters", FOU_TUNNEL_NAMESIZE - 1);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.')) {
			fou_err_set(err, "tunnel name '%s': only letters, digits, '_', '-', '.'",
				    name);
			return -EINVAL;
		}
		digits = digits && ch >= '0' && ch <= '9';
	}
	if (digits) {
		fou_err_set(err, "tunnel name '%s' is all digits (that names a DPDK port)", name);
		return -EINVAL;
	}
	return 0;
}

static int
fou_tunnel_find(const struct fou_gw *gw, const char *name)
{
	char key[FOU_TUNNEL_NAMESIZE] = { 0 };
	void *data;

	if (strnlen(name, FOU_TUNNEL_NAMESIZE) == FOU_TUNNEL_NAMESIZE)
		return -ENOENT;
	strcpy(key, name);
	if (rte_hash_lookup_data(gw->tun_names, key, &data) < 0)
		return -ENOENT;
	return (int)(uintptr_t)data;
}

static int
fou_tunnel_conf_check(const struct fou_gw *gw, const struct fou_tunnel_conf *c,
		      struct fou_err *err)
{
	const char *type = fou_proto_name(c->type);
	uint32_t i;
	int ret;

	ret = fou_tunnel_name_check(c->name, err);
	if (ret < 0)
		return ret;
	if (fou_tunnel_find(gw, c->name) >= 0) {
		fou_err_set(err, "tunnel %s exists", c->name);
		return -EEXIST;
	}
	if (type == NULL) {
		fou_err_set(err, "tunnel type must be ipip, sit or gre");
		return -EINVAL;
	}
	if (c->local.family != AF_INET || c->remote.family != AF_INET) {
		fou_err_set(err, "local and remote must be IPv4 addresses (the outer header is IPv4)");
		return -EINVAL;
	}
	if (!fou_ip_is_unicast(&c->remote)) {
		fou_err_set(err, "remote %s is not a unicast address", IPSTR(&c->remote));
		return -EINVAL;
	}
	if (fou_addr_find(gw, &c->local) == NULL) {
		fou_err_set(err, "local %s is not an address of the gateway (add it first)",
			    IPSTR(&c->local));
		return -EADDRNOTAVAIL;
	}
	if (fou_addr_find(gw, &c->remote) != NULL) {
		fou_err_set(err, "remote %s is an address of the gateway", IPSTR(&c->remote));
		return -EINVAL;
	}
	if (c->ttl != 0 && !c->pmtudisc) {
		/* iproute2: a fixed TTL forces path MTU discovery */
		fou_err_set(err, "nopmtudisc needs ttl=inherit");
		return -EINVAL;
	}
	if (c->encap_fou && c->encap_dport == 0) {
		fou_err_set(err, "encap=fou needs encap-dport");
		return -EINVAL;
	}
	if (!c->encap_fou && (c->encap_dport != 0 || c->encap_sport != 0 || c->encap_csum)) {
		fou_err_set(err, "encap-sport, encap-dport and encap-csum need encap=fou");
		return -EINVAL;
	}
	if (c->type != IPPROTO_GRE && (c->key_set || c->gre_csum || c->gre_seq)) {
		fou_err_set(err, "key, csum and seq are GRE options; tunnel %s is %s", c->name,
			    type);
		return -EINVAL;
	}
	/* ip_tunnel_find: one tunnel per type, endpoints and key */
	for (i = 0; i < gw->params.max_tunnels; i++) {
		const struct fou_tunnel_conf *o = &gw->tunnels[i].conf;

		if (gw->tunnels[i].used && o->type == c->type &&
		    o->local.v4 == c->local.v4 && o->remote.v4 == c->remote.v4 &&
		    o->key_set == c->key_set && (!c->key_set || o->key == c->key)) {
			fou_err_set(err, "tunnel %s has the same type, endpoints%s", o->name,
				    c->type == IPPROTO_GRE ? " and key" : "");
			return -EEXIST;
		}
	}
	return 0;
}

/* The outer header every packet of the tunnel starts from. */
static void
fou_tunnel_template(struct fou_tunnel *t, const struct fou_tunnel_conf *c)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)t->hdr;
	uint8_t *p = t->hdr + sizeof(*ip);
	uint16_t gflags = 0;

	memset(t->hdr, 0, sizeof(t->hdr));
	t->flags = 0;
	*ip = (struct rte_ipv4_hdr){
		.version_ihl = RTE_IPV4_VHL_DEF,
		.type_of_service = c->tos_inherit ? 0 : (uint8_t)(c->tos & ~3u),
		.fragment_offset = c->pmtudisc ? rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG) : 0,
		.time_to_live = c->ttl,
		.next_proto_id = c->encap_fou ? IPPROTO_UDP : c->type,
		.src_addr = c->local.v4,
		.dst_addr = c->remote.v4,
	};
	if (c->ttl == 0)
		t->flags |= FOU_TUN_TTL_INHERIT;
	if (c->tos_inherit)
		t->flags |= FOU_TUN_TOS_INHERIT;
	if (c->encap_fou) {
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)p;

		udp->src_port = rte_cpu_to_be_16(c->encap_sport);
		udp->dst_port = rte_cpu_to_be_16(c->encap_dport);
		t->flags |= FOU_TUN_FOU;
		if (c->encap_sport == 0)
			t->flags |= FOU_TUN_SPORT_AUTO;
		if (c->encap_csum)
			t->flags |= FOU_TUN_UDP_CSUM;
		p += sizeof(*udp);
	}
	t->gre_off = 0;
	t->seq_off = 0;
	if (c->type == IPPROTO_GRE) {
		t->gre_off = (uint8_t)(p - t->hdr);
		p += 4;
		if (c->gre_csum) {
			gflags |= FOU_GRE_C;
			t->flags |= FOU_TUN_GRE_CSUM;
			p += 4;
		}
		if (c->key_set) {
			rte_be32_t key = rte_cpu_to_be_32(c->key);

			gflags |= FOU_GRE_K;
			memcpy(p, &key, 4);
			p += 4;
		}
		if (c->gre_seq) {
			gflags |= FOU_GRE_S;
			t->flags |= FOU_TUN_GRE_SEQ;
			t->seq_off = (uint8_t)(p - t->hdr);
			p += 4;
		}
		t->hdr[t->gre_off] = (uint8_t)(gflags >> 8);
		t->hdr[t->gre_off + 1] = (uint8_t)gflags;
	}
	t->hdr_len = (uint8_t)(p - t->hdr);
	t->remote = c->remote.v4;
}

int
fou_tunnel_add(struct fou_gw *gw, const struct fou_tunnel_conf *c, struct fou_err *err)
{
	char key[FOU_TUNNEL_NAMESIZE] = { 0 };
	struct fou_tun_key rxkey;
	struct fou_tunnel *t;
	uint32_t idx;
	int ret;

	ret = fou_tunnel_conf_check(gw, c, err);
	if (ret < 0)
		return ret;
	for (idx = 0; idx < gw->params.max_tunnels; idx++)
		if (!gw->tunnels[idx].used)
			break;
	if (idx == gw->params.max_tunnels) {
		fou_err_set(err, "too many tunnels (at most %u)", gw->params.max_tunnels);
		return -ENOSPC;
	}
	/* complete before the receive table or a route can lead a worker to it */
	t = &gw->tunnels[idx];
	memset(t, 0, sizeof(*t));
	fou_tunnel_template(t, c);
	t->idx = idx;
	t->conf = *c;
	strcpy(key, c->name);
	ret = rte_hash_add_key_data(gw->tun_names, key, (void *)(uintptr_t)idx);
	if (ret < 0) {
		fou_err_set(err, "cannot add tunnel %s: %s", c->name, strerror(-ret));
		return ret;
	}
	fou_tun_key_make(&rxkey, c->type, c->local.v4, c->remote.v4, c->key_set, c->key);
	ret = rte_hash_add_key_data(gw->tun_rx, &rxkey, (void *)(uintptr_t)idx);
	if (ret < 0) {
		rte_hash_del_key(gw->tun_names, key);
		fou_err_set(err, "cannot add tunnel %s: %s", c->name, strerror(-ret));
		return ret;
	}
	t->used = 1;
	/* from now on this type is received only from its tunnels */
	__atomic_store_n(&gw->tun_types[c->type], gw->tun_types[c->type] + 1, __ATOMIC_RELEASE);
	if (!c->encap_fou)
		__atomic_store_n(&gw->plain_rx[c->type], 1, __ATOMIC_RELEASE);
	fou_gw_commit(gw);
	return 0;
}

/* Is there another tunnel than idx of this type with encap none? */
static bool
fou_tunnel_plain_other(const struct fou_gw *gw, uint8_t type, uint32_t idx)
{
	uint32_t i;

	for (i = 0; i < gw->params.max_tunnels; i++)
		if (i != idx && gw->tunnels[i].used && gw->tunnels[i].conf.type == type &&
		    !gw->tunnels[i].conf.encap_fou)
			return true;
	return false;
}

/*
 * As `ip link del NAME`: the routes into the tunnel go with it. Once the
 * grace period is over no worker can hold the tunnel, and its slot and
 * counters start again from zero for the next one.
 */
int
fou_tunnel_del(struct fou_gw *gw, const char *name, struct fou_err *err)
{
	char key[FOU_TUNNEL_NAMESIZE] = { 0 };
	struct fou_tunnel *t;
	struct fou_tun_key rxkey;
	const struct fou_tunnel_conf *c;
	unsigned int lc;
	int idx = fou_tunnel_find(gw, name);
	uint32_t i;

	if (idx < 0) {
		fou_err_set(err, "no tunnel '%s'", name);
		return -ENODEV;
	}
	t = &gw->tunnels[idx];
	c = &t->conf;
	for (i = gw->nb_routes; i-- > 0;) {
		const struct fou_nexthop *nh = &gw->nh[gw->routes[i].nh];

		if (nh->type == FOU_NH_TUNNEL && nh->tunnel == (uint32_t)idx)
			fou_route_uninstall(gw, i);
	}
	fou_tun_key_make(&rxkey, c->type, c->local.v4, c->remote.v4, c->key_set, c->key);
	rte_hash_del_key(gw->tun_rx, &rxkey);
	__atomic_store_n(&gw->tun_types[c->type], gw->tun_types[c->type] - 1, __ATOMIC_RELEASE);
	if (!c->encap_fou && !fou_tunnel_plain_other(gw, c->type, (uint32_t)idx))
		__atomic_store_n(&gw->plain_rx[c->type], 0, __ATOMIC_RELEASE);
	strcpy(key, c->name);
	rte_hash_del_key(gw->tun_names, key);
	fou_gw_commit(gw);
	for (lc = 0; lc < RTE_MAX_LCORE; lc++)
		memset(&gw->tun_stats[(size_t)lc * gw->params.max_tunnels + idx], 0,
		       sizeof(struct fou_tun_stats));
	memset(&gw->tun_base[idx], 0, sizeof(gw->tun_base[idx]));
	memset(t, 0, sizeof(*t));
	return 0;
}

int
fou_route_add_tunnel(struct fou_gw *gw, const struct fou_ip *prefix, const char *dev,
		     struct fou_err *err)
{
	const struct fou_tunnel_conf *c;
	int idx, ret;

	idx = fou_tunnel_find(gw, dev);
	if (idx < 0) {
		fou_err_set(err, "no tunnel '%s'", dev);
		return -ENODEV;
	}
	c = &gw->tunnels[idx].conf;
	ret = fou_prefix_check(prefix, err);
	if (ret < 0)
		return ret;
	if ((c->type == IPPROTO_IPIP && prefix->family != AF_INET) ||
	    (c->type == IPPROTO_IPV6 && prefix->family != AF_INET6)) {
		fou_err_set(err, "tunnel %s is %s: it carries %s only", c->name,
			    fou_proto_name(c->type), c->type == IPPROTO_IPIP ? "IPv4" : "IPv6");
		return -EINVAL;
	}
	ret = fou_route_insert(gw, prefix, FOU_NH_TUNNEL, 0, NULL, (uint32_t)idx, false, err);
	fou_gw_commit(gw);
	return ret < 0 ? ret : 0;
}

/* Counters of tunnel i summed over lcores, less base (if not NULL). */
static void
fou_tun_stats_sum(const struct fou_gw *gw, uint32_t i, const struct fou_tun_stats *base,
		  struct fou_tunnel_info *ti)
{
	unsigned int lc;

	for (lc = 0; lc < RTE_MAX_LCORE; lc++) {
		const struct fou_tun_stats *ts = &gw->tun_stats[(size_t)lc * gw->params.max_tunnels +
								 i];

		ti->tx_packets += FOU_STAT_READ(ts->tx_packets);
		ti->tx_bytes += FOU_STAT_READ(ts->tx_bytes);
		ti->rx_packets += FOU_STAT_READ(ts->rx_packets);
		ti->rx_bytes += FOU_STAT_READ(ts->rx_bytes);
	}
	if (base != NULL) {
		ti->tx_packets -= base->tx_packets;
		ti->tx_bytes -= base->tx_bytes;
		ti->rx_packets -= base->rx_packets;
		ti->rx_bytes -= base->rx_bytes;
	}
}

static void
fou_tunnel_info_fill(const struct fou_gw *gw, const struct fou_tunnel *t, bool since_reset,
		     struct fou_tunnel_info *ti)
{
	const struct fou_nexthop *onh;

	memset(ti, 0, sizeof(*ti));
	ti->conf = t->conf;
	ti->overhead = t->hdr_len;
	onh = fou_route4(gw, t->remote);
	if (onh == NULL)
		ti->unresolved = "no route to remote";
	else if (onh->type != FOU_NH_CONNECTED && onh->type != FOU_NH_GATEWAY)
		ti->unresolved = "remote routed into a tunnel or to the gateway";
	else
		ti->mtu = (uint16_t)(gw->iface[onh->port].mtu - t->hdr_len);
	fou_tun_stats_sum(gw, t->idx, since_reset ? &gw->tun_base[t->idx] : NULL, ti);
}

unsigned int
fou_tunnel_list_from(const struct fou_gw *gw, struct fou_tunnel_info *out, unsigned int n,
		     unsigned int offset, bool since_reset)
{
	unsigned int count = 0;
	uint32_t i;

	for (i = 0; i < gw->params.max_tunnels; i++) {
		if (!gw->tunnels[i].used)
			continue;
		if (count >= offset && count - offset < n)
			fou_tunnel_info_fill(gw, &gw->tunnels[i], since_reset, &out[count - offset]);
		count++;
	}
	return count;
}

unsigned int
fou_tunnel_list(const struct fou_gw *gw, struct fou_tunnel_info *out, unsigned int n)
{
	return fou_tunnel_list_from(gw, out, n, 0, false);
}

int
fou_sport_range_set(struct fou_gw *gw, uint16_t min, uint16_t max, struct fou_err *err)
{
	if (min == 0 || min > max) {
		fou_err_set(err, "source port range %u-%u: need 1 <= MIN <= MAX <= 65535", min,
			    max);
		return -EINVAL;
	}
	__atomic_store_n(&gw->sport_range, (uint32_t)min << 16 | max, __ATOMIC_RELAXED);
	fou_gw_commit(gw);
	return 0;
}

void
fou_sport_range_get(const struct fou_gw *gw, uint16_t *min, uint16_t *max)
{
	fou_sport_range_load(gw, min, max);
}

int
fou_icmp_rate_set(struct fou_gw *gw, uint32_t rate, uint32_t burst, struct fou_err *err)
{
	if (rate > 1000000) {
		fou_err_set(err, "ICMP rate %u above 1000000 per second", rate);
		return -EINVAL;
	}
	if (rate != 0 && burst == 0) {
		fou_err_set(err, "ICMP burst must be 1 or more");
		return -EINVAL;
	}
	__atomic_store_n(&gw->icmp_limit, (uint64_t)rate << 32 | burst, __ATOMIC_RELAXED);
	fou_gw_commit(gw);
	return 0;
}

void
fou_icmp_rate_get(const struct fou_gw *gw, uint32_t *rate, uint32_t *burst)
{
	fou_icmp_limit_load(gw, rate, burst);
}

const char *
fou_icmp_name(enum fou_icmp_kind k)
{
	return k < FOU_ICMP_MAX ? fou_icmp_kinds[k].name : NULL;
}

const char *
fou_icmp_desc(enum fou_icmp_kind k)
{
	return k < FOU_ICMP_MAX ? fou_icmp_kinds[k].desc : NULL;
}

/* --- statistics ------------------------------------------------------- */

const char *
fou_drop_name(enum fou_drop d)
{
	return d < FOU_DROP_MAX ? fou_drops[d].name : NULL;
}

const char *
fou_drop_desc(enum fou_drop d)
{
	return d < FOU_DROP_MAX ? fou_drops[d].desc : NULL;
}

const char *
fou_inner_name(enum fou_inner i)
{
	return i == FOU_INNER_IPV4 ? "ipv4" : i == FOU_INNER_IPV6 ? "ipv6" : NULL;
}

struct fou_lcore_stats *
fou_lcore_stats(struct fou_gw *gw, unsigned int lcore_id)
{
	return lcore_id < RTE_MAX_LCORE ? &gw->stats[lcore_id] : NULL;
}

/* out += the counters of s (read as their lcore writes them) - base. */
static void
fou_stats_acc(struct fou_lcore_stats *out, const struct fou_lcore_stats *s,
	      const struct fou_lcore_stats *base)
{
	static const struct fou_lcore_stats zero;
	unsigned int i;

	if (base == NULL)
		base = &zero;
	for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
		out->rx[i] += FOU_STAT_READ(s->rx[i]) - base->rx[i];
		out->tx[i] += FOU_STAT_READ(s->tx[i]) - base->tx[i];
	}
	for (i = 0; i < FOU_DROP_MAX; i++)
		out->drop[i] += FOU_STAT_READ(s->drop[i]) - base->drop[i];
	for (i = 0; i <= FOU_MAX_UDP_PORTS; i++)
		out->decap[i] += FOU_STAT_READ(s->decap[i]) - base->decap[i];
	for (i = 0; i < FOU_INNER_MAX; i++)
		out->decap_inner[i] += FOU_STAT_READ(s->decap_inner[i]) - base->decap_inner[i];
	for (i = 0; i < FOU_ICMP_MAX; i++)
		out->icmp_out[i] += FOU_STAT_READ(s->icmp_out[i]) - base->icmp_out[i];
	out->gro_merged += FOU_STAT_READ(s->gro_merged) - base->gro_merged;
	out->gro_flushed += FOU_STAT_READ(s->gro_flushed) - base->gro_flushed;
	out->gro_tso += FOU_STAT_READ(s->gro_tso) - base->gro_tso;
	out->gso_packets += FOU_STAT_READ(s->gso_packets) - base->gso_packets;
	out->gso_segments += FOU_STAT_READ(s->gso_segments) - base->gso_segments;
	out->polls_busy += FOU_STAT_READ(s->polls_busy) - base->polls_busy;
	out->polls_idle += FOU_STAT_READ(s->polls_idle) - base->polls_idle;
}

void
fou_stats_sum(const struct fou_gw *gw, struct fou_lcore_stats *out)
{
	unsigned int l;

	memset(out, 0, sizeof(*out));
	for (l = 0; l < RTE_MAX_LCORE; l++)
		fou_stats_acc(out, &gw->stats[l], NULL);
}

int
fou_stats_get(const struct fou_gw *gw, int lcore_id, struct fou_lcore_stats *out)
{
	unsigned int l;

	memset(out, 0, sizeof(*out));
	if (lcore_id >= RTE_MAX_LCORE)
		return -EINVAL;
	for (l = 0; l < RTE_MAX_LCORE; l++)
		if (lcore_id < 0 || (unsigned int)lcore_id == l)
			fou_stats_acc(out, &gw->stats[l], &gw->stats_base[l]);
	return 0;
}

/*
 * The workers keep counting in their own counters, which only they write;
 * a reset moves the baseline the readers subtract. Each counter is read
 * whole; packets in flight (in a TX buffer) may be on either side of it.
 */
void
fou_stats_reset(struct fou_gw *gw)
{
	unsigned int l;
	uint32_t i;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		memset(&gw->stats_base[l], 0, sizeof(gw->stats_base[l]));
		fou_stats_acc(&gw->stats_base[l], &gw->stats[l], NULL);
	}
	for (i = 0; i < gw->params.max_tunnels; i++) {
		struct fou_tunnel_info ti = { 0 };

		fou_tun_stats_sum(gw, i, NULL, &ti);
		gw->tun_base[i] = (struct fou_tun_stats){
			.tx_packets = ti.tx_packets, .tx_bytes = ti.tx_bytes,
			.rx_packets = ti.rx_packets, .rx_bytes = ti.rx_bytes };
	}
}

bool
fou_lcore_is_reader(const struct fou_gw *gw, unsigned int lcore_id)
{
	return lcore_id < RTE_MAX_LCORE &&
	       __atomic_load_n(&gw->lcore_reader[lcore_id], __ATOMIC_RELAXED) != 0;
}

void
fou_stats_rx_tx(const struct fou_lcore_stats *s, uint64_t *rx, uint64_t *tx)
{
	unsigned int i;

	*rx = 0;
	*tx = 0;
	for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
		*rx += s->rx[i];
		*tx += s->tx[i];
	}
}

bool
fou_stats_balanced(const struct fou_lcore_stats *s)
{
	uint64_t rx, tx;

	fou_stats_rx_tx(s, &rx, &tx);
	return rx + (s->gso_segments - s->gso_packets) == tx + fou_stats_drops(s) + s->gro_merged;
}

uint64_t
fou_stats_drops(const struct fou_lcore_stats *s)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < FOU_DROP_MAX; i++)
		sum += s->drop[i];
	return sum;
}
