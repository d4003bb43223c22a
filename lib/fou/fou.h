/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-fou: Foo-over-UDP gateway library. The public header of the gateway
 * and its workers; the text layer on top of it (statements, config files,
 * telemetry) is fou_stmt.h.
 *
 * The gateway (struct fou_gw) holds the tables; only the control functions
 * below change them. A worker lcore owns a per-lcore context (struct
 * fou_lcore) and hands it what it receives: fou_lcore_rx() per burst,
 * fou_lcore_idle() once per polling loop. Everything else runs on the main
 * lcore or the telemetry thread.
 *
 * Concurrency: any number of worker lcores read the tables without locks
 * while one thread at a time calls the control functions (the caller
 * serialises them: the command line before the workers start, then the
 * telemetry commands). A started context is a reader of the tables
 * (rte_rcu_qsbr) and reports a quiescent state in every fou_lcore_idle().
 * Each control function returns only after every started context has
 * passed one: its change is then in effect for every packet a worker
 * starts on, and what it removed is no longer in use (and is reused only
 * then).
 */
#ifndef FOU_H
#define FOU_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <netinet/in.h>

#include <rte_common.h>
#include <rte_config.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#define FOU_BURST 32		/* packets per rx burst and per call */
#define FOU_MAX_UDP_PORTS 255	/* FOU receive ports (`ip fou add`) */
#define FOU_MAX_ADDRS 256	/* local addresses */
#define FOU_ERR_LEN 256

/*
 * Every reason a packet is dropped, in the order the receive path checks
 * them: X(ENUM, name, description). The names are the counter names shown
 * by the summary and by telemetry, so they are part of the interface.
 */
