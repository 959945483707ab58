// SPDX-License-Identifier: GPL-2.0
/* util.c: text_escape/text_unescape on the names hostile processes choose,
 * and read_input's bounds on hostile files. */
#include "check.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void escape_case(const char *name, const char *in, size_t len, const char *want)
{
	char out[256], back[256];
	size_t n = text_escape(out, sizeof(out), in, len);
	long m;

	check(name, n == strlen(want) && !strcmp(out, want), "got '%s' (%zu), want '%s'", out, n, want);
	/* the escaped text is printable UTF-8: safe once its escapes' own
	 * backslashes are set aside */
	strcpy(back, out);
	for (char *p = back; (p = strchr(p, '\\')); )
		*p = '/';
	check(name, text_is_safe(back, n), "'%s' is not printable UTF-8", out);
	check(name, text_is_escaped(out, n), "'%s' not seen as escaped", out);
	check(name, text_is_safe(in, len) == (n == len && !memcmp(in, want, len)),
	      "text_is_safe disagrees with text_escape");
	strcpy(back, out);
	m = text_unescape(back);
	check(name, m == (long)len && !memcmp(back, in, len), "round trip gave %ld bytes", m);
}

static void test_escape(void)
{
	escape_case("escape_plain", "bash", 4, "bash");
	escape_case("escape_utf8_kept", "caf\xc3\xa9 \xe2\x82\xac", 9, "caf\xc3\xa9 \xe2\x82\xac");
	escape_case("escape_invalid_byte", "\xff" "bad", 4, "\\xffbad");
	escape_case("escape_terminal_controls", "\x1b]0;pwned\x07\r\n", 12, "\\x1b]0;pwned\\x07\\x0d\\x0a");
	escape_case("escape_backslash", "a\\xff", 5, "a\\\\xff");
	escape_case("escape_del_and_c1", "\x7f\xc2\x9b", 3, "\\x7f\\xc2\\x9b");
	escape_case("escape_overlong", "\xc0\xaf", 2, "\\xc0\\xaf");
	escape_case("escape_surrogate", "\xed\xa0\x80", 3, "\\xed\\xa0\\x80");
	escape_case("escape_truncated_sequence", "\xe2\x82", 2, "\\xe2\\x82");
	escape_case("escape_nul", "a\0b", 3, "a\\x00b");
}

static void test_escape_cut(void)
{
	char out[6];
	size_t n = text_escape(out, sizeof(out), "ab\xff" "cd", 5);

	/* "ab\xffcd" needs 8; only "ab" fits whole before the escape */
	check("escape_cut_never_partial", n == 8 && !strcmp(out, "ab"), "got '%s' (%zu)", out, n);
	{
		char s[] = "a\\q";

		check("unescape_malformed", text_unescape(s) == -EINVAL, NULL);
		check("escaped_form_refuses_raw_bytes",
		      !text_is_escaped("\xff", 1) && !text_is_escaped("a\\q", 3) &&
		      !text_is_escaped("\\x1", 3) && !text_is_escaped("\x1b", 1), NULL);
	}
}

static void test_read_input(void)
{
	char dir[] = "/tmp/kdist-test-util.XXXXXX", path[64], *buf = NULL;
	size_t len = 0;
	int fd, err;

	if (!mkdtemp(dir)) {
		check("read_input_setup", 0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	check("read_input_setup", fd >= 0 && write(fd, "0123456789", 10) == 10, NULL);
	close(fd);
	err = read_input(path, 10, &buf, &len);
	check("read_input_regular", !err && len == 10 && !strcmp(buf, "0123456789"), "err %d", err);
	free(buf);
	check("read_input_too_big", read_input(path, 9, &buf, &len) == -EFBIG, NULL);
	check("read_input_device", read_input("/dev/zero", 1 << 20, &buf, &len) == -EINVAL, NULL);
	check("read_input_directory", read_input(dir, 1 << 20, &buf, &len) == -EISDIR, NULL);
	/* a FIFO: read_input waits for its writer (INPUT_IDLE_MS), read_file
	 * (where processes choose the file: /tmp/perf-PID.map) refuses it */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	check("read_file_fifo_refused", !mkfifo(path, 0600) &&
	      read_file(path, &buf, &len) == -EINVAL, "%s", strerror(errno));
	check("read_file_device_refused", read_file("/dev/zero", &buf, &len) == -EINVAL, NULL);
	unlink(path);
	unlink(path);
	rmdir(dir);
}

/* kd_err's line for fmt and arg, read back from stderr */
static void err_line(char *out, size_t size, const char *fmt, const char *arg)
{
	struct captured cap = stderr_capture();

	kd_err(fmt, arg);
	stderr_captured(&cap, out, size);
}

/* A quoted value longer than 96 characters is echoed as its start; the
 * apostrophes of words are no quotes, however far apart. */
static void test_err_echo(void)
{
	char line[1024], value[300];

	memset(value, 'a', 200);
	value[200] = '\0';
	err_line(line, sizeof(line), "unknown event '%s': no such tracepoint", value);
	check("err_echo_long_value_cut", strstr(line, "...' (200 characters): no such tracepoint\n") &&
	      strlen(line) < 200, "got %s", line);
	err_line(line, sizeof(line), "failed to find the kernel's types: %s (BTFHub's archive)", value);
	check("err_echo_apostrophes_kept", strstr(line, value) && strstr(line, "(BTFHub's archive)\n"),
	      "got %s", line);
	err_line(line, sizeof(line), "bad name '%s'", "it's");
	check("err_echo_apostrophe_in_value", !strcmp(line, "kdist: bad name 'it's'\n"), "got %s", line);
	/* what a terminal would act on is shown, not sent */
	err_line(line, sizeof(line), "unknown command '%s'", "\x1b]0;pwned\x07\r");
	check("err_echo_controls_escaped", !strcmp(line, "kdist: unknown command '\\x1b]0;pwned\\x07\\x0d'\n"),
	      "got %s", line);
	/* a whole message stays one line a terminal shows */
	{
		char *big = malloc(5000), *out = malloc(8192);

		memset(big, 'b', 4999);
		big[4999] = '\0';
		err_line(out, 8192, "bad: %s", big);
		check("err_echo_line_cut", strlen(out) < 1100 && strstr(out, "... (5011 characters)\n"),
		      "got %zu bytes ending %s", strlen(out), out + (strlen(out) > 40 ? strlen(out) - 40 : 0));
		free(big);
		free(out);
	}
}

static void near_case(const char *name, const char *typed, const char *want)
{
	static const char *const words[] = { "syscalls", "softirq", "explain", "by", "sched_wakeup",
					     "sched_waking", "sched_switch", "list", NULL };
	const char *got = nearest_word(typed, words, sizeof(words) / sizeof(words[0]));

	check(name, want ? got && !strcmp(got, want) : !got, "%s: got %s, want %s", typed,
	      got ? got : "none", want ? want : "none");
}

/* one edit for every three letters, at least one; a swap is one edit */
static void test_nearest_word(void)
{
	near_case("near_dropped_letter", "sycalls", "syscalls");
	near_case("near_swapped_letters", "explian", "explain");
	near_case("near_short_word_one_edit", "bi", "by");
	near_case("near_nearest_of_two", "sched_wakup", "sched_wakeup");
	near_case("near_too_far", "syscount", NULL);
	near_case("near_short_word_too_far", "xz", NULL);
	near_case("near_exact_is_no_suggestion", "list", NULL);
	near_case("near_long_word", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL);
}

int main(void)
{
	test_nearest_word();
	test_escape();
	test_escape_cut();
	test_err_echo();
	test_read_input();
	return check_done();
}
