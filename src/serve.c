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
#include "cli.h"
#include "engine.h"
#include "http.h"
#include "container.h"
#include "kdist.h"
#include "prom.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/time.h>
#include <sys/utsname.h>

#ifndef KDIST_VERSION
#define KDIST_VERSION "unknown"
#endif

#define DEFAULT_LISTEN "127.0.0.1:9669"
/* a scrape while a rendering is still being sent to another client shares
 * it, unless it is older than this */
#define RENDER_REUSE_NS 1000000000ULL

struct served {
	struct served *next;
	char name[64];
	char *text;		/* the spec as given: a reload keeps it when equal */
	char *words;		/* argv's strings */
	char **argv;
	int argc;
	struct options o;
	struct session s;
	struct prom_buckets b;
	bool own_buckets;	/* buckets=LIST: given */
	char context[96];	/* "measurement 'NAME'" for messages */
	bool started;		/* by the reload under way */
};

struct server {
	struct options *top;
	struct prom_buckets buckets;	/* --buckets, for latencies */
	struct prom_buckets log2;
	struct served *list;
	struct http_server http;
	struct http_body *cache[2];	/* by openmetrics */
	uint64_t cache_ns[2];
	double start_unix, render_s;
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
	free(sv);
}

static void list_free(struct served *l)
{
	while (l) {
		struct served *next = l->next;

		served_free(l);
		l = next;
	}
}

/* Split s into words, shell-like: blanks separate, '...' and "..." quote,
 * a backslash escapes the next character outside '...'.  0 or -EINVAL. */
