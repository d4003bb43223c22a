/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tunnel endpoints: the FOU receive ports (`ip fou add`), the tunnels
 * (`ip link add ... type ipip|sit|gre ... encap fou`) with their receive
 * match table and the pre-built outer header that fou_encap.c patches per
 * packet, the routes into them, and the source ports of encap-sport auto.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "fou_ctl.h"
#include "fou_hdr.h"
#include "fou_idpool.h"

/* --- FOU receive ports ------------------------------------------------ */

const char *
fou_proto_name(uint8_t ipproto)
{
	switch (ipproto) {
	case IPPROTO_IPIP:
		return "ipip";
	case IPPROTO_IPV6:
		return "sit";
	case IPPROTO_GRE:
		return "gre";
	default:
		return NULL;
	}
}

/* A port's family is IPv4 or IPv6. */
static int
fou_port_conf_check(const struct fou_port_conf *pc, struct fou_err *err)
{
	if (pc->family != AF_INET && pc->family != AF_INET6) {
		fou_err_set(err, "a FOU port's family must be 4 or 6");
		return -EINVAL;
	}
	return 0;
}

/* The UDP port -> slot table of the port's family: a port of each family
 * may share one UDP port, as two `ip fou add` sockets (-4 and -6) do. */
static uint8_t *
fou_port_slots(struct fou_gw *gw, uint8_t family)
{
	return family == AF_INET6 ? gw->udp_slot6 : gw->udp_slot;
}

static const char *
fou_port_family(uint8_t family)
{
	return family == AF_INET6 ? " over IPv6" : "";
}

int
fou_port_add(struct fou_gw *gw, const struct fou_port_conf *pc, struct fou_err *err)
{
	const uint16_t udp_port = pc->udp_port;
	unsigned int slot;
	uint8_t *slots;
	int ret;

	if (udp_port == 0) {
		fou_err_set(err, "UDP port 0 is not a valid FOU port");
		return -EINVAL;
	}
	if (pc->ipproto == 0 && !pc->gue) {
		fou_err_set(err, "IP protocol 0 is not a valid FOU protocol");
		return -EINVAL;
	}
	if (pc->ipproto != 0 && pc->gue) {
		fou_err_set(err, "a GUE port has no protocol (the GUE header carries it)");
		return -EINVAL;
	}
	ret = fou_port_conf_check(pc, err);
	if (ret < 0)
		return ret;
	slots = fou_port_slots(gw, pc->family);
	if (slots[udp_port] != 0) {
		fou_err_set(err, "UDP port %u is already a FOU port%s", udp_port,
			    fou_port_family(pc->family));
		return -EEXIST;
	}
	for (slot = 1; slot <= FOU_MAX_UDP_PORTS; slot++)
		if (gw->udp[slot].udp_port == 0)
			break;
	if (slot > FOU_MAX_UDP_PORTS) {
		fou_err_set(err, "too many FOU ports (at most %u)", FOU_MAX_UDP_PORTS);
		return -ENOSPC;
	}
	gw->udp[slot].udp_port = udp_port;
	gw->udp[slot].ipproto = pc->ipproto;
	gw->udp[slot].gue = pc->gue;
	gw->udp[slot].family = pc->family;
	/* the slot is complete before a reader can reach it */
	__atomic_store_n(&slots[udp_port], (uint8_t)slot, __ATOMIC_RELEASE);
	fou_gw_sync(gw);
	return 0;
}

