/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where rte_log's messages go: stdout, in order with the exit summary.
 *
 * Debian's DPDK 22.11 writes them to stderr and, whatever the options, to
 * syslog (--syslog FACILITY only picks the facility). The gateway gives
 * rte_log a stream of its own before rte_eal_init(), for the EAL's
 * messages and its own alike:
 *
 * - stdout: the startup lines, what happens while it runs and the exit
 *   summary in one stream, as scripts and tests read them; stderr keeps
 *   only the errors that stop it before it starts.
 * - syslog, with the EAL's ident and facility, only when --syslog was
 *   given: under systemd the journal reads stdout, and a second copy
 *   through syslog would show every line twice.
 * - when stdout is the journal's stream ($JOURNAL_STREAM names it), each
 *   line starts with its syslog priority ("<4>" for a warning), which
 *   journald takes as the line's priority and strips (SyslogLevelPrefix=,
 *   on by default): `journalctl -u dpdk-fou -p warning` shows warnings and
 *   worse. The summary, printed with printf, stays at priority info.
 */
#define _GNU_SOURCE	/* fopencookie */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/stat.h>

#include "app.h"

static bool fou_app_log_journal;	/* "<N>" before each line */
static bool fou_app_log_syslog;		/* --syslog: a copy to syslog */

/* Whether stdout is the stream $JOURNAL_STREAM ("DEV:INODE") names: the
 * variable is inherited, the stream may have been redirected since. */
static bool
fou_app_stdout_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (js == NULL || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return false;
	return fstat(STDOUT_FILENO, &st) == 0 && (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

/*
 * The stream's write: runs under the log stream's lock (rte_vlog()
 * formats, then flushes), so at_bol needs no other; a message longer than
 * the stream's buffer comes in several writes, a line may end in the next.
 */
static ssize_t
fou_app_log_write(void *cookie __rte_unused, const char *buf, size_t size)
{
	static bool at_bol = true;
	/* RTE_LOG_EMERG (1) .. RTE_LOG_DEBUG (8) are LOG_EMERG (0) .. LOG_DEBUG (7) */
	int prio = RTE_MIN(RTE_MAX(rte_log_cur_msg_loglevel(), 1), 8) - 1;
	size_t off = 0;

	while (off < size) {
		const char *nl = memchr(buf + off, '\n', size - off);
		size_t n = nl != NULL ? (size_t)(nl - (buf + off)) + 1 : size - off;

		if (at_bol && fou_app_log_journal)
			printf("<%d>", prio);
		fwrite(buf + off, 1, n, stdout);
		if (fou_app_log_syslog && n > (nl != NULL))
			syslog(prio, "%.*s", (int)(n - (nl != NULL)), buf + off);
		at_bol = nl != NULL;
		off += n;
	}
	fflush(stdout);
	return (ssize_t)size;
}

void
fou_app_log_init(int argc, char **argv)
{
	static const cookie_io_functions_t fns = { .write = fou_app_log_write };
	FILE *f;
	int i;

	fou_app_log_journal = fou_app_stdout_is_journal();
	/* the EAL's options come first, up to "--" */
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--syslog") == 0 || strncmp(argv[i], "--syslog=", 9) == 0)
			fou_app_log_syslog = true;
	f = fopencookie(NULL, "w", fns);
	if (f != NULL)
		rte_openlog_stream(f);
}
