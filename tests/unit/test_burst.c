/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A packet is decided the same in any burst. The receive path looks a
 * burst's lookups up together before it handles each packet (fou_rx.c,
 * fou_ahead()), and the claim is that whether a packet is decapsulated,
 * forwarded, encapsulated, held or dropped (and why), and the bytes it
 * leaves with, never depend on what else is in its burst.
 *
 * Two gateways are configured identically: tunnels of every type from a
 * FOU peer (ipip, sit, GRE without a key, with one, with one and a
 * checksum), plain (encap none) tunnels, tunnels to send into (FOU and
 * plain, one whose remote has no neighbour, one with no route to its
 * remote, one looping into itself), IPv4 and IPv6 routes, static
 * neighbours and destinations without one. Over a hundred frames (the
 * golden frames, the other tests' inputs, packets to our own addresses,
 * ARP and ND, tags, truncated and malformed frames, segmented mbufs, path
 * MTU errors) go to gateway A in bursts of up to FOU_BURST, one
 * fou_lcore_rx() call per burst, and to gateway B one per call, in the
 * same order. Each
 * packet's fate (sent and out of which port, held and for which
 * neighbour, or gone), every byte and the mbuf's offload fields of what
 * left, the worker's and the control thread's counters, the events about
 * neighbours and every tunnel's counters and MTU must agree after each
 * burst; in the first round each packet's fate alone is also checked
 * against what it should be, so that the set covers what it says. Then
 * the same set is shuffled (fixed seed) and cut into bursts of other sizes.
 * Every frame ends at a page the process may not read (guard_mbuf()), so
 * that the first pass, which reads headers before anything has checked
 * them, faults on a byte the frame does not have.
 *
 * What makes the comparison fair:
 * - Outer IPv4 IDs come from the context's counter (lc->ip_id, one per
 *   packet the worker builds) and GRE sequence numbers from the tunnel's:
 *   both count what the gateway built before. B takes the packets in
 *   exactly A's order (the order within each burst, the bursts in turn),
 *   each context starting from the same ID, so equal bytes are owed.
 * - A tunnel's path MTU, lowered by an ICMP error in the set, changes what
 *   later packets do: the same order again makes it the same for both,
 *   and every call gets the same `now`, so nothing expires between them.
 * - ICMP errors are rate-limited by a token bucket refilled from the TSC
 *   read at each error (fou_icmp_allow), not from `now`: its burst is set
 *   above every error the test sends (checked at the end), so the bucket
 *   never runs dry and the clock cannot decide for one gateway and not
 *   the other.
 * - GRO (which merges across packets on purpose) stays off.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_mbuf_dyn.h>

#include "unit.h"
#include "fou_hdr.h"
#include "fou_private.h"	/* the hold ring: which packet waits for which neighbour */
#define GOLDEN_RX
#define GOLDEN_TX	/* the IPv6-underlay frames */
#include "golden.h"

#define C FOU_GRE_C
#define K FOU_GRE_K
#define S FOU_GRE_S

#define PEER IP4(10, 0, 0, 2)		/* the FOU peer on port 0 */
#define PLAIN_PEER IP4(10, 0, 0, 6)	/* the plain tunnels' peer */
#define OTHER IP4(10, 0, 0, 3)		/* a host with no tunnel to us */
#define ME0 IP4(10, 0, 0, 1)
#define ME1 IP4(192, 168, 1, 1)
#define REMOTE IP4(10, 20, 0, 9)	/* the remote of the tunnels we send into */
#define ICMP_BURST 1000000		/* the bucket's size: above every error sent */
#define NB_ROUNDS 40
#define SEED 0x6b75727au
#define MAX_CASES 200

/*
 * Both gateways: unit_gw_std() and these. Receive tunnels from the peer
 * 10.0.0.2 (r_*) and the plain peer 10.0.0.6 (p_*); the inner sources
 * behind the peer (10.30/16, fd00:30::/32) are routed back into r_ipip and
 * r_sit, so ICMP errors and echo replies about decapsulated packets are
 * encapsulated back. Tunnels to send into (t_*): 10.50-10.56/16 and
 * fd00:50/51/53::/32.
 */
static const char config[] =
	"addr 0,fd00::1/64\n"
	"neigh 10.0.0.2,dev=0,lladdr=02:00:00:00:00:02\n"
	"neigh fd00::2,dev=0,lladdr=02:00:00:00:00:02\n"
	"icmp-rate 1000000,burst=" RTE_STR(ICMP_BURST) "\n"
	"tunnel r_ipip,type=ipip,local=10.0.0.1,remote=10.0.0.2,encap-dport=5555\n"
	"tunnel r_sit,type=sit,local=10.0.0.1,remote=10.0.0.2,encap-dport=5557\n"
	"tunnel r_gre,type=gre,local=10.0.0.1,remote=10.0.0.2,encap-dport=5556\n"
	"tunnel r_grek,type=gre,local=10.0.0.1,remote=10.0.0.2,key=16909060,encap-dport=5556\n"
	"tunnel r_grekc,type=gre,local=10.0.0.1,remote=10.0.0.2,key=7,csum,encap-dport=5556\n"
	"tunnel p_ipip,type=ipip,local=10.0.0.1,remote=10.0.0.6,encap=none\n"
	"tunnel p_sit,type=sit,local=10.0.0.1,remote=10.0.0.6,encap=none\n"
	"tunnel p_gre,type=gre,local=10.0.0.1,remote=10.0.0.6,encap=none,key=42\n"
	"route 10.30.0.0/16,dev=r_ipip\n"
	"route fd00:30::/32,dev=r_sit\n"
	"tunnel t_ipip,type=ipip,local=192.168.1.1,remote=10.20.0.9,encap-dport=5555\n"
	"tunnel t_sit,type=sit,local=192.168.1.1,remote=10.20.0.9,encap-dport=5557,encap-csum\n"
	"tunnel t_gre,type=gre,local=192.168.1.1,remote=10.20.0.9,key=5,csum,seq,"
	"encap-dport=5556\n"
	"tunnel t_gre0,type=gre,local=192.168.1.1,remote=10.20.0.9,seq,encap-dport=5556\n"
	"tunnel t_plain,type=ipip,local=192.168.1.1,remote=10.20.0.10,encap=none\n"
	"tunnel t_pgre,type=gre,local=192.168.1.1,remote=10.20.0.10,encap=none,key=9\n"
	"tunnel t_held,type=ipip,local=192.168.1.1,remote=10.21.0.9,encap-dport=5555\n"
	"tunnel t_noroute,type=ipip,local=192.168.1.1,remote=10.99.0.9,encap-dport=5555\n"
	"tunnel t_loop,type=ipip,local=192.168.1.1,remote=10.56.0.9,encap-dport=5555\n"
	"route 10.50.0.0/16,dev=t_ipip\n"
	"route fd00:50::/32,dev=t_sit\n"
	"route 10.51.0.0/16,dev=t_gre\n"
	"route fd00:51::/32,dev=t_gre\n"
	"route 10.52.0.0/16,dev=t_gre0\n"
	"route 10.53.0.0/16,dev=t_plain\n"
	"route fd00:53::/32,dev=t_pgre\n"
	"route 10.54.0.0/16,dev=t_held\n"
	"route 10.55.0.0/16,dev=t_noroute\n"
	"route 10.56.0.0/16,dev=t_loop\n"
	/* over an IPv6 underlay: FOU ports, tunnels from fd00::2 (r6_*), and
	 * to send into (t6_*) */
	"port 5555:ipip,family=6\n"
	"port 5556:gre,family=6\n"
	"port 5557:sit,family=6\n"
	"port 5558:gue,family=6\n"
	"tunnel r6_tnl,type=ip6tnl,local=fd00::1,remote=fd00::2,mode=ipip6,encap=fou,"
	"encap-dport=5555\n"
	"tunnel r6_gre,type=ip6gre,local=fd00::1,remote=fd00::2,key=42,csum,encap=fou,"
	"encap-dport=5556\n"
	"tunnel t6_fou,type=ip6tnl,local=fd00:1::1,remote=fd00:20::9,mode=any,encap=fou,"
	"encap-dport=5555\n"
	"tunnel t6_gre,type=ip6gre,local=fd00:1::1,remote=fd00:20::a,key=3,encap=none\n"
	"tunnel t6_held,type=ip6tnl,local=fd00:1::1,remote=fd00:21::9,mode=any,encap=none\n"
	"route 10.57.0.0/16,dev=t6_fou\n"
	"route fd00:57::/32,dev=t6_fou\n"
	"route 10.58.0.0/16,dev=t6_gre\n"
	"route fd00:58::/32,dev=t6_held\n"
	/* ECMP groups: the look-ahead routes the member's remote */
	"route 10.59.0.0/16,dev=t_ipip\n"
	"route 10.59.0.0/16,dev=t_plain,weight=2\n"
	"route 10.59.0.0/16,dev=t6_fou\n"
	"route fd00:59::/32,dev=t_sit\n"
	"route fd00:59::/32,dev=t6_fou\n";

/* --- the set of frames ------------------------------------------------------ */

/* A packet's fate alone, in the first round: a drop reason or one of these. */
#define V_FWD UNIT_FWD
#define V_HELD UNIT_HELD
#define V_CONSUMED UNIT_CONSUMED

struct bcase {
	const char *name;
	uint16_t port;			/* received on */
	uint8_t b[UNIT_PKT_MAX];
	uint32_t len;
	uint32_t seg[2];		/* segment lengths (the last takes the rest) */
	unsigned int nb_segs;		/* 0: one segment */
	unsigned int verdict;		/* alone, in the first round */
	uint16_t out_port;		/* V_FWD, V_HELD: where it leaves / waits */
	const uint8_t *golden;		/* V_FWD: the frame that leaves, or NULL */
	uint32_t golden_len;
};

