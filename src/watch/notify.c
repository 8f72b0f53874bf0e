/* notify.c - sd_notify by hand; see notify.h. */
#include "watch/notify.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void notify_init(struct notify *n)
{
	const char *path = getenv("NOTIFY_SOCKET"), *wd = getenv("WATCHDOG_USEC");
	const char *wpid = getenv("WATCHDOG_PID");
	size_t len;

	memset(n, 0, sizeof(*n));
	n->fd = -1;
	if (wd && *wd && (!wpid || !*wpid || atol(wpid) == (long)getpid()))
		n->watchdog_usec = strtoull(wd, NULL, 10);
	if (path && (path[0] == '/' || path[0] == '@') &&
	    (len = strlen(path)) < sizeof(n->addr.sun_path)) {
		n->addr.sun_family = AF_UNIX;
		memcpy(n->addr.sun_path, path, len);
		if (path[0] == '@')
			n->addr.sun_path[0] = '\0';	/* abstract namespace */
		n->addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
					 (path[0] == '@' ? 0 : 1));
		n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	}
	/* Children (the NVML sampler, the static check) must not talk to systemd. */
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
}

int notify_send(const struct notify *n, const char *msg)
{
	if (n->fd < 0)
		return 0;
	return sendto(n->fd, msg, strlen(msg), MSG_NOSIGNAL,
		      (const struct sockaddr *)&n->addr, n->addrlen) < 0 ? -1 : 0;
}

void notify_release(struct notify *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
}
