/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tunnel health (fou_probe.c) on a real gateway: a control context whose
 * fou_probe_service() runs at times the test chooses, on a thread of its
 * own (a change of state waits for a grace period: fou_tunnel_usable_set()),
 * and a started worker context on this thread that reports its quiescent
 * states meanwhile, sends what the control side built (fou_lcore_idle())
 * and receives the replies the test makes from it (fou_lcore_rx() at a
 * chosen TSC). 10.77.0.0/16 is routed into t1 (metric 0) and t2 (10). Tunnel t1 (ipip over FOU to 10.0.0.2,
 * 172.16.0.1/30 on it) gets its probes back as a forwarding peer would;
 * t2 (to 10.0.0.3, 172.16.1.1/30) only ever gets forged ones; t4, GRE to
 * 10.0.0.5 with 172.16.3.1/30 and fd00:50::1/64, probes over both families.
 */
#include <pthread.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "fou_probe.h"
#include "unit.h"

#define T1_IP IP4(172, 16, 0, 1)
#define T2_IP IP4(172, 16, 1, 1)
#define INTERVAL_MS 100
#define OUTER 14			/* the frames' Ethernet header */
#define IN(f) ((f)->b + OUTER + 20 + 8)	/* the inner IPv4 header */
#define PL(f) (IN(f) + 20 + 8)		/* the probe payload */

static const struct rte_ether_addr mac_p2 = { { 0x02, 0, 0, 0, 0, 0x02 } };
static const struct rte_ether_addr mac_p3 = { { 0x02, 0, 0, 0, 0, 0x03 } };
static const struct rte_ether_addr mac_p5 = { { 0x02, 0, 0, 0, 0, 0x05 } };

static struct fou_gw *pgw;
static struct fou_lcore *pctl;
static struct unit_lcore pu;
static struct unit_frame psent[16];
static unsigned int nb_psent;
static uint64_t pt0, phz;

/* What the worker sends: kept, and counted sent as the app's TX counts it. */
static void
emit_keep(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports, uint16_t n)
{
	struct fou_lcore_stats *st = fou_lcore_stats(pgw, pu.lcore_id);
	uint16_t i;

	(void)ctx;
	for (i = 0; i < n; i++) {
		st->tx[ports[i]]++;
		if (nb_psent < RTE_DIM(psent))
			unit_frame_copy(pkts[i], ports[i], &psent[nb_psent]);
		nb_psent++;
		rte_pktmbuf_free(pkts[i]);
	}
}

static uint64_t
at(uint64_t ms)
{
	return pt0 + phz / 1000 * ms;
}

struct round {
	uint64_t now;
	bool plpmtu;	/* the path MTU searches' round too */
	bool done;
};

static void *
round_run(void *arg)
{
	struct round *r = arg;

	fou_probe_service(pctl, r->now);
	if (r->plpmtu)
		fou_plpmtu_service(pctl, r->now);
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* The probe round at t0 + ms (and the path MTU searches', plpmtu), the
 * worker polling meanwhile, then what the worker sends: how many frames. */
static unsigned int
round_at(uint64_t ms, bool plpmtu)
{
	struct round r = { .now = at(ms), .plpmtu = plpmtu };
	pthread_t th;

	nb_psent = 0;
	assert_int_equal(pthread_create(&th, NULL, round_run, &r), 0);
	while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE))
		fou_lcore_idle(pu.lc, rte_rdtsc(), emit_keep, NULL);
	pthread_join(th, NULL);
	fou_lcore_idle(pu.lc, rte_rdtsc(), emit_keep, NULL);
	assert_true(nb_psent <= RTE_DIM(psent));
	return nb_psent;
}

static unsigned int
service_at(uint64_t ms)
{
	return round_at(ms, false);
}

