// SPDX-License-Identifier: GPL-2.0
/* churn N K [RATE]: N short-lived processes, at most RATE (default 190)
 * started per second, one at a time.  Each names itself "churnkid" and
 * makes exactly K getppid(2) calls, then exits: under `--by comm,pid` the
 * "churnkid" groups are N processes of K syscalls each (the prctl that
 * names a child is grouped under the parent's name, as its START was). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, k = argc > 2 ? atol(argv[2]) : 10;
	double rate = argc > 3 ? atof(argv[3]) : 190;
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		pid_t pid;
		double due = i / rate, at;

		clock_gettime(CLOCK_MONOTONIC, &now);
		at = (now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9;
		if (at < due) {
			struct timespec d = { 0, (long)((due - at) * 1e9) };

			nanosleep(&d, NULL);
		}
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			prctl(PR_SET_NAME, "churnkid");
			for (long j = 0; j < k; j++)
				syscall(SYS_getppid);
			_exit(0);
		}
		if (waitpid(pid, NULL, 0) != pid) {
			perror("waitpid");
			return 1;
		}
	}
	return 0;
}
