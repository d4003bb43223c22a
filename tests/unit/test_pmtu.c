/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A tunnel's path MTU. ICMP "fragmentation needed" from a router on the
 * way to the remote, quoting an outer packet the tunnel sent, lowers the
 * tunnel MTU; inner packets over it then get "fragmentation needed" /
 * "packet too big" with the lowered figure. scapy's frames (golden.h,
 * GOLDEN_PMTU) for ipip/fou, plain GRE with a key and GRE/fou with key and
 * checksum; then the 552 floor, errors that would raise it, forged and
 * truncated ones, expiry (a later `now`, not a wait), nopmtudisc,
 * encap-sport auto, plain sit with IPv6 inside, segmented errors, and a
 * tunnel deleted and added again. Last, the path MTU the search of
 * fou_plpmtu.c probed bounds the tunnel MTU in the same way.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "unit.h"
#include "fou_hdr.h"
#include "fou_plpmtu.h"
#include "fou_private.h"
#define GOLDEN_TX
#define GOLDEN_PMTU
#include "golden.h"

/* The verdict of an error the gateway took in (counted as consumed). */
#define V_CONSUMED (UNIT_FWD + 1)

/* What the cases add to unit_gw_std(), as test_encap.c: the sender
 * 10.0.0.2 / fd00::2 on port 0 has a neighbour, so errors can go back. */
static const char tx_base[] =
	"addr 0,fd00::1/64\n"
	"neigh 10.0.0.2,dev=0,lladdr=02:00:00:00:00:02\n"
	"neigh fd00::2,dev=0,lladdr=02:00:00:00:00:02\n";

#define ETH 14
#define QUOTE 548		/* what Linux' icmp_send quotes: 576 - 20 - 8 */
#define ROUTER IP4(192, 168, 1, 2)
#define LOCAL IP4(192, 168, 1, 1)

/* The gateway of the running test (freed by the teardown, also after a
 * failed check) and the worker's context on it. */
static struct fou_gw *cur_gw;
static struct unit_lcore ul;
static struct unit_frame got[FOU_BURST];

static struct fou_gw *
pmtu_gw(const char *stmts)
{
	unit_lcore_end(&ul);
	fou_gw_free(cur_gw);
	cur_gw = NULL;
	cur_gw = unit_gw_std();
	UNIT_APPLY_LINES(cur_gw, tx_base);
	UNIT_APPLY_LINES(cur_gw, stmts);
	return cur_gw;
}

static int
teardown(void **state)
{
	struct fou_gw *gw = cur_gw;

	unit_lcore_end(&ul);
	cur_gw = NULL;
	return unit_test_teardown_gw(state, gw);
}

static const char *
pmtu_stmts(const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(golden_pmtu); i++)
		if (strcmp(golden_pmtu[i].name, name) == 0)
			return golden_pmtu[i].stmts;
	for (i = 0; i < RTE_DIM(golden_pmtu6); i++)
		if (strcmp(golden_pmtu6[i].name, name) == 0)
			return golden_pmtu6[i].stmts;
	fail_msg("no path MTU case %s", name);
	return NULL;
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

/* One frame received on port at the TSC now, by a fresh context (counters
 * from 0, IP IDs from 0): how many frames left, in got[]. */
static uint16_t
run_at(const uint8_t *b, uint32_t len, uint16_t port, uint64_t now)
{
	struct rte_mbuf *m = unit_mbuf(b, len);

	unit_lcore_begin(&ul, cur_gw, 0);
	return unit_burst_at(&ul, port, &m, 1, got, now);
}

static uint16_t
run(const uint8_t *b, uint32_t len, uint16_t port)
{
	return run_at(b, len, port, rte_rdtsc());
}

/* The drop reason counted in ul.st, or UNIT_FWD. */
static unsigned int
st_verdict(void)
{
	unsigned int i;

	for (i = 0; i < FOU_DROP_MAX; i++)
		if (ul.st.drop[i] != 0)
			return i;
	if (ul.st.local[FOU_LOCAL_CONSUMED] != 0)
		return V_CONSUMED;
	return UNIT_FWD;
}

static const char *
verdict_name(unsigned int v)
{
	return v == UNIT_FWD ? "sent" : v == V_CONSUMED ? "consumed" : fou_drop_name(v);
}

/* The error b received on port 1 at now ends as v, counting updates and
 * refused path MTU changes. */
static void
expect_err_at(const uint8_t *b, uint32_t len, unsigned int v, uint64_t updates, uint64_t refused,
	      uint64_t now, const char *what)
{
	if (run_at(b, len, EG_PORT, now) != 0 || st_verdict() != v)
		fail_msg("%s: expected %s, got %s", what, verdict_name(v),
			 verdict_name(st_verdict()));
	if (ul.st.local[FOU_LOCAL_PMTU_UPDATES] != updates ||
	    ul.st.local[FOU_LOCAL_PMTU_REFUSED] != refused)
		fail_msg("%s: %" PRIu64 " updates, %" PRIu64 " refused; expected %" PRIu64
			 ", %" PRIu64, what, ul.st.local[FOU_LOCAL_PMTU_UPDATES],
			 ul.st.local[FOU_LOCAL_PMTU_REFUSED], updates, refused);
	if (fou_stats_drops(&ul.st) + ul.st.local[FOU_LOCAL_CONSUMED] != 1 ||
	    !fou_stats_balanced(&ul.st))
		fail_msg("%s: not one packet dropped or consumed, or the counters do not balance",
			 what);
	UNIT_POOL_FULL();
}

#define EXPECT_TAKEN(b, len, what) \
	expect_err_at((b), (len), V_CONSUMED, 1, 0, rte_rdtsc(), (what))
