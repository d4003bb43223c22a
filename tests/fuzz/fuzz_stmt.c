/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The statement parser shared by the command line, the config file and
 * telemetry: fou_stmt_apply() and fou_stmt_del() on arbitrary text, on the
 * parser targets' gateway.
 *
 * Input: lines "NAME ARG" (a statement) or "-NAME ARG" (its delete).
 * After each line: a failure says why (a message) and changed nothing
 * (the running configuration, as /fou/config shows it, is the same text).
 * After the input every statement /fou/config shows can be deleted (or
 * set back) and the gateway is back to where it started.
 */
#include <string.h>

#include "fuzz.h"

#define FUZZ_LINE_MAX 1024

static struct fou_gw *gw;
static char base[FUZZ_CFG_MAX];
/* The configuration before the current line; stale after a success. */
static char before[FUZZ_CFG_MAX];
static bool before_valid;
static bool changed;	/* a statement of this input succeeded */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	fuzz_eal_init("stmt", 0);
	gw = fuzz_gw_new(fuzz_parser_stmts, true);
	fuzz_config_text(gw, base, sizeof(base));
	return 0;
}

static void
fuzz_stmt_line(char *line)
{
	static char after[FUZZ_CFG_MAX];
	struct fou_err err = { "" };
	bool del = line[0] == '-';
	char *name = line + del, *arg = strchr(name, ' ');
	int ret;

	if (arg != NULL)
		*arg++ = '\0';
	else
		arg = name + strlen(name);
	if (!before_valid)
		fuzz_config_text(gw, before, sizeof(before));
	ret = (del ? fou_stmt_del : fou_stmt_apply)(gw, name, arg, &err);
	before_valid = ret < 0;
	if (ret == 0) {
		changed = true;
		return;
	}
	FUZZ_ASSERT(ret < 0, "%s returned %d", name, ret);
	FUZZ_ASSERT(err.msg[0] != '\0', "'%s %s' failed (%d) without a message", name, arg, ret);
	fuzz_config_text(gw, after, sizeof(after));
	if (strcmp(before, after) != 0)
		FUZZ_FAIL("'%s%s %s' failed (%s) but changed the configuration:\n--- before\n%s"
			  "--- after\n%s", del ? "-" : "", name, arg, err.msg, before, after);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[FUZZ_LINE_MAX];
	size_t i = 0;

	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = (nl != NULL ? (size_t)(nl - data) : size) - i;

		/* a statement is a C string: it ends at a NUL, as from argv */
		if (len < sizeof(line) && memchr(data + i, '\0', len) == NULL) {
			memcpy(line, data + i, len);
			line[len] = '\0';
			fuzz_stmt_line(line);
		}
		i += len + 1;
	}
	if (changed) {
		fuzz_config_restore(gw, base);
		before_valid = false;
		changed = false;
	}
	return 0;
}