static struct bcase cases[MAX_CASES];
static unsigned int nb_cases;

static struct bcase *
case_add(const char *name, uint16_t port, const uint8_t *b, uint32_t len, unsigned int verdict,
	 uint16_t out_port)
{
	struct bcase *c;

	if (nb_cases == MAX_CASES)
		fail_msg("more than %u cases", MAX_CASES);
	if (len > sizeof(c->b))
		fail_msg("%s: %u bytes", name, len);
	c = &cases[nb_cases++];
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->port = port;
	memcpy(c->b, b, len);
	c->len = len;
	c->verdict = verdict;
	c->out_port = out_port;
	return c;
}

static void
case_golden(const char *name, const uint8_t *b, uint32_t len, unsigned int verdict,
	    const uint8_t *out, uint32_t out_len)
{
	struct bcase *c = case_add(name, RX_PORT, b, len, verdict, EG_PORT);

	c->golden = out;
	c->golden_len = out_len;
}

static void
case_spec(const char *name, const struct unit_spec *s, unsigned int verdict, uint16_t out_port)
{
	struct unit_pkt p;

	unit_build(s, &p);
	case_add(name, RX_PORT, p.b, p.len, verdict, out_port);
}

static void
ip6(uint8_t *a, const char *s)
{
	assert_int_equal(inet_pton(AF_INET6, s, a), 1);
}

/* Ethernet from the peer's MAC to dst. */
static uint32_t
eth(uint8_t *b, const struct rte_ether_addr *dst, uint16_t type)
{
	memcpy(b, dst->addr_bytes, 6);
	memcpy(b + 6, mac_peer.addr_bytes, 6);
	unit_put16(b + 12, type);
	return RTE_ETHER_HDR_LEN;
}

/*
 * A packet routed rather than tunnelled: the inner packet of s (its
 * checksums from the builder) in a frame of its own to the port's MAC.
 */
static struct bcase *
case_plain(const char *name, uint16_t port, const struct unit_spec *s, unsigned int verdict,
	   uint16_t out_port)
{
	uint8_t b[UNIT_PKT_MAX];
	struct unit_pkt p;
	uint32_t o;

	unit_build(s, &p);
	o = eth(b, port == RX_PORT ? &mac_rx : &mac_eg,
		p.kind == UNIT_IN_V4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	memcpy(b + o, p.b + p.inner, p.inner_tot);
	return case_add(name, port, b, o + p.inner_tot, verdict, out_port);
}

/* Inner IPv4 from src to dst, payload bytes of UDP (for case_plain). */
static void
spec4(struct unit_spec *s, uint32_t src, uint32_t dst, uint16_t payload)
{
	unit_spec_ipip(s);
	s->in_src4 = src;
	s->in_dst4 = dst;
	s->payload = payload;
}

static void
spec6(struct unit_spec *s, const char *src, const char *dst, uint16_t payload)
{
	unit_spec_sit(s);
	ip6(s->in_src6, src);
	ip6(s->in_dst6, dst);
	s->payload = payload;
}

/*
 * The FOU frame of s as a plain tunnel sends it: from src, the UDP header
 * taken out and the outer protocol the tunnel's (4, 41 or 47).
 */
static void
case_plain_tunnel(const char *name, const struct unit_spec *s, uint32_t src, unsigned int verdict)
{
	uint8_t b[UNIT_PKT_MAX];
	struct unit_pkt p;
	uint32_t rest;

	unit_build(s, &p);
	rest = p.len - p.l4 - 8;
	memcpy(b, p.b, p.l4);
	memcpy(b + p.l4, p.b + p.l4 + 8, rest);
	b[p.l3 + 9] = s->gre ? IPPROTO_GRE : s->inner == UNIT_IN_V6 ? IPPROTO_IPV6 : IPPROTO_IPIP;
	unit_put16(b + p.l3 + 2, (uint16_t)(p.l4 - p.l3 + rest));
	unit_put32(b + p.l3 + 12, src);
	unit_ip4_cksum_fix(b + p.l3);
	case_add(name, RX_PORT, b, p.l4 + rest, verdict, EG_PORT);
}

/* An IPv4 packet of proto from src to dst carrying l4 (checksummed by
 * the caller), to port's MAC. */
static uint32_t
ip4_frame(uint8_t *b, uint16_t port, uint32_t src, uint32_t dst, uint8_t proto,
	  const uint8_t *l4, uint32_t l4_len)
{
	uint8_t *ip = b + eth(b, port == RX_PORT ? &mac_rx : &mac_eg, RTE_ETHER_TYPE_IPV4);

	memset(ip, 0, 20);
	ip[0] = 0x45;
	unit_put16(ip + 2, (uint16_t)(20 + l4_len));
	unit_put16(ip + 4, 0x4321);
	unit_put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = proto;
	unit_put32(ip + 12, src);
	unit_put32(ip + 16, dst);
	unit_ip4_cksum_fix(ip);
	memcpy(ip + 20, l4, l4_len);
	return RTE_ETHER_HDR_LEN + 20 + l4_len;
}

/* Write the checksum at 'at' of b[0..n) onto sum. */
static void
cksum_set(uint8_t *b, uint32_t n, uint32_t at, uint32_t sum)
{
	unit_put16(b + at, 0);
	unit_put16(b + at, (uint16_t)~rfc1071_fold(rfc1071_sum(b, n, sum)));
}

/* An ICMP echo request (type 8) or ICMPv6 (128) with "fou-test". */
static uint32_t
echo(uint8_t *l4, uint8_t type)
{
	memset(l4, 0, 8);
	l4[0] = type;
	unit_put16(l4 + 4, 0x0b0b);
	unit_put16(l4 + 6, 1);
	memcpy(l4 + 8, "fou-test", 8);
	if (type == 8)
		cksum_set(l4, 16, 2, 0);
	return 16;
}

static void
case_ip4(const char *name, uint16_t port, uint32_t src, uint32_t dst, uint8_t proto,
	 const uint8_t *l4, uint32_t l4_len, unsigned int verdict, uint16_t out_port)
{
	uint8_t b[UNIT_PKT_MAX];

	case_add(name, port, b, ip4_frame(b, port, src, dst, proto, l4, l4_len), verdict,
		 out_port);
}

/* An IPv6 packet from fd00::2 to dst on port 0: nh with l4, whose
 * checksum at cksum_at (or none, -1) is made over the pseudo header. */
static void
case_ip6(const char *name, const char *dst, uint8_t nh, uint8_t *l4, uint32_t l4_len,
	 int cksum_at, unsigned int verdict, uint16_t out_port)
{
	uint8_t b[UNIT_PKT_MAX], *ip = b + eth(b, &mac_rx, RTE_ETHER_TYPE_IPV6);

	unit_put32(ip, 6u << 28);
	unit_put16(ip + 4, (uint16_t)l4_len);
	ip[6] = nh;
	ip[7] = 64;
	ip6(ip + 8, "fd00::2");
	ip6(ip + 24, dst);
	if (cksum_at >= 0)
		cksum_set(l4, l4_len, (uint32_t)cksum_at,
			  rfc1071_sum(ip + 8, 32, 0) + nh + l4_len);
	memcpy(ip + 40, l4, l4_len);
	case_add(name, RX_PORT, b, RTE_ETHER_HDR_LEN + 40 + l4_len, verdict, out_port);
}

/*
 * ICMP fragmentation needed from router to local about an outer packet
 * the FOU ipip tunnel from local to remote sent (encap-sport auto: any
 * source port of the range): the quote is its IPv4 and UDP headers and
 * the start of the inner header, all fou_pmtu4_input() reads of it.
 */
static void
case_pmtu(const char *name, uint16_t port, uint32_t router, uint32_t local, uint32_t remote,
	  uint16_t mtu)
{
	uint8_t l4[8 + 20 + 8 + 20], *q = l4 + 8;

	memset(l4, 0, sizeof(l4));
	l4[0] = 3;
	l4[1] = 4;
	unit_put16(l4 + 6, mtu);
	q[0] = 0x45;
	unit_put16(q + 2, 1400);
	unit_put16(q + 6, 0x4000);
	q[8] = 64;
	q[9] = IPPROTO_UDP;
	unit_put32(q + 12, local);
	unit_put32(q + 16, remote);
	unit_ip4_cksum_fix(q);
	unit_put16(q + 20, 40000);
	unit_put16(q + 22, PORT_IPIP);
	unit_put16(q + 24, 1380);
	q[28] = 0x45;			/* the inner IPv4 header begins */
	cksum_set(l4, sizeof(l4), 2, 0);
	case_ip4(name, port, router, local, IPPROTO_ICMP, l4, sizeof(l4), V_CONSUMED, 0);
}

/* An ARP request from the peer for tip, broadcast. */
static void
case_arp(const char *name, uint32_t tip, unsigned int verdict, uint16_t out_port)
{
	static const struct rte_ether_addr bcast = { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
	uint8_t b[60];

	memset(b, 0, sizeof(b));
	eth(b, &bcast, RTE_ETHER_TYPE_ARP);
	unit_put16(b + 14, 1);
	unit_put16(b + 16, RTE_ETHER_TYPE_IPV4);
	b[18] = 6;
	b[19] = 4;
	unit_put16(b + 20, 1);
	memcpy(b + 22, mac_peer.addr_bytes, 6);
	unit_put32(b + 28, PEER);
	unit_put32(b + 38, tip);
	case_add(name, RX_PORT, b, sizeof(b), verdict, out_port);
}

/* A frame of golden.h's receive and transmit tables, by name: its input on
 * RX_PORT. */
static void
case_frame(const char *name, unsigned int verdict, uint16_t out_port)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(golden_tx); i++)
		if (strcmp(golden_tx[i].name, name) == 0) {
			case_add(name, RX_PORT, golden_tx[i].in, golden_tx[i].in_len, verdict,
				 out_port);
			return;
		}
	for (i = 0; i < RTE_DIM(golden_rx_drop); i++)
		if (strcmp(golden_rx_drop[i].name, name) == 0) {
			case_add(name, RX_PORT, golden_rx_drop[i].in, golden_rx_drop[i].in_len,
				 verdict, out_port);
			return;
		}
	for (i = 0; i < RTE_DIM(golden_linux_tx); i++)
		if (strcmp(golden_linux_tx[i].name, name) == 0) {
			case_add(name, RX_PORT, golden_linux_tx[i].in, golden_linux_tx[i].in_len,
				 verdict, out_port);
			return;
		}
	fail_msg("no frame %s in golden.h", name);
}