#define EXPECT_REFUSED(b, len, what) \
	expect_err_at((b), (len), V_CONSUMED, 0, 1, rte_rdtsc(), (what))
#define EXPECT_BAD(b, len, what) \
	expect_err_at((b), (len), FOU_DROP_PMTU_BAD, 0, 0, rte_rdtsc(), (what))

/* Tunnel t1, the only one, as fou_tunnel_list() shows it. */
static struct fou_tunnel_info
tun_info(void)
{
	struct fou_tunnel_info ti[2];

	assert_int_equal(fou_tunnel_list(cur_gw, ti, RTE_DIM(ti)), 1);
	return ti[0];
}

/* Its path MTU (0: none) and tunnel MTU; a path MTU learnt just now has
 * its 600 seconds (rounded up) left. */
static void
expect_path(uint16_t path_mtu, uint16_t mtu, const char *what)
{
	const struct fou_tunnel_info ti = tun_info();

	if (ti.path_mtu != path_mtu || ti.mtu != mtu)
		fail_msg("%s: path MTU %u, tunnel MTU %u; expected %u, %u", what, ti.path_mtu,
			 ti.mtu, path_mtu, mtu);
	if (path_mtu != 0 ? ti.path_mtu_expires < 599 || ti.path_mtu_expires > 600 :
			    ti.path_mtu_expires != 0)
		fail_msg("%s: expires in %u s", what, ti.path_mtu_expires);
}

/* The frame f is exactly the golden g, sent on port. */
static void
expect_frame(const struct unit_frame *f, uint16_t port, const uint8_t *g, uint32_t len,
	     const char *what)
{
	uint32_t i;

	if (f->port != port || f->len != len)
		fail_msg("%s: %u bytes on port %u, expected %u on port %u", what, f->len, f->port,
			 len, port);
	if (memcmp(f->b, g, len) != 0) {
		for (i = 0; f->b[i] == g[i]; i++)
			;
		fail_msg("%s: differs at byte %u: 0x%02x, expected 0x%02x", what, i, f->b[i],
			 g[i]);
	}
}

/* The inner frame b from the sender leaves as exactly g on port. */
static void
expect_out(const uint8_t *b, uint32_t len, uint16_t port, const uint8_t *g, uint32_t glen,
	   const char *what)
{
	if (run(b, len, RX_PORT) != 1)
		fail_msg("%s: not sent (%s)", what, verdict_name(st_verdict()));
	expect_frame(&got[0], port, g, glen, what);
}

/*
 * The tests' own builder of what the router sends: fragmentation needed
 * from 192.168.1.2 to 192.168.1.1 about the outer IPv4 packet ip (quote
 * bytes of it), as gen_golden.py's frag_needed() (IPv4 ID 0x77, TTL 64).
 * Returns the frame's length.
 */
static uint32_t
frag_needed(const uint8_t *ip, uint32_t quote, uint16_t mtu, uint8_t *out)
{
	uint8_t *h = out + ETH, *icmp = h + 20;

	memcpy(out, &mac_eg, 6);
	memcpy(out + 6, &mac_nb4, 6);
	unit_put16(out + 12, RTE_ETHER_TYPE_IPV4);
	memset(h, 0, 28);
	h[0] = 0x45;
	unit_put16(h + 2, (uint16_t)(28 + quote));
	unit_put16(h + 4, 0x77);
	h[8] = 64;
	h[9] = IPPROTO_ICMP;
	unit_put32(h + 12, ROUTER);
	unit_put32(h + 16, LOCAL);
	unit_ip4_cksum_fix(h);
	icmp[0] = 3;
	icmp[1] = 4;
	unit_put16(icmp + 6, mtu);
	memcpy(icmp + 8, ip, quote);
	unit_put16(icmp + 2, (uint16_t)~rfc1071_fold(rfc1071_sum(icmp, 8 + quote, 0)));
	return ETH + 28 + quote;
}

/* After an edit to the error b of len bytes: its lengths and checksums. */
static uint32_t
refix(uint8_t *b, uint32_t len)
{
	uint8_t *icmp = b + ETH + 20;

	unit_put16(b + ETH + 2, (uint16_t)(len - ETH));
	unit_ip4_cksum_fix(b + ETH);
	unit_put16(icmp + 2, 0);
	unit_put16(icmp + 2, (uint16_t)~rfc1071_fold(rfc1071_sum(icmp, len - ETH - 20, 0)));
	return len;
}

#define QIP (ETH + 28)		/* the quoted IPv4 header in an error */

/* --- the golden sequence --------------------------------------------------- */

/*
 * Per tunnel: the inner packet of the tunnel MTU leaves as a 1500-byte
 * outer packet; the router's fragmentation needed (MTU 1400) about it is
 * taken; the same inner packet then comes back to the sender as
 * fragmentation needed with MTU 1400 minus the outer headers.
 */
