/* SPDX-License-Identifier: GPL-2.0 */
/* Options common to every command, the command table and the lifecycle
 * (prepare -> attach -> read... -> cleanup) that main drives. */
#ifndef KDIST_H
#define KDIST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "measure.h"

struct options {
	/* filters */
	pid_t pid;
	pid_t tid;
	char comm[16];
	const char *cgroup;
	uint64_t cgroup_id;	/* from --cgroup or the workload's cgroup */
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
	int freq;		/* profile -F */
	const char *state;	/* offcpu --state */
	double min_us, max_us;	/* offcpu --min-us, --max-us */
	int max_groups;
	/* diff */
	double alpha, min_change;
	bool min_change_set;
	const char *fail_on;
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
	O_MAX_GROUPS, O_FREQUENCY, O_STATE, O_MIN_US, O_MAX_US, O_ALPHA, O_MIN_CHANGE, O_FAIL_ON,
	O_VERBOSE, O_HELP,
	NR_OPTS
};
#define OPT(id) (1ULL << O_##id)
/* What every measuring command takes: filters, the workload, timing,
 * grouping and the views. */
#define OPTS_MEASURE                                                                    \
	(OPT(PID) | OPT(TID) | OPT(COMM) | OPT(CGROUP) | OPT(CMD) | OPT(DURATION) |    \
	 OPT(INTERVAL) | OPT(COUNT) | OPT(BY) | OPT(UNIT) | OPT(FORMAT) | OPT(OUTPUT) | \
	 OPT(HIST) | OPT(SORT) | OPT(TOP) | OPT(MAX_GROUPS))
/* Taken by every command, declared or not. */
#define OPTS_ALWAYS (OPT(VERBOSE) | OPT(HELP))

/* --max-groups when none is given, unless the command says otherwise. */
#define DEFAULT_MAX_GROUPS 4096

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
	void (*cleanup)(struct session *s);
	const void *data;	/* per-command constant, e.g. a recipe */
};

struct session {
	const struct command *cmd;
	struct options *opt;
	void *priv;
};

extern const struct command cmd_pair, cmd_list, cmd_probe;
extern const struct command cmd_profile, cmd_offcpu, cmd_wakeup;
extern const struct command cmd_func, cmd_diff;

#endif
