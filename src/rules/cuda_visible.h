/*
 * cuda_visible.h - how many GPUs a value of CUDA_VISIBLE_DEVICES leaves
 * visible, by CUDA's documented rules: an empty value hides all; indices
 * and (prefixes of) UUIDs select; the first invalid entry ends the list.
 * Source: NVIDIA, "CUDA Environment Variables", CUDA Programming Guide,
 * https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html
 *
 * rules_driver.c asks it about the value the driver probe recorded
 * (driver_env_get(&inv->driver, "CUDA_VISIBLE_DEVICES")) and NVML's GPUs:
 *
 *	struct buf why = BUF_INIT;
 *	int n = cuda_visible_count(value, ngpus, uuids, &why);
 *	if (n == 0) report why.s;
 *	buf_release(&why);
 */
#ifndef GD_RULES_CUDA_VISIBLE_H
#define GD_RULES_CUDA_VISIBLE_H

#include "core/buf.h"

#include <stddef.h>

/*
 * How many of `count` GPUs (uuids[i], may be NULL entries) a value of
 * CUDA_VISIBLE_DEVICES leaves visible; why is filled with the reason when
 * some entry is invalid or the list is empty.  count < 0 (unknown): returns
 * 0 when nothing can be visible whatever the GPUs ("", "-1", "none"), else -1.
 */
int cuda_visible_count(const char *value, int count, const char *const *uuids, struct buf *why);
/*
 * The same, where "MIG-<uuid>" entries (drivers >= R470) are checked against
 * the MIG devices' UUIDs mig[0..nmig): one that matches exactly one counts as
 * visible.  MIG user guide, CUDA_VISIBLE_DEVICES:
 * https://docs.nvidia.com/datacenter/tesla/mig-user-guide/
 */
int cuda_visible_count_mig(const char *value, int count, const char *const *uuids,
			   const char *const *mig, size_t nmig, struct buf *why);

#endif
