#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Regenerate: /usr/bin/python3 tests/unit/gen_golden.py > tests/unit/golden.h
# Generates tests/unit/golden.h from scapy (an encoder independent of the C code).
from scapy.all import (Ether, Dot1Q, IP, IPv6, UDP, TCP, GRE, ICMP, Raw, IPOption_Router_Alert, raw,
                       IPOption_RR, ICMPv6PacketTooBig, ICMPv6TimeExceeded, ICMPv6EchoRequest,
                       ICMPv6EchoReply, ICMPv6DestUnreach, ICMPv6ParamProblem, ICMPv6ND_NS,
                       ICMPv6ND_NA, ICMPv6NDOptSrcLLAddr, ICMPv6NDOptDstLLAddr, Padding,
                       IPv6ExtHdrDestOpt, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, HBHOptUnknown,
                       PadN, RouterAlert)
from scapy.utils import checksum, rdpcap
import os
from scapy.packet import Packet
from scapy.fields import BitField, ByteField, ShortField, StrLenField

class GUE(Packet):
    """GUE version 0 (draft-ietf-intarea-gue; Linux' struct guehdr): scapy
    has no layer for it; the fields are the draft's, nothing of dpdk-fou's."""
    name = "GUE"
    fields_desc = [BitField("version", 0, 2), BitField("C", 0, 1), BitField("hlen", 0, 5),
                   ByteField("proto", 0), ShortField("flags", 0),
                   StrLenField("opts", b"", length_from=lambda p: p.hlen * 4)]

    def guess_payload_class(self, payload):
        return {4: IP, 41: IPv6, 47: GRE}.get(self.proto, Raw)

RX_MAC, PEER_MAC = "02:00:00:00:00:01", "02:00:00:00:00:02"
EG_MAC, NB4_MAC, NB6_MAC = "02:00:00:00:01:01", "02:00:00:00:01:02", "02:00:00:00:01:03"
PAYLOAD = b"fou-test"

def inner4(ttl=64):
    return IP(src="10.30.0.5", dst="10.20.0.7", ttl=ttl, id=0x1234, flags="DF", tos=0) / UDP(sport=40000, dport=7) / Raw(PAYLOAD)

def inner6(hlim=64):
    return IPv6(src="fd00:30::5", dst="fd00:20::7", hlim=hlim, fl=0x12345, tc=0) / UDP(sport=40000, dport=7) / Raw(PAYLOAD)

def outer(dport, sport=51234, csum=False, vlan=None, opts=False, ipid=0x4d2):
    e = Ether(dst=RX_MAC, src=PEER_MAC)
    if vlan is not None:
        e = e / Dot1Q(vlan=vlan)
    ip = IP(src="10.0.0.2", dst="10.0.0.1", ttl=64, id=ipid, flags="DF")
    if opts:
        ip.options = [IPOption_Router_Alert()]
    u = UDP(sport=sport, dport=dport)
    if not csum:
        u.chksum = 0
    return e / ip / u

def hexl(b, indent="\t"):
    out = []
    for i in range(0, len(b), 8):
        out.append(indent + " ".join("0x%02x," % x for x in b[i:i+8]))
    return "\n".join(out)

def mac(s): return s

def describe(pkt, tunnel=True):
    """Split a built packet into (comment, bytes) per header."""
    parts = []
    b = raw(pkt)
    off = 0
    layer = pkt
    nip = 0
    while layer.name != "NoPayload":
        hl = len(raw(layer)) - len(raw(layer.payload))
        if isinstance(layer, Raw):
            hl = len(layer.load)
        chunk = b[off:off+hl]
        rest = b[off:]
        if isinstance(layer, Ether):
            c = "Ethernet: dst %s, src %s, type 0x%04x" % (layer.dst, layer.src, Ether(rest).type)
        elif isinstance(layer, Dot1Q):
            bl = Dot1Q(rest)
            c = "802.1Q: pcp %d, vid %d, type 0x%04x" % (bl.prio, bl.vlan, bl.type)
        elif isinstance(layer, IP):
            bl = IP(rest)
            who = ("inner IPv4" if nip else "outer IPv4") if tunnel else "IPv4"
            nip += 1
            c = "%s: ihl %d, tos 0x%02x, len %d, id 0x%04x, %s, ttl %d, proto %d, csum 0x%04x, %s -> %s" % (
                who, bl.ihl, bl.tos, bl.len, bl.id, "DF" if bl.flags.DF else "no DF", bl.ttl, bl.proto, bl.chksum, bl.src, bl.dst)
            if bl.ihl > 5:
                c += ", option: " + {148: "router alert", 7: "record route"}[rest[20]]
        elif isinstance(layer, IPv6):
            bl = IPv6(rest)
            nip += 1
            c = ("inner IPv6" if tunnel else "IPv6") + ": tc 0x%02x, flow 0x%05x, plen %d, nh %d, hlim %d, %s -> %s" % (bl.tc, bl.fl, bl.plen, bl.nh, bl.hlim, bl.src, bl.dst)
        elif isinstance(layer, UDP):
            bl = UDP(rest)
            who = ("UDP (FOU)" if nip == 1 and not isinstance(layer.underlayer, UDP) else "FOU payload: UDP" if isinstance(layer.underlayer, UDP) else "inner UDP") if tunnel else "UDP"
            c = "%s: %d -> %d, len %d, csum 0x%04x" % (who, bl.sport, bl.dport, bl.len, bl.chksum)
        elif isinstance(layer, GUE):
            hl = 4 + layer.hlen * 4
            chunk = b[off:off+hl]
            c = "GUE: version %d, C %d, hlen %d, proto %d, flags 0x%04x" % (
                layer.version, layer.C, layer.hlen, layer.proto, layer.flags)
            if layer.hlen: c += ", fields " + layer.opts.hex()
        elif isinstance(layer, (IPv6ExtHdrDestOpt, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting)):
            name = {IPv6ExtHdrDestOpt: "Destination Options", IPv6ExtHdrHopByHop: "Hop-by-Hop Options",
                    IPv6ExtHdrRouting: "Routing"}[type(layer)]
            c = "IPv6 %s: nh %d, len %d" % (name, chunk[0], chunk[1])
            if isinstance(layer, IPv6ExtHdrRouting):
                c += ", type %d, segments left %d" % (chunk[2], chunk[3])
        elif isinstance(layer, GRE):
            bl = GRE(rest)
            fl = "".join(f for f, on in (("C", bl.chksum_present), ("K", bl.key_present), ("S", bl.seqnum_present)) if on) or "none"
            c = "GRE: flags %s, ver 0, proto 0x%04x" % (fl, bl.proto)
            if bl.chksum_present: c += ", csum 0x%04x" % bl.chksum
            if bl.key_present: c += ", key 0x%08x" % bl.key
            if bl.seqnum_present: c += ", seq 0x%08x" % bl.sequence_number
        elif isinstance(layer, TCP):
            hl = layer.dataofs * 4
            chunk = b[off:off+hl]
            c = "inner TCP: %d -> %d, flags %s, seq 0x%08x, csum 0x%04x%s" % (
                layer.sport, layer.dport, layer.flags, layer.seq, layer.chksum,
                ", options" if hl > 20 else "")
        elif isinstance(layer, (ICMPv6ND_NS, ICMPv6ND_NA)):
            c = "ICMPv6 %s: type %d, code %d, csum 0x%04x, flags 0x%08x, target %s" % (
                "NS" if chunk[0] == 135 else "NA", chunk[0], chunk[1],
                int.from_bytes(chunk[2:4], "big"), int.from_bytes(chunk[4:8], "big"), layer.tgt)
        elif isinstance(layer, (ICMPv6NDOptSrcLLAddr, ICMPv6NDOptDstLLAddr)):
            c = "option: %s link-layer address %s, len %d" % (
                "source" if chunk[0] == 1 else "target", layer.lladdr, chunk[1])
        elif isinstance(layer, ICMP) or layer.name.startswith("ICMPv6"):
            # the header, then the quote as one block
            chunk = b[off:off+8]
            c = "%s: type %d, code %d, csum 0x%04x, rest 0x%08x" % (
                "ICMP" if isinstance(layer, ICMP) else "ICMPv6", chunk[0], chunk[1],
                int.from_bytes(chunk[2:4], "big"), int.from_bytes(chunk[4:8], "big"))
            parts.append((c, chunk))
            off += 8
            echo = chunk[0] in ((0, 8) if isinstance(layer, ICMP) else (128, 129))
            if off < len(b):
                parts.append(("%s (%d bytes)" % ("echo data" if echo else "quoted: the packet as received",
                                                 len(b) - off), b[off:]))
                off = len(b)
            break
        elif isinstance(layer, Padding):
            c = "Ethernet padding (%d bytes)" % len(layer.load)
        elif isinstance(layer, Raw):
            try:
                t = layer.load.decode("ascii")
                assert t.isprintable() and len(t) <= 16
                c = "payload \"%s\"" % t
            except (UnicodeDecodeError, AssertionError):
                c = "payload (%d bytes)" % len(layer.load)
        else:
            raise Exception(layer)
        parts.append((c, chunk))
        off += hl
        layer = layer.payload
    assert off == len(b), (off, len(b))
    return parts

def emit(name, pkt, doc, tunnel=True):
    b = raw(pkt)
    print("/* %s (%d bytes) */" % (doc, len(b)))
    print("static const uint8_t %s[] = {" % name)
    for c, chunk in describe(pkt, tunnel):
        print("\t/* %s */" % c)
        print(hexl(chunk))
    print("};\n")

