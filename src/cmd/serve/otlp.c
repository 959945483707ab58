// SPDX-License-Identifier: GPL-2.0
/* kdist serve --otlp: see otlp.h. */
#include "cmd/serve/otlp.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>

/* opentelemetry-proto: the fields written, by message */
enum {
	REQ_RESOURCE_METRICS = 1,			/* ExportMetricsServiceRequest */
	RM_RESOURCE = 1, RM_SCOPE_METRICS = 2,		/* ResourceMetrics */
	RES_ATTRIBUTES = 1,				/* Resource */
	SM_SCOPE = 1, SM_METRICS = 2,			/* ScopeMetrics */
	SCOPE_NAME = 1, SCOPE_VERSION = 2,		/* InstrumentationScope */
	KV_KEY = 1, KV_VALUE = 2,			/* KeyValue */
	ANY_STRING = 1,					/* AnyValue */
	M_NAME = 1, M_DESCRIPTION = 2, M_UNIT = 3, M_SUM = 7, M_EXP_HISTOGRAM = 10, /* Metric */
	DATA_POINTS = 1, TEMPORALITY = 2, MONOTONIC = 3, /* Sum, ExponentialHistogram */
	NDP_START = 2, NDP_TIME = 3, NDP_DOUBLE = 4, NDP_ATTRIBUTES = 7, /* NumberDataPoint */
	EDP_ATTRIBUTES = 1, EDP_START = 2, EDP_TIME = 3, EDP_COUNT = 4, EDP_SUM = 5,
	EDP_SCALE = 6, EDP_ZERO_COUNT = 7, EDP_POSITIVE = 8, EDP_MIN = 12, EDP_MAX = 13,
	EDP_ZERO_THRESHOLD = 14,			/* ExponentialHistogramDataPoint */
	BK_OFFSET = 1, BK_COUNTS = 2,			/* ExponentialHistogramDataPoint.Buckets */
};
#define CUMULATIVE 2	/* AggregationTemporality */

static void attribute(struct pb *pb, int field, const char *key, const char *value)
{
	char buf[1024], *alloc;

	pb_begin(pb, field);
	pb_string(pb, KV_KEY, key);
	pb_begin(pb, KV_VALUE);
	pb_string(pb, ANY_STRING, prom_label_text(value, buf, sizeof(buf), &alloc));
	free(alloc);
	pb_end(pb);
	pb_end(pb);
}

static void metric_begin(struct pb *pb, const char *name, const char *help, const char *unit,
			 bool sum)
{
	pb_begin(pb, SM_METRICS);
	pb_string(pb, M_NAME, name);
	pb_string(pb, M_DESCRIPTION, help);
	if (unit)
		pb_string(pb, M_UNIT, unit);
	pb_begin(pb, sum ? M_SUM : M_EXP_HISTOGRAM);
}

static void metric_end(struct pb *pb, bool sum)
{
	pb_varint(pb, TEMPORALITY, CUMULATIVE);
	if (sum)
		pb_varint(pb, MONOTONIC, 1);
	pb_end(pb);
	pb_end(pb);
}

static void number_point(struct pb *pb, const struct prom_label *l, int nl, double v,
			 uint64_t start, uint64_t now)
{
	pb_begin(pb, DATA_POINTS);
	for (int i = 0; i < nl; i++)
		attribute(pb, NDP_ATTRIBUTES, l[i].name, l[i].value);
	pb_fixed64(pb, NDP_START, start);
	pb_fixed64(pb, NDP_TIME, now);
	pb_double(pb, NDP_DOUBLE, v);
	pb_end(pb);
}

static void histogram_point(struct pb *pb, const struct prom_label *l, int nl,
			    const struct hist *h, bool latency, uint64_t start, uint64_t now)
{
	int32_t idx[HIST_BUCKETS];
	uint64_t count[HIST_BUCKETS], zero;
	int n = prom_native(h, latency, &zero, idx, count, HIST_BUCKETS);
	double unit = latency ? 1e9 : 1;

	pb_begin(pb, DATA_POINTS);
	for (int i = 0; i < nl; i++)
		attribute(pb, EDP_ATTRIBUTES, l[i].name, l[i].value);
	pb_fixed64(pb, EDP_START, start);
	pb_fixed64(pb, EDP_TIME, now);
	pb_fixed64(pb, EDP_COUNT, h->count);
	pb_double(pb, EDP_SUM, h->sum / unit);
	pb_sint(pb, EDP_SCALE, PROM_SCHEMA);
	pb_fixed64(pb, EDP_ZERO_COUNT, zero);
	pb_double(pb, EDP_ZERO_THRESHOLD, ldexp(1, -128));
	if (n) {
		/* OTLP's bucket k holds (base^k, base^(k+1)]: Prometheus' k + 1 */
		pb_begin(pb, EDP_POSITIVE);
		pb_sint(pb, BK_OFFSET, idx[0] - 1);
		pb_begin(pb, BK_COUNTS);
		for (int i = 0, k = idx[0]; i < n; k++)
			pb_raw_varint(pb, idx[i] == k ? count[i++] : 0);
		pb_end(pb);
		pb_end(pb);
	}
	if (h->count) {
		pb_double(pb, EDP_MIN, h->min / unit);
		pb_double(pb, EDP_MAX, h->max / unit);
	}
	pb_end(pb);
}

