/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry commands: the statements of the command line and config file
 * as /fou/<statement>/add|del|set,ARG, made from the statement table
 * (sport-range and icmp-rate as sport_range and icmp_rate: command names
 * allow no '-'), the tables
 * (/fou/ports, /fou/tunnels, /fou/routes, /fou/neighs, /fou/addrs, paged
 * with offset=N), the counters (/fou/stats, /fou/stats/reset) and the
 * running configuration (/fou/config), the worker lcores (/fou/lcores).
 * The app registers them before rte_eal_init(); they answer "not
 * ready" until the gateway runs (fou_telemetry_start()) and "stopping"
 * from fou_telemetry_stop() on. They run on telemetry threads, never on a
 * worker, and parse nothing themselves: fou_stmt_apply() and
 * fou_stmt_del() do. Every change is logged (fou.telemetry, INFO) with
 * what was asked and what came of it. Text layer, on the public headers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_telemetry.h>

#include "fou_stmt.h"

/*
 * Telemetry runs a thread per client connection from rte_eal_init() on,
 * and the threads outlive the gateway: every command holds fou_tel_lock,
 * which makes the commands the one writer the tables allow, one at a time,
 * lets fou_telemetry_start() publish the gateway to them at one instant
 * and fou_telemetry_stop() wait for the command in progress. The gateway
 * is read only in FOU_TEL_RUNNING: before, the app is still building it
 * (the command line, the ports) without the lock, and a command must not
 * see it half made; after, the app reads the final state and frees it.
 */
enum fou_tel_state { FOU_TEL_STARTING, FOU_TEL_RUNNING, FOU_TEL_STOPPING };

static pthread_mutex_t fou_tel_lock = PTHREAD_MUTEX_INITIALIZER;
static enum fou_tel_state fou_tel_state;
static struct fou_gw *fou_tel_gw;

#define FOU_TEL_MSG_STARTING "not ready: dpdk-fou is starting"
#define FOU_TEL_MSG_STOPPING "dpdk-fou is stopping"

/* The gateway under the locks, or NULL with *ret -EAGAIN (starting) or
 * -ESHUTDOWN (stopping) and *msg what to answer. */
static struct fou_gw *
fou_tel_enter(int *ret, const char **msg)
{
	pthread_mutex_lock(&fou_tel_lock);
	*ret = fou_tel_state == FOU_TEL_STARTING ? -EAGAIN : -ESHUTDOWN;
	*msg = fou_tel_state == FOU_TEL_STARTING ? FOU_TEL_MSG_STARTING : FOU_TEL_MSG_STOPPING;
	if (fou_tel_state != FOU_TEL_RUNNING || fou_tel_gw == NULL) {
		pthread_mutex_unlock(&fou_tel_lock);
		return NULL;
	}
	/* the gateway's own stack writes the neighbour table too */
	fou_gw_lock(fou_tel_gw);
	return fou_tel_gw;
}

static void
fou_tel_leave(void)
{
	fou_gw_unlock(fou_tel_gw);
	pthread_mutex_unlock(&fou_tel_lock);
}

void
fou_telemetry_start(struct fou_gw *gw)
{
	pthread_mutex_lock(&fou_tel_lock);
	fou_tel_gw = gw;
	fou_tel_state = FOU_TEL_RUNNING;
	pthread_mutex_unlock(&fou_tel_lock);
}

void
fou_telemetry_stop(void)
{
	pthread_mutex_lock(&fou_tel_lock);
	fou_tel_state = FOU_TEL_STOPPING;
	fou_tel_gw = NULL;
	pthread_mutex_unlock(&fou_tel_lock);
}

/*
 * A client's bytes as a log line shows them: control characters and bytes
 * from 0x7f up become '?' (a newline would forge a second line in the
 * journal), and a long one is cut with "...".
 */
static const char *
fou_tel_log_str(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i + 1 < len; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
	buf[i] = '\0';
	if (s[i] != '\0' && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}

#define FOU_TEL_LOG_ARG 256
#define TELLOGSTR(s) fou_tel_log_str((s), (char[FOU_TEL_LOG_ARG]){ 0 }, FOU_TEL_LOG_ARG)

/*
 * DPDK 22.11 telemetry writes string values into JSON as they are: a quote
 * or a backslash (from a parameter echoed in an error message) would break
 * the reply, and its escaping turns bytes from 0x80 up (UTF-8 included)
 * into invalid escapes or drops them. They become '?', as do control
 * characters and DEL, and a value is cut to what telemetry holds.
 */
static void
fou_tel_add_str(struct rte_tel_data *d, const char *key, const char *val)
{
	char buf[RTE_TEL_MAX_STRING_LEN];
	size_t i;

	snprintf(buf, sizeof(buf), "%s", val);
	for (i = 0; buf[i] != '\0'; i++)
		if (buf[i] == '"' || buf[i] == '\\' || (unsigned char)buf[i] < 0x20 ||
		    (unsigned char)buf[i] >= 0x7f)
			buf[i] = '?';
	rte_tel_data_add_dict_string(d, key, buf);
}

/* A failed command: {"error": what went wrong, naming it, "errno": -N}. */
static int
fou_tel_error(struct rte_tel_data *d, int ret, const char *msg)
{
	rte_tel_data_start_dict(d);
	fou_tel_add_str(d, "error", msg);
	rte_tel_data_add_dict_int(d, "errno", ret);
	return 0;
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

/* --- parameters of the read commands ----------------------------------- */

struct fou_tel_args {
	unsigned int offset;	/* offset=N: the first entry of a page */
	int lcore;		/* lcore=N: one lcore's counters, -1: all */
};

/*
 * Read commands take key=value parameters, each at most once: offset=N
 * where a table is paged, lcore=N for /fou/stats. Anything else is named
 * in the error.
 */
static int
fou_tel_args_parse(const char *params, const char *const *keys, struct fou_tel_args *a,
		   struct fou_err *err)
{
	char buf[FOU_ERR_LEN], *tok, *save = NULL;
	bool seen[2] = { false, false };
	uint32_t v;
	int ret;

	a->offset = 0;
	a->lcore = -1;
	if (params == NULL || params[0] == '\0')
		return 0;
	ret = fou_parse_fields_copy(buf, sizeof(buf), params, err);
	if (ret < 0)
		return ret;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		unsigned int k;

		if (eq != NULL)
			*eq++ = '\0';
		for (k = 0; keys[k] != NULL && strcmp(keys[k], tok) != 0; k++)
			;
		if (keys[k] == NULL) {
			fou_err_set(err, "unknown parameter '%s' (%s)", tok,
				    keys[0] == NULL ? "this command takes none" : "see /help");
			return -EINVAL;
		}
		k = strcmp(tok, "offset") == 0 ? 0 : 1;
		if (seen[k]) {
			fou_err_set(err, "parameter '%s' given twice", tok);
			return -EINVAL;
		}
		seen[k] = true;
		if (eq == NULL || fou_parse_u32(eq, k == 0 ? UINT32_MAX : RTE_MAX_LCORE - 1, &v) < 0) {
			fou_err_set(err, "%s: '%s' is not a number%s", tok, eq == NULL ? "" : eq,
				    k == 0 ? "" : " of an lcore");
			return -EINVAL;
		}
		if (k == 0)
			a->offset = v;
		else
			a->lcore = (int)v;
	}
	return 0;
}

/* {"count": all, "offset": o, "next": o + n if more}: a page's header. */
static void
fou_tel_page_start(struct rte_tel_data *d, unsigned int total, unsigned int offset,
		   unsigned int n)
{
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "count", total);
	rte_tel_data_add_dict_u64(d, "offset", offset);
	if (offset + n < total)
		rte_tel_data_add_dict_u64(d, "next", offset + n);
}

