// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML view.  The page is report.css and report.js (embedded at build
 * time), the JSON documents it draws, and for stack measurements the flame
 * graph flame.c draws, built from the documents' stacks.  Documents are
 * read back with jsondoc.c, the reader kdist diff uses.
 */
#include "view/flame.h"
#include "view/html.h"
#include "lib/jsondoc.h"
#include "report_assets.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


struct page {
	const char *name;
	FILE *data;		/* the documents as one JSON array */
	char *data_buf;
	size_t data_len;
	int ndocs;
	bool diff;
	char *title, *command;
	struct flame *flame;	/* stacks of every document, or NULL */
};

static void put_escaped(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(s[i], f);
		}
	}
}

/* A group's stack, as stackview.c makes paths: the other keys' labels
 * outermost, then the frames, root first. */
static int add_stack(struct page *p, json_t *doc, json_t *g)
{
	json_t *by = json_object_get(doc, "by"), *labels = json_object_get(g, "by");
	json_t *values = json_object_get(g, "values"), *name, *fr;
	const char **frames;
	size_t i, j, n = 0, max = 0;
	int err;

	json_array_foreach(by, i, name) {
		json_t *v = json_object_get(values, json_string_value(name));

		max += json_is_array(v) ? json_array_size(v) : 1;
	}
	frames = calloc(max + 1, sizeof(*frames));
	if (!frames)
		return -ENOMEM;
	json_array_foreach(by, i, name) {
		const char *l = json_string_value(json_object_get(labels, json_string_value(name)));

		if (!json_is_array(json_object_get(values, json_string_value(name))))
			frames[n++] = l ? l : "?";
	}
	json_array_foreach(by, i, name) {
		json_t *v = json_object_get(values, json_string_value(name));

		if (!json_is_array(v))
			continue;
		json_array_foreach(v, j, fr) {
			const char *s = json_string_value(json_object_get(fr, "name"));

			frames[n++] = s ? s : "?";
		}
	}
	if (!n)
		frames[n++] = "all";
	err = flame_add(p->flame, frames, n, json_number_value(json_object_get(g, "sum")));
	free(frames);
	return err == -EINVAL ? 0 : err;
}

static bool has_stacks(json_t *g)
{
	const char *k;
	json_t *v;

	json_object_foreach(json_object_get(g, "values"), k, v) {
		if (json_is_array(v))
			return true;
	}
	return false;
}

static int add_doc(void *ctx, json_t *doc, const char *text, size_t len)
{
	struct page *p = ctx;
	size_t i;
	bool diff;
	/* the page draws only what holds together: its script would throw */
	int err = doc_check(p->name, doc, true, &diff);

	if (err)
		return err;
	if (p->ndocs && (diff || p->diff)) {
		kd_err("bad measurement %s: a comparison is one document alone", p->name);
		return -EINVAL;
	}
	p->diff = diff;
	if (!p->ndocs) {
		const char *t = json_string_value(json_object_get(doc, "title"));
		const char *c = json_string_value(json_object_get(doc, "command"));

		p->title = doc_text(diff ? "comparison" : t ? t : "measurement");
		p->command = doc_text(c ? c : "");
		if (!p->title || !p->command)
			return -ENOMEM;
	}
	/* '<' as \u003c: the same JSON, and nothing in it can end the
	 * script element that holds it */
	fputc(p->ndocs++ ? ',' : '[', p->data);
	for (i = 0; i < len; i++) {
		if (text[i] == '<')
			fputs("\\u003c", p->data);
		else
			fputc(text[i], p->data);
	}
	return 0;
}

static int add_group(void *ctx, json_t *doc, json_t *g, size_t i)
{
	struct page *p = ctx;
	int err = doc_check_group(p->name, doc, g, i);

	if (err || p->diff || !has_stacks(g))
		return err;
	if (!p->flame && !(p->flame = flame_new()))
		return -ENOMEM;
	return add_stack(p, doc, g);
}

/* The flame graph as an iframe's document: its script and ids stay apart
 * from the page's. */
static int write_flame(FILE *f, struct page *p)
{
	struct flame_svg_opts so = {
		.title = p->title, .unit = "ns",
		.palette = strcmp(p->command, "profile") ? FLAME_PALETTE_COLD : FLAME_PALETTE_HOT,
	};
	char *svg = NULL;
	size_t len = 0;
	int w = 1200, h = 600, err;
	FILE *s = open_memstream(&svg, &len);
	const char *at;

	if (!s)
		return -ENOMEM;
	if (!strcmp(p->command, "profile"))
		so.unit = "samples";
	err = flame_write_svg(p->flame, s, &so);
	if (fclose(s) && !err)
		err = -ENOMEM;
	if (err) {
		free(svg);
		return err;
	}
	at = strstr(svg, "<svg ");
	if (at)
		sscanf(at, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		       "height=\"%d\"", &w, &h);
	fprintf(f, "<iframe id=\"kdist-flame\" title=\"flame graph\" data-w=\"%d\" data-h=\"%d\" "
		"srcdoc=\"", w, h);
	fputs("&lt;!DOCTYPE html>&lt;style>html,body{margin:0}"
	      "svg{width:100%;height:auto;display:block}&lt;/style>", f);
	at = at ? at : svg;
	put_escaped(f, at, len - (at - svg));
	fputs("\"></iframe>\n", f);
	free(svg);
	return 0;
}

int html_write(FILE *f, const char *name, const char *docs, size_t len)
{
	struct page p = { .name = name };
	int err;

	p.data = open_memstream(&p.data_buf, &p.data_len);
	if (!p.data)
		return -ENOMEM;
	err = json_docs_parse(name, docs, len, JSON_DECODE_INT_AS_REAL, add_doc, add_group, &p);
	fputc(']', p.data);
	if (fclose(p.data) && !err)
		err = -ENOMEM;
	if (err)
		goto out;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      /* the page loads nothing: a request would be refused, and said
	       * on the console */
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"generator\" content=\"kdist\">\n<title>kdist: ", f);
	put_escaped(f, p.title, strlen(p.title));
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n"
		"<noscript>kdist draws this page with JavaScript.</noscript>\n"
		"<div id=\"kd\"></div>\n", report_css);
	if (p.flame)
		err = write_flame(f, &p);
	if (err)
		goto out;
	fputs("<script type=\"application/json\" id=\"kdist-data\">", f);
	fwrite(p.data_buf, 1, p.data_len, f);
	fprintf(f, "</script>\n<script>\n%s</script>\n</body>\n</html>\n", report_js);
out:
	free(p.data_buf);
	free(p.title);
	free(p.command);
	flame_free(p.flame);
	return err;
}
