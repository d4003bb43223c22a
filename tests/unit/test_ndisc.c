/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 Neighbour Discovery on port 1 of the standard topology (fd00:1::1,
 * link-local fe80::ff:fe00:101): solicitations answered byte for byte
 * (golden frames from scapy), every invalid message dropped as nd_bad
 * (RFC 4861 7.1), what the workers tell the control thread, and the
 * control thread resolving a neighbour and updating it as Linux'
 * ndisc_recv_na / neigh_update do.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_ring.h>

#define GOLDEN_ND
#include "golden.h"
#include "unit.h"
#include "fou_private.h"

#define ETH 14
#define IP6 40
/* offsets in an untagged ND frame */
#define O_PLEN (ETH + 4)
#define O_HLIM (ETH + 7)
#define O_SRC (ETH + 8)
#define O_DST (ETH + 24)
#define O_ICMP (ETH + IP6)
#define O_CODE (O_ICMP + 1)
#define O_FLAGS (O_ICMP + 4)
#define O_TARGET (O_ICMP + 8)
#define O_OPT (O_ICMP + 24)

static const struct rte_ether_addr mac_nb = { { 0x02, 0, 0, 0, 0x01, 0x09 } };
static const struct rte_ether_addr mac_nb2 = { { 0x02, 0, 0, 0, 0x01, 0x0a } };

static struct fou_gw *gw;

static int
setup_std(void **state)
{
	(void)state;
	gw = unit_gw_std();
	return 0;
}

/* The control context of a test that has one (freed after its worker). */
static struct fou_lcore *ctl_lc;

static int
teardown_std(void **state)
{
	int ret;

	unit_lcore_end_all();
	if (ctl_lc != NULL) {
		fou_neigh_stop(gw);
		fou_lcore_free(ctl_lc);
		ctl_lc = NULL;
	}
	ret = unit_test_teardown_gw(state, gw);

	gw = NULL;
	return ret;
}

static void
ip6(const char *s, uint8_t *a)
{
	assert_int_equal(inet_pton(AF_INET6, s, a), 1);
}

/* The ICMPv6 checksum of the message after the IPv6 header at l3, from
 * the tests' own RFC 1071 code. */
static void
nd_fix_at(uint8_t *b, uint32_t l3)
{
	uint16_t len = unit_get16(b + l3 + 4);
	uint8_t *icmp = b + l3 + IP6;
	uint32_t sum;

	unit_put16(icmp + 2, 0);
	sum = rfc1071_sum(b + l3 + 8, 32, 0) + len + IPPROTO_ICMPV6;
	unit_put16(icmp + 2, (uint16_t)~rfc1071_fold(rfc1071_sum(icmp, len, sum)));
}

static void
nd_fix(uint8_t *b)
{
	nd_fix_at(b, ETH);
}

/* Is the ICMPv6 checksum of the message after the IPv6 header at l3 right? */
static bool
nd_cksum_ok(const uint8_t *b, uint32_t l3)
{
	uint16_t len = unit_get16(b + l3 + 4);
	uint32_t sum = rfc1071_sum(b + l3 + 8, 32, 0) + len + IPPROTO_ICMPV6;

	return rfc1071_fold(rfc1071_sum(b + l3 + IP6, len, sum)) == 0xffff;
}

/* An untagged ND frame from mac_nb with hop limit 255 and code 0: type,
 * flags, target and raw options; returns its length. */
static uint32_t
nd_build(uint8_t *b, const struct rte_ether_addr *eth_dst, const char *src, const char *dst,
	 uint8_t type, uint32_t flags, const char *target, const uint8_t *opts, uint16_t opts_len)
{
	const uint16_t len = 24 + opts_len;

	memset(b, 0, O_OPT + opts_len);
	memcpy(b, eth_dst, 6);
	memcpy(b + 6, &mac_nb, 6);
	unit_put16(b + 12, RTE_ETHER_TYPE_IPV6);
	b[ETH] = 0x60;
	unit_put16(b + O_PLEN, len);
	b[ETH + 6] = IPPROTO_ICMPV6;
	b[O_HLIM] = 255;
	ip6(src, b + O_SRC);
	ip6(dst, b + O_DST);
	b[O_ICMP] = type;
	unit_put32(b + O_FLAGS, flags);
	ip6(target, b + O_TARGET);
	if (opts_len != 0)
		memcpy(b + O_OPT, opts, opts_len);
	nd_fix(b);
	return O_OPT + opts_len;
}

/* A link-layer address option of type t. */
static void
ll_opt(uint8_t *o, uint8_t t, const struct rte_ether_addr *mac)
{
	o[0] = t;
	o[1] = 1;
	memcpy(o + 2, mac, 6);
}

/* --- running frames on port 1 --------------------------------------------- */

struct nd_result {
	struct fou_lcore_stats st;	/* what the context counted */
	uint8_t out[UNIT_PKT_MAX];
	uint32_t out_len;		/* 0: nothing sent */
	uint16_t out_port;
};

static struct nd_result res;

/* One frame received on port 1 through a fresh context. */
static void
nd_run(const uint8_t *b, uint32_t len)
{
	struct unit_lcore u = { 0 };
	struct rte_mbuf *m = unit_mbuf(b, len);

	memset(&res, 0, sizeof(res));
	unit_lcore_begin(&u, gw, 0);
	if (unit_rx(&u, EG_PORT, &m, 1, &res.out_port) == 1) {
		const void *d;

		res.out_len = rte_pktmbuf_pkt_len(m);
		d = res.out_len <= sizeof(res.out) ? rte_pktmbuf_read(m, 0, res.out_len, res.out) :
						     NULL;
		if (d != NULL && d != res.out)
			memcpy(res.out, d, res.out_len);
		rte_pktmbuf_free(m);
		assert_non_null(d);
	}
	res.st = u.st;
	unit_lcore_end(&u);
	assert_int_equal(res.st.rx[EG_PORT], 1);
}

