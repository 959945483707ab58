// SPDX-License-Identifier: GPL-2.0
/*
 * What is made from the command and option tables besides parsing: --help
 * (cli_usage), and the man page and bash completion (cli_expand).
 */
#include "cli/cli.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "a, b, c": the commands that take option id (NULL: every command). */
static const char *takers(int id, char *buf, size_t n)
{
	const struct command *c;
	size_t len = 0, k = 0, all = 0;

	buf[0] = '\0';
	for (int i = 0; (c = cli_command(i)); i++) {
		all++;
		if (!(cli_command_opts(c) & (1ULL << id)))
			continue;
		k++;
		len += snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? ", " : "", c->name);
	}
	return k == all ? NULL : buf;
}

/* The help of option id, with --max-groups' default and the --by keys of
 * c, or for every command when c is NULL. */
static const char *opt_help(int id, const struct command *c, char *buf, size_t n)
{
	const struct command *o;
	size_t len;

	if (id == O_BY && c && c->by_help)
		return c->by_help;
	if (id != O_MAX_GROUPS)
		return cli_opts[id].help;
	if (c)
		snprintf(buf, n, "%s (default %d)", cli_opts[id].help, cli_max_groups(c));
	else {
		len = snprintf(buf, n, "%s (default %d", cli_opts[id].help, DEFAULT_MAX_GROUPS);
		for (int i = 0; (o = cli_command(i)) && len < n; i++) {
			if ((o->opts & OPT(MAX_GROUPS)) && cli_max_groups(o) != DEFAULT_MAX_GROUPS)
				len += snprintf(buf + len, n - len, ", %s %d", o->name, cli_max_groups(o));
		}
		if (len < n)
			snprintf(buf + len, n - len, ")");
	}
	return buf;
}

static void usage_opt(FILE *f, int id, const struct command *c, bool with_takers)
{
	const struct opt_desc *d = &cli_opts[id];
	char left[64], help[256], who[512];
	const char *t = with_takers ? takers(id, who, sizeof(who)) : NULL;

	if (d->short_name)
		snprintf(left, sizeof(left), "-%c, --%s %s", d->short_name, d->name,
			 d->arg ? d->arg : "");
	else
		snprintf(left, sizeof(left), "    --%s %s", d->name, d->arg ? d->arg : "");
	fprintf(f, "  %-28s %s%s%s%s\n", left, opt_help(id, c, help, sizeof(help)),
		t ? " (for " : "", t ? t : "", t ? ")" : "");
}

void cli_usage(FILE *f, const struct command *c)
{
	if (c) {
		uint64_t set = cli_command_opts(c);

		fprintf(f, "usage: kdist %s%s%s [OPTIONS]%s\n%s\n\noptions:\n", c->name,
			c->args[0] ? " " : "", c->args,
			set & OPT(CMD) ? " [-- CMD ARGS...]" : "", c->summary);
		for (int id = 0; id < NR_OPTS; id++) {
			if (set & (1ULL << id))
				usage_opt(f, id, c, false);
		}
	} else {
		const struct command *o;
		int n = 0;

		fprintf(f, "usage: kdist COMMAND [OPTIONS] [-- CMD ARGS...]\n\ncommands:\n");
		for (int i = 0; (o = cli_command(i)); i++) {
			if (!cli_is_recipe(i))
				fprintf(f, "  %-10s %-24s %s\n", o->name, o->args, o->summary);
		}
		fprintf(f, "  %-10s %-24s %s\n", "RECIPE", "", "a named measurement: see `kdist recipes`");
		fprintf(f, "\nrecipes:");
		for (int i = 0; (o = cli_command(i)); i++) {
			if (cli_is_recipe(i))
				fprintf(f, "%s %s", n++ ? "," : "", o->name);
		}
		fprintf(f, "\n\noptions of every measuring command:\n");
		for (int id = 0; id < NR_OPTS; id++) {
			if ((OPTS_MEASURE | OPTS_ALWAYS) & (1ULL << id))
				usage_opt(f, id, NULL, false);
		}
		fprintf(f, "\noptions of some commands:\n");
		for (int id = 0; id < NR_OPTS; id++) {
			if (!((OPTS_MEASURE | OPTS_ALWAYS) & (1ULL << id)))
				usage_opt(f, id, NULL, true);
		}
		fprintf(f, "\n`kdist COMMAND --help` lists the options of one command.\n");
	}
	if (!c || !c->run)
		fprintf(f, "\nEvents: CATEGORY:NAME (tracepoint), k:FUNC, kr:FUNC (fentry:, fexit:, kprobe:, kretprobe: insist on a method), u:PATH:SYMBOL, ur:PATH:SYMBOL.\n");
}

