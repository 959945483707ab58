// SPDX-License-Identifier: GPL-2.0
/*
 * The command line.  One command table and one option table; each command
 * says which options it takes (struct command.opts), and the parser, --help,
 * the man page and bash completion are all made from these tables.
 */
#include "cli/cli.h"
#include "model/explain.h"
#include "kernel/container.h"
#include "kernel/engine.h"
#include "cmd/func/func.h"
#include "lib/util.h"
#include "view/format.h"
#include "view/view.h"
#include "cmd/commands.h"
#include "cmd/pair/match.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const struct command *const recipe_commands[];

static const struct command *const commands[] = {
	&cmd_pair, &cmd_list, &cmd_probe,
	&cmd_profile, &cmd_offcpu, &cmd_wakeup,
	&cmd_func, &cmd_trace, &cmd_diff, &cmd_report,
	&cmd_serve,
};

const struct command *cli_command(int i)
{
	if (i < 0)
		return NULL;
	if ((size_t)i < ARRAY_SIZE(commands))
		return commands[i];
	i -= ARRAY_SIZE(commands);
	for (int j = 0; recipe_commands[j]; j++) {
		if (j == i)
			return recipe_commands[j];
	}
	return NULL;
}

const struct command_line cli_command_line = { cli_find_command, cli_parse };

const struct command *cli_find_command(const char *name)
{
	const struct command *c;

	for (int i = 0; (c = cli_command(i)); i++) {
		if (!strcmp(c->name, name))
			return c;
	}
	return NULL;
}

void cli_unknown_command(const char *name)
{
	const char *names[128], *near;
	const struct command *c;
	size_t n = 0;

	for (int i = 0; (c = cli_command(i)) && n < ARRAY_SIZE(names); i++)
		names[n++] = c->name;
	near = nearest_word(name, names, n);
	if (near)
		kd_err("unknown command '%s'; did you mean '%s'? (see kdist --help)", name, near);
	else
		kd_err("unknown command '%s' (see kdist --help)", name);
}

/* A recipe is a measurement of the recipe table; "recipes", which lists
 * them, is a command like list. */
bool cli_is_recipe(int i)
{
	const struct command *c = cli_command(i);

	return (size_t)i >= ARRAY_SIZE(commands) && c && !c->run;
}

uint64_t cli_command_opts(const struct command *c)
{
	return c->opts | OPTS_ALWAYS;
}

int cli_max_groups(const struct command *c)
{
	return c->max_groups ? c->max_groups : DEFAULT_MAX_GROUPS;
}

/* Long options are returned by getopt as OPT_VAL + their id. */
#define OPT_VAL 256

