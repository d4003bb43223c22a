/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive path on arbitrary frames: classify, decapsulate (FOU, GRE,
 * plain IPIP/SIT/GRE), route, encapsulate, ICMP errors, through a worker's
 * context (fou_lcore_rx()) as a worker runs it, on the gateway of
 * fuzz_gw_packet(false).
 *
 * Input: 4 bytes of options, then the frame.
 *   byte 0: bits 0-1 ingress port (mod 3); bits 2-3 RX checksum flags (0
 *           none, 1 the NIC's verdicts, 2 "verified, not in the packet"
 *           where right); bits 5-7 segments - 1
 *   byte 1: where the segments are cut
 *   byte 2: bits 0-1 more copies of the frame in the burst, each cut
 *           shorter by byte 3 bytes; bits 2-3 headroom (128, 0, 2, 64)
 *   byte 3: how much shorter each copy is
 */
#include "fuzz.h"

static struct fou_gw *gw;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	fuzz_eal_init("rx", 0);
	gw = fuzz_gw_packet(false);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t headroom[] = { RTE_PKTMBUF_HEADROOM, 0, 2, 64 };
	struct rte_mbuf *pkts[4];
	struct fuzz_frame f;
	unsigned int n, i;

	if (size < 4)
		return -1;
	f.port = (uint16_t)((data[0] & 3) % FUZZ_PORTS);
	f.nb_segs = 1u + (data[0] >> 5);
	f.seed = data[1];
	f.headroom = headroom[(data[2] >> 2) & 3];
	n = 1 + (data[2] & 3);
	for (i = 0; i < n; i++) {
		size_t cut = (size_t)i * data[3], len = size - 4;

		len = cut < len ? len - cut : 0;
		f.ol_flags = fuzz_rx_flags(data + 4, len, (data[0] >> 2) & 3);
		pkts[i] = fuzz_mbuf(data + 4, len, &f);
	}
	fuzz_burst(gw, f.port, pkts, (uint16_t)n);
	return 0;
}
