/*
 * explain.c - from hits to the explanation: decode captures, confirm each
 * cause, and order the items bottom-up (see explain.h).
 */
#include "explain/explain.h"

#include "core/xalloc.h"
#include "explain/confirm.h"
#include "explain/errcodes.h"
#include "explain/logdecode.h"
#include "knowledge/causes.h"
#include "knowledge/kb.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *xconf_name(enum xconf c)
{
	switch (c) {
	case XC_NOT_CHECKED: return "not-checked";
	case XC_CONFIRMED: return "confirmed";
	case XC_NOT_REPRODUCED: return "not-reproduced";
	case XC_CANNOT_TELL: return "cannot-tell";
	}
	return "?";
}

/* causes bottom-up by layer, then by first line; then scope, then benign */
static int item_rank(const struct xitem *it)
{
	switch (it->cls) {
	case LR_CAUSE: return it->layer;
	case LR_SCOPE: return LAYER_COUNT + 1;
	case LR_BENIGN: return LAYER_COUNT + 2;
	}
	return LAYER_COUNT + 3;
}

static int item_cmp(const void *a, const void *b)
{
	const struct xitem *x = a, *y = b;
	int rx = item_rank(x), ry = item_rank(y);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->hit->first < y->hit->first ? -1 : x->hit->first > y->hit->first;
}

/*
 * The numbering of the log's cudaError_t numbers (errcodes.h), by its
 * evidence: a CUDA 10.0-or-older runtime (@cudart-old) or a newer one
 * (@cudart-new); both or neither: unknown.
 */
static enum cudart_era explain_cudart_era(const struct logmatch *m)
{
	int o = logmatch_cond_seen(m, &m->rules->cudart_old), n = logmatch_cond_seen(m, &m->rules->cudart_new);

	return o == n ? CUDART_ERA_UNKNOWN : o ? CUDART_ERA_OLD : CUDART_ERA_NEW;
}

/* Is c among the n causes of out? */
static int has_cause(const enum cause_id *out, size_t n, enum cause_id c)
{
	for (size_t k = 0; k < n; k++)
		if (out[k] == c)
			return 1;
	return 0;
}

/*
 * The #@beside siblings (logrules.h) of the causes an error code named: the
 * loader adds them to the rows that write their causes, but an "@errcode"
 * row's causes are the code's, known only here.  A sibling stands on its
 * condition's evidence ("?+" or a guess: when seen; "?!": when not), and
 * not when its exception is seen; the exception form drops the code's cause.
 */
static size_t code_besides(const struct logmatch *m, enum cause_id out[LR_MAX_CAUSES], size_t n)
{
	const struct logrules *rs = m->rules;

	for (int added = 1; added;) {
		added = 0;
		for (size_t b = 0; b < rs->nbeside && n < LR_MAX_CAUSES; b++) {
			const struct lr_beside *s = &rs->beside[b];
			int seen;

			if (s->sib == s->cause || !has_cause(out, n, s->cause) || has_cause(out, n, s->sib))
				continue;
			seen = logmatch_cond_seen(m, &s->cond);
			if ((s->except.kind && logmatch_cond_seen(m, &s->except)) ||
			    (s->cond.kind == LR_COND_UNLESS ? seen : !seen))
				continue;
			out[n++] = s->sib;
			added = 1;
		}
	}
	for (size_t b = 0; b < rs->nbeside; b++) {
		const struct lr_beside *s = &rs->beside[b];
		size_t k;

		if (s->sib != s->cause || !has_cause(out, n, s->cause) || !logmatch_cond_seen(m, &s->cond))
			continue;
		for (k = 0; out[k] != s->cause; k++)
			;
		memmove(out + k, out + k + 1, (n - k - 1) * sizeof(*out));
		n--;
	}
	return n;
}

/*
 * The causes a hit names: the rule's, or for an "@errcode" rule those the
 * error-code table gives the captured name or number.
 */