#define FOU_DROP_REASONS(X) \
	X(ETH_TRUNCATED, eth_truncated, "frame shorter than its Ethernet/802.1Q header") \
	X(ETH_OTHER_HOST, eth_other_host, "unicast frame for another MAC address") \
	X(ARP_BAD, arp_bad, "malformed ARP: not Ethernet/IPv4, wrong lengths or opcode, truncated") \
	X(ARP_NOT_OURS, arp_not_ours, "ARP request for an address that is not ours (no proxy ARP): not answered") \
	X(NOT_IP, not_ip, "ethertype that is neither IPv4, IPv6 nor ARP") \
	X(HDR_SPLIT, hdr_split, "headers not contiguous in the first mbuf segment") \
	X(IP_TRUNCATED, ip_truncated, "frame ends inside the IPv4 or IPv6 header") \
	X(IP_HDR_BAD, ip_hdr_bad, "IP version does not match the ethertype, or IPv4 IHL < 5") \
	X(IP_CKSUM_BAD, ip_cksum_bad, "IPv4 header checksum wrong") \
	X(IP_LEN_BAD, ip_len_bad, "IP length below the header or beyond the frame") \
	X(IP_OPTIONS_BAD, ip_options_bad, "IPv4 options malformed, or a source route (LSRR, SSRR): Linux drops both") \
	X(OUTER_MARTIAN, outer_martian, "source or destination never routed (loopback, 0/8, link-local, multicast source, our own address as source)") \
	X(BCAST_MCAST, bcast_mcast, "multicast or broadcast destination, IP or Ethernet, that is not Neighbour Discovery for us: never forwarded") \
	X(ND_BAD, nd_bad, "malformed Neighbour Discovery (RFC 4861 7.1): hop limit not 255, code not 0, short, bad checksum or option, a link-layer address that is not a unicast MAC; a group NS without one from a neighbour we do not know") \
	X(ND_NOT_OURS, nd_not_ours, "Neighbour Solicitation for an address that is not ours: not answered") \
	X(LOCAL_IPV6, local_ipv6, "IPv6 to a local address that is neither ICMPv6 echo nor ND, and no error may be sent about it") \
	X(REASM_DUPLICATE, reasm_duplicate, "IPv4 fragment to a local address whose bytes all came before in one fragment: dropped alone, as Linux") \
	X(REASM_OVERLAP, reasm_overlap, "IPv4 fragment to a local address overlapping part of one that came before: its datagram is dropped (RFC 5722, Linux since 4.19)") \
	X(REASM_BAD, reasm_bad, "IPv4 fragment to a local address that contradicts its datagram (empty, beyond or short of the end a last fragment set, a second last fragment): the datagram is dropped; or another protocol with the ID of a datagram in reassembly: the fragment alone") \
	X(REASM_OVERSIZE, reasm_oversize, "IPv4 fragment to a local address that makes its datagram larger than 65535 bytes: the datagram is dropped") \
	X(REASM_TOO_MANY, reasm_too_many, "IPv4 fragment to a local address beyond what DPDK holds of a datagram (RTE_LIBRTE_IP_FRAG_MAX_FRAG 8: the first, the last and 6 between): the datagram is dropped") \
	X(REASM_ECN, reasm_ecn, "IPv4 datagram to a local address whose fragments are Not-ECT and CE: dropped whole (Linux' ip_frag_ecn_table)") \
	X(REASM_FULL, reasm_full, "IPv4 fragment to a local address while the lcore's reassembly table is full: 1024 datagrams, or its share of 4 MiB (Linux' ipfrag_high_thresh)") \
	X(REASM_TIMEOUT, reasm_timeout, "IPv4 fragment whose datagram was not complete within the reassembly time (ipfrag-time, 30 s), and no time exceeded may be sent about it") \
	X(REASM_STOPPED, reasm_stopped, "IPv4 fragment still waiting for the rest of its datagram when the gateway stopped") \
	X(LOCAL_NOT_UDP, local_not_udp, "to a local address but not UDP, ICMP or a plain tunnel, and no protocol unreachable may be sent (TCP, rate limit)") \
	X(ICMP_BAD, icmp_bad, "ICMP or ICMPv6 to a local address shorter than its 8-byte header, or with a wrong checksum") \
	X(ICMP_LOCAL, icmp_local, "ICMP to a local address that is not an echo request nor an error we act on") \
	X(PMTU_BAD, pmtu_bad, "ICMP fragmentation needed or ICMPv6 packet too big with a wrong checksum, or whose quote is truncated or matches no tunnel of ours: nothing changed") \
	X(PUNT_RATELIMITED, punt_ratelimited, "for the port's kernel interface (--punt), over its rate limit") \
	X(PUNT_RING_FULL, punt_ring_full, "for the port's kernel interface (--punt), and the ring to the control thread was full (or no mbuf for a copy)") \
	X(PUNT_KERNEL_ANSWER, punt_kernel_answer, "an ARP reply or a Neighbour Advertisement the kernel interface sent: the gateway answers for its addresses itself") \
	X(PUNT_DOWN_BAD, punt_down_bad, "sent by the kernel interface and cannot leave through its port: larger than the port's MTU, shorter than an Ethernet header, or no started worker to send it") \
	X(IP6_EXTHDR_BAD, ip6_exthdr_bad, "IPv6 to a local address whose extension headers before UDP are malformed, as Linux' ip6_parse_tlv refuses them: truncated, a hop-by-hop header not first, padding over 7 bytes or not zero, an option past its header, more than 8 options, a jumbo payload option, a router alert whose value is not 2 bytes") \
	X(IP6_OPT_DISCARD, ip6_opt_discard, "IPv6 to a local address with an option its type says to discard when unrecognised (high bits 01; 10 and 11 where no parameter problem may be sent)") \
	X(IP6_RTHDR, ip6_rthdr, "IPv6 to a local address with a routing header that has segments left: the gateway follows no source route") \
	X(IP6_FRAG, ip6_frag, "IPv6 fragment to a local address: the gateway does not reassemble IPv6") \
	X(UDP_TRUNCATED, udp_truncated, "IP payload shorter than a UDP header") \
	X(UDP_LEN_BAD, udp_len_bad, "UDP length below 8 or beyond the IP payload") \
	X(UDP_CKSUM_BAD, udp_cksum_bad, "UDP checksum wrong: a non-zero one, or over IPv6 a zero one to a port that is not a FOU port (those take it, as Linux' FOU sockets do)") \
	X(FOU_PORT_UNKNOWN, fou_port_unknown, "UDP to a local address, not a FOU port, and no port unreachable may be sent about it") \
	X(FOU_PROTO_UNHANDLED, fou_proto_unhandled, "FOU port maps to an IP protocol with no handler here") \
	X(GUE_TRUNCATED, gue_truncated, "GUE port: UDP payload shorter than the 4-byte GUE header") \
	X(GUE_VERSION, gue_version, "GUE version 2 or 3 (undefined)") \
	X(GUE_V1_NOT_IP, gue_v1_not_ip, "GUE version 1 (direct IP after UDP) whose first nibble is neither 4 nor 6") \
	X(GUE_HLEN_BAD, gue_hlen_bad, "GUE header length (hlen) past the end of the UDP payload") \
	X(GUE_FLAGS_BAD, gue_flags_bad, "GUE flags other than P, or the private flags field past the header length (Linux' validate_gue_flags)") \
	X(GUE_PFLAGS_BAD, gue_pflags_bad, "GUE private flags other than remote checksum offload (Linux' validate_gue_flags)") \
	X(GUE_REMCSUM_BAD, gue_remcsum_bad, "GUE remote checksum offload whose checksum start or field lies past the packet (Linux drops it too), or inside the inner IP header (Linux would complete it over the forwarded header)") \
	X(GUE_CONTROL, gue_control, "GUE control message (C bit): Linux knows none and drops them all") \
	X(GUE_PROTO_UNHANDLED, gue_proto_unhandled, "GUE protocol 0, or an IP protocol with no handler here (not IPIP, IPv6 or GRE)") \
	X(GRE_TRUNCATED, gre_truncated, "FOU payload shorter than its GRE header") \
	X(GRE_VERSION, gre_version, "GRE version is not 0") \
	X(GRE_ROUTING, gre_routing, "GRE routing bit set (RFC 1701 source routing)") \
	X(GRE_CKSUM_BAD, gre_cksum_bad, "GRE checksum wrong") \
	X(GRE_PROTO_UNKNOWN, gre_proto_unknown, "GRE protocol is neither IPv4 nor IPv6") \
	X(NO_TUNNEL, no_tunnel, "tunnels of this type exist, and none has these outer addresses (and GRE key)") \
	X(GRE_CSUM_MISMATCH, gre_csum_mismatch, "GRE checksum present on a tunnel without csum, or missing on one with it") \
	X(TUNNEL_MODE_MISMATCH, tunnel_mode_mismatch, "IPv6 underlay: an ip6tnl matched whose mode does not take the packet's protocol (IPv6 to mode ipip6, IPv4 to mode ip6ip6), as Linux' ipxip6_rcv drops it") \
	X(INNER_TRUNCATED, inner_truncated, "inner packet shorter than its IP header") \
	X(INNER_HDR_BAD, inner_hdr_bad, "inner IP version does not match, or IHL < 5") \
	X(INNER_LEN_BAD, inner_len_bad, "inner IP length below its header or beyond the tunnel payload") \
	X(INNER_CKSUM_BAD, inner_cksum_bad, "inner IPv4 header checksum wrong") \
	X(INNER_OPTIONS_BAD, inner_options_bad, "inner IPv4 options malformed, or a source route (LSRR, SSRR)") \
	X(INNER_MARTIAN, inner_martian, "inner source or destination that is never forwarded, or a source that is ours") \
	X(ECN_DROP, ecn_drop, "outer CE on an inner Not-ECT packet (RFC 6040)") \
	X(NO_ROUTE, no_route, "no route to the destination, or to a tunnel's remote, and no ICMP unreachable may be sent about it") \
	X(INNER_LOCAL, inner_local, "inner packet to a local address that is not an echo request, and no error may be sent about it") \
	X(TTL_EXCEEDED, ttl_exceeded, "TTL / hop limit would reach 0, and no ICMP error may be sent about it") \
	X(MTU_EXCEEDED, mtu_exceeded, "larger than the egress or tunnel MTU and no ICMP error may be sent about it; or IPv4 without DF (or a fragment of it) larger than the path MTU of a pmtudisc tunnel, whose outer DF forbids fragmenting it") \
	X(FRAG_FAILED, frag_failed, "IPv4 without DF that could not be fragmented: the MTU is below 68 (DPDK's least) or leaves fewer than 8 bytes after the header, or its fragments need chained mbufs that the egress port cannot send") \
	X(FRAG_NOMEM, frag_nomem, "IPv4 without DF whose fragments found no free mbufs in the lcore's pools") \
	X(ICMP_RATELIMITED, icmp_ratelimited, "an ICMP error was due (time exceeded, too big, unreachable, parameter problem) and was rate-limited") \
	X(TUNNEL_LOOP, tunnel_loop, "a tunnel's remote is routed into a tunnel or to a local address") \
	X(NO_NEIGH, no_neigh, "no neighbour entry for the next hop, and none can be resolved (no address of the family on the port, queue ring full)") \
	X(NEIGH_QUEUE_FULL, neigh_queue_full, "waiting for ARP/ND resolution, pushed out of the neighbour's full queue (oldest first, as Linux)") \
	X(NEIGH_FAILED, neigh_failed, "waiting for ARP/ND resolution that failed (3 probes unanswered): host unreachable sent where allowed") \
	X(NEIGH_STOPPED, neigh_stopped, "still waiting for ARP/ND resolution when the gateway stopped or the entry was flushed") \
	X(NO_HEADROOM, no_headroom, "mbuf headroom too small for the outer headers") \
	X(PROBE_RING_FULL, probe_ring_full, "a returned tunnel probe (inner UDP to port 3785 of our address, out of a tunnel) while the ring to the control thread was full") \
	X(GSO_FAILED, gso_failed, "a merged packet larger than the egress MTU could not be resegmented (out of mbufs, or IPv6 after the MTU shrank)") \
	X(TX_PREPARE, tx_prepare, "the egress port's rte_eth_tx_prepare refused the packet's offload request") \
	X(TX_FULL, tx_full, "egress queue full")

enum fou_drop {
#define FOU_DROP_ENUM(e, n, d) FOU_DROP_##e,
	FOU_DROP_REASONS(FOU_DROP_ENUM)
#undef FOU_DROP_ENUM
	FOU_DROP_MAX
};

/* Inner protocols a FOU port can hand packets to (counted per kind). */
enum fou_inner {
	FOU_INNER_IPV4,		/* ipip, or GRE carrying IPv4 */
	FOU_INNER_IPV6,		/* sit, or GRE carrying IPv6 */
	FOU_INNER_MAX
};

/*
 * ICMP errors the gateway sends: X(ENUM, name, description). The packet
 * that caused one leaves as the error (same mbuf), so it counts as tx.
 */
