/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fou_config_load() on temporary files: comments, blank lines, statements
 * in file order, and the ways a file can be wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

#define MAX_CALLS 16

/* What the callback saw, and what it should answer. */
struct calls {
	unsigned int n;
	char name[MAX_CALLS][64];
	char arg[MAX_CALLS][256];
	unsigned int fail_at;		/* 1-based call that fails, 0 = none */
	int fail_ret;
	struct fou_gw *gw;		/* apply the statements to it */
};

static int
record(void *ctx, const char *name, const char *arg, struct fou_err *err)
{
	struct calls *c = ctx;

	if (c->n == MAX_CALLS)
		return -E2BIG;
	snprintf(c->name[c->n], sizeof(c->name[0]), "%s", name);
	snprintf(c->arg[c->n], sizeof(c->arg[0]), "%s", arg);
	c->n++;
	if (c->n == c->fail_at) {
		fou_err_set(err, "callback refused %s = %s", name, arg);
		return c->fail_ret;
	}
	/* as the application does: only known statements */
	if (fou_stmt_rank(name) < 0) {
		fou_err_set(err, "unknown statement '%s'", name);
		return -EINVAL;
	}
	if (c->gw != NULL)
		return fou_stmt_apply(c->gw, name, arg, err);
	return 0;
}

static char path[256];

/* Write text to a new temporary file; its name goes to path. */
static void
write_file(const char *text)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (path[0] != '\0')
		unlink(path);
	snprintf(path, sizeof(path), "%s/fou-unit-XXXXXX.conf",
		 dir != NULL && *dir != '\0' ? dir : "/tmp");
	fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int
teardown_file(void **state)
{
	(void)state;
	if (path[0] != '\0')
		unlink(path);
	path[0] = '\0';
	return unit_test_teardown_pool(state);
}

static int
load(const char *text, struct calls *c, struct fou_err *err)
{
	write_file(text);
	strcpy(err->msg, "(no message)");
	return fou_config_load(path, record, c, err);
}

static void
expect_call(const struct calls *c, unsigned int i, const char *name, const char *arg)
{
	if (i >= c->n)
		fail_msg("call %u of %u expected (%s = %s)", i + 1, c->n, name, arg);
	assert_string_equal(c->name[i], name);
	assert_string_equal(c->arg[i], arg);
}

static void
test_config_statements(void **state)
{
	struct calls c = { 0 };
	struct fou_err err;

	(void)state;
	assert_int_equal(load("# dpdk-fou test configuration\n"
			      "\n"
			      "   \n"
			      "port = 5555:ipip\n"
			      "  addr=0,10.0.0.1/24   # the FOU side\n"
			      "\t# an indented comment\n"
			      "route = 10.20.0.0/16,dev=1,via=192.168.1.2\n"
			      "port = 5556:gre\r\n"
			      "neigh = 192.168.1.2,dev=1,lladdr=02:00:00:00:01:02\n"
			      "port = 5557:sit", &c, &err), 0);
	assert_int_equal(c.n, 6);
	expect_call(&c, 0, "port", "5555:ipip");
	expect_call(&c, 1, "addr", "0,10.0.0.1/24");
	/* '=' in the value belongs to the value */
	expect_call(&c, 2, "route", "10.20.0.0/16,dev=1,via=192.168.1.2");
	expect_call(&c, 3, "port", "5556:gre");
	expect_call(&c, 4, "neigh", "192.168.1.2,dev=1,lladdr=02:00:00:00:01:02");
	expect_call(&c, 5, "port", "5557:sit");
}

