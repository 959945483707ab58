// SPDX-License-Identifier: GPL-2.0
/* outliers NLONG MSLONG NSHORT MSSHORT: NLONG nanosleep(2) calls of MSLONG
 * milliseconds from long_sleep(), then NSHORT of MSSHORT from short_sleep():
 * a few outliers among many short calls, each named by the function that
 * made it (for stacks).  Each sleep's duration goes to $KDIST_WL_TIMES as
 * "long NS" or "short NS" (report.h). */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "report.h"

static void nap(const char *name, long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
	long t0 = wl_now();

	syscall(SYS_nanosleep, &ts, NULL);
	wl_report(name, wl_now() - t0);
}

void long_sleep(long ns)
{
	nap("long", ns);
}

void short_sleep(long ns)
{
	nap("short", ns);
}

int main(int argc, char **argv)
{
	if (argc != 5)
		return 2;
	wl_report_open();
	for (long i = 0; i < atol(argv[1]); i++)
		long_sleep((long)(atof(argv[2]) * 1e6 + 0.5));
	for (long i = 0; i < atol(argv[3]); i++)
		short_sleep((long)(atof(argv[4]) * 1e6 + 0.5));
	return 0;
}
