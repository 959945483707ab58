// SPDX-License-Identifier: GPL-2.0
/*
 * kdist: how is the time of this kernel path distributed?
 *
 * main owns what every measuring command shares: the workload, signals,
 * duration and intervals, and output; cli.c parses the command line.
 * Commands provide prepare/attach/read/cleanup (see kdist.h).
 */
#include "cli/cli.h"
#include "kernel/engine.h"
#include "kernel/events.h"
#include "kernel/owncost.h"
#include "view/evline.h"
#include "lib/util.h"
#include "lib/workload.h"
#include "version.h"
#include "view/view.h"
#include "cmd/session.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && kd_verbose_level < 2)
		return 0;
	if (!kd_verbose_level)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static double unix_now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* On a terminal, a line on stderr rewritten each second while tracing:
 * elapsed time, events and losses so far.  *shown: a line is up, to be
 * cleared (status_clear) before anything else is printed. */
static void status_line(struct session *s, uint64_t t0, bool *shown)
{
	/* stacks are symbolized when read: time only, as after a read
	 * that took long (many groups) */
	static bool slow;
	const char *by = s->opt->by ? s->opt->by : "";
	struct measurement m = { 0 };
	uint64_t events = 0, lost = 0, t = now_ns();
	char counts[96] = "";

	if ((s->cmd->caps & CMD_STACK_GROUPS) || strstr(by, "stack"))
		slow = true;
	if (!slow && !s->cmd->read(s, &m)) {
		for (int i = 0; i < m.ngroups; i++)
			events += m.groups[i].h.count;
		for (int i = 0; i < m.ndrops; i++)
			if (!m_drop_unmatched(m.drops[i].name))
				lost += m.drops[i].value;
		snprintf(counts, sizeof(counts), ", %llu events, %llu lost",
			 (unsigned long long)events, (unsigned long long)lost);
		slow = now_ns() - t > 50000000;
	}
	measurement_clear(&m);
	fprintf(stderr, "\r\033[K%.0f s%s; Ctrl-C to end", (t - t0) / 1e9, counts);
	*shown = true;
}

static void status_clear(bool *shown)
{
	if (*shown)
		fputs("\r\033[K", stderr);
	*shown = false;
}

/* Read the cumulative measurement, print what is new since prev; the last
 * one after every event it counted. */
static int emit(struct session *s, FILE *out, struct measurement *prev, int interval,
		uint64_t t0, uint64_t *t_prev, bool last)
{
	struct measurement cur = { 0 }, delta = { 0 };
	uint64_t t;
	int err;

	/* what it counted until its sources stopped is in the last one */
	if (last && s->cmd->stop)
		s->cmd->stop(s);
	t = now_ns();
	err = s->cmd->read(s, &cur);
	if (err)
		goto out;
	/* a millisecond more: events of other CPUs may reach the rings a
	 * little out of time order */
	if (last)
		err = events_drain(now_ns() + 1000000);
	fflush(events_file());	/* the lines the handlers printed */
	if (err)
		goto out;
	err = measurement_diff(&delta, &cur, interval ? prev : NULL);
	if (err)
		goto out;
	delta.interval = interval;
	/* a full group table, said once per interval, with the way out */
	for (int i = 0; i < delta.ndrops; i++)
		if (!strcmp(delta.drops[i].name, "group_table_full") && delta.drops[i].value)
			kd_err("group table full: %llu events lost%s%.0d; raise --max-groups (now %d)",
			       (unsigned long long)delta.drops[i].value,
			       interval ? " in interval " : "", interval, s->opt->max_groups);
	delta.duration_s = (t - (interval ? *t_prev : t0)) / 1e9;
	delta.start_unix = unix_now() - delta.duration_s;
	err = measurement_write(out, &delta, &s->opt->view);
	if (err)
		kd_err("failed to write output: %s", strerror(-err));
	if (last && s->cmd->hint)
		s->cmd->hint(s, interval ? &cur : &delta);
	measurement_clear(prev);
	*prev = cur;
	memset(&cur, 0, sizeof(cur));
	*t_prev = t;
out:
	measurement_clear(&cur);
	measurement_clear(&delta);
	return err;
}

/* --output FILE, opened before anything is loaded but not truncated: a
 * run that fails leaves an existing file as it was, and removes one it
 * created (*created). */
