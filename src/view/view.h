/* SPDX-License-Identifier: GPL-2.0 */
/* The views of a measurement (output.c and the files it calls): what they
 * are asked for is struct view_opts (model/options.h). */
#ifndef KDIST_VIEW_H
#define KDIST_VIEW_H

#include <stdio.h>

#include "model/measure.h"
#include "model/options.h"

int output_parse_format(const char *s, enum out_format *f);
/* "MIN,MAX,STEP" for --linear: 0 or -EINVAL after printing why. */
int linear_parse(const char *s, struct linear *l);
/* Write one measurement in the chosen format.  0 or -errno.  HTML is one
 * page for every measurement of a run: measurement_write keeps each, and
 * measurement_write_end writes the page (and frees what views kept). */
int measurement_write(FILE *f, const struct measurement *m, struct view_opts *v);
int measurement_write_end(FILE *f, struct view_opts *v);

/* s as a JSON string, quoted and escaped. */
void json_str(FILE *f, const char *s);
/* s as one CSV field: quoted when it holds a comma, a quote or a newline. */
void csv_field(FILE *f, const char *s);

#endif
