// SPDX-License-Identifier: GPL-2.0
/* ELF symbol loading (symbols, build-id, debuglink, segments) of arbitrary
 * files, written to a temporary file and loaded through the public
 * functions of syms.h. */
#include "fuzz.h"
#include "syms/syms.h"

struct walk {
	const struct elf_syms *es;
	size_t calls;
};

/* Every symbol can be found again by its address and by its name, and its
 * uprobe offset is the one the segments give. */
static int check_sym(const struct elf_sym *sym, void *ctx)
{
	struct walk *w = ctx;
	const struct elf_sym *at = elf_syms_find(w->es, sym->addr);
	uint64_t off, vaddr;

	FUZZ_ASSERT(sym->name && sym->name[0] && !strchr(sym->name, '@'));
	FUZZ_ASSERT(at && at->addr == sym->addr);
	FUZZ_ASSERT(elf_syms_find_name(w->es, sym->name));
	if (!elf_syms_vaddr_to_offset(w->es, sym->addr, &off)) {
		FUZZ_ASSERT(off == sym->offset);
		FUZZ_ASSERT(!elf_syms_offset_to_vaddr(w->es, off, &vaddr));
	}
	w->calls++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct elf_syms *es = elf_syms_load(path);
	if (es) {
		struct walk w = { .es = es };

		FUZZ_ASSERT(!strcmp(elf_syms_path(es), path));
		FUZZ_ASSERT(elf_syms_match(es, "*", check_sym, &w) == (int)w.calls);
		FUZZ_ASSERT(w.calls <= elf_syms_count(es));
		elf_syms_free(es);
	}
	return 0;
}
