/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Application options. Statements (--port, --addr, --route, --neigh,
 * --link and those of --config files) are collected first, then applied in
 * dependency order, so their order on the command line does not matter;
 * the limits statements before that, into the sizes the gateway is made
 * with. The first error stops everything: the caller exits without
 * starting.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

struct fou_app_stmt {
	int order;		/* fou_stmt_order(): where it goes */
	unsigned int seq;
	char *name;
	char *arg;
	char *origin;		/* how to name it in a message */
};

struct fou_app_stmts {
	struct fou_app_stmt *v;
	unsigned int n, cap;
	const char *cfg_path;	/* while loading a config file */
};

/* Statements come from the library's table: the command line, the config
 * file and telemetry share one vocabulary. */
#define FOU_APP_MAX_STMTS 16

void
fou_app_usage(const char *prgname)
{
	const char *name;
	unsigned int i;

	printf("Usage: %s [EAL options] -- [options]\n"
	       "\n"
	       "Statements (repeatable; the same NAME = ARG lines in a --config file):\n",
	       prgname);
	for (i = 0; (name = fou_stmt_name(i)) != NULL; i++)
		printf("  --%s %s\n      %s\n", name, fou_stmt_usage(name), fou_stmt_help(name));
	printf("Other options:\n"
	       "  --config FILE                read statements from FILE\n"
	       "  --idle-exit MS               stop once no packet has arrived for MS milliseconds\n"
	       "                               (offline runs over pcap files)\n"
	       "  --no-pdump                   do not initialise rte_pdump: dpdk-dumpcap cannot\n"
	       "                               capture from this gateway\n"
	       "  --burst N                    the most packets a worker takes from an RX queue\n"
	       "                               per poll (1-%u, default %u)\n"
	       "  --help                       this text\n", FOU_BURST, FOU_BURST);
}

