/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The statement vocabulary: `port 5555:ipip`, `addr 0,10.0.0.1/24`,
 * `route 10.1.0.0/16,dev=1,via=10.0.1.254`, `neigh 10.0.1.254,dev=1,lladdr=MAC`,
 * `link 1,address=MAC,mtu=1500`. The command line, the config file and
 * telemetry hand (name, argument) here; nothing else parses them.
 *
 * An argument is comma-separated: positional fields first, then key=value
 * pairs with iproute2's key names. Unknown, repeated or empty keys are
 * errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_string_fns.h>

#include "fou_private.h"

#define FOU_STMT_MAX_FIELDS 8

int
fou_parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return -EINVAL;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

int
fou_parse_ip(const char *s, bool want_prefix, struct fou_ip *out, struct fou_err *err)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash;
	uint32_t plen;

	if (rte_strscpy(buf, s, sizeof(buf)) < 0) {
		fou_err_set(err, "'%s' is not an IP address", s);
		return -EINVAL;
	}
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash = '\0';
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, buf, &out->v4) == 1) {
		out->family = AF_INET;
	} else if (inet_pton(AF_INET6, buf, out->v6) == 1) {
		out->family = AF_INET6;
	} else {
		fou_err_set(err, "'%s' is not an IPv4 or IPv6 address", buf);
		return -EINVAL;
	}
	out->plen = out->family == AF_INET ? 32 : 128;
	if (slash == NULL)
		return 0;
	if (!want_prefix) {
		fou_err_set(err, "'%s': a prefix length is not allowed here", s);
		return -EINVAL;
	}
	if (fou_parse_u32(slash + 1, out->plen, &plen) < 0) {
		fou_err_set(err, "'%s': prefix length must be 0-%u", s, out->plen);
		return -EINVAL;
	}
	out->plen = (uint8_t)plen;
	return 0;
}

int
fou_parse_proto(const char *s, uint8_t *ipproto, struct fou_err *err)
{
	static const struct {
		const char *name;
		uint8_t proto;
	} names[] = {
		{ "ipip", IPPROTO_IPIP },
		{ "sit", IPPROTO_IPV6 },
		{ "ipv6", IPPROTO_IPV6 },
		{ "gre", IPPROTO_GRE },
	};
	uint32_t v;
	unsigned int i;

	for (i = 0; i < RTE_DIM(names); i++) {
		if (strcmp(s, names[i].name) == 0) {
			*ipproto = names[i].proto;
			return 0;
		}
	}
	if (fou_parse_u32(s, UINT8_MAX, &v) < 0) {
		fou_err_set(err, "unknown protocol '%s' (ipip, sit, ipv6, gre or 1-255)", s);
		return -EINVAL;
	}
	*ipproto = (uint8_t)v;
	return 0;
}

/* --- argument splitting ----------------------------------------------- */

struct fou_fields {
	char buf[FOU_ERR_LEN];
	unsigned int npos, nkv;
	char *pos[FOU_STMT_MAX_FIELDS];
	char *key[FOU_STMT_MAX_FIELDS];
	char *val[FOU_STMT_MAX_FIELDS];
};

struct fou_stmt {
	const char *name;
	const char *usage;
	const char *help;
	unsigned int npos;			/* positional fields, all required */
	const char *keys[FOU_STMT_MAX_FIELDS];	/* allowed keys, NULL-terminated */
	int (*apply)(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err);
};

static int
fou_fields_split(const struct fou_stmt *st, const char *arg, struct fou_fields *f,
		 struct fou_err *err)
{
	char *tok, *save = NULL;
	unsigned int i, k;

