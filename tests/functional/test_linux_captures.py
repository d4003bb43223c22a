#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Case 1: the Linux 6.1 FOU captures of tests/data (ipip, gre, sit; UDP
checksum off and on) through the gateway. Each capture has 9 FOU packets to
10.99.0.1, forwarded out of port 1 to the next hop of their inner network,
and 2 ICMP errors to 10.99.0.3, another host: a router forwards them, and
10.99.0.0/24 is connected on port 0 without a neighbour 10.99.0.3, so they
wait while the gateway asks for 10.99.0.3 with ARP, as Linux queues them;
nobody answers here, and the gateway stops before the third second that
would fail the resolution: they are dropped as neigh_stopped."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402

# inner network of each capture -> (FOU port, next hop MAC)
NEXT_HOP = {'ipip': (5555, ft.MAC_NH_IPIP), 'gre': (5556, ft.MAC_NH_GRE),
            'sit': (5557, ft.MAC_NH_SIT)}


def capture_traffic(name):
    """What the gateway must do with each frame of a Linux capture."""
    udp_port, nh_mac = NEXT_HOP[name.split('-')[0]]
    t = ft.Traffic()
    for i, frame in enumerate(ft.read_frames(ft.linux_capture(name))):
        pkt = Ether(frame)
        if pkt[IP].dst == ft.IP_P0:
            assert pkt[UDP].dport == udp_port, (name, i)
            t.fwd('%s #%d' % (name, i + 1), frame, 1, nh_mac)
        else:
            t.drop('%s #%d' % (name, i + 1), frame, 'neigh_stopped', plain=True)
    return t


class LinuxCaptures(ft.GatewayTestCase):
    def check_capture(self, name):
        t = capture_traffic(name)
        # what tests/data/README.md says the capture holds
        self.assertEqual(len(t.out(1)), 9)
        self.assertEqual(t.drops(), {'neigh_stopped': 2})
        run = self.run_gw({0: ft.linux_capture(name)}, ft.BASE_OPTS)
        self.assertTraffic(run, t, port_macs={0: ft.MAC_P0, 1: ft.MAC_P1})
        self.assertEqual(run.summary.drops, {'neigh_stopped': 2})
        # besides the forwarded packets: the announcements, and the
        # requests for 10.99.0.3 on port 0
        self.assertNeighOut(run, 0, ft.MAC_P0, ft.BASE_ANNOUNCE[0],
                            resolve={'10.99.0.3': ft.IP_P0})
        self.assertNeighOut(run, 1, ft.MAC_P1, ft.BASE_ANNOUNCE[1])
        self.assertEqual(run.summary.tx, {0: len(run.own[0]), 1: 9 + 2})
        self.assertEqual(run.summary.local['neigh_queued'], 2)


def _add(name):
    setattr(LinuxCaptures, 'test_' + name.replace('-', '_'),
            lambda self: self.check_capture(name))


for _name in ft.LINUX_CAPTURES:
    _add(_name)

if __name__ == '__main__':
    ft.main()
