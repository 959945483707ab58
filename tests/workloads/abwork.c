// SPDX-License-Identifier: GPL-2.0
/* abwork ROUNDS SELECT_MS: a syscall workload for A/B comparisons.  Each
 * round calls four functions, each making one sleeping syscall:
 *   sleep_nanosleep   nanosleep(2), 1 ms
 *   sleep_clock       clock_nanosleep(2), 1.5 ms
 *   sleep_poll        poll(2) on no descriptors, 2 ms
 *   sleep_select      select(2) on no descriptors, SELECT_MS (a decimal)
 * so a run with another SELECT_MS changes one syscall and one function and
 * nothing else.  Sleeps are the calls whose time the kernel bounds: they
 * never end early, and what they add beyond their length is wakeup latency,
 * the same for every call of the run.  Each call's duration goes to
 * $KDIST_WL_TIMES (report.h). */
#include <poll.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "report.h"

static long select_us;

void sleep_nanosleep(void)
{
	struct timespec ts = { 0, 1000000 };

	syscall(SYS_nanosleep, &ts, NULL);
}

void sleep_clock(void)
{
	struct timespec ts = { 0, 1500000 };

	syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
}

/* arm64 has no poll(2) and select(2), only ppoll and pselect6 */
void sleep_poll(void)
{
#ifdef SYS_poll
	syscall(SYS_poll, NULL, 0, 2);
#else
	struct timespec ts = { 0, 2000000 };

	syscall(SYS_ppoll, NULL, 0, &ts, NULL, 0);
#endif
}

void sleep_select(void)
{
#ifdef SYS_select
	struct timeval tv = { select_us / 1000000, select_us % 1000000 };

	syscall(SYS_select, 0, NULL, NULL, NULL, &tv);
#else
	struct timespec ts = { select_us / 1000000, select_us % 1000000 * 1000 };

	syscall(SYS_pselect6, 0, NULL, NULL, NULL, &ts, NULL);
#endif
}

static void timed(const char *name, void (*fn)(void))
{
	long t0 = wl_now();

	fn();
	wl_report(name, wl_now() - t0);
}

int main(int argc, char **argv)
{
	long rounds;

	if (argc != 3)
		return 2;
	rounds = atol(argv[1]);
	select_us = (long)(atof(argv[2]) * 1000 + 0.5);
	/* no timer slack: a sleep ends when it is due, not up to 50 us later */
	prctl(PR_SET_TIMERSLACK, 1UL);
	wl_report_open();
	for (long i = 0; i < rounds; i++) {
		timed("nanosleep", sleep_nanosleep);
		timed("clock_nanosleep", sleep_clock);
		timed("poll", sleep_poll);
		timed("select", sleep_select);
	}
	return 0;
}
