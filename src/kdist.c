// SPDX-License-Identifier: GPL-2.0
/*
 * kdist: how is the time of this kernel path distributed?
 *
 * main owns what every measuring command shares: options, the workload,
 * signals, duration and intervals, and output.  Commands provide
 * prepare/attach/read/cleanup (see kdist.h).
 */
#include "kdist.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <getopt.h>
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

extern const struct command *const recipe_commands[];

static const struct command *const commands[] = {
	&cmd_pair, &cmd_list, &cmd_probe,
	&cmd_profile, &cmd_offcpu, &cmd_wakeup,
	&cmd_func,
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	}
	for (int i = 0; recipe_commands[i]; i++) {
		if (!strcmp(recipe_commands[i]->name, name))
			return recipe_commands[i];
	}
	return NULL;
}

enum {
	OPT_TID = 256, OPT_COMM, OPT_CGROUP, OPT_BY, OPT_KEY, OPT_UNIT, OPT_OUTPUT,
	OPT_HIST, OPT_SORT, OPT_TOP, OPT_LINEAR, OPT_MAX_GROUPS,
	OPT_STATE, OPT_MIN_US, OPT_MAX_US,
};

/* One table for every command; `only` names the commands an option is for
 * (NULL: all measuring commands). */
static const struct opt_desc {
	struct option lo;
	const char *arg;
	const char *help;
	const char *only;
} opts[] = {
	{ { "pid", required_argument, 0, 'p' }, "PID", "trace this process only" },
	{ { "tid", required_argument, 0, OPT_TID }, "TID", "trace this thread only" },
	{ { "comm", required_argument, 0, OPT_COMM }, "NAME", "trace threads with this name only" },
	{ { "cgroup", required_argument, 0, OPT_CGROUP }, "PATH", "trace this cgroup v2 only" },
	{ { "cmd", required_argument, 0, 'c' }, "'CMD'", "run CMD, trace it (and its children) alone" },
	{ { "duration", required_argument, 0, 'd' }, "SECONDS", "stop after SECONDS" },
	{ { "interval", required_argument, 0, 'i' }, "SECONDS", "print each interval's distribution" },
	{ { "count", required_argument, 0, 'n' }, "COUNT", "stop after COUNT intervals" },
	{ { "by", required_argument, 0, OPT_BY }, "KEYS", "group by comm,pid,tid,cpu,cgroup,FIELD[:ksym]" },
	{ { "key", required_argument, 0, OPT_KEY }, "FIELDS", "match START to END by FIELD[=END_FIELD],... (default: thread)", "pair" },
	{ { "unit", required_argument, 0, OPT_UNIT }, "UNIT", "time unit: ns, us, ms or s (default: chosen)" },
	{ { "format", required_argument, 0, 'o' }, "FMT", "text, json, csv, folded or svg" },
	{ { "output", required_argument, 0, OPT_OUTPUT }, "FILE", "write to FILE instead of stdout" },
	{ { "hist", no_argument, 0, OPT_HIST }, NULL, "a histogram per group where the default is a table" },
	{ { "sort", required_argument, 0, OPT_SORT }, "KEY", "order groups by total, count, self or key" },
	{ { "top", required_argument, 0, OPT_TOP }, "N", "show the first N groups only" },
	{ { "linear", required_argument, 0, OPT_LINEAR }, "MIN,MAX,STEP", "linear buckets for a value distribution", "dist,bio-size" },
	{ { "max-groups", required_argument, 0, OPT_MAX_GROUPS }, "N", "size of the in-kernel group table (default 4096)" },
	{ { "frequency", required_argument, 0, 'F' }, "HZ", "samples per second and CPU (default 99)", "profile" },
	{ { "state", required_argument, 0, OPT_STATE }, "STATES", "blocks in these states: R,S,D,I,T or any (default)", "offcpu wakeup" },
	{ { "min-us", required_argument, 0, OPT_MIN_US }, "US", "blocks of at least US microseconds", "offcpu wakeup" },
	{ { "max-us", required_argument, 0, OPT_MAX_US }, "US", "blocks of at most US microseconds", "offcpu wakeup" },
	{ { "verbose", no_argument, 0, 'v' }, NULL, "say what is attached and how; libbpf's log" },
	{ { "help", no_argument, 0, 'h' }, NULL, "this help" },
};

