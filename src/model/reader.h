/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A saved measurement read back into the model: kdist.measurement/1 JSON
 * (docs/json.md), one document or JSON Lines of intervals, each document
 * one struct measurement with its header, events, typed key values, stats
 * and exact buckets, drop counters and cost.  Every view (report) and diff
 * work on what it gives, as on a measurement just made.
 */
#ifndef KDIST_READER_H
#define KDIST_READER_H

#include "model/measure.h"

/* Called with each document read, in order.  m is the reader's: its groups
 * are freed when fn returns (merge or copy what is kept).  cmdline is the
 * document's command line, NULL when it has none. */
typedef int (*m_read_fn)(void *ctx, struct measurement *m, const char *cmdline);

struct m_read {
	int interval;		/* > 0: only the document of this interval */
	m_read_fn fn;
	void *ctx;
};

/* Every document of text[0..len) (name is what errors call it).  text is
 * changed in place: integers above 2^63 (kernel addresses of frames) are
 * rewritten as the signed integers of the same bits, which JSON's reader
 * takes.  The number of documents handed to fn, the first error of fn, or
 * -EINVAL after one line naming what is wrong (a document that does not
 * hold together, doc_check, is refused before anything of it is used). */
int measurement_read(const char *name, char *text, size_t len, const struct m_read *r);

#endif