/* The next event the workers posted; false when there is none. */
static bool
nd_event(struct fou_neigh_ev *ev)
{
	return rte_ring_sc_dequeue_elem(gw->nev_ring, ev, sizeof(*ev)) == 0;
}

static void
expect_no_event(const char *file, int line)
{
	struct fou_neigh_ev ev;

	if (nd_event(&ev)) {
		print_error("unexpected event kind %u flags 0x%x\n", ev.kind, ev.flags);
		_fail(file, line);
	}
}
#define EXPECT_NO_EVENT() expect_no_event(__FILE__, __LINE__)

/* The one event posted: kind, flags, the MAC and the address. */
static void
expect_event(uint8_t kind, uint8_t flags, const struct rte_ether_addr *mac, const char *addr,
	     const char *file, int line)
{
	struct fou_neigh_ev ev;
	uint8_t a[16];

	ip6(addr, a);
	if (!nd_event(&ev)) {
		print_error("no event posted\n");
		_fail(file, line);
	}
	if (ev.kind != kind || ev.flags != flags || ev.port != EG_PORT ||
	    ev.family != AF_INET6 || memcmp(&ev.mac, mac, 6) != 0 || memcmp(ev.addr, a, 16) != 0) {
		print_error("event kind %u flags 0x%x port %u mac %02x:..:%02x, expected kind %u "
			    "flags 0x%x about %s\n", ev.kind, ev.flags, ev.port, ev.mac.addr_bytes[0],
			    ev.mac.addr_bytes[5], kind, flags, addr);
		_fail(file, line);
	}
	expect_no_event(file, line);
}
#define EXPECT_EVENT(kind, flags, mac, addr) \
	expect_event((kind), (flags), (mac), (addr), __FILE__, __LINE__)

/* Dropped under reason alone, nothing sent. */
/* The verdict of an advertisement the gateway took in (counted consumed). */
#define V_CONSUMED (UNIT_FWD + 1)

static void
expect_nd_drop(const uint8_t *b, uint32_t len, unsigned int reason, const char *file, int line)
{
	nd_run(b, len);
	if (reason == V_CONSUMED) {
		if (res.out_len != 0 || fou_stats_drops(&res.st) != 0 ||
		    res.st.local[FOU_LOCAL_CONSUMED] != 1) {
			print_error("expected the advertisement taken in (%u bytes sent)\n",
				    res.out_len);
			_fail(file, line);
		}
		return;
	}
	if (res.out_len != 0 || fou_stats_drops(&res.st) != 1 || res.st.drop[reason] != 1) {
		unsigned int i;

		for (i = 0; i < FOU_DROP_MAX; i++)
			if (res.st.drop[i] != 0)
				print_error("dropped as %s\n", fou_drop_name(i));
		print_error("expected a drop as %s (%u bytes sent)\n", fou_drop_name(reason),
			    res.out_len);
		_fail(file, line);
	}
}
#define EXPECT_ND_DROP(b, len, reason) expect_nd_drop((b), (len), (reason), __FILE__, __LINE__)

/* Answered on port 1 with exactly want. */
static void
expect_answer(const uint8_t *b, uint32_t len, const uint8_t *want, uint32_t want_len,
	      const char *file, int line)
{
	nd_run(b, len);
	if (res.out_len == 0) {
		unsigned int i;

		for (i = 0; i < FOU_DROP_MAX; i++)
			if (res.st.drop[i] != 0)
				print_error("dropped as %s\n", fou_drop_name(i));
		_fail(file, line);
	}
	if (res.out_port != EG_PORT || res.out_len != want_len ||
	    memcmp(res.out, want, want_len) != 0) {
		uint32_t i;

		print_error("answer on port %u, %u bytes (expected %u):\n", res.out_port,
			    res.out_len, want_len);
		for (i = 0; i < res.out_len && i < want_len; i++)
			if (res.out[i] != want[i])
				print_error("  byte %u: 0x%02x, expected 0x%02x\n", i, res.out[i],
					    want[i]);
		_fail(file, line);
	}
	if (res.st.local[FOU_LOCAL_NS_IN] != 1 ||
	    res.st.local[FOU_LOCAL_NA_OUT] != 1 || fou_stats_drops(&res.st) != 0) {
		print_error("ns_in %" PRIu64 " na_out %" PRIu64 " drops %" PRIu64 "\n",
			    res.st.local[FOU_LOCAL_NS_IN], res.st.local[FOU_LOCAL_NA_OUT],
			    fou_stats_drops(&res.st));
		_fail(file, line);
	}
}
#define EXPECT_ANSWER(b, len, want) \
	expect_answer((b), (len), (want), sizeof(want), __FILE__, __LINE__)

/* --- answers ------------------------------------------------------------------ */

static void
test_ll6(void **state)
{
	struct fou_ip ll;
	uint8_t want[16];

	(void)state;
	assert_int_equal(fou_iface_ll6(gw, EG_PORT, &ll), 0);
	ip6("fe80::ff:fe00:101", want);
	assert_int_equal(ll.family, AF_INET6);
	assert_int_equal(ll.plen, 64);
	assert_memory_equal(ll.v6, want, 16);
	/* the universal/local bit of the MAC comes out inverted */
	assert_int_equal(fou_iface_ll6(gw, RX_PORT, &ll), 0);
	ip6("fe80::ff:fe00:1", want);
	assert_memory_equal(ll.v6, want, 16);
	assert_int_equal(fou_iface_ll6(gw, 7, &ll), -ENODEV);
}

/* A solicitation to our solicited-node group: R S O, our MAC as option,
 * to the solicitor's link-layer address; it is learnt (STALE, override). */
static void
test_ns_group(void **state)
{
	(void)state;
	EXPECT_ANSWER(g_ns_mcast, sizeof(g_ns_mcast), g_na_mcast);
	EXPECT_EVENT(FOU_NEV_SOLICIT, FOU_NEV_F_OVERRIDE, &mac_nb, "fe80::9");
}