/* Insert a tag (tpid, vid) after the MAC addresses of c. */
static void
tag_push(struct bcase *c, uint16_t tpid, uint16_t vid)
{
	memmove(c->b + 16, c->b + 12, c->len - 12);
	unit_put16(c->b + 12, tpid);
	unit_put16(c->b + 14, vid);
	c->len += 4;
}

/*
 * A FOU frame of s cut to len bytes, its IPv4 total length and UDP length
 * telling the truth about the cut (so that the header that is cut is the
 * one found short), checksums fixed.
 */
static void
case_cut(const char *name, const struct unit_spec *s, uint32_t len, unsigned int verdict)
{
	struct unit_pkt p;

	unit_build(s, &p);
	p.len = len;
	unit_put16(p.b + p.l3 + 2, (uint16_t)(len - p.l3));
	unit_put16(p.b + p.l4 + 4, (uint16_t)(len - p.l4));
	unit_fix_outer(&p);
	case_add(name, RX_PORT, p.b, p.len, verdict, 0);
}

/* A built frame, then mod(p), then the outer checksums fixed (or not). */
static void
case_mod(const char *name, const struct unit_spec *s, void (*mod)(struct unit_pkt *p),
	 bool fix, unsigned int verdict)
{
	struct unit_pkt p;

	unit_build(s, &p);
	mod(&p);
	if (fix)
		unit_fix_outer(&p);
	case_add(name, RX_PORT, p.b, p.len, verdict, 0);
}

static void mod_ihl4(struct unit_pkt *p) { p->b[p->l3] = 0x44; }
static void mod_ihl0(struct unit_pkt *p) { p->b[p->l3] = 0x40; }
static void mod_ver6(struct unit_pkt *p) { p->b[p->l3] = 0x65; }
static void mod_ip_cksum(struct unit_pkt *p) { p->b[p->l3 + 10] ^= 0x5a; }
static void mod_udp_len(struct unit_pkt *p) { unit_put16(p->b + p->l4 + 4, 7); }
static void mod_udp_cksum(struct unit_pkt *p) { p->b[p->l4 + 6] ^= 0x01; }
static void mod_gre_ver(struct unit_pkt *p) { p->b[p->gre + 1] |= 1; }
static void mod_gre_proto(struct unit_pkt *p) { unit_put16(p->b + p->gre + 2, 0x6558); }
static void mod_inner_cksum(struct unit_pkt *p) { p->b[p->inner + 10] ^= 0x11; }
static void mod_inner_ver(struct unit_pkt *p) { p->b[p->inner] = 0x65; }
static void mod_other_host(struct unit_pkt *p) { p->b[5] = 0x99; }
static void mod_lldp(struct unit_pkt *p) { unit_put16(p->b + 12, 0x88cc); }

/* The cases. Their verdicts are what each packet alone must come to in
 * the first round (the set in this order, port 0 first). */
