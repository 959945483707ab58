// SPDX-License-Identifier: GPL-2.0
/* JSON documents read back: see jsondoc.h. */
#include "jsondoc.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int json_docs_parse(const char *name, const char *text, size_t len, size_t flags,
		    json_doc_fn fn, void *ctx)
{
	size_t at = 0;
	int err = 0, seen = 0;

	while (!err) {
		json_error_t je;
		json_t *doc;

		while (at < len && strchr(" \t\r\n", text[at]))
			at++;
		if (at >= len)
			break;
		doc = json_loadb(text + at, len - at, JSON_DISABLE_EOF_CHECK | flags, &je);
		if (!doc) {
			int line = je.line;

			for (size_t i = 0; i < at; i++)
				line += text[i] == '\n';
			kd_err("bad measurement %s: line %d: %s", name, line, je.text);
			return -EINVAL;
		}
		seen++;
		err = fn(ctx, doc, text + at, je.position);
		at += je.position;
		json_decref(doc);
	}
	if (!err && !seen) {
		kd_err("bad measurement %s: empty", name);
		err = -EINVAL;
	}
	return err;
}

int doc_read(const char *path, char **text, size_t *len)
{
	int err = read_input(path, DOC_INPUT_MAX, text, len);

	if (err)
		kd_err("failed to read %s: %s", path, read_input_strerror(err, DOC_INPUT_MAX));
	return err;
}

char *doc_text(const char *s)
{
	size_t len = strlen(s), need;
	char *raw, *out;
	long n;

	if (text_is_safe(s, len))
		return strdup(s);
	raw = strdup(s);
	if (!raw)
		return NULL;
	n = text_unescape(raw);
	if (n < 0) {
		/* not an escaped form: its own bytes (unescaping stopped half-way) */
		memcpy(raw, s, len + 1);
		n = len;
	}
	need = text_escape(NULL, 0, raw, n) + 1;
	out = malloc(need);
	if (out)
		text_escape(out, need, raw, n);
	free(raw);
	return out;
}
