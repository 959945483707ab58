/* SPDX-License-Identifier: GPL-2.0 */
/* The pair engine as other commands (recipes) use it. */
#ifndef KDIST_PAIR_CMD_H
#define KDIST_PAIR_CMD_H

#include <stdbool.h>
#include "cmd/command.h"

struct session;
struct measurement;

struct pair_spec {
	const char *start;
	const char *end;
	const char *key;	/* NULL: same thread */
	const char *by;		/* NULL: one group */
	const char *title;	/* NULL: START -> END */
	/* knobs recipes use; zero for a plain pair */
	bool single;		/* START only: record `value` per event (NULL: 0, a count) */
	const char *value;	/* a START field */
	const char *value_unit;
	const char *cond;	/* --if: keep pairs whose terms hold (cond.h) */
	const char *end_by;	/* one more grouping component, read at END */
	bool end_by_neg;	/* ... its negative values only (errors), others 0 */
	bool restart;		/* a START while one is pending ends that one */
	bool orphan_ok;		/* ENDs without START are expected, not lost */
	int subject_arg;	/* the START is about the task in raw argument N-1 */
	/* recipes: how the grouping components are shown (NULL: as given),
	 * the END's one, and which sub-measurement this is */
	const char *names[PAIR_MAX_BY];
	const char *end_name;
	const char *measure;
};

int pair_prepare_spec(struct session *s, const struct pair_spec *ps);
int pair_attach(struct session *s);
int pair_read(struct session *s, struct measurement *m);
void pair_cleanup(struct session *s);

#endif
