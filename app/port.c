/* SPDX-License-Identifier: BSD-3-Clause */
/* Ethdev setup: queues, MTU, MAC and the RX checksum offloads the port has. */
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "app.h"

#define FOU_RX_DESC 1024
#define FOU_TX_DESC 1024

int
fou_app_port_start(uint16_t port, uint16_t nb_queues, struct rte_mempool *mp,
		   const struct rte_ether_addr *mac, uint16_t mtu)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_ether_addr cur;
	uint16_t nb_rxd = FOU_RX_DESC, nb_txd = FOU_TX_DESC, q;
	int ret, socket = rte_eth_dev_socket_id(port);

	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0) {
		fprintf(stderr, "dpdk-fou: port %u: cannot get device info: %s\n", port,
			rte_strerror(-ret));
		return ret;
	}
	if (nb_queues > info.max_rx_queues || nb_queues > info.max_tx_queues) {
		fprintf(stderr,
			"dpdk-fou: port %u (%s) has at most %u RX and %u TX queues; %u worker lcores need one of each\n",
			port, info.driver_name, info.max_rx_queues, info.max_tx_queues, nb_queues);
		return -EINVAL;
	}
	if (mtu < info.min_mtu || mtu > info.max_mtu) {
		fprintf(stderr, "dpdk-fou: port %u (%s): MTU %u is outside the device's %u-%u\n",
			port, info.driver_name, mtu, info.min_mtu, info.max_mtu);
		return -EINVAL;
	}

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = mtu;
	/* The outer header checks use these where the port has them. */
	conf.rxmode.offloads = info.rx_offload_capa &
			       (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM);
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	conf.txmode.offloads = info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS;

	ret = rte_eth_dev_configure(port, nb_queues, nb_queues, &conf);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	for (q = 0; ret == 0 && q < nb_queues; q++) {
		struct rte_eth_rxconf rxc = info.default_rxconf;
		struct rte_eth_txconf txc = info.default_txconf;

		rxc.offloads = conf.rxmode.offloads;
		txc.offloads = conf.txmode.offloads;
		ret = rte_eth_rx_queue_setup(port, q, nb_rxd, socket, &rxc, mp);
		if (ret == 0)
			ret = rte_eth_tx_queue_setup(port, q, nb_txd, socket, &txc);
	}
	if (ret != 0) {
		fprintf(stderr, "dpdk-fou: port %u (%s): cannot configure %u queue(s): %s\n", port,
			info.driver_name, nb_queues, rte_strerror(-ret));
		return ret;
	}
	if (rte_eth_macaddr_get(port, &cur) == 0 && !rte_is_same_ether_addr(&cur, mac)) {
		ret = rte_eth_dev_default_mac_addr_set(port, (struct rte_ether_addr *)mac);
		/* The address lives in software too (the data path checks and
		 * writes it): a port that cannot filter on it gets everything. */
		if (ret == -ENOTSUP) {
			char s[RTE_ETHER_ADDR_FMT_SIZE];

			rte_ether_format_addr(s, sizeof(s), mac);
			printf("dpdk-fou: port %u (%s) cannot change its MAC address; %s is used in software, port in promiscuous mode\n",
			       port, info.driver_name, s);
			ret = rte_eth_promiscuous_enable(port);
			if (ret == -ENOTSUP)
				ret = 0;
		}
		if (ret != 0) {
			fprintf(stderr, "dpdk-fou: port %u (%s): cannot set the MAC address: %s\n",
				port, info.driver_name, rte_strerror(-ret));
			return ret;
		}
	}
	ret = rte_eth_dev_start(port);
	if (ret != 0) {
		fprintf(stderr, "dpdk-fou: port %u (%s): cannot start: %s\n", port,
			info.driver_name, rte_strerror(-ret));
		return ret;
	}
	return 0;
}
