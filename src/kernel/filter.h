/* SPDX-License-Identifier: GPL-2.0 */
/* Which tasks a command traces: -p, --tid, --comm, --cgroup (or the
 * workload's cgroup).  Embedded in every BPF program's rodata config;
 * filter.bpf.h checks it, task_filter_set() fills it. */
#ifndef KDIST_FILTER_H
#define KDIST_FILTER_H

#define TASK_COMM_LEN_ 16

/* The live cgroup set of --cgroup (container.c): a hash of cgroup ids that
 * user space keeps, one map shared by the objects of a session. */
#define CGROUP_SET_MAX 16384
/* task_filter.cgroup with a set and no workload: one field says whether
 * to read the task's cgroup at all, so that a run without a cgroup filter
 * loads no more rodata than before */
#define CGROUP_ANY (~0ULL)

struct task_filter {
	unsigned int tgid;
	unsigned int tid;
	unsigned long long cgroup;	/* the workload's cgroup id, or CGROUP_ANY */
	unsigned char cgroup_set;	/* the task's cgroup is in the map cgroup_set */
	unsigned char comm_on;
	char comm[TASK_COMM_LEN_];
};

#ifndef __BPF__
struct options;

struct bpf_object;
struct engine;

void task_filter_set(struct task_filter *f, const struct options *o);
/* Before an object is loaded (engine_load): its cgroup_set map becomes the
 * set of the options last given to task_filter_set(), when they have one
 * (a session's objects are configured, then loaded), else a map of one
 * entry.  0 or -errno. */
int task_filter_load(struct bpf_object *obj);
/* After: the program that adds new cgroups below members of the set, when
 * loaded.  0 or -errno, said. */
int task_filter_attach(struct engine *e);
#endif

#endif