/* One measurement's metric: an exponential histogram, or a count. */
static void measurement_metric(struct pb *pb, const struct prom_source *s,
			       struct prom_labels *pl, uint64_t start, uint64_t now)
{
	const struct measurement *m = s->m;
	bool latency = m->kind != M_VALUE;
	char name[160];
	struct hist h;

	snprintf(name, sizeof(name), "kdist_%s%s", s->name, m->counts ? "_events" : "");
	metric_begin(pb, name, m->title, m->counts ? NULL : latency ? "s" : m->value_unit,
		     m->counts);
	for (int i = 0; i < m->ngroups || (!i && !m->nby); i++) {
		const struct m_group *g = i < m->ngroups ? &m->groups[i] : NULL;

		prom_labels(m, g, pl);
		if (g)
			m_hist_get(&g->h, &h);
		else
			memset(&h, 0, sizeof(h));
		if (m->counts)
			number_point(pb, pl->l, pl->n, (double)h.count, start, now);
		else
			histogram_point(pb, pl->l, pl->n, &h, latency, start, now);
	}
	metric_end(pb, m->counts);
}

void otlp_encode(struct pb *pb, const struct prom_source *src, int n, const char *host,
		 const char *version, uint64_t start, uint64_t now)
{
	struct prom_labels *pl = malloc(sizeof(*pl));
	struct prom_label l[2] = { { "measurement", NULL }, { "reason", NULL } };

	if (!pl) {
		pb->oom = true;
		return;
	}
	pb_begin(pb, REQ_RESOURCE_METRICS);
	pb_begin(pb, RM_RESOURCE);
	attribute(pb, RES_ATTRIBUTES, "service.name", "kdist");
	attribute(pb, RES_ATTRIBUTES, "service.instance.id", host);
	attribute(pb, RES_ATTRIBUTES, "host.name", host);
	pb_end(pb);
	pb_begin(pb, RM_SCOPE_METRICS);
	pb_begin(pb, SM_SCOPE);
	pb_string(pb, SCOPE_NAME, "kdist");
	pb_string(pb, SCOPE_VERSION, version);
	pb_end(pb);
	for (int i = 0; i < n; i++)
		measurement_metric(pb, &src[i], pl, start, now);
	metric_begin(pb, "kdist_lost_events", "events a measurement could not count, by reason",
		     NULL, true);
	for (int i = 0; i < n; i++) {
		l[0].value = src[i].name;
		for (int d = 0; d < src[i].m->ndrops; d++) {
			l[1].value = src[i].m->drops[d].name;
			number_point(pb, l, 2, (double)src[i].m->drops[d].value, start, now);
		}
	}
	metric_end(pb, true);
	pb_end(pb);
	pb_end(pb);
	free(pl);
}

/* ---- the pusher ------------------------------------------------------- */

struct otlp {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct pb queue[OTLP_QUEUE];	/* oldest at head */
	int head, n;
	bool stop;
	int fd;				/* the connection under way, or -1 */
	char host[256], port[8], path[512];
	uint64_t sent, dropped, failed;
};

/* "http://HOST[:PORT][/PATH]", HOST a name, an IPv4 address or [IPv6]. */
static int url_parse(struct otlp *p, const char *url)
{
	const char *h = url + 7, *end, *port = NULL;
	size_t hl;

	if (strncmp(url, "http://", 7))
		goto bad;
	if (*h == '[') {
		end = strchr(h, ']');
		if (!end)
			goto bad;
		h++;
		hl = end - h;
		end++;
	} else {
		end = h + strcspn(h, ":/");
		hl = end - h;
	}
	if (*end == ':') {
		port = end + 1;
		end = port + strspn(port, "0123456789");
		if (end == port || end - port > 5 || atoi(port) < 1 || atoi(port) > 65535)
			goto bad;
	}
	if ((*end && *end != '/') || !hl || hl >= sizeof(p->host) || strlen(end) >= sizeof(p->path))
		goto bad;
	memcpy(p->host, h, hl);
	p->host[hl] = '\0';
	snprintf(p->port, sizeof(p->port), "%.*s", port ? (int)(end - port) : 2, port ? port : "80");
	snprintf(p->path, sizeof(p->path), "%s", *end ? end : "/v1/metrics");
	return 0;
bad:
	kd_err("bad --otlp '%s': expected http://HOST:PORT/PATH (e.g. "
	       "http://127.0.0.1:4318/v1/metrics; https is not supported)", url);
	return -EINVAL;
}

