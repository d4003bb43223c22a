/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The far end of a tunnel, written for it: the Linux commands (iproute2
 * and sysctl, as Debian 12 has them) that make a Linux host the peer of
 * one of the gateway's tunnels, mirrored from the gateway's own state.
 * What the rules are (the peer's address, the routes back, the sysctls)
 * is in the README, "The peer's config". Control side, read only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "fou_ctl.h"

#define FOU_PEER_LINE 512	/* the longest command (ip6gre, every option) fits */

/* The commands as they are made: NUL-separated lines, n of them. */
struct fou_peer_out {
	char *buf;
	size_t len, cap;
	unsigned int n;
	int ret;
	struct fou_err *err;
};

static void
fou_peer_line(struct fou_peer_out *o, const char *fmt, ...) __rte_format_printf(2, 3);

static void
fou_peer_line(struct fou_peer_out *o, const char *fmt, ...)
{
	char line[FOU_PEER_LINE];
	va_list ap;
	size_t l;

	if (o->ret != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	l = strlen(line) + 1;
	if (o->len + l > o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 4096;
		char *b;

		while (cap < o->len + l)
			cap *= 2;
		b = realloc(o->buf, cap);
		if (b == NULL) {
			fou_err_set(o->err, "out of memory");
			o->ret = -ENOMEM;
			return;
		}
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, line, l);
	o->len += l;
	o->n++;
}

/* The IP protocol a FOU port must deliver for tunnel c (FOU has no
 * protocol field); 0 for ip6tnl mode any, which carries two. */
static uint8_t
fou_peer_ipproto(const struct fou_tunnel_conf *c)
{
	return c->type == FOU_TUN_ANY ? 0 : c->type;
}

/*
 * The gateway's receive port for what the peer sends into tunnel c: a FOU
 * port of its inner protocol, or a GUE port, of the outer family (the
 * lowest). -ENOENT, named, where the gateway has none.
 */
static int
fou_peer_dport(const struct fou_gw *gw, const struct fou_tunnel_conf *c, uint16_t *dport,
	       struct fou_err *err)
{
	struct fou_port_info pi[FOU_MAX_UDP_PORTS];
	unsigned int n = fou_port_list(gw, pi, RTE_DIM(pi)), i;
	uint8_t proto = fou_peer_ipproto(c);
	const char *fam = c->local.family == AF_INET6 ? ",family=6" : "";

	n = RTE_MIN(n, (unsigned int)RTE_DIM(pi));
	for (i = 0; i < n; i++) {
		if (pi[i].family != c->local.family)
			continue;
		if (c->encap == FOU_ENCAP_GUE ? pi[i].gue : (!pi[i].gue && pi[i].ipproto == proto)) {
			*dport = pi[i].udp_port;
			return 0;
		}
	}
	if (c->encap == FOU_ENCAP_GUE)
		fou_err_set(err, "tunnel %s: the gateway has no GUE port over IPv%c for the peer "
			    "to send to (add one: port P:gue%s)", c->name,
			    c->local.family == AF_INET6 ? '6' : '4', fam);
	else
		fou_err_set(err, "tunnel %s: the gateway has no FOU port for %s over IPv%c for the "
			    "peer to send to (add one: port P:%s%s)", c->name, fou_proto_name(proto),
			    c->local.family == AF_INET6 ? '6' : '4', fou_proto_name(proto), fam);
	return -ENOENT;
}

/* " WORD VALUE", VALUE `other` (none, inherit) where it is not a number,
 * else v in fmt. */
static int
fou_peer_word(char *s, size_t len, const char *word, const char *other, const char *fmt,
	      unsigned int v)
{
	char num[16];

	if (other != NULL)
		return snprintf(s, len, " %s %s", word, other);
	snprintf(num, sizeof(num), fmt, v);
	return snprintf(s, len, " %s %s", word, num);
}

/* ip's words for an IPv4-underlay tunnel's outer header: TTL, TOS, DF. */
static int
fou_peer_outer4(const struct fou_tunnel_conf *c, char *s, size_t len)
{
	int n;

	n = fou_peer_word(s, len, "ttl", c->ttl == 0 ? "inherit" : NULL, "%u", c->ttl);
	if (c->tos_inherit || c->tos != 0)
		n += fou_peer_word(s + n, len - n, "tos", c->tos_inherit ? "inherit" : NULL,
				   "0x%02x", c->tos);
	if (!c->pmtudisc)
		n += snprintf(s + n, len - n, " nopmtudisc");
	return n;
}

/* ip's words for an IPv6-underlay tunnel's outer header, every one said. */
static int
fou_peer_outer6(const struct fou_tunnel_conf *c, char *s, size_t len)
{
	int n;

	n = fou_peer_word(s, len, "hoplimit", c->ttl == 0 ? "inherit" : NULL, "%u", c->ttl);
	n += fou_peer_word(s + n, len - n, "encaplimit", c->encaplimit < 0 ? "none" : NULL, "%u",
			   (unsigned int)c->encaplimit);
	n += fou_peer_word(s + n, len - n, "tclass", c->tos_inherit ? "inherit" : NULL, "0x%02x",
			   c->tos);
	n += fou_peer_word(s + n, len - n, "flowlabel", c->flowlabel_inherit ? "inherit" : NULL,
			   "0x%05x", c->flowlabel);
	return n;
}

/*
 * The GRE words, mirrored: the gateway's key is sent and required (key =
 * ikey + okey on both sides); its checksum is sent and required (csum);
 * its `seq` is sent only (oseq), and it takes packets with or without
 * sequence numbers: so the peer requires them (iseq) and sends none.
 */
static int
fou_peer_gre(const struct fou_tunnel_conf *c, char *s, size_t len)
{
	int n = 0;

	if (c->type != IPPROTO_GRE)
		return 0;
	if (c->key_set)
		n += snprintf(s + n, len - n, " key %u", c->key);
	if (c->gre_csum)
		n += snprintf(s + n, len - n, " csum");
	if (c->gre_seq)
		n += snprintf(s + n, len - n, " iseq");
	return n;
}

/* `ip fou add` and `ip link add` of the peer's side of tunnel c. */
static void
fou_peer_link(const struct fou_gw *gw, const struct fou_tunnel_conf *c, struct fou_peer_out *o)
{
	bool six = c->local.family == AF_INET6;
	const char *mode = fou_tunnel_mode_name(c);
	char opts[FOU_PEER_LINE];
	uint16_t dport = 0;
	int n;

	if (c->encap == FOU_ENCAP_FOU && fou_peer_ipproto(c) == 0) {
		fou_err_set(o->err, "tunnel %s: ip6tnl mode any over FOU sends IPv4 and IPv6 to one "
			    "port, and a Linux FOU port delivers one protocol: no peer can take "
			    "both (use encap gue)", c->name);
		o->ret = -EINVAL;
		return;
	}
	if (c->encap != FOU_ENCAP_NONE) {
		o->ret = fou_peer_dport(gw, c, &dport, o->err);
		if (o->ret < 0)
			return;
		if (c->encap == FOU_ENCAP_GUE)
			fou_peer_line(o, "ip fou add port %u gue%s", c->encap_dport,
				      six ? " -6" : "");
		else
			fou_peer_line(o, "ip fou add port %u ipproto %u%s", c->encap_dport,
				      fou_peer_ipproto(c), six ? " -6" : "");
	}
	n = six ? fou_peer_outer6(c, opts, sizeof(opts)) : fou_peer_outer4(c, opts, sizeof(opts));
	n += fou_peer_gre(c, opts + n, sizeof(opts) - n);
	if (c->encap != FOU_ENCAP_NONE) {
		n += snprintf(opts + n, sizeof(opts) - n, " encap %s", fou_encap_name(c->encap));
		if (c->encap_sport == 0)
			n += snprintf(opts + n, sizeof(opts) - n, " encap-sport auto");
		else
			n += snprintf(opts + n, sizeof(opts) - n, " encap-sport %u", c->encap_sport);
		n += snprintf(opts + n, sizeof(opts) - n, " encap-dport %u", dport);
		if (six)
			snprintf(opts + n, sizeof(opts) - n, " %s",
				 c->encap_csum6 ? "encap-udp6-csum" : "noencap-udp6-csum");
		else
			snprintf(opts + n, sizeof(opts) - n, " %s",
				 c->encap_csum ? "encap-csum" : "noencap-csum");
	}
	fou_peer_line(o, "ip link add %s type %s%s%s local %s remote %s%s", c->name,
		      fou_tunnel_type_name(c), mode != NULL ? " mode " : "",
		      mode != NULL ? mode : "", FOU_IPSTR(&c->remote), FOU_IPSTR(&c->local), opts);
}

/* The address after ip (ip + 1); false past the last of the family. */
static bool
fou_peer_ip_next(struct fou_ip *ip)
{
	uint8_t *b = ip->family == AF_INET ? (uint8_t *)&ip->v4 : ip->v6;
	int i;

	for (i = fou_ip_maxlen(ip) / 8 - 1; i >= 0; i--)
		if (++b[i] != 0)
			return true;
	return false;
}

/*
 * The peer's address on the network of a, the gateway's address on the
 * tunnel: the other address of a /31 (/127, RFC 3021 / RFC 6164); else
 * the first host address of the network that is none of the gateway's
 * (IPv4: from network + 1 to broadcast - 1, so in a /30 the other host;
 * IPv6: from network + 1, the subnet-router anycast address being the
 * network's own). A /32 (/128) leaves no address for the peer.
 */
static int
fou_peer_addr(const struct fou_gw *gw, const char *tunnel, const struct fou_ip *a,
	      struct fou_ip *peer, struct fou_err *err)
{
	uint8_t max = fou_ip_maxlen(a);
	rte_be32_t bcast;

	*peer = *a;
	if (a->plen == max) {
		fou_err_set(err, "tunnel %s: address %s/%u leaves no address for the peer "
			    "(a /%u of the gateway's own)", tunnel, FOU_IPSTR(a), a->plen, max);
		return -EINVAL;
	}
	if (a->plen == max - 1) {
		uint8_t *b = a->family == AF_INET ? (uint8_t *)&peer->v4 : peer->v6;

		b[max / 8 - 1] ^= 1;
		return 0;
	}
	fou_ip_mask(peer, a->plen);
	/* IPv4: its network's broadcast address is no host's (plen < 31 here) */
	bcast = a->family == AF_INET ? peer->v4 | rte_cpu_to_be_32(UINT32_MAX >> a->plen) : 0;
	while (fou_peer_ip_next(peer) && fou_prefix_contains(a, peer) &&
	       (a->family != AF_INET || peer->v4 != bcast)) {
		if (fou_addr_find(gw, peer) == NULL)
			return 0;
	}
	fou_err_set(err, "tunnel %s: every host address of %s/%u is the gateway's: none left "
		    "for the peer", tunnel, FOU_IPSTR(a), a->plen);
	return -EADDRINUSE;
}

/* Address families as bits: IPv4, IPv6. */
#define FOU_PEER_V4 1u
#define FOU_PEER_V6 2u

static unsigned int
fou_peer_fam_bit(uint8_t family)
{
	return family == AF_INET ? FOU_PEER_V4 : FOU_PEER_V6;
}

/* Is p (address and length) in list[0..n)? */
static bool
fou_peer_seen(const struct fou_ip *list, unsigned int n, const struct fou_ip *p)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (list[i].plen == p->plen && fou_ip_equal(&list[i], p))
			return true;
	return false;
}

/*
 * Is prefix p one the peer should route back into the tunnel: of a
 * family the gateway uses the tunnel for, not the default route, not
 * containing the tunnel's outer addresses (the peer would route the
 * tunnel into itself), not already in the list (routes[0..n))?
 */
static bool
fou_peer_route_ok(const struct fou_tunnel_conf *c, unsigned int fams, const struct fou_ip *p,
		  const struct fou_ip *routes, unsigned int n)
{
	return (fams & fou_peer_fam_bit(p->family)) && p->plen != 0 &&
	       !fou_prefix_contains(p, &c->local) && !fou_prefix_contains(p, &c->remote) &&
	       !fou_peer_seen(routes, n, p);
}

/*
 * The metric of the routes back of family: the lowest of the gateway's
 * route statements of that family into the tunnel, else of any family;
 * -1 (none: Linux's default) where there is none or it is 0 (Linux takes
 * an IPv6 metric 0 as 1024). Two tunnels to one peer that back each other
 * up then have the same order on both sides, and their routes back to one
 * network do not collide (Linux refuses a second route of one metric).
 */
static int
fou_peer_metric(const char *tunnel, uint8_t family, const struct fou_route_info *ri,
		unsigned int nr)
{
	int64_t fam = -1, any = -1;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (ri[i].from_addr || strcmp(ri[i].tunnel, tunnel) != 0)
			continue;
		if (any < 0 || ri[i].metric < any)
			any = ri[i].metric;
		if (ri[i].prefix.family == family && (fam < 0 || ri[i].metric < fam))
			fam = ri[i].metric;
	}
	if (fam < 0)
		fam = any;
	return fam > 0 && fam <= INT32_MAX ? (int)fam : -1;
}

