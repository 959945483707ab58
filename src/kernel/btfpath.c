// SPDX-License-Identifier: GPL-2.0
/* Paths through the kernel's types, resolved against its BTF (btfpath.h). */
#include "kernel/btfpath.h"
#include "syms/ksyms.h"
#include "kernel/engine.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#define ARGS_MAX 6	/* the arguments the BPF side reads (args.bpf.h) */
#define IDENT "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

static struct btf *vmlinux;

/* The kernel's types where the programs' CO-RE takes them: --btf's file,
 * a file found for a kernel without BTF, or /sys/kernel/btf/vmlinux. */
static struct btf *kernel_btf(void)
{
	const char *path = engine_open_opts()->btf_custom_path;

	if (!vmlinux) {
		vmlinux = path ? btf__parse(path, NULL) : btf__load_vmlinux_btf();
		if (!vmlinux)
			kd_err("failed to read the kernel's BTF (%s): %s",
			       path ? path : "/sys/kernel/btf/vmlinux", strerror(errno));
	}
	return vmlinux;
}

/* Modules' BTF (/sys/kernel/btf/MODULE, split on the kernel's), loaded
 * when the kernel's lacks what is looked for, kept. */
#define MODULES_MAX 1024
static struct btf *modules[MODULES_MAX];
static int nmodules = -1;

static void load_modules(void)
{
	struct dirent *e;
	char path[300];
	DIR *d;

	nmodules = 0;
	/* a --btf file's ids are not those the modules' BTF is split on */
	if (engine_open_opts()->btf_custom_path || !kernel_btf())
		return;
	d = opendir("/sys/kernel/btf");
	while (d && (e = readdir(d)) && nmodules < MODULES_MAX) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", e->d_name);
		modules[nmodules] = btf__parse_split(path, vmlinux);
		if (modules[nmodules])
			nmodules++;
	}
	if (d)
		closedir(d);
}

static const struct btf_type *args_proto(const struct btf *b, enum btf_args_of of,
					 const char *name, int *skip);

/* The BTF that types the arguments of `name` (the kernel's, else, for a
 * path, a module's: loading every module's BTF costs a tenth of a second
 * on a distribution's kernel, not paid for a plain name that is no
 * argument), with their prototype in *proto (NULL: none has them). */
static const struct btf *args_btf(enum btf_args_of of, const char *name, const char *expr,
				  const struct btf_type **proto, int *skip)
{
	const struct btf *b = kernel_btf();

	*proto = b ? args_proto(b, of, name, skip) : NULL;
	if (!b || *proto || (!btfpath_is_path(expr) && *expr != '('))
		return b;
	if (nmodules < 0)
		load_modules();
	for (int i = 0; i < nmodules; i++) {
		*proto = args_proto(modules[i], of, name, skip);
		if (*proto)
			return modules[i];
	}
	return b;
}

bool btfpath_is_path(const char *expr)
{
	return strstr(expr, "->") || strchr(expr, '.') || strchr(expr, '[');
}

/* Through typedefs, const, volatile and restrict. */
static const struct btf_type *bare(const struct btf *b, __u32 id, __u32 *out)
{
	const struct btf_type *t = btf__type_by_id(b, id);

	while (t && (btf_is_typedef(t) || btf_is_const(t) || btf_is_volatile(t) ||
		     btf_is_restrict(t) || btf_is_type_tag(t))) {
		id = t->type;
		t = btf__type_by_id(b, id);
	}
	if (out)
		*out = id;
	return t;
}

/* The C spelling of type id, e.g. "struct task_struct *". */
static void type_name(const struct btf *b, __u32 id, char *buf, size_t size)
{
	const struct btf_type *t = btf__type_by_id(b, id);
	const char *kind = "";
	int stars = 0;

	while (t && (btf_is_ptr(t) || btf_is_const(t) || btf_is_volatile(t) ||
		     btf_is_restrict(t) || btf_is_type_tag(t))) {
		stars += btf_is_ptr(t);
		t = btf__type_by_id(b, t->type);
	}
	if (!t) {
		snprintf(buf, size, "?");
		return;
	}
	if (btf_is_array(t) && !stars) {
		char el[48];

		type_name(b, btf_array(t)->type, el, sizeof(el));
		snprintf(buf, size, "%s[%u]", el, btf_array(t)->nelems);
		return;
	}
	if (btf_is_struct(t))
		kind = "struct ";
	else if (btf_is_union(t))
		kind = "union ";
	else if (btf_is_enum(t) || btf_is_enum64(t))
		kind = "enum ";
	snprintf(buf, size, "%s%s%s%.*s", kind, *btf__name_by_offset(b, t->name_off) || kind[0] ?
		 btf__name_by_offset(b, t->name_off) : "void", stars ? " " : "", stars,
		 "********");
	if (kind[0] && !*btf__name_by_offset(b, t->name_off))
		snprintf(buf, size, "%s(anonymous)%s%.*s", kind, stars ? " " : "", stars, "********");
}

