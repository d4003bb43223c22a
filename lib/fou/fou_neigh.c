/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbours: next-hop IP -> MAC per port (rte_hash, lock-free readers).
 * Every change bumps a generation that empties the lcores' neighbour
 * caches (fou_fwd.h's fou_adj_neigh()) before the change returns.
 */
#include <errno.h>
#include <string.h>

#include "fou_ctl.h"

/* Empty every lcore's neighbour cache (fou_adj_neigh): the next lookup of
 * each lcore sees the new generation; fou_gw_commit()'s grace period makes
 * sure none still uses an old entry once the change returns. */
static void
fou_neigh_changed(struct fou_gw *gw)
{
	__atomic_add_fetch(&gw->neigh_gen, 1, __ATOMIC_RELEASE);
}

static void
fou_neigh_key_ip(struct fou_neigh_key *k, uint16_t port, const struct fou_ip *ip)
{
	fou_neigh_key_make(k, port, ip->family, ip->family == AF_INET ? (const void *)&ip->v4 :
			   (const void *)ip->v6);
}

int
fou_neigh_add(struct fou_gw *gw, const struct fou_ip *ip, uint16_t port,
	      const struct rte_ether_addr *mac, struct fou_err *err)
{
	struct fou_neigh_key key;
	int ret;

	ret = fou_iface_check(gw, port, err);
	if (ret < 0)
		return ret;
	if (!fou_ip_is_unicast(ip)) {
		fou_err_set(err, "%s is not a unicast address", FOU_IPSTR(ip));
		return -EINVAL;
	}
	if (!rte_is_unicast_ether_addr(mac) || rte_is_zero_ether_addr(mac)) {
		fou_err_set(err, "lladdr must be a unicast, non-zero MAC address");
		return -EINVAL;
	}
	fou_neigh_key_ip(&key, port, ip);
	if (rte_hash_lookup(gw->neigh, &key) >= 0) {
		fou_err_set(err, "neighbour %s on port %u exists", FOU_IPSTR(ip), port);
		return -EEXIST;
	}
	if (gw->nb_neighs >= gw->params.max_neighs ||
	    rte_hash_add_key_data(gw->neigh, &key, fou_neigh_data(mac)) < 0) {
		fou_err_set(err, "neighbour table full (at most %u)", gw->params.max_neighs);
		return -ENOSPC;
	}
	gw->nb_neighs++;
	fou_neigh_changed(gw);
	fou_gw_commit(gw);
	return 0;
}

int
fou_neigh_get(const struct fou_gw *gw, const struct fou_ip *ip, uint16_t port,
	      struct rte_ether_addr *mac)
{
	struct fou_neigh_key key;
	void *data;

	fou_neigh_key_ip(&key, port, ip);
	if (rte_hash_lookup_data(gw->neigh, &key, &data) < 0)
		return -ENOENT;
	fou_neigh_mac(data, mac);
	return 0;
}

int
fou_neigh_del(struct fou_gw *gw, const struct fou_ip *ip, uint16_t port, struct fou_err *err)
{
	struct fou_neigh_key key;

	fou_neigh_key_ip(&key, port, ip);
	/* rte_hash frees the entry after a grace period (its RCU mode) */
	if (rte_hash_del_key(gw->neigh, &key) < 0) {
		fou_err_set(err, "no neighbour %s on port %u", FOU_IPSTR(ip), port);
		return -ENOENT;
	}
	gw->nb_neighs--;
	fou_neigh_changed(gw);
	fou_gw_commit(gw);
	return 0;
}

unsigned int
fou_neigh_list(const struct fou_gw *gw, struct fou_neigh_info *out, unsigned int n,
	       unsigned int offset)
{
	const struct fou_neigh_key *k;
	unsigned int count = 0;
	uint32_t next = 0;
	const void *key;
	void *data;

	while (rte_hash_iterate(gw->neigh, &key, &data, &next) >= 0) {
		struct fou_neigh_info *ni;

		if (count++ < offset || count - offset > n)
			continue;
		ni = &out[count - offset - 1];
		k = key;
		memset(ni, 0, sizeof(*ni));
		ni->port = k->port;
		ni->ip.family = k->family;
		ni->ip.plen = k->family == AF_INET ? 32 : 128;
		memcpy(k->family == AF_INET ? (void *)&ni->ip.v4 : (void *)ni->ip.v6, k->addr,
		       k->family == AF_INET ? 4 : 16);
		fou_neigh_mac(data, &ni->mac);
	}
	return count;
}
