/*
 * rules_conda.h - conda environments that mix conda's CUDA packages with
 * pip nvidia-* wheels or the system toolkit (conda-cuda-mixed); called by
 * rules_libraries().
 *
 *	rules_conda(in, rep);
 */
#ifndef GD_RULES_CONDA_H
#define GD_RULES_CONDA_H

#include "rules/rules.h"

void rules_conda(const struct rules_in *in, struct report *rep);

/* A line of evidence naming the conda CUDA packages of the environment at prefix, if any. */
void rules_conda_env_evidence(const struct rules_in *in, struct finding *f, const char *prefix);

struct buf;
/*
 * The fix for a library too old for a framework, when conda installed the
 * copy the framework loads (the libraries layer's copy at realpath has a
 * conda package): a conda command, not pip.  Sets it as f's fix and
 * returns 1; returns 0 (f untouched) when conda did not install it.
 * minimum: "8.9", the lowest version that serves.
 */
int rules_conda_fix_upgrade(const struct rules_in *in, const char *realpath, const char *minimum,
			    struct finding *f);

#endif
