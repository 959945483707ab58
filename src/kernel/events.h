/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Single events printed as they happen, within EVENTS_PERIOD_MS: the BPF
 * ring buffers of --slower-than (pair, recipes, func) and of kdist trace.
 * Commands add their ring buffer map with a handler; main polls
 * events_fd() beside its signals, at least every EVENTS_PERIOD_MS, and
 * calls events_poll(), which handles a bounded number of events
 * per call so that a flood never starves Ctrl-C; at the end, events_drain()
 * hands every event up to the final read of the measurement to its handler,
 * which prints it (view/evline.h).  Every record starts with its
 * bpf_ktime_get_ns().
 */
#ifndef KDIST_EVENTS_H
#define KDIST_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How late a line may be: the programs submit events without waking the
 * reader (but for a ring a quarter full), and main reads them at least this
 * often.  Each wake-up of kdist may preempt the traced thread on its CPU:
 * one per line would delay what kdist traces by as many switches. */
#define EVENTS_PERIOD_MS 200

/* Read ring buffer map_fd with fn(ctx, data, size).  0 or -errno, said. */
int events_add(int map_fd, int (*fn)(void *ctx, void *data, size_t size), void *ctx);
/* An fd that polls readable when events wait; -1 when no command added any. */
int events_fd(void);
/* Handle the events waiting, at most a few thousand.  0 or -errno. */
int events_poll(void);
/* Handle every event that happened up to until (CLOCK_MONOTONIC ns),
 * however many: the producers may go on, so each ring is read only up to its
 * first later record.  0 or -errno. */
int events_drain(uint64_t until);
/* Stop reading (before the maps go). */
void events_close(void);

#endif
