// SPDX-License-Identifier: GPL-2.0
/*
 * kdist serve: named measurements, run continuously, served over HTTP in
 * the Prometheus exposition format (prom.c) by a small server (http.c).
 *
 * A measurement is a command line of any pair, recipe or func command
 * ("[name=NAME] [buckets=LIST:] COMMAND ARGS..."), parsed by cli.c and run
 * as a session of its own (kdist.h), read at every scrape.  SIGHUP
 * re-reads --config: measurements whose line is unchanged keep running,
 * others stop or start.
 */
#include "kernel/engine.h"
#include "lib/http.h"
#include "kernel/container.h"
#include "cmd/serve/otlp.h"
#include "lib/privsep.h"
#include "view/prom.h"
#include "cmd/serve/serve.h"
#include "cmd/serve/serve_int.h"
#include "lib/util.h"
#include "lib/webconfig.h"
#include "cmd/session.h"
#include "cmd/command.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#ifndef KDIST_VERSION
#define KDIST_VERSION "unknown"
#endif

#define DEFAULT_LISTEN "127.0.0.1:9669"
/* a scrape while a rendering is still being sent to another client shares
 * it, unless it is older than this */
#define RENDER_REUSE_NS 1000000000ULL
#define DEFAULT_OTLP_S 10	/* --otlp-interval */

/* A reload's reading and parsing runs in a thread of its own, so that
 * scrapes go on meanwhile (the largest configuration takes a second on a
 * loaded machine); attaching what it gives stays on the serving thread. */
struct reloader {
	pthread_t thread;
	int pipe[2];		/* the thread writes a byte when done */
	bool running, again;	/* again: a SIGHUP came meanwhile */
	struct served *list;
	int err;
};

struct server {
	struct options *top;
	struct reloader rl;
	struct prom_buckets buckets;	/* --buckets, for latencies */
	struct prom_buckets log2;
	struct served *list;
	struct http_server http;
	struct webconfig web;		/* --web-config */
	struct http_body *cache[NR_HTTP_FORMATS];
	uint64_t cache_ns[NR_HTTP_FORMATS];
	double start_unix, render_s;
	struct otlp *otlp;		/* --otlp */
	uint64_t otlp_next_ns;		/* monotonic: the next push */
};

static void served_free(struct served *sv)
{
	if (!sv)
		return;
	if (sv->s.cmd)
		session_stop(&sv->s);
	cgroup_set_free(sv->o.cgset);
	free(sv->o.args);
	free(sv->argv);
	free(sv->words);
	free(sv->text);
	free(sv->context);
	free(sv);
}

void serve_list_free(struct served *l)
{
	while (l) {
		struct served *next = l->next;

		served_free(l);
		l = next;
	}
}

/* The measurements of --measure and --config, parsed, in *out.  0 or
 * -errno after one line. */
static int specs_load(struct server *srv, struct served **out)
{
	struct served *head = NULL, **tail = &head, *sv;
	char *conf = NULL;
	size_t len = 0;
	int err = 0;

	*out = NULL;
	for (int i = 0; i < srv->top->nmeasures && !err; i++) {
		err = serve_served_parse(srv->top, srv->top->measures[i], NULL, 0, &sv);
		*tail = sv;
		if (sv)
			tail = &sv->next;
	}
	if (!err && srv->top->config) {
		err = serve_config_read(srv->top->config, &conf, &len);
		if (!err)
			err = serve_config_parse(conf, len, srv->top->config, srv->top, &tail);
		free(conf);
	}
	if (!err)
		err = serve_names_unique(head);
	if (!head && !err) {
		kd_err("bad arguments: no measurement (give --measure SPEC or --config FILE)");
		err = -EINVAL;
	}
	if (err) {
		serve_list_free(head);
		return err;
	}
	*out = head;
	return 0;
}

static int served_start(struct served *sv)
{
	int err;

	kd_err_context = sv->context;
	err = options_resolve(&sv->o);
	if (!err)
		err = session_start(&sv->s);
	kd_err_context = NULL;
	sv->started = !err;
	if (!err)
		kd_info("measurement '%s' attached: %s", sv->name, sv->text);
	return err;
}