const struct opt_desc cli_opts[NR_OPTS] = {
	[O_PID] = { "pid", 'p', "PID", "trace this process only", "@pid" },
	[O_TID] = { "tid", 0, "TID", "trace this thread only", "@pid" },
	[O_COMM] = { "comm", 0, "NAME", "trace threads with this name only (one name; to see several, group by comm)" },
	[O_CGROUP] = { "cgroup", 0, "PATHS", "trace these cgroups v2 and all below them (paths or globs, comma-separated)", "@dir" },
	[O_CMD] = { "cmd", 'c', "'CMD'", "run CMD, trace it (and its children) alone", "@command" },
	[O_DURATION] = { "duration", 'd', "SECONDS", "stop after SECONDS (or a duration: 500ms, 2s)" },
	[O_INTERVAL] = { "interval", 'i', "SECONDS", "print each interval's distribution, SECONDS or 500ms... (diff: N, compare interval N only)" },
	[O_COUNT] = { "count", 'n', "COUNT", "stop after COUNT intervals" },
	[O_BY] = { "by", 0, "KEYS", "group by comm,pid,tid,cpu,cgroup,container,pod,namespace,unit,FIELD[:ksym]" },
	[O_KEY] = { "key", 0, "FIELDS", "match START to END by FIELD[=END_FIELD],... (default: thread)" },
	[O_UNIT] = { "unit", 0, "UNIT", "time unit: ns, us, ms or s (default: chosen)", "ns us ms s" },
	[O_FORMAT] = { "format", 'o', "FMT", "text, json, csv, folded, svg, html or markdown (diff)",
		       "text json csv folded svg html markdown" },
	[O_OUTPUT] = { "output", 0, "FILE", "write to FILE instead of stdout", "@file" },
	[O_HIST] = { "hist", 0, NULL, "a histogram per group where the default is a table" },
	[O_SORT] = { "sort", 0, "KEY", "order groups by total, count, self or key", "total count self key" },
	[O_TOP] = { "top", 0, "N", "show the first N groups only (text: the first 10 unless told all)" },
	[O_ALL] = { "all", 0, NULL, "text: show every group, not the first 10" },
	[O_LINEAR] = { "linear", 0, "MIN,MAX,STEP", "linear buckets for a value distribution" },
	[O_MAX_GROUPS] = { "max-groups", 0, "N", "size of the in-kernel group table" },
	[O_HEATMAP] = { "heatmap", 0, NULL, "with -i and text: a heatmap of the intervals so far" },
	[O_IF] = { "if", 0, "COND", "only events where FIELD OP VALUE && ... (OP: == != < <= > >= &)" },
	[O_SLOWER_THAN] = { "slower-than", 0, "DURATION", "print each event slower than DURATION (e.g. 20ms) as it happens" },
	[O_STACK] = { "stack", 0, NULL, "with --slower-than: the kernel and user stack of the START (--stack end: of the END)" },
	[O_EXPLAIN] = { "explain", 0, NULL, "split each interval of the START's thread (func: each call) into on-CPU, irq, runnable and blocked time (--explain full: with --slower-than, also the longest block's stack and its waker; --explain end: a pair matched by a field followed from the START's thread to the thread it wakes and the interval ends on)" },
	[O_MATCH] = { "match", 0, "MODE", "STARTs in flight per key: replace (default: one, a new START replaces it), fifo (a queue per key) or lifo (a stack per thread: nesting, recursion)", "replace fifo lifo" },
	[O_FIELDS] = { "fields", 0, "FIELDS", "the record's fields to print, e.g. ret,filename (default: all); kernel variables, e.g. jiffies" },
	[O_EVERY] = { "every", 0, "DURATION", "with no EVENT: print --fields (kernel variables) every DURATION, e.g. 1s" },
	[O_MAX_RATE] = { "max-rate", 0, "N/s", "print at most N events a second, count the others" },
	[O_MAX_BUCKETS] = { "max-buckets", 0, "N", "in-kernel histogram buckets per CPU, all functions together (default 64 per function)" },
	[O_ATTACH] = { "attach", 0, "METHOD", "kernel functions by fentry, kprobe.multi or kprobe only (default: the cheapest that works)",
		       "fentry kprobe.multi kprobe" },
	[O_FREQUENCY] = { "frequency", 'F', "HZ", "samples per second and CPU (default 99)" },
	[O_STATE] = { "state", 0, "STATES", "blocks in these states: R,S,D,I,T or any (default)",
		      "R S D I T any" },
	[O_MIN_US] = { "min-us", 0, "US", "blocks of at least US microseconds" },
	[O_MAX_US] = { "max-us", 0, "US", "blocks of at most US microseconds" },
	[O_ALPHA] = { "alpha", 0, "P", "significance level of a change (default 0.01)" },
	[O_MIN_CHANGE] = { "min-change", 0, "PCT", "smallest change in percent called significant (default 5)" },
	[O_FAIL_ON] = { "fail-on", 0, "RULES", "exit 1 on a significant change past STAT>+PCT% or STAT<-PCT%, ..." },
	[O_MEASURE] = { "measure", 0, "SPEC", "serve this measurement: '[name=NAME:] COMMAND ARGS...' (repeatable)" },
	[O_CONFIG] = { "config", 0, "FILE", "serve the measurements of FILE, one per line; SIGHUP re-reads it", "@file" },
	[O_LISTEN] = { "listen", 0, "ADDR:PORT", "serve HTTP on ADDR:PORT (default 127.0.0.1:9669)" },
	[O_BUCKETS] = { "buckets", 0, "LIST", "latency histogram bounds in seconds, e.g. 0.001,0.01,0.1 (default: log2)" },
	[O_RETIRE_AFTER] = { "retire-after", 0, "SECONDS", "forget a label set after SECONDS without events, or once its process is gone (default 600)" },
	[O_USER] = { "user", 0, "USER", "serve HTTP from a process of USER's without capabilities; loading stays with this one" },
	[O_WEB_CONFIG] = { "web-config", 0, "FILE", "TLS and basic auth, in the Prometheus exporters' web configuration format; SIGHUP re-reads it", "@file" },
	[O_OTLP] = { "otlp", 0, "URL", "also push the measurements to an OpenTelemetry receiver, OTLP/HTTP protobuf (http://HOST:PORT/PATH)" },
	[O_OTLP_INTERVAL] = { "otlp-interval", 0, "SECONDS", "push to --otlp every SECONDS (default 10)" },
	[O_ALLOW_HOST] = { "allow-host", 0, "NAMES", "without authentication, also answer requests for these host names (comma-separated)" },
	[O_BTF] = { "btf", 0, "FILE", "the kernel's types from FILE, for a kernel without /sys/kernel/btf/vmlinux", "@file" },
	[O_VERBOSE] = { "verbose", 'v', NULL, "say what is attached and how; libbpf's log" },
	[O_HELP] = { "help", 'h', NULL, "this help" },
};

