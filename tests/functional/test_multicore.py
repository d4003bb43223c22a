#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two worker lcores, each with its own RX and TX queue on every port.

- net_tap ports with two queues, in a network namespace the test creates:
  the kernel's tap picks the queue of each packet by a flow hash, as a NIC's
  RSS would. FOU flows that differ only in their outer UDP source port are
  spread over both workers; with one source port they all stay on one.
  Every packet comes out once, in order within its flow. Encapsulation on
  a tap leaves the outer IPv4 and UDP checksums to the port (tap offers
  both offloads); tshark finds every checksum right.
- net_pcap ports with two queues (one capture per queue, no RSS): the same
  encapsulation with the checksums computed in software, each worker
  reading its own capture and writing its own.
- GRO on the first tap: TCP segments out of a FOU tunnel are merged and
  leave through the second tap's TSO (the tap cuts them again); the kernel
  sees every segment as it was sent, with right checksums.

The machine has two CPUs: the main lcore shares CPU 0 with the first
worker (--lcores 0@0,1@0,2@1); it only sleeps while the workers poll.
"""
import collections
import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.layers.inet import IP, TCP, UDP  # noqa: E402

LCORES = '0@0,1@0,2@1'
WORKERS = ('1', '2')
NB_FLOWS = 64
PER_FLOW = 12
TAP0, TAP1 = 'fou-mq0', 'fou-mq1'
MAC_INSIDE = '02:00:c0:a8:01:63'
WAIT = 30

# ipip and gre (with a GRE checksum) FOU tunnels, both with encap-csum.
ENCAP_OPTS = ft.BASE_OPTS + [
    '--neigh', '10.99.0.2,dev=0,lladdr=' + ft.MAC_PEER,
    '--tunnel', 't-ipip,type=ipip,local=10.99.0.1,remote=10.99.0.2,ttl=64,'
                'encap-dport=5555,encap-csum',
    '--tunnel', 't-gre,type=gre,local=10.99.0.1,remote=10.99.0.2,ttl=64,'
                'encap-dport=5556,encap-csum,csum',
    '--route', '192.168.44.0/24,dev=t-ipip',
    '--route', '192.168.74.0/24,dev=t-gre',
]


def payload(flow, seq):
    return Raw(b'flow%04d seq%04d ' % (flow, seq) + bytes(range(40)))


def decap_frames(fixed_sport=None):
    """FOU from the peer, flows interleaved: flow f's inner UDP source port
    is 1000 + f, its outer one 40000 + f (Linux' encap-sport auto gives a
    flow its own port) unless fixed_sport."""
    frames = []
    for s in range(PER_FLOW):
        for f in range(NB_FLOWS):
            inner = IP(src='192.168.3.2', dst='192.168.4.1') / \
                UDP(sport=1000 + f, dport=2000) / payload(f, s)
            sport = fixed_sport if fixed_sport is not None else 40000 + f
            frames.append(fou(5555, inner, sport=sport, chksum=0))
    return frames


def encap_frames(flows=range(NB_FLOWS)):
    """Plain IPv4 from the inside network on port 1, half of the flows into
    each tunnel."""
    frames = []
    for s in range(PER_FLOW):
        for f in flows:
            net = 44 if f % 2 == 0 else 74
            frames.append(Ether(src=MAC_INSIDE, dst=ft.MAC_P1) /
                          IP(src='192.168.3.2', dst='192.168.%d.9' % net) /
                          UDP(sport=1000 + f, dport=2000) / payload(f, s))
    return frames



def own_apart(test, path):
    """Write the IP frames of the capture path next to it and return that
    path; its ARP and ND frames may only be the gateway's announcements of
    ft.BASE_OPTS' addresses (whether dumpcap saw them depends on when it
    started)."""
    ip_path = path[:-len('.pcap')] + '.ip.pcap'
    own = ft.neigh_decode(ft.split_neigh(path, ip_path), path[:-len('.pcap')] + '.own.pcap')
    announced = {a for addrs in ft.BASE_ANNOUNCE.values() for a in addrs}
    for f in own:
        test.assertIn(f['kind'], ('arp-request', 'na'), own)
        test.assertIn(f['sip'] if f['kind'] == 'arp-request' else f['target'], announced, own)
    return ip_path


def announcements(port):
    """How many frames of its own the gateway sends on port with BASE_OPTS."""
    return len(ft.BASE_ANNOUNCE[port])


def lcore_totals(gw):
    """/fou/lcores: {lcore: entry}, or None before the gateway answers."""
    r = gw.telemetry('/fou/lcores')
    return None if r is None else r[0]['/fou/lcores']


class MultiCoreTestCase(ft.GatewayTestCase):

    def start_gw(self, vdevs, opts, idle_exit=None, netns=None):
        def make_cmd(prefix):
            cmd = [ft.Config.gateway, '--lcores', LCORES, '--no-huge', '-m', '512',
                   '--no-pci', '--file-prefix', prefix, '--log-level=lib.eal:warning',
                   '--log-level=pmd.net.tap:error']
            for v in vdevs:
                cmd += ['--vdev', v]
            cmd += ['--'] + list(opts)
            if idle_exit is not None:
                cmd += ['--idle-exit', str(idle_exit)]
            return (netns.cmd(cmd) if netns else cmd), {}
        gw = ft.Gateway(self.tmp, None, 0, opts, make_cmd=make_cmd)
        self._gateways.append(gw)
        return gw

    def assertWorkers(self, run, lcores):
        """Both workers ran, and what they counted adds up to the ports."""
        self.assertEqual(sorted(lcores), list(WORKERS), lcores)
        s = run.summary
        self.assertEqual(sum(e['rx'] for e in lcores.values()), sum(s.rx.values()))
        self.assertEqual(sum(e['tx'] for e in lcores.values()), sum(s.tx.values()))
        for lc in WORKERS:
            self.assertEqual(lcores[lc]['tx_queue'], int(lc) - 1)

    def assertChecksums(self, path, n, gre_csum_frames):
        """tshark decodes n FOU frames with every IPv4, UDP and GRE checksum
        right, no UDP checksum left to be filled in (0)."""
        rows = ft.tshark_fields(path, ['ip.checksum', 'ip.checksum.status', 'udp.checksum',
                                       'udp.checksum.status', 'gre.checksum.status'],
                                fou_ports=ft.FOU_LUA_PORTS)
        self.assertEqual(len(rows), n)
        gre = 0
        for i, r in enumerate(rows):
            what = 'frame %d: %s' % (i + 1, r)
            self.assertEqual(r['ip.checksum.status'], ['1', '1'], what)
            self.assertEqual(r['udp.checksum.status'], ['1', '1'], what)
            # a UDP checksum of 0 means none (a computed 0 goes as 0xFFFF);
            # an IPv4 header checksum may be 0 and valid (status above)
            self.assertNotIn('0x0000', r['udp.checksum'], what)
            if r['gre.checksum.status']:
                self.assertEqual(r['gre.checksum.status'], ['1'], what)
                gre += 1
        self.assertEqual(gre, gre_csum_frames)
        self.assertEqual(ft.tshark_problems(path), [])

    def assertEncapFlows(self, paths, flows):
        """Every packet of every flow, in order, each flow with one outer
        source port, through the tunnel its destination routes to."""
        seen = collections.defaultdict(list)
        sports = collections.defaultdict(set)
        for path in paths:
            if ft.frame_count(path) == 0:
                continue
            for r in ft.tshark_fields(path, ['udp.srcport', 'ip.dst', 'udp.payload'],
                                      fou_ports=ft.FOU_LUA_PORTS):
                flow = int(r['udp.srcport'][1]) - 1000
                text = bytes.fromhex(r['udp.payload'][-1])[:17].decode()
                self.assertEqual(text[:8], 'flow%04d' % flow)
                seen[flow].append(int(text[12:16]))
                sports[flow].add(int(r['udp.srcport'][0]))
                self.assertEqual(r['ip.dst'][1], '192.168.%d.9' % (44 if flow % 2 == 0 else 74))
        self.assertEqual(sorted(seen), sorted(flows))
        for f in flows:
            self.assertEqual(seen[f], list(range(PER_FLOW)), 'flow %d' % f)
            self.assertEqual(len(sports[f]), 1, 'flow %d: outer source ports %s' % (f, sports[f]))


class TapQueues(MultiCoreTestCase):
    """net_tap, two queues per port, the kernel choosing the queue per flow."""

    def setUp(self):
        super().setUp()
        self.ns = ft.Netns('mq')

    def tearDown(self):
        super().tearDown()      # the gateways first: the taps go with them
        self.ns.close()

    def start_tap_gw(self, opts):
        gw = self.start_gw(['net_tap0,iface=' + TAP0, 'net_tap1,iface=' + TAP1], opts,
                           netns=self.ns)
        lcores = ft.wait_for(lambda: gw.running() and lcore_totals(gw), WAIT, 0.2)
        if not lcores:
            self.fail('the gateway did not come up\n' + gw.stop().describe())
        return gw

    def capture(self, iface, name):
        """dumpcap on the kernel side of a tap, until stop_capture()."""
        path = self.path(name)
        p, why = self.ns.dumpcap(iface, path, WAIT)
        self.assertIsNotNone(p, 'dumpcap did not start: %s' % why)
        time.sleep(0.5)
        return p, path

    def stop_capture(self, cap):
        """The capture's path, without the gateway's own ARP and ND frames
        (its announcements), which are checked apart."""
        p, path = cap
        p.send_signal(signal.SIGINT)
        p.wait(timeout=WAIT)
        p.stderr.close()
        return own_apart(self, path)

    def send(self, iface, frames, name):
        """Inject frames into the tap from the kernel side (AF_PACKET)."""
        path = ft.write_pcap(self.path(name), frames)
        self.ns.run([ft.PYTHON, '-c', 'import sys\nfrom scapy.all import rdpcap, sendp\n'
                     'sendp(rdpcap(sys.argv[1]), iface=sys.argv[2], verbose=0)', path, iface])

    def run_traffic(self, opts, in_iface, frames, out_iface, drops=None):
        """Send frames, wait until the gateway has handled them all, capture
        what leaves on out_iface; drops: {reason: n} expected, else none.
        Returns (run, lcores, capture path)."""
        gw = self.start_tap_gw(opts)
        cap = self.capture(out_iface, 'out.pcap')
        self.send(in_iface, frames, 'in.pcap')

        def handled():
            s = gw.telemetry('/fou/stats')
            if s is None:
                return False
            s = s[0]['/fou/stats']
            return s['rx'] >= len(frames) and s['tx'] + s['dropped'] + s['gro_merged'] - \
                (s['gso_segments'] - s['gso_packets']) - s['local']['originated'] >= len(frames)
        self.assertTrue(ft.wait_for(handled, WAIT, 0.2), 'not all packets handled')
        lcores = lcore_totals(gw)
        time.sleep(0.5)
        path = self.stop_capture(cap)
        gw.signal(signal.SIGINT)
        run = gw.wait()
        self.assertHealthy(run)
        self.assertEqual(run.summary.rx, {0: len(frames) if in_iface == TAP0 else 0,
                                          1: len(frames) if in_iface == TAP1 else 0},
                         run.describe())
        self.assertEqual(run.summary.drops, drops or {}, run.describe())
        self.assertWorkers(run, lcores)
        for p in (0, 1):
            self.assertRegex(run.stdout, r'(?m)^port %d \(net_tap%d\): .* 2 rx / 2 tx queues, '
                             r'rss on, tx offloads ipv4_cksum udp_cksum tcp_tso$' % (p, p))
        return run, lcores, path

    def decap_checks(self, frames, path):
        """Every inner packet forwarded once, in order within its flow."""
        rows = ft.tshark_fields(path, ['udp.srcport', 'udp.payload', 'ip.checksum.status'])
        self.assertEqual(len(rows), len(frames))
        seen = collections.defaultdict(list)
        for r in rows:
            text = bytes.fromhex(r['udp.payload'][-1])[:17].decode()
            flow = int(r['udp.srcport'][0]) - 1000
            self.assertEqual(text[:8], 'flow%04d' % flow)
            self.assertEqual(r['ip.checksum.status'], ['1'])
            seen[flow].append(int(text[12:16]))
        self.assertEqual(dict(seen), {f: list(range(PER_FLOW)) for f in range(NB_FLOWS)})

    def test_outer_source_ports_spread_flows_over_workers(self):
        frames = decap_frames()
        run, lcores, path = self.run_traffic(ft.BASE_OPTS, TAP0, frames, TAP1)
        self.decap_checks(frames, path)
        for lc in WORKERS:
            self.assertGreater(lcores[lc]['rx'], 0, lcores)
            self.assertEqual(lcores[lc]['port0_rx_queue'], int(lc) - 1)
            self.assertGreater(lcores[lc]['polls_busy'], 0, lcores)

    def test_rx_checksum_flags(self):
        """The tap checks the outer IPv4 and UDP checksums (RX offloads):
        its verdicts are trusted for the outer headers only."""
        good = decap_frames()[:NB_FLOWS]
        bad_ip, bad_udp, inner_bad = [], [], []
        for f in range(NB_FLOWS // 4):
            inner = IP(src='192.168.3.2', dst='192.168.4.1') / UDP(sport=1000 + f, dport=2000) \
                / payload(f, 0)
            bad_ip.append(fou(5555, inner, sport=41000 + f))
            bad_ip[-1][IP].chksum = 0x1234
            bad_udp.append(fou(5555, inner, sport=42000 + f, chksum=0x4321))
            bad = inner.copy()
            bad.chksum = 0x5678
            inner_bad.append(fou(5555, bad, sport=43000 + f))
        n = NB_FLOWS // 4
        frames = good + bad_ip + bad_udp + inner_bad
        run, lcores, path = self.run_traffic(ft.BASE_OPTS, TAP0, frames, TAP1, drops={
            'ip_cksum_bad': n, 'udp_cksum_bad': n, 'inner_cksum_bad': n})
        self.assertEqual(ft.frame_count(path), len(good))

    def test_one_outer_source_port_stays_on_one_worker(self):
        frames = decap_frames(fixed_sport=40000)
        run, lcores, path = self.run_traffic(ft.BASE_OPTS, TAP0, frames, TAP1)
        self.decap_checks(frames, path)
        self.assertEqual(sorted(e['rx'] for e in lcores.values()), [0, len(frames)], lcores)

    def gro_tap_run(self, fixed_id):
        """4 flows of 16 in-order 1000-byte segments out of a FOU tunnel,
        GRO on port 0: the kernel side of port 1 must see every original
        segment (IP ID included), every checksum right, each flow in order.
        Returns the run."""
        mss, per_flow, flows = 1000, 16, 4
        frames = []
        for s in range(per_flow):
            for f in range(flows):
                inner = IP(src='192.168.3.2', dst='192.168.4.1', flags='DF',
                           id=7 if fixed_id else 7 + s) / \
                    TCP(sport=3000 + f, dport=80, flags='A', seq=1 + s * mss, ack=1,
                        window=2000) / Raw(bytes([(f * 7 + s) & 0xff]) * mss)
                frames.append(fou(5555, inner, sport=40000 + f, chksum=0))
        run, lcores, path = self.run_traffic(ft.BASE_OPTS + ['--gro', '0,timeout=50000'],
                                             TAP0, frames, TAP1)
        self.assertGreater(run.summary.gro['merged'], 0, run.describe())
        rows = ft.tshark_fields(path, ['tcp.srcport', 'tcp.seq_raw', 'tcp.len', 'tcp.payload',
                                       'ip.checksum.status', 'tcp.checksum.status', 'ip.len',
                                       'ip.id'],
                                prefs=['-o', 'tcp.check_checksum:TRUE'])
        self.assertEqual(len(rows), len(frames))
        seen = collections.defaultdict(list)
        for r in rows:
            self.assertEqual(r['ip.checksum.status'], ['1'], r)
            self.assertEqual(r['tcp.checksum.status'], ['1'], r)
            self.assertEqual(int(r['ip.len'][0]), 40 + mss, r)
            f = int(r['tcp.srcport'][0]) - 3000
            s = (int(r['tcp.seq_raw'][0]) - 1) // mss
            self.assertEqual(int(r['ip.id'][0], 16), 7 if fixed_id else 7 + s, r)
            self.assertEqual(bytes.fromhex(r['tcp.payload'][0]), bytes([(f * 7 + s) & 0xff]) * mss)
            seen[f].append(s)
        self.assertEqual(dict(seen), {f: list(range(per_flow)) for f in range(flows)})
        return run

    def test_gro_merges_leave_through_tso(self):
        """GRO hands the merges to the tap's TSO (IP IDs counting up)."""
        run = self.gro_tap_run(fixed_id=False)
        g = run.summary.gro
        self.assertGreater(g['tso'], 0, g)
        self.assertEqual(g['gso_packets'], 0, g)
        self.assertEqual(run.summary.tx[1], 64 - g['merged'] + announcements(1), run.describe())

    def test_gro_fixed_ids_are_cut_in_software(self):
        """Segments with DF and one fixed IP ID: a port's TSO would count
        the IDs up, so rte_gso cuts the merges and keeps the ID (Linux:
        SKB_GSO_TCP_FIXEDID)."""
        g = self.gro_tap_run(fixed_id=True).summary.gro
        self.assertEqual(g['tso'], 0, g)
        self.assertGreater(g['gso_packets'], 0, g)

    def test_gro_full_sized_segments_at_the_tap_mtu(self):
        """Routed segments as large as the egress MTU (1500-byte IP
        packets) are merged and still all reach the kernel side: net_tap's
        TSO would refuse them (it counts the Ethernet header in the MTU),
        so rte_gso cuts them instead."""
        mss, per_flow, flows = 1460, 8, 4
        frames = []
        for s in range(per_flow):
            for f in range(flows):
                inner = IP(src='192.168.3.2', dst='192.168.4.1', flags='DF', id=7 + s) / \
                    TCP(sport=3000 + f, dport=80, flags='A', seq=1 + s * mss, ack=1,
                        window=2000) / Raw(bytes([(f * 5 + s) & 0xff]) * mss)
                frames.append(bytes(Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) / inner))
        run, lcores, path = self.run_traffic(ft.BASE_OPTS + ['--gro', '0,timeout=50000'],
                                             TAP0, frames, TAP1)
        self.assertGreater(run.summary.gro['merged'], 0, run.describe())
        rows = ft.tshark_fields(path, ['tcp.srcport', 'tcp.seq_raw', 'tcp.payload',
                                       'tcp.checksum.status', 'ip.len'],
                                prefs=['-o', 'tcp.check_checksum:TRUE'])
        seen = collections.defaultdict(list)
        for r in rows:
            self.assertEqual(r['tcp.checksum.status'], ['1'], r)
            self.assertEqual(int(r['ip.len'][0]), 40 + mss, r)
            f = int(r['tcp.srcport'][0]) - 3000
            s = (int(r['tcp.seq_raw'][0]) - 1) // mss
            self.assertEqual(bytes.fromhex(r['tcp.payload'][0]), bytes([(f * 5 + s) & 0xff]) * mss)
            seen[f].append(s)
        self.assertEqual(dict(seen), {f: list(range(per_flow)) for f in range(flows)})

    def test_gro_off_under_traffic_keeps_order(self):
        """/fou/gro/del while a flow is held (timeout 1 s): the segments that
        come after it leave after the held ones, not before."""
        mss = 1000

        def seg(i):
            inner = IP(src='192.168.3.2', dst='192.168.4.1', flags='DF', id=7 + i) / \
                TCP(sport=3000, dport=80, flags='A', seq=1 + i * mss, ack=1, window=2000) / \
                Raw(bytes([i]) * mss)
            return bytes(Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) / inner)
        gw = self.start_tap_gw(ft.BASE_OPTS + ['--gro', '0,timeout=1000000'])
        cap = self.capture(TAP1, 'out.pcap')
        before = ft.write_pcap(self.path('before.pcap'), [seg(0), seg(1)])
        after = ft.write_pcap(self.path('after.pcap'), [seg(2), seg(3)])
        go = self.path('go')
        c = ft.TelemetryClient(gw.prefix)
        try:
            # one sender: the second pair leaves as soon as go exists
            sender = subprocess.Popen(self.ns.cmd([ft.PYTHON, '-c', (
                'import os, sys, time\nfrom scapy.all import rdpcap, sendp\n'
                'a, b = rdpcap(sys.argv[1]), rdpcap(sys.argv[2])\n'
                'sendp(a, iface=sys.argv[3], verbose=0)\n'
                'while not os.path.exists(sys.argv[4]):\n    time.sleep(0.01)\n'
                'sendp(b, iface=sys.argv[3], verbose=0)\n'), before, after, TAP0, go]))
            self.assertTrue(ft.wait_for(lambda: c.cmd('/fou/stats')['gro_merged'] == 1, WAIT,
                                        0.01), c.cmd('/fou/stats'))
            self.assertEqual(c.cmd('/fou/gro/del,0'), {'status': 'ok'})
            open(go, 'w').close()
            sender.wait(timeout=WAIT)
            self.assertTrue(ft.wait_for(lambda: c.cmd('/fou/stats')['tx'] >= 3, WAIT, 0.1))
        finally:
            c.close()
        time.sleep(0.5)
        path = self.stop_capture(cap)
        gw.signal(signal.SIGINT)
        run = gw.wait()
        self.assertHealthy(run)
        rows = ft.tshark_fields(path, ['tcp.seq_raw'])
        self.assertEqual([int(r['tcp.seq_raw'][0]) for r in rows],
                         [1 + i * mss for i in range(4)], run.describe())

    def test_encap_checksums_offloaded(self):
        frames = encap_frames()
        run, lcores, path = self.run_traffic(ENCAP_OPTS, TAP1, frames, TAP0)
        for lc in WORKERS:
            self.assertGreater(lcores[lc]['tx'], 0, lcores)
        self.assertChecksums(path, len(frames), len(frames) // 2)
        self.assertEncapFlows([path], range(NB_FLOWS))


class PcapQueues(MultiCoreTestCase):
    """net_pcap, one capture per queue and no RSS: checksums in software."""

    def test_encap_checksums_in_software(self):
        halves = (range(0, NB_FLOWS, 2), range(1, NB_FLOWS, 2))   # ipip, gre
        rx = [ft.write_pcap(self.path('in%d.pcap' % q), encap_frames(h))
              for q, h in enumerate(halves)]
        out = [[self.path('out%d-q%d.pcap' % (p, q)) for q in (0, 1)] for p in (0, 1)]
        vdevs = ['net_pcap0,tx_pcap=%s,tx_pcap=%s' % tuple(out[0]),
                 'net_pcap1,rx_pcap=%s,rx_pcap=%s,tx_pcap=%s,tx_pcap=%s' %
                 (rx[0], rx[1], out[1][0], out[1][1])]
        run = self.start_gw(vdevs, ENCAP_OPTS, idle_exit=ft.IDLE_EXIT_MS).wait()
        self.assertHealthy(run)
        n = sum(len(h) for h in halves) * PER_FLOW
        self.assertEqual(run.summary.tx, {0: n + announcements(0), 1: announcements(1)},
                         run.describe())
        # the announcements left through one worker's queue: IP apart
        out = [[own_apart(self, path) for path in port] for port in out]
        self.assertRegex(run.stdout, r'(?m)^dpdk-fou: port 1 \(net_pcap\) has no RSS')
        for p in (0, 1):
            self.assertRegex(run.stdout, r'(?m)^port %d \(net_pcap%d\): .* tx offloads none '
                             r'\(checksums in software\)$' % (p, p))
        self.assertRegex(run.stdout, r'(?m)^lcore 1: tx queue 0 on every port, rx port 0 '
                         r'queue 0, port 1 queue 0$')
        self.assertRegex(run.stdout, r'(?m)^lcore 2: tx queue 1 on every port, rx port 0 '
                         r'queue 1, port 1 queue 1$')
        # worker q read capture q and wrote on its own queue's capture
        for q, h in enumerate(halves):
            self.assertChecksums(out[0][q], len(h) * PER_FLOW, len(h) * PER_FLOW * q)
            self.assertEncapFlows([out[0][q]], h)


if __name__ == '__main__':
    ft.main()
