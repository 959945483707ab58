// SPDX-License-Identifier: GPL-2.0
/* serve's configuration, parsed as start-up and every reload parse it:
 * one after another in one process, refused ones included. */
#include "check.h"
#include "cli/cli.h"
#include "cmd/serve/serve.h"
#include "lib/http.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int parse(const char *text)
{
	return serve_config_check(text, strlen(text), 512, &cli_command_line);
}

/* A reload refused in the middle of a cluster of short options leaves
 * getopt inside a string that is freed when the refusal is; the next
 * configuration must be parsed from its own words (under ASan, any read of
 * the old ones aborts). */
static void test_refused_cluster(void)
{
	const char *valid = "name=a: syscalls -p 1 --comm x\nname=b: runq\n";

	check("a cluster with an unknown option is refused", parse("syscalls -1p4242\n") == -EINVAL,
	      NULL);
	check("the next valid configuration parses whole", parse(valid) == 2, NULL);
	check("a cluster refused at its value's end", parse("syscalls -p\n") == -EINVAL, NULL);
	check("a cluster that refuses a later option", parse("syscalls -p1 --bogus\n") == -EINVAL,
	      NULL);
	check("and the valid one again", parse(valid) == 2, NULL);
}

static void test_config(void)
{
	const char nul[] = "runq\n\0name=x: syscalls\n";

	check("comments and blank lines", parse("# c\n\n  runq   # the run queue\n\tbio\n") == 2,
	      NULL);
	check("a NUL byte is refused, not the end of the file",
	      serve_config_check(nul, sizeof(nul) - 1, 512, &cli_command_line) == -EINVAL, NULL);
	check("two measurements of one name", parse("runq\nrunq\n") == -EINVAL, NULL);
	check("only comments: no measurement", parse("# nothing\n") == 0, NULL);
	/* --help would print the usage and exit: the server, at a reload */
	check("--help, abbreviated or in a cluster, is refused",
	      parse("runq --hel\n") == -EINVAL && parse("runq -vh\n") == -EINVAL &&
	      parse("runq -h\n") == -EINVAL, NULL);
	check("a stack measurement is not served", parse("profile\n") == -EINVAL, NULL);
}

/* Names are compared sorted: many thousands stay quick, and a duplicate
 * far apart is found. */
static void test_many(void)
{
	size_t cap = 40 * 10001, n = 0;
	char *text = malloc(cap);

	for (int i = 0; i < 10000; i++)
		n += snprintf(text + n, cap - n, "name=m%d: syscalls --comm x%d\n", i, i);
	check("10,000 measurements", serve_config_check(text, n, 512, &cli_command_line) == 10000, NULL);
	snprintf(text + n, cap - n, "name=m17: runq\n");
	check("one name twice among 10,001", parse(text) == -EINVAL, NULL);
	free(text);
}

static void neg_case(const char *name, const char *accept, enum http_format want)
{
	enum http_format got = http_negotiate(accept, strlen(accept));

	check(name, got == want, "'%s': format %d, expected %d", accept, got, want);
}

/* Accept weights as RFC 9110 writes them; others are "not acceptable" */
static void test_negotiate(void)
{
	neg_case("negotiate_default_text", "", HTTP_TEXT);
	neg_case("negotiate_openmetrics", "application/openmetrics-text;version=1.0.0", HTTP_OPENMETRICS);
	neg_case("negotiate_higher_weight", "application/openmetrics-text;q=0.5,text/plain;q=0.6",
		 HTTP_TEXT);
	neg_case("negotiate_three_decimals", "text/plain;q=0.501,application/openmetrics-text;q=0.5",
		 HTTP_TEXT);
	neg_case("negotiate_hex_weight_not_a_weight",
		 "text/plain;q=0.2,application/openmetrics-text;q=0x1p3", HTTP_TEXT);
	neg_case("negotiate_weight_above_one", "text/plain;q=0.2,application/openmetrics-text;q=5",
		 HTTP_TEXT);
	neg_case("negotiate_exponent_not_a_weight", "text/plain;q=0.2,application/openmetrics-text;q=1e0",
		 HTTP_TEXT);
	neg_case("negotiate_weight_one", "text/plain;q=0.9,application/openmetrics-text;q=1.000",
		 HTTP_OPENMETRICS);
	neg_case("negotiate_zero_refuses", "application/openmetrics-text;q=0", HTTP_TEXT);
}

int main(void)
{
	test_negotiate();
	test_refused_cluster();
	test_config();
	test_many();
	return check_done();
}
