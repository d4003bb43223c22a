/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The statement vocabulary: `port 5555:ipip`, `addr 0,10.0.0.1/24`, `addr t1,192.168.4.1/30`,
 * `route 10.1.0.0/16,dev=1,via=10.0.1.254`, `neigh 10.0.1.254,dev=1,lladdr=MAC`,
 * `link 1,address=MAC,mtu=1500`, `tunnel t1,type=ipip,local=..,remote=..,
 * encap-dport=5555`, `route 10.2.0.0/16,dev=t1`, `sport-range`, `icmp-rate`.
 * The command line (app/args.c), the config file and telemetry
 * (fou_telemetry.c) hand (name, argument) here; nothing else parses them.
 * Text layer: it calls fou.h's control functions and includes only the
 * public headers.
 *
 * An argument is comma-separated: positional fields first, then key=value
 * pairs and bare words (flags such as pmtudisc) with iproute2's names.
 * Unknown, repeated or empty keys are errors.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_string_fns.h>

#include "fou_stmt.h"

#define FOU_STMT_MAX_FIELDS 24

/* --- argument splitting ----------------------------------------------- */

struct fou_fields {
	char buf[FOU_ERR_LEN];
	unsigned int npos, nkv;
	char *pos[FOU_STMT_MAX_FIELDS];
	char *key[FOU_STMT_MAX_FIELDS];
	char *val[FOU_STMT_MAX_FIELDS];
};

/* One form of a statement: its add (or set), or its delete. */
struct fou_stmt_form {
	const char *usage;
	unsigned int npos;			/* positional fields, all required */
	const char *keys[FOU_STMT_MAX_FIELDS];	/* allowed keys, NULL-terminated */
	const char *flags[FOU_STMT_MAX_FIELDS];	/* allowed words without a value */
	int (*apply)(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err);
	const char *tel_help;			/* of /fou/NAME/add|set|del */
};

struct fou_stmt {
	const char *name;
	const char *help;
	struct fou_stmt_form add, del;		/* del.apply NULL: only set */
};

static int
fou_fields_split(const struct fou_stmt_form *st, const char *arg, struct fou_fields *f,
		 struct fou_err *err)
{
	char *tok, *save = NULL;
	unsigned int i, k;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = fou_parse_fields_copy(f->buf, sizeof(f->buf), arg, err);
	if (ret < 0)
		return ret;
	for (tok = strtok_r(f->buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL && f->nkv == 0 && f->npos < st->npos) {
			f->pos[f->npos++] = tok;
			continue;
		}
		if (eq == NULL) {
			for (k = 0; st->flags[k] != NULL; k++)
				if (strcmp(st->flags[k], tok) == 0)
					break;
			if (st->flags[k] == NULL) {
				fou_err_set(err, "unexpected '%s' (usage: %s)", tok, st->usage);
				return -EINVAL;
			}
			eq = tok + strlen(tok);	/* a flag: present, empty value */
		} else {
			*eq = '\0';
			for (k = 0; st->keys[k] != NULL; k++)
				if (strcmp(st->keys[k], tok) == 0)
					break;
			if (st->keys[k] == NULL) {
				fou_err_set(err, "unknown parameter '%s' (usage: %s)", tok,
					    st->usage);
				return -EINVAL;
			}
			if (eq[1] == '\0') {
				fou_err_set(err, "parameter '%s' has no value", tok);
				return -EINVAL;
			}
			eq++;
		}
		for (i = 0; i < f->nkv; i++) {
			if (strcmp(f->key[i], tok) == 0) {
				fou_err_set(err, "parameter '%s' given twice", tok);
				return -EINVAL;
			}
		}
		if (f->nkv == FOU_STMT_MAX_FIELDS) {
			fou_err_set(err, "too many parameters (usage: %s)", st->usage);
			return -EINVAL;
		}
		f->key[f->nkv] = tok;
		f->val[f->nkv++] = eq;
	}
	if (f->npos < st->npos) {
		fou_err_set(err, "missing fields (usage: %s)", st->usage);
		return -EINVAL;
	}
	return 0;
}

static const char *
fou_fields_get(const struct fou_fields *f, const char *key)
{
	unsigned int i;

	for (i = 0; i < f->nkv; i++)
		if (strcmp(f->key[i], key) == 0)
			return f->val[i];
	return NULL;
}

static int
fou_field_dev(const char *s, uint16_t *port, struct fou_err *err)
{
	uint32_t v;

	if (fou_parse_u32(s, UINT16_MAX, &v) < 0) {
		fou_err_set(err, "'%s' is not a DPDK port number", s);
		return -EINVAL;
	}
	*port = (uint16_t)v;
	return 0;
}

static int
fou_field_mac(const char *s, struct rte_ether_addr *mac, struct fou_err *err)
{
	if (rte_ether_unformat_addr(s, mac) < 0) {
		fou_err_set(err, "'%s' is not a MAC address", s);
		return -EINVAL;
	}
	return 0;
}

/* A key that must be present. */
static const char *
fou_fields_need(const struct fou_fields *f, const char *key, const char *what,
		struct fou_err *err)
{
	const char *v = fou_fields_get(f, key);

	if (v == NULL)
		fou_err_set(err, "missing %s=%s", key, what);
	return v;
}

/* --- statements ------------------------------------------------------- */

/* UDPPORT:PROTO or UDPPORT:gue (`ip fou add port P gue`); without
 * need_proto the :PROTO may be left out (0, not gue: any port). */
static int
fou_field_port(char *s, bool need_proto, struct fou_port_conf *pc, struct fou_err *err)
{
	char *colon = strchr(s, ':');
	uint32_t udp;
	int ret;

	pc->ipproto = 0;
	pc->gue = false;
	if (colon == NULL && need_proto) {
		fou_err_set(err, "'%s' is not UDPPORT:PROTO or UDPPORT:gue", s);
		return -EINVAL;
	}
	if (colon != NULL)
		*colon = '\0';
	ret = fou_parse_u32(s, UINT16_MAX, &udp);
	if (ret < 0 || udp == 0) {
		fou_err_set(err, "UDP port '%s' is not in 1-65535", s);
		return -EINVAL;
	}
	pc->udp_port = (uint16_t)udp;
	if (colon != NULL && strcmp(colon + 1, "gue") == 0) {
		pc->gue = true;
		return 0;
	}
	return colon == NULL ? 0 : fou_parse_proto(colon + 1, &pc->ipproto, err);
}

