// SPDX-License-Identifier: GPL-2.0
/* kdist list [GLOB]: tracepoints and their fields. */
#include "kernel/tracefs.h"
#include "lib/util.h"
#include "cmd/command.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* CATEGORY:NAME of every event, sorted. */
static int list_events(const char *root, char ***out, int *n)
{
	char path[512], **v = NULL;
	struct dirent *c, *e;
	DIR *cats, *evs;
	int cap = 0;

	*n = 0;
	snprintf(path, sizeof(path), "%s/events", root);
	cats = opendir(path);
	if (!cats)
		return -errno;
	while ((c = readdir(cats))) {
		if (c->d_name[0] == '.' || c->d_type != DT_DIR)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", root, c->d_name);
		evs = opendir(path);
		if (!evs)
			continue;
		while ((e = readdir(evs))) {
			if (e->d_name[0] == '.' || e->d_type != DT_DIR)
				continue;
			if (*n == cap) {
				cap = cap ? cap * 2 : 1024;
				v = realloc(v, cap * sizeof(*v));
				if (!v)
					return -ENOMEM;
			}
			if (asprintf(&v[(*n)++], "%s:%s", c->d_name, e->d_name) < 0)
				return -ENOMEM;
		}
		closedir(evs);
	}
	closedir(cats);
	qsort(v, *n, sizeof(*v), name_cmp);
	*out = v;
	return 0;
}

static int list_run(struct options *o)
{
	const char *root = tracefs_root(), *glob = o->nargs ? o->args[0] : "*";
	char **names = NULL;
	int n, err, shown = 0;
	bool fields = o->nargs > 0;

	if (o->nargs > 1) {
		kd_err("bad arguments: expected at most one GLOB");
		return -EINVAL;
	}
	if (!root)
		return -ENODEV;
	err = list_events(root, &names, &n);
	if (err) {
		kd_err("failed to list %s/events: %s", root, strerror(-err));
		return err;
	}
	for (int i = 0; i < n; i++) {
		char *colon = strchr(names[i], ':');
		struct tp_format f;

		if (!glob_match(glob, names[i]) && !glob_match(glob, colon + 1))
			continue;
		shown++;
		printf("%s\n", names[i]);
		*colon = '\0';
		if (!fields || tp_format_load(names[i], colon + 1, &f))
			continue;
		for (int j = 0; j < f.nfields; j++) {
			const struct tp_field *fl = &f.fields[j];

			if (!strncmp(fl->name, "common_", 7))
				continue;
			printf("    %-24s %s%s (%u bytes%s)\n", fl->name, fl->type,
			       fl->is_array ? "[]" : "", fl->size, fl->is_signed ? ", signed" : "");
		}
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (!shown) {
		kd_err("no tracepoint matches '%s'", glob);
		return -ENOENT;
	}
	return 0;
}

const struct command cmd_list = {
	.name = "list",
	.args = "[GLOB]",
	.summary = "tracepoints; with GLOB also their fields",
	.run = list_run,
};
