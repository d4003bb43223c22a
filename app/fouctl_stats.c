/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fouctl stats: the gateway's counters as `ip -s link` shows a host's, and
 * a live view of their rates (`stats -w`). Ports are the NIC's counters
 * (DPDK's /ethdev/stats, with bytes, never reset, as a kernel device's);
 * the gateway's own (drops by reason, ICMP sent, its local stack,
 * tunnels) count since `fouctl stats reset`.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fouctl.h"

struct fouctl_sample {
	json_t *stats;		/* /fou/stats */
	json_t *tunnels;	/* /fou/tunnels, every page */
	json_t *by_name;	/* tunnel name -> its entry (positions move) */
	json_t *ethdev;		/* port id -> /ethdev/stats,PORT */
	double t;
};

static void
fouctl_sample(struct fouctl *c, struct fouctl_sample *s)
{
	const char *key;
	json_t *v;

	s->t = fouctl_now();
	s->stats = fouctl_cmd(c, "/fou/stats", NULL);
	if (!json_is_object(s->stats))
		fouctl_die("the reply to /fou/stats is not a dict");
	s->tunnels = fouctl_table(c, "/fou/tunnels");
	s->by_name = json_object();
	json_object_foreach(s->tunnels, key, v)
		if (fouctl_is_entry(key) && fouctl_str(v, "name") != NULL)
			json_object_set(s->by_name, fouctl_str(v, "name"), v);
	/* the ports the gateway runs on, as it numbers them */
	s->ethdev = json_object();
	json_object_foreach(json_object_get(s->stats, "rx_by_port"), key, v) {
		json_t *e = fouctl_cmd(c, "/ethdev/stats", key);

		if (!json_is_object(e))
			fouctl_die("the reply to /ethdev/stats,%s is not a dict", key);
		json_object_set_new(s->ethdev, key, e);
	}
}

static void
fouctl_sample_free(struct fouctl_sample *s)
{
	json_decref(s->stats);
	json_decref(s->tunnels);
	json_decref(s->by_name);
	json_decref(s->ethdev);
	memset(s, 0, sizeof(*s));
}

