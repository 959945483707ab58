/* SPDX-License-Identifier: GPL-2.0 */
/* The HTML view: one self-contained page (inline CSS, script and SVG, no
 * network) drawn in the browser from kdist's JSON, which it embeds. */
#ifndef KDIST_HTML_H
#define KDIST_HTML_H

#include <stddef.h>
#include <stdio.h>

/* The page of docs[0..len): kdist.measurement/1 documents (a whole run, or
 * one per interval) or one kdist.diff/1 document.  name is what errors
 * call the input.  0 or a negative errno after printing why. */
int html_write(FILE *f, const char *name, const char *docs, size_t len);

#endif