static size_t rule_causes(const struct logmatch *m, const struct logrule *r,
			  const struct logmatch_hit *h, enum cause_id out[LR_MAX_CAUSES])
{
	const struct errcode *ec = NULL;
	size_t n = 0;

	if (!r->by_code) {
		/*
		 * A conditional cause by its evidence in the log (logrules.h); a
		 * guess falls when the log has the evidence of another guess, or
		 * of a cause that is named only on evidence ("?+"): the most
		 * specific evidence wins (nvidia-smi's "couldn't communicate" in
		 * a WSL log is WSL's, not a guess at nouveau or Secure Boot).
		 */
		int guess_seen = 0;

		for (size_t k = 0; k < r->ncauses; k++)
			guess_seen |= (r->cond[k].kind == LR_COND_GUESS || r->cond[k].kind == LR_COND_IF) &&
				      logmatch_cond_seen(m, &r->cond[k]) &&
				      !(r->except[k].kind && logmatch_cond_seen(m, &r->except[k]));
		for (size_t k = 0; k < r->ncauses; k++) {
			int seen = logmatch_cond_seen(m, &r->cond[k]), keep = 1;

			if (r->except[k].kind && logmatch_cond_seen(m, &r->except[k]))
				continue;	/* the guess's exception: "?!" after its evidence */

			switch (r->cond[k].kind) {
			case LR_COND_NONE: break;
			case LR_COND_GUESS: keep = seen || !guess_seen; break;
			case LR_COND_IF: keep = seen; break;
			case LR_COND_UNLESS: keep = !seen; break;
			}
			if (keep)
				out[n++] = r->causes[k];
		}
		return n;
	}
	for (size_t k = 0; k < r->ncaps && !ec; k++) {
		const char *v = h->caps[k], *name = r->capnames[k];
		int fam;

		if (!v || !*v || !name)
			continue;
		if (!strcmp(name, "err_name"))
			ec = errcode_by_name(v, strlen(v));
		else if ((fam = errcode_family_of_short_capture(name)) >= 0)
			ec = errcode_by_short_name((enum errcode_family)fam, v, strlen(v));
		else if ((fam = errcode_family_of_capture(name)) == ERR_CUDART)
			/* renumbered in CUDA 10.1: the log's era or the line's text says which */
			ec = logdecode_number(v) >= 0 ?
				     errcode_cudart(logdecode_number(v), explain_cudart_era(m), h->text) : NULL;
		else if (fam >= 0)
			ec = logdecode_number(v) >= 0 ?
				     errcode_by_number((enum errcode_family)fam, logdecode_number(v)) : NULL;
	}
	for (size_t k = 0; ec && k < sizeof(ec->causes) / sizeof(ec->causes[0]) && ec->causes[k] != CAUSE_NONE &&
	     n < LR_MAX_CAUSES; k++)
		out[n++] = ec->causes[k];
	return code_besides(m, out, n);
}

/* The capture named name (NULL: the rule has none, or it is empty). */
static const char *cap_named(const struct logrule *r, const struct logmatch_hit *h, const char *name)
{
	for (size_t k = 0; k < r->ncaps; k++)
		if (r->capnames[k] && !strcmp(r->capnames[k], name) && h->caps[k] && *h->caps[k])
			return h->caps[k];
	return NULL;
}

static int cap_index(const struct logrule *r, const char *name)
{
	for (size_t k = 0; k < r->ncaps; k++)
		if (r->capnames[k] && !strcmp(r->capnames[k], name))
			return (int)k;
	return -1;
}

/*
 * An out-of-memory report: a cause rule with a capture named oom_* or
 * start_* (logrules.h).
 * Running out of GPU memory is most often the job's own size; the stack's
 * cause (gpu-memory-held) needs evidence that someone else holds it.
 */
static int is_oom_rule(const struct logrule *r)
{
	if (r->cls != LR_CAUSE)
		return 0;
	for (size_t k = 0; k < r->ncaps; k++)
		if (r->capnames[k] && (!strncmp(r->capnames[k], "oom_", 4) || !strncmp(r->capnames[k], "start_", 6)))
			return 1;
	return 0;
}

