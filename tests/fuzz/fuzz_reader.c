// SPDX-License-Identifier: GPL-2.0
/* model/reader.c on arbitrary bytes: JSON documents or JSON Lines read
 * back into measurements.  Nothing crashes or leaks, and what was read is a
 * fixed point: written as JSON and read again, it writes the same bytes
 * (the reader keeps what the writer needs: typed keys, exact buckets,
 * counters). */
#include "fuzz.h"
#include "model/reader.h"
#include "view/view.h"

struct docs {
	char *json;
	size_t len;
	FILE *f;
};

static int collect(void *ctx, struct measurement *m, const char *cmdline)
{
	struct docs *d = ctx;
	struct view_opts v = { .format = OUT_JSON, .cmdline = cmdline };

	FUZZ_ASSERT(!measurement_write(d->f, m, &v));
	FUZZ_ASSERT(!measurement_write_end(d->f, &v));
	return 0;
}

/* Every document of text, written again as JSON; the count read or an error. */
static int again(const char *text, size_t len, struct docs *d)
{
	char *copy = malloc(len + 1);
	int n;

	FUZZ_ASSERT(copy);
	memcpy(copy, text, len);
	copy[len] = '\0';
	*d = (struct docs){ 0 };
	d->f = open_memstream(&d->json, &d->len);
	FUZZ_ASSERT(d->f);
	n = measurement_read("fuzz", copy, len, &(struct m_read){ .fn = collect, .ctx = d });
	FUZZ_ASSERT(!fclose(d->f));
	free(copy);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct docs one, two;
	int n = again((const char *)data, size, &one), m;

	if (n > 0) {
		m = again(one.json, one.len, &two);
		FUZZ_ASSERT(m == n);
		FUZZ_ASSERT(two.len == one.len && !memcmp(two.json, one.json, one.len));
		free(two.json);
	}
	free(one.json);
	return 0;
}
