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
 *	finding_fix_cmd(f, "sudo", "modprobe", "nvidia", NULL);
 */
#ifndef GD_REPORT_H
#define GD_REPORT_H

#include <stddef.h>

#include "knowledge/causes.h"
#include "knowledge/kb_xid.h"
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
	/* Scope: what the finding is about, beyond its layer (set by the
	   finding_scope*() calls; watch, health and --ack match on it). */
	int gpu;		/* the GPU's index; -1 none or unknown */
	char *pci;		/* its PCI address "0000:18:00.0"; NULL unknown */
	char *uuid;		/* its UUID "GPU-..."; NULL unknown */
	int xid;		/* the XID it reports; 0 none */
	enum kb_xid_action xid_action;	/* NVIDIA's action for it (after the
					   XID policy); KB_XID_NONE without */
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
/* Sets the scope; pci and uuid are copied, NULL leaves them unknown. */
void finding_scope(struct finding *f, int gpu, const char *pci, const char *uuid);
void finding_scope_xid(struct finding *f, int xid, enum kb_xid_action action);
/*
 * A copy of a finding made elsewhere, its status kept: one that crossed a
 * process as a report/finding_record.h record (the severity policy decided
 * it there), or one report's finding carried into another (watch's static
 * check into each sweep's report).
 */
struct finding *report_add_copy(struct report *r, const struct finding *src);
/* Frees what a finding owns and empties it (report_release does it for its own). */
void finding_release(struct finding *f);

/*
 * What a scheduler should do about a finding: the cause's action
 * (knowledge/cause_policy.def), or, for a cause whose action is its XID's
 * (CF_XID_ACTION), CAUSE_ACT_REBOOT when NVIDIA's action is reset-gpu or
 * reboot (a scheduler can only reset a GPU by rebooting the idle node) and
 * CAUSE_ACT_NONE otherwise.
 */
enum cause_action finding_action(const struct finding *f);
/*
 * The status a node's health gives a finding (health, and so what Slurm
 * drains): its own status, except that a GPU taken by other work (a cause
 * flagged CF_IN_USE: a job's memory, an Exclusive_Process context) is at
 * most a warning, or any user's job would drain the node it runs on.
 */
enum status finding_node_status(const struct finding *f);

/*
 * The status of a finding of this cause and reach: the catalogue's class
 * through the severity policy (knowledge/severity.h).  The one place a
 * status is decided, for every command.  An XID's reach is its action:
 * restart-app concerns one application (REACH_LATENT for the GPU), anything
 * beyond it every job on the GPU (REACH_WORK); finding_xid_reach() says so.
 */
enum status finding_status(enum cause_id cause, enum reach reach);
enum reach finding_xid_reach(enum kb_xid_action a);

/*
 * Sets (replaces) the fix from a format: prose, or a constant command.  A
 * machine value goes in a word list (finding_fix_cmd) instead: no
 * conversion in this format (tests/e2e/test_project_rules.py).
 */
void finding_fix(struct finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Sets (replaces) the fix with one command made of argument words, the list
 * ended by NULL; each word is quoted as one shell word when needed
 * (core/shquote.h), so a machine value can never become shell code:
 *	finding_fix_cmd(f, "nvidia-smi", "-q", "-d", "PCIE", "-i", bdf, NULL);
 * A few marker words (compared by address, never printed as themselves)
 * shape the line:
 *	FIX_AND, FIX_OR, FIX_SEMI, FIX_PIPE	" && ", " || ", "; ", " | "
 *		between two commands;
 *	FIX_GLUE	the next word follows the previous one with no space,
 *		each quoted on its own ("--output=", FIX_GLUE, path gives
 *		--output='/a b');
 *	FIX_SH		the next word is shell text of ours, written as it is:
 *		a string literal only ("$(uname -r)", "'nvidia-driver-*'"),
 *		never a value (tests/e2e/test_project_rules.py checks it).
 *	finding_fix_cmd(f, "sudo", "rm", "-rf", path, FIX_AND,
 *			"sudo", "nvidia-modprobe", "-c", "0", "-u", NULL);
 * The fix keeps its shape: one string, "CMD" or "CMD  (prose)".
 */
extern const char FIX_AND[], FIX_OR[], FIX_SEMI[], FIX_PIPE[], FIX_GLUE[], FIX_SH[];
void finding_fix_cmd(struct finding *f, const char *word, ...) __attribute__((sentinel));
/*
 * The same from an array ended by NULL, or from a list built at run time
 * (the words are not copied: they must outlive the finding_fix_argv call):
 *	struct fixwords w = FIXWORDS_INIT;
 *	fixwords_add(&w, "unset");  for (...) fixwords_add(&w, name);
 *	finding_fix_argv(f, w.w);  fixwords_release(&w);
 */
void finding_fix_argv(struct finding *f, const char *const *words);
struct fixwords {
	const char **w;		/* ended by NULL once a word is added */
	size_t n, cap;
};
#define FIXWORDS_INIT { NULL, 0, 0 }
void fixwords_add(struct fixwords *w, const char *word);
void fixwords_release(struct fixwords *w);
/*
 * Sets the fix to one the word functions built for another finding (its
 * f->fix): a verdict that repeats the fix of its first blocking problem.
 * Never a string made any other way.
 */
void finding_fix_copy(struct finding *f, const char *fix);
/* Sets the fix to the catalogue's generic fix for the finding's cause. */
void finding_fix_catalogue(struct finding *f);
/*
 * Appends prose for people after the command, as "CMD  (prose)": the part a
 * person reads and does not paste.  No name or path from the machine
 * belongs in it (a number or a knowledge-base version may).
 * Without a command it is the whole fix.
 */
void finding_fix_note(struct finding *f, const char *fmt, ...)
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