static void
cases_build(void)
{
	struct unit_spec s;
	struct bcase *c;
	uint8_t l4[64];
	unsigned int i;

	nb_cases = 0;

	/* --- decapsulation, the golden frames (unit_cases[]) --- */
	case_golden("g_ipip", g_ipip, sizeof(g_ipip), V_FWD, g_out4, sizeof(g_out4));
	case_golden("g_ipip_csum", g_ipip_csum, sizeof(g_ipip_csum), V_FWD, g_out4,
		    sizeof(g_out4));
	case_golden("g_sit", g_sit, sizeof(g_sit), V_FWD, g_out6, sizeof(g_out6));
	case_golden("g_gre4_none (r_gre)", g_gre4_none, sizeof(g_gre4_none), V_FWD, g_out4,
		    sizeof(g_out4));
	case_golden("g_gre4_k (r_grek)", g_gre4_k, sizeof(g_gre4_k), V_FWD, g_out4,
		    sizeof(g_out4));
	case_golden("g_gre4_s (r_gre)", g_gre4_s, sizeof(g_gre4_s), V_FWD, g_out4, sizeof(g_out4));
	case_golden("g_gre4_ks (r_grek)", g_gre4_ks, sizeof(g_gre4_ks), V_FWD, g_out4,
		    sizeof(g_out4));
	/* a checksum the matched tunnel was not configured with */
	case_golden("g_gre4_c", g_gre4_c, sizeof(g_gre4_c), FOU_DROP_GRE_CSUM_MISMATCH, NULL, 0);
	case_golden("g_gre4_ck", g_gre4_ck, sizeof(g_gre4_ck), FOU_DROP_GRE_CSUM_MISMATCH, NULL,
		    0);
	case_golden("g_gre4_cs", g_gre4_cs, sizeof(g_gre4_cs), FOU_DROP_GRE_CSUM_MISMATCH, NULL,
		    0);
	case_golden("g_gre4_cks", g_gre4_cks, sizeof(g_gre4_cks), FOU_DROP_GRE_CSUM_MISMATCH,
		    NULL, 0);
	case_golden("g_gre6", g_gre6, sizeof(g_gre6), FOU_DROP_GRE_CSUM_MISMATCH, NULL, 0);
	case_golden("g_other (port 6000)", g_other, sizeof(g_other), FOU_DROP_FOU_PROTO_UNHANDLED,
		    NULL, 0);
	case_golden("g_vlan", g_vlan, sizeof(g_vlan), V_FWD, g_out4, sizeof(g_out4));
	case_golden("g_ipopt", g_ipopt, sizeof(g_ipopt), V_FWD, g_out4, sizeof(g_out4));
	/* the same flow again, and again after other packets */
	case_golden("g_ipip, same flow", g_ipip, sizeof(g_ipip), V_FWD, g_out4, sizeof(g_out4));
	case_golden("g_sit, same flow", g_sit, sizeof(g_sit), V_FWD, g_out6, sizeof(g_out6));

	/* --- GRE keys and checksums --- */
	unit_spec_gre4(&s, C | K);
	s.gre_key = 7;
	case_spec("gre4 key 7 csum (r_grekc)", &s, V_FWD, EG_PORT);
	unit_spec_gre4(&s, K);
	s.gre_key = 7;
	case_spec("gre4 key 7 without csum", &s, FOU_DROP_GRE_CSUM_MISMATCH, 0);
	unit_spec_gre4(&s, K | S);
	s.gre_key = 0x01020305;
	case_spec("gre4 wrong key", &s, FOU_DROP_NO_TUNNEL, 0);
	unit_spec_gre6(&s, K);
	case_spec("gre6 key (r_grek)", &s, V_FWD, EG_PORT);
	unit_spec_gre6(&s, C | K | S);
	s.gre_key = 7;
	case_spec("gre6 key 7 csum seq (r_grekc)", &s, V_FWD, EG_PORT);

	/* --- unknown remotes --- */
	unit_spec_ipip(&s);
	s.src = OTHER;
	case_spec("ipip from an unknown remote", &s, FOU_DROP_NO_TUNNEL, 0);
	unit_spec_sit(&s);
	s.src = OTHER;
	case_spec("sit from an unknown remote", &s, FOU_DROP_NO_TUNNEL, 0);
	unit_spec_gre4(&s, 0);
	s.src = OTHER;
	case_spec("gre from an unknown remote", &s, FOU_DROP_NO_TUNNEL, 0);

	/* --- plain (encap none) tunnels, and crossed encapsulations --- */
	unit_spec_ipip(&s);
	case_plain_tunnel("plain ipip (p_ipip)", &s, PLAIN_PEER, V_FWD);
	unit_spec_sit(&s);
	case_plain_tunnel("plain sit (p_sit)", &s, PLAIN_PEER, V_FWD);
	unit_spec_gre4(&s, K);
	s.gre_key = 42;
	case_plain_tunnel("plain gre4 key 42 (p_gre)", &s, PLAIN_PEER, V_FWD);
	unit_spec_gre6(&s, K | S);
	s.gre_key = 42;
	case_plain_tunnel("plain gre6 key 42 (p_gre)", &s, PLAIN_PEER, V_FWD);
	unit_spec_gre4(&s, K);
	s.gre_key = 43;
	case_plain_tunnel("plain gre wrong key", &s, PLAIN_PEER, FOU_DROP_NO_TUNNEL);
	unit_spec_ipip(&s);
	case_plain_tunnel("plain ipip from the FOU peer (r_ipip)", &s, PEER, V_FWD);
	unit_spec_ipip(&s);
	s.src = PLAIN_PEER;
	case_spec("FOU ipip from the plain peer (p_ipip)", &s, V_FWD, EG_PORT);
	unit_spec_ipip(&s);
	case_plain_tunnel("plain ipip from an unknown remote", &s, OTHER, FOU_DROP_NO_TUNNEL);

	/* --- decapsulated, then: into a tunnel, held, errors back --- */
	unit_spec_ipip(&s);
	s.in_dst4 = IP4(10, 51, 0, 7);
	case_spec("ipip, inner into t_gre", &s, V_FWD, EG_PORT);
	unit_spec_sit(&s);
	ip6(s.in_dst6, "fd00:50::7");
	case_spec("sit, inner into t_sit", &s, V_FWD, EG_PORT);
	unit_spec_gre4(&s, K);
	s.in_dst4 = IP4(10, 30, 0, 9);
	case_spec("gre, inner back into r_ipip", &s, V_FWD, RX_PORT);
	unit_spec_ipip(&s);
	s.in_dst4 = IP4(10, 21, 0, 5);
	case_spec("ipip, inner held for 192.168.1.3", &s, V_HELD, EG_PORT);
	unit_spec_sit(&s);
	ip6(s.in_dst6, "fd00:21::5");
	case_spec("sit, inner held for fd00:1::3", &s, V_HELD, EG_PORT);
	unit_spec_ipip(&s);
	s.in_ttl = 1;
	case_spec("ipip, inner TTL 1: error back through r_ipip", &s, V_FWD, RX_PORT);
	unit_spec_sit(&s);
	s.in_ttl = 1;
	case_spec("sit, inner hop limit 1: error back through r_sit", &s, V_FWD, RX_PORT);
	unit_spec_ipip(&s);
	s.in_dst4 = IP4(10, 99, 0, 1);
	case_spec("ipip, inner unroutable: error back", &s, V_FWD, RX_PORT);
	unit_spec_ipip(&s);
	s.in_dst4 = ME1;
	/* port unreachable, back into r_ipip */
	case_spec("ipip, inner UDP to 192.168.1.1:7", &s, V_FWD, RX_PORT);
	{
		uint8_t in[64];
		uint32_t n;

		/* an inner ping of 10.0.0.1: the reply goes back into r_ipip */
		n = ip4_frame(in, RX_PORT, IP4(10, 30, 0, 5), ME0, IPPROTO_ICMP, l4,
			      echo(l4, 8)) - RTE_ETHER_HDR_LEN;
		unit_spec_ipip(&s);
		s.inner = UNIT_IN_RAW;
		s.raw = in + RTE_ETHER_HDR_LEN;
		s.raw_len = (uint16_t)n;
		case_spec("ipip, inner ping of 10.0.0.1", &s, V_FWD, RX_PORT);
	}
	unit_spec_ipip(&s);
	s.tos = FOU_ECN_CE;
	case_spec("ipip, outer CE over not-ECT", &s, FOU_DROP_ECN_DROP, 0);

	/* --- routed as they are --- */
	spec4(&s, PEER, IP4(10, 20, 0, 7), 8);
	case_plain("v4 to 10.20.0.7", RX_PORT, &s, V_FWD, EG_PORT);
	case_plain("v4 to 10.20.0.7, same flow", RX_PORT, &s, V_FWD, EG_PORT);
	spec6(&s, "fd00::2", "fd00:20::7", 8);
	case_plain("v6 to fd00:20::7", RX_PORT, &s, V_FWD, EG_PORT);
	spec4(&s, PEER, IP4(192, 168, 1, 7), 8);
	case_plain("v4 to an on-link neighbour", RX_PORT, &s, V_FWD, EG_PORT);
	spec6(&s, "fd00::2", "fd00:20:5::9", 8);
	case_plain("v6 to fd00:20:5::9", RX_PORT, &s, V_FWD, EG_PORT);
	spec4(&s, PEER, IP4(10, 21, 0, 5), 8);
	case_plain("v4 held for 192.168.1.3", RX_PORT, &s, V_HELD, EG_PORT);
	spec6(&s, "fd00::2", "fd00:21::5", 8);
	case_plain("v6 held for fd00:1::3", RX_PORT, &s, V_HELD, EG_PORT);
	spec6(&s, "fd00::2", "fd00:1::8", 8);
	case_plain("v6 held for on-link fd00:1::8", RX_PORT, &s, V_HELD, EG_PORT);
	spec4(&s, PEER, IP4(10, 20, 0, 7), 8);
	s.in_ttl = 1;
	case_plain("v4 TTL 1: time exceeded", RX_PORT, &s, V_FWD, RX_PORT);
	spec6(&s, "fd00::2", "fd00:20::7", 8);
	s.in_ttl = 1;
	case_plain("v6 hop limit 1: time exceeded", RX_PORT, &s, V_FWD, RX_PORT);
	spec4(&s, PEER, IP4(10, 99, 0, 1), 8);
	case_plain("v4 unroutable: net unreachable", RX_PORT, &s, V_FWD, RX_PORT);
	spec6(&s, "fd00::2", "fd00:99::1", 8);
	case_plain("v6 unroutable: no route", RX_PORT, &s, V_FWD, RX_PORT);
	spec4(&s, PEER, IP4(10, 20, 0, 7), 1472);
	case_plain("v4 of the port's MTU", RX_PORT, &s, V_FWD, EG_PORT);
	spec4(&s, PEER, IP4(10, 50, 0, 7), 1472);
	case_plain("v4 DF over t_ipip's MTU: frag needed", RX_PORT, &s, V_FWD, RX_PORT);
	spec6(&s, "fd00::2", "fd00:50::7", 1452);
	case_plain("v6 over t_sit's MTU: too big", RX_PORT, &s, V_FWD, RX_PORT);
	spec6(&s, "fd00::2", "fe80::99", 8);
	case_plain("v6 to a link-local address not ours", RX_PORT, &s, FOU_DROP_OUTER_MARTIAN, 0);
	spec4(&s, PEER, IP4(10, 20, 0, 7), 8);
	c = case_plain("v4 in a broadcast frame", RX_PORT, &s, FOU_DROP_BCAST_MCAST, 0);
	memset(c->b, 0xff, 6);
	unit_spec_ipip(&s);
	case_mod("ipip to another host's MAC", &s, mod_other_host, false, FOU_DROP_ETH_OTHER_HOST);
	case_mod("LLDP", &s, mod_lldp, false, FOU_DROP_NOT_IP);

	/* --- into each tunnel --- */
	spec4(&s, PEER, IP4(10, 50, 0, 7), 8);
	case_plain("v4 into t_ipip", RX_PORT, &s, V_FWD, EG_PORT);
	spec6(&s, "fd00::2", "fd00:50::7", 8);
	case_plain("v6 into t_sit", RX_PORT, &s, V_FWD, EG_PORT);
	spec4(&s, PEER, IP4(10, 51, 0, 7), 8);
	case_plain("v4 into t_gre (key, csum, seq)", RX_PORT, &s, V_FWD, EG_PORT);
	case_plain("v4 into t_gre, same flow", RX_PORT, &s, V_FWD, EG_PORT);
	spec6(&s, "fd00::2", "fd00:51::7", 8);
	case_plain("v6 into t_gre", RX_PORT, &s, V_FWD, EG_PORT);
	spec4(&s, PEER, IP4(10, 52, 0, 7), 8);
	case_plain("v4 into t_gre0 (no key, seq)", RX_PORT, &s, V_FWD, EG_PORT);
	spec4(&s, PEER, IP4(10, 53, 0, 7), 8);
	case_plain("v4 into t_plain (ipip, encap none)", RX_PORT, &s, V_FWD, EG_PORT);
	spec6(&s, "fd00::2", "fd00:53::7", 8);
	case_plain("v6 into t_pgre (gre, encap none)", RX_PORT, &s, V_FWD, EG_PORT);
	spec4(&s, PEER, IP4(10, 54, 0, 7), 8);
	case_plain("v4 into t_held, remote without neighbour", RX_PORT, &s, V_HELD, EG_PORT);
	spec4(&s, PEER, IP4(10, 55, 0, 7), 8);
	case_plain("v4 into t_noroute", RX_PORT, &s, FOU_DROP_NO_ROUTE, 0);
	spec4(&s, PEER, IP4(10, 56, 0, 7), 8);
	case_plain("v4 into t_loop", RX_PORT, &s, FOU_DROP_TUNNEL_LOOP, 0);
	/* flows of ECMP groups, plain and decapsulated: members by hash */
	for (i = 0; i < 6; i++) {
		spec4(&s, PEER + i, IP4(10, 59, 0, 7), 8);
		case_plain("v4 into the 10.59/16 group", RX_PORT, &s, V_FWD, EG_PORT);
		case_spec("ipip into the 10.59/16 group", &s, V_FWD, EG_PORT);
		spec6(&s, "fd00::2", "fd00:59::7", 8);
		s.in_src6[15] = (uint8_t)(0x20 + i);
		case_plain("v6 into the fd00:59::/32 group", RX_PORT, &s, V_FWD, EG_PORT);
	}
	/* back out of port 0 through r_ipip; 1300 bytes: more than r_ipip's
	 * path MTU once the error at the end of the set has lowered it */
	spec4(&s, PEER, IP4(10, 30, 0, 5), 1272);
	case_plain("v4 of 1300 into r_ipip", RX_PORT, &s, V_FWD, RX_PORT);
	spec6(&s, "fd00::2", "fd00:30::5", 8);
	case_plain("v6 into r_sit", RX_PORT, &s, V_FWD, RX_PORT);

	/* --- over an IPv6 underlay, from fd00::2 to fd00::1: r6_tnl (mode
	 * ipip6) and r6_gre (key 42, csum) match, or not, or refuse the
	 * mode; decapsulated to 10.20.0.7 out of port 1 --- */
	case_frame("fou6_ipip", V_FWD, EG_PORT);
	case_frame("fou6_ipip_nocsum", V_FWD, EG_PORT);
	case_frame("fou6_ipip_encaplimit", V_FWD, EG_PORT);
	case_frame("tun6_ipip6_fou", V_FWD, EG_PORT);
	case_frame("fou6_ipip_rthdr0", V_FWD, EG_PORT);
	case_frame("tun6_any_gue_ipip", V_FWD, EG_PORT);
	case_frame("tun6_ip6gre_fou_kc", V_FWD, EG_PORT);
	case_frame("tun6_plain_ipip6", V_FWD, EG_PORT);
	case_frame("fou6_sit_encaplimit", FOU_DROP_TUNNEL_MODE_MISMATCH, 0);
	case_frame("tun6_ip6ip6_gue", FOU_DROP_TUNNEL_MODE_MISMATCH, 0);
	case_frame("tun6_ipip6_got_ipv6", FOU_DROP_TUNNEL_MODE_MISMATCH, 0);
	case_frame("tun6_plain_ip6ip6_encaplimit", FOU_DROP_TUNNEL_MODE_MISMATCH, 0);
	case_frame("fou6_gre_encaplimit", FOU_DROP_NO_TUNNEL, 0);
	case_frame("tun6_wrong_src", FOU_DROP_NO_TUNNEL, 0);
	case_frame("tun6_plain_wrong_src", FOU_DROP_NO_TUNNEL, 0);
	case_frame("tun6_plain_ip6gre", FOU_DROP_NO_TUNNEL, 0);
	case_frame("tun6_ip6gre_other_key", FOU_DROP_NO_TUNNEL, 0);
	case_frame("tun6_ip6gre_no_csum", FOU_DROP_GRE_CSUM_MISMATCH, 0);
	case_frame("fou6_ipip", V_FWD, EG_PORT);
	case_frame("tun6_wrong_src", FOU_DROP_NO_TUNNEL, 0);
	/* into tunnels over IPv6, their remotes routed through fd00:1::2 */
	spec4(&s, PEER, IP4(10, 57, 0, 7), 8);
	case_plain("v4 into t6_fou (ip6tnl, fou)", RX_PORT, &s, V_FWD, EG_PORT);
	spec6(&s, "fd00::2", "fd00:57::7", 8);
	case_plain("v6 into t6_fou (ip6tnl, fou)", RX_PORT, &s, V_FWD, EG_PORT);
	spec4(&s, PEER, IP4(10, 58, 0, 7), 8);
	case_plain("v4 into t6_gre (ip6gre, encap none)", RX_PORT, &s, V_FWD, EG_PORT);
	spec6(&s, "fd00::2", "fd00:58::7", 8);
	case_plain("v6 into t6_held, remote without neighbour", RX_PORT, &s, V_HELD, EG_PORT);
	unit_spec_ipip(&s);
	s.in_dst4 = IP4(10, 57, 0, 9);
	case_spec("ipip, inner into t6_fou", &s, V_FWD, EG_PORT);
	unit_spec_sit(&s);
	ip6(s.in_dst6, "fd00:57::9");
	case_spec("sit, inner into t6_fou", &s, V_FWD, EG_PORT);

	/* --- to our own addresses, not tunnels --- */
	case_ip4("ping 10.0.0.1", RX_PORT, PEER, ME0, IPPROTO_ICMP, l4, echo(l4, 8), V_FWD,
		 RX_PORT);
	case_ip4("ping 192.168.1.1 (port 1's)", RX_PORT, PEER, ME1, IPPROTO_ICMP, l4, echo(l4, 8),
		 V_FWD, RX_PORT);
	case_ip6("ping fd00::1", "fd00::1", IPPROTO_ICMPV6, l4, echo(l4, 128), 2, V_FWD, RX_PORT);
	memset(l4, 0, 16);
	unit_put16(l4, 40000);
	unit_put16(l4 + 2, 7777);
	unit_put16(l4 + 4, 16);
	case_ip4("UDP to 10.0.0.1:7777", RX_PORT, PEER, ME0, IPPROTO_UDP, l4, 16, V_FWD, RX_PORT);
	case_ip6("UDP to [fd00::1]:7777", "fd00::1", IPPROTO_UDP, l4, 16, 6, V_FWD, RX_PORT);
	unit_put16(l4 + 6, 0);	/* the IPv6 case wrote its checksum there */
	case_ip4("UDP to 10.0.0.255", RX_PORT, PEER, IP4(10, 0, 0, 255), IPPROTO_UDP, l4, 16,
		 FOU_DROP_BCAST_MCAST, 0);
	memset(l4, 0, 20);
	unit_put16(l4, 40000);
	unit_put16(l4 + 2, 22);
	l4[12] = 0x50;
	l4[13] = 0x02;
	case_ip4("TCP to 10.0.0.1", RX_PORT, PEER, ME0, IPPROTO_TCP, l4, 20, FOU_DROP_LOCAL_NOT_UDP,
		 0);
	case_arp("ARP request for 10.0.0.1", ME0, V_FWD, RX_PORT);
	/* a unicast NS for fd00::1 with the sender's link-layer address:
	 * the NA is cut from it (it needs no tailroom) */
	memset(l4, 0, 32);
	l4[0] = 135;
	ip6(l4 + 8, "fd00::1");
	l4[24] = 1;
	l4[25] = 1;
	memcpy(l4 + 26, mac_peer.addr_bytes, 6);
	case_ip6("NS for fd00::1", "fd00::1", IPPROTO_ICMPV6, l4, 32, 2, V_FWD, RX_PORT);
	cases[nb_cases - 1].b[RTE_ETHER_HDR_LEN + 7] = 255;	/* not in the checksum */
	case_arp("ARP request for another host", IP4(10, 0, 0, 9), FOU_DROP_ARP_NOT_OURS, 0);

	/* --- tags --- */
	c = case_add("ipip, 802.1ad + 802.1Q", RX_PORT, g_ipip, sizeof(g_ipip), V_FWD, EG_PORT);
	tag_push(c, RTE_ETHER_TYPE_VLAN, 100);
	tag_push(c, RTE_ETHER_TYPE_QINQ, 200);
	c->golden = g_out4;
	c->golden_len = sizeof(g_out4);
	c = case_add("ipip, 802.1Q + 802.1Q", RX_PORT, g_ipip, sizeof(g_ipip), V_FWD, EG_PORT);
	tag_push(c, RTE_ETHER_TYPE_VLAN, 100);
	tag_push(c, RTE_ETHER_TYPE_VLAN, 200);
	c->golden = g_out4;
	c->golden_len = sizeof(g_out4);
	c = case_add("ipip, three tags", RX_PORT, g_ipip, sizeof(g_ipip), FOU_DROP_NOT_IP, 0);
	tag_push(c, RTE_ETHER_TYPE_VLAN, 1);
	tag_push(c, RTE_ETHER_TYPE_VLAN, 2);
	tag_push(c, RTE_ETHER_TYPE_VLAN, 3);
	spec6(&s, "fd00::2", "fd00:20::7", 8);
	case_plain("v6 to fd00:20::7, 802.1Q", RX_PORT, &s, V_FWD, EG_PORT);
	tag_push(&cases[nb_cases - 1], RTE_ETHER_TYPE_VLAN, 7);
	case_add("802.1Q cut after the tag", RX_PORT, g_vlan, 18, FOU_DROP_IP_TRUNCATED, 0);

	/* --- truncated and malformed --- */
	case_add("empty frame", RX_PORT, g_ipip, 0, FOU_DROP_ETH_TRUNCATED, 0);
	case_add("10 bytes", RX_PORT, g_ipip, 10, FOU_DROP_ETH_TRUNCATED, 0);
	case_add("ipip cut in the IPv4 header", RX_PORT, g_ipip, 30, FOU_DROP_IP_TRUNCATED, 0);
	case_add("ipip cut, lengths not", RX_PORT, g_ipip, 60, FOU_DROP_IP_LEN_BAD, 0);
	spec6(&s, "fd00::2", "fd00:20::7", 8);
	c = case_plain("v6 cut in the IPv6 header", RX_PORT, &s, FOU_DROP_IP_TRUNCATED, 0);
	c->len = RTE_ETHER_HDR_LEN + 30;
	c = case_plain("v6 payload length past the frame", RX_PORT, &s, FOU_DROP_IP_LEN_BAD, 0);
	c->len--;
	unit_spec_ipip(&s);
	case_cut("ipip cut in the UDP header", &s, 38, FOU_DROP_UDP_TRUNCATED);
	case_cut("ipip cut in the inner header (58)", &s, 58, FOU_DROP_INNER_TRUNCATED);
	case_cut("ipip, inner header only (62)", &s, 62, FOU_DROP_INNER_LEN_BAD);
	unit_spec_gre4(&s, C | K | S);
	case_cut("gre cut in its key", &s, 52, FOU_DROP_GRE_TRUNCATED);
	unit_spec_gre4(&s, K | S);
	s.opt_words = 10;
	case_cut("gre, IHL 15, cut in its key", &s, 14 + 60 + 8 + 6, FOU_DROP_GRE_TRUNCATED);
	unit_spec_ipip(&s);
	s.opt_words = 10;
	case_cut("ipip, IHL 15, cut in UDP", &s, 14 + 60 + 4, FOU_DROP_UDP_TRUNCATED);
	unit_spec_ipip(&s);
	case_mod("ipip, IHL 4", &s, mod_ihl4, true, FOU_DROP_IP_HDR_BAD);
	case_mod("ipip, IHL 0", &s, mod_ihl0, false, FOU_DROP_IP_HDR_BAD);
	case_mod("version 6 in an IPv4 frame", &s, mod_ver6, false, FOU_DROP_IP_HDR_BAD);
	case_mod("ipip, IPv4 checksum bad", &s, mod_ip_cksum, false, FOU_DROP_IP_CKSUM_BAD);
	case_mod("ipip, UDP length 7", &s, mod_udp_len, false, FOU_DROP_UDP_LEN_BAD);
	case_mod("ipip, inner checksum bad", &s, mod_inner_cksum, false, FOU_DROP_INNER_CKSUM_BAD);
	case_mod("ipip carrying IPv6", &s, mod_inner_ver, false, FOU_DROP_INNER_HDR_BAD);
	unit_spec_ipip(&s);
	s.udp_csum = true;
	case_mod("ipip, UDP checksum bad", &s, mod_udp_cksum, false, FOU_DROP_UDP_CKSUM_BAD);
	unit_spec_gre4(&s, K);
	case_mod("gre version 1", &s, mod_gre_ver, false, FOU_DROP_GRE_VERSION);
	case_mod("gre carrying 0x6558", &s, mod_gre_proto, false, FOU_DROP_GRE_PROTO_UNKNOWN);

	/*
	 * Segmented mbufs: the headers must be in the first segment (else
	 * hdr_split), and the first pass reads only that segment, of which
	 * a short one leaves it nothing to read or a GRE key beyond it.
	 */
	c = case_add("g_gre4_ks in 3 segments", RX_PORT, g_gre4_ks, sizeof(g_gre4_ks), V_FWD,
		     EG_PORT);
	c->seg[0] = 74;		/* Ethernet to the inner IPv4 header */
	c->seg[1] = 4;
	c->nb_segs = 3;
	c->golden = g_out4;
	c->golden_len = sizeof(g_out4);
	c = case_add("g_sit, first segment 20 bytes", RX_PORT, g_sit, sizeof(g_sit),
		     FOU_DROP_HDR_SPLIT, 0);
	c->seg[0] = 20;
	c->nb_segs = 2;
	unit_spec_gre4(&s, K);
	s.opt_words = 2;
	case_spec("gre, IHL 7, first segment ends before the key", &s, FOU_DROP_HDR_SPLIT, 0);
	cases[nb_cases - 1].seg[0] = 56;
	cases[nb_cases - 1].nb_segs = 2;

	/* last on port 0: lowers r_ipip's path MTU to 1200 from the next
	 * packet on (in the later rounds, wherever it falls) */
	case_pmtu("frag needed about r_ipip", RX_PORT, PEER, ME0, PEER, 1200);

	/* --- received on port 1 --- */
	case_pmtu("frag needed about t_ipip", EG_PORT, IP4(192, 168, 1, 2), ME1, REMOTE, 1400);
	/* from t_ipip's remote: decapsulated, its inner sent back into r_ipip */
	unit_spec_ipip(&s);
	s.eth_dst = mac_eg;
	s.src = REMOTE;
	s.dst = ME1;
	s.in_src4 = IP4(10, 50, 0, 7);
	s.in_dst4 = IP4(10, 30, 0, 5);
	case_spec("ipip from t_ipip's remote, into r_ipip", &s, V_FWD, RX_PORT);
	cases[nb_cases - 1].port = EG_PORT;
	unit_spec_gre6(&s, C | K | S);
	s.eth_dst = mac_eg;
	s.src = REMOTE;
	s.dst = ME1;
	s.gre_key = 5;
	ip6(s.in_src6, "fd00:51::7");
	ip6(s.in_dst6, "fd00:30::5");
	case_spec("gre6 from t_gre's remote, into r_sit", &s, V_FWD, RX_PORT);
	cases[nb_cases - 1].port = EG_PORT;
	spec4(&s, IP4(10, 20, 0, 7), PEER, 8);
	case_plain("v4 from port 1 to the peer", EG_PORT, &s, V_FWD, RX_PORT);
	spec6(&s, "fd00:20::7", "fd00::2", 8);
	case_plain("v6 from port 1 to the peer", EG_PORT, &s, V_FWD, RX_PORT);
	spec4(&s, IP4(10, 20, 0, 7), IP4(10, 50, 0, 8), 1372);
	case_plain("v4 of 1400 from port 1 into t_ipip", EG_PORT, &s, V_FWD, EG_PORT);
	case_ip4("ping 192.168.1.1 from port 1", EG_PORT, IP4(192, 168, 1, 2), ME1, IPPROTO_ICMP,
		 l4, echo(l4, 8), V_FWD, EG_PORT);
	c = case_add("port 1: cut in the IPv4 header", EG_PORT, g_ipip, 30, FOU_DROP_IP_TRUNCATED,
		     0);
	memcpy(c->b, mac_eg.addr_bytes, 6);
}

