/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tunnel endpoints: the FOU receive ports (`ip fou add`), the tunnels
 * (`ip link add ... type ipip|sit|gre|ip6tnl|ip6gre ... encap fou|gue`) with their receive
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
#include "fou_plpmtu.h"
#include "fou_probe.h"

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
	c->probe_interval_ms = FOU_PROBE_INTERVAL_DEFAULT;
	c->probe_timeout = FOU_PROBE_TIMEOUT_DEFAULT;
}

void
fou_tunnel_conf_default6(struct fou_tunnel_conf *c)
{
	/* iproute2's link_ip6tnl.c / link_gre6.c: ip6ip6, hoplimit 64
	 * (DEFAULT_TNL_HOP_LIMIT), encaplimit 4 (IPV6_DEFAULT_TNL_ENCAP_LIMIT),
	 * and TUNNEL_ENCAP_FLAG_CSUM6 set */
	fou_tunnel_conf_default(c);
	c->pmtudisc = false;	/* IPv6 is never fragmented on the way */
	c->type = IPPROTO_IPV6;
	c->local.family = AF_INET6;
	c->remote.family = AF_INET6;
	c->ttl = 64;
	c->encaplimit = 4;
	c->encap_csum6 = true;
}

const char *
fou_tunnel_type_name(const struct fou_tunnel_conf *c)
{
	if (c->local.family != AF_INET6)
		return fou_proto_name(c->type);
	return c->type == IPPROTO_GRE ? "ip6gre" : "ip6tnl";
}

const char *
fou_tunnel_mode_name(const struct fou_tunnel_conf *c)
{
	if (c->local.family != AF_INET6)
		return NULL;
	switch (c->type) {
	case IPPROTO_IPIP:
		return "ipip6";
	case IPPROTO_IPV6:
		return "ip6ip6";
	case FOU_TUN_ANY:
		return "any";
	default:
		return NULL;
	}
}

/* The inner protocols (IP protocol numbers) a tunnel carries: n of them. */
static unsigned int
fou_tunnel_protos(const struct fou_tunnel_conf *c, uint8_t protos[2])
{
	if (c->type == FOU_TUN_ANY) {
		protos[0] = IPPROTO_IPIP;
		protos[1] = IPPROTO_IPV6;
		return 2;
	}
	protos[0] = c->type;
	return 1;
}

