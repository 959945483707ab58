/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A path through the kernel's types ("prev->comm", "rq->q->disk->disk_name",
 * "desc->action->irq"), resolved once at load time against the running
 * kernel's BTF (btfpath.c) into what the BPF side (kpath.bpf.h) follows
 * from rodata: the address in argument `arg` (or, for a kernel global,
 * the variable's own address), then for each of `nderef` steps a pointer
 * read at off[i] from it, then the final read at off[nderef].  No code is
 * generated per path.
 */
#ifndef KDIST_KPATH_H
#define KDIST_KPATH_H

/* Pointer reads a path may make before its final read ("a->b->c->d->e"
 * is four: a's b, b's c, c's d, then d's e is the final read). */
#define KPATH_MAX_DEREF 4
/* Paths one pair configuration holds (each --key side, --by, --if term
 * that is a path takes one). */
#define KPATH_MAX 8

enum kpath_final {
	KPATH_NUM,	/* size bytes, sign-extended when is_signed */
	KPATH_STR_ARRAY,	/* char name[len]: the text in place */
	KPATH_STR_PTR,	/* char *: the pointer, then the text it points to */
};

/* Where a path starts. */
enum kpath_base {
	KPATH_ARG,	/* at the value of argument `arg` */
	KPATH_GLOBAL,	/* at a kernel variable: addr */
	KPATH_PERCPU,	/* at a per-CPU variable: addr is its link address, its
			 * copy on CPU c is at addr + __per_cpu_offset[c]
			 * (__per_cpu_offset at pcpu), c = `cpu`, or the CPU
			 * the event runs on when cpu is -1 */
};

struct kpath {
	unsigned char arg;	/* the argument the path starts from */
	unsigned char nderef;
	unsigned char final;	/* enum kpath_final */
	unsigned char size;
	unsigned char is_signed;
	unsigned char base;	/* enum kpath_base */
	unsigned short len;	/* KPATH_STR_ARRAY: the array's length */
	unsigned int off[KPATH_MAX_DEREF + 1];
	int cpu;
	unsigned long long addr;
	unsigned long long pcpu;
};

/* Why a path read nothing: counted, never read as zero silently. */
enum kpath_err {
	KPATH_OK,
	KPATH_NULL,	/* a NULL pointer on the way */
	KPATH_FAULT,	/* a read the kernel refused (not mapped) */
};

#endif
