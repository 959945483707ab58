/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --explain's programs and sums in user space, for every command that
 * splits intervals (pair, func): which programs of an object are the
 * state machine's (explain.bpf.h), attaching them, and reading the sums
 * the kernel keeps per group and latency row into a measurement's groups.
 */
#ifndef KDIST_KERNEL_EXPLAIN_BPF_H
#define KDIST_KERNEL_EXPLAIN_BPF_H

#include <stdbool.h>
#include <stddef.h>

struct bpf_program;
struct bpf_object;
struct engine;
struct measurement;
struct m_group;

/* prog is one of the state machine's programs needed in mode (EXPLAIN_*,
 * model/explain.h; EXPLAIN_OFF: none is). */
bool explain_prog(const struct bpf_program *prog, int mode);
/* Attach the programs of obj that mode needs, their links kept by e, and
 * say so in the measurement header.  The scheduler's tracepoints are
 * needed; without the irq ones, irq time stays in on-CPU and
 * header->explain_irq is false (views show it as n/a).  0 or -errno. */
int explain_attach(struct engine *e, struct bpf_object *obj, int mode,
		   struct measurement *header);
/* The sums of explain_groups (map fd, keys of key_size bytes whose row, an
 * unsigned int, is at row_off) added to the groups of m that group_of()
 * finds for a key's group (*g NULL: none yet, the key is passed over).
 * 0 or -ENOMEM. */
int explain_read(struct engine *e, int fd, size_t key_size, size_t row_off,
		 struct measurement *m,
		 int (*group_of)(void *ctx, struct measurement *m, const void *key,
				 struct m_group **g),
		 void *ctx);

#endif
