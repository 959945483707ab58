/* SPDX-License-Identifier: GPL-2.0 */
/* kdist diff's parts (diff.c, the command): the measurements compared and
 * their matching and statistics (compare.c), the views of a comparison
 * (views.c), folded stacks compared (folded.c). */
#ifndef KDIST_DIFF_H
#define KDIST_DIFF_H

#include "model/diffstat.h"
#include "model/measure.h"
#include "model/options.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* The statistics compared, in the order every view prints them. */
enum { S_COUNT, S_TOTAL, S_SELF, S_MEAN, S_P50, S_P90, S_P99, S_P999, NR_STATS };
extern const char *const stat_names[NR_STATS];
extern const char *const stat_titles[NR_STATS];
extern const double stat_q[NR_STATS];

struct dgroup {
	char *key;		/* the group's identity: values where given, else labels */
	char *label;		/* labels joined by spaces, as the text view shows them */
	const struct m_group *mg;	/* in its measurement */
	struct m_hist h;	/* mg's (its buckets are the measurement's) */
	double total, self;	/* func: inclusive and exclusive time */
};

struct dmeas {
	const char *path;
	struct measurement m;	/* its documents summed */
	char *command, *kind, *unit, *kernel, *key, *by;
	double duration;
	int intervals;		/* documents summed */
	uint64_t lost;		/* events its loss counters say it misses */
	struct dgroup *g;
	int n;
};

/* The comparison of one group present in both. */
struct drow {
	struct dgroup *a, *b;
	double v[2][NR_STATS];	/* BASE, NEW */
	bool sig[NR_STATS];	/* a significant change of this statistic */
	struct mw_test t;
	bool tested;
	double count_z, count_p;
	int verdict;		/* +1 slower (larger), -1 faster (smaller), 0 none */
};

struct rule {
	int stat;
	bool up;		/* '>' : an increase of more than pct */
	double pct;
	const char *text;
	bool failed;
	int nbroke;		/* groups that broke it */
	const struct drow *first;	/* the one with the largest change */
};

struct diff {
	struct dmeas m[2];
	struct drow *rows;
	int nrows;
	struct dgroup **only[2];	/* gone (BASE only), new (NEW only) */
	int nonly[2];
	bool rates;		/* durations differ: counts compared per second */
	double alpha, min_change;
	struct rule rules[8];
	int nrules;
	bool failed;
};


/* compare.c */
/* text is changed in place (model/reader.h). */
int diff_read_meas(struct dmeas *m, const char *path, char *text, size_t len, int pick);
void diff_free_meas(struct dmeas *m);
int diff_check_match(struct diff *d);
int diff_compare(struct diff *d);
int diff_parse_rules(struct diff *d, char *spec);
/* total and self are func's alone */
bool diff_shown(const struct diff *d, int s);
double diff_pct(double a, double b);
/* The mean or a percentile of a group present on one side only. */
double diff_g_stat(const struct dgroup *g, int s);

/* views.c */
void diff_write_text(FILE *f, const struct diff *d);
int diff_write_json(FILE *f, const struct diff *d);
int diff_write_html(FILE *f, const struct diff *d);
void diff_write_csv(FILE *f, const struct diff *d);
void diff_write_markdown(FILE *f, const struct diff *d);

/* folded.c */
/* A file of folded stacks, not JSON: its first character is not '{'. */
bool diff_is_folded(const char *text, size_t len);
/* BASE and NEW as folded stacks: the stacks that changed most, or a
 * differential flame graph (-o svg). */
int diff_folded(struct options *o, char *const text[2], const size_t len[2], FILE *out);

#endif