/* family=4|6 of a port, as `ip fou add ... -6`; 4 when left out. */
static int
fou_field_family(const struct fou_fields *f, uint8_t *family, struct fou_err *err)
{
	const char *v = fou_fields_get(f, "family");

	*family = AF_INET;
	if (v == NULL || strcmp(v, "4") == 0)
		return 0;
	if (strcmp(v, "6") == 0) {
		*family = AF_INET6;
		return 0;
	}
	fou_err_set(err, "family '%s' is not 4 or 6", v);
	return -EINVAL;
}

static int
fou_stmt_port(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	struct fou_port_conf pc = { .family = AF_INET };
	int ret = fou_field_port(f->pos[0], true, &pc, err);

	if (ret == 0)
		ret = fou_field_family(f, &pc.family, err);
	return ret < 0 ? ret : fou_port_add(gw, &pc, err);
}

static int
fou_stmt_port_del(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	struct fou_port_conf pc = { .family = AF_INET };
	int ret = fou_field_port(f->pos[0], false, &pc, err);

	if (ret == 0)
		ret = fou_field_family(f, &pc.family, err);
	return ret < 0 ? ret : fou_port_del(gw, &pc, err);
}

/* dev=: a DPDK port number, or a tunnel name (never all digits). */
static bool
fou_dev_is_port(const char *dev)
{
	return strspn(dev, "0123456789") == strlen(dev);
}

/* PORTID|TUNNEL,IP/PLEN */
static int
fou_stmt_addr_any(struct fou_gw *gw, struct fou_fields *f, bool add, struct fou_err *err)
{
	const char *dev = f->pos[0];
	struct fou_ip ip;
	uint16_t port = 0;
	int ret = 0;

	if (fou_dev_is_port(dev))
		ret = fou_field_dev(dev, &port, err);
	if (ret == 0)
		ret = fou_parse_ip(f->pos[1], true, &ip, err);
	if (ret < 0)
		return ret;
	if (!fou_dev_is_port(dev))
		return add ? fou_addr_add_tunnel(gw, dev, &ip, err) :
		       fou_addr_del_tunnel(gw, dev, &ip, err);
	return add ? fou_addr_add(gw, port, &ip, err) : fou_addr_del(gw, port, &ip, err);
}

static int
fou_stmt_addr(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	return fou_stmt_addr_any(gw, f, true, err);
}

static int
fou_stmt_addr_del(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	return fou_stmt_addr_any(gw, f, false, err);
}

/*
 * A route's fields into rs (via into *via): PREFIX, dev= (needed by add),
 * via=, metric=, weight= (add only); *match says which were given.
 */
static int
fou_fields_route(const struct fou_fields *f, bool add, struct fou_route_spec *rs,
		 struct fou_ip *via, unsigned int *match, struct fou_err *err)
{
	const char *dev = fou_fields_get(f, "dev"), *via_s = fou_fields_get(f, "via");
	const char *metric = fou_fields_get(f, "metric"), *weight = fou_fields_get(f, "weight");
	uint32_t v;
	int ret;

	memset(rs, 0, sizeof(*rs));
	*match = 0;
	ret = fou_parse_ip(f->pos[0], true, &rs->prefix, err);
	if (ret < 0)
		return ret;
	if (add && fou_fields_need(f, "dev", "PORTID|TUNNEL", err) == NULL)
		return -EINVAL;
	if (dev != NULL) {
		*match |= FOU_ROUTE_M_DEV;
		if (!fou_dev_is_port(dev))
			rs->tunnel = dev;
		else if ((ret = fou_field_dev(dev, &rs->port, err)) < 0)
			return ret;
	}
	if (via_s != NULL) {
		if (rs->tunnel != NULL) {
			fou_err_set(err, "via is not allowed with a tunnel (dev=%s)", dev);
			return -EINVAL;
		}
		ret = fou_parse_ip(via_s, false, via, err);
		if (ret < 0)
			return ret;
		rs->via = via;
		*match |= FOU_ROUTE_M_VIA;
	}
	if (metric != NULL) {
		if (fou_parse_u32(metric, UINT32_MAX, &v) < 0) {
			fou_err_set(err, "metric '%s' is not 0-4294967295", metric);
			return -EINVAL;
		}
		rs->metric = v;
		*match |= FOU_ROUTE_M_METRIC;
	}
	if (weight != NULL) {
		if (fou_parse_u32(weight, FOU_ROUTE_WEIGHT_MAX, &v) < 0 || v == 0) {
			fou_err_set(err, "weight '%s' is not 1-%u", weight, FOU_ROUTE_WEIGHT_MAX);
			return -EINVAL;
		}
		rs->weight = (uint16_t)v;
	}
	return 0;
}

/*
 * route: added as `ip route append`. route del PREFIX[,dev=...][,via=...]
 * [,metric=N]: as `ip route del`, the first route to the prefix (lowest
 * metric, then first added) that has the given ones.
 */
static int
fou_stmt_route_any(struct fou_gw *gw, struct fou_fields *f, bool add, struct fou_err *err)
{
	struct fou_route_spec rs;
	unsigned int match;
	struct fou_ip via;
	int ret = fou_fields_route(f, add, &rs, &via, &match, err);

	if (ret < 0)
		return ret;
	return add ? fou_route_append(gw, &rs, err) : fou_route_remove(gw, &rs, match, err);
}

static int
fou_stmt_route(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	return fou_stmt_route_any(gw, f, true, err);
}

static int
fou_stmt_route_del(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	return fou_stmt_route_any(gw, f, false, err);
}

/* IP,dev=PORTID[,lladdr=MAC]: *has_mac says whether lladdr was there. */
static int
fou_fields_neigh(const struct fou_fields *f, struct fou_ip *ip, uint16_t *port,
		 struct rte_ether_addr *mac, bool *has_mac, struct fou_err *err)
{
	const char *dev, *lladdr = fou_fields_get(f, "lladdr");
	int ret;