#define FOU_ICMP_KINDS(X) \
	X(FRAG_NEEDED, icmp_frag_needed, "ICMP destination unreachable, fragmentation needed") \
	X(TIME_EXCEEDED, icmp_time_exceeded, "ICMP time exceeded in transit") \
	X(REASM_EXCEEDED, icmp_reasm_exceeded, "ICMP time exceeded, fragment reassembly time exceeded") \
	X(PKT_TOO_BIG, icmp6_pkt_too_big, "ICMPv6 packet too big") \
	X(TIME_EXCEEDED6, icmp6_time_exceeded, "ICMPv6 hop limit exceeded in transit") \
	X(ECHO_REPLY, icmp_echo_reply, "ICMP echo reply (to a ping of one of our addresses)") \
	X(NET_UNREACH, icmp_net_unreach, "ICMP destination unreachable, net unreachable (no route)") \
	X(HOST_UNREACH, icmp_host_unreach, "ICMP destination unreachable, host unreachable (ARP failed)") \
	X(PROTO_UNREACH, icmp_proto_unreach, "ICMP destination unreachable, protocol unreachable") \
	X(PORT_UNREACH, icmp_port_unreach, "ICMP destination unreachable, port unreachable (UDP, not a FOU port)") \
	X(ECHO6_REPLY, icmp6_echo_reply, "ICMPv6 echo reply") \
	X(NOROUTE6, icmp6_no_route, "ICMPv6 destination unreachable, no route") \
	X(ADDR_UNREACH6, icmp6_addr_unreach, "ICMPv6 destination unreachable, address unreachable (ND failed)") \
	X(PORT_UNREACH6, icmp6_port_unreach, "ICMPv6 destination unreachable, port unreachable") \
	X(PARAM_PROB6, icmp6_param_problem, "ICMPv6 parameter problem, unrecognised next header (protocol unreachable)") \
	X(PARAM_OPT6, icmp6_param_option, "ICMPv6 parameter problem, unrecognised IPv6 option whose type asks for one")

enum fou_icmp_kind {
#define FOU_ICMP_ENUM(e, n, d) FOU_ICMP_##e,
	FOU_ICMP_KINDS(FOU_ICMP_ENUM)
#undef FOU_ICMP_ENUM
	FOU_ICMP_MAX
};

/*
 * The gateway's own stack (ARP, ND, neighbour resolution, path MTU):
 * X(ENUM, name, description). Events, not where packets ended: those are
 * tx, the drop reasons, and the packets still queued for resolution.
 */
#define FOU_LOCAL_COUNTERS(X) \
	X(ARP_REQ_IN, arp_requests_in, "ARP requests received for one of our addresses") \
	X(ARP_REP_IN, arp_replies_in, "ARP replies received") \
	X(ARP_REQ_OUT, arp_requests_out, "ARP requests sent (resolution, probes, announcements)") \
	X(ARP_REP_OUT, arp_replies_out, "ARP replies sent") \
	X(NS_IN, ns_in, "Neighbour Solicitations received for one of our addresses") \
	X(NA_IN, na_in, "Neighbour Advertisements received") \
	X(NS_OUT, ns_out, "Neighbour Solicitations sent (resolution, probes)") \
	X(NA_OUT, na_out, "Neighbour Advertisements sent (answers, announcements)") \
	X(NEIGH_RESOLVED, neigh_resolved, "neighbours resolved (INCOMPLETE to REACHABLE)") \
	X(NEIGH_FAILED, neigh_failed, "resolutions that failed (INCOMPLETE or PROBE to FAILED)") \
	X(NEIGH_QUEUED, neigh_queued, "packets queued to wait for a neighbour") \
	X(NEIGH_DEQUEUED, neigh_dequeued, "queued packets sent on or dropped") \
	X(NEIGH_EVICTED, neigh_evicted, "learnt neighbours pushed out of a full table") \
	X(NEIGH_EVENTS_LOST, neigh_events_lost, "ARP/ND learning events lost to a full event ring") \
	X(ORIGINATED, originated, "packets the gateway built itself (ARP, ND, announcements, tunnel probes)") \
	X(CONSUMED, consumed, "packets received and taken in by the gateway's own stack: ARP replies and announcements, Neighbour Advertisements, path MTU errors, returned tunnel probes") \
	X(PMTU_UPDATES, pmtu_updates, "tunnel path MTUs lowered by ICMP fragmentation needed or ICMPv6 packet too big") \
	X(PMTU_REFUSED, pmtu_refused, "fragmentation needed or packet too big for a tunnel that would not lower its path MTU") \
	X(PROBES_OUT, probes_out, "tunnel probes the gateway built (tunnel health, probe=on), sent or held for the neighbour") \
	X(PROBES_IN, probes_in, "returned tunnel probes the workers handed to the control thread (inner UDP to port 3785 of our address, out of a tunnel)") \
	X(PROBES_STRAY, probes_stray, "returned tunnel probes that came out of a tunnel that does not probe (probe off, or deleted since): freed, no health changed")

enum fou_local_counter {
#define FOU_LOCAL_ENUM(e, n, d) FOU_LOCAL_##e,
	FOU_LOCAL_COUNTERS(FOU_LOCAL_ENUM)
#undef FOU_LOCAL_ENUM
	FOU_LOCAL_MAX
};

/*
 * The exception path to the kernel (--punt): X(ENUM, name, description).
 * The up_* counters are the packets the workers handed to the control
 * thread for the port's kernel interface (the accounting's "punted"), by
 * why; copies counts the copies of ARP requests and Neighbour
 * Solicitations for us that the gateway answers and the kernel sees too
 * (whether or not they went up). The control thread counts the rest.
 */
#define FOU_PUNT_COUNTERS(X) \
	X(UP_TCP, up_tcp, "TCP to one of our addresses, handed up") \
	X(UP_UDP, up_udp, "UDP to one of our addresses on a port that is not a FOU port, handed up") \
	X(UP_ICMP, up_icmp, "ICMP or ICMPv6 to one of our addresses that is not an echo request nor about a tunnel (echo replies, errors), handed up") \
	X(UP_OTHER, up_other, "another IP protocol to one of our addresses (Linux: protocol unreachable without a handler), handed up") \
	X(UP_NEIGH, up_neigh, "ARP replies and Neighbour Advertisements, taken in by the gateway and handed up") \
	X(UP_COPY, up_copy, "copies of ARP requests and Neighbour Solicitations for our addresses, handed up (the gateway answers the originals)") \
	X(COPIES, copies, "copies due of ARP requests and Neighbour Solicitations for our addresses (up_copy, or dropped)") \
	X(TO_KERNEL, to_kernel, "written to the kernel interface by the control thread") \
	X(TO_KERNEL_FAILED, to_kernel_failed, "handed up, and the kernel interface refused the write (interface down, queue full): freed") \
	X(FROM_KERNEL, from_kernel, "read from the kernel interface: sent through the port, or dropped under a punt_ reason")

enum fou_punt_counter {
#define FOU_PUNT_ENUM(e, n, d) FOU_PUNT_##e,
	FOU_PUNT_COUNTERS(FOU_PUNT_ENUM)
#undef FOU_PUNT_ENUM
	FOU_PUNT_MAX
};

/*
 * Counters of one lcore, and nothing else. Written only by that lcore
 * (FOU_STAT_ADD), read by the main lcore and the telemetry thread, which
 * sum them over lcores. decap[0] counts plain (encap none) IPIP/SIT/GRE
 * received.
 */
struct fou_lcore_stats {
	uint64_t rx[RTE_MAX_ETHPORTS];		/* from rx_burst, per port */
	uint64_t tx[RTE_MAX_ETHPORTS];		/* accepted by tx_burst, per port */
	uint64_t drop[FOU_DROP_MAX];
	uint64_t decap[FOU_MAX_UDP_PORTS + 1];	/* per FOU port slot */
	uint64_t decap_inner[FOU_INNER_MAX];
	uint64_t icmp_out[FOU_ICMP_MAX];
	uint64_t local[FOU_LOCAL_MAX];		/* the gateway's own stack */
	uint64_t punt[FOU_PUNT_MAX];		/* the exception path to the kernel */
	uint64_t gro_merged;			/* segments merged into an earlier one */
	uint64_t gro_flushed;			/* held packets sent on (merged or not) */
	uint64_t gro_tso;			/* merged packets left to the port's TSO */
	uint64_t gso_packets;			/* merged packets resegmented in software */
	uint64_t gso_segments;			/* segments they became */
	uint64_t reasm_in;			/* fragments taken into the reassembly table */
	uint64_t reasm_out;			/* fragments that left it (reassembled or dropped) */
	uint64_t reasm_datagrams;		/* datagrams reassembled */
	uint64_t reasm_absorbed;		/* fragments absorbed into a datagram's first */
	uint64_t frag_packets;			/* IPv4 packets fragmented (Linux' FragOKs),
						 * inner and outer alike */
	uint64_t frag_fragments;		/* fragments they became (FragCreates) */
	uint64_t frag_port[RTE_MAX_ETHPORTS];	/* of those, the ones whose IP header is
						 * the one on the wire of this port
						 * (forwarded, or outer fragments) */
	uint64_t polls_busy;			/* rx polls that returned packets */
	uint64_t polls_idle;			/* rx polls that returned none */
} __rte_cache_aligned;

