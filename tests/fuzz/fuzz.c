/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/lsan_interface.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "fuzz.h"
#include "fuzz_check.h"
#include "fou_private.h"	/* the hold ring: what the control thread takes */

struct rte_mempool *fuzz_pool;

/* --- EAL ------------------------------------------------------------------ */

static void
fuzz_ports_start(void)
{
	struct rte_eth_conf conf = { 0 };
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port) {
		if (rte_eth_dev_configure(port, 1, 1, &conf) < 0 ||
		    rte_eth_rx_queue_setup(port, 0, 64, SOCKET_ID_ANY, NULL, fuzz_pool) < 0 ||
		    rte_eth_tx_queue_setup(port, 0, 64, SOCKET_ID_ANY, NULL) < 0 ||
		    rte_eth_dev_start(port) < 0)
			FUZZ_FAIL("cannot start port %u", port);
	}
}

static void
fuzz_runtime_dir_remove(void)
{
	char sock[PATH_MAX];

	snprintf(sock, sizeof(sock), "%s/dpdk_telemetry.v2", rte_eal_get_runtime_dir());
	unlink(sock);
	rmdir(rte_eal_get_runtime_dir());
}

void
fuzz_eal_init(const char *name, unsigned int flags)
{
	char lcore[16], prefix[64];
	cpu_set_t set;
	int cpu = 0, argc = 0;
	char *argv[32];
	sigset_t alarm;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
			;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	snprintf(prefix, sizeof(prefix), "fuzz-%s-%d", name, (int)getpid());
	argv[argc++] = (char *)(uintptr_t)name;
	argv[argc++] = "-l";
	argv[argc++] = lcore;
	argv[argc++] = "--no-huge";
	argv[argc++] = "-m";
	argv[argc++] = "512";
	argv[argc++] = "--no-pci";
	argv[argc++] = "--no-shconf";
	if (!(flags & FUZZ_EAL_TELEMETRY))
		argv[argc++] = "--no-telemetry";
	argv[argc++] = "--file-prefix";
	argv[argc++] = prefix;
	argv[argc++] = "--iova-mode=va";
	argv[argc++] = "--log-level=*:critical";
	if (flags & FUZZ_EAL_VDEVS) {
		argv[argc++] = "--vdev=net_null0";
		argv[argc++] = "--vdev=net_null1";
		argv[argc++] = "--vdev=net_null2";
	}

	/* what the EAL and the pool keep for the life of the process */
	__lsan_disable();
	/* libFuzzer's timeout alarm is for this thread: in a telemetry thread
	 * it would end a read (EINTR), and telemetry closes the connection */
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alarm, NULL);
	if (rte_eal_init(argc, argv) < 0)
		FUZZ_FAIL("rte_eal_init: %s", rte_strerror(rte_errno));
	pthread_sigmask(SIG_UNBLOCK, &alarm, NULL);
	/* no per-lcore cache: the available count is exact after each input */
	fuzz_pool = rte_pktmbuf_pool_create("fuzz_pool", FUZZ_NB_MBUF, 0, 0,
					    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (fuzz_pool == NULL)
		FUZZ_FAIL("mbuf pool: %s", rte_strerror(rte_errno));
	if (flags & FUZZ_EAL_VDEVS)
		fuzz_ports_start();
	/* --no-shconf: the directory holds nothing but telemetry's socket */
	if (flags & FUZZ_EAL_TELEMETRY)
		atexit(fuzz_runtime_dir_remove);
	else
		rmdir(rte_eal_get_runtime_dir());
	__lsan_enable();
}

/* --- the gateway ------------------------------------------------------------ */

void
fuzz_gw_apply(struct fou_gw *gw, const char *const *stmts)
{
	struct fou_err err = { "" };
	char name[32];
	unsigned int i;

	for (i = 0; stmts[i] != NULL; i++) {
		const char *sp = strchr(stmts[i], ' ');

		FUZZ_ASSERT(sp != NULL && sp - stmts[i] < (int)sizeof(name), "bad line %s",
			    stmts[i]);
		snprintf(name, sizeof(name), "%.*s", (int)(sp - stmts[i]), stmts[i]);
		if (fou_stmt_apply(gw, name, sp + 1, &err) < 0)
			FUZZ_FAIL("%s: %s", stmts[i], err.msg);
	}
}

