/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transmit half: plain packets routed into ipip / sit / gre tunnels
 * with and without FOU, compared byte for byte with scapy's frames
 * (golden.h, GOLDEN_TX); the fields that are computed per packet (encap-
 * sport auto, outer IP ID, GRE sequence, checksums over segmented mbufs)
 * checked by rule; tunnel resolution; plain (encap none) receive.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_ethdev.h>

#include "unit.h"
#include "fou_hdr.h"
#define GOLDEN_TX
#include "golden.h"
#include "golden6.h"

/* What the transmit cases add to unit_gw_std(): the sender 10.0.0.2 /
 * fd00::2 on port 0 has a neighbour entry, so ICMP errors can go back. */
static const char tx_base[] =
	"addr 0,fd00::1/64\n"
	"neigh 10.0.0.2,dev=0,lladdr=02:00:00:00:00:02\n"
	"neigh fd00::2,dev=0,lladdr=02:00:00:00:00:02\n";

static struct unit_frame got[FOU_BURST];
/* The worker's context of the running test, on cur_gw: unit_lcore_begin()
 * starts a fresh one (counters, IP IDs, ICMP bucket, neighbour cache). */
static struct unit_lcore ul;

#define SPORT_MIN 32768
#define SPORT_MAX 60999
#define ETH 14
#define OUTER_UDP (ETH + 20)

/*
 * The gateway of the running test: tx_gw() replaces it, the teardown frees
 * it, so that a failing check (a longjmp) leaks nothing.
 */
static struct fou_gw *cur_gw;

/*
 * The gateway is built afresh for each case, over a thousand times: on
 * tables sized for the cases, since a default one zeroes 64k groups of
 * routes longer than /24 per family (tens of MB) on each creation, which
 * made this the slowest unit test (20 s of CPU, now 7).
 */
static const struct fou_gw_params tx_params = {
	.max_routes4 = 256,
	.max_routes6 = 256,
	.max_neighs = 256,
	.max_tunnels = 64,
	.max_nexthops = FOU_NEXTHOPS(64),
	.socket_id = SOCKET_ID_ANY,
};

static struct fou_gw *
tx_gw(const char *stmts)
{
	unit_lcore_end(&ul);
	fou_gw_free(cur_gw);
	cur_gw = NULL;
	cur_gw = unit_gw_std_params(&tx_params);
	UNIT_APPLY_LINES(cur_gw, tx_base);
	UNIT_APPLY_LINES(cur_gw, stmts);
	return cur_gw;
}

static int
teardown(void **state)
{
	struct fou_gw *gw = cur_gw;

	unit_lcore_end(&ul);	/* the test's own; any other was left open */
	cur_gw = NULL;
	return unit_test_teardown_gw(state, gw);
}

static const struct golden_tx *
tx_case(const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(golden_tx); i++)
		if (strcmp(golden_tx[i].name, name) == 0)
			return &golden_tx[i];
	fail_msg("no transmit case %s", name);
	return NULL;
}

/* Run n copies of b through one burst on the context as it is; returns
 * forwarded. */
static uint16_t
run_copies(const struct fou_gw *gw, const uint8_t *b, uint32_t len, uint16_t n)
{
	struct rte_mbuf *m[FOU_BURST];
	uint16_t i;

	assert_ptr_equal(ul.gw, gw);
	for (i = 0; i < n; i++)
		m[i] = unit_mbuf(b, len);
	return unit_burst(&ul, m, n, got);
}

/* The verdict counted in ul.st (one packet): a drop reason, UNIT_HELD or
 * UNIT_FWD. */
static unsigned int
st_verdict(void)
{
	unsigned int i;

	for (i = 0; i < FOU_DROP_MAX; i++)
		if (ul.st.drop[i] != 0)
			return i;
	return ul.st.local[FOU_LOCAL_NEIGH_QUEUED] != 0 ? UNIT_HELD : UNIT_FWD;
}

static const char *
verdict_name(unsigned int v)
{
	return v == UNIT_FWD ? "sent" : v == UNIT_HELD ? "held" : fou_drop_name(v);
}

/* The one packet held for want of a neighbour: for neigh on port 1. */
static void
take_held(struct fou_gw *gw, const char *what, const char *neigh, struct unit_held *h)
{
	char buf[INET6_ADDRSTRLEN];

	if (unit_held_take(gw, h, 1) != 1)
		fail_msg("%s: not one packet held", what);
	fou_ip_str(&h->neigh, buf, sizeof(buf));
	if (h->f.port != EG_PORT || strcmp(buf, neigh) != 0)
		fail_msg("%s: held for %s on port %u, expected %s on port %u", what, buf,
			 h->f.port, neigh, EG_PORT);
}

static uint64_t
st_icmp_total(void)
{
	uint64_t n = 0;
	unsigned int k;

	for (k = 0; k < FOU_ICMP_MAX; k++)
		n += ul.st.icmp_out[k];
	return n;
}

/*
 * Checks that need no golden frame: a valid outer IPv4 header checksum; a
 * UDP checksum of 0 or valid; a valid GRE checksum when C is set.
 */
static void
check_cksums(const uint8_t *b, uint32_t len, const char *name)
{
	const uint8_t *ip = b + ETH;
	uint32_t hl = (ip[0] & 0xfu) * 4, g = 0;

	if (unit_get16(b + 12) != RTE_ETHER_TYPE_IPV4)
		return;
	if (!unit_cksum_ok(ip, hl))
		fail_msg("%s: outer IPv4 header checksum", name);
	if (ip[9] == IPPROTO_UDP && unit_get16(ip + hl + 6) != 0 && !unit_udp4_cksum_ok(ip))
		fail_msg("%s: UDP checksum", name);
	if (ip[9] == IPPROTO_UDP && unit_get32(ip + 12) == IP4(192, 168, 1, 1) &&
	    unit_get16(ip + hl + 2) == PORT_GRE)
		g = ETH + hl + 8;
	else if (ip[9] == IPPROTO_UDP && unit_get32(ip + 12) == IP4(192, 168, 1, 1) &&
		 unit_get16(ip + hl + 2) == PORT_GUE && ip[hl + 9] == IPPROTO_GRE)
		g = ETH + hl + 12;	/* after the 4-byte GUE header */
	else if (ip[9] == IPPROTO_GRE)
		g = ETH + hl;
	if (g != 0 && (b[g] & 0x80) && !unit_cksum_ok(b + g, len - g))
		fail_msg("%s: GRE checksum", name);
	if (ip[9] == IPPROTO_ICMP && !unit_cksum_ok(ip + hl, len - ETH - hl))
		fail_msg("%s: ICMP checksum", name);
}

/*
 * Compare the frame f with the golden output of c, whose outer IP ID is
 * id_delta more than in the golden frame (built with fresh counters). With
 * encap-sport auto the source port must be in [lo, hi]; the expected frame
 * takes it (and the UDP checksum is recomputed for it) before the
 * comparison.
 */
static void
compare_out_id(const struct golden_tx *c, const struct unit_frame *f, uint16_t lo, uint16_t hi,
	       uint16_t id_delta)
{
	uint8_t exp[UNIT_PKT_MAX];
	uint32_t i;

	if (f->port != c->out_port)
		fail_msg("%s: sent on port %u, expected %u", c->name, f->port, c->out_port);
	if (f->len != c->out_len)
		fail_msg("%s: %u bytes, expected %u", c->name, f->len, c->out_len);
	memcpy(exp, c->out, c->out_len);
	if (id_delta != 0 && unit_get16(exp + 12) == RTE_ETHER_TYPE_IPV4) {
		unit_put16(exp + ETH + 4, (uint16_t)(unit_get16(exp + ETH + 4) + id_delta));
		unit_ip4_cksum_fix(exp + ETH);
	}
	if (c->flags & GOLDEN_SPORT_AUTO) {
		uint16_t sport = unit_get16(f->b + OUTER_UDP);

		if (sport < lo || sport > hi)
			fail_msg("%s: encap-sport auto %u outside %u-%u", c->name, sport, lo, hi);
		unit_put16(exp + OUTER_UDP, sport);
		if (unit_get16(exp + OUTER_UDP + 6) != 0) {
			uint16_t ulen = unit_get16(exp + OUTER_UDP + 4), ck;

			unit_put16(exp + OUTER_UDP + 6, 0);
			ck = (uint16_t)~rfc1071_fold(rfc1071_sum(exp + OUTER_UDP, ulen,
							     rfc1071_sum(exp + ETH + 12, 8, 0) +
							     IPPROTO_UDP + ulen));
			unit_put16(exp + OUTER_UDP + 6, ck == 0 ? 0xffff : ck);
		}
	}
	check_cksums(f->b, f->len, c->name);
	if (memcmp(f->b, exp, f->len) != 0) {
		for (i = 0; f->b[i] == exp[i]; i++)
			;
		fail_msg("%s: output differs at byte %u: got 0x%02x, expected 0x%02x", c->name, i,
			 f->b[i], exp[i]);
	}
}

static void
compare_out(const struct golden_tx *c, const struct unit_frame *f, uint16_t lo, uint16_t hi)
{
	compare_out_id(c, f, lo, hi, 0);
}

/* Expected counters after the one packet of c was sent. */
static void
check_sent_counters(const struct fou_gw *gw, const struct golden_tx *c)
{
	struct fou_tunnel_info ti[2];
	bool encap = c->out_port == EG_PORT && !(c->flags & GOLDEN_TUN_RX);

	if (st_verdict() != UNIT_FWD)
		fail_msg("%s: counted as %s", c->name, fou_drop_name(st_verdict()));
	if (ul.st.rx[RX_PORT] != 1 ||
	    ul.st.decap_inner[0] + ul.st.decap_inner[1] != ((c->flags & GOLDEN_DECAP) ? 1u : 0u))
		fail_msg("%s: rx or decap counters wrong", c->name);
	if (st_icmp_total() != ((c->flags & GOLDEN_ICMP) ? 1u : 0u))
		fail_msg("%s: %" PRIu64 " ICMP errors counted", c->name, st_icmp_total());
	if (fou_tunnel_list(gw, ti, RTE_DIM(ti)) >= 1 && ti[0].tx_packets != (encap ? 1u : 0u))
		fail_msg("%s: tunnel counted %" PRIu64 " packets", c->name, ti[0].tx_packets);
	if ((c->flags & GOLDEN_TUN_RX) && (ti[0].rx_packets != 1 || ti[0].rx_bytes == 0))
		fail_msg("%s: tunnel rx %" PRIu64 " packets, %" PRIu64 " bytes", c->name,
			 ti[0].rx_packets, ti[0].rx_bytes);
}

/* Every transmit case: one packet in, scapy's frame out. */
static void
test_tx_golden(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(golden_tx); i++) {
		const struct golden_tx *c = &golden_tx[i];
		struct fou_gw *gw = tx_gw(c->stmts);

		unit_lcore_begin(&ul, gw, 0);
		if (run_copies(gw, c->in, c->in_len, 1) != 1)
			fail_msg("%s (%s): not sent, counted as %s", c->name, c->doc,
				 fou_drop_name(st_verdict()));
		compare_out(c, &got[0], SPORT_MIN, SPORT_MAX);
		check_sent_counters(gw, c);
	}
}

/*
 * Received and dropped (the IPv6-underlay tunnel cases): each of
 * golden_rx_drop is counted under its reason, nothing sent, nothing
 * received on the tunnel. (Those taken are golden_tx's GOLDEN_TUN_RX.)
 */
static void
test_rx_tun6_golden(void **state)
{
	struct fou_tunnel_info ti[2];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(golden_rx_drop); i++) {
		struct fou_gw *gw = tx_gw(golden_rx_drop[i].stmts);
		unsigned int v;

		unit_lcore_begin(&ul, gw, 0);
		if (run_copies(gw, golden_rx_drop[i].in, golden_rx_drop[i].in_len, 1) != 0)
			fail_msg("%s (%s): sent", golden_rx_drop[i].name, golden_rx_drop[i].doc);
		v = st_verdict();
		if (v >= FOU_DROP_MAX || strcmp(fou_drop_name(v), golden_rx_drop[i].drop) != 0)
			fail_msg("%s (%s): counted as %s", golden_rx_drop[i].name,
				 golden_rx_drop[i].doc, v < FOU_DROP_MAX ? fou_drop_name(v) : "not a drop");
		unit_lcore_end(&ul);
		assert_int_equal(fou_tunnel_list(gw, ti, RTE_DIM(ti)), 1);
		assert_int_equal(ti[0].rx_packets, 0);
	}
}

