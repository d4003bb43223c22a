/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters: the names of drop reasons and ICMP kinds (fou.h's X-macro
 * lists), the per-lcore counters summed over lcores, the per-tunnel ones,
 * and the baseline /fou/stats/reset moves.
 */
#include <errno.h>
#include <string.h>

#include "fou_ctl.h"

/* Names and descriptions of the X-macro lists in fou.h, in enum order. */
struct fou_named {
	const char *name;
	const char *desc;
};
#define FOU_NAMED(e, n, d) { #n, d },
static const struct fou_named fou_drops[] = { FOU_DROP_REASONS(FOU_NAMED) };
static const struct fou_named fou_icmp_kinds[] = { FOU_ICMP_KINDS(FOU_NAMED) };
static const struct fou_named fou_locals[] = { FOU_LOCAL_COUNTERS(FOU_NAMED) };
static const struct fou_named fou_punts[] = { FOU_PUNT_COUNTERS(FOU_NAMED) };
#undef FOU_NAMED
static_assert(RTE_DIM(fou_drops) == FOU_DROP_MAX, "drop reasons and their names differ");
static_assert(RTE_DIM(fou_icmp_kinds) == FOU_ICMP_MAX, "ICMP kinds and their names differ");
static_assert(RTE_DIM(fou_locals) == FOU_LOCAL_MAX, "local counters and their names differ");
static_assert(RTE_DIM(fou_punts) == FOU_PUNT_MAX, "punt counters and their names differ");

const char *
fou_drop_name(enum fou_drop d)
{
	return d < FOU_DROP_MAX ? fou_drops[d].name : NULL;
}

const char *
fou_drop_desc(enum fou_drop d)
{
	return d < FOU_DROP_MAX ? fou_drops[d].desc : NULL;
}

const char *
fou_inner_name(enum fou_inner i)
{
	return i == FOU_INNER_IPV4 ? "ipv4" : i == FOU_INNER_IPV6 ? "ipv6" : NULL;
}

const char *
fou_icmp_name(enum fou_icmp_kind k)
{
	return k < FOU_ICMP_MAX ? fou_icmp_kinds[k].name : NULL;
}

const char *
fou_icmp_desc(enum fou_icmp_kind k)
{
	return k < FOU_ICMP_MAX ? fou_icmp_kinds[k].desc : NULL;
}

const char *
fou_local_name(enum fou_local_counter c)
{
	return c < FOU_LOCAL_MAX ? fou_locals[c].name : NULL;
}

const char *
fou_local_desc(enum fou_local_counter c)
{
	return c < FOU_LOCAL_MAX ? fou_locals[c].desc : NULL;
}

const char *
fou_punt_name(enum fou_punt_counter c)
{
	return c < FOU_PUNT_MAX ? fou_punts[c].name : NULL;
}

const char *
fou_punt_desc(enum fou_punt_counter c)
{
	return c < FOU_PUNT_MAX ? fou_punts[c].desc : NULL;
}

struct fou_lcore_stats *
fou_lcore_stats(struct fou_gw *gw, unsigned int lcore_id)
{
	return lcore_id < RTE_MAX_LCORE ? &gw->stats[lcore_id] : NULL;
}