static const char *
fouctl_num(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

#define NUM(v) fouctl_num((v), (char[24]){ 0 }, 24)

/* A dict of counters by name, those not zero, under a title. */
static void
fouctl_print_named(const json_t *d, const char *title)
{
	struct fouctl_tab t;
	const char *key;
	json_t *v;

	fouctl_tab_init(&t, 2);
	json_object_foreach((json_t *)d, key, v)
		if (fouctl_u64(d, key) != 0)
			fouctl_tab_row(&t, key, NUM(fouctl_u64(d, key)));
	if (t.nrow != 0) {
		printf("\n%s:\n", title);
		fouctl_tab_print(&t, "    ");
	}
	fouctl_tab_free(&t);
}

static void
fouctl_print_stats(const struct fouctl_sample *s)
{
	const json_t *st = s->stats;
	struct fouctl_tab t;
	const char *key;
	json_t *e;

	printf("rx %llu tx %llu dropped %llu held %llu, decap %llu (ipv4 %llu, ipv6 %llu)\n",
	       (unsigned long long)fouctl_u64(st, "rx"), (unsigned long long)fouctl_u64(st, "tx"),
	       (unsigned long long)fouctl_u64(st, "dropped"),
	       (unsigned long long)fouctl_u64(st, "held"),
	       (unsigned long long)fouctl_u64(st, "decap"),
	       (unsigned long long)fouctl_u64(st, "decap_ipv4"),
	       (unsigned long long)fouctl_u64(st, "decap_ipv6"));
	if (fouctl_u64(st, "gro_merged") + fouctl_u64(st, "gro_flushed") +
	    fouctl_u64(st, "gro_tso") + fouctl_u64(st, "gso_packets") != 0)
		printf("gro merged %llu flushed %llu tso %llu, gso packets %llu segments %llu\n",
		       (unsigned long long)fouctl_u64(st, "gro_merged"),
		       (unsigned long long)fouctl_u64(st, "gro_flushed"),
		       (unsigned long long)fouctl_u64(st, "gro_tso"),
		       (unsigned long long)fouctl_u64(st, "gso_packets"),
		       (unsigned long long)fouctl_u64(st, "gso_segments"));
	/* the packets fragmentation added keep rx + added = tx + dropped + ... */
	if (fouctl_u64(st, "frag_packets") != 0)
		printf("fragmented %llu packets into %llu fragments\n",
		       (unsigned long long)fouctl_u64(st, "frag_packets"),
		       (unsigned long long)fouctl_u64(st, "frag_fragments"));
	if (fouctl_u64(st, "reasm_datagrams") + fouctl_u64(st, "reasm_held") != 0)
		printf("reassembly: datagrams %llu, fragments absorbed %llu, held %llu\n",
		       (unsigned long long)fouctl_u64(st, "reasm_datagrams"),
		       (unsigned long long)fouctl_u64(st, "reasm_absorbed"),
		       (unsigned long long)fouctl_u64(st, "reasm_held"));
	/* every port, as `ip -s link` lists every link */
	json_object_foreach(s->ethdev, key, e) {
		printf("\nport %s:\n", key);
		fouctl_tab_init(&t, 6);
		fouctl_tab_row(&t, "RX:", "bytes", "packets", "errors", "missed", "nombuf");
		fouctl_tab_row(&t, "", NUM(fouctl_u64(e, "ibytes")), NUM(fouctl_u64(e, "ipackets")),
			       NUM(fouctl_u64(e, "ierrors")), NUM(fouctl_u64(e, "imissed")),
			       NUM(fouctl_u64(e, "rx_nombuf")));
		fouctl_tab_print(&t, "    ");
		fouctl_tab_free(&t);
		fouctl_tab_init(&t, 4);
		fouctl_tab_row(&t, "TX:", "bytes", "packets", "errors");
		fouctl_tab_row(&t, "", NUM(fouctl_u64(e, "obytes")), NUM(fouctl_u64(e, "opackets")),
			       NUM(fouctl_u64(e, "oerrors")));
		fouctl_tab_print(&t, "    ");
		fouctl_tab_free(&t);
	}
	fouctl_tab_init(&t, 5);
	fouctl_tab_row(&t, "tunnel", "rx packets", "rx bytes", "tx packets", "tx bytes");
	json_object_foreach(s->tunnels, key, e) {
		if (!fouctl_is_entry(key) || fouctl_u64(e, "rx_packets") + fouctl_u64(e, "tx_packets") +
		    fouctl_u64(e, "rx_bytes") + fouctl_u64(e, "tx_bytes") == 0)
			continue;
		fouctl_tab_row(&t, fouctl_str(e, "name") ? fouctl_str(e, "name") : key,
			       NUM(fouctl_u64(e, "rx_packets")), NUM(fouctl_u64(e, "rx_bytes")),
			       NUM(fouctl_u64(e, "tx_packets")), NUM(fouctl_u64(e, "tx_bytes")));
	}
	if (t.nrow > 1) {
		putchar('\n');
		fouctl_tab_print(&t, "");
	}
	fouctl_tab_free(&t);
	fouctl_print_named(json_object_get(st, "decap_by_fou_port"), "decapsulated by FOU port");
	fouctl_print_named(json_object_get(st, "drops"), "drops");
	fouctl_print_named(json_object_get(st, "icmp_sent"), "icmp sent");
	fouctl_print_named(json_object_get(st, "local"), "local stack");
	fouctl_print_named(json_object_get(st, "punt"), "kernel interface");
}

/* --- the live view ---------------------------------------------------------- */

/* A counter's growth; a counter that went back was reset, and counts from 0. */
static double
fouctl_delta(const json_t *cur, const json_t *prev, const char *key)
{
	uint64_t a = fouctl_u64(cur, key), b = prev != NULL ? fouctl_u64(prev, key) : 0;

	return (double)(a >= b ? a - b : a);
}

/* 1234567 -> 1.2M, as rates are read at a glance */
static const char *
fouctl_human(double v, char *buf, size_t len)
{
	static const char units[] = " kMGT";
	unsigned int i = 0;

	while (v >= 999.5 && i < 4) {
		v /= 1000;
		i++;
	}
	if (i != 0)
		snprintf(buf, len, "%.1f%c", v, units[i]);
	else if (v > 0 && v < 9.95 && v != (double)(uint64_t)v)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

#define HUMAN(v) fouctl_human((v), (char[24]){ 0 }, 24)

struct fouctl_rate {
	double rx_pps, rx_bps, tx_pps, tx_bps;
};

static json_t *
fouctl_rate_json(const struct fouctl_rate *r)
{
	return json_pack("{s:f, s:f, s:f, s:f}", "rx_pps", r->rx_pps, "rx_bps", r->rx_bps,
			 "tx_pps", r->tx_pps, "tx_bps", r->tx_bps);
}

static void
fouctl_print_rates(const struct fouctl *c, const struct fouctl_sample *p,
		   const struct fouctl_sample *s, bool tty)
{
	double dt = s->t - p->t;
	json_t *out = c->json ? json_object() : NULL, *ports = json_object(),
	       *tunnels = json_object(), *drops = json_object();
	struct fouctl_tab tp, tt, td;
	const json_t *d = json_object_get(s->stats, "drops");
	const json_t *pd = json_object_get(p->stats, "drops");
	const char *key;
	json_t *e;
	char when[16];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	fouctl_tab_init(&tp, 5);
	fouctl_tab_row(&tp, "port", "rx pkt/s", "rx bit/s", "tx pkt/s", "tx bit/s");
	json_object_foreach(s->ethdev, key, e) {
		const json_t *pe = json_object_get(p->ethdev, key);
		struct fouctl_rate r = {
			fouctl_delta(e, pe, "ipackets") / dt, 8 * fouctl_delta(e, pe, "ibytes") / dt,
			fouctl_delta(e, pe, "opackets") / dt, 8 * fouctl_delta(e, pe, "obytes") / dt,
		};

		json_object_set_new(ports, key, fouctl_rate_json(&r));
		fouctl_tab_row(&tp, key, HUMAN(r.rx_pps), HUMAN(r.rx_bps), HUMAN(r.tx_pps),
			       HUMAN(r.tx_bps));
	}
	fouctl_tab_init(&tt, 5);
	fouctl_tab_row(&tt, "tunnel", "rx pkt/s", "rx bit/s", "tx pkt/s", "tx bit/s");
	json_object_foreach(s->by_name, key, e) {
		const json_t *pe = json_object_get(p->by_name, key);
		struct fouctl_rate r = {
			fouctl_delta(e, pe, "rx_packets") / dt,
			8 * fouctl_delta(e, pe, "rx_bytes") / dt,
			fouctl_delta(e, pe, "tx_packets") / dt,
			8 * fouctl_delta(e, pe, "tx_bytes") / dt,
		};

		json_object_set_new(tunnels, key, fouctl_rate_json(&r));
		if (r.rx_pps + r.tx_pps + r.rx_bps + r.tx_bps > 0)
			fouctl_tab_row(&tt, key, HUMAN(r.rx_pps), HUMAN(r.rx_bps), HUMAN(r.tx_pps),
				       HUMAN(r.tx_bps));
	}
	fouctl_tab_init(&td, 2);
	json_object_foreach((json_t *)d, key, e) {
		double r = fouctl_delta(d, pd, key) / dt;

		json_object_set_new(drops, key, json_real(r));
		if (r > 0)
			fouctl_tab_row(&td, key, HUMAN(r));
	}
	if (out != NULL) {
		json_object_set_new(out, "time", json_real((double)now));
		json_object_set_new(out, "interval", json_real(dt));
		json_object_set_new(out, "rx_pps", json_real(fouctl_delta(s->stats, p->stats, "rx") / dt));
		json_object_set_new(out, "tx_pps", json_real(fouctl_delta(s->stats, p->stats, "tx") / dt));
		json_object_set_new(out, "dropped_pps",
				    json_real(fouctl_delta(s->stats, p->stats, "dropped") / dt));
		json_object_set(out, "ports", ports);
		json_object_set(out, "tunnels", tunnels);
		json_object_set(out, "drops", drops);
		json_dumpf(out, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(out);
	} else {
		/* a terminal is redrawn from its top left; a pipe gets blocks */
		printf("%s%s, per second over %.2f s: rx %s tx %s dropped %s\n\n",
		       tty ? "\033[H\033[2J" : "", when, dt,
		       HUMAN(fouctl_delta(s->stats, p->stats, "rx") / dt),
		       HUMAN(fouctl_delta(s->stats, p->stats, "tx") / dt),
		       HUMAN(fouctl_delta(s->stats, p->stats, "dropped") / dt));
		fouctl_tab_print(&tp, "");
		if (tt.nrow > 1) {
			putchar('\n');
			fouctl_tab_print(&tt, "");
		}
		if (td.nrow > 0) {
			printf("\ndrops/s:\n");
			fouctl_tab_print(&td, "    ");
		}
		if (!tty)
			putchar('\n');
	}
	fflush(stdout);
	fouctl_tab_free(&tp);
	fouctl_tab_free(&tt);
	fouctl_tab_free(&td);
	json_decref(ports);
	json_decref(tunnels);
	json_decref(drops);
}

/* Sleep until the monotonic time `until`; true if SIGINT or SIGTERM came. */
static bool
fouctl_wait(const sigset_t *set, double until)
{
	for (;;) {
		double left = until - fouctl_now();
		struct timespec ts;

		if (left <= 0)
			return false;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		if (sigtimedwait(set, NULL, &ts) > 0)
			return true;
		if (errno != EAGAIN && errno != EINTR)
			fouctl_die("sigtimedwait: %s", strerror(errno));
	}
}

/*
 * Samples every interval on the monotonic clock (late samples do not
 * accumulate drift), rates over the time that really passed. SIGINT and
 * SIGTERM are blocked and waited for, so they end the view between two
 * blocks, never in the middle of one.
 */
static int
fouctl_watch(struct fouctl *c, double interval, unsigned long count)
{
	bool tty = !c->json && isatty(STDOUT_FILENO);
	struct fouctl_sample prev, cur;
	unsigned long n;
	sigset_t set;
	double next;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fouctl_sample(c, &prev);
	next = prev.t;
	for (n = 0; count == 0 || n < count; n++) {
		next += interval;
		if (fouctl_wait(&set, next))
			break;
		fouctl_sample(c, &cur);
		if (cur.t - next > interval)
			next = cur.t;
		fouctl_print_rates(c, &prev, &cur, tty);
		fouctl_sample_free(&prev);
		prev = cur;
	}
	fouctl_sample_free(&prev);
	return 0;
}

int
fouctl_stats(struct fouctl *c, int argc, char **argv)
{
	struct fouctl_sample s;
	double interval = 0;
	unsigned long count = 0;
	int opt;

	if (argc > 1 && strcmp(argv[1], "reset") == 0) {
		json_t *r;

		if (argc > 2)
			fouctl_usage_error("unexpected '%s' after stats reset", argv[2]);
		r = fouctl_cmd(c, "/fou/stats/reset", NULL);
		if (c->json)
			fouctl_print_json(r);
		json_decref(r);
		return 0;
	}
	optind = 0;	/* glibc: start again, on this vector */
	opterr = 0;
	while ((opt = getopt(argc, argv, "+:w:c:")) != -1) {
		char *end;

		switch (opt) {
		case 'w':
			interval = fouctl_seconds("-w", optarg, false);
			break;
		case 'c':
			errno = 0;
			count = strtoul(optarg, &end, 10);
			if (optarg[0] < '1' || optarg[0] > '9' || *end != '\0' || errno != 0)
				fouctl_usage_error("-c: '%s' is not a count above 0", optarg);
			break;
		case ':':
			fouctl_usage_error("stats -%c needs an argument", optopt);
		default:
			fouctl_usage_error("stats: unknown option '-%c' (stats [-w SECONDS [-c COUNT]] | stats reset)",
					   optopt);
		}
	}
	if (optind < argc)
		fouctl_usage_error("unexpected '%s' after stats", argv[optind]);
	if (count != 0 && interval == 0)
		fouctl_usage_error("stats -c needs -w SECONDS");
	if (interval > 0)
		return fouctl_watch(c, interval, count);
	fouctl_sample(c, &s);
	if (c->json) {
		json_t *out = json_pack("{s:O, s:O, s:O}", "/fou/stats", s.stats, "/fou/tunnels",
					s.tunnels, "/ethdev/stats", s.ethdev);

		fouctl_print_json(out);
		json_decref(out);
	} else {
		fouctl_print_stats(&s);
	}
	fouctl_sample_free(&s);
	return 0;
}
