#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Builds inside-replies.pcap for `make demo` (run from the repository root):

    /usr/bin/python3 tests/data/gen_inside.py

The Linux guest of linux-6.1-all.pcap pings 192.168.4.1, 192.168.47.1 and
fd00:41::1 through its ipip, gre and sit FOU tunnels; config/demo.conf puts
those hosts behind dpdk-fou's port 1 (next hops 192.168.1.4, 192.168.1.47,
fd00:1::41). This file is what they answer: one echo reply per echo request
in the capture, entering port 1, which dpdk-fou routes back into the
tunnels; and one 1500-byte packet with DF that does not fit the ipip
tunnel (MTU 1472), which dpdk-fou answers with ICMP fragmentation needed.
"""
from scapy.all import GRE, ICMP, IP, UDP, Ether, ICMPv6EchoReply, ICMPv6EchoRequest, IPv6, Raw, rdpcap, wrpcap

PORT1_MAC = "02:00:c0:a8:01:01"     # link = 1,address=... in config/demo.conf
HOST_MAC = {"192.168.4.1": "02:00:00:01:00:04", "192.168.47.1": "02:00:00:01:00:47",
            "fd00:41::1": "02:00:00:01:00:41"}
INNER = {5555: IP, 5556: GRE, 5557: IPv6}


def inner(frame):
    """The packet inside a FOU frame to 10.99.0.1, or None."""
    if UDP not in frame or frame[IP].dst != "10.99.0.1":
        return None
    proto = INNER.get(frame[UDP].dport)
    if proto is None:
        return None
    pkt = proto(bytes(frame[UDP].payload))
    return pkt.payload if proto is GRE else pkt


def main():
    out = []
    for frame in rdpcap("tests/data/linux-6.1-all.pcap"):
        pkt = inner(frame)
        if pkt is None:
            continue
        if IP in pkt and ICMP in pkt and pkt[ICMP].type == 8:
            ip = pkt[IP]
            reply = IP(src=ip.dst, dst=ip.src, ttl=64) / \
                ICMP(type=0, id=pkt[ICMP].id, seq=pkt[ICMP].seq) / Raw(bytes(pkt[ICMP].payload))
        elif IPv6 in pkt and ICMPv6EchoRequest in pkt:
            req = pkt[ICMPv6EchoRequest]
            reply = IPv6(src=pkt[IPv6].dst, dst=pkt[IPv6].src, hlim=64) / \
                ICMPv6EchoReply(id=req.id, seq=req.seq, data=req.data)
        else:
            continue
        out.append(Ether(dst=PORT1_MAC, src=HOST_MAC[reply.src]) / reply)
    big = IP(src="192.168.4.1", dst="192.168.4.2", ttl=64, flags="DF") / \
        UDP(sport=40000, dport=9) / Raw(b"\0" * (1500 - 28))
    out.append(Ether(dst=PORT1_MAC, src=HOST_MAC["192.168.4.1"]) / big)
    wrpcap("tests/data/inside-replies.pcap", out)
    print("%d frames" % len(out))


if __name__ == "__main__":
    main()
