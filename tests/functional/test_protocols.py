#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Case 2: scapy-built FOU traffic per protocol and per receive-path
feature: ipip, sit, GRE with every C/K/S combination, numbered protocols,
802.1Q, outer IPv4 options, UDP checksums, ECN (RFC 6040), inner TTL,
padding and multi-segment (jumbo) frames. Each test is one capture and one
gateway run; every frame has an expected fate, checked against the counters
and the output pcaps."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou, gre, v4, v6  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Dot1Q, Dot1AD, GRE  # noqa: E402
from scapy.layers.inet import IP, UDP, TCP, IPOption_RR, IPOption_Router_Alert, \
    IPOption_NOP, IPOption_EOL  # noqa: E402
from scapy.layers.inet6 import IPv6, IPv6ExtHdrDestOpt  # noqa: E402

OPTS = ft.PROTO_OPTS
FOU_PORTS = ft.PROTO_FOU_PORTS
MACS = {0: ft.MAC_P0, 1: ft.MAC_P1}

# RFC 6040 section 4.2, figure 4: (arriving inner, arriving outer) -> the
# inner ECN field leaving the decapsulator; None: drop.
NOT_ECT, ECT1, ECT0, CE = 0, 1, 2, 3
RFC6040_DECAP = {
    (NOT_ECT, NOT_ECT): NOT_ECT, (NOT_ECT, ECT0): NOT_ECT, (NOT_ECT, ECT1): NOT_ECT,
    (NOT_ECT, CE): None,
    (ECT0, NOT_ECT): ECT0, (ECT0, ECT0): ECT0, (ECT0, ECT1): ECT1, (ECT0, CE): CE,
    (ECT1, NOT_ECT): ECT1, (ECT1, ECT0): ECT1, (ECT1, ECT1): ECT1, (ECT1, CE): CE,
    (CE, NOT_ECT): CE, (CE, ECT0): CE, (CE, ECT1): CE, (CE, CE): CE,
}
ECN_NAMES = {NOT_ECT: 'Not-ECT', ECT0: 'ECT(0)', ECT1: 'ECT(1)', CE: 'CE'}


def udp_cksum_ffff_sport(dport, payload):
    """A source port whose UDP checksum computes to 0, sent as 0xffff."""
    c0 = IP(bytes(fou(dport, payload, sport=0))[14:])[UDP].chksum
    return 0 if c0 == 0xffff else c0


