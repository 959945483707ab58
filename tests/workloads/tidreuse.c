// SPDX-License-Identifier: GPL-2.0
/* tidreuse [MAXTID [N]]: two processes, one after the other, with the same
 * thread id (clone3 with set_tid, root only).  Each makes N getppid(2)
 * calls (default 0), then calls exit_group(2),
 * whose sys_enter has no sys_exit, and the second one's first traced event
 * is the sys_exit of its clone3.  Between them the parent spins 200 ms in
 * user space.  The tid is the highest free one below MAXTID (default the
 * kernel's pid_max), printed on stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long calls;

static pid_t spawn(pid_t tid)
{
	struct clone_args a;
	pid_t set = tid;
	long r;

	memset(&a, 0, sizeof(a));
	a.exit_signal = SIGCHLD;
	a.set_tid = (unsigned long)&set;
	a.set_tid_size = 1;
	r = syscall(SYS_clone3, &a, sizeof(a));
	if (r == 0) {
		for (long i = 0; i < calls; i++)
			syscall(SYS_getppid);
		syscall(SYS_exit_group, 0);	/* a START, no END */
	}
	return r;
}

static void spin_ms(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);	/* the vDSO: no syscall */
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	long max = argc > 1 ? atol(argv[1]) : 0;
	pid_t tid = -1;

	calls = argc > 2 ? atol(argv[2]) : 0;

	if (max <= 0) {
		FILE *f = fopen("/proc/sys/kernel/pid_max", "r");

		if (!f || fscanf(f, "%ld", &max) != 1)
			return 2;
		fclose(f);
	}
	for (pid_t t = max - 1; t > 300 && tid < 0; t--) {
		pid_t p = spawn(t);

		if (p < 0 && errno == EEXIST)
			continue;
		if (p < 0) {
			perror("tidreuse: clone3");
			return 2;
		}
		tid = p;
	}
	if (tid < 0 || waitpid(tid, NULL, 0) != tid)
		return 2;
	spin_ms(200);
	if (spawn(tid) != tid) {
		perror("tidreuse: clone3 again");
		return 2;
	}
	waitpid(tid, NULL, 0);
	fprintf(stderr, "tidreuse: tid %d twice\n", tid);
	return 0;
}
