#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Hostile telemetry clients: whatever bytes reach the socket, the gateway
answers with well-formed JSON, an error naming the problem and a negative
errno, changes nothing, and keeps serving.

The commands go over a raw SOCK_SEQPACKET connection (dpdk-telemetry.py
would decode and re-encode them as text): oversized parameters (above the
gateway's 255 characters, and above the 1023 bytes DPDK 22.11 reads of one
message), bytes that are not UTF-8, missing and empty parameters, repeated
parameters and positional fields, unknown keys. The socket's directory is
the EAL runtime directory, mode 0700, owned by the gateway's user, and the
socket itself is not writable (so cannot be connected to) by others."""
import json
import os
import signal
import stat
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402

TUNNEL = b'/fou/tunnel/add,t1,type=ipip,local=10.99.0.1,remote=10.99.0.2,'

# (raw command, what the error must say)
HOSTILE = [
    # oversized: a cut argument could mean something else, so none is cut
    (b'/fou/route/add,' + b'1' * 300, 'longer than 255 characters'),
    (b'/fou/routes,offset=' + b'0' * 300 + b'1', 'longer than 255 characters'),
    (b'/fou/stats,lcore=1,' + b'x' * 250 + b',lcore=2', 'longer than 255 characters'),
    (TUNNEL + b'ttl=64,' * 300, 'longer than 255 characters'),      # DPDK reads 1023 bytes
    # not UTF-8 (and the reply stays JSON: such bytes are echoed as '?')
    (b'/fou/port/add,\xff\xfe:ipip', "UDP port '??' is not in 1-65535"),
    (b'/fou/tunnel/del,\xc3\x28', "no tunnel '?('"),
    (b'/fou/routes,offset=\x80', "offset: '?' is not a number"),
    (b'/fou/route/add,10.5.0.0/16,dev=\xed\xa0\x80', "'???'"),
    (b'/fou/neigh/add,192.168.1.9,dev=1,lladdr=02:00:00:00:00:\xe9',
     "'02:00:00:00:00:?' is not a MAC address"),
    # missing parameters, empty ones
    (b'/fou/port/add', 'missing fields'),
    (b'/fou/port/add,', 'missing fields'),
    (b'/fou/route/add', 'missing fields'),
    (b'/fou/route/del', 'missing fields'),
    (b'/fou/tunnel/del', 'missing fields'),
    (b'/fou/link/set', 'missing fields'),
    (b'/fou/sport_range/set', 'missing fields'),
    (b'/fou/route/add,10.5.0.0/16', 'missing dev='),
    (b'/fou/neigh/add,192.168.1.9,dev=1', 'missing lladdr'),
    (TUNNEL[:-1], 'encap-dport'),
    (b'/fou/route/add,,10.5.0.0/16,dev=1', 'empty field'),
    (b'/fou/route/add,10.5.0.0/16,,dev=1', 'empty field'),
    (b'/fou/route/add,10.5.0.0/16,dev=1,', 'empty field'),
    (b'/fou/routes,offset=1,', 'empty field'),
    (b'/fou/routes,,offset=1', 'empty field'),
    (b'/fou/stats,lcore=', "lcore: '' is not a number"),
    (b'/fou/routes,offset', "offset: '' is not a number"),
    (b'/fou/route/add,10.5.0.0/16,dev=', "parameter 'dev' has no value"),
    (TUNNEL + b'encap-dport=', "parameter 'encap-dport' has no value"),
    # repeated parameters and fields
    (b'/fou/routes,offset=1,offset=2', "parameter 'offset' given twice"),
    (b'/fou/stats,lcore=1,lcore=1', "parameter 'lcore' given twice"),
    (b'/fou/route/add,10.5.0.0/16,dev=1,via=192.168.1.2,via=192.168.1.3',
     "parameter 'via' given twice"),
    (b'/fou/route/add,10.5.0.0/16,dev=1,dev=0', "parameter 'dev' given twice"),
    (b'/fou/route/add,10.5.0.0/16,10.6.0.0/16,dev=1', "unexpected '10.6.0.0/16'"),
    (TUNNEL + b'encap-dport=5555,encap-dport=5556', "parameter 'encap-dport' given twice"),
    (TUNNEL + b'encap-dport=5555,pmtudisc,pmtudisc', "parameter 'pmtudisc' given twice"),
    (b'/fou/neigh/add,192.168.1.9,dev=1,lladdr=02:00:00:00:00:09,lladdr=02:00:00:00:00:0a',
     "parameter 'lladdr' given twice"),
    (b'/fou/port/add,5560:ipip,5561:gre', "unexpected '5561:gre'"),
    (b'/fou/icmp_rate/set,10,burst=5,burst=6', "parameter 'burst' given twice"),
    # unknown keys
    (b'/fou/route/add,10.5.0.0/16,dev=1,table=5', "unknown parameter 'table'"),
    (b'/fou/tunnel/peer_config,tun1,limit=5', "unknown parameter 'limit'"),
    # the peer's config: a tunnel that is not there, none named
    (b'/fou/tunnel/peer_config,nosuch', "no tunnel 'nosuch'"),
    (b'/fou/tunnel/peer_config', "no tunnel named"),
    (b'/fou/tunnel/peer_config,,offset=0', "no tunnel named"),
    (b'/fou/tunnels,limit=5', "unknown parameter 'limit'"),
    (b'/fou/lcores,offset=0', "unknown parameter 'offset' (this command takes none)"),
    (b'/fou/stats/reset,now', "unknown parameter 'now' (this command takes none)"),
    (b'/fou/link/set,0,address=02:00:0a:63:00:01,speed=10', "unknown parameter 'speed'"),
]


class RawClient:
    """A telemetry connection that sends bytes as they are."""

    def __init__(self, gw):
        self.c = ft.TelemetryClient(gw.prefix)

    def send(self, raw):
        """The reply, decoded from UTF-8 JSON (either failing fails the
        test): {command: value}."""
        self.c.sock.send(raw)
        return json.loads(self.c.sock.recv(self.c.max_len).decode('utf-8'))

    def close(self):
        self.c.close()


class TelemetryHostile(ft.GatewayTestCase):
    def test_hostile_parameters(self):
        gw = self.start({}, ft.BASE_OPTS)
        c = RawClient(gw)
        self.addCleanup(c.close)
        before = ft.config_lines(c.c)
        stats_before = c.send(b'/fou/stats')['/fou/stats']
        for raw, want in HOSTILE:
            reply = c.send(raw)
            self.assertEqual(len(reply), 1, raw)
            r = next(iter(reply.values()))
            self.assertIsInstance(r, dict, (raw, reply))
            self.assertEqual(sorted(r), ['errno', 'error'], (raw, r))
            self.assertIn(want, r['error'], raw)
            self.assertLess(r['errno'], 0, raw)
            # and the connection still answers
            self.assertEqual(c.send(b'/fou/ports')['/fou/ports']['count'], 3, raw)
        self.assertEqual(ft.config_lines(c.c), before, 'a refused command changed something')
        self.assertEqual(c.send(b'/fou/stats')['/fou/stats'], stats_before)
        # a good command still works after all that
        self.assertEqual(c.send(b'/fou/route/add,10.5.0.0/16,dev=1,via=192.168.1.2'),
                         {'/fou/route/add': {'status': 'ok'}})
        gw.signal(signal.SIGTERM)
        run = gw.wait(timeout=30)
        self.assertHealthy(run)

    def test_socket_permissions(self):
        """Only the gateway's user reaches the socket: the runtime directory
        is 0700 and owned by it; the socket is not writable by others."""
        gw = self.start({}, ft.BASE_OPTS)
        c = RawClient(gw)
        self.addCleanup(c.close)
        rdir = ft.runtime_dir(gw.prefix)
        st = os.stat(rdir)
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o700, oct(st.st_mode))
        self.assertEqual(st.st_uid, os.geteuid())
        sock = os.stat(os.path.join(rdir, 'dpdk_telemetry.v2'))
        self.assertTrue(stat.S_ISSOCK(sock.st_mode))
        self.assertEqual(sock.st_uid, os.geteuid())
        self.assertFalse(sock.st_mode & stat.S_IWOTH, oct(sock.st_mode))
        gw.signal(signal.SIGTERM)
        self.assertHealthy(gw.wait(timeout=30))


if __name__ == '__main__':
    ft.main()