/* ---- the man page and bash completion ---- */

/* s as roff text: '-' and '\' escaped, and no line starting a request. */
static void roff(FILE *f, const char *s, bool line_start)
{
	for (; *s; s++) {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		line_start = *s == '\n';
		if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\\')
			fputs("\\e", f);
		else
			fputc(*s, f);
	}
}

/* s in font B (bold) or I (italic), then back to roman. */
static void roff_in(FILE *f, char font, const char *s)
{
	fprintf(f, "\\f%c", font);
	roff(f, s, false);
	fputs("\\fR", f);
}

/* " NAME ARGS" of command c. */
static void man_command(FILE *f, const struct command *c)
{
	roff_in(f, 'B', c->name);
	if (c->args[0]) {
		fputc(' ', f);
		roff_in(f, 'I', c->args);
	}
}

/* "--NAME" of option id, in bold. */
static void man_opt(FILE *f, int id)
{
	char name[64];

	snprintf(name, sizeof(name), "--%s", cli_opts[id].name);
	roff_in(f, 'B', name);
}

static void man_synopsis(FILE *f, bool unused)
{
	const struct command *c;

	fputs(".nf\n", f);
	for (int i = 0; (c = cli_command(i)); i++) {
		fputs("\\fBkdist\\fR ", f);
		man_command(f, c);
		fputs(" [\\fIOPTIONS\\fR]", f);
		if (cli_command_opts(c) & OPT(CMD))
			fputs(" [\\fB\\-\\-\\fR \\fICMD ARGS\\fR...]", f);
		fputc('\n', f);
	}
	fputs(".fi\n", f);
}

/* "--a, --b": the options in set. */
static void man_opt_names(FILE *f, uint64_t set)
{
	bool first = true;

	for (int id = 0; id < NR_OPTS; id++) {
		if (!(set & (1ULL << id)))
			continue;
		fputs(first ? "" : ", ", f);
		man_opt(f, id);
		first = false;
	}
}

/* Recipes (built == false) or the built-in commands. */
static void man_commands(FILE *f, bool built)
{
	const struct command *c;

	for (int i = 0; (c = cli_command(i)); i++) {
		uint64_t set = cli_command_opts(c);

		if (built == cli_is_recipe(i))
			continue;
		fputs(".TP\n", f);
		man_command(f, c);
		fputc('\n', f);
		roff(f, c->summary, true);
		fputs(".\n.br\nOptions: ", f);
		if ((set & OPTS_MEASURE) == OPTS_MEASURE) {
			fputs("the common options", f);
			if (set & ~(OPTS_MEASURE | OPTS_ALWAYS)) {
				fputs(", and ", f);
				man_opt_names(f, set & ~(OPTS_MEASURE | OPTS_ALWAYS));
			}
		} else {
			man_opt_names(f, set);
			fputs(" only", f);
		}
		fputs(".\n", f);
	}
}

static void man_options(FILE *f, bool common)
{
	char help[256], who[512];

	for (int id = 0; id < NR_OPTS; id++) {
		const struct opt_desc *d = &cli_opts[id];
		const char *t;

		if (common != !!((OPTS_MEASURE | OPTS_ALWAYS) & (1ULL << id)))
			continue;
		fputs(".TP\n", f);
		if (d->short_name)
			fprintf(f, "\\fB\\-%c\\fR, ", d->short_name);
		man_opt(f, id);
		if (d->arg) {
			fputc(' ', f);
			roff_in(f, 'I', d->arg);
		}
		fputc('\n', f);
		roff(f, opt_help(id, NULL, help, sizeof(help)), true);
		t = common ? NULL : takers(id, who, sizeof(who));
		if (t) {
			fputs(".\nFor ", f);
			roff(f, t, false);
		}
		fputs(".\n", f);
	}
}

