#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Reassembly of outer IPv4 fragments addressed to the gateway, as Linux'
ip_defrag in ip_local_deliver (doc/datapath.md, "Fragments and IPv4
options"), in two gateway runs.

The first run (--ipfrag-time 1): FOU ipip, gre and sit and plain ipip
(scapy's fragment()) in order, reversed and interleaved across datagrams,
and a fragmented ping, leave as the whole packets would (byte for byte,
tshark checking checksums); each bad fragment under its named reason with
the fragments it takes along (duplicate, overlap, contradiction, oversized,
too many for DPDK, Not-ECT with CE); a datagram whose first fragment came and
that stays incomplete comes back as ICMP time exceeded, fragment reassembly
time exceeded (11/1, decoded by tshark), one without it only counts.

The second run: a flood of fragments that never complete fills the table up
to its bound (4 MiB of mbufs) and is refused beyond it (reasm_full), a
datagram too; the packets after the flood are forwarded all the same, and
every mbuf is back in the pool at exit (what the table held is
reasm_stopped)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True

import fou_testlib as ft  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.layers.inet import IP, UDP, ICMP, fragment  # noqa: E402

OPTS = ft.BASE_OPTS + [
    '--neigh', '10.99.0.2,dev=0,lladdr=' + ft.MAC_PEER,
    # plain ipip from the peer; FOU ipip from it matches the same tunnel
    '--tunnel', 'tp,type=ipip,local=10.99.0.1,remote=10.99.0.2,encap=none',
]

# Mbufs a worker may hold (4 MiB of whole mbufs: 128 bytes of struct
# rte_mbuf and a 2176-byte buffer each), its only worker here.
HELD_MAX = (4 << 20) // (128 + 2176)


def eth(ip):
    return Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) / ip


def outer(ident, dport=None, proto=None):
    ip = IP(src=ft.IP_PEER, dst=ft.IP_P0, id=ident)
    if proto is not None:
        ip.proto = proto
    return ip / UDP(sport=40000, dport=dport) if dport else ip


def frags(pkt, size):
    """pkt cut by scapy into fragments of size bytes of payload."""
    return [eth(f) for f in fragment(pkt, fragsize=size)]


def raw_frag(ident, off, data, mf, proto=17, tos=0):
    """A hand-made fragment: offset off bytes, data, MF or not."""
    return eth(IP(src=ft.IP_PEER, dst=ft.IP_P0, id=ident, proto=proto, tos=tos,
                  flags='MF' if mf else 0, frag=off // 8) / Raw(data))


class Reassembly(ft.GatewayTestCase):

    def expect(self, name, inner, mac, port=1):
        return ft.Expected(name, b'', port=port, eth_dst=mac,
                           l3=ft.forwarded_l3(bytes(inner)))

    def test_reassembly(self):
        frames, out0, out1, decap = [], [], [], []
        drops = {}

        # --- whole datagrams: every protocol, every order
        ipip_in = ft.v4(size=1400, seq=1)
        gre_in = ft.v4(dst='192.168.47.1', size=1300, seq=2)
        sit_in = ft.v6(size=1400, seq=3)
        plain_in = ft.v4(size=1000, seq=4)
        ipip = frags(outer(1001, 5555) / ipip_in, 600)
        gre = frags(outer(1002, 5556) / ft.gre(gre_in, c=1, k=1), 512)
        sit = frags(outer(1003, 5557) / sit_in, 504)
        plain = frags(outer(1004, proto=4) / plain_in, 400)
        self.assertEqual([len(ipip), len(gre), len(sit), len(plain)], [3, 3, 3, 3])
        frames += ipip                                  # in order
        frames += gre[::-1]                             # reversed
        # sit and plain ipip interleaved, plain completing first
        frames += [sit[1], plain[2], sit[0], plain[0], plain[1], sit[2]]
        out1 += [self.expect('fou ipip, in order', ipip_in, ft.MAC_NH_IPIP),
                 self.expect('fou gre, reversed', gre_in, ft.MAC_NH_GRE),
                 self.expect('plain ipip, interleaved', plain_in, ft.MAC_NH_IPIP),
                 self.expect('fou sit, interleaved', sit_in, ft.MAC_NH_SIT)]
        decap += [(5555, 'ipv4'), (5556, 'ipv4'), (0, 'ipv4'), (5557, 'ipv6')]
        # a ping of the gateway in two fragments: the reply whole
        ping = IP(src=ft.IP_PEER, dst=ft.IP_P0, id=1005) / ICMP(id=9, seq=1) / \
            Raw(bytes(range(256)) * 4)
        frames += frags(ping, 520)[::-1]
        out0.append(ft.Expected('echo reply to a fragmented ping', b'', port=0,
                                eth_dst=ft.MAC_PEER, l3=ft.echo_reply4(bytes(ping)),
                                icmp='icmp_echo_reply', ignore=ft.ICMP4_IGNORE))

        # --- bad fragments, each under its reason
        dup_in = ft.v4(size=1000, seq=5)
        dup = frags(outer(1006, 5555) / dup_in, 400)
        frames += [dup[0], dup[0], dup[2], dup[1]]
        drops['reasm_duplicate'] = 1
        out1.append(self.expect('a duplicate dropped alone', dup_in, ft.MAC_NH_IPIP))
        decap.append((5555, 'ipv4'))
        ov = frags(outer(1007, 5555) / ft.v4(size=1000, seq=6), 400)
        frames += [ov[0], raw_frag(1007, 392, bytes(16), True)]
        drops['reasm_overlap'] = 2
        frames += [raw_frag(1008, 65528, bytes(16), False)]
        drops['reasm_oversize'] = 1
        frames += [raw_frag(1009, 8 * i, bytes(8), True) for i in range(8)]
        drops['reasm_too_many'] = 8
        frames += [raw_frag(1010, 800, bytes(40), False), raw_frag(1010, 800, bytes(32), False)]
        drops['reasm_bad'] = 2
        ecn = frags(outer(1011, 5555) / ft.v4(size=1000, seq=7), 400)
        ecn[1][IP].tos = 3
        del ecn[1][IP].chksum
        frames += ecn
        drops['reasm_ecn'] = 3

        # --- timeouts: time exceeded about one whose first came, none else
        lost = frags(outer(1012, 5555) / ft.v4(size=1000, seq=8), 400)
        frames += [lost[0], lost[2], raw_frag(1013, 504, bytes(64), True)]
        drops['reasm_timeout'] = 2
        out0.append(ft.Expected('time exceeded, fragment reassembly', b'', port=0,
                                eth_dst=ft.MAC_PEER,
                                l3=ft.icmp4_error(ft.l3_of(bytes(lost[0])), ft.IP_P0,
                                                  'icmp_reasm_exceeded'),
                                icmp='icmp_reasm_exceeded', ignore=ft.ICMP4_IGNORE))

        path = ft.write_pcap(self.path('in.pcap'), [bytes(f) for f in frames])
        run = self.run_gw({0: path}, OPTS + ['--ipfrag-time', '1'], idle_exit=2500)
        self.assertCounters(run, rx={0: len(frames), 1: 0}, tx={0: len(out0), 1: len(out1)},
                            drops=drops, decap=decap,
                            icmp={'icmp_echo_reply': 1, 'icmp_reasm_exceeded': 1})
        self.assertEqual(run.summary.reasm_datagrams, len(out1) + 1, run.describe())
        self.assertOutput(run.outputs[1], out1, ft.MAC_P1)
        self.assertOutput(run.outputs[0], out0, ft.MAC_P0)
        # tshark's own reading of the error: type 11, code 1, about the
        # first fragment (MF, offset 0, its ID)
        f = ft.tshark_fields(run.outputs[0], ['icmp.type', 'icmp.code', 'ip.id', 'ip.flags.mf',
                                              'ip.frag_offset'])
        self.assertEqual(f[1]['icmp.type'], ['11'])
        self.assertEqual(f[1]['icmp.code'], ['1'])
        self.assertEqual(f[1]['ip.id'][1], '0x03f4')
        self.assertEqual(f[1]['ip.flags.mf'][1:], ['1'])
        self.assertEqual(f[1]['ip.frag_offset'][1:], ['0'])

    def test_flood(self):
        n = HELD_MAX // 2 + 100
        frames = []
        for i in range(n):
            frames += [raw_frag(i, 0, bytes(16), True), raw_frag(i, 16, bytes(16), True)]
        # over the bound, a datagram that would complete is refused too
        late = frags(outer(60000, 5555) / ft.v4(size=400, seq=1), 200)
        frames += late
        # and what is not a fragment goes on
        after = [ft.fou(5555, ft.v4(seq=10 + i)) for i in range(20)]
        frames += after
        path = ft.write_pcap(self.path('in.pcap'), [bytes(f) for f in frames])
        run = self.run_gw({0: path}, OPTS)
        full = 2 * n - HELD_MAX + len(late)
        self.assertCounters(run, rx={0: len(frames), 1: 0}, tx={0: 0, 1: len(after)},
                            drops={'reasm_full': full, 'reasm_stopped': HELD_MAX},
                            decap=[(5555, 'ipv4')] * len(after))
        self.assertOutput(run.outputs[1], [self.expect('after the flood %d' % i,
                                                       ft.tunnel_payload(bytes(f)),
                                                       ft.MAC_NH_IPIP)
                                           for i, f in enumerate(after)], ft.MAC_P1)


if __name__ == '__main__':
    ft.main()
