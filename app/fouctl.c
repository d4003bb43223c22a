/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fouctl: configure and watch a running dpdk-fou, iproute2's shape over
 * the gateway's own vocabulary. `fouctl NAME add|del|set ARG` sends the
 * statement as it is (/fou/NAME/VERB,ARG): fouctl knows no statement, so
 * it cannot disagree with the gateway about one. What it knows are the
 * tables it prints (/fou/ports, /fou/tunnels, ...), the counters and the
 * running configuration.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fouctl.h"

#define FOUCTL_USAGE "usage: fouctl [-p PREFIX | -s SOCKET] [-j] [-t SECONDS] COMMAND [ARGS]"

static void
fouctl_help(FILE *f)
{
	fprintf(f, "%s\n\n"
		"Configure and watch a running dpdk-fou through its DPDK telemetry socket.\n\n"
		"Options:\n"
		"  -p, --file-prefix PREFIX  the gateway's EAL --file-prefix (default rte)\n"
		"  -s, --socket PATH         its telemetry socket, instead of the prefix's\n"
		"  -j, --json                print the gateway's JSON\n"
		"  -t, --timeout SECONDS     how long to wait for the gateway to be ready (default 10)\n"
		"  -h, --help                this text\n\n"
		"Commands (the statements are dpdk-fou's --NAME ARG; `fouctl help` lists them):\n"
		"  NAME add|del ARG          port, addr, neigh, tunnel, route, gro\n"
		"  NAME set ARG              link, sport-range, icmp-rate\n"
		"  port|tunnel|route|addr|neigh|lcore|punt show\n"
		"  tunnel show NAME          one tunnel\n"
		"  tunnel peer-config NAME   the Linux commands for its far end, ready to paste\n"
		"  tunnel mtu-probe NAME     search its path MTU again now (probe=on)\n"
		"  tunnel health NAME        its probes: state, RTT, loss, counters\n"
		"  neigh flush               forget the learnt neighbours\n"
		"  stats                     counters (ports: the NIC's; the rest since a reset)\n"
		"  stats -w SECONDS [-c N]   rates every SECONDS, until interrupted or N times\n"
		"  stats reset               the counters start again from 0\n"
		"  config                    the running configuration, as a --config file\n"
		"  help [NAME]               the statements of the running gateway\n",
		FOUCTL_USAGE);
}

void
fouctl_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("fouctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s\n", FOUCTL_USAGE);
	exit(FOUCTL_EXIT_USAGE);
}

/* --- text tables ---------------------------------------------------------- */

void
fouctl_tab_init(struct fouctl_tab *t, unsigned int ncol)
{
	memset(t, 0, sizeof(*t));
	t->ncol = ncol;
}

void
fouctl_tab_row(struct fouctl_tab *t, ...)
{
	va_list ap;
	unsigned int i;

	if (t->nrow == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->cell = realloc(t->cell, (size_t)t->cap * t->ncol * sizeof(*t->cell));
		if (t->cell == NULL)
			fouctl_die("out of memory");
	}
	va_start(ap, t);
	for (i = 0; i < t->ncol; i++) {
		char *s = strdup(va_arg(ap, const char *));

		if (s == NULL)
			fouctl_die("out of memory");
		t->cell[t->nrow * t->ncol + i] = s;
	}
	va_end(ap);
	t->nrow++;
}

void
fouctl_tab_print(struct fouctl_tab *t, const char *indent)
{
	unsigned int r, i;
	size_t w[16] = { 0 };

	for (r = 0; r < t->nrow; r++)
		for (i = 0; i < t->ncol && i < 16; i++)
			if (strlen(t->cell[r * t->ncol + i]) > w[i])
				w[i] = strlen(t->cell[r * t->ncol + i]);
	for (r = 0; r < t->nrow; r++) {
		fputs(indent, stdout);
		for (i = 0; i < t->ncol && i < 16; i++) {
			const char *s = t->cell[r * t->ncol + i];

			if (i == 0)
				printf("%-*s", (int)w[0], s);
			else
				printf("  %*s", (int)w[i], s);
		}
		putchar('\n');
	}
}

void
fouctl_tab_free(struct fouctl_tab *t)
{
	unsigned int i;

	for (i = 0; i < t->nrow * t->ncol; i++)
		free(t->cell[i]);
	free(t->cell);
	t->cell = NULL;
	t->nrow = t->cap = 0;
}

