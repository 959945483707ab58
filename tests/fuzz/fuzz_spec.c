// SPDX-License-Identifier: GPL-2.0
/* The event-spec, --key, --by and --if parsers on arbitrary strings. */
#include "kernel/cond.h"
#include "fuzz.h"
#include "kernel/spec.h"

#include <string.h>

/* Every successful parse leaves fields the attach code can use as is. */
static void check_event(const char *s)
{
	struct event_spec e;

	if (event_spec_parse(s, &e))
		return;
	FUZZ_ASSERT(!strcmp(e.text, s));
	FUZZ_ASSERT(e.name[0]);
	FUZZ_ASSERT(!strchr(e.name, ':'));
	if (e.kind == EV_TRACEPOINT) {
		char back[sizeof(e.category) + sizeof(e.name) + 1];
		size_t bl, tl = strlen(e.text);

		/* the spec reads back from its parts, after any "t:" prefix */
		FUZZ_ASSERT(e.category[0] && !strchr(e.category, ':'));
		bl = (size_t)snprintf(back, sizeof(back), "%s:%s", e.category, e.name);
		FUZZ_ASSERT(bl <= tl && !strcmp(e.text + tl - bl, back));
	}
	if (e.kind == EV_UPROBE || e.kind == EV_URETPROBE)
		FUZZ_ASSERT(e.path[0]);
	FUZZ_ASSERT(ev_kind_name(e.kind) != NULL);
}

static void check_key(const char *s)
{
	struct key_spec k;

	if (key_spec_parse(s, &k))
		return;
	FUZZ_ASSERT(k.n >= 1 && k.n <= SPEC_MAX_KEYS);
	for (int i = 0; i < k.n; i++)
		FUZZ_ASSERT(k.start[i][0] && k.end[i][0]);
}

static void check_names(const char *s)
{
	char names[8][64];
	int n = name_list_parse(s, names, 8, "--by");

	FUZZ_ASSERT(n <= 8);
	for (int i = 0; i < n; i++)
		FUZZ_ASSERT(names[i][0] && !strchr(names[i], ','));
}

/* Every term parsed names a field and an operator; texts fit their slot. */
static void check_cond(const char *s)
{
	struct cond_list c = { 0 };

	if (cond_parse(s, &c))
		return;
	FUZZ_ASSERT(c.n >= 1 && c.n <= COND_MAX);
	for (int i = 0; i < c.n; i++) {
		FUZZ_ASSERT(c.t[i].field[0] && c.t[i].op != COND_NONE);
		FUZZ_ASSERT(strlen(c.t[i].str) < COND_STR_LEN);
		FUZZ_ASSERT(!c.t[i].is_str ||
			    (c.t[i].op != COND_MASK_SET && c.t[i].op != COND_MASK_ZERO));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);

	check_event(s);
	check_key(s);
	check_names(s);
	check_cond(s);
	free(s);
	return 0;
}
