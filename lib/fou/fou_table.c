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

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

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

struct fou_gw *
fou_gw_create(const struct fou_gw_params *p, struct fou_err *err)
{
	struct fou_gw *gw;
	char name[RTE_HASH_NAMESIZE];

	gw = rte_zmalloc_socket("fou_gw", sizeof(*gw), RTE_CACHE_LINE_SIZE, p->socket_id);
	if (gw == NULL) {
		fou_err_set(err, "cannot allocate the gateway");
		return NULL;
	}
	gw->params = *p;

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
		.entries = p->max_neighs,
		.key_len = sizeof(struct fou_neigh_key),
		.hash_func = rte_hash_crc,
		.socket_id = p->socket_id,
	});
	if (gw->neigh == NULL)
		goto fail;
	fou_obj_name(name, sizeof(name), "tun", gw);
	gw->tun_names = rte_hash_create(&(struct rte_hash_parameters){
		.name = name,
		.entries = RTE_MAX(p->max_tunnels, 8u),
		.key_len = FOU_TUNNEL_NAMESIZE,
		.hash_func = rte_hash_crc,
		.socket_id = p->socket_id,
	});
	if (gw->tun_names == NULL)
		goto fail;
	fou_obj_name(name, sizeof(name), "tunrx", gw);
	gw->tun_rx = rte_hash_create(&(struct rte_hash_parameters){
		.name = name,
		.entries = RTE_MAX(p->max_tunnels, 8u),
		.key_len = sizeof(struct fou_tun_key),
		.hash_func = rte_hash_crc,
		.socket_id = p->socket_id,
	});
	if (gw->tun_rx == NULL)
		goto fail;
	rte_errno = ENOMEM;	/* rte_zmalloc does not set it */
	gw->neigh_mac = rte_zmalloc_socket("fou_neigh_mac",
					   sizeof(*gw->neigh_mac) * p->max_neighs,
					   RTE_CACHE_LINE_SIZE, p->socket_id);
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
	if (gw->neigh_mac == NULL || gw->nh == NULL || gw->stats == NULL || gw->workers == NULL ||
	    (p->max_tunnels != 0 && (gw->tunnels == NULL || gw->tun_stats == NULL)))
		goto fail;
	gw->sport_min = 32768;
	gw->sport_max = 60999;
	gw->icmp_rate = 1000;
	gw->icmp_burst = 50;
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
	rte_free(gw->neigh_mac);
	rte_free(gw->nh);
	rte_free(gw->stats);
	rte_free(gw->workers);
	rte_free(gw);
}

/* --- addresses as text, for messages ---------------------------------- */