/* --- the two gateways -------------------------------------------------------- */

/* The fate of one packet. */
enum { R_GONE, R_SENT, R_HELD };

struct res {
	uint8_t kind;
	struct unit_frame f;		/* R_SENT: what left; R_HELD: what waits */
	struct fou_neigh_key neigh;	/* R_HELD: for which neighbour */
	unsigned int verdict;		/* alone (gateway B): UNIT_FWD, UNIT_HELD, ... */
	bool mapped;
};

struct side {
	const char *name;
	struct fou_gw *gw;
	struct unit_lcore u;
	struct unit_ev ev[4 * MAX_CASES];
	unsigned int nb_ev;		/* the events since the last comparison */
};

static struct side sa = { .name = "burst" }, sb = { .name = "alone" };
static struct res ra[FOU_BURST], rb[FOU_BURST];
static uint64_t now;			/* the TSC of every call */

/*
 * Each frame's first segment (all the first pass reads, and all the
 * header checks read) ends on the last byte before a page the process
 * may not touch: the mbuf takes an external buffer there
 * (rte_pktmbuf_attach_extbuf). A read past what the frame has faults,
 * where in a pool's mbuf it would read the next bytes of the data room
 * unseen: AddressSanitizer cannot tell them apart, the mempool being one
 * allocation. The frame starts on an even address, as every PMD's do (an
 * Ethernet header is 2-byte aligned): one of odd length ends a byte short
 * of the page. The headroom before the frame is the rest of the page.
 */
