/* SPDX-License-Identifier: GPL-2.0 */
/* kdist serve's configuration, for the tests and the fuzzer: the server
 * itself is cmd_serve (serve.c). */
#ifndef KDIST_SERVE_H
#define KDIST_SERVE_H

#include <stddef.h>
#include "cmd/command.h"

/* The largest --config file serve reads (at start-up and at every SIGHUP). */
#define SERVE_CONFIG_MAX (1 << 20)

/* Parse and check config text (len bytes, one measurement per line, see
 * docs/serve.md) as a reload does, loading nothing: the number of
 * measurements, or -errno after one line naming the first bad one. */
int serve_config_check(const char *text, size_t len, int max_groups,
		       const struct command_line *cl);

#endif
