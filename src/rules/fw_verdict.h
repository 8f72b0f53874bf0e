/*
 * fw_verdict.h - will a framework install use the GPU?  The verdict from
 * the frameworks probe's facts, decided here, in rules, and only here.
 *
 * The probe records what it found (frameworks.h: the build, every library
 * the framework loads and where the loader finds it, whether a missing
 * DT_NEEDED library fails the import or the framework dlopen()s it and
 * falls back to the CPU, an empty stub package).  fw_predict() turns that
 * into the library-level outcome: gpu (every library it needs resolves), cpu
 * (a CPU build, or the CPU fallback), broken (the import itself would fail),
 * or unknown (a build that could not be told).  The driver and the GPU's
 * architecture are judged by rules_frameworks.c on top of it.  The JSON
 * inventory prints the verdict beside the facts (fw_prediction_id).
 *
 *	struct buf why = BUF_INIT;
 *	if (fw_predict(w, &why) == FW_PREDICT_BROKEN) report(why.s);
 *	buf_release(&why);
 */
#ifndef GD_FW_VERDICT_H
#define GD_FW_VERDICT_H

struct buf;
struct fw_entry;

enum fw_prediction {
	FW_PREDICT_UNKNOWN,	/* the build could not be told */
	FW_PREDICT_GPU,
	FW_PREDICT_CPU,
	FW_PREDICT_BROKEN,
};

/* The verdict; why (NULL: not wanted) gets one line, empty when there is nothing to say. */
enum fw_prediction fw_predict(const struct fw_entry *w, struct buf *why);
/* The JSON vocabulary: "gpu", "cpu", "broken"; NULL for unknown. */
const char *fw_prediction_id(enum fw_prediction p);

#endif