print("""/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Golden frames for the receive path, one C array per case with a comment
 * per header. Built with scapy (an encoder independent of dpdk-fou and of
 * the tests' own packet builder); every checksum in them is valid.
 *
 * Topology (see unit.h): a FOU peer 10.0.0.2 (02:00:00:00:00:02) sends to
 * the gateway's port 0 (10.0.0.1, 02:00:00:00:00:01). Inner packets go
 * 10.30.0.5 -> 10.20.0.7 and fd00:30::5 -> fd00:20::7, routed out of
 * port 1 (02:00:00:00:01:01) via 192.168.1.2 (02:00:00:00:01:02) and
 * fd00:1::2 (02:00:00:00:01:03).
 */
#ifndef UNIT_GOLDEN_H
#define UNIT_GOLDEN_H

#include <stdint.h>

/* Receive path: define GOLDEN_RX before including. */
#ifdef GOLDEN_RX
""")

emit("g_ipip", outer(5555) / inner4(), "ipip over FOU port 5555, UDP checksum 0")
emit("g_ipip_csum", outer(5555, csum=True) / inner4(), "ipip over FOU port 5555, valid non-zero UDP checksum")
emit("g_sit", outer(5557, sport=51235, csum=True) / inner6(), "sit (inner IPv6) over FOU port 5557, valid UDP checksum")
combos = [("", 0,0,0), ("c",1,0,0), ("k",0,1,0), ("s",0,0,1), ("ck",1,1,0), ("cs",1,0,1), ("ks",0,1,1), ("cks",1,1,1)]
for n, c, k, s in combos:
    g = GRE(proto=0x0800, chksum_present=c, key_present=k, seqnum_present=s)
    if k: g.key = 0x01020304
    if s: g.sequence_number = 0x0a0b0c0d
    emit("g_gre4" + ("_" + n if n else "_none"), outer(5556, sport=51236) / g / inner4(),
         "GRE flags %s carrying IPv4 over FOU port 5556" % (n.upper() or "none"))
g = GRE(proto=0x86dd, chksum_present=1, key_present=1, key=0x01020304)
emit("g_gre6", outer(5556, sport=51237, csum=True) / g / inner6(), "GRE flags CK carrying IPv6 over FOU port 5556, valid UDP checksum")
emit("g_other", outer(6000, sport=51238) / UDP(sport=1, dport=2) / Raw(PAYLOAD),
     "FOU port 6000 mapped to IP protocol 17 (no handler): payload is a UDP datagram")
emit("g_vlan", outer(5555, vlan=100) / inner4(), "802.1Q (VID 100) tagged ipip over FOU port 5555")
emit("g_ipopt", outer(5555, opts=True) / inner4(), "ipip over FOU port 5555, outer IPv4 with a router alert option (IHL 6)")

o4 = Ether(dst=NB4_MAC, src=EG_MAC) / inner4(ttl=63)
emit("g_out4", o4, "expected output of every IPv4 case: Ethernet for 192.168.1.2 on port 1, TTL 63", tunnel=False)
o6 = Ether(dst=NB6_MAC, src=EG_MAC) / inner6(hlim=63)
emit("g_out6", o6, "expected output of every IPv6 case: Ethernet for fd00:1::2 on port 1, hop limit 63", tunnel=False)

# GUE receive (port 6080 gue, added by the test): version 0 with each
# protocol, version 1 (direct IPv4 / IPv6), and each malformed kind.
GUEP = 6080
emit("g_gue_ipip", outer(GUEP) / GUE(proto=4) / inner4(), "GUE port 6080, version 0, protocol 4 (IPIP)")
emit("g_gue_sit", outer(GUEP, sport=51240, csum=True) / GUE(proto=41) / inner6(), "GUE port 6080, version 0, protocol 41 (IPv6), valid UDP checksum")
emit("g_gue_gre4_cks", outer(GUEP, sport=51241, csum=True) / GUE(proto=47) /
     GRE(proto=0x0800, chksum_present=1, key_present=1, key=0x01020304, seqnum_present=1, sequence_number=9) / inner4(),
     "GUE port 6080, version 0, protocol 47: GRE flags CKS carrying IPv4, valid UDP checksum")
emit("g_gue_gre6", outer(GUEP, sport=51242) / GUE(proto=47) / GRE(proto=0x86dd) / inner6(),
     "GUE port 6080, version 0, protocol 47: GRE carrying IPv6")
emit("g_gue_v1_ipip", outer(GUEP, sport=51243, csum=True) / inner4(), "GUE port 6080, version 1: IPv4 directly after UDP, valid UDP checksum")
emit("g_gue_v1_sit", outer(GUEP, sport=51244) / inner6(), "GUE port 6080, version 1: IPv6 directly after UDP")
emit("g_gue_priv0", outer(GUEP, sport=51245) / GUE(proto=4, hlen=1, flags=1, opts=bytes(4)) / inner4(),
     "GUE port 6080, version 0, flag P, private flags 0 (hlen 1)")
emit("g_gue_opts", outer(GUEP, sport=51246) / GUE(proto=4, hlen=2, opts=bytes(range(8))) / inner4(),
     "GUE port 6080, version 0, 8 bytes of optional fields no flag announces (hlen 2)")
emit("g_gue_ver2", outer(GUEP) / GUE(version=2, proto=4) / inner4(), "GUE version 2 (undefined)")
emit("g_gue_ver3", outer(GUEP) / GUE(version=3, proto=4) / inner4(), "GUE version 3 (undefined)")
emit("g_gue_v1_bad", outer(GUEP) / Raw(bytes([0x50, 0, 0, 24])) / Raw(PAYLOAD * 2),
     "GUE version 1 whose first nibble is 5: neither IPv4 nor IPv6")
emit("g_gue_control", outer(GUEP) / GUE(C=1, proto=0) / Raw(PAYLOAD), "GUE control message (C bit), type 0")
emit("g_gue_hlen", outer(GUEP) / Raw(bytes([0x1f, 4, 0, 0])) / Raw(PAYLOAD), "GUE hlen 31 (128 bytes of fields) in a 12-byte payload")
emit("g_gue_flags", outer(GUEP) / GUE(proto=4, flags=0x8000) / inner4(), "GUE flags 0x8000: not one Linux knows")
emit("g_gue_priv_short", outer(GUEP) / GUE(proto=4, flags=1) / inner4(), "GUE flag P without room for the private flags (hlen 0)")
emit("g_gue_pflags", outer(GUEP) / GUE(proto=4, hlen=1, flags=1, opts=bytes([0, 0, 0, 1])) / inner4(),
     "GUE private flags 0x00000001: not one Linux knows")