/* --- the tables ------------------------------------------------------------ */

/* `ip fou show`, with the protocol's name and what the port decapsulated;
 * a port over IPv6 (key "5555_6") ends with -6 as there. */
static void
fouctl_print_port(const char *key, const json_t *e)
{
	const char *v6 = fouctl_u64(e, "family") == 6 ? " -6" : "";
	const char *proto = fouctl_str(e, "proto");
	const int klen = (int)strcspn(key, "_");

	if (proto != NULL && strcmp(proto, "gue") == 0)
		printf("port %.*s gue%s decap %llu\n", klen, key, v6,
		       (unsigned long long)fouctl_u64(e, "decap"));
	else
		printf("port %.*s ipproto %llu (%s)%s decap %llu\n", klen, key,
		       (unsigned long long)fouctl_u64(e, "ipproto"), proto ? proto : "?", v6,
		       (unsigned long long)fouctl_u64(e, "decap"));
}

/* `ip -s tunnel show`'s order: what it is, then what it carried. */
static void
fouctl_print_tunnel(const char *key, const json_t *e)
{
	const char *encap = fouctl_str(e, "encap");
	const char *why = fouctl_str(e, "unresolved");
	const char *search = fouctl_str(e, "mtu_search");

	(void)key;
	printf("%s: %s%s%s remote %s local %s",
	       fouctl_str(e, "name") ? fouctl_str(e, "name") : "?",
	       fouctl_str(e, "type") ? fouctl_str(e, "type") : "?",
	       fouctl_str(e, "mode") ? " " : "", fouctl_str(e, "mode") ? fouctl_str(e, "mode") : "",
	       fouctl_str(e, "remote") ? fouctl_str(e, "remote") : "?",
	       fouctl_str(e, "local") ? fouctl_str(e, "local") : "?");
	if (fouctl_str(e, "tclass") != NULL) {
		/* `ip -d link`'s ip6tnl/ip6gre words */
		const json_t *el = json_object_get(e, "encaplimit");

		printf(" hoplimit %llu", (unsigned long long)fouctl_u64(e, "hoplimit"));
		if (json_is_string(el))
			printf(" encaplimit %s", json_string_value(el));
		else
			printf(" encaplimit %llu", (unsigned long long)fouctl_u64(e, "encaplimit"));
		printf(" tclass %s flowlabel %s", fouctl_str(e, "tclass"), fouctl_str(e, "flowlabel"));
	}
	if (encap != NULL && strcmp(encap, "none") != 0)
		printf(" encap %s encap-dport %llu", encap,
		       (unsigned long long)fouctl_u64(e, "encap_dport"));
	else if (encap != NULL)
		printf(" encap %s", encap);
	if (encap != NULL && strcmp(encap, "none") != 0 && fouctl_str(e, "tclass") != NULL)
		printf(" %s", fouctl_u64(e, "encap_csum6") ? "encap-csum6" : "noencap-csum6");
	printf(" mtu %llu", (unsigned long long)fouctl_u64(e, "mtu"));
	if (fouctl_str(e, "health") != NULL && strcmp(fouctl_str(e, "health"), "off") != 0)
		printf(" health %s", fouctl_str(e, "health"));
	putchar('\n');
	if (fouctl_u64(e, "path_mtu") != 0)
		printf("    path mtu %llu, expires in %llu s\n",
		       (unsigned long long)fouctl_u64(e, "path_mtu"),
		       (unsigned long long)fouctl_u64(e, "path_mtu_expires"));
	if (search != NULL && strcmp(search, "disabled") != 0)
		printf("    probed mtu %llu, search %s\n",
		       (unsigned long long)fouctl_u64(e, "probed_mtu"), search);
	if (why != NULL)
		printf("    unresolved: %s\n", why);
	printf("    rx packets %llu bytes %llu, tx packets %llu bytes %llu\n",
	       (unsigned long long)fouctl_u64(e, "rx_packets"),
	       (unsigned long long)fouctl_u64(e, "rx_bytes"),
	       (unsigned long long)fouctl_u64(e, "tx_packets"),
	       (unsigned long long)fouctl_u64(e, "tx_bytes"));
}

