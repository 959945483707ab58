// SPDX-License-Identifier: GPL-2.0
/* Unit test of the stack views of a measurement (stackview.c through
 * measurement_write) and of the stack label markers (stacks.c): folded
 * output parses back to the groups' totals, the text view lists the
 * heaviest stack first, lost stacks are named. */
#include "check.h"
#include "flame.h"
#include "measure.h"
#include "stacks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void add_group(struct measurement *m, int id, const char *comm, const char *ustack,
		      const char *kstack, uint64_t samples)
{
	struct m_group *g = measurement_group(m, &id, sizeof(id));

	g->label[0] = strdup(comm);
	g->label[1] = strdup(ustack);
	g->label[2] = strdup(kstack);
	g->h.count = g->h.sum = samples;
}

static void profile_like(struct measurement *m)
{
	memset(m, 0, sizeof(*m));
	m->command = "profile";
	m->kind = M_VALUE;
	m->value_unit = "samples";
	m->stacks = M_STACKS_ONCPU;
	snprintf(m->title, sizeof(m->title), "on-CPU stacks");
	m->nby = 3;
	strcpy(m->by[0], "comm");
	strcpy(m->by[1], "ustack");
	strcpy(m->by[2], "kstack");
	add_group(m, 1, "app", "main;work", "", 30);
	add_group(m, 2, "app", "main;work", "sys_read;vfs_read", 12);
	add_group(m, 3, "kworker/0:1", "", "worker_thread;process_one_work", 5);
	add_group(m, 4, "app", "main;other", "[lost stack: collision]", 3);
	measurement_add_drop(m, "stack_collision", 3);
}

static char *write_view(const struct measurement *m, enum out_format fmt, int top)
{
	struct view_opts v = { .format = fmt, .top = top };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f || measurement_write(f, m, &v)) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

static void test_folded_roundtrip(void)
{
	struct measurement m;
	struct flame *fl = flame_new();
	char *out;
	FILE *f;

	profile_like(&m);
	out = write_view(&m, OUT_FOLDED, 0);
	check("folded_written", out != NULL, "measurement_write failed");
	if (!out)
		return;
	check("folded_user_then_kernel", strstr(out, "app;main;work;sys_read;vfs_read 12\n") != NULL,
	      "got:\n%s", out);
	check("folded_no_empty_frames", strstr(out, ";;") == NULL && strstr(out, "app;main;work 30\n"),
	      "got:\n%s", out);
	check("folded_kernel_thread", strstr(out, "kworker/0:1;worker_thread;process_one_work 5\n") != NULL,
	      "got:\n%s", out);
	f = fmemopen(out, strlen(out), "r");
	check("folded_parses_back", f && !flame_parse_folded(fl, f), "flame_parse_folded failed");
	check("folded_same_total", flame_total(fl) == 50, "total %llu, expected 50",
	      (unsigned long long)flame_total(fl));
	if (f)
		fclose(f);
	flame_free(fl);
	free(out);
	measurement_clear(&m);
}

static void test_text_top(void)
{
	struct measurement m;
	char *out, *first, *second;

	profile_like(&m);
	out = write_view(&m, OUT_TEXT, 2);
	check("text_written", out != NULL, "measurement_write failed");
	if (!out)
		return;
	first = strstr(out, "#1  30 samples  60.00%\n    work\n    main\n    app\n");
	second = strstr(out, "#2  12 samples  24.00%\n    vfs_read\n");
	check("text_heaviest_first", first && second && first < second, "got:\n%s", out);
	check("text_top_2", !strstr(out, "#3 "), "got:\n%s", out);
	check("text_losses", strstr(out, "lost: 3 (stack_collision 3)") != NULL, "got:\n%s", out);
	free(out);
	measurement_clear(&m);
}

static void test_lost_markers(void)
{
	struct stack_syms *ss = stack_syms_new(-1);
	bool trunc = true;

	check("marker_none", ss && !strcmp(stack_syms_label(ss, STACK_NONE, true, 1, &trunc), "") &&
	      !trunc, NULL);
	check("marker_collision",
	      ss && !strcmp(stack_syms_label(ss, -EEXIST, false, 0, NULL), "[lost stack: collision]"),
	      NULL);
	check("marker_map_full",
	      ss && !strcmp(stack_syms_label(ss, -ENOMEM, false, 0, NULL), "[lost stack: map full]"),
	      NULL);
	stack_syms_free(ss);
}

int main(void)
{
	test_folded_roundtrip();
	test_text_top();
	test_lost_markers();
	return check_done();
}