/*
 * A size captured as name: "10.76 GiB", or a bare number of bytes; a
 * capture named name_gib holds a bare number of GiB (vLLM's "12.18/23.56
 * GiB").  -1 when there is none or it does not parse.
 */
static double cap_size(const struct logrule *r, const struct logmatch_hit *h, const char *name)
{
	char gib[48];
	const char *v = cap_named(r, h, name);

	if (v)
		return logdecode_size_in(v, 1);
	snprintf(gib, sizeof(gib), "%s_gib", name);
	v = cap_named(r, h, gib);
	return v ? logdecode_size_in(v, 1073741824.0) : -1;
}

/* Figures taken before the job allocated anything (start_total, start_free). */
static void start_figures(const struct logrule *r, const struct logmatch_hit *h, struct oom_figures *f)
{
	logdecode_oom_figures_init(f);
	f->total = cap_size(r, h, "start_total");
	f->free_ = cap_size(r, h, "start_free");
	if (f->total >= 0 || f->free_ >= 0)
		f->own = 0;
}

/*
 * The figures an out-of-memory message carries, as numbers (logdecode.h):
 * PyTorch's total / allocated / free (+ reserved but unallocated, the job's
 * too), start-up figures (vLLM), and the request.  The decoded text goes on
 * the free figure (or the start-up free figure, or the request).
 */
static enum oom_verdict oom_figures(struct xitem *it, const struct logrule *r, const struct logmatch_hit *h)
{
	struct oom_figures f;
	double reserved = cap_size(r, h, "oom_reserved"), in_total = cap_size(r, h, "oom_reserved_total");
	double torch_alloc = cap_size(r, h, "oom_torch_allocated"), torch_res = cap_size(r, h, "oom_torch_reserved");
	int at = cap_index(r, "oom_free");

	start_figures(r, h, &f);
	if (f.own < 0) {
		f.total = cap_size(r, h, "oom_total");
		f.own = cap_size(r, h, "oom_allocated");
		f.free_ = cap_size(r, h, "oom_free");
		/* PyTorch 2.x: reserved but unallocated is the job's too; 1.x:
		 * "reserved in total" includes what is allocated */
		if (f.own >= 0 && reserved >= 0)
			f.own += reserved;
		if (in_total > f.own)
			f.own = in_total;
		/* what PyTorch itself allocated and reserved is this process's even
		   where the per-process figure reads "0 bytes" (a worker in a
		   container, whose pid NVML does not see: vLLM's workers) */
		if (torch_alloc >= 0 && torch_res >= 0 && torch_alloc + torch_res > f.own)
			f.own = torch_alloc + torch_res;
	}
	f.request = cap_size(r, h, "oom_request");
	if (at < 0)
		at = cap_index(r, "start_free");
	if (at < 0)
		at = cap_index(r, "start_free_gib");
	if (at < 0)
		at = cap_index(r, "oom_request");
	if (at >= 0 && !it->decoded[at])
		it->decoded[at] = logdecode_oom_text(&f);
	return logdecode_oom_judge(&f);
}

/*
 * Figures a log gives before any allocation of the job (TensorFlow 1.x's
 * "totalMemory: 10.92GiB freeMemory: 1.02GiB" at start-up, vLLM's "Free
 * memory on device (1.2/23.6 GiB) on startup"; captured as start_total and
 * start_free): what is not free then is held by someone else.  1 (and the
 * figures in *held) when some line of the log says so by the same measure
 * as logdecode_oom_judge() (a quarter of the GPU beyond a context's share).
 */