/* `ip route`: a local or broadcast route says so first; routes that come
 * with an address are proto kernel, as Linux' are. */
static void
fouctl_print_route(const char *key, const json_t *e)
{
	const char *type = fouctl_str(e, "type"), *via = fouctl_str(e, "via");
	const char *dev = fouctl_str(e, "dev"), *origin = fouctl_str(e, "origin");

	(void)key;
	if (type != NULL && strcmp(type, "connected") != 0 && strcmp(type, "gateway") != 0 &&
	    strcmp(type, "tunnel") != 0)
		printf("%s ", type);
	printf("%s", fouctl_str(e, "prefix") ? fouctl_str(e, "prefix") : "?");
	if (via != NULL)
		printf(" via %s", via);
	if (dev != NULL)
		printf(" dev %s", dev);
	if (origin != NULL)
		printf(" proto %s", strcmp(origin, "addr") == 0 ? "kernel" : "static");
	/* as ip route: a metric other than 0; a nexthop's weight and dead
	 * flag (RTNH_F_DEAD), for a tunnel made unusable; then whether the
	 * prefix's traffic takes it now */
	if (fouctl_u64(e, "metric") != 0)
		printf(" metric %llu", (unsigned long long)fouctl_u64(e, "metric"));
	if (json_object_get(e, "weight") != NULL && fouctl_u64(e, "weight") != 1)
		printf(" weight %llu", (unsigned long long)fouctl_u64(e, "weight"));
	if (json_object_get(e, "usable") != NULL && fouctl_u64(e, "usable") == 0)
		printf(" dead");
	if (json_object_get(e, "in_use") != NULL && fouctl_u64(e, "in_use") == 0)
		printf(" unused");
	putchar('\n');
}

/* A dev is a port number or a tunnel's name. */
static const char *
fouctl_dev(const json_t *e, char *buf, size_t len)
{
	const json_t *d = json_object_get(e, "dev");

	if (json_is_string(d))
		return json_string_value(d);
	snprintf(buf, len, "%llu", (unsigned long long)fouctl_u64(e, "dev"));
	return buf;
}

static void
fouctl_print_addr(const char *key, const json_t *e)
{
	const char *a = fouctl_str(e, "addr");
	char dev[24];

	(void)key;
	printf("%s %s dev %s\n", a != NULL && strchr(a, ':') != NULL ? "inet6" : "inet",
	       a != NULL ? a : "?", fouctl_dev(e, dev, sizeof(dev)));
}

/* `ip neigh`: no lladdr while there is none, NUD state last; then what
 * `ip -s neigh` adds. */
static void
fouctl_print_neigh(const char *key, const json_t *e)
{
	const char *mac = fouctl_str(e, "lladdr");
	char dev[24];

	(void)key;
	printf("%s dev %s", fouctl_str(e, "ip") ? fouctl_str(e, "ip") : "?",
	       fouctl_dev(e, dev, sizeof(dev)));
	if (mac != NULL && strcmp(mac, "00:00:00:00:00:00") != 0)
		printf(" lladdr %s", mac);
	if (fouctl_u64(e, "router") != 0)
		printf(" router");
	printf(" %s", fouctl_str(e, "state") ? fouctl_str(e, "state") : "?");
	if (fouctl_u64(e, "probes") != 0)
		printf(" probes %llu", (unsigned long long)fouctl_u64(e, "probes"));
	if (fouctl_u64(e, "queued") != 0)
		printf(" queued %llu", (unsigned long long)fouctl_u64(e, "queued"));
	putchar('\n');
}

static void
fouctl_print_lcore(const char *key, const json_t *e)
{
	const char *k;
	json_t *v;
	unsigned int port;
	bool first = true;
	uint64_t busy = fouctl_u64(e, "polls_busy"), idle = fouctl_u64(e, "polls_idle");

	printf("lcore %s: tx queue %llu, rx queues", key,
	       (unsigned long long)fouctl_u64(e, "tx_queue"));
	json_object_foreach((json_t *)e, k, v) {
		char *end;

		/* portN_rx_queue: the queue this lcore polls on port N */
		if (strncmp(k, "port", 4) != 0 || k[4] < '0' || k[4] > '9')
			continue;
		port = (unsigned int)strtoul(k + 4, &end, 10);
		if (strcmp(end, "_rx_queue") != 0)
			continue;
		printf("%s port %u queue %llu", first ? "" : ",", port,
		       (unsigned long long)fouctl_u64(e, k));
		first = false;
	}
	printf("%s\n    rx %llu tx %llu dropped %llu, polls busy %llu idle %llu (%.1f%% busy)\n",
	       first ? " none" : "", (unsigned long long)fouctl_u64(e, "rx"),
	       (unsigned long long)fouctl_u64(e, "tx"),
	       (unsigned long long)fouctl_u64(e, "dropped"), (unsigned long long)busy,
	       (unsigned long long)idle, busy + idle ? 100.0 * (double)busy / (double)(busy + idle) : 0.0);
}