static int output_open(const char *path, FILE **out, bool *created)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		*created = fd >= 0;
	}
	if (fd < 0 || !(*out = fdopen(fd, "w"))) {
		kd_err("bad --output '%s': %s", path, strerror(errno));
		if (*created)
			unlink(path);
		*created = false;
		return -errno;
	}
	return 0;
}

static int run_session(const struct command *c, struct options *o)
{
	struct session s = { .cmd = c, .opt = o };
	struct workload w = { .pid = -1, .go_fd = -1 };
	struct measurement prev = { 0 };
	uint64_t t0, t_prev, t_attach, deadline, next;
	FILE *out = stdout;
	int sfd = -1, err, interval = 0;
	bool stop = false, have_workload = o->cmd || o->argv, created = false;
	/* a status line only where a person watches, and not between
	 * events printed as they happen */
	bool status = isatty(STDERR_FILENO) && !o->slower_ns && !(c->caps & CMD_EVENT_LINES);
	bool shown = false;
	uint64_t next_status = 0, next_events = 0;

	sfd = kdist_signalfd();
	if (sfd < 0)
		return sfd;
	if (!view_can(o->view.format, VIEW_LIVE)) {
		kd_err("bad output format '%s': only diff and report write %s",
		       view_name(o->view.format), view_name(o->view.format));
		err = -EINVAL;
		goto out;
	}
	err = kdist_need_root();
	if (err)
		goto out;
	err = options_resolve(o);
	if (err)
		goto out;
	if (o->argv) {
		err = workload_check(o->argv);
		if (err)
			goto out;
	}
	if (o->output) {
		err = output_open(o->output, &out, &created);
		if (err)
			goto out;
	}
	t0 = now_ns();
	if (have_workload) {
		err = workload_prepare(&w, o->cmd, o->argv);
		if (err)
			goto out;
		o->cgroup_id = w.cgroup_id;
	}
	events_output(out, o->view.format);
	/* the cost is in JSON (and the HTML page made of it) and on -v's line */
	cost_wanted(kd_verbose_level || view_can(o->view.format, VIEW_COST));
	err = session_start(&s);
	if (err)
		goto out;
	/* the file's old content goes only now that tracing works */
	if (out != stdout && ftruncate(fileno(out), 0) && errno != EINVAL) {
		err = -errno;
		kd_err("failed to write %s: %s", o->output, strerror(errno));
		goto out;
	}
	created = false;
	t_attach = now_ns();
	kd_info("attached in %.1f ms", (t_attach - t0) / 1e6);
	/* on stderr whatever the format: scripts wait for it to know the
	 * probes are attached */
	fprintf(stderr, "Tracing%s... Hit Ctrl-C to end.\n",
		have_workload ? " the workload" : "");
	if (have_workload) {
		err = workload_start(&w);
		if (err) {
			kd_err("failed to start the workload: %s", strerror(-err));
			goto out;
		}
	}
	t0 = t_prev = now_ns();
	deadline = o->duration ? t0 + (uint64_t)(o->duration * 1e9) : 0;
	next = o->interval ? t0 + (uint64_t)(o->interval * 1e9) : 0;
	while (!stop) {
		struct signalfd_siginfo si;
		struct pollfd pfd[3] = { { .fd = sfd, .events = POLLIN },
					 { .fd = events_fd(), .events = POLLIN },
					 { .fd = engine_spill_fd(), .events = POLLIN } };
		uint64_t now = now_ns(), wake = UINT64_MAX;
		int timeout;

		if (deadline)
			wake = deadline;
		if (next && next < wake)
			wake = next;
		if (status) {
			if (!next_status)
				next_status = t0 + 1000000000ULL;
			if (now >= next_status) {
				status_line(&s, t0, &shown);
				next_status += 1000000000ULL;
			}
			if (next_status < wake)
				wake = next_status;
		}
		/* events wait in their rings unannounced (events.h) */
		if (pfd[1].fd >= 0) {
			if (!next_events || now >= next_events)
				next_events = now + EVENTS_PERIOD_MS * 1000000ULL;
			if (next_events < wake)
				wake = next_events;
		}
		/* at most a minute: poll's int milliseconds end at 24 days */
		timeout = wake == UINT64_MAX ? -1 : wake <= now ? 0 :
			  wake - now >= 60000000000ULL ? 60000 : (int)((wake - now + 999999) / 1000000);
		poll(pfd, 3, timeout);	/* negative fds are skipped */
		if (pfd[1].revents || (pfd[1].fd >= 0 && now_ns() >= next_events)) {
			err = events_poll();
			fflush(events_file());
			if (err)
				goto out;
		}
		if (pfd[2].revents) {
			err = engine_spill_drain();
			if (err)
				goto out;
		}
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo != SIGCHLD)
				stop = true;
		}
		if (have_workload && workload_done(&w))
			stop = true;
		now = now_ns();
		if (deadline && now >= deadline)
			stop = true;
		if (next && (now >= next || stop)) {
			status_clear(&shown);
			err = emit(&s, out, &prev, interval + 1, t0, &t_prev,
				   stop || (o->count && interval + 1 >= o->count));
			interval++;
			if (err)
				goto out;
			next += (uint64_t)(o->interval * 1e9);
			if (o->count && interval >= o->count)
				stop = true;
		}
	}
	status_clear(&shown);
	if (!o->interval)
		err = emit(&s, out, &prev, 0, t0, &t_prev, true);
	if (!err) {
		err = measurement_write_end(out, &o->view);
		if (err)
			kd_err("failed to write output: %s", strerror(-err));
	}
	/* a workload that ended on its own: its status is kdist's */
	if (!err && have_workload && w.exited)
		err = workload_status(&w);
