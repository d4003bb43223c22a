#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""IPv6 Neighbour Discovery (RFC 4861), as a Linux router does it.

- pcap ports: solicitations for port 1's address and for its link-local
  address (fe80::/64 from its MAC by modified EUI-64) are answered with the
  flags, options, addresses and hop limit 255 Linux 6.1's ndisc_recv_ns
  gives; a duplicate address probe gets its answer at all nodes; a
  solicitation for another address is not answered; invalid messages (hop
  limit, truncated option, zero-length option, checksum) are nd_bad; every
  IPv6 address is announced with an unsolicited NA at start; a packet to an
  unresolved on-link neighbour makes the control thread solicit it.
- a Linux kernel as the neighbour: net_tap ports in a network namespace the
  test creates; the kernel resolves the gateway's address and link-local
  address (ip -6 neigh: REACHABLE, router), and the gateway resolves the
  kernel's address for a packet it routes there, which then arrives.
"""
import os
import re
import signal
import socket
import subprocess
import sys
import time
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou, v6  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether, Dot1Q  # noqa: E402
from scapy.layers.inet import UDP  # noqa: E402
from scapy.layers.inet6 import (IPv6, ICMPv6ND_NS, ICMPv6ND_NA,  # noqa: E402
                                ICMPv6NDOptSrcLLAddr, ICMPv6NDOptDstLLAddr)

# port 1 of BASE_OPTS: MAC_P1 02:00:c0:a8:01:01, fd00:1::1/64
LL_P1 = 'fe80::c0ff:fea8:101'
LL_P0 = 'fe80::aff:fe63:1'
MAC_NB = '02:00:00:00:01:09'
NB = 'fd00:1::9'
NB_LL = 'fe80::ff:fe00:109'
WAIT = 30

NA_FIELDS = ['eth.dst', 'eth.src', 'vlan.id', 'ipv6.src', 'ipv6.dst', 'ipv6.hlim', 'ipv6.tclass',
             'ipv6.flow', 'icmpv6.type', 'icmpv6.code', 'icmpv6.checksum.status',
             'icmpv6.nd.na.flag.r', 'icmpv6.nd.na.flag.s', 'icmpv6.nd.na.flag.o',
             'icmpv6.nd.na.target_address', 'icmpv6.nd.ns.target_address', 'icmpv6.opt.type',
             'icmpv6.opt.linkaddr', 'arp.src.proto_ipv4', 'arp.dst.proto_ipv4']


def sn_group(addr):
    """The solicited-node group of addr and its MAC."""
    a = socket.inet_pton(socket.AF_INET6, addr)
    g = socket.inet_ntop(socket.AF_INET6, bytes([0xff, 0x02] + [0] * 9 + [1, 0xff]) + a[13:])
    return g, '33:33:ff:%02x:%02x:%02x' % tuple(a[13:])


def ns(target, src='fe80::9', dst=None, eth_dst=None, slla=MAC_NB, hlim=255, vlan=None):
    """A Neighbour Solicitation from the neighbour: to target's solicited-node
    group unless dst is given."""
    g, gmac = sn_group(target)
    l2 = Ether(src=MAC_NB, dst=eth_dst or (gmac if dst is None else ft.MAC_P1))
    if vlan is not None:
        l2 = l2 / Dot1Q(vlan=vlan)
    p = l2 / IPv6(src=src, dst=dst or g, hlim=hlim) / ICMPv6ND_NS(tgt=target)
    if slla:
        p = p / ICMPv6NDOptSrcLLAddr(lladdr=slla)
    return p


def rows_of(path):
    return ft.tshark_fields(path, NA_FIELDS) if ft.frame_count(path) else []


def one(r, f):
    return r[f][0] if r[f] else None


class PcapND(ft.GatewayTestCase):
    """Solicitations and advertisements on port 1 from a capture."""

    def run_nd(self, frames, opts=ft.BASE_OPTS):
        rx1 = ft.write_pcap(self.path('in1.pcap'), frames)
        run = self.run_gw({1: rx1}, opts)
        self.assertHealthy(run)
        return run

    def na_rows(self, run, port=1):
        return [r for r in rows_of(run.raw_outputs[port]) if one(r, 'icmpv6.type') == '136']

    def assertNA(self, r, eth_dst, src, dst, target, flags, tlla, vlan=None):
        """An NA with Linux' IPv6 header (hop limit 255, class and flow 0),
        a valid checksum, R S O as flags says ('RSO' letters), and our MAC as
        target link-layer option when tlla."""
        what = str(r)
        self.assertEqual(one(r, 'eth.dst'), eth_dst, what)
        self.assertEqual(one(r, 'eth.src'), ft.MAC_P1, what)
        self.assertEqual(one(r, 'vlan.id'), None if vlan is None else str(vlan), what)
        self.assertEqual((one(r, 'ipv6.src'), one(r, 'ipv6.dst')), (src, dst), what)
        self.assertEqual(one(r, 'ipv6.hlim'), '255', what)
        self.assertEqual((int(one(r, 'ipv6.tclass'), 16), int(one(r, 'ipv6.flow'), 16)), (0, 0),
                         what)
        self.assertEqual(one(r, 'icmpv6.code'), '0', what)
        self.assertEqual(one(r, 'icmpv6.checksum.status'), '1', what)
        self.assertEqual(one(r, 'icmpv6.nd.na.target_address'), target, what)
        got = ''.join(c for c, f in zip('RSO', ('r', 's', 'o'))
                      if one(r, 'icmpv6.nd.na.flag.' + f) == '1')
        self.assertEqual(got, flags, what)
        if tlla:
            self.assertEqual((r['icmpv6.opt.type'], r['icmpv6.opt.linkaddr']),
                             (['2'], [ft.MAC_P1]), what)
        else:
            self.assertEqual(r['icmpv6.opt.type'], [], what)

    def test_solicitations_answered(self):
        frames = [
            # to our solicited-node group, for the configured address
            ns('fd00:1::1'),
            # unicast, for the link-local address, behind an 802.1Q tag
            ns(LL_P1, dst=LL_P1, vlan=7),
            # unicast from a global address, no option: to the frame's source
            ns('fd00:1::1', src=NB, dst='fd00:1::1', slla=None),
            # a duplicate address probe for the link-local address
            ns(LL_P1, src='::', slla=None),
        ]
        run = self.run_nd(frames)
        s = run.summary
        self.assertEqual(s.drops, {}, run.describe())
        self.assertEqual(s.local.get('ns_in'), 4, run.describe())
        # the four answers, and fd00:1::1's announcement
        self.assertEqual(s.local.get('na_out'), 5, run.describe())
        rows = self.na_rows(run)
        self.assertEqual(len(rows), 5, rows)
        by_dst = {}
        for r in rows:
            by_dst.setdefault((one(r, 'ipv6.dst'), one(r, 'ipv6.src')), []).append(r)
        self.assertNA(by_dst[('fe80::9', 'fd00:1::1')][0], MAC_NB, 'fd00:1::1', 'fe80::9',
                      'fd00:1::1', 'RSO', True)
        self.assertNA(by_dst[('fe80::9', LL_P1)][0], MAC_NB, LL_P1, 'fe80::9', LL_P1, 'RS',
                      False, vlan=7)
        self.assertNA(by_dst[(NB, 'fd00:1::1')][0], MAC_NB, 'fd00:1::1', NB, 'fd00:1::1', 'RS',
                      False)
        self.assertNA(by_dst[('ff02::1', LL_P1)][0], '33:33:00:00:00:01', LL_P1, 'ff02::1',
                      LL_P1, 'RO', True)
        # the unsolicited announcement (RFC 4861 7.2.6) of the one IPv6 address
        self.assertNA(by_dst[('ff02::1', 'fd00:1::1')][0], '33:33:00:00:00:01', 'fd00:1::1',
                      'ff02::1', 'fd00:1::1', 'RO', True)
        self.assertEqual(ft.tshark_problems(run.raw_outputs[1]), [])
        # the link-local addresses are shown at start
        self.assertRegex(run.stdout, r'(?m)^port 1 \(net_pcap1\): mac %s mtu 1500, '
                         r'link-local %s, ' % (ft.MAC_P1.upper(), LL_P1))
        self.assertRegex(run.stdout, r'(?m)^port 0 \(net_pcap0\): .* link-local %s, ' % LL_P0)

    def test_announcements(self):
        """At start, without any input: a gratuitous ARP per IPv4 address,
        an unsolicited NA per IPv6 address, each on its port."""
        opts = ft.BASE_OPTS + ['--addr', '1,fd00:5::1/64', '--addr', '0,fd00:99::1/64']
        run = self.run_nd([], opts)
        s = run.summary
        self.assertEqual(s.local.get('na_out'), 3, run.describe())
        self.assertEqual(s.local.get('arp_requests_out'), 2, run.describe())
        self.assertEqual(s.originated, 5, run.describe())
        for port, addrs in ((0, ['fd00:99::1']), (1, ['fd00:1::1', 'fd00:5::1'])):
            rows = rows_of(run.raw_outputs[port])
            nas = [r for r in rows if one(r, 'icmpv6.type') == '136']
            self.assertEqual(sorted(one(r, 'icmpv6.nd.na.target_address') for r in nas), addrs)
            for r in nas:
                self.assertEqual(one(r, 'ipv6.src'), one(r, 'icmpv6.nd.na.target_address'))
                self.assertEqual((one(r, 'ipv6.dst'), one(r, 'eth.dst')),
                                 ('ff02::1', '33:33:00:00:00:01'))
                self.assertEqual(one(r, 'ipv6.hlim'), '255')
                self.assertEqual((one(r, 'icmpv6.nd.na.flag.r'), one(r, 'icmpv6.nd.na.flag.s'),
                                  one(r, 'icmpv6.nd.na.flag.o')), ('1', '0', '1'))
                self.assertEqual(r['icmpv6.opt.linkaddr'], [ft.MAC_P1 if port else ft.MAC_P0])
                self.assertEqual(one(r, 'icmpv6.checksum.status'), '1')
            arps = [one(r, 'arp.src.proto_ipv4') for r in rows if r['arp.src.proto_ipv4']]
            self.assertEqual(arps, ['192.168.1.1' if port else '10.99.0.1'])

    def test_not_answered(self):
        bad_hlim = ns('fd00:1::1', hlim=64)
        # the option cut in its middle: the message is 4 bytes short of it
        trunc = ns('fd00:1::1')
        trunc[IPv6].plen = 24 + 4
        trunc = bytes(trunc)[:14 + 40 + 28]
        zero = ns('fd00:1::1')
        zero[ICMPv6NDOptSrcLLAddr].len = 0
        cks = ns('fd00:1::1')
        cks[ICMPv6ND_NS].cksum = 0x1234
        frames = [
            # someone else's address: unicast to us, and to its own group
            ns('fd00:1::5', src=NB, dst='fd00:1::1'),
            ns('fd00:1::5'),
            bad_hlim, trunc, zero, cks,
        ]
        run = self.run_nd(frames)
        self.assertEqual(run.summary.drops, {'nd_not_ours': 1, 'bcast_mcast': 1, 'nd_bad': 4},
                         run.describe())
        self.assertNotIn('ns_in', run.summary.local)
        # only the announcement of fd00:1::1 and the gratuitous ARP leave
        rows = rows_of(run.raw_outputs[1])
        self.assertEqual(len(rows), 2, rows)
        self.assertEqual(run.summary.local.get('na_out'), 1)

    def test_advertisement_taken_in(self):
        na = Ether(src=MAC_NB, dst='33:33:00:00:00:01') / \
            IPv6(src=NB_LL, dst='ff02::1', hlim=255) / \
            ICMPv6ND_NA(tgt=NB, R=0, S=0, O=1) / ICMPv6NDOptDstLLAddr(lladdr=MAC_NB)
        run = self.run_nd([na])
        self.assertEqual(run.summary.drops, {}, run.describe())
        self.assertEqual(run.summary.local.get('na_in'), 1)

    def test_resolution_solicits(self):
        """A packet routed to an on-link neighbour nobody knows waits while
        an NS goes to its solicited-node group from the port's address,
        with our MAC; unanswered here (a capture cannot answer), it is
        still waiting when the gateway stops."""
        frame = fou(5557, v6(dst=NB), chksum=0)
        rx0 = ft.write_pcap(self.path('in0.pcap'), [frame])
        run = self.run_gw({0: rx0}, ft.BASE_OPTS)
        self.assertHealthy(run)
        self.assertEqual(run.summary.drops, {'neigh_stopped': 1}, run.describe())
        nss = [r for r in rows_of(run.raw_outputs[1]) if one(r, 'icmpv6.type') == '135']
        self.assertGreaterEqual(len(nss), 1, run.describe())
        g, gmac = sn_group(NB)
        r = nss[0]
        self.assertEqual((one(r, 'eth.dst'), one(r, 'eth.src')), (gmac, ft.MAC_P1))
        self.assertEqual((one(r, 'ipv6.src'), one(r, 'ipv6.dst'), one(r, 'ipv6.hlim')),
                         ('fd00:1::1', g, '255'))
        self.assertEqual(one(r, 'icmpv6.nd.ns.target_address'), NB)
        self.assertEqual((r['icmpv6.opt.type'], r['icmpv6.opt.linkaddr']), (['1'], [ft.MAC_P1]))
        self.assertEqual(one(r, 'icmpv6.checksum.status'), '1')



TAP0, TAP1 = 'fou-nd0', 'fou-nd1'

# Echo requests from src to dst on the tap (the kernel's raw ICMPv6 socket:
# it fills in the checksum); prints the sequence numbers answered.
PING6 = r"""
import socket, struct, sys, time
dst, src, dev, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
idx = socket.if_nametoindex(dev)
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
s.bind((src, 0, 0, idx if src.startswith('fe80') else 0))
s.settimeout(0.5)
got = []
for seq in range(1, n + 1):
    s.sendto(struct.pack('!BBHHH', 128, 0, 0, 0x4d4d, seq) + b'dpdk-fou',
             (dst, 0, 0, idx if dst.startswith('fe80') else 0))
    end = time.time() + 3
    while time.time() < end:
        try:
            b, a = s.recvfrom(2048)
        except socket.timeout:
            continue
        if b[0] == 129 and struct.unpack('!HH', b[4:8]) == (0x4d4d, seq) and \
                a[0].split('%')[0] == dst:
            got.append(seq)
            break