static int
setup_probe(void **state)
{
	const struct fou_lcore_conf c = { .direct = unit_pool, .indirect = unit_pool,
					  .socket_id = SOCKET_ID_ANY };
	struct fou_err err = { "" };

	(void)state;
	pgw = unit_gw_std();
	UNIT_APPLY_LINES(pgw,
		"neigh 10.0.0.2,dev=0,lladdr=02:00:00:00:00:02\n"
		"neigh 10.0.0.3,dev=0,lladdr=02:00:00:00:00:03\n"
		"neigh 10.0.0.5,dev=0,lladdr=02:00:00:00:00:05\n"
		"tunnel t1,type=ipip,local=10.0.0.1,remote=10.0.0.2,encap-dport=5555,"
		"probe=on,interval=100,timeout=3\n"
		"tunnel t2,type=ipip,local=10.0.0.1,remote=10.0.0.3,encap-dport=5555,"
		"probe=on,interval=100\n"
		"tunnel t3,type=ipip,local=10.0.0.1,remote=10.0.0.4,encap-dport=5555\n"
		"tunnel t4,type=gre,local=10.0.0.1,remote=10.0.0.5,encap-dport=5556,probe=on\n"
		"addr t4,172.16.3.1/30\n"
		"addr t4,fd00:50::1/64\n"
		"addr t1,172.16.0.1/30\n"
		"addr t2,172.16.1.1/30\n"
		"addr t3,172.16.2.1/30\n"
		"route 10.77.0.0/16,dev=t1\n"
		"route 10.77.0.0/16,dev=t2,metric=10\n");
	pctl = fou_lcore_create(pgw, FOU_LCORE_CONTROL, &c, &err);
	assert_non_null(pctl);
	unit_lcore_begin(&pu, pgw, 0);
	assert_int_equal(fou_lcore_start(pu.lc), 0);
	phz = rte_get_tsc_hz();
	pt0 = rte_rdtsc();
	return 0;
}

static int
teardown_probe(void **state)
{
	struct fou_gw *gw_ = pgw;

	unit_lcore_end(&pu);
	fou_neigh_stop(pgw);
	fou_probe_stop(pgw);
	fou_lcore_free(pctl);
	pctl = NULL;
	pgw = NULL;
	return unit_test_teardown_gw(state, gw_);
}

/* Whether 10.77.0.0/16's route into t1 carries its traffic now. */
static bool
t1_in_use(void)
{
	struct fou_route_info ri[64];
	unsigned int n = fou_route_list(pgw, ri, RTE_DIM(ri), 0), i;

	assert_true(n <= RTE_DIM(ri));
	for (i = 0; i < n; i++)
		if (strcmp(ri[i].tunnel, "t1") == 0 && ri[i].metric == 0 &&
		    rte_be_to_cpu_32(ri[i].prefix.v4) == IP4(10, 77, 0, 0)) {
			assert_int_equal(ri[i].usable, ri[i].in_use);
			return ri[i].in_use;
		}
	fail_msg("no route 10.77.0.0/16 into t1");
	return false;
}

static struct fou_tunnel_health
health(const char *name)
{
	struct fou_tunnel_health h;
	struct fou_err err;

	assert_int_equal(fou_tunnel_health_get(pgw, name, &h, &err), 0);
	return h;
}

/* The n-th probe sent to the peer of mac. */
static const struct unit_frame *
sent_to_nth(const struct rte_ether_addr *mac, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < nb_psent; i++)
		if (memcmp(psent[i].b, mac, 6) == 0 && n-- == 0)
			return &psent[i];
	fail_msg("no probe sent to %02x", mac->addr_bytes[5]);
	return NULL;
}

static const struct unit_frame *
sent_to(const struct rte_ether_addr *mac)
{
	return sent_to_nth(mac, 0);
}

/*
 * The reply a forwarding peer sends for probe f, its inner packet at
 * inner: the same inner packet, its TTL or hop limit ttl, back in the
 * tunnel (outer addresses swapped, to the port the probe went to, which is
 * also ours, no UDP checksum).
 */
static struct rte_mbuf *
reply_at(const struct unit_frame *f, uint32_t inner, uint8_t ttl)
{
	uint8_t b[UNIT_PKT_MAX];
	uint8_t *ip = b + OUTER, *udp = ip + 20, *in = b + inner;

	memcpy(b, f->b, f->len);
	memcpy(b, f->b + 6, 6);
	memcpy(b + 6, f->b, 6);
	memcpy(ip + 12, f->b + OUTER + 16, 4);
	memcpy(ip + 16, f->b + OUTER + 12, 4);
	ip[8] = 64;
	unit_ip4_cksum_fix(ip);
	unit_put16(udp, 40000);
	unit_put16(udp + 6, 0);
	if (in[0] >> 4 == 6) {
		in[7] = ttl;
	} else {
		in[8] = ttl;
		unit_ip4_cksum_fix(in);
	}
	return unit_mbuf(b, f->len);
}

