#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Configuring the running gateway through its telemetry socket.

- A gateway started with only --port 5555:ipip is brought to the demo's
  full transmit setup (links, addresses, neighbours, FOU ports, tunnels,
  routes) by telemetry commands while the Linux captures loop on its
  ports; tshark finds what it forwards and encapsulates right. Its
  /fou/config, saved as a --config file, starts a second gateway in the
  same state (the same /fou/config) that forwards the captures exactly as
  config/demo.conf does.
- Thousands of add/del cycles of FOU ports, neighbours, tunnels and routes
  while the pcap PMD replays traffic without end: no crash, every command
  answered, every mbuf back, rx = tx + drops, not one packet lost of the
  flow whose route never changed, and no packet leaves through a tunnel
  after its delete returned (every other cycle deletes the tunnel while
  its route is in use: a tunnel freed before its route is unlinked and a
  grace period has passed sends its packets out unencapsulated, which
  this catches).
- Errors name the bad parameter and change nothing."""
import os
import signal
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402
from fou_testlib import fou, v4  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.layers.inet import IP, UDP, ICMP  # noqa: E402
from scapy.packet import Raw  # noqa: E402

DEMO_CONF = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'config',
                         'demo.conf')
CHURN_CYCLES = int(os.environ.get('FOU_CHURN_CYCLES', '2000'))


def conf_statements(path):
    """(name, arg) of a config file's statements."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                name, arg = (x.strip() for x in line.split('=', 1))
                out.append((name, arg))
    return out


def command(name, arg, verb='add'):
    """The telemetry command of a statement: names with '-' take '_'."""
    if name in ('link', 'sport-range', 'icmp-rate'):
        verb = 'set'
    return '/fou/%s/%s,%s' % (name.replace('-', '_'), verb, arg)


def infinite(path):
    return path + ',infinite_rx=1'


