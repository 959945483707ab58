/* SPDX-License-Identifier: GPL-2.0 */
/* The markdown view: a measurement's groups as one table (-o markdown),
 * and the escaping of texts in table cells that diff's table shares. */
#ifndef KDIST_MARKDOWN_H
#define KDIST_MARKDOWN_H

#include "model/measure.h"

#include <stdio.h>

/* s in a table cell: '|' would end the cell, and markdown renders raw
 * HTML (texts hold no newline: they are in text_escape form). */
void md_text(FILE *f, const char *s);
/* The title, a row per group of v[0..n) (in that order), the losses. */
void markdown_write(FILE *f, const struct measurement *m, const struct m_group **v, int n);

#endif
