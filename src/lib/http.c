// SPDX-License-Identifier: GPL-2.0
/* The HTTP server of kdist serve: see http.h. */
#include "lib/http.h"
#include "lib/util.h"
#include "lib/webconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

enum conn_state { C_FREE, C_READ, C_WRITE, C_DRAIN };

struct http_conn {
	int fd;
	enum conn_state state;
	uint64_t start, deadline;	/* ms, monotonic */
	unsigned char peer[16];	/* the client's address, IPv4 v4-mapped */
	SSL *ssl;		/* over TLS */
	short ssl_events;	/* what OpenSSL waits for, 0: the state's */
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

static int conns_alloc(struct http_server *h)
{
	if (h->conns)
		return 0;
	h->conns = calloc(HTTP_MAX_CONNS, sizeof(*h->conns));
	if (!h->conns)
		return -ENOMEM;
	for (int i = 0; i < HTTP_MAX_CONNS; i++)
		h->conns[i].fd = -1;
	return 0;
}

/* BPF objects take descriptors too: use what the hard limit allows, as
 * poll() has no FD_SETSIZE bound.  Where it stays low, http.h's eviction
 * copes with running out. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		kd_info("failed to raise the descriptor limit: %s", strerror(errno));
}

int http_open(struct http_server *h, const char *listen_at)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	char host[64], *port;
	int one = 1, err, fd = -1;

	h->fd = h->spare_fd = -1;
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
	if (conns_alloc(h)) {
		close(fd);
		return -ENOMEM;
	}
	h->fd = fd;
	raise_nofile();
	h->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	snprintf(h->addr, sizeof(h->addr), "%s", listen_at);
	return 0;
bad:
	kd_err("bad --listen '%s': expected ADDR:PORT, e.g. 127.0.0.1:9669 or [::1]:9669",
	       listen_at);
	return -EINVAL;
}

static void conn_close(struct http_server *h, struct http_conn *c)
{
	SSL_free(c->ssl);
	c->ssl = NULL;
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
	if (h->spare_fd >= 0)
		close(h->spare_fd);
	h->fd = h->spare_fd = -1;
}

static const char *status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 405: return "Method Not Allowed";
	case 414: return "URI Too Long";
	case 429: return "Too Many Requests";
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
			       status == 405 ? "Allow: GET\r\n" :
			       status == 401 ? "WWW-Authenticate: Basic realm=\"kdist\"\r\n" :
			       status == 429 ? "Retry-After: 10\r\n" : "");
	if (head_only)
		c->out_len = 0;
	c->head_off = c->out_off = 0;
	c->state = C_WRITE;
	c->deadline = now_ms() + HTTP_TIMEOUT_MS;
}

/* peer's count of wrong passwords in the current window: its entry, or a
 * new one in place of an expired or the oldest entry. */
static unsigned int *auth_fails(struct http_server *h, const unsigned char *peer, uint64_t now)
{
	int free_i = 0;

	for (int i = 0; i < HTTP_AUTH_CLIENTS; i++) {
		if (now - h->auth_fails[i].since >= HTTP_AUTH_WINDOW_MS)
			h->auth_fails[i].n = 0;
		if (h->auth_fails[i].n && !memcmp(h->auth_fails[i].peer, peer, 16))
			return &h->auth_fails[i].n;
		if (h->auth_fails[i].n && (!h->auth_fails[free_i].n ||
					   h->auth_fails[i].since >= h->auth_fails[free_i].since))
			continue;
		free_i = i;
	}
	memcpy(h->auth_fails[free_i].peer, peer, 16);
	h->auth_fails[free_i].since = now;
	h->auth_fails[free_i].n = 0;
	return &h->auth_fails[free_i].n;
}

/* 0 when the Authorization value v (n bytes, NULL: none) names a user
 * with the right password, else 401, or 429 for a client whose wrong
 * passwords reached HTTP_AUTH_FAILS in the window (http.h). */
static int auth_status(struct http_server *h, const unsigned char *peer, const char *v, size_t n)
{
	unsigned int *fails;

	if (!v)
		return 401;
	if (webconfig_auth_known(h->web, v, n))
		return 0;
	fails = auth_fails(h, peer, now_ms());
	if (*fails >= HTTP_AUTH_FAILS)
		return 429;
	if (webconfig_auth(h->web, v, n))
		return 0;
	++*fails;
	return 401;
}

/* The value of the first header line named name (with its ':') in req
 * (NUL-terminated), blanks trimmed, its length in *len; NULL if none. */
static const char *header(const char *req, const char *name, size_t *len)
{
	size_t nl = strlen(name);

	for (const char *l = strchr(req, '\n'); l; l = strchr(l + 1, '\n')) {
		const char *v = l + 1 + nl, *eol = strchr(l + 1, '\n');
		size_t n = eol ? (size_t)(eol - l - 1) : strlen(l + 1);

		if (n < nl || strncasecmp(l + 1, name, nl))
			continue;
		n -= nl;
		while (n && (*v == ' ' || *v == '\t'))
			v++, n--;
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
			n--;
		*len = n;
		return v;
	}
	return NULL;
}

const char *const http_types[NR_HTTP_FORMATS] = {
	[HTTP_TEXT] = HTTP_TYPE_PROM,
	[HTTP_OPENMETRICS] = HTTP_TYPE_OPENMETRICS,
	[HTTP_PROTOBUF] = HTTP_TYPE_PROTOBUF,
};

/* Whether the parameters of a media range (p, n bytes, after its first
 * ';') hold name=value, blanks around ';' ignored. */
static bool has_param(const char *p, size_t n, const char *nv)
{
	size_t l = strlen(nv);

	for (size_t i = 0; i + l <= n; i++) {
		if (strncasecmp(p + i, nv, l) || (i && p[i - 1] != ';' && p[i - 1] != ' '))
			continue;
		if (i + l == n || p[i + l] == ';' || p[i + l] == ' ')
			return true;
	}
	return false;
}

/* An Accept weight as RFC 9110 writes it, "0" or "1" with up to three
 * decimals, from s up to end (a parameter or the element ends it); 0, not
 * acceptable, for any other text ("0x1p3", "5", "1e0"): strtod would
 * read those as 8, 5 and 1. */
static double qvalue(const char *s, const char *end)
{
	const char *p = s;
	double v;
	int d = 0;

	if (p >= end || (*p != '0' && *p != '1'))
		return 0;
	v = *p++ - '0';
	if (p < end && *p == '.') {
		double scale = 0.1;

		for (p++; p < end && d < 3 && *p >= '0' && *p <= '9'; p++, d++, scale /= 10)
			v += (*p - '0') * scale;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((p < end && *p != ';') || v > 1)
		return 0;
	return v;
}

enum http_format http_negotiate(const char *accept, size_t len)
{
	enum http_format best = HTTP_TEXT;
	double best_q = -1;
	const char *p = accept, *end = accept + len;

	while (p < end) {
		const char *comma = memchr(p, ',', end - p), *e = comma ? comma : end;
		const char *semi = memchr(p, ';', e - p), *q;
		size_t tl;
		double qv = 1;
		int f = -1;

		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		tl = (semi ? semi : e) - p;
		while (tl && (p[tl - 1] == ' ' || p[tl - 1] == '\t'))
			tl--;
		if (semi && (q = memmem(semi, e - semi, "q=", 2)) && (q[-1] == ';' || q[-1] == ' '))
			qv = qvalue(q + 2, e);
		if (tl == 28 && !strncasecmp(p, "application/openmetrics-text", 28))
			f = HTTP_OPENMETRICS;
		else if (tl == 31 && !strncasecmp(p, "application/vnd.google.protobuf", 31) && semi &&
			 has_param(semi + 1, e - semi - 1, "proto=io.prometheus.client.MetricFamily") &&
			 has_param(semi + 1, e - semi - 1, "encoding=delimited"))
			f = HTTP_PROTOBUF;
		else if ((tl == 10 && !strncasecmp(p, "text/plain", 10)) || (tl == 3 && !strncmp(p, "*/*", 3)))
			f = HTTP_TEXT;
		if (f >= 0 && qv > 0 && qv > best_q) {
			best = f;
			best_q = qv;
		}
		p = e + 1;
	}
	return best;
}

static enum http_format wanted_format(const char *req)
{
	size_t n;
	const char *v = header(req, "accept:", &n);

	return v ? http_negotiate(v, n) : HTTP_TEXT;
}

/* Whether name (len bytes) is one of the comma-separated list's. */
static bool in_list(const char *list, const char *name, size_t len)
{
	while (list && *list) {
		const char *end = strchrnul(list, ',');

		if ((size_t)(end - list) == len && !strncasecmp(list, name, len))
			return true;
		list = *end ? end + 1 : end;
	}
	return false;
}

/*
 * DNS rebinding: a page from a name its owner points at 127.0.0.1 may
 * read what its browser fetches from that name, and the browser says the
 * name in Host:.  So a request names this server by an IP literal (no one
 * can rebind those), localhost, this host's name or one of --allow-host.
 * No Host: at all (HTTP/1.0 tools) is no browser's request.
 */
static bool host_allowed(const struct http_server *h, const char *req)
{
	char buf[256], self[256];
	size_t n;
	const char *v = header(req, "host:", &n);
	unsigned char addr[16];

	if (h->any_host || h->web || !v)
		return true;
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, v, n);
	buf[n] = '\0';
	if (buf[0] == '[') {
		char *end = strchr(buf, ']');

		if (!end || (end[1] && end[1] != ':'))
			return false;
		*end = '\0';
		return inet_pton(AF_INET6, buf + 1, addr) == 1;
	}
	v = strchr(buf, ':');
	if (v) {
		if (strspn(v + 1, "0123456789") != strlen(v + 1))
			return false;
		buf[v - buf] = '\0';
	}
	n = strlen(buf);
	if (n && buf[n - 1] == '.')	/* the absolute form of the same name */
		buf[--n] = '\0';
	if (inet_pton(AF_INET, buf, addr) == 1 || !strcasecmp(buf, "localhost"))
		return true;
	if (!gethostname(self, sizeof(self)) && !strcasecmp(buf, self))
		return true;
	return in_list(h->allow_hosts, buf, n);
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
	if (!host_allowed(h, c->req)) {
		h->rejected++;
		respond(c, 403, NULL, false);
		return;
	}
	if (h->web && h->web->nusers) {
		size_t n;
		const char *v = header(c->req, "authorization:", &n);
		int status = auth_status(h, c->peer, v, n);

		if (status) {
			h->rejected++;
			respond(c, status, NULL, false);
			return;
		}
	}
	if ((size_t)(sp1 - c->req) != 3 || strncmp(c->req, "GET", 3)) {
		respond(c, 405, NULL, false);
		return;
	}
	q = memchr(sp1 + 1, '?', sp2 - sp1 - 1);
	plen = (q ? q : sp2) - sp1 - 1;
	h->requests++;
	if (plen == 8 && !strncmp(sp1 + 1, "/metrics", 8)) {
		struct http_body *b = h->metrics(h->ctx, wanted_format(c->req));

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

/* What OpenSSL said, as recv()/send() would: r > 0 bytes, 0 at the
 * peer's close_notify, else -1 with errno EAGAIN (and the poll events
 * OpenSSL waits for in c->ssl_events) or ECONNRESET. */
static ssize_t ssl_result(struct http_conn *c, int r)
{
	c->ssl_events = 0;
	if (r > 0)
		return r;
	switch (SSL_get_error(c->ssl, r)) {
	case SSL_ERROR_WANT_READ:
		c->ssl_events = POLLIN;
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_WANT_WRITE:
		c->ssl_events = POLLOUT;
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	default:
		/* a failed handshake (plain HTTP to the TLS port, a bad client
		 * certificate): the connection just ends */
		ERR_clear_error();
		errno = ECONNRESET;
		return -1;
	}
}

static ssize_t conn_recv(struct http_conn *c, void *buf, size_t n)
{
	if (!c->ssl || c->state == C_DRAIN)
		return recv(c->fd, buf, n, 0);
	return ssl_result(c, SSL_read(c->ssl, buf, n));
}

static ssize_t conn_send(struct http_conn *c, const void *buf, size_t n)
{
	if (!c->ssl)
		return send(c->fd, buf, n, MSG_NOSIGNAL);
	return ssl_result(c, SSL_write(c->ssl, buf, n));
}

static void conn_read(struct http_server *h, struct http_conn *c)
{
	ssize_t r;

	if (c->state == C_DRAIN) {
		char sink[4096];

		/* the client may still be sending what we refused: read it so
		 * that our answer is not lost to a reset */
		r = conn_recv(c, sink, sizeof(sink));
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			conn_close(h, c);
		return;
	}
	r = conn_recv(c, c->req + c->len, sizeof(c->req) - 1 - c->len);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		conn_close(h, c);
		return;
	}
	if (r < 0)
		return;
	c->len += r;
	c->req[c->len] = '\0';
	if (memchr(c->req + c->len - r, '\0', r)) {
		/* no request holds one: the text functions would stop at it */
		h->rejected++;
		respond(c, 400, NULL, false);
	} else if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n")) {
		handle_request(h, c);
	} else if (c->len == sizeof(c->req) - 1) {
		h->rejected++;
		respond(c, strchr(c->req, '\n') ? 431 : 414, NULL, false);
	} else if (c->ssl && SSL_pending(c->ssl)) {
		conn_read(h, c);	/* decrypted already: poll would not say */
	}
}

static void conn_write(struct http_server *h, struct http_conn *c)
{
	while (c->head_off < c->head_len || c->out_off < c->out_len) {
		bool head = c->head_off < c->head_len;
		const char *p = head ? c->head + c->head_off : c->out + c->out_off;
		size_t n = head ? c->head_len - c->head_off : c->out_len - c->out_off;
		ssize_t w = conn_send(c, p, n);

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
	if (c->ssl)
		SSL_shutdown(c->ssl);	/* close_notify, if the socket takes it */
	c->ssl_events = 0;
	shutdown(c->fd, SHUT_WR);
	c->state = C_DRAIN;
}

/* OpenSSL's socket BIO writes with write(): to a peer that has reset the
 * connection, that raises SIGPIPE, which ends the process (a client with
 * no credentials could stop kdist serve so).  The connections' BIO is the
 * socket BIO with its writes made by send(MSG_NOSIGNAL). */
static int nosigpipe_write(BIO *b, const char *buf, int n)
{
	ssize_t r;

	BIO_clear_retry_flags(b);
	r = send(BIO_get_fd(b, NULL), buf, n, MSG_NOSIGNAL);
	if (r <= 0 && BIO_sock_should_retry((int)r))
		BIO_set_retry_write(b);
	return (int)r;
}

static BIO *nosigpipe_bio(int fd)
{
	static BIO_METHOD *m;
	const BIO_METHOD *s = BIO_s_socket();
	BIO *b;

	if (!m) {
		m = BIO_meth_new(BIO_TYPE_SOCKET, "socket without SIGPIPE");
		if (m && !(BIO_meth_set_write(m, nosigpipe_write) &&
			   BIO_meth_set_read(m, BIO_meth_get_read(s)) &&
			   BIO_meth_set_puts(m, BIO_meth_get_puts(s)) &&
			   BIO_meth_set_ctrl(m, BIO_meth_get_ctrl(s)) &&
			   BIO_meth_set_create(m, BIO_meth_get_create(s)) &&
			   BIO_meth_set_destroy(m, BIO_meth_get_destroy(s)))) {
			BIO_meth_free(m);
			m = NULL;
		}
		if (!m)
			return NULL;
	}
	b = BIO_new(m);
	if (b)
		BIO_set_fd(b, fd, BIO_NOCLOSE);
	return b;
}

/* Slot c takes connection fd: 0, or -ENOMEM with fd closed. */
static int conn_start(struct http_server *h, struct http_conn *c, int fd, uint64_t now)
{
	*c = (struct http_conn){ .fd = fd, .state = C_READ, .start = now,
				 .deadline = now + HTTP_HEADER_TIMEOUT_MS };
	if (h->web && h->web->tls_ctx) {
		BIO *bio = nosigpipe_bio(fd);

		c->ssl = bio ? SSL_new(h->web->tls_ctx) : NULL;
		if (c->ssl)
			SSL_set_bio(c->ssl, bio, bio);	/* c->ssl owns it now */
		else
			BIO_free(bio);
		if (!c->ssl) {
			ERR_clear_error();
			close(fd);
			*c = (struct http_conn){ .fd = -1 };
			return -ENOMEM;
		}
		SSL_set_accept_state(c->ssl);
	}
	h->nconns++;
	return 0;
}

int http_adopt(struct http_server *h, int fd)
{
	uint64_t now = now_ms();

	if (conns_alloc(h))
		return -ENOMEM;
	for (int i = 0; i < HTTP_MAX_CONNS; i++) {
		struct http_conn *c = &h->conns[i];

		if (c->fd >= 0)
			continue;
		return conn_start(h, c, fd, now);
	}
	return -ENOSPC;
}

static void peer_key(const struct sockaddr_storage *ss, unsigned char key[16])
{
	memset(key, 0, 16);
	if (ss->ss_family == AF_INET6) {
		/* one client, one /64: the least a host is given */
		memcpy(key, &((const struct sockaddr_in6 *)ss)->sin6_addr, 8);
	} else if (ss->ss_family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	}
}

/* The oldest connection in state st, from peer only if given, or NULL. */
static struct http_conn *oldest(struct http_server *h, enum conn_state st, const unsigned char *peer)
{
	struct http_conn *v = NULL;

	for (int i = 0; i < HTTP_MAX_CONNS; i++) {
		struct http_conn *c = &h->conns[i];

		if (c->fd < 0 || c->state != st || (peer && memcmp(c->peer, peer, 16)))
			continue;
		if (!v || c->start < v->start)
			v = c;
	}
	return v;
}

/* A slot for a new connection from peer (from peer only, if given): the
 * oldest one whose answer is sent and that the client only holds open,
 * else the one of the oldest client still sending its request, read once
 * more first so that a request already here is answered rather than
 * dropped.  NULL: every connection is being answered. */
static struct http_conn *evict(struct http_server *h, const unsigned char *peer)
{
	struct http_conn *done = oldest(h, C_DRAIN, peer);

	if (done) {
		conn_close(h, done);
		return done;
	}
	for (;;) {
		struct http_conn *v = oldest(h, C_READ, peer);

		if (!v)
			return NULL;
		conn_read(h, v);
		if (v->fd >= 0 && v->state == C_READ) {
			h->rejected++;
			conn_close(h, v);
		}
		if (v->fd < 0)
			return v;
		if (v->state == C_WRITE)
			conn_write(h, v);
	}
}

/* accept4(), and at the descriptor limit the spare descriptor given up for
 * the connection: *full then says it may only replace another. */
static int accept_one(struct http_server *h, struct sockaddr_storage *ss, bool *full)
{
	socklen_t sl = sizeof(*ss);
	int fd = accept4(h->fd, (struct sockaddr *)ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

	*full = false;
	if (fd >= 0 || (errno != EMFILE && errno != ENFILE) || h->spare_fd < 0)
		return fd;
	close(h->spare_fd);
	h->spare_fd = -1;
	sl = sizeof(*ss);
	fd = accept4(h->fd, (struct sockaddr *)ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
	*full = true;
	return fd;
}

static void accept_conns(struct http_server *h)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
				   "Connection: close\r\n\r\n";
	uint64_t now = now_ms();

	for (int k = 0; k < HTTP_MAX_CONNS; k++) {
		struct sockaddr_storage ss = { 0 };
		struct http_conn *c = NULL;
		unsigned char peer[16];
		int fd, mine = 0;
		bool full;

		fd = accept_one(h, &ss, &full);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			/* out of descriptors or memory with nothing to give
			 * up: the pending connections wait in the backlog
			 * rather than wake an idle loop at once again */
			if (errno != EAGAIN)
				h->paused_until = now + 100;
			break;
		}
		peer_key(&ss, peer);
		for (int i = 0; i < HTTP_MAX_CONNS; i++) {
			if (h->conns[i].fd < 0)
				c = c ? c : &h->conns[i];
			else if (!memcmp(h->conns[i].peer, peer, 16))
				mine++;
		}
		if (mine >= HTTP_MAX_PER_CLIENT || full || !c)
			c = evict(h, mine >= HTTP_MAX_PER_CLIENT ? peer : NULL);
		if (!c) {
			h->rejected++;
			if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL) < 0)
				kd_info("failed to answer a connection over the limit: %s",
					strerror(errno));
			close(fd);
		} else if (!conn_start(h, c, fd, now)) {
			memcpy(c->peer, peer, 16);
		}
		/* the descriptor freed by the evicted or the refused one */
		if (h->spare_fd < 0)
			h->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
}

int http_pollfds(struct http_server *h, struct pollfd *p, int *timeout_ms)
{
	uint64_t now = now_ms(), first = UINT64_MAX;
	int n = 0;

	p[n++] = (struct pollfd){ .fd = h->fd, .events = now < h->paused_until ? 0 : POLLIN };
	if (now < h->paused_until)
		first = h->paused_until;
	for (int i = 0; i < HTTP_MAX_CONNS; i++) {
		struct http_conn *c = &h->conns[i];

		if (c->fd < 0)
			continue;
		p[n++] = (struct pollfd){ .fd = c->fd,
					  .events = c->ssl_events ? c->ssl_events :
						    c->state == C_WRITE ? POLLOUT : POLLIN };
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
