/*
 * rules_fw.h - what the framework rules' files share: the GPUs the
 * frameworks would see (struct rf), the accumulator of one framework's
 * problems (struct rf_acc, rf_acc_note), the helpers, and the checks that
 * rules_frameworks.c runs for each framework install.
 *
 *	rules_frameworks()		rules_frameworks.c: the layer, each install's summary
 *	rf_missing(), rf_cudnn(), rf_cudnn_arch()	rules_fw_libs.c: its libraries
 *	rf_driver(), rf_driver_knows(), rf_arch(), rf_known_failures()
 *					rules_fw_gpu.c: against the driver and the GPUs
 *	rf_pretty(), rf_lib(), rf_py(), ...	rules_fw_common.c: shared, calls none of the above
 *
 * Internal to src/rules/: nothing outside the framework rules includes it.
 */
#ifndef GD_RULES_FW_H
#define GD_RULES_FW_H

#include "rules/rules.h"
#include "core/buf.h"
#include "inventory/inventory.h"

#include <stddef.h>

struct kb_torch;

/* The GPUs the frameworks would see: the CUDA child's devices, else the PCI list + KB. */
struct rf_gpu {
	const char *name;
	int cc_major, cc_minor;
	int datacenter;
	const struct kb_gpu *kbg;	/* its row by PCI id, or NULL */
};

struct rf {
	const struct rules_in *in;
	struct report *rep;
	struct rf_gpu gpus[16];
	size_t ngpus;
	const char *driver;		/* driver version, or NULL */
	const char *driver_from;
};

struct rf_acc {
	enum status worst;
	enum cause_id cause;	/* of the worst problem, for the summary finding */
	struct buf because;	/* distinct reasons, for the summary line */
	char *fix;		/* the fix of the first problem of the worst status */
};

/* rules_fw_common.c */
const char *rf_pretty(const char *name);
const struct fw_lib *rf_lib(const struct fw_entry *w, enum fw_role role);
const char *rf_py(const struct fw_entry *w);
/* Fixes as word lists (report.h), set on f: the framework's CUDA libraries;
   torch release t (its index for a variant), reinstalled. */
void rf_fix_libs(const struct fw_entry *w, struct finding *f);
void rf_fix_torch(const struct fw_entry *w, const struct kb_torch *t, struct finding *f);
const char *rf_source(const struct fw_lib *l);
void rf_lib_evidence(struct finding *f, const struct fw_lib *l);
void rf_acc_note(struct rf_acc *a, enum status st, enum cause_id cause, const char *why, const char *fix);
char *rf_dirname(const char *p);
void rf_partial_evidence(struct finding *f, const struct fw_entry *w);
void rf_source_evidence(const struct rf *r, struct finding *f, const char *ids);

/* rules_fw_libs.c */
void rf_missing(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a);
void rf_cudnn(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a);
void rf_cudnn_arch(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a);

/* rules_fw_gpu.c */
void rf_driver(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a);
void rf_driver_knows(struct rf *r, struct rf_acc *a);
void rf_arch(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a);
void rf_known_failures(struct rf *r, const struct fw_entry *w, const char *idbase, struct rf_acc *a);

#endif