static const char *
fou_tel_prefix(const struct fou_ip *ip, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%u", FOU_IPSTR(ip), ip->plen);
	return buf;
}

#define TELPREFIX(ip) fou_tel_prefix((ip), (char[INET6_ADDRSTRLEN + 4]){ 0 }, \
				     INET6_ADDRSTRLEN + 4)

/* --- counters ------------------------------------------------------------ */

/* A dict of one counter per worker lcore (since the last reset). */
static struct rte_tel_data *
fou_tel_per_lcore(const struct fou_gw *gw, int what)
{
	struct rte_tel_data *d = rte_tel_data_alloc();
	struct fou_lcore_stats *s = malloc(sizeof(*s));
	unsigned int l;
	char key[8];

	if (d == NULL || s == NULL) {
		rte_tel_data_free(d);
		free(s);
		return NULL;
	}
	rte_tel_data_start_dict(d);
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		uint64_t rx, tx;

		if (!fou_lcore_is_reader(gw, l))
			continue;
		fou_stats_get(gw, (int)l, s);
		fou_stats_rx_tx(s, &rx, &tx);
		snprintf(key, sizeof(key), "%u", l);
		rte_tel_data_add_dict_u64(d, key, what == 0 ? rx : what == 1 ? tx :
					  fou_stats_drops(s));
	}
	free(s);
	return d;
}

/* A FOU port's key: its UDP port, and "_6" after it for one over IPv6,
 * so that the two families of one UDP port never share a key. */
#define FOU_TEL_PORT_KEY 10

static void
fou_tel_port_key(char *key, const struct fou_port_info *pi)
{
	snprintf(key, FOU_TEL_PORT_KEY, "%u%s", pi->udp_port, pi->family == AF_INET6 ? "_6" : "");
}

/* Decapsulated per FOU port, keyed by UDP port. */
static struct rte_tel_data *
fou_tel_per_fou_port(const struct fou_gw *gw, const struct fou_lcore_stats *s)
{
	struct fou_port_info info[FOU_MAX_UDP_PORTS];
	struct rte_tel_data *d = rte_tel_data_alloc();
	unsigned int n = fou_port_list(gw, info, RTE_DIM(info)), i;
	char key[FOU_TEL_PORT_KEY];

	if (d == NULL)
		return NULL;
	rte_tel_data_start_dict(d);
	for (i = 0; i < n; i++) {
		fou_tel_port_key(key, &info[i]);
		rte_tel_data_add_dict_u64(d, key, s->decap[info[i].slot]);
	}
	return d;
}

static struct rte_tel_data *
fou_tel_named(const uint64_t *v, unsigned int n, const char *(*name)(unsigned int))
{
	struct rte_tel_data *d = rte_tel_data_alloc();
	unsigned int i;

	if (d == NULL)
		return NULL;
	rte_tel_data_start_dict(d);
	for (i = 0; i < n; i++)
		rte_tel_data_add_dict_u64(d, name(i), v[i]);
	return d;
}

static const char *
fou_tel_drop_name(unsigned int i)
{
	return fou_drop_name((enum fou_drop)i);
}

static const char *
fou_tel_icmp_name(unsigned int i)
{
	return fou_icmp_name((enum fou_icmp_kind)i);
}

static const char *
fou_tel_local_name(unsigned int i)
{
	return fou_local_name((enum fou_local_counter)i);
}

static const char *
fou_tel_punt_name(unsigned int i)
{
	return fou_punt_name((enum fou_punt_counter)i);
}

static int
fou_tel_stats_fill(struct fou_gw *gw, const struct fou_tel_args *a, struct rte_tel_data *d)
{
	struct fou_lcore_stats *s;
	uint64_t rx, tx, decap = 0;
	unsigned int i;
	int ret;

	s = malloc(sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	fou_stats_get(gw, a->lcore, s);
	fou_stats_rx_tx(s, &rx, &tx);
	for (i = 0; i < FOU_INNER_MAX; i++)
		decap += s->decap_inner[i];

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "rx", rx);
	rte_tel_data_add_dict_u64(d, "tx", tx);
	rte_tel_data_add_dict_u64(d, "dropped", fou_stats_drops(s));
	rte_tel_data_add_dict_u64(d, "held", fou_stats_held(s));
	rte_tel_data_add_dict_u64(d, "punted", fou_stats_punted(s));
	rte_tel_data_add_dict_u64(d, "punt_in", fou_stats_punt_in(s));
	rte_tel_data_add_dict_u64(d, "decap", decap);
	rte_tel_data_add_dict_u64(d, "decap_ipv4", s->decap_inner[FOU_INNER_IPV4]);
	rte_tel_data_add_dict_u64(d, "decap_ipv6", s->decap_inner[FOU_INNER_IPV6]);
	rte_tel_data_add_dict_u64(d, "gro_merged", s->gro_merged);
	rte_tel_data_add_dict_u64(d, "gro_flushed", s->gro_flushed);
	rte_tel_data_add_dict_u64(d, "gro_tso", s->gro_tso);
	rte_tel_data_add_dict_u64(d, "gso_packets", s->gso_packets);
	rte_tel_data_add_dict_u64(d, "gso_segments", s->gso_segments);
	rte_tel_data_add_dict_u64(d, "frag_packets", s->frag_packets);
	rte_tel_data_add_dict_u64(d, "frag_fragments", s->frag_fragments);
	rte_tel_data_add_dict_u64(d, "reasm_datagrams", s->reasm_datagrams);
	rte_tel_data_add_dict_u64(d, "reasm_absorbed", s->reasm_absorbed);
	rte_tel_data_add_dict_u64(d, "reasm_held", fou_stats_reasm_held(s));
	ret = fou_tel_add_container(d, "drops", fou_tel_named(s->drop, FOU_DROP_MAX,
							       fou_tel_drop_name));
	if (ret == 0)
		ret = fou_tel_add_container(d, "icmp_sent",
					    fou_tel_named(s->icmp_out, FOU_ICMP_MAX,
							  fou_tel_icmp_name));
	if (ret == 0)
		ret = fou_tel_add_container(d, "local",
					    fou_tel_named(s->local, FOU_LOCAL_MAX,
							  fou_tel_local_name));
	if (ret == 0)
		ret = fou_tel_add_container(d, "punt",
					    fou_tel_named(s->punt, FOU_PUNT_MAX, fou_tel_punt_name));
	if (ret == 0)
		ret = fou_tel_add_container(d, "rx_by_port", fou_tel_per_port(gw, s->rx));
	if (ret == 0)
		ret = fou_tel_add_container(d, "tx_by_port", fou_tel_per_port(gw, s->tx));
	if (ret == 0)
		ret = fou_tel_add_container(d, "frags_by_port", fou_tel_per_port(gw, s->frag_port));
	if (ret == 0)
		ret = fou_tel_add_container(d, "decap_by_fou_port", fou_tel_per_fou_port(gw, s));
	if (ret == 0 && a->lcore < 0)
		ret = fou_tel_add_container(d, "rx_by_lcore", fou_tel_per_lcore(gw, 0));
	if (ret == 0 && a->lcore < 0)
		ret = fou_tel_add_container(d, "tx_by_lcore", fou_tel_per_lcore(gw, 1));
	if (ret == 0 && a->lcore < 0)
		ret = fou_tel_add_container(d, "dropped_by_lcore", fou_tel_per_lcore(gw, 2));
	free(s);
	return ret;
}

