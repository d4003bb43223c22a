/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Delivery to the gateway's own addresses: what a packet for us that no
 * tunnel takes gets, as Linux' local input answers it. An echo request is
 * answered (icmp_echo, icmpv6_echo_reply); UDP to a port nobody listens on
 * gets port unreachable (__udp4_lib_rcv, __udp6_lib_rcv); a protocol with
 * no handler gets protocol unreachable (ip_local_deliver_finish) or, over
 * IPv6, a parameter problem pointing at the next header
 * (ip6_protocol_deliver_rcu). The gateway has no TCP, so TCP is dropped
 * where Linux would send a reset. Outer packets come from the receive path
 * (fou_rx.c) after FOU and the plain tunnels had their turn; inner packets
 * after decapsulation, where every drop here is inner_local. With a
 * kernel interface on the receiving port (--punt), an outer packet that
 * the gateway does not answer itself (all but an echo request) goes up to
 * the kernel instead of getting an error or being dropped, as Linux' own
 * sockets would take it; inner packets never do (the kernel interface has
 * the port's addresses, not the tunnels'). Cold, but on worker lcores: no
 * locks, no logs, no allocation.
 */
#include <stddef.h>

#include <rte_icmp.h>

#include "fou_hdr.h"
#include "fou_icmp.h"
#include "fou_local.h"
#include "fou_probe.h"
#include "fou_punt.h"

#define FOU_ICMP_HDR 8			/* the ICMP / ICMPv6 header Linux pulls */
#define FOU_ICMP_DEST_UNREACH 3
#define FOU_ICMP_FRAG_NEEDED_CODE 4
#define FOU_ICMP6_ECHO_REQUEST 128
#define FOU_ND_FIRST 133		/* router solicitation */
#define FOU_ND_LAST 137			/* redirect */

/* What a packet for us is dropped for; for an inner one, inner_local. */
static inline unsigned int
fou_local_drop(const struct fou_local *p, unsigned int r)
{
	return p->inner ? FOU_DROP_INNER_LOCAL : r;
}

/* Whether p goes up to its port's kernel interface instead. */
static inline bool
fou_local_punts(const struct fou_lcore *lc, const struct fou_local *p)
{
	return !p->inner && fou_punt_on(lc->gw, p->rx_port);
}

/* An error about p, from the address it was sent to; never about a packet
 * in a group frame (icmp_send, icmp6_send: PACKET_HOST only). */
static unsigned int
fou_local_error4(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_local *p,
		 uint32_t tot, enum fou_icmp_kind kind, uint32_t info, unsigned int fallback,
		 uint16_t *out_port)
{
	fallback = fou_local_drop(p, fallback);
	if (p->l2_group)
		return fallback;
	return fou_icmp4_error(lc, m, p->off, tot, kind, info, true, fallback, out_port);
}

static unsigned int
fou_local_error6(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_local *p,
		 uint32_t tot, enum fou_icmp_kind kind, uint32_t info, unsigned int fallback,
		 uint16_t *out_port)
{
	fallback = fou_local_drop(p, fallback);
	if (p->l2_group)
		return fallback;
	return fou_icmp6_error(lc, m, p->off, tot, kind, info, true, fallback, out_port);
}

/*
 * The UDP datagram of p, as __udp4_lib_rcv / __udp6_lib_rcv check it: a
 * header, a length of 8 or more within the payload (a shorter one trims the
 * datagram; over IPv6, 0 is a jumbogram's, the whole payload), then the
 * checksum, which over IPv6 must be there. addr_sum: the sum of the
 * pseudo-header's addresses. Sets *ulen and *dport.
 */
static unsigned int
fou_local_udp(const struct rte_mbuf *m, const struct fou_local *p, uint32_t addr_sum, bool v6,
	      uint32_t *ulen, uint16_t *dport)
{
	const uint32_t at = p->off + p->hl, avail = p->tot - p->hl;
	const struct rte_udp_hdr *udp;
	uint32_t n;

	if (avail < sizeof(*udp))
		return fou_local_drop(p, FOU_DROP_UDP_TRUNCATED);
	if (at + sizeof(*udp) > rte_pktmbuf_data_len(m))
		return FOU_DROP_HDR_SPLIT;
	udp = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, at);
	n = rte_be_to_cpu_16(udp->dgram_len);
	if (v6 && n == 0)
		n = avail;
	if (n < sizeof(*udp) || n > avail)
		return fou_local_drop(p, FOU_DROP_UDP_LEN_BAD);
	if (udp->dgram_cksum == 0 ? v6 :
	    fou_cksum_fold(m, at, n, addr_sum + rte_cpu_to_be_16(IPPROTO_UDP) +
				     rte_cpu_to_be_16((uint16_t)n)) != 0xffff)
		return fou_local_drop(p, FOU_DROP_UDP_CKSUM_BAD);
	*ulen = n;
	*dport = rte_be_to_cpu_16(udp->dst_port);
	return FOU_FWD;
}

