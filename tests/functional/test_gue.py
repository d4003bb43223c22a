#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""GUE (ip fou add port 5555 gue, encap gue) on the IPv4 underlay, in one
gateway run. The gateway stands where the Linux captures' far end stood
(10.99.0.10, 02:00:0a:63:00:10) with a GUE port 5555 and tunnels back to
10.99.0.2 (ipip and sit encap gue, gre encap fou, gre key 42 csum seq
encap gue). Port 0 receives the Linux 6.1 GUE captures (tests/data) and
scapy-built GUE frames: versions 0 and 1, optional fields, each malformed
kind under its drop reason, a source no tunnel has; port 1 receives inner
packets routed into the GUE tunnels. tshark checks what leaves, decoding
GUE with tests/tshark/fou.lua (tshark 4.0 has no GUE dissector): the GUE
header, every checksum (outer UDP, GRE, inner), and the bytes against an
outer header built here. /fou/ports, /fou/tunnels and /fou/config say gue."""
import os
import signal
import socket
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.l2 import Ether, GRE  # noqa: E402
from scapy.layers.inet import IP, UDP, ICMP, TCP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402

MAC_GW0 = '02:00:0a:63:00:10'      # the captures' far end
GW0 = '10.99.0.10'
PEER = '10.99.0.2'                  # the Linux guest of the captures
MAC_PEER = '52:54:00:63:00:02'
MAC_H1 = '02:00:c0:a8:01:32'        # a host on port 1 sending into the tunnels
H4 = '192.168.1.50'
H6 = 'fd00:1::50'
GUE_PORT = 5555
CAPTURES = ('ipip', 'ipip-csum', 'sit', 'sit-csum', 'gre', 'gre-csum', 'gre-key-csum-seq')
NH = {'ipip': ft.MAC_NH_IPIP, 'sit': ft.MAC_NH_SIT, 'gre': ft.MAC_NH_GRE}

OPTS = [
    '--link', '0,address=' + MAC_GW0,
    '--link', '1,address=' + ft.MAC_P1,
    '--addr', '0,%s/24' % GW0,
    '--addr', '1,192.168.1.1/24',
    '--addr', '1,fd00:1::1/64',
    '--port', '%d:gue' % GUE_PORT,
    '--route', '192.168.4.0/24,dev=1,via=192.168.1.2',
    '--route', '192.168.47.0/24,dev=1,via=192.168.1.3',
    '--route', 'fd00:41::/64,dev=1,via=fd00:1::2',
    '--neigh', '192.168.1.2,dev=1,lladdr=' + ft.MAC_NH_IPIP,
    '--neigh', '192.168.1.3,dev=1,lladdr=' + ft.MAC_NH_GRE,
    '--neigh', 'fd00:1::2,dev=1,lladdr=' + ft.MAC_NH_SIT,
    '--neigh', '%s,dev=1,lladdr=%s' % (H4, MAC_H1),
    '--neigh', '%s,dev=1,lladdr=%s' % (H6, MAC_H1),
    '--neigh', '%s,dev=0,lladdr=%s' % (PEER, MAC_PEER),
    # the captures' tunnels seen from the other end; ggre is encap fou: Linux
    # matches a received packet by addresses, type and key, not by encap
    '--tunnel', 'gip,type=ipip,local=%s,remote=%s,encap=gue,encap-dport=%d' % (GW0, PEER,
                                                                           GUE_PORT),
    '--tunnel', 'gsit,type=sit,local=%s,remote=%s,encap=gue,encap-dport=%d,encap-csum,'
                'encap-sport=4242' % (GW0, PEER, GUE_PORT),
    '--tunnel', 'ggre,type=gre,local=%s,remote=%s,encap=fou,encap-dport=5556' % (GW0, PEER),
    '--tunnel', 'ggrek,type=gre,local=%s,remote=%s,key=42,csum,seq,ttl=64,encap=gue,'
                'encap-dport=%d,encap-csum,encap-sport=4243' % (GW0, PEER, GUE_PORT),
    '--route', '172.16.60.0/24,dev=gip',
    '--route', 'fd00:60::/64,dev=gsit',
    '--route', '172.16.61.0/24,dev=ggrek',
    '--route', 'fd00:61::/64,dev=ggrek',
]
MTU_GIP = 1500 - 20 - 8 - 4


def gue(proto, version=0, c=0, hlen=0, flags=0, fields=b''):
    """The GUE header, from the draft's layout (not from dpdk-fou)."""
    return bytes([version << 6 | c << 5 | hlen, proto]) + flags.to_bytes(2, 'big') + fields


