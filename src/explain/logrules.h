/*
 * logrules.h - explain's rules: which log message points to which cause.
 *
 * The rules are data (src/knowledge/data/explain.tsv, embedded; `--kb DIR`
 * reads DIR/explain.tsv instead), one row per message shape:
 *
 *	id	prio	class	match	pattern	anchor	captures	causes	layer	says	source
 *
 *  - id: stable rule id ("tf-dlopen-failed");
 *  - prio: lower first; on each line the first rule (by prio, then row
 *    order) that matches wins; the vocabulary tier (ids "term-*", prio 200,
 *    above every exact row) matches a domain word and an error word on one
 *    line and counts only when no exact row names a cause (logrule_is_term);
 *  - class: "cause" (points to cause ids of the catalogue), "scope" (a real
 *    failure outside the GPU stack: user code, numerics), "benign" (looks
 *    fatal, is not);
 *  - match: "lit", "re" (POSIX ERE through regcomp), "rei" (ERE ignoring
 *    case), or "exc" (no pattern: the exception line of a Python traceback
 *    all of whose frames are user code, when no other rule matched);
 *  - pattern, lit: the literal text, found anywhere in the line, with
 *    captures written {name} (or {name:TYPE}).  A capture matches one or
 *    more characters: in the middle of the pattern the shortest text that
 *    lets the rest match (TYPE any), at either end one word (TYPE word: no
 *    white space or quotes; trailing .,;:)] dropped).  TYPE may be any,
 *    word, int (digits), hex (0x and hex digits, or hex digits) or rest
 *    (the rest of the line).  Two captures may not touch.  "{" not followed
 *    by a name and "}" is literal;
 *  - anchor: a literal every matching line contains (compared ignoring
 *    case), required for re/rei, where "a|b" means one of the literals a
 *    or b (one per alternative of the regex); "-" for lit (its longest
 *    literal part);
 *  - captures: re/rei: names of the groups 1..n, comma-separated, "-" for
 *    a group that is not a capture; "-" else;
 *  - causes: cause ids (';'-separated) for class cause, "-" otherwise;
 *    "@errcode": the causes the error-code table (errcodes.h) gives the code
 *    captured as err_name (a name), cu_short, nvml_short or cudnn_short (a
 *    name without its API's prefix, as wrappers print it: go-nvml's
 *    ERROR_LIBRARY_NOT_FOUND), cuda_error (a cudaError_t number) or
 *    cu_result (a CUresult number), or as cudnn_code, nccl_code, nvml_code
 *    (a cudnnStatus_t, ncclResult_t or nvmlReturn_t number: the context the
 *    rule's pattern matched names the family); such a rule must give its
 *    layer.  A cause may carry a condition on evidence anywhere in the log
 *    (any line, or a traceback frame kept with an exception line), a list
 *    of literals compared ignoring case like anchors ('|'-separated, at
 *    most LR_MAX_EVLITS):
 *	"nouveau-loaded?nouveau"	a guess: named when the log contains
 *		"nouveau", or when it holds the evidence of none of the rule's
 *		guesses (the log cannot tell them apart, so all stand); when it
 *		holds the evidence of some guess, or of one of the rule's "?+"
 *		causes below, the others are not named;
 *	"wsl-lib-not-on-loader-path?+/usr/lib/wsl|/mnt/c/"	only when the log
 *		contains one of the literals;
 *	"libcuda-missing?!/usr/lib/wsl|/mnt/c/"	only when it contains none;
 *	"kernel-module-flavor-wrong?@flavor-hint?!@gpu-lost-evidence"	a guess
 *		with an exception: never named when the log holds one of the
 *		literals after "?!" (a probe refused because the GPU fell off
 *		the bus is no flavour problem), and its evidence then silences
 *		no other guess; a "?+" cause takes one the same way;
 *    a literal "@name" stands for the literals of a named evidence set,
 *    defined once, on a comment line anywhere in the file (by custom at the top)
 *	#@evset<TAB>name<TAB>lit|lit<TAB>why the set is what it is, and its source
 *    (the TSV readers skip comments; logrules_parse reads these lines), so
 *    a fix to the evidence reaches every row: "wsl1-no-gpu?+@wsl|@wsl1-kernel".
 *    Names are a-z, 0-9, '-'; a set holds literals only (none starts with
 *    '@', '+' or '!', none holds '?' or ';'), at most LR_MAX_EVLITS, and the
 *    condition after expansion is still at most LR_MAX_EVLITS; an unknown
 *    name is a load error naming the row and the set;
 *  - layer: the layer the message belongs to (layer_name()); "-" for
 *    scope and benign rules, and for a cause rule: its first cause's layer;
 *  - says: one line, what the message means;
 *  - source: where the message text was taken from.
 *
 * Capture names carry meaning for decoding (logdecode.h): soname, found,
 * built, cuda_int, driver_int, cudnn_int, sm, cc, xid, pci, cuda_error,
 * cu_name, cuda_name, bytes, gpu, path, errmsg, nccl_err, status, err_name,
 * cu_short, nvml_short, cudnn_short (an error name without its API's
 * prefix, looked up in the family the line names),
 * and the out-of-memory figures: a cause rule with a capture named oom_*
 * or start_* is an out-of-memory report (explain.c), whose cause
 * gpu-memory-held stands only on evidence of another holder: its own
 * figures (oom_total, oom_allocated, oom_free, oom_reserved,
 * oom_reserved_total, oom_request; oom_torch_allocated and
 * oom_torch_reserved, PyTorch's own figures, which are this process's
 * whatever its per-process figure says; start_total, start_free taken before
 * the job allocated; a name_gib capture is a bare number of GiB), a line
 * of the log with start_* figures, or the cause's condition.  Without any,
 * its own figures showing the job's use make it scope, and no figures at
 * all the neutral gpu-out-of-memory, unless the rule lists gpu-out-of-memory
 * itself: then its conditions decide, and none met is scope (a backward
 * pass's OOM, @training-step).  oom_status, oom_shape only mark it.
 *
 *	struct logrules r;
 *	if (logrules_load(ctx->kb_dir, &r, &e) < 0) ...
 *	... logmatch (logmatch.h) ...
 *	logrules_release(&r);
 */
