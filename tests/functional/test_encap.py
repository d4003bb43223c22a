#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Case 8: encapsulation. Plain inner traffic (IPv4 ICMP/TCP/UDP, IPv6
ICMPv6/UDP/TCP, several flows) enters port 1, is routed into tunnels (ipip,
sit, gre with IPv4 and IPv6 inside; encap fou and none; a representative set
of the tunnel options) and leaves port 0. Every outer field is checked with
tshark (tests/tshark/fou.lua decodes FOU) and against an outer header this
script builds from the tunnel's configuration; the inner packet must be the
input bit for bit except its TTL / hop limit (one less) and IPv4 checksum.
tshark must find no expert error (every checksum check on) and nothing
malformed. Then: --sport-range, the summary and /fou/tunnels, config-file
tunnels, tunnels without a way to their remote, and the decapsulation of
what we encapsulated by a second gateway configured as the peer."""
import collections
import os
import signal
import socket
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether, GRE  # noqa: E402
from scapy.layers.inet import IP, UDP, TCP, ICMP  # noqa: E402
from scapy.layers.inet6 import IPv6, ICMPv6EchoRequest  # noqa: E402

# port 1: the inner side, one host (IPv4 and IPv6) sending into the tunnels
MAC_H1 = '02:00:c0:a8:01:32'
H4 = '192.168.1.50'
H6 = 'fd00:1::50'
# port 0: the tunnel remotes and a router to a remote that is not on-link
LOCAL = ft.IP_P0
REMOTE_MAC = {'10.99.0.%d' % i: '02:00:0a:63:00:%02x' % i for i in (2, 3, 4, 5, 6, 254)}
GATEWAY = '10.99.0.254'

LINK_OPTS = [
    '--link', '0,address=' + ft.MAC_P0,
    '--link', '1,address=' + ft.MAC_P1,
    '--addr', '0,10.99.0.1/24',
    '--addr', '1,192.168.1.1/24',
    '--addr', '1,fd00:1::1/64',
    '--neigh', '%s,dev=1,lladdr=%s' % (H4, MAC_H1),
    '--neigh', '%s,dev=1,lladdr=%s' % (H6, MAC_H1),
    '--route', '198.51.100.0/24,dev=0,via=' + GATEWAY,
] + [x for ip, mac in REMOTE_MAC.items()
     for x in ('--neigh', '%s,dev=0,lladdr=%s' % (ip, mac))]

SPORT_MIN, SPORT_MAX = 32768, 60999     # Linux' ip_local_port_range, the default
FOU_PROTO = {'ipip': 4, 'sit': 41, 'gre': 47}


class Tunnel:
    """A tunnel as configured (--tunnel NAME,ARGS) and what its outer
    header must be."""

    def __init__(self, name, ttype, remote, args='', v4=(), v6=()):
        self.name, self.type, self.remote = name, ttype, remote
        self.args = args
        self.v4, self.v6 = list(v4), list(v6)
        kv = {}
        for a in filter(None, args.split(',')):
            k, _, v = a.partition('=')
            kv[k] = v
        self.fou = kv.get('encap', 'fou') == 'fou'
        self.ttl = 0 if kv.get('ttl', 'inherit') == 'inherit' else int(kv['ttl'], 0)
        self.tos = None if kv.get('tos') == 'inherit' else int(kv.get('tos', '0'), 0)
        self.pmtudisc = 'nopmtudisc' not in kv
        self.sport = None if kv.get('encap-sport', 'auto') == 'auto' else int(kv['encap-sport'])
        self.dport = int(kv['encap-dport']) if 'encap-dport' in kv else None
        self.udp_csum = 'encap-csum' in kv
        self.key = int(kv['key'], 0) if 'key' in kv else None
        self.gre_csum = 'csum' in kv
        self.seq = 'seq' in kv
        self.proto = 17 if self.fou else FOU_PROTO[ttype]
        self.gre_len = (4 + 4 * (self.gre_csum + (self.key is not None) + self.seq)
                        if ttype == 'gre' else 0)
        self.overhead = 20 + (8 if self.fou else 0) + self.gre_len
        self.eth_dst = REMOTE_MAC.get(remote, REMOTE_MAC[GATEWAY])

    def opts(self, local=LOCAL):
        o = ['--tunnel', '%s,type=%s,local=%s,remote=%s%s' % (
            self.name, self.type, local, self.remote, ',' + self.args if self.args else '')]
        for p in self.v4 + self.v6:
            o += ['--route', '%s,dev=%s' % (p, self.name)]
        return o

    def dst4(self, i):
        return self.v4[0].split('/')[0].rsplit('.', 1)[0] + '.%d' % i

    def dst6(self, i):
        return self.v6[0].split('/')[0] + '%x' % i

    def outer(self, l3, ident, sport, seq):
        """The expected outer packet around the forwarded inner packet l3,
        built from the configuration: (bytes, outer TOS, TTL, DF). The
        IPv4 ID, the auto source port and the GRE sequence number are given
        (they are checked on their own)."""
        if l3[0] >> 4 == 6:
            tos_in, ttl_in, df_in = ((l3[0] & 0xf) << 4) | (l3[1] >> 4), l3[7], False
            gre_proto = 0x86dd
        else:
            tos_in, ttl_in, df_in = l3[1], l3[8], bool(l3[6] & 0x40)
            gre_proto = 0x0800
        ecn = tos_in & 3
        if ecn == 3:                    # RFC 6040 normal mode: CE -> ECT(0)
            ecn = 2
        tos = ((tos_in if self.tos is None else self.tos) & 0xfc) | ecn
        payload = b''
        if self.type == 'gre':
            g = bytearray(((0x8000 if self.gre_csum else 0) | (0x2000 if self.key is not None
                                                                else 0) |
                           (0x1000 if self.seq else 0)).to_bytes(2, 'big') +
                          gre_proto.to_bytes(2, 'big'))
            if self.gre_csum:
                g += bytes(4)
            if self.key is not None:
                g += self.key.to_bytes(4, 'big')
            if self.seq:
                g += seq.to_bytes(4, 'big')
            if self.gre_csum:
                g[4:6] = ft.inet_cksum(bytes(g) + l3).to_bytes(2, 'big')
            payload = bytes(g)
        payload += l3
        if self.fou:
            ulen = 8 + len(payload)
            udp = bytearray(struct_udp(self.sport if self.sport else sport, self.dport, ulen))
            if self.udp_csum:
                phdr = (socket.inet_aton(LOCAL) + socket.inet_aton(self.remote) +
                        bytes([0, 17]) + ulen.to_bytes(2, 'big'))
                c = ft.inet_cksum(phdr + bytes(udp) + payload)
                udp[6:8] = (c or 0xffff).to_bytes(2, 'big')
            payload = bytes(udp) + payload
        ip = ft.ip4_header(LOCAL, self.remote, self.proto, len(payload), tos=tos,
                           ttl=self.ttl or ttl_in, ident=ident, df=self.pmtudisc or df_in)
        return ip + payload, tos, self.ttl or ttl_in, self.pmtudisc or df_in


def struct_udp(sport, dport, ulen):
    return sport.to_bytes(2, 'big') + dport.to_bytes(2, 'big') + ulen.to_bytes(2, 'big') + b'\0\0'


# The tunnels of the main run: every type, encap fou and none, and the
# options in combinations (ttl fixed / inherit, tos fixed / inherit,
# pmtudisc / nopmtudisc, encap-sport auto / fixed, encap-csum on / off,
# GRE key, csum and seq, a remote reached through a router).
TUNNELS = [
    Tunnel('fipip', 'ipip', '10.99.0.2', 'encap-dport=5555', v4=['172.16.1.0/24']),
    Tunnel('fipipc', 'ipip', '10.99.0.3', 'ttl=64,tos=0x10,encap-dport=5555,encap-csum',
           v4=['172.16.2.0/24']),
    Tunnel('fipipn', 'ipip', '10.99.0.4',
           'ttl=inherit,tos=inherit,nopmtudisc,encap-sport=40000,encap-dport=5555',
           v4=['172.16.3.0/24']),
    Tunnel('fipipgw', 'ipip', '198.51.100.7', 'ttl=200,encap-dport=5555,noencap-csum',
           v4=['172.16.4.0/24']),
    Tunnel('fsit', 'sit', '10.99.0.2', 'encap-dport=5557', v6=['fd00:a1::/64']),
    Tunnel('fsitc', 'sit', '10.99.0.3', 'ttl=64,tos=0x10,encap-sport=40001,encap-dport=5557,'
           'encap-csum', v6=['fd00:a2::/64']),
    Tunnel('fsitn', 'sit', '10.99.0.4', 'nopmtudisc,tos=inherit,encap-dport=5557',
           v6=['fd00:a3::/64']),
    Tunnel('fgre', 'gre', '10.99.0.2', 'encap-dport=5556', v4=['172.16.10.0/24'],
           v6=['fd00:b1::/64']),
    Tunnel('fgrek', 'gre', '10.99.0.2', 'key=0x01020304,tos=inherit,encap-dport=5556',
           v4=['172.16.11.0/24'], v6=['fd00:b2::/64']),
    Tunnel('fgrecks', 'gre', '10.99.0.3', 'csum,key=7,seq,ttl=64,tos=0x10,encap-dport=5556,'
           'encap-csum', v4=['172.16.12.0/24'], v6=['fd00:b3::/64']),
    Tunnel('fgres', 'gre', '10.99.0.4', 'seq,nopmtudisc,tos=inherit,encap-sport=40002,'
           'encap-dport=5556', v4=['172.16.13.0/24'], v6=['fd00:b4::/64']),
    Tunnel('fgrec', 'gre', '10.99.0.5', 'csum,encap-dport=5556,encap-csum',
           v4=['172.16.14.0/24']),
    Tunnel('pipip', 'ipip', '10.99.0.5', 'encap=none,ttl=64', v4=['172.16.20.0/24']),
    Tunnel('psit', 'sit', '10.99.0.5', 'encap=none,tos=inherit', v6=['fd00:c1::/64']),
    Tunnel('pgre', 'gre', '10.99.0.6', 'encap=none,key=9,csum,seq', v4=['172.16.21.0/24'],
           v6=['fd00:c2::/64']),
    Tunnel('pgre2', 'gre', '10.99.0.6', 'encap=none,nopmtudisc,tos=0x10',
           v4=['172.16.22.0/24']),
]
BY_NAME = {t.name: t for t in TUNNELS}


def tunnel_opts(tunnels=TUNNELS):
    return LINK_OPTS + [x for t in tunnels for x in t.opts()]


def payload(n, seed):
    return Raw(bytes((seed * 7 + i) & 0xff for i in range(n)))


def inner4(dst, kind, i, size=None):
    """Inner IPv4 packets of several flows and TOS / TTL / DF values."""
    if kind == 'icmp':
        p = IP(src=H4, dst=dst, ttl=64, tos=0, flags='DF', id=0x100 + i) / \
            ICMP(id=0x77, seq=i) / payload(20 + i % 9, i)
    elif kind == 'udpA':
        p = IP(src=H4, dst=dst, ttl=2, tos=0xb9, id=0x200 + i) / \
            UDP(sport=50001, dport=50100) / payload(33, i)
    elif kind == 'udpA2':
        p = IP(src=H4, dst=dst, ttl=255, tos=0x4b, flags='DF', id=0x300 + i) / \
            UDP(sport=50001, dport=50100) / payload(101, i)
    elif kind == 'tcpB':
        p = IP(src=H4, dst=dst, ttl=64, tos=0x22, flags='DF', id=0x400 + i) / \
            TCP(sport=50002, dport=50200, flags='PA', seq=1000, ack=1) / payload(60, i)
    elif kind == 'udpC':
        p = IP(src=H4, dst=dst, ttl=9, tos=0x03, id=0x500 + i) / \
            UDP(sport=50003, dport=50100) / payload(7, i)
    elif kind == 'tcpB2':
        p = IP(src=H4, dst=dst, ttl=64, tos=0x10, flags='DF', id=0x600 + i) / \
            TCP(sport=50002, dport=50200, flags='PA', seq=1060, ack=1) / payload(61, i)
    else:                               # 'udpN': one more flow per i
        p = IP(src=H4, dst=dst, ttl=64, tos=0x02, id=0x700 + i) / \
            UDP(sport=51000 + i, dport=50300) / payload(20, i)
    if size is not None:
        p = p / Raw(bytes(size - len(p)))
    return p


def inner6(dst, kind, i, size=None):
    if kind == 'icmp':
        p = IPv6(src=H6, dst=dst, hlim=64, tc=0, fl=0x1234) / \
            ICMPv6EchoRequest(id=0x66, seq=i) / payload(16 + i % 5, i)
    elif kind == 'udpA':
        p = IPv6(src=H6, dst=dst, hlim=2, tc=0xb9, fl=0xabcde) / \
            UDP(sport=50001, dport=50100) / payload(40, i)
    elif kind == 'udpA2':
        p = IPv6(src=H6, dst=dst, hlim=255, tc=0x4b, fl=0xabcde) / \
            UDP(sport=50001, dport=50100) / payload(99, i)
    elif kind == 'tcpB':
        p = IPv6(src=H6, dst=dst, hlim=64, tc=0x22) / \
            TCP(sport=50002, dport=50200, flags='PA', seq=1000, ack=1) / payload(50, i)
    elif kind == 'udpC':
        p = IPv6(src=H6, dst=dst, hlim=9, tc=0x03) / \
            UDP(sport=50003, dport=50100) / payload(8, i)
    else:
        p = IPv6(src=H6, dst=dst, hlim=64, tc=0x01) / \
            UDP(sport=51000 + i, dport=50300) / payload(20, i)
    if size is not None:
        p = p / Raw(bytes(size - len(p)))
    return p


KINDS4 = ('icmp', 'udpA', 'tcpB', 'udpA2', 'udpC', 'tcpB2')
KINDS6 = ('icmp', 'udpA', 'tcpB', 'udpA2', 'udpC')


def from_host(inner):
    return Ether(src=MAC_H1, dst=ft.MAC_P1) / inner


class EncapCase:
    """One input frame and the tunnel it must leave by."""

    def __init__(self, name, tunnel, frame, l3=None, ignore_id=False):
        """l3: the inner packet if not frame's IP packet forwarded;
        ignore_id: the inner is an IPv4 packet the gateway built (its ID
        is not predictable)."""
        self.name, self.tunnel, self.frame = name, tunnel, bytes(frame)
        self.l3 = l3 if l3 is not None else ft.forwarded_l3(ft.l3_of(self.frame))
        self.ignore_id = ignore_id


def encap_traffic(tunnels=TUNNELS, extra_flows=8):
    """Per tunnel and inner family the flows of KINDS4 / KINDS6 (to two
    destinations), plus extra_flows UDP flows for the auto source port
    spread; interleaved over the tunnels."""
    per = []
    for t in tunnels:
        cases = []
        for d in (1, 2):
            if t.v4:
                cases += [EncapCase('%s v4 %s -> .%d' % (t.name, k, d), t,
                                    from_host(inner4(t.dst4(d), k, d)))
                          for k in KINDS4]
            if t.v6:
                cases += [EncapCase('%s v6 %s -> ::%d' % (t.name, k, d), t,
                                    from_host(inner6(t.dst6(d), k, d)))
                          for k in KINDS6]
        for i in range(extra_flows if t.fou and t.sport is None else 0):
            mk = (lambda i: inner4(t.dst4(3), 'udpN', i)) if t.v4 else \
                (lambda i: inner6(t.dst6(3), 'udpN', i))
            cases.append(EncapCase('%s flow %d' % (t.name, i), t, from_host(mk(i))))
        per.append(cases)
    out = []
    for i in range(max(len(c) for c in per)):
        out += [c[i] for c in per if i < len(c)]
    return out


def flow_key(l3):
    """The inner flow: addresses, protocol, ports."""
    if l3[0] >> 4 == 4:
        hl = (l3[0] & 0xf) * 4
        key = (l3[12:16], l3[16:20], l3[9])
        proto, l4 = l3[9], l3[hl:]
    else:
        key = (l3[8:24], l3[24:40], l3[6])
        proto, l4 = l3[6], l3[40:]
    return key + ((l4[:4],) if proto in (6, 17) else ())


OUTER_FIELDS = ['frame.protocols', 'eth.src', 'eth.dst', 'eth.type', 'ip.version',
                'ip.hdr_len', 'ip.len', 'ip.src', 'ip.dst', 'ip.ttl', 'ip.dsfield.dscp',
                'ip.dsfield.ecn', 'ip.flags.df', 'ip.flags.mf', 'ip.frag_offset', 'ip.proto',
                'ip.checksum.status', 'udp.srcport', 'udp.dstport', 'udp.length',
                'udp.checksum', 'udp.checksum.status', 'gre.flags.checksum', 'gre.flags.key',
                'gre.flags.sequence_number', 'gre.flags.version', 'gre.proto', 'gre.key',
                'gre.sequence_number', 'gre.checksum.status']


def flag(v):
    """A tshark boolean field value."""
    return {'1': True, 'True': True, '0': False, 'False': False}[v]


class EncapTestCase(ft.GatewayTestCase):
    def assertEncap(self, pcap, cases, sport_range=(SPORT_MIN, SPORT_MAX)):
        """The frames of pcap are the cases, in order, each encapsulated
        into its tunnel. Returns {tunnel name: {flow: set of sports}}."""
        raw = ft.capture_frames(pcap)
        names = [c.name for c in cases]
        self.assertEqual(len(raw), len(cases), '%s: %d frames, expected %d: %s' % (
            os.path.basename(pcap), len(raw), len(cases), names))
        rows = ft.tshark_fields(pcap, OUTER_FIELDS, fou_ports=ft.FOU_LUA_PORTS)
        self.assertEqual(len(rows), len(cases))
        self.assertEqual(ft.tshark_problems(pcap), [], 'tshark expert errors in ' + pcap)
        sports = collections.defaultdict(lambda: collections.defaultdict(set))
        seqs = collections.defaultdict(list)
        for got, row, c in zip(raw, rows, cases):
            t = c.tunnel
            l3 = c.l3
            if c.ignore_id:
                body = got[14 + t.overhead:]
                self.assertTrue(ft.ip4_cksum_ok(body[:20]), c.name + ': inner IPv4 checksum')
                l3 = l3[:4] + body[4:6] + l3[6:10] + body[10:12] + l3[12:]
            what = '%s: frame for %r' % (os.path.basename(pcap), c.name)
            f = {k: v[0] if v else None for k, v in row.items()}     # outer: first
            inner_v6 = l3[0] >> 4 == 6
            # Ethernet
            self.assertEqual(f['eth.src'], ft.MAC_P0.lower(), what + ': eth src')
            self.assertEqual(f['eth.dst'], t.eth_dst, what + ': eth dst')
            self.assertEqual(f['eth.type'], '0x0800', what + ': ethertype')
            # what tshark sees stacked
            stack = ['eth', 'ethertype', 'ip'] + (['udp', 'fou'] if t.fou else []) + \
                (['gre'] if t.type == 'gre' else []) + ['ipv6' if inner_v6 else 'ip']
            self.assertEqual(f['frame.protocols'].split(':')[:len(stack)], stack,
                             what + ': protocol stack')
            # outer IPv4, field by field
            ident = int.from_bytes(got[18:20], 'big')
            sport = int.from_bytes(got[34:36], 'big') if t.fou else None
            seq = (int.from_bytes(got[34 + (8 if t.fou else 0) + t.gre_len - 4:][:4], 'big')
                   if t.seq else 0)
            pkt, tos, ttl, df = t.outer(l3, ident, sport, seq)
            self.assertEqual((f['ip.version'], f['ip.hdr_len']), ('4', '20'), what)
            self.assertEqual(f['ip.src'], LOCAL, what + ': outer src')
            self.assertEqual(f['ip.dst'], t.remote, what + ': outer dst')
            self.assertEqual(f['ip.ttl'], str(ttl), what + ': outer TTL')
            self.assertEqual(f['ip.dsfield.dscp'], str(tos >> 2), what + ': outer DSCP')
            self.assertEqual(f['ip.dsfield.ecn'], str(tos & 3), what + ': outer ECN')
            self.assertEqual(flag(f['ip.flags.df']), df, what + ': outer DF')
            self.assertEqual((flag(f['ip.flags.mf']), f['ip.frag_offset']), (False, '0'), what)
            self.assertEqual(f['ip.proto'], str(t.proto), what + ': outer protocol')
            self.assertEqual(int(f['ip.len']), t.overhead + len(l3), what + ': total length')
            self.assertEqual(f['ip.checksum.status'], '1', what + ': outer IPv4 checksum')
            # UDP
            if t.fou:
                self.assertEqual(int(f['udp.dstport']), t.dport, what + ': UDP dport')
                self.assertEqual(int(f['udp.srcport']), sport)
                if t.sport is not None:
                    self.assertEqual(sport, t.sport, what + ': fixed UDP sport')
                else:
                    self.assertTrue(sport_range[0] <= sport <= sport_range[1],
                                    '%s: UDP sport %d outside %s' % (what, sport, sport_range))
                    sports[t.name][flow_key(l3)].add(sport)
                self.assertEqual(int(f['udp.length']), t.overhead - 20 + len(l3),
                                 what + ': UDP length')
                if t.udp_csum:
                    self.assertNotEqual(f['udp.checksum'], '0x0000', what)
                    self.assertEqual(f['udp.checksum.status'], '1', what + ': UDP checksum')
                else:
                    self.assertEqual(f['udp.checksum'], '0x0000', what + ': UDP checksum 0')
            # GRE
            if t.type == 'gre':
                self.assertEqual((flag(f['gre.flags.checksum']), flag(f['gre.flags.key']),
                                  flag(f['gre.flags.sequence_number']), f['gre.flags.version']),
                                 (t.gre_csum, t.key is not None, t.seq, '0'), what + ': GRE')
                self.assertEqual(f['gre.proto'], '0x86dd' if inner_v6 else '0x0800', what)
                self.assertEqual(f['gre.key'], None if t.key is None else '0x%08x' % t.key, what)
                self.assertEqual(f['gre.checksum.status'], '1' if t.gre_csum else None,
                                 what + ': GRE checksum')
                if t.seq:
                    self.assertEqual(f['gre.sequence_number'], str(seq), what)
                    seqs[t.name].append(seq)
                else:
                    self.assertIsNone(f['gre.sequence_number'], what)
            else:
                self.assertIsNone(f['gre.proto'], what + ': GRE where there is none')
            # the inner packet bit for bit, then the whole frame against the
            # outer headers built from the tunnel's configuration
            body = got[14 + t.overhead:]
            self.assertTrue(body == l3, what + ': inner packet not bit-exact\n' +
                            ft.hexdiff(body, l3))
            exp = (bytes.fromhex(t.eth_dst.replace(':', '')) +
                   bytes.fromhex(ft.MAC_P0.replace(':', '')) + b'\x08\x00' + pkt)
            self.assertTrue(got == exp, what + ': frame differs from the expected one\n' +
                            ft.hexdiff(got, exp))
        for name, s in seqs.items():
            self.assertEqual(s, list(range(len(s))),
                             'tunnel %s: GRE sequence numbers from 0, one by one' % name)
        for name, flows in sports.items():
            for fl, ports in flows.items():
                self.assertEqual(len(ports), 1, 'tunnel %s: flow %s has several source '
                                 'ports %s' % (name, fl, ports))
        return sports

    def assertSpread(self, sports, name, at_least):
        ports = set().union(*sports[name].values())
        self.assertGreaterEqual(len(ports), at_least, 'tunnel %s: %d flows on UDP source '
                                'ports %s' % (name, len(sports[name]), sorted(ports)))

    def assertTunnelCounts(self, run, cases, tunnels):
        """The summary's per-tunnel packets and (inner) bytes."""
        exp = {t.name: (0, 0) for t in tunnels}
        for c in cases:
            n, b = exp[c.tunnel.name]
            exp[c.tunnel.name] = (n + 1, b + len(c.l3))
        self.assertEqual(run.summary.tunnels, exp, run.describe())



