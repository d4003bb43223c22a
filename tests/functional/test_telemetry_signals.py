#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Case 7: a gateway started without --idle-exit is watched through
telemetry (dpdk-telemetry.py: /fou/stats, /fou/ports) until it has handled
its capture, then stopped by SIGINT or SIGTERM sent to its PID: exit status
0, the summary printed, the counters equal to what telemetry said."""
import json
import os
import signal
import socket
import sys
import threading

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou, v4  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.inet import UDP  # noqa: E402
from test_linux_captures import capture_traffic  # noqa: E402

POLL_TIMEOUT = 60
MACS = {0: ft.MAC_P0, 1: ft.MAC_P1}
EXPECTED_PORTS = {
    '5555': {'family': 4, 'proto': 'ipip', 'ipproto': 4, 'decap': 10},
    '5556': {'family': 4, 'proto': 'gre', 'ipproto': 47, 'decap': 0},
    '5557': {'family': 4, 'proto': 'sit', 'ipproto': 41, 'decap': 9},
    '5558': {'family': 4, 'proto': 'sit', 'ipproto': 41, 'decap': 0},
    '5559': {'family': 4, 'proto': 'ipip', 'ipproto': 4, 'decap': 0},
    '6000': {'family': 4, 'proto': 'other', 'ipproto': 17, 'decap': 0},
}


def telemetry_traffic():
    t = ft.Traffic()
    t.cases += capture_traffic('ipip-csum').cases + capture_traffic('sit-nocsum').cases
    t.drop('6000:17 #1', fou(6000, UDP(sport=1, dport=2) / Raw(b'a' * 20)), 'fou_proto_unhandled')
    t.drop('6000:17 #2', fou(6000, UDP(sport=1, dport=2) / Raw(b'b' * 21)), 'fou_proto_unhandled')
    t.drop('ttl 1', fou(5555, v4(ttl=1)), 'ttl_exceeded')
    return t


class TelemetrySignals(ft.GatewayTestCase):
    def wait_stats(self, gw, n):
        """Poll /fou/stats until all n packets are counted as sent, dropped
        or waiting for a neighbour, beside what the gateway sent of its own
        (or the gateway is gone)."""
        def done():
            if not gw.running():
                return 'exited'
            replies = gw.telemetry('/fou/stats')
            stats = replies[0].get('/fou/stats') if replies else None
            if stats and stats['rx'] == n and stats['tx'] + stats['dropped'] + stats['held'] == \
                    n + stats['local']['originated']:
                return stats
            return None
        stats = ft.wait_for(done, POLL_TIMEOUT, interval=0.1)
        self.assertNotEqual(stats, 'exited', 'the gateway stopped by itself\n' +
                            (gw.wait().describe() if not gw.running() else ''))
        self.assertTrue(stats, '/fou/stats did not reach rx %d in %d s' % (n, POLL_TIMEOUT))
        return stats

    def check_stop(self, sig):
        t = telemetry_traffic()
        n, fwd = len(t.cases), len(t.out(1))
        drops = t.drops()
        gw = self.start({0: t.write(self.path('in.pcap'))}, ft.PROTO_OPTS)

        stats = self.wait_stats(gw, n)
        replies = gw.telemetry('/fou/stats', '/fou/ports', '/fou/stats,extra')
        self.assertIsNotNone(replies, 'telemetry did not answer')
        stats2, ports, bad = replies

        def still(st):
            """What only the resolution of 10.99.0.3 moves (a request a
            second while the gateway runs, sent by the worker of lcore 1)
            set aside."""
            return {k: v for k, v in st.items()
                    if k not in ('tx', 'tx_by_port', 'tx_by_lcore', 'local')}
        stats2 = stats2['/fou/stats']
        self.assertEqual(still(stats2), still(stats), 'counters moved after the capture ended')
        self.assertEqual(stats2['tx'] - stats['tx'], stats2['local']['arp_requests_out'] -
                         stats['local']['arp_requests_out'])
        self.assertEqual(stats2['tx_by_lcore']['1'] - stats['tx_by_lcore']['1'],
                         stats2['tx'] - stats['tx'], 'the requests leave through lcore 1')
        # the two ICMP errors to 10.99.0.3 wait for it to answer ARP
        waiting = drops.pop('neigh_stopped')
        self.assertEqual(stats['rx'], n)
        self.assertEqual(stats['held'], waiting)
        self.assertEqual(stats['tx'], fwd + stats['local']['originated'])
        self.assertEqual(stats['dropped'], sum(drops.values()))
        self.assertEqual((stats['decap'], stats['decap_ipv4'], stats['decap_ipv6']), (19, 10, 9))
        self.assertEqual(stats['drops'], {r: drops.get(r, 0) for r in ft.DROP_REASONS})
        self.assertEqual(list(stats['drops']), list(ft.DROP_REASONS), 'drop reason order')
        # the TTL 1 packet has no route back for an ICMP error
        self.assertEqual(stats['icmp_sent'], {k: 0 for k in ft.ICMP_KINDS})
        self.assertEqual(stats['rx_by_port'], {'0': n, '1': 0})
        self.assertEqual(sum(stats['tx_by_port'].values()), stats['tx'])
        self.assertGreaterEqual(stats['tx_by_port']['1'], fwd)
        self.assertEqual(ports, {'/fou/ports': {'count': len(EXPECTED_PORTS), 'offset': 0,
                                                **EXPECTED_PORTS}})
        self.assertEqual(bad, {'/fou/stats': {'error': "unknown parameter 'extra' (see /help)",
                                              'errno': -22}}, 'the bad parameter is named')
        self.assertTrue(gw.running(), 'the gateway must run until it is told to stop')

        gw.signal(sig)
        run = gw.wait(timeout=30)
        self.assertIsNotNone(run.rc, 'no exit after %s\n%s' % (sig.name, run.describe()))
        self.assertEqual(run.rc, 0, run.describe())
        self.assertTraffic(run, t, port_macs=MACS, fou_ports=ft.PROTO_FOU_PORTS)
        s = run.summary
        # port 1 sent the forwarded packets and its announcements only
        self.assertNeighOut(run, 1, ft.MAC_P1, ft.BASE_ANNOUNCE[1])
        self.assertEqual(stats['tx_by_port']['1'], fwd + len(run.own[1]))
        # the exit dropped what waited; requests may have gone on meanwhile
        self.assertEqual((sum(s.rx.values()), sum(s.tx.values()) - s.originated, s.dropped),
                         (stats['rx'], stats['tx'] - stats['local']['originated'],
                          stats['dropped'] + stats['held']))
        self.assertEqual(s.drops, {**{k: v for k, v in stats['drops'].items() if v},
                                   'neigh_stopped': waiting})
        self.assertEqual({str(p): v for p, v in s.decap_port.items()},
                         {p: e['decap'] for p, e in EXPECTED_PORTS.items()})

    def test_sigint(self):
        self.check_stop(signal.SIGINT)

    def test_sigterm(self):
        self.check_stop(signal.SIGTERM)

    def test_sigterm_before_any_packet(self):
        """No input at all: stopped while idle, nothing lost."""
        gw = self.start({}, ft.BASE_OPTS)
        stats = self.wait_stats(gw, 0)
        # nothing but the announcements of its addresses
        self.assertEqual((stats['rx'], stats['tx'], stats['dropped']),
                         (0, stats['local']['originated'], 0))
        gw.signal(signal.SIGTERM)
        run = gw.wait(timeout=30)
        self.assertCounters(run, rx={0: 0, 1: 0}, tx={0: 0, 1: 0}, drops={}, decap=[])
        self.assertNoOutput(run)
        for p in (0, 1):
            self.assertNeighOut(run, p, (ft.MAC_P0, ft.MAC_P1)[p], ft.BASE_ANNOUNCE[p])

    def test_sigterm_while_telemetry_reads(self):
        """/fou/stats asked in a loop while the gateway stops: it exits
        cleanly, every reply is well-formed: the counters, or once it
        stops the stopping error (-ESHUTDOWN)."""
        t = telemetry_traffic()
        gw = self.start({0: t.write(self.path('in.pcap'))}, ft.PROTO_OPTS)
        self.wait_stats(gw, len(t.cases))
        path = os.path.join(ft.runtime_dir(gw.prefix), 'dpdk_telemetry.v2')
        replies, errors, stop = [], [], threading.Event()

        def hammer():
            while not stop.is_set():
                try:
                    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
                        s.settimeout(5)
                        s.connect(path)
                        s.recv(1024)
                        for _ in range(20):
                            s.send(b'/fou/stats')
                            reply = s.recv(65536)
                            if not reply:       # closed: the gateway is going
                                break
                            replies.append(json.loads(reply.decode()))
                except (OSError, ValueError) as e:
                    errors.append(e)
                    if not gw.running():
                        return
        th = threading.Thread(target=hammer)
        th.start()
        try:
            self.assertTrue(ft.wait_for(lambda: len(replies) >= 50, 30), 'telemetry too slow')
            gw.signal(signal.SIGTERM)
            run = gw.wait(timeout=30)
        finally:
            stop.set()
            th.join(30)
        self.assertEqual(run.rc, 0, run.describe())
        self.assertTraffic(run, t, port_macs=MACS, fou_ports=ft.PROTO_FOU_PORTS)
        # the counters until it stops, then the stopping error: never null
        for r in replies:
            self.assertEqual(list(r), ['/fou/stats'])
            if r['/fou/stats'] != ft.STOPPING:
                self.assertEqual(r['/fou/stats']['rx'], len(t.cases), r)
        self.assertFalse([e for e in errors if isinstance(e, ValueError)], 'malformed reply')


if __name__ == '__main__':
    ft.main()