/* POST one request: its HTTP status, or -errno. */
static int post(struct otlp *p, const struct pb *req)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct timeval tv = { .tv_sec = OTLP_TIMEOUT_S };
	char head[1024], resp[64];
	int fd, n, status = -EIO;
	size_t got = 0;

	if (getaddrinfo(p->host, p->port, &hints, &ai) || !ai)
		return -EHOSTUNREACH;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		freeaddrinfo(ai);
		return -errno;
	}
	pthread_mutex_lock(&p->lock);
	p->fd = fd;	/* otlp_stop shuts it down */
	pthread_mutex_unlock(&p->lock);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = snprintf(head, sizeof(head),
		     "POST %s HTTP/1.1\r\nHost: %s%s%s:%s\r\nContent-Type: application/x-protobuf\r\n"
		     "Content-Length: %zu\r\nUser-Agent: kdist\r\nConnection: close\r\n\r\n",
		     p->path, strchr(p->host, ':') ? "[" : "", p->host,
		     strchr(p->host, ':') ? "]" : "", p->port, req->len);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) || send(fd, head, n, MSG_NOSIGNAL) != n)
		goto out;
	for (size_t off = 0; off < req->len;) {
		ssize_t w = send(fd, req->buf + off, req->len - off, MSG_NOSIGNAL);

		if (w <= 0)
			goto out;
		off += w;
	}
	/* the status line is all that counts: "HTTP/1.1 200 OK" */
	while (got < sizeof(resp) - 1) {
		ssize_t r = recv(fd, resp + got, sizeof(resp) - 1 - got, 0);

		if (r <= 0)
			break;
		got += r;
	}
	resp[got] = '\0';
	if (got >= 12 && !strncmp(resp, "HTTP/1.", 7))
		status = atoi(resp + 9);
out:
	pthread_mutex_lock(&p->lock);
	p->fd = -1;
	pthread_mutex_unlock(&p->lock);
	close(fd);
	freeaddrinfo(ai);
	return status;
}

static void *pusher(void *arg)
{
	struct otlp *p = arg;
	int pause_s = 1;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct pb req;
		struct timespec until;
		int status;

		if (!p->n) {
			pthread_cond_wait(&p->wake, &p->lock);
			continue;
		}
		req = p->queue[p->head];
		p->head = (p->head + 1) % OTLP_QUEUE;
		p->n--;
		pthread_mutex_unlock(&p->lock);
		status = post(p, &req);
		pthread_mutex_lock(&p->lock);
		if (status >= 200 && status < 300) {
			p->sent++;
			pb_free(&req);
			pause_s = 1;
			continue;
		}
		p->failed++;
		/* a request the receiver refuses stays refused: only network
		 * errors, 5xx, 408 and 429 are tried again */
		if ((status >= 400 && status < 500 && status != 408 && status != 429) ||
		    p->n == OTLP_QUEUE) {
			p->dropped++;
			pb_free(&req);
		} else {
			p->head = (p->head + OTLP_QUEUE - 1) % OTLP_QUEUE;
			p->queue[p->head] = req;
			p->n++;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += pause_s;
		pause_s = pause_s * 2 > OTLP_RETRY_MAX_S ? OTLP_RETRY_MAX_S : pause_s * 2;
		while (!p->stop && pthread_cond_timedwait(&p->wake, &p->lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct otlp *otlp_start(const char *url, int *err)
{
	struct otlp *p = calloc(1, sizeof(*p));
	sigset_t all, old;

	*err = -ENOMEM;
	if (!p)
		return NULL;
	p->fd = -1;
	*err = url_parse(p, url);
	if (*err) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	/* the thread takes no signal: SIGTERM and SIGHUP are the serving
	 * loop's (its signalfd), whatever the mask when it starts */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	*err = -pthread_create(&p->thread, NULL, pusher, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (*err) {
		kd_err("failed to start the OTLP pusher: %s", strerror(-*err));
		free(p);
		return NULL;
	}
	return p;
}

void otlp_push(struct otlp *p, struct pb *req)
{
	pthread_mutex_lock(&p->lock);
	if (p->n == OTLP_QUEUE) {
		pb_free(&p->queue[p->head]);
		p->head = (p->head + 1) % OTLP_QUEUE;
		p->n--;
		p->dropped++;
	}
	p->queue[(p->head + p->n++) % OTLP_QUEUE] = *req;
	memset(req, 0, sizeof(*req));
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
}

void otlp_counts(struct otlp *p, uint64_t *sent, uint64_t *dropped, uint64_t *failed)
{
	pthread_mutex_lock(&p->lock);
	*sent = p->sent;
	*dropped = p->dropped;
	*failed = p->failed;
	pthread_mutex_unlock(&p->lock);
}

void otlp_stop(struct otlp *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	if (p->fd >= 0)
		shutdown(p->fd, SHUT_RDWR);
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	for (int i = 0; i < p->n; i++)
		pb_free(&p->queue[(p->head + i) % OTLP_QUEUE]);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	free(p);
}
