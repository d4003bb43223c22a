#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Case 13: what the gateway answers for its own addresses, and for
packets it has no route for, as a Linux router does. A host on port 1
(192.168.1.50, fd00:1::50) and the FOU peer on port 0 (10.99.0.2) ping
the gateway's addresses: echo replies from the address pinged, TTL 64, the
request's TOS, id, sequence and data. Pings inside FOU tunnels are
answered back through the tunnel (outer and inner headers decoded by
tshark). UDP to a port that is not FOU gets port unreachable, a protocol
without a handler protocol unreachable (IPv6: parameter problem,
unrecognised next header), no route net unreachable (IPv6: no route);
TCP gets nothing (Linux would reset it). No error is sent about an ICMP
error, a non-first fragment or a packet in a broadcast frame; errors are
rate-limited, echo replies are not. Every answer is built here byte by
byte (fou_testlib: echo_reply4/6, icmp4/6_error) and compared."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether, GRE  # noqa: E402
from scapy.layers.inet import IP, UDP, TCP, ICMP, IPOption_RR  # noqa: E402
from scapy.layers.inet6 import IPv6, ICMPv6EchoRequest, ICMPv6DestUnreach  # noqa: E402
import test_encap as te  # noqa: E402
from test_encap import BY_NAME, EncapCase, H4, H6, MAC_H1, from_host  # noqa: E402

GW0, GW1, GW1_V6 = ft.IP_P0, '192.168.1.1', 'fd00:1::1'
FIPIP, FSIT, FGREK = BY_NAME['fipip'], BY_NAME['fsit'], BY_NAME['fgrek']
TUNNELS = [FIPIP, FSIT, FGREK]
OPTS = te.tunnel_opts(TUNNELS) + ['--port', '5555:ipip', '--port', '5556:gre',
                                  '--port', '5557:sit']
FOU_PORTS = {5555: 'ipip', 5556: 'gre', 5557: 'sit'}
PORT_MACS = {0: ft.MAC_P0, 1: ft.MAC_P1}
UNROUTED4, UNROUTED6 = '203.0.113.1', '2001:db8::1'


def from_peer(ip, eth_dst=ft.MAC_P0):
    return Ether(src=ft.MAC_PEER, dst=eth_dst) / ip


def data(n, seed):
    return Raw(bytes((seed * 11 + i) & 0xff for i in range(n)))


def ping4(src, dst, seq, n=24, **kw):
    return IP(src=src, dst=dst, id=0x900 + seq, **kw) / ICMP(id=0x4242, seq=seq) / data(n, seq)


def ping6(src, dst, seq, n=24, **kw):
    return IPv6(src=src, dst=dst, fl=0x5a5a5, **kw) / \
        ICMPv6EchoRequest(id=0x4343, seq=seq, data=bytes(data(n, seq)))


def l3(frame):
    return ft.l3_of(bytes(frame))