#ifndef GD_LOGRULES_H
#define GD_LOGRULES_H

#include <regex.h>
#include <stddef.h>
#include <string.h>

#include "core/err.h"
#include "core/strmap.h"
#include "knowledge/causes.h"
#include "knowledge/kb_table.h"

#define LR_MAX_CAPS 8
#define LR_MAX_CAUSES 12	/* 8 until round 11: the driver-symptom rows (nvidia-smi-no-driver) name the flavour, the branch and the kernel update beside their seven causes */
#define LR_MAX_EVLITS 96	/* literals in one cause's condition (16 until round 9: @wsl written precisely, beside @wsl1-kernel, needs 20; 32 until round 11: @in-container, every way a log shows it ran in a container, beside @gpu-requested, and the legacy-branch GPUs of two generations need more; 64 until round 12: @in-container reached 62 and still missed the pod specs, compose files, Singularity's run/shell and the images' own users (jovyan, "I have no name!")) */
#define LR_MAX_EVIDENCE 2048	/* distinct evidence literals, all rules together (56 in use at round 8, past 256 in round 9, past 512 at the round-11 merge, past 1024 at the round-12 merge: they share the anchors' one-pass matcher, so more cost no pass) */
#define LR_MAX_SEGS 20
#define LR_MAX_EVSETS 64	/* named evidence sets ("#@evset" lines; 8 in use when they came) */

enum lr_class { LR_CAUSE, LR_SCOPE, LR_BENIGN };
enum lr_kind { LR_LIT, LR_RE, LR_EXC };
enum lr_cap_type { LR_CAP_ANY, LR_CAP_WORD, LR_CAP_INT, LR_CAP_HEX, LR_CAP_REST };

struct termre;

struct lr_seg {
	const char *lit;	/* literal text, not NUL-terminated; NULL for a capture */
	size_t len;
	int cap;		/* capture index, -1 for literal text */
	enum lr_cap_type type;
};

