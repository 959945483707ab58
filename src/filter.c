// SPDX-License-Identifier: GPL-2.0
#include "filter.h"
#include "kdist.h"

#include <string.h>

void task_filter_set(struct task_filter *f, const struct options *o)
{
	f->tgid = o->pid;
	f->tid = o->tid;
	f->cgroup = o->cgroup_id;
	f->comm_on = o->comm[0] != '\0';
	memcpy(f->comm, o->comm, sizeof(f->comm));
}