/* A kernel interface (--punt), and the gateway's punt counters. */
static void
fouctl_print_punt(const char *key, const json_t *e)
{
	const json_t *n = json_object_get(e, "counters");

	printf("port %s: %s ifindex %llu, rate %llu/s burst %llu per lcore\n", key,
	       fouctl_str(e, "iface") ? fouctl_str(e, "iface") : "?",
	       (unsigned long long)fouctl_u64(e, "ifindex"),
	       (unsigned long long)fouctl_u64(e, "rate"), (unsigned long long)fouctl_u64(e, "burst"));
	printf("    up tcp %llu udp %llu icmp %llu other %llu neigh %llu copies %llu,"
	       " to kernel %llu (failed %llu), from kernel %llu\n",
	       (unsigned long long)fouctl_u64(n, "up_tcp"), (unsigned long long)fouctl_u64(n, "up_udp"),
	       (unsigned long long)fouctl_u64(n, "up_icmp"),
	       (unsigned long long)fouctl_u64(n, "up_other"),
	       (unsigned long long)fouctl_u64(n, "up_neigh"),
	       (unsigned long long)fouctl_u64(n, "up_copy"),
	       (unsigned long long)fouctl_u64(n, "to_kernel"),
	       (unsigned long long)fouctl_u64(n, "to_kernel_failed"),
	       (unsigned long long)fouctl_u64(n, "from_kernel"));
}

struct fouctl_show {
	const char *object;
	const char *cmd;
	bool paged;
	void (*print)(const char *key, const json_t *entry);
};

static const struct fouctl_show fouctl_shows[] = {
	{ "port", "/fou/ports", true, fouctl_print_port },
	{ "tunnel", "/fou/tunnels", true, fouctl_print_tunnel },
	{ "route", "/fou/routes", true, fouctl_print_route },
	{ "addr", "/fou/addrs", true, fouctl_print_addr },
	{ "neigh", "/fou/neighs", true, fouctl_print_neigh },
	{ "lcore", "/fou/lcores", false, fouctl_print_lcore },
	{ "punt", "/fou/punt", false, fouctl_print_punt },
};

static const struct fouctl_show *
fouctl_show_find(const char *object)
{
	size_t i;

	for (i = 0; i < sizeof(fouctl_shows) / sizeof(fouctl_shows[0]); i++)
		if (strcmp(fouctl_shows[i].object, object) == 0)
			return &fouctl_shows[i];
	return NULL;
}

static int
fouctl_show(struct fouctl *c, const struct fouctl_show *s, const char *name)
{
	json_t *t = s->paged ? fouctl_table(c, s->cmd) : fouctl_cmd(c, s->cmd, NULL);
	const char *key;
	json_t *e;

	if (!json_is_object(t))
		fouctl_die("the reply to %s is not a table", s->cmd);
	if (name != NULL) {
		/* tunnel show NAME: names are not keys (telemetry keys allow no
		 * '-' or '.'), so the table is searched */
		json_object_foreach(t, key, e)
			if (fouctl_is_entry(key) && json_is_object(e) &&
			    fouctl_str(e, "name") != NULL && strcmp(fouctl_str(e, "name"), name) == 0)
				break;
		if (key == NULL)
			fouctl_die("no tunnel '%s'", name);
		if (c->json)
			fouctl_print_json(e);
		else
			s->print(key, e);
	} else if (c->json) {
		fouctl_print_json(t);
	} else {
		json_object_foreach(t, key, e)
			if (fouctl_is_entry(key) && json_is_object(e))
				s->print(key, e);
	}
	json_decref(t);
	return 0;
}

