// SPDX-License-Identifier: GPL-2.0
/* directio PATH COUNT SIZE: COUNT O_DIRECT writes of SIZE bytes each to
 * PATH (a block device), at consecutive offsets, one at a time. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long count, size;
	void *buf;
	int fd;

	if (argc != 4)
		return 2;
	count = atol(argv[2]);
	size = atol(argv[3]);
	fd = open(argv[1], O_WRONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, size)) {
		perror(argv[1]);
		return 1;
	}
	memset(buf, 0xab, size);
	for (long i = 0; i < count; i++) {
		if (pwrite(fd, buf, size, i * size) != size) {
			perror("pwrite");
			return 1;
		}
	}
	close(fd);
	return 0;
}
