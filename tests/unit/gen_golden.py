#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Regenerate: /usr/bin/python3 tests/unit/gen_golden.py > tests/unit/golden.h
# Generates tests/unit/golden.h from scapy (an encoder independent of the C code).
from scapy.all import Ether, Dot1Q, IP, IPv6, UDP, GRE, Raw, IPOption_Router_Alert, raw

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
                c += ", option: router alert"
        elif isinstance(layer, IPv6):
            bl = IPv6(rest)
            nip += 1
            c = ("inner IPv6" if tunnel else "IPv6") + ": tc 0x%02x, flow 0x%05x, plen %d, nh %d, hlim %d, %s -> %s" % (bl.tc, bl.fl, bl.plen, bl.nh, bl.hlim, bl.src, bl.dst)
        elif isinstance(layer, UDP):
            bl = UDP(rest)
            who = ("UDP (FOU)" if nip == 1 and not isinstance(layer.underlayer, UDP) else "FOU payload: UDP" if isinstance(layer.underlayer, UDP) else "inner UDP") if tunnel else "UDP"
            c = "%s: %d -> %d, len %d, csum 0x%04x" % (who, bl.sport, bl.dport, bl.len, bl.chksum)
        elif isinstance(layer, GRE):
            bl = GRE(rest)
            fl = "".join(f for f, on in (("C", bl.chksum_present), ("K", bl.key_present), ("S", bl.seqnum_present)) if on) or "none"
            c = "GRE: flags %s, ver 0, proto 0x%04x" % (fl, bl.proto)
            if bl.chksum_present: c += ", csum 0x%04x" % bl.chksum
            if bl.key_present: c += ", key 0x%08x" % bl.key
            if bl.seqnum_present: c += ", seq 0x%08x" % bl.sequence_number
        elif isinstance(layer, Raw):
            c = "payload \"%s\"" % layer.load.decode()
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
print("#endif /* UNIT_GOLDEN_H */")
