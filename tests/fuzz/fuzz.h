/* SPDX-License-Identifier: GPL-2.0 */
/* What every fuzz target shares: the libFuzzer entry point's prototype and
 * the input as a C string (the parsers take NUL-terminated text; bytes
 * after an embedded NUL are simply not seen). */
#ifndef KDIST_FUZZ_H
#define KDIST_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#endif
