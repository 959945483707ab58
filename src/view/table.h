/* SPDX-License-Identifier: GPL-2.0 */
/* Text views of groups one line each (table.c): a first screen of many
 * groups, and the line that says how many more there are. */
#ifndef KDIST_TABLE_H
#define KDIST_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "model/measure.h"
#include "model/options.h"

void text_group_label(FILE *f, const struct measurement *m, const struct m_group *g,
		      const char *sep);
void text_counts(FILE *f, const struct measurement *m, const struct m_group **v, int n);
void text_group_table(FILE *f, const struct measurement *m, const struct m_group **v, int n);
/* table: the groups are shown as a table (--hist gives their histograms) */
void text_more_groups(FILE *f, const struct measurement *m, const struct view_opts *vo,
		      bool table, const struct m_group **v, int n);

#endif