def remcsum_inner():
    """inner4() as a Linux sender with remote checksum offload leaves it:
    the UDP checksum field holds the folded pseudo-header sum."""
    b = bytearray(raw(inner4()))
    ph = b[12:20] + bytes([0, 17]) + (len(b) - 20).to_bytes(2, "big")
    s = sum(int.from_bytes(ph[i:i + 2], "big") for i in range(0, len(ph), 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    b[26:28] = s.to_bytes(2, "big")
    return Raw(bytes(b))

def rc_fields(start, field):
    return bytes([0x80, 0, 0, 0]) + start.to_bytes(2, "big") + field.to_bytes(2, "big")

emit("g_gue_remcsum", outer(GUEP) / GUE(proto=4, hlen=2, flags=1, opts=rc_fields(20, 26)) / remcsum_inner(),
     "GUE remote checksum offload, start 20 (inner UDP), field 26: the inner UDP checksum holds the pseudo-header sum")
emit("g_gue_remcsum_past", outer(GUEP) / GUE(proto=4, hlen=2, flags=1, opts=rc_fields(20, 200)) / remcsum_inner(),
     "GUE remote checksum offload, field 200: past the packet")
emit("g_gue_remcsum_iphdr", outer(GUEP) / GUE(proto=4, hlen=2, flags=1, opts=rc_fields(0, 10)) / remcsum_inner(),
     "GUE remote checksum offload, start 0, field 10: inside the inner IPv4 header")
emit("g_gue_proto0", outer(GUEP) / GUE(proto=0) / inner4(), "GUE version 0, protocol 0")
emit("g_gue_proto17", outer(GUEP) / GUE(proto=17) / UDP(sport=1, dport=2) / Raw(PAYLOAD), "GUE version 0, protocol 17 (no handler)")
emit("g_gue_trunc", outer(GUEP) / Raw(b"\x00\x04"), "GUE port 6080: 2 bytes of UDP payload")
print("#endif /* GOLDEN_RX */\n")
# --- transmit: plain packets routed into tunnels, and ICMP errors ---------------
#
# Topology (unit_gw_std() plus tx_base in test_encap.c): the sender 10.0.0.2 /
# fd00::2 (02:00:00:00:00:02) on port 0 sends plain IP to 10.50.0.0/16 and
# fd00:50::/32, routed into tunnel t1 (local 192.168.1.1, remote 10.20.0.9 via
# 192.168.1.2, 02:00:00:00:01:02, on port 1). The outer IP ID is 0: every case
# runs with fresh per-lcore counters. encap-sport auto is written as 0 here and
# checked by the test (flag GOLDEN_SPORT_AUTO).

LOCAL, REMOTE = "192.168.1.1", "10.20.0.9"
SENDER4, SENDER6, GW4, GW6 = "10.0.0.2", "fd00::2", "10.0.0.1", "fd00::1"
DPORT = {"ipip": 5555, "gre": 5556, "sit": 5557}
GUE_DPORT = 6080
PROTO = {"ipip": 4, "sit": 41, "gre": 47}
ROUTE4, ROUTE6 = "route 10.50.0.0/16,dev=t1", "route fd00:50::/32,dev=t1"

def tx_in4(tos=0, df=True, ttl=64, size=None, dst="10.50.0.7", proto_layer=None, frag=0, ident=0x1234, src=SENDER4):
    l4 = proto_layer if proto_layer is not None else UDP(sport=40000, dport=7) / Raw(PAYLOAD)
    ip = IP(src=src, dst=dst, tos=tos, ttl=ttl, id=ident, flags="DF" if df else 0, frag=frag) / l4
    if size is not None:
        pad = size - len(raw(ip))
        assert pad >= 0
        ip = IP(src=src, dst=dst, tos=tos, ttl=ttl, id=ident, flags="DF" if df else 0, frag=frag) / l4 / Raw(bytes((7 * i) & 0xff for i in range(pad)))
    return IP(raw(ip))

def tx_in6(tc=0, hlim=64, size=None, dst="fd00:50::7", l4=None, src=SENDER6):
    l4 = l4 if l4 is not None else UDP(sport=40000, dport=7) / Raw(PAYLOAD)
    ip = IPv6(src=src, dst=dst, tc=tc, hlim=hlim, fl=0x12345) / l4
    if size is not None:
        ip = ip / Raw(bytes((7 * i) & 0xff for i in range(size - len(raw(ip)))))
    return IPv6(raw(ip))

def routed(ip):
    """The packet after ip_forward: TTL / hop limit minus one."""
    if isinstance(ip, IP):
        f = IP(raw(ip))
        f.ttl -= 1
        del f.chksum
        return IP(raw(f))
    f = IPv6(raw(ip))
    f.hlim -= 1
    return IPv6(raw(f))

class Tun:
    def __init__(self, type, encap="fou", ttl=None, tos=None, pmtudisc=None, sport=None,
                 csum=None, key=None, gcsum=False, seq=False, dport=None):
        self.type, self.encap, self.ttl, self.tos = type, encap, ttl, tos
        self.pmtudisc, self.sport, self.csum = pmtudisc, sport, csum
        self.key, self.gcsum, self.seq = key, gcsum, seq
        self.dport = dport if dport is not None else (DPORT[type] if encap == "fou" else
                                                      GUE_DPORT if encap == "gue" else None)

    def stmt(self):
        a = ["t1", "type=" + self.type, "local=" + LOCAL, "remote=" + REMOTE]
        if self.ttl is not None: a.append("ttl=%s" % self.ttl)
        if self.tos is not None: a.append("tos=%s" % (self.tos if isinstance(self.tos, str) else "0x%02x" % self.tos))
        if self.pmtudisc is not None: a.append("pmtudisc" if self.pmtudisc else "nopmtudisc")
        if self.encap != "fou": a.append("encap=" + self.encap)
        if self.sport is not None: a.append("encap-sport=%d" % self.sport)
        if self.dport is not None: a.append("encap-dport=%d" % self.dport)
        if self.csum is not None: a.append("encap-csum" if self.csum else "noencap-csum")
        if self.key is not None: a.append("key=%s" % self.key)
        if self.gcsum: a.append("csum")
        if self.seq: a.append("seq")
        routes = {"ipip": [ROUTE4], "sit": [ROUTE6], "gre": [ROUTE4, ROUTE6]}[self.type]
        return "\n".join(["tunnel " + ",".join(a)] + routes)

    def overhead(self):
        n = 20 + {"fou": 8, "gue": 12, "none": 0}[self.encap]
        if self.type == "gre":
            n += 4 + 4 * (bool(self.gcsum) + (self.key is not None) + bool(self.seq))
        return n

    def keyval(self):
        if self.key is None: return None
        if "." in str(self.key): return int.from_bytes(bytes(int(x) for x in self.key.split(".")), "big")
        return int(str(self.key), 0)

    def encap_frame(self, inner, seq=0, ident=0):
        """The frame t1 sends for the routed packet inner (ip_tunnel_xmit)."""
        v6 = isinstance(inner, IPv6)
        ds = inner.tc if v6 else inner.tos
        ittl = inner.hlim if v6 else inner.ttl
        idf = (not v6) and bool(inner.flags.DF)
        ecn = ds & 3
        if ecn == 3: ecn = 2                       # INET_ECN_encapsulate: CE -> ECT(0)
        dscp = (ds if self.tos == "inherit" else (self.tos or 0)) & 0xfc
        ttl = self.ttl if isinstance(self.ttl, int) and self.ttl else ittl
        df = (self.pmtudisc is not False) or idf
        fou = self.encap in ("fou", "gue")
        o = IP(src=LOCAL, dst=REMOTE, tos=dscp | ecn, ttl=ttl, id=ident, flags="DF" if df else 0,
               proto=17 if fou else PROTO[self.type])
        if fou:
            u = UDP(sport=self.sport or 0, dport=self.dport)
            if not self.csum:
                u.chksum = 0
            o = o / u
            if self.encap == "gue":
                o = o / GUE(proto=PROTO[self.type])
        if self.type == "gre":
            g = GRE(proto=0x86dd if v6 else 0x0800, chksum_present=int(self.gcsum),
                    key_present=int(self.key is not None), seqnum_present=int(self.seq))
            if self.key is not None: g.key = self.keyval()
            if self.seq: g.sequence_number = seq
            o = o / g
        return Ether(dst=NB4_MAC, src=EG_MAC) / o / inner

def rx(ip):
    return Ether(dst=RX_MAC, src=PEER_MAC) / ip

def icmp4_error(orig, type, code, mtu=0, src=GW4, ident=0, quote_max=548):
    q = raw(orig)[:quote_max]
    tos = (orig.tos & 0x1e) | 0xc0
    ic = ICMP(type=type, code=code)
    if type == 3 and code == 4:
        ic.nexthopmtu = mtu
    return IP(src=src, dst=orig.src, tos=tos, ttl=64, id=ident, flags=0) / ic / Raw(q)

def icmp6_error(orig, kind, mtu=0, src=GW6, code=0, quote_max=1232):
    q = raw(orig)[:quote_max]
    if kind == "ptb":
        ic = ICMPv6PacketTooBig(mtu=mtu)
    elif kind == "unreach":
        ic = ICMPv6DestUnreach(code=code)
    elif kind == "param":
        ic = ICMPv6ParamProblem(code=code, ptr=mtu)
    else:
        ic = ICMPv6TimeExceeded(code=0)
    return IPv6(src=src, dst=orig.src, tc=0, fl=0, hlim=64) / ic / Raw(q)

def echo_reply4(req, ident=0):
    """icmp_reply: from the address pinged, TTL 64, the request's whole TOS
    byte, no DF, no options echoed; type 0, code, id, seq and data as they
    came (scapy computes the checksum)."""
    req = IP(raw(req))
    ic = req[ICMP]
    return IP(src=req.dst, dst=req.src, tos=req.tos, ttl=64, id=ident, flags=0) / \
        ICMP(type=0, code=ic.code, id=ic.id, seq=ic.seq) / Raw(bytes(ic.payload))

def echo_reply6(req):
    """icmpv6_echo_reply: from the address pinged, hop limit 64, the
    request's traffic class, flow label 0; type 129, the rest as it came."""
    req = IPv6(raw(req))
    ic = req[ICMPv6EchoRequest]
    return IPv6(src=req.dst, dst=req.src, tc=req.tc, fl=0, hlim=64) / \
        ICMPv6EchoReply(code=ic.code, id=ic.id, seq=ic.seq, data=ic.data)

def to_sender(ip):
    return Ether(dst=PEER_MAC, src=RX_MAC) / ip

TX = []   # (name, stmts, in, out, out_port, flags, doc)

def tx(name, doc, stmts, inp, out, out_port=1, flags=0):
    if out_port == 0:
        flags |= 2      # the output is an ICMP error
    TX.append((name, stmts, inp, out, out_port, flags, doc))

def tun_case(name, doc, t, inner, pre=""):
    out = t.encap_frame(routed(inner))
    flags = 1 if (t.encap in ("fou", "gue") and not t.sport) else 0
    tx(name, doc, pre + t.stmt(), rx(inner), out, 1, flags)

def zero_csum_case():
    """encap-csum where the computed UDP checksum is 0: sent as 0xffff."""
    t = Tun("ipip", sport=4242, csum=True)
    def build(w):
        inner = tx_in4(proto_layer=UDP(sport=40000, dport=7, chksum=0) / Raw(w.to_bytes(2, "big") + b"fou-te"))
        return inner, t.encap_frame(routed(inner))
    inner, out = build(0)
    b = raw(out)[14:]
    u = bytearray(b[20:])
    u[6:8] = b"\0\0"
    ph = b[12:20] + bytes([0, 17]) + len(u).to_bytes(2, "big")
    s = 0xffff - checksum(ph + bytes(u))   # the folded sum, with w = 0
    w = (~s) & 0xffff
    inner, out = build(w)
    assert raw(out)[14 + 26:14 + 28] == b"\xff\xff", raw(out)[14 + 26:14 + 28]
    tx("tx_ipip_csum_zero", "ipip/fou, encap-csum, inner payload chosen so that the UDP checksum computes to 0: sent as 0xffff",
       t.stmt(), rx(inner), out)

def fou_in(inner, dport, src=SENDER4, dst=GW4):
    """inner over FOU to the gateway (UDP checksum 0), as a Linux peer sends it."""
    return Ether(dst=RX_MAC, src=PEER_MAC) / IP(src=src, dst=dst, ttl=64, id=0x4d2, flags="DF") / \
        UDP(sport=51234, dport=dport, chksum=0) / inner

# Linux' ip6tnl / ip6gre default: a Destination Options header with the
# Tunnel Encapsulation Limit option (4), padded to 8 bytes, before UDP
TEL4 = IPv6ExtHdrDestOpt(options=[HBHOptUnknown(otype=4, optdata=b"\x04"), PadN(optdata=b"\x00")])

def fou6_in(inner, dport, ext=None, tc=0, csum=True):
    """inner over FOU over IPv6 to the gateway's fd00::1."""
    ip6 = IPv6(src=SENDER6, dst=GW6, hlim=64, fl=0x54321, tc=tc)
    if ext is not None:
        ip6 = ip6 / ext
    u = UDP(sport=51234, dport=dport)
    if not csum:
        u.chksum = 0
    return Ether(dst=RX_MAC, src=PEER_MAC) / ip6 / u / inner

def fou6_cases():
    """FOU over an IPv6 underlay, received (port ...,family=6): each header
    layout a Linux peer sends, decapsulated and forwarded out of port 1;
    an option that asks for a parameter problem gets one."""
    ports = "port 5555:ipip,family=6\nport 5556:gre,family=6\nport 5557:sit,family=6\n"
    i4, i6 = inner4(), inner6()
    out4 = Ether(dst=NB4_MAC, src=EG_MAC) / routed(i4)
    out6 = Ether(dst=NB6_MAC, src=EG_MAC) / routed(i6)
    tx("fou6_ipip", "ipip over FOU over IPv6 to fd00::1 port 5555, valid UDP checksum", ports,
       fou6_in(i4, 5555), out4, 1, 4)
    tx("fou6_ipip_nocsum", "ipip over FOU over IPv6, UDP checksum 0 (noencap-udp6-csum): taken, as Linux' FOU socket does",
       ports, fou6_in(i4, 5555, csum=False), out4, 1, 4)
    tx("fou6_ipip_encaplimit", "ipip over FOU over IPv6 with ip6tnl's default Destination Options (encap limit 4) before UDP",
       ports, fou6_in(i4, 5555, ext=TEL4), out4, 1, 4)
    tx("fou6_sit_encaplimit", "ip6ip6 over FOU over IPv6 port 5557 with the encap limit Destination Options",
       ports, fou6_in(i6, 5557, ext=TEL4), out6, 1, 4)
    tx("fou6_gre_encaplimit", "ip6gre over FOU over IPv6 port 5556 (GRE carrying IPv4) with the encap limit Destination Options",
       ports, fou6_in(GRE(proto=0x0800) / i4, 5556, ext=TEL4), out4, 1, 4)
    tx("fou6_gre6_kc_hbh", "GRE flags CK carrying IPv6 over FOU over IPv6, hop-by-hop router alert before UDP",
       ports, fou6_in(GRE(proto=0x86dd, chksum_present=1, key_present=1, key=42) / i6, 5556,
                      ext=IPv6ExtHdrHopByHop(options=[RouterAlert()])), out6, 1, 4)
    tx("fou6_ipip_rthdr0", "ipip over FOU over IPv6 after a routing header with no segments left",
       ports, fou6_in(i4, 5555, ext=IPv6ExtHdrRouting(type=0, segleft=0, addresses=["fd00::9"])), out4, 1, 4)
    ect0 = IP(raw(IP(src="10.30.0.5", dst="10.20.0.7", ttl=64, id=0x1234, flags="DF", tos=2) / UDP(sport=40000, dport=7) / Raw(PAYLOAD)))
    ce = IP(raw(ect0))
    ce.tos = 3
    del ce.chksum
    tx("fou6_ipip_ecn_ce", "ipip over FOU over IPv6, outer traffic class CE, inner ECT(0): forwarded CE (RFC 6040)",
       ports, fou6_in(ect0, 5555, tc=3), Ether(dst=NB4_MAC, src=EG_MAC) / routed(IP(raw(ce))), 1, 4)
    pp = fou6_in(i4, 5555, ext=IPv6ExtHdrDestOpt(options=[HBHOptUnknown(otype=0x9e, optdata=b"\0\0\0\0")]))
    tx("fou6_param_option", "FOU over IPv6 with option type 0x9e (unrecognised, high bits 10): ICMPv6 parameter problem code 2, pointer 42",
       ports, pp, to_sender(icmp6_error(pp[IPv6], "param", mtu=42, code=2)), 0)

DROP6 = []   # (name, stmts, in, drop reason name, doc)

def tun6_rx_cases():
    """IPv6-underlay tunnels received (ip6_tnl_lookup + ipxip6_rcv,
    ip6gre_tunnel_lookup + ip6gre_rcv): an ip6tnl / ip6gre from fd00::2 to
    fd00::1 takes FOU, GUE and plain packets from its remote and decapsulates
    them; another source, another GRE key, a protocol the ip6tnl's mode does
    not take, a GRE checksum the tunnel does not expect: each dropped by name."""
    ports = ("port 5555:ipip,family=6\nport 5556:gre,family=6\nport 5557:sit,family=6\n"
             "port 5558:gue,family=6\n")
    t = "tunnel t6,local=fd00::1,remote=fd00::2,"
    i4, i6 = inner4(), inner6()
    out4 = Ether(dst=NB4_MAC, src=EG_MAC) / routed(i4)
    out6 = Ether(dst=NB6_MAC, src=EG_MAC) / routed(i6)
    ipip6 = ports + t + "type=ip6tnl,mode=ipip6,encap=fou,encap-dport=5555"
    ip6ip6 = ports + t + "type=ip6tnl,mode=ip6ip6,encap=gue,encap-dport=5558"
    any6 = ports + t + "type=ip6tnl,mode=any,encap=fou,encap-dport=5557"
    gre6 = ports + t + "type=ip6gre,key=42,csum,encap=fou,encap-dport=5556"
    tx("tun6_ipip6_fou", "ip6tnl mode ipip6 encap fou from its remote, encap limit header before UDP: decapsulated",
       ipip6, fou6_in(i4, 5555, ext=TEL4), out4, 1, 4 | 16)
    tx("tun6_ip6ip6_gue", "ip6tnl mode ip6ip6 encap gue from its remote: decapsulated",
       ip6ip6, fou6_in(GUE(proto=41) / i6, 5558), out6, 1, 4 | 16)
    tx("tun6_any_fou_sit", "ip6tnl mode any, IPv6 inside on the sit port: decapsulated",
       any6, fou6_in(i6, 5557), out6, 1, 4 | 16)
    tx("tun6_any_gue_ipip", "ip6tnl mode any, GUE protocol 4 (a tunnel matches whatever its encap): decapsulated",
       any6, fou6_in(GUE(proto=4) / i4, 5558), out4, 1, 4 | 16)
    tx("tun6_ip6gre_fou_kc", "ip6gre key 42 csum encap fou from its remote: decapsulated",
       gre6, fou6_in(GRE(proto=0x0800, chksum_present=1, key_present=1, key=42) / i4, 5556, ext=TEL4), out4, 1, 4 | 16)
    def plain(nh, inner, ext=None, src=SENDER6):
        ip6 = IPv6(src=src, dst=GW6, hlim=64, fl=0x54321, nh=nh)
        if ext is not None:
            ip6 = ip6 / ext
        return Ether(dst=RX_MAC, src=PEER_MAC) / ip6 / inner
    p_ipip6 = t + "type=ip6tnl,mode=ipip6,encap=none"
    p_ip6ip6 = t + "type=ip6tnl,mode=ip6ip6,encap=none"
    p_gre6 = t + "type=ip6gre,key=7,encap=none"
    tx("tun6_plain_ipip6", "plain ip6tnl mode ipip6 (next header 4) from its remote: decapsulated",
       p_ipip6, plain(4, i4), out4, 1, 4 | 16)
    tx("tun6_plain_ip6ip6_encaplimit", "plain ip6tnl mode ip6ip6, the encap limit header then next header 41: decapsulated",
       p_ip6ip6, plain(60, i6, ext=TEL4), out6, 1, 4 | 16)
    tx("tun6_plain_ip6gre", "plain ip6gre key 7 (next header 47) carrying IPv6 from its remote: decapsulated",
       p_gre6, plain(47, GRE(proto=0x86dd, key_present=1, key=7) / i6), out6, 1, 4 | 16)
    def drop(name, doc, stmts, frame, reason):
        DROP6.append((name, stmts, frame, reason, doc))
    fou6_from = lambda inner, dport, src: Ether(dst=RX_MAC, src=PEER_MAC) / \
        IPv6(src=src, dst=GW6, hlim=64, fl=0x54321) / UDP(sport=51234, dport=dport) / inner
    drop("tun6_wrong_src", "ip6tnl ipip6 from fd00::2; FOU from fd00::3: no tunnel", ipip6,
         fou6_from(i4, 5555, "fd00::3"), "no_tunnel")
    drop("tun6_ipip6_got_ipv6", "ip6tnl mode ipip6 from its remote, IPv6 inside (sit port): its mode refuses it", ipip6,
         fou6_in(i6, 5557), "tunnel_mode_mismatch")
    drop("tun6_ip6ip6_got_ipv4", "ip6tnl mode ip6ip6 from its remote, GUE protocol 4: its mode refuses it", ip6ip6,
         fou6_in(GUE(proto=4) / i4, 5558), "tunnel_mode_mismatch")
    drop("tun6_ip6gre_no_csum", "ip6gre key 42 csum; GRE key 42 without a checksum", gre6,
         fou6_in(GRE(proto=0x0800, key_present=1, key=42) / i4, 5556), "gre_csum_mismatch")
    drop("tun6_ip6gre_other_key", "ip6gre key 42 csum; GRE key 43 with a checksum", gre6,
         fou6_in(GRE(proto=0x0800, chksum_present=1, key_present=1, key=43) / i4, 5556), "no_tunnel")
    drop("tun6_plain_wrong_src", "plain ip6tnl ipip6 from fd00::2; next header 4 from fd00::3", p_ipip6,
         plain(4, i4, src="fd00::3"), "no_tunnel")

def local_cases():
    """What the gateway answers for its own addresses (Linux' local input)
    and no route: echo replies, unreachables, parameter problem."""
    echo = tx_in4(dst=GW4, proto_layer=ICMP(type=8, id=7, seq=1) / Raw(b"ping-fou"))
    tx("local_echo4", "ICMP echo request to 10.0.0.1: echo reply from it", "", rx(echo),
       to_sender(echo_reply4(echo)), 0)
    echo = tx_in4(dst=LOCAL, proto_layer=ICMP(type=8, id=7, seq=2) / Raw(b"ping-fou"))
    tx("local_echo4_other_port", "ICMP echo request on port 0 to port 1's 192.168.1.1: echo reply from it, out of port 0",
       "", rx(echo), to_sender(echo_reply4(echo)), 0)
    opts = IP(src=SENDER4, dst=GW4, tos=0xb9, ttl=9, id=0x1234, flags="DF",
              options=[IPOption_RR(pointer=4, routers=["0.0.0.0"])]) / \
        ICMP(type=8, code=3, id=7, seq=3) / Raw(bytes(range(40)))
    opts = IP(raw(opts))
    tx("local_echo4_tos_options", "ICMP echo request, tos 0xb9, TTL 9, record route option, code 3: the reply copies tos and code, has TTL 64 and no option",
       "", rx(opts), to_sender(echo_reply4(opts)), 0)
    echo6 = tx_in6(dst=GW6, tc=0xb9, l4=ICMPv6EchoRequest(id=7, seq=1, data=b"ping-fou"))
    tx("local_echo6", "ICMPv6 echo request to fd00::1, tc 0xb9, flow label 0x12345: echo reply, tc 0xb9, flow label 0, hop limit 64",
       "", rx(echo6), to_sender(echo_reply6(echo6)), 0)
    # through a tunnel: t1's remote pings t1's local from 10.50.0.5, routed into t1
    t = Tun("ipip")
    inner = IP(src="10.50.0.5", dst=LOCAL, ttl=64, id=0x77, tos=0x28) / ICMP(type=8, id=9, seq=1) / Raw(b"via-tunnel")
    inner = IP(raw(inner))
    tx("local_echo4_via_tunnel", "ipip/fou from t1's remote: inner echo request 10.50.0.5 -> 192.168.1.1: the reply goes back into t1 (reply ID 0, outer ID 1)",
       t.stmt(), fou_in(inner, 5555, src=REMOTE, dst=LOCAL), t.encap_frame(echo_reply4(inner), ident=1), 1, 1 | 2 | 4)
    t6 = Tun("sit")
    inner6 = IPv6(src="fd00:50::5", dst="fd00:1::1", hlim=64, fl=0x12345) / ICMPv6EchoRequest(id=9, seq=1, data=b"via-tunnel")
    inner6 = IPv6(raw(inner6))
    tx("local_echo6_via_tunnel", "sit/fou from t1's remote: inner ICMPv6 echo request fd00:50::5 -> fd00:1::1: the reply goes back into t1",
       t6.stmt(), fou_in(inner6, 5557, src=REMOTE, dst=LOCAL), t6.encap_frame(echo_reply6(inner6)), 1, 1 | 2 | 4)
    # no route: ip_error (net unreachable), ip6_pkt_drop (no route)
    nr = tx_in4(dst="10.99.0.7")
    tx("noroute4", "plain IPv4 to 10.99.0.7, no route: ICMP net unreachable from 10.0.0.1", "", rx(nr),
       to_sender(icmp4_error(nr, 3, 0)), 0)
    nr6 = tx_in6(dst="fd00:99::7")
    tx("noroute6", "plain IPv6 to fd00:99::7, no route: ICMPv6 destination unreachable, no route, from fd00::1",
       "", rx(nr6), to_sender(icmp6_error(nr6, "unreach", code=0)), 0)
    tx("noroute4_decap", "ipip/fou, inner 10.0.0.2 -> 10.99.0.7, no route: net unreachable, not encapsulated (10.0.0.2 is on port 0)",
       "", fou_in(nr, 5555), to_sender(icmp4_error(nr, 3, 0)), 0, 2 | 4)
    # UDP to a port nobody listens on: port unreachable from the address it was sent to
    pu = tx_in4(dst=GW4)
    tx("local_port_unreach4", "UDP to 10.0.0.1 port 7: ICMP port unreachable from 10.0.0.1", "", rx(pu),
       to_sender(icmp4_error(pu, 3, 3)), 0)
    pu = tx_in4(dst=LOCAL)
    tx("local_port_unreach4_other_port", "UDP to 192.168.1.1 port 7, received on port 0: port unreachable from 192.168.1.1",
       "", rx(pu), to_sender(icmp4_error(pu, 3, 3, src=LOCAL)), 0)
    tr = IP(raw(IP(src=SENDER4, dst=GW4, ttl=64, id=0x1234, flags="DF") / UDP(sport=40000, dport=7, len=16, chksum=0) /
                Raw(PAYLOAD + b"trailer!")))
    tx("local_port_unreach4_trimmed", "UDP length 16 in 24 bytes of IPv4 payload: the quote ends with the datagram (__udp4_lib_rcv trims)",
       "", rx(tr), to_sender(icmp4_error(tr, 3, 3, quote_max=20 + 16)), 0)
    pu6 = tx_in6(dst=GW6)
    tx("local_port_unreach6", "UDP to fd00::1 port 7: ICMPv6 destination unreachable, port unreachable, from fd00::1",
       "", rx(pu6), to_sender(icmp6_error(pu6, "unreach", code=4)), 0)
    inner = tx_in4(dst=GW4)
    tx("local_port_unreach4_decap", "ipip/fou, inner UDP 10.0.0.2 -> 10.0.0.1 port 7: port unreachable from 10.0.0.1",
       "", fou_in(inner, 5555), to_sender(icmp4_error(inner, 3, 3)), 0, 2 | 4)
    # a protocol without a handler
    pr = IP(raw(IP(src=SENDER4, dst=GW4, ttl=64, id=0x1234, flags="DF", proto=99) / Raw(bytes(range(24)))))
    tx("local_proto_unreach4", "IPv4 protocol 99 to 10.0.0.1: ICMP protocol unreachable", "", rx(pr),
       to_sender(icmp4_error(pr, 3, 2)), 0)
    pp = IPv6(raw(IPv6(src=SENDER6, dst=GW6, hlim=64, fl=0x12345, nh=99) / Raw(bytes(range(24)))))
    tx("local_param_problem6", "IPv6 next header 99 to fd00::1: ICMPv6 parameter problem, unrecognised next header, pointer 6",
       "", rx(pp), to_sender(icmp6_error(pp, "param", mtu=6, code=1)), 0)

def gen_tx():
    v4, v6 = tx_in4(), tx_in6()
    # every type x encap, defaults (ttl inherit, tos 0, pmtudisc, sport auto, no csum)
    for ty in ("ipip", "sit", "gre"):
        for enc in ("fou", "none"):
            inners = {"ipip": [("", v4)], "sit": [("", v6)], "gre": [("4", v4), ("6", v6)]}[ty]
            for suf, inner in inners:
                n = "%s%s_%s" % (ty, suf, enc)
                tun_case("tx_" + n, "%s%s, encap %s, defaults" % (ty, suf and " inner IPv" + suf, enc), Tun(ty, encap=enc), inner)
                tun_case("tx_" + n + "_ttl", n + ": ttl=77 (fixed)", Tun(ty, encap=enc, ttl=77), inner)
                tun_case("tx_" + n + "_ttl_inherit", n + ": ttl=inherit, inner TTL 9 (8 after forwarding)", Tun(ty, encap=enc, ttl="inherit"),
                         tx_in4(ttl=9) if inner is v4 else tx_in6(hlim=9))
                tun_case("tx_" + n + "_tos", n + ": tos=0x28, inner DSCP EF ECT(1)", Tun(ty, encap=enc, tos=0x28),
                         tx_in4(tos=0xb9) if inner is v4 else tx_in6(tc=0xb9))
                tun_case("tx_" + n + "_tos_inherit", n + ": tos=inherit, inner DSCP EF ECT(1)", Tun(ty, encap=enc, tos="inherit"),
                         tx_in4(tos=0xb9) if inner is v4 else tx_in6(tc=0xb9))
                if inner is v4:
                    tun_case("tx_" + n + "_nopmtu_df", n + ": nopmtudisc, inner DF: outer DF", Tun(ty, encap=enc, pmtudisc=False), tx_in4(df=True))
                    tun_case("tx_" + n + "_nopmtu_nodf", n + ": nopmtudisc, inner without DF: no outer DF", Tun(ty, encap=enc, pmtudisc=False), tx_in4(df=False))
                    tun_case("tx_" + n + "_pmtu_nodf", n + ": pmtudisc, inner without DF: outer DF", Tun(ty, encap=enc, pmtudisc=True), tx_in4(df=False))
                else:
                    tun_case("tx_" + n + "_nopmtu", n + ": nopmtudisc, IPv6 inner: no outer DF", Tun(ty, encap=enc, pmtudisc=False), inner)
                if enc == "fou":
                    tun_case("tx_" + n + "_sport", n + ": encap-sport=4242", Tun(ty, sport=4242), inner)
                    tun_case("tx_" + n + "_csum", n + ": encap-csum, encap-sport=4242", Tun(ty, sport=4242, csum=True), inner)
                    tun_case("tx_" + n + "_csum_auto", n + ": encap-csum, encap-sport auto", Tun(ty, csum=True), inner)
                    tun_case("tx_" + n + "_nocsum", n + ": noencap-csum, encap-sport=4242", Tun(ty, sport=4242, csum=False), inner)
                if ty == "gre":
                    for opt, kw in (("key", dict(key=42)), ("keyquad", dict(key="1.2.3.4")), ("keyhex", dict(key="0xdeadbeef")),
                                    ("gcsum", dict(gcsum=True)), ("seq", dict(seq=True)),
                                    ("kcs", dict(key=42, gcsum=True, seq=True))):
                        extra = dict(sport=4242, csum=True) if enc == "fou" else {}
                        tun_case("tx_" + n + "_" + opt, n + ": GRE " + opt + (" (encap-csum, encap-sport=4242)" if extra else ""),
                                 Tun(ty, encap=enc, **kw, **extra), inner)
    # ECN (RFC 6040 normal mode): CE -> ECT(0), the rest copied; fixed or inherited DSCP
    for ty, inner_of in (("ipip", lambda tc: tx_in4(tos=tc)), ("sit", lambda tc: tx_in6(tc=tc)), ("gre", lambda tc: tx_in4(tos=tc))):
        for enc in ("fou", "none"):
            for e in range(4):
                for tosname, tos in (("inherit", "inherit"), ("fixed", 0x28)):
                    tun_case("tx_ecn_%s_%s_%d_%s" % (ty, enc, e, tosname), "%s/%s: inner DSCP AF41 ECN %d, tos %s" % (ty, enc, e, tosname),
                             Tun(ty, encap=enc, tos=tos), inner_of(0x88 | e))
    zero_csum_case()
    # encap gue (Linux' __gue_build_header: version 0, no flags, the
    # tunnel's protocol); GRE with all its options inside
    for ty, inner in (("ipip", v4), ("sit", v6), ("gre", v4), ("gre", v6)):
        n = "%s%s_gue" % (ty, "6" if ty == "gre" and inner is v6 else "4" if ty == "gre" else "")
        tun_case("tx_" + n, n + ": encap gue, defaults", Tun(ty, encap="gue"), inner)
        tun_case("tx_" + n + "_csum", n + ": encap gue, encap-csum, encap-sport=4242", Tun(ty, encap="gue", sport=4242, csum=True), inner)
        tun_case("tx_" + n + "_ecn", n + ": encap gue, tos inherit, inner CE: ECT(0)", Tun(ty, encap="gue", tos="inherit"),
                 tx_in4(tos=0x8b) if inner is v4 else tx_in6(tc=0x8b))
    tun_case("tx_gre4_gue_kcs", "gre4_gue: GRE key 42, csum, seq, encap-csum, encap-sport=4242",
             Tun("gre", encap="gue", key=42, gcsum=True, seq=True, sport=4242, csum=True), v4)

    # --- MTU and ICMP errors (port 1 MTU lowered; the sender has a neighbour on port 0)
    link = lambda mtu: "link 1,mtu=%d\n" % mtu
    for ty, enc, kw in (("ipip", "fou", {}), ("ipip", "none", {}), ("gre", "fou", dict(key=42, gcsum=True, seq=True)),
                        ("gre", "none", {}), ("ipip", "gue", {}), ("gre", "gue", dict(key=42, gcsum=True, seq=True))):
        t = Tun(ty, encap=enc, **kw)
        mtu = 200 - t.overhead()
        n = "%s_%s" % (ty, enc) + ("_kcs" if kw else "")
        fits = tx_in4(size=mtu)
        tun_case("mtu_" + n + "_fits", "%s: inner of exactly the tunnel MTU %d, port MTU 200" % (n, mtu), t, fits, pre=link(200))
        big = tx_in4(size=mtu + 1)
        tx("mtu_" + n + "_frag_needed", "%s: inner DF of tunnel MTU %d + 1: ICMP frag needed, MTU %d, back to the sender" % (n, mtu, mtu),
           link(200) + t.stmt(), rx(big), to_sender(icmp4_error(big, 3, 4, mtu)), 0)
    # plain forwarding over a port of MTU 200
    big = tx_in4(size=201, dst="10.20.0.7")
    tx("mtu_plain_frag_needed", "plain forwarding: 201 bytes with DF out of a port of MTU 200: ICMP frag needed, MTU 200",
       link(200).strip(), rx(big), to_sender(icmp4_error(big, 3, 4, 200)), 0)
    # the quote stops at 576 bytes of ICMP error
    t = Tun("ipip")
    big = tx_in4(size=1000, tos=0xbb)
    tx("mtu_quote_576", "ipip/fou, port MTU 600: 1000 bytes DF (tos 0xbb): ICMP of 576 bytes, tos 0xd8 (0xbb & 0x1e | 0xc0)",
       link(600) + t.stmt(), rx(big), to_sender(icmp4_error(big, 3, 4, 572)), 0)
    # TTL 1: time exceeded, quoting TTL 1
    ttl1 = tx_in4(ttl=1)
    tx("ttl1_time_exceeded", "ipip/fou: inner TTL 1: ICMP time exceeded", t.stmt(), rx(ttl1), to_sender(icmp4_error(ttl1, 11, 0)), 0)
    ttl1 = tx_in4(ttl=1, dst="10.20.0.7")
    tx("ttl1_plain_time_exceeded", "plain forwarding: TTL 1: ICMP time exceeded", "", rx(ttl1), to_sender(icmp4_error(ttl1, 11, 0)), 0)
    # an ICMP echo request is answered with an error; its header is quoted
    echo = tx_in4(size=173, proto_layer=ICMP(type=8, id=7, seq=1) / Raw(b"ping"))
    tx("mtu_echo_frag_needed", "ipip/fou, port MTU 200: 173-byte ICMP echo request with DF: frag needed, MTU 172",
       link(200) + t.stmt(), rx(echo), to_sender(icmp4_error(echo, 3, 4, 172)), 0)
    # IPv6: packet too big through sit (port MTU 1400: tunnel MTU 1372), quote cut at 1280
    t6 = Tun("sit")
    big6 = tx_in6(size=1373)
    tx("mtu6_sit_pkt_too_big", "sit/fou, port MTU 1400: 1373-byte IPv6: ICMPv6 packet too big, MTU 1372, 1280 bytes",
       link(1400) + t6.stmt(), rx(big6), to_sender(icmp6_error(big6, "ptb", 1372)), 0)
    tun_case("mtu6_sit_fits", "sit/fou, port MTU 1400: 1372-byte IPv6 fits", t6, tx_in6(size=1372), pre=link(1400))
    h1 = tx_in6(hlim=1)
    tx("hlim1_time_exceeded", "sit/fou: hop limit 1: ICMPv6 time exceeded", t6.stmt(), rx(h1), to_sender(icmp6_error(h1, "te")), 0)
    big6 = tx_in6(size=1501, dst="fd00:20::7")
    tx("mtu6_plain_pkt_too_big", "plain IPv6 forwarding, port MTU 1500: 1501 bytes: packet too big, MTU 1500",
       "", rx(big6), to_sender(icmp6_error(big6, "ptb", 1500)), 0)
    # the way back is a tunnel: the error is encapsulated (ICMP ID 0, outer ID 1),
    # from the tunnel's local address (an address of the way out, RFC 1812)
    back = tx_in4(size=201, dst="10.20.0.7", src="10.60.0.5")
    # the error must fit the way back: tunnel MTU 172, so 172 - 28 bytes of quote
    err = icmp4_error(back, 3, 4, 200, src=LOCAL, quote_max=172 - 28)
    tx("mtu_error_via_tunnel", "plain forwarding, port MTU 200, sender 10.60.0.5 routed into t1: the error goes through t1, cut to its MTU",
       link(200) + t.stmt() + "\nroute 10.60.0.0/16,dev=t1", rx(back),
       Tun("ipip").encap_frame(err, ident=1), 1, 1 | 2)
    # a tunnel with addresses of its own: an error through it comes from
    # one (inet_select_addr on the tunnel device): the first, or the one on
    # the network of the sender (the connected route's preferred source)
    err = icmp4_error(back, 3, 4, 200, src="192.168.44.1", quote_max=172 - 28)
    tx("mtu_error_via_tunnel_addr", "as mtu_error_via_tunnel, t1 with the addresses 192.168.44.1/30 and 192.168.45.1/24: the error comes from the first",
       link(200) + t.stmt() + "\naddr t1,192.168.44.1/30\naddr t1,192.168.45.1/24\nroute 10.60.0.0/16,dev=t1", rx(back),
       Tun("ipip").encap_frame(err, ident=1), 1, 1 | 2)
    ttl1 = tx_in4(ttl=1, dst="10.20.0.7", src="192.168.45.7")
    err = icmp4_error(ttl1, 11, 0, src="192.168.45.1")
    tx("ttl1_error_via_tunnel_net", "plain forwarding, TTL 1 from 192.168.45.7, on the network of t1's address 192.168.45.1/24 (its second): time exceeded from 192.168.45.1 through t1",
       t.stmt() + "\naddr t1,192.168.44.1/30\naddr t1,192.168.45.1/24", rx(ttl1),
       Tun("ipip").encap_frame(err, ident=1), 1, 1 | 2)
    h1 = tx_in6(hlim=1, dst="fd00:20::7", src="fd00:44::7")
    err = icmp6_error(h1, "te", src="fd00:44::1")
    tx("hlim1_error_via_tunnel_net6", "plain IPv6 forwarding, hop limit 1 from fd00:44::7, on the network of sit t1's address fd00:44::1/64: time exceeded from fd00:44::1 through t1",
       t6.stmt() + "\naddr t1,fd00:44::1/64", rx(h1), Tun("sit").encap_frame(err), 1, 1 | 2)

    local_cases()
    fou6_cases()
    tun6_rx_cases()

    # plain (encap none) tunnel protocols to a local address, decapsulated
    o = lambda proto: Ether(dst=RX_MAC, src=PEER_MAC) / IP(src="10.0.0.2", dst="10.0.0.1", ttl=64, id=0x4d2, flags="DF", proto=proto)
    emit("g_plain_ipip", o(4) / inner4(), "plain IPIP (protocol 4) to 10.0.0.1")
    emit("g_plain_sit", o(41) / inner6(), "plain SIT (protocol 41) to 10.0.0.1")
    emit("g_plain_gre4", o(47) / GRE(proto=0x0800, key_present=1, key=7) / inner4(), "plain GRE (protocol 47, key 7) carrying IPv4 to 10.0.0.1")
    emit("g_plain_gre6", o(47) / GRE(proto=0x86dd) / inner6(), "plain GRE (protocol 47) carrying IPv6 to 10.0.0.1")
    emit("g_plain_out4", Ether(dst=NB4_MAC, src=EG_MAC) / inner4(ttl=63), "expected output of the plain IPv4 cases", tunnel=False)
    emit("g_plain_out6", Ether(dst=NB6_MAC, src=EG_MAC) / inner6(hlim=63), "expected output of the plain IPv6 cases", tunnel=False)

    for name, stmts, inp, out, port, flags, doc in TX:
        emit(name + "_in", inp, doc + ": input", tunnel=False)
        nip = sum(1 for l in out.layers() if l in (IP, IPv6))
        emit(name + "_out", out, doc + ": output on port %d" % port, tunnel=nip > 1)
    print("""/* Transmit cases: statements after the standard topology, input on port 0, output. */
#define GOLDEN_SPORT_AUTO 0x01	/* encap-sport auto: the UDP source port is checked, not compared */
#define GOLDEN_ICMP 0x02	/* the output is an ICMP message (counted in icmp_out) */
#define GOLDEN_DECAP 0x04	/* the input is FOU to the gateway, decapsulated */
#define GOLDEN_TUN_RX 0x10	/* ... received on the standard topology's one tunnel, not sent by it */
struct golden_tx {
	const char *name;
	const char *doc;
	const char *stmts;	/* "NAME ARG" lines */
	const uint8_t *in;
	uint16_t in_len;
	const uint8_t *out;
	uint16_t out_len;
	uint16_t out_port;
	uint8_t flags;
};
""")
    print("static const struct golden_tx golden_tx[] = {")
    for name, stmts, inp, out, port, flags, doc in TX:
        st = stmts.replace("\n", "\\n")
        print('\t{ "%s", "%s",\n\t  "%s",\n\t  %s_in, sizeof(%s_in), %s_out, sizeof(%s_out), %d, %d },' % (name, doc.replace('"', '\\"'), st, name, name, name, name, port, flags))
    print("};\n")
    for name, stmts, inp, reason, doc in DROP6:
        emit(name + "_in", inp, doc + ": dropped as " + reason, tunnel=False)
    print("/* Received and dropped: statements after the standard topology, the input on")
    print(" * port 0, the drop reason it is counted under. */")
    print("static const struct {\n\tconst char *name;\n\tconst char *doc;\n\tconst char *stmts;\n"
          "\tconst uint8_t *in;\n\tuint16_t in_len;\n\tconst char *drop;\n} golden_rx_drop[] = {")
    for name, stmts, inp, reason, doc in DROP6:
        print('\t{ "%s", "%s",\n\t  "%s",\n\t  %s_in, sizeof(%s_in), "%s" },' % (
            name, doc.replace('"', '\\"'), stmts.replace("\n", "\\n"), name, name, reason))
    print("};\n")

# --- path MTU: ICMP fragmentation needed about a tunnel's outer packets ----------
#
# The transmit topology; the router 192.168.1.2 (02:00:00:00:01:02) on port 1,
# on the way to the remote, sends "fragmentation needed" to the tunnel's local
# address, quoting 548 bytes of the outer packet as Linux' icmp_send does. The
# gateway then answers inner packets over the lowered tunnel MTU itself.
# encap-sport is fixed, so that the outer packets are golden too.

def frag_needed(outer_frame, mtu, quote=548):
    q = raw(outer_frame[IP])[:quote]
    return (Ether(dst=EG_MAC, src=NB4_MAC) / IP(src="192.168.1.2", dst=LOCAL, ttl=64, id=0x77) /
            ICMP(type=3, code=4, nexthopmtu=mtu) / Raw(q))

PMTU = []   # (name, stmts, doc)

def gen_pmtu():
    cases = (
        ("ipip", Tun("ipip", sport=4242), "ipip/fou, encap-sport=4242"),
        ("gre", Tun("gre", encap="none", key=42), "plain GRE, key 42"),
        ("fgre", Tun("gre", key=42, gcsum=True, sport=4242), "gre/fou, key 42, csum, encap-sport=4242"),
        ("gue", Tun("gre", encap="gue", key=42, gcsum=True, sport=4242),
         "gre/gue, key 42, csum, encap-sport=4242"),
    )
    for n, t, d in cases:
        tmtu = 1500 - t.overhead()
        big = tx_in4(size=tmtu)
        out = t.encap_frame(routed(big))
        emit("g_pmtu_%s_big_in" % n, rx(big), "%s: inner DF of the tunnel MTU %d from the sender" % (d, tmtu), tunnel=False)
        emit("g_pmtu_%s_big_out" % n, out, "%s: its outer packet of 1500 bytes" % d)
        emit("g_pmtu_%s_err" % n, frag_needed(out, 1400), "%s: fragmentation needed, MTU 1400, about that outer packet" % d, tunnel=False)
        emit("g_pmtu_%s_big_frag" % n, to_sender(icmp4_error(big, 3, 4, 1400 - t.overhead())),
             "%s: the same inner packet after it: fragmentation needed, MTU %d, to the sender" % (d, 1400 - t.overhead()), tunnel=False)
        PMTU.append((n, t.stmt(), d))
    t = cases[0][1]
    fits = tx_in4(size=1372)
    out = t.encap_frame(routed(fits))
    emit("g_pmtu_ipip_fits_in", rx(fits), "ipip/fou: inner DF of 1372 bytes, the tunnel MTU under path MTU 1400", tunnel=False)
    emit("g_pmtu_ipip_fits_out", out, "ipip/fou: its outer packet of 1400 bytes")
    emit("g_pmtu_ipip_err_300", frag_needed(out, 300), "ipip/fou: fragmentation needed, MTU 300 (taken as 552), about the 1400-byte outer packet", tunnel=False)
    emit("g_pmtu_ipip_fits_frag", to_sender(icmp4_error(fits, 3, 4, 552 - 28)),
         "ipip/fou: the 1372-byte inner after path MTU 552: fragmentation needed, MTU 524", tunnel=False)
    emit("g_pmtu_ipip_err_raise", frag_needed(out, 1450), "ipip/fou: fragmentation needed, MTU 1450, about the 1400-byte outer packet: would raise it", tunnel=False)
    print("static const struct {\n\tconst char *name;\n\tconst char *doc;\n\tconst char *stmts;\n} golden_pmtu[] = {")
    for n, stmts, d in PMTU:
        print('\t{ "%s", "%s", "%s" },' % (n, d, stmts.replace("\n", "\\n")))
    print("};\n")

# --- path MTU over an IPv6 underlay: ICMPv6 packet too big ----------------------
#
# The router fd00:1::2 on port 1 sends packet too big to the tunnel's local
# fd00:1::1, quoting as much of the outer packet as fits 1280 bytes
# (icmp6_send). The outer packets are what an ip6tnl / ip6gre sends by
# Linux' layout (encap limit header before UDP or GRE), built here, not by
# the gateway.

LOCAL6, REMOTE6 = "fd00:1::1", "fd00:20::9"

def ptb(outer, mtu, src="fd00:1::2", chksum=None):
    q = raw(outer)[:1280 - 48]
    ic = ICMPv6PacketTooBig(mtu=mtu)
    if chksum is not None:
        ic.cksum = chksum
    return Ether(dst=EG_MAC, src=NB6_MAC) / IPv6(src=src, dst=LOCAL6, hlim=64) / ic / Raw(q)

def gen_pmtu6():
    t = "tunnel t6,local=%s,remote=%s," % (LOCAL6, REMOTE6)
    o6 = lambda dst=REMOTE6: IPv6(src=LOCAL6, dst=dst, hlim=64) / TEL4
    big4 = IP(src="10.30.0.5", dst="10.50.0.7", ttl=63, id=0x1234, flags="DF") / UDP(sport=40000, dport=7) / Raw(b"x" * 1400)
    big6 = IPv6(src="fd00:30::5", dst="fd00:50::7", hlim=63) / UDP(sport=40000, dport=7) / Raw(b"x" * 1400)
    cases = [
        ("ipip6", "ip6tnl mode ipip6 encap fou, encap-sport 4242",
         "port 5555:ipip,family=6\n" + t + "type=ip6tnl,mode=ipip6,encap=fou,encap-sport=4242,encap-dport=5555",
         o6() / UDP(sport=4242, dport=5555) / big4),
        ("gue6", "ip6tnl mode ip6ip6 encap gue, encap-sport 4242",
         "port 5558:gue,family=6\n" + t + "type=ip6tnl,mode=ip6ip6,encap=gue,encap-sport=4242,encap-dport=5558",
         o6() / UDP(sport=4242, dport=5558) / GUE(proto=41) / big6),
        ("gre6", "plain ip6gre key 42",
         t + "type=ip6gre,key=42,encap=none", o6() / GRE(proto=0x0800, key_present=1, key=42) / big4),
    ]
    for n, d, stmts, outer in cases:
        emit("g_pmtu6_%s_err" % n, ptb(outer, 1400), "%s: packet too big, MTU 1400, about its outer packet" % d, tunnel=False)
    emit("g_pmtu6_ipip6_err_1000", ptb(cases[0][3], 1000), "ip6tnl ipip6/fou: packet too big, MTU 1000 (taken as 1280)", tunnel=False)
    emit("g_pmtu6_ipip6_err_1500", ptb(cases[0][3], 1500), "ip6tnl ipip6/fou: packet too big, MTU 1500, the port's: nothing lowered", tunnel=False)
    emit("g_pmtu6_ipip6_err_huge", ptb(cases[0][3], 70000), "ip6tnl ipip6/fou: packet too big, MTU 70000: nothing lowered", tunnel=False)
    forged = [
        ("other_remote", "another remote", o6("fd00:20::10") / UDP(sport=4242, dport=5555) / big4),
        ("sport", "another source port", o6() / UDP(sport=4243, dport=5555) / big4),
        ("dport", "another destination port", o6() / UDP(sport=4242, dport=5556) / big4),
        ("inner6", "IPv6 inside, which mode ipip6 does not send", o6() / UDP(sport=4242, dport=5555) / big6),
        ("plain", "plain IPIP for a FOU tunnel", o6() / big4),
    ]
    for n, d, outer in forged:
        emit("g_pmtu6_ipip6_forged_%s" % n, ptb(outer, 1400), "ip6tnl ipip6/fou: packet too big quoting %s: no tunnel" % d, tunnel=False)
    emit("g_pmtu6_ipip6_badsum", ptb(cases[0][3], 1400, chksum=0x1234), "ip6tnl ipip6/fou: packet too big with a wrong ICMPv6 checksum", tunnel=False)
    emit("g_pmtu6_gre6_key43", ptb(o6() / GRE(proto=0x0800, key_present=1, key=43) / big4, 1400),
         "plain ip6gre key 42: packet too big quoting GRE key 43: no tunnel", tunnel=False)
    print("static const struct {\n\tconst char *name;\n\tconst char *doc;\n\tconst char *stmts;\n} golden_pmtu6[] = {")
    for n, d, stmts, outer in cases:
        print('\t{ "%s", "%s", "%s" },' % (n, d, stmts.replace("\n", "\\n")))
    print("};\n")

def gen_nd():
    """Neighbour Discovery on port 1 (EG_MAC, fd00:1::1, link-local
    fe80::ff:fe00:101 by modified EUI-64): solicitations from a neighbour
    and the advertisements that answer them, as Linux 6.1's ndisc_recv_ns
    sends them (R always; S unless a duplicate address probe; O and the
    target link-layer option when the solicitation came to a group)."""
    NB, NB_MAC, LL = "fd00:1::9", "02:00:00:00:01:09", "fe80::ff:fe00:101"
    ip6 = lambda src, dst: IPv6(src=src, dst=dst, hlim=255, tc=0, fl=0)
    na = lambda tgt, R, S, O: ICMPv6ND_NA(tgt=tgt, R=R, S=S, O=O)
    emit("g_ns_mcast", Ether(dst="33:33:ff:00:00:01", src=NB_MAC) / ip6("fe80::9", "ff02::1:ff00:1") /
         ICMPv6ND_NS(tgt="fd00:1::1") / ICMPv6NDOptSrcLLAddr(lladdr=NB_MAC),
         "NS for fd00:1::1 to its solicited-node group, from fe80::9 with its link-layer address", tunnel=False)
    emit("g_na_mcast", Ether(dst=NB_MAC, src=EG_MAC) / ip6("fd00:1::1", "fe80::9") /
         na("fd00:1::1", 1, 1, 1) / ICMPv6NDOptDstLLAddr(lladdr=EG_MAC),
         "its answer: NA R S O with our link-layer address", tunnel=False)
    emit("g_ns_ll", Ether(dst=EG_MAC, src=NB_MAC) / Dot1Q(vlan=7) / ip6("fe80::9", LL) /
         ICMPv6ND_NS(tgt=LL) / ICMPv6NDOptSrcLLAddr(lladdr=NB_MAC),
         "802.1Q (VID 7) unicast NS for our link-local address, from fe80::9 with its link-layer address", tunnel=False)
    emit("g_na_ll", Ether(dst=NB_MAC, src=EG_MAC) / Dot1Q(vlan=7) / ip6(LL, "fe80::9") /
         na(LL, 1, 1, 0),
         "its answer: NA R S, no option (the solicitor knows our MAC), the tag kept", tunnel=False)
    p = ip6(NB, "fd00:1::1")
    p.plen = 24
    emit("g_ns_plain", Ether(dst=EG_MAC, src=NB_MAC) / p / ICMPv6ND_NS(tgt="fd00:1::1") /
         Padding(bytes(10)),
         "unicast NS for fd00:1::1 from fd00:1::9 without an option, 10 bytes of Ethernet padding", tunnel=False)
    emit("g_na_plain", Ether(dst=NB_MAC, src=EG_MAC) / ip6("fd00:1::1", NB) / na("fd00:1::1", 1, 1, 0),
         "its answer: NA R S to the frame's source MAC, the padding gone", tunnel=False)
    emit("g_ns_dad", Ether(dst="33:33:ff:00:00:01", src=NB_MAC) / ip6("::", "ff02::1:ff00:1") /
         ICMPv6ND_NS(tgt="fd00:1::1"),
         "duplicate address probe for fd00:1::1 (source ::)", tunnel=False)
    emit("g_na_dad", Ether(dst="33:33:00:00:00:01", src=EG_MAC) / ip6("fd00:1::1", "ff02::1") /
         na("fd00:1::1", 1, 0, 1) / ICMPv6NDOptDstLLAddr(lladdr=EG_MAC),
         "its answer: NA R O to all nodes with our link-layer address", tunnel=False)
    emit("g_ns_out", Ether(dst="33:33:ff:00:00:09", src=EG_MAC) / ip6("fd00:1::1", "ff02::1:ff00:9") /
         ICMPv6ND_NS(tgt=NB) / ICMPv6NDOptSrcLLAddr(lladdr=EG_MAC),
         "the gateway resolving fd00:1::9: NS to its solicited-node group from fd00:1::1", tunnel=False)
    emit("g_na_in", Ether(dst=EG_MAC, src=NB_MAC) / ip6(NB, "fd00:1::1") /
         na(NB, 0, 1, 1) / ICMPv6NDOptDstLLAddr(lladdr=NB_MAC),
         "fd00:1::9 answering it: NA S O with its link-layer address", tunnel=False)

print("/* Neighbour Discovery: define GOLDEN_ND before including. */\n#ifdef GOLDEN_ND\n")
gen_nd()
print("#endif /* GOLDEN_ND */\n")

# --- what Linux 6.1 sent through encap gue tunnels (tests/data/linux-6.1-gue-*.pcap) ---
#
# The gateway stands where the Linux guest stood: 10.99.0.2 on port 1, the
# phantom far end 10.99.0.10 (02:00:0a:63:00:10) its neighbour. Each inner
# packet Linux sent enters port 0 one hop earlier (TTL / hop limit + 1) and
# must leave port 1 as the frame in the capture, but for the Ethernet
# source, the IPv4 ID (0, 1, 2 from fresh counters) and the UDP source port
# (encap-sport auto: a hash of our own; the UDP checksum follows it).

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
LINUX_GUE = (("ipip", ""), ("ipip-csum", ",encap-csum"), ("sit", ""), ("sit-csum", ",encap-csum"),
             ("gre", ""), ("gre-csum", ",encap-csum"), ("gre-key-csum-seq", ",key=42,csum,seq"))
LINUX_ROUTE = {"ipip": "192.168.4.0/24", "sit": "fd00:41::/64", "gre": "192.168.47.0/24"}

def gen_linux_tx():
    cases = []
    for name, extra in LINUX_GUE:
        ty = name.split("-")[0]
        stmts = "\n".join(["addr 1,10.99.0.2/24", "neigh 10.99.0.10,dev=1,lladdr=02:00:0a:63:00:10",
                           "tunnel t1,type=%s,local=10.99.0.2,remote=10.99.0.10,ttl=64,encap=gue,"
                           "encap-dport=5555%s" % (ty, extra), "route %s,dev=t1" % LINUX_ROUTE[ty]])
        for k, f in enumerate(rdpcap(os.path.join(DATA, "linux-6.1-gue-%s.pcap" % name))):
            o = f[IP]
            g = raw(o)[32]     # the GRE flags, after IPv4, UDP and GUE
            hdr = 32 + (4 + 4 * (bool(g & 0x80) + bool(g & 0x20) + bool(g & 0x10)) if ty == "gre" else 0)
            ib = raw(o)[hdr:]
            if ib[0] >> 4 == 4:
                i = IP(ib)
                i.ttl += 1
                del i.chksum
                i = IP(raw(i))
            else:
                i = IPv6(ib)
                i.hlim += 1
                i = IPv6(raw(i))
            out = Ether(raw(f))
            out.src = EG_MAC
            out[IP].id = 0
            del out[IP].chksum
            out = Ether(raw(out))
            gb = raw(out[UDP].payload)
            out[UDP].remove_payload()
            out[UDP].add_payload(GUE(gb))
            n = "linux_gue_%s_%d" % (name.replace("-", "_"), k + 1)
            emit(n + "_in", Ether(dst=RX_MAC, src=PEER_MAC) / i,
                 "Linux 6.1 encap gue %s, packet %d: the inner packet one hop before" % (name, k + 1), tunnel=False)
            emit(n + "_out", out, "Linux 6.1 encap gue %s, packet %d, as captured (our Ethernet source, IPv4 ID 0)" % (name, k + 1))
            cases.append((n, stmts, k))
    print("/* The Linux captures' cases, in order: GOLDEN_NEXT sends after the case before it,")
    print(" * through the same gateway and context (the IPv4 ID is then k more). */")
    print("#define GOLDEN_NEXT 0x08")
    print("static const struct golden_tx golden_linux_tx[] = {")
    for n, stmts, k in cases:
        print('\t{ "%s", "Linux 6.1 capture, packet %d",\n\t  "%s",\n\t  %s_in, sizeof(%s_in), %s_out, sizeof(%s_out), 1, %d },' % (
            n, k + 1, stmts.replace("\n", "\\n"), n, n, n, n, 1 | (8 if k else 0)))
    print("};\n")

print("/* Transmit path: define GOLDEN_TX before including. */\n#ifdef GOLDEN_TX\n")
gen_tx()
gen_linux_tx()
print("#endif /* GOLDEN_TX */\n")
print("/* Path MTU: define GOLDEN_PMTU before including. */\n#ifdef GOLDEN_PMTU\n")
gen_pmtu()
gen_pmtu6()
print("#endif /* GOLDEN_PMTU */\n")
print("#endif /* UNIT_GOLDEN_H */")
