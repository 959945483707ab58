// SPDX-License-Identifier: GPL-2.0
/* The HTTP server of kdist serve: see http.h. */
#include "http.h"
#include "util.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

enum conn_state { C_FREE, C_READ, C_WRITE, C_DRAIN };

struct http_conn {
	int fd;
	enum conn_state state;
	uint64_t deadline;	/* ms, monotonic */
	size_t len;		/* request bytes read */
	char head[256];
	size_t head_len, head_off;
	struct http_body *body;	/* NULL: out is static text */
	const char *out;
	size_t out_len, out_off;
	char req[HTTP_MAX_REQUEST];
};

struct http_body *http_body_new(char *data, size_t len, const char *type)
{
	struct http_body *b = malloc(sizeof(*b));

	if (!b) {
		free(data);
		return NULL;
	}
	*b = (struct http_body){ .refs = 1, .len = len, .data = data, .type = type };
	return b;
}

struct http_body *http_body_get(struct http_body *b)
{
	if (b)
		b->refs++;
	return b;
}

void http_body_put(struct http_body *b)
{
	if (!b || --b->refs)
		return;
	free(b->data);
	free(b);
}

static uint64_t now_ms(void)
{
	return now_ns() / 1000000;
}

int http_open(struct http_server *h, const char *listen_at)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	char host[64], *port;
	int one = 1, err, fd = -1;

	h->fd = -1;
	if (strlen(listen_at) >= sizeof(host))
		goto bad;
	strcpy(host, listen_at);
	port = strrchr(host, ':');
	if (!port || !port[1])
		goto bad;
	*port++ = '\0';
	if (host[0] == '[') {
		size_t n = strlen(host);

		if (n < 2 || host[n - 1] != ']')
			goto bad;
		host[n - 1] = '\0';
		memmove(host, host + 1, n - 1);
	}
	err = getaddrinfo(host[0] ? host : NULL, port, &hints, &ai);
	if (err)
		goto bad;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 128)) {
		err = -errno;
		kd_err("failed to listen on %s: %s", listen_at, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return err;
	}
	freeaddrinfo(ai);
	h->conns = calloc(HTTP_MAX_CONNS, sizeof(*h->conns));
	if (!h->conns) {
		close(fd);
		return -ENOMEM;
	}
	for (int i = 0; i < HTTP_MAX_CONNS; i++)
		h->conns[i].fd = -1;
	h->fd = fd;
	snprintf(h->addr, sizeof(h->addr), "%s", listen_at);
	return 0;
bad:
	kd_err("bad --listen '%s': expected ADDR:PORT, e.g. 127.0.0.1:9669 or [::1]:9669",
	       listen_at);
	return -EINVAL;
}

static void conn_close(struct http_server *h, struct http_conn *c)
{
	close(c->fd);
	http_body_put(c->body);
	c->body = NULL;
	c->fd = -1;
	c->state = C_FREE;
	h->nconns--;
}

void http_close(struct http_server *h)
{
	for (int i = 0; h->conns && i < HTTP_MAX_CONNS; i++) {
		if (h->conns[i].fd >= 0)
			conn_close(h, &h->conns[i]);
	}
	free(h->conns);
	h->conns = NULL;
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}

static const char *status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	default: return "Service Unavailable";
	}
}

/* Answer with body b (a reference the connection takes) or the status line
 * as text. */
static void respond(struct http_conn *c, int status, struct http_body *b, bool head_only)
{
	const char *type = b ? b->type : "text/plain; charset=utf-8";

	c->body = b;
	if (b) {
		c->out = b->data;
		c->out_len = b->len;
	} else {
		c->out = status_text(status);
		c->out_len = strlen(c->out);
	}
	c->head_len = snprintf(c->head, sizeof(c->head),
			       "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			       "%sConnection: close\r\n\r\n",
			       status, status_text(status), type, c->out_len,
			       status == 405 ? "Allow: GET\r\n" : "");
	if (head_only)
		c->out_len = 0;
	c->head_off = c->out_off = 0;
	c->state = C_WRITE;
}

/* Whether the header lines in req (NUL-terminated) accept OpenMetrics. */
static bool wants_openmetrics(const char *req)
{
	for (const char *l = strchr(req, '\n'); l; l = strchr(l + 1, '\n')) {
		const char *eol = strchr(l + 1, '\n');
		size_t n = eol ? (size_t)(eol - l - 1) : strlen(l + 1);

		if (n > 7 && !strncasecmp(l + 1, "accept:", 7))
			return memmem(l + 8, n - 7, "application/openmetrics-text", 28) != NULL;
	}
	return false;
}