def rc_fields(start, field):
    """The private flags with remote checksum offload, its start and field."""
    return bytes([0x80, 0, 0, 0]) + start.to_bytes(2, 'big') + field.to_bytes(2, 'big')


def pseudo_sum(ip):
    """The folded IPv4 pseudo-header sum of ip's L4 (what a sender leaving
    the checksum to the receiver puts in the field)."""
    ph = ip[12:20] + bytes([0, ip[9]]) + (len(ip) - 20).to_bytes(2, 'big')
    return ~ft.inet_cksum(ph) & 0xffff


def frame(payload, src=PEER, chksum=0, tos=0):
    return Ether(src=MAC_PEER, dst=MAC_GW0) / IP(src=src, dst=GW0, tos=tos, id=99) / \
        UDP(sport=40000, dport=GUE_PORT, chksum=chksum) / Raw(bytes(payload))


def i4(dst='192.168.4.1', seq=1, tos=0, ttl=64):
    return IP(src='192.168.4.2', dst=dst, ttl=ttl, tos=tos) / ICMP(id=5, seq=seq) / Raw(b'g' * 20)


def i6(seq=1):
    return IPv6(src='fd00:41::2', dst='fd00:41::1', hlim=64) / UDP(sport=9, dport=7) / \
        Raw(b'h' * (10 + seq))


def gue_payload(frame_bytes):
    """The tunnel payload after UDP and GUE (version 0 or 1) of a frame."""
    udp = Ether(frame_bytes)[UDP]
    data = bytes(udp.payload)[:udp.len - 8]
    if data[0] >> 6 == 1:
        return data
    return data[4 + 4 * (data[0] & 0x1f):]


def inner_of(frame_bytes):
    """(inner IP packet, 'ipv4'|'ipv6') of a GUE frame, GRE taken off."""
    data = gue_payload(frame_bytes)
    udp = Ether(frame_bytes)[UDP]
    b0 = bytes(udp.payload)[0]
    if b0 >> 6 == 0 and bytes(udp.payload)[1] == 47:
        g = GRE(data)
        data = data[4 + 4 * (g.chksum_present + g.key_present + g.seqnum_present):]
    return data, 'ipv4' if data[0] >> 4 == 4 else 'ipv6'


