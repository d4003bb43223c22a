#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Case 9: MTU and ICMP errors through the pcap PMD. Port 0 (the tunnels'
side) has MTU 1400 (--link 0,mtu=1400), so a tunnel's MTU is 1400 minus
its outer headers. Inner packets from a host on port 1: exactly at the
tunnel MTU they are encapsulated; one byte more with DF (or any IPv6) they
come back on port 1 as ICMP "fragmentation needed" / ICMPv6 "packet too
big" with the tunnel MTU, from the gateway's port-1 address, quoting the
packet as Linux' icmp_send / icmp6_send do (built here byte by byte,
checked with tshark); without DF they are fragmented (test_frag.py). TTL /
hop limit 1 gives time exceeded; no error about an ICMP error or a
non-first fragment; --icmp-rate limits and disables errors."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.inet import IP, UDP, ICMP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
import test_encap as te  # noqa: E402
from test_encap import BY_NAME, EncapCase, from_host, inner4, inner6  # noqa: E402

PORT0_MTU = 1400
GW1_V4, GW1_V6 = '192.168.1.1', 'fd00:1::1'
TUNNELS = [BY_NAME[n] for n in ('fipip', 'fgre', 'fgrek', 'fgrecks', 'fsit', 'pipip', 'pgre',
                                'psit')]
# what the overheads must be, as the task states them: 28 for ipip fou,
# 32 for gre fou, + 4 per GRE option, 20 for encap none
OVERHEAD = {'fipip': 28, 'fgre': 32, 'fgrek': 36, 'fgrecks': 44, 'fsit': 28, 'pipip': 20,
            'pgre': 36, 'psit': 20}
OPTS = te.tunnel_opts(TUNNELS) + ['--link', '0,mtu=%d' % PORT0_MTU]


def tmtu(t):
    return PORT0_MTU - OVERHEAD[t.name]


