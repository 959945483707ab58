// SPDX-License-Identifier: GPL-2.0
/* mmaplock THREADS N: THREADS threads contend on their process's mmap_lock,
 * each doing N rounds of mmap (write lock), touching every page (faults),
 * mincore (read lock) and munmap (write lock, downgraded to read on the way
 * out).  Known truth per round and thread: one mmap, one mincore, one
 * munmap. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 16

static long n;

static void *run(void *arg)
{
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char vec[PAGES];

	for (long i = 0; i < n; i++) {
		char *p = mmap(NULL, PAGES * psz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			exit(1);
		}
		for (int j = 0; j < PAGES; j++)
			p[j * psz] = 1;
		mincore(p, PAGES * psz, vec);
		munmap(p, PAGES * psz);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int t = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t th[64];

	n = argc > 2 ? atol(argv[2]) : 1000;
	if (t < 1 || t > 64)
		return 2;
	for (int i = 0; i < t; i++)
		pthread_create(&th[i], NULL, run, NULL);
	for (int i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	return 0;
}