static void
test_pmtu_golden(void **state)
{
	static const struct {
		const char *name;
		const uint8_t *in, *out, *err, *frag;
		uint32_t in_len, out_len, err_len, frag_len;
	} cases[] = {
#define C(n) { #n, g_pmtu_##n##_big_in, g_pmtu_##n##_big_out, g_pmtu_##n##_err, \
	       g_pmtu_##n##_big_frag, sizeof(g_pmtu_##n##_big_in), sizeof(g_pmtu_##n##_big_out), \
	       sizeof(g_pmtu_##n##_err), sizeof(g_pmtu_##n##_big_frag) }
		C(ipip), C(gre), C(fgre), C(gue),
#undef C
	};
	uint8_t b[UNIT_PKT_MAX];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		uint16_t oh;

		pmtu_gw(pmtu_stmts(cases[i].name));
		unit_ctx("%s", cases[i].name);
		oh = tun_info().overhead;
		expect_path(0, (uint16_t)(1500 - oh), "before");
		/* the tests' builder gives scapy's error, byte for byte */
		assert_int_equal(frag_needed(cases[i].out + ETH, QUOTE, 1400, b), cases[i].err_len);
		assert_memory_equal(b, cases[i].err, cases[i].err_len);

		expect_out(cases[i].in, cases[i].in_len, EG_PORT, cases[i].out, cases[i].out_len,
			   "at the port's MTU");
		EXPECT_TAKEN(cases[i].err, cases[i].err_len, "fragmentation needed 1400");
		expect_path(1400, (uint16_t)(1400 - oh), "after");
		expect_out(cases[i].in, cases[i].in_len, RX_PORT, cases[i].frag, cases[i].frag_len,
			   "over the path MTU");
		assert_int_equal(ul.st.icmp_out[FOU_ICMP_FRAG_NEEDED], 1);
		assert_int_equal(ul.st.drop[FOU_DROP_MTU_EXCEEDED] + fou_stats_drops(&ul.st), 0);
	}
}

/* At the lowered MTU a packet fits; 300 is taken as 552 (the inner MTU
 * 524), and once at 552 a lower report changes nothing. */
static void
test_pmtu_floor(void **state)
{
	uint8_t b[UNIT_PKT_MAX];
	uint32_t len;

	(void)state;
	pmtu_gw(pmtu_stmts("ipip"));
	EXPECT_TAKEN(g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), "1400");
	expect_out(g_pmtu_ipip_fits_in, sizeof(g_pmtu_ipip_fits_in), EG_PORT, g_pmtu_ipip_fits_out,
		   sizeof(g_pmtu_ipip_fits_out), "1372 under path MTU 1400");
	EXPECT_TAKEN(g_pmtu_ipip_err_300, sizeof(g_pmtu_ipip_err_300), "300");
	expect_path(552, 524, "300 taken as 552");
	expect_out(g_pmtu_ipip_fits_in, sizeof(g_pmtu_ipip_fits_in), RX_PORT,
		   g_pmtu_ipip_fits_frag, sizeof(g_pmtu_ipip_fits_frag), "1372 over 524");
	EXPECT_REFUSED(g_pmtu_ipip_err_300, sizeof(g_pmtu_ipip_err_300), "300 again");
	/* an MTU of 0 (a router from before RFC 1191): the floor too */
	memcpy(b, g_pmtu_ipip_err_300, sizeof(g_pmtu_ipip_err_300));
	unit_put16(b + ETH + 26, 0);
	EXPECT_REFUSED(b, refix(b, sizeof(g_pmtu_ipip_err_300)), "0 at 552");
	expect_path(552, 524, "after the refusals");
	/* an inner packet of exactly 524 bytes: a 552-byte outer packet */
	len = ETH + 524;
	memcpy(b, g_pmtu_ipip_fits_in, len);
	unit_put16(b + ETH + 2, 524);
	unit_ip4_cksum_fix(b + ETH);
	if (run(b, len, RX_PORT) != 1 || got[0].port != EG_PORT || got[0].len != ETH + 552)
		fail_msg("524 bytes at path MTU 552: not sent as 552 (%s)",
			 verdict_name(st_verdict()));
	/* and from a fresh tunnel, 0 straight to 552 */
	pmtu_gw(pmtu_stmts("ipip"));
	EXPECT_TAKEN(b, frag_needed(g_pmtu_ipip_big_out + ETH, QUOTE, 0, b), "0");
	expect_path(552, 524, "0 taken as 552");
}

/*
 * An error never raises the MTU (Linux' __ip_rt_update_pmtu returns when
 * old_mtu < mtu): one at or above what the path carries now, the learnt
 * MTU or the port's, is refused and changes nothing. The port's MTU still
 * bounds the tunnel when it goes below the path MTU.
 */
static void
test_pmtu_never_raised(void **state)
{
	uint8_t b[UNIT_PKT_MAX];

	(void)state;
	pmtu_gw(pmtu_stmts("ipip"));
	EXPECT_REFUSED(b, frag_needed(g_pmtu_ipip_big_out + ETH, QUOTE, 1500, b),
		       "1500, the port's MTU");
	EXPECT_REFUSED(b, frag_needed(g_pmtu_ipip_big_out + ETH, QUOTE, 9000, b), "9000");
	expect_path(0, 1472, "nothing learnt");
	EXPECT_TAKEN(g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), "1400");
	EXPECT_REFUSED(g_pmtu_ipip_err_raise, sizeof(g_pmtu_ipip_err_raise), "1450 after 1400");
	EXPECT_REFUSED(g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), "1400 again");
	expect_path(1400, 1372, "still 1400");
	UNIT_APPLY(cur_gw, "link", "1,mtu=1300");
	expect_path(1400, 1272, "port MTU 1300");
	EXPECT_REFUSED(b, frag_needed(g_pmtu_ipip_big_out + ETH, QUOTE, 1350, b),
		       "1350 over a port of 1300");
	UNIT_APPLY(cur_gw, "link", "1,mtu=1500");
	expect_path(1400, 1372, "port MTU 1500 again");
}

/* What a forged (or someone else's) error changes: nothing. */
static void
expect_forged(const char *stmts, const uint8_t *err, uint32_t len, void (*edit)(uint8_t *q),
	      const char *what)
{
	uint8_t b[UNIT_PKT_MAX];
	struct fou_tunnel_info before;

	pmtu_gw(stmts);
	before = tun_info();
	memcpy(b, err, len);
	edit(b + QIP);
	EXPECT_BAD(b, refix(b, len), what);
	expect_path(0, before.mtu, what);
}