static struct rte_mbuf *
reply(const struct unit_frame *f, uint8_t ttl)
{
	return reply_at(f, OUTER + 20 + 8, ttl);
}

/* m received by the worker at t0 + ms: handed to the control thread. */
static void
rx_at(struct rte_mbuf *m, uint64_t ms)
{
	uint64_t consumed = pu.st.local[FOU_LOCAL_CONSUMED];
	uint64_t in = pu.st.local[FOU_LOCAL_PROBES_IN];
	uint16_t port;

	assert_int_equal(unit_rx_at(&pu, RX_PORT, &m, 1, &port, at(ms)), 0);
	assert_int_equal(pu.st.local[FOU_LOCAL_CONSUMED], consumed + 1);
	assert_int_equal(pu.st.local[FOU_LOCAL_PROBES_IN], in + 1);
}

/*
 * The probes: one per probing tunnel with an address, none for t3
 * (probe off); FOU to the remote's port 5555, inside UDP 3785 -> 3785 from
 * the tunnel address to itself, TTL 255, DF, the payload FOUP v1 echo with
 * the tunnel's index and sequence 1; checksums right. Every one counted
 * originated and probes_out on the control row and sent by the worker.
 */
static void
test_probe_format(void **state)
{
	const struct fou_lcore_stats *ctl = unit_ctl_stats(pgw);
	const struct unit_frame *f;
	const uint8_t *in, *pl;

	(void)state;
	assert_int_equal(service_at(0), 4);
	f = sent_to(&mac_p2);
	assert_int_equal(f->port, RX_PORT);
	assert_int_equal(f->len, OUTER + 20 + 8 + 20 + 8 + 32);
	assert_int_equal(f->b[OUTER + 9], IPPROTO_UDP);
	assert_int_equal(unit_get32(f->b + OUTER + 16), IP4(10, 0, 0, 2));
	assert_int_equal(unit_get16(f->b + OUTER + 22), PORT_IPIP);
	in = IN(f);
	assert_int_equal(in[0], 0x45);
	assert_int_equal(in[8], 255);
	assert_int_equal(in[9], IPPROTO_UDP);
	assert_int_equal(unit_get16(in + 6), 0x4000);
	assert_int_equal(unit_get32(in + 12), T1_IP);
	assert_int_equal(unit_get32(in + 16), T1_IP);
	assert_true(unit_cksum_ok(in, 20));
	assert_int_equal(unit_get16(in + 20), 3785);
	assert_int_equal(unit_get16(in + 22), 3785);
	assert_true(unit_udp4_cksum_ok(in));
	pl = PL(f);
	assert_memory_equal(pl, "FOUP\x01\x01\x00\x00", 8);
	assert_int_equal(unit_get32(pl + 8), 0);	/* t1: the first slot */
	assert_int_equal(unit_get32(pl + 12), 1);
	f = sent_to(&mac_p3);
	assert_int_equal(unit_get32(IN(f) + 12), T2_IP);
	assert_int_equal(unit_get32(PL(f) + 8), 1);
	assert_int_equal(ctl->local[FOU_LOCAL_PROBES_OUT], 4);
	assert_int_equal(ctl->local[FOU_LOCAL_ORIGINATED], 4);
	/* nothing more before the interval (t4's is the default, 1 s) */
	assert_int_equal(service_at(INTERVAL_MS - 1), 0);
	assert_int_equal(service_at(INTERVAL_MS), 2);
	assert_int_equal(unit_get32(PL(sent_to(&mac_p2)) + 12), 2);
	assert_string_equal(fou_health_name(health("t3").state), "off");
	assert_int_equal(health("t1").sent, 2);
	assert_true(health("t1").probing4);
	assert_false(health("t1").probing6);
}

