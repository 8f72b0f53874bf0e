/*
 * rules_ctr.h - the parts of rules_containers() (rules.h) in files of their
 * own, called only by it.
 *
 *	struct rc_seen s; rc_count(c, &s); rc_judge_injection(in, rep, &s);
 *	rc_judge_requires(), rc_judge_revoked(), rc_judge_libs(),
 *	rc_judge_compat(), rc_judge_shm_memlock()	rules_ctr_inside.c
 *	rc_judge_host(in, rep)				rules_ctr_host.c
 */
#ifndef GD_RULES_CTR_H
#define GD_RULES_CTR_H

#include "rules/rules.h"

#include <stddef.h>

struct containers_inventory;
struct ctr_env;
struct finding;
struct inventory;

/* What a container has of the GPU, counted once. */
struct rc_seen {
	size_t gpu_nodes, ctl, libcuda, libcuda_injected, nvml, injected;
};

/* rules_ctr_inside.c */
const char *rc_kmod_version(const struct inventory *inv);
void rc_count(const struct containers_inventory *c, struct rc_seen *s);
void rc_env_evidence(struct finding *f, const struct ctr_env *env);
void rc_judge_injection(const struct rules_in *in, struct report *rep, const struct rc_seen *s);
void rc_judge_requires(const struct rules_in *in, struct report *rep);
void rc_judge_revoked(const struct rules_in *in, struct report *rep);
void rc_judge_libs(const struct rules_in *in, struct report *rep);
void rc_judge_compat(const struct rules_in *in, struct report *rep);
void rc_judge_shm_memlock(const struct rules_in *in, struct report *rep);

/* rules_ctr_host.c */
void rc_judge_host(const struct rules_in *in, struct report *rep);

#endif
