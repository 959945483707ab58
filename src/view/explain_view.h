/* SPDX-License-Identifier: GPL-2.0 */
/* The text and JSON views of a group's --explain split (nothing when the
 * group has none). */
#ifndef KDIST_VIEW_EXPLAIN_VIEW_H
#define KDIST_VIEW_EXPLAIN_VIEW_H

#include <stdio.h>

struct measurement;
struct m_group;

void explain_write_text(FILE *f, const struct measurement *m, const struct m_group *g);
void explain_write_json(FILE *f, const struct measurement *m, const struct m_group *g);

#endif
