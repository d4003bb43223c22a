/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fouctl's side of DPDK 22.11 telemetry v2: a SOCK_SEQPACKET Unix socket
 * in the EAL runtime directory, one message per command ("CMD" or
 * "CMD,PARAMS") and one JSON reply per message ({"CMD": VALUE}), after
 * an info dict the server sends first (max_output_len: the longest
 * reply). Every failure ends fouctl here, with a message that names what
 * was asked and where.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fouctl.h"

#define FOUCTL_SOCKET_NAME "dpdk_telemetry.v2"
/* DPDK 22.11 reads at most this many bytes of a command and drops the
 * rest: a longer one would arrive cut, so it is not sent. */
#define FOUCTL_MAX_MSG 1023
/* the info dict fits in what the server's own buffer holds */
#define FOUCTL_INFO_LEN 1024
#define FOUCTL_RETRY_S 0.1
/* Agreed with the gateway: -EAGAIN until its commands work; DPDK's
 * telemetry carries errno values negated. */
#define FOUCTL_NOT_READY (-EAGAIN)
/* A reply never takes long: a command waits at most for each worker's
 * next pass through its loop, so a gateway silent for seconds is stuck. */
#define FOUCTL_REPLY_MIN_S 5.0

/*
 * fouctl ends at its first error from wherever it is, with what it holds
 * still allocated, as a short-lived command may. LeakSanitizer (the ASan
 * build make check runs the tests on) would report that: it checks the
 * paths that finish, and this hook of its interface turns the check off
 * for those that die.
 */
static volatile int fouctl_dying;

int __lsan_is_turned_off(void) __attribute__((used));

int
__lsan_is_turned_off(void)
{
	return fouctl_dying;
}

