#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A burst decides nothing: every outcome interleaved in one capture gives
the same results whether the gateway takes it 32 packets per poll (the
default) or one (--burst 1; the pcap PMD then reads one packet per
rte_eth_rx_burst() call). The receive path looks up a whole burst's tunnels
and routes ahead, stage by stage, and each packet takes what was found for
it only for the same key; this shows that no decision depends on which
other packets share the burst, including one that changes state (a path
MTU) for the packets after it in the same burst.

The capture, all on port 0 (one capture keeps the order): test_hostile's
named cases (every malformation of test_malformed, the drops that need
tunnels, ICMP answered back through the tunnels) interleaved with
decapsulation to next hops (ipip, gre with and without key and checksum,
sit, the FOU port aliases), plain IPv4 and IPv6 forwarding, encapsulation
into each tunnel type, ARP and Neighbour Discovery for the gateway, pings
of its addresses, TTL and hop limit 1, DF packets over a tunnel's MTU, and
an ICMP fragmentation needed that lowers fou-gre's path MTU in the middle
of a burst: a big packet before it in that burst is encapsulated, one after
it comes back as fragmentation needed. ICMP errors get a token bucket that
cannot run out (--icmp-rate), so time plays no part.

Each run must give exactly what the model of each frame says (every output
frame, drops by reason, decapsulations, ICMP messages), so both runs cannot
be equally wrong; then the two runs must be identical: every frame of each
port in the same order, byte for byte except the IPv4 IDs of the headers
the gateway built (and the checksums over them), whose difference must be
one constant -- each worker's ID counter starts at a random value
(app/worker.c), and the same packets in the same order advance it alike --,
the answers to ARP and ND in the same order, and every counter of the exit
summary, except the neighbour resolution requests, which follow the clock.
The busy polls of the worker (/fou/lcores) show each run took the capture
in the bursts it should.