static int held_before_start_scan(const struct logmatch *m, struct oom_figures *held)
{
	double total = -1;

	for (size_t i = 0; i < m->nhits; i++) {
		struct oom_figures f;

		start_figures(m->hits[i].rule, &m->hits[i], &f);
		/* TensorFlow 0.x-1.2 printed "Total memory:" and "Free memory:"
		 * on two lines: a free figure alone goes with the last total */
		if (f.total < 0 && f.free_ >= 0)
			f.total = total;
		if (f.total >= 0)
			total = f.total;
		if (logdecode_oom_judge(&f) == OOM_HELD) {
			*held = f;
			return 1;
		}
	}
	return 0;
}

/*
 * The log's start-up figures are the log's, not a hit's: found once per
 * explanation (on the first out-of-memory report that asks), then kept.
 */
struct start_memo {
	int known, held;
	struct oom_figures start;
};

static int held_before_start(const struct logmatch *m, struct start_memo *s)
{
	if (!s->known) {
		s->held = held_before_start_scan(m, &s->start);
		s->known = 1;
	}
	return s->held;
}

/*
 * Figures elsewhere in the log that show the job's own size (XLA's "byte
 * size of input/output arguments (N) exceeds the base limit (M)" before
 * its allocator's bare "ran out of memory"): 1 when some out-of-memory
 * line's own numbers say the job does not fit.  Only a line printed before
 * the report h (XLA sizes the job when it compiles, then allocates) and not
 * far before it counts: a log of two jobs pasted one after the other must
 * not make the first job's report the second job's size.  In a log that
 * reads newest first (its timestamps run backwards: journalctl -r, a web
 * console) "before" is below: the line printed after the report counts.
 */
#define OWN_SIZE_LINES 1000

static int own_size_elsewhere(const struct logmatch *m, const struct logmatch_hit *h)
{
	for (size_t i = 0; i < m->nhits; i++) {
		const struct logrule *r = m->hits[i].rule;
		struct oom_figures f;

		const struct logmatch_hit *o = &m->hits[i];

		if (!is_oom_rule(r))
			continue;
		if (m->newest_first ? (h->first > o->last || o->first > h->last + OWN_SIZE_LINES)
				    : (h->last < o->first || h->first > o->last + OWN_SIZE_LINES))
			continue;
		/* a request larger than the GPU: logdecode_oom_judge()'s own rule */
		logdecode_oom_figures_init(&f);
		f.total = cap_size(r, &m->hits[i], "oom_total");
		f.request = cap_size(r, &m->hits[i], "oom_request");
		if (logdecode_oom_judge(&f) == OOM_OWN)
			return 1;
	}
	return 0;
}

/*
 * Literal evidence of another holder: the condition of some rule's
 * gpu-memory-held ("?+another process|...", explain.tsv) met by the log.
 */
static int holder_named(const struct logmatch *m)
{
	const struct logrules *rs = m->rules;

	for (size_t i = 0; i < rs->n; i++)
		for (size_t c = 0; c < rs->v[i].ncauses; c++)
			if (rs->v[i].causes[c] == CAUSE_GPU_MEMORY_HELD && rs->v[i].cond[c].kind == LR_COND_IF &&
			    logmatch_cond_seen(m, &rs->v[i].cond[c]))
				return 1;
	return 0;
}

/*
 * An error code that means an allocation failed (CUDA_ERROR_OUT_OF_MEMORY,
 * cudaErrorMemoryAllocation, CUDNN_STATUS_ALLOC_FAILED: the code table
 * gives them gpu-memory-held alone) is an out-of-memory report too, with
 * no figures: another holder only on the log's evidence.
 */
static int is_alloc_code(const struct logrule *r, const enum cause_id *causes, size_t n)
{
	return r->by_code && n == 1 && causes[0] == CAUSE_GPU_MEMORY_HELD;
}

/*
 * The causes of an out-of-memory report, by its evidence: its own numbers
 * first (another holder: gpu-memory-held; the job's own: none, the item is
 * scope), then other lines of the log (figures from before the job
 * started; the rule's conditions on literals such as "other process");
 * figures that show the job's own use: scope, like a script error; no
 * figures and no other evidence: gpu-out-of-memory, neutral.  Returns the
 * number of causes left in causes[]; 0 makes the item scope.
 */
