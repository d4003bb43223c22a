#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""FOU over an IPv6 underlay, received (`--port UDPPORT:PROTO,family=6`, as
`ip fou add port UDPPORT ipproto N -6`). One gateway run: the FOU peer
fd00:99::2 on port 0 sends to our fd00:99::1; ports 5555 (ipip), 5556
(gre) and 5557 (sit) exist for both families, 5560 for IPv4 only.

- decapsulated and forwarded to port 1 (tshark reads what leaves): a
  checksum, a zero checksum (Linux' FOU socket over IPv6 takes it), GRE
  with IPv6 inside, the Destination Options header with a Tunnel
  Encapsulation Limit that Linux' ip6tnl sends before UDP, a hop-by-hop
  router alert, a routing header with no segments left, outer CE on an
  ECT(0) inner (RFC 6040: CE inside); FOU over IPv4 to 5555 still counted
  apart from 5555 over IPv6;
- dropped by name: a wrong UDP checksum, a UDP length past the payload, a
  fragment, a routing header with segments left, non-zero PadN, an option
  whose type says discard, a zero checksum to a port that is not FOU over
  IPv6 (5560, which is over IPv4 only), FOU over IPv6 to us inside FOU
  over IPv6 (not decapsulated a second time: inner_local);
- answered: an option whose type asks for a parameter problem (code 2,
  pointing at it), UDP over IPv6 to 5560: port unreachable;
- then /fou/ports keys the two families of one UDP port apart, /fou/config
  writes family=6 only where it is 6, and port add / del errors name the
  problem.

Then (Tun6Receive, a second run) the tunnels over IPv6: Linux 6.1's ip6tnl
and ip6gre frames taken by the tunnels that match them (their rx counters in
/fou/tunnels), a plain ip6tnl, the drops by name (no_tunnel,
tunnel_mode_mismatch, gre_csum_mismatch), and packet too big lowering the
right tunnel's path MTU (pmtu_bad for a quote of nobody's).

Transmit (Fou6Transmit, one more run): ip6tnl and ip6gre tunnels of the
gateway, their outer headers read by tshark, and the tunnel MTU's edge."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import gre, v4, v6  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.l2 import GRE  # noqa: E402
from scapy.layers.inet6 import (IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,  # noqa: E402
                                IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, HBHOptUnknown, PadN,
                                RouterAlert, ICMPv6PacketTooBig)
from scapy.packet import Raw  # noqa: E402

OUR6, PEER6 = 'fd00:99::1', 'fd00:99::2'
OPTS = ft.BASE_OPTS + [
    '--addr', '0,%s/64' % OUR6,
    '--neigh', '%s,dev=0,lladdr=%s' % (PEER6, ft.MAC_PEER),
    '--port', '5555:ipip,family=6', '--port', '5556:gre,family=6',
    '--port', '5557:sit,family=6', '--port', '5560:ipip']
FOU_PORTS = {5555: 'ipip', 5556: 'gre', 5557: 'sit', '5555_6': 'ipip', '5556_6': 'gre',
             '5557_6': 'sit', 5560: 'ipip'}
# Linux' ip6tnl default: a Tunnel Encapsulation Limit of 4, padded to 8
TEL = IPv6ExtHdrDestOpt(options=[HBHOptUnknown(otype=4, optdata=b'\x04'),
                                 PadN(optdata=b'\x00')])


def fou6(dport, payload, ext=None, tc=0, chksum=None, ulen=None):
    """Ethernet / IPv6 [/ extension headers] / UDP(dport) / payload from the
    IPv6 FOU peer."""
    ip6 = IPv6(src=PEER6, dst=OUR6, tc=tc, fl=0x54321, hlim=64)
    if ext is not None:
        ip6 = ip6 / ext
    return (Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) / ip6 /
            UDP(sport=41000, dport=dport, chksum=chksum, len=ulen) / payload)


def zero_csum(frame):
    f = Ether(bytes(frame))
    f[UDP].chksum = 0
    return Ether(bytes(f))