/* Unicast, for the link-local address (not configured): R S, no option,
 * the 802.1Q tag kept. */
static void
test_ns_link_local(void **state)
{
	(void)state;
	EXPECT_ANSWER(g_ns_ll, sizeof(g_ns_ll), g_na_ll);
	EXPECT_EVENT(FOU_NEV_SOLICIT, FOU_NEV_F_OVERRIDE, &mac_nb, "fe80::9");
}

/* Unicast without an option: to the frame's source; Ethernet padding cut;
 * nothing learnt (no link-layer address given). */
static void
test_ns_unicast_no_option(void **state)
{
	(void)state;
	EXPECT_ANSWER(g_ns_plain, sizeof(g_ns_plain), g_na_plain);
	EXPECT_NO_EVENT();
}

/* A duplicate address probe: to all nodes, R O, our MAC; nothing learnt. */
static void
test_ns_dad(void **state)
{
	(void)state;
	EXPECT_ANSWER(g_ns_dad, sizeof(g_ns_dad), g_na_dad);
	EXPECT_NO_EVENT();
}

/* A group solicitation without an option is answered only for a neighbour
 * the table knows (Linux' ndisc_recv_ns), at the MAC it knows. */
static void
test_ns_group_no_option(void **state)
{
	uint8_t b[UNIT_PKT_MAX], want[UNIT_PKT_MAX];
	uint32_t len, wlen;

	(void)state;
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0xff, 0, 0, 1 } }, "fd00:1::7",
		       "ff02::1:ff00:1", 135, 0, "fd00:1::1", NULL, 0);
	/* fd00:1::7 is a static neighbour (02:00:00:00:01:08) */
	memcpy(want, g_na_mcast, sizeof(g_na_mcast));
	wlen = sizeof(g_na_mcast);
	memcpy(want, &mac_nb6_7, 6);
	ip6("fd00:1::7", want + O_DST);
	nd_fix(want);
	expect_answer(b, len, want, wlen, __FILE__, __LINE__);
	EXPECT_NO_EVENT();
	ip6("fd00:1::77", b + O_SRC);
	nd_fix(b);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_BAD);
}

/* The option makes the answer longer than the solicitation: it grows in
 * place. An option of another type is skipped. */
static void
test_ns_other_option(void **state)
{
	uint8_t b[UNIT_PKT_MAX], want[UNIT_PKT_MAX];
	uint8_t opts[16] = { 14, 1, 1, 2, 3, 4, 5, 6 };	/* a nonce (RFC 3971) */
	uint32_t len;

	(void)state;
	ll_opt(opts + 8, 1, &mac_nb);
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0xff, 0, 0, 1 } }, "fe80::9",
		       "ff02::1:ff00:1", 135, 0, "fd00:1::1", opts, sizeof(opts));
	expect_answer(b, len, g_na_mcast, sizeof(g_na_mcast), __FILE__, __LINE__);
	EXPECT_EVENT(FOU_NEV_SOLICIT, FOU_NEV_F_OVERRIDE, &mac_nb, "fe80::9");
	/* the nonce alone: no option to answer with, grown by 8 bytes */
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0xff, 0, 0, 1 } }, "::",
		       "ff02::1:ff00:1", 135, 0, "fd00:1::1", opts, 8);
	memcpy(want, g_na_dad, sizeof(g_na_dad));
	expect_answer(b, len, want, sizeof(g_na_dad), __FILE__, __LINE__);
	EXPECT_NO_EVENT();
}

/* What is not for one of the receiving port's addresses. */
static void
test_ns_not_ours(void **state)
{
	uint8_t b[UNIT_PKT_MAX], opt[8];
	uint32_t len;

	(void)state;
	ll_opt(opt, 1, &mac_nb);
	/* a target in our group but not ours: nothing answered, nothing
	 * learnt (ndisc_recv_ns returns before its neighbour update) */
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0xff, 0, 0, 1 } }, "fe80::9",
		       "ff02::1:ff00:1", 135, 0, "fd00:2::1", opt, 8);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_NOT_OURS);
	EXPECT_NO_EVENT();
	/* unicast to us for someone else */
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 135, 0, "fd00:1::5", opt, 8);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_NOT_OURS);
	/* an address of the other port (only the receiving port's answer) */
	UNIT_APPLY(gw, "addr", "0,fd00:2::1/64");
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0xff, 0, 0, 1 } }, "fe80::9",
		       "ff02::1:ff00:1", 135, 0, "fd00:2::1", opt, 8);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_NOT_OURS);
	/* the other port's link-local address */
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0xff, 0, 0, 1 } }, "fe80::9",
		       "ff02::1:ff00:1", 135, 0, "fe80::ff:fe00:1", opt, 8);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_NOT_OURS);
	EXPECT_NO_EVENT();
	/* a group we are not in, and our group behind another group MAC */
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0xff, 0, 0, 5 } }, "fe80::9",
		       "ff02::1:ff00:5", 135, 0, "fd00:1::5", opt, 8);
	EXPECT_ND_DROP(b, len, FOU_DROP_BCAST_MCAST);
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0xff, 0, 0, 5 } }, "fe80::9",
		       "ff02::1:ff00:1", 135, 0, "fd00:1::1", opt, 8);
	EXPECT_ND_DROP(b, len, FOU_DROP_BCAST_MCAST);
	/* someone else's link-local address, at our MAC */
	len = nd_build(b, &mac_eg, "fe80::9", "fe80::5", 135, 0, "fe80::5", opt, 8);
	EXPECT_ND_DROP(b, len, FOU_DROP_OUTER_MARTIAN);
	EXPECT_NO_EVENT();
}

/* To all nodes (a group every node is in) and to our unicast MAC with a
 * group destination: taken as Linux takes them. */