	ret = fou_parse_ip(f->pos[0], false, ip, err);
	if (ret < 0)
		return ret;
	dev = fou_fields_need(f, "dev", "PORTID", err);
	if (dev == NULL)
		return -EINVAL;
	ret = fou_field_dev(dev, port, err);
	*has_mac = lladdr != NULL;
	if (ret == 0 && lladdr != NULL)
		ret = fou_field_mac(lladdr, mac, err);
	return ret;
}

static int
fou_stmt_neigh(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	struct rte_ether_addr mac;
	struct fou_ip ip;
	uint16_t port;
	bool has_mac;
	int ret;

	ret = fou_fields_neigh(f, &ip, &port, &mac, &has_mac, err);
	if (ret == 0 && !has_mac) {
		fou_err_set(err, "missing lladdr=MAC");
		ret = -EINVAL;
	}
	return ret < 0 ? ret : fou_neigh_add(gw, &ip, port, &mac, err);
}

static int
fou_stmt_neigh_del(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	struct rte_ether_addr mac, cur;
	char a[RTE_ETHER_ADDR_FMT_SIZE];
	struct fou_ip ip;
	uint16_t port;
	bool has_mac;
	int ret;

	ret = fou_fields_neigh(f, &ip, &port, &mac, &has_mac, err);
	if (ret < 0)
		return ret;
	if (has_mac && fou_neigh_get(gw, &ip, port, &cur) == 0 &&
	    !rte_is_same_ether_addr(&mac, &cur)) {
		rte_ether_format_addr(a, sizeof(a), &cur);
		fou_err_set(err, "lladdr: the neighbour's is %s", a);
		return -EINVAL;
	}
	return fou_neigh_del(gw, &ip, port, err);
}

static int
fou_stmt_link(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	const char *addr_s = fou_fields_get(f, "address"), *mtu_s = fou_fields_get(f, "mtu");
	struct rte_ether_addr mac;
	uint16_t port, mtu;
	uint32_t v;
	int ret;

	ret = fou_field_dev(f->pos[0], &port, err);
	if (ret < 0)
		return ret;
	if (fou_iface_get(gw, port, &mac, &mtu) < 0) {
		fou_err_set(err, "no DPDK port %u", port);
		return -ENODEV;
	}
	if (addr_s == NULL && mtu_s == NULL) {
		fou_err_set(err, "nothing to set (address=MAC and/or mtu=N)");
		return -EINVAL;
	}
	if (addr_s != NULL) {
		ret = fou_field_mac(addr_s, &mac, err);
		if (ret < 0)
			return ret;
	}
	if (mtu_s != NULL) {
		if (fou_parse_u32(mtu_s, UINT16_MAX, &v) < 0 || v < RTE_ETHER_MIN_MTU) {
			fou_err_set(err, "mtu '%s' is not in %u-65535", mtu_s, RTE_ETHER_MIN_MTU);
			return -EINVAL;
		}
		mtu = (uint16_t)v;
	}
	return fou_iface_set(gw, port, &mac, mtu, err);
}

static int
fou_stmt_gro_any(struct fou_gw *gw, struct fou_fields *f, bool on, struct fou_err *err)
{
	const char *t = fou_fields_get(f, "timeout");
	uint32_t timeout = 0;
	uint16_t port;
	int ret;

	ret = fou_field_dev(f->pos[0], &port, err);
	if (ret < 0)
		return ret;
	if (t != NULL && fou_parse_u32(t, FOU_GRO_TIMEOUT_MAX_US, &timeout) < 0) {
		fou_err_set(err, "timeout '%s' is not a number of microseconds (0-%u)", t,
			    FOU_GRO_TIMEOUT_MAX_US);
		return -EINVAL;
	}
	return fou_gro_set(gw, port, on, timeout, err);
}

static int
fou_stmt_gro(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	return fou_stmt_gro_any(gw, f, true, err);
}

static int
fou_stmt_gro_del(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	const char *t = fou_fields_get(f, "timeout");
	uint32_t timeout, want;
	uint16_t port;
	bool on;

	/* as every delete: what is not there is an error, and the add's
	 * other fields, when given, must match (/fou/config prints them) */
	if (fou_field_dev(f->pos[0], &port, err) == 0 && fou_gro_get(gw, port, &on, &timeout) == 0) {
		if (!on) {
			fou_err_set(err, "GRO is not on for port %u", port);
			return -ENOENT;
		}
		if (t != NULL && fou_parse_u32(t, FOU_GRO_TIMEOUT_MAX_US, &want) == 0 &&
		    want != timeout) {
			fou_err_set(err, "timeout: port %u's is %u", port, timeout);
			return -EINVAL;
		}
	}
	return fou_stmt_gro_any(gw, f, false, err);
}

/* A number in hex, with or without 0x (as iproute2's get_u8 / get_u32 with
 * base 16 read tclass and flowlabel), at most max. */
