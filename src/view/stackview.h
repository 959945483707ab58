/* SPDX-License-Identifier: GPL-2.0 */
/* Stack views of a measurement (stackview.c): folded stacks, the SVG flame
 * graph, and the heaviest stacks of the text view. */
#ifndef KDIST_STACKVIEW_H
#define KDIST_STACKVIEW_H

#include <stdio.h>

#include "model/measure.h"
#include "model/options.h"

/* Every group as one folded line, or the flame graph of them (v->format). */
int stackview_write(FILE *f, const struct measurement *m, const struct view_opts *v);
/* The n heaviest stacks as text (0: all). */
int stackview_write_top(FILE *f, const struct measurement *m, const struct view_opts *v, int n);

#endif