static void
test_config_empty(void **state)
{
	struct calls c = { 0 };
	struct fou_err err;

	(void)state;
	assert_int_equal(load("", &c, &err), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(load("# nothing\n\n   # at all\n", &c, &err), 0);
	assert_int_equal(c.n, 0);
}

/* A line that is not NAME = VALUE is an error, not something to skip. */
static void
test_config_line_without_equals(void **state)
{
	struct calls c = { 0 };
	struct fou_err err;

	int r;

	(void)state;
	r = load("port = 5555:ipip\nport 5556:gre\naddr = 0,10.0.0.1/24\n", &c, &err);
	if (r != -EINVAL || c.n != 0)
		fail_msg("returned %d (%s) after handing over %u statements; "
			 "'port 5556:gre' must not be skipped", r, err.msg, c.n);
	assert_non_null(strstr(err.msg, path));
}

/* rte_cfgfile keeps 255 characters of a value: a longer one is an error,
 * not a statement that silently lost its end. */
static void
test_config_value_too_long(void **state)
{
	struct calls c = { 0 };
	struct fou_err err;
	char text[400];

	(void)state;
	/* 255 characters of value are kept whole */
	snprintf(text, sizeof(text), "route = %0255d\n", 0);
	assert_int_equal(load(text, &c, &err), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(strlen(c.arg[0]), 255);
	c.n = 0;
	snprintf(text, sizeof(text), "port = 5555:ipip\nroute = %0256d\n", 0);
	assert_int_equal(load(text, &c, &err), -E2BIG);
	assert_int_equal(c.n, 0);
	assert_non_null(strstr(err.msg, ":2: "));
	assert_non_null(strstr(err.msg, "value longer than 255"));
}

static void
test_config_empty_value(void **state)
{
	struct calls c = { 0 };
	struct fou_err err;

	(void)state;
	assert_int_equal(load("port = 5555:ipip\nport =\n", &c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "not NAME = VALUE lines"));
	assert_int_equal(c.n, 0);
}

static void
test_config_section(void **state)
{
	struct calls c = { 0 };
	struct fou_err err;

	(void)state;
	assert_int_equal(load("[fou]\nport = 5555:ipip\n", &c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "sections ([...]) are not used"));
	assert_int_equal(c.n, 0);
	/* also after statements: nothing is applied */
	assert_int_equal(load("port = 5555:ipip\n[more]\naddr = 0,10.0.0.1/24\n", &c, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "sections ([...]) are not used"));
	assert_int_equal(c.n, 0);
}

/* Names are the callback's business; its error stops the loading. */
static void
test_config_unknown_statement(void **state)
{
	struct calls c = { 0 };
	struct fou_err err;

	(void)state;
	assert_int_equal(load("port = 5555:ipip\ntunnels = t1,remote=10.0.0.2\nport = 5556:gre\n",
			      &c, &err), -EINVAL);
	assert_int_equal(c.n, 2);
	expect_call(&c, 1, "tunnels", "t1,remote=10.0.0.2");
	assert_string_equal(err.msg, "unknown statement 'tunnels'");
	/* an empty name is handed over too */
	c.n = 0;
	assert_int_equal(load("= 5555:ipip\n", &c, &err), -EINVAL);
	assert_int_equal(c.n, 1);
	expect_call(&c, 0, "", "5555:ipip");
}

static void
test_config_callback_error_stops(void **state)
{
	struct calls c = { .fail_at = 2, .fail_ret = -EEXIST };
	struct fou_err err;

	(void)state;
	assert_int_equal(load("port = 1:ipip\nport = 2:ipip\nport = 3:ipip\n", &c, &err), -EEXIST);
	assert_int_equal(c.n, 2);
	assert_string_equal(err.msg, "callback refused port = 2:ipip");
}

static void
test_config_missing_file(void **state)
{
	struct calls c = { 0 };
	struct fou_err err = { "" };
	char missing[300];

	(void)state;
	write_file("");
	snprintf(missing, sizeof(missing), "%s.missing", path);
	assert_int_equal(fou_config_load(missing, record, &c, &err), -ENOENT);
	assert_non_null(strstr(err.msg, missing));
	assert_non_null(strstr(err.msg, strerror(ENOENT)));
	assert_int_equal(c.n, 0);
}

/* A directory is not a configuration (fopen() succeeds on one). */
static void
test_config_directory(void **state)
{
	struct calls c = { 0 };
	struct fou_err err = { "" };
	char dir[300];
	int r;

	(void)state;
	write_file("");
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	r = fou_config_load(dir, record, &c, &err);
	if (r != -EISDIR)
		fail_msg("loading the directory %s returned %d (%s), expected %d", dir, r,
			 r == 0 ? "no error" : err.msg, -EISDIR);
	assert_non_null(strstr(err.msg, dir));
	assert_int_equal(c.n, 0);
}

/* The whole standard topology from a file, then traffic through it. */
static void
test_config_gateway(void **state)
{
	static uint8_t out[UNIT_PKT_MAX];
	struct calls c = { 0 };
	struct fou_err err;
	struct unit_spec s;
	struct unit_pkt p;
	uint32_t olen;

	(void)state;
	c.gw = unit_gw_new(NULL);
	assert_int_equal(fou_iface_set(c.gw, RX_PORT, &mac_rx, 1500, &err), 0);
	assert_int_equal(fou_iface_set(c.gw, EG_PORT, &mac_eg, 1500, &err), 0);
	assert_int_equal(load("# the unit test topology\n"
			      "link = 1,mtu=1500\n"
			      "addr = 0,10.0.0.1/24\n"
			      "addr = 1,192.168.1.1/24\n"
			      "neigh = 192.168.1.2,dev=1,lladdr=02:00:00:00:01:02\n"
			      "route = 10.20.0.0/16,dev=1,via=192.168.1.2\n"
			      "port = 5555:ipip\n", &c, &err), 0);
	assert_int_equal(c.n, 6);
	unit_spec_ipip(&s);
	unit_build(&s, &p);
	olen = unit_expect_out_same(&p, &mac_nb4, out);
	EXPECT_FWD(c.gw, p.b, p.len, PORT_IPIP, FOU_INNER_IPV4, out, olen);

	/* a failing statement stops the file and says why */
	c.n = 0;
	assert_int_equal(load("port = 5556:gre\nport = 5555:gre\nport = 5557:sit\n", &c, &err),
			 -EEXIST);
	assert_int_equal(c.n, 2);
	assert_non_null(strstr(err.msg, "UDP port 5555 is already a FOU port"));
	assert_int_equal(fou_port_list(c.gw, NULL, 0), 2);
	fou_gw_free(c.gw);
}

/* fou_config_dump() callback: the statements as the lines of a config file. */
static int
dump_text(void *ctx, const char *name, const char *arg, struct fou_err *err)
{
	char *text = ctx;
	size_t len = strlen(text);

	(void)err;
	snprintf(text + len, 4096 - len, "%s = %s\n", name, arg);
	return strlen(text) < 4095 ? 0 : -E2BIG;
}

/*
 * Addresses on tunnels in a file: applied as the application does (sorted
 * by fou_stmt_order(), file order among equals) they come after their
 * tunnels wherever they are written; the running configuration written
 * back lists them after the tunnels, so that file loads again as it is.
 */
static void
test_config_tunnel_addr(void **state)
{
	static const char text[] =
		"addr = t1,192.168.4.1/30   # before its tunnel\n"
		"route = 192.168.5.0/24,dev=t1\n"
		"addr = g1,fd00:44::1/64\n"
		"tunnel = t1,type=ipip,local=10.0.0.1,remote=10.0.0.2,encap-dport=5555\n"
		"tunnel = g1,type=gre,local=10.0.0.1,remote=10.0.0.3,encap=none\n"
		"addr = 0,10.0.0.1/24\n"
		"port = 5555:gre,family=6\n"
		"port = 5555:ipip,family=4\n";
	static char dump1[4096], dump2[4096];
	struct calls c = { 0 }, c2 = { 0 };
	unsigned int idx[MAX_CALLS], i, j;
	struct fou_err err;
	struct fou_gw *gw;

	(void)state;
	assert_int_equal(load(text, &c, &err), 0);
	assert_int_equal(c.n, 8);
	for (i = 0; i < c.n; i++) {
		for (j = i; j > 0 && fou_stmt_order(c.name[idx[j - 1]], c.arg[idx[j - 1]]) >
				     fou_stmt_order(c.name[i], c.arg[i]); j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	gw = unit_gw_new(NULL);
	assert_int_equal(fou_iface_set(gw, RX_PORT, &mac_rx, 1500, &err), 0);
	for (i = 0; i < c.n; i++)
		UNIT_APPLY(gw, c.name[idx[i]], c.arg[idx[i]]);
	dump1[0] = '\0';
	assert_int_equal(fou_config_dump(gw, dump_text, dump1, &err), 0);
	assert_non_null(strstr(dump1, "tunnel = g1,type=gre,local=10.0.0.1,remote=10.0.0.3,"
			       "encap=none\naddr = t1,192.168.4.1/30\naddr = g1,fd00:44::1/64\n"
			       "route = 192.168.5.0/24,dev=t1\n"));
	/* family=6 only where it is 6, the IPv4 port of a UDP port first */
	assert_non_null(strstr(dump1, "port = 5555:ipip\nport = 5555:gre,family=6\n"));
	fou_gw_free(gw);

	/* written back, it loads in file order */
	c2.gw = unit_gw_new(NULL);
	assert_int_equal(fou_iface_set(c2.gw, RX_PORT, &mac_rx, 1500, &err), 0);
	if (load(dump1, &c2, &err) != 0)
		fail_msg("the written config does not load: %s\n%s", err.msg, dump1);
	dump2[0] = '\0';
	assert_int_equal(fou_config_dump(c2.gw, dump_text, dump2, &err), 0);
	assert_string_equal(dump2, dump1);
	fou_gw_free(c2.gw);

	/* in file order, the first line has no tunnel yet */
	c2.gw = unit_gw_new(NULL);
	c2.n = 0;
	assert_int_equal(load(text, &c2, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "no tunnel 't1'"));
	fou_gw_free(c2.gw);
}

/*
 * IPv6-underlay tunnels written back with what differs from iproute2's
 * defaults only (hoplimit 64, encaplimit 4, tclass and flowlabel 0,
 * probe off every 1000 ms with timeout 3,
 * encap-csum6 on, mode ip6ip6), and loaded again to the same.
 */
static void
test_config_tunnel6(void **state)
{
	static const char text[] =
		"addr = 0,fd00:99::10/64\n"
		"tunnel = a6,type=ip6tnl,mode=ipip6,local=fd00:99::10,remote=fd00:99::2,"
		"hoplimit=64,encap=fou,encap-dport=5560,encap-udp6-csum,probe=on,interval=250,"
		"timeout=5\n"
		"tunnel = b6,type=ip6gre,local=fd00:99::10,remote=fd00:99::2,encaplimit=none,"
		"encap=gue,encap-dport=5561,noencap-csum6,key=42,csum,seq\n"
		"tunnel = c6,type=ip6tnl,mode=any,local=fd00:99::10,remote=fd00:99::3,"
		"hoplimit=inherit,tclass=inherit,flowlabel=inherit,encaplimit=0,encap=none\n"
		"tunnel = d6,type=ip6tnl,local=fd00:99::10,remote=fd00:99::4,hoplimit=9,"
		"tclass=b8,flowlabel=abcde,encap-sport=7,encap-dport=5562,probe=off,"
		"interval=1000,timeout=3\n"
		"route = 10.60.0.0/16,dev=a6\n";
	static char dump1[4096], dump2[4096];
	struct calls c = { 0 };
	struct fou_err err;

	(void)state;
	c.gw = unit_gw_new(NULL);
	assert_int_equal(fou_iface_set(c.gw, RX_PORT, &mac_rx, 1500, &err), 0);
	if (load(text, &c, &err) != 0)
		fail_msg("%s", err.msg);
	dump1[0] = '\0';
	assert_int_equal(fou_config_dump(c.gw, dump_text, dump1, &err), 0);
	assert_non_null(strstr(dump1,
		"tunnel = a6,type=ip6tnl,mode=ipip6,local=fd00:99::10,remote=fd00:99::2,"
		"encap-dport=5560,probe=on,interval=250,timeout=5\n"
		"tunnel = b6,type=ip6gre,local=fd00:99::10,remote=fd00:99::2,encaplimit=none,"
		"noencap-udp6-csum,encap=gue,encap-dport=5561,key=42,csum,seq\n"
		"tunnel = c6,type=ip6tnl,mode=any,local=fd00:99::10,remote=fd00:99::3,"
		"hoplimit=inherit,tclass=inherit,flowlabel=inherit,encaplimit=0,encap=none\n"
		"tunnel = d6,type=ip6tnl,local=fd00:99::10,remote=fd00:99::4,hoplimit=9,"
		"tclass=0xb8,flowlabel=0xabcde,encap-sport=7,encap-dport=5562\n"));
	fou_gw_free(c.gw);

	c = (struct calls){ 0 };
	c.gw = unit_gw_new(NULL);
	assert_int_equal(fou_iface_set(c.gw, RX_PORT, &mac_rx, 1500, &err), 0);
	if (load(dump1, &c, &err) != 0)
		fail_msg("the written config does not load: %s\n%s", err.msg, dump1);
	dump2[0] = '\0';
	assert_int_equal(fou_config_dump(c.gw, dump_text, dump2, &err), 0);
	assert_string_equal(dump2, dump1);
	fou_gw_free(c.gw);
}

#define T(f) cmocka_unit_test_teardown(f, teardown_file)

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_config_statements),
		T(test_config_empty),
		T(test_config_line_without_equals),
		T(test_config_value_too_long),
		T(test_config_empty_value),
		T(test_config_section),
		T(test_config_unknown_statement),
		T(test_config_callback_error_stops),
		T(test_config_missing_file),
		T(test_config_directory),
		T(test_config_gateway),
		T(test_config_tunnel_addr),
		T(test_config_tunnel6),
	};
	int failures;

	(void)argc;
	unit_eal_init(argv[0]);
	failures = cmocka_run_group_tests_name("config", tests, NULL, NULL);
	return unit_eal_fini(failures);
}
