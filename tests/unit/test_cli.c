// SPDX-License-Identifier: GPL-2.0
/* The command line, parsing only (nothing is loaded): every command accepts
 * each option it declares and refuses, in one line, each one it does not;
 * its --help lists exactly the options it takes. */
#include "check.h"
#include "cli/cli.h"
#include "lib/util.h"
#include "cmd/command.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A valid use of each option; an option added without one fails below. */
static const char *const sample[NR_OPTS][4] = {
	[O_PID] = { "--pid", "1" },
	[O_TID] = { "--tid", "1" },
	[O_COMM] = { "--comm", "bash" },
	[O_CGROUP] = { "--cgroup", "/sys/fs/cgroup" },
	[O_CMD] = { "-c", "true" },
	[O_DURATION] = { "-d", "1.5" },
	[O_INTERVAL] = { "-i", "1" },
	/* -n needs -i: a command that takes one must take both */
	[O_COUNT] = { "-n", "2", "-i", "1" },
	[O_BY] = { "--by", "comm" },
	[O_KEY] = { "--key", "pid=next_pid" },
	[O_UNIT] = { "--unit", "ms" },
	[O_FORMAT] = { "-o", "json" },
	[O_OUTPUT] = { "--output", "/dev/null" },
	[O_HIST] = { "--hist" },
	[O_SORT] = { "--sort", "count" },
	[O_TOP] = { "--top", "3" },
	[O_ALL] = { "--all" },
	[O_LINEAR] = { "--linear", "0,100,10" },
	[O_MAX_GROUPS] = { "--max-groups", "16" },
	[O_HEATMAP] = { "--heatmap", "-i", "1" },
	[O_IF] = { "--if", "ret < 0" },
	[O_SLOWER_THAN] = { "--slower-than", "1.5ms" },
	/* --stack needs --slower-than: a command that takes one takes both */
	[O_STACK] = { "--stack", "end", "--slower-than", "20ms" },
	[O_EXPLAIN] = { "--explain" },
	[O_MATCH] = { "--match", "fifo" },
	[O_FIELDS] = { "--fields", "ret,filename" },
	[O_MAX_RATE] = { "--max-rate", "100/s" },
	[O_EVERY] = { "--every", "250ms" },
	[O_MAX_BUCKETS] = { "--max-buckets", "64" },
	[O_ATTACH] = { "--attach", "kprobe" },
	[O_FREQUENCY] = { "-F", "49" },
	[O_STATE] = { "--state", "D" },
	[O_MIN_US] = { "--min-us", "1" },
	[O_MAX_US] = { "--max-us", "2" },
	[O_ALPHA] = { "--alpha", "0.05" },
	[O_MIN_CHANGE] = { "--min-change", "10" },
	[O_FAIL_ON] = { "--fail-on", "p99>+10%" },
	[O_MEASURE] = { "--measure", "runq" },
	[O_CONFIG] = { "--config", "serve.conf" },
	[O_LISTEN] = { "--listen", "127.0.0.1:9669" },
	[O_BUCKETS] = { "--buckets", "0.001,0.01" },
	[O_RETIRE_AFTER] = { "--retire-after", "60" },
	[O_ALLOW_HOST] = { "--allow-host", "metrics.example.org" },
	[O_USER] = { "--user", "nobody" },
	[O_WEB_CONFIG] = { "--web-config", "/etc/kdist/web.yml" },
	[O_OTLP] = { "--otlp", "http://127.0.0.1:4318/v1/metrics" },
	[O_OTLP_INTERVAL] = { "--otlp-interval", "10" },
	[O_BTF] = { "--btf", "/sys/kernel/btf/vmlinux" },
	[O_VERBOSE] = { "-v" },
	[O_HELP] = { "--help" },	/* exits: checked through cli_usage */
};

static char err_text[512];

/* cli_parse of "NAME ARGS..." with what it says on stderr in err_text. */
static int parse(const struct command *c, const char *const *args, struct options *o)
{
	char *argv[8] = { (char *)c->name };
	int argc = 1, err;
	struct captured cap;

	for (int i = 0; i < 4 && args[i]; i++)
		argv[argc++] = (char *)args[i];
	memset(o, 0, sizeof(*o));
	cap = stderr_capture();
	err = cli_parse(argc, argv, c, o);
	stderr_captured(&cap, err_text, sizeof(err_text));
	free(o->args);
	free(o->measures);
	return err;
}