struct fou_gw *
fuzz_gw_new(const char *const *stmts, bool small)
{
	struct fou_gw_params p;
	struct fou_err err = { "" };
	static const struct rte_ether_addr mac = { { 0x02, 0, 0, 0, 0, 0x10 } };
	struct fou_gw *gw;
	uint16_t port;

	__lsan_disable();
	fou_gw_params_default(&p);
	if (small) {
		/* tables that fill up, and walks over them that stay short */
		p.max_routes4 = 64;
		p.max_routes6 = 64;
		p.max_neighs = 32;
		p.max_nexthops = 48;
		p.max_tunnels = 24;
	}
	gw = fou_gw_create(&p, &err);
	if (gw == NULL)
		FUZZ_FAIL("fou_gw_create: %s", err.msg);
	/* as main.c: every port the gateway uses starts with a MAC and 1500 */
	for (port = 0; port < FUZZ_PORTS; port++)
		if (fou_iface_set(gw, port, &mac, 1500, &err) < 0)
			FUZZ_FAIL("fou_iface_set: %s", err.msg);
	fuzz_gw_apply(gw, stmts);
	__lsan_enable();
	return gw;
}

/*
 * Tunnel T is named tT and routed from 10.T.0.0/16 (ipip, gre) and
 * fd10:T::/32 (sit, gre). Every combination of the options the encap path
 * treats differently; t1, t4, t5, t6 take the Linux peer's traffic
 * (tests/data), t13's remote is inside its own prefix (tunnel_loop), t14-t16
 * are encap gue; t17-t20 are ip6tnl (ipip6, any, ip6ip6) and ip6gre over IPv6;
 * t21-t24 too, to be matched: t21, t22 take the IPv6 peer's FOU, t23 is
 * plain, t24 GUE.
 */
static const char *const fuzz_tunnels[] = {
	"t1,type=ipip,local=10.99.0.1,remote=10.99.0.2,encap-dport=5555",
	"t2,type=ipip,local=10.99.0.1,remote=10.99.0.3,ttl=64,tos=inherit,encap-sport=4000,"
		"encap-dport=5555,encap-csum",
	"t3,type=ipip,local=10.99.0.1,remote=10.99.0.4,encap=none,nopmtudisc",
	"t4,type=sit,local=10.99.0.1,remote=10.99.0.2,ttl=64,encap-dport=5557,encap-csum",
	"t5,type=gre,local=10.99.0.1,remote=10.99.0.2,ttl=64,encap-dport=5556",
	"t6,type=gre,local=10.99.0.1,remote=10.99.0.2,key=42,csum,seq,encap-dport=5556,"
		"encap-csum",
	"t7,type=sit,local=10.99.0.1,remote=10.99.0.5,encap=none,ttl=64,tos=0x10",
	"t8,type=gre,local=10.99.0.1,remote=10.99.0.6,encap=none,key=7,seq",
	"t9,type=gre,local=10.99.0.1,remote=10.99.0.7,encap=none,csum,tos=0x21,nopmtudisc",
	"t10,type=ipip,local=10.98.0.1,remote=10.98.0.2,encap-dport=5555,encap-csum",
	"t11,type=gre,local=10.98.0.1,remote=10.98.0.3,csum,encap-dport=5556,encap-csum",
	"t12,type=sit,local=10.98.0.1,remote=10.98.0.4,encap-dport=5557",
	"t13,type=ipip,local=10.99.0.1,remote=10.13.0.1,encap-dport=5555",
	"t14,type=gre,local=10.98.0.1,remote=10.98.0.5,key=5,csum,encap=gue,encap-dport=6080,"
		"encap-csum",
	"t15,type=sit,local=10.99.0.1,remote=10.99.0.8,encap=gue,encap-dport=6080",
	"t16,type=ipip,local=10.99.0.1,remote=10.99.0.8,encap=gue,encap-sport=4001,"
		"encap-dport=6080",
	/* over IPv6 from port 2's fd00:98::1 (an address no receive seed uses
	 * as a source, so what leaves from it is a tunnel's) */
	"t17,type=ip6tnl,mode=ipip6,local=fd00:98::1,remote=fd00:98::2,encap-dport=5561",
	"t18,type=ip6gre,local=fd00:98::1,remote=fd00:98::2,key=9,csum,seq,encaplimit=none,"
		"tclass=inherit,encap=gue,encap-dport=5562,noencap-udp6-csum",
	"t19,type=ip6tnl,mode=any,local=fd00:98::1,remote=fd00:98::3,hoplimit=inherit,"
		"flowlabel=inherit,encaplimit=0,encap=none",
	"t20,type=ip6tnl,local=fd00:98::1,remote=fd00:98::4,tclass=b8,flowlabel=12345,"
		"encap=gue,encap-sport=4002,encap-dport=6080",
	"t21,type=ip6tnl,mode=any,local=fd00:99::1,remote=fd00:99::2,encap=fou,encap-dport=5555",
	"t22,type=ip6gre,local=fd00:99::1,remote=fd00:99::2,key=42,csum,encap=fou,"
		"encap-dport=5559",
	"t23,type=ip6tnl,mode=ipip6,local=fd00:99::1,remote=fd00:99::3,encap=none",
	"t24,type=ip6gre,local=fd00:99::1,remote=fd00:99::4,key=9,encap=gue,encap-sport=4002,"
		"encap-dport=5560",
};