/*
 * What Linux 6.1 sent through its encap gue tunnels (ipip, sit, gre; UDP
 * checksum off and on; GRE key, csum, seq), packet by packet through one
 * gateway standing where the Linux guest stood: the same bytes, but for
 * the Ethernet source, the IPv4 ID and the auto source port.
 */
static void
test_tx_linux_gue(void **state)
{
	struct fou_gw *gw = NULL;
	unsigned int i, k = 0;

	(void)state;
	for (i = 0; i < RTE_DIM(golden_linux_tx); i++) {
		const struct golden_tx *c = &golden_linux_tx[i];

		if (!(c->flags & GOLDEN_NEXT)) {
			gw = tx_gw(c->stmts);
			unit_lcore_begin(&ul, gw, 0);
			k = 0;
		}
		if (run_copies(gw, c->in, c->in_len, 1) != 1)
			fail_msg("%s (%s): not sent, counted as %s", c->name, c->doc,
				 fou_drop_name(st_verdict()));
		compare_out_id(c, &got[0], SPORT_MIN, SPORT_MAX, (uint16_t)k++);
	}
}

/*
 * One frame an IPv6-underlay tunnel sent, against Linux's: the same bytes
 * but for what Linux drew from its own flow hash, the outer flow label
 * (ours: non-zero, one per inner flow) and the UDP source port (in the
 * encap-sport range), with the UDP checksum recomputed for ours where
 * Linux sent one, and checked on what we sent.
 */
static void
compare_out6(const struct golden_tx6 *c, const struct unit_frame *f)
{
	static uint8_t exp[UNIT_PKT_MAX];
	const uint8_t *ip6 = f->b + ETH;
	uint32_t label, i, at;

	if (f->len != c->out_len)
		fail_msg("%s: %u bytes sent, Linux sent %u", c->name, f->len, c->out_len);
	memcpy(exp, c->out, c->out_len);
	label = unit_get32(ip6) & 0xfffff;
	if (label == 0)
		fail_msg("%s: flow label 0 (Linux sends an auto one)", c->name);
	unit_put32(exp + ETH, (unit_get32(exp + ETH) & ~0xfffffu) | label);
	at = ETH + 40 + (exp[ETH + 6] == IPPROTO_DSTOPTS ? 8 : 0);
	if ((exp[ETH + 6] == IPPROTO_UDP || exp[ETH + 40] == IPPROTO_UDP) &&
	    unit_get16(exp + at + 2) == unit_get16(f->b + at + 2)) {
		uint16_t sport = unit_get16(f->b + at), ulen = unit_get16(exp + at + 4);
		uint32_t sum;

		if (sport < SPORT_MIN || sport > SPORT_MAX)
			fail_msg("%s: encap-sport auto %u outside %u-%u", c->name, sport, SPORT_MIN,
				 SPORT_MAX);
		unit_put16(exp + at, sport);
		if (unit_get16(exp + at + 6) != 0) {
			unit_put16(exp + at + 6, 0);
			sum = rfc1071_sum(exp + ETH + 8, 32, IPPROTO_UDP + ulen);
			sum = (uint16_t)~rfc1071_fold(rfc1071_sum(exp + at, ulen, sum));
			unit_put16(exp + at + 6, sum == 0 ? 0xffff : (uint16_t)sum);
			/* and on its own: ours sums to all ones */
			sum = rfc1071_sum(f->b + ETH + 8, 32, IPPROTO_UDP + ulen);
			if (rfc1071_fold(rfc1071_sum(f->b + at, ulen, sum)) != 0xffff)
				fail_msg("%s: UDP checksum over IPv6 wrong", c->name);
		}
	}
	if (memcmp(f->b, exp, f->len) != 0) {
		for (i = 0; f->b[i] == exp[i]; i++)
			;
		fail_msg("%s: output differs at byte %u: got 0x%02x, Linux sent 0x%02x", c->name,
			 i, f->b[i], exp[i]);
	}
}

/*
 * What Linux 6.1 sent through ip6tnl (ipip6, ip6ip6, any) and ip6gre with
 * encap fou, gue and none, encaplimit 4 and none, the UDP checksum over
 * IPv6 on and off, GRE key and checksum: packet by packet through one
 * gateway per capture, standing where the Linux guest stood. The flow
 * label of a flow stays one: the same inner flow, the same label.
 */
static void
test_tx_linux_ip6tnl(void **state)
{
	struct fou_gw *gw = NULL;
	struct fou_tunnel_info ti[1];
	uint32_t labels[8][2];
	unsigned int i, k = 0, n;

	(void)state;
	for (i = 0; i < RTE_DIM(golden_tx6); i++) {
		const struct golden_tx6 *c = &golden_tx6[i];

		if (c->first) {
			gw = tx_gw(c->stmts);
			unit_lcore_begin(&ul, gw, 0);
			k = 0;
		}
		if (run_copies(gw, c->in, c->in_len, 1) != 1)
			fail_msg("%s: not sent, counted as %s", c->name,
				 fou_drop_name(st_verdict()));
		if (unit_get16(got[0].b + 12) != RTE_ETHER_TYPE_IPV6)
			fail_msg("%s: not an IPv6 frame", c->name);
		compare_out6(c, &got[0]);
		/* the same packet again: the same label */
		labels[k][0] = unit_get32(got[0].b + ETH) & 0xfffff;
		assert_int_equal(run_copies(gw, c->in, c->in_len, 1), 1);
		labels[k][1] = unit_get32(got[0].b + ETH) & 0xfffff;
		if (labels[k][0] != labels[k][1])
			fail_msg("%s: one flow, two flow labels", c->name);
		k++;
		n = fou_tunnel_list(gw, ti, 1);
		assert_int_equal(n, 1);
		assert_int_equal(ti[0].tx_packets, 2 * k);
	}
}

/*
 * The same on an egress port that sums UDP itself (UDP_CKSUM only: over
 * IPv6 there is no header checksum to need IPV4_CKSUM): where Linux sent a
 * checksum, the packet leaves with the offload asked for (l3_len covering
 * the Destination Options, the pseudo header's sum over next header 17 and
 * the UDP length in the field); completed as the port would, the bytes are
 * Linux's. Without a checksum, nothing is asked of the port.
 */
static void
test_tx_linux_ip6tnl_offload(void **state)
{
	struct fou_err err;
	unsigned int i, asked = 0;

	(void)state;
	for (i = 0; i < RTE_DIM(golden_tx6); i++) {
		const struct golden_tx6 *c = &golden_tx6[i];
		struct fou_gw *gw = tx_gw(c->stmts);
		struct unit_frame *f = &got[0];
		uint32_t at, sum;
		uint16_t ulen;

		assert_int_equal(fou_iface_tx_offload_set(gw, EG_PORT, RTE_ETH_TX_OFFLOAD_UDP_CKSUM,
							  &err), 0);
		unit_lcore_begin(&ul, gw, 0);
		if (run_copies(gw, c->in, c->in_len, 1) != 1)
			fail_msg("%s: not sent, counted as %s", c->name,
				 fou_drop_name(st_verdict()));
		at = ETH + 40 + (f->b[ETH + 6] == IPPROTO_DSTOPTS ? 8 : 0);
		if (f->b[at - 8] != IPPROTO_UDP && f->b[ETH + 6] != IPPROTO_UDP) {
			assert_int_equal(f->ol_flags & RTE_MBUF_F_TX_L4_MASK, 0);
			continue;
		}
		if (unit_get16(c->out + at + 6) == 0) {
			if ((f->ol_flags & RTE_MBUF_F_TX_L4_MASK) != 0)
				fail_msg("%s: offload asked without encap-udp6-csum", c->name);
			compare_out6(c, f);
			continue;
		}
		if ((f->ol_flags & RTE_MBUF_F_TX_L4_MASK) != RTE_MBUF_F_TX_UDP_CKSUM ||
		    !(f->ol_flags & RTE_MBUF_F_TX_IPV6) || f->l2_len != ETH ||
		    f->l3_len != at - ETH || f->l4_len != 8)
			fail_msg("%s: flags %#" PRIx64 " l2 %u l3 %u l4 %u", c->name, f->ol_flags,
				 f->l2_len, f->l3_len, f->l4_len);
		ulen = unit_get16(f->b + at + 4);
		sum = rfc1071_sum(f->b + ETH + 8, 32, IPPROTO_UDP + ulen);
		if (unit_get16(f->b + at + 6) != rfc1071_fold(sum))
			fail_msg("%s: pseudo-header sum 0x%04x, expected 0x%04x", c->name,
				 unit_get16(f->b + at + 6), rfc1071_fold(sum));
		/* the port: the datagram's sum onto the field's */
		sum = (uint16_t)~rfc1071_fold(rfc1071_sum(f->b + at, ulen, 0));
		unit_put16(f->b + at + 6, sum == 0 ? 0xffff : (uint16_t)sum);
		compare_out6(c, f);
		asked++;
	}
	assert_true(asked > 10);
}

/* The golden outputs themselves carry valid checksums (the tests' own code). */
static void
test_tx_golden_cksums(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(golden_tx); i++) {
		const struct golden_tx *c = &golden_tx[i];

		check_cksums(c->out, c->out_len, c->name);
		check_cksums(c->in, c->in_len, c->name);
	}
	/* the engineered case really computes to 0 */
	assert_int_equal(unit_get16(tx_case("tx_ipip_csum_zero")->out + OUTER_UDP + 6), 0xffff);
}

/* Is the golden output of c a packet we encapsulated (outer IPv4 from the
 * tunnel's local address, carrying UDP, GRE, IPIP or IPv6)? ICMP errors
 * routed back through a tunnel are. */
static bool
golden_encapsulated(const struct golden_tx *c)
{
	const uint8_t *ip = c->out + ETH;

	if (unit_get16(c->out + 12) != RTE_ETHER_TYPE_IPV4)
		return false;
	return unit_get32(ip + 12) == IP4(192, 168, 1, 1) &&
	       (ip[9] == IPPROTO_UDP || ip[9] == IPPROTO_GRE || ip[9] == IPPROTO_IPIP ||
		ip[9] == IPPROTO_IPV6);
}

/*
 * Do what a port with IPV4_CKSUM / UDP_CKSUM does with f's flags: check the
 * lengths and the fields we left for it, then fill in the checksums.
 * Returns whether the UDP checksum was offloaded.
 */
static bool
complete_offloads(const struct golden_tx *c, struct unit_frame *f)
{
	uint8_t *ip = f->b + ETH;
	const uint64_t l4 = f->ol_flags & RTE_MBUF_F_TX_L4_MASK;

	if (!(f->ol_flags & RTE_MBUF_F_TX_IP_CKSUM))
		fail_msg("%s: outer IPv4 checksum not offloaded", c->name);
	if (!(f->ol_flags & RTE_MBUF_F_TX_IPV4) || f->l2_len != ETH || f->l3_len != 20)
		fail_msg("%s: flags %#" PRIx64 " l2_len %u l3_len %u", c->name, f->ol_flags,
			 f->l2_len, f->l3_len);
	if (unit_get16(ip + 10) != 0)
		fail_msg("%s: IPv4 checksum field %#x left for the port", c->name,
			 unit_get16(ip + 10));
	unit_ip4_cksum_fix(ip);
	if (l4 == 0)
		return false;
	if (l4 != RTE_MBUF_F_TX_UDP_CKSUM || ip[9] != IPPROTO_UDP || f->l4_len != 8)
		fail_msg("%s: L4 offload %#" PRIx64 " l4_len %u", c->name, l4, f->l4_len);
	{
		uint8_t *udp = ip + 20;
		uint16_t ulen = unit_get16(udp + 4), ck;
		uint32_t phdr = rfc1071_sum(ip + 12, 8, 0) + IPPROTO_UDP + ulen;

		/* the pseudo header's sum, folded, not complemented */
		if (unit_get16(udp + 6) != rfc1071_fold(phdr))
			fail_msg("%s: UDP checksum field %#x, pseudo header sum %#x", c->name,
				 unit_get16(udp + 6), rfc1071_fold(phdr));
		unit_put16(udp + 6, 0);
		ck = (uint16_t)~rfc1071_fold(rfc1071_sum(udp, ulen, phdr));
		unit_put16(udp + 6, ck == 0 ? 0xffff : ck);
	}
	return true;
}