#define EDIT(name, stmt) static void name(uint8_t *q) { stmt; }
EDIT(q_other_remote, unit_put32(q + 16, IP4(10, 20, 0, 10)))
EDIT(q_other_local, unit_put32(q + 12, IP4(192, 168, 1, 9)))
EDIT(q_tcp, q[9] = IPPROTO_TCP)
EDIT(q_plain_ipip, q[9] = IPPROTO_IPIP)
EDIT(q_fou_proto, q[9] = IPPROTO_UDP)
EDIT(q_dport, unit_put16(q + 22, 5556))
EDIT(q_sport, unit_put16(q + 20, 4243))
EDIT(q_inner_v6, q[28] = 0x65)
EDIT(q_gre_key, unit_put32(q + 24, 43))
EDIT(q_gre_nokey, q[20] = 0)
EDIT(q_gre_csum, q[20] |= 0x80)
EDIT(q_gre_seq, q[20] |= 0x10)
EDIT(q_fgre_key, unit_put32(q + 36, 43))
EDIT(q_fgre_nocsum, q[28] &= 0x7f)
#undef EDIT

/*
 * Errors that match no tunnel of ours are pmtu_bad and change nothing:
 * another remote or local, another protocol or encapsulation, other UDP
 * ports, an inner version or GRE flags the tunnel does not send, another
 * GRE key; a wrong ICMP checksum; and any error when there is no tunnel.
 */
static void
test_pmtu_forged(void **state)
{
	const char *ipip = pmtu_stmts("ipip"), *gre = pmtu_stmts("gre"),
		   *fgre = pmtu_stmts("fgre");
	uint8_t b[UNIT_PKT_MAX];

	(void)state;
	expect_forged(ipip, g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), q_other_remote,
		      "a remote we have no tunnel to");
	expect_forged(ipip, g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), q_other_local,
		      "another local address");
	expect_forged(ipip, g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), q_tcp, "TCP");
	expect_forged(ipip, g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), q_plain_ipip,
		      "plain IPIP for a FOU tunnel");
	expect_forged(ipip, g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), q_dport,
		      "another encap-dport");
	expect_forged(ipip, g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), q_sport,
		      "another encap-sport");
	expect_forged(ipip, g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), q_inner_v6,
		      "IPv6 inside an ipip tunnel");
	expect_forged(gre, g_pmtu_gre_err, sizeof(g_pmtu_gre_err), q_gre_key, "GRE key 43, not 42");
	expect_forged(gre, g_pmtu_gre_err, sizeof(g_pmtu_gre_err), q_gre_nokey, "GRE without key");
	expect_forged(gre, g_pmtu_gre_err, sizeof(g_pmtu_gre_err), q_gre_csum,
		      "GRE with a checksum the tunnel does not send");
	expect_forged(gre, g_pmtu_gre_err, sizeof(g_pmtu_gre_err), q_gre_seq,
		      "GRE with sequence numbers the tunnel does not send");
	expect_forged(gre, g_pmtu_gre_err, sizeof(g_pmtu_gre_err), q_fou_proto,
		      "UDP for a plain tunnel");
	expect_forged(fgre, g_pmtu_fgre_err, sizeof(g_pmtu_fgre_err), q_fgre_key,
		      "GRE/fou key 43, not 42");
	expect_forged(fgre, g_pmtu_fgre_err, sizeof(g_pmtu_fgre_err), q_fgre_nocsum,
		      "GRE/fou without its checksum");
	/* a wrong ICMP checksum: nothing in it can be trusted */
	pmtu_gw(ipip);
	memcpy(b, g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err));
	b[ETH + 24] ^= 1;
	EXPECT_BAD(b, sizeof(g_pmtu_ipip_err), "ICMP checksum");
	expect_path(0, 1472, "ICMP checksum");
	/* no tunnel at all */
	pmtu_gw("");
	EXPECT_BAD(g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), "no tunnel");
	/* other destination unreachable codes are not path MTU errors */
	pmtu_gw(ipip);
	memcpy(b, g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err));
	b[ETH + 21] = 3;	/* port unreachable */
	refix(b, sizeof(g_pmtu_ipip_err));
	assert_int_equal(run(b, sizeof(g_pmtu_ipip_err), EG_PORT), 0);
	assert_true(st_verdict() != V_CONSUMED && st_verdict() != FOU_DROP_PMTU_BAD);
	expect_path(0, 1472, "port unreachable");
}

/*
 * The quote must hold the quoted IPv4 header and the 8 bytes after it
 * (icmp_unreach, icmp_socket_deliver); those 8 are all an RFC 792 router
 * sends, which is enough for FOU (the UDP ports) and plain tunnels, but a
 * keyed tunnel over FOU needs its GRE header up to the key.
 */
