#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Live capture from a running gateway with DPDK's dpdk-dumpcap (rte_pdump).

dpdk-dumpcap is a secondary DPDK process: it maps the gateway's memory, asks
it (multi-process IPC) to install rte_pdump's RX/TX callbacks on a port and
writes what they copy into its ring. Two things follow:

- The gateway must run on hugepages: a primary on --no-huge writes no
  hugepage information for a secondary to attach with, and dpdk-dumpcap
  (which takes no EAL options but --file-prefix) stops at "Cannot get
  hugepage information". The test reserves 2 MB pages itself (as root:
  nr_hugepages, a hugetlbfs mount of its own for --huge-dir) and gives them
  back at the end; it skips, saying why, where the machine cannot.
- Traffic must flow while the capture runs: a pcap vdev's input is gone in
  milliseconds. The gateway runs on two net_tap ports in a network
  namespace the test creates (IPv6 off there, so the kernel sends nothing
  of its own); scapy injects frames from the kernel's side once
  dpdk-dumpcap says it captures, and Linux' dumpcap records each tap from
  the kernel's side as the independent witness of what crossed it.

What is checked, per captured port: the frames dpdk-dumpcap saw coming in
are byte for byte, in order, the ones injected during the capture; those it
saw going out are, in order, the ones the kernel received from the port in
that window (the same bytes, but for the checksums the port fills in: tap
offers IPv4 and UDP checksum offload, and rte_pdump copies a packet before
the driver, as tcpdump on Linux shows a packet before the NIC); their
numbers are the gateway's rx/tx counters over the window, and pcapng's
direction flags and interface names say which is which. Ports are named
as an operator would: by ethdev name (-i net_tap0), by number (-i 1, with
a BPF filter, -f), all of them (-i '*'). FOU is decoded by tshark with
tests/tshark/fou.lua, and the same with tshark's "decode as" (-d
udp.port==5555,ip) that doc/capture.md shows. After the capture nothing of it is left in
the gateway (its ring and mempool gone), the traffic that follows is
forwarded as before, and the exit summary balances with every mbuf back.
With --no-pdump dpdk-dumpcap fails (no answer to its request) and the
gateway carries on unharmed.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import types
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou, gre, v4, v6  # noqa: E402
from scapy.layers.l2 import Ether, ARP  # noqa: E402
from scapy.layers.inet import IP, UDP, ICMP  # noqa: E402

DPDK_DUMPCAP = '/usr/bin/dpdk-dumpcap'
TAP0, TAP1 = 'fou-cap0', 'fou-cap1'
PORT_MACS = {0: ft.MAC_P0, 1: ft.MAC_P1}
MAC_INSIDE = '02:00:c0:a8:01:63'
WAIT = 30
# dpdk-dumpcap gives up on a request the gateway does not answer after 5 s
NO_ANSWER_WAIT = 60

# 2 MB pages: the gateway takes about 130 (pools, tables), dpdk-dumpcap's
# ring and mempool about 6.
HUGE_PAGES = 256
HUGE_SYSFS = '/sys/kernel/mm/hugepages/hugepages-2048kB'

OPTS = ft.BASE_OPTS + [
    '--neigh', '10.99.0.2,dev=0,lladdr=' + ft.MAC_PEER,
    '--tunnel', 't-ipip,type=ipip,local=10.99.0.1,remote=10.99.0.2,ttl=64,encap-dport=5555',
    '--tunnel', 't-gre,type=gre,local=10.99.0.1,remote=10.99.0.2,ttl=64,encap-dport=5556',
    '--route', '192.168.44.0/24,dev=t-ipip',
    '--route', '192.168.74.0/24,dev=t-gre',
]
FOU_PORTS = '5555:4,5556:47,5557:41'
DECODE_AS = ['-d', 'udp.port==5555,ip', '-d', 'udp.port==5556,gre', '-d', 'udp.port==5557,ipv6']


def _read_int(path):
    with open(path) as f:
        return int(f.read())


def _write_int(path, v):
    with open(path, 'w') as f:
        f.write('%d\n' % v)


