#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Addresses on tunnels (`--addr TUNNEL,IP/PLEN`, as `ip addr add IP/PLEN dev
TUNNEL`). Tunnel tun1 (ipip) carries 192.168.40.1/30 and gre1 fd00:40::1/64,
both to the FOU peer 10.99.0.2 on port 0:

- a host on port 1 sends to 192.168.40.2 and fd00:40::2: their networks are
  routed into the tunnels, so the packets leave port 0 encapsulated to the
  peer (every outer field checked, tshark decodes them);
- the peer's end of the tunnels sends through them with TTL / hop limit 1,
  and a packet too big for port 1: the ICMP errors go back through the
  tunnels and come from the tunnels' addresses (Linux: the connected
  route's preferred source), not from the tunnel's local 10.99.0.1 nor
  from port 1's address;
- the network's broadcast address is never forwarded.

Then telemetry: /fou/addr/add,tun1,... and /fou/addr/del, /fou/addrs and
/fou/routes show them with the tunnel, errors name the problem, /fou/config
lists them after the tunnels and starts a second gateway in the same state
(also with the lines in reverse order), and deleting the tunnel takes them."""
import os
import signal
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou, gre  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
import test_encap as te  # noqa: E402
from test_encap import EncapCase, Tunnel, from_host  # noqa: E402

TUN1 = Tunnel('tun1', 'ipip', ft.IP_PEER, 'encap-dport=5555')
GRE1 = Tunnel('gre1', 'gre', ft.IP_PEER, 'encap-dport=5556')
ADDR4, PEER4 = '192.168.40.1', '192.168.40.2'
ADDR6, PEER6 = 'fd00:40::1', 'fd00:40::2'
ADDR_OPTS = ['--addr', 'tun1,%s/30' % ADDR4, '--addr', 'gre1,%s/64' % ADDR6]
FOU_PORTS = {5555: 'ipip', 5556: 'gre'}
PORT_OPTS = ['--port', '5555:ipip', '--port', '5556:gre']
PORT1_MTU = 1280


def opts(addrs=True):
    return (te.tunnel_opts([TUN1, GRE1]) + PORT_OPTS + (ADDR_OPTS if addrs else []) +
            ['--link', '1,mtu=%d' % PORT1_MTU])


class TunnelAddrTraffic(te.EncapTestCase):
    def test_tunnel_networks(self):
        to_net4 = from_host(IP(src=te.H4, dst=PEER4, id=7) / UDP(sport=1, dport=2) /
                            Raw(b'net4' * 5))
        to_net6 = from_host(IPv6(src=te.H6, dst=PEER6) / UDP(sport=1, dport=2) /
                            Raw(b'net6' * 5))
        bcast = from_host(IP(src=te.H4, dst='192.168.40.3') / UDP(sport=1, dport=2))
        cases = [EncapCase('to a host on tun1\'s network', TUN1, to_net4),
                 EncapCase('to a host on gre1\'s network', GRE1, to_net6)]
        run = self.run_gw({1: ft.write_pcap(self.path('in1.pcap'), [to_net4, bcast, to_net6])},
                          opts())
        self.assertCounters(run, rx={0: 0, 1: 3}, tx={0: 2, 1: 0}, drops={'bcast_mcast': 1},
                            decap=[], icmp={}, fou_ports=FOU_PORTS)
        self.assertEncap(run.outputs[0], cases)
        rows = ft.tshark_fields(run.outputs[0], ['ip.dst', 'ipv6.dst'],
                                fou_ports=ft.FOU_LUA_PORTS)
        self.assertEqual([r['ip.dst'] for r in rows], [[ft.IP_PEER, PEER4], [ft.IP_PEER]])
        self.assertEqual(rows[1]['ipv6.dst'], [PEER6])

    def test_icmp_errors_from_the_tunnel_addresses(self):
        ttl1 = IP(src=PEER4, dst=te.H4, ttl=1, id=5) / UDP(sport=3, dport=4) / Raw(b'ttl1' * 5)
        hlim1 = IPv6(src=PEER6, dst=te.H6, hlim=1) / UDP(sport=3, dport=4) / Raw(b'hl1' * 5)
        big = IP(src=PEER4, dst=te.H4, flags='DF', id=6) / UDP(sport=3, dport=4) / \
            Raw(bytes(PORT1_MTU + 1 - 28))
        f_ttl1, f_hlim1, f_big = fou(5555, ttl1), fou(5556, gre(hlim1)), fou(5555, big)
        tun1_mtu = 1500 - TUN1.overhead
        cases = [
            EncapCase('time exceeded back through tun1', TUN1, f_ttl1,
                      l3=ft.icmp4_error(bytes(ttl1), ADDR4, 'icmp_time_exceeded',
                                        egress_mtu=tun1_mtu), ignore_id=True),
            EncapCase('time exceeded back through gre1', GRE1, f_hlim1,
                      l3=ft.icmp6_error(bytes(hlim1), ADDR6, 'icmp6_time_exceeded')),
            EncapCase('frag needed back through tun1', TUN1, f_big,
                      l3=ft.icmp4_error(bytes(big), ADDR4, 'icmp_frag_needed', mtu=PORT1_MTU,
                                        egress_mtu=tun1_mtu), ignore_id=True),
        ]
        run = self.run_gw({0: ft.write_pcap(self.path('in0.pcap'), [f_ttl1, f_hlim1, f_big])},
                          opts())
        self.assertCounters(run, rx={0: 3, 1: 0}, tx={0: 3, 1: 0}, drops={},
                            decap=[(5555, 'ipv4'), (5556, 'ipv6'), (5555, 'ipv4')],
                            icmp={'icmp_time_exceeded': 1, 'icmp6_time_exceeded': 1,
                                  'icmp_frag_needed': 1},
                            fou_ports=FOU_PORTS)
        self.assertEncap(run.outputs[0], cases)
        # tshark: the errors inside the tunnels come from the tunnels' addresses
        rows = ft.tshark_fields(run.outputs[0], ['ip.src', 'ipv6.src', 'icmp.type',
                                                 'icmpv6.type'], fou_ports=ft.FOU_LUA_PORTS)
        self.assertEqual([(r['ip.src'][:2], r['icmp.type'][:1]) for r in (rows[0], rows[2])],
                         [([ft.IP_P0, ADDR4], ['11']), ([ft.IP_P0, ADDR4], ['3'])])
        self.assertEqual((rows[1]['ipv6.src'][:1], rows[1]['icmpv6.type'][:1]),
                         ([ADDR6], ['3']))

    def test_without_the_addresses(self):
        """The same errors about packets from senders routed into the
        tunnels by route statements: from tun1's local, and from port 0's
        IPv6 address (the port gre1 leaves by), as before."""
        ttl1 = IP(src=PEER4, dst=te.H4, ttl=1, id=5) / UDP(sport=3, dport=4) / Raw(b'ttl1' * 5)
        hlim1 = IPv6(src=PEER6, dst=te.H6, hlim=1) / UDP(sport=3, dport=4) / Raw(b'hl1' * 5)
        frames = [fou(5555, ttl1), fou(5556, gre(hlim1))]
        run = self.run_gw({0: ft.write_pcap(self.path('in0.pcap'), frames)},
                          opts(addrs=False) + ['--route', '192.168.40.0/30,dev=tun1',
                                               '--route', 'fd00:40::/64,dev=gre1',
                                               '--addr', '0,fd00:99::1/64'])
        cases = [
            EncapCase('time exceeded from tun1\'s local', TUN1, frames[0],
                      l3=ft.icmp4_error(bytes(ttl1), ft.IP_P0, 'icmp_time_exceeded'),
                      ignore_id=True),
            EncapCase('time exceeded from port 0\'s address', GRE1, frames[1],
                      l3=ft.icmp6_error(bytes(hlim1), 'fd00:99::1', 'icmp6_time_exceeded')),
        ]
        self.assertCounters(run, rx={0: 2, 1: 0}, tx={0: 2, 1: 0}, drops={},
                            decap=[(5555, 'ipv4'), (5556, 'ipv6')],
                            icmp={'icmp_time_exceeded': 1, 'icmp6_time_exceeded': 1},
                            fou_ports=FOU_PORTS)
        self.assertEncap(run.outputs[0], cases)


class TunnelAddrTelemetry(ft.GatewayTestCase):
    def client(self, gw):
        c = ft.TelemetryClient(gw.prefix)
        self.addCleanup(c.close)
        return c

    def stop(self, gw):
        gw.signal(signal.SIGTERM)
        run = gw.wait(timeout=30)
        self.assertEqual(run.rc, 0, run.describe())

    def started(self, lines, name):
        """A gateway started from the config file name of lines, and a
        telemetry client to it."""
        path = self.path(name)
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        gw = self.start({}, ['--config', path])
        try:
            c = self.client(gw)
        except (RuntimeError, OSError):
            self.fail('the config does not start:\n' + gw.wait(timeout=30).describe())
        return gw, c

    def test_add_del_and_config_round_trip(self):
        gw = self.start({}, opts(addrs=False))
        c = self.client(gw)
        ok = {'status': 'ok'}
        self.assertEqual(c.cmd('/fou/addr/add,tun1,%s/30' % ADDR4), ok)
        self.assertEqual(c.cmd('/fou/addr/add,gre1,%s/64' % ADDR6), ok)
        self.assertEqual(c.cmd('/fou/addr/add,gre1,10.40.0.1'), ok)
        before = ft.config_lines(c)
        for cmd, errno, want in (
                ('/fou/addr/add,tun1,fd00:41::1/64', -22, 'tunnel tun1 is ipip: it carries '
                 'IPv4 only'),
                ('/fou/addr/add,nope,192.168.41.1/30', -19, "no tunnel 'nope'"),
                ('/fou/addr/add,gre1,192.168.40.2/30', -17, 'network 192.168.40.0/30 is '
                 'already on tunnel tun1'),
                ('/fou/addr/add,gre1,%s/24' % ADDR4, -17, 'already assigned'),
                ('/fou/addr/del,gre1,%s/30' % ADDR4, -99, 'is not on tunnel gre1'),
                ('/fou/addr/del,0,%s/30' % ADDR4, -99, 'is not on port 0'),
                ('/fou/route/del,192.168.40.0/30', -1, 'comes with an address'),
                ('/fou/tunnel/add,t9,type=ipip,local=%s,remote=10.99.0.9,encap=none' % ADDR4,
                 -22, 'a tunnel\'s local must be a port\'s address')):
            r = c.cmd(cmd)
            self.assertEqual(r.get('errno'), errno, (cmd, r))
            self.assertIn(want, r['error'], cmd)
        self.assertEqual(ft.config_lines(c), before)

        addrs, _ = c.pages('/fou/addrs')
        self.assertIn({'dev': 'tun1', 'addr': ADDR4 + '/30'}, addrs)
        self.assertIn({'dev': 'gre1', 'addr': ADDR6 + '/64'}, addrs)
        self.assertIn({'dev': 0, 'addr': '10.99.0.1/24'}, addrs)
        routes, _ = c.pages('/fou/routes')
        for r in ({'prefix': ADDR4 + '/32', 'type': 'local', 'origin': 'addr'},
                  {'prefix': '192.168.40.0/30', 'type': 'tunnel', 'dev': 'tun1',
                   'origin': 'addr'},
                  {'prefix': '192.168.40.3/32', 'type': 'broadcast', 'dev': 'tun1',
                   'origin': 'addr'},
                  {'prefix': 'fd00:40::/64', 'type': 'tunnel', 'dev': 'gre1', 'origin': 'addr'},
                  {'prefix': '10.40.0.1/32', 'type': 'local', 'origin': 'addr'}):
            # an address's route is alone and in use
            self.assertIn(dict(r, metric=0, weight=1, usable=1, in_use=1), routes)

        # /fou/config: after the tunnels, before the routes; it starts the
        # same state, also read the other way round
        saved = ft.config_lines(c)
        tunnel = max(i for i, ln in enumerate(saved) if ln.startswith('tunnel = '))
        mine = [i for i, ln in enumerate(saved) if ln.startswith(('addr = tun1,', 'addr = gre1,'))]
        self.assertEqual([saved[i] for i in mine], ['addr = tun1,%s/30' % ADDR4,
                                                    'addr = gre1,%s/64' % ADDR6,
                                                    'addr = gre1,10.40.0.1/32'])
        self.assertEqual(mine, [tunnel + 1, tunnel + 2, tunnel + 3], saved)
        self.assertTrue(all(ln.startswith('route = ') for ln in saved[tunnel + 4:]), saved)
        self.stop(gw)
        gw2, c2 = self.started(saved, 'saved.conf')
        self.assertEqual(ft.config_lines(c2), saved)
        self.stop(gw2)
        # the statements of one kind come back in the order read
        gw2, c2 = self.started(list(reversed(saved)), 'reversed.conf')
        self.assertEqual(sorted(ft.config_lines(c2)), sorted(saved))
        self.stop(gw2)

        # deleted one by one, and with the tunnel
        gw3, c3 = self.started(saved, 'saved.conf')
        self.assertEqual(c3.cmd('/fou/addr/del,gre1,%s/64' % ADDR6), ok)
        self.assertEqual(c3.cmd('/fou/tunnel/del,tun1'), ok)
        addrs, _ = c3.pages('/fou/addrs')
        self.assertEqual([a for a in addrs if a['dev'] in ('tun1', 'gre1')],
                         [{'dev': 'gre1', 'addr': '10.40.0.1/32'}])
        routes, _ = c3.pages('/fou/routes')
        self.assertEqual([r for r in routes if r['prefix'].startswith(('192.168.40.',
                                                                        'fd00:40:'))], [])
        self.assertEqual([ln for ln in ft.config_lines(c3) if 'tun1' in ln or ADDR6 in ln], [])
        self.assertEqual(c3.cmd('/fou/addr/del,gre1,10.40.0.1/32'), ok)
        self.stop(gw3)


if __name__ == '__main__':
    ft.main()
