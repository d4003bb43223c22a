/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP (RFC 826) on the workers, as Linux' arp_process: a request for one
 * of the receiving port's IPv4 addresses is answered at once, the frame
 * turned around into the reply (no state, no allocation); what any valid
 * frame says about its sender goes to the control thread as an event,
 * where the neighbour table decides (fou_neigh.c): a request for us
 * creates or refreshes its sender, replies and announcements refresh
 * entries that exist. The control thread builds its own requests with
 * fou_arp_build(). Data path: no locks, no logs, no allocation.
 *
 * Where this differs from Linux' defaults: only the receiving port's
 * addresses are answered (arp_ignore=1; Linux' default 0 also answers for
 * addresses of other interfaces), and a reply nobody asked for creates no
 * entry (as Linux with arp_accept=0).
 *
 * With a kernel interface on the port (--punt), the kernel sees what it
 * needs to resolve its own neighbours as Linux would: replies go up, and a
 * copy of each request for us that the gateway answers (its sender is
 * learnt there too); what the kernel answers itself never reaches the
 * wire (fou_punt.c), so a peer gets one answer, the gateway's.
 */
#include <rte_arp.h>

#include "fou_arp.h"
#include "fou_fwd.h"
#include "fou_nd.h"
#include "fou_punt.h"

void
fou_arp_build(struct rte_mbuf *m, const struct rte_ether_addr *eth_dst, uint16_t op,
	      const struct rte_ether_addr *sha, rte_be32_t sip,
	      const struct rte_ether_addr *tha, rte_be32_t tip)
{
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *arp;

	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*arp));
	arp = (struct rte_arp_hdr *)(eth + 1);
	eth->dst_addr = *eth_dst;
	eth->src_addr = *sha;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(op);
	arp->arp_data.arp_sha = *sha;
	arp->arp_data.arp_sip = sip;
	arp->arp_data.arp_tha = *tha;
	arp->arp_data.arp_tip = tip;
	m->l2_len = sizeof(*eth);
	m->packet_type = RTE_PTYPE_L2_ETHER_ARP;
}

/* A sender the table may learn: a unicast MAC, an address that is not
 * ours and not one that never sends (0/8, loopback, multicast, broadcast). */
static inline bool
fou_arp_learnable(const struct fou_gw *gw, const struct rte_ether_addr *sha, rte_be32_t sip)
{
	return rte_is_valid_assigned_ether_addr(sha) && !fou_martian4_src(sip) &&
	       !fou_addr_mine(gw, -1, AF_INET, &sip);
}

unsigned int
fou_arp_input(struct fou_lcore *lc, uint16_t port, struct rte_mbuf *m, uint32_t off,
	      uint16_t *out_port)
{
	const struct fou_gw *gw = lc->gw;
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *arp;
	struct rte_ether_addr sha;
	rte_be32_t sip, tip;
	uint16_t op;
	bool learn;
	unsigned int r;

	r = fou_need(m, off, rte_pktmbuf_pkt_len(m) - off, sizeof(*arp), FOU_DROP_ARP_BAD);
	if (r != FOU_FWD)
		return r;
	arp = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, off);
	op = rte_be_to_cpu_16(arp->arp_opcode);
	if (arp->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    arp->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    arp->arp_hlen != RTE_ETHER_ADDR_LEN || arp->arp_plen != 4 ||
	    (op != RTE_ARP_OP_REQUEST && op != RTE_ARP_OP_REPLY))
		return FOU_DROP_ARP_BAD;
	sha = arp->arp_data.arp_sha;
	sip = arp->arp_data.arp_sip;
	tip = arp->arp_data.arp_tip;
	/* arp_process: never about a multicast or loopback target */
	if (fou_bcast4(tip) || (rte_be_to_cpu_32(tip) >> 24) == 127)
		return FOU_DROP_ARP_BAD;
	learn = fou_arp_learnable(gw, &sha, sip);

	if (op == RTE_ARP_OP_REPLY) {
		FOU_STAT_ADD(lc->st->local[FOU_LOCAL_ARP_REP_IN], 1);
		/* a reply to our MAC asserts reachability (arp_process: only
		 * PACKET_HOST replies); an announcement may override at once */
		if (learn)
			fou_nev_post(lc, FOU_NEV_ADVERT,
				     (rte_is_unicast_ether_addr(&eth->dst_addr) ? FOU_NEV_F_CONFIRM : 0) |
				     (sip == tip ? FOU_NEV_F_OVERRIDE : 0),
				     port, &sha, AF_INET, &sip);
		if (fou_punt_on(gw, port))
			return fou_punt_up(lc, port, m, FOU_PUNT_UP_NEIGH);
		return FOU_CONSUMED;
	}
	if (!fou_addr_mine(gw, port, AF_INET, &tip)) {
		/* someone else's, or a gratuitous announcement (sip == tip):
		 * refreshes an entry that exists, answers nothing */
		if (learn)
			fou_nev_post(lc, FOU_NEV_OTHER, sip == tip ? FOU_NEV_F_OVERRIDE : 0, port,
				     &sha, AF_INET, &sip);
		return FOU_DROP_ARP_NOT_OURS;
	}
	FOU_STAT_ADD(lc->st->local[FOU_LOCAL_ARP_REQ_IN], 1);
	/* a duplicate address probe (sip 0, RFC 5227) is answered, not learnt;
	 * a sender that claims our own address, or a group MAC, is neither */
	if (learn) {
		fou_nev_post(lc, FOU_NEV_SOLICIT, 0, port, &sha, AF_INET, &sip);
		fou_punt_copy(lc, port, m);
	} else if (sip != 0 || !rte_is_valid_assigned_ether_addr(&sha))
		return FOU_CONSUMED;

	arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	arp->arp_data.arp_tha = sha;
	arp->arp_data.arp_tip = sip;
	arp->arp_data.arp_sha = gw->iface[port].mac;
	arp->arp_data.arp_sip = tip;
	eth->dst_addr = sha;
	eth->src_addr = gw->iface[port].mac;
	/* the frame's padding goes; its 802.1Q tags, if any, stay */
	fou_mbuf_cut(m, off + sizeof(*arp));
	fou_mbuf_flags_reset(m);
	m->l2_len = off;
	m->packet_type = RTE_PTYPE_L2_ETHER_ARP;
	FOU_STAT_ADD(lc->st->local[FOU_LOCAL_ARP_REP_OUT], 1);
	*out_port = port;
	return FOU_FWD;
}