def config_mtu(tunnel, port_mtu=1500):
    return port_mtu - tunnel.overhead


def without_ip_id(frame):
    """An Ethernet + IPv4 frame with the IP ID and header checksum zeroed."""
    return frame[:18] + bytes(2) + frame[20:24] + bytes(2) + frame[26:]


class Encap(EncapTestCase):
    def run_encap(self, cases, opts):
        run = self.run_gw({1: ft.write_pcap(self.path('in1.pcap'), [c.frame for c in cases])},
                          opts)
        self.assertCounters(run, rx={0: 0, 1: len(cases)}, tx={0: len(cases), 1: 0}, drops={},
                            decap=[], icmp={}, fou_ports={})
        self.assertEqual(ft.frame_count(run.outputs[1]), 0, 'port 1 sent something')
        return run

    def test_every_tunnel_type_and_option(self):
        cases = encap_traffic()
        run = self.run_encap(cases, tunnel_opts())
        sports = self.assertEncap(run.outputs[0], cases)
        for t in TUNNELS:
            if t.fou and t.sport is None:
                # flows: 2 x (ICMP + 3 TCP/UDP) per family + 8 UDP: spread
                n = len(sports[t.name])
                self.assertGreaterEqual(n, 8, t.name)
                self.assertSpread(sports, t.name, n - 1)
        self.assertTunnelCounts(run, cases, TUNNELS)
        # the startup lines: configuration and tunnel MTU
        for t in TUNNELS:
            self.assertEqual(run.summary.tunnel_conf.get(t.name), {
                'type': t.type, 'local': LOCAL, 'remote': t.remote,
                'encap': 'fou' if t.fou else 'none', 'dport': t.dport,
                'mtu': config_mtu(t), 'unresolved': None}, run.describe())

    def test_sport_range(self):
        """--sport-range MIN-MAX: encap-sport auto stays inside, still one
        port per flow and spread; a fixed encap-sport is not affected."""
        tunnels = [BY_NAME[n] for n in ('fipip', 'fgre', 'fsit', 'fipipn')]
        cases = encap_traffic(tunnels, extra_flows=12)
        run = self.run_encap(cases, tunnel_opts(tunnels) + ['--sport-range', '50000-50009'])
        sports = self.assertEncap(run.outputs[0], cases, sport_range=(50000, 50009))
        for name in ('fipip', 'fgre', 'fsit'):
            self.assertSpread(sports, name, 4)

    def test_sport_range_single_port(self):
        tunnels = [BY_NAME['fipip']]
        cases = encap_traffic(tunnels, extra_flows=3)
        run = self.run_encap(cases, tunnel_opts(tunnels) + ['--sport-range', '61000-61000'])
        self.assertEncap(run.outputs[0], cases, sport_range=(61000, 61000))

    def test_config_file_tunnels(self):
        """`tunnel = ...`, `route = ...,dev=TUNNEL` and `sport-range = ...`
        in a config file: the same bytes out as on the command line."""
        tunnels = [BY_NAME[n] for n in ('fipipc', 'fsit', 'fgrecks', 'pgre', 'fipipgw')]
        cases = encap_traffic(tunnels, extra_flows=2)
        extra = ['--sport-range', '40000-49999']
        ref = self.run_encap(cases, tunnel_opts(tunnels) + extra)
        self.assertEncap(ref.outputs[0], cases, sport_range=(40000, 49999))
        ref_out = ft.capture_frames(ref.outputs[0])
        opts = tunnel_opts(tunnels) + extra
        lines = ['%s = %s' % (opts[i][2:], opts[i + 1]) for i in range(0, len(opts), 2)
                 if opts[i] in ('--tunnel', '--route', '--sport-range')]
        rest = [o for i in range(0, len(opts), 2)
                if opts[i] not in ('--tunnel', '--route', '--sport-range')
                for o in opts[i:i + 2]]
        cfg = self.path('tunnels.conf')
        with open(cfg, 'w') as f:
            f.write('# tunnels\n' + '\n'.join(reversed(lines)) + '\n')
        os.mkdir(self.path('cfg'))
        run = ft.run_gateway(self.path('cfg'), {1: self.path('in1.pcap')},
                             rest + ['--config', cfg])
        self.assertCounters(run, rx={0: 0, 1: len(cases)}, tx={0: len(cases), 1: 0}, drops={},
                            decap=[], icmp={}, fou_ports={})
        # the same bytes but the outer IPv4 ID (each run's lcore starts at a
        # random one) and the header checksum covering it
        self.assertEqual([without_ip_id(f) for f in ft.capture_frames(run.outputs[0])],
                         [without_ip_id(f) for f in ref_out],
                         'config-file tunnels sent other bytes than command-line ones')
        self.assertEqual(run.summary.tunnel_conf, ref.summary.tunnel_conf)
        self.assertEqual(run.summary.tunnels, ref.summary.tunnels)

    def test_summary_and_telemetry(self):
        """/fou/tunnels (dpdk-telemetry.py) and the summary: per tunnel its
        configuration, MTU and what it sent; /fou/stats counts tx."""
        tunnels = [BY_NAME[n] for n in ('fipip', 'fsitc', 'fgrecks', 'pipip', 'pgre2')]
        cases = encap_traffic(tunnels, extra_flows=1)
        opts = tunnel_opts(tunnels) + ['--link', '0,mtu=1400']
        gw = self.start({1: ft.write_pcap(self.path('in1.pcap'), [c.frame for c in cases])},
                        opts)

        def own(st):
            """What the gateway sent of its own: its announcements."""
            return sum(st['local'][k] for k in ('arp_requests_out', 'arp_replies_out',
                                                'ns_out', 'na_out'))

        def done():
            r = gw.telemetry('/fou/stats') if gw.running() else ['exited']
            st = r[0].get('/fou/stats') if r and isinstance(r[0], dict) else r
            return st if st == ['exited'] or (st and st['rx'] == len(cases) and
                                              st['tx'] == len(cases) + own(st)) else None
        stats = ft.wait_for(done, 60, interval=0.1)
        self.assertTrue(stats and stats != ['exited'], 'telemetry: /fou/stats never counted '
                        'all packets')
        replies = gw.telemetry('/fou/tunnels', '/fou/tunnels,x', '/fou/tunnels,offset=3')
        self.assertIsNotNone(replies)
        tel, bad, page = replies
        self.assertEqual(bad, {'/fou/tunnels': {'error': "unknown parameter 'x' (see /help)",
                                                'errno': -22}}, 'only offset=N')
        counts = collections.Counter(c.tunnel.name for c in cases)
        nbytes = collections.Counter()
        for c in cases:
            nbytes[c.tunnel.name] += len(c.l3)
        # {"count": N, "0": {...}, ...} in creation order: tunnel names may
        # hold '-' and '.', which telemetry keys may not
        exp = {'count': len(tunnels), 'offset': 0}
        for i, t in enumerate(tunnels):
            e = {'name': t.name, 'type': t.type, 'local': LOCAL, 'remote': t.remote,
                 'encap': 'fou' if t.fou else 'none', 'mtu': 1400 - t.overhead,
                 'path_mtu': 0, 'path_mtu_expires': 0,
                 'tx_packets': counts[t.name], 'tx_bytes': nbytes[t.name],
                 'rx_packets': 0, 'rx_bytes': 0, 'tx_frags': 0, 'tx_outer_frags': 0,
                 'health': 'off', 'probed_mtu': 0, 'mtu_search': 'disabled'}
            if t.fou:
                e['encap_dport'] = t.dport
            exp[str(i)] = e
        self.assertEqual(tel, {'/fou/tunnels': exp})
        # a page from offset 3: the same entries, keyed by their position
        self.assertEqual(page, {'/fou/tunnels': {'count': len(tunnels), 'offset': 3,
                                                 '3': exp['3'], '4': exp['4']}})
        self.assertEqual(stats['drops'], {r: 0 for r in ft.DROP_REASONS})
        gw.signal(signal.SIGTERM)
        run = gw.wait(timeout=30)
        # the announcements went out at the start, nothing else of its own
        self.assertEqual(stats['tx_by_port'], {'0': len(cases) + len(run.own[0]),
                                               '1': len(run.own[1])})
        self.assertNeighOut(run, 0, ft.MAC_P0, ft.BASE_ANNOUNCE[0])
        self.assertNeighOut(run, 1, ft.MAC_P1, ft.BASE_ANNOUNCE[1])
        self.assertCounters(run, rx={0: 0, 1: len(cases)}, tx={0: len(cases), 1: 0}, drops={},
                            decap=[], icmp={}, fou_ports={})
        self.assertTunnelCounts(run, cases, tunnels)
        for t in tunnels:
            self.assertEqual(run.summary.tunnel_conf[t.name]['mtu'], 1400 - t.overhead)
        self.assertEncap(run.outputs[0], cases)

    def test_tunnel_without_a_way_to_its_remote(self):
        """A remote with no route: no_route, '(no route to remote)' at start
        and MTU 0 in telemetry; a remote routed into a tunnel: tunnel_loop;
        a remote on-link without neighbour: the encapsulated packets wait
        while the gateway asks for the remote with ARP, until it stops
        (neigh_stopped)."""
        tunnels = [
            Tunnel('noroute', 'ipip', '203.0.113.5', 'encap-dport=5555', v4=['172.16.30.0/24']),
            Tunnel('loop', 'ipip', '172.16.1.99', 'encap-dport=5555', v4=['172.16.31.0/24']),
            Tunnel('noneigh', 'gre', '10.99.0.9', 'encap-dport=5556', v4=['172.16.32.0/24'],
                   v6=['fd00:d2::/64']),
            BY_NAME['fipip'],
        ]
        frames, drops = [], collections.Counter()
        waited = []
        for i in range(3):
            for t, reason in zip(tunnels[:3], ('no_route', 'tunnel_loop', 'neigh_stopped')):
                frames.append(from_host(inner4(t.dst4(1), 'udpN', i)))
                drops[reason] += 1
            waited.append(frames[-1])
        frames.append(from_host(inner6(tunnels[2].dst6(1), 'icmp', 1)))
        waited.append(frames[-1])
        drops['neigh_stopped'] += 1
        ok = EncapCase('fipip', BY_NAME['fipip'], from_host(inner4('172.16.1.5', 'icmp', 1)))
        frames.append(ok.frame)
        run = self.run_gw({1: ft.write_pcap(self.path('in1.pcap'), frames)}, tunnel_opts(tunnels))
        self.assertCounters(run, rx={0: 0, 1: len(frames)}, tx={0: 1, 1: 0}, drops=drops,
                            decap=[], icmp={}, fou_ports={})
        self.assertEncap(run.outputs[0], [ok])
        self.assertNeighOut(run, 0, ft.MAC_P0, ft.BASE_ANNOUNCE[0],
                            resolve={'10.99.0.9': LOCAL})
        self.assertNeighOut(run, 1, ft.MAC_P1, ft.BASE_ANNOUNCE[1])
        self.assertEqual(run.summary.local['neigh_queued'], 4, run.stdout)
        self.assertEqual(run.summary.tunnel_conf['noroute']['mtu'], None, run.stdout)
        self.assertIn('tunnel noroute: ipip local 10.99.0.1 remote 203.0.113.5 encap fou dport '
                      '5555 (no route to remote)', run.stdout)
        self.assertEqual(run.summary.tunnel_conf['loop']['unresolved'],
                         'remote routed into a tunnel or to the gateway', run.stdout)
        self.assertEqual(run.summary.tunnel_conf['noneigh']['mtu'], 1500 - 32)
        # what waited went into its tunnel: counted there, as Linux counts a
        # tunnel's packet that its underlay's neighbour queue took
        self.assertEqual(run.summary.tunnels, {
            'noroute': (0, 0), 'loop': (0, 0),
            'noneigh': (len(waited), sum(len(ft.l3_of(bytes(f))) for f in waited)),
            'fipip': (1, len(ok.l3))})