/*
 * unknown while nothing comes back (lost counted, never down); up with the
 * first valid reply, its RTT the time between the round that sent it and
 * the burst that brought it back; down after timeout (3) probes in a row
 * unanswered within the interval; up again with the next reply. The loss
 * window counts what was decided.
 */
static void
test_probe_states(void **state)
{
	struct fou_tunnel_health h;
	uint64_t t = 0;
	unsigned int i;

	(void)state;
	for (i = 0; i < 5; i++, t += INTERVAL_MS)
		service_at(t);
	h = health("t1");
	assert_string_equal(fou_health_name(h.state), "unknown");
	assert_true(t1_in_use());	/* never answered: usable */
	assert_int_equal(h.lost, 4);	/* the fifth is still within its interval */
	assert_int_equal(h.window, 4);
	assert_int_equal(h.window_lost, 4);
	assert_int_equal(h.transitions, 0);

	/* the fifth (sent at 400) comes back at 430 */
	rx_at(reply(sent_to(&mac_p2), 254), 430);
	assert_int_equal(service_at(440), 0);
	h = health("t1");
	assert_string_equal(fou_health_name(h.state), "up");
	assert_int_equal(h.received, 1);
	assert_int_equal(h.transitions, 1);
	assert_int_equal(h.unanswered, 0);
	assert_in_range(h.rtt_last_us, 29999, 30001);
	assert_in_range(h.rtt_min_us, 29999, 30001);
	assert_in_range(h.rtt_avg_us, 29999, 30001);
	assert_int_equal(h.rtt_jitter_us, 0);
	assert_int_equal(h.window, 5);
	assert_int_equal(h.window_lost, 4);

	/* the next one, at 500, back at 510: RTT 10 ms; SRTT 30 - 20/8,
	 * jitter 20/16 (ms) */
	service_at(500);
	rx_at(reply(sent_to(&mac_p2), 254), 510);
	service_at(520);
	h = health("t1");
	assert_in_range(h.rtt_last_us, 9999, 10001);
	assert_in_range(h.rtt_min_us, 9999, 10001);
	assert_in_range(h.rtt_avg_us, 27499, 27501);
	assert_in_range(h.rtt_jitter_us, 1249, 1251);

	/* 600, 700, 800 unanswered: the third decided at 900 makes it down */
	service_at(600);
	service_at(700);
	service_at(800);
	assert_string_equal(fou_health_name(health("t1").state), "up");
	assert_int_equal(health("t1").unanswered, 2);
	service_at(900);
	h = health("t1");
	assert_string_equal(fou_health_name(h.state), "down");
	assert_false(t1_in_use());	/* t2's route carries the prefix */
	assert_int_equal(h.unanswered, 3);
	assert_int_equal(h.transitions, 2);
	assert_int_equal(h.lost, 7);

	/* the probe of 900 answered: up */
	rx_at(reply(sent_to(&mac_p2), 254), 905);
	service_at(910);
	h = health("t1");
	assert_string_equal(fou_health_name(h.state), "up");
	assert_true(t1_in_use());
	assert_int_equal(h.transitions, 3);
	assert_int_equal(h.received, 3);
	assert_int_equal(h.sent, 10);
	assert_int_equal(h.window, 10);
	assert_int_equal(h.window_lost, 7);
	assert_int_equal(h.forged + h.late + h.replayed + h.wrong_tunnel + h.bad_ttl, 0);
	/* t2 never answered: still unknown */
	assert_string_equal(fou_health_name(health("t2").state), "unknown");
}

/*
 * What is not a valid reply never makes a tunnel up, and is counted:
 * t2's own probe with a sequence never sent, another token, TTL 255 (not
 * through a router) or 253; t1's probe coming out of t2 (wrong tunnel);
 * on t1, a reply twice (replayed) and one after its interval (late).
 */