/* The receive table key of a tunnel over IPv6 (fou_private.h's rule). */
static void
fou_tunnel_key6(struct fou_tun_key6 *k, const struct fou_tunnel_conf *c)
{
	fou_tun_key6_make(k, c->type == IPPROTO_GRE ? IPPROTO_GRE : FOU_TUN6_IP6TNL,
			  c->local.v6, c->remote.v6, c->key_set, c->key);
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

/* What only an IPv6-underlay tunnel (ip6tnl, ip6gre) has to satisfy. */
static int
fou_tunnel_conf_check6(const struct fou_gw *gw, const struct fou_tunnel_conf *c,
		       struct fou_err *err)
{
	struct fou_tun_key6 rxkey;
	void *data;

	if (c->type != IPPROTO_IPIP && c->type != IPPROTO_IPV6 && c->type != FOU_TUN_ANY &&
	    c->type != IPPROTO_GRE) {
		fou_err_set(err, "tunnel type must be ip6tnl (mode ipip6, ip6ip6 or any) or ip6gre");
		return -EINVAL;
	}
	if (c->remote.v6[0] == 0xfe && (c->remote.v6[1] & 0xc0) == 0x80) {
		/* Linux binds such a tunnel to a link; here it has none */
		fou_err_set(err, "remote %s is link-local: not supported", FOU_IPSTR(&c->remote));
		return -EINVAL;
	}
	if (c->pmtudisc) {
		fou_err_set(err, "pmtudisc is an IPv4 underlay's option (IPv6 always sends "
			    "without fragmenting)");
		return -EINVAL;
	}
	if (c->encap_csum) {
		fou_err_set(err, "encap-csum is the IPv4 underlay's UDP checksum: over IPv6 "
			    "encap-udp6-csum decides");
		return -EINVAL;
	}
	if (c->encaplimit < -1 || c->encaplimit > UINT8_MAX) {
		fou_err_set(err, "encaplimit must be none or 0-255");
		return -EINVAL;
	}
	if (c->flowlabel > 0xfffff) {
		fou_err_set(err, "flowlabel 0x%x is wider than 20 bits", c->flowlabel);
		return -EINVAL;
	}
	if (c->encap == FOU_ENCAP_NONE && c->encap_csum6) {
		fou_err_set(err, "encap-udp6-csum needs encap=fou or gue");
		return -EINVAL;
	}
	/* ip6_tnl_locate: one ip6tnl per address pair, whatever its mode;
	 * ip6gre_tunnel_locate: one ip6gre per address pair and key */
	fou_tunnel_key6(&rxkey, c);
	if (rte_hash_lookup_data(gw->tun_rx6, &rxkey, &data) >= 0) {
		fou_err_set(err, "tunnel %s has the same endpoints%s",
			    gw->tunnels[(uintptr_t)data].conf.name,
			    c->type == IPPROTO_GRE ? " and key" : " (one ip6tnl per address pair)");
		return -EEXIST;
	}
	return 0;
}

/* The same over IPv4 (ipip, sit, gre). */
static int
fou_tunnel_conf_check4(const struct fou_gw *gw, const struct fou_tunnel_conf *c,
		       struct fou_err *err)
{
	struct fou_tun_key rxkey;
	void *data;

	if (fou_proto_name(c->type) == NULL) {
		fou_err_set(err, "tunnel type must be ipip, sit or gre");
		return -EINVAL;
	}
	if (c->ttl != 0 && !c->pmtudisc) {
		/* iproute2: a fixed TTL forces path MTU discovery */
		fou_err_set(err, "nopmtudisc needs ttl=inherit");
		return -EINVAL;
	}
	if (c->encap_csum6 || c->encaplimit != 0 || c->flowlabel_inherit || c->flowlabel != 0) {
		fou_err_set(err, "encap-udp6-csum, encaplimit and flowlabel are options of an "
			    "IPv6 underlay (ip6tnl, ip6gre)");
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

static int
fou_tunnel_conf_check(const struct fou_gw *gw, const struct fou_tunnel_conf *c,
		      struct fou_err *err)
{
	const bool six = c->local.family == AF_INET6;
	const struct fou_addr *a;
	int ret;

	ret = fou_tunnel_name_check(c->name, err);
	if (ret < 0)
		return ret;
	if (fou_tunnel_find(gw, c->name) >= 0) {
		fou_err_set(err, "tunnel %s exists", c->name);
		return -EEXIST;
	}
	if ((c->local.family != AF_INET && !six) || c->remote.family != c->local.family) {
		fou_err_set(err, "local and remote must be both IPv4 (ipip, sit, gre) or both "
			    "IPv6 (ip6tnl, ip6gre) addresses");
		return -EINVAL;
	}
	ret = six ? fou_tunnel_conf_check6(gw, c, err) : fou_tunnel_conf_check4(gw, c, err);
	if (ret < 0)
		return ret;
	if (c->probe_interval_ms < FOU_PROBE_INTERVAL_MIN ||
	    c->probe_interval_ms > FOU_PROBE_INTERVAL_MAX || c->probe_timeout == 0) {
		fou_err_set(err, "probe interval %u ms must be %u-%u, timeout %u 1-255",
			    c->probe_interval_ms, FOU_PROBE_INTERVAL_MIN, FOU_PROBE_INTERVAL_MAX,
			    c->probe_timeout);
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
			    fou_tunnel_type_name(c));
		return -EINVAL;
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
fou_tunnel_template_l4(struct fou_tunnel *t, const struct fou_tunnel_conf *c, uint8_t *base,
		       uint8_t *p)
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
		t->gre_off = (uint8_t)(p - base);
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
			t->seq_off = (uint8_t)(p - base);
			p += 4;
		}
		base[t->gre_off] = (uint8_t)(gflags >> 8);
		base[t->gre_off + 1] = (uint8_t)gflags;
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
	p = fou_tunnel_template_l4(t, c, t->hdr, t->hdr + sizeof(*ip));
	t->hdr_len = (uint8_t)(p - t->hdr);
	t->remote = c->remote.v4;
}

/*
 * The same for an IPv6 underlay: IPv6 with the configured traffic class,
 * flow label and hop limit, the Destination Options header carrying the
 * Tunnel Encapsulation Limit where one is set (Linux' ip6_tnl_xmit puts
 * it right after IPv6, before UDP: type 4, length 1, the limit, then PadN
 * of 1 byte), then what fou_tunnel_template_l4() adds. The version nibble
 * in t->hdr[0] says that the header is in t->v6.
 */
static void
fou_tunnel_template6(struct fou_tunnel *t, const struct fou_tunnel_conf *c)
{
	struct fou_tunnel6 *t6 = &t->v6;
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)t6->hdr;
	const uint8_t tclass = c->tos_inherit ? 0 : (uint8_t)(c->tos & ~3u);
	/* the inner protocol where the packet names it: encap none */
	const uint8_t inner = c->type == IPPROTO_GRE ? IPPROTO_GRE : c->type;
	uint8_t *p, *last_nh;

	memset(t->hdr, 0, sizeof(t->hdr));
	memset(t6, 0, sizeof(*t6));
	t->flags = 0;
	t6->flow = (uint32_t)tclass << 20 | (c->flowlabel_inherit ? 0 : c->flowlabel);
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28 | t6->flow);
	ip6->hop_limits = c->ttl;
	memcpy(ip6->src_addr, c->local.v6, 16);
	memcpy(ip6->dst_addr, c->remote.v6, 16);
	last_nh = &ip6->proto;
	p = t6->hdr + sizeof(*ip6);
	if (c->encaplimit >= 0) {
		*last_nh = IPPROTO_DSTOPTS;
		last_nh = p;
		p[1] = 0;		/* 8 bytes */
		p[2] = 4;		/* IPV6_TLV_TNL_ENCAP_LIMIT */
		p[3] = 1;
		p[4] = (uint8_t)c->encaplimit;
		p[5] = 1;		/* PadN */
		p[6] = 1;
		p[7] = 0;
		p += FOU_IP6_DSTOPT_LEN;
	}
	t6->l4_off = (uint8_t)(p - t6->hdr);
	*last_nh = c->encap != FOU_ENCAP_NONE ? IPPROTO_UDP : inner;
	/* FOU names no protocol: mode any sends both to the one port */
	t6->proto_off = c->encap == FOU_ENCAP_NONE ? (uint8_t)(last_nh - t6->hdr) :
			c->encap == FOU_ENCAP_GUE ?
			(uint8_t)(t6->l4_off + sizeof(struct rte_udp_hdr) + 1) : 0;
	p = fou_tunnel_template_l4(t, c, t6->hdr, p);
	if (c->encap != FOU_ENCAP_NONE && c->encap_csum6)
		t->flags |= FOU_TUN_UDP_CSUM;
	if (c->ttl == 0)
		t->flags |= FOU_TUN_TTL_INHERIT;
	if (c->tos_inherit)
		t->flags |= FOU_TUN_TOS_INHERIT;
	if (c->flowlabel_inherit)
		t6->flags6 |= FOU_TUN6_FLOW_INHERIT;
	else if (c->flowlabel == 0)
		t6->flags6 |= FOU_TUN6_FLOW_AUTO;
	if (c->type == FOU_TUN_ANY)
		t6->flags6 |= FOU_TUN6_ANY;
	t->hdr_len = (uint8_t)(p - t6->hdr);
	t->hdr[0] = 0x60;	/* see fou_tunnel_is6() */
	t->hdr[1] = c->type;	/* fou_tunnel6_type() */
	t->remote = 0;
}

