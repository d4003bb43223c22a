/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GRO on arbitrary bursts: up to 32 frames received on port 0 with GRO on,
 * through a worker's context (fou_lcore_rx(), which runs GRO on the port),
 * then every held flow sent on (fou_lcore_stop(), as a worker ends). Each
 * packet sent is checked by fuzz_check.c (a merge or a segment rte_gso made
 * as any output: lengths, MTU, header checksums, addresses, neighbours), a
 * merge's TCP checksum by the checker's own code, a merge given to TSO by
 * its segment size and pseudo-header sum; every segment merged into an
 * earlier one had a good TCP checksum as it came in (GRO may know its sum
 * from an outer checksum instead of summing it: the verdict must be the
 * sum's); after each input rx + segments rte_gso added = tx + drops +
 * segments merged, and every mbuf (direct and indirect) is back in its pool.
 *
 * Input: byte 0 bits 0-1 port 1's MTU (1500, 9000, 16000, 1280), bit 2 port
 * 1 has TSO, bit 3 the outer checksums of each frame are made right over
 * what it carries (GRE when C, a non-zero UDP one, IPv4: so that mutated
 * inner bytes pass the outer checks), bit 4 the frames come with the RX
 * checksum flags a NIC would set (truthful verdicts on the outer IPv4 and
 * UDP checksums); then frames, each a 2-byte big-endian length and its
 * bytes (at most 2048 of them used: one mbuf).
 */
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_check.h"
#include "fou_lcore.h"	/* lc->gro_held: whether GRO took the burst */

#define GRO_PORT 0
#define OUT_PORT 1

static struct fou_gw *gw;
/* the worker's context: never started (no reader), so fou_lcore_stop()
 * only sends on what GRO holds, and the context goes on to the next input */
static struct fou_lcore *lc;
/* rte_gso's header mbufs come from a pool of their own: fuzz_pool's carry
 * ASan poison past the frames they held, which rte_gso (not instrumented)
 * writes over and the library then touches */
static struct rte_mempool *direct, *indirect;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	struct fou_err err;

	fuzz_eal_init("gro", 0);
	gw = fuzz_gw_packet(false);
	direct = rte_pktmbuf_pool_create("fuzz_direct", FUZZ_NB_MBUF, 0, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	indirect = rte_pktmbuf_pool_create("fuzz_indirect", FUZZ_NB_MBUF, 0, 0, 0, SOCKET_ID_ANY);
	FUZZ_ASSERT(direct != NULL && indirect != NULL, "GRO pools");
	lc = fuzz_lcore_new(gw, direct, indirect);
	FUZZ_ASSERT(fou_gro_set(gw, GRO_PORT, true, 0, &err) == 0, "gro: %s", err.msg);
	return 0;
}

/* A merge left to the port's TSO: its segments must fit the MTU. */
static void
check_tso(const struct rte_mbuf *m, uint16_t port)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								RTE_ETHER_HDR_LEN);
	const struct rte_tcp_hdr *th = (const struct rte_tcp_hdr *)((const uint8_t *)ip +
								    m->l3_len);
	struct rte_ether_addr mac;
	uint16_t mtu;

	FUZZ_ASSERT(fou_iface_get(gw, port, &mac, &mtu) == 0, "port %u", port);
	FUZZ_ASSERT(m->ol_flags & RTE_MBUF_F_TX_IPV4, "TSO without TX_IPV4");
	FUZZ_ASSERT(m->l2_len == RTE_ETHER_HDR_LEN && m->l3_len == 20 &&
		    m->l4_len >= 20 && m->tso_segsz > 0, "TSO lengths %u/%u/%u segsz %u",
		    m->l2_len, m->l3_len, m->l4_len, m->tso_segsz);
	FUZZ_ASSERT(RTE_ETHER_HDR_LEN + m->l3_len + m->l4_len + m->tso_segsz <= mtu,
		    "TSO segments of %u bytes on MTU %u", m->l3_len + m->l4_len + m->tso_segsz,
		    mtu);
	FUZZ_ASSERT(rte_be_to_cpu_16(ip->total_length) == m->pkt_len - RTE_ETHER_HDR_LEN,
		    "IPv4 length %u in a %u-byte frame", rte_be_to_cpu_16(ip->total_length),
		    m->pkt_len);
	FUZZ_ASSERT(th->cksum == rte_ipv4_phdr_cksum(ip, m->ol_flags),
		    "TSO TCP checksum field is not the pseudo-header sum");
}

/* The TCP checksum of a chained packet, summed by the checker's own code
 * (DPDK 22.11's rte_*_udptcp_cksum_mbuf_verify() loses carries on segments
 * at odd offsets). */
