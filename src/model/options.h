/* SPDX-License-Identifier: GPL-2.0 */
/* What the user asked for: the options of every command, as the command
 * line (cli/) or a served measurement's spec fills them, and how the result
 * is to be shown (struct view_opts).  Every layer above the model reads it. */
#ifndef KDIST_OPTIONS_H
#define KDIST_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

enum out_format { OUT_TEXT, OUT_JSON, OUT_CSV, OUT_FOLDED, OUT_SVG, OUT_MARKDOWN, OUT_HTML, OUT_PPROF };

struct view_opts {
	enum out_format format;
	const char *unit;	/* NULL: chosen from the data */
	bool hist;		/* histograms per group where the view has a choice */
	const char *sort;	/* "count", "total", "self", "key" ... */
	int top;		/* at most this many groups, 0 = all (text: TEXT_TOP) */
	bool all;		/* text: every group */
	struct linear {		/* value histograms in linear buckets */
		double min, max, step;	/* step 0: log2 */
	} linear;
	bool heatmap;		/* text with -i: the heatmap of the intervals so far */
	const char *cmdline;	/* the command line, for JSON and HTML; NULL: none */
	struct view_state *state;	/* what the view keeps over a run: its own (view/) */
};


/* Groups the text view shows unless --top N or --all: a first screen, with a
 * line saying how many more there are.  Machine views (JSON, CSV) stay whole. */
#define TEXT_TOP 10

struct command_line;

struct options {
	/* filters */
	pid_t pid;
	pid_t tid;
	char comm[16];
	const char *cgroup;
	uint64_t cgroup_id;	/* the workload's cgroup */
	struct cgroup_set *cgset;	/* --cgroup and --if on containers: container.h */
	/* workload: -c 'CMD' or -- CMD ARGS */
	const char *cmd;
	char **argv;
	/* timing */
	double duration;
	double interval;
	int count;
	/* measurement */
	const char *key;
	const char *by;
	const char *linear;
	const char *cond;	/* --if */
	uint64_t slower_ns;	/* --slower-than */
	int stack;		/* --stack: enum slow_stack */
	unsigned char explain;	/* --explain: split each interval (model/explain.h's
				 * EXPLAIN_SPLIT; --explain full: EXPLAIN_FULL) */
	int match;		/* --match: enum match_mode (cmd/pair/match.h) */
	const char *fields;	/* trace --fields */
	uint64_t max_rate;	/* trace --max-rate, events per second */
	uint64_t every_ns;	/* trace --every: read --fields on a timer */
	int freq;		/* profile -F */
	const char *state;	/* offcpu --state */
	double min_us, max_us;	/* offcpu --min-us, --max-us */
	int max_groups;
	int max_buckets;	/* func --max-buckets */
	const char *attach;	/* func --attach: fentry, kprobe.multi or kprobe */
	/* diff */
	double alpha, min_change;
	bool min_change_set;
	const char *fail_on;
	bool format_set;	/* report: -o given (its default is the page) */
	/* serve */
	char **measures;
	int nmeasures;
	const char *config, *listen, *buckets;
	/* a served measurement: --help is refused, not printed; the run's
	 * groups are at most max_groups, retired after retire_after seconds
	 * without events or when their process is gone */
	bool served;
	double retire_after;
	const char *allow_hosts, *user, *web_config;
	const char *otlp;	/* --otlp URL, pushed every otlp_interval s */
	double otlp_interval;
	/* the command line's parser, for serve's measurements (command.h) */
	const struct command_line *cl;
	/* views */
	struct view_opts view;
	const char *output;
	/* positional arguments after the command name */
	int nargs;
	char **args;
};

/* Every option, by id: a command declares the ones it takes as a set of
 * OPT(ID) bits, and the parser refuses the others (see cli.c). */
enum opt_id {
	O_PID, O_TID, O_COMM, O_CGROUP, O_CMD, O_DURATION, O_INTERVAL, O_COUNT,
	O_BY, O_KEY, O_UNIT, O_FORMAT, O_OUTPUT, O_HIST, O_SORT, O_TOP, O_ALL, O_LINEAR,
	O_MAX_GROUPS, O_MAX_BUCKETS, O_ATTACH, O_HEATMAP, O_IF, O_SLOWER_THAN, O_STACK, O_EXPLAIN, O_MATCH, O_FIELDS, O_MAX_RATE, O_EVERY,
	O_FREQUENCY, O_STATE, O_MIN_US, O_MAX_US, O_ALPHA, O_MIN_CHANGE, O_FAIL_ON,
	O_MEASURE, O_CONFIG, O_LISTEN, O_BUCKETS, O_RETIRE_AFTER,
	O_ALLOW_HOST, O_USER, O_WEB_CONFIG, O_OTLP, O_OTLP_INTERVAL,
	O_BTF, O_VERBOSE, O_HELP,
	NR_OPTS
};
#define OPT(id) (1ULL << O_##id)
/* What every measuring command takes: filters, the workload, timing,
 * grouping, the views and the kernel's types (--btf). */
#define OPTS_MEASURE                                                                    \
	(OPT(PID) | OPT(TID) | OPT(COMM) | OPT(CGROUP) | OPT(CMD) | OPT(DURATION) |    \
	 OPT(INTERVAL) | OPT(COUNT) | OPT(BY) | OPT(UNIT) | OPT(FORMAT) | OPT(OUTPUT) | \
	 OPT(HIST) | OPT(SORT) | OPT(TOP) | OPT(ALL) | OPT(MAX_GROUPS) | OPT(HEATMAP) | OPT(BTF))
/* Taken by every command, declared or not. */
#define OPTS_ALWAYS (OPT(VERBOSE) | OPT(HELP))

/* --max-groups when none is given, unless the command says otherwise. */
#define DEFAULT_MAX_GROUPS 4096
/* Upper bounds of --max-groups and of every duration (-d, -i: a year). */
#define MAX_GROUPS_LIMIT (1 << 20)
#define MAX_SECONDS 31536000

#endif