/*
 * The ICMP or ICMPv6 message of p: a whole header in the first segment (as
 * icmp_rcv and icmpv6_rcv pull it), then the checksum. phdr: the
 * pseudo-header sum (0 for ICMP). Returns FOU_FWD or the drop reason.
 */
static unsigned int
fou_local_icmp_check(const struct rte_mbuf *m, const struct fou_local *p, uint32_t phdr)
{
	const uint32_t at = p->off + p->hl, len = p->tot - p->hl;

	if (len < FOU_ICMP_HDR)
		return fou_local_drop(p, FOU_DROP_ICMP_BAD);
	if (at + FOU_ICMP_HDR > rte_pktmbuf_data_len(m))
		return FOU_DROP_HDR_SPLIT;
	if (fou_cksum_fold(m, at, len, phdr) != 0xffff)
		return fou_local_drop(p, FOU_DROP_ICMP_BAD);
	return FOU_FWD;
}

/* icmp_rcv: an echo request is answered; the other messages, errors
 * included, change nothing here. */
static unsigned int
fou_local_icmp4(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_local *p,
		uint16_t *out_port)
{
	const struct rte_icmp_hdr *icmp;
	unsigned int r;

	r = fou_local_icmp_check(m, p, 0);
	if (r != FOU_FWD)
		return r;
	icmp = rte_pktmbuf_mtod_offset(m, const struct rte_icmp_hdr *, p->off + p->hl);
	if (icmp->icmp_type == RTE_IP_ICMP_ECHO_REQUEST)
		return fou_icmp4_echo(lc, m, p->off, p->hl, p->tot, p->ecn, out_port);
	if (fou_local_punts(lc, p))
		return fou_punt_up(lc, p->rx_port, m, FOU_PUNT_UP_ICMP);
	if (icmp->icmp_type == FOU_ICMP_DEST_UNREACH && icmp->icmp_code == FOU_ICMP_FRAG_NEEDED_CODE) {
		/* fragmentation needed: the one place where the tunnels' path
		 * MTU (fou_pmtu4_input()) will take it; not acted on yet */
		return fou_local_drop(p, FOU_DROP_ICMP_LOCAL);
	}
	return fou_local_drop(p, FOU_DROP_ICMP_LOCAL);
}

unsigned int
fou_local4_port_unreach(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_local *p,
			uint32_t ulen, uint16_t *out_port)
{
	if (fou_local_punts(lc, p))
		return fou_punt_up(lc, p->rx_port, m, FOU_PUNT_UP_UDP);
	/* the quote ends with the datagram: __udp4_lib_rcv trimmed the
	 * packet to it */
	return fou_local_error4(lc, m, p, p->hl + ulen, FOU_ICMP_PORT_UNREACH, 0,
				FOU_DROP_FOU_PORT_UNKNOWN, out_port);
}

unsigned int
fou_local4(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_local *p,
	   uint16_t *out_port)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								 p->off);
	uint32_t ulen;
	uint16_t dport;
	unsigned int r;

	/* outer fragments were reassembled before (fou_reasm.c); a
	 * decapsulated one to us is not */
	if (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
						   RTE_IPV4_HDR_OFFSET_MASK))
		return FOU_DROP_INNER_LOCAL;
	switch (ip->next_proto_id) {
	case IPPROTO_ICMP:
		return fou_local_icmp4(lc, m, p, out_port);
	case IPPROTO_UDP:
		/* only an inner packet comes here with UDP: the receive path
		 * takes the outer ones */
		r = fou_local_udp(m, p, __rte_raw_cksum(&ip->src_addr, 8, 0), false, &ulen,
				  &dport);
		if (r != FOU_FWD)
			return r;
		/* one of our tunnel probes, back through the peer (fou_probe.c) */
		if (unlikely(dport == FOU_PROBE_PORT) && p->tun != 0)
			return fou_probe_rx(lc, m, p->off, p->tot, p->tun - 1);
		/* FOU inside a tunnel is not decapsulated a second time */
		if (__atomic_load_n(&lc->gw->udp_slot[dport], __ATOMIC_ACQUIRE) != 0)
			return FOU_DROP_INNER_LOCAL;
		return fou_local4_port_unreach(lc, m, p, ulen, out_port);
	/* Linux has handlers for these, which the gateway has not: no
	 * protocol unreachable, and none of their answers (a TCP reset, a
	 * UDP-Lite port unreachable after checks the gateway does not make) */
	case IPPROTO_TCP:
	case IPPROTO_IGMP:
	case IPPROTO_UDPLITE:
		if (fou_local_punts(lc, p))
			return fou_punt_up(lc, p->rx_port, m, ip->next_proto_id == IPPROTO_TCP ?
					   FOU_PUNT_UP_TCP : FOU_PUNT_UP_OTHER);
		return fou_local_drop(p, FOU_DROP_LOCAL_NOT_UDP);
	default:
		if (fou_local_punts(lc, p))
			return fou_punt_up(lc, p->rx_port, m, FOU_PUNT_UP_OTHER);
		return fou_local_error4(lc, m, p, p->tot, FOU_ICMP_PROTO_UNREACH, 0,
					FOU_DROP_LOCAL_NOT_UDP, out_port);
	}
}