static void
test_ns_all_nodes(void **state)
{
	uint8_t b[UNIT_PKT_MAX], opt[8];
	uint32_t len;

	(void)state;
	ll_opt(opt, 1, &mac_nb);
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } }, "fe80::9",
		       "ff02::1", 135, 0, "fd00:1::1", opt, 8);
	expect_answer(b, len, g_na_mcast, sizeof(g_na_mcast), __FILE__, __LINE__);
	EXPECT_EVENT(FOU_NEV_SOLICIT, FOU_NEV_F_OVERRIDE, &mac_nb, "fe80::9");
	len = nd_build(b, &mac_eg, "fe80::9", "ff02::1:ff00:1", 135, 0, "fd00:1::1", opt, 8);
	expect_answer(b, len, g_na_mcast, sizeof(g_na_mcast), __FILE__, __LINE__);
	EXPECT_EVENT(FOU_NEV_SOLICIT, FOU_NEV_F_OVERRIDE, &mac_nb, "fe80::9");
}

/* --- invalid messages (RFC 4861 7.1.1, 7.1.2) ------------------------------ */

static void
test_nd_bad(void **state)
{
	uint8_t b[UNIT_PKT_MAX], opts[24];
	uint32_t len;

	(void)state;
	/* hop limit: from beyond the link */
	memcpy(b, g_ns_mcast, sizeof(g_ns_mcast));
	b[O_HLIM] = 254;
	nd_fix(b);
	EXPECT_ND_DROP(b, sizeof(g_ns_mcast), FOU_DROP_ND_BAD);
	/* code */
	memcpy(b, g_ns_mcast, sizeof(g_ns_mcast));
	b[O_CODE] = 1;
	nd_fix(b);
	EXPECT_ND_DROP(b, sizeof(g_ns_mcast), FOU_DROP_ND_BAD);
	/* checksum */
	memcpy(b, g_ns_mcast, sizeof(g_ns_mcast));
	b[O_ICMP + 3] ^= 1;
	EXPECT_ND_DROP(b, sizeof(g_ns_mcast), FOU_DROP_ND_BAD);
	/* the checksum covers the pseudo header */
	memcpy(b, g_ns_mcast, sizeof(g_ns_mcast));
	b[O_SRC + 15] = 0x0a;
	EXPECT_ND_DROP(b, sizeof(g_ns_mcast), FOU_DROP_ND_BAD);
	/* shorter than the message (ICMP length 20), than an ICMPv6 header */
	memcpy(b, g_ns_plain, sizeof(g_ns_plain));
	unit_put16(b + O_PLEN, 20);
	nd_fix(b);
	EXPECT_ND_DROP(b, O_ICMP + 20, FOU_DROP_ND_BAD);
	unit_put16(b + O_PLEN, 4);
	nd_fix(b);
	EXPECT_ND_DROP(b, O_ICMP + 4, FOU_DROP_ND_BAD);
	/* a multicast target */
	memcpy(b, g_ns_mcast, sizeof(g_ns_mcast));
	ip6("ff02::1", b + O_TARGET);
	nd_fix(b);
	EXPECT_ND_DROP(b, sizeof(g_ns_mcast), FOU_DROP_ND_BAD);
	/* an option of length 0 */
	memcpy(b, g_ns_mcast, sizeof(g_ns_mcast));
	b[O_OPT + 1] = 0;
	nd_fix(b);
	EXPECT_ND_DROP(b, sizeof(g_ns_mcast), FOU_DROP_ND_BAD);
	/* an option beyond the message: 16 bytes said, 8 there */
	memcpy(b, g_ns_mcast, sizeof(g_ns_mcast));
	b[O_OPT + 1] = 2;
	nd_fix(b);
	EXPECT_ND_DROP(b, sizeof(g_ns_mcast), FOU_DROP_ND_BAD);
	/* a truncated option: the message ends 4 bytes into it, or after
	 * its first byte */
	memcpy(b, g_ns_mcast, sizeof(g_ns_mcast));
	unit_put16(b + O_PLEN, 28);
	nd_fix(b);
	EXPECT_ND_DROP(b, O_ICMP + 28, FOU_DROP_ND_BAD);
	unit_put16(b + O_PLEN, 25);
	nd_fix(b);
	EXPECT_ND_DROP(b, O_ICMP + 25, FOU_DROP_ND_BAD);
	/* a source link-layer option of 16 bytes (not Ethernet's) */
	memset(opts, 0, sizeof(opts));
	opts[0] = 1;
	opts[1] = 2;
	memcpy(opts + 2, &mac_nb, 6);
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0xff, 0, 0, 1 } }, "fe80::9",
		       "ff02::1:ff00:1", 135, 0, "fd00:1::1", opts, 16);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_BAD);
	/* a group MAC as link-layer address */
	ll_opt(opts, 1, &(struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } });
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0xff, 0, 0, 1 } }, "fe80::9",
		       "ff02::1:ff00:1", 135, 0, "fd00:1::1", opts, 8);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_BAD);
	/* a duplicate address probe to a unicast address, or with a source
	 * link-layer option */
	len = nd_build(b, &mac_eg, "::", "fd00:1::1", 135, 0, "fd00:1::1", NULL, 0);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_BAD);
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } }, "::", "ff02::1",
		       135, 0, "fd00:1::1", NULL, 0);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_BAD);
	ll_opt(opts, 1, &mac_nb);
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0xff, 0, 0, 1 } }, "::",
		       "ff02::1:ff00:1", 135, 0, "fd00:1::1", opts, 8);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_BAD);
	/* advertisements: solicited to a group, a group target, a 16-byte
	 * target link-layer option, a zero-length option */
	ll_opt(opts, 2, &mac_nb);
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } }, "fd00:1::9",
		       "ff02::1", 136, 0x40000000, "fd00:1::9", opts, 8);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_BAD);
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 136, 0x60000000, "ff02::9", opts, 8);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_BAD);
	memset(opts, 0, sizeof(opts));
	opts[0] = 2;
	opts[1] = 2;
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 136, 0x60000000, "fd00:1::9", opts,
		       16);
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_BAD);
	opts[1] = 0;
	EXPECT_ND_DROP(b, len, FOU_DROP_ND_BAD);
	memcpy(b, g_na_in, sizeof(g_na_in));
	b[O_HLIM] = 64;
	nd_fix(b);
	EXPECT_ND_DROP(b, sizeof(g_na_in), FOU_DROP_ND_BAD);
	EXPECT_NO_EVENT();
}

