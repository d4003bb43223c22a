/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Path MTU probing without ICMP (RFC 8899, DPLPMTUD): per tunnel, a search
 * for the largest outer packet the path carries, with probes of growing
 * size sent with DF through the peer (fou_plpmtu.c). The search itself is
 * pure control-side state, driven by what became of the probes and by
 * the time: no packets, no tables, so that it is tested on its own.
 * Control side only: no data-path file includes it.
 */
#ifndef FOU_PLPMTU_H
#define FOU_PLPMTU_H

#include <stdbool.h>
#include <stdint.h>

struct fou_gw;

/* RFC 8899 §5.2's states. */
enum fou_plpmtu_state {
	FOU_PLPMTU_DISABLED,		/* not probed (probe=off) */
	FOU_PLPMTU_BASE,		/* confirming BASE_PLPMTU */
	FOU_PLPMTU_SEARCHING,		/* growing sizes */
	FOU_PLPMTU_SEARCH_COMPLETE,	/* found; confirmed now and then */
	FOU_PLPMTU_ERROR,		/* not even BASE_PLPMTU passes */
};

/* BASE_PLPMTU: RFC 8899 §5.1.2's 1200 bytes over IPv4 (what QUIC and most
 * paths carry; far above FOU_PMTU_MIN), IPv6's minimum link MTU over IPv6. */
#define FOU_PLPMTU_BASE4 1200
#define FOU_PLPMTU_BASE6 1280
/* The least an ERROR state sets: Linux' floor for a learnt path MTU over
 * IPv4 (FOU_PMTU_MIN), IPv6's minimum over IPv6. */
#define FOU_PLPMTU_MIN4 552
#define FOU_PLPMTU_MIN6 1280
#define FOU_PLPMTU_MAX_PROBES 3		/* MAX_PROBES: lost in a row, a size fails */
#define FOU_PLPMTU_RAISE_S 600		/* PMTU_RAISE_TIMER: search above again */
#define FOU_PLPMTU_CONFIRM_S 60		/* a found size probed again (black holes) */
#define FOU_PLPMTU_ERROR_S 60		/* ERROR tries BASE again */

struct fou_plpmtu {
	uint64_t timer;		/* TSC: confirm (SEARCH_COMPLETE), retry (ERROR) */
	uint64_t raise_at;	/* TSC: SEARCH_COMPLETE searches above plpmtu again */
	uint16_t base, max;	/* BASE_PLPMTU, MAX_PLPMTU (the egress port's MTU) */
	uint16_t min;		/* what ERROR sets */
	uint16_t plpmtu;	/* what the data path is told; 0: nothing (the port's) */
	uint16_t lo;		/* the largest size confirmed in this search */
	uint16_t hi;		/* the largest size not known to fail */
	uint16_t size;		/* the size probed now; 0: none wanted */
	uint8_t state;		/* enum fou_plpmtu_state */
	uint8_t lost;		/* probes of size lost in a row */
	bool confirming;	/* SEARCH_COMPLETE: probing plpmtu again */
};

/*
 * Start (or start again) a search up to max, the egress port's MTU, over
 * an IPv4 or (v6) IPv6 path: state BASE, probing BASE_PLPMTU (max where
 * that is less). plpmtu is kept: the data path keeps what it had until
 * the search proves it wrong.
 */
void fou_plpmtu_start(struct fou_plpmtu *s, bool v6, uint16_t max);
/* No search, nothing told to the data path. */
void fou_plpmtu_stop(struct fou_plpmtu *s);
/*
 * The size to probe at now (TSC, hz a second), 0 for none; runs the
 * timers: SEARCH_COMPLETE confirms plpmtu every FOU_PLPMTU_CONFIRM_S and
 * searches above it after FOU_PLPMTU_RAISE_S, ERROR tries BASE again
 * after FOU_PLPMTU_ERROR_S. Call it when no probe is in flight.
 */
uint16_t fou_plpmtu_want(struct fou_plpmtu *s, uint64_t now, uint64_t hz);
/* A probe of size came back. Returns whether plpmtu changed. */
bool fou_plpmtu_acked(struct fou_plpmtu *s, uint16_t size, uint64_t now, uint64_t hz);
/*
 * A probe of size was lost. path_ok: smaller packets passed meanwhile (the
 * tunnel's echo probes), so the loss is the size's; otherwise it says
 * nothing about the size and is not counted. FOU_PLPMTU_MAX_PROBES in a
 * row fail the size. Returns whether plpmtu changed.
 */
bool fou_plpmtu_lost(struct fou_plpmtu *s, uint16_t size, bool path_ok, uint64_t now,
		     uint64_t hz);
/* "disabled", "base", "searching", "search_complete", "error" */
const char *fou_plpmtu_state_name(uint8_t state);

/*
 * An MTU probe leaves with DF whatever its tunnel's pmtudisc: the search
 * must see the path drop what is too big, not fragment it. m: the outer
 * packet just encapsulated (at its IP header); an IPv4 one without DF gets
 * it, its header checksum fixed unless the port fills it in. IPv6 is
 * never fragmented on the way.
 */
struct rte_mbuf;
void fou_plpmtu_df(struct rte_mbuf *m);

/* --- on the gateway's tunnels --------------------------------------------- */

/* A tunnel's search, the path it searches and its probe in flight
 * (control only). */
struct fou_plpmtu_tun {
	struct fou_plpmtu s;
	uint64_t deadline;	/* TSC: the probe in flight is lost by then */
	uint64_t echo_rx;	/* the tunnel's echo replies when it went */
	uint32_t seq;		/* its sequence number */
	uint16_t inflight;	/* its size; 0: none */
	uint16_t port;		/* the egress port searched through */
	uint16_t port_mtu;	/* its MTU then (MAX_PLPMTU) */
	uint8_t health;		/* the tunnel's health last seen (enum fou_health) */
};

/* All with the control lock held; what the data path is told changes
 * with one store (no grace period: nothing is freed). */

/* Tunnel idx came or went: no search, no probed MTU. */
void fou_plpmtu_tunnel_reset(struct fou_gw *gw, uint32_t idx);
/*
 * Start a search on tunnel idx up to its egress port's MTU now (now: TSC).
 * fresh: a new path (the tunnel's egress port or its MTU changed, or it
 * came back up): what was probed on the old one is forgotten. -ENETUNREACH
 * when the remote has no way out through a port.
 */
int fou_plpmtu_tunnel_start(struct fou_gw *gw, uint32_t idx, bool fresh, uint64_t now);
/* What became of a probe of size on tunnel idx (fou_plpmtu_acked(),
 * fou_plpmtu_lost()), and what the data path is told follows. */
void fou_plpmtu_tunnel_acked(struct fou_gw *gw, uint32_t idx, uint16_t size, uint64_t now);
void fou_plpmtu_tunnel_lost(struct fou_gw *gw, uint32_t idx, uint16_t size, bool path_ok,
			    uint64_t now);

#endif /* FOU_PLPMTU_H */