class Protocols(ft.GatewayTestCase):
    def run_traffic(self, t):
        run = self.run_gw({0: t.write(self.path('in.pcap'))}, OPTS)
        self.assertTraffic(run, t, port_macs=MACS, fou_ports=FOU_PORTS)
        return run

    def test_ipip_sit_and_numbered_ports(self):
        """ipip (ICMP, UDP, TCP, inner options, 1500 bytes), sit, the ipv6 alias, a numbered
        handled protocol (5559:4), one without handler (6000:17), FOU to the address of
        another port."""
        t = ft.Traffic()
        t.fwd('ipip icmp', fou(5555, v4(seq=1)), 1, ft.MAC_NH_IPIP)
        t.fwd('ipip udp, DF, dscp', fou(5555, IP(src='192.168.3.9', dst='192.168.4.77', ttl=9,
                                                  tos=0xb8, flags='DF', id=7) /
                                        UDP(sport=1234, dport=53) / Raw(b'q' * 33)),
              1, ft.MAC_NH_IPIP)
        t.fwd('ipip tcp', fou(5555, IP(src='192.168.3.9', dst='192.168.4.78') /
                              TCP(sport=5, dport=80, flags='S', seq=99)), 1, ft.MAC_NH_IPIP)
        # options a router leaves as they are (not record route or timestamp)
        t.fwd('ipip inner options (IHL 7)', fou(5555, v4(seq=2, options=[
            IPOption_Router_Alert(), IPOption_NOP(), IPOption_NOP(), IPOption_NOP(),
            IPOption_EOL()])), 1, ft.MAC_NH_IPIP)
        t.fwd('ipip inner 1500 bytes (the MTU)', fou(5555, v4(seq=3, size=1500)), 1,
              ft.MAC_NH_IPIP)
        t.fwd('ipip to the gre next hop', fou(5555, v4(dst='192.168.47.5', seq=4)), 1,
              ft.MAC_NH_GRE)
        t.fwd('sit icmpv6', fou(5557, v6(seq=1)), 1, ft.MAC_NH_SIT)
        t.fwd('sit udp + destination options', fou(5557, IPv6(src='fd00:40::9', dst='fd00:41::9',
                                                               hlim=3) / IPv6ExtHdrDestOpt() /
                                                      UDP(sport=7, dport=9) / Raw(b'z' * 20)),
              1, ft.MAC_NH_SIT)
        t.fwd('sit inner 1500 bytes', fou(5557, v6(seq=2, size=1500)), 1, ft.MAC_NH_SIT)
        t.fwd('5558:ipv6 alias of sit', fou(5558, v6(seq=3)), 1, ft.MAC_NH_SIT)
        t.fwd('5559:4 numbered ipip', fou(5559, v4(seq=5)), 1, ft.MAC_NH_IPIP)
        t.drop('6000:17 has no handler', fou(6000, UDP(sport=1, dport=2) / Raw(b'x' * 30)),
               'fou_proto_unhandled')
        t.drop('6000:17 with an IPv4 payload', fou(6000, v4(seq=6)), 'fou_proto_unhandled')
        t.fwd('FOU to the address of port 1 (weak host)', fou(5555, v4(seq=7), dst='192.168.1.1'),
              1, ft.MAC_NH_IPIP)
        t.fwd('FOU sport 1', fou(5555, v4(seq=8), sport=1), 1, ft.MAC_NH_IPIP)
        t.fwd('FOU sport 65535', fou(5557, v6(seq=4), sport=65535), 1, ft.MAC_NH_SIT)
        self.run_traffic(t)

    def test_gre_flags(self):
        """GRE with every C/K/S combination, IPv4 and IPv6 inside; reserved bits ignored."""
        t = ft.Traffic()
        n = 0
        for c in (0, 1):
            for k in (0, 1):
                for s in (0, 1):
                    n += 1
                    flags = ''.join(f for f, on in (('C', c), ('K', k), ('S', s)) if on) or '-'
                    t.fwd('gre %s ipv4' % flags,
                          fou(5556, gre(v4(dst='192.168.47.1', seq=n), c, k, s, n)),
                          1, ft.MAC_NH_GRE)
                    t.fwd('gre %s ipv6' % flags,
                          fou(5556, gre(v6(seq=n), c, k, s, n)), 1, ft.MAC_NH_SIT)
        # RFC 2784: reserved bits are ignored on receipt (Linux checks only
        # the version and the routing bit)
        t.fwd('gre strict route, recursion and reserved bits', fou(5556, GRE(
            chksum_present=1, key_present=1, strict_route_source=1, recursion_control=7,
            flags=0x1f, key=5, proto=0x800) / v4(dst='192.168.47.1', seq=9)), 1, ft.MAC_NH_GRE)
        t.fwd('gre key 0, sequence 0xffffffff', fou(5556, GRE(
            key_present=1, seqnum_present=1, key=0, sequence_number=0xffffffff, proto=0x86dd) /
            v6(seq=9)), 1, ft.MAC_NH_SIT)
        self.run_traffic(t)

    def test_outer_headers(self):
        """802.1Q, 802.1ad + 802.1Q, outer IPv4 options up to IHL 15, outer TTL 0/1, DF."""
        t = ft.Traffic()
        t.fwd('802.1Q', fou(5555, v4(seq=1), vlans=[Dot1Q(vlan=10, prio=5)]), 1, ft.MAC_NH_IPIP)
        t.fwd('802.1Q vlan 0', fou(5557, v6(seq=1), vlans=[Dot1Q(vlan=0)]), 1, ft.MAC_NH_SIT)
        t.fwd('802.1ad + 802.1Q', fou(5556, gre(v4(dst='192.168.47.3', seq=2), k=1),
                                      vlans=[Dot1AD(vlan=100), Dot1Q(vlan=10)]),
              1, ft.MAC_NH_GRE)
        t.fwd('outer option router alert (IHL 6)',
              fou(5555, v4(seq=3), options=[IPOption_Router_Alert()]), 1, ft.MAC_NH_IPIP)
        t.fwd('outer options up to IHL 15', fou(5555, v4(seq=7), options=[IPOption_RR(
            routers=['10.0.0.%d' % i for i in range(9)])]), 1, ft.MAC_NH_IPIP)
        t.fwd('outer option record route (IHL 8), UDP checksum',
              fou(5557, v6(seq=2), options=[IPOption_RR(routers=['10.99.0.2', '0.0.0.0'])]),
              1, ft.MAC_NH_SIT)
        t.fwd('outer options, gre with checksum',
              fou(5556, gre(v6(seq=3), c=1), options=[IPOption_Router_Alert()]),
              1, ft.MAC_NH_SIT)
        t.fwd('outer TTL 1 (delivered locally)', fou(5555, v4(seq=4), ttl=1), 1,
              ft.MAC_NH_IPIP)
        t.fwd('outer TTL 0 (delivered locally)', fou(5557, v6(seq=4), ttl=0), 1,
              ft.MAC_NH_SIT)
        t.fwd('outer DF', fou(5555, v4(seq=5), flags='DF'), 1, ft.MAC_NH_IPIP)
        self.run_traffic(t)

    def test_udp_checksums(self):
        """UDP checksum 0, valid, 0xffff (computed 0) accepted; wrong checksum or corrupted payload
        dropped."""
        t = ft.Traffic()
        for name, dport, payload, mac in (
                ('ipip', 5555, v4(seq=1), ft.MAC_NH_IPIP),
                ('sit', 5557, v6(seq=1), ft.MAC_NH_SIT),
                ('gre', 5556, gre(v4(dst='192.168.47.2', seq=1), k=1), ft.MAC_NH_GRE)):
            t.fwd('%s UDP checksum 0' % name, fou(dport, payload, chksum=0), 1, mac)
            good = fou(dport, payload)
            self.assertNotEqual(IP(bytes(good)[14:])[UDP].chksum, 0)
            t.fwd('%s UDP checksum valid' % name, good, 1, mac)
            sport = udp_cksum_ffff_sport(dport, payload)
            ffff = fou(dport, payload, sport=sport)
            self.assertEqual(IP(bytes(ffff)[14:])[UDP].chksum, 0xffff)
            t.fwd('%s UDP checksum computed 0, sent 0xffff' % name, ffff, 1, mac)
            wrong = bytearray(bytes(good))
            wrong[14 + 20 + 6] ^= 0x01
            t.drop('%s UDP checksum wrong' % name, wrong, 'udp_cksum_bad')
            wrong = bytearray(bytes(good))
            wrong[-1] ^= 0x80       # payload corrupted, checksum kept
            t.drop('%s UDP payload corrupted' % name, wrong, 'udp_cksum_bad')
        self.run_traffic(t)

    def test_ecn(self):
        """The RFC 6040 decapsulation table for IPv4 and IPv6 inner packets."""
        t = ft.Traffic()
        seq = 0
        for (inner, outer), result in sorted(RFC6040_DECAP.items()):
            for fam, dport, mac in (('ipv4', 5555, ft.MAC_NH_IPIP), ('ipv6', 5557, ft.MAC_NH_SIT)):
                seq += 1
                payload = v4(tos=0x20 | inner, seq=seq) if fam == 'ipv4' else \
                    v6(tc=0x20 | inner, seq=seq)
                name = '%s inner %s outer %s' % (fam, ECN_NAMES[inner], ECN_NAMES[outer])
                frame = fou(dport, payload, tos=0x48 | outer)
                if result is None:
                    t.drop(name, frame, 'ecn_drop')
                else:
                    t.fwd(name, frame, 1, mac, ecn=result)
        seq += 1
        t.fwd('gre inner ECT(0) outer CE', fou(5556, gre(v4(dst='192.168.47.4', tos=ECT0,
                                                            seq=seq), c=1), tos=CE),
              1, ft.MAC_NH_GRE, ecn=CE)
        t.drop('gre inner Not-ECT outer CE', fou(5556, gre(v6(seq=seq), s=1), tos=CE), 'ecn_drop')
        self.run_traffic(t)

    def test_inner_ttl(self):
        """TTL / hop limit 0 and 1 dropped, 2 and 255 forwarded one less."""
        t = ft.Traffic()
        t.drop('ipv4 ttl 0', fou(5555, v4(ttl=0, seq=1)), 'ttl_exceeded')
        t.drop('ipv4 ttl 1', fou(5555, v4(ttl=1, seq=2)), 'ttl_exceeded')
        t.fwd('ipv4 ttl 2', fou(5555, v4(ttl=2, seq=3)), 1, ft.MAC_NH_IPIP)
        t.fwd('ipv4 ttl 255', fou(5555, v4(ttl=255, seq=4)), 1, ft.MAC_NH_IPIP)
        t.drop('gre ipv4 ttl 1', fou(5556, gre(v4(dst='192.168.47.1', ttl=1, seq=5))),
               'ttl_exceeded')
        t.drop('ipv6 hop limit 0', fou(5557, v6(hlim=0, seq=1)), 'ttl_exceeded')
        t.drop('ipv6 hop limit 1', fou(5557, v6(hlim=1, seq=2)), 'ttl_exceeded')
        t.fwd('ipv6 hop limit 2', fou(5557, v6(hlim=2, seq=3)), 1, ft.MAC_NH_SIT)
        t.fwd('ipv6 hop limit 255', fou(5557, v6(hlim=255, seq=4)), 1, ft.MAC_NH_SIT)
        t.drop('gre ipv6 hop limit 1', fou(5556, gre(v6(hlim=1, seq=5), k=1)), 'ttl_exceeded')
        self.run_traffic(t)

    def test_padding(self):
        """Ethernet trailer, UDP length below the IPv4 payload, inner length below the tunnel
        payload: forwarded without the extra bytes."""
        t = ft.Traffic()
        junk = bytes(range(0xa0, 0xb8))
        # Ethernet trailer: the outer IPv4 total length is shorter than the frame
        t.fwd('ipip + trailer', bytes(fou(5555, v4(seq=1))) + junk, 1, ft.MAC_NH_IPIP)
        t.fwd('sit + trailer', bytes(fou(5557, v6(seq=1))) + junk[:5], 1, ft.MAC_NH_SIT)
        t.fwd('gre C + trailer', bytes(fou(5556, gre(v4(dst='192.168.47.1', seq=1), c=1))) +
              junk[:1], 1, ft.MAC_NH_GRE)
        small = IP(src='192.168.3.2', dst='192.168.4.1', proto=253)
        t.fwd('inner IPv4 header only + trailer', bytes(fou(5555, small)) + junk[:3], 1,
              ft.MAC_NH_IPIP)
        t.fwd('tagged + trailer', bytes(fou(5555, v4(seq=2), vlans=[Dot1Q(vlan=3)])) + junk,
              1, ft.MAC_NH_IPIP)
        # the UDP length is shorter than the IPv4 payload: trimmed (RFC 768)
        for name, dport, payload, mac in (
                ('ipip', 5555, v4(seq=3), ft.MAC_NH_IPIP),
                ('sit', 5557, v6(seq=2), ft.MAC_NH_SIT),
                ('gre C', 5556, gre(v4(dst='192.168.47.1', seq=2), c=1, k=1), ft.MAC_NH_GRE)):
            inner = bytes(payload)
            for cks in ('zero', 'valid'):
                ref = IP(bytes(fou(dport, inner))[14:])
                short = fou(dport, Raw(inner + junk[:9]))
                short[UDP].len = 8 + len(inner)
                short[UDP].chksum = 0 if cks == 'zero' else ref[UDP].chksum
                t.fwd('%s, UDP length below the IPv4 payload, checksum %s' % (name, cks),
                      short, 1, mac)
        # inner length shorter than the tunnel payload: cut to the inner length
        t.fwd('ipip, inner shorter than the UDP payload', fou(5555, Raw(bytes(v4(seq=4)) + junk)),
              1, ft.MAC_NH_IPIP)
        t.fwd('sit, inner shorter than the UDP payload', fou(5557, Raw(bytes(v6(seq=3)) + junk)),
              1, ft.MAC_NH_SIT)
        t.fwd('gre C, inner shorter than the GRE payload',
              fou(5556, GRE(chksum_present=1, proto=0x86dd) / Raw(bytes(v6(seq=4)) + junk)),
              1, ft.MAC_NH_SIT)
        self.run_traffic(t)

    def test_jumbo_multi_segment(self):
        """Frames bigger than an mbuf (2048 bytes of data) arrive in several
        segments: checksums, trimming and the rewrite across segments."""
        opts = OPTS + ['--link', '0,mtu=9000', '--link', '1,mtu=9000']
        t = ft.Traffic()
        junk = bytes(range(256)) * 12
        t.fwd('ipip 3000, UDP checksum', fou(5555, v4(seq=1, size=3000)), 1, ft.MAC_NH_IPIP)
        t.fwd('ipip 9000 (the MTU), UDP checksum', fou(5555, v4(seq=2, size=9000)), 1,
              ft.MAC_NH_IPIP)
        # with DF and no route back for the error (without DF: fragmented,
        # test_frag.py)
        t.drop('ipip 9001 DF', fou(5555, v4(seq=3, size=9001, flags='DF')), 'mtu_exceeded')
        t.fwd('gre C 4000', fou(5556, gre(v4(dst='192.168.47.1', seq=4, size=4000), c=1)), 1,
              ft.MAC_NH_GRE)
        t.fwd('sit 2100', fou(5557, v6(seq=5, size=2100)), 1, ft.MAC_NH_SIT)
        t.fwd('sit 2007, odd length', fou(5557, v6(seq=6, size=2007)), 1, ft.MAC_NH_SIT)
        t.fwd('ipip 1990, trailer in the second segment',
              bytes(fou(5555, v4(seq=7, size=1990))) + junk[:100], 1, ft.MAC_NH_IPIP)
        t.fwd('ipip 1000, inner shorter than 2 segments of UDP payload',
              fou(5555, Raw(bytes(v4(seq=8, size=1000)) + junk[:2800])), 1, ft.MAC_NH_IPIP)
        t.fwd('gre C, inner 1500 in a 5000-byte GRE payload',
              fou(5556, GRE(chksum_present=1, proto=0x86dd) /
                  Raw(bytes(v6(seq=9, size=1500)) + junk[:3500])), 1, ft.MAC_NH_SIT)
        bad = bytearray(bytes(fou(5555, v4(seq=10, size=3000))))
        bad[-1] ^= 0x10
        t.drop('ipip 3000, payload corrupted in the second segment', bad, 'udp_cksum_bad')
        bad = bytearray(bytes(fou(5556, gre(v4(dst='192.168.47.1', seq=11, size=3000), c=1),
                                  chksum=0)))
        bad[2500] ^= 0x01
        t.drop('gre C 3000, payload corrupted in the second segment', bad, 'gre_cksum_bad')
        run = self.run_gw({0: t.write(self.path('in.pcap'))}, opts)
        self.assertTraffic(run, t, port_macs=MACS, fou_ports=FOU_PORTS)


if __name__ == '__main__':
    ft.main()