const char *const fuzz_gw_stmts[] = {
	"link 0,address=02:00:0a:63:00:01,mtu=1500",
	"link 1,address=02:00:c0:a8:01:01,mtu=1500",
	"link 2,address=02:00:0a:62:00:01,mtu=1400",
	"icmp-rate 1000000,burst=1000000",
	"addr 0,10.99.0.1/24",
	"addr 1,192.168.1.1/24",
	"addr 1,fd00:1::1/64",
	"addr 2,10.98.0.1/24",
	"addr 0,fd00:99::1/64",
	"neigh fd00:99::2,dev=0,lladdr=52:54:00:63:00:02",
	"neigh 10.99.0.2,dev=0,lladdr=52:54:00:63:00:02",
	"neigh 10.99.0.3,dev=0,lladdr=52:54:00:63:00:03",
	"neigh 10.99.0.4,dev=0,lladdr=52:54:00:63:00:04",
	"neigh 10.99.0.5,dev=0,lladdr=52:54:00:63:00:05",
	"neigh 10.99.0.6,dev=0,lladdr=52:54:00:63:00:06",
	"neigh 10.99.0.7,dev=0,lladdr=52:54:00:63:00:07",
	"neigh 10.98.0.2,dev=2,lladdr=52:54:00:62:00:02",
	"neigh 10.98.0.3,dev=2,lladdr=52:54:00:62:00:03",
	"neigh 10.98.0.4,dev=2,lladdr=52:54:00:62:00:04",
	"neigh 10.98.0.5,dev=2,lladdr=52:54:00:62:00:05",
	"neigh 10.99.0.8,dev=0,lladdr=52:54:00:63:00:08",
	"addr 2,fd00:98::1/64",
	"neigh fd00:98::2,dev=2,lladdr=52:54:00:62:00:06",
	"neigh fd00:98::3,dev=2,lladdr=52:54:00:62:00:07",
	"neigh fd00:98::4,dev=2,lladdr=52:54:00:62:00:08",
	"neigh 192.168.1.254,dev=1,lladdr=02:00:00:01:00:fe",
	"neigh 192.168.1.4,dev=1,lladdr=02:00:00:01:00:04",
	"neigh fd00:1::fe,dev=1,lladdr=02:00:00:01:01:fe",
	"neigh fd00:1::41,dev=1,lladdr=02:00:00:01:00:41",
	"port 5555:ipip",
	"port 5556:gre",
	"port 5557:sit",
	"port 5558:ipv6",
	"port 6000:17",
	"port 6080:gue",
	"port 5555:ipip,family=6",
	"port 5556:gre,family=6",
	"port 5557:sit,family=6",
	"port 5559:gre,family=6",
	"port 5560:gue,family=6",
	"route 0.0.0.0/0,dev=1,via=192.168.1.254",
	"route ::/0,dev=1,via=fd00:1::fe",
	"route 192.168.4.0/24,dev=1,via=192.168.1.4",
	"route fd00:41::/64,dev=1,via=fd00:1::41",
	"route 172.16.0.0/12,dev=1,via=192.168.1.3",
	NULL
};

/* After the tunnels: the Linux peer's inner addresses are behind them. */
static const char *const fuzz_gw_peer_routes[] = {
	"route 192.168.4.2/32,dev=t1",
	"route 192.168.47.2/32,dev=t5",
	"route fd00:41::2/128,dev=t4",
	NULL
};

/*
 * The parser targets' gateway: a little of everything, small tables, so
 * that its /fou/config (taken after every statement) stays short.
 */
const char *const fuzz_parser_stmts[] = {
	"link 0,address=02:00:0a:63:00:01",
	"addr 0,10.99.0.1/24",
	"addr 1,192.168.1.1/24",
	"addr 1,fd00:1::1/64",
	"neigh 10.99.0.2,dev=0,lladdr=52:54:00:63:00:02",
	"neigh fd00:1::fe,dev=1,lladdr=02:00:00:01:01:fe",
	"port 5555:ipip",
	"port 5556:gre",
	"tunnel t1,type=ipip,local=10.99.0.1,remote=10.99.0.2,encap-dport=5555",
	"tunnel t5,type=gre,local=10.99.0.1,remote=10.99.0.2,key=42,csum,encap-dport=5556",
	"route 0.0.0.0/0,dev=1,via=192.168.1.254",
	"route ::/0,dev=1,via=fd00:1::fe",
	"route 10.1.0.0/16,dev=t1",
	"route fd10:5::/32,dev=t5",
	NULL
};

unsigned int
fuzz_nb_tunnels(void)
{
	return RTE_DIM(fuzz_tunnels);
}