/* --- tables -------------------------------------------------------------- */

/*
 * FOU ports, keyed by UDP port, 128 a page (255 ports with their counters
 * would not fit in one reply): {"count", "offset", ["next"], "5555": {...}}.
 */
#define FOU_TEL_PAGE_PORTS 128u

static int
fou_tel_ports_fill(struct fou_gw *gw, const struct fou_tel_args *a, struct rte_tel_data *d)
{
	struct fou_port_info info[FOU_MAX_UDP_PORTS];
	struct fou_lcore_stats *s;
	unsigned int total, n, i;
	int ret = 0;

	s = malloc(sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	fou_stats_get(gw, -1, s);
	total = fou_port_list(gw, info, RTE_DIM(info));
	n = a->offset < total ? RTE_MIN(total - a->offset, FOU_TEL_PAGE_PORTS) : 0;
	fou_tel_page_start(d, total, a->offset, n);
	for (i = a->offset; i < a->offset + n && ret == 0; i++) {
		struct rte_tel_data *e = rte_tel_data_alloc();
		const char *name = info[i].gue ? "gue" : fou_proto_name(info[i].ipproto);
		char key[FOU_TEL_PORT_KEY];

		if (e != NULL) {
			rte_tel_data_start_dict(e);
			rte_tel_data_add_dict_u64(e, "family", info[i].family == AF_INET6 ? 6 : 4);
			rte_tel_data_add_dict_string(e, "proto", name != NULL ? name : "other");
			rte_tel_data_add_dict_u64(e, "ipproto", info[i].ipproto);
			rte_tel_data_add_dict_u64(e, "decap", s->decap[info[i].slot]);
		}
		fou_tel_port_key(key, &info[i]);
		ret = fou_tel_add_container(d, key, e);
	}
	free(s);
	return ret;
}

/* Entries of a page, each a dict keyed by its position in the table. */
static int
fou_tel_add_entry(struct rte_tel_data *d, unsigned int pos, struct rte_tel_data *e)
{
	char key[12];

	snprintf(key, sizeof(key), "%u", pos);
	return fou_tel_add_container(d, key, e);
}

/*
 * Tables are pages of {"count": N, "offset": O, "next": M, "O": {...},
 * ...}: keyed by position, because telemetry keys allow only letters,
 * digits, '_' and '/' (tunnel names also '-' and '.'), DPDK 22.11 has
 * neither arrays of dicts nor dicts nested twice, and a reply holds at most
 * RTE_TEL_MAX_DICT_ENTRIES entries and 16 KiB. "next" is the offset of the
 * next page while there is one.
 */
#define FOU_TEL_PAGE_TUNNELS 32u
#define FOU_TEL_PAGE 64u

/*
 * A page of a table: entries offset.. of the total, at most page, from
 * v[0..] (the page's first entry first), each written by entry().
 */
static int
fou_tel_page(struct rte_tel_data *d, unsigned int total, unsigned int offset, unsigned int page,
	     void (*entry)(struct rte_tel_data *e, const void *v, unsigned int i), const void *v)
{
	unsigned int n = offset < total ? RTE_MIN(total - offset, page) : 0, i;
	int ret = 0;

	fou_tel_page_start(d, total, offset, n);
	for (i = 0; i < n && ret == 0; i++) {
		struct rte_tel_data *e = rte_tel_data_alloc();

		if (e != NULL) {
			rte_tel_data_start_dict(e);
			entry(e, v, i);
		}
		ret = fou_tel_add_entry(d, offset + i, e);
	}
	return ret;
}

static void
fou_tel_tunnel_entry(struct rte_tel_data *e, const void *v, unsigned int i)
{
	const struct fou_tunnel_info *ti = (const struct fou_tunnel_info *)v + i;
	const struct fou_tunnel_conf *c = &ti->conf;

	fou_tel_add_str(e, "name", c->name);
	rte_tel_data_add_dict_string(e, "type", fou_tunnel_type_name(c));
	if (fou_tunnel_mode_name(c) != NULL)
		rte_tel_data_add_dict_string(e, "mode", fou_tunnel_mode_name(c));
	rte_tel_data_add_dict_string(e, "local", FOU_IPSTR(&c->local));
	rte_tel_data_add_dict_string(e, "remote", FOU_IPSTR(&c->remote));
	if (c->local.family == AF_INET6) {
		char buf[16];

		rte_tel_data_add_dict_u64(e, "hoplimit", c->ttl);
		if (c->tos_inherit)
			snprintf(buf, sizeof(buf), "inherit");
		else
			snprintf(buf, sizeof(buf), "0x%02x", c->tos);
		rte_tel_data_add_dict_string(e, "tclass", buf);
		if (c->flowlabel_inherit)
			snprintf(buf, sizeof(buf), "inherit");
		else
			snprintf(buf, sizeof(buf), "0x%05x", c->flowlabel);
		rte_tel_data_add_dict_string(e, "flowlabel", buf);
		if (c->encaplimit < 0)
			rte_tel_data_add_dict_string(e, "encaplimit", "none");
		else
			rte_tel_data_add_dict_u64(e, "encaplimit", (uint64_t)c->encaplimit);
		rte_tel_data_add_dict_u64(e, "encap_csum6", c->encap_csum6);
	}
	rte_tel_data_add_dict_string(e, "encap", fou_encap_name(c->encap));
	if (c->encap != FOU_ENCAP_NONE)
		rte_tel_data_add_dict_u64(e, "encap_dport", c->encap_dport);
	rte_tel_data_add_dict_u64(e, "mtu", ti->mtu);
	rte_tel_data_add_dict_u64(e, "path_mtu", ti->path_mtu);
	rte_tel_data_add_dict_u64(e, "path_mtu_expires", ti->path_mtu_expires);
	rte_tel_data_add_dict_u64(e, "probed_mtu", ti->probed_mtu);
	rte_tel_data_add_dict_string(e, "mtu_search", ti->mtu_search);
	if (ti->unresolved != NULL)
		rte_tel_data_add_dict_string(e, "unresolved", ti->unresolved);
	rte_tel_data_add_dict_u64(e, "tx_packets", ti->tx_packets);
	rte_tel_data_add_dict_u64(e, "tx_bytes", ti->tx_bytes);
	rte_tel_data_add_dict_u64(e, "rx_packets", ti->rx_packets);
	rte_tel_data_add_dict_u64(e, "rx_bytes", ti->rx_bytes);
	rte_tel_data_add_dict_u64(e, "tx_frags", ti->tx_frags);
	rte_tel_data_add_dict_u64(e, "tx_outer_frags", ti->tx_outer_frags);
	rte_tel_data_add_dict_string(e, "health", ti->health);
}

static int
fou_tel_tunnels_fill(struct fou_gw *gw, const struct fou_tel_args *a, struct rte_tel_data *d)
{
	struct fou_tunnel_info *ti = calloc(FOU_TEL_PAGE_TUNNELS, sizeof(*ti));
	unsigned int total;
	int ret;

	if (ti == NULL)
		return -ENOMEM;
	total = fou_tunnel_list_from(gw, ti, FOU_TEL_PAGE_TUNNELS, a->offset, true);
	ret = fou_tel_page(d, total, a->offset, FOU_TEL_PAGE_TUNNELS, fou_tel_tunnel_entry, ti);
	free(ti);
	return ret;
}

/* One worker lcore: its queues and what it did. */
static struct rte_tel_data *
fou_tel_lcore(const struct fou_worker_conf *c, const struct fou_lcore_stats *s)
{
	struct rte_tel_data *e = rte_tel_data_alloc();
	uint64_t rx, tx;
	char key[24];
	unsigned int i;

	if (e == NULL)
		return NULL;
	fou_stats_rx_tx(s, &rx, &tx);
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
fou_tel_lcores_fill(struct fou_gw *gw, const struct fou_tel_args *a __rte_unused,
		    struct rte_tel_data *d)
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
		fou_stats_get(gw, (int)l, s);
		snprintf(key, sizeof(key), "%u", l);
		ret = fou_tel_add_container(d, key, fou_tel_lcore(c, s));
	}
	free(s);
	return ret;
}