int
fou_port_del(struct fou_gw *gw, const struct fou_port_conf *pc, struct fou_err *err)
{
	const uint16_t udp_port = pc->udp_port;
	unsigned int slot, l;
	uint8_t *slots;
	int ret;

	ret = fou_port_conf_check(pc, err);
	if (ret < 0)
		return ret;
	slots = fou_port_slots(gw, pc->family);
	slot = slots[udp_port];
	if (slot == 0) {
		fou_err_set(err, "UDP port %u is not a FOU port%s", udp_port,
			    fou_port_family(pc->family));
		return -ENOENT;
	}
	if (pc->gue && !gw->udp[slot].gue) {
		fou_err_set(err, "FOU port %u has protocol %u, it is not a GUE port", udp_port,
			    gw->udp[slot].ipproto);
		return -EINVAL;
	}
	if (pc->ipproto != 0 && gw->udp[slot].ipproto != pc->ipproto) {
		if (gw->udp[slot].gue)
			fou_err_set(err, "UDP port %u is a GUE port, not one of protocol %u",
				    udp_port, pc->ipproto);
		else
			fou_err_set(err, "FOU port %u has protocol %u, not %u", udp_port,
				    gw->udp[slot].ipproto, pc->ipproto);
		return -EINVAL;
	}
	__atomic_store_n(&slots[udp_port], 0, __ATOMIC_RELEASE);
	fou_gw_sync(gw);
	/* no worker counts for the slot any more: the next port starts at 0 */
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		__atomic_store_n(&gw->stats[l].decap[slot], 0, __ATOMIC_RELAXED);
		gw->stats_base[l].decap[slot] = 0;
	}
	gw->udp[slot] = (struct fou_udp_port){ 0 };
	return 0;
}

unsigned int
fou_port_list(const struct fou_gw *gw, struct fou_port_info *out, unsigned int n)
{
	unsigned int count = 0, p, f;

	/* by UDP port, a port's IPv4 one before its IPv6 one */
	for (p = 1; p <= UINT16_MAX; p++) {
		for (f = 0; f < 2; f++) {
			uint8_t slot = f == 0 ? gw->udp_slot[p] : gw->udp_slot6[p];

			if (slot == 0)
				continue;
			if (count < n)
				out[count] = (struct fou_port_info){
					.udp_port = (uint16_t)p,
					.ipproto = gw->udp[slot].ipproto,
					.slot = slot,
					.family = gw->udp[slot].family,
					.gue = gw->udp[slot].gue,
				};
			count++;
		}
	}
	return count;
}

/* --- tunnels --------------------------------------------------------- */

void
fou_tunnel_conf_default(struct fou_tunnel_conf *c)
{
	memset(c, 0, sizeof(*c));	/* ttl inherit, tos 0, noencap-csum, no GRE options */
	c->pmtudisc = true;
	c->encap = FOU_ENCAP_FOU;
}

const char *
fou_encap_name(uint8_t encap)
{
	switch (encap) {
	case FOU_ENCAP_NONE:
		return "none";
	case FOU_ENCAP_FOU:
		return "fou";
	case FOU_ENCAP_GUE:
		return "gue";
	default:
		return NULL;
	}
}

/* Tunnel names as Linux interface names; never all digits, so that
 * dev=N stays a DPDK port number. */
static int
fou_tunnel_name_check(const char *name, struct fou_err *err)
{
	size_t i, len = strnlen(name, FOU_TUNNEL_NAMESIZE);
	bool digits = true;

	if (len == 0 || len == FOU_TUNNEL_NAMESIZE) {
		fou_err_set(err, "tunnel name must be 1-%u characters", FOU_TUNNEL_NAMESIZE - 1);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.')) {
			fou_err_set(err, "tunnel name '%s': only letters, digits, '_', '-', '.'",
				    name);
			return -EINVAL;
		}
		digits = digits && ch >= '0' && ch <= '9';
	}
	if (digits) {
		fou_err_set(err, "tunnel name '%s' is all digits (that names a DPDK port)", name);
		return -EINVAL;
	}
	return 0;
}

int
fou_tunnel_find(const struct fou_gw *gw, const char *name)
{
	char key[FOU_TUNNEL_NAMESIZE] = { 0 };
	void *data;

	if (strnlen(name, FOU_TUNNEL_NAMESIZE) == FOU_TUNNEL_NAMESIZE)
		return -ENOENT;
	strcpy(key, name);
	if (rte_hash_lookup_data(gw->tun_names, key, &data) < 0)
		return -ENOENT;
	return (int)(uintptr_t)data;
}

static int
fou_tunnel_conf_check(const struct fou_gw *gw, const struct fou_tunnel_conf *c,
		      struct fou_err *err)
{
	const char *type = fou_proto_name(c->type);
	struct fou_tun_key rxkey;
	const struct fou_addr *a;
	void *data;
	int ret;