	memset(f, 0, sizeof(*f));
	if (rte_strscpy(f->buf, arg, sizeof(f->buf)) < 0) {
		fou_err_set(err, "argument longer than %zu characters", sizeof(f->buf) - 1);
		return -E2BIG;
	}
	if (f->buf[0] == ',' || (f->buf[0] != '\0' && f->buf[strlen(f->buf) - 1] == ',') ||
	    strstr(f->buf, ",,") != NULL) {
		fou_err_set(err, "empty field in '%s'", arg);
		return -EINVAL;
	}
	for (tok = strtok_r(f->buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL) {
			if (f->nkv != 0 || f->npos == st->npos) {
				fou_err_set(err, "unexpected '%s' (usage: %s)", tok, st->usage);
				return -EINVAL;
			}
			f->pos[f->npos++] = tok;
			continue;
		}
		*eq = '\0';
		for (k = 0; st->keys[k] != NULL; k++)
			if (strcmp(st->keys[k], tok) == 0)
				break;
		if (st->keys[k] == NULL) {
			fou_err_set(err, "unknown parameter '%s' (usage: %s)", tok, st->usage);
			return -EINVAL;
		}
		for (i = 0; i < f->nkv; i++) {
			if (strcmp(f->key[i], tok) == 0) {
				fou_err_set(err, "parameter '%s' given twice", tok);
				return -EINVAL;
			}
		}
		if (eq[1] == '\0') {
			fou_err_set(err, "parameter '%s' has no value", tok);
			return -EINVAL;
		}
		f->key[f->nkv] = tok;
		f->val[f->nkv++] = eq + 1;
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

static int
fou_stmt_port(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	char *colon = strchr(f->pos[0], ':');
	uint32_t udp;
	uint8_t proto;
	int ret;

	if (colon == NULL) {
		fou_err_set(err, "'%s' is not UDPPORT:PROTO", f->pos[0]);
		return -EINVAL;
	}
	*colon = '\0';
	ret = fou_parse_u32(f->pos[0], UINT16_MAX, &udp);
	if (ret < 0 || udp == 0) {
		fou_err_set(err, "UDP port '%s' is not in 1-65535", f->pos[0]);
		return -EINVAL;
	}
	ret = fou_parse_proto(colon + 1, &proto, err);
	if (ret < 0)
		return ret;
	return fou_port_add(gw, (uint16_t)udp, proto, err);
}

static int
fou_stmt_addr(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	struct fou_ip ip;
	uint16_t port;
	int ret;

	ret = fou_field_dev(f->pos[0], &port, err);
	if (ret == 0)
		ret = fou_parse_ip(f->pos[1], true, &ip, err);
	if (ret < 0)
		return ret;
	return fou_addr_add(gw, port, &ip, err);
}

static int
fou_stmt_route(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	const char *dev, *via_s = fou_fields_get(f, "via");
	struct fou_ip prefix, via;
	uint16_t port;
	int ret;

	ret = fou_parse_ip(f->pos[0], true, &prefix, err);
	if (ret < 0)
		return ret;
	dev = fou_fields_need(f, "dev", "PORTID", err);
	if (dev == NULL)
		return -EINVAL;
	ret = fou_field_dev(dev, &port, err);
	if (ret == 0 && via_s != NULL)
		ret = fou_parse_ip(via_s, false, &via, err);
	if (ret < 0)
		return ret;
	return fou_route_add(gw, &prefix, port, via_s != NULL ? &via : NULL, err);
}

static int
fou_stmt_neigh(struct fou_gw *gw, struct fou_fields *f, struct fou_err *err)
{
	const char *dev, *lladdr;
	struct rte_ether_addr mac;
	struct fou_ip ip;
	uint16_t port;
	int ret;

	ret = fou_parse_ip(f->pos[0], false, &ip, err);
	if (ret < 0)
		return ret;
	dev = fou_fields_need(f, "dev", "PORTID", err);
	if (dev == NULL)
		return -EINVAL;
	lladdr = fou_fields_need(f, "lladdr", "MAC", err);
	if (lladdr == NULL)
		return -EINVAL;
	ret = fou_field_dev(dev, &port, err);
	if (ret == 0)
		ret = fou_field_mac(lladdr, &mac, err);
	if (ret < 0)
		return ret;
	return fou_neigh_add(gw, &ip, port, &mac, err);
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

/* In application order: what a statement refers to comes before it. */
static const struct fou_stmt fou_stmts[] = {
	{ "link", "PORTID[,address=MAC][,mtu=N]",
	  "set a port's MAC address and L3 MTU (default 1500)",
	  1, { "address", "mtu" }, fou_stmt_link },
	{ "addr", "PORTID,IP/PLEN", "local address on a DPDK port (IPv4 or IPv6)",
	  2, { NULL }, fou_stmt_addr },
	{ "neigh", "IP,dev=PORTID,lladdr=MAC", "static neighbour",
	  1, { "dev", "lladdr" }, fou_stmt_neigh },
	{ "port", "UDPPORT:PROTO",
	  "FOU receive port, as `ip fou add port UDPPORT ipproto N`; PROTO: ipip, sit (alias ipv6), gre or an IP protocol number",
	  1, { NULL }, fou_stmt_port },
	{ "route", "PREFIX,dev=PORTID[,via=IP]", "route for inner packets (IPv4 or IPv6)",
	  1, { "dev", "via" }, fou_stmt_route },
};

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

const char *
fou_stmt_usage(const char *name)
{
	const struct fou_stmt *st = fou_stmt_find(name);

	return st == NULL ? NULL : st->usage;
}

int
fou_stmt_apply(struct fou_gw *gw, const char *name, const char *arg, struct fou_err *err)
{
	const struct fou_stmt *st = fou_stmt_find(name);
	struct fou_fields f;
	int ret;

	if (st == NULL) {
		fou_err_set(err, "unknown statement '%s'", name);
		return -EINVAL;
	}
	ret = fou_fields_split(st, arg, &f, err);
	if (ret < 0)
		return ret;
	return st->apply(gw, &f, err);
}
