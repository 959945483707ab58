// SPDX-License-Identifier: GPL-2.0
#include "kernel/tracefs.h"
#include "lib/util.h"

#include <errno.h>
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
