// SPDX-License-Identifier: GPL-2.0
/* Event specs, --key lists and tracefs format files. */
#include "check.h"
#include "kernel/spec.h"
#include "kernel/tracefs.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif

/* Names up to 127 characters fit; longer ones are refused, never cut
 * (a cut name would also skip the character check past the cut). */
static void test_long_names(void)
{
	char name[200], spec[256];
	struct event_spec e;

	memset(name, 'a', 127);
	name[127] = '\0';
	snprintf(spec, sizeof(spec), "sched:%s", name);
	check("127-char tracepoint name", !event_spec_parse(spec, &e) && !strcmp(e.name, name),
	      NULL);
	snprintf(spec, sizeof(spec), "sched:%s$", name);
	check("bad char past 127", event_spec_parse(spec, &e) < 0, NULL);
	snprintf(spec, sizeof(spec), "k:%sa", name);
	check("128-char function name", event_spec_parse(spec, &e) < 0, NULL);
	snprintf(spec, sizeof(spec), "u:/bin/ls:%sa", name);
	check("128-char symbol name", event_spec_parse(spec, &e) < 0, NULL);
}

static void test_events(void)
{
	struct event_spec e;

	check("tracepoint", !event_spec_parse("sched:sched_switch", &e) && e.kind == EV_TRACEPOINT &&
	      !strcmp(e.category, "sched") && !strcmp(e.name, "sched_switch"), NULL);
	check("t: prefix", !event_spec_parse("t:iommu:io_page_fault", &e) &&
	      e.kind == EV_TRACEPOINT && !strcmp(e.category, "iommu"), NULL);
	check("tracepoint: prefix", !event_spec_parse("tracepoint:irq:softirq_entry", &e) &&
	      !strcmp(e.category, "irq") && !strcmp(e.name, "softirq_entry"), NULL);
	check("k:", !event_spec_parse("k:vfs_read", &e) && e.kind == EV_KPROBE &&
	      !strcmp(e.name, "vfs_read"), NULL);
	check("kr: with .isra", !event_spec_parse("kr:foo.isra.0", &e) && e.kind == EV_KRETPROBE,
	      NULL);
	check("u:PATH:SYM", !event_spec_parse("u:/usr/bin/bash:readline", &e) &&
	      e.kind == EV_UPROBE && !strcmp(e.path, "/usr/bin/bash") &&
	      !strcmp(e.name, "readline"), NULL);
	check("ur:lib:SYM", !event_spec_parse("ur:libc:malloc", &e) && e.kind == EV_URETPROBE &&
	      !strcmp(e.path, "libc") && !strcmp(e.name, "malloc"), NULL);
	fprintf(stderr, "(errors for bad specs are expected next)\n");
	check("no colon", event_spec_parse("sched_switch", &e) < 0, NULL);
	check("empty name", event_spec_parse("sched:", &e) < 0, NULL);
	check("u: without symbol", event_spec_parse("u:/bin/ls", &e) < 0, NULL);
	check("k: bad name", event_spec_parse("k:vfs read", &e) < 0, NULL);
	check("bad chars", event_spec_parse("sched:sw$tch", &e) < 0, NULL);
	test_long_names();
}

static void test_keys(void)
{
	struct key_spec k;
	char names[4][64];

	check("one key", !key_spec_parse("pasid", &k) && k.n == 1 &&
	      !strcmp(k.start[0], "pasid") && !strcmp(k.end[0], "pasid"), NULL);
	check("two keys", !key_spec_parse("dev,sector", &k) && k.n == 2 &&
	      !strcmp(k.start[1], "sector") && !strcmp(k.end[1], "sector"), NULL);
	check("renamed key", !key_spec_parse("pid=next_pid", &k) && k.n == 1 &&
	      !strcmp(k.start[0], "pid") && !strcmp(k.end[0], "next_pid"), NULL);
	check("bad keys", key_spec_parse("a=", &k) < 0 && key_spec_parse("a,,b", &k) < 0 &&
	      key_spec_parse("a,b,c,d,e", &k) < 0 && key_spec_parse("a,", &k) < 0, NULL);
	check("name list", name_list_parse("comm,function:ksym", names, 4, "--by") == 2 &&
	      !strcmp(names[1], "function:ksym"), NULL);
}

static void load_fixture(const char *name, struct tp_format *f, int *err)
{
	char path[256], *text;

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	memset(f, 0, sizeof(*f));
	*err = read_file(path, &text, NULL);
	if (!*err) {
		*err = tp_format_parse(text, f);
		free(text);
	}
}

static void test_format(void)
{
	const struct tp_field *pid, *comm, *prio, *cmd, *rwbs, *sector;
	struct tp_format f;
	int err;

	load_fixture("sched_wakeup.format", &f, &err);
	check("parse sched_wakeup", !err && !strcmp(f.name, "sched_wakeup") && f.id > 0, "%d", err);
	pid = tp_format_field(&f, "pid");
	comm = tp_format_field(&f, "comm");
	prio = tp_format_field(&f, "prio");
	check("pid field", pid && pid->offset == 24 && pid->size == 4 && pid->is_signed &&
	      !pid->is_array && !strcmp(pid->type, "pid_t"), NULL);
	check("comm array", comm && comm->offset == 8 && comm->size == 16 && comm->is_array &&
	      !strcmp(comm->type, "char"), NULL);
	check("prio", prio && prio->size == 4, NULL);
	check("common fields kept", tp_format_field(&f, "common_pid") != NULL, NULL);
	check("unknown field", !tp_format_field(&f, "nope"), NULL);

	load_fixture("block_rq_issue.format", &f, &err);
	check("parse block_rq_issue", !err, "%d", err);
	cmd = tp_format_field(&f, "cmd");
	rwbs = tp_format_field(&f, "rwbs");
	sector = tp_format_field(&f, "sector");
	check("__data_loc field", cmd && cmd->is_data_loc && cmd->offset == 60, NULL);
	check("char[10] field", rwbs && rwbs->is_array && rwbs->size == 10, NULL);
	check("u64 sector", sector && sector->size == 8 && sector->offset == 16 &&
	      !sector->is_signed, NULL);
	check("reject garbage", tp_format_parse("hello\nworld\n", &f) < 0, NULL);
	memset(&f, 0, sizeof(f));
	check("reject unbalanced [", tp_format_parse("ID: 1\n\tfield:char comm[16;\toffset:8;"
						     "\tsize:16;\tsigned:0;\n", &f) < 0, NULL);
	memset(&f, 0, sizeof(f));
	check("reject stray ]", tp_format_parse("ID: 1\n\tfield:char rwbs];\toffset:8;"
						"\tsize:8;\tsigned:0;\n", &f) < 0, NULL);
}

int main(void)
{
	test_events();
	test_keys();
	test_format();
	return check_done();
}
