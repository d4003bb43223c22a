/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethdev setup: a TX queue per worker, RX queues spread by RSS, and the
 * checksum offloads the port has; the MTU and MAC address the gateway holds
 * go to the device through fou_iface_program(). What the device cannot do
 * is a warning (fou.port); what stops the start goes to stderr.
 */
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "app.h"

#define FOU_RX_DESC 1024
#define FOU_TX_DESC 1024

/* The RSS hash types asked for: IPv4/IPv6 with UDP/TCP ports, as far as
 * the device can hash them. FOU's source-port entropy spreads tunnels;
 * RTE_ETH_RSS_IP has FRAG_IPV4, under which IPv4 fragments hash on their
 * addresses only. */
#define FOU_RSS_HF (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP)

#define FOU_TSO_NEEDS (RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | \
		       RTE_ETH_TX_OFFLOAD_TCP_CKSUM)

static bool
fou_app_port_takes_chains(const char *driver)
{
	static const char *const drivers[] = { "net_pcap", "net_af_packet", "net_null",
					       "net_ring" };
	unsigned int i;

	for (i = 0; i < RTE_DIM(drivers); i++)
		if (strcmp(driver, drivers[i]) == 0)
			return true;
	return false;
}

/* Queue counts, RSS and offloads for this device and this many workers. */
static int
fou_app_port_plan(uint16_t port, const struct rte_eth_dev_info *info, uint16_t nb_workers,
		  uint16_t mtu, struct rte_eth_conf *conf, struct fou_app_port *out)
{
	if (nb_workers > info->max_tx_queues) {
		fprintf(stderr,
			"dpdk-fou: port %u (%s) has at most %u TX queue(s); each of the %u worker lcores needs one (net_pcap: one tx_pcap/tx_iface per worker)\n",
			port, info->driver_name, info->max_tx_queues, nb_workers);
		return -EINVAL;
	}
	if (info->max_rx_queues == 0) {
		fprintf(stderr, "dpdk-fou: port %u (%s) has no RX queue\n", port,
			info->driver_name);
		return -EINVAL;
	}
	/* net_pcap copies a chained frame into a buffer of this many bytes
	 * and cuts it there, while claiming any MTU: its real limit */
	if (strcmp(info->driver_name, "net_pcap") == 0 &&
	    mtu > RTE_ETHER_MAX_JUMBO_FRAME_LEN - RTE_ETHER_HDR_LEN) {
		fprintf(stderr, "dpdk-fou: port %u (%s): MTU %u is over the %u the device writes whole\n",
			port, info->driver_name, mtu,
			RTE_ETHER_MAX_JUMBO_FRAME_LEN - RTE_ETHER_HDR_LEN);
		return -EINVAL;
	}
	if (mtu < info->min_mtu || mtu > info->max_mtu) {
		fprintf(stderr, "dpdk-fou: port %u (%s): MTU %u is outside the device's %u-%u\n",
			port, info->driver_name, mtu, info->min_mtu, info->max_mtu);
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	snprintf(out->driver, sizeof(out->driver), "%s", info->driver_name);
	out->nb_txq = nb_workers;
	/*
	 * Without RSS the RX queues are still set up: software devices spread
	 * packets over them by themselves (af_packet's fanout hash, virtio's
	 * host steering, one capture or ring per queue for pcap and ring);
	 * a NIC puts everything on queue 0 and the others cost an empty poll.
	 */
	out->nb_rxq = RTE_MIN(nb_workers, info->max_rx_queues);
	if (out->nb_rxq > 1) {
		out->rss_hf = info->flow_type_rss_offloads & FOU_RSS_HF;
		if (out->rss_hf == 0)
			FOU_LOG(WARNING, port, "dpdk-fou: port %u (%s) has no RSS for IP/UDP/TCP: its %u RX queues get what the device puts on each",
				port, info->driver_name, out->nb_rxq);
		/* reassembly is per worker: the fragments of a datagram must
		 * meet on one, which a hash of the addresses alone (the
		 * FRAG_IPV4 type) makes sure of */
		else if (!(out->rss_hf & RTE_ETH_RSS_FRAG_IPV4))
			FOU_LOG(WARNING, port, "dpdk-fou: port %u (%s) has no RSS type for IPv4 fragments: the fragments of one datagram may reach different workers, where they time out (reasm_timeout)",
				port, info->driver_name);
	}
	if (out->nb_rxq < nb_workers)
		FOU_LOG(WARNING, port, "dpdk-fou: port %u (%s) has %u RX queue(s): %u of the %u workers poll it",
			port, info->driver_name, out->nb_rxq, out->nb_rxq, nb_workers);

	memset(conf, 0, sizeof(*conf));
	conf->rxmode.mtu = mtu;
	if (out->rss_hf != 0) {
		conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf->rx_adv_conf.rss_conf.rss_hf = out->rss_hf;	/* the device's key */
	}
	/* The outer header checks use these where the port has them. */
	conf->rxmode.offloads = info->rx_offload_capa &
				(RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
				 RTE_ETH_RX_OFFLOAD_SCATTER);
	/* Encapsulation leaves these checksums to the port where it can;
	 * the UDP one only together with the IPv4 header one. */
	out->tx_offloads = info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
	if (out->tx_offloads != 0)
		out->tx_offloads |= info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
	/* GRO's merged TCP/IPv4 packets leave through TSO where the port has
	 * it with both checksums; merges are chained mbufs */
	if ((info->tx_offload_capa & FOU_TSO_NEEDS) == FOU_TSO_NEEDS)
		out->tx_offloads |= FOU_TSO_NEEDS;
	out->tx_offloads |= info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	conf->txmode.offloads = out->tx_offloads;
	/* These send a chain of mbufs although they do not declare it: their
	 * TX copies a non-contiguous packet (pcap, af_packet) or does not
	 * look at it (null, ring). Merged packets may go to them. */
	if (fou_app_port_takes_chains(info->driver_name))
		out->tx_offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	return 0;
}

int
fou_app_port_start(const struct fou_gw *gw, uint16_t port, uint16_t nb_workers,
		   const struct fou_app_mem *mem, struct fou_app_port *out)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	struct fou_err err;
	uint16_t nb_rxd = FOU_RX_DESC, nb_txd = FOU_TX_DESC, q, mtu;
	bool promisc;
	int ret;

	ret = fou_iface_get(gw, port, &mac, &mtu);
	if (ret != 0) {
		fprintf(stderr, "dpdk-fou: port %u is not a gateway port\n", port);
		return ret;
	}

	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0) {
		fprintf(stderr, "dpdk-fou: port %u: cannot get device info: %s\n", port,
			rte_strerror(-ret));
		return ret;
	}
	ret = fou_app_port_plan(port, &info, nb_workers, mtu, &conf, out);
	if (ret != 0)
		return ret;

	ret = rte_eth_dev_configure(port, out->nb_rxq, out->nb_txq, &conf);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	/*
	 * Queue q is worker q's: its rings and the mbufs its RX queue is
	 * filled with are in the memory of the worker's socket, not the
	 * port's (as l3fwd does). The worker reads and writes every
	 * descriptor, mbuf and header many times per packet, latency-bound;
	 * the device writes each buffer once, by DMA, which crossing to the
	 * other socket only costs bandwidth. A port's workers are best on its
	 * own socket all the same (doc/deploying.md).
	 */
	for (q = 0; ret == 0 && q < out->nb_rxq; q++) {
		struct rte_eth_rxconf rxc = info.default_rxconf;

		rxc.offloads = conf.rxmode.offloads;
		ret = rte_eth_rx_queue_setup(port, q, nb_rxd, mem[q].socket, &rxc, mem[q].direct);
	}
	for (q = 0; ret == 0 && q < out->nb_txq; q++) {
		struct rte_eth_txconf txc = info.default_txconf;

		txc.offloads = conf.txmode.offloads;
		ret = rte_eth_tx_queue_setup(port, q, nb_txd, mem[q].socket, &txc);
	}
	if (ret != 0) {
		fprintf(stderr, "dpdk-fou: port %u (%s): cannot configure %u RX / %u TX queue(s): %s\n",
			port, info.driver_name, out->nb_rxq, out->nb_txq, rte_strerror(-ret));
		return ret;
	}
	ret = fou_iface_program(gw, port, &promisc, &err);
	if (ret != 0) {
		fprintf(stderr, "dpdk-fou: %s (%s)\n", err.msg, info.driver_name);
		return ret;
	}
	if (promisc) {
		char s[RTE_ETHER_ADDR_FMT_SIZE];

		/* the address lives in software too: the data path checks and
		 * writes it */
		rte_ether_format_addr(s, sizeof(s), &mac);
		FOU_LOG(WARNING, port, "dpdk-fou: port %u (%s) cannot change its MAC address; %s is used in software, port in promiscuous mode",
			port, info.driver_name, s);
	}
	ret = rte_eth_dev_start(port);
	if (ret != 0) {
		fprintf(stderr, "dpdk-fou: port %u (%s): cannot start: %s\n", port,
			info.driver_name, rte_strerror(-ret));
		return ret;
	}
	return 0;
}