/* Ahead of ND: a group source is a martian, a frame shorter than its IPv6
 * payload is the IPv6 layer's; not ND: what goes on as before. */
static void
test_nd_not_taken(void **state)
{
	uint8_t b[UNIT_PKT_MAX];

	(void)state;
	memcpy(b, g_ns_mcast, sizeof(g_ns_mcast));
	ip6("ff02::9", b + O_SRC);
	nd_fix(b);
	EXPECT_ND_DROP(b, sizeof(g_ns_mcast), FOU_DROP_OUTER_MARTIAN);
	EXPECT_ND_DROP(g_ns_mcast, sizeof(g_ns_mcast) - 1, FOU_DROP_IP_LEN_BAD);
	/* an echo request to all nodes, an NS behind a hop-by-hop header */
	memcpy(b, g_ns_mcast, sizeof(g_ns_mcast));
	b[O_ICMP] = 128;
	ip6("fd00:1::9", b + O_SRC);
	nd_fix(b);
	EXPECT_ND_DROP(b, sizeof(g_ns_mcast), FOU_DROP_BCAST_MCAST);
	/* (from a link-local source, which may talk to us: a group
	 * destination that is not ND as the gateway reads it) */
	memcpy(b, g_ns_mcast, sizeof(g_ns_mcast));
	b[ETH + 6] = 0;
	EXPECT_ND_DROP(b, sizeof(g_ns_mcast), FOU_DROP_BCAST_MCAST);
	EXPECT_NO_EVENT();
}

/*
 * Echo requests from a link-local source, or to the port's link-local
 * address: delivered as Linux delivers them (every interface has its own
 * fe80::/64), the reply leaving by the port the request came in by; a
 * link-local address of another port is not ours here, and a link-local
 * source is never forwarded.
 */
static void
test_echo_link_local(void **state)
{
	static const struct {
		const char *src, *dst;
		unsigned int verdict;	/* UNIT_FWD: an echo reply on port 1 */
	} cases[] = {
		{ "fe80::9", "fe80::ff:fe00:101", UNIT_FWD },
		{ "fe80::9", "fd00:1::1", UNIT_FWD },
		{ "fe80::9", "fe80::ff:fe00:1", FOU_DROP_OUTER_MARTIAN },	/* port 0's */
		{ "fe80::9", "fe80::77", FOU_DROP_OUTER_MARTIAN },
		{ "fe80::9", "fd00:41::1", FOU_DROP_OUTER_MARTIAN },		/* forwarded */
	};
	uint8_t b[UNIT_PKT_MAX], src[16], dst[16];
	unsigned int i;

	(void)state;
	UNIT_APPLY(gw, "neigh", "fe80::9,dev=1,lladdr=02:00:00:00:01:09");
	for (i = 0; i < RTE_DIM(cases); i++) {
		uint32_t len = nd_build(b, &mac_eg, cases[i].src, cases[i].dst, 128, 0x4d4d0001,
					"fd00:1::9", NULL, 0);

		unit_ctx("echo %s -> %s", cases[i].src, cases[i].dst);
		if (cases[i].verdict != UNIT_FWD) {
			EXPECT_ND_DROP(b, len, cases[i].verdict);
			continue;
		}
		nd_run(b, len);
		assert_int_equal(res.out_len, len);
		assert_int_equal(res.out_port, EG_PORT);
		assert_int_equal(res.st.icmp_out[FOU_ICMP_ECHO6_REPLY], 1);
		assert_memory_equal(res.out, &mac_nb, 6);
		assert_memory_equal(res.out + 6, &mac_eg, 6);
		ip6(cases[i].src, src);
		ip6(cases[i].dst, dst);
		assert_memory_equal(res.out + O_SRC, dst, 16);
		assert_memory_equal(res.out + O_DST, src, 16);
		assert_int_equal(res.out[O_ICMP], 129);
		assert_true(nd_cksum_ok(res.out, ETH));
	}
	EXPECT_NO_EVENT();
}

/* --- advertisements ----------------------------------------------------------- */

static void
test_na_in(void **state)
{
	static const struct rte_ether_addr none;
	uint8_t b[UNIT_PKT_MAX], opt[8];
	uint32_t len;

	(void)state;
	/* solicited, override: a confirmation that may replace the MAC */
	nd_run(g_na_in, sizeof(g_na_in));
	assert_int_equal(res.out_len, 0);
	assert_int_equal(res.st.local[FOU_LOCAL_CONSUMED], 1);
	assert_int_equal(res.st.local[FOU_LOCAL_NA_IN], 1);
	EXPECT_EVENT(FOU_NEV_ADVERT, FOU_NEV_F_CONFIRM | FOU_NEV_F_OVERRIDE, &mac_nb, "fd00:1::9");
	/* unsolicited to all nodes from a router */
	ll_opt(opt, 2, &mac_nb2);
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } }, "fe80::9",
		       "ff02::1", 136, 0xa0000000, "fd00:1::9", opt, 8);
	EXPECT_ND_DROP(b, len, V_CONSUMED);
	EXPECT_EVENT(FOU_NEV_ADVERT, FOU_NEV_F_OVERRIDE | FOU_NEV_F_ROUTER, &mac_nb2, "fd00:1::9");
	/* without a target link-layer option: no MAC in the event */
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 136, 0x40000000, "fd00:1::9", NULL, 0);
	EXPECT_ND_DROP(b, len, V_CONSUMED);
	EXPECT_EVENT(FOU_NEV_ADVERT, FOU_NEV_F_CONFIRM, &none, "fd00:1::9");
	/* someone advertising our own address, our link-local one: counted,
	 * not learnt */
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } }, "fe80::9",
		       "ff02::1", 136, 0x20000000, "fd00:1::1", opt, 8);
	EXPECT_ND_DROP(b, len, V_CONSUMED);
	assert_int_equal(res.st.local[FOU_LOCAL_NA_IN], 1);
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } }, "fe80::9",
		       "ff02::1", 136, 0x20000000, "fe80::ff:fe00:101", opt, 8);
	EXPECT_ND_DROP(b, len, V_CONSUMED);
	EXPECT_NO_EVENT();
}