/* Relaxed atomic store: the owner is the only writer, readers never tear. */
#define FOU_STAT_ADD(field, n) \
	__atomic_store_n(&(field), (field) + (n), __ATOMIC_RELAXED)
#define FOU_STAT_READ(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

/* An error message for the operator; the caller prefixes the option. */
struct fou_err {
	char msg[FOU_ERR_LEN];
};

void fou_err_set(struct fou_err *err, const char *fmt, ...)
	__rte_format_printf(2, 3);

/* An address, or a prefix with its length. */
struct fou_ip {
	uint8_t family;		/* AF_INET or AF_INET6 */
	uint8_t plen;		/* prefix length, where one applies */
	union {
		uint32_t v4;	/* network order */
		uint8_t v6[16];
	};
};

/* The address as text (no prefix length), for messages and listings. */
const char *fou_ip_str(const struct fou_ip *ip, char *buf, size_t len);
#define FOU_IPSTR(ip) fou_ip_str((ip), (char[INET6_ADDRSTRLEN]){ 0 }, INET6_ADDRSTRLEN)

/* --- the gateway ---------------------------------------------------------- */

/*
 * Table sizes; fou_gw_params_default() gives the defaults. A user sets the
 * first four with the limits statement (fou_stmt.h: tunnels, routes4,
 * routes6, neigh), within the bounds below; the next hops follow the
 * tunnels (FOU_NEXTHOPS): one per tunnel and family, and room for the
 * ports' gateways.
 */
struct fou_gw_params {
	uint32_t max_routes4;	/* IPv4 routes besides the default route */
	uint32_t max_routes6;
	uint32_t max_neighs;
	uint32_t max_nexthops;
	uint32_t max_tunnels;
	int socket_id;
};

#define FOU_LIMIT_TUNNELS_DEFAULT 1024
#define FOU_LIMIT_TUNNELS_MAX (1u << 20)
#define FOU_LIMIT_ROUTES_DEFAULT 65536
#define FOU_LIMIT_ROUTES_MAX (1u << 24)
#define FOU_LIMIT_NEIGH_DEFAULT 4096
#define FOU_LIMIT_NEIGH_MAX 65536	/* a neighbour's slot travels in 16 bits */
#define FOU_NEXTHOPS(tunnels) (2 * (tunnels) + 2048)

struct fou_gw;

void fou_gw_params_default(struct fou_gw_params *p);
struct fou_gw *fou_gw_create(const struct fou_gw_params *p, struct fou_err *err);
/* The sizes gw was made with. */
void fou_gw_params_get(const struct fou_gw *gw, struct fou_gw_params *p);
/* Bytes of DPDK memory the gateway's tables took when it was made (every
 * table is allocated whole then: FIBs, hashes, tunnels and their per-lcore
 * counters, neighbours). */
size_t fou_gw_memsize(const struct fou_gw *gw);
/* Stop the telemetry commands first (fou_telemetry_stop()): they read gw. */
void fou_gw_free(struct fou_gw *gw);

/*
 * The control lock: one writer of the tables at a time. The telemetry
 * commands and fou_neigh_service() hold it; a program that calls control
 * operations from several threads holds it around each.
 */
void fou_gw_lock(struct fou_gw *gw);
void fou_gw_unlock(struct fou_gw *gw);

/* The ports are started: a link change from now on also goes to the
 * ethdev (MTU, MAC address or promiscuous mode). */
void fou_gw_ports_running(struct fou_gw *gw);

/* --- a worker lcore -------------------------------------------------------- */

/*
 * A worker's per-lcore context: its counters (the gateway's for lcore_id),
 * the data-path state only it writes (outer IPv4 IDs, the ICMP token
 * bucket, the neighbours it looked up) and its GRO table. One context per
 * lcore runs at a time; it is created and freed by the control side.
 */
struct fou_lcore;
struct rte_mempool;

struct fou_lcore_conf {
	/* rte_gso takes a merged packet's segment headers (direct) and the
	 * mbufs that point into its payload (indirect) from these */
	struct rte_mempool *direct, *indirect;
	uint16_t ip_id;		/* the first outer IPv4 ID (a random one, so that
				 * lcores sending to one remote do not walk in step) */
	uint32_t reasm_mem;	/* bytes of fragments (mbufs whole) its reassembly
				 * table may hold: its share of FOU_REASM_MEM; 0: all */
	int socket_id;
};

/* The lcore id of the control thread's context: it builds the packets the
 * gateway originates and counts in a row of its own. */
#define FOU_LCORE_CONTROL RTE_MAX_LCORE

struct fou_lcore *fou_lcore_create(struct fou_gw *gw, unsigned int lcore_id,
				   const struct fou_lcore_conf *c, struct fou_err *err);
/* Frees what its GRO table still holds. Stop it first if it was started. */
void fou_lcore_free(struct fou_lcore *lc);

/* Where a context sends packets, in order: n packets, each to its port. */
typedef void (*fou_emit_fn)(void *ctx, struct rte_mbuf **pkts, const uint16_t *ports,
			    uint16_t n);

/*
 * On the worker lcore. fou_lcore_start(): from now on a reader of the
 * tables (control operations wait for its quiescent states). fou_lcore_stop():
 * what GRO holds goes to emit, and it stops being a reader (or control
 * operations would wait forever).
 */
int fou_lcore_start(struct fou_lcore *lc);
void fou_lcore_stop(struct fou_lcore *lc, fou_emit_fn emit, void *ctx);

/*
 * Data path: classify, decapsulate, route, encapsulate, rewrite (and with
 * GRO on the port, merge) n packets received on port (FOU_BURST at a time);
 * a packet that needs an ICMP error leaves as the error. What leaves goes
 * to emit, in order, before the call returns (with GRO, some only in a
 * later call); dropped packets are freed and counted. now: rte_rdtsc().
 * Returns how many were forwarded (before GRO merged any; each fragment of
 * a packet fragmented on the way out counted as one).
 */
uint16_t fou_lcore_rx(struct fou_lcore *lc, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
		      uint64_t now, fou_emit_fn emit, void *ctx);
/*
 * Once per polling loop, holding nothing of the tables: a quiescent state,
 * and what GRO held through this loop goes to emit (unless its port gives
 * flows time to grow: then once that is up).
 */
void fou_lcore_idle(struct fou_lcore *lc, uint64_t now, fou_emit_fn emit, void *ctx);

/* Whether a context of lcore_id has been started: its lcore is listed
 * among the workers' counters (/fou/stats), also after it stopped. */
bool fou_lcore_is_reader(const struct fou_gw *gw, unsigned int lcore_id);

/*
 * What a worker lcore polls and where it sends: one TX queue on every port,
 * RX queues on some. Recorded for /fou/lcores; the worker owns its queues.
 */
struct fou_rxq {
	uint16_t port;
	uint16_t queue;
};
struct fou_worker_conf {
	uint16_t tx_queue;
	uint16_t nb_rxq;
	struct fou_rxq rxq[RTE_MAX_ETHPORTS];
};
int fou_worker_set(struct fou_gw *gw, unsigned int lcore_id, const struct fou_worker_conf *c,
		   struct fou_err *err);
/* NULL for an lcore that is not a worker. */
const struct fou_worker_conf *fou_worker_get(const struct fou_gw *gw, unsigned int lcore_id);

