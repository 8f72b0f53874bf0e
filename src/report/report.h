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
 *				       CAUSE_NVIDIA_MODULE_NOT_LOADED, REACH_WORK,
 *				       "the nvidia kernel module is not loaded");
 *	finding_evidence(f, "/proc/modules has no line for nvidia");
 *	finding_fix(f, "sudo modprobe nvidia");
 */
#ifndef GD_REPORT_H
#define GD_REPORT_H

#include <stddef.h>

#include "knowledge/causes.h"
#include "knowledge/layers.h"
#include "knowledge/severity.h"

struct finding {
	char *id;
	enum layer_id layer;
	enum status status;
	enum cause_id cause;	/* CAUSE_NONE when ok or skipped */
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
	char kb_as_of[16];	/* the knowledge base's as-of date (kb_as_of()), "" unknown */
};

void report_init(struct report *r);
void report_release(struct report *r);

/*
 * A finding with a cause.  Its status is the catalogue's severity policy
 * (knowledge/severity.h) for that cause and reach, never the caller's pick.
 */
struct finding *report_add(struct report *r, enum layer_id layer, const char *id,
			   enum cause_id cause, enum reach reach, const char *title_fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* A check that passed, or one that could not run here. */
struct finding *report_ok(struct report *r, enum layer_id layer, const char *id,
			  const char *title_fmt, ...)
	__attribute__((format(printf, 4, 5)));
struct finding *report_skip(struct report *r, enum layer_id layer, const char *id,
			    const char *title_fmt, ...)
	__attribute__((format(printf, 4, 5)));
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
const struct finding *report_find_cause(const struct report *r, enum cause_id cause);


#endif