#define GUARD_DATA 4096u		/* the buffer before each guard page */
#define GUARD_SLOTS FOU_BURST

static uint8_t *guard_mem;
static size_t guard_len, guard_pg;
static struct rte_mbuf_ext_shared_info guard_sh[GUARD_SLOTS];
static unsigned int guard_out;		/* attached and not given back */
static bool guard_busy[GUARD_SLOTS];

static void
guard_free(void *addr, void *opaque)
{
	(void)opaque;
	guard_busy[((uint8_t *)addr - guard_mem) / (GUARD_DATA + guard_pg)] = false;
	guard_out--;
}

static void
guard_init(void)
{
	unsigned int i;

	guard_pg = (size_t)sysconf(_SC_PAGESIZE);
	assert_true(GUARD_DATA % guard_pg == 0);
	guard_len = GUARD_SLOTS * (GUARD_DATA + guard_pg);
	guard_mem = mmap(NULL, guard_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	assert_true(guard_mem != MAP_FAILED);
	for (i = 0; i < GUARD_SLOTS; i++)
		assert_int_equal(mprotect(guard_mem + i * (GUARD_DATA + guard_pg) + GUARD_DATA,
					  guard_pg, PROT_NONE), 0);
	guard_out = 0;
}

static void
guard_fini(void)
{
	if (guard_mem != NULL && guard_mem != MAP_FAILED)
		munmap(guard_mem, guard_len);
	guard_mem = NULL;
}

/* The first len bytes of b in slot's buffer, ending at its guard page. */
static struct rte_mbuf *
guard_mbuf(unsigned int slot, const uint8_t *b, uint32_t len)
{
	uint8_t *buf = guard_mem + slot * (GUARD_DATA + guard_pg);
	struct rte_mbuf_ext_shared_info *sh = &guard_sh[slot];
	struct rte_mbuf *m = rte_pktmbuf_alloc(unit_pool);

	if (m == NULL || len > GUARD_DATA - RTE_PKTMBUF_HEADROOM)
		fail_msg("no mbuf, or a frame of %u bytes", len);
	sh->free_cb = guard_free;
	sh->fcb_opaque = NULL;
	rte_mbuf_ext_refcnt_set(sh, 1);
	rte_pktmbuf_attach_extbuf(m, buf, (rte_iova_t)(uintptr_t)buf, GUARD_DATA, sh);
	m->data_off = (uint16_t)((GUARD_DATA - len) & ~1u);
	memcpy(buf + m->data_off, b, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	guard_out++;
	guard_busy[slot] = true;
	return m;
}

static struct rte_mbuf *
case_mbuf(const struct bcase *c, unsigned int slot)
{
	struct rte_mbuf *m;

	if (c->nb_segs == 0)
		return guard_mbuf(slot, c->b, c->len);
	m = guard_mbuf(slot, c->b, c->seg[0]);
	if (rte_pktmbuf_chain(m, unit_mbuf_segs(c->b + c->seg[0], c->len - c->seg[0],
						c->seg + 1, c->nb_segs - 1)) != 0)
		fail_msg("%s: cannot chain its segments", c->name);
	return m;
}

static int
find_mbuf(struct rte_mbuf *const *in, uint16_t n, const struct rte_mbuf *m)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		if (in[i] == m)
			return i;
	return -1;
}

/*
 * What the worker of side s handed the control thread for want of a
 * neighbour: each mbuf is one of in[] (the packet itself waits), its frame
 * and neighbour into res[]; then dropped as the gateway does at exit (the
 * control row counts them), as unit_held_take() does.
 */
static bool
side_held(struct side *s, struct rte_mbuf *const *in, uint16_t n, struct res *res)
{
	struct rte_mbuf *m[FOU_HOLD_RING];
	unsigned int k, i;
	bool ok = true;

	k = rte_ring_sc_dequeue_burst(s->gw->hold_ring, (void **)m, RTE_DIM(m), NULL);
	for (i = 0; i < k; i++) {
		int at = find_mbuf(in, n, m[i]);

		if (at < 0 || res[at].mapped) {
			print_error("%s: a held mbuf is none of the burst's packets\n", s->name);
			ok = false;
			continue;
		}
		res[at].kind = R_HELD;
		res[at].mapped = true;
		memcpy(&res[at].neigh, RTE_MBUF_DYNFIELD(m[i], s->gw->hold_key_off, void *),
		       sizeof(res[at].neigh));
		unit_frame_copy(m[i], res[at].neigh.port, &res[at].f);
	}
	if (rte_ring_mp_enqueue_bulk(s->gw->hold_ring, (void **)m, k, NULL) != k) {
		rte_pktmbuf_free_bulk(m, k);
		ok = false;
	}
	fou_neigh_stop(s->gw);
	return ok;
}

/* The verdict of one packet alone from what its call counted. */
static unsigned int
verdict_of(const struct fou_lcore_stats *before, const struct fou_lcore_stats *after,
	   const struct res *r)
{
	unsigned int i;

	if (r->kind == R_SENT)
		return UNIT_FWD;
	if (r->kind == R_HELD)
		return UNIT_HELD;
	for (i = 0; i < FOU_DROP_MAX; i++)
		if (after->drop[i] != before->drop[i])
			return i;
	if (after->local[FOU_LOCAL_CONSUMED] != before->local[FOU_LOCAL_CONSUMED])
		return UNIT_CONSUMED;
	return UINT_MAX;
}

/*
 * The cases idx[0..n) received on port by side s in one fou_lcore_rx()
 * call, each packet's fate into res[0..n): what was sent is told apart by
 * its mbuf (a packet leaves in its own mbuf, as an error or reply too).
 */
static void
side_rx(struct side *s, uint16_t port, const unsigned int *idx, uint16_t n, struct res *res)
{
	static struct fou_lcore_stats before;
	struct rte_mbuf *m[FOU_BURST], *in[FOU_BURST];
	uint16_t out_port[FOU_BURST], nf, i;
	bool ok = true;

	before = s->u.st;
	if (guard_out != 0)
		fail_msg("%u guarded buffers not given back", guard_out);
	for (i = 0; i < n; i++) {
		in[i] = m[i] = case_mbuf(&cases[idx[i]], i);
		memset(&res[i], 0, sizeof(res[i]));
	}
	nf = unit_rx_at(&s->u, port, m, n, out_port, now);
	for (i = 0; i < nf; i++) {
		int at = find_mbuf(in, n, m[i]);

		if (at < 0 || res[at].mapped) {
			print_error("%s: a sent mbuf is none of the burst's packets\n", s->name);
			ok = false;
		} else {
			res[at].kind = R_SENT;
			res[at].mapped = true;
			unit_frame_copy(m[i], out_port[i], &res[at].f);
		}
		rte_pktmbuf_free(m[i]);
	}
	if (!side_held(s, in, n, res))
		ok = false;
	/* each packet's buffer freed once, whatever became of it */
	for (i = 0; i < n; i++) {
		if (guard_busy[i]) {
			print_error("%s: the buffer of %s not given back\n", s->name,
				    cases[idx[i]].name);
			ok = false;
		}
	}
	if (n == 1)
		res[0].verdict = verdict_of(&before, &s->u.st, &res[0]);
	s->nb_ev += unit_events_take(s->gw, s->ev + s->nb_ev, RTE_DIM(s->ev) - s->nb_ev);
	if (s->nb_ev > RTE_DIM(s->ev))
		fail_msg("%s: more than %zu events", s->name, RTE_DIM(s->ev));
	if (!ok)
		fail();
}

static const char *
verdict_name(unsigned int v)
{
	return v == UNIT_FWD ? "sent" : v == UNIT_HELD ? "held" :
	       v == UNIT_CONSUMED ? "consumed" : v < FOU_DROP_MAX ? fou_drop_name(v) : "nothing";
}

/* --- comparing ------------------------------------------------------------- */

/* Where the failure is: set before each burst. */
static char where[4096];

static void
where_set(unsigned int round, unsigned int burst, uint16_t port, const unsigned int *idx,
	  uint16_t n)
{
	int o = snprintf(where, sizeof(where), "round %u, burst %u (port %u, %u packets:", round,
			 burst, port, n);
	uint16_t i;

	for (i = 0; i < n && o > 0 && (size_t)o < sizeof(where); i++)
		o += snprintf(where + o, sizeof(where) - (size_t)o, "%s %s", i ? "," : "",
			      cases[idx[i]].name);
	if (o > 0 && (size_t)o < sizeof(where))
		snprintf(where + o, sizeof(where) - (size_t)o, ")");
}

static const char *const kind_name[] = { "gone", "sent", "held" };

static void
hexdump(const char *what, const uint8_t *b, uint32_t len, uint32_t from)
{
	uint32_t i;

	print_error("  %s (from byte %u):", what, from);
	for (i = from; i < len && i < from + 24; i++)
		print_error(" %02x", b[i]);
	print_error("\n");
}

/* Packet at position pos of the burst, case c: the same fate and bytes. */
static bool
res_same(const struct res *a, const struct res *b, uint16_t pos, const struct bcase *c)
{
	uint32_t i;

	if (a->kind != b->kind) {
		print_error("packet %u (%s): %s in the burst, %s alone (%s)\n", pos, c->name,
			    kind_name[a->kind], kind_name[b->kind], verdict_name(b->verdict));
		return false;
	}
	if (a->kind == R_GONE)
		return true;
	if (a->kind == R_HELD && memcmp(&a->neigh, &b->neigh, sizeof(a->neigh)) != 0) {
		print_error("packet %u (%s): held for another neighbour in the burst\n", pos,
			    c->name);
		return false;
	}
	if (a->f.port != b->f.port || a->f.len != b->f.len) {
		print_error("packet %u (%s): %u bytes on port %u in the burst, %u on port %u "
			    "alone\n", pos, c->name, a->f.len, a->f.port, b->f.len, b->f.port);
		return false;
	}
	if (memcmp(a->f.b, b->f.b, a->f.len) != 0) {
		for (i = 0; a->f.b[i] == b->f.b[i]; i++)
			;
		print_error("packet %u (%s): %s frames differ at byte %u\n", pos, c->name,
			    kind_name[a->kind], i);
		hexdump("burst", a->f.b, a->f.len, i & ~7u);
		hexdump("alone", b->f.b, b->f.len, i & ~7u);
		return false;
	}
	if (a->f.ol_flags != b->f.ol_flags || a->f.l2_len != b->f.l2_len ||
	    a->f.l3_len != b->f.l3_len || a->f.l4_len != b->f.l4_len) {
		print_error("packet %u (%s): offload fields differ (ol_flags 0x%" PRIx64
			    "/0x%" PRIx64 ", l2/l3/l4 %u/%u/%u vs %u/%u/%u)\n", pos, c->name, a->f.ol_flags,
			    b->f.ol_flags, a->f.l2_len, a->f.l3_len, a->f.l4_len, b->f.l2_len,
			    b->f.l3_len, b->f.l4_len);
		return false;
	}
	return true;
}

static bool
u64s_same(const char *what, const char *(*name)(unsigned int), const uint64_t *a,
	  const uint64_t *b, unsigned int n)
{
	bool ok = true;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (a[i] == b[i])
			continue;
		if (name != NULL)
			print_error("  %s %s: %" PRIu64 " in the burst, %" PRIu64 " alone\n", what,
				    name(i), a[i], b[i]);
		else
			print_error("  %s[%u]: %" PRIu64 " in the burst, %" PRIu64 " alone\n", what,
				    i, a[i], b[i]);
		ok = false;
	}
	return ok;
}

