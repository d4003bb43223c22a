#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""ARP and the neighbour table, against a real Linux kernel as the neighbour.

The gateway runs in a network namespace of its own on two net_tap ports:
port 0 (fou-nb0, 10.99.0.1/24) is where the test injects traffic, port 1
(fou-nb1, 192.168.1.1/24) is shared with the namespace's kernel, which holds
192.168.1.2/24 on its side of the tap and answers and asks ARP as Linux does.
Frames are built with scapy, captured on the kernel's side with dumpcap and
decoded with tshark; the gateway is watched through telemetry (/fou/neighs,
/fou/stats, /fou/neigh/flush) and ends with SIGINT, its summary balanced and
every mbuf back in every run.

- ARP requests for the port's address are answered from its MAC, with the
  right fields; one for another host is not (arp_not_ours); the kernel
  resolving the gateway on its own finds the port's MAC.
- Packets forwarded to the kernel's address with no static neighbour: the
  gateway asks, the kernel answers, the packets arrive, and the kernel has
  learnt the gateway from its request. While the kernel does not answer
  (its ARP off) the packets wait: at most 101 (the oldest dropped as
  neigh_queue_full), then leave in order once it answers.
- No answer at all: three broadcast requests a second apart, then the
  entry is FAILED and what waited is dropped (neigh_failed).
- The control thread logs the resolution and the failure (fou.neigh at
  DEBUG, --log-level=fou.neigh:debug).
- A static entry keeps its MAC whatever ARP says; /fou/neighs shows each
  entry's state; /fou/neigh/flush drops the learnt ones, keeps the static.
- An ARP flood from thousands of random senders cannot grow the table past
  its maximum (4096) nor push a static entry out, and forwarding goes on.

