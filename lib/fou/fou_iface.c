/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK ports as the gateway sees them: MAC address and MTU (and the
 * only code that programs them, promiscuous and all-multicast mode, into
 * an ethdev), the IPv6 link-local address, the transmit offloads a port was
 * started with, GRO on receive, and the worker lcores' queues. The app's
 * port setup (app/port.c) calls fou_iface_program().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "fou_ctl.h"
#include "fou_nd.h"

int
fou_iface_check(const struct fou_gw *gw, uint16_t port, struct fou_err *err)
{
	if (port >= RTE_MAX_ETHPORTS || !gw->iface[port].enabled) {
		fou_err_set(err, "no DPDK port %u", port);
		return -ENODEV;
	}
	return 0;
}

/*
 * The ethdev's MTU and MAC address, each only if it differs; a device that
 * cannot change its address gets everything (promiscuous mode) and the
 * data path filters in software. If the MAC address fails, the port gets
 * its old MTU back: nothing half-applied.
 */
static int
fou_iface_ethdev(uint16_t port, const struct rte_ether_addr *mac, uint16_t mtu, bool *promisc,
		 struct fou_err *err)
{
	struct rte_ether_addr cur;
	uint16_t old_mtu = 0;
	char msg[FOU_ERR_LEN];
	bool mtu_set = false;
	int ret = 0;

	*promisc = false;
	if (!rte_eth_dev_is_valid_port(port))
		return 0;
	if (rte_eth_dev_get_mtu(port, &old_mtu) == 0 && mtu != old_mtu) {
		ret = rte_eth_dev_set_mtu(port, mtu);
		if (ret < 0 && ret != -ENOTSUP) {
			fou_err_set(err, "port %u: cannot set MTU %u: %s", port, mtu,
				    rte_strerror(-ret));
			return ret;
		}
		mtu_set = ret == 0;
	}
	if (rte_eth_macaddr_get(port, &cur) != 0 || rte_is_same_ether_addr(&cur, mac))
		return 0;
	ret = rte_eth_dev_default_mac_addr_set(port, (struct rte_ether_addr *)(uintptr_t)mac);
	if (ret == -ENOTSUP) {
		*promisc = true;
		ret = rte_eth_promiscuous_enable(port);
		if (ret == -ENOTSUP)
			ret = 0;
	}
	if (ret < 0) {
		fou_err_set(err, "port %u: cannot set the MAC address: %s", port,
			    rte_strerror(-ret));
		if (mtu_set && rte_eth_dev_set_mtu(port, old_mtu) < 0 && err != NULL) {
			snprintf(msg, sizeof(msg), "%s", err->msg);
			fou_err_set(err, "%s (and the port keeps MTU %u: cannot restore %u)", msg,
				    mtu, old_mtu);
		}
		return ret;
	}
	return 0;
}

int
fou_iface_program(const struct fou_gw *gw, uint16_t port, bool *promisc, struct fou_err *err)
{
	int ret = fou_iface_check(gw, port, err);

	if (ret < 0)
		return ret;
	ret = fou_iface_ethdev(port, &gw->iface[port].mac, gw->iface[port].mtu, promisc, err);
	if (ret < 0 || !rte_eth_dev_is_valid_port(port))
		return ret;
	/* Neighbour Discovery comes to solicited-node groups: where Linux
	 * programs the NIC's filter with the groups it joins, the port takes
	 * every group and the data path keeps those of its addresses */
	ret = rte_eth_allmulticast_enable(port);
	if (ret < 0 && ret != -ENOTSUP) {
		fou_err_set(err, "port %u: cannot receive multicast (for Neighbour Discovery): %s",
			    port, rte_strerror(-ret));
		return ret;
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
	if (gw->ports_running) {
		char s[RTE_ETHER_ADDR_FMT_SIZE];
		bool promisc;
		int ret = fou_iface_ethdev(port, mac, mtu, &promisc, err);

		if (ret < 0)
			return ret;
		if (promisc) {
			/* as the app's start says it (app/port.c) */
			rte_ether_format_addr(s, sizeof(s), mac);
			FOU_LOG(WARNING, port, "dpdk-fou: port %u cannot change its MAC address; "
				"%s is used in software, port in promiscuous mode", port, s);
		}
	}
	/* A packet in flight may see half of a new MAC address: the data
	 * path does not stop for a link change, as a NIC's filter would not. */
	gw->iface[port].mac = *mac;
	gw->iface[port].ll_nh = (struct fou_nexthop){
		.type = FOU_NH_CONNECTED, .family = AF_INET6, .port = port };
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
fou_iface_ll6(const struct fou_gw *gw, uint16_t port, struct fou_ip *ip)
{
	if (!fou_iface_enabled(gw, port))
		return -ENODEV;
	memset(ip, 0, sizeof(*ip));
	ip->family = AF_INET6;
	ip->plen = 64;
	fou_ll6(&gw->iface[port].mac, ip->v6);
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
	/* over IPv6 there is no header checksum to go with it */
	if (tx_offloads & RTE_ETH_TX_OFFLOAD_UDP_CKSUM)
		ol |= FOU_TXOL_UDP6;
	gw->iface[port].tx_ol = ol;
	return 0;
}

/*
 * GRO on a receiving port. The data path reads the flag once per burst and
 * the hold time once per new flow; a flow held under the old time goes
 * when that is up.
 */
int
fou_gro_set(struct fou_gw *gw, uint16_t port, bool on, uint32_t timeout_us, struct fou_err *err)
{
	struct fou_iface *f;
	int ret = fou_iface_check(gw, port, err);

	if (ret < 0)
		return ret;
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