static void
test_pmtu_truncated(void **state)
{
	uint8_t b[UNIT_PKT_MAX];
	uint32_t len;

	(void)state;
	pmtu_gw(pmtu_stmts("ipip"));
	EXPECT_BAD(b, frag_needed(g_pmtu_ipip_big_out + ETH, 27, 1400, b), "20 + 7 quoted");
	EXPECT_BAD(b, frag_needed(g_pmtu_ipip_big_out + ETH, 12, 1400, b), "12 quoted");
	EXPECT_BAD(b, frag_needed(g_pmtu_ipip_big_out + ETH, 0, 1400, b), "nothing quoted");
	/* the ICMP message shorter than its header */
	len = frag_needed(g_pmtu_ipip_big_out + ETH, 0, 1400, b) - 4;
	EXPECT_BAD(b, refix(b, len), "4 bytes of ICMP");
	/* a quoted header with options: 8 bytes after the options */
	len = frag_needed(g_pmtu_ipip_big_out + ETH, 28, 1400, b);
	b[QIP] = 0x46;
	EXPECT_BAD(b, refix(b, len), "IHL 6, 28 bytes quoted");
	len = frag_needed(g_pmtu_ipip_big_out + ETH, 28, 1400, b);
	b[QIP] = 0x44;
	EXPECT_BAD(b, refix(b, len), "IHL 4");
	b[QIP] = 0x65;
	EXPECT_BAD(b, refix(b, len), "version 6");
	b[QIP] = 0x45;
	unit_put16(b + QIP + 6, 0x4000 | 185);
	EXPECT_BAD(b, refix(b, len), "a later fragment");
	expect_path(0, 1472, "after the truncated ones");
	EXPECT_TAKEN(b, frag_needed(g_pmtu_ipip_big_out + ETH, 28, 1400, b), "RFC 792: 20 + 8");
	expect_path(1400, 1372, "RFC 792 quote");

	pmtu_gw(pmtu_stmts("gre"));
	EXPECT_TAKEN(b, frag_needed(g_pmtu_gre_big_out + ETH, 28, 1400, b), "GRE key in 8 bytes");

	/* GRE/fou with csum and key: flags, checksum word and key after UDP */
	pmtu_gw(pmtu_stmts("fgre"));
	EXPECT_BAD(b, frag_needed(g_pmtu_fgre_big_out + ETH, 28, 1400, b), "GRE/fou, 20 + 8");
	EXPECT_BAD(b, frag_needed(g_pmtu_fgre_big_out + ETH, 28 + 11, 1400, b),
		   "GRE/fou, 20 + 8 + 11");
	EXPECT_TAKEN(b, frag_needed(g_pmtu_fgre_big_out + ETH, 28 + 12, 1400, b),
		     "GRE/fou, 20 + 8 + 12");
}

/*
 * A path MTU lasts 10 minutes (ip_rt_mtu_expires), then the port's MTU is
 * the tunnel's again: the data path compares the expiry with the `now` it
 * is given, so the test gives it a later one. Once expired, an error
 * that would not have lowered it is taken afresh.
 */
static void
test_pmtu_expiry(void **state)
{
	const uint64_t hz = rte_get_tsc_hz(), t0 = rte_rdtsc();
	const uint64_t before = t0 + 599 * hz, after = t0 + 601 * hz;

	(void)state;
	pmtu_gw(pmtu_stmts("ipip"));
	expect_err_at(g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), V_CONSUMED, 1, 0, t0,
		      "1400 at t0");
	if (run_at(g_pmtu_ipip_big_in, sizeof(g_pmtu_ipip_big_in), RX_PORT, before) != 1)
		fail_msg("599 s later: not answered");
	expect_frame(&got[0], RX_PORT, g_pmtu_ipip_big_frag, sizeof(g_pmtu_ipip_big_frag),
		     "599 s later: fragmentation needed 1372");
	if (run_at(g_pmtu_ipip_big_in, sizeof(g_pmtu_ipip_big_in), RX_PORT, after) != 1)
		fail_msg("601 s later: not sent");
	expect_frame(&got[0], EG_PORT, g_pmtu_ipip_big_out, sizeof(g_pmtu_ipip_big_out),
		     "601 s later: the port's MTU again");
	/* 1450 over 1400: refused while it lasts, taken once it has expired */
	expect_err_at(g_pmtu_ipip_err_raise, sizeof(g_pmtu_ipip_err_raise), V_CONSUMED, 0, 1,
		      before, "1450 at 599 s");
	expect_err_at(g_pmtu_ipip_err_raise, sizeof(g_pmtu_ipip_err_raise), V_CONSUMED, 1, 0,
		      after, "1450 at 601 s");
	if (run_at(g_pmtu_ipip_big_in, sizeof(g_pmtu_ipip_big_in), RX_PORT, after) != 1 ||
	    got[0].port != RX_PORT || unit_get16(got[0].b + ETH + 26) != 1450 - 28)
		fail_msg("after 1450: no fragmentation needed with MTU 1422");
	/* which lasts 600 s from when it was taken */
	if (run_at(g_pmtu_ipip_big_in, sizeof(g_pmtu_ipip_big_in), RX_PORT,
		   after + 599 * hz) != 1 || got[0].port != RX_PORT)
		fail_msg("1450 expired early");
	if (run_at(g_pmtu_ipip_big_in, sizeof(g_pmtu_ipip_big_in), RX_PORT,
		   after + 601 * hz) != 1 || got[0].port != EG_PORT)
		fail_msg("1450 did not expire");
}

/*
 * nopmtudisc: the tunnel sends an inner IPv4 packet without DF without DF
 * itself: the path MTU bounds only what leaves with DF (Linux'
 * tnl_update_pmtu), so that packet is encapsulated at the tunnel's MTU,
 * and the outer packet, over the path MTU, is fragmented to it (Linux'
 * ip_fragment after ip_tunnel_xmit) while one with DF gets fragmentation
 * needed.
 */
