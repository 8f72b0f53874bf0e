/*
 * report.h - the verdicts of one run: layers and findings.
 *
 * Rules add findings; renderers print them; nothing here probes or decides.
 * A finding has a stable id ("kernel.module-version"), a status, a cause id
 * from the catalogue (knowledge/causes.h; NULL when ok), a one-line title,
 * evidence lines (the file, value or call that shows it) and a fix a person
 * can paste.  Layer status is derived by report_finish(): the worst of its
 * findings, or "blocked" when a layer below it failed.
 *
 *	struct finding *f = report_add(rep, LAYER_KERNEL, "kernel.module",
 *				       STATUS_FAIL, "nvidia-module-not-loaded",
 *				       "the nvidia kernel module is not loaded");
 *	finding_evidence(f, "/proc/modules has no line for nvidia");
 *	finding_fix(f, "sudo modprobe nvidia");
 */
#ifndef GD_REPORT_H
#define GD_REPORT_H

#include <stddef.h>

enum status {
	STATUS_OK,
	STATUS_SKIPPED,
	STATUS_WARN,
	STATUS_FAIL,
	STATUS_BLOCKED,		/* layers only */
};

enum layer_id {
	LAYER_HARDWARE,
	LAYER_KERNEL,
	LAYER_CONTAINERS,	/* the runtime injects the nodes and libraries above */
	LAYER_DEVICES,
	LAYER_DRIVER,
	LAYER_CUDA,
	LAYER_LIBRARIES,
	LAYER_FRAMEWORKS,
	LAYER_COUNT
};

struct finding {
	char *id;
	enum layer_id layer;
	enum status status;
	const char *cause;	/* catalogue id, or NULL */
	char *title;
	char **evidence;
	size_t nevidence, evidence_cap;
	char *fix;		/* NULL when there is nothing to do */
};

struct layer_result {
	enum status status;
	char *summary;
	int blocked_by;		/* layer id when STATUS_BLOCKED, else -1 */
};

struct report {
	struct finding *findings;
	size_t n, cap;
	struct layer_result layers[LAYER_COUNT];
	enum status status;	/* overall: ok, warn or fail */
	/* Wall time spent on each layer (static probe + live probe + rules), ms. */
	double layer_ms[LAYER_COUNT];
	double total_ms;
};

void report_init(struct report *r);
void report_release(struct report *r);

struct finding *report_add(struct report *r, enum layer_id layer, const char *id,
			   enum status st, const char *cause, const char *title_fmt, ...)
	__attribute__((format(printf, 6, 7)));
void finding_evidence(struct finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Sets (replaces) the fix. */
void finding_fix(struct finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void report_set_summary(struct report *r, enum layer_id layer, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Worst status of the findings of one layer (STATUS_OK when none). */
enum status report_layer_worst(const struct report *r, enum layer_id layer);
/* Mark a layer blocked by a lower one; its failed findings become warnings. */
void report_block(struct report *r, enum layer_id layer, enum layer_id by);
/* Derive layer statuses not yet set and the overall status. */
void report_finish(struct report *r);

/* Does any finding have this cause? (tests and rules use it) */
const struct finding *report_find_cause(const struct report *r, const char *cause);

const char *status_name(enum status s);
const char *layer_name(enum layer_id l);

#endif
