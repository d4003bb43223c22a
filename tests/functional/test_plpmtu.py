#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Path MTU probing without ICMP (RFC 8899), through a scripted peer.

The gateway runs in a network namespace of the test's own on two net_tap
ports: port 0 (fou-pl0, 192.168.1.1/24) is the underlay to the peer, port 1
(fou-pl1, 10.99.0.1/24, fd00:99::1/64) is where inner senders sit. The peer
is a scapy script on fou-pl0's kernel side that answers as a forwarding
Linux peer does: a probe (inner UDP 3785, from the gateway's tunnel address
to itself) comes back in the same tunnel, the inner packet as it was with
its TTL / hop limit one less (254), while the path drops, without a word,
every outer packet over a size: 1400 bytes to 192.168.1.2 (t1: ipip over
FOU, pmtudisc), 1350 to 192.168.1.3 (t2: sit over FOU, nopmtudisc, IPv6
inside: its probes get DF only because the gateway sets it).

- Both searches end at exactly those sizes: `probed_mtu` and the tunnel
  `mtu` in /fou/tunnels, `mtu_search` search_complete.
- Every MTU probe left with DF (tshark on fou-pl0), the sit tunnel's too.
- A DF IPv4 packet one byte over t1's new MTU gets fragmentation needed
  quoting 1372 (tshark on fou-pl1); an IPv6 one over t2's (nopmtudisc: the
  port's MTU bounds what leaves without DF) leaves in two outer fragments
  of at most 1350 bytes (tshark on fou-pl0), as for an ICMP-learnt MTU.
- The port's MTU lowered to 1380: a new search, which ends at the port's
  MTU for t1; /fou/tunnel/mtu_probe,t1 searches again and ends where the
  path is.
- The gateway exits balanced, every mbuf back.