static int
fou_parse_hex(const char *s, uint32_t max, uint32_t *out)
{
	unsigned long v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (s[0] == '\0' || strspn(s, "0123456789abcdefABCDEF") != strlen(s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, NULL, 16);
	if (errno != 0 || v > max)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

/* A number in decimal or 0x hex, at most max. */
static int
fou_parse_num(const char *s, uint32_t max, uint32_t *out)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return fou_parse_hex(s, max, out);
	return fou_parse_u32(s, max, out);
}

/* Both words of a pair given: the operator meant two things. */
static int
fou_fields_pair(const struct fou_fields *f, const char *yes, const char *no, bool *val,
		struct fou_err *err)
{
	bool y = fou_fields_get(f, yes) != NULL, n = fou_fields_get(f, no) != NULL;

	if (y && n) {
		fou_err_set(err, "'%s' and '%s' contradict each other", yes, no);
		return -EINVAL;
	}
	if (y || n)
		*val = y;
	return 0;
}

/* Options of one underlay only: named in a refusal. */
static const char *const fou_tunnel_opts4[] = { "ttl", "tos", "pmtudisc", "nopmtudisc",
						"encap-csum", NULL };
static const char *const fou_tunnel_opts6[] = { "mode", "hoplimit", "tclass", "flowlabel",
						"encaplimit", "encap-udp6-csum",
						"noencap-udp6-csum", "encap-csum6", "noencap-csum6",
						NULL };

static int
fou_tunnel_refuse(const struct fou_fields *f, const char *const *opts, const char *type,
		  const char *why, struct fou_err *err)
{
	unsigned int i;

	for (i = 0; opts[i] != NULL; i++) {
		if (fou_fields_get(f, opts[i]) != NULL) {
			fou_err_set(err, "'%s' is not an option of type %s (%s)", opts[i], type,
				    why);
			return -EINVAL;
		}
	}
	return 0;
}

/* What only ip6tnl and ip6gre take: mode, hoplimit, tclass, flowlabel,
 * encaplimit, encap-udp6-csum (iproute2's link_ip6tnl.c / link_gre6.c). */
static int
fou_stmt_tunnel6(struct fou_fields *f, struct fou_tunnel_conf *c, struct fou_err *err)
{
	const char *v;
	bool csum6, nocsum6;
	uint32_t n;

	v = fou_fields_get(f, "mode");
	if (v != NULL) {
		if (c->type == IPPROTO_GRE) {
			fou_err_set(err, "'mode' is not an option of type ip6gre (it carries "
				    "IPv4 and IPv6)");
			return -EINVAL;
		}
		if (strcmp(v, "ipip6") == 0 || strcmp(v, "ip/ipv6") == 0) {
			c->type = IPPROTO_IPIP;
		} else if (strcmp(v, "ip6ip6") == 0 || strcmp(v, "ipv6/ipv6") == 0) {
			c->type = IPPROTO_IPV6;
		} else if (strcmp(v, "any") == 0 || strcmp(v, "any/ipv6") == 0) {
			c->type = FOU_TUN_ANY;
		} else {
			fou_err_set(err, "mode '%s' is not ipip6, ip6ip6 or any", v);
			return -EINVAL;
		}
	}
	v = fou_fields_get(f, "hoplimit");
	if (v != NULL && strcmp(v, "inherit") != 0) {
		if (fou_parse_u32(v, UINT8_MAX, &n) < 0) {
			fou_err_set(err, "hoplimit '%s' is not inherit or 0-255", v);
			return -EINVAL;
		}
		c->ttl = (uint8_t)n;	/* 0: the inner packet's, as ip6_tnl_xmit */
	} else if (v != NULL) {
		c->ttl = 0;
	}
	v = fou_fields_get(f, "tclass");
	if (v != NULL) {
		if (strcmp(v, "inherit") == 0) {
			c->tos_inherit = true;
		} else if (fou_parse_hex(v, UINT8_MAX, &n) < 0) {
			fou_err_set(err, "tclass '%s' is not inherit or 00-ff (hex, as iproute2)", v);
			return -EINVAL;
		} else {
			c->tos = (uint8_t)n;
		}
	}
	v = fou_fields_get(f, "flowlabel");
	if (v != NULL) {
		if (strcmp(v, "inherit") == 0) {
			c->flowlabel_inherit = true;
		} else if (fou_parse_hex(v, 0xfffff, &n) < 0) {
			fou_err_set(err, "flowlabel '%s' is not inherit or 0-fffff (hex, as iproute2)",
				    v);
			return -EINVAL;
		} else {
			c->flowlabel = n;
		}
	}
	v = fou_fields_get(f, "encaplimit");
	if (v != NULL) {
		if (strcmp(v, "none") == 0) {
			c->encaplimit = -1;
		} else if (fou_parse_u32(v, UINT8_MAX, &n) < 0) {
			fou_err_set(err, "encaplimit '%s' is not none or 0-255", v);
			return -EINVAL;
		} else {
			c->encaplimit = (int16_t)n;
		}
	}
	/* iproute2 prints encap-csum6, and takes encap-udp6-csum too */
	csum6 = fou_fields_get(f, "encap-udp6-csum") != NULL ||
		fou_fields_get(f, "encap-csum6") != NULL;
	nocsum6 = fou_fields_get(f, "noencap-udp6-csum") != NULL ||
		  fou_fields_get(f, "noencap-csum6") != NULL;
	if (csum6 && nocsum6) {
		fou_err_set(err, "'encap-udp6-csum' and 'noencap-udp6-csum' contradict each other");
		return -EINVAL;
	}
	if (csum6 || nocsum6)
		c->encap_csum6 = csum6;
	return 0;
}

/* Tunnel health: probe=on|off, interval=MS, timeout=N (fou_probe.c). */
static int
fou_stmt_tunnel_probe(struct fou_fields *f, struct fou_tunnel_conf *c, struct fou_err *err)
{
	const char *v = fou_fields_get(f, "probe");
	uint32_t n;

	if (v != NULL) {
		if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0) {
			fou_err_set(err, "probe '%s' is not on or off", v);
			return -EINVAL;
		}
		c->probe = strcmp(v, "on") == 0;
	}
	v = fou_fields_get(f, "interval");
	if (v != NULL) {
		if (fou_parse_u32(v, FOU_PROBE_INTERVAL_MAX, &n) < 0 ||
		    n < FOU_PROBE_INTERVAL_MIN) {
			fou_err_set(err, "interval '%s' is not %u-%u (milliseconds)", v,
				    FOU_PROBE_INTERVAL_MIN, FOU_PROBE_INTERVAL_MAX);
			return -EINVAL;
		}
		c->probe_interval_ms = (uint16_t)n;
	}
	v = fou_fields_get(f, "timeout");
	if (v != NULL) {
		if (fou_parse_u32(v, UINT8_MAX, &n) < 0 || n == 0) {
			fou_err_set(err, "timeout '%s' is not 1-255 (probes)", v);
			return -EINVAL;
		}
		c->probe_timeout = (uint8_t)n;
	}
	return 0;
}