/*
 * An egress port with the checksum offloads: the outer IPv4 header checksum
 * always, the UDP one with encap-csum, left to the port with the right
 * flags and lengths; once a port has done its part, the frame is scapy's.
 * A port with only UDP_CKSUM gets nothing (the UDP offload needs the IPv4
 * one), and one without offloads gets no flags.
 */
static void
test_tx_offload(void **state)
{
	static const uint64_t both = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
	static const uint64_t sets[] = { both, RTE_ETH_TX_OFFLOAD_IPV4_CKSUM,
					 RTE_ETH_TX_OFFLOAD_UDP_CKSUM, 0 };
	unsigned int i, k, nb_ip = 0, nb_udp = 0;
	struct fou_err err;

	(void)state;
	for (k = 0; k < RTE_DIM(sets); k++) {
		for (i = 0; i < RTE_DIM(golden_tx); i++) {
			const struct golden_tx *c = &golden_tx[i];
			struct fou_gw *gw = tx_gw(c->stmts);
			bool enc = golden_encapsulated(c), ip_ol, udp_ol = false;

			assert_int_equal(fou_iface_tx_offload_set(gw, RX_PORT, sets[k], &err), 0);
			assert_int_equal(fou_iface_tx_offload_set(gw, EG_PORT, sets[k], &err), 0);
			unit_lcore_begin(&ul, gw, 0);
			unit_ctx("%s, port offloads %#" PRIx64, c->name, sets[k]);
			if (run_copies(gw, c->in, c->in_len, 1) != 1)
				fail_msg("%s: not sent", c->name);
			ip_ol = enc && (sets[k] & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM);
			if (ip_ol) {
				udp_ol = complete_offloads(c, &got[0]);
				nb_ip++;
				nb_udp += udp_ol;
			} else if (got[0].ol_flags & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK |
						      RTE_MBUF_F_TX_IPV4)) {
				fail_msg("%s: TX flags %#" PRIx64 " on a port without offloads or a packet not encapsulated",
					 c->name, got[0].ol_flags);
			}
			/* encap-csum: a non-zero UDP checksum in scapy's frame */
			if (udp_ol != (ip_ol && (sets[k] & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) &&
				       c->out[ETH + 9] == IPPROTO_UDP &&
				       unit_get16(c->out + OUTER_UDP + 6) != 0))
				fail_msg("%s: UDP checksum offloaded: %d", c->name, udp_ol);
			compare_out(c, &got[0], SPORT_MIN, SPORT_MAX);
		}
	}
	/* each of the two port set-ups with IPV4_CKSUM saw the encapsulations */
	assert_true(nb_ip >= 2 * 100);
	assert_true(nb_udp >= 20);
	UNIT_POOL_FULL();
}

/* A case's frame, in segments split at the given offsets (ascending). */
static struct rte_mbuf *
split(const struct golden_tx *c, const uint32_t *at, unsigned int n)
{
	uint32_t seg[4];
	unsigned int i;

	for (i = 0; i < n; i++)
		seg[i] = at[i] - (i == 0 ? 0 : at[i - 1]);
	return unit_mbuf_segs(c->in, c->in_len, seg, n + 1);
}

/*
 * Checksums (UDP with encap-csum, GRE csum) over an inner packet split
 * across mbuf segments at odd and even offsets: the output is the same.
 */
static void
test_tx_multiseg(void **state)
{
	static const char *const names[] = {
		/* no seq: one gateway serves every cut */
		"tx_ipip_fou_csum", "tx_sit_fou_csum", "tx_gre4_fou_gcsum", "tx_gre6_fou_gcsum",
		"tx_gre4_none_gcsum", "tx_gre6_none_gcsum", "tx_ipip_csum_zero", "tx_gre4_fou_csum",
		"tx_ipip_fou_csum_auto",
	};
	static const uint32_t cuts[][3] = {
		{ 1 }, { 2 }, { 3 }, { 8 }, { 9 }, { 15 }, { 16 },
		{ 1, 2 }, { 3, 10 }, { 2, 9 }, { 5, 6, 11 }, { 4, 7, 14 },
	};
	unsigned int i, k, n;

	(void)state;
	for (i = 0; i < RTE_DIM(names); i++) {
		const struct golden_tx *c = tx_case(names[i]);
		struct fou_gw *gw = tx_gw(c->stmts);
		/* the inner IP header must stay in the first segment */
		uint32_t hdr = ETH + (unit_get16(c->in + 12) == RTE_ETHER_TYPE_IPV4 ? 20 : 40);

		for (k = 0; k < RTE_DIM(cuts); k++) {
			uint32_t at[3];
			struct rte_mbuf *m;

			for (n = 0; n < 3 && cuts[k][n] != 0; n++)
				at[n] = hdr + cuts[k][n];
			m = split(c, at, n);
			unit_lcore_begin(&ul, gw, 0);
			unit_ctx("%s, cut %u bytes into the inner packet (%u cuts)", c->name,
				 cuts[k][0], n);
			if (unit_burst(&ul, &m, 1, got) != 1)
				fail_msg("%s cut at +%u (%u cuts): counted as %s", c->name, cuts[k][0],
					 n, fou_drop_name(st_verdict()));
			compare_out(c, &got[0], SPORT_MIN, SPORT_MAX);
		}
		UNIT_POOL_FULL();
	}
}

/* The frame of case c with the inner UDP source port (IPv4) set to port. */
static void
flow_frame(const struct golden_tx *c, uint8_t *b, uint16_t port, uint16_t ip_id)
{
	memcpy(b, c->in, c->in_len);
	unit_put16(b + ETH + 20, port);
	unit_put16(b + ETH + 20 + 6, 0);	/* IPv4 UDP: no checksum */
	unit_put16(b + ETH + 4, ip_id);
	unit_ip4_cksum_fix(b + ETH);
}

/*
 * encap-sport auto: within the range, the same for every packet of a flow
 * (whatever else differs: IP ID, segmentation), different across flows.
 */
static void
test_tx_sport_flows(void **state)
{
	const struct golden_tx *c = tx_case("tx_ipip_fou");
	struct fou_gw *gw = tx_gw(c->stmts);
	uint16_t sport[16];
	uint8_t b[UNIT_PKT_MAX];
	unsigned int i, j, distinct = 0;

	(void)state;
	unit_lcore_begin(&ul, gw, 0);
	for (i = 0; i < 16; i++) {
		flow_frame(c, b, (uint16_t)(40000 + i), 1);
		assert_int_equal(run_copies(gw, b, c->in_len, 1), 1);
		sport[i] = unit_get16(got[0].b + OUTER_UDP);
		if (sport[i] < SPORT_MIN || sport[i] > SPORT_MAX)
			fail_msg("flow %u: sport %u outside the range", i, sport[i]);
		/* the same flow again, another IP ID, three packets in a burst */
		flow_frame(c, b, (uint16_t)(40000 + i), (uint16_t)(77 + i));
		assert_int_equal(run_copies(gw, b, c->in_len, 3), 3);
		for (j = 0; j < 3; j++)
			if (unit_get16(got[j].b + OUTER_UDP) != sport[i])
				fail_msg("flow %u: sport %u then %u", i, sport[i],
					 unit_get16(got[j].b + OUTER_UDP));
	}
	for (i = 0; i < 16; i++) {
		for (j = 0; j < i && sport[j] != sport[i]; j++)
			;
		distinct += j == i;
	}
	if (distinct < 8)
		fail_msg("16 flows got only %u distinct source ports", distinct);
}

/* The flow hash does not depend on where the mbuf is segmented. */
static void
test_tx_sport_segmented(void **state)
{
	const struct golden_tx *c = tx_case("tx_ipip_fou");
	struct fou_gw *gw = tx_gw(c->stmts);
	static const uint32_t cuts[] = { 1, 2, 3, 4, 8 };
	uint16_t whole;
	unsigned int k;

	(void)state;
	unit_lcore_begin(&ul, gw, 0);
	assert_int_equal(run_copies(gw, c->in, c->in_len, 1), 1);
	whole = unit_get16(got[0].b + OUTER_UDP);
	for (k = 0; k < RTE_DIM(cuts); k++) {
		uint32_t at = ETH + 20 + cuts[k];
		struct rte_mbuf *m = split(c, &at, 1);

		assert_int_equal(unit_burst(&ul, &m, 1, got), 1);
		if (unit_get16(got[0].b + OUTER_UDP) != whole)
			fail_msg("inner packet cut %u bytes after its header: sport %u, whole %u",
				 cuts[k], unit_get16(got[0].b + OUTER_UDP), whole);
	}
}

/* sport-range MIN-MAX is where encap-sport auto picks from; IPv6 flows too. */
static void
test_tx_sport_range(void **state)
{
	const struct golden_tx *c = tx_case("tx_ipip_fou");
	const struct golden_tx *c6 = tx_case("tx_sit_fou");
	struct fou_gw *gw = tx_gw("sport-range 1000-1003\n");
	uint8_t b[UNIT_PKT_MAX];
	bool seen[4] = { false };
	unsigned int i;

	(void)state;
	UNIT_APPLY_LINES(gw, c->stmts);
	unit_lcore_begin(&ul, gw, 0);
	for (i = 0; i < 32; i++) {
		uint16_t sp;

		flow_frame(c, b, (uint16_t)(1 + 997 * i), 1);
		assert_int_equal(run_copies(gw, b, c->in_len, 1), 1);
		sp = unit_get16(got[0].b + OUTER_UDP);
		if (sp < 1000 || sp > 1003)
			fail_msg("sport %u outside 1000-1003", sp);
		seen[sp - 1000] = true;
	}
	assert_true(seen[0] && seen[3]);	/* both ends are reachable */

	/* a range of one port */
	gw = tx_gw("sport-range 5000-5000\n");
	UNIT_APPLY_LINES(gw, c6->stmts);
	unit_lcore_begin(&ul, gw, 0);
	assert_int_equal(run_copies(gw, c6->in, c6->in_len, 1), 1);
	compare_out(c6, &got[0], 5000, 5000);
}

/* The outer IP ID is a per-lcore counter: one more per packet built. */
static void
test_tx_ip_id(void **state)
{
	const struct golden_tx *c = tx_case("tx_gre4_fou_sport");
	struct fou_gw *gw = tx_gw(c->stmts);
	uint16_t i;

	(void)state;
	unit_lcore_begin(&ul, gw, 0xfffe);	/* and it wraps */
	assert_int_equal(run_copies(gw, c->in, c->in_len, 4), 4);
	for (i = 0; i < 4; i++) {
		uint16_t want = (uint16_t)(0xfffe + i);

		if (unit_get16(got[i].b + ETH + 4) != want)
			fail_msg("packet %u: IP ID 0x%04x, expected 0x%04x", i,
				 unit_get16(got[i].b + ETH + 4), want);
		check_cksums(got[i].b, got[i].len, c->name);
	}
	/* the next burst goes on from there */
	assert_int_equal(run_copies(gw, c->in, c->in_len, 1), 1);
	assert_int_equal(unit_get16(got[0].b + ETH + 4), 2);
}