/* out += the counters of s (read as their lcore writes them) - base. */
static void
fou_stats_acc(struct fou_lcore_stats *out, const struct fou_lcore_stats *s,
	      const struct fou_lcore_stats *base)
{
	static const struct fou_lcore_stats zero;
	unsigned int i;

	if (base == NULL)
		base = &zero;
	for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
		out->rx[i] += FOU_STAT_READ(s->rx[i]) - base->rx[i];
		out->tx[i] += FOU_STAT_READ(s->tx[i]) - base->tx[i];
		out->frag_port[i] += FOU_STAT_READ(s->frag_port[i]) - base->frag_port[i];
	}
	for (i = 0; i < FOU_DROP_MAX; i++)
		out->drop[i] += FOU_STAT_READ(s->drop[i]) - base->drop[i];
	for (i = 0; i <= FOU_MAX_UDP_PORTS; i++)
		out->decap[i] += FOU_STAT_READ(s->decap[i]) - base->decap[i];
	for (i = 0; i < FOU_INNER_MAX; i++)
		out->decap_inner[i] += FOU_STAT_READ(s->decap_inner[i]) - base->decap_inner[i];
	for (i = 0; i < FOU_ICMP_MAX; i++)
		out->icmp_out[i] += FOU_STAT_READ(s->icmp_out[i]) - base->icmp_out[i];
	for (i = 0; i < FOU_LOCAL_MAX; i++)
		out->local[i] += FOU_STAT_READ(s->local[i]) - base->local[i];
	for (i = 0; i < FOU_PUNT_MAX; i++)
		out->punt[i] += FOU_STAT_READ(s->punt[i]) - base->punt[i];
	out->gro_merged += FOU_STAT_READ(s->gro_merged) - base->gro_merged;
	out->gro_flushed += FOU_STAT_READ(s->gro_flushed) - base->gro_flushed;
	out->gro_tso += FOU_STAT_READ(s->gro_tso) - base->gro_tso;
	out->gso_packets += FOU_STAT_READ(s->gso_packets) - base->gso_packets;
	out->gso_segments += FOU_STAT_READ(s->gso_segments) - base->gso_segments;
	out->reasm_in += FOU_STAT_READ(s->reasm_in) - base->reasm_in;
	out->reasm_out += FOU_STAT_READ(s->reasm_out) - base->reasm_out;
	out->reasm_datagrams += FOU_STAT_READ(s->reasm_datagrams) - base->reasm_datagrams;
	out->reasm_absorbed += FOU_STAT_READ(s->reasm_absorbed) - base->reasm_absorbed;
	out->frag_packets += FOU_STAT_READ(s->frag_packets) - base->frag_packets;
	out->frag_fragments += FOU_STAT_READ(s->frag_fragments) - base->frag_fragments;
	out->polls_busy += FOU_STAT_READ(s->polls_busy) - base->polls_busy;
	out->polls_idle += FOU_STAT_READ(s->polls_idle) - base->polls_idle;
}

void
fou_stats_sum(const struct fou_gw *gw, struct fou_lcore_stats *out)
{
	unsigned int l;

	memset(out, 0, sizeof(*out));
	for (l = 0; l < FOU_STATS_ROWS; l++)
		fou_stats_acc(out, &gw->stats[l], NULL);
}

int
fou_stats_get(const struct fou_gw *gw, int lcore_id, struct fou_lcore_stats *out)
{
	unsigned int l;

	memset(out, 0, sizeof(*out));
	if (lcore_id >= RTE_MAX_LCORE)
		return -EINVAL;
	for (l = 0; l < FOU_STATS_ROWS; l++)
		if (lcore_id < 0 || (unsigned int)lcore_id == l)
			fou_stats_acc(out, &gw->stats[l], &gw->stats_base[l]);
	return 0;
}

/* Counters of tunnel i summed over lcores, less base (if not NULL). */
void
fou_tun_stats_sum(const struct fou_gw *gw, uint32_t i, const struct fou_tun_stats *base,
		  struct fou_tunnel_info *ti)
{
	unsigned int lc;

	for (lc = 0; lc < FOU_STATS_ROWS; lc++) {
		const struct fou_tun_stats *ts = &gw->tun_stats[(size_t)lc * gw->params.max_tunnels +
								 i];

		ti->tx_packets += FOU_STAT_READ(ts->tx_packets);
		ti->tx_bytes += FOU_STAT_READ(ts->tx_bytes);
		ti->rx_packets += FOU_STAT_READ(ts->rx_packets);
		ti->rx_bytes += FOU_STAT_READ(ts->rx_bytes);
		ti->tx_frags += FOU_STAT_READ(ts->tx_frags);
		ti->tx_outer_frags += FOU_STAT_READ(ts->tx_outer_frags);
	}
	if (base != NULL) {
		ti->tx_packets -= base->tx_packets;
		ti->tx_bytes -= base->tx_bytes;
		ti->rx_packets -= base->rx_packets;
		ti->rx_bytes -= base->rx_bytes;
		ti->tx_frags -= base->tx_frags;
		ti->tx_outer_frags -= base->tx_outer_frags;
	}
}

