// SPDX-License-Identifier: GPL-2.0
/* kdist diff on arbitrary files, as the command runs it: BASE is the input
 * up to its first NUL byte and NEW what follows (the input twice when it
 * has none).  JSON measurements go through jsondoc.c, doc_check and diff's
 * own reader, the comparison and one of its views (chosen by the input's
 * length); folded stacks through flame.c's reader, the stacks that changed
 * and the differential flame graph.  Exit 0, 1 (--fail-on) or 2, nothing
 * else. */
#include "fuzz.h"
#include "cmd/commands.h"
#include "cmd/command.h"

static char dir[] = "/tmp/kdist-fuzz-diff.XXXXXX", base[PATH_MAX], new[PATH_MAX];

static void cleanup(void)
{
	unlink(base);
	unlink(new);
	rmdir(dir);
}

static void put(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	FUZZ_ASSERT(fd >= 0);
	FUZZ_ASSERT(write(fd, data, size) == (ssize_t)size);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum out_format formats[] = { OUT_TEXT, OUT_JSON, OUT_CSV, OUT_MARKDOWN,
						   OUT_HTML, OUT_SVG };
	const uint8_t *nul = memchr(data, 0, size);
	char *args[2] = { base, new };
	struct options o = { 0 };
	int rc;

	if (!base[0]) {
		FUZZ_ASSERT(mkdtemp(dir));
		snprintf(base, sizeof(base), "%s/base", dir);
		snprintf(new, sizeof(new), "%s/new", dir);
		atexit(cleanup);
	}
	put(base, data, nul ? (size_t)(nul - data) : size);
	put(new, nul ? nul + 1 : data, nul ? size - (nul - data) - 1 : size);
	o.nargs = 2;
	o.args = args;
	o.output = "/dev/null";
	o.view.format = formats[size % (sizeof(formats) / sizeof(formats[0]))];
	o.fail_on = "p50>+10%,count<-10%";
	rc = cmd_diff.run(&o);
	FUZZ_ASSERT(rc == 0 || rc == 1 || rc == 2);
	return 0;
}
