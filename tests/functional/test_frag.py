#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""IPv4 fragmentation on the way out (issue 17), as Linux' ip_fragment does
it, through the pcap PMD in one gateway run. A host on port 0 (10.99.0.50)
sends every packet; port 1 has MTU 1000; four FOU tunnels leave by port 0
(MTU 1500). First, "fragmentation needed" from a router on the path lowers
the path MTU of a pmtudisc tunnel (tpm) and of a nopmtudisc one (tnop) to
1200. Then:

- without DF over port 1's MTU: fragments of at most 1000 bytes, the ID
  kept, offsets in 8-byte units, MF on all but the last; a fragment (MF,
  offset 800) cut again keeps MF on its last piece; with options, the first
  fragment has all, the others the copied ones (router alert) and NOPs in
  place of the rest, the header as long as the original's;
- without DF into an ipip and a gre tunnel (MTU 1472, 1468): the inner
  packet is cut to the tunnel MTU and each fragment encapsulated with an
  outer ID of its own;
- with DF: "fragmentation needed" to the host as before (port 1's MTU, the
  tunnel MTU; the path MTU less the headers on tpm and tnop);
- the pmtudisc / nopmtudisc matrix over a learnt path MTU: tpm without DF
  within its MTU but over the path's is lost (its outer DF forbids
  fragmenting: Linux' ip_fragment refuses it); tnop sends the outer packet
  without DF, cut to the path MTU (outer fragments, one outer ID, the UDP
  checksum over the whole datagram), IPv6 inside too; a packet over tnop's
  MTU is cut inside first, and its first fragment outside again.

tshark reassembles (IPv4 reassembly is its default) and finds each original
payload; offsets, MF, IDs, options and lengths are read from the frames
themselves. The exit summary counts the fragments (per port, per tunnel)
and balances rx + fragments added = tx + drops."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.layers.inet import IP, UDP, ICMP, IPOption  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402

H0, MAC_H0 = '10.99.0.50', '02:00:0a:63:00:32'
H0_6 = 'fd00:50::2'
ROUTER, ROUTER_MAC = '10.99.0.254', '02:00:0a:63:00:fe'
MAC_NH = '02:00:00:00:01:02'
REMOTE_MAC = {'10.99.0.%d' % i: '02:00:0a:63:00:%02x' % i for i in (2, 3, 5, 6)}
P1_MTU = 1000
PATH_MTU = 1200

# name: (type, remote, args, routes, outer overhead)
TUNNELS = {
    'tipip': ('ipip', '10.99.0.2', 'encap-sport=40000,encap-dport=5555', ['172.16.1.0/24'], 28),
    'tgre': ('gre', '10.99.0.3', 'encap-sport=40001,encap-dport=5556', ['172.16.2.0/24'], 32),
    'tnop': ('gre', '10.99.0.5', 'nopmtudisc,encap-sport=40003,encap-dport=5556,encap-csum',
             ['172.16.5.0/24', 'fd00:a5::/64'], 32),
    'tpm': ('ipip', '10.99.0.6', 'encap-sport=40004,encap-dport=5555', ['172.16.6.0/24'], 28),
}
SPORT = {'tipip': 40000, 'tgre': 40001, 'tnop': 40003, 'tpm': 40004}
REMOTE = {n: t[1] for n, t in TUNNELS.items()}

OPTS = [
    '--link', '0,address=' + ft.MAC_P0,
    '--link', '1,address=%s,mtu=%d' % (ft.MAC_P1, P1_MTU),
    '--addr', '0,10.99.0.1/24',
    '--addr', '1,192.168.1.1/24',
    '--route', '192.168.4.0/24,dev=1,via=192.168.1.2',
    '--neigh', '192.168.1.2,dev=1,lladdr=' + MAC_NH,
    '--neigh', '%s,dev=0,lladdr=%s' % (H0, MAC_H0),
] + [x for ip, mac in REMOTE_MAC.items() for x in ('--neigh', '%s,dev=0,lladdr=%s' % (ip, mac))]
for _n, (_ty, _rem, _args, _routes, _) in TUNNELS.items():
    OPTS += ['--tunnel', '%s,type=%s,local=10.99.0.1,remote=%s,%s' % (_n, _ty, _rem, _args)]
    for _r in _routes:
        OPTS += ['--route', '%s,dev=%s' % (_r, _n)]