/*
 * The workers keep counting in their own counters, which only they write;
 * a reset moves the baseline the readers subtract. Each counter is read
 * whole; packets in flight (in a TX buffer) may be on either side of it.
 */
void
fou_stats_reset(struct fou_gw *gw)
{
	unsigned int l;
	uint32_t i;

	for (l = 0; l < FOU_STATS_ROWS; l++) {
		memset(&gw->stats_base[l], 0, sizeof(gw->stats_base[l]));
		fou_stats_acc(&gw->stats_base[l], &gw->stats[l], NULL);
	}
	for (i = 0; i < gw->params.max_tunnels; i++) {
		struct fou_tunnel_info ti = { 0 };

		fou_tun_stats_sum(gw, i, NULL, &ti);
		gw->tun_base[i] = (struct fou_tun_stats){
			.tx_packets = ti.tx_packets, .tx_bytes = ti.tx_bytes,
			.rx_packets = ti.rx_packets, .rx_bytes = ti.rx_bytes,
			.tx_frags = ti.tx_frags, .tx_outer_frags = ti.tx_outer_frags };
	}
}

void
fou_stats_rx_tx(const struct fou_lcore_stats *s, uint64_t *rx, uint64_t *tx)
{
	unsigned int i;

	*rx = 0;
	*tx = 0;
	for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
		*rx += s->rx[i];
		*tx += s->tx[i];
	}
}

bool
fou_stats_balanced(const struct fou_lcore_stats *s)
{
	uint64_t rx, tx;

	fou_stats_rx_tx(s, &rx, &tx);
	return rx + s->local[FOU_LOCAL_ORIGINATED] + (s->gso_segments - s->gso_packets) +
	       fou_stats_frag_added(s) + fou_stats_punt_in(s) ==
	       tx + fou_stats_drops(s) + s->gro_merged + fou_stats_held(s) +
	       s->local[FOU_LOCAL_CONSUMED] + s->reasm_absorbed + fou_stats_reasm_held(s) +
	       fou_stats_punted(s);
}

uint64_t
fou_stats_reasm_held(const struct fou_lcore_stats *s)
{
	return s->reasm_in - s->reasm_out;
}

uint64_t
fou_stats_punted(const struct fou_lcore_stats *s)
{
	return s->punt[FOU_PUNT_UP_TCP] + s->punt[FOU_PUNT_UP_UDP] + s->punt[FOU_PUNT_UP_ICMP] +
	       s->punt[FOU_PUNT_UP_OTHER] + s->punt[FOU_PUNT_UP_NEIGH] + s->punt[FOU_PUNT_UP_COPY];
}

uint64_t
fou_stats_punt_in(const struct fou_lcore_stats *s)
{
	return s->punt[FOU_PUNT_FROM_KERNEL] + s->punt[FOU_PUNT_COPIES];
}

uint64_t
fou_stats_frag_added(const struct fou_lcore_stats *s)
{
	return s->frag_fragments - s->frag_packets;
}

uint64_t
fou_stats_drops(const struct fou_lcore_stats *s)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < FOU_DROP_MAX; i++)
		sum += s->drop[i];
	return sum;
}

uint64_t
fou_stats_held(const struct fou_lcore_stats *s)
{
	return s->local[FOU_LOCAL_NEIGH_QUEUED] - s->local[FOU_LOCAL_NEIGH_DEQUEUED];
}
