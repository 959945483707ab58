/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP/1.x server for `kdist serve`: GET of two paths, on
 * non-blocking sockets driven by the caller's poll loop, so that no client
 * can block the loop.  Bounded: at most HTTP_MAX_CONNS connections, of
 * them at most HTTP_MAX_PER_CLIENT from one address; a request of at most
 * HTTP_MAX_REQUEST bytes (longer: 414 or 431) that must be complete
 * HTTP_HEADER_TIMEOUT_MS after accept; HTTP_TIMEOUT_MS to send the answer;
 * one request per connection.  When the slots (or the descriptors, or the
 * client's share) run out, a new connection takes the place of the oldest
 * one still sending its request, or is answered 503 when every one is
 * being answered: clients that open connections and send little hold no
 * slot a scrape needs, as a scrape sends its request at once.  Bodies are
 * shared and counted, so concurrent scrapes of one rendering hold one copy.
 *
 * Why not libmicrohttpd: Debian's static libmicrohttpd.a calls GnuTLS,
 * which Debian ships only as a shared library, and kdist is one binary
 * that needs nothing but glibc on the target (docs/serve.md).
 */
#ifndef KDIST_HTTP_H
#define KDIST_HTTP_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP_MAX_CONNS 128
#define HTTP_MAX_REQUEST 4096
#define HTTP_MAX_PER_CLIENT 64
#define HTTP_HEADER_TIMEOUT_MS 3000
#define HTTP_TIMEOUT_MS 10000
/* Wrong passwords: each costs a bcrypt on the serving loop, so a client
 * (an address, IPv6: a /64) gets at most HTTP_AUTH_FAILS of them checked
 * in HTTP_AUTH_WINDOW_MS; beyond, 429 without a check.  The last value
 * accepted is known without one, so scrapes with the right password are
 * answered from any client.  HTTP_AUTH_CLIENTS clients are followed. */
#define HTTP_AUTH_FAILS 5
#define HTTP_AUTH_WINDOW_MS 10000
#define HTTP_AUTH_CLIENTS 64

/* The exposition formats, as the Accept header chooses them (in the order
 * of enum prom_format), and their Content-Types. */
enum http_format { HTTP_TEXT, HTTP_OPENMETRICS, HTTP_PROTOBUF, NR_HTTP_FORMATS };
#define HTTP_TYPE_PROM "text/plain; version=0.0.4; charset=utf-8"
#define HTTP_TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define HTTP_TYPE_PROTOBUF \
	"application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"
extern const char *const http_types[NR_HTTP_FORMATS];

/* The format an Accept header's value (len bytes) asks for: the supported
 * media type with the highest q (the first of equals), HTTP_TEXT when none
 * is. */
enum http_format http_negotiate(const char *accept, size_t len);

/* A response body shared by the connections sending it. */
struct http_body {
	int refs;
	size_t len;
	char *data;		/* malloc'd */
	const char *type;	/* Content-Type */
};

struct http_body *http_body_new(char *data, size_t len, const char *type);
struct http_body *http_body_get(struct http_body *b);
void http_body_put(struct http_body *b);

struct http_conn;

struct http_server {
	int fd;
	char addr[64];			/* "ADDR:PORT" as bound */
	/* GET /metrics: a body (a reference for the server to put), or NULL
	 * for a 500, in the format the client asked for. */
	struct http_body *(*metrics)(void *ctx, enum http_format format);
	const char *index;		/* GET / (text/html) */
	void *ctx;
	/* Host: names accepted besides IP literals, localhost and this
	 * host's name: comma-separated, or NULL.  any_host: no check (the
	 * requests are authenticated, so a rebound name gains nothing). */
	const char *allow_hosts;
	bool any_host;
	/* --web-config: TLS (web->tls_ctx) and basic auth (web->users), or
	 * NULL; either one turns the Host: check off */
	struct webconfig *web;
	struct http_conn *conns;	/* HTTP_MAX_CONNS, fd -1 when free */
	int nconns;
	int spare_fd;			/* given up to accept at EMFILE */
	uint64_t paused_until;		/* ms: no accept before (out of fds) */
	uint64_t requests, rejected;	/* served; refused, evicted or timed out */
	struct {
		unsigned char peer[16];
		uint64_t since;		/* ms: the window's start */
		unsigned int n;		/* wrong passwords in it */
	} auth_fails[HTTP_AUTH_CLIENTS];
};

/* Listen on "ADDR:PORT" (IPv4, or [IPv6]:PORT).  0 or -errno, said. */
int http_open(struct http_server *h, const char *listen);
void http_close(struct http_server *h);
/* Serve a connected socket fd (non-blocking) as if accepted, on a server
 * h that may have no listening socket (fd -1): for tests and fuzzing.
 * 0, or -ENOSPC/-ENOMEM (fd not taken). */
int http_adopt(struct http_server *h, int fd);

/* The descriptors to poll, into p (room for 1 + HTTP_MAX_CONNS), and the
 * poll timeout in ms (-1: none) for the oldest connection's deadline. */
int http_pollfds(struct http_server *h, struct pollfd *p, int *timeout_ms);
/* Serve what poll said about the n descriptors http_pollfds gave. */
void http_serve(struct http_server *h, const struct pollfd *p, int n);

#endif