/* Whether two prototypes name their parameters alike. */
static bool same_names(const struct btf *b, const struct btf_type *x, const struct btf_type *y)
{
	for (int i = 0; i < btf_vlen(x); i++)
		if (strcmp(btf__name_by_offset(b, btf_params(x)[i].name_off),
			   btf__name_by_offset(b, btf_params(y)[i].name_off)))
			return false;
	return true;
}

/* The FUNC_PROTO whose parameters name the arguments, and how many leading
 * ones are not arguments (a raw tracepoint's __data).  A tracepoint defined
 * by a class (DEFINE_EVENT) has its names on the class's __bpf_trace_
 * function: the one whose parameter types are the tracepoint's
 * (btf_trace_NAME), preferring the longest class name that begins the
 * tracepoint's name, else the one all such functions agree on.  Where the
 * kernel's BTF has no __bpf_trace_ function (Debian 11's 5.10 has none),
 * the tracepoint's own __traceiter_ function (Linux 5.10) names them. */
static const struct btf_type *args_proto(const struct btf *b, enum btf_args_of of,
					 const char *name, int *skip)
{
	const struct btf_type *t, *want, *best = NULL, *any = NULL;
	bool any_ok = true;
	char buf[256];
	size_t best_len = 0;
	int id, n;

	*skip = 0;
	if (of == BTF_ARGS_FUNC) {
		id = btf__find_by_name_kind(b, name, BTF_KIND_FUNC);
		return id > 0 ? btf__type_by_id(b, btf__type_by_id(b, id)->type) : NULL;
	}
	*skip = 1;
	snprintf(buf, sizeof(buf), "__bpf_trace_%s", name);
	id = btf__find_by_name_kind(b, buf, BTF_KIND_FUNC);
	if (id <= 0) {
		snprintf(buf, sizeof(buf), "__traceiter_%s", name);
		id = btf__find_by_name_kind(b, buf, BTF_KIND_FUNC);
	}
	if (id > 0)
		return btf__type_by_id(b, btf__type_by_id(b, id)->type);
	snprintf(buf, sizeof(buf), "btf_trace_%s", name);
	id = btf__find_by_name_kind(b, buf, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return NULL;
	t = btf__type_by_id(b, btf__type_by_id(b, id)->type);	/* the pointer */
	want = t && btf_is_ptr(t) ? btf__type_by_id(b, t->type) : NULL;
	if (!want || !btf_is_func_proto(want))
		return NULL;
	n = btf__type_cnt(b);
	for (id = 1; id < n; id++) {
		const char *fn;
		const struct btf_param *a, *w;
		size_t len;
		bool same = true;

		t = btf__type_by_id(b, id);
		if (!btf_is_func(t))
			continue;
		fn = btf__name_by_offset(b, t->name_off);
		if (strncmp(fn, "__bpf_trace_", 12))
			continue;
		fn += 12;
		len = strlen(fn);
		t = btf__type_by_id(b, t->type);
		if (!t || btf_vlen(t) != btf_vlen(want))
			continue;
		a = btf_params(t);
		w = btf_params(want);
		for (int i = 0; i < btf_vlen(t) && same; i++)
			same = a[i].type == w[i].type;
		if (!same)
			continue;
		if (!strncmp(name, fn, len) && len > best_len) {
			best = t;
			best_len = len;
		}
		/* else a class named otherwise (block_rq_completion of
		 * block_rq_complete): taken if every such one names alike */
		if (!any)
			any = t;
		else if (!same_names(b, any, t))
			any_ok = false;
	}
	return best ? best : any_ok ? any : NULL;
}

/* Member `m` of struct/union s (anonymous members searched through), its
 * type and byte offset; NULL if none.  *bits: a bitfield. */
static const struct btf_member *find_member(const struct btf *b, const struct btf_type *s,
					    const char *m, unsigned int *off, bool *bits)
{
	const struct btf_member *mem = btf_members(s);

	for (int i = 0; i < btf_vlen(s); i++, mem++) {
		const char *n = btf__name_by_offset(b, mem->name_off);
		unsigned int bit = btf_member_bit_offset(s, i);

		if (!*n) {
			const struct btf_type *in = bare(b, mem->type, NULL);
			const struct btf_member *r;
			unsigned int o;

			if (in && (btf_is_struct(in) || btf_is_union(in)) &&
			    (r = find_member(b, in, m, &o, bits))) {
				*off = bit / 8 + o;
				return r;
			}
			continue;
		}
		if (!strcmp(n, m)) {
			*off = bit / 8;
			*bits = btf_member_bitfield_size(s, i) || bit % 8;
			return mem;
		}
	}
	return NULL;
}

/* Set while an alternative that is not the last is tried: its failure is
 * not the user's error yet. */
static bool quiet;

static int bad(const char *what, const char *expr, const char *why)
{
	if (!quiet)
		kd_err("bad field '%s' of %s: %s", expr, what, why);
	return -EINVAL;
}

/* The argument a path starts from: by name, or argN. */
static int find_arg(const struct btf *b, const struct btf_type *proto, int skip,
		    const char *base, __u32 *type)
{
	const struct btf_param *a = btf_params(proto);
	int n = btf_vlen(proto) - skip;
	unsigned int idx;
	char extra;

	if (sscanf(base, "arg%u%c", &idx, &extra) == 1)
		return (int)idx < n ? (*type = a[skip + idx].type, (int)idx) : -1;
	for (int i = 0; i < n; i++)
		if (!strcmp(btf__name_by_offset(b, a[skip + i].name_off), base)) {
			*type = a[skip + i].type;
			return i;
		}
	return -1;
}

/* The argument names of proto, for a message. */
static void arg_names(const struct btf *b, const struct btf_type *proto, int skip, char *buf,
		      size_t size)
{
	const struct btf_param *a = btf_params(proto);
	size_t len = 0;

	buf[0] = '\0';
	for (int i = skip; i < btf_vlen(proto) && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i > skip ? ", " : "",
				btf__name_by_offset(b, a[i].name_off));
}

/* How the value of type id is read and printed at the end of a path. */
static int final_read(const struct btf *b, __u32 id, bool in_mem, struct kpath *p,
		      struct kpath_type *t, const char *what, const char *expr)
{
	const struct btf_type *ty = bare(b, id, &id), *el;
	char msg[160];

	type_name(b, id, t->name, sizeof(t->name));
	if (!ty)
		return bad(what, expr, "its type is not in the kernel's BTF");
	if (btf_is_array(ty)) {
		el = bare(b, btf_array(ty)->type, NULL);
		if (!in_mem || !el || !btf_is_int(el) || el->size != 1) {
			snprintf(msg, sizeof(msg), "%s is an array: name an element ([i])", t->name);
			return bad(what, expr, msg);
		}
		p->final = KPATH_STR_ARRAY;
		p->len = btf_array(ty)->nelems;
		t->show = KSHOW_STR;
		snprintf(t->name, sizeof(t->name), "char[%u]", p->len);
		return 0;
	}
	if (btf_is_ptr(ty)) {
		el = bare(b, ty->type, NULL);
		p->size = 8;
		t->show = KSHOW_HEX;
		if (in_mem && el && btf_is_int(el) && el->size == 1) {
			p->final = KPATH_STR_PTR;
			t->show = KSHOW_STR;
		}
		return 0;
	}
	if (btf_is_int(ty) || btf_is_enum(ty) || btf_is_enum64(ty)) {
		if (ty->size != 1 && ty->size != 2 && ty->size != 4 && ty->size != 8) {
			snprintf(msg, sizeof(msg), "%u-byte numbers are not read", ty->size);
			return bad(what, expr, msg);
		}
		p->size = ty->size;
		if (btf_is_int(ty)) {
			p->is_signed = !!(btf_int_encoding(ty) & BTF_INT_SIGNED);
			t->show = p->is_signed ? KSHOW_SIGNED : KSHOW_UNSIGNED;
		} else {
			p->is_signed = btf_kflag(ty);
			t->show = KSHOW_ENUM;
			t->enum_id = id;
		}
		return 0;
	}
	snprintf(msg, sizeof(msg), "%s is not a number, text or pointer: name a member", t->name);
	return bad(what, expr, msg);
}

/* Through the pointer at *off (or, not in memory yet, the argument itself):
 * one more read for the BPF side; false past KPATH_MAX_DEREF. */
static bool through(struct kpath *p, unsigned int *off, bool *in_mem)
{
	if (*in_mem) {
		if (p->nderef == KPATH_MAX_DEREF)
			return false;
		p->off[p->nderef++] = *off;
	}
	*off = 0;
	*in_mem = true;
	return true;
}

/* The rest of a path, s, from a value of type id (in_mem: in memory at
 * the path's current address, else an argument's value), into *p and *t. */
static int walk(const struct btf *b, __u32 id, bool in_mem, const char *s, struct kpath *p,
		struct kpath_type *t, bool *whole_arg, const char *what, const char *expr)
{
	const struct btf_type *ty;
	char member[64], msg[256], names[160];
	unsigned int off = 0;
	int n;

	while (*s) {
		bool arrow = !strncmp(s, "->", 2);

		type_name(b, id, names, sizeof(names));
		ty = bare(b, id, &id);
		if (*s == '[') {
			char *end;
			unsigned long i = strtoul(s + 1, &end, 0);

			if (end == s + 1 || *end != ']')
				return bad(what, expr, "expected [NUMBER]");
			s = end + 1;
			if (ty && btf_is_array(ty) && in_mem) {
				if (i >= btf_array(ty)->nelems) {
					snprintf(msg, sizeof(msg), "index %lu past the %u elements of %s",
						 i, btf_array(ty)->nelems, names);
					return bad(what, expr, msg);
				}
				id = btf_array(ty)->type;
			} else if (ty && btf_is_ptr(ty)) {
				if (!through(p, &off, &in_mem))
					goto deep;
				id = ty->type;
			} else {
				snprintf(msg, sizeof(msg), "%s is neither an array nor a pointer", names);
				return bad(what, expr, msg);
			}
			n = btf__resolve_size(b, id);
			if (n <= 0)
				return bad(what, expr, "an element of unknown size");
			off += i * n;
			continue;
		}
		if (!arrow && *s != '.')
			return bad(what, expr, "expected ->member, .member or [index]");
		s += arrow ? 2 : 1;
		n = strspn(s, IDENT);
		if (!n || n >= (int)sizeof(member))
			return bad(what, expr, "expected a member name");
		snprintf(member, sizeof(member), "%.*s", n, s);
		s += n;
		if (arrow) {
			if (!ty || !btf_is_ptr(ty)) {
				snprintf(msg, sizeof(msg), "'->%s' on %s, not a pointer (use '.')",
					 member, names);
				return bad(what, expr, msg);
			}
			if (!through(p, &off, &in_mem))
				goto deep;
			type_name(b, ty->type, names, sizeof(names));
			ty = bare(b, ty->type, &id);
		} else if (!in_mem || (ty && btf_is_ptr(ty))) {
			snprintf(msg, sizeof(msg), "'.%s' on %s, a pointer (use '->')", member, names);
			return bad(what, expr, msg);
		}
		if (!ty || (!btf_is_struct(ty) && !btf_is_union(ty))) {
			snprintf(msg, sizeof(msg), "%s has no members (looking for '%s')", names,
				 member);
			return bad(what, expr, msg);
		}
		{
			unsigned int moff = 0;
			bool bits = false;
			const struct btf_member *m = find_member(b, ty, member, &moff, &bits);

			if (!m) {
				snprintf(msg, sizeof(msg), "%s has no member '%s'", names, member);
				return bad(what, expr, msg);
			}
			if (bits) {
				snprintf(msg, sizeof(msg), "'%s' of %s is a bitfield, not read",
					 member, names);
				return bad(what, expr, msg);
			}
			off += moff;
			id = m->type;
		}
	}
	p->off[p->nderef] = off;
	*whole_arg = !in_mem;
	return final_read(b, id, in_mem, p, t, what, expr);
deep:
	snprintf(msg, sizeof(msg), "more than %d pointers to follow", KPATH_MAX_DEREF);
	return bad(what, expr, msg);
}

static __u32 type_by_name(const struct btf *b, const char *name);

/* "(struct NAME *)" in front of a path: the struct's id into *cast, the
 * rest of the path (after the cast) returned; expr itself when there is no
 * cast; NULL after saying why. */
static const char *arg_cast(const struct btf *b, const char *what, const char *expr, __u32 *cast)
{
	const char *close = strchr(expr, ')');
	char tname[96], msg[160];
	int n;

	*cast = 0;
	if (*expr != '(')
		return expr;
	if (!close || close - expr - 1 >= (int)sizeof(tname)) {
		bad(what, expr, "expected (struct NAME *)ARGUMENT->member");
		return NULL;
	}
	n = snprintf(tname, sizeof(tname), "%.*s", (int)(close - expr - 1), expr + 1);
	while (n > 0 && tname[n - 1] == ' ')
		n--;
	if (n < 2 || tname[n - 1] != '*') {
		bad(what, expr, "an argument is cast to a pointer: (struct NAME *)ARGUMENT->member");
		return NULL;
	}
	for (tname[--n] = 0; n > 0 && tname[n - 1] == ' ';)
		tname[--n] = 0;
	*cast = type_by_name(b, tname);
	if (!*cast) {
		snprintf(msg, sizeof(msg), "no type '%s' in the kernel's BTF", tname);
		bad(what, expr, msg);
		return NULL;
	}
	return close + 1;
}

static int resolve_one(enum btf_args_of of, const char *name, const char *what, const char *expr,
		       struct kpath *p, struct kpath_type *t, bool *whole_arg)
{
	const struct btf *b;
	const struct btf_type *proto;
	char base[64], msg[256], names[160], rest[256];
	const char *s = expr;
	__u32 id, cast = 0;
	int skip, arg, n;

	memset(p, 0, sizeof(*p));
	memset(t, 0, sizeof(*t));
	*whole_arg = false;
	if (*s == '(') {
		b = kernel_btf();
		if (!b)
			return -ENOENT;
		s = arg_cast(b, what, expr, &cast);
		if (!s)
			return -EINVAL;
	}
	n = strspn(s, IDENT);
	if (!n || n >= (int)sizeof(base))
		return btfpath_is_path(expr) ? bad(what, expr, "expected NAME->member...") : 1;
	snprintf(base, sizeof(base), "%.*s", n, s);
	s += n;
	b = args_btf(of, name, expr, &proto, &skip);
	if (!b)
		return -ENOENT;
	if (!proto) {
		if (!btfpath_is_path(expr))
			return 1;
		snprintf(msg, sizeof(msg), "the kernel's BTF has no argument types of %s", name);
		return bad(what, expr, msg);
	}
	arg = find_arg(b, proto, skip, base, &id);
	if (arg < 0) {
		if (!btfpath_is_path(expr))
			return 1;
		arg_names(b, proto, skip, names, sizeof(names));
		snprintf(msg, sizeof(msg), "no argument '%s' (its arguments: %s)", base, names);
		return bad(what, expr, msg);
	}
	if (arg >= ARGS_MAX) {
		snprintf(msg, sizeof(msg), "argument %d of %d: only the first %d are read", arg + 1,
			 btf_vlen(proto) - skip, ARGS_MAX);
		return bad(what, expr, msg);
	}
	p->arg = arg;
	if (cast) {
		/* the argument's value is the address of the struct cast to */
		if (strncmp(s, "->", 2))
			return bad(what, expr, "expected (struct NAME *)ARGUMENT->member");
		snprintf(rest, sizeof(rest), ".%s", s + 2);
		return walk(b, cast, true, rest, p, t, whole_arg, what, expr);
	}
	return walk(b, id, false, s, p, t, whole_arg, what, expr);
}

bool btfpath_is_arg(enum btf_args_of of, const char *name, const char *expr)
{
	const char *full = expr;
	const struct btf *b = kernel_btf();
	const struct btf_type *proto;
	char base[64];
	int n = strspn(expr, IDENT), skip;
	__u32 id;

	if (b && *expr == '(' && strchr(expr, ')') && strchr(expr, '*') &&
	    strchr(expr, '*') < strchr(expr, ')')) {
		/* a cast to a pointer: what follows it */
		expr = strchr(expr, ')') + 1;
		n = strspn(expr, IDENT);
	}
	if (!b || !n || n >= (int)sizeof(base))
		return false;
	snprintf(base, sizeof(base), "%.*s", n, expr);
	b = args_btf(of, name, full, &proto, &skip);
	return proto && find_arg(b, proto, skip, base, &id) >= 0;
}

/* A type by its C name: "struct task_struct", "union x", "enum y", or a
 * typedef's or number's name ("u64", "unsigned long"); 0 if none. */
static __u32 type_by_name(const struct btf *b, const char *name)
{
	static const struct { const char *prefix; int kind; } tagged[] = {
		{ "struct ", BTF_KIND_STRUCT }, { "union ", BTF_KIND_UNION }, { "enum ", BTF_KIND_ENUM },
	};
	int id;

	for (size_t i = 0; i < sizeof(tagged) / sizeof(tagged[0]); i++)
		if (!strncmp(name, tagged[i].prefix, strlen(tagged[i].prefix))) {
			id = btf__find_by_name_kind(b, name + strlen(tagged[i].prefix), tagged[i].kind);
			return id > 0 ? id : 0;
		}
	/* C's spellings of the numbers, as BTF (DWARF) names them */
	static const char *const ints[][2] = {
		{ "unsigned long", "long unsigned int" }, { "long", "long int" },
		{ "unsigned", "unsigned int" }, { "unsigned long long", "long long unsigned int" },
		{ "long long", "long long int" }, { "short", "short int" },
		{ "unsigned short", "short unsigned int" }, { "unsigned char", "unsigned char" },
	};

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (!strcmp(name, ints[i][0]))
			name = ints[i][1];
	id = btf__find_by_name_kind(b, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		id = btf__find_by_name_kind(b, name, BTF_KIND_INT);
	return id > 0 ? id : 0;
}

static int kallsyms_bad(const char *what, const char *expr, const char *name, int err)
{
	char msg[256];

	if (err == -ENODATA)
		snprintf(msg, sizeof(msg), "a kernel variable is read at its address in /proc/kallsyms, "
			 "which lists none on this kernel (CONFIG_KALLSYMS_ALL)");
	else if (err == -EPERM)
		snprintf(msg, sizeof(msg), "/proc/kallsyms hides addresses (kernel.kptr_restrict)");
	else
		snprintf(msg, sizeof(msg), "no variable '%s' in /proc/kallsyms: %s", name,
			 strerror(-err));
	return bad(what, expr, msg);
}

int btfpath_global(const char *what, const char *expr, struct kpath *p, struct kpath_type *t)
{
	const char *s = expr, *close;
	char name[64], tname[96], msg[256];
	const struct btf *b;
	const char *syms[4] = { NULL, "__per_cpu_start", "__per_cpu_end", "__per_cpu_offset" };
	uint64_t addr, a[4];
	bool whole, percpu, got[4];
	__u32 id = 0;
	int n, vid, err, cpu = -1;

	memset(p, 0, sizeof(*p));
	memset(t, 0, sizeof(*t));
	b = kernel_btf();
	if (!b)
		return -ENOENT;
	if (*s == '(') {
		close = strchr(s, ')');
		if (!close || close - s - 1 >= (int)sizeof(tname))
			return bad(what, expr, "expected (TYPE)NAME");
		snprintf(tname, sizeof(tname), "%.*s", (int)(close - s - 1), s + 1);
		id = type_by_name(b, tname);
		if (!id) {
			snprintf(msg, sizeof(msg), "no type '%s' in the kernel's BTF", tname);
			return bad(what, expr, msg);
		}
		s = close + 1;
	}
	n = strspn(s, IDENT);
	if (!n || n >= (int)sizeof(name))
		return id ? bad(what, expr, "expected (TYPE)NAME") : 1;
	snprintf(name, sizeof(name), "%.*s", n, s);
	s += n;
	if (*s == '@') {
		char *end;

		cpu = (int)strtol(s + 1, &end, 10);
		if (end == s + 1 || cpu < 0)
			return bad(what, expr, "expected NAME@CPU");
		s = end;
	}
	vid = btf__find_by_name_kind(b, name, BTF_KIND_VAR);
	if (vid > 0 && !id)
		id = btf__type_by_id(b, vid)->type;
	/* one pass over /proc/kallsyms: the variable, and where the kernel's
	 * per-CPU section lies (Debian 11's BTF has no variables at all, so BTF
	 * cannot say which are per-CPU) and the offsets of its copies */
	syms[0] = name;
	err = ksyms_data_addrs("/proc/kallsyms", syms, a, got, 4);
	if ((err == -ENODATA || (err == -ENOENT && !got[0])) && vid <= 0 && !id)
		return 1;		/* not known as a kernel variable: the caller says so */
	if (err)
		return kallsyms_bad(what, expr, !got[0] ? name : !got[3] ? "__per_cpu_offset" :
				    !got[2] ? "__per_cpu_end" : "__per_cpu_start", err);
	addr = a[0];
	percpu = addr >= a[1] && addr < a[2];
	if (!id) {
		snprintf(msg, sizeof(msg), "'%s' has no type in the kernel's BTF (which types only "
			 "per-CPU variables, as pahole writes it by default): give it in front, "
			 "'(TYPE)%s', e.g. (unsigned long) or (struct NAME)", name, expr);
		return bad(what, expr, msg);
	}
	if (cpu >= 0 && !percpu) {
		snprintf(msg, sizeof(msg), "'%s' is not a per-CPU variable: no @CPU", name);
		return bad(what, expr, msg);
	}
	p->addr = addr;
	p->base = KPATH_GLOBAL;
	if (percpu) {
		p->base = KPATH_PERCPU;
		p->pcpu = a[3];
		p->cpu = cpu;
	}
	return walk(b, id, true, s, p, t, &whole, what, expr);
}

/* A|B|C: the first alternative the running kernel's types resolve (a
 * member that moved between kernel versions); the last one's error when
 * none does. */
int btfpath_resolve(enum btf_args_of of, const char *name, const char *what, const char *expr,
		    struct kpath *p, struct kpath_type *t, bool *whole_arg)
{
	const char *bar;
	char alt[256];
	int err;

	while ((bar = strchr(expr, '|'))) {
		if ((size_t)(bar - expr) >= sizeof(alt))
			return bad(what, expr, "alternative too long");
		snprintf(alt, sizeof(alt), "%.*s", (int)(bar - expr), expr);
		quiet = true;
		err = resolve_one(of, name, what, alt, p, t, whole_arg);
		quiet = false;
		if (!err)
			return 0;
		expr = bar + 1;
	}
	return resolve_one(of, name, what, expr, p, t, whole_arg);
}

enum m_fmt btfpath_fmt(const struct kpath_type *t)
{
	return t->show == KSHOW_HEX ? FMT_HEX : t->show == KSHOW_SIGNED ? FMT_SIGNED : FMT_AUTO;
}

const char *btfpath_enum_name(int enum_id, long long v)
{
	const struct btf *b = kernel_btf();
	const struct btf_type *t = b ? btf__type_by_id(b, enum_id) : NULL;

	if (t && btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		for (int i = 0; i < btf_vlen(t); i++)
			if (e[i].val == (__s32)v)
				return btf__name_by_offset(b, e[i].name_off);
	} else if (t && btf_is_enum64(t)) {
		const struct btf_enum64 *e = btf_enum64(t);

		for (int i = 0; i < btf_vlen(t); i++)
			if (btf_enum64_value(&e[i]) == (__u64)v)
				return btf__name_by_offset(b, e[i].name_off);
	}
	return NULL;
}

const char *btfpath_enum_value_name(const char *enum_name, long long v)
{
	const struct btf *b = kernel_btf();
	int id = b ? btf__find_by_name_kind(b, enum_name, BTF_KIND_ENUM) : -1;

	if (id <= 0 && b)
		id = btf__find_by_name_kind(b, enum_name, BTF_KIND_ENUM64);
	return id > 0 ? btfpath_enum_name(id, v) : NULL;
}