def unusable():
    """Why these tests cannot run here, or None."""
    if os.getuid() != 0:
        return 'needs root (hugepages, network namespaces, tap devices)'
    with open('/proc/filesystems') as f:
        if not re.search(r'\bhugetlbfs$', f.read(), re.M):
            return 'the kernel has no hugetlbfs'
    if not os.path.isdir(HUGE_SYSFS):
        return 'the kernel has no 2 MB hugepages'
    if not os.path.exists('/dev/net/tun'):
        return 'no /dev/net/tun'
    if not os.access(DPDK_DUMPCAP, os.X_OK):
        return 'no %s (Debian package dpdk)' % DPDK_DUMPCAP
    for tool in ('ip', 'dumpcap', 'mount', 'umount'):
        if subprocess.run(['sh', '-c', 'command -v ' + tool], capture_output=True).returncode:
            return 'no %s' % tool
    return None


class Hugepages:
    """pages free 2 MB hugepages on a hugetlbfs mount of the test's own
    (--huge-dir), limited to that many; what the kernel had to reserve for
    them is given back by close() (as a difference: a reservation someone
    else makes meanwhile stays). unavailable: why not, else None."""

    def __init__(self, pages):
        self.dir = None
        self.added = 0
        self.unavailable = None
        nr_path = os.path.join(HUGE_SYSFS, 'nr_hugepages')
        free = _read_int(os.path.join(HUGE_SYSFS, 'free_hugepages'))
        if free < pages:
            old = _read_int(nr_path)
            try:
                _write_int(nr_path, old + pages - free)
            except OSError as e:
                self.unavailable = 'cannot reserve hugepages (%s): %s' % (nr_path, e)
                return
            self.added = max(_read_int(nr_path) - old, 0)
            free = _read_int(os.path.join(HUGE_SYSFS, 'free_hugepages'))
            if free < pages:
                self.close()
                self.unavailable = ('the kernel found %d free 2 MB hugepages, %d are needed'
                                    % (free, pages))
                return
        self.dir = tempfile.mkdtemp(prefix='fou-huge-')
        p = subprocess.run(['mount', '-t', 'hugetlbfs', '-o', 'pagesize=2M,size=%dM' % (2 * pages),
                            'nodev', self.dir], capture_output=True, text=True)
        if p.returncode != 0:
            os.rmdir(self.dir)
            self.dir = None
            self.close()
            self.unavailable = 'cannot mount hugetlbfs: ' + p.stderr.strip()

    def clear(self):
        """Remove the hugepage files a stopped gateway leaves (DPDK keeps
        them for a restart with the same --file-prefix)."""
        for name in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, name))

    def close(self):
        if self.dir is not None:
            subprocess.run(['umount', self.dir], check=True)
            os.rmdir(self.dir)
            self.dir = None
        if self.added:
            nr_path = os.path.join(HUGE_SYSFS, 'nr_hugepages')
            _write_int(nr_path, max(_read_int(nr_path) - self.added, 0))
            self.added = 0



def batch(seq):
    """One round of traffic: {tap: frames injected}, {port: frames it must
    send}. Port 0 faces the FOU peer, port 1 the inside networks."""
    s = seq * 10
    bad = fou(5555, v4(seq=s + 4), chksum=0x1234)   # dropped: udp_cksum_bad
    on0 = [
        fou(5555, v4(seq=s + 1), sport=40001),
        fou(5556, gre(v4(dst='192.168.47.9', seq=s + 2)), sport=40002),
        fou(5557, v6(seq=s + 3), sport=40003),
        bad,
        Ether(src=ft.MAC_PEER, dst='ff:ff:ff:ff:ff:ff') /
        ARP(op=1, hwsrc=ft.MAC_PEER, psrc=ft.IP_PEER, pdst=ft.IP_P0),
        Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) / IP(src=ft.IP_PEER, dst=ft.IP_P0) /
        ICMP(id=0x55, seq=s + 5) / (b'ping %d' % (s + 5)),
    ]
    on1 = [Ether(src=MAC_INSIDE, dst=ft.MAC_P1) / IP(src='192.168.3.2', dst='192.168.%d.9' % net) /
           UDP(sport=40100 + s + i, dport=33434) / (b'inside %d' % (s + i))
           for i, net in enumerate((44, 74))]
    # port 0: the ARP reply, the echo reply, the two encapsulated;
    # port 1: the three decapsulated
    return {TAP0: on0, TAP1: on1}, {0: 4, 1: 3}