/*
 * Control operations: one function each, shared by the command line, the
 * config file and telemetry. All return 0 or -errno with err filled; a
 * failed call changes nothing.
 */

/* --- interfaces: the DPDK ports ------------------------------------------- */

/* A DPDK port the gateway uses: its MAC and L3 MTU. */
int fou_iface_set(struct fou_gw *gw, uint16_t port, const struct rte_ether_addr *mac,
		  uint16_t mtu, struct fou_err *err);
bool fou_iface_enabled(const struct fou_gw *gw, uint16_t port);
int fou_iface_get(const struct fou_gw *gw, uint16_t port, struct rte_ether_addr *mac,
		  uint16_t *mtu);
/*
 * The port's IPv6 link-local address (fe80::/64), made from its MAC by
 * modified EUI-64 as Linux does: not in the address list, but answered in
 * Neighbour Discovery and the source of solicitations for link-local
 * neighbours. It follows the MAC.
 */
int fou_iface_ll6(const struct fou_gw *gw, uint16_t port, struct fou_ip *ip);
/*
 * Give a configured ethdev what the gateway holds for port: its MTU, and
 * its MAC address as the device's own or, where the device cannot take
 * it, promiscuous mode (*promisc true: the data path filters in software).
 * The one place that programs them; fou_iface_set() does the same on a
 * running port.
 */
int fou_iface_program(const struct fou_gw *gw, uint16_t port, bool *promisc,
		      struct fou_err *err);
/*
 * The transmit offloads (RTE_ETH_TX_OFFLOAD_*) a started port was configured
 * with. Encapsulation leaves the outer IPv4 header checksum and the UDP
 * checksum to the port where it has IPV4_CKSUM / UDP_CKSUM, and computes
 * them in software otherwise. Call before the workers start.
 */
int fou_iface_tx_offload_set(struct fou_gw *gw, uint16_t port, uint64_t tx_offloads,
			     struct fou_err *err);

/*
 * RX-side GRO, per receiving port (`ethtool -K DEV gro on`): TCP segments
 * of one flow that a context forwarded out of a port (decapsulated or not)
 * are merged as Linux' tcp_gro_receive merges them. The flow key has the
 * tunnel they came out of (outer addresses, UDP ports, GRE key). A merged
 * packet leaves through the egress port's TSO (IPv4), whole where it fits
 * the egress MTU, or resegmented by rte_gso into the segments it was made
 * of. timeout_us 0: held packets go at the end of every poll; else they
 * wait up to timeout_us for more.
 */
#define FOU_GRO_FLOWS 32		/* flows an lcore holds at once */
#define FOU_GRO_MAX_SEGS 64		/* segments merged into one packet */
#define FOU_GRO_TIMEOUT_MAX_US 1000000
int fou_gro_set(struct fou_gw *gw, uint16_t port, bool on, uint32_t timeout_us,
		struct fou_err *err);
/* -ENODEV for a port that is not the gateway's. */
int fou_gro_get(const struct fou_gw *gw, uint16_t port, bool *on, uint32_t *timeout_us);

/* --- addresses, routes, next hops ------------------------------------------ */

#define FOU_TUNNEL_NAMESIZE 16	/* IFNAMSIZ */

int fou_addr_add(struct fou_gw *gw, uint16_t port, const struct fou_ip *addr, struct fou_err *err);
/* An address with its routes (not while a tunnel has it as local). */
int fou_addr_del(struct fou_gw *gw, uint16_t port, const struct fou_ip *addr, struct fou_err *err);
/*
 * An address on the tunnel named tunnel, as `ip addr add IP/PLEN dev TUNNEL`:
 * a local address, and the route to its network into the tunnel. Of a
 * family the tunnel carries (IPv4: ipip, gre; IPv6: sit, gre). It goes with
 * its tunnel (fou_tunnel_del()); it cannot be a tunnel's local.
 */
int fou_addr_add_tunnel(struct fou_gw *gw, const char *tunnel, const struct fou_ip *addr,
			struct fou_err *err);
int fou_addr_del_tunnel(struct fou_gw *gw, const char *tunnel, const struct fou_ip *addr,
			struct fou_err *err);
int fou_route_add(struct fou_gw *gw, const struct fou_ip *prefix, uint16_t port,
		  const struct fou_ip *via, struct fou_err *err);
/* Route prefix into the tunnel named dev (IPv4 for ipip, IPv6 for sit). */
int fou_route_add_tunnel(struct fou_gw *gw, const struct fou_ip *prefix, const char *dev,
			 struct fou_err *err);
/* The first route to prefix (lowest metric, then first added), as `ip
 * route del PREFIX`; not one an address brought. */
int fou_route_del(struct fou_gw *gw, const struct fou_ip *prefix, struct fou_err *err);

/*
 * Several routes to one prefix, as `ip -6 route append`: the routes of the
 * lowest metric whose next hop is usable carry the traffic, several of
 * them by weight over the inner flow hash (ECMP, at most FOU_ECMP_MAX);
 * a tunnel made unusable (fou_tunnel_usable_set()) hands its share to the
 * others. A route is its prefix, next hop and metric: two equal ones are
 * -EEXIST.
 */
#define FOU_ECMP_MAX 16
#define FOU_ROUTE_WEIGHT_MAX 256
struct fou_route_spec {
	struct fou_ip prefix;
	const char *tunnel;		/* into this tunnel; NULL: out of port */
	uint16_t port;
	const struct fou_ip *via;	/* out of port via a gateway; NULL: connected */
	uint32_t metric;		/* lower wins; 0 by default */
	uint16_t weight;		/* 1..FOU_ROUTE_WEIGHT_MAX; 0 is 1 */
};
int fou_route_append(struct fou_gw *gw, const struct fou_route_spec *rs, struct fou_err *err);
/* What fou_route_remove() matches besides the prefix. */
#define FOU_ROUTE_M_DEV 0x01		/* the tunnel, or the port */
#define FOU_ROUTE_M_VIA 0x02		/* the gateway (rs->via NULL: none) */
#define FOU_ROUTE_M_METRIC 0x04
/* The first route to rs->prefix (lowest metric, then first added) that
 * matches what match names, as `ip route del` with qualifiers. */
int fou_route_remove(struct fou_gw *gw, const struct fou_route_spec *rs, unsigned int match,
		     struct fou_err *err);

struct fou_addr_info {
	uint16_t port;		/* a port's address (tunnel "") */
	char tunnel[FOU_TUNNEL_NAMESIZE];	/* a tunnel's address */
	struct fou_ip ip;	/* with its prefix length */
};
/* Fills up to n addresses in the order they were added; returns the count. */
unsigned int fou_addr_list(const struct fou_gw *gw, struct fou_addr_info *out, unsigned int n);

struct fou_route_info {
	struct fou_ip prefix;
	const char *type;	/* local, connected, gateway, tunnel, broadcast */
	uint16_t port;		/* connected, gateway, broadcast */
	struct fou_ip via;	/* gateway; family 0 otherwise */
	char tunnel[FOU_TUNNEL_NAMESIZE];	/* tunnel */
	bool from_addr;		/* brought by an address (not a route statement) */
	uint32_t metric;
	uint16_t weight;
	bool usable;		/* its next hop may carry traffic (a tunnel's is unusable
				 * once fou_tunnel_usable_set() said so) */
	bool in_use;		/* among the routes its prefix's traffic takes now */
};
/* Fills up to n routes from the offset-th, in the order they were added;
 * returns the count of all. */
unsigned int fou_route_list(const struct fou_gw *gw, struct fou_route_info *out, unsigned int n,
			    unsigned int offset);
/* The first route to exactly prefix (lowest metric, then first added);
 * -ESRCH if there is none. */
int fou_route_get(const struct fou_gw *gw, const struct fou_ip *prefix,
		  struct fou_route_info *ri);

