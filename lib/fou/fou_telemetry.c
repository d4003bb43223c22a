/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry commands (read-only): /fou/stats, /fou/ports, /fou/tunnels and
 * /fou/lcores. They run on the telemetry thread and only read counters and
 * tables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_pause.h>
#include <rte_telemetry.h>

#include "fou_private.h"

/*
 * The telemetry thread outlives the gateway: a command holds fou_tel_busy
 * while it reads, and fou_telemetry_detach() waits for it (sequentially
 * consistent, so either the command sees NULL or detach sees it busy).
 */
static struct fou_gw *fou_tel_gw;
static uint32_t fou_tel_busy;

static const struct fou_gw *
fou_tel_enter(void)
{
	const struct fou_gw *gw;

	__atomic_add_fetch(&fou_tel_busy, 1, __ATOMIC_SEQ_CST);
	gw = __atomic_load_n(&fou_tel_gw, __ATOMIC_SEQ_CST);
	if (gw == NULL)
		__atomic_sub_fetch(&fou_tel_busy, 1, __ATOMIC_RELEASE);
	return gw;
}

static void
fou_tel_leave(void)
{
	__atomic_sub_fetch(&fou_tel_busy, 1, __ATOMIC_RELEASE);
}

void
fou_telemetry_detach(struct fou_gw *gw)
{
	struct fou_gw *expected = gw;

	if (!__atomic_compare_exchange_n(&fou_tel_gw, &expected, NULL, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return;
	while (__atomic_load_n(&fou_tel_busy, __ATOMIC_ACQUIRE) != 0)
		rte_pause();
}

/* A dict of per-port counters, keyed by port id, for enabled ports. */
static struct rte_tel_data *
fou_tel_per_port(const struct fou_gw *gw, const uint64_t *v)
{
	struct rte_tel_data *d = rte_tel_data_alloc();
	char key[8];
	uint16_t p;

	if (d == NULL)
		return NULL;
	rte_tel_data_start_dict(d);
	for (p = 0; p < RTE_MAX_ETHPORTS; p++) {
		if (!fou_iface_enabled(gw, p))
			continue;
		snprintf(key, sizeof(key), "%u", p);
		rte_tel_data_add_dict_u64(d, key, v[p]);
	}
	return d;
}

static int
fou_tel_add_container(struct rte_tel_data *d, const char *name, struct rte_tel_data *c)
{
	if (c == NULL)
		return -ENOMEM;
	if (rte_tel_data_add_dict_container(d, name, c, 0) < 0) {
		rte_tel_data_free(c);
		return -ENOMEM;
	}
	return 0;
}

static int
fou_tel_stats_fill(const struct fou_gw *gw, struct rte_tel_data *d)
{
	struct fou_lcore_stats *s;
	struct rte_tel_data *drops;
	uint64_t rx = 0, tx = 0, decap = 0;
	unsigned int i;
	int ret;

	s = malloc(sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	fou_stats_sum(gw, s);
	for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
		rx += s->rx[i];
		tx += s->tx[i];
	}
	for (i = 0; i < FOU_INNER_MAX; i++)
		decap += s->decap_inner[i];

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "rx", rx);
	rte_tel_data_add_dict_u64(d, "tx", tx);
	rte_tel_data_add_dict_u64(d, "dropped", fou_stats_drops(s));
	rte_tel_data_add_dict_u64(d, "decap", decap);
	rte_tel_data_add_dict_u64(d, "decap_ipv4", s->decap_inner[FOU_INNER_IPV4]);
	rte_tel_data_add_dict_u64(d, "decap_ipv6", s->decap_inner[FOU_INNER_IPV6]);

	drops = rte_tel_data_alloc();
	if (drops != NULL) {
		rte_tel_data_start_dict(drops);
		for (i = 0; i < FOU_DROP_MAX; i++)
			rte_tel_data_add_dict_u64(drops, fou_drop_name(i), s->drop[i]);
	}
	ret = fou_tel_add_container(d, "drops", drops);
	if (ret == 0) {
		struct rte_tel_data *icmp = rte_tel_data_alloc();

		if (icmp != NULL) {
			rte_tel_data_start_dict(icmp);
			for (i = 0; i < FOU_ICMP_MAX; i++)
				rte_tel_data_add_dict_u64(icmp, fou_icmp_name(i), s->icmp_out[i]);
		}
		ret = fou_tel_add_container(d, "icmp_sent", icmp);
	}
	if (ret == 0)
		ret = fou_tel_add_container(d, "rx_by_port", fou_tel_per_port(gw, s->rx));
	if (ret == 0)
		ret = fou_tel_add_container(d, "tx_by_port", fou_tel_per_port(gw, s->tx));
	free(s);
	return ret;
}

static int
fou_tel_ports_fill(const struct fou_gw *gw, struct rte_tel_data *d)
{
	struct fou_port_info info[FOU_MAX_UDP_PORTS];
	struct fou_lcore_stats *s;
	unsigned int n, i;
	int ret = 0;

	s = malloc(sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	fou_stats_sum(gw, s);
	n = fou_port_list(gw, info, RTE_DIM(info));
	rte_tel_data_start_dict(d);
	for (i = 0; i < n && ret == 0; i++) {
		struct rte_tel_data *e = rte_tel_data_alloc();
		const char *name = fou_proto_name(info[i].ipproto);
		char key[8];

		if (e != NULL) {
			rte_tel_data_start_dict(e);
			rte_tel_data_add_dict_string(e, "proto", name != NULL ? name : "other");
			rte_tel_data_add_dict_u64(e, "ipproto", info[i].ipproto);
			rte_tel_data_add_dict_u64(e, "decap", s->decap[info[i].slot]);
		}
		snprintf(key, sizeof(key), "%u", info[i].udp_port);
		ret = fou_tel_add_container(d, key, e);
	}
	free(s);
	return ret;
}

/*
 * {"count": N, "0": {"name": ..., ...}, "1": ...}: keyed by the tunnel's
 * position, because telemetry keys allow only letters, digits, '_' and '/'
 * (tunnel names also '-' and '.'), and DPDK 22.11 has neither arrays of
 * dicts nor dicts nested twice. A dict holds at most
 * RTE_TEL_MAX_DICT_ENTRIES: count says how many tunnels exist when some
 * are not listed.
 */
static int
fou_tel_tunnels_fill(const struct fou_gw *gw, struct rte_tel_data *d)
{
	unsigned int total = fou_tunnel_list(gw, NULL, 0), n, i;
	struct fou_tunnel_info *ti = NULL;
	int ret = 0;

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "count", total);
	n = RTE_MIN(total, (unsigned int)RTE_TEL_MAX_DICT_ENTRIES - 1);
	if (n != 0) {
		ti = calloc(n, sizeof(*ti));
		if (ti == NULL)
			return -ENOMEM;
		n = RTE_MIN(n, fou_tunnel_list(gw, ti, n));
	}
	for (i = 0; i < n && ret == 0; i++) {
		const struct fou_tunnel_conf *c = &ti[i].conf;
		struct rte_tel_data *e = rte_tel_data_alloc();
		char a[INET_ADDRSTRLEN], key[12];

		if (e != NULL) {
			rte_tel_data_start_dict(e);
			rte_tel_data_add_dict_string(e, "name", c->name);
			rte_tel_data_add_dict_string(e, "type", fou_proto_name(c->type));
			inet_ntop(AF_INET, &c->local.v4, a, sizeof(a));
			rte_tel_data_add_dict_string(e, "local", a);
			inet_ntop(AF_INET, &c->remote.v4, a, sizeof(a));
			rte_tel_data_add_dict_string(e, "remote", a);
			rte_tel_data_add_dict_string(e, "encap", c->encap_fou ? "fou" : "none");
			if (c->encap_fou)
				rte_tel_data_add_dict_u64(e, "encap_dport", c->encap_dport);
			rte_tel_data_add_dict_u64(e, "mtu", ti[i].mtu);
			if (ti[i].unresolved != NULL)
				rte_tel_data_add_dict_string(e, "unresolved", ti[i].unresolved);
			rte_tel_data_add_dict_u64(e, "tx_packets", ti[i].tx_packets);
			rte_tel_data_add_dict_u64(e, "tx_bytes", ti[i].tx_bytes);
			rte_tel_data_add_dict_u64(e, "rx_packets", ti[i].rx_packets);
			rte_tel_data_add_dict_u64(e, "rx_bytes", ti[i].rx_bytes);
		}
		snprintf(key, sizeof(key), "%u", i);
		ret = fou_tel_add_container(d, key, e);
	}
	free(ti);
	return ret;
}

/* One worker lcore: its queues and what it did. */
static struct rte_tel_data *
fou_tel_lcore(const struct fou_worker_conf *c, const struct fou_lcore_stats *s)
{
	struct rte_tel_data *e = rte_tel_data_alloc();
	uint64_t rx = 0, tx = 0;
	char key[24];
	unsigned int i;

	if (e == NULL)
		return NULL;
	for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
		rx += s->rx[i];
		tx += s->tx[i];
	}
	rte_tel_data_start_dict(e);
	rte_tel_data_add_dict_u64(e, "tx_queue", c->tx_queue);
	for (i = 0; i < c->nb_rxq; i++) {
		snprintf(key, sizeof(key), "port%u_rx_queue", c->rxq[i].port);
		rte_tel_data_add_dict_u64(e, key, c->rxq[i].queue);
	}
	rte_tel_data_add_dict_u64(e, "rx", rx);
	rte_tel_data_add_dict_u64(e, "tx", tx);
	rte_tel_data_add_dict_u64(e, "dropped", fou_stats_drops(s));
	rte_tel_data_add_dict_u64(e, "polls_busy", s->polls_busy);
	rte_tel_data_add_dict_u64(e, "polls_idle", s->polls_idle);
	return e;
}