# The decapsulation of what we encapsulate: gateway A (10.99.0.10) sends
# into tunnels to 10.99.0.2; gateway B is 10.99.0.2, the tunnels' far end.
A_ADDR = '10.99.0.10'
B_MAC0, B_MAC1 = ft.MAC_PEER, '02:00:c0:a8:07:01'
B_NH = '02:00:c0:a8:07:02'
RT_TUNNELS = [
    Tunnel('rtipip', 'ipip', '10.99.0.2', 'encap-dport=5555,encap-csum', v4=['172.16.1.0/24']),
    Tunnel('rtsit', 'sit', '10.99.0.2', 'encap-dport=5557,tos=inherit', v6=['fd00:a1::/64']),
    Tunnel('rtgre', 'gre', '10.99.0.2', 'key=5,csum,seq,encap-dport=5556',
           v4=['172.16.10.0/24'], v6=['fd00:b1::/64']),
    Tunnel('rtpgre', 'gre', '10.99.0.2', 'encap=none,key=6,ttl=64', v4=['172.16.21.0/24']),
]
B_OPTS = [
    '--link', '0,address=' + B_MAC0, '--link', '1,address=' + B_MAC1,
    '--addr', '0,10.99.0.2/24', '--addr', '1,192.168.7.1/24', '--addr', '1,fd00:7::1/64',
    '--port', '5555:ipip', '--port', '5556:gre', '--port', '5557:sit',
    # B's tunnels back to A. Once B has GRE tunnels, GRE is accepted only
    # from them (ip_tunnel_lookup: outer addresses and key): one per key A
    # sends with; the plain one also opens plain GRE. B has no ipip or sit
    # tunnel, so those come from anyone (Linux with tunl0 / sit0 up).
    '--tunnel', 'back,type=gre,local=10.99.0.2,remote=%s,encap=none,key=6' % A_ADDR,
    '--tunnel', 'backfou,type=gre,local=10.99.0.2,remote=%s,key=5,csum,encap-dport=5556'
    % A_ADDR,
    '--route', '172.16.0.0/16,dev=1,via=192.168.7.2',
    '--route', 'fd00:a1::/64,dev=1,via=fd00:7::2', '--route', 'fd00:b1::/64,dev=1,via=fd00:7::2',
    '--neigh', '192.168.7.2,dev=1,lladdr=' + B_NH, '--neigh', 'fd00:7::2,dev=1,lladdr=' + B_NH,
]