print(*got)
"""


def netns_usable():
    """Why the kernel test cannot run here, or None."""
    if os.getuid() != 0:
        return 'needs root (network namespaces, tap devices)'
    if not os.path.exists('/dev/net/tun'):
        return 'no /dev/net/tun'
    for tool in ('ip', 'dumpcap'):
        if subprocess.run(['sh', '-c', 'command -v ' + tool], capture_output=True).returncode:
            return 'no %s' % tool
    return None


NO_NETNS = netns_usable()


@unittest.skipIf(NO_NETNS, NO_NETNS)
class KernelNeighbour(ft.GatewayTestCase):
    """The Linux kernel on the other side of port 1's tap is the neighbour
    fd00:1::9 (MAC 02:00:00:00:01:09, its link-local fe80::ff:fe00:109)."""

    def setUp(self):
        super().setUp()
        self.ns = ft.Netns('nd')

    def tearDown(self):
        super().tearDown()      # the gateway first: the taps go with it
        self.ns.close()

    def start(self):
        def make_cmd(prefix):
            cmd = [ft.Config.gateway, '-l', '0-1', '--no-huge', '-m', '512', '--no-pci',
                   '--file-prefix', prefix, '--log-level=lib.eal:warning',
                   '--log-level=pmd.net.tap:error',
                   '--vdev', 'net_tap0,iface=' + TAP0, '--vdev', 'net_tap1,iface=' + TAP1,
                   '--'] + ft.BASE_OPTS
            return self.ns.cmd(cmd), {}
        gw = ft.Gateway(self.tmp, None, 0, ft.BASE_OPTS, make_cmd=make_cmd)
        self._gateways.append(gw)
        def up():
            # /fou/* answer once the ports run (the EAL's socket comes first)
            r = gw.running() and gw.telemetry('/fou/stats')
            return r and r[0].get('/fou/stats')
        if not ft.wait_for(up, WAIT, 0.2):
            self.fail('the gateway did not come up\n' + gw.stop().describe())
        # The tap's kernel side got the port's MAC: give it its own before
        # IPv6 starts on it, so that its link-local address is its own too.
        # No DAD, no router solicitations: only the ND under test.
        self.ns.run(['ip', 'link', 'set', TAP1, 'address', MAC_NB])
        for k, v in (('accept_dad', 0), ('router_solicitations', 0), ('disable_ipv6', 0)):
            self.ns.run(['sysctl', '-qw', 'net.ipv6.conf.%s.%s=%d' % (TAP1, k, v)])
        self.ns.run(['ip', '-6', 'addr', 'add', NB + '/64', 'dev', TAP1, 'nodad'])
        self.assertTrue(ft.wait_for(lambda: NB_LL in self.ns.out(['ip', '-6', 'addr', 'show',
                                                                    'dev', TAP1]), WAIT),
                        self.ns.out(['ip', '-6', 'addr', 'show', 'dev', TAP1]))
        return gw

    def capture(self, iface, name):
        path = self.path(name)
        p, why = self.ns.dumpcap(iface, path, WAIT)
        self.assertIsNotNone(p, 'dumpcap did not start: %s' % why)
        time.sleep(0.5)
        return p, path

    def stop_capture(self, cap):
        p, path = cap
        p.send_signal(signal.SIGINT)
        p.wait(timeout=WAIT)
        p.stderr.close()
        return path

    def kernel_neigh(self, addr):
        """The kernel's entry for addr on the tap: (lladdr, router, state)."""
        out = self.ns.out(['ip', '-6', 'neigh', 'show', addr, 'dev', TAP1])
        m = re.search(r'lladdr (\S+)( router)? (\S+)', out)
        return (m[1], bool(m[2]), m[3]) if m else (None, False, out.strip())

    def gw_neigh(self, gw, addr):
        r = gw.telemetry('/fou/neighs')
        if r is None:
            return None
        page = r[0]['/fou/neighs']
        items = page.get('items', page) if isinstance(page, dict) else page
        for e in (items.values() if isinstance(items, dict) else items):
            if isinstance(e, dict) and e.get('ip') == addr:
                return e
        return None

    def stop(self, gw):
        gw.signal(signal.SIGINT)
        run = gw.wait()
        self.assertHealthy(run)
        self.assertNotIn('nd_bad', run.summary.drops, run.describe())
        return run

    def send_udp(self, addr):
        """A UDP datagram from the kernel to addr on the tap: the kernel
        resolves addr first; the gateway answers the datagram with a port
        unreachable."""
        self.ns.run([ft.PYTHON, '-c', 'import socket, sys\n'
                     's = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)\n'
                     's.sendto(b"nd", (sys.argv[1], 9, 0, socket.if_nametoindex(sys.argv[2])))',
                     addr, TAP1])

    def test_kernel_resolves_gateway(self):
        """The kernel solicits fd00:1::1 and fe80::c0ff:fea8:101 to send to
        them; the gateway's answers make both REACHABLE, as a router. The
        gateway learns the kernel from the solicitations (STALE) and its port
        unreachables then go through those entries: DELAY, as Linux's
        neigh_resolve_output, whether a worker or the control thread sent
        them (which one depends on timing)."""
        gw = self.start()
        t0 = time.monotonic()
        cap = self.capture(TAP1, 'tap1.pcap')
        for addr in ('fd00:1::1', LL_P1):
            self.send_udp(addr)
        for addr in ('fd00:1::1', LL_P1):
            self.assertTrue(ft.wait_for(lambda: self.kernel_neigh(addr)[2] == 'REACHABLE',
                                        WAIT, 0.1),
                            self.ns.out(['ip', '-6', 'neigh', 'show', 'dev', TAP1]))
            self.assertEqual(self.kernel_neigh(addr), (ft.MAC_P1, True, 'REACHABLE'))
        # the kernel's solicitations taught the gateway the kernel, and the
        # port unreachables used the entries (DELAY; after its 5 s, a
        # unicast probe the kernel answers: PROBE, then REACHABLE)
        for addr in (NB, NB_LL):
            e = ft.wait_for(lambda: (self.gw_neigh(gw, addr) or {}).get('state') not in
                            (None, 'STALE'), WAIT, 0.1) and self.gw_neigh(gw, addr)
            self.assertTrue(e, (addr, self.gw_neigh(gw, addr)))
            later = ('PROBE', 'REACHABLE') if time.monotonic() - t0 > 5 else ()
            self.assertIn(e['state'], ('DELAY',) + later, e)
            self.assertEqual(e['lladdr'].lower(), MAC_NB, e)
        path = self.stop_capture(cap)
        run = self.stop(gw)
        self.assertEqual(run.summary.local.get('ns_in'), 2, run.describe())
        nas = [r for r in rows_of(path) if one(r, 'icmpv6.type') == '136' and
               one(r, 'eth.src') == ft.MAC_P1 and one(r, 'ipv6.dst') != 'ff02::1']
        self.assertEqual(sorted(one(r, 'icmpv6.nd.na.target_address') for r in nas),
                         sorted(['fd00:1::1', LL_P1]), nas)
        for r in nas:
            self.assertEqual(one(r, 'ipv6.hlim'), '255')
            self.assertEqual(one(r, 'icmpv6.checksum.status'), '1')
            self.assertEqual(one(r, 'eth.dst'), MAC_NB)

    def test_kernel_pings_link_local(self):
        """ping6 fe80::...%tap: the gateway answers on its link-local
        address as Linux does, and a ping of its global address from the
        kernel's link-local one too; the replies go back out of the port
        they came in by, after the gateway has solicited the kernel's
        link-local address if it did not know it yet."""
        gw = self.start()
        for dst, src in ((LL_P1, NB), (LL_P1, NB_LL), ('fd00:1::1', NB_LL)):
            got = self.ns.out([ft.PYTHON, '-c', PING6, dst, src, TAP1, '3']).split()
            self.assertEqual(got, ['1', '2', '3'], 'echo replies from %s to %s' % (dst, src))
        run = self.stop(gw)
        self.assertEqual(run.summary.icmp.get('icmp6_echo_reply'), 9, run.describe())

    def test_gateway_resolves_kernel(self):
        """A packet routed to fd00:1::9 waits while the gateway solicits
        it; the kernel answers and the packet arrives."""
        gw = self.start()
        cap = self.capture(TAP1, 'tap1.pcap')
        frame = Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) / \
            IPv6(src='fd00:40::2', dst=NB, hlim=64) / UDP(sport=40000, dport=9) / \
            Raw(b'dpdk-fou nd test')
        path_in = ft.write_pcap(self.path('in0.pcap'), [frame])
        self.ns.run([ft.PYTHON, '-c', 'import sys\nfrom scapy.all import rdpcap, sendp\n'
                     'sendp(rdpcap(sys.argv[1]), iface=sys.argv[2], verbose=0)', path_in, TAP0])
        e = ft.wait_for(lambda: (lambda n: n if n and n.get('state') == 'REACHABLE' else None)(
            self.gw_neigh(gw, NB)), WAIT, 0.2)
        self.assertIsNotNone(e, self.gw_neigh(gw, NB))
        self.assertEqual(e['lladdr'].lower(), MAC_NB)
        self.assertEqual(e['dev'], 1)
        # the NS taught the kernel the gateway, as Linux' neigh_event_ns does
        self.assertEqual(self.kernel_neigh('fd00:1::1')[:2], (ft.MAC_P1, False),
                         self.ns.out(['ip', '-6', 'neigh', 'show', 'dev', TAP1]))
        time.sleep(0.5)
        path = self.stop_capture(cap)
        run = self.stop(gw)
        self.assertEqual(run.summary.local.get('ns_out'), 1, run.describe())
        self.assertEqual(run.summary.local.get('na_in'), 1, run.describe())
        self.assertEqual(run.summary.local.get('neigh_resolved'), 1, run.describe())
        rows = ft.tshark_fields(path, NA_FIELDS + ['udp.payload'])
        ns_rows = [r for r in rows if one(r, 'icmpv6.type') == '135' and
                   one(r, 'icmpv6.nd.ns.target_address') == NB]
        self.assertEqual(len(ns_rows), 1, rows)
        g, gmac = sn_group(NB)
        self.assertEqual((one(ns_rows[0], 'ipv6.src'), one(ns_rows[0], 'ipv6.dst'),
                          one(ns_rows[0], 'eth.dst')), ('fd00:1::1', g, gmac))
        self.assertEqual(ns_rows[0]['icmpv6.opt.linkaddr'], [ft.MAC_P1])
        # the kernel's answer: solicited, override, its MAC
        na = [r for r in rows if one(r, 'icmpv6.type') == '136' and one(r, 'eth.src') == MAC_NB
              and one(r, 'icmpv6.nd.na.target_address') == NB]
        self.assertEqual(len(na), 1, rows)
        self.assertEqual((one(na[0], 'icmpv6.nd.na.flag.s'), one(na[0], 'icmpv6.nd.na.flag.o')),
                         ('1', '1'))
        udp = [r for r in rows if r['udp.payload']]
        self.assertEqual(len(udp), 1, rows)
        self.assertEqual(bytes.fromhex(one(udp[0], 'udp.payload').replace(':', '')),
                         b'dpdk-fou nd test')
        self.assertEqual((one(udp[0], 'eth.dst'), one(udp[0], 'eth.src'),
                          one(udp[0], 'ipv6.dst'), one(udp[0], 'ipv6.hlim')),
                         (MAC_NB, ft.MAC_P1, NB, '63'))


if __name__ == '__main__':
    ft.main()
