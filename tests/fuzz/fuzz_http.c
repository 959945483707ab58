// SPDX-License-Identifier: GPL-2.0
/* The HTTP server on arbitrary requests, cut into arbitrary reads: the
 * input's first byte seeds the fragment sizes, the rest is what a client
 * sends through one end of a socket pair while the server serves the
 * other between fragments.  With the first byte's high bit, the server
 * has a user (basic auth, as --web-config gives it), so the request's
 * Authorization header reaches webconfig_auth.  Properties: the server
 * never crashes or answers twice; a complete request head (a blank line
 * within the size bound) always gets one answer with a known status, and
 * so does a NUL in the head (400). */
#include "fuzz.h"
#include "lib/http.h"
#include "lib/webconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

static const char index_html[] = "<html></html>\n";

/* user "prom", password "secret", bcrypt at the lowest cost (4) */
static char user_name[] = "prom";
static char user_hash[] = "$2b$04$7ONnTlpZXXaNZhQGpJfg0.6IbIodMLRdJUTOIznO8x.a0UgtVwDpm";

static struct http_body *metrics(void *ctx, enum http_format f)
{
	char *s = strdup(f == HTTP_OPENMETRICS ? "a 1\n# EOF\n" : "a 1\n");

	return http_body_new(s, strlen(s), http_types[f]);
}

/* One round of the server's loop without waiting. */
static void serve_once(struct http_server *h)
{
	struct pollfd p[1 + HTTP_MAX_CONNS];
	int timeout, n = http_pollfds(h, p, &timeout);

	if (poll(p, n, 0) > 0)
		http_serve(h, p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_server h = { .fd = -1, .spare_fd = -1, .metrics = metrics,
				 .index = index_html, .allow_hosts = "example.org,metrics" };
	char out[8192];
	size_t got = 0, off = 1;
	unsigned int seed = size ? data[0] : 0;
	int sv[2], rounds = 0;
	struct wc_user user = { user_name, user_hash };
	struct webconfig web = { .users = &user, .nusers = 1 };
	bool complete;

	if (seed & 0x80)
		h.web = &web;
	FUZZ_ASSERT(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv));
	FUZZ_ASSERT(!http_adopt(&h, sv[0]));
	while (off < size) {
		size_t frag = 1 + (seed % 97);
		ssize_t w;

		seed = seed * 1103515245 + 12345;
		if (frag > size - off)
			frag = size - off;
		w = send(sv[1], data + off, frag, MSG_NOSIGNAL);
		if (w < 0)
			break;	/* the server closed, or its buffer is full */
		off += w;
		serve_once(&h);
	}
	shutdown(sv[1], SHUT_WR);
	/* until the server has closed its end (each round reads or writes) */
	while (h.nconns && rounds++ < 10000) {
		ssize_t r;

		serve_once(&h);
		r = recv(sv[1], out + got, sizeof(out) - 1 - got, 0);
		if (r > 0)
			got += r;
	}
	FUZZ_ASSERT(h.nconns == 0);
	for (ssize_t r; (r = recv(sv[1], out + got, sizeof(out) - 1 - got, 0)) > 0;)
		got += r;
	out[got] = '\0';
	{
		size_t n = size > 1 ? size - 1 : 0;
		const char *req = (const char *)data + 1;

		if (n > HTTP_MAX_REQUEST - 1)
			n = HTTP_MAX_REQUEST - 1;
		complete = size > 1 && (memmem(req, n, "\r\n\r\n", 4) || memmem(req, n, "\n\n", 2) ||
					size - 1 >= HTTP_MAX_REQUEST - 1);
	}
	if (got) {
		int status = 0;

		FUZZ_ASSERT(sscanf(out, "HTTP/1.1 %d ", &status) == 1);
		FUZZ_ASSERT(strchr("2345", '0' + status / 100));
		/* one answer: one status line */
		FUZZ_ASSERT(!strstr(out + 1, "HTTP/1.1 "));
	} else {
		/* a whole head is always answered, and a NUL (400) */
		size_t n = size > 1 ? size - 1 : 0;

		if (n > HTTP_MAX_REQUEST - 1)
			n = HTTP_MAX_REQUEST - 1;
		FUZZ_ASSERT(!complete && !memchr(data + 1, '\0', n));
	}
	http_close(&h);
	close(sv[1]);
	free(web.good);
	return 0;
}
