#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""meson install into a temporary DESTDIR (issue 19, "install and run as a
service"): every file in its place with its mode and nothing else (no
test), the systemd unit pointing at the installed binary and accepted by
systemd-analyze, the man pages rendering without a warning and naming every
statement, option and telemetry command, and the installed gateway running
the installed example configuration. A second install keeps the
configuration an operator edited.

The paths are the build's configured ones (meson introspect), under DESTDIR:
a --prefix /usr/local build is checked as it is, nothing is reconfigured.
The build directory's install log (what ninja uninstall removes) is kept as
it was.

    /usr/bin/python3 tests/functional/test_install.py --build BUILDDIR \\
        --gateway BUILDDIR/app/dpdk-fou --data tests/data [-v]
"""
import argparse
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fou_testlib as ft  # noqa: E402

SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
BUILD = None

# Safety nets only: an install takes about a second, a gateway run as long as
# its idle exit.
INSTALL_TIMEOUT = 120


def introspect():
    """The build's options, installed files and targets, in one call (each
    one takes meson a second)."""
    p = subprocess.run(['meson', 'introspect', BUILD, '--buildoptions', '--installed',
                        '--targets'], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(p.stdout)


def meson_install(destdir):
    """meson install of BUILD into destdir; the build's install log as it
    was before, so that `ninja uninstall` still removes a real install."""
    log = os.path.join(BUILD, 'meson-logs', 'install-log.txt')
    saved = None
    if os.path.exists(log):
        with open(log, 'rb') as f:
            saved = f.read()
    try:
        return subprocess.run(['meson', 'install', '-C', BUILD, '--destdir', destdir,
                               '--no-rebuild'], capture_output=True, text=True,
                              timeout=INSTALL_TIMEOUT)
    finally:
        if saved is None:
            if os.path.exists(log):
                os.unlink(log)
        else:
            with open(log, 'wb') as f:
                f.write(saved)


def troff_text(path):
    """A man page's source with the escapes that matter here undone: \\-
    is '-', font changes and \\& are nothing."""
    with open(path) as f:
        text = f.read()
    text = text.replace('\\-', '-').replace('\\&', '')
    return re.sub(r'\\f(\[[^]]*\]|\(..|.)', '', text)


def man_sections(text):
    """{SECTION NAME: its source} of a man page."""
    sections, name = {}, None
    for line in text.splitlines():
        m = re.match(r'\.SH\s+"?([^"]+?)"?\s*$', line)
        if m:
            name = m[1]
            sections[name] = []
        elif name is not None:
            sections[name].append(line)
    return {k: '\n'.join(v) for k, v in sections.items()}


def tp_heads(section):
    """The first words of the .TP entries' tags (the line after .TP)."""
    lines = section.splitlines()
    heads = []
    for i, line in enumerate(lines[:-1]):
        if line.startswith('.TP'):
            words = lines[i + 1].split()
            if words and words[0].startswith('.'):
                words = words[1:]
            heads += [w.strip('"') for w in words]
    return heads