/* Bounds of every numeric option, checked by one parser.  max 0: a bound
 * read from the kernel (max_of). */
static const struct num_bound {
	double min, max;
	bool integer;
} num_bounds[NR_OPTS] = {
	[O_PID] = { 1, 4194304, true },		/* PID_MAX_LIMIT */
	[O_TID] = { 1, 4194304, true },
	[O_DURATION] = { 0.001, MAX_SECONDS },
	[O_INTERVAL] = { 0.01, MAX_SECONDS },
	[O_COUNT] = { 1, 1e9, true },
	[O_TOP] = { 1, 1e9, true },
	[O_MAX_GROUPS] = { 1, MAX_GROUPS_LIMIT, true },
	[O_MAX_BUCKETS] = { 1, FUNC_MAX_PAGES * FUNC_PAGE_SLOTS, true },
	[O_FREQUENCY] = { 1, 0, true },
	[O_MIN_US] = { 0, MAX_SECONDS * 1e6 },
	[O_MAX_US] = { 0, MAX_SECONDS * 1e6 },
	[O_ALPHA] = { 1e-12, 0.999 },
	[O_MIN_CHANGE] = { 0, 1e6 },
	[O_RETIRE_AFTER] = { 1, MAX_SECONDS },
	[O_OTLP_INTERVAL] = { 0.1, MAX_SECONDS },
};

/* -F: at most what the kernel lets a perf event sample. */
static double max_of(int id)
{
	char *text;
	double max = 100000;	/* the kernel's default */

	if (id == O_FREQUENCY && !read_file("/proc/sys/kernel/perf_event_max_sample_rate", &text, NULL)) {
		max = strtod(text, NULL);
		free(text);
	}
	return max;
}

/* The value of numeric option id, within its bounds: 0 or -EINVAL, said. */
static int parse_num(int id, const char *s, double *out)
{
	const struct num_bound *b = &num_bounds[id];
	double max = b->max ? b->max : max_of(id);
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*out) || *out < b->min || *out > max ||
	    (b->integer && *out != floor(*out))) {
		kd_err("bad --%s '%s': expected %s from %g to %.15g", cli_opts[id].name, s,
		       b->integer ? "an integer" : "a number", b->min, max);
		return -EINVAL;
	}
	return 0;
}

/* cgroup:container, :pod, :namespace, :unit */
static bool cgroup_formatter(const char *f, size_t flen)
{
	char name[16];

	snprintf(name, sizeof(name), "%.*s", (int)flen, f);
	return flen < sizeof(name) && cg_field_of(name) >= 0;
}

/* A list option (--by, --key): names, none empty, none twice; a built-in
 * number (pid, tid, cpu, cgroup) or comm takes no formatter that would
 * read it as something else. */
