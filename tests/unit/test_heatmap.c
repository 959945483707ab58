// SPDX-License-Identifier: GPL-2.0
/* The terminal heatmap (--heatmap) against a golden file, and against what
 * its rows must hold: a row per interval, a column per power of two from
 * the lowest to the highest bucket seen, a blank where nothing fell.
 * KDIST_UPDATE_GOLDEN=1 rewrites the golden file. */
#include "check.h"
#include "view/heatmap.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

#define GOLDEN "tests/unit/golden/heatmap.txt"

/* n values of v ns into h */
static void put(struct hist *h, hist_u64 v, int n)
{
	for (int i = 0; i < n; i++)
		hist_add(h, v);
}

int main(void)
{
	struct heat *t = NULL;
	char *got = NULL, *want = NULL, *line, *save;
	size_t len;
	FILE *f = open_memstream(&got, &len);
	int rows = 0, ok_rows = 0;

	/* intervals 1-4: 1 ms sleeps (bucket 2^19..2^20 ns: 1,000,000 ns
	 * lies in [524288, 1048576)), 10 ms ones in 3 and 4 only, nothing in
	 * interval 2 of the other group */
	for (int k = 1; k <= 4; k++) {
		struct hist h = { 0 }, o = { 0 };

		put(&h, 1000000, 10 * k);
		if (k >= 3)
			put(&h, 10000000, k == 3 ? 1 : 40);
		check("heat_add", heat_add(&t, "sleeper", k, &h) == 0, NULL);
		if (k != 2) {
			put(&o, 3000, 1);
			heat_add(&t, "other", k, &o);
		}
	}
	heat_write(f, t, "sleeper", "ns");
	heat_write(f, t, "other", "ns");
	heat_write(f, t, "nobody", "ns");
	heat_free(t);
	fclose(f);
	if (getenv("KDIST_UPDATE_GOLDEN")) {
		f = fopen(GOLDEN, "w");
		fputs(got, f);
		fclose(f);
	}
	if (read_file(GOLDEN, &want, NULL))
		check("heatmap golden", 0, "cannot read %s", GOLDEN);
	else
		check("heatmap golden", !strcmp(got, want), "differs from %s:\n%s", GOLDEN, got);
	/* the sleeper's map: columns 2^19 .. 2^23, so 1 ms is the first
	 * column and 10 ms (2^23 <= 10^7 < 2^24) the fifth; the row ends
	 * with the interval's count */
	for (line = strtok_r(got, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int k, n;
		char cells[8];

		if (sscanf(line, "%d |%7[^|]| %d", &k, cells, &n) != 3 || strlen(cells) != 5)
			continue;
		if (++rows > 4)
			break;
		ok_rows += cells[0] != ' ' && (cells[4] != ' ') == (k >= 3) &&
			   !strncmp(cells + 1, "   ", 3) && n == 10 * k + (k == 3 ? 1 : k == 4 ? 40 : 0);
	}
	check("sleeper rows: 1 ms in the first column, 10 ms in the fifth from interval 3",
	      ok_rows == 4, "%d of 4 rows right", ok_rows);
	check("an empty interval is a blank row, an unknown group says so",
	      strstr(want ? want : "", "       2 | | 0\n") && strstr(want ? want : "", "no values yet"),
	      NULL);
	free(got);
	free(want);
	return check_done();
}
