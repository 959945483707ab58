// SPDX-License-Identifier: GPL-2.0
/* The kallsyms parser (ksyms_load_file) on arbitrary text. */
#include "fuzz.h"
#include "syms/syms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksyms *ks = ksyms_load_file(fuzz_file(data, size));
	const struct ksym *s, *prev = NULL;

	if (!ks)
		return 0;
	/* address order; each symbol found again by its address and name */
	for (size_t i = 0; (s = ksyms_at(ks, i)); i++, prev = s) {
		const struct ksym *at = ksyms_find(ks, s->addr);

		FUZZ_ASSERT(s->name && s->name[0]);
		FUZZ_ASSERT(!prev || prev->addr <= s->addr);
		FUZZ_ASSERT(at && at->addr == s->addr);
		FUZZ_ASSERT(ksyms_find_name(ks, s->name));
	}
	FUZZ_ASSERT(!ksyms_at(ks, ksyms_count(ks)));
	ksyms_free(ks);
	return 0;
}
