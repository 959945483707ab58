// SPDX-License-Identifier: GPL-2.0
/* splitwork N SPIN_US SLEEP_US [FIFO_MS]: N calls of split_step(), each of
 * which spins SPIN_US microseconds of its thread's CPU time, then sleeps
 * SLEEP_US microseconds (clock_nanosleep; 0: no sleep).  Inside each call
 * it takes its own reference values, one line each to $KDIST_WL_TIMES
 * (report.h): "cpu NS" (CLOCK_THREAD_CPUTIME_ID), "run_delay NS" (the
 * scheduler's wait time from /proc/thread-self/schedstat) and "wall NS".
 *
 * With FIFO_MS, the thread is pinned to CPU 0 beside a SCHED_FIFO thread
 * pinned there too: each call, after its spin, wakes that thread, which
 * spins FIFO_MS milliseconds of wall time and waits again; the caller is
 * runnable, not running, for all of it.
 *
 * splitwork N SPIN_US SLEEP_US handoff: each call's interval ends on
 * another thread.  The main thread calls hand_begin(i), spins and sleeps
 * as above, hands i to a thread "finisher" and waits for its answer; the
 * finisher calls hand_end(i) and answers.  The main thread's references
 * (cpu, run_delay, wall) run from before hand_begin() to the answer;
 * "spin_wall NS" is the spin's own CLOCK_MONOTONIC time, after
 * hand_begin() returned: running or runnable all along.
 *
 * splitwork N SPIN_US SLEEP_US handoff FIN_US [RELAY_US]: the finisher
 * first spins FIN_US of its CPU time, then calls hand_end(i).  With
 * RELAY_US, a thread "relay" sits between: the main thread hands i to it,
 * it spins RELAY_US and hands i to the finisher.  A thread hands i over
 * only when the next one is asleep in its read (its state S in /proc), so
 * each handoff is a wakeup from the thread that hands over.  Each thread
 * reports its CPU time from its wakeup to its handoff: "hand_cpu" (the
 * main thread, from before hand_begin() to its write), "relay_cpu",
 * "fin_cpu" (up to hand_end()); the CLOCK_MONOTONIC time of the relay's
 * and the finisher's spins, "relay_wall" and "fin_wall"; and once,
 * "tid_main", "tid_relay", "tid_finisher".
 *
 * splitwork N 0 SLEEP_US pool FIN_US RELAY_US: two intervals per round,
 * the second begun after the work of both went to the relay, as in a pool
 * of workers.  The main thread calls hand_begin(A) (A = 2i - 1), hands A to
 * the relay, calls hand_begin(B) (B = 2i) and sleeps SLEEP_US; the relay
 * spins RELAY_US, waits until the main thread is asleep (so B has begun),
 * and hands A and B to the finisher at once; the finisher
 * calls hand_end(A), spins FIN_US and calls hand_end(B). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "report.h"

static int sched_fd, wake[2], done[2];
static long fifo_ns;

static long clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static long run_delay(void)
{
	char buf[128];
	ssize_t n = pread(sched_fd, buf, sizeof(buf) - 1, 0);
	unsigned long long run, delay;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%llu %llu", &run, &delay) == 2 ? (long)delay : -1;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (pthread_setaffinity_np(pthread_self(), sizeof(s), &s))
		exit(3);
}

static void *competitor(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	char c;

	pin(0);
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		exit(4);
	if (write(done[1], "r", 1) != 1)	/* ready */
		exit(5);
	while (read(wake[0], &c, 1) == 1) {
		long end = clock_ns(CLOCK_MONOTONIC) + fifo_ns;

		while (clock_ns(CLOCK_MONOTONIC) < end)
			;
		if (write(done[1], "d", 1) != 1)
			exit(5);
	}
	return arg;
}

/* The traced function: noinline, and its references are taken inside it. */
__attribute__((noinline)) void split_step(long spin_ns, long sleep_ns)
{
	long cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), d0 = run_delay();
	long w0 = clock_ns(CLOCK_MONOTONIC);
	struct timespec ts = { sleep_ns / 1000000000L, sleep_ns % 1000000000L };
	char c;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0 < spin_ns)
		;
	if (fifo_ns) {
		/* the competitor runs at once on our CPU; its "d" comes when
		 * it is done, and we run again only then */
		if (write(wake[1], "w", 1) != 1 || read(done[0], &c, 1) != 1)
			exit(5);
	}
	if (sleep_ns)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	wl_report("wall", clock_ns(CLOCK_MONOTONIC) - w0);
	wl_report("cpu", clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0);
	wl_report("run_delay", run_delay() - d0);
}

__attribute__((noinline, noclone)) void hand_begin(long id)
{
	asm volatile("" : : "r"(id) : "memory");
}

__attribute__((noinline, noclone)) void hand_end(long id)
{
	asm volatile("" : : "r"(id) : "memory");
}

static int to_fin[2], from_fin[2], to_relay[2];
static long fin_ns = -1, relay_ns = -1;
static int pool;
static volatile pid_t fin_tid, relay_tid, main_tid;

/* Until thread tid (of this process, started) is asleep. */
static void wait_asleep(volatile pid_t *tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	while (!*tid)
		sched_yield();
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", *tid);
	for (;;) {
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			exit(6);
		buf[n] = '\0';
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
		sched_yield();
	}
}

/* Spin ns of this thread's CPU time and report the spin's CLOCK_MONOTONIC
 * time as `wall`; returns the thread's CPU time when the spin began. */
static long spin_reported(long ns, const char *wall)
{
	long w0 = clock_ns(CLOCK_MONOTONIC), cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0 < ns)
		;
	wl_report(wall, clock_ns(CLOCK_MONOTONIC) - w0);
	return cpu0;
}

