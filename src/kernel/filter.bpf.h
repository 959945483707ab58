/* SPDX-License-Identifier: GPL-2.0 */
/* The task filter on the BPF side.  The config is rodata, so the verifier
 * drops the checks for filters not given. */
#ifndef KDIST_FILTER_BPF_H
#define KDIST_FILTER_BPF_H

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "kernel/filter.h"
#include "kernel/owncost.bpf.h"

/* The ids of the cgroups --cgroup selects, kept by user space as cgroups
 * come and go (container.c).  Looked up only when the filter is on: the
 * rodata flag removes the lookup from every other program.  Preallocated:
 * tracing programs take no other hash before 6.1; one entry when unused. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CGROUP_SET_MAX);
	__type(key, __u64);
	__type(value, __u8);
} cgroup_set SEC(".maps");

/* A cgroup made below a member of the set joins it before mkdir returns,
 * so a container started under a traced slice is traced from its first
 * event; user space's watcher, woken later, adds only what a glob matches
 * anew.  Loaded for sets without --if terms on containers (those judge
 * each cgroup's own name, in user space). */
SEC("tp_btf/cgroup_mkdir")
int KD_PROG(cgroup_set_mkdir, struct cgroup *cgrp, const char *path)
{
	__u64 parent = BPF_CORE_READ(cgrp, self.parent, cgroup, kn, id);
	__u64 id = BPF_CORE_READ(cgrp, kn, id);
	__u8 one = 1;

	if (bpf_map_lookup_elem(&cgroup_set, &parent))
		bpf_map_update_elem(&cgroup_set, &id, &one, BPF_ANY);
	return 0;
}

/* True when task t (NULL: the current task) is not traced.  cur, when not
 * NULL, is the current task as a BTF pointer (bpf_get_current_task_btf),
 * read with plain loads instead of a helper call per field. */
static __always_inline bool task_filtered_out_cur(const volatile struct task_filter *f,
						  struct task_struct *t, struct task_struct *cur)
{
	__u64 id;

	if (f->tgid || f->tid) {
		if (t)
			id = (__u64)BPF_CORE_READ(t, tgid) << 32 | (__u32)BPF_CORE_READ(t, pid);
		else if (cur)
			id = (__u64)cur->tgid << 32 | (__u32)cur->pid;
		else
			id = bpf_get_current_pid_tgid();
		if (f->tgid && id >> 32 != f->tgid)
			return true;
		if (f->tid && (__u32)id != f->tid)
			return true;
	}
	if (f->cgroup) {
		id = t ? BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id) : bpf_get_current_cgroup_id();
		if (f->cgroup != CGROUP_ANY && id != f->cgroup)
			return true;
		if (f->cgroup_set && !bpf_map_lookup_elem(&cgroup_set, &id))
			return true;
	}
	if (f->comm_on) {
		char comm[TASK_COMM_LEN_];

		if (t)
			BPF_CORE_READ_STR_INTO(&comm, t, comm);
		else
			bpf_get_current_comm(comm, sizeof(comm));
		for (int i = 0; i < TASK_COMM_LEN_; i++) {
			if (comm[i] != f->comm[i])
				return true;
			if (!comm[i])
				break;
		}
	}
	return false;
}

static __always_inline bool task_filtered_out(const volatile struct task_filter *f,
					      struct task_struct *t)
{
	return task_filtered_out_cur(f, t, NULL);
}

#endif