/* GRE seq: one more per packet, from 0 (RFC 2890); the checksum follows. */
static void
test_tx_gre_seq(void **state)
{
	static const char *const names[] = { "tx_gre4_fou_kcs", "tx_gre6_none_seq" };
	unsigned int n, i;

	(void)state;
	for (n = 0; n < RTE_DIM(names); n++) {
		const struct golden_tx *c = tx_case(names[n]);
		struct fou_gw *gw = tx_gw(c->stmts);
		uint32_t seq_off = c->out_len - (c->in_len - ETH) - 4;

		unit_lcore_begin(&ul, gw, 0);
		assert_int_equal(run_copies(gw, c->in, c->in_len, 3), 3);
		assert_int_equal(run_copies(gw, c->in, c->in_len, 2), 2);
		/* the first packet of the second burst: the fourth of the tunnel */
		for (i = 0; i < 2; i++) {
			if (unit_get32(got[i].b + seq_off) != 3 + i)
				fail_msg("%s: packet %u has seq %u", c->name, 3 + i,
					 unit_get32(got[i].b + seq_off));
			check_cksums(got[i].b, got[i].len, c->name);
		}
	}
}

/* --- MTU and ICMP errors ------------------------------------------------------ */

/*
 * On a gateway with stmts (and extra), the input of case c, modified by
 * mod, is dropped as v and no ICMP error is counted.
 */
static void
expect_drop_in(const char *stmts, const char *extra, const struct golden_tx *c,
	       void (*mod)(uint8_t *ip), unsigned int v)
{
	struct fou_gw *gw = tx_gw(stmts);
	uint8_t b[UNIT_PKT_MAX];

	if (extra != NULL)
		UNIT_APPLY_LINES(gw, extra);
	memcpy(b, c->in, c->in_len);
	if (mod != NULL)
		mod(b + ETH);
	unit_lcore_begin(&ul, gw, 0);
	if (run_copies(gw, b, c->in_len, 1) != 0 || st_verdict() != v)
		fail_msg("%s / %s: expected %s, got %s", c->name, stmts, verdict_name(v),
			 verdict_name(st_verdict()));
	if (st_icmp_total() != 0)
		fail_msg("%s: an ICMP error counted", c->name);
	UNIT_POOL_FULL();
}

/* Run the input of case name modified by mod, expect the drop reason v. */
static void
expect_drop_mod(const char *name, void (*mod)(uint8_t *ip), const char *extra, unsigned int v)
{
	const struct golden_tx *c = tx_case(name);

	expect_drop_in(c->stmts, extra, c, mod, v);
}

static void
ip4_no_df(uint8_t *ip)
{
	unit_put16(ip + 6, 0);
	unit_ip4_cksum_fix(ip);
}

/* The inner protocol becomes ICMP of the given type (the rest is not ICMP). */
static void
ip4_as_icmp(uint8_t *ip, uint8_t type)
{
	ip[9] = IPPROTO_ICMP;
	ip[20] = type;
	unit_ip4_cksum_fix(ip);
}

#define IP4_ICMP_MOD(name, type) \
	static void name(uint8_t *ip) { ip4_as_icmp(ip, type); }
IP4_ICMP_MOD(ip4_icmp_unreach, 3)
IP4_ICMP_MOD(ip4_icmp_redirect, 5)
IP4_ICMP_MOD(ip4_icmp_time_exceeded, 11)
IP4_ICMP_MOD(ip4_icmp_param_problem, 12)
IP4_ICMP_MOD(ip4_icmp_type1, 1)
IP4_ICMP_MOD(ip4_icmp_type9, 9)
IP4_ICMP_MOD(ip4_icmp_type19, 19)
IP4_ICMP_MOD(ip4_icmp_type255, 255)
IP4_ICMP_MOD(ip4_icmp_timestamp, 13)
IP4_ICMP_MOD(ip4_icmp_mask_reply, 18)

static void
ip4_later_fragment(uint8_t *ip)
{
	unit_put16(ip + 6, 0x4000 | 0x2000 | 1);	/* DF, MF, offset 8 */
	unit_ip4_cksum_fix(ip);
}

static void
ip4_last_fragment(uint8_t *ip)
{
	unit_put16(ip + 6, 0x4000 | 185);
	unit_ip4_cksum_fix(ip);
}

static void
ip6_icmp6_error(uint8_t *ip)
{
	ip[6] = IPPROTO_ICMPV6;
	ip[40] = 1;	/* destination unreachable */
}

static void
ip6_icmp6_ptb(uint8_t *ip)
{
	ip[6] = IPPROTO_ICMPV6;
	ip[40] = 2;
}

/* Where the inner IPv4 packet of a frame the gateway sent starts. */
static uint32_t
frag_inner_off(const uint8_t *b, bool plain)
{
	uint32_t off = ETH;
	uint16_t flags;
	uint8_t proto;

	if (plain)
		return off;
	proto = b[off + 9];
	off += (b[off] & 0xfu) * 4;
	if (proto == IPPROTO_UDP) {
		off += 8;
		if (unit_get16(b + off - 6) != PORT_GRE)
			return off;
		proto = IPPROTO_GRE;
	}
	if (proto == IPPROTO_GRE) {
		flags = unit_get16(b + off);
		off += 4 + 4 * (!!(flags & 0x8000) + !!(flags & 0x2000) + !!(flags & 0x1000));
	}
	return off;
}

/*
 * Too big without DF: fragmented to the MTU of the device it leaves by
 * (the tunnel's, the port's: what "fragmentation needed" reports with DF)
 * as ip_fragment does, each fragment encapsulated on its own: the ID and
 * the forwarded TTL of the packet, offsets in 8-byte units, MF on all but
 * the last, DF clear, each within the MTU with a right header checksum, and
 * together the packet's payload.
 */
static void
test_mtu_no_df(void **state)
{
	static const char *const names[] = {
		"mtu_ipip_fou_frag_needed", "mtu_ipip_none_frag_needed",
		"mtu_gre_fou_kcs_frag_needed", "mtu_gre_none_frag_needed",
		"mtu_plain_frag_needed",
	};
	uint8_t b[UNIT_PKT_MAX];
	unsigned int i, k, n;

	(void)state;
	for (i = 0; i < RTE_DIM(names); i++) {
		const struct golden_tx *c = tx_case(names[i]);
		const uint8_t *in = b + ETH;
		const uint32_t in_hl = (c->in[ETH] & 0xfu) * 4;
		const uint32_t in_tot = unit_get16(c->in + ETH + 2);
		const uint16_t mtu = unit_get16(c->out + ETH + 20 + 6);
		const bool plain = strstr(c->name, "plain") != NULL;
		uint32_t at = 0;

		assert_int_equal(c->out[ETH + 20], 3);
		assert_int_equal(c->out[ETH + 21], 4);
		tx_gw(c->stmts);
		memcpy(b, c->in, c->in_len);
		ip4_no_df(b + ETH);
		unit_lcore_begin(&ul, cur_gw, 0);
		n = run_copies(cur_gw, b, c->in_len, 1);
		if (n < 2 || ul.st.frag_packets != 1 || ul.st.frag_fragments != n)
			fail_msg("%s: %u frames sent, %" PRIu64 " packets fragmented into %" PRIu64,
				 c->name, n, ul.st.frag_packets, ul.st.frag_fragments);
		for (k = 0; k < n; k++) {
			const uint8_t *ip = got[k].b + frag_inner_off(got[k].b, plain);
			const uint32_t hl = (ip[0] & 0xfu) * 4, tot = unit_get16(ip + 2);
			const uint16_t fo = unit_get16(ip + 6);

			if (!plain)
				check_cksums(got[k].b, got[k].len, c->name);
			if (tot > mtu || hl != in_hl || !unit_cksum_ok(ip, hl) ||
			    unit_get16(ip + 4) != unit_get16(in + 4) || ip[8] != in[8] - 1 ||
			    (fo & 0x1fffu) * 8 != at || !(fo & 0x2000) != (k == n - 1) ||
			    (fo & 0xc000) != 0 || (k < n - 1 && (tot - hl) % 8 != 0) ||
			    memcmp(ip + hl, in + in_hl + at, tot - hl) != 0)
				fail_msg("%s: fragment %u of %u (MTU %u): len %u, id 0x%04x, "
					 "flags/offset 0x%04x, ttl %u, at %u", c->name, k, n, mtu,
					 tot, unit_get16(ip + 4), fo, ip[8], at);
			at += tot - hl;
		}
		if (at != in_tot - in_hl)
			fail_msg("%s: fragments carry %u bytes of %u", c->name, at, in_tot - in_hl);
		UNIT_POOL_FULL();
	}
}

/* No ICMP error about an ICMP error or about a fragment other than the first. */
static void
test_icmp_not_about(void **state)
{
	(void)state;
	expect_drop_mod("mtu_ipip_fou_frag_needed", ip4_icmp_unreach, NULL,
			FOU_DROP_MTU_EXCEEDED);
	expect_drop_mod("mtu_ipip_fou_frag_needed", ip4_icmp_redirect, NULL,
			FOU_DROP_MTU_EXCEEDED);
	expect_drop_mod("mtu_ipip_fou_frag_needed", ip4_icmp_param_problem, NULL,
			FOU_DROP_MTU_EXCEEDED);
	expect_drop_mod("mtu_plain_frag_needed", ip4_icmp_time_exceeded, NULL,
			FOU_DROP_MTU_EXCEEDED);
	expect_drop_mod("mtu_ipip_fou_frag_needed", ip4_later_fragment, NULL,
			FOU_DROP_MTU_EXCEEDED);
	expect_drop_mod("mtu_ipip_fou_frag_needed", ip4_last_fragment, NULL,
			FOU_DROP_MTU_EXCEEDED);
	expect_drop_mod("ttl1_time_exceeded", ip4_icmp_unreach, NULL, FOU_DROP_TTL_EXCEEDED);
	expect_drop_mod("ttl1_plain_time_exceeded", ip4_icmp_time_exceeded, NULL,
			FOU_DROP_TTL_EXCEEDED);
	expect_drop_mod("ttl1_time_exceeded", ip4_later_fragment, NULL, FOU_DROP_TTL_EXCEEDED);
	expect_drop_mod("mtu6_sit_pkt_too_big", ip6_icmp6_error, NULL, FOU_DROP_MTU_EXCEEDED);
	expect_drop_mod("mtu6_plain_pkt_too_big", ip6_icmp6_ptb, NULL, FOU_DROP_MTU_EXCEEDED);
	expect_drop_mod("hlim1_time_exceeded", ip6_icmp6_error, NULL, FOU_DROP_TTL_EXCEEDED);
	/* Linux takes unassigned types below 13 and every type above 18 for
	 * errors (icmp_pointers[].error) */
	expect_drop_mod("mtu_ipip_fou_frag_needed", ip4_icmp_type1, NULL, FOU_DROP_MTU_EXCEEDED);
	expect_drop_mod("ttl1_time_exceeded", ip4_icmp_type9, NULL, FOU_DROP_TTL_EXCEEDED);
	expect_drop_mod("noroute4", ip4_icmp_type19, NULL, FOU_DROP_NO_ROUTE);
	expect_drop_mod("noroute4", ip4_icmp_type255, NULL, FOU_DROP_NO_ROUTE);
	/* nor an unreachable or a parameter problem */
	expect_drop_mod("noroute4", ip4_icmp_unreach, NULL, FOU_DROP_NO_ROUTE);
	expect_drop_mod("noroute4", ip4_icmp_param_problem, NULL, FOU_DROP_NO_ROUTE);
	expect_drop_mod("noroute4", ip4_later_fragment, NULL, FOU_DROP_NO_ROUTE);
	expect_drop_mod("noroute6", ip6_icmp6_error, NULL, FOU_DROP_NO_ROUTE);
	expect_drop_mod("noroute6", ip6_icmp6_ptb, NULL, FOU_DROP_NO_ROUTE);
}

