/* SPDX-License-Identifier: GPL-2.0 */
/* Formatters (format.c): a group key's value as views print it (--by
 * FIELD:FORMAT), and times, sizes and units as every view writes them. */
#ifndef KDIST_FORMAT_H
#define KDIST_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/measure.h"

/* "ksym" -> FMT_KSYM; -EINVAL after printing why, naming `what`. */
int fmt_parse(const char *name, enum m_fmt *f, const char *what);
/* Text of v as views print it: buf, or a string that lives as long as v. */
const char *fmt_value(const struct m_value *v, enum m_fmt f, char *buf, size_t len);
/* Whether the printed text says more than the value itself (a name for a
 * number, frames for a stack): JSON then carries both. */
bool fmt_names_value(const struct m_value *v, enum m_fmt f);

/* Time units: "ns", "us", "ms", "s" and their divisors. */
int unit_parse(const char *s, double *div);
const char *unit_auto(double ns);
/* "1.135ms": ns in the unit unit_auto() picks, 4 significant digits. */
void fmt_time(char *buf, size_t len, double ns);
void fmt_bytes(char *buf, size_t len, double bytes);
/* v in the measurement's unit: a time, bytes or a plain number. */
void fmt_measured(char *buf, size_t len, const struct measurement *m, double v);


#endif
