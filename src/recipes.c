// SPDX-License-Identifier: GPL-2.0
/* Named measurements built on the pair engine: a recipe is a pair spec plus
 * presentation, never a BPF program of its own. */
#include "kdist.h"
#include "pair_cmd.h"

#include <stddef.h>

const struct command *const recipe_commands[] = { NULL };