	ret = fou_tunnel_name_check(c->name, err);
	if (ret < 0)
		return ret;
	if (fou_tunnel_find(gw, c->name) >= 0) {
		fou_err_set(err, "tunnel %s exists", c->name);
		return -EEXIST;
	}
	if (type == NULL) {
		fou_err_set(err, "tunnel type must be ipip, sit or gre");
		return -EINVAL;
	}
	if (c->local.family != AF_INET || c->remote.family != AF_INET) {
		fou_err_set(err, "local and remote must be IPv4 addresses (the outer header is IPv4)");
		return -EINVAL;
	}
	if (!fou_ip_is_unicast(&c->remote)) {
		fou_err_set(err, "remote %s is not a unicast address", FOU_IPSTR(&c->remote));
		return -EINVAL;
	}
	a = fou_addr_find(gw, &c->local);
	if (a == NULL) {
		fou_err_set(err, "local %s is not an address of the gateway (add it first)",
			    FOU_IPSTR(&c->local));
		return -EADDRNOTAVAIL;
	}
	/* Linux takes any local address; here a config file adds tunnels
	 * before the addresses on tunnels, so it could not be loaded again */
	if (a->tunnel != 0) {
		fou_err_set(err, "local %s is an address of tunnel %s: a tunnel's local must be "
			    "a port's address", FOU_IPSTR(&c->local),
			    gw->tunnels[a->tunnel - 1].conf.name);
		return -EINVAL;
	}
	if (fou_addr_find(gw, &c->remote) != NULL) {
		fou_err_set(err, "remote %s is an address of the gateway", FOU_IPSTR(&c->remote));
		return -EINVAL;
	}
	if (c->ttl != 0 && !c->pmtudisc) {
		/* iproute2: a fixed TTL forces path MTU discovery */
		fou_err_set(err, "nopmtudisc needs ttl=inherit");
		return -EINVAL;
	}
	if (c->encap > FOU_ENCAP_GUE) {
		fou_err_set(err, "encap must be none, fou or gue");
		return -EINVAL;
	}
	if (c->encap != FOU_ENCAP_NONE && c->encap_dport == 0) {
		fou_err_set(err, "encap=%s needs encap-dport", fou_encap_name(c->encap));
		return -EINVAL;
	}
	if (c->encap == FOU_ENCAP_NONE &&
	    (c->encap_dport != 0 || c->encap_sport != 0 || c->encap_csum)) {
		fou_err_set(err, "encap-sport, encap-dport and encap-csum need encap=fou or gue");
		return -EINVAL;
	}
	if (c->type != IPPROTO_GRE && (c->key_set || c->gre_csum || c->gre_seq)) {
		fou_err_set(err, "key, csum and seq are GRE options; tunnel %s is %s", c->name,
			    type);
		return -EINVAL;
	}
	/* ip_tunnel_find: one tunnel per type, endpoints and key, which is
	 * what the receive table matches on */
	fou_tun_key_make(&rxkey, c->type, c->local.v4, c->remote.v4, c->key_set, c->key);
	if (rte_hash_lookup_data(gw->tun_rx, &rxkey, &data) >= 0) {
		fou_err_set(err, "tunnel %s has the same type, endpoints%s",
			    gw->tunnels[(uintptr_t)data].conf.name,
			    c->type == IPPROTO_GRE ? " and key" : "");
		return -EEXIST;
	}
	return 0;
}

/*
 * What follows the outer IP header in the template, for either outer
 * family, from p on: UDP (encap fou or gue), GUE's header, and the GRE
 * header; the flags and offsets that go with them. Returns the end of the
 * header. GUE's is Linux' __gue_build_header without remote checksum
 * offload: version 0, no control bit, no optional fields, the tunnel's
 * protocol (4, 41, 47) and no flags; nothing in it changes per packet.
 */
