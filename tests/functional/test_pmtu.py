#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tunnel path MTU through the pcap PMD. A host on port 0 (10.99.0.50)
sends into an ipip/fou tunnel (encap-sport auto) and a plain GRE tunnel
with a key. A first run records the outer packets the gateway sends for
full-sized inner packets; scapy then builds the "fragmentation needed" a
router on the path (10.99.0.254) would send about them, quoting 548 bytes
as Linux does, and a second run gets those errors in between inner
packets, all on port 0 so that their order holds: the tunnel MTU follows
the reported MTU (1400; 300 taken as 552; 1450 refused), the inner packets
over it come back to the host as "fragmentation needed" with the lowered
MTU (tshark reads the figure), those under it are encapsulated, and
forged, truncated or corrupted errors change nothing (pmtu_bad).
/fou/tunnels shows each tunnel's path MTU and its lifetime."""
import os
import signal
import socket
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.layers.inet import IP, UDP, ICMP  # noqa: E402
import test_encap as te  # noqa: E402
from test_encap import BY_NAME, EncapCase, Tunnel  # noqa: E402

# the host on port 0 that sends into the tunnels, and the router on the path
H0, MAC_H0 = '10.99.0.50', '02:00:0a:63:00:32'
ROUTER = te.GATEWAY
ROUTER_MAC = te.REMOTE_MAC[ROUTER]
QUOTE = 576 - 28                # what Linux' icmp_send quotes
FIPIP = BY_NAME['fipip']        # ipip/fou to 10.99.0.2, encap-sport auto
PGREK = Tunnel('pgrek', 'gre', '10.99.0.6', 'encap=none,key=9', v4=['172.16.21.0/24'])
TUNNELS = [FIPIP, PGREK]
OPTS = te.tunnel_opts(TUNNELS) + ['--neigh', '%s,dev=0,lladdr=%s' % (H0, MAC_H0)]


def inner(t, size, i):
    """An inner IPv4 UDP packet with DF of size bytes from the host into t."""
    p = IP(src=H0, dst=t.dst4(7), ttl=64, flags='DF', id=0x900 + i) / UDP(sport=40000 + i,
                                                                         dport=9)
    return Ether(src=MAC_H0, dst=ft.MAC_P0) / p / Raw(bytes((i + k) & 0xff
                                                          for k in range(size - len(p))))


def frag_needed(outer, mtu, quote=QUOTE, chksum=None):
    """The router's ICMP fragmentation needed about the outer IPv4 packet
    the gateway sent, to the tunnel's local address."""
    icmp = ICMP(type=3, code=4, nexthopmtu=mtu)
    if chksum is not None:
        icmp.chksum = chksum
    return (Ether(src=ROUTER_MAC, dst=ft.MAC_P0) /
            IP(src=ROUTER, dst=te.LOCAL, ttl=63, id=0x77) / icmp / Raw(bytes(outer)[:quote]))


def edited(outer, at, value):
    b = bytearray(outer)
    b[at:at + len(value)] = value
    return bytes(b)


def frag_back(frame, mtu):
    """What the gateway sends the host for a too-big inner frame: Linux'
    icmp_send from port 0's address, quoting it, with the tunnel MTU."""
    l3 = ft.icmp4_error(ft.l3_of(frame), ft.IP_P0, 'icmp_frag_needed', mtu=mtu)
    return ft.Expected('frag needed %d' % mtu, frame, port=0, eth_dst=MAC_H0, l3=l3,
                       icmp='icmp_frag_needed', ignore=ft.ICMP4_IGNORE)