/* `fouctl tunnel health NAME`: /fou/tunnel/health,NAME. */
static int
fouctl_tunnel_health(struct fouctl *c, const char *name)
{
	json_t *h = fouctl_cmd(c, "/fou/tunnel/health", name);

#define H(k) ((unsigned long long)fouctl_u64(h, k))
	if (c->json) {
		fouctl_print_json(h);
	} else {
		printf("%s: health %s, probes every %llu ms, down after %llu unanswered%s%s\n",
		       fouctl_str(h, "name") ? fouctl_str(h, "name") : name,
		       fouctl_str(h, "state") ? fouctl_str(h, "state") : "?", H("interval_ms"),
		       H("timeout"), H("probing_ipv4") ? ", over IPv4" : "",
		       H("probing_ipv6") ? ", over IPv6" : "");
		printf("    since %llu ms, %llu changes; unanswered %llu\n", H("last_change_ms"),
		       H("transitions"), H("unanswered"));
		printf("    rtt last %llu us min %llu us avg %llu us jitter %llu us\n",
		       H("rtt_last_us"), H("rtt_min_us"), H("rtt_avg_us"), H("rtt_jitter_us"));
		printf("    loss %llu of the last %llu\n", H("loss_window_lost"), H("loss_window"));
		printf("    sent %llu received %llu lost %llu late %llu replayed %llu forged %llu"
		       " wrong_tunnel %llu bad_ttl %llu\n", H("sent"), H("received"), H("lost"),
		       H("late"), H("replayed"), H("forged"), H("wrong_tunnel"), H("bad_ttl"));
	}
#undef H
	json_decref(h);
	return 0;
}

/* --- the running configuration --------------------------------------------- */

/* /fou/config's entries are ["NAME", "ARG part", ...]: the parts joined by
 * ',' are ARG, and `NAME = ARG` is a line of a --config file. */
static int
fouctl_config(struct fouctl *c)
{
	json_t *t = fouctl_table(c, "/fou/config"), *e, *part;
	const char *key;
	size_t i;

	if (c->json) {
		fouctl_print_json(t);
		json_decref(t);
		return 0;
	}
	json_object_foreach(t, key, e) {
		if (!fouctl_is_entry(key))
			continue;
		if (!json_is_array(e) || json_array_size(e) < 1)
			fouctl_die("/fou/config: entry %s is not [NAME, ARG, ...]", key);
		json_array_foreach(e, i, part)
			if (!json_is_string(part))
				fouctl_die("/fou/config: entry %s is not [NAME, ARG, ...]", key);
		printf("%s =", json_string_value(json_array_get(e, 0)));
		json_array_foreach(e, i, part)
			if (i > 0)
				printf("%s%s", i == 1 ? " " : ",", json_string_value(part));
		putchar('\n');
	}
	json_decref(t);
	return 0;
}

/* --- the peer's config ------------------------------------------------------ */

/* /fou/tunnel/peer_config's entries "0".."count-1" are ["word word ...",
 * ...]: the parts joined by ' ' are one command, printed a line each. */
static int
fouctl_peer_config(struct fouctl *c, const char *name)
{
	json_t *t, *e, *part;
	uint64_t i, n;
	size_t k;

	if (name[0] == '\0' || strlen(name) > 15 || strchr(name, ',') != NULL)
		fouctl_usage_error("'%s' is not a tunnel name", name);
	t = fouctl_table_arg(c, "/fou/tunnel/peer_config", name);
	if (c->json) {
		fouctl_print_json(t);
		json_decref(t);
		return 0;
	}
	n = fouctl_u64(t, "count");
	for (i = 0; i < n; i++) {
		char key[24];

		snprintf(key, sizeof(key), "%llu", (unsigned long long)i);
		e = json_object_get(t, key);
		if (!json_is_array(e) || json_array_size(e) < 1)
			fouctl_die("/fou/tunnel/peer_config: entry %s is not [PART, ...]", key);
		json_array_foreach(e, k, part) {
			if (!json_is_string(part))
				fouctl_die("/fou/tunnel/peer_config: entry %s is not [PART, ...]", key);
			printf("%s%s", k ? " " : "", json_string_value(part));
		}
		putchar('\n');
	}
	json_decref(t);
	return 0;
}