@unittest.skipIf(unusable(), unusable())
class Capture(ft.GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        cls.huge = Hugepages(HUGE_PAGES)
        if cls.huge.unavailable:
            raise unittest.SkipTest(cls.huge.unavailable)

    @classmethod
    def tearDownClass(cls):
        cls.huge.close()

    def setUp(self):
        super().setUp()
        self.ns = ft.Netns('cap')
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
            for f in (p.stderr, getattr(p, 'out', None), getattr(p, 'err', None)):
                if f is not None:
                    f.close()
        super().tearDown()      # the gateways first: the taps go with them
        self.huge.clear()
        self.ns.close()

    # -- the gateway

    def start_gw(self, opts):
        """The gateway on hugepages and two taps in the namespace; returns
        once it forwards and has sent its address announcements."""
        def make_cmd(prefix):
            cmd = [ft.Config.gateway, '-l', '0-1', '--huge-dir', self.huge.dir, '--no-pci',
                   '--file-prefix', prefix, '--log-level=lib.eal:warning',
                   '--log-level=pmd.net.tap:error',
                   '--vdev', 'net_tap0,iface=' + TAP0, '--vdev', 'net_tap1,iface=' + TAP1,
                   '--'] + list(opts)
            return self.ns.cmd(cmd), {}
        gw = ft.Gateway(self.tmp, None, 0, opts, make_cmd=make_cmd)
        self._gateways.append(gw)
        announced = {p: len(a) for p, a in ft.BASE_ANNOUNCE.items()}
        ok = ft.wait_for(lambda: gw.running() and self.by_port(gw) == ({0: 0, 1: 0}, announced),
                         WAIT, 0.2)
        if not ok:
            self.fail('the gateway did not come up\n' + gw.stop().describe())
        return gw

    def stats(self, gw):
        r = gw.telemetry('/fou/stats')
        if r is None or not isinstance(r[0], dict):
            return None
        s = r[0].get('/fou/stats')
        return s if isinstance(s, dict) and 'error' not in s else None

    def by_port(self, gw):
        """({port: rx}, {port: tx}), or None while telemetry does not answer."""
        s = self.stats(gw)
        if s is None:
            return None
        return ({int(p): n for p, n in s['rx_by_port'].items()},
                {int(p): n for p, n in s['tx_by_port'].items()})

    def wait_counters(self, gw, rx, tx):
        got = ft.wait_for(lambda: self.by_port(gw) == (rx, tx), WAIT, 0.2)
        self.assertTrue(got, 'counters: %s, waiting for rx %s tx %s' % (self.by_port(gw), rx, tx))

    def names(self, gw, cmd):
        r = gw.telemetry(cmd)
        self.assertIsNotNone(r, cmd)
        return r[0][cmd.split(',')[0]]

    def dpdk_objects(self, gw):
        """The names of the gateway's mempools and memzones (rings live in
        memzones named RG_<ring>)."""
        pools = self.names(gw, '/mempool/list')
        ids = self.names(gw, '/eal/memzone_list')
        r = gw.telemetry(*['/eal/memzone_info,%d' % i for i in ids])
        self.assertIsNotNone(r)
        zones = [z['/eal/memzone_info']['Name'] for z in r]
        return sorted(pools), sorted(zones)

    # -- capturing

    def kernel_capture(self, iface):
        """Linux' dumpcap on the kernel's side of a tap, until stopped: a
        pcap file written once the packet socket is bound."""
        path = self.path('kernel-%s.pcap' % iface)
        p, why = self.ns.dumpcap(iface, path, WAIT)
        self.assertIsNotNone(p, 'dumpcap did not start: %s' % why)
        self.procs.append(p)
        return p, path

    def stop(self, p):
        p.send_signal(signal.SIGINT)
        p.wait(timeout=WAIT)

    def dpdk_dumpcap(self, gw, args):
        """dpdk-dumpcap on the gateway's file prefix; its output goes to
        files (stderr: its running count)."""
        out = open(self.path('dpdk-dumpcap.stdout'), 'w+')
        err = open(self.path('dpdk-dumpcap.stderr'), 'w+')
        p = subprocess.Popen(self.ns.cmd([DPDK_DUMPCAP, '--file-prefix', gw.prefix] + list(args)),
                             stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        self.procs.append(p)
        p.out, p.err = out, err
        return p

    def dumpcap_text(self, p):
        p.out.seek(0)
        p.err.seek(0)
        return p.out.read(), p.err.read()

    def dumpcap_count(self, p):
        """The count dpdk-dumpcap shows (it rewrites it with backspaces),
        None before it captures."""
        _, err = self.dumpcap_text(p)
        m = re.search(r'Packets captured: ([\d\s\x08]*)', err)
        if m is None:
            return None
        counts = re.findall(r'\d+', m.group(1))
        return int(counts[-1]) if counts else None

    def describe(self, p):
        out, err = self.dumpcap_text(p)
        return '\n--- dpdk-dumpcap (exit %s)\n%s%s' % (p.poll(), out, err.replace('\b', ''))

    def start_dumpcap(self, gw, args):
        """dpdk-dumpcap, once its callbacks are in the gateway: it shows
        its count only after the gateway has answered its request."""
        p = self.dpdk_dumpcap(gw, args)
        ok = ft.wait_for(lambda: p.poll() is not None or self.dumpcap_count(p) is not None, WAIT,
                         0.1)
        self.assertTrue(ok and p.poll() is None, 'dpdk-dumpcap did not start' + self.describe(p))
        return p

    def send(self, iface, frames, name):
        """Frames into the gateway's port from the kernel's side (AF_PACKET)."""
        path = ft.write_pcap(self.path(name), frames)
        self.ns.run([ft.PYTHON, '-c', 'import sys\nfrom scapy.all import rdpcap, sendp\n'
                     'sendp(rdpcap(sys.argv[1]), iface=sys.argv[2], verbose=0)', path, iface])

    def traffic(self, gw, rounds, first, rx0, tx0):
        """Inject rounds of batch() from round first on; wait until the
        gateway has handled them. Returns (injected {port: frames}, rx, tx)."""
        injected = {0: [], 1: []}
        rx, tx = dict(rx0), dict(tx0)
        for r in range(first, first + rounds):
            frames, out = batch(r)
            for iface, port in ((TAP0, 0), (TAP1, 1)):
                self.send(iface, frames[iface], 'in-%d-%s.pcap' % (r, iface))
                injected[port] += [bytes(f) for f in frames[iface]]
                rx[port] += len(frames[iface])
                tx[port] += out[port]
        self.wait_counters(gw, rx, tx)
        return injected, rx, tx

    # -- checks

    def captured(self, path):
        """The frames of a dpdk-dumpcap pcapng: [(port, 'in'|'out', bytes)]
        in file order. The file describes every port of the gateway, in
        port order (interface id = port number), by the name of its kernel
        interface as dpdk-dumpcap's network namespace sees it (the taps'
        here)."""
        rows = ft.tshark_fields(path, ['frame.interface_id', 'frame.interface_name',
                                       'frame.packet_flags_direction'], checksums=False)
        raw = ft.capture_frames(path)
        self.assertEqual(len(rows), len(raw))
        direction = {1: 'in', 2: 'out'}
        out = []
        for r, f in zip(rows, raw):
            port = int(r['frame.interface_id'][0])
            self.assertEqual(r['frame.interface_name'], [(TAP0, TAP1)[port]], r)
            out.append((port, direction[int(r['frame.packet_flags_direction'][0], 0)], f))
        return out

    def assertOffloadedSame(self, got, sent, what):
        """got (copied before the driver) is sent (what the kernel
        received) but for the checksums the tap fills in: the outer IPv4
        header checksum, left 0, and the UDP checksum of FOU, which
        the gateway leaves 0 (no encap-csum) and so is 0 in both."""
        self.assertEqual(len(got), len(sent), what)
        if got == sent:
            return
        diff = [i for i in range(len(got)) if got[i] != sent[i]]
        self.assertTrue(set(diff) <= {24, 25}, '%s: differs at bytes %s\n%s' %
                        (what, diff, ft.hexdiff(got, sent)))
        self.assertEqual(got[12:14], b'\x08\x00', what)
        self.assertEqual(got[24:26], b'\0\0', what + ': IPv4 checksum before the port fills it')
        self.assertTrue(ft.ip4_cksum_ok(sent[14:34]), what)

    def assertWindow(self, capture, ports, injected, kernel, tx_window):
        """The capture holds, per port of ports, exactly what came in
        (injected[port]) and what went out (the first tx_window[port]
        frames the kernel got from the port), in order."""
        for port in ports:
            name = 'net_tap%d' % port
            got_in = [f for n, d, f in capture if n == port and d == 'in']
            got_out = [f for n, d, f in capture if n == port and d == 'out']
            self.assertEqual(got_in, injected[port], '%s: frames received' % name)
            sent = kernel[port][:tx_window[port]]
            self.assertEqual(len(got_out), len(sent), '%s: frames sent' % name)
            for i, (g, s) in enumerate(zip(got_out, sent)):
                self.assertOffloadedSame(g, s, '%s: frame sent #%d' % (name, i + 1))
        self.assertEqual(sorted({n for n, _, _ in capture}), ports)

    def capture_run(self, args, ports, rounds=3):
        """A gateway, Linux' dumpcap on both taps, then dpdk-dumpcap args
        while rounds of traffic flow. Returns the run's state: gw, kcap
        ({port: (process, path)}), p (dpdk-dumpcap), path (its file),
        start and end ((rx, tx) counters by port when it started and when
        the traffic was handled), injected ({port: frames}), before and
        during (the gateway's mempools and memzones), expect (the frames
        the captured ports received and sent meanwhile)."""
        w = types.SimpleNamespace(rounds=rounds)
        w.gw = self.start_gw(OPTS)
        w.kcap = {0: self.kernel_capture(TAP0), 1: self.kernel_capture(TAP1)}
        w.start = self.by_port(w.gw)
        w.before = self.dpdk_objects(w.gw)
        w.path = self.path('capture.pcapng')
        w.p = self.start_dumpcap(w.gw, args + ['-w', w.path])
        w.during = self.dpdk_objects(w.gw)
        w.injected, rx, tx = self.traffic(w.gw, rounds, 0, *w.start)
        w.end = rx, tx
        rx0, tx0 = w.start
        w.expect = sum(rx[q] - rx0[q] + tx[q] - tx0[q] for q in ports)
        return w

    def finish(self, w, captured):
        """Once dpdk-dumpcap shows captured frames, stop it, forward one more
        round, stop everything. Adds to w: run (the gateway's), report
        (dpdk-dumpcap's {interface: (received, dropped)}), kernel ({port:
        the frames the kernel got from it, in order}), after (the
        gateway's mempools and memzones once dpdk-dumpcap is gone)."""
        p = w.p
        ok = ft.wait_for(lambda: p.poll() is not None or self.dumpcap_count(p) >= captured, WAIT)
        self.assertTrue(ok and p.poll() is None, self.describe(p))
        self.stop(p)
        self.assertEqual(p.returncode, 0, self.describe(p))
        _, err = self.dumpcap_text(p)
        w.report = {m[0]: (int(m[1]), int(m[2])) for m in re.findall(
            r"Packets received/dropped on interface '([^']+)': (\d+)/(\d+)", err)}
        w.after = self.dpdk_objects(w.gw)
        injected, rx2, tx2 = self.traffic(w.gw, 1, 9, *w.end)
        # Linux' dumpcap writes its file every half second: stop it once
        # every frame that crossed the tap since it started is there
        rx0, tx0 = w.start
        for q in (0, 1):
            n = rx2[q] - rx0[q] + tx2[q] - tx0[q]
            path = w.kcap[q][1]
            ok = ft.wait_for(lambda: len(ft.pcap_records(path)[1]) >= n, WAIT, 0.2)
            self.assertTrue(ok, 'the kernel saw %d frames on port %d, %d crossed it' %
                            (len(ft.pcap_records(path)[1]), q, n))
            self.stop(w.kcap[q][0])
        w.gw.signal(signal.SIGINT)
        w.run = w.gw.wait()
        self.assertHealthy(w.run)
        self.assertEqual((w.run.summary.rx, w.run.summary.tx), (rx2, tx2), w.run.describe())
        # one frame of each round had a bad checksum
        self.assertEqual(w.run.summary.drops, {'udp_cksum_bad': w.rounds + 1}, w.run.describe())
        # the kernel, witness of what crossed the taps: what was injected,
        # in order, and as many frames from the port as it counted
        w.kernel = {}
        for q in (0, 1):
            mac = bytes.fromhex(PORT_MACS[q].replace(':', ''))
            frames = ft.capture_frames(w.kcap[q][1])
            self.assertEqual([f for f in frames if f[6:12] != mac], w.injected[q] + injected[q])
            w.kernel[q] = [f for f in frames if f[6:12] == mac]
            self.assertEqual(len(w.kernel[q]), tx2[q] - tx0[q])

    # -- the tests

    def test_port_by_name(self):
        """-i net_tap0 (the ethdev's name): both directions of port 0, FOU
        decoded; nothing of the capture left in the gateway afterwards."""
        w = self.capture_run(['-p', '-i', 'net_tap0'], [0])
        self.finish(w, w.expect)
        out, _ = self.dumpcap_text(w.p)
        self.assertIn("Capturing on 'net_tap0'", out)

        # what dpdk-dumpcap created in the gateway while it ran, and removed
        # (named after its PID: ip netns exec runs it in its own process)
        new_pools = sorted(set(w.during[0]) - set(w.before[0]))
        new_zones = sorted(set(w.during[1]) - set(w.before[1]))
        self.assertEqual(new_pools, ['capture_%d' % w.p.pid], w.during)
        self.assertIn('RG_dumpcap-%d' % w.p.pid, new_zones)
        self.assertIn('rte_pdump_stats', w.before[1])
        self.assertEqual(w.after, w.before)

        capture = self.captured(w.path)
        self.assertEqual(len(capture), w.expect)
        self.assertEqual(w.report, {'net_tap0': (w.expect, 0)}, self.describe(w.p))
        self.assertWindow(capture, [0], w.injected, w.kernel, {0: w.end[1][0] - w.start[1][0]})

        # tshark decodes the tunnels with fou.lua, down to the inner
        # packet: (direction, FOU port, inner UDP port, ip.proto,
        # gre.proto, ipv6.nxt) per round: the peer's ICMP (one with a bad
        # UDP checksum, dropped), the inside's UDP encapsulated
        rows = ft.tshark_fields(w.path, ['frame.packet_flags_direction', 'udp.dstport',
                                         'ip.proto', 'gre.proto', 'ipv6.nxt'],
                                checksums=False, fou_ports=FOU_PORTS)
        decoded = sorted((int(r['frame.packet_flags_direction'][0], 0), r['udp.dstport'][0],
                          tuple(r['udp.dstport'][1:]), tuple(r['ip.proto']),
                          tuple(r['gre.proto']), tuple(r['ipv6.nxt']))
                         for r in rows if r['udp.dstport'][:1] in (['5555'], ['5556'], ['5557']))
        per_round = [(1, '5555', (), ('17', '1'), (), ())] * 2 + [
            (1, '5556', (), ('17', '1'), ('0x0800',), ()),
            (1, '5557', (), ('17',), (), ('58',)),
            (2, '5555', ('33434',), ('17', '17'), (), ()),
            (2, '5556', ('33434',), ('17', '17'), ('0x0800',), ())]
        self.assertEqual(decoded, sorted(per_round * w.rounds))
        # tshark 4.0 has no FOU dissector, but "decode as" from a UDP port
        # to ip, gre and ipv6 reads the same (doc/capture.md shows it)
        fields = ['udp.dstport', 'ip.proto', 'gre.proto', 'ipv6.nxt']
        self.assertEqual(ft.tshark_fields(w.path, fields, checksums=False, prefs=DECODE_AS),
                         ft.tshark_fields(w.path, fields, checksums=False, fou_ports=FOU_PORTS))

    def test_port_by_number_and_filter(self):
        """-i 1 (the port number) with a BPF filter: only ICMP of port 1
        is written, the rest is counted as filtered."""
        w = self.capture_run(['-p', '-i', '1', '-f', 'icmp'], [1])
        # port 1 sends the decapsulated ipip and gre echo requests (ICMP)
        # and the sit one (ICMPv6, not matched); it receives UDP only
        matched = 2 * w.rounds
        self.finish(w, matched)
        out, _ = self.dumpcap_text(w.p)
        self.assertIn("Capturing on 'net_tap1'", out)
        self.assertEqual(w.after, w.before)

        capture = self.captured(w.path)
        self.assertEqual(w.report, {'net_tap1': (w.expect, 0)}, self.describe(w.p))
        sent = w.kernel[1][:w.end[1][1] - w.start[1][1]]
        icmp = [f for f in sent if f[12:14] == b'\x08\x00' and f[23] == 1]
        self.assertEqual(len(icmp), matched)
        self.assertEqual([(n, d) for n, d, _ in capture], [(1, 'out')] * matched)
        for i, ((_, _, g), s) in enumerate(zip(capture, icmp)):
            self.assertOffloadedSame(g, s, 'ICMP frame #%d' % (i + 1))

    def test_every_port(self):
        """-i '*': both ports in one file, each frame under its port's
        interface."""
        w = self.capture_run(['-p', '-i', '*'], [0, 1], rounds=2)
        self.finish(w, w.expect)
        self.assertEqual(w.after, w.before)
        capture = self.captured(w.path)
        self.assertEqual(len(capture), w.expect)
        (rx0, tx0), (rx1, tx1) = w.start, w.end
        self.assertEqual(w.report, {'net_tap0': (rx1[0] - rx0[0] + tx1[0] - tx0[0], 0),
                                    'net_tap1': (rx1[1] - rx0[1] + tx1[1] - tx0[1], 0)})
        self.assertWindow(capture, [0, 1], w.injected, w.kernel,
                          {q: tx1[q] - tx0[q] for q in (0, 1)})

    def test_no_pdump(self):
        """--no-pdump: dpdk-dumpcap's request goes unanswered, it says so
        and exits 1; the gateway forwards on, balanced at the end."""
        gw = self.start_gw(OPTS + ['--no-pdump'])
        rx0, tx0 = self.by_port(gw)
        p = self.dpdk_dumpcap(gw, ['-p', '-i', 'net_tap0', '-w', self.path('none.pcapng')])
        p.wait(timeout=NO_ANSWER_WAIT)
        _, err = self.dumpcap_text(p)
        self.assertEqual(p.returncode, 1, self.describe(p))
        self.assertIn('Packet dump enable failed', err, self.describe(p))
        self.assertIsNone(self.dumpcap_count(p), self.describe(p))
        self.assertTrue(gw.running())
        _, rx, tx = self.traffic(gw, 2, 0, rx0, tx0)
        gw.signal(signal.SIGINT)
        run = gw.wait()
        self.assertHealthy(run)
        self.assertEqual((run.summary.rx, run.summary.tx), (rx, tx), run.describe())
        self.assertIn('Cannot find action: mp_pdump', run.stdout + run.stderr, run.describe())


if __name__ == '__main__':
    ft.main()
