// SPDX-License-Identifier: GPL-2.0
/* Unit test of the stack views of a measurement (stackview.c through
 * measurement_write) and of the stack label markers (stacks.c): folded
 * output parses back to the groups' totals, the text view lists the
 * heaviest stack first, lost stacks are named. */
#include "check.h"
#include "view/flame.h"
#include "model/measure.h"
#include "kernel/stacks.h"
#include "view/view.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A stack from "root;...;leaf", frames at made-up addresses. */
static const struct m_stack *stack(const char *folded, bool user, uint64_t addr)
{
	struct m_frame f[16];
	char *copy = strdup(folded), *save = NULL;
	unsigned int n = 0;

	for (char *t = strtok_r(copy, ";", &save); t && n < 16; t = strtok_r(NULL, ";", &save), n++)
		f[n] = (struct m_frame){ .name = m_intern(t, strlen(t)), .addr = addr + n };
	free(copy);
	return m_stack_intern(f, n, user, false);
}

static void add_group(struct measurement *m, int id, const char *comm, const char *ustack,
		      const char *kstack, uint64_t samples)
{
	struct m_value key[3] = {
		mv_text(m_intern(comm, strlen(comm))),
		mv_stack(stack(ustack, true, id * 100)),
		mv_stack(kstack[0] == '[' ? m_stack_marker(kstack) : stack(kstack, false, id * 100)),
	};
	struct m_group *g = measurement_group(m, key);

	g->h.count += samples;
	g->h.sum += samples;
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
		measurement_write_end(stdout, &v);
		free(buf);
		return NULL;
	}
	measurement_write_end(f, &v);
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
	struct stack_syms *ss = stack_syms_new(NULL);
	const struct m_stack *none = ss ? stack_syms_stack(ss, STACK_NONE, true, 1) : NULL;
	const struct m_stack *coll = ss ? stack_syms_stack(ss, -EEXIST, false, 0) : NULL;
	const struct m_stack *full = ss ? stack_syms_stack(ss, -ENOMEM, false, 0) : NULL;

	check("marker_none", none && !none->nframes && !strcmp(none->label, "") && !none->truncated,
	      NULL);
	check("marker_collision", coll && !strcmp(coll->label, "[lost stack: collision]"), NULL);
	check("marker_map_full", full && !strcmp(full->label, "[lost stack: map full]"), NULL);
	stack_syms_free(ss);
}

int main(void)
{
	test_folded_roundtrip();
	test_text_top();
	test_lost_markers();
	return check_done();
}
