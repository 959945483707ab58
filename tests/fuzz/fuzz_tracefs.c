// SPDX-License-Identifier: GPL-2.0
/* The tracefs format-file parser on arbitrary text. */
#include "fuzz.h"
#include "kernel/tracefs.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct tp_format f;

	memset(&f, 0, sizeof(f));
	if (!tp_format_parse(text, &f)) {
		FUZZ_ASSERT(f.id >= 0);
		FUZZ_ASSERT(f.nfields > 0 && f.nfields <= TP_MAX_FIELDS);
		/* a name found by lookup is the first field of that name */
		for (int i = 0; i < f.nfields; i++) {
			const struct tp_field *fl = tp_format_field(&f, f.fields[i].name);

			/* "TYPE NAME[N]" split into a type and a bare name */
			FUZZ_ASSERT(f.fields[i].name[0] && f.fields[i].type[0]);
			FUZZ_ASSERT(!strpbrk(f.fields[i].name, " []"));
			FUZZ_ASSERT(fl && fl <= &f.fields[i]);
			FUZZ_ASSERT(!strcmp(fl->name, f.fields[i].name));
		}
	}
	free(text);
	return 0;
}