class IcmpMtu(te.EncapTestCase):
    def run_mixed(self, opts, traffic, encap, fou_ports=None):
        """traffic: a Traffic of frames received on port 1 (its outputs on
        port 1, its drops); encap: EncapCases, the frames that leave port 0.
        Both lists are interleaved in the capture as given by order."""
        frames = [c.frame for c in traffic.cases]
        run = self.run_gw({1: ft.write_pcap(self.path('in1.pcap'), frames)}, opts)
        self.assertCounters(run, rx={0: 0, 1: len(frames)},
                            tx={0: len(encap), 1: len(traffic.out(1))},
                            drops=traffic.drops(), decap=traffic.decap(), icmp=traffic.icmp_sent(),
                            fou_ports=fou_ports or {})
        self.assertOutput(run.outputs[1], traffic.out(1), ft.MAC_P1)
        self.assertEqual(ft.tshark_problems(run.outputs[1], tcp=False), [])
        self.assertEncap(run.outputs[0], encap)
        return run

    def test_tunnel_mtu(self):
        self.assertEqual({t.name: t.overhead for t in TUNNELS}, OVERHEAD)
        t_ = ft.Traffic()
        encap = []
        seq = iter(range(1, 1000))
        for t in TUNNELS:
            m = tmtu(t)
            if t.v4:
                for kind in ('icmp', 'tcpB'):
                    i = next(seq)
                    at = from_host(inner4(t.dst4(i), kind, i, size=m))
                    over = from_host(inner4(t.dst4(i), kind, i, size=m + 1))
                    c = EncapCase('%s v4 %s at the MTU %d' % (t.name, kind, m), t, at)
                    encap.append(c)
                    t_.cases.append(ft.Expected(c.name, at, rx=1, port=0))
                    t_.icmp('%s v4 %s DF %d' % (t.name, kind, m + 1), over, 1, MAC_H1,
                            ft.icmp4_error(ft.l3_of(over), GW1_V4, 'icmp_frag_needed', mtu=m),
                            'icmp_frag_needed', rx=1, plain=True)
                i = next(seq)
                big = from_host(inner4(t.dst4(i), 'udpA2', i, size=1500))
                t_.icmp('%s v4 DF 1500' % t.name, big, 1, MAC_H1,
                        ft.icmp4_error(ft.l3_of(big), GW1_V4, 'icmp_frag_needed', mtu=m),
                        'icmp_frag_needed', rx=1, plain=True)
            if t.v6:
                i = next(seq)
                at = from_host(inner6(t.dst6(i), 'udpA2', i, size=m))
                over = from_host(inner6(t.dst6(i), 'icmp', i, size=m + 1))
                c = EncapCase('%s v6 at the MTU %d' % (t.name, m), t, at)
                encap.append(c)
                t_.cases.append(ft.Expected(c.name, at, rx=1, port=0))
                t_.icmp('%s v6 %d' % (t.name, m + 1), over, 1, MAC_H1,
                        ft.icmp6_error(ft.l3_of(over), GW1_V6, 'icmp6_pkt_too_big', mtu=m),
                        'icmp6_pkt_too_big', rx=1, plain=True)
        self.run_mixed(OPTS, t_, encap)

    def test_ttl(self):
        """TTL 1 / 0 and hop limit 1 / 0: time exceeded (quoting the packet
        as received); not about an ICMP error nor a non-first fragment."""
        t_ = ft.Traffic()
        fipip, fsit = BY_NAME['fipip'], BY_NAME['fsit']
        for ttl in (1, 0):
            p = from_host(IP(src=te.H4, dst=fipip.dst4(1), ttl=ttl, id=7) / UDP(sport=1, dport=9) /
                          Raw(b'ttl' * 10))
            t_.icmp('v4 ttl %d' % ttl, p, 1, MAC_H1,
                    ft.icmp4_error(ft.l3_of(p), GW1_V4, 'icmp_time_exceeded'),
                    'icmp_time_exceeded', rx=1, plain=True)
            p = from_host(IPv6(src=te.H6, dst=fsit.dst6(1), hlim=ttl) / UDP(sport=1, dport=9) /
                          Raw(b'hop' * 10))
            t_.icmp('v6 hop limit %d' % ttl, p, 1, MAC_H1,
                    ft.icmp6_error(ft.l3_of(p), GW1_V6, 'icmp6_time_exceeded'),
                    'icmp6_time_exceeded', rx=1, plain=True)
        big = from_host(IP(src=te.H4, dst=fipip.dst4(2), ttl=1, tos=0xff, flags='DF') /
                        UDP(sport=1, dport=9) / Raw(bytes(900)))
        t_.icmp('v4 ttl 1, 928 bytes: the quote is cut to 576 - 28', big, 1, MAC_H1,
                ft.icmp4_error(ft.l3_of(big), GW1_V4, 'icmp_time_exceeded'),
                'icmp_time_exceeded', rx=1, plain=True)
        big6 = from_host(IPv6(src=te.H6, dst=fsit.dst6(2), hlim=1) / UDP(sport=1, dport=9) /
                         Raw(bytes(1300)))
        t_.icmp('v6 hop limit 1, 1348 bytes: the quote is cut to 1232', big6, 1, MAC_H1,
                ft.icmp6_error(ft.l3_of(big6), GW1_V6, 'icmp6_time_exceeded'),
                'icmp6_time_exceeded', rx=1, plain=True)
        err = IP(src=te.H4, dst=fipip.dst4(3), ttl=1) / ICMP(type=3, code=1) / \
            IP(src=fipip.dst4(3), dst=te.H4) / UDP(sport=9, dport=1)
        t_.drop('ICMP error with ttl 1: no error about an error', from_host(err), 'ttl_exceeded',
                rx=1, plain=True)
        frag = IP(src=te.H4, dst=fipip.dst4(3), ttl=1, frag=100, proto=17) / Raw(bytes(40))
        t_.drop('non-first fragment with ttl 1', from_host(frag), 'ttl_exceeded', rx=1,
                plain=True)
        big_err = IP(src=te.H4, dst=fipip.dst4(3), flags='DF') / ICMP(type=11) / \
            Raw(bytes(1400))
        t_.drop('ICMP error too big with DF', from_host(big_err), 'mtu_exceeded', rx=1,
                plain=True)
        echo = IP(src=te.H4, dst=fipip.dst4(3), flags='DF') / ICMP(type=8) / Raw(bytes(1400))
        t_.icmp('ICMP echo too big with DF: not an error, so answered', from_host(echo), 1,
                MAC_H1, ft.icmp4_error(bytes(echo), GW1_V4, 'icmp_frag_needed',
                                       mtu=tmtu(fipip)), 'icmp_frag_needed', rx=1, plain=True)
        first = IP(src=te.H4, dst=fipip.dst4(3), ttl=1, flags='MF', proto=17) / Raw(bytes(40))
        t_.icmp('first fragment with ttl 1', from_host(first), 1, MAC_H1,
                ft.icmp4_error(bytes(first), GW1_V4, 'icmp_time_exceeded'),
                'icmp_time_exceeded', rx=1, plain=True)
        self.run_mixed(OPTS, t_, [])

    def test_plain_forwarding_mtu(self):
        """Not into a tunnel: the port MTU itself (1400 on port 0). (Without
        DF over it: fragmented, test_frag.py.)"""
        t_ = ft.Traffic()
        for size, df in ((1400, True), (1401, True)):
            p = from_host(IP(src=te.H4, dst='10.99.0.2', flags='DF' if df else 0, ttl=30) /
                          UDP(sport=5, dport=6) / Raw(bytes(size - 28)))
            name = 'to 10.99.0.2, %d bytes%s' % (size, ' DF' if df else '')
            if size <= PORT0_MTU:
                t_.route(name, p, 0, ft.MAC_PEER, rx=1)
            else:
                t_.icmp(name, p, 1, MAC_H1, ft.icmp4_error(ft.l3_of(p), GW1_V4,
                                                            'icmp_frag_needed', mtu=1400),
                        'icmp_frag_needed', rx=1, plain=True)
        run = self.run_gw(t_.write_ports(self.tmp), OPTS)
        self.assertTraffic(run, t_, port_macs={0: ft.MAC_P0, 1: ft.MAC_P1}, fou_ports={})
        for port in (0, 1):
            self.assertEqual(ft.tshark_problems(run.outputs[port], tcp=False), [])

    def too_big(self, n):
        fipip = BY_NAME['fipip']
        return [from_host(inner4(fipip.dst4(1), 'udpA2', i, size=tmtu(fipip) + 1 + i))
                for i in range(n)]

    def test_icmp_rate_limit(self):
        """--icmp-rate 1,burst=3: 5 packets too big at once, 3 errors."""
        t_ = ft.Traffic()
        for i, p in enumerate(self.too_big(5)):
            if i < 3:
                t_.icmp('too big #%d' % i, p, 1, MAC_H1,
                        ft.icmp4_error(ft.l3_of(p), GW1_V4, 'icmp_frag_needed',
                                       mtu=tmtu(BY_NAME['fipip'])),
                        'icmp_frag_needed', rx=1, plain=True)
            else:
                t_.drop('too big #%d' % i, p, 'icmp_ratelimited', rx=1, plain=True)
        self.run_mixed(OPTS + ['--icmp-rate', '1,burst=3'], t_, [])

    def test_icmp_rate_zero(self):
        """--icmp-rate 0: no ICMP error at all."""
        t_ = ft.Traffic()
        for i, p in enumerate(self.too_big(2)):
            t_.drop('too big #%d' % i, p, 'mtu_exceeded', rx=1, plain=True)
        p = from_host(IP(src=te.H4, dst=BY_NAME['fipip'].dst4(1), ttl=1) / UDP())
        t_.drop('ttl 1', p, 'ttl_exceeded', rx=1, plain=True)
        self.run_mixed(OPTS + ['--icmp-rate', '0'], t_, [])

    def test_icmp_back_into_a_tunnel(self):
        """A decapsulated packet whose TTL runs out, from a source behind
        a tunnel: the time exceeded goes back encapsulated."""
        fipip = BY_NAME['fipip']
        inner = IP(src=fipip.dst4(9), dst=te.H4, ttl=1, id=5) / UDP(sport=3, dport=4) / \
            Raw(b'back' * 5)
        frame = fou(5555, inner)
        err = ft.icmp4_error(bytes(inner), ft.IP_P0, 'icmp_time_exceeded')
        c = EncapCase('time exceeded into fipip', fipip, frame, l3=err, ignore_id=True)
        run = self.run_gw({0: ft.write_pcap(self.path('in0.pcap'), [frame])},
                          te.tunnel_opts([fipip]) + ['--port', '5555:ipip'])
        self.assertCounters(run, rx={0: 1, 1: 0}, tx={0: 1, 1: 0}, drops={},
                            decap=[(5555, 'ipv4')], icmp={'icmp_time_exceeded': 1},
                            fou_ports={5555: 'ipip'})
        self.assertEncap(run.outputs[0], [c])

    def test_icmp_source_is_egress_address(self):
        """Linux' icmp_send (icmp_errors_use_inbound_ifaddr 0, the default)
        and RFC 1812 4.3.2.4 take the source of an ICMP error from the
        interface it leaves by. A FOU packet from the peer on port 0 whose
        inner TTL runs out: the error to 192.168.1.60 leaves port 1, so its
        source is 192.168.1.1, not 10.99.0.1 of the receiving port."""
        inner = IP(src=te.H4, dst='192.168.1.60', ttl=1) / UDP(sport=3, dport=4)
        t_ = ft.Traffic()
        t_.icmp('FOU, inner ttl 1', fou(5555, inner), 1, MAC_H1,
                ft.icmp4_error(bytes(inner), GW1_V4, 'icmp_time_exceeded'),
                'icmp_time_exceeded')
        run = self.run_gw({0: t_.write(self.path('in0.pcap'))}, OPTS + ['--port', '5555:ipip'])
        self.assertTraffic(run, t_, port_macs={0: ft.MAC_P0, 1: ft.MAC_P1},
                           fou_ports={5555: 'ipip'})


MAC_H1 = te.MAC_H1

if __name__ == '__main__':
    ft.main()
