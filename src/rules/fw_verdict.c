/* fw_verdict.c - the gpu/cpu/broken verdict on a framework install; see fw_verdict.h. */
#include "rules/fw_verdict.h"

#include "core/buf.h"
#include "inventory/frameworks.h"

#include <string.h>

const char *fw_prediction_id(enum fw_prediction p)
{
	switch (p) {
	case FW_PREDICT_UNKNOWN: return NULL;
	case FW_PREDICT_GPU: return "gpu";
	case FW_PREDICT_CPU: return "cpu";
	case FW_PREDICT_BROKEN: return "broken";
	}
	return NULL;
}

enum fw_prediction fw_predict(const struct fw_entry *w, struct buf *why)
{
	struct buf missing = BUF_INIT;
	int broken = 0, cpu = 0;
	enum fw_prediction p;

	if (why)
		buf_reset(why);
	if (w->stub_why) {
		if (why)
			buf_puts(why, w->stub_why);
		return FW_PREDICT_BROKEN;
	}
	if (w->is_cuda_build == 0) {
		if (why)
			buf_puts(why, "it is a CPU-only build");
		return FW_PREDICT_CPU;
	}
	for (size_t i = 0; i < w->nlibs; i++) {
		const struct fw_lib *l = &w->libs[i];

		if (!l->required || l->role == FW_ROLE_CUDNN_SUB)
			continue;
		if (!l->path || l->missing_dep) {
			/* a DT_NEEDED library the loader cannot find fails the import */
			if (!l->dlopened && w->needed_fatal)
				broken = 1;
			else
				cpu = 1;
			buf_printf(&missing, "%s%s", missing.len ? ", " : "", l->soname);
			if (l->path && l->missing_dep)
				buf_printf(&missing, " (needs %s)", l->missing_dep);
		}
	}
	if (broken || cpu) {
		p = broken ? FW_PREDICT_BROKEN : FW_PREDICT_CPU;
		if (why)
			buf_printf(why, "%s cannot be loaded", missing.s);
	} else if (w->is_cuda_build == 1) {
		p = FW_PREDICT_GPU;
		if (why && w->load_note)
			buf_puts(why, w->load_note);
	} else {
		p = FW_PREDICT_UNKNOWN;
	}
	buf_release(&missing);
	return p;
}
