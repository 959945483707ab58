/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack-tree accumulator and its renderings: folded stacks (the "a;b;c 42"
 * one-line-per-stack text read by flame graph tools), a self-contained
 * interactive SVG flame graph and a plain-text top-N list.
 *
 * A stack is given root-most frame first, leaf last.  Identical paths merge;
 * every node keeps its own ("self") value and the total of its subtree.
 * ';', '\n' and '\r' cannot be represented in folded output, so frame names
 * are stored with ';' replaced by ':' and line breaks by ' '.
 */
#ifndef KDIST_FLAME_H
#define KDIST_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Deepest stack flame_add() accepts (-E2BIG beyond). */
#define FLAME_MAX_DEPTH 4096

struct flame;

struct flame *flame_new(void);
void flame_free(struct flame *fl);

/* Add value to the path frames[0] (root-most) .. frames[nframes - 1] (leaf).
 * A value of 0 records nothing.  Returns 0, -EINVAL (no frames or a NULL
 * frame), -E2BIG (deeper than FLAME_MAX_DEPTH), -EOVERFLOW (the total would
 * wrap) or -ENOMEM. */
int flame_add(struct flame *fl, const char *const *frames, int nframes,
	      uint64_t value);

/* Sum of all values added. */
uint64_t flame_total(const struct flame *fl);
/* Number of distinct frames (tree nodes, the implicit root excluded). */
size_t flame_node_count(const struct flame *fl);

/* One line "root;...;leaf VALUE" per path that has a value of its own,
 * sorted bytewise (strcmp) over whole lines. */
int flame_write_folded(const struct flame *fl, FILE *f);

/* Read folded lines and add them to fl.  The value is the last
 * space-separated token (a decimal integer); everything before it is the
 * path, so frame names may contain spaces.  Blank lines are skipped.
 * Returns 0 or a negative errno (-EINVAL on a malformed line). */
int flame_parse_folded(struct flame *fl, FILE *f);

enum flame_palette {
	/* Warm reds/oranges/yellows for every frame. */
	FLAME_PALETTE_HOT = 0,
	/* Frames named "*_[k]" in oranges, all others in reds: tells kernel
	 * from user frames apart. */
	FLAME_PALETTE_KERNEL_USER,
	/* Blues and purples, for time spent off CPU or waiting. */
	FLAME_PALETTE_COLD,
};

/* All fields optional: a zeroed struct (or a NULL pointer) gives the
 * defaults in brackets. */
struct flame_svg_opts {
	const char *title;	/* ["Flame Graph", "Icicle Graph" if icicle] */
	const char *subtitle;	/* second line, e.g. the command line [none] */
	const char *unit;	/* what values count, e.g. "us" ["samples"] */
	int width;		/* image width in px [1200] */
	int frame_height;	/* px per stack level [16] */
	double min_width;	/* frames narrower (px) are not drawn [0.1] */
	enum flame_palette palette;
	bool icicle;		/* root at the top, growing down [root at bottom] */
	/* A differential graph: the shape is fl's, each frame coloured by how
	 * its share of the total changed from its share in base (the same
	 * path; 0 where base lacks it): reds grew, blues shrank, grey held,
	 * the strongest colour for the largest change.  [NULL: a palette] */
	const struct flame *base;
};

/*
 * Self-contained SVG with an inline script: hovering shows
 * "name (value unit, pct%)" in the status line (and a native tooltip), a
 * click zooms into a frame, "Reset Zoom" (or Escape) undoes it, "Search"
 * (or Ctrl-F) highlights frames matching a regular expression and reports
 * the matched share of the total.  An "all" frame spanning the whole width
 * forms the base, so the SVG holds one <rect> per drawn frame plus the
 * background.  Frames narrower than min_width are left out together with
 * their descendants; their value still counts in their ancestors' widths.
 */
int flame_write_svg(const struct flame *fl, FILE *f,
		    const struct flame_svg_opts *opts);

/* The n heaviest full stacks (by their own value, n <= 0: all), each as a
 * "value unit  pct%" line followed by its frames, leaf first, indented. */
int flame_write_top(const struct flame *fl, FILE *f, int n, const char *unit);
/* Same, values divided by div (e.g. 1e6 to print ns in ms). */
int flame_write_top_div(const struct flame *fl, FILE *f, int n, const char *unit, double div);

#endif