static void
fou_tel_route_entry(struct rte_tel_data *e, const void *v, unsigned int i)
{
	const struct fou_route_info *ri = (const struct fou_route_info *)v + i;
	char dev[8];

	rte_tel_data_add_dict_string(e, "prefix", TELPREFIX(&ri->prefix));
	rte_tel_data_add_dict_string(e, "type", ri->type);
	snprintf(dev, sizeof(dev), "%u", ri->port);
	if (ri->tunnel[0] != '\0')
		fou_tel_add_str(e, "dev", ri->tunnel);
	else if (strcmp(ri->type, "local") != 0)
		rte_tel_data_add_dict_string(e, "dev", dev);
	if (ri->via.family != 0)
		rte_tel_data_add_dict_string(e, "via", FOU_IPSTR(&ri->via));
	rte_tel_data_add_dict_string(e, "origin", ri->from_addr ? "addr" : "route");
	rte_tel_data_add_dict_u64(e, "metric", ri->metric);
	rte_tel_data_add_dict_u64(e, "weight", ri->weight);
	rte_tel_data_add_dict_u64(e, "usable", ri->usable);
	rte_tel_data_add_dict_u64(e, "in_use", ri->in_use);
}

static int
fou_tel_routes_fill(struct fou_gw *gw, const struct fou_tel_args *a, struct rte_tel_data *d)
{
	struct fou_route_info ri[FOU_TEL_PAGE];
	unsigned int total = fou_route_list(gw, ri, FOU_TEL_PAGE, a->offset);

	return fou_tel_page(d, total, a->offset, FOU_TEL_PAGE, fou_tel_route_entry, ri);
}

static void
fou_tel_neigh_entry(struct rte_tel_data *e, const void *v, unsigned int i)
{
	const struct fou_neigh_info *ni = (const struct fou_neigh_info *)v + i;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	rte_tel_data_add_dict_string(e, "ip", FOU_IPSTR(&ni->ip));
	rte_tel_data_add_dict_u64(e, "dev", ni->port);
	rte_ether_format_addr(mac, sizeof(mac), &ni->mac);
	rte_tel_data_add_dict_string(e, "lladdr", mac);
	rte_tel_data_add_dict_string(e, "state", fou_neigh_state_name(ni->state));
	rte_tel_data_add_dict_u64(e, "age_ms", ni->age_ms);
	rte_tel_data_add_dict_u64(e, "queued", ni->queued);
	rte_tel_data_add_dict_u64(e, "probes", ni->probes);
	if (ni->router)
		rte_tel_data_add_dict_u64(e, "router", 1);
}

static int
fou_tel_neighs_fill(struct fou_gw *gw, const struct fou_tel_args *a, struct rte_tel_data *d)
{
	struct fou_neigh_info ni[FOU_TEL_PAGE];
	unsigned int total = fou_neigh_list(gw, ni, FOU_TEL_PAGE, a->offset);

	return fou_tel_page(d, total, a->offset, FOU_TEL_PAGE, fou_tel_neigh_entry, ni);
}