/* Start every measurement of l that is not running yet. */
static int list_start(struct served *l)
{
	int err = 0;

	for (struct served *sv = l; sv && !err; sv = sv->next) {
		if (!sv->s.priv)
			err = served_start(sv);
	}
	return err;
}

/* SIGHUP: the new measurements start, the removed ones stop, the unchanged
 * ones (same name, same line) keep running.  A bad configuration changes
 * nothing. */
static void reload_apply(struct server *srv, struct served *nl, int err)
{
	struct served **np, **op;
	int total = 0, started = 0, stopped = 0;

	if (err) {
		kd_err("failed to reload %s: the measurements run on unchanged", srv->top->config);
		return;
	}
	for (struct served *sv = srv->list; sv; sv = sv->next)
		sv->started = false;
	/* an unchanged measurement's running node takes the place of its
	 * new parse in the new list */
	for (np = &nl; *np; np = &(*np)->next) {
		for (op = &srv->list; *op; op = &(*op)->next) {
			struct served *old = *op, *sv = *np;

			if (strcmp(old->name, sv->name) || strcmp(old->text, sv->text))
				continue;
			*op = old->next;
			old->next = sv->next;
			*np = old;
			sv->next = NULL;
			served_free(sv);
			break;
		}
	}
	err = list_start(nl);
	if (err) {
		/* the running ones go back, the new ones stop */
		for (np = &nl; *np;) {
			struct served *sv = *np;

			if (sv->s.priv && !sv->started) {
				*np = sv->next;
				sv->next = srv->list;
				srv->list = sv;
			} else {
				np = &sv->next;
			}
		}
		serve_list_free(nl);
		kd_err("failed to reload %s: the measurements run on unchanged", srv->top->config);
		return;
	}
	for (struct served *sv = srv->list; sv; sv = sv->next)
		stopped++;
	for (struct served *sv = nl; sv; sv = sv->next) {
		total++;
		started += sv->started;
	}
	serve_list_free(srv->list);	/* stops the removed ones */
	srv->list = nl;
	for (int i = 0; i < NR_HTTP_FORMATS; i++) {
		http_body_put(srv->cache[i]);
		srv->cache[i] = NULL;
	}
	/* said once the removed ones are gone: a reload has taken effect */
	fprintf(stderr, "Reloaded %s: %d measurement%s, %d started, %d stopped, %d unchanged\n",
		srv->top->config, total, total == 1 ? "" : "s", started, stopped, total - started);
}

static void *reload_parse(void *arg)
{
	struct server *srv = arg;
	char done = 1;

	srv->rl.err = specs_load(srv, &srv->rl.list);
	if (write(srv->rl.pipe[1], &done, 1) != 1)
		kd_err("failed to signal a parsed reload: %s", strerror(errno));
	return NULL;
}

/* SIGHUP: parse in the reloader's thread, or once more after it. */
static void reload(struct server *srv)
{
	int err;

	if (!srv->top->config) {
		kd_err("nothing to reload: serve runs without --config");
		return;
	}
	if (srv->rl.running) {
		srv->rl.again = true;
		return;
	}
	if (srv->rl.pipe[0] < 0 && pipe2(srv->rl.pipe, O_CLOEXEC | O_NONBLOCK)) {
		kd_err("failed to reload %s: %s", srv->top->config, strerror(errno));
		return;
	}
	err = pthread_create(&srv->rl.thread, NULL, reload_parse, srv);
	if (err) {
		kd_err("failed to reload %s: %s", srv->top->config, strerror(err));
		return;
	}
	srv->rl.running = true;
}

/* The reloader's thread is done: apply what it parsed. */
static void reload_done(struct server *srv)
{
	char c;

	while (read(srv->rl.pipe[0], &c, 1) == 1)
		;
	pthread_join(srv->rl.thread, NULL);
	srv->rl.running = false;
	reload_apply(srv, srv->rl.list, srv->rl.err);
	srv->rl.list = NULL;
	if (srv->rl.again) {
		srv->rl.again = false;
		reload(srv);
	}
}

