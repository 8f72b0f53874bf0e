/*
 * server.c - the tiny HTTP side of `watch`: GET and HEAD of /metrics,
 * /healthz and /; one request per connection; a request head of at most
 * HTTP_REQ_MAX bytes that must arrive within READ_DEADLINE seconds.  Every
 * socket is non-blocking and served from the one poll loop, so a slow or
 * malicious client holds one slot, never the loop.  When all slots are
 * taken, a new connection evicts the oldest connection whose request (or
 * response) has not completed within SLOW_AFTER seconds, so that clients
 * that trickle bytes (slowloris) cannot starve a real one; with none that
 * slow, new connections wait in the kernel's accept queue (1024 deep) until
 * the oldest one is.  When accept() fails for
 * lack of descriptors (EMFILE, ENFILE), the listening socket leaves the
 * poll set until a slot frees or ACCEPT_RETRY seconds pass: it stays
 * readable, and polling it would spin the loop.
 */
#include "watch/daemon.h"
#include "watch/selfstat.h"
#include "watch/http.h"
#include "core/xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <poll.h>
#include <unistd.h>

#define READ_DEADLINE 5.0
#define WRITE_DEADLINE 10.0
#define SLOW_AFTER 0.5		/* a local request head arrives in one packet */
#define ACCEPT_RETRY 1.0

int server_listen(struct wd *w)
{
	const char *spec = w->o->listen;
	char host[64];
	const char *colon = strrchr(spec, ':');
	struct sockaddr_in sa;
	long port;
	char *end;
	int one = 1;

	w->lfd = -1;
	if (!spec[0] || !strcmp(spec, "none"))
		return 0;
	if (!colon || (size_t)(colon - spec) >= sizeof(host))
		return -1;
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 0 || port > 65535)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)port);
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return -1;
	w->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (w->lfd < 0)
		return -1;
	setsockopt(w->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(w->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(w->lfd, 1024) < 0) {
		close(w->lfd);
		w->lfd = -1;
		return -1;
	}
	return 0;
}

