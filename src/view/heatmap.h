/* SPDX-License-Identifier: GPL-2.0 */
/* The terminal heatmap of the text view with -i --heatmap: per group, one
 * row per interval so far, one character per power of two, shaded by how
 * many values fell there. */
#ifndef KDIST_HEATMAP_H
#define KDIST_HEATMAP_H

#include <stdio.h>

#include "model/hist.h"

/* Groups whose history is kept (the first shown): every interval keeps
 * 65 counts per group. */
#define HEAT_MAX_GROUPS 8

struct heat;

/* Record the histogram of the group labelled label in interval (1, 2...).
 * *hp is created on first use.  0 or -ENOMEM. */
int heat_add(struct heat **hp, const char *label, int interval, const struct hist *h);
/* The heatmap of label's intervals 1 .. the last one added; unit names
 * the values ("ns", "bytes"). */
void heat_write(FILE *f, const struct heat *h, const char *label, const char *unit);
void heat_free(struct heat *h);

#endif