static int
fou_stmt_tunnel(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	const char *type, *v;
	struct fou_tunnel_conf c;
	uint32_t n;
	bool remcsum = false, six;
	int ret;

	type = fou_fields_need(f, "type", "ipip|sit|gre|ip6tnl|ip6gre", err);
	if (type == NULL)
		return -EINVAL;
	six = strcmp(type, "ip6tnl") == 0 || strcmp(type, "ip6gre") == 0;
	if (six)
		fou_tunnel_conf_default6(&c);
	else
		fou_tunnel_conf_default(&c);
	if (rte_strscpy(c.name, f->pos[0], sizeof(c.name)) < 0) {
		fou_err_set(err, "tunnel name '%s' longer than %zu characters", f->pos[0],
			    sizeof(c.name) - 1);
		return -EINVAL;
	}
	if (strcmp(type, "ipip") == 0) {
		c.type = IPPROTO_IPIP;
	} else if (strcmp(type, "sit") == 0) {
		c.type = IPPROTO_IPV6;
	} else if (strcmp(type, "gre") == 0 || strcmp(type, "ip6gre") == 0) {
		c.type = IPPROTO_GRE;
	} else if (strcmp(type, "ip6tnl") == 0) {
		c.type = IPPROTO_IPV6;	/* iproute2's default mode: ip6ip6 */
	} else {
		fou_err_set(err, "type '%s' is not ipip, sit, gre, ip6tnl or ip6gre", type);
		return -EINVAL;
	}
	ret = six ? fou_tunnel_refuse(f, fou_tunnel_opts4, type,
				      "IPv4 underlay only; ip6 types take hoplimit, tclass, "
				      "encap-udp6-csum", err) :
		    fou_tunnel_refuse(f, fou_tunnel_opts6, type,
				      "IPv6 underlay only: ip6tnl, ip6gre", err);
	if (ret < 0)
		return ret;
	v = fou_fields_need(f, "local", "IP", err);
	if (v == NULL)
		return -EINVAL;
	ret = fou_parse_ip(v, false, &c.local, err);
	if (ret < 0)
		return ret;
	v = fou_fields_need(f, "remote", "IP", err);
	if (v == NULL)
		return -EINVAL;
	ret = fou_parse_ip(v, false, &c.remote, err);
	if (ret < 0)
		return ret;
	if ((c.local.family == AF_INET6) != six || (c.remote.family == AF_INET6) != six) {
		fou_err_set(err, "type %s needs %s local and remote addresses", type,
			    six ? "IPv6" : "IPv4");
		return -EINVAL;
	}
	if (six) {
		ret = fou_stmt_tunnel6(f, &c, err);
		if (ret < 0)
			return ret;
	}
	v = fou_fields_get(f, "ttl");
	if (v != NULL && strcmp(v, "inherit") != 0) {
		if (fou_parse_u32(v, UINT8_MAX, &n) < 0) {
			fou_err_set(err, "ttl '%s' is not inherit or 0-255", v);
			return -EINVAL;
		}
		c.ttl = (uint8_t)n;	/* 0 is inherit, as in iproute2 */
	}
	v = fou_fields_get(f, "tos");
	if (v != NULL) {
		if (strcmp(v, "inherit") == 0) {
			c.tos_inherit = true;
		} else if (fou_parse_num(v, UINT8_MAX, &n) < 0) {
			fou_err_set(err, "tos '%s' is not inherit or 0-255 (0xNN)", v);
			return -EINVAL;
		} else if (n & 1) {
			/* as ip_tunnel_xmit: bit 0 of a numeric tos means inherit */
			c.tos_inherit = true;
		} else {
			c.tos = (uint8_t)n;
		}
	}
	ret = fou_fields_pair(f, "pmtudisc", "nopmtudisc", &c.pmtudisc, err);
	if (ret == 0)
		ret = fou_fields_pair(f, "encap-csum", "noencap-csum", &c.encap_csum, err);
	if (ret == 0)
		ret = fou_fields_pair(f, "encap-remcsum", "noencap-remcsum", &remcsum, err);
	if (ret < 0)
		return ret;
	if (remcsum) {
		/* Linux moves the inner checksum's work to the receiver, which
		 * no peer but Linux does, and the gateway has no test for */
		fou_err_set(err, "encap-remcsum (GUE remote checksum offload) is not supported");
		return -EOPNOTSUPP;
	}
	v = fou_fields_get(f, "encap");
	if (v != NULL) {
		for (n = FOU_ENCAP_NONE; n <= FOU_ENCAP_GUE; n++)
			if (strcmp(v, fou_encap_name((uint8_t)n)) == 0)
				break;
		if (n > FOU_ENCAP_GUE) {
			fou_err_set(err, "encap '%s' is not fou, gue or none", v);
			return -EINVAL;
		}
		c.encap = (uint8_t)n;
	}
	if (six && c.encap == FOU_ENCAP_NONE && fou_fields_get(f, "encap-udp6-csum") == NULL &&
	    fou_fields_get(f, "encap-csum6") == NULL)
		c.encap_csum6 = false;	/* no UDP: nothing to sum (iproute2 keeps the flag) */
	v = fou_fields_get(f, "encap-sport");
	if (v != NULL && strcmp(v, "auto") != 0) {
		if (fou_parse_u32(v, UINT16_MAX, &n) < 0 || n == 0) {
			fou_err_set(err, "encap-sport '%s' is not auto or 1-65535", v);
			return -EINVAL;
		}
		c.encap_sport = (uint16_t)n;
	}
	v = fou_fields_get(f, "encap-dport");
	if (v != NULL) {
		if (fou_parse_u32(v, UINT16_MAX, &n) < 0 || n == 0) {
			fou_err_set(err, "encap-dport '%s' is not 1-65535", v);
			return -EINVAL;
		}
		c.encap_dport = (uint16_t)n;
	}
	v = fou_fields_get(f, "key");
	if (v != NULL) {
		struct in_addr a;

		/* iproute2 takes a number or a dotted quad */
		if (fou_parse_num(v, UINT32_MAX, &n) == 0) {
			c.key = n;
		} else if (inet_pton(AF_INET, v, &a) == 1) {
			c.key = rte_be_to_cpu_32(a.s_addr);
		} else {
			fou_err_set(err, "key '%s' is not 0-4294967295 or a dotted quad", v);
			return -EINVAL;
		}
		c.key_set = true;
	}
	c.gre_csum = fou_fields_get(f, "csum") != NULL;
	c.gre_seq = fou_fields_get(f, "seq") != NULL;
	ret = fou_stmt_tunnel_probe(f, &c, err);
	if (ret < 0)
		return ret;
	return fou_tunnel_add(gw, &c, err);
}

