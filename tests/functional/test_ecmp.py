#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Several routes to one prefix: ECMP between tunnels by weight and metric
failover, seen on the wire. A host on port 1 sends UDP flows (one source
port each, every flow twice); the gateway routes them into three ipip FOU
tunnels to remotes on port 0:

- 172.20.0.0/16 into tA (weight 1), tB (weight 2) and tC (weight 1): every
  flow's packets leave by one tunnel with one outer source port, every
  tunnel carries flows, tB about half;
- 172.21.0.0/16 into tA (metric 10) and tB (metric 20): all into tA. The
  second run's config has no metric 10 route (as `route del ...,metric=10`
  leaves it): all into tB, and the 172.20 flows take the same tunnels as in
  the first run (the hash is the inner flow's, nothing else).

tshark decodes the outer and inner headers (which tunnel: the outer
destination; which flow: the inner UDP source port)."""
import collections
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
import test_encap as te  # noqa: E402
from test_encap import Tunnel, from_host  # noqa: E402

TUNNELS = [Tunnel('tA', 'ipip', '10.99.0.3', 'encap-dport=5555'),
           Tunnel('tB', 'ipip', '10.99.0.4', 'encap-dport=5555'),
           Tunnel('tC', 'ipip', '10.99.0.5', 'encap-dport=5555')]
BY_REMOTE = {t.remote: t.name for t in TUNNELS}
ECMP_ROUTES = ['--route', '172.20.0.0/16,dev=tA',
               '--route', '172.20.0.0/16,dev=tB,weight=2',
               '--route', '172.20.0.0/16,dev=tC']
BEST = ['--route', '172.21.0.0/16,dev=tA,metric=10']
NEXT = ['--route', '172.21.0.0/16,dev=tB,metric=20']
FLOWS = 240          # to 172.20.0.9
FAIL_FLOWS = 40      # to 172.21.0.9


def flow(dst, sport):
    return from_host(IP(src=te.H4, dst=dst, id=sport) / UDP(sport=sport, dport=7000) /
                     Raw(b'ecmp' * 4))


def frames():
    """Every flow, then every flow again."""
    one = ([flow('172.20.0.9', 10000 + i) for i in range(FLOWS)] +
           [flow('172.21.0.9', 20000 + i) for i in range(FAIL_FLOWS)])
    return one + one


class Ecmp(ft.GatewayTestCase):
    def run_flows(self, name, routes):
        """The run's {inner destination: {inner sport: (tunnel, outer sport)}}."""
        rx = {1: ft.write_pcap(self.path(name + '.pcap'), frames())}
        run = self.run_gw(rx, te.tunnel_opts(TUNNELS) + routes)
        n = 2 * (FLOWS + FAIL_FLOWS)
        self.assertCounters(run, rx={0: 0, 1: n}, tx={0: n, 1: 0}, drops={}, decap=[], icmp={},
                            fou_ports={})
        self.assertEqual(ft.tshark_problems(run.outputs[0]), [])
        rows = ft.tshark_fields(run.outputs[0], ['ip.dst', 'udp.srcport'],
                                fou_ports=ft.FOU_LUA_PORTS)
        self.assertEqual(len(rows), n)
        seen = collections.defaultdict(dict)
        for r in rows:
            (outer, inner), (osport, isport) = r['ip.dst'], r['udp.srcport']
            self.assertIn(outer, BY_REMOTE)
            got = (BY_REMOTE[outer], osport)
            # a flow sent twice leaves by the same tunnel, from the same port
            self.assertEqual(seen[inner].setdefault(isport, got), got,
                             'flow %s:%s moved' % (inner, isport))
        self.assertEqual({d: len(f) for d, f in seen.items()},
                         {'172.20.0.9': FLOWS, '172.21.0.9': FAIL_FLOWS})
        return seen

    def test_ecmp_and_metric_failover(self):
        first = self.run_flows('best', ECMP_ROUTES + BEST + NEXT)
        share = collections.Counter(t for t, _ in first['172.20.0.9'].values())
        # weights 1:2:1 of 240 flows: 60, 120, 60 (a hash: near, not exact)
        self.assertEqual(set(share), {'tA', 'tB', 'tC'}, share)
        self.assertTrue(90 <= share['tB'] <= 150, share)
        self.assertTrue(35 <= share['tA'] <= 85 and 35 <= share['tC'] <= 85, share)
        self.assertEqual({t for t, _ in first['172.21.0.9'].values()}, {'tA'})

        second = self.run_flows('next', ECMP_ROUTES + NEXT)
        self.assertEqual({t for t, _ in second['172.21.0.9'].values()}, {'tB'})
        # the same flows, the same choices: only the inner flow decides
        self.assertEqual(first['172.20.0.9'], second['172.20.0.9'])


if __name__ == '__main__':
    ft.main()
