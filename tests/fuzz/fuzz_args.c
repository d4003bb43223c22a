/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application's command line (after EAL's `--`): fou_app_args() of
 * app/args.c on arbitrary arguments, on the parser targets' gateway.
 *
 * Input: the arguments, one per line. An input with a '/' is skipped:
 * --config names files relative to a directory of the target's own, which
 * holds ok.conf (statements that apply), bad.conf (one that does not),
 * empty.conf and a directory dir, so no argument reaches another file.
 *
 * Returns 0 (started), 1 (--help, usage printed) or -1 with a message
 * naming what is wrong. Afterwards every statement /fou/config shows can be
 * deleted (or set back) and the gateway is back to where it started.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "app.h"
#include "fuzz.h"

#define FUZZ_ARGS_MAX 64

static struct fou_gw *gw;
static char base[FUZZ_CFG_MAX];
static char dir[64];
static int dir_fd, cwd_fd;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_args_file(const char *name, const char *text)
{
	int f = openat(dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	FUZZ_ASSERT(f >= 0 && write(f, text, strlen(text)) == (ssize_t)strlen(text),
		    "cannot write %s/%s", dir, name);
	close(f);
}

static void
fuzz_args_cleanup(void)
{
	static const char *const names[] = { "ok.conf", "bad.conf", "empty.conf" };
	unsigned int i;

	for (i = 0; i < RTE_DIM(names); i++)
		unlinkat(dir_fd, names[i], 0);
	unlinkat(dir_fd, "dir", AT_REMOVEDIR);
	rmdir(dir);
}

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	fuzz_eal_init("args", 0);
	gw = fuzz_gw_new(fuzz_parser_stmts, true);
	fuzz_config_text(gw, base, sizeof(base));
	snprintf(dir, sizeof(dir), "/tmp/fuzz-args-XXXXXX");
	FUZZ_ASSERT(mkdtemp(dir) != NULL, "mkdtemp");
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY);
	cwd_fd = open(".", O_RDONLY | O_DIRECTORY);
	FUZZ_ASSERT(dir_fd >= 0 && cwd_fd >= 0, "cannot open %s or .", dir);
	atexit(fuzz_args_cleanup);
	fuzz_args_file("ok.conf", "port = 7000:gre\nroute = 10.200.0.0/16,dev=t1\n"
			"addr = 2,10.98.0.1/24\nneigh = 10.98.0.9,dev=2,lladdr=02:00:00:00:00:09\n");
	fuzz_args_file("bad.conf", "port = 7001:ipip\nroute = 10.201.0.0/16,dev=nope\n");
	fuzz_args_file("empty.conf", "");
	FUZZ_ASSERT(mkdirat(dir_fd, "dir", 0755) == 0, "mkdir %s/dir", dir);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[4096];
	char *argv[FUZZ_ARGS_MAX + 2], *p;
	struct fou_app_opts opts;
	size_t printed;
	int argc = 0, ret;

	if (size >= sizeof(buf) || memchr(data, '/', size) != NULL ||
	    memchr(data, '\0', size) != NULL)
		return -1;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = "dpdk-fou";
	for (p = buf; argc <= FUZZ_ARGS_MAX; p++) {
		argv[argc++] = p;
		p = strchr(p, '\n');
		if (p == NULL)
			break;
		*p = '\0';
	}
	if (p != NULL)
		return -1;
	argv[argc] = NULL;

	fuzz_getopt_reset();
	FUZZ_ASSERT(fchdir(dir_fd) == 0, "fchdir");
	fuzz_quiet_begin();
	ret = fou_app_args(argc, argv, gw, &opts);
	printed = fuzz_quiet_end();
	FUZZ_ASSERT(fchdir(cwd_fd) == 0, "fchdir");
	FUZZ_ASSERT(ret == 0 || ret == 1 || ret == -1, "fou_app_args returned %d", ret);
	FUZZ_ASSERT(ret == 0 || printed > 0, "fou_app_args returned %d without a message", ret);
	fuzz_config_restore(gw, base);
	return 0;
}