static int rule_lists(const struct logrule *r, enum cause_id c)
{
	for (size_t k = 0; k < r->ncauses; k++)
		if (r->causes[k] == c)
			return 1;
	return 0;
}

static size_t oom_causes(struct xitem *it, const struct logmatch *m, struct start_memo *sm,
			 const struct logrule *r, const struct logmatch_hit *h,
			 enum cause_id causes[LR_MAX_CAUSES], size_t n)
{
	enum oom_verdict v = oom_figures(it, r, h);
	const struct oom_figures *start = &sm->start;
	int have = 0, before = 0;

	if (v == OOM_OWN)
		return 0;
	if (v == OOM_UNKNOWN && (before = held_before_start(m, sm))) {
		/* say so on the report's first capture that has nothing to say yet */
		for (size_t k = 0; k < r->ncaps; k++)
			if (r->capnames[k] && !it->decoded[k]) {
				it->decoded[k] = xasprintf("before the job started, %.1f GiB of the GPU's %.1f "
							   "GiB were not free: another process holds them",
							   (start->total - start->free_) / 1073741824.0,
							   start->total / 1073741824.0);
				break;
			}
	}
	for (size_t c = 0; c < n; c++)
		have |= causes[c] == CAUSE_GPU_MEMORY_HELD;
	if ((v == OOM_HELD || before) && !have && n < LR_MAX_CAUSES) {
		memmove(causes + 1, causes, n * sizeof(*causes));
		causes[0] = CAUSE_GPU_MEMORY_HELD;
		n++;
	}
	/* No figures either way (TensorFlow's "OOM when allocating tensor",
	 * XLA's "Out of memory while trying to allocate"): the GPU ran out, and
	 * the log cannot say whether the job is too big or another process
	 * holds the memory.  Name that, neutral, with nvidia-smi to tell. */
	/* A rule that lists gpu-out-of-memory itself says, by its conditions,
	 * when the neutral cause stands; none left means the log showed the
	 * job's own use (its backward pass: @training-step, explain.tsv). */
	if (n == 0 && v == OOM_UNKNOWN && !own_size_elsewhere(m, h) && !rule_lists(r, CAUSE_GPU_OUT_OF_MEMORY))
		causes[n++] = CAUSE_GPU_OUT_OF_MEMORY;
	return n;
}

static int item_confirmed(const struct xitem *it)
{
	for (size_t c = 0; c < it->ncauses; c++)
		if (it->causes[c].conf == XC_CONFIRMED)
			return 1;
	return 0;
}

/*
 * Most specific first: a confirmed cause outranks an unchecked one; a cause
 * outranks a restated symptom; a message that points to one cause ("Key was
 * rejected by service") outranks one that points to several ("NVIDIA-SMI
 * has failed ..."); then the rule's priority, then the lower layer (the
 * items are sorted by layer).
 */
/*
 * Causes that restate a failure rather than explain it ("cuInit failed"):
 * any other cause in the log is more specific than these.
 */
static int symptom_only(const struct xitem *it)
{
	static const enum cause_id symptoms[] = { CAUSE_CUDA_INIT_FAILED, CAUSE_GPU_COMPUTE_FAILED,
						  CAUSE_NCCL_CALL_FAILED, CAUSE_CUDNN_CALL_FAILED,
						  CAUSE_GPU_XID_ERROR };

	for (size_t c = 0; c < it->ncauses; c++) {
		int symptom = 0;

		for (size_t s = 0; s < sizeof(symptoms) / sizeof(symptoms[0]); s++)
			symptom |= it->causes[c].cause == symptoms[s];
		if (!symptom)
			return 0;
	}
	return 1;
}

