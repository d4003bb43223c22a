/* SPDX-License-Identifier: BSD-3-Clause */
/* ICMP "fragmentation needed" about a tunnel's outer packets (fou_pmtu.c). */
#ifndef FOU_PMTU_H
#define FOU_PMTU_H

#include <rte_ip.h>

#include "fou_lcore.h"

#define FOU_ICMP4_DEST_UNREACH 3
#define FOU_ICMP4_FRAG_NEEDED 4

/*
 * Is the ICMP message after the IPv4 header (hl bytes at off, tot in all)
 * a destination unreachable, fragmentation needed? Reads its type and
 * code only where they are.
 */
static inline bool
fou_pmtu4_is_frag_needed(const struct rte_mbuf *m, uint32_t off, uint32_t hl, uint32_t tot)
{
	const uint8_t *icmp;

	if (tot < hl + 2 || off + hl + 2 > rte_pktmbuf_data_len(m))
		return false;
	icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, off + hl);
	return icmp[0] == FOU_ICMP4_DEST_UNREACH && icmp[1] == FOU_ICMP4_FRAG_NEEDED;
}

/*
 * An ICMP fragmentation needed to one of our addresses (IPv4 header ip at
 * off, hl and tot checked): when it quotes an outer packet one of our
 * tunnels sent, that tunnel's path MTU is lowered to the MTU it reports
 * (FOU_PMTU_MIN at least), as Linux' ipip_err / ipgre_err / the FOU error
 * handler do with ipv4_update_pmtu. Returns the drop reason the packet
 * ends with (or FOU_CONSUMED): FOU_CONSUMED when it was about a tunnel (taken, or
 * refused because it would not lower the MTU), FOU_DROP_PMTU_BAD when
 * its checksum is wrong, its quote truncated or about no tunnel of ours.
 */
unsigned int fou_pmtu4_input(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off,
			     const struct rte_ipv4_hdr *ip, uint32_t hl, uint32_t tot);

#define FOU_ICMP6_PKT_TOO_BIG 2

/* Is the ICMPv6 message at at (len bytes of it) a packet too big? */
static inline bool
fou_pmtu6_is_too_big(const struct rte_mbuf *m, uint32_t at, uint32_t len)
{
	const uint8_t *icmp;

	if (len < 2 || at + 2 > rte_pktmbuf_data_len(m))
		return false;
	icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, at);
	return icmp[0] == FOU_ICMP6_PKT_TOO_BIG && icmp[1] == 0;
}

/*
 * The same for an ICMPv6 packet too big to one of our IPv6 addresses (the
 * message at at, len bytes of it, after the extension headers of ip6):
 * when it quotes an outer packet one of our IPv6-underlay tunnels sent
 * (IPv6 [+ extension headers] + UDP [+ GUE] from the tunnel's ports, or
 * plain IPIP / IPv6 / GRE with its flags and key), that tunnel's path MTU
 * is lowered to the MTU it reports, 1280 at least (ip6_update_pmtu).
 * Returns as fou_pmtu4_input does.
 */
unsigned int fou_pmtu6_input(struct fou_lcore *lc, struct rte_mbuf *m,
			     const struct rte_ipv6_hdr *ip6, uint32_t at, uint32_t len);

#endif /* FOU_PMTU_H */
