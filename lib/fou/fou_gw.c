/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The gateway as a whole: its tables created and freed, the RCU variable
 * its workers report to, and the step that ends every control operation
 * (a grace period, then what waited for it is reclaimed). Called by the
 * other control files (fou_ctl.h) and by the app; calls none of them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>

#include "fou_ctl.h"
#include "fou_idpool.h"
#include "fou_plpmtu.h"
#include "fou_probe.h"

void
fou_err_set(struct fou_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void
fou_gw_params_default(struct fou_gw_params *p)
{
	p->max_routes4 = FOU_LIMIT_ROUTES_DEFAULT;
	p->max_routes6 = FOU_LIMIT_ROUTES_DEFAULT;
	p->max_neighs = FOU_LIMIT_NEIGH_DEFAULT;
	p->max_tunnels = FOU_LIMIT_TUNNELS_DEFAULT;
	p->max_nexthops = FOU_NEXTHOPS(p->max_tunnels);
	p->socket_id = SOCKET_ID_ANY;
}

void
fou_gw_params_get(const struct fou_gw *gw, struct fou_gw_params *p)
{
	*p = gw->params;
}

size_t
fou_gw_memsize(const struct fou_gw *gw)
{
	return gw->memsize;
}

/* What the DPDK heaps hand out now, over every socket. */
static size_t
fou_heap_used(void)
{
	struct rte_malloc_socket_stats st;
	size_t sum = 0;
	unsigned int i;

	for (i = 0; i < rte_socket_count(); i++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			sum += st.heap_allocsz_bytes;
	return sum;
}

/* Names of DPDK objects must be unique per process: several gateways may
 * exist at once in the unit tests. */
static const char *
fou_obj_name(char *buf, size_t len, const char *what, const struct fou_gw *gw)
{
	snprintf(buf, len, "fou_%s_%p", what, (const void *)gw);
	return buf;
}

/* The hashes the data path reads: lock-free readers, memory reused only
 * after a grace period of gw->qsbr (SYNC mode: the delete waits). The
 * FIBs have no RCU mode in 22.11: what they free is covered by the grace
 * period that ends every control operation (FOU_FIB_RETRY). */
static int
fou_gw_rcu_attach(struct fou_gw *gw)
{
	int ret;

	ret = rte_hash_rcu_qsbr_add(gw->neigh, &(struct rte_hash_rcu_config){
		.v = gw->qsbr, .mode = RTE_HASH_QSBR_MODE_SYNC });
	if (ret == 0)
		ret = rte_hash_rcu_qsbr_add(gw->tun_rx, &(struct rte_hash_rcu_config){
			.v = gw->qsbr, .mode = RTE_HASH_QSBR_MODE_SYNC });
	if (ret == 0)
		ret = rte_hash_rcu_qsbr_add(gw->tun_rx6, &(struct rte_hash_rcu_config){
			.v = gw->qsbr, .mode = RTE_HASH_QSBR_MODE_SYNC });
	return ret;
}

/*
 * The groups of 256 entries a FIB has for routes longer than /24: an
 * IPv4 route needs at most one (its /24's), an IPv6 one up to one per
 * byte past the 24th bit, shared along common prefixes. At least as many
 * as rte_lpm had (4096), more with larger tables.
 */
static uint32_t
fou_fib4_groups(uint32_t routes)
{
	return RTE_MAX(RTE_MIN(routes, 4096u), routes / 32);
}

static uint32_t
fou_fib6_groups(uint32_t routes)
{
	return RTE_MAX(4096u, routes / 4);
}

/* Next hop values of two bytes where they fit (half the memory and the
 * cache footprint of four): 15 bits hold the value and the group index. */
static bool
fou_fib_2b(const struct fou_gw_params *p, uint32_t groups)
{
	return p->max_nexthops + FOU_FIB_NH0 <= INT16_MAX && groups <= INT16_MAX;
}

/* A FIB's name names its RIB's mempool ("MP_" in front), that pool's ring
 * ("MP_") and the ring's memzone ("RG_"), which holds 31 characters: 22
 * for the name, of which the pointer may take 14 (fou_obj_name() is too
 * long). */
static const char *
fou_fib_name(char *buf, size_t len, int family, const struct fou_gw *gw)
{
	snprintf(buf, len, "fib%d_%p", family, (const void *)gw);
	return buf;
}

static int
fou_gw_fibs_create(struct fou_gw *gw)
{
	const struct fou_gw_params *p = &gw->params;
	const uint32_t g4 = fou_fib4_groups(p->max_routes4), g6 = fou_fib6_groups(p->max_routes6);
	char name[RTE_HASH_NAMESIZE];

	/* rte_fib makes its RIB with twice the routes in nodes: the branch
	 * nodes of a full tree fit too */
	gw->fib4 = rte_fib_create(fou_fib_name(name, sizeof(name), 4, gw), p->socket_id,
		&(struct rte_fib_conf){
			.type = RTE_FIB_DIR24_8,
			.default_nh = FOU_FIB_NONE,
			.max_routes = (int)p->max_routes4,
			.rib_ext_sz = sizeof(uint32_t),	/* the route's record */
			.dir24_8 = {
				.nh_sz = fou_fib_2b(p, g4) ? RTE_FIB_DIR24_8_2B :
							     RTE_FIB_DIR24_8_4B,
				.num_tbl8 = g4,
			},
		});
	/* 22.11's rte_fib_create leaves the ENOENT of its name's lookup when
	 * its RIB's memory runs out */
	if (gw->fib4 == NULL && rte_errno == ENOENT)
		rte_errno = ENOMEM;
	if (gw->fib4 == NULL)
		return -1;
	gw->fib6 = rte_fib6_create(fou_fib_name(name, sizeof(name), 6, gw), p->socket_id,
		&(struct rte_fib6_conf){
			.type = RTE_FIB6_TRIE,
			.default_nh = FOU_FIB_NONE,
			.max_routes = (int)p->max_routes6,
			.rib_ext_sz = sizeof(uint32_t),
			.trie = {
				.nh_sz = fou_fib_2b(p, g6) ? RTE_FIB6_TRIE_2B : RTE_FIB6_TRIE_4B,
				.num_tbl8 = g6,
			},
		});
	/* 22.11's rte_fib6_create says EINVAL for any failure of its tables,
	 * whose sizes are checked above: they did not fit in memory; when its
	 * RIB's does not, it leaves the ENOENT of its name's lookup */
	if (gw->fib6 == NULL && (rte_errno == EINVAL || rte_errno == ENOENT))
		rte_errno = ENOMEM;
	return gw->fib6 == NULL ? -1 : 0;
}

/* The route records: all free, linked by next. */
static void
fou_gw_routes_init(struct fou_gw *gw)
{
	uint32_t i;

	for (i = 0; i < gw->max_routes; i++)
		gw->routes[i].next = i + 1 < gw->max_routes ? i + 1 : FOU_NONE;
	gw->route_free = 0;
	gw->route_head = gw->route_tail = FOU_NONE;
}

/*
 * An rte_hash of gw for n keys of key_len bytes, readers lock-free or not.
 * A cuckoo hash of exactly n slots refuses a key a little before it is
 * full (when no displacement path is found), so it gets twice the room;
 * the tables count their entries against their maximum themselves.
 */
static struct rte_hash *
fou_gw_hash(const struct fou_gw *gw, const char *what, uint32_t n, uint32_t key_len, bool lf)
{
	char name[RTE_HASH_NAMESIZE];

	return rte_hash_create(&(struct rte_hash_parameters){
		.name = fou_obj_name(name, sizeof(name), what, gw),
		.entries = 2 * RTE_MAX(n, 8u),
		.key_len = key_len,
		.hash_func = rte_hash_crc,
		.socket_id = gw->params.socket_id,
		.extra_flag = lf ? RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF : 0,
	});
}

/* The local stack's rings, the hand-off field and the table (fou_neigh.c). */
static int
fou_gw_local_create(struct fou_gw *gw)
{
	char name[RTE_RING_NAMESIZE];

	/* the slot travels in 16 bits of the hash data (fou_neigh_data) */
	if (gw->params.max_neighs > UINT16_MAX + 1u) {
		rte_errno = EINVAL;
		return -1;
	}
	gw->nev_ring = rte_ring_create_elem(fou_obj_name(name, sizeof(name), "nev", gw),
					    sizeof(struct fou_neigh_ev), FOU_NEV_RING,
					    gw->params.socket_id, RING_F_SC_DEQ);
	gw->hold_ring = rte_ring_create(fou_obj_name(name, sizeof(name), "hold", gw),
					FOU_HOLD_RING, gw->params.socket_id, RING_F_SC_DEQ);
	gw->neigh_used = rte_zmalloc_socket("fou_neigh_used", RTE_MAX(gw->params.max_neighs, 1u),
					    RTE_CACHE_LINE_SIZE, gw->params.socket_id);
	/* the mbuf has no room for a second field of this size: a held packet
	 * borrows the GRO tag's, which it never needs (it skips GRO) */
	static_assert(sizeof(struct fou_neigh_key) <= sizeof(struct fou_gro_tag),
		      "the neighbour key does not fit the GRO tag's field");
	gw->hold_key_off = gw->gro_tag_off;
	if (gw->nev_ring == NULL || gw->hold_ring == NULL || gw->neigh_used == NULL)
		return -1;
	rte_errno = ENOMEM;
	if (fou_neigh_tbl_create(gw) != 0)
		return -1;
	return pthread_mutex_init(&gw->ctl_lock, NULL) == 0 ? 0 : -1;
}

struct fou_gw *
fou_gw_create(const struct fou_gw_params *p, struct fou_err *err)
{
	const size_t heap0 = fou_heap_used();
	struct fou_gw *gw;
	size_t qsz = rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE);

	gw = rte_zmalloc_socket("fou_gw", sizeof(*gw), RTE_CACHE_LINE_SIZE, p->socket_id);
	if (gw == NULL) {
		fou_err_set(err, "cannot allocate the gateway");
		return NULL;
	}
	gw->params = *p;
	gw->addrs = &gw->addr_sets[0];
	gw->nh_unused = FOU_NONE;
	gw->nh_gateways = FOU_NONE;

	rte_errno = ENOMEM;	/* rte_zmalloc does not set it */
	gw->qsbr = rte_zmalloc_socket("fou_qsbr", qsz, RTE_CACHE_LINE_SIZE, p->socket_id);
	if (gw->qsbr == NULL || rte_rcu_qsbr_init(gw->qsbr, RTE_MAX_LCORE) != 0)
		goto fail;
	/* rte_errno of the first failure: later calls may change it */
	if (p->max_routes4 == 0 || p->max_routes6 == 0 || p->max_nexthops == 0) {
		rte_errno = EINVAL;
		goto fail;
	}
	if (fou_gw_fibs_create(gw) != 0)
		goto fail;
	gw->neigh = fou_gw_hash(gw, "neigh", p->max_neighs, sizeof(struct fou_neigh_key), true);
	if (gw->neigh == NULL)
		goto fail;
	gw->tun_names = fou_gw_hash(gw, "tun", p->max_tunnels, FOU_TUNNEL_NAMESIZE, false);
	if (gw->tun_names == NULL)
		goto fail;
	gw->nh_keys = fou_gw_hash(gw, "nhk", p->max_nexthops, sizeof(struct fou_nh_key), false);
	if (gw->nh_keys == NULL)
		goto fail;
	gw->tun_rx = fou_gw_hash(gw, "tunrx", p->max_tunnels, sizeof(struct fou_tun_key), true);
	gw->tun_rx6 = fou_gw_hash(gw, "tunrx6", p->max_tunnels, sizeof(struct fou_tun_key6), true);
	if (gw->tun_rx == NULL || gw->tun_rx6 == NULL || fou_gw_rcu_attach(gw) != 0)
		goto fail;
	rte_errno = ENOMEM;
	gw->max_routes = p->max_routes4 + p->max_routes6 + 2;	/* + the default routes */
	gw->routes = rte_zmalloc_socket("fou_routes", sizeof(*gw->routes) * gw->max_routes, 0,
					p->socket_id);
	gw->raux = rte_zmalloc_socket("fou_raux", sizeof(*gw->raux), 0, p->socket_id);
	gw->own_sets = rte_zmalloc_socket("fou_local", 2 * sizeof(*gw->own_sets),
					    RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->nh_ctl = rte_zmalloc_socket("fou_nh_ctl", sizeof(*gw->nh_ctl) * p->max_nexthops, 0,
					p->socket_id);
	gw->nh_ids = fou_idpool_create("fou_nh_ids", p->max_nexthops, p->socket_id);
	gw->tun_ids = fou_idpool_create("fou_tun_ids", p->max_tunnels, p->socket_id);
	gw->stats_base = rte_zmalloc_socket("fou_stats_base",
					    sizeof(*gw->stats_base) * FOU_STATS_ROWS,
					    RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->tun_base = rte_zmalloc_socket("fou_tun_base",
					  sizeof(*gw->tun_base) * RTE_MAX(p->max_tunnels, 1u), 0,
					  p->socket_id);
	gw->nh = rte_zmalloc_socket("fou_nh", sizeof(*gw->nh) * p->max_nexthops,
				    RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->nhg = rte_zmalloc_socket("fou_nhg", sizeof(*gw->nhg) * p->max_nexthops,
				     RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->stats = rte_zmalloc_socket("fou_stats", sizeof(*gw->stats) * FOU_STATS_ROWS,
				       RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->tunnels = rte_zmalloc_socket("fou_tunnels", sizeof(*gw->tunnels) * p->max_tunnels,
					 RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->tun_stats = rte_zmalloc_socket("fou_tun_stats", sizeof(*gw->tun_stats) *
					   (size_t)p->max_tunnels * FOU_STATS_ROWS,
					   RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->tun_pmtu = rte_zmalloc_socket("fou_tun_pmtu", sizeof(*gw->tun_pmtu) *
					  p->max_tunnels, RTE_CACHE_LINE_SIZE, p->socket_id);
	gw->plpmtu = rte_zmalloc_socket("fou_plpmtu", sizeof(*gw->plpmtu) * p->max_tunnels, 0,
					p->socket_id);
	gw->workers = rte_zmalloc_socket("fou_workers", sizeof(*gw->workers) * RTE_MAX_LCORE,
					 RTE_CACHE_LINE_SIZE, p->socket_id);
	if (gw->routes == NULL || gw->raux == NULL || gw->own_sets == NULL ||
	    gw->nh_ctl == NULL || gw->nh_ids == NULL || gw->tun_ids == NULL ||
	    gw->stats_base == NULL || gw->tun_base == NULL ||
	    gw->nh == NULL || gw->nhg == NULL || gw->stats == NULL || gw->workers == NULL ||
	    (p->max_tunnels != 0 && (gw->tunnels == NULL || gw->tun_stats == NULL ||
				     gw->tun_pmtu == NULL || gw->plpmtu == NULL)))
		goto fail;
	fou_gw_routes_init(gw);
	gw->own = &gw->own_sets[0];
	gw->gro_tag_off = rte_mbuf_dynfield_register(&(struct rte_mbuf_dynfield){
		.name = "fou_gro_tag",
		.size = sizeof(struct fou_gro_tag),
		.align = __alignof__(struct fou_gro_tag),
	});
	if (gw->gro_tag_off < 0)
		goto fail;
	if (fou_gw_local_create(gw) != 0)
		goto fail;
	rte_errno = ENOMEM;
	if (fou_probe_create(gw) != 0)
		goto fail;
	gw->sport_range = 32768u << 16 | 60999u;
	gw->icmp_limit = 1000ull << 32 | 50u;
	gw->reasm_time = FOU_REASM_TIME_DEFAULT;
	gw->pmtu_expires_tsc = FOU_PMTU_EXPIRES_S * rte_get_tsc_hz();
	gw->memsize = fou_heap_used() - heap0;
	return gw;

fail:
	fou_err_set(err, "cannot allocate the gateway tables (tunnels %u, routes4 %u, routes6 %u, "
		    "neigh %u): %s", p->max_tunnels, p->max_routes4, p->max_routes6,
		    p->max_neighs, rte_strerror(rte_errno));
	fou_gw_free(gw);
	return NULL;
}

void
fou_gw_free(struct fou_gw *gw)
{
	uint32_t i;

	if (gw == NULL)
		return;
	fou_punt_free(gw);
	fou_neigh_tbl_free(gw);
	fou_probe_free(gw);
	rte_ring_free(gw->nev_ring);
	rte_ring_free(gw->hold_ring);
	rte_free(gw->neigh_used);
	pthread_mutex_destroy(&gw->ctl_lock);
	rte_fib_free(gw->fib4);
	rte_fib6_free(gw->fib6);
	rte_hash_free(gw->neigh);
	rte_hash_free(gw->tun_names);
	rte_hash_free(gw->tun_rx);
	rte_hash_free(gw->tun_rx6);
	rte_hash_free(gw->nh_keys);
	fou_idpool_free(gw->nh_ids);
	fou_idpool_free(gw->tun_ids);
	rte_free(gw->nh_ctl);
	rte_free(gw->own_sets);
	rte_free(gw->raux);
	rte_free(gw->tunnels);
	rte_free(gw->tun_stats);
	rte_free(gw->tun_pmtu);
	rte_free(gw->plpmtu);
	for (i = 0; gw->nhg != NULL && i < gw->params.max_nexthops; i++)
		rte_free(gw->nhg[i]);
	rte_free(gw->nhg);
	rte_free(gw->nh);
	rte_free(gw->stats);
	rte_free(gw->workers);
	rte_free(gw->routes);
	rte_free(gw->stats_base);
	rte_free(gw->tun_base);
	rte_free(gw->qsbr);
	rte_free(gw);
}

void
fou_gw_sync(const struct fou_gw *gw)
{
	rte_rcu_qsbr_synchronize(gw->qsbr, RTE_QSBR_THRID_INVALID);
}

/*
 * The end of every control operation: wait for a grace period, so that
 * the change is in effect on every worker when the operation returns and
 * nothing unlinked is still in use; then free the next hops that lost
 * their last route.
 */
void
fou_gw_commit(struct fou_gw *gw)
{
	fou_gw_sync(gw);
	fou_nh_release(gw);
}

void
fou_gw_lock(struct fou_gw *gw)
{
	pthread_mutex_lock(&gw->ctl_lock);
}

void
fou_gw_unlock(struct fou_gw *gw)
{
	pthread_mutex_unlock(&gw->ctl_lock);
}

void
fou_gw_ports_running(struct fou_gw *gw)
{
	gw->ports_running = true;
}
