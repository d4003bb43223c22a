/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routing: the local addresses and the routes they bring, routes out of a
 * port (connected or via a gateway), the next hops routes share, and the
 * rate of the ICMP errors the router sends. rte_fib (DIR-24-8) and rte_fib6
 * (trie) hold the routes for the data path; gw->routes records them for
 * the control side, found through the FIBs' RIBs and listed in the order
 * they were added. Next hops are shared through a hash of them.
 * Routes into a tunnel are added by fou_tunnel.c through fou_ctl.h, and
 * here for an address on a tunnel (its network's route).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_rib.h>
#include <rte_rib6.h>

#include "fou_ctl.h"
#include "fou_idpool.h"
#include "fou_nd.h"

const char *
fou_ip_str(const struct fou_ip *ip, char *buf, size_t len)
{
	if (inet_ntop(ip->family, ip->family == AF_INET ? (const void *)&ip->v4 :
			  (const void *)ip->v6, buf, len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

/* --- next hops -------------------------------------------------------- */

static void
fou_nh_key_of(struct fou_nh_key *k, uint8_t type, uint8_t family, uint16_t port,
	      const struct fou_ip *via, uint32_t tunnel)
{
	memset(k, 0, sizeof(*k));
	k->type = type;
	k->family = family;
	k->port = port;
	if (type == FOU_NH_TUNNEL)
		k->tunnel = tunnel;
	if (type == FOU_NH_GATEWAY)
		memcpy(k->gw, family == AF_INET ? (const void *)&via->v4 : (const void *)via->v6,
		       family == AF_INET ? 4 : 16);
}

/* The next hop of that kind, as it is in gw->nh now: its index, or -1. */
int
fou_nh_find(const struct fou_gw *gw, uint8_t type, uint8_t family, uint16_t port,
	    const struct fou_ip *via, uint32_t tunnel)
{
	struct fou_nh_key k;
	void *data;

	fou_nh_key_of(&k, type, family, port, via, tunnel);
	if (rte_hash_lookup_data(gw->nh_keys, &k, &data) < 0)
		return -1;
	return (int)(uintptr_t)data;
}

/* Find or allocate a next hop (a hash of them: no walk over the table);
 * returns its index, or -ENOSPC. One that lost its last route and waits
 * for fou_gw_commit() is taken again as it is. */
static int
fou_nh_get(struct fou_gw *gw, uint8_t type, uint8_t family, uint16_t port,
	   const struct fou_ip *via, uint32_t tunnel)
{
	struct fou_nh_key k;
	struct fou_nh_ctl *c;
	int64_t i;
	void *data;

	fou_nh_key_of(&k, type, family, port, via, tunnel);
	if (rte_hash_lookup_data(gw->nh_keys, &k, &data) >= 0) {
		gw->nh[(uintptr_t)data].refcnt++;
		return (int)(uintptr_t)data;
	}
	i = fou_idpool_get(gw->nh_ids);
	if (i < 0)
		return -ENOSPC;
	/* the hash has room for every next hop of the table */
	if (rte_hash_add_key_data(gw->nh_keys, &k, (void *)(uintptr_t)i) < 0) {
		fou_idpool_put(gw->nh_ids, (uint32_t)i);
		return -ENOSPC;
	}
	gw->nh[i] = (struct fou_nexthop){
		.type = type,
		.family = family,
		.port = port,
		.tunnel = tunnel,
		.refcnt = 1,
	};
	if (type == FOU_NH_GATEWAY)
		gw->nh[i].gw = *via;
	c = &gw->nh_ctl[i];
	*c = (struct fou_nh_ctl){ .head = FOU_NONE, .tail = FOU_NONE, .gw_prev = FOU_NONE,
				  .gw_next = FOU_NONE, .next_free = FOU_NONE };
	if (type == FOU_NH_GATEWAY) {
		c->gw_next = gw->nh_gateways;
		if (gw->nh_gateways != FOU_NONE)
			gw->nh_ctl[gw->nh_gateways].gw_prev = (uint32_t)i;
		gw->nh_gateways = (uint32_t)i;
	}
	gw->nb_nh++;
	return (int)i;
}

/* A group next hop of its own (groups are not shared: no key), its
 * buckets zeroed for fou_prefix_select() to fill. */
int
fou_nh_group_get(struct fou_gw *gw, uint8_t family)
{
	int64_t i = fou_idpool_get(gw->nh_ids);
	struct fou_nhg *g;

	if (i < 0)
		return -ENOSPC;
	g = rte_zmalloc_socket("fou_nhg", sizeof(*g), RTE_CACHE_LINE_SIZE,
			       gw->params.socket_id);
	if (g == NULL) {
		fou_idpool_put(gw->nh_ids, (uint32_t)i);
		return -ENOSPC;
	}
	gw->nhg[i] = g;
	gw->nh[i] = (struct fou_nexthop){ .type = FOU_NH_GROUP, .family = family,
					  .tunnel = (uint32_t)i, .refcnt = 1 };
	gw->nh_ctl[i] = (struct fou_nh_ctl){ .head = FOU_NONE, .tail = FOU_NONE,
					     .gw_prev = FOU_NONE, .gw_next = FOU_NONE,
					     .next_free = FOU_NONE };
	gw->nb_nh++;
	return (int)i;
}

/* Drop a reference. A next hop nobody uses keeps its content until
 * fou_gw_commit() (which frees what is on gw->nh_unused): a worker may
 * still hold it. */
void
fou_nh_put(struct fou_gw *gw, uint32_t idx)
{
	struct fou_nh_ctl *c = &gw->nh_ctl[idx];

	if (--gw->nh[idx].refcnt != 0 || c->queued)
		return;
	c->queued = 1;
	c->next_free = gw->nh_unused;
	gw->nh_unused = idx;
}

void
fou_nh_release(struct fou_gw *gw)
{
	while (gw->nh_unused != FOU_NONE) {
		const uint32_t i = gw->nh_unused;
		struct fou_nh_ctl *c = &gw->nh_ctl[i];
		struct fou_nexthop *nh = &gw->nh[i];
		struct fou_nh_key k;

		gw->nh_unused = c->next_free;
		c->queued = 0;
		c->next_free = FOU_NONE;
		if (nh->refcnt != 0)
			continue;	/* taken again before the grace period ended */
		if (nh->type == FOU_NH_GROUP) {
			rte_free(gw->nhg[i]);
			gw->nhg[i] = NULL;
		} else {
			fou_nh_key_of(&k, nh->type, nh->family, nh->port, &nh->gw, nh->tunnel);
			rte_hash_del_key(gw->nh_keys, &k);
		}
		if (nh->type == FOU_NH_GATEWAY) {
			if (c->gw_prev != FOU_NONE)
				gw->nh_ctl[c->gw_prev].gw_next = c->gw_next;
			else
				gw->nh_gateways = c->gw_next;
			if (c->gw_next != FOU_NONE)
				gw->nh_ctl[c->gw_next].gw_prev = c->gw_prev;
		}
		memset(nh, 0, sizeof(*nh));
		memset(c, 0, sizeof(*c));
		fou_idpool_put(gw->nh_ids, i);
		gw->nb_nh--;
	}
}

/* --- routes ----------------------------------------------------------- */

/* The record of the route to prefix, or -1: a walk down the FIB's RIB.
 * A prefix with host bits set is no route's (the RIB would mask them). */
int
fou_route_find(const struct fou_gw *gw, const struct fou_ip *prefix)
{
	const uint32_t def = prefix->family == AF_INET ? gw->default_route4 : gw->default_route6;
	struct fou_ip masked = *prefix;
	struct rte_rib6_node *n6;
	struct rte_rib_node *n4;

	fou_ip_mask(&masked, prefix->plen);
	if (!fou_ip_equal(&masked, prefix))
		return -1;
	if (prefix->plen == 0)
		return (int)def - 1;
	if (prefix->family == AF_INET) {
		n4 = rte_rib_lookup_exact(rte_fib_get_rib(gw->fib4), rte_be_to_cpu_32(prefix->v4),
					  prefix->plen);
		return n4 == NULL ? -1 : (int)*(const uint32_t *)rte_rib_get_ext(n4);
	}
	n6 = rte_rib6_lookup_exact(rte_fib6_get_rib(gw->fib6), prefix->v6, prefix->plen);
	return n6 == NULL ? -1 : (int)*(const uint32_t *)rte_rib6_get_ext(n6);
}

bool
fou_route_exists(const struct fou_gw *gw, const struct fou_ip *prefix)
{
	return fou_route_find(gw, prefix) >= 0;
}

/* Record idx is now the first route of prefix (which is installed). */
static void
fou_prefix_head_set(struct fou_gw *gw, const struct fou_ip *prefix, uint32_t idx)
{
	if (prefix->plen == 0)
		*(prefix->family == AF_INET ? &gw->default_route4 : &gw->default_route6) = idx + 1;
	else if (prefix->family == AF_INET)
		*(uint32_t *)rte_rib_get_ext(rte_rib_lookup_exact(rte_fib_get_rib(gw->fib4),
			rte_be_to_cpu_32(prefix->v4), prefix->plen)) = idx;
	else
		*(uint32_t *)rte_rib6_get_ext(rte_rib6_lookup_exact(rte_fib6_get_rib(gw->fib6),
			prefix->v6, prefix->plen)) = idx;
}

uint32_t
fou_prefix_fib_get(const struct fou_gw *gw, const struct fou_ip *prefix)
{
	const bool v4 = prefix->family == AF_INET;
	uint64_t v;
	int ret;

	if (prefix->plen == 0) {
		const uint32_t d = v4 ? gw->default_nh4 : gw->default_nh6;

		return d == 0 ? FOU_NONE : d - 1;
	}
	if (v4) {
		const struct rte_rib_node *n = rte_rib_lookup_exact(rte_fib_get_rib(gw->fib4),
			rte_be_to_cpu_32(prefix->v4), prefix->plen);

		ret = n != NULL ? rte_rib_get_nh(n, &v) : -1;
	} else {
		const struct rte_rib6_node *n = rte_rib6_lookup_exact(rte_fib6_get_rib(gw->fib6),
			prefix->v6, prefix->plen);

		ret = n != NULL ? rte_rib6_get_nh(n, &v) : -1;
	}
	return ret < 0 ? FOU_NONE : (uint32_t)(v - FOU_FIB_NH0);
}

/* prefix -> next hop nh in the FIB, or as the default route: 0, or what
 * rte_fib_add / rte_fib6_add refused with. */
static int
fou_prefix_fib_write(struct fou_gw *gw, const struct fou_ip *prefix, uint32_t nh)
{
	if (prefix->plen == 0) {
		__atomic_store_n(prefix->family == AF_INET ? &gw->default_nh4 : &gw->default_nh6,
				 nh + 1, __ATOMIC_RELEASE);
		return 0;
	}
	if (prefix->family == AF_INET)
		return rte_fib_add(gw->fib4, rte_be_to_cpu_32(prefix->v4), prefix->plen,
				   nh + FOU_FIB_NH0);
	return rte_fib6_add(gw->fib6, prefix->v6, prefix->plen, nh + FOU_FIB_NH0);
}

/* A prefix in the FIB changes its value in place: the entries it covers
 * exist, so the FIB allocates nothing and cannot fail. */
void
fou_prefix_fib_set(struct fou_gw *gw, const struct fou_ip *prefix, uint32_t nh)
{
	(void)fou_prefix_fib_write(gw, prefix, nh);
}

/*
 * Install a new prefix -> next hop nh in the FIB (or as the default
 * route), with record idx its first route. A FIB also runs out of groups
 * of 256 entries (routes longer than /24, fou_gw_create()), which is full
 * too.
 */
static int
fou_prefix_install(struct fou_gw *gw, const struct fou_ip *prefix, uint32_t nh, uint32_t idx)
{
	int ret = fou_prefix_fib_write(gw, prefix, nh);

	if (ret == 0)
		fou_prefix_head_set(gw, prefix, idx);
	return ret;
}

/* Readers of the FIBs met along the way find the route or its parent's
 * next hop; a group of 256 entries the delete empties is reused only by a
 * later operation's add (FOU_FIB_RETRY). */
static void
fou_prefix_withdraw(struct fou_gw *gw, const struct fou_ip *prefix)
{
	const bool v4 = prefix->family == AF_INET;

	if (prefix->plen == 0) {
		__atomic_store_n(v4 ? &gw->default_nh4 : &gw->default_nh6, 0, __ATOMIC_RELEASE);
		*(v4 ? &gw->default_route4 : &gw->default_route6) = 0;
		return;
	}
	if (v4)
		rte_fib_delete(gw->fib4, rte_be_to_cpu_32(prefix->v4), prefix->plen);
	else
		rte_fib6_delete(gw->fib6, prefix->v6, prefix->plen);
}

/*
 * Every route counts against its family's limit (max_routes4/6, as
 * rte_lpm held its rules), but one default route per family: the records
 * have room for those two. So the FIBs never hold more prefixes than they
 * were made for.
 */
static uint32_t *
fou_route_count(struct fou_gw *gw, const struct fou_ip *prefix, bool first)
{
	if (prefix->plen == 0 && first)
		return NULL;
	return prefix->family == AF_INET ? &gw->nb_routes4 : &gw->nb_routes6;
}

/* Take route record i out of the FIB and the lists, and drop its next hop;
 * the prefix's other routes take over what it carried. */
void
fou_route_uninstall(struct fou_gw *gw, uint32_t i)
{
	struct fou_route *r = &gw->routes[i];
	struct fou_nh_ctl *c = &gw->nh_ctl[r->nh];
	const struct fou_ip prefix = r->prefix;
	const uint32_t cur = fou_prefix_fib_get(gw, &prefix);
	uint32_t head = (uint32_t)fou_route_find(gw, &prefix), *count, p;

	if (head == i) {
		head = r->pfx_next;
		if (head != FOU_NONE)
			fou_prefix_head_set(gw, &prefix, head);
	} else {
		for (p = head; gw->routes[p].pfx_next != i; p = gw->routes[p].pfx_next)
			;
		gw->routes[p].pfx_next = r->pfx_next;
	}
	count = fou_route_count(gw, &prefix, head == FOU_NONE);
	if (count != NULL)
		(*count)--;
	if (head == FOU_NONE) {
		fou_prefix_withdraw(gw, &prefix);
		if (cur != FOU_NONE && gw->nh[cur].type == FOU_NH_GROUP)
			fou_nh_put(gw, cur);
	} else {
		/* no room for a group: the first live route alone (logged) */
		(void)fou_prefix_select(gw, head, NULL);
	}
	if (r->prev != FOU_NONE)
		gw->routes[r->prev].next = r->next;
	else
		gw->route_head = r->next;
	if (r->next != FOU_NONE)
		gw->routes[r->next].prev = r->prev;
	else
		gw->route_tail = r->prev;
	if (r->nh_prev != FOU_NONE)
		gw->routes[r->nh_prev].nh_next = r->nh_next;
	else
		c->head = r->nh_next;
	if (r->nh_next != FOU_NONE)
		gw->routes[r->nh_next].nh_prev = r->nh_prev;
	else
		c->tail = r->nh_prev;
	fou_nh_put(gw, r->nh);
	memset(r, 0, sizeof(*r));
	r->next = gw->route_free;
	gw->route_free = i;
	gw->nb_routes--;
	gw->raux->cursor_valid = false;
}

/* "dev t1", "dev 1 via 10.0.0.1", "dev 1": a next hop, for messages. */
static const char *
fou_nh_str(const struct fou_gw *gw, uint8_t type, uint16_t port, const struct fou_ip *via,
	   uint32_t tunnel, char *buf, size_t len)
{
	if (type == FOU_NH_TUNNEL)
		snprintf(buf, len, "dev %s", gw->tunnels[tunnel].conf.name);
	else if (type == FOU_NH_GATEWAY)
		snprintf(buf, len, "dev %u via %s", port, FOU_IPSTR(via));
	else
		snprintf(buf, len, "dev %u", port);
	return buf;
}

/*
 * What a new route to a prefix that has routes (from head) must not be:
 * beside an address's route; the same next hop and metric as one of them
 * (as Linux' EEXIST for an identical route); one more of a metric that
 * has FOU_ECMP_MAX already (a group's bound).
 */
static int
fou_route_check_beside(const struct fou_gw *gw, uint32_t head, uint8_t type, uint16_t port,
		       const struct fou_ip *via, uint32_t tunnel, bool from_addr, uint32_t metric,
		       struct fou_err *err)
{
	const struct fou_ip *prefix = &gw->routes[head].prefix;
	const int nh = fou_nh_find(gw, type, prefix->family, port, via, tunnel);
	unsigned int same = 0;
	uint32_t j;

	if (from_addr || gw->routes[head].from_addr) {
		fou_err_set(err, "a route to %s/%u exists", FOU_IPSTR(prefix), prefix->plen);
		return -EEXIST;
	}
	for (j = head; j != FOU_NONE; j = gw->routes[j].pfx_next) {
		if (gw->routes[j].metric != metric)
			continue;
		if (nh >= 0 && gw->routes[j].nh == (uint32_t)nh) {
			fou_err_set(err, "the route to %s/%u %s metric %u exists", FOU_IPSTR(prefix),
				    prefix->plen, fou_nh_str(gw, type, port, via, tunnel,
							     (char[64]){ 0 }, 64), metric);
			return -EEXIST;
		}
		same++;
	}
	if (same >= FOU_ECMP_MAX) {
		fou_err_set(err, "the route to %s/%u has %u next hops of metric %u already "
			    "(at most %u share a prefix's traffic)", FOU_IPSTR(prefix),
			    prefix->plen, same, metric, FOU_ECMP_MAX);
		return -E2BIG;
	}
	return 0;
}

/* Record i into the routes to its prefix (first head), after those of a
 * lower or equal metric. */
static void
fou_route_link_prefix(struct fou_gw *gw, uint32_t head, uint32_t i)
{
	struct fou_route *r = &gw->routes[i];
	uint32_t p;

	if (r->metric < gw->routes[head].metric) {
		r->pfx_next = head;
		fou_prefix_head_set(gw, &r->prefix, i);
		return;
	}
	for (p = head; gw->routes[p].pfx_next != FOU_NONE &&
	     gw->routes[gw->routes[p].pfx_next].metric <= r->metric; p = gw->routes[p].pfx_next)
		;
	r->pfx_next = gw->routes[p].pfx_next;
	gw->routes[p].pfx_next = i;
}

/* Add a route with a next hop of the given kind; the caller checked it.
 * Returns the next hop index. */
int
fou_route_insert(struct fou_gw *gw, const struct fou_ip *prefix, uint8_t type, uint16_t port,
		 const struct fou_ip *via, uint32_t tunnel, bool from_addr, uint32_t metric,
		 uint16_t weight, struct fou_err *err)
{
	const int head = fou_route_find(gw, prefix);
	struct fou_route *r;
	struct fou_nh_ctl *c;
	uint32_t i, *count;
	int nh, ret;

	if (head >= 0) {
		ret = fou_route_check_beside(gw, (uint32_t)head, type, port, via, tunnel, from_addr,
					     metric, err);
		if (ret < 0)
			return ret;
	}
	count = fou_route_count(gw, prefix, head < 0);
	if (count != NULL && *count >= (prefix->family == AF_INET ? gw->params.max_routes4 :
					gw->params.max_routes6)) {
		fou_err_set(err, "cannot add route to %s/%u: routing table full", FOU_IPSTR(prefix),
			    prefix->plen);
		return -ENOSPC;
	}
	nh = fou_nh_get(gw, type, prefix->family, port, via, tunnel);
	if (nh < 0) {
		fou_err_set(err, "too many next hops (at most %u)", gw->params.max_nexthops);
		return nh;
	}
	/* the limits leave a record for every route they let in */
	i = gw->route_free;
	if (head < 0) {
		ret = fou_prefix_install(gw, prefix, (uint32_t)nh, i);
		if (ret < 0) {
			fou_nh_put(gw, (uint32_t)nh);
			fou_err_set(err, "cannot add route to %s/%u: %s", FOU_IPSTR(prefix),
				    prefix->plen,
				    ret == -ENOSPC ? "routing table full" : strerror(-ret));
			return ret;
		}
	}
	r = &gw->routes[i];
	gw->route_free = r->next;
	c = &gw->nh_ctl[nh];
	*r = (struct fou_route){
		.prefix = *prefix, .nh = (uint32_t)nh, .from_addr = from_addr,
		.weight = weight, .metric = metric, .pfx_next = FOU_NONE,
		.prev = gw->route_tail, .next = FOU_NONE,
		.nh_prev = c->tail, .nh_next = FOU_NONE,
		.seq = gw->raux->seq++,
	};
	if (gw->route_tail != FOU_NONE)
		gw->routes[gw->route_tail].next = i;
	else
		gw->route_head = i;
	gw->route_tail = i;
	if (c->tail != FOU_NONE)
		gw->routes[c->tail].nh_next = i;
	else
		c->head = i;
	c->tail = i;
	gw->nb_routes++;
	if (count != NULL)
		(*count)++;
	gw->raux->cursor_valid = false;
	if (head >= 0) {
		fou_route_link_prefix(gw, (uint32_t)head, i);
		ret = fou_prefix_select(gw, (uint32_t)fou_route_find(gw, prefix), err);
		if (ret < 0) {
			fou_route_uninstall(gw, i);
			return ret;
		}
	}
	return nh;
}

const struct fou_addr *
fou_addr_find(const struct fou_gw *gw, const struct fou_ip *ip)
{
	unsigned int i;

	for (i = 0; i < gw->addrs->n; i++)
		if (fou_ip_equal(&gw->addrs->a[i].ip, ip))
			return &gw->addrs->a[i];
	return NULL;
}

/* Is a on port (tunnel 0), or on the tunnel of index tunnel - 1? */
static bool
fou_addr_on(const struct fou_addr *a, uint16_t port, uint32_t tunnel)
{
	return a->tunnel == tunnel && (tunnel != 0 || a->port == port);
}

/* "port N" or "tunnel NAME", for messages. */
static const char *
fou_addr_dev_str(const struct fou_gw *gw, uint16_t port, uint32_t tunnel, char *buf,
		 size_t len)
{
	if (tunnel != 0)
		snprintf(buf, len, "tunnel %s", gw->tunnels[tunnel - 1].conf.name);
	else
		snprintf(buf, len, "port %u", port);
	return buf;
}
#define FOU_DEVSTR(gw, a) \
	fou_addr_dev_str((gw), (a)->port, (a)->tunnel, (char[32]){ 0 }, 32)

/* Is ip on a network of an address of port other than skip? A route's
 * gateway must be (as in Linux); a tunnel's network has no gateways.
 * fe80::/64 is on every port, as the route addrconf gives every interface
 * with its link-local address. */
static bool
fou_addr_onlink(const struct fou_gw *gw, uint16_t port, const struct fou_ip *ip,
		const struct fou_addr *skip)
{
	static const uint8_t ll_pfx[8] = { 0xfe, 0x80 };
	unsigned int i;

	if (ip->family == AF_INET6 && memcmp(ip->v6, ll_pfx, sizeof(ll_pfx)) == 0)
		return true;

	for (i = 0; i < gw->addrs->n; i++) {
		const struct fou_addr *a = &gw->addrs->a[i];

		if (a != skip && fou_addr_on(a, port, 0) && fou_prefix_contains(&a->ip, ip))
			return true;
	}
	return false;
}

int
fou_prefix_check(const struct fou_ip *prefix, struct fou_err *err)
{
	struct fou_ip masked = *prefix;

	fou_ip_mask(&masked, prefix->plen);
	if (!fou_ip_equal(&masked, prefix)) {
		fou_err_set(err, "%s/%u has host bits set (the prefix is %s/%u)", FOU_IPSTR(prefix),
			    prefix->plen, FOU_IPSTR(&masked), prefix->plen);
		return -EINVAL;
	}
	return 0;
}

/* A gateway route's next hop: what Linux' fib_check_nh asks of it. */
static int
fou_route_via_check(const struct fou_gw *gw, const struct fou_ip *prefix, uint16_t port,
		    const struct fou_ip *via, struct fou_err *err)
{
	uint8_t ll[16];

	if (via->family != prefix->family) {
		fou_err_set(err, "gateway %s is not of the prefix's address family", FOU_IPSTR(via));
		return -EINVAL;
	}
	if (!fou_ip_is_unicast(via)) {
		fou_err_set(err, "gateway %s is not a unicast address", FOU_IPSTR(via));
		return -EINVAL;
	}
	if (via->family == AF_INET6)
		fou_ll6(&gw->iface[port].mac, ll);
	if (fou_addr_find(gw, via) != NULL ||
	    (via->family == AF_INET6 && memcmp(via->v6, ll, 16) == 0)) {
		fou_err_set(err, "gateway %s is a local address", FOU_IPSTR(via));
		return -EINVAL;
	}
	if (!fou_addr_onlink(gw, port, via, NULL)) {
		fou_err_set(err, "gateway %s is not on a network of port %u (add an address first)",
			    FOU_IPSTR(via), port);
		return -ENETUNREACH;
	}
	return 0;
}

int
fou_route_append(struct fou_gw *gw, const struct fou_route_spec *rs, struct fou_err *err)
{
	const struct fou_ip *prefix = &rs->prefix;
	const uint16_t weight = rs->weight == 0 ? 1 : rs->weight;
	int idx = 0, ret;

	if (weight > FOU_ROUTE_WEIGHT_MAX) {
		fou_err_set(err, "weight %u is not 1-%u", weight, FOU_ROUTE_WEIGHT_MAX);
		return -EINVAL;
	}
	if (rs->tunnel != NULL) {
		idx = fou_tunnel_find(gw, rs->tunnel);
		if (idx < 0) {
			fou_err_set(err, "no tunnel '%s'", rs->tunnel);
			return -ENODEV;
		}
		ret = fou_prefix_check(prefix, err);
		if (ret == 0)
			ret = fou_tunnel_carries(gw, (uint32_t)idx, prefix->family, err);
	} else {
		ret = fou_iface_check(gw, rs->port, err);
		if (ret == 0)
			ret = fou_prefix_check(prefix, err);
		if (ret == 0 && rs->via != NULL)
			ret = fou_route_via_check(gw, prefix, rs->port, rs->via, err);
	}
	if (ret < 0)
		return ret;
	if (rs->tunnel != NULL)
		ret = fou_route_insert(gw, prefix, FOU_NH_TUNNEL, 0, NULL, (uint32_t)idx, false,
				       rs->metric, weight, err);
	else
		ret = fou_route_insert(gw, prefix, rs->via != NULL ? FOU_NH_GATEWAY :
				       FOU_NH_CONNECTED, rs->port, rs->via, 0, false, rs->metric,
				       weight, err);
	fou_gw_commit(gw);
	return ret < 0 ? ret : 0;
}

int
fou_route_add(struct fou_gw *gw, const struct fou_ip *prefix, uint16_t port,
	      const struct fou_ip *via, struct fou_err *err)
{
	const struct fou_route_spec rs = { .prefix = *prefix, .port = port, .via = via };

	return fou_route_append(gw, &rs, err);
}

int
fou_route_add_tunnel(struct fou_gw *gw, const struct fou_ip *prefix, const char *dev,
		     struct fou_err *err)
{
	const struct fou_route_spec rs = { .prefix = *prefix, .tunnel = dev };

	return fou_route_append(gw, &rs, err);
}

/* Does route record r match what rs names in match (FOU_ROUTE_M_*)? */
static bool
fou_route_matches(const struct fou_gw *gw, const struct fou_route *r,
		  const struct fou_route_spec *rs, unsigned int match)
{
	const struct fou_nexthop *nh = &gw->nh[r->nh];

	if ((match & FOU_ROUTE_M_METRIC) && r->metric != rs->metric)
		return false;
	if ((match & FOU_ROUTE_M_DEV) &&
	    (rs->tunnel != NULL ? nh->type != FOU_NH_TUNNEL ||
	     strcmp(gw->tunnels[nh->tunnel].conf.name, rs->tunnel) != 0 :
	     (nh->type != FOU_NH_CONNECTED && nh->type != FOU_NH_GATEWAY) ||
	     nh->port != rs->port))
		return false;
	if ((match & FOU_ROUTE_M_VIA) &&
	    (rs->via != NULL ? nh->type != FOU_NH_GATEWAY || !fou_ip_equal(&nh->gw, rs->via) :
	     nh->type == FOU_NH_GATEWAY))
		return false;
	return true;
}

/* "dev=t1,via=10.0.0.1,metric=5": what a route was asked to match, in the
 * statement's words. */
static const char *
fou_route_match_str(const struct fou_route_spec *rs, unsigned int match, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (match & FOU_ROUTE_M_DEV) {
		if (rs->tunnel != NULL)
			n += (size_t)snprintf(buf + n, len - n, "dev=%s", rs->tunnel);
		else
			n += (size_t)snprintf(buf + n, len - n, "dev=%u", rs->port);
	}
	if ((match & FOU_ROUTE_M_VIA) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%svia=%s", n != 0 ? "," : "",
				      rs->via != NULL ? FOU_IPSTR(rs->via) : "none");
	if ((match & FOU_ROUTE_M_METRIC) && n < len)
		snprintf(buf + n, len - n, "%smetric=%u", n != 0 ? "," : "", rs->metric);
	return buf;
}

int
fou_route_remove(struct fou_gw *gw, const struct fou_route_spec *rs, unsigned int match,
		 struct fou_err *err)
{
	const struct fou_ip *prefix = &rs->prefix;
	const int head = fou_route_find(gw, prefix);
	char have[160] = "";
	size_t n = 0;
	uint32_t j;

	if (head < 0) {
		fou_err_set(err, "no route to %s/%u", FOU_IPSTR(prefix), prefix->plen);
		return -ESRCH;
	}
	for (j = (uint32_t)head; j != FOU_NONE; j = gw->routes[j].pfx_next) {
		const struct fou_route *r = &gw->routes[j];
		const struct fou_nexthop *nh = &gw->nh[r->nh];

		if (!fou_route_matches(gw, r, rs, match)) {
			if (n < sizeof(have))
				n += (size_t)snprintf(have + n, sizeof(have) - n, "%s%s metric %u",
					n != 0 ? ", " : "", fou_nh_str(gw, nh->type, nh->port,
					&nh->gw, nh->tunnel, (char[64]){ 0 }, 64), r->metric);
			continue;
		}
		if (r->from_addr) {
			fou_err_set(err, "the route to %s/%u comes with an address "
				    "(delete the address)", FOU_IPSTR(prefix), prefix->plen);
			return -EPERM;
		}
		fou_route_uninstall(gw, j);
		fou_gw_commit(gw);
		return 0;
	}
	fou_err_set(err, "no route to %s/%u with %s (there are: %s)", FOU_IPSTR(prefix),
		    prefix->plen, fou_route_match_str(rs, match, (char[96]){ 0 }, 96), have);
	return -ESRCH;
}

int
fou_route_del(struct fou_gw *gw, const struct fou_ip *prefix, struct fou_err *err)
{
	const struct fou_route_spec rs = { .prefix = *prefix };

	return fou_route_remove(gw, &rs, 0, err);
}

static const char *const fou_nh_type_names[] = {
	[FOU_NH_LOCAL] = "local",
	[FOU_NH_CONNECTED] = "connected",
	[FOU_NH_GATEWAY] = "gateway",
	[FOU_NH_TUNNEL] = "tunnel",
	[FOU_NH_BCAST] = "broadcast",
};

static const struct fou_addr *fou_addr_of_bcast(const struct fou_gw *gw,
						 const struct fou_ip *bcast);

static void
fou_route_info_fill(const struct fou_gw *gw, const struct fou_route *r, struct fou_route_info *ri)
{
	const struct fou_nexthop *nh = &gw->nh[r->nh];
	const struct fou_addr *a;

	memset(ri, 0, sizeof(*ri));
	ri->prefix = r->prefix;
	ri->type = fou_nh_type_names[nh->type];
	ri->port = nh->port;
	ri->from_addr = r->from_addr;
	ri->metric = r->metric;
	ri->weight = r->weight;
	ri->usable = fou_nh_usable(gw, r->nh);
	ri->in_use = fou_route_in_use(gw, (uint32_t)(r - gw->routes));
	if (nh->type == FOU_NH_GATEWAY)
		ri->via = nh->gw;
	if (nh->type == FOU_NH_TUNNEL)
		memcpy(ri->tunnel, gw->tunnels[nh->tunnel].conf.name, sizeof(ri->tunnel));
	/* the next hop of a broadcast route names no tunnel: its address does */
	if (nh->type == FOU_NH_BCAST && (a = fou_addr_of_bcast(gw, &r->prefix)) != NULL &&
	    a->tunnel != 0)
		memcpy(ri->tunnel, gw->tunnels[a->tunnel - 1].conf.name, sizeof(ri->tunnel));
}

int
fou_route_get(const struct fou_gw *gw, const struct fou_ip *prefix, struct fou_route_info *ri)
{
	int i = fou_route_find(gw, prefix);

	if (i < 0)
		return -ESRCH;
	fou_route_info_fill(gw, &gw->routes[i], ri);
	return 0;
}

/*
 * Routes from the offset-th in the order they were added. A page read
 * after the one before it starts where that one stopped (the cursor), so
 * reading every route a page at a time walks the list once.
 */
unsigned int
fou_route_list(const struct fou_gw *gw, struct fou_route_info *out, unsigned int n,
	       unsigned int offset)
{
	struct fou_route_aux *aux = gw->raux;
	uint32_t pos = 0, i = gw->route_head, k;

	if (offset >= gw->nb_routes || n == 0)
		return gw->nb_routes;
	if (aux->cursor_valid && aux->cursor_pos <= offset) {
		pos = aux->cursor_pos;
		i = aux->cursor_idx;
	}
	for (; pos < offset; pos++)
		i = gw->routes[i].next;
	for (k = 0; k < n && i != FOU_NONE; k++, i = gw->routes[i].next)
		fou_route_info_fill(gw, &gw->routes[i], &out[k]);
	if (i != FOU_NONE) {
		aux->cursor_valid = true;
		aux->cursor_pos = offset + k;
		aux->cursor_idx = i;
	}
	return gw->nb_routes;
}

/* --- local addresses -------------------------------------------------- */

/* The routes an address brings: itself, its network, and (IPv4 /30 or
 * wider, fib_add_ifaddr) the network's broadcast address unless it is the
 * address: never forwarded as unicast. Returns whether there is one. */
static bool
fou_addr_prefixes(const struct fou_ip *addr, struct fou_ip *host, struct fou_ip *net,
		  struct fou_ip *bcast)
{
	*host = *addr;
	host->plen = fou_ip_maxlen(addr);
	*net = *addr;
	fou_ip_mask(net, net->plen);
	*bcast = *net;
	bcast->plen = 32;
	if (net->family != AF_INET || net->plen >= 31)
		return false;
	bcast->v4 |= rte_cpu_to_be_32(UINT32_MAX >> net->plen);
	return bcast->v4 != addr->v4;
}

/* The address whose network has the broadcast address bcast, NULL if none. */
static const struct fou_addr *
fou_addr_of_bcast(const struct fou_gw *gw, const struct fou_ip *bcast)
{
	struct fou_ip host, net, b;
	unsigned int i;

	for (i = 0; i < gw->addrs->n; i++) {
		const struct fou_addr *a = &gw->addrs->a[i];

		if (a->ip.family == bcast->family && fou_addr_prefixes(&a->ip, &host, &net, &b) &&
		    fou_ip_equal(&b, bcast) && b.plen == bcast->plen)
			return a;
	}
	return NULL;
}

/* Another address than skip in network net (same prefix length): a network
 * is on one port or tunnel only. */
static const struct fou_addr *
fou_addr_in_net(const struct fou_gw *gw, const struct fou_ip *net, const struct fou_addr *skip)
{
	unsigned int i;

	for (i = 0; i < gw->addrs->n; i++) {
		const struct fou_addr *a = &gw->addrs->a[i];

		if (a != skip && a->ip.family == net->family && a->ip.plen == net->plen &&
		    fou_prefix_contains(net, &a->ip))
			return a;
	}
	return NULL;
}

/* The address list readers do not see: a copy of the current one. */
static struct fou_addr_set *
fou_addrs_next(struct fou_gw *gw)
{
	struct fou_addr_set *next = gw->addrs == &gw->addr_sets[0] ? &gw->addr_sets[1] :
				    &gw->addr_sets[0];

	*next = *gw->addrs;
	return next;
}

static void
fou_own4_put(struct fou_own_set *ls, rte_be32_t addr, uint8_t kind, uint16_t port,
	       uint32_t tunnel)
{
	uint32_t h = fou_own4_hash(addr);

	while (ls->v4[h].kind != 0 && ls->v4[h].addr != addr)
		h = (h + 1) & (FOU_OWN4_SLOTS - 1);
	if (ls->v4[h].kind == 0)
		ls->v4[h] = (struct fou_own4){ .addr = addr, .kind = kind, .port = port,
						 .tunnel = tunnel };
}

/*
 * The addresses of as, and the broadcast addresses of their networks,
 * into the local set readers do not see. The broadcast routes are exactly
 * these (fou_addr_insert() adds one for the first address of a network
 * and refuses an address that is another's broadcast; the last address
 * of the network takes it away).
 */
static struct fou_own_set *
fou_own_build(struct fou_gw *gw, const struct fou_addr_set *as)
{
	struct fou_own_set *ls = gw->own == &gw->own_sets[0] ? &gw->own_sets[1] :
				   &gw->own_sets[0];
	struct fou_ip host, net, bcast;
	unsigned int i;

	memset(ls, 0, sizeof(*ls));
	for (i = 0; i < as->n; i++) {
		const struct fou_addr *a = &as->a[i];
		uint32_t h;

		if (a->ip.family == AF_INET) {
			fou_own4_put(ls, a->ip.v4, FOU_OWN_ADDR, a->port, a->tunnel);
			continue;
		}
		for (h = fou_own6_hash(a->ip.v6); ls->v6[h].kind != 0;
		     h = (h + 1) & (FOU_OWN6_SLOTS - 1))
			;
		ls->v6[h] = (struct fou_own6){ .kind = FOU_OWN_ADDR, .port = a->port,
						 .tunnel = a->tunnel };
		memcpy(ls->v6[h].addr, a->ip.v6, 16);
	}
	for (i = 0; i < as->n; i++)
		if (as->a[i].ip.family == AF_INET &&
		    fou_addr_prefixes(&as->a[i].ip, &host, &net, &bcast))
			fou_own4_put(ls, bcast.v4, FOU_OWN_BCAST, 0, 0);
	return ls;
}

/* Readers see next, and the local set made from it: the one publication
 * of an operation (the sets it replaced are reused after its grace period). */
static void
fou_addrs_publish(struct fou_gw *gw, const struct fou_addr_set *next)
{
	struct fou_own_set *ls = fou_own_build(gw, next);

	__atomic_store_n(&gw->own, ls, __ATOMIC_RELEASE);
	__atomic_store_n(&gw->addrs, next, __ATOMIC_RELEASE);
}

/* The tunnel whose local (or remote) is ip, NULL if none. */
static const struct fou_tunnel *
fou_tunnel_with_addr(const struct fou_gw *gw, const struct fou_ip *ip, bool remote)
{
	uint32_t i;

	for (i = 0; i < gw->params.max_tunnels; i++) {
		const struct fou_tunnel_conf *c = &gw->tunnels[i].conf;
		const struct fou_ip *a = remote ? &c->remote : &c->local;

		if (!gw->tunnels[i].used || a->family != ip->family)
			continue;
		if (ip->family == AF_INET ? a->v4 == ip->v4 : memcmp(a->v6, ip->v6, 16) == 0)
			return &gw->tunnels[i];
	}
	return NULL;
}

/*
 * The first route added through a gateway next hop that match() accepts,
 * NULL if none: each next hop's routes are in the order added, so the
 * first of its list; across next hops, the one added first.
 */
static const struct fou_route *
fou_route_first_via(const struct fou_gw *gw,
		    bool (*match)(const struct fou_gw *gw, const struct fou_nexthop *nh,
				  const struct fou_addr *a),
		    const struct fou_addr *a)
{
	const struct fou_route *best = NULL;
	uint32_t i;

	for (i = gw->nh_gateways; i != FOU_NONE; i = gw->nh_ctl[i].gw_next) {
		const struct fou_nh_ctl *c = &gw->nh_ctl[i];

		if (c->head == FOU_NONE || !match(gw, &gw->nh[i], a))
			continue;
		if (best == NULL || gw->routes[c->head].seq < best->seq)
			best = &gw->routes[c->head];
	}
	return best;
}

static bool
fou_nh_via_is(const struct fou_gw *gw __rte_unused, const struct fou_nexthop *nh,
	      const struct fou_addr *a)
{
	return fou_ip_equal(&nh->gw, &a->ip);
}

/*
 * What a new address must not be, so that every state the operations reach
 * is one a config file of its statements (fou_config_dump()) loads again:
 * the gateway of a route (fou_route_add) or the remote of a tunnel
 * (fou_tunnel_conf_check).
 */
static int
fou_addr_check_in_use(const struct fou_gw *gw, const struct fou_ip *addr, struct fou_err *err)
{
	const struct fou_tunnel *t = fou_tunnel_with_addr(gw, addr, true);
	const struct fou_addr a = { .ip = *addr };
	const struct fou_route *r;

	if (t != NULL) {
		fou_err_set(err, "%s is the remote of tunnel %s (delete the tunnel first)",
			    FOU_IPSTR(addr), t->conf.name);
		return -EBUSY;
	}
	r = fou_route_first_via(gw, fou_nh_via_is, &a);
	if (r != NULL) {
		fou_err_set(err, "%s is the gateway of the route to %s/%u (delete the route first)",
			    FOU_IPSTR(addr), FOU_IPSTR(&r->prefix), r->prefix.plen);
		return -EBUSY;
	}
	return 0;
}

/* Is a the only network of its port that the gateway of nh is on? */
static bool
fou_nh_needs(const struct fou_gw *gw, const struct fou_nexthop *nh, const struct fou_addr *a)
{
	return fou_addr_on(a, nh->port, 0) && fou_prefix_contains(&a->ip, &nh->gw) &&
	       !fou_addr_onlink(gw, a->port, &nh->gw, a);
}

/*
 * An address that goes must not take with it what the statements that
 * remain need: the local of a tunnel, or the only network of its port that
 * a route's gateway is on.
 */
static int
fou_addr_check_needed(const struct fou_gw *gw, const struct fou_addr *a, struct fou_err *err)
{
	const struct fou_tunnel *t = fou_tunnel_with_addr(gw, &a->ip, false);
	const struct fou_route *r;

	if (t != NULL) {
		fou_err_set(err, "tunnel %s has local %s (delete the tunnel first)", t->conf.name,
			    FOU_IPSTR(&a->ip));
		return -EBUSY;
	}
	r = fou_route_first_via(gw, fou_nh_needs, a);
	if (r != NULL) {
		const struct fou_nexthop *nh = &gw->nh[r->nh];

		fou_err_set(err, "the route to %s/%u via %s needs address %s/%u "
			    "(delete the route first)", FOU_IPSTR(&r->prefix), r->prefix.plen,
			    FOU_IPSTR(&nh->gw), FOU_IPSTR(&a->ip), a->ip.plen);
		return -EBUSY;
	}
	return 0;
}

/* What every new address must be, on whatever device. */
static int
fou_addr_check(const struct fou_gw *gw, const struct fou_ip *addr, struct fou_err *err)
{
	if (!fou_ip_is_unicast(addr)) {
		fou_err_set(err, "%s is not a unicast address", FOU_IPSTR(addr));
		return -EINVAL;
	}
	if (addr->plen == 0) {
		fou_err_set(err, "%s/0: an address needs a prefix length of 1 or more",
			    FOU_IPSTR(addr));
		return -EINVAL;
	}
	if (fou_addr_find(gw, addr) != NULL) {
		fou_err_set(err, "address %s is already assigned", FOU_IPSTR(addr));
		return -EEXIST;
	}
	if (gw->addrs->n == FOU_MAX_ADDRS) {
		fou_err_set(err, "too many addresses (at most %u)", FOU_MAX_ADDRS);
		return -ENOSPC;
	}
	return fou_addr_check_in_use(gw, addr, err);
}

/* Remove the route to prefix if an address brought it. */
static void
fou_addr_route_remove(struct fou_gw *gw, const struct fou_ip *prefix)
{
	int i = fou_route_find(gw, prefix);

	if (i >= 0 && gw->routes[i].from_addr)
		fou_route_uninstall(gw, (uint32_t)i);
}

/*
 * Add addr on port (tunnel 0) or on the tunnel of index tunnel - 1 with its
 * routes: itself, local; its network, connected to the port or into the
 * tunnel (as Linux' connected route on a tunnel device); the network's
 * broadcast address. The caller checked addr and the device.
 */
static int
fou_addr_insert(struct fou_gw *gw, uint16_t port, uint32_t tunnel, const struct fou_ip *addr,
		struct fou_err *err)
{
	struct fou_ip host, net, bcast;
	const struct fou_addr *other;
	struct fou_addr_set *next;
	bool add_net, add_bcast;
	int ret;

	add_bcast = fou_addr_prefixes(addr, &host, &net, &bcast);
	/* A second address in a network of the same device shares its route,
	 * as a Linux secondary address does. */
	other = fou_addr_in_net(gw, &net, NULL);
	if (other != NULL && !fou_addr_on(other, port, tunnel)) {
		fou_err_set(err, "network %s/%u is already on %s", FOU_IPSTR(&net), net.plen,
			    FOU_DEVSTR(gw, other));
		return -EEXIST;
	}
	add_net = net.plen < host.plen && other == NULL;
	add_bcast = add_bcast && add_net;
	if (add_net && fou_route_exists(gw, &net)) {
		fou_err_set(err, "a route to %s/%u exists", FOU_IPSTR(&net), net.plen);
		return -EEXIST;
	}
	if (add_bcast && fou_route_exists(gw, &bcast)) {
		fou_err_set(err, "a route to %s/32 exists", FOU_IPSTR(&bcast));
		return -EEXIST;
	}
	ret = fou_route_insert(gw, &host, FOU_NH_LOCAL, 0, NULL, 0, true, 0, 1, err);
	if (ret < 0)
		return ret;
	if (add_net && tunnel != 0)
		ret = fou_route_insert(gw, &net, FOU_NH_TUNNEL, 0, NULL, tunnel - 1, true, 0, 1, err);
	else if (add_net)
		ret = fou_route_insert(gw, &net, FOU_NH_CONNECTED, port, NULL, 0, true, 0, 1, err);
	if (ret >= 0 && add_bcast) {
		ret = fou_route_insert(gw, &bcast, FOU_NH_BCAST, port, NULL, 0, true, 0, 1, err);
		if (ret < 0)
			fou_addr_route_remove(gw, &net);
	}
	if (ret < 0) {
		fou_addr_route_remove(gw, &host);
		return ret;
	}
	next = fou_addrs_next(gw);
	next->a[next->n++] = (struct fou_addr){ .tunnel = tunnel, .port = port, .ip = *addr };
	fou_addrs_publish(gw, next);
	return 0;
}

/* Take out the routes addr brought: its own, and with net_too its
 * network's (a broadcast route only if it had one: the same prefix may be
 * another address's). */
static void
fou_addr_routes_remove(struct fou_gw *gw, const struct fou_ip *addr, bool net_too)
{
	struct fou_ip host, net, bcast;
	bool has_bcast = fou_addr_prefixes(addr, &host, &net, &bcast);

	fou_addr_route_remove(gw, &host);
	if (!net_too || net.plen == host.plen)
		return;
	fou_addr_route_remove(gw, &net);
	if (has_bcast)
		fou_addr_route_remove(gw, &bcast);
}

/* Address a out of the list and out of the routes; the network's stay while
 * another address of the network does. */
static void
fou_addr_remove(struct fou_gw *gw, const struct fou_addr *a)
{
	struct fou_ip net = a->ip;
	struct fou_addr_set *next;
	uint32_t i;

	fou_ip_mask(&net, net.plen);
	fou_addr_routes_remove(gw, &a->ip, fou_addr_in_net(gw, &net, a) == NULL);
	next = fou_addrs_next(gw);
	i = (uint32_t)(a - gw->addrs->a);
	memmove(&next->a[i], &next->a[i + 1], (next->n - i - 1) * sizeof(next->a[0]));
	next->n--;
	fou_addrs_publish(gw, next);
}

int
fou_addr_add(struct fou_gw *gw, uint16_t port, const struct fou_ip *addr, struct fou_err *err)
{
	int ret = fou_iface_check(gw, port, err);

	if (ret == 0)
		ret = fou_addr_check(gw, addr, err);
	if (ret < 0)
		return ret;
	ret = fou_addr_insert(gw, port, 0, addr, err);
	fou_gw_commit(gw);
	return ret;
}

int
fou_addr_add_tunnel(struct fou_gw *gw, const char *tunnel, const struct fou_ip *addr,
		    struct fou_err *err)
{
	int idx = fou_tunnel_find(gw, tunnel), ret;

	if (idx < 0) {
		fou_err_set(err, "no tunnel '%s'", tunnel);
		return -ENODEV;
	}
	ret = fou_tunnel_carries(gw, (uint32_t)idx, addr->family, err);
	if (ret == 0)
		ret = fou_addr_check(gw, addr, err);
	if (ret < 0)
		return ret;
	ret = fou_addr_insert(gw, 0, (uint32_t)idx + 1, addr, err);
	fou_gw_commit(gw);
	return ret;
}

int
fou_addr_del(struct fou_gw *gw, uint16_t port, const struct fou_ip *addr, struct fou_err *err)
{
	const struct fou_addr *a = fou_addr_find(gw, addr);
	int ret;

	if (a == NULL || !fou_addr_on(a, port, 0) || a->ip.plen != addr->plen) {
		fou_err_set(err, "address %s/%u is not on port %u", FOU_IPSTR(addr), addr->plen, port);
		return -EADDRNOTAVAIL;
	}
	ret = fou_addr_check_needed(gw, a, err);
	if (ret < 0)
		return ret;
	fou_addr_remove(gw, a);
	fou_gw_commit(gw);
	return 0;
}

int
fou_addr_del_tunnel(struct fou_gw *gw, const char *tunnel, const struct fou_ip *addr,
		    struct fou_err *err)
{
	int idx = fou_tunnel_find(gw, tunnel), ret;
	const struct fou_addr *a = fou_addr_find(gw, addr);

	if (idx < 0) {
		fou_err_set(err, "no tunnel '%s'", tunnel);
		return -ENODEV;
	}
	if (a == NULL || !fou_addr_on(a, 0, (uint32_t)idx + 1) || a->ip.plen != addr->plen) {
		fou_err_set(err, "address %s/%u is not on tunnel %s", FOU_IPSTR(addr), addr->plen,
			    tunnel);
		return -EADDRNOTAVAIL;
	}
	ret = fou_addr_check_needed(gw, a, err);
	if (ret < 0)
		return ret;
	fou_addr_remove(gw, a);
	fou_gw_commit(gw);
	return 0;
}

/* Every address of the tunnel goes, so its networks' routes go too: one
 * new list, published once (the other list may still be read). */
void
fou_addr_flush_tunnel(struct fou_gw *gw, uint32_t idx)
{
	struct fou_addr_set *next = fou_addrs_next(gw);
	unsigned int i, n = 0;

	for (i = 0; i < gw->addrs->n; i++) {
		const struct fou_addr *a = &gw->addrs->a[i];

		if (a->tunnel == idx + 1)
			fou_addr_routes_remove(gw, &a->ip, true);
		else
			next->a[n++] = *a;
	}
	if (n == gw->addrs->n)
		return;
	next->n = n;
	fou_addrs_publish(gw, next);
}

unsigned int
fou_addr_list(const struct fou_gw *gw, struct fou_addr_info *out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && i < gw->addrs->n; i++) {
		const struct fou_addr *a = &gw->addrs->a[i];

		out[i] = (struct fou_addr_info){ .port = a->port, .ip = a->ip };
		if (a->tunnel != 0)
			memcpy(out[i].tunnel, gw->tunnels[a->tunnel - 1].conf.name,
			       sizeof(out[i].tunnel));
	}
	return gw->addrs->n;
}

/* --- ICMP errors ------------------------------------------------------ */

void
fou_icmp_rate_get(const struct fou_gw *gw, uint32_t *rate, uint32_t *burst)
{
	fou_icmp_limit_load(gw, rate, burst);
}

int
fou_icmp_rate_set(struct fou_gw *gw, uint32_t rate, uint32_t burst, struct fou_err *err)
{
	if (rate > 1000000) {
		fou_err_set(err, "ICMP rate %u above 1000000 per second", rate);
		return -EINVAL;
	}
	if (rate != 0 && burst == 0) {
		fou_err_set(err, "ICMP burst must be 1 or more");
		return -EINVAL;
	}
	__atomic_store_n(&gw->icmp_limit, (uint64_t)rate << 32 | burst, __ATOMIC_RELAXED);
	fou_gw_commit(gw);
	return 0;
}
