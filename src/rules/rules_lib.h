/*
 * rules_lib.h - the parts of rules_libraries() (rules.h) in files of their
 * own, called only by it and by each other downwards:
 *
 *	problems += rl_rule_corrupt(rep, li);		rules_lib_files.c
 *	problems += rl_rule_runtime(in, rep, li);	rules_lib_cuda.c
 *	rl_ev_copy(f, c); rl_winner_of(li, "libcudnn.so.9");	rules_lib_common.c
 */
#ifndef GD_RULES_LIB_H
#define GD_RULES_LIB_H

#include "rules/rules.h"
#include "report/report.h"

struct inventory;
struct lib_copy;
struct lib_resolved;
struct libraries_inventory;

/* rules_lib_common.c */
const char *rl_base_name(const char *p);
char *rl_dir_of(const char *p);
enum reach rl_reach_of(const struct lib_copy *c);
void rl_fix_reinstall(struct finding *f, const struct lib_copy *c);
void rl_ev_copy(struct finding *f, const struct lib_copy *c);
int rl_same_release(const char *a, const char *b);
const struct lib_copy *rl_newer_active_copy(const struct libraries_inventory *li,
						const struct lib_resolved *r,
						const struct lib_copy *w, int wheels);
const struct lib_copy *rl_winner_of(const struct libraries_inventory *li, const char *so);

/* rules_lib_files.c */
int rl_rule_corrupt(struct report *rep, const struct libraries_inventory *li);
int rl_rule_unreadable(const struct rules_in *in, struct report *rep,
			   const struct libraries_inventory *li);
int rl_rule_deps(struct report *rep, const struct libraries_inventory *li);
int rl_rule_symlink(struct report *rep, const struct libraries_inventory *li);
int rl_rule_live(struct report *rep, const struct libraries_inventory *li);
int rl_rule_ldcache(struct report *rep, const struct libraries_inventory *li);
int rl_rule_preloads(struct report *rep, const struct libraries_inventory *li);

/* rules_lib_cuda.c */
int rl_rule_cudnn_subs(struct report *rep, const struct libraries_inventory *li);
int rl_rule_shadowed(struct report *rep, const struct libraries_inventory *li);
int rl_rule_runtime(const struct rules_in *in, struct report *rep,
			const struct libraries_inventory *li);
int rl_rule_cudnn_header(const struct rules_in *in, struct report *rep,
			     const struct libraries_inventory *li);
int rl_rule_nccl(struct report *rep, const struct libraries_inventory *li);

#endif