/* The first fragment and ICMP informational messages do get an error. */
static void
test_icmp_about(void **state)
{
	const struct golden_tx *c = tx_case("mtu_ipip_fou_frag_needed");
	struct fou_gw *gw = tx_gw(c->stmts);
	uint8_t b[UNIT_PKT_MAX];
	static void (*const info[])(uint8_t *ip) = { ip4_icmp_timestamp, ip4_icmp_mask_reply };
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(info); i++) {
		const struct golden_tx *n = tx_case("noroute4");

		gw = tx_gw(n->stmts);
		memcpy(b, n->in, n->in_len);
		info[i](b + ETH);
		unit_lcore_begin(&ul, gw, 0);
		assert_int_equal(run_copies(gw, b, n->in_len, 1), 1);
		assert_int_equal(ul.st.icmp_out[FOU_ICMP_NET_UNREACH], 1);
	}
	gw = tx_gw(c->stmts);
	memcpy(b, c->in, c->in_len);
	unit_put16(b + ETH + 6, 0x6000);	/* DF, MF, offset 0 */
	unit_ip4_cksum_fix(b + ETH);
	unit_lcore_begin(&ul, gw, 0);
	assert_int_equal(run_copies(gw, b, c->in_len, 1), 1);
	assert_int_equal(got[0].port, RX_PORT);
	assert_int_equal(ul.st.icmp_out[FOU_ICMP_FRAG_NEEDED], 1);
	/* the quote is the packet as it came */
	assert_memory_equal(got[0].b + ETH + 28, b + ETH, c->in_len - ETH);
	/* an ICMPv6 echo request too big: packet too big */
	c = tx_case("mtu6_sit_pkt_too_big");
	gw = tx_gw(c->stmts);
	memcpy(b, c->in, c->in_len);
	b[ETH + 6] = IPPROTO_ICMPV6;
	b[ETH + 40] = 128;
	unit_lcore_begin(&ul, gw, 0);
	assert_int_equal(run_copies(gw, b, c->in_len, 1), 1);
	assert_int_equal(ul.st.icmp_out[FOU_ICMP_PKT_TOO_BIG], 1);
	assert_int_equal(got[0].b[ETH + 40], 2);
	assert_int_equal(unit_get32(got[0].b + ETH + 44), 1372);
}