static int
fou_app_stmt_push(struct fou_app_stmts *s, const char *name, const char *arg, const char *origin)
{
	struct fou_app_stmt *e;

	if (s->n == s->cap) {
		unsigned int cap = s->cap ? 2 * s->cap : 16;
		struct fou_app_stmt *v = realloc(s->v, cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	e = &s->v[s->n];
	e->order = fou_stmt_order(name, arg);
	e->seq = s->n;
	e->name = strdup(name);
	e->arg = strdup(arg);
	e->origin = strdup(origin);
	if (e->name == NULL || e->arg == NULL || e->origin == NULL) {
		free(e->name);
		free(e->arg);
		free(e->origin);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

static void
fou_app_stmts_free(struct fou_app_stmts *s)
{
	unsigned int i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].arg);
		free(s->v[i].origin);
	}
	free(s->v);
	free(s);
}

/* fou_config_load() callback: queue one line of the file. */
static int
fou_app_cfg_stmt(void *ctx, const char *name, const char *arg, struct fou_err *err)
{
	struct fou_app_stmts *s = ctx;
	char origin[512];

	snprintf(origin, sizeof(origin), "%s: %s = %s", s->cfg_path, name, arg);
	if (fou_stmt_rank(name) < 0) {
		char known[128] = "";
		const char *n;
		unsigned int i;

		for (i = 0; (n = fou_stmt_name(i)) != NULL; i++)
			snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
				 i ? ", " : "", n);
		fou_err_set(err, "%s: unknown statement '%s' (expected one of %s)", s->cfg_path,
			    name, known);
		return -EINVAL;
	}
	if (fou_app_stmt_push(s, name, arg, origin) < 0) {
		fou_err_set(err, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int
fou_app_stmt_cmp(const void *a, const void *b)
{
	const struct fou_app_stmt *x = a, *y = b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

enum {
	OPT_CONFIG = 256,
	OPT_IDLE_EXIT,
	OPT_NO_PDUMP,
	OPT_BURST,
	OPT_HELP,
	OPT_STMT,	/* + the statement's rank */
};

/*
 * Read the options and every statement (those of --config files too) and
 * sort the statements into the order they apply in. The limits statements
 * go into *params now, before the gateway is made; without params they
 * stay with the others (and are refused: the gateway exists).
 */
int
fou_app_args_parse(int argc, char **argv, struct fou_gw_params *params,
		   struct fou_app_opts *opts)
{
	struct option longopts[FOU_APP_MAX_STMTS + 6];
	struct fou_app_stmts *stmts;
	struct fou_err err = { "" };
	unsigned int i, n;
	int opt, ret = 0;
	char origin[512];

	for (i = 0; i < FOU_APP_MAX_STMTS && fou_stmt_name(i) != NULL; i++)
		longopts[i] = (struct option){ fou_stmt_name(i), required_argument, NULL,
					       OPT_STMT + (int)i };
	longopts[i++] = (struct option){ "config", required_argument, NULL, OPT_CONFIG };
	longopts[i++] = (struct option){ "idle-exit", required_argument, NULL, OPT_IDLE_EXIT };
	longopts[i++] = (struct option){ "no-pdump", no_argument, NULL, OPT_NO_PDUMP };
	longopts[i++] = (struct option){ "burst", required_argument, NULL, OPT_BURST };
	longopts[i++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
	longopts[i] = (struct option){ NULL, 0, NULL, 0 };

	memset(opts, 0, sizeof(*opts));
	opts->burst = FOU_BURST;
	stmts = calloc(1, sizeof(*stmts));
	if (stmts == NULL) {
		fprintf(stderr, "dpdk-fou: out of memory\n");
		return -1;
	}
	optind = 1;	/* EAL used getopt before us */
	opterr = 0;
	while (ret == 0 && (opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_CONFIG:
			stmts->cfg_path = optarg;
			ret = fou_config_load(optarg, fou_app_cfg_stmt, stmts, &err);
			if (ret < 0)
				fprintf(stderr, "dpdk-fou: --config %s\n", err.msg);
			break;
		case OPT_IDLE_EXIT:
			if (fou_parse_u32(optarg, UINT32_MAX, &opts->idle_exit_ms) < 0 ||
			    opts->idle_exit_ms == 0) {
				fprintf(stderr, "dpdk-fou: --idle-exit %s: not a number of milliseconds (1-%u)\n",
					optarg, UINT32_MAX);
				ret = -1;
			}
			break;
		case OPT_NO_PDUMP:
			opts->no_pdump = true;
			break;
		case OPT_BURST: {
			uint32_t v;

			/* FOU_BURST: the size of the data path's per-burst arrays */
			if (fou_parse_u32(optarg, FOU_BURST, &v) < 0 || v == 0) {
				fprintf(stderr, "dpdk-fou: --burst %s: not a number of packets (1-%u)\n",
					optarg, FOU_BURST);
				ret = -1;
			} else {
				opts->burst = (uint16_t)v;
			}
			break;
		}
		case OPT_HELP:
			fou_app_usage(argv[0]);
			fou_app_stmts_free(stmts);
			return 1;
		case '?':
			/* optopt: the long option's value when its argument is
			 * missing (or given to an option that takes none), the character of an
			 * unknown short option, 0 for an unknown long option */
			if (optopt == OPT_HELP || optopt == OPT_NO_PDUMP)
				fprintf(stderr, "dpdk-fou: option takes no argument: %s\n",
					argv[optind - 1]);
			else if (optopt >= OPT_CONFIG)
				fprintf(stderr, "dpdk-fou: option needs an argument: %s\n",
					argv[optind - 1]);
			else if (optopt != 0)
				fprintf(stderr, "dpdk-fou: unknown option: -%c (see --help)\n",
					optopt);
			else
				fprintf(stderr, "dpdk-fou: unknown option: %s (see --help)\n",
					argv[optind - 1]);
			ret = -1;
			break;
		default:
			snprintf(origin, sizeof(origin), "--%s %s", fou_stmt_name(opt - OPT_STMT),
				 optarg);
			ret = fou_app_stmt_push(stmts, fou_stmt_name(opt - OPT_STMT), optarg,
						origin);
			break;
		}
	}
	if (ret == 0 && optind < argc) {
		fprintf(stderr, "dpdk-fou: unexpected argument: %s (see --help)\n", argv[optind]);
		ret = -1;
	}

	/* no statement: v is NULL, which qsort must not be given */
	if (stmts->n != 0)
		qsort(stmts->v, stmts->n, sizeof(*stmts->v), fou_app_stmt_cmp);
	/* the table sizes, in the order given: a later key wins */
	for (i = 0, n = 0; params != NULL && i < stmts->n; i++) {
		struct fou_app_stmt *e = &stmts->v[i];

		if (ret == 0 && strcmp(e->name, "limits") == 0) {
			ret = fou_limits_parse(e->arg, params, &err);
			if (ret < 0)
				fprintf(stderr, "dpdk-fou: %s: %s\n", e->origin, err.msg);
			free(e->name);
			free(e->arg);
			free(e->origin);
			continue;
		}
		stmts->v[n++] = *e;
	}
	if (params != NULL)
		stmts->n = n;
	if (ret != 0) {
		fou_app_stmts_free(stmts);
		return -1;
	}
	opts->stmts = stmts;
	return 0;
}

int
fou_app_args_apply(struct fou_gw *gw, struct fou_app_opts *opts)
{
	struct fou_app_stmts *stmts = opts->stmts;
	struct fou_err err = { "" };
	unsigned int i;
	int ret = 0;

	for (i = 0; ret == 0 && stmts != NULL && i < stmts->n; i++) {
		ret = fou_stmt_apply(gw, stmts->v[i].name, stmts->v[i].arg, &err);
		if (ret < 0)
			fprintf(stderr, "dpdk-fou: %s: %s\n", stmts->v[i].origin, err.msg);
		else
			FOU_LOG(DEBUG, ctl, "config: %s: ok", stmts->v[i].origin);
	}
	fou_app_stmts_free(stmts);
	opts->stmts = NULL;
	return ret < 0 ? -1 : 0;
}

void
fou_app_args_free(struct fou_app_opts *opts)
{
	fou_app_stmts_free(opts->stmts);
	opts->stmts = NULL;
}

int
fou_app_args(int argc, char **argv, struct fou_gw *gw, struct fou_app_opts *opts)
{
	int ret = fou_app_args_parse(argc, argv, NULL, opts);

	return ret != 0 ? ret : fou_app_args_apply(gw, opts);
}