static void
test_probe_forged(void **state)
{
	struct unit_frame f1, f2, x;
	struct fou_tunnel_health h;

	(void)state;
	service_at(0);
	f1 = *sent_to(&mac_p2);
	f2 = *sent_to(&mac_p3);

	x = f2;
	unit_put32(PL(&x) + 12, 77);		/* never sent */
	unit_put16(IN(&x) + 20 + 6, 0);		/* no UDP checksum: still valid UDP */
	rx_at(reply(&x, 254), 10);
	x = f2;
	PL(&x)[24] ^= 1;			/* the token */
	unit_put16(IN(&x) + 20 + 6, 0);
	rx_at(reply(&x, 254), 10);
	x = f2;
	PL(&x)[0] = 'X';			/* the magic */
	unit_put16(IN(&x) + 20 + 6, 0);
	rx_at(reply(&x, 254), 10);
	rx_at(reply(&f2, 255), 10);
	rx_at(reply(&f2, 253), 10);
	/* t1's probe, inside t2's outer header */
	x = f1;
	memcpy(x.b, f2.b, OUTER + 20 + 8);
	rx_at(reply(&x, 254), 10);
	service_at(20);
	h = health("t2");
	assert_string_equal(fou_health_name(h.state), "unknown");
	assert_int_equal(h.forged, 3);
	assert_int_equal(h.bad_ttl, 2);
	assert_int_equal(h.wrong_tunnel, 1);
	assert_int_equal(h.received, 0);
	assert_int_equal(h.transitions, 0);

	/* t1: valid, then the same again */
	rx_at(reply(&f1, 254), 10);
	rx_at(reply(&f1, 254), 11);
	service_at(30);
	h = health("t1");
	assert_string_equal(fou_health_name(h.state), "up");
	assert_int_equal(h.received, 1);
	assert_int_equal(h.replayed, 1);
	/* the probe of 100 back at 250 (no round in between): late, and
	 * counted lost */
	service_at(100);
	f1 = *sent_to(&mac_p2);
	rx_at(reply(&f1, 254), 250);
	service_at(260);
	h = health("t1");
	assert_int_equal(h.late, 1);
	assert_int_equal(h.lost, 1);		/* that one */
	assert_string_equal(fou_health_name(h.state), "up");
	assert_int_equal(h.received, 1);
	assert_int_equal(h.forged + h.wrong_tunnel + h.bad_ttl, 0);
	/* t2 had them all: never up */
	assert_string_equal(fou_health_name(health("t2").state), "unknown");
}

/*
 * A GRE tunnel with an address of each family probes over both, in one
 * sequence: IPv4 (GRE protocol 0x0800) then IPv6 (0x86dd, hop limit 255,
 * UDP checksum over the IPv6 pseudo-header); the IPv6 one back with hop
 * limit 254 makes the tunnel up, with 253 it is bad_ttl.
 */