# router alert (copied) and an experimental option (30, not copied)
OPT_RA, OPT_EXP = b'\x94\x04\x00\x00', b'\x1e\x04\xab\xcd'


def data(n, seed):
    return bytes((seed * 31 + i * 7) & 0xff for i in range(n))


def from_h0(l3):
    return Ether(src=MAC_H0, dst=ft.MAC_P0) / l3


def udp4(dst, size, ident, df, seed, options=None):
    """An IPv4 UDP packet of size bytes from the host; its UDP payload."""
    ip = IP(src=H0, dst=dst, ttl=64, id=ident, flags='DF' if df else 0)
    if options:
        ip.options = [IPOption(o) for o in options]
    hl = 20 + sum(len(o) for o in options or ())
    payload = data(size - hl - 8, seed)
    return ip / UDP(sport=41000 + seed, dport=9) / Raw(payload), payload


def frag_needed(tunnel):
    """What a router on the path says about tunnel's outer packets: an MTU
    of PATH_MTU, quoting the outer headers as the tunnel builds them."""
    ty, remote = TUNNELS[tunnel][0], REMOTE[tunnel]
    inner = bytes(IP(src=H0, dst='172.16.6.9', len=1400) / UDP(sport=1, dport=2))
    fou = (b'\x00\x00\x08\x00' if ty == 'gre' else b'') + inner
    quote = bytes(IP(src='10.99.0.1', dst=remote, ttl=64, flags='DF', id=7, len=1428) /
                  UDP(sport=SPORT[tunnel], dport=5556 if ty == 'gre' else 5555, len=1408,
                      chksum=0) / Raw(fou))
    return (Ether(src=ROUTER_MAC, dst=ft.MAC_P0) / IP(src=ROUTER, dst='10.99.0.1', ttl=63) /
            ICMP(type=3, code=4, nexthopmtu=PATH_MTU) / Raw(quote))


def ip4_fields(b):
    """(header length, total length, ID, MF, DF, offset in bytes, TTL)."""
    fo = b[6] << 8 | b[7]
    return ((b[0] & 0xf) * 4, b[2] << 8 | b[3], b[4] << 8 | b[5], bool(fo & 0x2000),
            bool(fo & 0x4000), (fo & 0x1fff) * 8, b[8])


def fou_inner(outer_payload, ty):
    """The inner packet of a whole outer UDP datagram (after its UDP header)."""
    p = outer_payload[8:]
    return p[4:] if ty == 'gre' else p


