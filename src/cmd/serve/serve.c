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
#include "lib/privsep.h"
#include "view/prom.h"
#include "cmd/serve/serve.h"
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
/* --retire-after: a label set without events for 10 minutes goes (twice
 * Prometheus' 5-minute staleness: a series still drawn is never cut) */
#define DEFAULT_RETIRE_S 600
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
static int served_parse(const struct options *top, const char *text, struct served **out)
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
	c = top->cl->find(sv->argv[i]);
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
	if (!(c->caps & CMD_SERVE)) {
		kd_err("bad command '%s': serve takes pair, func and the recipes", c->name);
		goto out;
	}
	if (strlen(sv->name) > 40 || !valid_name(sv->name)) {
		kd_err("bad name '%s': letters, digits and _ (at most 40), not bpf_run, lost, "
		       "render or http", sv->name);
		goto out;
	}
	sv->o.max_groups = top->max_groups;
	sv->o.served = true;
	sv->o.retire_after = top->retire_after;
	sv->o.cl = top->cl;
	err = top->cl->parse(sv->argc - i, sv->argv + i, c, &sv->o);
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

/* The configuration file: a regular file of at most SERVE_CONFIG_MAX bytes
 * (/dev/zero or a 100 MB line never ends a start nor a reload, and a FIFO,
 * which could hold a reload for read_input's idle time, is no file to read
 * again at SIGHUP).  0 or -errno after one line. */
static int config_read(const char *path, char **conf, size_t *len)
{
	struct stat st;
	int err = 0;

	if (stat(path, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (!err)
		err = read_input(path, SERVE_CONFIG_MAX, conf, len);
	/* a file that is no configuration is the user's mistake (exit 2) */
	if (err == -EINVAL || err == -EISDIR)
		kd_err("bad configuration %s: not a regular file", path);
	else if (err == -EFBIG)
		kd_err("bad configuration %s: %s", path, read_input_strerror(err, SERVE_CONFIG_MAX));
	else if (err)
		kd_err("failed to read %s: %s", path, read_input_strerror(err, SERVE_CONFIG_MAX));
	return err;
}

/* The measurements of config text conf (len bytes, NUL-terminated, changed
 * in place) after *tail.  0 or -errno after one line. */
static int config_parse(char *conf, size_t len, const struct options *top,
			struct served ***tail)
{
	char *line, *save = NULL;
	struct served *sv;
	int err = 0;

	if (strlen(conf) != len) {
		kd_err("bad configuration: a NUL byte at offset %zu", strlen(conf));
		return -EINVAL;
	}
	for (line = strtok_r(conf, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save)) {
		char *hash = line;

		/* a comment: from a '#' that starts a word to the line's end */
		while ((hash = strchr(hash, '#')) && hash != line && hash[-1] != ' ' &&
		       hash[-1] != '\t')
			hash++;
		if (hash)
			*hash = '\0';
		if (!*str_trim(line))
			continue;
		err = served_parse(top, line, &sv);
		**tail = sv;
		if (sv)
			*tail = &sv->next;
	}
	return err;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp((*(struct served *const *)a)->name, (*(struct served *const *)b)->name);
}

/* -EINVAL after one line when two measurements of l share a name: sorted,
 * for a configuration of many thousands is a hostile one, not a slow one. */
static int names_unique(struct served *l)
{
	struct served **v;
	size_t n = 0;
	int err = 0;

	for (struct served *sv = l; sv; sv = sv->next)
		n++;
	if (n < 2)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = 0;
	for (struct served *sv = l; sv; sv = sv->next)
		v[n++] = sv;
	qsort(v, n, sizeof(*v), name_cmp);
	for (size_t i = 1; i < n && !err; i++) {
		if (!strcmp(v[i - 1]->name, v[i]->name)) {
			kd_err("bad measurements: two are named '%s' (give one a name=)", v[i]->name);
			err = -EINVAL;
		}
	}
	free(v);
	return err;
}

int serve_config_check(const char *text, size_t len, int max_groups,
		       const struct command_line *cl)
{
	struct options top = { .max_groups = max_groups, .retire_after = DEFAULT_RETIRE_S, .cl = cl };
	struct served *head = NULL, **tail = &head;
	char *conf = malloc(len + 1);
	int err, n = 0;

	if (!conf)
		return -ENOMEM;
	memcpy(conf, text, len);
	conf[len] = '\0';
	err = config_parse(conf, len, &top, &tail);
	free(conf);
	if (!err)
		err = names_unique(head);
	for (struct served *sv = head; sv && !err; sv = sv->next)
		n++;
	list_free(head);
	return err ? err : n;
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
		err = served_parse(srv->top, srv->top->measures[i], &sv);
		*tail = sv;
		if (sv)
			tail = &sv->next;
	}
	if (!err && srv->top->config) {
		err = config_read(srv->top->config, &conf, &len);
		if (!err)
			err = config_parse(conf, len, srv->top, &tail);
		free(conf);
	}
	if (!err)
		err = names_unique(head);
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
		list_free(nl);
		kd_err("failed to reload %s: the measurements run on unchanged", srv->top->config);
		return;
	}
	for (struct served *sv = srv->list; sv; sv = sv->next)
		stopped++;
	for (struct served *sv = nl; sv; sv = sv->next) {
		total++;
		started += sv->started;
	}
	list_free(srv->list);	/* stops the removed ones */
	srv->list = nl;
	for (int i = 0; i < 2; i++) {
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
	struct prom_source *src = NULL;
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
	src = calloc(n ? n : 1, sizeof(*src));
	f = open_memstream(&buf, &len);
	if (!ms || !src || !f) {
		free(ms);
		free(src);
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	n = 0;
	for (struct served *sv = srv->list; sv && !err; sv = sv->next) {
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
	free(src);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	http_body_put(srv->cache[om]);
	srv->cache[om] = http_body_new(buf, len, om ? HTTP_TYPE_OPENMETRICS : HTTP_TYPE_PROM);
	srv->cache_ns[om] = now_ns();
	srv->render_s = (srv->cache_ns[om] - t0) / 1e9;
	return http_body_get(srv->cache[om]);
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
	if (srv.rl.running) {
		pthread_join(srv.rl.thread, NULL);
		list_free(srv.rl.list);
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
	.opts = OPT(MEASURE) | OPT(CONFIG) | OPT(LISTEN) | OPT(BUCKETS) | OPT(MAX_GROUPS) |
		OPT(RETIRE_AFTER) | OPT(ALLOW_HOST) | OPT(USER) | OPT(WEB_CONFIG),
	.max_groups = 512,
	.run = serve_run,
};
