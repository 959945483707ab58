/* SPDX-License-Identifier: GPL-2.0 */
/* The commands kdist has (the recipes are listed by recipes.c), for the
 * command line's table (cli.c). */
#ifndef KDIST_COMMANDS_H
#define KDIST_COMMANDS_H

#include "cmd/command.h"

extern const struct command cmd_pair, cmd_list, cmd_probe;
extern const struct command cmd_profile, cmd_offcpu, cmd_wakeup;
extern const struct command cmd_func, cmd_diff, cmd_report, cmd_trace;
extern const struct command cmd_serve;

extern const struct command *const recipe_commands[];

#endif
