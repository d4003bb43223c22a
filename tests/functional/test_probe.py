#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tunnel health: echo probes through the peer, answered by scapy.

The gateway runs in a network namespace of its own on one net_tap port
(fou-pr0, 10.99.0.1/24) with two FOU tunnels that probe every 300 ms:
tA to 10.99.0.2 (172.16.0.1/30 on it) and tB to 10.99.0.3 (172.16.1.1/30).
A scapy responder on the kernel's side of the tap plays both peers from
what the gateway sends:

- tA's peer forwards as Linux does: the same inner packet back into the
  tunnel with TTL 254, twice (the second is a replay), except every fourth
  probe, which it loses;
- tB's peer only ever sends forged replies, each from the probe it got:
  a sequence number never sent, another token, TTL 255 (not through a
  router), tA's tunnel index, a bad magic.

Checked through telemetry (/fou/tunnel/health, /fou/tunnels): tA up with an
RTT, its losses and the replays counted; tB unknown, never up, every
forgery counted under its reason. Then tA's peer falls silent: tA goes down
(3 probes unanswered); it answers again: up again.

192.168.50.0/24 is routed into tA (metric 0) and tB (metric 10): traffic
sent while tA is up leaves through tA, while it is down through tB (tB,
never answered, is unknown: usable), and through tA again once it is up;
the capture shows every packet of each phase in its tunnel, none lost. The probes' format is
checked with tshark on a capture of the tap (outer FOU to port 5555, inner
UDP 3785 -> 3785 from the tunnel address to itself, TTL 255, DF, payload
FOUP v1 echo, checksums), and the gateway's exit summary is balanced.

