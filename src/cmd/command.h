/* SPDX-License-Identifier: GPL-2.0 */
/* The command contract: what a command is (its row: name, options,
 * capabilities) and the lifecycle prepare -> attach -> read... -> cleanup
 * that the run loop (main.c, serve) drives through a session. */
#ifndef KDIST_COMMAND_H
#define KDIST_COMMAND_H

#include <stdbool.h>
#include <stdint.h>

#include "model/measure.h"
#include "model/options.h"

struct session;

/* What a command can do that some places ask about, on its row instead of
 * comparisons with one command. */
/* The command line's lookup and parser (cli.c), for a command that reads
 * command lines of its own (serve's measurements): main hands them down in
 * struct options, so that no command depends on the command line above it. */
struct command_line {
	const struct command *(*find)(const char *name);
	/* argv[0] is the command's name; see cli_parse() */
	int (*parse)(int argc, char **argv, const struct command *c, struct options *o);
};

enum command_caps {
	CMD_SERVE = 1 << 0,		/* kdist serve takes it as a measurement */
	CMD_SELF_TIME = 1 << 1,		/* it measures self time (--sort self) */
	CMD_INTERVAL_INDEX = 1 << 2,	/* -i N picks an interval of its input,
					 * not seconds */
	CMD_EVENT_LINES = 1 << 3,	/* it prints a line per event as it comes
					 * (no status line between them) */
	CMD_STACK_GROUPS = 1 << 4,	/* its groups are stacks: reading them for
					 * the status line takes long */
};

struct command {
	const char *name;
	const char *args;	/* positional synopsis */
	const char *summary;
	uint64_t opts;		/* OPT() bits of the options it takes */
	int max_groups;		/* its group table's size; 0: DEFAULT_MAX_GROUPS */
	unsigned int caps;	/* enum command_caps */
	const char *by_help;	/* its --by keys, when not the common ones */
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
	/* optional: after the last read, a hint on stderr about m (pair: the
	 * fields a --key could use when ENDs found no START) */
	void (*hint)(struct session *s, const struct measurement *m);
	void (*cleanup)(struct session *s);
	const void *data;	/* per-command constant, e.g. a recipe */
};

struct session {
	const struct command *cmd;
	struct options *opt;
	void *priv;
};

#endif
