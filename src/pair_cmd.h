/* SPDX-License-Identifier: GPL-2.0 */
/* The pair engine as other commands (recipes) use it. */
#ifndef KDIST_PAIR_CMD_H
#define KDIST_PAIR_CMD_H

struct session;
struct measurement;

struct pair_spec {
	const char *start;
	const char *end;
	const char *key;	/* NULL: same thread */
	const char *by;		/* NULL: one group */
	const char *title;	/* NULL: START -> END */
};

int pair_prepare_spec(struct session *s, const struct pair_spec *ps);
int pair_attach(struct session *s);
int pair_read(struct session *s, struct measurement *m);
void pair_cleanup(struct session *s);

#endif
