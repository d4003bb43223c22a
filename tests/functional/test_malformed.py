#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Case 3: malformed and foreign traffic, all in one capture. Every frame
must be dropped under its own reason and read no byte past its end; nothing
may be forwarded on any port (packets for other hosts are routed: here they
have no route, or a neighbour that never answers the gateway's ARP or NS:
they wait until the gateway stops, neigh_stopped). What the gateway sends of
its own: its announcements, those requests, the answers to ARP requests for
its address, and the ICMP errors and echo replies Linux sends about the
packets of two neighbours, the peer 10.99.0.2 (a static entry here, so that
its answers leave in order: test_neigh shows how they wait for one) and
fd00:1::2. The inner sources have no way back, so the gateway's answers to
them cannot leave."""
import os
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou, gre, v4, v6  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether, Dot1Q, ARP, GRE  # noqa: E402
from scapy.layers.inet import IP, UDP, ICMP, TCP, IPOption, IPOption_Router_Alert, \
    IPOption_LSRR, IPOption_SSRR  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402


def cut(frame, n):
    return bytes(frame)[:n]


def patched(frame, off, value):
    b = bytearray(bytes(frame))
    b[off:off + len(value)] = value
    return bytes(b)


def with_total_length(frame, value):
    """The outer IPv4 total length set to value, the header checksum valid
    again: Linux checks the checksum before the length (ip_rcv_core)."""
    b = bytearray(patched(frame, 16, value.to_bytes(2, 'big')))
    hl = (b[14] & 0xf) * 4
    b[24:26] = b'\x00\x00'
    s = sum(int.from_bytes(b[14 + i:16 + i], 'big') for i in range(0, hl, 2))
    while s > 0xffff:
        s = (s & 0xffff) + (s >> 16)
    b[24:26] = (~s & 0xffff).to_bytes(2, 'big')
    return bytes(b)


def eth(dst=ft.MAC_P0):
    return Ether(src=ft.MAC_PEER, dst=dst)


def outer_ip(**kw):
    """A local outer IPv4 header from the peer."""
    return IP(src=ft.IP_PEER, dst=ft.IP_P0, id=99, **kw)


def _tunnel_back(inner_reply, dport):
    """The frame's IP packet when inner_reply leaves through the hostile
    test's tunnel back to the peer (fou-ipip or fou-sit: TTL 64, DF, TOS 0,
    encap-sport auto, no UDP checksum), and the ranges of it that are not
    predictable: the outer ID, the UDP source port and, for an IPv4 reply,
    its ID and header checksum (tshark checks that one)."""
    udp = struct.pack('!HHHH', 0, dport, 8 + len(inner_reply), 0)
    l3 = ft.ip4_header(ft.IP_P0, ft.IP_PEER, 17, len(udp) + len(inner_reply), df=True) + udp + \
        inner_reply
    ignore = ((4, 6), (20, 22))
    if inner_reply[0] >> 4 == 4:
        ignore += ((28 + 4, 28 + 6), (28 + 10, 28 + 12))
    return l3, ignore


def malformed_traffic(way_back=False):
    """way_back: the peer 10.99.0.2 has a neighbour entry and the inner
    sources 192.168.3.0/24 and fd00:40::/64 are routed back into fou-ipip
    and fou-sit (test_hostile's gateway): then what Linux answers leaves."""
    t = ft.Traffic()

    def answered(name, frame, reason, kind, l3, port=0, eth_dst=ft.MAC_PEER, plain=True,
                 ignore=None, outer=False):
        """Dropped as reason without a way back, else answered with l3;
        outer: an answer to the peer, which always has a way back."""
        if way_back or outer:
            t.icmp(name, frame, port, eth_dst, l3, kind, plain=plain, ignore=ignore)
        else:
            t.drop(name, frame, reason, plain=plain)

    def inner_echo(name, frame):
        """An inner echo request to us from a source without a route
        (no_route), or with one back into a tunnel."""
        inner = ft.tunnel_payload(bytes(frame))
        if inner[0] >> 4 == 4:
            l3, ignore = _tunnel_back(ft.echo_reply4(inner), 5555)
            kind = 'icmp_echo_reply'
        else:
            l3, ignore = _tunnel_back(ft.echo_reply6(inner), 5557)
            kind = 'icmp6_echo_reply'
        answered(name, frame, 'no_route', kind, l3, plain=False, ignore=ignore)

    ipip = bytes(fou(5555, v4(seq=1)))
    tagged = bytes(fou(5555, v4(seq=2), vlans=[Dot1Q(vlan=7)]))
    with_opts = bytes(fou(5555, v4(seq=3), options=[IPOption_Router_Alert()]))

    # -- truncated frames: a valid frame cut at and around each header boundary
    for n in (1, 6, 13):
        t.drop('ipip cut at %d' % n, cut(ipip, n), 'eth_truncated')
    t.drop('802.1Q cut inside the tag', cut(tagged, 16), 'eth_truncated')
    t.drop('802.1Q cut after the tag', cut(tagged, 18), 'ip_truncated')
    for n in (14, 15, 33):
        t.drop('ipip cut at %d (in the IPv4 header)' % n, cut(ipip, n), 'ip_truncated')
    t.drop('cut inside the outer IPv4 options', cut(with_opts, 14 + 22), 'ip_truncated')
    # the IPv4 total length now points past the end of the frame
    for n in (34, 38, 41, 42, 43, 61, 62, len(ipip) - 1):
        t.drop('ipip cut at %d (past the IPv4 header)' % n, cut(ipip, n), 'ip_len_bad')

    # -- truncated headers with consistent lengths
    t.drop('IPv4 UDP, no UDP header', eth() / outer_ip(proto=17), 'udp_truncated')
    t.drop('IPv4 UDP, 4 bytes of UDP header', eth() / outer_ip(proto=17) / Raw(b'\x9c\x40\x15\xb3'),
           'udp_truncated')
    t.drop('UDP length 7', patched(fou(5555, v4(seq=4), chksum=0), 14 + 20 + 4, b'\x00\x07'),
           'udp_len_bad')
    t.drop('UDP length 0', patched(fou(5555, v4(seq=4), chksum=0), 14 + 20 + 4, b'\x00\x00'),
           'udp_len_bad')
    t.drop('UDP length beyond the IPv4 payload', patched(fou(5555, v4(seq=5), chksum=0),
                                                          14 + 20 + 4, b'\x01\x00'), 'udp_len_bad')
    t.drop('gre, empty FOU payload', fou(5556, Raw(b'')), 'gre_truncated')
    t.drop('gre, 3 bytes', fou(5556, Raw(b'\x00\x00\x08')), 'gre_truncated')
    t.drop('gre K, 6 bytes', fou(5556, Raw(b'\x20\x00\x08\x00\x00\x01')), 'gre_truncated')
    t.drop('gre CKS, 12 bytes', fou(5556, Raw(bytes(GRE(chksum_present=1, key_present=1,
                                                        seqnum_present=1, proto=0x800))[:12])),
           'gre_truncated')
    t.drop('ipip, empty FOU payload', fou(5555, Raw(b'')), 'inner_truncated')
    t.drop('ipip, 19 bytes', fou(5555, Raw(bytes(v4(seq=6))[:19])), 'inner_truncated')
    t.drop('ipip, IHL 15 in a 24-byte payload', fou(5555, Raw(patched(bytes(v4(seq=7))[:24], 0,
                                                                      b'\x4f'))),
           'inner_truncated')
    t.drop('sit, 39 bytes', fou(5557, Raw(bytes(v6(seq=1))[:39])), 'inner_truncated')
    t.drop('gre ipv4, 10 bytes', fou(5556, GRE(proto=0x800) / Raw(bytes(v4(seq=8))[:10])),
           'inner_truncated')
    t.drop('gre ipv6, 20 bytes', fou(5556, GRE(proto=0x86dd) / Raw(bytes(v6(seq=2))[:20])),
           'inner_truncated')

    # -- outer IPv4 header
    t.drop('outer IHL 4', patched(ipip, 14, b'\x44'), 'ip_hdr_bad')
    t.drop('outer IHL 0', patched(ipip, 14, b'\x40'), 'ip_hdr_bad')
    t.drop('outer version 6 in an IPv4 frame', patched(ipip, 14, b'\x65'), 'ip_hdr_bad')
    t.drop('outer version 5', patched(ipip, 14, b'\x55'), 'ip_hdr_bad')
    t.drop('outer total length beyond the frame',
           with_total_length(ipip, len(ipip) - 14 + 1), 'ip_len_bad')
    t.drop('outer total length 19', with_total_length(ipip, 19), 'ip_len_bad')
    t.drop('outer total length 0', with_total_length(ipip, 0), 'ip_len_bad')
    t.drop('outer total length below the options', with_total_length(with_opts, 22),
           'ip_len_bad')
    t.drop('outer total length beyond the frame, checksum not fixed',
           patched(ipip, 16, (len(ipip) - 14 + 1).to_bytes(2, 'big')), 'ip_cksum_bad')
    t.drop('outer IPv4 checksum wrong', patched(ipip, 14 + 10, b'\xde\xad'), 'ip_cksum_bad')
    t.drop('outer IPv4 checksum wrong, options', patched(with_opts, 14 + 10, b'\x00\x01'),
           'ip_cksum_bad')
    t.drop('outer IPv4 option byte changed', patched(with_opts, 14 + 21, b'\x01'),
           'ip_cksum_bad')
    # IPv4 options Linux drops (ip_rcv_options): malformed, or a source route
    t.drop('outer loose source route', fou(5555, v4(seq=37),
                                           options=[IPOption_LSRR(routers=[ft.IP_P0])]),
           'ip_options_bad')
    t.drop('outer option of length 1', fou(5555, v4(seq=38),
                                           options=[IPOption(b'\x07\x01\x00\x00')]),
           'ip_options_bad')
    t.drop('routed, loose source route', eth() / IP(src=ft.IP_PEER, dst='192.168.4.9',
                                                    options=[IPOption_LSRR(
                                                        routers=['192.168.4.1'])]) /
           UDP(sport=1, dport=2), 'ip_options_bad', plain=True)
    t.drop('inner strict source route', fou(5555, v4(seq=39, options=[
        IPOption_SSRR(routers=['192.168.4.1'])])), 'inner_options_bad')
    t.drop('inner timestamp full, overflow counter 15', fou(5556, gre(v4(
        dst='192.168.47.1', seq=40, options=[IPOption(b'\x44\x0c\x0d\xf0' + bytes(8))]))),
           'inner_options_bad')
    # fragments are reassembled (test_reasm.py); these wait for the rest of
    # their datagrams until the gateway stops
    t.drop('outer first fragment (MF)', fou(5555, v4(seq=10), flags='MF'), 'reasm_stopped')
    t.drop('outer last fragment (offset)', eth() / outer_ip(proto=17, frag=185) /
           Raw(bytes(v4(seq=11))), 'reasm_stopped')
    t.drop('outer middle fragment', eth() / outer_ip(proto=17, flags='MF', frag=3) /
           Raw(bytes(v4(seq=12))), 'reasm_stopped')

    # -- not for us, or not FOU
    t.drop('unicast to another MAC', fou(5555, v4(seq=13), eth_dst='02:00:0a:63:00:99'),
           'eth_other_host')
    t.drop('unicast to the MAC of port 1', fou(5555, v4(seq=14), eth_dst=ft.MAC_P1),
           'eth_other_host')
    # ARP for our address is answered (the tagged one behind its tag); a
    # reply is taken in, one for another host ignored; malformed ARP dropped
    t.answer('ARP request', Ether(src=ft.MAC_PEER, dst='ff:ff:ff:ff:ff:ff') /
             ARP(op=1, hwsrc=ft.MAC_PEER, psrc=ft.IP_PEER, pdst=ft.IP_P0), ft.IP_P0)
    t.consume('ARP reply', eth() / ARP(op=2, hwsrc=ft.MAC_PEER, psrc=ft.IP_PEER,
                                       hwdst=ft.MAC_P0, pdst=ft.IP_P0))
    t.answer('802.1Q ARP', Ether(src=ft.MAC_PEER, dst='ff:ff:ff:ff:ff:ff') / Dot1Q(vlan=7) /
             ARP(op=1, hwsrc=ft.MAC_PEER, psrc=ft.IP_PEER, pdst=ft.IP_P0), ft.IP_P0)
    t.drop('ARP request for 10.99.0.3', Ether(src=ft.MAC_PEER, dst='ff:ff:ff:ff:ff:ff') /
           ARP(op=1, hwsrc=ft.MAC_PEER, psrc=ft.IP_PEER, pdst='10.99.0.3'), 'arp_not_ours')
    t.drop('ARP request for the address of port 1', Ether(src=ft.MAC_PEER,
                                                           dst='ff:ff:ff:ff:ff:ff') /
           ARP(op=1, hwsrc=ft.MAC_PEER, psrc=ft.IP_PEER, pdst='192.168.1.1'), 'arp_not_ours')
    t.drop('RARP-style ARP opcode 3', Ether(src=ft.MAC_PEER, dst='ff:ff:ff:ff:ff:ff') /
           ARP(op=3, hwsrc=ft.MAC_PEER, psrc=ft.IP_PEER, pdst=ft.IP_P0), 'arp_bad')
    t.drop('ARP cut short', cut(Ether(src=ft.MAC_PEER, dst='ff:ff:ff:ff:ff:ff') /
                                ARP(op=1, hwsrc=ft.MAC_PEER, psrc=ft.IP_PEER, pdst=ft.IP_P0),
                                14 + 27), 'arp_bad')
    # IPv6 to one of our addresses: this gateway has FOU ports over IPv4
    # only (nobody listens on UDP over IPv6: port unreachable, to a neighbour)
    f = eth() / IPv6(src='fd00:1::2', dst='fd00:1::1') / UDP(sport=40000, dport=5557) / v6(seq=3)
    t.icmp('IPv6 outer FOU to fd00:1::1 (ours)', f, 1, ft.MAC_NH_SIT,
           ft.icmp6_error(ft.l3_of(f), 'fd00:1::1', 'icmp6_port_unreach'), 'icmp6_port_unreach',
           plain=True)
    t.drop('LLDP', Ether(src=ft.MAC_PEER, dst='01:80:c2:00:00:0e', type=0x88cc) /
           Raw(b'\x02\x07\x04' + b'\0' * 40), 'not_ip')
    t.drop('MPLS', Ether(src=ft.MAC_PEER, dst=ft.MAC_P0, type=0x8847) / Raw(bytes(40)),
           'not_ip')
    # not for us: routed as any packet (ip_forward), and here not deliverable
    t.drop('FOU to 10.99.0.3 (connected, no neighbour)', fou(5555, v4(seq=15), dst='10.99.0.3'),
           'neigh_stopped', plain=True)
    f = fou(5555, v4(seq=16), dst='203.0.113.9')
    answered('FOU to 203.0.113.9 (no route)', f, 'no_route', 'icmp_net_unreach',
             ft.icmp4_error(ft.l3_of(f), ft.IP_P0, 'icmp_net_unreach'), outer=True)
    t.drop('fragment to another address (forwarded, not reassembled)',
           fou(5555, v4(seq=17), dst='10.99.0.3', flags='MF'), 'neigh_stopped', plain=True)
    t.drop('IPv6 to fd00:1::77 (connected, no neighbour)',
           eth() / IPv6(src='fd00:1::2', dst='fd00:1::77') / UDP(sport=1, dport=2),
           'neigh_stopped', plain=True)
    f = eth() / IPv6(src='fd00:1::2', dst='2001:db8::1') / UDP(sport=1, dport=2)
    t.icmp('IPv6 to 2001:db8::1 (no route)', f, 1, ft.MAC_NH_SIT,
           ft.icmp6_error(ft.l3_of(f), 'fd00:1::1', 'icmp6_no_route'), 'icmp6_no_route',
           plain=True)
    # never routed (ip_route_input_slow / ip6_rcv_core, ip6_forward)
    t.drop('to 255.255.255.255', Ether(src=ft.MAC_PEER, dst='ff:ff:ff:ff:ff:ff') /
           IP(src=ft.IP_PEER, dst='255.255.255.255') / UDP(sport=68, dport=67), 'bcast_mcast')
    t.drop('to 10.99.0.255 (broadcast of a connected network)',
           Ether(src=ft.MAC_PEER, dst='ff:ff:ff:ff:ff:ff') /
           IP(src=ft.IP_PEER, dst='10.99.0.255') / UDP(sport=1, dport=2), 'bcast_mcast')
    t.drop('FOU to 192.168.1.255 (directed broadcast)', fou(5555, v4(seq=36), dst='192.168.1.255'),
           'bcast_mcast')
    t.drop('from 10.99.0.255 (broadcast source)', eth() /
           IP(src='10.99.0.255', dst='192.168.1.2') / UDP(sport=1, dport=2), 'outer_martian')
    t.drop('to 192.168.1.2 in an Ethernet broadcast frame', Ether(src=ft.MAC_PEER,
           dst='ff:ff:ff:ff:ff:ff') / IP(src=ft.IP_PEER, dst='192.168.1.2') /
           UDP(sport=1, dport=2), 'bcast_mcast')
    t.drop('IPv6 to fd00:1::2 in an Ethernet multicast frame', Ether(src=ft.MAC_PEER,
           dst='33:33:00:00:00:02') / IPv6(src='fd00:1::9', dst='fd00:1::2') /
           UDP(sport=1, dport=2), 'bcast_mcast')
    t.drop('to 224.0.0.5 (OSPF)', Ether(src=ft.MAC_PEER, dst='01:00:5e:00:00:05') /
           IP(src=ft.IP_PEER, dst='224.0.0.5', proto=89) / Raw(bytes(20)), 'bcast_mcast')
    t.drop('FOU to 239.1.2.3', fou(5555, v4(seq=35), dst='239.1.2.3',
                                   eth_dst='01:00:5e:01:02:03'), 'bcast_mcast')
    t.drop('to 127.0.0.1', eth() / IP(src=ft.IP_PEER, dst='127.0.0.1') / UDP(sport=1, dport=2),
           'outer_martian')
    t.drop('to 0.1.2.3', eth() / IP(src=ft.IP_PEER, dst='0.1.2.3') / UDP(sport=1, dport=2),
           'outer_martian')
    t.drop('IPv6 to ff02::1', Ether(src=ft.MAC_PEER, dst='33:33:00:00:00:01') /
           IPv6(src='fd00:1::2', dst='ff02::1') / UDP(sport=1, dport=2), 'bcast_mcast')
    t.drop('IPv6 from fe80::2', eth() / IPv6(src='fe80::2', dst='fd00:41::1') /
           UDP(sport=1, dport=2), 'outer_martian')
    t.drop('IPv6 from ff02::2', eth() / IPv6(src='ff02::2', dst='fd00:41::1') /
           UDP(sport=1, dport=2), 'outer_martian')
    t.drop('IPv6 to fe80::1', eth() / IPv6(src='fd00:1::2', dst='fe80::1') /
           UDP(sport=1, dport=2), 'outer_martian')
    t.drop('IPv6 to ::1', eth() / IPv6(src='fd00:1::2', dst='::1') / UDP(sport=1, dport=2),
           'outer_martian')
    # malformed outer IPv6
    six = bytes(eth() / IPv6(src='fd00:1::2', dst='fd00:41::1') / UDP(sport=1, dport=2) /
                Raw(b'z' * 10))
    t.drop('IPv6 cut at 14 + 39', cut(six, 14 + 39), 'ip_truncated')
    t.drop('IPv6 version 4 under ethertype 0x86dd', patched(six, 14, b'\x40'), 'ip_hdr_bad')
    t.drop('IPv6 payload length beyond the frame', patched(six, 14 + 4, b'\x00\x13'),
           'ip_len_bad')
    # to us, not FOU: answered as Linux' local input answers, when the
    # answer can go back to 10.99.0.2 (the echo reply is routed as any
    # packet: no_neigh without a way back)
    f = eth() / outer_ip() / ICMP()
    answered('ICMP echo to us', f, 'no_neigh', 'icmp_echo_reply', ft.echo_reply4(ft.l3_of(f)),
             outer=True)
    t.drop('TCP to us', eth() / outer_ip() / TCP(dport=5555), 'local_not_udp')
    f = eth() / outer_ip(proto=4) / v4(seq=18)
    answered('plain IPIP (no FOU) to us', f, 'local_not_udp', 'icmp_proto_unreach',
             ft.icmp4_error(ft.l3_of(f), ft.IP_P0, 'icmp_proto_unreach'), outer=True)
    for name, f in (('unknown FOU port 5560', fou(5560, v4(seq=19))),
                    ('UDP to port 53', fou(53, Raw(b'\x12\x34' + bytes(10)))),
                    ('unknown FOU port, checksum 0', fou(4789, v4(seq=20), chksum=0))):
        answered(name, f, 'fou_port_unknown', 'icmp_port_unreach',
                 ft.icmp4_error(ft.l3_of(f), ft.IP_P0, 'icmp_port_unreach'), outer=True)

    # -- UDP and GRE checks
    t.drop('UDP checksum wrong', patched(fou(5556, gre(v4(dst='192.168.47.1', seq=21))),
                                         14 + 20 + 6, b'\x00\x01'), 'udp_cksum_bad')
    t.drop('gre version 1 (PPTP)', fou(5556, GRE(version=1, key_present=1, proto=0x880b) /
                                       Raw(bytes(8))), 'gre_version')
    t.drop('gre version 7', fou(5556, GRE(version=7, proto=0x800) / v4(seq=22)), 'gre_version')
    t.drop('gre routing bit', fou(5556, GRE(routing_present=1, proto=0x800) / v4(seq=23)),
           'gre_routing')
    good = bytes(fou(5556, gre(v4(dst='192.168.47.1', seq=24), c=1), chksum=0))
    t.drop('gre checksum wrong', patched(good, 14 + 20 + 8 + 4, b'\x00\x00'), 'gre_cksum_bad')
    t.drop('gre checksum, payload corrupted', patched(good, len(good) - 1, b'\xee'),
           'gre_cksum_bad')
    t.drop('gre proto 0x6558 (TEB)', fou(5556, GRE(proto=0x6558) / Raw(bytes(60))),
           'gre_proto_unknown')
    t.drop('gre proto 0x0806', fou(5556, GRE(proto=0x0806) / Raw(bytes(28))),
           'gre_proto_unknown')

    # -- inner headers
    t.drop('ipip carrying IPv6', fou(5555, v6(seq=4)), 'inner_hdr_bad')
    t.drop('sit carrying IPv4', fou(5557, v4(seq=25)), 'inner_hdr_bad')
    t.drop('gre 0x0800 carrying IPv6', fou(5556, GRE(proto=0x800) / v6(seq=5)), 'inner_hdr_bad')
    t.drop('gre 0x86dd carrying IPv4', fou(5556, GRE(proto=0x86dd) /
                                           v4(dst='192.168.47.1', seq=26)), 'inner_hdr_bad')
    t.drop('inner IHL 4', fou(5555, Raw(patched(bytes(v4(seq=27)), 0, b'\x44'))),
           'inner_hdr_bad')
    t.drop('inner total length beyond the payload', fou(5555, Raw(patched(
        bytes(v4(seq=28)), 2, (len(v4(seq=28)) + 1).to_bytes(2, 'big')))), 'inner_len_bad')
    t.drop('inner total length 19', fou(5555, Raw(patched(bytes(v4(seq=29)), 2, b'\x00\x13'))),
           'inner_len_bad')
    t.drop('inner IPv6 payload length beyond the payload',
           fou(5557, Raw(patched(bytes(v6(seq=6)), 4, b'\x01\x00'))), 'inner_len_bad')
    t.drop('inner IPv4 checksum wrong', fou(5555, Raw(patched(bytes(v4(seq=30)), 10,
                                                              b'\x12\x34'))), 'inner_cksum_bad')
    t.drop('gre inner IPv4 checksum wrong', fou(5556, GRE(proto=0x800) / Raw(
        patched(bytes(v4(dst='192.168.47.1', seq=31)), 10, b'\x00\x00'))), 'inner_cksum_bad')

    # -- inner addresses never forwarded, or ours
    for src, dst in (('192.168.3.2', '127.0.0.1'), ('127.0.0.1', '192.168.4.1'),
                     ('192.168.3.2', '224.0.0.5'), ('192.168.3.2', '255.255.255.255'),
                     ('0.1.2.3', '192.168.4.1'), ('192.168.3.2', '0.0.0.0'),
                     ('224.1.1.1', '192.168.4.1')):
        t.drop('inner %s -> %s' % (src, dst), fou(5555, v4(src=src, dst=dst, seq=32)),
               'inner_martian')
    for src, dst in (('fd00:40::2', 'fe80::1'), ('fe80::2', 'fd00:41::1'),
                     ('fd00:40::2', 'ff02::1'), ('fd00:40::2', '::1'), ('::', 'fd00:41::1'),
                     ('fd00:40::2', '::')):
        t.drop('inner %s -> %s' % (src, dst), fou(5557, v6(src=src, dst=dst, seq=7)),
               'inner_martian')
    # echo requests to us inside the tunnels: the replies are routed back
    inner_echo('inner to 192.168.1.1 (ours)', fou(5555, v4(dst='192.168.1.1', seq=33)))
    inner_echo('inner to 10.99.0.1 (ours)', fou(5556, gre(v4(dst='10.99.0.1', seq=34))))
    inner_echo('inner to fd00:1::1 (ours)', fou(5557, v6(dst='fd00:1::1', seq=8)))
    # what else is for us gets no answer without a way back
    t.drop('inner UDP to 192.168.1.1 (ours), no way back',
           fou(5555, IP(src='192.168.5.2', dst='192.168.1.1') / UDP(sport=7, dport=9)),
           'inner_local')
    t.drop('inner protocol 99 to fd00:1::1 (ours), no way back',
           fou(5557, IPv6(src='fd00:5::2', dst='fd00:1::1', nh=99) / Raw(bytes(8))),
           'inner_local')
    return t


class Malformed(ft.GatewayTestCase):
    def test_malformed_capture(self):
        t = malformed_traffic()
        run = self.run_gw({0: t.write(self.path('in.pcap'))}, list(ft.PROTO_OPTS) +
                          ['--neigh', ft.IP_PEER + ',dev=0,lladdr=' + ft.MAC_PEER])
        self.assertTraffic(run, t, port_macs={0: ft.MAC_P0, 1: ft.MAC_P1},
                           fou_ports=ft.PROTO_FOU_PORTS)
        self.assertNeighOut(run, 0, ft.MAC_P0, ft.BASE_ANNOUNCE[0],
                            resolve={'10.99.0.3': ft.IP_P0}, replies=t.arp_replies(0))
        self.assertNeighOut(run, 1, ft.MAC_P1, ft.BASE_ANNOUNCE[1],
                            resolve={'fd00:1::77': 'fd00:1::1'})
        self.assertEqual(run.summary.tx, {p: len(run.own[p]) + len(t.out(p)) for p in (0, 1)})
        self.assertEqual(run.summary.icmp, {'icmp6_port_unreach': 1, 'icmp6_no_route': 1,
                                            'icmp_net_unreach': 1, 'icmp_echo_reply': 1,
                                            'icmp_proto_unreach': 1, 'icmp_port_unreach': 3})
        self.assertEqual(ft.tshark_problems(run.outputs[1], tcp=False), [])
        self.assertEqual(run.summary.consumed, t.consumed(), run.describe())
        s = run.summary.local
        self.assertEqual((s['arp_requests_in'], s['arp_replies_in'], s['arp_replies_out']),
                         (2, 1, 2), run.describe())

    def test_outer_martian_source(self):
        """Linux drops an outer packet from a source that can never send
        (ip_route_input_slow: martian source; fib_validate_source: one of
        our own addresses), so its FOU socket never sees it. The gateway
        must not decapsulate it either: outer_martian."""
        sources = ('127.0.0.1', '224.0.0.1', '0.0.0.0', '0.1.2.3', '255.255.255.255',
                   '10.99.0.1', '192.168.1.1')
        frames = []
        for i, src in enumerate(sources):
            f = fou(5555, v4(seq=40 + i))
            f[IP].src = src
            frames.append(f)
        run = self.run_gw({0: ft.write_pcap(self.path('in.pcap'), frames)}, ft.PROTO_OPTS)
        self.assertHealthy(run)
        ctx = '\n' + run.describe()
        self.assertEqual(run.summary.rx, {0: len(frames), 1: 0}, ctx)
        self.assertEqual(run.summary.tx, {p: len(run.own[p]) for p in (0, 1)},
                         'FOU from a martian or local source was forwarded' + ctx)
        self.assertNeighOut(run, 0, ft.MAC_P0, ft.BASE_ANNOUNCE[0])
        self.assertNeighOut(run, 1, ft.MAC_P1, ft.BASE_ANNOUNCE[1])
        self.assertEqual(run.summary.decap, 0, ctx)
        self.assertEqual(run.summary.drops, {'outer_martian': len(frames)}, ctx)
        self.assertNoOutput(run)


if __name__ == '__main__':
    ft.main()
