// SPDX-License-Identifier: GPL-2.0
/* kdist_seed: IO page faults of known count and time, for `kdist pair
 * smmu:io_fault_entry smmu:io_fault_exit --key pasid --by pasid`.
 *
 * Writing to /sys/module/kdist_seed/parameters/run raises, from the
 * writer's context, `faults` rounds of faults: in each round `inflight`
 * faults of each of `pasids` PASIDs (first_pasid, first_pasid + 1, ...)
 * at once.  Each fault is resolved by a work on an unbound workqueue (a
 * kworker: another context), no sooner than (i + 1) * wait_us after its
 * entry for the i-th PASID; a round ends when all its faults are resolved,
 * and the write returns after the last round.  So PASID i has
 * faults * inflight entries and as many exits, each pair apart by at
 * least its wait. */
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#define CREATE_TRACE_POINTS
#include "seed_trace.h"

static int pasids = 4, faults = 10, inflight = 1, wait_us = 2000, first_pasid = 1;
static char *dev = "kdist-seed";
module_param(pasids, int, 0644);
MODULE_PARM_DESC(pasids, "PASIDs faulting at once");
module_param(faults, int, 0644);
MODULE_PARM_DESC(faults, "rounds of faults per run");
module_param(inflight, int, 0644);
MODULE_PARM_DESC(inflight, "faults of one PASID in flight at once");
module_param(wait_us, int, 0644);
MODULE_PARM_DESC(wait_us, "the i-th PASID's faults take at least (i + 1) * wait_us");
module_param(first_pasid, int, 0644);
MODULE_PARM_DESC(first_pasid, "the first PASID");
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the device name in the events");

struct fault {
	struct work_struct work;
	ktime_t start;
	s64 wait_ns;
	int pasid;
};

static struct workqueue_struct *seed_wq;
static DEFINE_MUTEX(seed_lock);

static void resolve(struct work_struct *w)
{
	struct fault *f = container_of(w, struct fault, work);
	s64 left = f->wait_ns - ktime_to_ns(ktime_sub(ktime_get(), f->start));

	if (left > 0)
		usleep_range(div_s64(left, 1000) + 1, div_s64(left, 1000) + 100);
	trace_io_fault_exit(dev, f->pasid);
}

static int run_set(const char *val, const struct kernel_param *kp)
{
	int n, i, r;
	struct fault *fs;

	if (pasids < 1 || inflight < 1 || faults < 0 || wait_us < 0)
		return -EINVAL;
	n = pasids * inflight;
	fs = kcalloc(n, sizeof(*fs), GFP_KERNEL);
	if (!fs)
		return -ENOMEM;
	mutex_lock(&seed_lock);
	for (r = 0; r < faults; r++) {
		for (i = 0; i < n; i++) {
			struct fault *f = &fs[i];

			INIT_WORK(&f->work, resolve);
			f->pasid = first_pasid + i / inflight;
			f->wait_ns = (s64)(i / inflight + 1) * wait_us * NSEC_PER_USEC;
			trace_io_fault_entry(dev, f->pasid);
			/* after the entry's programs ran (they may take long,
			 * emulated): the exit comes no sooner than wait_ns
			 * after any timestamp they took */
			f->start = ktime_get();
			queue_work(seed_wq, &f->work);
		}
		flush_workqueue(seed_wq);
	}
	mutex_unlock(&seed_lock);
	kfree(fs);
	return 0;
}

static const struct kernel_param_ops run_ops = {
	.set = run_set,
	.get = param_get_int,
};
static int runs;
module_param_cb(run, &run_ops, &runs, 0200);
MODULE_PARM_DESC(run, "write anything: raise the faults");

static int __init seed_init(void)
{
	seed_wq = alloc_workqueue("kdist_seed", WQ_UNBOUND, 0);
	return seed_wq ? 0 : -ENOMEM;
}

static void __exit seed_exit(void)
{
	destroy_workqueue(seed_wq);
}

module_init(seed_init);
module_exit(seed_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("IO page fault tracepoints of known count and time, for kdist's tests");
