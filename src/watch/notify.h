/*
 * notify.h - the systemd notification protocol without libsystemd.
 *
 * systemd passes a datagram socket in $NOTIFY_SOCKET (a path, or "@name" for
 * an abstract socket) and, with WatchdogSec=, the watchdog period in
 * $WATCHDOG_USEC (and the pid it is meant for in $WATCHDOG_PID).  A message
 * is one datagram of "KEY=VALUE" lines.  notify_init() reads and then
 * removes these variables, so no child ever inherits them.
 *
 *	struct notify n;
 *	notify_init(&n);
 *	notify_send(&n, "READY=1\nSTATUS=ok");
 *	if (n.watchdog_usec) ... notify_send(&n, "WATCHDOG=1") every watchdog_usec/2 ...
 *	notify_release(&n);
 */
#ifndef GD_WATCH_NOTIFY_H
#define GD_WATCH_NOTIFY_H

#include <sys/socket.h>
#include <sys/un.h>

struct notify {
	int fd;				/* -1 when there is no notify socket */
	struct sockaddr_un addr;
	socklen_t addrlen;
	unsigned long long watchdog_usec;	/* 0: no watchdog asked for */
};

void notify_init(struct notify *n);
/* 0, or -1 (errno set) when the datagram could not be sent; no-op without a socket. */
int notify_send(const struct notify *n, const char *msg);
void notify_release(struct notify *n);

#endif
