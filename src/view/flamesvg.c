// SPDX-License-Identifier: GPL-2.0
/* Flame graphs as SVG (flame_write_svg, see flame.h). */
#include "view/flame.h"
#include "view/flametree.h"
#include "lib/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SVG_XPAD 10
#define SVG_TITLE_SIZE 17
#define SVG_MATCH_COLOR "rgb(230,0,230)"

/*
 * Length of the UTF-8 sequence at s if it encodes a character XML 1.0
 * allows, 0 otherwise (invalid UTF-8, control characters, U+FFFE/U+FFFF).
 */
static int xml_char_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return (c >= 0x20 || c == '\t') ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = 0x80, hi = 0xbf;

		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;	/* no surrogates */
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
			return 0;	/* U+FFFE, U+FFFF */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = 0x80, hi = 0xbf;

		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

/* Characters (not bytes) in s as put_xml() writes them. */
static size_t xml_nchars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	while (*p) {
		int l = xml_char_len(p);

		p += l ? l : 1;
		n++;
	}
	return n;
}

/* Write at most max characters of s as XML character data: markup
 * characters escaped, anything XML cannot hold as '?'. */
static void put_xml(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p && max; max--) {
		int l = xml_char_len(p);

		switch (l ? *p : 0) {
		case 0:
			fputc('?', f);
			l = 1;
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fwrite(p, 1, l, f);
		}
		p += l;
	}
}

static bool is_kernel_frame(const char *name)
{
	size_t l = strlen(name);

	return l >= 4 && !strcmp(name + l - 4, "_[k]");
}

static void frame_color(const char *name, enum flame_palette pal, int rgb[3])
{
	uint32_t h = (uint32_t)hash_bytes(name, strlen(name));
	double a = (h & 0xff) / 255.0;
	double b = ((h >> 8) & 0xff) / 255.0;
	double c = ((h >> 16) & 0xff) / 255.0;

	switch (pal) {
	case FLAME_PALETTE_COLD:
		rgb[0] = 70 + (int)(90 * a);
		rgb[1] = 110 + (int)(90 * b);
		rgb[2] = 215 + (int)(40 * c);
		break;
	case FLAME_PALETTE_KERNEL_USER:
		if (is_kernel_frame(name)) {	/* oranges */
			rgb[0] = 225 + (int)(30 * c);
			rgb[1] = 130 + (int)(70 * a);
			rgb[2] = (int)(50 * b);
		} else {			/* reds and pinks */
			rgb[0] = 200 + (int)(55 * c);
			rgb[1] = 40 + (int)(70 * a);
			rgb[2] = 40 + (int)(70 * b);
		}
		break;
	case FLAME_PALETTE_HOT:
	default:
		rgb[0] = 205 + (int)(50 * c);
		rgb[1] = (int)(230 * a);
		rgb[2] = (int)(55 * b);
		break;
	}
}

struct svg {
	FILE *f;
	const char *unit;
	enum flame_palette palette;
	uint64_t total;
	double scale;		/* px per value unit */
	double min_width;
	double char_width;	/* estimated advance of one label character */
	int frame_height;
	int font_size;
	int maxdepth;
	int base_y;		/* y of depth 0 */
	bool icicle;
	uint64_t base_total;	/* differential: the base's total, or 0 */
	double max_delta;	/* differential: the largest change of a share */
};

/* The kid of base node b named like n, or NULL (kids are sorted). */
static const struct fnode *base_kid(const struct fnode *b, const struct fnode *n)
{
	uint32_t at;

	return b ? flame_find_kid(b, n->name, &at) : NULL;
}

/* Differential: the change of a frame's share, from base node b. */
static double share_delta(const struct svg *s, const struct fnode *n, const struct fnode *b)
{
	return (double)n->total / (double)s->total -
	       (b && s->base_total ? (double)b->total / (double)s->base_total : 0);
}

/* Reds for growth, blues for shrinking, saturating at the largest change;
 * the square root keeps small changes visible. */