static double unix_now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* kdist's own process: CPU, memory, build; the HTTP server's counts. */
static void write_process(struct prom_out *o, struct server *srv)
{
	struct rusage ru;
	struct utsname u;
	long pages = 0, rss = 0;
	FILE *statm = fopen("/proc/self/statm", "r");
	struct prom_label build[2] = { { "version", KDIST_VERSION }, { "kernel", u.release } };

	if (statm) {
		if (fscanf(statm, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(statm);
	}
	getrusage(RUSAGE_SELF, &ru);
	uname(&u);
	prom_family(o, "process_cpu_seconds", "counter", "user and system CPU time of kdist", NULL);
	prom_sample(o, NULL, 0, ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
				(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	prom_family(o, "process_resident_memory_bytes", "gauge", "resident memory of kdist", NULL);
	prom_sample(o, NULL, 0, (double)rss * sysconf(_SC_PAGESIZE));
	prom_family(o, "process_start_time_seconds", "gauge",
		    "when kdist serve started (unix time)", NULL);
	prom_sample(o, NULL, 0, srv->start_unix);
	prom_family(o, "kdist_build", "info", "kdist's version and the running kernel", NULL);
	prom_sample(o, build, 2, 1);
	prom_family(o, "kdist_http_requests", "counter", "HTTP requests answered", NULL);
	prom_sample(o, NULL, 0, (double)srv->http.requests);
	prom_family(o, "kdist_http_rejected", "counter",
		    "HTTP connections refused (too many, too long, too slow)", NULL);
	prom_sample(o, NULL, 0, (double)srv->http.rejected);
	prom_family(o, "kdist_render_seconds", "gauge",
		    "time the previous rendering of /metrics took (reading every measurement)", NULL);
	prom_sample(o, NULL, 0, srv->render_s);
	if (srv->otlp) {
		struct prom_label res = { "result", NULL };
		uint64_t n[3];

		otlp_counts(srv->otlp, &n[0], &n[1], &n[2]);
		prom_family(o, "kdist_otlp_requests", "counter",
			    "OTLP pushes: sent (accepted by the receiver), dropped (queue full or "
			    "refused), failed (tries that failed, retried or dropped)", NULL);
		for (int i = 0; i < 3; i++) {
			res.value = (const char *[]){ "sent", "dropped", "failed" }[i];
			prom_sample(o, &res, 1, (double)n[i]);
		}
	}
}

/* Every measurement read once, its sources in *src and *ms (n of them,
 * freed with sources_free).  0 or -errno, said. */
static int sources_read(struct server *srv, struct prom_source **src, struct measurement **ms,
			int *count)
{
	int n = 0, err = 0;

	for (struct served *sv = srv->list; sv; sv = sv->next)
		n++;
	*ms = calloc(n ? n : 1, sizeof(**ms));
	*src = calloc(n ? n : 1, sizeof(**src));
	*count = 0;
	if (!*ms || !*src)
		return -ENOMEM;
	for (struct served *sv = srv->list; sv; sv = sv->next) {
		struct measurement *m = &(*ms)[*count];

		err = sv->s.cmd->read(&sv->s, m);
		if (err) {
			measurement_clear(m);
			kd_err("failed to read measurement '%s': %s", sv->name, strerror(-err));
			return err;
		}
		(*src)[(*count)++] = (struct prom_source){
			.name = sv->name, .m = m, .max_groups = sv->o.max_groups,
			.b = sv->own_buckets ? &sv->b : m->kind == M_VALUE ? &srv->log2 :
			     &srv->buckets };
	}
	return 0;
}

static void sources_free(struct prom_source *src, struct measurement *ms, int n)
{
	for (int i = 0; i < n; i++)
		measurement_clear(&ms[i]);
	free(ms);
	free(src);
}

_Static_assert((int)HTTP_OPENMETRICS == (int)PROM_OPENMETRICS &&
	       (int)HTTP_PROTOBUF == (int)PROM_PROTOBUF, "one order of formats");

static struct http_body *render(void *ctx, enum http_format fmt)
{
	struct server *srv = ctx;
	struct prom_source *src = NULL;
	struct measurement *ms = NULL;
	struct prom_out o = { .fmt = (enum prom_format)fmt };
	uint64_t t0 = now_ns();
	char *buf = NULL;
	size_t len = 0;
	int n = 0, err;

	if (srv->cache[fmt] && srv->cache[fmt]->refs > 1 &&
	    t0 - srv->cache_ns[fmt] < RENDER_REUSE_NS)
		return http_body_get(srv->cache[fmt]);
	err = sources_read(srv, &src, &ms, &n);
	if (!err && fmt != HTTP_PROTOBUF && !(o.f = open_memstream(&buf, &len)))
		err = -ENOMEM;
	if (!err) {
		prom_write(&o, src, n);
		write_process(&o, srv);
		err = prom_end(&o);
	}
	sources_free(src, ms, n);
	if (o.f && fclose(o.f))
		err = -ENOMEM;
	if (fmt == HTTP_PROTOBUF) {
		buf = (char *)o.pb.buf;
		len = o.pb.len;
	}
	if (err) {
		free(buf);
		return NULL;
	}
	http_body_put(srv->cache[fmt]);
	srv->cache[fmt] = http_body_new(buf, len, http_types[fmt]);
	srv->cache_ns[fmt] = now_ns();
	srv->render_s = (srv->cache_ns[fmt] - t0) / 1e9;
	return http_body_get(srv->cache[fmt]);
}

/* --otlp: when its interval has passed, the measurements as one OTLP
 * request, queued for the pusher; the ms until the next push. */
static int otlp_tick(struct server *srv)
{
	struct prom_source *src = NULL;
	struct measurement *ms = NULL;
	uint64_t now = now_ns(), interval = srv->top->otlp_interval * 1e9;
	struct pb req = { 0 };
	char host[256] = "localhost";
	int n = 0;

	if (now < srv->otlp_next_ns)
		return (int)((srv->otlp_next_ns - now + 999999) / 1000000);
	srv->otlp_next_ns = now + interval;
	gethostname(host, sizeof(host) - 1);
	if (!sources_read(srv, &src, &ms, &n)) {
		otlp_encode(&req, src, n, host, KDIST_VERSION, srv->start_unix * 1e9,
			    unix_now() * 1e9);
		if (!req.oom)
			otlp_push(srv->otlp, &req);
		pb_free(&req);
	}
	sources_free(src, ms, n);
	return (int)(interval / 1000000);
}

/* SIGHUP with --web-config: a new file takes effect for new connections
 * (with --user, a new serving process takes over); a bad one changes
 * nothing after one line. */
static void web_reload(struct server *srv, const struct privsep_user *u, int *chan, pid_t *child)
{
	struct webconfig wc;
	int old_chan = *chan;
	pid_t old_child = *child;

	if (webconfig_load(srv->top->web_config, &wc))
		return;
	webconfig_free(&srv->web);
	srv->web = wc;
	srv->http.web = wc.tls || wc.nusers ? &srv->web : NULL;
	if (old_chan >= 0) {
		if (privsep_fork(&srv->http, u, chan, child)) {
			kd_err("failed to reload %s: the serving process runs on unchanged",
			       srv->top->web_config);
			return;
		}
		close(old_chan);	/* its cue to go */
		waitpid(old_child, NULL, 0);
	}
	kd_info("reloaded %s", srv->top->web_config);
}

static const char index_html[] =
	"<html><head><title>kdist</title></head><body><h1>kdist serve</h1>"
	"<p><a href=\"/metrics\">/metrics</a>: the measurements in the Prometheus "
	"exposition format.</p></body></html>\n";

static int serve_run(struct options *o)
{
	struct server srv = { .top = o };
	/* signals, spill, reloader, then the serving child's channel or HTTP */
	struct pollfd pfd[4 + HTTP_MAX_CONNS];
	struct privsep_user user;
	bool stop = false;
	int sfd = -1, chan = -1, err, n = 0;
	pid_t child = -1;

	srv.http.fd = -1;
	srv.rl.pipe[0] = srv.rl.pipe[1] = -1;
	srv.log2.log2 = true;
	if (!o->retire_after)
		o->retire_after = DEFAULT_RETIRE_S;
	err = prom_buckets_parse(o->buckets ? o->buckets : "log2", &srv.buckets, "--buckets");
	if (!err)
		err = specs_load(&srv, &srv.list);
	if (!err && o->user)
		err = privsep_user(o->user, &user);
	if (!err && o->web_config)
		err = webconfig_load(o->web_config, &srv.web);
	if (!err && (srv.web.tls || srv.web.nusers))
		srv.http.web = &srv.web;
	if (!err && o->otlp) {
		if (!o->otlp_interval)
			o->otlp_interval = DEFAULT_OTLP_S;
		srv.otlp = otlp_start(o->otlp, &err);
	} else if (!err && o->otlp_interval) {
		kd_err("bad option: --otlp-interval needs --otlp URL");
		err = -EINVAL;
	}
	if (!err)
		err = kdist_need_root();
	if (err)
		goto out;
	sfd = kdist_signalfd();
	if (sfd < 0) {
		err = sfd;
		goto out;
	}
	srv.http.metrics = render;
	srv.http.index = index_html;
	srv.http.ctx = &srv;
	srv.http.allow_hosts = o->allow_hosts;
	err = http_open(&srv.http, o->listen ? o->listen : DEFAULT_LISTEN);
	if (err)
		goto out;
	err = list_start(srv.list);
	if (err)
		goto out;
	srv.start_unix = unix_now();
	for (struct served *sv = srv.list; sv; sv = sv->next)
		n++;
	fprintf(stderr, "Serving %d measurement%s on http%s://%s/metrics... Hit Ctrl-C to end.\n", n,
		n == 1 ? "" : "s", srv.web.tls ? "s" : "", srv.http.addr);
	if (o->user) {
		err = privsep_fork(&srv.http, &user, &chan, &child);
		if (err)
			goto out;
	}
	while (!stop) {
		struct signalfd_siginfo si;
		int timeout;

		pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = engine_spill_fd(), .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = srv.rl.running ? srv.rl.pipe[0] : -1, .events = POLLIN };
		if (chan >= 0) {
			pfd[3] = (struct pollfd){ .fd = chan, .events = POLLIN };
			n = 4;
			timeout = -1;
		} else {
			n = 3 + http_pollfds(&srv.http, pfd + 3, &timeout);
		}
		if (srv.otlp) {
			int ms = otlp_tick(&srv);

			timeout = timeout < 0 || ms < timeout ? ms : timeout;
		}
		if (poll(pfd, n, timeout) < 0 && errno != EINTR) {
			err = -errno;
			kd_err("failed to poll: %s", strerror(errno));
			break;
		}
		if (pfd[1].revents) {
			err = engine_spill_drain();
			if (err)
				break;
		}
		if (pfd[2].revents)
			reload_done(&srv);
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGHUP) {
				if (o->config || !o->web_config)
					reload(&srv);
				if (o->web_config)
					web_reload(&srv, &user, &chan, &child);
			} else if (si.ssi_signo != SIGCHLD) {
				stop = true;
			}
		}
		if (chan < 0) {
			http_serve(&srv.http, pfd + 3, n - 3);
		} else if (pfd[3].revents && !stop &&
			   privsep_answer(chan, &srv.http, render, &srv)) {
			kd_err("failed to serve: the serving process (pid %d) ended", (int)child);
			err = -EPIPE;
			break;
		}
	}
out:
	otlp_stop(srv.otlp);
	if (srv.rl.running) {
		pthread_join(srv.rl.thread, NULL);
		serve_list_free(srv.rl.list);
	}
	for (int i = 0; i < 2; i++)
		if (srv.rl.pipe[i] >= 0)
			close(srv.rl.pipe[i]);
	if (chan >= 0)
		close(chan);	/* the child's cue to go */
	if (child > 0)
		waitpid(child, NULL, 0);
	http_close(&srv.http);
	webconfig_free(&srv.web);
	for (int i = 0; i < NR_HTTP_FORMATS; i++)
		http_body_put(srv.cache[i]);
	serve_list_free(srv.list);
	if (sfd >= 0)
		close(sfd);
	free(o->measures);
	return err;
}

const struct command cmd_serve = {
	.name = "serve",
	.args = "",
	.summary = "serve measurements to Prometheus over HTTP (GET /metrics)",
	.opts = OPT(BTF) | OPT(MEASURE) | OPT(CONFIG) | OPT(LISTEN) | OPT(BUCKETS) | OPT(MAX_GROUPS) |
		OPT(RETIRE_AFTER) | OPT(ALLOW_HOST) | OPT(USER) | OPT(WEB_CONFIG) | OPT(OTLP) |
		OPT(OTLP_INTERVAL),
	.max_groups = 512,
	.run = serve_run,
};