Timing: the gateway's control thread runs every millisecond and resolution
times are seconds; the checks allow generous slack (behaviour, not speed).
"""
import os
import random
import signal
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether, ARP  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402

TAP0, TAP1 = 'fou-nb0', 'fou-nb1'
KERNEL_IP = '192.168.1.2'
GW_IP = '192.168.1.1'
STATIC_IP, STATIC_MAC = '192.168.1.7', '02:00:00:00:01:07'
MAX_NEIGHS = 4096
WAIT = 30

OPTS = [
    '--link', '0,address=' + ft.MAC_P0,
    '--link', '1,address=' + ft.MAC_P1,
    '--addr', '0,10.99.0.1/24',
    '--addr', '1,192.168.1.1/24',
    '--neigh', '10.99.0.2,dev=0,lladdr=' + ft.MAC_PEER,
    '--neigh', '%s,dev=1,lladdr=%s' % (STATIC_IP, STATIC_MAC),
]



def to_kernel(i, dst=KERNEL_IP):
    """Packet i from the peer's side, routed by the gateway to dst on port 1;
    its UDP source port and payload say which it is."""
    return Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) / \
        IP(src='10.99.0.2', dst=dst, id=i) / UDP(sport=20000 + i, dport=9999) / \
        Raw(b'neigh test %05d' % i)


def arp_frame(op, sha, sip, tip, dst='ff:ff:ff:ff:ff:ff', tha='00:00:00:00:00:00'):
    return Ether(src=sha, dst=dst) / ARP(op=op, hwsrc=sha, psrc=sip, hwdst=tha, pdst=tip)


class Neigh(ft.NetnsTestCase):
    NS_TAG = 'nb'

    def setUp(self):
        super().setUp()
        self.gw = None

    def close_client(self):
        if self.client is not None:
            self.client.close()
            self.client = None

    # -- the gateway, the kernel, captures

    def start_gw(self, opts=OPTS):
        def make_cmd(prefix):
            cmd = [ft.Config.gateway, '-l', '0-1', '--no-huge', '-m', '512', '--no-pci',
                   '--file-prefix', prefix, '--log-level=lib.eal:warning',
                   '--log-level=pmd.net.tap:error', '--log-level=fou.neigh:debug',
                   '--vdev', 'net_tap0,iface=' + TAP0, '--vdev', 'net_tap1,iface=' + TAP1,
                   '--'] + list(opts)
            return self.ns.cmd(cmd), {}
        self.gw = ft.Gateway(self.tmp, None, 0, opts, make_cmd=make_cmd)
        self._gateways.append(self.gw)
        if not ft.wait_for(lambda: self.gw.running() and self.tel('/fou/stats'), WAIT, 0.2):
            self.fail('the gateway did not come up\n' + self.gw.stop().describe())
        self.client = ft.TelemetryClient(self.gw.prefix)
        # the kernel's side of port 1
        self.ns.run(['ip', 'addr', 'add', KERNEL_IP + '/24', 'dev', TAP1])
        self.ns.run(['ip', 'link', 'set', TAP1, 'up'])
        self.kernel_mac = self.ns.out(['cat', '/sys/class/net/%s/address' % TAP1]).strip()
        return self.gw

    def tel(self, cmd):
        """One command, through the connection kept open once the gateway
        is up: a dpdk-telemetry.py process per command takes 0.1-0.5 s, and
        test_queued_until_the_kernel_answers_then_in_order has to look at
        the queue and turn the kernel's ARP on within the two seconds
        between the gateway's first request and its last."""
        if self.client is not None:
            return self.client.cmd(cmd)
        r = self.gw.telemetry(cmd)
        return None if r is None else r[0].get(cmd.split(',')[0])

    def stats(self):
        return self.tel('/fou/stats')

    def neighs(self):
        """/fou/neighs, every page: {ip: entry}."""
        out, offset = {}, 0
        while True:
            page = self.tel('/fou/neighs,offset=%d' % offset)
            self.assertIsNotNone(page)
            entries = [v for k, v in page.items() if k.isdigit()]
            for e in entries:
                out[e['ip']] = e
            offset += len(entries)
            if not entries or offset >= page['count']:
                return out

    def neigh_count(self):
        return self.tel('/fou/neighs')['count']

    def kernel_arp(self, on):
        """The kernel answers ARP on its side of port 1, or not (NOARP)."""
        self.ns.run(['ip', 'link', 'set', 'dev', TAP1, 'arp', 'on' if on else 'off'])

    def stop_gw(self):
        self.close_client()
        self.gw.signal(signal.SIGINT)
        run = self.gw.wait()
        self.assertHealthy(run)
        return run

    def decode(self, path):
        """Every frame of a capture: ARP as (op, sha, sip, tha, tip, eth dst),
        IPv4 as ('ip', eth src, eth dst, ip dst, udp sport)."""
        rows = ft.tshark_fields(path, ['frame.time_relative', 'eth.src', 'eth.dst',
                                       'arp.opcode', 'arp.src.hw_mac', 'arp.src.proto_ipv4',
                                       'arp.dst.hw_mac', 'arp.dst.proto_ipv4', 'ip.dst',
                                       'udp.srcport', 'ip.checksum.status'])
        out = []
        for r in rows:
            one = {k: (v[0] if v else None) for k, v in r.items()}
            t = float(one['frame.time_relative'])
            if one['arp.opcode']:
                out.append((t, 'arp', int(one['arp.opcode']), one['arp.src.hw_mac'],
                            one['arp.src.proto_ipv4'], one['arp.dst.hw_mac'],
                            one['arp.dst.proto_ipv4'], one['eth.dst']))
            elif one['ip.dst']:
                out.append((t, 'ip', one['eth.src'], one['eth.dst'], one['ip.dst'],
                            int(one['udp.srcport']) if one['udp.srcport'] else None,
                            one['ip.checksum.status']))
        return out

    def arrived(self, frames, dst=KERNEL_IP):
        """The packet numbers of to_kernel() packets to dst, in capture order."""
        return [f[5] - 20000 for f in frames if f[1] == 'ip' and f[4] == dst]

    # -- the cases

    def test_arp_requests_answered_for_our_address_only(self):
        """A request for 192.168.1.1 gets the reply arp_process sends: from
        the port's MAC to the asker's, sender and target swapped. One for
        another host gets nothing. The kernel, resolving the gateway on its
        own, gets the same answer (ip neigh: the port's MAC, REACHABLE)."""
        self.start_gw()
        cap = self.capture(TAP1, 'tap1.pcap')
        asker, asker_ip = '02:00:c0:a8:01:21', '192.168.1.33'
        self.send(TAP1, [arp_frame(1, asker, asker_ip, GW_IP),
                         arp_frame(1, asker, asker_ip, '192.168.1.77')], 'arp.pcap')
        self.assertTrue(ft.wait_for(lambda: self.stats()['rx'] >= 2, WAIT, 0.1))
        # the kernel asks too: it sends to 192.168.1.1 and needs its MAC
        self.ns.run([ft.PYTHON, '-c', 'import socket\ns = socket.socket(socket.AF_INET, '
                     'socket.SOCK_DGRAM)\ns.sendto(b"x", ("%s", 7))' % GW_IP])
        self.assertTrue(ft.wait_for(lambda: 'REACHABLE' in self.ns.out(
            ['ip', 'neigh', 'show', GW_IP, 'dev', TAP1]), WAIT, 0.1),
                        self.ns.out(['ip', 'neigh', 'show', 'dev', TAP1]))
        line = self.ns.out(['ip', 'neigh', 'show', GW_IP, 'dev', TAP1])
        self.assertIn('lladdr %s' % ft.MAC_P1, line.lower())
        st = self.stats()
        self.assertEqual(st['drops']['arp_not_ours'], 1, st)
        self.assertEqual(st['local']['arp_requests_in'], 2, st)
        self.assertEqual(st['local']['arp_replies_out'], 2, st)
        frames = self.decode(self.stop_capture(cap))
        replies = [f[2:] for f in frames if f[1] == 'arp' and f[2] == 2]
        mac = ft.MAC_P1.lower()
        self.assertEqual(replies, [(2, mac, GW_IP, asker, asker_ip, asker),
                                   (2, mac, GW_IP, self.kernel_mac, KERNEL_IP, self.kernel_mac)],
                         frames)
        run = self.stop_gw()
        self.assertEqual(run.summary.drops.get('arp_not_ours'), 1, run.describe())

    def test_queued_until_the_kernel_answers_then_in_order(self):
        """105 packets for the kernel while it does not answer ARP: 101 wait
        (the 4 oldest dropped as neigh_queue_full), /fou/neighs says
        INCOMPLETE with 101 queued. Once the kernel answers a later request,
        the 101 arrive in order, then new packets go straight out; the
        kernel has learnt the gateway from its request."""
        self.start_gw()
        self.kernel_arp(False)
        cap = self.capture(TAP1, 'tap1.pcap')
        n = 105
        self.send(TAP0, [to_kernel(i) for i in range(n)], 'first.pcap')
        self.assertTrue(ft.wait_for(lambda: self.neighs().get(KERNEL_IP, {}).get('queued') ==
                                    101, WAIT, 0.1), self.neighs())
        e = self.neighs()[KERNEL_IP]
        self.assertEqual((e['state'], e['dev']), ('INCOMPLETE', 1), e)
        st = self.stats()
        self.assertEqual(st['drops']['neigh_queue_full'], n - 101, st)
        self.assertEqual(st['held'], 101, st)
        self.kernel_arp(True)
        self.assertTrue(ft.wait_for(lambda: self.neighs()[KERNEL_IP]['state'] == 'REACHABLE',
                                    WAIT, 0.1), self.neighs())
        e = self.neighs()[KERNEL_IP]
        self.assertEqual((e['lladdr'].lower(), e['queued']), (self.kernel_mac, 0), e)
        self.assertTrue(ft.wait_for(lambda: self.stats()['tx'] >= 101, WAIT, 0.1))
        self.send(TAP0, [to_kernel(i) for i in range(n, n + 5)], 'second.pcap')
        self.assertTrue(ft.wait_for(lambda: self.stats()['rx'] >= n + 5 and
                                    self.stats()['held'] == 0, WAIT, 0.1))
        frames = self.decode(self.stop_capture(cap))
        self.assertEqual(self.arrived(frames), list(range(n - 101, n + 5)),
                         'the 101 newest in order, then the new ones')
        ip = [f for f in frames if f[1] == 'ip']
        self.assertTrue(all(f[2:4] == (ft.MAC_P1.lower(), self.kernel_mac) and f[6] == '1'
                            for f in ip), ip[:3])
        # asked by broadcast from 192.168.1.1 until the kernel answered
        requests = [f for f in frames if f[1] == 'arp' and f[2] == 1 and f[4] == GW_IP]
        self.assertTrue(2 <= len(requests) <= 3, frames)
        self.assertTrue(all(f[3] == ft.MAC_P1.lower() and f[6] == KERNEL_IP and
                            f[7] == 'ff:ff:ff:ff:ff:ff' for f in requests), requests)
        answer = [i for i, f in enumerate(frames) if f[1] == 'arp' and f[2] == 2 and
                  f[4] == KERNEL_IP]
        self.assertTrue(answer, frames)
        first_ip = next(i for i, f in enumerate(frames) if f[1] == 'ip')
        self.assertLess(answer[0], first_ip, 'a packet left before the kernel answered')
        # the kernel took the gateway's MAC from its request (neigh_event_ns)
        line = self.ns.out(['ip', 'neigh', 'show', GW_IP, 'dev', TAP1]).lower()
        self.assertIn('lladdr %s' % ft.MAC_P1, line)
        run = self.stop_gw()
        s = run.summary
        # the kernel's reply is taken in (consumed), not forwarded
        self.assertEqual(s.drops, {'neigh_queue_full': n - 101}, run.describe())
        self.assertEqual(s.consumed, len(answer), run.describe())
        self.assertEqual((s.local['neigh_queued'], s.local['neigh_resolved']), (n, 1))
        # the control thread's log (fou.neigh, DEBUG)
        self.assertIn('neigh: %s dev 1: resolved to %s (was INCOMPLETE), packets waiting: 101'
                      % (KERNEL_IP, self.kernel_mac.upper()), run.stdout.splitlines())
        self.assertEqual(s.tx[1], 101 + 5 + len(requests) + 1, run.describe())

    def test_no_answer_three_requests_then_failed(self):
        """Nobody has 192.168.1.99: the gateway asks three times, a second
        apart, by broadcast; then the entry is FAILED and the packet that
        waited comes back to its sender as ICMP host unreachable
        (arp_error_report)."""
        self.start_gw()
        cap = self.capture(TAP1, 'tap1.pcap')
        self.send(TAP0, [to_kernel(1, dst='192.168.1.99')], 'one.pcap')
        t0 = time.monotonic()
        self.assertTrue(ft.wait_for(lambda: self.stats()['local']['neigh_failed'] == 1, WAIT,
                                    0.1), self.stats())
        took = time.monotonic() - t0
        self.assertTrue(2.5 <= took <= 15, took)
        e = self.neighs()['192.168.1.99']
        self.assertEqual((e['state'], e['queued']), ('FAILED', 0), e)
        st = self.stats()
        self.assertEqual((st['held'], st['local']['neigh_failed']), (0, 1), st)
        frames = self.decode(self.stop_capture(cap))
        req = [f for f in frames if f[1] == 'arp' and f[2] == 1 and f[6] == '192.168.1.99']
        self.assertEqual(len(req), 3, frames)
        self.assertTrue(all(f[3:6] == (ft.MAC_P1.lower(), GW_IP, '00:00:00:00:00:00') and
                            f[7] == 'ff:ff:ff:ff:ff:ff' for f in req), req)
        gaps = [b[0] - a[0] for a, b in zip(req, req[1:])]
        self.assertTrue(all(0.5 <= g <= 3 for g in gaps), gaps)
        self.assertEqual(self.arrived(frames, '192.168.1.99'), [])
        run = self.stop_gw()
        self.assertEqual(run.summary.drops, {}, run.describe())
        self.assertEqual(run.summary.icmp, {'icmp_host_unreach': 1}, run.describe())
        self.assertIn('neigh: 192.168.1.99 dev 1: failed in INCOMPLETE after 3 probes, '
                      'packets waiting: 1', run.stdout.splitlines())

    def test_static_kept_states_and_flush(self):
        """The static 192.168.1.7 keeps its MAC whatever ARP says (a reply,
        an announcement, a request for us, all with another MAC), and
        packets for it still go to that MAC. /fou/neighs: PERMANENT for it,
        REACHABLE for the kernel once resolved, STALE for a host that asked
        for us, INCOMPLETE for one that does not answer. /fou/neigh/flush
        drops the three learnt ones (the packet waiting on the INCOMPLETE
        one as neigh_stopped) and keeps the static one."""
        self.start_gw()
        cap = self.capture(TAP1, 'tap1.pcap')
        liar, asker = '02:00:c0:a8:01:66', '02:00:c0:a8:01:21'
        self.send(TAP1, [arp_frame(2, liar, STATIC_IP, GW_IP, dst=ft.MAC_P1, tha=ft.MAC_P1),
                         arp_frame(1, liar, STATIC_IP, STATIC_IP),
                         arp_frame(2, liar, STATIC_IP, STATIC_IP),
                         arp_frame(1, liar, STATIC_IP, GW_IP),
                         arp_frame(1, asker, '192.168.1.33', GW_IP)], 'arp.pcap')
        self.send(TAP0, [to_kernel(1), to_kernel(2, dst='192.168.1.99'),
                         to_kernel(3, dst=STATIC_IP)], 'pkts.pcap')
        self.assertTrue(ft.wait_for(lambda: self.neighs().get(KERNEL_IP, {}).get('state') ==
                                    'REACHABLE', WAIT, 0.1), self.neighs())
        n = self.neighs()
        self.assertEqual({ip: e['state'] for ip, e in n.items()},
                         {'10.99.0.2': 'PERMANENT', STATIC_IP: 'PERMANENT',
                          KERNEL_IP: 'REACHABLE', '192.168.1.33': 'STALE',
                          '192.168.1.99': 'INCOMPLETE'}, n)
        self.assertEqual(n[STATIC_IP]['lladdr'].lower(), STATIC_MAC)
        self.assertEqual(n['192.168.1.33']['lladdr'].lower(), asker)
        self.assertEqual(n['192.168.1.99']['queued'], 1)
        flushed = self.tel('/fou/neigh/flush')
        self.assertEqual(flushed, {'status': 'ok', 'flushed': 3})
        n = self.neighs()
        self.assertEqual({ip: (e['state'], e['lladdr'].lower()) for ip, e in n.items()},
                         {'10.99.0.2': ('PERMANENT', ft.MAC_PEER),
                          STATIC_IP: ('PERMANENT', STATIC_MAC)}, n)
        self.assertEqual(self.tel('/fou/neigh/flush'), {'status': 'ok', 'flushed': 0})
        # the static one still takes traffic, to its own MAC
        self.send(TAP0, [to_kernel(4, dst=STATIC_IP)], 'after.pcap')
        self.assertTrue(ft.wait_for(lambda: self.stats()['tx_by_port']['1'] >= 2 + 2, WAIT,
                                    0.1))
        frames = self.decode(self.stop_capture(cap))
        to_static = [f for f in frames if f[1] == 'ip' and f[4] == STATIC_IP]
        self.assertEqual([(f[3], f[5] - 20000) for f in to_static],
                         [(STATIC_MAC, 3), (STATIC_MAC, 4)], frames)
        run = self.stop_gw()
        self.assertEqual(run.summary.drops.get('neigh_stopped'), 1, run.describe())
        self.assertNotIn('neigh_failed', run.summary.drops, run.describe())

    def test_arp_flood_from_random_senders(self):
        """5000 requests for 192.168.1.1 from random senders: each answered,
        the table never above its 4096 entries (the oldest learnt ones go
        first), the static entries all there, and forwarding goes on."""
        self.start_gw()
        rng = random.Random(20261204)
        flood = []
        for i in range(5000):
            mac = '02:%02x:%02x:%02x:%02x:%02x' % tuple(rng.randrange(256) for _ in range(5))
            sip = '172.%d.%d.%d' % (rng.randrange(16, 32), rng.randrange(256),
                                    rng.randrange(1, 255))
            flood.append(arp_frame(1, mac, sip, GW_IP))
        self.send(TAP1, flood, 'flood.pcap')
        self.assertTrue(ft.wait_for(lambda: self.stats()['rx_by_port']['1'] >= len(flood),
                                    WAIT * 2, 0.2), self.stats())
        time.sleep(0.5)
        st = self.stats()
        self.assertLessEqual(self.neigh_count(), MAX_NEIGHS)
        self.assertGreater(st['local']['neigh_evicted'], 0, st)
        self.assertEqual(st['local']['arp_replies_out'], len(flood), st)
        n = self.neighs()
        self.assertEqual(len(n), self.neigh_count())
        self.assertEqual((n[STATIC_IP]['state'], n[STATIC_IP]['lladdr'].lower()),
                         ('PERMANENT', STATIC_MAC))
        self.assertEqual(n['10.99.0.2']['state'], 'PERMANENT')
        # forwarding goes on: to the static neighbour, and to the kernel
        cap = self.capture(TAP1, 'tap1.pcap')
        self.send(TAP0, [to_kernel(1, dst=STATIC_IP), to_kernel(2)], 'after.pcap')
        self.assertTrue(ft.wait_for(lambda: self.stats()['held'] == 0 and
                                    self.stats()['rx_by_port']['0'] >= 2 and
                                    self.neighs().get(KERNEL_IP, {}).get('state') ==
                                    'REACHABLE', WAIT, 0.2), self.stats())
        frames = self.decode(self.stop_capture(cap))
        self.assertEqual(self.arrived(frames, STATIC_IP), [1], frames)
        self.assertEqual(self.arrived(frames), [2], frames)
        self.assertLessEqual(self.neigh_count(), MAX_NEIGHS)
        run = self.stop_gw()
        self.assertEqual(run.summary.local['arp_replies_out'], len(flood), run.describe())


if __name__ == '__main__':
    ft.main()
