/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config file: one statement per line as `NAME = ARG`, the same NAME and
 * ARG as the command line's `--NAME ARG`; '#' starts a comment. Read with
 * rte_cfgfile; sections are not used. The running configuration is
 * written back as the same statements (fou_config_dump()). Text layer,
 * on the public headers; called by the app and fou_telemetry.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_cfgfile.h>

#include "fou_stmt.h"

#define FOU_CFG_GLOBAL "GLOBAL"	/* rte_cfgfile's name for lines before any section */

/*
 * What rte_cfgfile does not report: a file that cannot be opened (it says
 * only "failed"), a directory (read as an empty file), a line without '='
 * (skipped silently) and a name or value too long (truncated). Comments as rte_cfgfile sees them: from the first
 * '#' not preceded by a backslash.
 */
static int
fou_config_check(const char *path, struct fou_err *err)
{
	unsigned int lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	struct stat st;
	int ret = 0, e;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL) {
		e = errno;
		fou_err_set(err, "%s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fou_err_set(err, "%s: %s", path, strerror(EISDIR));
		fclose(f);
		return -EISDIR;
	}
	while (ret == 0 && getline(&line, &cap, f) >= 0) {
		char *hash = strchr(line, '#'), *p = line, *eq;

		lineno++;
		if (hash != NULL && (hash == line || hash[-1] != '\\'))
			*hash = '\0';
		p += strspn(p, " \t\r\n");
		p[strcspn(p, "\r\n")] = '\0';
		if (*p == '\0' || *p == '[')
			continue;
		eq = strchr(p, '=');
		if (eq == NULL) {
			fou_err_set(err, "%s:%u: '%.*s' is not a NAME = VALUE line", path, lineno,
				    64, p);
			ret = -EINVAL;
		} else if ((size_t)(eq - p) >= CFG_NAME_LEN ||
			   strlen(eq + 1 + strspn(eq + 1, " \t")) >= CFG_VALUE_LEN) {
			/* rte_cfgfile would cut it short without a word */
			fou_err_set(err, "%s:%u: name longer than %d or value longer than %d characters",
				    path, lineno, CFG_NAME_LEN - 1, CFG_VALUE_LEN - 1);
			ret = -E2BIG;
		}
	}
	if (ret == 0 && ferror(f)) {
		e = errno;
		fou_err_set(err, "%s: %s", path, strerror(e));
		ret = -e;
	}
	free(line);
	fclose(f);
	return ret;
}

int
fou_config_load(const char *path, fou_stmt_cb cb, void *ctx, struct fou_err *err)
{
	struct rte_cfgfile_parameters params = { .comment_character = '#' };
	struct rte_cfgfile_entry *entries = NULL;
	struct rte_cfgfile *cfg;
	int n, i, ret;

	ret = fou_config_check(path, err);
	if (ret < 0)
		return ret;

	cfg = rte_cfgfile_load_with_params(path, CFG_FLAG_GLOBAL_SECTION, &params);
	if (cfg == NULL) {
		fou_err_set(err, "%s: not NAME = VALUE lines (see the line logged above)", path);
		return -EINVAL;
	}
	if (rte_cfgfile_num_sections(cfg, NULL, 0) > 1 ||
	    (rte_cfgfile_num_sections(cfg, NULL, 0) == 1 &&
	     !rte_cfgfile_has_section(cfg, FOU_CFG_GLOBAL))) {
		fou_err_set(err, "%s: sections ([...]) are not used", path);
		ret = -EINVAL;
		goto out;
	}
	n = rte_cfgfile_section_num_entries(cfg, FOU_CFG_GLOBAL);
	if (n <= 0)
		goto out;
	entries = calloc((size_t)n, sizeof(*entries));
	if (entries == NULL) {
		fou_err_set(err, "%s: out of memory", path);
		ret = -ENOMEM;
		goto out;
	}
	n = rte_cfgfile_section_entries(cfg, FOU_CFG_GLOBAL, entries, n);
	for (i = 0; i < n && ret == 0; i++)
		ret = cb(ctx, entries[i].name, entries[i].value, err);
out:
	free(entries);
	rte_cfgfile_close(cfg);
	return ret;
}

/* --- the running configuration as statements ---------------------------- */

struct fou_dump {
	fou_stmt_cb cb;
	void *ctx;
	struct fou_err *err;
	int ret;
};

static void
fou_dump_emit(struct fou_dump *d, const char *name, const char *fmt, ...)
	__rte_format_printf(3, 4);