static const char *
fou_ip_str(const struct fou_ip *ip, char *buf, size_t len)
{
	if (inet_ntop(ip->family, ip->family == AF_INET ? (const void *)&ip->v4 :
			  (const void *)ip->v6, buf, len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

#define IPSTR(ip) fou_ip_str((ip), (char[INET6_ADDRSTRLEN]){ 0 }, INET6_ADDRSTRLEN)

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
	gw->iface[port].mac = *mac;
	gw->iface[port].mtu = mtu;
	gw->iface[port].enabled = 1;
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
	/* the UDP checksum offload also needs the IPv4 header flags */
	if ((tx_offloads & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) && (ol & FOU_TXOL_IPV4))
		ol |= FOU_TXOL_UDP;
	gw->iface[port].tx_ol = ol;
	return 0;
}

uint64_t
fou_iface_tx_offload_get(const struct fou_gw *gw, uint16_t port)
{
	uint64_t r = 0;

	if (!fou_iface_enabled(gw, port))
		return 0;
	if (gw->iface[port].tx_ol & FOU_TXOL_IPV4)
		r |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
	if (gw->iface[port].tx_ol & FOU_TXOL_UDP)
		r |= RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
	return r;
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

static void
fou_nh_put(struct fou_gw *gw, uint32_t idx)
{
	if (--gw->nh[idx].refcnt == 0) {
		memset(&gw->nh[idx], 0, sizeof(gw->nh[idx]));
		gw->nb_nh--;
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

static void
fou_route_uninstall(struct fou_gw *gw, const struct fou_ip *prefix)
{
	if (prefix->plen == 0) {
		if (prefix->family == AF_INET)
			gw->default_nh4 = 0;
		else
			gw->default_nh6 = 0;
	} else if (prefix->family == AF_INET) {
		rte_lpm_delete(gw->lpm4, rte_be_to_cpu_32(prefix->v4), prefix->plen);
	} else {
		rte_lpm6_delete(gw->lpm6, prefix->v6, prefix->plen);
	}
}

/* Add a route with a next hop of the given kind; the caller checked it.
 * Returns the next hop index. */
static int
fou_route_insert(struct fou_gw *gw, const struct fou_ip *prefix, uint8_t type, uint16_t port,
		 const struct fou_ip *via, uint32_t tunnel, struct fou_err *err)
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
	return nh;
}

static const struct fou_addr *
fou_addr_find(const struct fou_gw *gw, const struct fou_ip *ip)
{
	unsigned int i;

	for (i = 0; i < gw->nb_addrs; i++)
		if (fou_ip_equal(&gw->addrs[i].ip, ip))
			return &gw->addrs[i];
	return NULL;
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
	unsigned int i;
	int ret;

	ret = fou_iface_check(gw, port, err);
	if (ret == 0)
		ret = fou_prefix_check(prefix, err);
	if (ret < 0)
		return ret;
	if (via == NULL) {
		ret = fou_route_insert(gw, prefix, FOU_NH_CONNECTED, port, NULL, 0, err);
		return ret < 0 ? ret : 0;
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
	/* As Linux: the gateway must be on a network of the port. */
	for (i = 0; i < gw->nb_addrs; i++)
		if (gw->addrs[i].port == port && fou_prefix_contains(&gw->addrs[i].ip, via))
			break;
	if (i == gw->nb_addrs) {
		fou_err_set(err, "gateway %s is not on a network of port %u (add an address first)",
			    IPSTR(via), port);
		return -ENETUNREACH;
	}
	ret = fou_route_insert(gw, prefix, FOU_NH_GATEWAY, port, via, 0, err);
	return ret < 0 ? ret : 0;
}

/* --- local addresses -------------------------------------------------- */

int
fou_addr_add(struct fou_gw *gw, uint16_t port, const struct fou_ip *addr, struct fou_err *err)
{
	struct fou_ip host = *addr, net = *addr, bcast;
	bool add_net, add_bcast;
	unsigned int i;
	int ret, local_nh, bcast_nh = -1;

	ret = fou_iface_check(gw, port, err);
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
	if (gw->nb_addrs == FOU_MAX_ADDRS) {
		fou_err_set(err, "too many addresses (at most %u)", FOU_MAX_ADDRS);
		return -ENOSPC;
	}
	host.plen = fou_ip_maxlen(addr);
	fou_ip_mask(&net, net.plen);

	/* A second address in a network of the same port shares its route,
	 * as a Linux secondary address does. */
	add_net = net.plen < host.plen;
	for (i = 0; add_net && i < gw->nb_addrs; i++) {
		const struct fou_addr *a = &gw->addrs[i];

		if (a->ip.family == net.family && a->ip.plen == net.plen &&
		    fou_prefix_contains(&net, &a->ip)) {
			if (a->port != port) {
				fou_err_set(err, "network %s/%u is already on port %u",
					    IPSTR(&net), net.plen, a->port);
				return -EEXIST;
			}
			add_net = false;
		}
	}
	if (add_net && fou_route_exists(gw, &net)) {
		fou_err_set(err, "a route to %s/%u exists", IPSTR(&net), net.plen);
		return -EEXIST;
	}
	/* fib_add_ifaddr: a network of /30 or wider has a broadcast address,
	 * which is never forwarded as unicast (unless it is the address) */
	bcast = net;
	bcast.plen = 32;
	add_bcast = add_net && net.family == AF_INET && net.plen < 31;
	if (add_bcast) {
		bcast.v4 |= rte_cpu_to_be_32(UINT32_MAX >> net.plen);
		add_bcast = bcast.v4 != addr->v4;
	}
	if (add_bcast && fou_route_exists(gw, &bcast)) {
		fou_err_set(err, "a route to %s/32 exists", IPSTR(&bcast));
		return -EEXIST;
	}
	local_nh = fou_route_insert(gw, &host, FOU_NH_LOCAL, 0, NULL, 0, err);
	if (local_nh < 0)
		return local_nh;
	if (add_net) {
		ret = fou_route_insert(gw, &net, FOU_NH_CONNECTED, port, NULL, 0, err);
		if (ret >= 0 && add_bcast) {
			bcast_nh = fou_route_insert(gw, &bcast, FOU_NH_BCAST, port, NULL, 0, err);
			if (bcast_nh < 0) {
				fou_route_uninstall(gw, &net);
				fou_nh_put(gw, (uint32_t)ret);
				ret = bcast_nh;
			}
		}
		if (ret < 0) {
			fou_route_uninstall(gw, &host);
			fou_nh_put(gw, (uint32_t)local_nh);
			return ret;
		}
	}
	gw->addrs[gw->nb_addrs++] = (struct fou_addr){ .port = port, .ip = *addr };
	return 0;
}

/* --- neighbours ------------------------------------------------------- */

void
fou_neigh_key_make(struct fou_neigh_key *k, uint16_t port, uint8_t family, const void *addr)
{
	memset(k, 0, sizeof(*k));
	k->port = port;
	k->family = family;
	memcpy(k->addr, addr, family == AF_INET ? 4 : 16);
}

int
fou_neigh_add(struct fou_gw *gw, const struct fou_ip *ip, uint16_t port,
	      const struct rte_ether_addr *mac, struct fou_err *err)
{
	struct fou_neigh_key key;
	int32_t pos;
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
	fou_neigh_key_make(&key, port, ip->family, ip->family == AF_INET ?
			   (const void *)&ip->v4 : (const void *)ip->v6);
	if (rte_hash_lookup(gw->neigh, &key) >= 0) {
		fou_err_set(err, "neighbour %s on port %u exists", IPSTR(ip), port);
		return -EEXIST;
	}
	pos = rte_hash_add_key(gw->neigh, &key);
	if (pos < 0) {
		fou_err_set(err, "neighbour table full (at most %u)", gw->params.max_neighs);
		return -ENOSPC;
	}
	gw->neigh_mac[pos] = *mac;
	return 0;
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
	t = &gw->tunnels[idx];
	memset(t, 0, sizeof(*t));
	fou_tunnel_template(t, c);
	t->idx = idx;
	t->conf = *c;
	t->used = 1;
	/* from now on this type is received only from its tunnels */
	__atomic_store_n(&gw->tun_types[c->type], gw->tun_types[c->type] + 1, __ATOMIC_RELEASE);
	if (!c->encap_fou)
		__atomic_store_n(&gw->plain_rx[c->type], 1, __ATOMIC_RELEASE);
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
	ret = fou_route_insert(gw, prefix, FOU_NH_TUNNEL, 0, NULL, (uint32_t)idx, err);
	return ret < 0 ? ret : 0;
}

unsigned int
fou_tunnel_list(const struct fou_gw *gw, struct fou_tunnel_info *out, unsigned int n)
{
	unsigned int count = 0, lc;
	uint32_t i;

	for (i = 0; i < gw->params.max_tunnels; i++) {
		const struct fou_tunnel *t = &gw->tunnels[i];
		struct fou_tunnel_info *ti;
		const struct fou_nexthop *onh;

		if (!t->used)
			continue;
		if (count >= n) {
			count++;
			continue;
		}
		ti = &out[count++];
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
		for (lc = 0; lc < RTE_MAX_LCORE; lc++) {
			const struct fou_tun_stats *ts =
				&gw->tun_stats[(size_t)lc * gw->params.max_tunnels + i];

			ti->tx_packets += FOU_STAT_READ(ts->tx_packets);
			ti->tx_bytes += FOU_STAT_READ(ts->tx_bytes);
			ti->rx_packets += FOU_STAT_READ(ts->rx_packets);
			ti->rx_bytes += FOU_STAT_READ(ts->rx_bytes);
		}
	}
	return count;
}

int
fou_sport_range_set(struct fou_gw *gw, uint16_t min, uint16_t max, struct fou_err *err)
{
	if (min == 0 || min > max) {
		fou_err_set(err, "source port range %u-%u: need 1 <= MIN <= MAX <= 65535", min,
			    max);
		return -EINVAL;
	}
	gw->sport_min = min;
	gw->sport_max = max;
	return 0;
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
	gw->icmp_rate = rate;
	gw->icmp_burst = burst;
	return 0;
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

/* Add one lcore's counters to out (the owner may be writing them). */
static void
fou_stats_add(struct fou_lcore_stats *out, const struct fou_lcore_stats *s)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
		out->rx[i] += FOU_STAT_READ(s->rx[i]);
		out->tx[i] += FOU_STAT_READ(s->tx[i]);
	}
	for (i = 0; i < FOU_DROP_MAX; i++)
		out->drop[i] += FOU_STAT_READ(s->drop[i]);
	for (i = 0; i <= FOU_MAX_UDP_PORTS; i++)
		out->decap[i] += FOU_STAT_READ(s->decap[i]);
	for (i = 0; i < FOU_INNER_MAX; i++)
		out->decap_inner[i] += FOU_STAT_READ(s->decap_inner[i]);
	for (i = 0; i < FOU_ICMP_MAX; i++)
		out->icmp_out[i] += FOU_STAT_READ(s->icmp_out[i]);
	out->polls_busy += FOU_STAT_READ(s->polls_busy);
	out->polls_idle += FOU_STAT_READ(s->polls_idle);
}

void
fou_stats_sum(const struct fou_gw *gw, struct fou_lcore_stats *out)
{
	unsigned int l;

	memset(out, 0, sizeof(*out));
	for (l = 0; l < RTE_MAX_LCORE; l++)
		fou_stats_add(out, &gw->stats[l]);
}

int
fou_stats_lcore(const struct fou_gw *gw, unsigned int lcore_id, struct fou_lcore_stats *out)
{
	if (lcore_id >= RTE_MAX_LCORE)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	fou_stats_add(out, &gw->stats[lcore_id]);
	return 0;
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