/* --- neighbours ------------------------------------------------------------ */

int fou_neigh_add(struct fou_gw *gw, const struct fou_ip *ip, uint16_t port,
		  const struct rte_ether_addr *mac, struct fou_err *err);
int fou_neigh_del(struct fou_gw *gw, const struct fou_ip *ip, uint16_t port, struct fou_err *err);

/* Linux' NUD states (`ip neigh`). */
enum fou_neigh_state {
	FOU_NUD_INCOMPLETE = 1,	/* asked, no answer yet: packets wait */
	FOU_NUD_REACHABLE,	/* confirmed within the reachable time */
	FOU_NUD_STALE,		/* known, not confirmed lately */
	FOU_NUD_DELAY,		/* STALE and used: a probe follows unless confirmed */
	FOU_NUD_PROBE,		/* unicast probes */
	FOU_NUD_FAILED,		/* unanswered */
	FOU_NUD_PERMANENT,	/* static (--neigh): never ages, never learnt over */
};
const char *fou_neigh_state_name(enum fou_neigh_state s);

struct fou_neigh_info {
	uint16_t port;
	struct fou_ip ip;
	struct rte_ether_addr mac;	/* zero while INCOMPLETE or FAILED */
	uint8_t state;			/* enum fou_neigh_state */
	uint8_t probes;			/* sent in this state */
	bool router;			/* said so in an NA */
	uint32_t age_ms;		/* since the state or MAC last changed */
	uint32_t queued;		/* packets waiting for it */
};
/* Fills up to n neighbours from the offset-th (table order); returns the
 * count of all. */
unsigned int fou_neigh_list(const struct fou_gw *gw, struct fou_neigh_info *out, unsigned int n,
			    unsigned int offset);
/* The MAC the workers send to (a static or resolved neighbour). */
int fou_neigh_get(const struct fou_gw *gw, const struct fou_ip *ip, uint16_t port,
		  struct rte_ether_addr *mac);
/* Drop every entry that is not static, with what waits for it (`ip neigh
 * flush`); returns how many went. */
unsigned int fou_neigh_flush(struct fou_gw *gw);

/*
 * The gateway's own stack on the control thread, about every millisecond,
 * with the control context (FOU_LCORE_CONTROL): learn what the workers
 * heard (ARP, ND), queue and resolve what waits for a neighbour, run the
 * NUD timers, send requests, probes and announcements through a started
 * worker. Takes the control lock.
 */
void fou_neigh_service(struct fou_lcore *ctl, uint64_t now);
/* Packets waiting for neighbours, all queues together, at most (they hold
 * mbufs of the pool the workers receive into: size it for them). */
#define FOU_NEIGH_HELD_MAX 4096
/* At exit, once the workers have stopped: drop what still waits for a
 * neighbour (counted), so every mbuf is back in its pool. */
void fou_neigh_stop(struct fou_gw *gw);

/* --- FOU receive ports and tunnels ----------------------------------------- */

/*
 * A receive port, as `ip fou add port P ipproto N [-6]` (FOU: the UDP
 * payload is a packet of protocol N) or `ip fou add port P gue [-6]` (GUE:
 * the protocol is in the GUE header). A port is of one address family:
 * the packets to our IPv4 addresses, or those to our IPv6 addresses.
 */
struct fou_port_conf {
	uint16_t udp_port;
	uint8_t ipproto;	/* FOU's inner protocol; 0 with gue (in a delete: any) */
	uint8_t family;		/* AF_INET or AF_INET6 */
	bool gue;
};
int fou_port_add(struct fou_gw *gw, const struct fou_port_conf *pc, struct fou_err *err);
/* ipproto 0 and not gue: whatever the port is. */
int fou_port_del(struct fou_gw *gw, const struct fou_port_conf *pc, struct fou_err *err);

struct fou_port_info {
	uint16_t udp_port;
	uint8_t ipproto;	/* 0 for a GUE port */
	uint8_t slot;		/* index into fou_lcore_stats.decap */
	uint8_t family;		/* AF_INET or AF_INET6 */
	bool gue;
};
/* Fills up to n entries sorted by UDP port, a port over IPv4 before its
 * twin over IPv6; returns the total count. */
unsigned int fou_port_list(const struct fou_gw *gw, struct fou_port_info *out, unsigned int n);
const char *fou_proto_name(uint8_t ipproto);	/* "ipip", "sit", "gre" or NULL */

/*
 * A tunnel, as `ip link add NAME type ipip|sit|gre local L remote R ...
 * encap fou|gue|none encap-sport auto encap-dport P` (outer IPv4), or
 * `type ip6tnl|ip6gre ...` (outer IPv6). fou_tunnel_conf_default() and
 * fou_tunnel_conf_default6() give iproute2's defaults.
 */
struct fou_tunnel_conf {
	char name[FOU_TUNNEL_NAMESIZE];
	/*
	 * The outer family is local's (and remote's). Over IPv4: IPPROTO_IPIP
	 * (ipip), IPPROTO_IPV6 (sit) or IPPROTO_GRE (gre). Over IPv6:
	 * IPPROTO_IPIP (ip6tnl mode ipip6), IPPROTO_IPV6 (ip6tnl mode
	 * ip6ip6), FOU_TUN_ANY (ip6tnl mode any: IPv4 and IPv6 inside) or
	 * IPPROTO_GRE (ip6gre).
	 */
	uint8_t type;
	struct fou_ip local, remote;
	uint8_t ttl;		/* 0: inherit from the inner packet */
	bool tos_inherit;
	uint8_t tos;		/* when not inherited; ECN bits come from the inner */
	bool pmtudisc;		/* outer DF always (else copied from an IPv4 inner) */
	uint8_t encap;		/* FOU_ENCAP_*: none is plain IPIP/SIT/GRE */
	uint16_t encap_sport;	/* 0: a hash of the inner flow (auto) */
	uint16_t encap_dport;
	bool encap_csum;	/* UDP checksum; else 0 */
	bool key_set;		/* GRE key (okey) */
	uint32_t key;
	bool gre_csum;		/* GRE checksum, sent and required (icsum + ocsum) */
	bool gre_seq;		/* GRE sequence numbers (oseq) */
	/* IPv6 underlay only (ip6tnl, ip6gre; iproute2's defaults from
	 * fou_tunnel_conf_default6()): ttl is the hoplimit, tos the tclass */
	bool encap_csum6;	/* encap-udp6-csum: UDP checksum over IPv6 (default on) */
	int16_t encaplimit;	/* Tunnel Encapsulation Limit option, -1: none (default 4) */
	bool flowlabel_inherit;	/* flowlabel inherit */
	uint32_t flowlabel;	/* else this (20 bits; 0 default) */
	/* tunnel health (fou_probe.c): echo probes through the peer */
	bool probe;			/* probe=on */
	uint16_t probe_interval_ms;	/* interval=MS, FOU_PROBE_INTERVAL_* */
	uint8_t probe_timeout;		/* timeout=N: unanswered probes that make up down */
};
/* ip6tnl mode any */
#define FOU_TUN_ANY 0

#define FOU_ENCAP_NONE 0
#define FOU_ENCAP_FOU 1
#define FOU_ENCAP_GUE 2
/* "none", "fou", "gue" */
const char *fou_encap_name(uint8_t encap);

void fou_tunnel_conf_default(struct fou_tunnel_conf *c);
/* iproute2's defaults for `ip link add type ip6tnl|ip6gre`: mode ip6ip6
 * (type IPPROTO_IPV6; the caller sets IPPROTO_GRE for ip6gre), hoplimit
 * 64, encaplimit 4, tclass 0, flowlabel 0, encap-csum6 on (with encap
 * fou or gue), local and remote of family AF_INET6. */