struct fou_gw *
fuzz_gw_packet(bool small)
{
	struct fou_err err = { "" };
	struct fou_gw *gw = fuzz_gw_new(fuzz_gw_stmts, small);
	char line[256];
	unsigned int t;

	__lsan_disable();
	for (t = 0; t < RTE_DIM(fuzz_tunnels); t++) {
		const char *v[2] = { line, NULL };
		snprintf(line, sizeof(line), "tunnel %s", fuzz_tunnels[t]);
		fuzz_gw_apply(gw, v);
		/* the families the tunnel carries: ipip / ip6tnl ipip6 IPv4 only,
		 * sit / ip6tnl ip6ip6 IPv6 only (slot t is tunnel t + 1's) */
		if (gw->tunnels[t].conf.type != IPPROTO_IPV6) {
			snprintf(line, sizeof(line), "route 10.%u.0.0/16,dev=t%u", t + 1, t + 1);
			fuzz_gw_apply(gw, v);
		}
		if (gw->tunnels[t].conf.type != IPPROTO_IPIP) {
			snprintf(line, sizeof(line), "route fd10:%x::/32,dev=t%u", t + 1, t + 1);
			fuzz_gw_apply(gw, v);
		}
	}
	fuzz_gw_apply(gw, fuzz_gw_peer_routes);
	/* port 2 sums outer IPv4 and UDP checksums itself, as a NIC would */
	if (fou_iface_tx_offload_set(gw, 2, RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
				     RTE_ETH_TX_OFFLOAD_UDP_CKSUM, &err) < 0)
		FUZZ_FAIL("tx offloads: %s", err.msg);
	fuzz_check_init(gw);
	__lsan_enable();
	return gw;
}

/* --- frames ----------------------------------------------------------------- */

static uint32_t
fuzz_rand(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static struct rte_mbuf *
fuzz_seg(const uint8_t *b, uint32_t len, uint16_t headroom)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(fuzz_pool);

	FUZZ_ASSERT(m != NULL, "mbuf pool empty");
	ASAN_UNPOISON_MEMORY_REGION(m->buf_addr, m->buf_len);
	m->data_off = headroom;
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), b, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	/* the library must never look past the frame in any segment */
	ASAN_POISON_MEMORY_REGION(rte_pktmbuf_mtod_offset(m, uint8_t *, len),
				  m->buf_len - headroom - len);
	return m;
}

struct rte_mbuf *
fuzz_mbuf(const uint8_t *b, size_t len, const struct fuzz_frame *f)
{
	const uint32_t room = RTE_MBUF_DEFAULT_DATAROOM;
	uint32_t seed = f->seed, off = 0, first_room = room + RTE_PKTMBUF_HEADROOM - f->headroom;
	unsigned int nb = f->nb_segs, i;
	struct rte_mbuf *head = NULL;

	if (len > first_room)
		nb = RTE_MAX(nb, 1 + (unsigned int)((len - first_room + room - 1) / room));
	nb = RTE_MAX(1u, RTE_MIN(nb, (unsigned int)RTE_MAX(len, (size_t)1)));
	for (i = 0; i < nb; i++) {
		uint32_t left = (uint32_t)len - off, later = nb - 1 - i;
		uint32_t cap = i == 0 ? first_room : room;
		uint32_t hi = RTE_MIN(cap, left - later);
		uint32_t lo = later * room >= left ? 1 : left - later * room;
		uint32_t n = i + 1 == nb ? left : lo + fuzz_rand(&seed) % (hi - lo + 1);
		struct rte_mbuf *m;

		if (len == 0)
			n = 0;
		m = fuzz_seg(b + off, n, i == 0 ? f->headroom : RTE_PKTMBUF_HEADROOM);
		if (head == NULL) {
			head = m;
			head->port = f->port;
			head->ol_flags = f->ol_flags;
		} else if (rte_pktmbuf_chain(head, m) != 0) {
			FUZZ_FAIL("cannot chain %u segments", nb);
		}
		off += n;
	}
	return head;
}

