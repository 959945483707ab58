/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -o pprof: a measurement whose groups have stacks (profile, offcpu,
 * wakeup, --by kstack/ustack) as pprof's profile.proto, gzipped.  A group
 * is a sample: its stack frames are its locations, leaf first (one
 * function each, named and in the mapping of its binary or the kernel);
 * its other keys (comm, pid, container...) are labels.  Its values: for a
 * profile, samples and CPU nanoseconds (a sample a period of the cpu-clock
 * event); for time (offcpu, wakeup, latencies), the total nanoseconds and
 * the count of events; for values, their sum and count.  The totals are
 * the measurement's own.
 */
#ifndef KDIST_PPROF_H
#define KDIST_PPROF_H

#include <stdio.h>

#include "model/measure.h"

/* 0, or -errno (-EINVAL after one line: no stack key). */
int pprof_write(FILE *f, const struct measurement *m);

#endif