static void
fou_tel_addr_entry(struct rte_tel_data *e, const void *v, unsigned int i)
{
	const struct fou_addr_info *ai = (const struct fou_addr_info *)v + i;

	if (ai->tunnel[0] != '\0')
		fou_tel_add_str(e, "dev", ai->tunnel);
	else
		rte_tel_data_add_dict_u64(e, "dev", ai->port);
	rte_tel_data_add_dict_string(e, "addr", TELPREFIX(&ai->ip));
}

static int
fou_tel_addrs_fill(struct fou_gw *gw, const struct fou_tel_args *a, struct rte_tel_data *d)
{
	struct fou_addr_info *ai = calloc(FOU_MAX_ADDRS, sizeof(*ai));
	unsigned int total;
	int ret;

	if (ai == NULL)
		return -ENOMEM;
	total = fou_addr_list(gw, ai, FOU_MAX_ADDRS);
	ret = fou_tel_page(d, total, a->offset, FOU_TEL_PAGE, fou_tel_addr_entry,
			   ai + RTE_MIN(a->offset, total));
	free(ai);
	return ret;
}

/* The kernel interfaces (--punt), keyed by port: {"0": {"iface", "ifindex",
 * "rate", "burst", "counters": {...}}}; the counters are the gateway's
 * (since /fou/stats/reset): one port with a kernel interface is the usual
 * case, and what went up is not told apart by port. */
static int
fou_tel_punt_fill(struct fou_gw *gw, const struct fou_tel_args *a __rte_unused,
		  struct rte_tel_data *d)
{
	struct fou_punt_info *pi = calloc(RTE_MAX_ETHPORTS, sizeof(*pi));
	struct fou_lcore_stats *s = malloc(sizeof(*s));
	unsigned int n, i;
	int ret = 0;

	if (pi == NULL || s == NULL) {
		free(pi);
		free(s);
		return -ENOMEM;
	}
	fou_stats_get(gw, -1, s);
	n = RTE_MIN(fou_punt_list(gw, pi, RTE_MAX_ETHPORTS), (unsigned int)RTE_MAX_ETHPORTS);
	rte_tel_data_start_dict(d);
	for (i = 0; i < n && ret == 0; i++) {
		struct rte_tel_data *e = rte_tel_data_alloc();
		char key[8];

		if (e == NULL) {
			ret = -ENOMEM;
			break;
		}
		rte_tel_data_start_dict(e);
		fou_tel_add_str(e, "iface", pi[i].conf.ifname);
		rte_tel_data_add_dict_u64(e, "ifindex", (uint64_t)pi[i].ifindex);
		rte_tel_data_add_dict_u64(e, "rate", pi[i].conf.rate);
		rte_tel_data_add_dict_u64(e, "burst", pi[i].conf.burst);
		ret = fou_tel_add_container(e, "counters",
					    fou_tel_named(s->punt, FOU_PUNT_MAX, fou_tel_punt_name));
		snprintf(key, sizeof(key), "%u", pi[i].port);
		if (ret == 0)
			ret = fou_tel_add_container(d, key, e);
		else
			rte_tel_data_free(e);
	}
	free(pi);
	free(s);
	return ret;
}

/* --- the running configuration ------------------------------------------- */

struct fou_tel_cfg {
	struct rte_tel_data *d;
	unsigned int pos, offset, n;
	int ret;
};

/*
 * Text longer than a telemetry string holds, into array e: parts of whole
 * fields (separated by sep) that, joined by sep, are the text again.
 */
static void
fou_tel_add_parts(struct rte_tel_data *e, const char *text, char sep)
{
	char part[RTE_TEL_MAX_STRING_LEN], seps[2] = { sep, '\0' };
	size_t len = 0;

	while (*text != '\0') {
		size_t f = strcspn(text, seps);

		if (len != 0 && len + 1 + f >= sizeof(part)) {
			rte_tel_data_add_array_string(e, part);
			len = 0;
		}
		len += snprintf(part + len, sizeof(part) - len, "%s%.*s", len ? seps : "", (int)f,
				text);
		text += f + (text[f] == sep);
	}
	if (len != 0)
		rte_tel_data_add_array_string(e, part);
}

/*
 * The next line of a paged text (c->pos), if it is on the page: an entry
 * [first, text parts...], first left out if NULL.
 */
static int
fou_tel_cfg_add(struct fou_tel_cfg *c, const char *first, const char *text, char sep)
{
	struct rte_tel_data *e;

	if (c->pos++ < c->offset || c->pos - c->offset > c->n)
		return 0;
	e = rte_tel_data_alloc();
	if (e == NULL)
		return -ENOMEM;
	rte_tel_data_start_array(e, RTE_TEL_STRING_VAL);
	if (first != NULL)
		rte_tel_data_add_array_string(e, first);
	fou_tel_add_parts(e, text, sep);
	return fou_tel_add_entry(c->d, c->pos - 1, e);
}

/*
 * One statement as ["NAME", "ARG part", ...]: ARG is the parts joined by
 * ',' (a telemetry string holds at most RTE_TEL_MAX_STRING_LEN - 1
 * characters, a tunnel statement may hold more).
 */
static int
fou_tel_cfg_line(void *ctx, const char *name, const char *arg, struct fou_err *err __rte_unused)
{
	return fou_tel_cfg_add(ctx, name, arg, ',');
}

static int
fou_tel_count_line(void *ctx, const char *name __rte_unused, const char *arg __rte_unused,
		   struct fou_err *err __rte_unused)
{
	(*(unsigned int *)ctx)++;
	return 0;
}

#define FOU_TEL_PAGE_CONFIG 40u

static int
fou_tel_config_fill(struct fou_gw *gw, const struct fou_tel_args *a, struct rte_tel_data *d)
{
	struct fou_tel_cfg c = { .d = d, .offset = a->offset };
	struct fou_err err;
	unsigned int total = 0;
	int ret;

	ret = fou_config_dump(gw, fou_tel_count_line, &total, &err);
	if (ret < 0)
		return ret;
	c.n = a->offset < total ? RTE_MIN(total - a->offset, FOU_TEL_PAGE_CONFIG) : 0;
	fou_tel_page_start(d, total, a->offset, c.n);
	return fou_config_dump(gw, fou_tel_cfg_line, &c, &err);
}

/* --- commands ------------------------------------------------------------ */

typedef int (*fou_tel_fill)(struct fou_gw *gw, const struct fou_tel_args *a,
			    struct rte_tel_data *d);

static const char *const fou_tel_no_keys[] = { NULL };
static const char *const fou_tel_offset_keys[] = { "offset", NULL };
static const char *const fou_tel_stats_keys[] = { "lcore", NULL };

/* The gateway for the command logged as what, or NULL with the error
 * answered in d (not ready yet, or stopping). */
