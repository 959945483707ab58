/* SPDX-License-Identifier: GPL-2.0 */
/* The text and JSON views of a group's --explain split (nothing when the
 * group has none), and of one interval's on its --slower-than line. */
#ifndef KDIST_VIEW_EXPLAIN_VIEW_H
#define KDIST_VIEW_EXPLAIN_VIEW_H

#include <stdbool.h>
#include <stdio.h>

struct measurement;
struct m_group;
struct ex_one;

void explain_write_text(FILE *f, const struct measurement *m, const struct m_group *g);
void explain_write_json(FILE *f, const struct measurement *m, const struct m_group *g);
/* One interval's split as fields of a --slower-than line, as m (the
 * measurement's header) has it: irq known, the END's thread followed. */
void explain_event_fields(FILE *f, const struct ex_one *x, const struct measurement *m);

#endif