/* The receive side's view of the tunnel: its key in the table of its
 * family and the counts of its types; add or take away. */
static int
fou_tunnel_rx_publish(struct fou_gw *gw, const struct fou_tunnel_conf *c, uint32_t idx,
		      bool add)
{
	uint8_t protos[2];
	unsigned int i, n;
	int ret;

	if (c->local.family == AF_INET) {
		struct fou_tun_key rxkey;

		fou_tun_key_make(&rxkey, c->type, c->local.v4, c->remote.v4, c->key_set, c->key);
		if (add) {
			ret = rte_hash_add_key_data(gw->tun_rx, &rxkey, (void *)(uintptr_t)idx);
			if (ret < 0)
				return ret;
		} else {
			rte_hash_del_key(gw->tun_rx, &rxkey);
		}
		/* from now on this type is received only from its tunnels */
		__atomic_store_n(&gw->tun_types[c->type], gw->tun_types[c->type] + (add ? 1 : -1),
				 __ATOMIC_RELEASE);
		if (c->encap == FOU_ENCAP_NONE && add && gw->tun_plain[c->type]++ == 0)
			__atomic_store_n(&gw->plain_rx[c->type], 1, __ATOMIC_RELEASE);
		if (c->encap == FOU_ENCAP_NONE && !add && --gw->tun_plain[c->type] == 0)
			__atomic_store_n(&gw->plain_rx[c->type], 0, __ATOMIC_RELEASE);
		return 0;
	}
	struct fou_tun_key6 rxkey6;

	fou_tunnel_key6(&rxkey6, c);
	if (add) {
		ret = rte_hash_add_key_data(gw->tun_rx6, &rxkey6, (void *)(uintptr_t)idx);
		if (ret < 0)
			return ret;
	} else {
		rte_hash_del_key(gw->tun_rx6, &rxkey6);
	}
	__atomic_store_n(&gw->tun_types6[rxkey6.type], gw->tun_types6[rxkey6.type] +
			 (add ? 1 : -1), __ATOMIC_RELEASE);
	if (c->encap != FOU_ENCAP_NONE)
		return 0;
	/* plain: the outer next header is the inner protocol (4, 41, 47) */
	n = fou_tunnel_protos(c, protos);
	for (i = 0; i < n; i++) {
		if (add && gw->tun_plain6[protos[i]]++ == 0)
			__atomic_store_n(&gw->plain_rx6[protos[i]], 1, __ATOMIC_RELEASE);
		if (!add && --gw->tun_plain6[protos[i]] == 0)
			__atomic_store_n(&gw->plain_rx6[protos[i]], 0, __ATOMIC_RELEASE);
	}
	return 0;
}