void fou_tunnel_conf_default6(struct fou_tunnel_conf *c);
/* "ipip", "sit", "gre", "ip6tnl" or "ip6gre": the `ip link` type */
const char *fou_tunnel_type_name(const struct fou_tunnel_conf *c);
/* ip6tnl's mode ("ipip6", "ip6ip6", "any"); NULL for the other types */
const char *fou_tunnel_mode_name(const struct fou_tunnel_conf *c);
int fou_tunnel_add(struct fou_gw *gw, const struct fou_tunnel_conf *c, struct fou_err *err);
/* A tunnel with its addresses and the routes into it (as `ip link del`). */
int fou_tunnel_del(struct fou_gw *gw, const char *name, struct fou_err *err);

struct fou_tunnel_info {
	struct fou_tunnel_conf conf;
	uint16_t mtu;		/* tunnel MTU now: egress (or path) MTU - overhead;
				 * 0 unresolved */
	const char *unresolved;	/* why the remote cannot be reached; NULL if it can */
	uint16_t overhead;	/* outer IPv4 + UDP + GRE bytes */
	uint16_t path_mtu;	/* outer packet size the path carries, learnt from
				 * ICMP fragmentation needed; 0: none (the port's) */
	uint32_t path_mtu_expires;	/* seconds until path_mtu expires */
	uint16_t probed_mtu;	/* outer packet size the path MTU search confirmed
				 * (probe=on tunnels); 0: none */
	const char *mtu_search;	/* its state: fou_tunnel_mtu_probe() */
	uint64_t tx_packets;	/* encapsulated, summed over lcores */
	uint64_t tx_bytes;	/* inner bytes encapsulated */
	uint64_t rx_packets;	/* received from the remote and decapsulated */
	uint64_t rx_bytes;	/* inner bytes */
	uint64_t tx_frags;	/* inner IPv4 fragments made to fit the tunnel MTU
				 * (each is counted in tx_packets too) */
	uint64_t tx_outer_frags;	/* outer fragments made to fit the path MTU */
	const char *health;	/* fou_health_name(): off, unknown, up, down */
};
/*
 * Search tunnel name's path MTU again now (RFC 8899 DPLPMTUD: probes of
 * growing size with DF through the peer), as after a change of the path;
 * the tunnel MTU keeps what was found until the search learns otherwise.
 * Only tunnels with probe=on are searched (-EINVAL for the others). The
 * search's state: "disabled", "base", "searching", "search_complete",
 * "error" (not even 1200 bytes, 1280 over IPv6, pass).
 */
int fou_tunnel_mtu_probe(struct fou_gw *gw, const char *name, struct fou_err *err);
/*
 * The searches' round on the control thread, beside fou_probe_service():
 * a search starts, as on a new path, when a probe=on tunnel's echo probes
 * come back, when its egress port or that port's MTU changes, or when it
 * comes back up from down; MTU probes go (one in flight per tunnel) and
 * are lost after the tunnel's probe interval. Takes the control lock.
 */
void fou_plpmtu_service(struct fou_lcore *ctl, uint64_t now);

/* Fills up to n entries in slot order; returns the total count. */
unsigned int fou_tunnel_list(const struct fou_gw *gw, struct fou_tunnel_info *out,
			     unsigned int n);
/* The same from the offset-th tunnel on; counters since creation, or since
 * fou_stats_reset(). */
unsigned int fou_tunnel_list_from(const struct fou_gw *gw, struct fou_tunnel_info *out,
				  unsigned int n, unsigned int offset, bool since_reset);

/*
 * The peer's config (fou_peer.c): the Linux commands, one per call of cb
 * (a line without newline), that make a Linux host the far end of tunnel
 * name: `ip fou add`, `ip link add` mirrored (local and remote swapped,
 * encap-dport the gateway's receive port), `ip addr add` of the peer's
 * address on each of the tunnel's networks, `ip link set up`, the routes
 * back to the networks behind the gateway's other ports, and the sysctls
 * the probes through the peer need. Every line is made before the first
 * call: an error (no such tunnel, no receive port for it, no address left
 * for the peer), named in err, calls cb for none. Under the control lock.
 */
typedef int (*fou_peer_cb)(void *ctx, const char *line, struct fou_err *err);
int fou_peer_config(const struct fou_gw *gw, const char *name, fou_peer_cb cb, void *ctx,
		    struct fou_err *err);

/*
 * Tunnel health (fou_probe.c): on a tunnel with probe=on and an address of
 * the family (--addr TUNNEL,IP/PLEN), the control thread sends an echo
 * probe every interval, from that address to itself, into the tunnel; a
 * peer that forwards sends it back (one router: TTL 255 becomes 254).
 * unknown until the first valid reply, up on a valid reply, down from up
 * after timeout consecutive probes unanswered within an interval.
 */
#define FOU_PROBE_PORT 3785		/* UDP: BFD echo (RFC 5881) */
#define FOU_PROBE_INTERVAL_DEFAULT 1000
#define FOU_PROBE_INTERVAL_MIN 10
#define FOU_PROBE_INTERVAL_MAX 60000
#define FOU_PROBE_TIMEOUT_DEFAULT 3
#define FOU_PROBE_WINDOW 64		/* probes outstanding, and the loss window */

enum fou_health {
	FOU_HEALTH_OFF,		/* probe=off */
	FOU_HEALTH_UNKNOWN,	/* no valid reply yet */
	FOU_HEALTH_UP,
	FOU_HEALTH_DOWN,
};
/* "off", "unknown", "up", "down" */
const char *fou_health_name(enum fou_health h);

struct fou_tunnel_health {
	char name[FOU_TUNNEL_NAMESIZE];
	uint8_t state;			/* enum fou_health */
	uint16_t interval_ms;
	uint8_t timeout;
	bool probing4, probing6;	/* an address of the family: probes go */
	uint64_t last_change_ms;	/* since the last change of state (or probe start) */
	uint64_t transitions;		/* changes of state */
	uint32_t unanswered;		/* consecutive echo probes lost, now */
	/* RTT in microseconds: last, least, smoothed (RFC 6298's SRTT, gain
	 * 1/8) and jitter (RFC 3550's interarrival jitter, gain 1/16, over
	 * the RTTs of successive replies); 0 before the first reply */
	uint64_t rtt_last_us, rtt_min_us, rtt_avg_us, rtt_jitter_us;
	uint32_t window;		/* echo probes decided, of the last FOU_PROBE_WINDOW */
	uint32_t window_lost;		/* of those, lost */
	uint64_t sent;			/* echo probes built */
	uint64_t received;		/* valid replies in time */
	uint64_t lost;			/* unanswered within the interval */
	uint64_t late;			/* valid, after the interval (the probe counted lost) */
	uint64_t replayed;		/* a reply to a probe answered before */
	uint64_t forged;		/* bad magic, version, kind, length, token, sequence never sent */
	uint64_t wrong_tunnel;		/* came out of another tunnel than the one it names */
	uint64_t bad_ttl;		/* TTL / hop limit not 254: not one router back */
};
/* The health of tunnel name; -ENODEV named in err without one. */
int fou_tunnel_health_get(const struct fou_gw *gw, const char *name, struct fou_tunnel_health *h,
			  struct fou_err *err);
/* The control thread's round with fou_neigh_service(): returned probes,
 * timeouts, the probes due at now (TSC). Takes the control lock. */
void fou_probe_service(struct fou_lcore *ctl, uint64_t now);
/* At exit, once the workers have stopped: returned probes still in the
 * ring are freed (they were counted consumed). */
void fou_probe_stop(struct fou_gw *gw);

/* encap-sport auto picks from [min, max]; default 32768-60999 as Linux'
 * ip_local_port_range. */
int fou_sport_range_set(struct fou_gw *gw, uint16_t min, uint16_t max, struct fou_err *err);
void fou_sport_range_get(const struct fou_gw *gw, uint16_t *min, uint16_t *max);