static void conn_close(struct wd *w, int i)
{
	struct wconn *c = &w->conns[i];

	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	buf_release(&c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	w->accept_retry = 0;	/* a descriptor is free again */
}

/* The oldest connection slower than SLOW_AFTER, or -1. */
static int slowest(const struct wd *w, double now)
{
	int v = -1;

	for (int i = 0; i < WD_MAX_CONNS; i++) {
		const struct wconn *c = &w->conns[i];

		if (c->fd >= 0 && now - c->born >= SLOW_AFTER && (v < 0 || c->born < w->conns[v].born))
			v = i;
	}
	return v;
}

static int evict_slowest(struct wd *w, double now)
{
	int v = slowest(w, now);

	if (v < 0)
		return -1;
	conn_close(w, v);
	w->http_evicted++;
	w->http_rejected++;
	return v;
}

int server_poll_fd(struct wd *w, double now, double *wake)
{
	if (w->lfd < 0)
		return -1;
	if (w->accept_retry > 0 && now < w->accept_retry) {
		if (w->accept_retry < *wake)
			*wake = w->accept_retry;
		return -1;
	}
	w->accept_retry = 0;
	return w->lfd;
}

/* A free slot, or -1 (then *until: when the oldest connection may be evicted). */
static int free_slot(const struct wd *w, double *until)
{
	double oldest = -1;

	for (int i = 0; i < WD_MAX_CONNS; i++) {
		if (w->conns[i].fd < 0)
			return i;
		if (oldest < 0 || w->conns[i].born < oldest)
			oldest = w->conns[i].born;
	}
	*until = oldest + SLOW_AFTER;
	return -1;
}

void server_accept(struct wd *w, double now)
{
	for (int k = 0; k < 64; k++) {
		double until = now;
		int i = free_slot(w, &until), fd;

		/* Poll said a connection waits: only then is one evicted for it,
		   one per wake-up; the next poll says whether more wait. */
		if (i < 0 && k > 0)
			return;
		if (i < 0 && (i = evict_slowest(w, now)) < 0) {
			/* Every slot is young: leave the new connections queued in
			   the kernel (not refused) until the oldest may be evicted. */
			w->accept_retry = until > now ? until : now + 0.05;
			return;
		}
		fd = accept4(w->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
			/* Out of descriptors: a slow connection gives its own up, else wait. */
			if (evict_slowest(w, now) >= 0)
				continue;
			w->accept_retry = now + ACCEPT_RETRY;
			return;
		}
		if (fd < 0 && (errno == ECONNABORTED || errno == EINTR || errno == EPROTO))
			continue;
		if (fd < 0)
			return;
		w->conns[i].fd = fd;
		w->conns[i].born = now;
		w->conns[i].in = xmalloc(HTTP_REQ_MAX);
		w->conns[i].inlen = 0;
		w->conns[i].deadline = now + READ_DEADLINE;
		buf_init(&w->conns[i].out);
	}
}

static void respond(struct wd *w, struct wconn *c, int status, int head, const char *ctype,
		    const struct buf *body)
{
	size_t len = body ? body->len : 0;

	/* nosniff: the pages hold GPU names and kernel text; a browser must
	   show them as the text they are, never guess HTML and run it. */
	buf_printf(&c->out, "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		   "Connection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
		   "\r\n", status, http_reason(status), ctype, len);
	if (body && !head)
		buf_add(&c->out, body->s, body->len);
	c->writing = 1;
	c->outoff = 0;
	c->deadline = wd_now() + WRITE_DEADLINE;
	if (status >= 400 && status != 404 && status != 503)
		w->http_rejected++;
	else
		w->http_requests++;
}

static void serve(struct wd *w, struct wconn *c, const struct http_req *r)
{
	struct buf body = BUF_INIT;

	if (!strcmp(r->path, "/metrics")) {
		prom_render(w, &body);
		respond(w, c, 200, r->head, "text/plain; version=0.0.4; charset=utf-8", &body);
	} else if (!strcmp(r->path, "/healthz")) {
		int fail = w->rep.status == STATUS_FAIL;

		buf_puts(&body, fail ? "fail\n" : "ok\n");
		for (size_t i = 0; fail && i < w->rep.n; i++)
			if (w->rep.findings[i].status == STATUS_FAIL)
				buf_printf(&body, "%s: %s\n", cause_id_str(w->rep.findings[i].cause),
					   w->rep.findings[i].title);
		respond(w, c, fail ? 503 : 200, r->head, "text/plain; charset=utf-8", &body);
	} else if (!strcmp(r->path, "/")) {
		report_plain(w, &body);
		respond(w, c, 200, r->head, "text/plain; charset=utf-8", &body);
	} else {
		buf_puts(&body, "not found: try /metrics, /healthz or /\n");
		respond(w, c, 404, r->head, "text/plain; charset=utf-8", &body);
	}
	buf_release(&body);
}

static void error_reply(struct wd *w, struct wconn *c, int status)
{
	struct buf body = BUF_INIT;

	buf_printf(&body, "%d %s\n", status, http_reason(status));
	respond(w, c, status, 0, "text/plain; charset=utf-8", &body);
	buf_release(&body);
}

void server_io(struct wd *w, int i, short revents, double now)
{
	struct wconn *c = &w->conns[i];
	ssize_t n;

	(void)now;
	if (!c->writing && (revents & (POLLIN | POLLHUP | POLLERR))) {
		struct http_req r;
		int st;

		n = read(c->fd, c->in + c->inlen, HTTP_REQ_MAX - c->inlen);
		if (n <= 0) {
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				return;
			conn_close(w, i);	/* closed before a whole request */
			return;
		}
		c->inlen += (size_t)n;
		st = http_parse(c->in, c->inlen, &r);
		if (st == HTTP_INCOMPLETE && c->inlen < HTTP_REQ_MAX)
			return;
		if (st == HTTP_INCOMPLETE)
			st = 431;
		if (st == HTTP_OK)
			serve(w, c, &r);
		else
			error_reply(w, c, st);
	}
	if (c->writing && c->outoff < c->out.len) {
		n = write(c->fd, c->out.s + c->outoff, c->out.len - c->outoff);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			conn_close(w, i);
			return;
		}
		c->outoff += (size_t)n;
	}
	if (c->writing && c->outoff >= c->out.len) {
		char sink[512];

		/* Unread input at close would reset the connection before the
		   client reads; a client that never stops sending would hold
		   this loop, so at most 64 reads. */
		shutdown(c->fd, SHUT_WR);
		for (int k = 0; k < 64 && read(c->fd, sink, sizeof(sink)) > 0; k++)
			;
		conn_close(w, i);
	} else if (revents & (POLLERR | POLLHUP)) {
		conn_close(w, i);
	}
}

void server_expire(struct wd *w, double now)
{
	for (int i = 0; i < WD_MAX_CONNS; i++)
		if (w->conns[i].fd >= 0 && now >= w->conns[i].deadline) {
			w->http_rejected++;
			conn_close(w, i);
		}
}