uint64_t
fuzz_rx_flags(const uint8_t *b, size_t len, unsigned int sel)
{
	uint64_t f = 0;
	size_t off = 14, hl, tot, ulen;
	uint16_t et;
	bool ip_ok, l4_ok;

	if (sel == 0 || len < off)
		return 0;
	et = (uint16_t)(b[12] << 8 | b[13]);
	while ((et == 0x8100 || et == 0x88a8) && off + 4 <= len && off < 22) {
		et = (uint16_t)(b[off + 2] << 8 | b[off + 3]);
		off += 4;
	}
	if (et != 0x0800 || off + 20 > len || (b[off] >> 4) != 4 || (b[off] & 0xf) < 5)
		return 0;
	hl = (b[off] & 0xfu) * 4;
	if (off + hl > len)
		return 0;
	ip_ok = rfc1071_fold(rfc1071_sum(b + off, hl, 0)) == 0xffff;
	if (sel == 1)
		f |= ip_ok ? RTE_MBUF_F_RX_IP_CKSUM_GOOD : RTE_MBUF_F_RX_IP_CKSUM_BAD;
	else if (ip_ok)
		f |= RTE_MBUF_F_RX_IP_CKSUM_NONE;
	tot = (size_t)(b[off + 2] << 8 | b[off + 3]);
	if (b[off + 9] != IPPROTO_UDP || tot < hl + 8 || off + tot > len ||
	    (b[off + 6] & 0x3f) != 0 || b[off + 7] != 0)
		return f;
	ulen = (size_t)(b[off + hl + 4] << 8 | b[off + hl + 5]);
	if (ulen < 8 || ulen > tot - hl)
		return f;
	l4_ok = (b[off + hl + 6] | b[off + hl + 7]) == 0 ||
		rfc1071_fold(rfc1071_sum(b + off + hl, ulen, rfc1071_sum(b + off + 12, 8, 0) +
					 IPPROTO_UDP + (uint32_t)ulen)) == 0xffff;
	if (sel == 1)
		f |= l4_ok ? RTE_MBUF_F_RX_L4_CKSUM_GOOD : RTE_MBUF_F_RX_L4_CKSUM_BAD;
	else if (l4_ok)
		f |= RTE_MBUF_F_RX_L4_CKSUM_NONE;
	return f;
}

/* --- one burst ---------------------------------------------------------------- */

struct fou_lcore *
fuzz_lcore_new(struct fou_gw *gw, struct rte_mempool *direct, struct rte_mempool *indirect)
{
	const struct fou_lcore_conf c = {
		.direct = direct != NULL ? direct : fuzz_pool,
		.indirect = indirect != NULL ? indirect : fuzz_pool,
		.ip_id = 0,
		.socket_id = SOCKET_ID_ANY,
	};
	struct fou_err err = { "" };
	struct fou_lcore *lc = fou_lcore_create(gw, rte_lcore_id(), &c, &err);

	FUZZ_ASSERT(lc != NULL, "fou_lcore_create: %s", err.msg);
	return lc;
}

/* What a burst sent, in order, to be checked once it is whole: the
 * packets forwarded, or the fragments of some (a few dozen each, at the
 * smallest MTU the targets' ports have). */
#define FUZZ_SENT_MAX 1024
struct fuzz_sent {
	struct rte_mbuf *pkts[FUZZ_SENT_MAX];
	uint16_t port[FUZZ_SENT_MAX];
	uint16_t n;
};

static void
fuzz_sent_add(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports, uint16_t n)
{
	struct fuzz_sent *s = ctx;

	FUZZ_ASSERT(s->n + n <= FUZZ_SENT_MAX, "%u packets sent of a burst", s->n + n);
	memcpy(&s->pkts[s->n], pkts, n * sizeof(*pkts));
	memcpy(&s->port[s->n], ports, n * sizeof(*ports));
	s->n += n;
}

unsigned int
fuzz_local_stack(struct fou_gw *gw)
{
	static const struct fou_gw *ctl_gw;
	static struct fou_lcore *ctl;
	struct rte_mbuf *held[FOU_HOLD_RING];
	struct fou_lcore_stats s;
	unsigned int k, i;

	if (ctl == NULL) {
		const struct fou_lcore_conf c = { .direct = fuzz_pool, .indirect = fuzz_pool,
						  .socket_id = SOCKET_ID_ANY };
		struct fou_err err = { "" };

		ctl = fou_lcore_create(gw, FOU_LCORE_CONTROL, &c, &err);
		FUZZ_ASSERT(ctl != NULL, "control context: %s", err.msg);
		ctl_gw = gw;
	}
	FUZZ_ASSERT(ctl_gw == gw, "fuzz_local_stack() on a second gateway");
	/* out of the hold ring and back, in order, each checked */
	k = rte_ring_sc_dequeue_burst(gw->hold_ring, (void **)held, RTE_DIM(held), NULL);
	for (i = 0; i < k; i++) {
		struct fou_neigh_key key;

		memcpy(&key, RTE_MBUF_DYNFIELD(held[i], gw->hold_key_off, void *), sizeof(key));
		FUZZ_ASSERT(key.port < FUZZ_PORTS && (key.family == AF_INET ||
						       key.family == AF_INET6),
			    "held for port %u, family %u", key.port, key.family);
		fuzz_check_held(held[i], key.port);
	}
	FUZZ_ASSERT(rte_ring_sp_enqueue_bulk(gw->hold_ring, (void **)held, k, NULL) == k,
		    "the hold ring took back fewer than %u", k);
	fou_neigh_service(ctl, rte_rdtsc());
	fou_neigh_flush(gw);
	fou_neigh_stop(gw);
	/* returned tunnel probes: looked at (none of these tunnels probes),
	 * freed */
	fou_probe_service(ctl, rte_rdtsc());
	fou_probe_stop(gw);
	FUZZ_ASSERT(fou_stats_get(gw, -1, &s) == 0, "stats");
	FUZZ_ASSERT(fou_stats_held(&s) == 0, "%" PRIu64 " packets still held", fou_stats_held(&s));
	FUZZ_ASSERT(fou_stats_balanced(&s), "rx + originated + gso added + frags added != tx + drops + merged");
	return k;
}

