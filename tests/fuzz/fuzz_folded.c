// SPDX-License-Identifier: GPL-2.0
/* The folded-stack parser on arbitrary text, then the views of what it
 * accepted.  What flame_write_folded() writes must read back to the same
 * tree: the same total and, written again, the same bytes. */
#include "view/flame.h"
#include "fuzz.h"

#include <stdio.h>

/* The folded text of fl, malloc'd; its length in *len. */
static char *folded_of(const struct flame *fl, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	FUZZ_ASSERT(f);
	FUZZ_ASSERT(!flame_write_folded(fl, f));
	FUZZ_ASSERT(!fclose(f));
	return buf;
}

static void check_views(const struct flame *fl)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	FUZZ_ASSERT(f);
	FUZZ_ASSERT(!flame_write_top(fl, f, 5, "samples"));
	FUZZ_ASSERT(!flame_write_svg(fl, f, NULL));
	FUZZ_ASSERT(!fclose(f));
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flame *fl = flame_new(), *again = flame_new();
	char *out, *out2;
	size_t len, len2;
	FILE *in;

	FUZZ_ASSERT(fl && again);
	/* fmemopen() of size 0 fails; an empty input is a valid empty file */
	in = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
	FUZZ_ASSERT(in);
	flame_parse_folded(fl, in);	/* a bad line stops it: keep what came before */
	fclose(in);
	check_views(fl);

	out = folded_of(fl, &len);
	in = len ? fmemopen(out, len, "r") : fopen("/dev/null", "r");
	FUZZ_ASSERT(in);
	FUZZ_ASSERT(!flame_parse_folded(again, in));
	fclose(in);
	FUZZ_ASSERT(flame_total(again) == flame_total(fl));
	out2 = folded_of(again, &len2);
	FUZZ_ASSERT(len2 == len && !memcmp(out, out2, len));

	free(out);
	free(out2);
	flame_free(fl);
	flame_free(again);
	return 0;
}