Timing: the responder answers within milliseconds; a reply later than the
300 ms interval only counts as lost, and the waits allow generous slack.
"""
import os
import signal
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402

TAP = 'fou-pr0'
MAC_B = '02:00:0a:63:00:03'
WAIT = 30

OPTS = [
    '--link', '0,address=' + ft.MAC_P0,
    '--addr', '0,10.99.0.1/24',
    '--neigh', '10.99.0.2,dev=0,lladdr=' + ft.MAC_PEER,
    '--neigh', '10.99.0.3,dev=0,lladdr=' + MAC_B,
    '--port', '5555:ipip',
    '--tunnel', 'tA,type=ipip,local=10.99.0.1,remote=10.99.0.2,encap-dport=5555,'
    'probe=on,interval=300,timeout=3',
    '--tunnel', 'tB,type=ipip,local=10.99.0.1,remote=10.99.0.3,encap-dport=5555,'
    'probe=on,interval=300',
    '--addr', 'tA,172.16.0.1/30',
    '--addr', 'tB,172.16.1.1/30',
    '--route', '192.168.50.0/24,dev=tA,metric=0',
    '--route', '192.168.50.0/24,dev=tB,metric=10',
]
PHASE_PKTS = 20

# The peers, in the namespace: argv iface, mode (answer: tA's peer forwards;
# silent: it does not), the gateway's MAC. tB's peer forges in both modes.
RESPONDER = r'''
import struct, sys
from scapy.all import conf, sniff, Ether, IP, UDP, Raw
iface, mode, gw_mac = sys.argv[1], sys.argv[2], sys.argv[3]
PEERS = {'10.99.0.2': ('%s', 'forward'), '10.99.0.3': ('%s', 'forge')}
sock = conf.L2socket(iface=iface)

def back(p, mac, inner, ttl):
    inner[8] = ttl
    ip = IP(bytes(inner))
    ip.chksum = None
    ip[UDP].chksum = None
    return (Ether(src=mac, dst=gw_mac) / IP(src=p[IP].dst, dst=p[IP].src, ttl=64) /
            UDP(sport=40000, dport=5555, chksum=0) / Raw(bytes(ip)))

def answer(p):
    if (Ether not in p or p[Ether].src != gw_mac or IP not in p or UDP not in p or
            p[UDP].dport != 5555 or p[IP].dst not in PEERS):
        return
    mac, kind = PEERS[p[IP].dst]
    inner = bytearray(bytes(p[UDP].payload))
    if len(inner) < 60 or inner[28:32] != b'FOUP':
        return
    seq = struct.unpack('!I', inner[40:44])[0]
    if kind == 'forward':
        if mode == 'silent' or seq %% 4 == 0:
            return
        f = back(p, mac, inner, 254)
        sock.send(f)
        sock.send(f)           # the same again: a replay
        return
    v = seq %% 5
    ttl = 254
    if v == 0:
        inner[40:44] = struct.pack('!I', seq + 1000)
    elif v == 1:
        inner[52] ^= 1         # the token
    elif v == 2:
        ttl = 255              # not through a router
    elif v == 3:
        inner[36:40] = struct.pack('!I', 0)    # tA's index
    else:
        inner[28] = ord('X')   # the magic
    sock.send(back(p, mac, inner, ttl))

sniff(iface=iface, prn=answer, store=False, filter='udp dst port 5555')
''' % (ft.MAC_PEER, MAC_B)


class Probe(ft.NetnsTestCase):
    NS_TAG = 'pr'

    def setUp(self):
        super().setUp()
        self.gw = None
        self.responder = None

    def tearDown(self):
        self.stop_responder()
        super().tearDown()

    def start_gw(self):
        self.gw = self.ns.gateway(self.tmp, (TAP,), OPTS)
        self._gateways.append(self.gw)
        self.client = ft.TelemetryClient(self.gw.prefix)
        self.ns.run(['ip', 'link', 'set', TAP, 'up'])

    def start_responder(self, mode):
        self.stop_responder()
        self.responder = subprocess.Popen(
            self.ns.cmd([ft.PYTHON, '-c', RESPONDER, TAP, mode, ft.MAC_P0]),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def stop_responder(self):
        if self.responder is None:
            return
        self.responder.terminate()     # ip netns exec became the python
        self.responder.wait(timeout=WAIT)
        self.responder.stderr.close()
        self.responder = None

    def send_phase(self, phase):
        """PHASE_PKTS packets to 192.168.50.1 from the peer's side, their
        payload saying the phase: routed into the best usable tunnel."""
        frames = [ft.Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) /
                  ft.IP(src='10.99.0.9', dst='192.168.50.1') /
                  ft.UDP(sport=30000 + i, dport=9999) / ft.Raw(b'phase%d-%03d' % (phase, i))
                  for i in range(PHASE_PKTS)]
        path = ft.write_pcap(self.path('phase%d.pcap' % phase), frames)
        self.ns.run([ft.PYTHON, '-c', 'import sys\nfrom scapy.all import rdpcap, sendp\n'
                     'sendp(rdpcap(sys.argv[1]), iface=sys.argv[2], verbose=0)', path, TAP])
        want = PHASE_PKTS * phase

        def forwarded():
            # what the tunnels sent but their probes, echo and MTU probes
            # (read after: never more)
            tx = sum(t['tx_packets'] for t in self.client.pages('/fou/tunnels')[0])
            return tx - self.client.cmd('/fou/stats')['local']['probes_out'] >= want
        if not ft.wait_for(forwarded, WAIT, 0.1):
            self.fail('phase %d: not forwarded' % phase)

    def captured(self, mark):
        """Frames of the tap's capture so far that hold mark."""
        try:
            return sum(mark in f for f in ft.read_frames(self.path('tap.pcap')))
        except Exception:       # a record half written
            return 0

    def health(self, name):
        return self.client.cmd('/fou/tunnel/health,' + name)

    def wait_health(self, name, pred, what):
        last = {}

        def ok():
            last.update(self.health(name))
            return pred(last)
        if not ft.wait_for(ok, WAIT, 0.2):
            self.fail('%s: %s never held: %s' % (name, what, last))
        return last

    def test_probes_through_the_peer(self):
        self.start_gw()
        cap, why = self.ns.dumpcap(TAP, self.path('tap.pcap'), WAIT)
        self.assertIsNotNone(cap, 'dumpcap did not start: %s' % why)
        before = self.health('tA')
        self.assertEqual(before['state'], 'unknown', before)
        self.assertEqual(before['probing_ipv4'], 1)
        self.assertEqual(before['interval_ms'], 300)
        self.assertEqual(before['timeout'], 3)

        # tA's peer forwards (but every fourth), tB's forges
        self.start_responder('answer')
        a = self.wait_health('tA', lambda h: h['state'] == 'up' and h['received'] >= 6 and
                             h['lost'] >= 1 and h['replayed'] >= 1, 'up, answered, lost')
        self.assertGreater(a['rtt_min_us'], 0, a)
        self.assertLessEqual(a['rtt_min_us'], a['rtt_last_us'] + a['rtt_avg_us'], a)
        self.assertGreaterEqual(a['loss_window_lost'], 1, a)
        self.assertLess(a['loss_window_lost'], a['loss_window'], a)
        self.assertEqual(a['forged'] + a['wrong_tunnel'] + a['bad_ttl'], 0, a)
        b = self.wait_health('tB', lambda h: h['forged'] >= 4 and h['bad_ttl'] >= 1 and
                             h['wrong_tunnel'] >= 1, 'forgeries counted')
        self.assertEqual(b['state'], 'unknown', b)
        self.assertEqual((b['received'], b['transitions']), (0, 0), b)
        tunnels = {t['name']: t['health'] for t in self.client.pages('/fou/tunnels')[0]}
        self.assertEqual(tunnels, {'tA': 'up', 'tB': 'unknown'})
        self.send_phase(1)

        # tA's peer falls silent: down after 3 unanswered; back: up (once
        # unknown -> up so far, unless a busy machine delayed 3 replies)
        changes = self.health('tA')['transitions']
        self.assertGreaterEqual(changes, 1)
        self.start_responder('silent')
        a = self.wait_health('tA', lambda h: h['state'] == 'down', 'down')
        self.assertGreaterEqual(a['unanswered'], 3, a)
        self.assertEqual(a['transitions'], changes + 1, a)
        self.send_phase(2)
        self.start_responder('answer')
        a = self.wait_health('tA', lambda h: h['state'] == 'up' and
                             h['transitions'] >= changes + 2, 'up again')
        self.send_phase(3)
        b = self.health('tB')
        self.assertEqual((b['state'], b['received'], b['transitions']), ('unknown', 0, 0), b)
        self.stop_responder()
        stats = self.client.cmd('/fou/stats')
        self.assertGreater(stats['local']['probes_in'], 0)
        self.assertEqual(stats['drops'].get('probe_ring_full', 0), 0)

        # the last phase's packets left the gateway: in the capture before it ends
        if not ft.wait_for(lambda: self.captured(b'phase3-') >= PHASE_PKTS, WAIT, 0.2):
            self.fail('dumpcap never wrote phase 3: %d' % self.captured(b'phase3-'))
        cap.send_signal(signal.SIGINT)
        cap.wait(timeout=WAIT)
        cap.stderr.close()
        self.client.close()
        self.client = None
        self.gw.signal(signal.SIGINT)
        self.assertHealthy(self.gw.wait())
        self.check_format(self.path('tap.pcap'))
        self.check_failover(self.path('tap.pcap'))

    def check_failover(self, path):
        """Each phase's packets, all of them, in one tunnel: tA, tB, tA."""
        rows = ft.tshark_fields(path, ['ip.dst', 'udp.dstport', 'udp.payload'],
                                fou_ports='5555:4')
        seen = {}
        for r in rows:
            if len(r['ip.dst']) != 2 or r['udp.dstport'][-1] != '9999':
                continue
            text = bytes.fromhex(r['udp.payload'][-1].replace(':', '')).decode()
            seen.setdefault(int(text[5]), []).append((r['ip.dst'][0], text))
        for phase, remote in ((1, '10.99.0.2'), (2, '10.99.0.3'), (3, '10.99.0.2')):
            got = seen.get(phase, [])
            self.assertEqual(sorted(t for _, t in got),
                             ['phase%d-%03d' % (phase, i) for i in range(PHASE_PKTS)], seen)
            self.assertEqual({r for r, _ in got}, {remote}, (phase, got))

    def check_format(self, path):
        """The probes the gateway sent, as tshark decodes them."""
        rows = ft.tshark_fields(path, ['eth.src', 'ip.src', 'ip.dst', 'ip.ttl', 'ip.flags.df',
                                       'udp.srcport', 'udp.dstport', 'udp.payload',
                                       'ip.checksum.status', 'udp.checksum.status'],
                                fou_ports='5555:4')
        seen = {}
        for r in rows:
            if r['eth.src'] != [ft.MAC_P0] or r['udp.dstport'][-1:] != ['3785']:
                continue        # not a probe (the gateway's ARP, the traffic)
            ctx = str(r)
            if r['udp.payload'][-1].replace(':', '').startswith(b'FOUP'.hex() + '0102'):
                continue        # tA's path MTU search (test_plpmtu.py)
            self.assertEqual(len(r['ip.src']), 2, ctx)     # outer, inner
            self.assertEqual(r['ip.src'][0], '10.99.0.1', ctx)
            self.assertEqual(r['udp.dstport'][0], '5555', ctx)
            inner = r['ip.src'][1]
            self.assertIn(inner, ('172.16.0.1', '172.16.1.1'), ctx)
            self.assertEqual(r['ip.dst'][1], inner, ctx)
            self.assertEqual(r['ip.dst'][0], '10.99.0.2' if inner == '172.16.0.1' else
                             '10.99.0.3', ctx)
            self.assertEqual(r['ip.ttl'][1], '255', ctx)
            self.assertIn(r['ip.flags.df'][1], ('1', 'True'), ctx)
            self.assertEqual((r['udp.srcport'][1], r['udp.dstport'][1]), ('3785', '3785'), ctx)
            payload = r['udp.payload'][-1].replace(':', '')
            # FOUP, version 1, kind 1 (echo), reserved 0, the tunnel's index
            self.assertTrue(payload.startswith(b'FOUP'.hex() + '01010000'), ctx)
            self.assertEqual(int(payload[16:24], 16), 0 if inner == '172.16.0.1' else 1, ctx)
            self.assertEqual(len(payload), 2 * 32, ctx)
            self.assertEqual(r['ip.checksum.status'], ['1', '1'], ctx)
            self.assertEqual(r['udp.checksum.status'][-1], '1', ctx)
            seen[inner] = seen.get(inner, 0) + 1
        self.assertGreaterEqual(seen.get('172.16.0.1', 0), 10, seen)
        self.assertGreaterEqual(seen.get('172.16.1.1', 0), 10, seen)


if __name__ == '__main__':
    ft.main()
