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
	/* views */
	struct view_opts view;
	const char *output;
	/* positional arguments after the command name */
	int nargs;
	char **args;
};

struct session;

struct command {
	const char *name;
	const char *args;	/* positional synopsis */
	const char *summary;
	/* one-shot commands (list, probe, recipes) */
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
extern const struct command cmd_func;

#endif
