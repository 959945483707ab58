/* SPDX-License-Identifier: GPL-2.0 */
/* What every fuzz target shares: the libFuzzer entry point's prototype and
 * the input as a C string (the parsers take NUL-terminated text; bytes
 * after an embedded NUL are simply not seen). */
#ifndef KDIST_FUZZ_H
#define KDIST_FUZZ_H

#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A property that must hold for every input: a failure is a crash that
 * libFuzzer saves as a reproducer. */
#define FUZZ_ASSERT(cond)                                                    \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: assertion failed: %s\n",    \
				__FILE__, __LINE__, #cond);                  \
			abort();                                             \
		}                                                            \
	} while (0)

/* For loaders that take a path: the input written to one file in a private
 * temporary directory, made on first use and removed at exit.  Returns the
 * file's path. */
static char fuzz_dir[] = "/tmp/kdist-fuzz.XXXXXX", fuzz_path[PATH_MAX];

static void fuzz_remove_file(void)
{
	unlink(fuzz_path);
	rmdir(fuzz_dir);
}

__attribute__((unused))
static const char *fuzz_file(const uint8_t *data, size_t size)
{
	int fd;

	if (!fuzz_path[0]) {
		FUZZ_ASSERT(mkdtemp(fuzz_dir));
		snprintf(fuzz_path, sizeof(fuzz_path), "%s/input", fuzz_dir);
		atexit(fuzz_remove_file);
	}
	fd = open(fuzz_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FUZZ_ASSERT(fd >= 0);
	FUZZ_ASSERT(write(fd, data, size) == (ssize_t)size);
	close(fd);
	return fuzz_path;
}

#endif
