/* SPDX-License-Identifier: GPL-2.0 */
/* The views of a measurement (output.c and the files it calls): what they
 * are asked for is struct view_opts (model/options.h). */
#ifndef KDIST_VIEW_H
#define KDIST_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/measure.h"
#include "model/options.h"

/* What a view can show, as the table of views in output.c says.  Every
 * view shows a saved measurement (report). */
enum view_shows {
	VIEW_LIVE = 1,		/* a measuring command's results, interval by interval */
	VIEW_EVENTS = 4,	/* one line per event (trace, --slower-than) */
	VIEW_DIFF = 8,		/* a comparison of two measurements (diff) */
	VIEW_FOLDED_DIFF = 16,	/* a comparison of two folded stack files */
	VIEW_COST = 32,		/* always kdist's own cost (the kernel's BPF statistics on) */
};

/* -o NAME: 0, or -EINVAL after printing the names there are. */
int output_parse_format(const char *s, enum out_format *f);
const char *view_name(enum out_format f);
bool view_can(enum out_format f, enum view_shows what);
/* The names of the views that can show what, for a message: "text, json
 * or csv" (buf). */
const char *view_names(enum view_shows what, char *buf, size_t len);
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