/* A cause's condition (see the causes column above). */
enum lr_cond_kind { LR_COND_NONE, LR_COND_GUESS, LR_COND_IF, LR_COND_UNLESS };
struct lr_cond {
	enum lr_cond_kind kind;
	int *ev;		/* indices into struct logrules.ev, nev of them (at most LR_MAX_EVLITS); on
				 * the heap: a fixed array per cause and per exception made each rule
				 * 10 KB, 5 MB of table to clear at every start-up (round 12) */
	size_t nev;
};

/* A named evidence set: "#@evset<TAB>name<TAB>lit|lit<TAB>why" (see above). */
struct lr_evset {
	char name[48];
	char *lits;		/* "lit|lit", as written */
};

struct logrule {
	const char *id;
	int prio;
	int row;		/* order in the file */
	enum lr_class cls;
	enum lr_kind kind;
	const char *pattern;
	char *anchor;		/* lower case; NULL for exc */
	enum cause_id causes[LR_MAX_CAUSES];
	struct lr_cond cond[LR_MAX_CAUSES];	/* per cause */
	struct lr_cond except[LR_MAX_CAUSES];	/* a guess's "?!": LR_COND_UNLESS or none */
	size_t ncauses;
	int by_code;		/* causes "@errcode": those of the error code captured (errcodes.h) */
	int layer;		/* enum layer_id, -1 for none */
	const char *says;
	const char *source;
	int line;		/* line in the data file */
	char *capnames[LR_MAX_CAPS];
	size_t ncaps;
	/* compiled */
	regex_t re;
	int re_ok;		/* re compiled: at load, or for a term row on first need (logrule_term_regex) */
	int icase;		/* a term row's "rei": for its regex compiled late */
	struct termre *tm;	/* a term row's regex, for the vocabulary tier's matcher (termre.h); NULL else */
	struct lr_seg segs[LR_MAX_SEGS];
	size_t nsegs;
};

struct logrules {
	struct kb_table table;
	struct logrule *v;	/* sorted by (prio, row) */
	size_t n;
	const char *origin;	/* "embedded" or the file read */
	char *ev[LR_MAX_EVIDENCE];	/* the conditions' literals, lower case, each once */
	size_t nev;
	struct strmap evidx;	/* literal -> its index in ev: the sets expand to ~10k literals, a scan per one cost 15 ms at start-up */
	struct lr_evset sets[LR_MAX_EVSETS];
	size_t nsets;
	/* the evidence of the sets @cudart-old and @cudart-new (the numbering of a
	 * log's cudaError_t numbers, errcodes.h); empty when the table lacks them */
	struct lr_cond cudart_old, cudart_new;
};

/* dir NULL: the embedded table; else DIR/explain.tsv when it exists. */
int logrules_load(const char *dir, struct logrules *r, struct err *e);
/* Parse and compile a table's text (tests, fuzzing). */
int logrules_parse(const char *origin, const char *text, size_t len, struct logrules *r,
		   struct err *e);
void logrules_release(struct logrules *r);
const struct logrule *logrules_find(const struct logrules *r, const char *id);

/*
 * Match one literal pattern against text (len bytes).  On success returns 1
 * and sets cap_off/cap_len (ncaps entries) and *match_off; else 0.
 */
int logrules_lit_match(const struct logrule *rule, const char *text, size_t len,
		       size_t *cap_off, size_t *cap_len);

/*
 * The vocabulary tier (issue 20): rows whose id starts "term-" name a cause
 * from the domain word of an error line ("gres" ... "error"), with a priority
 * above every exact row.  They are a last resort: explain.c drops them when
 * an exact row names a cause, and logjoin.c never joins two lines for them.
 * Their regexes run on termre.h (tm), parts joined by ".{0,N}" gaps, in
 * time linear in the line; they capture nothing.
 */
static inline int logrule_is_term(const struct logrule *r)
{
	return r && strncmp(r->id, "term-", 5) == 0;
}

/*
 * A term row's regex (re), compiled on first need: termre answers every
 * window explain gives it, so regcomp runs only where termre declines (a
 * text too large for its tables) and in the tests that compare the two.
 * 0, or -1 when regcomp refuses the pattern.
 */
int logrule_term_regex(struct logrule *r);

#endif