static void usage(FILE *f, const struct command *c)
{
	if (!c) {
		fprintf(f, "usage: kdist COMMAND [OPTIONS] [-- CMD ARGS...]\n\ncommands:\n");
		for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
			fprintf(f, "  %-10s %-24s %s\n", commands[i]->name, commands[i]->args,
				commands[i]->summary);
		fprintf(f, "  %-10s %-24s %s\n", "RECIPE", "", "a named measurement: see `kdist recipes`");
	} else {
		fprintf(f, "usage: kdist %s %s [OPTIONS] [-- CMD ARGS...]\n%s\n", c->name, c->args,
			c->summary);
	}
	fprintf(f, "\noptions:\n");
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		char left[64];

		if (c && opts[i].only && !strstr(opts[i].only, c->name))
			continue;
		if (opts[i].lo.val < 256)
			snprintf(left, sizeof(left), "-%c, --%s %s", opts[i].lo.val, opts[i].lo.name,
				 opts[i].arg ? opts[i].arg : "");
		else
			snprintf(left, sizeof(left), "    --%s %s", opts[i].lo.name,
				 opts[i].arg ? opts[i].arg : "");
		fprintf(f, "  %-28s %s\n", left, opts[i].help);
	}
	fprintf(f, "\nEvents: CATEGORY:NAME (tracepoint), k:FUNC, kr:FUNC, u:PATH:SYMBOL, ur:PATH:SYMBOL.\n");
}

static int parse_num(const char *s, double *out, const char *what, double min)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || *out < min) {
		kd_err("bad %s '%s': expected a number >= %g", what, s, min);
		return -EINVAL;
	}
	return 0;
}