static void test_accept_refuse(void)
{
	const struct command *c;
	struct options o;

	for (int i = 0; (c = cli_command(i)); i++) {
		uint64_t set = cli_command_opts(c);
		int bad = 0, accepted = 0, refused = 0;
		char name[96];

		for (int id = 0; id < NR_OPTS; id++) {
			char want[128];
			int err;

			if (id == O_HELP)
				continue;
			if (!sample[id][0]) {
				printf("  no sample use of --%s in test_cli.c\n", cli_opts[id].name);
				bad++;
				continue;
			}
			err = parse(c, sample[id], &o);
			if (set & (1ULL << id)) {
				accepted++;
				if (!err && !err_text[0])
					continue;
				printf("  %s refused --%s: %s", c->name, cli_opts[id].name, err_text);
				bad++;
				continue;
			}
			refused++;
			snprintf(want, sizeof(want), "kdist: option --%s is not for '%s'\n",
				 cli_opts[id].name, c->name);
			if (err == -EINVAL && !strcmp(err_text, want))
				continue;
			printf("  %s --%s: err %d, said '%s', expected '%s'", c->name,
			       cli_opts[id].name, err, err_text, want);
			bad++;
		}
		snprintf(name, sizeof(name), "%s accepts its %d options, refuses the other %d",
			 c->name, accepted, refused);
		check(name, !bad, "%d wrong (see above)", bad);
	}
}

/* The options section of c's --help names exactly the options it takes. */
static void test_help_lists_options(void)
{
	const struct command *c;

	for (int i = 0; (c = cli_command(i)); i++) {
		char *text = NULL, *opts, name[96], word[64];
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		int wrong = 0;

		cli_usage(f, c);
		fclose(f);
		opts = strstr(text, "\noptions:\n");
		for (int id = 0; opts && id < NR_OPTS; id++) {
			bool listed, takes = cli_command_opts(c) & (1ULL << id);

			snprintf(word, sizeof(word), "--%s ", cli_opts[id].name);
			listed = strstr(opts, word);
			if (listed != takes) {
				printf("  %s --help: --%s %s\n", c->name, cli_opts[id].name,
				       listed ? "listed, not taken" : "taken, not listed");
				wrong++;
			}
		}
		snprintf(name, sizeof(name), "%s --help lists its options", c->name);
		check(name, opts && !wrong, "%s", opts ? "see above" : "no options section");
		free(text);
	}
}

/* Whether some command taking option id accepts args (--sort self: func). */
static bool some_taker_accepts(int id, const char *const *args)
{
	const struct command *c;
	struct options o;

	for (int i = 0; (c = cli_command(i)); i++)
		if ((cli_command_opts(c) & (1ULL << id)) && !parse(c, args, &o))
			return true;
	return false;
}

/* Every word completion offers for an option's value is one the parser
 * accepts (for some command) and the help names. */
static void test_values_parse(void)
{
	for (int id = 0; id < NR_OPTS; id++) {
		const char *v = cli_opts[id].values;
		const struct command *c, *taker = NULL;
		char buf[128], *w, *save, name[96];
		int bad = 0;

		if (!v || v[0] == '@')
			continue;
		for (int i = 0; !taker && (c = cli_command(i)); i++)
			if (cli_command_opts(c) & (1ULL << id))
				taker = c;
		snprintf(buf, sizeof(buf), "%s", v);
		for (w = strtok_r(buf, " ", &save); taker && w; w = strtok_r(NULL, " ", &save)) {
			char opt[64];
			const char *args[] = { opt, w, NULL };

			snprintf(opt, sizeof(opt), "--%s", cli_opts[id].name);
			if (!some_taker_accepts(id, args) || !strstr(cli_opts[id].help, w)) {
				printf("  --%s %s: %s%s", cli_opts[id].name, w,
				       err_text[0] ? err_text : "", strstr(cli_opts[id].help, w) ?
				       "" : "not in the help\n");
				bad++;
			}
		}
		snprintf(name, sizeof(name), "--%s values parse and are in its help", cli_opts[id].name);
		check(name, taker && !bad, "%s", taker ? "see above" : "no command takes it");
	}
}

