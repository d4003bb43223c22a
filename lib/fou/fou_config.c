/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config file: one statement per line as `NAME = ARG`, the same NAME and
 * ARG as the command line's `--NAME ARG`; '#' starts a comment. Read with
 * rte_cfgfile; sections are not used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>

#include "fou.h"

#define FOU_CFG_GLOBAL "GLOBAL"	/* rte_cfgfile's name for lines before any section */

int
fou_config_load(const char *path, fou_stmt_cb cb, void *ctx, struct fou_err *err)
{
	struct rte_cfgfile_parameters params = { .comment_character = '#' };
	struct rte_cfgfile_entry *entries = NULL;
	struct rte_cfgfile *cfg;
	FILE *f;
	int n, i, ret = 0;

	/* rte_cfgfile says only "failed"; find the usual reasons first */
	f = fopen(path, "r");
	if (f == NULL) {
		fou_err_set(err, "%s: %s", path, strerror(errno));
		return -errno;
	}
	fclose(f);

	cfg = rte_cfgfile_load_with_params(path, CFG_FLAG_GLOBAL_SECTION, &params);
	if (cfg == NULL) {
		fou_err_set(err, "%s: not NAME = VALUE lines (see the line logged above)", path);
		return -EINVAL;
	}
	if (rte_cfgfile_num_sections(cfg, NULL, 0) > 1 ||
	    (rte_cfgfile_num_sections(cfg, NULL, 0) == 1 &&
	     !rte_cfgfile_has_section(cfg, FOU_CFG_GLOBAL))) {
		fou_err_set(err, "%s: sections ([...]) are not used", path);
		ret = -EINVAL;
		goto out;
	}
	n = rte_cfgfile_section_num_entries(cfg, FOU_CFG_GLOBAL);
	if (n <= 0)
		goto out;
	entries = calloc((size_t)n, sizeof(*entries));
	if (entries == NULL) {
		fou_err_set(err, "%s: out of memory", path);
		ret = -ENOMEM;
		goto out;
	}
	n = rte_cfgfile_section_entries(cfg, FOU_CFG_GLOBAL, entries, n);
	for (i = 0; i < n && ret == 0; i++)
		ret = cb(ctx, entries[i].name, entries[i].value, err);
out:
	free(entries);
	rte_cfgfile_close(cfg);
	return ret;
}
