/* SPDX-License-Identifier: GPL-2.0 */
/* What a workload measured itself, for the tests' bounds: with
 * KDIST_WL_TIMES=FILE in the environment, one line "NAME NS" per timed
 * operation is appended to FILE.  Times are CLOCK_MONOTONIC, the clock of
 * bpf_ktime_get_ns(), taken around the call by its caller: whatever a probe
 * inside the call measures lies within them, so a traced duration never
 * exceeds the reported one, however busy the machine.  Always inlined: no
 * symbol of its own for u:WORKLOAD:* to trace. */
#ifndef KDIST_WL_REPORT_H
#define KDIST_WL_REPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline __attribute__((always_inline)) long wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static FILE *wl_file;

/* Once, in main, before any thread starts. */
static inline __attribute__((always_inline)) void wl_report_open(void)
{
	const char *path = getenv("KDIST_WL_TIMES");

	wl_file = path && *path ? fopen(path, "a") : NULL;
}

static inline __attribute__((always_inline)) void wl_report(const char *name, long ns)
{
	if (wl_file)
		fprintf(wl_file, "%s %ld\n", name, ns);
}

#endif
