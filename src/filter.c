// SPDX-License-Identifier: GPL-2.0
#include "filter.h"
#include "container.h"
#include "kdist.h"

#include <string.h>
#include <bpf/libbpf.h>

static const struct cgroup_set *pending;

void task_filter_set(struct task_filter *f, const struct options *o)
{
	f->tgid = o->pid;
	f->tid = o->tid;
	f->cgroup = o->cgroup_id;
	f->cgroup_set = o->cgset != NULL;
	f->comm_on = o->comm[0] != '\0';
	memcpy(f->comm, o->comm, sizeof(f->comm));
	pending = o->cgset;
}

int task_filter_load(struct bpf_object *obj)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "cgroup_set");

	if (!map || !pending)
		return 0;
	return bpf_map__reuse_fd(map, cgroup_set_fd(pending));
}
