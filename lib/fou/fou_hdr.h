/* SPDX-License-Identifier: BSD-3-Clause */
/* Wire formats and checksum helpers: the data path's, and the tunnel
 * template's (fou_tunnel.c); tests use the GRE flags. */
#ifndef FOU_HDR_H
#define FOU_HDR_H

#include <stdbool.h>
#include <string.h>
#include <netinet/in.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_udp.h>
#include <rte_mbuf.h>

/* GRE flags word (RFC 2784, RFC 2890, RFC 1701 for R), host order. */
#define FOU_GRE_C 0x8000
#define FOU_GRE_R 0x4000
#define FOU_GRE_K 0x2000
#define FOU_GRE_S 0x1000
#define FOU_GRE_VER_MASK 0x0007

/* The GRE header's length, and where its key sits, for the flags it carries
 * (RFC 2784 + 2890: checksum and reserved word, key, sequence number). */
static inline uint32_t
fou_gre_hlen(uint16_t flags)
{
	return 4 + 4 * (!!(flags & FOU_GRE_C) + !!(flags & FOU_GRE_K) + !!(flags & FOU_GRE_S));
}

static inline uint32_t
fou_gre_key_off(uint16_t flags)
{
	return (flags & FOU_GRE_C) ? 8 : 4;
}

/*
 * GUE (draft-ietf-intarea-gue, Linux' include/net/gue.h): a 4-byte header
 * after UDP, its first byte the version (2 bits), the control bit and the
 * header length in 4-byte words beyond the first; then the protocol (or
 * control type) and 16 bits of flags. Version 1 is no header at all: an
 * IPv4 or IPv6 packet directly after UDP, told apart by its first nibble.
 */
#define FOU_GUE_HLEN 4
#define FOU_GUE_VER(b0) ((uint8_t)(b0) >> 6)
#define FOU_GUE_C 0x20			/* in the first byte */
#define FOU_GUE_HLEN_WORDS(b0) ((b0) & 0x1fu)
#define FOU_GUE_FLAG_PRIV 0x0001	/* flags word, host order: private flags follow */
#define FOU_GUE_FLAGS_ALL FOU_GUE_FLAG_PRIV
#define FOU_GUE_LEN_PRIV 4
#define FOU_GUE_PFLAG_REMCSUM 0x80000000u	/* private flags, host order */
#define FOU_GUE_PFLAGS_ALL FOU_GUE_PFLAG_REMCSUM

/* IPv4 option types (RFC 791, RFC 2113). */
#define FOU_IPOPT_EOL 0
#define FOU_IPOPT_NOP 1
#define FOU_IPOPT_RR 7
#define FOU_IPOPT_TS 68
#define FOU_IPOPT_LSRR 131
#define FOU_IPOPT_SSRR 137
#define FOU_IPOPT_RA 148
#define FOU_IPOPT_TS_ADDR 1		/* timestamp flags: address + time */
#define FOU_IPOPT_TS_PRESPEC 3		/* prespecified addresses + time */

/*
 * A timestamp option of olen bytes (RFC 791): length, pointer, and for a
 * full option the overflow counter, as Linux' ip_options_compile() checks
 * them on receive.
 */
static inline bool
fou_ip4_ts_ok(const uint8_t *o, uint32_t olen)
{
	uint32_t ptr = olen >= 3 ? o[2] : 0, flags = olen >= 4 ? o[3] & 0xfu : 0;

	if (olen < 4 || ptr < 5)
		return false;
	if (ptr > olen)		/* full: the overflow counter must not wrap */
		return flags == FOU_IPOPT_TS_PRESPEC || (o[3] >> 4) != 15;
	if (ptr + 3 > olen)
		return false;
	if (flags == FOU_IPOPT_TS_ADDR || flags == FOU_IPOPT_TS_PRESPEC)
		return ptr + 7 <= olen;
	return true;
}

/*
 * The len option bytes of an IPv4 header may be received: every option
 * well formed (a length of 2 or more within the header, record route and
 * timestamp pointers in range, router alert 4 bytes), and no source route.
 * Linux drops the others in ip_rcv_options(): malformed ones, and LSRR /
 * SSRR since accept_source_route is off (RFC 7126 4.3, 4.4 advise the same).
 */
static inline bool
fou_ip4_options_ok(const uint8_t *opt, uint32_t len)
{
	uint32_t i = 0, olen;

	while (i < len && opt[i] != FOU_IPOPT_EOL) {
		if (opt[i] == FOU_IPOPT_NOP) {
			i++;
			continue;
		}
		olen = len - i >= 2 ? opt[i + 1] : 0;
		if (olen < 2 || olen > len - i)
			return false;
		switch (opt[i]) {
		case FOU_IPOPT_LSRR:
		case FOU_IPOPT_SSRR:
			return false;
		case FOU_IPOPT_RR:
			if (olen < 3 || opt[i + 2] < 4 ||
			    (opt[i + 2] <= olen && opt[i + 2] + 3u > olen))
				return false;
			break;
		case FOU_IPOPT_TS:
			if (!fou_ip4_ts_ok(opt + i, olen))
				return false;
			break;
		case FOU_IPOPT_RA:
			if (olen < 4)
				return false;
			break;
		default:
			break;
		}
		i += olen;
	}
	return true;
}

/* The options of an IPv4 header of hl bytes are fine (none is). */
static inline bool
fou_ip4_hdr_options_ok(const struct rte_ipv4_hdr *ip, uint32_t hl)
{
	return likely(hl == sizeof(*ip)) ||
	       fou_ip4_options_ok((const uint8_t *)(ip + 1), hl - sizeof(*ip));
}