static int more_specific(const struct xitem *a, const struct xitem *b)
{
	if (item_confirmed(a) != item_confirmed(b))
		return item_confirmed(a);
	if (symptom_only(a) != symptom_only(b))
		return !symptom_only(a);
	if (a->ncauses != b->ncauses)
		return a->ncauses < b->ncauses;
	return a->hit->rule->prio < b->hit->rule->prio;
}

static void pick_primary(struct explanation *x)
{
	const struct xitem *best = NULL;

	for (size_t i = 0; i < x->n; i++) {
		const struct xitem *it = &x->items[i];

		if (it->cls == LR_CAUSE && it->ncauses && (!best || more_specific(it, best)))
			best = it;
	}
	x->primary_item = best;
	x->primary = NULL;
	for (size_t c = 0; best && c < best->ncauses && !x->primary; c++)
		if (best->causes[c].conf == XC_CONFIRMED)
			x->primary = &best->causes[c];
	if (best && !x->primary)
		x->primary = &best->causes[0];
}

static void item_free(struct xitem *it)
{
	for (size_t k = 0; k < LR_MAX_CAPS; k++)
		free(it->decoded[k]);
	for (size_t c = 0; c < it->ncauses; c++) {
		for (size_t e = 0; e < it->causes[c].nevidence; e++)
			free(it->causes[c].evidence[e]);
		free(it->causes[c].evidence);
		free(it->causes[c].fix);
	}
}

/*
 * A row whose every cause needs evidence ("?+") and found none says
 * nothing: its line is configuration (CUDA_VISIBLE_DEVICES=0,1 in a run
 * that works, a status block's "State : In Progress" outside nvidia-smi's
 * Fabric section), not a failure, and must not become the log's lowest
 * failure with no cause: it is reported as a benign line (class benign, no
 * layer), still listed with the rule that matched.
 */
static int says_nothing(const struct xitem *it)
{
	const struct logrule *r = it->hit->rule;

	if (it->cls != LR_CAUSE || it->ncauses || r->by_code || !r->ncauses)
		return 0;
	for (size_t k = 0; k < r->ncauses; k++)
		if (r->cond[k].kind != LR_COND_IF)
			return 0;
	return 1;
}

/*
 * The vocabulary tier (rows "term-*", issue 20) names a cause from the domain
 * words of an error line when no exact message shape matched.  It is a last
 * resort: when any exact row names a cause, the term rows' causes are noise
 * next to that specific answer and are dropped; and a line NCCL logged at
 * level INFO ("NCCL INFO NET/IB ... retrying") is never a term row's error.
 */
/*
 * A line whose own words say its error words are absent ("No errors found",
 * "no warnings", "Verification passed, no incorrect values") reports a
 * check that went well: the vocabulary tier reads error words, not their
 * negation, so such a line is never its error (round 11's attacker: a
 * healthy Fabric Manager, MIG or P2P line named a cause).
 */
static int says_all_clear(const char *t)
{
	static const char *const clear[] = { "no error", "0 errors", "without error", "no warning",
					     "no issue", "no problem", "passed", "succeeded" };

	for (size_t i = 0; i < sizeof(clear) / sizeof(clear[0]); i++)
		if (strcasestr(t, clear[i]))
			return 1;
	return 0;
}

static void drop_terms(struct explanation *x)
{
	int exact = 0;
	size_t n = 0;

	/*
	 * An exact cause row that its own figures made scope (an out-of-memory
	 * report of a job too big for the GPU) is a specific answer too: the
	 * NCCL watchdog's "collective stuck" of the other ranks follows from
	 * it and must not outrank it as a term guess.
	 */
	for (size_t i = 0; i < x->n; i++)
		exact |= !logrule_is_term(x->items[i].hit->rule) &&
			 ((x->items[i].cls == LR_CAUSE && x->items[i].ncauses) ||
			  (x->items[i].cls == LR_SCOPE && x->items[i].hit->rule->cls == LR_CAUSE));
	for (size_t i = 0; i < x->n; i++) {
		struct xitem *it = &x->items[i];

		if (logrule_is_term(it->hit->rule) &&
		    (exact || strstr(it->hit->text, "NCCL INFO") || says_all_clear(it->hit->text))) {
			x->ncause_items -= it->cls == LR_CAUSE;
			x->nscope_items -= it->cls == LR_SCOPE;
			x->nbenign_items -= it->cls == LR_BENIGN;
			item_free(it);
			continue;
		}
		if (n != i)
			x->items[n] = *it;
		n++;
	}
	x->n = n;
}

