// SPDX-License-Identifier: GPL-2.0
/* Run a fuzz target once on each file named on the command line, without
 * libFuzzer: how `make check` replays the corpora under ASan and UBSan.
 * Prints "PASS FILE" after each and stops at the first failure: a file it
 * cannot read, or a sanitizer error (which aborts), so the file that failed
 * is the one after the last PASS. */
#include "fuzz.h"

#include <errno.h>
#include <stdio.h>

static int run_file(const char *path)
{
	uint8_t *buf = NULL, *data;
	size_t len = 0, cap = 0, n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "failed to open %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	/* an exact-size copy, so ASan sees any read past the input's end */
	data = malloc(len ? len : 1);
	if (!data)
		abort();
	memcpy(data, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (run_file(argv[i]))
			return 1;
		printf("PASS %s\n", argv[i]);
		fflush(stdout);
	}
	return 0;
}