static void delta_color(const struct svg *s, double delta, int rgb[3])
{
	double t = s->max_delta > 0 ? sqrt(fabs(delta) / s->max_delta) : 0;
	int strong = 215 - (int)(175 * t);

	if (fabs(delta) < 1e-12) {
		rgb[0] = rgb[1] = rgb[2] = 215;
		return;
	}
	rgb[0] = delta > 0 ? 255 : strong;
	rgb[1] = strong;
	rgb[2] = delta > 0 ? strong : 255;
}

static void svg_depth(struct svg *s, const struct fnode *n, const struct fnode *b, int depth)
{
	uint32_t i;

	if (!n->total || (double)n->total * s->scale < s->min_width)
		return;
	if (depth > s->maxdepth)
		s->maxdepth = depth;
	if (s->base_total && fabs(share_delta(s, n, b)) > s->max_delta)
		s->max_delta = fabs(share_delta(s, n, b));
	for (i = 0; i < n->nkids; i++)
		svg_depth(s, n->kids[i], base_kid(b, n->kids[i]), depth + 1);
}

/* b: the same frame in the base of a differential graph, or NULL */
static void svg_frame(struct svg *s, const struct fnode *n, const struct fnode *b, int depth,
		      uint64_t offset)
{
	const char *name = n->name ? n->name : "all";
	double w = (double)n->total * s->scale;
	double x = SVG_XPAD + (double)offset * s->scale;
	double y;
	uint64_t o;
	size_t fit, len;
	uint32_t i;
	int rgb[3];

	if (!n->total || w < s->min_width)
		return;
	if (s->icicle)
		y = s->base_y + depth * s->frame_height;
	else
		y = s->base_y - depth * s->frame_height;
	if (s->base_total)
		delta_color(s, share_delta(s, n, b), rgb);
	else
		frame_color(name, s->palette, rgb);

	fprintf(s->f, "<g class=\"f\" data-v=\"%" PRIu64 "\" data-o=\"%" PRIu64
		"\" data-d=\"%d\"><title>", n->total, offset, depth);
	put_xml(s->f, name, SIZE_MAX);
	fprintf(s->f, " (%" PRIu64 "%s", n->total, *s->unit ? " " : "");
	put_xml(s->f, s->unit, SIZE_MAX);
	fprintf(s->f, ", %.2f%%", 100.0 * (double)n->total / (double)s->total);
	if (s->base_total)
		fprintf(s->f, ", %+.2f points", 100.0 * share_delta(s, n, b));
	fputs(")</title>", s->f);
	fprintf(s->f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		"rx=\"2\" ry=\"2\" fill=\"rgb(%d,%d,%d)\"/>",
		x, y, w, s->frame_height - 1, rgb[0], rgb[1], rgb[2]);
	fprintf(s->f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3,
		y + (s->frame_height - 1) / 2.0 + s->font_size * 0.35);
	/* Same rule as label() in the script. */
	fit = w > 6 ? (size_t)floor((w - 6) / s->char_width) : 0;
	if (fit >= 3) {
		len = xml_nchars(name);
		if (len <= fit) {
			put_xml(s->f, name, len);
		} else {
			put_xml(s->f, name, fit - 2);
			fputs("..", s->f);
		}
	}
	fputs("</text></g>\n", s->f);

	o = offset;
	for (i = 0; i < n->nkids; i++) {
		svg_frame(s, n->kids[i], base_kid(b, n->kids[i]), depth + 1, o);
		o += n->kids[i]->total;
	}
}

static const char svg_style[] =
	"text { font-family: Verdana, \"DejaVu Sans\", sans-serif; fill: #000; }\n"
	"#title { font-size: %dpx; text-anchor: middle; }\n"
	"#subtitle { text-anchor: middle; fill: #555; }\n"
	"#search, #matched { text-anchor: end; }\n"
	".btn { cursor: pointer; }\n"
	".btn.off { opacity: 0.3; cursor: default; }\n"
	".f { cursor: pointer; }\n"
	".f text { pointer-events: none; }\n"
	".f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	".anc rect { fill-opacity: 0.55; }\n"
	".hide { display: none; }\n";

