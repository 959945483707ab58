// SPDX-License-Identifier: GPL-2.0
#include "kernel/tracefs.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static bool has_events(const char *root)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/events", root);
	return access(p, R_OK) == 0;
}

const char *tracefs_root(void)
{
	static const char *root;
	static const char *const candidates[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};

	if (root)
		return root;
	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
		if (has_events(candidates[i]))
			return root = candidates[i];
	}
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		kd_err("failed to mount tracefs at /sys/kernel/tracing: %s%s", strerror(errno),
		       errno == EPERM ? " (run as root)" : "");
		return NULL;
	}
	kd_info("mounted tracefs at /sys/kernel/tracing");
	return root = "/sys/kernel/tracing";
}

/* One line: "\tfield:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:X;" */
static int parse_field(char *line, struct tp_field *fl)
{
	char *decl, *end, *name, *br;
	int depth;

	decl = strstr(line, "field:");
	if (!decl)
		return -EINVAL;
	decl += 6;
	end = strchr(decl, ';');
	if (!end)
		return -EINVAL;
	*end = '\0';
	memset(fl, 0, sizeof(*fl));
	if (sscanf(end + 1, " offset:%u; size:%u;", &fl->offset, &fl->size) != 2)
		return -EINVAL;
	br = strstr(end + 1, "signed:");
	fl->is_signed = br && br[7] == '1';
	/* drop "[N]" wherever it stands: "char comm[16]", "__data_loc char[] cmd";
	 * unbalanced brackets would leave them in the name */
	fl->is_array = strchr(decl, '[') != NULL;
	depth = 0;
	for (char *r = decl, *w = decl;; r++) {
		depth += *r == '[';
		if (!depth)
			*w++ = *r;
		depth -= *r == ']';
		if (depth < 0 || (!*r && depth))
			return -EINVAL;
		if (!*r)
			break;
	}
	decl = str_trim(decl);
	name = strrchr(decl, ' ');
	if (!name)
		return -EINVAL;
	*name++ = '\0';
	snprintf(fl->name, sizeof(fl->name), "%s", name);
	snprintf(fl->type, sizeof(fl->type), "%s", str_trim(decl));
	fl->is_data_loc = strstr(fl->type, "__data_loc") != NULL;
	return 0;
}

int tp_format_parse(const char *text, struct tp_format *f)
{
	char *copy = strdup(text), *line, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	f->nfields = 0;
	f->id = -1;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "name:", 5)) {
			if (!f->name[0])
				snprintf(f->name, sizeof(f->name), "%s", str_trim(line + 5));
		} else if (!strncmp(line, "ID:", 3)) {
			f->id = atoi(line + 3);
		} else if (strstr(line, "field:")) {
			if (f->nfields == TP_MAX_FIELDS)
				continue;
			err = parse_field(line, &f->fields[f->nfields]);
			if (err)
				break;
			f->nfields++;
		}
	}
	free(copy);
	if (!err && (f->id < 0 || !f->nfields))
		err = -EINVAL;
	return err;
}

int tp_format_load(const char *category, const char *name, struct tp_format *f)
{
	const char *root = tracefs_root();
	char path[512], *text;
	int err;

	if (!root)
		return -ENODEV;
	memset(f, 0, sizeof(*f));
	snprintf(f->category, sizeof(f->category), "%s", category);
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, category, name);
	err = read_file(path, &text, NULL);
	if (err)
		return err;
	err = tp_format_parse(text, f);
	free(text);
	return err;
}

const struct tp_field *tp_format_field(const struct tp_format *f, const char *name)
{
	for (int i = 0; i < f->nfields; i++) {
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	}
	return NULL;
}

/* The entry of folder dir nearest to word (nearest_word), into out. */
static bool nearest_entry(const char *dir, const char *word, char *out, size_t len)
{
	DIR *d = opendir(dir);
	const char **names = NULL, *best;
	struct dirent *de;
	size_t n = 0, cap = 0;
	bool found = false;

	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type == DT_REG)
			continue;
		if (n == cap) {
			const char **p = realloc(names, (cap = cap ? 2 * cap : 256) * sizeof(*p));

			if (!p)
				break;
			names = p;
		}
		names[n++] = strdup(de->d_name);
	}
	best = nearest_word(word, names, n);
	if (best) {
		snprintf(out, len, "%s", best);
		found = true;
	}
	for (size_t i = 0; i < n; i++)
		free((char *)names[i]);
	free(names);
	closedir(d);
	return found;
}

void tracefs_unknown_event(const char *text)
{
	const char *root = tracefs_root(), *colon = strchr(text, ':');
	char cat[64], near[128], dir[PATH_MAX], path[PATH_MAX + 128];
	struct stat st;

	if (!root || !colon || colon - text >= (long)sizeof(cat) || strlen(colon + 1) >= sizeof(near))
		goto plain;
	snprintf(cat, sizeof(cat), "%.*s", (int)(colon - text), text);
	snprintf(dir, sizeof(dir), "%s/events/%s", root, cat);
	if (stat(dir, &st)) {
		/* a mistyped category: the nearest one, with the name as given
		 * or the nearest there */
		snprintf(dir, sizeof(dir), "%s/events", root);
		if (!nearest_entry(dir, cat, near, sizeof(near)))
			goto plain;
		snprintf(cat, sizeof(cat), "%s", near);
		snprintf(dir, sizeof(dir), "%s/events/%s", root, cat);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, colon + 1);
	if (!stat(path, &st))
		snprintf(near, sizeof(near), "%s", colon + 1);
	else if (!nearest_entry(dir, colon + 1, near, sizeof(near)))
		goto plain;
	kd_err("unknown event '%s': no such tracepoint in tracefs; did you mean %s:%s?", text, cat, near);
	return;
plain:
	kd_err("unknown event '%s': no such tracepoint in tracefs (see kdist list)", text);
}