void
fouctl_die(const char *fmt, ...)
{
	va_list ap;

	fouctl_dying = 1;
	fflush(stdout);
	fputs("fouctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(FOUCTL_EXIT_FAIL);
}

double
fouctl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
fouctl_sleep(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * Where EAL 22.11 puts it (eal_create_runtime_dir): $RUNTIME_DIRECTORY
 * (systemd's RuntimeDirectory=) if set, else /var/run for root and
 * $XDG_RUNTIME_DIR or /tmp for anyone else; then dpdk/PREFIX.
 */
static void
fouctl_socket_path(struct fouctl *c)
{
	const char *dir = getenv("RUNTIME_DIRECTORY");
	int n;

	if (c->socket != NULL) {
		n = snprintf(c->path, sizeof(c->path), "%s", c->socket);
	} else {
		if (dir == NULL)
			dir = getuid() == 0 ? "/var/run" :
			      getenv("XDG_RUNTIME_DIR") != NULL ? getenv("XDG_RUNTIME_DIR") : "/tmp";
		n = snprintf(c->path, sizeof(c->path), "%s/dpdk/%s/%s", dir, c->prefix,
			     FOUCTL_SOCKET_NAME);
	}
	if (n < 0 || (size_t)n >= sizeof(c->path))
		fouctl_die("socket path longer than %zu bytes: %s%s", sizeof(c->path) - 1,
			   c->socket != NULL ? c->socket : "file prefix ",
			   c->socket != NULL ? "" : c->prefix);
}

/* "file prefix 'rte' (no socket /var/run/dpdk/rte/...)": which gateway. */
static const char *
fouctl_which(const struct fouctl *c)
{
	static char s[256];

	if (c->socket != NULL)
		snprintf(s, sizeof(s), "socket %s", c->path);
	else
		snprintf(s, sizeof(s), "file prefix '%s', socket %s", c->prefix, c->path);
	return s;
}

static void __attribute__((noreturn))
fouctl_closed(const struct fouctl *c, const char *cmd)
{
	/* DPDK closes at once a connection beyond its 10 clients */
	if (cmd == NULL)
		fouctl_die("dpdk-fou closed the connection at once: too many telemetry clients? (%s)",
			   fouctl_which(c));
	fouctl_die("dpdk-fou closed the connection during %s: it stopped (%s)", cmd,
		   fouctl_which(c));
}

/* One reply, NUL-terminated in c->buf; what: the command, for messages
 * (NULL: the greeting). */
static size_t
fouctl_recv(struct fouctl *c, const char *what)
{
	ssize_t n;

	do {
		n = recv(c->fd, c->buf, c->buf_len, MSG_TRUNC);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		fouctl_die("no reply to %s from dpdk-fou within %g s (%s)",
			   what != NULL ? what : "the connection",
			   c->timeout > FOUCTL_REPLY_MIN_S ? c->timeout : FOUCTL_REPLY_MIN_S,
			   fouctl_which(c));
	if (n == 0 || (n < 0 && errno == ECONNRESET))
		fouctl_closed(c, what);
	if (n < 0)
		fouctl_die("%s: %s", c->path, strerror(errno));
	if ((size_t)n >= c->buf_len)
		fouctl_die("the reply to %s is longer than the %zu bytes telemetry announced",
			   what != NULL ? what : "the connection",
			   c->buf_len - 1);
	c->buf[n] = '\0';
	return (size_t)n;
}

static void
fouctl_connect(struct fouctl *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	double reply_s = c->timeout > FOUCTL_REPLY_MIN_S ? c->timeout : FOUCTL_REPLY_MIN_S;
	struct timeval tv = { (time_t)reply_s,
			      (suseconds_t)((reply_s - (double)(time_t)reply_s) * 1e6) };
	json_error_t jerr;
	json_t *info, *max;

	fouctl_socket_path(c);
	memcpy(sa.sun_path, c->path, strlen(c->path) + 1);
	c->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		fouctl_die("socket: %s", strerror(errno));
	if (setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		fouctl_die("setsockopt: %s", strerror(errno));
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		if (e == ENOENT && c->socket == NULL)
			fouctl_die("no dpdk-fou is running with file prefix '%s' (no socket %s)",
				   c->prefix, c->path);
		if (e == ENOENT)
			fouctl_die("no telemetry socket %s", c->path);
		if (e == ECONNREFUSED)
			fouctl_die("nothing listens on the telemetry socket: dpdk-fou has stopped (%s)",
				   fouctl_which(c));
		if (e == EACCES || e == EPERM)
			fouctl_die("%s: %s (run fouctl as the gateway's user)", c->path,
				   strerror(e));
		fouctl_die("%s: %s", c->path, strerror(e));
	}
	c->buf_len = FOUCTL_INFO_LEN + 1;
	c->buf = malloc(c->buf_len);
	if (c->buf == NULL)
		fouctl_die("out of memory");
	fouctl_recv(c, NULL);
	info = json_loads(c->buf, 0, &jerr);
	max = info != NULL ? json_object_get(info, "max_output_len") : NULL;
	if (!json_is_integer(max) || json_integer_value(max) <= 0)
		fouctl_die("%s is not a DPDK telemetry v2 socket: it greeted with '%.60s'", c->path,
			   c->buf);
	c->buf_len = (size_t)json_integer_value(max) + 1;
	json_decref(info);
	free(c->buf);
	c->buf = malloc(c->buf_len);
	if (c->buf == NULL)
		fouctl_die("out of memory");
}

/*
 * DPDK answers {"CMD": null} to a command it has no handler for, and to
 * one whose handler failed without a reply. Which one it was, and what
 * the gateway has instead, comes from its list of commands. Returns only
 * when the list has no /fou command at all: the socket exists from EAL's
 * start, the commands a moment later, so that is a gateway starting.
 */
static void
fouctl_unknown(struct fouctl *c, const char *cmd)
{
	json_t *list = fouctl_cmd(c, "/", NULL), *v;
	char name[64], verbs[64] = "";
	bool ours = false;
	const char *slash;
	size_t i, len;
	int n;

	if (!json_is_array(list))
		fouctl_die("dpdk-fou has no command %s", cmd);
	json_array_foreach(list, i, v) {
		if (!json_is_string(v))
			continue;
		if (strcmp(json_string_value(v), cmd) == 0)
			fouctl_die("dpdk-fou did not run %s: it is starting or stopping", cmd);
		ours |= strncmp(json_string_value(v), "/fou/", 5) == 0;
	}
	if (!ours) {
		json_decref(list);
		return;
	}
	/* /fou/NAME/VERB: a statement, named as the operator names it */
	slash = strncmp(cmd, "/fou/", 5) == 0 ? strchr(cmd + 5, '/') : NULL;
	if (slash == NULL || (strcmp(slash, "/add") != 0 && strcmp(slash, "/del") != 0 &&
			      strcmp(slash, "/set") != 0))
		fouctl_die("dpdk-fou has no command %s (an older dpdk-fou?)", cmd);
	len = (size_t)(slash - cmd) + 1;
	n = snprintf(name, sizeof(name), "%.*s", (int)(len - 6), cmd + 5);
	for (i = 0; i < (size_t)n && i < sizeof(name); i++)
		if (name[i] == '_')
			name[i] = '-';
	json_array_foreach(list, i, v) {
		const char *s = json_is_string(v) ? json_string_value(v) : "";

		if (strncmp(s, cmd, len) == 0 && strchr(s + len, '/') == NULL)
			snprintf(verbs + strlen(verbs), sizeof(verbs) - strlen(verbs), "%s%s",
				 verbs[0] != '\0' ? ", " : "", s + len);
	}
	if (verbs[0] == '\0')
		fouctl_die("dpdk-fou has no statement '%s' (no command %s)", name, cmd);
	fouctl_die("dpdk-fou has no '%s %s' (%s): %s takes %s", name, slash + 1, cmd, name,
		   verbs);
}

json_t *
fouctl_cmd(struct fouctl *c, const char *cmd, const char *param)
{
	char msg[FOUCTL_MAX_MSG + 1];
	double give_up = -1;
	bool registered;
	json_error_t jerr;
	json_t *root, *v, *e;
	int len;

	if (c->fd < 0)
		fouctl_connect(c);
	len = param != NULL ? snprintf(msg, sizeof(msg), "%s,%s", cmd, param) :
	      snprintf(msg, sizeof(msg), "%s", cmd);
	if (len < 0 || (size_t)len >= sizeof(msg))
		fouctl_die("%s: the argument is too long (telemetry takes %u bytes a command)", cmd,
			   FOUCTL_MAX_MSG);
	for (;;) {
		ssize_t n = send(c->fd, msg, (size_t)len, MSG_NOSIGNAL);

		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			fouctl_closed(c, cmd);
		if (n < 0)
			fouctl_die("%s: %s", c->path, strerror(errno));
		fouctl_recv(c, cmd);
		root = json_loads(c->buf, 0, &jerr);
		if (root == NULL)
			fouctl_die("the reply to %s is not JSON (%s): %.80s", cmd, jerr.text, c->buf);
		v = json_object_get(root, cmd);
		if (v == NULL)
			fouctl_die("the reply to %s is about something else: %.80s", cmd, c->buf);
		if (json_is_null(v)) {
			if (strcmp(cmd, "/") == 0)
				fouctl_die("dpdk-fou lists no commands");
			json_decref(root);
			root = NULL;
			fouctl_unknown(c, cmd);
			registered = false;
		} else {
			e = json_is_object(v) ? json_object_get(v, "error") : NULL;
			if (e == NULL)
				break;
			if (json_integer_value(json_object_get(v, "errno")) != FOUCTL_NOT_READY)
				fouctl_die("%s", json_is_string(e) ? json_string_value(e) : c->buf);
			registered = true;
		}
		/* the agreed "not ready": the same command again, a while */
		if (give_up < 0)
			give_up = fouctl_now() + c->timeout;
		if (fouctl_now() >= give_up && !registered)
			fouctl_die("no /fou commands after %g s: is it dpdk-fou? (%s)", c->timeout,
				   fouctl_which(c));
		if (fouctl_now() >= give_up)
			fouctl_die("dpdk-fou is not ready after %g s", c->timeout);
		json_decref(root);
		fouctl_sleep(FOUCTL_RETRY_S);
	}
	json_incref(v);
	json_decref(root);
	return v;
}

void
fouctl_close(struct fouctl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->buf);
	c->buf = NULL;
}

bool
fouctl_is_entry(const char *key)
{
	return strcmp(key, "count") != 0 && strcmp(key, "offset") != 0 &&
	       strcmp(key, "next") != 0;
}

/* How often a table may change under fouctl before it gives up reading it. */
#define FOUCTL_TABLE_TRIES 5

/*
 * Pages are read one command after another, and the table may change in
 * between: a page whose count differs from the first's starts the reading
 * again, so that what fouctl prints is one state (as far as counts tell).
 */
json_t *
fouctl_table(struct fouctl *c, const char *cmd)
{
	return fouctl_table_arg(c, cmd, NULL);
}

json_t *
fouctl_table_arg(struct fouctl *c, const char *cmd, const char *arg)
{
	unsigned int tries = 0;
	json_t *all = NULL;
	uint64_t offset = 0, count = 0;
	char param[96];

	for (;;) {
		json_t *page, *v, *next;
		const char *key;

		snprintf(param, sizeof(param), "%s%soffset=%llu", arg != NULL ? arg : "",
			 arg != NULL ? "," : "", (unsigned long long)offset);
		page = fouctl_cmd(c, cmd, param);
		if (!json_is_object(page) || !json_is_integer(json_object_get(page, "count")))
			fouctl_die("the reply to %s is not a page of a table", cmd);
		if (all == NULL) {
			all = json_object();
			count = fouctl_u64(page, "count");
			json_object_set_new(all, "count", json_integer((json_int_t)count));
			json_object_set_new(all, "offset", json_integer(0));
		} else if (fouctl_u64(page, "count") != count) {
			json_decref(page);
			json_decref(all);
			all = NULL;
			offset = 0;
			if (++tries == FOUCTL_TABLE_TRIES)
				fouctl_die("%s changed while it was read, %u times: try again", cmd,
					   tries);
			continue;
		}
		json_object_foreach(page, key, v)
			if (fouctl_is_entry(key))
				json_object_set(all, key, v);
		next = json_object_get(page, "next");
		if (next == NULL) {
			json_decref(page);
			return all;
		}
		if (!json_is_integer(next) || (uint64_t)json_integer_value(next) <= offset)
			fouctl_die("%s: page at offset %llu has a bad next", cmd,
				   (unsigned long long)offset);
		offset = (uint64_t)json_integer_value(next);
		json_decref(page);
	}
}

uint64_t
fouctl_u64(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (json_is_integer(v) && json_integer_value(v) > 0)
		return (uint64_t)json_integer_value(v);
	if (json_is_real(v) && json_real_value(v) > 0)
		return (uint64_t)json_real_value(v);
	return 0;
}

const char *
fouctl_str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

void
fouctl_print_json(const json_t *v)
{
	json_dumpf(v, stdout, JSON_ENCODE_ANY);
	putchar('\n');
}