static const char *drop_name(unsigned int i) { return fou_drop_name(i); }
static const char *inner_name(unsigned int i) { return fou_inner_name(i); }
static const char *icmp_name(unsigned int i) { return fou_icmp_name(i); }
static const char *local_name(unsigned int i) { return fou_local_name(i); }

/* Every counter of two rows, the differences named. */
static bool
stats_same(const char *row, const struct fou_lcore_stats *a, const struct fou_lcore_stats *b)
{
	bool ok;

	if (memcmp(a, b, sizeof(*a)) == 0)
		return true;
	print_error("%s counters differ:\n", row);
	ok = u64s_same("rx", NULL, a->rx, b->rx, RTE_MAX_ETHPORTS);
	ok &= u64s_same("tx", NULL, a->tx, b->tx, RTE_MAX_ETHPORTS);
	ok &= u64s_same("drop", drop_name, a->drop, b->drop, FOU_DROP_MAX);
	ok &= u64s_same("decap slot", NULL, a->decap, b->decap, FOU_MAX_UDP_PORTS + 1);
	ok &= u64s_same("decap_inner", inner_name, a->decap_inner, b->decap_inner, FOU_INNER_MAX);
	ok &= u64s_same("icmp_out", icmp_name, a->icmp_out, b->icmp_out, FOU_ICMP_MAX);
	ok &= u64s_same("local", local_name, a->local, b->local, FOU_LOCAL_MAX);
	ok &= u64s_same("gro/gso/polls", NULL, &a->gro_merged, &b->gro_merged, 7);
	if (ok)
		print_error("  (in padding?)\n");
	return false;
}

