// SPDX-License-Identifier: GPL-2.0
/* Group key values as they come from the kernel, made into the values
 * groups are keyed by (--by FIELD:FORMAT): an address to its function, a
 * cgroup id to its container's name, a request's flags to its operation.
 * What they need of the machine (kallsyms, the cgroup tree, the kernel's
 * BTF) is here; views print the values (view/format.c). */
#include "kernel/keys.h"
#include "kernel/container.h"
#include "kernel/btfpath.h"
#include "syms/ksyms.h"
#include "lib/util.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

int key_prepare(enum m_fmt f)
{
	if (f == FMT_KSYM && !ksyms_kernel()) {
		kd_err("failed to read /proc/kallsyms");
		return -ENOENT;
	}
	/* names of cgroups that go before the read are taken when they come */
	if (f >= FMT_CONTAINER && f <= FMT_UNIT)
		return cgroups_watch();
	return 0;
}

/* rwbs ("WS", "FWFS", "RA", "D"...): the operation, flags aside. */
static const char *rwbs_op(const char *s)
{
	if (s[0] == 'F' && s[1])
		s++;	/* preflush, then the operation */
	switch (s[0]) {
	case 'R': return "read";
	case 'W': return "write";
	case 'D': return "discard";
	case 'E': return "secure-erase";
	case 'F': return "flush";
	default: return "other";
	}
}

/* A request's operation (cmd_flags & REQ_OP_MASK, enum req_op or req_opf
 * of the kernel's BTF) by the names rwbs_op gives the same request's rwbs. */
static const char *reqop_name(uint64_t flags)
{
	static const struct { const char *op, *name; } ops[] = {
		{ "REQ_OP_READ", "read" }, { "REQ_OP_WRITE", "write" },
		{ "REQ_OP_WRITE_ZEROES", "write" }, { "REQ_OP_DISCARD", "discard" },
		{ "REQ_OP_SECURE_ERASE", "discard" }, { "REQ_OP_FLUSH", "flush" },
	};
	/* enum req_op since Linux 6.0, enum req_opf before */
	const char *op = btfpath_enum_value_name("req_op", flags & 0xff) ?:
			 btfpath_enum_value_name("req_opf", flags & 0xff);

	for (size_t i = 0; op && i < ARRAY_SIZE(ops); i++)
		if (!strcmp(op, ops[i].op))
			return ops[i].name;
	return "other";
}

struct m_value key_normalize(struct m_value v, enum m_fmt f)
{
	const struct ksym *s;

	switch (f) {
	case FMT_KSYM:
		/* addresses inside one function are one group; the padding
		 * before a function (__pfx_NAME) is that function */
		s = v.type == MV_NUM && ksyms_kernel() ? ksyms_find(ksyms_kernel(), v.num) : NULL;
		if (s && !strncmp(s->name, "__pfx_", 6) && ksyms_find_name(ksyms_kernel(), s->name + 6))
			s = ksyms_find_name(ksyms_kernel(), s->name + 6);
		if (s)
			v.num = s->addr;
		break;
	case FMT_RW:
		if (v.type == MV_TEXT) {
			const char *op = m_intern(rwbs_op(v.text), 16);

			if (op)
				v.text = op;
		} else if (v.type == MV_NUM) {
			v.num = !!v.num;
		}
		break;
	case FMT_ERRNO:
		if (v.type == MV_NUM && (int64_t)v.num >= 0)
			v.num = 0;
		break;
	case FMT_REQOP:
		if (v.type == MV_NUM)
			v = mv_text(m_intern(reqop_name(v.num), 16));
		break;
	case FMT_BE16:
		if (v.type == MV_NUM)
			v.num = be16toh((uint16_t)v.num);
		break;
	case FMT_BE32:
		if (v.type == MV_NUM)
			v.num = be32toh((uint32_t)v.num);
		break;
	case FMT_CONTAINER:
	case FMT_POD:
	case FMT_NAMESPACE:
	case FMT_UNIT:
		if (v.type == MV_NUM) {
			const char *label = cgroup_label(v.num, CG_CONTAINER + (f - FMT_CONTAINER));

			if (label)
				v = mv_text(label);
		}
		break;
	default:
		break;
	}
	return v;
}