static int split_words(struct served *sv, const char *s)
{
	size_t n = strlen(s);
	char *w = malloc(n + 1);
	char **argv = calloc(n / 2 + 2, sizeof(char *));
	char quote = 0;
	int argc = 0;
	bool in_word = false;

	sv->words = w;
	sv->argv = argv;
	if (!w || !argv)
		return -ENOMEM;
	for (; *s; s++) {
		if (!quote && (*s == ' ' || *s == '\t')) {
			if (in_word)
				*w++ = '\0';
			in_word = false;
			continue;
		}
		if (!in_word) {
			argv[argc++] = w;
			in_word = true;
		}
		if (quote && *s == quote) {
			quote = 0;
		} else if (!quote && (*s == '\'' || *s == '"')) {
			quote = *s;
		} else if (*s == '\\' && quote != '\'' && s[1]) {
			*w++ = *++s;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
	sv->argc = argc;
	if (quote) {
		kd_err("bad measurement '%s': unterminated %c", sv->text, quote);
		return -EINVAL;
	}
	return 0;
}

static bool valid_name(const char *s)
{
	static const char *const reserved[] = { "bpf_run", "lost", "render", "http" };

	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (const char *c = s; *c; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	}
	for (size_t i = 0; i < ARRAY_SIZE(reserved); i++) {
		if (!strcmp(s, reserved[i]))
			return false;
	}
	return true;
}

/* One measurement spec, parsed and checked, nothing loaded.  0 or -errno
 * after one line naming it. */
static int served_parse(struct server *sv0, const char *text, struct served **out)
{
	struct served *sv = calloc(1, sizeof(*sv));
	const struct command *c = NULL;
	const char *buckets = NULL;
	int i = 0, err;

	*out = sv;
	if (!sv || !(sv->text = strdup(text)))
		return -ENOMEM;
	err = split_words(sv, text);
	if (err)
		return err;
	for (; i < sv->argc; i++) {
		char *a = sv->argv[i], *colon = a + strlen(a) - 1;

		if (strncmp(a, "name=", 5) && strncmp(a, "buckets=", 8))
			break;
		if (*colon == ':')
			*colon = '\0';
		if (a[0] == 'n')
			snprintf(sv->name, sizeof(sv->name), "%s", a + 5);
		else
			buckets = a + 8;
	}
	if (i == sv->argc) {
		kd_err("bad measurement '%s': no command (e.g. 'runq' or 'name=sc: syscalls')", text);
		return -EINVAL;
	}
	c = cli_find_command(sv->argv[i]);
	if (!sv->name[0] && c)
		for (char *d = stpcpy(sv->name, c->name); d > sv->name; d--)
			if (d[-1] == '-')
				d[-1] = '_';
	snprintf(sv->context, sizeof(sv->context), "measurement '%s'",
		 sv->name[0] ? sv->name : text);
	kd_err_context = sv->context;
	err = -EINVAL;
	if (!c) {
		kd_err("unknown command '%s' (see kdist --help)", sv->argv[i]);
		goto out;
	}
	if (!c->prepare || c == &cmd_profile || c == &cmd_offcpu || c == &cmd_wakeup) {
		kd_err("bad command '%s': serve takes pair, func and the recipes", c->name);
		goto out;
	}
	if (strlen(sv->name) > 40 || !valid_name(sv->name)) {
		kd_err("bad name '%s': letters, digits and _ (at most 40), not bpf_run, lost, "
		       "render or http", sv->name);
		goto out;
	}
	for (int j = i; j < sv->argc; j++) {
		if (!strcmp(sv->argv[j], "-h") || !strcmp(sv->argv[j], "--help")) {
			kd_err("bad option '%s' in a served measurement", sv->argv[j]);
			goto out;
		}
	}
	sv->o.max_groups = sv0->top->max_groups;
	err = cli_parse(sv->argc - i, sv->argv + i, c, &sv->o);
	if (err)
		goto out;
	err = -EINVAL;
	if (sv->o.cmd || sv->o.argv || sv->o.duration || sv->o.interval || sv->o.output) {
		kd_err("bad options: -c, --, -d, -i and --output do not apply to a served measurement");
		goto out;
	}
	sv->own_buckets = buckets;
	err = buckets ? prom_buckets_parse(buckets, &sv->b, "buckets") : 0;
	sv->s = (struct session){ .cmd = c, .opt = &sv->o };
out:
	kd_err_context = NULL;
	return err;
}

/* The measurements of --measure and --config, parsed, in *out.  0 or
 * -errno after one line. */
static int specs_load(struct server *srv, struct served **out)
{
	struct served *head = NULL, **tail = &head, *sv;
	char *conf = NULL, *line, *save = NULL;
	int err = 0, lineno = 0;

	*out = NULL;
	for (int i = 0; i < srv->top->nmeasures && !err; i++) {
		err = served_parse(srv, srv->top->measures[i], &sv);
		*tail = sv;
		if (sv)
			tail = &sv->next;
	}
	if (!err && srv->top->config) {
		err = read_file(srv->top->config, &conf, NULL);
		if (err)
			kd_err("failed to read %s: %s", srv->top->config, strerror(-err));
	}
	for (line = conf && !err ? strtok_r(conf, "\n", &save) : NULL; line && !err;
	     line = strtok_r(NULL, "\n", &save)) {
		char *hash = line;

		lineno++;
		/* a comment: from a '#' that starts a word to the line's end */
		while ((hash = strchr(hash, '#')) && hash != line && hash[-1] != ' ' &&
		       hash[-1] != '\t')
			hash++;
		if (hash)
			*hash = '\0';
		if (!*str_trim(line))
			continue;
		err = served_parse(srv, line, &sv);
		*tail = sv;
		if (sv)
			tail = &sv->next;
	}
	free(conf);
	for (struct served *a = head; a && !err; a = a->next) {
		for (struct served *b = a->next; b && !err; b = b->next) {
			if (!strcmp(a->name, b->name)) {
				kd_err("bad measurements: two are named '%s' (give one a name=)",
				       a->name);
				err = -EINVAL;
			}
		}
	}
	if (!head && !err) {
		kd_err("bad arguments: no measurement (give --measure SPEC or --config FILE)");
		err = -EINVAL;
	}
	if (err) {
		list_free(head);
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
static void reload(struct server *srv)
{
	struct served *nl, **np, **op;
	int err;

	if (!srv->top->config) {
		kd_err("nothing to reload: serve runs without --config");
		return;
	}
	err = specs_load(srv, &nl);
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
		list_free(nl);
		kd_err("failed to reload %s: the measurements run on unchanged", srv->top->config);
		return;
	}
	list_free(srv->list);	/* stops the removed ones */
	srv->list = nl;
	for (int i = 0; i < 2; i++) {
		http_body_put(srv->cache[i]);
		srv->cache[i] = NULL;
	}
	kd_info("reloaded %s", srv->top->config);
}

static double unix_now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* kdist's own process: CPU, memory, build; the HTTP server's counts. */
static void write_process(FILE *f, struct server *srv, bool om)
{
	struct rusage ru;
	struct utsname u;
	long pages = 0, rss = 0;
	FILE *statm = fopen("/proc/self/statm", "r");

	if (statm) {
		if (fscanf(statm, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(statm);
	}
	getrusage(RUSAGE_SELF, &ru);
	uname(&u);
	prom_family(f, "process_cpu_seconds", "counter", "user and system CPU time of kdist", om);
	fprintf(f, "process_cpu_seconds_total %.6f\n",
		ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	prom_family(f, "process_resident_memory_bytes", "gauge", "resident memory of kdist", om);
	fprintf(f, "process_resident_memory_bytes %ld\n", rss * sysconf(_SC_PAGESIZE));
	prom_family(f, "process_start_time_seconds", "gauge", "when kdist serve started (unix time)",
		    om);
	fprintf(f, "process_start_time_seconds %.3f\n", srv->start_unix);
	prom_family(f, "kdist_build", "info", "kdist's version and the running kernel", om);
	fprintf(f, "kdist_build_info{version=\"");
	prom_label_value(f, KDIST_VERSION);
	fprintf(f, "\",kernel=\"");
	prom_label_value(f, u.release);
	fprintf(f, "\"} 1\n");
	prom_family(f, "kdist_http_requests", "counter", "HTTP requests answered", om);
	fprintf(f, "kdist_http_requests_total %" PRIu64 "\n", srv->http.requests);
	prom_family(f, "kdist_http_rejected", "counter",
		    "HTTP connections refused (too many, too long, too slow)", om);
	fprintf(f, "kdist_http_rejected_total %" PRIu64 "\n", srv->http.rejected);
	prom_family(f, "kdist_render_seconds", "gauge",
		    "time the previous rendering of /metrics took (reading every measurement)", om);
	fprintf(f, "kdist_render_seconds %.6f\n", srv->render_s);
}

static struct http_body *render(void *ctx, bool om)
{
	struct server *srv = ctx;
	struct prom_source src[64];
	struct measurement *ms = NULL;
	uint64_t t0 = now_ns();
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int n = 0, err = 0;

	if (srv->cache[om] && srv->cache[om]->refs > 1 && t0 - srv->cache_ns[om] < RENDER_REUSE_NS)
		return http_body_get(srv->cache[om]);
	for (struct served *sv = srv->list; sv; sv = sv->next)
		n++;
	ms = calloc(n ? n : 1, sizeof(*ms));
	f = open_memstream(&buf, &len);
	if (!ms || !f) {
		free(ms);
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	n = 0;
	for (struct served *sv = srv->list; sv && n < (int)ARRAY_SIZE(src) && !err; sv = sv->next) {
		err = sv->s.cmd->read(&sv->s, &ms[n]);
		if (err) {
			kd_err("failed to read measurement '%s': %s", sv->name, strerror(-err));
			break;
		}
		src[n] = (struct prom_source){
			.name = sv->name, .m = &ms[n], .max_groups = sv->o.max_groups,
			.b = sv->own_buckets ? &sv->b : ms[n].kind == M_VALUE ? &srv->log2 :
			     &srv->buckets };
		n++;
	}
	if (!err) {
		prom_write(f, src, n, om);
		write_process(f, srv, om);
		if (om)
			fputs("# EOF\n", f);
	}
	for (int i = 0; i < n + (err ? 1 : 0); i++)
		measurement_clear(&ms[i]);
	free(ms);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	http_body_put(srv->cache[om]);
	srv->cache[om] = http_body_new(buf, len, om ?
		"application/openmetrics-text; version=1.0.0; charset=utf-8" :
		"text/plain; version=0.0.4; charset=utf-8");
	srv->cache_ns[om] = now_ns();
	srv->render_s = (srv->cache_ns[om] - t0) / 1e9;
	return http_body_get(srv->cache[om]);
}

static const char index_html[] =
	"<html><head><title>kdist</title></head><body><h1>kdist serve</h1>"
	"<p><a href=\"/metrics\">/metrics</a>: the measurements in the Prometheus "
	"exposition format.</p></body></html>\n";

static int serve_run(struct options *o)
{
	struct server srv = { .top = o };
	struct pollfd pfd[3 + HTTP_MAX_CONNS];
	bool stop = false;
	int sfd = -1, err, n = 0;

	srv.http.fd = -1;
	srv.log2.log2 = true;
	err = prom_buckets_parse(o->buckets ? o->buckets : "log2", &srv.buckets, "--buckets");
	if (!err)
		err = specs_load(&srv, &srv.list);
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
	err = http_open(&srv.http, o->listen ? o->listen : DEFAULT_LISTEN);
	if (err)
		goto out;
	err = list_start(srv.list);
	if (err)
		goto out;
	srv.start_unix = unix_now();
	for (struct served *sv = srv.list; sv; sv = sv->next)
		n++;
	fprintf(stderr, "Serving %d measurement%s on http://%s/metrics... Hit Ctrl-C to end.\n", n,
		n == 1 ? "" : "s", srv.http.addr);
	while (!stop) {
		struct signalfd_siginfo si;
		int timeout;

		pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = engine_spill_fd(), .events = POLLIN };
		n = 2 + http_pollfds(&srv.http, pfd + 2, &timeout);
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
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGHUP)
				reload(&srv);
			else if (si.ssi_signo != SIGCHLD)
				stop = true;
		}
		http_serve(&srv.http, pfd + 2, n - 2);
	}
out:
	http_close(&srv.http);
	for (int i = 0; i < 2; i++)
		http_body_put(srv.cache[i]);
	list_free(srv.list);
	if (sfd >= 0)
		close(sfd);
	free(o->measures);
	return err;
}

const struct command cmd_serve = {
	.name = "serve",
	.args = "",
	.summary = "serve measurements to Prometheus over HTTP (GET /metrics)",
	.opts = OPT(MEASURE) | OPT(CONFIG) | OPT(LISTEN) | OPT(BUCKETS) | OPT(MAX_GROUPS),
	.max_groups = 512,
	.run = serve_run,
};