static int
fou_stmt_tunnel_del(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	return fou_tunnel_del(gw, f->pos[0], err);
}

static int
fou_stmt_sport_range(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	char *dash = strchr(f->pos[0], '-');
	uint32_t lo, hi;

	if (dash == NULL) {
		fou_err_set(err, "'%s' is not MIN-MAX", f->pos[0]);
		return -EINVAL;
	}
	*dash = '\0';
	if (fou_parse_u32(f->pos[0], UINT16_MAX, &lo) < 0 ||
	    fou_parse_u32(dash + 1, UINT16_MAX, &hi) < 0) {
		fou_err_set(err, "'%s-%s' is not MIN-MAX with ports 1-65535", f->pos[0], dash + 1);
		return -EINVAL;
	}
	return fou_sport_range_set(gw, (uint16_t)lo, (uint16_t)hi, err);
}

static int
fou_stmt_icmp_rate(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	const char *b = fou_fields_get(f, "burst");
	uint32_t rate, burst = 50;

	if (fou_parse_u32(f->pos[0], UINT32_MAX, &rate) < 0) {
		fou_err_set(err, "'%s' is not a number of errors per second", f->pos[0]);
		return -EINVAL;
	}
	if (b != NULL && fou_parse_u32(b, UINT32_MAX, &burst) < 0) {
		fou_err_set(err, "burst '%s' is not a number", b);
		return -EINVAL;
	}
	return fou_icmp_rate_set(gw, rate, burst, err);
}

static int
fou_stmt_ipfrag_time(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	uint32_t s;

	if (fou_parse_u32(f->pos[0], UINT32_MAX, &s) < 0) {
		fou_err_set(err, "'%s' is not a number of seconds", f->pos[0]);
		return -EINVAL;
	}
	return fou_reasm_time_set(gw, s, err);
}

/* `punt PORTID[,iface=NAME][,rate=N][,burst=N]`: the kernel interface is
 * made when the gateway starts (fou_punt_set() refuses later). */
static int
fou_stmt_punt(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	const char *ifname = fou_fields_get(f, "iface"), *r = fou_fields_get(f, "rate"),
		   *b = fou_fields_get(f, "burst");
	struct fou_punt_conf c;
	uint16_t port;

	fou_punt_conf_default(&c);
	if (fou_field_dev(f->pos[0], &port, err) < 0)
		return -EINVAL;
	if (ifname != NULL && strlcpy(c.ifname, ifname, sizeof(c.ifname)) >= sizeof(c.ifname)) {
		fou_err_set(err, "iface '%s' is longer than %zu characters", ifname,
			    sizeof(c.ifname) - 1);
		return -EINVAL;
	}
	if (r != NULL && fou_parse_u32(r, UINT32_MAX, &c.rate) < 0) {
		fou_err_set(err, "rate '%s' is not a number of packets per second", r);
		return -EINVAL;
	}
	if (b != NULL && fou_parse_u32(b, UINT32_MAX, &c.burst) < 0) {
		fou_err_set(err, "burst '%s' is not a number", b);
		return -EINVAL;
	}
	return fou_punt_set(gw, port, &c, err);
}

/* As every delete: the add's other fields, when given, must match what
 * /fou/config prints. */
static int
fou_stmt_punt_del(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	static const char *const keys[] = { "iface", "rate", "burst" };
	struct fou_punt_info pi[RTE_MAX_ETHPORTS];
	unsigned int n, i, k;
	uint16_t port;
	char have[FOU_TUNNEL_NAMESIZE + 16];

	if (fou_field_dev(f->pos[0], &port, err) < 0)
		return -EINVAL;
	n = RTE_MIN(fou_punt_list(gw, pi, RTE_DIM(pi)), (unsigned int)RTE_DIM(pi));
	for (i = 0; i < n && pi[i].port != port; i++)
		;
	for (k = 0; i < n && k < RTE_DIM(keys); k++) {
		const char *v = fou_fields_get(f, keys[k]);

		if (v == NULL)
			continue;
		if (k == 0)
			snprintf(have, sizeof(have), "%s", pi[i].conf.ifname);
		else
			snprintf(have, sizeof(have), "%u", k == 1 ? pi[i].conf.rate : pi[i].conf.burst);
		if (strcmp(v, have) != 0) {
			fou_err_set(err, "%s: port %u's is %s", keys[k], port, have);
			return -EINVAL;
		}
	}
	return fou_punt_del(gw, port, err);
}

/* The gateway's tables are made once, at their sizes: the app reads its
 * limits statements before it makes them (fou_limits_parse()). */
static int
fou_stmt_limits(struct fou_gw *gw __rte_unused, struct fou_fields *f __rte_unused,
		struct fou_err *err)
{
	fou_err_set(err, "limits can only be set at start");
	return -EBUSY;
}

#define FOU_LIMITS_USAGE "[tunnels=N][,routes4=N][,routes6=N][,neigh=N]"