class Gue(ft.GatewayTestCase):
    def rx_cases(self, t):
        """Port 0: the captures, then scapy's frames."""
        for name in CAPTURES:
            kind = name.split('-')[0]
            for i, f in enumerate(ft.read_frames(ft.data_file('linux-6.1-gue-%s.pcap' % name))):
                inner, fam = inner_of(f)
                what = 'Linux %s #%d' % (name, i + 1)
                if i < 2:
                    self.fwd(t, what, f, NH[kind])
                    continue
                # the traceroute probe (TTL / hop limit 1): time exceeded
                # from our address on the way back to the sender, port 1
                if fam == 'ipv4':
                    l3 = ft.icmp4_error(inner, '192.168.1.1', 'icmp_time_exceeded')
                    kind_icmp = 'icmp_time_exceeded'
                else:
                    l3 = ft.icmp6_error(inner, 'fd00:1::1', 'icmp6_time_exceeded')
                    kind_icmp = 'icmp6_time_exceeded'
                t.cases.append(ft.Expected(what, f, port=1, eth_dst=NH[kind], l3=l3,
                                           decap=(GUE_PORT, fam), icmp=kind_icmp,
                                           ignore=ft.ICMP4_IGNORE if fam == 'ipv4' else ()))
        self.fwd(t, 'v0 ipip, UDP checksum', frame(gue(4) + bytes(i4(seq=2))), ft.MAC_NH_IPIP,
                 chksum=True)
        self.fwd(t, 'v0 ipip, private flags 0', frame(gue(4, hlen=1, flags=1, fields=bytes(4)) +
                                                      bytes(i4(seq=3))), ft.MAC_NH_IPIP)
        self.fwd(t, 'v0 ipip, 8 bytes of fields', frame(gue(4, hlen=2, fields=bytes(range(8))) +
                                                        bytes(i4(seq=4))), ft.MAC_NH_IPIP)
        self.fwd(t, 'v1 ipip', frame(bytes(i4(seq=5))), ft.MAC_NH_IPIP)
        self.fwd(t, 'v1 sit', frame(bytes(i6(seq=6))), ft.MAC_NH_SIT)
        self.fwd(t, 'v0 sit', frame(gue(41) + bytes(i6(seq=7))), ft.MAC_NH_SIT)
        self.fwd(t, 'v0 gre to the encap fou tunnel', frame(
            gue(47) + bytes(GRE(proto=0x0800) / i4(dst='192.168.47.1', seq=8))), ft.MAC_NH_GRE)
        self.fwd(t, 'v0 gre key 42 csum seq, IPv6', frame(gue(47) + bytes(
            GRE(proto=0x86dd, chksum_present=1, key_present=1, key=42, seqnum_present=1,
                sequence_number=7) / i6(seq=9))), ft.MAC_NH_SIT)
        # remote checksum offload: the sender left the TCP checksum to us (the
        # field holds the pseudo-header sum): what leaves has the whole one
        syn = IP(src='192.168.4.2', dst='192.168.4.1') / TCP(sport=4, dport=7000, flags='S') / \
            Raw(b'remcsum')
        left = bytearray(bytes(syn))
        left[36:38] = pseudo_sum(left).to_bytes(2, 'big')
        f = bytes(frame(gue(4, hlen=2, flags=1, fields=rc_fields(20, 36)) + bytes(left)))
        t.cases.append(ft.Expected('v0 ipip, remote checksum offload', f, port=1,
                                   eth_dst=ft.MAC_NH_IPIP, l3=ft.forwarded_l3(bytes(syn)),
                                   decap=(GUE_PORT, 'ipv4')))
        # RFC 6040 after GUE: outer CE on ECT(0) is CE, on Not-ECT a drop
        self.fwd(t, 'v0 ipip, outer CE, inner ECT(0)', frame(gue(4) + bytes(i4(seq=10, tos=2)),
                                                            tos=3), ft.MAC_NH_IPIP, ecn=3)
        t.drop('v0 ipip, outer CE, inner Not-ECT', frame(gue(4) + bytes(i4(seq=11)), tos=3),
               'ecn_drop')
        ok = bytes(i4(seq=12))
        for what, payload, reason in (
                ('2 bytes', b'\x00\x04', 'gue_truncated'),
                ('version 2', gue(4, version=2) + ok, 'gue_version'),
                ('version 3', gue(4, version=3) + ok, 'gue_version'),
                ('version 1, nibble 5', bytes([0x50]) + ok[1:], 'gue_v1_not_ip'),
                ('version 1, nibble 7', bytes([0x75]) + ok[1:], 'gue_v1_not_ip'),
                ('hlen 31 past the packet', gue(4, hlen=31) + ok[:20], 'gue_hlen_bad'),
                ('flags 0x8000', gue(4, flags=0x8000) + ok, 'gue_flags_bad'),
                ('flag P, hlen 0', gue(4, flags=1) + ok, 'gue_flags_bad'),
                ('private flags 0x40000000', gue(4, hlen=1, flags=1, fields=bytes([0x40, 0, 0, 0]))
                 + ok, 'gue_pflags_bad'),
                ('remote checksum offload, field past the packet',
                 gue(4, hlen=2, flags=1, fields=rc_fields(20, 200)) + ok, 'gue_remcsum_bad'),
                ('control message', gue(0, c=1) + ok, 'gue_control'),
                ('protocol 0', gue(0) + ok, 'gue_proto_unhandled'),
                ('protocol 17', gue(17) + bytes(UDP(sport=1, dport=2) / Raw(b'x' * 8)),
                 'gue_proto_unhandled')):
            t.drop('GUE ' + what, frame(payload), reason)
        t.drop('v0 ipip from a source no ipip tunnel has', frame(gue(4) + ok, src='10.99.0.3'),
               'no_tunnel')

    def fwd(self, t, what, f, mac, chksum=False, ecn=None):
        f = bytes(f)
        if chksum:
            p = Ether(f)
            p[UDP].chksum = None
            f = bytes(p)
            self.assertNotEqual(Ether(f)[UDP].chksum, 0)
        inner, fam = inner_of(f)
        t.cases.append(ft.Expected(what, f, port=1, eth_dst=mac,
                                   l3=ft.forwarded_l3(inner, ecn), decap=(GUE_PORT, fam)))

    def tx_cases(self, t):
        """Port 1: inner packets into the GUE tunnels, each with the outer
        header built here from the tunnel's configuration."""
        def outer(inner, proto, sport, csum, gre_hdr=b'', ttl=None):
            l3 = ft.forwarded_l3(bytes(inner))
            payload = gue(proto) + gre_hdr + l3
            udp = bytearray(sport.to_bytes(2, 'big') + GUE_PORT.to_bytes(2, 'big') +
                            (8 + len(payload)).to_bytes(2, 'big') + bytes(2))
            if csum:
                ph = socket.inet_aton(GW0) + socket.inet_aton(PEER) + bytes([0, 17]) + \
                    (8 + len(payload)).to_bytes(2, 'big')
                udp[6:8] = (ft.inet_cksum(ph + bytes(udp) + payload) or 0xffff).to_bytes(2, 'big')
            inner_ttl = l3[8] if l3[0] >> 4 == 4 else l3[7]
            ecn = (l3[1] if l3[0] >> 4 == 4 else l3[1] >> 4) & 3
            body = bytes(udp) + payload
            # tos 0; the inner ECN, CE sent as ECT(0) (RFC 6040 normal mode)
            return ft.ip4_header(GW0, PEER, 17, len(body), ttl=ttl or inner_ttl, df=True,
                                 tos=2 if ecn == 3 else ecn) + body

        def gre_hdr(l3, v6, seq):
            g = bytearray(b'\xb0\x00' + (b'\x86\xdd' if v6 else b'\x08\x00') + bytes(4) +
                          (42).to_bytes(4, 'big') + seq.to_bytes(4, 'big'))
            g[4:6] = ft.inet_cksum(bytes(g) + l3).to_bytes(2, 'big')
            return bytes(g)

        def send(what, inner, l3, sport_auto):
            f = Ether(src=MAC_H1, dst=ft.MAC_P1) / inner
            # the IPv4 ID, and the source port of encap-sport auto
            ign = ((4, 6), (20, 22)) if sport_auto else ((4, 6),)
            t.cases.append(ft.Expected(what, f, port=0, eth_dst=MAC_PEER, l3=l3, rx=1,
                                       ignore=ign))

        a = IP(src=H4, dst='172.16.60.7', ttl=9, tos=0xb8) / TCP(sport=1000, dport=80, flags='S')
        send('ipip gue', a, outer(a, 4, 0, False), True)
        b = IP(src=H4, dst='172.16.60.8', tos=3) / ICMP(id=1, seq=1) / Raw(b'c' * 30)
        send('ipip gue, inner CE: outer ECT(0)', b, outer(b, 4, 0, False), True)
        c = IPv6(src=H6, dst='fd00:60::7', hlim=30) / UDP(sport=5, dport=6) / Raw(b's' * 41)
        send('sit gue, encap-csum, encap-sport 4242', c, outer(c, 41, 4242, True), False)
        seq = 0
        for inner in (IP(src=H4, dst='172.16.61.7', flags='DF') / UDP(sport=7, dport=8) /
                      Raw(b'k' * 17),
                      IPv6(src=H6, dst='fd00:61::7') / UDP(sport=3, dport=4) / Raw(b'6' * 11)):
            l3 = ft.forwarded_l3(bytes(inner))
            send('gre gue key csum seq #%d' % (seq + 1), inner,
                 outer(inner, 47, 4243, True, gre_hdr(l3, l3[0] >> 4 == 6, seq), ttl=64), False)
            seq += 1
        # the tunnel MTU is 1500 - 32: one byte more with DF is sent back
        fits = IP(src=H4, dst='172.16.60.9', flags='DF') / UDP(sport=1, dport=2) / \
            Raw(b'f' * (MTU_GIP - 28))
        send('ipip gue, the tunnel MTU %d' % MTU_GIP, fits, outer(fits, 4, 0, False), True)
        big = IP(src=H4, dst='172.16.60.9', flags='DF') / UDP(sport=1, dport=2) / \
            Raw(b'f' * (MTU_GIP - 27))
        t.cases.append(ft.Expected('ipip gue, one byte over', Ether(src=MAC_H1, dst=ft.MAC_P1) /
                                   big, port=1, eth_dst=MAC_H1, rx=1,
                                   l3=ft.icmp4_error(bytes(big), '192.168.1.1',
                                                     'icmp_frag_needed', mtu=MTU_GIP),
                                   icmp='icmp_frag_needed', ignore=ft.ICMP4_IGNORE))

    def test_gue(self):
        t = ft.Traffic()
        self.rx_cases(t)
        self.tx_cases(t)
        gw = self.start(t.write_ports(self.tmp), OPTS)

        def counted():
            r = gw.telemetry('/fou/stats') if gw.running() else ['exited']
            st = r[0].get('/fou/stats') if r and isinstance(r[0], dict) else r
            return st if st == ['exited'] or (st and st['rx'] == len(t.cases)) else None
        self.assertNotIn(ft.wait_for(counted, 60, interval=0.1), (None, ['exited']))
        ports, tunnels, config = gw.telemetry('/fou/ports', '/fou/tunnels', '/fou/config')
        self.assertEqual(ports['/fou/ports'][str(GUE_PORT)]['proto'], 'gue')
        self.assertEqual(ports['/fou/ports'][str(GUE_PORT)]['ipproto'], 0)
        tel = {e['name']: e for k, e in tunnels['/fou/tunnels'].items() if k.isdigit()}
        self.assertEqual([tel[n]['encap'] for n in ('gip', 'gsit', 'ggre', 'ggrek')],
                         ['gue', 'gue', 'fou', 'gue'])
        self.assertEqual(tel['gip']['mtu'], MTU_GIP)
        self.assertEqual(tel['ggrek']['mtu'], MTU_GIP - 16)
        stmts = [v for k, v in config['/fou/config'].items() if k.isdigit()]
        self.assertIn(['port', '%d:gue' % GUE_PORT], stmts)
        self.assertIn(['tunnel', 'gsit,type=sit,local=%s,remote=%s,encap=gue,encap-sport=4242,'
                       'encap-dport=%d,encap-csum' % (GW0, PEER, GUE_PORT)], stmts)
        gw.signal(signal.SIGTERM)
        run = gw.wait(timeout=30)
        self.assertCounters(run, rx={p: t.received(p) for p in (0, 1)},
                            tx={p: len(t.out(p)) for p in (0, 1)}, drops=t.drops(),
                            decap=t.decap(), fou_ports={GUE_PORT: 'gue'}, icmp=t.icmp_sent())
        self.assertOutput(run.outputs[1], t.out(1), ft.MAC_P1)
        self.assertOutput(run.outputs[0], t.out(0), MAC_GW0)
        self.assertIn('fou port %d: gue' % GUE_PORT, run.stdout + run.stderr)
        # tshark's view of what we sent: GUE version 0, no control bit, no
        # fields, the protocol of the tunnel; every checksum good
        lua = '%d:gue' % GUE_PORT
        rows = ft.tshark_fields(run.outputs[0], ['gue.version', 'gue.control', 'gue.hlen',
                                                 'gue.proto', 'gue.flags',
                                                 'udp.checksum.status', 'gre.checksum.status'],
                                fou_ports=lua)
        self.assertEqual([(r['gue.version'], r['gue.control'], r['gue.hlen'], r['gue.flags'])
                          for r in rows], [(['0'], ['0'], ['0'], ['0x0000'])] * len(rows))
        self.assertEqual([r['gue.proto'][0] for r in rows], ['4', '4', '41', '47', '47', '4'])
        self.assertEqual([r['gre.checksum.status'] for r in rows],
                         [[], [], [], ['1'], ['1'], []])
        self.assertEqual(ft.tshark_problems(run.outputs[0], fou_ports=lua), [])
        # and the Linux captures decode as GUE with good checksums all through
        for name in CAPTURES:
            self.assertEqual(ft.tshark_problems(ft.data_file('linux-6.1-gue-%s.pcap' % name),
                                                fou_ports=lua), [], name)


if __name__ == '__main__':
    ft.main()