/*
 * Every tunnel's counters and MTU. path_mtu_expires is left out: it is
 * counted down from the TSC when the list is made, which is not the
 * same moment for the two.
 */
static bool
tunnels_same(void)
{
	static struct fou_tunnel_info ta[32], tb[32];
	unsigned int na = fou_tunnel_list(sa.gw, ta, RTE_DIM(ta));
	unsigned int nb = fou_tunnel_list(sb.gw, tb, RTE_DIM(tb)), i;
	bool ok = true;

	if (na != nb || na > RTE_DIM(ta)) {
		print_error("%u tunnels and %u\n", na, nb);
		return false;
	}
	for (i = 0; i < na; i++) {
		const struct fou_tunnel_info *a = &ta[i], *b = &tb[i];

		if (strcmp(a->conf.name, b->conf.name) != 0 || a->mtu != b->mtu ||
		    a->path_mtu != b->path_mtu || a->tx_packets != b->tx_packets ||
		    a->tx_bytes != b->tx_bytes || a->rx_packets != b->rx_packets ||
		    a->rx_bytes != b->rx_bytes ||
		    (a->unresolved == NULL) != (b->unresolved == NULL)) {
			print_error("tunnel %s: in the burst tx %" PRIu64 "/%" PRIu64 " rx %" PRIu64
				    "/%" PRIu64 " mtu %u path %u; alone %s tx %" PRIu64 "/%" PRIu64
				    " rx %" PRIu64 "/%" PRIu64 " mtu %u path %u\n", a->conf.name,
				    a->tx_packets, a->tx_bytes, a->rx_packets, a->rx_bytes, a->mtu,
				    a->path_mtu, b->conf.name, b->tx_packets, b->tx_bytes,
				    b->rx_packets, b->rx_bytes, b->mtu, b->path_mtu);
			ok = false;
		}
	}
	return ok;
}

static bool
events_same(void)
{
	unsigned int i;

	if (sa.nb_ev != sb.nb_ev) {
		print_error("%u neighbour events in the burst, %u alone\n", sa.nb_ev, sb.nb_ev);
		return false;
	}
	for (i = 0; i < sa.nb_ev; i++) {
		const struct unit_ev *a = &sa.ev[i], *b = &sb.ev[i];

		if (a->kind != b->kind || a->flags != b->flags || a->port != b->port ||
		    memcmp(&a->mac, &b->mac, sizeof(a->mac)) != 0 ||
		    memcmp(&a->ip, &b->ip, sizeof(a->ip)) != 0) {
			print_error("neighbour event %u differs\n", i);
			return false;
		}
	}
	sa.nb_ev = sb.nb_ev = 0;
	return true;
}

/* The first round: each packet alone came to what its case says. */
static unsigned int
expect_alone(const struct bcase *c, const struct res *r)
{
	if (r->verdict != c->verdict) {
		print_error("%s: alone it was %s, expected %s\n", c->name, verdict_name(r->verdict),
			    verdict_name(c->verdict));
		return 1;
	}
	if ((c->verdict == V_FWD || c->verdict == V_HELD) && r->f.port != c->out_port) {
		print_error("%s: %s on port %u, expected %u\n", c->name, verdict_name(r->verdict),
			    r->f.port, c->out_port);
		return 1;
	}
	if (c->golden != NULL && (r->f.len != c->golden_len ||
				  memcmp(r->f.b, c->golden, c->golden_len) != 0)) {
		print_error("%s: not the golden output frame\n", c->name);
		return 1;
	}
	return 0;
}

/*
 * One burst: A takes idx[0..n) in one call, B one by one in the same
 * order; then everything is compared.
 */
static void
run_burst(unsigned int round, unsigned int burst, uint16_t port, const unsigned int *idx,
	  uint16_t n)
{
	unsigned int bad = 0;
	bool ok = true;
	uint16_t i;

	where_set(round, burst, port, idx, n);
	side_rx(&sa, port, idx, n, ra);
	for (i = 0; i < n; i++)
		side_rx(&sb, port, &idx[i], 1, &rb[i]);
	for (i = 0; i < n; i++) {
		ok &= res_same(&ra[i], &rb[i], i, &cases[idx[i]]);
		if (round == 0)
			bad += expect_alone(&cases[idx[i]], &rb[i]);
	}
	ok &= stats_same("the worker's", &sa.u.st, &sb.u.st);
	ok &= stats_same("the control thread's", unit_ctl_stats(sa.gw), unit_ctl_stats(sb.gw));
	ok &= tunnels_same();
	ok &= events_same();
	if (!ok)
		fail_msg("%s: a packet's fate depends on its burst", where);
	if (bad != 0)
		fail_msg("%s: %u packet(s) alone not as their case says", where, bad);
}

/* --- the rounds --------------------------------------------------------------- */

static uint32_t rng;

static uint32_t
rnd(void)
{
	/* xorshift32: the same sequence everywhere */
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* A burst size: the full FOU_BURST half the time, else 1 to 31. */
static unsigned int
burst_size(void)
{
	return (rnd() & 1) ? FOU_BURST : 1 + rnd() % (FOU_BURST - 1);
}

static void
shuffle(unsigned int *v, unsigned int n)
{
	unsigned int i, j, t;

	for (i = n; i > 1; i--) {
		j = rnd() % i;
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

/*
 * Round 0: the set in table order, bursts of FOU_BURST, port 0 then
 * port 1. Later rounds: each port's cases shuffled, cut into bursts of
 * random sizes, the ports' bursts taken in turn.
 */
static unsigned int
run_round(unsigned int round)
{
	unsigned int p0[MAX_CASES], p1[MAX_CASES], n0 = 0, n1 = 0, o0 = 0, o1 = 0, i;
	unsigned int burst = 0;

	for (i = 0; i < nb_cases; i++) {
		if (cases[i].port == RX_PORT)
			p0[n0++] = i;
		else
			p1[n1++] = i;
	}
	if (round != 0) {
		shuffle(p0, n0);
		shuffle(p1, n1);
	}
	while (o0 < n0 || o1 < n1) {
		const unsigned int size = round == 0 ? FOU_BURST : burst_size();
		uint16_t k;

		if (o0 < n0 && (round != 0 || o1 == n1 || (rnd() & 1))) {
			k = (uint16_t)RTE_MIN(size, n0 - o0);
			run_burst(round, burst++, RX_PORT, p0 + o0, k);
			o0 += k;
		} else {
			k = (uint16_t)RTE_MIN(size, n1 - o1);
			run_burst(round, burst++, EG_PORT, p1 + o1, k);
			o1 += k;
		}
	}
	return burst;
}

static struct fou_gw *
gw_make(void)
{
	struct fou_gw *gw = unit_gw_std();
	char buf[sizeof(config)], *l, *save = NULL;

	/* line by line: the config is longer than UNIT_APPLY_LINES() takes */
	memcpy(buf, config, sizeof(config));
	for (l = strtok_r(buf, "\n", &save); l != NULL; l = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(l, ' ');

		assert_non_null(sp);
		*sp = '\0';
		UNIT_APPLY(gw, l, sp + 1);
	}
	return gw;
}

static uint64_t
icmp_total(const struct fou_lcore_stats *st)
{
	uint64_t n = 0;
	unsigned int k;

	for (k = 0; k < FOU_ICMP_MAX; k++)
		n += st->icmp_out[k];
	return n;
}

static void
test_burst_equals_alone(void **state)
{
	unsigned int round, bursts = 0;

	(void)state;
	cases_build();
	guard_init();
	sa.gw = gw_make();
	sb.gw = gw_make();
	/* the same first outer IP ID for both: see the top of the file */
	unit_lcore_begin(&sa.u, sa.gw, 0x1000);
	unit_lcore_begin(&sb.u, sb.gw, 0x1000);
	sa.nb_ev = sb.nb_ev = 0;
	now = rte_rdtsc();
	rng = SEED;
	for (round = 0; round < NB_ROUNDS; round++)
		bursts += run_round(round);
	/* the bucket never ran dry, and errors were sent */
	assert_int_equal(sa.u.st.drop[FOU_DROP_ICMP_RATELIMITED], 0);
	assert_true(icmp_total(&sa.u.st) != 0 && icmp_total(&sa.u.st) < (uint64_t)ICMP_BURST);
	/* each tunnel's path MTU was lowered, once: the same error again
	 * in a later round does not lower it further */
	assert_int_equal(sa.u.st.local[FOU_LOCAL_PMTU_UPDATES], 2);
	print_message("%u cases, %u rounds, %u bursts (seed 0x%08x)\n", nb_cases, NB_ROUNDS, bursts,
		      SEED);
}

static int
teardown(void **state)
{
	int ret;

	unit_lcore_end(&sa.u);
	unit_lcore_end(&sb.u);
	guard_fini();
	fou_gw_free(sa.gw);
	sa.gw = NULL;
	ret = unit_test_teardown_gw(state, sb.gw);
	sb.gw = NULL;
	return ret;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_burst_equals_alone, teardown),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests(tests, NULL, NULL);
	return unit_eal_fini(failures);
}
