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
#include <sys/stat.h>

#include <rte_cfgfile.h>

#include "fou.h"

#define FOU_CFG_GLOBAL "GLOBAL"	/* rte_cfgfile's name for lines before any section */

/*
 * What rte_cfgfile does not report: a file that cannot be opened (it says
 * only "failed"), a directory (read as an empty file), a line without '='
 * (skipped silently) and a name or value too long (truncated). Comments as rte_cfgfile sees them: from the first
 * '#' not preceded by a backslash.
 */
static int
fou_config_check(const char *path, struct fou_err *err)
{
	unsigned int lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	struct stat st;
	int ret = 0, e;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL) {
		e = errno;
		fou_err_set(err, "%s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fou_err_set(err, "%s: %s", path, strerror(EISDIR));
		fclose(f);
		return -EISDIR;
	}
	while (ret == 0 && getline(&line, &cap, f) >= 0) {
		char *hash = strchr(line, '#'), *p = line, *eq;

		lineno++;
		if (hash != NULL && (hash == line || hash[-1] != '\\'))
			*hash = '\0';
		p += strspn(p, " \t\r\n");
		p[strcspn(p, "\r\n")] = '\0';
		if (*p == '\0' || *p == '[')
			continue;
		eq = strchr(p, '=');
		if (eq == NULL) {
			fou_err_set(err, "%s:%u: '%.*s' is not a NAME = VALUE line", path, lineno,
				    64, p);
			ret = -EINVAL;
		} else if ((size_t)(eq - p) >= CFG_NAME_LEN ||
			   strlen(eq + 1 + strspn(eq + 1, " \t")) >= CFG_VALUE_LEN) {
			/* rte_cfgfile would cut it short without a word */
			fou_err_set(err, "%s:%u: name longer than %d or value longer than %d characters",
				    path, lineno, CFG_NAME_LEN - 1, CFG_VALUE_LEN - 1);
			ret = -E2BIG;
		}
	}
	if (ret == 0 && ferror(f)) {
		e = errno;
		fou_err_set(err, "%s: %s", path, strerror(e));
		ret = -e;
	}
	free(line);
	fclose(f);
	return ret;
}

int
fou_config_load(const char *path, fou_stmt_cb cb, void *ctx, struct fou_err *err)
{
	struct rte_cfgfile_parameters params = { .comment_character = '#' };
	struct rte_cfgfile_entry *entries = NULL;
	struct rte_cfgfile *cfg;
	int n, i, ret;

	ret = fou_config_check(path, err);
	if (ret < 0)
		return ret;

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
