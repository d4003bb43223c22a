#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""fouctl, the operator's command, against running gateways.

- Every statement through `fouctl NAME add|del|set ARG` takes effect (read
  back through telemetry by this script, not by fouctl); a refused one
  prints the gateway's message as `fouctl: MESSAGE`, exits 1 and changes
  nothing; an unknown statement or verb is named.
- Every table (`port|tunnel|route|addr|neigh|lcore show`, `tunnel show
  NAME`, `tunnel health NAME`) lists what telemetry holds, in text and with
  -j as JSON; tables longer than a page (70 routes, 40 tunnels, 130
  statements) are read to the end.
- `fouctl stats` shows the NIC's port counters and the gateway's nonzero
  ones, `stats reset` zeroes them; `stats -w` prints blocks of rates
  without a terminal (no escape codes), JSON lines with -j, ends with
  SIGINT (exit 0), and with a clean error (exit 1) when the gateway stops
  under it.
- `fouctl config` started with --config gives a gateway the same
  /fou/config.
- Without a gateway, with a bad command line, a gateway that is not ready
  (-EAGAIN, retried every 100 ms until --timeout), one that stops
  (-ESHUTDOWN), one that closes the connection or answers nonsense: the
  exit status and message. The readiness cases run against a telemetry
  server written here (a real SEQPACKET socket speaking DPDK's protocol),
  since the gateway's own readiness answers come in another change.
"""
import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou, v4  # noqa: E402

FOUCTL = None
RUN_TIMEOUT = 30

DEMO_CONF = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                                          '..', 'config', 'demo.conf'))


def run(args, timeout=RUN_TIMEOUT):
    """fouctl without a terminal: stdin /dev/null, stdout and stderr piped."""
    return subprocess.run([FOUCTL] + list(args), stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=timeout)


class FouctlCase(ft.GatewayTestCase):
    def ctl(self, gw, *args, json_out=False):
        """A command that must succeed; its stdout (decoded with -j)."""
        p = run(['-p', gw.prefix] + (['-j'] if json_out else []) + list(args))
        self.assertEqual((p.returncode, p.stderr), (0, ''), args)
        return json.loads(p.stdout) if json_out else p.stdout

    def fails(self, args, pattern, rc=1):
        """A command that must fail: exit rc, nothing on stdout, `fouctl:
        MESSAGE` on stderr (and the usage line for rc 2)."""
        p = run(args)
        self.assertEqual(p.returncode, rc, (args, p.stdout, p.stderr))
        self.assertEqual(p.stdout, '', args)
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 2 if rc == 2 else 1, (args, p.stderr))
        self.assertRegex(lines[0], '^fouctl: ' + pattern, args)
        if rc == 2:
            self.assertRegex(lines[1], r'^usage: fouctl ', args)
        return lines[0]

    def client(self, gw):
        c = ft.TelemetryClient(gw.prefix)
        self.addCleanup(c.close)
        return c


class NoGateway(FouctlCase):
    def test_no_gateway_names_prefix_and_path(self):
        prefix = 'fou-func-none-%d' % os.getpid()
        path = os.path.join(ft.runtime_dir(prefix), 'dpdk_telemetry.v2')
        t0 = time.monotonic()
        line = self.fails(['-p', prefix, 'route', 'show'], 'no dpdk-fou is running')
        self.assertLess(time.monotonic() - t0, 5, 'no gateway is reported at once')
        self.assertIn("'%s'" % prefix, line)
        self.assertIn(path, line)
        self.fails(['-s', self.path('nothing'), 'stats'],
                   re.escape('no telemetry socket ' + self.path('nothing')))
        # a socket file nobody listens on: what a killed gateway leaves
        stale = self.path('stale')
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.bind(stale)
        s.close()
        self.fails(['-s', stale, 'config'], 'nothing listens on the telemetry socket: '
                   'dpdk-fou has stopped')

    def test_usage_errors_exit_2_before_connecting(self):
        # the prefix has no gateway: a command that connected would exit 1
        none = ['-p', 'fou-func-none-%d' % os.getpid()]
        cases = [
            ([], 'no command'),
            (['-x', 'stats'], "unknown option '-x'"),
            (['--bogus', 'stats'], "unknown option '--bogus'"),
            (['-t'], '-t needs an argument'),
            (['-t', 'abc', 'stats'], "-t: 'abc' is not a number of seconds"),
            (['-t', '-1', 'stats'], "-t: '-1' is not a number of seconds"),
            (['-p', 'a/b', 'stats'], "-p: 'a/b' is not a file prefix"),
            (['route', 'add'], 'route add needs an argument'),
            (['route', 'add', '10.0.0.0/8,dev=1', 'via=1.2.3.4'], 'route add takes one argument'),
            (['link'], 'link: add, del or set what'),
            (['gro', 'show'], "there is no 'gro show'"),
            (['port', 'frob', '1'], "unknown command 'port frob'"),
            (['a,b', 'add', 'x'], "'a,b' is not a statement name"),
            (['tunnel', 'show', 'a', 'b'], "unexpected 'b' after tunnel show"),
            (['tunnel', 'peer-config'], 'tunnel peer-config needs a tunnel name'),
            (['tunnel', 'peer-config', 'a', 'b'], "unexpected 'b' after tunnel peer-config NAME"),
            (['tunnel', 'peer-config', 'a,offset=1'], "'a,offset=1' is not a tunnel name"),
            (['tunnel', 'health'], 'tunnel health takes one tunnel name'),
            (['route', 'show', 'x'], "unexpected 'x' after route show"),
            (['neigh', 'flush', 'x'], "unexpected 'x' after neigh flush"),
            (['tunnel', 'mtu-probe'], "tunnel mtu-probe takes a tunnel's name"),
            (['tunnel', 'mtu-probe', 'a', 'b'], "tunnel mtu-probe takes a tunnel's name only"),
            (['config', 'x'], "unexpected 'x' after config"),
            (['stats', 'x'], "unexpected 'x' after stats"),
            (['stats', 'reset', 'x'], "unexpected 'x' after stats reset"),
            (['stats', '-w', '0'], "-w: '0' is not a number of seconds above 0"),
            (['stats', '-w'], 'stats -w needs an argument'),
            (['stats', '-c', '2'], 'stats -c needs -w SECONDS'),
            (['stats', '-w', '1', '-c', '0'], "-c: '0' is not a count above 0"),
            (['stats', '-q'], "stats: unknown option '-q'"),
        ]
        for args, want in cases:
            self.fails(none + args, re.escape(want), rc=2)
        p = run(['-h'])
        self.assertEqual(p.returncode, 0)
        self.assertIn('usage: fouctl', p.stdout)
        self.assertIn('stats -w SECONDS', p.stdout)


class WithGateway(FouctlCase):
    def test_statements_tables_and_errors(self):
        frames = [fou(5555, v4(seq=i)) for i in range(5)] + [fou(6000, v4(seq=i))
                                                             for i in range(3)]
        rx = ft.write_pcap(self.path('in0.pcap'), frames)
        gw = self.start({0: rx}, ft.BASE_OPTS + ['--icmp-rate', '0'])
        c = self.client(gw)
        self.assertTrue(ft.wait_for(lambda: c.cmd('/fou/stats')['rx'] >= len(frames), 20))

        # statements: nothing printed, the change in telemetry's view
        stmts = [
            ('port', 'add', '5560:gre'),
            ('port', 'add', '5556:sit,family=6'),
            ('tunnel', 'add', 't1,type=ipip,local=10.99.0.1,remote=10.99.0.2,ttl=64,'
                              'encap-dport=5555'),
            ('addr', 'add', 't1,192.168.5.1/30'),
            ('addr', 'add', '1,192.168.9.1/24'),
            ('route', 'add', '10.5.0.0/16,dev=1,via=192.168.1.2'),
            ('route', 'add', '10.6.0.0/16,dev=t1'),
            ('route', 'add', '10.6.0.0/16,dev=1,via=192.168.1.2,metric=5,weight=3'),
            ('neigh', 'add', '192.168.1.9,dev=1,lladdr=02:00:00:00:00:09'),
            ('link', 'set', '1,mtu=1400'),
            ('sport-range', 'set', '40000-40100'),
            ('icmp-rate', 'set', '100,burst=10'),
            ('gro', 'add', '1,timeout=50'),
        ]
        for s in stmts:
            self.assertEqual(self.ctl(gw, *s), '', s)
        config = ft.config_lines(c)
        for line in ['port = 5560:gre', 'port = 5556:sit,family=6', 'addr = t1,192.168.5.1/30', 'addr = 1,192.168.9.1/24',
                     'route = 10.5.0.0/16,dev=1,via=192.168.1.2', 'route = 10.6.0.0/16,dev=t1',
                     'route = 10.6.0.0/16,dev=1,via=192.168.1.2,metric=5,weight=3',
                     'neigh = 192.168.1.9,dev=1,lladdr=02:00:00:00:00:09',
                     'sport-range = 40000-40100', 'icmp-rate = 100,burst=10',
                     'gro = 1,timeout=50']:
            self.assertIn(line, config)
        self.assertIn('link = 1,address=%s,mtu=1400' % ft.MAC_P1.upper(), config)
        self.assertIn('tunnel = t1,type=ipip,local=10.99.0.1,remote=10.99.0.2,ttl=64,'
                      'encap-dport=5555', config)
        # tunnel peer-config: the far end's commands, a line each (their
        # rules: tests/unit/test_peer.c); -j the pages merged
        lines = self.ctl(gw, 'tunnel', 'peer-config', 't1').splitlines()
        self.assertEqual(lines[:4], [
            'ip fou add port 5555 ipproto 4',
            'ip link add t1 type ipip local 10.99.0.2 remote 10.99.0.1 ttl 64 encap fou '
            'encap-sport auto encap-dport 5555 noencap-csum',
            'ip addr add 192.168.5.2/30 dev t1',
            'ip link set t1 up'], lines)
        self.assertEqual(lines[-2:], ['sysctl -w net.ipv4.ip_forward=1',
                                      'sysctl -w net.ipv4.conf.t1.rp_filter=2'], lines)
        routes = lines[4:-2]
        for net in ('192.168.1.0/24', '192.168.9.0/24', '192.168.4.0/24', '10.5.0.0/16'):
            self.assertIn('ip route add %s dev t1' % net, routes)
        self.assertTrue(all(r.startswith('ip route add ') and ':' not in r and
                            '10.99.0.' not in r for r in routes), routes)
        j = self.ctl(gw, 'tunnel', 'peer-config', 't1', json_out=True)
        self.assertEqual([' '.join(j[str(i)]) for i in range(j['count'])], lines)
        self.assertEqual(j['tunnel'], 't1')
        self.assertEqual(self.ctl(gw, 'port', 'add', '5561:ipip', json_out=True),
                         {'status': 'ok'})
        self.assertEqual(self.ctl(gw, 'port', 'delete', '5561'), '')
        self.assertEqual(self.ctl(gw, 'gro', 'del', '1'), '')
        self.assertEqual(self.ctl(gw, 'addr', 'del', '1,192.168.9.1/24'), '')
        self.assertNotIn('port = 5561:ipip', ft.config_lines(c))
        self.assertNotIn('gro = 1,timeout=50', ft.config_lines(c))

        # refused statements: the gateway's message, exit 1, nothing changed
        before = ft.config_lines(c)
        pre = ['-p', gw.prefix]
        self.fails(pre + ['route', 'add', '10.7.0.1/16,dev=1'], '.*host bits set')
        self.fails(pre + ['port', 'add', '5555:ipip'], 'UDP port 5555 is already')
        self.fails(pre + ['tunnel', 'del', 'nope'], "no tunnel 'nope'")
        self.fails(pre + ['neigh', 'add', '192.168.1.10,dev=1'], 'missing lladdr')
        self.fails(pre + ['route', 'add', '10.7.0.0/16,dev=1,bogus=1'], "unknown parameter 'bogus'")
        self.fails(pre + ['bogus', 'add', 'x'], re.escape(
            "dpdk-fou has no statement 'bogus' (no command /fou/bogus/add)"))
        self.fails(pre + ['link', 'add', '0,mtu=1500'], re.escape(
            "dpdk-fou has no 'link add' (/fou/link/add): link takes set"))
        self.fails(pre + ['icmp-rate', 'del', '1'], re.escape(
            "dpdk-fou has no 'icmp-rate del' (/fou/icmp_rate/del): icmp-rate takes set"))
        self.fails(pre + ['route', 'set', '10.7.0.0/16,dev=1'], re.escape(
            "dpdk-fou has no 'route set' (/fou/route/set): route takes add, del"))
        self.fails(pre + ['tunnel', 'show', 'nope'], "no tunnel 'nope'")
        self.fails(pre + ['tunnel', 'peer-config', 'nope'], "no tunnel 'nope'")
        self.fails(pre + ['tunnel', 'mtu-probe', 'nope'], "no tunnel 'nope'")
        self.fails(pre + ['tunnel', 'mtu-probe', 't1'], re.escape(
            'tunnel t1: MTU probing runs on tunnels with probe=on'))
        self.fails(pre + ['tunnel', 'health', 'nope'], "no tunnel 'nope'")
        self.assertEqual(ft.config_lines(c), before)

        self.check_tables(gw, c)
        self.check_stats(gw, c)

        # help: the running gateway's statements and its words for them
        out = self.ctl(gw, 'help')
        self.assertIn('usage: fouctl', out)
        self.assertRegex(out, r'\n  tunnel add\n      Add a tunnel: NAME,type=')
        self.assertRegex(out, r'\n  sport-range set\n')
        out = self.ctl(gw, 'help', 'route')
        self.assertEqual(re.findall(r'^  (\S+ \S+)$', out, re.M), ['route add', 'route del'])
        self.assertIn('/fou/route/add', self.ctl(gw, 'help', 'route', json_out=True))
        self.fails(pre + ['help', 'bogus'], "dpdk-fou has no statement 'bogus'")

        # the configuration fouctl prints is /fou/config's
        self.assertEqual(self.ctl(gw, 'config').splitlines(), ft.config_lines(c))
        pages, count = c.pages('/fou/config')
        j = self.ctl(gw, 'config', json_out=True)
        self.assertEqual((j['count'], [j[k] for k in j if k.isdigit()]), (count, pages))

    def check_tables(self, gw, c):
        """Each table as text, one line (or block) per entry, and as the
        gateway's JSON with every page."""
        for obj, cmd in [('port', '/fou/ports'), ('tunnel', '/fou/tunnels'),
                         ('route', '/fou/routes'), ('addr', '/fou/addrs'),
                         ('neigh', '/fou/neighs')]:
            entries, count = c.pages(cmd)
            j = self.ctl(gw, obj, 'show', json_out=True)
            self.assertEqual(j['count'], count, obj)
            # a neighbour's age goes on between the two reads
            self.assertEqual([stable(v) for k, v in j.items() if k not in ('count', 'offset')],
                             [stable(e) for e in entries], obj)
            text = self.ctl(gw, obj, 'show')
            self.assertEqual(self.ctl(gw, obj), text, 'show is the default')
            self.assertEqual(self.ctl(gw, obj, 'list'), text)
            first_lines = [l for l in text.splitlines() if not l.startswith(' ')]
            self.assertEqual(len(first_lines), count, (obj, text))
        routes = self.ctl(gw, 'route', 'show').splitlines()
        for line in ['local 10.99.0.1/32 proto kernel', '10.99.0.0/24 dev 0 proto kernel',
                     'broadcast 10.99.0.255/32 dev 0 proto kernel',
                     '10.5.0.0/16 via 192.168.1.2 dev 1 proto static',
                     '10.6.0.0/16 dev t1 proto static',
                     # a second route: its metric and weight, and not in use
                     '10.6.0.0/16 via 192.168.1.2 dev 1 proto static metric 5 weight 3 unused',
                     'fd00:41::/64 via fd00:1::2 dev 1 proto static']:
            self.assertIn(line, routes)
        addrs = self.ctl(gw, 'addr', 'show').splitlines()
        self.assertEqual(addrs, ['inet 10.99.0.1/24 dev 0', 'inet 192.168.1.1/24 dev 1',
                                 'inet6 fd00:1::1/64 dev 1', 'inet 192.168.5.1/30 dev t1'])
        neighs = self.ctl(gw, 'neigh', 'show').splitlines()
        self.assertIn('192.168.1.9 dev 1 lladdr 02:00:00:00:00:09 PERMANENT', neighs)
        self.assertIn('fd00:1::2 dev 1 lladdr %s PERMANENT' % ft.MAC_NH_SIT, neighs)
        ports = self.ctl(gw, 'port', 'show').splitlines()
        self.assertEqual(ports, ['port 5555 ipproto 4 (ipip) decap 5',
                                 'port 5556 ipproto 47 (gre) decap 0',
                                 'port 5556 ipproto 41 (sit) -6 decap 0',
                                 'port 5557 ipproto 41 (sit) decap 0',
                                 'port 5560 ipproto 47 (gre) decap 0'])
        t1 = self.ctl(gw, 'tunnel', 'show', 't1').splitlines()
        self.assertEqual(t1, ['t1: ipip remote 10.99.0.2 local 10.99.0.1 encap fou '
                              'encap-dport 5555 mtu 1472',
                              '    rx packets 0 bytes 0, tx packets 0 bytes 0'])
        self.assertEqual(self.ctl(gw, 'tunnel', 'show', 't1', json_out=True)['name'], 't1')
        # /fou/tunnel/health: t1 does not probe
        self.assertEqual(self.ctl(gw, 'tunnel', 'health', 't1').splitlines()[0],
                         't1: health off, probes every 1000 ms, down after 3 unanswered')
        self.assertEqual(self.ctl(gw, 'tunnel', 'health', 't1', json_out=True)['state'], 'off')
        lcores = self.ctl(gw, 'lcore', 'show').splitlines()
        self.assertEqual(lcores[0], 'lcore 1: tx queue 0, rx queues port 0 queue 0, port 1 queue 0')
        self.assertRegex(lcores[1], r'^    rx \d+ tx \d+ dropped \d+, polls busy \d+ idle \d+ ')
        self.assertEqual(set(self.ctl(gw, 'lcore', 'show', json_out=True)), {'1'})
        # flush: the static neighbours stay
        self.assertIn('flushed', self.ctl(gw, 'neigh', 'flush', json_out=True))
        self.assertEqual(self.ctl(gw, 'neigh', 'flush'), '')
        self.assertIn('192.168.1.9 dev 1 lladdr 02:00:00:00:00:09 PERMANENT',
                      self.ctl(gw, 'neigh', 'show').splitlines())

    def check_stats(self, gw, c):
        """The counters as text: every port's NIC counters, the gateway's
        nonzero ones by name (read between two telemetry reads), then
        zeroed by stats reset."""
        before = c.cmd('/fou/stats')
        text = self.ctl(gw, 'stats')
        after = c.cmd('/fou/stats')
        sections = parse_stats(text)
        for port in ('0', '1'):
            eth = c.cmd('/ethdev/stats,%s' % port)
            rx, tx = sections['port %s' % port]
            self.assertEqual(rx['packets'], eth['ipackets'], port)
            self.assertEqual(rx['bytes'], eth['ibytes'], port)
            self.assertGreaterEqual(eth['opackets'], tx['packets'], port)
        self.assertEqual(sections['port 0'][0]['packets'], 8)
        for title, key in [('drops', 'drops'), ('icmp sent', 'icmp_sent'),
                           ('local stack', 'local'),
                           ('decapsulated by FOU port', 'decap_by_fou_port')]:
            shown = sections.get(title, {})
            for name, v in shown.items():
                self.assertGreater(v, 0, (title, name))
                self.assertTrue(before[key][name] <= v <= after[key][name], (title, name))
            for name, v in before[key].items():
                if v:
                    self.assertIn(name, shown, title)
        self.assertEqual(sections['drops']['fou_port_unknown'], 3)
        self.assertEqual(sections['decapsulated by FOU port'], {'5555': 5})
        self.assertNotIn('tunnel', sections, 'tunnels that carried nothing are left out')
        self.assertRegex(text, r'^rx 8 tx \d+ dropped 3 held \d+, decap 5 \(ipv4 5, ipv6 0\)\n')
        j = self.ctl(gw, 'stats', json_out=True)
        self.assertEqual(set(j), {'/fou/stats', '/fou/tunnels', '/ethdev/stats'})
        self.assertEqual(j['/fou/stats']['drops']['fou_port_unknown'], 3)
        self.assertEqual(set(j['/ethdev/stats']), {'0', '1'})
        self.assertEqual(self.ctl(gw, 'stats', 'reset'), '')
        self.assertEqual(self.ctl(gw, 'stats', 'reset', json_out=True), {'status': 'ok'})
        sections = parse_stats(self.ctl(gw, 'stats'))
        self.assertNotIn('drops', sections)
        self.assertNotIn('decapsulated by FOU port', sections)
        self.assertEqual(sections['port 0'][0]['packets'], 8, 'the NIC counters stay')

    def test_pages_and_config_restarts_the_same_state(self):
        gw = self.start({}, ft.BASE_OPTS)
        c = self.client(gw)
        routes = ['10.%d.0.0/16' % i for i in range(100, 170)]
        for r in routes:
            self.ctl(gw, 'route', 'add', r + ',dev=1,via=192.168.1.2')
        for i in range(40):
            self.ctl(gw, 'tunnel', 'add', 'tun-%d,type=%s,local=10.99.0.1,remote=10.99.0.%d,'
                     'encap-dport=%d' % (i, ('ipip', 'gre', 'sit')[i % 3], 10 + i, 5555 + i % 3))
        self.ctl(gw, 'addr', 'add', 'tun-3,172.16.3.1/30')
        self.ctl(gw, 'route', 'add', '172.17.0.0/16,dev=tun-3')
        self.ctl(gw, 'link', 'set', '0,mtu=1400')
        self.ctl(gw, 'gro', 'add', '1')

        entries, count = c.pages('/fou/routes')
        self.assertGreater(count, 64 + 6)
        shown = self.ctl(gw, 'route', 'show').splitlines()
        self.assertEqual(len(shown), count)
        for r in routes:
            self.assertIn('%s via 192.168.1.2 dev 1 proto static' % r, shown)
        self.assertEqual(len(self.ctl(gw, 'route', 'show', json_out=True)), count + 2)
        names = [l.split(':')[0] for l in self.ctl(gw, 'tunnel', 'show').splitlines()
                 if not l.startswith(' ')]
        self.assertEqual(names, ['tun-%d' % i for i in range(40)])
        self.assertEqual(self.ctl(gw, 'tunnel', 'show', 'tun-39').split(':')[0], 'tun-39')

        saved = self.ctl(gw, 'config')
        lines = saved.splitlines()
        self.assertGreater(len(lines), 2 * 40, 'more than two pages of /fou/config')
        self.assertEqual(lines, ft.config_lines(c))
        path = self.path('saved.conf')
        with open(path, 'w') as f:
            f.write(saved)
        gw2 = self.start({}, ['--config', path])
        c2 = self.client(gw2)
        self.assertEqual(ft.config_lines(c2), lines)
        self.assertEqual(self.ctl(gw2, 'config'), saved)

    def test_watch_and_the_gateway_stopping_under_it(self):
        gw = self.start({0: ft.data_file('linux-6.1-all.pcap') + ',infinite_rx=1',
                         1: ft.data_file('inside-replies.pcap') + ',infinite_rx=1'},
                        ['--config', DEMO_CONF])
        self.client(gw)
        p = run(['-p', gw.prefix, 'stats', '-w', '0.2', '-c', '3'])
        self.assertEqual((p.returncode, p.stderr), (0, ''))
        self.assertNotIn('\x1b', p.stdout, 'no escape codes without a terminal')
        blocks = re.split(r'\n(?=\d\d:\d\d:\d\d, per second over )', p.stdout)
        self.assertEqual(len(blocks), 3, p.stdout)
        # traffic loops without end; which interval a busy machine starves
        # the worker in is not up to the test, so: in some interval
        rates = []
        for b in blocks:
            self.assertRegex(b, r'^\d\d:\d\d:\d\d, per second over \d+\.\d\d s: rx \S+ tx \S+ '
                                r'dropped \S+\n\nport  rx pkt/s  rx bit/s  tx pkt/s  tx bit/s\n')
            rows = {l.split()[0]: l.split()[1:] for l in b.splitlines() if l.strip()}
            rates.append((rows['0'][0], rows.get('fou-ipip', ['0'])[0]))
        self.assertTrue(any(r[0] != '0' and r[1] != '0' for r in rates), p.stdout)
        p = run(['-p', gw.prefix, '-j', 'stats', '-w', '0.2', '-c', '2'])
        self.assertEqual(p.returncode, 0)
        lines = [json.loads(line) for line in p.stdout.splitlines()]
        self.assertEqual(len(lines), 2)
        for r in lines:
            self.assertEqual(set(r['ports']), {'0', '1'})
            self.assertEqual(set(r['tunnels']), {'fou-ipip', 'fou-gre', 'fou-sit'})
            self.assertIn('no_route', r['drops'])
            self.assertGreater(r['interval'], 0)
        self.assertTrue(any(r['ports']['0']['rx_pps'] > 0 and
                            r['tunnels']['fou-ipip']['rx_pps'] > 0 and
                            r['ports']['0']['rx_bps'] > 8 * 60 * r['ports']['0']['rx_pps']
                            for r in lines), lines)

        # SIGINT ends the view between blocks: exit 0
        w = self.watch(gw)
        w.send_signal(signal.SIGINT)
        out, err = w.communicate(timeout=RUN_TIMEOUT)
        self.assertEqual((w.returncode, err), (0, ''))
        # the gateway stopping under it: one clean line, exit 1
        w = self.watch(gw)
        gw.signal(signal.SIGTERM)
        out, err = w.communicate(timeout=RUN_TIMEOUT)
        self.assertEqual(w.returncode, 1, err)
        self.assertRegex(err, r'^fouctl: (dpdk-fou is stopping|dpdk-fou closed the connection '
                              r'during /\S+: it stopped|dpdk-fou did not run /\S+: it is starting '
                              r'or stopping)[^\n]*\n$')
        self.assertEqual(gw.wait(timeout=RUN_TIMEOUT).rc, 0)
        self.fails(['-p', gw.prefix, 'stats'], 'no dpdk-fou is running')

    def watch(self, gw):
        """`stats -w 0.2` running, its first block printed."""
        w = subprocess.Popen([FOUCTL, '-p', gw.prefix, 'stats', '-w', '0.2'],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: w.poll() is None and w.kill())
        self.assertRegex(w.stdout.readline(), r'^\d\d:\d\d:\d\d, per second over ')
        return w


def stable(entry):
    return {k: v for k, v in entry.items() if k != 'age_ms'}


def parse_stats(text):
    """`fouctl stats` as {'port N': (rx, tx), title: {name: value}, 'tunnel': ...}."""
    out = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r'^(port \d+):$', line)
        if m:
            rx = dict(zip(lines[i + 1].split()[1:], map(int, lines[i + 2].split())))
            tx = dict(zip(lines[i + 3].split()[1:], map(int, lines[i + 4].split())))
            out[m.group(1)] = (rx, tx)
            i += 5
            continue
        m = re.match(r'^([a-zA-Z ]+):$', line)
        if m:
            rows = {}
            i += 1
            while i < len(lines) and lines[i].startswith('    '):
                name, v = lines[i].split()
                rows[name] = int(v)
                i += 1
            out[m.group(1)] = rows
            continue
        if line.startswith('tunnel '):
            out['tunnel'] = lines[i + 1:]
        i += 1
    return out