static int check_list(int id, const char *arg)
{
	static const char *const builtins[] = { "pid", "tid", "cpu", "cgroup", "comm",
						"container", "pod", "namespace", "unit" };
	const char *s = arg;

	while (*s) {
		size_t len = strcspn(s, ","), nlen = strcspn(s, ":,");
		const char *dup = s;

		if (!len) {
			kd_err("bad --%s '%s': empty name", cli_opts[id].name, arg);
			return -EINVAL;
		}
		while ((dup = strstr(dup + 1, ",")) && dup[1]) {
			if (!strncmp(dup + 1, s, len) && strcspn(dup + 1, ",") == len) {
				kd_err("bad --%s '%s': '%.*s' given twice", cli_opts[id].name, arg,
				       (int)len, s);
				return -EINVAL;
			}
		}
		for (size_t i = 0; id == O_BY && nlen < len && i < ARRAY_SIZE(builtins); i++) {
			const char *f = s + nlen + 1;
			size_t flen = len - nlen - 1;

			if (strlen(builtins[i]) != nlen || strncmp(s, builtins[i], nlen))
				continue;
			if (i >= 4 || ((flen != 3 || strncmp(f, "hex", 3)) &&
				       (flen != 3 || strncmp(f, "dec", 3)) &&
				       (i != 3 || !cgroup_formatter(f, flen)))) {
				kd_err("bad --by '%.*s': %s is %s, not a value to format as :%.*s",
				       (int)len, s, builtins[i], i >= 4 ? "a name" : "a number",
				       (int)flen, f);
				return -EINVAL;
			}
		}
		s += len + (s[len] == ',');
		if (s[-1] == ',' && !*s) {
			kd_err("bad --%s '%s': empty name", cli_opts[id].name, arg);
			return -EINVAL;
		}
	}
	return 0;
}

/* "bad --pid '7': no such process" before anything is loaded. */
static int check_task(int id, pid_t pid)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (access(path, F_OK)) {
		kd_err("bad --%s '%d': no such %s", cli_opts[id].name, pid,
		       id == O_PID ? "process" : "thread");
		return -ESRCH;
	}
	return 0;
}

/* "20ms", "1.5s", "250us", "900ns": a duration with its unit. */
static int duration_parse(const char *s, uint64_t *ns, const char *what)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	double v, div = 0;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(end, units[i].unit))
			div = units[i].ns;
	if (errno || end == s || !(v > 0) || !div || v * div >= 1e19) {
		kd_err("bad %s '%s': expected a duration such as 20ms (units ns, us, ms, s)", what, s);
		return -EINVAL;
	}
	*ns = (uint64_t)(v * div + 0.5);
	return 0;
}

/* -d and -i: bare seconds, as perf and the bcc tools take them, or a
 * duration with its unit as --slower-than takes it. */
static int seconds_parse(int id, const char *arg, double *out)
{
	size_t n = strlen(arg);
	char secs[32];
	uint64_t ns;

	if (!n || !isalpha((unsigned char)arg[n - 1]))
		return parse_num(id, arg, out);
	if (duration_parse(arg, &ns, id == O_DURATION ? "--duration" : "--interval"))
		return -EINVAL;
	snprintf(secs, sizeof(secs), "%.9g", ns / 1e9);
	return parse_num(id, secs, out);
}

/* -o is the format; perf and bpftrace users type -o FILE by habit. */
static int format_parse(const char *arg, enum out_format *fmt)
{
	if (strchr(arg, '/') || strchr(arg, '.')) {
		kd_err("bad -o '%s': -o is the format (text, json, csv...); did you mean --output %s?",
		       arg, arg);
		return -EINVAL;
	}
	return output_parse_format(arg, fmt);
}

/* "unknown option", with the nearest of the options c takes (set) when
 * one is near: "--explian" is "--explain". */
static void option_unknown(const char *arg, const struct command *c, uint64_t set)
{
	const char *names[NR_OPTS], *near;
	char word[64];
	size_t n = 0;

	for (int id = 0; id < NR_OPTS; id++) {
		if ((set & (1ULL << id)) && cli_opts[id].name)
			names[n++] = cli_opts[id].name;
	}
	snprintf(word, sizeof(word), "%s", arg + strspn(arg, "-"));
	word[strcspn(word, "=")] = '\0';
	near = strncmp(arg, "--", 2) ? NULL : nearest_word(word, names, n);
	if (near)
		kd_err("unknown option '%s'; did you mean --%s? (see kdist %s --help)", arg, near, c->name);
	else
		kd_err("unknown option '%s' (see kdist %s --help)", arg, c->name);
}