static bool
tcp_ok(const struct rte_mbuf *m)
{
	static uint8_t frame[UINT16_MAX + 64];
	const uint8_t *ip = frame + RTE_ETHER_HDR_LEN;
	uint32_t len = m->pkt_len - RTE_ETHER_HDR_LEN, hl, phdr;
	const void *d = rte_pktmbuf_read(m, 0, m->pkt_len, frame);

	if (d != frame)
		memcpy(frame, d, m->pkt_len);
	if (ip[0] >> 4 == 4) {
		hl = (ip[0] & 0xfu) * 4;
		phdr = rfc1071_sum(ip + 12, 8, 0);
	} else {
		hl = 40;
		phdr = rfc1071_sum(ip + 8, 32, 0);
	}
	FUZZ_ASSERT(ip[hl == 40 ? 6 : 9] == IPPROTO_TCP, "merged packet is not TCP");
	phdr += IPPROTO_TCP + ((len - hl) >> 16) + ((len - hl) & 0xffff);
	return rfc1071_fold(rfc1071_sum(ip + hl, len - hl, phdr)) == 0xffff;
}

/*
 * The segments GRO chained behind the head of merge m (its own mbufs, not
 * rte_gso's) each had a good TCP checksum when it came in: the TCP header
 * the merge took off still lies in front of the payload, the IP header in
 * front of that. The head's own checksum was made anew for the merge.
 */
static void
check_merged_segs(const struct rte_mbuf *m)
{
	const struct rte_mbuf *s;

	for (s = m; s != NULL; s = s->next)
		if (RTE_MBUF_CLONED(s) || RTE_MBUF_HAS_EXTBUF(s))
			return;		/* cut by rte_gso: no merge of ours */
	FUZZ_ASSERT(m->l2_len == RTE_ETHER_HDR_LEN && (m->l3_len == 20 || m->l3_len == 40) &&
		    m->l4_len >= 20, "merge lengths %u/%u/%u", m->l2_len, m->l3_len, m->l4_len);
	for (s = m->next; s != NULL; s = s->next) {
		const uint8_t *th = rte_pktmbuf_mtod(s, const uint8_t *) - m->l4_len;
		const uint8_t *ip = th - m->l3_len;
		const uint32_t tl = m->l4_len + s->data_len;
		uint32_t phdr;

		FUZZ_ASSERT(s->data_off >= m->l2_len + m->l3_len + m->l4_len,
			    "a merged segment without its headers in front");
		phdr = (ip[0] >> 4) == 6 ? rfc1071_sum(ip + 8, 32, 0) : rfc1071_sum(ip + 12, 8, 0);
		FUZZ_ASSERT(rfc1071_fold(rfc1071_sum(th, tl, phdr + IPPROTO_TCP + tl)) == 0xffff,
			    "a segment with a bad TCP checksum merged");
	}
}

/* Bit 3 of the options: the outer checksums of frame b made right. */
static void
fix_outer(uint8_t *b, uint32_t len)
{
	const uint32_t off = RTE_ETHER_HDR_LEN;
	uint32_t hl, tot, u = 0, ulen = 0, g = 0, gend = 0, c;

	if (len < off + 20 || b[12] != 0x08 || b[13] != 0x00 || (b[off] >> 4) != 4)
		return;
	hl = (b[off] & 0xfu) * 4;
	tot = (uint32_t)(b[off + 2] << 8 | b[off + 3]);
	if (hl < 20 || tot < hl || off + tot > len)
		return;
	if (b[off + 9] == IPPROTO_UDP && tot >= hl + 8) {
		u = off + hl;
		ulen = (uint32_t)(b[u + 4] << 8 | b[u + 5]);
		if (ulen < 8 || ulen > tot - hl)
			u = 0;
		else if ((b[u + 2] << 8 | b[u + 3]) == 5556) {	/* FOU gre */
			g = u + 8;
			gend = u + ulen;
		}
	} else if (b[off + 9] == IPPROTO_GRE) {
		g = off + hl;
		gend = off + tot;
	}
	if (g != 0 && g + 8 <= gend && (b[g] & 0x80)) {
		b[g + 4] = b[g + 5] = 0;
		c = (uint16_t)~rfc1071_fold(rfc1071_sum(b + g, gend - g, 0));
		b[g + 4] = (uint8_t)(c >> 8);
		b[g + 5] = (uint8_t)c;
	}
	if (u != 0 && (b[u + 6] | b[u + 7]) != 0) {
		b[u + 6] = b[u + 7] = 0;
		c = (uint16_t)~rfc1071_fold(rfc1071_sum(b + u, ulen, rfc1071_sum(b + off + 12, 8, 0) +
							IPPROTO_UDP + ulen));
		c = c == 0 ? 0xffff : c;
		b[u + 6] = (uint8_t)(c >> 8);
		b[u + 7] = (uint8_t)c;
	}
	b[off + 10] = b[off + 11] = 0;
	c = (uint16_t)~rfc1071_fold(rfc1071_sum(b + off, hl, 0));
	b[off + 10] = (uint8_t)(c >> 8);
	b[off + 11] = (uint8_t)c;
}