# --- a telemetry server of our own ---------------------------------------------

class FakeTelemetry:
    """A DPDK 22.11 telemetry v2 server on a real SEQPACKET socket: the info
    dict first (greeting False: the connection closed at once), then
    reply(message, n) for the n-th message (a dict or list is sent as
    {command: it}, bytes as they are, None closes the connection)."""

    def __init__(self, path, reply, greeting=None):
        self.reply = reply
        self.received = []
        self.greeting = greeting if greeting is not None else json.dumps(
            {'version': 'DPDK 22.11.11', 'pid': os.getpid(), 'max_output_len': 16384}).encode()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.bind(path)
        self.sock.listen(4)
        self.sock.settimeout(0.1)
        self.stop = False
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            with conn:
                if self.greeting is False:
                    continue
                conn.send(self.greeting)
                while True:
                    msg = conn.recv(1024)
                    if not msg:
                        break
                    msg = msg.decode()
                    self.received.append((time.monotonic(), msg))
                    r = self.reply(msg, len(self.received))
                    if r is None:
                        break
                    if not isinstance(r, bytes):
                        r = json.dumps({msg.split(',')[0]: r}).encode()
                    conn.send(r)

    def close(self):
        self.stop = True
        self.thread.join(5)
        self.sock.close()


NOT_READY = {'error': 'not ready: dpdk-fou is starting', 'errno': -11}
STOPPING = {'error': 'dpdk-fou is stopping', 'errno': -108}


