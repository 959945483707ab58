// SPDX-License-Identifier: GPL-2.0
/* kdist report FILE: a saved measurement (-o json: a whole run, or JSON
 * Lines of intervals) in any view, read back into the model
 * (model/reader.h) and written by the views that wrote it; or, as the
 * page (-o html, the default), a comparison too (kdist diff -o json).
 * Nothing is loaded: it reads a file. */
#include "model/reader.h"
#include "view/view.h"
#include "view/html.h"
#include "lib/jsondoc.h"
#include "lib/util.h"
#include "cmd/command.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct rep {
	FILE *out;
	struct view_opts *view;
};

static int write_doc(void *ctx, struct measurement *m, const char *cmdline)
{
	struct rep *r = ctx;
	int err;

	r->view->cmdline = cmdline;
	err = measurement_write(r->out, m, r->view);
	r->view->cmdline = NULL;
	return err;
}

static int run(struct options *o)
{
	bool page = !o->format_set || o->view.format == OUT_HTML;
	struct rep r = { stdout, &o->view };
	char *text = NULL;
	size_t len = 0;
	int err;

	if (o->nargs != 1) {
		kd_err("bad arguments: report takes one FILE.json (kdist ... -o json, or kdist diff -o json)");
		return -EINVAL;
	}
	err = doc_read(o->args[0], &text, &len);
	if (err)
		return err;
	if (o->output && !(r.out = fopen(o->output, "w"))) {
		err = -errno;
		kd_err("failed to open '%s': %s", o->output, strerror(errno));
		free(text);
		return err;
	}
	/* the page embeds the documents as they are, comparisons included */
	if (page) {
		err = html_write(r.out, o->args[0], text, len);
	} else {
		err = measurement_read(o->args[0], text, len, &(struct m_read){ .fn = write_doc,
										   .ctx = &r });
		err = err < 0 ? err : measurement_write_end(r.out, &o->view);
	}
	if (!err && (fflush(r.out) || ferror(r.out))) {
		err = errno ? -errno : -EIO;
		kd_err("failed to write output: %s", strerror(-err));
	}
	if (r.out != stdout && fclose(r.out) && !err) {
		err = -errno;
		kd_err("failed to write %s: %s", o->output, strerror(errno));
	}
	free(text);
	return err;
}

const struct command cmd_report = {
	.name = "report",
	.args = "FILE.json",
	.summary = "a saved measurement in any view, or a comparison, as one HTML page (-o json)",
	.opts = OPT(FORMAT) | OPT(OUTPUT) | OPT(UNIT) | OPT(HIST) | OPT(SORT) | OPT(TOP) |
		OPT(LINEAR),
	.run = run,
};