int
fou_tunnel_add(struct fou_gw *gw, const struct fou_tunnel_conf *c, struct fou_err *err)
{
	char key[FOU_TUNNEL_NAMESIZE] = { 0 };
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
	if (c->local.family == AF_INET6)
		fou_tunnel_template6(t, c);
	else
		fou_tunnel_template(t, c);
	t->idx = idx;
	t->conf = *c;
	/* a new tunnel starts from its egress port's MTU */
	__atomic_store_n(&gw->tun_pmtu[idx].word, 0, __ATOMIC_RELAXED);
	fou_plpmtu_tunnel_reset(gw, idx);
	strcpy(key, c->name);
	/* its health starts from unknown (probe=on) */
	ret = fou_probe_tunnel_reset(gw, idx);
	if (ret == 0)
		ret = rte_hash_add_key_data(gw->tun_names, key, (void *)(uintptr_t)idx);
	if (ret == 0) {
		ret = fou_tunnel_rx_publish(gw, c, idx, true);
		if (ret < 0)
			rte_hash_del_key(gw->tun_names, key);
	}
	if (ret < 0) {
		fou_idpool_put(gw->tun_ids, idx);
		memset(t, 0, sizeof(*t));
		fou_err_set(err, "cannot add tunnel %s: %s", c->name, strerror(-ret));
		return ret;
	}
	t->used = 1;
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
	fou_tunnel_rx_publish(gw, c, (uint32_t)idx, false);
	strcpy(key, c->name);
	rte_hash_del_key(gw->tun_names, key);
	fou_gw_commit(gw);
	for (lc = 0; lc < RTE_MAX_LCORE; lc++)
		memset(&gw->tun_stats[(size_t)lc * gw->params.max_tunnels + idx], 0,
		       sizeof(struct fou_tun_stats));
	memset(&gw->tun_base[idx], 0, sizeof(gw->tun_base[idx]));
	/* no worker holds the tunnel any more: none can lower its path MTU */
	__atomic_store_n(&gw->tun_pmtu[idx].word, 0, __ATOMIC_RELAXED);
	fou_plpmtu_tunnel_reset(gw, (uint32_t)idx);
	memset(t, 0, sizeof(*t));
	fou_probe_tunnel_reset(gw, (uint32_t)idx);	/* probe off now: freed */
	fou_idpool_put(gw->tun_ids, (uint32_t)idx);
	return 0;
}

int
fou_tunnel_carries(const struct fou_gw *gw, uint32_t idx, uint8_t family, struct fou_err *err)
{
	const struct fou_tunnel_conf *c = &gw->tunnels[idx].conf;

	/* ip6tnl mode any and ip6gre carry both, as gre does */
	if ((c->type == IPPROTO_IPIP && family != AF_INET) ||
	    (c->type == IPPROTO_IPV6 && family != AF_INET6)) {
		const char *mode = fou_tunnel_mode_name(c);

		fou_err_set(err, "tunnel %s is %s%s%s: it carries %s only", c->name,
			    fou_tunnel_type_name(c), mode != NULL ? " mode " : "",
			    mode != NULL ? mode : "", c->type == IPPROTO_IPIP ? "IPv4" : "IPv6");
		return -EINVAL;
	}
	return 0;
}

static void
fou_tunnel_info_fill(const struct fou_gw *gw, const struct fou_tunnel *t, bool since_reset,
		     uint64_t now, struct fou_tunnel_info *ti)
{
	const uint64_t w = __atomic_load_n(&gw->tun_pmtu[t->idx].word, __ATOMIC_RELAXED);
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
	ti->probed_mtu = gw->tun_pmtu[t->idx].probed;
	ti->mtu_search = fou_plpmtu_state_name(gw->plpmtu[t->idx].s.state);
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
	ti->health = fou_health_name(fou_probe_health(gw, t->idx));
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
