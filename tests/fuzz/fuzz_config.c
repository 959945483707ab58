// SPDX-License-Identifier: GPL-2.0
/* serve's configuration parser, called again and again in one process as
 * start-up and every SIGHUP call it, refused configurations included. */
#include "fuzz.h"
#include "cli/cli.h"
#include "cmd/serve/serve.h"

#include <errno.h>

static const char valid[] = "name=a: syscalls -p 1 --comm x\n# c\nname=b buckets=0.001,0.1: runq\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int first, again;

	first = serve_config_check((const char *)data, size, 512, &cli_command_line);
	/* nothing of one parse reaches the next: a valid configuration
	 * after it parses whole, and the input parses the same again */
	FUZZ_ASSERT(serve_config_check(valid, sizeof(valid) - 1, 512, &cli_command_line) == 2);
	again = serve_config_check((const char *)data, size, 512, &cli_command_line);
	FUZZ_ASSERT(first == again);
	/* a count or an errno (-ESRCH: -p names no process) */
	FUZZ_ASSERT(first >= -4095);
	return 0;
}