/* The viewer: K (layout constants) is printed in front of it. */
static const char svg_script[] =
	"(function () {\n"
	"\t\"use strict\";\n"
	"\tvar svg = document.documentElement;\n"
	"\tvar details = document.getElementById(\"details\");\n"
	"\tvar matched = document.getElementById(\"matched\");\n"
	"\tvar unzoom = document.getElementById(\"unzoom\");\n"
	"\tvar search = document.getElementById(\"search\");\n"
	"\tvar fg = document.getElementById(\"frames\");\n"
	"\tvar frames = [], re = null, i;\n"
	"\n"
	"\tfunction first(g, tag) { return g.getElementsByTagName(tag)[0]; }\n"
	"\n"
	"\t/* Each frame's name is its title up to \" (value\". */\n"
	"\tvar gs = fg.getElementsByTagName(\"g\");\n"
	"\tfor (i = 0; i < gs.length; i++) {\n"
	"\t\tvar g = gs[i], info = first(g, \"title\").textContent;\n"
	"\t\tvar v = g.getAttribute(\"data-v\"), k = info.lastIndexOf(\" (\" + v);\n"
	"\t\tvar fr = {\n"
	"\t\t\tg: g, rect: first(g, \"rect\"), text: first(g, \"text\"),\n"
	"\t\t\tv: +v, o: +g.getAttribute(\"data-o\"),\n"
	"\t\t\td: +g.getAttribute(\"data-d\"),\n"
	"\t\t\tname: k >= 0 ? info.substring(0, k) : info, info: info\n"
	"\t\t};\n"
	"\t\tfr.fill = fr.rect.getAttribute(\"fill\");\n"
	"\t\tg.kdFrame = fr;\n"
	"\t\tframes.push(fr);\n"
	"\t}\n"
	"\n"
	"\tfunction frameOf(el) {\n"
	"\t\tfor (; el && el !== svg; el = el.parentNode)\n"
	"\t\t\tif (el.kdFrame)\n"
	"\t\t\t\treturn el.kdFrame;\n"
	"\t\treturn null;\n"
	"\t}\n"
	"\n"
	"\tfunction label(name, w) {\n"
	"\t\tvar n = Math.floor((w - 6) / K.charw);\n"
	"\t\tif (n < 3)\n"
	"\t\t\treturn \"\";\n"
	"\t\treturn name.length <= n ? name : name.substring(0, n - 2) + \"..\";\n"
	"\t}\n"
	"\n"
	"\tfunction place(f, x, w, cls) {\n"
	"\t\tf.g.setAttribute(\"class\", cls);\n"
	"\t\tf.rect.setAttribute(\"x\", x.toFixed(2));\n"
	"\t\tf.rect.setAttribute(\"width\", w.toFixed(2));\n"
	"\t\tf.text.setAttribute(\"x\", (x + 3).toFixed(2));\n"
	"\t\tf.text.textContent = label(f.name, w);\n"
	"\t}\n"
	"\n"
	"\t/* z fills the width, its ancestors span it faded, the rest hides. */\n"
	"\tfunction zoom(z) {\n"
	"\t\tvar o0 = z ? z.o : 0, s = K.width / (z ? z.v : K.total);\n"
	"\t\tfor (i = 0; i < frames.length; i++) {\n"
	"\t\t\tvar f = frames[i];\n"
	"\t\t\tif (!z || (f.d >= z.d && f.o >= z.o && f.o + f.v <= z.o + z.v))\n"
	"\t\t\t\tplace(f, K.xpad + (f.o - o0) * s, f.v * s, \"f\");\n"
	"\t\t\telse if (f.d < z.d && f.o <= z.o && f.o + f.v >= z.o + z.v)\n"
	"\t\t\t\tplace(f, K.xpad, K.width, \"f anc\");\n"
	"\t\t\telse\n"
	"\t\t\t\tf.g.setAttribute(\"class\", \"f hide\");\n"
	"\t\t}\n"
	"\t\tunzoom.setAttribute(\"class\", z ? \"btn\" : \"btn off\");\n"
	"\t}\n"
	"\n"
	"\t/* Highlight frames whose name matches pat; the matched share counts\n"
	"\t * nested matches once, by merging their [o, o + v) intervals. */\n"
	"\tfunction setSearch(pat) {\n"
	"\t\tvar hits = [], sum = 0, end = -1;\n"
	"\t\tre = null;\n"
	"\t\tif (pat) {\n"
	"\t\t\ttry {\n"
	"\t\t\t\tre = new RegExp(pat);\n"
	"\t\t\t} catch (e) {\n"
	"\t\t\t\tdetails.textContent = \"Bad regular expression: \" + e.message;\n"
	"\t\t\t}\n"
	"\t\t}\n"
	"\t\tfor (i = 0; i < frames.length; i++) {\n"
	"\t\t\tvar f = frames[i], hit = re !== null && re.test(f.name);\n"
	"\t\t\tf.rect.setAttribute(\"fill\", hit ? K.match : f.fill);\n"
	"\t\t\tif (hit)\n"
	"\t\t\t\thits.push(f);\n"
	"\t\t}\n"
	"\t\tif (!re) {\n"
	"\t\t\tmatched.textContent = \"\";\n"
	"\t\t\tsearch.textContent = \"Search\";\n"
	"\t\t\treturn;\n"
	"\t\t}\n"
	"\t\thits.sort(function (a, b) { return a.o - b.o || b.v - a.v; });\n"
	"\t\tfor (i = 0; i < hits.length; i++) {\n"
	"\t\t\tvar a = hits[i].o, b = a + hits[i].v;\n"
	"\t\t\tif (b <= end)\n"
	"\t\t\t\tcontinue;\n"
	"\t\t\tsum += b - Math.max(a, end);\n"
	"\t\t\tend = b;\n"
	"\t\t}\n"
	"\t\tmatched.textContent = \"Matched: \" +\n"
	"\t\t\t(K.total ? 100 * sum / K.total : 0).toFixed(1) + \"%\";\n"
	"\t\tsearch.textContent = \"Reset Search\";\n"
	"\t}\n"
	"\n"
	"\tfunction askSearch() {\n"
	"\t\tvar p = window.prompt(\"Search frames (regular expression):\",\n"
	"\t\t\t\t      re ? re.source : \"\");\n"
	"\t\tif (p !== null)\n"
	"\t\t\tsetSearch(p);\n"
	"\t}\n"
	"\n"
	"\tfg.addEventListener(\"click\", function (e) {\n"
	"\t\tvar f = frameOf(e.target);\n"
	"\t\tif (f)\n"
	"\t\t\tzoom(f.d ? f : null);\n"
	"\t});\n"
	"\tfg.addEventListener(\"mouseover\", function (e) {\n"
	"\t\tvar f = frameOf(e.target);\n"
	"\t\tif (f)\n"
	"\t\t\tdetails.textContent = f.info;\n"
	"\t});\n"
	"\tfg.addEventListener(\"mouseout\", function () {\n"
	"\t\tdetails.textContent = \" \";\n"
	"\t});\n"
	"\tunzoom.addEventListener(\"click\", function () { zoom(null); });\n"
	"\tsearch.addEventListener(\"click\", function () {\n"
	"\t\tif (re)\n"
	"\t\t\tsetSearch(\"\");\n"
	"\t\telse\n"
	"\t\t\taskSearch();\n"
	"\t});\n"
	"\twindow.addEventListener(\"keydown\", function (e) {\n"
	"\t\tif ((e.ctrlKey || e.metaKey) && (e.key === \"f\" || e.keyCode === 70)) {\n"
	"\t\t\te.preventDefault();\n"
	"\t\t\taskSearch();\n"
	"\t\t} else if (e.key === \"Escape\" || e.keyCode === 27) {\n"
	"\t\t\tzoom(null);\n"
	"\t\t\tsetSearch(\"\");\n"
	"\t\t}\n"
	"\t});\n"
	"\n"
	"\t/* Hooks for scripted use, e.g. kdflame.zoomTo(\"name\"). */\n"
	"\twindow.kdflame = {\n"
	"\t\tzoomTo: function (name) {\n"
	"\t\t\tfor (i = 0; i < frames.length; i++)\n"
	"\t\t\t\tif (frames[i].name === name)\n"
	"\t\t\t\t\treturn zoom(frames[i].d ? frames[i] : null);\n"
	"\t\t},\n"
	"\t\tsearch: setSearch,\n"
	"\t\treset: function () { zoom(null); }\n"
	"\t};\n"
	"})();\n";

