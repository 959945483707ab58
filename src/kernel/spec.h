/* SPDX-License-Identifier: GPL-2.0 */
/* The event-spec grammar shared by every command:
 *   CATEGORY:NAME | t:CATEGORY:NAME     tracepoint (anything in tracefs)
 *   k:FUNC | kr:FUNC                    kernel function entry / return, by
 *                                       the cheapest method that works
 *   fentry:FUNC | fexit:FUNC            the same, by fentry/fexit only
 *   kprobe:FUNC | kretprobe:FUNC        the same, by kprobes only
 *   u:PATH:SYMBOL | ur:PATH:SYMBOL      user function entry / return
 * and of --key field lists: "a,b" (same names on both sides) or
 * "a=x,b=y" (START field = END field). */
#ifndef KDIST_SPEC_H
#define KDIST_SPEC_H

#include <stdbool.h>

enum ev_kind {
	EV_TRACEPOINT,
	EV_KPROBE,
	EV_KRETPROBE,
	EV_UPROBE,
	EV_URETPROBE,
};

/* How a kernel function event is attached (k:/kr: choose, the long
 * prefixes insist). */
enum ev_method {
	METHOD_BEST,
	METHOD_KPROBE,
	METHOD_FENTRY,
};

struct event_spec {
	enum ev_kind kind;
	enum ev_method method;
	char text[512];
	char category[64];	/* tracepoint */
	char name[128];		/* tracepoint name, or function/symbol */
	char path[256];		/* uprobe binary or library */
};

/* 0, or -EINVAL after printing why. */
int event_spec_parse(const char *s, struct event_spec *e);
const char *ev_kind_name(enum ev_kind k);
bool ev_is_return(enum ev_kind k);

#define SPEC_MAX_KEYS 4
struct key_spec {
	int n;
	char start[SPEC_MAX_KEYS][64];
	char end[SPEC_MAX_KEYS][64];
};

/* Parse a --key value; 0 or -EINVAL after printing why. */
int key_spec_parse(const char *s, struct key_spec *k);

/* Split a comma list ("comm,pid") into at most max names of len bytes.
 * Returns the count or -EINVAL after printing why. */
int name_list_parse(const char *s, char (*out)[64], int max, const char *what);

#endif