/* ICMP errors: at most rate per second per lcore after a burst; rate 0
 * sends none. Default 1000/s, burst 50 (Linux' icmp_msgs_per_sec/burst). */
int fou_icmp_rate_set(struct fou_gw *gw, uint32_t rate, uint32_t burst, struct fou_err *err);
void fou_icmp_rate_get(const struct fou_gw *gw, uint32_t *rate, uint32_t *burst);

/*
 * Reassembly of IPv4 fragments to our addresses (Linux' ip_defrag): each
 * worker lcore has a table of FOU_REASM_DGRAMS datagrams and its share of
 * FOU_REASM_MEM (the mbufs it holds, counted whole, as Linux counts
 * truesize against ipfrag_high_thresh); a datagram not complete within the
 * reassembly time (ipfrag_time) is dropped. The pools must have room for
 * FOU_REASM_MEM of mbufs besides the rest.
 */
#define FOU_REASM_MEM (4u << 20)
#define FOU_REASM_DGRAMS 1024u
#define FOU_REASM_TIME_DEFAULT 30
#define FOU_REASM_TIME_MAX 3600
/* Seconds; set before the ports start (the contexts' tables are made with it). */
int fou_reasm_time_set(struct fou_gw *gw, uint32_t seconds, struct fou_err *err);
uint32_t fou_reasm_time_get(const struct fou_gw *gw);
/* --- the exception path to the kernel ------------------------------------ */

/*
 * `--punt PORTID[,iface=NAME][,rate=N][,burst=N]`: a kernel interface (a
 * net_tap device the gateway owns, hidden from the port list) with the
 * port's MAC address, MTU and addresses. What the gateway does not take
 * itself of what is sent to the port's addresses goes up to it, and what
 * the kernel sends out of it leaves through the port. Set before
 * fou_punt_start() only.
 */
#define FOU_PUNT_RATE_DEFAULT 10000	/* packets per second per lcore */
#define FOU_PUNT_BURST_DEFAULT 1000
#define FOU_PUNT_IFNAME_DEFAULT "dpdkfou%u"

struct fou_punt_conf {
	char ifname[FOU_TUNNEL_NAMESIZE];	/* "" : FOU_PUNT_IFNAME_DEFAULT */
	uint32_t rate;		/* packets per second per lcore; 0: no limit */
	uint32_t burst;
};

void fou_punt_conf_default(struct fou_punt_conf *c);
int fou_punt_set(struct fou_gw *gw, uint16_t port, const struct fou_punt_conf *c,
		 struct fou_err *err);
/* The port's kernel interface set, not made (before fou_punt_start()). */
int fou_punt_del(struct fou_gw *gw, uint16_t port, struct fou_err *err);

struct fou_punt_info {
	uint16_t port;
	struct fou_punt_conf conf;	/* ifname filled in */
	int ifindex;			/* 0 until started */
	uint16_t dev_port;		/* the net_tap's ethdev port id, once started */
};
/* The ports with a kernel interface: fills up to n, returns the count (the
 * counters are the gateway's: fou_stats_get()). */
unsigned int fou_punt_list(const struct fou_gw *gw, struct fou_punt_info *out, unsigned int n);

/*
 * On the main lcore once the ports are started and before the workers: make
 * each kernel interface (its RX buffers from pool), give it the port's MAC
 * address and MTU, bring it up. Returns 0 or -errno with err filled.
 */
struct rte_mempool;
int fou_punt_start(struct fou_gw *gw, struct rte_mempool *pool, struct fou_err *err);
/*
 * The control thread's round (fou_neigh_service()'s thread, as it shares the
 * inject rings): what the workers handed up goes to the kernel
 * interfaces, what the kernel sent goes through a started worker, and the
 * interfaces follow the ports' MAC, MTU and addresses (netlink).
 */
void fou_punt_service(struct fou_lcore *ctl, uint64_t now);
/* At exit, once the workers have stopped: what is still handed up goes to
 * the kernel, the interfaces are removed. */
void fou_punt_stop(struct fou_gw *gw);

/* --- counters ------------------------------------------------------------- */

/* One lcore's counters, which only its context (and the worker's TX, through
 * this pointer) writes; sum over every lcore into out (since the start). */
struct fou_lcore_stats *fou_lcore_stats(struct fou_gw *gw, unsigned int lcore_id);
void fou_stats_sum(const struct fou_gw *gw, struct fou_lcore_stats *out);
/* Since the last fou_stats_reset(): of one lcore, or of all (lcore_id < 0). */
int fou_stats_get(const struct fou_gw *gw, int lcore_id, struct fou_lcore_stats *out);
/* Start the counters fou_stats_get() and fou_tunnel_list_from() show from
 * zero, without writing the workers' counters. */
void fou_stats_reset(struct fou_gw *gw);
uint64_t fou_stats_drops(const struct fou_lcore_stats *s);
/* Packets received and sent in s, over every port. */
void fou_stats_rx_tx(const struct fou_lcore_stats *s, uint64_t *rx, uint64_t *tx);
/* Packets waiting in the neighbour queues for ARP/ND resolution. */
uint64_t fou_stats_held(const struct fou_lcore_stats *s);
/* Fragments waiting in the reassembly tables. */
uint64_t fou_stats_reasm_held(const struct fou_lcore_stats *s);
/* Packets handed up to the kernel interfaces (the up_* counters), and the
 * packets the punt path brought in: read from the kernel interfaces, and
 * the copies it made. */
uint64_t fou_stats_punted(const struct fou_lcore_stats *s);
uint64_t fou_stats_punt_in(const struct fou_lcore_stats *s);
/* Whether every packet is accounted for: rx + packets the gateway built +
 * the segments resegmentation added + the packets fragmentation added +
 * what the punt path brought in = tx + drops + the segments GRO merged
 * away + the packets still waiting for a neighbour + the packets its own
 * stack took in + the fragments absorbed into a reassembled datagram + the
 * fragments waiting for the rest of theirs + the packets punted. */
bool fou_stats_balanced(const struct fou_lcore_stats *s);
/* The packets fragmentation added: fragments made less the packets cut. */
uint64_t fou_stats_frag_added(const struct fou_lcore_stats *s);
const char *fou_drop_name(enum fou_drop d);
const char *fou_drop_desc(enum fou_drop d);
const char *fou_inner_name(enum fou_inner i);
const char *fou_icmp_name(enum fou_icmp_kind k);
const char *fou_icmp_desc(enum fou_icmp_kind k);
const char *fou_local_name(enum fou_local_counter c);
const char *fou_local_desc(enum fou_local_counter c);
const char *fou_punt_name(enum fou_punt_counter c);
const char *fou_punt_desc(enum fou_punt_counter c);

/* --- logging ------------------------------------------------------------------ */

/*
 * rte_log types, each INFO unless --log-level says otherwise
 * (doc/logging.md): fou.ctl control and configuration, fou.telemetry the
 * commands (changes at INFO, reads at DEBUG), fou.neigh the neighbour
 * table's events (DEBUG), fou.port the DPDK ports (startup lines, link
 * changes, what a device cannot do), fou.app the rest of the program. Only
 * the main lcore and the telemetry threads log: never a worker, which
 * would make a syscall per message.
 */
extern int fou_logtype_ctl;
extern int fou_logtype_telemetry;
extern int fou_logtype_neigh;
extern int fou_logtype_port;
extern int fou_logtype_app;

/* One message, a line: FOU_LOG(INFO, port, "port %u: ...", p). */
#define FOU_LOG(level, type, fmt, ...) \
	rte_log(RTE_LOG_ ## level, fou_logtype_ ## type, fmt "\n", ##__VA_ARGS__)
/* Whether FOU_LOG(level, type) prints: skips building what would not be. */
#define FOU_LOG_ON(level, type) rte_log_can_log(fou_logtype_ ## type, RTE_LOG_ ## level)

#endif /* FOU_H */