class Install(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='fou-install-')
        cls.destdir = os.path.join(cls.tmp, 'root')
        intro = introspect()
        opts = cls.options = {o['name']: o['value'] for o in intro['buildoptions']}
        prefix = opts['prefix']
        cls.prefix = prefix
        cls.sbindir = os.path.join(prefix, opts['sbindir'])
        cls.sysconfdir = os.path.join(prefix, opts['sysconfdir'])
        cls.datadir = os.path.join(prefix, opts['datadir'])
        cls.mandir = os.path.join(prefix, opts['mandir'])
        cls.installed = intro['installed']
        cls.targets = {t['name'] for t in intro['targets']}
        cls.units = [d for d in cls.installed.values() if d.endswith('/dpdk-fou.service')]
        cls.install = meson_install(cls.destdir)
        cls.help = None

    @classmethod
    def tearDownClass(cls):
        if ft.Config.keep:
            sys.stderr.write('\nkept %s\n' % cls.tmp)
        else:
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.assertEqual(self.install.returncode, 0,
                         'meson install failed\n' + self.install.stdout + self.install.stderr)

    def dest(self, path):
        return os.path.join(self.destdir, path.lstrip('/'))

    def expected(self):
        """{installed path: mode} of everything meson install must put down."""
        want = {
            os.path.join(self.sbindir, 'dpdk-fou'): 0o755,
            os.path.join(self.mandir, 'man8', 'dpdk-fou.8'): 0o644,
            os.path.join(self.datadir, 'dpdk-fou', 'dpdk-fou.conf'): 0o644,
            os.path.join(self.datadir, 'dpdk-fou', 'dpdk-fou.env'): 0o644,
            os.path.join(self.sysconfdir, 'dpdk-fou', 'dpdk-fou.conf'): 0o644,
            os.path.join(self.sysconfdir, 'default', 'dpdk-fou'): 0o644,
        }
        # the fouctl part brings the binary and its page (app/meson.build)
        if 'fouctl' in self.targets:
            want[os.path.join(self.sbindir, 'fouctl')] = 0o755
        if 'fouctl' in self.targets or os.path.exists(os.path.join(SOURCE, 'doc', 'man',
                                                                   'fouctl.8')):
            want[os.path.join(self.mandir, 'man8', 'fouctl.8')] = 0o644
        for unit in self.units:
            want[unit] = 0o644
        return want

    def unit_path(self):
        if self.options['systemdsystemunitdir'] == 'no':
            self.skipTest('configured without the systemd unit')
        self.assertEqual(len(self.units), 1, 'the unit is installed once: %s' % self.units)
        return self.units[0]

    def unit(self):
        """The installed unit as {(section, key): [values]}."""
        conf, section = {}, None
        with open(self.dest(self.unit_path())) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith(('#', ';')):
                    continue
                m = re.match(r'\[(\w+)\]$', line)
                if m:
                    section = m[1]
                    continue
                key, _, value = line.partition('=')
                conf.setdefault((section, key), []).append(value)
        return conf

    # -- the files

    def test_files_and_modes(self):
        """Every file where the configuration says, with its mode; nothing
        else: no test binary, no library, no header."""
        want = self.expected()
        got = {}
        for root, _, files in os.walk(self.destdir):
            for name in files:
                path = os.path.join(root, name)
                got['/' + os.path.relpath(path, self.destdir)] = \
                    stat.S_IMODE(os.lstat(path).st_mode)
        self.assertEqual(got, want)
        for path in want:
            self.assertTrue(stat.S_ISREG(os.lstat(self.dest(path)).st_mode), path)
        # what the installed configuration starts as is the example, as is
        # the example of the environment file with the configured paths
        with open(os.path.join(SOURCE, 'config', 'dpdk-fou.conf')) as f:
            conf = f.read()
        for path in (os.path.join(self.sysconfdir, 'dpdk-fou', 'dpdk-fou.conf'),
                     os.path.join(self.datadir, 'dpdk-fou', 'dpdk-fou.conf')):
            with open(self.dest(path)) as f:
                self.assertEqual(f.read(), conf, path)

    def test_unit_is_in_the_systemd_dir(self):
        unit = self.unit_path()
        configured = self.options['systemdsystemunitdir']
        if configured:
            self.assertEqual(os.path.dirname(unit), configured)
            return
        p = subprocess.run(['pkg-config', '--variable=systemdsystemunitdir', 'systemd'],
                           capture_output=True, text=True)
        want = p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else \
            os.path.join(self.prefix, 'lib', 'systemd', 'system')
        self.assertEqual(os.path.dirname(unit), want)

    def test_unit_runs_the_installed_gateway(self):
        """ExecStart is the installed binary with the environment file's
        arguments; the environment file names the installed configuration."""
        u = self.unit()
        gateway = os.path.join(self.sbindir, 'dpdk-fou')
        self.assertEqual(u[('Service', 'ExecStart')],
                         [gateway + ' $DPDK_FOU_EAL -- $DPDK_FOU_ARGS'])
        self.assertTrue(os.access(self.dest(gateway), os.X_OK))
        env = os.path.join(self.sysconfdir, 'default', 'dpdk-fou')
        self.assertEqual(u[('Service', 'EnvironmentFile')], ['-' + env])
        conf = os.path.join(self.sysconfdir, 'dpdk-fou', 'dpdk-fou.conf')
        self.assertEqual(u[('Service', 'Environment')], ['"DPDK_FOU_ARGS=--config %s"' % conf])
        with open(self.dest(env)) as f:
            text = f.read()
        values = dict(re.findall(r'^(DPDK_FOU_\w+)="([^"]*)"$', text, re.M))
        self.assertEqual(sorted(values), ['DPDK_FOU_ARGS', 'DPDK_FOU_EAL'])
        self.assertEqual(values['DPDK_FOU_ARGS'], '--config ' + conf)
        self.assertRegex(values['DPDK_FOU_EAL'], r'^-l \S+( -a \S+)+$')
        self.assertNotIn('@', text, 'a path left unsubstituted')
        for (section, key), want in (
                (('Service', 'Type'), ['notify']), (('Service', 'NotifyAccess'), ['main']),
                (('Service', 'Restart'), ['on-failure']),
                (('Service', 'KillSignal'), ['SIGTERM']),
                (('Service', 'LimitMEMLOCK'), ['infinity']),
                (('Install', 'WantedBy'), ['multi-user.target'])):
            self.assertEqual(u.get((section, key)), want, key)
        self.assertIn(('Service', 'TimeoutStopSec'), u)
        # DPDK needs the real /dev (vfio, hugepages): no private one
        self.assertEqual(u.get(('Service', 'PrivateDevices')), ['no'])

    def test_unit_documentation_is_installed(self):
        """Documentation= names man pages that the install puts down."""
        docs = ' '.join(self.unit()[('Unit', 'Documentation')]).split()
        self.assertIn('man:dpdk-fou(8)', docs)
        for doc in docs:
            m = re.fullmatch(r'man:([\w.-]+)\((\d)\)', doc)
            self.assertIsNotNone(m, doc)
            if m[1] == 'fouctl' and 'fouctl' not in self.targets:
                continue    # the fouctl part, with its page, is not in this tree
            page = os.path.join(self.mandir, 'man' + m[2], '%s.%s' % (m[1], m[2]))
            self.assertTrue(os.path.exists(self.dest(page)), page)

    def test_systemd_analyze_verify(self):
        """systemd-analyze verify takes the unit without a warning. It
        checks that ExecStart is an executable, so it reads a copy whose
        paths lead into DESTDIR (--root would want a whole system there)."""
        analyze = shutil.which('systemd-analyze')
        if analyze is None:
            self.skipTest('no systemd-analyze')
        with open(self.dest(self.unit_path())) as f:
            text = f.read()
        for path in (self.sbindir, self.sysconfdir):
            text = text.replace(path + '/', self.dest(path) + '/')
        self.assertIn(self.dest(self.sbindir), text)
        copy = os.path.join(self.tmp, 'verify', 'dpdk-fou.service')
        os.makedirs(os.path.dirname(copy), exist_ok=True)
        with open(copy, 'w') as f:
            f.write(text)
        # man pages are checked apart (fouctl's may not be in this tree)
        p = subprocess.run([analyze, '--man=no', 'verify', copy], capture_output=True,
                           text=True, cwd=self.tmp, timeout=60)
        self.assertEqual((p.returncode, p.stdout + p.stderr), (0, ''))
        # and it does see what is wrong: a misspelt key, a missing binary
        with open(copy, 'w') as f:
            f.write(text.replace('NotifyAccess=', 'NotifyAcess=').replace(
                self.dest(self.sbindir) + '/dpdk-fou', self.dest(self.sbindir) + '/nothing'))
        p = subprocess.run([analyze, '--man=no', 'verify', copy], capture_output=True,
                           text=True, cwd=self.tmp, timeout=60)
        self.assertIn('NotifyAcess', p.stderr)
        self.assertNotEqual(p.returncode, 0, p.stderr)

    # -- the man pages

    def man_pages(self):
        pages = [p for p in self.expected() if re.search(r'/man8/[^/]+\.8$', p)]
        self.assertIn(os.path.join(self.mandir, 'man8', 'dpdk-fou.8'), pages)
        return pages

    def test_man_pages_render_without_warnings(self):
        for page in self.man_pages():
            path = self.dest(page)
            p = subprocess.run(['groff', '-man', '-Tutf8', '-ww', '-z', path],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual((p.returncode, p.stderr), (0, ''), page)
            p = subprocess.run(['man', '--warnings', '-l', path], capture_output=True,
                               text=True, timeout=60, env=dict(os.environ, MANWIDTH='80'))
            self.assertEqual((p.returncode, p.stderr), (0, ''), page)
            text = re.sub('.\b', '', p.stdout)   # no terminal: bold is overstruck
            self.assertIn('\nNAME\n', text)
            self.assertIn('\nSYNOPSIS\n', text)

    def gateway_help(self):
        """(statements, other options) of the installed gateway's --help."""
        if Install.help is None:
            Install.help = self.run_help()
        return Install.help

    def run_help(self):
        prefix = ft.unique_prefix()
        try:
            p = subprocess.run([self.dest(os.path.join(self.sbindir, 'dpdk-fou')), '-l', '0',
                                '--no-huge', '-m', '512', '--no-pci', '--file-prefix', prefix,
                                '--log-level=lib.eal:warning', '--', '--help'],
                               capture_output=True, text=True, timeout=60)
        finally:
            shutil.rmtree(ft.runtime_dir(prefix), ignore_errors=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        stmts_text, _, other_text = p.stdout.partition('Other options:')
        stmts = re.findall(r'^  --([a-z][a-z0-9-]*) ', stmts_text, re.M)
        other = re.findall(r'^  --([a-z][a-z0-9-]*)', other_text, re.M)
        self.assertGreaterEqual(len(stmts), 9, p.stdout)
        self.assertIn('config', other, p.stdout)
        return stmts, other

    def test_man_page_names_every_statement_option_and_command(self):
        stmts, other = self.gateway_help()
        sections = man_sections(troff_text(self.dest(os.path.join(self.mandir, 'man8',
                                                                  'dpdk-fou.8'))))
        for name in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'EAL ARGUMENTS', 'OPTIONS', 'STATEMENTS',
                     'TELEMETRY', 'SIGNALS', 'EXIT STATUS', 'FILES', 'EXAMPLES', 'SEE ALSO'):
            self.assertIn(name, sections)
        self.assertEqual(sorted(set(stmts) - set(tp_heads(sections['STATEMENTS']))), [],
                         'statements without an entry in STATEMENTS')
        self.assertEqual(sorted({'--' + o for o in other} - set(tp_heads(sections['OPTIONS']))),
                         [], 'options without an entry in OPTIONS')
        with open(os.path.join(SOURCE, 'lib', 'fou', 'fou_telemetry.c')) as f:
            commands = set(re.findall(r'\bX\("(/fou/[a-z_/]+)"', f.read()))
        self.assertGreaterEqual(len(commands), 5, 'cannot read the commands of fou_telemetry.c')
        commands |= {'/fou/%s/' % s.replace('-', '_') for s in stmts}
        tel = sections['TELEMETRY']
        self.assertEqual(sorted(c for c in commands if c not in tel), [],
                         'telemetry commands not in TELEMETRY')
        self.assertIn('fouctl', sections['SEE ALSO'])
        self.assertIn('dpdk-dumpcap', sections['SEE ALSO'])

    # -- the example configuration

    def test_example_shows_every_statement(self):
        stmts, _ = self.gateway_help()
        with open(self.dest(os.path.join(self.sysconfdir, 'dpdk-fou', 'dpdk-fou.conf'))) as f:
            used = set(re.findall(r'^([a-z][a-z0-9-]*)\s*=', f.read(), re.M))
        self.assertEqual(sorted(set(stmts) - used), [])

    def test_installed_gateway_takes_the_example(self):
        """The installed binary starts on the installed configuration (two
        pcap ports stand for the NICs) and stops cleanly with every tunnel
        as configured."""
        conf = self.dest(os.path.join(self.sysconfdir, 'dpdk-fou', 'dpdk-fou.conf'))
        with open(conf) as f:
            tunnels = dict(re.findall(r'^tunnel\s*=\s*([^,\s]+),type=(\w+)', f.read(), re.M))
        self.assertGreaterEqual(len(tunnels), 2)
        saved = ft.Config.gateway
        ft.Config.gateway = self.dest(os.path.join(self.sbindir, 'dpdk-fou'))
        rundir = os.path.join(self.tmp, 'run')
        os.makedirs(rundir, exist_ok=True)
        try:
            run = ft.run_gateway(rundir, {}, ['--config', conf], nb_ports=2)
        finally:
            ft.Config.gateway = saved
        self.assertIsNotNone(run.rc, 'the gateway did not stop\n' + run.describe())
        self.assertEqual(run.rc, 0, run.describe())
        # DPDK's own notes may be there (telemetry's legacy socket), the
        # gateway's messages may not
        self.assertNotIn('dpdk-fou:', run.stderr, run.describe())
        self.assertTrue(run.summary.printed, run.describe())
        self.assertEqual(run.summary.accounting[3], 'ok', run.describe())
        self.assertEqual({n: c['type'] for n, c in run.summary.tunnel_conf.items()}, tunnels,
                         run.describe())
        for name, c in run.summary.tunnel_conf.items():
            self.assertIsNone(c['unresolved'], name + '\n' + run.describe())

    # -- reinstalling

    def test_reinstall_keeps_the_operators_files(self):
        """A second install replaces the examples, never the files the
        operator edits; one that is missing is put back."""
        destdir = os.path.join(self.tmp, 'again')
        shutil.copytree(self.destdir, destdir, symlinks=True)
        conf = os.path.join(self.sysconfdir, 'dpdk-fou', 'dpdk-fou.conf')
        env = os.path.join(self.sysconfdir, 'default', 'dpdk-fou')
        example = os.path.join(self.datadir, 'dpdk-fou', 'dpdk-fou.conf')
        edited = 'route = 10.99.0.0/16,dev=1,via=10.0.0.254\n'
        with open(os.path.join(destdir, conf.lstrip('/')), 'w') as f:
            f.write(edited)
        os.unlink(os.path.join(destdir, env.lstrip('/')))
        with open(os.path.join(destdir, example.lstrip('/')), 'w') as f:
            f.write('an older example\n')
        p = meson_install(destdir)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(destdir, conf.lstrip('/'))) as f:
            self.assertEqual(f.read(), edited)
        with open(os.path.join(destdir, env.lstrip('/'))) as f, open(self.dest(env)) as g:
            self.assertEqual(f.read(), g.read())
        with open(os.path.join(destdir, example.lstrip('/'))) as f, \
                open(os.path.join(SOURCE, 'config', 'dpdk-fou.conf')) as g:
            self.assertEqual(f.read(), g.read())


def main():
    global BUILD
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument('--build', required=True, help='the meson build directory')
    ap.add_argument('--gateway', required=True, help='path of the built dpdk-fou')
    ap.add_argument('--data', required=True, help='tests/data directory')
    ap.add_argument('--tshark', default='tshark')
    args, rest = ap.parse_known_args()
    BUILD = os.path.abspath(args.build)
    ft.Config.gateway = os.path.abspath(args.gateway)
    ft.Config.data = os.path.abspath(args.data)
    ft.Config.tshark = args.tshark
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == '__main__':
    main()