static void
test_pmtu_nopmtudisc(void **state)
{
	uint8_t b[UNIT_PKT_MAX];
	const uint32_t len = sizeof(g_pmtu_ipip_big_in);

	(void)state;
	pmtu_gw("tunnel t1,type=ipip,local=192.168.1.1,remote=10.20.0.9,nopmtudisc,"
		"encap-sport=4242,encap-dport=5555\nroute 10.50.0.0/16,dev=t1");
	EXPECT_TAKEN(g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), "1400");
	expect_out(g_pmtu_ipip_big_in, len, RX_PORT, g_pmtu_ipip_big_frag,
		   sizeof(g_pmtu_ipip_big_frag), "DF over the path MTU");
	memcpy(b, g_pmtu_ipip_big_in, len);
	unit_put16(b + ETH + 6, 0);
	unit_ip4_cksum_fix(b + ETH);
	/* 1500 outer bytes at 1400: 1376 of payload (8-byte units), then 104 */
	if (run(b, len, RX_PORT) != 2 || got[0].port != EG_PORT || got[1].port != EG_PORT ||
	    got[0].len != ETH + 20 + 1376 || got[1].len != ETH + 20 + 104 ||
	    unit_get16(got[0].b + ETH + 6) != 0x2000 || unit_get16(got[1].b + ETH + 6) != 172 ||
	    unit_get16(got[0].b + ETH + 4) != unit_get16(got[1].b + ETH + 4) ||
	    !unit_cksum_ok(got[0].b + ETH, 20) || !unit_cksum_ok(got[1].b + ETH, 20) ||
	    unit_get16(got[0].b + ETH + 20 + 4) != 1480 ||
	    memcmp(got[0].b + ETH + 48, b + ETH + 20, 1376 - 28) != 0 ||
	    memcmp(got[1].b + ETH + 20, b + ETH + 1376 - 8, 104) != 0)
		fail_msg("no DF: not sent in two outer fragments of the path MTU (%s): "
			 "%u and %u bytes, 0x%04x 0x%04x", verdict_name(st_verdict()), got[0].len,
			 got[1].len, unit_get16(got[0].b + ETH + 6), unit_get16(got[1].b + ETH + 6));
}

/* encap-sport auto: the quoted source port must be in the range. */
static void
test_pmtu_sport_auto(void **state)
{
	uint8_t b[UNIT_PKT_MAX], sent[UNIT_PKT_MAX];
	uint32_t len;

	(void)state;
	pmtu_gw("tunnel t1,type=ipip,local=192.168.1.1,remote=10.20.0.9,encap-dport=5555\n"
		"route 10.50.0.0/16,dev=t1");
	assert_int_equal(run(g_pmtu_ipip_big_in, sizeof(g_pmtu_ipip_big_in), RX_PORT), 1);
	assert_int_equal(got[0].len, ETH + 1500);
	memcpy(sent, got[0].b, got[0].len);
	len = frag_needed(sent + ETH, QUOTE, 1400, b);
	unit_put16(b + QIP + 20, 1000);
	EXPECT_BAD(b, refix(b, len), "source port 1000, outside 32768-60999");
	EXPECT_TAKEN(b, frag_needed(sent + ETH, QUOTE, 1400, b), "what the gateway sent");
	expect_path(1400, 1372, "auto");
}

/*
 * Plain sit, IPv6 inside: the error about its outer packet (protocol 41)
 * lowers it, and an IPv6 packet over the new MTU gets packet too big with
 * it (path MTU 1392: tunnel MTU 1372, test_encap's mtu6_sit_pkt_too_big).
 */
static void
test_pmtu_sit_ipv6(void **state)
{
	const struct golden_tx *tx = tx_case("tx_sit_none");
	const struct golden_tx *big = tx_case("mtu6_sit_pkt_too_big");
	uint8_t b[UNIT_PKT_MAX];

	(void)state;
	pmtu_gw(tx->stmts);
	assert_int_equal(run(tx->in, tx->in_len, RX_PORT), 1);
	EXPECT_TAKEN(b, frag_needed(got[0].b + ETH, got[0].len - ETH, 1392, b), "sit 1392");
	expect_path(1392, 1372, "sit");
	expect_out(big->in, big->in_len, RX_PORT, big->out, big->out_len, "IPv6 of 1373");
	assert_int_equal(ul.st.icmp_out[FOU_ICMP_PKT_TOO_BIG], 1);
}

/* An error in three segments, its ICMP header split between two. */
static void
test_pmtu_segmented(void **state)
{
	static const uint32_t segs[] = { QIP - 4, 100 };
	struct rte_mbuf *m;

	(void)state;
	pmtu_gw(pmtu_stmts("ipip"));
	m = unit_mbuf_segs(g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), segs, 3);
	unit_lcore_begin(&ul, cur_gw, 0);
	assert_int_equal(unit_burst_at(&ul, EG_PORT, &m, 1, got, rte_rdtsc()), 0);
	assert_int_equal(ul.st.local[FOU_LOCAL_CONSUMED], 1);
	assert_int_equal(ul.st.local[FOU_LOCAL_PMTU_UPDATES], 1);
	expect_path(1400, 1372, "segmented");
}

/* A tunnel deleted and added again starts from its port's MTU. */
static void
test_pmtu_tunnel_again(void **state)
{
	(void)state;
	pmtu_gw(pmtu_stmts("ipip"));
	EXPECT_TAKEN(g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), "1400");
	UNIT_DEL(cur_gw, "tunnel", "t1");
	UNIT_APPLY_LINES(cur_gw, pmtu_stmts("ipip"));
	expect_path(0, 1472, "added again");
	EXPECT_TAKEN(g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), "1400 again");
	expect_path(1400, 1372, "lowered again");
}

/* --- the probed path MTU (fou_plpmtu.c) --------------------------------- */

/*
 * Tunnel t1's path MTU search run to its end, started now on a fresh path
 * that carries outer packets of up to carry bytes: each probe the search
 * wants is confirmed or lost as that path would (the probes themselves
 * are tested in the functional tests). Returns the probes it took.
 */
