/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The text layer over fou.h: the statement vocabulary shared by the command
 * line (--NAME ARG), config files (NAME = ARG) and telemetry
 * (/fou/NAME/add|del|set,ARG). It parses and calls the control functions
 * of fou.h; nothing below it calls up into it.
 */
#ifndef FOU_STMT_H
#define FOU_STMT_H

#include <rte_telemetry.h>

#include "fou.h"

#define FOU_STMT_MAX 16		/* statements in the vocabulary, at most */

/* fou_stmt_apply() parses ARG and calls the control operation for NAME. */
int fou_stmt_apply(struct fou_gw *gw, const char *name, const char *arg, struct fou_err *err);
/* Undo a statement: its identifying fields (and, optionally, the others of
 * the add, which must then match). -EOPNOTSUPP for one that is only set
 * (link, sport-range, icmp-rate). */
int fou_stmt_del(struct fou_gw *gw, const char *name, const char *arg, struct fou_err *err);
const char *fou_stmt_del_usage(const char *name);	/* NULL: cannot be deleted */
/* Order in which statements must be applied (links before addresses ...);
 * -1 for an unknown name. */
int fou_stmt_rank(const char *name);
/*
 * Where the statement NAME = ARG goes when statements are applied in
 * dependency order: compare the values (equal ones keep their order). By
 * rank, except an address on a tunnel, which comes after the tunnels and
 * before the routes. -1 for an unknown name.
 */
int fou_stmt_order(const char *name, const char *arg);
/* The statement of that rank, NULL past the last: lists the vocabulary. */
const char *fou_stmt_name(unsigned int rank);
const char *fou_stmt_usage(const char *name);
const char *fou_stmt_help(const char *name);
/* Telemetry's help of /fou/NAME/add (or /set), and of /fou/NAME/del (NULL:
 * only set). */
const char *fou_stmt_tel_help(const char *name, bool del);

/*
 * The limits statement (`limits tunnels=N,routes4=N,routes6=N,neigh=N`, any
 * of the keys): the table sizes, which only a gateway being made takes.
 * fou_limits_parse() applies arg to p (the keys given; the next hops follow
 * the tunnels), or changes nothing and names the bad key and its range.
 * fou_stmt_apply(gw, "limits", ...) refuses: the tables exist.
 */
int fou_limits_parse(const char *arg, struct fou_gw_params *p, struct fou_err *err);

/* Parsers for the pieces of statements, exposed for the app and the tests. */
int fou_parse_u32(const char *s, uint32_t max, uint32_t *out);
int fou_parse_ip(const char *s, bool want_prefix, struct fou_ip *out, struct fou_err *err);
int fou_parse_proto(const char *s, uint8_t *ipproto, struct fou_err *err);
/*
 * Copy a comma-separated argument into buf for strtok_r: -E2BIG when it does
 * not fit (never cut: a cut argument could mean something else), -EINVAL
 * for an empty field (leading, trailing or doubled ','), each named in err.
 */
int fou_parse_fields_copy(char *buf, size_t len, const char *arg, struct fou_err *err);

/*
 * Config file: NAME = ARG lines (rte_cfgfile, '#' comments, no sections).
 * Calls cb for each statement in file order; stops at the first error.
 */
typedef int (*fou_stmt_cb)(void *ctx, const char *name, const char *arg, struct fou_err *err);
int fou_config_load(const char *path, fou_stmt_cb cb, void *ctx, struct fou_err *err);
/*
 * The running configuration as statements that rebuild it (the limits that
 * are not the defaults, every link,
 * sport-range and icmp-rate, then the ports' addresses, neighbours, FOU
 * ports, tunnels, the tunnels' addresses and routes in the order they are
 * held): cb for each, stops at the first non-zero return.
 */
int fou_config_dump(const struct fou_gw *gw, fou_stmt_cb cb, void *ctx, struct fou_err *err);

/*
 * Telemetry: the /fou/... commands (see fou_telemetry.c).
 * fou_telemetry_register() before rte_eal_init() opens the socket (or
 * right after): from then on every command exists and answers {"error": "not ready: dpdk-fou is starting",
 * "errno": -EAGAIN}, changing nothing, so that a client that connects as
 * soon as the socket appears learns to wait instead of getting null.
 * fou_telemetry_start(gw): the commands work on gw. fou_telemetry_stop():
 * from then on they answer {"error": "dpdk-fou is stopping", "errno":
 * -ESHUTDOWN} and change nothing (it waits for one in progress), so that
 * what the caller reads after it is final, and gw may be freed.
 */
int fou_telemetry_register(void);
void fou_telemetry_start(struct fou_gw *gw);
void fou_telemetry_stop(void);

/* The /fou/... commands fou_telemetry_register() registers, in one table
 * (the statements' commands made from the statement table), so that a test
 * can call their handlers as telemetry would. */
struct fou_tel_cmd {
	char cmd[64];
	telemetry_cb fn;
	const char *help;
};
const struct fou_tel_cmd *fou_telemetry_cmds(unsigned int *n);

#endif /* FOU_STMT_H */