/* --- statements ------------------------------------------------------------ */

/* Telemetry command names allow letters, digits and '_': a statement's
 * '-' becomes '_' as the gateway registers it. */
static void
fouctl_stmt_cmd(char *buf, size_t len, const char *name, const char *verb)
{
	size_t i;

	if (name[0] == '\0' || strlen(name) > 32 ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
	    strlen(name))
		fouctl_usage_error("'%s' is not a statement name", name);
	snprintf(buf, len, "/fou/%s/%s", name, verb);
	for (i = 5; buf[i] != '/'; i++)
		if (buf[i] == '-')
			buf[i] = '_';
}

static int
fouctl_stmt(struct fouctl *c, const char *name, const char *verb, const char *arg)
{
	char cmd[64];
	json_t *r;

	fouctl_stmt_cmd(cmd, sizeof(cmd), name, verb);
	r = fouctl_cmd(c, cmd, arg);
	if (c->json)
		fouctl_print_json(r);
	json_decref(r);
	return 0;
}

/* The statement commands the gateway lists, with its help for each. */
static int
fouctl_stmt_help(struct fouctl *c, const char *only)
{
	json_t *list = fouctl_cmd(c, "/", NULL), *v, *out = json_object();
	char prefix[64] = "/fou/";
	size_t i, n = 0;

	if (only != NULL)
		fouctl_stmt_cmd(prefix, sizeof(prefix), only, "");
	if (!c->json && only == NULL) {
		fouctl_help(stdout);
		printf("\nStatements of the running dpdk-fou (fouctl NAME VERB ARG):\n");
	}
	json_array_foreach(list, i, v) {
		const char *cmd = json_is_string(v) ? json_string_value(v) : "";
		const char *verb = strrchr(cmd, '/');
		char name[64];
		json_t *h;
		size_t k;

		if (strncmp(cmd, prefix, strlen(prefix)) != 0 || verb == NULL ||
		    (strcmp(verb, "/add") != 0 && strcmp(verb, "/del") != 0 &&
		     strcmp(verb, "/set") != 0) || verb - cmd <= 5)
			continue;
		/* statements are one level under /fou */
		if (memchr(cmd + 5, '/', (size_t)(verb - cmd - 5)) != NULL)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(verb - cmd - 5), cmd + 5);
		for (k = 0; name[k] != '\0'; k++)
			if (name[k] == '_')
				name[k] = '-';
		h = fouctl_cmd(c, "/help", cmd);
		n++;
		if (c->json) {
			json_object_set(out, cmd, json_object_get(h, cmd));
		} else {
			const char *text = fouctl_str(h, cmd);

			printf("  %s %s\n      %s\n", name, verb + 1, text != NULL ? text : "");
		}
		json_decref(h);
	}
	if (n == 0 && only != NULL)
		fouctl_die("dpdk-fou has no statement '%s'", only);
	if (c->json)
		fouctl_print_json(out);
	json_decref(out);
	json_decref(list);
	return 0;
}

/* --- the command line -------------------------------------------------------- */

/* Seconds: a number >= 0, fractions allowed. */
double
fouctl_seconds(const char *opt, const char *s, bool zero_ok)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (s[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v) || v < 0 ||
	    (!zero_ok && v == 0) || v > 86400)
		fouctl_usage_error("%s: '%s' is not a number of seconds%s", opt, s,
				   zero_ok ? "" : " above 0");
	return v;
}

static bool
fouctl_is(const char *s, const char *a, const char *b)
{
	return s != NULL && (strcmp(s, a) == 0 || (b != NULL && strcmp(s, b) == 0));
}

