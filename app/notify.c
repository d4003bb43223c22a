/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * systemd's readiness protocol (sd_notify(3)), without libsystemd: a unit
 * of Type=notify starts the gateway with $NOTIFY_SOCKET, the address of a
 * Unix datagram socket of the service manager, either a path ("/run/...")
 * or, starting with '@', a name in the abstract namespace (the '@' becomes
 * a NUL byte and the address is exactly as long as the name: no NUL at its
 * end). Each state is one datagram of "KEY=VALUE" lines:
 *
 *   READY=1      the /fou commands work and the workers forward
 *   STOPPING=1   a signal came: the gateway stops, counts, exits
 *   STATUS=...   a line systemctl status shows
 *
 * The manager takes the datagram's sender from its credentials; the unit's
 * NotifyAccess=main accepts the main process, which this is, so MAINPID is
 * not sent. Without $NOTIFY_SOCKET (not under systemd) nothing is sent. A
 * failure is logged and otherwise ignored: the gateway runs either way, and
 * the manager's start timeout reports a READY that never came.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "app.h"

int
fou_app_notify(const char *fmt, ...)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char msg[256];
	va_list ap;
	size_t len;
	ssize_t n;
	int fd, ret = 0;

	if (path == NULL || path[0] == '\0')
		return 0;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sun.sun_path)) {
		FOU_LOG(WARNING, app, "NOTIFY_SOCKET=%s: not a socket path or @name, "
			"systemd is not told", path);
		return -EINVAL;
	}
	memcpy(sun.sun_path, path, len);
	if (sun.sun_path[0] == '@')
		sun.sun_path[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		ret = -errno;
	else {
		/* a path's address may end with its NUL, an abstract name's not */
		n = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sun,
			   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
		if (n < 0)
			ret = -errno;
		close(fd);
	}
	if (ret < 0)
		FOU_LOG(WARNING, app, "cannot tell systemd (NOTIFY_SOCKET=%s): %s", path,
			strerror(-ret));
	return ret;
}
