// SPDX-License-Identifier: GPL-2.0
/* kdist report FILE: a saved measurement (-o json: a whole run, or JSON
 * Lines of intervals) or comparison (kdist diff -o json) as the HTML page
 * -o html writes while measuring.  Nothing is loaded: it reads a file. */
#include "view/html.h"
#include "lib/jsondoc.h"
#include "lib/util.h"
#include "cmd/command.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int run(struct options *o)
{
	FILE *out = stdout;
	char *text = NULL;
	size_t len = 0;
	int err;

	if (o->nargs != 1) {
		kd_err("bad arguments: report takes one FILE.json (kdist ... -o json, or kdist diff -o json)");
		return -EINVAL;
	}
	/* text is the default of every command: report has only the page */
	if (o->view.format != OUT_TEXT && o->view.format != OUT_HTML) {
		kd_err("bad output format for report: expected html");
		return -EINVAL;
	}
	err = doc_read(o->args[0], &text, &len);
	if (err)
		return err;
	if (o->output && !(out = fopen(o->output, "w"))) {
		err = -errno;
		kd_err("failed to open '%s': %s", o->output, strerror(errno));
		free(text);
		return err;
	}
	err = html_write(out, o->args[0], text, len);
	if (out != stdout && fclose(out) && !err) {
		err = -errno;
		kd_err("failed to write %s: %s", o->output, strerror(errno));
	}
	free(text);
	return err;
}

const struct command cmd_report = {
	.name = "report",
	.args = "FILE.json",
	.summary = "a saved measurement or comparison (-o json) as one HTML page",
	.opts = OPT(FORMAT) | OPT(OUTPUT),
	.run = run,
};