/* The context sends here (from fou_lcore_rx() and fou_lcore_stop()):
 * check, count, free. */
static void
emit(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports, uint16_t n)
{
	struct fou_lcore_stats *st = ctx;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t port = ports[i];

		if (m->ol_flags & RTE_MBUF_F_TX_TCP_SEG) {
			check_tso(m, port);
		} else {
			fuzz_check_output(m, port, -1);
			if (m->nb_segs > 1)	/* merged, or cut by rte_gso */
				FUZZ_ASSERT(tcp_ok(m), "merged packet with a wrong TCP checksum");
		}
		if (m->nb_segs > 1)
			check_merged_segs(m);
		FOU_STAT_ADD(st->tx[port], 1);
		rte_pktmbuf_free(m);
	}
}

/* Port 1 as the input asks: MTU and TSO. */
static void
setup_out_port(uint8_t opt)
{
	static const uint16_t mtus[] = { 1500, 9000, 16000, 1280 };
	struct rte_ether_addr mac;
	struct fou_err err;
	uint16_t mtu;

	FUZZ_ASSERT(fou_iface_get(gw, OUT_PORT, &mac, &mtu) == 0, "port 1");
	if (mtu != mtus[opt & 3]) {
		FUZZ_ASSERT(fou_iface_set(gw, OUT_PORT, &mac, mtus[opt & 3], &err) == 0, "mtu: %s",
			    err.msg);
		fuzz_check_init(gw);
	}
	FUZZ_ASSERT(fou_iface_tx_offload_set(gw, OUT_PORT, (opt & 4) ?
					     RTE_ETH_TX_OFFLOAD_TCP_TSO |
					     RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
					     RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
					     RTE_ETH_TX_OFFLOAD_MULTI_SEGS :
					     RTE_ETH_TX_OFFLOAD_MULTI_SEGS, &err) == 0,
		    "offloads: %s", err.msg);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fou_lcore_stats *st = fou_lcore_stats(gw, rte_lcore_id());
	struct fou_lcore_stats before, after;
	struct rte_mbuf *pkts[FOU_BURST];
	uint16_t n = 0;
	struct fuzz_frame f = { .port = GRO_PORT, .nb_segs = 1,
				.headroom = RTE_PKTMBUF_HEADROOM };
	size_t off = 1;

	if (size < 1)
		return -1;
	setup_out_port(data[0]);
	while (n < FOU_BURST && off + 2 <= size) {
		size_t len = (size_t)(data[off] << 8 | data[off + 1]);

		off += 2;
		len = RTE_MIN(len, size - off);
		/* one mbuf each: a chain sent on is then a merge or a segment */
		pkts[n] = fuzz_mbuf(data + off, RTE_MIN(len, (size_t)RTE_MBUF_DEFAULT_DATAROOM), &f);
		if (data[0] & 8)
			fix_outer(rte_pktmbuf_mtod(pkts[n], uint8_t *), pkts[n]->data_len);
		if (data[0] & 16)
			pkts[n]->ol_flags = fuzz_rx_flags(rte_pktmbuf_mtod(pkts[n], uint8_t *),
							  pkts[n]->data_len, 1);
		n++;
		off += len;
	}
	if (n == 0)
		return -1;
	fou_stats_get(gw, (int)rte_lcore_id(), &before);
	fou_lcore_rx(lc, GRO_PORT, pkts, n, 0, emit, st);
	FUZZ_ASSERT(lc->gro_held, "GRO is on, the burst is not tagged");
	fou_lcore_stop(lc, emit, st);
	fou_stats_get(gw, (int)rte_lcore_id(), &after);
	/* the worker's row: what it held is its own until the control takes it */
	FUZZ_ASSERT(fou_stats_balanced(&after), "rx + gso added != tx + drops + merged + held");
	FUZZ_ASSERT(after.gro_merged - before.gro_merged <= n, "merged more than received");
	FUZZ_ASSERT(fuzz_local_stack(gw) == after.local[FOU_LOCAL_NEIGH_QUEUED] -
		    before.local[FOU_LOCAL_NEIGH_QUEUED], "the hold ring had other packets");
	FUZZ_ASSERT(rte_mempool_avail_count(fuzz_pool) == FUZZ_NB_MBUF,
		    "%u mbufs not back in the pool",
		    FUZZ_NB_MBUF - rte_mempool_avail_count(fuzz_pool));
	FUZZ_ASSERT(rte_mempool_avail_count(direct) == FUZZ_NB_MBUF,
		    "%u header mbufs not back in the pool",
		    FUZZ_NB_MBUF - rte_mempool_avail_count(direct));
	FUZZ_ASSERT(rte_mempool_avail_count(indirect) == FUZZ_NB_MBUF,
		    "%u indirect mbufs not back in the pool",
		    FUZZ_NB_MBUF - rte_mempool_avail_count(indirect));
	return 0;
}
