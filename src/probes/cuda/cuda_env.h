/*
 * cuda_env.h - the environment variables that change what CUDA sees or does.
 *
 * cuda_env_scan() records every variable of the table that is set (in the
 * environment gpudoctor runs in: the one the isolated children inherit), and
 * marks those that change CUDA's behaviour in a way worth a warning.  Source
 * of the meanings: NVIDIA, "CUDA Environment Variables", CUDA Programming
 * Guide, https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html
 *
 * What CUDA_VISIBLE_DEVICES leaves visible is a rule's question
 * (rules/cuda_visible.h).
 *
 *	cuda_env_scan(&inv->driver);	// by probe_driver()
 */
#ifndef GD_CUDA_ENV_H
#define GD_CUDA_ENV_H

#include <stddef.h>

struct driver_inventory;

/* Record the set variables into d->env (getenv, not files: see above). */
void cuda_env_scan(struct driver_inventory *d);

#endif
