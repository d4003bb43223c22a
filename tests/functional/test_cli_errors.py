#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Case 5: command-line and config-file errors. Each run has a valid setup
and a capture that would be forwarded, plus one bad option: the gateway must
exit with status 2, say on stderr which option or statement is wrong (one
message: the first error stops everything), print no summary and send
nothing. Tunnel statements (--tunnel, --route into a tunnel, --sport-range,
--icmp-rate) and their config-file forms are in the same table."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402

# The bad options come after a valid setup (before it for missing arguments,
# which must be last). '{cfg}' is the path of a config file holding the
# test's `config` text, '{tmp}' the test's temporary directory.
IDLE = ['--idle-exit', '500']
T_ENDS = 'type=ipip,local=10.99.0.1,remote=10.99.0.2'
BAD_OPTIONS = {
    # name: (options, config file text or None, strings stderr must hold)
    'port_unknown_protocol': (['--port', '5566:foo'], None,
                              ['--port 5566:foo', "'foo'"]),
    'port_udp_0': (['--port', '0:ipip'], None, ['--port 0:ipip']),
    'port_udp_70000': (['--port', '70000:ipip'], None, ['--port 70000:ipip']),
    'port_protocol_256': (['--port', '5566:256'], None, ['--port 5566:256']),
    'port_protocol_0': (['--port', '5566:0'], None, ['--port 5566:0']),
    'port_no_colon': (['--port', '5566'], None, ['--port 5566']),
    'port_duplicate': (['--port', '5555:gre'], None, ['--port 5555:gre', '5555']),
    # 255 FOU ports fit (FOU_MAX_UDP_PORTS), the 256th does not
    'port_too_many': ([x for p in range(6000, 6253) for x in ('--port', '%d:gre' % p)], None,
                      ['--port 6252:gre']),
    'route_prefix_length_33': (['--route', '10.1.0.0/33,dev=1,via=192.168.1.2'], None,
                               ['--route 10.1.0.0/33,dev=1,via=192.168.1.2']),
    'route_prefix_not_an_address': (['--route', '10.1.0/16,dev=1,via=192.168.1.2'], None,
                                    ['--route 10.1.0/16,dev=1,via=192.168.1.2']),
    'route_prefix_host_bits': (['--route', '10.1.0.1/16,dev=1,via=192.168.1.2'], None,
                               ['--route 10.1.0.1/16,dev=1,via=192.168.1.2']),
    'route_ipv6_prefix_length_129': (['--route', 'fd00:99::/129,dev=1,via=fd00:1::2'], None,
                                     ['--route fd00:99::/129,dev=1,via=fd00:1::2']),
    'addr_bad_prefix_length': (['--addr', '1,192.168.9.1/abc'], None,
                               ['--addr 1,192.168.9.1/abc']),
    'neigh_mac_too_short': (['--neigh', '192.168.1.5,dev=1,lladdr=02:00:00:00:01'], None,
                            ['--neigh 192.168.1.5,dev=1,lladdr=02:00:00:00:01']),
    'neigh_mac_not_hex': (['--neigh', '192.168.1.5,dev=1,lladdr=02:00:00:00:01:zz'], None,
                          ['--neigh 192.168.1.5,dev=1,lladdr=02:00:00:00:01:zz']),
    'neigh_mac_multicast': (['--neigh', '192.168.1.5,dev=1,lladdr=01:00:5e:00:00:01'], None,
                            ['--neigh 192.168.1.5,dev=1,lladdr=01:00:5e:00:00:01']),
    'link_mac_malformed': (['--link', '1,address=02:00:c0:a8:01'], None,
                           ['--link 1,address=02:00:c0:a8:01']),
    'route_unknown_dpdk_port': (['--route', '10.1.0.0/16,dev=7,via=192.168.1.2'], None,
                                ['--route 10.1.0.0/16,dev=7,via=192.168.1.2', '7']),
    'addr_unknown_dpdk_port': (['--addr', '7,10.7.0.1/24'], None, ['--addr 7,10.7.0.1/24']),
    'neigh_unknown_dpdk_port': (['--neigh', '192.168.1.5,dev=7,lladdr=02:00:00:00:01:05'], None,
                                ['--neigh 192.168.1.5,dev=7,lladdr=02:00:00:00:01:05']),
    'link_unknown_dpdk_port': (['--link', '7,mtu=1400'], None, ['--link 7,mtu=1400']),
    'link_mtu_too_small': (['--link', '1,mtu=67'], None, ['--link 1,mtu=67']),
    'route_via_not_connected': (['--route', '10.1.0.0/16,dev=1,via=10.2.2.2'], None,
                                ['--route 10.1.0.0/16,dev=1,via=10.2.2.2', '10.2.2.2']),
    'route_via_on_another_port': (['--route', '10.1.0.0/16,dev=1,via=10.99.0.7'], None,
                                  ['--route 10.1.0.0/16,dev=1,via=10.99.0.7']),
    # another next hop of the same metric is ECMP now: the same route twice
    'route_duplicate': (['--route', '192.168.4.0/24,dev=1,via=192.168.1.2'], None,
                        ['--route 192.168.4.0/24,dev=1,via=192.168.1.2', 'exists']),
    'route_unknown_key': (['--route', '10.1.0.0/16,dev=1,gw=192.168.1.2'], None,
                          ['--route 10.1.0.0/16,dev=1,gw=192.168.1.2', 'gw']),
    'route_missing_dev': (['--route', '10.1.0.0/16,via=192.168.1.2'], None,
                          ['--route 10.1.0.0/16,via=192.168.1.2', 'dev']),
    'addr_duplicate': (['--addr', '0,10.99.0.1/24'], None, ['--addr 0,10.99.0.1/24']),
    'neigh_duplicate': (['--neigh', '192.168.1.2,dev=1,lladdr=02:00:00:00:01:09'], None,
                        ['--neigh 192.168.1.2,dev=1,lladdr=02:00:00:00:01:09']),
    'unknown_option': (['--bogus', 'x'], None, ['--bogus', 'unknown option']),
    'unknown_short_option': (['-x'], None, ['-x', 'unknown option']),
    'unexpected_argument': (['stray'], None, ['stray']),
    'missing_argument_port': (IDLE + ['--port'], None, ['--port', 'argument']),
    'missing_argument_config': (IDLE + ['--config'], None, ['--config', 'argument']),
    'idle_exit_zero': (['--idle-exit', '0'], None, ['--idle-exit 0']),
    'idle_exit_not_a_number': (['--idle-exit', '1s'], None, ['--idle-exit 1s']),
    'no_pdump_with_argument': (['--no-pdump=yes'], None, ['--no-pdump=yes', 'no argument']),
    'burst_zero': (['--burst', '0'], None, ['--burst 0', '1-32']),
    'burst_over_max': (['--burst', '33'], None, ['--burst 33', '1-32']),
    'burst_not_a_number': (['--burst', '8k'], None, ['--burst 8k']),
    'missing_argument_burst': (IDLE + ['--burst'], None, ['--burst', 'argument']),
    'config_missing_file': (['--config', '{cfg}.missing'], None, ['{cfg}.missing']),
    'config_unknown_statement': (['--config', '{cfg}'],
                                 '# FOU ports\nport = 5566:ipip\nporte = 5567:gre\n',
                                 ['{cfg}', 'porte']),
    'config_bad_value': (['--config', '{cfg}'],
                         'port = 5566:ipip\nport = 5567:foo   # typo\n',
                         ['{cfg}', 'port = 5567:foo', "'foo'"]),
    'config_bad_route': (['--config', '{cfg}'],
                         'route = 10.1.0.0/16,dev=1,via=10.2.2.2\n',
                         ['{cfg}', 'route = 10.1.0.0/16,dev=1,via=10.2.2.2']),
    'config_line_without_equals': (['--config', '{cfg}'],
                                   '# command-line syntax by mistake\nport 5567:gre\n',
                                   ['{cfg}', 'port 5567:gre']),
    'config_section': (['--config', '{cfg}'], '[main]\nport = 5567:gre\n', ['{cfg}', 'section']),
    'config_empty_value': (['--config', '{cfg}'], 'port =\n', ['{cfg}']),
    'config_is_a_directory': (['--config', '{tmp}'], None, ['{tmp}']),
    # tunnels, routes into them, source ports, ICMP rate (a representative
    # set: the unit tests have the full matrix)
    'tunnel_unknown_type': (['--tunnel',
                             'tx,%s,encap-dport=5555' % T_ENDS.replace('ipip', 'vxlan')], None,
                            ['--tunnel tx,type=vxlan,', "'vxlan'"]),
    'route_ipv4_into_sit': (['--tunnel', 't6,%s,encap-dport=5557' % T_ENDS.replace('ipip', 'sit'),
                             '--route', '172.16.0.0/16,dev=t6'], None,
                            ['--route 172.16.0.0/16,dev=t6', 'sit', 'IPv6']),
    'route_ipv6_into_ipip': (['--tunnel', 't4,%s,encap-dport=5555' % T_ENDS,
                              '--route', 'fd00:99::/64,dev=t4'], None,
                             ['--route fd00:99::/64,dev=t4', 'ipip', 'IPv4']),
    'tunnel_key_on_ipip': (['--tunnel', 't4,%s,encap-dport=5555,key=5' % T_ENDS], None,
                           ['--tunnel t4,', 'key=5', 'GRE']),
    'tunnel_fou_without_dport': (['--tunnel', 't4,' + T_ENDS], None,
                                 ['--tunnel t4,%s:' % T_ENDS, 'encap-dport']),
    'tunnel_duplicate_name': (['--tunnel', 't1,%s,encap-dport=5555' % T_ENDS,
                               '--tunnel', 't1,type=gre,local=10.99.0.1,remote=10.99.0.3,'
                               'encap-dport=5556'], None,
                              ['--tunnel t1,type=gre,local=10.99.0.1,remote=10.99.0.3', 't1']),
    'tunnel_same_endpoints': (['--tunnel', 'ta,%s,encap-dport=5555' % T_ENDS,
                               '--tunnel', 'tb,%s,encap-dport=5559' % T_ENDS], None,
                              ['--tunnel tb,', 'ta']),
    'tunnel_local_not_ours': (['--tunnel', 't1,type=ipip,local=10.99.0.9,remote=10.99.0.2,'
                               'encap-dport=5555'], None, ['--tunnel t1,', '10.99.0.9']),
    'tunnel_ttl_with_nopmtudisc': (['--tunnel', 't1,%s,encap-dport=5555,ttl=64,nopmtudisc' %
                                    T_ENDS], None, ['--tunnel t1,', 'nopmtudisc']),
    'tunnel_encap_none_with_dport': (['--tunnel', 't1,%s,encap=none,encap-dport=5555' % T_ENDS],
                                     None, ['--tunnel t1,', 'encap-dport']),
    'tunnel_unknown_parameter': (['--tunnel', 't1,%s,encap-dport=5555,bogus=1' % T_ENDS], None,
                                 ['--tunnel t1,', "'bogus'"]),
    'route_unknown_tunnel': (['--route', '172.16.0.0/16,dev=nosuch'], None,
                             ['--route 172.16.0.0/16,dev=nosuch', "'nosuch'"]),
    'route_tunnel_with_via': (['--tunnel', 't4,%s,encap-dport=5555' % T_ENDS,
                               '--route', '172.16.0.0/16,dev=t4,via=10.99.0.2'], None,
                              ['--route 172.16.0.0/16,dev=t4,via=10.99.0.2', 'via']),
    'sport_range_reversed': (['--sport-range', '60000-50000'], None,
                             ['--sport-range 60000-50000']),
    'sport_range_zero': (['--sport-range', '0-100'], None, ['--sport-range 0-100']),
    'icmp_rate_burst_zero': (['--icmp-rate', '10,burst=0'], None,
                             ['--icmp-rate 10,burst=0', 'burst']),
    'config_tunnel_unknown_type': (['--config', '{cfg}'],
                                   'tunnel = tx,%s,encap-dport=5555\n' %
                                   T_ENDS.replace('ipip', 'vxlan'),
                                   ['{cfg}', 'tunnel = tx,type=vxlan', "'vxlan'"]),
    'config_route_unknown_tunnel': (['--config', '{cfg}'],
                                    '# a route into a tunnel nobody made\n'
                                    'route = 172.16.0.0/16,dev=nosuch\n',
                                    ['{cfg}', 'route = 172.16.0.0/16,dev=nosuch', "'nosuch'"]),
    # table sizes: each key's range named; a valid limit too small for the
    # setup fails the statement that does not fit
    'limits_tunnels_over_max': (['--limits', 'tunnels=1048577'], None,
                                ['--limits tunnels=1048577', "tunnels '1048577' is not in "
                                 '0-1048576']),
    'limits_routes4_zero': (['--limits', 'routes4=0'], None,
                            ['--limits routes4=0', "routes4 '0' is not in 1-16777216"]),
    'limits_neigh_not_a_number': (['--limits', 'routes6=10,neigh=many'], None,
                                  ['--limits routes6=10,neigh=many', "neigh 'many'", '1-65536']),
    'limits_unknown_key': (['--limits', 'routes=5'], None, ['--limits routes=5', "'routes'"]),
    'limits_nothing': (['--limits', 'neigh'], None, ['--limits neigh', "unexpected 'neigh'"]),
    'limits_too_small': (['--limits', 'neigh=1'], None,
                         ['--neigh 192.168.1.3,dev=1', 'neighbour table full (at most 1']),
    'config_limits_routes6_over_max': (['--config', '{cfg}'], 'limits = routes6=16777217\n',
                                       ['{cfg}', 'limits = routes6=16777217',
                                        "routes6 '16777217' is not in 1-16777216"]),
    'config_tunnel_duplicate_name': (['--config', '{cfg}'],
                                     'tunnel = t1,%s,encap-dport=5555\n'
                                     'tunnel = t1,%s,encap-dport=5556\n' %
                                     (T_ENDS, T_ENDS.replace('ipip', 'gre')),
                                     ['{cfg}', 'tunnel = t1,type=gre', 't1']),
}


