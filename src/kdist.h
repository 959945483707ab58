/* SPDX-License-Identifier: GPL-2.0 */
/* Options common to every command, the command table and the lifecycle
 * (prepare -> attach -> read... -> cleanup) that main drives. */
#ifndef KDIST_H
#define KDIST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/measure.h"

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
	const char *fields;	/* trace --fields */
	uint64_t max_rate;	/* trace --max-rate, events per second */
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
	O_BY, O_KEY, O_UNIT, O_FORMAT, O_OUTPUT, O_HIST, O_SORT, O_TOP, O_LINEAR,
	O_MAX_GROUPS, O_MAX_BUCKETS, O_ATTACH, O_HEATMAP, O_IF, O_SLOWER_THAN, O_STACK, O_FIELDS, O_MAX_RATE,
	O_FREQUENCY, O_STATE, O_MIN_US, O_MAX_US, O_ALPHA, O_MIN_CHANGE, O_FAIL_ON,
	O_MEASURE, O_CONFIG, O_LISTEN, O_BUCKETS, O_RETIRE_AFTER,
	O_ALLOW_HOST, O_USER, O_WEB_CONFIG,
	O_VERBOSE, O_HELP,
	NR_OPTS
};
#define OPT(id) (1ULL << O_##id)
/* What every measuring command takes: filters, the workload, timing,
 * grouping and the views. */
#define OPTS_MEASURE                                                                    \
	(OPT(PID) | OPT(TID) | OPT(COMM) | OPT(CGROUP) | OPT(CMD) | OPT(DURATION) |    \
	 OPT(INTERVAL) | OPT(COUNT) | OPT(BY) | OPT(UNIT) | OPT(FORMAT) | OPT(OUTPUT) | \
	 OPT(HIST) | OPT(SORT) | OPT(TOP) | OPT(MAX_GROUPS) | OPT(HEATMAP))
/* Taken by every command, declared or not. */
#define OPTS_ALWAYS (OPT(VERBOSE) | OPT(HELP))

/* --max-groups when none is given, unless the command says otherwise. */
#define DEFAULT_MAX_GROUPS 4096
/* Upper bounds of --max-groups and of every duration (-d, -i: a year). */
#define MAX_GROUPS_LIMIT (1 << 20)
#define MAX_SECONDS 31536000

struct session;

struct command {
	const char *name;
	const char *args;	/* positional synopsis */
	const char *summary;
	uint64_t opts;		/* OPT() bits of the options it takes */
	int max_groups;		/* its group table's size; 0: DEFAULT_MAX_GROUPS */
	/* one-shot commands (list, probe, recipes, diff): 0 or a negative
	 * errno, or a positive exit status of its own (diff) */
	int (*run)(struct options *o);
	/* measuring commands */
	int (*prepare)(struct session *s);	/* parse args, open, configure, load */
	int (*attach)(struct session *s);
	int (*read)(struct session *s, struct measurement *m);	/* cumulative */
	/* optional: the measurement is over, stop its event sources before
	 * the last read (a profile at its maximum rate starves the read) */
	void (*stop)(struct session *s);
	void (*cleanup)(struct session *s);
	const void *data;	/* per-command constant, e.g. a recipe */
};

struct session {
	const struct command *cmd;
	struct options *opt;
	void *priv;
};

/* What main does for every measuring command, for commands that run
 * several sessions (serve): */
/* SIGINT, SIGTERM, SIGHUP and SIGCHLD, blocked, to a signalfd; or -errno. */
int kdist_signalfd(void);
/* Whether a SIGINT or SIGTERM waits for the run loop (a long read may
 * stop its event sources at once, kdist_signalfd's signals being blocked). */
bool kdist_end_pending(void);
/* 0 as root, else -EPERM after saying why. */
int kdist_need_root(void);
/* Resolve what the options name on this machine (--cgroup's set). */
int options_resolve(struct options *o);
/* prepare and attach; on failure nothing stays loaded.  0 or -errno. */
int session_start(struct session *s);
/* Detach and free what the session holds; a stopped session may stop again. */
void session_stop(struct session *s);

extern const struct command cmd_pair, cmd_list, cmd_probe;
extern const struct command cmd_profile, cmd_offcpu, cmd_wakeup;
extern const struct command cmd_func, cmd_diff, cmd_report, cmd_trace;
extern const struct command cmd_serve;

#endif