static unsigned int
search_to(uint16_t carry)
{
	const uint64_t hz = rte_get_tsc_hz(), now = rte_rdtsc();
	struct fou_plpmtu *s = &cur_gw->plpmtu[0].s;
	unsigned int n;

	assert_int_equal(fou_plpmtu_tunnel_start(cur_gw, 0, true, now), 0);
	for (n = 0; n < 100 && s->state != FOU_PLPMTU_SEARCH_COMPLETE &&
	     s->state != FOU_PLPMTU_ERROR; n++) {
		const uint16_t size = fou_plpmtu_want(s, now, hz);

		if (size <= carry)
			fou_plpmtu_tunnel_acked(cur_gw, 0, size, now);
		else
			fou_plpmtu_tunnel_lost(cur_gw, 0, size, true, now);
	}
	return n;
}

/* Its probed MTU and search state, and the tunnel MTU. */
static void
expect_probed(uint16_t probed, const char *search, uint16_t mtu, const char *what)
{
	const struct fou_tunnel_info ti = tun_info();

	if (ti.probed_mtu != probed || strcmp(ti.mtu_search, search) != 0 || ti.mtu != mtu)
		fail_msg("%s: probed MTU %u (%s), tunnel MTU %u; expected %u (%s), %u", what,
			 ti.probed_mtu, ti.mtu_search, ti.mtu, probed, search, mtu);
}

/*
 * A path that silently drops outer packets over 1400 bytes: the search
 * finds 1400, the tunnel MTU follows (no ICMP path MTU learnt), and the
 * inner packet that made a 1500-byte outer one now gets fragmentation
 * needed quoting 1400 less the overhead, byte for byte what an ICMP-learnt
 * 1400 gives (the golden frame). The lower of the ICMP and probed MTUs
 * wins, and the port's MTU still bounds both; a tunnel deleted and added
 * again has neither.
 */
static void
test_pmtu_probed(void **state)
{
	uint8_t b[UNIT_PKT_MAX];

	(void)state;
	pmtu_gw(pmtu_stmts("ipip"));
	expect_probed(0, "disabled", 1472, "before");
	expect_out(g_pmtu_ipip_big_in, sizeof(g_pmtu_ipip_big_in), EG_PORT, g_pmtu_ipip_big_out,
		   sizeof(g_pmtu_ipip_big_out), "before the search");
	search_to(1400);
	expect_probed(1400, "search_complete", 1372, "searched");
	expect_path(0, 1372, "no ICMP path MTU");
	expect_out(g_pmtu_ipip_big_in, sizeof(g_pmtu_ipip_big_in), RX_PORT, g_pmtu_ipip_big_frag,
		   sizeof(g_pmtu_ipip_big_frag), "over the probed MTU");
	assert_int_equal(ul.st.icmp_out[FOU_ICMP_FRAG_NEEDED], 1);
	expect_out(g_pmtu_ipip_fits_in, sizeof(g_pmtu_ipip_fits_in), EG_PORT, g_pmtu_ipip_fits_out,
		   sizeof(g_pmtu_ipip_fits_out), "1372 at the probed MTU");
	/* ICMP below the probed MTU: the lower wins; an ICMP error above it
	 * is still taken (it does not raise what the port carries) */
	EXPECT_TAKEN(b, frag_needed(g_pmtu_ipip_big_out + ETH, QUOTE, 1300, b), "ICMP 1300");
	expect_probed(1400, "search_complete", 1272, "ICMP 1300 under probed 1400");
	pmtu_gw(pmtu_stmts("ipip"));
	EXPECT_TAKEN(g_pmtu_ipip_err, sizeof(g_pmtu_ipip_err), "ICMP 1400");
	search_to(1350);
	expect_probed(1350, "search_complete", 1322, "probed 1350 under ICMP 1400");
	/* the port's MTU below both */
	UNIT_APPLY(cur_gw, "link", "1,mtu=1300");
	expect_probed(1350, "search_complete", 1272, "port MTU 1300");
	UNIT_APPLY(cur_gw, "link", "1,mtu=1500");
	/* a path that carries the port's MTU: one probe above BASE */
	assert_int_equal(search_to(1500), 2);
	expect_probed(1500, "search_complete", 1372, "1500 probed, ICMP 1400");
	UNIT_DEL(cur_gw, "tunnel", "t1");
	UNIT_APPLY_LINES(cur_gw, pmtu_stmts("ipip"));
	expect_probed(0, "disabled", 1472, "added again");
}

/* A search on demand: refused, named, for no tunnel or one that does not
 * probe; a searched one starts again at BASE and keeps its probed MTU. */
static void
test_pmtu_probe_on_demand(void **state)
{
	struct fou_err err = { "" };

	(void)state;
	pmtu_gw(pmtu_stmts("ipip"));
	assert_int_equal(fou_tunnel_mtu_probe(cur_gw, "t9", &err), -ENODEV);
	assert_non_null(strstr(err.msg, "no tunnel 't9'"));
	assert_int_equal(fou_tunnel_mtu_probe(cur_gw, "t1", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "probe=on"));
	expect_probed(0, "disabled", 1472, "refused");
	pmtu_gw("tunnel t1,type=ipip,local=192.168.1.1,remote=10.20.0.9,encap-sport=4242,"
		"encap-dport=5555,probe=on\nroute 10.50.0.0/16,dev=t1");
	search_to(1400);
	assert_int_equal(fou_tunnel_mtu_probe(cur_gw, "t1", &err), 0);
	expect_probed(1400, "base", 1372, "on demand");
	/* without a way to the remote: nothing to search through */
	UNIT_DEL(cur_gw, "route", "10.20.0.0/16");
	assert_int_equal(fou_tunnel_mtu_probe(cur_gw, "t1", &err), -ENETUNREACH);
	assert_non_null(strstr(err.msg, "no route"));
}

/* Plain sit, IPv6 inside: an IPv6 packet over the probed MTU gets packet
 * too big with it (probed 1392: tunnel MTU 1372, as test_pmtu_sit_ipv6). */
