/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The encapsulation path on arbitrary inner packets: a frame from the
 * inside port (1) whose IP destination is routed into tunnel T of
 * fuzz_gw_packet(false), one tunnel per combination of the options (type, FOU
 * or plain, UDP and GRE checksums, key, sequence numbers, fixed or
 * inherited TTL and TOS, pmtudisc, an egress port with or without checksum
 * offloads, a remote routed into its own tunnel), through fou_lcore_rx().
 *
 * Input: 3 bytes of options, then the inner IP packet.
 *   byte 0: the tunnel (mod the number of tunnels)
 *   byte 1: bit 0 keep the inner destination (else it is moved into the
 *           tunnel's prefix); bit 1 keep the length fields (else set to
 *           the packet's); bit 2 keep the IPv4 header checksum (else
 *           computed); bits 3-4 RX checksum flags; bits 5-7 segments - 1
 *   byte 2: where the segments are cut
 */
#include <string.h>

#include "fuzz.h"
#include "fuzz_check.h"

#define FUZZ_INNER_MAX 9000

static struct fou_gw *gw;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	fuzz_eal_init("encap", 0);
	gw = fuzz_gw_packet(false);
	return 0;
}

static void
fuzz_inner_fix(uint8_t *ip, size_t len, unsigned int tun, uint8_t opts)
{
	if (len >= 20 && (ip[0] >> 4) == 4) {
		if (!(opts & 1)) {
			ip[16] = 10;
			ip[17] = (uint8_t)tun;
		}
		if (!(opts & 2)) {
			ip[2] = (uint8_t)(len >> 8);
			ip[3] = (uint8_t)len;
		}
		if (!(opts & 4) && (ip[0] & 0xf) >= 5 && (ip[0] & 0xfu) * 4 <= len) {
			uint16_t s;

			ip[10] = ip[11] = 0;
			s = (uint16_t)~rfc1071_fold(rfc1071_sum(ip, (ip[0] & 0xfu) * 4, 0));
			ip[10] = (uint8_t)(s >> 8);
			ip[11] = (uint8_t)s;
		}
	} else if (len >= 40 && (ip[0] >> 4) == 6) {
		if (!(opts & 1)) {
			ip[24] = 0xfd;
			ip[25] = 0x10;
			ip[26] = 0;
			ip[27] = (uint8_t)tun;
		}
		if (!(opts & 2)) {
			ip[4] = (uint8_t)((len - 40) >> 8);
			ip[5] = (uint8_t)(len - 40);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct rte_ether_addr src = { { 0x02, 0, 0, 0, 0x01, 0x99 } };
	static uint8_t frame[RTE_ETHER_HDR_LEN + FUZZ_INNER_MAX];
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)frame;
	size_t len;
	struct fuzz_frame f;
	struct rte_mbuf *m;
	struct rte_ether_addr mac;
	uint16_t mtu;
	unsigned int tun;

	if (size < 3 || size - 3 > FUZZ_INNER_MAX)
		return -1;
	tun = 1 + data[0] % fuzz_nb_tunnels();
	len = size - 3;
	memcpy(frame + RTE_ETHER_HDR_LEN, data + 3, len);
	fuzz_inner_fix(frame + RTE_ETHER_HDR_LEN, len, tun, data[1]);
	fou_iface_get(gw, 1, &mac, &mtu);
	eth->dst_addr = mac;
	eth->src_addr = src;
	eth->ether_type = rte_cpu_to_be_16(len > 0 && (data[3] >> 4) == 6 ?
					   RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	len += RTE_ETHER_HDR_LEN;

	f.port = 1;
	f.nb_segs = 1u + (data[1] >> 5);
	f.seed = data[2];
	f.headroom = RTE_PKTMBUF_HEADROOM;
	f.ol_flags = fuzz_rx_flags(frame, len, (data[1] >> 3) & 3);
	m = fuzz_mbuf(frame, len, &f);
	fuzz_burst(gw, f.port, &m, 1);
	return 0;
}