/* sysctl's key: dots between the parts, or slashes where the device name
 * has a dot of its own (procps and busybox take either). */
static void
fou_peer_sysctl(struct fou_peer_out *o, const char *fam, const char *dev, const char *key,
		int v)
{
	if (strchr(dev, '.') != NULL)
		fou_peer_line(o, "sysctl -w net/%s/conf/%s/%s=%d", fam, dev, key, v);
	else
		fou_peer_line(o, "sysctl -w net.%s.conf.%s.%s=%d", fam, dev, key, v);
}

int
fou_peer_config(const struct fou_gw *gw, const char *name, fou_peer_cb cb, void *ctx,
		struct fou_err *err)
{
	struct fou_peer_out o = { .err = err };
	const struct fou_tunnel_conf *c;
	struct fou_addr_info *ai = NULL;
	struct fou_route_info *ri = NULL;
	struct fou_ip *back = NULL;
	const struct fou_addr *la;
	unsigned int na, nr, nb = 0, i, fams = 0;
	int idx, metric;
	size_t off;

	idx = fou_tunnel_find(gw, name);
	if (idx < 0) {
		fou_err_set(err, "no tunnel '%s'", name);
		return -ENOENT;
	}
	c = &gw->tunnels[idx].conf;
	na = fou_addr_list(gw, NULL, 0);
	nr = fou_route_list(gw, NULL, 0, 0);
	ai = calloc(na + 1, sizeof(*ai));
	ri = calloc(nr + 1, sizeof(*ri));
	back = calloc(na + nr + 1, sizeof(*back));
	if (ai == NULL || ri == NULL || back == NULL) {
		fou_err_set(err, "out of memory");
		o.ret = -ENOMEM;
		goto out;
	}
	na = RTE_MIN(na, fou_addr_list(gw, ai, na));
	nr = RTE_MIN(nr, fou_route_list(gw, ri, nr, 0));

