/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 fragmentation on the way out (fou_frag.c), as Linux' ip_fragment
 * does it in ip_output: an IPv4 packet without DF larger than the MTU of
 * the device it leaves by (a port, or a tunnel: its MTU) is cut into
 * fragments that each go on alone (each encapsulated, with its own outer
 * ID, for a tunnel); an outer packet a nopmtudisc tunnel sends without DF
 * is cut when it is larger than the path MTU. The receive stage decides
 * and leaves the packet with its adjacency (fou_frag_defer()); the
 * context's fragmentation stage cuts it after the burst, so that what it
 * makes leaves in the order the packets came (fou_lcore.c).
 */
#ifndef FOU_FRAG_H
#define FOU_FRAG_H

#include "fou_fwd.h"

/* The most fragments one IPv4 packet becomes: 8 payload bytes each. */
#define FOU_FRAG_MAX ((UINT16_MAX - sizeof(struct rte_ipv4_hdr)) / 8 + 1)
/* ... and an outer one: the path MTU is at least FOU_PMTU_MIN. */
#define FOU_FRAG_OUTER_MAX \
	((UINT16_MAX - sizeof(struct rte_ipv4_hdr)) / \
	 ((FOU_PMTU_MIN - sizeof(struct rte_ipv4_hdr)) & ~7u) + 1)

/* A packet the receive stage forwarded for the fragmentation stage. */
struct fou_frag_job {
	struct rte_mbuf *m;		/* the IP packet, rewritten for its next hop */
	struct fou_adj a;		/* where it leaves; a.dst points at dst */
	uint8_t dst[16];		/* the address of the neighbour (IPv4: 4 bytes) */
	struct rte_ether_addr neigh;
	bool have_neigh;
	bool v6;
	uint16_t inner_mtu;		/* cut the IPv4 packet to this before anything
					 * else; 0: it goes whole (into a nopmtudisc
					 * tunnel, to be cut after encapsulation) */
	uint16_t ip_id;			/* the first of the outer IDs set aside */
};

/* One lcore's: the jobs of the burst, and room for what they become. */
struct fou_frag {
	unsigned int n;
	struct fou_frag_job job[FOU_BURST];
	struct rte_mbuf *outer[FOU_FRAG_OUTER_MAX];
	struct rte_mbuf *inner[FOU_FRAG_MAX];
};

/* Control path. */
struct fou_frag *fou_frag_create(int socket_id);
void fou_frag_free(struct fou_frag *f);

/*
 * The receive stage: m (the IP packet at its header, rewritten for the
 * next hop) leaves along a, cut first to inner_mtu if that is not 0, and
 * after encapsulation to the path MTU where a nopmtudisc tunnel's outer
 * packet exceeds it. At most one per packet of a burst.
 */
static inline unsigned int
fou_frag_defer(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_adj *a,
	       const struct rte_ether_addr *neigh, bool v6, uint16_t inner_mtu, uint16_t *out_port)
{
	struct fou_frag_job *j;

	RTE_ASSERT(lc->frag->n < FOU_BURST);
	j = &lc->frag->job[lc->frag->n++];

	j->m = m;
	j->a = *a;
	/* the packet may be gone before its last fragment is held */
	memcpy(j->dst, a->dst, a->nh->family == AF_INET ? 4 : 16);
	j->a.dst = j->dst;
	j->have_neigh = neigh != NULL;
	if (neigh != NULL)
		j->neigh = *neigh;
	j->v6 = v6;
	j->inner_mtu = inner_mtu;
	/*
	 * The outer IDs its pieces take (one per inner fragment, one for a
	 * packet cut only outside), set aside now, where the packet stands:
	 * the stage runs after the burst, and the packets after this one in
	 * the burst must get the IDs they would have got had it come alone.
	 */
	j->ip_id = lc->ip_id;
	if (a->tun != NULL) {
		uint16_t pieces = 1;

		if (inner_mtu != 0) {
			const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
			const uint32_t hl = (ip->version_ihl & 0xfu) * 4u;
			const uint32_t unit = inner_mtu > hl ? (inner_mtu - hl) & ~7u : 0;
			const uint32_t len = rte_be_to_cpu_16(ip->total_length);

			if (unit != 0 && len > hl)
				pieces = (uint16_t)((len - hl + unit - 1) / unit);
		}
		lc->ip_id = (uint16_t)(lc->ip_id + pieces);
	}
	*out_port = a->port;
	return FOU_FRAG;
}

/*
 * The fragmentation stage: cut job j's packet and send what it becomes to
 * emit, in order (or hold it for its neighbour, or drop it, counted).
 * Returns how many went to emit.
 */
uint16_t fou_frag_output(struct fou_lcore *lc, const struct fou_frag_job *j, fou_emit_fn emit,
			 void *ctx);

#endif /* FOU_FRAG_H */