/* {"1": {...}, "2": {...}}: the worker lcores by lcore id. */
static int
fou_tel_lcores_fill(const struct fou_gw *gw, struct rte_tel_data *d)
{
	struct fou_lcore_stats *s;
	unsigned int l;
	int ret = 0;

	s = malloc(sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	for (l = 0; l < RTE_MAX_LCORE && ret == 0; l++) {
		const struct fou_worker_conf *c = fou_worker_get(gw, l);
		char key[8];

		if (c == NULL)
			continue;
		fou_stats_lcore(gw, l, s);
		snprintf(key, sizeof(key), "%u", l);
		ret = fou_tel_add_container(d, key, fou_tel_lcore(c, s));
	}
	free(s);
	return ret;
}

/* Run a read-only command that takes no parameters. */
static int
fou_tel_run(int (*fill)(const struct fou_gw *, struct rte_tel_data *), const char *params,
	    struct rte_tel_data *d)
{
	const struct fou_gw *gw;
	int ret;

	if (params != NULL && *params != '\0')
		return -EINVAL;
	gw = fou_tel_enter();
	if (gw == NULL)
		return -ENODEV;
	ret = fill(gw, d);
	fou_tel_leave();
	return ret;
}

static int
fou_tel_stats(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return fou_tel_run(fou_tel_stats_fill, params, d);
}

static int
fou_tel_ports(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return fou_tel_run(fou_tel_ports_fill, params, d);
}

static int
fou_tel_tunnels(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return fou_tel_run(fou_tel_tunnels_fill, params, d);
}

static int
fou_tel_lcores(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return fou_tel_run(fou_tel_lcores_fill, params, d);
}

/* Help texts: rte_telemetry_register_cmd refuses one of RTE_TEL_MAX_STRING_LEN
 * bytes or more, and the command is then missing. */
#define FOU_HELP_STATS "Gateway counters: rx, tx, dropped, decapsulated; drops by reason; ICMP errors sent; rx/tx by port. No parameters"
#define FOU_HELP_PORTS "FOU receive ports: UDP port -> protocol and packets decapsulated. No parameters"
#define FOU_HELP_TUNNELS "Tunnels: count; per tunnel name, type, endpoints, encap, MTU, packets/bytes sent and received. No parameters"
#define FOU_HELP_LCORES "Worker lcores by id: TX queue, RX queue per port, rx/tx/dropped packets, busy and idle polls. No parameters"
static_assert(sizeof(FOU_HELP_LCORES) <= RTE_TEL_MAX_STRING_LEN, "/fou/lcores help too long");
static_assert(sizeof(FOU_HELP_STATS) <= RTE_TEL_MAX_STRING_LEN, "/fou/stats help too long");
static_assert(sizeof(FOU_HELP_PORTS) <= RTE_TEL_MAX_STRING_LEN, "/fou/ports help too long");
static_assert(sizeof(FOU_HELP_TUNNELS) <= RTE_TEL_MAX_STRING_LEN, "/fou/tunnels help too long");

int
fou_telemetry_register(struct fou_gw *gw)
{
	int ret;

	__atomic_store_n(&fou_tel_gw, gw, __ATOMIC_RELEASE);
	ret = rte_telemetry_register_cmd("/fou/stats", fou_tel_stats, FOU_HELP_STATS);
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/fou/ports", fou_tel_ports, FOU_HELP_PORTS);
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/fou/tunnels", fou_tel_tunnels, FOU_HELP_TUNNELS);
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/fou/lcores", fou_tel_lcores, FOU_HELP_LCORES);
	return ret;
}
