/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one histogram of kdist, shared by the BPF side (recording) and the user
 * side (statistics, percentiles, views).
 *
 * Log-linear buckets: values below HIST_SUB are exact; above, every power of
 * two [2^k, 2^(k+1)) is split into HIST_SUB equal sub-buckets.  A bucket's
 * width is at most 1/HIST_SUB of its lower bound, so a percentile estimated
 * inside the bucket that holds the true value is within 1/HIST_SUB = 12.5%
 * of it at worst (1/(2*HIST_SUB) = 6.25% for the midpoint); interpolating
 * by rank is far closer on real distributions (see hist_quantile).
 * Folding the sub-buckets of one power of two gives the classic log2 view.
 */
#ifndef KDIST_HIST_H
#define KDIST_HIST_H

#define HIST_SUB_BITS 3
#define HIST_SUB (1 << HIST_SUB_BITS)
/* Values 0..HIST_SUB-1 exact, then (64 - HIST_SUB_BITS) powers of two. */
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

#ifdef __BPF__
typedef __u64 hist_u64;
typedef __u32 hist_u32;
#else
#include <stdint.h>
typedef uint64_t hist_u64;
typedef uint32_t hist_u32;
#endif

/* Per-CPU in the kernel; user space sums the CPUs.  sumsq is a 128-bit
 * accumulator (hi:lo) because squared nanoseconds overflow u64 after a few
 * seconds' worth of samples. */
#define HIST_STATS_FIELDS \
	hist_u64 count; \
	hist_u64 sum; \
	hist_u64 sumsq_lo; \
	hist_u64 sumsq_hi; \
	hist_u64 min; \
	hist_u64 max;

struct hist_stats {
	HIST_STATS_FIELDS
};

/* The counters by name or as one hist_stats (kdist func keeps its buckets
 * apart from them). */
struct hist {
	union {
		struct hist_stats st;
		struct {
			HIST_STATS_FIELDS
		};
	};
	hist_u64 slots[HIST_BUCKETS];
};

/* floor(log2(v)) for v > 0, without loops (BPF hot path). */
static inline __attribute__((always_inline)) hist_u32 hist_ilog2(hist_u64 v)
{
	hist_u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

static inline __attribute__((always_inline)) hist_u32 hist_index(hist_u64 v)
{
	hist_u32 k;

	if (v < HIST_SUB)
		return (hist_u32)v;
	k = hist_ilog2(v);
	return (k - HIST_SUB_BITS + 1) * HIST_SUB +
	       (hist_u32)((v >> (k - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* Record one value in the counters.  Not atomic: callers own the slot
 * (per-CPU value). */
static inline __attribute__((always_inline)) void hist_stats_add(struct hist_stats *h, hist_u64 v)
{
	hist_u64 sq_lo, sq_hi, lo;

	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;

	if (!(v >> 32)) {
		sq_lo = v * v;
		sq_hi = 0;
	} else {
		/* v^2 = hh*2^64 + 2*hl*2^32 + ll with 32-bit halves */
		hist_u64 vl = v & 0xffffffffULL, vh = v >> 32;
		hist_u64 ll = vl * vl, hl = vh * vl, hh = vh * vh;

		sq_lo = ll + (hl << 33);
		sq_hi = hh + (hl >> 31) + (sq_lo < ll);
	}
	lo = h->sumsq_lo + sq_lo;
	h->sumsq_hi += sq_hi + (lo < sq_lo);
	h->sumsq_lo = lo;
}

/* Record one value.  Not atomic: callers own the slot (per-CPU value). */
static inline __attribute__((always_inline)) void hist_add(struct hist *h, hist_u64 v)
{
	/* 64-bit: a 32-bit index is zero-extended in a copy of the register
	 * that was bounds-checked, and verifiers before ~6.3 lose the bound */
	hist_u64 i = hist_index(v);

	if (i >= HIST_BUCKETS) /* cannot happen; bounds proof for the verifier */
		i = HIST_BUCKETS - 1;
	h->slots[i]++;
	hist_stats_add(&h->st, v);
}

#ifndef __BPF__
#include <stdbool.h>
#include <stddef.h>

/* Bounds of bucket i: [low, high] inclusive. */
hist_u64 hist_bucket_low(unsigned int i);
hist_u64 hist_bucket_high(unsigned int i);

/* Sum per-CPU copies, or accumulate b into a. */
void hist_merge(struct hist *a, const struct hist *b);
/* a = cur - prev (cumulative counters); min/max are taken from cur. */
void hist_sub(struct hist *out, const struct hist *cur, const struct hist *prev);

double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h);
/* q in [0,1]: value at that quantile (nearest rank), interpolated by rank
 * within its bucket narrowed to [min, max] (exact below HIST_SUB).  0 when
 * empty. */
double hist_quantile(const struct hist *h, double q);
/* The quantiles every view shows, in order, with the names they print
 * them by: text and markdown "p99.9", JSON keys and CSV columns "p999". */
#define HIST_NQUANTILES 4
extern const struct hist_shown { double q; const char *text, *key; } hist_shown[HIST_NQUANTILES];

/* Fold into log2 rows of value/divisor: out[j] counts values in
 * [2^j, 2^(j+1)) of the display unit, out[0] holds [0, 2), so a row holds
 * what its label says (2^j * divisor need not fall on a bucket's edge: with
 * divisor 1000, row 32 -> 63 is [32000, 64000) ns).  A bucket holding a
 * row's edge is split by the share of its values on either side, taken as
 * spread evenly over the part of it that [min, max] leaves; counts are
 * rounded so that they add up to the total.  A
 * row is off by at most the counts of the buckets holding its two edges,
 * and exact when they hold none (divisor 1: the edges are buckets' edges).
 * Returns the number of rows used (highest non-empty + 1). */
int hist_fold_log2(const struct hist *h, double divisor, hist_u64 out[65]);
/* Fold into n linear buckets [min + j*step, min + (j+1)*step), assigned
 * by midpoint as above; values outside go to *below and *above. */
void hist_fold_linear(const struct hist *h, double min, double step, int n, hist_u64 *out,
		      hist_u64 *below, hist_u64 *above);
#endif

#endif