static int opt_id_of(int val)
{
	if (val >= OPT_VAL)
		return val - OPT_VAL;
	for (int id = 0; id < NR_OPTS; id++) {
		if (cli_opts[id].short_name == val)
			return id;
	}
	return -1;
}

/* One option's value into o.  0 or -EINVAL after saying why. */
static int set_option(int id, const char *arg, const struct command *c, struct options *o)
{
	double d = 0;
	int err = 0;

	if (cli_opts[id].arg && !arg[0]) {
		kd_err("bad --%s '': empty", cli_opts[id].name);
		return -EINVAL;
	}
	if (num_bounds[id].max || id == O_FREQUENCY) {
		err = id == O_DURATION || (id == O_INTERVAL && !(c->caps & CMD_INTERVAL_INDEX)) ?
			seconds_parse(id, arg, &d) : parse_num(id, arg, &d);
		if (err)
			return err;
	}
	switch (id) {
	case O_PID: o->pid = d; return check_task(id, o->pid);
	case O_TID: o->tid = d; return check_task(id, o->tid);
	case O_COMM:
		if (strlen(arg) > 15) {
			kd_err("bad --comm '%s': at most 15 characters", arg);
			return -EINVAL;
		}
		/* the kernel's filter compares one name */
		if (strchr(arg, ',')) {
			kd_err("bad --comm '%s': one name only (for several, --by comm shows each)", arg);
			return -EINVAL;
		}
		snprintf(o->comm, sizeof(o->comm), "%s", arg);
		break;
	case O_CGROUP: o->cgroup = arg; break;
	case O_CMD:
		if (!arg[strspn(arg, " \t\n")]) {
			kd_err("bad --cmd '%s': no command", arg);
			return -EINVAL;
		}
		o->cmd = arg;
		break;
	case O_DURATION: o->duration = d; break;
	case O_INTERVAL: o->interval = d; break;
	case O_COUNT: o->count = d; break;
	case O_BY:
	case O_KEY:
		err = check_list(id, arg);
		*(id == O_BY ? &o->by : &o->key) = arg;
		break;
	case O_UNIT:
		err = unit_parse(arg, &d);
		o->view.unit = arg;
		break;
	case O_FORMAT:
		err = format_parse(arg, &o->view.format);
		o->format_set = true;
		break;
	case O_OUTPUT: o->output = arg; break;
	case O_HIST: o->view.hist = true; break;
	case O_HEATMAP: o->view.heatmap = true; break;
	case O_SORT:
		if (strcmp(arg, "total") && strcmp(arg, "count") && strcmp(arg, "self") &&
		    strcmp(arg, "key")) {
			kd_err("bad --sort '%s': expected total, count, self or key", arg);
			return -EINVAL;
		}
		if (!strcmp(arg, "self") && !(c->caps & CMD_SELF_TIME)) {
			kd_err("bad --sort 'self': only func measures self time");
			return -EINVAL;
		}
		o->view.sort = arg;
		break;
	case O_TOP: o->view.top = d; break;
	case O_ALL: o->view.all = true; break;
	case O_LINEAR:
		o->linear = arg;
		err = linear_parse(arg, &o->view.linear);
		break;
	case O_MAX_GROUPS: o->max_groups = d; break;
	case O_FREQUENCY: o->freq = d; break;
	case O_IF: o->cond = arg; break;
	case O_SLOWER_THAN:
		err = duration_parse(arg, &o->slower_ns, "--slower-than");
		break;
	case O_STACK: o->stack = 1; break;
	case O_EXPLAIN: o->explain = EXPLAIN_SPLIT; break;
	case O_MATCH:
		o->match = !strcmp(arg, "fifo") ? MATCH_FIFO : !strcmp(arg, "lifo") ? MATCH_LIFO :
			   !strcmp(arg, "replace") ? MATCH_REPLACE : -1;
		if (o->match < 0) {
			kd_err("bad --match '%s': expected replace, fifo or lifo", arg);
			return -EINVAL;
		}
		break;
	case O_FIELDS: o->fields = arg; break;
	case O_EVERY:
		err = duration_parse(arg, &o->every_ns, "--every");
		if (!err && o->every_ns < 1000000) {
			kd_err("bad --every '%s': at least 1ms", arg);
			err = -EINVAL;
		}
		break;
	case O_MAX_RATE: {
		char *end;

		errno = 0;
		d = strtod(arg, &end);
		if (errno || end == arg || (*end && strcmp(end, "/s")) || !(d >= 1) || d > 1e12 ||
		    d != floor(d)) {
			kd_err("bad --max-rate '%s': expected N/s, N an integer from 1", arg);
			return -EINVAL;
		}
		o->max_rate = d;
		break;
	}
	case O_MAX_BUCKETS: o->max_buckets = d; break;
	case O_ATTACH:
		if (strcmp(arg, "fentry") && strcmp(arg, "kprobe.multi") && strcmp(arg, "kprobe")) {
			kd_err("bad --attach '%s': expected fentry, kprobe.multi or kprobe", arg);
			return -EINVAL;
		}
		o->attach = arg;
		break;
	case O_STATE: o->state = arg; break;
	case O_MIN_US: o->min_us = d; break;
	case O_MAX_US: o->max_us = d; break;
	case O_ALPHA: o->alpha = d; break;
	case O_MIN_CHANGE:
		o->min_change = d;
		o->min_change_set = true;
		break;
	case O_FAIL_ON: o->fail_on = arg; break;
	case O_MEASURE: {
		char **m = realloc(o->measures, (o->nmeasures + 1) * sizeof(*m));

		if (!m)
			return -ENOMEM;
		o->measures = m;
		m[o->nmeasures++] = (char *)arg;
		break;
	}
	case O_CONFIG: o->config = arg; break;
	case O_LISTEN: o->listen = arg; break;
	case O_BUCKETS: o->buckets = arg; break;
	case O_RETIRE_AFTER: o->retire_after = d; break;
	case O_ALLOW_HOST: o->allow_hosts = arg; break;
	case O_USER: o->user = arg; break;
	case O_WEB_CONFIG: o->web_config = arg; break;
	case O_BTF:
		if (engine_btf_check(arg))
			return -EINVAL;
		kd_btf_file = arg;
		break;
	case O_OTLP: o->otlp = arg; break;
	case O_OTLP_INTERVAL: o->otlp_interval = d; break;
	case O_VERBOSE: kd_verbose_level++; break;
	case O_HELP:
		/* a configuration line must not end the server that reloads it */
		if (o->served) {
			kd_err("bad option --help in a served measurement");
			return -EINVAL;
		}
		cli_usage(stdout, c);
		exit(0);
	}
	return err;
}