	/* the families the gateway uses the tunnel for: its addresses on it,
	 * its routes into it */
	for (i = 0; i < na; i++)
		if (strcmp(ai[i].tunnel, name) == 0)
			fams |= fou_peer_fam_bit(ai[i].ip.family);
	for (i = 0; i < nr; i++)
		if (strcmp(ri[i].tunnel, name) == 0)
			fams |= fou_peer_fam_bit(ri[i].prefix.family);
	if (fou_tunnel_carries(gw, (uint32_t)idx, AF_INET, NULL) < 0)
		fams &= ~FOU_PEER_V4;
	if (fou_tunnel_carries(gw, (uint32_t)idx, AF_INET6, NULL) < 0)
		fams &= ~FOU_PEER_V6;

	fou_peer_link(gw, c, &o);
	/* the peer's addresses go through back[] first: two of the gateway's
	 * addresses on one network give the peer one */
	for (i = 0; i < na && o.ret == 0; i++) {
		struct fou_ip peer;

		if (strcmp(ai[i].tunnel, name) != 0)
			continue;
		o.ret = fou_peer_addr(gw, name, &ai[i].ip, &peer, err);
		if (o.ret == 0 && !fou_peer_seen(back, nb, &peer)) {
			back[nb++] = peer;
			fou_peer_line(&o, "ip addr add %s/%u dev %s", FOU_IPSTR(&peer), peer.plen,
				      name);
		}
	}
	nb = 0;
	fou_peer_line(&o, "ip link set %s up", name);