static void test_other_refusals(void)
{
	const char *workload[] = { "--", "true", NULL }, *missing[] = { "-d", NULL };
	const char *unknown[] = { "--nope", NULL };
	struct options o;

	check("list runs no workload",
	      parse(cli_find_command("list"), workload, &o) == -EINVAL &&
	      strstr(err_text, "'list' runs no workload"), "said '%s'", err_text);
	check("a missing value is named as such",
	      parse(cli_find_command("pair"), missing, &o) == -EINVAL &&
	      !strcmp(err_text, "kdist: option '-d' needs a value\n"), "said '%s'", err_text);
	check("an unknown option is named as such",
	      parse(cli_find_command("bio"), unknown, &o) == -EINVAL &&
	      strstr(err_text, "unknown option '--nope'"), "said '%s'", err_text);
	/* the case that once passed: 'bio' is a substring of 'bio-size' */
	check("bio refuses --linear", parse(cli_find_command("bio"), sample[O_LINEAR], &o) ==
	      -EINVAL, "said '%s'", err_text);
	check("bio-size takes --linear", !parse(cli_find_command("bio-size"), sample[O_LINEAR], &o),
	      "said '%s'", err_text);
}

/* Durations, rates and --stack's word. */
static void test_outlier_options(void)
{
	static const char *const bad[][4] = {
		{ "--slower-than", "20" }, { "--slower-than", "20m" }, { "--slower-than", "-1ms" },
		{ "--slower-than", "ms" }, { "--max-rate", "5/m" }, { "--max-rate", "0" },
		{ "--stack" },
	};
	const char *stack_end[] = { "--slower-than", "2s", "--stack", "end", NULL };
	const char *stack[] = { "--stack", "--slower-than", "250us", NULL };
	struct options o;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char name[96];

		snprintf(name, sizeof(name), "refuses %s %s", bad[i][0], bad[i][1] ? bad[i][1] : "");
		check(name, parse(cli_find_command("pair"), bad[i], &o) == -EINVAL &&
		      !strncmp(err_text, "kdist: ", 7) && strchr(err_text, '\n') &&
		      strchr(err_text, '\n') == strrchr(err_text, '\n'),
		      "said '%s'", err_text);
	}
	check("--slower-than 2s --stack end", !parse(cli_find_command("pair"), stack_end, &o) &&
	      o.slower_ns == 2000000000ULL && o.stack == 2, "%llu %d",
	      (unsigned long long)o.slower_ns, o.stack);
	check("--stack --slower-than 250us", !parse(cli_find_command("pair"), stack, &o) &&
	      o.slower_ns == 250000 && o.stack == 1, "%llu %d", (unsigned long long)o.slower_ns,
	      o.stack);
	check("--max-rate 100/s", !parse(cli_find_command("trace"), sample[O_MAX_RATE], &o) &&
	      o.max_rate == 100, NULL);
	check("--every 250ms", !parse(cli_find_command("trace"), sample[O_EVERY], &o) &&
	      o.every_ns == 250000000ULL, "%llu", (unsigned long long)o.every_ns);
}

static void test_max_groups_default(void)
{
	const char *none[] = { NULL };
	struct options o;

	parse(cli_find_command("func"), none, &o);
	check("func's group table: 8192 by default", o.max_groups == 8192, "%d", o.max_groups);
	parse(cli_find_command("pair"), none, &o);
	check("pair's group table: 4096 by default", o.max_groups == 4096, "%d", o.max_groups);
	parse(cli_find_command("pair"), sample[O_MAX_GROUPS], &o);
	check("--max-groups 16 is 16", o.max_groups == 16, "%d", o.max_groups);
}

int main(void)
{
	test_outlier_options();
	test_accept_refuse();
	test_help_lists_options();
	test_values_parse();
	test_other_refusals();
	test_max_groups_default();
	return check_done();
}