static struct fou_gw *
fou_tel_enter_for(const char *what, struct rte_tel_data *d)
{
	const char *msg;
	struct fou_gw *gw;
	int ret;

	gw = fou_tel_enter(&ret, &msg);
	if (gw == NULL) {
		if (ret == -EAGAIN)
			FOU_LOG(DEBUG, telemetry, "telemetry: %s: %s", what, msg);
		fou_tel_error(d, ret, msg);
	}
	return gw;
}

/*
 * The start of every command: the gateway under the locks and params
 * parsed by keys, or NULL once the error reply is in d. A refusal while
 * starting is logged at DEBUG (a client may poll until ready), none while
 * stopping (the exit summary is being printed on the same stdout); a bad
 * parameter at INFO for a change, at DEBUG for a read.
 */
static struct fou_gw *
fou_tel_begin(const char *what, const char *params, const char *const *keys, bool change,
	      struct fou_tel_args *a, struct rte_tel_data *d)
{
	struct fou_err err;
	struct fou_gw *gw;
	int ret;

	gw = fou_tel_enter_for(what, d);
	if (gw == NULL)
		return NULL;
	ret = fou_tel_args_parse(params, keys, a, &err);
	if (ret < 0) {
		fou_tel_leave();
		if (change)
			FOU_LOG(INFO, telemetry, "telemetry: %s: %s", what, TELLOGSTR(err.msg));
		else
			FOU_LOG(DEBUG, telemetry, "telemetry: %s: %s", what, TELLOGSTR(err.msg));
		fou_tel_error(d, ret, err.msg);
		return NULL;
	}
	return gw;
}

/* "CMD PARAMS" for the log. */
static const char *
fou_tel_what(const char *cmd, const char *params, char *buf, size_t len)
{
	bool p = params != NULL && params[0] != '\0';

	snprintf(buf, len, "%s%s%s", cmd, p ? " " : "", p ? TELLOGSTR(params) : "");
	return buf;
}

static int
fou_tel_read(const char *cmd, fou_tel_fill fill, const char *const *keys, const char *params,
	     struct rte_tel_data *d)
{
	char what[FOU_TEL_LOG_ARG + 64];
	struct fou_tel_args a;
	struct fou_gw *gw;
	int ret;

	fou_tel_what(cmd, params, what, sizeof(what));
	gw = fou_tel_begin(what, params, keys, false, &a, d);
	if (gw == NULL)
		return 0;
	ret = fill(gw, &a, d);
	fou_tel_leave();
	FOU_LOG(DEBUG, telemetry, "telemetry: %s", what);
	return ret;
}

#define FOU_TEL_READ_CMD(fn, fill, keys) \
static int \
fn(const char *cmd, const char *params, struct rte_tel_data *d) \
{ \
	return fou_tel_read(cmd, fill, keys, params, d); \
}

FOU_TEL_READ_CMD(fou_tel_stats, fou_tel_stats_fill, fou_tel_stats_keys)
FOU_TEL_READ_CMD(fou_tel_ports, fou_tel_ports_fill, fou_tel_offset_keys)
FOU_TEL_READ_CMD(fou_tel_tunnels, fou_tel_tunnels_fill, fou_tel_offset_keys)
FOU_TEL_READ_CMD(fou_tel_routes, fou_tel_routes_fill, fou_tel_offset_keys)
FOU_TEL_READ_CMD(fou_tel_neighs, fou_tel_neighs_fill, fou_tel_offset_keys)
FOU_TEL_READ_CMD(fou_tel_addrs, fou_tel_addrs_fill, fou_tel_offset_keys)
FOU_TEL_READ_CMD(fou_tel_config, fou_tel_config_fill, fou_tel_offset_keys)
FOU_TEL_READ_CMD(fou_tel_lcores, fou_tel_lcores_fill, fou_tel_no_keys)
FOU_TEL_READ_CMD(fou_tel_punt, fou_tel_punt_fill, fou_tel_no_keys)

/* /fou/stats/reset: a change of what telemetry shows, logged. */
static int
fou_tel_stats_reset(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	char what[FOU_TEL_LOG_ARG + 64];
	struct fou_tel_args a;
	struct fou_gw *gw;

	gw = fou_tel_begin(fou_tel_what("stats reset", params, what, sizeof(what)), params,
			   fou_tel_no_keys, true, &a, d);
	if (gw == NULL)
		return 0;
	fou_stats_reset(gw);
	fou_tel_leave();
	FOU_LOG(INFO, telemetry, "telemetry: %s: ok", what);
	rte_tel_data_start_dict(d);
	fou_tel_add_str(d, "status", "ok");
	return 0;
}

/* /fou/tunnel/health,NAME: one tunnel's probes and what they found. */
static int
fou_tel_tunnel_health(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct fou_tunnel_health h;
	struct fou_err err = { "" };
	struct fou_gw *gw;
	int ret;

	gw = fou_tel_enter_for(cmd, d);
	if (gw == NULL)
		return 0;
	if (params == NULL || params[0] == '\0') {
		fou_err_set(&err, "%s needs a tunnel name: %s,NAME", cmd, cmd);
		ret = -EINVAL;
	} else {
		ret = fou_tunnel_health_get(gw, params, &h, &err);
	}
	fou_tel_leave();
	if (ret < 0) {
		FOU_LOG(DEBUG, telemetry, "telemetry: %s %s: %s", cmd,
			params != NULL ? TELLOGSTR(params) : "", TELLOGSTR(err.msg));
		return fou_tel_error(d, ret, err.msg);
	}
	rte_tel_data_start_dict(d);
	fou_tel_add_str(d, "name", h.name);
	rte_tel_data_add_dict_string(d, "state", fou_health_name(h.state));
	rte_tel_data_add_dict_u64(d, "interval_ms", h.interval_ms);
	rte_tel_data_add_dict_u64(d, "timeout", h.timeout);
	rte_tel_data_add_dict_u64(d, "probing_ipv4", h.probing4);
	rte_tel_data_add_dict_u64(d, "probing_ipv6", h.probing6);
	rte_tel_data_add_dict_u64(d, "last_change_ms", h.last_change_ms);
	rte_tel_data_add_dict_u64(d, "transitions", h.transitions);
	rte_tel_data_add_dict_u64(d, "unanswered", h.unanswered);
	rte_tel_data_add_dict_u64(d, "rtt_last_us", h.rtt_last_us);
	rte_tel_data_add_dict_u64(d, "rtt_min_us", h.rtt_min_us);
	rte_tel_data_add_dict_u64(d, "rtt_avg_us", h.rtt_avg_us);
	rte_tel_data_add_dict_u64(d, "rtt_jitter_us", h.rtt_jitter_us);
	rte_tel_data_add_dict_u64(d, "loss_window", h.window);
	rte_tel_data_add_dict_u64(d, "loss_window_lost", h.window_lost);
	rte_tel_data_add_dict_u64(d, "sent", h.sent);
	rte_tel_data_add_dict_u64(d, "received", h.received);
	rte_tel_data_add_dict_u64(d, "lost", h.lost);
	rte_tel_data_add_dict_u64(d, "late", h.late);
	rte_tel_data_add_dict_u64(d, "replayed", h.replayed);
	rte_tel_data_add_dict_u64(d, "forged", h.forged);
	rte_tel_data_add_dict_u64(d, "wrong_tunnel", h.wrong_tunnel);
	rte_tel_data_add_dict_u64(d, "bad_ttl", h.bad_ttl);
	return 0;
}

