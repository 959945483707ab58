// SPDX-License-Identifier: GPL-2.0
/* Single events as lines: text, JSON Lines or CSV (see evline.h). */
#include "view/evline.h"
#include "view/format.h"
#include "view/view.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct {
	FILE *out;
	enum out_format format;
	double mono_to_unix;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, seconds */
} ev;

/* The member names of the line being written (JSON, CSV), so that none
 * comes twice: a JSON object with two members of one name is one that
 * parsers read differently (the last wins, or an error), a CSV header with
 * two columns of one name one whose readers keep only one. */
#define LINE_NAMES 128
static struct {
	const char *prefix;	/* for a field whose name the line already has */
	char name[LINE_NAMES][64];
	int n;
} line;

static bool line_has(const char *name)
{
	for (int i = 0; i < line.n; i++)
		if (!strcmp(line.name[i], name))
			return true;
	return false;
}

static void line_add(const char *name)
{
	if (line.n < LINE_NAMES)
		snprintf(line.name[line.n++], sizeof(line.name[0]), "%s", name);
}

/* name, or if the line has it, the prefix and name (again, while taken). */
static const char *line_name(const char *name, char *buf, size_t size)
{
	for (int i = 0; i < 4 && line_has(name); i++) {
		snprintf(buf, size, "%s%s", line.prefix, name);
		name = buf;
	}
	line_add(name);
	return name;
}

/* Members every line may have: events_head()'s and events_stack()'s. */
static const char *const head_names[] = {
	"event", "time", "comm", "pid", "tid", "cpu", "latency_ns", "kstack", "ustack",
};

/* -o csv: a line's column names and values, kept until events_end() says
 * whether its header row is the one already printed. */
static struct {
	FILE *names, *vals;
	char *nbuf, *vbuf, *header;
	size_t nlen, vlen;
} csv;

void events_output(FILE *f, enum out_format format)
{
	ev.out = f;
	ev.format = format;
}

void events_output_end(void)
{
	free(csv.header);
	csv.header = NULL;
}

FILE *events_file(void)
{
	return ev.out ? ev.out : stdout;
}

void events_begin(FILE *f, const char *kind, const char *prefix)
{
	line.prefix = prefix;
	line.n = 0;
	/* the head's, and the stacks' whatever comes first */
	for (size_t i = 0; i < ARRAY_SIZE(head_names); i++)
		line_add(head_names[i]);
	switch (ev.format) {
	case OUT_JSON:
		fputs("{\"event\":", f);
		json_str(f, kind);
		fputc(',', f);
		break;
	case OUT_CSV:
		csv.names = open_memstream(&csv.nbuf, &csv.nlen);
		csv.vals = open_memstream(&csv.vbuf, &csv.vlen);
		if (csv.vals)
			csv_field(csv.vals, kind);
		break;
	default:
		break;
	}
}

void events_end(FILE *f)
{
	if (ev.format != OUT_CSV) {
		fputs(ev.format == OUT_JSON ? "}\n" : "\n", f);
		return;
	}
	if (csv.names && !fclose(csv.names) && csv.vals && !fclose(csv.vals)) {
		/* a header row before the first line and whenever the columns change */
		if (!csv.header || strcmp(csv.header, csv.nbuf)) {
			fprintf(f, "event%s\n", csv.nbuf);
			free(csv.header);
			csv.header = csv.nbuf;
			csv.nbuf = NULL;
		}
		fprintf(f, "%s\n", csv.vbuf);
	} else {
		if (csv.names)
			fclose(csv.names);
		kd_err("failed to write an event: %s", strerror(ENOMEM));
	}
	free(csv.nbuf);
	free(csv.vbuf);
	csv.names = csv.vals = NULL;
	csv.nbuf = csv.vbuf = NULL;
}

/* "name" to the header, value to the row (NULL: empty). */
static void csv_col(const char *name, const char *value)
{
	if (!csv.names || !csv.vals)
		return;
	fprintf(csv.names, ",%s", name);
	fputc(',', csv.vals);
	if (value)
		csv_field(csv.vals, value);
}

/* s with '"' (and, unless quoted, ' ') written as \x22 (\x20): text_unescape
 * reads them back, and a value can neither end its quotes nor its column. */
static void put_word(FILE *f, const char *s, bool quoted, int width)
{
	int n = 0;

	if (quoted)
		fputc('"', f);
	for (; *s; s++, n++) {
		if (*s == '"' || (!quoted && *s == ' ')) {
			fprintf(f, "\\x%02x", *s);
			n += 3;
		} else
			fputc(*s, f);
	}
	if (quoted)
		fputc('"', f);
	fprintf(f, "%*s", width > n ? width - n : 0, "");
}