/* ICMP counters name the error sent. */
static void
test_icmp_counters(void **state)
{
	static const struct {
		const char *name;
		enum fou_icmp_kind kind;
	} cases[] = {
		{ "mtu_ipip_fou_frag_needed", FOU_ICMP_FRAG_NEEDED },
		{ "ttl1_time_exceeded", FOU_ICMP_TIME_EXCEEDED },
		{ "mtu6_sit_pkt_too_big", FOU_ICMP_PKT_TOO_BIG },
		{ "hlim1_time_exceeded", FOU_ICMP_TIME_EXCEEDED6 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		const struct golden_tx *c = tx_case(cases[i].name);
		struct fou_gw *gw = tx_gw(c->stmts);

		unit_lcore_begin(&ul, gw, 0);
		assert_int_equal(run_copies(gw, c->in, c->in_len, 1), 1);
		if (ul.st.icmp_out[cases[i].kind] != 1 || st_icmp_total() != 1)
			fail_msg("%s: %s not counted", c->name, fou_icmp_name(cases[i].kind));
		/* the caller counts tx */
		assert_int_equal(ul.st.tx[RX_PORT] + ul.st.tx[EG_PORT], 0);
	}
}

/*
 * Without a route back the drop reason stays; without the way back's
 * neighbour the error waits for it like any packet (Linux queues it in
 * the neighbour entry).
 */
static void
test_icmp_no_way_back(void **state)
{
	const struct golden_tx *c = tx_case("mtu_ipip_fou_frag_needed");
	struct fou_gw *gw = tx_gw("");
	uint8_t b[UNIT_PKT_MAX];
	struct unit_held h;
	char buf[INET6_ADDRSTRLEN];

	(void)state;
	fou_gw_free(gw);
	gw = cur_gw = unit_gw_std();
	UNIT_APPLY_LINES(gw, c->stmts);	/* no neighbour for 10.0.0.2 */
	unit_lcore_begin(&ul, gw, 0);
	assert_int_equal(run_copies(gw, c->in, c->in_len, 1), 0);
	assert_int_equal(st_verdict(), UNIT_HELD);
	assert_int_equal(ul.st.icmp_out[FOU_ICMP_FRAG_NEEDED], 1);
	assert_int_equal(unit_held_take(gw, &h, 1), 1);
	fou_ip_str(&h.neigh, buf, sizeof(buf));
	assert_string_equal(buf, "10.0.0.2");
	assert_int_equal(h.f.port, RX_PORT);
	/* the held frame is the golden error, with a destination to fill in */
	assert_int_equal(h.f.len, c->out_len);
	assert_memory_equal(h.f.b + 6, c->out + 6, c->out_len - 6);
	/* a sender without a route */
	memcpy(b, c->in, c->in_len);
	unit_put32(b + ETH + 12, IP4(10, 99, 0, 2));
	unit_ip4_cksum_fix(b + ETH);
	UNIT_APPLY(gw, "neigh", "10.0.0.2,dev=0,lladdr=02:00:00:00:00:02");
	unit_lcore_begin(&ul, gw, 0);
	assert_int_equal(run_copies(gw, b, c->in_len, 1), 0);
	assert_int_equal(ul.st.drop[FOU_DROP_MTU_EXCEEDED], 1);
}

/*
 * The source of an ICMP error that leaves through a tunnel: the tunnel's
 * address of the family (the golden cases *_via_tunnel_*); without one,
 * for IPv4 the tunnel's local, for IPv6 the egress port's address. in:
 * the golden case whose input runs, off: where the error starts in what
 * leaves (after the outer headers). Returns the error's source.
 */
static const uint8_t *
tunnel_error_src(const struct fou_gw *gw, const char *in, uint32_t off)
{
	const struct golden_tx *c = tx_case(in);
	bool v6 = unit_get16(c->in + 12) == RTE_ETHER_TYPE_IPV6;

	unit_lcore_begin(&ul, gw, 0);
	if (run_copies(gw, c->in, c->in_len, 1) != 1)
		fail_msg("%s: not sent (%s)", in, fou_drop_name(st_verdict()));
	assert_int_equal(got[0].port, EG_PORT);
	assert_int_equal(st_icmp_total(), 1);
	assert_int_equal(unit_get32(got[0].b + ETH + 16), IP4(10, 20, 0, 9));
	return got[0].b + off + (v6 ? 8 : 12);
}

static void
test_icmp_src_tunnel(void **state)
{
	static const char gre[] =
		"tunnel g1,type=gre,local=192.168.1.1,remote=10.20.0.9,encap-dport=5556\n";
	uint8_t a6[16];
	struct fou_gw *gw;

	(void)state;
	/* no address of its own: its local, as before */
	gw = tx_gw("tunnel t1,type=ipip,local=192.168.1.1,remote=10.20.0.9,encap-dport=5555\n"
		   "route 192.168.45.0/24,dev=t1");
	assert_int_equal(unit_get32(tunnel_error_src(gw, "ttl1_error_via_tunnel_net", ETH + 28)),
			 IP4(192, 168, 1, 1));
	/* one added and deleted under it */
	UNIT_DEL(gw, "route", "192.168.45.0/24");
	UNIT_APPLY(gw, "addr", "t1,192.168.45.1/24");
	assert_int_equal(unit_get32(tunnel_error_src(gw, "ttl1_error_via_tunnel_net", ETH + 28)),
			 IP4(192, 168, 45, 1));
	UNIT_DEL(gw, "addr", "t1,192.168.45.1/24");
	UNIT_APPLY(gw, "route", "192.168.45.0/24,dev=t1");
	assert_int_equal(unit_get32(tunnel_error_src(gw, "ttl1_error_via_tunnel_net", ETH + 28)),
			 IP4(192, 168, 1, 1));

	/* gre: an address of the other family is not one of this family */
	gw = tx_gw(gre);
	UNIT_APPLY_LINES(gw, "addr g1,fd00:44::1/64\nroute 192.168.45.0/24,dev=g1");
	assert_int_equal(unit_get32(tunnel_error_src(gw, "ttl1_error_via_tunnel_net",
						     ETH + 28 + 4)), IP4(192, 168, 1, 1));
	gw = tx_gw(gre);
	UNIT_APPLY_LINES(gw, "addr g1,192.168.44.1/30\nroute fd00:44::/64,dev=g1");
	inet_pton(AF_INET6, "fd00:1::1", a6);	/* port 1's, where the tunnel leaves */
	assert_memory_equal(tunnel_error_src(gw, "hlim1_error_via_tunnel_net6", ETH + 28 + 4),
			    a6, 16);
	UNIT_DEL(gw, "route", "fd00:44::/64");
	UNIT_APPLY(gw, "addr", "g1,fd00:44::1/64");
	inet_pton(AF_INET6, "fd00:44::1", a6);
	assert_memory_equal(tunnel_error_src(gw, "hlim1_error_via_tunnel_net6", ETH + 28 + 4),
			    a6, 16);
	UNIT_POOL_FULL();
}

/*
 * icmp-rate 1,burst=2: the bucket starts full, so of three errors in a row
 * two are sent and one is counted as icmp_ratelimited (no refill in the
 * microseconds this takes at 1 per second).
 */
static void
test_icmp_ratelimit(void **state)
{
	static const char *const names[] = { "mtu_ipip_fou_frag_needed", "ttl1_time_exceeded",
					     "mtu6_sit_pkt_too_big", "hlim1_time_exceeded",
					     "noroute4", "noroute6", "local_port_unreach4",
					     "local_port_unreach6", "local_proto_unreach4",
					     "local_param_problem6" };
	unsigned int i, k;

	(void)state;
	for (i = 0; i < RTE_DIM(names); i++) {
		const struct golden_tx *c = tx_case(names[i]);
		struct fou_gw *gw = tx_gw("icmp-rate 1,burst=2\n");

		UNIT_APPLY_LINES(gw, c->stmts);
		unit_lcore_begin(&ul, gw, 0);
		assert_int_equal(run_copies(gw, c->in, c->in_len, 3), 2);
		for (k = 0; k < 2; k++)
			compare_out_id(c, &got[k], 0, 0, (uint16_t)k);
		if (ul.st.drop[FOU_DROP_ICMP_RATELIMITED] != 1 || st_icmp_total() != 2 ||
		    fou_stats_drops(&ul.st) != 1)
			fail_msg("%s: %" PRIu64 " sent, %" PRIu64 " rate-limited", c->name,
				 st_icmp_total(), ul.st.drop[FOU_DROP_ICMP_RATELIMITED]);
		/* and separately over bursts: the bucket is per lcore, not per burst */
		unit_lcore_begin(&ul, gw, 0);
		for (k = 0; k < 3; k++)
			assert_int_equal(run_copies(gw, c->in, c->in_len, 1), k < 2 ? 1 : 0);
		assert_int_equal(ul.st.drop[FOU_DROP_ICMP_RATELIMITED], 1);
	}
	/* burst 1 */
	{
		const struct golden_tx *c = tx_case("mtu_ipip_fou_frag_needed");
		struct fou_gw *gw = tx_gw("icmp-rate 1000,burst=1\n");

		UNIT_APPLY_LINES(gw, c->stmts);
		unit_lcore_begin(&ul, gw, 0);
		assert_int_equal(run_copies(gw, c->in, c->in_len, 2), 1);
		assert_int_equal(ul.st.drop[FOU_DROP_ICMP_RATELIMITED], 1);
	}
	UNIT_POOL_FULL();
}

/* icmp-rate 0: no errors at all; the packets keep their drop reason. */
static void
test_icmp_rate_zero(void **state)
{
	(void)state;
	expect_drop_mod("mtu_ipip_fou_frag_needed", NULL, "icmp-rate 0\n", FOU_DROP_MTU_EXCEEDED);
	expect_drop_mod("mtu_plain_frag_needed", NULL, "icmp-rate 0\n", FOU_DROP_MTU_EXCEEDED);
	expect_drop_mod("ttl1_time_exceeded", NULL, "icmp-rate 0\n", FOU_DROP_TTL_EXCEEDED);
	expect_drop_mod("mtu6_sit_pkt_too_big", NULL, "icmp-rate 0\n", FOU_DROP_MTU_EXCEEDED);
	expect_drop_mod("hlim1_time_exceeded", NULL, "icmp-rate 0\n", FOU_DROP_TTL_EXCEEDED);
	expect_drop_mod("noroute4", NULL, "icmp-rate 0\n", FOU_DROP_NO_ROUTE);
	expect_drop_mod("noroute6", NULL, "icmp-rate 0\n", FOU_DROP_NO_ROUTE);
	expect_drop_mod("noroute4_decap", NULL, "icmp-rate 0\n", FOU_DROP_NO_ROUTE);
	expect_drop_mod("local_port_unreach4", NULL, "icmp-rate 0\n", FOU_DROP_FOU_PORT_UNKNOWN);
	expect_drop_mod("local_port_unreach6", NULL, "icmp-rate 0\n", FOU_DROP_LOCAL_IPV6);
	expect_drop_mod("local_port_unreach4_decap", NULL, "icmp-rate 0\n",
			FOU_DROP_INNER_LOCAL);
	expect_drop_mod("local_proto_unreach4", NULL, "icmp-rate 0\n", FOU_DROP_LOCAL_NOT_UDP);
	expect_drop_mod("local_param_problem6", NULL, "icmp-rate 0\n", FOU_DROP_LOCAL_IPV6);
}

/*
 * IPv6 through a tunnel whose MTU is below 1280: ip6_forward never reports
 * less than the IPv6 minimum MTU.
 */
static void
test_mtu6_min(void **state)
{
	const struct golden_tx *c = tx_case("mtu6_sit_pkt_too_big");
	struct fou_gw *gw = tx_gw("link 1,mtu=1300\ntunnel t1,type=sit,local=192.168.1.1,"
				  "remote=10.20.0.9,encap-dport=5557\n"
				  "route fd00:50::/32,dev=t1");
	uint8_t b[UNIT_PKT_MAX];
	uint32_t len = ETH + 1281;

	(void)state;
	memcpy(b, c->in, len);
	unit_put16(b + ETH + 4, 1281 - 40);
	unit_lcore_begin(&ul, gw, 0);
	assert_int_equal(run_copies(gw, b, len, 1), 1);
	assert_int_equal(got[0].port, RX_PORT);
	assert_int_equal(got[0].b[ETH + 40], 2);
	assert_int_equal(unit_get32(got[0].b + ETH + 44), 1280);
}

/* Write the UDP checksum of the IPv6 packet at ip (UDP right after the header). */
static void
udp6_cksum_fix(uint8_t *ip)
{
	uint16_t plen = unit_get16(ip + 4), ck;

	unit_put16(ip + 40 + 6, 0);
	ck = (uint16_t)~rfc1071_fold(rfc1071_sum(ip + 40, plen, rfc1071_sum(ip + 8, 32, 0) +
						 IPPROTO_UDP + plen));
	unit_put16(ip + 40 + 6, ck == 0 ? 0xffff : ck);
}

/*
 * IPv6 to one of our addresses, or to a group: not forwarded. UDP to us is
 * answered with a port unreachable, and no route with a no route, both
 * back to fd00::2.
 */
static void
test_ipv6_local_mcast(void **state)
{
	static const struct {
		const char *dst;
		unsigned int verdict;	/* UNIT_FWD: the ICMPv6 error kind is sent */
		enum fou_icmp_kind kind;
	} cases[] = {
		{ "fd00::1", UNIT_FWD, FOU_ICMP_PORT_UNREACH6 },
		{ "fd00:1::1", UNIT_FWD, FOU_ICMP_PORT_UNREACH6 },	/* the other port's */
		{ "ff02::1", FOU_DROP_BCAST_MCAST, 0 },
		{ "ff0e::101", FOU_DROP_BCAST_MCAST, 0 },
		{ "fd00:99::1", UNIT_FWD, FOU_ICMP_NOROUTE6 },
		/* on link, not known yet: waits for Neighbour Discovery */
		{ "fd00:1::9", UNIT_HELD, 0 },
	};
	const struct golden_tx *c = tx_case("tx_sit_fou");
	uint8_t b[UNIT_PKT_MAX];
	struct unit_held h;
	unsigned int i;

	(void)state;
	tx_gw(c->stmts);
	for (i = 0; i < RTE_DIM(cases); i++) {
		uint16_t n;

		memcpy(b, c->in, c->in_len);
		assert_int_equal(inet_pton(AF_INET6, cases[i].dst, b + ETH + 24), 1);
		udp6_cksum_fix(b + ETH);
		unit_lcore_begin(&ul, cur_gw, 0);
		n = run_copies(cur_gw, b, c->in_len, 1);
		if (n != (cases[i].verdict == UNIT_FWD) || st_verdict() != cases[i].verdict)
			fail_msg("IPv6 to %s: expected %s, got %s", cases[i].dst,
				 cases[i].verdict == UNIT_FWD ? "an ICMPv6 error" :
				 verdict_name(cases[i].verdict), verdict_name(st_verdict()));
		if (n == 1 && (ul.st.icmp_out[cases[i].kind] != 1 || got[0].port != RX_PORT ||
			       got[0].b[ETH + 40] != 1))
			fail_msg("IPv6 to %s: not %s back to fd00::2", cases[i].dst,
				 fou_icmp_name(cases[i].kind));
		if (cases[i].verdict == UNIT_HELD) {
			take_held(cur_gw, cases[i].dst, cases[i].dst, &h);
			/* routed as it is, hop limit one less, to no MAC yet */
			assert_int_equal(h.f.len, c->in_len);
			assert_memory_equal(h.f.b, mac_zero.addr_bytes, 6);
			assert_memory_equal(h.f.b + 6, mac_eg.addr_bytes, 6);
			assert_int_equal(h.f.b[ETH + 7], b[ETH + 7] - 1);
			assert_memory_equal(h.f.b + ETH + 8, b + ETH + 8, 32);
		}
	}
	UNIT_POOL_FULL();
}

/* --- tunnel resolution ----------------------------------------------------- */

static void
expect_tun_drop(const char *stmts, const char *name, unsigned int v)
{
	expect_drop_in(stmts, NULL, tx_case(name), NULL, v);
}

/*
 * The remote's next hop neigh has no neighbour entry: the packet is
 * encapsulated as ever (the golden frame of name, to the remote) and held
 * with a zero destination MAC until neigh answers.
 */
static void
expect_tun_held(const char *stmts, const char *name, uint32_t remote, const char *neigh)
{
	const struct golden_tx *c = tx_case(name);
	struct fou_gw *gw = tx_gw(stmts);
	struct golden_tx held = *c;
	uint8_t exp[UNIT_PKT_MAX];
	struct unit_held h;

	unit_lcore_begin(&ul, gw, 0);
	if (run_copies(gw, c->in, c->in_len, 1) != 0 || st_verdict() != UNIT_HELD)
		fail_msg("%s / %s: expected held, got %s", name, stmts, verdict_name(st_verdict()));
	take_held(gw, name, neigh, &h);
	memcpy(exp, c->out, c->out_len);
	memset(exp, 0, 6);
	unit_put32(exp + ETH + 16, remote);
	unit_ip4_cksum_fix(exp + ETH);
	held.out = exp;
	compare_out(&held, &h.f, SPORT_MIN, SPORT_MAX);
	UNIT_POOL_FULL();
}

static void
test_tunnel_resolution(void **state)
{
	(void)state;
	/* the remote has no route */
	expect_tun_drop("tunnel t1,type=ipip,local=192.168.1.1,remote=10.99.0.9,encap-dport=5555\n"
			"route 10.50.0.0/16,dev=t1", "tx_ipip_fou", FOU_DROP_NO_ROUTE);
	expect_tun_drop("tunnel t1,type=sit,local=192.168.1.1,remote=10.99.0.9,encap=none\n"
			"route fd00:50::/32,dev=t1", "tx_sit_none", FOU_DROP_NO_ROUTE);
	/* the remote is routed into a tunnel (itself, or another) */
	expect_tun_drop("tunnel t1,type=ipip,local=192.168.1.1,remote=10.50.0.9,encap-dport=5555\n"
			"route 10.50.0.0/16,dev=t1", "tx_ipip_fou", FOU_DROP_TUNNEL_LOOP);
	expect_tun_drop("tunnel t2,type=gre,local=192.168.1.1,remote=10.20.0.9,encap=none\n"
			"route 10.60.0.0/16,dev=t2\n"
			"tunnel t1,type=gre,local=10.0.0.1,remote=10.60.0.1,encap-dport=5556\n"
			"route 10.50.0.0/16,dev=t1", "tx_gre4_fou", FOU_DROP_TUNNEL_LOOP);
	/* the remote's next hop has no neighbour yet (via 192.168.1.3; on link .8) */
	expect_tun_held("tunnel t1,type=ipip,local=192.168.1.1,remote=10.21.0.9,encap-dport=5555\n"
			"route 10.50.0.0/16,dev=t1", "tx_ipip_fou", IP4(10, 21, 0, 9),
			"192.168.1.3");
	expect_tun_held("tunnel t1,type=gre,local=192.168.1.1,remote=192.168.1.8,encap=none\n"
			"route fd00:50::/32,dev=t1", "tx_gre6_none", IP4(192, 168, 1, 8),
			"192.168.1.8");
	/* a packet that would fit but has TTL 1 is answered before the tunnel is resolved */
	expect_tun_drop("tunnel t1,type=ipip,local=192.168.1.1,remote=10.99.0.9,encap-dport=5555\n"
			"route 10.50.0.0/16,dev=t1\nicmp-rate 0", "ttl1_time_exceeded",
			FOU_DROP_TTL_EXCEEDED);
}

/* The MTU and overhead fou_tunnel_list() reports (doc/datapath.md: 1472 and 1468). */
static void
test_tunnel_mtu_list(void **state)
{
	static const struct {
		const char *opts;
		uint16_t overhead, mtu;
	} cases[] = {
		{ "type=ipip,encap-dport=5555", 28, 1472 },
		{ "type=sit,encap-dport=5557", 28, 1472 },
		{ "type=gre,encap-dport=5556", 32, 1468 },
		{ "type=gre,encap-dport=5556,key=1", 36, 1464 },
		{ "type=gre,encap-dport=5556,key=1,csum,seq", 44, 1456 },
		{ "type=ipip,encap=none", 20, 1480 },
		{ "type=gre,encap=none,seq", 28, 1472 },
	};
	struct fou_tunnel_info ti[2];
	char stmt[200];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct fou_gw *gw = tx_gw("");

		snprintf(stmt, sizeof(stmt), "t1,local=192.168.1.1,remote=10.20.0.9,%s",
			 cases[i].opts);
		UNIT_APPLY(gw, "tunnel", stmt);
		assert_int_equal(fou_tunnel_list(gw, ti, RTE_DIM(ti)), 1);
		unit_ctx("%s", stmt);
		assert_int_equal(ti[0].overhead, cases[i].overhead);
		assert_int_equal(ti[0].mtu, cases[i].mtu);
		UNIT_APPLY(gw, "link", "1,mtu=1000");
		assert_int_equal(fou_tunnel_list(gw, ti, RTE_DIM(ti)), 1);
		assert_int_equal(ti[0].mtu, 1000 - cases[i].overhead);
	}
	/* unresolved: 0 */
	{
		struct fou_gw *gw = tx_gw("tunnel t1,type=ipip,local=192.168.1.1,remote=10.99.0.9,"
					  "encap-dport=5555");

		assert_int_equal(fou_tunnel_list(gw, ti, RTE_DIM(ti)), 1);
		assert_int_equal(ti[0].mtu, 0);
	}
}

/* --- local delivery: what the gateway answers for its own addresses -------- */

/* Write the ICMP checksum of the IPv4 packet at ip (its IHL and length). */
static void
icmp4_cksum_fix(uint8_t *ip)
{
	uint32_t hl = (ip[0] & 0xfu) * 4, len = unit_get16(ip + 2) - hl;

	unit_put16(ip + hl + 2, 0);
	unit_put16(ip + hl + 2, (uint16_t)~rfc1071_fold(rfc1071_sum(ip + hl, len, 0)));
}

/* The same for the ICMPv6 message of the IPv6 packet at ip. */
static void
icmp6_cksum_fix(uint8_t *ip)
{
	uint16_t plen = unit_get16(ip + 4);

	unit_put16(ip + 42, 0);
	unit_put16(ip + 42, (uint16_t)~rfc1071_fold(rfc1071_sum(ip + 40, plen,
								rfc1071_sum(ip + 8, 32, 0) +
								IPPROTO_ICMPV6 + plen)));
}

