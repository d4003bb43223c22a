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
 *           shorter by byte 3 bytes; bits 2-3 headroom (128, 0, 2, 64);
 *           bit 4: instead, the frame's IPv4 datagram (Ethernet, no tag)
 *           cut into 2-5 fragments (byte 3 bits 0-1) of 8-byte units, as
 *           a sender fragments it, bit 5 sending them last first, bit 6
 *           the second first, bit 7 the first twice: reassembly, then
 *           whatever the whole datagram is
 *   byte 3: how much shorter each copy is
 */
#include <sanitizer/asan_interface.h>

#include "cksum.h"
#include "fuzz.h"

#define ETH 14

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

/*
 * The IPv4 datagram of the frame b (len bytes) cut into k fragments of
 * its payload, in mbufs from the order picked by how; 0 if b is no
 * IPv4 datagram with 16 bytes of payload or more.
 */
static unsigned int
fuzz_rx_frags(const uint8_t *b, size_t len, uint8_t how, unsigned int k, struct fuzz_frame *f,
	      unsigned int sel, struct rte_mbuf **pkts)
{
	static uint8_t fr[4096 + 64];
	unsigned int hl, i, n = 0, order[6];
	size_t pay, step;
	uint16_t fo;

	if (len < ETH + 20 || b[12] != 0x08 || b[13] != 0x00 || (b[ETH] & 0xf) < 5)
		return 0;
	hl = (b[ETH] & 0xfu) * 4;
	if (len < ETH + hl + 16 || len - ETH - hl > sizeof(fr) - ETH - 60)
		return 0;
	pay = len - ETH - hl;
	step = RTE_MAX((size_t)8, pay / k & ~(size_t)7);
	fo = (uint16_t)(b[ETH + 6] << 8 | b[ETH + 7]);
	for (i = 0; i < k; i++)
		order[i] = how & 0x20 ? k - 1 - i : i;
	if (how & 0x40) {
		unsigned int t = order[0];

		order[0] = order[1];
		order[1] = t;
	}
	if (how & 0x80)
		order[k++] = order[0];
	for (i = 0; i < k; i++) {
		const size_t off = RTE_MIN(order[i] * step, pay - 1);
		const bool last = order[i] == k - 1 - ((how & 0x80) != 0);
		const size_t plen = last ? pay - off : RTE_MIN(step, pay - off);
		uint16_t v;

		memcpy(fr, b, ETH + hl);
		memcpy(fr + ETH + hl, b + ETH + hl + off, plen);
		v = (uint16_t)(hl + plen);
		fr[ETH + 2] = (uint8_t)(v >> 8);
		fr[ETH + 3] = (uint8_t)v;
		/* the offset in the frame's header and the sender's pieces on top */
		v = (uint16_t)((fo & 0x4000) | (last ? fo & 0x2000 : 0x2000) |
			       (((fo & 0x1fff) + off / 8) & 0x1fff));
		fr[ETH + 6] = (uint8_t)(v >> 8);
		fr[ETH + 7] = (uint8_t)v;
		fr[ETH + 10] = fr[ETH + 11] = 0;
		v = (uint16_t)~rfc1071_fold(rfc1071_sum(fr + ETH, hl, 0));
		fr[ETH + 10] = (uint8_t)(v >> 8);
		fr[ETH + 11] = (uint8_t)v;
		f->ol_flags = fuzz_rx_flags(fr, ETH + hl + plen, sel);
		pkts[n] = fuzz_mbuf(fr, ETH + hl + plen, f);
		/* reassembly copies the rest of a datagram that fits into the
		 * first segment of the first fragment, after it
		 * (rte_pktmbuf_linearize, not instrumented): the fragment's
		 * other segments, then the other fragments; those bytes become
		 * the frame's, past them the poison stays */
		if (off == 0) {
			struct rte_mbuf *m = pkts[n];

			ASAN_UNPOISON_MEMORY_REGION(rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len),
						    RTE_MIN((size_t)rte_pktmbuf_tailroom(m),
							    m->pkt_len - m->data_len + pay - plen));
		}
		n++;
	}
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t headroom[] = { RTE_PKTMBUF_HEADROOM, 0, 2, 64 };
	struct rte_mbuf *pkts[6];
	struct fuzz_frame f;
	unsigned int n, i;

	if (size < 4)
		return -1;
	f.port = (uint16_t)((data[0] & 3) % FUZZ_PORTS);
	f.nb_segs = 1u + (data[0] >> 5);
	f.seed = data[1];
	f.headroom = headroom[(data[2] >> 2) & 3];
	if (data[2] & 0x10) {
		n = fuzz_rx_frags(data + 4, size - 4, data[2], 2 + (data[3] & 3u), &f,
				  (data[0] >> 2) & 3, pkts);
		if (n != 0) {
			fuzz_burst(gw, f.port, pkts, (uint16_t)n);
			return 0;
		}
	}
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
