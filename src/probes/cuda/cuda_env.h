/*
 * cuda_env.h - the environment variables that change what CUDA sees or does.
 *
 * cuda_env_scan() records every variable of the table that is set (in the
 * environment gpudoctor runs in: the one the isolated children inherit), and
 * marks those that change CUDA's behaviour in a way worth a warning.  Source
 * of the meanings: NVIDIA, "CUDA Environment Variables", CUDA Programming
 * Guide, https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html
 *
 * cuda_env_visible() applies CUDA_VISIBLE_DEVICES' documented rules to a known
 * set of GPUs: an empty value hides all; indices and (prefixes of) UUIDs
 * select; the first invalid entry ends the list.
 */
#ifndef GD_CUDA_ENV_H
#define GD_CUDA_ENV_H

#include <stddef.h>

#include "core/buf.h"

struct driver_inventory;

/* Record the set variables into d->env (getenv, not files: see above). */
void cuda_env_scan(struct driver_inventory *d);

/*
 * How many of `count` GPUs (uuids[i], may be NULL entries) a value of
 * CUDA_VISIBLE_DEVICES leaves visible; why is filled with the reason when
 * some entry is invalid or the list is empty.  count < 0 (unknown): returns
 * 0 when nothing can be visible whatever the GPUs ("", "-1", "none"), else -1.
 */
int cuda_env_visible(const char *value, int count, const char *const *uuids, struct buf *why);

#endif