/* --- the control thread ----------------------------------------------------- */

struct sent {
	struct rte_mbuf *pkts[16];
	uint16_t ports[16];
	uint16_t n;
};

static void
collect(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports, uint16_t n)
{
	struct sent *s = ctx;
	uint16_t i;

	for (i = 0; i < n; i++) {
		if (s->n == RTE_DIM(s->pkts)) {
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		s->pkts[s->n] = pkts[i];
		s->ports[s->n++] = ports[i];
	}
}

static void
sent_free(struct sent *s)
{
	while (s->n != 0)
		rte_pktmbuf_free(s->pkts[--s->n]);
}

/* The control context and a started worker it sends through. */
struct ctl_env {
	struct unit_lcore u;
	struct fou_lcore *ctl;
	uint64_t now, hz;
};

/* One round of the control thread ms milliseconds on, then what the
 * worker sends for it. */
static void
ctl_round(struct ctl_env *e, unsigned int ms, struct sent *s)
{
	e->now += e->hz / 1000 * ms;
	fou_neigh_service(e->ctl, e->now);
	s->n = 0;
	fou_lcore_idle(e->u.lc, e->now, collect, s);
}

/* The first round sends the announcements of the addresses: into s, or
 * freed. */
static void
ctl_begin(struct ctl_env *e, struct sent *s)
{
	const struct fou_lcore_conf c = {
		.direct = unit_pool, .indirect = unit_pool, .socket_id = SOCKET_ID_ANY,
	};
	struct fou_err err = { "" };
	struct sent mine = { .n = 0 };

	memset(e, 0, sizeof(*e));
	unit_lcore_begin(&e->u, gw, 0);
	assert_int_equal(fou_lcore_start(e->u.lc), 0);
	ctl_lc = e->ctl = fou_lcore_create(gw, FOU_LCORE_CONTROL, &c, &err);
	assert_non_null(e->ctl);
	e->now = rte_rdtsc();
	e->hz = rte_get_tsc_hz();
	ctl_round(e, 0, s != NULL ? s : &mine);
	sent_free(&mine);
}

static void
ctl_end(struct ctl_env *e)
{
	unit_lcore_end(&e->u);
	fou_neigh_stop(gw);
	fou_lcore_free(e->ctl);
	ctl_lc = NULL;
}

/* A frame received on port 1 by the started worker; returns what it sent. */
static uint16_t
ctl_rx(struct ctl_env *e, const uint8_t *b, uint32_t len, struct sent *s)
{
	struct rte_mbuf *m = unit_mbuf(b, len);
	uint16_t port;

	s->n = 0;
	if (unit_rx(&e->u, EG_PORT, &m, 1, &port) == 1) {
		s->pkts[0] = m;
		s->ports[0] = port;
		s->n = 1;
	}
	return s->n;
}

static void
expect_frame(const struct sent *s, uint16_t i, uint16_t port, const uint8_t *want,
	     uint32_t want_len, const char *file, int line)
{
	uint8_t buf[UNIT_PKT_MAX];
	const uint8_t *d;

	if (i >= s->n || s->ports[i] != port || rte_pktmbuf_pkt_len(s->pkts[i]) != want_len) {
		print_error("frame %u of %u: not %u bytes on port %u\n", i, s->n, want_len, port);
		_fail(file, line);
	}
	d = rte_pktmbuf_read(s->pkts[i], 0, want_len, buf);
	if (d == NULL || memcmp(d, want, want_len) != 0) {
		print_error("frame %u differs from the expected one\n", i);
		_fail(file, line);
	}
}
#define EXPECT_FRAME(s, i, port, want, len) \
	expect_frame((s), (i), (port), (want), (len), __FILE__, __LINE__)

/* The entry of addr on port 1: its state and MAC; false if there is none. */
static bool
neigh_state(const char *addr, uint8_t *state, struct rte_ether_addr *mac, bool *router)
{
	struct fou_neigh_info ni[16];
	unsigned int n, i;
	uint8_t a[16];

	ip6(addr, a);
	n = fou_neigh_list(gw, ni, RTE_DIM(ni), 0);
	for (i = 0; i < n && i < RTE_DIM(ni); i++) {
		if (ni[i].port != EG_PORT || ni[i].ip.family != AF_INET6 ||
		    memcmp(ni[i].ip.v6, a, 16) != 0)
			continue;
		*state = ni[i].state;
		*mac = ni[i].mac;
		if (router != NULL)
			*router = ni[i].router;
		return true;
	}
	return false;
}

static void
expect_neigh(const char *addr, uint8_t state, const struct rte_ether_addr *mac, const char *file,
	     int line)
{
	struct rte_ether_addr m;
	uint8_t s;

	if (!neigh_state(addr, &s, &m, NULL)) {
		print_error("no entry for %s\n", addr);
		_fail(file, line);
	}
	if (s != state || (mac != NULL && !rte_is_same_ether_addr(&m, mac))) {
		print_error("%s: %s %02x:..:%02x, expected %s %02x:..:%02x\n", addr,
			    fou_neigh_state_name(s), m.addr_bytes[0], m.addr_bytes[5],
			    fou_neigh_state_name(state), mac ? mac->addr_bytes[0] : 0,
			    mac ? mac->addr_bytes[5] : 0);
		_fail(file, line);
	}
}
#define EXPECT_NEIGH(addr, state, mac) expect_neigh((addr), (state), (mac), __FILE__, __LINE__)

/* At the start: a gratuitous ARP request for each IPv4 address, an
 * unsolicited NA (R O, to all nodes, our MAC) for each IPv6 one. */
static void
test_announce(void **state)
{
	struct ctl_env e;
	struct sent s = { .n = 0 };
	uint16_t i, na = 0;

	(void)state;
	ctl_begin(&e, &s);
	assert_int_equal(s.n, 3);
	for (i = 0; i < s.n; i++) {
		if (rte_pktmbuf_pkt_len(s.pkts[i]) != sizeof(g_na_dad))
			continue;
		EXPECT_FRAME(&s, i, EG_PORT, g_na_dad, sizeof(g_na_dad));
		na++;
	}
	assert_int_equal(na, 1);
	sent_free(&s);
	ctl_end(&e);
}

/*
 * An IPv6 packet to an on-link neighbour nobody knows waits; the control
 * thread solicits it at its solicited-node group from the port's address
 * with our MAC; the solicited NA releases the packet to the MAC it gave.
 */
static void
test_resolve(void **state)
{
	struct ctl_env e;
	struct sent s = { .n = 0 };
	struct unit_spec sp;
	struct unit_pkt p;
	uint8_t out[UNIT_PKT_MAX];
	uint32_t olen;
	struct rte_mbuf *m;
	uint16_t port;

	(void)state;
	ctl_begin(&e, NULL);
	unit_spec_sit(&sp);
	ip6("fd00:1::9", sp.in_dst6);
	unit_build(&sp, &p);
	m = unit_mbuf(p.b, p.len);
	assert_int_equal(unit_rx(&e.u, RX_PORT, &m, 1, &port), 0);
	assert_int_equal(e.u.st.local[FOU_LOCAL_NEIGH_QUEUED], 1);

	ctl_round(&e, 1, &s);
	EXPECT_FRAME(&s, 0, EG_PORT, g_ns_out, sizeof(g_ns_out));
	assert_int_equal(s.n, 1);
	sent_free(&s);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_INCOMPLETE, NULL);

	assert_int_equal(ctl_rx(&e, g_na_in, sizeof(g_na_in), &s), 0);
	assert_int_equal(e.u.st.local[FOU_LOCAL_CONSUMED], 1);
	ctl_round(&e, 1, &s);
	olen = unit_expect_out_same(&p, &mac_nb, out);
	EXPECT_FRAME(&s, 0, EG_PORT, out, olen);
	assert_int_equal(s.n, 1);
	sent_free(&s);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_REACHABLE, &mac_nb);

	/* the next packet goes straight out */
	m = unit_mbuf(p.b, p.len);
	assert_int_equal(unit_rx(&e.u, RX_PORT, &m, 1, &port), 1);
	assert_int_equal(port, EG_PORT);
	rte_pktmbuf_free(m);
	ctl_end(&e);
}