uint16_t
fuzz_burst(const struct fou_gw *gw, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	/* the packet targets' worker: one gateway, one context on it */
	static const struct fou_gw *lc_gw;
	static struct fou_lcore *lc;
	/* the bursts' clock: each comes a reassembly time after what the one
	 * before left in the reassembly table timed out */
	static uint64_t now;
	/* fragments come from pools of their own: fuzz_pool's mbufs carry
	 * ASan poison past the frames they held, which rte_ip_frag (not
	 * instrumented) writes over */
	static struct rte_mempool *frag_direct, *frag_indirect;
	struct fou_gw *gw_rw = (struct fou_gw *)(uintptr_t)gw;
	struct fou_lcore_stats *st = fou_lcore_stats(gw_rw, rte_lcore_id());
	const uint64_t later = (uint64_t)(fou_reasm_time_get(gw) + 1) * rte_get_tsc_hz();
	uint64_t rx0, tx0, d0, h0, c0, a0, f0, rx1, tx1, d1, h1, c1, a1, f1, icmp = 0, te, hq;
	static struct fuzz_sent sent, late;
	uint16_t nf, i;

	if (lc == NULL) {
		frag_direct = rte_pktmbuf_pool_create("fuzz_frag", FUZZ_NB_MBUF, 0, 0,
						      RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
		frag_indirect = rte_pktmbuf_pool_create("fuzz_frag_ind", FUZZ_NB_MBUF, 0, 0, 0,
							SOCKET_ID_ANY);
		FUZZ_ASSERT(frag_direct != NULL && frag_indirect != NULL, "fragment pools");
		lc = fuzz_lcore_new(gw_rw, frag_direct, frag_indirect);
		lc_gw = gw;
		now = rte_rdtsc();
	}
	FUZZ_ASSERT(lc_gw == gw, "fuzz_burst() on a second gateway");
	FUZZ_ASSERT(n <= FOU_BURST, "a burst of %u", n);
	fou_stats_rx_tx(st, &rx0, &tx0);
	d0 = fou_stats_drops(st);
	h0 = st->local[FOU_LOCAL_NEIGH_QUEUED];
	c0 = st->local[FOU_LOCAL_CONSUMED];
	a0 = st->reasm_absorbed;
	f0 = fou_stats_frag_added(st);
	for (i = 0; i < FOU_ICMP_MAX; i++)
		icmp -= st->icmp_out[i];
	sent.n = 0;
	late.n = 0;
	nf = fou_lcore_rx(lc, port, pkts, n, now, fuzz_sent_add, &sent);
	f1 = fou_stats_frag_added(st);
	/* a packet fragmented on its way out leaves as several */
	FUZZ_ASSERT(nf <= n + (f1 - f0), "%u forwarded of %u, %" PRIu64 " fragments added", nf, n,
		    f1 - f0);
	/* no GRO on these ports: what was forwarded is what was sent */
	FUZZ_ASSERT(sent.n == nf, "%u forwarded, %u sent", nf, sent.n);
	for (i = 0; i < FOU_ICMP_MAX; i++)
		icmp += st->icmp_out[i];
	/* an ICMP message whose way back has no neighbour yet is counted
	 * when it is built, and waits with the held packets */
	h1 = st->local[FOU_LOCAL_NEIGH_QUEUED];
	FUZZ_ASSERT(icmp <= nf + (h1 - h0), "%" PRIu64 " ICMP messages counted, %u sent, %" PRIu64
		    " held", icmp, nf, h1 - h0);
	for (i = 0; i < nf; i++) {
		fuzz_check_output(sent.pkts[i], sent.port[i],
				  icmp == 0 ? 0 : icmp == nf && h1 == h0 ? 1 : -1);
		/* the worker counts what the TX queue took */
		FOU_STAT_ADD(st->tx[sent.port[i]], 1);
		rte_pktmbuf_free(sent.pkts[i]);
	}
	/* fragments of a datagram left incomplete time out: ICMP time
	 * exceeded about those whose first fragment came (or held for the
	 * way back's neighbour), drops for the rest; the table is empty */
	te = st->icmp_out[FOU_ICMP_REASM_EXCEEDED];
	hq = st->local[FOU_LOCAL_NEIGH_QUEUED];
	fou_lcore_idle(lc, now + later, fuzz_sent_add, &late);
	now += 2 * later;
	te = st->icmp_out[FOU_ICMP_REASM_EXCEEDED] - te;
	FUZZ_ASSERT(te == late.n + (st->local[FOU_LOCAL_NEIGH_QUEUED] - hq),
		    "%" PRIu64 " time exceeded counted, %u sent", te, late.n);
	FUZZ_ASSERT(st->reasm_in == st->reasm_out, "%" PRIu64 " fragments still held",
		    st->reasm_in - st->reasm_out);
	for (i = 0; i < late.n; i++) {
		fuzz_check_output(late.pkts[i], late.port[i], 1);
		FOU_STAT_ADD(st->tx[late.port[i]], 1);
		rte_pktmbuf_free(late.pkts[i]);
	}
	fou_stats_rx_tx(st, &rx1, &tx1);
	d1 = fou_stats_drops(st);
	h1 = st->local[FOU_LOCAL_NEIGH_QUEUED];
	c1 = st->local[FOU_LOCAL_CONSUMED];
	a1 = st->reasm_absorbed;
	FUZZ_ASSERT(rx1 - rx0 == n, "rx counted %" PRIu64 " of %u", rx1 - rx0, n);
	f1 = fou_stats_frag_added(st);
	FUZZ_ASSERT(rx1 - rx0 + (f1 - f0) ==
		    (tx1 - tx0) + (d1 - d0) + (h1 - h0) + (c1 - c0) + (a1 - a0),
		    "rx %" PRIu64 " + fragments added %" PRIu64 " != tx %" PRIu64 " + dropped %"
		    PRIu64 " + held %" PRIu64 " + consumed %" PRIu64 " + absorbed %" PRIu64,
		    rx1 - rx0, f1 - f0, tx1 - tx0, d1 - d0, h1 - h0, c1 - c0, a1 - a0);
	FUZZ_ASSERT(fuzz_local_stack(gw_rw) == h1 - h0, "held %" PRIu64 ", the ring had others",
		    h1 - h0);
	FUZZ_ASSERT(rte_mempool_avail_count(fuzz_pool) == FUZZ_NB_MBUF,
		    "%u mbufs not back in the pool",
		    FUZZ_NB_MBUF - rte_mempool_avail_count(fuzz_pool));
	FUZZ_ASSERT(rte_mempool_avail_count(frag_direct) == FUZZ_NB_MBUF &&
		    rte_mempool_avail_count(frag_indirect) == FUZZ_NB_MBUF,
		    "fragment mbufs not back in their pools");
	return nf;
}

/* --- the running configuration ----------------------------------------------- */

struct fuzz_text {
	char *buf;
	size_t size, len;
};

static int
fuzz_text_line(void *ctx, const char *name, const char *arg, struct fou_err *err __rte_unused)
{
	struct fuzz_text *t = ctx;
	int n = snprintf(t->buf + t->len, t->size - t->len, "%s %s\n", name, arg);

	FUZZ_ASSERT(n > 0 && (size_t)n < t->size - t->len, "configuration over %zu bytes",
		    t->size);
	t->len += (size_t)n;
	return 0;
}

void
fuzz_config_text(const struct fou_gw *gw, char *buf, size_t size)
{
	struct fuzz_text t = { buf, size, 0 };
	struct fou_err err = { "" };

	buf[0] = '\0';
	FUZZ_ASSERT(fou_config_dump(gw, fuzz_text_line, &t, &err) == 0, "config dump: %s",
		    err.msg);
}

/* Is the line (up to its '\n') one of text's lines? */
static bool
fuzz_has_line(const char *text, const char *line, size_t len)
{
	const char *p = text;

	for (; *p != '\0'; p = strchr(p, '\n') + 1)
		if (strncmp(p, line, len) == 0 && p[len] == '\n')
			return true;
	return false;
}

/* Statements set, never deleted: set again to the base value. */
static bool
fuzz_is_set_only(const char *name)
{
	return fou_stmt_del_usage(name) == NULL;
}

static void
fuzz_line_split(const char *line, size_t len, char *name, size_t nsize, char *arg, size_t asize)
{
	const char *sp = memchr(line, ' ', len);

	FUZZ_ASSERT(sp != NULL, "dump line without a space: %.*s", (int)len, line);
	snprintf(name, nsize, "%.*s", (int)(sp - line), line);
	snprintf(arg, asize, "%.*s", (int)(len - (size_t)(sp - line) - 1), sp + 1);
}

/* Why the last delete or re-add of a restore round failed. */
static char fuzz_restore_err[FOU_ERR_LEN + 600];

/* Statements of text in reverse order (routes before the tunnels they
 * use, tunnels before their addresses ...) that base does not have. */
static void
fuzz_delete_extra(struct fou_gw *gw, const char *text, const char *base)
{
	const char *lines[1024];
	unsigned int n = 0;
	const char *p;
	char name[32], arg[512];
	struct fou_err err = { "" };

	for (p = text; *p != '\0'; p = strchr(p, '\n') + 1) {
		FUZZ_ASSERT(n < RTE_DIM(lines), "over %zu statements", RTE_DIM(lines));
		lines[n++] = p;
	}
	while (n-- > 0) {
		size_t len = (size_t)(strchr(lines[n], '\n') - lines[n]);

		if (fuzz_has_line(base, lines[n], len))
			continue;
		fuzz_line_split(lines[n], len, name, sizeof(name), arg, sizeof(arg));
		/* the reassembly time is written only where it is not the
		 * default: a line the base has not is undone by the default */
		if (strcmp(name, "ipfrag-time") == 0 && strstr(base, "ipfrag-time ") == NULL) {
			snprintf(arg, sizeof(arg), "%u", FOU_REASM_TIME_DEFAULT);
			if (fou_stmt_apply(gw, name, arg, &err) < 0)
				snprintf(fuzz_restore_err, sizeof(fuzz_restore_err), "%s %s: %s",
					 name, arg, err.msg);
			continue;
		}
		if (fuzz_is_set_only(name))
			continue;
		/* a tunnel is deleted by its name alone (`ip link del NAME`) */
		if (strcmp(name, "tunnel") == 0)
			arg[strcspn(arg, ",")] = '\0';
		if (fou_stmt_del(gw, name, arg, &err) < 0)
			snprintf(fuzz_restore_err, sizeof(fuzz_restore_err), "-%s %s: %s", name,
				 arg, err.msg);
	}
}

static void
fuzz_add_missing(struct fou_gw *gw, const char *text, const char *base)
{
	const char *p;
	char name[32], arg[512];
	struct fou_err err = { "" };

	for (p = base; *p != '\0'; p = strchr(p, '\n') + 1) {
		size_t len = (size_t)(strchr(p, '\n') - p);

		if (fuzz_has_line(text, p, len))
			continue;
		fuzz_line_split(p, len, name, sizeof(name), arg, sizeof(arg));
		if (fou_stmt_apply(gw, name, arg, &err) < 0)
			snprintf(fuzz_restore_err, sizeof(fuzz_restore_err), "%s %s: %s", name,
				 arg, err.msg);
	}
}

/* Same lines, in any order (re-added ones come last). */
static bool
fuzz_same_lines(const char *a, const char *b)
{
	const char *p;
	size_t na = 0, nb = 0;

	for (p = a; *p != '\0'; p = strchr(p, '\n') + 1, na++)
		if (!fuzz_has_line(b, p, (size_t)(strchr(p, '\n') - p)))
			return false;
	for (p = b; *p != '\0'; p = strchr(p, '\n') + 1)
		nb++;
	return na == nb;
}

void
fuzz_config_restore(struct fou_gw *gw, const char *base)
{
	static char text[FUZZ_CFG_MAX];

	unsigned int round;

	fuzz_config_text(gw, text, sizeof(text));
	if (strcmp(text, base) == 0)
		return;
	/* an operation may be refused until another is done (an address a
	 * route's gateway needs goes once the base's own is back): rounds */
	for (round = 0; round < 4 && !fuzz_same_lines(text, base); round++) {
		fuzz_restore_err[0] = '\0';
		fuzz_delete_extra(gw, text, base);
		fuzz_config_text(gw, text, sizeof(text));
		fuzz_add_missing(gw, text, base);
		fuzz_config_text(gw, text, sizeof(text));
	}
	if (!fuzz_same_lines(text, base))
		FUZZ_FAIL("configuration not restored (%s):\n--- now\n%s--- base\n%s",
			  fuzz_restore_err, text, base);
}

/* --- quiet output ------------------------------------------------------------- */

static size_t fuzz_quiet_bytes;
static FILE *fuzz_quiet_file, *fuzz_saved_out, *fuzz_saved_err;

static ssize_t
fuzz_quiet_write(void *c __rte_unused, const char *buf __rte_unused, size_t size)
{
	fuzz_quiet_bytes += size;
	return (ssize_t)size;
}

size_t
fuzz_quiet_begin(void)
{
	if (fuzz_quiet_file == NULL) {
		cookie_io_functions_t io = { .write = fuzz_quiet_write };

		__lsan_disable();
		fuzz_quiet_file = fopencookie(NULL, "w", io);
		__lsan_enable();
		FUZZ_ASSERT(fuzz_quiet_file != NULL, "fopencookie");
	}
	fuzz_quiet_bytes = 0;
	fuzz_saved_out = stdout;
	fuzz_saved_err = stderr;
	stdout = fuzz_quiet_file;
	stderr = fuzz_quiet_file;
	return 0;
}

size_t
fuzz_quiet_end(void)
{
	fflush(fuzz_quiet_file);
	stdout = fuzz_saved_out;
	stderr = fuzz_saved_err;
	return fuzz_quiet_bytes;
}

void
fuzz_getopt_reset(void)
{
	char *argv[] = { "fuzz", NULL };

	optind = 0;	/* getopt starts from scratch */
	while (getopt_long(1, argv, "", NULL, NULL) != -1)
		;
}
