/*
 * explain.h - what `gpudoctor explain` found in a log, and what this machine
 * says about it.
 *
 * The command (commands/cmd_explain.c) reads the log through the normaliser
 * and matcher (lognorm.h, logmatch.h), then builds one struct xitem per hit:
 * its captured values decoded (logdecode.h) and, for each cause the rule
 * points to, a confirmation on this machine (confirm.h) with the machine's
 * own fix.  The renderers (explain_text.c, explain_json.c) print it; they
 * decide nothing.
 *
 *	struct explanation x;
 *	explanation_build(&x, &match, &rules, kb, conf_in_or_NULL);
 *	explain_render_text(&x, use_color, &out);
 *	explanation_release(&x);
 */
#ifndef GD_EXPLAIN_H
#define GD_EXPLAIN_H

#include <stddef.h>

#include "core/buf.h"
#include "explain/logmatch.h"

struct kb;
struct confirm_in;

enum xconf {
	XC_NOT_CHECKED,		/* --no-live: nothing was asked of this machine */
	XC_CONFIRMED,		/* this machine shows the cause, with evidence */
	XC_NOT_REPRODUCED,	/* this machine was checked and does not show it */
	XC_CANNOT_TELL,		/* nothing here can say (no check for it, or a lower layer broke) */
};

struct xcause {
	enum cause_id cause;
	const char *id;		/* its id string */
	int layer;		/* enum layer_id of the cause */
	const char *title;	/* the catalogue's title */
	enum xconf conf;
	char **evidence;	/* why the confirmation says what it says */
	size_t nevidence;
	char *fix;		/* the machine's fix when confirmed, else the catalogue's */
	int fix_is_machine;	/* fix came from a finding on this machine */
};

struct xitem {
	const struct logmatch_hit *hit;
	enum lr_class cls;	/* the rule's class: the rule's, or scope when its numbers say so */
	int layer;		/* the rule's layer; -1 for scope and benign */
	char *decoded[LR_MAX_CAPS];	/* what each captured value means, or NULL */
	struct xcause causes[LR_MAX_CAUSES];
	size_t ncauses;
};

struct explanation {
	const char *input;	/* "-", a file name, or the command run */
	long input_lines;
	long lines_seen;
	long dropped;
	int live;		/* confirmation ran */
	const char *live_note;	/* why it did not, or what it ran against */
	struct xitem *items;	/* sorted: causes by layer bottom-up, then scope, then benign */
	size_t n;
	size_t ncause_items, nscope_items, nbenign_items;
	/*
	 * The most specific evidence: the cause item whose rule names the
	 * fewest candidate causes (then: a cause confirmed on this machine,
	 * the rule's priority, the lower layer); its cause, confirmed first.
	 * NULL when no cause item names a cause.
	 */
	const struct xitem *primary_item;
	const struct xcause *primary;
	char kb_as_of[16];	/* the knowledge base's as-of date, "" unknown */
};

void explanation_build(struct explanation *x, const struct logmatch *m, const struct kb *kb,
		       const struct confirm_in *ci);
void explanation_release(struct explanation *x);

/* Exit status of explain: 0 something matched, 3 nothing did. */
int explanation_exit(const struct explanation *x);

const char *xconf_name(enum xconf c);	/* "confirmed", "not-reproduced", ... */

void explain_render_text(const struct explanation *x, int use_color, struct buf *out);
void explain_render_json(const struct explanation *x, struct buf *out);

/* `explain CAUSE-ID`: the catalogue entry; -1 when the id is unknown. */
int explain_render_cause(const char *id, int json, struct buf *out);

#endif