/* A link-local neighbour is solicited from the port's link-local address. */
static void
test_resolve_link_local(void **state)
{
	struct ctl_env e;
	struct sent s = { .n = 0 };
	struct unit_spec sp;
	struct unit_pkt p;
	struct rte_mbuf *m;
	uint8_t want[16];
	uint16_t port;
	uint8_t b[UNIT_PKT_MAX];

	(void)state;
	UNIT_APPLY(gw, "route", "fd00:60::/32,dev=1,via=fe80::9");
	ctl_begin(&e, NULL);
	unit_spec_sit(&sp);
	ip6("fd00:60::1", sp.in_dst6);
	unit_build(&sp, &p);
	m = unit_mbuf(p.b, p.len);
	assert_int_equal(unit_rx(&e.u, RX_PORT, &m, 1, &port), 0);
	ctl_round(&e, 1, &s);
	assert_int_equal(s.n, 1);
	assert_non_null(rte_pktmbuf_read(s.pkts[0], 0, O_OPT + 8, b));
	memcpy(b, rte_pktmbuf_read(s.pkts[0], 0, O_OPT + 8, b), O_OPT + 8);
	ip6("fe80::ff:fe00:101", want);
	assert_memory_equal(b + O_SRC, want, 16);
	ip6("ff02::1:ff00:9", want);
	assert_memory_equal(b + O_DST, want, 16);
	ip6("fe80::9", want);
	assert_memory_equal(b + O_TARGET, want, 16);
	assert_true(nd_cksum_ok(b, ETH));
	sent_free(&s);
	ctl_end(&e);
}

/*
 * What an NS or NA does to an entry, as neigh_update with the flags
 * ndisc_recv_ns / ndisc_recv_na give (RFC 4861 7.2.3, 7.2.5).
 */