class Local(te.EncapTestCase):
    def run_traffic(self, t, opts=OPTS):
        run = self.run_gw(t.write_ports(self.tmp), opts)
        self.assertTraffic(run, t, port_macs=PORT_MACS, fou_ports=FOU_PORTS)
        for port in (0, 1):
            self.assertEqual(ft.tshark_problems(run.outputs[port], tcp=False), [],
                             'tshark finds problems in what port %d sent' % port)
        return run

    def test_ping(self):
        """Echo requests to each of our addresses, from either side: the
        reply leaves by the route back to the sender, from the address
        pinged; TOS and ICMP code copied, options not echoed, TTL 64."""
        t = ft.Traffic()
        for i, dst in enumerate((GW1, GW0)):
            f = from_host(ping4(H4, dst, i))
            t.icmp('host pings %s' % dst, f, 1, MAC_H1, ft.echo_reply4(l3(f)),
                   'icmp_echo_reply', rx=1, plain=True)
            f = from_peer(ping4(ft.IP_PEER, dst, 10 + i))
            t.icmp('peer pings %s' % dst, f, 0, ft.MAC_PEER, ft.echo_reply4(l3(f)),
                   'icmp_echo_reply', plain=True)
        f = from_host(IP(src=H4, dst=GW1, tos=0xb9, ttl=3, flags='DF',
                         options=[IPOption_RR(pointer=4, routers=['0.0.0.0'])]) /
                      ICMP(code=5, id=1, seq=1) / data(1000, 3))
        t.icmp('TOS 0xb9, TTL 3, DF, record route, code 5, 1000 bytes', f, 1, MAC_H1,
               ft.echo_reply4(l3(f)), 'icmp_echo_reply', rx=1, plain=True)
        f = from_host(ping6(H6, GW1_V6, 4, tc=0xb9, hlim=1))
        t.icmp('host pings fd00:1::1 (traffic class 0xb9, hop limit 1)', f, 1, MAC_H1,
               ft.echo_reply6(l3(f)), 'icmp6_echo_reply', rx=1, plain=True)
        f = from_host(ping6(H6, GW1_V6, 5, n=1200))
        t.icmp('host pings fd00:1::1 with 1200 bytes', f, 1, MAC_H1, ft.echo_reply6(l3(f)),
               'icmp6_echo_reply', rx=1, plain=True)
        f = Ether(src=MAC_H1, dst='ff:ff:ff:ff:ff:ff') / ping4(H4, GW1, 6)
        t.icmp('ping of 192.168.1.1 in a broadcast frame', f, 1, MAC_H1, ft.echo_reply4(l3(f)),
               'icmp_echo_reply', rx=1, plain=True)
        # icmp_echo_ignore_broadcasts: a broadcast address is never ours to answer
        t.drop('ping of 192.168.1.255', Ether(src=MAC_H1, dst='ff:ff:ff:ff:ff:ff') /
               ping4(H4, '192.168.1.255', 7), 'bcast_mcast', rx=1)
        t.drop('ping of 255.255.255.255', Ether(src=MAC_H1, dst='ff:ff:ff:ff:ff:ff') /
               ping4(H4, '255.255.255.255', 8), 'bcast_mcast', rx=1)
        t.drop('ping of ff02::1', Ether(src=MAC_H1, dst='33:33:00:00:00:01') /
               ping6(H6, 'ff02::1', 9), 'bcast_mcast', rx=1)
        bad = bytearray(bytes(from_host(ping4(H4, GW1, 10))))
        bad[14 + 20 + 2] ^= 0x40
        t.drop('ping with a wrong ICMP checksum', bytes(bad), 'icmp_bad', rx=1)
        # (Linux queues a reply as any packet while it asks for the host)
        t.drop('ping of a host without a neighbour entry: the reply waits for one',
               from_host(ping4('192.168.1.99', GW1, 11)), 'neigh_stopped', rx=1, plain=True,
               icmp='icmp_echo_reply')
        run = self.run_traffic(t)
        self.assertEqual(run.summary.icmp, {'icmp_echo_reply': 7, 'icmp6_echo_reply': 2})
        self.assertEqual(run.summary.local.get('neigh_queued'), 1, run.describe())
        asked = [f['tip'] for f in ft.neigh_decode(run.own[1], self.path('own1.pcap'))
                 if f['kind'] == 'arp-request' and f['sip'] != f['tip']]
        # (asked once a second while it waits)
        self.assertEqual(set(asked), {'192.168.1.99'}, run.describe())

    def test_ping_through_tunnels(self):
        """Inner echo requests to our addresses, from hosts behind the
        tunnels: decapsulated, answered, and the reply encapsulated back
        (ipip, sit, GRE with a key): outer and inner checked field by field
        by tshark and byte by byte. So is a net unreachable about an inner
        packet, from the tunnel's local address."""
        cases = []
        inner = IP(src=FIPIP.dst4(9), dst=GW1, id=0x77, ttl=17) / ICMP(id=5, seq=1) / data(40, 1)
        cases.append(EncapCase('ipip: ping of 192.168.1.1', FIPIP, fou(5555, inner),
                               l3=ft.echo_reply4(bytes(inner)), ignore_id=True))
        inner = IP(src=FIPIP.dst4(10), dst=GW0, tos=0x02) / ICMP(id=5, seq=2) / data(30, 2)
        cases.append(EncapCase('ipip, outer CE on inner ECT(0): the reply is CE', FIPIP,
                               fou(5555, inner, tos=3),
                               l3=ft.echo_reply4(bytes(inner), ecn=3), ignore_id=True))
        inner6 = ping6(FSIT.dst6(9), GW1_V6, 3)
        cases.append(EncapCase('sit: ping of fd00:1::1', FSIT, fou(5557, inner6),
                               l3=ft.echo_reply6(bytes(inner6))))
        inner = IP(src=FGREK.dst4(9), dst=GW0) / ICMP(id=5, seq=4) / data(20, 4)
        cases.append(EncapCase('gre key: ping of 10.99.0.1', FGREK,
                               fou(5556, GRE(key_present=1, key=FGREK.key, proto=0x0800) / inner),
                               l3=ft.echo_reply4(bytes(inner)), ignore_id=True))
        inner = IP(src=FIPIP.dst4(11), dst=UNROUTED4) / UDP(sport=1, dport=2) / data(10, 5)
        cases.append(EncapCase('ipip: inner to 203.0.113.1, no route: net unreachable', FIPIP,
                               fou(5555, inner),
                               l3=ft.icmp4_error(bytes(inner), GW0, 'icmp_net_unreach'),
                               ignore_id=True))
        run = self.run_gw({0: ft.write_pcap(self.path('in0.pcap'), [c.frame for c in cases])},
                          OPTS)
        self.assertCounters(run, rx={0: len(cases), 1: 0}, tx={0: len(cases), 1: 0}, drops={},
                            decap=[(5555, 'ipv4'), (5555, 'ipv4'), (5557, 'ipv6'),
                                   (5556, 'ipv4'), (5555, 'ipv4')],
                            fou_ports=FOU_PORTS,
                            icmp={'icmp_echo_reply': 3, 'icmp6_echo_reply': 1,
                                  'icmp_net_unreach': 1})
        self.assertEncap(run.outputs[0], cases)
        # the inner messages as tshark decodes them: a valid echo reply,
        # unreachable, each from the address its request went to
        rows = ft.tshark_fields(run.outputs[0], ['ip.src', 'ip.dst', 'ipv6.src', 'icmp.type',
                                                 'icmp.checksum.status', 'icmpv6.type',
                                                 'icmpv6.checksum.status'],
                                fou_ports=ft.FOU_LUA_PORTS)
        self.assertEqual([r['ip.src'][1:2] + r['ipv6.src'] for r in rows],
                         [[GW1], [GW0], [GW1_V6], [GW0], [GW0]])
        self.assertEqual([r['icmp.type'][:1] + r['icmpv6.type'] for r in rows],
                         [['0'], ['0'], ['129'], ['0'], ['3']])
        self.assertEqual([r['icmp.checksum.status'][:1] + r['icmpv6.checksum.status']
                          for r in rows], [['1']] * 5)

    def test_unreachables(self):
        """No route, no listener, no protocol handler: the errors Linux
        sends, from the address the packet was sent to (for a packet to
        us) or of the way out, quoting it; TCP gets nothing."""
        t = ft.Traffic()
        f = from_host(IP(src=H4, dst=UNROUTED4, tos=0x2b) / UDP(sport=7, dport=8) / data(20, 1))
        t.icmp('to 203.0.113.1: net unreachable', f, 1, MAC_H1,
               ft.icmp4_error(l3(f), GW1, 'icmp_net_unreach'), 'icmp_net_unreach', rx=1,
               plain=True)
        f = from_host(IPv6(src=H6, dst=UNROUTED6) / UDP(sport=7, dport=8) / data(20, 2))
        t.icmp('to 2001:db8::1: no route', f, 1, MAC_H1,
               ft.icmp6_error(l3(f), GW1_V6, 'icmp6_no_route'), 'icmp6_no_route', rx=1,
               plain=True)
        f = from_host(IP(src=H4, dst=GW1) / UDP(sport=7, dport=9) / data(700, 3))
        t.icmp('UDP to 192.168.1.1 port 9: port unreachable, quote cut at 576 bytes', f, 1,
               MAC_H1, ft.icmp4_error(l3(f), GW1, 'icmp_port_unreach'), 'icmp_port_unreach',
               rx=1, plain=True)
        f = from_peer(IP(src=ft.IP_PEER, dst=GW0) / UDP(sport=7, dport=53, len=20, chksum=0) /
                      data(30, 4))
        t.icmp('UDP of 20 bytes in 38 to 10.99.0.1 port 53: the quote ends with the datagram',
               f, 0, ft.MAC_PEER,
               ft.icmp4_error(l3(f), GW0, 'icmp_port_unreach', length=20 + 20),
               'icmp_port_unreach', plain=True)
        f = from_host(IPv6(src=H6, dst=GW1_V6) / UDP(sport=7, dport=9) / data(20, 5))
        t.icmp('UDP to fd00:1::1 port 9: port unreachable', f, 1, MAC_H1,
               ft.icmp6_error(l3(f), GW1_V6, 'icmp6_port_unreach'), 'icmp6_port_unreach',
               rx=1, plain=True)
        f = from_host(IP(src=H4, dst=GW1, proto=99) / data(30, 6))
        t.icmp('protocol 99 to 192.168.1.1: protocol unreachable', f, 1, MAC_H1,
               ft.icmp4_error(l3(f), GW1, 'icmp_proto_unreach'), 'icmp_proto_unreach', rx=1,
               plain=True)
        f = from_peer(IP(src=ft.IP_PEER, dst=GW0) / GRE(proto=0x0800) /
                      IP(src='172.16.10.1', dst='192.168.1.50') / ICMP())
        t.icmp('plain GRE to 10.99.0.1, no encap=none tunnel: protocol unreachable', f, 0,
               ft.MAC_PEER, ft.icmp4_error(l3(f), GW0, 'icmp_proto_unreach'),
               'icmp_proto_unreach', plain=True)
        f = from_host(IPv6(src=H6, dst=GW1_V6, nh=99) / data(30, 7))
        t.icmp('next header 99 to fd00:1::1: parameter problem, pointer 6', f, 1, MAC_H1,
               ft.icmp6_error(l3(f), GW1_V6, 'icmp6_param_problem', mtu=6),
               'icmp6_param_problem', rx=1, plain=True)
        # what gets no answer
        t.drop('TCP SYN to 192.168.1.1: no reset', from_host(
            IP(src=H4, dst=GW1) / TCP(sport=40000, dport=22, flags='S')), 'local_not_udp', rx=1)
        t.drop('TCP SYN to fd00:1::1: no reset', from_host(
            IPv6(src=H6, dst=GW1_V6) / TCP(sport=40000, dport=22, flags='S')), 'local_ipv6',
            rx=1)
        t.drop('UDP to 192.168.1.1 in a broadcast frame: no error', Ether(
            src=MAC_H1, dst='ff:ff:ff:ff:ff:ff') / IP(src=H4, dst=GW1) / UDP(sport=7, dport=9),
            'fou_port_unknown', rx=1)
        t.drop('ICMP error to 192.168.1.1: nothing to answer', from_host(
            IP(src=H4, dst=GW1) / ICMP(type=3, code=3) / IP(src=GW1, dst=H4) /
            UDP(sport=9, dport=7)), 'icmp_local', rx=1)
        # no error about an error, nor about a non-first fragment
        t.drop('ICMP error to 203.0.113.1: no error about an error', from_host(
            IP(src=H4, dst=UNROUTED4) / ICMP(type=11) / IP(src=UNROUTED4, dst=H4) /
            UDP(sport=9, dport=7)), 'no_route', rx=1, plain=True)
        t.drop('ICMPv6 error to 2001:db8::1: no error about an error', from_host(
            IPv6(src=H6, dst=UNROUTED6) / ICMPv6DestUnreach() / IPv6(src=UNROUTED6, dst=H6) /
            UDP(sport=9, dport=7)), 'no_route', rx=1, plain=True)
        t.drop('non-first fragment to 203.0.113.1', from_host(
            IP(src=H4, dst=UNROUTED4, frag=10, proto=17) / data(40, 8)), 'no_route', rx=1,
            plain=True)
        t.drop('UDP fragment to 192.168.1.1: waits for the rest, no error', from_host(
            IP(src=H4, dst=GW1, flags='MF') / UDP(sport=7, dport=9) / data(40, 9)),
            'reasm_stopped', rx=1)
        t.drop('UDP to fd00:1::1 without a checksum', from_host(
            IPv6(src=H6, dst=GW1_V6) / UDP(sport=7, dport=9, chksum=0) / data(8, 10)),
            'udp_cksum_bad', rx=1)
        run = self.run_traffic(t)
        self.assertEqual(sum(run.summary.icmp.values()), 8)

    def test_rate_limit(self):
        """--icmp-rate 1,burst=3: of six unreachables in a row three are
        sent; the six echo requests between them are all answered (Linux'
        icmp_ratemask leaves echo replies out)."""
        t = ft.Traffic()
        for i in range(6):
            f = from_host(IP(src=H4, dst=GW1) / UDP(sport=7, dport=100 + i) / data(10, i))
            if i < 3:
                t.icmp('UDP #%d: port unreachable' % i, f, 1, MAC_H1,
                       ft.icmp4_error(l3(f), GW1, 'icmp_port_unreach'), 'icmp_port_unreach',
                       rx=1, plain=True)
            else:
                t.drop('UDP #%d: rate-limited' % i, f, 'icmp_ratelimited', rx=1, plain=True)
            f = from_host(ping4(H4, GW1, 20 + i))
            t.icmp('ping #%d' % i, f, 1, MAC_H1, ft.echo_reply4(l3(f)), 'icmp_echo_reply', rx=1,
                   plain=True)
        self.run_traffic(t, OPTS + ['--icmp-rate', '1,burst=3'])

    def test_rate_zero(self):
        """--icmp-rate 0: no error at all, but pings are still answered."""
        t = ft.Traffic()
        t.drop('UDP to 192.168.1.1', from_host(IP(src=H4, dst=GW1) / UDP(sport=7, dport=9)),
               'fou_port_unknown', rx=1)
        t.drop('protocol 99 to 192.168.1.1', from_host(IP(src=H4, dst=GW1, proto=99)),
               'local_not_udp', rx=1)
        t.drop('next header 99 to fd00:1::1', from_host(IPv6(src=H6, dst=GW1_V6, nh=99)),
               'local_ipv6', rx=1)
        t.drop('to 203.0.113.1', from_host(IP(src=H4, dst=UNROUTED4) / UDP()), 'no_route', rx=1,
               plain=True)
        f = from_host(ping4(H4, GW1, 1))
        t.icmp('ping', f, 1, MAC_H1, ft.echo_reply4(l3(f)), 'icmp_echo_reply', rx=1, plain=True)
        f = from_host(ping6(H6, GW1_V6, 2))
        t.icmp('ping6', f, 1, MAC_H1, ft.echo_reply6(l3(f)), 'icmp6_echo_reply', rx=1,
               plain=True)
        self.run_traffic(t, OPTS + ['--icmp-rate', '0'])


if __name__ == '__main__':
    ft.main()