	/* the routes back: the networks behind the gateway's ports (their
	 * addresses' and the routes out of them), but for the port of the
	 * tunnel's local address, the underlay, which the peer reaches
	 * directly */
	la = fou_addr_find(gw, &c->local);
	for (i = 0; i < na + nr; i++) {
		struct fou_ip p;

		if (i < na) {
			if (ai[i].tunnel[0] != '\0' || (la != NULL && ai[i].port == la->port))
				continue;
			p = ai[i].ip;
			fou_ip_mask(&p, p.plen);
		} else {
			const struct fou_route_info *r = &ri[i - na];

			if (r->from_addr || r->tunnel[0] != '\0' ||
			    (la != NULL && r->port == la->port))
				continue;
			p = r->prefix;
		}
		if (fou_peer_route_ok(c, fams, &p, back, nb))
			back[nb++] = p;
	}
	for (i = 0; i < nb; i++) {
		metric = fou_peer_metric(name, back[i].family, ri, nr);
		if (metric >= 0)
			fou_peer_line(&o, "ip route add %s/%u dev %s metric %d", FOU_IPSTR(&back[i]),
				      back[i].plen, name, metric);
		else
			fou_peer_line(&o, "ip route add %s/%u dev %s", FOU_IPSTR(&back[i]),
				      back[i].plen, name);
	}

	/* what the probes through the peer need: forwarding, and a loose
	 * reverse path check on the tunnel */
	if (fams & FOU_PEER_V4) {
		fou_peer_line(&o, "sysctl -w net.ipv4.ip_forward=1");
		fou_peer_sysctl(&o, "ipv4", name, "rp_filter", 2);
	}
	if (fams & FOU_PEER_V6)
		fou_peer_line(&o, "sysctl -w net.ipv6.conf.all.forwarding=1");

	/* all made: only now does the caller see them */
	for (off = 0, i = 0; o.ret == 0 && i < o.n; i++) {
		o.ret = cb(ctx, o.buf + off, err);
		off += strlen(o.buf + off) + 1;
	}
out:
	free(o.buf);
	free(back);
	free(ri);
	free(ai);
	return o.ret;
}