static uint8_t *
fou_tunnel_template_l4(struct fou_tunnel *t, const struct fou_tunnel_conf *c, uint8_t *p)
{
	uint16_t gflags = 0;

	if (c->encap != FOU_ENCAP_NONE) {
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)p;

		udp->src_port = rte_cpu_to_be_16(c->encap_sport);
		udp->dst_port = rte_cpu_to_be_16(c->encap_dport);
		t->flags |= FOU_TUN_FOU;
		if (c->encap_sport == 0)
			t->flags |= FOU_TUN_SPORT_AUTO;
		if (c->encap_csum)
			t->flags |= FOU_TUN_UDP_CSUM;
		p += sizeof(*udp);
		if (c->encap == FOU_ENCAP_GUE) {
			p[0] = 0;
			p[1] = c->type;
			p[2] = 0;
			p[3] = 0;
			p += FOU_GUE_HLEN;
		}
	}
	t->gre_off = 0;
	t->seq_off = 0;
	if (c->type == IPPROTO_GRE) {
		t->gre_off = (uint8_t)(p - t->hdr);
		p += 4;
		if (c->gre_csum) {
			gflags |= FOU_GRE_C;
			t->flags |= FOU_TUN_GRE_CSUM;
			p += 4;
		}
		if (c->key_set) {
			rte_be32_t key = rte_cpu_to_be_32(c->key);

			gflags |= FOU_GRE_K;
			memcpy(p, &key, 4);
			p += 4;
		}
		if (c->gre_seq) {
			gflags |= FOU_GRE_S;
			t->flags |= FOU_TUN_GRE_SEQ;
			t->seq_off = (uint8_t)(p - t->hdr);
			p += 4;
		}
		t->hdr[t->gre_off] = (uint8_t)(gflags >> 8);
		t->hdr[t->gre_off + 1] = (uint8_t)gflags;
	}
	return p;
}

/* The outer header every packet of the tunnel starts from. */
static void
fou_tunnel_template(struct fou_tunnel *t, const struct fou_tunnel_conf *c)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)t->hdr;
	uint8_t *p;

	memset(t->hdr, 0, sizeof(t->hdr));
	t->flags = 0;
	*ip = (struct rte_ipv4_hdr){
		.version_ihl = RTE_IPV4_VHL_DEF,
		.type_of_service = c->tos_inherit ? 0 : (uint8_t)(c->tos & ~3u),
		.fragment_offset = c->pmtudisc ? rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG) : 0,
		.time_to_live = c->ttl,
		.next_proto_id = c->encap != FOU_ENCAP_NONE ? IPPROTO_UDP : c->type,
		.src_addr = c->local.v4,
		.dst_addr = c->remote.v4,
	};
	if (c->pmtudisc)
		t->flags |= FOU_TUN_PMTUDISC;
	if (c->ttl == 0)
		t->flags |= FOU_TUN_TTL_INHERIT;
	if (c->tos_inherit)
		t->flags |= FOU_TUN_TOS_INHERIT;
	p = fou_tunnel_template_l4(t, c, t->hdr + sizeof(*ip));
	t->hdr_len = (uint8_t)(p - t->hdr);
	t->remote = c->remote.v4;
}

int
fou_tunnel_add(struct fou_gw *gw, const struct fou_tunnel_conf *c, struct fou_err *err)
{
	char key[FOU_TUNNEL_NAMESIZE] = { 0 };
	struct fou_tun_key rxkey;
	struct fou_tunnel *t;
	int64_t slot;
	uint32_t idx;
	int ret;

	ret = fou_tunnel_conf_check(gw, c, err);
	if (ret < 0)
		return ret;
	/* the lowest free slot: the order of the listing, as a scan for it gave */
	slot = fou_idpool_get(gw->tun_ids);
	if (slot < 0) {
		fou_err_set(err, "too many tunnels (at most %u)", gw->params.max_tunnels);
		return -ENOSPC;
	}
	idx = (uint32_t)slot;
	/* complete before the receive table or a route can lead a worker to it */
	t = &gw->tunnels[idx];
	memset(t, 0, sizeof(*t));
	fou_tunnel_template(t, c);
	t->idx = idx;
	t->conf = *c;
	/* a new tunnel starts from its egress port's MTU */
	__atomic_store_n(&gw->tun_pmtu[idx], 0, __ATOMIC_RELAXED);
	strcpy(key, c->name);
	ret = rte_hash_add_key_data(gw->tun_names, key, (void *)(uintptr_t)idx);
	if (ret < 0) {
		fou_idpool_put(gw->tun_ids, idx);
		memset(t, 0, sizeof(*t));
		fou_err_set(err, "cannot add tunnel %s: %s", c->name, strerror(-ret));
		return ret;
	}
	fou_tun_key_make(&rxkey, c->type, c->local.v4, c->remote.v4, c->key_set, c->key);
	ret = rte_hash_add_key_data(gw->tun_rx, &rxkey, (void *)(uintptr_t)idx);
	if (ret < 0) {
		rte_hash_del_key(gw->tun_names, key);
		fou_idpool_put(gw->tun_ids, idx);
		memset(t, 0, sizeof(*t));
		fou_err_set(err, "cannot add tunnel %s: %s", c->name, strerror(-ret));
		return ret;
	}
	t->used = 1;
	/* from now on this type is received only from its tunnels */
	__atomic_store_n(&gw->tun_types[c->type], gw->tun_types[c->type] + 1, __ATOMIC_RELEASE);
	if (c->encap == FOU_ENCAP_NONE && gw->tun_plain[c->type]++ == 0)
		__atomic_store_n(&gw->plain_rx[c->type], 1, __ATOMIC_RELEASE);
	fou_gw_commit(gw);
	return 0;
}

