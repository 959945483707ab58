/* SPDX-License-Identifier: GPL-2.0 */
/* What serve.c and config.c share: a served measurement, and the parsing
 * of specs and of the configuration into a list of them. */
#ifndef KDIST_SERVE_INT_H
#define KDIST_SERVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "cmd/command.h"
#include "cmd/session.h"
#include "view/prom.h"

/* --retire-after: a label set without events for 10 minutes goes (twice
 * Prometheus' 5-minute staleness: a series still drawn is never cut) */
#define DEFAULT_RETIRE_S 600

struct served {
	struct served *next;
	char name[64];
	char *text;		/* the spec as given: a reload keeps it when equal */
	char *words;		/* argv's strings */
	char **argv;
	int argc;
	struct options o;
	struct session s;
	struct prom_buckets b;
	bool own_buckets;	/* buckets=LIST: given */
	const char *path;	/* the --config file it is a line of, or NULL */
	int line;
	char *context;		/* "FILE:LINE: measurement 'NAME'": its messages' prefix */
	bool started;		/* by the reload under way */
};

/* Free every measurement of list l, stopping those that run. */
void serve_list_free(struct served *l);
/* One measurement spec, parsed and checked, nothing loaded (config.c). */
int serve_served_parse(const struct options *top, const char *text, const char *path,
		       int nr, struct served **out);
/* The configuration file path read into *conf (config.c). */
int serve_config_read(const char *path, char **conf, size_t *len);
/* The measurements of config text conf after *tail (config.c). */
int serve_config_parse(char *conf, size_t len, const char *path, const struct options *top,
		       struct served ***tail);
/* -EINVAL after one line when two measurements of l share a name. */
int serve_names_unique(struct served *l);

#endif
