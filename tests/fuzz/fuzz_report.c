// SPDX-License-Identifier: GPL-2.0
/* kdist report's reader on arbitrary bytes: JSON documents or JSON Lines
 * (jsondoc.c), their validation (doc_check), the flame graph of their
 * stacks and the page (html.c).  A page is written only for documents that
 * passed, and nothing in them can end the script element that holds them.
 * The escaped form of texts read back (doc_text) is a fixed point. */
#include "fuzz.h"
#include "view/html.h"
#include "lib/jsondoc.h"
#include "lib/util.h"

static size_t count(const char *s, size_t len, const char *what)
{
	size_t n = 0, w = strlen(what);

	for (size_t i = 0; i + w <= len; i++)
		n += !memcmp(s + i, what, w);
	return n;
}

static void check_text(const char *s)
{
	char *t = doc_text(s), *again, *raw, *back;
	size_t need;
	long n;

	FUZZ_ASSERT(t);
	again = doc_text(t);
	FUZZ_ASSERT(again && !strcmp(again, t));
	/* its escapes undo to bytes that escape to t again, and t holds no
	 * control character */
	raw = strdup(t);
	FUZZ_ASSERT(raw);
	n = text_unescape(raw);
	FUZZ_ASSERT(n >= 0);
	need = text_escape(NULL, 0, raw, n) + 1;
	back = malloc(need);
	FUZZ_ASSERT(back);
	text_escape(back, need, raw, n);
	FUZZ_ASSERT(!strcmp(back, t) && !strpbrk(t, "\n\r\x1b"));
	free(back);
	free(raw);
	free(again);
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_cstr(data, size), *page = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&page, &len);
	int err;

	FUZZ_ASSERT(f);
	check_text(in);
	err = html_write(f, "fuzz", in, size);
	FUZZ_ASSERT(!fclose(f));
	if (!err) {
		/* the data's script element and the page's own, no more */
		FUZZ_ASSERT(count(page, len, "</script") == 2);
		FUZZ_ASSERT(count(page, len, "<!DOCTYPE html>") == 1);
	}
	free(page);
	free(in);
	return 0;
}
