/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The telemetry commands: arbitrary command lines sent to the gateway's
 * own DPDK telemetry socket, as dpdk-telemetry.py sends them, on the parser
 * targets' gateway whose ports (net_null) run, so that /fou/link/set
 * reaches the ethdev. Telemetry calls the handlers fou_telemetry_register()
 * registered with a struct rte_tel_data, writes it as JSON and frees it,
 * as it does for every client; a handler that leaks, reads out of bounds
 * or misbehaves is caught in its thread like in the fuzzer's.
 *
 * Input: lines "COMMAND[,PARAMS]"; lines that are not /fou commands are
 * skipped. The reply to a /fou command the gateway registered is valid JSON
 * and not null (a handler that failed); the rest is DPDK's. Afterwards every statement
 * /fou/config shows can be deleted (or set back) and the gateway is back to
 * where it started.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_eal.h>

#include "fou_stmt.h"
#include "fuzz.h"

#define FUZZ_LINE_MAX 1024	/* what telemetry reads of a command */
#define FUZZ_REPLY_MAX (16 * 1024 + 64)

static struct fou_gw *gw;
static char base[FUZZ_CFG_MAX];
static const struct fou_tel_cmd *cmds;
static unsigned int nb_cmds;
static int sock = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_tel_connect(void)
{
	static char reply[FUZZ_REPLY_MAX];
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	sock = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	FUZZ_ASSERT(sock >= 0 && connect(sock, (struct sockaddr *)&sun, sizeof(sun)) == 0,
		    "cannot connect to %s", sun.sun_path);
	/* the greeting: version, pid, max_output_len */
	FUZZ_ASSERT(recv(sock, reply, sizeof(reply), 0) > 0, "no telemetry greeting");
}

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	fuzz_eal_init("telemetry", FUZZ_EAL_VDEVS | FUZZ_EAL_TELEMETRY);
	gw = fuzz_gw_new(fuzz_parser_stmts, true);
	/* the ports run: /fou/link/set reaches the ethdev */
	fou_gw_ports_running(gw);
	FUZZ_ASSERT(fou_telemetry_register() == 0, "fou_telemetry_register");
	fou_telemetry_start(gw);
	/* every change is logged at INFO: a line per input would slow the
	 * fuzzer down to what the terminal takes */
	rte_log_set_level_pattern("fou.*", RTE_LOG_WARNING);
	cmds = fou_telemetry_cmds(&nb_cmds);
	fuzz_config_text(gw, base, sizeof(base));
	fuzz_tel_connect();
	return 0;
}

/* --- a JSON syntax check (RFC 8259), enough to say a reply is one ------- */

static const char *fuzz_json_value(const char *p, unsigned int depth);

static const char *
fuzz_json_ws(const char *p)
{
	return p + strspn(p, " \t\r\n");
}

static const char *
fuzz_json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\')
			continue;
		p++;
		if (*p == 'u') {
			if (strspn(p + 1, "0123456789abcdefABCDEF") < 4)
				return NULL;
			p += 4;
		} else if (*p == '\0' || strchr("\"\\/bfnrt", *p) == NULL) {
			return NULL;
		}
	}
	return p + 1;
}

static const char *
fuzz_json_number(const char *p)
{
	const char *s = p;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p += strspn(p, "0123456789");
	else
		return NULL;
	if (*p == '.') {
		if (strspn(p + 1, "0123456789") == 0)
			return NULL;
		p += 1 + strspn(p + 1, "0123456789");
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (strspn(p, "0123456789") == 0)
			return NULL;
		p += strspn(p, "0123456789");
	}
	return p > s ? p : NULL;
}

/* Members of an object (pairs) or array, between open and close. */
static const char *
fuzz_json_list(const char *p, char close, bool pairs, unsigned int depth)
{
	p = fuzz_json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (pairs) {
			p = fuzz_json_string(fuzz_json_ws(p));
			if (p == NULL)
				return NULL;
			p = fuzz_json_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		p = fuzz_json_value(p, depth + 1);
		if (p == NULL)
			return NULL;
		p = fuzz_json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *
fuzz_json_value(const char *p, unsigned int depth)
{
	p = fuzz_json_ws(p);
	if (depth > 16)
		return NULL;
	switch (*p) {
	case '{':
		return fuzz_json_list(p, '}', true, depth);
	case '[':
		return fuzz_json_list(p, ']', false, depth);
	case '"':
		return fuzz_json_string(p);
	case 't':
		return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
	case 'f':
		return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
	case 'n':
		return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
	default:
		return fuzz_json_number(p);
	}
}

/* --- one command ---------------------------------------------------------- */

static bool
fuzz_tel_registered(const char *line, size_t size)
{
	const char *comma = memchr(line, ',', size);
	size_t len = comma != NULL ? (size_t)(comma - line) : size;
	unsigned int i;

	for (i = 0; i < nb_cmds; i++)
		if (strlen(cmds[i].cmd) == len && strncmp(cmds[i].cmd, line, len) == 0)
			return true;
	return false;
}

static void
fuzz_tel_line(const char *line, size_t len)
{
	static char reply[FUZZ_REPLY_MAX];
	const char *end, *colon;
	ssize_t n;

	FUZZ_ASSERT(send(sock, line, len, 0) == (ssize_t)len, "cannot send to telemetry");
	/* libFuzzer's timeout alarm interrupts the wait now and then */
	do
		n = recv(sock, reply, sizeof(reply) - 1, 0);
	while (n < 0 && errno == EINTR);
	FUZZ_ASSERT(n > 0, "telemetry closed the connection after %.*s", (int)len, line);
	reply[n] = '\0';
	/* DPDK 22.11 echoes an unknown command as it came, control
	 * characters and all: only our replies are checked */
	if (!fuzz_tel_registered(line, len))
		return;
	end = fuzz_json_value(reply, 0);
	FUZZ_ASSERT(end != NULL && *fuzz_json_ws(end) == '\0', "reply to %.*s is not JSON: %s",
		    (int)len, line, reply);
	colon = strchr(reply, ':');
	FUZZ_ASSERT(colon != NULL && strncmp(fuzz_json_ws(colon + 1), "null", 4) != 0,
		    "%.*s: the handler failed (null reply)", (int)len, line);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i = 0;

	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = (nl != NULL ? (size_t)(nl - data) : size) - i;
		const char *line = (const char *)data + i;

		/* a command is a C string of at most what telemetry reads */
		if (len > 4 && len < FUZZ_LINE_MAX && strncmp(line, "/fou", 4) == 0 &&
		    memchr(line, '\0', len) == NULL)
			fuzz_tel_line(line, len);
		i += len + 1;
	}
	fuzz_config_restore(gw, base);
	return 0;
}