class FakeServer(FouctlCase):
    def serve(self, reply, greeting=None):
        path = self.path('tel.%d' % len(getattr(self, '_servers', [])))
        s = FakeTelemetry(path, reply, greeting)
        self._servers = getattr(self, '_servers', []) + [s]
        self.addCleanup(s.close)
        return s, ['-s', path]

    def test_not_ready_is_retried_every_100ms(self):
        s, sock = self.serve(lambda m, n: NOT_READY if n <= 2 else {'status': 'ok'})
        p = run(sock + ['port', 'add', '5555:ipip'])
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, '', ''))
        self.assertEqual([m for _, m in s.received], ['/fou/port/add,5555:ipip'] * 3)
        gaps = [b[0] - a[0] for a, b in zip(s.received, s.received[1:])]
        self.assertTrue(all(g >= 0.09 for g in gaps), gaps)

    def test_commands_not_yet_registered_are_waited_for(self):
        # the socket exists from EAL's start, the /fou commands a moment
        # later: DPDK answers null for them and lists none
        asked = []

        def reply(m, n):
            if m == '/':
                return ['/', '/info']
            asked.append(m)
            if len(asked) <= 2:
                return b'{"/fou/config": null}'
            return {'count': 1, 'offset': 0, '0': ['port', '5555:ipip']}
        s, sock = self.serve(reply)
        p = run(sock + ['config'])
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, 'port = 5555:ipip\n', ''))
        self.assertEqual([m for _, m in s.received], ['/fou/config,offset=0', '/'] * 2 +
                         ['/fou/config,offset=0'])
        # a DPDK application without them, after --timeout
        _, sock = self.serve(lambda m, n: ['/', '/info'] if m == '/' else
                             b'{"/fou/stats": null}')
        self.fails(sock + ['-t', '0.3', 'stats'],
                   re.escape('no /fou commands after 0.3 s: is it dpdk-fou?'))

    def test_not_ready_until_the_timeout(self):
        s, sock = self.serve(lambda m, n: NOT_READY)
        t0 = time.monotonic()
        self.fails(sock + ['-t', '0.5', 'route', 'show'],
                   re.escape('dpdk-fou is not ready after 0.5 s') + '$')
        self.assertGreaterEqual(time.monotonic() - t0, 0.5)
        # asked again at least once (how often a loaded machine lets it is
        # not the point)
        self.assertGreaterEqual(len(s.received), 2)
        self.assertTrue(all(m == '/fou/routes,offset=0' for _, m in s.received))
        n = len(s.received)
        self.fails(sock + ['-t', '0', 'stats'], re.escape('dpdk-fou is not ready after 0 s'))
        self.assertEqual(len(s.received), n + 1, '-t 0: asked once')

    def test_stopping_closed_and_nonsense(self):
        _, sock = self.serve(lambda m, n: STOPPING)
        self.fails(sock + ['tunnel', 'del', 't1'], 'dpdk-fou is stopping$')
        _, sock = self.serve(lambda m, n: None)
        self.fails(sock + ['route', 'show'],
                   'dpdk-fou closed the connection during /fou/routes: it stopped')
        _, sock = self.serve(lambda m, n: b'{"/fou/config": {"count": 1,')
        self.fails(sock + ['config'], 'the reply to /fou/config is not JSON')
        _, sock = self.serve(lambda m, n: {'x': 1}, greeting=b'hello')
        self.fails(sock + ['config'], '.* is not a DPDK telemetry v2 socket')
        # DPDK's refusal of an 11th client: closed before the greeting
        _, sock = self.serve(lambda m, n: None, greeting=False)
        self.fails(sock + ['config'], 'dpdk-fou closed the connection at once')
        # {"CMD": null} for a command the gateway lists: it did not run it
        _, sock = self.serve(lambda m, n: ['/', '/fou/stats'] if m == '/' else
                             b'{"/fou/stats": null}')
        self.fails(sock + ['stats'], re.escape(
            'dpdk-fou did not run /fou/stats: it is starting or stopping'))
        # an error reply other than "not ready" is not retried
        s, sock = self.serve(lambda m, n: {'error': 'no route to 10.9.0.0/16', 'errno': -3})
        self.fails(sock + ['route', 'del', '10.9.0.0/16'], 'no route to 10.9.0.0/16$')
        self.assertEqual(len(s.received), 1)

    def test_a_table_that_changes_while_read_is_read_again(self):
        pages = {
            # first reading: 3 entries, then 4 on the second page
            1: {'count': 3, 'offset': 0, 'next': 2, '0': {'dev': 0, 'addr': '10.0.0.1/24'},
                '1': {'dev': 0, 'addr': '10.0.1.1/24'}},
            2: {'count': 4, 'offset': 2, 'next': 4, '2': {'dev': 0, 'addr': '10.0.2.1/24'},
                '3': {'dev': 0, 'addr': '10.0.3.1/24'}},
            3: {'count': 4, 'offset': 0, 'next': 2, '0': {'dev': 0, 'addr': '10.0.0.1/24'},
                '1': {'dev': 0, 'addr': '10.0.1.1/24'}},
            4: {'count': 4, 'offset': 2, '2': {'dev': 0, 'addr': '10.0.2.1/24'},
                '3': {'dev': 1, 'addr': 'fd00::1/64'}},
        }
        s, sock = self.serve(lambda m, n: pages[n])
        p = run(sock + ['addr', 'show'])
        self.assertEqual((p.returncode, p.stderr), (0, ''))
        self.assertEqual(p.stdout, 'inet 10.0.0.1/24 dev 0\ninet 10.0.1.1/24 dev 0\n'
                                   'inet 10.0.2.1/24 dev 0\ninet6 fd00::1/64 dev 1\n')
        self.assertEqual([m for _, m in s.received],
                         ['/fou/addrs,offset=%d' % o for o in (0, 2, 0, 2)])


def main():
    global FOUCTL
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument('--fouctl', required=True, help='path of the built fouctl')
    args, rest = ap.parse_known_args()
    FOUCTL = os.path.abspath(args.fouctl)
    sys.argv = [sys.argv[0]] + rest
    ft.main()


if __name__ == '__main__':
    main()