class Fou6Receive(ft.GatewayTestCase):
    def test_receive_over_ipv6(self):
        i4 = [v4(seq=n) for n in range(1, 8)]
        i6 = [v6(seq=n) for n in range(1, 4)]
        ect0 = v4(seq=9, tos=2)
        decap = [
            ('checksum', fou6(5555, i4[0]), i4[0], 4, '5555_6'),
            ('zero checksum', zero_csum(fou6(5555, i4[1])), i4[1], 4, '5555_6'),
            ('gre, IPv6 inside', fou6(5556, gre(i6[0])), i6[0], 6, '5556_6'),
            ('encap limit before UDP', fou6(5557, i6[1], ext=TEL), i6[1], 6, '5557_6'),
            ('hop-by-hop router alert', fou6(5555, i4[2], ext=IPv6ExtHdrHopByHop(
                options=[RouterAlert()])), i4[2], 4, '5555_6'),
            ('routing header, 0 left', fou6(5555, i4[3], ext=IPv6ExtHdrRouting(
                type=0, segleft=0, addresses=['fd00:99::7'])), i4[3], 4, '5555_6'),
            ('outer CE, inner ECT(0)', fou6(5555, ect0, tc=3), ect0, 4, '5555_6'),
            ('over IPv4 to 5555', ft.fou(5555, i4[4]), i4[4], 4, 5555),
        ]
        drops = [
            ('udp_cksum_bad', fou6(5555, i4[5], chksum=0x1234)),
            ('udp_len_bad', fou6(5555, i4[5], ulen=len(i4[5]) + 9)),
            ('ip6_frag', fou6(5555, i4[5], ext=IPv6ExtHdrFragment(id=7, m=1))),
            ('ip6_rthdr', fou6(5555, i4[5], ext=IPv6ExtHdrRouting(
                type=0, segleft=1, addresses=['fd00:99::7']))),
            ('ip6_exthdr_bad', fou6(5555, i4[5], ext=IPv6ExtHdrDestOpt(
                options=[PadN(optdata=b'\x01\x00\x00\x00')]))),
            ('ip6_opt_discard', fou6(5555, i4[5], ext=IPv6ExtHdrDestOpt(
                options=[HBHOptUnknown(otype=0x5e, optdata=b'\x00\x00\x00\x00')]))),
            ('udp_cksum_bad', zero_csum(fou6(5560, i4[5]))),
            # decapsulated, then FOU to us inside: not taken a second time
            ('inner_local', fou6(5557, IPv6(src='fd00:41::2', dst=OUR6) /
                                 UDP(sport=1, dport=5555) / Raw(b'nested'))),
        ]
        param = fou6(5555, i4[6], ext=IPv6ExtHdrDestOpt(
            options=[HBHOptUnknown(otype=0x9e, optdata=b'\x00\x00\x00\x00')]))
        unreach = fou6(5560, i4[6])
        frames = [f for _, f, _, _, _ in decap] + [f for _, f in drops] + [param, unreach]

        def read(c):
            got = dict(ports=c.cmd('/fou/ports'),
                       by_port=c.cmd('/fou/stats')['decap_by_fou_port'],
                       conf=ft.config_lines(c),
                       errors=[c.cmd(cmd) for cmd in (
                           '/fou/port/add,5555:ipip,family=6', '/fou/port/add,5561:ipip,family=5',
                           '/fou/port/del,5560,family=6', '/fou/port/add,5561:gre,family=6')],
                       added=c.cmd('/fou/ports'))
            got['errors'].append(c.cmd('/fou/port/del,5561,family=6'))
            got['after'] = c.cmd('/fou/ports')
            return got

        run, got = self.run_reading({0: ft.write_pcap(self.path('in0.pcap'), frames)}, OPTS,
                                    len(frames), read)
        ports, by_port, conf, errors, added, after = (
            got[k] for k in ('ports', 'by_port', 'conf', 'errors', 'added', 'after'))

        want_drops = {}
        for reason, _ in drops:
            want_drops[reason] = want_drops.get(reason, 0) + 1
        self.assertCounters(
            run, rx={0: len(frames), 1: 0}, tx={0: 2, 1: len(decap)}, drops=want_drops,
            decap=[(key, 'ipv%d' % fam) for _, _, _, fam, key in decap] + [('5557_6', 'ipv6')],
            fou_ports=FOU_PORTS,
            icmp={'icmp6_param_option': 1, 'icmp6_port_unreach': 1})

        # what left port 1: the inner packets, forwarded, in order
        got = [ft.l3_of(f) for f in ft.read_frames(run.outputs[1])]
        for (what, _, inner, _, _), g in zip(decap, got):
            ecn = 3 if what.startswith('outer CE') else None
            self.assertEqual(g, ft.forwarded_l3(bytes(inner), ecn=ecn), what)
        rows = ft.tshark_fields(run.outputs[1], ['ip.dst', 'ipv6.dst', 'ip.dsfield.ecn'])
        self.assertEqual([r['ip.dst'] or r['ipv6.dst'] for r in rows],
                         [[IP(bytes(i)).dst] if fam == 4 else [IPv6(bytes(i)).dst]
                          for _, _, i, fam, _ in decap])
        self.assertEqual(rows[6]['ip.dsfield.ecn'], ['3'], 'RFC 6040: CE inside')
        self.assertEqual(ft.tshark_problems(run.outputs[1], fou_ports=None), [])

        # what went back to the peer: parameter problem code 2 pointing at
        # the option (40 + 2), port unreachable
        rows = ft.tshark_fields(run.outputs[0], ['ipv6.dst', 'icmpv6.type', 'icmpv6.code',
                                                 'icmpv6.pointer', 'udp.dstport'])
        self.assertEqual([(r['ipv6.dst'], r['icmpv6.type'], r['icmpv6.code']) for r in rows],
                         [([PEER6, OUR6], ['4'], ['2']), ([PEER6, OUR6], ['1'], ['4'])])
        self.assertEqual(rows[0]['icmpv6.pointer'], ['42'])
        self.assertEqual(rows[1]['udp.dstport'], ['5560'])

        # telemetry and the running config
        self.assertEqual(ports['5555'], {'family': 4, 'proto': 'ipip', 'ipproto': 4, 'decap': 1})
        self.assertEqual(ports['5555_6'], {'family': 6, 'proto': 'ipip', 'ipproto': 4,
                                           'decap': 5})
        self.assertEqual(ports['5557_6']['decap'], 2)
        self.assertEqual(by_port, {'5555': 1, '5555_6': 5, '5556': 0, '5556_6': 1, '5557': 0,
                                   '5557_6': 2, '5560': 0})
        self.assertEqual(ports['count'], 7)
        self.assertEqual([ln for ln in conf if ln.startswith('port =')],
                         ['port = 5555:ipip', 'port = 5555:ipip,family=6', 'port = 5556:gre',
                          'port = 5556:gre,family=6', 'port = 5557:sit',
                          'port = 5557:sit,family=6', 'port = 5560:ipip'])
        self.assertEqual(errors[0], {'error': 'UDP port 5555 is already a FOU port over IPv6',
                                     'errno': -17})
        self.assertEqual(errors[1], {'error': "family '5' is not 4 or 6", 'errno': -22})
        self.assertEqual(errors[2], {'error': 'UDP port 5560 is not a FOU port over IPv6',
                                     'errno': -2})
        self.assertEqual(errors[3:], [{'status': 'ok'}] * 2)
        self.assertEqual(added['5561_6'], {'family': 6, 'proto': 'gre', 'ipproto': 47,
                                           'decap': 0})
        self.assertNotIn('5561', added)
        self.assertEqual(after['count'], 7)
        self.assertNotIn('5561_6', after)


