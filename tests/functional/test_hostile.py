#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A hostile capture: what a gateway facing the internet must survive.

One capture holds every malformation of test_malformed.py, the drop reasons
that need tunnels (no_tunnel, gre_csum_mismatch, ecn_drop, tunnel_loop, ...),
and thousands of random truncations and single-bit flips of valid FOU
and GUE packets: the Linux 6.1 captures of tests/data and scapy-built ipip,
gre and sit packets (to FOU ports, and to the GUE port 6080 in versions 0
and 1, with and without optional fields) (IPv4 and IPv6 inner, with and without the UDP checksum, GRE key
and checksum, ICMP, UDP and TCP inside, some at the tunnel MTU or with a TTL
about to expire), and of plain IPv4 and IPv6 packets routed through. The
gateway, configured with tunnels as in the demo, runs it; then:

- it exits 0 with rx + what it originated = tx + the sum of the named
  drops, every mbuf back in its pool, and each named malformation counted at least once per case
  (the named cases alone, in a first run, exactly under their reason);
- every frame it sent is one Linux would have sent for one of the inputs,
  each input used once: the inner packet of an input whose outer IPv4, UDP
  and GRE headers and checksums and inner IPv4 header (options included)
  are valid, or a plain IPv4 / IPv6 packet for another host, forwarded
  (TTL - 1, cut to its IP length) to the next hop or into the tunnel the
  route table says, or the ICMP error about it that Linux would build (no
  route included), or for a packet to one of our addresses what Linux'
  local input answers (echo reply, port or protocol unreachable, parameter
  problem); echo replies are never rate-limited, so none may be missing;
- a packet Linux would forward to an on-link host it has no neighbour for
  waits while the gateway asks (Linux queues it the same way): the gateway
  sends ARP requests or Neighbour Solicitations for exactly those hosts,
  from the port that leads there, and drops what waited when nobody
  answered (neigh_failed after 3 s) or when it stops (neigh_stopped); its
  own echo replies and ICMP errors wait the same way when their way back
  has no neighbour (an error over the rate limit is not built, so it does
  not wait);
- it sends no other frame of its own than its announcements, those
  requests and the answers to ARP requests for its address;
- tshark finds no malformed packet and no expert error in the outputs
  except the ones the forwarded inner packet itself carried (a bit flipped
  in an ICMP, UDP or TCP payload makes a bad L4 checksum that a router,
  Linux included, forwards as it is: routers do not check L4 checksums).