static int parse_options(int argc, char **argv, const struct command *c, struct options *o)
{
	struct option lo[ARRAY_SIZE(opts) + 1];
	char shorts[64] = "+", *sp = shorts + 1;
	double d;
	int opt, err = 0;

	/* "+" and manual permutation: options may follow positionals, but
	 * everything after "--" is the workload's. */
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		lo[i] = opts[i].lo;
		if (lo[i].val < 256) {
			*sp++ = lo[i].val;
			if (lo[i].has_arg)
				*sp++ = ':';
		}
	}
	memset(&lo[ARRAY_SIZE(opts)], 0, sizeof(lo[0]));
	o->args = calloc(argc, sizeof(char *));
	if (!o->args)
		return -ENOMEM;
	opterr = 0;
	optind = 1;
	while (optind < argc) {
		int idx = -1;

		if (!strcmp(argv[optind], "--")) {
			o->argv = &argv[optind + 1];
			if (!o->argv[0]) {
				kd_err("bad workload: nothing after '--'");
				return -EINVAL;
			}
			break;
		}
		if (argv[optind][0] != '-' || !argv[optind][1]) {
			o->args[o->nargs++] = argv[optind++];
			continue;
		}
		opt = getopt_long(argc, argv, shorts, lo, &idx);
		if (opt == -1)
			break;
		if (opt == '?') {
			kd_err("unknown option '%s' (see kdist %s --help)", argv[optind - 1], c->name);
			return -EINVAL;
		}
		if (opt == ':') {
			kd_err("option '%s' needs a value", argv[optind - 1]);
			return -EINVAL;
		}
		for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
			if (opts[i].lo.val == opt && opts[i].only && !strstr(opts[i].only, c->name)) {
				kd_err("option --%s is not for '%s'", opts[i].lo.name, c->name);
				return -EINVAL;
			}
		}
		switch (opt) {
		case 'p':
		case OPT_TID:
			err = parse_num(optarg, &d, opt == 'p' ? "pid" : "tid", 1);
			if (opt == 'p')
				o->pid = d;
			else
				o->tid = d;
			break;
		case OPT_COMM:
			if (strlen(optarg) > 15) {
				kd_err("bad --comm '%s': at most 15 characters", optarg);
				return -EINVAL;
			}
			snprintf(o->comm, sizeof(o->comm), "%s", optarg);
			break;
		case OPT_CGROUP: o->cgroup = optarg; break;
		case 'c': o->cmd = optarg; break;
		case 'd': err = parse_num(optarg, &o->duration, "duration", 0.001); break;
		case 'i': err = parse_num(optarg, &o->interval, "interval", 0.01); break;
		case 'n':
			err = parse_num(optarg, &d, "count", 1);
			o->count = d;
			break;
		case OPT_BY: o->by = optarg; break;
		case OPT_KEY: o->key = optarg; break;
		case OPT_UNIT:
			err = unit_parse(optarg, &d);
			o->view.unit = optarg;
			break;
		case 'o': err = output_parse_format(optarg, &o->view.format); break;
		case OPT_OUTPUT: o->output = optarg; break;
		case OPT_HIST: o->view.hist = true; break;
		case OPT_SORT:
			if (strcmp(optarg, "total") && strcmp(optarg, "count") &&
			    strcmp(optarg, "self") && strcmp(optarg, "key")) {
				kd_err("bad --sort '%s': expected total, count, self or key", optarg);
				return -EINVAL;
			}
			o->view.sort = optarg;
			break;
		case OPT_TOP:
			err = parse_num(optarg, &d, "top", 1);
			o->view.top = d;
			break;
		case OPT_LINEAR:
			o->linear = optarg;
			err = linear_parse(optarg, &o->view.linear);
			break;
		case OPT_MAX_GROUPS:
			err = parse_num(optarg, &d, "max-groups", 1);
			o->max_groups = d;
			break;
		case 'F':
			err = parse_num(optarg, &d, "frequency", 1);
			o->freq = d;
			break;
		case OPT_STATE: o->state = optarg; break;
		case OPT_MIN_US: err = parse_num(optarg, &o->min_us, "min-us", 0); break;
		case OPT_MAX_US: err = parse_num(optarg, &o->max_us, "max-us", 0); break;
		case 'v': kd_verbose_level++; break;
		case 'h':
			usage(stdout, c);
			exit(0);
		}
		if (err)
			return err;
	}
	if (o->cmd && o->argv) {
		kd_err("bad workload: give -c 'CMD' or -- CMD ARGS, not both");
		return -EINVAL;
	}
	if ((o->cmd || o->argv) && (o->pid || o->tid || o->cgroup)) {
		kd_err("bad filter: a workload is traced alone; -p, --tid and --cgroup do not apply");
		return -EINVAL;
	}
	if (o->count && !o->interval) {
		kd_err("bad option: -n COUNT needs -i SECONDS");
		return -EINVAL;
	}
	return 0;
}

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
	if (geteuid() != 0) {
		kd_err("failed to start: kdist needs root (CAP_BPF and CAP_PERFMON) to load BPF");
		err = -EPERM;
		goto out;
	}
	if (o->output) {
		out = fopen(o->output, "w");
		if (!out) {
			err = -errno;
			kd_err("failed to open %s: %s", o->output, strerror(errno));
			goto out;
		}
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
		usage(argc < 2 ? stderr : stdout, NULL);
		return argc < 2 ? 2 : 0;
	}
	c = find_command(argv[1]);
	if (!c) {
		kd_err("unknown command '%s' (see kdist --help)", argv[1]);
		return 2;
	}
	err = parse_options(argc - 1, argv + 1, c, &o);
	if (err)
		return 2;
	libbpf_set_print(libbpf_print);
	err = c->run ? c->run(&o) : run_session(c, &o);
	free(o.args);
	if (fflush(stdout) || ferror(stdout)) {
		kd_err("failed to write output: %s", strerror(errno));
		return 1;
	}
	return err ? 1 : 0;
}