# Linux 6.1's ip6tnl and ip6gre over FOU to its far end fd00:99::10 (tests/data/README.md)
CAPTURES = ('ip6tnl-ipip6-fou', 'ip6tnl-ipip6-fou-encaplimit-none', 'ip6tnl-ipip6-fou-noudp6csum',
            'ip6tnl-ip6ip6-fou', 'ip6tnl-ip6ip6-fou-noudp6csum', 'ip6gre-fou',
            'ip6gre-fou-key-csum-encaplimit-none')
FAR_MAC, FAR6 = '02:00:0a:63:00:10', 'fd00:99::10'
CAPTURE_OPTS = [
    '--link', '0,address=' + FAR_MAC, '--link', '1,address=' + ft.MAC_P1,
    '--addr', '0,%s/64' % FAR6, '--addr', '1,192.168.1.1/24', '--addr', '1,fd00:1::1/64',
    '--port', '5555:ipip,family=6', '--port', '5556:gre,family=6', '--port', '5557:sit,family=6',
    '--route', '192.168.6.0/24,dev=1,via=192.168.1.2',
    '--route', '192.168.67.0/24,dev=1,via=192.168.1.3',
    '--route', 'fd00:66::/64,dev=1,via=fd00:1::2',
    '--neigh', '192.168.1.2,dev=1,lladdr=' + ft.MAC_NH_IPIP,
    '--neigh', '192.168.1.3,dev=1,lladdr=' + ft.MAC_NH_GRE,
    '--neigh', 'fd00:1::2,dev=1,lladdr=' + ft.MAC_NH_SIT]


