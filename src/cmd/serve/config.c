// SPDX-License-Identifier: GPL-2.0
/*
 * kdist serve's measurements as written: a spec of --measure or a line of
 * --config parsed and checked (nothing loaded), the configuration file
 * read and parsed, and the check of a configuration the tests and the
 * fuzzer call (serve.h).  Running and serving them is serve.c's.
 */
#include "cmd/serve/serve.h"
#include "cmd/serve/serve_int.h"
#include "lib/util.h"
#include "cmd/command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Messages about sv from now on begin with its place in --config and
 * its name (NULL: not known yet). */
static void served_context(struct served *sv, const char *name)
{
	char *c = NULL;
	int n = -1;

	if (sv->path && name)
		n = asprintf(&c, "%s:%d: measurement '%s'", sv->path, sv->line, name);
	else if (sv->path)
		n = asprintf(&c, "%s:%d", sv->path, sv->line);
	else if (name)
		n = asprintf(&c, "measurement '%s'", name);
	free(sv->context);
	sv->context = n < 0 ? NULL : c;
	kd_err_context = sv->context;
}

/* Split s into words, shell-like: blanks separate, '...' and "..." quote,
 * a backslash escapes the next character outside '...'.  0 or -EINVAL. */
static int split_words(struct served *sv, const char *s)
{
	size_t n = strlen(s);
	char *w = malloc(n + 1);
	char **argv = calloc(n / 2 + 2, sizeof(char *));
	char quote = 0;
	int argc = 0;
	bool in_word = false;

	sv->words = w;
	sv->argv = argv;
	if (!w || !argv)
		return -ENOMEM;
	for (; *s; s++) {
		if (!quote && (*s == ' ' || *s == '\t')) {
			if (in_word)
				*w++ = '\0';
			in_word = false;
			continue;
		}
		if (!in_word) {
			argv[argc++] = w;
			in_word = true;
		}
		if (quote && *s == quote) {
			quote = 0;
		} else if (!quote && (*s == '\'' || *s == '"')) {
			quote = *s;
		} else if (*s == '\\' && quote != '\'' && s[1]) {
			*w++ = *++s;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
	sv->argc = argc;
	if (quote) {
		kd_err("bad measurement '%s': unterminated %c", sv->text, quote);
		return -EINVAL;
	}
	return 0;
}

static bool valid_name(const char *s)
{
	static const char *const reserved[] = { "bpf_run", "lost", "render", "http" };

	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (const char *c = s; *c; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	}
	for (size_t i = 0; i < ARRAY_SIZE(reserved); i++) {
		if (!strcmp(s, reserved[i]))
			return false;
	}
	return true;
}

/* One measurement spec, parsed and checked, nothing loaded; line nr of
 * file path when it comes from --config (path NULL: from --measure).  0 or
 * -errno after one line naming it, and where it is. */
int serve_served_parse(const struct options *top, const char *text, const char *path,
		       int nr, struct served **out)
{
	struct served *sv = calloc(1, sizeof(*sv));
	const struct command *c = NULL;
	const char *buckets = NULL;
	int i = 0, err;

	*out = sv;
	if (!sv || !(sv->text = strdup(text)))
		return -ENOMEM;
	sv->path = path;
	sv->line = nr;
	served_context(sv, NULL);
	err = split_words(sv, text);
	if (err)
		goto out;
	for (; i < sv->argc; i++) {
		char *a = sv->argv[i], *colon = a + strlen(a) - 1;

		if (strncmp(a, "name=", 5) && strncmp(a, "buckets=", 8))
			break;
		if (*colon == ':')
			*colon = '\0';
		if (a[0] == 'n')
			snprintf(sv->name, sizeof(sv->name), "%s", a + 5);
		else
			buckets = a + 8;
	}
	err = -EINVAL;
	if (i == sv->argc) {
		kd_err("bad measurement '%s': no command (e.g. 'runq' or 'name=sc: syscalls')", text);
		goto out;
	}
	c = top->cl->find(sv->argv[i]);
	if (!sv->name[0] && c)
		for (char *d = stpcpy(sv->name, c->name); d > sv->name; d--)
			if (d[-1] == '-')
				d[-1] = '_';
	served_context(sv, sv->name[0] ? sv->name : text);
	if (!c) {
		kd_err("unknown command '%s' (see kdist --help)", sv->argv[i]);
		goto out;
	}
	if (!(c->caps & CMD_SERVE)) {
		kd_err("bad command '%s': serve takes pair, func and the recipes", c->name);
		goto out;
	}
	if (strlen(sv->name) > 40 || !valid_name(sv->name)) {
		kd_err("bad name '%s': letters, digits and _ (at most 40), not bpf_run, lost, "
		       "render or http", sv->name);
		goto out;
	}
	sv->o.max_groups = top->max_groups;
	sv->o.served = true;
	sv->o.retire_after = top->retire_after;
	sv->o.cl = top->cl;
	err = top->cl->parse(sv->argc - i, sv->argv + i, c, &sv->o);
	if (err)
		goto out;
	err = -EINVAL;
	if (sv->o.cmd || sv->o.argv || sv->o.duration || sv->o.interval || sv->o.output) {
		kd_err("bad options: -c, --, -d, -i and --output do not apply to a served measurement");
		goto out;
	}
	/* its lines would have nowhere to go: the ring would fill, unread */
	if (sv->o.slower_ns) {
		kd_err("bad options: --slower-than prints events as lines, which serve does not "
		       "(run it beside serve as its own kdist pair)");
		goto out;
	}
	sv->own_buckets = buckets;
	err = buckets ? prom_buckets_parse(buckets, &sv->b, "buckets") : 0;
	sv->s = (struct session){ .cmd = c, .opt = &sv->o };
out:
	kd_err_context = NULL;
	return err;
}

/* The configuration file: a regular file of at most SERVE_CONFIG_MAX bytes
 * (/dev/zero or a 100 MB line never ends a start nor a reload, and a FIFO,
 * which could hold a reload for read_input's idle time, is no file to read
 * again at SIGHUP).  0 or -errno after one line. */
int serve_config_read(const char *path, char **conf, size_t *len)
{
	struct stat st;
	int err = 0;

	if (stat(path, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (!err)
		err = read_input(path, SERVE_CONFIG_MAX, conf, len);
	/* a file that is no configuration is the user's mistake (exit 2) */
	if (err == -EINVAL || err == -EISDIR)
		kd_err("bad configuration %s: not a regular file", path);
	else if (err == -EFBIG)
		kd_err("bad configuration %s: %s", path, read_input_strerror(err, SERVE_CONFIG_MAX));
	else if (err)
		kd_err("failed to read %s: %s", path, read_input_strerror(err, SERVE_CONFIG_MAX));
	return err;
}

/* The measurements of config text conf (len bytes, NUL-terminated, changed
 * in place) after *tail; path names it in messages.  0 or -errno after one
 * line that begins with FILE:LINE. */
int serve_config_parse(char *conf, size_t len, const char *path, const struct options *top,
		       struct served ***tail)
{
	char *line, *next;
	struct served *sv;
	int err = 0, nr = 0;

	for (line = conf; line && !err; line = next) {
		char *hash = line;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		nr++;
		if (!next && line + strlen(line) != conf + len) {
			char *place = NULL;

			if (asprintf(&place, "%s:%d", path, nr) > 0)
				kd_err_context = place;
			kd_err("bad configuration: a NUL byte at column %zu", strlen(line) + 1);
			kd_err_context = NULL;
			free(place);
			return -EINVAL;
		}

		/* a comment: from a '#' that starts a word to the line's end */
		while ((hash = strchr(hash, '#')) && hash != line && hash[-1] != ' ' &&
		       hash[-1] != '\t')
			hash++;
		if (hash)
			*hash = '\0';
		line = str_trim(line);
		if (!*line)
			continue;
		err = serve_served_parse(top, line, path, nr, &sv);
		**tail = sv;
		if (sv)
			*tail = &sv->next;
	}
	return err;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp((*(struct served *const *)a)->name, (*(struct served *const *)b)->name);
}

/* -EINVAL after one line when two measurements of l share a name: sorted,
 * for a configuration of many thousands is a hostile one, not a slow one. */
int serve_names_unique(struct served *l)
{
	struct served **v;
	size_t n = 0;
	int err = 0;

	for (struct served *sv = l; sv; sv = sv->next)
		n++;
	if (n < 2)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = 0;
	for (struct served *sv = l; sv; sv = sv->next)
		v[n++] = sv;
	qsort(v, n, sizeof(*v), name_cmp);
	for (size_t i = 1; i < n && !err; i++) {
		if (!strcmp(v[i - 1]->name, v[i]->name)) {
			struct served *a = v[i - 1], *b = v[i];

			/* the later line is the mistake (--measure's come first);
			 * qsort keeps no order */
			if (a->line > b->line)
				a = v[i], b = v[i - 1];
			kd_err_context = b->context;
			if (a->path)
				kd_err("bad name: line %d has it too (give one a name=)", a->line);
			else
				kd_err("bad name: a --measure has it too (give one a name=)");
			kd_err_context = NULL;
			err = -EINVAL;
		}
	}
	free(v);
	return err;
}

int serve_config_check(const char *text, size_t len, int max_groups,
		       const struct command_line *cl)
{
	struct options top = { .max_groups = max_groups, .retire_after = DEFAULT_RETIRE_S, .cl = cl };
	struct served *head = NULL, **tail = &head;
	char *conf = malloc(len + 1);
	int err, n = 0;

	if (!conf)
		return -ENOMEM;
	memcpy(conf, text, len);
	conf[len] = '\0';
	err = serve_config_parse(conf, len, "configuration", &top, &tail);
	free(conf);
	if (!err)
		err = serve_names_unique(head);
	for (struct served *sv = head; sv && !err; sv = sv->next)
		n++;
	serve_list_free(head);
	return err ? err : n;
}
