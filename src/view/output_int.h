/* SPDX-License-Identifier: GPL-2.0 */
/* What output.c and json.c share: a group's histogram and key labels, and
 * the JSON view measurement_write calls. */
#ifndef KDIST_OUTPUT_INT_H
#define KDIST_OUTPUT_INT_H

#include <stdio.h>

#include "model/measure.h"

/* The histogram of group g, expanded into buf. */
const struct hist *output_group_hist(const struct m_group *g, struct hist *buf);
/* Key value i of group g as views print it; buf holds 128 bytes. */
const char *output_label(const struct measurement *m, const struct m_group *g, int i, char *buf);
/* Measurement m's first n groups v as one JSON document (json.c). */
void json_write(FILE *f, const struct measurement *m, const struct m_group **v, int n,
		const char *cmdline);

#endif