def capture_inner(frame):
    """The inner packet of a Linux FOU-over-IPv6 frame, read with scapy:
    IPv6, its extension headers, UDP and, to 5556, GRE removed."""
    udp = Ether(frame)[UDP]
    data = bytes(udp.payload)[:udp.len - 8]
    if udp.dport == 5556:
        g = GRE(data)
        data = data[4 + 4 * (g.chksum_present + g.key_present + g.seqnum_present):]
    return data


class Fou6LinuxCaptures(ft.GatewayTestCase):
    def test_linux_captures(self):
        """What Linux 6.1 sends through ip6tnl (ipip6, ip6ip6) and ip6gre with
        encap fou, the encap limit Destination Options before UDP or not, a
        UDP checksum or zero: all decapsulated, the inner packets forwarded
        (the hop limit 1 ones answered with time exceeded, back the same
        way); tshark finds nothing wrong in what leaves."""
        frames, inners = [], []
        for name in CAPTURES:
            for f in ft.read_frames(ft.linux_capture(name)):
                frames.append(bytes(f))
                inners.append(capture_inner(bytes(f)))
        run = self.run_gw({0: ft.write_pcap(self.path('in0.pcap'), frames)}, CAPTURE_OPTS)
        n6 = sum(1 for i in inners if i[0] >> 4 == 6)
        # the third packet of each file is traceroute's, TTL / hop limit 1
        ttl1 = [i for i in inners if (i[8] if i[0] >> 4 == 4 else i[7]) == 1]
        self.assertEqual(len(ttl1), len(CAPTURES))
        self.assertCounters(
            run, rx={0: len(frames), 1: 0}, tx={0: 0, 1: len(frames)}, drops={},
            decap=[('%d_6' % Ether(f)[UDP].dport, 'ipv%d' % (i[0] >> 4))
                   for f, i in zip(frames, inners)],
            fou_ports={'5555_6': 'ipip', '5556_6': 'gre', '5557_6': 'sit'},
            icmp={'icmp_time_exceeded': len(ttl1) - n6 // 3, 'icmp6_time_exceeded': n6 // 3})
        got = [ft.l3_of(f) for f in ft.read_frames(run.outputs[1])]
        want = [ft.forwarded_l3(i) for i in inners if i not in ttl1]
        rest = list(got)
        for w in want:
            self.assertIn(w, rest)
            rest.remove(w)
        # the rest: time exceeded, ICMP (type 11) or ICMPv6 (type 3)
        self.assertEqual(sorted((r[0] >> 4, r[20] if r[0] >> 4 == 4 else r[40]) for r in rest),
                         sorted([(4, 11)] * (len(ttl1) - n6 // 3) + [(6, 3)] * (n6 // 3)))
        self.assertEqual(ft.tshark_problems(run.outputs[1], fou_ports=None), [])



# IPv6-underlay tunnels received, the gateway standing where the captures'
# far end fd00:99::10 stood: ip6tnl t6 (mode any, to hold both ipip6 and
# ip6ip6 of one address pair, as Linux keys one ip6tnl per pair), ip6gre g6
# and g6k (key 42 csum) from the Linux guest fd00:99::2; an ip6tnl mode
# ipip6 from fd00:99::3, a plain (encap none) ip6tnl ipip6 from fd00:99::4.
RX_CAPTURES = ('ip6tnl-ipip6-fou', 'ip6tnl-ip6ip6-fou', 'ip6gre-fou',
               'ip6gre-fou-key-csum-encaplimit-none')
GUEST6 = 'fd00:99::2'
TUN6_OPTS = CAPTURE_OPTS + [
    '--tunnel', 't6,type=ip6tnl,mode=any,local=%s,remote=%s,encap=fou,encap-dport=5555'
    % (FAR6, GUEST6),
    '--tunnel', 'g6,type=ip6gre,local=%s,remote=%s,encap=fou,encap-dport=5556' % (FAR6, GUEST6),
    '--tunnel', 'g6k,type=ip6gre,local=%s,remote=%s,key=42,csum,encap=fou,encap-dport=5556'
    % (FAR6, GUEST6),
    '--tunnel', 'm6,type=ip6tnl,mode=ipip6,local=%s,remote=fd00:99::3,encap=fou,encap-dport=5555'
    % FAR6,
    '--tunnel', 'p6,type=ip6tnl,mode=ipip6,local=%s,remote=fd00:99::4,encap=none' % FAR6]


def from6(src, nh_payload, ext=None):
    """Ethernet / IPv6 from src to the gateway (fd00:99::10) / payload."""
    ip6 = IPv6(src=src, dst=FAR6, hlim=64)
    if ext is not None:
        ip6 = ip6 / ext
    return Ether(src=ft.MAC_PEER, dst=FAR_MAC) / ip6 / nh_payload


def ptb(quoted, mtu):
    """ICMPv6 packet too big from a router on the way to the guest, to the
    gateway, quoting what fits 1280 bytes, as Linux' icmp6_send does."""
    return from6('fd00:99::1', ICMPv6PacketTooBig(mtu=mtu) / Raw(bytes(quoted)[:1232]))


class Tun6Receive(ft.GatewayTestCase):
    def test_tunnels_over_ipv6(self):
        """Linux 6.1's ip6tnl (ipip6, ip6ip6) and ip6gre (plain, key 42
        csum) packets over FOU, taken by the matching tunnel (its rx
        counters) and forwarded; a wrong source (no_tunnel), a mode that
        does not take the protocol (tunnel_mode_mismatch), a GRE checksum
        the tunnel does not expect (gre_csum_mismatch), a plain ip6tnl's
        packet (decapsulated) and one from another source; then packet too
        big quoting t6's outer packet lowers t6's path MTU in /fou/tunnels
        (1400), one quoting another remote is pmtu_bad."""
        frames, inners = [], []
        for name in RX_CAPTURES:
            # the ping and the TCP SYN: the hop limit 1 packet is the
            # capture test's
            for f in ft.read_frames(ft.linux_capture(name))[:2]:
                frames.append(bytes(f))
                inners.append(capture_inner(bytes(f)))
        taken = {'t6': 4, 'g6': 2, 'g6k': 2}
        i4 = v4(seq=1, dst='192.168.6.9')
        i4b = v4(seq=2, dst='192.168.6.9')
        plain_ok = from6('fd00:99::4', i4b)
        drops = [
            ('no_tunnel', from6('fd00:99::11', UDP(sport=41000, dport=5555) / i4)),
            ('tunnel_mode_mismatch', from6('fd00:99::3', UDP(sport=41000, dport=5557) /
                                           v6(seq=3, dst='fd00:66::9'))),
            ('gre_csum_mismatch', from6(GUEST6, UDP(sport=41000, dport=5556) /
                                        GRE(key_present=1, key=42, proto=0x0800) / i4)),
            ('no_tunnel', from6('fd00:99::5', i4)),
        ]
        # t6's outer packet as the gateway sends it to the guest: the
        # encap limit header, UDP from the auto range to 5555
        quote = (IPv6(src=FAR6, dst=GUEST6, hlim=64) / TEL /
                 UDP(sport=40000, dport=5555) / v4(seq=4, size=1400))
        other = (IPv6(src=FAR6, dst='fd00:99::9', hlim=64) / TEL /
                 UDP(sport=40000, dport=5555) / v4(seq=4, size=1400))
        errs = [ptb(quote, 1400), ptb(other, 1300)]
        all_frames = frames + [plain_ok] + [f for _, f in drops] + errs

        def read(c):
            t = c.cmd('/fou/tunnels')
            return {t[k]['name']: t[k] for k in t if k not in ('count', 'offset')}

        run, tun = self.run_reading({0: ft.write_pcap(self.path('in0.pcap'), all_frames)},
                                    TUN6_OPTS, len(all_frames), read)
        want_drops = {'no_tunnel': 2, 'tunnel_mode_mismatch': 1, 'gre_csum_mismatch': 1,
                      'pmtu_bad': 1}
        self.assertCounters(
            run, rx={0: len(all_frames), 1: 0}, tx={0: 0, 1: len(frames) + 1},
            drops=want_drops,
            decap=[('%d_6' % Ether(f)[UDP].dport, 'ipv%d' % (i[0] >> 4))
                   for f, i in zip(frames, inners)] + [(0, 'ipv4')],
            fou_ports={'5555_6': 'ipip', '5556_6': 'gre', '5557_6': 'sit'})
        self.assertEqual(run.summary.local.get('pmtu_updates'), 1)
        for name, n in taken.items():
            self.assertEqual(tun[name]['rx_packets'], n, name)
        self.assertEqual(tun['m6']['rx_packets'], 0)
        self.assertEqual(tun['p6']['rx_packets'], 1)
        self.assertEqual(tun['t6']['path_mtu'], 1400)
        self.assertTrue(590 <= tun['t6']['path_mtu_expires'] <= 600)
        self.assertEqual([tun[n]['path_mtu'] for n in ('g6', 'g6k', 'm6', 'p6')], [0] * 4)
        # what left port 1: the inner packets, forwarded (tshark reads them)
        got = [ft.l3_of(f) for f in ft.read_frames(run.outputs[1])]
        want = [ft.forwarded_l3(i) for i in inners] + [ft.forwarded_l3(bytes(i4b))]
        self.assertEqual(sorted(got), sorted(want))
        rows = ft.tshark_fields(run.outputs[1], ['ip.dst', 'ipv6.dst'])
        self.assertEqual(len(rows), len(want))
        self.assertEqual(ft.tshark_problems(run.outputs[1], fou_ports=None), [])


# Transmit: the gateway's ip6tnl / ip6gre tunnels to the IPv6 peer PEER6
# (and fd00:99::3), from port 0's fd00:99::1; inner packets come in on
# port 1 from senders routed back there (ICMP errors go to them).
TX_OPTS = ft.BASE_OPTS + [
    '--addr', '0,%s/64' % OUR6,
    '--neigh', '%s,dev=0,lladdr=%s' % (PEER6, ft.MAC_PEER),
    '--neigh', 'fd00:99::3,dev=0,lladdr=%s' % ft.MAC_PEER,
    '--tunnel', 'ta,type=ip6tnl,mode=ipip6,local=%s,remote=%s,hoplimit=64,encap=fou,'
    'encap-dport=5560,encap-udp6-csum' % (OUR6, PEER6),
    '--tunnel', 'tb,type=ip6gre,local=%s,remote=%s,key=42,csum,encaplimit=none,'
    'tclass=inherit,encap=gue,encap-dport=5561,noencap-udp6-csum' % (OUR6, PEER6),
    '--tunnel', 'tc,type=ip6tnl,mode=any,local=%s,remote=fd00:99::3,hoplimit=9,'
    'flowlabel=abcde,encap=none' % OUR6,
    '--route', '10.60.0.0/16,dev=ta', '--route', '10.61.0.0/16,dev=tb',
    '--route', 'fd00:61::/64,dev=tb', '--route', '10.62.0.0/16,dev=tc',
    '--route', 'fd00:62::/64,dev=tc']
SRC4, SRC6 = '192.168.4.2', 'fd00:41::2'
MTU_TA = 1500 - 40 - 8 - 8            # IPv6, encaplimit 4, UDP: 1444 as Linux
MTU_TB = 1500 - 40 - 8 - 4 - 12       # IPv6, UDP, GUE, GRE with csum and key


def from_p1(pkt, mac=ft.MAC_NH_IPIP):
    return Ether(src=mac, dst=ft.MAC_P1) / pkt


class Fou6Transmit(ft.GatewayTestCase):
    def test_transmit_over_ipv6(self):
        """Routed into ip6tnl (ipip6 over FOU, encaplimit 4, UDP checksum;
        mode any, plain, IPv4 and IPv6 inside) and ip6gre (GUE, key and
        checksum, no encaplimit, no UDP checksum): tshark reads the outer
        IPv6, the Destination Options, UDP and its checksum, GUE and GRE.
        At the tunnel MTU (1444 for ip6tnl over FOU, as Linux) a packet
        passes; one byte more is answered: fragmentation needed (DF), packet
        too big (IPv6), or the inner IPv4 packet is fragmented (no DF)."""
        sent = [
            ('ta', from_p1(ft.v4(dst='10.60.0.1', src=SRC4, seq=1))),
            ('tb', from_p1(ft.v4(dst='10.61.0.1', src=SRC4, seq=2, tos=0xb9))),
            ('tb', from_p1(ft.v6(dst='fd00:61::1', src=SRC6, seq=3), ft.MAC_NH_SIT)),
            ('tc', from_p1(ft.v4(dst='10.62.0.1', src=SRC4, seq=4))),
            ('tc', from_p1(ft.v6(dst='fd00:62::1', src=SRC6, seq=5), ft.MAC_NH_SIT)),
            ('ta', from_p1(ft.v4(dst='10.60.0.2', src=SRC4, seq=6, size=MTU_TA, flags='DF'))),
            ('tb', from_p1(ft.v6(dst='fd00:61::2', src=SRC6, seq=7, size=MTU_TB),
                           ft.MAC_NH_SIT)),
        ]
        too_big = [
            ('icmp_frag_needed', from_p1(ft.v4(dst='10.60.0.3', src=SRC4, seq=8,
                                               size=MTU_TA + 1, flags='DF')), MTU_TA),
            ('icmp6_pkt_too_big', from_p1(ft.v6(dst='fd00:61::3', src=SRC6, seq=9,
                                                size=MTU_TB + 1), ft.MAC_NH_SIT), MTU_TB),
        ]
        frag = from_p1(ft.v4(dst='10.60.0.4', src=SRC4, seq=10, size=MTU_TA + 1))
        # from behind ta, TTL 1: time exceeded goes back into ta, from an
        # IPv4 address of ours (ta has no IPv4 local)
        expired = from_p1(ft.v4(dst='192.168.4.1', src='10.60.0.9', seq=11, ttl=1))
        frames = [f for _, f in sent] + [f for _, f, _ in too_big] + [frag, expired]

        def read(c):
            return ({t['name']: t for k, t in c.cmd('/fou/tunnels').items() if k.isdigit()},
                    [ln for ln in ft.config_lines(c) if ln.startswith('tunnel =')])

        run, (tun, conf) = self.run_reading({1: ft.write_pcap(self.path('in1.pcap'), frames)},
                                            TX_OPTS, len(frames), read)
        # /fou/config: what differs from iproute2's defaults
        self.assertEqual(conf, [
            'tunnel = ta,type=ip6tnl,mode=ipip6,local=%s,remote=%s,encap-dport=5560'
            % (OUR6, PEER6),
            'tunnel = tb,type=ip6gre,local=%s,remote=%s,tclass=inherit,encaplimit=none,'
            'noencap-udp6-csum,encap=gue,encap-dport=5561,key=42,csum' % (OUR6, PEER6),
            'tunnel = tc,type=ip6tnl,mode=any,local=%s,remote=fd00:99::3,hoplimit=9,'
            'flowlabel=0xabcde,encap=none' % OUR6])
        self.assertCounters(run, rx={0: 0, 1: len(frames)}, tx={0: len(sent) + 3, 1: 2},
                            drops={}, icmp={'icmp_frag_needed': 1, 'icmp6_pkt_too_big': 1,
                                            'icmp_time_exceeded': 1})
        # the exit summary names them as `ip link` would
        self.assertEqual(run.summary.tunnel_conf['ta'], {
            'type': 'ip6tnl', 'mode': 'ipip6', 'local': OUR6, 'remote': PEER6, 'encap': 'fou',
            'dport': 5560, 'mtu': MTU_TA, 'unresolved': None})
        self.assertEqual((run.summary.tunnel_conf['tb']['type'],
                          run.summary.tunnel_conf['tc']['mode']), ('ip6gre', 'any'))
        self.assertEqual((tun['ta']['mtu'], tun['tb']['mtu'], tun['tc']['mtu']),
                         (MTU_TA, MTU_TB, 1500 - 48))
        self.assertEqual((tun['ta']['type'], tun['ta']['mode'], tun['ta']['encaplimit'],
                          tun['tb']['encaplimit'], tun['tb']['encap_csum6'],
                          tun['tc']['flowlabel'], tun['tc']['hoplimit']),
                         ('ip6tnl', 'ipip6', 4, 'none', 0, '0xabcde', 9))
        self.assertEqual((tun['ta']['tx_packets'], tun['tb']['tx_packets'],
                          tun['tc']['tx_packets'], tun['ta']['tx_frags']), (5, 3, 2, 2))

        fields = ['ipv6.src', 'ipv6.dst', 'ipv6.nxt', 'ipv6.hlim', 'ipv6.tclass', 'ipv6.flow',
                  'ipv6.opt.tel', 'ipv6.opt.type', 'udp.dstport', 'udp.length', 'udp.checksum',
                  'udp.checksum.status', 'gue.proto', 'gre.key', 'gre.checksum.status',
                  'gre.proto', 'ip.src', 'ip.dst', 'ip.frag_offset', 'icmp.type']
        rows = ft.tshark_fields(run.outputs[0], fields, fou_ports='5560:4,5561:gue')
        # a zero UDP checksum over IPv6 is what Linux sends with noencap-csum6
        self.assertEqual(ft.tshark_problems(run.outputs[0], fou_ports='5560:4,5561:gue', prefs=[
            '-o', 'udp.ignore_ipv6_zero_checksum:TRUE']), [])
        outer = [(r['ipv6.dst'][0], r['ipv6.nxt'][0], r['ipv6.opt.tel'], r['ipv6.opt.type'],
                  r['udp.dstport'][:1]) for r in rows]
        tel = (['4'], ['0x04', '0x01'])      # the limit, then PadN: Linux' layout
        self.assertEqual(outer, [
            (PEER6, '60', *tel, ['5560']),
            (PEER6, '17', [], [], ['5561']),
            (PEER6, '17', [], [], ['5561']),
            ('fd00:99::3', '60', *tel, []),
            ('fd00:99::3', '60', *tel, []),
            (PEER6, '60', *tel, ['5560']),
            (PEER6, '17', [], [], ['5561']),
            (PEER6, '60', *tel, ['5560']),
            (PEER6, '60', *tel, ['5560']),
            (PEER6, '60', *tel, ['5560'])])
        self.assertEqual((rows[9]['ip.src'][:1], rows[9]['ip.dst'][:1],
                          rows[9]['icmp.type'][:1]), (['10.99.0.1'], ['10.60.0.9'], ['11']))
        # mode any: IPv4 then IPv6 after the Destination Options
        self.assertEqual((rows[3]['ip.dst'], rows[4]['ipv6.dst'][1:]),
                         (['10.62.0.1'], ['fd00:62::1']))
        for r in rows:
            self.assertEqual(r['ipv6.src'][0], OUR6)
            self.assertNotEqual(int(r['ipv6.flow'][0], 16), 0, 'auto flow label')
        # UDP checksum: valid with encap-udp6-csum, zero without
        self.assertEqual({r['udp.checksum.status'][0] for i, r in enumerate(rows)
                          if r['udp.dstport'] == ['5560']}, {'1'})    # 1: good
        self.assertEqual({r['udp.checksum'][0] for r in rows if r['udp.dstport'] == ['5561']},
                         {'0x0000'})
        # GUE names GRE; GRE carries key 42, a valid checksum, the inner's type
        tb = [r for r in rows if r['udp.dstport'] == ['5561']]
        self.assertEqual([(r['gue.proto'], r['gre.key'], r['gre.checksum.status'],
                           r['gre.proto']) for r in tb],
                         [(['47'], ['0x0000002a'], ['1'], ['0x0800']),
                          (['47'], ['0x0000002a'], ['1'], ['0x86dd']),
                          (['47'], ['0x0000002a'], ['1'], ['0x86dd'])])
        # tclass inherit: the inner DSCP, ECN ECT(1) kept; the configured
        # hop limit and flow label where set
        self.assertEqual(rows[1]['ipv6.tclass'], ['0x000000b9'])
        self.assertEqual((rows[3]['ipv6.hlim'], rows[3]['ipv6.flow']), (['9'], ['0x0abcde']))
        self.assertEqual(rows[0]['ipv6.hlim'], ['64'])
        # the packets at the MTU fill the port's 1500 bytes; the unfragmented
        # IPv4 one too big left as two fragments
        sizes = [len(bytes(f)) - 14 for f in ft.read_frames(run.outputs[0])]
        self.assertEqual(sizes[5:7], [1500, 1500])
        # (tshark counts the offset in 8-byte units: 178 is byte 1424)
        self.assertEqual([r['ip.frag_offset'] for r in rows[7:9]], [['0'], ['178']])
        # the answers, to the senders on port 1
        back = ft.tshark_fields(run.outputs[1], ['ip.dst', 'icmp.type', 'icmp.code',
                                                 'icmp.mtu', 'ipv6.dst', 'icmpv6.type',
                                                 'icmpv6.mtu'])
        self.assertEqual([(b['ip.dst'][:1], b['icmp.type'][:1], b['icmp.code'][:1], b['icmp.mtu'])
                          for b in back][0], ([SRC4], ['3'], ['4'], [str(MTU_TA)]))
        self.assertEqual([(b['ipv6.dst'][:1], b['icmpv6.type'][:1], b['icmpv6.mtu'])
                          for b in back][1], ([SRC6], ['2'], [str(MTU_TB)]))


if __name__ == '__main__':
    ft.main()