class Frag(ft.GatewayTestCase):
    def test_fragmentation(self):
        frames, cases = [frag_needed('tpm'), frag_needed('tnop')], {}

        def add(name, l3, payload=None):
            cases[name] = (bytes(l3), payload)
            frames.append(from_h0(l3))

        # onto port 1 (MTU 1000)
        p, pl = udp4('192.168.4.9', 1400, 0xa001, False, 1)
        add('plain', p, pl)
        p, _ = udp4('192.168.4.9', 1400, 0xa002, True, 2)
        add('plain DF', p)
        ff = IP(src=H0, dst='192.168.4.9', ttl=64, id=0xa003, flags='MF', frag=100,
                proto=17) / Raw(data(1200, 3))
        add('fragment', ff)
        p, pl = udp4('192.168.4.9', 1400, 0xa004, False, 4, [OPT_RA, OPT_EXP])
        add('options', p, pl)
        # into the tunnels, MTU 1472 (ipip) and 1468 (gre)
        p, pl = udp4('172.16.1.9', 1500, 0xb001, False, 5)
        add('tipip', p, pl)
        p, _ = udp4('172.16.1.9', 1500, 0xb002, True, 6)
        add('tipip DF', p)
        p, pl = udp4('172.16.2.9', 1500, 0xb003, False, 7)
        add('tgre', p, pl)
        # path MTU 1200: tpm (pmtudisc), tnop (nopmtudisc)
        p, _ = udp4('172.16.6.9', 1300, 0xc001, True, 8)
        add('tpm DF', p)
        p, _ = udp4('172.16.6.9', 1300, 0xc002, False, 9)
        add('tpm', p)
        p, pl = udp4('172.16.5.9', 1300, 0xc003, False, 10)
        add('tnop', p, pl)
        p, _ = udp4('172.16.5.9', 1300, 0xc004, True, 11)
        add('tnop DF', p)
        pl6 = data(1300 - 48, 12)
        add('tnop v6', IPv6(src=H0_6, dst='fd00:a5::9', hlim=64) /
            UDP(sport=41012, dport=9) / Raw(pl6), pl6)
        p, pl = udp4('172.16.5.9', 1500, 0xc005, False, 13)
        add('tnop inner', p, pl)

        run = self.run_gw({0: ft.write_pcap(self.path('in0.pcap'), frames)}, OPTS)
        self.assertCounters(run, rx={0: len(frames), 1: 0}, tx={0: 4 + 11, 1: 6},
                            drops={'mtu_exceeded': 1}, fou_ports={},
                            icmp={'icmp_frag_needed': 4})
        s, ctx = run.summary, '\n' + run.describe()
        self.assertEqual(s.local.get('pmtu_updates'), 2, ctx)
        self.assertEqual(s.frag, (9, 18), 'packets fragmented, fragments made' + ctx)
        self.assertEqual(s.frag_added, 9, ctx)
        self.assertEqual(s.port_frags, {0: 6, 1: 6}, ctx)
        self.assertEqual(s.tunnel_frags, {'tipip': (2, 0), 'tgre': (2, 0), 'tnop': (2, 6)}, ctx)
        for port in (0, 1):
            self.assertEqual(ft.tshark_problems(run.outputs[port], fou_ports='5555:4,5556:47',
                                                tcp=False), [], 'port %d' % port)

        out1 = [f[14:] for f in ft.capture_frames(run.outputs[1])]
        out0 = ft.capture_frames(run.outputs[0])
        self.check_port1(out1, cases)
        self.check_icmp([f for f in out0 if f[14 + 9] == 1], cases)
        self.check_tunnels([f[14:] for f in out0 if f[14 + 9] != 1], cases)
        self.check_reassembled(run, cases)

    def test_jumbo(self):
        """Fragments larger than an mbuf (jumbo MTUs): port 0 takes 9000
        bytes, port 1 has MTU 4000. A fragment there is a header mbuf and
        indirect ones pointing into the packet (the port sends chains):
        the same fragments on the wire, every indirect mbuf back."""
        opts = [o.replace('mtu=%d' % P1_MTU, 'mtu=4000') for o in OPTS]
        opts[1] = '0,address=%s,mtu=9000' % ft.MAC_P0
        p, pl = udp4('192.168.4.9', 8000, 0xd001, False, 20)
        run = self.run_gw({0: ft.write_pcap(self.path('jumbo.pcap'), [from_h0(p)])}, opts)
        self.assertCounters(run, rx={0: 1, 1: 0}, tx={0: 0, 1: 3}, drops={}, fou_ports={})
        self.assertEqual(run.summary.frag, (1, 3), run.describe())
        out = [f[14:] for f in ft.capture_frames(run.outputs[1])]
        self.assertCut(self.pieces(out, 0xd001), bytes(p), 4000, 'jumbo')
        self.assertEqual([ip4_fields(f)[1] for f in self.pieces(out, 0xd001)],
                         [3996, 3996, 8000 - 2 * 3976])
        found = set()
        for r in ft.tshark_fields(run.outputs[1], ['data.data'], checksums=False):
            found.update(r['data.data'])
        self.assertIn(pl.hex(), found)

    def test_reassembled_then_cut(self):
        """Outer fragments of FOU from tipip's remote, reassembled (a chain
        of mbufs past 2 KB), decapsulated, and the inner packet without DF
        cut to port 1's MTU on its way out, as Linux' ip_defrag, then
        ip_forward's ip_fragment."""
        from scapy.layers.inet import fragment
        p, pl = udp4('192.168.4.7', 2600, 0xd101, False, 21)
        outer = (IP(src=REMOTE['tipip'], dst='10.99.0.1', id=0x5151) /
                 UDP(sport=40000, dport=5555) / p)
        frames = [Ether(src=REMOTE_MAC[REMOTE['tipip']], dst=ft.MAC_P0) / f
                  for f in fragment(outer, fragsize=1200)]
        self.assertEqual(len(frames), 3)
        run = self.run_gw({0: ft.write_pcap(self.path('reasm.pcap'), frames)},
                          OPTS + ['--port', '5555:ipip'])
        self.assertEqual(run.summary.reasm_datagrams, 1, run.describe())
        self.assertEqual(run.summary.frag, (1, 3), run.describe())
        out = [f[14:] for f in ft.capture_frames(run.outputs[1])]
        self.assertCut(self.pieces(out, 0xd101), bytes(p), P1_MTU, 'reassembled, then cut')
        found = set()
        for r in ft.tshark_fields(run.outputs[1], ['data.data'], checksums=False):
            found.update(r['data.data'])
        self.assertIn(pl.hex(), found)

    def pieces(self, frames, ident):
        got = [f for f in frames if ip4_fields(f)[2] == ident]
        return sorted(got, key=lambda f: ip4_fields(f)[5])

    def assertCut(self, pieces, orig, mtu, name, start=0, mf_last=False):
        """pieces: the fragments of the IPv4 packet orig, cut at mtu."""
        ohl, otot = ip4_fields(orig)[:2]
        at, body = start, b''
        self.assertGreaterEqual(len(pieces), 2, name)
        for i, f in enumerate(pieces):
            hl, tot, ident, mf, df, off, ttl = ip4_fields(f)
            last = i == len(pieces) - 1
            self.assertEqual((ident, df, ttl, hl), (ip4_fields(orig)[2], False, 63, ohl), name)
            self.assertEqual(off, at, '%s: fragment %d offset' % (name, i))
            self.assertEqual(mf, not last or mf_last, '%s: fragment %d MF' % (name, i))
            self.assertLessEqual(tot, mtu, name)
            self.assertTrue(ft.ip4_cksum_ok(f[:hl]), name)
            if not last:
                self.assertEqual((tot - hl) % 8, 0, name)
                # as full as 8-byte units allow (Linux' ip_do_fragment)
                self.assertGreater(tot + 8, mtu, name)
            self.assertEqual(f[12:20], orig[12:20], name)
            body += f[hl:tot]
            at += tot - hl
        self.assertEqual(body, orig[ohl:otot], name + ': the payloads together')

    def check_port1(self, out, cases):
        self.assertEqual(len(out), 6)
        self.assertCut(self.pieces(out, 0xa001), cases['plain'][0], P1_MTU, 'plain')
        self.assertCut(self.pieces(out, 0xa003), cases['fragment'][0], P1_MTU,
                       'fragment of a fragment', start=800, mf_last=True)
        opts = self.pieces(out, 0xa004)
        self.assertCut(opts, cases['options'][0], P1_MTU, 'options')
        # all options on the first; on the others the copied one, NOPs
        self.assertEqual(opts[0][20:28], OPT_RA + OPT_EXP)
        for f in opts[1:]:
            self.assertEqual(f[20:28], OPT_RA + b'\x01' * 4)

    def check_icmp(self, errors, cases):
        """Fragmentation needed to the host, by the ID of the packet quoted."""
        mtus = {}
        for f in errors:
            ip = f[14:]
            self.assertEqual((ip[20], ip[21], ip[16:20]), (3, 4, bytes(map(int, H0.split('.')))))
            mtus[ip4_fields(ip[28:])[2]] = ip[26] << 8 | ip[27]
        self.assertEqual(mtus, {0xa002: P1_MTU, 0xb002: 1500 - 28, 0xc001: PATH_MTU - 28,
                                0xc004: PATH_MTU - 32})

    def outer_of(self, frames, tunnel):
        return [f for f in frames if f[16:20] == bytes(map(int, REMOTE[tunnel].split('.')))]

    def check_tunnels(self, frames, cases):
        self.assertEqual(len(frames), 11)
        # inner fragments, each in an outer packet of its own
        for name, mtu in (('tipip', 1472), ('tgre', 1468)):
            outer = self.outer_of(frames, name)
            self.assertEqual(len(outer), 2, name)
            ids = set()
            for f in outer:
                hl, tot, ident, mf, df, off, _ = ip4_fields(f)
                self.assertEqual((mf, df, off), (False, True, 0), name + ': outer')
                self.assertLessEqual(tot, 1500, name)
                self.assertEqual(f[hl:hl + 2], SPORT[name].to_bytes(2, 'big'), name)
                ids.add(ident)
            self.assertEqual(len(ids), 2, name + ': one outer ID each')
            inner = sorted((fou_inner(f[20:], TUNNELS[name][0]) for f in outer),
                           key=lambda f: ip4_fields(f)[5])
            self.assertCut(inner, cases[name][0], mtu, name)
        # outer fragments: tnop's packets over the path MTU, without DF
        tnop = self.outer_of(frames, 'tnop')
        self.assertEqual(len(tnop), 7)
        by_id = {}
        for f in tnop:
            by_id.setdefault(ip4_fields(f)[2], []).append(f)
        whole = {}
        for ident, fs in by_id.items():
            fs.sort(key=lambda f: ip4_fields(f)[5])
            at, body = 0, b''
            for i, f in enumerate(fs):
                hl, tot, _, mf, df, off, _ = ip4_fields(f)
                self.assertEqual((df, off, mf), (False, at, i < len(fs) - 1), 'tnop outer')
                self.assertLessEqual(tot, PATH_MTU)
                if mf:
                    self.assertEqual(tot, 20 + ((PATH_MTU - 20) & ~7))
                body += f[hl:tot]
                at += tot - hl
            whole[ident] = fs[0][:20] + body
        inners = []
        for ident, pkt in whole.items():
            udp = pkt[20:]
            self.assertEqual(len(udp), udp[4] << 8 | udp[5])
            self.assertNotEqual(udp[6:8], b'\0\0', 'tnop: encap-csum')
            self.assertEqual(ft.inet_sum(pkt[12:20] + b'\0\x11' + udp[4:6] + udp), 0xffff,
                             'tnop: the UDP checksum over the whole datagram')
            inners.append(fou_inner(udp, 'gre'))
        # v4 whole (1300), v6 whole, and the inner fragments of 'tnop inner'
        v4 = [i for i in inners if i[0] >> 4 == 4]
        v6 = [i for i in inners if i[0] >> 4 == 6]
        self.assertEqual(len(v6), 1)
        self.assertEqual(v6[0][48:], cases['tnop v6'][1])
        whole_v4 = [i for i in v4 if ip4_fields(i)[2] == 0xc003]
        self.assertEqual(len(whole_v4), 1)
        self.assertEqual(whole_v4[0][28:], cases['tnop'][1])
        self.assertEqual(sorted(len(fs) for fs in by_id.values()), [1, 2, 2, 2])
        cut = sorted((i for i in v4 if ip4_fields(i)[2] == 0xc005),
                     key=lambda f: ip4_fields(f)[5])
        self.assertCut(cut, cases['tnop inner'][0], 1468, 'tnop inner')

    def check_reassembled(self, run, cases):
        """tshark's own reassembly (outer, then inner) finds each payload."""
        found = set()
        for port in (0, 1):
            for r in ft.tshark_fields(run.outputs[port], ['data.data'], checksums=False,
                                      fou_ports='5555:4,5556:47'):
                found.update(r['data.data'])
        for name, (_, payload) in cases.items():
            if payload is not None:
                self.assertIn(payload.hex(), found, name + ': not reassembled by tshark')


if __name__ == '__main__':
    ft.main()