/* /fou/neigh/flush: {"status": "ok", "flushed": N}, logged. */
static int
fou_tel_neigh_flush(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	char what[FOU_TEL_LOG_ARG + 64];
	struct fou_tel_args a;
	struct fou_gw *gw;
	unsigned int n;

	gw = fou_tel_begin(fou_tel_what("neigh flush", params, what, sizeof(what)), params,
			   fou_tel_no_keys, true, &a, d);
	if (gw == NULL)
		return 0;
	n = fou_neigh_flush(gw);
	fou_tel_leave();
	FOU_LOG(INFO, telemetry, "telemetry: %s: ok, %u flushed", what, n);
	rte_tel_data_start_dict(d);
	fou_tel_add_str(d, "status", "ok");
	rte_tel_data_add_dict_u64(d, "flushed", n);
	return 0;
}

/* A change's end, the lock left: logged as "telemetry: WHAT: ok|ERROR"
 * (the message may quote the client's bytes), and answered. */
static int
fou_tel_change_done(const char *what, int ret, const struct fou_err *err,
		    struct rte_tel_data *d)
{
	FOU_LOG(INFO, telemetry, "telemetry: %s: %s", what, ret < 0 ? TELLOGSTR(err->msg) : "ok");
	if (ret < 0)
		return fou_tel_error(d, ret, err->msg);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "status", "ok");
	return 0;
}

/* /fou/tunnel/mtu_probe,NAME: {"status": "ok"} once the search started
 * again, logged. */
static int
fou_tel_mtu_probe(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	char what[FOU_TEL_LOG_ARG + 64];
	struct fou_err err = { "" };
	struct fou_gw *gw;
	int ret;

	gw = fou_tel_enter_for(fou_tel_what("tunnel mtu_probe", params, what, sizeof(what)), d);
	if (gw == NULL)
		return 0;
	if (params == NULL || params[0] == '\0') {
		fou_err_set(&err, "which tunnel? /fou/tunnel/mtu_probe,NAME");
		ret = -EINVAL;
	} else {
		ret = fou_tunnel_mtu_probe(gw, params, &err);
	}
	fou_tel_leave();
	return fou_tel_change_done(what, ret, &err, d);
}

/*
 * /fou/NAME/add|set|del,ARG: the statement NAME (with '_' for '-') given
 * ARG, exactly as on the command line. {"status": "ok"} once it is in
 * effect on every worker, else the parser's or the operation's error, and
 * nothing changed. Logged as "telemetry: NAME VERB ARG: ok|ERROR", the
 * statement as a config file's reader knows it.
 */
static int
fou_tel_stmt(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char name[32], what[FOU_TEL_LOG_ARG + 64];
	const char *verb = strrchr(cmd, '/');
	const char *arg = params != NULL ? params : "";
	struct fou_err err = { "" };
	struct fou_gw *gw;
	size_t i, len;
	int ret;

	len = (size_t)(verb - (cmd + strlen("/fou/")));
	snprintf(name, sizeof(name), "%.*s", (int)len, cmd + strlen("/fou/"));
	for (i = 0; name[i] != '\0'; i++)
		if (name[i] == '_')
			name[i] = '-';
	snprintf(what, sizeof(what), "%s %s%s%s", name, verb + 1, arg[0] != '\0' ? " " : "",
		 arg[0] != '\0' ? TELLOGSTR(arg) : "");
	gw = fou_tel_enter_for(what, d);
	if (gw == NULL)
		return 0;
	if (strcmp(verb, "/del") == 0)
		ret = fou_stmt_del(gw, name, arg, &err);
	else
		ret = fou_stmt_apply(gw, name, arg, &err);
	fou_tel_leave();
	return fou_tel_change_done(what, ret, &err, d);
}


/* --- the peer's config ---------------------------------------------------- */

/* A command of a tunnel's peer config: its words in parts joined by ' '. */
static int
fou_tel_peer_line(void *ctx, const char *line, struct fou_err *err __rte_unused)
{
	return fou_tel_cfg_add(ctx, NULL, line, ' ');
}

static int
fou_tel_peer_count(void *ctx, const char *line __rte_unused, struct fou_err *err __rte_unused)
{
	(*(unsigned int *)ctx)++;
	return 0;
}

#define FOU_TEL_PAGE_PEER 40u

/*
 * /fou/tunnel/peer_config,NAME[,offset=N]: {"tunnel": NAME, "count": N,
 * "offset": O, "next": M, "O": ["word word ...", ...], ...}, a page of
 * fou_peer_config()'s commands; or the error, naming what is wrong.
 */
static int
fou_tel_peer_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char what[FOU_TEL_LOG_ARG + 64], name[FOU_TUNNEL_NAMESIZE];
	const char *rest = params != NULL ? strchr(params, ',') : NULL;
	size_t len = params == NULL ? 0 : rest != NULL ? (size_t)(rest - params) : strlen(params);
	struct fou_tel_cfg p = { .d = d };
	struct fou_tel_args a;
	struct fou_err err;
	unsigned int total = 0;
	struct fou_gw *gw;
	int ret;

	fou_tel_what(cmd, params, what, sizeof(what));
	gw = fou_tel_begin(what, rest != NULL ? rest + 1 : NULL, fou_tel_offset_keys, false, &a, d);
	if (gw == NULL)
		return 0;
	if (len == 0 || len >= sizeof(name)) {
		fou_tel_leave();
		fou_err_set(&err, len == 0 ? "no tunnel named: /fou/tunnel/peer_config,NAME" :
			    "no tunnel '%.*s' (a name has at most %u characters)", (int)RTE_MIN(len, (size_t)64),
			    params, FOU_TUNNEL_NAMESIZE - 1);
		return fou_tel_error(d, -EINVAL, err.msg);
	}
	snprintf(name, sizeof(name), "%.*s", (int)len, params);
	ret = fou_peer_config(gw, name, fou_tel_peer_count, &total, &err);
	if (ret == 0) {
		p.offset = a.offset;
		p.n = a.offset < total ? RTE_MIN(total - a.offset, FOU_TEL_PAGE_PEER) : 0;
		fou_tel_page_start(d, total, a.offset, p.n);
		fou_tel_add_str(d, "tunnel", name);
		ret = fou_peer_config(gw, name, fou_tel_peer_line, &p, &err);
	}
	fou_tel_leave();
	FOU_LOG(DEBUG, telemetry, "telemetry: %s: %s", what, ret < 0 ? TELLOGSTR(err.msg) : "ok");
	if (ret < 0)
		return fou_tel_error(d, ret, err.msg);
	return 0;
}

