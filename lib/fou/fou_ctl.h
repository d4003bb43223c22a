/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the control files share among themselves: the commit step
 * (fou_gw.c), the port check (fou_iface.c), routes and addresses
 * (fou_rib.c) that tunnels build on, the tunnel names (fou_tunnel.c) that
 * addresses on tunnels refer to, and the tunnel counters (fou_stats.c).
 * Control side only: no data-path file includes it.
 */
#ifndef FOU_CTL_H
#define FOU_CTL_H

#include "fou_rib.h"

/* fou_gw.c: wait until every started context has passed a quiescent state. */
void fou_gw_sync(const struct fou_gw *gw);
/*
 * The end of every control operation: wait for a grace period, so that the
 * change is in effect on every worker when the operation returns and
 * nothing unlinked is still in use; then free the next hops that lost
 * their last route.
 */
void fou_gw_commit(struct fou_gw *gw);

/* fou_iface.c: -ENODEV, named in err, unless port is the gateway's. */
int fou_iface_check(const struct fou_gw *gw, uint16_t port, struct fou_err *err);

/* fou_rib.c: the routes and addresses other tables check and build on. */
bool fou_route_exists(const struct fou_gw *gw, const struct fou_ip *prefix);
/* The record (index into gw->routes) of the route to prefix, or -1. */
int fou_route_find(const struct fou_gw *gw, const struct fou_ip *prefix);
/* Add a route with a next hop of the given kind; the caller checked it.
 * Returns the next hop index, or -errno with err filled. */
int fou_route_insert(struct fou_gw *gw, const struct fou_ip *prefix, uint8_t type, uint16_t port,
		     const struct fou_ip *via, uint32_t tunnel, bool from_addr,
		     uint32_t metric, uint16_t weight, struct fou_err *err);
/* fou_nhgroup.c: what the FIB holds for the prefix of route record head
 * (its first) from its routes now: the next hop of the best usable ones,
 * or their group. -ENOSPC (no next hop for a group), err filled. */
int fou_prefix_select(struct fou_gw *gw, uint32_t head, struct fou_err *err);
/* Is route record i among those its prefix's traffic takes now? */
bool fou_route_in_use(const struct fou_gw *gw, uint32_t i);
/* Is next hop nh usable (not into an unusable tunnel)? */
bool fou_nh_usable(const struct fou_gw *gw, uint32_t nh);
/* fou_rib.c: the next hop the FIB holds for prefix (FOU_NONE: none), and
 * set it (the prefix is in the FIB, or the default route). */
uint32_t fou_prefix_fib_get(const struct fou_gw *gw, const struct fou_ip *prefix);
void fou_prefix_fib_set(struct fou_gw *gw, const struct fou_ip *prefix, uint32_t nh);
/* A group next hop, its slot in gw->nh (fou_nhg_free(): with its
 * buckets, at commit), or -ENOSPC. */
int fou_nh_group_get(struct fou_gw *gw, uint8_t family);
/* Drop a reference to next hop idx (freed at commit when it was the last). */
void fou_nh_put(struct fou_gw *gw, uint32_t idx);
/*
 * Tunnel idx (its index) carries its routes' traffic or not. usable
 * false: the routes into it rest, and their prefixes' next best routes
 * carry it (equal metrics by weight); true: they come back. Flows on other
 * next hops never move. Returns after the grace period: once it has, no
 * packet goes into an unusable tunnel along a route that has another
 * usable one. Every tunnel starts usable. The control lock is held.
 */
int fou_tunnel_usable_set(struct fou_gw *gw, uint32_t tunnel, bool usable);
/* Take route record i out of the FIB and the lists, and drop its next hop. */
void fou_route_uninstall(struct fou_gw *gw, uint32_t i);
/* The index of the next hop of that kind in gw->nh, or -1 (its routes:
 * gw->nh_ctl[i].head, linked by nh_next). */
int fou_nh_find(const struct fou_gw *gw, uint8_t type, uint8_t family, uint16_t port,
		const struct fou_ip *via, uint32_t tunnel);
/* Free the next hops that lost their last route (after a grace period). */
void fou_nh_release(struct fou_gw *gw);
/* -EINVAL, named in err, for a prefix with host bits set. */
int fou_prefix_check(const struct fou_ip *prefix, struct fou_err *err);
const struct fou_addr *fou_addr_find(const struct fou_gw *gw, const struct fou_ip *ip);
/* Remove every address of tunnel idx with the routes it brought, in one
 * change of the address list (fou_tunnel_del(), before its grace period). */
void fou_addr_flush_tunnel(struct fou_gw *gw, uint32_t idx);

/* fou_tunnel.c: the index of the tunnel named name, or -ENOENT. */
int fou_tunnel_find(const struct fou_gw *gw, const char *name);
/* -EINVAL, named in err (err may be NULL), unless tunnel idx carries
 * packets of family (its routes, addresses and probes): ipip and ip6tnl
 * mode ipip6 IPv4, sit and mode ip6ip6 IPv6, gre, ip6gre and mode any both. */
int fou_tunnel_carries(const struct fou_gw *gw, uint32_t idx, uint8_t family,
		       struct fou_err *err);

/* fou_neigh.c: the control side's neighbour table, made and freed with
 * the gateway. */
int fou_neigh_tbl_create(struct fou_gw *gw);
void fou_neigh_tbl_free(struct fou_gw *gw);
/* The source of a request for target on port (4 or 16 bytes by family):
 * the port's address on target's network, else its first; false if none. */
bool fou_neigh_src(const struct fou_gw *gw, uint16_t port, uint8_t family, const void *target,
		   void *src);

/* Send m out of port through the first started worker (its inject ring),
 * which counts it as sent; without one, or with its ring full, it is
 * dropped under reason. */
void fou_neigh_emit(struct fou_gw *gw, struct rte_mbuf *m, uint16_t port, unsigned int reason);

/* fou_stats.c: counters of tunnel i summed over lcores, less base (if not
 * NULL), added to ti. */
void fou_tun_stats_sum(const struct fou_gw *gw, uint32_t i, const struct fou_tun_stats *base,
		       struct fou_tunnel_info *ti);

/* The kernel interfaces' state goes with the gateway (fou_punt.c). */
void fou_punt_free(struct fou_gw *gw);

#endif /* FOU_CTL_H */