static void
test_probe_ipv6(void **state)
{
	const uint32_t in = OUTER + 20 + 8 + 4;
	const struct unit_frame *f4, *f6;
	struct fou_tunnel_health h;
	const uint8_t *ip6;

	(void)state;
	service_at(0);
	f4 = sent_to_nth(&mac_p5, 0);
	f6 = sent_to_nth(&mac_p5, 1);
	assert_int_equal(unit_get16(f4->b + OUTER + 28 + 2), RTE_ETHER_TYPE_IPV4);
	assert_int_equal(unit_get16(f6->b + OUTER + 28 + 2), RTE_ETHER_TYPE_IPV6);
	assert_int_equal(f6->len, in + 40 + 8 + 32);
	ip6 = f6->b + in;
	assert_int_equal(ip6[0] >> 4, 6);
	assert_int_equal(ip6[6], IPPROTO_UDP);
	assert_int_equal(ip6[7], 255);
	assert_memory_equal(ip6 + 8, "\xfd\x00\x00\x50\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	assert_memory_equal(ip6 + 24, ip6 + 8, 16);
	assert_int_equal(unit_get16(ip6 + 40), 3785);
	assert_int_equal(unit_get16(ip6 + 42), 3785);
	assert_memory_equal(ip6 + 48, "FOUP\x01\x01", 6);
	assert_int_equal(unit_get32(ip6 + 48 + 12), 2);	/* after the IPv4 one */
	h = health("t4");
	assert_true(h.probing4 && h.probing6);
	assert_int_equal(h.sent, 2);

	rx_at(reply_at(f6, in, 253), 5);
	service_at(10);
	assert_int_equal(health("t4").bad_ttl, 1);
	assert_string_equal(fou_health_name(health("t4").state), "unknown");
	rx_at(reply_at(f6, in, 254), 20);
	service_at(30);
	h = health("t4");
	assert_string_equal(fou_health_name(h.state), "up");
	assert_int_equal(h.received, 1);
	assert_in_range(h.rtt_last_us, 19999, 20001);
}

/*
 * fou_probe_send(), as the path MTU search calls it: refused for a tunnel
 * that does not probe, a family it does not carry, a kind it does not
 * know, a size below the smallest probe or above an mbuf; an MTU probe is
 * the outer size asked for, zero-padded, kind 2, in the tunnel's sequence,
 * and a reply to it is no echo reply: the health does not move.
 */
static void
test_probe_send(void **state)
{
	const struct unit_frame *f;
	uint32_t seq = 0;
	unsigned int i;

	(void)state;
	service_at(0);		/* t1's echo probe 1; the control context's now */
	assert_int_equal(fou_probe_send(pctl, 2, AF_INET, FOU_PROBE_KIND_ECHO, 0, &seq),
			 -ENOENT);
	assert_int_equal(fou_probe_send(pctl, 0, AF_INET6, FOU_PROBE_KIND_ECHO, 0, &seq),
			 -EAFNOSUPPORT);
	assert_int_equal(fou_probe_send(pctl, 0, AF_INET, 3, 0, &seq), -EINVAL);
	assert_int_equal(fou_probe_send(pctl, 0, AF_INET, FOU_PROBE_KIND_MTU, 60, &seq),
			 -EINVAL);
	assert_int_equal(fou_probe_send(pctl, 0, AF_INET, FOU_PROBE_KIND_MTU, 60000, &seq),
			 -EMSGSIZE);
	assert_int_equal(seq, 0);
	assert_int_equal(fou_probe_send(pctl, 0, AF_INET, FOU_PROBE_KIND_MTU, 300, &seq), 0);
	assert_int_equal(seq, 2);
	nb_psent = 0;
	fou_lcore_idle(pu.lc, rte_rdtsc(), emit_keep, NULL);
	assert_int_equal(nb_psent, 1);
	f = &psent[0];
	assert_int_equal(f->len, OUTER + 300);
	assert_int_equal(unit_get16(IN(f) + 2), 300 - 28);
	assert_int_equal(PL(f)[5], FOU_PROBE_KIND_MTU);
	assert_int_equal(unit_get32(PL(f) + 12), 2);
	for (i = 32; i < 300 - 28 - 28; i++)
		assert_int_equal(PL(f)[i], 0);
	assert_true(unit_udp4_cksum_ok(IN(f)));
	rx_at(reply(f, 254), 5);
	service_at(10);
	assert_string_equal(fou_health_name(health("t1").state), "unknown");
	assert_int_equal(health("t1").received, 0);
	assert_int_equal(health("t1").sent, 1);		/* echo probes only */
	assert_int_equal(health("t1").forged + health("t1").late + health("t1").replayed, 0);
}

/* The balance holds on every row: what was built and received went
 * somewhere (sent, consumed, dropped). */
static void
test_probe_balance(void **state)
{
	struct fou_lcore_stats s;
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		service_at(i * INTERVAL_MS);
		rx_at(reply(sent_to(&mac_p2), 254), i * INTERVAL_MS + 1);
	}
	service_at(1000);
	fou_stats_sum(pgw, &s);
	assert_true(fou_stats_balanced(&s));
	assert_int_equal(s.local[FOU_LOCAL_PROBES_IN], 3);
	assert_int_equal(health("t1").received, 3);
}

/* Tunnel name as fou_tunnel_list() shows it. */
static struct fou_tunnel_info
tunnel(const char *name)
{
	struct fou_tunnel_info ti[3];
	unsigned int i, n = fou_tunnel_list(pgw, ti, RTE_DIM(ti));

	for (i = 0; i < n && strcmp(ti[i].conf.name, name) != 0; i++)
		;
	assert_true(i < n);
	return ti[i];
}

/* What the MTU probes of a run were: how many, over 1400 bytes, the
 * first two sizes. */