static void handle_request(struct http_server *h, struct http_conn *c)
{
	char *sp1, *sp2, *q;
	size_t plen;

	c->req[c->len] = '\0';
	sp1 = strchr(c->req, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || sp1[1] != '/' || strncmp(sp2 + 1, "HTTP/1.", 7)) {
		respond(c, 400, NULL, false);
		return;
	}
	if ((size_t)(sp1 - c->req) != 3 || strncmp(c->req, "GET", 3)) {
		respond(c, 405, NULL, false);
		return;
	}
	q = memchr(sp1 + 1, '?', sp2 - sp1 - 1);
	plen = (q ? q : sp2) - sp1 - 1;
	h->requests++;
	if (plen == 8 && !strncmp(sp1 + 1, "/metrics", 8)) {
		struct http_body *b = h->metrics(h->ctx, wants_openmetrics(c->req));

		respond(c, b ? 200 : 500, b, false);
	} else if (plen == 1) {
		struct http_body *b = http_body_new(strdup(h->index), strlen(h->index),
						    "text/html; charset=utf-8");

		respond(c, b && b->data ? 200 : 500, b && b->data ? b : NULL, false);
		if (b && !b->data)
			http_body_put(b);
	} else {
		respond(c, 404, NULL, false);
	}
}

static void conn_read(struct http_server *h, struct http_conn *c)
{
	ssize_t r;

	if (c->state == C_DRAIN) {
		char sink[4096];

		/* the client may still be sending what we refused: read it so
		 * that our answer is not lost to a reset */
		r = recv(c->fd, sink, sizeof(sink), 0);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			conn_close(h, c);
		return;
	}
	r = recv(c->fd, c->req + c->len, sizeof(c->req) - 1 - c->len, 0);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		conn_close(h, c);
		return;
	}
	if (r < 0)
		return;
	c->len += r;
	c->req[c->len] = '\0';
	if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n")) {
		handle_request(h, c);
	} else if (c->len == sizeof(c->req) - 1) {
		h->rejected++;
		respond(c, strchr(c->req, '\n') ? 431 : 414, NULL, false);
	}
}

static void conn_write(struct http_server *h, struct http_conn *c)
{
	while (c->head_off < c->head_len || c->out_off < c->out_len) {
		bool head = c->head_off < c->head_len;
		const char *p = head ? c->head + c->head_off : c->out + c->out_off;
		size_t n = head ? c->head_len - c->head_off : c->out_len - c->out_off;
		ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno != EAGAIN && errno != EINTR)
				conn_close(h, c);
			return;
		}
		if (head)
			c->head_off += w;
		else
			c->out_off += w;
	}
	http_body_put(c->body);
	c->body = NULL;
	shutdown(c->fd, SHUT_WR);
	c->state = C_DRAIN;
}

static void accept_conns(struct http_server *h)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
				   "Connection: close\r\n\r\n";

	for (int k = 0; k < HTTP_MAX_CONNS; k++) {
		int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct http_conn *c = NULL;

		if (fd < 0)
			return;
		for (int i = 0; h->nconns < HTTP_MAX_CONNS && i < HTTP_MAX_CONNS; i++) {
			if (h->conns[i].fd < 0) {
				c = &h->conns[i];
				break;
			}
		}
		if (!c) {
			h->rejected++;
			if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL) < 0)
				kd_info("failed to answer a connection over the limit: %s",
					strerror(errno));
			close(fd);
			continue;
		}
		c->fd = fd;
		c->state = C_READ;
		c->len = 0;
		c->deadline = now_ms() + HTTP_TIMEOUT_MS;
		h->nconns++;
	}
}

int http_pollfds(struct http_server *h, struct pollfd *p, int *timeout_ms)
{
	uint64_t now = now_ms(), first = UINT64_MAX;
	int n = 0;

	p[n++] = (struct pollfd){ .fd = h->fd, .events = POLLIN };
	for (int i = 0; i < HTTP_MAX_CONNS; i++) {
		struct http_conn *c = &h->conns[i];

		if (c->fd < 0)
			continue;
		p[n++] = (struct pollfd){ .fd = c->fd,
					  .events = c->state == C_WRITE ? POLLOUT : POLLIN };
		if (c->deadline < first)
			first = c->deadline;
	}
	*timeout_ms = first == UINT64_MAX ? -1 : first > now ? (int)(first - now) : 0;
	return n;
}

void http_serve(struct http_server *h, const struct pollfd *p, int n)
{
	uint64_t now = now_ms();

	for (int k = 1; k < n; k++) {
		struct http_conn *c = NULL;

		if (!p[k].revents)
			continue;
		for (int i = 0; i < HTTP_MAX_CONNS; i++) {
			if (h->conns[i].fd == p[k].fd) {
				c = &h->conns[i];
				break;
			}
		}
		if (!c)
			continue;
		if (c->state == C_WRITE)
			conn_write(h, c);
		else
			conn_read(h, c);
		/* the answer usually fits in the socket buffer at once */
		if (c->fd >= 0 && c->state == C_WRITE)
			conn_write(h, c);
	}
	for (int i = 0; i < HTTP_MAX_CONNS; i++) {
		struct http_conn *c = &h->conns[i];

		if (c->fd >= 0 && now >= c->deadline) {
			if (c->state != C_DRAIN)
				h->rejected++;
			conn_close(h, c);
		}
	}
	if (n > 0 && p[0].revents)
		accept_conns(h);
}