/* Help texts: rte_telemetry_register_cmd refuses one of RTE_TEL_MAX_STRING_LEN
 * bytes or more, and the command is then missing. */
#define FOU_TEL_READ_CMDS(X) \
	X("/fou/stats", fou_tel_stats, "Counters since /fou/stats/reset: totals, drops by reason, ICMP sent, by port, FOU port, lcore. lcore=N: one") \
	X("/fou/stats/reset", fou_tel_stats_reset, "Counters shown from now on start at 0 (workers keep theirs; the exit summary counts from the start)") \
	X("/fou/ports", fou_tel_ports, "FOU receive ports, 128 a page (offset=N): UDP port -> protocol, packets decapsulated") \
	X("/fou/tunnels", fou_tel_tunnels, "Tunnels, 32 a page (offset=N): name, type, endpoints, encap, MTU, path MTU (s left), probed MTU, search, health, counters") \
	X("/fou/tunnel/mtu_probe", fou_tel_mtu_probe, "Search the path MTU of tunnel NAME again now (/fou/tunnel/mtu_probe,NAME; tunnels with probe=on)") \
	X("/fou/tunnel/health", fou_tel_tunnel_health, "A tunnel's health (NAME): state off|unknown|up|down, RTT last/min/avg/jitter (us), loss of the last 64 probes, counters") \
	X("/fou/routes", fou_tel_routes, "Routes, 64 a page (offset=N): prefix, type, dev, via, origin (route, or addr), metric, weight, usable, in_use") \
	X("/fou/neighs", fou_tel_neighs, "Neighbours, 64 a page (offset=N): ip, dev, lladdr, state (NUD), age_ms, queued, probes, router") \
	X("/fou/neigh/flush", fou_tel_neigh_flush, "Drop every neighbour that is not static, and the packets waiting for them (ip neigh flush)") \
	X("/fou/addrs", fou_tel_addrs, "Local addresses, 64 a page (offset=N): dev (port number or tunnel name), addr/plen") \
	X("/fou/punt", fou_tel_punt, "Kernel interfaces (--punt) by port: iface, ifindex, rate, burst, counters (up by reason, to and from the kernel)") \
	X("/fou/lcores", fou_tel_lcores, "Worker lcores by id: TX queue, RX queue per port, rx/tx/dropped since /fou/stats/reset, busy and idle polls") \
	X("/fou/config", fou_tel_config, "Running config as statements [NAME, ARG parts joined by ','], 40 a page (offset=N): a --config file") \
	X("/fou/tunnel/peer_config", fou_tel_peer_config, "NAME[,offset=N]: the Linux commands for the tunnel's far end, [parts joined by ' '], 40 a page")

#define FOU_TEL_HELP_CHECK(c, fn, help) \
	static_assert(sizeof(help) <= RTE_TEL_MAX_STRING_LEN, c " help too long");
FOU_TEL_READ_CMDS(FOU_TEL_HELP_CHECK)
#undef FOU_TEL_HELP_CHECK

#define FOU_TEL_ENTRY(c, fn, help) { c, fn, help },
static const struct fou_tel_cmd fou_tel_read_cmds[] = { FOU_TEL_READ_CMDS(FOU_TEL_ENTRY) };
#undef FOU_TEL_ENTRY

/* The read commands, then add (or set) and del of every statement. */
#define FOU_TEL_MAX_CMDS (RTE_DIM(fou_tel_read_cmds) + 2 * FOU_STMT_MAX)
static struct fou_tel_cmd fou_tel_cmds[FOU_TEL_MAX_CMDS];
static unsigned int fou_tel_nb_cmds;
static pthread_once_t fou_tel_cmds_once = PTHREAD_ONCE_INIT;

static void
fou_tel_cmd_add(const char *name, const char *verb, const char *help)
{
	struct fou_tel_cmd *c = &fou_tel_cmds[fou_tel_nb_cmds++];
	size_t i;

	snprintf(c->cmd, sizeof(c->cmd), "/fou/%s/%s", name, verb);
	for (i = strlen("/fou/"); c->cmd[i] != '/'; i++)
		if (c->cmd[i] == '-')
			c->cmd[i] = '_';
	c->fn = fou_tel_stmt;
	c->help = help;
}

static void
fou_tel_cmds_make(void)
{
	const char *name;
	unsigned int i;

	for (i = 0; i < RTE_DIM(fou_tel_read_cmds); i++)
		fou_tel_cmds[fou_tel_nb_cmds++] = fou_tel_read_cmds[i];
	for (i = 0; (name = fou_stmt_name(i)) != NULL; i++) {
		bool del = fou_stmt_del_usage(name) != NULL;

		fou_tel_cmd_add(name, del ? "add" : "set", fou_stmt_tel_help(name, false));
		if (del)
			fou_tel_cmd_add(name, "del", fou_stmt_tel_help(name, true));
	}
}

const struct fou_tel_cmd *
fou_telemetry_cmds(unsigned int *n)
{
	pthread_once(&fou_tel_cmds_once, fou_tel_cmds_make);
	*n = fou_tel_nb_cmds;
	return fou_tel_cmds;
}

/*
 * Once per process: DPDK 22.11 keeps a command registered twice twice.
 * The commands answer "not ready" until fou_telemetry_start().
 */
int
fou_telemetry_register(void)
{
	static bool done;
	const struct fou_tel_cmd *cmds;
	unsigned int i, n;
	int ret = 0;

	cmds = fou_telemetry_cmds(&n);
	pthread_mutex_lock(&fou_tel_lock);
	for (i = 0; i < n && ret == 0 && !done; i++)
		ret = rte_telemetry_register_cmd(cmds[i].cmd, cmds[i].fn, cmds[i].help);
	done = ret == 0;
	pthread_mutex_unlock(&fou_tel_lock);
	return ret;
}
