/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Failover and ECMP between a prefix's routes: what the FIB holds for a
 * prefix is the next hop of its best usable route, or, for several of one
 * metric, a next-hop group whose buckets a packet's inner flow hash picks
 * (fou_nh_member()). A tunnel made unusable (fou_tunnel_usable_set(), the
 * probes' verdict) gives its buckets to the live members and takes them
 * back when it returns; nothing else moves, so a flow that stays on its
 * tunnel is never reordered. Every change is a single-word store (a FIB
 * value, a bucket) that the grace period at the end of the operation puts
 * in effect everywhere: no lock on a worker.
 */
#include <errno.h>
#include <math.h>

#include <rte_hash_crc.h>

#include "fou_ctl.h"

bool
fou_nh_usable(const struct fou_gw *gw, uint32_t nh)
{
	return gw->nh[nh].type != FOU_NH_TUNNEL || !gw->tunnels[gw->nh[nh].tunnel].unusable;
}

/*
 * The routes of prefix (from head) its traffic takes: those of the lowest
 * metric that has a usable one, in the order of the list (by metric, then
 * added); all those of the lowest metric when none is usable, as Linux,
 * which knows nothing of a tunnel's health, keeps using its routes. up[k]
 * says whether the k-th of them carries traffic. Returns their count.
 */
static unsigned int
fou_prefix_best(const struct fou_gw *gw, uint32_t head, uint32_t *rec, bool *up)
{
	uint32_t metric = gw->routes[head].metric, i;
	bool any = false;
	unsigned int n = 0;

	for (i = head; i != FOU_NONE; i = gw->routes[i].pfx_next)
		if (fou_nh_usable(gw, gw->routes[i].nh)) {
			metric = gw->routes[i].metric;
			any = true;
			break;
		}
	for (i = head; i != FOU_NONE && n < FOU_ECMP_MAX; i = gw->routes[i].pfx_next) {
		if (gw->routes[i].metric != metric)
			continue;
		rec[n] = i;
		up[n++] = !any || fou_nh_usable(gw, gw->routes[i].nh);
	}
	return n;
}

bool
fou_route_in_use(const struct fou_gw *gw, uint32_t i)
{
	uint32_t rec[FOU_ECMP_MAX];
	bool up[FOU_ECMP_MAX];
	unsigned int n, k;
	int head = fou_route_find(gw, &gw->routes[i].prefix);

	if (head < 0)
		return false;
	n = fou_prefix_best(gw, (uint32_t)head, rec, up);
	for (k = 0; k < n; k++)
		if (rec[k] == i)
			return up[k];
	return false;
}

/*
 * The home of every bucket: member k gets its weight's share of the
 * buckets (largest remainder, at least one each), in one run each, so the
 * table is a function of the members and their weights only.
 */
static void
fou_nhg_home(struct fou_nhg *g)
{
	uint32_t cnt[FOU_ECMP_MAX], rem[FOU_ECMP_MAX], total = 0, sum = 0, b = 0, k;

	for (k = 0; k < g->n; k++)
		sum += g->weight[k];
	for (k = 0; k < g->n; k++) {
		cnt[k] = RTE_MAX(FOU_NHG_BUCKETS * g->weight[k] / sum, 1u);
		rem[k] = FOU_NHG_BUCKETS * g->weight[k] % sum;
		total += cnt[k];
	}
	while (total < FOU_NHG_BUCKETS) {
		uint32_t best = 0;

		for (k = 1; k < g->n; k++)
			if (rem[k] > rem[best])
				best = k;
		cnt[best]++;
		rem[best] = 0;
		total++;
	}
	while (total > FOU_NHG_BUCKETS) {
		uint32_t big = 0;

		for (k = 1; k < g->n; k++)
			if (cnt[k] > cnt[big])
				big = k;
		cnt[big]--;
		total--;
	}
	for (k = 0; k < g->n; k++)
		while (cnt[k]-- > 0)
			g->home[b++] = (uint8_t)k;
}

/*
 * Where bucket b goes while its home member is down: the live member of
 * highest weighted rendezvous score (w / -ln u for a hash u of bucket and
 * member), so each live member takes a share by weight, and a member that
 * comes back or goes down changes the winner of no bucket it does not win.
 */
static uint32_t
fou_nhg_fallback(const struct fou_nhg *g, uint32_t b, const bool *up)
{
	double best = -1.0;
	uint32_t pick = 0, k;

	for (k = 0; k < g->n; k++) {
		uint32_t h = rte_hash_crc_4byte(b, g->member[k] * UINT32_C(0x9e3779b1) + 1);
		double u = ((double)h + 0.5) / 4294967296.0, score;

		if (!up[k])
			continue;
		score = g->weight[k] / -log(u);
		if (score > best) {
			best = score;
			pick = k;
		}
	}
	return g->member[pick];
}

/*
 * The group's buckets for members rec (route records) with up: the home
 * table again when the members or their weights changed, and each bucket
 * to its home member if up, else to its fallback. A bucket that changes
 * is one store, which a worker sees whole.
 */
static void
fou_nhg_fill(const struct fou_gw *gw, struct fou_nhg *g, const uint32_t *rec, const bool *up,
	     unsigned int n)
{
	bool same = g->n == n;
	unsigned int k, b;

	for (k = 0; k < n && same; k++)
		same = g->member[k] == gw->routes[rec[k]].nh &&
		       g->weight[k] == gw->routes[rec[k]].weight;
	if (!same) {
		g->n = n;
		for (k = 0; k < n; k++) {
			g->member[k] = gw->routes[rec[k]].nh;
			g->weight[k] = gw->routes[rec[k]].weight;
		}
		fou_nhg_home(g);
	}
	for (b = 0; b < FOU_NHG_BUCKETS; b++) {
		const uint32_t k = g->home[b];
		const uint32_t nh = up[k] ? g->member[k] : fou_nhg_fallback(g, b, up);

		if (g->bucket[b] != nh)
			__atomic_store_n(&g->bucket[b], nh, __ATOMIC_RELAXED);
	}
}

int
fou_prefix_select(struct fou_gw *gw, uint32_t head, struct fou_err *err)
{
	const struct fou_ip *prefix = &gw->routes[head].prefix;
	const uint32_t cur = fou_prefix_fib_get(gw, prefix);
	const bool cur_group = cur != FOU_NONE && gw->nh[cur].type == FOU_NH_GROUP;
	uint32_t rec[FOU_ECMP_MAX], first = FOU_NONE;
	bool up[FOU_ECMP_MAX];
	unsigned int n = fou_prefix_best(gw, head, rec, up), live = 0, k;
	int g;

	for (k = 0; k < n; k++)
		if (up[k]) {
			live++;
			if (first == FOU_NONE)
				first = gw->routes[rec[k]].nh;
		}
	if (live > 1 && cur_group) {
		fou_nhg_fill(gw, gw->nhg[gw->nh[cur].tunnel], rec, up, n);
		return 0;
	}
	if (live > 1) {
		g = fou_nh_group_get(gw, prefix->family);
		if (g >= 0) {
			fou_nhg_fill(gw, gw->nhg[g], rec, up, n);
			fou_prefix_fib_set(gw, prefix, (uint32_t)g);
			return 0;
		}
		/* a route that goes or a tunnel that comes back cannot fail:
		 * the first live route carries alone until there is room */
		FOU_LOG(WARNING, ctl, "no next hop left for the group of %s/%u: one route "
			"carries its traffic", FOU_IPSTR(prefix), prefix->plen);
		fou_err_set(err, "too many next hops (at most %u): no room for the group of "
			    "the routes to %s/%u", gw->params.max_nexthops, FOU_IPSTR(prefix),
			    prefix->plen);
	}
	if (cur != first) {
		fou_prefix_fib_set(gw, prefix, first);
		if (cur_group)
			fou_nh_put(gw, cur);
	}
	return live > 1 ? -ENOSPC : 0;
}

int
fou_tunnel_usable_set(struct fou_gw *gw, uint32_t tunnel, bool usable)
{
	static const uint8_t families[] = { AF_INET, AF_INET6 };
	unsigned int f;
	int ret = 0;

	if (tunnel >= gw->params.max_tunnels || !gw->tunnels[tunnel].used)
		return -ENODEV;
	if (gw->tunnels[tunnel].unusable == !usable)
		return 0;
	gw->tunnels[tunnel].unusable = !usable;
	for (f = 0; f < RTE_DIM(families); f++) {
		const int nh = fou_nh_find(gw, FOU_NH_TUNNEL, families[f], 0, NULL, tunnel);
		uint32_t i;

		for (i = nh >= 0 ? gw->nh_ctl[nh].head : FOU_NONE; i != FOU_NONE;
		     i = gw->routes[i].nh_next) {
			const int head = fou_route_find(gw, &gw->routes[i].prefix);
			int r = fou_prefix_select(gw, (uint32_t)head, NULL);

			if (r < 0)
				ret = r;
		}
	}
	fou_gw_commit(gw);
	return ret;
}
