/* SPDX-License-Identifier: GPL-2.0 */
/* Which tasks a command traces: -p, --tid, --comm, --cgroup (or the
 * workload's cgroup).  Embedded in every BPF program's rodata config;
 * filter.bpf.h checks it, task_filter_set() fills it. */
#ifndef KDIST_FILTER_H
#define KDIST_FILTER_H

#define TASK_COMM_LEN_ 16

struct task_filter {
	unsigned int tgid;
	unsigned int tid;
	unsigned long long cgroup;
	unsigned char comm_on;
	char comm[TASK_COMM_LEN_];
};

#ifndef __BPF__
struct options;

void task_filter_set(struct task_filter *f, const struct options *o);
#endif

#endif