/*
 * The input of case name, changed by mod (given the frame), on a fresh
 * context of a gateway with the case's statements and extra: sent as the
 * ICMP message kind on port out (v UNIT_FWD), or dropped as v with no
 * ICMP counted.
 */
static void
expect_local(const char *name, void (*mod)(uint8_t *b, uint32_t *len), const char *extra,
	     unsigned int v, enum fou_icmp_kind kind, uint16_t out, const char *what)
{
	const struct golden_tx *c = tx_case(name);
	struct fou_gw *gw = tx_gw(c->stmts);
	uint8_t b[UNIT_PKT_MAX];
	uint32_t len = c->in_len;
	uint16_t n;

	if (extra != NULL)
		UNIT_APPLY_LINES(gw, extra);
	memcpy(b, c->in, len);
	if (mod != NULL)
		mod(b, &len);
	unit_lcore_begin(&ul, gw, 0);
	n = run_copies(gw, b, len, 1);
	if (v == UNIT_FWD) {
		if (n != 1 || ul.st.icmp_out[kind] != 1 || st_icmp_total() != 1 ||
		    got[0].port != out)
			fail_msg("%s: %s expected on port %u, got %s", what, fou_icmp_name(kind), out,
				 n == 1 ? "another message" : fou_drop_name(st_verdict()));
		check_cksums(got[0].b, got[0].len, what);
	} else if (v == UNIT_HELD) {
		struct unit_held h;

		if (n != 0 || st_verdict() != v || ul.st.icmp_out[kind] != 1 ||
		    st_icmp_total() != 1 || unit_held_take(gw, &h, 1) != 1 || h.f.port != out)
			fail_msg("%s: %s expected to wait for a neighbour on port %u, got %s", what,
				 fou_icmp_name(kind), out,
				 n == 1 ? "sent" : verdict_name(st_verdict()));
	} else if (n != 0 || st_verdict() != v || st_icmp_total() != 0) {
		fail_msg("%s: expected %s, got %s", what, fou_drop_name(v),
			 n == 1 ? "sent" : fou_drop_name(st_verdict()));
	}
	UNIT_POOL_FULL();
}

static void
eth_broadcast(uint8_t *b, uint32_t *len)
{
	(void)len;
	memset(b, 0xff, 6);
}

static void
eth_multicast6(uint8_t *b, uint32_t *len)
{
	static const uint8_t mc[6] = { 0x33, 0x33, 0, 0, 0, 1 };

	(void)len;
	memcpy(b, mc, sizeof(mc));
}

/* icmp_send / icmp6_send answer no packet that came in a frame for every
 * host; an echo request in one is answered (icmp_echo looks at the IP
 * destination only). */
static void
test_local_group_frames(void **state)
{
	(void)state;
	expect_local("local_echo4", eth_broadcast, NULL, UNIT_FWD, FOU_ICMP_ECHO_REPLY, RX_PORT,
		     "echo in a broadcast frame");
	expect_local("local_echo6", eth_multicast6, NULL, UNIT_FWD, FOU_ICMP_ECHO6_REPLY, RX_PORT,
		     "ICMPv6 echo in a multicast frame");
	expect_local("local_port_unreach4", eth_broadcast, NULL, FOU_DROP_FOU_PORT_UNKNOWN, 0, 0,
		     "UDP in a broadcast frame");
	expect_local("local_proto_unreach4", eth_broadcast, NULL, FOU_DROP_LOCAL_NOT_UDP, 0, 0,
		     "protocol 99 in a broadcast frame");
	expect_local("local_port_unreach6", eth_multicast6, NULL, FOU_DROP_LOCAL_IPV6, 0, 0,
		     "IPv6 UDP in a multicast frame");
	expect_local("local_param_problem6", eth_multicast6, NULL, FOU_DROP_LOCAL_IPV6, 0, 0,
		     "IPv6 next header 99 in a multicast frame");
}

static void
icmp4_cksum_flip(uint8_t *b, uint32_t *len)
{
	(void)len;
	b[ETH + 20 + 2] ^= 0x10;
}

static void
icmp4_cut_to_4(uint8_t *b, uint32_t *len)
{
	unit_put16(b + ETH + 2, 24);
	unit_ip4_cksum_fix(b + ETH);
	*len = ETH + 24;
}

static void
icmp6_cksum_flip(uint8_t *b, uint32_t *len)
{
	(void)len;
	b[ETH + 40 + 7] ^= 0x01;
}

static void
inner_icmp_cksum_flip(uint8_t *b, uint32_t *len)
{
	(void)len;
	b[ETH + 20 + 8 + 20 + 2] ^= 0x10;
}

/* icmp_rcv / icmpv6_rcv: a wrong checksum or a short header is dropped. */
static void
test_local_icmp_bad(void **state)
{
	(void)state;
	expect_local("local_echo4", icmp4_cksum_flip, NULL, FOU_DROP_ICMP_BAD, 0, 0,
		     "echo, checksum wrong");
	expect_local("local_echo4", icmp4_cut_to_4, NULL, FOU_DROP_ICMP_BAD, 0, 0,
		     "ICMP of 4 bytes");
	expect_local("local_echo6", icmp6_cksum_flip, NULL, FOU_DROP_ICMP_BAD, 0, 0,
		     "ICMPv6 echo, checksum wrong");
	expect_local("local_echo4_via_tunnel", inner_icmp_cksum_flip, NULL, FOU_DROP_INNER_LOCAL,
		     0, 0, "inner echo, checksum wrong");
}

#define ICMP4_TYPE_MOD(name, type, code) \
	static void name(uint8_t *b, uint32_t *len) \
	{ \
		(void)len; \
		b[ETH + 20] = type; \
		b[ETH + 21] = code; \
		icmp4_cksum_fix(b + ETH); \
	}
ICMP4_TYPE_MOD(icmp4_frag_needed, 3, 4)
ICMP4_TYPE_MOD(icmp4_port_unreach, 3, 3)
ICMP4_TYPE_MOD(icmp4_echo_reply, 0, 0)
ICMP4_TYPE_MOD(icmp4_timestamp, 13, 0)

#define PROTO4_MOD(name, proto) \
	static void name(uint8_t *b, uint32_t *len) \
	{ \
		(void)len; \
		b[ETH + 9] = proto; \
		unit_ip4_cksum_fix(b + ETH); \
	}
PROTO4_MOD(proto4_tcp, IPPROTO_TCP)
PROTO4_MOD(proto4_igmp, IPPROTO_IGMP)
PROTO4_MOD(proto4_udplite, IPPROTO_UDPLITE)
PROTO4_MOD(proto4_zero, 0)

#define NH6_MOD(name, nh) \
	static void name(uint8_t *b, uint32_t *len) \
	{ \
		(void)len; \
		b[ETH + 6] = nh; \
	}
NH6_MOD(nh6_tcp, IPPROTO_TCP)
NH6_MOD(nh6_hopopts, IPPROTO_HOPOPTS)
NH6_MOD(nh6_routing, IPPROTO_ROUTING)
NH6_MOD(nh6_fragment, IPPROTO_FRAGMENT)
NH6_MOD(nh6_dstopts, IPPROTO_DSTOPTS)
NH6_MOD(nh6_none, IPPROTO_NONE)
NH6_MOD(nh6_gre, IPPROTO_GRE)

#define ICMP6_TYPE_MOD(name, type) \
	static void name(uint8_t *b, uint32_t *len) \
	{ \
		(void)len; \
		b[ETH + 40] = type; \
		icmp6_cksum_fix(b + ETH); \
	}
ICMP6_TYPE_MOD(icmp6_unreach, 1)
ICMP6_TYPE_MOD(icmp6_echo_reply, 129)

/* a Neighbour Solicitation to fd00::1, its checksum not even valid */
static void
icmp6_ns(uint8_t *b, uint32_t *len)
{
	(void)len;
	b[ETH + 40] = 135;
}

static void
udp6_zero_cksum(uint8_t *b, uint32_t *len)
{
	(void)len;
	unit_put16(b + ETH + 40 + 6, 0);
}

static void
udp4_zero_cksum(uint8_t *b, uint32_t *len)
{
	(void)len;
	unit_put16(b + ETH + 20 + 6, 0);
}

/* the inner datagram goes to FOU port 5557 (sit), as if nested */
static void
inner_udp_to_fou_port(uint8_t *b, uint32_t *len)
{
	(void)len;
	unit_put16(b + ETH + 20 + 8 + 20 + 2, PORT_SIT);
	unit_put16(b + ETH + 20 + 8 + 20 + 6, 0);
}

/*
 * What Linux takes without a word, or answers with what the gateway does
 * not send (a TCP reset), and where the other stages will hook in: nothing
 * is sent, each under its reason.
 */
static void
test_local_not_answered(void **state)
{
	(void)state;
	/* about no packet of a tunnel of ours: the path MTU code refuses it */
	expect_local("local_echo4", icmp4_frag_needed, NULL, FOU_DROP_PMTU_BAD, 0, 0,
		     "fragmentation needed to us");
	expect_local("local_echo4", icmp4_port_unreach, NULL, FOU_DROP_ICMP_LOCAL, 0, 0,
		     "port unreachable to us");
	expect_local("local_echo4", icmp4_echo_reply, NULL, FOU_DROP_ICMP_LOCAL, 0, 0,
		     "echo reply to us");
	expect_local("local_echo4", icmp4_timestamp, NULL, FOU_DROP_ICMP_LOCAL, 0, 0,
		     "timestamp request to us");
	expect_local("local_proto_unreach4", proto4_tcp, NULL, FOU_DROP_LOCAL_NOT_UDP, 0, 0,
		     "TCP to us");
	expect_local("local_proto_unreach4", proto4_igmp, NULL, FOU_DROP_LOCAL_NOT_UDP, 0, 0,
		     "IGMP to us");
	expect_local("local_proto_unreach4", proto4_udplite, NULL, FOU_DROP_LOCAL_NOT_UDP, 0, 0,
		     "UDP-Lite to us");
	expect_local("local_proto_unreach4", proto4_zero, NULL, UNIT_FWD, FOU_ICMP_PROTO_UNREACH,
		     RX_PORT, "protocol 0 to us");
	expect_local("local_param_problem6", nh6_tcp, NULL, FOU_DROP_LOCAL_IPV6, 0, 0,
		     "IPv6 TCP to us");
	expect_local("local_param_problem6", nh6_hopopts, NULL, FOU_DROP_IP6_EXTHDR_BAD, 0, 0,
		     "IPv6 hop-by-hop options to us (bytes 0, 1, 2, ...: an option past the header)");
	expect_local("local_param_problem6", nh6_routing, NULL, FOU_DROP_IP6_RTHDR, 0, 0,
		     "IPv6 routing header to us (3 segments left)");
	expect_local("local_param_problem6", nh6_fragment, NULL, FOU_DROP_IP6_FRAG, 0, 0,
		     "IPv6 fragment to us");
	expect_local("local_param_problem6", nh6_dstopts, NULL, FOU_DROP_IP6_EXTHDR_BAD, 0, 0,
		     "IPv6 destination options to us");
	expect_local("local_param_problem6", nh6_none, NULL, FOU_DROP_LOCAL_IPV6, 0, 0,
		     "IPv6 no next header to us");
	expect_local("local_param_problem6", nh6_gre, NULL, UNIT_FWD, FOU_ICMP_PARAM_PROB6,
		     RX_PORT, "IPv6 GRE to us (no IPv6 tunnels)");
	expect_local("local_echo6", icmp6_unreach, NULL, FOU_DROP_ICMP_LOCAL, 0, 0,
		     "ICMPv6 destination unreachable to us");
	expect_local("local_echo6", icmp6_echo_reply, NULL, FOU_DROP_ICMP_LOCAL, 0, 0,
		     "ICMPv6 echo reply to us");
	/* Neighbour Discovery's: this one's hop limit is not 255 */
	expect_local("local_echo6", icmp6_ns, NULL, FOU_DROP_ND_BAD, 0, 0,
		     "Neighbour Solicitation to us");
	expect_local("local_port_unreach6", udp6_zero_cksum, NULL, FOU_DROP_UDP_CKSUM_BAD, 0, 0,
		     "IPv6 UDP without a checksum");
	expect_local("local_port_unreach4", udp4_zero_cksum, NULL, UNIT_FWD,
		     FOU_ICMP_PORT_UNREACH, RX_PORT, "IPv4 UDP without a checksum");
	expect_local("local_port_unreach4_decap", inner_udp_to_fou_port, NULL,
		     FOU_DROP_INNER_LOCAL, 0, 0, "FOU inside FOU, not decapsulated twice");
}