static void
test_pmtu_probed_sit(void **state)
{
	const struct golden_tx *big = tx_case("mtu6_sit_pkt_too_big");

	(void)state;
	pmtu_gw(tx_case("tx_sit_none")->stmts);
	search_to(1392);
	expect_probed(1392, "search_complete", 1372, "sit");
	expect_out(big->in, big->in_len, RX_PORT, big->out, big->out_len, "IPv6 of 1373");
	assert_int_equal(ul.st.icmp_out[FOU_ICMP_PKT_TOO_BIG], 1);
}

/* An IPv6-underlay tunnel's path MTU (0: none) and its tunnel MTU, the
 * path's or the port's 1500 less its overhead. */
static void
expect_path6(uint16_t path_mtu, const char *what)
{
	const struct fou_tunnel_info ti = tun_info();

	expect_path(path_mtu, (uint16_t)((path_mtu != 0 ? path_mtu : 1500) - ti.overhead), what);
}

/*
 * ICMPv6 packet too big about an outer packet an ip6tnl / ip6gre sent
 * (ip6_tnl_err, ip6gre_err, fou6 / gue6 through them; ip6_update_pmtu):
 * its path MTU is lowered, 1280 at least, never raised, for 10 minutes;
 * a quote of another remote, ports, inner version, encapsulation or GRE
 * key, or a wrong checksum, is pmtu_bad and changes nothing.
 */
static void
test_pmtu6(void **state)
{
	static const struct {
		const char *name;
		const uint8_t *b;
		uint32_t len;
	} taken[] = {
		{ "ipip6", g_pmtu6_ipip6_err, sizeof(g_pmtu6_ipip6_err) },
		{ "gue6", g_pmtu6_gue6_err, sizeof(g_pmtu6_gue6_err) },
		{ "gre6", g_pmtu6_gre6_err, sizeof(g_pmtu6_gre6_err) },
	}, forged[] = {
		{ "another remote", g_pmtu6_ipip6_forged_other_remote,
		  sizeof(g_pmtu6_ipip6_forged_other_remote) },
		{ "another source port", g_pmtu6_ipip6_forged_sport,
		  sizeof(g_pmtu6_ipip6_forged_sport) },
		{ "another destination port", g_pmtu6_ipip6_forged_dport,
		  sizeof(g_pmtu6_ipip6_forged_dport) },
		{ "IPv6 inside mode ipip6", g_pmtu6_ipip6_forged_inner6,
		  sizeof(g_pmtu6_ipip6_forged_inner6) },
		{ "plain IPIP for a FOU tunnel", g_pmtu6_ipip6_forged_plain,
		  sizeof(g_pmtu6_ipip6_forged_plain) },
		{ "ICMPv6 checksum", g_pmtu6_ipip6_badsum, sizeof(g_pmtu6_ipip6_badsum) },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(taken); i++) {
		pmtu_gw(pmtu_stmts(taken[i].name));
		expect_path6(0, taken[i].name);
		EXPECT_TAKEN(taken[i].b, taken[i].len, taken[i].name);
		expect_path6(1400, taken[i].name);
		EXPECT_REFUSED(taken[i].b, taken[i].len, taken[i].name);
	}
	pmtu_gw(pmtu_stmts("ipip6"));
	EXPECT_REFUSED(g_pmtu6_ipip6_err_1500, sizeof(g_pmtu6_ipip6_err_1500), "1500, the port's");
	EXPECT_REFUSED(g_pmtu6_ipip6_err_huge, sizeof(g_pmtu6_ipip6_err_huge), "70000");
	expect_path6(0, "nothing learnt");
	EXPECT_TAKEN(g_pmtu6_ipip6_err_1000, sizeof(g_pmtu6_ipip6_err_1000), "1000");
	expect_path6(1280, "1000 taken as 1280");
	EXPECT_REFUSED(g_pmtu6_ipip6_err, sizeof(g_pmtu6_ipip6_err), "1400 after 1280");
	expect_path6(1280, "still 1280");
	/* it expires as over IPv4 (a later now, not a wait) */
	expect_err_at(g_pmtu6_ipip6_err, sizeof(g_pmtu6_ipip6_err), V_CONSUMED, 1, 0,
		      rte_rdtsc() + 601 * rte_get_tsc_hz(), "1400 after 1280 expired");
	for (i = 0; i < RTE_DIM(forged); i++) {
		pmtu_gw(pmtu_stmts("ipip6"));
		EXPECT_BAD(forged[i].b, forged[i].len, forged[i].name);
		expect_path6(0, forged[i].name);
	}
	pmtu_gw(pmtu_stmts("gre6"));
	EXPECT_BAD(g_pmtu6_gre6_key43, sizeof(g_pmtu6_gre6_key43), "GRE key 43");
	expect_path6(0, "GRE key 43");
	/* an IPv4 tunnel is not found by an IPv6 quote, nor the other way */
	pmtu_gw(pmtu_stmts("ipip"));
	EXPECT_BAD(g_pmtu6_ipip6_err, sizeof(g_pmtu6_ipip6_err), "no IPv6 tunnel");
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_pmtu_golden),
		T(test_pmtu_floor),
		T(test_pmtu_never_raised),
		T(test_pmtu_forged),
		T(test_pmtu_truncated),
		T(test_pmtu_expiry),
		T(test_pmtu_nopmtudisc),
		T(test_pmtu_sport_auto),
		T(test_pmtu_sit_ipv6),
		T(test_pmtu_segmented),
		T(test_pmtu_tunnel_again),
		T(test_pmtu_probed),
		T(test_pmtu_probed_sit),
		T(test_pmtu_probe_on_demand),
		T(test_pmtu6),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("pmtu", tests, NULL, NULL);
	return unit_eal_fini(failures);
}
