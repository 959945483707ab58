// SPDX-License-Identifier: GPL-2.0
/*
 * kdist: how is the time of this kernel path distributed?
 *
 * main owns what every measuring command shares: the workload, signals,
 * duration and intervals, and output; cli.c parses the command line.
 * Commands provide prepare/attach/read/cleanup (see kdist.h).
 */
#include "cli.h"
#include "kdist.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
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

/* Read the cumulative measurement, print what is new since prev. */
static int emit(struct session *s, FILE *out, struct measurement *prev, int interval,
		uint64_t t0, uint64_t *t_prev)
{
	struct measurement cur = { 0 }, delta = { 0 };
	uint64_t t = now_ns();
	int err;

	err = s->cmd->read(s, &cur);
	if (err)
		goto out;
	err = measurement_diff(&delta, &cur, interval ? prev : NULL);
	if (err)
		goto out;
	delta.interval = interval;
	delta.duration_s = (t - (interval ? *t_prev : t0)) / 1e9;
	delta.start_unix = unix_now() - delta.duration_s;
	err = measurement_write(out, &delta, &s->opt->view);
	if (err)
		kd_err("failed to write output: %s", strerror(-err));
	measurement_clear(prev);
	*prev = cur;
	memset(&cur, 0, sizeof(cur));
	*t_prev = t;
out:
	measurement_clear(&cur);
	measurement_clear(&delta);
	return err;
}

static int run_session(const struct command *c, struct options *o)
{
	struct session s = { .cmd = c, .opt = o };
	struct workload w = { .pid = -1, .go_fd = -1 };
	struct measurement prev = { 0 };
	uint64_t t0, t_prev, t_attach, deadline, next;
	FILE *out = stdout;
	sigset_t mask;
	int sfd = -1, err, interval = 0;
	bool stop = false, have_workload = o->cmd || o->argv;

	/* A shell starts background commands with SIGINT ignored, and an
	 * ignored signal never reaches a signalfd: take the defaults back so
	 * that Ctrl-C and kill -INT always end the run with its result. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		err = -errno;
		kd_err("failed to create signalfd: %s", strerror(errno));
		return err;
	}
	if (o->view.format == OUT_MARKDOWN) {
		kd_err("bad output format 'markdown': only diff writes markdown");
		err = -EINVAL;
		goto out;
	}
	if (geteuid() != 0) {
		kd_err("failed to start: kdist needs root (CAP_BPF and CAP_PERFMON) to load BPF");
		err = -EPERM;
		goto out;
	}
	if (o->output) {
		FILE *f = fopen(o->output, "w");

		if (!f) {
			err = -errno;
			kd_err("failed to open '%s': %s", o->output, strerror(errno));
			goto out;
		}
		out = f;
	}
	if (o->cgroup) {
		err = cgroup_id_of(o->cgroup, &o->cgroup_id);
		if (err) {
			kd_err("failed to find cgroup '%s': %s", o->cgroup, strerror(-err));
			goto out;
		}
	}
	t0 = now_ns();
	if (have_workload) {
		err = workload_prepare(&w, o->cmd, o->argv);
		if (err)
			goto out;
		o->cgroup_id = w.cgroup_id;
	}
	err = c->prepare(&s);
	if (err)
		goto out;
	err = c->attach(&s);
	if (err)
		goto out;
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
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };
		uint64_t now = now_ns(), wake = UINT64_MAX;
		int timeout;

		if (deadline)
			wake = deadline;
		if (next && next < wake)
			wake = next;
		timeout = wake == UINT64_MAX ? -1 : wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
		poll(&pfd, 1, timeout);
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
			err = emit(&s, out, &prev, ++interval, t0, &t_prev);
			if (err)
				goto out;
			next += (uint64_t)(o->interval * 1e9);
			if (o->count && interval >= o->count)
				stop = true;
		}
	}
	if (!o->interval)
		err = emit(&s, out, &prev, 0, t0, &t_prev);
out:
	if (c->cleanup && s.priv)
		c->cleanup(&s);
	if (have_workload)
		workload_cleanup(&w);
	measurement_clear(&prev);
	if (out != stdout && fclose(out) && !err) {
		err = -errno;
		kd_err("failed to write %s: %s", o->output, strerror(errno));
	}
	close(sfd);
	return err;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	const struct command *c;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		cli_usage(argc < 2 ? stderr : stdout, NULL);
		return argc < 2 ? 2 : 0;
	}
	/* hidden: the build makes the man page and completion with it */
	if (!strcmp(argv[1], "__expand") && argc == 3)
		return cli_expand(stdout, argv[2]) || fflush(stdout) ? 1 : 0;
	c = cli_find_command(argv[1]);
	if (!c) {
		kd_err("unknown command '%s' (see kdist --help)", argv[1]);
		return 2;
	}
	err = cli_parse(argc - 1, argv + 1, c, &o);
	if (err)
		return 2;
	libbpf_set_print(libbpf_print);
	err = c->run ? c->run(&o) : run_session(c, &o);
	free(o.args);
	if (fflush(stdout) || ferror(stdout)) {
		/* said once: a failed write in a measurement was reported */
		if (!err)
			kd_err("failed to write output: %s", strerror(errno));
		return 1;
	}
	return err > 0 ? err : err ? 1 : 0;
}