/*
 * As `ip link del NAME`: the tunnel's addresses with their routes, and the
 * routes into the tunnel, go with it. Once the grace period is over no
 * worker can hold the tunnel, and its slot and counters start again from
 * zero for the next one.
 */
int
fou_tunnel_del(struct fou_gw *gw, const char *name, struct fou_err *err)
{
	char key[FOU_TUNNEL_NAMESIZE] = { 0 };
	struct fou_tunnel *t;
	struct fou_tun_key rxkey;
	static const uint8_t families[] = { AF_INET, AF_INET6 };
	const struct fou_tunnel_conf *c;
	unsigned int lc, f;
	int idx = fou_tunnel_find(gw, name);

	if (idx < 0) {
		fou_err_set(err, "no tunnel '%s'", name);
		return -ENODEV;
	}
	t = &gw->tunnels[idx];
	c = &t->conf;
	fou_addr_flush_tunnel(gw, (uint32_t)idx);
	/* the routes into it: those of its next hops, one per family */
	for (f = 0; f < RTE_DIM(families); f++) {
		int nh = fou_nh_find(gw, FOU_NH_TUNNEL, families[f], 0, NULL, (uint32_t)idx);

		while (nh >= 0 && gw->nh_ctl[nh].head != FOU_NONE)
			fou_route_uninstall(gw, gw->nh_ctl[nh].head);
	}
	fou_tun_key_make(&rxkey, c->type, c->local.v4, c->remote.v4, c->key_set, c->key);
	rte_hash_del_key(gw->tun_rx, &rxkey);
	__atomic_store_n(&gw->tun_types[c->type], gw->tun_types[c->type] - 1, __ATOMIC_RELEASE);
	if (c->encap == FOU_ENCAP_NONE && --gw->tun_plain[c->type] == 0)
		__atomic_store_n(&gw->plain_rx[c->type], 0, __ATOMIC_RELEASE);
	strcpy(key, c->name);
	rte_hash_del_key(gw->tun_names, key);
	fou_gw_commit(gw);
	for (lc = 0; lc < RTE_MAX_LCORE; lc++)
		memset(&gw->tun_stats[(size_t)lc * gw->params.max_tunnels + idx], 0,
		       sizeof(struct fou_tun_stats));
	memset(&gw->tun_base[idx], 0, sizeof(gw->tun_base[idx]));
	/* no worker holds the tunnel any more: none can lower its path MTU */
	__atomic_store_n(&gw->tun_pmtu[idx], 0, __ATOMIC_RELAXED);
	memset(t, 0, sizeof(*t));
	fou_idpool_put(gw->tun_ids, (uint32_t)idx);
	return 0;
}