static void
fou_dump_emit(struct fou_dump *d, const char *name, const char *fmt, ...)
{
	char arg[FOU_ERR_LEN];
	va_list ap;

	if (d->ret != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(arg, sizeof(arg), fmt, ap);
	va_end(ap);
	d->ret = d->cb(d->ctx, name, arg, d->err);
}

/* The table sizes, where they are not the defaults. */
static void
fou_dump_limits(const struct fou_gw *gw, struct fou_dump *d)
{
	struct fou_gw_params p, def;
	char arg[128] = "";
	size_t n = 0;

	fou_gw_params_get(gw, &p);
	fou_gw_params_default(&def);
	if (p.max_tunnels != def.max_tunnels)
		n += snprintf(arg + n, sizeof(arg) - n, ",tunnels=%u", p.max_tunnels);
	if (p.max_routes4 != def.max_routes4)
		n += snprintf(arg + n, sizeof(arg) - n, ",routes4=%u", p.max_routes4);
	if (p.max_routes6 != def.max_routes6)
		n += snprintf(arg + n, sizeof(arg) - n, ",routes6=%u", p.max_routes6);
	if (p.max_neighs != def.max_neighs)
		snprintf(arg + n, sizeof(arg) - n, ",neigh=%u", p.max_neighs);
	if (arg[0] != '\0')
		fou_dump_emit(d, "limits", "%s", arg + 1);
}

static void
fou_dump_links(const struct fou_gw *gw, struct fou_dump *d)
{
	struct rte_ether_addr mac;
	char m[RTE_ETHER_ADDR_FMT_SIZE];
	uint16_t port, mtu;
	uint16_t smin, smax;
	uint32_t rate, burst, timeout;
	bool gro;

	fou_sport_range_get(gw, &smin, &smax);
	fou_dump_emit(d, "sport-range", "%u-%u", smin, smax);
	fou_icmp_rate_get(gw, &rate, &burst);
	fou_dump_emit(d, "icmp-rate", "%u,burst=%u", rate, burst);
	/* as limits: only where it is not the default */
	if (fou_reasm_time_get(gw) != FOU_REASM_TIME_DEFAULT)
		fou_dump_emit(d, "ipfrag-time", "%u", fou_reasm_time_get(gw));
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (fou_iface_get(gw, port, &mac, &mtu) < 0)
			continue;
		rte_ether_format_addr(m, sizeof(m), &mac);
		fou_dump_emit(d, "link", "%u,address=%s,mtu=%u", port, m, mtu);
		if (fou_gro_get(gw, port, &gro, &timeout) == 0 && gro)
			fou_dump_emit(d, "gro", "%u,timeout=%u", port, timeout);
	}
}

static void
fou_dump_punt(const struct fou_gw *gw, struct fou_dump *d)
{
	struct fou_punt_info pi[RTE_MAX_ETHPORTS];
	unsigned int n, i;

	n = RTE_MIN(fou_punt_list(gw, pi, RTE_DIM(pi)), (unsigned int)RTE_DIM(pi));
	for (i = 0; i < n; i++)
		fou_dump_emit(d, "punt", "%u,iface=%s,rate=%u,burst=%u", pi[i].port,
			      pi[i].conf.ifname, pi[i].conf.rate, pi[i].conf.burst);
}

/*
 * Emit a statement for each entry of a table: list() fills an array of n
 * entries of size bytes and returns how many there are.
 */
static void
fou_dump_table(const struct fou_gw *gw, struct fou_dump *d, size_t size,
	       unsigned int (*list)(const struct fou_gw *gw, void *out, unsigned int n),
	       void (*emit)(struct fou_dump *d, const void *entry))
{
	unsigned int n = list(gw, NULL, 0), i;
	uint8_t *v;

	if (d->ret != 0)
		return;
	v = calloc(n + 1, size);
	if (v == NULL) {
		fou_err_set(d->err, "out of memory");
		d->ret = -ENOMEM;
		return;
	}
	n = RTE_MIN(n, list(gw, v, n));
	for (i = 0; i < n; i++)
		emit(d, v + i * size);
	free(v);
}

static unsigned int
fou_dump_list_addrs(const struct fou_gw *gw, void *out, unsigned int n)
{
	return fou_addr_list(gw, out, n);
}

