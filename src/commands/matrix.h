/*
 * matrix.h - the pieces of `gpudoctor matrix` (cmd_matrix.c parses options).
 *
 * matrix_answer.c (with matrix_ask.c, matrix_newest.c and matrix_items.c,
 * matrix_parts.h) answers a query over the knowledge base into a struct
 * matrix_result; matrix_render.c prints it as text or JSON; matrix_machine.c
 * reads this machine's NVIDIA GPUs (PCI ids from sysfs) and driver version
 * for --solve, through core/fs.h so --root works.
 */
#ifndef GD_MATRIX_H
#define GD_MATRIX_H

#include <stddef.h>

#include "knowledge/kb.h"

struct gd_ctx;

struct matrix_query {
	const char *tf, *torch, *jax;	/* release asked about, or NULL */
	const char *cuda;		/* "12.4" */
	const char *driver;		/* "535.104.05" */
	const char *gpu;		/* name */
	const char *cc;			/* "8.9" */
	const char *pci;		/* "10de:2684" */
	const char *cupy;		/* CuPy major ("14"), or NULL */
	int nccl;			/* where NCCL comes from */
	int solve;
};

struct matrix_fact {
	char key[48];
	char value[512];
};

/* The situation an answer is judged in. */
enum matrix_scenario {
	MATRIX_AS_QUERIED,	/* the driver, GPU, CUDA given (or read for --solve) */
	MATRIX_NEWER_DRIVER,	/* the same, with the driver in needs_driver or newer */
};

struct matrix_item {
	char what[64];		/* bare name: "tensorflow", "torch", "jax", "cupy" */
	char version[48];	/* "2.21.0" or "2.14+cu130"; "" none fits (JSON null) */
	int ok;			/* 1 runs, 0 does not, -1 probably / unknown */
	int scenario;		/* enum matrix_scenario */
	char needs_driver[64];	/* MATRIX_NEWER_DRIVER: the lowest driver that makes it a yes */
	char why[1024];
	char install[256];	/* "" none */
	const char *source;	/* the source id of the deciding fact */
	const char *row_source;	/* the source id of the table row itself, or NULL */
	const char *table;	/* the knowledge-base table the answer comes from ("tf.tsv") */
	int known_failure;	/* no because of a reported failure (failures.tsv) */
};

#define MATRIX_MAX 64

struct matrix_result {
	int verdict;		/* 1 the combination works, 0 contradiction, -1 no judgement */
	size_t nfacts, nitems, nnotes;
	struct matrix_fact facts[MATRIX_MAX];
	struct matrix_item items[MATRIX_MAX];
	char notes[16][512];
};

/* The machine's view for --solve. */
struct matrix_machine {
	size_t ngpus;
	unsigned device[16];	/* PCI device ids of vendor 10de, display class */
	char driver[64];	/* "" when no driver is loaded */
	char driver_from[64];	/* the file it was read from */
};

int matrix_machine_read(const struct gd_ctx *ctx, struct matrix_machine *m);

/* Fill r; returns 0, or -1 with a usage error in e (bad --cc, unknown --gpu ...). */
int matrix_answer(const struct kb *kb, const struct matrix_query *q,
		  const struct matrix_machine *m, struct matrix_result *r, struct err *e);

void matrix_render_text(const struct kb *kb, const struct matrix_result *r);
void matrix_render_json(const struct kb *kb, const struct matrix_query *q,
			const struct matrix_result *r);
void matrix_kb_info(const struct kb *kb, const char *kb_dir, int json);

#endif