static void
ip4_src_unrouted(uint8_t *b, uint32_t *len)
{
	(void)len;
	unit_put32(b + ETH + 12, IP4(10, 77, 0, 5));
	unit_ip4_cksum_fix(b + ETH);
}

/* the same for UDP, whose checksum covers the source: none */
static void
udp4_src_unrouted(uint8_t *b, uint32_t *len)
{
	ip4_src_unrouted(b, len);
	unit_put16(b + ETH + 20 + 6, 0);
}

/* to 10.0.0.1 (the ICMP checksum does not cover the addresses) */
static void
ip4_dst_gw(uint8_t *b, uint32_t *len)
{
	(void)len;
	unit_put32(b + ETH + 16, IP4(10, 0, 0, 1));
	unit_ip4_cksum_fix(b + ETH);
}

static void
ip4_src_no_neigh(uint8_t *b, uint32_t *len)
{
	(void)len;
	unit_put32(b + ETH + 12, IP4(10, 0, 0, 3));
	unit_ip4_cksum_fix(b + ETH);
}

/* A reply goes where a routed packet would, waits for its neighbour or is
 * dropped as one would be; an error about a packet it cannot route back
 * keeps the fallback. */
static void
test_local_no_way_back(void **state)
{
	(void)state;
	expect_local("local_echo4", ip4_src_unrouted, NULL, FOU_DROP_NO_ROUTE, 0, 0,
		     "echo from an unrouted source");
	expect_local("local_echo4", ip4_src_no_neigh, NULL, UNIT_HELD, FOU_ICMP_ECHO_REPLY, RX_PORT,
		     "echo from a source without a neighbour");
	expect_local("mtu_echo_frag_needed", ip4_dst_gw, "link 0,mtu=172\n", FOU_DROP_MTU_EXCEEDED,
		     0, 0, "echo reply of 173 bytes, way back MTU 172");
	expect_local("mtu_echo_frag_needed", ip4_dst_gw, "link 0,mtu=173\n", UNIT_FWD,
		     FOU_ICMP_ECHO_REPLY, RX_PORT, "echo reply of 173 bytes, way back MTU 173");
	expect_local("local_port_unreach4", udp4_src_unrouted, NULL, FOU_DROP_FOU_PORT_UNKNOWN, 0,
		     0, "UDP from an unrouted source");
	expect_local("local_proto_unreach4", ip4_src_no_neigh, NULL, UNIT_HELD,
		     FOU_ICMP_PROTO_UNREACH, RX_PORT,
		     "protocol 99 from a source without a neighbour");
	expect_local("noroute4", ip4_src_unrouted, NULL, FOU_DROP_NO_ROUTE, 0, 0,
		     "no route, from an unrouted source");
}

/*
 * Echo replies are not rate-limited (Linux' icmp_ratemask leaves them
 * out), also once the errors have used up the bucket, nor turned off by
 * icmp-rate 0.
 */
static void
test_local_echo_not_limited(void **state)
{
	const struct golden_tx *e = tx_case("local_echo4"), *u = tx_case("local_port_unreach4");
	const struct golden_tx *e6 = tx_case("local_echo6");
	struct fou_gw *gw = tx_gw("icmp-rate 1,burst=1\n");
	unsigned int k;

	(void)state;
	unit_lcore_begin(&ul, gw, 0);
	assert_int_equal(run_copies(gw, u->in, u->in_len, 2), 1);
	assert_int_equal(ul.st.drop[FOU_DROP_ICMP_RATELIMITED], 1);
	assert_int_equal(run_copies(gw, e->in, e->in_len, 8), 8);
	for (k = 0; k < 8; k++)
		compare_out_id(e, &got[k], 0, 0, (uint16_t)(1 + k));
	assert_int_equal(ul.st.icmp_out[FOU_ICMP_ECHO_REPLY], 8);
	gw = tx_gw("icmp-rate 0\n");
	unit_lcore_begin(&ul, gw, 0);
	assert_int_equal(run_copies(gw, e->in, e->in_len, 1), 1);
	compare_out(e, &got[0], 0, 0);
	assert_int_equal(run_copies(gw, e6->in, e6->in_len, 1), 1);
	compare_out(e6, &got[0], 0, 0);
	assert_int_equal(ul.st.icmp_out[FOU_ICMP_ECHO_REPLY] +
			 ul.st.icmp_out[FOU_ICMP_ECHO6_REPLY], 2);
}

/*
 * The message after the headers in other mbuf segments, cut at odd and
 * even offsets: the checksums over it and the quote are the same.
 */
static void
test_local_multiseg(void **state)
{
	static const char *const names[] = {
		"local_echo4", "local_echo4_tos_options", "local_echo6", "local_port_unreach4",
		"local_port_unreach6", "noroute4", "noroute6", "local_param_problem6",
	};
	static const uint32_t cuts[][3] = {
		{ 8 }, { 9 }, { 13 }, { 16 }, { 8, 9 }, { 9, 10, 11 }, { 10, 15, 20 },
	};
	unsigned int i, k, n;

	(void)state;
	for (i = 0; i < RTE_DIM(names); i++) {
		const struct golden_tx *c = tx_case(names[i]);
		struct fou_gw *gw = tx_gw(c->stmts);
		const uint8_t *ip = c->in + ETH;
		/* past the IP header and the 8 bytes of ICMP or UDP header */
		uint32_t hdr = ETH + ((ip[0] >> 4) == 4 ? (ip[0] & 0xfu) * 4 : 40);

		for (k = 0; k < RTE_DIM(cuts); k++) {
			uint32_t at[3];
			struct rte_mbuf *m;

			for (n = 0; n < 3 && cuts[k][n] != 0 && hdr + cuts[k][n] < c->in_len; n++)
				at[n] = hdr + cuts[k][n];
			m = split(c, at, n);
			unit_lcore_begin(&ul, gw, 0);
			unit_ctx("%s, cut %u bytes into the payload (%u cuts)", c->name, cuts[k][0],
				 n);
			if (unit_burst(&ul, &m, 1, got) != 1)
				fail_msg("%s cut at +%u (%u cuts): counted as %s", c->name, cuts[k][0],
					 n, fou_drop_name(st_verdict()));
			compare_out(c, &got[0], SPORT_MIN, SPORT_MAX);
		}
		UNIT_POOL_FULL();
	}
}

/* --- plain (encap none) tunnel protocols to a local address ---------------- */

/* The plain tunnel packet b (from 10.0.0.2 to 10.0.0.1) is answered with a
 * protocol unreachable quoting it, as ip_local_deliver_finish sends it. */
static void
expect_proto_unreach(const struct fou_gw *gw, const uint8_t *b, uint32_t len)
{
	const uint8_t *o = got[0].b + ETH;

	assert_int_equal(run_copies(gw, b, len, 1), 1);
	assert_int_equal(ul.st.icmp_out[FOU_ICMP_PROTO_UNREACH], 1);
	assert_int_equal(st_icmp_total(), 1);
	assert_int_equal(got[0].port, RX_PORT);
	assert_int_equal(unit_get32(o + 12), IP4(10, 0, 0, 1));
	assert_int_equal(unit_get32(o + 16), IP4(10, 0, 0, 2));
	assert_int_equal(o[20], 3);
	assert_int_equal(o[21], 2);
	assert_int_equal(got[0].len, ETH + 28 + RTE_MIN(len - ETH, 548u));
	assert_memory_equal(o + 28, b + ETH, got[0].len - ETH - 28);
	check_cksums(got[0].b, got[0].len, "protocol unreachable");
}

static void
test_plain_decap(void **state)
{
	static const struct {
		const uint8_t *in;
		uint32_t len;
		const char *type;
		const uint8_t *out;
		uint32_t out_len;
		enum fou_inner inner;
		const char *key;	/* the tunnel's GRE key option, as the packet's */
	} cases[] = {
		{ g_plain_ipip, sizeof(g_plain_ipip), "ipip", g_plain_out4, sizeof(g_plain_out4),
		  FOU_INNER_IPV4, "" },
		{ g_plain_sit, sizeof(g_plain_sit), "sit", g_plain_out6, sizeof(g_plain_out6),
		  FOU_INNER_IPV6, "" },
		{ g_plain_gre4, sizeof(g_plain_gre4), "gre", g_plain_out4, sizeof(g_plain_out4),
		  FOU_INNER_IPV4, ",key=7" },
		{ g_plain_gre6, sizeof(g_plain_gre6), "gre", g_plain_out6, sizeof(g_plain_out6),
		  FOU_INNER_IPV6, "" },
	};
	static const char *const types[] = { "ipip", "sit", "gre" };
	char stmt[200];
	unsigned int i, t;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		for (t = 0; t < RTE_DIM(types); t++) {
			struct fou_gw *gw = tx_gw("");
			bool match = strcmp(types[t], cases[i].type) == 0;

			/* a FOU tunnel of the type does not open the plain protocol:
			 * the protocol has no handler, and 10.0.0.2 is told so */
			snprintf(stmt, sizeof(stmt),
				 "t0,type=%s,local=10.0.0.1,remote=10.0.0.3,encap-dport=1",
				 types[t]);
			UNIT_APPLY(gw, "tunnel", stmt);
			unit_lcore_begin(&ul, gw, 0);
			expect_proto_unreach(gw, cases[i].in, cases[i].len);

			snprintf(stmt, sizeof(stmt),
				 "t1,type=%s,local=10.0.0.1,remote=10.0.0.2,encap=none%s", types[t],
				 match ? cases[i].key : "");
			UNIT_APPLY(gw, "tunnel", stmt);
			unit_lcore_begin(&ul, gw, 0);
			unit_ctx("%s packet, %s tunnel", cases[i].type, types[t]);
			if (!match) {
				expect_proto_unreach(gw, cases[i].in, cases[i].len);
			} else {
				assert_int_equal(run_copies(gw, cases[i].in, cases[i].len, 1), 1);
				assert_int_equal(got[0].len, cases[i].out_len);
				assert_memory_equal(got[0].b, cases[i].out, cases[i].out_len);
				assert_int_equal(got[0].port, EG_PORT);
				assert_int_equal(ul.st.decap[0], 1);
				assert_int_equal(ul.st.decap_inner[cases[i].inner], 1);
				assert_int_equal(fou_stats_drops(&ul.st), 0);
			}
		}
	}
	UNIT_POOL_FULL();
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_tx_golden_cksums),
		T(test_tx_linux_gue),
		T(test_tx_linux_ip6tnl),
		T(test_tx_linux_ip6tnl_offload),
		T(test_tx_golden),
		T(test_rx_tun6_golden),
		T(test_tx_multiseg),
		T(test_tx_offload),
		T(test_tx_sport_flows),
		T(test_tx_sport_segmented),
		T(test_tx_sport_range),
		T(test_tx_ip_id),
		T(test_tx_gre_seq),
		T(test_mtu_no_df),
		T(test_icmp_not_about),
		T(test_icmp_about),
		T(test_icmp_counters),
		T(test_icmp_no_way_back),
		T(test_icmp_src_tunnel),
		T(test_icmp_ratelimit),
		T(test_icmp_rate_zero),
		T(test_mtu6_min),
		T(test_local_group_frames),
		T(test_local_icmp_bad),
		T(test_local_not_answered),
		T(test_local_no_way_back),
		T(test_local_echo_not_limited),
		T(test_local_multiseg),
		T(test_ipv6_local_mcast),
		T(test_tunnel_resolution),
		T(test_tunnel_mtu_list),
		T(test_plain_decap),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("encap", tests, NULL, NULL);
	return unit_eal_fini(failures);
}
