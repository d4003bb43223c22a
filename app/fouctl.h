/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fouctl: the operator's command for a running dpdk-fou, over its DPDK
 * telemetry socket. Plain sockets and libjansson, no DPDK: it runs where
 * the gateway runs without sharing its memory. Shared between fouctl.c
 * (commands and tables), fouctl_tel.c (the socket) and fouctl_stats.c
 * (counters and the live view).
 */
#ifndef FOUCTL_H
#define FOUCTL_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#define FOUCTL_EXIT_FAIL 1	/* the gateway refused, or is not there */
#define FOUCTL_EXIT_USAGE 2	/* a bad command line: nothing was sent */

struct fouctl {
	/* options */
	const char *prefix;	/* --file-prefix, as EAL's */
	const char *socket;	/* --socket: overrides the prefix's path */
	bool json;		/* --json: the gateway's JSON instead of text */
	double timeout;		/* --timeout: seconds to wait for readiness */
	/* the connection, opened by the first command */
	int fd;
	char path[108];		/* sizeof(sun_path) */
	char *buf;
	size_t buf_len;
};

void fouctl_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void fouctl_usage_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
double fouctl_now(void);
/* An option's number of seconds (fractions allowed); a usage error if not. */
double fouctl_seconds(const char *opt, const char *s, bool zero_ok);

/*
 * The value of one command's reply ({"CMD": VALUE}), a new reference.
 * Waits while the gateway answers that it is not ready (up to --timeout);
 * any other error reply, no reply or no gateway ends fouctl with a message.
 */
json_t *fouctl_cmd(struct fouctl *c, const char *cmd, const char *param);
/* The connection closed, if one was opened. */
void fouctl_close(struct fouctl *c);
/*
 * Every page of a paged table (offset=N, "next") merged into one object
 * shaped as a single page: {"count": N, "offset": 0, entries...}.
 */
json_t *fouctl_table(struct fouctl *c, const char *cmd);
/* The same of a table that takes an argument first (cmd,ARG,offset=N). */
json_t *fouctl_table_arg(struct fouctl *c, const char *cmd, const char *arg);

/* Lenient getters: a field a gateway leaves out reads as 0 or NULL. */
uint64_t fouctl_u64(const json_t *o, const char *key);
const char *fouctl_str(const json_t *o, const char *key);
/* A table's entries are the keys other than its page header. */
bool fouctl_is_entry(const char *key);
void fouctl_print_json(const json_t *v);

/*
 * Text tables: rows of cells, the first column left-aligned, the others
 * right-aligned, each as wide as its widest cell.
 */
struct fouctl_tab {
	unsigned int ncol, nrow, cap;
	char **cell;
};
void fouctl_tab_init(struct fouctl_tab *t, unsigned int ncol);
void fouctl_tab_row(struct fouctl_tab *t, ...);	/* ncol strings */
void fouctl_tab_print(struct fouctl_tab *t, const char *indent);
void fouctl_tab_free(struct fouctl_tab *t);

/* fouctl stats [reset | -w SECONDS [-c COUNT]]: argv[0] is "stats". */
int fouctl_stats(struct fouctl *c, int argc, char **argv);

#endif /* FOUCTL_H */