class CommandLineErrors(ft.GatewayTestCase):
    def check_error(self, opts, config, expect):
        cfg = self.path('gw.conf')
        if config is not None:
            with open(cfg, 'w') as f:
                f.write(config)
        opts = [o.replace('{cfg}', cfg).replace('{tmp}', self.tmp) for o in opts]
        expect = [e.replace('{cfg}', cfg).replace('{tmp}', self.tmp) for e in expect]
        # the valid setup first, the bad option last
        run = self.run_gw({0: ft.linux_capture('ipip-nocsum')},
                          ([] if opts[:2] == IDLE else IDLE) + ft.BASE_OPTS + opts,
                          idle_exit=None)
        ctx = '\n' + run.describe()
        self.assertEqual(run.rc, 2, 'exit status' + ctx)
        msgs = [ln for ln in run.stderr.splitlines() if ln.startswith('dpdk-fou:')]
        self.assertEqual(len(msgs), 1, 'one error message' + ctx)
        for e in expect:
            self.assertIn(e, msgs[0], ctx)
        self.assertFalse(run.summary.printed, 'summary printed' + ctx)
        self.assertIsNone(run.summary.mbufs, ctx)
        self.assertEqual(run.summary.rx, {}, ctx)
        self.assertNotIn('worker lcore', run.stdout, 'started' + ctx)
        for port in (0, 1):
            self.assertEqual(ft.frame_count(run.outputs[port]), 0, 'port %d sent' % port)

    def test_valid_setup_runs(self):
        """The setup the error cases start from is valid and forwards."""
        run = self.run_gw({0: ft.linux_capture('ipip-nocsum')}, IDLE + ft.BASE_OPTS,
                          idle_exit=None)
        self.assertCounters(run, rx={0: 11, 1: 0}, tx={0: 0, 1: 9},
                            drops={'neigh_stopped': 2})

    def test_help(self):
        run = self.run_gw({}, ['--help'], idle_exit=None)
        self.assertEqual(run.rc, 0, run.describe())
        for opt in ('--port', '--addr', '--route', '--neigh', '--link', '--config',
                    '--idle-exit', '--no-pdump', '--burst', '--tunnel', '--sport-range', '--icmp-rate',
                    '--limits'):
            self.assertIn(opt, run.stdout)
        self.assertFalse(run.summary.printed)


def _add(name, case):
    setattr(CommandLineErrors, 'test_' + name, lambda self: self.check_error(*case))


for _name, _case in BAD_OPTIONS.items():
    _add(_name, _case)

if __name__ == '__main__':
    ft.main()
