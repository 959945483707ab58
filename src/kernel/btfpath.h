/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names and paths through the kernel's types, resolved against the running
 * kernel's BTF (/sys/kernel/btf/vmlinux) once, before anything is loaded:
 *   NAME                  an argument by name: a raw tracepoint's TP_PROTO
 *                         argument (prev, next, rq, p) or a function's
 *                         parameter; argN is the Nth
 *   NAME->m.n->o[2]       members through pointers (->), of structs in
 *                         place (.), elements of arrays ([i])
 *   A|B                   the first of the alternatives that resolves (a
 *                         member that moved between kernel versions)
 * into a struct kpath (kpath.h) the BPF side follows, and how the result
 * prints (struct kpath_type).
 */
#ifndef KDIST_BTFPATH_H
#define KDIST_BTFPATH_H

#include <stdbool.h>
#include "kernel/kpath.h"
#include "model/measure.h"

/* Whose arguments a name is looked up in. */
enum btf_args_of {
	BTF_ARGS_TP,	/* a raw tracepoint, by its name (sched_switch) */
	BTF_ARGS_FUNC,	/* a kernel function */
};

/* How a value of the path's type prints. */
enum kpath_show {
	KSHOW_UNSIGNED,
	KSHOW_SIGNED,
	KSHOW_HEX,	/* pointers */
	KSHOW_ENUM,	/* by the name of its value */
	KSHOW_STR,	/* char arrays, char * */
};

struct kpath_type {
	enum kpath_show show;
	int enum_id;		/* KSHOW_ENUM: the enum's BTF type id */
	char name[64];		/* the C type, for messages ("struct task_struct *") */
};

/* Whether expr is a path (has ->, . or [), not a plain name. */
bool btfpath_is_path(const char *expr);

/* expr on the arguments of `name` (of kind `of`; `what` names the event in
 * messages) into *p and *t.  *whole_arg: expr is an argument itself, no
 * read through it (p->arg says which).  Returns 0; 1 when expr is a plain
 * name none of the arguments has (the caller looks further); -errno after
 * one line naming what does not resolve (a member missing from the type it
 * was looked up in, a path deeper than KPATH_MAX_DEREF, a kernel without
 * BTF). */
int btfpath_resolve(enum btf_args_of of, const char *name, const char *what, const char *expr,
		    struct kpath *p, struct kpath_type *t, bool *whole_arg);

/* Whether expr starts with an argument of `name` (argN, or by its name). */
bool btfpath_is_arg(enum btf_args_of of, const char *name, const char *expr);

/* A kernel variable and a path through it: NAME (its type from the
 * kernel's BTF), (TYPE)NAME (where BTF has none: only per-CPU variables
 * are there by default), NAME@CPU (a per-CPU variable's copy on CPU; NAME
 * alone is the copy of the CPU the event runs on), then ".m", "->m",
 * "[i]".  Its address comes from /proc/kallsyms.  Returns 0; 1 when NAME
 * is no kernel variable; -errno after one line saying why. */
int btfpath_global(const char *what, const char *expr, struct kpath *p, struct kpath_type *t);

/* How a number of type t prints: pointers in hex, signed numbers signed,
 * others as they are (an enum's name is btfpath_enum_name()'s). */
enum m_fmt btfpath_fmt(const struct kpath_type *t);
/* The name of value v of the enum with BTF id enum_id; NULL if none. */
const char *btfpath_enum_name(int enum_id, long long v);
/* The same of the kernel's enum called enum_name. */
const char *btfpath_enum_value_name(const char *enum_name, long long v);

#endif