FOU over IPv6 comes in too: a peer fd00:99::2 sends to the ports over IPv6
(5555, 5556, 5561) ipip, gre and ip6ip6 with Linux' encap limit Destination
Options before UDP or without, a hop-by-hop router alert, a routing header
with no segment left, outer ECN, a checksum or zero; the named cases drop the
malformed ones under their reasons (ip6_exthdr_bad, ip6_opt_discard,
ip6_rthdr, ip6_frag, udp_len_bad, udp_cksum_bad, no_tunnel from a source
that is not the ip6tnl t6's remote, ...), and the model of what Linux sends
covers their mutations (decap6()).

The random cases come from a seed printed on stderr; FOU_HOSTILE_SEED=N
reproduces a run, FOU_HOSTILE_CASES=N sets how many (default 3000)."""
import collections
import ipaddress
import os
import random
import re
import socket
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou, gre, v4, v6  # noqa: E402
import test_malformed as tm  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether, GRE  # noqa: E402
from scapy.layers.inet import IP, UDP, TCP, IPOption_Router_Alert  # noqa: E402
from scapy.layers.inet6 import (IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,  # noqa: E402
                                IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, HBHOptUnknown, PadN,
                                RouterAlert)
from scapy.utils import rdpcap  # noqa: E402

SEED = int(os.environ.get('FOU_HOSTILE_SEED', '20261203'))
CASES = int(os.environ.get('FOU_HOSTILE_CASES', '3000'))

GRE_KEY = 7
# test_malformed's gateway (PROTO_OPTS) with the demo's tunnels back to the
# peer, a GRE tunnel with key and checksum, and one whose remote is routed
# into another tunnel.
TUNNELS = [
    'fou-ipip,type=ipip,local=10.99.0.1,remote=10.99.0.2,ttl=64,encap-dport=5555',
    'fou-gre,type=gre,local=10.99.0.1,remote=10.99.0.2,ttl=64,encap-dport=5556',
    'fou-sit,type=sit,local=10.99.0.1,remote=10.99.0.2,ttl=64,encap-dport=5557',
    'gre-kc,type=gre,local=10.99.0.1,remote=10.99.0.2,ttl=64,key=%d,csum,encap-dport=5556,'
    'encap-csum' % GRE_KEY,
    'loop,type=ipip,local=10.99.0.1,remote=10.77.0.2,encap-dport=5555',
]
# prefix: (port, next hop MAC) or a tunnel name; the connected networks with
# the neighbours the gateway knows on them.
ROUTES = {
    '192.168.4.0/24': (1, ft.MAC_NH_IPIP),
    '192.168.47.0/24': (1, ft.MAC_NH_GRE),
    'fd00:41::/64': (1, ft.MAC_NH_SIT),
    '192.168.3.0/24': 'fou-ipip',
    '192.168.48.0/24': 'fou-gre',
    '192.168.49.0/24': 'gre-kc',
    'fd00:40::/64': 'fou-sit',
    '10.77.0.0/24': 'fou-gre',
    '192.168.77.0/24': 'loop',
}
NEIGHS = {'192.168.1.2': (1, ft.MAC_NH_IPIP), '192.168.1.3': (1, ft.MAC_NH_GRE),
          'fd00:1::2': (1, ft.MAC_NH_SIT), '10.99.0.2': (0, ft.MAC_PEER),
          'fd00:99::2': (1, ft.MAC_PEER)}
CONNECTED = {'10.99.0.0/24': 0, '192.168.1.0/24': 1, 'fd00:1::/64': 1, 'fd00:99::/64': 1}
LOCAL = {'10.99.0.1', '192.168.1.1', 'fd00:1::1', 'fd00:99::1'}
# FOU over IPv6: the peer fd00:99::2 sends to our fd00:99::1 (an address of
# port 1: on port 0 it would be the source of the ICMPv6 errors that go
# back through the tunnels, which come from fd00:1::1 here) from port 0, to
# the ports over IPv6: UDP port -> IP protocol (not 5557: test_malformed's
# UDP over IPv6 to it gets a port unreachable)
OUR6, PEER6 = 'fd00:99::1', 'fd00:99::2'
FOU6_PROTO = {5555: 4, 5556: 47, 5561: 41}
ANNOUNCE = {0: ft.BASE_ANNOUNCE[0], 1: ft.BASE_ANNOUNCE[1] + (OUR6,)}
# tunnel: (FOU port, GRE key or None, GRE checksum, UDP checksum, MTU on a 1500 port)
TUNNEL_OUT = {'fou-ipip': (5555, None, False, False, 1472),
              'fou-gre': (5556, None, False, False, 1468),
              'fou-sit': (5557, None, False, False, 1472),
              'gre-kc': (5556, GRE_KEY, True, True, 1460)}

# the FOU ports of ft.PROTO_OPTS with a handler: UDP port -> IP protocol
FOU_PROTO = {5555: 4, 5556: 47, 5557: 41, 5558: 41, 5559: 4}
GUE_PORT = 6080
# every FOU port (6000 has no handler) and the GUE port: UDP to one of
# them is FOU's
FOU_UDP_PORTS = set(FOU_PROTO) | {6000, GUE_PORT}
# the address of each port on its connected network
PORT_ADDR4 = {0: ft.IP_P0, 1: '192.168.1.1'}

OPTS = list(ft.PROTO_OPTS) + ['--neigh', '10.99.0.2,dev=0,lladdr=' + ft.MAC_PEER,
                              '--port', '%d:gue' % GUE_PORT,
                              '--addr', '1,%s/64' % OUR6,
                              '--neigh', '%s,dev=1,lladdr=%s' % (PEER6, ft.MAC_PEER)]
for _p, _n in FOU6_PROTO.items():
    OPTS += ['--port', '%d:%d,family=6' % (_p, _n)]
FOU_PORTS = {**ft.PROTO_FOU_PORTS, GUE_PORT: 'gue',
             **{'%d_6' % p: n for p, n in FOU6_PROTO.items()}}
for _t in TUNNELS:
    OPTS += ['--tunnel', _t]
# an ip6tnl (mode any: IPv4 and IPv6 inside) from the IPv6 peer: FOU over
# IPv6 with protocol 4 or 41 is taken from it alone (no_tunnel otherwise);
# no ip6gre, so GRE over IPv6 still comes from anyone (decap6())
OPTS += ['--tunnel', 't6,type=ip6tnl,mode=any,local=%s,remote=%s,encap=fou,encap-dport=5555'
         % (OUR6, PEER6)]
for _p, _r in ROUTES.items():
    if isinstance(_r, str):
        OPTS += ['--route', '%s,dev=%s' % (_p, _r)]


def gue(proto, version=0, c=0, hlen=0, flags=0, fields=b''):
    """A GUE header as the draft lays it out."""
    return bytes([version << 6 | c << 5 | hlen, proto]) + flags.to_bytes(2, 'big') + fields


def named_traffic():
    """test_malformed's cases and the drops that need tunnels, each under
    its reason, or answered where this gateway has a way back."""
    t = tm.malformed_traffic(way_back=True)
    other = fou(5555, v4(seq=50))
    other[IP].src = '10.99.0.5'
    t.drop('ipip from 10.99.0.5, not a tunnel remote', other, 'no_tunnel')
    t.drop('gre key 99: no tunnel has it', fou(5556, gre(v4(dst='192.168.47.1', seq=51), k=1,
                                                         seq=99 - 0x0a0b0c0d)), 'no_tunnel')
    t.drop('gre with checksum to the tunnel without csum',
           fou(5556, gre(v4(dst='192.168.47.1', seq=52), c=1)), 'gre_csum_mismatch')
    t.drop('gre key 7 without checksum to the csum tunnel',
           fou(5556, gre(v4(dst='192.168.47.1', seq=53), k=1, seq=GRE_KEY - 0x0a0b0c0d)),
           'gre_csum_mismatch')
    t.drop('outer CE, inner Not-ECT', fou(5555, v4(seq=54), tos=3), 'ecn_drop')
    t.drop('FOU port 6000 (UDP inside)', fou(6000, UDP(sport=1, dport=2) / Raw(b'x' * 8)),
           'fou_proto_unhandled')
    # GUE as Linux' gue_udp_recv drops it
    ok = bytes(v4(seq=61))
    for what, payload, reason in (
            ('2 bytes', b'\x00\x04', 'gue_truncated'),
            ('version 2', gue(4, version=2) + ok, 'gue_version'),
            ('version 1, nibble 5', b'\x50' + ok[1:], 'gue_v1_not_ip'),
            ('hlen 31', gue(4, hlen=31) + ok[:40], 'gue_hlen_bad'),
            ('flags 0x0100', gue(4, flags=0x100) + ok, 'gue_flags_bad'),
            ('flag P without room', gue(4, flags=1) + ok, 'gue_flags_bad'),
            ('private flags 1', gue(4, hlen=1, flags=1, fields=b'\0\0\0\x01') + ok,
             'gue_pflags_bad'),
            ('remote checksum offload past the packet',
             gue(4, hlen=2, flags=1, fields=bytes([0x80, 0, 0, 0, 0, 20, 1, 0])) + ok,
             'gue_remcsum_bad'),
            ('control message', gue(1, c=1) + ok, 'gue_control'),
            ('protocol 0', gue(0) + ok, 'gue_proto_unhandled'),
            ('protocol 6', gue(6) + ok, 'gue_proto_unhandled')):
        t.drop('GUE ' + what, fou(GUE_PORT, Raw(payload)), reason)
    t.drop('TTL 1 from a source with no route back', fou(5555, v4(src='203.0.113.5', ttl=1,
                                                                 seq=55)), 'ttl_exceeded')
    # (without DF it would be fragmented: test_frag.py)
    t.drop('1480 bytes with DF into fou-ipip (MTU 1472), no route back for the error',
           fou(5555, v4(src='203.0.113.5', dst='192.168.3.7', size=1480, seq=56, flags='DF')),
           'mtu_exceeded')
    t.drop('into tunnel loop, whose remote is routed into fou-gre',
           fou(5555, v4(dst='192.168.77.1', seq=57)), 'tunnel_loop')
    t.drop('to 192.168.1.77 (connected, no neighbour)', fou(5555, v4(dst='192.168.1.77', seq=58)),
           'neigh_stopped')
    f = fou(5555, v4(dst='198.51.100.1', seq=59))
    err, ignore = tm._tunnel_back(ft.icmp4_error(ft.tunnel_payload(bytes(f)), ft.IP_P0,
                                                 'icmp_net_unreach'), 5555)
    t.icmp('to 198.51.100.1 (no route): net unreachable back into fou-ipip', f, 0, ft.MAC_PEER,
           err, 'icmp_net_unreach', ignore=ignore)
    t.drop('to 198.51.100.1 (no route) from a source with no route back',
           fou(5555, v4(src='203.0.113.5', dst='198.51.100.1', seq=60)), 'no_route')
    # FOU over IPv6, malformed
    i4 = v4(seq=61)
    t.drop('over IPv6: UDP checksum wrong', fou6(5555, i4, chksum=0x1234), 'udp_cksum_bad')
    t.drop('over IPv6: UDP length past the payload', fou6(5555, i4, ulen=len(i4) + 9),
           'udp_len_bad')
    t.drop('over IPv6: UDP length 7', fou6(5555, i4, ulen=7), 'udp_len_bad')
    t.drop('over IPv6: a fragment', fou6(5555, i4, ext=IPv6ExtHdrFragment(id=7)), 'ip6_frag')
    t.drop('over IPv6: a routing header with a segment left',
           fou6(5555, i4, ext=IPv6ExtHdrRouting(segleft=1, addresses=['fd00:99::7'])),
           'ip6_rthdr')
    t.drop('over IPv6: PadN not zero', fou6(5555, i4, ext=IPv6ExtHdrDestOpt(
        options=[PadN(optdata=b'\x01\x00\x00\x00')])), 'ip6_exthdr_bad')
    t.drop('over IPv6: Pad1 x 8', fou6(5555, i4, ext=Raw(b'\x11\x01' + bytes(14)),
                                      nh=60), 'ip6_exthdr_bad')
    t.drop('over IPv6: an option past its header', fou6(5555, i4, ext=Raw(
        b'\x11\x00\x07\x09' + bytes(4)), nh=60), 'ip6_exthdr_bad')
    t.drop('over IPv6: a hop-by-hop header after destination options', fou6(
        5555, i4, ext=IPv6ExtHdrDestOpt() / IPv6ExtHdrHopByHop()), 'ip6_exthdr_bad')
    t.drop('over IPv6: a router alert of 3 bytes', fou6(5555, i4, ext=Raw(
        b'\x11\x00\x05\x03\x00\x00\x00\x00'), nh=0), 'ip6_exthdr_bad')
    t.drop('over IPv6: a jumbo payload option', fou6(5555, i4, ext=Raw(
        b'\x11\x00\xc2\x04' + bytes(4)), nh=0), 'ip6_exthdr_bad')
    t.drop('over IPv6: nine options', fou6(5555, i4, ext=Raw(
        b'\x11\x02' + b'\x1e\x00' * 9 + b'\x01\x02\x00\x00'), nh=60), 'ip6_exthdr_bad')
    t.drop('over IPv6: extension header past the packet', fou6(5555, b'', ext=Raw(
        b'\x11\x04' + bytes(6)), nh=60, udp=False), 'ip6_exthdr_bad')
    t.drop('over IPv6: an option whose type says discard', fou6(5555, i4, ext=IPv6ExtHdrDestOpt(
        options=[HBHOptUnknown(otype=0x5e, optdata=b'\0\0\0\0')])), 'ip6_opt_discard')
    t.drop('over IPv6: ipip port, IPv6 inside', fou6(5555, v6(seq=62)), 'inner_hdr_bad')
    t.drop('over IPv6: GRE version 1', fou6(5556, GRE(version=1, proto=0x0800) / v4(seq=63)),
           'gre_version')
    t.drop('over IPv6: outer CE, inner Not-ECT', fou6(5561, v6(seq=64), tc=3), 'ecn_drop')
    t.drop('over IPv6: zero UDP checksum to 5558 (a port over IPv4 only)',
           fou6(5558, i4, chksum=0), 'udp_cksum_bad')
    t.drop('over IPv6: ipip from fd00:99::3, not the ip6tnl t6\'s remote',
           fou6(5555, i4, src='fd00:99::3'), 'no_tunnel')
    return t


def fou6(dport, payload, ext=None, tc=0, chksum=None, ulen=None, nh=None, udp=True,
         src=PEER6):
    """Ethernet / IPv6 [/ extension headers] / UDP(dport) / payload from the
    IPv6 FOU peer (or src) to our fd00:99::1."""
    ip6 = IPv6(src=src, dst=OUR6, tc=tc, fl=0x54321)
    if nh is not None:
        ip6.nh = nh
    pkt = ip6 / ext if ext is not None else ip6
    if udp:
        pkt = pkt / UDP(sport=41000, dport=dport, chksum=chksum, len=ulen) / payload
    return Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) / pkt


# --- the valid packets the random cases start from ----------------------------

def linux_frames():
    """The FOU frames of the Linux 6.1 captures (not the ICMP errors the
    peer sent to 10.99.0.3)."""
    out = []
    for name in ft.LINUX_CAPTURES:
        for p in rdpcap(ft.linux_capture(name)):
            if UDP in p and p[IP].dst == ft.IP_P0:
                out.append(bytes(p))
    return out


def built_frames():
    """ipip, gre (IPv4 and IPv6 inner, to either GRE tunnel) and sit FOU
    frames with ICMP, UDP and TCP inside, with and without the UDP checksum;
    to next hops on port 1 and back into tunnels; TTL 64, 2 and 1; with an
    outer IPv4 option, GRE sequence numbers, bytes after the inner packet
    and after the outer one; at and just above the tunnel MTU."""
    frames = []
    seq = 100
    l4s = (lambda s: None, lambda s: UDP(sport=1000 + s, dport=53) / Raw(bytes(range(s % 40))),
           lambda s: TCP(sport=2000 + s, dport=80, flags='PA', seq=s) / Raw(b'tcp' * (s % 9)))
    for dst in ('192.168.4.9', '192.168.47.9', '192.168.48.9', '192.168.3.9', '192.168.49.9'):
        for ttl in (64, 2, 1):
            for k, l4 in enumerate(l4s):
                seq += 1
                inner = v4(dst=dst, ttl=ttl, seq=seq) if k == 0 else \
                    IP(src='192.168.3.2', dst=dst, ttl=ttl, id=seq) / l4(seq)
                chk = None if seq % 2 else 0
                frames.append(fou(5555, inner, sport=30000 + seq, chksum=chk))
                frames.append(fou(5556, gre(inner), sport=30000 + seq, chksum=chk))
                frames.append(fou(5556, gre(inner, c=1, k=1, seq=GRE_KEY - 0x0a0b0c0d),
                                  sport=30000 + seq, chksum=chk))
    for dst in ('fd00:41::9', 'fd00:40::9'):
        for hlim in (64, 2, 1):
            for k, l4 in enumerate(l4s):
                seq += 1
                inner = v6(dst=dst, hlim=hlim, seq=seq) if k == 0 else \
                    IPv6(src='fd00:40::2', dst=dst, hlim=hlim) / l4(seq)
                chk = None if seq % 2 else 0
                frames.append(fou(5557, inner, sport=30000 + seq, chksum=chk))
                frames.append(fou(5556, gre(inner), sport=30000 + seq, chksum=chk))
    # an outer router alert option, GRE sequence numbers, Ethernet trailers
    frames.append(fou(5555, v4(dst='192.168.4.9', seq=seq + 1),
                      options=[IPOption_Router_Alert()]))
    frames.append(fou(5556, gre(v6(dst='fd00:41::9', seq=seq + 2), s=1, seq=seq)))
    frames.append(fou(5556, GRE(chksum_present=1, key_present=1, seqnum_present=1, key=GRE_KEY,
                                sequence_number=5, proto=0x0800) /
                      Raw(bytes(v4(dst='192.168.48.9', seq=seq + 3)) + b'trailer'), chksum=0))
    frames.append(bytes(fou(5557, v6(dst='fd00:41::9', seq=seq + 4))) + bytes(9))
    seq += 4
    # GUE: versions 0 and 1, each protocol, optional fields and private flags 0
    for k, l4 in enumerate(l4s):
        seq += 1
        i4 = bytes(v4(dst='192.168.4.9', seq=seq) if k == 0 else
                   IP(src='192.168.3.2', dst='192.168.3.9', id=seq) / l4(seq))
        i6 = bytes(v6(dst='fd00:41::9', seq=seq) if k == 0 else
                   IPv6(src='fd00:40::2', dst='fd00:41::9') / l4(seq))
        chk = None if seq % 2 else 0
        for payload in (gue(4) + i4, i4, gue(41) + i6, i6,
                        gue(47) + bytes(gre(IP(i4), c=1, k=1, seq=GRE_KEY - 0x0a0b0c0d)),
                        gue(4, hlen=1, flags=1, fields=bytes(4)) + i4,
                        gue(4, hlen=2, flags=1, fields=bytes([0x80, 0, 0, 0, 0, 20, 0, 26])) + i4,
                        gue(41, hlen=2, fields=bytes(range(8))) + i6):
            frames.append(fou(GUE_PORT, Raw(payload), sport=30000 + seq, chksum=chk))
    # plain IPv4 and IPv6 routed through: IPv6 has no header checksum, so
    # its flipped bits reach the forwarding decisions
    for dst, hlim in (('fd00:41::9', 64), ('fd00:40::9', 64), ('fd00:41::9', 2),
                      ('fd00:40::9', 1)):
        for k, l4 in enumerate(l4s):
            seq += 1
            ip6 = v6(dst=dst, hlim=hlim, seq=seq) if k == 0 else \
                IPv6(src='fd00:40::2', dst=dst, hlim=hlim) / l4(seq)
            frames.append(Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) / ip6)
    for dst in ('192.168.4.9', '192.168.3.9'):
        seq += 1
        frames.append(Ether(src=ft.MAC_PEER, dst=ft.MAC_P0) / v4(dst=dst, seq=seq))
    # FOU over IPv6, as Linux' ip6tnl and ip6gre send it: the encap limit
    # Destination Options before UDP or none, a checksum or zero, a
    # hop-by-hop router alert, a routing header with no segment left
    tel = IPv6ExtHdrDestOpt(options=[HBHOptUnknown(otype=4, optdata=b'\x04'),
                                     PadN(optdata=b'\x00')])
    exts = (None, tel, IPv6ExtHdrHopByHop(options=[RouterAlert()]) / tel,
            IPv6ExtHdrRouting(segleft=0, addresses=['fd00:99::7']))
    for i, ext in enumerate(exts):
        for ecn in (0, 1, 3):
            seq += 1
            chk = None if seq % 2 else 0
            frames.append(fou6(5555, v4(dst='192.168.4.9', seq=seq, tos=ecn & 2), ext=ext,
                               tc=ecn, chksum=chk))
            frames.append(fou6(5561, v6(dst='fd00:41::9', seq=seq, tc=2), ext=ext, tc=ecn,
                               chksum=chk))
            frames.append(fou6(5556, gre(v4(dst='192.168.3.9', seq=seq), c=i % 2, k=1), ext=ext,
                               tc=ecn, chksum=chk))
    # at the MTU of fou-ipip (1472) and fou-sit, one byte over, DF or not
    for size in (1472, 1473):
        for flags in ('DF', 0):
            seq += 1
            frames.append(fou(5555, v4(dst='192.168.3.9', size=size, flags=flags, seq=seq)))
        frames.append(fou(5557, v6(dst='fd00:40::9', size=size, seq=seq)))
    return [bytes(f) for f in frames]


def mutations(bases, rng, n):
    """n frames, each a base frame cut at a random length or with one bit
    flipped (mostly in the first 110 bytes, where the headers are)."""
    out = []
    for _ in range(n):
        b = bytearray(rng.choice(bases))
        if rng.random() < 0.25:
            out.append(bytes(b[:rng.randrange(1, len(b))]))
            continue
        pos = rng.randrange(min(len(b), 110)) if rng.random() < 0.8 else rng.randrange(len(b))
        b[pos] ^= 1 << rng.randrange(8)
        out.append(bytes(b))
    return out


# --- what Linux does with a frame (ip_rcv, fou_udp_recv, ipip/sit/gre
# receive, ip_forward / ip6_forward with the routes above) -----------------------

def _sum_ok(data, start=0):
    return ft.inet_sum(data, start) == 0xffff


def _lpm(addr):
    """The route table's answer for an address: ('local'), ('bcast'),
    ('port', port, mac or None), ('tunnel', name) or None."""
    a = ipaddress.ip_address(addr)
    if addr in LOCAL:
        return ('local',)
    best = None
    for prefix, how in list(ROUTES.items()) + list(CONNECTED.items()):
        net = ipaddress.ip_network(prefix)
        if a.version != net.version or a not in net:
            continue
        if best is not None and best[0].prefixlen >= net.prefixlen:
            continue
        best = (net, how)
    if best is None:
        return None
    net, how = best
    if isinstance(how, str):
        return ('tunnel', how)
    if isinstance(how, tuple):
        return ('port',) + how
    if a.version == 4 and a == net.broadcast_address:
        return ('bcast',)
    return ('port', how, NEIGHS.get(addr, (None, None))[1])


def _martian4(src, dst):
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    zero = ipaddress.ip_network('0.0.0.0/8')
    return (s.is_multicast or s.is_loopback or s in zero or src == '255.255.255.255' or
            d.is_multicast or d.is_loopback or d in zero or dst == '255.255.255.255' or
            src in LOCAL or _lpm(src) == ('bcast',))


def _martian6(src, dst):
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    return any(a.is_multicast or a.is_loopback or a.is_link_local or a.is_unspecified
               for a in (s, d)) or src in LOCAL


def _options_ok(opts):
    """IPv4 options Linux' ip_rcv_options accepts (RFC 791 layouts; no source
    route, since accept_source_route is off)."""
    i = 0
    while i < len(opts) and opts[i] != 0:
        if opts[i] == 1:
            i += 1
            continue
        n = opts[i + 1] if i + 1 < len(opts) else 0
        if n < 2 or n > len(opts) - i:
            return False
        kind, o = opts[i], opts[i:i + n]
        if kind in (131, 137):
            return False
        if kind == 7 and (n < 3 or o[2] < 4 or (o[2] <= n and o[2] + 3 > n)):
            return False
        if kind == 68:
            if n < 4 or o[2] < 5:
                return False
            if o[2] > n:
                if o[3] & 0xf != 3 and o[3] >> 4 == 15:
                    return False
            elif o[2] + 3 > n or (o[3] & 0xf in (1, 3) and o[2] + 7 > n):
                return False
        if kind == 148 and n < 4:
            return False
        i += n
    return True


def decap(frame):
    """The inner packet (cut to its IP length) of a frame Linux would
    decapsulate and hand to ip_forward, or None."""
    # a multicast or broadcast frame is for us too (PACKET_MULTICAST and
    # PACKET_BROADCAST reach the FOU socket; the tunnel's receive then makes
    # the inner packet PACKET_HOST: skb_scrub_packet)
    mine = frame[0:6] == bytes.fromhex(ft.MAC_P0.replace(':', '')) or frame[0] & 1
    if mine and frame[12:14] == b'\x86\xdd':
        return decap6(frame)
    if len(frame) < 14 + 20 or not mine or frame[12:14] != b'\x08\x00':
        return None
    ip = frame[14:]
    ihl = (ip[0] & 0xf) * 4
    if ip[0] >> 4 != 4 or ihl < 20 or len(ip) < ihl or not _sum_ok(ip[:ihl]):
        return None
    tot = int.from_bytes(ip[2:4], 'big')
    if tot < ihl or tot > len(ip) or int.from_bytes(ip[6:8], 'big') & 0x3fff or \
            not _options_ok(ip[20:ihl]) or \
            ip[9] != 17 or ip[1] & 3 or \
            socket.inet_ntoa(ip[12:16]) != ft.IP_PEER or socket.inet_ntoa(ip[16:20]) != ft.IP_P0:
        return None
    ip = ip[:tot]
    udp = ip[ihl:]
    if len(udp) < 8:
        return None
    ulen = int.from_bytes(udp[4:6], 'big')
    if ulen < 8 or ulen > len(udp):
        return None
    udp = udp[:ulen]
    phdr = ip[12:20] + b'\x00\x11' + ulen.to_bytes(2, 'big')
    if udp[6:8] != b'\0\0' and not _sum_ok(phdr + udp):
        return None
    dport = int.from_bytes(udp[2:4], 'big')
    proto, payload, rc = FOU_PROTO.get(dport), udp[8:], None
    if dport == GUE_PORT:
        proto, payload, rc = _gue(payload)
    p = _fou_payload(proto, payload, True)
    return None if p is None else _remcsum(_inner_valid(*p), rc)


def _gue(p):
    """(protocol, what follows, remote checksum offload's (start, field) or
    None) of a GUE payload as gue_udp_recv takes it, or (None, None, None)."""
    if len(p) < 4:
        return None, None, None
    if p[0] >> 6 == 1:
        return {4: 4, 6: 41}.get(p[0] >> 4), p, None
    hl = 4 + 4 * (p[0] & 0x1f)
    flags = int.from_bytes(p[2:4], 'big')
    rc = None
    if p[0] >> 6 or len(p) < hl or flags & ~1 or (flags & 1 and hl < 8):
        return None, None, None
    if flags & 1:
        pflags = int.from_bytes(p[4:8], 'big')
        if pflags & 0x7fffffff:
            return None, None, None
        if pflags:
            # start and field after the private flags (read there even
            # past hlen), both within the packet (gue_remcsum)
            if len(p) < 12:
                return None, None, None
            rc = int.from_bytes(p[8:10], 'big'), int.from_bytes(p[10:12], 'big')
            if max(rc[1] + 2, rc[0]) > len(p) - hl:
                return None, None, None
    if p[0] & 0x20 or p[1] not in (4, 41, 47):
        return None, None, None
    return p[1], p[hl:], rc


def _remcsum(inner, rc):
    """The inner packet once Linux completed the checksum remote checksum
    offload left (skb_checksum_help on the way out), or None where the
    gateway drops it (start or field in the inner IP header)."""
    if inner is None or rc is None:
        return inner
    start, field = rc
    hl = (inner[0] & 0xf) * 4 if inner[0] >> 4 == 4 else 40
    if start < hl or field < hl or field + 2 > len(inner) or start > len(inner):
        return None
    if field < start:
        return inner
    c = ft.inet_cksum(inner[start:]) or 0xffff
    return inner[:field] + c.to_bytes(2, 'big') + inner[field + 2:]


def _fou_payload(proto, payload, tunnels):
    """(inner, version) of what follows UDP on a FOU port of protocol proto,
    or None."""
    if proto in (4, 41):
        return payload, 4 if proto == 4 else 6
    return _gre(payload, tunnels) if proto == 47 else None


def _gre(payload, tunnels):
    """(inner, version) of a GRE payload as gre_parse_header takes it, or
    None; tunnels: GRE tunnels exist to match (over IPv4), else any key and
    checksum option is taken."""
    if len(payload) < 4:
        return None
    flags, proto = payload[0], int.from_bytes(payload[2:4], 'big')
    c, r, k, s = flags & 0x80, flags & 0x40, flags & 0x20, flags & 0x10
    hl = 4 + 4 * (bool(c or r) + bool(k) + bool(s))
    if payload[1] & 7 or r or len(payload) < hl or proto not in (0x0800, 0x86dd):
        return None
    if c and not _sum_ok(payload):
        return None
    key = int.from_bytes(payload[8 if c else 4:(8 if c else 4) + 4], 'big') if k else None
    if tunnels and (key, bool(c)) not in ((None, False), (GRE_KEY, True)):
        return None     # no tunnel with this key, or the checksum option differs
    return payload[hl:], 4 if proto == 0x0800 else 6


def _tlv(opts, hbh, at):
    """The options of a hop-by-hop or destination options header as
    ip6_parse_tlv takes them for a packet to us: True, None (dropped) or
    ('param', pointer) for an unknown one that asks for a parameter problem."""
    i = pad = n = 0
    while i < len(opts):
        t = opts[i]
        if t == 0:
            pad += 1
            if pad > 7:
                return None
            i += 1
            continue
        if i + 2 > len(opts) or i + 2 + opts[i + 1] > len(opts):
            return None
        ol = 2 + opts[i + 1]
        if t == 1:
            pad += ol
            if pad > 7 or any(opts[i + 2:i + ol]):
                return None
            i += ol
            continue
        pad = 0
        n += 1
        if n > 8 or (hbh and (t == 0xc2 or (t == 5 and ol != 4))):
            return None
        if not (hbh and t == 5):
            if t >> 6 == 1:
                return None
            if t >> 6 >= 2:
                return ('param', at + i)
        i += ol
    return True


def _ip6_exthdrs(pkt):
    """(upper-layer protocol, its offset) of the IPv6 packet pkt to us after
    the extension headers Linux' ip6_input_finish steps over, None when it
    drops the packet there, or ('param', pointer)."""
    nh, off = pkt[6], 40
    while nh in (0, 43, 44, 60):
        if nh == 44 or (nh == 0 and off != 40) or len(pkt) < off + 8:
            return None
        hl = (pkt[off + 1] + 1) * 8
        if len(pkt) < off + hl:
            return None
        if nh == 43:
            if pkt[off + 3]:
                return None
        else:
            r = _tlv(pkt[off + 2:off + hl], nh == 0, off + 2)
            if r is not True:
                return r
        nh, off = pkt[off], off + hl
    return nh, off


def _ecn(inner, outer_ecn):
    """inner after decapsulation from an outer ECN field (RFC 6040), or
    None when it is dropped (CE on Not-ECT)."""
    b = bytearray(inner)
    v4_ = b[0] >> 4 == 4
    e = b[1] & 3 if v4_ else (b[1] >> 4) & 3
    if e == 0:
        return None if outer_ecn == 3 else inner
    new = 3 if outer_ecn == 3 else 1 if (outer_ecn == 1 and e == 2) else e
    if v4_:
        b[1] = (b[1] & 0xfc) | new
        hl = (b[0] & 0xf) * 4
        b[10:12] = b'\0\0'
        b[10:12] = ft.ip4_cksum(bytes(b[:hl])).to_bytes(2, 'big')
    else:
        b[1] = (b[1] & 0xcf) | (new << 4)
    return bytes(b)


def decap6(frame):
    """decap() of an IPv6 frame: FOU over IPv6 to our fd00:99::1, to a port
    over IPv6: IPv4 or IPv6 inside from the ip6tnl's remote only, GRE from
    any source (no ip6gre to match)."""
    ip = frame[14:]
    if len(ip) < 40 or ip[0] >> 4 != 6 or 40 + int.from_bytes(ip[4:6], 'big') > len(ip):
        return None
    ip = ip[:40 + int.from_bytes(ip[4:6], 'big')]
    src = ipaddress.ip_address(ip[8:24])
    if socket.inet_ntop(socket.AF_INET6, ip[24:40]) != OUR6 or src.is_multicast or \
            (not src.is_link_local and (src.is_loopback or src.is_unspecified)):
        return None
    ext = _ip6_exthdrs(ip)
    if ext is None or ext[0] != 17:
        return None
    off = ext[1]
    udp = ip[off:]
    if len(udp) < 8 or int.from_bytes(udp[2:4], 'big') not in FOU6_PROTO:
        return None
    ulen = int.from_bytes(udp[4:6], 'big') or len(udp)
    if ulen < 8 or ulen > len(udp):
        return None
    udp = udp[:ulen]
    phdr = ip[8:40] + ulen.to_bytes(4, 'big') + b'\0\0\0\x11'
    if udp[6:8] != b'\0\0' and not _sum_ok(phdr + udp):
        return None
    proto = FOU6_PROTO[int.from_bytes(udp[2:4], 'big')]
    p = _fou_payload(proto, udp[8:], False)
    if p is not None and proto != 47 and str(src) != PEER6:
        return None
    inner = None if p is None else _inner_valid(*p)
    return None if inner is None else _ecn(inner, (ip[1] >> 4) & 3)


def plain(frame):
    """The IP packet of a frame Linux would route as it is (unicast to us,
    not to one of our addresses), cut to its IP length, or None."""
    if len(frame) < 14 or frame[0:6] != bytes.fromhex(ft.MAC_P0.replace(':', '')):
        return None
    ver = {b'\x08\x00': 4, b'\x86\xdd': 6}.get(frame[12:14])
    return _inner_valid(frame[14:], ver) if ver else None


def _inner_valid(inner, ver):
    if ver == 4:
        if len(inner) < 20 or inner[0] >> 4 != 4:
            return None
        ihl = (inner[0] & 0xf) * 4
        tot = int.from_bytes(inner[2:4], 'big')
        if ihl < 20 or len(inner) < ihl or not _sum_ok(inner[:ihl]) or tot < ihl or \
                tot > len(inner):
            return None
        inner = inner[:tot]
        if not _options_ok(inner[20:ihl]) or _martian4(socket.inet_ntoa(inner[12:16]), socket.inet_ntoa(inner[16:20])):
            return None
        return inner
    if len(inner) < 40 or inner[0] >> 4 != 6 or 40 + int.from_bytes(inner[4:6], 'big') > \
            len(inner):
        return None
    inner = inner[:40 + int.from_bytes(inner[4:6], 'big')]
    if _martian6(socket.inet_ntop(socket.AF_INET6, inner[8:24]),
                 socket.inet_ntop(socket.AF_INET6, inner[24:40])):
        return None
    return inner


def _addrs(pkt):
    if pkt[0] >> 4 == 4:
        return socket.inet_ntoa(pkt[12:16]), socket.inet_ntoa(pkt[16:20])
    return (socket.inet_ntop(socket.AF_INET6, pkt[8:24]),
            socket.inet_ntop(socket.AF_INET6, pkt[24:40]))


def _egress(dst, hold=False):
    """(port, next hop MAC, tunnel or None, MTU) for a destination, or None
    when Linux cannot send there (no route, local, a loop). An on-link host
    without a neighbour entry: with hold, ('held', port, host), for the
    packet waits while the gateway resolves it; else None."""
    r = _lpm(dst)
    if r is None or r[0] in ('local', 'bcast'):
        return None
    if r[0] == 'port':
        if r[2]:
            return (r[1], r[2], None, 1500)
        return ('held', r[1], dst) if hold else None
    if r[1] not in TUNNEL_OUT:
        return None         # loop: its remote is routed into a tunnel
    return (0, ft.MAC_PEER, r[1], TUNNEL_OUT[r[1]][4])


def _fragments(l3, mtu):
    """Linux' ip_do_fragment of the IPv4 packet l3 (no DF) to mtu: the
    header copied (the options that are not copied made NOPs after the
    first fragment of an unfragmented packet: ip_options_fragment), the
    offset written alone (ip_frag_next), MF on all but the last and on the
    last where the packet had it."""
    hl, tot = (l3[0] & 0xf) * 4, int.from_bytes(l3[2:4], 'big')
    fo = int.from_bytes(l3[6:8], 'big')
    rest = bytearray(l3[:hl])
    if hl > 20 and fo & 0x1fff == 0:
        i = 20
        while i < hl and rest[i] != 0:
            if rest[i] == 1:
                i += 1
                continue
            n = rest[i + 1] if i + 1 < hl else 0
            if n < 2 or n > hl - i:
                break
            if not rest[i] & 0x80:
                rest[i:i + n] = b'\x01' * n
            i += n
    size, at, out = (mtu - hl) & ~7, hl, []
    while at < tot:
        n = min(size, tot - at)
        h = bytearray(l3[:hl] if at == hl else rest)
        h[2:4] = (hl + n).to_bytes(2, 'big')
        f = (((fo & 0x1fff) * 8 + at - hl) >> 3) & 0xffff
        if at + n < tot or fo & 0x2000:
            f |= 0x2000
        h[6:8] = f.to_bytes(2, 'big')
        h[10:12] = ft.ip4_cksum(h).to_bytes(2, 'big')
        out.append(bytes(h) + l3[at:at + n])
        at += n
    return out


def expected_output(inner, is_inner=True):
    """What Linux sends for a decapsulated inner packet, or an outer one
    it does not decapsulate: ('fwd', egress, l3), ('echo', egress, kind,
    l3) or ('icmp', egress, kind, l3), l3 with a placeholder IPv4 ID;
    ('frag', egress, [l3]) for the fragments of IPv4 without DF over the
    MTU; ('held', port, host) when it waits for host's MAC (('held', port,
    host, 'frag', n): n fragments wait); or None."""
    v4_ = inner[0] >> 4 == 4
    src, dst = _addrs(inner)
    ttl = inner[8] if v4_ else inner[7]
    route = _lpm(dst)
    if route == ('local',):
        return _local(inner, is_inner)
    if route is None:
        # ip_error, ip6_pkt_drop
        return _icmp(inner, 'icmp_net_unreach' if v4_ else 'icmp6_no_route', 0)
    out = _egress(dst, hold=True)
    if out is None:
        return None
    if ttl <= 1:
        return _icmp(inner, 'icmp_time_exceeded' if v4_ else 'icmp6_time_exceeded', 0)
    if out[0] == 'held':
        # the egress MTU comes before the neighbour: 1500 on every port
        if len(inner) > 1500:
            if not v4_:
                return _icmp(inner, 'icmp6_pkt_too_big', 1500)
            if inner[6] & 0x40:
                return _icmp(inner, 'icmp_frag_needed', 1500)
            return out + ('frag', len(_fragments(ft.forwarded_l3(inner), 1500)))
        return out
    if len(inner) > out[3]:
        if not v4_:
            return _icmp(inner, 'icmp6_pkt_too_big', out[3])
        if inner[6] & 0x40:
            return _icmp(inner, 'icmp_frag_needed', out[3])
        return ('frag', out, _fragments(ft.forwarded_l3(inner), out[3]))
    return ('fwd', out, ft.forwarded_l3(inner))


def _udp_ok(pkt, off, v6):
    """The UDP datagram at off of pkt as __udp4_lib_rcv / __udp6_lib_rcv
    take it: (its length, destination port), or None."""
    udp = pkt[off:]
    if len(udp) < 8:
        return None
    ulen = int.from_bytes(udp[4:6], 'big')
    if v6 and ulen == 0:
        ulen = len(udp)
    if ulen < 8 or ulen > len(udp):
        return None
    udp = udp[:ulen]
    if udp[6:8] == b'\0\0':
        return None if v6 else (ulen, int.from_bytes(udp[2:4], 'big'))
    addrs = pkt[8:40] if v6 else pkt[12:20]
    if not _sum_ok(addrs + b'\x00\x11' + ulen.to_bytes(2, 'big') + udp):
        return None
    return ulen, int.from_bytes(udp[2:4], 'big')


def _local(pkt, inner):
    """What Linux' local input answers for pkt, to one of our addresses
    (outer, or inner after decapsulation): an echo reply, a port or
    protocol unreachable, a parameter problem, or nothing (TCP, what it
    takes without answering, a fragment, malformed or FOU's)."""
    if pkt[0] >> 4 == 4:
        hl = (pkt[0] & 0xf) * 4
        proto, msg = pkt[9], pkt[hl:]
        if int.from_bytes(pkt[6:8], 'big') & 0x3fff:
            return None     # not reassembled
        if proto == 1:
            if len(msg) < 8 or not _sum_ok(msg) or msg[0] != 8:
                return None
            return _echo(pkt, ft.echo_reply4(pkt), 'icmp_echo_reply')
        if proto == 17:
            u = _udp_ok(pkt, hl, False)
            if u is None or u[1] in FOU_UDP_PORTS:
                return None
            return _icmp(pkt, 'icmp_port_unreach', 0, length=hl + u[0])
        if proto in (2, 6, 136):
            return None
        return _icmp(pkt, 'icmp_proto_unreach', 0)
    nh, msg = pkt[6], pkt[40:]
    if not inner:
        # an outer one: its extension headers; what follows them is dropped
        ext = _ip6_exthdrs(pkt)
        if ext is None:
            return None
        if ext[0] == 'param':
            return _icmp(pkt, 'icmp6_param_option', ext[1])
        if ext[1] != 40:
            return None
    # UDP to a port over IPv6: decapsulation's (decap6); inside a tunnel,
    # FOU is not decapsulated a second time
    if nh == 17 and len(msg) >= 8 and int.from_bytes(msg[2:4], 'big') in FOU6_PROTO:
        return None
    if nh == 58:
        if len(msg) < 8 or 133 <= msg[0] <= 137:
            return None     # short, or Neighbour Discovery (not answered yet)
        if not _sum_ok(pkt[8:40] + len(msg).to_bytes(4, 'big') + b'\0\0\0\x3a' + msg) or \
                msg[0] != 128:
            return None
        return _echo(pkt, ft.echo_reply6(pkt), 'icmp6_echo_reply')
    if nh == 17:
        u = _udp_ok(pkt, 40, True)
        return None if u is None else _icmp(pkt, 'icmp6_port_unreach', 0, length=40 + u[0])
    if nh in (0, 6, 43, 44, 59, 60, 136):
        return None
    return _icmp(pkt, 'icmp6_param_problem', 6)


def _echo(req, reply, kind):
    """The echo reply, routed back to the requester like any packet (it
    does not fit: Linux would fragment it; the gateway drops it)."""
    back = _egress(_addrs(req)[0], hold=True)
    if back is None:
        return None
    if back[0] == 'held':
        # the way back's port MTU is checked before it waits
        return None if len(reply) > 1500 else back
    if len(reply) > back[3]:
        return None
    return ('echo', back, kind, reply)


def _is_icmp_error(inner):
    if inner[0] >> 4 == 4:
        hl = (inner[0] & 0xf) * 4
        return inner[9] == 1 and (len(inner) <= hl or inner[hl] not in (0, 8, 13, 14, 15, 16,
                                                                        17, 18))
    return inner[6] == 58 and (len(inner) <= 40 or inner[40] < 128)


def _icmp(inner, kind, mtu, length=None):
    """The ICMP error about inner, routed back to its source; its source
    address is the one inner was sent to if that is ours, else the egress
    tunnel's local, or the port's address (IPv6: the gateway's only one).
    length: where inner ends for the quote."""
    src, dst = _addrs(inner)
    if _is_icmp_error(inner):
        return None
    back = _egress(src, hold=True)
    if back is None:
        return None
    if inner[0] >> 4 == 4 and int.from_bytes(inner[6:8], 'big') & 0x1fff:
        return None         # not about a non-first fragment
    if back[0] == 'held':
        # built (unless over the rate limit), then waits for the way back
        return back + ('icmp',)
    if inner[0] >> 4 == 4:
        me = dst if dst in LOCAL else ft.IP_P0 if back[2] else PORT_ADDR4[back[0]]
        return ('icmp', back, kind, ft.icmp4_error(inner, me, kind, mtu=mtu, length=length))
    # (RFC 6724 rule 8, longest match: fd00:99::1 to its own network)
    me = dst if dst in LOCAL else OUR6 if \
        ipaddress.ip_address(src) in ipaddress.ip_network('fd00:99::/64') else 'fd00:1::1'
    return ('icmp', back, kind, ft.icmp6_error(inner, me, kind, mtu=mtu, length=length))


# --- the outputs -----------------------------------------------------------------

def _norm(l3):
    """An IP packet with the IPv4 ID and header checksum zeroed: the ID of an
    ICMP error is the gateway's choice (its header checksum is checked by
    tshark, which must find no error)."""
    b = bytearray(l3)
    if b[0] >> 4 == 4:
        b[4:6] = b[10:12] = b'\0\0'
    return bytes(b)


TUNNEL_BY_WIRE = {(dport, key, csum): name for name, (dport, key, csum, _, _) in
                  TUNNEL_OUT.items()}


def output_key(port, frame):
    """(port, next hop MAC, tunnel or None, IP packet) of an output frame:
    for a FOU frame to the peer, the tunnel its outer headers say and its
    inner packet."""
    eth_dst = ':'.join('%02x' % x for x in frame[0:6])
    l3 = ft.l3_of(frame)
    if port == 0 and frame[12:14] == b'\x08\x00' and l3[9] == 17 and \
            _addrs(l3) == (ft.IP_P0, ft.IP_PEER):
        udp = l3[(l3[0] & 0xf) * 4:]
        dport = int.from_bytes(udp[2:4], 'big')
        key, csum = None, False
        if dport == 5556:
            g = GRE(udp[8:])
            key = g.key if g.key_present else None
            csum = bool(g.chksum_present)
        tunnel = TUNNEL_BY_WIRE.get((dport, key, csum), 'unknown %d/%s/%s' % (dport, key, csum))
        udp_csum_set = udp[6:8] != b'\0\0'
        if tunnel in TUNNEL_OUT and udp_csum_set != TUNNEL_OUT[tunnel][3]:
            tunnel += ' (UDP checksum %s)' % ('set' if udp_csum_set else 'zero')
        return (port, eth_dst, tunnel, ft.tunnel_payload(frame))
    return (port, eth_dst, None, l3)


def expected_key(exp):
    (port, mac, tunnel, _), l3 = exp[1], exp[-1]
    return (port, mac, tunnel, l3)


class Hostile(ft.GatewayTestCase):
    def test_named_malformations(self):
        """Every named case alone, with this test's tunnels: each dropped
        under its reason, or answered as Linux answers it where there is a
        way back (the answers byte for byte, tshark finding nothing wrong
        in them, the inner packets of the tunnels decoded)."""
        t = named_traffic()
        run = self.run_gw({0: t.write(self.path('in.pcap'))}, OPTS)
        self.assertTraffic(run, t, port_macs={0: ft.MAC_P0, 1: ft.MAC_P1},
                           fou_ports=FOU_PORTS)
        self.assertNeighOut(run, 0, ft.MAC_P0, ANNOUNCE[0],
                            resolve={'10.99.0.3': ft.IP_P0}, replies=t.arp_replies(0))
        self.assertNeighOut(run, 1, ft.MAC_P1, ANNOUNCE[1],
                            resolve={'192.168.1.77': '192.168.1.1',
                                     'fd00:1::77': 'fd00:1::1'})
        # (the port unreachable about UDP to 4789 quotes no VXLAN packet)
        for port in (0, 1):
            self.assertEqual(ft.tshark_problems(run.outputs[port], tcp=False,
                                                prefs=['--disable-protocol', 'vxlan']), [],
                             'port %d' % port)

    def test_hostile_capture(self):
        named = named_traffic()
        rng = random.Random(SEED)
        bases = linux_frames() + built_frames()
        mutated = mutations(bases, rng, CASES)
        sys.stderr.write('\nhostile capture: %d named, %d valid, %d random cases from seed %d '
                         '(FOU_HOSTILE_SEED=%d reproduces it)\n' % (
                             len(named.cases), len(bases), len(mutated), SEED, SEED))
        frames = [c.frame for c in named.cases] + bases + mutated
        run = self.run_gw({0: ft.write_pcap(self.path('in.pcap'), frames)}, OPTS,
                          idle_exit=2000)
        self.assertHealthy(run)
        ctx = '\n' + run.describe()
        s = run.summary
        self.assertEqual(s.rx, {0: len(frames), 1: 0}, ctx)
        # what waited for a neighbour ends under one of three reasons, by
        # timing (and how many waited for one host): checked together below
        waited = ('neigh_stopped', 'neigh_failed', 'neigh_queue_full')
        for reason, n in named.drops().items():
            if reason not in waited:
                self.assertGreaterEqual(s.drops.get(reason, 0), n, 'drop %s%s' % (reason, ctx))

        fwd, icmp, held = collections.Counter(), collections.Counter(), collections.Counter()
        # ICMP errors whose way back waits: each may be over the rate limit
        held_icmp = collections.Counter()
        reference = {}
        for f in frames:
            inner = decap(f)
            is_inner = inner is not None
            if inner is None:
                inner = plain(f)
            exp = expected_output(inner, is_inner) if inner is not None else None
            if exp is None:
                continue
            if exp[0] == 'held':
                (held_icmp if exp[3:] == ('icmp',) else held)[exp[1:3]] += \
                    exp[4] if exp[3:4] == ('frag',) else 1
                continue
            for e in ([('fwd', exp[1], l3) for l3 in exp[2]] if exp[0] == 'frag' else [exp]):
                k = expected_key(e)
                (icmp if e[0] == 'icmp' else fwd)[k[:3] + (_norm(k[3]),)] += 1
                reference[k[:3] + (_norm(k[3]),)] = k[3]

        got = collections.Counter()
        problems_out, problems_ref, ref_frames = [], [], []
        for port, mac in ((0, ft.MAC_P0), (1, ft.MAC_P1)):
            out = ft.capture_frames(run.outputs[port])
            self.assertEqual(len(out) + len(run.own[port]), s.tx[port], ctx)
            probs = dict(collections.defaultdict(list))
            for num, msg in ft.tshark_problems(run.outputs[port], tcp=True):
                # fou.lua passes on the exception of the inner packet's
                # dissector (a malformed DNS query, say) as a second message
                if not re.match(r'Lua Error: .*Dissector_call: Malformed frame$', msg):
                    probs.setdefault(int(num), []).append(msg)
            for i, frame in enumerate(out):
                self.assertEqual(frame[6:12], bytes.fromhex(mac.replace(':', '')))
                k = output_key(port, frame)
                nk = k[:3] + (_norm(k[3]),)
                got[nk] += 1
                problems_out.append(sorted(probs.get(i + 1, [])))
                ref = bytearray(reference.get(nk, k[3]))
                if ref[0] >> 4 == 4:
                    ref[4:6] = k[3][4:6]
                    ref[10:12] = ft.ip4_cksum(ref[:(ref[0] & 0xf) * 4]).to_bytes(2, 'big')
                ref_frames.append(frame[:12] + (b'\x08\x00' if ref[0] >> 4 == 4 else
                                                b'\x86\xdd') + bytes(ref))
        ref_path = ft.write_pcap(self.path('reference.pcap'), ref_frames)
        probs = {}
        for num, msg in ft.tshark_problems(ref_path, tcp=True):
            probs.setdefault(int(num), []).append(msg)
        problems_ref = [sorted(probs.get(i + 1, [])) for i in range(len(ref_frames))]

        # every packet that waited, and requests for exactly its hosts
        queued = s.local.get('neigh_queued', 0)
        limited = s.drops.get('icmp_ratelimited', 0)
        self.assertGreaterEqual(queued, sum(held.values()) +
                                max(0, sum(held_icmp.values()) - limited), ctx)
        self.assertLessEqual(queued, sum(held.values()) + sum(held_icmp.values()), ctx)
        self.assertEqual(sum(s.drops.get(r, 0) for r in waited), queued, ctx)
        self.assertLessEqual(s.drops.get('neigh_queue_full', 0),
                             sum(max(0, n - 101) for n in (held + held_icmp).values()), ctx)
        for port, mac in ((0, ft.MAC_P0), (1, ft.MAC_P1)):
            own = ft.neigh_decode(run.own[port], self.path('own%d.pcap' % port))
            asked = {f['tip'] if f['kind'] == 'arp-request' else f['target'] for f in own
                     if f['kind'] in ('arp-request', 'ns') and
                     not (f['kind'] == 'arp-request' and f['sip'] == f['tip'])}
            # (a host only ICMP errors waited for is not asked for when
            # the rate limit took them all)
            self.assertLessEqual({h for p, h in held if p == port}, asked,
                                 'port %d did not ask for hosts packets waited for%s' %
                                 (port, ctx))
            self.assertLessEqual(asked, {h for p, h in held + held_icmp if p == port},
                                 'port %d asked for other hosts than packets waited for%s' %
                                 (port, ctx))
            replies = [f for f in own if f['kind'] == 'arp-reply']
            self.assertEqual(len(replies), len(named.arp_replies(0)) if port == 0 else 0, ctx)
            announced = [f for f in own if f['kind'] == 'na' or
                         (f['kind'] == 'arp-request' and f['sip'] == f['tip'])]
            self.assertEqual(sorted(f['target'] if f['kind'] == 'na' else f['sip']
                                    for f in announced), sorted(ANNOUNCE[port]), ctx)
            self.assertEqual(len(own), len(announced) + len(replies) +
                             sum(1 for f in own if f['kind'] in ('arp-request', 'ns') and
                                 f not in announced), 'other frames of its own' + ctx)
            self.assertTrue(all(f['eth_src'] == mac.lower() for f in own), ctx)

        unexpected = got - fwd - icmp
        self.assertFalse(unexpected, 'sent, and Linux would not have: %s%s' % (
            [(k[:3], k[3].hex()) for k in unexpected], ctx))
        missing = fwd - got
        self.assertFalse(missing, 'not forwarded, and Linux would have: %s%s' % (
            [(k[:3], k[3].hex()) for k in missing], ctx))
        icmp_missing = sum((icmp - got).values())
        self.assertLessEqual(icmp_missing, s.drops.get('icmp_ratelimited', 0),
                             'ICMP errors missing' + ctx)
        for i, (o, r) in enumerate(zip(problems_out, problems_ref)):
            self.assertEqual(o, r, 'output frame %d: tshark finds problems the forwarded '
                             'packet did not carry' % i)
        sys.stderr.write('hostile capture: sent %d (%d forwarded or encapsulated, %d ICMP '
                         'errors), %d waited for %d hosts, dropped %d, %d output frames with '
                         'an L4 problem of their own\n' % (
                             sum(got.values()), sum(fwd.values()),
                             sum((got & icmp).values()), sum(held.values()), len(held),
                             s.dropped, sum(1 for r in problems_ref if r)))


if __name__ == '__main__':
    ft.main()