/* The ports' addresses: before what is built on them. */
static void
fou_dump_addr(struct fou_dump *d, const void *entry)
{
	const struct fou_addr_info *a = entry;

	if (a->tunnel[0] == '\0')
		fou_dump_emit(d, "addr", "%u,%s/%u", a->port, FOU_IPSTR(&a->ip), a->ip.plen);
}

/* The tunnels' addresses: after the tunnels. */
static void
fou_dump_tunnel_addr(struct fou_dump *d, const void *entry)
{
	const struct fou_addr_info *a = entry;

	if (a->tunnel[0] != '\0')
		fou_dump_emit(d, "addr", "%s,%s/%u", a->tunnel, FOU_IPSTR(&a->ip), a->ip.plen);
}

static unsigned int
fou_dump_list_neighs(const struct fou_gw *gw, void *out, unsigned int n)
{
	return fou_neigh_list(gw, out, n, 0);
}

static void
fou_dump_neigh(struct fou_dump *d, const void *entry)
{
	const struct fou_neigh_info *ni = entry;
	char m[RTE_ETHER_ADDR_FMT_SIZE];

	/* what was learnt is not configuration */
	if (ni->state != FOU_NUD_PERMANENT)
		return;
	rte_ether_format_addr(m, sizeof(m), &ni->mac);
	fou_dump_emit(d, "neigh", "%s,dev=%u,lladdr=%s", FOU_IPSTR(&ni->ip), ni->port, m);
}

static void
fou_dump_ports(const struct fou_gw *gw, struct fou_dump *d)
{
	struct fou_port_info info[FOU_MAX_UDP_PORTS];
	unsigned int n = fou_port_list(gw, info, RTE_DIM(info)), i;

	for (i = 0; i < n; i++) {
		const char *name = info[i].gue ? "gue" : fou_proto_name(info[i].ipproto);
		const char *fam = info[i].family == AF_INET6 ? ",family=6" : "";

		if (name != NULL)
			fou_dump_emit(d, "port", "%u:%s%s", info[i].udp_port, name, fam);
		else
			fou_dump_emit(d, "port", "%u:%u%s", info[i].udp_port, info[i].ipproto, fam);
	}
}

/* A tunnel statement with what differs from iproute2's defaults. */
static void
fou_dump_tunnel(struct fou_dump *d, const void *entry)
{
	const struct fou_tunnel_conf *c = &((const struct fou_tunnel_info *)entry)->conf;
	char arg[FOU_ERR_LEN];
	int n;

	n = snprintf(arg, sizeof(arg), "%s,type=%s", c->name, fou_tunnel_type_name(c));
	/* ip6tnl's default mode is ip6ip6 */
	if (fou_tunnel_mode_name(c) != NULL && c->type != IPPROTO_IPV6)
		n += snprintf(arg + n, sizeof(arg) - n, ",mode=%s", fou_tunnel_mode_name(c));
	n += snprintf(arg + n, sizeof(arg) - n, ",local=%s,remote=%s", FOU_IPSTR(&c->local),
		      FOU_IPSTR(&c->remote));
	if (c->local.family == AF_INET6) {
		/* iproute2's defaults: hoplimit 64, tclass 0, flowlabel 0, encaplimit 4 */
		if (c->ttl == 0)
			n += snprintf(arg + n, sizeof(arg) - n, ",hoplimit=inherit");
		else if (c->ttl != 64)
			n += snprintf(arg + n, sizeof(arg) - n, ",hoplimit=%u", c->ttl);
		if (c->tos_inherit)
			n += snprintf(arg + n, sizeof(arg) - n, ",tclass=inherit");
		else if (c->tos != 0)
			n += snprintf(arg + n, sizeof(arg) - n, ",tclass=0x%02x", c->tos);
		if (c->flowlabel_inherit)
			n += snprintf(arg + n, sizeof(arg) - n, ",flowlabel=inherit");
		else if (c->flowlabel != 0)
			n += snprintf(arg + n, sizeof(arg) - n, ",flowlabel=0x%05x", c->flowlabel);
		if (c->encaplimit < 0)
			n += snprintf(arg + n, sizeof(arg) - n, ",encaplimit=none");
		else if (c->encaplimit != 4)
			n += snprintf(arg + n, sizeof(arg) - n, ",encaplimit=%d", c->encaplimit);
		if (c->encap != FOU_ENCAP_NONE && !c->encap_csum6)
			n += snprintf(arg + n, sizeof(arg) - n, ",noencap-udp6-csum");
	} else {
		if (c->ttl != 0)
			n += snprintf(arg + n, sizeof(arg) - n, ",ttl=%u", c->ttl);
		if (c->tos_inherit)
			n += snprintf(arg + n, sizeof(arg) - n, ",tos=inherit");
		else if (c->tos != 0)
			n += snprintf(arg + n, sizeof(arg) - n, ",tos=0x%02x", c->tos);
		if (!c->pmtudisc)
			n += snprintf(arg + n, sizeof(arg) - n, ",nopmtudisc");
	}
	if (c->encap != FOU_ENCAP_FOU)
		n += snprintf(arg + n, sizeof(arg) - n, ",encap=%s", fou_encap_name(c->encap));
	if (c->encap_sport != 0)
		n += snprintf(arg + n, sizeof(arg) - n, ",encap-sport=%u", c->encap_sport);
	if (c->encap != FOU_ENCAP_NONE)
		n += snprintf(arg + n, sizeof(arg) - n, ",encap-dport=%u", c->encap_dport);
	if (c->encap_csum)
		n += snprintf(arg + n, sizeof(arg) - n, ",encap-csum");
	if (c->key_set)
		n += snprintf(arg + n, sizeof(arg) - n, ",key=%u", c->key);
	if (c->gre_csum)
		n += snprintf(arg + n, sizeof(arg) - n, ",csum");
	if (c->gre_seq)
		n += snprintf(arg + n, sizeof(arg) - n, ",seq");
	if (c->probe)
		n += snprintf(arg + n, sizeof(arg) - n, ",probe=on");
	if (c->probe_interval_ms != FOU_PROBE_INTERVAL_DEFAULT)
		n += snprintf(arg + n, sizeof(arg) - n, ",interval=%u", c->probe_interval_ms);
	if (c->probe_timeout != FOU_PROBE_TIMEOUT_DEFAULT)
		snprintf(arg + n, sizeof(arg) - n, ",timeout=%u", c->probe_timeout);
	fou_dump_emit(d, "tunnel", "%s", arg);
}

