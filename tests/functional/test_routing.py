#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Case 4: routing of decapsulated packets over three ports (port 0 receives
and can send back, ports 1 and 2 send): IPv4 and IPv6 longest-prefix match,
default routes, connected routes, no route (net unreachable where the
source has a way back), no neighbour (the packet waits while the gateway
asks with ARP or NS, from its address on the port; nobody answers here),
MTU, our own addresses."""
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou, gre, v4, v6  # noqa: E402

# port 2 keeps the MAC the pcap PMD gives it ("pcap" + index)
MAC_P2 = '02:70:63:61:70:02'
MACS = {0: ft.MAC_P0, 1: ft.MAC_P1, 2: MAC_P2}
NH = {name: '02:00:00:00:0a:%02x' % i for i, name in enumerate(
    ('A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M'), 1)}

COMMON = [
    '--link', '0,address=' + ft.MAC_P0,
    '--link', '1,address=%s,mtu=1000' % ft.MAC_P1,
    '--addr', '0,10.99.0.1/24',
    '--addr', '1,192.168.1.1/24', '--addr', '1,fd00:1::1/64',
    '--addr', '2,192.168.2.1/24', '--addr', '2,fd00:2::1/64',
    '--port', '5555:ipip', '--port', '5556:gre', '--port', '5557:sit',
    # IPv4: nested prefixes with alternating ports and next hops
    '--route', '172.16.0.0/16,dev=1,via=192.168.1.2',
    '--route', '172.16.5.0/24,dev=2,via=192.168.2.2',
    '--route', '172.16.5.128/25,dev=1,via=192.168.1.3',
    '--route', '172.16.5.77/32,dev=2,via=192.168.2.3',
    '--route', '172.17.0.0/16,dev=1,via=192.168.1.9',      # no neighbour for .9
    '--route', '10.20.0.0/16,dev=0,via=10.99.0.254',       # back out of port 0
    # IPv6
    '--route', 'fd00:10::/32,dev=1,via=fd00:1::2',
    '--route', 'fd00:10:5::/48,dev=2,via=fd00:2::2',
    '--route', 'fd00:10:5:1::/64,dev=1,via=fd00:1::3',
    '--route', 'fd00:17::/32,dev=1,via=fd00:1::9',         # no neighbour
    # routes without a gateway: on-link prefixes beyond the addresses' networks
    '--route', '172.30.0.0/16,dev=2',
    '--route', 'fd00:30::/48,dev=2',
    '--neigh', '172.30.1.1,dev=2,lladdr=02:00:00:00:0a:30',
    '--neigh', 'fd00:30::1,dev=2,lladdr=02:00:00:00:0a:31',
    '--neigh', '192.168.1.2,dev=1,lladdr=' + NH['A'],
    '--neigh', '192.168.2.2,dev=2,lladdr=' + NH['B'],
    '--neigh', '192.168.1.3,dev=1,lladdr=' + NH['C'],
    '--neigh', '192.168.2.3,dev=2,lladdr=' + NH['D'],
    '--neigh', '192.168.2.254,dev=2,lladdr=' + NH['E'],
    '--neigh', 'fd00:1::2,dev=1,lladdr=' + NH['F'],
    '--neigh', 'fd00:2::2,dev=2,lladdr=' + NH['G'],
    '--neigh', '10.99.0.254,dev=0,lladdr=' + NH['H'],
    '--neigh', 'fd00:1::fe,dev=1,lladdr=' + NH['I'],
    # on-link destinations: the neighbour is the destination itself
    '--neigh', '192.168.2.50,dev=2,lladdr=' + NH['J'],
    '--neigh', 'fd00:2::50,dev=2,lladdr=' + NH['K'],
    '--neigh', '192.168.1.77,dev=1,lladdr=' + NH['L'],
    '--neigh', '10.99.0.77,dev=0,lladdr=' + NH['M'],
    '--neigh', 'fd00:1::3,dev=1,lladdr=02:00:00:00:0a:33',
]
# The source of an ICMP error about a decapsulated packet: an address of
# the port the error leaves by (RFC 1812 4.3.2.4, Linux' icmp_send with
# icmp_errors_use_inbound_ifaddr=0): port 2 here, by the default route.
ICMP_SRC = '192.168.2.1'
DEFAULT4 = ['--route', '0.0.0.0/0,dev=2,via=192.168.2.254']
DEFAULT6 = ['--route', '::/0,dev=1,via=fd00:1::fe']


def routing_traffic(default4):
    """default4: whether 0.0.0.0/0 is there (then ::/0 is not, and the
    other way round)."""
    t = ft.Traffic()
    seq = iter(range(1, 1000))

    def ipip(dst, **kw):
        return fou(5555, v4(dst=dst, seq=next(seq), **kw))

    def sit(dst, **kw):
        return fou(5557, v6(dst=dst, seq=next(seq), **kw))

    # longest prefix match
    t.fwd('172.16.1.1: /16', ipip('172.16.1.1'), 1, NH['A'])
    t.fwd('172.16.255.254: /16', ipip('172.16.255.254'), 1, NH['A'])
    t.fwd('172.16.5.9: /24', ipip('172.16.5.9'), 2, NH['B'])
    t.fwd('172.16.5.76: /24', ipip('172.16.5.76'), 2, NH['B'])
    t.fwd('172.16.5.77: /32', ipip('172.16.5.77'), 2, NH['D'])
    t.fwd('172.16.5.78: /24', fou(5556, gre(v4(dst='172.16.5.78', seq=next(seq)), k=1)), 2,
          NH['B'])
    t.fwd('172.16.5.127: /24', ipip('172.16.5.127'), 2, NH['B'])
    t.fwd('172.16.5.128: /25', ipip('172.16.5.128'), 1, NH['C'])
    t.fwd('172.16.5.255: /25', ipip('172.16.5.255'), 1, NH['C'])
    t.fwd('172.16.6.0: /16', ipip('172.16.6.0'), 1, NH['A'])
    t.fwd('10.20.3.4: back out of port 0', ipip('10.20.3.4'), 0, NH['H'])
    t.fwd('fd00:10:1::1: /32', sit('fd00:10:1::1'), 1, NH['F'])
    t.fwd('fd00:10:5::1: /48', sit('fd00:10:5::1'), 2, NH['G'])
    t.fwd('fd00:10:5:1::1: /64', fou(5556, gre(v6(dst='fd00:10:5:1::1', seq=next(seq)), s=1)),
          1, '02:00:00:00:0a:33')
    t.fwd('fd00:10:5:2::1: /48', sit('fd00:10:5:2::1'), 2, NH['G'])
    t.fwd('fd00:10:ffff::1: /32', sit('fd00:10:ffff::1'), 1, NH['F'])
    # connected networks: the destination is its own next hop
    t.fwd('192.168.2.50: on-link on port 2', ipip('192.168.2.50'), 2, NH['J'])
    t.fwd('192.168.1.77: on-link on port 1', ipip('192.168.1.77'), 1, NH['L'])
    t.fwd('10.99.0.77: on-link on port 0', ipip('10.99.0.77'), 0, NH['M'])
    t.fwd('fd00:2::50: on-link on port 2', sit('fd00:2::50'), 2, NH['K'])
    t.fwd('172.30.1.1: on-link route without via', ipip('172.30.1.1'), 2, '02:00:00:00:0a:30')
    t.fwd('fd00:30::1: on-link route without via', sit('fd00:30::1'), 2, '02:00:00:00:0a:31')
    # no neighbour: held while the gateway asks, dropped when it stops
    t.drop('172.30.1.2: on-link route without via, no neighbour', ipip('172.30.1.2'),
           'neigh_stopped')
    t.drop('fd00:30::2: on-link route without via, no neighbour', sit('fd00:30::2'),
           'neigh_stopped')
    t.drop('192.168.2.51: on-link, no neighbour', ipip('192.168.2.51'), 'neigh_stopped')
    t.drop('172.17.0.1: gateway without neighbour', ipip('172.17.0.1'), 'neigh_stopped')
    t.drop('fd00:2::51: on-link, no neighbour', sit('fd00:2::51'), 'neigh_stopped')
    t.drop('fd00:17::1: gateway without neighbour', sit('fd00:17::1'), 'neigh_stopped')
    t.drop('fd00:1::77: on-link on port 1, no neighbour', sit('fd00:1::77'), 'neigh_stopped')
    # our own addresses: the echo requests are answered where the default
    # route leads back to their sources (192.168.3.2, fd00:40::2), like any
    # packet the gateway sends, and dropped as no_route where none does
    f = ipip('192.168.2.1')
    if default4:
        t.icmp('192.168.2.1: ours, echo reply via 0.0.0.0/0', f, 2, NH['E'],
               ft.echo_reply4(ft.tunnel_payload(bytes(f))), 'icmp_echo_reply')
    else:
        t.drop('192.168.2.1: ours, no way back', f, 'no_route')
    f = sit('fd00:2::1')
    if default4:
        t.drop('fd00:2::1: ours, no way back', f, 'no_route')
    else:
        t.icmp('fd00:2::1: ours, echo reply via ::/0', f, 1, NH['I'],
               ft.echo_reply6(ft.tunnel_payload(bytes(f))), 'icmp6_echo_reply')
    # MTU of port 1 is 1000, of port 2 1500
    t.fwd('1000 bytes to port 1', ipip('172.16.1.2', size=1000), 1, NH['A'])
    # with DF: fragmentation needed, back to 192.168.3.2 if there is a route
    # (without DF: fragmented, test_frag.py)
    for size, dst in ((1001, '172.16.1.3'), (1400, '172.16.1.4')):
        big = ipip(dst, size=size, flags='DF')
        if default4:
            t.icmp('%d bytes DF to port 1: frag needed via 0.0.0.0/0' % size, big, 2, NH['E'],
                   ft.icmp4_error(ft.tunnel_payload(bytes(big)), ICMP_SRC, 'icmp_frag_needed',
                                  mtu=1000), 'icmp_frag_needed')
        else:
            t.drop('%d bytes DF to port 1, no route back for the ICMP error' % size, big,
                   'mtu_exceeded')
    t.fwd('1001 bytes to port 2', ipip('172.16.5.10', size=1001), 2, NH['B'])
    t.fwd('1500 bytes to port 2', ipip('172.16.5.11', size=1500), 2, NH['B'])
    t.fwd('IPv6 1000 bytes to port 1', sit('fd00:10:1::2', size=1000), 1, NH['F'])
    t.drop('IPv6 1001 bytes to port 1', sit('fd00:10:1::3', size=1001), 'mtu_exceeded')
    t.fwd('IPv6 1500 bytes to port 2', sit('fd00:10:5::3', size=1500), 2, NH['G'])
    # default routes, one family at a time
    if default4:
        t.fwd('8.8.8.8: 0.0.0.0/0', ipip('8.8.8.8'), 2, NH['E'])
        t.fwd('172.15.255.255: 0.0.0.0/0', ipip('172.15.255.255'), 2, NH['E'])
        t.fwd('192.168.3.1: 0.0.0.0/0', fou(5556, gre(v4(dst='192.168.3.1', seq=next(seq)))),
              2, NH['E'])
        t.fwd('1001 bytes to 0.0.0.0/0 on port 2', ipip('8.8.4.4', size=1001), 2, NH['E'])
        # no route, and none back to fd00:40::2 for the ICMPv6 error
        t.drop('2001:db8::1: no ::/0', sit('2001:db8::1'), 'no_route')
        t.drop('fd00:11::1: no ::/0', sit('fd00:11::1'), 'no_route')
        # from a source with a route back: ICMPv6 no route, from the
        # address of the port it leaves by (port 2: port 1's MTU of 1000
        # is below the IPv6 minimum, no ICMPv6 error leaves there)
        f = fou(5557, v6(src='fd00:10:5::9', dst='2001:db8::5', seq=next(seq)))
        t.icmp('2001:db8::5 from fd00:10:5::9: no route', f, 2, NH['G'],
               ft.icmp6_error(ft.tunnel_payload(bytes(f)), 'fd00:2::1', 'icmp6_no_route'),
               'icmp6_no_route')
    else:
        t.drop('8.8.8.8: no 0.0.0.0/0', ipip('8.8.8.8'), 'no_route')
        t.drop('172.15.255.255: no 0.0.0.0/0', ipip('172.15.255.255'), 'no_route')
        t.drop('192.168.3.1: no 0.0.0.0/0', fou(5556, gre(v4(dst='192.168.3.1',
                                                                seq=next(seq)))), 'no_route')
        # from a source with a route back: net unreachable, from the
        # address of the port it leaves by
        f = fou(5555, v4(src='172.16.1.9', dst='8.8.4.9', seq=next(seq)))
        t.icmp('8.8.4.9 from 172.16.1.9: net unreachable', f, 1, NH['A'],
               ft.icmp4_error(ft.tunnel_payload(bytes(f)), '192.168.1.1', 'icmp_net_unreach'),
               'icmp_net_unreach')
        t.fwd('2001:db8::1: ::/0', sit('2001:db8::1'), 1, NH['I'])
        t.fwd('fd00:11::1: ::/0', sit('fd00:11::1'), 1, NH['I'])
        t.drop('1001 bytes to ::/0 on port 1', sit('2001:db8::2', size=1001), 'mtu_exceeded')
    return t


# What each port announces, and whom it asks for (target: our source): a
# target off the port's networks (172.30/16, fd00:30::/48 are on-link routes
# beyond them) is asked from the port's first address of the family.
ANNOUNCE = {0: ('10.99.0.1',), 1: ('192.168.1.1', 'fd00:1::1'),
            2: ('192.168.2.1', 'fd00:2::1')}
RESOLVE = {0: {},
           1: {'192.168.1.9': '192.168.1.1', 'fd00:1::9': 'fd00:1::1',
               'fd00:1::77': 'fd00:1::1'},
           2: {'172.30.1.2': '192.168.2.1', 'fd00:30::2': 'fd00:2::1',
               '192.168.2.51': '192.168.2.1', 'fd00:2::51': 'fd00:2::1'}}


class Routing(ft.GatewayTestCase):
    def check(self, default4):
        t = routing_traffic(default4)
        opts = COMMON + (DEFAULT4 if default4 else DEFAULT6)
        run = self.run_gw({0: t.write(self.path('in.pcap'))}, opts, nb_ports=3)
        self.assertTraffic(run, t, nb_ports=3, port_macs=MACS)
        for p in range(3):
            self.assertNeighOut(run, p, MACS[p], ANNOUNCE[p], resolve=RESOLVE[p])
        self.assertEqual(sorted(run.summary.tx.items()),
                         [(p, len(t.out(p)) + len(run.own[p])) for p in range(3)])
        self.assertTrue(all(len(t.out(p)) > 0 for p in range(3)))
        # what the gateway says the ports are
        self.assertRegex(run.stdout, re.compile(r'^port 1 \(net_pcap1\): mac %s mtu 1000,' %
                                                ft.MAC_P1, re.I | re.M))
        self.assertRegex(run.stdout, re.compile(r'^port 2 \(net_pcap2\): mac %s mtu 1500,' %
                                                MAC_P2, re.I | re.M))

    def test_receive_on_every_port(self):
        """FOU arrives on all three ports, each filtering on its own MAC and
        accepting any local address (weak host, as Linux); each port's
        traffic leaves by another port, so each output keeps its order."""
        t = ft.Traffic()
        for i in range(3):
            t.fwd('rx 0 -> 1 #%d' % i, fou(5555, v4(dst='172.16.1.%d' % (10 + i), seq=i)), 1,
                  NH['A'])
        t.drop('rx 0, for the MAC of port 1', fou(5555, v4(seq=3), eth_dst=ft.MAC_P1),
               'eth_other_host')
        t.drop('rx 0, for the MAC the PMD gave port 0', fou(5555, v4(seq=4),
                                                             eth_dst='02:70:63:61:70:00'),
               'eth_other_host')
        for i in range(3):
            t.fwd('rx 1 -> 2 #%d' % i, fou(5557, v6(dst='fd00:10:5::%d' % (10 + i), seq=i),
                                          eth_dst=ft.MAC_P1, dst='192.168.1.1'), 2, NH['G'],
                  rx=1)
        t.fwd('rx 1, to the address of port 0 -> 2', fou(5555, v4(dst='172.16.5.9', seq=5),
                                                         eth_dst=ft.MAC_P1), 2, NH['B'], rx=1)
        t.route('rx 1, not local: routed back out of port 1',
                fou(5555, v4(seq=6), eth_dst=ft.MAC_P1, dst='192.168.1.2'), 1, NH['A'], rx=1)
        for i in range(2):
            t.fwd('rx 2 -> 0 #%d' % i, fou(5556, gre(v4(dst='10.20.0.%d' % (10 + i), seq=i), k=1),
                                          eth_dst=MAC_P2, dst='192.168.2.1'), 0, NH['H'], rx=2)
        t.drop('rx 2, for the MAC of port 0', fou(5555, v4(seq=7), eth_dst=ft.MAC_P0,
                                                 dst='192.168.2.1'), 'eth_other_host', rx=2)
        run = self.run_gw(t.write_ports(self.tmp), COMMON + DEFAULT4, nb_ports=3)
        self.assertTraffic(run, t, nb_ports=3, port_macs=MACS)
        self.assertEqual(run.summary.rx, {0: 5, 1: 5, 2: 3})
        self.assertEqual(run.summary.tx, {p: n + len(run.own[p])
                                          for p, n in ((0, 2), (1, 4), (2, 4))})
        for p in range(3):
            self.assertNeighOut(run, p, MACS[p], ANNOUNCE[p])

    def test_default_route_ipv4(self):
        self.check(default4=True)

    def test_default_route_ipv6(self):
        self.check(default4=False)


if __name__ == '__main__':
    ft.main()
