/* SPDX-License-Identifier: GPL-2.0 */
/* Group key values as read from the kernel, normalized (keys.c). */
#ifndef KDIST_KEYS_H
#define KDIST_KEYS_H

#include "model/measure.h"

/* Load what the formatter needs (kallsyms, the cgroup watch), so that a
 * failure is reported before anything is traced.  0 or a negative errno
 * after printing why. */
int key_prepare(enum m_fmt f);
/* The value as groups are keyed: see enum m_fmt. */
struct m_value key_normalize(struct m_value v, enum m_fmt f);

#endif
