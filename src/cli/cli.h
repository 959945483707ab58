/* SPDX-License-Identifier: GPL-2.0 */
/* The command line: the command and option tables, and everything made
 * from them (parsing, --help, the man page, bash completion), so that none
 * of them can say something the others do not. */
#ifndef KDIST_CLI_H
#define KDIST_CLI_H

#include <stdio.h>
#include "cmd/command.h"


struct opt_desc {
	const char *name;	/* --name */
	char short_name;	/* -c, or 0 */
	const char *arg;	/* the value's name; NULL for a flag */
	const char *help;
	/* what a value may be, for completion: words, or @file, @dir, @pid,
	 * @command; NULL for anything */
	const char *values;
};

extern const struct opt_desc cli_opts[NR_OPTS];

/* The i-th command, built-in commands first, then recipes; NULL past the
 * end. */
const struct command *cli_command(int i);
const struct command *cli_find_command(const char *name);
/* The one line for a command name no command has, with the nearest. */
void cli_unknown_command(const char *name);
/* Whether the i-th command is a recipe (for --help and the man page). */
bool cli_is_recipe(int i);
/* cli_find_command and cli_parse, for commands given command lines */
extern const struct command_line cli_command_line;
/* The options c takes, every one of them included. */
uint64_t cli_command_opts(const struct command *c);
int cli_max_groups(const struct command *c);

/* argv[0] is the command's name.  0, or -EINVAL after one line on stderr;
 * exits 0 after --help. */
int cli_parse(int argc, char **argv, const struct command *c, struct options *o);
/* c NULL: the overview of every command. */
void cli_usage(FILE *f, const struct command *c);
/* Copy TEMPLATE to f, with each line that is one @NAME@ replaced by what
 * the tables make of it (the man page's synopsis, commands and options;
 * bash completion's data; a plain listing for tests). */
int cli_expand(FILE *f, const char *template);

#endif