class TelemetryControl(ft.GatewayTestCase):
    def client(self, gw):
        c = ft.TelemetryClient(gw.prefix)
        self.addCleanup(c.close)
        return c

    def demo_run(self, opts):
        """The demo's captures through a gateway until it is idle; its
        outputs decoded by tshark, and its summary."""
        run = self.run_gw({0: ft.data_file('linux-6.1-all.pcap'),
                           1: ft.data_file('inside-replies.pcap')}, opts)
        self.assertHealthy(run)
        fields = ['eth.src', 'eth.dst', 'ip.src', 'ip.dst', 'ip.ttl', 'ip.proto', 'udp.srcport',
                  'udp.dstport', 'ipv6.src', 'ipv6.dst', 'ipv6.hlim', 'icmp.type', 'frame.len']
        return run, [ft.tshark_fields(run.outputs[p], fields) for p in (0, 1)]

    def test_telemetry_builds_the_demo_and_config_restarts_it(self):
        gw = self.start({0: infinite(ft.data_file('linux-6.1-all.pcap')),
                         1: infinite(ft.data_file('inside-replies.pcap'))},
                        ['--port', '5555:ipip'])
        c = self.client(gw)
        stmts = [s for s in conf_statements(DEMO_CONF) if s != ('port', '5555:ipip')]
        for name, arg in stmts:
            self.assertEqual(c.cmd(command(name, arg)), {'status': 'ok'}, (name, arg))
        # the running configuration: the demo's statements, nothing else
        saved = ft.config_lines(c)
        want = {('%s = %s' % s).lower() for s in conf_statements(DEMO_CONF)}
        got = {line.lower().replace(',mtu=1500', '') for line in saved
               if not line.startswith(('sport-range = ', 'icmp-rate = '))}
        self.assertEqual(got, want)
        self.assertIn('sport-range = 32768-60999', saved)
        self.assertIn('icmp-rate = 1000,burst=50', saved)
        self.assertEqual(len(saved), len(want) + 2, saved)
        # forwarding and encapsulation now happen as configured
        def enough():
            st = c.cmd('/fou/stats')
            return st if st['tx_by_port']['0'] > 100 and st['tx_by_port']['1'] > 100 else None
        self.assertTrue(ft.wait_for(enough, 30), c.cmd('/fou/stats'))
        gw.signal(signal.SIGTERM)
        run = gw.wait(timeout=30)
        self.assertEqual(run.rc, 0, run.describe())
        self.assertEqual(run.summary.accounting[3], 'ok', run.describe())
        self.assertEqual(run.summary.mbufs[2], 'ok', run.describe())
        self.check_live_output(run)

        path = self.path('saved.conf')
        with open(path, 'w') as f:
            f.write('\n'.join(saved) + '\n')
        # restarted from /fou/config: the same state ...
        gw2 = self.start({}, ['--config', path])
        self.assertEqual(ft.config_lines(self.client(gw2)), saved)
        gw2.signal(signal.SIGTERM)
        self.assertEqual(gw2.wait(timeout=30).rc, 0)
        # ... and the same forwarding as config/demo.conf
        run_saved, out_saved = self.demo_run(['--config', path])
        run_demo, out_demo = self.demo_run(['--config', os.path.normpath(DEMO_CONF)])
        for attr in ('rx', 'drops', 'decap_port', 'tunnels', 'tunnels_rx', 'icmp'):
            self.assertEqual(getattr(run_saved.summary, attr), getattr(run_demo.summary, attr),
                             attr)
        # what they forwarded; how often each asked for 10.99.0.3 is timing
        self.assertEqual(*[{p: n - len(r.own[p]) for p, n in r.summary.tx.items()}
                           for r in (run_saved, run_demo)])
        self.assertEqual(out_saved, out_demo)
        self.assertEqual(len(out_demo[0]), 18)
        self.assertEqual(len(out_demo[1]), 55)

    def check_live_output(self, run):
        """What the telemetry-configured gateway sent while the captures
        looped (the first frames of each port, decoded by tshark): on port
        1 the decapsulated pings to the demo's next hops, on port 0 the
        replies in FOU toward the peer, no tshark error."""
        nh_macs = {'02:00:00:01:00:04', '02:00:00:01:00:47', '02:00:00:01:00:41'}
        rows = ft.tshark_fields(run.outputs[1], ['eth.src', 'eth.dst', 'ip.dst', 'ipv6.dst'],
                                prefs=['-c', '2000'])
        self.assertGreater(len(rows), 100)
        for r in rows:
            self.assertEqual(r['eth.src'], ['02:00:c0:a8:01:01'])
            self.assertIn(r['eth.dst'][0], nh_macs)
            self.assertIn((r['ip.dst'] or r['ipv6.dst'])[0],
                          {'192.168.4.1', '192.168.47.1', 'fd00:41::1', '10.99.0.3'})
        rows = ft.tshark_fields(run.outputs[0], ['eth.src', 'eth.dst', 'ip.src', 'ip.dst',
                                                 'udp.dstport'],
                                fou_ports=ft.FOU_LUA_PORTS, prefs=['-c', '2000'])
        self.assertGreater(len(rows), 100)
        for r in rows:
            self.assertEqual((r['eth.src'], r['eth.dst']),
                             (['02:00:0a:63:00:01'], ['52:54:00:63:00:02']))
            self.assertEqual((r['ip.src'][0], r['ip.dst'][0]), ('10.99.0.1', '10.99.0.2'))
            self.assertIn(r['udp.dstport'][0], {'5555', '5556', '5557'})

    def test_errors_name_the_parameter_and_change_nothing(self):
        gw = self.start({}, ft.BASE_OPTS)
        c = self.client(gw)
        before = ft.config_lines(c)
        bad = [
            ('/fou/port/add,0:ipip', "UDP port '0'"),
            ('/fou/port/add,5555:ipip', 'UDP port 5555 is already'),
            ('/fou/port/add,5560:bogus', "unknown protocol 'bogus'"),
            ('/fou/port/add,5560:ipip,x=1', "unknown parameter 'x'"),
            ('/fou/port/del,5560', 'UDP port 5560 is not a FOU port'),
            ('/fou/port/del,5555:gre', 'has protocol 4, not 47'),
            ('/fou/addr/add,7,10.1.0.1/24', 'no DPDK port 7'),
            ('/fou/addr/del,0,10.99.0.1/16', 'is not on port 0'),
            ('/fou/route/add,10.5.0.0/16', 'missing dev='),
            ('/fou/route/add,10.5.0.1/16,dev=1', 'host bits set'),
            ('/fou/route/add,10.5.0.0/16,dev=1,via=10.9.9.9', 'not on a network of port 1'),
            ('/fou/route/del,10.5.0.0/16', 'no route to 10.5.0.0/16'),
            ('/fou/route/del,192.168.4.0/24,dev=0', 'no route to 192.168.4.0/24 with dev=0 '
             '(there are: dev 1 via 192.168.1.2 metric 0)'),
            ('/fou/route/del,192.168.4.0/24,via=192.168.1.9', 'via=192.168.1.9'),
            ('/fou/route/del,192.168.1.0/24', 'comes with an address'),
            ('/fou/neigh/add,192.168.1.2,dev=1,lladdr=02:00:00:00:00:09', 'exists'),
            ('/fou/neigh/add,192.168.1.9,dev=1', 'missing lladdr'),
            ('/fou/neigh/del,192.168.1.2,dev=1,lladdr=02:00:00:00:00:09', 'lladdr'),
            ('/fou/neigh/del,192.168.1.99,dev=1', 'no neighbour 192.168.1.99'),
            ('/fou/tunnel/add,t1,type=ipip,local=10.99.0.1', 'missing remote='),
            ('/fou/tunnel/add,t1,type=ipip,local=10.99.0.1,remote=10.99.0.2,ttl=300',
             "ttl '300'"),
            ('/fou/tunnel/add,t1,type=ipip,local=10.99.0.1,remote=10.99.0.2,ttl=1,ttl=2',
             "'ttl' given twice"),
            ('/fou/tunnel/del,nope', "no tunnel 'nope'"),
            ('/fou/link/set,0,mtu=10', "mtu '10'"),
            ('/fou/sport_range/set,5-1', 'source port range 5-1'),
            ('/fou/icmp_rate/set,x', "'x' is not a number"),
            ('/fou/routes,offset=-1', "offset: '-1'"),
            ('/fou/routes,offset=1,offset=2', "'offset' given twice"),
            ('/fou/stats,lcore=9999', 'lcore'),
            ('/fou/config,x', "unknown parameter 'x'"),
            ('/fou/limits/set,tunnels=2048', 'limits can only be set at start'),
            # a quote and a backslash in the reply would break its JSON, and
            # so would DPDK's escaping of bytes from 0x80 up (UTF-8 here)
            ('/fou/port/add,"\\', "'??' is not UDPPORT:PROTO"),
            ('/fou/tunnel/del,café', "no tunnel 'caf??'"),
            ('/fou/tunnel/del,x\x7fy\u00ff', "no tunnel 'x?y??'"),
        ]
        for cmd, want in bad:
            r = c.cmd(cmd)
            self.assertIn('error', r, cmd)
            self.assertIn(want, r['error'], cmd)
            self.assertLess(r['errno'], 0, cmd)
        self.assertEqual(ft.config_lines(c), before)
        gw.signal(signal.SIGTERM)
        self.assertEqual(gw.wait(timeout=30).rc, 0)

    def test_refused_commands_keep_config_loadable(self):
        """Each of these would leave a state whose /fou/config does not start
        a gateway (a route's gateway or a tunnel's remote made a local
        address, the network of routes' gateways deleted): refused, naming
        the route or tunnel, and the saved config starts the same state."""
        gw = self.start({}, ft.BASE_OPTS)
        c = self.client(gw)
        ok = '/fou/tunnel/add,t1,type=ipip,local=10.99.0.1,remote=10.99.0.2,encap-dport=5555'
        refused = [
            ('/fou/addr/add,1,192.168.1.2/24',
             '192.168.1.2 is the gateway of the route to 192.168.4.0/24'),
            ('/fou/addr/add,0,fd00:1::2/128', 'fd00:1::2 is the gateway of the route to '
             'fd00:41::/64'),
            ('/fou/addr/add,0,10.99.0.2/24', '10.99.0.2 is the remote of tunnel t1'),
            ('/fou/addr/del,1,192.168.1.1/24', 'the route to 192.168.4.0/24 via 192.168.1.2 '
             'needs address 192.168.1.1/24 (delete the route first)'),
            ('/fou/addr/del,1,fd00:1::1/64', 'the route to fd00:41::/64 via fd00:1::2'),
        ]
        self.assertEqual(c.cmd(ok), {'status': 'ok'})
        before = ft.config_lines(c)
        replies = [c.cmd(cmd) for cmd, _ in refused]
        saved = ft.config_lines(c)
        path = self.path('saved.conf')
        with open(path, 'w') as f:
            f.write('\n'.join(saved) + '\n')
        gw.signal(signal.SIGTERM)
        self.assertEqual(gw.wait(timeout=30).rc, 0)
        gw2 = self.start({}, ['--config', path])
        try:
            c2 = self.client(gw2)
        except (RuntimeError, OSError):
            self.fail('the saved config does not start:\n' + gw2.wait(timeout=30).describe())
        self.assertEqual(ft.config_lines(c2), saved)
        gw2.signal(signal.SIGTERM)
        self.assertEqual(gw2.wait(timeout=30).rc, 0)
        for (cmd, want), r in zip(refused, replies):
            self.assertEqual(r.get('errno'), -16, (cmd, r))
            self.assertIn(want, r['error'], cmd)
        self.assertEqual(saved, before)

    def test_limits_at_start_only(self):
        """The table sizes of --limits: /fou/config shows the keys that are not
        the default (first: they are taken before the tables are made), the
        startup line the sizes, /fou/limits/set is refused, and the saved
        config starts a gateway with the same sizes."""
        gw = self.start({}, ft.BASE_OPTS + ['--limits', 'tunnels=16,neigh=64',
                                            '--limits', 'routes6=1000'])
        c = self.client(gw)
        saved = ft.config_lines(c)
        self.assertEqual(saved[0], 'limits = tunnels=16,routes6=1000,neigh=64')
        r = c.cmd('/fou/limits/set,tunnels=32')
        self.assertEqual(r, {'error': 'limits can only be set at start', 'errno': -16})
        self.assertEqual(ft.config_lines(c), saved)
        path = self.path('saved.conf')
        with open(path, 'w') as f:
            f.write('\n'.join(saved) + '\n')
        gw.signal(signal.SIGTERM)
        run = gw.wait(timeout=30)
        self.assertEqual(run.rc, 0, run.describe())
        self.assertRegex(run.stdout, r'(?m)^tables: tunnels 16, routes4 65536, routes6 1000, '
                         r'neigh 64: \d+\.\d MiB$')
        gw2 = self.start({}, ['--config', path])
        c2 = self.client(gw2)
        self.assertEqual(ft.config_lines(c2), saved)
        gw2.signal(signal.SIGTERM)
        self.assertEqual(gw2.wait(timeout=30).rc, 0)

    def test_tables_are_paged(self):
        """More routes and FOU ports than a reply holds: every page within
        telemetry's limits, all of them together the whole table; a delete
        goes from the listing and from /fou/config."""
        gw = self.start({}, ft.BASE_OPTS)
        c = self.client(gw)
        n = 300
        for i in range(n):
            self.assertEqual(c.cmd('/fou/route/add,10.%d.%d.0/24,dev=1,via=192.168.1.2'
                                   % (i // 256 + 1, i % 256)), {'status': 'ok'})
        routes, count = c.pages('/fou/routes')
        self.assertEqual(count, len(routes))
        prefixes = [r['prefix'] for r in routes]
        self.assertEqual(len(set(prefixes)), len(prefixes))
        for i in range(n):
            self.assertIn('10.%d.%d.0/24' % (i // 256 + 1, i % 256), prefixes)
        # 203 FOU ports: two pages, keyed by UDP port
        for p in range(7000, 7200):
            self.assertEqual(c.cmd('/fou/port/add,%d:gre' % p), {'status': 'ok'})
        first = c.cmd('/fou/ports')
        self.assertEqual((first['count'], first['offset'], first['next']), (203, 0, 128))
        second = c.cmd('/fou/ports,offset=128')
        self.assertNotIn('next', second)
        ports = {k: v for page in (first, second) for k, v in page.items() if k.isdigit()}
        self.assertEqual(sorted(map(int, ports)), [5555, 5556, 5557] + list(range(7000, 7200)))
        self.assertEqual(ports['7100'], {'family': 4, 'proto': 'gre', 'ipproto': 47, 'decap': 0})
        lines = ft.config_lines(c)
        self.assertEqual(c.cmd('/fou/route/del,10.1.5.0/24,dev=1,via=192.168.1.2'),
                         {'status': 'ok'})
        self.assertEqual(len(ft.config_lines(c)), len(lines) - 1)
        self.assertNotIn('route = 10.1.5.0/24,dev=1,via=192.168.1.2', ft.config_lines(c))
        gw.signal(signal.SIGTERM)
        self.assertEqual(gw.wait(timeout=30).rc, 0)

    # --- churn under traffic --------------------------------------------------

    PEER = ft.IP_PEER

    def churn_cycle_frames(self):
        """The frames the pcap PMD replays without end, in this order:
        0: FOU ipip from the peer to 192.168.4.1, routed the whole run
           (out of port 1; nothing else leaves there);
        1: IPv4 to 192.168.100.1, routed into the tunnel of the moment;
        2: IPv4 to 192.168.101.1, routed by a route that comes and goes
           (out of port 0 via the peer, plain);
        3: FOU to UDP 6000, a FOU port that comes and goes;
        then frames dropped at once (for another MAC), so that the outputs
        stay small."""
        eth = dict(src=ft.MAC_PEER, dst=ft.MAC_P0)
        plain = lambda dst: (Ether(**eth) / IP(src='10.99.0.2', dst=dst, ttl=64) /
                             ICMP(id=1, seq=1) / Raw(b'x' * 32))
        frames = [fou(5555, v4(dst='192.168.4.1')), plain('192.168.100.1'),
                  plain('192.168.101.1'), fou(6000, v4(dst='192.168.102.1'))]
        other = Ether(src=ft.MAC_PEER, dst='02:00:00:00:99:99') / IP(src='10.99.0.2',
                                                                     dst='192.168.4.1')
        return frames + [other] * 60

    def test_churn_under_traffic(self):
        frames = self.churn_cycle_frames()
        cycle = len(frames)
        opts = ['--link', '0,address=' + ft.MAC_P0, '--link', '1,address=' + ft.MAC_P1,
                '--addr', '0,10.99.0.1/16', '--addr', '1,192.168.1.1/24',
                '--port', '5555:ipip', '--port', '5556:gre',
                '--neigh', '10.99.0.2,dev=0,lladdr=' + ft.MAC_PEER,
                '--neigh', '192.168.1.4,dev=1,lladdr=02:00:00:01:00:04',
                '--route', '192.168.4.0/24,dev=1,via=192.168.1.4']
        gw = self.start({0: infinite(ft.write_pcap(self.path('in0.pcap'), frames))}, opts)
        c = self.client(gw)
        remotes = []
        for i in range(CHURN_CYCLES):
            remote = '10.99.%d.%d' % (1 + i // 250, 1 + i % 250)
            remotes.append(remote)
            # odd cycles delete the tunnel with its route still in use (the
            # delete takes the route with it)
            for cmd in ('/fou/neigh/add,%s,dev=0,lladdr=02:00:00:00:%02x:%02x'
                        % (remote, 1 + i // 250, 1 + i % 250),
                        '/fou/tunnel/add,churn%d,type=gre,local=10.99.0.1,remote=%s,key=%d,'
                        'encap-dport=5556' % (i % 3, remote, i),
                        '/fou/route/add,192.168.100.0/24,dev=churn%d' % (i % 3),
                        '/fou/port/add,6000:gre',
                        '/fou/route/del,192.168.100.0/24,dev=churn%d' % (i % 3)
                        if i % 2 == 0 else '/fou/stats',
                        '/fou/tunnel/del,churn%d' % (i % 3),
                        '/fou/neigh/del,%s,dev=0' % remote,
                        '/fou/route/add,192.168.101.0/24,dev=0,via=10.99.0.2',
                        '/fou/port/del,6000',
                        '/fou/route/del,192.168.101.0/24'):
                r = c.cmd(cmd)
                if cmd != '/fou/stats':
                    self.assertEqual(r, {'status': 'ok'}, '%s (cycle %d)' % (cmd, i))
            if i % 250 == 0:
                self.assertEqual(c.cmd('/fou/stats/reset'), {'status': 'ok'})
        self.assertTrue(gw.running())
        gw.signal(signal.SIGTERM)
        run = gw.wait(timeout=60)
        self.assertEqual(run.rc, 0, run.describe())
        s = run.summary
        self.assertEqual(s.accounting[3], 'ok', run.describe())
        self.assertEqual(s.mbufs[2], 'ok', run.describe())
        # the flow whose route never changed lost nothing: every one that
        # came in (rx counts whole cycles, then the start of one) left
        rx = s.rx[0]
        self.assertGreater(rx, cycle * 100)
        self.assertEqual(s.tx[1] - len(run.own[1]), rx // cycle + (1 if rx % cycle > 0 else 0),
                         run.describe())
        self.assertEqual(s.rx.get(1, 0), 0)
        self.check_tunnel_order(run.outputs[0], {r: i for i, r in enumerate(remotes)})

    def test_settings_change_whole_under_traffic(self):
        """icmp-rate turned off and on, and the sport range moved, while
        every packet makes an ICMP error or is encapsulated: a worker never
        sees half a setting (a rate of 0 from one change with the check of
        another divided by zero and killed the gateway), and every source
        port is in one of the ranges set."""
        eth = dict(src=ft.MAC_PEER, dst=ft.MAC_P0)
        frames = [Ether(**eth) / IP(src='10.99.0.2', dst='192.168.4.%d' % (1 + i),
                                    ttl=1 if i % 2 else 64) / UDP(sport=1000 + i, dport=7) /
                  Raw(b'x' * 32) for i in range(4)]
        # and frames dropped at once (for another MAC): small outputs
        frames += [Ether(src=ft.MAC_PEER, dst='02:00:00:00:99:99') /
                   IP(src='10.99.0.2', dst='192.168.4.1')] * 60
        opts = ['--sport-range', '1000-1009',
                '--link', '0,address=' + ft.MAC_P0, '--addr', '0,10.99.0.1/24',
                '--addr', '1,192.168.1.1/24', '--port', '5555:ipip',
                '--neigh', '10.99.0.2,dev=0,lladdr=' + ft.MAC_PEER,
                '--tunnel', 't1,type=ipip,local=10.99.0.1,remote=10.99.0.2,encap-dport=5555',
                '--route', '192.168.4.0/24,dev=t1']
        gw = self.start({0: infinite(ft.write_pcap(self.path('in0.pcap'), frames))}, opts)
        c = self.client(gw)
        for i in range(CHURN_CYCLES // 2):
            for cmd in ('/fou/icmp_rate/set,0', '/fou/sport_range/set,1000-1009',
                        '/fou/icmp_rate/set,1000000,burst=1000000',
                        '/fou/sport_range/set,2000-2009'):
                self.assertEqual(c.cmd(cmd), {'status': 'ok'}, '%s (cycle %d)' % (cmd, i))
        self.assertTrue(gw.running())
        gw.signal(signal.SIGTERM)
        run = gw.wait(timeout=60)
        self.assertEqual(run.rc, 0, run.describe())
        self.assertEqual(run.summary.accounting[3], 'ok', run.describe())
        self.assertEqual(run.summary.mbufs[2], 'ok', run.describe())
        self.assertGreater(run.summary.icmp.get('icmp_time_exceeded', 0), 0, run.describe())
        sports = {int(r['udp.srcport'][0]) for r in
                  ft.tshark_fields(run.outputs[0], ['udp.srcport'], checksums=False)
                  if r['udp.srcport']}
        self.assertTrue(sports)
        # a torn range (1000-2009, or 2000 up to 1009 wrapping) would not fit
        self.assertLessEqual(sports, set(range(1000, 1010)) | set(range(2000, 2010)))

    def check_tunnel_order(self, pcap, epoch_of):
        """Port 0's output in the order the worker sent it: GRE-in-FOU
        frames of cycle i's tunnel (outer destination its remote) and plain
        frames of the 192.168.101.0/24 route, which each cycle adds only
        after its tunnel's delete returned. After a plain frame, no frame
        of a tunnel that existed before it may follow. Between them, the
        errors a Linux router sends the peer while a route or the FOU port
        is away: net unreachable about 192.168.100.1 or .101.1, port
        unreachable about UDP 6000 (rate-limited, so not every time)."""
        rows = ft.tshark_fields(pcap, ['ip.src', 'ip.dst', 'udp.dstport', 'icmp.type',
                                       'icmp.code'], checksums=False)
        barrier, last, tunnel_frames, plain_frames = -1, -1, 0, 0
        for n, r in enumerate(rows):
            if r['icmp.type'][:1] == ['3']:
                self.assertEqual(r['ip.src'][0], ft.IP_P0, 'frame %d' % (n + 1))
                self.assertIn((r['icmp.code'][0], r['ip.dst']),
                              (('0', [self.PEER, '192.168.100.1']),
                               ('0', [self.PEER, '192.168.101.1']),
                               ('3', [self.PEER, ft.IP_P0])), 'frame %d' % (n + 1))
                continue
            if r['udp.dstport'] == ['5556']:
                e = epoch_of[r['ip.dst'][0]]
                self.assertGreater(e, barrier, 'frame %d: into tunnel of cycle %d after its '
                                   'delete returned' % (n + 1, e))
                self.assertGreaterEqual(e, last, 'frame %d: tunnels out of order' % (n + 1))
                last = e
                tunnel_frames += 1
            else:
                self.assertEqual(r['ip.dst'], ['192.168.101.1'], 'frame %d' % (n + 1))
                barrier = last
                plain_frames += 1
        self.assertGreater(tunnel_frames, 0)
        self.assertGreater(plain_frames, 0)


if __name__ == '__main__':
    ft.main()
