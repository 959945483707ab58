// SPDX-License-Identifier: GPL-2.0
/*
 * kdist diff BASE NEW: two measurements (their JSON), group by group, with a
 * verdict from a two-sample test on the histograms (diffstat.c).  Nothing
 * is loaded: it reads files only.  Exit status 0, 1 when a --fail-on rule
 * is passed by a significant change, 2 on bad input.
 */
#include "cmd/diff/diff.h"
#include "lib/jsondoc.h"
#include "lib/util.h"
#include "view/format.h"
#include "view/view.h"
#include "cmd/command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_FAILED 1
#define EXIT_BAD 2

static int run(struct options *o)
{
	struct diff d = { .alpha = o->alpha ? o->alpha : 0.01,
			  .min_change = o->min_change_set ? o->min_change : 5 };
	char *rules = o->fail_on ? strdup(o->fail_on) : NULL;
	char *text[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	bool folded[2];
	int pick = 0, err = 0;
	FILE *out = stdout;

	if (o->nargs != 2) {
		kd_err("bad arguments: expected BASE and NEW, two kdist JSON measurements");
		err = -EINVAL;
		goto bad;
	}
	if (o->interval) {
		pick = (int)o->interval;
		if (pick != o->interval) {
			kd_err("bad --interval %g: expected an interval number 1, 2, ...", o->interval);
			err = -EINVAL;
			goto bad;
		}
	}
	/* read once, bounded: /dev/zero or a FIFO without a writer never ends */
	for (int k = 0; k < 2; k++) {
		err = doc_read(o->args[k], &text[k], &len[k]);
		if (err)
			goto bad;
		folded[k] = diff_is_folded(text[k], len[k]);
	}
	if (folded[0] != folded[1]) {
		kd_err("bad comparison: different formats: BASE %s, NEW %s",
		       folded[0] ? "folded stacks" : "a JSON measurement",
		       folded[1] ? "folded stacks" : "a JSON measurement");
		err = -EINVAL;
		goto bad;
	}
	if (folded[0]) {
		if (o->output && !(out = fopen(o->output, "w"))) {
			err = -errno;
			kd_err("failed to open '%s': %s", o->output, strerror(errno));
			goto bad;
		}
		err = diff_folded(o, text, len, out);
		goto written;
	}
	if (!view_can(o->view.format, VIEW_DIFF)) {
		char names[64];

		kd_err("bad output format for diff: expected %s",
		       view_names(VIEW_DIFF, names, sizeof(names)));
		err = -EINVAL;
		goto bad;
	}
	if (rules && (err = diff_parse_rules(&d, rules)))
		goto bad;
	err = diff_read_meas(&d.m[0], o->args[0], text[0], len[0], pick) ?:
	      diff_read_meas(&d.m[1], o->args[1], text[1], len[1], pick) ?: diff_check_match(&d);
	if (err)
		goto bad;
	err = diff_compare(&d);
	if (err)
		goto bad;
	if (o->output && !(out = fopen(o->output, "w"))) {
		err = -errno;
		kd_err("failed to open '%s': %s", o->output, strerror(errno));
		goto bad;
	}
	switch (o->view.format) {
	case OUT_JSON: err = diff_write_json(out, &d); break;
	case OUT_CSV: diff_write_csv(out, &d); break;
	case OUT_MARKDOWN: diff_write_markdown(out, &d); break;
	case OUT_HTML: err = diff_write_html(out, &d); break;
	default: diff_write_text(out, &d); break;
	}
written:
	if (fflush(out) || ferror(out)) {
		kd_err("failed to write output: %s", strerror(errno));
		err = -EIO;
	}
	if (out != stdout)
		fclose(out);
bad:
	free(d.rows);
	free(d.only[0]);
	free(d.only[1]);
	diff_free_meas(&d.m[0]);
	diff_free_meas(&d.m[1]);
	free(rules);
	free(text[0]);
	free(text[1]);
	/* the exit status itself: CI reads 1 as "regressed", 2 as "could not tell" */
	return err ? EXIT_BAD : d.failed ? EXIT_FAILED : 0;
}

const struct command cmd_diff = {
	.name = "diff",
	.args = "BASE NEW",
	.summary = "compare two measurements (-o json) group by group with a verdict, or two -o folded",
	.opts = OPT(INTERVAL) | OPT(FORMAT) | OPT(OUTPUT) | OPT(TOP) | OPT(ALPHA) |
		OPT(MIN_CHANGE) | OPT(FAIL_ON),
	.caps = CMD_INTERVAL_INDEX,
	.run = run,
};