Not in the capture: the drop reasons of conditions a pcap port never
meets (hdr_split, no_headroom, gso_failed, tx_prepare, tx_full), those of
neighbour resolution ending (neigh_failed, neigh_queue_full: the clock
decides when), no_neigh (every next hop here can be resolved), and
icmp_ratelimited: no bucket both limits errors and leaves time out of it."""
import collections
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou, gre, v4, v6  # noqa: E402
import test_encap as te  # noqa: E402
import test_hostile as th  # noqa: E402
import test_malformed as tm  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.layers.inet import IP, UDP, TCP, ICMP  # noqa: E402
from scapy.layers.inet6 import (IPv6, ICMPv6EchoRequest, ICMPv6ND_NS,  # noqa: E402
                                ICMPv6ND_NA, ICMPv6NDOptSrcLLAddr, ICMPv6NDOptDstLLAddr)

BURST = 32                      # FOU_BURST, the default --burst
LL_P0 = 'fe80::aff:fe63:1'      # port 0's link-local address (from MAC_P0)
LL_PEER = 'fe80::2'
# every error of the capture is sent, however long the run takes
ICMP_ALL = ['--icmp-rate', '1000,burst=1000000']
PMTU = 1200                     # what the forged fragmentation needed reports
PORT_MACS = {0: ft.MAC_P0, 1: ft.MAC_P1}


def _tunnels():
    """test_hostile's tunnels as test_encap.Tunnel, which builds their
    outer headers from the configuration."""
    out = {}
    for spec in th.TUNNELS:
        name, *kv = spec.split(',')
        d = dict(x.partition('=')[::2] for x in kv)
        args = ','.join(x for x in kv if x.split('=')[0] not in ('type', 'local', 'remote'))
        out[name] = te.Tunnel(name, d['type'], d['remote'], args)
    return out


TUN = _tunnels()


def peer(ip):
    return Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) / ip


def data(n, seed):
    return Raw(bytes((seed * 13 + i) & 0xff for i in range(n)))


def encap_expected(name, frame, tunnel, inner_l3):
    """frame leaves port 0 to the peer as inner_l3 inside tunnel: the outer
    headers built from the tunnel's configuration; the outer ID, the auto
    source port and the UDP checksum over it are not predictable here
    (test_encap checks them)."""
    t = TUN[tunnel]
    outer = t.outer(inner_l3, 0, 0, 0)[0]
    ignore = [(4, 6)]
    if t.fou and t.sport is None:
        ignore.append((20, 22))
    if t.udp_csum:
        ignore.append((26, 28))
    return ft.Expected(name, frame, port=0, eth_dst=ft.MAC_PEER, l3=outer, ignore=tuple(ignore))


def icmp_back(t, name, frame, kind, reply, tunnel_port=None, decap=True):
    """frame answered with the ICMP message reply: straight to the peer on
    port 0, or through the tunnel of FOU port tunnel_port back to it."""
    if tunnel_port is None:
        t.icmp(name, frame, 0, ft.MAC_PEER, reply, kind, plain=not decap)
    else:
        l3, ignore = tm._tunnel_back(reply, tunnel_port)
        t.icmp(name, frame, 0, ft.MAC_PEER, l3, kind, plain=not decap, ignore=ignore)


def valid_cases():
    """The outcomes test_hostile's named cases lack, by kind; each list in
    the order it goes into the capture."""
    kinds = collections.OrderedDict()
    t = ft.Traffic()
    # decapsulation, then routed to a next hop on port 1
    for i, (dport, inner) in enumerate((
            (5555, v4(dst='192.168.4.21', seq=201)),
            (5556, gre(v4(dst='192.168.47.22', seq=202))),
            (5557, v6(dst='fd00:41::23', seq=203)),
            (5556, gre(v6(dst='fd00:41::24', seq=204))),
            (5556, gre(v4(dst='192.168.4.25', seq=205), c=1, k=1, seq=th.GRE_KEY - 0x0a0b0c0d)),
            (5558, v6(dst='fd00:41::26', seq=206)),
            (5559, v4(dst='192.168.47.27', ttl=2, tos=2, seq=207)),
            (5555, IP(src='192.168.3.2', dst='192.168.4.28', id=208, flags='DF') /
             UDP(sport=5000, dport=6000) / data(200, 208)),
            (5557, IPv6(src='fd00:40::2', dst='fd00:41::29', tc=0xb8) /
             UDP(sport=5000, dport=6000) / data(100, 209)))):
        f = fou(dport, inner, sport=41000 + i, chksum=None if i % 2 else 0)
        mac = ft.MAC_NH_SIT if inner.haslayer(IPv6) else \
            ft.MAC_NH_GRE if inner[IP].dst.startswith('192.168.47.') else ft.MAC_NH_IPIP
        t.fwd('decap %d to %s' % (dport, inner.payload.dst if dport == 5556 else inner.dst),
              f, 1, mac)
    kinds['decap'] = t.cases
    # plain packets for other hosts, routed as they are
    t = ft.Traffic()
    for i, (dst, mac) in enumerate((('192.168.4.31', ft.MAC_NH_IPIP),
                                    ('192.168.47.32', ft.MAC_NH_GRE),
                                    ('192.168.4.35', ft.MAC_NH_IPIP),
                                    ('192.168.47.36', ft.MAC_NH_GRE))):
        t.route('forward v4 to ' + dst, peer(IP(src=ft.IP_PEER, dst=dst, ttl=9, id=300 + i) /
                                           UDP(sport=7, dport=9) / data(30 + i, i)), 1, mac)
    for i, dst in enumerate(('fd00:41::33', 'fd00:41::34', 'fd00:41::37')):
        t.route('forward v6 to ' + dst, peer(IPv6(src='fd00:40::2', dst=dst, hlim=5) /
                                           UDP(sport=7, dport=9) / data(40 + i, i)), 1,
                ft.MAC_NH_SIT)
    kinds['forward'] = t.cases
    # plain packets routed into each tunnel
    cases = []
    for i, (dst, tunnel) in enumerate((('192.168.3.41', 'fou-ipip'),
                                       ('192.168.48.42', 'fou-gre'),
                                       ('192.168.49.43', 'gre-kc'),
                                       ('fd00:40::44', 'fou-sit'),
                                       ('192.168.3.45', 'fou-ipip'),
                                       ('192.168.49.46', 'gre-kc'),
                                       ('192.168.48.47', 'fou-gre'),
                                       ('fd00:40::48', 'fou-sit'))):
        if ':' in dst:
            ip = IPv6(src='fd00:41::2', dst=dst, hlim=64, tc=1) / UDP(sport=11, dport=12) / \
                data(50 + i, i)
        else:
            ip = IP(src='192.168.4.2', dst=dst, ttl=64, tos=0x10 | i % 4, flags='DF',
                    id=400 + i) / UDP(sport=11, dport=12) / data(50 + i, i)
        f = peer(ip)
        cases.append(encap_expected('encap into %s (%s)' % (tunnel, dst), f, tunnel,
                                    ft.forwarded_l3(ft.l3_of(f))))
    kinds['encap'] = cases
    # ICMP the gateway sends: errors and echo replies, straight back to
    # the peer or back through the tunnel the packet came by
    t = ft.Traffic()
    f = peer(IP(src=ft.IP_PEER, dst='192.168.4.51', ttl=1, id=501) / UDP(sport=1, dport=2) /
             data(20, 1))
    icmp_back(t, 'TTL 1 to 192.168.4.51: time exceeded', f, 'icmp_time_exceeded',
              ft.icmp4_error(ft.l3_of(f), ft.IP_P0, 'icmp_time_exceeded'), decap=False)
    f = fou(5555, IP(src='192.168.3.2', dst='192.168.4.52', ttl=1, id=502) /
            UDP(sport=3, dport=4) / data(20, 2))
    icmp_back(t, 'inner TTL 1: time exceeded back into fou-ipip', f, 'icmp_time_exceeded',
              ft.icmp4_error(ft.tunnel_payload(bytes(f)), ft.IP_P0, 'icmp_time_exceeded'), 5555)
    f = peer(IPv6(src='fd00:40::2', dst='fd00:41::53', hlim=1) / UDP(sport=5, dport=6) /
             data(20, 3))
    icmp_back(t, 'hop limit 1: time exceeded into fou-sit', f, 'icmp6_time_exceeded',
              ft.icmp6_error(ft.l3_of(f), 'fd00:1::1', 'icmp6_time_exceeded'), 5557,
              decap=False)
    f = peer(IP(src=ft.IP_PEER, dst='192.168.3.54', flags='DF', id=504) / UDP(sport=7, dport=8) /
             data(1480 - 28, 4))
    icmp_back(t, 'DF, 1480 bytes into fou-ipip (MTU 1472)', f, 'icmp_frag_needed',
              ft.icmp4_error(ft.l3_of(f), ft.IP_P0, 'icmp_frag_needed', mtu=1472), decap=False)
    f = peer(IPv6(src='fd00:40::2', dst='fd00:40::55') / UDP(sport=9, dport=10) /
             data(1500 - 48, 5))
    icmp_back(t, '1500 bytes of IPv6 into fou-sit (MTU 1472): too big, into fou-sit', f,
              'icmp6_pkt_too_big',
              ft.icmp6_error(ft.l3_of(f), 'fd00:1::1', 'icmp6_pkt_too_big', mtu=1472), 5557,
              decap=False)
    f = peer(IP(src=ft.IP_PEER, dst='192.168.1.1', id=506) / ICMP(id=6, seq=6) / data(32, 6))
    icmp_back(t, 'ping of 192.168.1.1 (port 1) from port 0', f, 'icmp_echo_reply',
              ft.echo_reply4(ft.l3_of(f)), decap=False)
    f = peer(IPv6(src='fd00:40::2', dst='fd00:1::1', hlim=60) /
             ICMPv6EchoRequest(id=7, seq=7, data=bytes(data(24, 7))))
    icmp_back(t, 'ping of fd00:1::1: the reply into fou-sit', f, 'icmp6_echo_reply',
              ft.echo_reply6(ft.l3_of(f)), 5557, decap=False)
    f = fou(5555, IP(src='192.168.3.2', dst='10.99.0.1', id=508) / UDP(sport=8, dport=33434) /
            data(12, 8))
    inner = ft.tunnel_payload(bytes(f))
    icmp_back(t, 'inner UDP to a closed port of ours: unreachable into fou-ipip', f,
              'icmp_port_unreach', ft.icmp4_error(inner, ft.IP_P0, 'icmp_port_unreach'), 5555)
    f = peer(IP(src=ft.IP_PEER, dst=ft.IP_P0, id=509) / UDP(sport=9, dport=9999) / data(10, 9))
    icmp_back(t, 'UDP to 10.99.0.1:9999', f, 'icmp_port_unreach',
              ft.icmp4_error(ft.l3_of(f), ft.IP_P0, 'icmp_port_unreach'), decap=False)
    kinds['icmp'] = t.cases
    # Neighbour Discovery for the gateway: a solicitation of port 0's
    # link-local address (answered: run.own), an advertisement (taken in)
    ns = Ether(src=ft.MAC_PEER, dst='33:33:ff:63:00:01') / \
        IPv6(src=LL_PEER, dst='ff02::1:ff63:1', hlim=255) / ICMPv6ND_NS(tgt=LL_P0) / \
        ICMPv6NDOptSrcLLAddr(lladdr=ft.MAC_PEER)
    e = ft.Expected('NS for ' + LL_P0, ns)
    e.na = (LL_P0, LL_PEER, ft.MAC_PEER)
    na = Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) / \
        IPv6(src=LL_PEER, dst=LL_P0, hlim=255) / ICMPv6ND_NA(tgt=LL_PEER, R=0, S=1, O=1) / \
        ICMPv6NDOptDstLLAddr(lladdr=ft.MAC_PEER)
    c = ft.Expected('NA from ' + LL_PEER, na)
    c.consumed = True
    kinds['nd'] = [e, c]
    # for us, and nothing to answer
    t = ft.Traffic()
    bad = bytearray(bytes(peer(IP(src=ft.IP_PEER, dst=ft.IP_P0, id=701) / ICMP(id=7, seq=1))))
    bad[14 + 20 + 2] ^= 0x40
    t.drop('ping of 10.99.0.1 with a wrong ICMP checksum', bytes(bad), 'icmp_bad')
    t.drop('port unreachable to 10.99.0.1: nothing to answer',
           peer(IP(src=ft.IP_PEER, dst=ft.IP_P0, id=702) / ICMP(type=3, code=3) /
                IP(src=ft.IP_P0, dst=ft.IP_PEER) / UDP(sport=9, dport=7)), 'icmp_local')
    t.drop('fragmentation needed about no tunnel of ours',
           peer(IP(src=ft.IP_PEER, dst=ft.IP_P0, id=703) / ICMP(type=3, code=4, nexthopmtu=1000) /
                IP(src=ft.IP_P0, dst='10.99.0.9', flags='DF') / UDP(sport=40000, dport=5555) /
                data(20, 3)), 'pmtu_bad')
    t.drop('UDP to 10.99.0.1 in a broadcast frame: no error',
           Ether(src=ft.MAC_PEER, dst='ff:ff:ff:ff:ff:ff') /
           IP(src=ft.IP_PEER, dst=ft.IP_P0, id=704) / UDP(sport=7, dport=9), 'fou_port_unknown')
    t.drop('TCP SYN to fd00:1::1: no reset', peer(
        IPv6(src='fd00:40::2', dst='fd00:1::1') / TCP(sport=40000, dport=22, flags='S')),
        'local_ipv6')
    bad = Ether(src=ft.MAC_PEER, dst='33:33:ff:63:00:01') / \
        IPv6(src=LL_PEER, dst='ff02::1:ff63:1', hlim=64) / ICMPv6ND_NS(tgt=LL_P0) / \
        ICMPv6NDOptSrcLLAddr(lladdr=ft.MAC_PEER)
    t.drop('NS with hop limit 64', bad, 'nd_bad')
    t.drop('NS for fe80::99, unicast to us', Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) /
           IPv6(src=LL_PEER, dst=LL_P0, hlim=255) / ICMPv6ND_NS(tgt='fe80::99') /
           ICMPv6NDOptSrcLLAddr(lladdr=ft.MAC_PEER), 'nd_not_ours')
    kinds['quiet'] = t.cases
    return kinds


def pmtu_cases():
    """(before, update, after): DF packets into fou-gre whose outer packet
    fits the port and not the path MTU the update reports, and the update:
    the peer's fragmentation needed about such an outer packet. The one
    before the update is encapsulated; the ones after come back as
    fragmentation needed with the tunnel MTU the path leaves."""
    t = TUN['fou-gre']

    def big(i):
        return peer(IP(src=ft.IP_PEER, dst='192.168.48.%d' % (60 + i), flags='DF', id=600 + i) /
                    UDP(sport=60, dport=61) / data(1300 - 28, 60 + i))

    f = big(0)
    before = encap_expected('DF 1300 into fou-gre, before its path MTU drops', f, 'fou-gre',
                            ft.forwarded_l3(ft.l3_of(f)))
    # the outer packet as fou-gre sends it (an auto source port in range)
    outer = t.outer(ft.forwarded_l3(ft.l3_of(f)), 0x1234, 40000, 0)[0]
    update = peer(IP(src=ft.IP_PEER, dst=ft.IP_P0, id=0x77) /
                  ICMP(type=3, code=4, nexthopmtu=PMTU) / Raw(outer[:576 - 28]))
    u = ft.Expected('fragmentation needed %d for fou-gre' % PMTU, update)
    u.consumed = True
    after = []
    for i in (1, 2, 3):
        f = big(i)
        t_ = ft.Traffic()
        icmp_back(t_, 'DF 1300 into fou-gre, path MTU %d' % PMTU, f, 'icmp_frag_needed',
                  ft.icmp4_error(ft.l3_of(f), ft.IP_P0, 'icmp_frag_needed',
                                 mtu=PMTU - t.overhead), decap=False)
        after += t_.cases
    return before, u, after


def mix():
    """The capture's cases in order: the named cases and each kind of the
    others spread evenly over it, so that every burst of 32 holds every
    outcome; the path MTU update in the middle of the fourth burst, between
    a packet it does not concern and one it does."""
    named = th.named_traffic().cases
    # each list spread evenly over the whole capture
    spread = [((i + 0.5) / len(named), 0, c) for i, c in enumerate(named)]
    for k, cases in enumerate(valid_cases().values()):
        spread += [((i + 0.5) / len(cases), k + 1, c) for i, c in enumerate(cases)]
    cases = [c for _, _, c in sorted(spread, key=lambda x: x[:2])]
    before, update, after = pmtu_cases()
    b = 3 * BURST
    for at, c in ((b + 4, before), (b + 14, update), (b + 25, after[0]),
                  (5 * BURST + 7, after[1]), (len(cases) + 3, after[2])):
        cases.insert(at, c)
    return cases


def own_decoded(run, port):
    """The gateway's own frames (ARP, ND) port sent, decoded by tshark: both
    ports' in one pass, kept with the run."""
    if not hasattr(run, 'own_decoded'):
        frames = ft.neigh_decode(run.own[0] + run.own[1],
                                 os.path.join(os.path.dirname(run.outputs[0]),
                                              'own-%d.pcap' % id(run)))
        run.own_decoded = {0: frames[:len(run.own[0])], 1: frames[len(run.own[0]):]}
    return run.own_decoded[port]