class DecapOfEncap(ft.GatewayTestCase):
    def test_decap_of_encap(self):
        cases = encap_traffic(RT_TUNNELS, extra_flows=3)
        a_opts = [o.replace('0,10.99.0.1/24', '0,%s/24' % A_ADDR) for o in LINK_OPTS]
        a_opts += [x for t in RT_TUNNELS for x in t.opts(local=A_ADDR)]
        os.mkdir(self.path('a'))
        a = ft.run_gateway(self.path('a'), {1: ft.write_pcap(self.path('in1.pcap'),
                                                             [c.frame for c in cases])}, a_opts)
        self.assertCounters(a, rx={0: 0, 1: len(cases)}, tx={0: len(cases), 1: 0}, drops={},
                            decap=[], fou_ports={})
        fou_frames = ft.read_frames(a.outputs[0])
        self.assertEqual(len(fou_frames), len(cases))
        expected, drops, decap = [], collections.Counter(), []
        for c, frame in zip(cases, fou_frames):
            fam = 'ipv6' if c.l3[0] >> 4 == 6 else 'ipv4'
            decap.append((c.tunnel.dport or 0, fam))
            twice = ft.forwarded_l3(c.l3)
            if (c.l3[8] if fam == 'ipv4' else c.l3[7]) <= 1:
                # TTL 2 at A is 1 at B: time exceeded, no route back
                expected.append(ft.Expected(c.name, frame, reason='ttl_exceeded'))
                drops['ttl_exceeded'] += 1
                continue
            expected.append(ft.Expected(c.name, frame, port=1, eth_dst=B_NH, l3=twice))
        self.assertTrue(0 < drops['ttl_exceeded'] < len(cases))
        os.mkdir(self.path('b'))
        # B reads what A forwarded (A's announcements are not B's business)
        b = ft.run_gateway(self.path('b'), {0: a.outputs[0]}, B_OPTS)
        fwd = [e for e in expected if e.reason is None]
        self.assertCounters(b, rx={0: len(cases), 1: 0}, tx={0: 0, 1: len(fwd)}, drops=drops,
                            decap=decap, icmp={})
        self.assertOutput(b.outputs[1], fwd, B_MAC1)
        # what B's tunnels received: A's rtpgre and rtgre packets
        per = collections.Counter(c.tunnel.name for c in cases)
        self.assertEqual({n: p for n, (p, _) in b.summary.tunnels_rx.items()},
                         {'back': per['rtpgre'], 'backfou': per['rtgre']}, b.stdout)

    def test_only_the_tunnels_endpoints_and_key(self):
        """With a GRE tunnel to A (key 5, csum), B takes GRE over FOU only
        from A with key 5 and a checksum: another source, another key or no
        key is no_tunnel, no checksum gre_csum_mismatch; ipip (no ipip
        tunnel on B) still comes from anyone."""
        frames, exp = [], []
        for i, (src, key, csum, verdict) in enumerate([
                (A_ADDR, 5, True, None), ('10.99.0.11', 5, True, 'no_tunnel'),
                (A_ADDR, 7, True, 'no_tunnel'), (A_ADDR, None, True, 'no_tunnel'),
                (A_ADDR, 5, False, 'gre_csum_mismatch')]):
            ok = verdict is None
            inner = IP(src='192.168.7.50', dst='172.16.10.%d' % (i + 1), ttl=64) / \
                UDP(sport=1000 + i, dport=53) / Raw(b'gre-match')
            gre = GRE(proto=0x0800, key_present=key is not None, key=key or 0,
                      chksum_present=csum)
            frame = Ether(src=ft.MAC_PEER, dst=B_MAC0) / IP(src=src, dst='10.99.0.2') / \
                UDP(sport=40000 + i, dport=5556) / gre / inner
            frames.append(frame)
            exp.append(ft.Expected('gre from %s key %s' % (src, key), frame,
                                   port=1 if ok else None, eth_dst=B_NH if ok else None,
                                   l3=ft.forwarded_l3(bytes(inner)) if ok else None,
                                   reason=verdict))
        inner = IP(src='192.168.7.50', dst='172.16.1.9', ttl=64) / UDP(sport=7, dport=8)
        frame = Ether(src=ft.MAC_PEER, dst=B_MAC0) / IP(src='10.99.0.12', dst='10.99.0.2') / \
            UDP(sport=40009, dport=5555) / inner
        frames.append(frame)
        exp.append(ft.Expected('ipip from anyone', frame, port=1, eth_dst=B_NH,
                               l3=ft.forwarded_l3(bytes(inner))))
        b = ft.run_gateway(self.path('.'), {0: ft.write_pcap(self.path('in0.pcap'), frames)},
                           B_OPTS)
        fwd = [e for e in exp if e.reason is None]
        self.assertCounters(b, rx={0: len(frames), 1: 0}, tx={0: 0, 1: len(fwd)},
                            drops={'no_tunnel': 3, 'gre_csum_mismatch': 1},
                            decap=[(5556, 'ipv4'), (5555, 'ipv4')],
                            icmp={})
        self.assertOutput(b.outputs[1], fwd, B_MAC1)
        self.assertEqual(b.summary.tunnels_rx['backfou'][0], 1, b.stdout)


if __name__ == '__main__':
    ft.main()