static void
test_na_update(void **state)
{
	struct ctl_env e;
	struct sent s = { .n = 0 };
	uint8_t b[UNIT_PKT_MAX], opt[8];
	struct rte_ether_addr mac;
	uint32_t len;
	uint8_t st;
	bool router;

	(void)state;
	ctl_begin(&e, NULL);
	/* an unsolicited NA creates nothing (no entry, accept_untracked_na 0) */
	ll_opt(opt, 2, &mac_nb);
	len = nd_build(b, &(struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } }, "fd00:1::9",
		       "ff02::1", 136, 0x20000000, "fd00:1::9", opt, 8);
	ctl_rx(&e, b, len, &s);
	ctl_round(&e, 1, &s);
	assert_false(neigh_state("fd00:1::9", &st, &mac, NULL));

	/* an NS with its link-layer address creates it STALE */
	ll_opt(opt, 1, &mac_nb);
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 135, 0, "fd00:1::1", opt, 8);
	assert_int_equal(ctl_rx(&e, b, len, &s), 1);
	sent_free(&s);
	ctl_round(&e, 1, &s);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_STALE, &mac_nb);

	/* solicited, same MAC, no option at all: REACHABLE */
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 136, 0x40000000, "fd00:1::9", NULL, 0);
	ctl_rx(&e, b, len, &s);
	ctl_round(&e, 1, &s);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_REACHABLE, &mac_nb);

	/* a different MAC without O: REACHABLE becomes STALE on the old MAC */
	ll_opt(opt, 2, &mac_nb2);
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 136, 0xc0000000, "fd00:1::9", opt, 8);
	ctl_rx(&e, b, len, &s);
	ctl_round(&e, 1, &s);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_STALE, &mac_nb);
	assert_true(neigh_state("fd00:1::9", &st, &mac, &router));
	assert_false(router);	/* a refused MAC leaves the router flag */
	/* ... and a STALE entry ignores it altogether */
	ctl_rx(&e, b, len, &s);
	ctl_round(&e, 1, &s);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_STALE, &mac_nb);

	/* with O the new MAC replaces the old one, REACHABLE with S */
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 136, 0xe0000000, "fd00:1::9", opt, 8);
	ctl_rx(&e, b, len, &s);
	ctl_round(&e, 1, &s);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_REACHABLE, &mac_nb2);
	assert_true(neigh_state("fd00:1::9", &st, &mac, &router));
	assert_true(router);
	assert_int_equal(fou_neigh_get(gw, &(struct fou_ip){ .family = AF_INET6,
		.v6 = { 0xfd, 0, 0, 1, [15] = 9 } }, EG_PORT, &mac), 0);
	assert_true(rte_is_same_ether_addr(&mac, &mac_nb2));

	/* O without S: the new MAC, STALE; R 0 clears the router flag */
	ll_opt(opt, 2, &mac_nb);
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 136, 0x20000000, "fd00:1::9", opt, 8);
	ctl_rx(&e, b, len, &s);
	ctl_round(&e, 1, &s);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_STALE, &mac_nb);
	assert_true(neigh_state("fd00:1::9", &st, &mac, &router));
	assert_false(router);

	/* the same MAC unsolicited leaves the state as it is */
	ctl_rx(&e, b, len, &s);
	ctl_round(&e, 1, &s);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_STALE, &mac_nb);

	/* an NS with a different MAC replaces it at once (no locktime) */
	ll_opt(opt, 1, &mac_nb2);
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 135, 0, "fd00:1::1", opt, 8);
	ctl_rx(&e, b, len, &s);
	sent_free(&s);
	ctl_round(&e, 1, &s);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_STALE, &mac_nb2);

	/* a static entry is never learnt over */
	ll_opt(opt, 2, &mac_nb);
	len = nd_build(b, &mac_eg, "fd00:1::7", "fd00:1::1", 136, 0xe0000000, "fd00:1::7", opt, 8);
	ctl_rx(&e, b, len, &s);
	ctl_round(&e, 1, &s);
	EXPECT_NEIGH("fd00:1::7", FOU_NUD_PERMANENT, &mac_nb6_7);
	ctl_end(&e);
}

/* While INCOMPLETE, an NA without a MAC changes nothing; once FAILED, an
 * NA is ignored (ndisc_recv_na) while an NS still teaches the MAC. */
static void
test_na_incomplete_failed(void **state)
{
	struct ctl_env e;
	struct sent s = { .n = 0 };
	struct unit_spec sp;
	struct unit_pkt p;
	uint8_t b[UNIT_PKT_MAX], opt[8];
	struct rte_mbuf *m;
	uint32_t len;
	uint16_t port;
	unsigned int i;

	(void)state;
	ctl_begin(&e, NULL);
	unit_spec_sit(&sp);
	ip6("fd00:1::9", sp.in_dst6);
	unit_build(&sp, &p);
	m = unit_mbuf(p.b, p.len);
	assert_int_equal(unit_rx(&e.u, RX_PORT, &m, 1, &port), 0);
	ctl_round(&e, 1, &s);
	sent_free(&s);
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 136, 0x60000000, "fd00:1::9", NULL, 0);
	ctl_rx(&e, b, len, &s);
	ctl_round(&e, 1, &s);
	assert_int_equal(s.n, 0);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_INCOMPLETE, NULL);
	/* three solicitations a second apart, then FAILED */
	for (i = 0; i < 3; i++) {
		ctl_round(&e, 1001, &s);
		sent_free(&s);
	}
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_FAILED, NULL);
	ll_opt(opt, 2, &mac_nb);
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 136, 0x60000000, "fd00:1::9", opt, 8);
	ctl_rx(&e, b, len, &s);
	ctl_round(&e, 1, &s);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_FAILED, NULL);
	ll_opt(opt, 1, &mac_nb);
	len = nd_build(b, &mac_eg, "fd00:1::9", "fd00:1::1", 135, 0, "fd00:1::1", opt, 8);
	assert_int_equal(ctl_rx(&e, b, len, &s), 1);
	sent_free(&s);
	ctl_round(&e, 1, &s);
	EXPECT_NEIGH("fd00:1::9", FOU_NUD_STALE, &mac_nb);
	ctl_end(&e);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup_std, teardown_std)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_ll6),
		T(test_ns_group),
		T(test_ns_link_local),
		T(test_ns_unicast_no_option),
		T(test_ns_dad),
		T(test_ns_group_no_option),
		T(test_ns_other_option),
		T(test_ns_not_ours),
		T(test_ns_all_nodes),
		T(test_nd_bad),
		T(test_nd_not_taken),
		T(test_echo_link_local),
		T(test_na_in),
		T(test_announce),
		T(test_resolve),
		T(test_resolve_link_local),
		T(test_na_update),
		T(test_na_incomplete_failed),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("ndisc", tests, NULL, NULL);
	return unit_eal_fini(failures);
}