Timing: probes every 300 ms; each failing size costs 3 of them, so a
search takes a few seconds; the waits allow generous slack.
"""
import os
import signal
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402

TAP0, TAP1 = 'fou-pl0', 'fou-pl1'
MAC_PEER = '02:00:00:00:00:02'
MAC_SENDER = '02:00:00:00:99:02'
HOLE = {'192.168.1.2': 1400, '192.168.1.3': 1350}
WAIT = 60

OPTS = [
    '--link', '0,address=' + ft.MAC_P0,
    '--link', '1,address=' + ft.MAC_P1,
    '--addr', '0,192.168.1.1/24',
    '--addr', '1,10.99.0.1/24',
    '--addr', '1,fd00:99::1/64',
    '--port', '5555:ipip',
    '--port', '5557:sit',
    '--neigh', '192.168.1.2,dev=0,lladdr=' + MAC_PEER,
    '--neigh', '192.168.1.3,dev=0,lladdr=' + MAC_PEER,
    '--neigh', '10.99.0.2,dev=1,lladdr=' + MAC_SENDER,
    '--neigh', 'fd00:99::2,dev=1,lladdr=' + MAC_SENDER,
    '--tunnel', 't1,type=ipip,local=192.168.1.1,remote=192.168.1.2,encap-sport=4242,'
                'encap-dport=5555,probe=on,interval=300',
    '--tunnel', 't2,type=sit,local=192.168.1.1,remote=192.168.1.3,encap-sport=4243,'
                'encap-dport=5557,nopmtudisc,probe=on,interval=300',
    '--addr', 't1,10.255.1.1/30',
    '--addr', 't2,fd00:ff::1/64',
    '--route', '10.50.0.0/16,dev=t1',
    '--route', 'fd00:50::/32,dev=t2',
]

# The peer: what a forwarding Linux FOU peer sends back, over a path that
# drops outer packets over the sizes given.
PEER = r'''
import sys
from scapy.config import conf
from scapy.sendrecv import AsyncSniffer
from scapy.packet import Raw
from scapy.layers.l2 import Ether
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6

iface, mac_gw, mac_peer = sys.argv[1:4]
hole = {a: int(n) for a, n in (x.split('=') for x in sys.argv[4:])}
out = conf.L2socket(iface=iface)


def answer(f):
    if Ether not in f or f[Ether].dst != mac_peer or IP not in f or UDP not in f:
        return
    ip, udp = f[IP], f[UDP]
    if ip.dst not in hole or ip.len > hole[ip.dst]:
        return
    inner = bytes(udp.payload)
    i = IP(inner) if inner[0] >> 4 == 4 else IPv6(inner)
    if UDP not in i or i[UDP].dport != 3785 or i.src != i.dst:
        return
    if IP in i:
        i.ttl -= 1
        del i.chksum
    else:
        i.hlim -= 1
    out.send(Ether(src=mac_peer, dst=mac_gw) /
             IP(src=ip.dst, dst=ip.src, flags='DF', ttl=64) /
             UDP(sport=udp.sport, dport=udp.dport, chksum=0) / Raw(bytes(i)))


s = AsyncSniffer(iface=iface, prn=answer, store=False,
                 started_callback=lambda: print('ready', flush=True))
s.start()
s.join()
'''


class Plpmtu(ft.NetnsTestCase):
    NS_TAG = 'pl'

    def setUp(self):
        super().setUp()
        self.peer = None

    def tearDown(self):
        if self.peer is not None:
            if self.peer.poll() is None:
                self.peer.kill()
            self.peer.communicate()
        super().tearDown()

    def start_gw(self):
        gw = self.ns.gateway(self.tmp, (TAP0, TAP1), OPTS)
        self._gateways.append(gw)
        if not ft.wait_for(lambda: gw.running() and gw.telemetry('/fou/stats'), WAIT, 0.2):
            self.fail('the gateway did not come up\n' + gw.stop().describe())
        self.client = ft.TelemetryClient(gw.prefix)
        for tap in (TAP0, TAP1):
            self.ns.run(['ip', 'link', 'set', tap, 'up'])
        return gw

    def start_peer(self):
        path = self.path('peer.py')
        with open(path, 'w') as f:
            f.write(PEER)
        self.peer = subprocess.Popen(
            self.ns.cmd([ft.PYTHON, path, TAP0, ft.MAC_P0, MAC_PEER] +
                        ['%s=%d' % kv for kv in HOLE.items()]),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.peer.stdout.readline()
        self.assertEqual(line.strip(), 'ready', 'the peer did not start: ' +
                         (self.peer.stderr.read() if self.peer.poll() is not None else ''))

    def tunnels(self):
        entries, _ = self.client.pages('/fou/tunnels')
        return {e['name']: e for e in entries}

    def searched(self, name, mtu):
        """Wait for tunnel name's search to end at mtu; its entry."""
        def done():
            t = self.tunnels()[name]
            return t if t['mtu_search'] == 'search_complete' and \
                t['probed_mtu'] == mtu else None
        t = ft.wait_for(done, WAIT, 0.2)
        self.assertIsNotNone(t, '%s: not searched to %d: %s' % (name, mtu, self.tunnels()[name]))
        return t

    def test_search_black_hole_then_icmp_quotes_it(self):
        gw = self.start_gw()
        under = self.capture(TAP0, 'under.pcap')
        self.start_peer()
        t1 = self.searched('t1', 1400)
        t2 = self.searched('t2', 1350)
        self.assertEqual((t1['mtu'], t1['path_mtu']), (1400 - 28, 0))
        self.assertEqual((t2['mtu'], t2['path_mtu']), (1350 - 28, 0))
        self.assertEqual((t1['health'], t2['health']), ('up', 'up'))
        path = self.stop_capture(under)

        # every MTU probe (the echo probes are under 200 bytes, the MTU
        # probes 1200 and more) left with DF, the nopmtudisc sit's too; sizes
        # over the hole were among them
        rows = ft.tshark_fields(path, ['ip.src', 'ip.dst', 'ip.len', 'ip.flags.df',
                                       'udp.dstport'], checksums=False)
        sent = [(r['ip.dst'][0], int(r['ip.len'][0]), r['ip.flags.df'][0]) for r in rows
                if r['ip.src'] and r['ip.src'][0] == '192.168.1.1']
        for dst in HOLE:
            mine = [s for s in sent if s[0] == dst and s[1] >= 552]
            self.assertTrue(mine, 'no probes to %s' % dst)
            self.assertEqual({s[2] for s in mine}, {'1'}, 'a probe to %s without DF' % dst)
            self.assertIn(HOLE[dst], {s[1] for s in mine})
            self.assertIn(HOLE[dst] + 1, {s[1] for s in mine})
            self.assertIn(1500, {s[1] for s in mine})

        # an inner sender one byte over t1's new MTU hears of it; t2 sends
        # IPv6 without DF (nopmtudisc): the port's MTU bounds it, and the
        # outer packet is cut to the probed MTU on its way (as to an ICMP one)
        cap = self.capture(TAP1, 'errors.pcap')
        under = self.capture(TAP0, 'frags.pcap')
        big4 = Ether(src=MAC_SENDER, dst=ft.MAC_P1) / \
            IP(src='10.99.0.2', dst='10.50.0.9', flags='DF', ttl=64) / \
            UDP(sport=7000, dport=7001) / Raw(b'x' * (1373 - 28))
        big6 = Ether(src=MAC_SENDER, dst=ft.MAC_P1) / \
            IPv6(src='fd00:99::2', dst='fd00:50::9', hlim=64) / \
            UDP(sport=7000, dport=7001) / Raw(b'y' * (1323 - 48))
        self.send(TAP1, [big4, big6], 'big.pcap')
        path = self.stop_capture(cap)
        rows = ft.tshark_fields(path, ['icmp.type', 'icmp.code', 'icmp.mtu', 'icmpv6.type'])
        self.assertEqual([(r['icmp.type'][0], r['icmp.code'][0], r['icmp.mtu'][0])
                          for r in rows if r['icmp.type']], [('3', '4', '1372')])
        self.assertEqual([r for r in rows if r['icmpv6.type']], [])
        path = self.stop_capture(under)
        rows = ft.tshark_fields(path, ['ip.dst', 'ip.len', 'ip.flags.mf', 'ip.frag_offset'],
                                checksums=False, prefs=('-o', 'ip.defragment:FALSE'))
        frags = [(int(r['ip.len'][0]), r['ip.flags.mf'][0], int(r['ip.frag_offset'][0]))
                 for r in rows if r['ip.dst'] == ['192.168.1.3'] and
                 (r['ip.flags.mf'] == ['1'] or r['ip.frag_offset'] != ['0'])]
        self.assertEqual(len(frags), 2, frags)
        self.assertEqual([f[1] for f in frags], ['1', '0'])
        self.assertTrue(all(f[0] <= 1350 for f in frags), frags)
        self.assertEqual(sum(f[0] - 20 for f in frags), 1323 + 28 - 20)

        # the underlay changed: t1 searches again, up to the port's new MTU
        self.assertEqual(self.client.cmd('/fou/link/set,0,mtu=1380'), {'status': 'ok'})
        self.searched('t1', 1380)
        self.assertEqual(self.tunnels()['t1']['mtu'], 1380 - 28)
        self.assertEqual(self.client.cmd('/fou/link/set,0,mtu=1500'), {'status': 'ok'})
        self.searched('t1', 1400)
        # on demand: again, to where the path is
        self.assertEqual(self.client.cmd('/fou/tunnel/mtu_probe,t1'), {'status': 'ok'})
        self.assertNotEqual(self.tunnels()['t1']['mtu_search'], 'search_complete')
        self.assertEqual(self.tunnels()['t1']['probed_mtu'], 1400)
        self.searched('t1', 1400)

        self.client.close()
        self.client = None
        gw.signal(signal.SIGINT)
        self.assertHealthy(gw.wait())


if __name__ == '__main__':
    ft.main()
