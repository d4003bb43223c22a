/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared pieces of the unit tests: EAL and mbuf pool setup, the test
 * topology, a packet builder whose checksums come from the tests' own code
 * (cksum.h, independent of the library's), a worker's context to run frames
 * through (fou_lcore_rx()), and helpers that run one frame and check the
 * verdict, the output frame, the counters and the mbuf pool.
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "fou.h"
#include "fou_stmt.h"
#include "cksum.h"

/* --- EAL and the mbuf pool -------------------------------------------- */

#define UNIT_NB_MBUF 255

extern struct rte_mempool *unit_pool;

/* rte_eal_init (no hugepages, no PCI, in memory) and the pool; exits on error. */
void unit_eal_init(const char *prog);
/* Frees the pool and cleans up the EAL; returns failures for main(). */
int unit_eal_fini(int failures);

/* Fails the current test unless every mbuf is back in the pool. */
#define UNIT_POOL_FULL() \
	_assert_int_equal(rte_mempool_avail_count(unit_pool), UNIT_NB_MBUF, __FILE__, __LINE__)

/* --- topology ----------------------------------------------------------- */

/*
 * Port 0 receives FOU from the peer 10.0.0.2 at 10.0.0.1/24. Port 1 holds
 * 192.168.1.1/24 and fd00:1::1/64 with neighbours .2/::2 (gateways for
 * 10.20.0.0/16 and fd00:20::/32) and .7/::7 (on link, no route of their
 * own). 10.21.0.0/16 and fd00:21::/32 go via .3/::3, which have no
 * neighbour entry. FOU ports: 5555 ipip, 5556 gre, 5557 sit, 6000 udp (17).
 */
#define RX_PORT 0
#define EG_PORT 1
#define PORT_IPIP 5555
#define PORT_GRE 5556
#define PORT_SIT 5557
#define PORT_OTHER 6000
#define PORT_GUE 6080		/* a GUE port; the tests that use it add it */

extern const struct rte_ether_addr mac_rx, mac_peer, mac_eg, mac_nb4, mac_nb6, mac_nb4_7,
	mac_nb6_7;
/* The destination of a frame held for its neighbour (not known yet). */
extern const struct rte_ether_addr mac_zero;

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

/* An empty gateway (default sizes) or one with these sizes. */
struct fou_gw *unit_gw_new(const struct fou_gw_params *p);
/* The topology above, built with fou_iface_set() and fou_stmt_apply(). */
struct fou_gw *unit_gw_std(void);
/* The same on tables of the given size (NULL: the defaults). */
struct fou_gw *unit_gw_std_params(const struct fou_gw_params *p);
/* fou_stmt_apply() that must succeed. */
#define UNIT_APPLY(gw, name, arg) unit_stmt((gw), false, (name), (arg), __FILE__, __LINE__)
/* fou_stmt_del() that must succeed. */
#define UNIT_DEL(gw, name, arg) unit_stmt((gw), true, (name), (arg), __FILE__, __LINE__)
void unit_stmt(struct fou_gw *gw, bool del, const char *name, const char *arg, const char *file,
	       int line);

/* --- checksums: rfc1071_sum() / rfc1071_fold() of cksum.h ------------------ */

/* Is the internet checksum over b[0..n) (checksum field included) valid? */
bool unit_cksum_ok(const uint8_t *b, size_t n);

/* --- packet builder ----------------------------------------------------- */

#define UNIT_PKT_MAX 1800

enum unit_inner { UNIT_IN_RAW, UNIT_IN_V4, UNIT_IN_V6 };

struct unit_spec {
	struct rte_ether_addr eth_dst;
	int vlan;			/* VID of an 802.1Q tag, -1 for none */
	uint8_t opt_words;		/* outer IPv4 option words (IHL - 5) */
	uint8_t tos, ttl;
	uint16_t ip_id;
	uint32_t src, dst;		/* outer, host order */
	uint16_t sport, dport;
	bool udp_csum;
	bool gre;
	uint16_t gre_flags;		/* FOU_GRE_C | FOU_GRE_K | FOU_GRE_S */
	uint16_t gre_proto;
	uint32_t gre_key, gre_seq;
	enum unit_inner inner;
	uint8_t in_tos;			/* IPv4 TOS or IPv6 traffic class */
	uint8_t in_ttl;			/* TTL or hop limit */
	uint8_t in_opt_words;		/* inner IPv4 option words */
	uint32_t in_src4, in_dst4;	/* host order */
	uint8_t in_src6[16], in_dst6[16];
	uint16_t payload;		/* inner UDP payload bytes ("fou-test" repeated) */
	const uint8_t *raw;		/* UNIT_IN_RAW: the FOU payload */
	uint16_t raw_len;
	uint16_t trailer;		/* bytes after the inner packet, inside UDP */
	uint16_t udp_trailer;		/* bytes after UDP, inside outer IPv4 */
	uint16_t pad;			/* bytes after outer IPv4 (Ethernet padding) */
};

struct unit_pkt {
	uint8_t b[UNIT_PKT_MAX];
	uint32_t len;
	uint32_t l3;			/* outer IPv4 */
	uint32_t l4;			/* UDP */
	uint32_t gre;			/* GRE header, if any */
	uint32_t gre_len;
	uint32_t inner;			/* inner IP header */
	uint32_t inner_hl;		/* inner IP header length */
	uint32_t inner_tot;		/* inner IP total length */
	enum unit_inner kind;
	bool udp_csum;
	bool gre_c;
};

/* Specs of the golden frames (golden.h). */
void unit_spec_ipip(struct unit_spec *s);
void unit_spec_sit(struct unit_spec *s);
void unit_spec_gre4(struct unit_spec *s, uint16_t flags);
void unit_spec_gre6(struct unit_spec *s, uint16_t flags);

/*
 * The cases of the golden frames, in golden.h order: name (the array's),
 * spec, FOU port, inner kind (-1: not forwarded). test_golden checks that
 * building each spec gives its golden frame byte for byte.
 */
struct unit_case {
	const char *name;
	void (*spec)(struct unit_spec *s);
	uint16_t port;
	int inner;
};
extern const struct unit_case unit_cases[];
extern const unsigned int unit_nb_cases;

void unit_build(const struct unit_spec *s, struct unit_pkt *p);
void unit_case_build(const struct unit_case *c, struct unit_pkt *p);
/*
 * Recompute the checksums that are present (inner IPv4 header, GRE when C,
 * UDP when non-zero, outer IPv4 header) from the length fields as they are
 * now, within p->len.
 */
void unit_fix(struct unit_pkt *p);
/* The same but the inner IPv4 header checksum stays as it is. */
void unit_fix_outer(struct unit_pkt *p);

static inline void
unit_put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static inline uint16_t
unit_get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline void
unit_put32(uint8_t *b, uint32_t v)
{
	unit_put16(b, (uint16_t)(v >> 16));
	unit_put16(b + 2, (uint16_t)v);
}

static inline uint32_t
unit_get32(const uint8_t *b)
{
	return (uint32_t)unit_get16(b) << 16 | unit_get16(b + 2);
}

/*
 * The frame the gateway should send for p: Ethernet to dst_mac from port
 * 1, the inner packet with TTL / hop limit minus one, ECN field ecn and (for
 * IPv4) a checksum computed from scratch. Returns its length.
 */
uint32_t unit_expect_out(const struct unit_pkt *p, const struct rte_ether_addr *dst_mac,
			 uint8_t ecn, uint8_t *out);
/* Same with the ECN field of the inner packet kept. */
uint32_t unit_expect_out_same(const struct unit_pkt *p, const struct rte_ether_addr *dst_mac,
			      uint8_t *out);
/*
 * The frame the gateway should send when it routes the IP packet ip (len
 * bytes, IPv4 or IPv6 by its version) out of port 1 to dst_mac: TTL / hop
 * limit minus one, IPv4 checksum computed from scratch. Returns its length.
 */
uint32_t unit_expect_routed(const uint8_t *ip, uint32_t len, const struct rte_ether_addr *dst_mac,
			    uint8_t *out);
/* The same out of port (its MAC the source). */
uint32_t unit_expect_routed_on(const uint8_t *ip, uint32_t len, uint16_t port,
			       const struct rte_ether_addr *dst_mac, uint8_t *out);

/* --- mbufs -------------------------------------------------------------- */

struct rte_mbuf *unit_mbuf(const uint8_t *b, uint32_t len);
/* Segments of the given lengths (the last takes the rest). */
struct rte_mbuf *unit_mbuf_segs(const uint8_t *b, uint32_t len, const uint32_t *seg_len,
				unsigned int nb_segs);

/* --- a worker's context ---------------------------------------------------- */

/*
 * A worker's view for the tests: a context (fou_lcore) of this lcore on gw,
 * with fresh state (ICMP bucket full, neighbour cache empty, outer IPv4 IDs
 * from ip_id), and what it counted since it began. Its counters go to the
 * gateway's row for this lcore; st is what this context added there, summed
 * over its unit_rx() calls (so that other contexts, or a test that zeroes
 * the row, do not show in it).
 */
struct unit_lcore {
	struct fou_lcore *lc;
	struct fou_gw *gw;
	unsigned int lcore_id;
	uint64_t id;			/* which context, for unit_lcore_end(); 0: none */
	struct fou_lcore_stats st;	/* counted since it began */
};

/* Begin a fresh context (ending the one u held, if any); u must start zeroed. */
void unit_lcore_begin(struct unit_lcore *u, const struct fou_gw *gw, uint16_t ip_id);
/* The same for another lcore id (a reader the test plays from this thread). */
void unit_lcore_begin_id(struct unit_lcore *u, const struct fou_gw *gw, unsigned int lcore_id,
			 uint16_t ip_id);
/* Stop (what GRO holds is freed) and free the context; u can begin again. */
void unit_lcore_end(struct unit_lcore *u);
/*
 * End every context still open (a test that failed mid-way leaves its own):
 * before the gateway they count into is freed. Returns how many there were.
 * unit_test_teardown_pool() calls it, and fails the test if there were any.
 */
unsigned int unit_lcore_end_all(void);

/* A fou_emit_fn that frees what it is given (what GRO held, when a context
 * ends; what fou_lcore_idle() sends). */
void unit_emit_free(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports, uint16_t n);

/*
 * n packets received on port through fou_lcore_rx() of u: what it sent (in
 * order, all before it returned) is moved to the front of pkts, their
 * egress ports into out_port[]; returns how many (fails the test unless
 * that is what fou_lcore_rx() forwarded, and at most n: unit_burst() has
 * room for the fragments of packets cut on their way out). Dropped packets are freed. u->st
 * takes what the call counted.
 */
uint16_t unit_rx(struct unit_lcore *u, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
		 uint16_t *out_port);
/* The same at the TSC now (unit_rx() passes rte_rdtsc()): a test of what
 * expires passes a later time instead of waiting for it. */
uint16_t unit_rx_at(struct unit_lcore *u, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
		    uint16_t *out_port, uint64_t now);

/* --- running frames ----------------------------------------------------- */

#define UNIT_FWD FOU_DROP_MAX
/*
 * Held for its neighbour: the packet was finished (encapsulated, Ethernet
 * header with a zero destination) and handed to the control thread, which
 * would resolve the neighbour and send it. No control thread runs here:
 * the harness takes it out of the hold ring, checks it and drops it as
 * the gateway does at exit (fou_neigh_stop(): neigh_stopped, counted in
 * the control context's row, not the worker's).
 */
#define UNIT_HELD (FOU_DROP_MAX + 1)
/* Taken in by the gateway's own stack (an ARP reply, an NA): consumed. */
#define UNIT_CONSUMED (FOU_DROP_MAX + 2)

struct unit_exp {
	unsigned int verdict;		/* enum fou_drop, UNIT_FWD or UNIT_HELD */
	uint16_t decap_port;		/* FOU port counted as decapsulated, 0 = none */
	int decap_inner;		/* enum fou_inner counted, -1 = none */
	const uint8_t *out;		/* UNIT_FWD: the expected frame; UNIT_HELD: the
					 * held frame (NULL: not compared) */
	uint32_t out_len;
	uint16_t out_port;		/* UNIT_HELD: the port of the neighbour */
	const char *neigh;		/* UNIT_HELD: the neighbour it waits for */
	/* the gateway's own stack: what the worker counted (UNIT_HELD adds
	 * neigh_queued), and how many events it posted about a neighbour */
	uint64_t local[FOU_LOCAL_MAX];
	unsigned int events;
};

/* Context printed with a failure (e.g. the length in a loop). */
void unit_ctx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs m through a fresh context (unit_lcore_begin(), IP ID 0) on RX_PORT
 * and checks all: verdict, counters, output, pool. */
void unit_run(const struct fou_gw *gw, struct rte_mbuf *m, const struct unit_exp *e,
	      const char *file, int line);
/* The counters of the last unit_run(). */
extern struct fou_lcore_stats unit_stats;

#define UNIT_RUN(gw, m, ...) \
	unit_run((gw), (m), &(struct unit_exp){ __VA_ARGS__ }, __FILE__, __LINE__)

/* Held for the neighbour neigh on port (o: the held frame, or NULL). */
#define EXPECT_HELD(gw, b, len, port, nb, o, olen) \
	UNIT_RUN(gw, unit_mbuf((b), (len)), .verdict = UNIT_HELD, .decap_inner = -1, \
		 .out_port = (port), .neigh = (nb), .out = (o), .out_len = (olen))

/* Dropped before anything was decapsulated. */
#define EXPECT_DROP(gw, b, len, reason) \
	UNIT_RUN(gw, unit_mbuf((b), (len)), .verdict = (reason), .decap_inner = -1)
/* Dropped after decapsulation was counted for port / inner. */
#define EXPECT_DROP_DECAP(gw, b, len, reason, port, in) \
	UNIT_RUN(gw, unit_mbuf((b), (len)), .verdict = (reason), .decap_port = (port), \
		 .decap_inner = (in))
#define EXPECT_FWD(gw, b, len, port, in, o, olen) \
	UNIT_RUN(gw, unit_mbuf((b), (len)), .verdict = UNIT_FWD, .decap_port = (port), \
		 .decap_inner = (in), .out = (o), .out_len = (olen), .out_port = EG_PORT)

/* Shorthands on a built packet. */
#define PKT_DROP(gw, p, reason) EXPECT_DROP(gw, (p)->b, (p)->len, reason)
#define PKT_DROP_DECAP(gw, p, reason, port, in) \
	EXPECT_DROP_DECAP(gw, (p)->b, (p)->len, reason, port, in)

/* --- bursts on a context that persists (ICMP bucket, IP ID, neighbours) ---- */

/* A frame the gateway sent. */
struct unit_frame {
	uint8_t b[UNIT_PKT_MAX];
	uint32_t len;
	uint16_t port;
	uint64_t ol_flags;	/* the mbuf's, as the port would get them */
	uint8_t l2_len, l3_len, l4_len;
};

/*
 * Runs the n mbufs (at most FOU_BURST) through u on RX_PORT (its state and
 * counters go on), copies the forwarded frames (at most FOU_BURST, the
 * fragments of a packet cut on its way out each one) into got[] in order, frees
 * everything and returns how many were forwarded.
 */
uint16_t unit_burst(struct unit_lcore *u, struct rte_mbuf **pkts, uint16_t n,
		    struct unit_frame *got);
/* The same received on port, at the TSC now. */
uint16_t unit_burst_at(struct unit_lcore *u, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
		       struct unit_frame *got, uint64_t now);

/* A copy of the frame m as it would leave port (f->len 0: too long). */
void unit_frame_copy(const struct rte_mbuf *m, uint16_t port, struct unit_frame *f);

/* --- the gateway's own stack: what the workers hand the control thread ----- */

/* A packet held for its neighbour. */
struct unit_held {
	struct unit_frame f;		/* f.port: the neighbour's port */
	struct fou_ip neigh;		/* the neighbour it waits for */
};

/*
 * Take what the workers held for want of a neighbour (the hold ring): a
 * copy of the first n into got[] (may be NULL), in order, then all of them
 * dropped as the gateway does at exit (fou_neigh_stop(), which also drops
 * what waits in the neighbour table). Returns how many the ring had.
 */
unsigned int unit_held_take(struct fou_gw *gw, struct unit_held *got, unsigned int n);

/* What a worker told the control thread about a neighbour it heard from. */
enum unit_ev_kind {
	UNIT_EV_SOLICIT = 1,		/* a request for us: creates or updates */
	UNIT_EV_ADVERT,			/* a reply: updates an entry that exists */
	UNIT_EV_OTHER,			/* a request for another, an announcement */
};
#define UNIT_EV_F_CONFIRM 0x01
#define UNIT_EV_F_OVERRIDE 0x02
#define UNIT_EV_F_ROUTER 0x04

struct unit_ev {
	uint8_t kind;			/* enum unit_ev_kind */
	uint8_t flags;			/* UNIT_EV_F_* */
	uint16_t port;
	struct rte_ether_addr mac;
	struct fou_ip ip;
};

/* Take the events posted and not yet taken: the first n into ev[] (may be
 * NULL). Returns how many there were. */
unsigned int unit_events_take(struct fou_gw *gw, struct unit_ev *ev, unsigned int n);
/* The events of the last unit_run(). */
#define UNIT_EVENTS_MAX 4
extern struct unit_ev unit_events[UNIT_EVENTS_MAX];
extern unsigned int unit_nb_events;

/* The control context's counters (FOU_LCORE_CONTROL): what the gateway's
 * own stack counted away from the workers. */
const struct fou_lcore_stats *unit_ctl_stats(const struct fou_gw *gw);

/* Apply "NAME ARG" lines (separated by '\n') that must succeed. */
#define UNIT_APPLY_LINES(gw, lines) unit_apply_lines((gw), (lines), __FILE__, __LINE__)
void unit_apply_lines(struct fou_gw *gw, const char *lines, const char *file, int line);

/* Write the IPv4 header checksum of the header at ip (its IHL). */
void unit_ip4_cksum_fix(uint8_t *ip);
/* Is the UDP checksum of the IPv4 datagram at ip (header, then UDP) valid? */
bool unit_udp4_cksum_ok(const uint8_t *ip);

/* Per-test teardown: no context left open (unit_lcore_end_all()), and the
 * pool full after every test. */
int unit_test_teardown_pool(void **state);
/* The same for a test with a gateway of its own: the contexts end before
 * gw (which they count in) is freed. */
int unit_test_teardown_gw(void **state, struct fou_gw *gw);

#endif /* UNIT_H */