int flame_write_svg(const struct flame *fl, FILE *f,
		    const struct flame_svg_opts *opts)
{
	static const struct flame_svg_opts defaults;
	struct svg s = { .f = f };
	const char *title, *subtitle;
	int width, height, top, bottom;

	if (!fl || !f)
		return -EINVAL;
	if (!opts)
		opts = &defaults;

	width = opts->width > 0 ? opts->width : 1200;
	s.frame_height = opts->frame_height > 0 ? opts->frame_height : 16;
	if (width < 4 * SVG_XPAD || s.frame_height < 4) {
		kd_err("failed to write flame graph: %d px wide, %d px frames is too small",
		       width, s.frame_height);
		return -EINVAL;
	}
	s.font_size = s.frame_height >= 16 ? 12 : s.frame_height - 3;
	s.char_width = s.font_size * 0.59;
	s.min_width = opts->min_width > 0 ? opts->min_width : 0.1;
	s.unit = opts->unit ? opts->unit : "samples";
	s.palette = opts->palette;
	s.icicle = opts->icicle;
	s.total = fl->root.total;
	s.scale = s.total ? (width - 2.0 * SVG_XPAD) / (double)s.total : 0;
	title = opts->title ? opts->title :
		s.icicle ? "Icicle Graph" : "Flame Graph";
	subtitle = opts->subtitle && *opts->subtitle ? opts->subtitle : NULL;

	s.base_total = opts->base ? opts->base->root.total : 0;
	if (s.total)
		svg_depth(&s, &fl->root, opts->base ? &opts->base->root : NULL, 0);
	top = subtitle ? 58 : 38;
	bottom = s.font_size + 16;
	height = top + (s.maxdepth + 1) * s.frame_height + bottom;
	s.base_y = s.icicle ? top : top + s.maxdepth * s.frame_height;

	errno = 0;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-size=\"%d\">\n",
		width, height, width, height, s.font_size);
	fprintf(f, "<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
		"<stop offset=\"5%%\" stop-color=\"#eeeeee\"/>"
		"<stop offset=\"95%%\" stop-color=\"%s\"/></linearGradient></defs>\n",
		s.palette == FLAME_PALETTE_COLD ? "#e0e0f8" : "#eeeeb0");
	fputs("<style type=\"text/css\"><![CDATA[\n", f);
	fprintf(f, svg_style, SVG_TITLE_SIZE);
	fputs("]]></style>\n", f);
	fprintf(f, "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"url(#bg)\"/>\n", width, height);

	fprintf(f, "<text id=\"title\" x=\"%.1f\" y=\"24\">", width / 2.0);
	put_xml(f, title, SIZE_MAX);
	fputs("</text>\n", f);
	if (subtitle) {
		fprintf(f, "<text id=\"subtitle\" x=\"%.1f\" y=\"44\">", width / 2.0);
		put_xml(f, subtitle, SIZE_MAX);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text id=\"unzoom\" class=\"btn off\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
		"<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\">Search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\"></text>\n",
		SVG_XPAD, width - SVG_XPAD, SVG_XPAD, height - 10,
		width - SVG_XPAD, height - 10);
	if (!s.total)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">No samples</text>\n",
			width / 2.0, top + s.frame_height - 4);

	fputs("<g id=\"frames\">\n", f);
	if (s.total)
		svg_frame(&s, &fl->root, opts->base ? &opts->base->root : NULL, 0, 0);
	fputs("</g>\n", f);

	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"var K = { xpad: %d, width: %.4f, total: %" PRIu64
		", charw: %.4f, match: \"%s\" };\n",
		SVG_XPAD, width - 2.0 * SVG_XPAD, s.total, s.char_width,
		SVG_MATCH_COLOR);
	fputs(svg_script, f);
	fputs("]]></script>\n</svg>\n", f);
	return flame_finish_write(f, "flame graph");
}
