/* SPDX-License-Identifier: GPL-2.0 */
/* Single events as they are printed, one line each (evline.c): the lines
 * of --slower-than and kdist trace, whose records kernel/events.h reads.
 * Events go to the run's output, as text lines or JSON Lines (-o json)
 * before the measurement. */
#ifndef KDIST_EVLINE_H
#define KDIST_EVLINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/measure.h"
#include "model/options.h"

/* Where events go and as what (text, JSON or CSV lines), set by main before
 * any command prepares. */
void events_output(FILE *f, enum out_format format);
FILE *events_file(void);
/* The run is over: forget the CSV header printed. */
void events_output_end(void);

/* A line: events_begin(), events_head(), its fields and stacks, then
 * events_end().  kind names the event ("slow", or the traced event): the
 * JSON "event" member, the first CSV column.  -o csv: a header row, "event"
 * then the column names, before the first line and whenever the columns
 * change.  No name comes twice in a JSON line or a CSV header: a field
 * named as the head's members (event, time, comm, pid, tid, cpu,
 * latency_ns, kstack, ustack) or as an earlier field is written as prefix
 * and its name ("start_cpu"); text lines keep the name. */
void events_begin(FILE *f, const char *kind, const char *prefix);
void events_end(FILE *f);
/* The line's common head: wall-clock time of ktime (CLOCK_MONOTONIC ns),
 * comm, pid, tid, CPU and the latency, as text ("12:01:02.345678 comm
 * 1234 1234 1 50.08ms") or as the first JSON members (no braces).  comm is
 * the task's bytes as read: it is printed in its text_escape() form (in
 * text with spaces and '"' as \x20 and \x22 too, so it stays one column). */
void events_head(FILE *f, uint64_t ktime, const char *comm, uint32_t pid, uint32_t tid,
		 uint32_t cpu, uint64_t latency_ns);
/* " name=value" (text; a text quoted, name="value", with '"' as \x22, so
 * that no value can end early or imitate another field), ,"name":"value"
 * (JSON; a number unquoted when !text) or a column.  A text value is given
 * in its text_escape() form (the measurement's texts are; trace.c escapes
 * the strings it reads).  value NULL: none, an empty column in CSV. */
void events_field(FILE *f, const char *name, const char *value, bool text);
/* A stack: indented lines, leaf first (text), ,"name":[frames] (JSON, leaf
 * first) or a column of frames joined by ';', root first (CSV, as folded
 * stacks). */
void events_stack(FILE *f, const char *name, const struct m_stack *s);
/* The same, in text under a line of its own that says what it is. */
void events_stack_titled(FILE *f, const char *name, const char *title, const struct m_stack *s);

#endif