/* In application order: what a statement refers to comes before it. */
static const struct fou_stmt fou_stmts[] = {
	{ "limits",
	  "table sizes, set at start only: tunnels (default 1024, 0-1048576), IPv4 and IPv6 routes besides the default route (65536 each, 1-16777216), neighbours (4096, 1-65536)",
	  { FOU_LIMITS_USAGE, 0, { "tunnels", "routes4", "routes6", "neigh" }, { NULL },
	    fou_stmt_limits,
	    "Table sizes: only at start (--limits, a config file's limits = ...); this answers an error" },
	  { NULL } },
	{ "sport-range",
	  "UDP source ports for encap-sport auto (default 32768-60999, Linux' ip_local_port_range)",
	  { "MIN-MAX", 1, { NULL }, { NULL }, fou_stmt_sport_range,
	    "Source ports of encap-sport auto: MIN-MAX, as --sport-range" }, { NULL } },
	{ "icmp-rate",
	  "ICMP errors sent per second per lcore after a burst (default 1000, burst 50; 0: none)",
	  { "PERSEC[,burst=N]", 1, { "burst" }, { NULL }, fou_stmt_icmp_rate,
	    "ICMP errors per second per lcore: PERSEC[,burst=N], as --icmp-rate" }, { NULL } },
	{ "ipfrag-time",
	  "seconds an IPv4 datagram to us may take to arrive whole from its fragments (default 30, Linux' net.ipv4.ipfrag_time; 1-3600; at start only)",
	  { "SECONDS", 1, { NULL }, { NULL }, fou_stmt_ipfrag_time,
	    "Reassembly time: SECONDS, as --ipfrag-time (at start only: a change answers an error)" },
	  { NULL } },
	{ "link", "set a port's MAC address and L3 MTU (default 1500)",
	  { "PORTID[,address=MAC][,mtu=N]", 1, { "address", "mtu" }, { NULL }, fou_stmt_link,
	    "Set a port's MAC address and MTU: PORTID[,address=MAC][,mtu=N], as --link" },
	  { NULL } },
	{ "gro",
	  "merge TCP segments received on a port (ethtool -K DEV gro on; default off); timeout: microseconds a flow may wait for more (default 0: until the end of the poll)",
	  { "PORTID[,timeout=US]", 1, { "timeout" }, { NULL }, fou_stmt_gro,
	    "GRO on TCP received on a port: PORTID[,timeout=US], as --gro" },
	  { "PORTID[,timeout=US]", 1, { "timeout" }, { NULL }, fou_stmt_gro_del,
	    "GRO off on a port: PORTID[,timeout=US] (what it holds leaves with the port's next burst)" } },
	{ "punt",
	  "a kernel interface for a port (a tap, default name dpdkfouPORTID), set at start only: packets for the port's addresses that the gateway does not take itself go up to it, what the kernel sends out of it leaves through the port; rate: packets per second per lcore that may go up (default 10000, burst 1000; 0: no limit)",
	  { "PORTID[,iface=NAME][,rate=N][,burst=N]", 1, { "iface", "rate", "burst" }, { NULL },
	    fou_stmt_punt,
	    "Kernel interface for a port: only at start (--punt, a config file's punt = ...); this answers an error" },
	  { "PORTID[,iface=NAME][,rate=N][,burst=N]", 1, { "iface", "rate", "burst" }, { NULL },
	    fou_stmt_punt_del,
	    "Kernel interface: only at start; this answers an error (it goes when the gateway stops)" } },
	{ "addr",
	  "local address (IPv4 or IPv6) on a DPDK port, or on a tunnel: then its network is routed into the tunnel",
	  { "PORTID|TUNNEL,IP/PLEN", 2, { NULL }, { NULL }, fou_stmt_addr,
	    "Add a local address: PORTID|TUNNEL,IP/PLEN, as --addr" },
	  { "PORTID|TUNNEL,IP/PLEN", 2, { NULL }, { NULL }, fou_stmt_addr_del,
	    "Delete a local address and its routes: PORTID|TUNNEL,IP/PLEN (not a tunnel's local)" } },
	{ "neigh", "static neighbour",
	  { "IP,dev=PORTID,lladdr=MAC", 1, { "dev", "lladdr" }, { NULL }, fou_stmt_neigh,
	    "Add a static neighbour: IP,dev=PORTID,lladdr=MAC, as --neigh" },
	  { "IP,dev=PORTID[,lladdr=MAC]", 1, { "dev", "lladdr" }, { NULL }, fou_stmt_neigh_del,
	    "Delete a neighbour: IP,dev=PORTID[,lladdr=MAC]" } },
	{ "port",
	  "FOU receive port, as `ip fou add port UDPPORT ipproto N [-6]`; PROTO: ipip, sit (alias ipv6), gre or an IP protocol number; or gue, as `ip fou add port UDPPORT gue [-6]`; family=6: UDP to our IPv6 addresses",
	  { "UDPPORT:PROTO|gue[,family=4|6]", 1, { "family", NULL }, { NULL }, fou_stmt_port,
	    "Add a FOU or GUE receive port: UDPPORT:PROTO|gue[,family=4|6], as --port (ip fou add [-6])" },
	  { "UDPPORT[:PROTO|gue][,family=4|6]", 1, { "family", NULL }, { NULL }, fou_stmt_port_del,
	    "Delete a FOU or GUE receive port: UDPPORT[:PROTO|gue][,family=4|6]" } },
	{ "tunnel", "tunnel, as `ip link add NAME type ipip|sit|gre|ip6tnl|ip6gre ... encap fou|gue ...`",
	  { "NAME,type=ipip|sit|gre,local=IP,remote=IP[,ttl=N|inherit][,tos=N|inherit]"
	    "[,pmtudisc|nopmtudisc][,encap=fou|gue|none][,encap-sport=auto|N][,encap-dport=N]"
	    "[,encap-csum|noencap-csum][,noencap-remcsum][,key=N][,csum][,seq]; or "
	    "NAME,type=ip6tnl|ip6gre[,mode=ipip6|ip6ip6|any],local=IP6,remote=IP6"
	    "[,hoplimit=N][,tclass=HEX|inherit][,flowlabel=HEX|inherit][,encaplimit=N|none]"
	    "[,encap=...][,encap-udp6-csum|noencap-udp6-csum][,key=N][,csum][,seq]; "
	    "either with [,probe=on|off][,interval=MS][,timeout=N]",
	    1, { "type", "local", "remote", "ttl", "tos", "encap", "encap-sport", "encap-dport",
		 "key", "mode", "hoplimit", "tclass", "flowlabel", "encaplimit", "probe",
		 "interval", "timeout" },
	    { "pmtudisc", "nopmtudisc", "encap-csum", "noencap-csum", "encap-remcsum",
	      "noencap-remcsum", "csum", "seq", "encap-udp6-csum", "noencap-udp6-csum",
	      "encap-csum6", "noencap-csum6" },
	    fou_stmt_tunnel,
	    "Add a tunnel: NAME,type=ipip|sit|gre|ip6tnl|ip6gre,local=IP,remote=IP[,...], as --tunnel" },
	  { "NAME", 1, { NULL }, { NULL }, fou_stmt_tunnel_del,
	    "Delete a tunnel with its addresses and the routes into it: NAME" } },
	{ "route", "route (IPv4 or IPv6) out of a port, or into a tunnel; several to one prefix: the lowest metric (default 0) whose next hop is usable carries, equal metrics share by weight (1-256, default 1) over the inner flow hash (ECMP, at most 16)",
	  { "PREFIX,dev=PORTID|TUNNEL[,via=IP][,metric=N][,weight=N]", 1,
	    { "dev", "via", "metric", "weight" }, { NULL }, fou_stmt_route,
	    "Add a route: PREFIX,dev=PORTID|TUNNEL[,via=IP][,metric=N][,weight=N], as --route (ip route append)" },
	  { "PREFIX[,dev=PORTID|TUNNEL][,via=IP][,metric=N]", 1, { "dev", "via", "metric" },
	    { NULL }, fou_stmt_route_del,
	    "Delete a route: PREFIX[,dev=PORTID|TUNNEL][,via=IP][,metric=N] (the first that has the given ones, as ip route del)" } },
};