/* ECN codepoints (RFC 3168). */
#define FOU_ECN_NOT_ECT 0
#define FOU_ECN_ECT1 1
#define FOU_ECN_ECT0 2
#define FOU_ECN_CE 3
#define FOU_ECN_DROP 0xff

/*
 * RFC 6040 section 4.2 (figure 4): the inner ECN field after decapsulation,
 * or FOU_ECN_DROP. Linux' INET_ECN_decapsulate() differs in one cell: it
 * leaves inner ECT(0) under outer ECT(1) as ECT(0); RFC 6040 says ECT(1).
 */
static inline uint8_t
fou_ecn_decap(uint8_t outer, uint8_t inner)
{
	if (inner == FOU_ECN_NOT_ECT)
		return outer == FOU_ECN_CE ? FOU_ECN_DROP : FOU_ECN_NOT_ECT;
	if (outer == FOU_ECN_CE)
		return FOU_ECN_CE;
	if (outer == FOU_ECN_ECT1 && inner == FOU_ECN_ECT0)
		return FOU_ECN_ECT1;
	return inner;
}

/*
 * rte_raw_cksum() of len bytes, folded to 16 bits: 8-byte words summed as
 * two 32-bit halves into 64 bits instead of DPDK 22.11's loop over 16-bit
 * words (a quarter of the additions; GRO sums every TCP payload).
 */
static inline uint16_t
fou_raw_sum(const void *buf, uint32_t len)
{
	const uint8_t *p = (const uint8_t *)buf;
	uint64_t sum = 0, w;
	uint32_t i, t;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, sizeof(w));
		sum += (w & 0xffffffffu) + (w >> 32);
	}
	if (len - i >= 4) {
		memcpy(&t, p + i, 4);
		sum += t;
		i += 4;
	}
	if (len - i >= 2) {
		uint16_t h;

		memcpy(&h, p + i, 2);
		sum += h;
		i += 2;
	}
	if (i < len) {
		uint16_t b = 0;

		memcpy(&b, p + i, 1);	/* a last odd byte, as if followed by 0 */
		sum += b;
	}
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)sum;
}

/* a - b in one's complement arithmetic, both folded sums. */
static inline uint16_t
fou_sum16_sub(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + (uint16_t)~b;

	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)((s & 0xffff) + (s >> 16));
}

/* The same of an IPv4 header of hl bytes: valid when the result is 0xffff. */
static inline uint16_t
fou_ip4_hdr_sum(const void *hdr, uint32_t hl)
{
	return fou_raw_sum(hdr, hl);
}

/*
 * One's complement sum of len bytes at off in m, added to sum and folded;
 * the data is valid when the result is 0xffff. Walks segments if needed.
 * The caller has checked that off + len is within the packet.
 *
 * Not rte_raw_cksum_mbuf(): for a segment that starts at an odd offset
 * into the data it byte-swaps the unfolded 32-bit sum cast to 16 bits,
 * losing the carries (DPDK 22.11). Folding first makes the swap exact.
 */
static inline uint16_t
fou_cksum_fold(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint32_t sum)
{
	const struct rte_mbuf *seg = m;
	uint32_t done = 0;

	if (likely(off + len <= rte_pktmbuf_data_len(m)))
		return __rte_raw_cksum_reduce(
			__rte_raw_cksum(rte_pktmbuf_mtod_offset(m, const void *, off), len, sum));
	while (seg != NULL && off >= seg->data_len) {
		off -= seg->data_len;
		seg = seg->next;
	}
	for (; seg != NULL && done < len; seg = seg->next, off = 0) {
		uint32_t n = RTE_MIN((uint32_t)seg->data_len - off, len - done);
		uint16_t part = __rte_raw_cksum_reduce(
			__rte_raw_cksum(rte_pktmbuf_mtod_offset(seg, const void *, off), n, 0));

		sum += (done & 1) ? rte_bswap16(part) : part;
		done += n;
	}
	if (done != len)
		return 0;
	return __rte_raw_cksum_reduce(sum);
}

/* Pseudo-header sum of an IPv4 UDP datagram of ulen bytes (RFC 768). */
static inline uint32_t
fou_udp4_phdr_sum(const struct rte_ipv4_hdr *ip, uint16_t ulen)
{
	return __rte_raw_cksum(&ip->src_addr, 8, 0) + rte_cpu_to_be_16(IPPROTO_UDP) +
	       rte_cpu_to_be_16(ulen);
}

/* Pseudo-header sum of an IPv6 UDP datagram of ulen bytes (RFC 8200 8.1):
 * next header 17 and the UDP length, whatever extension headers come
 * between (the Destination Options of a tunnel's encapsulation limit). */
static inline uint32_t
fou_udp6_phdr_sum(const struct rte_ipv6_hdr *ip6, uint32_t ulen)
{
	return __rte_raw_cksum(ip6->src_addr, 32, 0) + rte_cpu_to_be_16(IPPROTO_UDP) +
	       rte_cpu_to_be_16((uint16_t)ulen);
}

/*
 * RFC 1624 eq. 3: the checksum after a 16-bit word of the covered data
 * changes from old to new (all three as stored, in network order).
 */
static inline uint16_t
fou_cksum_update16(uint16_t cksum, uint16_t old, uint16_t new)
{
	uint32_t s = (uint16_t)~cksum + (uint16_t)~old + new;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

#endif /* FOU_HDR_H */