static void *relay(void *arg)
{
	long id, cpu0;

	pthread_setname_np(pthread_self(), "relay");
	wl_report("tid_relay", gettid());
	relay_tid = gettid();
	while (read(to_relay[0], &id, sizeof(id)) == sizeof(id)) {
		cpu0 = spin_reported(relay_ns, "relay_wall");
		if (pool)
			wait_asleep(&main_tid);
		wait_asleep(&fin_tid);
		wl_report("relay_cpu", clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0);
		if (pool) {
			long ab[2] = { id, id + 1 };

			if (write(to_fin[1], ab, sizeof(ab)) != sizeof(ab))
				exit(5);
		} else if (write(to_fin[1], &id, sizeof(id)) != sizeof(id)) {
			exit(5);
		}
	}
	close(to_fin[1]);
	return arg;
}

static void *finisher(void *arg)
{
	long id, cpu0;

	pthread_setname_np(pthread_self(), "finisher");
	wl_report("tid_finisher", gettid());
	fin_tid = gettid();
	while (read(to_fin[0], &id, sizeof(id)) == sizeof(id)) {
		if (fin_ns >= 0 && (!pool || id % 2 == 0)) {
			cpu0 = spin_reported(fin_ns, "fin_wall");
			wl_report("fin_cpu", clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0);
		}
		hand_end(id);
		if (write(from_fin[1], "d", 1) != 1)
			exit(5);
	}
	return arg;
}

static void handoff(long n, long spin_ns, long sleep_ns)
{
	struct timespec ts = { sleep_ns / 1000000000L, sleep_ns % 1000000000L };
	pthread_t t, r;
	char c;
	int to;

	if (pipe(to_fin) || pipe(from_fin) || pipe(to_relay) ||
	    pthread_create(&t, NULL, finisher, NULL))
		exit(3);
	if (relay_ns >= 0 && pthread_create(&r, NULL, relay, NULL))
		exit(3);
	to = relay_ns >= 0 ? to_relay[1] : to_fin[1];
	wl_report("tid_main", gettid());
	for (long i = 1; i <= n; i++) {
		long cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), d0 = run_delay();
		long w0 = clock_ns(CLOCK_MONOTONIC);

		long s0;

		hand_begin(i);
		s0 = clock_ns(CLOCK_MONOTONIC);
		while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0 < spin_ns)
			;
		wl_report("spin_wall", clock_ns(CLOCK_MONOTONIC) - s0);
		if (sleep_ns)
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		if (fin_ns >= 0)
			wait_asleep(relay_ns >= 0 ? &relay_tid : &fin_tid);
		wl_report("hand_cpu", clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0);
		if (write(to, &i, sizeof(i)) != sizeof(i) || read(from_fin[0], &c, 1) != 1)
			exit(5);
		wl_report("wall", clock_ns(CLOCK_MONOTONIC) - w0);
		wl_report("cpu", clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0);
		wl_report("run_delay", run_delay() - d0);
	}
	if (relay_ns >= 0) {
		close(to_relay[1]);
		pthread_join(r, NULL);
	} else {
		close(to_fin[1]);
	}
	pthread_join(t, NULL);
}

static void pool_rounds(long n, long sleep_ns)
{
	struct timespec ts = { sleep_ns / 1000000000L, sleep_ns % 1000000000L };
	pthread_t t, r;
	char c;

	pool = 1;
	main_tid = gettid();
	if (pipe(to_fin) || pipe(from_fin) || pipe(to_relay) ||
	    pthread_create(&t, NULL, finisher, NULL) || pthread_create(&r, NULL, relay, NULL))
		exit(3);
	wl_report("tid_main", gettid());
	for (long i = 1; i <= n; i++) {
		long a = 2 * i - 1, b = 2 * i;

		hand_begin(a);
		wait_asleep(&relay_tid);
		if (write(to_relay[1], &a, sizeof(a)) != sizeof(a))
			exit(5);
		hand_begin(b);
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		if (read(from_fin[0], &c, 1) != 1 || read(from_fin[0], &c, 1) != 1)
			exit(5);
	}
	close(to_relay[1]);
	pthread_join(r, NULL);
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	long n, spin_ns, sleep_ns;
	pthread_t t;
	char c;

	if (argc < 4)
		return 2;
	n = atol(argv[1]);
	spin_ns = atol(argv[2]) * 1000L;
	sleep_ns = atol(argv[3]) * 1000L;
	fifo_ns = argc > 4 ? atol(argv[4]) * 1000000L : 0;
	sched_fd = open("/proc/thread-self/schedstat", O_RDONLY);
	if (sched_fd < 0)
		return 3;
	wl_report_open();
	if (argc > 4 && !strcmp(argv[4], "handoff")) {
		fin_ns = argc > 5 ? atol(argv[5]) * 1000L : -1;
		relay_ns = argc > 6 ? atol(argv[6]) * 1000L : -1;
		handoff(n, spin_ns, sleep_ns);
		return 0;
	}
	if (argc > 6 && !strcmp(argv[4], "pool")) {
		fin_ns = atol(argv[5]) * 1000L;
		relay_ns = atol(argv[6]) * 1000L;
		pool_rounds(n, sleep_ns);
		return 0;
	}
	if (fifo_ns) {
		if (pipe(wake) || pipe(done))
			return 3;
		pin(0);
		pthread_create(&t, NULL, competitor, NULL);
		if (read(done[0], &c, 1) != 1)
			return 5;
	}
	for (long i = 0; i < n; i++)
		split_step(spin_ns, sleep_ns);
	return 0;
}
