// SPDX-License-Identifier: GPL-2.0
/* paced N ROUNDS: a workload of exactly known system calls, spread over
 * time.  Reads one byte from stdin first (a tracer attaches meanwhile;
 * that read's entry is not seen), then ROUNDS rounds of N/ROUNDS getppid(2)
 * and one 100 ms nanosleep(2), and one write(2) of a byte to stdout after
 * the first round (a sign that it has started).  So, after the read:
 * exactly N + ROUNDS + 1 system calls that return, then exit_group(2),
 * which does not.  N is rounded down to a multiple of ROUNDS. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, rounds;
	struct timespec ts = { 0, 100000000 };
	char c;

	if (argc < 3 || (n = atol(argv[1])) < 0 || (rounds = atol(argv[2])) < 1)
		return 2;
	if (read(0, &c, 1) != 1)
		return 1;
	for (long r = 0; r < rounds; r++) {
		for (long i = 0; i < n / rounds; i++)
			syscall(SYS_getppid);
		if (r == 0 && write(1, "+", 1) != 1)
			return 1;
		syscall(SYS_nanosleep, &ts, NULL);
	}
	return 0;
}