out:
	status_clear(&shown);
	events_close();
	events_output_end();
	session_stop(&s);
	if (have_workload)
		workload_cleanup(&w);
	measurement_clear(&prev);
	if (out != stdout && fclose(out) && err <= 0) {
		err = -errno;
		kd_err("failed to write %s: %s", o->output, strerror(errno));
	}
	if (created)
		unlink(o->output);
	close(sfd);
	return err;
}

/* "kdist pair a b -i 1", for the views that say what was run; words
 * with spaces or quotes in single quotes. */
static char *cmdline_join(int argc, char **argv)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	fputs("kdist", f);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] && !strpbrk(a, " \t\n'\"\\$`*?;&|<>()[]{}~#!")) {
			fprintf(f, " %s", a);
			continue;
		}
		fputs(" '", f);
		for (; *a; a++)
			fputs(*a == '\'' ? "'\\''" : (char[]){ *a, 0 }, f);
		fputc('\'', f);
	}
	return fclose(f) ? NULL : s;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	const struct command *c;
	struct stat st;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		cli_usage(argc < 2 ? stderr : stdout, NULL);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("kdist %s (commit %s, libbpf %u.%u)\n", KDIST_VERSION, KDIST_COMMIT,
		       libbpf_major_version(), libbpf_minor_version());
		return 0;
	}
	/* hidden: the build makes the man page and completion with it */
	if (!strcmp(argv[1], "__expand") && argc == 3)
		return cli_expand(stdout, argv[2]) || fflush(stdout) ? 1 : 0;
	c = cli_find_command(argv[1]);
	if (!c) {
		cli_unknown_command(argv[1]);
		return 2;
	}
	o.cl = &cli_command_line;
	err = cli_parse(argc - 1, argv + 1, c, &o);
	if (err)
		return 2;	/* usage error */
	o.view.cmdline = cmdline_join(argc, argv);
	libbpf_set_print(libbpf_print);
	err = c->run ? c->run(&o) : run_session(c, &o);
	free(o.args);
	free((char *)o.view.cmdline);
	if (fflush(stdout) || ferror(stdout)) {
		/* said once: a failed write in a measurement was reported */
		if (!err)
			kd_err("failed to write output: %s", strerror(errno));
		return 1;
	}
	/* the file is the result: say where it went (stdout stays the data's) */
	if (o.output && err >= 0 && !stat(o.output, &st))
		fprintf(stderr, "Wrote %s (%lld bytes)\n", o.output, (long long)st.st_size);
	/* 0, 1 for a runtime failure, 2 for a usage error, or the workload's
	 * (or diff's) own status */
	return err > 0 ? err : err ? (kd_bad_input ? 2 : 1) : 0;
}
