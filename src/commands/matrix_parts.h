/*
 * matrix_parts.h - the parts of matrix_answer() (matrix.h) shared by its
 * files: the context a fit is judged in (struct mx_env), the items, facts
 * and notes an answer is made of, and the two kinds of question.
 *
 *	mx_fact(r, "driver", "%s", d); mx_note(r, ...); mx_judge(r, ok);
 *	it = mx_item(r, "torch", ver, &v, install, table);	matrix_items.c
 *	mx_ask_tf(kb, ver, &x, cuda, r, e);	matrix_ask.c: a named release
 *	mx_newest_all(kb, &x, r, scenario);	matrix_newest.c: the newest that fit
 *	mx_upgrade_unlocks(kb, &x, r);
 *
 * Internal to src/commands/matrix_*.c.
 */
#ifndef GD_MATRIX_PARTS_H
#define GD_MATRIX_PARTS_H

#include "commands/matrix.h"

struct err;

/* The context every fit is judged in. */
struct mx_env {
	const char *driver;
	int ma, mi, dc;
	int cuda_major;		/* -1: any */
	int cuda;		/* --cuda as 12040: builds needing a newer one are out; -1 any */
	const struct kb_gpu *gpu;
};

/* matrix_items.c */
void mx_fact(struct matrix_result *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void mx_note(struct matrix_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void mx_judge(struct matrix_result *r, int ok);
struct matrix_item *mx_item_from(struct matrix_result *r, const char *what, const char *version,
				     const struct kb_verdict *v, const char *install, const char *table,
				     const char *row_source);
struct matrix_item *mx_item(struct matrix_result *r, const char *what, const char *version,
				const struct kb_verdict *v, const char *install, const char *table);
void mx_known_failure(struct matrix_item *it, const struct kb_fit *f);
struct kb_target mx_target(const struct mx_env *x);
int mx_cuda_excluded(const struct mx_env *x, int cuda);
void mx_jax_label(const struct kb_jax *j, char *out, size_t n);
void mx_tf_loader_note(const struct kb *kb, const struct kb_tf *t, struct matrix_result *r);
void mx_min_driver_fact(const struct kb *kb, const char *key, int cuda, struct matrix_result *r);

/* matrix_ask.c */
int mx_ask_tf(const struct kb *kb, const char *ver, const struct mx_env *x, int cuda,
		  struct matrix_result *r, struct err *e);
int mx_ask_torch(const struct kb *kb, const char *ver, const struct mx_env *x, struct matrix_result *r,
		     struct err *e);
int mx_ask_jax(const struct kb *kb, const char *ver, const struct mx_env *x, struct matrix_result *r,
		   struct err *e);
int mx_ask_cupy(const struct kb *kb, const char *ver, const struct mx_env *x, struct matrix_result *r,
		    struct err *e);

/* matrix_newest.c */
void mx_newest_all(const struct kb *kb, const struct mx_env *x, struct matrix_result *r, int scenario);
void mx_upgrade_unlocks(const struct kb *kb, const struct mx_env *x, struct matrix_result *r);

#endif