void events_head(FILE *f, uint64_t ktime, const char *raw_comm, uint32_t pid, uint32_t tid,
		 uint32_t cpu, uint64_t latency_ns)
{
	char lat[32] = "", num[32], comm[4 * 64 + 1];
	double unix_s;

	if (!ev.mono_to_unix) {
		struct timespec m, r;

		clock_gettime(CLOCK_MONOTONIC, &m);
		clock_gettime(CLOCK_REALTIME, &r);
		ev.mono_to_unix = (r.tv_sec - m.tv_sec) + (r.tv_nsec - m.tv_nsec) / 1e9;
	}
	unix_s = ktime / 1e9 + ev.mono_to_unix;
	/* what the task named itself: data, never control of the terminal */
	text_escape(comm, sizeof(comm), raw_comm, strnlen(raw_comm, 64));
	if (ev.format == OUT_JSON) {
		fprintf(f, "\"time\":%.6f,\"comm\":", unix_s);
		json_str(f, comm);
		fprintf(f, ",\"pid\":%u,\"tid\":%u,\"cpu\":%u", pid, tid, cpu);
		if (latency_ns)
			fprintf(f, ",\"latency_ns\":%llu", (unsigned long long)latency_ns);
	} else if (ev.format == OUT_CSV) {
		snprintf(num, sizeof(num), "%.6f", unix_s);
		csv_col("time", num);
		csv_col("comm", comm);
		snprintf(num, sizeof(num), "%u", pid);
		csv_col("pid", num);
		snprintf(num, sizeof(num), "%u", tid);
		csv_col("tid", num);
		snprintf(num, sizeof(num), "%u", cpu);
		csv_col("cpu", num);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)latency_ns);
		if (latency_ns)
			csv_col("latency_ns", num);
	} else {
		time_t t = (time_t)unix_s;
		struct tm tm;
		char hms[16];

		localtime_r(&t, &tm);
		strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
		if (latency_ns)
			fmt_time(lat, sizeof(lat), latency_ns);
		fprintf(f, "%s.%06d ", hms, (int)((unix_s - t) * 1e6));
		put_word(f, comm, false, 15);
		fprintf(f, " %7u %7u %3u%s%s", pid, tid, cpu, latency_ns ? " " : "", lat);
	}
}

void events_field(FILE *f, const char *name, const char *value, bool text)
{
	char buf[64];

	/* text lines name only their fields: a name there is never ambiguous */
	if (ev.format == OUT_CSV || ev.format == OUT_JSON)
		name = line_name(name, buf, sizeof(buf));
	if (ev.format == OUT_CSV) {
		csv_col(name, value);
		return;
	}
	if (!value)
		return;
	if (ev.format == OUT_JSON) {
		fputc(',', f);
		json_str(f, name);
		fputc(':', f);
		if (text)
			json_str(f, value);
		else
			fputs(value, f);
	} else {
		fprintf(f, " %s=", name);
		if (text)
			put_word(f, value, true, 0);
		else
			fputs(value, f);
	}
}

void events_stack(FILE *f, const char *name, const struct m_stack *s)
{
	events_stack_titled(f, name, NULL, s);
}

void events_stack_titled(FILE *f, const char *name, const char *title, const struct m_stack *s)
{
	unsigned int n = s ? s->nframes : 0;

	if (ev.format == OUT_CSV) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		/* one column, root first: folded stacks' order */
		for (unsigned int i = 0; m && i < n; i++)
			fprintf(m, "%s%s", i ? ";" : "", s->frames[i].name);
		if (m && !fclose(m))
			csv_col(name, buf);
		free(buf);
		return;
	}
	if (ev.format == OUT_JSON) {
		fputc(',', f);
		json_str(f, name);
		fputs(":[", f);
	} else if (title) {
		fprintf(f, "\n  %s", title);
	}
	for (unsigned int i = n; i-- > 0;) {
		const struct m_frame *fr = &s->frames[i];

		if (ev.format == OUT_JSON) {
			json_str(f, fr->name);
			if (i)
				fputc(',', f);
		} else {
			fprintf(f, "\n    %s%s%s%s", fr->name, fr->module ? " (" : "",
				fr->module ? fr->module : "", fr->module ? ")" : "");
		}
	}
	if (ev.format == OUT_JSON)
		fputc(']', f);
}