static int
fouctl_run(struct fouctl *c, int argc, char **argv)
{
	const char *object = argv[0], *verb = argc > 1 ? argv[1] : NULL;
	const struct fouctl_show *show = fouctl_show_find(object);

	if (strcmp(object, "stats") == 0)
		return fouctl_stats(c, argc, argv);
	if (strcmp(object, "config") == 0) {
		if (argc > 1)
			fouctl_usage_error("unexpected '%s' after config", argv[1]);
		return fouctl_config(c);
	}
	if (strcmp(object, "help") == 0) {
		if (argc > 2)
			fouctl_usage_error("unexpected '%s' after help %s", argv[2], argv[1]);
		return fouctl_stmt_help(c, verb);
	}
	if (strcmp(object, "tunnel") == 0 && fouctl_is(verb, "peer-config", NULL)) {
		if (argc != 3)
			fouctl_usage_error(argc < 3 ? "tunnel peer-config needs a tunnel name" :
					   "unexpected '%s' after tunnel peer-config NAME", argv[argc - 1]);
		return fouctl_peer_config(c, argv[2]);
	}
	if (show != NULL && (verb == NULL || fouctl_is(verb, "show", "list"))) {
		bool named = strcmp(object, "tunnel") == 0;

		if (argc > (named ? 3 : 2))
			fouctl_usage_error("unexpected '%s' after %s show", argv[argc - 1], object);
		return fouctl_show(c, show, argc > 2 ? argv[2] : NULL);
	}
	if (strcmp(object, "tunnel") == 0 && fouctl_is(verb, "health", NULL)) {
		if (argc != 3)
			fouctl_usage_error("tunnel health takes one tunnel name");
		return fouctl_tunnel_health(c, argv[2]);
	}
	if (strcmp(object, "neigh") == 0 && fouctl_is(verb, "flush", NULL)) {
		json_t *r;

		if (argc > 2)
			fouctl_usage_error("unexpected '%s' after neigh flush", argv[2]);
		r = fouctl_cmd(c, "/fou/neigh/flush", NULL);
		if (c->json)
			fouctl_print_json(r);
		json_decref(r);
		return 0;
	}
	if (strcmp(object, "tunnel") == 0 && fouctl_is(verb, "mtu-probe", NULL)) {
		json_t *r;

		if (argc != 3)
			fouctl_usage_error("tunnel mtu-probe takes a tunnel's name%s",
					   argc > 3 ? " only" : "");
		r = fouctl_cmd(c, "/fou/tunnel/mtu_probe", argv[2]);
		if (c->json)
			fouctl_print_json(r);
		json_decref(r);
		return 0;
	}
	if (verb == NULL)
		fouctl_usage_error("%s: add, del or set what? (fouctl help %s)", object, object);
	if (fouctl_is(verb, "add", NULL) || fouctl_is(verb, "del", "delete") ||
	    fouctl_is(verb, "set", NULL)) {
		if (argc < 3)
			fouctl_usage_error("%s %s needs an argument (fouctl help %s)", object, verb,
					   object);
		if (argc > 3)
			fouctl_usage_error("%s %s takes one argument, its fields joined by ',' (unexpected '%s')",
					   object, verb, argv[3]);
		return fouctl_stmt(c, object, fouctl_is(verb, "delete", NULL) ? "del" : verb,
				   argv[2]);
	}
	if (fouctl_is(verb, "show", "list") || strcmp(verb, "flush") == 0)
		fouctl_usage_error("there is no '%s %s' (show: port, tunnel, route, addr, neigh, lcore, punt)",
				   object, verb);
	fouctl_usage_error("unknown command '%s %s' (verbs: add, del, set, show)", object, verb);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "file-prefix", required_argument, NULL, 'p' },
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fouctl c = { .prefix = "rte", .timeout = 10, .fd = -1 };
	int opt, ret;

	opterr = 0;
	/* '+': options end at the command, whose arguments may start with '-' */
	while ((opt = getopt_long(argc, argv, "+:p:s:jt:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (optarg[0] == '\0' || strchr(optarg, '/') != NULL)
				fouctl_usage_error("-p: '%s' is not a file prefix", optarg);
			c.prefix = optarg;
			break;
		case 's':
			c.socket = optarg;
			break;
		case 'j':
			c.json = true;
			break;
		case 't':
			c.timeout = fouctl_seconds("-t", optarg, true);
			break;
		case 'h':
			fouctl_help(stdout);
			return 0;
		case ':':
			fouctl_usage_error("%s needs an argument", argv[optind - 1]);
		default:
			if (optopt != 0)
				fouctl_usage_error("unknown option '-%c'", optopt);
			fouctl_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		fouctl_usage_error("no command");
	ret = fouctl_run(&c, argc - optind, argv + optind);
	fouctl_close(&c);
	if (fflush(stdout) != 0 || ferror(stdout))
		fouctl_die("writing the output: %s", strerror(errno));
	return ret;
}