static unsigned int
fou_dump_list_tunnels(const struct fou_gw *gw, void *out, unsigned int n)
{
	return fou_tunnel_list(gw, out, n);
}

static unsigned int
fou_dump_list_routes(const struct fou_gw *gw, void *out, unsigned int n)
{
	return fou_route_list(gw, out, n, 0);
}

/* Routes of route statements; an address brings its own. */
static void
fou_dump_route(struct fou_dump *d, const void *entry)
{
	const struct fou_route_info *r = entry;
	char arg[160];
	int n;

	if (r->from_addr)
		return;
	n = snprintf(arg, sizeof(arg), "%s/%u", FOU_IPSTR(&r->prefix), r->prefix.plen);
	if (r->tunnel[0] != '\0')
		n += snprintf(arg + n, sizeof(arg) - n, ",dev=%s", r->tunnel);
	else
		n += snprintf(arg + n, sizeof(arg) - n, ",dev=%u", r->port);
	if (r->via.family != 0)
		n += snprintf(arg + n, sizeof(arg) - n, ",via=%s", FOU_IPSTR(&r->via));
	if (r->metric != 0)
		n += snprintf(arg + n, sizeof(arg) - n, ",metric=%u", r->metric);
	if (r->weight != 1)
		snprintf(arg + n, sizeof(arg) - n, ",weight=%u", r->weight);
	fou_dump_emit(d, "route", "%s", arg);
}

int
fou_config_dump(const struct fou_gw *gw, fou_stmt_cb cb, void *ctx, struct fou_err *err)
{
	struct fou_dump d = { .cb = cb, .ctx = ctx, .err = err };

	fou_dump_limits(gw, &d);
	fou_dump_links(gw, &d);
	fou_dump_punt(gw, &d);
	fou_dump_table(gw, &d, sizeof(struct fou_addr_info), fou_dump_list_addrs, fou_dump_addr);
	fou_dump_table(gw, &d, sizeof(struct fou_neigh_info), fou_dump_list_neighs,
		       fou_dump_neigh);
	fou_dump_ports(gw, &d);
	fou_dump_table(gw, &d, sizeof(struct fou_tunnel_info), fou_dump_list_tunnels,
		       fou_dump_tunnel);
	fou_dump_table(gw, &d, sizeof(struct fou_addr_info), fou_dump_list_addrs,
		       fou_dump_tunnel_addr);
	fou_dump_table(gw, &d, sizeof(struct fou_route_info), fou_dump_list_routes,
		       fou_dump_route);
	return d.ret;
}