def resolution_request(f):
    """A request the gateway sends to resolve a neighbour (not an
    announcement)."""
    return (f['kind'] == 'arp-request' and f['sip'] != f['tip']) or f['kind'] == 'ns'


def neigh_answers(run, port):
    """The ARP replies and solicited NAs port sent, in order; its
    announcements; and the targets of its resolution requests."""
    answers, announce, resolve = [], [], set()
    for f in own_decoded(run, port):
        if f['kind'] == 'arp-reply':
            answers.append(('arp', f['sip'], f['eth_dst'], f['tip']))
        elif f['kind'] == 'na' and f['ip_dst'] != 'ff02::1':
            answers.append(('na', f['target'], f['ip_dst'], f['eth_dst']))
        elif f['kind'] == 'arp-request' and f['sip'] == f['tip']:
            announce.append(('arp', f['sip']))
        elif f['kind'] == 'na':
            announce.append(('na', f['target']))
        elif resolution_request(f):
            resolve.add(f['target'] if f['kind'] == 'ns' else f['tip'])
        else:
            answers.append(('other', str(f)))
    return answers, sorted(announce), resolve


def frames_of(paths):
    """The frames of the captures paths, in one pass of tshark: a list of
    frames per capture."""
    frames, counts = [], []
    for path in paths:
        recs = ft.pcap_records(path)[1]
        frames += [f for _, f in recs]
        counts.append(len(recs))
    tmp = os.path.join(os.path.dirname(paths[0]), 'all-%d.pcap' % id(paths))
    got = ft.capture_frames(ft.write_pcap(tmp, frames)) if frames else []
    out = []
    for n in counts:
        out.append(got[:n])
        got = got[n:]
    return out


