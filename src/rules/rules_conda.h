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

#endif