int
fou_tunnel_carries(const struct fou_gw *gw, uint32_t idx, uint8_t family, struct fou_err *err)
{
	const struct fou_tunnel_conf *c = &gw->tunnels[idx].conf;

	if ((c->type == IPPROTO_IPIP && family != AF_INET) ||
	    (c->type == IPPROTO_IPV6 && family != AF_INET6)) {
		fou_err_set(err, "tunnel %s is %s: it carries %s only", c->name,
			    fou_proto_name(c->type), c->type == IPPROTO_IPIP ? "IPv4" : "IPv6");
		return -EINVAL;
	}
	return 0;
}

int
fou_route_add_tunnel(struct fou_gw *gw, const struct fou_ip *prefix, const char *dev,
		     struct fou_err *err)
{
	int idx, ret;

	idx = fou_tunnel_find(gw, dev);
	if (idx < 0) {
		fou_err_set(err, "no tunnel '%s'", dev);
		return -ENODEV;
	}
	ret = fou_prefix_check(prefix, err);
	if (ret == 0)
		ret = fou_tunnel_carries(gw, (uint32_t)idx, prefix->family, err);
	if (ret < 0)
		return ret;
	ret = fou_route_insert(gw, prefix, FOU_NH_TUNNEL, 0, NULL, (uint32_t)idx, false, err);
	fou_gw_commit(gw);
	return ret < 0 ? ret : 0;
}

static void
fou_tunnel_info_fill(const struct fou_gw *gw, const struct fou_tunnel *t, bool since_reset,
		     uint64_t now, struct fou_tunnel_info *ti)
{
	const uint64_t w = __atomic_load_n(&gw->tun_pmtu[t->idx], __ATOMIC_RELAXED);
	const uint64_t hz = rte_get_tsc_hz();
	const struct fou_nexthop *onh;
	uint16_t mtu_nodf;

	memset(ti, 0, sizeof(*ti));
	ti->conf = t->conf;
	ti->overhead = t->hdr_len;
	ti->path_mtu = fou_pmtu_word_mtu(w, now);
	if (ti->path_mtu != 0) {
		uint64_t left = ((w & FOU_PMTU_EXP_MASK) << FOU_PMTU_SHIFT) - now;

		/* whole seconds, rounded up: 0 only once it has expired */
		ti->path_mtu_expires = (uint32_t)((left + hz - 1) / hz);
	}
	switch (fou_tunnel_egress(gw, NULL, t, now, &onh, &ti->mtu, &mtu_nodf)) {
	case FOU_EGRESS_NO_ROUTE:
		ti->unresolved = "no route to remote";
		break;
	case FOU_EGRESS_LOOP:
		ti->unresolved = "remote routed into a tunnel or to the gateway";
		break;
	case FOU_EGRESS_OK:
		break;
	}
	fou_tun_stats_sum(gw, t->idx, since_reset ? &gw->tun_base[t->idx] : NULL, ti);
}

unsigned int
fou_tunnel_list_from(const struct fou_gw *gw, struct fou_tunnel_info *out, unsigned int n,
		     unsigned int offset, bool since_reset)
{
	const uint64_t now = rte_rdtsc();
	unsigned int count = 0;
	uint32_t i;

	for (i = 0; i < gw->params.max_tunnels; i++) {
		if (!gw->tunnels[i].used)
			continue;
		if (count >= offset && count - offset < n)
			fou_tunnel_info_fill(gw, &gw->tunnels[i], since_reset, now,
					     &out[count - offset]);
		count++;
	}
	return count;
}

unsigned int
fou_tunnel_list(const struct fou_gw *gw, struct fou_tunnel_info *out, unsigned int n)
{
	return fou_tunnel_list_from(gw, out, n, 0, false);
}

int
fou_sport_range_set(struct fou_gw *gw, uint16_t min, uint16_t max, struct fou_err *err)
{
	if (min == 0 || min > max) {
		fou_err_set(err, "source port range %u-%u: need 1 <= MIN <= MAX <= 65535", min,
			    max);
		return -EINVAL;
	}
	__atomic_store_n(&gw->sport_range, (uint32_t)min << 16 | max, __ATOMIC_RELAXED);
	fou_gw_commit(gw);
	return 0;
}

void
fou_sport_range_get(const struct fou_gw *gw, uint16_t *min, uint16_t *max)
{
	fou_sport_range_load(gw, min, max);
}