/* Forget where the previous parse stopped.  optind = 1 alone does not:
 * glibc's getopt goes on inside a cluster of short options ("-1p4242") the
 * previous parse left half read, in an argv that may be freed since (serve
 * parses every measurement, again at every reload).  optind = 0 starts it
 * afresh at its next call: this one, on an argv of no options. */
static void getopt_reset(void)
{
	static char *none[] = { "kdist", NULL };

	optind = 0;
	getopt(1, none, "");
}

int cli_parse(int argc, char **argv, const struct command *c, struct options *o)
{
	struct option lo[NR_OPTS + 1] = { 0 };
	/* ":" first: a missing value is told apart from an unknown option */
	char shorts[2 * NR_OPTS + 3] = "+:", *sp = shorts + 2;
	uint64_t set = cli_command_opts(c);
	int opt, id, err;

	for (id = 0; id < NR_OPTS; id++) {
		const struct opt_desc *d = &cli_opts[id];

		lo[id] = (struct option){ d->name, d->arg ? required_argument : no_argument, 0,
					  OPT_VAL + id };
		if (d->short_name) {
			*sp++ = d->short_name;
			if (d->arg)
				*sp++ = ':';
		}
	}
	o->args = calloc(argc, sizeof(char *));
	if (!o->args)
		return -ENOMEM;
	opterr = 0;
	getopt_reset();
	/* "+" and manual permutation: options may follow positionals, but
	 * everything after "--" is the workload's. */
	while (optind < argc) {
		if (!strcmp(argv[optind], "--")) {
			o->argv = &argv[optind + 1];
			if (!(set & OPT(CMD))) {
				kd_err("bad arguments: '%s' runs no workload", c->name);
				return -EINVAL;
			}
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
		opt = getopt_long(argc, argv, shorts, lo, NULL);
		if (opt == -1)
			break;
		if (opt == '?' && optopt) {	/* a short one, maybe inside a cluster */
			kd_err("unknown option '-%c' (see kdist %s --help)", optopt, c->name);
			return -EINVAL;
		}
		if (opt == '?') {
			option_unknown(argv[optind - 1], c, set);
			return -EINVAL;
		}
		if (opt == ':') {
			kd_err("option '%s' needs a value", argv[optind - 1]);
			return -EINVAL;
		}
		id = opt_id_of(opt);
		if (!(set & (1ULL << id))) {
			kd_err("option --%s is not for '%s'", cli_opts[id].name, c->name);
			return -EINVAL;
		}
		err = set_option(id, optarg, c, o);
		if (err)
			return err;
		/* --stack takes an optional word: start (the default) or end;
		 * --explain one: full or end */
		if (id == O_STACK && optind < argc &&
		    (!strcmp(argv[optind], "start") || !strcmp(argv[optind], "end")))
			o->stack = strcmp(argv[optind++], "end") ? 1 : 2;
		if (id == O_EXPLAIN && optind < argc &&
		    (!strcmp(argv[optind], "full") || !strcmp(argv[optind], "end")))
			o->explain = strcmp(argv[optind++], "end") ? EXPLAIN_FULL : EXPLAIN_END;
	}
	if (o->cmd && o->argv) {
		kd_err("bad workload: give -c 'CMD' or -- CMD ARGS, not both");
		return -EINVAL;
	}
	if ((o->cmd || o->argv) && (o->pid || o->tid || o->cgroup)) {
		kd_err("bad filter: a workload is traced alone; -p, --tid and --cgroup do not apply");
		return -EINVAL;
	}
	if (o->nargs && !c->args[0]) {
		if (set & OPT(CMD))
			kd_err("bad arguments: '%s' takes none ('%s'); a workload goes after --: kdist %s -- %s ...",
			       c->name, o->args[0], c->name, o->args[0]);
		else
			kd_err("bad arguments: '%s' takes none ('%s')", c->name, o->args[0]);
		return -EINVAL;
	}
	if (o->view.heatmap && (!o->interval || o->view.format != OUT_TEXT)) {
		kd_err("bad option: --heatmap is for the text view with -i SECONDS");
		return -EINVAL;
	}
	if (o->view.all && o->view.top) {
		kd_err("bad option: --top N or --all, not both");
		return -EINVAL;
	}
	if (o->view.format == OUT_PPROF && o->interval) {
		kd_err("bad option: -o pprof is one profile of the whole run, not intervals (-i)");
		return -EINVAL;
	}
	/* a pprof sample is a stack */
	if (o->view.format == OUT_PPROF && !(c->caps & CMD_STACK_GROUPS) && c->prepare &&
	    !(o->by && strstr(o->by, "stack"))) {
		kd_err("bad output format 'pprof': %s has no stacks: give --by kstack or ustack", c->name);
		return -EINVAL;
	}
	if (o->count && !o->interval) {
		kd_err("bad option: -n COUNT needs -i SECONDS");
		return -EINVAL;
	}
	if (o->stack && !o->slower_ns) {
		kd_err("bad option: --stack needs --slower-than DURATION");
		return -EINVAL;
	}
	if (o->explain == EXPLAIN_FULL && !o->slower_ns) {
		kd_err("bad option: --explain full shows the longest block on --slower-than lines: "
		       "it needs --slower-than DURATION");
		return -EINVAL;
	}
	if ((o->slower_ns || (c->caps & CMD_EVENT_LINES)) && !view_can(o->view.format, VIEW_EVENTS)) {
		char names[64];

		kd_err("bad option: events are printed as %s lines, not in this -o format",
		       view_names(VIEW_EVENTS, names, sizeof(names)));
		return -EINVAL;
	}
	if ((set & OPT(MAX_GROUPS)) && !o->max_groups)
		o->max_groups = cli_max_groups(c);
	return 0;
}
