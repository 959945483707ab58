// SPDX-License-Identifier: GPL-2.0
/* pair's hint at the end of a run: a --key that matched almost nothing. */
#include "cmd/pair/pair_int.h"
#include "kernel/tracefs.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

/* Names of the fields tracepoints a and b both have, ", "-separated, into
 * buf; "" when either is not a tracepoint. */
static void shared_fields(const char *a, const char *b, char *buf, size_t size)
{
	struct tp_format *f = calloc(2, sizeof(*f));
	const char *spec[2] = { a, b };
	size_t len = 0;

	buf[0] = 0;
	if (!f)
		return;
	for (int i = 0; i < 2; i++) {
		char cat[64];
		const char *colon = strchr(spec[i], ':');

		if (!colon || (size_t)(colon - spec[i]) >= sizeof(cat))
			goto out;
		snprintf(cat, sizeof(cat), "%.*s", (int)(colon - spec[i]), spec[i]);
		if (tp_format_load(cat, colon + 1, &f[i]))
			goto out;
	}
	for (int i = 0; i < f[0].nfields && len + 1 < size; i++) {
		const char *name = f[0].fields[i].name;

		/* common_* and __syscall_nr: the same in every event */
		if (strncmp(name, "common_", 7) && strncmp(name, "__", 2) &&
		    tp_format_field(&f[1], name))
			len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "", name);
	}
out:
	free(f);
}

/* pair: when almost every END found no START, or almost every START was
 * replaced by the next one of its key before an END came, the key is the
 * likely mistake; say so once, with the fields a --key could name.  The
 * second is what a workload (-c, --) sees when its ENDs run in another
 * task, an interrupt's or a worker's: those are not the workload's, so
 * they are not counted at all, and its STARTs only replace each other. */
void pair_key_hint(struct session *s, const struct measurement *m)
{
	const char *key = s->opt->key;
	uint64_t orphans = 0, replaced = 0, matched = 0, missed;
	const char *start = NULL, *end = NULL;
	char fields[256], what[128];

	for (int i = 0; i < m->ndrops; i++) {
		if (!strcmp(m->drops[i].name, "end_without_start"))
			orphans = m->drops[i].value;
		else if (!strcmp(m->drops[i].name, "start_replaced"))
			replaced = m->drops[i].value;
	}
	for (int i = 0; i < m->ngroups; i++)
		matched += m->groups[i].h.count;
	for (int i = 0; i < m->nevents; i++) {
		if (!strcmp(m->events[i].role, "start"))
			start = m->events[i].spec;
		else if (!strcmp(m->events[i].role, "end"))
			end = m->events[i].spec;
	}
	missed = orphans > replaced ? orphans : replaced;
	if (!start || !end || missed < 20 || matched * 10 > missed)
		return;
	if (orphans >= replaced)
		snprintf(what, sizeof(what), "%llu ENDs found no START, %llu did",
			 (unsigned long long)orphans, (unsigned long long)matched);
	else
		snprintf(what, sizeof(what), "%llu STARTs were replaced by the next before an END came, %llu found one",
			 (unsigned long long)replaced, (unsigned long long)matched);
	shared_fields(start, end, fields, sizeof(fields));
	kd_err("hint: %s, matched by %s: %s%s%s", what, key && *key ? key : "tid",
	       fields[0] ? "try --key with a field both events have: " :
			   "the events share no field: try --key START_FIELD=END_FIELD",
	       fields, fields[0] ? " (or START_FIELD=END_FIELD)" : "");
}
