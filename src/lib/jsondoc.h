/* SPDX-License-Identifier: GPL-2.0 */
/* Reading kdist's JSON back: one document, or JSON Lines of documents (one
 * per interval), parsed with jansson.  kdist diff and kdist report read
 * measurements through it. */
#ifndef KDIST_JSONDOC_H
#define KDIST_JSONDOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Saved measurements, comparisons and folded stacks that diff and report
 * read: at most this many bytes (read_input's other bounds too: regular
 * files and pipes only, an idle pipe times out).  Ten times the largest
 * -o json seen in practice, and what their memory is a small multiple of
 * (docs/diff.md). */
#define DOC_INPUT_MAX ((size_t)256 << 20)
/* Read a document a user names with those bounds; one line on error. */
int doc_read(const char *path, char **text, size_t *len);

/* A text read back from a document (a group's label, a frame, a title) as
 * views print texts: in text_escape() form.  kdist writes names that way,
 * so they come back as they are (text_unescape, then text_escape: the same
 * bytes); anything else (control characters, invalid UTF-8, a backslash
 * that is no escape) is escaped.  malloc'd; NULL when out of memory. */
char *doc_text(const char *s);

/* Whether doc is a kdist.measurement/1 document (or, with diff_too, a
 * kdist.diff/1 one: *is_diff says which) that holds together: the schema
 * exactly, the members views read with their types, and per group counts
 * and buckets that agree (non-negative integers, buckets ascending and
 * disjoint, count the sum of the buckets, min <= max).  0, or -EINVAL
 * after one line naming the first inconsistency. */
int doc_check(const char *name, json_t *doc, bool diff_too, bool *is_diff);
/* The same for group index of doc (json_docs_parse gives them one by one). */
int doc_check_group(const char *name, json_t *doc, json_t *group, size_t index);

/* Called for each document: doc as parsed with its "groups" an empty array
 * (the groups come one at a time to json_group_fn), text its bytes in the
 * input.  0 to go on, 1 to skip its groups, a negative errno to stop with
 * it. */
typedef int (*json_doc_fn)(void *ctx, json_t *doc, const char *text, size_t len);
/* Called for each group of a document, in order (index from 0). */
typedef int (*json_group_fn)(void *ctx, json_t *doc, json_t *group, size_t index);

/* Every document of text[0..len) (name is what errors call it), in order:
 * 0, the first error of fn, or -EINVAL after printing why (bad JSON with
 * its line, or no document at all).  Only one group is parsed at a time, so
 * memory is the text and what the callbacks keep, not a tree of the whole
 * document (docs/diff.md).  flags are jansson's decoding flags:
 * JSON_DECODE_INT_AS_REAL reads the frames' 64-bit kernel addresses, which
 * jansson's signed integers cannot hold. */
int json_docs_parse(const char *name, const char *text, size_t len, size_t flags,
		    json_doc_fn fn, json_group_fn gfn, void *ctx);

/* The first inconsistency of a measurement, said once: "bad measurement
 * NAME: group G: WHAT" (G > 0) or "bad measurement NAME: WHAT"; -EINVAL. */
int jsondoc_bad(const char *name, long group, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