def built_headers(e):
    """Offsets in e.l3 of the IPv4 headers the gateway builds (an ICMP
    message's, a tunnel's outer one): those whose ID e leaves open."""
    l3, heads = e.l3, [0]
    if l3[0] >> 4 == 4 and l3[9] == 17 and int.from_bytes(l3[22:24], 'big') in th.FOU_PROTO:
        off = 28
        if int.from_bytes(l3[22:24], 'big') == 5556:
            flags = l3[off]
            off += 4 + 4 * (bool(flags & 0x80) + bool(flags & 0x20) + bool(flags & 0x10))
        heads.append(off)
    return [h for h in heads if len(l3) > h + 20 and l3[h] >> 4 == 4 and (h + 4, h + 6) in e.ignore]


def outcome(c):
    """What becomes of a case's frame, roughly: the kinds every burst of the
    capture must hold."""
    if c.icmp is not None:
        return 'icmp'
    if c.reason is not None:
        return 'drop'
    if c.port == 1:
        return 'route' if c.decap is None else 'decap'
    return 'encap' if c.port == 0 else 'answered or taken in'


class Burst(ft.GatewayTestCase):
    def run_counted(self, path, n, opts):
        """Run the gateway on the capture until it has received all n frames,
        then stop it; the run and /fou/lcores read before the stop."""
        return self.run_reading({0: path}, opts, n, lambda c: c.cmd('/fou/lcores'))

    def check_run(self, run, lcores, t, burst):
        """One run against the model: every frame, every counter, the
        gateway's own frames; and the bursts it took the capture in."""
        n = len(t.cases)
        ctx = '\n' + run.describe()
        self.assertIn('worker lcores: 1, rx burst size %d\n' % burst, run.stdout, ctx)
        # the pcap PMD reads the capture until a call's burst is full
        self.assertEqual(lcores['1']['polls_busy'], -(-n // burst), 'busy polls' + ctx)
        self.assertTraffic(run, t, port_macs=PORT_MACS, fou_ports=th.FOU_PORTS)
        # both ports' frames at once; (the port unreachable about UDP to
        # 4789 quotes no VXLAN packet)
        both = ft.write_pcap(self.path('both-%d.pcap' % id(run)),
                             [f for port in (0, 1) for _, f in ft.pcap_records(run.outputs[port])[1]])
        self.assertEqual(ft.tshark_problems(both, tcp=False, prefs=['--disable-protocol', 'vxlan']),
                         [], 'tshark finds problems in what the ports sent' + ctx)
        expected = []
        for c in t.cases:
            if getattr(c, 'reply', None):
                expected.append(('arp',) + c.reply)
            if getattr(c, 'na', None):
                expected.append(('na',) + c.na)
        answers, announce, resolve = neigh_answers(run, 0)
        self.assertEqual(answers, expected, 'ARP and ND answers' + ctx)
        self.assertEqual(announce, [('arp', ft.IP_P0)], ctx)
        self.assertEqual(resolve, {'10.99.0.3'}, ctx)
        answers, announce, resolve = neigh_answers(run, 1)
        self.assertEqual(answers, [], ctx)
        self.assertEqual(announce, [('arp', '192.168.1.1'), ('na', 'fd00:1::1'), ('na', th.OUR6)],
                         ctx)
        self.assertEqual(resolve, {'192.168.1.77', 'fd00:1::77'}, ctx)

    def assertSameRuns(self, a, b, t):
        """Run b did what run a did: see the module's docstring."""
        ctx = '\n--- run a\n%s\n--- run b\n%s' % (a.describe(), b.describe())
        sa, sb = a.summary, b.summary
        for field in ('rx', 'decap', 'decap_ipv4', 'decap_ipv6', 'decap_port', 'decap_plain',
                      'tunnels', 'tunnels_rx', 'icmp', 'dropped', 'drops', 'gro', 'gso_added',
                      'gro_merged', 'held', 'consumed'):
            self.assertEqual(getattr(sa, field), getattr(sb, field), field + ctx)
        # the neighbour resolution requests go out once a second while
        # nobody answers: as many as the run lasted seconds
        timed = ('arp_requests_out', 'ns_out', 'originated')
        self.assertEqual({k: v for k, v in sa.local.items() if k not in timed},
                         {k: v for k, v in sb.local.items() if k not in timed}, 'local' + ctx)
        self.assertEqual(self.untimed(a), self.untimed(b), 'tx and the gateway\'s own frames '
                         'besides the resolution requests' + ctx)
        # every frame, in order, byte for byte but the IDs of the IPv4
        # headers the gateway built and their checksums
        deltas = collections.Counter()
        raw = frames_of([a.outputs[0], a.outputs[1], b.outputs[0], b.outputs[1]])
        for port in (0, 1):
            fa, fb = raw[port], raw[2 + port]
            exp = t.out(port)
            self.assertEqual((len(fa), len(fb)), (len(exp), len(exp)), 'frames' + ctx)
            for x, y, e in zip(fa, fb, exp):
                what = 'port %d: frame for %r' % (port, e.name)
                self.assertEqual(len(x), len(y), what)
                free = set()
                for h in built_headers(e):
                    o = 14 + h
                    free |= {o + 4, o + 5, o + 10, o + 11}
                    deltas[(int.from_bytes(y[o + 4:o + 6], 'big') -
                            int.from_bytes(x[o + 4:o + 6], 'big')) % 65536] += 1
                diff = [i for i in range(len(x)) if x[i] != y[i] and i not in free]
                self.assertEqual(diff, [], what + ': bytes differ\n' + ft.hexdiff(x, y))
        self.assertLessEqual(len(deltas), 1, 'the built IPv4 IDs of run b are not those of '
                             'run a plus one constant: %s' % dict(deltas))
        return deltas

    def untimed(self, run):
        """The summary's tx per port and own frames counters without the
        resolution requests, and the other own frames (answers in order,
        announcements)."""
        arp = ns = 0
        tx = dict(run.summary.tx)
        for port in (0, 1):
            for f in own_decoded(run, port):
                if resolution_request(f):
                    arp += f['kind'] != 'ns'
                    ns += f['kind'] == 'ns'
                    tx[port] -= 1
        s = run.summary.local
        return (tx, s.get('arp_requests_out', 0) - arp, s.get('ns_out', 0) - ns,
                s.get('originated', 0) - arp - ns, [neigh_answers(run, p)[:2] for p in (0, 1)])

    def pair(self, t, opts):
        path = t.write(self.path('mix.pcap'))
        runs = []
        for burst in (BURST, 1):
            run, lcores = self.run_counted(path, len(t.cases), list(th.OPTS) + opts + (
                [] if burst == BURST else ['--burst', str(burst)]))
            self.check_run(run, lcores, t, burst)
            runs.append(run)
        return self.assertSameRuns(runs[0], runs[1], t)

    def test_every_outcome(self):
        t = ft.Traffic()
        t.cases = mix()
        for i in range(0, len(t.cases) - BURST + 1, BURST):
            self.assertEqual({outcome(c) for c in t.cases[i:i + BURST]} &
                             {'decap', 'route', 'encap', 'drop', 'icmp'},
                             {'decap', 'route', 'encap', 'drop', 'icmp'},
                             'burst %d lacks an outcome' % (i // BURST))
        kinds = collections.Counter(c.reason or c.icmp or outcome(c) for c in t.cases)
        sys.stderr.write('\nmix of %d frames: %s\n' % (len(t.cases), dict(sorted(kinds.items()))))
        deltas = self.pair(t, ICMP_ALL)
        self.assertGreater(sum(deltas.values()), 20, 'IPv4 headers built')


if __name__ == '__main__':
    ft.main()