/* Shell words of option id: "-p --pid" or "--tid". */
static void bash_opt_words(FILE *f, int id, const char *sep)
{
	if (cli_opts[id].short_name)
		fprintf(f, "-%c%s", cli_opts[id].short_name, sep);
	fprintf(f, "--%s", cli_opts[id].name);
}

static void bash_data(FILE *f, bool unused)
{
	const struct command *c;

	fputs("_kdist_commands='", f);
	for (int i = 0; (c = cli_command(i)); i++)
		fprintf(f, "%s%s", i ? " " : "", c->name);
	fputs("'\n\n# the options COMMAND takes\n_kdist_command_options() {\n\tcase $1 in\n", f);
	for (int i = 0; (c = cli_command(i)); i++) {
		bool first = true;

		fprintf(f, "\t%s) echo '", c->name);
		for (int id = 0; id < NR_OPTS; id++) {
			if (!(cli_command_opts(c) & (1ULL << id)))
				continue;
			fputs(first ? "" : " ", f);
			bash_opt_words(f, id, " ");
			first = false;
		}
		fputs("' ;;\n", f);
	}
	fputs("\tesac\n}\n\n"
	      "# what OPTION's value may be (words, @file, @dir, @pid, @command);\n"
	      "# false for an option without a value\n"
	      "_kdist_option_values() {\n\tcase $1 in\n", f);
	for (int id = 0; id < NR_OPTS; id++) {
		const struct opt_desc *d = &cli_opts[id];

		fputc('\t', f);
		bash_opt_words(f, id, "|");
		if (d->arg)
			fprintf(f, ") echo '%s' ;;\n", d->values ? d->values : "");
		else
			fputs(") return 1 ;;\n", f);
	}
	fputs("\t*) return 1 ;;\n\tesac\n}\n", f);
}

/* Plain lists for tests: "command NAME --opt...", "option --NAME [-X]",
 * "values --NAME WORD...". */
static void table(FILE *f, bool unused)
{
	const struct command *c;

	for (int i = 0; (c = cli_command(i)); i++) {
		fprintf(f, "command %s", c->name);
		for (int id = 0; id < NR_OPTS; id++) {
			if (cli_command_opts(c) & (1ULL << id))
				fprintf(f, " --%s", cli_opts[id].name);
		}
		fputc('\n', f);
	}
	for (int id = 0; id < NR_OPTS; id++) {
		const struct opt_desc *d = &cli_opts[id];

		fprintf(f, "option --%s", d->name);
		if (d->short_name)
			fprintf(f, " -%c", d->short_name);
		fputc('\n', f);
		if (d->values && d->values[0] != '@')
			fprintf(f, "values --%s %s\n", d->name, d->values);
	}
}

int cli_expand(FILE *f, const char *template)
{
	static const struct {
		const char *name;
		void (*fn)(FILE *f, bool arg);
		bool arg;
	} parts[] = {
		{ "@MAN_SYNOPSIS@", man_synopsis },
		{ "@MAN_COMMANDS@", man_commands, true },
		{ "@MAN_RECIPES@", man_commands, false },
		{ "@MAN_COMMON_OPTIONS@", man_options, true },
		{ "@MAN_COMMAND_OPTIONS@", man_options, false },
		{ "@BASH_DATA@", bash_data },
		{ "@TABLE@", table },
	};
	FILE *in = fopen(template, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	if (!in) {
		err = -errno;
		kd_err("failed to open %s: %s", template, strerror(errno));
		return err;
	}
	while ((n = getline(&line, &cap, in)) > 0) {
		size_t i;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		for (i = 0; i < ARRAY_SIZE(parts); i++) {
			if (!strcmp(line, parts[i].name))
				break;
		}
		if (i < ARRAY_SIZE(parts))
			parts[i].fn(f, parts[i].arg);
		else if (line[0] == '@' && n > 1 && line[n - 1] == '@') {
			kd_err("bad template %s: unknown part %s", template, line);
			err = -EINVAL;
			break;
		} else
			fprintf(f, "%s\n", line);
	}
	if (!err && ferror(in))
		err = -EIO;
	free(line);
	fclose(in);
	return err;
}