void explanation_build(struct explanation *x, const struct logmatch *m, const struct kb *kb,
		       const struct confirm_in *ci)
{
	snprintf(x->kb_as_of, sizeof(x->kb_as_of), "%s", kb && kb_as_of(kb) ? kb_as_of(kb) : "");
	x->lines_seen = m->lines_seen;
	x->input_lines = m->input_lines;
	x->dropped = m->dropped;
	x->live = ci != NULL;
	x->items = xcalloc(m->nhits + 1, sizeof(*x->items));
	x->n = m->nhits;
	/* per log, not per hit: found at most once */
	struct start_memo sm = { 0, 0, { 0 } };
	int holder = -1;

	for (size_t i = 0; i < m->nhits; i++) {
		struct xitem *it = &x->items[i];
		const struct logmatch_hit *h = &m->hits[i];
		const struct logrule *r = h->rule;
		enum cause_id causes[LR_MAX_CAUSES];
		size_t ncauses;
		int scope = 0;

		it->hit = h;
		it->cls = r->cls;
		it->layer = r->layer;
		for (size_t k = 0; k < r->ncaps; k++)
			it->decoded[k] = r->capnames[k] && !strcmp(r->capnames[k], "cuda_error") ?
						 logdecode_cudart(h->caps[k], explain_cudart_era(m), h->text) :
						 logdecode_line(kb, r->capnames[k], h->caps[k], h->text);
		ncauses = rule_causes(m, r, h, causes);
		if (is_oom_rule(r)) {
			scope = !(ncauses = oom_causes(it, m, &sm, r, h, causes, ncauses));
		} else if (is_alloc_code(r, causes, ncauses)) {
			/* an allocation that failed, no figures: the neutral cause */
			if (holder < 0)
				holder = holder_named(m);
			if (!holder && !held_before_start(m, &sm))
				causes[0] = CAUSE_GPU_OUT_OF_MEMORY;
		}
		if (scope) {
			it->cls = LR_SCOPE;
			it->layer = -1;
			ncauses = 0;
		}
		for (size_t c = 0; c < ncauses; c++) {
			struct xcause *xc = &it->causes[it->ncauses++];
			const struct cause *cat = cause_get(causes[c]);

			xc->cause = causes[c];
			xc->id = cat ? cat->id : "?";
			xc->layer = cat ? (int)cat->layer : r->layer;
			xc->title = cat ? cat->title : NULL;
		}
		if (says_nothing(it)) {
			it->cls = LR_BENIGN;
			it->layer = -1;
		}
		switch (it->cls) {
		case LR_CAUSE: x->ncause_items++; break;
		case LR_SCOPE: x->nscope_items++; break;
		case LR_BENIGN: x->nbenign_items++; break;
		}
	}
	drop_terms(x);
	/* confirmed live only when kept: the term rows dropped above cost no probe */
	for (size_t i = 0; i < x->n; i++)
		for (size_t c = 0; c < x->items[i].ncauses; c++)
			confirm_cause(ci, x->items[i].hit, &x->items[i].causes[c]);
	qsort(x->items, x->n, sizeof(*x->items), item_cmp);
	pick_primary(x);
}

void explanation_release(struct explanation *x)
{
	for (size_t i = 0; i < x->n; i++)
		item_free(&x->items[i]);
	free(x->items);
	memset(x, 0, sizeof(*x));
}

int explanation_exit(const struct explanation *x)
{
	return x->ncause_items || x->nscope_items ? 0 : 3;
}
