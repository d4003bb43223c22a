/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The config-file loader: arbitrary file contents through `dpdk-fou
 * --config FILE` as the application reads it (app/args.c: fou_config_load
 * with its checks and rte_cfgfile, the statements ordered and applied), on
 * the parser targets' gateway. The file is a memfd, rewritten per input.
 *
 * A refused file names what is wrong (a message is printed). Afterwards
 * every statement /fou/config shows can be deleted (or set back) and the
 * gateway is back to where it started.
 */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "app.h"
#include "fuzz.h"

static struct fou_gw *gw;
static char base[FUZZ_CFG_MAX];
static int fd;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	fuzz_eal_init("config", 0);
	gw = fuzz_gw_new(fuzz_parser_stmts, true);
	fuzz_config_text(gw, base, sizeof(base));
	fd = memfd_create("fuzz-config", 0);
	FUZZ_ASSERT(fd >= 0, "memfd_create");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = { "dpdk-fou", "--config", path, NULL };
	struct fou_app_opts opts;
	size_t printed;
	int ret;

	FUZZ_ASSERT(ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size,
		    "cannot write the config file");
	fuzz_getopt_reset();
	fuzz_quiet_begin();
	ret = fou_app_args(3, argv, gw, &opts);
	printed = fuzz_quiet_end();
	FUZZ_ASSERT(ret == 0 || ret == -1, "fou_app_args returned %d", ret);
	FUZZ_ASSERT(ret == 0 || printed > 0, "a config file refused without a message");
	fuzz_config_restore(gw, base);
	return 0;
}
