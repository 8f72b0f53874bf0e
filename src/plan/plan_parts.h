/*
 * plan_parts.h - the parts of plan_build() (plan.h) in files of their own,
 * called by it and by each other downwards (steps, then target, then
 * driver, then build):
 *
 *	s = pb_step(p, "driver", ...); pb_why(s, "..."); pb_cmd(s, "..."); pb_verify(s, "...");
 *	pb_choose(kb, req, &tg, &t, p, e)	plan_target.c: the release
 *	pb_driver_commands(p, m, s, branch, open_ok)	plan_driver.c: the driver's packages
 */
#ifndef GD_PLAN_PARTS_H
#define GD_PLAN_PARTS_H

#include "plan/plan.h"

/* The release a plan installs (plan_target.c chooses it). */
struct pb_target {
	const struct kb_tf *tf;
	const struct kb_torch *pt;
	const struct kb_jax *j;
	const char *jver;
	int cuda;		/* the build's CUDA (12050) */
	const char *python;	/* "3.10-3.13", NULL unknown */
};


/* plan_steps.c */
struct plan_step *pb_step(struct plan *p, const char *id, enum plan_state st, const char *layer,
			      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void pb_why(struct plan_step *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pb_cmd(struct plan_step *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pb_note(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pb_verify(struct plan_step *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* plan_target.c */
int pb_fit_of(const struct kb *kb, const struct pb_target *t, const struct kb_target *tg, struct kb_fit *f);
int pb_choose(const struct kb *kb, const struct plan_request *r, const struct kb_target *tg,
		  struct pb_target *t, struct plan *p, struct err *e);

/* plan_driver.c */
void pb_distribution(const struct plan_machine *m, struct plan *p);
const char *pb_lowest_driver(const struct kb *kb, const struct pb_target *t, const struct kb_target *base);
void pb_driver_commands(const struct plan *p, const struct plan_machine *m, struct plan_step *s, int branch,
			    int open_ok);

#endif