static_assert(RTE_DIM(fou_stmts) <= FOU_STMT_MAX, "FOU_STMT_MAX is too small");

const char *
fou_stmt_name(unsigned int rank)
{
	return rank < RTE_DIM(fou_stmts) ? fou_stmts[rank].name : NULL;
}

static const struct fou_stmt *
fou_stmt_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(fou_stmts); i++)
		if (strcmp(fou_stmts[i].name, name) == 0)
			return &fou_stmts[i];
	return NULL;
}

const char *
fou_stmt_help(const char *name)
{
	const struct fou_stmt *st = fou_stmt_find(name);

	return st == NULL ? NULL : st->help;
}

int
fou_stmt_rank(const char *name)
{
	const struct fou_stmt *st = fou_stmt_find(name);

	return st == NULL ? -1 : (int)(st - fou_stmts);
}

int
fou_stmt_order(const char *name, const char *arg)
{
	int rank = fou_stmt_rank(name);
	size_t dev = strcspn(arg, ",");

	if (rank < 0)
		return -1;
	/* an address on a tunnel needs the tunnel; nothing needs it but
	 * its own delete */
	if (strcmp(name, "addr") == 0 && dev != 0 && strspn(arg, "0123456789") != dev)
		return 2 * fou_stmt_rank("tunnel") + 1;
	return 2 * rank;
}

const char *
fou_stmt_usage(const char *name)
{
	const struct fou_stmt *st = fou_stmt_find(name);

	return st == NULL ? NULL : st->add.usage;
}

const char *
fou_stmt_del_usage(const char *name)
{
	const struct fou_stmt *st = fou_stmt_find(name);

	return st == NULL ? NULL : st->del.usage;
}

const char *
fou_stmt_tel_help(const char *name, bool del)
{
	const struct fou_stmt *st = fou_stmt_find(name);

	if (st == NULL)
		return NULL;
	return del ? st->del.tel_help : st->add.tel_help;
}

static int
fou_stmt_run(struct fou_gw *gw, const char *name, bool del, const char *arg,
	     struct fou_err *err)
{
	const struct fou_stmt *st = fou_stmt_find(name);
	const struct fou_stmt_form *form;
	struct fou_fields f;
	int ret;

	if (st == NULL) {
		fou_err_set(err, "unknown statement '%s'", name);
		return -EINVAL;
	}
	form = del ? &st->del : &st->add;
	if (form->apply == NULL) {
		fou_err_set(err, "%s is set, not deleted (set it again)", name);
		return -EOPNOTSUPP;
	}
	ret = fou_fields_split(form, arg, &f, err);
	if (ret < 0)
		return ret;
	return form->apply(gw, &f, err);
}

int
fou_stmt_apply(struct fou_gw *gw, const char *name, const char *arg, struct fou_err *err)
{
	return fou_stmt_run(gw, name, false, arg, err);
}

int
fou_stmt_del(struct fou_gw *gw, const char *name, const char *arg, struct fou_err *err)
{
	return fou_stmt_run(gw, name, true, arg, err);
}

/* One key of a limits statement: its value, within [min, max]. */
static int
fou_limit_field(const struct fou_fields *f, const char *key, uint32_t min, uint32_t max,
		uint32_t *out, struct fou_err *err)
{
	const char *v = fou_fields_get(f, key);
	uint32_t n;

	if (v == NULL)
		return 0;
	if (fou_parse_u32(v, max, &n) < 0 || n < min) {
		fou_err_set(err, "%s '%s' is not in %u-%u", key, v, min, max);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

int
fou_limits_parse(const char *arg, struct fou_gw_params *p, struct fou_err *err)
{
	const struct fou_stmt_form *form = &fou_stmt_find("limits")->add;
	struct fou_gw_params n = *p;
	struct fou_fields f;
	int ret;

	ret = fou_fields_split(form, arg, &f, err);
	if (ret < 0)
		return ret;
	if (f.nkv == 0) {
		fou_err_set(err, "nothing to set (usage: %s)", FOU_LIMITS_USAGE);
		return -EINVAL;
	}
	ret = fou_limit_field(&f, "tunnels", 0, FOU_LIMIT_TUNNELS_MAX, &n.max_tunnels, err);
	if (ret == 0)
		ret = fou_limit_field(&f, "routes4", 1, FOU_LIMIT_ROUTES_MAX, &n.max_routes4, err);
	if (ret == 0)
		ret = fou_limit_field(&f, "routes6", 1, FOU_LIMIT_ROUTES_MAX, &n.max_routes6, err);
	if (ret == 0)
		ret = fou_limit_field(&f, "neigh", 1, FOU_LIMIT_NEIGH_MAX, &n.max_neighs, err);
	if (ret < 0)
		return ret;
	n.max_nexthops = FOU_NEXTHOPS(n.max_tunnels);
	*p = n;
	return 0;
}