struct mtu_run {
	unsigned int probes, over;
	uint16_t first[2];
};

/*
 * Rounds every 10 ms from ms on (probes and searches, then what the
 * worker sends) until until, or (to_end) until t1's search is complete
 * after an MTU probe of the run: t1's peer, if
 * answering, sends back its echo probes and its MTU probes up to 1400 outer
 * bytes (a path that drops bigger ones without a word); t2's never. Every
 * MTU probe goes to t1's peer, in the probe format with kind 2 and DF on
 * both headers, one at a time. Returns the time it stopped.
 */
static uint64_t
mtu_rounds(uint64_t ms, uint64_t until, bool answering, bool to_end, struct mtu_run *r)
{
	for (; ms < until; ms += 10) {
		unsigned int i, inflight = 0;

		round_at(ms, true);
		for (i = 0; i < nb_psent; i++) {
			const struct unit_frame *f = &psent[i];
			const uint32_t outer = f->len - OUTER;

			if (PL(f)[5] == 2) {
				assert_memory_equal(f->b, &mac_p2, 6);
				assert_int_equal(unit_get16(f->b + OUTER + 6), 0x4000);
				assert_int_equal(unit_get16(IN(f) + 6), 0x4000);
				assert_int_equal(unit_get16(f->b + OUTER + 2), outer);
				assert_true(unit_udp4_cksum_ok(IN(f)));
				if (r->probes < 2)
					r->first[r->probes] = (uint16_t)outer;
				r->probes++;
				r->over += outer > 1400;
				inflight++;
			}
			if (answering && memcmp(f->b, &mac_p2, 6) == 0 && outer <= 1400)
				rx_at(reply(f, 254), ms + 1);
		}
		assert_true(inflight <= 1);
		if (to_end && r->probes > 0 &&
		    strcmp(tunnel("t1").mtu_search, "search_complete") == 0)
			break;
	}
	return ms;
}

/*
 * The path MTU search (fou_plpmtu.c) through the peer: t1's search ends at
 * 1400, its tunnel MTU 1372, after BASE (1200) and the port's 1500 first,
 * 1500, 1425, 1406 and 1401 lost three times each; t2, never up, gets no
 * MTU probe. t1 down, then up again: a new path, searched from nothing
 * again. The balance holds.
 */
static void
test_probe_mtu_search(void **state)
{
	struct mtu_run r = { 0 };
	struct fou_tunnel_info ti;
	struct fou_lcore_stats s;
	uint64_t t;

	(void)state;
	t = mtu_rounds(0, 20000, true, true, &r);
	ti = tunnel("t1");
	assert_string_equal(ti.mtu_search, "search_complete");
	assert_int_equal(ti.probed_mtu, 1400);
	assert_int_equal(ti.mtu, 1400 - 28);
	assert_int_equal(r.first[0], 1200);
	assert_int_equal(r.first[1], 1500);
	assert_int_equal(r.over, 12);
	assert_string_equal(tunnel("t2").mtu_search, "base");
	assert_int_equal(tunnel("t2").probed_mtu, 0);
	/* no answer for five intervals: down, the search waits */
	t = mtu_rounds(t + 10, t + 10 + 5 * INTERVAL_MS, false, false, &r);
	assert_string_equal(fou_health_name(health("t1").state), "down");
	assert_int_equal(tunnel("t1").probed_mtu, 1400);
	/* up again: searched anew, from nothing, to the same end */
	memset(&r, 0, sizeof(r));
	mtu_rounds(t + 10, t + 20000, true, true, &r);
	assert_int_equal(r.first[0], 1200);
	assert_int_equal(tunnel("t1").probed_mtu, 1400);
	assert_int_equal(r.over, 12);
	fou_stats_sum(pgw, &s);
	assert_true(fou_stats_balanced(&s));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup_probe, teardown_probe)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_probe_format),
		T(test_probe_states),
		T(test_probe_forged),
		T(test_probe_ipv6),
		T(test_probe_send),
		T(test_probe_balance),
		T(test_probe_mtu_search),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("probe", tests, NULL, NULL);
	return unit_eal_fini(failures);
}