class Pmtu(te.EncapTestCase):
    def outer_packets(self, frames):
        """Run 1: the outer IPv4 packets the gateway sends for frames."""
        run = self.run_gw({0: ft.write_pcap(self.path('first.pcap'), frames)}, OPTS)
        self.assertCounters(run, rx={0: len(frames), 1: 0}, tx={0: len(frames), 1: 0},
                            drops={}, decap=[], fou_ports={})
        return [f[14:] for f in ft.capture_frames(run.outputs[0])]

    def split(self, pcap):
        """The ICMP errors the gateway sent, and the rest, as two captures
        (tshark splits them: each keeps its order)."""
        out = {}
        for name, flt in (('icmp', 'icmp'), ('encap', '!icmp')):
            out[name] = self.path('out-%s.pcap' % name)
            ft._tshark(['-r', pcap, '-Y', flt, '-w', out[name]])
        return out['icmp'], out['encap']

    def test_path_mtu(self):
        big_ipip = inner(FIPIP, 1500 - FIPIP.overhead, 1)
        big_gre = inner(PGREK, 1500 - PGREK.overhead, 2)
        o_ipip, o_gre = self.outer_packets([big_ipip, big_gre])
        self.assertEqual((len(o_ipip), len(o_gre)), (1500, 1500))
        self.assertEqual((o_ipip[9], o_gre[9]), (17, 47))
        fits = inner(FIPIP, 1372, 3)
        at_floor = inner(FIPIP, 552 - FIPIP.overhead, 4)
        wrong_key = edited(o_gre, 20 + 4, (10).to_bytes(4, 'big'))
        # (frame, what it must become: 'in', 'bad', an EncapCase or an Expected)
        seq = [
            (frag_needed(o_ipip, 1400), 'in'),
            (big_ipip, frag_back(big_ipip, 1372)),
            (fits, EncapCase('1372 under path MTU 1400', FIPIP, fits)),
            (frag_needed(edited(o_ipip, 22, (5556).to_bytes(2, 'big')), 1000), 'bad'),
            (frag_needed(edited(o_ipip, 16, socket.inet_aton('10.99.0.3')), 1000), 'bad'),
            (frag_needed(o_ipip, 1000, quote=27), 'bad'),
            (frag_needed(o_ipip, 1000, chksum=0x1234), 'bad'),
            (frag_needed(o_ipip, 300), 'in'),
            (fits, frag_back(fits, 552 - FIPIP.overhead)),
            (at_floor, EncapCase('524 at path MTU 552', FIPIP, at_floor)),
            (frag_needed(o_ipip, 1450), 'in'),
            (big_gre, EncapCase('gre at the port MTU', PGREK, big_gre)),
            (frag_needed(wrong_key, 1400), 'bad'),
            (frag_needed(o_gre, 1400), 'in'),
            (big_gre, frag_back(big_gre, 1400 - PGREK.overhead)),
        ]
        frames = [bytes(f) for f, _ in seq]
        icmp = [e for _, e in seq if isinstance(e, ft.Expected)]
        encap = [e for _, e in seq if isinstance(e, EncapCase)]
        drops = {'pmtu_bad': sum(e == 'bad' for _, e in seq)}
        taken = sum(e == 'in' for _, e in seq)
        gw = self.start({0: ft.write_pcap(self.path('in0.pcap'), frames)}, OPTS)

        def done():
            r = gw.telemetry('/fou/stats') if gw.running() else ['exited']
            st = r[0].get('/fou/stats') if r and isinstance(r[0], dict) else r
            # tx: also the gateway's own announcements
            return st if st == ['exited'] or (st and st['rx'] == len(frames) and
                                              st['tx'] >= len(icmp) + len(encap)) else None
        stats = ft.wait_for(done, 60, interval=0.1)
        self.assertTrue(stats and stats != ['exited'], 'telemetry: /fou/stats never counted '
                        'all packets')
        replies = gw.telemetry('/fou/tunnels')
        self.assertIsNotNone(replies)
        tel = replies[0]['/fou/tunnels']
        got = {tel[k]['name']: tel[k] for k in tel if k.isdigit()}
        for t, pmtu in ((FIPIP, 552), (PGREK, 1400)):
            e = got[t.name]
            self.assertEqual((e['path_mtu'], e['mtu']), (pmtu, pmtu - t.overhead), e)
            self.assertTrue(540 <= e['path_mtu_expires'] <= 600, e)
        gw.signal(signal.SIGTERM)
        run = gw.wait(timeout=30)
        self.assertCounters(run, rx={0: len(frames), 1: 0}, tx={0: len(icmp) + len(encap), 1: 0},
                            drops=drops, decap=[], icmp={'icmp_frag_needed': len(icmp)},
                            fou_ports={})
        self.assertEqual(run.summary.consumed, taken, run.describe())
        icmp_pcap, encap_pcap = self.split(run.outputs[0])
        self.assertOutput(icmp_pcap, icmp, ft.MAC_P0)
        self.assertEqual(ft.tshark_problems(icmp_pcap, tcp=False), [])
        rows = ft.tshark_fields(icmp_pcap, ['icmp.type', 'icmp.code', 'icmp.mtu', 'ip.dst'])
        self.assertEqual([(r['icmp.type'][:1], r['icmp.code'][:1], r['icmp.mtu'],
                           r['ip.dst'][:1]) for r in rows],
                         [(['3'], ['4'], [str(m)], [H0])
                          for m in (1400 - FIPIP.overhead, 552 - FIPIP.overhead,
                                    1400 - PGREK.overhead)],
                         'the lowered MTU in each fragmentation needed')
        self.assertEncap(encap_pcap, encap)


if __name__ == '__main__':
    ft.main()