/* icmpv6_rcv: an echo request is answered; Neighbour Discovery goes to
 * its own handling; the other messages change nothing here. */
static unsigned int
fou_local_icmp6(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_local *p,
		const struct rte_ipv6_hdr *ip6, uint16_t *out_port)
{
	const uint32_t len = p->tot - p->hl;
	uint8_t type;
	unsigned int r;

	if (len >= 1 && p->off + p->hl + 1 <= rte_pktmbuf_data_len(m)) {
		type = *rte_pktmbuf_mtod_offset(m, const uint8_t *, p->off + p->hl);
		/* Neighbour Discovery: the one place where the neighbour code
		 * will take it, checks (RFC 4861 7.1.1) and all; not yet */
		if (type >= FOU_ND_FIRST && type <= FOU_ND_LAST && !fou_local_punts(lc, p))
			return fou_local_drop(p, FOU_DROP_LOCAL_IPV6);
	}
	r = fou_local_icmp_check(m, p, __rte_raw_cksum(ip6->src_addr, 32, 0) +
				       rte_cpu_to_be_16((uint16_t)len) +
				       rte_cpu_to_be_16(IPPROTO_ICMPV6));
	if (r != FOU_FWD)
		return r;
	type = *rte_pktmbuf_mtod_offset(m, const uint8_t *, p->off + p->hl);
	if (type == FOU_ICMP6_ECHO_REQUEST)
		return fou_icmp6_echo(lc, m, p->off, p->tot, p->ecn, out_port);
	if (fou_local_punts(lc, p))
		return fou_punt_up(lc, p->rx_port, m, FOU_PUNT_UP_ICMP);
	return fou_local_drop(p, FOU_DROP_ICMP_LOCAL);
}

unsigned int
fou_local6(struct fou_lcore *lc, struct rte_mbuf *m, const struct fou_local *p,
	   uint16_t *out_port)
{
	const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
								  p->off);
	uint32_t ulen;
	uint16_t dport;
	unsigned int r;

	switch (ip6->proto) {
	case IPPROTO_ICMPV6:
		return fou_local_icmp6(lc, m, p, ip6, out_port);
	case IPPROTO_UDP:
		r = fou_local_udp(m, p, __rte_raw_cksum(ip6->src_addr, 32, 0), true, &ulen, &dport);
		if (r != FOU_FWD)
			return r;
		if (unlikely(dport == FOU_PROBE_PORT) && p->tun != 0)
			return fou_probe_rx(lc, m, p->off, p->tot, p->tun - 1);
		/* as over IPv4: FOU inside a tunnel is not decapsulated a second
		 * time (outer UDP to a port over IPv6 never comes here) */
		if (__atomic_load_n(&lc->gw->udp_slot6[dport], __ATOMIC_ACQUIRE) != 0)
			return FOU_DROP_INNER_LOCAL;
		if (fou_local_punts(lc, p))
			return fou_punt_up(lc, p->rx_port, m, FOU_PUNT_UP_UDP);
		/* the quote ends with the datagram, as for IPv4 */
		return fou_local_error6(lc, m, p, p->hl + ulen, FOU_ICMP_PORT_UNREACH6, 0,
					FOU_DROP_LOCAL_IPV6, out_port);
	/* as for IPv4, and what Linux discards (no next header) or processes
	 * (extension headers, which the gateway does not parse) */
	case IPPROTO_TCP:
	case IPPROTO_UDPLITE:
	case IPPROTO_NONE:
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_FRAGMENT:
	case IPPROTO_DSTOPTS:
		if (fou_local_punts(lc, p))
			return fou_punt_up(lc, p->rx_port, m, ip6->proto == IPPROTO_TCP ?
					   FOU_PUNT_UP_TCP : FOU_PUNT_UP_OTHER);
		return fou_local_drop(p, FOU_DROP_LOCAL_IPV6);
	default:
		if (fou_local_punts(lc, p))
			return fou_punt_up(lc, p->rx_port, m, FOU_PUNT_UP_OTHER);
		return fou_local_error6(lc, m, p, p->tot, FOU_ICMP_PARAM_PROB6,
					offsetof(struct rte_ipv6_hdr, proto), FOU_DROP_LOCAL_IPV6,
					out_port);
	}
}
